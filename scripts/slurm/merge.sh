#!/usr/bin/env bash
# merge.sh MCBENCH DIR NTASKS REPORT: the merge job that scripts/slurm/campaign.sh
# submits after its job array (afterok). Merges DIR/part-0.h5 ...
# DIR/part-(NTASKS-1).h5 into DIR/all.h5 and DIR/all.csv (mcbench merge checks
# that settings and revision match and refuses duplicate or conflicting runs);
# with REPORT=1 also writes the report into DIR/report. The parts are named
# one by one, not globbed, so that a stray part file is never merged and a
# missing one is an error.
set -euo pipefail
[ $# -eq 4 ] || { echo "merge.sh: usage: merge.sh MCBENCH DIR NTASKS REPORT(0|1) (submitted by campaign.sh)" >&2; exit 2; }
mcb=$1 dir=$2 n=$3 report=$4
parts=() missing=()
for ((k = 0; k < n; k++)); do
  if [ -s "$dir/part-$k.h5" ]; then parts+=("$dir/part-$k.h5"); else missing+=("part-$k.h5"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "merge.sh: ${#missing[@]} of $n parts missing in $dir: ${missing[*]:0:10}" >&2
  exit 1
fi
echo "merge.sh: merging $n parts on $(hostname), $(date -Is)"
"$mcb" merge "${parts[@]}" -o "$dir/all.h5"
if [ "$report" = 1 ]; then
  "$mcb" report "$dir/all.h5" -o "$dir/report"
fi
echo "merge.sh: done, $(date -Is)"

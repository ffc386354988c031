#!/usr/bin/env bash
# scene-figures.sh MCBENCH DIR [SET] [-- RUN OPTIONS]: the figures of
# docs/performance.md section 1 ("Every solver on the default problems",
# which scripts/performance.sh now regenerates) as first measured: builds the problem set SET (default
# `default`: what ./bench.sh runs) into DIR/problems, runs every
# registered solver on it with ./bench.sh's budgets (plus RUN OPTIONS), and
# prints per scene (problem set) and solver the success rate and the median
# time to a natural-map residual of 1e-6 and 1e-8 (from the report's tables,
# DIR/SCENE_table.md), with the wall time of each stage.
set -euo pipefail
mcb=$1 dir=$2
set_name=${3:-default}
shift 2; [ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
mkdir -p "$dir"
t0=$(date +%s.%N)
"$mcb" gen --set "$set_name" -o "$dir/problems"
t1=$(date +%s.%N)
rm -f "$dir"/results.h5 "$dir"/results.h5.journal "$dir"/results.csv
mapfile -t files < <(ls "$dir"/problems/*.h5)
"$mcb" run "${files[@]}" -o "$dir/results.h5" "$@"
t2=$(date +%s.%N)
"$mcb" report "$dir/results.h5" -o "$dir" >/dev/null
printf 'generation %.1f s, campaign %.1f s\n' "$(echo "$t1 - $t0" | bc)" "$(echo "$t2 - $t1" | bc)"
echo "| scene | solver | runs | success | to 1e-6 (ms) | to 1e-8 (ms) |"
echo "|---|---|---|---|---|---|"
for f in "${files[@]}"; do
  s=$(basename "$f" .h5)
  [ -f "$dir/${s}_table.md" ] || continue
  # columns of the report's table: solver, runs, ..., success (5), ...,
  # to 1e-6 (16), to 1e-8 (17)
  awk -F'|' -v s="$s" 'NR > 4 && NF > 17 { gsub(/^ +| +$/, "", $2);
    printf "| %s | %s | %s | %s | %s | %s |\n", s, $2, $3, $6, $17, $18 }' "$dir/${s}_table.md" |
    sed 's/  */ /g'
done

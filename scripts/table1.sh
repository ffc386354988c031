#!/usr/bin/env bash
# table1.sh MCBENCH DIR FILE... [-- RUN OPTIONS]: the SubADMM paper's Table I
# protocol on recorded scenes. Every solver (default pgs,pj,subadmm; RUN
# OPTIONS may give --solvers) runs every problem of every FILE for exactly
# 30, 60 and 90 iterations (--tol 0: no early stop; the ITERS environment
# variable overrides the list), and the table gives per scene (problem set)
# and solver
#   AT: the average time per step, setup + solve (ms), and
#   AA: the average accuracy, the mean over the steps of -log10 of the
#       harness's (absolute) Fischer-Burmeister residual (bigger is better),
#   AN: the same for the (relative) natural-map residual,
# as the paper's rows do; "-" where a run failed (a status other than
# solved, max-iterations or stalled (a solver stopping on its own at a fixed
# point): diverged, numerical failure, budget, crash).
# Every run starts from the problem's recorded initial guess (the previous
# step's solution, --warm-start), as the simulator does.
# The campaigns are DIR/table1-ITERS.h5 (and .csv).
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
mcb=$1 dir=$2
shift 2
files=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do files+=("$1"); shift; done
[ $# -gt 0 ] && shift
opts=("$@")
have_solvers=0
for o in "${opts[@]}"; do [ "$o" = --solvers ] && have_solvers=1; done
[ $have_solvers = 1 ] || opts+=(--solvers pgs,pj,subadmm)
iters=${ITERS:-30 60 90}
mkdir -p "$dir"
csvs=()
for it in $iters; do
  rm -f "$dir/table1-$it.h5" "$dir/table1-$it.h5.journal" "$dir/table1-$it.csv"
  "$mcb" run "${files[@]}" --iters "$it" --tol 0 --trace-every 0 "${opts[@]}" \
    --warm-start -o "$dir/table1-$it.h5" >/dev/null 2>"$dir/table1-$it.log" || {
    echo "table1.sh: the campaign at $it iterations failed (see $dir/table1-$it.log)" >&2
    exit 1
  }
  csvs+=("$dir/table1-$it.csv")
done
awk -F, -v iters="$iters" '
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
{
  it = $(col["iterations"]); st = $(col["status"]); set = $(col["problem_set"]);
  sv = $(col["solver"]); k = set SUBSEP sv SUBSEP FILENAME;
  if (!(set in seen)) { seen[set] = 1; sets[++nsets] = set }
  if (!(sv in sseen)) { sseen[sv] = 1; solvers[++nsolvers] = sv }
  n[k]++;
  t[k] += $(col["setup_s"]) + $(col["solve_s"]);
  fb = $(col["fb"]) + 0;
  a[k] += fb > 1e-16 ? -log(fb) / log(10) : 16;
  nm = $(col["natmap"]) + 0;
  an[k] += nm > 1e-16 ? -log(nm) / log(10) : 16;
  if (st != "solved" && st != "max-iterations" && st != "stalled") bad[k] = 1;
}
END {
  nit = split(iters, its, " ");
  nf = split(files, fl, " ");
  hdr = "| scene | |"; sep = "|---|---|";
  for (s = 1; s <= nsolvers; s++)
    for (i = 1; i <= nit; i++) { hdr = hdr " " solvers[s] " " its[i] " |"; sep = sep "---|" }
  print hdr; print sep;
  for (p = 1; p <= nsets; p++)
    for (row = 0; row < 3; row++) {
      line = "| " (row ? "" : sets[p]) " | " (row == 2 ? "AN" : row ? "AA" : "AT (ms)") " |";
      for (s = 1; s <= nsolvers; s++)
        for (i = 1; i <= nit; i++) {
          k = sets[p] SUBSEP solvers[s] SUBSEP fl[i];
          if (!(k in n) || (k in bad)) { line = line " - |"; continue }
          line = line sprintf(" %.4g |", row == 2 ? an[k] / n[k] : row ? a[k] / n[k] : 1000 * t[k] / n[k]);
        }
      print line;
    }
}' files="${csvs[*]}" "${csvs[@]}"

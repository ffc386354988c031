#!/usr/bin/env bash
# table1-loop.sh MCBENCH DIR [SCENE...] [-- SIMULATE OPTIONS]: the SubADMM
# paper's Table I as the paper measured it: in a closed loop, each solver
# driving the scene itself (mcbench simulate). Every solver (pgs, pj,
# fadmm, nnewton, subadmm) runs each step of each scene for exactly 30, 60
# and 90 iterations (nnewton 3, 6 and 9: the paper's columns; no early
# stop), warm-started from its own previous step. The table gives per
# scene and solver
#   AT: the average time per step, setup + solve (ms),
#   AA: the average accuracy, the mean over the steps of -log10 of the
#       harness's (absolute) Fischer-Burmeister residual (bigger is better),
#   AN: the same for the (relative) natural-map residual,
#   DT: the engine's time per step (ms; the same for every solver but for
#       noise: collision detection, assembly, integration),
# with "-" where the run failed in the loop (its step and reason follow the
# table), and the published AT and AA in parentheses. Times are this
# machine's: compare the ratios between solvers, not the milliseconds.
# SCENE: stir, cable or beam (default all three); sizes as published
# (SCALE=quick: 27 spheres, 64 segments, a shorter beam: a smoke run).
# The campaigns are DIR/loop-SCENE-ITERS.h5 (and .csv); the reference
# trajectories are cached in DIR/references.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,22p' "$0" >&2; exit 2; }
mcb=$1 dir=$2
shift 2
scenes=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do scenes+=("$1"); shift; done
[ $# -gt 0 ] && shift
opts=("$@")
[ ${#scenes[@]} -gt 0 ] || scenes=(stir cable beam)
iters=${ITERS:-30 60 90}
solvers=pgs,pj,fadmm,nnewton,subadmm
mkdir -p "$dir"
args_of() {
  case "$1:${SCALE:-paper}" in
    stir:paper) echo "--spheres 216 --steps 40" ;;
    cable:paper) echo "--segments 640 --steps 100" ;;
    beam:paper) echo "--steps 40" ;;
    stir:quick) echo "--spheres 27 --steps 10" ;;
    cable:quick) echo "--segments 64 --steps 10" ;;
    beam:quick) echo "--cells 2 --length 12 --pieces 4 --steps 5" ;;
    *) echo "table1-loop.sh: unknown scene $1 (stir, cable, beam)" >&2; exit 2 ;;
  esac
}
csvs=()
for s in "${scenes[@]}"; do
  read -r -a a <<<"$(args_of "$s")"
  for it in $iters; do
    out="$dir/loop-$s-$it.h5"
    rm -f "$out" "$out.journal" "${out%.h5}.csv"
    "$mcb" simulate "$s" "${a[@]}" --solvers "$solvers" --budget "iters:$it" \
      --budget "nnewton=iters:$((it / 10))" --references "$dir/references" "${opts[@]}" \
      -o "$out" >/dev/null 2>"${out%.h5}.log" || {
      echo "table1-loop.sh: $s at $it iterations failed (see ${out%.h5}.log)" >&2
      exit 1
    }
    csvs+=("${out%.h5}.csv")
  done
done
# the published Table I: AT (ms) and AA per scene, solver and column
paper='stir pgs 14.50 23.91 32.27 4.427 4.928 5.248
stir pj 3.235 5.688 9.425 3.033 3.349 3.562
stir fadmm 28.41 41.40 56.95 4.107 4.644 5.009
stir nnewton 24.35 46.99 75.44 3.565 4.429 5.324
stir subadmm 3.489 5.940 8.705 4.069 4.579 5.023
cable pgs 48.08 59.30 72.96 4.141 4.860 5.404
cable pj - - - - - -
cable fadmm 16.74 23.52 32.96 4.189 4.634 4.910
cable nnewton 43.35 87.98 132.7 3.270 4.454 5.278
cable subadmm 2.288 4.285 6.402 4.344 4.984 5.222
beam pgs 231.4 241.2 251.2 3.895 4.194 4.255
beam pj - - - - - -
beam fadmm 50.33 92.11 130.3 4.220 4.478 4.756
beam nnewton 188.5 360.2 525.7 2.445 3.494 4.945
beam subadmm 13.41 24.67 35.50 4.326 4.743 4.925'
awk -F, -v iters="$iters" -v paper="$paper" '
BEGIN {
  n = split(paper, pl, "\n");
  for (i = 1; i <= n; i++) {
    split(pl[i], w, " ");
    for (c = 1; c <= 3; c++) { pat[w[1], w[2], c] = w[2 + c]; paa[w[1], w[2], c] = w[5 + c] }
  }
}
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; file++; next }
{
  set = $(col["problem_set"]); sv = $(col["solver"]); k = set SUBSEP sv SUBSEP file;
  if (!(set in seen)) { seen[set] = 1; sets[++nsets] = set }
  if (!(sv in sseen)) { sseen[sv] = 1; solvers[++nsolvers] = sv }
  ncol[set]++; fileidx[set, file] = 1;
  steps = $(col["loop_steps"]) + 0; if (steps < 1) steps = 1;
  at[k] = 1000 * ($(col["setup_s"]) + $(col["solve_s"])) / steps;
  aa[k] = $(col["aa_fb"]); an[k] = $(col["aa_natmap"]);
  dt[k] = 1000 * $(col["engine_s"]) / steps;
  if ($(col["status"]) != "solved") { # the reason is the last column, quoted when it has commas
    bad[k] = 1; why[k] = $(col["reason"]);
    for (i = col["reason"] + 1; i <= NF; i++) why[k] = why[k] "," $i;
    gsub(/^"|"$/, "", why[k]);
  }
}
END {
  nit = split(iters, its, " ");
  hdr = "| scene | |"; sep = "|---|---|";
  for (s = 1; s <= nsolvers; s++)
    for (i = 1; i <= nit; i++) {
      hdr = hdr " " solvers[s] " " (solvers[s] == "nnewton" ? its[i] / 10 : its[i]) " |";
      sep = sep "---|"
    }
  print hdr; print sep;
  f0 = 0;
  for (p = 1; p <= nsets; p++) {
    for (row = 0; row < 4; row++) {
      line = "| " (row ? "" : sets[p]) " | " (row == 3 ? "DT (ms)" : row == 2 ? "AN" : row ? "AA" : "AT (ms)") " |";
      for (s = 1; s <= nsolvers; s++)
        for (i = 1; i <= nit; i++) {
          k = sets[p] SUBSEP solvers[s] SUBSEP (f0 + i);
          pub = row == 0 ? pat[sets[p], solvers[s], i] : row == 1 ? paa[sets[p], solvers[s], i] : "";
          cell = !(k in at) || (k in bad) ? "-" : sprintf("%.4g", row == 3 ? dt[k] : row == 2 ? an[k] : row ? aa[k] : at[k]);
          line = line " " cell (pub != "" ? " (" pub ")" : "") " |";
        }
      print line;
    }
    f0 += nit;
  }
  f0 = 0;
  for (p = 1; p <= nsets; p++) {
    for (s = 1; s <= nsolvers; s++)
      for (i = 1; i <= nit; i++) {
        k = sets[p] SUBSEP solvers[s] SUBSEP (f0 + i);
        if (k in bad)
          print "- " sets[p] ", " solvers[s] " at " (solvers[s] == "nnewton" ? its[i] / 10 : its[i]) " iterations: " why[k];
      }
    f0 += nit;
  }
}' "${csvs[@]}"

#!/usr/bin/env bash
# replay-vs-loop.sh MCBENCH DIR ITERS SOLVERS SCENE [SCENE OPTIONS...]: the
# same solvers at the same per-step budget (ITERS iterations, no early
# stop, warm-started) on the same scene, replayed and in a closed loop:
#   replay:  `mcbench gen` records the scene driven by the engine's own
#            tight solve; every solver answers those frozen steps
#            (`mcbench run --iters ITERS --tol 0 --warm-start`);
#   closed:  every solver drives the scene itself
#            (`mcbench simulate --budget iters:ITERS`).
# Prints per solver AT (ms per step, setup + solve), AA (mean over the
# steps of -log10 of the Fischer-Burmeister residual, as SubADMM's Table
# I) and their ranks under each protocol, and the closed loop's status and
# divergence from the reference trajectory. Times compare within one run of
# this script (the same machine, minutes apart), not across machines.
set -euo pipefail
[ $# -ge 5 ] || { sed -n '2,15p' "$0" >&2; exit 2; }
mcb=$1 dir=$2 iters=$3 solvers=$4 scene=$5
shift 5
mkdir -p "$dir"
"$mcb" gen "$scene" "$@" -o "$dir/$scene.h5" >/dev/null
"$mcb" run "$dir/$scene.h5" --solvers "$solvers" --iters "$iters" --tol 0 --trace-every 0 \
  --check-every never --warm-start -o "$dir/replay.h5" >/dev/null 2>"$dir/replay.log"
"$mcb" simulate "$scene" "$@" --solvers "$solvers" --budget "iters:$iters" \
  --references "$dir/references" -o "$dir/loop.h5" >/dev/null 2>"$dir/loop.log"
awk -F, '
FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; f++; next }
f == 1 {  # replay: one row per step
  s = $(col["solver"]); if (!(s in seen)) { seen[s] = 1; order[++ns] = s }
  rn[s]++; rt[s] += $(col["setup_s"]) + $(col["solve_s"]);
  x = $(col["fb"]) + 0; ra[s] += x > 1e-16 ? -log(x) / log(10) : 16;
}
f == 2 {  # closed loop: one row per run
  s = $(col["solver"]); st[s] = $(col["status"]);
  n = $(col["loop_steps"]) + 0; if (n < 1) n = 1;
  lt[s] = ($(col["setup_s"]) + $(col["solve_s"])) / n; la[s] = $(col["aa_fb"]);
  dv[s] = $(col["div_max_m"]); why[s] = $(col["reason"]);
}
function rank(v, s, hi,    k, r) { r = 1; for (k = 1; k <= ns; k++) if (order[k] != s && (hi ? v[order[k]] > v[s] : v[order[k]] < v[s])) r++; return r }
END {
  for (k = 1; k <= ns; k++) { s = order[k]; rt[s] /= rn[s]; ra[s] /= rn[s] }
  print "| solver | replay AT (ms) | rank | replay AA | rank | loop AT (ms) | rank | loop AA | rank | loop status | div max (m) |";
  print "|---|---|---|---|---|---|---|---|---|---|---|";
  for (k = 1; k <= ns; k++) {
    s = order[k]; lok = st[s] == "solved";
    printf "| %s | %.4g | %d | %.3f | %d | %s | %s | %s | %s | %s | %s |\n", s, 1000 * rt[s], rank(rt, s, 0),
      ra[s], rank(ra, s, 1), lok ? sprintf("%.4g", 1000 * lt[s]) : "-", lok ? rank(lt, s, 0) : "-",
      lok ? sprintf("%.3f", la[s]) : "-", lok ? rank(la, s, 1) : "-", st[s], dv[s];
  }
  for (k = 1; k <= ns; k++) if (st[order[k]] != "solved") print "- " order[k] ": " why[order[k]];
}' "$dir/replay.csv" "$dir/loop.csv"

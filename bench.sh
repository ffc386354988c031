#!/usr/bin/env bash
# The main job: install, build, generate the default problems (the problem
# set problems/sets/default.set, docs/sets.md; --quick: quick.set), run the
# bench's solvers on them with identical budgets, and write the report to
# out/ (entry point out/index.html), then the short closed-loop campaign (the
# set problems/sets/loop.set, each solver driving the scenes itself:
# docs/closed-loop.md) into out/loop/. Extra arguments go to `mcbench run`.
# The bench's solvers: one of each family that solves the Coulomb law the
# problems store (pgs, pj, subadmm, fadmm, nncg, cond) and the
# Siconos and MuJoCo peers when built; --all-solvers runs every registered solver
# (nnewton, canal and the AL baselines take minutes on these sets: nnewton
# alone 107 s of a 5-minute campaign, measured; and the CCP
# solvers apgd, ccp-jacobi and cond-prox are judged by Coulomb's law here:
# rank them with --law ccp), --solvers LIST a list of your own.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/scripts/setup.sh" "$here/build"
mcb="$here/build/mcbench"
out="$here/out"
mkdir -p "$out"
quick=0 pick=bench
args=()
for a in "$@"; do
  case "$a" in
  --quick) quick=1 ;;
  --all-solvers) pick=all; continue ;;
  --solvers) pick=user ;;
  esac
  args+=("$a")
done
list=pgs,pj,subadmm,fadmm,nncg,cond
for s in $("$mcb" solvers | grep -oE '^(siconos|mujoco)_[a-z_]+'); do list=$list,$s; done
loop_list=$list
if [ $pick = bench ]; then
  args+=(--solvers "$list")
fi
prev=
for a in ${args[@]+"${args[@]}"}; do
  [ "$prev" = --solvers ] && loop_list=$a
  prev=$a
done
set -- ${args[@]+"${args[@]}"}
# the problems: the catalog's default set (--quick: the quick set), built
# into out/problems/; files whose generator arguments match are reused
set_name=default
[ $quick -eq 1 ] && set_name=quick
"$mcb" gen --set "$set_name" -o "$out/problems"
sets=()
for f in $(sed -e 's/#.*//' "$here/problems/sets/$set_name.set" | awk 'NF >= 2 {print $1}'); do
  # an entry left out of this build (record mujoco without MuJoCo) has no file
  if [ -e "$out/problems/$f.h5" ]; then sets+=("$out/problems/$f.h5"); fi
done
if [ -d "$here/../shared/fclib" ]; then
  ls "$here"/../shared/fclib/*.hdf5 >/dev/null 2>&1 &&
    "$mcb" import fclib "$here"/../shared/fclib/*.hdf5 -o "$out/fclib.h5" &&
    sets+=("$out/fclib.h5")
fi
# an interrupted earlier run left its journal: continue it (same options)
if [ -e "$out/results.h5.journal" ]; then
  echo "bench: continuing the interrupted campaign in $out/results.h5.journal" >&2
  "$mcb" run "${sets[@]}" --resume "$out/results.h5" "$@"
else
  "$mcb" run "${sets[@]}" -o "$out/results.h5" "$@"
fi
"$mcb" report "$out/results.h5" -o "$out"
# the closed loop (docs/closed-loop.md): the same solvers drive the scenes of
# the loop set themselves, 30 iterations a step; every step judged
mkdir -p "$out/loop"
if [ -e "$out/loop/results.h5.journal" ]; then
  "$mcb" simulate --set loop --budget iters:30 --solvers "$loop_list" --resume "$out/loop/results.h5"
else
  "$mcb" simulate --set loop --budget iters:30 --solvers "$loop_list" -o "$out/loop/results.h5"
fi
"$mcb" report "$out/loop/results.h5" -o "$out/loop"
echo "report: $out/index.html (open it in a browser: the summary, ranking and profile first;"
echo "        every problem set and every problem linked from it; docs/reports.md)"
echo "closed loop: $out/loop/index.html (each solver driving the loop set's scenes itself)"

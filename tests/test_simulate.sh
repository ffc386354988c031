#!/usr/bin/env bash
# test_simulate.sh: `mcbench simulate` end to end: every usage error exits 2
# with its reason (no scene, an unknown scene, a scene that is not one
# trajectory, no budget, a malformed budget, a budget for a solver not
# selected, --instances on a scene without --seed, SCENE with --set); a
# campaign writes one row per solver with its steps (loop_steps, engine_s,
# the outcome columns) and reads its reference from the cache the second
# time; two shards merged, and an MPI campaign, give the same runs as the
# whole campaign (every column but the times); --instances varies the scene's seed; --set runs
# the trajectory entries and leaves the others out; report works on a
# closed-loop campaign (no tolerance: iteration budgets only).
set -u
mcb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
run() { # name command...: must exit 0
  local name=$1; shift
  if "$@" >"$d/out" 2>"$d/err"; then ok; else bad "$name: exit $?"; cat "$d/err"; fi
}
usage() { # name pattern args...: must exit 2 saying pattern
  local name=$1 pat=$2; shift 2
  "$mcb" simulate "$@" -o "$d/u.h5" >"$d/out" 2>"$d/err"
  local rc=$?
  if [ $rc -eq 2 ] && grep -q -- "$pat" "$d/err"; then ok
  else bad "$name: exit $rc, wanted 2 and '$pat':"; cat "$d/err"; fi
}
col() { # file column: the values of a CSV column (by header name), one per line
  awk -F, -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next } { print $k }' "$1"
}

usage no-scene "needs a SCENE" --budget iters:3
usage unknown "unknown scene 'nope'" nope --budget iters:3
usage cases "not one trajectory" bolt-nut --budget iters:3
usage stack "not one trajectory" stack --budget iters:3
usage no-budget "needs --budget" quadrupeds --robots 1 --steps 2
usage kind "is not iters, time or tol" quadrupeds --budget speed:3
usage iters "wants an integer" quadrupeds --budget iters:0
usage time "wants a duration" quadrupeds --budget time:5parsecs
usage solver "which is not selected" quadrupeds --solvers pgs --budget iters:3 --budget pj=iters:3
usage per-solver-only "needs a --budget for every solver" quadrupeds --solvers pgs --budget pgs=iters:3
usage seedless "has no --seed" wall --instances 2 --budget iters:3
usage both "not both" quadrupeds --set loop --budget iters:3
usage scene-option "unknown option --robot" quadrupeds --robot 1 --budget iters:3
[ ! -e "$d/u.h5" ] && ok || bad "a refused command left $d/u.h5"

# a campaign: two solvers, one a per-solver budget
q=(quadrupeds --robots 1 --steps 40)
run whole "$mcb" simulate "${q[@]}" --solvers pgs,subadmm --budget iters:10 \
  --budget subadmm=iters:20 -o "$d/w.h5"
grep -q "reference trajectory of 40 steps computed" "$d/err" && ok || bad "reference not computed"
[ "$(col "$d/w.csv" solver | tr '\n' ' ')" = "pgs subadmm " ] && ok || bad "rows: $(col "$d/w.csv" solver)"
[ "$(col "$d/w.csv" status | sort -u)" = solved ] && ok || bad "status: $(col "$d/w.csv" status)"
[ "$(col "$d/w.csv" loop_steps | sort -u)" = 40 ] && ok || bad "loop_steps: $(col "$d/w.csv" loop_steps)"
# the per-solver budget: the most iterations of a step, pgs 10 and subadmm
# 20 (column 2 of the steps dataset; steps without rows take none)
maxit() { # h5dump prints "(ROW,0): step, status, iterations, ..." for each row
  h5dump -d "/runs/00000$2/steps" "$1" 2>/dev/null |
    awk '/\([0-9]+,0\):/ { sub(/.*\([0-9]+,0\): /, ""); split($0, v, ", ");
                            if (v[3] + 0 > m) m = v[3] + 0 } END { print m + 0 }'; }
[ "$(maxit "$d/w.h5" 0)" -le 10 ] && [ "$(maxit "$d/w.h5" 1)" = 20 ] && ok ||
  bad "most iterations a step: pgs $(maxit "$d/w.h5" 0), subadmm $(maxit "$d/w.h5" 1) (budgets 10, 20)"
h5dump -a /runs/000001/config "$d/w.h5" 2>/dev/null | grep -q "max_iters=20" && ok ||
  bad "subadmm's config does not record its budget"
h5dump -d /runs/000000/steps -H "$d/w.h5" 2>/dev/null | grep -q "( 40, " && ok ||
  bad "no steps dataset of 40 rows"
# again: the reference from the cache
run cached "$mcb" simulate "${q[@]}" --solvers pgs --budget iters:10 -o "$d/c.h5"
grep -q "from the cache" "$d/err" && ok || bad "reference not read from the cache"

# shards merged = the whole (but the times)
run shard0 "$mcb" simulate "${q[@]}" --solvers pgs,subadmm --budget iters:10 \
  --budget subadmm=iters:20 --shard 0/2 -o "$d/s0.h5"
run shard1 "$mcb" simulate "${q[@]}" --solvers pgs,subadmm --budget iters:10 \
  --budget subadmm=iters:20 --shard 1/2 -o "$d/s1.h5"
run merge "$mcb" merge "$d/s0.h5" "$d/s1.h5" -o "$d/m.h5"
strip() { # the CSV without its time columns and the machine's state
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) t[i] = $i ~ /(_s|^total_s|^load_avg|^cpu_mhz|^cpu_max_mhz|^others_share)$/ }
           { l = ""; for (i = 1; i <= NF; i++) if (!t[i]) l = l $i ","; print l }' "$1"
}
if [ "$(strip "$d/w.csv")" = "$(strip "$d/m.csv")" ]; then ok
else bad "merged shards differ from the whole:"; diff <(strip "$d/w.csv") <(strip "$d/m.csv") | head; fi

# under MPI (where built and mpirun exists): the same runs as the whole
if command -v mpirun >/dev/null && "$mcb" simulate --help | grep -q -- --mpi; then
  if timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 "$mcb" simulate "${q[@]}" \
      --solvers pgs,subadmm --budget iters:10 --budget subadmm=iters:20 --mpi \
      -o "$d/mpi.h5" >"$d/out" 2>"$d/err"; then
    if [ "$(strip "$d/w.csv")" = "$(strip "$d/mpi.csv")" ]; then ok
    else bad "MPI results differ from the whole:"; diff <(strip "$d/w.csv") <(strip "$d/mpi.csv") | head; fi
  else bad "simulate --mpi failed"; cat "$d/err"; fi
fi

# instances vary the scene's seed
run instances "$mcb" simulate pouring --particles 3 --steps 4 --settle 2 --instances 2 \
  --solvers pgs --budget iters:10 -o "$d/i.h5"
[ "$(col "$d/i.csv" problem | tr '\n' ' ')" = "pouring-seed2024 pouring-seed2025 " ] && ok ||
  bad "instances: $(col "$d/i.csv" problem)"

# a set: the trajectory entries, the others left out with a note
cat >"$d/mini.set" <<'EOF'
q   quadrupeds --robots 1 --steps 5
s   stack --nx 2 --ny 2 --nz 2 --steps 2
c   cable --segments 8 --steps 3
EOF
run set "$mcb" simulate --set "$d/mini.set" --solvers pgs --budget time:2ms -o "$d/set.h5"
grep -q "s left out: scene stack is not one trajectory" "$d/err" && ok || bad "stack not left out"
[ "$(col "$d/set.csv" problem_set | tr '\n' ' ')" = "q c " ] && ok || bad "set rows: $(col "$d/set.csv" problem_set)"

# the report of a closed-loop campaign with iteration budgets (no tolerance)
run report "$mcb" report "$d/w.h5" -o "$d/rep"
[ -s "$d/rep/index.html" ] && ok || bad "no report"

echo "simulate: $pass passed, $fail failed"
[ $fail -eq 0 ]

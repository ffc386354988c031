#!/usr/bin/env bash
# test_cli.sh: the mcbench command line end to end: exit codes (0 success,
# 2 bad input), gen -> run -> report producing a complete report.
set -u
mcb=$1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
check() { # name expected-exit command...
  local name=$1 want=$2; shift 2
  "$@" >"$d/out" 2>"$d/err"; local got=$?
  if [ "$got" = "$want" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $name: exit $got, want $want"; cat "$d/err"; fi
}
check help 0 "$mcb" --help
for c in info validate import gen run report solvers; do check "$c --help" 0 "$mcb" $c --help; done
check no-args 2 "$mcb"
check unknown-command 2 "$mcb" frobnicate
check run-no-output 2 "$mcb" run x.h5
check run-bad-option 2 "$mcb" run x.h5 -o r.h5 --bogus
check run-bad-solver 2 "$mcb" run x.h5 -o r.h5 --solvers nope
check run-missing-file 2 "$mcb" run "$d/missing.h5" -o "$d/r.h5"
echo garbage > "$d/bad.h5"
check validate-garbage 2 "$mcb" validate "$d/bad.h5"
grep -q "not an HDF5 file" "$d/err" || { fail=$((fail+1)); echo "FAIL message for garbage"; }
check import-garbage 2 "$mcb" import fclib "$d/bad.h5" -o "$d/imp.h5"
[ ! -e "$d/imp.h5" ] || { fail=$((fail+1)); echo "FAIL partial import output left"; }
check gen-bad 2 "$mcb" gen stack --nx 0 -o "$d/s.h5"
check gen 0 "$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps 2 -o "$d/s.h5"
check validate 0 "$mcb" validate "$d/s.h5"
check info 0 "$mcb" info "$d/s.h5"
check solvers 0 "$mcb" solvers
check run-bad-param 2 "$mcb" run "$d/s.h5" -o "$d/r.h5" --param pgs.nope=1
check run 0 "$mcb" run "$d/s.h5" -o "$d/r.h5" --iters 300 --repeat 2 --param pgs.omega=1.2
[ -s "$d/results.csv" ] || { fail=$((fail+1)); echo "FAIL no results.csv"; }
# one row per problem (2) x solver x repetition (2), plus the header
nsolv=$("$mcb" solvers | grep -c '^[a-z_]*: ')
[ "$(wc -l < "$d/results.csv")" = $((4 * nsolv + 1)) ] || { fail=$((fail+1)); echo "FAIL results.csv rows"; }
check report 0 "$mcb" report "$d/r.h5" -o "$d/rep"
for f in index.html s_iter.png s_iter.svg s_time.png s_time.svg s_table.md s_table.csv; do
  [ -s "$d/rep/$f" ] || { fail=$((fail+1)); echo "FAIL report lacks $f"; }
done
# --repeat 2: the table gives, per solver, the fastest repetition (median over
# problems of the per-problem minimum), which cannot exceed the median solve.
awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
         { lo = $col["min_solve_ms"]; md = $col["median_solve_ms"]; n++
           if (lo == "" || lo == "-" || lo + 0 <= 0 || lo + 0 > md + 0) bad++ }
         END { exit !(n == nsolv && col["min_solve_ms"] && !bad) }' nsolv="$nsolv" "$d/rep/s_table.csv" ||
  { fail=$((fail+1)); echo "FAIL min_solve_ms column"; }
check report-not-results 2 "$mcb" report "$d/s.h5" -o "$d/rep2"
echo "cli: $pass passed, $fail failed"
[ "$fail" = 0 ]

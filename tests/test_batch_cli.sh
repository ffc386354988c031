#!/usr/bin/env bash
# test_batch_cli.sh: mcbench run --batch N end to end: bad sizes and the
# options it cannot go with are refused (exit 2, a message naming them);
# a batch of quadruped steps records every problem twice, one by one and
# batched, with the same statuses, iterations and natmap, and ends with the
# throughput table.
set -u
mcb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
# expect NAME EXIT TEXT COMMAND...: the command exits EXIT and its stderr
# or stdout holds TEXT
expect() {
  local name=$1 want=$2 text=$3; shift 3
  "$@" >"$d/out" 2>"$d/err"; local got=$?
  if [ "$got" = "$want" ] && cat "$d/out" "$d/err" | grep -qF -- "$text"; then pass=$((pass+1))
  else fail=$((fail+1)); echo "FAIL $name: exit $got (want $want), output without '$text':"; cat "$d/err"; fi
}
expect gen 0 "quadrupeds: 40 problems" "$mcb" gen quadrupeds --robots 1 --steps 40 -o "$d/q.h5"
for n in 0 -3 1048577 99999999999; do
  expect "batch $n" 2 "--batch" "$mcb" run "$d/q.h5" --batch "$n" --solvers pgs -o "$d/bad.h5"
done
expect "batch formulation" 2 "--batch cannot go with --formulation" \
  "$mcb" run "$d/q.h5" --batch 4 --formulation lcp-st --solvers pgs -o "$d/bad.h5"
expect "batch shard" 2 "--shard" "$mcb" run "$d/q.h5" --batch 4 --shard 0/2 --solvers pgs -o "$d/bad.h5"
expect "batch problems" 2 "--problems" \
  "$mcb" run "$d/q.h5" --batch 4 --problems 'x*' --solvers pgs -o "$d/bad.h5"
[ ! -e "$d/bad.h5" ] || { fail=$((fail+1)); echo "FAIL: a refused batch wrote results"; }

expect "batch run" 0 "throughput (problems solved to the tolerance" \
  "$mcb" run "$d/q.h5" --batch 100 --solvers pgs,ccp-jacobi --threads 2 --check-every 3 \
  --timing observed -o "$d/r.h5"
grep -qE "^  pgs-batch +batch +100 " "$d/err" || { fail=$((fail+1)); echo "FAIL: no pgs-batch row"; }
# 100 problems (40 steps cycled: step0000#3 is the third copy), each solver twice
for s in pgs pgs-batch ccp-jacobi ccp-jacobi-batch; do
  c=$(awk -F, -v s="$s" 'NR > 1 && $3 == s' "$d/r.csv" | wc -l)
  [ "$c" = 100 ] || { fail=$((fail+1)); echo "FAIL: $c runs of $s, want 100"; }
done
grep -q "q-x100,quadrupeds1-step0019#3," "$d/r.csv" || { fail=$((fail+1)); echo "FAIL: no third copy"; }
# the batch's statuses, iterations and natmap are the one-by-one runs'
for s in pgs ccp-jacobi; do
  a=$(awk -F, -v s="$s" 'NR > 1 && $3 == s {print $2, $5, $6, $18}' "$d/r.csv" | sort)
  b=$(awk -F, -v s="$s-batch" 'NR > 1 && $3 == s {print $2, $5, $6, $18}' "$d/r.csv" | sort)
  [ -n "$a" ] && [ "$a" = "$b" ] || { fail=$((fail+1)); echo "FAIL: $s batch differs from one by one"; diff <(echo "$a") <(echo "$b") | head -5; }
done
echo "batch cli: $pass passed, $fail failed"
[ "$fail" = 0 ]

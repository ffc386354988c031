#!/usr/bin/env bash
# test_gpu_check.sh MCBENCH: scripts/gpu-check.sh's checks and tables, run
# here with a stand-in for a GPU (tests/gpu_check_fake.sh: ccp-jacobi
# answering for ccp-jacobi-gpu, pj for pj-gpu) on small problems: agreeing
# runs pass (exit 0, every table printed), a disagreeing "GPU" is caught
# (exit 1, MISMATCH), pj-gpu's alone too.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export MCB_REAL=$1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail=0
export WALLS=20 WALL_STEPS=2 STACK="--nx 3 --ny 3 --nz 2 --steps 2" \
  QUADRUPEDS="--robots 2 --steps 30" PROBE_STACK="--nx 3 --ny 3 --nz 3 --steps 1"
REPRODUCE=1 REPRODUCE_ARGS=--quick \
  bash "$here/../scripts/gpu-check.sh" "$here/gpu_check_fake.sh" "$d/ok" >"$d/ok.out" 2>&1
rc=$?
[ $rc = 0 ] || { fail=1; echo "FAIL agreeing runs: exit $rc"; cat "$d/ok.out"; }
for want in "agreement: every problem the same (ccp-jacobi-gpu)" \
    "agreement: every problem the same (pj-gpu)" "| 20 |" "quadrupeds ccp-jacobi-gpu:" \
    "quadrupeds pj-gpu:" \
    "sweep / bound = 1.07" "all checks agree" \
    "Machine: CPU" "GPU stand-in: ccp-jacobi" "| wall-1000 | GPU (ms per step) | 60 ms |" \
    "x, not published) | not compared |"; do
  grep -qF "$want" "$d/ok.out" || { fail=1; echo "FAIL agreeing runs: no '$want'"; }
done
MCB_FAKE_SKEW=1 bash "$here/../scripts/gpu-check.sh" "$here/gpu_check_fake.sh" "$d/ok" \
  >"$d/bad.out" 2>&1
rc=$?
[ $rc = 1 ] || { fail=1; echo "FAIL disagreeing runs: exit $rc, want 1"; }
grep -q "agreement: MISMATCH" "$d/bad.out" || { fail=1; echo "FAIL disagreeing runs: no MISMATCH"; cat "$d/bad.out"; }
MCB_FAKE_SKEW=pj bash "$here/../scripts/gpu-check.sh" "$here/gpu_check_fake.sh" "$d/ok" \
  >"$d/badpj.out" 2>&1
rc=$?
[ $rc = 1 ] || { fail=1; echo "FAIL disagreeing pj-gpu: exit $rc, want 1"; }
grep -q "agreement: MISMATCH (pj-gpu" "$d/badpj.out" ||
  { fail=1; echo "FAIL disagreeing pj-gpu: no MISMATCH"; cat "$d/badpj.out"; }
grep -q "agreement: every problem the same (ccp-jacobi-gpu)" "$d/badpj.out" ||
  { fail=1; echo "FAIL disagreeing pj-gpu: ccp-jacobi-gpu should still agree"; }
[ $fail = 0 ] && echo "test_gpu_check: passed"
exit $fail

#!/usr/bin/env bash
# test_corrupt.sh: damaged files through every command that reads them.
#   test_corrupt.sh MCBENCH MUTATE SHARED_DIR
# Byte-mutated copies (tests/mutate.c, fixed seeds) of three valid files:
#   2000 of a problem file  -> mcbench validate (every 20th also info, and run)
#    300 of a results file  -> mcbench report
#    300 of an FCLIB file   -> mcbench import fclib  (the shared CubeH8 when
#                              present, else a problem file: still a test of
#                              the importer's refusal)
# Every command must end with exit 0 (the damage hit data that stays valid)
# or 2 (bad input, with a message naming the file), within its time limit;
# a crash (exit >= 128), a hang (timeout, 124), an exit 1 (internal
# failure) or a message not naming the file fails. Under the sanitizer
# build, libhdf5's and libfclib's own faults on damaged files show up as
# reports from the isolated child that reads the file first (the command
# still ends with exit 2): a report is accepted only when its faulting frame
# lies in those libraries (tests/sanitizer_verdict.awk); any report in
# mcbench's code fails.
set -u
mcb=$1
mutate=$2
verdict_awk="$(cd "$(dirname "$0")" && pwd)/sanitizer_verdict.awk"
shared=${3:-}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
# a hang inside the isolated reader is cut at 10 s; the outer timeout is the
# backstop for a hang outside it
export MCB_READ_TIME_LIMIT_S=10
pass=0 fail=0 lib=0
declare -A seen
check() { # file command...
  local f=$1; shift
  local rc=0
  timeout 60 "$mcb" "$@" >"$d/cmd.out" 2>"$d/cmd.err" </dev/null || rc=$?
  local why=""
  if [ "$rc" = 124 ]; then why="hang (timeout)"
  elif [ "$rc" -ge 128 ]; then why="crash (signal $((rc - 128)))"
  elif [ "$rc" != 0 ] && [ "$rc" != 2 ]; then why="exit $rc"
  elif awk -f "$verdict_awk" "$d/cmd.err" | grep -q "^mcbench:"; then
    why="sanitizer report in mcbench: $(awk -f "$verdict_awk" "$d/cmd.err" | grep "^mcbench:" | head -1)"
  elif [ "$rc" = 2 ] && ! grep -qF "$(basename "$f")" "$d/cmd.err"; then why="message does not name the file"
  fi
  if [ -z "$why" ]; then
    pass=$((pass + 1))
    seen["$1:$rc"]=$(( ${seen["$1:$rc"]:-0} + 1 ))
    if awk -f "$verdict_awk" "$d/cmd.err" | grep -q "^library:"; then
      lib=$((lib + 1))
      awk -f "$verdict_awk" "$d/cmd.err" | sed 's/^/    contained: /' | head -1
    fi
  else
    fail=$((fail + 1))
    echo "FAIL mcbench $* -> $why"
    head -20 "$d/cmd.err"
    cp "$f" "${TMPDIR:-/tmp}/mcb_corrupt_failure_$(basename "$f")" 2>/dev/null
  fi
}

# seeds
"$mcb" gen stack --nx 2 --ny 2 --nz 1 --steps 2 -o "$d/problem.h5" 2>/dev/null || { echo "cannot make the seed problem"; exit 1; }
"$mcb" run "$d/problem.h5" -o "$d/res/results.h5" --solvers pgs,pj --iters 30 --save-solutions \
  2>/dev/null || { echo "cannot make the seed results"; exit 1; }
fclib_seed="$shared/fclib/CubeH8.hdf5"
[ -r "$fclib_seed" ] || fclib_seed="$d/problem.h5"
mkdir -p "$d/p" "$d/r" "$d/f"
"$mutate" "$d/problem.h5" "$d/p" 2000 20261122 p &&
  "$mutate" "$d/res/results.h5" "$d/r" 300 7 r &&
  "$mutate" "$fclib_seed" "$d/f" 300 11 f || { echo "mutate failed"; exit 1; }

k=0
for f in "$d"/p/*.h5; do
  check "$f" validate "$f"
  if [ $((k % 20)) = 0 ]; then
    check "$f" info "$f"
    check "$f" run "$f" -o "$d/out/r.h5" --solvers pgs --iters 20 --time-limit 5
  fi
  k=$((k + 1))
done
for f in "$d"/r/*.h5; do check "$f" report "$f" -o "$d/rep"; done
for f in "$d"/f/*.h5; do check "$f" import fclib "$f" -o "$d/imp.h5"; done
# nothing half-written may be left beside the outputs
left=$(find "$d/out" "$d/rep" "$d" -maxdepth 1 -name "*.partial*" -o -maxdepth 1 -name "*.tmp*" 2>/dev/null | wc -l)
[ "$left" = 0 ] || { fail=$((fail + 1)); echo "FAIL temporary files left behind: $left"; }
for key in "${!seen[@]}"; do echo "  $key: ${seen[$key]}"; done | sort
echo "  sanitizer reports from libhdf5/libfclib in the isolated reader, contained: $lib"
echo "corrupt files: $pass passed, $fail failed"
[ "$fail" = 0 ]

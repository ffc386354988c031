#!/usr/bin/env bash
# Fuzzes mcbench's file readers (tests/fuzz/fuzz_readers.c) and judges what
# the fuzzer finds.
#   scripts/fuzz.sh BUILD_DIR RUNS [libFuzzer options...]
# BUILD_DIR is a build configured with -DCMAKE_C_COMPILER=clang -DMCB_FUZZ=ON
# (./test.sh makes build-fuzz; docs/robustness.md has the long run). The seed
# corpus is written fresh by fuzz_seeds and the run starts from it with a
# fixed seed (-seed=1 unless given). The target reads in process, so it also
# meets the crashes of libhdf5 1.10.8 on damaged object headers, which no
# check before a read can avoid and which the tool contains by reading
# untrusted files in an isolated child first. The fuzzer therefore runs in
# fork mode and keeps going after a crash; then every crash, timeout and
# out-of-memory input it saved is judged:
#   1. replayed in the fuzzing target: the faulting frame (the first one
#      outside libc and the sanitizer runtime; for a live heap over the
#      target's limit, MCB_FUZZ_HEAP_LIMIT_MB, the allocation that crossed
#      it) must lie in libhdf5 or libfclib; a fault in mcbench's own code,
#      any UBSan report, or an out-of-memory report that names no
#      allocation fails (tests/sanitizer_verdict.awk);
#   2. replayed through the real command (validate, or import fclib) of the
#      same build: it must end with exit 0 or 2 within 120 s, never a crash.
# Exit 0 when every finding passes both, 1 otherwise. RUNS = 0 judges the
# findings of an earlier run without fuzzing (those in MCB_FUZZ_ARTIFACTS when
# set, e.g. tests/data/fuzz-findings, else BUILD_DIR/fuzz-artifacts; with
# MCB_FUZZ_EXPECT_LIBRARY=1 each must then be judged a library fault, the
# regression test of the judging); MCB_FUZZ_TRIAGE_BUILD names
# another fuzzing build to replay them in (an ASan build for precise reports
# on the findings of a faster UBSan-only build).
set -euo pipefail
build=$(cd "$1" && pwd)
runs=$2
shift 2
triage=$(cd "${MCB_FUZZ_TRIAGE_BUILD:-$build}" && pwd)
verdict_awk="$(cd "$(dirname "$0")/.." && pwd)/tests/sanitizer_verdict.awk"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds"
"$build/tests/fuzz_seeds" "$work/seeds"
corpus="$build/fuzz-corpus"
art="$build/fuzz-artifacts"
if [ "$runs" = 0 ] && [ -n "${MCB_FUZZ_ARTIFACTS:-}" ]; then art=$(cd "$MCB_FUZZ_ARTIFACTS" && pwd); fi
if [ "$runs" != 0 ]; then
  rm -rf "$corpus" "$art"
  mkdir -p "$corpus" "$art"
fi
# libfclib's exit() is intercepted and its allocations are left behind on
# that path: leak checking is the sanitizer test run's job, not this one's.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allocator_may_return_null=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export MCB_FUZZ_TMPDIR="$work"
status=0
touch "$work/fuzz.log"
# Watchdog: a fork-mode job lives about a minute; one that has run for over
# 150 s is stuck (libFuzzer's memory-limit handler can deadlock after libhdf5
# allocated gigabytes) and is killed, which the fuzzer records and survives.
(
  while sleep 20; do
    ps -eo pid,etimes,args | awk -v bin="$build/tests/fuzz_readers" \
      'index($0, bin) && /-max_total_time/ && !/awk/ && $2 > 150 { print $1 }' | xargs -r kill -9
  done
) </dev/null >/dev/null 2>&1 &
watchdog=$!
trap 'pkill -P $watchdog 2>/dev/null || true; kill $watchdog 2>/dev/null || true; rm -rf "$work"' EXIT
[ "$runs" = 0 ] || "$build/tests/fuzz_readers" -seed=1 -runs="$runs" -max_len=262144 -timeout=20 \
  -rss_limit_mb=4096 -close_fd_mask=3 -print_final_stats=1 -fork=1 -ignore_crashes=1 \
  -ignore_timeouts=1 -ignore_ooms=1 -artifact_prefix="$art/" "$@" "$corpus" "$work/seeds" \
  2>&1 | tee "$work/fuzz.log" | grep -E "^#[0-9]+: cov|INFO: (fuzzed|exiting)|stat::" || true
execs=$(grep -Eo "^#[0-9]+" "$work/fuzz.log" | tail -1 | tr -d '#' || true)
execs=${execs:-0}
findings=0 library=0 ours=0 unattr=0 unrepro=0 replay_bad=0
for f in "$art"/*; do
  [ -e "$f" ] || continue
  findings=$((findings + 1))
  name=$(basename "$f")
  # 1. where did it fault?
  ASAN_OPTIONS=detect_leaks=0 timeout 120 "$triage/tests/fuzz_readers" -timeout=20 \
    -rss_limit_mb=4096 -malloc_limit_mb=4096 "$f" >"$work/replay" 2>&1 || true
  v=$(awk -f "$verdict_awk" "$work/replay" | head -1)
  case "$v" in
    library:*) verdict=library ;;
    mcbench:*) verdict="ours (${v#mcbench: })" ;;
    unattributed:*) verdict="unattributed (${v#unattributed: })" ;;
    *) verdict="not reproduced" ;;
  esac
  # 2. the real command on the same bytes
  tail -c +2 "$f" >"$work/file.h5"
  sel=$(head -c 1 "$f" | od -An -tu1 | tr -d ' ')
  if [ $((${sel:-0} % 2)) -eq 0 ]; then cmd=(validate "$work/file.h5")
  else cmd=(import fclib "$work/file.h5" -o "$work/out.h5"); fi
  rc=0
  MCB_READ_TIME_LIMIT_S=60 timeout 120 "$triage/mcbench" "${cmd[@]}" >/dev/null 2>"$work/cli.err" || rc=$?
  case "$verdict" in
    library) library=$((library + 1)) ;;
    "not reproduced") unrepro=$((unrepro + 1)) ;;
    unattributed*) unattr=$((unattr + 1)); status=1
      echo "FINDING NOT ATTRIBUTED: $name: $verdict (replay it with a lower MCB_FUZZ_HEAP_LIMIT_MB)" ;;
    *) ours=$((ours + 1)); status=1; echo "FINDING IN MCBENCH: $name: $verdict" ;;
  esac
  if [ "${MCB_FUZZ_EXPECT_LIBRARY:-0}" = 1 ] && [ "$verdict" != library ]; then
    status=1
    echo "EXPECTED A LIBRARY FAULT: $name: $verdict"
  fi
  if [ "$rc" != 0 ] && [ "$rc" != 2 ]; then
    replay_bad=$((replay_bad + 1))
    status=1
    echo "COMMAND FAILED: mcbench ${cmd[0]} on $name exited $rc"
    head -5 "$work/cli.err"
  elif awk -f "$verdict_awk" "$work/cli.err" | grep -q "^mcbench:"; then
    replay_bad=$((replay_bad + 1))
    status=1
    echo "SANITIZER REPORT: mcbench ${cmd[0]} on $name"
    head -20 "$work/cli.err"
  fi
  top=${v#*: }
  kind=$(grep -Eo "ERROR: (AddressSanitizer|UndefinedBehaviorSanitizer|libFuzzer|fuzz target): [A-Za-z-]+( is out of memory| signal| heap of [0-9]+ MB)?" "$work/replay" | head -1 | sed 's/ERROR: //' || true)
  echo "finding $name: ${verdict%% (*}; ${kind:-?} ${top:-?}; mcbench ${cmd[0]}: exit $rc"
done
echo "fuzz: $execs executions, $findings findings ($library in libhdf5/libfclib, $ours in mcbench, $unattr not attributed, $unrepro not reproduced), $replay_bad commands that did not end cleanly on them"
exit $status

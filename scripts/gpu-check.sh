#!/usr/bin/env bash
# gpu-check.sh MCBENCH [DIR]: the GPU solvers checked and timed on a GPU
# host (docs/gpu.md; issue 27). MCBENCH is a binary built with CUDA (on the
# Debian machine: scripts/gpu-pack.sh, then on the GPU host
#   mkdir -p /tmp/m && tar -C /tmp/m -xJf mcb-gpu.tar.xz &&
#   LD_LIBRARY_PATH=/tmp/m/lib bash /tmp/m/gpu-check.sh /tmp/m/mcbench).
# Where no GPU is present (nvidia-smi lists none, or mcbench sees no CUDA
# device) it prints "gpu-check: skipped: no GPU (...)" and exits 0.
# Otherwise, writing every problem, campaign and log under DIR (default
# ./gpu-check-DATE), it
#   1. generates the problems there: a sphere stack, the walls of
#      Tasora-Negrut's Table 1 (WALLS, default "1000 2000 8000" bricks;
#      WALL_STEPS steps, default 2), the quadrupeds (27 robots; STACK,
#      QUADRUPEDS and PROBE_STACK replace their gen options);
#   2. runs ccp-jacobi and ccp-jacobi-gpu (--law ccp), then pj with
#      matrix_free=1 and pj-gpu (--law ncp), on each with the same budget
#      (--iters 500 --tol 1e-6 --check-every 1: every iterate
#      judged, so the stop does not depend on timing) and checks, problem by problem,
#      the same status, the same iteration count and natural-map residuals
#      within 1e-8 relative (round-off; the device is built without fused
#      multiply-adds, so they are usually equal);
#   3. prints Table 1 with a GPU column: ms per step (setup + 100
#      iterations, --tol 0, repeat 3) of ccp-jacobi on 1 thread, on all
#      cores, and ccp-jacobi-gpu, with the ratios;
#   4. prints the per-iteration time of the smallest problems (launch
#      latency) and the bandwidth probe: one sweep on a stack replicated to
#      >= 1M contacts against the device's copy bandwidth (mcbench gpu
#      --probe), the sweep's time over its memory-traffic bound.
#   5. with REPRODUCE=1: `mcbench reproduce tasora-table1` (its spec beside
#      this script, else in ../experiments; REPRODUCE_ARGS adds options,
#      e.g. --quick), the page with the GPU column, under DIR/reproduce.
# Exit status: 0 when every check agrees (or skipped), 1 when one does
# not, 2 on bad arguments. GPU_CHECK_DETECT_ONLY=1 stops after the
# detection (the ctest of this script uses it).
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,/^set /{/^#/p}' "$0" >&2; exit 2; }
mcb=$1
dir=${2:-gpu-check-$(date -u +%Y%m%dT%H%M%SZ)}
[ -x "$mcb" ] || { echo "gpu-check: $mcb is not an executable mcbench" >&2; exit 2; }

# --- 1. is there a GPU, and does this mcbench see it?
smi=none
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  smi=$(nvidia-smi -L | head -1)
fi
dev=$("$mcb" gpu 2>&1 | sed -n 's/^device: //p' | head -1) || true
dev=${dev:-none (mcbench gpu said nothing)}
case "$dev" in
  none*)
    if [ "$smi" = none ]; then
      echo "gpu-check: skipped: no GPU (nvidia-smi: none; mcbench: $dev)"
      exit 0
    fi
    echo "gpu-check: nvidia-smi lists $smi but mcbench sees no CUDA device: $dev" >&2
    exit 1 ;;
esac
echo "gpu-check: GPU found: $dev (nvidia-smi: $smi)"
[ "${GPU_CHECK_DETECT_ONLY:-0}" = 1 ] && exit 0

mkdir -p "$dir"
cores=$(nproc)
echo "gpu-check: writing under $dir; CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $cores cores"

gen() { # gen NAME FILE ARGS...: generate once
  local name=$1 file=$2
  shift 2
  [ -s "$dir/$file" ] && return 0
  "$mcb" gen "$name" "$@" -o "$dir/$file" >"$dir/gen-$file.log" 2>&1 || {
    echo "gpu-check: mcbench gen $name $* failed (see $dir/gen-$file.log)" >&2
    exit 1
  }
  tail -1 "$dir/gen-$file.log"
}
walls=${WALLS:-1000 2000 8000}
# (word-split on purpose: each holds gen options)
gen stack stack.h5 ${STACK:---nx 8 --ny 8 --nz 8 --steps 3}
for b in $walls; do gen wall "wall$b.h5" --bricks "$b" --steps "${WALL_STEPS:-2}"; done
gen quadrupeds quadrupeds.h5 ${QUADRUPEDS:---robots 27 --steps 60}
gen stack probe-stack.h5 ${PROBE_STACK:---nx 12 --ny 12 --nz 12 --steps 1}

run() { # run OUT FILE SOLVER THREADS ARGS...: one campaign, its CSV
  local out=$1 file=$2 solver=$3 threads=$4
  shift 4
  "$mcb" run "$dir/$file" --solvers "$solver" --threads "$threads" "$@" \
    -o "$dir/$out.h5" >"$dir/$out.log" 2>&1 || {
    echo "gpu-check: mcbench run $file --solvers $solver failed (see $dir/$out.log)" >&2
    exit 1
  }
}
# csv column by name: col FILE.csv NAME -> its index
col() { head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1; }

# --- 2. agreement, problem by problem
agree() { # agree CPU GPU LAW [CPU ARGS...]: the table of one pair
  local cpu=$1 gpu=$2 law=$3
  shift 3
  local budget="--iters 500 --tol 1e-6 --law $law --check-every 1" pbad=0
  echo
  echo "## $gpu against $cpu $* ($budget)"
  echo
  echo "| file | problems | same status | same iterations | natmap within 1e-8 | statuses (cpu) |"
  echo "|---|---|---|---|---|---|"
  for f in "${files[@]}"; do
    s=${f%.h5}
    # (budget word-split on purpose)
    run "agree-$s-$cpu" "$f" "$cpu" "$cores" $budget "$@"
    run "agree-$s-$gpu" "$f" "$gpu" 1 $budget
    c=$dir/agree-$s-$cpu.csv g=$dir/agree-$s-$gpu.csv
    line=$(awk -F, -v p="$(col "$c" problem)" -v st="$(col "$c" status)" \
        -v it="$(col "$c" iterations)" -v nm="$(col "$c" natmap)" -v f="$f" '
      FNR == 1 { next }
      NR == FNR { S[$p] = $st; I[$p] = $it; N[$p] = $nm; next }
      { n++; ss += (S[$p] == $st); si += (I[$p] == $it);
        d = $nm - N[$p]; d = d < 0 ? -d : d; ref = N[$p] < 0 ? -N[$p] : N[$p];
        sn += (d <= 1e-8 * ref || d == 0 || ($nm == "nan" && N[$p] == "nan"));
        cs[S[$p]]++ }
      END { list = ""; for (k in cs) list = list k " " cs[k] " ";
            printf "| %s | %d | %d | %d | %d | %s |\n", f, n, ss, si, sn, list;
            exit !(n > 0 && ss == n && si == n && sn == n) }' "$c" "$g") || pbad=1
    echo "$line"
  done
  if [ $pbad = 0 ]; then echo; echo "agreement: every problem the same ($gpu)"
  else bad=1; echo; echo "agreement: MISMATCH ($gpu; see the table; campaigns in $dir/agree-*.csv)"; fi
}
bad=0
files=(stack.h5 quadrupeds.h5)
for b in $walls; do files+=("wall$b.h5"); done
agree ccp-jacobi ccp-jacobi-gpu ccp
# pj-gpu runs pj's matrix-free iteration: compared with pj matrix_free=1
agree pj pj-gpu ncp --param pj.matrix_free=1

# --- 3. Table 1 with a GPU column
echo
echo "## Tasora-Negrut Table 1 with a GPU column: ms per step (setup + 100 iterations, --law ccp --tol 0, repeat 3)"
echo "device: $dev; CPU: $cores cores"
echo
echo "| bricks | ccp-jacobi 1 thread | ccp-jacobi $cores threads | ccp-jacobi-gpu | 1 thread / gpu | $cores threads / gpu | paper serial / GPU (s) |"
echo "|---|---|---|---|---|---|---|"
mean_ms() { # mean (setup + solve) per problem of a campaign, ms; and solve alone
  awk -F, -v a="$(col "$1" setup_s)" -v b="$(col "$1" solve_s)" -v w="$2" '
    FNR == 1 { next } { t += (w == "solve" ? 0 : $a) + $b; n++ } END { printf "%.4g", n ? 1e3 * t / n : -1 }' "$1"
}
for b in $walls; do
  t1=table1-wall$b
  run "$t1-t1" "wall$b.h5" ccp-jacobi 1 --iters 100 --tol 0 --law ccp --check-every never --repeat 3
  run "$t1-tN" "wall$b.h5" ccp-jacobi "$cores" --iters 100 --tol 0 --law ccp --check-every never --repeat 3
  run "$t1-gpu" "wall$b.h5" ccp-jacobi-gpu 1 --iters 100 --tol 0 --law ccp --check-every never --repeat 3
  a=$(mean_ms "$dir/$t1-t1.csv" all) c=$(mean_ms "$dir/$t1-tN.csv" all) g=$(mean_ms "$dir/$t1-gpu.csv" all)
  case $b in 1000) paper="0.43 / 0.06" ;; 2000) paper="0.87 / 0.10" ;; 8000) paper="3.19 / 0.42" ;; *) paper="-" ;; esac
  awk -v b="$b" -v a="$a" -v c="$c" -v g="$g" -v p="$paper" \
    'BEGIN { printf "| %s | %s | %s | %s | %.3g | %.3g | %s |\n", b, a, c, g, a / g, c / g, p }'
done
echo
echo "solve alone (ms per step, no setup): "
for b in $walls; do
  t1=table1-wall$b
  echo "  wall$b: 1 thread $(mean_ms "$dir/$t1-t1.csv" solve), $cores threads $(mean_ms "$dir/$t1-tN.csv" solve), gpu $(mean_ms "$dir/$t1-gpu.csv" solve)"
done

# --- 4. launch latency and the bandwidth probe
echo
echo "## time per iteration on the small problems (launch latency dominates; from the agreement runs)"
for s in quadrupeds stack; do
  for v in ccp-jacobi ccp-jacobi-gpu pj pj-gpu; do
    c=$dir/agree-$s-$v.csv
    awk -F, -v b="$(col "$c" solve_s)" -v i="$(col "$c" iterations)" -v s="$s" -v v="$v" '
      FNR == 1 { next } { t += $b; n += $i } END { printf "  %s %s: %.4g us per iteration\n", s, v, n ? 1e6 * t / n : -1 }' "$c"
  done
done
echo
echo "## one sweep against the memory-traffic bound (mcbench gpu --probe)"
nc=$("$mcb" info "$dir/probe-stack.h5" | awk '{ for (i = 1; i < NF; i++) if ($i == "contacts") print $(i + 1) }' | head -1)
k=$(( (1050000 + nc - 1) / nc ))
echo "probe: probe-stack.h5 ($nc contacts) replicated $k times"
"$mcb" gpu --probe "$dir/probe-stack.h5" --replicate "$k" --sweeps 200 | tee "$dir/probe.log" || bad=1
awk '/bound_ratio/ { for (i = 1; i < NF; i++) if ($i == "bound_ratio") r = $(i + 1);
       printf "sweep / bound = %s (goal <= 1.25)\n", r }' "$dir/probe.log"
if [ "${REPRODUCE:-0}" = 1 ]; then # 5. the reproduce spec's GPU column
  spec=$(dirname "$0")/tasora-table1.yaml
  [ -f "$spec" ] || spec=$(dirname "$0")/../experiments/tasora-table1.yaml
  echo
  # shellcheck disable=SC2086
  "$mcb" reproduce "$spec" -o "$dir/reproduce" ${REPRODUCE_ARGS:-} >"$dir/reproduce.log" 2>&1 &&
    sed -n '/^Machine:/p; /^| row |/,/^$/p' "$dir/reproduce/tasora-table1/tasora-table1.md" ||
    { bad=1; tail -5 "$dir/reproduce.log"; }
fi
echo
echo "gpu-check: done ($( [ $bad = 0 ] && echo all checks agree || echo SOME CHECKS FAILED )); logs in $dir"
exit $bad

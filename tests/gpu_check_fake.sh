#!/usr/bin/env bash
# gpu_check_fake.sh: a stand-in for a CUDA mcbench on a GPU host, for
# test_gpu_check.sh: `gpu` reports a device (and a probe line), and runs of
# ccp-jacobi-gpu are runs of ccp-jacobi, runs of pj-gpu runs of pj with
# matrix_free=1 (the real mcbench: $MCB_REAL); MCB_FAKE_SKEW=1 gives the
# "GPU" another omega, a disagreement the check must catch (SKEW=pj: only
# pj-gpu's).
if [ "$1" = gpu ]; then
  echo "device: FAKE (ccp-jacobi standing in)"
  case " $* " in *" --probe "*)
    echo "problem: fake"
    echo "sweep_ms 0.5 bytes 2e9 achieved_GBps 4000 copy_GBps 4280 bound_ratio 1.07" ;;
  esac
  exit 0
fi
# reproduce's GPU entries (needs: gpu) run ccp-jacobi in its stead
export MCB_REPRODUCE_GPU_STANDIN=ccp-jacobi
args=() gpu=0 pj=0
for a in "$@"; do
  [ "$a" = ccp-jacobi-gpu ] && a=ccp-jacobi && gpu=1
  [ "$a" = pj-gpu ] && a=pj && pj=1
  args+=("$a")
done
[ "$pj" = 1 ] && args+=(--param pj.matrix_free=1)
[ "$gpu" = 1 ] && [ "${MCB_FAKE_SKEW:-0}" = 1 ] && args+=(--param ccp-jacobi.omega=0.29)
[ "$pj" = 1 ] && [ "${MCB_FAKE_SKEW:-0}" = pj ] && args+=(--param pj.omega=0.5)
exec "$MCB_REAL" "${args[@]}"

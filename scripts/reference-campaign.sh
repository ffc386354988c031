#!/usr/bin/env bash
# reference-campaign.sh MCBENCH OUTDIR [SET]: a fixed, deterministic campaign
# (the SET's problems, default `quick`; pgs, nnewton and subadmm; one thread;
# every iteration checked; observed timing; no time limit) and its digest:
# OUTDIR/digest.txt, one line per run and value (status, iterations, checks,
# own residual and every final residual, printed to 17 digits), no timings,
# after '# ' lines naming the compiler, flags, CPU features and BLAS.
# Two binaries that give the same digest gave bit-identical results. The
# structure refactor (issue 23) was checked this way (docs/architecture.md);
# tests/test_reference.sh compares against tests/data/reference-digest.txt.
set -euo pipefail
mcb=$1; out=$2; set_name=${3:-quick}
command -v h5dump >/dev/null || { echo "reference-campaign: h5dump missing (Debian: hdf5-tools)" >&2; exit 2; }
mkdir -p "$out"
export OMP_NUM_THREADS=1
cpu_features=$(for f in avx2 fma; do grep -qw "$f" /proc/cpuinfo 2>/dev/null && printf '%s ' "$f"; done)
cpu_features=${cpu_features% }
case " $cpu_features " in *" avx2 "*" fma "*) export OPENBLAS_CORETYPE=Haswell ;; esac
blas=$(ldd "$mcb" 2>/dev/null | awk '$1 ~ /^libblas\.so/ {print $3}' | xargs -r readlink -f)
blas=${blas:-unknown}
"$mcb" gen --set "$set_name" -o "$out/problems" >"$out/gen.log" 2>&1
"$mcb" run "$out"/problems/*.h5 --solvers pgs,nnewton,subadmm --iters 300 --check-every 1 \
  --timing observed --time-limit 0 --describe never -o "$out/results.h5" >"$out/run.log" 2>&1
# the platform first: bit-identity holds for one compiler and flags, one
# BLAS and the same floating-point paths: with AVX2 and FMA, OpenBLAS is
# pinned to its Haswell kernels (Zen's are the same, so any AVX2+FMA CPU,
# Intel or AMD, gives the same bits) and glibc's libm takes its FMA paths
h5dump -A -g /context "$out/results.h5" | awk '
  /^ *ATTRIBUTE "/ { name = $2; gsub(/"/, "", name) }
  /\(0\):/ && (name == "compiler" || name == "cflags") {
    v = $0; sub(/^ *\(0\): */, "", v); printf "# %s %s\n", name, v }
' >"$out/digest.txt"
echo "# cpu_features $cpu_features" >>"$out/digest.txt"
echo "# blas $blas" >>"$out/digest.txt"
# every run's attributes, timings and the machine's state during the run
# (load_avg, cpu_mhz, cpu_max_mhz, others_share) left out, one "RUN NAME
# VALUE" line each
h5dump -A -m '%.17g' -g /runs "$out/results.h5" | awk '
  /^ *GROUP "[0-9]+"/ { run = $2; gsub(/"/, "", run) }
  /^ *ATTRIBUTE "/ { name = $2; gsub(/"/, "", name) }
  /^ *DATASET "/ { name = "" }
  /\(0\):/ && name != "" && name !~ /_s$/ && name != "config" &&
    name !~ /^(load_avg|cpu_mhz|cpu_max_mhz|others_share)$/ {
    v = $0; sub(/^ *\(0\): */, "", v); print run, name, v; name = "" }
'  >>"$out/digest.txt"
[ -s "$out/digest.txt" ] || { echo "reference-campaign: empty digest (see $out/run.log)" >&2; exit 1; }
echo "reference-campaign: $(grep -c ' status ' "$out/digest.txt") runs, digest in $out/digest.txt"

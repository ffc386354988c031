#!/usr/bin/env bash
# gpu-pack.sh [OUT.tar.xz] [BUILD_DIR]: builds mcbench with the GPU solvers
# on this (Debian) machine and packs it for a GPU host that has only the
# NVIDIA driver (../shared/notes/gpu.md, docs/gpu.md): the binary, the
# shared libraries it needs besides glibc's (HDF5, SuiteSparse, OpenBLAS,
# libgomp, ...; the CUDA runtime is linked statically) and
# scripts/gpu-check.sh, in one tarball (default mcb-gpu.tar.xz; the build
# goes to build-gpu/). On the GPU host:
#   mkdir -p /tmp/m && tar -C /tmp/m -xJf mcb-gpu.tar.xz &&
#   export LD_LIBRARY_PATH=/tmp/m/lib && bash /tmp/m/gpu-check.sh /tmp/m/mcbench
# Fails (exit 1) when the CUDA compiler is not found: a binary without the
# GPU solvers is no use there.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(realpath -m "${1:-mcb-gpu.tar.xz}")
build=$(realpath -m "${2:-$here/build-gpu}")
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMCB_WITH_SICONOS=OFF \
  -DMCB_WITH_MUJOCO=OFF -DMCB_WITH_MPI=OFF -DMCB_WITH_CUDA=ON >"$build.configure.log" 2>&1 || {
  echo "gpu-pack: configure failed (see $build.configure.log)" >&2; exit 1; }
grep -q '^MCB_HAVE_CUDA:INTERNAL=ON\|mcbench: CUDA found' "$build.configure.log" "$build/CMakeCache.txt" || {
  echo "gpu-pack: the CUDA compiler was not found (see $build.configure.log)" >&2; exit 1; }
cmake --build "$build" -j"${JOBS:-2}" --target mcbench
pack=$(mktemp -d)
trap 'rm -rf "$pack"' EXIT
mkdir -p "$pack/lib"
cp "$build/mcbench" "$here/scripts/gpu-check.sh" "$here/experiments/tasora-table1.yaml" "$pack/"
ldd "$build/mcbench" | awk '$3 ~ /^\// { print $3 }' \
  | grep -vE 'libc\.so|libm\.so|libpthread|libdl\.so|librt\.so|ld-linux' \
  | xargs -r -I{} cp -L {} "$pack/lib/"
tar -C "$pack" -cJf "$out" .
echo "gpu-pack: $out ($(du -h "$out" | cut -f1)): mcbench, gpu-check.sh, $(ls "$pack/lib" | wc -l) libraries"

#!/usr/bin/env bash
# Shared set-up for ./bench.sh and ./test.sh: installs the Debian packages
# mcbench needs (apt-get when root; otherwise names them and stops), then
# configures and builds into the directory given as $1 (default build/).
# Extra CMake arguments may follow the directory.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build}
shift || true

pkgs=(gcc cmake make pkg-config libhdf5-dev hdf5-tools libsuitesparse-dev libsiconos-numerics-dev
      libopenblas-dev check gnuplot-nox libfclib-dev libyaml-dev libopenmpi-dev openmpi-bin
      libmujoco-dev libmujoco-samples)
# the fuzzing build of ./test.sh: clang and its libFuzzer runtime
case " $* " in *" -DMCB_FUZZ=ON "*) pkgs+=(clang libclang-rt-14-dev) ;; esac
# optional: the SLURM test (tests/test_slurm.sh) starts its own private munged,
# slurmctld and slurmd from these, the report's browser test
# (tests/test_report_browser.sh) runs chromium; the Python package's tests
# (tests/python, docs/python.md) run with Debian's python3 and these modules;
# without them they are skipped
opt=(slurm-wlm munge chromium python3 python3-numpy python3-scipy python3-pandas python3-h5py)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=() optmissing=()
for p in "${pkgs[@]}"; do installed "$p" || missing+=("$p"); done
for p in "${opt[@]}"; do installed "$p" || optmissing+=("$p"); done
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
  missing+=(${optmissing[@]+"${optmissing[@]}"})
elif [ ${#optmissing[@]} -gt 0 ]; then
  echo "mcbench: optional packages ${optmissing[*]} missing: the tests needing them will be skipped" >&2
fi
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "mcbench: installing ${missing[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "mcbench: missing Debian packages: ${missing[*]}" >&2
    echo "  install them with: sudo apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j "$(nproc)" >/dev/null

#!/usr/bin/env bash
# Install, build (warnings are errors) and run the test suite, then the same
# suite under AddressSanitizer + UBSan (a sanitizer error exits 86 or 87, see
# tests/CMakeLists.txt), then a short fixed-seed run of the libFuzzer target
# over the file readers (clang; scripts/fuzz.sh). MCB_SKIP_ASAN=1 and
# MCB_SKIP_FUZZ=1 leave out the last two.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/scripts/setup.sh" "$here/build" -DMCB_WERROR=ON
(cd "$here/build" && ctest --output-on-failure -j 2)
if [ "${MCB_SKIP_ASAN:-0}" != 1 ]; then
  "$here/scripts/setup.sh" "$here/build-asan" -DMCB_WERROR=ON -DMCB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  (cd "$here/build-asan" && ctest --output-on-failure -j 2)
fi
if [ "${MCB_SKIP_FUZZ:-0}" != 1 ]; then
  "$here/scripts/setup.sh" "$here/build-fuzz" -DMCB_WERROR=ON -DMCB_FUZZ=ON \
    -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo
  (cd "$here/build-fuzz" && ctest --output-on-failure)
fi

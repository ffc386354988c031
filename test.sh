#!/usr/bin/env bash
# Install, build (warnings are errors) and run the test suite, then the same
# suite under AddressSanitizer + UBSan.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/scripts/setup.sh" "$here/build" -DMCB_WERROR=ON
(cd "$here/build" && ctest --output-on-failure -j 2)
if [ "${MCB_SKIP_ASAN:-0}" != 1 ]; then
  "$here/scripts/setup.sh" "$here/build-asan" -DMCB_WERROR=ON -DMCB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
  (cd "$here/build-asan" && ASAN_OPTIONS=detect_leaks=1 ctest --output-on-failure -j 2)
fi

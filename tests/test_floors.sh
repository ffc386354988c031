#!/usr/bin/env bash
# test_floors.sh SRC LIBMCBENCH.a LIBMCBENCH.so|none: the naming rules of
# docs/architecture.md that a compiler cannot check:
#  1. every `#include "..."` in a floor (lib, metrics, solvers, problems,
#     harness, reports) names a header by its floor path ("solvers/solver.h")
#     or is an outside library's header; none climbs with "../";
#  2. no header of ours shares its name with a system header (/usr/include);
#  3. every symbol the libraries export starts with mcb_ (nm; names with a
#     leading __ are the implementation's: the linker's, ASan's __odr_asan.*).
set -uo pipefail
src=$1; lib_a=$2; lib_so=$3
fail=0
floors='lib|metrics|solvers|problems|harness|reports'
# 1. include paths
while IFS=: read -r file line text; do
  name=$(sed -n 's/.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' <<<"$text")
  [ -n "$name" ] || continue
  case $name in
    ../*|*/../*) echo "FAIL include: $file:$line climbs out: \"$name\""; fail=1; continue ;;
  esac
  if [[ $name =~ ^($floors)/ ]]; then
    [ -f "$src/$name" ] || [ "$name" = harness/mcb_build.h ] ||
      { echo "FAIL include: $file:$line names a missing header \"$name\""; fail=1; }
  elif [ -e "$(dirname "$src/$file")/$name" ] || find "$src" -path "$src/build*" -prune -o \
         -name "$(basename "$name")" -print -quit | grep -q .; then
    echo "FAIL include: $file:$line includes our \"$name\" without its floor path"; fail=1
  fi
done < <(cd "$src" && grep -rn --include='*.c' --include='*.h' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' \
           lib metrics solvers problems harness reports)
# 2. no clash with a system header's name
for h in $(cd "$src" && find lib metrics solvers problems harness reports -name '*.h'); do
  b=$(basename "$h")
  if [ -e "/usr/include/$b" ] || ls /usr/include/*/"$b" >/dev/null 2>&1; then
    echo "FAIL name: $h shares its name with a system header ($(ls /usr/include/$b /usr/include/*/$b 2>/dev/null | head -1))"
    fail=1
  fi
done
# 3. exported symbols
exported() { nm -g --defined-only "$@" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRVWuiG]$/ {print $3}'; }
bad=$( { exported "$lib_a"; [ "$lib_so" = none ] || nm -D --defined-only "$lib_so" |
         awk 'NF == 3 && $2 ~ /^[TDBRVWiG]$/ {print $3}'; } | grep -v '^mcb_' |
       grep -v -E '^(_init|_fini|_edata|_end)$|^__' | sort -u)
if [ -n "$bad" ]; then
  echo "FAIL symbols: exported without the mcb_ prefix ($(wc -l <<<"$bad")):"; head -20 <<<"$bad"; fail=1
fi
n_a=$(exported "$lib_a" | sort -u | wc -l)
[ "$n_a" -gt 100 ] || { echo "FAIL symbols: only $n_a exported symbols found in $lib_a (nm failed?)"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: floor include paths, header names, $n_a exported symbols all mcb_"
exit $fail

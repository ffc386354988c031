#!/usr/bin/env bash
# test_install.sh: mcbench as an installed package and solver plugins, end to
# end (issue 14, section 1):
#   - cmake --install into a temporary prefix: the binary, libmcbench.a,
#     libmcbench.so with SONAME libmcbench.so.<MCB_ABI_VERSION>, the public
#     headers (each compiles on its own), mcbench.pc, the CMake package;
#   - examples/plugin built against the installed package with
#     find_package(mcbench) (the plugin and a program on the static
#     library) and with pkg-config (the plugin and the program on the shared
#     library);
#   - mcbench run --plugin on a small generated dual problem: the plugin
#     solves it (results CSV), beside a built-in solver;
#   - the refusals (exit 2, a message naming the file): another interface
#     version, no mcb_plugin symbol, a NULL definition, a definition without
#     solve, a name clashing with a built-in solver or another plugin, a file
#     that is not a shared library;
#   - a plugin that crashes in solve is recorded as crashed (isolated by
#     default) and the campaign goes on.
# usage: test_install.sh BUILD_DIR SOURCE_DIR C_COMPILER
# In a sanitizer build the installed package carries the sanitizer link
# flags (cmake/install.cmake), so the plugins and programs built here link
# the runtime they need; the refusal plugins use nothing of the library.
set -u
build=$1 src=$2 cc=${3:-cc}
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
# check NAME EXPECTED-EXIT COMMAND...: runs it, output in $d/out and $d/err
check() {
  local name=$1 want=$2; shift 2
  "$@" >"$d/out" 2>"$d/err"; local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$name: exit $got, want $want"; cat "$d/out" "$d/err"; fi
}
# expect_err NAME TEXT: the last command's stderr contains TEXT
expect_err() { if grep -qF -- "$2" "$d/err"; then ok; else bad "$1: message lacks '$2':"; cat "$d/err"; fi; }
# csv_status NAME CSV SOLVER STATUS: the CSV row of SOLVER has STATUS
csv_status() {
  local got
  got=$(awk -F, -v s="$3" 'NR > 1 && $3 == s {print $5}' "$2")
  if [ "$got" = "$4" ]; then ok; else bad "$1: $3 has status '$got' in $2, want $4"; cat "$2"; fi
}

# --- install ------------------------------------------------------------------
p=$d/prefix
check install 0 cmake --install "$build" --prefix "$p"
[ "$fail" = 0 ] || { echo "install failed: $pass passed, $fail failed"; exit 1; }
if [ -z "$(find "$p" -name 'libmcbench.so*' | head -1)" ]; then
  echo "test_install: skipped: mcbench was configured with MCB_SHARED=OFF (no libmcbench.so)"
  exit 77
fi
pc=$(find "$p" -name mcbench.pc | head -1)
[ -n "$pc" ] && ok || bad "no mcbench.pc installed"
libdir=$(dirname "$(dirname "$pc")")
abi=$(sed -n 's/^#define MCB_ABI_VERSION \([0-9]*\).*/\1/p' "$p/include/mcbench/solvers/solver.h")
[ -n "$abi" ] && ok || bad "no MCB_ABI_VERSION in the installed solver.h"
for f in bin/mcbench include/mcbench/solvers/solver.h include/mcbench/lib/mcb_problem.h \
         include/mcbench/metrics/metrics.h include/mcbench/lib/mcb_io.h include/mcbench/lib/mcb_vocab.h; do
  [ -f "$p/$f" ] && ok || bad "not installed: $f"
done
for f in libmcbench.a libmcbench.so "libmcbench.so.$abi" cmake/mcbench/mcbenchConfig.cmake \
         cmake/mcbench/mcbenchConfigVersion.cmake cmake/mcbench/mcbenchTargets.cmake; do
  [ -e "$libdir/$f" ] && ok || bad "not installed: $libdir/$f"
done
soname=$(objdump -p "$libdir/libmcbench.so" 2>/dev/null | awk '$1 == "SONAME" {print $2}')
[ "$soname" = "libmcbench.so.$abi" ] && ok || bad "SONAME '$soname', want libmcbench.so.$abi"
# the public headers are a closed set, installed by floor: each compiles
# alone, strictly, with the two include paths mcbench.pc gives
nh=0
for h in $(cd "$p/include/mcbench" && find . -name '*.h' | sed 's|^\./||' | sort); do
  nh=$((nh+1))
  printf '#include <mcbench/%s>\nint main(void) { return 0; }\n' "$h" >"$d/h.c"
  check "header $h alone" 0 "$cc" -std=c11 -Wall -Wextra -Werror -pedantic \
    -fsyntax-only -I"$p/include" -I"$p/include/mcbench" "$d/h.c"
done
[ "$nh" -eq 8 ] && ok || bad "$nh public headers installed, want 8 (solvers/batch.h the eighth)"
export PKG_CONFIG_PATH=$libdir/pkgconfig
check "pkg-config --modversion" 0 pkg-config --modversion mcbench
check "pkg-config --static" 0 pkg-config --static --libs mcbench
grep -q cholmod "$d/out" && grep -q fclib "$d/out" && ok ||
  bad "pkg-config --static --libs lacks CHOLMOD or libfclib: $(cat "$d/out")"

# --- the example built with find_package(mcbench) ----------------------------
check "example: cmake configure" 0 cmake -S "$src/examples/plugin" -B "$d/ex" \
  -DCMAKE_PREFIX_PATH="$p" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="-Werror"
check "example: cmake build" 0 cmake --build "$d/ex"
plugin=$d/ex/libexample_pgs.so
# --- and with pkg-config (shared library, found through its rpath) -----------
check "example: pkg-config plugin" 0 "$cc" -std=c11 -Wall -Wextra -Werror -shared -fPIC \
  -o "$d/libexample_pgs_pc.so" "$src/examples/plugin/example_pgs.c" \
  $(pkg-config --cflags --libs mcbench) -Wl,-rpath,"$libdir"
check "example: pkg-config program" 0 "$cc" -std=c11 -Wall -Wextra -Werror -o "$d/solve_pc" \
  "$src/examples/plugin/solve.c" $(pkg-config --cflags --libs mcbench) -Wl,-rpath,"$libdir"

# --- a small dual problem: a generated stack, W = J A^-1 J^T through FCLIB ----
m=$p/bin/mcbench
check gen 0 "$m" gen stack --nx 2 --ny 2 --nz 2 --steps 3 -o "$d/stack.h5"
check export 0 "$m" export fclib "$d/stack.h5" --problem stack-2x2x2-step0002 --form local \
  -o "$d/loc.hdf5"
check import 0 "$m" import fclib "$d/loc.hdf5" -o "$d/dual.h5"

# the programs on the library: static (CMake) and shared (pkg-config)
check "solve (static library)" 0 "$d/ex/solve" "$d/dual.h5" pgs 1e-8
grep -q "loc: pgs solved" "$d/out" && ok || bad "solve (static library): $(cat "$d/out")"
check "solve (shared library)" 0 "$d/solve_pc" "$d/dual.h5" pgs 1e-8
[ "$(ldd "$d/solve_pc" | grep -c "libmcbench.so.$abi")" = 1 ] && ok ||
  bad "solve_pc does not use libmcbench.so.$abi: $(ldd "$d/solve_pc")"

# --- the plugin, listed and run -------------------------------------------------
check "solvers --plugin" 0 "$m" solvers --plugin "$plugin"
grep -q "^example-pgs: " "$d/out" && grep -qF "plugin: $plugin" "$d/out" && ok ||
  bad "mcbench solvers --plugin does not list example-pgs"
check "run --plugin" 0 "$m" run "$d/dual.h5" --plugin "$plugin" --solvers example-pgs,pgs \
  --tol 1e-8 --iters 5000 -o "$d/r1.h5"
csv_status "run --plugin" "$d/r1.csv" example-pgs solved
csv_status "run --plugin" "$d/r1.csv" pgs solved
check "run --plugin (pkg-config build, --param, not isolated)" 0 "$m" run "$d/dual.h5" \
  --plugin "$d/libexample_pgs_pc.so" --solvers example-pgs --param example-pgs.omega=0.8 \
  --isolate never --tol 1e-8 -o "$d/r2.h5"
csv_status "run --plugin (pkg-config build)" "$d/r2.csv" example-pgs solved
check "plugin parameter range" 2 "$m" run "$d/dual.h5" --plugin "$plugin" \
  --solvers example-pgs --param example-pgs.omega=3 -o "$d/r3.h5"
expect_err "plugin parameter range" "must lie in (0, 2)"
check "plugin: primal problem skipped" 0 "$m" run "$d/stack.h5" --plugin "$plugin" \
  --solvers example-pgs --problems '*step0000' -o "$d/r4.h5"
csv_status "plugin: primal problem skipped" "$d/r4.csv" example-pgs skipped

# --- refusals: tiny plugins that use nothing of the library --------------------
cat >"$d/variant.c" <<'EOF'
#include <mcbench/solvers/solver.h>
#include <stddef.h>
static void dp(void *p) { (void)p; }
static mcb_rc su(const mcb_problem *P, const mcb_settings *s, const void *prm, void **w,
                 mcb_err *e) { (void)P; (void)s; (void)prm; (void)e; *w = NULL; return MCB_OK; }
__attribute__((unused)) static int so(void *w, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                                      mcb_info *info)
{
    (void)w; (void)s; (void)cb; (void)ctx; (void)info;
#ifdef CRASH
    int *volatile np = NULL;
    *np = 1; /* a null pointer written through */
#endif
    return MCB_ST_STALLED;
}
static void it(void *w, double *v, double *l) { (void)w; (void)v; (void)l; }
static void fr(void **w) { (void)w; }
__attribute__((used)) static const mcb_solver_def def = {
    .name = NAME, .description = "a test variant", .reference = "tests/test_install.sh",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL, .default_params = dp, .setup = su,
#ifndef NO_SOLVE
    .solve = so,
#endif
    .iterate = it, .free = fr};
#if defined(WRONG_VERSION)
__attribute__((visibility("default"))) const mcb_plugin_entry mcb_plugin = {
    MCB_SOLVER_INTERFACE_VERSION + 1, &def};
#elif defined(NULL_DEF)
__attribute__((visibility("default"))) const mcb_plugin_entry mcb_plugin = {
    MCB_SOLVER_INTERFACE_VERSION, NULL};
#elif !defined(NO_SYMBOL)
MCB_PLUGIN_SOLVER(def);
#endif
EOF
variant() { # NAME SOLVER-NAME DEFINES...
  local n=$1 s=$2; shift 2
  check "variant $n builds" 0 "$cc" -std=c11 -Wall -Wextra -Werror -shared -fPIC \
    -I"$p/include" -I"$p/include/mcbench" -DNAME="\"$s\"" "$@" -o "$d/lib$n.so" "$d/variant.c"
}
variant wrongver wrongver -DWRONG_VERSION
variant nosym nosym -DNO_SYMBOL
variant nulldef nulldef -DNULL_DEF
variant nosolve nosolve -DNO_SOLVE
variant clash pgs
variant crash crash -DCRASH
variant stall stall
v=$(sed -n 's/^#define MCB_SOLVER_INTERFACE_VERSION \([0-9]*\).*/\1/p' "$p/include/mcbench/solvers/solver.h")
check "refused: interface version" 2 "$m" run "$d/dual.h5" --plugin "$d/libwrongver.so" -o "$d/x.h5"
expect_err "refused: interface version" "plugin $d/libwrongver.so: built for solver interface version $((v+1)), this mcbench has version $v"
check "refused: no symbol" 2 "$m" run "$d/dual.h5" --plugin "$d/libnosym.so" -o "$d/x.h5"
expect_err "refused: no symbol" "plugin $d/libnosym.so: exports no symbol 'mcb_plugin'"
check "refused: NULL definition" 2 "$m" solvers --plugin "$d/libnulldef.so"
expect_err "refused: NULL definition" "plugin $d/libnulldef.so: the solver definition is NULL"
check "refused: no solve" 2 "$m" run "$d/dual.h5" --plugin "$d/libnosolve.so" -o "$d/x.h5"
expect_err "refused: no solve" "solver 'nosolve' has no solve function"
check "refused: built-in name" 2 "$m" run "$d/dual.h5" --plugin "$d/libclash.so" -o "$d/x.h5"
expect_err "refused: built-in name" "a solver named 'pgs' is already registered (built in)"
check "refused: two plugins, one name" 2 "$m" run "$d/dual.h5" --plugin "$plugin" \
  --plugin "$d/libexample_pgs_pc.so" -o "$d/x.h5"
expect_err "refused: two plugins, one name" "already registered (by another plugin)"
check "refused: not a library" 2 "$m" run "$d/dual.h5" --plugin "$d/variant.c" -o "$d/x.h5"
expect_err "refused: not a library" "plugin $d/variant.c: cannot load it as a shared library"
check "refused: missing file" 2 "$m" solvers --plugin "$d/none.so"
expect_err "refused: missing file" "plugin $d/none.so"
[ ! -e "$d/x.h5" ] && [ ! -e "$d/x.csv" ] && ok || bad "a refused run left results behind"

# --- two plugins in one campaign ------------------------------------------------
check "two plugins" 0 "$m" run "$d/dual.h5" --plugin "$plugin" --plugin "$d/libstall.so" \
  --tol 1e-8 -o "$d/r6.h5"
csv_status "two plugins" "$d/r6.csv" example-pgs solved
csv_status "two plugins" "$d/r6.csv" stall stalled
csv_status "two plugins: the built-in ones too" "$d/r6.csv" pgs solved

# --- a plugin that crashes: recorded as crashed, the campaign goes on -----------
check "crashing plugin" 0 "$m" run "$d/dual.h5" --plugin "$d/libcrash.so" --solvers crash,pgs \
  --tol 1e-8 -o "$d/r5.h5"
csv_status "crashing plugin" "$d/r5.csv" crash crashed
csv_status "crashing plugin: the next run" "$d/r5.csv" pgs solved

# --- the Python package (issue 29, cmake/python.cmake) ---------------------------
# Installed under PREFIX/lib/python3/dist-packages/mcbench, it loads the
# installed libmcbench.so through its _config.py (no LD_LIBRARY_PATH, no
# MCBENCH_LIB), also from a copy of the prefix elsewhere; it reads the
# installed problems, judges, and writes a file the installed mcbench reads.
# Skipped (counted as passed, with a line) without a Python that has
# Debian's numpy and scipy.
py=${MCB_PYTHON:-}
pkg=$p/lib/python3/dist-packages
[ -f "$pkg/mcbench/__init__.py" ] && [ -f "$pkg/mcbench/_config.py" ] && ok \
  || bad "not installed: $pkg/mcbench/__init__.py and _config.py"
if [ -n "$py" ] && "$py" -c 'import numpy, scipy, pandas' 2>/dev/null; then
  cp -a "$p" "$d/moved"
  for root in "$p" "$d/moved"; do
    check "python: import from $root" 0 env -u MCBENCH_LIB -u MCBENCH_BUILD -u LD_LIBRARY_PATH \
      PYTHONPATH="$root/lib/python3/dist-packages" PYTHONDONTWRITEBYTECODE=1 \
      ${MCB_PY_PRELOAD:+LD_PRELOAD="$MCB_PY_PRELOAD" ASAN_OPTIONS=detect_leaks=0} \
      "$py" -c '
import os, sys, mcbench
root = os.path.realpath(sys.argv[1])
assert os.path.realpath(mcbench._lib.path).startswith(root + "/"), mcbench._lib.path
assert os.path.realpath(mcbench.__file__).startswith(root + "/"), mcbench.__file__
ps = mcbench.load(sys.argv[2])
m = mcbench.judge(ps[0], None, ps[0].q * 0)
assert set(m) >= {"natmap", "fb", "zres"}, m
mcbench.save(sys.argv[3], ps)
print(mcbench._lib.path)' "$root" "$d/dual.h5" "$d/py.h5"
    check "python: the installed mcbench reads what Python saved" 0 "$m" describe "$d/py.h5"
  done
else
  echo "test_install: the Python package's import skipped: no Python with numpy, scipy, pandas (${py:-none})"
fi

echo "test_install: $pass passed, $fail failed"
[ "$fail" = 0 ]

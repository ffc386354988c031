#!/usr/bin/env bash
# test_compare.sh: `mcbench compare` and `mcbench describe` end to end on
# small campaigns of one generated stack (`mcbench run --solvers pgs,pj
# --check-every 1`, so iteration counts are exact and repeatable):
#   - a campaign compared with an identical copy of itself flags nothing,
#     nor does a rerun of it for status and iterations (time rule off);
#   - pgs.omega changed from 1 to 1.3 in NEW: every pgs row flags ITERS, no
#     pj row flags ITERS or STATUS (pj has no such parameter);
#   - an iteration budget too small for NEW: STATUS flags and the note that
#     the budgets differ;
#   - files with no problem or no solver in common are refused (exit 2),
#     naming what is only in one of them;
#   - -o DIR writes compare.md, compare.csv and the plot (its log axis
#     labelled %g); the CSV has one row per shared pair;
#   - the results hold the problems' descriptors (format 5) and `mcbench
#     describe` prints and writes them (-o CSV), `--describe never` leaves
#     them out.
set -u
mcb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
run() { # name command...: must exit 0, output in $d/out, $d/err
  local name=$1; shift
  if "$@" >"$d/out" 2>"$d/err"; then ok; else bad "$name: exit $?"; cat "$d/err"; fi
}
has() { # name pattern file
  if grep -qE -- "$2" "$3"; then ok; else bad "$1: no '$2' in $3"; head -20 "$3"; fi
}
hasnt() {
  if grep -qE -- "$2" "$3"; then bad "$1: '$2' in $3:"; grep -E -- "$2" "$3" | head -5; else ok; fi
}
cd "$d" || exit 1

run gen "$mcb" gen stack --nx 2 --ny 2 --nz 3 --steps 3 -o stack.h5
run gen2 "$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps 2 -o other.h5
common=(--iters 3000 --tol 1e-6 --check-every 1 --repeat 2 --isolate never)
run old "$mcb" run stack.h5 -o old.h5 --solvers pgs,pj "${common[@]}"
run new "$mcb" run stack.h5 -o new.h5 --solvers pgs,pj "${common[@]}" --param pgs.omega=1.3

# identical campaigns: nothing flagged
cp old.h5 same.h5
run same "$mcb" compare old.h5 same.h5
has same "^0 of 6 pairs flagged" "$d/out"
hasnt same "\| (STATUS|ITERS|TIME)" "$d/out"

# the same campaign run again: no status or iteration flag (exact counts
# under --check-every 1); times are machine noise here, so the time rule is
# switched off with a huge --time-tol
run again "$mcb" run stack.h5 -o again.h5 --solvers pgs,pj "${common[@]}"
run again-cmp "$mcb" compare old.h5 again.h5 --time-tol 1e9
has again "^0 of 6 pairs flagged" "$d/out"

# omega changed: pgs rows flag ITERS, pj rows never STATUS or ITERS
run omega "$mcb" compare old.h5 new.h5 -o cmp
n_pgs=$(grep -cE '^\| stack/[^|]* \| pgs \|.*ITERS' "$d/out")
[ "$n_pgs" = 3 ] && ok || { bad "omega: $n_pgs pgs rows flag ITERS, expected 3"; cat "$d/out"; }
hasnt omega '^\| stack/[^|]* \| pj \|.*(STATUS|ITERS)' "$d/out"
has omega "^[0-9]+ of 6 pairs flagged: 0 status, 3 iterations" "$d/out"
for f in compare.md compare.csv compare.gp compare.dat compare.png; do
  [ -s "cmp/$f" ] && ok || bad "omega: cmp/$f missing or empty"
done
rows=$(($(wc -l < cmp/compare.csv) - 1))
[ "$rows" = 6 ] && ok || bad "omega: compare.csv has $rows rows, expected 6"
has omega-csv "^set,problem,solver,status_old,status_new,iters_old,iters_new" cmp/compare.csv
# the ratio axis is logarithmic: tics as plain numbers (0.1, 1, 10), names as they are
has omega-gp "^set logscale y$" cmp/compare.gp
has omega-gp "^set format y '%g'$" cmp/compare.gp
has omega-gp "^set terminal pngcairo .* noenhanced " cmp/compare.gp

# a budget too small for NEW: status changes, the budgets' note
run tight "$mcb" run stack.h5 -o tight.h5 --solvers pgs,pj --iters 5 --tol 1e-6 --check-every 1 --isolate never
run status "$mcb" compare old.h5 tight.h5
has status '^\| stack/[^|]* \| pj \| solved \| max-iterations \|.*STATUS' "$d/out"
has status "budgets differ" "$d/out"
hasnt status "warm starts differ" "$d/out"

# the same budget from each solver's own previous step: the warm starts' note
run own "$mcb" run stack.h5 -o own.h5 --solvers pgs,pj "${common[@]}" --warm-start own
run own-cmp "$mcb" compare old.h5 own.h5 --time-tol 1e9
has own-cmp 'warm starts differ.*OLD `--warm-start none`, NEW `--warm-start own`' "$d/out"
if "$mcb" compare old.h5 tight.h5 --fail-on-flag >/dev/null 2>&1; then bad "fail-on-flag: exit 0"; else
  [ $? = 3 ] && ok || bad "fail-on-flag: exit not 3"; fi

# disjoint problems, disjoint solvers: refused with the names
run other "$mcb" run other.h5 -o other_res.h5 --solvers pgs --iters 100 --isolate never
"$mcb" compare old.h5 other_res.h5 >"$d/out" 2>"$d/err"
[ $? = 2 ] && ok || bad "disjoint problems: exit not 2"
has disjoint-p "no problem \(set/name\) in common" "$d/err"
has disjoint-p "only in old.h5: stack/stack-2x2x3-step0000" "$d/err"
has disjoint-p "only in other_res.h5: other/stack-2x2x2-step0000" "$d/err"
run pjonly "$mcb" run stack.h5 -o pj.h5 --solvers pj --iters 100 --isolate never
run pgsonly "$mcb" run stack.h5 -o pgs.h5 --solvers pgs --iters 100 --isolate never
"$mcb" compare pj.h5 pgs.h5 >"$d/out" 2>"$d/err"
[ $? = 2 ] && ok || bad "disjoint solvers: exit not 2"
has disjoint-s "no solver in common \(only in pj.h5: pj; only in pgs.h5: pgs\)" "$d/err"
"$mcb" compare old.h5 >/dev/null 2>&1
[ $? = 2 ] && ok || bad "one file: exit not 2"

# descriptors: in the results, in the report, from describe
if command -v h5ls >/dev/null; then
  has desc-h5 "^/descriptors/000002 " <(h5ls -r old.h5 2>&1)
  hasnt desc-h5 "^/descriptors/000003 " <(h5ls -r old.h5 2>&1)
fi
run never "$mcb" run stack.h5 -o never.h5 --solvers pgs --iters 100 --describe never --isolate never
if command -v h5ls >/dev/null; then hasnt desc-never "descriptors" <(h5ls -r never.h5 2>&1); fi
"$mcb" run stack.h5 -o x.h5 --solvers pgs --describe sometimes >/dev/null 2>&1
[ $? = 2 ] && ok || bad "--describe sometimes: exit not 2"
run report "$mcb" report old.h5 -o rep
[ -s rep/difficulty.cond.png ] && ok || bad "report: no difficulty.cond.png"
has report "difficulty.cond.png" rep/index.html
run describe "$mcb" describe stack.h5 other.h5 -o desc.csv
has describe "^stack.h5 +stack-2x2x3-step0000 +primal +72 +" "$d/out"
rows=$(($(wc -l < desc.csv) - 1))
[ "$rows" = 5 ] && ok || bad "describe: desc.csv has $rows rows, expected 5"
has describe-csv "^file,problem,form,n,m,contacts,subsystems,rows_per_dof,rank,rank_def" desc.csv
# gen stack stores the cond estimate with each problem (describe reads it);
# --recompute runs Lanczos again and finds the same value
has describe-csv ",stored,0,1,stored,,none$" desc.csv  # psd_defect: none for primal
run describe-recompute "$mcb" describe stack.h5 --recompute -o desc2.csv
has describe-recompute ",lanczos,[0-9]+,1,subsystems,,none$" desc2.csv
[ "$(grep '^stack.h5,' desc.csv | cut -d, -f15)" = "$(grep '^stack.h5,' desc2.csv | cut -d, -f15)" ] && ok ||
  bad "describe: the stored cond estimate differs from the recomputed one"
# ... and the rank (rank, rank_def, rank_tol): the QR finds the same
[ "$(grep '^stack.h5,' desc.csv | cut -d, -f9-11)" = "$(grep '^stack.h5,' desc2.csv | cut -d, -f9-11)" ] && ok ||
  bad "describe: the stored rank differs from the recomputed one"
if command -v h5dump >/dev/null; then
  has rank-stored '"stored"' <(h5dump -a /descriptors/000000/rank_from old.h5 2>&1)
fi
"$mcb" describe >/dev/null 2>&1
[ $? = 2 ] && ok || bad "describe without FILE: exit not 2"

echo "compare: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# test_report.sh: `mcbench report` end to end on small campaigns made with
# `mcbench gen stack` and `mcbench run --solvers pgs,pj`: the profile plots
# and the per-problem table exist and are complete, index.html names every
# file relative to the output directory (no path of the temporary directory)
# and every file it links to exists; set names needing escaping or mapping
# onto one file name; a single solver and a single set.
set -u
mcb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
pass=0 fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
run() { # name command...: must exit 0
  local name=$1; shift
  if "$@" >"$d/out" 2>"$d/err"; then ok; else bad "$name: exit $?"; cat "$d/err"; fi
}
# nonempty NAME DIR FILE...
nonempty() {
  local n=$1 dir=$2; shift 2
  for f in "$@"; do if [ -s "$dir/$f" ]; then ok; else bad "$n: $f missing or empty"; fi; done
}
profiles() { # the profile plots of base names $@
  for b in "$@"; do for k in pp-time pp-iter dp-time; do echo "${b}_$k.png ${b}_$k.svg"; done; done
}
# links NAME DIR: index.html names nothing under $d and every local link exists
links() {
  local n=$1 dir=$2
  if grep -qF "$d" "$dir/index.html" "$dir/plots.gp"; then
    bad "$n: absolute path in index.html or plots.gp:"; grep -nF "$d" "$dir/index.html" | cut -c1-200 | head -3
  else ok; fi
  local missing=0
  for u in $(grep -oE "(href|src)='[^']*'" "$dir/index.html" | sed -E "s/^[a-z]+='//; s/'$//"); do
    [ -s "$dir/$(printf '%b' "${u//%/\\x}")" ] || { missing=1; bad "$n: index.html links to missing $u"; }
  done
  [ $missing = 1 ] || ok
}

cd "$d" || exit 1
run gen-s "$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps 3 -o "$d/s.h5"
run gen-t "$mcb" gen stack --nx 2 --ny 3 --nz 2 --steps 4 -o "$d/t.h5"
run run "$mcb" run "$d/s.h5" "$d/t.h5" -o "$d/runs/r.h5" --solvers pgs,pj --iters 200 --repeat 2
run report "$mcb" report "$d/runs/r.h5" -o "$d/rep"
nonempty files "$d/rep" index.html problems.csv problems.md $(profiles s t all.sets)
links report "$d/rep"
grep -qF "<a href='../runs/r.h5'>" rep/index.html && ok || bad "results file not linked as ../runs/r.h5"

# problems.csv: a header naming set, problem, best and 3 columns per solver;
# one row per (set, problem) of the campaign, in the order of r.csv
want="set,problem,best,pgs_status,pgs_time_ms,pgs_ratio,pj_status,pj_time_ms,pj_ratio"
[ "$(head -1 rep/problems.csv)" = "$want" ] && ok || bad "problems.csv header: $(head -1 rep/problems.csv)"
diff <(tail -n +2 rep/problems.csv | cut -d, -f1,2) <(tail -n +2 runs/r.csv | cut -d, -f1,2 | uniq) \
  >/dev/null && ok || bad "problems.csv rows are not the campaign's (set, problem) pairs"
# per row: 9 fields; a solved solver has a time and a ratio >= 1, 1 for the
# best; any other status has neither; the best is blank only when no solver
# solved the problem (statuses agree over the 2 repetitions or say K/2 solved)
awk -F, 'NR > 1 {
  if (NF != 9) { print "row " NR ": " NF " fields"; bad++ }
  solved = 0
  for (s = 0; s < 2; s++) {
    st = $(4 + 3 * s); t = $(5 + 3 * s); r = $(6 + 3 * s)
    if (st == "solved" || st == "2/2 solved") { solved++; if (t == "" || t + 0 <= 0 || r + 0 < 1) bad++ }
    else if (t != "" || r != "") { print "row " NR ": unsolved with a time or ratio"; bad++ }
  }
  if ((solved > 0) != ($3 != "")) { print "row " NR ": best " $3 " with " solved " solved"; bad++ }
  if ($3 == "pgs" && $6 != 1 || $3 == "pj" && $9 != 1) { print "row " NR ": best ratio not 1"; bad++ }
} END { exit bad > 0 }' rep/problems.csv && ok || bad "problems.csv cells"
[ "$(grep -c '^| [st] | stack-' rep/problems.md)" = 7 ] && ok || bad "problems.md rows"
# the HTML states how many problems of each set no solver solved
for set in s t; do
  k=$(awk -F, -v s=$set 'NR > 1 && $1 == s && $3 == "" { k++ } END { print k + 0 }' rep/problems.csv)
  if [ "$k" = 0 ]; then txt="each solved by at least one solver"; else txt="<b>$k solved by no solver</b>"; fi
  sed -n "/<h2>$set<\/h2>/,/<h2>/p" rep/index.html | grep -qF "$txt" && ok || bad "set $set: '$txt' not stated"
done
grep -q "<h2>All sets</h2>" rep/index.html && ok || bad "no all-sets section"

# set names to escape ("it's, a&b") and one that maps onto the same file name
cp s.h5 "it's, a&b.h5"
cp s.h5 it_s__a_b.h5
run report-names-run "$mcb" run "it's, a&b.h5" it_s__a_b.h5 -o names/r.h5 --solvers pgs --iters 50
run report-names "$mcb" report names/r.h5 -o names/rep
nonempty names names/rep problems.csv $(profiles it_s__a_b it_s__a_b_2 all.sets)
links names names/rep
grep -qF "<h2>it&#39;s, a&amp;b</h2>" names/rep/index.html && ok || bad "set name not escaped in HTML"
grep -qF "'it''s, a&b: performance profile" names/rep/plots.gp && ok || bad "set name not quoted for gnuplot"
[ "$(grep -c '^"it'"'"'s, a&b",stack-' names/rep/problems.csv)" = 3 ] && ok || bad "set name not quoted in CSV"
[ "$(head -1 names/rep/problems.csv)" = "set,problem,best,pgs_status,pgs_time_ms,pgs_ratio" ] && ok ||
  bad "single-solver header: $(head -1 names/rep/problems.csv)"

# one set: no all-sets section; the report beside the results names them bare
run one-set-run "$mcb" run s.h5 -o one/r.h5 --solvers pgs,pj --iters 100
run one-set "$mcb" report one/r.h5 -o one
nonempty one-set one $(profiles s)
[ ! -e one/all.sets.dat ] && ! grep -q "All sets" one/index.html && ok || bad "one set has an all-sets section"
grep -qF "<a href='r.h5'>" one/index.html && grep -qF "<a href='r.csv'>" one/index.html && ok ||
  bad "results beside the report not named r.h5 and r.csv"
links one-set one

cd - >/dev/null || exit 1
echo "report: $pass passed, $fail failed"
[ "$fail" = 0 ]

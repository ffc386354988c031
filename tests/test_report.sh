#!/usr/bin/env bash
# test_report.sh: `mcbench report` end to end on small campaigns made with
# `mcbench gen stack` and `mcbench run --solvers pgs,pj`: the summary page,
# one page per set and per problem, the profile plots and the per-problem
# table exist and are complete; every page names files relative to the
# output directory (no path of the temporary directory) and every file it
# links to exists; the summary links every set page and each set page every
# problem page; the ranking on the summary follows problems.csv (solved
# count, then median time over the problems solved); the convergence data's
# "runs still going" count is, at every iteration, the number of first
# repetitions whose run lasted that long (r.csv); set names needing escaping
# or mapping onto one file name; a single solver and a single set; a solver
# that accepts some problems only (ranked over those); readable log axes in
# plots.gp; a campaign solved at iteration 0 (nothing on the log axes).
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
# links NAME DIR: no page names anything under $d, and every local link
# and image of every page exists
links() {
  local n=$1 dir=$2 missing=0
  if grep -qF "$d" "$dir"/*.html "$dir/plots.gp"; then
    bad "$n: absolute path in a page or plots.gp:"; grep -nF "$d" "$dir"/*.html | cut -c1-200 | head -3
  else ok; fi
  for page in "$dir"/*.html; do
    for u in $(grep -oE "(href|src)='[^']*'" "$page" | sed -E "s/^[a-z]+='//; s/'$//"); do
      [ -s "$dir/$(printf '%b' "${u//%/\\x}")" ] || { missing=1; bad "$n: $(basename "$page") links to missing $u"; }
    done
  done
  [ $missing = 1 ] || ok
}
# pages NAME DIR BASE...: each set's page is linked from index.html, and each
# problem of problems.csv has a page linked from its set's page
pages() {
  local n=$1 dir=$2; shift 2
  for b in "$@"; do
    grep -qF "<a href='${b}_set.html'>" "$dir/index.html" && ok || bad "$n: index.html does not link ${b}_set.html"
    local want got
    want=$(ls "$dir" | grep -cE "^${b}_p[0-9]+\.html$")
    got=$(grep -oE "<a href='${b}_p[0-9]+\.html'>" "$dir/${b}_set.html" | sort -u | wc -l)
    [ "$want" -gt 0 ] && [ "$want" = "$got" ] && ok || bad "$n: $b: $want problem pages, $got linked"
    got=$(grep -oE "<a href='${b}_p[0-9]+\.html'>" "$dir/index.html" | sort -u | wc -l)
    [ "$want" = "$got" ] && ok || bad "$n: $b: $want problem pages, $got linked from index.html"
  done
}

cd "$d" || exit 1
run gen-s "$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps 3 -o "$d/s.h5"
run gen-t "$mcb" gen stack --nx 2 --ny 3 --nz 2 --steps 4 -o "$d/t.h5"
run run "$mcb" run "$d/s.h5" "$d/t.h5" -o "$d/runs/r.h5" --solvers pgs,pj --iters 200 --repeat 2
run report "$mcb" report "$d/runs/r.h5" -o "$d/rep"
nonempty files "$d/rep" index.html problems.csv problems.md s_set.html t_set.html \
  s_p0.html s_p0.svg t_p3.html t_p3.svg s.traces.dat t.traces.dat $(profiles s t all.sets)
links report "$d/rep"
pages report "$d/rep" s t
grep -qF "<a href='../runs/r.h5'>" rep/index.html && ok || bad "results file not linked as ../runs/r.h5"
grep -qF "Warm start <b>none</b>: from zero." rep/index.html && ok || bad "summary: no warm start mode"

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
# each set's page states how many of its problems no solver solved
for set in s t; do
  k=$(awk -F, -v s=$set 'NR > 1 && $1 == s && $3 == "" { k++ } END { print k + 0 }' rep/problems.csv)
  if [ "$k" = 0 ]; then txt="each solved by at least one solver"; else txt="<b>$k solved by no solver</b>"; fi
  grep -qF "$txt" rep/${set}_set.html && ok || bad "set $set: '$txt' not stated"
done
# the problems no solver solved are listed on the summary, linked
k=$(awk -F, 'NR > 1 && $3 == "" { k++ } END { print k + 0 }' rep/problems.csv)
[ "$k" -gt 0 ] && grep -qF "Solved by no solver ($k)" rep/index.html && ok || bad "summary: $k unsolved problems not listed"
# the summary: ranking first (before the sets), then the profile over every problem
grep -q "<h2>Summary</h2>" rep/index.html && ok || bad "no summary"
awk "/class='sortable ranking'/ { r = NR } /all.sets_pp-time.svg/ && !p { p = NR } /class='sortable sets'/ { s = NR }
     END { exit !(r && p && s && r < p && p < s) }" rep/index.html && ok || bad "summary order: ranking, profile, sets"
# the ranking's seven columns leave the solver's name whole (it wrapped a
# letter a line once the accepted columns came)
grep -qF "table.ranking td:nth-child(2){white-space:nowrap" rep/index.html && ok ||
  bad "the ranking lets solver names wrap"
# ranked NAME DIR [SET]: the ranking of the summary (of SET's page) follows
# problems.csv (its rows of SET): each solver
# over the problems it accepted (status neither skipped nor "no run"): one
# that accepted none last; then the fraction of those it solved, higher
# first; then the problems solved, more first; then the median time to
# tolerance over the problems solved, less first; then column order. Each
# row shows "solved/accepted" and "accepted of problems".
ranked() {
  local n=$1 dir=$2 set=${3:-} page=index.html expect got
  [ -n "$set" ] && page=${set}_set.html
  expect=$(awk -F, -v set="$set" 'NR == 1 { for (c = 4; c <= NF; c += 3) { name[c] = $c; sub(/_status$/, "", name[c]) } next }
    set == "" || $1 == set { np++; for (c = 4; c <= NF; c += 3) { if ($c != "skipped" && $c != "no run") a[c]++
        if ($(c + 1) != "") { k[c]++; t[c, k[c]] = $(c + 1) } } }
    END { for (c in name) {
        m = k[c] + 0; for (i = 1; i <= m; i++) v[i] = t[c, i] + 0
        for (i = 2; i <= m; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
        med = m == 0 ? 1e300 : m % 2 ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
        printf "%d %.17g %d %.17g %d %s %d/%d %d of %d\n", a[c] == 0, a[c] ? m / a[c] : 0, -m, med, c, name[c], m, a[c], a[c], np } }' \
    "$dir/problems.csv" | sort -k1,1n -k2,2gr -k3,3n -k4,4g -k5,5n | cut -d' ' -f6- | tr '\n' ';')
  got=$(sed -n "/class='sortable ranking'/,/<\/table>/p" "$dir/$page" |
    sed -nE "s|^<tr><td class='n'>[0-9]+</td><td>([^<]*)</td><td class='n'>([0-9]+/[0-9]+)</td><td class='n'>([0-9]+ of [0-9]+)</td>.*|\1 \2 \3|p" | tr '\n' ';')
  [ -n "$got" ] && [ "$expect" = "$got" ] && ok || bad "$n: ranking '$got', expected '$expect'"
}
ranked report rep
# runs still going: at each iteration of s.dat's curve of solver k (pgs, pj),
# the first repetitions of set s whose run reached that iteration (r.csv)
for k in 1 2; do
  solver=$(sed -n "$k"p <<< $'pgs\npj')
  awk -F, -v so=$solver 'NR > 1 && $1 == "s" && $3 == so && $4 == 0 { print $6 }' runs/r.csv > iters.$k
  awk -v k=$k '/^# solver/ { b++ } b == k && !/^#/ && NF == 6 { print $1, $5 }' rep/s.dat > going.$k
  if [ -s going.$k ] && awk 'NR == FNR { it[++n] = $1; next }
      { c = 0; for (i = 1; i <= n; i++) c += it[i] >= $1; if (c != $2) { print "iteration " $1 ": " $2 " going, expected " c; bad++ } }
      END { exit bad > 0 }' iters.$k going.$k; then ok; else bad "$solver: runs still going in s.dat"; fi
done
# a problem page: one row per solver, its status as in problems.csv
st=$(awk -F, 'NR == 2 { print $4 }' rep/problems.csv)
grep -qF "<td>pgs</td><td class='ok'>$st</td>" rep/s_p0.html || grep -qF "<td>pgs</td><td class='bad'>$st</td>" rep/s_p0.html &&
  ok || bad "s_p0.html: pgs status '$st' not shown"
grep -qF "href='s_p1.html'>next problem" rep/s_p0.html && ok || bad "s_p0.html: no link to the next problem"

# set names to escape ("it's, a&b") and one that maps onto the same file name
cp s.h5 "it's, a&b.h5"
cp s.h5 it_s__a_b.h5
run report-names-run "$mcb" run "it's, a&b.h5" it_s__a_b.h5 -o names/r.h5 --solvers pgs --iters 50
run report-names "$mcb" report names/r.h5 -o names/rep
nonempty names names/rep problems.csv $(profiles it_s__a_b it_s__a_b_2 all.sets)
links names names/rep
pages names names/rep it_s__a_b it_s__a_b_2
grep -qF "<a href='it_s__a_b_set.html'>it&#39;s, a&amp;b</a>" names/rep/index.html && ok || bad "set name not escaped in HTML"
grep -qF "<h1>Problem set it&#39;s, a&amp;b</h1>" names/rep/it_s__a_b_set.html && ok || bad "set name not escaped in its page"
grep -qF "'it''s, a&b: performance profile" names/rep/plots.gp && ok || bad "set name not quoted for gnuplot"
[ "$(grep -c '^"it'"'"'s, a&b",stack-' names/rep/problems.csv)" = 3 ] && ok || bad "set name not quoted in CSV"
[ "$(head -1 names/rep/problems.csv)" = "set,problem,best,pgs_status,pgs_time_ms,pgs_ratio" ] && ok ||
  bad "single-solver header: $(head -1 names/rep/problems.csv)"

# one set; the report beside the results names them bare
run one-set-run "$mcb" run s.h5 -o one/r.h5 --solvers pgs,pj --iters 100
run one-set "$mcb" report one/r.h5 -o one
nonempty one-set one $(profiles s all.sets) s_set.html
pages one-set one s
grep -qF "<a href='r.h5'>" one/index.html && grep -qF "<a href='r.csv'>" one/index.html && ok ||
  bad "results beside the report not named r.h5 and r.csv"
links one-set one

# a solver that accepts some problems only: subadmm takes primal problems,
# not the dual-form ones imported from FCLIB local files (W, q), so it
# accepts the 2 problems of set p out of 5 and none of set dual; it is
# ranked over those 2, each row shows solved/accepted and accepted of all,
# and every profile says that a refusal counts as a failure there
run acc-gen-p "$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps 2 -o p.h5
run acc-gen "$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps 3 -o acc0.h5
run acc-export "$mcb" export fclib acc0.h5 --all --form local -o acc-fclib
run acc-import "$mcb" import fclib acc-fclib/stack-2x2x2-step0000.hdf5 \
  acc-fclib/stack-2x2x2-step0001.hdf5 acc-fclib/stack-2x2x2-step0002.hdf5 -o dual.h5
run acc-run "$mcb" run p.h5 dual.h5 -o acc/r.h5 --solvers subadmm,pgs --iters 300
run acc-report "$mcb" report acc/r.h5 -o acc/rep
[ "$(grep -c '^dual,.*,subadmm,0,skipped,' acc/r.csv)" = 3 ] &&
  [ "$(grep -c '^p,.*,subadmm,0,skipped,' acc/r.csv)" = 0 ] && ok || bad "accepted: subadmm does not skip exactly set dual"
links accepted acc/rep
ranked accepted acc/rep
ranked accepted-p acc/rep p
ranked accepted-dual acc/rep dual
grep -qE "^<tr><td class='n'>[12]</td><td>subadmm</td><td class='n'>[0-2]/2</td><td class='n'>2 of 5</td>" acc/rep/index.html &&
  ok || bad "accepted: the summary does not show subadmm accepting 2 of 5"
grep -qE "^<tr><td class='n'>2</td><td>subadmm</td><td class='n'>0/0</td><td class='n'>0 of 3</td><td class='n' data-v='-1'>-</td>" \
  acc/rep/dual_set.html && ok || bad "accepted: set dual does not rank subadmm last, accepting none"
grep -qE "<td>pgs \([0-3]/3 solved, accepted 3 of 3\)</td>" acc/rep/index.html &&
  ok || bad "accepted: the sets table does not show pgs first on set dual with its accepted count"
for page in index.html p_set.html dual_set.html; do
  # three profiles, and on the summary one more per accuracy tier
  want=$((3 + $(grep -c "<h3 id='tier" "acc/rep/$page")))
  [ "$(grep -c "counts as a failure of that solver here" "acc/rep/$page")" = $want ] &&
    ok || bad "accepted: $page: not every profile says a refusal counts as a failure"
done

# readable log axes (plots.gp): per plot (from one `set terminal` to the
# next), every axis of a `set logscale` has its tic format 10^{%L} (then on
# an enhanced terminal) or %g, never gnuplot's default (1.000000) or %.0e;
# on an enhanced terminal every title, axis label and the key are
# noenhanced, so that names show '_' as it is
logaxes() {
  local n=$1 gp=$2
  awk '
    function flush() {
      if (!term) return
      for (a in logax) if (!(a in fmt)) { print "plot " out ": log axis " a " without a format"; bad++ }
      for (a in fmt) if (fmt[a] == "10^{%L}" && !enh) { print "plot " out ": 10^{%L} on a terminal not enhanced"; bad++ }
      for (k = 1; k <= ntext; k++) if (enh && text[k] !~ / noenhanced$/) { print "plot " out ": enhanced text: " text[k]; bad++ }
      delete logax; delete fmt; ntext = 0
    }
    /^set terminal / { flush(); term = 1; enh = $0 ~ / enhanced/ && $0 !~ /noenhanced/; plots++ }
    /^set output / { out = $3 }
    /^set logscale / { ax = $3; if (ax == "") ax = "xy"; for (i = 1; i <= length(ax); i++) logax[substr(ax, i, 1)] = 1 }
    /^set format [xy] / { f = $0; sub(/^set format [xy] \047/, "", f); sub(/\047$/, "", f)
      if (f != "10^{%L}" && f != "%g") { print "plot " out ": format " f; bad++ }; fmt[$3] = f }
    /^set (title|xlabel|ylabel|y2label|key|label) / { text[++ntext] = $0 }
    END { flush(); if (!plots) { print "no plot"; bad++ }; exit bad > 0 }' "$gp" && ok || bad "$n: $gp: log axes or text"
}
logaxes report rep/plots.gp
logaxes accepted acc/rep/plots.gp
grep -qF "set output 'difficulty.cond.svg'" acc/rep/plots.gp && ok || bad "accepted: no difficulty plot to check"
awk "/set output 'difficulty.cond.png'/ { d = 1 } d && /^set format y '10\^\{%L\}'\$/ { f = 1 } d && /^plot / { exit !f }" \
  acc/rep/plots.gp && ok || bad "accepted: the difficulty plot's time axis has no 10^{%L} format"

# every run solved at iteration 0 (a tolerance above every initial
# residual; so are steps without a contact): no convergence point lies on
# the log axes, the report still completes and its plots say so
run zero-run "$mcb" run s.h5 -o zero/r.h5 --solvers pgs,pj --tol 1000
run zero-report "$mcb" report zero/r.h5 -o zero/rep
nonempty zero zero/rep index.html s_iter.svg s_time.svg
[ "$(grep -c "nothing to draw" zero/rep/plots.gp)" = 4 ] && ok || bad "zero: the convergence plots do not say there is nothing to draw"

cd - >/dev/null || exit 1
echo "report: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# Reruns every measurement that docs/performance.md quotes and prints the
# Markdown tables it contains, each after the commands that produced its data,
# so that a maintainer can paste them or diff them against the page.
#
#   scripts/docs-figures.sh [OUTDIR]        (default out/docs-figures)
#
# Environment: BUILD (build directory, default build/), REPEAT (repetitions
# of the campaign and the SubADMM runs, default 3), THREAD_PAIRS (how many
# times the 1-thread and 2-thread runs are repeated, alternately, default 7),
# TABLES_ONLY=1 to print the tables again from an existing OUTDIR without
# measuring anything, SICONOS_VERBOSE=0 to skip the diagnostic run of
# Siconos' Newton solver (it builds a copy of the tree with Siconos' verbose output switched on,
# under OUTDIR, and never touches the tree itself).
#
# Everything goes under OUTDIR: the problem sets, one results file (.h5 and
# .csv, distinct names) per `mcbench run`, the reports, logs/ (mcbench's
# progress output), commands.txt (every command, in order), context.txt
# (date, machine, load) and tables.md (what is printed). It took 11.5 minutes
# on the 2-core machine with the other core busy, 8 of them in the 2-thread
# runs, which slow down several times when the second core is not free. Numbers are extracted from results.csv files, the
# report tables and the HDF5 traces (h5dump) with awk: no Python needed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
out=${1:-out/docs-figures}
build=${BUILD:-build}
reps=${REPEAT:-3}
pairs=${THREAD_PAIRS:-7}
mcb=$build/mcbench
fclib_dir=../shared/fclib

mkdir -p "$out"/runs "$out"/threads "$out"/reports "$out"/logs
cmds=$out/commands.txt
tables=$out/tables.md
: >"$tables"
camp=$out/runs/campaign
vdir=$out/siconos-verbose
scales="1e-1 1e-2 1e-3 1e-4 1e-5 1e-6 1e-7 1e-8"
sets=("$out/stack.h5")

# run LOGNAME CMD...: record the command, run it with its progress output in logs/.
run() {
  local name=$1
  shift
  echo "$*" >>"$cmds"
  "$@" >"$out/logs/$name.log" 2>&1 || {
    echo "docs-figures: failed: $* (see $out/logs/$name.log)" >&2
    tail -5 "$out/logs/$name.log" >&2
    exit 1
  }
}
# emit TEXT...: one line to tables.md and stdout.
emit() { printf '%s\n' "$*" | tee -a "$tables"; }
emit_cmd() { printf '    %s\n' "$@" | tee -a "$tables"; }
now() { date +%s.%N; }
load() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?"; }

if [ "${TABLES_ONLY:-0}" != 1 ]; then
: >"$cmds"
# ---------------------------------------------------------------- build
echo "docs-figures: building into $build" >&2
echo "scripts/setup.sh $build" >>"$cmds"
scripts/setup.sh "$build"

{
  echo "date (UTC): $(date -u '+%Y-%m-%d %H:%M')"
  echo "git: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet HEAD 2>/dev/null || echo ' (+ uncommitted changes)')"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "cores (nproc): $(nproc)"
  echo "load average at start: $(load)"
} >"$out/context.txt"

have_siconos=0
solvers=$("$mcb" solvers)
grep -q '^siconos_nsgs:' <<<"$solvers" && have_siconos=1
have_fclib=0
ls "$fclib_dir"/*.hdf5 >/dev/null 2>&1 && have_fclib=1

# ---------------------------------------------------------------- problem sets
echo "docs-figures: problem sets" >&2
run gen "$mcb" gen stack --nx 5 --ny 5 --nz 5 --steps 10 -o "$out/stack.h5"
if [ $have_fclib = 1 ]; then
  run import "$mcb" import fclib "$fclib_dir"/*.hdf5 -o "$out/fclib.h5"
  sets+=("$out/fclib.h5")
fi
echo "${mcb} info ${sets[*]}" >>"$cmds"
"$mcb" info "${sets[@]}" >"$out/info.txt"

# ---------------------------------------------------------------- the campaign
echo "docs-figures: campaign (every solver, --repeat $reps), about a minute" >&2
t0=$(now)
run campaign "$mcb" run "${sets[@]}" -o "$camp.h5" --csv "$camp.csv" --repeat "$reps"
t1=$(now)
awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.0f\n", b - a}' >"$out/campaign-wall-s.txt"
run report-campaign "$mcb" report "$camp.h5" -o "$out/reports/campaign"

# ---------------------------------------------------------------- SubADMM penalty rule
echo "docs-figures: SubADMM beta_rule=1 and beta_scale sweep" >&2
run beta1-stack "$mcb" run "$out/stack.h5" -o "$out/runs/beta1-stack.h5" --csv "$out/runs/beta1-stack.csv" \
  --solvers subadmm --param subadmm.beta_rule=1 --repeat "$reps"
run report-beta1-stack "$mcb" report "$out/runs/beta1-stack.h5" -o "$out/reports/beta1-stack"
if [ $have_fclib = 1 ]; then
  run beta1-fclib "$mcb" run "$out/fclib.h5" -o "$out/runs/beta1-fclib.h5" --csv "$out/runs/beta1-fclib.csv" \
    --solvers subadmm --param subadmm.beta_rule=1 --repeat "$reps"
  for ad in 1 0; do
    for s in $scales; do
      run "sweep-a$ad-s$s" "$mcb" run "$out/fclib.h5" -o "$out/runs/sweep-a$ad-s$s.h5" \
        --csv "$out/runs/sweep-a$ad-s$s.csv" --solvers subadmm \
        --param subadmm.beta_scale=$s --param subadmm.adaptive=$ad
    done
  done
fi

# ---------------------------------------------------------------- threads
echo "docs-figures: threads, $pairs x (1 thread, 2 threads)" >&2
for k in $(seq 1 "$pairs"); do
  load >"$out/threads/load-k$k.txt"
  for T in 1 2; do
    run "thr$T-k$k" "$mcb" run "$out/stack.h5" -o "$out/threads/thr$T-k$k.h5" --csv "$out/threads/thr$T-k$k.csv" \
      --solvers pgs,pj,subadmm --threads $T --repeat "$reps"
  done
done

# ---------------------------------------------------------------- Siconos Newton diagnostics
if [ $have_siconos = 1 ] && [ "${SICONOS_VERBOSE:-1}" = 1 ]; then
  echo "docs-figures: a copy of the tree with Siconos verbose, for its Newton solver's messages" >&2
  rm -rf "$vdir"
  mkdir -p "$vdir/src"
  git ls-files -co --exclude-standard -z | tar --null --ignore-failed-read -T - -cf - | tar -C "$vdir/src" -xf -
  if grep -q 'numerics_set_verbose(0)' "$vdir/src/solvers/peers/siconos_peer.c"; then
    sed -i 's/numerics_set_verbose(0)/numerics_set_verbose(1)/' "$vdir/src/solvers/peers/siconos_peer.c"
    echo "(copy of the tree with numerics_set_verbose(1) in solvers/peers/siconos_peer.c, built in $vdir/build)" >>"$cmds"
    cmake -S "$vdir/src" -B "$vdir/build" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$vdir/build" -j "$(nproc)" --target mcbench >/dev/null
    for s in "${sets[@]}"; do
      b=$(basename "$s" .h5)
      echo "stdbuf -oL $vdir/build/mcbench run $s -o $vdir/$b.h5 --csv $vdir/$b.csv --solvers siconos_nsn_ac" >>"$cmds"
      stdbuf -oL "$vdir/build/mcbench" run "$s" -o "$vdir/$b.h5" --csv "$vdir/$b.csv" \
        --solvers siconos_nsn_ac >"$vdir/$b.out" 2>&1 || true
    done
    # per problem: MUMPS failures reported before mcbench's progress line of that run
    cat "$vdir"/*.out | awk '
      /MUMPS fails/ { nf++; if (!first) { first = $0; sub(/.*info\(2\)=/, "", first) } }
      /^mcbench: [0-9]+\/[0-9]+ / { p = $4; st = $6; sub(/,$/, "", st)
        print p, st, nf + 0, (first == "" ? "-" : first); nf = 0; first = "" }' >"$vdir/mumps.txt"
  else
    echo "docs-figures: solvers/peers/siconos_peer.c has no numerics_set_verbose(0); Siconos diagnostics skipped" >&2
  fi
fi
echo "load average at end: $(load)" >>"$out/context.txt"
fi # TABLES_ONLY

sets=("$out/stack.h5")
[ -f "$out/fclib.h5" ] && sets+=("$out/fclib.h5")
have_fclib=0
[ -f "$out/fclib.h5" ] && have_fclib=1
have_siconos=0
grep -q ',siconos_nsgs,' "$camp.csv" && have_siconos=1
diag=0
[ -s "$vdir/mumps.txt" ] && diag=1
camp_wall=$(cat "$out/campaign-wall-s.txt")

# ================================================================ tables
# Awk helpers shared by the extractions below (mawk has no asort).
AWKLIB='
function isort(a, n,    i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
function median(a, n) { if (n < 1) return "nan"; isort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
function g3(x) { return (x == "" || x == "nan" || x == "-") ? "-" : sprintf("%.3g", x) }
function short(p) { sub(/^stack-5x5x5-/, "", p); sub(/-i0122-82-5$/, "", p); sub(/-i125-1213$/, "", p); sub(/^LMGC_GlobalFrictionContactProblem/, "LMGC ", p); return p }
'
# csv header -> column index array c[]
CSVHDR='FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; next }'

emit "<!-- generated by scripts/docs-figures.sh on $(date -u '+%Y-%m-%d %H:%M') UTC -->"
emit ""
emit "## Context"
emit ""
while read -r l; do emit "- $l"; done <"$out/context.txt"
emit "- campaign wall time: ${camp_wall} s"
emit ""

# ---- problem sets
emit "## Problem sets"
emit ""
emit_cmd "$mcb gen stack --nx 5 --ny 5 --nz 5 --steps 10 -o $out/stack.h5" "$mcb info ${sets[*]}"
emit ""
# stack steps: n, m, contacts, with siconos_nsn_ac's outcome (all repetitions) and MUMPS messages
[ $diag = 1 ] && mumps=$vdir/mumps.txt || mumps=/dev/null
awk -v mumps="$mumps" "$AWKLIB"'
  FILENAME == mumps { mf[$1] = $3; mr[$1] = $4; next }
  FILENAME ~ /info.txt$/ { if ($1 ~ /^stack-/) { k++; name[k] = $1
      for (i = 2; i < NF; i++) { if ($i == "n") n[$1] = $(i + 1); if ($i == "m") m[$1] = $(i + 1); if ($i == "contacts") nc[$1] = $(i + 1) } }
    next }
  FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
  $c["problem_set"] == "stack" && $c["solver"] == "siconos_nsn_ac" { p = $c["problem"]
    if (!(p in st)) { st[p] = $c["status"]; it[p] = $c["iterations"] }
    if (!index("/" st[p] "/", "/" $c["status"] "/")) st[p] = st[p] "/" $c["status"]
    if (!index(" " it[p] " ", " " $c["iterations"] " ")) it[p] = it[p] " " $c["iterations"]
    if ($c["rep"] == 0) nm[p] = $c["natmap"] }
  END {
    printf "| step | DOFs n | rows m | contacts | m / n | siconos_nsn_ac (every rep) | iterations | final natmap |"
    if (mumps != "/dev/null") printf " n + 2m | MUMPS: structurally singular, structural rank |"
    printf "\n|---|---|---|---|---|---|---|---|%s\n", (mumps != "/dev/null") ? "---|---|" : ""
    for (j = 1; j <= k; j++) { p = name[j]; s = p; sub(/.*step0*/, "", s); if (s == "") s = 0
      printf "| %s | %s | %s | %s | %.2f | %s | %s | %s |", s, n[p], m[p], nc[p], m[p] / n[p], st[p], it[p], g3(nm[p])
      if (mumps != "/dev/null") printf " %d | %s |", n[p] + 2 * m[p], (mf[p] > 0 ? "yes, " mr[p] : "no")
      printf "\n"
      if (j == 1 || nc[p] < lo) lo = nc[p]; if (j == 1 || nc[p] > hi) hi = nc[p]
      if (j == 1 || m[p] < mlo) mlo = m[p]; if (j == 1 || m[p] > mhi) mhi = m[p]
      over += (m[p] > n[p]); fail += (st[p] != "solved") }
    printf "\nstack: %d steps, n = %s DOFs, %d-%d contacts (%d-%d rows) per step; rows > DOFs on %d of %d steps; siconos_nsn_ac not solved on %d\n", k, n[name[1]], lo, hi, mlo, mhi, over, k, fail }
' "$mumps" "$out/info.txt" FS=, "$camp.csv" | tee -a "$tables"
if [ $diag = 1 ]; then
  emit ""
  emit "Other sets, siconos_nsn_ac with Siconos verbose: $(awk '
    FILENAME ~ /info.txt$/ { for (i = 2; i < NF; i++) { if ($i == "n") n[$1] = $(i + 1); if ($i == "m") m[$1] = $(i + 1) } next }
    $1 !~ /^stack-/ { if ($3 > 0) { printf "%s%s: %s, MUMPS reports the Newton matrix (n + 2m = %d) structurally singular, structural rank %s", sep, $1, $2, n[$1] + 2 * m[$1], $4; sep = "; " }
      else ok = ok (ok == "" ? "" : ", ") $1 }
    END { if (ok != "") printf "%sno MUMPS failure on %s", sep, ok }' "$out/info.txt" "$vdir/mumps.txt")"
fi
emit ""

# ---- per-set solver tables from the report
solver_table() { # SET REPORTDIR [ratio]: the last column (to 1e-8 / pgs's) only with a third argument
  awk -F, -v ratio="${3:-}" "$AWKLIB"'
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { k++; row[k] = $0 }
    $c["solver"] == "pgs" { p8 = $c["ms_to_1e-8"]; psolve = $c["median_solve_ms"] }
    END {
      print "| solver | solved | median iterations | median setup (ms) | median solve (ms) | min solve (ms) | time/iter (us) | to 1e-6 (ms) | to 1e-8 (ms) |" (ratio ? " to 1e-8 / pgs |" : "")
      print "|---|---|---|---|---|---|---|---|---|" (ratio ? "---|" : "")
      for (j = 1; j <= k; j++) { split(row[j], f, ",")
        sk = f[c["skipped"]] > 0 ? " (+" f[c["skipped"]] " skipped)" : ""
        t8 = f[c["ms_to_1e-8"]]
        printf "| %s | %s/%s%s | %s | %s | %s | %s | %s | %s (%s/%s) | %s (%s/%s) |" (ratio ? " %s |" : "%s") "\n", f[c["solver"]],
          f[c["solved"]], f[c["runs"]], sk, g3(f[c["median_iterations"]]), g3(f[c["median_setup_ms"]]),
          g3(f[c["median_solve_ms"]]), g3(f[c["min_solve_ms"]]), g3(f[c["us_per_iter"]]),
          g3(f[c["ms_to_1e-6"]]), f[c["reached_1e-6"]], f[c["runs"]], g3(t8), f[c["reached_1e-8"]], f[c["runs"]],
          !ratio ? "" : (p8 > 0 && t8 != "-" && t8 != "nan") ? sprintf("%.2g", t8 / p8) : "-" } }
  ' "$2/${1}_table.csv"
}
emit "## Default problems (stack): every solver"
emit ""
emit_cmd "$mcb run ${sets[*]} -o $camp.h5 --csv $camp.csv --repeat $reps" "$mcb report $camp.h5 -o $out/reports/campaign"
emit ""
solver_table stack "$out/reports/campaign" ratio | tee -a "$tables"
emit ""
emit "Per step (repetition 0: status, iterations; from $camp.csv):"
emit ""
awk -F, "$AWKLIB$CSVHDR"'
  $c["problem_set"] == "stack" && $c["rep"] == 0 { p = $c["problem"]; s = $c["solver"]
    if (!(p in seenp)) { seenp[p] = 1; np++; P[np] = p } if (!(s in seens)) { seens[s] = 1; ns++; S[ns] = s }
    cell[p, s] = ($c["status"] == "solved" ? "" : $c["status"] ", ") $c["iterations"] }
  END { printf "| step |"; for (j = 1; j <= ns; j++) printf " %s |", S[j]; printf "\n|---|"
    for (j = 1; j <= ns; j++) printf "---|"; printf "\n"
    for (i = 1; i <= np; i++) { q = P[i]; sub(/.*step0*/, "", q); if (q == "") q = 0; printf "| %s |", q
      for (j = 1; j <= ns; j++) printf " %s |", cell[P[i], S[j]]; printf "\n" } }
' "$camp.csv" | tee -a "$tables"
emit ""

if [ $have_fclib = 1 ]; then
  emit "## Shared FCLIB problems: every solver"
  emit ""
  emit_cmd "(same run as above)"
  emit ""
  solver_table fclib "$out/reports/campaign" | tee -a "$tables"
  emit ""
  emit "Per problem (status, iterations over every repetition, median solve time over the repetitions; from $camp.csv):"
  emit ""
  awk -F, "$AWKLIB$CSVHDR"'
    $c["problem_set"] == "fclib" { p = $c["problem"]; s = $c["solver"]
      if (!(p in seenp)) { seenp[p] = 1; np++; P[np] = p; form[p] = ($c["n"] == 0 ? "local" : "global"); ncon[p] = $c["ncontacts"] }
      if (!(s in seens)) { seens[s] = 1; ns++; S[ns] = s }
      if (!((p, s) in st)) st[p, s] = $c["status"]
      if (!index("/" st[p, s] "/", "/" $c["status"] "/")) st[p, s] = st[p, s] "/" $c["status"]
      i = $c["iterations"] + 0; if (!((p, s) in lo) || i < lo[p, s]) lo[p, s] = i; if (!((p, s) in hi) || i > hi[p, s]) hi[p, s] = i
      nt[p, s]++; t[p, s, nt[p, s]] = 1e3 * $c["solve_s"]
      if ($c["rep"] == 0) nm[p, s] = $c["natmap"] }
    END { printf "| problem |"; for (j = 1; j <= ns; j++) printf " %s |", S[j]; printf "\n|---|"
      for (j = 1; j <= ns; j++) printf "---|"; printf "\n"
      for (i = 1; i <= np; i++) { p = P[i]; printf "| %s (%s, %d contacts) |", short(p), form[p], ncon[p]
        for (j = 1; j <= ns; j++) { s = S[j]
          if (st[p, s] == "skipped") { printf " skipped |"; continue }
          delete a; for (r = 1; r <= nt[p, s]; r++) a[r] = t[p, s, r]
          its = lo[p, s] == hi[p, s] ? lo[p, s] : lo[p, s] "-" hi[p, s]
          printf " %s, %s it, %s ms%s |", st[p, s], its, g3(median(a, nt[p, s])), st[p, s] == "solved" ? "" : ", natmap " g3(nm[p, s]) }
        printf "\n" } }
  ' "$camp.csv" | tee -a "$tables"
  emit ""
fi

# ---- Capsules: time to natmap <= 1e-8 from the traces
trace_index() { # RESULTS.h5 -> "group set problem solver rep" lines
  h5dump -A -g /runs "$1" | awk '
    $1 == "GROUP" && $2 ~ /^"[0-9]+"$/ { g = $2; gsub(/"/, "", g); G[++n] = g }
    $1 == "ATTRIBUTE" { a = $2; gsub(/"/, "", a) }
    /^ *\(0\): / { v = $0; sub(/^ *\(0\): /, "", v); gsub(/"/, "", v); R[g, a] = v }
    END { for (i = 1; i <= n; i++) { g = G[i]; print g, R[g, "problem_set"], R[g, "problem"], R[g, "solver"], R[g, "rep"] } }'
}
trace_hit() { # RESULTS.h5 GROUP THRESHOLD -> "iter time_s last_iter last_time_s" (first natmap <= threshold)
  h5dump -d "/runs/$2/trace" -o "$out/trace.tmp" -y -m %.9g "$1" >/dev/null
  tr -s ' ,\n' '\n\n\n' <"$out/trace.tmp" | awk -v thr="$3" '
    NF { col = k % 11; r[col] = $1; k++
      if (col == 10) { if (!hit && r[6] != "nan" && r[6] + 0 <= thr) { hit = 1; hi = r[0]; ht = r[1] } li = r[0]; lt = r[1] } }
    END { print (hit ? hi " " ht : "- -"), li, lt }'
  rm -f "$out/trace.tmp"
}
if [ $have_fclib = 1 ] && [ $have_siconos = 1 ]; then
  emit "## Capsules: PGS against Siconos' NSGS, from the traces"
  emit ""
  emit_cmd "(traces of the campaign: h5dump -d /runs/GROUP/trace $camp.h5, column natmap, first row <= 1e-8)"
  emit ""
  trace_index "$camp.h5" >"$out/runs/campaign-index.txt"
  emit "| rep | pgs: iteration, ms to 1e-8 | siconos_nsgs: iteration, ms to 1e-8 | time ratio nsgs / pgs | siconos_nsgs: last iteration, ms | siconos_nsn_ac: iterations, ms to 1e-8 |"
  emit "|---|---|---|---|---|---|"
  for r in $(seq 0 $((reps - 1))); do
    gp=$(awk -v r=$r '$3 ~ /^Capsules/ && $4 == "pgs" && $5 == r {print $1}' "$out/runs/campaign-index.txt")
    gn=$(awk -v r=$r '$3 ~ /^Capsules/ && $4 == "siconos_nsgs" && $5 == r {print $1}' "$out/runs/campaign-index.txt")
    ga=$(awk -v r=$r '$3 ~ /^Capsules/ && $4 == "siconos_nsn_ac" && $5 == r {print $1}' "$out/runs/campaign-index.txt")
    [ -n "$gp" ] && [ -n "$gn" ] || continue
    read -r pi pt _ _ <<<"$(trace_hit "$camp.h5" "$gp" 1e-8)"
    read -r ni nt nli nlt <<<"$(trace_hit "$camp.h5" "$gn" 1e-8)"
    ai=- at=-
    [ -n "$ga" ] && read -r ai at _ _ <<<"$(trace_hit "$camp.h5" "$ga" 1e-8)"
    awk -v r=$r -v pi="$pi" -v pt="$pt" -v ni="$ni" -v nt="$nt" -v nli="$nli" -v nlt="$nlt" -v ai="$ai" -v at="$at" \
      'function ms(x) { return x == "-" ? "-" : sprintf("%.3g", 1e3 * x) }
       BEGIN { printf "| %d | %s, %s | %s, %s | %s | %s, %s | %s, %s |\n", r, pi, ms(pt), ni, ms(nt),
         (pt > 0 && nt != "-") ? sprintf("%.2g", nt / pt) : "-", nli, ms(nlt), ai, ms(at) }' | tee -a "$tables"
  done
  emit ""
fi

# ---- SubADMM penalty rule
emit "## SubADMM: penalty rule eq. (23) (campaign) against beta_rule=1"
emit ""
emit_cmd "$mcb run ${sets[*]} -o $camp.h5 --csv $camp.csv --repeat $reps   (eq. (23): the campaign)"
[ $have_fclib = 1 ] && emit_cmd "$mcb run $out/fclib.h5 -o $out/runs/beta1-fclib.h5 --csv $out/runs/beta1-fclib.csv --solvers subadmm --param subadmm.beta_rule=1 --repeat $reps"
emit_cmd "$mcb run $out/stack.h5 -o $out/runs/beta1-stack.h5 --csv $out/runs/beta1-stack.csv --solvers subadmm --param subadmm.beta_rule=1 --repeat $reps" \
  "$mcb report $out/runs/beta1-stack.h5 -o $out/reports/beta1-stack"
emit ""
emit "natmap = the harness's final natural-map residual (repetition 0); own = the solver's own residual (sqrt(theta), eq. (22)), reported, never judged."
emit ""
emit "| problem | eq. (23): status, iterations, natmap (own), median solve ms | beta_rule=1: status, iterations, natmap (own), median solve ms |"
emit "|---|---|---|"
if [ $have_fclib = 1 ]; then
  awk -F, "$AWKLIB$CSVHDR"'
    $c["solver"] == "subadmm" && $c["problem_set"] == "fclib" && $c["status"] != "skipped" { p = $c["problem"]; f = FILENAME ~ /beta1/ ? 2 : 1
      if (!(p in seen)) { seen[p] = 1; np++; P[np] = p }
      nt[f, p]++; t[f, p, nt[f, p]] = 1e3 * $c["solve_s"]
      if ($c["rep"] == 0) { cell[f, p] = $c["status"] ", " $c["iterations"] " it, natmap " g3($c["natmap"]) " (own " g3($c["own_residual"]) ")" } }
    END { for (i = 1; i <= np; i++) { p = P[i]; printf "| %s |", short(p)
        for (f = 1; f <= 2; f++) { delete a; for (r = 1; r <= nt[f, p]; r++) a[r] = t[f, p, r]; printf " %s, %s ms |", cell[f, p], g3(median(a, nt[f, p])) }
        printf "\n" } }
  ' "$camp.csv" "$out/runs/beta1-fclib.csv" | tee -a "$tables"
fi
paste -d, <(awk -F, 'NR == 1 || $1 == "subadmm"' "$out/reports/campaign/stack_table.csv") \
  <(awk -F, 'NR == 1 || $1 == "subadmm"' "$out/reports/beta1-stack/stack_table.csv") |
  awk -F, "$AWKLIB"'
    NR == 1 { h = NF / 2; for (i = 1; i <= h; i++) c[$i] = i; next }
    { for (f = 0; f < 2; f++) { o = f * h
        cell[f] = sprintf("%s/%s solved, median %s it, to 1e-8 %s ms (%s/%s)", $(o + c["solved"]), $(o + c["runs"]),
          g3($(o + c["median_iterations"])), g3($(o + c["ms_to_1e-8"])), $(o + c["reached_1e-8"]), $(o + c["runs"])); t8[f] = $(o + c["ms_to_1e-8"]) }
      printf "| stack (10 steps) | %s | %s |\n\nstack, to 1e-8: beta_rule=1 / eq. (23) = %.2g\n", cell[0], cell[1], t8[1] / t8[0] }
  ' | tee -a "$tables"
emit ""
if [ $have_fclib = 1 ]; then
  emit "beta_scale sweep (eq. (23) times beta_scale, default budget, harness natmap at the end; adaptive = residual balancing on/off):"
  emit ""
  emit_cmd "$mcb run $out/fclib.h5 -o $out/runs/sweep-aA-sS.h5 --csv $out/runs/sweep-aA-sS.csv --solvers subadmm --param subadmm.beta_scale=S --param subadmm.adaptive=A   (S in $scales, A in 1 0)"
  emit ""
  for ad in 1 0; do
    for s in $scales; do
      awk -F, -v s=$s -v ad=$ad "$AWKLIB$CSVHDR"'
        $c["status"] != "skipped" { k++; P[k] = short($c["problem"]); cell[k] = $c["status"] ", " $c["iterations"] " it, natmap " g3($c["natmap"]) }
        END { printf "| %s | %s |", s, ad; for (i = 1; i <= k; i++) printf " %s |", cell[i]; printf "\n"
          for (i = 1; i <= k; i++) names = names " " P[i] " |"; print names > "/dev/stderr" }
      ' "$out/runs/sweep-a$ad-s$s.csv" 2>"$out/sweep-header.tmp"
    done
  done >"$out/sweep.tmp"
  emit "| beta_scale | adaptive |$(cat "$out/sweep-header.tmp")"
  emit "|---|---|$(awk '{for (i = 1; i <= NF; i++) if ($i == "|") printf "---|"}' "$out/sweep-header.tmp")"
  tee -a "$tables" <"$out/sweep.tmp"
  rm -f "$out/sweep.tmp" "$out/sweep-header.tmp"
  emit ""
fi

# ---- threads
emit "## Threads: pgs, pj, subadmm on the stack, 1 against 2 threads, $pairs alternating pairs of runs"
emit ""
emit_cmd "for k in 1..$pairs, T in 1 2: $mcb run $out/stack.h5 -o $out/threads/thrT-kk.h5 --csv $out/threads/thrT-kk.csv --solvers pgs,pj,subadmm --threads T --repeat $reps"
emit ""
emit "Per run k: median solve time over the set's runs (10 steps x $reps repetitions); speed-up_k = 1-thread / 2-thread median of pair k. Shown: median over the $pairs pairs (min-max)."
emit ""
awk -F, -v pairs="$pairs" "$AWKLIB"'
  FILENAME ~ /load-k[0-9]+\.txt$/ { f = FILENAME; sub(/.*load-k/, "", f); sub(/\.txt$/, "", f); split($0, L, " "); ld[f + 0] = L[1]; next }
'"$CSVHDR"'
  $c["status"] != "skipped" { f = FILENAME; sub(/.*\/thr/, "", f); T = substr(f, 1, 1); k = f; sub(/^[0-9]-k/, "", k); sub(/\.csv$/, "", k); k += 0
    s = $c["solver"]; if (!(s in seens)) { seens[s] = 1; ns++; S[ns] = s }
    n[s, T, k]++; t[s, T, k, n[s, T, k]] = 1e3 * $c["solve_s"]
    if (!((s, T) in mx) || $c["solve_s"] + 0 > mx[s, T]) { mx[s, T] = $c["solve_s"] + 0; mxk[s, T] = short($c["problem"]) }
    key = short($c["problem"]) " rep " $c["rep"]; it = $c["iterations"]; stt = $c["status"]
    if (stt == "time-limit") tl[s, T]++
    if (!((s, key) in seenk)) { seenk[s, key] = 1; nk[s]++; K[s, nk[s]] = key }
    o = stt ", " it " it, natmap " $c["natmap"]
    if (!((s, key, T, o) in O)) { no[s, key, T]++; OS[s, key, T, no[s, key, T]] = o } O[s, key, T, o]++ }
  END {
    print "| solver | median solve (ms), 1 thread | 2 threads | speed-up, median (min-max) | slowest single run (s), 1 / 2 threads | runs stopped by the time limit, 1 / 2 threads | (problem, rep) with equal status, iterations and natmap at 1 and 2 threads |"
    print "|---|---|---|---|---|---|---|"
    for (j = 1; j <= ns; j++) { s = S[j]
      for (k = 1; k <= pairs; k++) for (T = 1; T <= 2; T++) { delete a; for (r = 1; r <= n[s, T, k]; r++) a[r] = t[s, T, k, r]; m[T, k] = median(a, n[s, T, k]) }
      delete a; for (k = 1; k <= pairs; k++) a[k] = m[1, k]; m1 = median(a, pairs); lo1 = a[1]; hi1 = a[pairs]
      delete a; for (k = 1; k <= pairs; k++) a[k] = m[2, k]; m2 = median(a, pairs); lo2 = a[1]; hi2 = a[pairs]
      delete a; for (k = 1; k <= pairs; k++) { a[k] = m[1, k] / m[2, k]; sp[s, k] = a[k] } med = median(a, pairs)
      eq = 0; for (q = 1; q <= nk[s]; q++) { key = K[s, q]
        eq += (no[s, key, 1] == 1 && no[s, key, 2] == 1 && OS[s, key, 1, 1] == OS[s, key, 2, 1])
        if (no[s, key, 1] > 1 || no[s, key, 2] > 1 || OS[s, key, 1, 1] != OS[s, key, 2, 1]) {
          diff = diff "- " s " " key ":"; for (T = 1; T <= 2; T++) { diff = diff " " T " thread(s):"
            for (r = 1; r <= no[s, key, T]; r++) diff = diff (r > 1 ? ";" : "") " " OS[s, key, T, r] " (" O[s, key, T, OS[s, key, T, r]] " runs)"
            diff = diff (T == 1 ? "," : "") } diff = diff "\n" } }
      printf "| %s | %s (%s-%s) | %s (%s-%s) | %.2f (%.2f-%.2f) | %s (%s) / %s (%s) | %d / %d | %d/%d |\n", s, g3(m1), g3(lo1), g3(hi1), g3(m2), g3(lo2), g3(hi2), med, a[1], a[pairs], g3(mx[s, 1]), mxk[s, 1], g3(mx[s, 2]), mxk[s, 2], tl[s, 1], tl[s, 2], eq, nk[s] }
    printf "\nPer pair (load = 1-minute load average when the pair started; speed-up = 1-thread / 2-thread median solve):\n\n| pair | load |"
    for (j = 1; j <= ns; j++) printf " %s |", S[j]; printf "\n|---|---|"; for (j = 1; j <= ns; j++) printf "---|"; printf "\n"
    for (k = 1; k <= pairs; k++) { printf "| %d | %s |", k, ld[k]; for (j = 1; j <= ns; j++) printf " %.2f |", sp[S[j], k]; printf "\n" }
    if (diff != "") printf "\nOutcomes (status, iterations, final natmap) that are not the same in all %d runs at 1 and at 2 threads:\n\n%s", pairs, diff
    else print "\nEvery (problem, rep) has the same status, iteration count and final natmap in all " pairs " runs at each thread count."
  }
' "$out"/threads/load-k*.txt "$out"/threads/thr*-k*.csv | tee -a "$tables"
emit ""
echo "docs-figures: tables in $tables; commands in $cmds" >&2

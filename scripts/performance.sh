#!/usr/bin/env bash
# performance.sh [--quick] [--only SECTIONS] OUTDIR: regenerates every table
# of docs/performance.md in one run, each as a Markdown file in OUTDIR that
# starts with the commands that produced its data, so the page is updated by
# pasting:
#   context.md      date, commit, CPU model, cores, load, time per section
#   1-solvers.md    every solver on the default problems: success, median
#                   iterations, time to natmap 1e-8 and its ratio to pgs in
#                   the same run (mcbench run + mcbench report)
#   2-overhead.md   judging overhead and distortion (scripts/judging-overhead.sh)
#   3-setup.md      setup against solve time on the default problems (from 1)
#   3-scaling.md    setup and time per iteration against size (a stack sweep)
#   4-threads.md    the OpenMP solvers at 1 and 2 threads
#   5-peers.md      Siconos' and MuJoCo's solvers beside pgs, nncg and nnewton
#   tables.md       all of the above, in the page's order
# Everything else (problems, results files, reports, logs/, commands.txt)
# goes under OUTDIR too; the tree is never touched.
#
# Budgets: sections 1 and 5 run each solver once per problem, one thread,
# 5000 iterations, natmap tolerance 1e-8 and 5 s per run (not mcbench's
# default 30 s: al-dampedsn alone took 219 s of a 496 s campaign with it),
# on every fifth recorded step of each scene of the default set (names
# ending in 0 or 5), the recorded humanoid's 10 steps and the 4 shared
# FCLIB problems. The full run takes about 12 minutes on 2 cores.
# --quick: the `quick` problem set (problems/sets/quick.set), 500 iterations
#   and 1 s per run, tiny sweeps, one repetition: a smoke run of every
#   section (about a minute); its figures are not for quoting.
# --only S,S,...: only the sections named (solvers, overhead, setup, scaling,
#   threads, peers); setup reads the results of solvers, which it runs if
#   OUTDIR has none.
# Environment: MCBENCH (default build/mcbench; build it first with
# scripts/setup.sh), FCLIB_DIR (default ../shared/fclib: the shared FCLIB
# files, left out when absent), PROBLEMS (the --problems globs of sections 1
# and 5, space-separated, replacing the selection above), PAIRS (1-thread /
# 2-thread pairs of section 4, default 3). Needs python3 and bc.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,35p' "$0" >&2; exit 2; }
quick=0 only=all
while [ $# -gt 0 ]; do
  case "$1" in
  --quick) quick=1; shift ;;
  --only) only=${2:?--only needs a list}; shift 2 ;;
  -h | --help) usage ;;
  -*) echo "performance.sh: unknown option '$1'" >&2; usage ;;
  *) break ;;
  esac
done
[ $# -eq 1 ] || usage
out=$1
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
mcb=${MCBENCH:-$here/build/mcbench}
mcb=$(cd "$(dirname "$mcb")" && pwd)/$(basename "$mcb")
[ -x "$mcb" ] || { echo "performance.sh: no mcbench at $mcb (run scripts/setup.sh build)" >&2; exit 1; }
fclib_dir=${FCLIB_DIR:-$here/../shared/fclib}
cmds=$out/commands.txt
want() { [ "$only" = all ] || [[ ",$only," == *",$1,"* ]]; }
now() { date +%s.%N; }
since() { printf '%.0f' "$(echo "$(now) - $1" | bc)"; }
load() { cut -d' ' -f1-3 /proc/loadavg; }
# run LOG CMD...: CMD with its output in logs/LOG.log, recorded in commands.txt
run() {
  local log=$1; shift
  local a line=
  for a in "$@"; do   # quoted where the shell would expand it
    case "$a" in *[\*\?\[\ ]*) line+="'$a' " ;; *) line+="$a " ;; esac
  done
  echo "${line% }" >>"$cmds"
  "$@" >"$out/logs/$log.log" 2>&1 || {
    echo "performance.sh: failed: $* (see $out/logs/$log.log)" >&2
    tail -5 "$out/logs/$log.log" >&2
    exit 1
  }
}
# md FILE: start a table file with the commands given on stdin, as a code block
md() { { echo '```sh'; cat; echo '```'; echo; } >"$out/$1"; }
section_times=()
T0=$(now)

if [ $quick = 1 ]; then
  set_name=quick PROBLEMS=${PROBLEMS:-'*[05] fclib/*'} sweep="2 3 4" thr_k=4 thr_iters=20
  budget=(--iters 500 --time-limit 1)
  reps=1 pairs=${PAIRS:-1} ov_env=(REPS=1 PAIRED=2)
else
  set_name=default PROBLEMS=${PROBLEMS:-'*[05] mujoco-humanoid/* fclib/*'} sweep="4 6 8 10 12" thr_k=12
  thr_iters=100 reps=3 pairs=${PAIRS:-3} ov_env=(REPS=2 PAIRED=5)
  budget=(--iters 5000 --time-limit 5)
fi
pglobs=()
set -f   # the globs are mcbench's, not the shell's
for g in $PROBLEMS; do pglobs+=(--problems "$g"); done
set +f
ours=pgs,pj,subadmm,fadmm,subadmm-nobody,nnewton,canal,cond,cond-nocheb,al-trdogleg,al-dampedsn,psor,pgs-shuffle,pgs-mf,nncg
ccp=apgd,ccp-jacobi,cond-prox
peers=$("$mcb" solvers | grep -oE '^(siconos|mujoco)_[a-z_]+' | paste -sd, || true)

{
  echo "| | |"
  echo "|---|---|"
  echo "| date (UTC) | $(date -u '+%Y-%m-%d %H:%M') |"
  echo "| commit | $(git -C "$here" rev-parse --short HEAD)$(git -C "$here" diff --quiet HEAD -- . ':!docs' 2>/dev/null || echo ' (+ uncommitted changes)') |"
  echo "| CPU | $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores |"
  echo "| mode | $([ $quick = 1 ] && echo 'quick (smoke run: no figure to quote)' || echo full) |"
  echo "| load average at the start (1, 5, 15 min) | $(load) |"
} >"$out/context.md"
: >"$cmds"

# ---------------------------------------------------------------- problems
t=$(now)
probs=$out/problems
run gen "$mcb" gen --set "$set_name" -o "$probs"
files=()
for f in $(sed -e 's/#.*//' "$here/problems/sets/$set_name.set" | awk 'NF >= 2 {print $1}'); do
  [ -e "$probs/$f.h5" ] && files+=("$probs/$f.h5")   # mujoco-humanoid: only with MuJoCo
done
stack=$probs/stack.h5
fcl=()
if ls "$fclib_dir"/*.hdf5 >/dev/null 2>&1; then
  run import "$mcb" import fclib "$fclib_dir"/*.hdf5 -o "$out/fclib.h5"
  fcl=("$out/fclib.h5")
fi
section_times+=("problems: $(since "$t") s")
rel() { sed "s|$out/|OUT/|g; s|$here/||g"; }   # commands as the page shows them

# matrix WHAT CSV REPORTDIR [SUFFIX [SOLVERS [REF [SETS]]]]: one matrix (rows
# solvers, columns problem sets) of one figure from `mcbench report`'s
# per-set tables (SET_table.md: success, median iterations, time to 1e-8)
# and first-repetition traces (SET.traces.dat: the paired ratio of the time
# to natmap <= 1e-8 to REF's, default pgs, on the same problem, with
# scripts/race-ratios.py's definitions; race-ratios.py itself reads each
# trace with one h5dump call, 4 minutes for 1071 runs on this machine).
# SUFFIX is appended to the solver names; SOLVERS, SETS (comma-separated)
# select rows and columns.
matrix() {
  python3 - "$@" <<'PY'
import csv, os, statistics, sys
what, csvp, repdir = sys.argv[1:4]
arg = lambda k: sys.argv[k] if len(sys.argv) > k and sys.argv[k] else None
suffix, only, ref, want = arg(4) or "", arg(5), arg(6) or "pgs", arg(7)
rows = list(csv.DictReader(open(csvp)))
sets = list(dict.fromkeys(r["problem_set"] for r in rows))
if want: sets = [s for s in sets if s in want.split(",")]
solvers = list(dict.fromkeys(r["solver"] for r in rows))
if only: solvers = [v for v in solvers if v in only.split(",")]
tab = {}
for s in sets:
    head = None
    for line in open(os.path.join(repdir, s + "_table.md")):
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if head is None and "median iterations" in c: head = c; continue
        if head and len(c) == len(head) and not c[0].startswith("-"):
            tab[(c[0], s)] = dict(zip(head, c))
T8 = {}
def t8(s):
    if s not in T8: T8[s] = read_t8(s)
    return T8[s]
def read_t8(s):  # (problem, solver) -> solver time (ms) at natmap <= 1e-8 first, or None
    t, key = {}, None
    for line in open(os.path.join(repdir, s + ".traces.dat")):
        if line.startswith("# "):
            p, v = line[2:].split(": ")[0].rsplit(", solver ", 1)
            key = (p, v); t[key] = None
        elif line.strip() and key and t[key] is None:
            it, res, sec = line.split()[:3]
            if float(res) <= 1e-8: t[key] = 1e3 * float(sec)
    return t
def ratio(v, s):
    t = t8(s)
    trivial = {p for (p, _), x in t.items() if x == 0.0}
    r = [t[(p, v)] / t[(p, ref)] for (p, w) in t if w == v and p not in trivial
         and t[(p, v)] is not None and t.get((p, ref))]
    return "%.3g (%d)" % (statistics.median(r), len(r)) if r else "- (0)"
def cell(v, s):
    c = tab.get((v, s))
    if c is None: return ""
    if c["runs (accepted)"] == "0": return "skip"
    if what == "success": return "%s/%s" % (c["solved"], c["runs (accepted)"])
    if what == "iters": return c["median iterations"]
    if what == "t8": return c["to 1e-8 (ms)"]
    if what == "r8": return ratio(v, s)
print("| solver | " + " | ".join(sets) + " |")
print("|---" * (len(sets) + 1) + "|")
for v in solvers:
    print("| %s%s | " % (v, suffix) + " | ".join(cell(v, s) for s in sets) + " |")
PY
}

# ---------------------------------------------------------------- 1: solvers
if want solvers || { want setup && [ ! -s "$out/solvers/coulomb.csv" ]; }; then
  t=$(now)
  d=$out/solvers
  mkdir -p "$d"
  rm -f "$d"/coulomb.* "$d"/ccp.* "$d"/*.journal
  run solvers-coulomb "$mcb" run "${files[@]}" "${fcl[@]}" "${pglobs[@]}" --solvers "$ours" \
    "${budget[@]}" --threads 1 -o "$d/coulomb.h5"
  run solvers-ccp "$mcb" run "${files[@]}" "${fcl[@]}" "${pglobs[@]}" --solvers "pgs,$ccp" \
    --law ccp "${budget[@]}" --threads 1 -o "$d/ccp.h5"
  for c in coulomb ccp; do
    run "report-$c" "$mcb" report "$d/$c.h5" -o "$d/report-$c"
  done
  section_times+=("1 solvers: $(since "$t") s")
  grep -E "run .*-o $d/|report $d" "$cmds" | rel | md 1-solvers.md
  {
    echo "Success (solved / taken; skip: every problem refused):"; echo
    matrix success "$d/coulomb.csv" "$d/report-coulomb"
    matrix success "$d/ccp.csv" "$d/report-ccp" " (CCP)" "$ccp" | tail -n +3; echo
    echo "Median iterations (first repetition, problems taken):"; echo
    matrix iters "$d/coulomb.csv" "$d/report-coulomb"
    matrix iters "$d/ccp.csv" "$d/report-ccp" " (CCP)" "$ccp" | tail -n +3; echo
    echo "Median time to natmap <= 1e-8 (ms, solve time, setup excluded; in brackets the problems that got there):"; echo
    matrix t8 "$d/coulomb.csv" "$d/report-coulomb"
    matrix t8 "$d/ccp.csv" "$d/report-ccp" " (CCP)" "$ccp" | tail -n +3; echo
    echo "Time to 1e-8 against pgs in the same run (median over the problems both reached of the ratio; below 1: faster than pgs; for the CCP rows, pgs judged by the CCP law):"; echo
    matrix r8 "$d/coulomb.csv" "$d/report-coulomb"
    matrix r8 "$d/ccp.csv" "$d/report-ccp" " (CCP)" "$ccp" | tail -n +3
  } >>"$out/1-solvers.md"
fi

# ---------------------------------------------------------------- 2: overhead
if want overhead; then
  t=$(now)
  d=$out/overhead
  echo "${ov_env[*]} scripts/judging-overhead.sh $mcb $d $stack ${fcl[*]}" >>"$cmds"
  env "${ov_env[@]}" "$here/scripts/judging-overhead.sh" "$mcb" "$d" "$stack" "${fcl[@]}" \
    >"$out/logs/overhead.log" 2>&1 || { echo "performance.sh: judging-overhead.sh failed" >&2; tail -5 "$out/logs/overhead.log" >&2; exit 1; }
  section_times+=("2 overhead: $(since "$t") s")
  tail -n 1 "$cmds" | rel | md 2-overhead.md
  python3 - "$out/logs/overhead.log" >>"$out/2-overhead.md" <<'PY'
import re, sys
L = open(sys.argv[1]).read()
def g(p):
    m = re.search(p, L)
    return m.groups() if m else None
print("| figure | value |\n|---|---|")
c = g(r"campaign: (\d+) runs, wall ([\d.]+) s, setup\+solve ([\d.]+) s, ratio ([\d.]+)")
if c: print("| campaign wall time / (setup + solve), %s runs | **%s** (%s s / %s s) |" % (c[0], c[3], c[1], c[2]))
r = g(r"over (\d+) solved pairs: median ([\d.]+), min ([\d.]+), max ([\d.]+); within 5%: (\d+) of (\d+)")
if r: print("| reported / unobserved solve time, separate processes: median over %s (problem, solver) (min-max; within 5%%) | %s (%s-%s; %s of %s) |" % (r[0], r[1], r[2], r[3], r[4], r[5]))
p = g(r"paired in one process, (\d+) \(problem, solver\) timed observed: median ([\d.]+), min ([\d.]+), max ([\d.]+); within 5%: (\d+) of (\d+) \((\d+) of (\d+) runs of 1 ms or more\)")
if p: print("| observed / unobserved, paired in one process: median over %s (problem, solver) (min-max) | %s (%s-%s) |\n| ... within 5%%: all pairs / pairs of 1 ms or more | %s of %s / **%s of %s** |" % p)
i = g(r"above the exact first one: max ([-\d.]+)%, min ([-\d.]+)% over (\d+) runs; within 1%: (\d+)")
if i: print("| iteration count against `--check-every 1` (the exact first iteration at the tolerance): within 1%% | **%s of %s** runs (largest excess %s%%) |" % (i[3], i[2], i[0]))
PY
fi

# ---------------------------------------------------------------- 3: setup, scaling
if want setup; then
  d=$out/solvers
  echo "(from the campaign of section 1: $d/coulomb.csv, $d/ccp.csv)" | rel | md 3-setup.md
  python3 - "$d/coulomb.csv" "$d/ccp.csv" >>"$out/3-setup.md" <<'PY'
import csv, statistics, sys
print("| solver | runs | median setup (ms) | median solve (ms) | setup share of the total (setup + solve summed over runs) | largest setup (ms), problem |")
print("|---|---|---|---|---|---|")
for path, law in ((sys.argv[1], ""), (sys.argv[2], " (CCP)")):
    g = {}
    for r in csv.DictReader(open(path)):
        if r["status"] == "skipped" or r.get("rep", "0") not in ("0", ""): continue
        if law and r["solver"] == "pgs": continue
        g.setdefault(r["solver"], []).append((float(r["setup_s"]), float(r["solve_s"]), r["problem_set"] + "/" + r["problem"]))
    for v, x in g.items():
        su, so = [a for a, _, _ in x], [b for _, b, _ in x]
        big = max(x)
        print("| %s%s | %d | %.3g | %.3g | %.0f%% | %.3g, %s |" % (v, law, len(x), 1e3 * statistics.median(su),
              1e3 * statistics.median(so), 100 * sum(su) / max(sum(su) + sum(so), 1e-300), 1e3 * big[0], big[2]))
PY
fi
if want scaling; then
  t=$(now)
  d=$out/scaling
  mkdir -p "$d"
  sv=pgs,pj,nncg,subadmm,fadmm,cond,ccp-jacobi,apgd
  for k in $sweep; do
    [ -s "$d/stack$k.h5" ] || run "gen-stack$k" "$mcb" gen stack --nx "$k" --ny "$k" --nz "$k" --steps 1 -o "$d/stack$k.h5"
  done
  rm -f "$d"/sweep.*
  mapfile -t sf < <(for k in $sweep; do echo "$d/stack$k.h5"; done)
  run scaling "$mcb" run "${sf[@]}" --solvers "$sv" --iters 20 --tol 0 --check-every never \
    --threads 1 --repeat "$reps" --time-limit 60 -o "$d/sweep.h5"
  section_times+=("3 scaling: $(since "$t") s")
  grep -E "gen stack|-o $d/sweep" "$cmds" | rel | md 3-scaling.md
  python3 - "$d/sweep.csv" "$mcb" "${sf[@]}" >>"$out/3-scaling.md" <<'PY'
import csv, math, re, subprocess, sys
rows = list(csv.DictReader(open(sys.argv[1])))
size = {}
for f in sys.argv[3:]:
    for line in subprocess.run([sys.argv[2], "info", f], capture_output=True, text=True).stdout.splitlines():
        m = re.match(r"\s*(\S+)\s+\S+\s+n (\d+)\s+m (\d+)", line)
        if m: size[m.group(1)] = (int(m.group(2)), int(m.group(3)))
probs = sorted({r["problem"] for r in rows}, key=lambda p: size[p][0])
solvers = list(dict.fromkeys(r["solver"] for r in rows))
def best(p, v, f):  # the fastest repetition: the figure least disturbed by the load
    xs = [f(r) for r in rows if r["problem"] == p and r["solver"] == v and r["status"] != "skipped"]
    return min(xs) if xs else None
def fit(xy):  # least-squares slope of log y against log x
    xy = [(math.log(x), math.log(y)) for x, y in xy if y and y > 0]
    if len(xy) < 2: return "-"
    mx = sum(x for x, _ in xy) / len(xy); my = sum(y for _, y in xy) / len(xy)
    return "%.2f" % (sum((x - mx) * (y - my) for x, y in xy) / sum((x - mx) ** 2 for x, _ in xy))
for title, f, unit in (("Setup (ms)", lambda r: 1e3 * float(r["setup_s"]), 1),
                       ("Time per iteration (us; 20 iterations, unobserved)",
                        lambda r: 1e6 * float(r["solve_s"]) / max(int(r["iterations"]), 1), 1)):
    print("\n%s, the fastest repetition; last column: the exponent fitted to time against DOF n:\n" % title)
    print("| solver | " + " | ".join("n %d, m %d" % size[p] for p in probs) + " | exponent |")
    print("|---" * (len(probs) + 2) + "|")
    for v in solvers:
        vals = [best(p, v, f) for p in probs]
        print("| %s | " % v + " | ".join("-" if x is None else "%.3g" % x for x in vals) + " | %s |" %
              fit([(size[p][0], x) for p, x in zip(probs, vals)]))
PY
fi

# ---------------------------------------------------------------- 4: threads
if want threads; then
  t=$(now)
  d=$out/threads
  mkdir -p "$d"
  [ -s "$d/stack$thr_k.h5" ] || run "gen-threads" "$mcb" gen stack --nx "$thr_k" --ny "$thr_k" --nz "$thr_k" --steps 1 -o "$d/stack$thr_k.h5"
  sv=pgs,pj,subadmm,fadmm,cond,ccp-jacobi,apgd
  for pol in default passive; do
    for k in $(seq 1 "$pairs"); do
      for T in 1 2; do
        rm -f "$d/$pol-t$T-$k".*
        if [ $pol = passive ]; then pre=(env OMP_WAIT_POLICY=PASSIVE); else pre=(env -u OMP_WAIT_POLICY); fi
        run "threads-$pol-t$T-$k" "${pre[@]}" "$mcb" run "$d/stack$thr_k.h5" --solvers "$sv" \
          --iters "$thr_iters" --tol 0 --check-every never --threads "$T" --time-limit 60 -o "$d/$pol-t$T-$k.h5"
        echo "load $(load)" >>"$out/logs/threads-$pol-t$T-$k.log"
      done
    done
  done
  section_times+=("4 threads: $(since "$t") s")
  { grep -E "gen stack .*-o $d/" "$cmds"; grep -E -- "-o $d/(default|passive)-t[12]-1\.h5" "$cmds"
    echo "# ... alternately, $pairs pair(s) of 1 and 2 threads per wait policy"; } | rel | md 4-threads.md
  python3 - "$d" "$pairs" >>"$out/4-threads.md" <<'PY'
import csv, statistics, sys
d, pairs = sys.argv[1], int(sys.argv[2])
def load(p): return {r["solver"]: r for r in csv.DictReader(open(p))}
for pol, name in (("default", "libgomp's default wait policy (what `mcbench run --threads 2` does)"),
                  ("passive", "`OMP_WAIT_POLICY=PASSIVE`")):
    runs = [(load("%s/%s-t1-%d.csv" % (d, pol, k)), load("%s/%s-t2-%d.csv" % (d, pol, k))) for k in range(1, pairs + 1)]
    print("\n%s:\n" % name.capitalize() if name[0] != "`" else "\nWith %s:\n" % name)
    print("| solver | time/iter, 1 thread (ms) | 2 threads (ms) | speed-up, median (min-max over %d pairs) | same iterates at 1 and 2 threads |" % pairs)
    print("|---|---|---|---|---|")
    for v in runs[0][0]:
        it = lambda r: 1e3 * float(r["solve_s"]) / max(int(r["iterations"]), 1)
        t1 = [it(a[v]) for a, _ in runs]; t2 = [it(b[v]) for _, b in runs]
        sp = [x / y for x, y in zip(t1, t2) if y > 0]
        same = all(a[v]["natmap"] == b[v]["natmap"] and a[v]["iterations"] == b[v]["iterations"] for a, b in runs)
        print("| %s | %.3g | %.3g | %.2f (%.2f-%.2f) | %s |" % (v, statistics.median(t1), statistics.median(t2),
              statistics.median(sp), min(sp), max(sp), "yes (final natmap equal)" if same else "**no**"))
PY
fi

# ---------------------------------------------------------------- 5: peers
if want peers; then
  d=$out/peers
  mkdir -p "$d"
  if [ -z "$peers" ]; then
    echo "(mcbench built without Siconos and MuJoCo: no peer to run)" >"$out/5-peers.md"
  else
    t=$(now)
    rm -f "$d"/peers.*
    run peers "$mcb" run "${files[@]}" "${fcl[@]}" "${pglobs[@]}" --solvers "pgs,nncg,nnewton,$peers" \
      "${budget[@]}" --threads 1 -o "$d/peers.h5"
    run report-peers "$mcb" report "$d/peers.h5" -o "$d/report"
    has_mj=0
    [[ $peers == *mujoco_newton* ]] && [ -e "$probs/mujoco-humanoid.h5" ] && has_mj=1
    section_times+=("5 peers: $(since "$t") s")
    grep -E -- "-o $d/|report $d" "$cmds" | rel | md 5-peers.md
    {
      echo "Success (solved / taken; skip: every problem refused):"; echo
      matrix success "$d/peers.csv" "$d/report"; echo
      echo "Median iterations:"; echo
      matrix iters "$d/peers.csv" "$d/report"; echo
      echo "Median time to natmap <= 1e-8 (ms; black-box peers: the whole call, when its answer meets it):"; echo
      matrix t8 "$d/peers.csv" "$d/report"; echo
      echo "Time to 1e-8 against pgs in the same run (median of the paired ratios):"; echo
      matrix r8 "$d/peers.csv" "$d/report"
      if [ $has_mj = 1 ]; then
        echo; echo "On the recorded humanoid, time to 1e-8 against MuJoCo's Newton solver (median of the paired ratios):"; echo
        matrix r8 "$d/peers.csv" "$d/report" "" "" mujoco_newton mujoco-humanoid
      fi
    } >>"$out/5-peers.md"
  fi
fi

# ---------------------------------------------------------------- context, tables.md
{
  echo "| load average at the end (1, 5, 15 min) | $(load) |"
  echo "| wall time of the whole script | $(since "$T0") s ($(IFS=';'; echo "${section_times[*]}" | sed 's/;/, /g')) |"
} >>"$out/context.md"
: >"$out/tables.md"
for f in context.md 1-solvers.md 2-overhead.md 3-setup.md 3-scaling.md 4-threads.md 5-peers.md; do
  [ -e "$out/$f" ] || continue
  { echo "<!-- $f -->"; cat "$out/$f"; echo; } >>"$out/tables.md"
done
echo "performance.sh: tables in $out/tables.md ($(since "$T0") s)" >&2

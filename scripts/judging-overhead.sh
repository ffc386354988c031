#!/usr/bin/env bash
# judging-overhead.sh MCBENCH DIR FILE.h5...: the figures of
# docs/performance.md "Judging overhead and distortion".
#  1. wall time of a default campaign (pgs,pj,subadmm, --iters 100000) over
#     the sum of its runs' setup + solve times;
#  2. per (problem, solver) solved in that campaign: the median reported
#     solve time with default settings against the median of unobserved
#     runs (--check-every never) to the iteration count just reported, the
#     two kinds alternating (a shared machine's load drifts): REPS processes
#     of each kind (default 3), each with --repeat WITHIN (default 1); and
#     the iteration counts against a check at every iteration
#     (--check-every 1);
#  3. the comparison of 2 paired inside one process, robust to the load
#     drifting between processes: `--timing clean --repeat PAIRED` (default
#     9) times each solved run's observed pass (observed_solve_s, what the
#     default settings report for a run timed `observed`) and, right after
#     it, an unobserved rerun to the same iteration count (solve_s). Per
#     (problem, solver) whose runs in 1 were all timed `observed`: the
#     median over the repetitions of observed / unobserved.
set -euo pipefail
mcb=$1 dir=$2; shift 2
mkdir -p "$dir"
rm -f "$dir"/ov.* "$dir"/ov.h5.journal
t0=$(date +%s.%N)
"$mcb" run "$@" -o "$dir/ov.h5" --solvers pgs,pj,subadmm --iters 100000 --time-limit 60 --repeat 3 2>/dev/null
t1=$(date +%s.%N)
rm -f "$dir"/cl.* "$dir"/cl.h5.journal
"$mcb" run "$@" -o "$dir/cl.h5" --solvers pgs,pj,subadmm --iters 100000 --time-limit 60 \
  --timing clean --repeat "${PAIRED:-9}" 2>/dev/null
rm -f "$dir"/ex.* "$dir"/ex.h5.journal
"$mcb" run "$@" -o "$dir/ex.h5" --solvers pgs,pj,subadmm --iters 100000 --time-limit 60 \
  --check-every 1 --timing observed 2>/dev/null
python3 - "$dir" "$(echo "$t1 - $t0" | bc)" "$mcb" "$@" <<'PY'
import csv, statistics, subprocess, sys, os
d, wall, mcb, files = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4:]
rows = list(csv.DictReader(open(f"{d}/ov.csv")))
s = sum(float(r['setup_s']) + float(r['solve_s']) for r in rows)
print(f"campaign: {len(rows)} runs, wall {wall:.2f} s, setup+solve {s:.2f} s, ratio {wall/s:.3f}")
exact = {(r['problem_set'], r['problem'], r['solver']): int(r['iterations'])
         for r in csv.DictReader(open(f"{d}/ex.csv")) if r['status'] == 'solved'}
groups = {}
for r in rows:
    groups.setdefault((r['problem_set'], r['problem'], r['solver']), []).append(r)

def run1(key, extra):
    """One mcbench run of one (problem, solver); its CSV rows."""
    out = f"{d}/pp.h5"
    for f in (out, out[:-3] + ".csv"):
        if os.path.exists(f): os.remove(f)
    subprocess.run([mcb, "run", *files, "-o", out, "--solvers", key[2], "--problems",
                    f"{key[0]}/{key[1]}", "--time-limit", "60", *extra],
                   check=True, stderr=subprocess.DEVNULL)
    return list(csv.DictReader(open(out[:-3] + ".csv")))

nproc, within = int(os.environ.get("REPS", "3")), int(os.environ.get("WITHIN", "1"))
ratios, iterdev = [], []
for key, rs in sorted(groups.items()):
    if not all(r['status'] == 'solved' for r in rs): continue
    # reported (default settings) and unobserved (--check-every never, to the
    # iteration count just reported) runs alternate, 3 of each, so that a
    # change of load on a shared machine hits both alike
    # (REPS processes of each kind, each with --repeat WITHIN: the median is
    # then over REPS x WITHIN runs)
    reps, uns, its, timings = [], [], [], set()
    for _ in range(nproc):
        batch = [o for o in run1(key, ["--iters", "100000", "--repeat", str(within)])
                 if o['status'] == 'solved']
        if not batch: continue
        for o in batch:
            reps.append(float(o['solve_s'])); its.append(int(o['iterations'])); timings.add(o['timing'])
        target = str(int(statistics.median(int(o['iterations']) for o in batch)))
        uns += [float(u['solve_s']) for u in run1(key, ["--iters", target, "--check-every", "never",
                                                         "--timing", "observed", "--repeat",
                                                         str(within)])]
    if not reps: continue
    k = int(statistics.median(its))
    rep, un = statistics.median(reps), statistics.median(uns)
    ratios.append(rep / un if un > 0 else float('nan'))
    if key in exact:  # every run of the campaign and of this comparison
        iterdev += [(int(x) - exact[key]) / exact[key] for x in its + [r['iterations'] for r in rs]]
    print(f"{key[1][:28]:28s} {key[2]:8s} iters {k:6d} (exact {exact.get(key, '-')}) "
          f"reported {rep*1e3:9.3f} ms unobserved {un*1e3:9.3f} ms ratio {ratios[-1]:.3f} "
          f"timing {','.join(sorted(timings))}")
print(f"time ratio reported/unobserved over {len(ratios)} solved pairs: median "
      f"{statistics.median(ratios):.3f}, min {min(ratios):.3f}, max {max(ratios):.3f}; "
      f"within 5%: {sum(abs(x-1) <= 0.05 for x in ratios)} of {len(ratios)}")
print(f"iteration count above the exact first one: max {100*max(iterdev):.2f}%, "
      f"min {100*min(iterdev):.2f}% over {len(iterdev)} runs; within 1%: "
      f"{sum(x <= 0.01 for x in iterdev)}")
# 3: paired in one process
pairs = {}
for r in csv.DictReader(open(f"{d}/cl.csv")):
    if r['status'] == 'solved' and r['timing'] == 'clean' and float(r['solve_s']) > 0:
        pairs.setdefault((r['problem_set'], r['problem'], r['solver']), []).append(
            (float(r['observed_solve_s']) / float(r['solve_s']), float(r['solve_s'])))
med = []
for key, rs in sorted(groups.items()):
    if key not in pairs or not all(r['status'] == 'solved' and r['timing'] == 'observed' for r in rs):
        continue
    q = statistics.median(x for x, _ in pairs[key])
    t = statistics.median(y for _, y in pairs[key])
    med.append((q, t))
    print(f"paired {key[1][:28]:28s} {key[2]:8s} unobserved {t*1e3:9.3f} ms "
          f"observed/unobserved {q:.3f} over {len(pairs[key])} repetitions")
if med:
    qs = [q for q, _ in med]
    long = [q for q, t in med if t >= 1e-3]
    print(f"paired in one process, {len(qs)} (problem, solver) timed observed: median "
          f"{statistics.median(qs):.3f}, min {min(qs):.3f}, max {max(qs):.3f}; within 5%: "
          f"{sum(abs(x-1) <= 0.05 for x in qs)} of {len(qs)} "
          f"({sum(abs(x-1) <= 0.05 for x in long)} of {len(long)} runs of 1 ms or more)")
PY

#!/usr/bin/env python3
"""time-to-tol.py RESULTS.h5 RESULTS.csv: time per iteration and time to natmap 1e-4/1e-6/1e-8 per (set, solver) from
a results file's CSV and traces (h5dump), medians over the set's problems."""
import csv, subprocess, sys, statistics, re
res, csvp = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(csvp)))
def trace(idx):
    out = subprocess.run(["h5dump", "-d", "/runs/%06d/trace" % idx, "-y", "-w", "0", res],
                         capture_output=True, text=True).stdout
    body = out[out.find("DATA {") + 6:]
    nums = [float(x) for x in re.findall(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)", body.split("}")[0])]
    return [nums[i:i + 13] for i in range(0, len(nums) - len(nums) % 13, 13)]
groups = {}
for pos, r in enumerate(rows):  # runs are stored in the CSV's order (docs/results-format.md)
    if r["status"] == "skipped": continue
    t = trace(pos)
    tt = []
    for thr in (1e-4, 1e-6, 1e-8):
        hit = [row[1] for row in t if row[6] <= thr]
        tt.append(hit[0] * 1e3 if hit else None)
    it = int(r["iterations"]); s = float(r["solve_s"])
    g = groups.setdefault((r["problem_set"], r["solver"]), [])
    g.append((s / it * 1e6 if it else float("nan"), tt, r["status"], it))
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None
print("| set | solver | solved | median iterations | time/iter (us) | to 1e-4 (ms) | to 1e-6 (ms) | to 1e-8 (ms) |")
print("|---|---|---|---|---|---|---|---|")
for (st, sv), g in groups.items():
    n = len(g)
    cells = []
    for k in range(3):
        vals = [x[1][k] for x in g]
        m = med(vals); c = sum(v is not None for v in vals)
        cells.append("-" if m is None else "%.3g (%d/%d)" % (m, c, n))
    print("| %s | %s | %d/%d | %g | %.3g | %s |" % (st, sv, sum(x[2] == "solved" for x in g), n,
          statistics.median([x[3] for x in g]), statistics.median([x[0] for x in g]), " | ".join(cells)))

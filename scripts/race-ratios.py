#!/usr/bin/env python3
"""race.py RESULTS.h5 RESULTS.csv [REF]: per (set, solver) the runs taken (not
skipped), solved, median time to natmap 1e-6 and 1e-8 (ms, from the traces,
over the problems reached), and the median over problems of the paired
ratio t_solver / t_REF (default mujoco_newton) where both reached it.
Problems whose starting point already meets the tolerance (every time 0)
are left out of the times and ratios (counted as trivial)."""
import csv, re, statistics, subprocess, sys
res, csvp = sys.argv[1], sys.argv[2]
ref = sys.argv[3] if len(sys.argv) > 3 else "mujoco_newton"
rows = list(csv.DictReader(open(csvp)))
def trace(idx):
    out = subprocess.run(["h5dump", "-d", "/runs/%06d/trace" % idx, "-y", "-w", "0", res],
                         capture_output=True, text=True).stdout
    body = out[out.find("DATA {") + 6:]
    nums = [float(x) for x in re.findall(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)", body.split("}")[0])]
    return [nums[i:i + 13] for i in range(0, len(nums) - len(nums) % 13, 13)]
T = {}  # (set, problem, solver) -> (t6, t8) in ms or None
order, sets = [], []
for pos, r in enumerate(rows):  # runs are stored in the CSV's order
    if r["solver"] not in order: order.append(r["solver"])
    if r["problem_set"] not in sets: sets.append(r["problem_set"])
    if r["status"] == "skipped": continue
    t = trace(pos)
    T[(r["problem_set"], r["problem"], r["solver"])] = tuple(
        next((row[1] * 1e3 for row in t if row[6] <= thr), None) for thr in (1e-6, 1e-8))
trivial = {(s, p) for (s, p, v), tt in T.items() if tt[1] == 0.0}
def med(x): return "%.3g" % statistics.median(x) if x else "-"
for s in sets:
    probs = sorted({r["problem"] for r in rows if r["problem_set"] == s})
    nt = sum((s, p) in trivial for p in probs)
    print("\n**%s** (%d problems, %d trivial: no impulse needed)\n" % (s, len(probs), nt))
    print("| solver | taken | solved | to 1e-6 (ms) | to 1e-8 (ms) | ratio to %s at 1e-6 | at 1e-8 |" % ref)
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for v in order:
        runs = [r for r in rows if r["problem_set"] == s and r["solver"] == v]
        taken = [r for r in runs if r["status"] != "skipped"]
        if not taken:
            print("| %s | 0 (skipped %d) | - | - | - | - | - |" % (v, len(runs))); continue
        solved = sum(r["status"] == "solved" for r in taken)
        cells = []
        for k in (0, 1):
            ts = [T[(s, r["problem"], v)][k] for r in taken if (s, r["problem"]) not in trivial]
            ts = [x for x in ts if x is not None]
            ratios = []
            for r in taken:
                if (s, r["problem"]) in trivial: continue
                a, b = T[(s, r["problem"], v)][k], T.get((s, r["problem"], ref), (None, None))[k]
                if a is not None and b: ratios.append(a / b)
            cells.append((med(ts) + " (%d)" % len(ts), med(ratios) + " (%d)" % len(ratios)))
        print("| %s | %d | %d | %s | %s | %s | %s |" % (v, len(taken), solved, cells[0][0], cells[1][0],
              cells[0][1], cells[1][1]))

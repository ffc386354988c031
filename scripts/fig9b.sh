#!/usr/bin/env bash
# fig9b.sh MCBENCH DIR: RPIsim Fig. 9b (measured in `git show 5ad3470:docs/performance.md`,
# listed in docs/performance.md "Measurements kept only in the history"): the natural
# merit of the Fischer-Newton iterates on 50 of the 400 steps of the
# 125-sphere stack (every 8th), Stewart-Trinkle's LCP (--formulation lcp-st,
# n_d = 8), one check per iteration. Writes DIR/f9b.h5 (and .csv), the
# per-iteration own residuals DIR/f9b-SOLVER.dat (one block per step), the
# table of percentiles on stdout and the plot DIR/fig9b.svg.
set -euo pipefail
mcb=$1 dir=$2
mkdir -p "$dir"
[ -s "$dir/st400.h5" ] || "$mcb" gen stack --steps 400 -o "$dir/st400.h5"
P=()
for k in $(seq 0 8 392); do P+=(--problems "$(printf 'stack-5x5x5-step%04d' "$k")"); done
rm -f "$dir"/f9b.h5 "$dir"/f9b.csv "$dir"/f9b.h5.journal
"$mcb" run "$dir/st400.h5" "${P[@]}" --formulation lcp-st --friction-directions 8 \
  --solvers fischer-newton,minmap-newton --check-every 1 --iters 40 --tol 0 \
  --time-limit 60 --threads 1 -o "$dir/f9b.h5" 2>/dev/null
python3 - "$dir" <<'PY'
import csv, re, subprocess, sys, statistics
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/f9b.csv")))
curves = {}
for pos, r in enumerate(rows):          # runs are stored in the CSV's order
    out = subprocess.run(["h5dump", "-d", "/runs/%06d/trace" % pos, "-y", "-w", "0", f"{d}/f9b.h5"],
                         capture_output=True, text=True).stdout
    body = out[out.find("DATA {") + 6:].split("}")[0]
    nums = [float(x) for x in re.findall(r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)", body)]
    t = [nums[i:i + 13] for i in range(0, len(nums) - len(nums) % 13, 13)]
    curves.setdefault(r["solver"], []).append([(int(x[0]), x[12]) for x in t if x[0] >= 1])
for sv, cs in curves.items():
    with open(f"{d}/f9b-{sv}.dat", "w") as f:
        for c in cs:
            for it, own in c: f.write(f"{it} {own:.6e}\n")
            f.write("\n\n")
    print(f"\n{sv}: own residual (FB norm for fischer-newton, natural merit for minmap-newton), {len(cs)} steps\n")
    print("| iteration | median | 90th pct | max | at <= 1e-10 |\n|---|---|---|---|---|")
    for it in (1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 25, 30, 40):
        v = []
        for c in cs:
            past = [own for i, own in c if i <= it]
            v.append(past[-1] if past else float("nan"))  # a finished run keeps its last value
        v.sort()
        q90 = v[min(len(v) - 1, int(0.9 * len(v)))]
        print(f"| {it} | {statistics.median(v):.1e} | {q90:.1e} | {v[-1]:.1e} | {sum(x <= 1e-10 for x in v)}/{len(v)} |")
PY
gnuplot <<GP
set terminal svg size 900,520 noenhanced font 'Sans,12'
set output '$dir/fig9b.svg'
set logscale y
set format y '1e%T'
set xlabel 'Newton iteration'
set ylabel '||phi_FB|| of the LCP (Fischer-Newton)'
set title 'Fischer-Newton on 50 of 400 steps of the 125-sphere stack (lcp-st, n_d = 8)'
set yrange [1e-16:1e2]
set grid
plot '$dir/f9b-fischer-newton.dat' using 1:2 with lines lc rgb '#80336699' notitle
GP
echo "plot: $dir/fig9b.svg"

#!/usr/bin/env bash
# lu-compare.sh MCBENCH OUTDIR SOLVERS FILE.h5...: the figures of
# docs/performance.md "KLU against UMFPACK (the lu parameter)".
# Runs the same campaign (SOLVERS, comma-separated, each given
# --param SOLVER.lu=0 or =1; --iters 2000 --tol 1e-8 --time-limit 30
# --threads 1 --describe never; extra `mcbench run` options in $LU_RUN_OPTS)
# with KLU (lu=0) and UMFPACK (lu=1), alternated REPS times (default 2; a
# shared machine's load drifts), into OUTDIR/lu{0,1}-{1..REPS}.h5, then
# prints per (problem file, solver) and repetition: the statuses of both
# (solved by each), and over the problems both solved (or both stopped with
# the same status after the same number of iterations: a fixed iteration
# budget with --tol 0) the summed setup and solve times of each and their
# ratios UMFPACK / KLU (above 1: KLU faster). With `mcbench run --repeat R`
# in $LU_RUN_OPTS each run's time is its fastest repetition's.
# LU_SUMMARY_ONLY=1: no runs, only the table from OUTDIR's CSV files.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 MCBENCH OUTDIR SOLVERS FILE.h5..." >&2
  exit 2
fi
mcb=$1 out=$2 solvers=$3
shift 3
reps=${REPS:-2}
mkdir -p "$out"
for rep in $(seq 1 "$reps"); do
  [ "${LU_SUMMARY_ONLY:-0}" = 1 ] && break
  for lu in 0 1; do
    prm=()
    for s in ${solvers//,/ }; do prm+=(--param "$s.lu=$lu"); done
    # shellcheck disable=SC2086
    "$mcb" run "$@" --solvers "$solvers" "${prm[@]}" --iters 2000 --tol 1e-8 --time-limit 30 \
      --threads 1 --describe never ${LU_RUN_OPTS:-} -o "$out/lu$lu-$rep.h5" > "$out/lu$lu-$rep.log" 2>&1
    echo "lu-compare: repetition $rep, lu=$lu done" >&2
  done
done
python3 - "$out" "$reps" <<'EOF'
import csv, sys
out, reps = sys.argv[1], int(sys.argv[2])
def load(lu, rep):  # the fastest repetition of each run
    d = {}
    for r in csv.DictReader(open("%s/lu%d-%d.csv" % (out, lu, rep))):
        k = (r["problem_set"], r["problem"], r["solver"])
        if k not in d or float(r["solve_s"]) < float(d[k]["solve_s"]): d[k] = r
    return d
def same(x, y):
    return x["status"] == y["status"] and (x["status"] == "solved" or
                                          x["iterations"] == y["iterations"])
runs = {(lu, rep): load(lu, rep) for lu in (0, 1) for rep in range(1, reps + 1)}
keys = list(runs[(0, 1)])
groups = []
for k in keys:
    if (k[0], k[2]) not in groups: groups.append((k[0], k[2]))
print("| problems | solver | rep | solved KLU / UMFPACK | compared | setup KLU, UMFPACK (s) | "
      "ratio | solve KLU, UMFPACK (s) | ratio |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for ps, sv in groups:
    ks = [k for k in keys if k[0] == ps and k[2] == sv]
    for rep in range(1, reps + 1):
        a, b = runs[(0, rep)], runs[(1, rep)]
        both = [k for k in ks if k in b and same(a[k], b[k])]
        na = sum(a[k]["status"] == "solved" for k in ks)
        nb = sum(k in b and b[k]["status"] == "solved" for k in ks)
        su = [sum(float(r[k]["setup_s"]) for k in both) for r in (a, b)]
        so = [sum(float(r[k]["solve_s"]) for k in both) for r in (a, b)]
        rat = lambda x: "%.2f" % (x[1] / x[0]) if x[0] > 0 else "-"
        print("| %s (%d) | %s | %d | %d / %d | %d | %.3g, %.3g | %s | %.3g, %.3g | %s |" % (
            ps, len(ks), sv, rep, na, nb, len(both), su[0], su[1], rat(su), so[0], so[1],
            rat(so)))
EOF

#!/usr/bin/env bash
# throughput-model.sh: the throughput model of docs/scale-out.md. Simulates a
# campaign of RUNS runs whose times are drawn (fixed seed) log-uniformly in
# [TMIN, TMAX] seconds on NODES nodes of CORES cores, run
#   - as a job array of SHARDS static shards (mcbench run --shard): runs of
#     equal estimated cost are dealt round-robin (what --shard does when the
#     problems have one size: its cost estimate is the problem's size, blind
#     to iteration counts); SLURM starts the next shard on the first free
#     core; every shard pays the scheduler's turnover and mcbench's start
#     (reading every input file), then the merge job runs;
#   - as one MPI job (mcbench run --mpi): rank 0 hands out runs one at a time
#     to the NODES*CORES-1 other ranks, each run paying the hand-out cost,
#     and rank 0 handing out (and recording) at most one run per O_MPI.
# Prints for each the makespan (submission to results) and the node-hours
# billed: an array task holds its core only while it runs, so idle cores at
# the end of an unbalanced array go back to the cluster; an MPI job holds all
# its cores until its last run ends. Runs per node-hour = RUNS / billed
# node-hours; efficiency = solver work / billed core time. The constants are
# the measurements of docs/scale-out.md (environment overrides them). This is
# a model, not a measurement.
set -euo pipefail
usage() {
  cat <<EOF
usage: scripts/slurm/throughput-model.sh RUNS TMIN TMAX NODES CORES SHARDS...
  e.g. scripts/slurm/throughput-model.sh 100000 0.03 30 4 64 256 1024 4096
constants (environment, seconds): O_SCHED=2.7 per array task, O_START=1.2 per
mcbench start, O_RUN=0.0003 per run, O_MPI=0.00025 per run handed out,
MERGE=0.0007 per run merged
EOF
}
[ "${1:-}" = -h ] || [ "${1:-}" = --help ] && { usage; exit 0; }
[ $# -ge 6 ] || { usage >&2; exit 2; }
runs=$1 tmin=$2 tmax=$3 nodes=$4 cores=$5
shift 5
awk -v runs="$runs" -v tmin="$tmin" -v tmax="$tmax" -v nodes="$nodes" -v cores="$cores" \
    -v shards="$*" -v osched="${O_SCHED:-2.7}" -v ostart="${O_START:-1.2}" \
    -v orun="${O_RUN:-0.0003}" -v ompi="${O_MPI:-0.00025}" -v merge="${MERGE:-0.0007}" '
function report(what, span, billed) { # seconds, core-seconds
  printf "%-30s %9.0f s %9.2f node-h %9.0f runs/node-h %6.1f%%\n",
         what, span, billed / cores / 3600, runs / (billed / cores / 3600), 100 * work / billed
}
BEGIN {
  if (runs < 1 || tmin <= 0 || tmax < tmin || nodes < 1 || cores < 1) { print "bad arguments" > "/dev/stderr"; exit 2 }
  srand(1); lr = log(tmax / tmin); work = 0
  for (i = 0; i < runs; i++) { t[i] = tmin * exp(lr * rand()); work += t[i] }
  slots = nodes * cores; ideal = work / slots
  printf "%d runs, log-uniform %g..%g s (mean %.3g s, %.1f core-h), %d nodes x %d cores\n",
         runs, tmin, tmax, work / runs, work / 3600, nodes, cores
  printf "%-30s %11s %16s %21s %6s\n", "", "makespan", "billed", "throughput", "eff."
  report("ideal (no overhead)", ideal, work)
  ns = split(shards, S, " ")
  for (k = 1; k <= ns; k++) {
    s = S[k] + 0
    if (s < 1) continue
    for (j = 0; j < s; j++) len[j] = ostart
    for (i = 0; i < runs; i++) len[i % s] += t[i] + orun
    for (c = 0; c < slots; c++) free_at[c] = 0
    span = 0; billed = 0
    for (j = 0; j < s; j++) {       # next shard on the first free core
      billed += len[j]
      best = 0
      for (c = 1; c < slots; c++) if (free_at[c] < free_at[best]) best = c
      free_at[best] += osched + len[j]
      if (free_at[best] > span) span = free_at[best]
    }
    report(sprintf("array, %d shards + merge", s), span + osched + ostart + merge * runs,
           billed + ostart + merge * runs)
    delete len
  }
  if (slots >= 2) {
    for (c = 0; c < slots - 1; c++) free_at[c] = 0
    span = 0; last = -ompi
    for (i = 0; i < runs; i++) {    # next run to the first free worker
      best = 0
      for (c = 1; c < slots - 1; c++) if (free_at[c] < free_at[best]) best = c
      start = free_at[best] > last + ompi ? free_at[best] : last + ompi
      last = start
      free_at[best] = start + t[i] + orun + ompi
      if (free_at[best] > span) span = free_at[best]
    }
    report("MPI job (rank 0 hands out)", osched + ostart + span, slots * (ostart + span))
  }
}'

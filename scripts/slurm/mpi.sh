#!/usr/bin/env bash
# mpi.sh MCBENCH DIR REPORT MPIRUN RUN-ARGS...: the single job that
# scripts/slurm/campaign.sh --mpi submits. Runs
#   MPIRUN mcbench run RUN-ARGS... --mpi -o DIR/all.h5
# over the job's tasks: rank 0 hands out runs one at a time and writes the
# results, the other ranks solve, so runs of very different lengths keep
# every rank busy (no static shards, no merge). When DIR/all.h5 or its
# journal exists (the job was requeued, timed out, or resubmitted with
# campaign.sh --resume) it resumes with --resume DIR/all.h5 instead.
# MPIRUN is split into words (default mpirun; e.g. "srun --mpi=pmix").
# With REPORT=1, mcbench report DIR/all.h5 -o DIR/report follows.
set -euo pipefail
[ $# -ge 5 ] || { echo "mpi.sh: usage: mpi.sh MCBENCH DIR REPORT(0|1) MPIRUN RUN-ARGS... (submitted by campaign.sh --mpi)" >&2; exit 2; }
mcb=$1 dir=$2 report=$3
read -ra launcher <<<"$4"
shift 4
[ ${#launcher[@]} -gt 0 ] || { echo "mpi.sh: empty MPI launcher" >&2; exit 2; }
command -v "${launcher[0]}" >/dev/null || { echo "mpi.sh: MPI launcher '${launcher[0]}' not found on $(hostname)" >&2; exit 1; }
out=$dir/all.h5
echo "mpi.sh: ${SLURM_NTASKS:-?} tasks on ${SLURM_JOB_NODELIST:-$(hostname)}, job ${SLURM_JOB_ID:-?}, restart ${SLURM_RESTART_COUNT:-0}, $(date -Is)"
if [ -e "$out" ] || [ -e "$out.journal" ]; then
  echo "mpi.sh: $out or its journal exists: resuming it"
  "${launcher[@]}" "$mcb" run "$@" --mpi --resume "$out"
else
  "${launcher[@]}" "$mcb" run "$@" --mpi -o "$out"
fi
if [ "$report" = 1 ]; then
  "$mcb" report "$out" -o "$dir/report"
fi
echo "mpi.sh: done, $(date -Is)"

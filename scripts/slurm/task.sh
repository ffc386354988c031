#!/usr/bin/env bash
# task.sh MCBENCH DIR NTASKS RUN-ARGS...: one task of the job array that
# scripts/slurm/campaign.sh submits. Task k (SLURM_ARRAY_TASK_ID) runs shard
# k of NTASKS into DIR/part-k.h5. mcbench appends every finished run to
# DIR/part-k.h5.journal at once and writes the part itself at the end; when
# either exists (the task was requeued after a node failure or preemption,
# killed at its time limit, or the campaign was resubmitted with campaign.sh
# --resume), the task resumes the part: recorded runs are kept, the rest run.
# NTASKS is passed rather than read from SLURM_ARRAY_TASK_COUNT, which is
# wrong when a single task is resubmitted (--array=7).
set -euo pipefail
[ $# -ge 4 ] || { echo "task.sh: usage: task.sh MCBENCH DIR NTASKS RUN-ARGS... (submitted by campaign.sh)" >&2; exit 2; }
mcb=$1 dir=$2 n=$3
shift 3
k=${SLURM_ARRAY_TASK_ID:-}
[[ $k =~ ^[0-9]+$ ]] || { echo "task.sh: SLURM_ARRAY_TASK_ID is not set: this runs as a task of the array campaign.sh submits" >&2; exit 2; }
[ "$k" -lt "$n" ] || { echo "task.sh: task $k is outside the campaign's $n shards" >&2; exit 2; }
part=$dir/part-$k.h5
echo "task.sh: shard $k/$n on $(hostname), job ${SLURM_ARRAY_JOB_ID:-?}_$k, restart ${SLURM_RESTART_COUNT:-0}, $(date -Is)"
if [ -e "$part" ] || [ -e "$part.journal" ]; then
  echo "task.sh: $part or its journal exists: resuming it"
  exec "$mcb" run "$@" --shard "$k/$n" --resume "$part"
fi
exec "$mcb" run "$@" --shard "$k/$n" -o "$part"

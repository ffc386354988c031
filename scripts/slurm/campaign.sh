#!/usr/bin/env bash
# campaign.sh: an mcbench campaign as a SLURM job array plus a dependent merge
# job. Task k of the array runs
#   mcbench run FILES... [run options] --shard k/N -o DIR/part-k.h5
# or, when DIR/part-k.h5 or its journal DIR/part-k.h5.journal exists (a
# requeued, timed-out or resubmitted task),
#   mcbench run FILES... [run options] --shard k/N --resume DIR/part-k.h5
# and the merge job, which starts only when every task succeeded, runs
#   mcbench merge DIR/part-0.h5 ... DIR/part-(N-1).h5 -o DIR/all.h5
# (and mcbench report DIR/all.h5 -o DIR/report with --report).
# With --mpi, one job of N MPI tasks instead runs
#   mpirun mcbench run FILES... [run options] --mpi -o DIR/all.h5
# which hands out runs dynamically (no shards, no merge).
# The job bodies are scripts/slurm/task.sh, merge.sh and mpi.sh.
# See docs/scale-out.md.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
prog=campaign.sh

usage() {
  cat <<EOF
usage: scripts/slurm/campaign.sh -n TASKS -d DIR [options] -- FILE.h5... [mcbench run options]
Submits an mcbench campaign to SLURM: a job array of TASKS tasks, task k
running 'mcbench run FILE.h5... [options] --shard k/TASKS -o DIR/part-k.h5'
(with '--resume DIR/part-k.h5' instead of -o when that part or its journal
exists, so a requeued task continues its part), and a merge job, submitted with
--dependency=afterok on the array, running 'mcbench merge DIR/part-*.h5 -o
DIR/all.h5' (which writes DIR/all.h5 and DIR/all.csv). If a task fails the
merge job is cancelled (--kill-on-invalid-dep=yes).
With --mpi: one job of TASKS MPI tasks running 'mpirun mcbench run FILE.h5...
[options] --mpi -o DIR/all.h5' (rank 0 hands out runs one by one and writes
the results, the others solve: no static shards, no merge job).
Everything after -- goes to 'mcbench run' unchanged, except -o, --csv,
--shard, --resume and --mpi, which this script sets.
  -n, --tasks N        number of array tasks (shards), 1..100000; with --mpi,
                       the number of MPI tasks (N-1 of them solve)
  -d, --dir DIR        output directory (created); logs go to DIR/logs
  --mcbench PATH       mcbench binary, at a path every compute node sees
                       (default: build/mcbench of this checkout, else mcbench on PATH)
  --time T             time limit of each task, sbatch syntax (default 1:00:00);
                       with --mpi, of the whole job
  --cpus C             CPUs per task (default 1; give mcbench '--threads C' to use them)
  --mem M              memory per task, sbatch syntax (default 2G); with --mpi,
                       per CPU (--mem-per-cpu)
  --merge-time T       time limit of the merge job (default 1:00:00)
  --merge-mem M        memory of the merge job (default 2G; mcbench merge holds
                       about 1.3 MB per part: 99 000 runs in 100 parts, 132 MB)
  --mpi                one MPI job instead of an array and a merge job
  --mpirun CMD         MPI launcher for --mpi, split into words (default mpirun;
                       e.g. "srun --mpi=pmix")
  --max-running K      at most K tasks running at once (--array=...%K)
  --report             after the merge, mcbench report DIR/all.h5 -o DIR/report
  --resume             DIR holds parts of this same campaign (killed, cancelled,
                       timed out): resubmit every task; each resumes its part.
                       The earlier jobs must have ended (squeue): two tasks must
                       never write one part
  --sbatch-arg ARG     extra argument for both sbatch calls (repeatable), e.g.
                       --sbatch-arg=--partition=long --sbatch-arg=--account=me
  --dry-run            print the two sbatch commands, submit nothing
  -h, --help           this help
On success prints 'array JOBID' and 'merge JOBID' (with --mpi: 'mpi JOBID')
on standard output.
Exit codes: 0 submitted, 2 bad arguments, 1 sbatch failed.
EOF
}
die() { echo "$prog: $*" >&2; exit 2; }
need() { [ $# -ge 2 ] && [ -n "$2" ] || die "option $1 needs a value (see --help)"; }

tasks='' dir='' mcb='' time=1:00:00 cpus=1 mem=2G mtime=1:00:00 mmem=2G maxrun=''
report=0 resume=0 dry=0 mpi=0 mpirun=mpirun extra=()
while [ $# -gt 0 ]; do
  case $1 in
    -h|--help) usage; exit 0 ;;
    -n|--tasks) need "$@"; tasks=$2; shift 2 ;;
    -d|--dir) need "$@"; dir=$2; shift 2 ;;
    --mcbench) need "$@"; mcb=$2; shift 2 ;;
    --time) need "$@"; time=$2; shift 2 ;;
    --cpus) need "$@"; cpus=$2; shift 2 ;;
    --mem) need "$@"; mem=$2; shift 2 ;;
    --merge-time) need "$@"; mtime=$2; shift 2 ;;
    --merge-mem) need "$@"; mmem=$2; shift 2 ;;
    --max-running) need "$@"; maxrun=$2; shift 2 ;;
    --mpirun) need "$@"; mpirun=$2; shift 2 ;;
    --mpi) mpi=1; shift ;;
    --sbatch-arg) need "$@"; extra+=("$2"); shift 2 ;;
    --sbatch-arg=*) extra+=("${1#--sbatch-arg=}"); shift ;;
    --report) report=1; shift ;;
    --resume) resume=1; shift ;;
    --dry-run) dry=1; shift ;;
    --) shift; break ;;
    *) die "unknown option '$1' (mcbench run arguments go after --; see --help)" ;;
  esac
done
runargs=("$@")

posint() { [[ $2 =~ ^[1-9][0-9]{0,5}$ ]] || die "$1 must be a positive integer, not '$2'"; }
[ -n "$tasks" ] || die "missing -n TASKS (see --help)"
posint "-n" "$tasks"
[ "$tasks" -le 100000 ] || die "-n $tasks: at most 100000 tasks (SLURM's MaxArraySize is usually lower)"
posint "--cpus" "$cpus"
[ -z "$maxrun" ] || posint "--max-running" "$maxrun"
[ -z "$maxrun" ] || [ "$mpi" = 0 ] || die "--max-running is for job arrays, not --mpi"
[ -n "${mpirun// /}" ] || die "--mpirun is empty"
[ -n "$dir" ] || die "missing -d DIR (see --help)"
[ ${#runargs[@]} -gt 0 ] || die "no problem files: give them after -- (see --help)"
nfiles=0
for a in "${runargs[@]}"; do
  case $a in
    -o|--output|--csv|--csv=*|--shard|--shard=*|--resume|--resume=*|--mpi)
      die "'$a' is set by this script for each task; leave it out of the mcbench run arguments" ;;
    -*) ;;
    *.h5|*.hdf5) [ -f "$a" ] && [ -r "$a" ] || die "problem file '$a' does not exist or cannot be read"
                 nfiles=$((nfiles+1)) ;;
  esac
done
[ "$nfiles" -gt 0 ] || die "no problem file (*.h5) among the mcbench run arguments"

if [ -z "$mcb" ]; then
  if [ -x "$here/../../build/mcbench" ]; then mcb=$here/../../build/mcbench
  else mcb=$(command -v mcbench) || die "no mcbench binary: build it or give --mcbench PATH"; fi
fi
[ -x "$mcb" ] && [ ! -d "$mcb" ] || die "--mcbench '$mcb' is not an executable file"
mcb=$(cd "$(dirname "$mcb")" && pwd)/$(basename "$mcb")
if [ "$cpus" -gt 1 ]; then
  case " ${runargs[*]} " in *" --threads "*) ;;
    *) echo "$prog: note: --cpus $cpus but no --threads in the run options: mcbench uses 1 thread per run" >&2 ;;
  esac
fi
command -v sbatch >/dev/null || { echo "$prog: sbatch not found: run this on a SLURM submit host (with SLURM's commands on PATH)" >&2; exit 1; }
if [ "$mpi" = 0 ] && [ "$dry" = 0 ]; then
  # array indices run 0..MaxArraySize-1 (1001 by default)
  maxarr=$(scontrol show config 2>/dev/null | awk '$1 == "MaxArraySize" {print $3}') || true
  if [[ $maxarr =~ ^[0-9]+$ ]] && [ "$tasks" -gt "$maxarr" ]; then
    die "-n $tasks: this cluster's MaxArraySize is $maxarr; use at most $maxarr tasks (more runs per shard), --mpi, or ask for a larger MaxArraySize"
  fi
fi

if [ "$dry" = 0 ]; then
  mkdir -p "$dir/logs" || die "cannot create '$dir/logs'"
fi
[ ! -e "$dir" ] || [ -d "$dir" ] || die "'$dir' exists and is not a directory"
dir=$( (cd "$dir" 2>/dev/null && pwd) || echo "$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")")
shopt -s nullglob
old=("$dir"/part-*.h5 "$dir"/part-*.h5.journal)
shopt -u nullglob
[ ! -e "$dir/all.h5" ] || old+=("$dir/all.h5")
[ ! -e "$dir/all.h5.journal" ] || old+=("$dir/all.h5.journal")
if [ "$resume" = 0 ] && [ ${#old[@]} -gt 0 ]; then
  die "$dir already holds results (${old[0]##*/}...): give --resume to continue that campaign, or choose another directory"
fi
if [ "$resume" = 1 ] && [ "$mpi" = 0 ] && [ -e "$dir/all.h5" ]; then
  die "$dir/all.h5 exists: that campaign is complete (move it away to merge again)"
fi

arr=(sbatch --parsable --job-name=mcb-run --array="0-$((tasks-1))${maxrun:+%$maxrun}"
     --time="$time" --cpus-per-task="$cpus" --mem="$mem" --requeue --open-mode=append
     --output="$dir/logs/task-%a.out" --chdir="$PWD" ${extra[@]+"${extra[@]}"}
     "$here/task.sh" "$mcb" "$dir" "$tasks" "${runargs[@]}")
mrg=(sbatch --parsable --job-name=mcb-merge --kill-on-invalid-dep=yes
     --time="$mtime" --cpus-per-task=1 --mem="$mmem" --open-mode=append
     --output="$dir/logs/merge.out" --chdir="$PWD" ${extra[@]+"${extra[@]}"}
     "$here/merge.sh" "$mcb" "$dir" "$tasks" "$report")
if [ "$mpi" = 1 ]; then
  job=(sbatch --parsable --job-name=mcb-mpi --ntasks="$tasks" --cpus-per-task="$cpus"
       --mem-per-cpu="$mem" --time="$time" --requeue --open-mode=append
       --output="$dir/logs/mpi.out" --chdir="$PWD" ${extra[@]+"${extra[@]}"}
       "$here/mpi.sh" "$mcb" "$dir" "$report" "$mpirun" "${runargs[@]}")
  if [ "$dry" = 1 ]; then printf '%q ' "${job[@]}"; echo; exit 0; fi
  out=$("${job[@]}") || { echo "$prog: sbatch of the MPI job failed" >&2; exit 1; }
  jid=${out%%;*}
  [[ $jid =~ ^[0-9]+$ ]] || { echo "$prog: unexpected sbatch output '$out'" >&2; exit 1; }
  {
    echo "submitted $(date -Is) from $PWD: MPI job $jid"
    printf '%q ' "$0" --mpi -n "$tasks" -d "$dir" --mcbench "$mcb" --time "$time" --cpus "$cpus" --mem "$mem" -- "${runargs[@]}"; echo
  } >> "$dir/campaign.txt"
  echo "$prog: MPI job $jid ($tasks tasks, log $dir/logs/mpi.out) -> $dir/all.h5" >&2
  echo "mpi $jid"
  exit 0
fi
if [ "$dry" = 1 ]; then
  printf '%q ' "${arr[@]}"; echo
  printf '%q ' "${mrg[@]:0:2}" "--dependency=afterok:ARRAYJOBID" "${mrg[@]:2}"; echo
  exit 0
fi

# The array is submitted held, so that no task starts before its merge job
# exists; released once both are queued.
out=$("${arr[@]:0:2}" --hold "${arr[@]:2}") || { echo "$prog: sbatch of the job array failed" >&2; exit 1; }
aid=${out%%;*}
[[ $aid =~ ^[0-9]+$ ]] || { echo "$prog: unexpected sbatch output '$out'" >&2; exit 1; }
if ! out=$("${mrg[@]:0:2}" --dependency="afterok:$aid" "${mrg[@]:2}"); then
  echo "$prog: sbatch of the merge job failed; cancelling the array $aid" >&2
  scancel "$aid" || true
  exit 1
fi
mid=${out%%;*}
scontrol release "$aid" || { echo "$prog: scontrol release $aid failed; cancelling $aid and $mid" >&2; scancel "$aid" "$mid" || true; exit 1; }
{
  echo "submitted $(date -Is) from $PWD: array $aid, merge $mid"
  printf '%q ' "$0" -n "$tasks" -d "$dir" --mcbench "$mcb" --time "$time" --cpus "$cpus" --mem "$mem" -- "${runargs[@]}"; echo
} >> "$dir/campaign.txt"
echo "$prog: array job $aid ($tasks tasks, logs $dir/logs/task-K.out), merge job $mid -> $dir/all.h5" >&2
echo "array $aid"
echo "merge $mid"

#!/usr/bin/env bash
# test_slurm.sh MCBENCH [array|mpi]: scripts/slurm/campaign.sh on a real single-node SLURM
# started here, in a temporary directory, on 127.0.0.1 only: munged,
# slurmctld and slurmd (Debian slurm-wlm, munge) with their configuration,
# key, sockets, state, spool, logs and pid files all in that directory. A
# 3-task job array and its dependent merge job are submitted through the
# recipe; the merged runs must equal those of one single-process mcbench run
# of the same campaign (same (problem, solver, rep) rows, statuses,
# iterations, residuals as printed; the timing columns, *_s and 'timing',
# left out). A second campaign of slower runs has one task requeued
# (scontrol requeue) while it runs: it must resume its part from its
# journal, and the merge must again equal a single-process run.
# With 'mpi', the same two campaigns go through campaign.sh --mpi (one job
# of 2 MPI tasks, mpirun ... mcbench run --mpi), the second requeued as a
# whole; skipped when mcbench has no MPI mode or mpirun is missing.
# Exits 77 (skipped) with the reason when SLURM cannot run here (not root,
# binaries missing, a daemon that does not start). Every daemon and job
# process it started is stopped at exit, and the temporary directory removed.
# Bounded: each command has a timeout, and a watchdog ends the test after
# MCB_SLURM_TEST_TIMEOUT seconds (default 420: the single-process reference
# of the 4x4x4 campaign alone takes about 140 s under ASan). KEEP_SLURM_LOGS=DIR keeps a
# copy of the daemons' logs and the campaign directories there.
set -u
[ $# -ge 1 ] && [ $# -le 2 ] && [[ ${2:-array} =~ ^(array|mpi)$ ]] \
  || { echo "usage: test_slurm.sh MCBENCH [array|mpi]" >&2; exit 2; }
mcb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
mode=${2:-array}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
recipe=$root/scripts/slurm/campaign.sh
limit=${MCB_SLURM_TEST_TIMEOUT:-420}
t0=$SECONDS
PATH=$PATH:/usr/sbin:/sbin

d='' watchdog='' conf='' ctld=''
pids=()
log() { echo "test_slurm [$((SECONDS - t0)) s]: $*"; }
skip() { log "SKIPPED: $*"; exit 77; }
fail() { log "FAIL: $*"; exit 1; }
daemon_logs() {
  for f in "$d"/log/*.log "$d"/log/*.out; do [ -s "$f" ] && { echo "--- $f (last 15 lines)"; tail -n 15 "$f"; }; done
}

# Processes that carry our SLURM_CONF in their environment: slurmstepd and
# the job scripts and mcbench under it (none other can name our temporary
# configuration).
our_job_pids() {
  local p
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    case " $$ $BASHPID ${pids[*]} " in *" $p "*) continue ;; esac
    grep -qzxF "SLURM_CONF=$conf" "/proc/$p/environ" 2>/dev/null && echo "$p"
  done
}
cleanup() {
  local rc=$? p i left
  trap - EXIT INT TERM HUP
  [ -n "$watchdog" ] && { kill "$watchdog" 2>/dev/null; wait "$watchdog" 2>/dev/null; }
  # jobs first, while slurmctld is up (at most 5 s for them to end)
  if [ -n "$ctld" ] && kill -0 "$ctld" 2>/dev/null; then
    timeout 10 scancel --quiet --user=root 2>/dev/null
    for _ in $(seq 10); do [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break; sleep 0.5; done
  fi
  # the daemons, by the pids we started them with (slurmd, slurmctld, munged)
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    kill -TERM "${pids[i]}" 2>/dev/null
    for _ in $(seq 50); do kill -0 "${pids[i]}" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "${pids[i]}" 2>/dev/null
    wait "${pids[i]}" 2>/dev/null
  done
  # whatever of them is left: job steps, job scripts, helpers
  if [ -n "$conf" ]; then
    left=$(our_job_pids)
    if [ -n "$left" ]; then
      kill -TERM $left 2>/dev/null; sleep 1
      left=$(our_job_pids); [ -z "$left" ] || kill -KILL $left 2>/dev/null
    fi
  fi
  if [ -n "$d" ]; then
    for f in "$d"/run/*.pid; do
      [ -s "$f" ] || continue
      p=$(cat "$f"); [[ $p =~ ^[0-9]+$ ]] && kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null
    done
    [ "$rc" = 0 ] || [ "$rc" = 77 ] || daemon_logs
    [ -z "${KEEP_SLURM_LOGS:-}" ] || { mkdir -p "$KEEP_SLURM_LOGS" && cp -r "$d/log" "$d"/camp* "$KEEP_SLURM_LOGS"/; }
    rm -rf "$d"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'log "interrupted"; exit 1' INT HUP
trap 'log "FAIL: over the ${limit} s limit (or terminated)"; exit 1' TERM

[ "$(id -u)" = 0 ] || skip "needs root to run slurmctld and slurmd (SlurmUser=root)"
for b in munged slurmctld slurmd sbatch squeue sinfo scontrol scancel timeout; do
  command -v "$b" >/dev/null || skip "$b not found (Debian: apt-get install slurm-wlm munge)"
done
[ -x "$mcb" ] || fail "no mcbench at $1"
if [ "$mode" = mpi ]; then
  [ -z "${MCB_SLURM_MPI_SKIP:-}" ] || skip "$MCB_SLURM_MPI_SKIP"
  command -v mpirun >/dev/null || skip "mpirun not found (Debian: apt-get install openmpi-bin libopenmpi-dev)"
  # Open MPI refuses root without these; its own sockets on the loopback only
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_tcp_if_include=lo
fi

d=$(mktemp -d /tmp/mcb-slurm.XXXXXX) || fail "mktemp"
chmod 711 "$d"
mkdir -p "$d"/{munge,state,spool,log,run,single} && chmod 711 "$d"/munge
( sleep "$limit"; kill -TERM $$ ) </dev/null >/dev/null 2>&1 &
watchdog=$!
deadline() { [ $((SECONDS - t0)) -lt "$limit" ] || fail "over the ${limit} s limit while $1"; }
if [ "$mode" = mpi ]; then # does this mcbench have its MPI mode? (one process, no mpirun)
  timeout 60 "$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps 1 -o "$d/probe.h5" >/dev/null 2>"$d/err" \
    || { cat "$d/err"; fail "mcbench gen"; }
  if ! timeout 60 "$mcb" run "$d/probe.h5" --solvers pgs --iters 5 --mpi -o "$d/probe-r.h5" >/dev/null 2>"$d/err"; then
    grep -q "without Open MPI" "$d/err" && skip "$(cat "$d/err")"
    cat "$d/err"; fail "mcbench run --mpi in one process"
  fi
fi

# --- munge: key, socket, log, pid, seed in $d/munge
head -c 1024 /dev/urandom > "$d/munge/munge.key" && chmod 400 "$d/munge/munge.key"
sock=$d/munge/munge.socket
munged -F --force --socket="$sock" --key-file="$d/munge/munge.key" --log-file="$d/log/munged.log" \
  --pid-file="$d/run/munged.pid" --seed-file="$d/munge/munged.seed" </dev/null >>"$d/log/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$sock" ] && break; kill -0 "${pids[0]}" 2>/dev/null || break; sleep 0.1; done
[ -S "$sock" ] || { daemon_logs; skip "munged did not start"; }

# --- slurm.conf: this machine's CPUs and memory; two free ports on 127.0.0.1
# (cred_expire: also how long a requeued job waits before it may start again,
# 120 s by default; sched_interval: how soon it is then started, 60 s by default)
node=$(slurmd -C 2>/dev/null | head -n 1)
cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$node")
memmb=$(sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p' <<<"$node")
[[ $cpus =~ ^[0-9]+$ ]] && [[ $memmb =~ ^[0-9]+$ ]] || skip "slurmd -C gave no CPUs/RealMemory: '$node'"
hw=${node#NodeName=* }  # CPUs=.. Boards=.. SocketsPerBoard=.. CoresPerSocket=.. ThreadsPerCore=.. RealMemory=..
used_ports() { ss -Hltn 2>/dev/null | awk '{n = split($4, a, ":"); print a[n]}'; }
free_port() {
  local p used
  used=$(used_ports)
  while :; do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    grep -qx "$p" <<<"$used" || [ "$p" = "${1:-}" ] || { echo "$p"; return; }
  done
}
conf=$d/slurm.conf
export SLURM_CONF=$conf
write_conf() {
  cat > "$conf" <<EOF
ClusterName=mcbtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
CommunicationParameters=NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sock,cred_expire=10
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=600
KillWait=5
NodeName=localhost NodeHostname=localhost NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=mcbtest Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
}

# --- slurmctld and slurmd; new ports if a daemon did not get its own
up=0
for attempt in 1 2 3; do
  pc=$(free_port) pd=$(free_port "$pc")
  [ "$pc" != "$pd" ] || continue
  write_conf "$pc" "$pd"
  rm -rf "${d:?}"/state/* "${d:?}"/spool/*
  slurmctld -D -f "$conf" </dev/null >>"$d/log/slurmctld.out" 2>&1 &
  ctld=$!; pids+=("$ctld")
  slurmd -D -N localhost -f "$conf" </dev/null >>"$d/log/slurmd.out" 2>&1 &
  sd=$!; pids+=("$sd")
  for _ in $(seq 60); do
    kill -0 "$ctld" 2>/dev/null && kill -0 "$sd" 2>/dev/null || break
    st=$(timeout 5 sinfo -h -N -n localhost -o %t 2>/dev/null)
    case $st in idle*) up=1; break ;; esac
    sleep 0.5
  done
  [ "$up" = 1 ] && break
  log "attempt $attempt: SLURM did not come up on ports $pc/$pd (node state '${st:-none}'); retrying"
  daemon_logs | tail -n 12
  kill -TERM "$sd" "$ctld" 2>/dev/null; wait "$sd" "$ctld" 2>/dev/null
  pids=("${pids[0]}") ctld=
done
[ "$up" = 1 ] || { daemon_logs; skip "slurmctld/slurmd did not bring the node up (see the logs above)"; }
log "SLURM up: node localhost idle, $cpus CPUs, $memmb MB, ports $pc/$pd on 127.0.0.1"

# --- helpers for campaigns
# submit NAME DIR TASKS RUN-ARGS...: campaign.sh (with the options in copts);
# sets aid and mid (array mode) or jid (mpi mode)
copts=()
submit() {
  local name=$1 dir=$2 n=$3 m=(); shift 3
  [ "$mode" = mpi ] && m=(--mpi)
  timeout 60 "$recipe" ${m[@]+"${m[@]}"} ${copts[@]+"${copts[@]}"} -n "$n" -d "$dir" --mcbench "$mcb" --time 5:00 --mem 500M --merge-mem 500M \
    -- "$@" >"$d/ids" 2>"$d/err" || { cat "$d/err"; fail "campaign.sh did not submit the $name campaign"; }
  if [ "$mode" = mpi ]; then
    jid=$(awk '$1 == "mpi" {print $2}' "$d/ids")
    [[ $jid =~ ^[0-9]+$ ]] || fail "campaign.sh --mpi printed no job id: $(cat "$d/ids" "$d/err")"
    log "$name campaign: MPI job $jid ($n tasks)"
    return
  fi
  aid=$(awk '$1 == "array" {print $2}' "$d/ids") mid=$(awk '$1 == "merge" {print $2}' "$d/ids")
  [[ $aid =~ ^[0-9]+$ ]] && [[ $mid =~ ^[0-9]+$ ]] || fail "campaign.sh printed no job ids: $(cat "$d/ids" "$d/err")"
  log "$name campaign: array $aid ($n tasks), merge $mid"
}
# resumed LOG: the job or task whose log this is was restarted once and
# resumed its results file, keeping at least one run; sets kept
resumed() {
  grep -q "restart 1, " "$1" && grep -q "resuming it" "$1" || { cat "$1"; fail "the requeued job did not resume ($1)"; }
  kept=$(sed -n 's/^mcbench: resuming .*: \([0-9]*\) runs recorded.*/\1/p' "$1")
  [ -n "$kept" ] && [ "$kept" -ge 1 ] || { cat "$1"; fail "the requeued job kept no run of its journal ($1)"; }
}
wait_queue() { # until the queue is empty (bounded)
  local q
  while :; do
    deadline "waiting for the jobs"
    q=$(timeout 10 squeue -h -o '%i %T' 2>&1) || fail "squeue: $q"
    [ -z "$q" ] && break
    sleep 1
  done
}
completed() { # DIR JOB...: each job COMPLETED with exit code 0
  local dir=$1 j info st ec f; shift
  for j in "$@"; do
    info=$(timeout 10 scontrol -o show job "$j" 2>&1)
    st=$(grep -o 'JobState=[A-Z_]*' <<<"$info") ec=$(grep -o ' ExitCode=[0-9:]*' <<<"$info")
    if [ "$st" != JobState=COMPLETED ] || [ "$ec" != " ExitCode=0:0" ]; then
      for f in "$dir"/logs/*.out; do echo "--- $f"; cat "$f"; done
      fail "job $j: ${st:-$info}${ec}"
    fi
  done
}
# The merged runs are the single-process runs: every column of the single
# run's CSV but the timing ones (*_s, and 'timing', how the time was taken)
# and the machine's state during the run (load_avg, cpu_mhz, cpu_max_mhz,
# others_share), rows sorted; residuals as printed (%.6e).
strip() { # CSV HEADER-SOURCE
  awk -F, -v OFS=, 'NR == FNR { if (FNR == 1) for (i = 1; i <= NF; i++) if ($i !~ /_s$/ && $i !~ /^(timing|load_avg|cpu_mhz|cpu_max_mhz|others_share)$/) want[++n] = $i; next }
    FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i
               for (j = 1; j <= n; j++) if (!(want[j] in col)) { print "MISSING COLUMN " want[j]; exit 1 } next }
    { line = ""; for (j = 1; j <= n; j++) line = line (j > 1 ? OFS : "") $(col[want[j]]); print line }' "$2" "$1" | sort
}
same_runs() { # SINGLE.csv MERGED.csv NROWS
  strip "$1" "$1" > "$d/single.rows" || fail "$1: $(head -n 1 "$d/single.rows")"
  strip "$2" "$1" > "$d/merged.rows" || fail "$2: $(head -n 1 "$d/merged.rows")"
  nrows=$(wc -l < "$d/single.rows")
  [ "$nrows" = "$3" ] || fail "the single-process run $1 has $nrows rows, want $3"
  if ! diff "$d/single.rows" "$d/merged.rows" > "$d/diff"; then
    head -n 20 "$d/diff"; fail "the merged runs $2 differ from the single-process run $1"
  fi
}

# --- campaign 1: a small stack, pgs and pj, 3 shards. --check-every 1 makes
# iteration counts independent of the measured cost of a check (with the
# default 'auto' two runs of one problem may differ within the check stride).
runopts=(--solvers pgs,pj --iters 300 --time-limit 20 --check-every 1)
timeout 60 "$mcb" gen stack --nx 2 --ny 2 --nz 2 --steps 3 -o "$d/stack.h5" >/dev/null 2>"$d/err" \
  || { cat "$d/err"; fail "mcbench gen"; }
timeout 120 "$mcb" run "$d/stack.h5" "${runopts[@]}" -o "$d/single/stack.h5" >/dev/null 2>"$d/err" \
  || { cat "$d/err"; fail "single-process mcbench run"; }

# the recipe's own checks, before anything is submitted
expect2() { # name args...: campaign.sh exits 2 with a message
  local name=$1; shift
  timeout 30 "$recipe" "$@" >/dev/null 2>"$d/err"; local rc=$?
  [ "$rc" = 2 ] && [ -s "$d/err" ] || fail "campaign.sh $name: exit $rc, want 2 with a message: $(cat "$d/err")"
}
expect2 no-tasks -d "$d/x" -- "$d/stack.h5"
expect2 zero-tasks -n 0 -d "$d/x" -- "$d/stack.h5"
expect2 no-files -n 3 -d "$d/x" -- --iters 3
expect2 missing-file -n 3 -d "$d/x" -- "$d/nope.h5"
expect2 own-output -n 3 -d "$d/x" -- "$d/stack.h5" -o "$d/x.h5"
expect2 own-shard -n 3 -d "$d/x" -- "$d/stack.h5" --shard 0/2
expect2 over-max-array -n 5000 -d "$d/x" --mcbench "$mcb" -- "$d/stack.h5"
grep -q "MaxArraySize is 1001" "$d/err" || fail "campaign.sh -n 5000: no MaxArraySize message: $(cat "$d/err")"
expect2 unknown -n 3 -d "$d/x" --frobnicate -- "$d/stack.h5"
grep -q "unknown option '--frobnicate'" "$d/err" || fail "campaign.sh: the unknown option is not named: $(cat "$d/err")"
[ ! -e "$d/x" ] || fail "campaign.sh created its directory on a refused command line"
[ -z "$(timeout 10 squeue -h -o %i)" ] || fail "a refused command line submitted jobs"

slow=(--solvers pgs,pj --iters 50000 --tol 0 --check-every never --trace-every 0 --time-limit 60)
if [ "$mode" = mpi ]; then
  # campaign 1 as one MPI job: rank 0 hands out runs, rank 1 solves
  submit first "$d/camp" 2 "$d/stack.h5" "${runopts[@]}"
  wait_queue
  completed "$d/camp" "$jid"
  same_runs "$d/single/stack.csv" "$d/camp/all.csv" 6
  log "MPI job = single run (6 rows)"
  # campaign 2: runs of about 1 s; the job requeued after its first run
  # resumes DIR/all.h5 from its journal
  timeout 60 "$mcb" gen stack --nx 4 --ny 4 --nz 4 --steps 4 -o "$d/big.h5" >/dev/null 2>"$d/err" \
    || { cat "$d/err"; fail "mcbench gen (4x4x4)"; }
  submit requeue "$d/camp2" 2 "$d/big.h5" "${slow[@]}"
  until grep -q '^mcbench: 1/' "$d/camp2/logs/mpi.out" 2>/dev/null; do
    deadline "waiting for the MPI job's first run"; sleep 0.1
  done
  [ ! -e "$d/camp2/all.h5" ] || fail "the MPI job finished before it could be requeued (runs too fast?)"
  timeout 10 scontrol requeue "$jid" 2>"$d/err" || fail "scontrol requeue $jid: $(cat "$d/err")"
  log "requeued MPI job $jid after its first run"
  wait_queue
  log "queue empty"
  completed "$d/camp2" "$jid"
  resumed "$d/camp2/logs/mpi.out"
  timeout 300 "$mcb" run "$d/big.h5" "${slow[@]}" -o "$d/single/big.h5" >/dev/null 2>"$d/err" \
    || { cat "$d/err"; fail "single-process mcbench run (4x4x4)"; }
  same_runs "$d/single/big.csv" "$d/camp2/all.csv" 8
  log "PASS: MPI campaign = single run; requeued MPI job resumed keeping $kept run(s); = single run (8 rows)"
  exit 0
fi

submit first "$d/camp" 3 "$d/stack.h5" "${runopts[@]}"
dep=$(timeout 10 scontrol show job "$mid" | grep -o 'Dependency=[^ ]*')
case $dep in *"afterok:${aid}"*) ;; *) fail "merge job $mid has dependency '$dep', want afterok:$aid" ;; esac
wait_queue
completed "$d/camp" "${aid}_0" "${aid}_1" "${aid}_2" "$mid"
for f in part-0.h5 part-1.h5 part-2.h5 all.h5 all.csv; do
  [ -s "$d/camp/$f" ] || fail "campaign output $f missing"
done
for k in 0 1 2; do
  [ "$(wc -l < "$d/camp/part-$k.csv")" -ge 2 ] || fail "shard $k ran no run"
done
same_runs "$d/single/stack.csv" "$d/camp/all.csv" 6
log "3 shards + merge = single run (6 rows; left out: $(head -n 1 "$d/single/stack.csv" | tr , '\n' | grep -x '.*_s\|timing' | tr '\n' ' '))"
# a second submission into the same directory is refused
expect2 same-dir -n 3 -d "$d/camp" -- "$d/stack.h5" "${runopts[@]}"
# campaign.sh --resume on a campaign whose task 1 never ran (parts 0 and 2
# complete): tasks 0 and 2 keep everything, task 1 runs, the merge follows
mkdir -p "$d/camp3" && cp "$d"/camp/part-[02].* "$d/camp3/"
expect2 parts-without-resume -n 3 -d "$d/camp3" -- "$d/stack.h5" "${runopts[@]}"
copts=(--resume)
submit resume "$d/camp3" 3 "$d/stack.h5" "${runopts[@]}"
copts=()
wait_queue
completed "$d/camp3" "${aid}_0" "${aid}_1" "${aid}_2" "$mid"
for k in 0 2; do
  grep -q "^mcbench: resuming .*: [1-9][0-9]* runs recorded, 0 to run" "$d/camp3/logs/task-$k.out" \
    || { cat "$d/camp3/logs/task-$k.out"; fail "campaign.sh --resume: task $k did not keep its complete part"; }
done
same_runs "$d/single/stack.csv" "$d/camp3/all.csv" 6
log "campaign.sh --resume: complete parts kept, the missing one run, merge = single run"

# --- campaign 2: a task requeued while it runs resumes its part. Runs of
# about 1 s (tolerance 0: a fixed iteration count), 4 per task, 2 tasks.
timeout 60 "$mcb" gen stack --nx 4 --ny 4 --nz 4 --steps 4 -o "$d/big.h5" >/dev/null 2>"$d/err" \
  || { cat "$d/err"; fail "mcbench gen (4x4x4)"; }
submit requeue "$d/camp2" 2 "$d/big.h5" "${slow[@]}"
# once a task has reported its first run (a run is journaled before it is
# reported) and before it wrote its part, requeue it: SLURM kills it
# (SIGTERM) and starts it again
k=''
while [ -z "$k" ]; do
  deadline "waiting for a task's second run"
  for j in 0 1; do
    if grep -q '^mcbench: 1/' "$d/camp2/logs/task-$j.out" 2>/dev/null; then
      [ ! -e "$d/camp2/part-$j.h5" ] || fail "task $j finished before it could be requeued (runs too fast?)"
      k=$j; break
    fi
  done
  [ -n "$k" ] || sleep 0.1
done
timeout 10 scontrol requeue "${aid}_$k" 2>"$d/err" || fail "scontrol requeue ${aid}_$k: $(cat "$d/err")"
log "requeued task $k after its first run"
wait_queue
log "queue empty"
completed "$d/camp2" "${aid}_0" "${aid}_1" "$mid"
resumed "$d/camp2/logs/task-$k.out"
timeout 300 "$mcb" run "$d/big.h5" "${slow[@]}" -o "$d/single/big.h5" >/dev/null 2>"$d/err" \
  || { cat "$d/err"; fail "single-process mcbench run (4x4x4)"; }
same_runs "$d/single/big.csv" "$d/camp2/all.csv" 8
log "PASS: requeued task $k resumed keeping $kept run(s) of its journal; merge = single run (8 rows)"
exit 0

/* machine.h: the machine's state while a run is timed (docs/metrics.md,
 * "The machine's state"): marks taken just before and just after each run
 * give the run's load average, CPU frequency and the other processes'
 * share of the CPUs, stored with the run (mcb_run_rec: load_avg, cpu_mhz,
 * cpu_max_mhz, others_share; NaN where the system does not say). Linux
 * /proc and /sys only; nothing here fails: what cannot be read is NaN. */
#ifndef MCB_MACHINE_H
#define MCB_MACHINE_H

typedef struct {
    double wall_s;    /* CLOCK_MONOTONIC */
    double busy_s;    /* every CPU's busy time from /proc/stat (not idle, not iowait) */
    double own_cpu_s; /* this process's and its waited-for children's CPU time */
    double load1;     /* 1-minute load average (/proc/loadavg) */
    double mhz;       /* the highest scaling_cur_freq over the CPUs, MHz */
} mcb_machine_mark;

typedef struct {
    double load_avg;     /* the larger of the two marks' load1 */
    double cpu_mhz;      /* the smaller of the two marks' mhz */
    double cpu_max_mhz;  /* the highest cpuinfo_max_freq over the CPUs */
    double others_share; /* (busy - own) / (ncpu x wall), clamped to [0, 1] */
} mcb_machine_state;

void mcb_machine_mark_now(mcb_machine_mark *m);
/* The state over [a, b] on ncpu CPUs. */
void mcb_machine_between(const mcb_machine_mark *a, const mcb_machine_mark *b, int ncpu,
                         mcb_machine_state *out);
/* The others' share of busy_s CPU-seconds of which own_s were ours, over
 * ncpu x wall_s; NaN when wall_s or ncpu is not positive or busy_s is NaN. */
double mcb_machine_others_share(double busy_s, double own_s, double wall_s, int ncpu);

#endif

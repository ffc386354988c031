/* loop_stats.h: what the report shows of closed-loop runs (runs with step
 * rows, mcb_vocab.h; docs/closed-loop.md): one solver's runs on one problem
 * set (every instance of the scene and every repetition) reduced to
 *  - per-step curves: at step k, over the runs that have a row k (the runs
 *    still going: a run that failed in the loop leaves after its failing
 *    step), the median of the solver time (setup + solve), of the harness's
 *    stop-metric residual, of the penetration (pen_max), of the engine's
 *    time and of the divergence from the reference (RMS and max), and how
 *    many runs those medians rest on;
 *  - the outcome table's row: runs by status, steps completed of the steps
 *    scheduled, the first failing step, and the trajectory measures over the
 *    runs that completed (NaN, shown "-" as the papers mark it, when none
 *    did): mean solver time per step (SubADMM's AT), mean over the steps of -log10 natmap (its AA),
 *    max penetration, energy gain, divergence, final outcome value and
 *    mean engine time per step.
 * Row k of a run is its step k. Pure: no I/O; the curve's arrays are
 * allocated by mcb_loop_curve_compute and freed by mcb_loop_curve_free. */
#ifndef MCB_LOOP_STATS_H
#define MCB_LOOP_STATS_H

#include "lib/mcb_results.h"

/* The per-step quantities of the curves. */
enum {
    MCB_LQ_TIME = 0, /* setup_s + solve_s */
    MCB_LQ_RES,      /* the stop metric's residual */
    MCB_LQ_PEN,      /* pen_max */
    MCB_LQ_ENGINE,   /* engine_s */
    MCB_LQ_DIV_RMS,  /* div_rms_m */
    MCB_LQ_DIV_MAX,  /* div_max_m */
    MCB_LQ_N
};

typedef struct {
    int nsteps;             /* steps 0 .. nsteps - 1: the longest run's rows */
    int *runs;              /* per step: the runs with a row there */
    double *med[MCB_LQ_N];  /* per step: the median over those runs, NaN values left
                               out (NaN when none is left) */
} mcb_loop_curve;

/* runs: nruns records (those without step rows count nowhere); metric: the
 * stop metric (mcb_metric_id) of MCB_LQ_RES. MCB_E_INPUT on a bad metric,
 * MCB_E_NOMEM; on failure *out holds nothing to free. */
mcb_rc mcb_loop_curve_compute(const mcb_run_rec *const *runs, int nruns, int metric,
                              mcb_loop_curve *out, mcb_err *err);
/* Accepts a zeroed or already freed curve. */
void mcb_loop_curve_free(mcb_loop_curve *c);

/* The step at which a failed-in-loop run failed: its last row's step
 * (0 without rows). */
int mcb_loop_failed_step(const mcb_run_rec *r);

/* The steps scheduled on problem problem_index of set `set`: the steps of
 * its runs that completed (status solved; the most when they differ); -1
 * when none of its runs completed (unknown). */
int mcb_loop_scheduled_steps(const mcb_results_data *D, const char *set, int problem_index);

typedef struct {
    int runs;               /* every run given */
    int completed, failed;  /* status solved, failed-in-loop */
    int other;              /* any other status (crashed, skipped, ...) */
    long steps_done;        /* every step of a completed run; the steps before the
                               failing one of a failed run; none of another */
    long steps_total;       /* the steps scheduled, summed over the runs; -1 when
                               unknown for one of them */
    int first_fail;         /* the earliest failing step (-1: no run failed) */
    int first_fail_run;     /* index into runs[] of the run that failed there (-1) */
    /* over the completed runs; NaN when none completed */
    double at_s;            /* mean solver time per step, setup included (AT) */
    double aa;              /* mean over the steps of -log10 natmap (AA; bigger is better) */
    double pen_max;         /* max over the steps of pen_max */
    double energy_gain_J;   /* max over the runs of the largest energy gain */
    double div_rms_m;       /* RMS over the runs of each run's RMS divergence */
    double div_max_m;       /* max divergence */
    double outcome;         /* median over the runs of the outcome's final value */
    double engine_s;        /* mean engine time per step */
} mcb_loop_row;

/* sched[k]: the steps scheduled for runs[k] (-1: unknown). buf: nruns + 1
 * doubles of scratch. */
void mcb_loop_row_compute(const mcb_run_rec *const *runs, int nruns, const int *sched,
                          double *buf, mcb_loop_row *row);

/* -log10 x, floored at 1e-16 (16 for x <= 1e-16, zero included): the
 * papers' accuracy of a residual x (SubADMM Table I's AA). */
double mcb_neglog10(double x);
/* Adds mcb_neglog10 of metric `metric` (mcb_metric_id) of every step of r
 * to *sum and counts them in *n (NaN entries skipped). */
void mcb_loop_neglog(const mcb_run_rec *r, int metric, double *sum, long *n);

/* 1 when some run of set `set` (NULL: of any set) is a closed-loop run: it
 * has step rows or failed in the loop. */
int mcb_loop_any(const mcb_results_data *D, const char *set);

#endif

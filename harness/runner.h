/* runner.h: the campaign: every problem x solver x repetition under the
 * same budget, judged by the harness's own metrics. */
#ifndef MCB_RUNNER_H
#define MCB_RUNNER_H

#include "metrics.h"
#include "solver.h"

/* Trace columns: iteration, solver time so far, every metric, own residual. */
#define MCB_TRACE_COLS (3 + MCB_NMETRICS)
const char *mcb_trace_column(int k);

typedef struct {
    mcb_settings settings;
    int stop_metric;    /* mcb_metric_id judged against settings.tol */
    int trace_every;    /* full metrics every k-th iteration (0: final only) */
    int repeat;         /* timed repetitions per run */
    int save_solutions; /* keep final (v, lambda) */
    double diverge_bound; /* |lambda| or |v| above this is divergence */
} mcb_campaign_opts;

void mcb_campaign_defaults(mcb_campaign_opts *o);

/* The record of one run. */
typedef struct {
    const char *problem_set; /* borrowed */
    const char *problem;     /* borrowed */
    int problem_index;
    const char *solver;      /* borrowed */
    int rep;
    int n, m, ncontacts;
    mcb_info info;
    mcb_metrics final;
    int trace_rows;
    double *trace;           /* trace_rows x MCB_TRACE_COLS, row-major */
    double *v, *lambda;      /* with save_solutions */
} mcb_run;

void mcb_run_clear(mcb_run *r); /* frees trace and solutions */

/* Runs one solver on one problem once, with the parameters given (NULL:
 * defaults). Never fails for solver reasons: those become statuses in
 * run->info. Returns non-zero only when the harness itself cannot go on
 * (out of memory). `ws` is the problem's metrics workspace. */
mcb_rc mcb_run_one(const mcb_problem *P, mcb_metrics_ws *ws, const mcb_solver_def *def,
                   const void *params, const mcb_campaign_opts *o, mcb_run *run, mcb_err *err);

#endif

/* runner.h: one timed run of one solver on one problem, judged by the
 * harness's own metrics on a schedule that keeps judging cheap and the
 * timing undistorted (docs/metrics.md, "When the harness measures"). */
#ifndef MCB_RUNNER_H
#define MCB_RUNNER_H

#include "metrics/metrics.h"
#include "solvers/solver.h"
#include "lib/mcb_tiers.h"


/* check_every: when the stop metric is checked during a solve. */
enum {
    MCB_CHECK_AUTO = 0,   /* every iteration at first, then at a stride chosen from the
                             measured cost of a check against that of an iteration,
                             never more than 1% of the iterations done so far */
    MCB_CHECK_NEVER = -1  /* only the final iterate is judged (an unobserved run) */
};                        /* k > 0: every k-th iteration */

/* trace_every: which checks also record a trace row (all metrics). */
enum { MCB_TRACE_CHECKS = -1 }; /* at every check (default); 0: final only; k: every k-th */


typedef struct {
    mcb_settings settings;
    int stop_metric;    /* mcb_metric_id judged against settings.tol */
    int law;            /* mcb_law every solution is judged by (--law) */
    int check_every;    /* MCB_CHECK_AUTO, MCB_CHECK_NEVER or k > 0 */
    int trace_every;    /* MCB_TRACE_CHECKS, 0 (final only) or k > 0 */
    int timing;         /* mcb_timing_mode */
    double check_share; /* auto schedule: target cost of the checks over solver time */
    double rerun_share; /* auto timing: rerun when the checks may have added more than
                           this share to the observed solve time */
    int repeat;         /* timed repetitions per run */
    int save_solutions; /* keep final (v, lambda) */
    double diverge_bound; /* |lambda| or |v| above this is divergence */
    int formulation;    /* mcb_formulation_id: the subproblem the solver receives
                           (problems/formulation/formulation.h; MCB_FORM_NCP: P itself) */
    int friction_dirs;  /* n_d of the LCP formulations' polygonal cone */
    int ntiers;         /* accuracy tiers (lib/mcb_tiers.h): the first check meeting each is */
    double tiers[MCB_MAX_TIERS]; /* a trace row, and the schedule aims at each as at tol;
                           coarsest first; 0 tiers (the default here): tol alone */
    int closed_loop;    /* 1: a closed-loop campaign (mcbench simulate; loop.h): recorded in
                           the settings words, so that no replay part merges with it */
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
    int checks;              /* judgements during the solve (stop metric or trace row) */
    double measure_s;        /* harness time spent on them, excluded from solve_s */
    double observed_solve_s; /* solve time of the observed pass */
    int timing;              /* MCB_TIMED_*: where info.solve_s comes from */
    int trace_rows;
    double *trace;           /* trace_rows x MCB_TRACE_COLS, row-major */
    double *v, *lambda;      /* with save_solutions */
    double form_residual;    /* the formulation's own residual at the final iterate
                                (mcb_formulation_residual(); for ncp the natural map of P
                                under its stored law); NaN when not computed */
    int own_status;          /* what the solver's solve() returned (MCB_ST_*; -1: no solve) */
    int own_stop;            /* 1: it ended the solve itself, 0: the harness stopped it
                                (its callback's answer), -1: no solve */
    int step_rows;           /* a closed-loop run (closed_loop.h): its steps */
    double *steps;           /* step_rows x MCB_STEP_COLS */
    int start;               /* where it started, MCB_START_* (set by the campaign) */
} mcb_run;

void mcb_run_clear(mcb_run *r); /* frees trace, solutions and steps */

/* 1 when every entry of (v, lambda) of P (v only for a primal problem) is
 * finite and at most `bound` in magnitude. */
int mcb_iterate_bounded(const mcb_problem *P, const double *v, const double *lambda,
                        double bound);

/* One trace row (MCB_TRACE_COLS): iteration, time, every metric, the
 * solver's own residual. */
void mcb_trace_fill(double *row, int iter, double time_s, const mcb_metrics *mt, double own);

/* A run's fields before a solve of P (its names are the caller's): sizes,
 * no status yet, NaN metrics, no trace, steps or solution. */
void mcb_run_start(const mcb_problem *P, mcb_run *run);

/* 1 when def does not take P (its form, or its accepts_problem), with the
 * reason in reason[len]. */
int mcb_solver_refuses(const mcb_problem *P, const mcb_solver_def *def, char *reason,
                       size_t len);

/* The harness's verdict on a final iterate (v, lambda) of P, the solver's
 * status in run->info.status: DIVERGED when the iterate is not bounded
 * (o->diverge_bound), else SOLVED iff o->stop_metric met o->settings.tol
 * (a solver's SOLVED that missed it becomes STALLED); run->final gets every
 * metric. Used by mcb_run_one and the batch (harness/batch.h). */
void mcb_run_verdict(const mcb_problem *P, mcb_metrics_ws *ws, const mcb_campaign_opts *o,
                     const double *v, const double *lambda, mcb_run *run);

/* Runs one solver on one problem once, with the parameters given (NULL:
 * defaults). With o->formulation other than ncp the solver receives F(P)
 * (built per run, its time counted as setup; a formulation that cannot be
 * built for P, such as mlcp on a dual problem, makes the run skipped with
 * the reason) and every check maps its iterate back to (v, lambda) of P.
 * Never fails for solver reasons: those become statuses in run->info. Returns non-zero only when the harness itself cannot go on
 * (out of memory). `ws` is the problem's metrics workspace. */
mcb_rc mcb_run_one(const mcb_problem *P, mcb_metrics_ws *ws, const mcb_solver_def *def,
                   const void *params, const mcb_campaign_opts *o, mcb_run *run, mcb_err *err);

#endif

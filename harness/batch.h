/* batch.h: one batched solver on n problems in one call (solvers/batch.h),
 * every problem judged by the harness's metrics like any run (runner.h),
 * and the batch's throughput (docs/batch.md). */
#ifndef MCB_HARNESS_BATCH_H
#define MCB_HARNESS_BATCH_H

#include "harness/runner.h"
#include "solvers/batch.h"

/* The default judgement stride of a batch (--check-every auto). */
#define MCB_BATCH_CHECK_EVERY 10

typedef struct {
    int n;             /* problems in the batch */
    int solved;        /* judged MCB_ST_SOLVED (the harness's verdict) */
    double setup_s;    /* the batch's setup call, reported apart */
    double solve_s;    /* the batch's solve time (solvers/batch.h): judging excluded */
    double measure_s;  /* the harness's judgements, summed over problems */
    double throughput; /* solved / solve_s, problems per second (0 when solve_s is 0) */
} mcb_batch_summary;

/* Problems judged solved per second of solver time: the runs whose
 * info.status is MCB_ST_SOLVED over solve_s (0 when solve_s <= 0);
 * *solved gets their count. */
double mcb_batch_throughput(const mcb_run *runs, int n, double solve_s, int *solved);

/* The judgement stride of a batch under o->check_every: K when it is
 * K > 0, MCB_BATCH_CHECK_EVERY under auto; never: max_iters + 1 (the
 * final iterate alone). */
int mcb_batch_check_stride(const mcb_campaign_opts *o);

/* Solves P[0..n-1] with `def` in one setup and one solve call under o's
 * budget (o->settings.threads: the batch's threads; o->formulation must be
 * ncp), judging problem k with ws[k] (one workspace per problem: they are
 * used concurrently) at the stride of mcb_batch_check_stride and at the
 * end, into runs[k] (whose names the caller sets; the rest is filled as
 * mcb_run_one does: status, iterations, final metrics, a trace of the
 * starting point and the final iterate, the solution with
 * o->save_solutions). A problem the solver refuses is skipped, one whose
 * setup fails is setup-failed, and the others go on. runs[k].info.setup_s
 * is the batch's setup time over the problems set up; info.solve_s the
 * problem's own share. Returns non-zero only when the batch cannot go on
 * (out of memory, a formulation other than ncp: MCB_E_INPUT); the runs
 * then hold nothing to free. */
mcb_rc mcb_batch_run(const mcb_problem *const *P, mcb_metrics_ws *const *ws, int n,
                     const mcb_batch_def *def, const void *params, const mcb_campaign_opts *o,
                     mcb_run *runs, mcb_batch_summary *sum, mcb_err *err);

#endif

/* batch.c: a batched solver on n problems in one call, judged per problem
 * (batch.h; docs/batch.md).
 *
 * 1. Refusals: a problem the solver does not take (its form, its
 *    accepts_problem, anisotropic friction without MCB_ACCEPTS_ANISO: the
 *    batch hands the solver the problem itself) is skipped.
 * 2. Setup: one call for all the others, timed (setup time).
 * 3. The starting point judged (in parallel over problems, measurement
 *    time): a problem already meeting the tolerance is solved with 0
 *    iterations and not solved again, as in mcb_run_one.
 * 4. Solve: one call; the batch calls judge() for problem k on the
 *    runner's --check-every schedule, which fetches its iterate and
 *    computes the stop metric (measurement time, excluded from the batch's
 *    solve time by the batched solver, solvers/batch.h).
 * 5. The verdict on every final iterate (mcb_run_verdict), as for any run,
 *    then the throughput: problems judged solved per second of solve time. */
#include "harness/batch.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_timer.h"
#include "problems/formulation/formulation.h"

/* The state the judgements share; entry k is touched by problem k only. */
typedef struct {
    const mcb_problem *const *P;
    mcb_metrics_ws *const *ws;
    const mcb_batch_def *def;
    void *work;
    const mcb_campaign_opts *o;
    int *slot;               /* n: the problem's index in the solver's batch (-1: none) */
    int *orig;               /* n: the problem at each index of the solver's batch */
    double **v, **lambda;    /* n: its iterate, fetched at each judgement */
    mcb_run *runs;
    int *asked;              /* n: the iteration the harness stopped it at (-1: none) */
} judge_ctx;

double mcb_batch_throughput(const mcb_run *runs, int n, double solve_s, int *solved)
{
    int count = 0;
    for (int k = 0; k < n; k++) count += runs[k].info.status == MCB_ST_SOLVED;
    if (solved) *solved = count;
    return solve_s > 0 ? count / solve_s : 0.0;
}

int mcb_batch_check_stride(const mcb_campaign_opts *o)
{
    if (o->check_every > 0) return o->check_every;
    return o->check_every == MCB_CHECK_NEVER ? o->settings.max_iters + 1 : MCB_BATCH_CHECK_EVERY;
}

static void fetch(judge_ctx *c, int k)
{
    c->def->iterate(c->work, c->slot[k], c->v[k], c->lambda[k]);
}

/* The trace row of iteration `iter` with every metric. */
static void trace_row(mcb_run *r, int iter, double time_s, const mcb_metrics *mt, double own)
{
    mcb_trace_fill(r->trace + (size_t)r->trace_rows * MCB_TRACE_COLS, iter, time_s, mt, own);
    r->trace_rows++;
}

/* The judgement after iteration `iter` of the solver's problem j
 * (solvers/batch.h), problem k = orig[j] of the batch. */
static mcb_cb_action judge(void *ctx, int j, int iter, double own)
{
    (void)own;
    judge_ctx *c = ctx;
    int k = c->orig[j];
    double t0 = mcb_now_s();
    fetch(c, k);
    mcb_cb_action a = MCB_CB_CONTINUE;
    if (!mcb_iterate_bounded(c->P[k], c->v[k], c->lambda[k], c->o->diverge_bound))
        a = MCB_CB_DIVERGED;
    else if (mcb_metrics_one(c->ws[k], c->o->stop_metric, c->v[k], c->lambda[k]) <=
             c->o->settings.tol)
        a = MCB_CB_CONVERGED;
    if (a != MCB_CB_CONTINUE) c->asked[k] = iter;
    c->runs[k].checks++;
    c->runs[k].measure_s += mcb_now_s() - t0;
    return a;
}

static void free_ctx(judge_ctx *c, int n)
{
    for (int k = 0; k < n && c->v; k++) free(c->v[k]);
    for (int k = 0; k < n && c->lambda; k++) free(c->lambda[k]);
    free(c->v);
    free(c->lambda);
    free(c->slot);
    free(c->orig);
    free(c->asked);
}

/* Step 1 and the buffers: refusals, each problem's iterate and trace (two
 * rows). Returns the number of problems the solver takes, -1 when out of
 * memory. */
static int prepare(judge_ctx *c, int n, const mcb_problem **taken)
{
    const mcb_solver_def *base = c->def->base;
    int nt = 0;
    for (int k = 0; k < n; k++) {
        mcb_run *r = &c->runs[k];
        mcb_run_start(c->P[k], r);
        mcb_metrics_ws_set_law(c->ws[k], c->o->law);
        c->slot[k] = c->asked[k] = -1;
        c->v[k] = mcb_calloc((size_t)c->P[k]->n + 1, sizeof(double));
        c->lambda[k] = mcb_calloc((size_t)c->P[k]->m + 1, sizeof(double));
        r->trace = mcb_calloc(2 * MCB_TRACE_COLS, sizeof(double));
        if (!c->v[k] || !c->lambda[k] || !r->trace) return -1;
        if (mcb_problem_is_aniso(c->P[k]) && !(base->accepts & MCB_ACCEPTS_ANISO)) {
            r->info.status = MCB_ST_SKIPPED;
            snprintf(r->info.reason, sizeof r->info.reason,
                     "%s does not take anisotropic friction, and a batch hands each solver "
                     "the stored problem", base->name);
        } else if (mcb_solver_refuses(c->P[k], base, r->info.reason, sizeof r->info.reason)) {
            r->info.status = MCB_ST_SKIPPED;
        } else {
            c->slot[k] = nt;
            c->orig[nt] = k;
            taken[nt++] = c->P[k];
        }
    }
    return nt;
}

/* Step 3: the starting points, judged; active[slot] for those that go on. */
static void judge_start(judge_ctx *c, int n, const mcb_info *info, unsigned char *active,
                        double setup_s)
{
    const mcb_campaign_opts *o = c->o;
    int threads = o->settings.threads > 0 ? o->settings.threads : 1;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (int k = 0; k < n; k++) {
        int j = c->slot[k];
        if (j < 0 || info[j].status == MCB_ST_SETUP_FAILED) continue;
        double t0 = mcb_now_s();
        mcb_run *r = &c->runs[k];
        mcb_metrics mt;
        fetch(c, k);
        mcb_metrics_compute(c->ws[k], c->v[k], c->lambda[k], &mt);
        trace_row(r, 0, 0.0, &mt, NAN);
        if (mt.val[o->stop_metric] <= o->settings.tol) {
            r->info.status = MCB_ST_SOLVED;
        } else if (o->settings.time_limit_s > 0 && setup_s >= o->settings.time_limit_s) {
            r->info.status = MCB_ST_TIME_LIMIT;
        } else {
            active[j] = 1;
        }
        r->measure_s += mcb_now_s() - t0;
    }
}

/* Step 5: the solver's word, then the harness's verdict, for problem k. */
static void conclude(judge_ctx *c, int k, const mcb_info *in, const unsigned char *active,
                     double setup_share)
{
    const mcb_campaign_opts *o = c->o;
    mcb_run *r = &c->runs[k];
    int j = c->slot[k];
    if (j < 0) return;
    if (in->status == MCB_ST_SETUP_FAILED) {
        r->info.status = MCB_ST_SETUP_FAILED;
        snprintf(r->info.reason, sizeof r->info.reason, "%s", in->reason);
        return;
    }
    double t0 = mcb_now_s();
    r->info.setup_s = setup_share;
    if (active[j]) {
        r->info.status = in->status;
        r->info.iterations = in->iterations;
        r->info.inner_iterations = in->inner_iterations;
        r->info.own_residual = in->own_residual;
        r->info.solve_s = in->solve_s;
        snprintf(r->info.reason, sizeof r->info.reason, "%s", in->reason);
        r->own_status = in->status;
        r->own_stop = in->status != MCB_ST_TIME_LIMIT && c->asked[k] != in->iterations;
    }
    r->observed_solve_s = r->info.solve_s;
    fetch(c, k);
    mcb_run_verdict(c->P[k], c->ws[k], o, c->v[k], c->lambda[k], r);
    trace_row(r, r->info.iterations, r->info.solve_s, &r->final, r->info.own_residual);
    mcb_metrics_ws_set_law(c->ws[k], MCB_LAW_NCP);
    r->form_residual = mcb_metrics_one(c->ws[k], MCB_M_NATMAP, c->v[k], c->lambda[k]);
    mcb_metrics_ws_set_law(c->ws[k], o->law);
    if (o->save_solutions) {
        r->v = c->v[k];
        r->lambda = c->lambda[k];
        c->v[k] = c->lambda[k] = NULL;
    }
    r->measure_s += mcb_now_s() - t0;
}

static mcb_rc batch_body(judge_ctx *c, int n, const mcb_problem **taken, mcb_info *info,
                         unsigned char *active, mcb_batch_summary *sum, const void *params,
                         mcb_err *err)
{
    const mcb_campaign_opts *o = c->o;
    int nt = prepare(c, n, taken);
    if (nt < 0) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    double t0 = mcb_now_s();
    mcb_rc rc = nt ? c->def->setup(c->def, taken, nt, &o->settings, params, &c->work, info, err)
                   : MCB_OK;
    sum->setup_s = mcb_now_s() - t0;
    if (rc) return rc;
    if (!nt) return MCB_OK;
    judge_start(c, n, info, active, sum->setup_s);
    mcb_batch_settings bs = {o->settings, mcb_batch_check_stride(o), sum->setup_s};
    rc = c->def->solve(c->work, &bs, active, judge, c, info, &sum->solve_s);
    if (rc) return rc;
    int threads = o->settings.threads > 0 ? o->settings.threads : 1;
    int ok = 0;
    for (int j = 0; j < nt; j++) ok += info[j].status != MCB_ST_SETUP_FAILED;
    double share = ok ? sum->setup_s / ok : 0.0;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads)
    for (int k = 0; k < n; k++)
        if (c->slot[k] >= 0) conclude(c, k, &info[c->slot[k]], active, share);
    return MCB_OK;
}

mcb_rc mcb_batch_run(const mcb_problem *const *P, mcb_metrics_ws *const *ws, int n,
                     const mcb_batch_def *def, const void *params, const mcb_campaign_opts *o,
                     mcb_run *runs, mcb_batch_summary *sum, mcb_err *err)
{
    memset(sum, 0, sizeof *sum);
    sum->n = n;
    mcb_rc rc = mcb_batch_check_n(n, err);
    if (rc) return rc;
    if (o->formulation != MCB_FORM_NCP)
        return mcb_fail(err, MCB_E_INPUT, "a batch hands each solver the stored problem: "
                                          "--formulation ncp only");
    judge_ctx c = {P, ws, def, NULL, o, NULL, NULL, NULL, NULL, runs, NULL};
    c.slot = mcb_calloc((size_t)n, sizeof *c.slot);
    c.orig = mcb_calloc((size_t)n, sizeof *c.orig);
    c.asked = mcb_calloc((size_t)n, sizeof *c.asked);
    c.v = mcb_calloc((size_t)n, sizeof *c.v);
    c.lambda = mcb_calloc((size_t)n, sizeof *c.lambda);
    const mcb_problem **taken = mcb_calloc((size_t)n, sizeof *taken);
    mcb_info *info = mcb_calloc((size_t)n, sizeof *info);
    unsigned char *active = mcb_calloc((size_t)n, 1);
    for (int k = 0; k < n; k++) runs[k].trace = runs[k].v = runs[k].lambda = NULL;
    if (!c.slot || !c.orig || !c.asked || !c.v || !c.lambda || !taken || !info || !active)
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    else
        rc = batch_body(&c, n, taken, info, active, sum, params, err);
    if (c.work) def->free(&c.work);
    if (rc)
        for (int k = 0; k < n; k++) mcb_run_clear(&runs[k]);
    else
        sum->throughput = mcb_batch_throughput(runs, n, sum->solve_s, &sum->solved);
    for (int k = 0; k < n && !rc; k++) sum->measure_s += runs[k].measure_s;
    free_ctx(&c, n);
    free(taken);
    free(info);
    free(active);
    return rc;
}

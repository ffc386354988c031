/* runner.c: one timed run of one solver on one problem.
 *
 * Timing: setup is timed on its own; the solve clock runs from the start of
 * solve() and is paused while the callback measures (fetching the iterate,
 * computing metrics, writing the trace), so measurement never counts as
 * solver time. The time limit applies to setup + solve. */
#include "runner.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcb_chol.h"
#include "mcb_timer.h"

const char *mcb_trace_column(int k)
{
    if (k == 0) return "iter";
    if (k == 1) return "time_s";
    if (k >= 2 && k < 2 + MCB_NMETRICS) return mcb_metric_name(k - 2);
    if (k == 2 + MCB_NMETRICS) return "own_residual";
    return "unknown";
}

void mcb_campaign_defaults(mcb_campaign_opts *o)
{
    mcb_settings_default(&o->settings);
    o->stop_metric = MCB_M_NATMAP;
    o->trace_every = 1;
    o->repeat = 1;
    o->save_solutions = 0;
    o->diverge_bound = 1e100;
}

void mcb_run_clear(mcb_run *r)
{
    free(r->trace);
    free(r->v);
    free(r->lambda);
    r->trace = r->v = r->lambda = NULL;
    r->trace_rows = 0;
}

typedef struct {
    const mcb_problem *P;
    mcb_metrics_ws *ws;
    const mcb_solver_def *def;
    void *work;
    const mcb_campaign_opts *o;
    mcb_timer clock;
    double setup_s;
    double *v, *lambda;
    double *trace;
    int trace_cap, trace_rows;
    int last_traced;
} run_ctx;

static int iterate_ok(const run_ctx *c)
{
    int n = c->P->form == MCB_PRIMAL ? c->P->n : 0, m = c->P->m;
    double b = c->o->diverge_bound;
    for (int k = 0; k < n; k++)
        if (!(fabs(c->v[k]) <= b)) return 0;
    for (int k = 0; k < m; k++)
        if (!(fabs(c->lambda[k]) <= b)) return 0;
    return 1;
}

static void trace_row(run_ctx *c, int iter, double time_s, const mcb_metrics *mt, double own)
{
    if (c->trace_rows == c->trace_cap) return; /* capacity fixed up front */
    double *row = c->trace + (size_t)c->trace_rows * MCB_TRACE_COLS;
    row[0] = iter;
    row[1] = time_s;
    for (int k = 0; k < MCB_NMETRICS; k++) row[2 + k] = mt->val[k];
    row[2 + MCB_NMETRICS] = own;
    c->trace_rows++;
    c->last_traced = iter;
}

static mcb_cb_action harness_cb(void *ctx, int iter, double own)
{
    run_ctx *c = ctx;
    mcb_timer_pause(&c->clock);
    double solve_s = mcb_timer_elapsed_s(&c->clock);
    c->def->iterate(c->work, c->v, c->lambda);
    mcb_cb_action a = MCB_CB_CONTINUE;
    if (!iterate_ok(c)) {
        a = MCB_CB_DIVERGED;
    } else {
        int every = c->o->trace_every;
        double stop;
        if (every > 0 && iter % every == 0) {
            mcb_metrics mt;
            mcb_metrics_compute(c->ws, c->v, c->lambda, &mt);
            trace_row(c, iter, solve_s, &mt, own);
            stop = mt.val[c->o->stop_metric];
        } else {
            stop = mcb_metrics_one(c->ws, c->o->stop_metric, c->v, c->lambda);
        }
        double limit = c->o->settings.time_limit_s;
        if (stop <= c->o->settings.tol) a = MCB_CB_CONVERGED;
        else if (limit > 0 && c->setup_s + solve_s >= limit) a = MCB_CB_TIME_LIMIT;
    }
    mcb_timer_resume(&c->clock);
    return a;
}

mcb_rc mcb_run_one(const mcb_problem *P, mcb_metrics_ws *ws, const mcb_solver_def *def,
                   const void *params, const mcb_campaign_opts *o, mcb_run *run, mcb_err *err)
{
    memset(&run->info, 0, sizeof run->info);
    for (int k = 0; k < MCB_NMETRICS; k++) run->final.val[k] = NAN;
    run->n = P->n;
    run->m = P->m;
    run->ncontacts = mcb_problem_count(P, MCB_CONTACT);
    run->trace = NULL;
    run->trace_rows = 0;
    run->v = run->lambda = NULL;
    run->info.own_residual = NAN;

    unsigned need = P->form == MCB_PRIMAL ? MCB_ACCEPTS_PRIMAL : MCB_ACCEPTS_DUAL;
    if (!(def->accepts & need)) {
        run->info.status = MCB_ST_SKIPPED;
        snprintf(run->info.reason, sizeof run->info.reason, "%s does not accept %s-form problems",
                 def->name, mcb_form_name(P->form));
        return MCB_OK;
    }
    if (def->accepts_problem &&
        !def->accepts_problem(P, run->info.reason, sizeof run->info.reason)) {
        run->info.status = MCB_ST_SKIPPED;
        return MCB_OK;
    }
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.P = P;
    c.ws = ws;
    c.def = def;
    c.o = o;
    int every = o->trace_every;
    c.trace_cap = (every > 0 ? o->settings.max_iters / every : 0) + 2;
    c.v = mcb_calloc((size_t)P->n, sizeof(double));
    c.lambda = mcb_calloc((size_t)P->m, sizeof(double));
    c.trace = mcb_malloc((size_t)c.trace_cap * MCB_TRACE_COLS, sizeof(double));
    double *defaults = mcb_calloc(def->params_size / sizeof(double) + 1, sizeof(double));
    if (!c.v || !c.lambda || !c.trace || !defaults) {
        free(c.v);
        free(c.lambda);
        free(c.trace);
        free(defaults);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (!params) {
        def->default_params(defaults);
        params = defaults;
    }
    omp_set_num_threads(o->settings.threads > 0 ? o->settings.threads : 1);
    mcb_blas_set_threads(o->settings.threads);

    mcb_err serr;
    serr.msg[0] = '\0';
    double t0 = mcb_now_s();
    mcb_rc rc = def->setup(P, &o->settings, params, &c.work, &serr);
    c.setup_s = run->info.setup_s = mcb_now_s() - t0;
    if (rc) {
        run->info.status = MCB_ST_SETUP_FAILED;
        snprintf(run->info.reason, sizeof run->info.reason, "%s", serr.msg);
    } else {
        /* iteration 0: the starting point */
        mcb_metrics mt;
        def->iterate(c.work, c.v, c.lambda);
        mcb_metrics_compute(ws, c.v, c.lambda, &mt);
        trace_row(&c, 0, 0.0, &mt, NAN);
        double limit = o->settings.time_limit_s;
        if (mt.val[o->stop_metric] <= o->settings.tol) {
            run->info.status = MCB_ST_SOLVED;
        } else if (limit > 0 && c.setup_s >= limit) {
            run->info.status = MCB_ST_TIME_LIMIT;
        } else {
            mcb_timer_start(&c.clock);
            run->info.status = def->solve(c.work, &o->settings, harness_cb, &c, &run->info);
            mcb_timer_pause(&c.clock);
            run->info.solve_s = mcb_timer_elapsed_s(&c.clock);
        }
        def->iterate(c.work, c.v, c.lambda);
        if (!iterate_ok(&c)) {
            run->info.status = MCB_ST_DIVERGED;
            if (!run->info.reason[0])
                snprintf(run->info.reason, sizeof run->info.reason,
                         "non-finite or unbounded iterate");
        }
        mcb_metrics_compute(ws, c.v, c.lambda, &run->final);
        if (run->info.status != MCB_ST_DIVERGED) {
            /* the harness judges: solved iff its own metric met the tolerance */
            int met = run->final.val[o->stop_metric] <= o->settings.tol;
            if (met) run->info.status = MCB_ST_SOLVED;
            else if (run->info.status == MCB_ST_SOLVED) run->info.status = MCB_ST_STALLED;
            /* a solver that could not be stopped is held to the budget here */
            double limit = o->settings.time_limit_s;
            if (def->black_box && limit > 0 && c.setup_s + run->info.solve_s > limit) {
                run->info.status = MCB_ST_TIME_LIMIT;
                snprintf(run->info.reason, sizeof run->info.reason,
                         "setup + solve took %.3g s, over the %.3g s budget (the solver cannot "
                         "be stopped from outside)",
                         c.setup_s + run->info.solve_s, limit);
            }
        }
        if (c.last_traced != run->info.iterations || c.trace_rows == 0)
            trace_row(&c, run->info.iterations, run->info.solve_s, &run->final,
                      run->info.own_residual);
    }
    def->free(&c.work);
    free(defaults);
    run->trace = c.trace;
    run->trace_rows = c.trace_rows;
    if (o->save_solutions && run->info.status != MCB_ST_SETUP_FAILED) {
        run->v = c.v;
        run->lambda = c.lambda;
    } else {
        free(c.v);
        free(c.lambda);
    }
    return MCB_OK;
}

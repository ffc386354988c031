/* runner.c: one timed run of one solver on one problem.
 *
 * A run has up to two passes (docs/metrics.md, "When the harness measures"):
 *
 * 1. The observed pass. setup() is timed on its own; the solve clock runs
 *    from the start of solve() and is paused while the callback measures
 *    (fetching the iterate, computing a metric, recording a trace row), so
 *    measuring never counts as solver time. Between checks the callback
 *    only reads the clock (time limit, per-iteration times). With
 *    MCB_CHECK_AUTO the next check comes after the smallest of
 *      - the cost stride ceil(c_check / (check_share * c_iter)) from the
 *        cost of the last check and the solver's mean iteration time,
 *      - a fifth of the iterations the residual's recent rate predicts
 *        before it meets the tolerance, but at least 1% of the iterations
 *        done,
 *      - the iterations done so far (the stride at most doubles the count);
 *    a check that is not a trace row computes the stop metric alone.
 *
 * 2. A rerun, when needed. If the tolerance was first seen met more than 1%
 *    of the iterations after the last unmet check (the prediction was too
 *    bold), the iteration at which it was first met is located: the
 *    solver is set up again, runs unobserved to that last unmet check, then
 *    is checked at every 1% of the iterations. If a check saw the stop
 *    metric rise over the one before it (a non-monotone residual, which may
 *    dip below the tolerance between two checks and rise again), the
 *    observed pass checks every iteration while the metric is within DIP^2
 *    of the tolerance, and if some unchecked iterations lay between checks
 *    within DIP of it, the rerun checks every iteration from there, so the
 *    first iteration meeting the tolerance is found exactly (under the
 *    assumption stated at DIP). Since pausing the clock does not pause the
 *    cache (a check evicts the solver's data and the iteration after it runs
 *    slower), the harness estimates that distortion from the iteration times
 *    it saw (the median iteration right after a check against the mean of
 *    the others, so that one preempted iteration does not count): for the
 *    observed pass its checks, for a located run only the locate pass's
 *    checks (that pass ran unobserved up to its first check). When it may
 *    exceed rerun_share of the solve time (MCB_TIMING_AUTO) or always
 *    (MCB_TIMING_CLEAN), the harness reruns the solver unobserved to the same
 *    iteration count and reports that time. A rerun
 *    must end at the same iteration with the same iterate, else the
 *    observed time is kept and the run says so.
 *
 * The time limit applies to setup + solve.
 *
 * Formulations (o->formulation, problems/formulation/): the solver is set
 * up on F(P) and its iterates are mapped back to (v, lambda) of P before
 * every judgement (fetch()); the build of F(P) is timed as setup. The ncp
 * formulation builds nothing: the solver's iterate is P's. */
#include "harness/runner.h"
#include "lib/mcb_order.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/formulation/formulation.h"
#include "lib/mcb_aniso.h"
#include "lib/mcb_chol.h"
#include "lib/mcb_timer.h"

void mcb_campaign_defaults(mcb_campaign_opts *o)
{
    mcb_settings_default(&o->settings);
    o->stop_metric = MCB_M_NATMAP;
    o->law = MCB_LAW_NCP;
    o->check_every = MCB_CHECK_AUTO;
    o->trace_every = MCB_TRACE_CHECKS;
    o->timing = MCB_TIMING_AUTO;
    o->check_share = 0.01;
    o->rerun_share = 0.02;
    o->repeat = 1;
    o->save_solutions = 0;
    o->diverge_bound = 1e100;
    o->formulation = MCB_FORM_NCP;
    o->friction_dirs = MCB_FRICTION_DIRS_DEFAULT;
    o->ntiers = 0; /* tol alone: mcbench run sets its --tiers */
}

void mcb_run_clear(mcb_run *r)
{
    free(r->trace);
    free(r->v);
    free(r->lambda);
    free(r->steps);
    r->trace = r->v = r->lambda = r->steps = NULL;
    r->trace_rows = r->step_rows = 0;
}

#define NGAPS 32

typedef struct {
    const mcb_problem *P;     /* the stored problem: the judged one */
    const mcb_problem *SP;    /* the one the solver receives: P or F(P) */
    mcb_formulation *F;       /* NULL for ncp */
    mcb_problem *iso;         /* anisotropic P for a solver without native support: its
                                 isotropic equivalent (lib/mcb_aniso.h), which F is built
                                 on, or which the solver receives; NULL otherwise */
    double *vF, *zF;          /* the solver's iterate (c->v, c->lambda without F) */
    mcb_metrics_ws *ws;
    const mcb_solver_def *def;
    void *work;
    const mcb_campaign_opts *o;
    mcb_timer clock;
    double setup_s;
    double *v, *lambda;
    /* the schedule */
    int next_check, next_trace;
    int checks;
    double measure_s;
    int last_iter;            /* iteration of the last check */
    double last_stop;         /* its stop metric */
    int unmet_iter;           /* the last check that did not meet the tolerance */
    int met_iter;             /* the first check that met it (0: none) */
    int rose;                 /* a check saw the stop metric above the previous check's,
                                 and it has not fallen DIP^2 below that value since */
    double rise_level;        /* the stop metric at the latest rise */
    /* near gaps: unchecked iterations between two checks with the stop
     * metric at either end at most DIP x tol: the first NGAPS, then one
     * more slot for every later one (from the first's start on, gap_to
     * INT_MAX) */
    int ngaps;
    int gap_from[NGAPS + 1], gap_to[NGAPS + 1]; /* the checks at their ends */
    unsigned char suspect[NGAPS + 1];  /* a low gap: seen while rose, or before a rise */
    int locate_all;           /* locate checks every iteration of the low gaps */
    /* iteration times, for the distortion estimate */
    double prev_t;
    int post;                 /* the next iteration follows a check */
    double post_d[256];       /* the latest post-check iteration times (a ring) */
    double plain_sum;
    int post_n, plain_n;
    /* the trace, grown by doubling (a handful of times per run) */
    double *trace;
    int trace_cap, trace_rows, trace_full;
    int last_traced;
    /* the levels whose first meeting check is a trace row: the tiers above
     * tol, then tol (coarsest first), and the next one not met yet */
    double level[MCB_MAX_TIERS + 1];
    int nlevels, next_level;
    int asked_iter;           /* the last iteration the callback asked the solver to stop */
    /* the clean rerun */
    int target;
    /* the solver's state at checks (resumable solvers, MCB_CHECK_AUTO), so
     * that locate resumes from a check instead of solving again */
    size_t state_bytes;       /* 0: locate solves again from the start */
    unsigned char *snap[2];   /* the states at the last two checks that missed */
    int snap_iter[2];
    double snap_s[2];         /* the solve time at them */
    int snap_cur;             /* the one written next */
    unsigned char *gap_snap;  /* the state at gap_iter, the first near gap's start (-1: none) */
    int gap_iter;
    double gap_s;
    int resumed;              /* locate resumed from a state */
    /* locate in two stages (resumable solvers): the low gaps before the last
     * check that missed, then on from the state kept there */
    int stage_end;            /* stage 1 stops after checking this iteration (INT_MAX: one stage) */
    int found;                /* a locate check met the tolerance */
    int stage_checks;         /* the checks of the stage whose time is reported */
    /* the iterations and solve time before the current solve() call */
    int offset;
    double offset_s;
} run_ctx;

/* The solver's current iterate, mapped back to (v, lambda) of P: through
 * the formulation, then from the isotropic equivalent. */
static void fetch(run_ctx *c)
{
    c->def->iterate(c->work, c->vF, c->zF);
    if (c->F) {
        mcb_formulation_map_back(c->F, c->vF, c->zF, c->v, c->lambda);
    } else if (c->iso) {
        memcpy(c->v, c->vF, (size_t)c->P->n * sizeof(double));
        memcpy(c->lambda, c->zF, (size_t)c->P->m * sizeof(double));
    }
    if (c->iso) mcb_aniso_lambda_from_iso(c->P, c->lambda, c->lambda);
}

int mcb_iterate_bounded(const mcb_problem *P, const double *v, const double *lambda,
                        double bound)
{
    int n = P->form == MCB_PRIMAL ? P->n : 0, m = P->m;
    for (int k = 0; k < n; k++)
        if (!(fabs(v[k]) <= bound)) return 0;
    for (int k = 0; k < m; k++)
        if (!(fabs(lambda[k]) <= bound)) return 0;
    return 1;
}

static int iterate_ok(const run_ctx *c)
{
    return mcb_iterate_bounded(c->P, c->v, c->lambda, c->o->diverge_bound);
}

void mcb_trace_fill(double *row, int iter, double time_s, const mcb_metrics *mt, double own)
{
    row[0] = iter;
    row[1] = time_s;
    for (int k = 0; k < MCB_NMETRICS; k++) row[2 + k] = mt->val[k];
    row[2 + MCB_NMETRICS] = own;
}

static void trace_row(run_ctx *c, int iter, double time_s, const mcb_metrics *mt, double own)
{
    if (c->trace_rows == c->trace_cap) {
        int cap = c->trace_cap ? 2 * c->trace_cap : 64;
        double *t = c->trace_full ? NULL
                                  : realloc(c->trace, (size_t)cap * MCB_TRACE_COLS * sizeof(double));
        if (!t) { /* out of memory: the trace stops growing, the run goes on */
            c->trace_full = 1;
            return;
        }
        c->trace = t;
        c->trace_cap = cap;
    }
    mcb_trace_fill(c->trace + (size_t)c->trace_rows * MCB_TRACE_COLS, iter, time_s, mt, own);
    c->trace_rows++;
    c->last_traced = iter;
}

/* The levels (tiers above tol, then tol), coarsest first. */
static void set_levels(run_ctx *c)
{
    const mcb_campaign_opts *o = c->o;
    int n = 0;
    for (int k = 0; k < o->ntiers && k < MCB_MAX_TIERS; k++)
        if (o->tiers[k] > o->settings.tol) c->level[n++] = o->tiers[k];
    c->level[n++] = o->settings.tol;
    c->nlevels = n;
}

/* 1 when `stop` meets a level no check met before (the levels it meets
 * are then passed). */
static int passes_level(run_ctx *c, double stop)
{
    int passed = 0;
    for (; c->next_level < c->nlevels && stop <= c->level[c->next_level]; c->next_level++)
        passed = 1;
    return passed;
}

/* What the schedule's prediction aims at: the next level not met yet. */
static double next_level(const run_ctx *c)
{
    return c->level[c->next_level < c->nlevels ? c->next_level : c->nlevels - 1];
}

/* Non-monotone residuals (docs/metrics.md, "When the harness measures"):
 * the harness assumes that the stop metric decreases between two
 * consecutive checks unless a check has seen it rise recently, and then
 * that it stays above 1/DIP of the smaller of their two values. A rise is
 * recent until the metric has fallen below 1/DIP^2 of the value it rose
 * to. While a rise is recent, every iteration is checked while the metric
 * is at most DIP^2 x tol. A near gap (unchecked iterations between checks
 * with either end at most DIP x tol, where a dip below the tolerance is
 * not excluded) is a low gap when it comes while a rise is recent, or
 * before a later rise. Low gaps before the check that met the tolerance
 * make locate check each of their iterations. */
#define DIP 2.0

/* Records a rise and the near gaps, from the check at `iter`. */
static void note_shape(run_ctx *c, int iter, double stop)
{
    if (c->last_iter > 0 && stop > c->last_stop) { /* false for NaN */
        c->rose = 1;
        c->rise_level = stop;
        for (int k = 0; k < c->ngaps; k++) c->suspect[k] = 1;
    }
    double low = c->last_iter > 0 && c->last_stop < stop ? c->last_stop : stop;
    if (iter > c->last_iter + 1 && low <= DIP * c->o->settings.tol) {
        if (c->ngaps <= NGAPS) {
            c->gap_from[c->ngaps] = c->last_iter;
            c->gap_to[c->ngaps] = c->ngaps == NGAPS ? INT_MAX : iter;
            c->suspect[c->ngaps++] = (unsigned char)c->rose;
        } else if (c->rose) {
            c->suspect[NGAPS] = 1;
        }
    }
    /* the gap up to here was judged with the rise still recent */
    if (c->rose && stop < c->rise_level / (DIP * DIP)) c->rose = 0;
}

/* The share of the iterations predicted before the tolerance is met that
 * may pass unchecked: small, because residuals often speed up, and because
 * a rise inside a long gap goes unseen when the check after it shows a net
 * fall (a solver that resumes locates cheaply, but a rise it did not see
 * cannot make it check the stretch near the tolerance densely). */
#define PREDICT_SHARE 0.2

/* The next iteration (after `iter`) whose iterate is checked, from the cost
 * of the check just made and the residual's rate of decrease; *strided
 * gets the next one from the cost alone (the trace rows' schedule). */
static int next_check_after(const run_ctx *c, int iter, double check_s, double solve_s,
                            double stop, int *strided)
{
    int every = c->o->check_every;
    if (every == MCB_CHECK_NEVER) return *strided = c->o->settings.max_iters + 1;
    if (every > 0) return *strided = iter + every;
    double c_iter = solve_s / iter;
    double stride = c_iter > 0 ? ceil(check_s / (c->o->check_share * c_iter)) : 1.0;
    if (stride > iter) stride = iter;
    if (!(stride >= 1.0)) stride = 1.0;
    *strided = iter + (int)stride;
    double tol = next_level(c);
    if (c->last_iter > 0 && iter > c->last_iter && stop > 0 && c->last_stop > stop && tol > 0) {
        double rate = (log(c->last_stop) - log(stop)) / (iter - c->last_iter);
        double ahead = PREDICT_SHARE * (log(stop) - log(tol)) / rate;
        double floor1 = floor(0.01 * iter);
        if (ahead < floor1) ahead = floor1;
        if (ahead < stride) stride = floor(ahead);
    }
    if (!(stride >= 1.0)) stride = 1.0;
    return iter + (int)stride;
}

/* The next trace row after `iter`; `strided` is the next check of the
 * schedule from the cost alone: the checks the prediction adds before it
 * and the dense checks near the tolerance compute the stop metric alone. */
static int next_trace_after(const run_ctx *c, int iter, int strided)
{
    int every = c->o->trace_every;
    if (every > 0) return (iter / every + 1) * every;
    return every == 0 ? c->o->settings.max_iters + 1 : strided;
}

/* The default trace rows are the plot's points, not judgements: a row
 * due within a quarter of its stride of the next check moves to that check
 * (one judgement of every metric there instead of two checks close
 * together). */
static int merged_trace(const run_ctx *c, int iter)
{
    if (c->o->trace_every != MCB_TRACE_CHECKS || c->next_trace > c->o->settings.max_iters)
        return c->next_trace;
    int slack = (c->next_trace - (c->last_traced > 0 ? c->last_traced : iter)) / 4;
    int d = c->next_check - c->next_trace;
    return d >= -slack && d <= slack ? c->next_check : c->next_trace;
}

static mcb_cb_action over_time(const run_ctx *c, double solve_s)
{
    double limit = c->o->settings.time_limit_s;
    return limit > 0 && c->setup_s + solve_s >= limit ? MCB_CB_TIME_LIMIT : MCB_CB_CONTINUE;
}

/* Iteration times: the one right after a check, or another. */
static void time_iteration(run_ctx *c, double t)
{
    double d = t - c->prev_t;
    c->prev_t = t;
    if (c->post) {
        c->post_d[c->post_n++ % 256] = d;
        c->post = 0;
    } else {
        c->plain_sum += d;
        c->plain_n++;
    }
}

/* After a check of the observed pass: the state at the start of the first
 * near gap is kept (the check before this one, whose state is the latest
 * kept), and this check's state when it missed the tolerance. */
static void keep_state(run_ctx *c, int iter, double solve_s, mcb_cb_action a)
{
    int last = c->snap_cur ^ 1, from = c->ngaps == 1 && c->gap_to[0] == iter ? c->gap_from[0] : -1;
    if (from >= 0 && c->snap_iter[last] == from) {
        memcpy(c->gap_snap, c->snap[last], c->state_bytes);
        c->gap_iter = from;
        c->gap_s = c->snap_s[last];
    }
    if (a != MCB_CB_CONTINUE) return;
    c->def->save_state(c->work, c->snap[c->snap_cur]);
    c->snap_iter[c->snap_cur] = iter;
    c->snap_s[c->snap_cur] = solve_s;
    c->snap_cur ^= 1;
}

/* The solve clock across a resumed solve() call. */
static double solve_clock_s(const run_ctx *c)
{
    return c->offset_s + mcb_timer_elapsed_s(&c->clock);
}

/* The observed pass's callback: the clock between checks, a judgement on
 * schedule. */
static mcb_cb_action observed_cb(void *ctx, int iter, double own)
{
    run_ctx *c = ctx;
    if (iter < c->next_check && iter < c->next_trace) {
        double t = mcb_timer_elapsed_s(&c->clock);
        time_iteration(c, t);
        mcb_cb_action a = over_time(c, t);
        if (a != MCB_CB_CONTINUE) c->asked_iter = iter;
        return a;
    }
    mcb_timer_pause(&c->clock);
    double solve_s = mcb_timer_elapsed_s(&c->clock);
    time_iteration(c, solve_s);
    double t0 = mcb_now_s();
    fetch(c);
    mcb_cb_action a = MCB_CB_CONTINUE;
    double stop = NAN;
    if (!iterate_ok(c)) {
        a = MCB_CB_DIVERGED;
    } else {
        if (iter >= c->next_trace) {
            mcb_metrics mt;
            mcb_metrics_compute(c->ws, c->v, c->lambda, &mt);
            trace_row(c, iter, solve_s, &mt, own);
            stop = mt.val[c->o->stop_metric];
            passes_level(c, stop);
        } else {
            stop = mcb_metrics_one(c->ws, c->o->stop_metric, c->v, c->lambda);
            if (passes_level(c, stop)) { /* a tier's first check is a trace row */
                mcb_metrics mt;
                mcb_metrics_compute(c->ws, c->v, c->lambda, &mt);
                trace_row(c, iter, solve_s, &mt, own);
            }
        }
        if (stop <= c->o->settings.tol) {
            a = MCB_CB_CONVERGED;
            if (!c->met_iter) c->met_iter = iter;
        } else {
            a = over_time(c, solve_s);
            c->unmet_iter = iter;
        }
    }
    note_shape(c, iter, stop);
    if (c->state_bytes) keep_state(c, iter, solve_s, a);
    double check_s = mcb_now_s() - t0;
    c->checks++;
    c->measure_s += check_s;
    int strided, regular = next_check_after(c, iter, check_s, solve_s, stop, &strided);
    int dense = c->o->check_every == MCB_CHECK_AUTO && c->rose &&
                stop <= DIP * DIP * c->o->settings.tol;
    c->next_check = dense ? iter + 1 : regular;
    c->last_iter = iter;
    c->last_stop = stop;
    if (iter >= c->next_trace) c->next_trace = next_trace_after(c, iter, strided);
    c->next_trace = merged_trace(c, iter);
    c->post = 1;
    if (a != MCB_CB_CONTINUE) c->asked_iter = iter;
    mcb_timer_resume(&c->clock);
    return a;
}

/* The next iteration locate checks after `iter`: each iteration inside a
 * low gap (with locate_all), and from the last check that missed the
 * tolerance on, every 1% of the iterations, up to the check that met it;
 * the iterations in between run unobserved (the observed pass judged
 * them). */
static int locate_next(const run_ctx *c, int iter)
{
    int best = c->met_iter;
    for (int k = 0; k < c->ngaps && c->locate_all; k++) {
        if (!c->suspect[k]) continue;
        int j = iter + 1 > c->gap_from[k] + 1 ? iter + 1 : c->gap_from[k] + 1;
        if (j < c->gap_to[k] && j < best) best = j;
    }
    int stride = (int)floor(0.01 * iter);
    int j = iter < c->unmet_iter + 1 ? c->unmet_iter + 1 : iter + (stride > 1 ? stride : 1);
    return j < best ? j : best;
}

/* The "locate" pass's callback: a check where locate_next() says. */
static mcb_cb_action locate_cb(void *ctx, int iter, double own)
{
    (void)own;
    run_ctx *c = ctx;
    iter += c->offset;
    if (iter < c->next_check) return over_time(c, solve_clock_s(c));
    mcb_timer_pause(&c->clock);
    double solve_s = solve_clock_s(c);
    double t0 = mcb_now_s();
    fetch(c);
    mcb_cb_action a = MCB_CB_DIVERGED;
    if (iterate_ok(c)) {
        double stop = mcb_metrics_one(c->ws, c->o->stop_metric, c->v, c->lambda);
        a = stop <= c->o->settings.tol ? MCB_CB_CONVERGED : over_time(c, solve_s);
    }
    c->checks++;
    c->stage_checks++;
    c->measure_s += mcb_now_s() - t0;
    c->next_check = locate_next(c, iter);
    if (a == MCB_CB_CONVERGED) c->found = 1;
    else if (a == MCB_CB_CONTINUE && iter >= c->stage_end) a = MCB_CB_CONVERGED; /* the stage's end */
    mcb_timer_resume(&c->clock);
    return a;
}

/* The clean rerun's callback: nothing but the count and the time limit. */
static mcb_cb_action rerun_cb(void *ctx, int iter, double own)
{
    (void)own;
    run_ctx *c = ctx;
    if (iter >= c->target) return MCB_CB_CONVERGED;
    return over_time(c, mcb_timer_elapsed_s(&c->clock));
}

int mcb_solver_refuses(const mcb_problem *P, const mcb_solver_def *def, char *reason,
                       size_t len)
{
    unsigned need = P->form == MCB_PRIMAL ? MCB_ACCEPTS_PRIMAL : MCB_ACCEPTS_DUAL;
    if (!(def->accepts & need)) {
        snprintf(reason, len, "%s does not accept %s-form problems", def->name,
                 mcb_form_name(P->form));
        return 1;
    }
    return def->accepts_problem && !def->accepts_problem(P, reason, len);
}

static int refuses(const mcb_problem *P, const mcb_solver_def *def, mcb_run *run)
{
    return mcb_solver_refuses(P, def, run->info.reason, sizeof run->info.reason);
}

/* The buffers for the solver's states when it is resumable and the
 * schedule is automatic (without them, locate solves again). */
static void keep_states(run_ctx *c)
{
    c->gap_iter = -1;
    c->snap_iter[0] = c->snap_iter[1] = -1;
    if (!mcb_solver_resumable(c->def) || c->o->check_every != MCB_CHECK_AUTO ||
        mcb_solver_black_box(c->def, c->SP->form))
        return;
    size_t z = c->def->state_size(c->work);
    for (int k = 0; k < 2; k++) c->snap[k] = malloc(z + 1);
    c->gap_snap = malloc(z + 1);
    if (c->snap[0] && c->snap[1] && c->gap_snap) c->state_bytes = z;
}

/* Pass 1: from the starting point to the solver's stop. */
static void observed_pass(run_ctx *c, mcb_run *run)
{
    const mcb_campaign_opts *o = c->o;
    mcb_metrics mt;
    fetch(c);
    mcb_metrics_compute(c->ws, c->v, c->lambda, &mt);
    trace_row(c, 0, 0.0, &mt, NAN); /* iteration 0: the starting point */
    passes_level(c, mt.val[o->stop_metric]);
    double limit = o->settings.time_limit_s;
    if (mt.val[o->stop_metric] <= o->settings.tol) {
        run->info.status = MCB_ST_SOLVED;
    } else if (limit > 0 && c->setup_s >= limit) {
        run->info.status = MCB_ST_TIME_LIMIT;
    } else {
        c->next_check = o->check_every == MCB_CHECK_NEVER ? o->settings.max_iters + 1 : 1;
        c->next_trace = next_trace_after(c, 0, c->next_check);
        if (c->state_bytes) keep_state(c, 0, 0.0, MCB_CB_CONTINUE);
        mcb_timer_start(&c->clock);
        c->asked_iter = -1;
        run->info.status = c->def->solve(c->work, &o->settings, observed_cb, c, &run->info);
        mcb_timer_pause(&c->clock);
        /* the solver's own word, before the harness judges */
        run->own_status = run->info.status;
        run->own_stop = mcb_solver_black_box(c->def, c->SP->form) ||
                        c->asked_iter != run->info.iterations;
        run->info.solve_s = mcb_timer_elapsed_s(&c->clock);
    }
}

void mcb_run_verdict(const mcb_problem *P, mcb_metrics_ws *ws, const mcb_campaign_opts *o,
                     const double *v, const double *lambda, mcb_run *run)
{
    if (!mcb_iterate_bounded(P, v, lambda, o->diverge_bound)) {
        run->info.status = MCB_ST_DIVERGED;
        if (!run->info.reason[0])
            snprintf(run->info.reason, sizeof run->info.reason, "non-finite or unbounded iterate");
    }
    mcb_metrics_compute(ws, v, lambda, &run->final);
    if (run->info.status == MCB_ST_DIVERGED) return;
    /* the harness judges: solved iff its own metric met the tolerance */
    int met = run->final.val[o->stop_metric] <= o->settings.tol;
    if (met) run->info.status = MCB_ST_SOLVED;
    else if (run->info.status == MCB_ST_SOLVED) run->info.status = MCB_ST_STALLED;
}

/* The harness's verdict on the final iterate of pass 1. */
static void judge(run_ctx *c, mcb_run *run)
{
    const mcb_campaign_opts *o = c->o;
    fetch(c);
    mcb_run_verdict(c->P, c->ws, o, c->v, c->lambda, run);
    if (run->info.status == MCB_ST_DIVERGED) return;
    /* a solver that could not be stopped is held to the budget here */
    double limit = o->settings.time_limit_s;
    if (mcb_solver_black_box(c->def, c->SP->form) && limit > 0 && c->setup_s + run->info.solve_s > limit) {
        run->info.status = MCB_ST_TIME_LIMIT;
        snprintf(run->info.reason, sizeof run->info.reason,
                 "setup + solve took %.3g s, over the %.3g s budget (the solver cannot be "
                 "stopped from outside)",
                 c->setup_s + run->info.solve_s, limit);
    }
}

/* The time the checks added to the iterations after them: those
 * iterations' times over the mean of the others (unknown, so infinite, when
 * every iteration followed a check). */
static double distortion_s(run_ctx *c)
{
    if (c->post_n == 0) return 0.0;
    if (c->plain_n == 0) return INFINITY;
    int n = c->post_n < 256 ? c->post_n : 256;
    mcb_sort_doubles(c->post_d, (size_t)n);
    double median = n % 2 ? c->post_d[n / 2] : 0.5 * (c->post_d[n / 2 - 1] + c->post_d[n / 2]);
    return c->post_n * (median - c->plain_sum / c->plain_n);
}

/* Where the tolerance was first met is not known to 1% when it was first
 * seen met further than 1% of the iterations after the last check that
 * missed it, or when a low gap (note_shape) came before it (the metric may
 * have dipped below the tolerance there and risen again unseen); the
 * second sets c->locate_all. */
static int needs_locate(run_ctx *c, const mcb_run *run)
{
    if (c->def->black_box || c->o->check_every != MCB_CHECK_AUTO) return 0;
    if (run->info.status != MCB_ST_SOLVED || c->met_iter == 0) return 0;
    /* a gap starting before the met check ends at it or earlier (its ends
     * are consecutive checks), the last slot's included */
    for (int k = 0; k < c->ngaps; k++)
        if (c->suspect[k] && c->gap_from[k] < c->met_iter) c->locate_all = 1;
    if (c->locate_all) return 1;
    int gap = c->met_iter - c->unmet_iter, allowed = (int)floor(0.01 * c->met_iter);
    return gap > (allowed > 1 ? allowed : 1);
}

/* The time one check adds to the iteration after it (the observed pass's
 * estimate; infinite when every iteration followed a check). */
static double per_check_s(run_ctx *c)
{
    if (c->post_n == 0) return 0.0;
    double d = distortion_s(c);
    return isfinite(d) ? d / c->post_n : INFINITY;
}

/* Auto timing reruns a solved run unobserved when its checks may have added
 * more than rerun_share of its solve time: the observed pass's checks, or,
 * for a located run, the locate pass's own (locate_checks of them: that
 * pass ran unobserved up to its first check, so its time is clean but for
 * its checks' tail). */
static int wants_rerun(run_ctx *c, const mcb_run *run, int located)
{
    int locate_checks = c->stage_checks;
    const mcb_campaign_opts *o = c->o;
    int st = run->info.status;
    if (c->def->black_box || c->checks == 0 || run->info.iterations <= 0) return 0;
    if (o->timing == MCB_TIMING_CLEAN)
        return st == MCB_ST_SOLVED || st == MCB_ST_MAX_ITERS || st == MCB_ST_STALLED;
    if (o->timing == MCB_TIMING_AUTO) {
        if (st != MCB_ST_SOLVED) return 0;
        double added = located ? locate_checks * per_check_s(c) : distortion_s(c);
        if (located && c->resumed) added += distortion_s(c); /* the time before it */
        return !(added <= o->rerun_share * run->info.solve_s);
    }
    return 0;
}

/* Solves with `cb` from the solver's current state, timed on c->clock,
 * `from` iterations and from_s seconds of solve time after the start (the
 * solver numbers its iterations from 1: the callbacks add c->offset);
 * info->iterations counts from the start. */
static int timed_solve(run_ctx *c, int from, double from_s, mcb_iter_cb cb, mcb_info *info)
{
    mcb_settings s = c->o->settings;
    s.max_iters -= from;
    c->offset = from;
    c->offset_s = from_s;
    memset(info, 0, sizeof *info);
    mcb_timer_start(&c->clock);
    int st = c->def->solve(c->work, &s, cb, c, info);
    mcb_timer_pause(&c->clock);
    info->iterations += from;
    return st;
}

/* Sets the solver up again and solves with `cb` from the start, timed on
 * c->clock; returns the solver's status, or -1 when setup fails. */
static int solve_again(run_ctx *c, const void *params, mcb_iter_cb cb, mcb_info *info)
{
    mcb_err serr;
    c->def->free(&c->work);
    if (c->def->setup(c->SP, &c->o->settings, params, &c->work, &serr)) return -1;
    return timed_solve(c, 0, 0.0, cb, info);
}

/* Loads the state kept at iteration `from` (solve time from_s) and solves
 * on with `cb` from there; info->iterations counts from the start. */
static int resume(run_ctx *c, const unsigned char *state, int from, double from_s,
                  mcb_iter_cb cb, mcb_info *info)
{
    c->def->load_state(c->work, state);
    c->resumed = 1;
    return timed_solve(c, from, from_s, cb, info);
}

/* The last iteration inside the low gaps that end at check `upto` or
 * earlier (-1: none). */
static int low_gaps_end(const run_ctx *c, int upto)
{
    int end = -1;
    for (int k = 0; k < c->ngaps; k++)
        if (c->suspect[k] && c->gap_to[k] <= upto && c->gap_to[k] - 1 > end)
            end = c->gap_to[k] - 1;
    return end;
}

/* Pass 2a: from the last check that missed the tolerance, check at every
 * 1% until it is met, and with locate_all every iteration of the low gaps
 * before it (locate_next); the run's iterations, solve time and final
 * iterate become the located ones. The solver resumes from its state kept
 * at the first check needed when it can (solver.h), else it is set up
 * again and runs unobserved to there. With locate_all and the state kept
 * at the last check that missed, in two stages: the low gaps before that
 * check (stopped after the last of their iterations), then on from that
 * state, so that the iterations between them are not run again. */
static void locate(run_ctx *c, const void *params, mcb_run *run)
{
    mcb_info info;
    int from = c->unmet_iter, st;
    for (int k = 0; k < c->ngaps && c->locate_all; k++)
        if (c->suspect[k] && c->gap_from[k] < from) from = c->gap_from[k];
    int last = c->snap_cur ^ 1;
    int tail = c->state_bytes && c->snap_iter[last] == c->unmet_iter ? c->unmet_iter : -1;
    /* the overflow slot (gap_to INT_MAX) stands for every later gap: every
     * iteration from its start is checked, so one stage */
    if (c->ngaps > NGAPS && c->suspect[NGAPS] && c->gap_from[NGAPS] < tail) tail = -1;
    c->stage_end = tail > from ? low_gaps_end(c, tail) : -1;
    if (c->stage_end < 0) c->stage_end = INT_MAX;
    c->next_check = locate_next(c, from);
    c->found = 0;
    c->stage_checks = 0;
    if (c->state_bytes && c->snap_iter[last] == from)
        st = resume(c, c->snap[last], from, c->snap_s[last], locate_cb, &info);
    else if (c->state_bytes && c->gap_iter >= 0 && c->gap_iter <= from)
        st = resume(c, c->gap_snap, c->gap_iter, c->gap_s, locate_cb, &info);
    else
        st = solve_again(c, params, locate_cb, &info);
    if (st == MCB_ST_SOLVED && !c->found && c->stage_end != INT_MAX) {
        /* stage 2: the low gaps held no iteration that met the tolerance */
        c->stage_end = INT_MAX;
        c->next_check = locate_next(c, tail);
        c->stage_checks = 0;
        st = resume(c, c->snap[last], tail, c->snap_s[last], locate_cb, &info);
    }
    if (st != MCB_ST_SOLVED || !c->found || info.iterations > c->met_iter) {
        run->timing = MCB_TIMED_RERUN_DIFFERED; /* keep pass 1's figures */
        return;
    }
    run->info.iterations = info.iterations;
    run->info.own_residual = info.own_residual;
    run->info.solve_s = solve_clock_s(c);
    run->timing = MCB_TIMED_LOCATED;
    judge(c, run);
    /* the trace ends at the located iteration */
    while (c->trace_rows > 0 && c->trace[(size_t)(c->trace_rows - 1) * MCB_TRACE_COLS] >=
                                    run->info.iterations)
        c->trace_rows--;
    trace_row(c, run->info.iterations, run->info.solve_s, &run->final, run->info.own_residual);
}

/* Copies the iterate (c->v, c->lambda, and the solver's own vectors under
 * a formulation) into `keep` (nP + nS doubles), or back from it. */
static void copy_iterate(run_ctx *c, double *keep, int back)
{
    const mcb_problem *P = c->P, *S = c->SP;
    double *vec[4] = {c->v, c->lambda, c->F ? c->vF : NULL, c->F ? c->zF : NULL};
    size_t len[4] = {(size_t)P->n, (size_t)P->m, (size_t)S->n, (size_t)S->m};
    for (int k = 0; k < 4 && vec[k]; keep += len[k], k++) {
        if (back) memcpy(vec[k], keep, len[k] * sizeof(double));
        else memcpy(keep, vec[k], len[k] * sizeof(double));
    }
}

/* locate(), and when it keeps pass 1's figures, pass 1's final iterate
 * with them (its checks fetched the solver's later iterates into c->v,
 * c->lambda and the solver's own vectors): the formulation residual and a
 * saved solution are then pass 1's too. */
static void locate_keeping(run_ctx *c, const void *params, mcb_run *run)
{
    size_t nP = (size_t)c->P->n + (size_t)c->P->m;
    size_t nS = c->F ? (size_t)c->SP->n + (size_t)c->SP->m : 0;
    double *keep = malloc((nP + nS + 1) * sizeof(double));
    if (keep) copy_iterate(c, keep, 0);
    locate(c, params, run);
    if (keep && run->timing == MCB_TIMED_RERUN_DIFFERED) copy_iterate(c, keep, 1);
    free(keep);
}

/* Pass 2: set up again and run unobserved to the same iteration count. The
 * observed final iterate is in c->v, c->lambda; `scratch` holds n + m. */
static void clean_rerun(run_ctx *c, const void *params, mcb_run *run, double *scratch)
{
    mcb_info info;
    c->target = run->info.iterations;
    int st = solve_again(c, params, rerun_cb, &info);
    if (st < 0) {
        run->timing = MCB_TIMED_RERUN_DIFFERED;
        return;
    }
    double solve_s = mcb_timer_elapsed_s(&c->clock);
    /* the same end: iteration count and the solver's iterate, bit for bit */
    const mcb_problem *S = c->SP;
    int n = S->form == MCB_PRIMAL ? S->n : 0, m = S->m, same = 1;
    double *v = scratch, *lambda = scratch + S->n;
    c->def->iterate(c->work, v, lambda);
    for (int k = 0; k < n && same; k++) same = v[k] == c->vF[k];
    for (int k = 0; k < m && same; k++) same = lambda[k] == c->zF[k];
    if (st == MCB_ST_TIME_LIMIT || info.iterations != c->target || !same) {
        run->timing = MCB_TIMED_RERUN_DIFFERED;
        return;
    }
    /* trace times: the observed pass's, scaled to the clean time */
    double scale = run->info.solve_s > 0 ? solve_s / run->info.solve_s : 1.0;
    for (int r = 0; r < c->trace_rows; r++) c->trace[(size_t)r * MCB_TRACE_COLS + 1] *= scale;
    run->info.solve_s = solve_s;
    run->timing = MCB_TIMED_CLEAN;
}

void mcb_run_start(const mcb_problem *P, mcb_run *run)
{
    memset(&run->info, 0, sizeof run->info);
    for (int k = 0; k < MCB_NMETRICS; k++) run->final.val[k] = NAN;
    run->n = P->n;
    run->m = P->m;
    run->ncontacts = mcb_problem_contacts(P);
    run->trace = NULL;
    run->trace_rows = 0;
    run->v = run->lambda = NULL;
    run->steps = NULL; /* a closed loop (closed_loop.c) fills these */
    run->step_rows = 0;
    run->info.own_residual = NAN;
    run->checks = 0;
    run->measure_s = run->observed_solve_s = 0.0;
    run->timing = MCB_TIMED_OBSERVED;
    run->form_residual = NAN;
    run->own_status = run->own_stop = -1;
}

mcb_rc mcb_run_one(const mcb_problem *P, mcb_metrics_ws *ws, const mcb_solver_def *def,
                   const void *params, const mcb_campaign_opts *o, mcb_run *run, mcb_err *err)
{
    mcb_run_start(P, run);
    mcb_metrics_ws_set_law(ws, o->law); /* every judgement of this run: --law */
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.P = c.SP = P;
    c.ws = ws;
    c.def = def;
    c.o = o;
    set_levels(&c);
    /* anisotropic friction: a solver without native support receives the
     * isotropic equivalent (lib/mcb_aniso.h), and its lambda is mapped back
     * (fetch); then the formulation: F(that) is what the solver receives */
    double tf = mcb_now_s(), form_s = 0.0;
    if (mcb_problem_is_aniso(P) && !(def->accepts & MCB_ACCEPTS_ANISO)) {
        mcb_rc arc = mcb_aniso_isotropic(P, &c.iso, err);
        if (arc) return arc;
        c.SP = c.iso;
        form_s = mcb_now_s() - tf;
    }
    if (o->formulation != MCB_FORM_NCP) {
        mcb_err ferr;
        ferr.msg[0] = '\0';
        mcb_rc frc = mcb_formulation_build(c.SP, o->formulation, o->friction_dirs, &c.F, &ferr);
        if (frc == MCB_E_NOMEM) {
            mcb_problem_free(&c.iso);
            return mcb_fail(err, frc, "%s", ferr.msg);
        }
        if (frc) {
            mcb_problem_free(&c.iso);
            run->info.status = MCB_ST_SKIPPED;
            snprintf(run->info.reason, sizeof run->info.reason, "formulation %s: %.900s",
                     mcb_formulation_name(o->formulation), ferr.msg);
            return MCB_OK;
        }
        c.SP = mcb_formulation_problem(c.F);
        form_s = mcb_now_s() - tf;
    }
    const mcb_problem *SP = c.SP;
    if (refuses(SP, def, run)) {
        run->info.status = MCB_ST_SKIPPED;
        mcb_formulation_free(&c.F);
        mcb_problem_free(&c.iso);
        return MCB_OK;
    }
    int own = c.F || c.iso; /* the solver's iterate in buffers of its own */
    c.v = mcb_calloc((size_t)P->n, sizeof(double));
    c.lambda = mcb_calloc((size_t)P->m, sizeof(double));
    if (own) {
        c.vF = mcb_calloc((size_t)SP->n + 1, sizeof(double));
        c.zF = mcb_calloc((size_t)SP->m + 1, sizeof(double));
    } else {
        c.vF = c.v;
        c.zF = c.lambda;
    }
    double *scratch = mcb_calloc((size_t)SP->n + (size_t)SP->m, sizeof(double));
    double *defaults = mcb_calloc(def->params_size / sizeof(double) + 1, sizeof(double));
    if (!c.v || !c.lambda || !c.vF || !c.zF || !scratch || !defaults) {
        mcb_problem_free(&c.iso);
        if (own) {
            free(c.vF);
            free(c.zF);
        }
        free(c.v);
        free(c.lambda);
        free(scratch);
        free(defaults);
        mcb_formulation_free(&c.F);
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
    mcb_rc rc = def->setup(SP, &o->settings, params, &c.work, &serr);
    c.setup_s = run->info.setup_s = mcb_now_s() - t0 + form_s;
    if (rc) {
        run->info.status = MCB_ST_SETUP_FAILED;
        snprintf(run->info.reason, sizeof run->info.reason, "%s", serr.msg);
    } else {
        keep_states(&c);
        observed_pass(&c, run);
        judge(&c, run);
        run->observed_solve_s = run->info.solve_s;
        if (c.last_traced != run->info.iterations || c.trace_rows == 0)
            trace_row(&c, run->info.iterations, run->info.solve_s, &run->final,
                      run->info.own_residual);
        int located = needs_locate(&c, run);
        if (located) locate_keeping(&c, params, run);
        if (run->timing != MCB_TIMED_RERUN_DIFFERED && wants_rerun(&c, run, located))
            clean_rerun(&c, params, run, scratch);
        /* the formulation's own residual at the final iterate (after a
         * clean rerun the solver's iterate is the same, bit for bit) */
        if (c.F) {
            run->form_residual = mcb_formulation_residual(c.F, c.vF, c.zF);
        } else { /* ncp: the natural map of P under its stored law */
            mcb_metrics_ws_set_law(ws, MCB_LAW_NCP);
            run->form_residual = mcb_metrics_one(ws, MCB_M_NATMAP, c.v, c.lambda);
            mcb_metrics_ws_set_law(ws, o->law);
        }
    }
    def->free(&c.work);
    for (int k = 0; k < 2; k++) free(c.snap[k]);
    free(c.gap_snap);
    free(defaults);
    free(scratch);
    if (own) {
        free(c.vF);
        free(c.zF);
    }
    mcb_formulation_free(&c.F);
    mcb_problem_free(&c.iso);
    run->checks = c.checks;
    run->measure_s = c.measure_s;
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

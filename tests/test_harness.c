/* test_harness.c: budget enforcement and statuses (time limit, iteration
 * limit, skipped, setup-failed, diverged), measurement excluded from solver
 * time, and the results files written and read back. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <dlfcn.h>
#include <malloc.h>

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

#include "harness/campaign.h"
#include "fixtures.h"
#include "lib/mcb_chol.h"
#include "lib/mcb_timer.h"

/* A test-only solver (not registered): each iteration of solve() sleeps
 * solve_us (2 ms when 0, none when negative) and iterate() -- which the harness calls inside the
 * paused window of its callback -- sleeps iterate_us; the impulse turns NaN
 * at iteration nan_at. wall_cap_s (when > 0) is a safety net: solve() gives
 * up on its own after that much wall time, so a harness that never stops it
 * fails the test quickly instead of running into ctest's timeout. */
typedef struct {
    int nan_at;
    int fail_setup;
    int ignore_cb; /* behave like an external solver: run to max_iters */
    long solve_us, iterate_us, setup_us;
    double wall_cap_s;
} toy_params;
typedef struct {
    const mcb_problem *P;
    toy_params prm;
    int it;
} toy_work;
static void toy_defaults(void *p) { memset(p, 0, sizeof(toy_params)); }
static mcb_rc toy_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                        void **work, mcb_err *err)
{
    (void)s;
    const toy_params *q = params;
    if (q->fail_setup) return mcb_fail(err, MCB_E_NUMERIC, "toy: factorization failed");
    if (q->setup_us) sleep_us(q->setup_us);
    toy_work *w = calloc(1, sizeof *w);
    w->P = P;
    w->prm = *q;
    *work = w;
    return MCB_OK;
}
static int toy_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    toy_work *w = work;
    double t0 = mcb_now_s();
    for (w->it = 1; w->it <= s->max_iters; w->it++) {
        if (w->prm.solve_us >= 0) sleep_us(w->prm.solve_us ? w->prm.solve_us : 2000);
        info->iterations = w->it;
        mcb_cb_action a = cb(ctx, w->it, 1.0);
        if (a && !w->prm.ignore_cb) return mcb_status_from_cb(a);
        if (w->prm.wall_cap_s > 0 && mcb_now_s() - t0 > w->prm.wall_cap_s) break;
    }
    return MCB_ST_MAX_ITERS;
}
static void toy_iterate(void *work, double *v, double *lambda)
{
    toy_work *w = work;
    if (w->prm.iterate_us) sleep_us(w->prm.iterate_us);
    for (int k = 0; k < w->P->m; k++) lambda[k] = (w->prm.nan_at && w->it >= w->prm.nan_at) ? NAN : 0;
    if (v)
        for (int k = 0; k < w->P->n; k++) v[k] = 0;
}
static void toy_free(void **work)
{
    if (work) {
        free(*work);
        *work = NULL;
    }
}
/* The toy takes one contact at most. */
static int toy_accepts(const mcb_problem *P, char *reason, size_t len)
{
    if (P->m <= 3) return 1;
    snprintf(reason, len, "toy takes one contact, this problem has %d rows", P->m);
    return 0;
}
#define TOY_DEF(NAME, BLACK_BOX)                                                              \
    static const mcb_solver_def NAME = {.name = #NAME,                                        \
                                        .description = "test solver",                         \
                                        .reference = "none",                                  \
                                        .accepts = MCB_ACCEPTS_PRIMAL,                        \
                                        .accepts_problem = toy_accepts,                       \
                                        .black_box = BLACK_BOX,                               \
                                        .params_size = sizeof(toy_params),                    \
                                        .default_params = toy_defaults,                       \
                                        .setup = toy_setup,                                   \
                                        .solve = toy_solve,                                   \
                                        .iterate = toy_iterate,                               \
                                        .free = toy_free};
TOY_DEF(toy, 0)
TOY_DEF(toy_black_box, 1)

static mcb_run run_def(const mcb_solver_def *def, mcb_problem *P, mcb_campaign_opts *o,
                       toy_params *prm)
{
    mcb_metrics_ws *ws = NULL;
    mcb_metrics_ws_new(P, &ws, NULL);
    mcb_run run = {0};
    ck_assert_int_eq(mcb_run_one(P, ws, def, prm, o, &run, NULL), MCB_OK);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
    return run;
}

static mcb_run run_toy(mcb_campaign_opts *o, toy_params *prm)
{
    return run_def(&toy, fx_point_contact(FX_STICK), o, prm);
}

/* A solver that cannot be stopped from the callback (black_box, like the
 * Siconos peers) is held to the wall-time budget after the fact; the same
 * solver declared cooperative is stopped by the callback. */
START_TEST(black_box_time_budget)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 25; /* 25 x 2 ms, over the 20 ms budget */
    o.settings.time_limit_s = 0.02;
    toy_params p = {.ignore_cb = 1};
    mcb_run r = run_def(&toy_black_box, fx_point_contact(FX_STICK), &o, &p);
    ck_assert_int_eq(r.info.status, MCB_ST_TIME_LIMIT);
    ck_assert_int_eq(r.info.iterations, 25);
    ck_assert_ptr_nonnull(strstr(r.info.reason, "cannot be stopped"));
    mcb_run_clear(&r);
    /* within the budget it is judged like any solver: the toy's zero impulse
     * is not the stick solution, so it is not solved */
    o.settings.time_limit_s = 10;
    r = run_def(&toy_black_box, fx_point_contact(FX_STICK), &o, &p);
    ck_assert_int_eq(r.info.status, MCB_ST_MAX_ITERS);
    mcb_run_clear(&r);
}
END_TEST

/* accepts_problem refuses a problem of an accepted form: skipped, with the
 * solver's reason. */
START_TEST(refused_problem_is_skipped)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    toy_params p = {0};
    mcb_run r = run_def(&toy, fx_small_stack(), &o, &p);
    ck_assert_int_eq(r.info.status, MCB_ST_SKIPPED);
    ck_assert_msg(strstr(r.info.reason, "toy takes one contact") != NULL, "%s", r.info.reason);
    ck_assert_int_eq(r.trace_rows, 0);
    mcb_run_clear(&r);
}
END_TEST

START_TEST(iteration_budget)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 7;
    o.check_every = 1; /* the budget, not the schedule (which depends on timing) */
    toy_params p = {0};
    mcb_run r = run_toy(&o, &p);
    ck_assert_int_eq(r.info.status, MCB_ST_MAX_ITERS);
    ck_assert_int_eq(r.info.iterations, 7);
    ck_assert_int_eq(r.trace_rows, 8); /* iterations 0..7 */
    mcb_run_clear(&r);
}
END_TEST

/* The time limit stops a cooperative solver, promptly: a toy of 1 ms
 * iterations with an iteration budget it could never use up and a 0.1 s
 * limit ends with status time-limit, having used at least the limit and
 * less than 2.5 times it (one iteration of overshoot is the most the check
 * allows; the margin is for a loaded machine). Without the check the toy
 * gives up by itself after 3 s and the status is max-iterations. */
START_TEST(time_budget)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 1000000;
    o.settings.time_limit_s = 0.1;
    toy_params p = {.solve_us = 1000, .wall_cap_s = 3.0};
    mcb_run r = run_toy(&o, &p);
    double used = r.info.setup_s + r.info.solve_s;
    ck_assert_msg(r.info.status == MCB_ST_TIME_LIMIT,
                  "time limit not enforced: status %s after %d iterations and %.3f s of solver "
                  "time, limit 0.1 s",
                  mcb_status_name(r.info.status), r.info.iterations, used);
    ck_assert_int_lt(r.info.iterations, 1000000);
    ck_assert_msg(used >= 0.1, "stopped for the time limit after %.4f s < 0.1 s", used);
    ck_assert_msg(used < 0.25,
                  "time limit overshot: setup + solve %.3f s for a 0.1 s limit (%d iterations "
                  "of 1 ms)",
                  used, r.info.iterations);
    mcb_run_clear(&r);
}
END_TEST

/* Setup counts against the limit: a setup longer than the limit leaves no
 * time to solve. */
START_TEST(time_budget_spent_in_setup)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 1000;
    o.settings.time_limit_s = 0.02;
    toy_params p = {.setup_us = 40000, .wall_cap_s = 3.0};
    mcb_run r = run_toy(&o, &p);
    ck_assert_msg(r.info.status == MCB_ST_TIME_LIMIT,
                  "setup of %.3f s over a 0.02 s limit: status %s after %d iterations",
                  r.info.setup_s, mcb_status_name(r.info.status), r.info.iterations);
    ck_assert_int_eq(r.info.iterations, 0);
    ck_assert_double_ge(r.info.setup_s, 0.04);
    mcb_run_clear(&r);
}
END_TEST

/* The harness's measuring (fetching the iterate, computing metrics) is not
 * solver time: a toy whose iterations cost nothing (no sleep: a loaded
 * machine would delay each wake-up) but whose iterate() sleeps 10 ms must
 * show a solve time far below 20 x 10 ms, in info and in the trace. */
START_TEST(measurement_excluded_from_solve_time)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 20;
    o.settings.time_limit_s = 0; /* unlimited */
    o.check_every = 1;           /* a check (and its sleep) at every iteration */
    toy_params p = {.solve_us = -1, .iterate_us = 10000};
    double t0 = mcb_now_s();
    mcb_run r = run_toy(&o, &p);
    double wall = mcb_now_s() - t0;
    ck_assert_int_eq(r.info.status, MCB_ST_MAX_ITERS);
    ck_assert_int_eq(r.info.iterations, 20);
    ck_assert_double_ge(wall, 20 * 0.01); /* the sleeps did happen */
    ck_assert_msg(r.info.solve_s < 0.05,
                  "measurement time counted as solver time: solve_s %.4f s for 20 iterations "
                  "costing ~0 s, while the harness's measuring (iterate) took 20 x 10 ms",
                  r.info.solve_s);
    ck_assert_int_eq(r.trace_rows, 21);
    const double *last = r.trace + (size_t)20 * MCB_TRACE_COLS;
    ck_assert_double_eq(last[0], 20);
    ck_assert_msg(last[1] < 0.05, "trace time %.4f s at iteration 20 includes measurement",
                  last[1]);
    mcb_run_clear(&r);
}
END_TEST

START_TEST(divergence_and_setup_failure)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 50;
    o.check_every = 1; /* the NaN is seen at its iteration, whatever the timing */
    toy_params p = {.nan_at = 3};
    mcb_run r = run_toy(&o, &p);
    ck_assert_int_eq(r.info.status, MCB_ST_DIVERGED);
    ck_assert_int_eq(r.info.iterations, 3);
    mcb_run_clear(&r);
    toy_params q = {.fail_setup = 1};
    r = run_toy(&o, &q);
    ck_assert_int_eq(r.info.status, MCB_ST_SETUP_FAILED);
    ck_assert_ptr_nonnull(strstr(r.info.reason, "factorization failed"));
    mcb_run_clear(&r);
}
END_TEST

START_TEST(skipped_and_bad_params)
{
    mcb_problem *P = fx_point_contact_dual(FX_SLIP);
    mcb_metrics_ws *ws = NULL;
    mcb_metrics_ws_new(P, &ws, NULL);
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    mcb_run r = {0};
    mcb_run_one(P, ws, mcb_solver_find("subadmm"), NULL, &o, &r, NULL);
    ck_assert_int_eq(r.info.status, MCB_ST_SKIPPED);
    ck_assert_ptr_nonnull(strstr(r.info.reason, "dual"));
    mcb_run_clear(&r);
    /* invalid parameter: setup fails, recorded as a status */
    const mcb_solver_def *pgs = mcb_solver_find("pgs");
    double prm[8];
    pgs->default_params(prm);
    ck_assert_int_eq(mcb_param_set(pgs, prm, "omega", "2.5", NULL), MCB_OK);
    mcb_run_one(P, ws, pgs, prm, &o, &r, NULL);
    ck_assert_int_eq(r.info.status, MCB_ST_SETUP_FAILED);
    mcb_run_clear(&r);
    ck_assert_int_ne(mcb_param_set(pgs, prm, "nope", "1", NULL), MCB_OK);
    ck_assert_int_ne(mcb_param_set(pgs, prm, "omega", "abc", NULL), MCB_OK);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
}
END_TEST

/* --threads reaches OpenBLAS (CHOLMOD's and Siconos' BLAS). Its own ctest
 * entry (`test_harness openblas`), skipped (77) when the BLAS loaded is not
 * OpenBLAS. */
START_TEST(blas_threads_follow_settings)
{
    void *sym = dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
    ck_assert_ptr_nonnull(sym);
    int (*get)(void);
    memcpy(&get, &sym, sizeof get);
    mcb_blas_set_threads(2);
    ck_assert_int_eq(get(), 2);
    mcb_blas_set_threads(1);
    ck_assert_int_eq(get(), 1);
    mcb_blas_set_threads(0); /* unset: one thread */
    ck_assert_int_eq(get(), 1);
}
END_TEST

START_TEST(paused_clock)
{
    mcb_timer t;
    mcb_timer_start(&t);
    mcb_timer_pause(&t);
    sleep_us(30000);
    mcb_timer_resume(&t);
    mcb_timer_pause(&t);
    ck_assert_double_lt(mcb_timer_elapsed_s(&t), 0.02);
}
END_TEST

/* Two doubles are the same stored value (NaN matches NaN). */
static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

static void set_run(mcb_run *r, const char *set, const char *problem, int index, const char *solver,
                    int rep, int n, int m, int ncontacts)
{
    memset(r, 0, sizeof *r);
    r->problem_set = set;
    r->problem = problem;
    r->problem_index = index;
    r->solver = solver;
    r->rep = rep;
    r->n = n;
    r->m = m;
    r->ncontacts = ncontacts;
}

/* Every value of a run record goes to the results file and comes back
 * exactly: names, indices, status, reason, iterations, times, own residual,
 * every final metric (NaN included), the trace, and v and lambda when the
 * run stored them (--save-solutions), none when it did not. */
START_TEST(results_store_every_value)
{
    enum { NRUNS = 4 };
    double v0[3] = {1.5, -2.25, 1.0 / 3.0}, l0[3] = {1.0, -0.5, 1e-300};
    double l1[6] = {0.25, -0.125, 0.0625, 7.0, -3.5, 1.0 / 7.0};
    double tr0[3 * MCB_TRACE_COLS], tr1[2 * MCB_TRACE_COLS];
    for (int k = 0; k < 3 * MCB_TRACE_COLS; k++)
        tr0[k] = (k % MCB_TRACE_COLS == 0) ? k / MCB_TRACE_COLS : 1.0 / (k + 3);
    for (int k = 0; k < 2 * MCB_TRACE_COLS; k++)
        tr1[k] = (k % MCB_TRACE_COLS == 0) ? 500 * (k / MCB_TRACE_COLS) : -1.0 / (k + 11);
    tr1[2] = NAN; /* dyn_abs of a dual problem */
    mcb_run runs[NRUNS];
    /* 0: a solved primal run with its solution */
    set_run(&runs[0], "setA", "slip", 2, "pgs", 1, 3, 3, 1);
    runs[0].trace_rows = 3;
    runs[0].trace = tr0;
    runs[0].v = v0;
    runs[0].lambda = l0;
    runs[0].info = (mcb_info){MCB_ST_SOLVED, 17, 3.25e-9, 0.125, 1.0 / 3.0, "", 0};
    /* 1: a dual run (lambda only) that used up its iterations */
    set_run(&runs[1], "setB", "capsules", 0, "pj", 0, 0, 6, 2);
    runs[1].trace_rows = 2;
    runs[1].trace = tr1;
    runs[1].lambda = l1;
    runs[1].info = (mcb_info){MCB_ST_MAX_ITERS, 1000, 0.0625, 2.5e-4, 12.75, "", 4321};
    /* 2: skipped, with a reason, nothing measured */
    set_run(&runs[2], "setB", "capsules", 0, "subadmm", 0, 0, 6, 2);
    runs[2].info =
        (mcb_info){MCB_ST_SKIPPED, 0, NAN, 0, 0, "subadmm does not accept dual-form problems", 0};
    /* 3: time limit, solution not stored */
    set_run(&runs[3], "setA", "stack, \"big\"", 5, "subadmm", 2, 3, 3, 1);
    runs[3].trace_rows = 1;
    runs[3].trace = tr0;
    runs[3].info = (mcb_info){MCB_ST_TIME_LIMIT, 42, 0.5, 3.0, 27.0, "", 7};
    for (int r = 0; r < NRUNS; r++)
        for (int k = 0; k < MCB_NMETRICS; k++)
            runs[r].final.val[k] = r == 2 ? NAN : (r + 1) * 1e-3 / (k + 1) + k;
    runs[1].final.val[MCB_M_DYN_ABS] = runs[1].final.val[MCB_M_DYN_REL] = NAN;

    for (int r = 0; r < NRUNS; r++) {
        runs[r].checks = 3 * r + 1;
        runs[r].measure_s = 1.0 / (r + 9);
        runs[r].observed_solve_s = runs[r].info.solve_s * 1.25;
        runs[r].timing = r % 3;
    }
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.tol = 1e-7;
    o.settings.max_iters = 1234;
    o.settings.time_limit_s = 30;
    o.stop_metric = MCB_M_ZRES;
    o.repeat = 3;
    mcb_results_data ctx;
    mcb_err err;
    ck_assert_int_eq(mcb_results_context("mcbench run test", &o, 99, &ctx, &err), MCB_OK);
    ctx.inputs = strdup("a\tfclib\tfeed\ta.hdf5\nb\tmcbench\t-\tb.h5\n");
    char h5[256], csv[256], jr[300];
    snprintf(h5, sizeof h5, "/tmp/mcb_store_%ld.h5", (long)getpid());
    snprintf(csv, sizeof csv, "/tmp/mcb_store_%ld.csv", (long)getpid());
    mcb_journal_path(h5, jr, sizeof jr);
    unlink(jr);
    /* the journal first, as a campaign writes it; then the results file from it */
    mcb_journal *J = NULL;
    ck_assert_msg(mcb_journal_create(jr, &ctx, &J, &err) == MCB_OK, "%s", err.msg);
    for (int r = 0; r < NRUNS; r++) {
        mcb_run_rec rec;
        mcb_rec_view(&runs[r], 10 * r + 7, r == 1 ? "solver=pj tol=1e-07" : "a=1", &rec);
        ck_assert_msg(mcb_journal_append_run(J, &rec, &err) == MCB_OK, "%s", err.msg);
    }
    mcb_journal_close(&J);
    mcb_results_src *S = NULL;
    ck_assert_msg(mcb_results_src_open(jr, &S, &err) == MCB_OK, "%s", err.msg);
    mcb_pick picks[NRUNS];
    for (int r = 0; r < NRUNS; r++) picks[r] = (mcb_pick){S, r};
    ck_assert_msg(mcb_results_write(h5, csv, &ctx, picks, NRUNS, &err) == MCB_OK, "%s", err.msg);
    mcb_results_src_close(&S);
    mcb_results_ctx_free(&ctx);

    /* both read back exactly: the journal and the results file */
    for (int pass = 0; pass < 2; pass++) {
    const char *path = pass ? h5 : jr;
    mcb_results_data *D = NULL;
    ck_assert_msg(mcb_results_read(path, &D, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(D->count, NRUNS);
    ck_assert_int_eq(D->complete, pass);
    ck_assert_int_eq(D->total_runs, 99);
    ck_assert_int_eq(D->repeat, 3);
    ck_assert_str_eq(D->stop_metric, "zres");
    ck_assert_double_eq(D->tol, 1e-7);
    ck_assert_int_eq(D->max_iters, 1234);
    ck_assert_str_eq(D->inputs, "a\tfclib\tfeed\ta.hdf5\nb\tmcbench\t-\tb.h5\n");
    {   /* the run_index alone (merge's first pass) agrees with the record */
        mcb_results_src *Si = NULL;
        ck_assert_msg(mcb_results_src_open(path, &Si, &err) == MCB_OK, "%s", err.msg);
        for (int r = 0; r < NRUNS; r++) {
            int ri = -2;
            ck_assert_msg(mcb_results_src_index(Si, r, &ri, &err) == MCB_OK, "%s", err.msg);
            ck_assert_int_eq(ri, 10 * r + 7);
        }
        int ri = 0;
        ck_assert_int_ne(mcb_results_src_index(Si, NRUNS, &ri, &err), MCB_OK);
        ck_assert_int_eq(ri, -1);
        mcb_results_src_close(&Si);
    }
    ck_assert_double_eq(D->time_limit_s, 30);
    for (int r = 0; r < NRUNS; r++) {
        const mcb_run *w = &runs[r];
        const mcb_run_rec *g = &D->runs[r];
        ck_assert_str_eq(g->problem_set, w->problem_set);
        ck_assert_str_eq(g->problem, w->problem);
        ck_assert_str_eq(g->solver, w->solver);
        ck_assert_str_eq(g->reason, w->info.reason);
        ck_assert_int_eq(g->problem_index, w->problem_index);
        ck_assert_int_eq(g->rep, w->rep);
        ck_assert_int_eq(g->n, w->n);
        ck_assert_int_eq(g->m, w->m);
        ck_assert_int_eq(g->ncontacts, w->ncontacts);
        ck_assert_int_eq(g->run_index, 10 * r + 7);
        ck_assert_str_eq(g->config, r == 1 ? "solver=pj tol=1e-07" : "a=1");
        ck_assert_int_eq(g->checks, w->checks);
        ck_assert_int_eq(g->timing, w->timing);
        ck_assert(same(g->measure_s, w->measure_s));
        ck_assert(same(g->observed_solve_s, w->observed_solve_s));
        ck_assert_msg(g->status == w->info.status,
                      "results file: run %d status %s read back, %s stored", r,
                      mcb_status_name(g->status), mcb_status_name(w->info.status));
        ck_assert_msg(g->iterations == w->info.iterations,
                      "results file: run %d iterations %d read back, %d stored", r, g->iterations,
                      w->info.iterations);
        ck_assert_int_eq(g->inner_iterations, w->info.inner_iterations);
        ck_assert_msg(
            same(g->setup_s, w->info.setup_s) && same(g->solve_s, w->info.solve_s),
            "results file: run %d setup/solve %.17g/%.17g s read back, %.17g/%.17g stored", r,
            g->setup_s, g->solve_s, w->info.setup_s, w->info.solve_s);
        ck_assert_msg(same(g->own_residual, w->info.own_residual),
                      "results file: run %d own residual %.17g read back, %.17g stored", r,
                      g->own_residual, w->info.own_residual);
        for (int k = 0; k < MCB_NMETRICS; k++)
            ck_assert_msg(same(g->final.val[k], w->final.val[k]),
                          "results file: run %d final metric %s %.17g read back, %.17g stored", r,
                          mcb_metric_name(k), g->final.val[k], w->final.val[k]);
        ck_assert_msg(g->trace_rows == w->trace_rows,
                      "results file: run %d trace of %d rows read back, %d stored", r,
                      g->trace_rows, w->trace_rows);
        for (int k = 0; k < w->trace_rows * MCB_TRACE_COLS; k++)
            ck_assert_msg(
                same(g->trace[k], w->trace[k]),
                "results file: run %d trace row %d column %s %.17g read back, %.17g stored", r,
                k / MCB_TRACE_COLS, mcb_trace_column(k % MCB_TRACE_COLS), g->trace[k], w->trace[k]);
        if (w->v) {
            ck_assert_msg(g->v != NULL,
                          "results file: run %d stored v (--save-solutions), none read back", r);
            for (int k = 0; k < w->n; k++)
                ck_assert_msg(g->v[k] == w->v[k],
                              "results file: run %d v[%d] %.17g read back, %.17g stored", r, k,
                              g->v[k], w->v[k]);
        } else {
            ck_assert_msg(g->v == NULL, "results file: run %d stored no v, one read back", r);
        }
        if (w->lambda) {
            ck_assert_msg(g->lambda != NULL,
                          "results file: run %d stored lambda (--save-solutions), none read back",
                          r);
            for (int k = 0; k < w->m; k++)
                ck_assert_msg(g->lambda[k] == w->lambda[k],
                              "results file: run %d lambda[%d] %.17g read back, %.17g stored", r, k,
                              g->lambda[k], w->lambda[k]);
        } else {
            ck_assert_msg(g->lambda == NULL, "results file: run %d stored no lambda, one read back",
                          r);
        }
    }
    mcb_results_data_free(&D);
    }
    unlink(jr);

    /* results.csv: one row per run; status and iterations as stored */
    FILE *f = fopen(csv, "r");
    ck_assert_ptr_nonnull(f);
    char line[4096];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    line[strcspn(line, "\n")] = '\0';
    ck_assert_str_eq(line, mcb_csv_header());
    for (int r = 0; r < NRUNS; r++) {
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        char want[128];
        snprintf(want, sizeof want, ",%d,%s,%d,", runs[r].rep, mcb_status_name(runs[r].info.status),
                 runs[r].info.iterations);
        ck_assert_msg(strstr(line, want) != NULL, "results.csv row %d lacks '%s': %s", r, want,
                      line);
    }
    ck_assert_ptr_null(fgets(line, sizeof line, f));
    fclose(f);
    unlink(h5);
    unlink(csv);
}
END_TEST

/* A campaign end to end: with save_solutions every run that ran stores its
 * final (v, lambda) -- the known solution of the fixtures -- and the
 * iterations and metrics of a direct run of the same solver; without it no
 * run stores a solution. */
static void campaign_round_trip(int save)
{
    mcb_problem_set S = {0};
    mcb_problem *items[2] = {fx_point_contact(FX_SLIP), fx_point_contact_dual(FX_SLIP)};
    S.count = 2;
    S.items = items;
    mcb_input in = {.set_name = "fixtures", .problems = &S, .path = "/data/fixtures.hdf5",
                    .kind = "fclib", .sha256 = "0123abcd"};
    mcb_solver_choice ch[3];
    for (int s = 0; s < 3; s++) ch[s] = (mcb_solver_choice){mcb_solver_at(s), NULL, NULL};
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.repeat = 2;
    o.save_solutions = save;
    o.check_every = 1; /* deterministic iteration counts (the automatic schedule follows costs) */
    char h5[256], csv[256];
    snprintf(h5, sizeof h5, "/tmp/mcb_res_%ld.h5", (long)getpid());
    snprintf(csv, sizeof csv, "/tmp/mcb_res_%ld.csv", (long)getpid());
    mcb_campaign C = {.in = &in, .nin = 1, .solvers = ch, .nsolvers = 3, .o = &o,
                      .command = "test", .h5_path = h5, .csv_path = csv};
    mcb_err err;
    ck_assert_msg(mcb_campaign_run(&C, &err) == MCB_OK, "%s", err.msg);
    mcb_results_data *D = NULL;
    ck_assert_msg(mcb_results_read(h5, &D, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(D->count, 2 * 3 * 2);
    ck_assert_str_eq(D->stop_metric, "natmap");
    /* the inputs' provenance (an FCLIB file's digest) */
    ck_assert_ptr_nonnull(D->inputs);
    ck_assert_str_eq(D->inputs, "fixtures\tfclib\t0123abcd\t/data/fixtures.hdf5\n");
    int skipped = 0, solved = 0;
    double vs[3], ls[3];
    fx_point_solution(FX_SLIP, vs, ls);
    for (int k = 0; k < D->count; k++) {
        const mcb_run_rec *g = &D->runs[k];
        skipped += g->status == MCB_ST_SKIPPED;
        solved += g->status == MCB_ST_SOLVED;
        int dual = g->problem_index == 1;
        ck_assert_int_eq(g->n, dual ? 0 : 3);
        ck_assert_int_eq(g->m, 3);
        if (!save || g->status == MCB_ST_SKIPPED) {
            ck_assert_msg(!g->v && !g->lambda,
                          "run %d (%s, %s): a solution stored without "
                          "--save-solutions or for a skipped run",
                          k, g->solver, g->problem);
            continue;
        }
        ck_assert_msg(
            g->lambda && (dual ? !g->v : g->v != NULL),
            "run %d (%s on %s): --save-solutions, but v or lambda not in the results file", k,
            g->solver, g->problem);
        for (int r = 0; r < 3; r++) {
            ck_assert_double_eq_tol(g->lambda[r], ls[r], 1e-6);
            if (!dual) ck_assert_double_eq_tol(g->v[r], vs[r], 1e-6);
        }
        /* the same solver run directly: same iterations and final metrics */
        mcb_metrics_ws *ws = NULL;
        mcb_metrics_ws_new(items[g->problem_index], &ws, NULL);
        mcb_run run = {0};
        mcb_run_one(items[g->problem_index], ws, mcb_solver_find(g->solver), NULL, &o, &run, NULL);
        ck_assert_msg(g->iterations == run.info.iterations,
                      "run %d (%s on %s): results file says %d iterations, the run took %d", k,
                      g->solver, g->problem, g->iterations, run.info.iterations);
        for (int m = 0; m < MCB_NMETRICS; m++)
            ck_assert_msg(same(g->final.val[m], run.final.val[m]),
                          "run %d (%s on %s): results file final %s %.17g, the run's %.17g", k,
                          g->solver, g->problem, mcb_metric_name(m), g->final.val[m],
                          run.final.val[m]);
        mcb_run_clear(&run);
        mcb_metrics_ws_free(&ws);
    }
    ck_assert_int_eq(skipped, 2); /* subadmm x dual x 2 reps */
    ck_assert_int_eq(solved, 10);
    mcb_results_data_free(&D);
    FILE *f = fopen(csv, "r");
    ck_assert_ptr_nonnull(f);
    char line[4096];
    int lines = 0;
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    line[strcspn(line, "\n")] = '\0';
    ck_assert_str_eq(line, mcb_csv_header());
    while (fgets(line, sizeof line, f)) lines++;
    fclose(f);
    ck_assert_int_eq(lines, 12);
    unlink(h5);
    unlink(csv);
    mcb_problem_free(&items[0]);
    mcb_problem_free(&items[1]);
}

START_TEST(results_round_trip) { campaign_round_trip(_i); }
END_TEST

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif

/* Heap in use (KB), allocated and not freed: what HDF5 holds. */
static long heap_kb(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)((mi.uordblks + mi.hblkhd) / 1024);
}

/* Reading a results file one run at a time takes bounded memory (HDF5's
 * metadata cache is kept small, lib/mcb_results.c): reading 6000 runs back leaves
 * less than 6 MB more of the heap in use (HDF5's default cache keeps every
 * run's metadata: docs/scale-out.md, merge). Not under ASan, which
 * replaces malloc. */
START_TEST(results_read_in_bounded_memory)
{
#ifdef TEST_ASAN
    return;
#endif
    enum { NRUNS = 6000 };
    double tr[3 * MCB_TRACE_COLS];
    for (int k = 0; k < 3 * MCB_TRACE_COLS; k++) tr[k] = k % MCB_TRACE_COLS ? 1.0 / (k + 1) : k / 3;
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    mcb_results_data ctx;
    mcb_err err;
    ck_assert_int_eq(mcb_results_context("mcbench run test", &o, NRUNS, &ctx, &err), MCB_OK);
    char h5[256], csv[256], jr[300];
    snprintf(h5, sizeof h5, "/tmp/mcb_mem_%ld.h5", (long)getpid());
    snprintf(csv, sizeof csv, "/tmp/mcb_mem_%ld.csv", (long)getpid());
    mcb_journal_path(h5, jr, sizeof jr);
    unlink(jr);
    mcb_journal *J = NULL;
    ck_assert_msg(mcb_journal_create(jr, &ctx, &J, &err) == MCB_OK, "%s", err.msg);
    for (int r = 0; r < NRUNS; r++) {
        mcb_run run;
        set_run(&run, "set", "problem", r, "pgs", 0, 3, 3, 1);
        run.info = (mcb_info){MCB_ST_SOLVED, 17, 3.25e-9, 0.125, 1.0 / 3.0, "", 0};
        run.trace_rows = 3;
        run.trace = tr;
        mcb_run_rec rec;
        mcb_rec_view(&run, r, "a=1", &rec);
        ck_assert_msg(mcb_journal_append_run(J, &rec, &err) == MCB_OK, "%s", err.msg);
    }
    mcb_journal_close(&J);
    mcb_results_src *S = NULL;
    ck_assert_msg(mcb_results_src_open(jr, &S, &err) == MCB_OK, "%s", err.msg);
    mcb_pick *picks = calloc(NRUNS, sizeof *picks);
    for (int r = 0; r < NRUNS; r++) picks[r] = (mcb_pick){S, r};
    ck_assert_msg(mcb_results_write(h5, csv, &ctx, picks, NRUNS, &err) == MCB_OK, "%s", err.msg);
    free(picks);
    mcb_results_src_close(&S);
    mcb_results_ctx_free(&ctx);
    unlink(jr);

    ck_assert_msg(mcb_results_src_open(h5, &S, &err) == MCB_OK, "%s", err.msg);
    long before = heap_kb();
    for (int r = 0; r < NRUNS; r++) {
        mcb_run_rec rec;
        ck_assert_msg(mcb_results_src_run(S, r, &rec, &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(rec.run_index, r);
        mcb_rec_free(&rec);
    }
    long grown = heap_kb() - before;
    mcb_results_src_close(&S);
    unlink(h5);
    unlink(csv);
    ck_assert_msg(grown < 6 * 1024, "reading %d runs left %ld KB more of the heap in use", NRUNS, grown);
}
END_TEST

int main(int argc, char **argv)
{
    int openblas = argc == 2 && strcmp(argv[1], "openblas") == 0;
    if (openblas && !dlsym(RTLD_DEFAULT, "openblas_get_num_threads"))
        return mcb_test_skip("the BLAS loaded is not OpenBLAS", NULL);
    Suite *s = suite_create("harness");
    TCase *tc = tcase_create("budgets");
    tcase_set_timeout(tc, 120);
    if (openblas) {
        tcase_add_test(tc, blas_threads_follow_settings);
    } else {
        tcase_add_test(tc, iteration_budget);
        tcase_add_test(tc, time_budget);
        tcase_add_test(tc, time_budget_spent_in_setup);
        tcase_add_test(tc, measurement_excluded_from_solve_time);
        tcase_add_test(tc, black_box_time_budget);
        tcase_add_test(tc, refused_problem_is_skipped);
        tcase_add_test(tc, divergence_and_setup_failure);
        tcase_add_test(tc, skipped_and_bad_params);
        tcase_add_test(tc, paused_clock);
        tcase_add_test(tc, results_store_every_value);
        tcase_add_loop_test(tc, results_round_trip, 0, 2);
        tcase_add_test(tc, results_read_in_bounded_memory);
    }
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

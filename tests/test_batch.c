/* test_batch.c: batched mode (solvers/batch.h, harness/batch.h): a batch
 * equals the one-by-one runs bit for bit (pgs, pj, ccp-jacobi on the small
 * fixtures and on quadruped steps), its throughput counts only the problems
 * judged solved, bad batch sizes are refused, a problem that fails leaves
 * the others running, and the time limit stops a batch part-way. */
#include <check.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"
#include "check_main.h"
#include "fixtures.h"
#include "harness/batch.h"
#include "lib/mcb_timer.h"
#include "problems/formulation/formulation.h"
#include "problems/scene/scenes.h"

/* ------------------------------------------------------------ problems */

/* The small fixtures and the steps of one quadruped (after landing: 1-4
 * contacts), n of them in all (cycled), with their metrics workspaces. */
typedef struct {
    int n;
    mcb_problem **P;
    mcb_problem_set *quad;
    mcb_metrics_ws **ws;
} problems;

static void add(problems *b, int *cap, mcb_problem *P)
{
    ck_assert_ptr_nonnull(P);
    if (b->n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        b->P = realloc(b->P, (size_t)*cap * sizeof *b->P);
        ck_assert_ptr_nonnull(b->P);
    }
    b->P[b->n++] = P;
}

static mcb_problem_set *quadruped_steps(void)
{
    const mcb_scene_def *def = mcb_scene_find("quadrupeds");
    ck_assert_ptr_nonnull(def);
    char *argv[] = {"--robots", "1", "--steps", "40"};
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err = {{0}};
    ck_assert_msg(mcb_scene_parse(def, 4, argv, vals, &err) == MCB_OK, "%s", err.msg);
    mcb_problem_set *S = NULL;
    ck_assert_msg(def->generate(vals, NULL, &S, &err) == MCB_OK, "%s", err.msg);
    return S;
}

static void make_ws(problems *b)
{
    b->ws = calloc((size_t)b->n, sizeof *b->ws);
    ck_assert_ptr_nonnull(b->ws);
    for (int k = 0; k < b->n; k++) {
        mcb_err err;
        ck_assert_int_eq(mcb_metrics_ws_new(b->P[k], &b->ws[k], &err), MCB_OK);
    }
}

static problems fixtures_and_quadruped(void)
{
    problems b = {0};
    int cap = 0;
    for (int s = FX_OPEN; s <= FX_SLIP; s++) {
        add(&b, &cap, fx_point_contact(s));
        add(&b, &cap, fx_compliant(s));
    }
    add(&b, &cap, fx_mixed());
    add(&b, &cap, fx_mixed_active());
    add(&b, &cap, fx_small_stack());
    add(&b, &cap, fx_aniso_slide());
    b.quad = quadruped_steps();
    for (int k = 0; k < b.quad->count; k++) add(&b, &cap, mcb_problem_copy(b.quad->items[k]));
    make_ws(&b);
    return b;
}

static void problems_free(problems *b)
{
    for (int k = 0; k < b->n; k++) {
        mcb_problem_free(&b->P[k]);
        mcb_metrics_ws_free(&b->ws[k]);
    }
    mcb_problem_set_free(&b->quad);
    free(b->P);
    free(b->ws);
}

static mcb_campaign_opts opts(int threads, int check_every, int max_iters)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.threads = threads;
    o.settings.max_iters = max_iters;
    o.settings.tol = 1e-8;
    o.settings.time_limit_s = 0;
    o.check_every = check_every;
    o.timing = MCB_TIMING_OBSERVED;
    o.save_solutions = 1;
    return o;
}

static mcb_run *batch(const problems *b, const mcb_solver_def *def, const mcb_campaign_opts *o,
                      mcb_batch_summary *sum)
{
    mcb_batch_def bd;
    mcb_batch_over(def, &bd);
    mcb_run *runs = calloc((size_t)b->n, sizeof *runs);
    ck_assert_ptr_nonnull(runs);
    mcb_err err = {{0}};
    ck_assert_msg(mcb_batch_run((const mcb_problem *const *)b->P, b->ws, b->n, &bd, NULL, o, runs,
                                sum, &err) == MCB_OK, "%s", err.msg);
    return runs;
}

static void runs_free(mcb_run *runs, int n)
{
    for (int k = 0; k < n; k++) mcb_run_clear(&runs[k]);
    free(runs);
}

static int same_bits(const double *a, const double *b, int len)
{
    return len == 0 || (a && b && !memcmp(a, b, (size_t)len * sizeof(double)));
}

/* ---------------------------------------------- batch = one by one */

static const char *const equal_solvers[] = {"pgs", "pj", "ccp-jacobi"};

START_TEST(batch_equals_one_by_one)
{
    const mcb_solver_def *def = mcb_solver_find(equal_solvers[_i % 3]);
    ck_assert_ptr_nonnull(def);
    problems b = fixtures_and_quadruped();
    /* the batch on 1 or 2 threads, the reference on 1: the CPU batch runs
     * each problem single-threaded whatever its thread count (on 1 thread
     * too, where its own region is inactive and the solver's would not be) */
    mcb_campaign_opts ob = opts(1 + _i / 3, 3, 2000), o1 = opts(1, 3, 2000);
    mcb_batch_summary sum;
    mcb_run *runs = batch(&b, def, &ob, &sum);
    int solved = 0, contacts = 0;
    for (int k = 0; k < b.n; k++) {
        mcb_run one = {0};
        mcb_err err;
        ck_assert_int_eq(mcb_run_one(b.P[k], b.ws[k], def, NULL, &o1, &one, &err), MCB_OK);
        const mcb_run *r = &runs[k];
        const char *name = b.P[k]->name;
        if (mcb_problem_is_aniso(b.P[k]) && !(def->accepts & MCB_ACCEPTS_ANISO)) {
            /* a batch hands the solver the stored problem: skipped, with why */
            ck_assert_int_eq(r->info.status, MCB_ST_SKIPPED);
            ck_assert_ptr_nonnull(strstr(r->info.reason, "anisotropic"));
            mcb_run_clear(&one);
            continue;
        }
        ck_assert_msg(r->info.status == one.info.status, "%s %s: status %s, one by one %s",
                      def->name, name, mcb_status_name(r->info.status),
                      mcb_status_name(one.info.status));
        ck_assert_msg(r->info.iterations == one.info.iterations, "%s %s: %d iterations, %d",
                      def->name, name, r->info.iterations, one.info.iterations);
        ck_assert_int_eq(r->own_status, one.own_status);
        ck_assert_int_eq(r->own_stop, one.own_stop);
        if (one.info.status != MCB_ST_SKIPPED) {
            ck_assert_msg(same_bits(r->v, one.v, b.P[k]->n) &&
                              same_bits(r->lambda, one.lambda, b.P[k]->m),
                          "%s %s: solutions differ", def->name, name);
            ck_assert_msg(!memcmp(r->final.val, one.final.val, sizeof r->final.val),
                          "%s %s: final metrics differ", def->name, name);
        }
        solved += r->info.status == MCB_ST_SOLVED;
        contacts += r->info.status == MCB_ST_SOLVED && r->ncontacts > 0 && r->info.iterations > 3;
        mcb_run_clear(&one);
    }
    /* the comparison is not empty: real solves with contacts */
    ck_assert_int_ge(contacts, 10);
    ck_assert_int_eq(sum.solved, solved);
    runs_free(runs, b.n);
    problems_free(&b);
}
END_TEST

/* ------------------------------------------------------ no allocation */

#if COUNT_MALLOC
/* The batch's callback for the allocation count: counts from the first
 * judgement on, never stops a problem. */
static mcb_cb_action count_from_first(void *ctx, int k, int iter, double own)
{
    (void)ctx;
    (void)k;
    (void)iter;
    (void)own;
    __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
    return MCB_CB_CONTINUE;
}
#endif

START_TEST(no_allocation_in_the_iterations)
{
#if COUNT_MALLOC
    const mcb_solver_def *def = mcb_solver_find(equal_solvers[_i]);
    problems b = fixtures_and_quadruped();
    mcb_batch_def bd;
    mcb_batch_over(def, &bd);
    mcb_settings s;
    mcb_settings_default(&s);
    s.threads = 2;
    mcb_info *info = calloc((size_t)b.n, sizeof *info);
    ck_assert_ptr_nonnull(info);
    void *work = NULL;
    mcb_err err;
    ck_assert_int_eq(bd.setup(&bd, (const mcb_problem *const *)b.P, b.n, &s, NULL, &work, info,
                              &err), MCB_OK);
    mcb_batch_settings bs = {s, 1, 0.0};
    bs.s.max_iters = 40;
    bs.s.time_limit_s = 0;
    double solve_s;
    nalloc = 0;
    mcb_rc rc = bd.solve(work, &bs, NULL, count_from_first, NULL, info, &solve_s);
    __atomic_store_n(&counting, 0, __ATOMIC_RELAXED); /* before Check's own allocations */
    ck_assert_int_eq(rc, MCB_OK);
    ck_assert_msg(nalloc == 0, "%s batch: %ld allocations in the iterations", def->name, nalloc);
    int ran = 0;
    for (int k = 0; k < b.n; k++) ran += info[k].iterations > 1;
    ck_assert_int_gt(ran, 10);
    bd.free(&work);
    free(info);
    problems_free(&b);
#endif
}
END_TEST

/* ------------------------------------------------------------ throughput */

START_TEST(throughput_counts_solved_only)
{
    mcb_run runs[5];
    memset(runs, 0, sizeof runs);
    int st[5] = {MCB_ST_SOLVED, MCB_ST_MAX_ITERS, MCB_ST_SOLVED, MCB_ST_STALLED, MCB_ST_SOLVED};
    for (int k = 0; k < 5; k++) runs[k].info.status = st[k];
    int solved = -1;
    ck_assert_double_eq(mcb_batch_throughput(runs, 5, 0.5, &solved), 6.0);
    ck_assert_int_eq(solved, 3);
    ck_assert_double_eq(mcb_batch_throughput(runs, 5, 0.0, &solved), 0.0);

    /* a real batch whose budget leaves some problems unsolved */
    problems b = fixtures_and_quadruped();
    mcb_campaign_opts o = opts(2, 1, 4);
    mcb_batch_summary sum;
    mcb_run *r = batch(&b, mcb_solver_find("pgs"), &o, &sum);
    int met = 0, unmet = 0;
    for (int k = 0; k < b.n; k++) {
        met += r[k].info.status == MCB_ST_SOLVED;
        unmet += r[k].info.status == MCB_ST_MAX_ITERS;
    }
    ck_assert_int_gt(met, 0);
    ck_assert_int_gt(unmet, 0);
    ck_assert_int_eq(sum.solved, met);
    ck_assert_int_eq(sum.n, b.n);
    ck_assert(sum.solve_s > 0);
    ck_assert_double_eq(sum.throughput, met / sum.solve_s);
    runs_free(r, b.n);
    problems_free(&b);
}
END_TEST

/* --------------------------------------------------------------- bad input */

START_TEST(bad_batch_sizes)
{
    long bad[3] = {0, -4, (long)MCB_BATCH_MAX + 1};
    for (int k = 0; k < 3; k++) {
        mcb_err err = {{0}};
        ck_assert_int_eq(mcb_batch_check_n(bad[k], &err), MCB_E_INPUT);
        ck_assert_ptr_nonnull(strstr(err.msg, "batch size"));
    }
    mcb_err err;
    ck_assert_int_eq(mcb_batch_check_n(1, &err), MCB_OK);
    ck_assert_int_eq(mcb_batch_check_n(MCB_BATCH_MAX, &err), MCB_OK);
    /* the batch itself refuses them too, and a formulation */
    problems b = {0};
    int cap = 0;
    add(&b, &cap, fx_point_contact(FX_STICK));
    make_ws(&b);
    mcb_campaign_opts o = opts(1, 1, 100);
    mcb_batch_def bd;
    mcb_batch_over(mcb_solver_find("pgs"), &bd);
    mcb_run run = {0};
    mcb_batch_summary sum;
    ck_assert_int_eq(mcb_batch_run((const mcb_problem *const *)b.P, b.ws, 0, &bd, NULL, &o, &run,
                                   &sum, &err), MCB_E_INPUT);
    o.formulation = MCB_FORM_NCP + 1;
    ck_assert_int_eq(mcb_batch_run((const mcb_problem *const *)b.P, b.ws, 1, &bd, NULL, &o, &run,
                                   &sum, &err), MCB_E_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "formulation"));
    problems_free(&b);
}
END_TEST

START_TEST(registry)
{
    mcb_batch_def buf;
    const mcb_batch_def *d = mcb_batch_find("pj", &buf);
    ck_assert_ptr_nonnull(d);
    ck_assert_ptr_eq(d->base, mcb_solver_find("pj"));
    ck_assert_str_eq(d->name, "pj");
    ck_assert_ptr_null(mcb_batch_find("no-such-solver", &buf));
    for (int k = 0; k < mcb_batch_count(); k++) ck_assert_ptr_nonnull(mcb_batch_at(k)->base);
    ck_assert_ptr_null(mcb_batch_at(mcb_batch_count()));
}
END_TEST

/* ------------------------------------------- a test solver that misbehaves
 * On the point contact: setup fails on a problem named "bad"; on one named
 * "nan" the iterate is NaN; on the others it is zero until iteration 3,
 * then the exact solution; each iteration takes `iter_s` of busy time. */
typedef struct {
    const mcb_problem *P;
    int iter;
    int state;
} fake_work;

static double iter_s;
static int widest_team; /* the most threads a parallel region of the solver had */

/* The threads a parallel region opened here gets (a solver's own). */
static int team_here(void)
{
    int team = 0;
#pragma omp parallel
    {
#pragma omp single
        team = omp_get_num_threads();
    }
    return team;
}

static void fake_defaults(void *p) { *(double *)p = 0; }

static mcb_rc fake_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                         void **work, mcb_err *err)
{
    (void)s;
    (void)params;
    if (!strcmp(P->name, "bad")) return mcb_fail(err, MCB_E_INPUT, "the test refuses 'bad'");
    fake_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->state = P->b[2] > 0 ? FX_OPEN : P->b[0] < 1 ? FX_STICK : FX_SLIP;
    *work = w;
    return MCB_OK;
}

static int fake_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    fake_work *w = work;
    int team = team_here();
#pragma omp critical
    if (team > widest_team) widest_team = team;
    for (int k = 1; k <= s->max_iters; k++) {
        double t0 = mcb_now_s();
        while (mcb_now_s() - t0 < iter_s) {
        }
        w->iter++;
        info->iterations = k;
        mcb_cb_action a = cb(ctx, k, 0.0);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
    }
    return MCB_ST_MAX_ITERS;
}

static void fake_iterate(void *work, double *v, double *lambda)
{
    fake_work *w = work;
    double vs[3], ls[3];
    fx_point_solution(w->state, vs, ls);
    for (int j = 0; j < 3; j++) {
        double x = w->iter >= 3 ? 1.0 : 0.0;
        if (!strcmp(w->P->name, "nan")) x = NAN;
        if (v) v[j] = x * vs[j];
        lambda[j] = x * ls[j];
    }
}

static void fake_free(void **work)
{
    free(*work);
    *work = NULL;
}

static const mcb_solver_def fake = {.name = "fake", .accepts = MCB_ACCEPTS_PRIMAL,
                                    .params_size = sizeof(double), .default_params = fake_defaults,
                                    .setup = fake_setup, .solve = fake_solve,
                                    .iterate = fake_iterate, .free = fake_free};

static void rename_problem(mcb_problem *P, const char *name)
{
    free(P->name);
    P->name = strdup(name);
    ck_assert_ptr_nonnull(P->name);
}

START_TEST(one_failure_rest_continue)
{
    problems b = {0};
    int cap = 0;
    for (int k = 0; k < 9; k++) add(&b, &cap, fx_point_contact(FX_STICK + k % 2));
    rename_problem(b.P[2], "bad");
    rename_problem(b.P[5], "nan");
    make_ws(&b);
    iter_s = 0;
    mcb_campaign_opts o = opts(2, 1, 50);
    mcb_batch_summary sum;
    mcb_run *r = batch(&b, &fake, &o, &sum);
    for (int k = 0; k < b.n; k++) {
        if (k == 2) {
            ck_assert_int_eq(r[k].info.status, MCB_ST_SETUP_FAILED);
            ck_assert_ptr_nonnull(strstr(r[k].info.reason, "refuses 'bad'"));
        } else if (k == 5) {
            ck_assert_int_eq(r[k].info.status, MCB_ST_DIVERGED);
            ck_assert_int_eq(r[k].info.iterations, 1);
        } else {
            ck_assert_msg(r[k].info.status == MCB_ST_SOLVED, "problem %d: %s", k,
                          mcb_status_name(r[k].info.status));
            ck_assert_int_eq(r[k].info.iterations, 3);
        }
    }
    ck_assert_int_eq(sum.solved, b.n - 2);
    runs_free(r, b.n);
    problems_free(&b);
}
END_TEST

/* Each problem single-threaded inside, on 1 thread (the batch's region
 * inactive) as on 2, whatever OpenMP's default. */
START_TEST(single_threaded_inside)
{
    problems b = {0};
    int cap = 0;
    for (int k = 0; k < 6; k++) add(&b, &cap, fx_point_contact(FX_STICK));
    make_ws(&b);
    iter_s = 0;
    omp_set_num_threads(2);
    ck_assert_int_eq(team_here(), 2);
    for (int t = 1; t <= 2; t++) {
        widest_team = 0;
        mcb_campaign_opts o = opts(t, 1, 50);
        mcb_batch_summary sum;
        mcb_run *r = batch(&b, &fake, &o, &sum);
        ck_assert_int_eq(sum.solved, b.n);
        ck_assert_msg(widest_team == 1, "on %d batch threads a solver's region had %d", t,
                      widest_team);
        runs_free(r, b.n);
    }
    ck_assert_int_eq(team_here(), 2); /* left as it was */
    problems_free(&b);
}
END_TEST

START_TEST(time_limit_mid_batch)
{
    problems b = {0};
    int cap = 0;
    for (int k = 0; k < 40; k++) add(&b, &cap, fx_point_contact(FX_SLIP));
    make_ws(&b);
    iter_s = 0.01; /* 10 ms per iteration, 3 iterations per problem: 40 problems > 1 s */
    mcb_campaign_opts o = opts(1, 1, 50);
    o.settings.time_limit_s = 0.25;
    mcb_batch_summary sum;
    mcb_run *r = batch(&b, &fake, &o, &sum);
    ck_assert_int_eq(r[0].info.status, MCB_ST_SOLVED);
    ck_assert_int_eq(r[b.n - 1].info.status, MCB_ST_TIME_LIMIT);
    ck_assert_int_eq(r[b.n - 1].info.iterations, 0);
    ck_assert_ptr_nonnull(strstr(r[b.n - 1].info.reason, "time limit"));
    int limited = 0;
    for (int k = 0; k < b.n; k++) {
        if (limited) ck_assert_int_eq(r[k].info.status, MCB_ST_TIME_LIMIT); /* one thread: in order */
        limited |= r[k].info.status == MCB_ST_TIME_LIMIT;
    }
    ck_assert_int_lt(sum.solved, b.n);
    ck_assert(sum.setup_s + sum.solve_s >= o.settings.time_limit_s);
    runs_free(r, b.n);
    problems_free(&b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("batch");
    TCase *tc = tcase_create("batch");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, batch_equals_one_by_one, 0, 6);
    tcase_add_loop_test(tc, no_allocation_in_the_iterations, 0, 3);
    tcase_add_test(tc, throughput_counts_solved_only);
    tcase_add_test(tc, bad_batch_sizes);
    tcase_add_test(tc, registry);
    tcase_add_test(tc, one_failure_rest_continue);
    tcase_add_test(tc, single_threaded_inside);
    tcase_add_test(tc, time_limit_mid_batch);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

/* test_warm.c: where each run of a replay campaign starts (mcbench run
 * --warm-start none|recorded|own; docs/metrics.md, "Warm starts"), on a
 * small recorded sequence (three steps of a 2x2x2 stack from the
 * generator). A probe solver records the start it receives and returns a
 * solution of its own per run, so that "own" can be checked exactly: the
 * second step starts from what the first returned, every repetition of a
 * step from the same start; none starts from zero and recorded from the
 * file; a previous step without a usable solution, a step that does not
 * follow and changed constraint blocks fall back as documented; PGS
 * warm-started from its own converged answer of an identical step needs at
 * most one iteration, in process and isolated alike; a resumed campaign
 * starts its steps where one process would have; own with --shard, --mpi
 * or without saved solutions is refused. */
#define _GNU_SOURCE
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/campaign.h"
#include "problems/gen_stack.h"

/* ---------------------------------------------------------- the probe */

#define PROBE_MAX 16
static int probe_runs;                       /* setup() calls */
static double *probe_seen_v[PROBE_MAX], *probe_seen_l[PROBE_MAX]; /* the start received */
static double *probe_out_v[PROBE_MAX], *probe_out_l[PROBE_MAX];   /* the solution returned */
static int probe_nan_run = -1;               /* this run returns NaN */

typedef struct {
    int id, n, m;
} probe_work;

static void probe_defaults(void *p) { (void)p; }

/* What a solver does with s->warm_start: P's guess when set, else zero. */
static double *start_of(const double *x, int warm, int len)
{
    double *out = calloc((size_t)len + 1, sizeof *out);
    for (int k = 0; warm && x && k < len; k++) out[k] = x[k];
    return out;
}

static mcb_rc probe_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                          void **work, mcb_err *err)
{
    (void)params, (void)err;
    probe_work *w = calloc(1, sizeof *w);
    w->id = probe_runs++;
    w->n = P->n;
    w->m = P->m;
    ck_assert_int_lt(w->id, PROBE_MAX);
    probe_seen_v[w->id] = start_of(P->v0, s->warm_start, P->n);
    probe_seen_l[w->id] = start_of(P->lambda0, s->warm_start, P->m);
    *work = w;
    return MCB_OK;
}

static int probe_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                       mcb_info *info)
{
    (void)work;
    for (int k = 1; k <= s->max_iters; k++) {
        info->iterations = k;
        mcb_cb_action a = cb(ctx, k, NAN);
        if (a) return mcb_status_from_cb(a);
    }
    return MCB_ST_MAX_ITERS;
}

/* A solution that names its run: v_k = id + k / 8, lambda_k = 100 id + k. */
static void probe_iterate(void *work, double *v, double *lambda)
{
    probe_work *w = work;
    for (int k = 0; k < w->n; k++) v[k] = w->id + k / 8.0;
    for (int k = 0; k < w->m; k++) lambda[k] = w->id == probe_nan_run ? NAN : 100.0 * w->id + k;
    if (!probe_out_v[w->id]) {
        probe_out_v[w->id] = start_of(v, 1, w->n);
        probe_out_l[w->id] = start_of(lambda, 1, w->m);
    }
}

static void probe_free(void **work)
{
    if (work) {
        free(*work);
        *work = NULL;
    }
}

static const mcb_solver_def probe = {.name = "probe", .description = "test solver",
                                     .reference = "none", .accepts = MCB_ACCEPTS_PRIMAL,
                                     .params_size = 0, .default_params = probe_defaults,
                                     .setup = probe_setup, .solve = probe_solve,
                                     .iterate = probe_iterate, .free = probe_free};

static void probe_reset(void)
{
    for (int k = 0; k < PROBE_MAX; k++) {
        free(probe_seen_v[k]);
        free(probe_seen_l[k]);
        free(probe_out_v[k]);
        free(probe_out_l[k]);
        probe_seen_v[k] = probe_seen_l[k] = probe_out_v[k] = probe_out_l[k] = NULL;
    }
    probe_runs = 0;
    probe_nan_run = -1;
}

/* ------------------------------------------------------- the sequence */

/* Three consecutive steps of a 2x2x2 stack (the generator records v0, the
 * bodies' velocities; lambda0 = 0.25 is added so that the recorded guess
 * is visible in lambda too). */
static mcb_problem_set *sequence(void)
{
    mcb_stack_opts o;
    mcb_stack_defaults(&o);
    o.nx = o.ny = o.nz = 2;
    o.steps = 3;
    mcb_problem_set *S = NULL;
    ck_assert_int_eq(mcb_gen_stack(&o, &S, NULL), MCB_OK);
    for (int p = 0; p < S->count; p++) {
        mcb_problem *P = S->items[p];
        ck_assert_int_eq(P->step, p);
        ck_assert_ptr_nonnull(P->v0);
        free(P->lambda0);
        P->lambda0 = malloc((size_t)P->m * sizeof *P->lambda0);
        for (int k = 0; k < P->m; k++) P->lambda0[k] = 0.25;
    }
    return S;
}

/* The options of these campaigns: every check exact, the observed time. */
static void test_opts(mcb_campaign_opts *o, int mode, int R, int iters, double tol)
{
    mcb_campaign_defaults(o);
    o->settings.max_iters = iters;
    o->settings.tol = tol;
    o->settings.time_limit_s = 5;
    o->settings.warm_start = mode;
    o->save_solutions = mode == MCB_WARM_OWN;
    o->check_every = 1;
    o->timing = MCB_TIMING_OBSERVED;
    o->repeat = R;
}

/* A campaign of `def` on S under `mode` (repeat R, isolated or not); its
 * results read back (the records' start included). */
static mcb_results_data *campaign(mcb_problem_set *S, const mcb_solver_def *def, int mode,
                                  int R, int isolate, int iters, double tol)
{
    mcb_input in = {.set_name = "seq", .problems = S};
    mcb_solver_choice ch = {def, NULL, NULL};
    mcb_campaign_opts o;
    test_opts(&o, mode, R, iters, tol);
    char h5[256], csv[256];
    snprintf(h5, sizeof h5, "/tmp/mcb_warm_%ld.h5", (long)getpid());
    snprintf(csv, sizeof csv, "/tmp/mcb_warm_%ld.csv", (long)getpid());
    mcb_campaign C = {.in = &in, .nin = 1, .solvers = &ch, .nsolvers = 1, .o = &o,
                      .command = "test", .h5_path = h5, .csv_path = csv,
                      .isolate = isolate ? MCB_ISOLATE_ALWAYS : MCB_ISOLATE_NEVER,
                      .mem_limit_mb = 4096, .grace_s = 5};
    mcb_err err;
    ck_assert_msg(mcb_campaign_run(&C, &err) == MCB_OK, "%s", err.msg);
    mcb_results_data *D = NULL;
    ck_assert_msg(mcb_results_read(h5, &D, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(D->warm_start, mode);
    /* the CSV names the mode and each run's start, in its columns
     * warm_start and start (before reason and the machine's state, the last) */
    FILE *f = fopen(csv, "r");
    char line[8192];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_ptr_nonnull(
        strstr(line, ",warm_start,start,reason,load_avg,cpu_mhz,cpu_max_mhz,others_share\n"));
    int col = 0; /* the column of warm_start */
    for (const char *c = line; c < strstr(line, ",warm_start,"); c++) col += *c == ',';
    col++;
    for (int k = 0; k < D->count; k++) {
        char want[64];
        ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
        const char *c = line;
        for (int j = 0; j < col && c; j++) c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
        ck_assert_ptr_nonnull(c);
        snprintf(want, sizeof want, "%s,%s,", mcb_warm_name(mode),
                 mcb_start_name(D->runs[k].start));
        ck_assert_msg(!strncmp(c, want, strlen(want)), "CSV row %d: '%s' where '%s' belongs",
                      k, c, want);
    }
    fclose(f);
    unlink(h5);
    unlink(csv);
    return D;
}

static void assert_same(const double *a, const double *b, int len, const char *what)
{
    for (int k = 0; k < len; k++)
        ck_assert_msg(a[k] == b[k], "%s: entry %d is %g, expected %g", what, k, a[k], b[k]);
}

static void assert_value(const double *a, double x, int len, const char *what)
{
    for (int k = 0; k < len; k++)
        ck_assert_msg(a[k] == x, "%s: entry %d is %g, expected %g", what, k, a[k], x);
}

/* ----------------------------------------------------------- the tests */

/* own: the first step from the file; each later step, every repetition,
 * from what the first repetition of the previous step returned. */
START_TEST(own_starts_from_previous_solution)
{
    probe_reset();
    mcb_problem_set *S = sequence();
    mcb_results_data *D = campaign(S, &probe, MCB_WARM_OWN, 2, 0, 1, 0);
    ck_assert_int_eq(D->count, 6);
    ck_assert_int_eq(probe_runs, 6);
    for (int p = 0; p < 3; p++) {
        const mcb_problem *P = S->items[p];
        for (int rep = 0; rep < 2; rep++) {
            int run = 2 * p + rep;
            ck_assert_int_eq(D->runs[run].start, p ? MCB_START_OWN : MCB_START_RECORDED);
            if (p == 0) {
                assert_same(probe_seen_v[run], P->v0, P->n, "first step's v");
                assert_value(probe_seen_l[run], 0.25, P->m, "first step's lambda");
            } else {
                int prev = 2 * (p - 1); /* the previous step's first repetition */
                assert_same(probe_seen_v[run], probe_out_v[prev], P->n, "own v");
                assert_same(probe_seen_l[run], probe_out_l[prev], P->m, "own lambda");
            }
        }
    }
    mcb_results_data_free(&D);
    mcb_problem_set_free(&S);
    probe_reset();
}
END_TEST

/* none (_i 0): every run from zero; recorded (_i 1): from the file's guess. */
START_TEST(none_or_recorded_start)
{
    probe_reset();
    mcb_problem_set *S = sequence();
    int mode = _i ? MCB_WARM_RECORDED : MCB_WARM_NONE;
    mcb_results_data *D = campaign(S, &probe, mode, 1, 0, 1, 0);
    for (int p = 0; p < 3; p++) {
        const mcb_problem *P = S->items[p];
        ck_assert_int_eq(D->runs[p].start, (_i ? MCB_START_RECORDED : MCB_START_ZERO));
        if (_i) assert_same(probe_seen_v[p], P->v0, P->n, "recorded: v");
        else assert_value(probe_seen_v[p], 0.0, P->n, "none: v");
        assert_value(probe_seen_l[p], _i ? 0.25 : 0.0, P->m, "lambda");
    }
    mcb_results_data_free(&D);
    mcb_problem_set_free(&S);
    probe_reset();
}
END_TEST

/* A previous step whose solution is not finite: the next starts from the
 * file (fallback), the one after from that step's own solution again. */
START_TEST(own_falls_back_after_a_failed_step)
{
    probe_reset();
    probe_nan_run = 0;
    mcb_problem_set *S = sequence();
    mcb_results_data *D = campaign(S, &probe, MCB_WARM_OWN, 1, 0, 1, 0);
    ck_assert_int_eq(D->runs[1].start, MCB_START_FALLBACK);
    assert_same(probe_seen_v[1], S->items[1]->v0, S->items[1]->n, "fallback: v");
    assert_value(probe_seen_l[1], 0.25, S->items[1]->m, "fallback: lambda");
    ck_assert_int_eq(D->runs[2].start, MCB_START_OWN);
    assert_same(probe_seen_l[2], probe_out_l[1], S->items[2]->m, "own after the fallback");
    mcb_results_data_free(&D);
    mcb_problem_set_free(&S);
    probe_reset();
}
END_TEST

/* Step 1's first contact split into three unilateral rows (the same m,
 * other blocks): v is carried, lambda recorded (own-v); step 2 follows no
 * step (its index jumps): the recorded guess, as a first step. */
START_TEST(own_changed_blocks_and_gaps)
{
    probe_reset();
    mcb_problem_set *S = sequence();
    mcb_problem *P = S->items[1];
    int b0 = -1;
    for (int b = 0; b < P->nblocks && b0 < 0; b++)
        if (P->blocks[b].type == MCB_CONTACT) b0 = b;
    ck_assert_int_ge(b0, 0);
    mcb_block *blocks = calloc((size_t)P->nblocks + 2, sizeof *blocks);
    memcpy(blocks, P->blocks, (size_t)b0 * sizeof *blocks);
    for (int r = 0; r < 3; r++)
        blocks[b0 + r] = (mcb_block){MCB_UNILATERAL, P->blocks[b0].row + r, 1, 0, 0, 0};
    memcpy(blocks + b0 + 3, P->blocks + b0 + 1, (size_t)(P->nblocks - b0 - 1) * sizeof *blocks);
    free(P->blocks);
    P->blocks = blocks;
    P->nblocks += 2;
    S->items[2]->step = 7;
    mcb_results_data *D = campaign(S, &probe, MCB_WARM_OWN, 1, 0, 1, 0);
    ck_assert_int_eq(D->runs[1].start, MCB_START_OWN_V);
    assert_same(probe_seen_v[1], probe_out_v[0], P->n, "own-v: v");
    assert_value(probe_seen_l[1], 0.25, P->m, "own-v: lambda");
    ck_assert_int_eq(D->runs[2].start, MCB_START_RECORDED);
    assert_same(probe_seen_v[2], S->items[2]->v0, S->items[2]->n, "a gap: v");
    mcb_results_data_free(&D);
    mcb_problem_set_free(&S);
    probe_reset();
}
END_TEST

/* PGS on the same step twice (steps 0 and 1 of one trajectory): from its
 * own converged answer the second solve needs at most one iteration, where
 * the recorded guess takes many; the same when each run is isolated (the
 * solution comes back from the child). */
START_TEST(own_converged_answer_needs_no_work)
{
    const mcb_solver_def *pgs = mcb_solver_find("pgs");
    ck_assert_ptr_nonnull(pgs);
    for (int isolate = 0; isolate < 2; isolate++) {
        mcb_problem_set *S = sequence();
        mcb_problem_free(&S->items[1]);
        S->items[1] = mcb_problem_copy(S->items[0]);
        S->items[1]->step = 1;
        free(S->items[1]->name);
        S->items[1]->name = strdup("again");
        mcb_problem_free(&S->items[2]);
        S->count = 2;
        mcb_results_data *R = campaign(S, pgs, MCB_WARM_RECORDED, 1, isolate, 5000, 1e-10);
        mcb_results_data *D = campaign(S, pgs, MCB_WARM_OWN, 1, isolate, 5000, 1e-10);
        ck_assert_int_eq(D->runs[0].status, MCB_ST_SOLVED);
        ck_assert_int_eq(D->runs[1].status, MCB_ST_SOLVED);
        ck_assert_int_eq(D->runs[1].start, MCB_START_OWN);
        ck_assert_msg(D->runs[1].iterations <= 1, "own: %d iterations (recorded: %d)",
                      D->runs[1].iterations, R->runs[1].iterations);
        ck_assert_int_gt(R->runs[1].iterations, 10);
        mcb_results_data_free(&R);
        mcb_results_data_free(&D);
        mcb_problem_set_free(&S);
    }
}
END_TEST

/* --resume: a campaign of steps 0-1, then resumed with all three, starts
 * step 2 from step 1's recorded solution: the same start, iterations and
 * residual as one uninterrupted campaign. */
START_TEST(own_resumed_starts_from_the_recorded_step)
{
    const mcb_solver_def *pgs = mcb_solver_find("pgs");
    mcb_problem_set *S = sequence();
    mcb_results_data *U = campaign(S, pgs, MCB_WARM_OWN, 1, 0, 5000, 1e-8);
    ck_assert_int_eq(U->runs[2].start, MCB_START_OWN);
    mcb_input in = {.set_name = "seq", .problems = S};
    mcb_solver_choice ch = {pgs, NULL, NULL};
    mcb_campaign_opts o;
    test_opts(&o, MCB_WARM_OWN, 1, 5000, 1e-8);
    char h5[256], csv[256];
    snprintf(h5, sizeof h5, "/tmp/mcb_warm_res_%ld.h5", (long)getpid());
    snprintf(csv, sizeof csv, "/tmp/mcb_warm_res_%ld.csv", (long)getpid());
    const char *first[] = {"*step0000", "*step0001"};
    mcb_campaign C = {.in = &in, .nin = 1, .solvers = &ch, .nsolvers = 1, .o = &o,
                      .command = "test", .h5_path = h5, .csv_path = csv,
                      .isolate = MCB_ISOLATE_NEVER, .include = first, .ninclude = 2};
    mcb_err err;
    ck_assert_msg(mcb_campaign_run(&C, &err) == MCB_OK, "%s", err.msg);
    C.include = NULL;
    C.ninclude = 0;
    C.resume = 1;
    ck_assert_msg(mcb_campaign_run(&C, &err) == MCB_OK, "%s", err.msg);
    mcb_results_data *D = NULL;
    ck_assert_msg(mcb_results_read(h5, &D, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(D->count, 3);
    for (int k = 0; k < 3; k++) {
        const mcb_run_rec *a = &U->runs[k], *b = NULL;
        for (int j = 0; j < 3; j++)
            if (D->runs[j].problem_index == a->problem_index) b = &D->runs[j];
        ck_assert_ptr_nonnull(b);
        ck_assert_int_eq(b->start, a->start);
        ck_assert_int_eq(b->iterations, a->iterations);
        ck_assert_double_eq(b->final.val[MCB_M_NATMAP], a->final.val[MCB_M_NATMAP]);
    }
    unlink(h5);
    unlink(csv);
    mcb_results_data_free(&U);
    mcb_results_data_free(&D);
    mcb_problem_set_free(&S);
}
END_TEST

/* What cannot keep a trajectory's steps in order in one process. */
START_TEST(own_refuses_shards_mpi)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.warm_start = MCB_WARM_OWN;
    o.save_solutions = 1;
    mcb_campaign C = {.o = &o};
    mcb_err err;
    ck_assert_int_eq(mcb_campaign_check_warm(&C, &err), MCB_OK);
    const char *want[] = {"--shard", "--mpi", "saving the solutions"};
    for (int k = 0; k < 3; k++) {
        mcb_campaign D = C;
        mcb_campaign_opts p = o;
        D.o = &p;
        if (k == 0) D.nshards = 2;
        if (k == 1) D.mpi = 1;
        if (k == 2) p.save_solutions = 0;
        ck_assert_int_eq(mcb_campaign_check_warm(&D, &err), MCB_E_INPUT);
        ck_assert_msg(strstr(err.msg, "--warm-start own") && strstr(err.msg, want[k]), "%s",
                      err.msg);
    }
    /* a campaign refuses before any work: no results, no journal */
    mcb_problem_set *S = sequence();
    mcb_input in = {.set_name = "seq", .problems = S};
    mcb_solver_choice ch = {&probe, NULL, NULL};
    char h5[256];
    snprintf(h5, sizeof h5, "/tmp/mcb_warm_shard_%ld.h5", (long)getpid());
    mcb_campaign E = {.in = &in, .nin = 1, .solvers = &ch, .nsolvers = 1, .o = &o,
                      .command = "test", .h5_path = h5, .csv_path = "/tmp/mcb_warm_shard.csv",
                      .isolate = MCB_ISOLATE_NEVER, .shard = 0, .nshards = 2};
    probe_reset();
    ck_assert_int_eq(mcb_campaign_run(&E, &err), MCB_E_INPUT);
    ck_assert_int_eq(probe_runs, 0);
    ck_assert_int_ne(access(h5, F_OK), 0);
    /* a mode that is none of the three */
    o.settings.warm_start = 3;
    ck_assert_int_eq(mcb_campaign_check_warm(&C, &err), MCB_E_INPUT);
    mcb_problem_set_free(&S);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("warm");
    TCase *tc = tcase_create("warm");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, own_starts_from_previous_solution);
    tcase_add_loop_test(tc, none_or_recorded_start, 0, 2);
    tcase_add_test(tc, own_falls_back_after_a_failed_step);
    tcase_add_test(tc, own_changed_blocks_and_gaps);
    tcase_add_test(tc, own_converged_answer_needs_no_work);
    tcase_add_test(tc, own_resumed_starts_from_the_recorded_step);
    tcase_add_test(tc, own_refuses_shards_mpi);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

/* test_siconos.c: our natural-map residual equals the error Siconos 4.4
 * computes (fc3d_compute_error, gfc3d_compute_error) for the same (v,
 * lambda), to 1e-6 relative, on the contact fixtures (primal and dual), a
 * generated sphere stack and the shared FCLIB problems (one ctest entry per
 * file, reported as skipped when it is absent);
 * at the starting point, after a few PGS sweeps and at a random point. Also:
 * problems Siconos cannot hold are refused with a reason; the siconos_*
 * peers' own tolerance is the harness's --tol (a run stops at the first
 * iteration whose error is below it, not at a tenth of it; own_tol
 * overrides it); and, per peer and form (on a stack and on each shared
 * file), the callback is called every iteration or never, as
 * solvers/peers/siconos_peer.c says, and an answer other than CONTINUE stops the
 * driver at that iteration exactly where the peer is not black_box for
 * that form. Built only with Siconos. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "problems/gen_stack.h"
#include "problems/import_fclib.h"
#include "lib/mcb_delassus.h"
#include "solvers/peers/siconos_peer.h"
#include "metrics/metrics.h"
#include "harness/runner.h"

static const char *shared_files[] = {
    "Box_Stacks-i0122-82-5.hdf5",
    "Capsules-i125-1213.hdf5",
    "CubeH8.hdf5",
    "LMGC_GlobalFrictionContactProblem00046.hdf5",
};
enum { NFIXTURES = 8, NSHARED = 4 };

/* The first step of a generated 3x3x2 sphere stack (42 contacts). */
static mcb_problem *stack_3x3x2(void)
{
    mcb_err err;
    mcb_stack_opts so;
    mcb_stack_defaults(&so);
    so.nx = 3;
    so.ny = 3;
    so.nz = 2;
    so.steps = 1;
    mcb_problem_set *S = NULL;
    ck_assert_msg(mcb_gen_stack(&so, &S, &err) == MCB_OK, "%s", err.msg);
    mcb_problem *P = S->items[0];
    S->items[0] = NULL;
    S->count = 0;
    mcb_problem_set_free(&S);
    return P;
}

/* The dual (Delassus) form of a primal problem: W = J A^-1 J^T,
 * q = J A^-1 b + e, the same blocks. */
static mcb_problem *dual_of(const mcb_problem *P)
{
    mcb_delassus *D = NULL;
    mcb_err err;
    ck_assert_msg(mcb_delassus_build(P, &D, &err) == MCB_OK, "%s", err.msg);
    mcb_problem *Q = mcb_problem_new();
    ck_assert_ptr_nonnull(Q);
    Q->form = MCB_DUAL;
    Q->m = P->m;
    Q->W = D->W;
    Q->q = D->q;
    D->W = NULL;
    D->q = NULL;
    mcb_delassus_free(&D);
    Q->nblocks = P->nblocks;
    Q->blocks = malloc(sizeof(mcb_block) * (size_t)P->nblocks);
    ck_assert_ptr_nonnull(Q->blocks);
    memcpy(Q->blocks, P->blocks, sizeof(mcb_block) * (size_t)P->nblocks);
    ck_assert_int_eq(mcb_problem_validate(Q, "dual_of", &err), MCB_OK);
    return Q;
}

/* Problem k of the table: fixtures first, then the shared files (NULL when
 * absent). */
static mcb_problem *problem_at(int k, char *name, size_t len)
{
    static const int states[3] = {FX_OPEN, FX_STICK, FX_SLIP};
    if (k < 3) {
        snprintf(name, len, "point contact (primal) state %d", k);
        return fx_point_contact(states[k]);
    }
    if (k < 6) {
        snprintf(name, len, "point contact (dual) state %d", k - 3);
        return fx_point_contact_dual(states[k - 3]);
    }
    if (k == 6) {
        snprintf(name, len, "small stack");
        return fx_small_stack();
    }
    if (k == 7) {
        snprintf(name, len, "stack 3x3x2");
        return stack_3x3x2();
    }
    snprintf(name, len, "%s/fclib/%s", mcb_test_shared_dir(), shared_files[k - NFIXTURES]);
    ck_assert_msg(access(name, R_OK) == 0, "%s absent", name);
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(name, &P, &err) == MCB_OK, "%s", err.msg);
    return P;
}

static void expect_agreement(const char *name, const char *point, double ours, double theirs)
{
    double diff = fabs(ours - theirs);
    ck_assert_msg(isfinite(ours) && isfinite(theirs), "%s, %s: non-finite", name, point);
    ck_assert_msg(diff <= 1e-6 * fabs(theirs) || diff <= 1e-14,
                  "%s, %s: natmap %.15g, Siconos %.15g (relative difference %.2e)", name, point,
                  ours, theirs, diff / fabs(theirs));
}

/* PGS stopped after a fixed number of sweeps (the harness's callback). */
static int sweeps;
static mcb_cb_action stop_after(void *ctx, int iter, double own)
{
    (void)ctx;
    (void)own;
    return iter >= sweeps ? MCB_CB_CONVERGED : MCB_CB_CONTINUE;
}

START_TEST(natmap_equals_siconos_error)
{
    char name[1024];
    mcb_problem *P = problem_at(_i, name, sizeof name);
    ck_assert_ptr_nonnull(P);
    mcb_err err;
    mcb_siconos_problem *S = NULL;
    ck_assert_msg(mcb_siconos_convert(P, &S, &err) == MCB_OK, "%s: %s", name, err.msg);
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, &err), MCB_OK);
    double *v = calloc((size_t)P->n + 1, sizeof(double));
    double *lambda = calloc((size_t)P->m, sizeof(double));
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(lambda);

    /* the starting point and two points along PGS */
    const mcb_solver_def *pgs = mcb_solver_find("pgs");
    double params[64];
    pgs->default_params(params);
    mcb_settings st;
    mcb_settings_default(&st);
    int checkpoints[3] = {0, 1, 4};
    for (int c = 0; c < 3; c++) {
        void *work = NULL;
        ck_assert_int_eq(pgs->setup(P, &st, params, &work, &err), MCB_OK);
        mcb_info info;
        memset(&info, 0, sizeof info);
        sweeps = checkpoints[c];
        if (sweeps > 0) pgs->solve(work, &st, stop_after, NULL, &info);
        pgs->iterate(work, v, lambda);
        pgs->free(&work);
        double theirs;
        ck_assert_int_eq(mcb_siconos_error(S, v, lambda, &theirs, &err), MCB_OK);
        char point[64];
        snprintf(point, sizeof point, "after %d PGS sweeps", sweeps);
        expect_agreement(name, point, mcb_metrics_one(ws, MCB_M_NATMAP, v, lambda), theirs);
    }
    /* a random point (fixed seed), far from any solution */
    unsigned long long seed = 12345;
    for (int k = 0; k < P->n + P->m; k++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        double r = (double)(seed >> 11) / 9007199254740992.0 - 0.5;
        if (k < P->n) v[k] = r;
        else lambda[k - P->n] = r;
    }
    double theirs;
    ck_assert_int_eq(mcb_siconos_error(S, v, lambda, &theirs, &err), MCB_OK);
    ck_assert_msg(theirs > 1e-3, "%s: the random point should be far from a solution", name);
    expect_agreement(name, "random point", mcb_metrics_one(ws, MCB_M_NATMAP, v, lambda), theirs);

    free(v);
    free(lambda);
    mcb_metrics_ws_free(&ws);
    mcb_siconos_free(&S);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(refuses_non_contact_constraints)
{
    mcb_problem *P = fx_mixed();
    mcb_siconos_problem *S = NULL;
    mcb_err err;
    err.msg[0] = '\0';
    ck_assert_int_eq(mcb_siconos_convert(P, &S, &err), MCB_E_INPUT);
    ck_assert_ptr_null(S);
    ck_assert_msg(strstr(err.msg, "contacts only") && strstr(err.msg, "bilateral"), "%s",
                  err.msg);
    mcb_siconos_free(&S);
    mcb_siconos_free(NULL);
    mcb_problem_free(&P);
}
END_TEST

/* ---- the peers' tolerance and their response to the callback ---------- */

enum { MAXLOG = 512 };

/* What a driver hands to the callback; from iteration stop_at on (0: never)
 * the answer is `answer`. */
typedef struct {
    int calls, stop_at;
    mcb_cb_action answer;
    double err[MAXLOG]; /* Siconos' error at each iteration */
} cb_log;

static mcb_cb_action logging_cb(void *ctx, int iter, double own)
{
    cb_log *l = ctx;
    l->calls++;
    ck_assert_int_eq(iter, l->calls); /* called once per iteration, in order */
    if (iter <= MAXLOG) l->err[iter - 1] = own;
    return l->stop_at > 0 && iter >= l->stop_at ? l->answer : MCB_CB_CONTINUE;
}

/* Runs a peer on P without the harness, tolerance tol, own_tol as given
 * (0: the default); returns the status, fills info and the harness's
 * natmap of the final iterate. */
static int solve_direct(const mcb_solver_def *def, const mcb_problem *P, double tol,
                        double own_tol, int max_iters, cb_log *log, mcb_info *info,
                        double *natmap)
{
    double params[16];
    ck_assert_uint_le(def->params_size, sizeof params);
    def->default_params(params);
    mcb_err err;
    char text[32];
    snprintf(text, sizeof text, "%.17g", own_tol);
    ck_assert_int_eq(mcb_param_set(def, params, "own_tol", text, &err), MCB_OK);
    mcb_settings st;
    mcb_settings_default(&st);
    st.tol = tol;
    st.max_iters = max_iters;
    st.time_limit_s = 0;
    void *work = NULL;
    ck_assert_msg(def->setup(P, &st, params, &work, &err) == MCB_OK, "%s: %s", def->name,
                  err.msg);
    memset(info, 0, sizeof *info);
    int status = def->solve(work, &st, logging_cb, log, info);
    double *v = calloc((size_t)P->n + 1, sizeof(double));
    double *lambda = calloc((size_t)P->m, sizeof(double));
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(lambda);
    def->iterate(work, v, lambda);
    def->free(&work);
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, &err), MCB_OK);
    *natmap = mcb_metrics_one(ws, MCB_M_NATMAP, v, lambda);
    mcb_metrics_ws_free(&ws);
    free(v);
    free(lambda);
    return status;
}

/* Per peer and form, what solvers/peers/siconos_peer.c documents: the callback is
 * called after every iteration (traced) or never, and its answer stops
 * the driver (stops) or not. */
static const struct {
    const char *solver;
    int form;
    int traced, stops;
} peer_forms[] = {
    {"siconos_nsgs", MCB_PRIMAL, 1, 0},   {"siconos_nsgs", MCB_DUAL, 1, 0},
    {"siconos_nsn_ac", MCB_PRIMAL, 0, 0}, {"siconos_nsn_ac", MCB_DUAL, 1, 1},
    {"siconos_admm", MCB_PRIMAL, 0, 0},   {"siconos_admm", MCB_DUAL, 0, 0},
};
enum { NPEER_FORMS = (int)(sizeof peer_forms / sizeof peer_forms[0]) };

/* A stack on which every peer takes several iterations in the form asked
 * for: the 2x2x2 fixture (primal; Siconos' global Newton solver stops
 * after one iteration on the 3x3x2 one, Siconos info 1), the dual of the
 * 3x3x2 stack (fc3d Newton solves the 2x2x2 one in one). */
static mcb_problem *stack_in_form(int form)
{
    if (form == MCB_PRIMAL) return fx_small_stack();
    mcb_problem *P = stack_3x3x2();
    mcb_problem *Q = dual_of(P);
    mcb_problem_free(&P);
    return Q;
}

/* Checks row `row` of peer_forms on P: the def's flag, the callback calls
 * and, when Siconos takes more than 3 iterations, the budget and the stop
 * at iteration 2. Returns the iterations of the free run. */
static int check_peer_form(int row, const mcb_problem *P, const char *pname)
{
    const char *name = peer_forms[row].solver;
    int form = peer_forms[row].form;
    const mcb_solver_def *def = mcb_solver_find(name);
    ck_assert_ptr_nonnull(def);
    ck_assert_int_eq(P->form, form);
    /* the flag the harness reads says what the driver does */
    ck_assert_msg(mcb_solver_black_box(def, form) == !peer_forms[row].stops,
                  "%s on %s problems: black_box %d, but the callback %s stop it", name,
                  mcb_form_name(form), mcb_solver_black_box(def, form),
                  peer_forms[row].stops ? "does" : "does not");
    /* free run, to a tolerance far below the answers' iteration */
    cb_log free_log = {0};
    mcb_info info;
    double natmap;
    solve_direct(def, P, 1e-12, 0, 300, &free_log, &info, &natmap);
    int n = info.iterations;
    ck_assert_msg(free_log.calls == (peer_forms[row].traced ? n : 0),
                  "%s on %s (%s): %d callback calls in %d iterations, documented: %s", name,
                  pname, mcb_form_name(form), free_log.calls, n,
                  peer_forms[row].traced ? "every iteration" : "never");
    if (n <= 3) return n;
    /* a budget of 3 iterations is 3 iterations (Siconos' Newton loops
     * report one more) */
    cb_log short_log = {0};
    solve_direct(def, P, 1e-12, 0, 3, &short_log, &info, &natmap);
    ck_assert_msg(info.iterations == 3 && short_log.calls == (peer_forms[row].traced ? 3 : 0),
                  "%s on %s (%s), budget 3: %d iterations, %d callback calls", name, pname,
                  mcb_form_name(form), info.iterations, short_log.calls);
    /* every answer but CONTINUE, from iteration 2 on */
    static const mcb_cb_action answers[3] = {MCB_CB_CONVERGED, MCB_CB_TIME_LIMIT,
                                             MCB_CB_DIVERGED};
    for (int a = 0; a < 3; a++) {
        cb_log log = {0};
        log.stop_at = 2;
        log.answer = answers[a];
        int status = solve_direct(def, P, 1e-12, 0, 300, &log, &info, &natmap);
        if (peer_forms[row].stops) {
            ck_assert_msg(info.iterations == 2 && log.calls == 2,
                          "%s on %s (%s), answer %d at iteration 2: stopped after %d "
                          "iterations (%d calls)",
                          name, pname, mcb_form_name(form), answers[a], info.iterations,
                          log.calls);
            ck_assert_int_eq(status, mcb_status_from_cb(answers[a]));
            /* the own residual is Siconos' error at that iteration */
            ck_assert_double_eq(info.own_residual, log.err[1]);
            ck_assert_double_eq_tol(natmap, log.err[1], 1e-6 * log.err[1] + 1e-14);
        } else {
            ck_assert_msg(info.iterations == n,
                          "%s on %s (%s) is documented as not stoppable, yet it ran %d "
                          "iterations instead of %d",
                          name, pname, mcb_form_name(form), info.iterations, n);
        }
    }
    return n;
}

START_TEST(callback_stops_where_supported)
{
    mcb_problem *P = stack_in_form(peer_forms[_i].form);
    int n = check_peer_form(_i, P, "the stack");
    /* enough iterations that the stop was checked */
    ck_assert_msg(n > 3, "%s (%s): %d iterations; the test needs more than 3",
                  peer_forms[_i].solver, mcb_form_name(peer_forms[_i].form), n);
    mcb_problem_free(&P);
}
END_TEST

/* The same on shared file shared_k, for every peer in the file's form. */
static int shared_k;
START_TEST(callback_on_shared_file)
{
    char name[1024];
    mcb_problem *P = problem_at(NFIXTURES + shared_k, name, sizeof name);
    check_peer_form(2 * _i + (P->form == MCB_DUAL), P, shared_files[shared_k]);
    mcb_problem_free(&P);
}
END_TEST

/* Siconos' own tolerance is the harness's: on the dual 3x3x2 stack, siconos_nsn_ac
 * (whose error is our natmap) must stop at the first iteration whose error
 * is below --tol, with a tolerance picked so that the iterate there is
 * above a tenth of it: a peer pushed to a tenth would go on. Then the
 * explicit own_tol, and the same through the harness's runner. */
START_TEST(own_tolerance_is_the_harness_tolerance)
{
    const mcb_solver_def *def = mcb_solver_find("siconos_nsn_ac");
    ck_assert_ptr_nonnull(def);
    mcb_problem *P = stack_in_form(MCB_DUAL);
    cb_log log = {0};
    mcb_info info;
    double natmap;
    solve_direct(def, P, 1e-14, 0, 300, &log, &info, &natmap);
    ck_assert_int_eq(log.calls, info.iterations);
    /* k: the last iteration whose error is below every earlier one by a
     * factor 1.5 or more, above round-off; tol in [1.5, 2] times its error */
    int k = 0;
    double tol = 0, lowest = log.err[0];
    for (int j = 1; j < log.calls && j < MAXLOG; j++) {
        if (log.err[j] > 1e-12 && 1.5 * log.err[j] <= lowest) {
            k = j + 1;
            tol = fmin(2 * log.err[j], lowest);
        }
        lowest = fmin(lowest, log.err[j]);
    }
    ck_assert_msg(k >= 2, "no iteration to test on (%d iterations)", log.calls);
    double err_k = log.err[k - 1];

    cb_log l2 = {0};
    int status = solve_direct(def, P, tol, 0, 300, &l2, &info, &natmap);
    ck_assert_msg(info.iterations == k,
                  "--tol %.3g: Siconos stopped after %d iterations, expected %d (error %.3g "
                  "there)",
                  tol, info.iterations, k, err_k);
    ck_assert_int_eq(status, MCB_ST_SOLVED);
    ck_assert_msg(natmap <= tol && natmap > 0.1 * tol, "natmap %.3g for --tol %.3g", natmap,
                  tol);

    /* own_tol set explicitly: a tenth of --tol goes further */
    cb_log l3 = {0};
    solve_direct(def, P, tol, 0.1 * tol, 300, &l3, &info, &natmap);
    ck_assert_msg(info.iterations > k && natmap <= 0.1 * tol,
                  "own_tol %.3g: %d iterations (--tol alone: %d), natmap %.3g", 0.1 * tol,
                  info.iterations, k, natmap);

    /* through the runner: solved at iteration k, where the callback first
     * said CONVERGED, with the final natmap that of iteration k */
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.tol = tol;
    o.settings.max_iters = 300;
    o.settings.time_limit_s = 0;
    mcb_metrics_ws *ws = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, &err), MCB_OK);
    mcb_run run;
    memset(&run, 0, sizeof run);
    ck_assert_int_eq(mcb_run_one(P, ws, def, NULL, &o, &run, &err), MCB_OK);
    ck_assert_int_eq(run.info.status, MCB_ST_SOLVED);
    ck_assert_int_eq(run.info.iterations, k);
    double final = run.final.val[MCB_M_NATMAP];
    ck_assert_msg(final <= tol && final > 0.1 * tol, "final natmap %.3g, --tol %.3g", final,
                  tol);
    int first = 0;
    for (int r = 0; r < run.trace_rows && !first; r++) {
        const double *row = run.trace + (size_t)r * MCB_TRACE_COLS;
        if (row[2 + MCB_M_NATMAP] <= tol) first = (int)row[0];
    }
    ck_assert_int_eq(first, k);
    mcb_run_clear(&run);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
}
END_TEST

/* `test_siconos`: the fixtures; `test_siconos shared FILE`: one shared
 * FCLIB file, skipped (77) when it is absent. */
int main(int argc, char **argv)
{
    int k = -1;
    if (argc == 3 && strcmp(argv[1], "shared") == 0) {
        for (k = 0; k < NSHARED && strcmp(shared_files[k], argv[2]) != 0; k++) continue;
        if (k == NSHARED) {
            fprintf(stderr, "test_siconos: %s is not in the table of shared files\n", argv[2]);
            return EXIT_FAILURE;
        }
        char p[1024];
        snprintf(p, sizeof p, "%s/fclib/%s", mcb_test_shared_dir(), shared_files[k]);
        if (access(p, R_OK) != 0) return mcb_test_skip("absent: ", p);
    }
    Suite *s = suite_create("siconos");
    TCase *tc = tcase_create("natmap");
    tcase_set_timeout(tc, 120);
    if (k >= 0) {
        shared_k = k;
        tcase_add_loop_test(tc, natmap_equals_siconos_error, NFIXTURES + k, NFIXTURES + k + 1);
        tcase_add_loop_test(tc, callback_on_shared_file, 0, NPEER_FORMS / 2);
    } else {
        tcase_add_loop_test(tc, natmap_equals_siconos_error, 0, NFIXTURES);
        tcase_add_test(tc, refuses_non_contact_constraints);
        tcase_add_loop_test(tc, callback_stops_where_supported, 0, NPEER_FORMS);
        tcase_add_test(tc, own_tolerance_is_the_harness_tolerance);
    }
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

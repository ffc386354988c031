/* test_al.c: the Table II baselines al-trdogleg and al-dampedsn
 * (solvers/al_baselines.c, on the AL outer loop of solvers/al_outer.c
 * shared with canal) on known answers.
 *   - the one-contact fixtures (open, stick, slip) reach the exact
 *     (v, lambda) of tests/fixtures.h;
 *   - the mixed fixtures (every constraint type, an active unilateral row,
 *     a sliding contact) and the 2x2x2 stack reach natmap 1e-8 (the
 *     harness's metric), the reason counting inner steps and failures;
 *   - the shared global FCLIB problems (each absent file skipped) end
 *     with the status documented in docs/solver-al-baselines.md;
 *   - an inner failure is counted and the AL loop goes on (fail_stop 0),
 *     or stops as 'stalled' with a reason (fail_stop 1), never a crash;
 *     contradictory rows stall with "infeasible"; an indefinite A fails
 *     setup; bad parameters are refused; a fixed thread count gives
 *     identical runs. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "fixtures.h"
#include "problems/import_fclib.h"
#include "harness/runner.h"

static const char *names[2] = {"al-trdogleg", "al-dampedsn"};
static const mcb_solver_def *solver(int k) { return mcb_solver_find(names[k]); }

/* One harness run of solver k with its defaults (or prm). */
static void run_al(int k, mcb_problem *P, const void *prm, double tol, int iters, int threads,
                   mcb_run *run)
{
    check_run(P, names[k], prm, tol, iters, threads, MCB_LAW_NCP, run);
}

/* the count "N inner failures" from the reason (-1 when absent) */
static int inner_failures(const char *reason)
{
    const char *p = strstr(reason, " inner failures");
    if (!p) return -1;
    while (p > reason && p[-1] >= '0' && p[-1] <= '9') p--;
    return atoi(p);
}

START_TEST(registered)
{
    for (int k = 0; k < 2; k++) {
        const mcb_solver_def *d = solver(k);
        ck_assert_ptr_nonnull(d);
        ck_assert_uint_eq(d->accepts, MCB_ACCEPTS_PRIMAL);
        ck_assert_int_ge(d->nparams, 12);
    }
}
END_TEST

/* open, stick, slip (the slide branch of the strict operator's Jacobian)
 * for both: the exact solution to 1e-9 */
START_TEST(point_contact_exact)
{
    int k = _i / 3, st = FX_OPEN + _i % 3;
    mcb_problem *P = fx_point_contact(st);
    mcb_run run;
    run_al(k, P, NULL, 1e-12, 100, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s state %d: %s (natmap %g) %s", names[k],
                  st, mcb_status_name(run.info.status), run.final.val[MCB_M_NATMAP],
                  run.info.reason);
    double v[3], l[3];
    fx_point_solution(st, v, l);
    for (int j = 0; j < 3; j++) {
        ck_assert_double_eq_tol(run.v[j], v[j], 1e-9);
        ck_assert_double_eq_tol(run.lambda[j], l[j], 1e-9);
    }
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

typedef mcb_problem *(*fixture_fn)(void);

/* every constraint type, the active unilateral row, the stack: natmap 1e-8 */
START_TEST(fixtures_to_1e8)
{
    static const fixture_fn make[3] = {fx_mixed, fx_mixed_active, fx_small_stack};
    static const char *fx[3] = {"mixed", "mixed_active", "stack2"};
    int k = _i / 3, f = _i % 3;
    mcb_problem *P = make[f]();
    mcb_run run;
    run_al(k, P, NULL, 1e-8, 500, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED && run.final.val[MCB_M_NATMAP] <= 1e-8,
                  "%s on %s: %s (natmap %g) %s", names[k], fx[f], mcb_status_name(run.info.status),
                  run.final.val[MCB_M_NATMAP], run.info.reason);
    ck_assert_msg(inner_failures(run.info.reason) >= 0, "reason: %s", run.info.reason);
    /* the inner steps: at least one per AL loop that moved, in info and the reason */
    ck_assert_int_ge(run.info.inner_iterations, 1);
    char steps[64];
    snprintf(steps, sizeof steps, "%d %s steps", run.info.inner_iterations,
             k == 0 ? "dogleg" : "Newton");
    ck_assert_msg(strstr(run.info.reason, steps) != NULL, "%s: %s", steps, run.info.reason);
    ck_assert_msg(strstr(run.info.reason, k == 0 ? "dogleg steps" : "Newton steps") != NULL,
                  "reason: %s", run.info.reason);
    if (f == 1) { /* the unilateral row is active, the contact slides */
        ck_assert_double_gt(run.lambda[1], 0.4);
        ck_assert_double_gt(run.lambda[3], 0.1);
        ck_assert_double_eq_tol(hypot(run.lambda[4], run.lambda[5]), 0.4 * run.lambda[3], 1e-7);
    }
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* The shared global FCLIB problems, 200 AL loops, tol 1e-8: the expected
 * status per solver (docs/solver-al-baselines.md says why a baseline
 * fails where it does); Capsules (local) is skipped. */
static const struct {
    const char *file;
    int form;
    int expect[2]; /* al-trdogleg, al-dampedsn */
} shared[] = {
    {"Box_Stacks-i0122-82-5.hdf5", MCB_PRIMAL, {MCB_ST_SOLVED, MCB_ST_SOLVED}},
    {"CubeH8.hdf5", MCB_PRIMAL, {MCB_ST_SOLVED, MCB_ST_SOLVED}},
    {"LMGC_GlobalFrictionContactProblem00046.hdf5", MCB_PRIMAL, {MCB_ST_SOLVED, MCB_ST_SOLVED}},
    {"Capsules-i125-1213.hdf5", MCB_DUAL, {MCB_ST_SKIPPED, MCB_ST_SKIPPED}},
};

START_TEST(shared_fclib)
{
    int k = _i / 4, f = _i % 4;
    char p[1024];
    snprintf(p, sizeof p, "%s/fclib/%s", mcb_test_shared_dir(), shared[f].file);
    if (access(p, R_OK) != 0) {
        printf("test_al: %s absent, not tested\n", p);
        return;
    }
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(p, &P, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(P->form, shared[f].form);
    mcb_run run;
    run_al(k, P, NULL, 1e-8, 200, 1, &run);
    ck_assert_msg(run.info.status == shared[f].expect[k], "%s on %s: %s (natmap %g) %s", names[k],
                  shared[f].file, mcb_status_name(run.info.status), run.final.val[MCB_M_NATMAP],
                  run.info.reason);
    if (run.info.status == MCB_ST_SOLVED) ck_assert_double_le(run.final.val[MCB_M_NATMAP], 1e-8);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* One inner step per AL loop and an unreachable newton_tol: every inner
 * loop fails. fail_stop 0: counted, the loops go on to the budget;
 * fail_stop 1: 'stalled' at the first, with the reason. */
START_TEST(inner_failures_are_statuses)
{
    for (int k = 0; k < 2; k++)
        for (int stop = 0; stop < 2; stop++) {
            mcb_problem *P = fx_small_stack();
            const mcb_solver_def *d = solver(k);
            double prm[64];
            d->default_params(prm);
            ck_assert_int_eq(mcb_param_set(d, prm, "max_newton", "1", NULL), MCB_OK);
            ck_assert_int_eq(mcb_param_set(d, prm, "newton_tol", "0", NULL), MCB_OK);
            ck_assert_int_eq(mcb_param_set(d, prm, "stall_loops", "0", NULL), MCB_OK);
            ck_assert_int_eq(mcb_param_set(d, prm, "fail_stop", stop ? "1" : "0", NULL), MCB_OK);
            mcb_run run;
            run_al(k, P, prm, 0.0, 5, 1, &run);
            if (stop) {
                ck_assert_msg(run.info.status == MCB_ST_STALLED, "%s: %s %s", names[k],
                              mcb_status_name(run.info.status), run.info.reason);
                ck_assert_int_eq(run.info.iterations, 1);
                ck_assert_msg(strstr(run.info.reason, "fail_stop") != NULL, "%s", run.info.reason);
                ck_assert_int_eq(inner_failures(run.info.reason), 1);
            } else {
                ck_assert_msg(run.info.status == MCB_ST_MAX_ITERS, "%s: %s %s", names[k],
                              mcb_status_name(run.info.status), run.info.reason);
                ck_assert_int_eq(inner_failures(run.info.reason), 5);
            }
            ck_assert(isfinite(run.final.val[MCB_M_NATMAP]));
            mcb_run_clear(&run);
            mcb_problem_free(&P);
        }
}
END_TEST

/* J v = 0 and J v = -1 on one DOF: stalled with "infeasible", v at the
 * least-squares compromise */
START_TEST(infeasible_stalls_with_reason)
{
    const double A[1] = {1.0}, b[1] = {0.5}, J[2] = {1.0, 1.0}, e[2] = {0.0, 1.0};
    for (int k = 0; k < 2; k++) {
        mcb_problem *P = fx_dense_primal(1, 2, A, b, J, e);
        ck_assert_ptr_nonnull(P);
        P->nblocks = 1;
        P->blocks = calloc(1, sizeof(mcb_block));
        P->blocks[0] = (mcb_block){MCB_BILATERAL, 0, 2, 0, 0, 0};
        mcb_problem_infer_subsystems(P, NULL);
        mcb_run run;
        run_al(k, P, NULL, 1e-8, 5000, 1, &run);
        ck_assert_msg(run.info.status == MCB_ST_STALLED, "%s: %s: %s", names[k],
                      mcb_status_name(run.info.status), run.info.reason);
        ck_assert_int_lt(run.info.iterations, 200);
        ck_assert_msg(strstr(run.info.reason, "infeasible") != NULL, "%s", run.info.reason);
        ck_assert_double_eq_tol(run.v[0], -0.5, 1e-6);
        mcb_run_clear(&run);
        mcb_problem_free(&P);
    }
}
END_TEST

START_TEST(indefinite_a_fails_setup)
{
    const double A[4] = {1.0, 2.0, 2.0, 1.0}, b[2] = {1.0, 0.0}, J[2] = {1.0, 0.0}, e[1] = {0.0};
    for (int k = 0; k < 2; k++) {
        mcb_problem *P = fx_dense_primal(2, 1, A, b, J, e);
        P->nblocks = 1;
        P->blocks = calloc(1, sizeof(mcb_block));
        P->blocks[0] = (mcb_block){MCB_UNILATERAL, 0, 1, 0, 0, 0};
        double prm[64];
        solver(k)->default_params(prm);
        mcb_settings st;
        mcb_settings_default(&st);
        void *work = (void *)1;
        mcb_err err;
        ck_assert_int_eq(solver(k)->setup(P, &st, prm, &work, &err), MCB_E_NUMERIC);
        ck_assert_ptr_null(work);
        ck_assert_msg(strstr(err.msg, names[k]) != NULL, "%s", err.msg);
        solver(k)->free(NULL);
        solver(k)->free(&work);
        mcb_problem_free(&P);
    }
}
END_TEST

START_TEST(bad_parameters_refused)
{
    static const char *bad[][3] = {
        {"kappa", "1", "b"},      {"zeta", "0", "b"},         {"beta", "-1", "b"},
        {"beta_max", "0", "b"},   {"max_newton", "0", "b"},   {"stall_loops", "-1", "b"},
        {"fail_stop", "2", "b"},  {"newton_tol", "-1", "b"},  {"delta0", "-1", "t"},
        {"eta", "0.25", "t"},     {"sigma", "0.5", "d"},      {"t_min", "1", "d"},
    };
    for (int k = 0; k < 2; k++)
        for (size_t j = 0; j < sizeof bad / sizeof bad[0]; j++) {
            if (bad[j][2][0] != 'b' && bad[j][2][0] != (k == 0 ? 't' : 'd')) continue;
            const mcb_solver_def *d = solver(k);
            double prm[64];
            d->default_params(prm);
            ck_assert_int_eq(d->check_params(prm, NULL), MCB_OK);
            ck_assert_int_eq(mcb_param_set(d, prm, bad[j][0], bad[j][1], NULL), MCB_OK);
            mcb_err err;
            ck_assert_msg(d->check_params(prm, &err) == MCB_E_INPUT, "%s %s=%s accepted",
                          names[k], bad[j][0], bad[j][1]);
            mcb_problem *P = fx_mixed();
            mcb_settings st;
            mcb_settings_default(&st);
            void *work = NULL;
            ck_assert_int_eq(d->setup(P, &st, prm, &work, &err), MCB_E_INPUT);
            ck_assert_ptr_null(work);
            mcb_problem_free(&P);
        }
}
END_TEST

START_TEST(deterministic)
{
    for (int k = 0; k < 2; k++) {
        mcb_problem *P = fx_small_stack();
        mcb_run a, b;
        run_al(k, P, NULL, 0.0, 15, 2, &a);
        run_al(k, P, NULL, 0.0, 15, 2, &b);
        ck_assert_int_eq(a.info.iterations, b.info.iterations);
        ck_assert_int_eq(memcmp(a.v, b.v, (size_t)P->n * sizeof(double)), 0);
        ck_assert_int_eq(memcmp(a.lambda, b.lambda, (size_t)P->m * sizeof(double)), 0);
        ck_assert_str_eq(a.info.reason, b.info.reason);
        mcb_run_clear(&a);
        mcb_run_clear(&b);
        mcb_problem_free(&P);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("al");
    TCase *tc = tcase_create("al baselines");
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, registered);
    tcase_add_loop_test(tc, point_contact_exact, 0, 6);
    tcase_add_loop_test(tc, fixtures_to_1e8, 0, 6);
    tcase_add_loop_test(tc, shared_fclib, 0, 8);
    tcase_add_test(tc, inner_failures_are_statuses);
    tcase_add_test(tc, infeasible_stalls_with_reason);
    tcase_add_test(tc, indefinite_a_fails_setup);
    tcase_add_test(tc, bad_parameters_refused);
    tcase_add_test(tc, deterministic);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

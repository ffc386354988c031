/* test_canal.c: the CANAL solver (solvers/canal.c) on known answers.
 *   - the one-contact fixtures (open, stick, slip) reach the exact (v, lambda);
 *   - the mixed fixtures (one block of each type) and the 2x2x2 stack reach
 *     a natural-map residual of 1e-10 (the harness's metric);
 *   - the shared global FCLIB problems reach 1e-10 (each absent file is
 *     skipped, the dual Capsules is refused as skipped);
 *   - failures are statuses: contradictory bilateral rows stop as 'stalled'
 *     with a reason, an indefinite A fails setup (MCB_E_NUMERIC), bad
 *     parameters are refused;
 *   - the Newton steps are reported apart from the AL loops (info.reason),
 *     and a fixed thread count gives identical runs. */
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

static const mcb_solver_def *canal(void) { return mcb_solver_find("canal"); }

/* One harness run of canal with default parameters (or prm). */
static void run_canal(mcb_problem *P, const void *prm, double tol, int iters, int threads,
                      mcb_run *run)
{
    check_run(P, "canal", prm, tol, iters, threads, MCB_LAW_NCP, run);
}

START_TEST(registered)
{
    const mcb_solver_def *d = canal();
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq(d->accepts, MCB_ACCEPTS_PRIMAL);
    ck_assert_int_ge(d->nparams, 8);
}
END_TEST

/* open, stick, slip: the exact solution of fixtures.h to 1e-10 */
START_TEST(point_contact_exact)
{
    mcb_problem *P = fx_point_contact(_i);
    mcb_run run;
    run_canal(P, NULL, 1e-12, 100, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "state %d: %s (natmap %g) %s", _i,
                  mcb_status_name(run.info.status), run.final.val[MCB_M_NATMAP], run.info.reason);
    double v[3], l[3];
    fx_point_solution(_i, v, l);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(run.v[k], v[k], 1e-10);
        ck_assert_double_eq_tol(run.lambda[k], l[k], 1e-10);
    }
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

typedef mcb_problem *(*fixture_fn)(void);

/* every constraint type (bilateral, unilateral, soft, contact), inactive
 * and active unilateral row, and the small stack: natmap 1e-10 */
START_TEST(fixtures_to_1e10)
{
    static const fixture_fn make[3] = {fx_mixed, fx_mixed_active, fx_small_stack};
    static const char *names[3] = {"mixed", "mixed_active", "stack2"};
    mcb_problem *P = make[_i]();
    mcb_run run;
    run_canal(P, NULL, 1e-10, 500, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED && run.final.val[MCB_M_NATMAP] <= 1e-10,
                  "%s: %s (natmap %g) %s", names[_i], mcb_status_name(run.info.status),
                  run.final.val[MCB_M_NATMAP], run.info.reason);
    /* the Newton steps are counted apart from the AL loops */
    ck_assert_msg(strstr(run.info.reason, "Newton steps") != NULL, "reason: %s", run.info.reason);
    if (_i == 1) { /* fx_mixed_active: the unilateral row is active, the contact slides */
        ck_assert_double_gt(run.lambda[1], 0.4);
        ck_assert_double_gt(run.lambda[3], 0.1);
        ck_assert_double_eq_tol(hypot(run.lambda[4], run.lambda[5]), 0.4 * run.lambda[3], 1e-9);
    }
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

static const struct {
    const char *file;
    int form;
} shared[] = {
    {"Box_Stacks-i0122-82-5.hdf5", MCB_PRIMAL},
    {"CubeH8.hdf5", MCB_PRIMAL},
    {"LMGC_GlobalFrictionContactProblem00046.hdf5", MCB_PRIMAL},
    {"Capsules-i125-1213.hdf5", MCB_DUAL},
};

/* the shared FCLIB problems: global ones to natmap 1e-10, the local one
 * refused (skipped); an absent file is skipped with a note */
START_TEST(shared_fclib_to_1e10)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/fclib/%s", mcb_test_shared_dir(), shared[_i].file);
    if (access(p, R_OK) != 0) {
        printf("test_canal: %s absent, not tested\n", p);
        return;
    }
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(p, &P, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(P->form, shared[_i].form);
    mcb_run run;
    run_canal(P, NULL, 1e-10, 200, 1, &run);
    if (shared[_i].form == MCB_DUAL) {
        ck_assert_int_eq(run.info.status, MCB_ST_SKIPPED);
    } else {
        ck_assert_msg(run.info.status == MCB_ST_SOLVED && run.final.val[MCB_M_NATMAP] <= 1e-10,
                      "%s: %s (natmap %g) %s", shared[_i].file, mcb_status_name(run.info.status),
                      run.final.val[MCB_M_NATMAP], run.info.reason);
        /* second order: tens of AL loops, not thousands */
        ck_assert_int_le(run.info.iterations, 60);
    }
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* J v = 0 and J v = -1 on one DOF: infeasible. The multipliers grow
 * without bound while ||Jv - z|| stays put: canal stops as stalled, with a
 * reason, long before the budget. */
START_TEST(infeasible_stalls_with_reason)
{
    const double A[1] = {1.0}, b[1] = {0.5}, J[2] = {1.0, 1.0}, e[2] = {0.0, 1.0};
    mcb_problem *P = fx_dense_primal(1, 2, A, b, J, e);
    ck_assert_ptr_nonnull(P);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_BILATERAL, 0, 2, 0, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    mcb_run run;
    run_canal(P, NULL, 1e-8, 5000, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_STALLED, "status %s: %s",
                  mcb_status_name(run.info.status), run.info.reason);
    ck_assert_int_lt(run.info.iterations, 200);
    ck_assert_msg(strstr(run.info.reason, "infeasible") != NULL, "reason: %s", run.info.reason);
    /* v is the least-squares compromise J v = -1/2 */
    ck_assert_double_eq_tol(run.v[0], -0.5, 1e-6);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* an indefinite A: setup fails (status setup-failed, nothing left allocated) */
START_TEST(indefinite_a_fails_setup)
{
    const double A[4] = {1.0, 2.0, 2.0, 1.0}, b[2] = {1.0, 0.0}, J[2] = {1.0, 0.0}, e[1] = {0.0};
    mcb_problem *P = fx_dense_primal(2, 1, A, b, J, e);
    ck_assert_ptr_nonnull(P);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_UNILATERAL, 0, 1, 0, 0, 0};
    double prm[32];
    canal()->default_params(prm);
    mcb_settings st;
    mcb_settings_default(&st);
    void *work = (void *)1;
    mcb_err err;
    ck_assert_int_eq(canal()->setup(P, &st, prm, &work, &err), MCB_E_NUMERIC);
    ck_assert_ptr_null(work);
    ck_assert_msg(strstr(err.msg, "positive definite") != NULL, "%s", err.msg);
    canal()->free(NULL); /* free accepts NULL */
    work = NULL;
    canal()->free(&work);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(bad_parameters_refused)
{
    static const char *bad[][2] = {{"kappa", "1"},      {"zeta", "0"},     {"zeta", "1.5"},
                                   {"beta", "-1"},      {"beta_max", "0"}, {"max_newton", "0"},
                                   {"ls_tol", "1"},     {"ls_max", "2"},   {"stall_loops", "-1"},
                                   {"beta_scale", "0"}, {"own_tol", "-1"}, {"newton_tol", "-1"}};
    const mcb_solver_def *d = canal();
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        double prm[32];
        d->default_params(prm);
        ck_assert_int_eq(d->check_params(prm, NULL), MCB_OK);
        ck_assert_int_eq(mcb_param_set(d, prm, bad[k][0], bad[k][1], NULL), MCB_OK);
        mcb_err err;
        ck_assert_msg(d->check_params(prm, &err) == MCB_E_INPUT, "%s=%s accepted", bad[k][0],
                      bad[k][1]);
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

/* an explicit beta and a small cap also solve (the rule (27) grows beta
 * from a too small start) */
START_TEST(explicit_beta_grows)
{
    const mcb_solver_def *d = canal();
    double prm[32];
    d->default_params(prm);
    ck_assert_int_eq(mcb_param_set(d, prm, "beta", "1e-3", NULL), MCB_OK);
    mcb_problem *P = fx_small_stack();
    mcb_run run;
    run_canal(P, prm, 1e-10, 500, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s (natmap %g) %s",
                  mcb_status_name(run.info.status), run.final.val[MCB_M_NATMAP], run.info.reason);
    ck_assert_msg(strstr(run.info.reason, "initial 0.001") != NULL, "%s", run.info.reason);
    ck_assert_msg(strstr(run.info.reason, "beta 0.001 ") == NULL, "beta never grew: %s",
                  run.info.reason);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* two threads, two runs: the same iterate bit for bit */
START_TEST(deterministic)
{
    mcb_problem *P = fx_small_stack();
    mcb_run a, b;
    run_canal(P, NULL, 0.0, 15, 2, &a);
    run_canal(P, NULL, 0.0, 15, 2, &b);
    ck_assert_int_eq(a.info.iterations, 15);
    ck_assert_int_eq(b.info.iterations, 15);
    ck_assert_int_eq(memcmp(a.v, b.v, (size_t)P->n * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(a.lambda, b.lambda, (size_t)P->m * sizeof(double)), 0);
    mcb_run_clear(&a);
    mcb_run_clear(&b);
    mcb_problem_free(&P);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("canal");
    TCase *tc = tcase_create("canal");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, registered);
    tcase_add_loop_test(tc, point_contact_exact, FX_OPEN, FX_SLIP + 1);
    tcase_add_loop_test(tc, fixtures_to_1e10, 0, 3);
    tcase_add_loop_test(tc, shared_fclib_to_1e10, 0, 4);
    tcase_add_test(tc, infeasible_stalls_with_reason);
    tcase_add_test(tc, indefinite_a_fails_setup);
    tcase_add_test(tc, bad_parameters_refused);
    tcase_add_test(tc, explicit_beta_grows);
    tcase_add_test(tc, deterministic);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

/* test_ccs.c: contact constraint splitting (ccs, Daviet 2020's ADMM)
 * through the harness. Known answers: a unit cube resting on a plane on its
 * four bottom corners, pushed sideways below and above the friction limit,
 * sticks (v = 0) and slides (v_x = h (F - mu m g) / m), with the fixed and
 * the adaptive penalty, and agrees with pgs; without De Saxce's term
 * (s = mu ||u_t||) the sliding cube would lift off and fail. Bit for bit
 * across thread counts; no allocation in the loop with a fixed penalty;
 * bad parameters refused at setup; dual and compliant problems skipped
 * with the reason. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fixtures.h"
#include "harness/runner.h"
#include "solvers/solver.h"

#include "alloc_count.h"

enum { CUBE_STICK, CUBE_SLIDE };
#define CUBE_H 0.01  /* time step (s) */
#define CUBE_G 9.81  /* gravity (m/s^2) */
#define CUBE_MU 0.5
static const double cube_push[2] = {2.0, 7.0}; /* N: below and above mu m g = 4.905 */

/* A unit cube of mass 1 at rest on z = 0 (centre at z = 0.5), contacts at
 * its four bottom corners (rows [n = z, t1 = x, t2 = y]; a row for
 * direction d at lever arm r is [d, r x d]), gravity and the push F along
 * x over one step: b = h (F, 0, -m g, 0, 0, 0). The push at the centre
 * tips the cube only above F = m g. */
static mcb_problem *cube_on_plane(int state)
{
    double A[36] = {0}, J[12 * 6] = {0}, e[12] = {0};
    double b[6] = {CUBE_H * cube_push[state], 0, -CUBE_H * CUBE_G, 0, 0, 0};
    for (int k = 0; k < 3; k++) A[k * 6 + k] = 1.0;
    for (int k = 3; k < 6; k++) A[k * 6 + k] = 1.0 / 6.0;
    static const double dir[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    for (int c = 0; c < 4; c++) {
        double r[3] = {c & 1 ? 0.5 : -0.5, c & 2 ? 0.5 : -0.5, -0.5};
        for (int a = 0; a < 3; a++) {
            double *row = J + (size_t)(3 * c + a) * 6;
            const double *d = dir[a];
            for (int k = 0; k < 3; k++) row[k] = d[k];
            row[3] = r[1] * d[2] - r[2] * d[1];
            row[4] = r[2] * d[0] - r[0] * d[2];
            row[5] = r[0] * d[1] - r[1] * d[0];
        }
    }
    mcb_problem *P = fx_dense_primal(6, 12, A, b, J, e);
    P->nblocks = 4;
    P->blocks = calloc(4, sizeof(mcb_block));
    for (int c = 0; c < 4; c++) P->blocks[c] = (mcb_block){MCB_CONTACT, 3 * c, 3, CUBE_MU, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    free(P->name);
    P->name = strdup(state == CUBE_STICK ? "cube_stick" : "cube_slide");
    return P;
}

/* Parameters of ccs with adaptive set. */
static void ccs_params_with(double *prm, int adaptive)
{
    const mcb_solver_def *def = mcb_solver_find("ccs");
    ck_assert_ptr_nonnull(def);
    ck_assert_uint_le(def->params_size, 16 * sizeof(double));
    def->default_params(prm);
    char val[8];
    snprintf(val, sizeof val, "%d", adaptive);
    ck_assert_int_eq(mcb_param_set(def, prm, "adaptive", val, NULL), MCB_OK);
}

/* The cube sticks and slides as the analytic solution says (the net
 * impulse J^T lambda = A v - b follows from v: the contact impulses
 * themselves are not unique on four corners), meets natmap 1e-10, and its
 * v agrees with pgs's to 1e-6; for adaptive 0 and 1 (_i: state + 2 adaptive). */
START_TEST(cube_sticks_and_slides)
{
    int state = _i % 2, adaptive = _i / 2;
    mcb_problem *P = cube_on_plane(state);
    mcb_err err;
    ck_assert_msg(mcb_problem_validate(P, "cube", &err) == MCB_OK, "%s", err.msg);
    double prm[16];
    ccs_params_with(prm, adaptive);
    mcb_run run, ref;
    check_run(P, "ccs", prm, 1e-10, 5000, 1, MCB_LAW_NCP, &run);
    check_run(P, "pgs", NULL, 1e-12, 5000, 1, MCB_LAW_NCP, &ref);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "ccs (adaptive %d) on %s: %s after %d (natmap %g)",
                  adaptive, P->name, mcb_status_name(run.info.status), run.info.iterations,
                  run.final.val[MCB_M_NATMAP]);
    ck_assert_int_eq(ref.info.status, MCB_ST_SOLVED);
    double vx = state == CUBE_STICK ? 0.0 : CUBE_H * (cube_push[state] - CUBE_MU * CUBE_G);
    double v_exact[6] = {vx, 0, 0, 0, 0, 0};
    for (int k = 0; k < 6; k++) {
        ck_assert_msg(fabs(run.v[k] - v_exact[k]) <= 1e-6, "%s: v_%d = %.10g, exact %.10g",
                      P->name, k, run.v[k], v_exact[k]);
        ck_assert_msg(fabs(run.v[k] - ref.v[k]) <= 1e-6, "%s: v_%d = %.10g, pgs %.10g", P->name,
                      k, run.v[k], ref.v[k]);
    }
    /* the net impulse: normal m g h, friction -F h (stick) or -mu m g h (slide) */
    double sn = 0.0, st = 0.0;
    for (int c = 0; c < 4; c++) {
        sn += run.lambda[3 * c];
        st += run.lambda[3 * c + 1];
        ck_assert_double_ge(run.lambda[3 * c], 0.0);
    }
    ck_assert_double_eq_tol(sn, CUBE_H * CUBE_G, 1e-6);
    double ft = state == CUBE_STICK ? cube_push[state] : CUBE_MU * CUBE_G;
    ck_assert_double_eq_tol(st, -CUBE_H * ft, 1e-6);
    mcb_run_clear(&run);
    mcb_run_clear(&ref);
    mcb_problem_free(&P);
}
END_TEST

/* Bit for bit the same (v, lambda) with 1 and 2 threads, residual
 * balancing (and its refactorizations) included. */
START_TEST(identical_across_threads)
{
    mcb_problem *P = fx_small_stack();
    mcb_run run[2];
    for (int t = 0; t < 2; t++) check_run(P, "ccs", NULL, 0.0, 60, t + 1, MCB_LAW_NCP, &run[t]);
    ck_assert_int_eq(run[0].info.iterations, 60);
    ck_assert_int_eq(memcmp(run[0].v, run[1].v, (size_t)P->n * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(run[0].lambda, run[1].lambda, (size_t)P->m * sizeof(double)), 0);
    mcb_run_clear(&run[0]);
    mcb_run_clear(&run[1]);
    mcb_problem_free(&P);
}
END_TEST

/* With a fixed penalty (adaptive = 0) no malloc, calloc or realloc between
 * the first and the last of 200 iterations (a refactorization, with the
 * adaptive penalty, is CHOLMOD's and allocates). Not counted under
 * AddressSanitizer, which owns malloc. */
START_TEST(no_allocation_in_loop)
{
    mcb_problem *P = fx_small_stack();
    const mcb_solver_def *def = mcb_solver_find("ccs");
    double prm[16];
    ccs_params_with(prm, 0);
    mcb_settings st;
    mcb_settings_default(&st);
    st.max_iters = 200;
    void *work = NULL;
    mcb_err err;
    ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_OK);
    int last = 0;
    mcb_info info;
    memset(&info, 0, sizeof info);
    int status = def->solve(work, &st, alloc_count_from_iter2, &last, &info);
#if COUNT_MALLOC
    __atomic_store_n(&counting, 0, __ATOMIC_RELAXED); /* before Check's own allocations */
    ck_assert_msg(nalloc == 0, "%ld allocations in iterations 2-200", nalloc);
#endif
    ck_assert_int_eq(status, MCB_ST_MAX_ITERS);
    ck_assert_int_eq(last, 200);
    def->free(&work);
    def->free(&work); /* NULL after the first */
    def->free(NULL);
    mcb_problem_free(&P);
}
END_TEST

/* Bad parameters are refused at setup with no work left; a dual problem
 * and a compliant one are skipped by the harness with the reason. */
START_TEST(refusals)
{
    const mcb_solver_def *def = mcb_solver_find("ccs");
    mcb_problem *P = fx_small_stack();
    static const char *const bad[][2] = {{"rho_scale", "0"}, {"gamma", "1"}, {"tau", "0.5"},
                                         {"adapt_every", "0"}, {"adaptive", "2"},
                                         {"own_tol", "-1"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        double prm[16];
        def->default_params(prm);
        ck_assert_int_eq(mcb_param_set(def, prm, bad[k][0], bad[k][1], NULL), MCB_OK);
        mcb_settings st;
        mcb_settings_default(&st);
        void *work = NULL;
        mcb_err err;
        ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_E_INPUT);
        ck_assert_ptr_null(work);
        ck_assert_msg(strstr(err.msg, "ccs:") != NULL, "%s", err.msg);
    }
    mcb_problem_free(&P);
    mcb_run run;
    P = fx_point_contact_dual(FX_SLIP);
    check_run(P, "ccs", NULL, 1e-8, 100, 1, MCB_LAW_NCP, &run);
    ck_assert_int_eq(run.info.status, MCB_ST_SKIPPED);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
    P = fx_compliant(FX_SLIP);
    check_run(P, "ccs", NULL, 1e-8, 100, 1, MCB_LAW_NCP, &run);
    ck_assert_int_eq(run.info.status, MCB_ST_SKIPPED);
    ck_assert_msg(strstr(run.info.reason, "compliance") != NULL, "%s", run.info.reason);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ccs");
    TCase *tc = tcase_create("ccs");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, cube_sticks_and_slides, 0, 4);
    tcase_add_test(tc, identical_across_threads);
    tcase_add_test(tc, no_allocation_in_loop);
    tcase_add_test(tc, refusals);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

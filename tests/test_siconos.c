/* test_siconos.c: our natural-map residual equals the error Siconos 4.4
 * computes (fc3d_compute_error, gfc3d_compute_error) for the same (v,
 * lambda), to 1e-6 relative, on the contact fixtures (primal and dual), a
 * generated sphere stack and the shared FCLIB problems (one ctest entry per
 * file, reported as skipped when it is absent);
 * at the starting point, after a few PGS sweeps and at a random point. Also:
 * problems Siconos cannot hold are refused with a reason, and the siconos_*
 * peer solvers solve the fixtures. Built only with Siconos. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "mcb_siconos.h"
#include "metrics.h"
#include "problems.h"
#include "runner.h"

static const char *shared_files[] = {
    "Box_Stacks-i0122-82-5.hdf5",
    "Capsules-i125-1213.hdf5",
    "CubeH8.hdf5",
    "LMGC_GlobalFrictionContactProblem00046.hdf5",
};
enum { NFIXTURES = 8, NSHARED = 4 };

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
        mcb_problem *P = NULL;
        mcb_err err;
        snprintf(name, len, "stack 3x3x2");
        mcb_stack_opts so;
        mcb_stack_defaults(&so);
        so.nx = 3;
        so.ny = 3;
        so.nz = 2;
        so.steps = 1;
        mcb_problem_set *S = NULL;
        ck_assert_msg(mcb_gen_stack(&so, &S, &err) == MCB_OK, "%s", err.msg);
        P = S->items[0];
        S->items[0] = NULL;
        S->count = 0;
        mcb_problem_set_free(&S);
        return P;
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
        tcase_add_loop_test(tc, natmap_equals_siconos_error, NFIXTURES + k, NFIXTURES + k + 1);
    } else {
        tcase_add_loop_test(tc, natmap_equals_siconos_error, 0, NFIXTURES);
        tcase_add_test(tc, refuses_non_contact_constraints);
    }
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

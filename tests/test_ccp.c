/* test_ccp.c: the CCP solvers (apgd, ccp-jacobi) judged by the law they
 * solve (--law ccp): known answers on the small fixtures, the CCP solution
 * of the sliding contact, ccp-jacobi bit for bit against a serial Alg. 1
 * and across thread counts, and the failure statuses. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fixtures.h"
#include "lib/mcb_chol.h"
#include "lib/mcb_cone.h"
#include "harness/runner.h"

static const char *ccp_solvers[] = {"apgd", "ccp-jacobi"};

/* One harness run under the given law; the caller clears run. */
static void run_law(mcb_problem *P, const char *solver, const void *params, int law, int iters,
                    double tol, int threads, mcb_run *run)
{
    check_run(P, solver, params, tol, iters, threads, law, run);
}

typedef mcb_problem *(*fixture_fn)(void);
static mcb_problem *f_open(void) { return fx_point_contact(FX_OPEN); }
static mcb_problem *f_stick(void) { return fx_point_contact(FX_STICK); }
static mcb_problem *f_slip(void) { return fx_point_contact(FX_SLIP); }
static const struct {
    const char *name;
    fixture_fn make;
} fixtures[] = {{"open", f_open},   {"stick", f_stick},           {"slip", f_slip},
                {"mixed", fx_mixed}, {"mixed_active", fx_mixed_active}, {"stack2", fx_small_stack}};
#define NFIX (int)(sizeof fixtures / sizeof fixtures[0])

/* Both solvers reach natmap <= 1e-8 under --law ccp on every fixture. */
START_TEST(solved_under_ccp)
{
    int f = _i / 2, s = _i % 2;
    mcb_problem *P = fixtures[f].make();
    mcb_run run;
    run_law(P, ccp_solvers[s], NULL, MCB_LAW_CCP, 20000, 1e-8, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s on %s: %s (natmap %g after %d)",
                  ccp_solvers[s], fixtures[f].name, mcb_status_name(run.info.status),
                  run.final.val[MCB_M_NATMAP], run.info.iterations);
    ck_assert_double_le(run.final.val[MCB_M_NATMAP_CCP], 1e-8);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* The sliding contact: the CCP solution lambda = (1.6, -0.8, 0), v = (1.2, 0,
 * 0.6) (tests/test_metrics.c), whose Coulomb natural map is 0.3; the dual
 * form (apgd) gives the same impulse. */
START_TEST(ccp_slip_known_solution)
{
    const double v_ccp[3] = {1.2, 0, 0.6}, l_ccp[3] = {1.6, -0.8, 0};
    for (int s = 0; s < 2; s++) {
        mcb_problem *P = fx_point_contact(FX_SLIP);
        mcb_run run;
        run_law(P, ccp_solvers[s], NULL, MCB_LAW_CCP, 20000, 1e-12, 1, &run);
        for (int k = 0; k < 3; k++) {
            ck_assert_double_eq_tol(run.v[k], v_ccp[k], 1e-9);
            ck_assert_double_eq_tol(run.lambda[k], l_ccp[k], 1e-9);
        }
        ck_assert_double_eq_tol(run.final.val[MCB_M_NATMAP_NCP], 0.3, 1e-8);
        mcb_run_clear(&run);
        mcb_problem_free(&P);
    }
    mcb_problem *P = fx_point_contact_dual(FX_SLIP);
    mcb_run run;
    run_law(P, "apgd", NULL, MCB_LAW_CCP, 20000, 1e-12, 1, &run);
    ck_assert_int_eq(run.info.status, MCB_ST_SOLVED);
    for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(run.lambda[k], l_ccp[k], 1e-9);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
    /* an NCP solver judged by the CCP law does not converge on it */
    P = fx_point_contact(FX_SLIP);
    run_law(P, "pgs", NULL, MCB_LAW_CCP, 2000, 1e-8, 1, &run);
    ck_assert_int_ne(run.info.status, MCB_ST_SOLVED);
    ck_assert_double_eq_tol(run.final.val[MCB_M_NATMAP], sqrt(0.2), 1e-9);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* ------------------------------------------------ serial reference Alg. 1 */

static double entry(const mcb_csc *A, int i, int j)
{
    for (int k = A->p[j]; k < A->p[j + 1]; k++)
        if (A->i[k] == i) return A->x[k];
    return 0.0;
}

/* Tasora-Negrut Alg. 1 written serially and plainly (omega, relax = 1,
 * eta_c = 3, gamma^0 = 0), with the same dense factors of the (small) A_s
 * and the same order of sums as the solver: steps 1-2
 * (eta from the Delassus diagonal), 4 (v^0), 5-7 (each block from v^r, then
 * v^{r+1} by eq. (23)). Contacts, bilateral and unilateral rows only. */
static void reference_alg1(const mcb_problem *P, int iters, double omega, double *v,
                           double *lambda)
{
    int n = P->n, m = P->m, ns = P->nsub;
    mcb_csc *JT = mcb_csc_transpose(P->J);
    double **F = calloc((size_t)ns, sizeof *F);
    double *diag = calloc((size_t)m, sizeof(double)), *eta = calloc((size_t)m, sizeof(double));
    for (int s = 0; s < ns; s++) {
        int a = P->sub_start[s], nv = P->sub_start[s + 1] - a;
        ck_assert_int_le(nv, 64);
        F[s] = calloc((size_t)nv * nv, sizeof(double));
        for (int i = 0; i < nv; i++)
            for (int j = 0; j < nv; j++) F[s][(size_t)j * nv + i] = entry(P->A, a + i, a + j);
        ck_assert_int_eq(mcb_dense_chol(nv, F[s]), MCB_OK);
        for (int r = 0; r < m; r++) { /* J_{r,s} A_s^-1 J_{r,s}^T */
            double x[64] = {0}, y[64];
            int touches = 0;
            for (int k = JT->p[r]; k < JT->p[r + 1]; k++)
                if (JT->i[k] >= a && JT->i[k] < a + nv) x[JT->i[k] - a] = JT->x[k], touches = 1;
            if (!touches) continue;
            memcpy(y, x, sizeof y);
            mcb_dense_chol_solve(nv, F[s], y);
            for (int c = 0; c < nv; c++) diag[r] += x[c] * y[c];
        }
    }
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r0 = B->row;
        ck_assert(B->type != MCB_SOFT);
        if (mcb_is_contact(B->type)) {
            double tr = diag[r0] + diag[r0 + 1] + diag[r0 + 2];
            eta[r0] = eta[r0 + 1] = eta[r0 + 2] = tr > 0.0 ? 3.0 / tr : 0.0;
        } else {
            for (int r = r0; r < r0 + B->nrows; r++) eta[r] = diag[r] > 0.0 ? 1.0 / diag[r] : 0.0;
        }
    }
    memset(lambda, 0, (size_t)m * sizeof(double));
    for (int it = 0; it <= iters; it++) {
        if (it > 0) /* steps 5-6 */
            for (int b = 0; b < P->nblocks; b++) {
                const mcb_block *B = &P->blocks[b];
                double t[3], p[3];
                for (int r = B->row; r < B->row + B->nrows; r++) {
                    double u = P->e[r];
                    for (int k = JT->p[r]; k < JT->p[r + 1]; k++) u += JT->x[k] * v[JT->i[k]];
                    double x = lambda[r] - omega * eta[r] * u;
                    if (mcb_is_contact(B->type)) t[r - B->row] = x;
                    else lambda[r] = 1.0 * (B->type == MCB_UNILATERAL && x < 0.0 ? 0.0 : x) +
                                     (1.0 - 1.0) * lambda[r];
                }
                if (mcb_is_contact(B->type)) {
                    mcb_proj_cone(B->mu, t, p);
                    for (int a = 0; a < 3; a++)
                        lambda[B->row + a] = 1.0 * p[a] + (1.0 - 1.0) * lambda[B->row + a];
                }
            }
        /* step 4 / 7 as eq. (23) */
        for (int s = 0; s < ns; s++) {
            for (int j = P->sub_start[s]; j < P->sub_start[s + 1]; j++) {
                double x = P->b[j];
                for (int k = P->J->p[j]; k < P->J->p[j + 1]; k++) x += P->J->x[k] * lambda[P->J->i[k]];
                v[j] = x;
            }
            mcb_dense_chol_solve(P->sub_start[s + 1] - P->sub_start[s], F[s], v + P->sub_start[s]);
        }
    }
    (void)n;
    for (int s = 0; s < ns; s++) free(F[s]);
    free(F);
    free(diag);
    free(eta);
    mcb_csc_free(&JT);
}

/* ccp-jacobi with one thread is bit for bit the serial Alg. 1, and with two
 * threads bit for bit the one-thread run (the reduction is per DOF in a
 * fixed order). */
START_TEST(ccp_jacobi_bit_for_bit)
{
    mcb_problem *P = fx_small_stack();
    ck_assert_int_gt(P->nsub, 1);
    enum { ITERS = 37 };
    double *v = calloc((size_t)P->n, sizeof(double)), *l = calloc((size_t)P->m, sizeof(double));
    reference_alg1(P, ITERS, 0.3, v, l);
    mcb_run r1, r2;
    run_law(P, "ccp-jacobi", NULL, MCB_LAW_CCP, ITERS, 0.0, 1, &r1);
    ck_assert_int_eq(r1.info.iterations, ITERS);
    ck_assert_int_eq(memcmp(r1.lambda, l, (size_t)P->m * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(r1.v, v, (size_t)P->n * sizeof(double)), 0);
    run_law(P, "ccp-jacobi", NULL, MCB_LAW_CCP, ITERS, 0.0, 2, &r2);
    ck_assert_int_eq(memcmp(r1.lambda, r2.lambda, (size_t)P->m * sizeof(double)), 0);
    ck_assert_int_eq(memcmp(r1.v, r2.v, (size_t)P->n * sizeof(double)), 0);
    mcb_run_clear(&r1);
    mcb_run_clear(&r2);
    /* apgd too is identical for 1 and 2 threads (row-parallel products,
     * serial dot products) */
    run_law(P, "apgd", NULL, MCB_LAW_CCP, ITERS, 0.0, 1, &r1);
    run_law(P, "apgd", NULL, MCB_LAW_CCP, ITERS, 0.0, 2, &r2);
    ck_assert_int_eq(memcmp(r1.lambda, r2.lambda, (size_t)P->m * sizeof(double)), 0);
    mcb_run_clear(&r1);
    mcb_run_clear(&r2);
    free(v);
    free(l);
    mcb_problem_free(&P);
}
END_TEST

/* ------------------------------------------------------------ failures */

/* A not positive definite (which validation and the metrics refuse, so the
 * solvers' setup is called directly): both fail with MCB_E_NUMERIC (the
 * harness's setup-failed), allocate nothing and do not crash. */
START_TEST(indefinite_A_is_setup_failed)
{
    const double A[9] = {1, 0, 0, 0, -1, 0, 0, 0, 1}, b[3] = {0, 0, -1};
    const double J[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0}, e[3] = {0, 0, 0};
    for (int s = 0; s < 2; s++) {
        mcb_problem *P = fx_dense_primal(3, 3, A, b, J, e);
        P->nblocks = 1;
        P->blocks = calloc(1, sizeof(mcb_block));
        P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 0.5, 0, 0};
        mcb_problem_infer_subsystems(P, NULL);
        const mcb_solver_def *def = mcb_solver_find(ccp_solvers[s]);
        double prm[8];
        def->default_params(prm);
        mcb_settings st;
        mcb_settings_default(&st);
        void *work = NULL;
        mcb_err err;
        mcb_err_clear(&err);
        ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_E_NUMERIC);
        ck_assert_ptr_null(work);
        ck_assert_msg(err.msg[0], "%s: no message", ccp_solvers[s]);
        mcb_problem_free(&P);
    }
}
END_TEST

/* ccp-jacobi with a step far beyond its contraction range diverges, and the
 * status says so; bad parameters are refused. */
START_TEST(divergence_and_bad_params)
{
    const mcb_solver_def *def = mcb_solver_find("ccp-jacobi");
    double prm[8];
    def->default_params(prm);
    ck_assert_int_eq(mcb_param_set(def, prm, "omega", "40", NULL), MCB_OK);
    mcb_problem *P = fx_small_stack();
    mcb_run run;
    run_law(P, "ccp-jacobi", prm, MCB_LAW_CCP, 5000, 1e-8, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_DIVERGED, "omega 40: %s",
                  mcb_status_name(run.info.status));
    mcb_run_clear(&run);
    mcb_err err;
    def->default_params(prm);
    ck_assert_int_eq(mcb_param_set(def, prm, "relax", "1.5", NULL), MCB_OK);
    ck_assert_int_eq(def->check_params(prm, &err), MCB_E_INPUT);
    const mcb_solver_def *ap = mcb_solver_find("apgd");
    ap->default_params(prm);
    ck_assert_int_eq(mcb_param_set(ap, prm, "shrink", "0", NULL), MCB_OK);
    ck_assert_int_eq(ap->check_params(prm, &err), MCB_E_INPUT);
    void *work = NULL;
    mcb_settings st;
    mcb_settings_default(&st);
    ck_assert_int_eq(ap->setup(P, &st, prm, &work, &err), MCB_E_INPUT);
    ck_assert_ptr_null(work);
    ap->free(NULL);
    ap->free(&work);
    def->free(NULL);
    mcb_problem_free(&P);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ccp");
    TCase *tc = tcase_create("ccp solvers");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, solved_under_ccp, 0, NFIX * 2);
    tcase_add_test(tc, ccp_slip_known_solution);
    tcase_add_test(tc, ccp_jacobi_bit_for_bit);
    tcase_add_test(tc, indefinite_A_is_setup_failed);
    tcase_add_test(tc, divergence_and_bad_params);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

/* test_delassus.c: known-answer tests of the Delassus operator
 * (lib/mcb_delassus.c): W = J A^-1 J^T by the per-subsystem path and by the
 * sparse-right-hand-side triangular solves agree with a hand-computed W and
 * with the plain sparse solve X = A^-1 J^T; the local 3x3 contact step
 * reaches the exact stick, slip and open solutions of a coupled block and
 * keeps them as fixed points. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "lib/mcb_delassus.h"
#include "harness/runner.h"

/* Dense m x m copy of a CSC matrix (row-major). */
static double *dense(const mcb_csc *W)
{
    double *d = calloc((size_t)W->m * (size_t)W->n, sizeof(double));
    for (int j = 0; j < W->n; j++)
        for (int k = W->p[j]; k < W->p[j + 1]; k++) d[(size_t)W->i[k] * W->n + j] += W->x[k];
    return d;
}

static double max_diff(const mcb_csc *X, const mcb_csc *Y)
{
    ck_assert_int_eq(X->m, Y->m);
    ck_assert_int_eq(X->n, Y->n);
    double *a = dense(X), *b = dense(Y), diff = 0.0;
    for (size_t k = 0; k < (size_t)X->m * X->n; k++)
        if (fabs(a[k] - b[k]) > diff) diff = fabs(a[k] - b[k]);
    free(a);
    free(b);
    return diff;
}

/* Two bodies of 3 DOFs: A1 = [4 2 0; 2 3 0; 0 0 1], A2 = diag(2, 1, 0.5);
 * a contact between them (n = DOF 2 - DOF 5, t1 = DOF 0 - DOF 3,
 * t2 = DOF 1 - DOF 4) and a unilateral row on DOF 5. With
 * A1^-1 = [3 -2 0; -2 4 0; 0 0 8] / 8 and A2^-1 = diag(0.5, 1, 2):
 *     W = [3 0 0 -2; 0 0.875 -0.25 0; 0 -0.25 1.5 0; -2 0 0 2]. */
static mcb_problem *two_bodies(double coupling)
{
    double A[36] = {0};
    double A1[9] = {4, 2, 0, 2, 3, 0, 0, 0, 1}, a2[3] = {2, 1, 0.5};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) A[6 * i + j] = A1[3 * i + j];
        A[7 * (i + 3)] = a2[i];
    }
    A[6 * 2 + 3] = A[6 * 3 + 2] = coupling;
    double J[24] = {0, 0, 1, 0, 0, -1, /* n  */
                    1, 0, 0, -1, 0, 0, /* t1 */
                    0, 1, 0, 0, -1, 0, /* t2 */
                    0, 0, 0, 0, 0, 1}; /* unilateral */
    double b[6] = {0.1, 0.2, -1, 0, 0, -0.5}, e[4] = {0, 0, 0, 0.01};
    mcb_problem *P = fx_dense_primal(6, 4, A, b, J, e);
    P->nblocks = 2;
    P->blocks = calloc(2, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 0.5, 0, 0};
    P->blocks[1] = (mcb_block){MCB_UNILATERAL, 3, 1, 0, 0, 0};
    P->nsub = 2;
    P->sub_start = malloc(3 * sizeof(int));
    P->sub_start[0] = 0;
    P->sub_start[1] = 3;
    P->sub_start[2] = 6;
    return P;
}

static const double W_two[16] = {3, 0, 0, -2, 0, 0.875, -0.25, 0, 0, -0.25, 1.5, 0, -2, 0, 0, 2};

/* The reference W by the plain sparse solve X = A^-1 J^T and J X. */
static mcb_csc *reference_w(const mcb_problem *P)
{
    mcb_chol *F = NULL;
    ck_assert_int_eq(mcb_chol_factor(P->A, &F, NULL), MCB_OK);
    mcb_csc *JT = mcb_csc_transpose(P->J);
    mcb_csc *X = mcb_chol_spsolve(F, JT);
    mcb_csc *W = mcb_csc_multiply(P->J, X);
    mcb_csc_free(&JT);
    mcb_csc_free(&X);
    mcb_chol_free(&F);
    ck_assert_ptr_nonnull(W);
    return W;
}

START_TEST(two_bodies_known_w_both_paths)
{
    /* _i = 0: per-subsystem dense path; 1: sparse triangular solves */
    mcb_problem *P = two_bodies(0.0);
    mcb_delassus *D = NULL;
    mcb_err err;
    ck_assert_msg(mcb_delassus_build_ex(P, _i == 0 ? 64 : 0, &D, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(D->blockwise, 1);
    ck_assert_int_eq(D->ndense, _i == 0 ? 2 : 0);
    ck_assert_int_eq(D->nsparse_dofs, _i == 0 ? 0 : 6);
    double *w = dense(D->W);
    for (int k = 0; k < 16; k++)
        ck_assert_msg(fabs(w[k] - W_two[k]) < 1e-14, "W[%d][%d] = %.17g, expected %g", k / 4,
                      k % 4, w[k], W_two[k]);
    free(w);
    /* the contact's 3x3 block and weights: d_n = W_nn, d_t = lmax of the
     * tangential block [0.875 -0.25; -0.25 1.5] */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) ck_assert_double_eq_tol(D->Wb[3 * i + j], W_two[4 * i + j], 1e-14);
    double lmax = 0.5 * (0.875 + 1.5) + sqrt(0.25 * 0.625 * 0.625 + 0.0625);
    ck_assert_double_eq_tol(D->d[0], 3.0, 1e-14);
    ck_assert_double_eq_tol(D->d[1], lmax, 1e-14);
    ck_assert_double_eq_tol(D->d[3], 2.0, 1e-14);
    /* W against the plain sparse solve too */
    mcb_csc *W0 = reference_w(P);
    ck_assert_double_le(max_diff(D->W, W0), 1e-14);
    mcb_csc_free(&W0);
    mcb_delassus_free(&D);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(coupled_a_takes_the_sparse_path)
{
    /* an entry of A couples the two declared subsystems: the per-block
     * path would be wrong, so the whole A goes through G = L^-1 P J^T */
    mcb_problem *P = two_bodies(0.5);
    mcb_delassus *D = NULL;
    mcb_err err;
    ck_assert_msg(mcb_delassus_build(P, &D, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(D->blockwise, 0);
    ck_assert_int_eq(D->ndense, 0);
    ck_assert_int_eq(D->nsparse_dofs, 6);
    mcb_csc *W0 = reference_w(P);
    ck_assert_double_le(max_diff(D->W, W0), 1e-14);
    /* the coupling changes W (the test would not see a wrong path otherwise) */
    double *w = dense(D->W);
    ck_assert_double_gt(fabs(w[0] - 3.0), 0.1);
    free(w);
    mcb_csc_free(&W0);
    mcb_delassus_free(&D);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(stack_paths_agree)
{
    mcb_problem *P = fx_small_stack();
    ck_assert_ptr_nonnull(P);
    mcb_csc *W0 = reference_w(P);
    double wmax = 0.0;
    for (int k = 0; k < mcb_csc_nnz(W0); k++) wmax = fmax(wmax, fabs(W0->x[k]));
    for (int path = 0; path < 2; path++) {
        mcb_delassus *D = NULL;
        mcb_err err;
        ck_assert_msg(mcb_delassus_build_ex(P, path == 0 ? MCB_DELASSUS_DENSE_MAX : 0, &D, &err) ==
                          MCB_OK,
                      "%s", err.msg);
        ck_assert_int_eq(D->blockwise, 1);
        ck_assert_int_eq(D->ndense, path == 0 ? P->nsub : 0);
        ck_assert_int_eq(D->nsparse_dofs, path == 0 ? 0 : P->n);
        double diff = max_diff(D->W, W0);
        ck_assert_msg(diff <= 1e-12 * wmax, "path %d: max |W - J A^-1 J^T| = %g (max |W| %g)",
                      path, diff, wmax);
        /* exactly symmetric by construction (WT is W itself) */
        ck_assert_ptr_eq(D->WT, D->W);
        ck_assert_double_eq(mcb_csc_asymmetry(D->W), 0.0);
        /* sorted unique rows in every column (the CSC invariant) */
        for (int j = 0; j < D->W->n; j++)
            for (int k = D->W->p[j] + 1; k < D->W->p[j + 1]; k++)
                ck_assert_int_lt(D->W->i[k - 1], D->W->i[k]);
        mcb_delassus_free(&D);
    }
    mcb_csc_free(&W0);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(lsolve_sparse_known_answer)
{
    /* A = [4 2; 2 3], B = [I, 0, e2]: G^T G = B^T A^-1 B with
     * A^-1 = [3 -2; -2 4] / 8 */
    double a[4] = {4, 2, 2, 3}, bx[4] = {1, 0, 0, 1}, e[2] = {0, 0};
    mcb_problem *P = fx_dense_primal(2, 2, a, e, bx, e);
    mcb_chol *F = NULL;
    ck_assert_int_eq(mcb_chol_factor(P->A, &F, NULL), MCB_OK);
    int bp[5] = {0, 1, 2, 2, 3}, bi[3] = {0, 1, 1};
    double bv[3] = {1, 1, 1};
    mcb_csc B = {2, 4, bp, bi, bv};
    mcb_csc *G = mcb_chol_lsolve_sparse(F, &B);
    ck_assert_ptr_nonnull(G);
    ck_assert_int_eq(G->p[3] - G->p[2], 0); /* an empty column stays empty */
    mcb_csc *GT = mcb_csc_transpose(G);
    mcb_csc *C = mcb_csc_multiply(GT, G);
    double *c = dense(C);
    const double want[16] = {3. / 8, -2. / 8, 0, -2. / 8, -2. / 8, 4. / 8, 0, 4. / 8,
                             0,      0,       0, 0,       -2. / 8, 4. / 8, 0, 4. / 8};
    for (int k = 0; k < 16; k++) ck_assert_double_eq_tol(c[k], want[k], 1e-15);
    free(c);
    mcb_csc_free(&C);
    mcb_csc_free(&GT);
    mcb_csc_free(&G);
    /* a refactorization drops the cached L; the next solve extracts it again */
    ck_assert_int_eq(mcb_chol_refactor(F, P->A, NULL), MCB_OK);
    G = mcb_chol_lsolve_sparse(F, &B);
    ck_assert_ptr_nonnull(G);
    mcb_csc_free(&G);
    /* shape mismatch and NULL */
    mcb_csc B3 = {3, 4, bp, bi, bv};
    ck_assert_ptr_null(mcb_chol_lsolve_sparse(F, &B3));
    ck_assert_ptr_null(mcb_chol_lsolve_sparse(NULL, &B));
    mcb_chol_free(&F);
    mcb_problem_free(&P);
}
END_TEST

/* A single contact in dual form with a coupled 3x3 block, mu = 0.5. */
static const double Wc[9] = {2, 0.6, 0.2, 0.6, 1.5, 0.3, 0.2, 0.3, 1};

static mcb_problem *coupled_contact(const double q[3])
{
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_DUAL;
    P->m = 3;
    int tr[9], tc[9];
    for (int k = 0; k < 9; k++) {
        tr[k] = k / 3;
        tc[k] = k % 3;
    }
    P->W = mcb_csc_from_triplets(3, 3, 9, tr, tc, Wc);
    P->q = malloc(3 * sizeof(double));
    memcpy(P->q, q, 3 * sizeof(double));
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 0.5, 0, 0};
    free(P->name);
    P->name = strdup("coupled");
    return P;
}

/* q for a wanted solution x with velocity u: q = u - W x. */
static void q_for(const double x[3], const double u[3], double q[3])
{
    for (int i = 0; i < 3; i++) q[i] = u[i] - (Wc[3 * i] * x[0] + Wc[3 * i + 1] * x[1] + Wc[3 * i + 2] * x[2]);
}

static const double X_stick[3] = {1, 0.2, -0.1}, U_stick[3] = {0, 0, 0};
static const double X_slip[3] = {1, 0.4, -0.3}, U_slip[3] = {0, -0.8, 0.6}; /* u_t = -2 x_t */
static const double X_open[3] = {0, 0, 0}, U_open[3] = {0.5, 1, -2};

START_TEST(local_step_solves_the_coupled_contact)
{
    /* _i: stick, slip, open. One local step from lambda = 0 (u = q). */
    const double *X = _i == 0 ? X_stick : _i == 1 ? X_slip : X_open;
    const double *U = _i == 0 ? U_stick : _i == 1 ? U_slip : U_open;
    double q[3];
    q_for(X, U, q);
    mcb_problem *P = coupled_contact(q);
    mcb_delassus *D = NULL;
    ck_assert_int_eq(mcb_delassus_build(P, &D, NULL), MCB_OK);
    double zero[3] = {0, 0, 0}, u[3], out[3];
    mcb_delassus_rows(D, 0, 3, zero, u);
    mcb_block_step(&P->blocks[0], NULL, zero, u, D->d, D->Wb, 1.0, out);
    for (int k = 0; k < 3; k++)
        ck_assert_msg(fabs(out[k] - X[k]) < 1e-9, "case %d: lambda_%d = %.12g, expected %g", _i,
                      k, out[k], X[k]);
    /* the exact solution is a fixed point, for any relaxation */
    const double omegas[3] = {0.5, 1.0, 1.5};
    for (int o = 0; o < 3; o++) {
        mcb_delassus_rows(D, 0, 3, X, u);
        mcb_block_step(&P->blocks[0], NULL, X, u, D->d, D->Wb, omegas[o], out);
        for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(out[k], X[k], 1e-14);
    }
    mcb_delassus_free(&D);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(pgs_pj_solve_the_coupled_contact_at_once)
{
    /* the exact 3x3 block makes one contact a one-iteration problem */
    double q[3];
    q_for(X_slip, U_slip, q);
    const char *names[2] = {"pgs", "pj"};
    for (int s = 0; s < 2; s++) {
        mcb_problem *P = coupled_contact(q);
        mcb_campaign_opts o;
        mcb_campaign_defaults(&o);
        o.settings.tol = 1e-10;
        o.save_solutions = 1;
        mcb_metrics_ws *ws = NULL;
        ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
        mcb_run run = {0};
        ck_assert_int_eq(mcb_run_one(P, ws, mcb_solver_find(names[s]), NULL, &o, &run, NULL),
                         MCB_OK);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED && run.info.iterations <= 2,
                      "%s: %s after %d iterations", names[s], mcb_status_name(run.info.status),
                      run.info.iterations);
        for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(run.lambda[k], X_slip[k], 1e-9);
        mcb_run_clear(&run);
        mcb_metrics_ws_free(&ws);
        mcb_problem_free(&P);
    }
}
END_TEST

START_TEST(block_solve_inverts_the_blocks)
{
    mcb_problem *P = two_bodies(0.0);
    mcb_delassus *D = NULL;
    ck_assert_int_eq(mcb_delassus_build(P, &D, NULL), MCB_OK);
    double x[4] = {1, -2, 0.5, 3}, y[4];
    mcb_delassus_block_solve(D, x, y);
    /* the contact block: W_cc y = x; the unilateral row: y = x / 2 */
    for (int i = 0; i < 3; i++) {
        double s = 0.0;
        for (int j = 0; j < 3; j++) s += W_two[4 * i + j] * y[j];
        ck_assert_double_eq_tol(s, x[i], 1e-14);
    }
    ck_assert_double_eq_tol(y[3], 1.5, 1e-15);
    mcb_delassus_free(&D);
    mcb_delassus_free(&D); /* NULL after free: a no-op */
    mcb_delassus_free(NULL);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(not_positive_definite_fails_cleanly)
{
    mcb_problem *P = two_bodies(0.0);
    P->A->x[0] = -1.0; /* A_00 */
    mcb_delassus *D = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_delassus_build(P, &D, &err), MCB_E_NUMERIC);
    ck_assert_ptr_null(D);
    mcb_problem_free(&P);
}
END_TEST

/* A 2D grid Laplacian (20 x 20 DOFs, one subsystem: any ordering fills
 * its factor) with contacts spread over it: G = L^-1 P J^T fills in, so W
 * is assembled as J (A^-1 J^T); it equals the reference and is exactly
 * symmetric. */
START_TEST(filled_g_takes_the_coupled_product)
{
    int g = 20, n = g * g, nc = 10, m = 3 * nc;
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_PRIMAL;
    P->n = n;
    P->m = m;
    int *ti = malloc(5 * (size_t)n * sizeof(int)), *tj = malloc(5 * (size_t)n * sizeof(int));
    double *tx = malloc(5 * (size_t)n * sizeof(double));
    int t = 0;
    for (int y = 0; y < g; y++)
        for (int x = 0; x < g; x++) {
            int j = y * g + x;
            ti[t] = j, tj[t] = j, tx[t++] = 4.2;
            if (x + 1 < g) ti[t] = j, tj[t] = j + 1, tx[t++] = -1.0;
            if (x > 0) ti[t] = j, tj[t] = j - 1, tx[t++] = -1.0;
            if (y + 1 < g) ti[t] = j, tj[t] = j + g, tx[t++] = -1.0;
            if (y > 0) ti[t] = j, tj[t] = j - g, tx[t++] = -1.0;
        }
    P->A = mcb_csc_from_triplets(n, n, t, ti, tj, tx);
    t = 0;
    for (int r = 0; r < m; r++) {
        ti[t] = r, tj[t] = (37 * r + 11) % n, tx[t++] = 1.0;
        ti[t] = r, tj[t] = (53 * r + 5) % n, tx[t++] = -0.5 + 0.01 * r;
    }
    P->J = mcb_csc_from_triplets(m, n, t, ti, tj, tx);
    free(ti);
    free(tj);
    free(tx);
    P->b = calloc((size_t)n, sizeof(double));
    P->e = calloc((size_t)m, sizeof(double));
    P->nblocks = nc;
    P->blocks = calloc((size_t)nc, sizeof(mcb_block));
    for (int c = 0; c < nc; c++) P->blocks[c] = (mcb_block){MCB_CONTACT, 3 * c, 3, 0.5, 0, 0};
    P->nsub = 1;
    P->sub_start = malloc(2 * sizeof(int));
    P->sub_start[0] = 0;
    P->sub_start[1] = n;
    mcb_delassus *D = NULL;
    mcb_err err;
    ck_assert_msg(mcb_delassus_build(P, &D, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(D->coupled, 1);
    mcb_csc *W0 = reference_w(P);
    double *w = dense(D->W), *w0 = dense(W0), scale = 0.0;
    for (int k = 0; k < m * m; k++) scale = fabs(w0[k]) > scale ? fabs(w0[k]) : scale;
    for (int r = 0; r < m; r++)
        for (int c = 0; c < m; c++) {
            ck_assert_msg(fabs(w[m * r + c] - w0[m * r + c]) <= 1e-13 * scale, "W[%d][%d]", r, c);
            ck_assert(w[m * r + c] == w[m * c + r]);
        }
    free(w);
    free(w0);
    mcb_csc_free(&W0);
    mcb_delassus_free(&D);
    mcb_problem_free(&P);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("delassus");
    TCase *tc = tcase_create("core");
    tcase_add_loop_test(tc, two_bodies_known_w_both_paths, 0, 2);
    tcase_add_test(tc, coupled_a_takes_the_sparse_path);
    tcase_add_test(tc, stack_paths_agree);
    tcase_add_test(tc, filled_g_takes_the_coupled_product);
    tcase_add_test(tc, lsolve_sparse_known_answer);
    tcase_add_loop_test(tc, local_step_solves_the_coupled_contact, 0, 3);
    tcase_add_test(tc, pgs_pj_solve_the_coupled_contact_at_once);
    tcase_add_test(tc, block_solve_inverts_the_blocks);
    tcase_add_test(tc, not_positive_definite_fails_cleanly);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mcb_run_suite(suite()); }

/* test_describe.c: the difficulty descriptors (metrics/describe.h) on
 * problems whose answers are known by hand: W = diag(1, 100) (cond 100),
 * a duplicated row of J (rank deficiency 1), three contacts' mu, a dual
 * problem, a dual W indefinite by round-off (psd_defect), the stored scene
 * descriptors, and NULL arguments. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "metrics/describe.h"
#include "fixtures.h"
#include "problems/scene/world.h"

/* A = I2, J = diag(1, 10): W = J J^T = diag(1, 100); two unilateral rows. */
static mcb_problem *diag_problem(void)
{
    double A[4] = {1, 0, 0, 1}, b[2] = {0, 0}, J[4] = {1, 0, 0, 10}, e[2] = {0, 0};
    mcb_problem *P = fx_dense_primal(2, 2, A, b, J, e);
    P->nblocks = 2;
    P->blocks = calloc(2, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_UNILATERAL, 0, 1, 0, 0, 0};
    P->blocks[1] = (mcb_block){MCB_UNILATERAL, 1, 1, 0, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    return P;
}

START_TEST(cond_of_diag_1_100)
{
    mcb_problem *P = diag_problem();
    int steps = 0;
    double c = mcb_describe_cond(P, 80, &steps);
    ck_assert_double_eq_tol(c, 100.0, 1e-9);
    ck_assert_int_le(steps, 2);
    mcb_descriptors d;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_double_eq_tol(d.cond_w, 100.0, 1e-9);
    ck_assert_int_eq(d.cond_from, MCB_DESC_LANCZOS);
    ck_assert_int_eq(d.n, 2);
    ck_assert_int_eq(d.m, 2);
    ck_assert_int_eq(d.contacts, 0);
    ck_assert_double_eq(d.rows_per_dof, 1.0);
    ck_assert_int_eq(d.rank, 2);
    ck_assert_int_eq(d.rank_def, 0);
    ck_assert(isnan(d.mu_min) && isnan(d.mu_med) && isnan(d.mu_max));
    /* two 1-DOF subsystems of mass 1: ratio 1 from A's diagonal */
    ck_assert_int_eq(d.mass_from, MCB_DESC_SUBSYS);
    ck_assert_double_eq(d.mass_ratio, 1.0);
    mcb_problem_free(&P);
}
END_TEST

/* J (3 x 2) = [1 0; 1 0; 0 2]: row 1 duplicates row 0, rank 2, deficiency
 * 1; W = [1 1 0; 1 1 0; 0 0 4] has eigenvalues 0, 2, 4: cond over the
 * nonzero spectrum 2, the zero eigenvalue left out. */
START_TEST(duplicated_row_rank_deficiency)
{
    double A[4] = {1, 0, 0, 1}, b[2] = {0, 0}, J[6] = {1, 0, 1, 0, 0, 2}, e[3] = {0, 0, 0};
    mcb_problem *P = fx_dense_primal(2, 3, A, b, J, e);
    P->nblocks = 3;
    P->blocks = calloc(3, sizeof(mcb_block));
    for (int k = 0; k < 3; k++) P->blocks[k] = (mcb_block){MCB_UNILATERAL, k, 1, 0, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    double tol = 0;
    ck_assert_int_eq(mcb_describe_rank(P, &tol), 2);
    ck_assert(tol > 0 && tol < 1e-12);
    mcb_descriptors d;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_int_eq(d.rank_def, 1);
    ck_assert_int_eq(d.rank_from, MCB_DESC_SPQR);
    ck_assert_double_eq_tol(d.rows_per_dof, 1.5, 1e-15);
    ck_assert_double_eq_tol(d.cond_w, 2.0, 1e-9);
    mcb_problem_free(&P);
}
END_TEST

/* Three point masses (9 DOFs, masses 1, 2, 8), one contact each with mu
 * 0.9, 0.2, 0.5: mu min 0.2, median 0.5, max 0.9; mass ratio 8. */
START_TEST(mu_statistics_and_mass_ratio)
{
    double A[81] = {0}, b[9] = {0}, J[81] = {0}, e[9] = {0};
    const double mass[3] = {1, 2, 8}, mu[3] = {0.9, 0.2, 0.5};
    for (int i = 0; i < 9; i++) {
        A[i * 9 + i] = mass[i / 3];
        J[i * 9 + i] = 1.0;
    }
    mcb_problem *P = fx_dense_primal(9, 9, A, b, J, e);
    P->nblocks = 3;
    P->blocks = calloc(3, sizeof(mcb_block));
    for (int k = 0; k < 3; k++) P->blocks[k] = (mcb_block){MCB_CONTACT, 3 * k, 3, mu[k], 0, 0};
    P->nsub = 3;
    P->sub_start = malloc(4 * sizeof(int));
    for (int s = 0; s <= 3; s++) P->sub_start[s] = 3 * s;
    mcb_descriptors d;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_int_eq(d.contacts, 3);
    ck_assert_double_eq(d.mu_min, 0.2);
    ck_assert_double_eq(d.mu_med, 0.5);
    ck_assert_double_eq(d.mu_max, 0.9);
    ck_assert_double_eq_tol(d.mass_ratio, 8.0, 1e-15);
    ck_assert_int_eq(d.mass_from, MCB_DESC_SUBSYS);
    /* W = diag(1, 1, 1, 1/2 x3, 1/8 x3): cond 8 */
    ck_assert_double_eq_tol(d.cond_w, 8.0, 1e-9);
    ck_assert_int_eq(d.rank_def, 0);
    /* an even count: the median is the mean of the middle two */
    P->blocks[2].type = MCB_BILATERAL;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_int_eq(d.contacts, 2);
    ck_assert_double_eq_tol(d.mu_med, 0.55, 1e-15);
    mcb_problem_free(&P);
}
END_TEST

/* A dual problem: one contact, W = diag(4, 1, 2) (cond 4, full rank), and
 * a second with W = [1 1 0; 1 1 0; 0 0 1] (rank 2, cond 2 over the nonzero
 * spectrum {1, 2}). */
START_TEST(dual_problem)
{
    mcb_problem *P = fx_point_contact_dual(FX_STICK);
    P->W->x[0] = 4.0;
    P->W->x[2] = 2.0;
    mcb_descriptors d;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_int_eq(d.form, MCB_DUAL);
    ck_assert_int_eq(d.n, 0);
    ck_assert_int_eq(d.m, 3);
    ck_assert(isnan(d.rows_per_dof));
    ck_assert_int_eq(d.contacts, 1);
    ck_assert_double_eq(d.mu_min, 0.5);
    ck_assert_double_eq(d.mu_med, 0.5);
    ck_assert_double_eq_tol(d.cond_w, 4.0, 1e-9);
    ck_assert_int_eq(d.rank, 3);
    ck_assert_int_eq(d.rank_def, 0);
    ck_assert_int_eq(d.mass_from, MCB_DESC_DIAG); /* one normal row: ratio 1 */
    ck_assert_double_eq(d.mass_ratio, 1.0);
    mcb_problem_free(&P);

    mcb_problem *Q = fx_point_contact_dual(FX_OPEN);
    mcb_csc_free(&Q->W);
    const int ri[5] = {0, 1, 0, 1, 2}, ci[5] = {0, 0, 1, 1, 2};
    const double x[5] = {1, 1, 1, 1, 1};
    Q->W = mcb_csc_from_triplets(3, 3, 5, ri, ci, x);
    ck_assert_ptr_nonnull(Q->W);
    ck_assert_int_eq(mcb_describe(Q, NULL, &d, NULL), MCB_OK);
    ck_assert_int_eq(d.rank, 2);
    ck_assert_int_eq(d.rank_def, 1);
    ck_assert_double_eq_tol(d.cond_w, 2.0, 1e-9);
    mcb_problem_free(&Q);
}
END_TEST

/* psd_defect = max(0, -lambda_min(W)) / ||W||_2 of a dual W (lib/mcb_psd.h):
 * W = [1 a 0; a 1 0; 0 0 1] has eigenvalues 1 - a, 1, 1 + a: 0 for a = 1
 * (singular, positive semidefinite), (a - 1) / (1 + a) for a = 1 + 1e-8
 * (about 5e-9: indefinite by round-off); a stored figure is taken as is
 * unless use_stored = 0; a primal problem has none. */
START_TEST(psd_defect_of_dual_w)
{
    mcb_problem *P = fx_point_contact_dual(FX_OPEN);
    const int ri[5] = {0, 1, 0, 1, 2}, ci[5] = {0, 0, 1, 1, 2};
    double x[5] = {1, 1, 1, 1, 1};
    mcb_csc_free(&P->W);
    P->W = mcb_csc_from_triplets(3, 3, 5, ri, ci, x);
    mcb_descriptors d;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_double_eq(d.psd_defect, 0);
    ck_assert_int_eq(d.psd_from, MCB_DESC_CHOLESKY);
    const double a = 1 + 1e-8, want = (a - 1) / (1 + a);
    x[1] = x[2] = a;
    mcb_csc_free(&P->W);
    P->W = mcb_csc_from_triplets(3, 3, 5, ri, ci, x);
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_msg(d.psd_defect > want / 1.06 && d.psd_defect < want * 1.06, "%g, want %g",
                  d.psd_defect, want);
    ck_assert_int_eq(d.psd_from, MCB_DESC_CHOLESKY);
    char row[512];
    mcb_describe_csv_row(&d, row, sizeof row);
    ck_assert_msg(strstr(row, ",cholesky") == row + strlen(row) - 9, "%s", row);
    const char *h = mcb_describe_csv_header();
    ck_assert_str_eq(h + strlen(h) - 20, ",psd_defect,psd_from");
    P->psd_defect = 7e-9;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_double_eq(d.psd_defect, 7e-9);
    ck_assert_int_eq(d.psd_from, MCB_DESC_STORED);
    mcb_describe_opts o;
    mcb_describe_defaults(&o);
    o.use_stored = 0;
    ck_assert_int_eq(mcb_describe(P, &o, &d, NULL), MCB_OK);
    ck_assert(d.psd_defect > want / 1.06 && d.psd_defect < want * 1.06);
    mcb_problem_free(&P);
    mcb_problem *Q = diag_problem();
    ck_assert_int_eq(mcb_describe(Q, NULL, &d, NULL), MCB_OK);
    ck_assert(isnan(d.psd_defect));
    ck_assert_int_eq(d.psd_from, MCB_DESC_NONE);
    ck_assert_str_eq(mcb_desc_from_name(MCB_DESC_CHOLESKY), "cholesky");
    mcb_problem_free(&Q);
}
END_TEST

/* A finite stored descriptor is taken as is unless use_stored = 0; the
 * size limit skips cond and rank. */
START_TEST(stored_descriptors_and_limits)
{
    mcb_problem *P = diag_problem();
    /* what mcb_describe_store stores is what describe computes */
    mcb_descriptors d, e;
    ck_assert_int_eq(mcb_describe(P, NULL, &e, NULL), MCB_OK);
    mcb_describe_store(P);
    ck_assert_int_eq(P->rank, e.rank);
    ck_assert(P->rank_tol == e.rank_tol && P->cond_est == e.cond_w);
    P->cond_est = 123.0;
    P->mass_ratio = 7.0;
    P->rank = 1; /* not J's rank (2): seen only when taken as stored */
    P->rank_tol = 0.5;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_double_eq(d.cond_w, 123.0);
    ck_assert_int_eq(d.cond_from, MCB_DESC_STORED);
    ck_assert_double_eq(d.mass_ratio, 7.0);
    ck_assert_int_eq(d.mass_from, MCB_DESC_STORED);
    ck_assert_int_eq(d.rank, 1);
    ck_assert_int_eq(d.rank_def, P->m - 1);
    ck_assert_double_eq(d.rank_tol, 0.5);
    ck_assert_int_eq(d.rank_from, MCB_DESC_STORED);
    mcb_describe_opts o;
    mcb_describe_defaults(&o);
    o.use_stored = 0;
    ck_assert_int_eq(mcb_describe(P, &o, &d, NULL), MCB_OK);
    ck_assert_double_eq_tol(d.cond_w, 100.0, 1e-9);
    ck_assert_double_eq(d.mass_ratio, 1.0);
    ck_assert_int_eq(d.rank, e.rank);
    ck_assert_int_eq(d.rank_from, MCB_DESC_SPQR);
    o.max_rows = 1;
    ck_assert_int_eq(mcb_describe(P, &o, &d, NULL), MCB_OK);
    ck_assert(isnan(d.cond_w));
    ck_assert_int_eq(d.cond_from, MCB_DESC_NONE);
    ck_assert_int_eq(d.rank, -1);
    ck_assert_int_eq(d.rank_def, -1);
    ck_assert_str_eq(mcb_desc_from_name(MCB_DESC_STORED), "stored");
    ck_assert_str_eq(mcb_desc_from_name(99), "none");
    mcb_problem_free(&P);
}
END_TEST

/* A primal problem whose A is not positive definite: cond unknown, no
 * failure; NULL arguments. */
START_TEST(bad_input)
{
    mcb_problem *P = diag_problem();
    P->A->x[0] = -1.0;
    mcb_descriptors d;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert(isnan(d.cond_w));
    ck_assert_int_eq(d.rank, 2); /* the rank needs J only */
    mcb_problem_free(&P);
    /* no rows: rank 0, no deficiency, no cond(W), no mu */
    double A1[1] = {2}, b1[1] = {0};
    mcb_problem *Z = fx_dense_primal(1, 0, A1, b1, NULL, NULL);
    ck_assert_int_eq(mcb_describe(Z, NULL, &d, NULL), MCB_OK);
    ck_assert_int_eq(d.rank, 0);
    ck_assert_int_eq(d.rank_def, 0);
    ck_assert(isnan(d.cond_w) && isnan(d.mu_med));
    ck_assert_double_eq(d.rows_per_dof, 0.0);
    mcb_problem_free(&Z);
    mcb_err err;
    ck_assert_int_eq(mcb_describe(NULL, NULL, &d, &err), MCB_E_INPUT);
    ck_assert(isnan(mcb_describe_cond(NULL, 80, NULL)));
    ck_assert_int_eq(mcb_describe_rank(NULL, NULL), -1);
    mcb_describe_defaults(NULL);
}
END_TEST

/* On a generated stack step the scene engine's stored descriptor
 * (mcb_problem_cond_estimate, 80 steps) is describe's estimate. */
START_TEST(matches_scene_estimate)
{
    mcb_problem *P = fx_small_stack();
    ck_assert_ptr_nonnull(P);
    double ref = mcb_problem_cond_estimate(P), c = mcb_describe_cond(P, 80, NULL);
    ck_assert(isfinite(ref) && ref > 1.0);
    ck_assert_double_eq_tol(c, ref, 1e-12 * ref);
    mcb_descriptors d;
    ck_assert_int_eq(mcb_describe(P, NULL, &d, NULL), MCB_OK);
    ck_assert_int_ge(d.rank, 1);
    ck_assert_int_eq(d.rank + d.rank_def, d.m);
    ck_assert(d.mass_ratio >= 1.0);
    mcb_problem_free(&P);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("describe");
    TCase *tc = tcase_create("descriptors");
    tcase_add_test(tc, cond_of_diag_1_100);
    tcase_add_test(tc, duplicated_row_rank_deficiency);
    tcase_add_test(tc, mu_statistics_and_mass_ratio);
    tcase_add_test(tc, dual_problem);
    tcase_add_test(tc, stored_descriptors_and_limits);
    tcase_add_test(tc, psd_defect_of_dual_w);
    tcase_add_test(tc, bad_input);
    tcase_add_test(tc, matches_scene_estimate);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

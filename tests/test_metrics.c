/* test_metrics.c: known-answer tests for every metric and cone operator. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>

#include "fixtures.h"
#include "mcb_cone.h"
#include "metrics.h"

static mcb_metrics eval(mcb_problem *P, const double *v, const double *l)
{
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
    mcb_metrics m;
    mcb_metrics_compute(ws, v, l, &m);
    /* the single-metric path agrees with the full computation */
    for (int k = 0; k < MCB_NMETRICS; k++) {
        double one = mcb_metrics_one(ws, k, v, l);
        if (isnan(m.val[k])) ck_assert(isnan(one));
        else ck_assert_double_eq_tol(one, m.val[k], 1e-14 * (1 + fabs(m.val[k])));
    }
    mcb_metrics_ws_free(&ws);
    return m;
}

START_TEST(exact_solutions_have_zero_residuals)
{
    /* _i: FX_OPEN, FX_STICK, FX_SLIP */
    mcb_problem *P = fx_point_contact(_i);
    double v[3], l[3];
    fx_point_solution(_i, v, l);
    mcb_metrics m = eval(P, v, l);
    for (int k = 0; k < MCB_NMETRICS; k++) ck_assert_double_le(fabs(m.val[k]), 1e-14);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(slip_with_stick_force_is_wrong)
{
    /* slip free velocity, but the impulse of a stuck contact: lambda_t
     * outside the cone, v = (0, 0, 0) */
    mcb_problem *P = fx_point_contact(FX_SLIP);
    double v[3] = {0, 0, 0}, l[3] = {1, -2, 0};
    mcb_metrics m = eval(P, v, l);
    /* dynamics exact: A v - b - J^T l = 0 - (2,0,-1) - (-2, 0, 1) = 0 */
    ck_assert_double_le(m.val[MCB_M_DYN_ABS], 1e-15);
    /* natural map: u = 0, r - P_K(r) = (1,-2,0) - proj; proj of (1,-2,0) on
     * mu = 0.5: pn = (1 + 0.5*2)/1.25 = 1.6, t = -0.8 -> res (-0.6, -1.2, 0) */
    double nat = sqrt(0.36 + 1.44);
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP], nat / sqrt(5.0), 1e-14);
    /* z-residual: lambda - strict(lambda - u*) with u* = 0: strict((1,-2,0)) = (1,-0.5,0) */
    ck_assert_double_eq_tol(m.val[MCB_M_ZRES], 1.5, 1e-14);
    ck_assert_double_eq(m.val[MCB_M_PEN_MAX], 0.0);
    ck_assert_double_gt(m.val[MCB_M_FB], 0.1);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(penetration_and_dynamics_known_values)
{
    mcb_problem *P = fx_point_contact(FX_STICK);
    double v[3] = {0, 0, -0.25}, l[3] = {0, 0, 0};
    mcb_metrics m = eval(P, v, l);
    /* A v - b = (0,0,-0.25) - (0.1, 0, -1) = (-0.1, 0, 0.75) */
    ck_assert_double_eq_tol(m.val[MCB_M_DYN_ABS], sqrt(0.01 + 0.5625), 1e-15);
    ck_assert_double_eq_tol(m.val[MCB_M_DYN_REL], sqrt(0.01 + 0.5625) / sqrt(1.01), 1e-15);
    ck_assert_double_eq_tol(m.val[MCB_M_PEN_MAX], 0.25, 1e-15);
    ck_assert_double_eq_tol(m.val[MCB_M_PEN_SUM], 0.25, 1e-15);
    /* FB open with penetrating velocity: contact phi on x = 0, y = (u_n/mu, 0, 0)
     * = (-0.5, 0, 0): phi = y - |y| in the Jordan sense = (-0.5 - 0.5, 0, 0) */
    ck_assert_double_eq_tol(m.val[MCB_M_FB], 1.0, 1e-14);
    ck_assert_double_eq_tol(m.val[MCB_M_FB_MAX], 1.0, 1e-14);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(dual_form_metrics)
{
    mcb_problem *P = fx_point_contact_dual(FX_SLIP);
    double l[3] = {1, -0.5, 0};
    mcb_metrics m = eval(P, NULL, l);
    ck_assert(isnan(m.val[MCB_M_DYN_ABS]));
    ck_assert(isnan(m.val[MCB_M_DYN_REL]));
    ck_assert_double_le(m.val[MCB_M_NATMAP], 1e-15);
    ck_assert_double_le(m.val[MCB_M_ZRES], 1e-15);
    ck_assert_double_le(m.val[MCB_M_FB], 1e-15);
    double l0[3] = {0, 0, 0}; /* u = q = (-1, 2, 0): natmap = ||0 - P(-(u + [mu|u_t|,0,0]))|| / ||q|| */
    m = eval(P, NULL, l0);
    /* w = -(u + (1,0,0)) = (0, -2, 0): projection (0 + 0.5*2)/1.25 = 0.8, t = -0.4 */
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP], sqrt(0.64 + 0.16) / sqrt(5.0), 1e-14);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(scalar_rows_known_values)
{
    mcb_problem *P = fx_mixed();
    double v[6] = {0}, l[6] = {0};
    mcb_metrics m = eval(P, v, l);
    /* u = e = (0.1, 0.2, 0.05, 0, 0, 0): bilateral |0.1|, unilateral
     * fb(0, 0.2) = 0, soft 0 + k (e + alpha(u - e)) = 10 * 0.05 = 0.5, contact
     * fb of (0, 0) = 0 */
    ck_assert_double_eq_tol(m.val[MCB_M_FB], sqrt(0.01 + 0.25), 1e-14);
    /* z-residual with beta = 1: lambda - T(lambda - u*); u* = J A^-1 b + e */
    ck_assert_double_gt(m.val[MCB_M_ZRES], 0.0);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(cone_operators)
{
    double out[3];
    double in1[3] = {1, 0.3, 0.4}; /* inside for mu = 1 */
    mcb_proj_cone(1.0, in1, out);
    ck_assert_double_eq(out[1], 0.3);
    double in2[3] = {-2, 0.3, 0.4}; /* polar */
    mcb_proj_cone(1.0, in2, out);
    ck_assert_double_eq(out[0], 0.0);
    double in3[3] = {0, 3, 4}; /* mu = 1: pn = 5/2, t = 2.5 * (0.6, 0.8) */
    mcb_proj_cone(1.0, in3, out);
    ck_assert_double_eq_tol(out[0], 2.5, 1e-15);
    ck_assert_double_eq_tol(out[1], 1.5, 1e-15);
    mcb_proj_strict(0.5, (double[3]){2, 3, 4}, out);
    ck_assert_double_eq_tol(out[1], 0.6, 1e-15);
    ck_assert_double_eq_tol(out[2], 0.8, 1e-15);
    mcb_proj_strict(0.5, (double[3]){-1, 3, 4}, out);
    ck_assert_double_eq(out[0] + out[1] + out[2], 0.0);
    ck_assert_double_eq_tol(mcb_fb(3, 4), 2.0, 1e-15);
    ck_assert_double_eq(mcb_fb(0, 5), 0.0);
    /* SOC FB vanishes on complementary pairs: x = (1, 1, 0), y = (1, -1, 0) */
    double phi[3];
    mcb_fb_soc((double[3]){1, 1, 0}, (double[3]){1, -1, 0}, phi);
    for (int k = 0; k < 3; k++) ck_assert_double_le(fabs(phi[k]), 1e-15);
    /* and equals x + y - sqrt(x^2 + y^2) on the axis: x = (3,0,0), y = (4,0,0) */
    mcb_fb_soc((double[3]){3, 0, 0}, (double[3]){4, 0, 0}, phi);
    ck_assert_double_eq_tol(phi[0], 2.0, 1e-15);
}
END_TEST

START_TEST(metric_names)
{
    for (int k = 0; k < MCB_NMETRICS; k++)
        ck_assert_int_eq(mcb_metric_from_name(mcb_metric_name(k)), k);
    ck_assert_int_eq(mcb_metric_from_name("nope"), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("known answers");
    tcase_add_loop_test(tc, exact_solutions_have_zero_residuals, FX_OPEN, FX_SLIP + 1);
    tcase_add_test(tc, slip_with_stick_force_is_wrong);
    tcase_add_test(tc, penetration_and_dynamics_known_values);
    tcase_add_test(tc, dual_form_metrics);
    tcase_add_test(tc, scalar_rows_known_values);
    tcase_add_test(tc, cone_operators);
    tcase_add_test(tc, metric_names);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

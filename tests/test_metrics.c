/* test_metrics.c: known-answer tests for every metric and cone operator. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>

#include "fixtures.h"
#include "lib/mcb_cone.h"
#include "metrics/metrics.h"

static mcb_metrics eval_law(mcb_problem *P, int law, const double *v, const double *l)
{
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
    mcb_metrics_ws_set_law(ws, law);
    mcb_metrics m;
    mcb_metrics_compute(ws, v, l, &m);
    /* the single-metric path (its pieces alone) agrees with the full
     * computation bit for bit */
    for (int k = 0; k < MCB_NMETRICS; k++) {
        double one = mcb_metrics_one(ws, k, v, l);
        if (isnan(m.val[k])) ck_assert(isnan(one));
        else ck_assert_msg(one == m.val[k], "%s alone %.17g, with the others %.17g",
                           mcb_metric_name(k), one, m.val[k]);
    }
    mcb_metrics_ws_free(&ws);
    return m;
}

static mcb_metrics eval(mcb_problem *P, const double *v, const double *l)
{
    return eval_law(P, MCB_LAW_NCP, v, l);
}

START_TEST(exact_solutions_have_zero_residuals)
{
    /* _i: FX_OPEN, FX_STICK, FX_SLIP */
    mcb_problem *P = fx_point_contact(_i);
    double v[3], l[3];
    fx_point_solution(_i, v, l);
    mcb_metrics m = eval(P, v, l);
    for (int k = 0; k < MCB_NMETRICS; k++) {
        if (k == MCB_M_NATMAP_CCP && _i == FX_SLIP) { /* Coulomb sliding is not a CCP solution */
            ck_assert_double_eq_tol(m.val[k], sqrt(0.2), 1e-14);
            continue;
        }
        ck_assert_msg(fabs(m.val[k]) <= 1e-14,
                      "exact solution of the %s contact: %s = %g, expected 0 (natmap: "
                      "r - P_K(r - u - [mu ||u_t||, 0, 0]))",
                      P->name, mcb_metric_name(k), m.val[k]);
    }
    mcb_problem_free(&P);
}
END_TEST

/* The CCP solution of fx_point_contact(FX_SLIP): W = I, q = (-1, 2, 0), so
 * lambda = P_K(-q) = P_K((1, -2, 0)) = (1.6, -0.8, 0) and u = (0.6, 1.2, 0):
 * the contact slides with u_n = mu ||u_t|| = 0.6 > 0 (it lifts off while
 * sliding), v = b + J^T lambda = (1.2, 0, 0.6). */
static const double ccp_slip_v[3] = {1.2, 0, 0.6}, ccp_slip_l[3] = {1.6, -0.8, 0};

START_TEST(ccp_sliding_is_exact_under_ccp_not_ncp)
{
    mcb_problem *P = fx_point_contact(FX_SLIP);
    mcb_metrics m = eval_law(P, MCB_LAW_CCP, ccp_slip_v, ccp_slip_l);
    int zero[] = {MCB_M_DYN_ABS, MCB_M_DYN_REL, MCB_M_FB,      MCB_M_FB_MAX,    MCB_M_NATMAP,
                  MCB_M_ZRES,    MCB_M_PEN_MAX, MCB_M_PEN_SUM, MCB_M_NATMAP_CCP};
    for (size_t k = 0; k < sizeof zero / sizeof *zero; k++)
        ck_assert_msg(fabs(m.val[zero[k]]) <= 1e-14, "CCP slip under --law ccp: %s = %g",
                      mcb_metric_name(zero[k]), m.val[zero[k]]);
    /* under Coulomb: lambda - P_K(lambda - u - [mu ||u_t||, 0, 0]) =
     * (1.6, -0.8, 0) - P_K((0.4, -2, 0)) = (1.6, -0.8, 0) - (1.12, -0.56, 0)
     * = (0.48, -0.24, 0); ||.||^2 = 0.288, over ||lambda||^2 = 3.2: 0.3 */
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP_NCP], 0.3, 1e-14);
    /* the same solution judged under --law ncp */
    mcb_metrics n = eval_law(P, MCB_LAW_NCP, ccp_slip_v, ccp_slip_l);
    ck_assert_double_eq_tol(n.val[MCB_M_NATMAP], 0.3, 1e-14);
    ck_assert_double_eq_tol(n.val[MCB_M_NATMAP_NCP], 0.3, 1e-14);
    ck_assert_double_le(n.val[MCB_M_NATMAP_CCP], 1e-14);
    ck_assert_double_gt(n.val[MCB_M_FB], 0.1);
    /* z-residual under Coulomb: lambda - strict(lambda - u) = (1.6, -0.8, 0)
     * - strict((1.0, -2.0, 0)) = (1.6, -0.8, 0) - (1, -0.5, 0) */
    ck_assert_double_eq_tol(n.val[MCB_M_ZRES], sqrt(0.36 + 0.09), 1e-14);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(ncp_sliding_is_exact_under_ncp_not_ccp)
{
    mcb_problem *P = fx_point_contact(FX_SLIP);
    double v[3], l[3];
    fx_point_solution(FX_SLIP, v, l);
    mcb_metrics m = eval_law(P, MCB_LAW_CCP, v, l);
    /* u = (0, 1.5, 0) is not in K*: lambda - P_K(lambda - u) = (1, -0.5, 0)
     * - P_K((1, -2, 0)) = (-0.6, 0.3, 0); over max(||lambda||, ||u||) = 1.5 */
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP], sqrt(0.45) / 1.5, 1e-14);
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP_CCP], sqrt(0.45) / 1.5, 1e-14);
    ck_assert_double_le(m.val[MCB_M_NATMAP_NCP], 1e-14);
    ck_assert_double_gt(m.val[MCB_M_FB], 0.1);
    ck_assert_double_gt(m.val[MCB_M_FB_MAX], 0.1);
    /* z-residual under CCP: lambda - P_K(lambda - u) (the proximal operator) */
    ck_assert_double_eq_tol(m.val[MCB_M_ZRES], sqrt(0.45), 1e-14);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(stick_and_open_are_exact_under_both_laws)
{
    int st = _i == 0 ? FX_OPEN : FX_STICK;
    mcb_problem *P = fx_point_contact(st);
    double v[3], l[3];
    fx_point_solution(st, v, l);
    for (int law = MCB_LAW_NCP; law <= MCB_LAW_CCP; law++) {
        mcb_metrics m = eval_law(P, law, v, l);
        for (int k = 0; k < MCB_NMETRICS; k++)
            ck_assert_msg(fabs(m.val[k]) <= 1e-14, "%s contact, --law %s: %s = %g", P->name,
                          mcb_law_name(law), mcb_metric_name(k), m.val[k]);
    }
    mcb_problem_free(&P);
}
END_TEST

/* A stored contact_ccp block is judged as CCP even under --law ncp; the
 * dual form agrees. */
START_TEST(stored_ccp_block_and_dual_form)
{
    mcb_problem *P = fx_point_contact(FX_SLIP);
    P->blocks[0].type = MCB_CONTACT_CCP;
    mcb_metrics m = eval_law(P, MCB_LAW_NCP, ccp_slip_v, ccp_slip_l);
    ck_assert_double_le(m.val[MCB_M_NATMAP], 1e-14);
    ck_assert_double_le(m.val[MCB_M_FB], 1e-14);
    ck_assert_double_le(m.val[MCB_M_ZRES], 1e-14);
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP_NCP], 0.3, 1e-14);
    mcb_problem_free(&P);
    P = fx_point_contact_dual(FX_SLIP);
    m = eval_law(P, MCB_LAW_CCP, NULL, ccp_slip_l);
    ck_assert_double_le(m.val[MCB_M_NATMAP], 1e-14);
    ck_assert_double_le(m.val[MCB_M_FB], 1e-14);
    /* dual natmap scale: max(||q||, ||lambda||, ||u||) = ||q|| = sqrt(5):
     * sqrt(0.288 / 5) = 0.24 */
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP_NCP], 0.24, 1e-14);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(ccp_operators_known_values)
{
    double r[3], phi[3];
    /* sliding CCP pair: complementary, both residuals vanish */
    double l[3] = {1.6, -0.8, 0}, u[3] = {0.6, 1.2, 0};
    mcb_ccp_natmap(0.5, l, u, r);
    mcb_ccp_fb(0.5, l, u, phi);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_le(fabs(r[k]), 1e-15);
        ck_assert_double_le(fabs(phi[k]), 1e-15);
    }
    /* u outside K* (u_n < mu ||u_t||), lambda = 0: natmap = -P_K(-u) = -P_K((0, -1, 0))
     * = -(0.4, -0.2, 0) for mu = 0.5 (p_n = (0 + 0.5 * 1) / 1.25, ||p_t|| = mu p_n) */
    mcb_ccp_natmap(0.5, (double[3]){0, 0, 0}, (double[3]){0, 1, 0}, r);
    ck_assert_double_eq_tol(r[0], -0.4, 1e-15);
    ck_assert_double_eq_tol(r[1], 0.2, 1e-15);
    /* FB on the axis: lambda = (1, 0, 0), u = (1, 0, 0), mu = 1: x = y = (1, 0, 0),
     * phi = 2 - sqrt(2) on the axis */
    mcb_ccp_fb(1.0, (double[3]){1, 0, 0}, (double[3]){1, 0, 0}, phi);
    ck_assert_double_eq_tol(phi[0], 2.0 - sqrt(2.0), 1e-15);
    /* mu = 0: the laws coincide */
    double rn[3];
    mcb_ccp_natmap(0.0, (double[3]){1, 0.3, 0}, (double[3]){0.2, 1, 0}, r);
    mcb_contact_natmap(0.0, (double[3]){1, 0.3, 0}, (double[3]){0.2, 1, 0}, rn);
    for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(r[k], rn[k], 1e-15);
    ck_assert_str_eq(mcb_law_name(MCB_LAW_CCP), "ccp");
    ck_assert_int_eq(mcb_law_from_name("ncp"), MCB_LAW_NCP);
    ck_assert_int_eq(mcb_law_from_name("coulomb"), -1);
    ck_assert_str_eq(mcb_ctype_name(MCB_CONTACT_CCP), "contact_ccp");
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

/* fx_mixed at v = 0, lambda = 0, every metric by hand. u = e = (0.1, 0.2,
 * 0.05, 0, 0, 0); A^-1 b = (3/20, -1, 1/6, -7/15, 2/5, -1/10), so
 * u* = J A^-1 b + e = (5/4, -43/60, 41/60, -149/300, 23/75, -1/10). */
START_TEST(scalar_rows_known_values)
{
    mcb_problem *P = fx_mixed();
    double v[6] = {0}, l[6] = {0};
    mcb_metrics m = eval(P, v, l);
    /* fb: bilateral |0.1|, unilateral fb(0, 0.2) = 0, soft 0 + k (e + alpha(u
     * - e)) = 10 * 0.05 = 0.5, contact fb of (0, 0) = 0 */
    ck_assert_double_eq_tol(m.val[MCB_M_FB], sqrt(0.01 + 0.25), 1e-14);
    /* natmap: dyn_rel = ||b|| / ||b|| = 1; rows 0.1, 0 - max(0, 0 - 0.2) = 0,
     * 0.5, contact 0 - P_K(0) = 0; over max(||u||, ||lambda||) = ||e|| */
    double nat = 1.0 + sqrt(0.26 / 0.0525);
    ck_assert_msg(fabs(m.val[MCB_M_NATMAP] - nat) <= 1e-13,
                  "mixed fixture at 0: natmap %.17g, expected %.17g (unilateral row lambda - "
                  "max(0, lambda - u) contributes 0)",
                  m.val[MCB_M_NATMAP], nat);
    /* zres (one contact): bilateral d = u* = 5/4; unilateral d = 0 - max(0,
     * 43/60) = -43/60; soft s = -41/60, T = (5 (s + 0.05) - 0.5) / 6 = -11/18,
     * d = 11/18; contact s = -u* = (149/300, -23/75, 1/10): n stays, t clamped
     * to radius 0.4 n, so |d|^2 = n^2 (1 + 0.16) */
    double n = 149.0 / 300.0;
    double z = sqrt(25.0 / 16.0 + (43.0 / 60.0) * (43.0 / 60.0) + (11.0 / 18.0) * (11.0 / 18.0) +
                    1.16 * n * n);
    ck_assert_msg(fabs(m.val[MCB_M_ZRES] - z) <= 1e-13,
                  "mixed fixture at 0: zres %.17g, expected %.17g (soft row z-residual "
                  "lambda - (k alpha (s + e) - k e) / (1 + k alpha) contributes 11/18)",
                  m.val[MCB_M_ZRES], z);
    mcb_problem_free(&P);
}
END_TEST

/* One scalar row, one DOF (A = a, J = 1): every residual by hand. Active
 * unilateral rows (lambda > 0) with a penetrating and a separating velocity,
 * where the natural map's max(0, lambda - u) is clipped on one side and not
 * the other (so a sign error changes the value, not only its sign); soft
 * rows with e != 0 where the z-residual's -k e term and its sign matter. */
static const struct {
    const char *what;
    int type;
    double a, b, e, k, alpha, v, l;
    double dyn_rel, fb, natmap, zres;
} rows[] = {
    /* bilateral: u = v + e; fb = |u|; zres = |u*|, u* = (b + l) / a + e */
    {"bilateral, dynamics exact", MCB_BILATERAL, 1, 1, 0.1, 0, 0, 0.3, -0.7, 0, 0.4, 0.4 / 0.7,
     0.4},
    /* A v - b - l = 1 - 1 - 0.4; scale max(1, 1, 0.4); u = 0.2; v* = 0.7 */
    {"bilateral, dynamics off by 0.4", MCB_BILATERAL, 2, 1, -0.3, 0, 0, 0.5, 0.4, 0.4, 0.2,
     0.4 + 0.2 / 0.4, 0.4},
    /* u = -2: fb |1 - 2 - sqrt 5|; natmap 1 - max(0, 1 + 2) = -2 over
     * max(|u|, |l|) = 2; zres |1 - max(0, 3)| */
    {"unilateral, active (lambda 1 > 0), penetrating u = -2", MCB_UNILATERAL, 1, -3, 0, 0, 0,
     -2, 1, 0, 1 + sqrt(5.0), 1.0, 2.0},
    /* u = 2: fb 3 - sqrt 5; natmap 1 - max(0, -1) = 1 over 2; zres 1 */
    {"unilateral, active (lambda 1 > 0), separating u = 2", MCB_UNILATERAL, 1, 1, 0, 0, 0, 2, 1,
     0, 3 - sqrt(5.0), 0.5, 1.0},
    /* u = 0.5: natmap 1 - 0.5 = 0.5 over 1 */
    {"unilateral, active (lambda 1 > 0), gap u = 0.5", MCB_UNILATERAL, 1, -0.5, 0, 0, 0, 0.5, 1, 0,
     1.5 - sqrt(1.25), 0.5, 0.5},
    /* inactive, penetrating u = -1: fb |-1 - 1|; natmap 0 - max(0, 1) */
    {"unilateral, inactive (lambda 0), penetrating u = -1", MCB_UNILATERAL, 1, -1, 0, 0, 0, -1, 0,
     0, 2, 1, 1},
    /* A v - b - l = -1.2 - 1 - 0.8 = -3 over max(1, 1.2, 0.8); u = -0.5;
     * natmap 0.8 - max(0, 1.3) = -0.5 over 0.8; v* = 0.9, u* = 1, zres |0.8 -
     * max(0, -0.2)| */
    {"unilateral, active, dynamics off by 3", MCB_UNILATERAL, 2, 1, 0.1, 0, 0, -0.6, 0.8, 2.5,
     sqrt(0.89) - 0.3, 2.5 + 0.5 / 0.8, 0.8},
    {"unilateral, active solution", MCB_UNILATERAL, 1, -1.5, 0, 0, 0, 0, 1.5, 0, 0, 0, 0},
    {"unilateral, inactive solution", MCB_UNILATERAL, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0},
    /* soft k 10, alpha 0.5, e 0.2: law residual 1 + 10 (0.2 + 0.5 * 0.4) = 5
     * over max(0.6, 1); u* = 0.6, s = 0.4, T = (5 (0.4 + 0.2) - 2) / 6 = 1/6 */
    {"soft, e = 0.2, dynamics exact", MCB_SOFT, 1, -0.6, 0.2, 10, 0.5, 0.4, 1, 0, 5, 5,
     5.0 / 6.0},
    /* A v - b - l = 0.6 - 1 + 0.5 = 0.1 over 1; law -0.5 + 10 (0.2 + 0.15) = 3
     * over 0.5; v* = 0.25, u* = 0.45, s = -0.95, T = (5 (-0.75) - 2) / 6 */
    {"soft, e = 0.2, dynamics off by 0.1", MCB_SOFT, 2, 1, 0.2, 10, 0.5, 0.3, -0.5, 0.1, 3,
     0.1 + 6.0, 11.0 / 24.0},
    /* k 4, alpha 0.25, e -0.4: law 0.5 + 4 (-0.4 + 0.2) = -0.3 over 0.5;
     * u* = 0.4, s = 0.1, T = (1 (0.1 - 0.4) + 1.6) / 2 = 0.65 */
    {"soft, e = -0.4", MCB_SOFT, 1, 0.3, -0.4, 4, 0.25, 0.8, 0.5, 0, 0.3, 0.6, 0.15},
    /* lambda = -10 (0.2 + 0.5 (-0.6)) = 1 */
    {"soft, solution", MCB_SOFT, 1, -1.6, 0.2, 10, 0.5, -0.6, 1, 0, 0, 0, 0},
};

START_TEST(scalar_row_known_values)
{
    mcb_problem *P = fx_one_row(rows[_i].type, rows[_i].a, rows[_i].b, rows[_i].e, rows[_i].k,
                                rows[_i].alpha);
    double v = rows[_i].v, l = rows[_i].l;
    mcb_metrics m = eval(P, &v, &l);
    const struct {
        int id;
        double want;
    } checks[] = {{MCB_M_DYN_REL, rows[_i].dyn_rel},
                  {MCB_M_FB, rows[_i].fb},
                  {MCB_M_FB_MAX, 0.0}, /* contacts only */
                  {MCB_M_NATMAP, rows[_i].natmap},
                  {MCB_M_ZRES, rows[_i].zres},
                  {MCB_M_PEN_MAX, 0.0}};
    for (size_t c = 0; c < sizeof checks / sizeof checks[0]; c++) {
        double got = m.val[checks[c].id];
        ck_assert_msg(fabs(got - checks[c].want) <= 1e-12,
                      "%s row (%s: lambda %g, u %g): %s = %.17g, expected %.17g",
                      mcb_ctype_name(rows[_i].type), rows[_i].what, l, v + rows[_i].e,
                      mcb_metric_name(checks[c].id), got, checks[c].want);
    }
    mcb_problem_free(&P);
}
END_TEST

/* --- per-row compliance r: every residual on u = J v + e + r∘lambda ----- */

/* The compliant point contact's exact solutions have zero residuals, and
 * the rigid solutions (exact without compliance) do not. */
START_TEST(compliant_contact_exact)
{
    mcb_problem *P = fx_compliant(_i);
    double v[3], l[3];
    fx_compliant_solution(_i, v, l);
    mcb_metrics m = eval(P, v, l);
    for (int k = 0; k < MCB_NMETRICS; k++) {
        if (k == MCB_M_NATMAP_CCP && _i == FX_SLIP) continue; /* Coulomb sliding */
        ck_assert_msg(fabs(m.val[k]) <= 1e-14, "%s at its exact solution: %s = %g, expected 0",
                      P->name, mcb_metric_name(k), m.val[k]);
    }
    if (_i != FX_OPEN) {
        /* the rigid solution, e.g. stick: v = 0, lambda = (1, -0.1, 0),
         * u = J v + e + r∘lambda = (1, -0.025, 0) */
        fx_point_solution(_i, v, l);
        m = eval(P, v, l);
        ck_assert_double_gt(m.val[MCB_M_NATMAP], 0.1);
        ck_assert_double_gt(m.val[MCB_M_FB], 0.1);
        ck_assert_double_eq(m.val[MCB_M_PEN_MAX], 0.0);
        if (_i == FX_STICK) {
            /* dyn = 0; w = lambda - u - [mu ||u_t||, 0, 0] = (-0.0125, -0.075, 0)
             * is neither in K nor in its polar: P_K(w) = (n, mu n dir(w_t))
             * with n = (w_n + mu ||w_t||) / (1 + mu^2) = 0.02: (0.02, -0.01, 0);
             * the residual (0.98, -0.09, 0), over max(||u||, ||lambda||) =
             * sqrt(1.01) */
            ck_assert_double_eq_tol(m.val[MCB_M_NATMAP], sqrt(0.9685 / 1.01), 1e-14);
        }
    }
    mcb_problem_free(&P);
}
END_TEST

/* The same contact in dual form (u = W lambda + q + r∘lambda). */
START_TEST(compliant_contact_dual)
{
    mcb_problem *P = fx_compliant_dual(FX_SLIP);
    double v[3], l[3];
    fx_compliant_solution(FX_SLIP, v, l);
    mcb_metrics m = eval(P, NULL, l);
    int zero[] = {MCB_M_FB, MCB_M_FB_MAX, MCB_M_NATMAP, MCB_M_ZRES, MCB_M_NATMAP_NCP,
                  MCB_M_PEN_MAX, MCB_M_PEN_SUM};
    for (size_t k = 0; k < sizeof zero / sizeof *zero; k++)
        ck_assert_msg(fabs(m.val[zero[k]]) <= 1e-14, "compliant dual slip: %s = %g",
                      mcb_metric_name(zero[k]), m.val[zero[k]]);
    /* the rigid solution (1, -0.5, 0): u = (1 - 1 + 1, -0.5 + 2 - 0.125, 0)
     * = (1, 1.375, 0); w = lambda - u - [mu ||u_t||, 0, 0] = (-0.6875,
     * -1.875, 0), on neither cone: P_K(w) = (n, mu n dir(w_t)) with n =
     * (w_n + mu ||w_t||) / (1 + mu^2) = 0.2, so (0.2, -0.1, 0); residual
     * (0.8, -0.4, 0) over max(||q||, ||lambda||, ||u||) = sqrt 5: 0.4 */
    double rigid[3] = {1, -0.5, 0};
    m = eval(P, NULL, rigid);
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP], 0.4, 1e-14);
    ck_assert_double_gt(m.val[MCB_M_NATMAP], 0.1);
    mcb_problem_free(&P);
}
END_TEST

/* One unilateral row, one DOF: A = 1, b = -1, J = 1, e = 0, r = 1. The
 * exact lambda = max(0, -q / (W + r)) with W = J A^-1 J^T = 1 and
 * q = J A^-1 b + e = -1: lambda = 0.5, v = b + lambda = -0.5, u = v + e +
 * r lambda = 0. The rigid answer lambda = 1, v = 0 has u = 1: fb = fb(1, 1)
 * = 2 - sqrt 2, natmap = |1 - max(0, 1 - 1)| / max(|u|, |lambda|) = 1,
 * zres = |1 - max(0, 1 - u*)| with u* = (b + lambda) / a + e + r lambda = 1:
 * 1. Without r it would be exact. */
START_TEST(compliant_scalar_row)
{
    mcb_problem *P = fx_one_row(MCB_UNILATERAL, 1, -1, 0, 0, 0);
    P->r = malloc(sizeof(double));
    P->r[0] = 1.0;
    ck_assert_int_eq(mcb_problem_validate(P, "row", NULL), MCB_OK);
    double v = -0.5, l = 0.5;
    mcb_metrics m = eval(P, &v, &l);
    for (int k = 0; k < MCB_NMETRICS; k++)
        ck_assert_msg(fabs(m.val[k]) <= 1e-15, "compliant row at lambda = 0.5: %s = %g",
                      mcb_metric_name(k), m.val[k]);
    v = 0, l = 1;
    m = eval(P, &v, &l);
    ck_assert_double_eq_tol(m.val[MCB_M_DYN_ABS], 0.0, 1e-15);
    ck_assert_double_eq_tol(m.val[MCB_M_FB], 2 - sqrt(2.0), 1e-15);
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP], 1.0, 1e-15);
    ck_assert_double_eq_tol(m.val[MCB_M_ZRES], 1.0, 1e-15);
    /* without compliance the rigid answer is exact */
    free(P->r);
    P->r = NULL;
    m = eval(P, &v, &l);
    ck_assert_double_le(m.val[MCB_M_NATMAP], 1e-15);
    mcb_problem_free(&P);
}
END_TEST

/* A step whose constraint rows need no force (composite/softbox.xml in free
 * fall: 651 equality rows, lambda = 0, ||e|| = 6e-14): two DOFs, A = I,
 * b = (1, 0), one bilateral row J = (0, 1), e = 0, r = 1. The solution is
 * v = (1, 0), lambda = 0, u = 0. A solver's answer off by round-off in the
 * constrained DOF, v = (1, 3e-15), lambda = 1e-15, has u = 4e-15: the
 * natural map's scale max(||u||, ||lambda||) = 4e-15 is round-off itself,
 * and dividing by it gave natmap = 1 + dyn_rel whatever the solver did.
 * Scales below sqrt(eps) are not divided by (Siconos' MIN_RELATIVE_SCALING):
 * natmap = dyn_rel + |u| = |A v - b - J^T lambda| / ||b|| + 4e-15 =
 * 2e-15 + 4e-15. A scale above it still divides: lambda = 1e-6 (u = 1e-6 +
 * 3e-15) gives natmap = 1e-6 + (1e-6 + 3e-15) / (1e-6 + 3e-15) ~ 1. */
START_TEST(round_off_scale_is_not_divided_by)
{
    double A[4] = {1, 0, 0, 1}, b[2] = {1, 0}, J[2] = {0, 1}, e[1] = {0};
    mcb_problem *P = fx_dense_primal(2, 1, A, b, J, e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_BILATERAL, 0, 1, 0, 0, 0};
    P->r = malloc(sizeof(double));
    P->r[0] = 1.0;
    mcb_problem_infer_subsystems(P, NULL);
    ck_assert_int_eq(mcb_problem_validate(P, "free fall", NULL), MCB_OK);
    double v[2] = {1, 0}, l = 0;
    mcb_metrics m = eval(P, v, &l);
    ck_assert_double_eq(m.val[MCB_M_NATMAP], 0.0);
    v[1] = 3e-15, l = 1e-15;
    m = eval(P, v, &l);
    ck_assert_double_eq_tol(m.val[MCB_M_DYN_REL], 2e-15, 1e-28);
    ck_assert_double_eq_tol(m.val[MCB_M_FB], 4e-15, 1e-28);
    ck_assert_msg(fabs(m.val[MCB_M_NATMAP] - 6e-15) <= 1e-28,
                  "round-off answer: natmap %.17g, expected 6e-15 (a round-off scale "
                  "max(||u||, ||lambda||) = 4e-15 divided by gives 1)", m.val[MCB_M_NATMAP]);
    l = 1e-6;
    m = eval(P, v, &l);
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP], 1.0 + 1e-6, 1e-12);
    mcb_problem_free(&P);
}
END_TEST

/* A dual scalar row, W = 2, q = -1, r = 0.5: lambda = -q / (W + r) = 0.4,
 * u = 2 (0.4) - 1 + 0.5 (0.4) = 0. The rigid lambda = 0.5 has u = 0.25:
 * natmap = |0.5 - max(0, 0.25)| / max(|q|, |lambda|, |u|) = 0.25, zres the
 * same numerator over one block, fb = 0.75 - sqrt(0.3125). */
START_TEST(compliant_scalar_dual)
{
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_DUAL;
    P->m = 1;
    int ri = 0, ci = 0;
    double w = 2;
    P->W = mcb_csc_from_triplets(1, 1, 1, &ri, &ci, &w);
    P->q = malloc(sizeof(double));
    P->q[0] = -1;
    P->r = malloc(sizeof(double));
    P->r[0] = 0.5;
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_UNILATERAL, 0, 1, 0, 0, 0};
    ck_assert_int_eq(mcb_problem_validate(P, "row", NULL), MCB_OK);
    double l = 0.4;
    mcb_metrics m = eval(P, NULL, &l);
    ck_assert_double_le(m.val[MCB_M_NATMAP], 1e-15);
    ck_assert_double_le(m.val[MCB_M_FB], 1e-15);
    ck_assert_double_le(m.val[MCB_M_ZRES], 1e-15);
    l = 0.5;
    m = eval(P, NULL, &l);
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP], 0.25, 1e-15);
    ck_assert_double_eq_tol(m.val[MCB_M_ZRES], 0.25, 1e-15);
    ck_assert_double_eq_tol(m.val[MCB_M_FB], 0.75 - sqrt(0.3125), 1e-15);
    mcb_problem_free(&P);
}
END_TEST

/* Penetration is the violation of the compliant law u_n >= 0: the
 * compliant contact at lambda = 0 with v_z = -0.25 penetrates by 0.25; at
 * its solution it sinks (v_z = -0.5) and penetrates by 0. */
START_TEST(compliant_penetration)
{
    mcb_problem *P = fx_compliant(FX_STICK);
    double v[3] = {0, 0, -0.25}, l[3] = {0, 0, 0};
    mcb_metrics m = eval(P, v, l);
    ck_assert_double_eq_tol(m.val[MCB_M_PEN_MAX], 0.25, 1e-15);
    double l2[3] = {0.125, 0, 0}; /* u_n = -0.25 + 0.125 = -0.125 */
    m = eval(P, v, l2);
    ck_assert_double_eq_tol(m.val[MCB_M_PEN_MAX], 0.125, 1e-15);
    ck_assert_double_eq_tol(m.val[MCB_M_PEN_SUM], 0.125, 1e-15);
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

/* The invertible contact model's inverse map, by hand: mu 0.5, r = 2,
 * c = (-4, 2, 0): -c/r = (2, -1, 0) inside the disk 0.5 * 2; c = (-4, 6, 8):
 * -c/r = (2, -3, -4) slides, lambda_t = 1 * (-0.6, -0.8), and u = c + r
 * lambda = (0, 4.8, 6.4) is opposite to lambda_t with u_n = 0; the CCP
 * projects (2, -3, -4) on K_0.5: n = (2 + 0.5 * 5) / 1.25 = 3.6, t = -0.36 *
 * (3, 4). A non-positive r, or unequal tangential ones, refused. */
START_TEST(contact_inverse_known_values)
{
    double l[3], r2[3] = {2, 2, 2};
    ck_assert_int_eq(mcb_contact_inverse(0, 0.5, r2, (double[3]){-4, 2, 0}, l), 0);
    ck_assert_double_eq_tol(l[0], 2.0, 1e-15);
    ck_assert_double_eq_tol(l[1], -1.0, 1e-15);
    ck_assert_double_eq(l[2], 0.0);
    ck_assert_int_eq(mcb_contact_inverse(0, 0.5, r2, (double[3]){-4, 6, 8}, l), 0);
    ck_assert_double_eq_tol(l[0], 2.0, 1e-15);
    ck_assert_double_eq_tol(l[1], -0.6, 1e-15);
    ck_assert_double_eq_tol(l[2], -0.8, 1e-15);
    ck_assert_int_eq(mcb_contact_inverse(1, 0.5, r2, (double[3]){-4, 6, 8}, l), 0);
    ck_assert_double_eq_tol(l[0], 3.6, 1e-15);
    ck_assert_double_eq_tol(l[1], -1.08, 1e-15);
    ck_assert_double_eq_tol(l[2], -1.44, 1e-15);
    /* r_n != r_t: Coulomb's inverse still holds (normal and tangent apart) */
    ck_assert_int_eq(mcb_contact_inverse(0, 0.5, (double[3]){1, 0.25, 0.25},
                                         (double[3]){-0.5, 0.1, 0}, l), 0);
    ck_assert_double_eq_tol(l[0], 0.5, 1e-15);
    ck_assert_double_eq_tol(l[1], -0.25, 1e-15); /* -0.4 clamped to 0.25 */
    l[0] = 7.0;
    ck_assert_int_eq(mcb_contact_inverse(1, 0.5, (double[3]){1, 0.25, 0.25},
                                         (double[3]){-1, 0, 0}, l), -1);
    ck_assert_int_eq(mcb_contact_inverse(0, 0.5, (double[3]){0, 1, 1}, (double[3]){-1, 0, 0}, l),
                     -1);
    ck_assert_int_eq(mcb_contact_inverse(0, 0.5, (double[3]){1, 1, 2}, (double[3]){-1, 0, 0}, l),
                     -1);
    ck_assert_double_eq(l[0], 7.0);
}
END_TEST

/* The invertible model's forward and inverse contact forces (COND's Fig.
 * 13) on the compliant point contact (r = (1, 0.25, 0.25), mu 0.5, J's rows
 * z, x, y): at the exact stick solution v = (0.02, 0, -0.5), lambda =
 * (0.5, -0.08, 0), c = J v + e = (-0.5, 0.02, 0) gives back lambda_inv =
 * (0.5, -0.08, 0): both norms sqrt(0.2564); with the rigid impulse (1, -0.1,
 * 0) at the same v the forward norm is sqrt(1.01), the inverse unchanged.
 * Not measured (0, NaN): no compliance, the dual form, and a CCP law whose
 * inverse needs r_n = r_t. */
START_TEST(contact_forces_forward_inverse)
{
    mcb_problem *P = fx_compliant(FX_STICK);
    mcb_metrics_ws *ws = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, &err), MCB_OK);
    double v[3], l[3], f[2];
    fx_compliant_solution(FX_STICK, v, l);
    ck_assert_int_eq(mcb_metrics_contact_forces(ws, v, l, f), 1);
    ck_assert_double_eq_tol(f[0], sqrt(0.2564), 1e-15);
    ck_assert_double_eq_tol(f[1], sqrt(0.2564), 1e-15);
    double rigid[3] = {1, -0.1, 0};
    ck_assert_int_eq(mcb_metrics_contact_forces(ws, v, rigid, f), 1);
    ck_assert_double_eq_tol(f[0], sqrt(1.01), 1e-15);
    ck_assert_double_eq_tol(f[1], sqrt(0.2564), 1e-15);
    mcb_metrics_ws_set_law(ws, MCB_LAW_CCP);
    ck_assert_int_eq(mcb_metrics_contact_forces(ws, v, l, f), 0);
    ck_assert(isnan(f[0]) && isnan(f[1]));
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
    P = fx_point_contact(FX_STICK);
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, &err), MCB_OK);
    ck_assert_int_eq(mcb_metrics_contact_forces(ws, v, l, f), 0);
    ck_assert(isnan(f[0]) && isnan(f[1]));
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
    P = fx_compliant_dual(FX_STICK);
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, &err), MCB_OK);
    ck_assert_int_eq(mcb_metrics_contact_forces(ws, v, l, f), 0);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
    ck_assert_int_eq(mcb_metrics_contact_forces(NULL, v, l, f), 0);
}
END_TEST

/* The projection on the ellipse (x1/a1)^2 + (x2/a2)^2 <= 1 (Prop. 6's
 * strict operator): inside, on an axis, degenerate semi-axes, and a generic
 * point checked against the KKT conditions (on the boundary, p - x along
 * the outward normal (x1/a1^2, x2/a2^2) with a positive multiplier) and
 * against a dense search of the boundary. */
START_TEST(ellipse_projection_known_values)
{
    double x[2];
    mcb_proj_ellipse(2, 1, (double[2]){1, 0.5}, x); /* inside */
    ck_assert(x[0] == 1.0 && x[1] == 0.5);
    mcb_proj_ellipse(2, 1, (double[2]){3, 0}, x); /* on an axis */
    ck_assert_double_eq_tol(x[0], 2.0, 1e-15);
    ck_assert_double_eq(x[1], 0.0);
    mcb_proj_ellipse(2, 1, (double[2]){0, -5}, x);
    ck_assert_double_eq(x[0], 0.0);
    ck_assert_double_eq_tol(x[1], -1.0, 1e-15);
    mcb_proj_ellipse(0, 1, (double[2]){3, 2}, x); /* a segment */
    ck_assert(x[0] == 0.0 && x[1] == 1.0);
    mcb_proj_ellipse(0.5, 0, (double[2]){-3, 2}, x);
    ck_assert(x[0] == -0.5 && x[1] == 0.0);
    mcb_proj_ellipse(0, 0, (double[2]){3, 2}, x); /* the origin */
    ck_assert(x[0] == 0.0 && x[1] == 0.0);
    const double P[3][4] = {{2, 1, 3, 2}, {0.3, 1.7, -0.9, 4}, {1e-3, 2e-3, 5, -7}};
    for (int c = 0; c < 3; c++) {
        double a1 = P[c][0], a2 = P[c][1], p[2] = {P[c][2], P[c][3]};
        mcb_proj_ellipse(a1, a2, p, x);
        double g1 = x[0] / (a1 * a1), g2 = x[1] / (a2 * a2), d1 = p[0] - x[0], d2 = p[1] - x[1];
        double s = fmax(fabs(p[0]), fabs(p[1]));
        ck_assert_double_eq_tol(x[0] * x[0] / (a1 * a1) + x[1] * x[1] / (a2 * a2), 1.0, 1e-14);
        ck_assert_double_le(fabs(d1 * g2 - d2 * g1), 1e-12 * s * mcb_hypot(g1, g2));
        ck_assert_double_gt(d1 * g1 + d2 * g2, 0.0);
        double best = mcb_hypot(d1, d2);
        for (int k = 0; k < 100000; k++) {
            double th = 8.0 * atan(1.0) * k / 100000.0;
            ck_assert_double_ge(mcb_hypot(p[0] - a1 * cos(th), p[1] - a2 * sin(th)),
                                best * (1.0 - 1e-12));
        }
    }
    /* the strict operator on the elliptic cone: n <- max(n, 0); mu1 = mu2 is
     * the isotropic strict operator; n <= 0 gives 0 */
    double o[3], q[3];
    mcb_proj_strict_aniso(0.5, 0.5, (double[3]){2, 3, 4}, o);
    mcb_proj_strict(0.5, (double[3]){2, 3, 4}, q);
    for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(o[k], q[k], 1e-15);
    mcb_proj_strict_aniso(0.5, 0.2, (double[3]){-1, 3, 4}, o);
    ck_assert(o[0] == 0.0 && o[1] == 0.0 && o[2] == 0.0);
    mcb_proj_strict_aniso(1.0, 0.5, (double[3]){2, 3, 2}, o); /* = ellipse (2, 1), (3, 2) */
    mcb_proj_ellipse(2, 1, (double[2]){3, 2}, x);
    ck_assert(o[0] == 2.0 && o[1] == x[0] && o[2] == x[1]);
}
END_TEST

/* Metrics on the elliptic cone (a problem with mu2, judged through its
 * isotropic equivalent): the hand-computed MDP solution of
 * fx_aniso_slide has zero residuals; the frictionless lambda = (1, 0, 0),
 * v = b + lambda (dynamics exact) has, on the equivalent (t2 scaled by
 * 0.25), u' = (0, 1.2, 0.85), lambda' = lambda, w = lambda' - u' -
 * (||u'_t||, 0, 0) = (1 - s, -1.2, -0.85) with s = ||u'_t|| = sqrt(2.1625);
 * P_K1(w) = ((1 - s + s) / 2) (1, -1.2 / s, -0.85 / s), so the natural map
 * is (0.5, 0.5 * 1.2 / s, 0.5 * 0.85 / s), of norm sqrt(0.5), divided by
 * max(||lambda'||, ||u'||) = s. The isotropic reading (mu2 ignored) differs. */
START_TEST(aniso_metrics_known_values)
{
    mcb_problem *P = fx_aniso_slide();
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
    double v[3], l[3];
    fx_aniso_slide_solution(v, l);
    mcb_metrics m;
    mcb_metrics_compute(ws, v, l, &m);
    ck_assert_double_le(m.val[MCB_M_NATMAP], 1e-15);
    ck_assert_double_le(m.val[MCB_M_FB], 1e-15);
    ck_assert_double_le(m.val[MCB_M_ZRES], 1e-15);
    ck_assert_double_le(m.val[MCB_M_DYN_ABS], 1e-15);
    double l0[3] = {1, 0, 0}, v0[3] = {0, 1.2, 3.4}, s = sqrt(2.1625);
    mcb_metrics_compute(ws, v0, l0, &m);
    ck_assert_double_eq_tol(m.val[MCB_M_NATMAP], sqrt(0.5) / s, 1e-14);
    ck_assert_double_eq_tol(mcb_metrics_one(ws, MCB_M_NATMAP, v0, l0), sqrt(0.5) / s, 1e-14);
    ck_assert_double_le(m.val[MCB_M_DYN_ABS], 1e-15);
    mcb_metrics_ws_free(&ws);
    free(P->mu2); /* the isotropic reading: the solution slides off its disk of radius 1 */
    P->mu2 = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
    mcb_metrics_compute(ws, v, l, &m);
    ck_assert_double_gt(m.val[MCB_M_NATMAP], 1e-3);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
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
    tcase_add_loop_test(tc, scalar_row_known_values, 0, (int)(sizeof rows / sizeof rows[0]));
    tcase_add_test(tc, cone_operators);
    tcase_add_test(tc, contact_inverse_known_values);
    tcase_add_test(tc, contact_forces_forward_inverse);
    tcase_add_test(tc, ellipse_projection_known_values);
    tcase_add_test(tc, aniso_metrics_known_values);
    tcase_add_test(tc, metric_names);
    tcase_add_test(tc, ccp_sliding_is_exact_under_ccp_not_ncp);
    tcase_add_test(tc, ncp_sliding_is_exact_under_ncp_not_ccp);
    tcase_add_loop_test(tc, stick_and_open_are_exact_under_both_laws, 0, 2);
    tcase_add_test(tc, stored_ccp_block_and_dual_form);
    tcase_add_test(tc, ccp_operators_known_values);
    tcase_add_loop_test(tc, compliant_contact_exact, FX_OPEN, FX_SLIP + 1);
    tcase_add_test(tc, compliant_contact_dual);
    tcase_add_test(tc, compliant_scalar_row);
    tcase_add_test(tc, compliant_scalar_dual);
    tcase_add_test(tc, round_off_scale_is_not_divided_by);
    tcase_add_test(tc, compliant_penetration);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

/* test_formulation.c: the formulation layer (problems/formulation/) and
 * the LCP iterations psor-lcp and pj-lcp (issue 13 sec. 1 and 3):
 *   - each formulation's known answer on a one-contact and a two-contact
 *     fixture (stick and slip): the exact solution lifted to F(P)'s
 *     variables has a zero own residual, and maps back exactly;
 *   - Anitescu-Potra's right-hand side (the contact's e dropped);
 *   - the polygonal cone's error against the exact cone shrinks as n_d
 *     grows (4, 8, 16, 32), from Stewart-Trinkle's exact solution of a
 *     slip off the polygon's directions;
 *   - psor-lcp and pj-lcp solve small LCPs and an MLCP to 1e-10, and the
 *     Stewart-Trinkle LCP of the fixtures (reg > 0); a zero diagonal
 *     without reg is setup-failed;
 *   - runs through the harness with a formulation (mcb_run_one): solved,
 *     form_residual, skipped with the reason (mlcp on a dual problem);
 *   - the peg-in-hole scene: the peg falls freely into the hole (side
 *     contacts, zero impulse) and lands on its floor; every formulation's
 *     subproblem of a landing step is built and the LCP forms carry P's
 *     recorded solution with a small own residual. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixtures.h"
#include "problems/formulation/formulation.h"
#include "metrics/metrics.h"
#include "harness/runner.h"
#include "problems/scene/scenes.h"

#define PI 3.14159265358979323846

/* Two independent unit point masses on the ground, mass 1 sticking and
 * mass 2 sliding (fx_point_contact's stick and slip side by side). */
static mcb_problem *two_contacts(void)
{
    double A[36] = {0}, J[36] = {0}, e[6] = {0};
    double b[6] = {0.1, 0, -1, 2, 0, -1};
    for (int i = 0; i < 6; i++) A[i * 6 + i] = 1.0;
    for (int c = 0; c < 2; c++) { /* rows z, x, y of mass c */
        J[(3 * c + 0) * 6 + 3 * c + 2] = 1.0;
        J[(3 * c + 1) * 6 + 3 * c + 0] = 1.0;
        J[(3 * c + 2) * 6 + 3 * c + 1] = 1.0;
    }
    mcb_problem *P = fx_dense_primal(6, 6, A, b, J, e);
    P->nblocks = 2;
    P->blocks = calloc(2, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 0.5, 0, 0};
    P->blocks[1] = (mcb_block){MCB_CONTACT, 3, 3, 0.5, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    return P;
}

static void two_solution(double v[6], double lambda[6])
{
    fx_point_solution(FX_STICK, v, lambda);
    fx_point_solution(FX_SLIP, v + 3, lambda + 3);
}

/* fixture k: 0 stick, 1 slip (one contact), 2 both (two contacts) */
static mcb_problem *fixture(int k, double *v, double *lambda)
{
    if (k < 2) {
        fx_point_solution(k ? FX_SLIP : FX_STICK, v, lambda);
        return fx_point_contact(k ? FX_SLIP : FX_STICK);
    }
    two_solution(v, lambda);
    return two_contacts();
}

static double maxdiff(int n, const double *a, const double *b)
{
    double d = 0.0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

/* Known answers: lift the exact solution, own residual 0, map back exact. */
START_TEST(known_answers)
{
    int k = _i % 3, kind = _i / 3;
    double v[6], lambda[6], v2[6], l2[6];
    mcb_problem *P = fixture(k, v, lambda);
    P->v0 = malloc(sizeof v); /* the initial guess: the exact solution */
    P->lambda0 = malloc(sizeof lambda);
    memcpy(P->v0, v, sizeof v);
    memcpy(P->lambda0, lambda, sizeof lambda);
    mcb_formulation *F = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_formulation_build(P, kind, 8, &F, &err), MCB_OK);
    const mcb_problem *Q = mcb_formulation_problem(F);
    ck_assert_ptr_nonnull(Q);
    if (kind == MCB_FORM_NCP) ck_assert_ptr_eq(Q, P);
    if (kind == MCB_FORM_CCP) {
        ck_assert_ptr_ne(Q, P);
        for (int b = 0; b < Q->nblocks; b++) ck_assert_int_eq(Q->blocks[b].type, MCB_CONTACT_CCP);
    }
    if (mcb_formulation_is_lcp(kind)) {
        char why[512];
        ck_assert_msg(mcb_accepts_lcp(Q, why, sizeof why), "%s", why);
        int nc = P->nblocks, off = kind == MCB_FORM_MLCP ? P->n : 0;
        ck_assert_int_eq(Q->m, off + nc * (8 + 2));
        double *z = calloc((size_t)Q->m, sizeof(double));
        ck_assert_int_eq(mcb_formulation_lift(F, v, lambda, z), MCB_OK);
        double r = mcb_formulation_residual(F, NULL, z);
        ck_assert_msg(r < 1e-12, "%s fixture %d: own residual %g", mcb_formulation_name(kind), k, r);
        ck_assert_int_eq(mcb_formulation_map_back(F, NULL, z, v2, l2), MCB_OK);
        ck_assert_double_le(maxdiff(P->m, l2, lambda), 1e-12);
        ck_assert_double_le(maxdiff(P->n, v2, v), 1e-12);
        ck_assert_ptr_nonnull(Q->lambda0); /* the lifted initial guess, for --warm-start */
        ck_assert_double_le(maxdiff(Q->m, Q->lambda0, z), 0.0);
        free(z);
    } else if (kind == MCB_FORM_NCP || k == 0) {
        /* sticking is also the CCP's solution; the Coulomb slip is not */
        double r = mcb_formulation_residual(F, v, lambda);
        ck_assert_msg(r < 1e-12, "%s fixture %d: own residual %g", mcb_formulation_name(kind), k, r);
        ck_assert_int_eq(mcb_formulation_map_back(F, v, lambda, v2, l2), MCB_OK);
        ck_assert_double_eq(maxdiff(P->m, l2, lambda), 0.0);
        ck_assert_double_eq(maxdiff(P->n, v2, v), 0.0);
    }
    mcb_formulation_free(&F);
    mcb_formulation_free(&F); /* NULL is fine */
    mcb_problem_free(&P);
}
END_TEST

/* The CCP's own answer for the sliding point: lambda = P_K(-q) =
 * (1.6, -0.8, 0), v = (1.2, 0, 0.6): u_n = mu ||u_t||. */
START_TEST(ccp_slip_answer)
{
    mcb_problem *P = fx_point_contact(FX_SLIP);
    mcb_formulation *F = NULL;
    ck_assert_int_eq(mcb_formulation_build(P, MCB_FORM_CCP, 8, &F, NULL), MCB_OK);
    double lambda[3] = {1.6, -0.8, 0}, v[3] = {1.2, 0, 0.6};
    ck_assert_double_le(mcb_formulation_residual(F, v, lambda), 1e-12);
    double vc[3], lc[3];
    fx_point_solution(FX_SLIP, vc, lc); /* Coulomb's is not the CCP's */
    ck_assert_double_gt(mcb_formulation_residual(F, vc, lc), 0.1);
    mcb_formulation_free(&F);
    mcb_problem_free(&P);
}
END_TEST

/* Anitescu-Potra drops the contact's e: with a gap e_n = 0.2, AP's
 * solution is the e = 0 one (lambda_n = 1), Stewart-Trinkle's lambda_n = 0.8. */
START_TEST(anitescu_potra_rhs)
{
    mcb_problem *P = fx_point_contact(FX_STICK);
    P->e[0] = 0.2;
    mcb_formulation *ST = NULL, *AP = NULL;
    ck_assert_int_eq(mcb_formulation_build(P, MCB_FORM_LCP_ST, 8, &ST, NULL), MCB_OK);
    ck_assert_int_eq(mcb_formulation_build(P, MCB_FORM_LCP_AP, 8, &AP, NULL), MCB_OK);
    double lap[3] = {1, -0.1, 0}, vap[3] = {0, 0, 0};
    double lst[3] = {0.8, -0.1, 0}, vst[3] = {0, 0, -0.2};
    int m = mcb_formulation_problem(ST)->m;
    double *z = calloc((size_t)m, sizeof(double));
    ck_assert_int_eq(mcb_formulation_lift(AP, vap, lap, z), MCB_OK);
    ck_assert_double_le(mcb_formulation_residual(AP, NULL, z), 1e-12);
    ck_assert_double_ge(mcb_formulation_residual(ST, NULL, z), 0.19);
    ck_assert_int_eq(mcb_formulation_lift(ST, vst, lst, z), MCB_OK);
    ck_assert_double_le(mcb_formulation_residual(ST, NULL, z), 1e-12);
    free(z);
    mcb_formulation_free(&ST);
    mcb_formulation_free(&AP);
    /* AP and mlcp need the primal data */
    mcb_problem *D = fx_point_contact_dual(FX_SLIP);
    mcb_err err;
    ck_assert_int_eq(mcb_formulation_build(D, MCB_FORM_LCP_AP, 8, &AP, &err), MCB_E_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "primal"));
    ck_assert_int_eq(mcb_formulation_build(D, MCB_FORM_MLCP, 8, &AP, &err), MCB_E_INPUT);
    ck_assert_ptr_null(AP);
    ck_assert_int_eq(mcb_formulation_build(D, MCB_FORM_LCP_ST, 2, &AP, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_formulation_build(D, MCB_FORM_LCP_ST, 8, &AP, &err), MCB_OK);
    mcb_formulation_free(&AP);
    mcb_problem_free(&D);
    mcb_problem_free(&P);
}
END_TEST

/* The projection of x on the polygon of radius rad with nd vertices at
 * angles 2 pi k / nd (x outside it). */
static void proj_polygon(int nd, double rad, const double x[2], double out[2])
{
    double best = INFINITY;
    for (int k = 0; k < nd; k++) {
        double a0 = 2 * PI * k / nd, a1 = 2 * PI * (k + 1) / nd;
        double p[2] = {rad * cos(a0), rad * sin(a0)}, q[2] = {rad * cos(a1), rad * sin(a1)};
        double d[2] = {q[0] - p[0], q[1] - p[1]};
        double t = ((x[0] - p[0]) * d[0] + (x[1] - p[1]) * d[1]) / (d[0] * d[0] + d[1] * d[1]);
        t = fmin(1.0, fmax(0.0, t));
        double y[2] = {p[0] + t * d[0], p[1] + t * d[1]};
        double dist = hypot(x[0] - y[0], x[1] - y[1]);
        if (dist < best) {
            best = dist;
            out[0] = y[0];
            out[1] = y[1];
        }
    }
}

/* A slip at 0.3 rad (off every polygon direction): Stewart-Trinkle's exact
 * solution (lambda_t the projection of -v_t on the polygon, W = I) has a
 * zero own residual, and its error against the exact cone's solution, in
 * lambda and in the NCP natural map, shrinks as n_d grows. */
START_TEST(polygon_error_shrinks)
{
    double a = 0.3, A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, J[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
    double e[3] = {0, 0, 0}, b[3] = {2 * cos(a), 2 * sin(a), -1};
    mcb_problem *P = fx_dense_primal(3, 3, A, b, J, e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 0.5, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
    double exact[3] = {1, -0.5 * cos(a), -0.5 * sin(a)};
    double prev_err = INFINITY, prev_nat = INFINITY;
    const int nds[4] = {4, 8, 16, 32};
    for (int t = 0; t < 4; t++) {
        int nd = nds[t];
        mcb_formulation *F = NULL;
        ck_assert_int_eq(mcb_formulation_build(P, MCB_FORM_LCP_ST, nd, &F, NULL), MCB_OK);
        double mvt[2] = {-b[0], -b[1]}, lt[2] = {0, 0};
        proj_polygon(nd, 0.5, mvt, lt);
        double lambda[3] = {1, lt[0], lt[1]}, v[3] = {b[0] + lt[0], b[1] + lt[1], 0};
        double *z = calloc((size_t)mcb_formulation_problem(F)->m, sizeof(double));
        ck_assert_int_eq(mcb_formulation_lift(F, v, lambda, z), MCB_OK);
        ck_assert_double_le(mcb_formulation_residual(F, NULL, z), 1e-12);
        double l2[3], v2[3];
        mcb_formulation_map_back(F, NULL, z, v2, l2);
        ck_assert_double_le(maxdiff(3, l2, lambda), 1e-12);
        ck_assert_double_le(maxdiff(3, v2, v), 1e-12);
        double err = maxdiff(3, lambda, exact);
        double nat = mcb_metrics_one(ws, MCB_M_NATMAP, v2, l2);
        ck_assert_msg(err < prev_err && nat < prev_nat, "n_d %d: error %g (before %g), natmap %g (before %g)",
                      nd, err, prev_err, nat, prev_nat);
        prev_err = err;
        prev_nat = nat;
        free(z);
        mcb_formulation_free(&F);
    }
    ck_assert_double_lt(prev_err, 1e-2);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
}
END_TEST

/* ---- the LCP iterations ---- */

typedef struct {
    const mcb_problem *Q;
    const mcb_solver_def *def;
    void *work;
    double *z;
    double tol;
} lcp_ctx;

/* ||min(z, w)||_inf (free rows: |w|) */
static double lcp_res(const mcb_problem *Q, const double *z)
{
    double r = 0.0;
    for (int b = 0; b < Q->nblocks; b++)
        for (int i = Q->blocks[b].row; i < Q->blocks[b].row + Q->blocks[b].nrows; i++) {
            double w = Q->q[i];
            for (int j = 0; j < Q->m; j++)
                for (int k = Q->W->p[j]; k < Q->W->p[j + 1]; k++)
                    if (Q->W->i[k] == i) w += Q->W->x[k] * z[j];
            double f = Q->blocks[b].type == MCB_BILATERAL ? w : fmin(z[i], w);
            r = fmax(r, fabs(f));
        }
    return r;
}

static mcb_cb_action lcp_cb(void *ctx, int iter, double own)
{
    (void)iter;
    (void)own;
    lcp_ctx *c = ctx;
    c->def->iterate(c->work, NULL, c->z);
    return lcp_res(c->Q, c->z) <= c->tol ? MCB_CB_CONVERGED : MCB_CB_CONTINUE;
}

/* Runs a solver on Q with parameter `pname` = pval (NULL: defaults);
 * returns the status, z in out. */
static int solve_lcp(const char *solver, const mcb_problem *Q, const char *pname,
                     const char *pval, int iters, double *out, mcb_err *err)
{
    const mcb_solver_def *def = mcb_solver_find(solver);
    ck_assert_ptr_nonnull(def);
    char why[512];
    ck_assert_msg(def->accepts_problem(Q, why, sizeof why), "%s", why);
    double params[16];
    def->default_params(params);
    if (pname) ck_assert_int_eq(mcb_param_set(def, params, pname, pval, err), MCB_OK);
    mcb_settings s;
    mcb_settings_default(&s);
    s.max_iters = iters;
    lcp_ctx c = {Q, def, NULL, out, 1e-10};
    if (def->setup(Q, &s, params, &c.work, err)) return MCB_ST_SETUP_FAILED;
    mcb_info info;
    memset(&info, 0, sizeof info);
    int st = def->solve(c.work, &s, lcp_cb, &c, &info);
    def->iterate(c.work, NULL, out);
    def->free(&c.work);
    ck_assert_ptr_null(c.work);
    return st;
}

/* A dual problem from dense row-major W, q and row types. */
static mcb_problem *dense_lcp(int m, const double *W, const double *q, const int *type)
{
    mcb_problem *Q = mcb_problem_new();
    Q->form = MCB_DUAL;
    Q->m = m;
    int nz = 0, ri[64], ci[64];
    double x[64];
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            if (W[i * m + j] != 0.0) ri[nz] = i, ci[nz] = j, x[nz++] = W[i * m + j];
    Q->W = mcb_csc_from_triplets(m, m, nz, ri, ci, x);
    Q->q = malloc((size_t)m * sizeof(double));
    memcpy(Q->q, q, (size_t)m * sizeof(double));
    Q->nblocks = m;
    Q->blocks = calloc((size_t)m, sizeof(mcb_block));
    for (int i = 0; i < m; i++) Q->blocks[i] = (mcb_block){type[i], i, 1, 0, 0, 0};
    return Q;
}

/* W = [4 1 0 1; 1 4 1 0; 0 1 4 1; 1 0 1 4], q = (-1, 2, -3, 1): the LCP's
 * solution is z = (1/4, 0, 3/4, 0), w = (0, 3, 0, 2); as an MLCP with row
 * 1 free, rows 0-2 hold with equality, z_1 = -6/7 < 0, z_3 = 0. */
START_TEST(lcp_iterations_small)
{
    const double W[16] = {4, 1, 0, 1, 1, 4, 1, 0, 0, 1, 4, 1, 1, 0, 1, 4};
    const double q[4] = {-1, 2, -3, 1};
    const int uni[4] = {MCB_UNILATERAL, MCB_UNILATERAL, MCB_UNILATERAL, MCB_UNILATERAL};
    const int mix[4] = {MCB_UNILATERAL, MCB_BILATERAL, MCB_UNILATERAL, MCB_UNILATERAL};
    const double zl[4] = {0.25, 0, 0.75, 0};
    const char *solvers[2] = {"psor-lcp", "pj-lcp"};
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < 2; t++) {
            mcb_problem *Q = dense_lcp(4, W, q, t ? mix : uni);
            double z[4];
            mcb_err err;
            int st = solve_lcp(solvers[s], Q, NULL, NULL, 2000, z, &err);
            ck_assert_msg(st == MCB_ST_SOLVED, "%s on the %s: status %d", solvers[s],
                          t ? "MLCP" : "LCP", st);
            ck_assert_double_le(lcp_res(Q, z), 1e-10);
            if (!t) ck_assert_double_le(maxdiff(4, z, zl), 1e-9);
            else ck_assert_double_le(fabs(z[1] + 6.0 / 7.0), 1e-9);
            mcb_problem_free(&Q);
        }
}
END_TEST

/* A zero diagonal entry (Stewart-Trinkle's sigma rows) is setup-failed
 * without reg, with the row in the message; bad parameters are refused. */
START_TEST(zero_diagonal_status)
{
    mcb_problem *P = fx_point_contact(FX_SLIP);
    mcb_formulation *F = NULL;
    ck_assert_int_eq(mcb_formulation_build(P, MCB_FORM_LCP_ST, 8, &F, NULL), MCB_OK);
    const mcb_problem *Q = mcb_formulation_problem(F);
    double z[16];
    const char *solvers[2] = {"psor-lcp", "pj-lcp"};
    for (int s = 0; s < 2; s++) {
        mcb_err err;
        err.msg[0] = 0;
        ck_assert_int_eq(solve_lcp(solvers[s], Q, NULL, NULL, 10, z, &err), MCB_ST_SETUP_FAILED);
        ck_assert_ptr_nonnull(strstr(err.msg, "row 9"));
        ck_assert_ptr_nonnull(strstr(err.msg, "reg"));
        const mcb_solver_def *def = mcb_solver_find(solvers[s]);
        double params[16];
        def->default_params(params);
        ck_assert_int_eq(mcb_param_set(def, params, "reg", "-1", &err), MCB_OK);
        ck_assert_int_ne(def->check_params(params, &err), MCB_OK);
    }
    /* a primal problem or a contact block is refused by the interface */
    char why[512];
    ck_assert(!mcb_accepts_lcp(P, why, sizeof why));
    mcb_formulation_free(&F);
    mcb_problem_free(&P);
}
END_TEST

/* With reg > 0 both iterations solve Stewart-Trinkle's LCP of the
 * fixtures; the map back is then the exact Coulomb solution (the slip is
 * along a polygon direction). */
START_TEST(lcp_st_solved_with_reg)
{
    int k = _i % 3, s = _i / 3;
    double v[6], lambda[6], v2[6], l2[6];
    mcb_problem *P = fixture(k, v, lambda);
    mcb_formulation *F = NULL;
    ck_assert_int_eq(mcb_formulation_build(P, MCB_FORM_LCP_ST, 8, &F, NULL), MCB_OK);
    const mcb_problem *Q = mcb_formulation_problem(F);
    double *z = calloc((size_t)Q->m, sizeof(double));
    mcb_err err;
    const char *solver = s ? "pj-lcp" : "psor-lcp";
    int st = solve_lcp(solver, Q, "reg", "1", 20000, z, &err);
    ck_assert_msg(st == MCB_ST_SOLVED, "%s fixture %d: status %d", solver, k, st);
    mcb_formulation_map_back(F, NULL, z, v2, l2);
    ck_assert_double_le(maxdiff(P->m, l2, lambda), 1e-8);
    ck_assert_double_le(maxdiff(P->n, v2, v), 1e-8);
    free(z);
    mcb_formulation_free(&F);
    mcb_problem_free(&P);
}
END_TEST

/* Through the harness: psor-lcp with --formulation lcp-st on the slip is
 * judged on P (solved: the polygon holds the exact slip direction) with a
 * small form_residual; mlcp on a dual problem is skipped with the reason;
 * ncp (the default) keeps pgs as it was, form_residual its natural map. */
START_TEST(runner_with_formulation)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 20000;
    o.settings.tol = 1e-9;
    mcb_problem *P = fx_point_contact(FX_SLIP);
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
    const mcb_solver_def *def = mcb_solver_find("psor-lcp");
    double params[16];
    def->default_params(params);
    ck_assert_int_eq(mcb_param_set(def, params, "reg", "1", NULL), MCB_OK);
    mcb_run run;
    o.formulation = MCB_FORM_LCP_ST;
    ck_assert_int_eq(mcb_run_one(P, ws, def, params, &o, &run, NULL), MCB_OK);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "status %d: %s", run.info.status, run.info.reason);
    ck_assert_double_le(run.final.val[MCB_M_NATMAP], 1e-9);
    ck_assert_double_le(run.form_residual, 1e-7);
    ck_assert_int_eq(run.m, 3);
    mcb_run_clear(&run);
    /* without reg: setup-failed, the reason kept */
    ck_assert_int_eq(mcb_run_one(P, ws, def, NULL, &o, &run, NULL), MCB_OK);
    ck_assert_int_eq(run.info.status, MCB_ST_SETUP_FAILED);
    ck_assert_ptr_nonnull(strstr(run.info.reason, "reg"));
    mcb_run_clear(&run);
    /* the default: pgs on P itself */
    o.formulation = MCB_FORM_NCP;
    ck_assert_int_eq(mcb_run_one(P, ws, mcb_solver_find("pgs"), NULL, &o, &run, NULL), MCB_OK);
    ck_assert_int_eq(run.info.status, MCB_ST_SOLVED);
    ck_assert_double_le(run.form_residual, 1e-9);
    mcb_run_clear(&run);
    /* psor-lcp is skipped on the stored problem */
    ck_assert_int_eq(mcb_run_one(P, ws, def, params, &o, &run, NULL), MCB_OK);
    ck_assert_int_eq(run.info.status, MCB_ST_SKIPPED);
    mcb_run_clear(&run);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
    /* mlcp needs the primal data */
    mcb_problem *D = fx_point_contact_dual(FX_SLIP);
    ck_assert_int_eq(mcb_metrics_ws_new(D, &ws, NULL), MCB_OK);
    o.formulation = MCB_FORM_MLCP;
    ck_assert_int_eq(mcb_run_one(D, ws, def, params, &o, &run, NULL), MCB_OK);
    ck_assert_int_eq(run.info.status, MCB_ST_SKIPPED);
    ck_assert_ptr_nonnull(strstr(run.info.reason, "mlcp"));
    mcb_run_clear(&run);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&D);
}
END_TEST

/* Soft, bilateral and unilateral rows carry over: on fx_mixed_active the
 * reference solution of pgs, lifted, has a small own residual in every
 * LCP form. */
START_TEST(mixed_rows_carry_over)
{
    mcb_problem *P = fx_mixed_active();
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.tol = 1e-12;
    o.settings.max_iters = 100000;
    o.save_solutions = 1;
    mcb_run run;
    ck_assert_int_eq(mcb_run_one(P, ws, mcb_solver_find("pgs"), NULL, &o, &run, NULL), MCB_OK);
    ck_assert_int_eq(run.info.status, MCB_ST_SOLVED);
    for (int kind = MCB_FORM_LCP_ST; kind <= MCB_FORM_MLCP; kind += 2) {
        mcb_formulation *F = NULL;
        /* a polygon holding the slip direction is not given: a fine one */
        ck_assert_int_eq(mcb_formulation_build(P, kind, 1024, &F, NULL), MCB_OK);
        const mcb_problem *Q = mcb_formulation_problem(F);
        double *z = calloc((size_t)Q->m, sizeof(double));
        ck_assert_int_eq(mcb_formulation_lift(F, run.v, run.lambda, z), MCB_OK);
        double r = mcb_formulation_residual(F, NULL, z);
        ck_assert_msg(r < 1e-4, "%s: own residual %g", mcb_formulation_name(kind), r);
        free(z);
        mcb_formulation_free(&F);
    }
    mcb_run_clear(&run);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(peg_in_hole_scene)
{
    const mcb_scene_def *def = mcb_scene_find("peg-in-hole");
    ck_assert_ptr_nonnull(def);
    double vals[MCB_SCENE_MAX_OPTS];
    char *argv[] = {"--steps", "70"};
    ck_assert_int_eq(mcb_scene_parse(def, 2, argv, vals, NULL), MCB_OK);
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_msg(def->generate(vals, NULL, &S, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(S->count, 70);
    int first = -1, landed = -1;
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        ck_assert_int_eq(P->n, 6);
        if (first < 0 && P->m > 0) first = k;
        if (landed < 0 && P->b[2] > 0) landed = k; /* b = m v_k + h f: rising only after the floor */
    }
    /* the bottom at 0.5 m above the rims: in the hole after sqrt(2 0.5 / g) =
     * 0.32 s, on the floor 1 m further down at 0.55 s */
    ck_assert_int_ge(first, 30);
    ck_assert_int_le(first, 33);
    ck_assert_int_ge(landed, 54);
    ck_assert_int_le(landed, 58);
    for (int k = first; k < landed - 1; k++) /* sliding down at g: the side impulses vanish */
        for (int r = 0; r < S->items[k]->m; r++)
            ck_assert_double_le(fabs(S->items[k]->lambda_ref[r]), 1e-9);
    const mcb_problem *P = S->items[landed];
    for (int kind = 0; kind < MCB_NFORMULATIONS; kind++) {
        mcb_formulation *F = NULL;
        ck_assert_int_eq(mcb_formulation_build(P, kind, 8, &F, NULL), MCB_OK);
        if (mcb_formulation_is_lcp(kind)) {
            double *z = calloc((size_t)mcb_formulation_problem(F)->m, sizeof(double));
            mcb_formulation_lift(F, P->v_ref, P->lambda_ref, z);
            double r = mcb_formulation_residual(F, NULL, z), bn = mcb_norm_inf(P->n, P->b);
            ck_assert_msg(r <= 1e-3 * bn, "%s: own residual %g", mcb_formulation_name(kind), r);
            free(z);
        }
        mcb_formulation_free(&F);
    }
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(compliance_carried)
{
    for (int st = FX_STICK; st <= FX_SLIP; st++)
        for (int dual = 0; dual < 2; dual++)
            for (int kind = MCB_FORM_LCP_ST; kind <= MCB_FORM_MLCP; kind += 2) {
                if (dual && kind == MCB_FORM_MLCP) continue;
                mcb_problem *P = dual ? fx_compliant_dual(st) : fx_compliant(st);
                double v[3], lambda[3], v2[3], l2[3];
                fx_compliant_solution(st, v, lambda);
                mcb_formulation *F = NULL;
                ck_assert_int_eq(mcb_formulation_build(P, kind, 8, &F, NULL), MCB_OK);
                const mcb_problem *Q = mcb_formulation_problem(F);
                double *z = calloc((size_t)Q->m, sizeof(double));
                ck_assert_int_eq(mcb_formulation_lift(F, v, lambda, z), MCB_OK);
                double r = mcb_formulation_residual(F, NULL, z);
                ck_assert_msg(r < 1e-12, "%s state %d dual %d: %g", mcb_formulation_name(kind), st, dual, r);
                mcb_formulation_map_back(F, NULL, z, v2, l2);
                ck_assert_double_le(maxdiff(3, l2, lambda), 1e-12);
                if (!dual) ck_assert_double_le(maxdiff(3, v2, v), 1e-12);
                free(z);
                mcb_formulation_free(&F);
                mcb_problem_free(&P);
            }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("formulation");
    TCase *tc = tcase_create("formulation");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, known_answers, 0, 3 * MCB_NFORMULATIONS);
    tcase_add_test(tc, ccp_slip_answer);
    tcase_add_test(tc, anitescu_potra_rhs);
    tcase_add_test(tc, polygon_error_shrinks);
    tcase_add_test(tc, lcp_iterations_small);
    tcase_add_test(tc, zero_diagonal_status);
    tcase_add_loop_test(tc, lcp_st_solved_with_reg, 0, 6);
    tcase_add_test(tc, runner_with_formulation);
    tcase_add_test(tc, mixed_rows_carry_over);
    tcase_add_test(tc, peg_in_hole_scene);
    tcase_add_test(tc, compliance_carried);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

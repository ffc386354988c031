/* test_lcp_newton.c: known answers and failure statuses of the LCP solvers
 * of issue 13, section 2: fischer-newton, minmap-newton (both Newton
 * equation strategies) and fixed-point, on LCPs built directly as dual
 * problems u = W z + q:
 *   - random sparse LCPs with a planted solution (fixed seeds, mcb_rng):
 *     W = B^T B + delta I (symmetric positive definite), the same plus a
 *     skew-symmetric part (unsymmetric, still a P-matrix), and B^T B alone
 *     with B wide (positive semidefinite, singular);
 *   - the same with per-row compliance r (u = W z + q + r∘z);
 *   - an MLCP (bilateral and unilateral rows);
 *   - a Stewart-Trinkle LCP built by hand (one particle on a plane, four
 *     friction directions: W unsymmetric with a zero diagonal entry),
 *     sliding and sticking;
 *   - degenerate LCPs (z_i = u_i = 0 at the solution; a whole line of
 *     solutions);
 *   - an LCP without solution (line search failure or stationary point:
 *     stalled; the fixed point diverges);
 *   - the NCP form of fixed-point on the one-contact dual fixture.
 * Also: quadratic convergence of the direct Newton near the solution, no
 * allocation in the iteration loops, the UMFPACK backend (lu = 1: the same
 * answers, an allocation per factorization), determinism, parameter
 * checks, the harness's verdicts.
 * `test_lcp_newton bench [sizes...]` and `test_lcp_newton trace` print the
 * figures of docs/solver-lcp-newton.md instead of testing. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc_count.h"
#include "check_main.h"
#include "fixtures.h"
#include "lib/mcb_timer.h"
#include "harness/runner.h"
#include "solvers/solver.h"
#include "problems/scene/spatial.h"

static const char *const lcp_solvers[3] = {"fischer-newton", "minmap-newton", "fixed-point"};

/* ---- problems ---- */

/* A dual problem from W (taken), q (copied), one block per row of the
 * given types (NULL: all unilateral). */
static mcb_problem *dual_lcp(mcb_csc *W, const double *q, const int *types)
{
    int m = W->m;
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_DUAL;
    P->m = m;
    P->W = W;
    P->q = calloc((size_t)m + 1, sizeof(double));
    if (m > 0) memcpy(P->q, q, (size_t)m * sizeof(double));
    P->nblocks = m;
    P->blocks = calloc((size_t)m + 1, sizeof(mcb_block));
    for (int i = 0; i < m; i++)
        P->blocks[i] = (mcb_block){types ? types[i] : MCB_UNILATERAL, i, 1, 0, 0, 0};
    free(P->name);
    P->name = strdup("lcp");
    return P;
}

static mcb_csc *dense_csc(int m, const double *A) /* row-major */
{
    int nz = 0, *ri = malloc((size_t)(m * m) * sizeof(int)), *ci = malloc((size_t)(m * m) * sizeof(int));
    double *x = malloc((size_t)(m * m) * sizeof(double));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            if (A[i * m + j] != 0.0) ri[nz] = i, ci[nz] = j, x[nz++] = A[i * m + j];
    mcb_csc *W = mcb_csc_from_triplets(m, m, nz, ri, ci, x);
    free(ri);
    free(ci);
    free(x);
    return W;
}

enum { LCP_SPD = 0, LCP_UNSYM = 1, LCP_PSD = 2 };

/* W = B^T B (+ delta I) (+ S, S skew): B is k x m with `per` entries per
 * column (k = m, or k = m / 2 for the singular PSD kind); a planted
 * solution z* (half the rows active, z* > 0, u* = 0; the others z* = 0,
 * u* > 0) gives q = u* - W z*. zstar may be NULL. */
static mcb_problem *random_lcp(int m, int kind, unsigned long long seed, double *zstar)
{
    mcb_rng g;
    mcb_rng_seed(&g, seed);
    int k = kind == LCP_PSD ? m / 2 : m, per = 3, nz = per * m;
    int *ri = malloc((size_t)(nz + 2 * m) * sizeof(int)), *ci = malloc((size_t)(nz + 2 * m) * sizeof(int));
    double *x = malloc((size_t)(nz + 2 * m) * sizeof(double));
    for (int j = 0; j < m; j++)
        for (int e = 0; e < per; e++) {
            ri[j * per + e] = (int)(mcb_rng_uniform(&g) * k);
            ci[j * per + e] = j;
            x[j * per + e] = mcb_rng_normal(&g);
        }
    mcb_csc *B = mcb_csc_from_triplets(k, m, nz, ri, ci, x);
    mcb_csc *BT = mcb_csc_transpose(B);
    mcb_csc *W0 = mcb_csc_multiply(BT, B);
    /* + delta I and the skew part, as triplets added to W0's */
    int n0 = mcb_csc_nnz(W0), t = 0;
    int *r2 = malloc((size_t)(n0 + 3 * m) * sizeof(int)), *c2 = malloc((size_t)(n0 + 3 * m) * sizeof(int));
    double *x2 = malloc((size_t)(n0 + 3 * m) * sizeof(double));
    for (int j = 0; j < m; j++)
        for (int p = W0->p[j]; p < W0->p[j + 1]; p++) r2[t] = W0->i[p], c2[t] = j, x2[t++] = W0->x[p];
    for (int i = 0; kind != LCP_PSD && i < m; i++) r2[t] = c2[t] = i, x2[t++] = 0.1;
    for (int i = 0; kind == LCP_UNSYM && i < m; i++) {
        int j = (int)(mcb_rng_uniform(&g) * m);
        if (j == i) continue;
        double s = 0.5 * mcb_rng_normal(&g);
        r2[t] = i, c2[t] = j, x2[t++] = s;
        r2[t] = j, c2[t] = i, x2[t++] = -s;
    }
    mcb_csc *W = mcb_csc_from_triplets(m, m, t, r2, c2, x2);
    double *z = calloc((size_t)m, sizeof(double)), *u = calloc((size_t)m, sizeof(double));
    for (int i = 0; i < m; i++) {
        if (mcb_rng_uniform(&g) < 0.5) z[i] = 0.1 + mcb_rng_uniform(&g);
        else u[i] = 0.1 + mcb_rng_uniform(&g);
    }
    double *q = calloc((size_t)m, sizeof(double));
    for (int i = 0; i < m; i++) q[i] = u[i];
    for (int j = 0; j < m; j++)
        for (int p = W->p[j]; p < W->p[j + 1]; p++) q[W->i[p]] -= W->x[p] * z[j];
    mcb_problem *P = dual_lcp(W, q, NULL);
    if (zstar) memcpy(zstar, z, (size_t)m * sizeof(double));
    mcb_csc_free(&B);
    mcb_csc_free(&BT);
    mcb_csc_free(&W0);
    free(ri), free(ci), free(x), free(r2), free(c2), free(x2), free(z), free(u), free(q);
    return P;
}

/* Stewart-Trinkle's LCP (RPIsim eq. (7)) of a unit-mass particle on the
 * plane z = 0 with four friction directions d_k = (cos k pi/2, sin k pi/2,
 * 0), friction mu = 0.5, pre-impact velocity (vx, 0, -1): variables
 * (p_n, p_f[4], s), W = [[1, 0, 0], [0, D^T D, E], [mu, -E^T, 0]],
 * q = [-1, D^T v, 0]. */
static mcb_problem *st_particle(double vx)
{
    double mu = 0.5, d[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    double W[36] = {0}, q[6] = {-1.0, 0, 0, 0, 0, 0};
    W[0] = 1.0;
    for (int a = 0; a < 4; a++) {
        for (int b = 0; b < 4; b++) W[(1 + a) * 6 + 1 + b] = d[a][0] * d[b][0] + d[a][1] * d[b][1];
        W[(1 + a) * 6 + 5] = 1.0;  /* E */
        W[5 * 6 + 1 + a] = -1.0;   /* -E^T */
        q[1 + a] = d[a][0] * vx;
    }
    W[5 * 6] = mu; /* U */
    return dual_lcp(dense_csc(6, W), q, NULL);
}

/* ---- running a solver directly ---- */

typedef struct {
    double tol;      /* stop when the own residual is at most this */
    int n;           /* residuals recorded */
    double res[512];
} trace_ctx;

static mcb_cb_action trace_cb(void *vctx, int iter, double own)
{
    trace_ctx *c = vctx;
    if (c->n < 512) c->res[c->n++] = own;
#if COUNT_MALLOC
    if (iter == 1) __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
#else
    (void)iter;
#endif
    return own <= c->tol ? MCB_CB_CONVERGED : MCB_CB_CONTINUE;
}

/* Runs `name` (params NULL: defaults; or "key=value" pairs) on P; the
 * status, z in z (m), the own-residual trace in ctx. */
static int run_direct(const char *name, const mcb_problem *P, const char *const *kv, int nkv,
                      int max_iters, double tol, double *z, trace_ctx *ctx, mcb_info *info)
{
    const mcb_solver_def *def = mcb_solver_find(name);
    if (!def) return -1;
    double prm[32];
    def->default_params(prm);
    for (int k = 0; k < nkv; k++) {
        char key[64];
        const char *eq = strchr(kv[k], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - kv[k]), kv[k]);
        if (mcb_param_set(def, prm, key, eq + 1, NULL) != MCB_OK) return -1;
    }
    mcb_settings s;
    mcb_settings_default(&s);
    s.max_iters = max_iters;
    void *work = NULL;
    mcb_err err;
    memset(ctx->res, 0, sizeof ctx->res);
    ctx->n = 0;
    ctx->tol = tol;
    memset(info, 0, sizeof *info);
    if (def->setup(P, &s, prm, &work, &err) != MCB_OK) {
        snprintf(info->reason, sizeof info->reason, "setup: %.900s", err.msg);
        return MCB_ST_SETUP_FAILED;
    }
    int st = def->solve(work, &s, trace_cb, ctx, info);
#if COUNT_MALLOC
    __atomic_store_n(&counting, 0, __ATOMIC_RELAXED);
#endif
    def->iterate(work, NULL, z);
    def->free(&work);
    return work ? -1 : st;
}

/* The natural merit ||min(z, u)|| (bilateral rows: u_i), recomputed here
 * with u = W z + q + r∘z. */
static double natural_merit(const mcb_problem *P, const double *z)
{
    int m = P->m;
    double *u = malloc((size_t)m * sizeof(double)), s = 0.0;
    memcpy(u, P->q, (size_t)m * sizeof(double));
    mcb_csc_gaxpy(P->W, z, u);
    for (int i = 0; P->r && i < m; i++) u[i] += P->r[i] * z[i];
    for (int b = 0; b < P->nblocks; b++)
        for (int i = P->blocks[b].row; i < P->blocks[b].row + P->blocks[b].nrows; i++) {
            double r = P->blocks[b].type == MCB_BILATERAL ? u[i] : fmin(z[i], u[i]);
            s += r * r;
        }
    free(u);
    return sqrt(s);
}

/* ---- tests ---- */

/* Both Newton solvers, both strategies, on the three random kinds: the
 * planted solution (unique for the P-matrices) or the natural merit (PSD).
 * Cases 12 to 19 (issue 22): the SPD and unsymmetric kinds with per-row
 * compliance r on every other row (u = W z + q + r∘z) and q shifted by
 * -r∘z*, so that z* stays the solution (ignoring r, the solvers would
 * solve another LCP). */
START_TEST(newton_random_planted)
{
    int compliant = _i >= 12, c = _i % 12;
    int kind = c / 4, solver = (c / 2) % 2, strategy = c % 2;
    const char *kv[1] = {strategy ? "strategy=1" : "strategy=0"};
    int m = 60;
    double zs[60], z[60];
    mcb_problem *P = random_lcp(m, kind, (compliant ? 4321 : 1234) + (unsigned)kind, zs);
    if (compliant) {
        P->r = calloc((size_t)m, sizeof(double));
        for (int i = 0; i < m; i += 2) {
            P->r[i] = 0.5 + 0.01 * i;
            P->q[i] -= P->r[i] * zs[i];
        }
    }
    trace_ctx ctx;
    mcb_info info;
    int st = run_direct(lcp_solvers[solver], P, kv, 1, 200, 1e-12, z, &ctx, &info);
    ck_assert_msg(st == MCB_ST_SOLVED, "%s strategy %d kind %d%s: %s (%s) own %g after %d",
                  lcp_solvers[solver], strategy, kind, compliant ? " with r" : "",
                  mcb_status_name(st), info.reason, info.own_residual, info.iterations);
    ck_assert_msg(natural_merit(P, z) < 1e-10, "natural merit %g", natural_merit(P, z));
    if (kind != LCP_PSD)
        for (int i = 0; i < m; i++)
            ck_assert_msg(fabs(z[i] - zs[i]) <= 1e-9, "%s strategy %d kind %d%s: z_%d = %.12g, "
                          "planted %.12g", lcp_solvers[solver], strategy, kind,
                          compliant ? " with r" : "", i, z[i], zs[i]);
    ck_assert_int_le(info.iterations, 60);
    if (strategy == 1) ck_assert_int_gt(info.inner_iterations, 0);
    else ck_assert_int_eq(info.inner_iterations, 0);
    mcb_problem_free(&P);
}
END_TEST

/* The projected line search (num4lcp's, `projected = 1`) also solves the
 * random P-matrix LCPs, with either reformulation. */
START_TEST(projected_line_search)
{
    const char *kv[1] = {"projected=1"};
    for (int solver = 0; solver < 2; solver++) {
        double zs[60], z[60];
        mcb_problem *P = random_lcp(60, LCP_UNSYM, 1235, zs);
        trace_ctx ctx;
        mcb_info info;
        int st = run_direct(lcp_solvers[solver], P, kv, 1, 200, 1e-12, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED, "%s: %s (%s)", lcp_solvers[solver],
                      mcb_status_name(st), info.reason);
        for (int i = 0; i < 60; i++) ck_assert_double_eq_tol(z[i], zs[i], 1e-9);
        mcb_problem_free(&P);
    }
}
END_TEST

/* GMRES preconditioned by the LU of an earlier Newton matrix (gmres_prec
 * 1, refreshed every 3 iterations): the planted solution of an unsymmetric
 * P-matrix LCP and the sliding Stewart-Trinkle particle (zero diagonal:
 * Jacobi's weakest case), in fewer GMRES steps than with Jacobi. */
START_TEST(gmres_lu_preconditioner)
{
    const char *lu[3] = {"strategy=1", "gmres_prec=1", "prec_every=3"};
    for (int solver = 0; solver < 2; solver++) {
        double zs[60], z[60];
        trace_ctx ctx;
        mcb_info info, jac;
        mcb_problem *P = random_lcp(60, LCP_UNSYM, 1236, zs);
        int st = run_direct(lcp_solvers[solver], P, lu, 1, 200, 1e-12, z, &ctx, &jac);
        ck_assert_int_eq(st, MCB_ST_SOLVED);
        st = run_direct(lcp_solvers[solver], P, lu, 3, 200, 1e-12, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED, "%s: %s (%s)", lcp_solvers[solver],
                      mcb_status_name(st), info.reason);
        for (int i = 0; i < 60; i++) ck_assert_double_eq_tol(z[i], zs[i], 1e-9);
        ck_assert_msg(info.inner_iterations > 0 && info.inner_iterations < jac.inner_iterations,
                      "%s: %d GMRES steps with LU, %d with Jacobi", lcp_solvers[solver],
                      info.inner_iterations, jac.inner_iterations);
        mcb_problem_free(&P);
        P = st_particle(2.0);
        double zst[6] = {1, 0, 0, 0.5, 0, 1.5};
        st = run_direct(lcp_solvers[solver], P, lu, 3, 200, 1e-13, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED, "%s ST: %s (%s)", lcp_solvers[solver],
                      mcb_status_name(st), info.reason);
        for (int i = 0; i < 6; i++) ck_assert_double_eq_tol(z[i], zst[i], 1e-10);
        mcb_problem_free(&P);
    }
}
END_TEST

/* fixed-point on the symmetric kinds (a projected gradient there). */
START_TEST(fixed_point_random_planted)
{
    int kind = _i ? LCP_PSD : LCP_SPD, m = 60;
    double zs[60], z[60];
    mcb_problem *P = random_lcp(m, kind, 1234 + (unsigned)kind, zs);
    trace_ctx ctx;
    mcb_info info;
    int st = run_direct("fixed-point", P, NULL, 0, 200000, 1e-14, z, &ctx, &info);
    ck_assert_msg(st == MCB_ST_SOLVED, "fixed-point kind %d: %s (%s) after %d", kind,
                  mcb_status_name(st), info.reason, info.iterations);
    ck_assert_msg(natural_merit(P, z) < 1e-9, "natural merit %g", natural_merit(P, z));
    if (kind == LCP_SPD)
        for (int i = 0; i < m; i++) ck_assert_double_eq_tol(z[i], zs[i], 1e-8);
    mcb_problem_free(&P);
}
END_TEST

/* Near the solution the direct Newton's residual is squared at each step:
 * fischer-newton: some step from ||phi|| in [1e-9, 1e-2] lands below
 * 10 ||phi||^2; minmap-newton terminates finitely once its active set is
 * the solution's: some step from ||phi|| >= 1e-3 lands below 1e-12. */
START_TEST(newton_quadratic_convergence)
{
    for (int solver = 0; solver < 2; solver++) {
        double z[200];
        mcb_problem *P = random_lcp(200, LCP_UNSYM, 99, NULL);
        trace_ctx ctx;
        mcb_info info;
        int st = run_direct(lcp_solvers[solver], P, NULL, 0, 200, 1e-14, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED || st == MCB_ST_STALLED, "%s", mcb_status_name(st));
        int quad = 0;
        for (int k = 0; k + 1 < ctx.n; k++)
            if (solver == 0 ? ctx.res[k] >= 1e-9 && ctx.res[k] <= 1e-2 &&
                                  ctx.res[k + 1] <= 10 * ctx.res[k] * ctx.res[k]
                            : ctx.res[k] >= 1e-3 && ctx.res[k + 1] <= 1e-12)
                quad = 1;
        ck_assert_msg(quad, "%s: no quadratic step in %d iterations", lcp_solvers[solver], ctx.n);
        mcb_problem_free(&P);
    }
}
END_TEST

/* An MLCP: row 0 bilateral (z free, u = 0), rows 1, 2 unilateral, one
 * active (z > 0, u = 0) and one not; planted solution z* = (-0.5, 0.7, 0). */
START_TEST(mlcp_planted)
{
    double W[9] = {2, 0.5, 0.1, 0.5, 1.5, -0.2, 0.1, -0.2, 1.0};
    double zs[3] = {-0.5, 0.7, 0.0}, us[3] = {0.0, 0.0, 0.4}, q[3];
    for (int i = 0; i < 3; i++) q[i] = us[i] - (W[3 * i] * zs[0] + W[3 * i + 1] * zs[1] + W[3 * i + 2] * zs[2]);
    int types[3] = {MCB_BILATERAL, MCB_UNILATERAL, MCB_UNILATERAL};
    for (int s = 0; s < 3; s++) {
        mcb_problem *P = dual_lcp(dense_csc(3, W), q, types);
        double z[3];
        trace_ctx ctx;
        mcb_info info;
        int st = run_direct(lcp_solvers[s], P, NULL, 0, 100000, 1e-14, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED, "%s: %s (%s)", lcp_solvers[s], mcb_status_name(st),
                      info.reason);
        for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(z[i], zs[i], 1e-10);
        mcb_problem_free(&P);
    }
}
END_TEST

/* Stewart-Trinkle by hand (zero diagonal entry, unsymmetric W). Sliding,
 * vx = 2: p_n = 1, friction mu p_n = 0.5 against the motion (direction 2),
 * sliding speed s = 1.5; unique. Sticking, vx = 0.2: p_n = 1, net
 * friction p_f2 - p_f0 = 0.2, s = 0; not unique (p_f0 in [0, 0.15]):
 * judged by the natural merit and the post-step velocity. */
START_TEST(stewart_trinkle_particle)
{
    for (int s = 0; s < 2; s++) {
        mcb_problem *P = st_particle(2.0);
        double z[6], zs[6] = {1, 0, 0, 0.5, 0, 1.5};
        trace_ctx ctx;
        mcb_info info;
        int st = run_direct(lcp_solvers[s], P, NULL, 0, 200, 1e-13, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED, "%s sliding: %s (%s)", lcp_solvers[s],
                      mcb_status_name(st), info.reason);
        for (int i = 0; i < 6; i++) ck_assert_double_eq_tol(z[i], zs[i], 1e-10);
        mcb_problem_free(&P);
        P = st_particle(0.2);
        st = run_direct(lcp_solvers[s], P, NULL, 0, 200, 1e-13, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED, "%s sticking: %s (%s)", lcp_solvers[s],
                      mcb_status_name(st), info.reason);
        ck_assert_double_eq_tol(z[0], 1.0, 1e-10);
        ck_assert_double_eq_tol(0.2 - (z[3] - z[1]), 0.0, 1e-10); /* v_x after the step */
        ck_assert_double_eq_tol(z[5], 0.0, 1e-10);
        ck_assert(natural_merit(P, z) < 1e-10);
        mcb_problem_free(&P);
    }
}
END_TEST

/* Degenerate LCPs: W = I, q = (0, -1) (row 0 has z = u = 0 at the
 * solution (0, 1): the kink of both reformulations), and W = [[1, 1],
 * [1, 1]], q = (-1, -1) (every z >= 0 with z_0 + z_1 = 1 solves it). */
START_TEST(degenerate)
{
    double I2[4] = {1, 0, 0, 1}, q1[2] = {0, -1}, O2[4] = {1, 1, 1, 1}, q2[2] = {-1, -1};
    for (int s = 0; s < 3; s++) {
        mcb_problem *P = dual_lcp(dense_csc(2, I2), q1, NULL);
        double z[2];
        trace_ctx ctx;
        mcb_info info;
        int st = run_direct(lcp_solvers[s], P, NULL, 0, 1000, 1e-13, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED || st == MCB_ST_STALLED, "%s: %s", lcp_solvers[s],
                      mcb_status_name(st));
        ck_assert_double_eq_tol(z[0], 0.0, 1e-12);
        ck_assert_double_eq_tol(z[1], 1.0, 1e-12);
        mcb_problem_free(&P);
        P = dual_lcp(dense_csc(2, O2), q2, NULL);
        st = run_direct(lcp_solvers[s], P, NULL, 0, 1000, 1e-13, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED || st == MCB_ST_STALLED, "%s: %s (%s)", lcp_solvers[s],
                      mcb_status_name(st), info.reason);
        ck_assert(z[0] >= -1e-12 && z[1] >= -1e-12);
        ck_assert_double_eq_tol(z[0] + z[1], 1.0, 1e-12);
        mcb_problem_free(&P);
    }
}
END_TEST

/* No solution: W = [-1], q = [-1] (u = -z - 1 < 0 for every z >= 0). The
 * Newton solvers stop on their own (stalled, with the reason); the fixed
 * point grows without bound (diverged). */
START_TEST(infeasible)
{
    double Wm[1] = {-1}, q[1] = {-1};
    for (int s = 0; s < 3; s++)
        for (int strategy = 0; strategy < (s < 2 ? 2 : 1); strategy++) {
            mcb_problem *P = dual_lcp(dense_csc(1, Wm), q, NULL);
            const char *kv[1] = {strategy ? "strategy=1" : "strategy=0"};
            double z[1];
            trace_ctx ctx;
            mcb_info info;
            int st = run_direct(lcp_solvers[s], P, kv, s < 2, 5000, 1e-12, z, &ctx, &info);
            ck_assert_msg(st == (s < 2 ? MCB_ST_STALLED : MCB_ST_DIVERGED), "%s: %s (%s)",
                          lcp_solvers[s], mcb_status_name(st), info.reason);
            ck_assert(strlen(info.reason) > 0);
            mcb_problem_free(&P);
        }
}
END_TEST

/* Stagnation: with a huge stag_tol every accepted step counts as
 * stagnating: stalled after the first iteration, and the reason says so. */
START_TEST(stagnation_status)
{
    mcb_problem *P = random_lcp(20, LCP_SPD, 7, NULL);
    const char *kv[1] = {"stag_tol=1e6"};
    double z[20];
    trace_ctx ctx;
    mcb_info info;
    int st = run_direct("fischer-newton", P, kv, 1, 100, 0.0, z, &ctx, &info);
    ck_assert_int_eq(st, MCB_ST_STALLED);
    ck_assert_int_eq(info.iterations, 1);
    ck_assert_ptr_nonnull(strstr(info.reason, "stagnation"));
    mcb_problem_free(&P);
}
END_TEST

/* The NCP form of fixed-point: the one-contact dual fixtures (W = I),
 * Coulomb with De Saxce's velocity, reach the known impulses. */
START_TEST(fixed_point_ncp_contact)
{
    for (int state = FX_OPEN; state <= FX_SLIP; state++) {
        mcb_problem *P = fx_point_contact_dual(state);
        double z[3], v[3], l[3];
        trace_ctx ctx;
        mcb_info info;
        int st = run_direct("fixed-point", P, NULL, 0, 10000, 1e-15, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_SOLVED, "state %d: %s", state, mcb_status_name(st));
        fx_point_solution(state, v, l);
        /* the dual fixture orders rows [n, t1, t2] like lambda */
        for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(z[k], l[k], 1e-10);
        mcb_problem_free(&P);
    }
}
END_TEST

/* Through the harness: its own metric judges; a contact fixture (primal)
 * is refused by the Newton LCP solvers with the reason, and solved by
 * fixed-point (NCP form). */
START_TEST(harness_verdicts)
{
    for (int s = 0; s < 3; s++) {
        mcb_problem *P = random_lcp(40, LCP_SPD, 5, NULL);
        mcb_campaign_opts o;
        mcb_campaign_defaults(&o);
        o.settings.max_iters = s < 2 ? 100 : 100000;
        o.settings.tol = 1e-9;
        mcb_metrics_ws *ws = NULL;
        ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
        mcb_run run = {0};
        mcb_run_one(P, ws, mcb_solver_find(lcp_solvers[s]), NULL, &o, &run, NULL);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s: %s (%s)", lcp_solvers[s],
                      mcb_status_name(run.info.status), run.info.reason);
        mcb_run_clear(&run);
        mcb_metrics_ws_free(&ws);
        mcb_problem_free(&P);
        P = fx_small_stack();
        mcb_metrics_ws_new(P, &ws, NULL);
        mcb_run_one(P, ws, mcb_solver_find(lcp_solvers[s]), NULL, &o, &run, NULL);
        /* fixed-point takes the primal contact problem through its Delassus view */
        ck_assert_msg(run.info.status == (s < 2 ? MCB_ST_SKIPPED : MCB_ST_SOLVED), "%s: %s",
                      lcp_solvers[s], mcb_status_name(run.info.status));
        if (s < 2) ck_assert(strlen(run.info.reason) > 0);
        mcb_run_clear(&run);
        mcb_metrics_ws_free(&ws);
        mcb_problem_free(&P);
    }
}
END_TEST

/* No allocation in the iteration loops (from the second iteration on):
 * fixed-point and the GMRES strategy allocate nothing; the direct strategy
 * allocates only inside UMFPACK's numeric factorization. */
START_TEST(no_allocation_in_loop)
{
#if COUNT_MALLOC
    mcb_problem *P = random_lcp(100, LCP_UNSYM, 11, NULL);
    double z[100];
    trace_ctx ctx;
    mcb_info info;
    const char *gm[1] = {"strategy=1"};
    for (int s = 0; s < 3; s++) {
        nalloc = 0;
        run_direct(lcp_solvers[s], P, gm, s < 2, s < 2 ? 30 : 300, 0.0, z, &ctx, &info);
        ck_assert_msg(nalloc == 0, "%s: %ld allocations in the loop", lcp_solvers[s], nalloc);
        ck_assert_int_ge(info.iterations, 2);
    }
    mcb_problem_free(&P);
#endif
}
END_TEST

/* lu = 1 (UMFPACK) for both Newton solvers, the direct strategy and the
 * LU preconditioner of GMRES: solved, the planted solution, the same z as
 * KLU's run to 1e-10; and UMFPACK is what factors: its factorizations
 * allocate in the loop, KLU's (refactored in place) do not. */
START_TEST(umfpack_agrees_with_klu)
{
    const char *direct[2][1] = {{"lu=0"}, {"lu=1"}};
    const char *prec[2][4] = {{"strategy=1", "gmres_prec=1", "prec_every=2", "lu=0"},
                              {"strategy=1", "gmres_prec=1", "prec_every=2", "lu=1"}};
    double zs[60], z[2][60];
    mcb_problem *P = random_lcp(60, LCP_UNSYM, 1237, zs);
    for (int solver = 0; solver < 2; solver++)
        for (int gm = 0; gm < 2; gm++) {
            long allocs[2] = {0, 0};
            int iters[2];
            for (int lu = 0; lu < 2; lu++) {
                trace_ctx ctx;
                mcb_info info;
#if COUNT_MALLOC
                nalloc = 0;
#endif
                int st = gm ? run_direct(lcp_solvers[solver], P, prec[lu], 4, 200, 1e-12, z[lu],
                                         &ctx, &info)
                            : run_direct(lcp_solvers[solver], P, direct[lu], 1, 200, 1e-12, z[lu],
                                         &ctx, &info);
#if COUNT_MALLOC
                allocs[lu] = nalloc;
#endif
                iters[lu] = info.iterations;
                ck_assert_msg(st == MCB_ST_SOLVED, "%s gmres %d lu %d: %s (%s)",
                              lcp_solvers[solver], gm, lu, mcb_status_name(st), info.reason);
                for (int i = 0; i < 60; i++) ck_assert_double_eq_tol(z[lu][i], zs[i], 1e-9);
            }
            for (int i = 0; i < 60; i++) ck_assert_double_eq_tol(z[1][i], z[0][i], 1e-10);
            printf("%s gmres_prec %d: %ld allocations in iterations 2-%d with KLU, %ld in 2-%d "
                   "with UMFPACK\n",
                   lcp_solvers[solver], gm, allocs[0], iters[0], allocs[1], iters[1]);
#if COUNT_MALLOC
            ck_assert_int_ge(iters[1], 3);
            ck_assert_int_eq(allocs[0], 0);
            ck_assert_int_gt(allocs[1], 0);
#endif
        }
    mcb_problem_free(&P);
}
END_TEST

START_TEST(deterministic)
{
    mcb_problem *P = random_lcp(80, LCP_UNSYM, 3, NULL);
    for (int s = 0; s < 3; s++) {
        double z0[80], z1[80];
        trace_ctx ctx;
        mcb_info info;
        run_direct(lcp_solvers[s], P, NULL, 0, 7, 0.0, z0, &ctx, &info);
        run_direct(lcp_solvers[s], P, NULL, 0, 7, 0.0, z1, &ctx, &info);
        ck_assert_mem_eq(z0, z1, sizeof z0);
    }
    mcb_problem_free(&P);
}
END_TEST

START_TEST(bad_params_and_null)
{
    /* no rows: nothing to solve, said so */
    for (int s = 0; s < 3; s++) {
        mcb_problem *P = dual_lcp(mcb_csc_alloc(0, 0, 0), NULL, NULL);
        double z[1];
        trace_ctx ctx;
        mcb_info info;
        int st = run_direct(lcp_solvers[s], P, NULL, 0, 10, 0.0, z, &ctx, &info);
        ck_assert_msg(st == MCB_ST_STALLED, "%s: %s (%s)", lcp_solvers[s], mcb_status_name(st),
                      info.reason);
        ck_assert_ptr_nonnull(strstr(info.reason, "no constraint rows"));
        mcb_problem_free(&P);
    }
    for (int s = 0; s < 3; s++) {
        const mcb_solver_def *def = mcb_solver_find(lcp_solvers[s]);
        double prm[32];
        def->default_params(prm);
        const char *bad = s < 2 ? "strategy" : "gamma";
        ck_assert_int_eq(mcb_param_set(def, prm, bad, s < 2 ? "2" : "-1", NULL), MCB_OK);
        mcb_err err;
        ck_assert_int_eq(def->check_params(prm, &err), MCB_E_INPUT);
        mcb_problem *P = random_lcp(10, LCP_SPD, 1, NULL);
        mcb_settings st;
        mcb_settings_default(&st);
        void *work = (void *)1;
        ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_E_INPUT);
        ck_assert_ptr_null(work);
        def->free(NULL);
        def->free(&work);
        mcb_problem_free(&P);
        /* a problem with soft rows (and, for the Newton solvers, contacts) is
         * refused at setup too */
        def->default_params(prm);
        P = fx_mixed();
        ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_E_INPUT);
        ck_assert_ptr_null(work);
        mcb_problem_free(&P);
    }
}
END_TEST

/* ---- figures (not tests) ---- */

static int bench(int argc, char **argv)
{
    int sizes[16] = {1000, 2000, 4000, 16000, 64000}, ns = 5;
    if (argc > 2) {
        ns = 0;
        for (int k = 2; k < argc && ns < 16; k++) sizes[ns++] = atoi(argv[k]);
    }
    printf("kind,m,nnz,solver,strategy,status,iterations,gmres_steps,wall_s,cpu_s,natural_merit\n");
    for (int kind = 0; kind < 2; kind++)
        for (int k = 0; k < ns; k++) {
            int m = sizes[k];
            mcb_problem *P = random_lcp(m, kind, 2024, NULL);
            double *z = malloc((size_t)m * sizeof(double));
            for (int s = 0; s < 3; s++)
                for (int strategy = 0; strategy < (s < 2 ? 2 : 1); strategy++) {
                    if (s == 2 && kind == LCP_UNSYM) continue;
                    if (s < 2 && strategy == 0 && m > 4000) continue; /* LU fill-in: minutes */
                    const char *kv[1] = {strategy ? "strategy=1" : "strategy=0"};
                    trace_ctx ctx;
                    mcb_info info;
                    double t0 = mcb_now_s();
                    clock_t c0 = clock();
                    int st = run_direct(lcp_solvers[s], P, kv, s < 2, s < 2 ? 100 : 100000, 1e-10,
                                        z, &ctx, &info);
                    double t = mcb_now_s() - t0, c = (double)(clock() - c0) / CLOCKS_PER_SEC;
                    printf("%s,%d,%d,%s,%d,%s,%d,%d,%.4g,%.4g,%.3g\n", kind ? "unsym" : "spd", m,
                           mcb_csc_nnz(P->W), lcp_solvers[s], strategy, mcb_status_name(st),
                           info.iterations, info.inner_iterations, t, c, natural_merit(P, z));
                    fflush(stdout);
                }
            free(z);
            mcb_problem_free(&P);
        }
    return 0;
}

static int trace(void)
{
    mcb_problem *P = random_lcp(2000, LCP_UNSYM, 2024, NULL);
    double *z = malloc(2000 * sizeof(double));
    printf("solver,strategy,iteration,own_residual\n");
    for (int s = 0; s < 2; s++)
        for (int strategy = 0; strategy < 2; strategy++) {
            const char *kv[1] = {strategy ? "strategy=1" : "strategy=0"};
            trace_ctx ctx;
            mcb_info info;
            run_direct(lcp_solvers[s], P, kv, 1, 100, 1e-15, z, &ctx, &info);
            for (int k = 0; k < ctx.n; k++)
                printf("%s,%d,%d,%.3e\n", lcp_solvers[s], strategy, k + 1, ctx.res[k]);
        }
    free(z);
    mcb_problem_free(&P);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "bench") == 0) return bench(argc, argv);
    if (argc > 1 && strcmp(argv[1], "trace") == 0) return trace();
    Suite *s = suite_create("lcp_newton");
    TCase *tc = tcase_create("lcp solvers");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, newton_random_planted, 0, 20); /* 12-19: with compliance */
    tcase_add_loop_test(tc, fixed_point_random_planted, 0, 2);
    tcase_add_test(tc, projected_line_search);
    tcase_add_test(tc, gmres_lu_preconditioner);
    tcase_add_test(tc, newton_quadratic_convergence);
    tcase_add_test(tc, mlcp_planted);
    tcase_add_test(tc, stewart_trinkle_particle);
    tcase_add_test(tc, degenerate);
    tcase_add_test(tc, infeasible);
    tcase_add_test(tc, stagnation_status);
    tcase_add_test(tc, fixed_point_ncp_contact);
    tcase_add_test(tc, harness_verdicts);
    tcase_add_test(tc, no_allocation_in_loop);
    tcase_add_test(tc, umfpack_agrees_with_klu);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, bad_params_and_null);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

/* lemke.c: Lemke's complementary pivoting method for the LCP and the MLCP.
 *
 * RPIsim's pivotal method (RPIsim paper Sec. 4, Table 1: "Lemke, LCP,
 * pivotal method"); the algorithm is Lemke's (Lemke 1965; Cottle, Pang,
 * Stone, "The Linear Complementarity Problem", 1992, Sec. 4.4 for the
 * scheme with a covering vector, Sec. 4.9 for lexicographic degeneracy
 * resolution). The problem is a dual-form mcb_problem, u = W z + q with the
 * blocks all unilateral (0 <= z_i ⊥ u_i >= 0) or bilateral (z_i free,
 * u_i = 0: the mixed rows of an MLCP); W may be unsymmetric with zero
 * diagonal entries (the Stewart-Trinkle LCP, RPIsim eq. (7)).
 *
 * The augmented system  w - W z - d z0 = q  (d: the covering vector, `cover`
 * on every unilateral row, 0 on the bilateral ones) is pivoted on a dense
 * basis inverse B^-1 (m x m, column-major), starting from the basis of the
 * w's (B = I, x_B = q):
 *   1. free pivots: each bilateral row's z_i enters, in row order, replacing
 *      the w_k of a bilateral row not yet swapped with the largest |pivot|
 *      (partial pivoting); w_F never re-enter and z_F never leave (they are
 *      unrestricted: the ratio test ignores their rows). A singular W_FF
 *      stops the solver (stalled, with the reason);
 *   2. if the unilateral basic values are all >= 0, the basis is a solution;
 *      otherwise z0 enters and the row with the smallest x_r / d_r leaves
 *      (the start of the almost-complementary path);
 *   3. complementary pivoting: the complement of the variable that left
 *      enters; the minimum-ratio test over the restricted basic rows picks
 *      the leaving one; ties are resolved by z0 first (it ends the path),
 *      then lexicographically (the rows of [x_B, B^-1] restricted to the
 *      unilateral columns, each divided by its pivot entry: the perturbed
 *      right-hand side q + (eps, eps^2, ...) of Cottle-Pang-Stone Sec. 4.9,
 *      which excludes cycling); ends when z0 leaves (solved), when no row
 *      bounds the entering variable (ray termination: stalled, "ray
 *      termination (no solution found)": for a copositive-plus W the LCP is
 *      then infeasible, otherwise Lemke's method simply failed), or at the
 *      pivot limit (stalled, "pivot limit").
 * A pivot is a rank-one update of B^-1 (O(m^2), its columns in parallel
 * under OpenMP: independent, deterministic) and of x_B. At the end x_B is
 * refined by `refine` steps x_B += B^-1 (q - B x_B) against the true basis
 * columns, so complementarity holds to round-off (the harness then
 * recomputes u = W z + q itself).
 *
 * One pivot is one iteration for the callback (the free pivots included);
 * own residual: z0, the artificial variable (0 once solved). Dense only:
 * problems with m > max_dense (default 4000, B^-1 then takes 128 MB) are
 * refused at setup (setup-failed, with the reason); there are no sparse LU
 * updates. Allocates only in setup; solve() restarts from z = 0 every time
 * (warm_start is ignored: Lemke's path starts at the w basis). Per-row
 * compliance r (mcb_problem.h) is honoured: the pivots run on
 * W + diag(r) (lcp_rows.h's mcb_lcp_matrix, built once in setup). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/lcp_rows.h"
#include "solvers/solver.h"

typedef struct {
    int max_pivots;   /* pivot limit; 0: 25 (m + 1) */
    int max_dense;    /* largest m accepted (dense B^-1) */
    double cover;     /* covering vector entry (d = cover on unilateral rows) */
    double piv_tol;   /* pivot entries below piv_tol max|y| count as zero */
    double tie_tol;   /* relative tolerance of a tie in the ratio test */
    int refine;       /* iterative refinement steps of x_B at the end */
    double z0_tol;    /* z0 below z0_tol times its first value: a solution */
} lemke_params;

static void lemke_defaults(void *p)
{
    lemke_params *q = p;
    q->max_pivots = 0;
    q->max_dense = 4000;
    q->cover = 1.0;
    q->piv_tol = 1e-9;
    q->tie_tol = 1e-12;
    q->refine = 2;
    q->z0_tol = 1e-11;
}

static const mcb_param_desc lemke_desc[] = {
    {"max_pivots", 'i', offsetof(lemke_params, max_pivots),
     "pivot limit, after which the solver stops (stalled, \"pivot limit\"); 0: 25 (m + 1) "
     "(random P-matrix LCPs take about m pivots)"},
    {"max_dense", 'i', offsetof(lemke_params, max_dense),
     "largest number of rows accepted: the basis inverse is dense (8 m^2 bytes: 128 MB at the "
     "default 4000, which takes the default stack's Stewart-Trinkle LCP with n_d = 8, m = "
     "3250); larger problems fail at setup with the reason"},
    {"cover", 'd', offsetof(lemke_params, cover),
     "entry of the covering vector d on every unilateral row, > 0 (1: all ones)"},
    {"piv_tol", 'd', offsetof(lemke_params, piv_tol),
     "a pivot entry |y_r| <= piv_tol max|y| counts as zero, in [0, 1e-3] (1e-9: smaller ones "
     "let round-off fake a ray on ill-conditioned LCPs, e.g. FCLIB Capsules with n_d = 4)"},
    {"tie_tol", 'd', offsetof(lemke_params, tie_tol),
     "relative tolerance under which two ratios tie and the lexicographic rule decides, in "
     "[0, 1e-3] (1e-12)"},
    {"refine", 'i', offsetof(lemke_params, refine),
     "iterative refinement steps x_B += B^-1 (q - B x_B) on the final basis, in [0, 10] (2)"},
    {"z0_tol", 'd', offsetof(lemke_params, z0_tol),
     "z0 at or below z0_tol times its value after the first pivot ends the path (a degenerate "
     "end: z0 is pivoted out if it can be), in [0, 1e-3] (1e-11)"},
};

/* Variables: w_i is i, z_i is m + i, z0 is 2 m. */
typedef struct {
    const mcb_problem *P;
    lemke_params prm;
    int m, max_pivots;
    const mcb_csc *W;  /* P->W, or Wown */
    mcb_csc *Wown;     /* W + diag(r) when P has compliance */
    const double *q;
    double *Binv;   /* m x m column-major: Binv[c m + r] */
    double *x;      /* basic values, by row */
    double *y;      /* B^-1 times the entering column */
    double *res;    /* refinement residual */
    double *tmp;    /* B^-1 res */
    double *d;      /* covering vector (0 on bilateral rows) */
    int *basis;     /* variable of each row */
    int *pos;       /* row of each variable (2 m + 1), -1 when nonbasic */
    char *bil;      /* 1 on bilateral rows */
    int *ucol;      /* unilateral rows, nu of them: the lexicographic columns */
    int nu;
    int *cand;      /* ratio-test candidates */
    double *val;    /* their current lexicographic values */
} lemke_work;

static void lemke_free(void **work)
{
    if (!work || !*work) return;
    lemke_work *w = *work;
    mcb_csc_free(&w->Wown);
    free(w->Binv);
    free(w->x);
    free(w->y);
    free(w->res);
    free(w->tmp);
    free(w->d);
    free(w->basis);
    free(w->pos);
    free(w->bil);
    free(w->ucol);
    free(w->cand);
    free(w->val);
    free(w);
    *work = NULL;
}

static mcb_rc lemke_check(const void *params, mcb_err *err)
{
    const lemke_params *p = params;
    if (p->max_pivots < 0)
        return mcb_fail(err, MCB_E_INPUT, "lemke.max_pivots = %d must be >= 0", p->max_pivots);
    if (p->max_dense < 1 || p->max_dense > 46340)
        return mcb_fail(err, MCB_E_INPUT, "lemke.max_dense = %d must lie in [1, 46340]",
                        p->max_dense);
    if (!(p->cover > 0.0))
        return mcb_fail(err, MCB_E_INPUT, "lemke.cover = %g must be > 0", p->cover);
    if (!(p->piv_tol >= 0.0 && p->piv_tol <= 1e-3))
        return mcb_fail(err, MCB_E_INPUT, "lemke.piv_tol = %g must lie in [0, 1e-3]", p->piv_tol);
    if (!(p->tie_tol >= 0.0 && p->tie_tol <= 1e-3))
        return mcb_fail(err, MCB_E_INPUT, "lemke.tie_tol = %g must lie in [0, 1e-3]", p->tie_tol);
    if (!(p->z0_tol >= 0.0 && p->z0_tol <= 1e-3))
        return mcb_fail(err, MCB_E_INPUT, "lemke.z0_tol = %g must lie in [0, 1e-3]", p->z0_tol);
    if (p->refine < 0 || p->refine > 10)
        return mcb_fail(err, MCB_E_INPUT, "lemke.refine = %d must lie in [0, 10]", p->refine);
    return MCB_OK;
}

static void start_basis(lemke_work *w);

static mcb_rc lemke_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                          void **work, mcb_err *err)
{
    (void)s;
    *work = NULL;
    mcb_rc rc = lemke_check(params, err);
    if (rc) return rc;
    char why[256];
    if (!mcb_accepts_lcp(P, why, sizeof why)) return mcb_fail(err, MCB_E_INPUT, "lemke: %s", why);
    const lemke_params *prm = params;
    if (!mcb_all_finite(P->m, P->q) || !mcb_all_finite(mcb_csc_nnz(P->W), P->W->x))
        return mcb_fail(err, MCB_E_INPUT, "lemke: W or q has non-finite entries");
    if (P->m > prm->max_dense)
        return mcb_fail(err, MCB_E_INPUT,
                        "lemke: m = %d rows > max_dense = %d (the dense basis inverse would take "
                        "%.0f MB; lemke has no sparse LU updates; raise lemke.max_dense to try)",
                        P->m, prm->max_dense, 8.0 * P->m * (double)P->m / 1e6);
    lemke_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *prm;
    w->m = P->m;
    w->q = P->q;
    if (!(w->W = mcb_lcp_matrix(P, &w->Wown))) { /* u = (W + diag(r)) z + q */
        free(w);
        return mcb_fail(err, MCB_E_NOMEM, "lemke: out of memory");
    }
    w->max_pivots = prm->max_pivots > 0 ? prm->max_pivots : 25 * (P->m + 1);
    size_t m = (size_t)P->m + 1;
    w->Binv = mcb_malloc(m * m, sizeof(double));
    w->x = mcb_calloc(m, sizeof(double));
    w->y = mcb_calloc(m, sizeof(double));
    w->res = mcb_calloc(m, sizeof(double));
    w->tmp = mcb_calloc(m, sizeof(double));
    w->d = mcb_calloc(m, sizeof(double));
    w->basis = mcb_calloc(m, sizeof(int));
    w->pos = mcb_calloc(2 * m + 1, sizeof(int));
    w->bil = mcb_calloc(m, 1);
    w->ucol = mcb_calloc(m, sizeof(int));
    w->cand = mcb_calloc(m, sizeof(int));
    w->val = mcb_calloc(m, sizeof(double));
    if (!w->Binv || !w->x || !w->y || !w->res || !w->tmp || !w->d || !w->basis || !w->pos || !w->bil ||
        !w->ucol || !w->cand || !w->val) {
        lemke_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "lemke: out of memory for the %d x %d basis inverse",
                        P->m, P->m);
    }
    for (int b = 0; b < P->nblocks; b++)
        for (int r = P->blocks[b].row; r < P->blocks[b].row + P->blocks[b].nrows; r++)
            w->bil[r] = P->blocks[b].type == MCB_BILATERAL;
    for (int r = 0; r < P->m; r++) {
        w->d[r] = w->bil[r] ? 0.0 : prm->cover;
        if (!w->bil[r]) w->ucol[w->nu++] = r;
    }
    start_basis(w); /* z = 0 until solve() */
    *work = w;
    return MCB_OK;
}

/* ---- the basis ---- */

static int is_free(const lemke_work *w, int var)
{
    return var >= w->m && var < 2 * w->m && w->bil[var - w->m];
}

static int complement(const lemke_work *w, int var) { return var < w->m ? var + w->m : var - w->m; }

/* y = B^-1 a_var, a_var the variable's column in [I, -W, -d]. */
static void entering_column(lemke_work *w, int var)
{
    int m = w->m;
    const double *B = w->Binv;
    double *y = w->y;
    if (var < m) {
        memcpy(y, B + (size_t)var * m, (size_t)m * sizeof(double));
        return;
    }
    memset(y, 0, (size_t)m * sizeof(double));
    if (var < 2 * m) {
        const mcb_csc *W = w->W;
        int j = var - m;
        for (int p = W->p[j]; p < W->p[j + 1]; p++) {
            double a = -W->x[p];
            const double *col = B + (size_t)W->i[p] * m;
            for (int r = 0; r < m; r++) y[r] += a * col[r];
        }
    } else {
        for (int c = 0; c < m; c++) {
            if (w->d[c] == 0.0) continue;
            double a = -w->d[c];
            const double *col = B + (size_t)c * m;
            for (int r = 0; r < m; r++) y[r] += a * col[r];
        }
    }
}

/* Below this many rows the pivot's update runs serial (a parallel region
 * costs more than it saves, and libgomp allocates at its first one). */
#define LEMKE_OMP_MIN 256

/* One column of B^-1 through the elimination with pivot row r: the row
 * scaled by t = 1 / y_r, y times it subtracted from the other rows. */
static void eliminate(double *col, const double *y, int m, int r, double t)
{
    double br = col[r] * t;
    if (br != 0.0)
        for (int i = 0; i < m; i++) col[i] -= y[i] * br;
    col[r] = br;
}

/* Pivots variable var into row r (pivot entry y_r): B^-1 and x_B updated
 * by the rank-one elimination; returns the variable that left. */
static int pivot(lemke_work *w, int r, int var)
{
    int m = w->m;
    double *B = w->Binv, *y = w->y, *x = w->x;
    double t = 1.0 / y[r];
    if (m >= LEMKE_OMP_MIN) {
#pragma omp parallel for schedule(static)
        for (int c = 0; c < m; c++) eliminate(B + (size_t)c * m, y, m, r, t);
    } else {
        for (int c = 0; c < m; c++) eliminate(B + (size_t)c * m, y, m, r, t);
    }
    double xr = x[r] * t;
    for (int i = 0; i < m; i++) x[i] -= y[i] * xr;
    x[r] = xr;
    int left = w->basis[r];
    w->pos[left] = -1;
    w->basis[r] = var;
    w->pos[var] = r;
    return left;
}

/* Among the nc candidate rows in w->cand, the lexicographically smallest
 * row of [x_B, B^-1(:, unilateral columns)] divided by sgn y_r (ties within
 * tie_tol relative); returns its row. */
static int lexmin(lemke_work *w, int nc, double sgn)
{
    int m = w->m, *cand = w->cand;
    double *val = w->val, tol = w->prm.tie_tol;
    for (int k = -1; k < w->nu && nc > 1; k++) {
        double vmin = INFINITY, vmax = 0.0;
        for (int a = 0; a < nc; a++) {
            int r = cand[a];
            double num = k < 0 ? w->x[r] : w->Binv[(size_t)w->ucol[k] * m + r];
            val[a] = num / (sgn * w->y[r]);
            if (val[a] < vmin) vmin = val[a];
            if (fabs(val[a]) > vmax) vmax = fabs(val[a]);
        }
        int keep = 0;
        for (int a = 0; a < nc; a++)
            if (val[a] <= vmin + tol * vmax) cand[keep++] = cand[a];
        nc = keep;
    }
    return cand[0]; /* several left only if rows of B^-1 coincide: B singular */
}

/* The minimum-ratio test for the entering column w->y: the leaving row, or
 * -1 when no restricted row bounds it (a ray). */
static int ratio_test(lemke_work *w)
{
    int m = w->m;
    double ymax = 0.0;
    for (int r = 0; r < m; r++)
        if (!is_free(w, w->basis[r]) && fabs(w->y[r]) > ymax) ymax = fabs(w->y[r]);
    double ytol = w->prm.piv_tol * ymax;
    double tmin = INFINITY;
    for (int r = 0; r < m; r++) {
        if (is_free(w, w->basis[r]) || !(w->y[r] > ytol) || w->y[r] <= 0.0) continue;
        double t = w->x[r] > 0.0 ? w->x[r] / w->y[r] : 0.0;
        if (t < tmin) tmin = t;
    }
    if (!isfinite(tmin)) return -1;
    double xmax = 0.0;
    for (int r = 0; r < m; r++)
        if (fabs(w->x[r]) > xmax) xmax = fabs(w->x[r]);
    /* a tie: within tie_tol relative, or within the round-off of a ratio */
    double slack = w->prm.tie_tol * (tmin > 0.0 ? tmin : 0.0) + 1e-15 * xmax / ymax;
    int nc = 0, z0row = -1;
    for (int r = 0; r < m; r++) {
        if (is_free(w, w->basis[r]) || !(w->y[r] > ytol) || w->y[r] <= 0.0) continue;
        double t = w->x[r] > 0.0 ? w->x[r] / w->y[r] : 0.0;
        if (t <= tmin + slack) {
            w->cand[nc++] = r;
            if (w->basis[r] == 2 * m) z0row = r;
        }
    }
    if (z0row >= 0) return z0row;
    return nc == 1 ? w->cand[0] : lexmin(w, nc, 1.0);
}

/* res -= B v, B's columns those of the basic variables in [I, -W, -d]. */
static void minus_basis_times(const lemke_work *w, const double *v, double *res)
{
    int m = w->m;
    const mcb_csc *W = w->W;
    for (int r = 0; r < m; r++) {
        int var = w->basis[r];
        double vr = v[r];
        if (vr == 0.0) continue;
        if (var < m) {
            res[var] -= vr;
        } else if (var < 2 * m) {
            int j = var - m;
            for (int p = W->p[j]; p < W->p[j + 1]; p++) res[W->i[p]] += W->x[p] * vr;
        } else {
            for (int i = 0; i < m; i++) res[i] += w->d[i] * vr;
        }
    }
}

/* v += B^-1 res (through w->tmp) */
static void add_binv_times(lemke_work *w, const double *res, double *v)
{
    int m = w->m;
    memset(w->tmp, 0, (size_t)m * sizeof(double));
    for (int c = 0; c < m; c++) {
        double a = res[c];
        if (a == 0.0) continue;
        const double *col = w->Binv + (size_t)c * m;
        for (int r = 0; r < m; r++) w->tmp[r] += a * col[r];
    }
    for (int r = 0; r < m; r++) v[r] += w->tmp[r];
}

/* x_B += B^-1 (q - B x_B), `refine` times. */
static void refine(lemke_work *w)
{
    for (int it = 0; it < w->prm.refine; it++) {
        memcpy(w->res, w->q, (size_t)w->m * sizeof(double));
        minus_basis_times(w, w->x, w->res);
        add_binv_times(w, w->res, w->x);
    }
}

/* The entering column refined once, y += B^-1 (a_var - B y), and x_B
 * refined: before a ray is declared, so that the drift of B^-1 over many
 * pivots cannot fake one. */
static void refine_column(lemke_work *w, int var)
{
    int m = w->m;
    double *res = w->res;
    memset(res, 0, (size_t)m * sizeof(double));
    if (var < m) {
        res[var] = 1.0;
    } else if (var < 2 * m) {
        const mcb_csc *W = w->W;
        for (int p = W->p[var - m]; p < W->p[var - m + 1]; p++) res[W->i[p]] = -W->x[p];
    } else {
        for (int i = 0; i < m; i++) res[i] = -w->d[i];
    }
    minus_basis_times(w, w->y, res);
    add_binv_times(w, res, w->y);
    refine(w);
}

/* The starting basis: the w's, B = I, x_B = q. */
static void start_basis(lemke_work *w)
{
    int m = w->m;
    memset(w->Binv, 0, (size_t)m * (size_t)m * sizeof(double));
    for (int r = 0; r < m; r++) {
        w->Binv[(size_t)r * m + r] = 1.0;
        w->x[r] = w->q[r];
        w->basis[r] = r;
    }
    for (int v = 0; v <= 2 * m; v++) w->pos[v] = v < m ? v : -1;
}

static double z0_value(const lemke_work *w)
{
    int r = w->pos[2 * w->m];
    return r >= 0 ? w->x[r] : 0.0;
}

/* Calls back after a pivot; returns -1 to go on, else the status. */
static int after_pivot(lemke_work *w, int npiv, const mcb_settings *s, mcb_iter_cb cb,
                       void *ctx, mcb_info *info)
{
    info->iterations = npiv;
    info->own_residual = z0_value(w);
    if (!isfinite(info->own_residual) || !mcb_all_finite(w->m, w->x)) {
        snprintf(info->reason, sizeof info->reason, "non-finite basic values after pivot %d",
                 npiv);
        return MCB_ST_DIVERGED;
    }
    mcb_cb_action a = cb(ctx, npiv, info->own_residual);
    if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
    if (npiv >= s->max_iters) return MCB_ST_MAX_ITERS;
    return -1;
}

static int solved(lemke_work *w, int npiv, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                  mcb_info *info, const char *how)
{
    refine(w);
    snprintf(info->reason, sizeof info->reason, "%s after %d pivots", how, npiv);
    if (npiv == 0) {
        info->iterations = 0;
        info->own_residual = 0.0;
        return MCB_ST_SOLVED;
    }
    int st = after_pivot(w, npiv, s, cb, ctx, info);
    return st < 0 || st == MCB_ST_MAX_ITERS ? MCB_ST_SOLVED : st;
}

/* A ray met with z0 below this fraction of its first value is taken as a
 * degenerate end (the basis is a solution up to z0 d); the harness judges. */
#define RAY_Z0_TOL 1e-6

/* z0 = 0 up to round-off: the basis is a solution; either variable of the
 * nonbasic complementary pair (the complement of `left`, or `left`)
 * replaces z0 by a degenerate pivot when its entry in z0's row is not
 * negligible. */
static int degenerate_end(lemke_work *w, int left, int npiv, const mcb_settings *s,
                          mcb_iter_cb cb, void *ctx, mcb_info *info, const char *why)
{
    int m = w->m, r0 = w->pos[2 * m];
    char how[256];
    for (int k = 0; k < 2; k++) {
        int var = k == 0 ? complement(w, left) : left;
        entering_column(w, var);
        double ymax = 0.0;
        for (int i = 0; i < m; i++) ymax = fabs(w->y[i]) > ymax ? fabs(w->y[i]) : ymax;
        if (fabs(w->y[r0]) > 1e-8 * ymax) {
            pivot(w, r0, var);
            snprintf(how, sizeof how,
                     "%s (degenerate end) and z0 was pivoted out: a solution up to round-off "
                     "(the harness judges)",
                     why);
            return solved(w, npiv + 1, s, cb, ctx, info, how);
        }
    }
    snprintf(how, sizeof how,
             "%s (degenerate end, z0 kept in the basis): a solution up to z0 d (the harness "
             "judges)",
             why);
    return solved(w, npiv, s, cb, ctx, info, how);
}

static int lemke_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                       mcb_info *info)
{
    lemke_work *w = work;
    int m = w->m, npiv = 0, st;
    start_basis(w);
    if (m == 0) return solved(w, 0, s, cb, ctx, info, "no rows: solved");
    /* 1. the free variables in */
    for (int i = 0; i < m; i++) {
        if (!w->bil[i]) continue;
        entering_column(w, m + i);
        int r = -1;
        double best = 0.0, ymax = 0.0;
        for (int k = 0; k < m; k++) ymax = fabs(w->y[k]) > ymax ? fabs(w->y[k]) : ymax;
        for (int k = 0; k < m; k++) {
            int v = w->basis[k];
            if (v < m && w->bil[v] && fabs(w->y[k]) > best) {
                best = fabs(w->y[k]);
                r = k;
            }
        }
        if (r < 0 || best <= 1e-12 * ymax || best == 0.0) {
            snprintf(info->reason, sizeof info->reason,
                     "the bilateral rows' block W_FF is singular (no pivot for the free "
                     "variable of row %d): lemke pivots the free variables in first and needs "
                     "W_FF nonsingular",
                     i);
            info->iterations = npiv;
            return MCB_ST_STALLED;
        }
        pivot(w, r, m + i);
        if ((st = after_pivot(w, ++npiv, s, cb, ctx, info)) >= 0) return st;
    }
    /* 2. already feasible? else z0 in, the most negative x_r / d_r out */
    int nc = 0;
    double xmin = 0.0;
    for (int r = 0; r < m; r++)
        if (!is_free(w, w->basis[r]) && w->x[r] < xmin) xmin = w->x[r];
    if (xmin >= 0.0) return solved(w, npiv, s, cb, ctx, info, "feasible start basis: solved");
    entering_column(w, 2 * m);
    double tmin = INFINITY, vmax = 0.0;
    for (int r = 0; r < m; r++) {
        if (is_free(w, w->basis[r]) || !(w->y[r] < 0.0)) continue;
        double t = w->x[r] / -w->y[r];
        if (t < tmin) tmin = t;
        if (fabs(t) > vmax) vmax = fabs(t);
    }
    for (int r = 0; r < m; r++) {
        if (is_free(w, w->basis[r]) || !(w->y[r] < 0.0)) continue;
        if (w->x[r] / -w->y[r] <= tmin + w->prm.tie_tol * vmax) w->cand[nc++] = r;
    }
    int r = nc == 1 ? w->cand[0] : lexmin(w, nc, -1.0);
    int left = pivot(w, r, 2 * m);
    double z0_first = z0_value(w);
    if ((st = after_pivot(w, ++npiv, s, cb, ctx, info)) >= 0) return st;
    /* 3. complementary pivoting */
    for (;;) {
        if (z0_value(w) <= w->prm.z0_tol * z0_first)
            return degenerate_end(w, left, npiv, s, cb, ctx, info, "z0 reached 0");
        if (npiv >= w->max_pivots) {
            snprintf(info->reason, sizeof info->reason,
                     "pivot limit: %d pivots without a solution (z0 = %.3g; lemke.max_pivots)",
                     npiv, z0_value(w));
            return MCB_ST_STALLED;
        }
        int enter = complement(w, left);
        entering_column(w, enter);
        r = ratio_test(w);
        if (r < 0) { /* a ray, unless B^-1's drift faked it */
            refine_column(w, enter);
            r = ratio_test(w);
        }
        if (r < 0 && z0_value(w) <= RAY_Z0_TOL * z0_first)
            return degenerate_end(w, left, npiv, s, cb, ctx, info,
                                  "a ray with z0 ~ 0 (below 1e-6 of its first value)");
        if (r < 0) {
            snprintf(info->reason, sizeof info->reason,
                     "ray termination (no solution found) at pivot %d, z0 = %.3g: %s_%d "
                     "unbounded (the LCP is infeasible if W is copositive-plus)",
                     npiv + 1, z0_value(w), enter < m ? "w" : "z", enter % m);
            return MCB_ST_STALLED;
        }
        left = pivot(w, r, enter);
        npiv++;
        if (left == 2 * m) return solved(w, npiv, s, cb, ctx, info, "z0 left the basis: solved");
        if ((st = after_pivot(w, npiv, s, cb, ctx, info)) >= 0) return st;
    }
}

/* z: the basic z's values (refined at the end), 0 for the nonbasic ones. */
static void lemke_iterate(void *work, double *v, double *lambda)
{
    (void)v;
    lemke_work *w = work;
    for (int j = 0; j < w->m; j++) {
        int r = w->pos[w->m + j];
        lambda[j] = r >= 0 ? w->x[r] : 0.0;
    }
}

const mcb_solver_def mcb_solver_lemke = {
    .name = "lemke",
    .description = "Lemke's complementary pivoting on the LCP/MLCP u = W z + q (covering "
                   "vector, lexicographic degeneracy resolution, pivot limit; dense basis "
                   "inverse, m <= max_dense)",
    .reference = "RPIsim paper Sec. 4, Table 1; Lemke 1965; Cottle, Pang, Stone 1992 Sec. 4.4, "
                 "4.9",
    .accepts = MCB_ACCEPTS_DUAL,
    .accepts_problem = mcb_accepts_lcp,
    .params_size = sizeof(lemke_params),
    .default_params = lemke_defaults,
    .params = lemke_desc,
    .nparams = (int)(sizeof lemke_desc / sizeof lemke_desc[0]),
    .check_params = lemke_check,
    .setup = lemke_setup,
    .solve = lemke_solve,
    .iterate = lemke_iterate,
    .free = lemke_free,
};

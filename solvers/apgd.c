/* apgd.c: accelerated projected gradient descent on the cone complementarity
 * problem (Mazhar, Heyn, Negrut and Tasora, "Using Nesterov's method to
 * accelerate multibody dynamics with friction and contact", ACM TOG 2015,
 * Alg. 2 "APGD"; the solver of Project Chrono).
 *
 * The CCP is the optimality condition of the convex quadratic program
 *     min f(x) = 1/2 x^T N x + r^T x   over  x in K = prod_i K_i
 * on the Delassus form (lib/mcb_delassus.h): N = W, r = q, with K_i the
 * friction cone of a contact (either law: APGD solves the CCP; the harness
 * judges it by the run's --law), R+ for a unilateral row, R for a bilateral
 * row. A soft row (lambda = -k (e + alpha J v), u = J v + e) is the compliant
 * bilateral row u + lambda / (k alpha) + (1 - alpha) e / alpha = 0: N gains
 * 1/(k alpha) on its diagonal and r the offset; with k alpha = 0 the impulse
 * is fixed at -k e (K_i a point). One iteration k (Alg. 2):
 *   g = N y + r                                  gradient at the extrapolation
 *   x' = P_K(y - t g)                            projected step, t = 1/L
 *   while f(x') > f(y) + g^T (x' - y) + L/2 ||x' - y||^2:  L = 2 L (backtracking)
 *   theta' = (-theta^2 + theta sqrt(theta^2 + 4)) / 2
 *   beta = theta (1 - theta) / (theta^2 + theta')
 *   y = x' + beta (x' - x)                       Nesterov momentum
 *   if g^T (x' - x) > 0: y = x', theta' = 1      adaptive restart
 *   L = 0.9 L                                    (Alg. 2's step growth)
 * and the projected-gradient residual of x',
 *     res(x) = ||x - P_K(x - h (N x + r))|| / h,  h = 1/L0 fixed per problem,
 * picks the best iterate, which is what the solver returns (iterate()).
 * L0 = ||N 1|| / ||1|| (Chrono's estimate from a unit vector). Two products
 * with W per iteration plus one per backtracking step; each is row-parallel
 * (OpenMP) over W^T's columns, so results do not depend on the thread count.
 * Own residual: the best res so far. Statuses: diverged (non-finite
 * iterate), stalled (the backtracking doubled L 60 times without meeting
 * the sufficient-decrease test, or res_tol met). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/delassus_loop.h"
#include "lib/mcb_cone.h"
#include "solvers/solver.h"

typedef struct {
    int restart;     /* 1: adaptive restart on; 0: off */
    double shrink;   /* L *= shrink after each iteration (Alg. 2: 0.9) */
    double res_tol;  /* stop (stalled) when res falls below this (0: never) */
    double L0_scale; /* multiplies the initial Lipschitz estimate */
} apgd_params;

static void apgd_defaults(void *p)
{
    apgd_params *q = p;
    q->restart = 1;
    q->shrink = 0.9;
    q->res_tol = 0.0;
    q->L0_scale = 1.0;
}

static const mcb_param_desc apgd_desc[] = {
    {"restart", 'i', offsetof(apgd_params, restart),
     "1: adaptive restart when g^T (x' - x) > 0 (O'Donoghue-Candes, as in Chrono); 0: off"},
    {"shrink", 'd', offsetof(apgd_params, shrink),
     "L is multiplied by this after each iteration, in (0, 1] (Alg. 2: 0.9; 1: L only grows)"},
    {"res_tol", 'd', offsetof(apgd_params, res_tol),
     "stop when the projected-gradient residual falls below this (0: only the harness stops it)"},
    {"L0_scale", 'd', offsetof(apgd_params, L0_scale),
     "multiplies the initial Lipschitz estimate ||W 1|| / ||1||, > 0"},
};

#define APGD_MAX_BACKTRACK 60

typedef struct {
    const mcb_problem *P;
    apgd_params prm;
    mcb_delassus *D;
    int m;
    double *c;     /* m: compliance added to N's diagonal (soft rows) */
    double *r;     /* m: q plus the soft offsets */
    double *fixed; /* m: NaN, or the fixed impulse of a soft row with k alpha = 0 */
    double *x, *xn, *y, *g, *Ny, *Nx, *tmp, *best;
    double L, h, theta, best_res;
} apgd_work;

static void apgd_free(void **work)
{
    if (!work || !*work) return;
    apgd_work *w = *work;
    mcb_delassus_free(&w->D);
    double **v[] = {&w->c, &w->r, &w->fixed, &w->x, &w->xn, &w->y,
                    &w->g, &w->Ny, &w->Nx,   &w->tmp, &w->best};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) free(*v[k]);
    free(w);
    *work = NULL;
}

static mcb_rc apgd_check(const void *params, mcb_err *err)
{
    const apgd_params *p = params;
    if (p->restart != 0 && p->restart != 1)
        return mcb_fail(err, MCB_E_INPUT, "apgd.restart = %d must be 0 or 1", p->restart);
    if (!(p->shrink > 0.0 && p->shrink <= 1.0))
        return mcb_fail(err, MCB_E_INPUT, "apgd.shrink = %g must lie in (0, 1]", p->shrink);
    if (!(p->res_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "apgd.res_tol = %g must be >= 0", p->res_tol);
    if (!(p->L0_scale > 0.0))
        return mcb_fail(err, MCB_E_INPUT, "apgd.L0_scale = %g must be > 0", p->L0_scale);
    return MCB_OK;
}

/* out = N x: row r is column r of W^T (W's row r) dotted with x, plus the
 * compliance; row-parallel, each row summed in a fixed order. */
static void mult_N(const apgd_work *w, const double *x, double *out)
{
    const mcb_csc *WT = w->D->WT;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < w->m; r++) {
        double s = 0.0;
        for (int k = WT->p[r]; k < WT->p[r + 1]; k++) s += WT->x[k] * x[WT->i[k]];
        out[r] = s + w->c[r] * x[r];
    }
}

/* out = P_K(x), block by block (in and out may alias). */
static void project(const apgd_work *w, const double *x, double *out)
{
    const mcb_problem *P = w->P;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r0 = B->row;
        if (mcb_is_contact(B->type)) {
            mcb_proj_cone(B->mu, x + r0, out + r0);
            continue;
        }
        for (int r = r0; r < r0 + B->nrows; r++) {
            if (B->type == MCB_UNILATERAL) out[r] = x[r] > 0.0 ? x[r] : 0.0;
            else if (B->type == MCB_SOFT && !isnan(w->fixed[r])) out[r] = w->fixed[r];
            else out[r] = x[r];
        }
    }
}

/* f(x) = 1/2 x^T Nx + r^T x, given Nx */
static double objective(const apgd_work *w, const double *x, const double *Nx)
{
    double s = 0.0;
    for (int k = 0; k < w->m; k++) s += x[k] * (0.5 * Nx[k] + w->r[k]);
    return s;
}

/* ||x - P_K(x - h (Nx + r))|| / h, with Nx given */
static double pg_residual(apgd_work *w, const double *x, const double *Nx)
{
    for (int k = 0; k < w->m; k++) w->tmp[k] = x[k] - w->h * (Nx[k] + w->r[k]);
    project(w, w->tmp, w->tmp);
    double s = 0.0;
    for (int k = 0; k < w->m; k++) s += (x[k] - w->tmp[k]) * (x[k] - w->tmp[k]);
    return sqrt(s) / w->h;
}

static mcb_rc apgd_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                         void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = apgd_check(params, err);
    if (rc) return rc;
    apgd_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const apgd_params *)params;
    int m = w->m = P->m;
    double **v[] = {&w->c, &w->r, &w->fixed, &w->x, &w->xn, &w->y,
                    &w->g, &w->Ny, &w->Nx,   &w->tmp, &w->best};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        if (!(*v[k] = mcb_calloc((size_t)m + 1, sizeof(double)))) {
            apgd_free((void **)&w);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
    if ((rc = mcb_delassus_build(P, &w->D, err))) {
        apgd_free((void **)&w);
        return rc;
    }
    memcpy(w->r, w->D->q, (size_t)m * sizeof(double));
    for (int r = 0; r < m; r++) w->fixed[r] = NAN;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        if (B->type != MCB_SOFT) continue;
        double ka = B->k * B->alpha;
        for (int r = B->row; r < B->row + B->nrows; r++) {
            if (ka > 0.0) {
                w->c[r] = 1.0 / ka;
                w->r[r] += (1.0 - B->alpha) / B->alpha * P->e[r];
            } else {
                w->fixed[r] = -B->k * P->e[r];
            }
        }
    }
    /* L0 = ||N 1|| / ||1|| */
    for (int r = 0; r < m; r++) w->tmp[r] = 1.0;
    mult_N(w, w->tmp, w->Nx);
    double L0 = m > 0 ? mcb_norm2(m, w->Nx) / sqrt((double)m) : 1.0;
    if (!(L0 > 0.0) || !isfinite(L0)) L0 = 1.0;
    w->L = L0 * w->prm.L0_scale;
    w->h = 1.0 / w->L;
    /* x0: the initial impulses projected (warm start), else 0 */
    if (s->warm_start && P->lambda0) memcpy(w->x, P->lambda0, (size_t)m * sizeof(double));
    project(w, w->x, w->x);
    memcpy(w->y, w->x, (size_t)m * sizeof(double));
    memcpy(w->best, w->x, (size_t)m * sizeof(double));
    w->theta = 1.0;
    w->best_res = INFINITY;
    *work = w;
    return MCB_OK;
}

/* x' = P_K(y - g / L) and N x'; doubles L until the sufficient-decrease
 * test of Alg. 2 holds. Returns 0, or -1 when it never holds. */
static int backtrack(apgd_work *w, double fy)
{
    int m = w->m;
    for (int bt = 0; bt <= APGD_MAX_BACKTRACK; bt++) {
        double t = 1.0 / w->L;
        for (int k = 0; k < m; k++) w->xn[k] = w->y[k] - t * w->g[k];
        project(w, w->xn, w->xn);
        mult_N(w, w->xn, w->Nx);
        double fx = objective(w, w->xn, w->Nx), lin = 0.0, d2 = 0.0;
        for (int k = 0; k < m; k++) {
            double d = w->xn[k] - w->y[k];
            lin += w->g[k] * d;
            d2 += d * d;
        }
        double bound = fy + lin + 0.5 * w->L * d2;
        /* a relative slack: near the solution both sides agree to rounding */
        if (fx <= bound + 1e-14 * (fabs(fy) + fabs(fx)) || !isfinite(fx)) return 0;
        w->L *= 2.0;
    }
    return -1;
}

/* One APGD iteration; returns the projected-gradient residual of x', or
 * -1 when the backtracking failed. */
static double apgd_step(apgd_work *w)
{
    int m = w->m;
    mult_N(w, w->y, w->Ny);
    for (int k = 0; k < m; k++) w->g[k] = w->Ny[k] + w->r[k];
    double fy = objective(w, w->y, w->Ny);
    if (backtrack(w, fy)) return -1.0;
    double th = w->theta, thn = 0.5 * (-th * th + th * sqrt(th * th + 4.0));
    double beta = th * (1.0 - th) / (th * th + thn), gd = 0.0;
    for (int k = 0; k < m; k++) gd += w->g[k] * (w->xn[k] - w->x[k]);
    if (w->prm.restart && gd > 0.0) { /* adaptive restart */
        memcpy(w->y, w->xn, (size_t)m * sizeof(double));
        thn = 1.0;
    } else {
        for (int k = 0; k < m; k++) w->y[k] = w->xn[k] + beta * (w->xn[k] - w->x[k]);
    }
    memcpy(w->x, w->xn, (size_t)m * sizeof(double));
    w->theta = thn;
    w->L *= w->prm.shrink;
    double res = pg_residual(w, w->x, w->Nx);
    if (res < w->best_res || isnan(res)) {
        w->best_res = res;
        memcpy(w->best, w->x, (size_t)m * sizeof(double));
    }
    return res;
}

static int apgd_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                      mcb_info *info)
{
    apgd_work *w = work;
    for (int it = 1; it <= s->max_iters; it++) {
        double res = apgd_step(w);
        info->iterations = it;
        if (res < 0.0) {
            snprintf(info->reason, sizeof info->reason,
                     "backtracking: L doubled %d times without sufficient decrease (L = %g)",
                     APGD_MAX_BACKTRACK, w->L);
            return MCB_ST_STALLED;
        }
        info->own_residual = w->best_res;
        if (!isfinite(res) || !mcb_all_finite(w->m, w->x)) {
            snprintf(info->reason, sizeof info->reason, "non-finite iterate at iteration %d",
                     it);
            return MCB_ST_DIVERGED;
        }
        mcb_cb_action a = cb(ctx, it, info->own_residual);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
        if (w->best_res <= w->prm.res_tol) {
            snprintf(info->reason, sizeof info->reason,
                     "projected-gradient residual %g <= res_tol", w->best_res);
            return MCB_ST_STALLED;
        }
    }
    return MCB_ST_MAX_ITERS;
}

static void apgd_iterate(void *work, double *v, double *lambda)
{
    apgd_work *w = work;
    mcb_delassus_iterate(w->D, w->best, v, lambda);
}

const mcb_solver_def mcb_solver_apgd = {
    .name = "apgd",
    .description = "accelerated projected gradient descent on the CCP (Nesterov momentum, "
                   "Lipschitz backtracking, adaptive restart, best iterate by its "
                   "projected-gradient residual) over the sparse Delassus operator",
    .reference = "Mazhar, Heyn, Negrut, Tasora 2015 (ACM TOG 34(3)) Alg. 2; Project Chrono "
                 "ChSolverAPGD",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,
    .params_size = sizeof(apgd_params),
    .default_params = apgd_defaults,
    .params = apgd_desc,
    .nparams = (int)(sizeof apgd_desc / sizeof apgd_desc[0]),
    .check_params = apgd_check,
    .setup = apgd_setup,
    .solve = apgd_solve,
    .iterate = apgd_iterate,
    .free = apgd_free,
};

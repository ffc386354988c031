/* ip_lcp.c: a primal-dual interior-point method (Mehrotra predictor-
 * corrector) for the LCP and the MLCP.
 *
 * RPIsim's interior-point solver (RPIsim paper Sec. 4, Table 1:
 * "Interior-point, LCP, iterative method"); the method is the infeasible
 * primal-dual path-following scheme for the monotone LCP (Wright,
 * "Primal-Dual Interior-Point Methods", SIAM 1997, Ch. 8 for the LCP,
 * Ch. 10-11 for Mehrotra's predictor-corrector; Mehrotra 1992). The problem
 * is a dual-form mcb_problem u = W z + q whose blocks are unilateral
 * (0 <= z_i ⊥ u_i >= 0) or bilateral (z_i free, u_i = 0); W may be
 * unsymmetric. With the slack w = u on the unilateral rows U (w_F = 0 on
 * the bilateral rows F, which carry no barrier) the iterates keep
 * z_U, w_U > 0 and drive
 *     r = W z + q - w -> 0,   z_i w_i -> 0 (i in U).
 * One iteration:
 *   1. the Newton system at (z, w) for a complementarity target rc,
 *        W dz - dw = -r,   w_i dz_i + z_i dw_i = rc_i (i in U),   dw_F = 0,
 *      condensed by dw_i = (rc_i - w_i dz_i) / z_i into the m x m system
 *        (W + D) dz = -r + Z^-1 rc,   D = diag(w_i / z_i) on U, 0 on F,
 *      (the Schur complement of the augmented system [W -I; W_s Z]), solved
 *      sparse: symbolic analysis once in setup on the pattern of W plus the
 *      diagonal, one numeric factorization per iteration shared by both
 *      solves; by KLU (lib/mcb_lu.h, refactored in place with the same
 *      pivots), which allocates only when the old pivots degrade and it
 *      repivots (counted, in the reason of a run that stops on its own),
 *      or with `lu` 1 by UMFPACK (fresh pivots and an allocation at every
 *      factorization), or
 *      with `linsolve` 2 by CHOLMOD (lib/mcb_chol.h) when W is symmetric
 *      and every row unilateral (W + D is then positive definite for a PSD
 *      W): 5-8x faster there, but mcb_chol makes its simplicial copy of L
 *      at the first solve after each refactorization, an allocation per
 *      iteration, so it is not the default; nothing else is allocated after
 *      setup;
 *   2. predictor: rc = -z∘w, the largest step alpha_a <= 1 keeping z_U, w_U
 *      >= 0, mu_a = (z + alpha_a dz)·(w + alpha_a dw) / |U|, centring
 *      sigma = (mu_a / mu)^3;
 *   3. corrector: rc = sigma mu - z∘w - dz_a∘dw_a, the same factor;
 *   4. one step length alpha = min(1, eta alpha_max) for z and w (r then
 *      shrinks by 1 - alpha), and r recomputed from scratch.
 * The start is z_U = start, z_F = 0, w_U = max(start, |u_i|).
 * Stops on its own: non-finite iterate or direction (diverged), ||z|| above
 * div_bound (diverged: an infeasible LCP drives the iterates off), a
 * singular Newton matrix (stalled), and stagnation (stalled): the merit
 * max(mu, ||r||_inf) not halved in `stall_iters` iterations, or a step
 * shorter than 1e-12. The barrier and the centring handle any W for which
 * the Newton matrices stay nonsingular (monotone W: always).
 *
 * One IP iteration is one callback iteration; own residual: the natural
 * merit ||(min(z_U, u_U), u_F)|| (RPIsim Sec. 5.2, Andreani et al. 2011).
 * warm_start is ignored (an interior start is needed). Serial, except
 * what CHOLMOD does inside (BLAS calls, threads as the harness sets).
 *
 * Per-row compliance r (mcb_problem.h) is honoured: the solver works on
 * W + diag(r) (lcp_rows.h's mcb_lcp_matrix, built once in setup). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_chol.h"
#include "lib/mcb_lu.h"
#include "solvers/lcp_rows.h"
#include "solvers/solver.h"

typedef struct {
    double eta;       /* fraction of the step to the boundary */
    double start;     /* initial z_U (and lower bound of w_U) */
    double div_bound; /* ||z||_inf above this: diverged */
    int stall_iters;  /* iterations without halving the merit before stagnation */
    double own_tol;   /* stop (stalled) when the natural merit falls below this (0: never) */
    int linsolve;     /* 0 auto, 1 LU (KLU), 2 CHOLMOD */
    int lu;           /* the LU's backend (mcb_lu_kind): 0 KLU, 1 UMFPACK */
} ip_params;

static void ip_defaults(void *p)
{
    ip_params *q = p;
    q->eta = 0.995;
    q->start = 1.0;
    q->div_bound = 1e14;
    q->stall_iters = 20;
    q->own_tol = 0.0;
    q->linsolve = 0;
    q->lu = MCB_LU_KLU;
}

static const mcb_param_desc ip_desc[] = {
    {"eta", 'd', offsetof(ip_params, eta),
     "fraction of the step to the boundary of z, w >= 0, in (0, 1) (0.995)"},
    {"start", 'd', offsetof(ip_params, start),
     "initial z_U, and the lower bound of the initial slacks w_U, > 0 (1)"},
    {"div_bound", 'd', offsetof(ip_params, div_bound),
     "||z||_inf above this stops the solver (diverged: an infeasible LCP), > 0 (1e14)"},
    {"stall_iters", 'i', offsetof(ip_params, stall_iters),
     "iterations allowed without halving max(mu, ||r||_inf) before stopping (stalled: "
     "stagnation), in [1, 1000] (20)"},
    {"own_tol", 'd', offsetof(ip_params, own_tol),
     "stop when the natural merit falls below this (0: only the harness stops it)"},
    {"linsolve", 'i', offsetof(ip_params, linsolve),
     "the Newton system's solver: 0 (default) or 1 sparse LU (KLU, refactored in place: no "
     "allocation after the first factorization; UMFPACK with lu 1), 2 CHOLMOD (symmetric W and unilateral rows "
     "only, else setup fails; 5-8x faster there, but it allocates at every iteration)"},
    MCB_LU_PARAM_DESC(ip_params, lu),
};

typedef struct {
    const mcb_problem *P;
    ip_params prm;
    int m, nu;
    const mcb_csc *W;
    const double *q;
    char *bil;      /* 1 on bilateral rows */
    mcb_csc *K;     /* W + D, pattern fixed in setup */
    int *wpos;      /* nnz(W): each entry's position in K */
    int *diag;      /* m: position of (j, j) in K */
    double *z, *w, *r, *u;
    double *dz, *dw, *dza, *dwa, *rhs, *rc;
    int chol;       /* 1: CHOLMOD (symmetric K), 0: LU (KLU) */
    mcb_chol *F;
    mcb_lu *LU;
    mcb_csc *Wown;  /* W + diag(r) when P has compliance (w->W points here) */
    double *uw;
} ip_work;

static void ip_free(void **work)
{
    if (!work || !*work) return;
    ip_work *w = *work;
    mcb_lu_free(&w->LU);
    mcb_csc_free(&w->Wown);
    mcb_chol_free(&w->F);
    mcb_csc_free(&w->K);
    double *vecs[] = {w->z, w->w, w->r, w->u, w->dz, w->dw, w->dza, w->dwa, w->rhs, w->rc};
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) free(vecs[k]);
    free(w->bil);
    free(w->wpos);
    free(w->diag);
    free(w);
    *work = NULL;
}

static mcb_rc ip_check(const void *params, mcb_err *err)
{
    const ip_params *p = params;
    mcb_rc rc;
    if (!(p->eta > 0.0 && p->eta < 1.0))
        return mcb_fail(err, MCB_E_INPUT, "ip-lcp.eta = %g must lie in (0, 1)", p->eta);
    if (!(p->start > 0.0))
        return mcb_fail(err, MCB_E_INPUT, "ip-lcp.start = %g must be > 0", p->start);
    if (!(p->div_bound > 0.0))
        return mcb_fail(err, MCB_E_INPUT, "ip-lcp.div_bound = %g must be > 0", p->div_bound);
    if (p->linsolve < 0 || p->linsolve > 2)
        return mcb_fail(err, MCB_E_INPUT, "ip-lcp.linsolve = %d must be 0, 1 or 2", p->linsolve);
    if (p->stall_iters < 1 || p->stall_iters > 1000)
        return mcb_fail(err, MCB_E_INPUT, "ip-lcp.stall_iters = %d must lie in [1, 1000]",
                        p->stall_iters);
    if (!(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "ip-lcp.own_tol = %g must be >= 0", p->own_tol);
    if ((rc = mcb_lu_check_kind(p->lu, "ip-lcp", err))) return rc;
    if (p->linsolve == 2 && p->lu != MCB_LU_KLU)
        return mcb_fail(err, MCB_E_INPUT,
                        "ip-lcp: lu = %d chooses an LU backend, but linsolve = 2 factors by "
                        "CHOLMOD (use linsolve 0 or 1 with lu)",
                        p->lu);
    return MCB_OK;
}

/* K's pattern: W's plus the diagonal (rows sorted); wpos and diag. */
static int build_pattern(ip_work *w)
{
    const mcb_csc *W = w->W;
    int m = w->m, nz = 0;
    for (int j = 0; j < m; j++) {
        int has = 0;
        for (int p = W->p[j]; p < W->p[j + 1]; p++) has |= W->i[p] == j;
        nz += W->p[j + 1] - W->p[j] + !has;
    }
    if (!(w->K = mcb_csc_alloc(m, m, nz))) return 1;
    int pos = 0;
    for (int j = 0; j < m; j++) {
        w->K->p[j] = pos;
        int placed = 0;
        for (int p = W->p[j]; p <= W->p[j + 1]; p++) {
            int i = p < W->p[j + 1] ? W->i[p] : m;
            if (!placed && i >= j) {
                w->diag[j] = pos;
                if (i != j) w->K->i[pos++] = j;
                placed = 1;
            }
            if (p == W->p[j + 1]) break;
            w->wpos[p] = pos;
            w->K->i[pos++] = i;
        }
    }
    w->K->p[m] = pos;
    return 0;
}

static mcb_rc ip_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                       void **work, mcb_err *err)
{
    (void)s;
    *work = NULL;
    mcb_rc rc = ip_check(params, err);
    if (rc) return rc;
    char why[256];
    if (!mcb_accepts_lcp(P, why, sizeof why)) return mcb_fail(err, MCB_E_INPUT, "ip-lcp: %s", why);
    if (!mcb_all_finite(P->m, P->q) || !mcb_all_finite(mcb_csc_nnz(P->W), P->W->x))
        return mcb_fail(err, MCB_E_INPUT, "ip-lcp: W or q has non-finite entries");
    ip_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const ip_params *)params;
    w->m = P->m;
    w->q = P->q;
    if (!(w->W = mcb_lcp_matrix(P, &w->Wown))) { /* u = (W + diag(r)) z + q */
        free(w);
        return mcb_fail(err, MCB_E_NOMEM, "ip-lcp: out of memory");
    }
    size_t m = (size_t)P->m + 1;
    double **vecs[] = {&w->z, &w->w, &w->r, &w->u, &w->dz, &w->dw, &w->dza, &w->dwa, &w->rhs,
                       &w->rc};
    int ok = 1;
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++)
        ok &= (*vecs[k] = mcb_calloc(m, sizeof(double))) != NULL;
    w->bil = mcb_calloc(m, 1);
    w->wpos = mcb_calloc((size_t)mcb_csc_nnz(w->W) + 1, sizeof(int));
    w->diag = mcb_calloc(m, sizeof(int));
    if (!ok || !w->bil || !w->wpos || !w->diag || build_pattern(w)) {
        ip_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "ip-lcp: out of memory");
    }
    for (int b = 0; b < P->nblocks; b++)
        for (int r = P->blocks[b].row; r < P->blocks[b].row + P->blocks[b].nrows; r++)
            w->bil[r] = P->blocks[b].type == MCB_BILATERAL;
    for (int r = 0; r < P->m; r++) w->nu += !w->bil[r];
    double asym = mcb_csc_asymmetry(w->W);
    int sym = asym == 0.0;
    if (w->prm.linsolve == 2 && !sym) {
        ip_free((void **)&w);
        return mcb_fail(err, MCB_E_INPUT,
                        "ip-lcp.linsolve = 2 (CHOLMOD) needs a symmetric W (asymmetry %.3g)", asym);
    }
    w->chol = w->prm.linsolve == 2;
    if (w->chol && P->m > 0) { /* the analysis, on K = W + I */
        for (int j = 0; j < P->m; j++) {
            for (int p = w->W->p[j]; p < w->W->p[j + 1]; p++) w->K->x[w->wpos[p]] = w->W->x[p];
            w->K->x[w->diag[j]] += 1.0;
        }
        rc = mcb_chol_factor(w->K, &w->F, err);
        if (rc) {
            ip_free((void **)&w);
            return rc;
        }
    }
    if (P->m > 0 && !w->chol && (rc = mcb_lu_analyze(w->K, w->prm.lu, &w->LU, err))) {
        ip_free((void **)&w);
        return rc;
    }
    *work = w;
    return MCB_OK;
}

/* ---- one iteration's steps ---- */

/* u = W z + q; r = u - w (w_F = 0). */
static void residual(ip_work *w)
{
    int m = w->m;
    memcpy(w->u, w->q, (size_t)m * sizeof(double));
    mcb_csc_gaxpy(w->W, w->z, w->u);
    for (int i = 0; i < m; i++) w->r[i] = w->bil[i] ? w->u[i] : w->u[i] - w->w[i];
}

/* mu = z_U·w_U / |U| */
static double gap(const ip_work *w, const double *z, const double *s)
{
    double g = 0.0;
    for (int i = 0; i < w->m; i++)
        if (!w->bil[i]) g += z[i] * s[i];
    return w->nu > 0 ? g / w->nu : 0.0;
}

/* The natural merit ||(min(z_U, u_U), u_F)||. */
static double natural_merit(const ip_work *w)
{
    double s = 0.0;
    for (int i = 0; i < w->m; i++) {
        double t = w->bil[i] ? w->u[i] : fmin(w->z[i], w->u[i]);
        s += t * t;
    }
    return sqrt(s);
}

/* Fills K = W + diag(w_i / z_i on U) and factors it: 0, 1 when singular
 * (or not positive definite for CHOLMOD), -1 out of memory. */
static int factor(ip_work *w)
{
    mcb_csc *K = w->K;
    memset(K->x, 0, (size_t)K->p[w->m] * sizeof(double));
    for (int j = 0; j < w->m; j++) {
        for (int p = w->W->p[j]; p < w->W->p[j + 1]; p++) K->x[w->wpos[p]] = w->W->x[p];
        if (!w->bil[j]) K->x[w->diag[j]] += w->w[j] / w->z[j];
    }
    if (w->chol) return mcb_chol_refactor(w->F, K, NULL) == MCB_OK ? 0 : 1;
    int st = mcb_lu_factor(w->LU, K);
    return st == MCB_E_NOMEM ? -1 : st != 0;
}

/* The direction (dz, dw) for the target w->rc (on U): 0, or 1 when the
 * solve failed or gave a non-finite direction. */
static int direction(ip_work *w, double *dz, double *dw)
{
    int m = w->m;
    for (int i = 0; i < m; i++)
        w->rhs[i] = w->bil[i] ? -w->r[i] : -w->r[i] + w->rc[i] / w->z[i];
    memcpy(dz, w->rhs, (size_t)m * sizeof(double));
    if (w->chol ? mcb_chol_solve_inplace(w->F, dz) != MCB_OK : mcb_lu_solve(w->LU, dz) != 0)
        return 1;
    for (int i = 0; i < m; i++) dw[i] = w->bil[i] ? 0.0 : (w->rc[i] - w->w[i] * dz[i]) / w->z[i];
    return mcb_all_finite(m, dz) && mcb_all_finite(m, dw) ? 0 : 1;
}

/* The largest alpha <= 1 keeping z_U + alpha dz, w_U + alpha dw >= 0. */
static double max_step(const ip_work *w, const double *dz, const double *dw)
{
    double a = 1.0;
    for (int i = 0; i < w->m; i++) {
        if (w->bil[i]) continue;
        if (dz[i] < 0.0 && -w->z[i] / dz[i] < a) a = -w->z[i] / dz[i];
        if (dw[i] < 0.0 && -w->w[i] / dw[i] < a) a = -w->w[i] / dw[i];
    }
    return a;
}

static void start_point(ip_work *w)
{
    int m = w->m;
    double s0 = w->prm.start;
    for (int i = 0; i < m; i++) w->z[i] = w->bil[i] ? 0.0 : s0;
    memcpy(w->u, w->q, (size_t)m * sizeof(double));
    mcb_csc_gaxpy(w->W, w->z, w->u);
    for (int i = 0; i < m; i++) w->w[i] = w->bil[i] ? 0.0 : fmax(s0, fabs(w->u[i]));
}

static int ip_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    ip_work *w = work;
    int m = w->m;
    if (m == 0) {
        snprintf(info->reason, sizeof info->reason, "no constraint rows: nothing to solve");
        return MCB_ST_STALLED;
    }
    start_point(w);
    residual(w);
    double best = INFINITY;
    int best_it = 0;
    for (int it = 1; it <= s->max_iters; it++) {
        double mu = gap(w, w->z, w->w);
        int st = factor(w);
        if (st == 0) { /* predictor */
            for (int i = 0; i < m; i++) w->rc[i] = w->bil[i] ? 0.0 : -w->z[i] * w->w[i];
            st = direction(w, w->dza, w->dwa);
        }
        if (st != 0) {
            snprintf(info->reason, sizeof info->reason,
                     st > 0 ? "Newton matrix W + Z^-1 W_s singular (or not positive definite "
                              "for CHOLMOD) or its solution non-finite at iteration %d (mu = "
                              "%.3g)"
                            : "the sparse factorization ran out of memory at iteration %d (mu = "
                              "%.3g)",
                     it, mu);
            return st > 0 ? MCB_ST_STALLED : MCB_ST_DIVERGED;
        }
        double aa = max_step(w, w->dza, w->dwa), mua = 0.0;
        for (int i = 0; i < m; i++)
            if (!w->bil[i]) mua += (w->z[i] + aa * w->dza[i]) * (w->w[i] + aa * w->dwa[i]);
        mua = w->nu > 0 ? mua / w->nu : 0.0;
        double sigma = mu > 0.0 ? pow(fmin(1.0, fmax(0.0, mua / mu)), 3.0) : 0.0;
        /* corrector */
        for (int i = 0; i < m; i++)
            w->rc[i] = w->bil[i] ? 0.0
                                 : sigma * mu - w->z[i] * w->w[i] - w->dza[i] * w->dwa[i];
        st = direction(w, w->dz, w->dw);
        if (st != 0) {
            snprintf(info->reason, sizeof info->reason,
                     "corrector direction non-finite at iteration %d (mu = %.3g)", it, mu);
            return st > 0 ? MCB_ST_STALLED : MCB_ST_DIVERGED;
        }
        double alpha = fmin(1.0, w->prm.eta * max_step(w, w->dz, w->dw));
        for (int i = 0; i < m; i++) {
            w->z[i] += alpha * w->dz[i];
            w->w[i] += alpha * w->dw[i];
        }
        residual(w);
        info->iterations = it;
        info->own_residual = natural_merit(w);
        if (!isfinite(info->own_residual) || !mcb_all_finite(m, w->z)) {
            snprintf(info->reason, sizeof info->reason, "non-finite iterate at iteration %d", it);
            return MCB_ST_DIVERGED;
        }
        double zmax = mcb_norm_inf(m, w->z);
        if (zmax > w->prm.div_bound) {
            snprintf(info->reason, sizeof info->reason,
                     "iterates unbounded (||z||_inf = %.3g > div_bound) at iteration %d: the LCP "
                     "may be infeasible",
                     zmax, it);
            return MCB_ST_DIVERGED;
        }
        mcb_cb_action a = cb(ctx, it, info->own_residual);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
        if (info->own_residual <= w->prm.own_tol) {
            snprintf(info->reason, sizeof info->reason, "natural merit %.3g <= own_tol = %.3g",
                     info->own_residual, w->prm.own_tol);
            return MCB_ST_STALLED;
        }
        double merit = fmax(gap(w, w->z, w->w), mcb_norm_inf(m, w->r));
        if (merit <= 0.5 * best) {
            best = merit;
            best_it = it;
        } else if (it - best_it >= w->prm.stall_iters || alpha < 1e-12) {
            snprintf(info->reason, sizeof info->reason,
                     "stagnation at iteration %d: max(mu, ||r||_inf) = %.3g not halved in %d "
                     "iterations (last step %.3g; natural merit %.3g; %d fresh LU "
                     "factorizations)",
                     it, merit, it - best_it, alpha, info->own_residual,
                     w->LU ? mcb_lu_fresh_factorizations(w->LU) : 0);
            return MCB_ST_STALLED;
        }
    }
    return MCB_ST_MAX_ITERS;
}

static void ip_iterate(void *work, double *v, double *lambda)
{
    (void)v;
    ip_work *w = work;
    memcpy(lambda, w->z, (size_t)w->m * sizeof(double));
}

const mcb_solver_def mcb_solver_ip_lcp = {
    .name = "ip-lcp",
    .description = "primal-dual interior point (Mehrotra predictor-corrector) on the LCP/MLCP "
                   "u = W z + q; condensed Newton system (W + Z^-1 W_s) by CHOLMOD (symmetric W) or "
                   "sparse LU (KLU, refactored in place)",
    .reference = "RPIsim paper Sec. 4, Table 1; Wright 1997 Ch. 8, 10; Mehrotra 1992",
    .accepts = MCB_ACCEPTS_DUAL,
    .accepts_problem = mcb_accepts_lcp,
    .params_size = sizeof(ip_params),
    .default_params = ip_defaults,
    .params = ip_desc,
    .nparams = (int)(sizeof ip_desc / sizeof ip_desc[0]),
    .check_params = ip_check,
    .setup = ip_setup,
    .solve = ip_solve,
    .iterate = ip_iterate,
    .free = ip_free,
};

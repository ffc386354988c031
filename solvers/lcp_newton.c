/* lcp_newton.c: the Newton machinery of fischer-newton and minmap-newton
 * (see lcp_newton.h for what it does, how it fails and what it allocates).
 *
 * One iteration, at z with u = W z + q:
 *   1. phi, a, b from the reformulation; H = diag(a) + diag(b) W filled
 *      into the pattern built in setup; g = H^T phi (the gradient of
 *      psi = 1/2 ||phi||^2 for Fischer-Burmeister, a generalized one for
 *      the min map);
 *   2. the Newton direction H d = -phi (sparse LU or GMRES); when it cannot
 *      be computed or g^T d >= 0, one retry with H + nu I,
 *      nu = lm_reg max|H_ij|; then the Cauchy step d = -g,
 *      t0 = ||g||^2 / ||H g||^2;
 *   3. Armijo backtracking from t = 1 (t0): psi(z(t)) <= psi + sigma t g^T d,
 *      or, projected, z(t) = max(0, z + t d) on unilateral rows and
 *      psi(z(t)) <= psi + sigma g^T (z(t) - z) with g^T (z(t) - z) < 0;
 *      t halved at most max_ls times (4 max_ls for the gradient step).
 * It stops (stalled, with the reason) when every direction's line search
 * fails, when the accepted step is below stag_tol or ||phi|| has not
 * reached a new low for stag_iters iterations (stagnation), at a
 * stationary point of psi that is no solution, and when phi = 0 exactly;
 * a non-finite phi is diverged. Per-row loops run under OpenMP (each
 * thread writes its own rows or columns; sums are serial): identical
 * results across runs for a fixed thread count. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/lcp_newton.h"
#include "solvers/lcp_rows.h"
#include "lib/mcb_lu.h"

struct lcpn {
    const mcb_problem *P;
    lcpn_params prm;
    char name[32];
    lcpn_eval_fn eval;
    int m;
    const mcb_csc *W; /* P->W, or Wown */
    mcb_csc *Wown;    /* W + diag(r) when P has compliance (lcp_rows.h) */
    const double *q;
    int *row_type;
    mcb_csc *H;   /* W's pattern plus the diagonal */
    int *wpos;    /* nnz(W): position of W's entry in H */
    int *diag;    /* m: position of (j, j) in H */
    double hmax;  /* max |H_ij| */
    double *z, *u, *phi, *a, *b, *g, *d, *Wd, *zt, *ut, *pt, *rhs, *Hg;
    mcb_lu *lu; /* strategy 0, or the GMRES preconditioner 1: LU of H (lib/mcb_lu.h) */
    /* GMRES (strategy 1): basis V (m x (k + 1)), Hessenberg (k + 1) x k */
    double *V, *Hh, *cs, *sn, *gv, *y, *Mi, *kz;
    int gmres_steps; /* in all */
    int it;          /* current Newton iteration (1-based) */
    int prec_it;     /* iteration of the LU preconditioner's factorization (0: none) */
    double gmres_res;  /* relative residual of the last solve */
    int nnewton, nlm, ngrad; /* accepted steps by kind */
};

const mcb_param_desc mcb_lcpn_desc[LCPN_NPARAMS] = {
    {"strategy", 'i', offsetof(lcpn_params, strategy),
     "Newton equation H d = -phi: 0 direct sparse LU (KLU refactored in place, lib/mcb_lu.h; symbolic analysis once), 1 "
     "iterative (restarted GMRES preconditioned by gmres_prec, forcing term min(eta_max, "
     "||phi||)) (0)"},
    {"sigma", 'd', offsetof(lcpn_params, sigma),
     "Armijo sufficient-decrease constant on 1/2 ||phi||^2, in (0, 0.5) (1e-4: the usual "
     "choice, Nocedal-Wright Sec. 3.1)"},
    {"max_ls", 'i', offsetof(lcpn_params, max_ls),
     "step halvings before a direction is declared failed (the gradient step gets 4 times as "
     "many), in [1, 60] (30: t down to 1e-9)"},
    {"projected", 'i', offsetof(lcpn_params, projected),
     "1: every trial point projected onto z >= 0 on the unilateral rows (num4lcp's projected "
     "line search); 0: plain Armijo along the direction (0: the projected search stalled on "
     "Stewart-Trinkle LCPs of the sphere stack, docs/solver-lcp-newton.md)"},
    {"lm_reg", 'd', offsetof(lcpn_params, lm_reg),
     "retry with (H + nu I) d = -phi, nu = lm_reg max|H_ij|, when the Newton direction is "
     "singular or no descent direction, > 0 (1e-6)"},
    {"gmres_restart", 'i', offsetof(lcpn_params, gmres_restart),
     "GMRES Krylov subspace size before a restart, in [1, 500] (30)"},
    {"gmres_max", 'i', offsetof(lcpn_params, gmres_max),
     "GMRES steps per Newton equation in all, >= 1 (300)"},
    {"eta_max", 'd', offsetof(lcpn_params, eta_max),
     "largest forcing term: GMRES stops at ||H d + phi|| <= min(eta_max, ||phi||) ||phi|| "
     "(superlinear near the solution), in (0, 1) (0.5)"},
    {"gmres_prec", 'i', offsetof(lcpn_params, gmres_prec),
     "GMRES preconditioner: 0 Jacobi (diag(H)^-1; 1 on zero diagonal entries), 1 the "
     "LU of an earlier Newton matrix, refactored every prec_every iterations (0)"},
    {"prec_every", 'i', offsetof(lcpn_params, prec_every),
     "gmres_prec 1: Newton iterations between refactorizations of the preconditioner, >= 1 "
     "(5)"},
    {"stag_tol", 'd', offsetof(lcpn_params, stag_tol),
     "stop (stalled: stagnation) when an accepted step ||z+ - z||_inf <= stag_tol (1 + "
     "||z||_inf), >= 0 (1e-15)"},
    {"stag_iters", 'i', offsetof(lcpn_params, stag_iters),
     "stop (stalled: stagnation) after this many iterations without a new smallest ||phi|| "
     "(the round-off floor), >= 1 (10)"},
    {"own_tol", 'd', offsetof(lcpn_params, own_tol),
     "stop when ||phi|| falls below this (0: only the harness stops it)"},
    MCB_LU_PARAM_DESC(lcpn_params, lu),
};

void mcb_lcpn_defaults(void *params)
{
    lcpn_params *p = params;
    p->strategy = 0;
    p->sigma = 1e-4;
    p->max_ls = 30;
    p->projected = 0;
    p->lm_reg = 1e-6;
    p->gmres_restart = 30;
    p->gmres_max = 300;
    p->eta_max = 0.5;
    p->gmres_prec = 0;
    p->prec_every = 5;
    p->stag_tol = 1e-15;
    p->stag_iters = 10;
    p->own_tol = 0.0;
    p->lu = MCB_LU_KLU;
}

mcb_rc mcb_lcpn_check(const lcpn_params *p, const char *name, mcb_err *err)
{
    if (p->strategy != 0 && p->strategy != 1)
        return mcb_fail(err, MCB_E_INPUT, "%s.strategy = %d must be 0 (direct) or 1 (GMRES)",
                        name, p->strategy);
    if (!(p->sigma > 0.0 && p->sigma < 0.5))
        return mcb_fail(err, MCB_E_INPUT, "%s.sigma = %g must lie in (0, 0.5)", name, p->sigma);
    if (p->max_ls < 1 || p->max_ls > 60)
        return mcb_fail(err, MCB_E_INPUT, "%s.max_ls = %d must lie in [1, 60]", name, p->max_ls);
    if (p->projected != 0 && p->projected != 1)
        return mcb_fail(err, MCB_E_INPUT, "%s.projected = %d must be 0 or 1", name,
                        p->projected);
    if (!(p->lm_reg > 0.0))
        return mcb_fail(err, MCB_E_INPUT, "%s.lm_reg = %g must be > 0", name, p->lm_reg);
    if (p->gmres_restart < 1 || p->gmres_restart > 500)
        return mcb_fail(err, MCB_E_INPUT, "%s.gmres_restart = %d must lie in [1, 500]", name,
                        p->gmres_restart);
    if (p->gmres_max < 1)
        return mcb_fail(err, MCB_E_INPUT, "%s.gmres_max = %d must be >= 1", name, p->gmres_max);
    if (!(p->eta_max > 0.0 && p->eta_max < 1.0))
        return mcb_fail(err, MCB_E_INPUT, "%s.eta_max = %g must lie in (0, 1)", name,
                        p->eta_max);
    if (p->gmres_prec != 0 && p->gmres_prec != 1)
        return mcb_fail(err, MCB_E_INPUT, "%s.gmres_prec = %d must be 0 (Jacobi) or 1 (LU)",
                        name, p->gmres_prec);
    if (p->prec_every < 1)
        return mcb_fail(err, MCB_E_INPUT, "%s.prec_every = %d must be >= 1", name,
                        p->prec_every);
    if (!(p->stag_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "%s.stag_tol = %g must be >= 0", name, p->stag_tol);
    if (p->stag_iters < 1)
        return mcb_fail(err, MCB_E_INPUT, "%s.stag_iters = %d must be >= 1", name,
                        p->stag_iters);
    if (!(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "%s.own_tol = %g must be >= 0", name, p->own_tol);
    return mcb_lu_check_kind(p->lu, name, err);
}

/* ---- setup and free ---- */

void mcb_lcpn_free(void **pw)
{
    if (!pw || !*pw) return;
    lcpn *w = *pw;
    mcb_lu_free(&w->lu);
    mcb_csc_free(&w->H);
    mcb_csc_free(&w->Wown);
    double *vecs[] = {w->z,  w->u,  w->phi, w->a,  w->b,  w->g,  w->d,  w->Wd, w->zt,
                      w->ut, w->pt, w->rhs, w->Hg, w->V,  w->Hh, w->cs, w->sn,
                      w->gv, w->y,  w->Mi,  w->kz};
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++) free(vecs[k]);
    free(w->row_type);
    free(w->wpos);
    free(w->diag);
    free(w);
    *pw = NULL;
}

/* H's pattern: W's entries and the diagonal, rows sorted per column. */
static mcb_rc build_pattern(lcpn *w)
{
    const mcb_csc *W = w->W;
    int m = w->m, extra = 0;
    for (int j = 0; j < m; j++) {
        int has = 0;
        for (int p = W->p[j]; p < W->p[j + 1]; p++) has |= W->i[p] == j;
        extra += !has;
    }
    w->H = mcb_csc_alloc(m, m, W->p[m] + extra);
    if (!w->H) return MCB_E_NOMEM;
    int pos = 0;
    for (int j = 0; j < m; j++) {
        w->H->p[j] = pos;
        int placed = 0;
        for (int p = W->p[j]; p < W->p[j + 1]; p++) {
            int i = W->i[p];
            if (!placed && i > j) {
                w->diag[j] = pos;
                w->H->i[pos++] = j;
                placed = 1;
            }
            if (i == j) {
                w->diag[j] = pos;
                placed = 1;
            }
            w->wpos[p] = pos;
            w->H->i[pos++] = i;
        }
        if (!placed) {
            w->diag[j] = pos;
            w->H->i[pos++] = j;
        }
    }
    w->H->p[m] = pos;
    return MCB_OK;
}

static mcb_rc alloc_vectors(lcpn *w)
{
    size_t m = (size_t)w->m + 1, k = (size_t)w->prm.gmres_restart;
    double **vecs[] = {&w->z,  &w->u,  &w->phi, &w->a,  &w->b, &w->g,  &w->d,
                       &w->Wd, &w->zt, &w->ut,  &w->pt, &w->rhs, &w->Hg, &w->Mi, &w->kz};
    int ok = 1;
    for (size_t r = 0; r < sizeof vecs / sizeof vecs[0]; r++)
        ok &= (*vecs[r] = mcb_calloc(m, sizeof(double))) != NULL;
    w->row_type = mcb_calloc(m, sizeof(int));
    w->wpos = mcb_calloc((size_t)mcb_csc_nnz(w->W) + 1, sizeof(int));
    w->diag = mcb_calloc(m, sizeof(int));
    ok &= w->row_type && w->wpos && w->diag;
    if (w->prm.strategy == 1) {
        w->V = mcb_calloc(m * (k + 1), sizeof(double));
        w->Hh = mcb_calloc((k + 1) * k, sizeof(double));
        w->cs = mcb_calloc(k + 1, sizeof(double));
        w->sn = mcb_calloc(k + 1, sizeof(double));
        w->gv = mcb_calloc(k + 2, sizeof(double));
        w->y = mcb_calloc(k + 1, sizeof(double));
        ok &= w->V && w->Hh && w->cs && w->sn && w->gv && w->y;
    }
    return ok ? MCB_OK : MCB_E_NOMEM;
}

mcb_rc mcb_lcpn_setup(const mcb_problem *P, const mcb_settings *s, const lcpn_params *prm,
                  const char *name, lcpn_eval_fn eval, lcpn **out, mcb_err *err)
{
    *out = NULL;
    mcb_rc rc = mcb_lcpn_check(prm, name, err);
    if (rc) return rc;
    char why[256];
    if (!mcb_accepts_lcp(P, why, sizeof why)) return mcb_fail(err, MCB_E_INPUT, "%s: %s", name, why);
    if (!P->W || !P->q || P->W->m != P->m || P->W->n != P->m)
        return mcb_fail(err, MCB_E_INPUT, "%s: the dual problem has no m x m W or no q", name);
    lcpn *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *prm;
    snprintf(w->name, sizeof w->name, "%s", name);
    w->eval = eval;
    w->m = P->m;
    w->W = mcb_lcp_matrix(P, &w->Wown); /* u = (W + diag(r)) z + q */
    w->q = P->q;
    if (!w->W || alloc_vectors(w) || build_pattern(w)) {
        mcb_lcpn_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    for (int b = 0; b < P->nblocks; b++)
        for (int r = 0; r < P->blocks[b].nrows; r++)
            w->row_type[P->blocks[b].row + r] = P->blocks[b].type;
    if ((prm->strategy == 0 || prm->gmres_prec == 1) && P->m > 0) {
        mcb_rc lrc = mcb_lu_analyze(w->H, prm->lu, &w->lu, err);
        if (lrc) {
            mcb_lcpn_free((void **)&w);
            return lrc;
        }
    }
    if (s->warm_start && P->lambda0) memcpy(w->z, P->lambda0, (size_t)P->m * sizeof(double));
    *out = w;
    return MCB_OK;
}

void mcb_lcpn_iterate(void *work, double *v, double *lambda)
{
    const lcpn *w = work;
    (void)v;
    memcpy(lambda, w->z, (size_t)w->m * sizeof(double));
}

/* ---- the Newton matrix ---- */

/* ||phi||^2 at (z, u) through the reformulation (NaN propagates); a, b
 * (the Jacobian diagonals) when non-NULL. */
static double merit2(const lcpn *w, const double *z, const double *u, double *phi, double *a,
                     double *b)
{
    w->eval(w->m, w->row_type, z, u, phi, a, b);
    double s = 0.0;
    for (int i = 0; i < w->m; i++) s += phi[i] * phi[i];
    return s;
}

/* u = W z + q */
static void velocity(const lcpn *w, const double *z, double *u)
{
    memcpy(u, w->q, (size_t)w->m * sizeof(double));
    mcb_csc_gaxpy(w->W, z, u);
}

/* H = diag(a) + diag(b) W into the fixed pattern; hmax; g = H^T phi. */
static void fill_jacobian(lcpn *w)
{
    const mcb_csc *W = w->W;
    mcb_csc *H = w->H;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < w->m; j++) {
        for (int p = H->p[j]; p < H->p[j + 1]; p++) H->x[p] = 0.0;
        for (int p = W->p[j]; p < W->p[j + 1]; p++) H->x[w->wpos[p]] = w->b[W->i[p]] * W->x[p];
        H->x[w->diag[j]] += w->a[j];
        double s = 0.0;
        for (int p = H->p[j]; p < H->p[j + 1]; p++) s += H->x[p] * w->phi[H->i[p]];
        w->g[j] = s;
    }
    double hmax = 0.0;
    for (int p = 0; p < H->p[w->m]; p++)
        if (fabs(H->x[p]) > hmax) hmax = fabs(H->x[p]);
    w->hmax = hmax;
}

/* y = (H + nu I) x */
static void h_times(const lcpn *w, double nu, const double *x, double *y)
{
    for (int i = 0; i < w->m; i++) y[i] = nu * x[i];
    mcb_csc_gaxpy(w->H, x, y);
}

/* ---- the Newton equation ---- */

/* Direct: factor H + nu I (refactored in place: lib/mcb_lu.h), solve into
 * d. 0 ok, 1 singular or non-finite, -1 out of memory. */
static int solve_direct(lcpn *w, double nu)
{
    mcb_csc *H = w->H;
    int m = w->m;
    if (nu != 0.0)
        for (int j = 0; j < m; j++) H->x[w->diag[j]] += nu;
    int st = mcb_lu_factor(w->lu, H);
    int ret = st == MCB_E_NOMEM ? -1 : st ? 1 : 0;
    if (ret == 0) {
        memcpy(w->d, w->rhs, (size_t)m * sizeof(double));
        if (mcb_lu_solve(w->lu, w->d) || !mcb_all_finite(m, w->d)) ret = 1;
    }
    if (nu != 0.0)
        for (int j = 0; j < m; j++) H->x[w->diag[j]] -= nu;
    return ret;
}

/* out = M^-1 in: the LU of an earlier Newton matrix when there is one
 * (gmres_prec 1), else the inverse diagonal. */
static void prec_apply(lcpn *w, const double *in, double *out)
{
    if (w->prec_it > 0) {
        memcpy(out, in, (size_t)w->m * sizeof(double));
        if (!mcb_lu_solve(w->lu, out) && mcb_all_finite(w->m, out)) return;
    }
    for (int i = 0; i < w->m; i++) out[i] = w->Mi[i] * in[i];
}

/* gmres_prec 1: factor the current H when the preconditioner is missing
 * or prec_every iterations old (kept when the factorization fails: the
 * Jacobi one serves until the next refresh). 0, or -1 out of memory. */
static int refresh_prec(lcpn *w)
{
    if (w->prm.gmres_prec != 1 || (w->prec_it > 0 && w->it - w->prec_it < w->prm.prec_every))
        return 0;
    w->prec_it = 0;
    int st = mcb_lu_factor(w->lu, w->H);
    if (st == MCB_E_NOMEM) return -1;
    if (st == 0) w->prec_it = w->it;
    return 0;
}

/* Restarted GMRES on (H + nu I) d = rhs, right-preconditioned (prec_apply;
 * the inverse diagonal is 1 where the diagonal is below 1e-12 max|H|), from
 * d = 0, until ||rhs - (H + nu I) d|| <= tol_rel ||rhs|| or gmres_max
 * steps. Modified Gram-Schmidt, Givens rotations. 0 ok (converged or
 * not: the descent test judges), 1 non-finite. */
static int solve_gmres(lcpn *w, double nu, double tol_rel)
{
    int m = w->m, k = w->prm.gmres_restart, ld = k + 1;
    double *x = w->d, *V = w->V, *Hh = w->Hh;
    double floor = 1e-12 * (w->hmax > 0.0 ? w->hmax : 1.0);
    for (int i = 0; i < m; i++) {
        double dg = w->H->x[w->diag[i]] + nu;
        w->Mi[i] = fabs(dg) > floor ? 1.0 / dg : 1.0;
    }
    memset(x, 0, (size_t)m * sizeof(double));
    double bn = mcb_norm2(m, w->rhs), tol = tol_rel * bn, res = bn;
    int total = 0;
    while (bn > 0.0 && total < w->prm.gmres_max) {
        /* r = rhs - A x into V_0 */
        h_times(w, nu, x, V);
        for (int i = 0; i < m; i++) V[i] = w->rhs[i] - V[i];
        double beta = mcb_norm2(m, V);
        res = beta;
        if (!(beta > tol)) break;
        for (int i = 0; i < m; i++) V[i] /= beta;
        memset(w->gv, 0, (size_t)(k + 2) * sizeof(double));
        w->gv[0] = beta;
        int j = 0, breakdown = 0;
        while (j < k && total < w->prm.gmres_max) {
            double *vj = V + (size_t)j * m, *vn = V + (size_t)(j + 1) * m, *hc = Hh + (size_t)j * ld;
            prec_apply(w, vj, w->kz);
            h_times(w, nu, w->kz, vn);
            for (int i = 0; i <= j; i++) {
                hc[i] = mcb_dot(m, vn, V + (size_t)i * m);
                for (int r = 0; r < m; r++) vn[r] -= hc[i] * V[(size_t)i * m + r];
            }
            double hn = mcb_norm2(m, vn);
            hc[j + 1] = hn;
            if (hn > 0.0)
                for (int r = 0; r < m; r++) vn[r] /= hn;
            for (int i = 0; i < j; i++) {
                double t = w->cs[i] * hc[i] + w->sn[i] * hc[i + 1];
                hc[i + 1] = -w->sn[i] * hc[i] + w->cs[i] * hc[i + 1];
                hc[i] = t;
            }
            double rr = hypot(hc[j], hc[j + 1]);
            w->cs[j] = rr > 0.0 ? hc[j] / rr : 1.0;
            w->sn[j] = rr > 0.0 ? hc[j + 1] / rr : 0.0;
            hc[j] = rr;
            hc[j + 1] = 0.0;
            w->gv[j + 1] = -w->sn[j] * w->gv[j];
            w->gv[j] *= w->cs[j];
            total++;
            j++;
            res = fabs(w->gv[j]);
            if (!(hn > 0.0)) breakdown = 1;
            if (res <= tol || breakdown) break;
        }
        /* y = R^-1 g, x += M^-1 V y */
        for (int i = j - 1; i >= 0; i--) {
            double s = w->gv[i];
            for (int l = i + 1; l < j; l++) s -= Hh[(size_t)l * ld + i] * w->y[l];
            double r = Hh[(size_t)i * ld + i];
            w->y[i] = r != 0.0 ? s / r : 0.0;
        }
        for (int i = 0; i < m; i++) {
            double s = 0.0;
            for (int l = 0; l < j; l++) s += V[(size_t)l * m + i] * w->y[l];
            w->Hg[i] = s;
        }
        prec_apply(w, w->Hg, w->kz);
        for (int i = 0; i < m; i++) x[i] += w->kz[i];
        if (res <= tol || breakdown) break;
    }
    w->gmres_steps += total;
    w->gmres_res = bn > 0.0 ? res / bn : 0.0;
    return mcb_all_finite(m, x) ? 0 : 1;
}

/* The direction for H + nu I into d (rhs = -phi). */
static int direction(lcpn *w, double nu, double pn)
{
    for (int i = 0; i < w->m; i++) w->rhs[i] = -w->phi[i];
    if (w->prm.strategy == 0) return solve_direct(w, nu);
    double eta = pn < w->prm.eta_max ? pn : w->prm.eta_max;
    int r = refresh_prec(w);
    return r < 0 ? r : solve_gmres(w, nu, eta);
}

/* ---- line search ---- */

/* Armijo backtracking along d from t0 (slope = g^T d for the plain search).
 * On success z, u, phi and *psi are the accepted point's, *step its
 * ||z+ - z||_inf, and 1 is returned. */
static int line_search(lcpn *w, double t0, double slope, int max_ls, double *psi, double *step)
{
    int m = w->m, proj = w->prm.projected;
    if (!proj) {
        memset(w->Wd, 0, (size_t)m * sizeof(double));
        mcb_csc_gaxpy(w->W, w->d, w->Wd);
    }
    double t = t0;
    for (int ls = 0; ls <= max_ls; ls++, t *= 0.5) {
        double dec = t * slope;
        for (int i = 0; i < m; i++) {
            double zi = w->z[i] + t * w->d[i];
            w->zt[i] = proj && w->row_type[i] == MCB_UNILATERAL && zi < 0.0 ? 0.0 : zi;
        }
        if (proj) {
            velocity(w, w->zt, w->ut);
            dec = 0.0;
            for (int i = 0; i < m; i++) dec += w->g[i] * (w->zt[i] - w->z[i]);
            if (!(dec < 0.0)) continue;
        } else {
            for (int i = 0; i < m; i++) w->ut[i] = w->u[i] + t * w->Wd[i];
        }
        double ptry = 0.5 * merit2(w, w->zt, w->ut, w->pt, NULL, NULL);
        if (isfinite(ptry) && ptry <= *psi + w->prm.sigma * dec) {
            double s = 0.0;
            for (int i = 0; i < m; i++) {
                double c = fabs(w->zt[i] - w->z[i]);
                if (c > s) s = c;
            }
            *step = s;
            memcpy(w->z, w->zt, (size_t)m * sizeof(double));
            velocity(w, w->z, w->u); /* fresh, no drift */
            *psi = 0.5 * merit2(w, w->z, w->u, w->phi, NULL, NULL);
            return 1;
        }
    }
    return 0;
}

enum { STEP_OK = 0, STEP_FAILED = 1, STEP_HARD = 2 };

/* One globalized step; *kind: 0 Newton, 1 regularized, 2 gradient. */
static int newton_step(lcpn *w, double pn, double *psi, double *step, int *kind, int *hard)
{
    int m = w->m;
    for (int attempt = 0; attempt < 2; attempt++) {
        double nu = attempt ? w->prm.lm_reg * (w->hmax > 0.0 ? w->hmax : 1.0) : 0.0;
        int r = direction(w, nu, pn);
        if (r < 0) {
            *hard = r;
            return STEP_HARD;
        }
        if (r > 0) continue;
        double slope = mcb_dot(m, w->g, w->d);
        if (!(slope < 0.0) || !isfinite(slope)) continue;
        if (line_search(w, 1.0, slope, w->prm.max_ls, psi, step)) {
            *kind = attempt;
            return STEP_OK;
        }
    }
    /* the Cauchy step along -g */
    for (int i = 0; i < m; i++) w->d[i] = -w->g[i];
    h_times(w, 0.0, w->g, w->Hg);
    double g2 = mcb_dot(m, w->g, w->g), hg2 = mcb_dot(m, w->Hg, w->Hg);
    if (!(g2 > 0.0) || !(hg2 > 0.0) || !isfinite(g2 / hg2)) return STEP_FAILED;
    if (line_search(w, g2 / hg2, -g2, 4 * w->prm.max_ls, psi, step)) {
        *kind = 2;
        return STEP_OK;
    }
    return STEP_FAILED;
}

int mcb_lcpn_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    lcpn *w = work;
    int m = w->m;
    if (m == 0) {
        snprintf(info->reason, sizeof info->reason, "no constraint rows: nothing to solve");
        return MCB_ST_STALLED;
    }
    velocity(w, w->z, w->u);
    double best = INFINITY;
    int since_best = 0;
    for (int it = 1; it <= s->max_iters; it++) {
        w->it = it;
        double psi = 0.5 * merit2(w, w->z, w->u, w->phi, w->a, w->b);
        double pn = sqrt(2.0 * psi);
        if (!isfinite(pn)) {
            snprintf(info->reason, sizeof info->reason, "non-finite residual ||phi|| (iteration %d)",
                     it);
            return MCB_ST_DIVERGED;
        }
        if (pn == 0.0) {
            snprintf(info->reason, sizeof info->reason,
                     "phi = 0 exactly: nothing left to decrease (after %d iterations)", it - 1);
            return MCB_ST_STALLED;
        }
        fill_jacobian(w);
        double gn = mcb_norm2(m, w->g);
        if (gn <= 1e-14 * (w->hmax > 0.0 ? w->hmax : 1.0) * pn) {
            snprintf(info->reason, sizeof info->reason,
                     "stationary point of 1/2||phi||^2 that is no solution (||H^T phi|| = %.3g "
                     "at ||phi|| = %.3g, iteration %d): the LCP may have no solution",
                     gn, pn, it);
            return MCB_ST_STALLED;
        }
        int kind = 0, hard = 0;
        double step = 0.0;
        int r = newton_step(w, pn, &psi, &step, &kind, &hard);
        if (r == STEP_HARD) {
            snprintf(info->reason, sizeof info->reason, "sparse LU out of memory (status %d) at iteration %d",
                     hard, it);
            return MCB_ST_DIVERGED;
        }
        if (r == STEP_FAILED) {
            snprintf(info->reason, sizeof info->reason,
                     "line search failed along the Newton, regularized and gradient directions "
                     "at ||phi|| = %.3g (iteration %d; accepted steps: %d Newton, %d "
                     "regularized, %d gradient)",
                     pn, it, w->nnewton, w->nlm, w->ngrad);
            return MCB_ST_STALLED;
        }
        if (kind == 0) w->nnewton++;
        else if (kind == 1) w->nlm++;
        else w->ngrad++;
        info->iterations = it;
        info->inner_iterations = w->gmres_steps;
        info->own_residual = sqrt(2.0 * psi);
        if (!isfinite(info->own_residual)) {
            snprintf(info->reason, sizeof info->reason, "non-finite residual ||phi|| (iteration %d)",
                     it);
            return MCB_ST_DIVERGED;
        }
        mcb_cb_action act = cb(ctx, it, info->own_residual);
        if (act != MCB_CB_CONTINUE) return mcb_status_from_cb(act);
        if (info->own_residual <= w->prm.own_tol) {
            snprintf(info->reason, sizeof info->reason, "||phi|| = %.3g <= own_tol = %.3g",
                     info->own_residual, w->prm.own_tol);
            return MCB_ST_STALLED;
        }
        double zn = mcb_norm_inf(m, w->z);
        if (step <= w->prm.stag_tol * (1.0 + zn)) {
            snprintf(info->reason, sizeof info->reason,
                     "stagnation: step ||z+ - z||_inf = %.3g <= stag_tol (1 + ||z||_inf) at "
                     "||phi|| = %.3g (iteration %d)",
                     step, info->own_residual, it);
            return MCB_ST_STALLED;
        }
        if (info->own_residual < best) {
            best = info->own_residual;
            since_best = 0;
        } else if (++since_best >= w->prm.stag_iters) {
            snprintf(info->reason, sizeof info->reason,
                     "stagnation: no smaller ||phi|| than %.3g for %d iterations (round-off "
                     "floor; iteration %d)",
                     best, since_best, it);
            return MCB_ST_STALLED;
        }
    }
    return MCB_ST_MAX_ITERS;
}

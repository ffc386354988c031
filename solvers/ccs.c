/* ccs.c: contact constraint splitting (CCS), the ADMM of G. Daviet,
 * "Simple and scalable frictional contacts for thin nodal objects", ACM
 * TOG 39(4), 2020: the COND paper's reference [16] and its Table VII
 * baseline (COND Sec. V-E1: "the contact dynamics problem is divided into
 * two subproblems using ADMM, thereby replacing the assembly of the
 * Delassus operator with multiple linear solving processes").
 *
 * The primal problem A v = b + J^T lambda, u = J v + e, (u, lambda) in S.
 * A contact's Coulomb law is written with De Saxce's change of variable:
 * with s = mu ||u_t|| on the normal row, K_mu* ∋ u + s ⊥ lambda ∈ K_mu, so
 * that at a fixed s the problem is the convex program
 *     min_v 1/2 v^T A v - b^T v   subject to  J v + e + s ∈ K*
 * whose multiplier is lambda. ADMM splits it with z = J v + e + s (one
 * copy per row), the per-row penalty rho_r (rho_r is one value on a
 * contact's three rows) and the unscaled multiplier lambda. One iteration:
 *   (1) linear step, the one linear solve, with the matrix factored once:
 *         (A + J^T R J) v = b + J^T (lambda + R (z - e - s)),  R = diag(rho)
 *   (2) local step, per block in parallel: u = J_b v + e_b,
 *       s_b = mu ||u_t|| (contact; 0 for contact_ccp and other rows),
 *       x = u + s, and z = the row law's proximal step at x - lambda / rho:
 *         contact     z = P_K*(t), lambda = rho P_K(-t), t = x - lambda/rho
 *                     (Moreau: t = P_K*(t) - P_K(-t), so z = t + lambda/rho)
 *         bilateral   z = 0
 *         unilateral  z = max(0, t)
 *         soft        z = (rho x - lambda - k (1 - alpha) e) / (rho + k alpha)
 *                     (the prox of the spring's energy: its lambda is
 *                     -k (e + alpha J v) at z = J v + e)
 *   (3) dual update  lambda <- lambda - R (x - z)
 *       (in closed form for the cones above; it keeps lambda in the cone)
 * Residuals (the solver's own, reported, never ranked): primal
 * r_p = ||x - z||, dual r_d = ||J^T R (z - z_prev)|| (Boyd et al. 2011,
 * eq. (3.9)); own_residual = max(r_p, r_d).
 *
 * The penalty (our choice where the paper's text was not at hand; see
 * docs/solver-ccs.md): rho_r = rho_scale / d_r with d_r = sum_k J_rk^2 /
 * A_kk, the Jacobi estimate of the Delassus diagonal (a contact takes the
 * mean of its three rows), so that J^T R J scales like A on the
 * constrained DOFs; residual balancing every `adapt_every` iterations on
 * the residuals relative to max(||x||, ||z||) and ||J^T lambda|| (Boyd et
 * al. eq. (3.13)'s test: one exceeds gamma times the other; the factor
 * sqrt(r_p / r_d) as OSQP's and the CANAL/SubADMM paper's eq. (42),
 * clipped to [1/tau, tau]), each change a refactorization of the fixed
 * pattern, counted in the solve time (adaptive = 0: one factorization in
 * setup, never again).
 *
 * Cost: setup builds J^T R J and A + J^T R J (sparse), and factors it
 * (CHOLMOD); never W = J A^-1 J^T. An iteration is two sparse products
 * with J and J^T and one pair of triangular solves. The iteration
 * allocates nothing, but for a refactorization (CHOLMOD's, and the
 * triangular copy mcb_chol_solve_inplace makes after one). OpenMP over
 * blocks and over DOFs; every reduction is summed in a fixed order, so
 * the iterates do not depend on the thread count. Primal problems
 * without per-row compliance; every block type. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_chol.h"
#include "lib/mcb_cone.h"
#include "solvers/solver.h"

/* ---------- parameters ---------- */

typedef struct {
    double rho_scale;  /* rho_r = rho_scale / d_r */
    int adaptive;      /* residual balancing on (1) or off (0) */
    double gamma;      /* balancing threshold, > 1 */
    double tau;        /* balancing factor, > 1 */
    int adapt_every;   /* iterations between balancing checks */
    double own_tol;    /* stop when max(r_p, r_d) <= own_tol (0: never) */
} ccs_params;

static void ccs_defaults(void *p)
{
    ccs_params *q = p;
    q->rho_scale = 1.0;
    q->adaptive = 1;
    q->gamma = 10.0;
    q->tau = 10.0;
    q->adapt_every = 10;
    q->own_tol = 0.0;
}

static const mcb_param_desc ccs_desc[] = {
    {"rho_scale", 'd', offsetof(ccs_params, rho_scale),
     "penalty rho_r = rho_scale / d_r, d_r = sum_k J_rk^2 / A_kk (the Jacobi estimate of the "
     "Delassus diagonal; a contact's three rows share their mean); 1: the constraint-space "
     "stiffness, no units"},
    {"adaptive", 'i', offsetof(ccs_params, adaptive),
     "1: residual balancing every adapt_every iterations (each change refactors A + J^T R J, "
     "timed in the solve); 0: rho fixed, one factorization in setup"},
    {"gamma", 'd', offsetof(ccs_params, gamma),
     "balancing threshold (Boyd et al. 2011 eq. 3.13's mu), > 1"},
    {"tau", 'd', offsetof(ccs_params, tau),
     "largest factor of one balancing step: rho times sqrt(r_p / r_d) clipped to [1/tau, "
     "tau], > 1 (10: with Boyd's fixed factor 2 the cable's natmap was 3e4 times larger "
     "after 50 iterations, docs/solver-ccs.md)"},
    {"adapt_every", 'i', offsetof(ccs_params, adapt_every),
     "iterations between residual-balancing checks; 10 bounds the refactorizations to one "
     "per 10 iterations"},
    {"own_tol", 'd', offsetof(ccs_params, own_tol),
     "stop when max(r_p, r_d) falls to this (0: only the harness stops it)"},
};

static mcb_rc ccs_check(const void *params, mcb_err *err)
{
    const ccs_params *p = params;
    if (!(p->rho_scale > 0.0) || !isfinite(p->rho_scale) || p->adaptive < 0 ||
        p->adaptive > 1 || !(p->gamma > 1.0) || !(p->tau > 1.0) || p->adapt_every < 1 ||
        !(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "ccs: rho_scale must be finite and > 0, adaptive 0 "
                                          "or 1, gamma > 1, tau > 1, adapt_every >= 1, "
                                          "own_tol >= 0");
    return MCB_OK;
}

/* ---------- work ---------- */

typedef struct {
    const mcb_problem *P;
    ccs_params prm;
    mcb_csc *JT;      /* J^T: column r is row r of J */
    mcb_csc *B;       /* J^T R0 J, R0 = diag(rho0) */
    mcb_csc *K;       /* A + scale B */
    int *posA, *posB; /* where A's and B's entries sit in K */
    mcb_chol *F;      /* K's factor */
    double scale;     /* rho = scale rho0 */
    double *rho0, *rho;                /* m */
    double *v, *lambda, *z, *s, *x, *t; /* n; m each: t holds R (z - e - s) + lambda, then
                                           R (z - z_prev) */
    double *g;        /* n: J^T t */
    double *part;     /* nblocks: each block's ||x - z||^2 */
    double rp, rd;    /* the last iteration's residuals */
    int refactors;
} ccs_work;

static void ccs_free(void **work);

/* ---------- set-up: rho0, J^T R0 J, K = A + J^T R J and its factor ---------- */

/* rho0_r = 1 / d_r, d_r = sum_k J_rk^2 / A_kk; a contact's rows share
 * 1 / mean(d); a row without entries gets 1 (it couples nothing). */
static mcb_rc base_penalty(ccs_work *w, mcb_err *err)
{
    const mcb_problem *P = w->P;
    const mcb_csc *A = P->A;
    double *dinv = mcb_calloc((size_t)P->n, sizeof(double));
    if (!dinv) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int j = 0; j < P->n; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++)
            if (A->i[k] == j && A->x[k] > 0.0) dinv[j] = 1.0 / A->x[k];
    for (int r = 0; r < P->m; r++) {
        double d = 0.0;
        for (int k = w->JT->p[r]; k < w->JT->p[r + 1]; k++)
            d += w->JT->x[k] * w->JT->x[k] * dinv[w->JT->i[k]];
        w->rho0[r] = d;
    }
    free(dinv);
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        if (mcb_is_contact(B->type)) {
            double d = (w->rho0[B->row] + w->rho0[B->row + 1] + w->rho0[B->row + 2]) / 3.0;
            for (int a = 0; a < 3; a++) w->rho0[B->row + a] = d;
        }
    }
    for (int r = 0; r < P->m; r++) w->rho0[r] = w->rho0[r] > 0.0 ? 1.0 / w->rho0[r] : 1.0;
    return MCB_OK;
}

/* B = J^T R0 J as (R0^1/2 J)^T (R0^1/2 J). */
static mcb_rc build_jrj(ccs_work *w, mcb_err *err)
{
    mcb_csc *Js = mcb_csc_copy(w->P->J);
    if (Js)
        for (int k = 0; k < Js->p[Js->n]; k++) Js->x[k] *= sqrt(w->rho0[Js->i[k]]);
    mcb_csc *JsT = Js ? mcb_csc_transpose(Js) : NULL;
    w->B = JsT ? mcb_csc_multiply(JsT, Js) : NULL;
    mcb_csc_free(&Js);
    mcb_csc_free(&JsT);
    return w->B ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "out of memory");
}

/* Index of entry (row, col) in K (rows sorted within a column). */
static int k_entry(const mcb_csc *K, int row, int col)
{
    int lo = K->p[col], hi = K->p[col + 1] - 1;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (K->i[mid] < row) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* K = A + scale B on the union pattern (triplets, duplicates summed), and
 * the maps of A's and B's entries into it. */
static mcb_rc build_k(ccs_work *w, mcb_err *err)
{
    const mcb_csc *A = w->P->A, *B = w->B;
    int na = A->p[A->n], nb = B->p[B->n], nz = na + nb;
    int *ri = mcb_malloc((size_t)nz + 1, sizeof(int)), *ci = mcb_malloc((size_t)nz + 1, sizeof(int));
    double *xv = mcb_malloc((size_t)nz + 1, sizeof(double));
    w->posA = mcb_malloc((size_t)na + 1, sizeof(int));
    w->posB = mcb_malloc((size_t)nb + 1, sizeof(int));
    mcb_rc rc = ri && ci && xv && w->posA && w->posB ? MCB_OK : MCB_E_NOMEM;
    for (int pass = 0; pass < 2 && !rc; pass++) {
        const mcb_csc *M = pass ? B : A;
        int off = pass ? na : 0;
        for (int j = 0; j < M->n; j++)
            for (int k = M->p[j]; k < M->p[j + 1]; k++) {
                ri[off + k] = M->i[k];
                ci[off + k] = j;
                xv[off + k] = pass ? w->scale * M->x[k] : M->x[k];
            }
    }
    if (!rc) {
        w->K = mcb_csc_from_triplets(A->n, A->n, nz, ri, ci, xv);
        if (!w->K) rc = MCB_E_NOMEM;
    }
    for (int k = 0; k < na && !rc; k++) w->posA[k] = k_entry(w->K, ri[k], ci[k]);
    for (int k = 0; k < nb && !rc; k++) w->posB[k] = k_entry(w->K, ri[na + k], ci[na + k]);
    free(ri);
    free(ci);
    free(xv);
    return rc ? mcb_fail(err, rc, "out of memory") : MCB_OK;
}

/* K's values for the current scale (pattern fixed); rho = scale rho0. */
static void fill_k(ccs_work *w)
{
    const mcb_csc *A = w->P->A, *B = w->B;
    memset(w->K->x, 0, (size_t)w->K->p[w->K->n] * sizeof(double));
    for (int k = 0; k < A->p[A->n]; k++) w->K->x[w->posA[k]] += A->x[k];
    for (int k = 0; k < B->p[B->n]; k++) w->K->x[w->posB[k]] += w->scale * B->x[k];
    for (int r = 0; r < w->P->m; r++) w->rho[r] = w->scale * w->rho0[r];
}

static mcb_rc ccs_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                        void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = ccs_check(params, err);
    if (rc) return rc;
    ccs_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const ccs_params *)params;
    w->scale = w->prm.rho_scale;
    size_t n = (size_t)P->n, m = (size_t)P->m;
    w->JT = mcb_csc_transpose(P->J);
    w->rho0 = mcb_calloc(m, sizeof(double));
    w->rho = mcb_calloc(m, sizeof(double));
    w->v = mcb_calloc(n, sizeof(double));
    w->g = mcb_calloc(n, sizeof(double));
    w->lambda = mcb_calloc(m, sizeof(double));
    w->z = mcb_calloc(m, sizeof(double));
    w->s = mcb_calloc(m, sizeof(double));
    w->x = mcb_calloc(m, sizeof(double));
    w->t = mcb_calloc(m, sizeof(double));
    w->part = mcb_calloc((size_t)P->nblocks, sizeof(double));
    if (!w->JT || !w->rho0 || !w->rho || !w->v || !w->g || !w->lambda || !w->z || !w->s ||
        !w->x || !w->t || !w->part)
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc) rc = base_penalty(w, err);
    if (!rc) rc = build_jrj(w, err);
    if (!rc) rc = build_k(w, err);
    if (!rc) {
        fill_k(w);
        rc = mcb_chol_factor(w->K, &w->F, err);
    }
    /* the triangular copy of the factor, made here rather than in the first iteration */
    if (!rc && mcb_chol_solve_inplace(w->F, w->g) != MCB_OK)
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (rc) {
        ccs_free((void **)&w);
        return rc;
    }
    memset(w->g, 0, n * sizeof(double));
    if (s->warm_start) {
        /* v0 gives z = J v0 + e + s(v0) (the fixed point has z = x); lambda0 the multiplier */
        if (P->lambda0) memcpy(w->lambda, P->lambda0, m * sizeof(double));
        if (P->v0) {
            memcpy(w->v, P->v0, n * sizeof(double));
            memcpy(w->x, P->e, m * sizeof(double));
            mcb_csc_gaxpy(P->J, w->v, w->x);
            for (int b = 0; b < P->nblocks; b++) {
                const mcb_block *B = &P->blocks[b];
                if (B->type != MCB_CONTACT) continue;
                w->s[B->row] = B->mu * mcb_hypot(w->x[B->row + 1], w->x[B->row + 2]);
                w->x[B->row] += w->s[B->row];
            }
            memcpy(w->z, w->x, m * sizeof(double));
        }
    }
    *work = w;
    return MCB_OK;
}

/* ---------- one iteration: (1) linear step, (2)-(3) local step and dual update ---------- */

/* out = base + J^T y, in parallel over the DOFs (J's columns). base may be NULL (0). */
static void jt_times(const ccs_work *w, const double *base, const double *y, double *out)
{
    const mcb_csc *J = w->P->J;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < J->n; j++) {
        double a = base ? base[j] : 0.0;
        for (int k = J->p[j]; k < J->p[j + 1]; k++) a += J->x[k] * y[J->i[k]];
        out[j] = a;
    }
}

/* (1): t = lambda + R (z - e - s), v = K^-1 (b + J^T t). */
static int linear_step(ccs_work *w)
{
    const mcb_problem *P = w->P;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < P->m; r++)
        w->t[r] = w->lambda[r] + w->rho[r] * (w->z[r] - P->e[r] - w->s[r]);
    jt_times(w, P->b, w->t, w->v);
    return mcb_chol_solve_inplace(w->F, w->v) != MCB_OK;
}

/* Row r's u = J_r v + e_r, from J^T's column r. */
static inline double row_velocity(const ccs_work *w, int r)
{
    double u = w->P->e[r];
    for (int k = w->JT->p[r]; k < w->JT->p[r + 1]; k++) u += w->JT->x[k] * w->v[w->JT->i[k]];
    return u;
}

/* (2)-(3) for a contact: s = mu ||u_t|| (0 for contact_ccp), x = u + s,
 * t = x - lambda / rho, lambda = rho P_K(-t), z = t + lambda / rho. */
static void local_contact(ccs_work *w, const mcb_block *B, double *zprev)
{
    int r0 = B->row;
    double u[3], tt[3], p[3], rho = w->rho[r0];
    for (int a = 0; a < 3; a++) u[a] = row_velocity(w, r0 + a);
    w->s[r0] = B->type == MCB_CONTACT ? B->mu * mcb_hypot(u[1], u[2]) : 0.0;
    u[0] += w->s[r0];
    for (int a = 0; a < 3; a++) {
        w->x[r0 + a] = u[a];
        tt[a] = -(u[a] - w->lambda[r0 + a] / rho);
    }
    mcb_proj_cone(B->mu, tt, p);
    for (int a = 0; a < 3; a++) {
        zprev[a] = w->z[r0 + a];
        w->lambda[r0 + a] = rho * p[a];
        w->z[r0 + a] = -tt[a] + p[a];
    }
}

/* (2)-(3) for one bilateral, unilateral or soft row. */
static void local_row(ccs_work *w, const mcb_block *B, int r)
{
    const mcb_problem *P = w->P;
    double x = row_velocity(w, r), rho = w->rho[r], lam = w->lambda[r], z = 0.0;
    w->x[r] = x;
    switch (B->type) {
    case MCB_BILATERAL: z = 0.0; break;
    case MCB_UNILATERAL: {
        double t = x - lam / rho;
        z = t > 0.0 ? t : 0.0;
        break;
    }
    case MCB_SOFT:
        z = (rho * x - lam - B->k * (1.0 - B->alpha) * P->e[r]) / (rho + B->k * B->alpha);
        break;
    }
    w->lambda[r] = lam - rho * (x - z);
    w->z[r] = z;
}

/* (2)-(3) over the blocks in parallel; t = R (z - z_prev) for r_d, and
 * each block's ||x - z||^2 (summed in block order: r_p). */
static void local_step(ccs_work *w)
{
    const mcb_problem *P = w->P;
#pragma omp parallel for schedule(static)
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        double zprev[3];
        if (mcb_is_contact(B->type)) {
            local_contact(w, B, zprev);
        } else {
            for (int r = B->row; r < B->row + B->nrows; r++) {
                double zp = w->z[r];
                local_row(w, B, r);
                w->t[r] = w->rho[r] * (w->z[r] - zp);
            }
        }
        double sq = 0.0;
        for (int a = 0; a < B->nrows; a++) {
            int r = B->row + a;
            if (mcb_is_contact(B->type)) w->t[r] = w->rho[r] * (w->z[r] - zprev[a]);
            sq += (w->x[r] - w->z[r]) * (w->x[r] - w->z[r]);
        }
        w->part[b] = sq;
    }
}

/* r_p = ||x - z||, r_d = ||J^T R (z - z_prev)||. */
static void residuals(ccs_work *w)
{
    const mcb_problem *P = w->P;
    double sq = 0.0;
    for (int b = 0; b < P->nblocks; b++) sq += w->part[b];
    w->rp = sqrt(sq);
    jt_times(w, NULL, w->t, w->g);
    w->rd = mcb_norm2(P->n, w->g);
}

/* Residual balancing on the relative residuals r_p / max(||x||, ||z||)
 * and r_d / ||J^T lambda||: when one exceeds gamma times the other (Boyd
 * et al. eq. (3.13)), rho times sqrt(r_p / r_d) clipped to [1/tau, tau];
 * the change refactors K on its fixed pattern. Returns nonzero when that
 * fails. */
static int rebalance(ccs_work *w)
{
    const mcb_problem *P = w->P;
    double sx = mcb_norm2(P->m, w->x), sz = mcb_norm2(P->m, w->z);
    jt_times(w, NULL, w->lambda, w->g);
    double sl = mcb_norm2(P->n, w->g);
    double rp = w->rp / (sx > sz ? sx : sz), rd = w->rd / sl;
    if (!(rp > 0.0 && rd > 0.0 && isfinite(rp) && isfinite(rd))) return 0;
    if (!(rp > w->prm.gamma * rd || rd > w->prm.gamma * rp)) return 0;
    double f = sqrt(rp / rd);
    if (f > w->prm.tau) f = w->prm.tau;
    if (f < 1.0 / w->prm.tau) f = 1.0 / w->prm.tau;
    w->scale *= f;
    fill_k(w);
    w->refactors++;
    mcb_err err;
    return mcb_chol_refactor(w->F, w->K, &err) != MCB_OK;
}

static int ccs_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                     mcb_info *info)
{
    ccs_work *w = work;
    for (int it = 1; it <= s->max_iters; it++) {
        if (linear_step(w)) {
            snprintf(info->reason, sizeof info->reason, "the linear step's solve failed");
            return MCB_ST_DIVERGED;
        }
        local_step(w);
        residuals(w);
        info->iterations = it;
        info->own_residual = w->rp > w->rd ? w->rp : w->rd;
        if (!isfinite(info->own_residual)) return MCB_ST_DIVERGED;
        mcb_cb_action a = cb(ctx, it, info->own_residual);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
        if (w->prm.own_tol > 0.0 && info->own_residual <= w->prm.own_tol) {
            snprintf(info->reason, sizeof info->reason,
                     "own residual max(r_p, r_d) = %.3g at or below own_tol = %.3g "
                     "(%d refactorizations)",
                     info->own_residual, w->prm.own_tol, w->refactors);
            return MCB_ST_STALLED;
        }
        if (w->prm.adaptive && it % w->prm.adapt_every == 0) {
            int before = w->refactors;
            if (rebalance(w)) {
                snprintf(info->reason, sizeof info->reason,
                         "refactorization after a change of rho failed");
                return MCB_ST_DIVERGED;
            }
            if (w->refactors != before)
                snprintf(info->reason, sizeof info->reason,
                         "%d refactorizations of A + J^T R J; rho now %.3g times rho_scale",
                         w->refactors, w->scale / w->prm.rho_scale);
        }
    }
    return MCB_ST_MAX_ITERS;
}

static void ccs_iterate(void *work, double *v, double *lambda)
{
    ccs_work *w = work;
    memcpy(lambda, w->lambda, (size_t)w->P->m * sizeof(double));
    if (v) memcpy(v, w->v, (size_t)w->P->n * sizeof(double));
}

/* Accepts NULL and a partly set-up work (a failed setup frees through it). */
static void ccs_free(void **work)
{
    if (!work || !*work) return;
    ccs_work *w = *work;
    mcb_csc_free(&w->JT);
    mcb_csc_free(&w->B);
    mcb_csc_free(&w->K);
    mcb_chol_free(&w->F);
    free(w->posA);
    free(w->posB);
    free(w->rho0);
    free(w->rho);
    free(w->v);
    free(w->g);
    free(w->lambda);
    free(w->z);
    free(w->s);
    free(w->x);
    free(w->t);
    free(w->part);
    free(w);
    *work = NULL;
}

const mcb_solver_def mcb_solver_ccs = {
    .name = "ccs",
    .description = "contact constraint splitting (Daviet 2020's ADMM, COND's Table VII "
                   "baseline): De Saxce change of variable, one CHOLMOD factor of "
                   "A + J^T R J (never the Delassus operator), per-block proximal steps in "
                   "parallel, residual balancing with refactorization",
    .reference = "Daviet, ACM TOG 39(4), 2020; COND paper Sec. V-E1, Table VII; Boyd et al. "
                 "2011 eq. (3.9), (3.13)",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .accepts_problem = mcb_accepts_no_compliance,
    .params_size = sizeof(ccs_params),
    .default_params = ccs_defaults,
    .params = ccs_desc,
    .nparams = (int)(sizeof ccs_desc / sizeof ccs_desc[0]),
    .check_params = ccs_check,
    .setup = ccs_setup,
    .solve = ccs_solve,
    .iterate = ccs_iterate,
    .free = ccs_free,
};

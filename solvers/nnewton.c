/* nnewton.c: nonsmooth Newton on the Fischer-Burmeister reformulation.
 *
 * The SubADMM paper's NNewton baseline (Sec. IV-B4, after Macklin et al.
 * 2019, "Non-smooth Newton methods for deformable multi-body dynamics").
 * The velocities are eliminated (v = A^-1 (b + J^T lambda), the Schur
 * complement of the saddle-point system, which is exactly the Delassus
 * view u = W lambda + q of lib/mcb_delassus.h), so primal and dual (FCLIB
 * local) problems are solved alike for the impulses lambda:
 *
 *     phi(lambda) = 0,  phi_b = the harness's Fischer-Burmeister residual of
 *                       block b at (lambda, u = W lambda + q):
 *   - contact, mu > 0: the second-order-cone FB function (mcb_fb_soc) of
 *       x = [mu l_n, l_t] and y = [(u_n + mu ||u_t||) / mu, u_t], i.e. the
 *       Signorini-Coulomb law with De Saxce's modified velocity; mu = 0:
 *       [fb(l_n, u_n), l_t1, l_t2];
 *   - unilateral: scalar fb(l, u); bilateral: u; soft: l + k (e + alpha (u - e)).
 * These are exactly the per-block terms of metrics/metrics.c (the "fb"
 * metric), so ||phi|| (the own residual) is what the harness measures as fb.
 *
 * One iteration:
 *   1. the generalized Jacobian H = Da + Db W (m x m, sparse, unsymmetric),
 *      Da, Db block diagonal (3x3 per contact): for the SOC FB function
 *      dphi/dx = I - L_z^-1 L_x, dphi/dy = I - L_z^-1 L_y with z = (x∘x +
 *      y∘y)^(1/2) and L the arrow matrix; where z is on the cone's boundary
 *      (phi not differentiable), the smallest spectral value of x∘x + y∘y is
 *      floored at jac_floor times the largest (the Jacobian of the smoothed
 *      function, which tends to an element of the generalized Jacobian);
 *      the chain rule through x(lambda) and y(u) with d||u_t|| = u_t/||u_t||
 *      (0 at u_t = 0);
 *   2. the Newton direction H d = -phi by sparse LU (lib/mcb_lu.h, KLU:
 *      symbolic analysis once per problem in setup, the first numeric
 *      factorization choosing the pivots, then refactorization in place;
 *      or, with `lu` 1, UMFPACK: the analysis once, fresh pivots and an
 *      allocation at every factorization);
 *   3. globalisation: Armijo backtracking on the merit psi = 1/2 ||phi||^2,
 *      psi(lambda + t d) <= psi_ref + sigma t grad^T d, grad = H^T phi, t
 *      halved at most max_ls times (psi_ref = psi, or the largest of the
 *      last `memory` merits: nonmonotone). When the Newton direction fails
 *      (singular H, non-finite d, no descent, or the line search fails),
 *      regularized directions (H + nu I) d = -phi are tried with
 *      nu = rel max|H_ij|, rel growing tenfold lm_steps times from the
 *      current rel; rel is kept across iterations (Levenberg-Marquardt
 *      update: an accepted full step divides it by 10, never below lm_reg;
 *      W is singular when contacts outnumber the DOFs, and so is H where
 *      contacts stick). Then the Cauchy (steepest-descent) step
 *      d = -grad with t0 = ||grad||^2 / ||H grad||^2; if all fail the
 *      solver stops: stalled, with the reason.
 * It also stops (stalled, with the reason) at a stationary point of the
 * merit that is not a solution, ||H^T phi|| <= stat_tol max|H_ij| ||phi||
 * (an infeasible or ill-posed problem), and when phi = 0 exactly.
 *
 * Own residual: ||phi||. Accepts primal and dual problems. Allocates only in
 * setup and at the first factorization; a refactorization whose pivots
 * degrade is redone with new pivots, which allocates (mcb_lu.h; counted in
 * the docs' figures); with `lu` 1 (UMFPACK) every factorization allocates. Per-block evaluation and the Jacobian fill
 * run under OpenMP (each thread writes its own rows/columns; sums are
 * serial): results are identical across runs for a fixed thread count. */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "lib/mcb_cone.h"
#include "lib/mcb_delassus.h"
#include "lib/mcb_lu.h"
#include "solvers/solver.h"

typedef struct {
    double sigma;     /* Armijo constant */
    int max_ls;       /* backtracking halvings per direction */
    double lm_reg;    /* Levenberg-Marquardt regularization, relative to max|H_ij| */
    double jac_floor; /* relative floor of the smallest spectral value in the SOC Jacobian */
    double stat_tol;  /* stationarity test ||H^T phi|| <= stat_tol max|H| ||phi|| */
    double own_tol;   /* stop on ||phi|| below this (0: never) */
    int lm_steps;     /* regularized directions tried, nu growing tenfold */
    int memory;       /* nonmonotone line search: merits remembered (1: monotone Armijo) */
    int lu;           /* sparse LU backend (mcb_lu_kind): 0 KLU, 1 UMFPACK */
} nn_params;
#define NN_MAX_MEMORY 64

static void nn_defaults(void *p)
{
    nn_params *q = p;
    q->sigma = 1e-4;
    q->max_ls = 10;
    q->lm_reg = 1e-6;
    q->jac_floor = 1e-12;
    q->stat_tol = 1e-12;
    q->own_tol = 0.0;
    q->memory = 1;
    q->lm_steps = 4;
    q->lu = MCB_LU_KLU;
}

static const mcb_param_desc nn_desc[] = {
    {"sigma", 'd', offsetof(nn_params, sigma),
     "Armijo sufficient-decrease constant on 1/2 ||phi||^2, 0 < sigma < 1/2 (1e-4: the usual "
     "choice, Nocedal-Wright Sec. 3.1)"},
    {"max_ls", 'i', offsetof(nn_params, max_ls),
     "step halvings before a Newton or regularized direction is declared failed (the "
     "gradient step gets 4 times as many), in [1, 50] (10: t down to 1e-3)"},
    {"lm_reg", 'd', offsetof(nn_params, lm_reg),
     "first regularized direction (H + nu I) d = -phi, nu = lm_reg max|H_ij|, > 0 (1e-6)"},
    {"lm_steps", 'i', offsetof(nn_params, lm_steps),
     "regularized directions tried when the Newton direction fails, nu growing tenfold each "
     "time, in [0, 12] (4: nu up to 1e-3 max|H_ij|)"},
    {"jac_floor", 'd', offsetof(nn_params, jac_floor),
     "floor of the smallest spectral value of x∘x + y∘y relative to the largest, where the SOC "
     "FB function is not differentiable, in (0, 1) (1e-12)"},
    {"stat_tol", 'd', offsetof(nn_params, stat_tol),
     "stop (stalled) when ||H^T phi|| <= stat_tol max|H_ij| ||phi||: a stationary point of the "
     "merit that is not a solution, >= 0 (1e-12)"},
    {"own_tol", 'd', offsetof(nn_params, own_tol),
     "stop when ||phi|| falls below this (0: only the harness stops it)"},
    {"memory", 'i', offsetof(nn_params, memory),
     "nonmonotone line search (Grippo, Lampariello, Lucidi 1986): the Armijo test against the "
     "largest of the last `memory` merits, in [1, 64] (1: monotone)"},
    MCB_LU_PARAM_DESC(nn_params, lu),
};

typedef struct {
    const mcb_problem *P;
    nn_params prm;
    int m;
    mcb_delassus *D;
    /* units: one per contact, one per row of the other blocks */
    int nunits;
    int *urow, *ulen, *ublk;
    int *row_unit; /* m: the unit of each row */
    double *Da, *Db; /* 3 m: a unit at row r, length L: entry (a, b) at 3 r + a L + b */
    mcb_csc *H;      /* Newton matrix, pattern fixed in setup */
    int *wpos;       /* nnz(W): position in H of (first row of the entry's unit, column) */
    int *dpos;       /* m: position in H of (first row of column j's unit, j) */
    int *diag;       /* m: position of (j, j) in H */
    double hmax;
    /* iterate and scratch */
    double *lambda, *u, *phi, *g, *d, *Wd, *Hg, *lt, *ut, *pt;
    mcb_lu *lu; /* LU of H, pattern analysed once */
    int nnewton, nreg, ngrad; /* accepted steps by kind */
    double last_nu; /* regularization of the last accepted step (0: Newton) */
    double last_t;  /* step length of the last accepted step */
    double rel_nu;  /* current regularization relative to max|H| (Levenberg-Marquardt update) */
    double hist[NN_MAX_MEMORY]; /* last merits, newest first */
    int nhist;
} nn_work;

/* ---- setup and free ---- */

static void nn_free(void **work)
{
    if (!work || !*work) return;
    nn_work *w = *work;
    mcb_lu_free(&w->lu);
    mcb_delassus_free(&w->D);
    mcb_csc_free(&w->H);
    free(w->urow);
    free(w->ulen);
    free(w->ublk);
    free(w->row_unit);
    free(w->Da);
    free(w->Db);
    free(w->wpos);
    free(w->dpos);
    free(w->diag);
    free(w->lambda);
    free(w->u);
    free(w->phi);
    free(w->g);
    free(w->d);
    free(w->Wd);
    free(w->Hg);
    free(w->lt);
    free(w->ut);
    free(w->pt);
    free(w);
    *work = NULL;
}

static mcb_rc nn_check(const void *params, mcb_err *err)
{
    const nn_params *p = params;
    if (!(p->sigma > 0.0 && p->sigma < 0.5))
        return mcb_fail(err, MCB_E_INPUT, "nnewton.sigma = %g must lie in (0, 0.5)", p->sigma);
    if (p->max_ls < 1 || p->max_ls > 50)
        return mcb_fail(err, MCB_E_INPUT, "nnewton.max_ls = %d must lie in [1, 50]", p->max_ls);
    if (p->lm_steps < 0 || p->lm_steps > 12)
        return mcb_fail(err, MCB_E_INPUT, "nnewton.lm_steps = %d must lie in [0, 12]",
                        p->lm_steps);
    if (!(p->lm_reg > 0.0))
        return mcb_fail(err, MCB_E_INPUT, "nnewton.lm_reg = %g must be > 0", p->lm_reg);
    if (!(p->jac_floor > 0.0 && p->jac_floor < 1.0))
        return mcb_fail(err, MCB_E_INPUT, "nnewton.jac_floor = %g must lie in (0, 1)",
                        p->jac_floor);
    if (!(p->stat_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "nnewton.stat_tol = %g must be >= 0", p->stat_tol);
    if (p->memory < 1 || p->memory > NN_MAX_MEMORY)
        return mcb_fail(err, MCB_E_INPUT, "nnewton.memory = %d must lie in [1, %d]", p->memory,
                        NN_MAX_MEMORY);
    if (!(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "nnewton.own_tol = %g must be >= 0", p->own_tol);
    return mcb_lu_check_kind(p->lu, "nnewton", err);
}

/* The units (contacts whole, other blocks row by row) and each row's unit. */
static mcb_rc build_units(nn_work *w)
{
    const mcb_problem *P = w->P;
    int nu = 0;
    for (int b = 0; b < P->nblocks; b++)
        nu += P->blocks[b].type == MCB_CONTACT ? P->blocks[b].nrows / 3 : P->blocks[b].nrows;
    w->nunits = nu;
    w->urow = mcb_calloc((size_t)nu + 1, sizeof(int));
    w->ulen = mcb_calloc((size_t)nu + 1, sizeof(int));
    w->ublk = mcb_calloc((size_t)nu + 1, sizeof(int));
    w->row_unit = mcb_calloc((size_t)w->m + 1, sizeof(int));
    if (!w->urow || !w->ulen || !w->ublk || !w->row_unit) return MCB_E_NOMEM;
    int k = 0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int step = B->type == MCB_CONTACT ? 3 : 1;
        for (int r = B->row; r + step <= B->row + B->nrows; r += step, k++) {
            w->urow[k] = r;
            w->ulen[k] = step;
            w->ublk[k] = b;
            for (int a = 0; a < step; a++) w->row_unit[r + a] = k;
        }
    }
    return MCB_OK;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* H's pattern: column j holds the rows of every unit that meets W(:, j),
 * and the rows of j's own unit (so the diagonal is always present). */
static mcb_rc build_pattern(nn_work *w)
{
    const mcb_csc *W = w->D->W;
    int m = w->m;
    int *mark = mcb_malloc((size_t)m + 1, sizeof(int));
    int *list = mcb_malloc((size_t)m + 1, sizeof(int));
    int *cnt = mcb_calloc((size_t)m + 1, sizeof(int));
    if (!mark || !list || !cnt) {
        free(mark);
        free(list);
        free(cnt);
        return MCB_E_NOMEM;
    }
    for (int i = 0; i < m; i++) mark[i] = -1;
    /* pass 1 counts, pass 2 fills */
    long nnz = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            w->H = mcb_csc_alloc(m, m, (int)nnz);
            if (!w->H) break;
            for (int i = 0; i < m; i++) mark[i] = -1;
        }
        int pos = 0;
        for (int j = 0; j < m; j++) {
            int len = 0;
            int cu = w->row_unit[j];
            for (int kk = -1; kk < W->p[j + 1] - W->p[j]; kk++) {
                int unit = kk < 0 ? cu : w->row_unit[W->i[W->p[j] + kk]];
                int r0 = w->urow[unit];
                if (mark[r0] == j) continue;
                mark[r0] = j;
                list[len++] = r0; /* unit starts; expanded below */
            }
            if (pass == 0) {
                for (int a = 0; a < len; a++) cnt[j] += w->ulen[w->row_unit[list[a]]];
                nnz += cnt[j];
                continue;
            }
            qsort(list, (size_t)len, sizeof(int), cmp_int);
            w->H->p[j] = pos;
            for (int a = 0; a < len; a++) {
                int r0 = list[a], L = w->ulen[w->row_unit[r0]];
                if (r0 == w->urow[cu]) w->dpos[j] = pos;
                for (int b = 0; b < L; b++) {
                    if (r0 + b == j) w->diag[j] = pos;
                    w->H->i[pos++] = r0 + b;
                }
            }
        }
        if (pass == 1) w->H->p[m] = pos;
    }
    free(list);
    free(cnt);
    if (!w->H) {
        free(mark);
        return MCB_E_NOMEM;
    }
    /* wpos: for W's entry (i, j), the position of (unit start of i, j) in H */
    for (int j = 0; j < m; j++) {
        for (int p = w->H->p[j]; p < w->H->p[j + 1]; p++) mark[w->H->i[p]] = p;
        for (int p = W->p[j]; p < W->p[j + 1]; p++)
            w->wpos[p] = mark[w->urow[w->row_unit[W->i[p]]]];
    }
    free(mark);
    return MCB_OK;
}

static mcb_rc nn_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                       void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = nn_check(params, err);
    if (rc) return rc;
    nn_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const nn_params *)params;
    w->m = P->m;
    rc = mcb_delassus_build(P, &w->D, err);
    if (rc) {
        nn_free((void **)&w);
        return rc;
    }
    size_t m = (size_t)P->m + 1, nzw = (size_t)mcb_csc_nnz(w->D->W) + 1;
    w->Da = mcb_calloc(3 * m, sizeof(double));
    w->Db = mcb_calloc(3 * m, sizeof(double));
    w->wpos = mcb_calloc(nzw, sizeof(int));
    w->dpos = mcb_calloc(m, sizeof(int));
    w->diag = mcb_calloc(m, sizeof(int));
    double **vecs[] = {&w->lambda, &w->u, &w->phi, &w->g, &w->d,
                       &w->Wd,     &w->Hg, &w->lt, &w->ut, &w->pt};
    int ok = w->Da && w->Db && w->wpos && w->dpos && w->diag;
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++)
        ok &= (*vecs[k] = mcb_calloc(m, sizeof(double))) != NULL;
    if (!ok || build_units(w) || build_pattern(w)) {
        nn_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    mcb_rc lrc = mcb_lu_analyze(w->H, w->prm.lu, &w->lu, err);
    if (lrc) {
        nn_free((void **)&w);
        return lrc;
    }
    if (s->warm_start && P->lambda0) memcpy(w->lambda, P->lambda0, (size_t)P->m * sizeof(double));
    *work = w;
    return MCB_OK;
}

/* ---- the reformulation and its Jacobian ---- */

/* Scalar FB a + b - sqrt(a^2 + b^2) and its gradient (a choice at 0). */
static double fb_grad(double a, double b, double *da, double *db)
{
    double r = mcb_hypot(a, b);
    if (r > 0.0) {
        *da = 1.0 - a / r;
        *db = 1.0 - b / r;
    } else {
        *da = *db = 1.0 - sqrt(0.5);
    }
    return a + b - r;
}

/* SOC FB phi = x + y - (x∘x + y∘y)^(1/2) (value from mcb_fb_soc), with
 * Fx = I - L_z^-1 L_x and Fy = I - L_z^-1 L_y (3x3 row-major), z the square
 * root with the smallest spectral value floored at floor_rel times the
 * largest (DBL_MIN at least). */
static void fb_soc_jac(const double x[3], const double y[3], double floor_rel, double phi[3],
                       double Fx[9], double Fy[9])
{
    mcb_fb_soc(x, y, phi);
    double w0 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
    double w1 = 2.0 * (x[0] * x[1] + y[0] * y[1]), w2 = 2.0 * (x[0] * x[2] + y[0] * y[2]);
    double nb = mcb_hypot(w1, w2), l1 = w0 - nb, l2 = w0 + nb;
    double lo = floor_rel * l2;
    if (lo < DBL_MIN) lo = DBL_MIN;
    if (l1 < lo) l1 = lo;
    if (l2 < lo) l2 = lo;
    double s1 = sqrt(l1), s2 = sqrt(l2);
    double z0 = 0.5 * (s1 + s2), c = nb > 0.0 ? 0.5 * (s2 - s1) / nb : 0.0;
    double zb[2] = {c * w1, c * w2};
    double det = s1 * s2; /* z0^2 - ||zb||^2 */
    /* L_z^-1 = (1/det) [[z0, -zb^T], [-zb, (det I + zb zb^T) / z0]] */
    double Li[9];
    Li[0] = z0 / det;
    Li[1] = -zb[0] / det;
    Li[2] = -zb[1] / det;
    Li[3] = Li[1];
    Li[6] = Li[2];
    Li[4] = (det + zb[0] * zb[0]) / (det * z0);
    Li[8] = (det + zb[1] * zb[1]) / (det * z0);
    Li[5] = Li[7] = zb[0] * zb[1] / (det * z0);
    const double *v[2] = {x, y};
    double *F[2] = {Fx, Fy};
    for (int t = 0; t < 2; t++) {
        const double *a = v[t];
        double La[9] = {a[0], a[1], a[2], a[1], a[0], 0.0, a[2], 0.0, a[0]};
        for (int r = 0; r < 3; r++)
            for (int col = 0; col < 3; col++) {
                double sum = 0.0;
                for (int k = 0; k < 3; k++) sum += Li[3 * r + k] * La[3 * k + col];
                F[t][3 * r + col] = (r == col ? 1.0 : 0.0) - sum;
            }
    }
}

/* phi of unit k at (lambda, u); with jac, its blocks of Da and Db. */
static void eval_unit(nn_work *w, int k, const double *lambda, const double *u, double *phi,
                      int jac)
{
    const mcb_problem *P = w->P;
    const mcb_block *B = &P->blocks[w->ublk[k]];
    int r = w->urow[k];
    const double *l = lambda + r, *ub = u + r;
    double *ph = phi + r, *Da = w->Da + 3 * (size_t)r, *Db = w->Db + 3 * (size_t)r;
    double ga, gb;
    switch (B->type) {
    case MCB_CONTACT:
        if (B->mu <= 0.0) {
            ph[0] = fb_grad(l[0], ub[0], &ga, &gb);
            ph[1] = l[1];
            ph[2] = l[2];
            if (jac) {
                memset(Da, 0, 9 * sizeof(double));
                memset(Db, 0, 9 * sizeof(double));
                Da[0] = ga;
                Da[4] = Da[8] = 1.0;
                Db[0] = gb;
            }
        } else {
            double mu = B->mu, ut = mcb_hypot(ub[1], ub[2]);
            double x[3] = {mu * l[0], l[1], l[2]};
            double y[3] = {(ub[0] + mu * ut) / mu, ub[1], ub[2]};
            if (!jac) {
                mcb_fb_soc(x, y, ph);
                break;
            }
            double Fx[9], Fy[9];
            fb_soc_jac(x, y, w->prm.jac_floor, ph, Fx, Fy);
            double th[2] = {ut > 0.0 ? ub[1] / ut : 0.0, ut > 0.0 ? ub[2] / ut : 0.0};
            for (int a = 0; a < 3; a++) {
                /* Da = Fx diag(mu, 1, 1); Db = Fy [[1/mu, th^T], [0, I]] */
                Da[3 * a] = Fx[3 * a] * mu;
                Da[3 * a + 1] = Fx[3 * a + 1];
                Da[3 * a + 2] = Fx[3 * a + 2];
                Db[3 * a] = Fy[3 * a] / mu;
                Db[3 * a + 1] = Fy[3 * a] * th[0] + Fy[3 * a + 1];
                Db[3 * a + 2] = Fy[3 * a] * th[1] + Fy[3 * a + 2];
            }
        }
        break;
    case MCB_UNILATERAL:
        ph[0] = fb_grad(l[0], ub[0], &ga, &gb);
        if (jac) {
            Da[0] = ga;
            Db[0] = gb;
        }
        break;
    case MCB_BILATERAL:
        ph[0] = ub[0];
        if (jac) {
            Da[0] = 0.0;
            Db[0] = 1.0;
        }
        break;
    default: { /* soft: l + k (e + alpha (u - e)); e absent (dual form): 0 */
        double e = P->e ? P->e[r] : 0.0;
        ph[0] = l[0] + B->k * (e + B->alpha * (ub[0] - e));
        if (jac) {
            Da[0] = 1.0;
            Db[0] = B->k * B->alpha;
        }
        break;
    }
    }
}

/* phi at (lambda, u), Jacobian blocks with jac; returns ||phi||^2 (NaN
 * propagates). */
static double eval_phi(nn_work *w, const double *lambda, const double *u, double *phi, int jac)
{
#pragma omp parallel for schedule(static)
    for (int k = 0; k < w->nunits; k++) eval_unit(w, k, lambda, u, phi, jac);
    double s = 0.0;
    for (int i = 0; i < w->m; i++) s += phi[i] * phi[i];
    return s;
}

/* u = W lambda + q */
static void velocity(nn_work *w, const double *lambda, double *u)
{
    memcpy(u, w->D->q, (size_t)w->m * sizeof(double));
    mcb_csc_gaxpy(w->D->W, lambda, u);
}

/* H = Da + Db W, values only (pattern from setup); sets w->hmax. */
static void fill_jacobian(nn_work *w)
{
    const mcb_csc *W = w->D->W;
    mcb_csc *H = w->H;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < w->m; j++) {
        for (int p = H->p[j]; p < H->p[j + 1]; p++) H->x[p] = 0.0;
        for (int p = W->p[j]; p < W->p[j + 1]; p++) {
            int i = W->i[p], r0 = w->urow[w->row_unit[i]], L = w->ulen[w->row_unit[i]];
            const double *Db = w->Db + 3 * (size_t)r0;
            for (int a = 0; a < L; a++) H->x[w->wpos[p] + a] += Db[a * L + (i - r0)] * W->x[p];
        }
        int c0 = w->urow[w->row_unit[j]], L = w->ulen[w->row_unit[j]];
        const double *Da = w->Da + 3 * (size_t)c0;
        for (int a = 0; a < L; a++) H->x[w->dpos[j] + a] += Da[a * L + (j - c0)];
    }
    double hmax = 0.0;
    for (int p = 0; p < H->p[w->m]; p++)
        if (fabs(H->x[p]) > hmax) hmax = fabs(H->x[p]);
    w->hmax = hmax;
}

/* g = H^T phi */
static void merit_gradient(nn_work *w)
{
    const mcb_csc *H = w->H;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < w->m; j++) {
        double s = 0.0;
        for (int p = H->p[j]; p < H->p[j + 1]; p++) s += H->x[p] * w->phi[H->i[p]];
        w->g[j] = s;
    }
}

/* ---- one step ---- */

/* Factors H (+ nu on the diagonal) and solves H d = -phi. Returns 0 on
 * success, 1 when H is singular or d is not finite, -1 on a hard error
 * (out of memory). */
static int newton_direction(nn_work *w, double nu)
{
    mcb_csc *H = w->H;
    int m = w->m;
    if (nu != 0.0)
        for (int j = 0; j < m; j++) H->x[w->diag[j]] += nu;
    int st = mcb_lu_factor(w->lu, H);
    int ret = st == MCB_E_NOMEM ? -1 : st ? 1 : 0;
    if (ret == 0) {
        for (int i = 0; i < m; i++) w->d[i] = -w->phi[i];
        if (mcb_lu_solve(w->lu, w->d) || !mcb_all_finite(m, w->d)) ret = 1;
    }
    if (nu != 0.0)
        for (int j = 0; j < m; j++) H->x[w->diag[j]] -= nu;
    return ret;
}

/* Armijo backtracking along w->d from t0; on success lambda, u, phi and
 * *psi are the accepted point's and 1 is returned. */
static int line_search(nn_work *w, double t0, double slope, int max_ls, double *psi)
{
    double ref = *psi;
    for (int k = 0; k < w->nhist && k < w->prm.memory; k++)
        if (w->hist[k] > ref) ref = w->hist[k];
    int m = w->m;
    memset(w->Wd, 0, (size_t)m * sizeof(double));
    mcb_csc_gaxpy(w->D->W, w->d, w->Wd);
    double t = t0;
    for (int ls = 0; ls <= max_ls; ls++, t *= 0.5) {
        for (int i = 0; i < m; i++) {
            w->lt[i] = w->lambda[i] + t * w->d[i];
            w->ut[i] = w->u[i] + t * w->Wd[i];
        }
        double ptry = 0.5 * eval_phi(w, w->lt, w->ut, w->pt, 0);
        if (isfinite(ptry) && ptry <= ref + w->prm.sigma * t * slope) {
            memcpy(w->lambda, w->lt, (size_t)m * sizeof(double));
            velocity(w, w->lambda, w->u); /* fresh, no drift */
            *psi = 0.5 * eval_phi(w, w->lambda, w->u, w->phi, 0);
            w->last_t = t;
            return 1;
        }
    }
    return 0;
}

/* A Newton-type direction in w->d: its slope grad^T d, or +inf when it is
 * no descent direction. */
static double slope_of(nn_work *w)
{
    double s = mcb_dot(w->m, w->g, w->d);
    return isfinite(s) && s < 0.0 ? s : INFINITY;
}

enum { STEP_OK = 0, STEP_FAILED = 1, STEP_HARD = 2 };

/* One globalized step from the current point (phi and the Jacobian blocks
 * evaluated there). *kind: 0 Newton, 1 regularized, 2 gradient. A
 * direction fails when it cannot be computed, is no descent direction, or
 * its line search needs more than max_ls halvings; the regularized ladder
 * tries nu = lm_reg max|H| 10^j, j = 0 .. lm_steps - 1; the gradient step
 * may halve 4 max_ls times. */
static int nn_step(nn_work *w, double *psi, int *kind, int *umf_status)
{
    double psi0 = *psi, hmax = w->hmax > 0.0 ? w->hmax : 1.0;
    for (int attempt = 0; attempt <= w->prm.lm_steps; attempt++) {
        double rel = w->rel_nu * pow(10.0, attempt - 1);
        double nu = attempt == 0 ? 0.0 : rel * hmax;
        int r = newton_direction(w, nu);
        if (r < 0) {
            *umf_status = r;
            return STEP_HARD;
        }
        if (r > 0) continue;
        double slope = slope_of(w);
        if (isinf(slope)) continue;
        *psi = psi0;
        if (line_search(w, 1.0, slope, w->prm.max_ls, psi)) {
            *kind = attempt > 0;
            w->last_nu = nu;
            if (attempt > 0) { /* keep nu; a full step lowers it */
                w->rel_nu = w->last_t == 1.0 ? rel / 10.0 : rel;
                if (w->rel_nu < w->prm.lm_reg) w->rel_nu = w->prm.lm_reg;
            }
            return STEP_OK;
        }
    }
    /* the Cauchy step along -grad */
    int m = w->m;
    for (int i = 0; i < m; i++) w->d[i] = -w->g[i];
    memset(w->Hg, 0, (size_t)m * sizeof(double));
    mcb_csc_gaxpy(w->H, w->g, w->Hg);
    double g2 = mcb_dot(m, w->g, w->g), hg2 = mcb_dot(m, w->Hg, w->Hg);
    if (!(g2 > 0.0) || !(hg2 > 0.0) || !isfinite(g2 / hg2)) return STEP_FAILED;
    *psi = psi0;
    if (line_search(w, g2 / hg2, -g2, 4 * w->prm.max_ls, psi)) {
        *kind = 2;
        return STEP_OK;
    }
    return STEP_FAILED;
}

static int nn_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    nn_work *w = work;
    int m = w->m;
    if (m == 0) {
        snprintf(info->reason, sizeof info->reason, "no constraint rows: nothing to solve");
        return MCB_ST_STALLED;
    }
    velocity(w, w->lambda, w->u);
    w->rel_nu = w->prm.lm_reg;
    for (int it = 1; it <= s->max_iters; it++) {
        double psi = 0.5 * eval_phi(w, w->lambda, w->u, w->phi, 1);
        double pn = sqrt(2.0 * psi);
        if (!isfinite(pn)) {
            snprintf(info->reason, sizeof info->reason, "non-finite residual ||phi||");
            return MCB_ST_DIVERGED;
        }
        if (pn == 0.0) {
            snprintf(info->reason, sizeof info->reason,
                     "phi = 0 exactly: nothing left to decrease (after %d iterations)", it - 1);
            return MCB_ST_STALLED;
        }
        fill_jacobian(w);
        merit_gradient(w);
        double gn = mcb_norm2(m, w->g);
        if (gn <= w->prm.stat_tol * w->hmax * pn) {
            snprintf(info->reason, sizeof info->reason,
                     "stationary point of the merit 1/2||phi||^2 that is no solution "
                     "(||H^T phi|| = %.3g at ||phi|| = %.3g): the problem may be infeasible "
                     "or ill-posed",
                     gn, pn);
            return MCB_ST_STALLED;
        }
        int kind = 0, ust = 0;
        int r = nn_step(w, &psi, &kind, &ust);
        if (r == STEP_HARD) {
            snprintf(info->reason, sizeof info->reason,
                     "sparse LU ran out of memory (status %d) at iteration %d", ust, it);
            return MCB_ST_DIVERGED;
        }
        if (r == STEP_FAILED) {
            snprintf(info->reason, sizeof info->reason,
                     "line search failed along the Newton, %d regularized (nu up to %.3g) and "
                     "gradient directions at ||phi|| = %.3g (iteration %d; accepted steps: %d "
                     "Newton, %d regularized, %d gradient)",
                     w->prm.lm_steps, w->prm.lm_reg * w->hmax * pow(10.0, w->prm.lm_steps - 1),
                     pn, it, w->nnewton, w->nreg, w->ngrad);
            return MCB_ST_STALLED;
        }
        memmove(w->hist + 1, w->hist, (NN_MAX_MEMORY - 1) * sizeof(double));
        w->hist[0] = psi;
        if (w->nhist < NN_MAX_MEMORY) w->nhist++;
        if (kind == 0) w->nnewton++;
        else if (kind == 1) w->nreg++;
        else w->ngrad++;
        info->iterations = it;
        info->own_residual = sqrt(2.0 * psi);
        if (!isfinite(info->own_residual)) return MCB_ST_DIVERGED;
        mcb_cb_action a = cb(ctx, it, info->own_residual);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
        if (info->own_residual <= w->prm.own_tol) {
            snprintf(info->reason, sizeof info->reason, "||phi|| = %.3g <= own_tol = %.3g",
                     info->own_residual, w->prm.own_tol);
            return MCB_ST_STALLED;
        }
    }
    return MCB_ST_MAX_ITERS;
}

static void nn_iterate(void *work, double *v, double *lambda)
{
    nn_work *w = work;
    memcpy(lambda, w->lambda, (size_t)w->m * sizeof(double));
    if (v && w->P->form == MCB_PRIMAL) mcb_delassus_velocity(w->D, w->lambda, v);
}

const mcb_solver_def mcb_solver_nnewton = {
    .name = "nnewton",
    .accepts_problem = mcb_accepts_coulomb_only,
    .description = "nonsmooth Newton on the Fischer-Burmeister reformulation (SOC FB for "
                   "contacts) over the Delassus operator, sparse LU (KLU, refactored in place), Armijo line search with "
                   "Levenberg-Marquardt and gradient fallbacks",
    .reference = "SubADMM paper Sec. IV-B4 (NNewton); Macklin et al. 2019 (ACM TOG 38(5)); "
                 "Fukushima, Luo, Tseng 2002 (SOC FB)",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,
    .params_size = sizeof(nn_params),
    .default_params = nn_defaults,
    .params = nn_desc,
    .nparams = (int)(sizeof nn_desc / sizeof nn_desc[0]),
    .check_params = nn_check,
    .setup = nn_setup,
    .solve = nn_solve,
    .iterate = nn_iterate,
    .free = nn_free,
};

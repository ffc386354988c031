/* ccp_jacobi.c: the parallel projected-Jacobi iteration on the cone
 * complementarity problem of Tasora and Negrut ("A parallel algorithm for
 * solving complex multibody problems with stream processors", eq. (21)-(23)
 * and Alg. 1; Anitescu and Tasora 2010 for its convergence).
 *
 * In our notation M = A, D_i = J_i^T (a contact's three rows), gamma =
 * lambda, b_i = e_i, k~ = b, so that D_i^T v + b_i = u_i = J_i v + e_i
 * (plus r_i lambda_i with per-row compliance r: u_i carries it and eta's
 * diagonal is that of W + diag(r)).
 * One iteration r, organised as their GPU kernels are:
 *   contact-parallel pass, for every constraint block i (eq. (21), (22)):
 *     u_i = J_i v^r + e_i
 *     contact:   lambda_i = relax P_K(lambda_i - omega eta_i u_i) + (1 - relax) lambda_i
 *     bilateral: lambda_i = relax (lambda_i - omega eta_i u_i)    + (1 - relax) lambda_i
 *     unilateral rows as bilateral ones, projected on R+; soft rows as the
 *     compliant bilateral row u + lambda / (k alpha) + (1 - alpha) e / alpha
 *     (eta = 1 / (W_rr + 1/(k alpha))), or fixed at -k e when k alpha = 0;
 *   body-parallel pass, for every subsystem s (eq. (23)):
 *     v_s^{r+1} = A_s^-1 (b_s + (J^T lambda^{r+1})_s)
 * with eta_i = eta_c / Tr(J_i A^-1 J_i^T) for a contact (eta_c = 3, Alg. 1
 * step 1) and 1 / (J_r A^-1 J_r^T) for a scalar row (step 2), omega = 0.3
 * and relax (their lambda) = 1 by default. Eq. (23) is applied as written
 * (the velocity recomputed from all impulses), which equals Alg. 1's
 * incremental step 7 without its drift. Matrix-free: each subsystem's block
 * A_s is factored once (densely up to MCB_DELASSUS_DENSE_MAX DOFs, by
 * CHOLMOD above; no allocation in the loop), J is kept as it is (and its transpose for
 * row access); W is never formed: the diagonal J_r A^-1 J_r^T needed for eta
 * is ||L_s^-1 P_s J_{r,s}^T||^2 summed over subsystems, from sparse triangular
 * solves at setup. The reduction of J^T lambda is per DOF over J's column,
 * in a fixed order (the paper's reduction buffer, without atomics), so the
 * result is bit for bit the same for any thread count (and identical to the
 * serial Alg. 1; tests/test_ccp.c checks both).
 * Primal problems only. Own residual: ||v^{r+1} - v^r|| / max(1, ||v^{r+1}||)
 * (Alg. 1 stops on the velocity update). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_chol.h"
#include "lib/mcb_cone.h"
#include "lib/mcb_delassus.h"
#include "solvers/ccp_jacobi.h"
#include "solvers/solver.h"

void mcb_ccpj_defaults(void *p)
{
    mcb_ccpj_params *q = p;
    q->omega = 0.3;
    q->relax = 1.0;
    q->eta_c = 3.0;
    q->own_tol = 0.0;
}

const mcb_param_desc mcb_ccpj_desc[MCB_CCPJ_NPARAMS] = {
    {"omega", 'd', offsetof(mcb_ccpj_params, omega),
     "step factor omega of eq. (21)-(22), > 0 (0.3: the paper's experiments)"},
    {"relax", 'd', offsetof(mcb_ccpj_params, relax),
     "the paper's lambda, in (0, 1]: gamma = relax P(..) + (1 - relax) gamma (default 1)"},
    {"eta_c", 'd', offsetof(mcb_ccpj_params, eta_c),
     "a contact's eta_i = eta_c / Tr(D_i^T M^-1 D_i), > 0 (Alg. 1 step 1: 3)"},
    {"own_tol", 'd', offsetof(mcb_ccpj_params, own_tol),
     "stop when the own residual falls below this (0: only the harness stops it)"},
};

void mcb_ccpj_free(void **work)
{
    if (!work || !*work) return;
    mcb_ccpj_work *w = *work;
    for (int s = 0; w->F && s < w->ns; s++) mcb_chol_free(&w->F[s]);
    for (int s = 0; w->L && s < w->ns; s++) free(w->L[s]);
    free(w->F);
    free(w->L);
    free(w->s0);
    mcb_csc_free(&w->JT);
    double **v[] = {&w->eta, &w->c, &w->d, &w->fixed, &w->lambda, &w->v, &w->vprev};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) free(*v[k]);
    free(w);
    *work = NULL;
}

mcb_rc mcb_ccpj_check(const void *params, mcb_err *err)
{
    const mcb_ccpj_params *p = params;
    if (!(p->omega > 0.0) || !isfinite(p->omega))
        return mcb_fail(err, MCB_E_INPUT, "ccp-jacobi.omega = %g must be > 0", p->omega);
    if (!(p->relax > 0.0 && p->relax <= 1.0))
        return mcb_fail(err, MCB_E_INPUT, "ccp-jacobi.relax = %g must lie in (0, 1]", p->relax);
    if (!(p->eta_c > 0.0) || !isfinite(p->eta_c))
        return mcb_fail(err, MCB_E_INPUT, "ccp-jacobi.eta_c = %g must be > 0", p->eta_c);
    if (!(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "ccp-jacobi.own_tol = %g must be >= 0", p->own_tol);
    return MCB_OK;
}

/* A small subsystem: A_s dense and factored in place, and J_{r,s} A_s^-1
 * J_{r,s}^T added into diag[r] for the rows r that touch it (found through
 * J's columns, marked with the subsystem's stamp): O(rows x size^2), so
 * that thousands of bodies cost no more than their rows. */
static mcb_rc factor_dense(mcb_ccpj_work *w, int s, double *diag, int *mark, double *x, double *y,
                           mcb_err *err)
{
    const mcb_problem *P = w->P;
    int a = w->s0[s], nv = w->s0[s + 1] - a;
    double *L = mcb_calloc((size_t)nv * nv, sizeof(double));
    if (!L) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->L[s] = L;
    for (int j = 0; j < nv; j++)
        for (int k = P->A->p[a + j]; k < P->A->p[a + j + 1]; k++) {
            int i = P->A->i[k] - a;
            if (i >= 0 && i < nv) L[(size_t)j * nv + i] = P->A->x[k];
        }
    if (mcb_dense_chol(nv, L) != MCB_OK)
        return mcb_fail(err, MCB_E_NUMERIC,
                        "ccp-jacobi: subsystem %d's block of A is not positive definite", s);
    const mcb_csc *J = P->J;
    for (int j = a; j < a + nv; j++)
        for (int k = J->p[j]; k < J->p[j + 1]; k++) {
            int r = J->i[k];
            if (mark[r] == s) continue;
            mark[r] = s;
            memset(x, 0, (size_t)nv * sizeof(double));
            for (int q = w->JT->p[r]; q < w->JT->p[r + 1]; q++) {
                int c = w->JT->i[q] - a;
                if (c >= 0 && c < nv) x[c] = w->JT->x[q];
            }
            memcpy(y, x, (size_t)nv * sizeof(double));
            mcb_dense_chol_solve(nv, L, y);
            for (int c = 0; c < nv; c++) diag[r] += x[c] * y[c];
        }
    return MCB_OK;
}

/* Factors A_s for every subsystem and adds ||L_s^-1 P_s J_{r,s}^T||^2 into
 * diag[r] (the diagonal of J A^-1 J^T, matrix-free): densely for small
 * subsystems, by CHOLMOD and sparse triangular solves for large ones. */
static mcb_rc factor_subsystems(mcb_ccpj_work *w, double *diag, mcb_err *err)
{
    const mcb_problem *P = w->P;
    int *mark = mcb_malloc((size_t)P->m + 1, sizeof(int));
    double *x = mcb_malloc(MCB_DELASSUS_DENSE_MAX, sizeof(double));
    double *y = mcb_malloc(MCB_DELASSUS_DENSE_MAX, sizeof(double));
    mcb_rc rc = mark && x && y ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int r = 0; r < P->m && !rc; r++) mark[r] = -1;
    for (int s = 0; s < w->ns && !rc; s++)
        if (w->s0[s + 1] - w->s0[s] <= MCB_DELASSUS_DENSE_MAX)
            rc = factor_dense(w, s, diag, mark, x, y, err);
    free(mark);
    free(x);
    free(y);
    if (rc) return rc;
    for (int s = 0; s < w->ns; s++) {
        int a = w->s0[s], b = w->s0[s + 1];
        if (b - a <= MCB_DELASSUS_DENSE_MAX) continue;
        mcb_csc *As = mcb_csc_block(P->A, a, b, a, b);
        mcb_csc *Bs = mcb_csc_block(w->JT, a, b, 0, P->m);
        if (!As || !Bs) {
            mcb_csc_free(&As);
            mcb_csc_free(&Bs);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
        mcb_rc rc = mcb_chol_factor(As, &w->F[s], err);
        mcb_csc_free(&As);
        mcb_csc *G = rc ? NULL : mcb_chol_lsolve_sparse(w->F[s], Bs);
        mcb_csc_free(&Bs);
        if (rc) return rc;
        if (!G) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        for (int r = 0; r < P->m; r++)
            for (int k = G->p[r]; k < G->p[r + 1]; k++) diag[r] += G->x[k] * G->x[k];
        mcb_csc_free(&G);
        /* the first in-place solve sets up its work: outside the loop */
        double *t = mcb_calloc((size_t)(b - a), sizeof(double));
        rc = t ? mcb_chol_solve_inplace(w->F[s], t) : MCB_E_NOMEM;
        free(t);
        if (rc) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    return MCB_OK;
}

/* eta per row from the Delassus diagonal (Alg. 1 steps 1-2); soft rows'
 * compliance. A row or contact with a zero diagonal keeps eta = 0. */
static void set_eta(mcb_ccpj_work *w, const double *diag)
{
    const mcb_problem *P = w->P;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r0 = B->row;
        if (mcb_is_contact(B->type)) {
            double tr = diag[r0] + diag[r0 + 1] + diag[r0 + 2];
            double e = tr > 0.0 ? w->prm.eta_c / tr : 0.0;
            w->eta[r0] = w->eta[r0 + 1] = w->eta[r0 + 2] = e;
            continue;
        }
        for (int r = r0; r < r0 + B->nrows; r++) {
            double dd = diag[r];
            w->fixed[r] = NAN;
            if (B->type == MCB_SOFT) {
                double ka = B->k * B->alpha;
                if (ka > 0.0) {
                    w->c[r] = 1.0 / ka;
                    w->d[r] = (1.0 - B->alpha) / B->alpha * P->e[r];
                    dd += w->c[r];
                } else {
                    w->fixed[r] = -B->k * P->e[r];
                }
            }
            w->eta[r] = dd > 0.0 ? 1.0 / dd : 0.0;
        }
    }
}

static void velocity_pass(mcb_ccpj_work *w);

mcb_rc mcb_ccpj_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                         void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = mcb_ccpj_check(params, err);
    if (rc) return rc;
    mcb_ccpj_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const mcb_ccpj_params *)params;
    w->ns = P->nsub > 0 ? P->nsub : 1;
    w->s0 = mcb_malloc((size_t)w->ns + 1, sizeof(int));
    w->F = mcb_calloc((size_t)w->ns, sizeof(mcb_chol *));
    w->L = mcb_calloc((size_t)w->ns, sizeof(double *));
    w->JT = mcb_csc_transpose(P->J);
    size_t m = (size_t)P->m + 1, n = (size_t)P->n + 1;
    w->eta = mcb_calloc(m, sizeof(double));
    w->c = mcb_calloc(m, sizeof(double));
    w->d = mcb_calloc(m, sizeof(double));
    w->fixed = mcb_calloc(m, sizeof(double));
    w->lambda = mcb_calloc(m, sizeof(double));
    w->v = mcb_calloc(n, sizeof(double));
    w->vprev = mcb_calloc(n, sizeof(double));
    double *diag = mcb_calloc(m, sizeof(double));
    if (!w->s0 || !w->F || !w->L || !w->JT || !w->eta || !w->c || !w->d || !w->fixed || !w->lambda ||
        !w->v || !w->vprev || !diag) {
        free(diag);
        mcb_ccpj_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (P->nsub > 0) memcpy(w->s0, P->sub_start, ((size_t)P->nsub + 1) * sizeof(int));
    else w->s0[0] = 0, w->s0[1] = P->n;
    rc = factor_subsystems(w, diag, err);
    /* the compliance r: the diagonal of W + diag(r) */
    for (int r = 0; !rc && r < P->m; r++) diag[r] += mcb_problem_r(P, r);
    if (!rc) set_eta(w, diag);
    free(diag);
    if (rc) {
        mcb_ccpj_free((void **)&w);
        return rc;
    }
    /* Alg. 1 step 3-4: gamma^0 (warm start or 0), v^0 from eq. (23) */
    if (s->warm_start && P->lambda0)
        memcpy(w->lambda, P->lambda0, (size_t)P->m * sizeof(double));
    for (int r = 0; r < P->m; r++)
        if (!isnan(w->fixed[r])) w->lambda[r] = w->fixed[r];
    velocity_pass(w);
    *work = w;
    return MCB_OK;
}

/* Eq. (21)-(22) on block B, from v^r; lambda updated in place (each block
 * owns its rows). */
static void block_update(mcb_ccpj_work *w, const mcb_block *B)
{
    const mcb_problem *P = w->P;
    const mcb_csc *JT = w->JT;
    double om = w->prm.omega, rl = w->prm.relax, t[3], p[3];
    int r0 = B->row;
    for (int r = r0; r < r0 + B->nrows; r++) {
        double u = P->e[r] + mcb_problem_r(P, r) * w->lambda[r]; /* J v + e + r∘lambda */
        for (int k = JT->p[r]; k < JT->p[r + 1]; k++) u += JT->x[k] * w->v[JT->i[k]];
        if (mcb_is_contact(B->type)) {
            t[r - r0] = w->lambda[r] - om * w->eta[r] * u;
            continue;
        }
        double *l = &w->lambda[r];
        if (!isnan(w->fixed[r])) continue;
        double g = B->type == MCB_SOFT ? u + w->c[r] * *l + w->d[r] : u;
        double x = *l - om * w->eta[r] * g;
        if (B->type == MCB_UNILATERAL && x < 0.0) x = 0.0;
        *l = rl * x + (1.0 - rl) * *l;
    }
    if (mcb_is_contact(B->type)) {
        mcb_proj_cone(B->mu, t, p);
        for (int a = 0; a < 3; a++)
            w->lambda[r0 + a] = rl * p[a] + (1.0 - rl) * w->lambda[r0 + a];
    }
}

/* Eq. (23), subsystem-parallel: v_s = A_s^-1 (b_s + (J^T lambda)_s), the
 * reduction of J^T lambda per DOF over J's column in a fixed order. */
static void velocity_pass(mcb_ccpj_work *w)
{
    const mcb_problem *P = w->P;
    const mcb_csc *J = P->J;
#pragma omp parallel for schedule(dynamic, 8)
    for (int s = 0; s < w->ns; s++) {
        for (int j = w->s0[s]; j < w->s0[s + 1]; j++) {
            double x = P->b[j];
            for (int k = J->p[j]; k < J->p[j + 1]; k++) x += J->x[k] * w->lambda[J->i[k]];
            w->v[j] = x;
        }
        if (w->L[s]) mcb_dense_chol_solve(w->s0[s + 1] - w->s0[s], w->L[s], w->v + w->s0[s]);
        else if (w->F[s]) mcb_chol_solve_inplace(w->F[s], w->v + w->s0[s]);
    }
}

int mcb_ccpj_judge(const mcb_ccpj_params *prm, int it, double own, int lambda_finite,
                   mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    info->iterations = it;
    info->own_residual = own;
    if (!isfinite(own) || !lambda_finite) {
        snprintf(info->reason, sizeof info->reason, "non-finite iterate at iteration %d", it);
        return MCB_ST_DIVERGED;
    }
    mcb_cb_action a = cb(ctx, it, own);
    if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
    if (own <= prm->own_tol) {
        snprintf(info->reason, sizeof info->reason, "velocity update %g <= own_tol", own);
        return MCB_ST_STALLED;
    }
    return -1;
}

static int ccpj_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                      mcb_info *info)
{
    mcb_ccpj_work *w = work;
    const mcb_problem *P = w->P;
    int n = P->n;
    for (int it = 1; it <= s->max_iters; it++) {
        memcpy(w->vprev, w->v, (size_t)n * sizeof(double));
#pragma omp parallel for schedule(static)
        for (int b = 0; b < P->nblocks; b++) block_update(w, &P->blocks[b]);
        velocity_pass(w);
        double dv = 0.0;
        for (int j = 0; j < n; j++) dv += (w->v[j] - w->vprev[j]) * (w->v[j] - w->vprev[j]);
        double vn = mcb_norm2(n, w->v);
        int st = mcb_ccpj_judge(&w->prm, it, sqrt(dv) / (vn > 1.0 ? vn : 1.0),
                                mcb_all_finite(P->m, w->lambda), cb, ctx, info);
        if (st >= 0) return st;
    }
    return MCB_ST_MAX_ITERS;
}

static void ccpj_iterate(void *work, double *v, double *lambda)
{
    mcb_ccpj_work *w = work;
    memcpy(lambda, w->lambda, (size_t)w->P->m * sizeof(double));
    if (v) memcpy(v, w->v, (size_t)w->P->n * sizeof(double));
}

const mcb_solver_def mcb_solver_ccp_jacobi = {
    .name = "ccp-jacobi",
    .description = "Tasora-Negrut parallel projected Jacobi on the CCP: contact-parallel "
                   "projections, subsystem-parallel velocity update, matrix-free (A_s "
                   "factored once, never W)",
    .reference = "Tasora and Negrut, GPU CCP paper eq. (21)-(23), Alg. 1",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .params_size = sizeof(mcb_ccpj_params),
    .default_params = mcb_ccpj_defaults,
    .params = mcb_ccpj_desc,
    .nparams = MCB_CCPJ_NPARAMS,
    .check_params = mcb_ccpj_check,
    .setup = mcb_ccpj_setup,
    .solve = ccpj_solve,
    .iterate = ccpj_iterate,
    .free = mcb_ccpj_free,
};

/* fixed_point.c: the fixed-point (proximal) iteration of RPIsim's Table 1
 * ("Fixed-point: LCP, NCP, iterative method"; issue 13).
 *
 * The paper names the method and the two forms it applies to, not the
 * iteration or its step. We read it as the projection fixed point of the
 * complementarity problem, z = proj_K(z - r F(z)), iterated in the Jacobi
 * way (every block from the same previous iterate), with u = W z + q:
 *   - LCP rows (unilateral):  z_i <- max(0, z_i - r_i u_i);
 *   - MLCP rows (bilateral):  z_i <- z_i - r_i u_i  (K = R, no projection);
 *   - NCP form, a contact block [n, t1, t2] with friction mu (the
 *     Signorini-Coulomb law with De Saxce's modified velocity):
 *       z_c <- proj_{K_mu}(z_c - r_c (u_c + [mu ||u_t||, 0, 0]));
 *     a contact_ccp block (Anitescu's cone complementarity):
 *       z_c <- proj_{K_mu}(z_c - r_c u_c).
 * This is the iteration of RPIsim's own MATLAB fixed-point solver (a prox
 * projection onto the positive orthant per variable group), written once
 * for every block type. The step r: step_rule 0 (default) one scalar
 * r = gamma / ||W||_2, ||W||_2 estimated by power iteration on W^T W in
 * setup (for a symmetric positive semidefinite W the iteration is then the
 * projected gradient method on 1/2 z^T W z + q^T z and converges for
 * 0 < gamma < 2); step_rule 1 one step per block, r_b = gamma / max W_ii
 * over the block's rows (a Jacobi scaling; a block whose diagonal is not
 * positive, as the slack rows of Stewart-Trinkle's LCP, takes rule 0's
 * r). For an unsymmetric W (Stewart-Trinkle, Anitescu-Potra) neither rule
 * is guaranteed to converge: the harness's budget and its divergence
 * check judge.
 *
 * Own residual: ||z+ - z||_2 (the fixed-point residual: r times the
 * natural map for a scalar r). A non-finite iterate is diverged. Takes
 * problems with unilateral, bilateral, contact and contact_ccp blocks, dual
 * (W, q as given) or primal (the Delassus view W = J A^-1 J^T of
 * lib/mcb_delassus.h, as pgs and pj). Allocates only in setup (W, W^T for
 * row access, the vectors). The block
 * loop runs under OpenMP (Jacobi: each thread writes its own rows; the
 * residual is summed serially): identical results for any thread count. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_cone.h"
#include "lib/mcb_delassus.h"
#include "solvers/solver.h"

typedef struct {
    int step_rule;    /* 0 gamma / ||W||_2, 1 gamma / max W_ii per block */
    double gamma;     /* step scale */
    int power_iters;  /* power iterations for ||W||_2 */
    double own_tol;   /* stop on ||z+ - z|| below this (0: never) */
} fp_params;

static void fp_defaults(void *p)
{
    fp_params *q = p;
    q->step_rule = 0;
    q->gamma = 1.0;
    q->power_iters = 50;
    q->own_tol = 0.0;
}

static const mcb_param_desc fp_desc[] = {
    {"step_rule", 'i', offsetof(fp_params, step_rule),
     "0: one step r = gamma / ||W||_2 (power iteration); 1: per block r_b = gamma / max W_ii "
     "(blocks without a positive diagonal take rule 0's r) (0)"},
    {"gamma", 'd', offsetof(fp_params, gamma),
     "step scale, > 0 (1: the projected-gradient step 1/L; RPIsim's MATLAB solver uses 0.3 / "
     "lambda_max per variable group; below 2 converges for a symmetric PSD W with rule 0)"},
    {"power_iters", 'i', offsetof(fp_params, power_iters),
     "power iterations on W^T W estimating ||W||_2, in [1, 10000] (50)"},
    {"own_tol", 'd', offsetof(fp_params, own_tol),
     "stop when ||z+ - z|| falls below this (0: only the harness stops it)"},
};

typedef struct {
    const mcb_problem *P;
    fp_params prm;
    int m;
    mcb_delassus *D; /* W, W^T (column i holds row i of W), q */
    double *r;     /* per block step */
    double *z, *zn, *u, *x, *y, *dz2; /* dz2: per block, summed serially */
    double wnorm;  /* ||W||_2 estimate */
} fp_work;

static void fp_free(void **work)
{
    if (!work || !*work) return;
    fp_work *w = *work;
    mcb_delassus_free(&w->D);
    free(w->r);
    free(w->z);
    free(w->zn);
    free(w->u);
    free(w->x);
    free(w->y);
    free(w->dz2);
    free(w);
    *work = NULL;
}

static mcb_rc fp_check(const void *params, mcb_err *err)
{
    const fp_params *p = params;
    if (p->step_rule != 0 && p->step_rule != 1)
        return mcb_fail(err, MCB_E_INPUT, "fixed-point.step_rule = %d must be 0 or 1",
                        p->step_rule);
    if (!(p->gamma > 0.0))
        return mcb_fail(err, MCB_E_INPUT, "fixed-point.gamma = %g must be > 0", p->gamma);
    if (p->power_iters < 1 || p->power_iters > 10000)
        return mcb_fail(err, MCB_E_INPUT, "fixed-point.power_iters = %d must lie in [1, 10000]",
                        p->power_iters);
    if (!(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "fixed-point.own_tol = %g must be >= 0", p->own_tol);
    return MCB_OK;
}

static int fp_accepts(const mcb_problem *P, char *reason, size_t len)
{
    for (int b = 0; b < P->nblocks; b++)
        if (P->blocks[b].type == MCB_SOFT) {
            snprintf(reason, len, "block %d is soft: fixed-point takes unilateral, bilateral "
                                  "and contact blocks", b);
            return 0;
        }
    return 1;
}

/* ||W||_2 by power iteration on W^T W from a fixed, deterministic start. */
static double norm_estimate(fp_work *w)
{
    int m = w->m;
    for (int i = 0; i < m; i++) w->x[i] = 1.0 + 0.01 * (double)(i % 7);
    double s = 0.0;
    for (int k = 0; k < w->prm.power_iters; k++) {
        double xn = mcb_norm2(m, w->x);
        if (!(xn > 0.0)) return 0.0;
        for (int i = 0; i < m; i++) w->x[i] /= xn;
        memset(w->y, 0, (size_t)m * sizeof(double));
        mcb_csc_gaxpy(w->D->W, w->x, w->y);
        memset(w->x, 0, (size_t)m * sizeof(double));
        mcb_csc_gaxpy(w->D->WT, w->y, w->x); /* W^T W x */
        s = sqrt(mcb_norm2(m, w->x));
    }
    return s;
}

/* Per-block steps from the rule. */
static void choose_steps(fp_work *w)
{
    const mcb_problem *P = w->P;
    double rg = w->wnorm > 0.0 ? w->prm.gamma / w->wnorm : 1.0;
    for (int b = 0; b < P->nblocks; b++) {
        w->r[b] = rg;
        if (w->prm.step_rule != 1) continue;
        double dmax = 0.0;
        for (int i = P->blocks[b].row; i < P->blocks[b].row + P->blocks[b].nrows; i++)
            for (int p = w->D->WT->p[i]; p < w->D->WT->p[i + 1]; p++)
                if (w->D->WT->i[p] == i && w->D->WT->x[p] > dmax) dmax = w->D->WT->x[p];
        if (dmax > 0.0) w->r[b] = w->prm.gamma / dmax;
    }
}

static mcb_rc fp_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                       void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = fp_check(params, err);
    if (rc) return rc;
    char why[256];
    if (!fp_accepts(P, why, sizeof why)) return mcb_fail(err, MCB_E_INPUT, "%s", why);
    fp_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const fp_params *)params;
    w->m = P->m;
    size_t m = (size_t)P->m + 1, nb = (size_t)P->nblocks + 1;
    w->r = mcb_calloc(nb, sizeof(double));
    w->dz2 = mcb_calloc(nb, sizeof(double));
    w->z = mcb_calloc(m, sizeof(double));
    w->zn = mcb_calloc(m, sizeof(double));
    w->u = mcb_calloc(m, sizeof(double));
    w->x = mcb_calloc(m, sizeof(double));
    w->y = mcb_calloc(m, sizeof(double));
    if (!w->r || !w->dz2 || !w->z || !w->zn || !w->u || !w->x || !w->y) {
        fp_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    rc = mcb_delassus_build(P, &w->D, err);
    if (rc) {
        fp_free((void **)&w);
        return rc;
    }
    w->wnorm = norm_estimate(w);
    choose_steps(w);
    if (s->warm_start && P->lambda0) memcpy(w->z, P->lambda0, (size_t)P->m * sizeof(double));
    *work = w;
    return MCB_OK;
}

/* One block's projected step from z into zn; returns ||zn_b - z_b||^2. */
static double block_step(fp_work *w, int b)
{
    const mcb_block *B = &w->P->blocks[b];
    const mcb_csc *WT = w->D->WT;
    double r = w->r[b];
    for (int i = B->row; i < B->row + B->nrows; i++) {
        double s = w->D->q[i];
        for (int p = WT->p[i]; p < WT->p[i + 1]; p++) s += WT->x[p] * w->z[WT->i[p]];
        w->u[i] = s;
    }
    if (mcb_is_contact(B->type)) {
        for (int c = B->row; c + 3 <= B->row + B->nrows; c += 3) {
            const double *u = w->u + c, *z = w->z + c;
            double sn = B->type == MCB_CONTACT ? B->mu * hypot(u[1], u[2]) : 0.0;
            double x[3] = {z[0] - r * (u[0] + sn), z[1] - r * u[1], z[2] - r * u[2]};
            mcb_proj_cone(B->mu, x, w->zn + c);
        }
    } else {
        for (int i = B->row; i < B->row + B->nrows; i++) {
            double x = w->z[i] - r * w->u[i];
            w->zn[i] = B->type == MCB_UNILATERAL && x < 0.0 ? 0.0 : x;
        }
    }
    double d2 = 0.0;
    for (int i = B->row; i < B->row + B->nrows; i++)
        d2 += (w->zn[i] - w->z[i]) * (w->zn[i] - w->z[i]);
    return d2;
}

static int fp_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    fp_work *w = work;
    const mcb_problem *P = w->P;
    if (w->m == 0) {
        snprintf(info->reason, sizeof info->reason, "no constraint rows: nothing to solve");
        return MCB_ST_STALLED;
    }
    for (int it = 1; it <= s->max_iters; it++) {
#pragma omp parallel for schedule(static)
        for (int b = 0; b < P->nblocks; b++) w->dz2[b] = block_step(w, b);
        double d2 = 0.0;
        for (int b = 0; b < P->nblocks; b++) d2 += w->dz2[b];
        double *t = w->z;
        w->z = w->zn;
        w->zn = t;
        info->iterations = it;
        info->own_residual = sqrt(d2);
        if (!isfinite(info->own_residual) || !mcb_all_finite(w->m, w->z)) {
            snprintf(info->reason, sizeof info->reason,
                     "non-finite iterate at iteration %d (step r = %.3g against ||W||_2 ~ %.3g: "
                     "lower gamma)",
                     it, w->r[0], w->wnorm);
            return MCB_ST_DIVERGED;
        }
        mcb_cb_action a = cb(ctx, it, info->own_residual);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
        if (info->own_residual <= w->prm.own_tol) {
            snprintf(info->reason, sizeof info->reason, "||z+ - z|| = %.3g <= own_tol = %.3g",
                     info->own_residual, w->prm.own_tol);
            return MCB_ST_STALLED;
        }
    }
    return MCB_ST_MAX_ITERS;
}

static void fp_iterate(void *work, double *v, double *lambda)
{
    fp_work *w = work;
    memcpy(lambda, w->z, (size_t)w->m * sizeof(double));
    if (v && w->P->form == MCB_PRIMAL) mcb_delassus_velocity(w->D, w->z, v);
}

const mcb_solver_def mcb_solver_fixed_point = {
    .name = "fixed-point",
    .description = "projected fixed-point (proximal Jacobi) iteration z <- proj_K(z - r F(z)) "
                   "on the LCP/MLCP rows and, in the NCP form, on contact blocks (Coulomb with "
                   "De Saxce's velocity, or the CCP)",
    .reference = "RPIsim (Williams et al.) Table 1 (Fixed-point, LCP and NCP)",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,
    .accepts_problem = fp_accepts,
    .params_size = sizeof(fp_params),
    .default_params = fp_defaults,
    .params = fp_desc,
    .nparams = (int)(sizeof fp_desc / sizeof fp_desc[0]),
    .check_params = fp_check,
    .setup = fp_setup,
    .solve = fp_solve,
    .iterate = fp_iterate,
    .free = fp_free,
};

/* mcb_delassus.c: sparse assembly of W = J A^-1 J^T and q = J A^-1 b + e. */
#include "mcb_delassus.h"

#include "mcb_cone.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double entry(const mcb_csc *W, int i, int j)
{
    for (int k = W->p[j]; k < W->p[j + 1]; k++)
        if (W->i[k] == i) return W->x[k];
    return 0.0;
}

/* W^T and the per-row weights; non-zero on allocation failure. */
static int finish(mcb_delassus *D)
{
    const mcb_problem *P = D->P;
    D->WT = mcb_csc_transpose(D->W);
    D->d = mcb_malloc((size_t)D->m, sizeof(double));
    if (!D->WT || !D->d) return 1;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r = B->row;
        for (int k = 0; k < B->nrows; k++) D->d[r + k] = entry(D->W, r + k, r + k);
        if (B->type == MCB_CONTACT) {
            /* largest eigenvalue of the symmetric part of the 2x2 tangential block */
            double a = D->d[r + 1], c = D->d[r + 2];
            double off = 0.5 * (entry(D->W, r + 1, r + 2) + entry(D->W, r + 2, r + 1));
            double lmax = 0.5 * (a + c) + sqrt(0.25 * (a - c) * (a - c) + off * off);
            D->d[r + 1] = D->d[r + 2] = lmax;
        }
    }
    for (int r = 0; r < D->m; r++)
        if (!(D->d[r] > 0.0)) D->d[r] = INFINITY;
    return 0;
}

mcb_rc mcb_delassus_build(const mcb_problem *P, mcb_delassus **out, mcb_err *err)
{
    *out = NULL;
    mcb_delassus *D = calloc(1, sizeof *D);
    if (!D) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    D->P = P;
    D->m = P->m;
    D->q = mcb_malloc((size_t)P->m, sizeof(double));
    if (!D->q) goto nomem;
    if (P->form == MCB_DUAL) {
        if (!(D->W = mcb_csc_copy(P->W))) goto nomem;
        memcpy(D->q, P->q, (size_t)P->m * sizeof(double));
        if (finish(D)) goto nomem;
        *out = D;
        return MCB_OK;
    }
    mcb_rc rc = mcb_chol_factor(P->A, &D->F, err);
    if (rc) {
        mcb_delassus_free(&D);
        return rc;
    }
    D->rhs = mcb_malloc((size_t)P->n, sizeof(double));
    mcb_csc *JT = mcb_csc_transpose(P->J);
    mcb_csc *X = JT ? mcb_chol_spsolve(D->F, JT) : NULL;
    D->W = X ? mcb_csc_multiply(P->J, X) : NULL;
    mcb_csc_free(&JT);
    mcb_csc_free(&X);
    if (!D->W || !D->rhs) goto nomem;
    /* q = J A^-1 b + e */
    mcb_chol_solve(D->F, P->b, D->rhs);
    memcpy(D->q, P->e, (size_t)P->m * sizeof(double));
    mcb_csc_gaxpy(P->J, D->rhs, D->q);
    if (finish(D)) goto nomem;
    *out = D;
    return MCB_OK;
nomem:
    mcb_delassus_free(&D);
    return mcb_fail(err, MCB_E_NOMEM, "out of memory assembling the Delassus operator");
}

mcb_rc mcb_delassus_velocity(mcb_delassus *D, const double *lambda, double *v)
{
    const mcb_problem *P = D->P;
    if (P->form != MCB_PRIMAL) return MCB_E_INPUT;
    memcpy(D->rhs, P->b, (size_t)P->n * sizeof(double));
    mcb_csc_gatxpy(P->J, lambda, D->rhs);
    return mcb_chol_solve(D->F, D->rhs, v);
}

void mcb_delassus_rows(const mcb_delassus *D, int r0, int len, const double *lambda,
                       double *u)
{
    const mcb_csc *WT = D->WT;
    for (int r = r0; r < r0 + len; r++) {
        double s = D->q[r];
        for (int k = WT->p[r]; k < WT->p[r + 1]; k++) s += WT->x[k] * lambda[WT->i[k]];
        u[r - r0] = s;
    }
}

void mcb_block_step(const mcb_block *B, const double *e, const double *lambda, const double *u,
                    const double *d, double omega, double *out)
{
    switch (B->type) {
    case MCB_BILATERAL:
        for (int r = 0; r < B->nrows; r++) out[r] = lambda[r] - omega * u[r] / d[r];
        break;
    case MCB_UNILATERAL:
        for (int r = 0; r < B->nrows; r++) {
            double t = lambda[r] - omega * u[r] / d[r];
            out[r] = t > 0.0 ? t : 0.0;
        }
        break;
    case MCB_SOFT:
        for (int r = 0; r < B->nrows; r++) {
            /* u = d lambda + rest; lambda = -k (e + alpha (u - e)) solved for lambda */
            double rest = isfinite(d[r]) ? u[r] - d[r] * lambda[r] : u[r];
            double dd = isfinite(d[r]) ? d[r] : 0.0;
            double exact = -B->k * (e[r] + B->alpha * (rest - e[r])) / (1.0 + B->k * B->alpha * dd);
            out[r] = lambda[r] + omega * (exact - lambda[r]);
        }
        break;
    case MCB_CONTACT: {
        double t[3];
        for (int r = 0; r < 3; r++) t[r] = lambda[r] - omega * u[r] / d[r];
        mcb_proj_strict(B->mu, t, out);
        break;
    }
    }
}

void mcb_delassus_free(mcb_delassus **D)
{
    if (!D || !*D) return;
    mcb_csc_free(&(*D)->WT);
    free((*D)->d);
    mcb_csc_free(&(*D)->W);
    free((*D)->q);
    mcb_chol_free(&(*D)->F);
    free((*D)->rhs);
    free(*D);
    *D = NULL;
}

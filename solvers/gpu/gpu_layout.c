/* gpu_layout.c: the common part of the GPU solvers' host layout (see
 * gpu_layout.h, ccp_kernels.h). */
#include "solvers/gpu/gpu_layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double *mcb_gpu_dup(const double *x, size_t n)
{
    double *y = mcb_malloc(n ? n : 1, sizeof(double));
    if (y && n) memcpy(y, x, n * sizeof(double));
    return y;
}

mcb_rc mcb_gpu_pack_common(const mcb_problem *P, const mcb_csc *JT, int ns, const int *s0,
                           const double *const *Ls, const double *lambda, const double *v,
                           mcb_ccp_soa *H)
{
    int m = P->m, n = P->n;
    H->m = m, H->n = n, H->ns = ns;
    int big = m > n ? m : n;
    H->nchunks = big > 0 ? (big + CCPK_CHUNK - 1) / CCPK_CHUNK : 1;
    for (int r = 0; r < m; r++) {
        int c = JT->p[r + 1] - JT->p[r];
        if (c > H->width) H->width = c;
    }
    size_t cells = (size_t)H->width * (size_t)m, nL = 0;
    for (int s = 0; s < ns; s++) nL += (size_t)(s0[s + 1] - s0[s]) * (size_t)(s0[s + 1] - s0[s]);
    int *row_nnz = mcb_calloc((size_t)m + 1, sizeof(int));
    int *ell_col = mcb_calloc(cells + 1, sizeof(int));
    double *ell_val = mcb_calloc(cells + 1, sizeof(double));
    double *rr = mcb_calloc((size_t)m + 1, sizeof(double));
    int *s0c = mcb_malloc((size_t)ns + 1, sizeof(int));
    double *L = mcb_calloc(nL + 1, sizeof(double));
    size_t *L0 = mcb_calloc((size_t)ns + 1, sizeof(size_t));
    H->row_nnz = row_nnz, H->ell_col = ell_col, H->ell_val = ell_val, H->rr = rr;
    H->s0 = s0c, H->L0 = L0, H->L = L;
    H->e = mcb_gpu_dup(P->e, (size_t)m), H->lambda = mcb_gpu_dup(lambda, (size_t)m);
    H->v = mcb_gpu_dup(v, (size_t)n), H->vprev = mcb_gpu_dup(v, (size_t)n);
    H->part = mcb_calloc(3 * (size_t)H->nchunks, sizeof(double));
    H->Jp = P->J->p, H->Ji = P->J->i, H->Jx = P->J->x, H->b = P->b;
    if (!row_nnz || !ell_col || !ell_val || !rr || !s0c || !L || !L0 || !H->e || !H->lambda ||
        !H->v || !H->vprev || !H->part)
        return MCB_E_NOMEM;
    for (int r = 0; r < m; r++) {
        rr[r] = mcb_problem_r(P, r);
        row_nnz[r] = JT->p[r + 1] - JT->p[r];
        for (int k = 0; k < row_nnz[r]; k++) {
            size_t q = (size_t)k * (size_t)m + (size_t)r;
            ell_col[q] = JT->i[JT->p[r] + k];
            ell_val[q] = JT->x[JT->p[r] + k];
        }
    }
    memcpy(s0c, s0, ((size_t)ns + 1) * sizeof(int));
    size_t at = 0;
    for (int s = 0; s < ns; s++) {
        size_t nv = (size_t)(s0[s + 1] - s0[s]);
        L0[s] = at;
        if (nv) memcpy(L + at, Ls[s], nv * nv * sizeof(double));
        at += nv * nv;
    }
    return MCB_OK;
}

void mcb_gpu_free_host(mcb_ccp_soa *H)
{
    const void *a[] = {H->row_nnz, H->ell_col, H->ell_val, H->e,      H->rr,     H->eta,
                       H->c,       H->d,       H->fixed,   H->c_row,  H->c_mu,   H->o_row,
                       H->o_type,  H->s0,      H->L0,      H->L,      H->lambda, H->v,
                       H->vprev,   H->part,    H->b_row,   H->b_type, H->b_nrows, H->b_mu,
                       H->b_k,     H->b_alpha, H->pd,      H->Wb,     H->u,      H->next,
                       H->chg};
    for (size_t k = 0; k < sizeof a / sizeof *a; k++) free((void *)a[k]);
    memset(H, 0, sizeof *H);
}

void mcb_gpu_free(void **work)
{
    if (!work || !*work) return;
    mcb_gpu_work *w = *work;
    if (w->be) w->be->close(&w->dev);
    mcb_gpu_free_host(&w->H);
    free(w->prm);
    free(w);
    *work = NULL;
}

mcb_rc mcb_gpu_setup(const mcb_gpu_kind *kind, const mcb_gpu_backend *be, const mcb_problem *P,
                     const mcb_settings *s, const void *params, void **work, mcb_err *err)
{
    *work = NULL;
    char why[MCB_ERR_LEN];
    if (!kind->accepts(P, why, sizeof why))
        return mcb_fail(err, MCB_E_INPUT, "%s: %s", kind->name, why);
    if (be->available && !be->available(why, sizeof why)) /* before the CPU's setup work */
        return mcb_fail(err, MCB_E_INPUT, "%s: %s", kind->name, why);
    mcb_gpu_work *w = calloc(1, sizeof *w);
    if (w) w->prm = calloc(1, kind->prm_size);
    if (!w || !w->prm) {
        free(w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    w->kind = kind;
    mcb_rc rc = kind->prepare(P, s, params, w->prm, &w->H, err);
    if (!rc) rc = be->open(&w->H, &w->dev, err);
    if (rc) {
        mcb_gpu_free((void **)&w);
        return rc;
    }
    w->be = be;
    *work = w;
    return MCB_OK;
}

int mcb_gpu_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    mcb_gpu_work *w = work;
    char why[MCB_ERR_LEN / 2];
    for (int it = 1; it <= s->max_iters; it++) {
        double out[3];
        if (w->be->sweep(w->dev, out, why, sizeof why)) {
            snprintf(info->reason, sizeof info->reason, "%s at iteration %d", why, it);
            info->iterations = it - 1;
            return MCB_ST_CRASHED;
        }
        int st = w->kind->judge(w->prm, it, out, cb, ctx, info);
        if (st >= 0) return st;
    }
    return MCB_ST_MAX_ITERS;
}

void mcb_gpu_iterate(void *work, double *v, double *lambda)
{
    mcb_gpu_work *w = work;
    w->be->fetch(w->dev, v, lambda);
}

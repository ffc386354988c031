/* ccp_kernels.h: the per-element arithmetic of the GPU solvers
 * (docs/gpu.md), one definition for the CUDA kernels (ccp_cuda.cu) and for
 * the host backend (ccp_jacobi_gpu.c) that the tests compare with the CPU
 * solvers. MCB_HD (lib/mcb_hd.h) makes each function __host__ __device__
 * under nvcc.
 *
 * Tasora and Negrut's Alg. 3 (GPU CCP paper): one iteration is
 *   1. contact-parallel: u_i = J_i v^r + e_i + r_i lambda_i and the
 *      projected step of eq. (21) for every contact block i;
 *   2. constraint-parallel: eq. (22) for every other row (bilateral,
 *      unilateral, soft), rows of one block being independent;
 *   3. body-parallel: v_s = A_s^-1 (b_s + (J^T lambda)_s), eq. (23), for
 *      every subsystem s: the reduction of the impulses by body is each
 *      DOF's sum over its column of J in J's fixed row order (the paper's
 *      reduction buffer), so no atomics and the same bits on every run;
 *   4. the own residual's partial sums over fixed chunks of CCPK_CHUNK
 *      elements, each by a fixed binary tree, then the chunks in order.
 * Layout: structure of arrays. J's rows are stored ELLPACK-wise with the
 * k-th entry of every row contiguous (ell_col/ell_val[k * m + r]), so that
 * consecutive threads (rows) read consecutive words; each row's entries in
 * J^T's column order, which makes u the same sum, in the same order, as
 * ccp_jacobi.c's. The body pass reads J's compressed columns (each thread
 * one subsystem's DOFs) and the subsystem's dense Cholesky factor. */
#ifndef MCB_CCP_KERNELS_H
#define MCB_CCP_KERNELS_H

#include <stddef.h>

#include "lib/mcb_hd.h"
#include "lib/mcb_problem.h"

#define CCPK_CHUNK 256 /* elements per partial sum (the CUDA block size) */

/* which solver's passes a layout feeds (the backends dispatch on it) */
enum { MCB_GPU_CCP = 0, MCB_GPU_PJ = 1 };

typedef struct {
    int kind;       /* MCB_GPU_CCP (this file) or MCB_GPU_PJ (pj_kernels.h) */
    int m, n, ns;   /* rows, DOFs, subsystems */
    int nc, no;     /* contact blocks, other (scalar) rows */
    int width;      /* ELL width: the most entries of a row of J */
    int nchunks;    /* ceil(max(m, n) / CCPK_CHUNK) */
    double omega, relax;
    /* rows (m each, ell_* width x m) */
    const int *row_nnz, *ell_col;
    const double *ell_val, *e, *rr, *eta, *c, *d, *fixed;
    const int *c_row;      /* nc: a contact block's first row */
    const double *c_mu;    /* nc: its friction coefficient */
    const int *o_row, *o_type; /* no: the other rows and their block type */
    /* bodies */
    const int *s0;         /* ns + 1 subsystem DOF starts */
    const size_t *L0;      /* ns: offset of A_s's dense factor in L */
    const double *L;
    const int *Jp, *Ji;    /* J, compressed columns */
    const double *Jx, *b;
    /* the iterate and the residual's partial sums */
    double *lambda, *v, *vprev;
    double *part;          /* 3 x nchunks */
    /* pj only (pj_kernels.h; NULL for ccp): the constraint blocks, pj's row
     * weights and the contacts' 3x3 blocks of W (mcb_delassus layout),
     * u, lambda^{l+1} and each block's ||delta lambda_b||^2 */
    int nb;
    const int *b_row, *b_type, *b_nrows;
    const double *b_mu, *b_k, *b_alpha, *pd, *Wb;
    double *u, *next, *chg;
} mcb_ccp_soa;

/* u_r = J_r v + e_r + r_r lambda_r, J_r's entries in their stored order. */
static inline MCB_HD double ccpk_row_u(const mcb_ccp_soa *S, int r)
{
    double u = S->e[r] + S->rr[r] * S->lambda[r];
    for (int k = 0; k < S->row_nnz[r]; k++) {
        size_t q = (size_t)k * (size_t)S->m + (size_t)r;
        u += S->ell_val[q] * S->v[S->ell_col[q]];
    }
    return u;
}

/* Eq. (21): contact block i, lambda_i <- relax P_K(lambda_i - omega eta u_i)
 * + (1 - relax) lambda_i. */
static inline MCB_HD void ccpk_contact(const mcb_ccp_soa *S, int i)
{
    int r0 = S->c_row[i];
    double t[3], p[3];
    for (int a = 0; a < 3; a++) {
        int r = r0 + a;
        t[a] = S->lambda[r] - S->omega * S->eta[r] * ccpk_row_u(S, r);
    }
    mcb_hd_proj_cone(S->c_mu[i], t, p);
    for (int a = 0; a < 3; a++)
        S->lambda[r0 + a] = S->relax * p[a] + (1.0 - S->relax) * S->lambda[r0 + a];
}

/* Eq. (22): scalar row i of a bilateral, unilateral (projected on R+) or
 * soft block (the compliant row; a fixed impulse stays). */
static inline MCB_HD void ccpk_row(const mcb_ccp_soa *S, int i)
{
    int r = S->o_row[i], type = S->o_type[i];
    double u = ccpk_row_u(S, r);
    double *l = &S->lambda[r];
    if (!isnan(S->fixed[r])) return;
    double g = type == MCB_SOFT ? u + S->c[r] * *l + S->d[r] : u;
    double x = *l - S->omega * S->eta[r] * g;
    if (type == MCB_UNILATERAL && x < 0.0) x = 0.0;
    *l = S->relax * x + (1.0 - S->relax) * *l;
}

/* Eq. (23): subsystem s's velocity from all impulses, v^r kept in vprev. */
static inline MCB_HD void ccpk_body(const mcb_ccp_soa *S, int s)
{
    int a = S->s0[s], nv = S->s0[s + 1] - a;
    for (int j = a; j < a + nv; j++) {
        double x = S->b[j];
        for (int k = S->Jp[j]; k < S->Jp[j + 1]; k++) x += S->Jx[k] * S->lambda[S->Ji[k]];
        S->vprev[j] = S->v[j];
        S->v[j] = x;
    }
    mcb_hd_dense_chol_solve(nv, S->L + S->L0[s], S->v + a);
}

/* Element k's three terms of the own residual: ccp: (v - vprev)^2, v^2
 * (DOFs), 1 for a non-finite lambda (rows); pj: block k's
 * ||delta lambda_b||^2, lambda_k^2 (rows), 1 for a non-finite lambda; 0
 * past the ends. */
static inline MCB_HD void ccpk_terms(const mcb_ccp_soa *S, int k, double t[3])
{
    t[0] = t[1] = t[2] = 0.0;
    if (S->kind == MCB_GPU_PJ) {
        if (k < S->nb) t[0] = S->chg[k];
        if (k < S->m) t[1] = S->lambda[k] * S->lambda[k];
    } else if (k < S->n) {
        double dv = S->v[k] - S->vprev[k];
        t[0] = dv * dv;
        t[1] = S->v[k] * S->v[k];
    }
    if (k < S->m && !isfinite(S->lambda[k])) t[2] = 1.0;
}

/* One step of a chunk's tree: slot t += slot t + stride (3 sums each). */
static inline MCB_HD void ccpk_tree_step(double *sh, int t, int stride)
{
    for (int q = 0; q < 3; q++) sh[3 * t + q] += sh[3 * (t + stride) + q];
}

/* The chunks' partial sums added in order: out = (sum (dv)^2, sum v^2,
 * non-finite lambdas). */
static inline MCB_HD void ccpk_finish(const mcb_ccp_soa *S, double out[3])
{
    out[0] = out[1] = out[2] = 0.0;
    for (int ch = 0; ch < S->nchunks; ch++)
        for (int q = 0; q < 3; q++) out[q] += S->part[3 * ch + q];
}

#endif

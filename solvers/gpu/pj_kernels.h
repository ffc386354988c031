/* pj_kernels.h: the per-element arithmetic of pj (solvers/pj.c) and of
 * pj-gpu (solvers/gpu/pj_gpu.c, docs/gpu.md), one definition for the CPU
 * solver, the CUDA kernels (ccp_cuda.cu) and the host backend the tests
 * compare with pj. MCB_HD (lib/mcb_hd.h) makes each function
 * __host__ __device__ under nvcc.
 *
 * One projected-Jacobi iteration on the matrix-free operator (pj with
 * matrix_free = 1), on the layout of ccp_kernels.h (kind MCB_GPU_PJ):
 *   1. body-parallel: v = A_s^-1 (b_s + (J^T lambda^l)_s) for every
 *      subsystem (ccpk_body: each DOF's sum over its column of J in J's
 *      row order, no atomics);
 *   2. block-parallel: u = J v + e + r∘lambda^l on the block's rows, then
 *      the block's local step (mcb_hd_block_step, lib/mcb_block_hd.h) into
 *      lambda^{l+1}, relaxed, and the block's ||delta lambda_b||^2;
 *   3. lambda^l and lambda^{l+1} swap (pointers), and the own residual's
 *      sums by ccpk_terms' fixed chunks and trees. */
#ifndef MCB_PJ_KERNELS_H
#define MCB_PJ_KERNELS_H

#include "lib/mcb_block_hd.h"
#include "solvers/gpu/ccp_kernels.h"

/* pj's update of one block from u = W lambda + q on its rows: the local
 * step relaxed by omega into next, then under-relaxed by relax; returns
 * ||next - lambda||^2 over the block's rows (their order). */
static inline MCB_HD double pjk_block_update(int type, int nrows, double mu, double k,
                                             double alpha, const double *e,
                                             const double *lambda, const double *u,
                                             const double *d, const double *Wbb, double omega,
                                             double relax, double *next)
{
    mcb_hd_block_step(type, nrows, mu, k, alpha, e, lambda, u, d, Wbb, omega, next);
    double c = 0.0;
    for (int q = 0; q < nrows; q++) {
        if (relax != 1.0) next[q] = lambda[q] + relax * (next[q] - lambda[q]);
        double dl = next[q] - lambda[q];
        c += dl * dl;
    }
    return c;
}

/* u_r = (e_r + J_r v) + r_r lambda_r, J_r's entries in their stored order
 * (pj.c's order: mcb_mf_rows, then the compliance term). */
static inline MCB_HD double pjk_row_u(const mcb_ccp_soa *S, int r)
{
    double u = S->e[r];
    for (int k = 0; k < S->row_nnz[r]; k++) {
        size_t q = (size_t)k * (size_t)S->m + (size_t)r;
        u += S->ell_val[q] * S->v[S->ell_col[q]];
    }
    return u + S->rr[r] * S->lambda[r];
}

/* Step 2 for block i. */
static inline MCB_HD void pjk_block(const mcb_ccp_soa *S, int i)
{
    int r = S->b_row[i], nr = S->b_nrows[i];
    for (int q = 0; q < nr; q++) S->u[r + q] = pjk_row_u(S, r + q);
    S->chg[i] = pjk_block_update(S->b_type[i], nr, S->b_mu[i], S->b_k[i], S->b_alpha[i],
                                 S->e + r, S->lambda + r, S->u + r, S->pd + r,
                                 S->Wb + 3 * (size_t)r, S->omega, S->relax, S->next + r);
}

#endif

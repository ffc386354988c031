/* mcb_chol.h: a sparse Cholesky factorization of a symmetric positive
 * definite matrix (CHOLMOD), with allocation-free repeated solves.
 *
 * mcb_chol_factor() fails with MCB_E_NUMERIC when the matrix is not
 * positive definite (CHOLMOD reports that through a status, never an abort).
 * Each factor owns its cholmod_common, so different factors may be used
 * from different threads at once; one factor is not thread-safe. */
#ifndef MCB_CHOL_H
#define MCB_CHOL_H

#include "lib/mcb_sparse.h"

typedef struct mcb_chol mcb_chol;

/* Factors A (full symmetric storage, both triangles; only the upper one is
 * read). A may be refactored later with mcb_chol_refactor() if the pattern
 * is unchanged. */
mcb_rc mcb_chol_factor(const mcb_csc *A, mcb_chol **out, mcb_err *err);
mcb_rc mcb_chol_refactor(mcb_chol *F, const mcb_csc *A, mcb_err *err);
/* x = A^-1 b (x and b may alias), through cholmod_solve2 with reused
 * work arrays. Note: CHOLMOD 3.0.14 still allocates twice per call there
 * (counted by tests/test_subadmm.c); use mcb_chol_solve_inplace() inside
 * iteration loops. */
mcb_rc mcb_chol_solve(mcb_chol *F, const double *b, double *x);
/* x = A^-1 x in place, by our own triangular solves on the simplicial copy
 * of L that mcb_chol_lsolve_sparse() also uses (made, with an n-vector of
 * work, on the first call after a factorization or refactorization). No
 * allocation and no CHOLMOD call after that first call. MCB_E_NOMEM when
 * that first call cannot allocate. */
mcb_rc mcb_chol_solve_inplace(mcb_chol *F, double *x);
/* X = A^-1 B for a sparse B, returned as CSC (n x B->n). */
mcb_csc *mcb_chol_spsolve(mcb_chol *F, const mcb_csc *B);
/* G = L^-1 P B for a sparse B (n x k), with L L^T = P A P^T the factor's
 * lower triangle and fill-reducing permutation, so that
 * B^T A^-1 B = G^T G. Each column is a sparse-right-hand-side triangular
 * solve (the reach of B's pattern in the graph of L, then the numeric
 * solve on that reach only): the work is the flops of the solve, never n
 * per column. Rows of G are in the permuted order and sorted within each
 * column. The first call extracts L from CHOLMOD as a simplicial LL' copy
 * and keeps it with the factor (freed by mcb_chol_free()); later calls
 * reuse it (a refactorization drops it). Returns NULL on allocation
 * failure or a shape mismatch. */
mcb_csc *mcb_chol_lsolve_sparse(mcb_chol *F, const mcb_csc *B);
int mcb_chol_n(const mcb_chol *F);
void mcb_chol_free(mcb_chol **F);

/* Dense Cholesky of a small SPD matrix, for the many tiny subsystem
 * matrices of an ADMM splitting where CHOLMOD's per-call overhead would
 * dominate: a (n x n, column-major, both triangles or the lower one) is
 * overwritten in place by its factor L (strict lower triangle, and
 * 1 / L_jj on the diagonal so that the solves multiply instead of divide;
 * the strict upper triangle is left as is). No allocation. Returns MCB_E_NUMERIC when a
 * pivot is not positive (the matrix is not positive definite; a is then
 * partly overwritten). */
mcb_rc mcb_dense_chol(int n, double *a);
/* x = (L L^T)^-1 x in place, L from mcb_dense_chol(). No allocation. */
void mcb_dense_chol_solve(int n, const double *L, double *x);
/* Its two halves: x = L^-1 x and x = L^-T x in place. No allocation. */
void mcb_dense_chol_lsolve(int n, const double *L, double *x);
void mcb_dense_chol_ltsolve(int n, const double *L, double *x);

/* Sets the thread count of the BLAS that CHOLMOD (and Siconos) call, when it
 * is OpenBLAS (looked up at run time; a no-op for another BLAS). The harness
 * calls it with --threads so that no solver gets hidden BLAS threads. */
void mcb_blas_set_threads(int threads);

#endif

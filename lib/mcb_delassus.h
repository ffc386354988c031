/* mcb_delassus.h: the dual (Delassus) view of a problem, shared by the
 * solvers that iterate on the impulses alone (PGS, PJ):
 *     u = W lambda + q,   W = J A^-1 J^T,   q = J A^-1 b + e     (primal)
 *     W and q as given                                           (dual)
 * W is assembled sparse: one CHOLMOD factorization of A, a sparse solve
 * X = A^-1 J^T and the sparse product J X; never a dense matrix. */
#ifndef MCB_DELASSUS_H
#define MCB_DELASSUS_H

#include "mcb_chol.h"
#include "mcb_problem.h"

typedef struct {
    const mcb_problem *P;
    int m;
    mcb_csc *W;   /* m x m, owned */
    mcb_csc *WT;  /* W^T: column r holds row r of W (W need not be symmetric) */
    double *d;    /* m per-row step weights, see mcb_delassus_build() */
    double *q;    /* m, owned */
    mcb_chol *F;  /* factor of A (primal only) */
    double *rhs;  /* n work vector (primal only) */
} mcb_delassus;

/* Builds W, q, W^T and the per-row weights d: W_rr for bilateral,
 * unilateral and soft rows and contact normals; for the two tangential rows
 * of a contact the largest eigenvalue of their 2x2 block (a scalar weight,
 * so that the strict projection keeps its exact Coulomb fixed point). Rows
 * with d <= 0 (an empty Jacobian row) get d = +inf: their impulse stays 0. */
mcb_rc mcb_delassus_build(const mcb_problem *P, mcb_delassus **out, mcb_err *err);

/* u_r = q_r + (W lambda)_r for the rows [r0, r0 + len). */
void mcb_delassus_rows(const mcb_delassus *D, int r0, int len, const double *lambda,
                       double *u);

/* One projected step on block B (the per-constraint update shared by PGS and
 * PJ): out = Proj_B(lambda - omega u / d) row-wise, with Proj the strict
 * operator for contacts (eq. (17) of the CANAL paper), max(0, .) for
 * unilateral rows, identity for bilateral rows; soft rows take the exact
 * scalar solution of lambda = -k (e + alpha J v) relaxed by omega. All
 * pointers point at the block's first row. */
void mcb_block_step(const mcb_block *B, const double *e, const double *lambda, const double *u,
                    const double *d, double omega, double *out);
/* v = A^-1 (b + J^T lambda) (primal only). */
mcb_rc mcb_delassus_velocity(mcb_delassus *D, const double *lambda, double *v);
void mcb_delassus_free(mcb_delassus **D);

#endif

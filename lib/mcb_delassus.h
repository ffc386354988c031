/* mcb_delassus.h: the dual (Delassus) view of a problem, shared by the
 * solvers that iterate on the impulses alone (PGS, PJ):
 *     u = W lambda + q,   W = J A^-1 J^T,   q = J A^-1 b + e     (primal)
 *     W and q as given                                           (dual)
 * with the problem's per-row compliance r folded in: W here is
 * J A^-1 J^T + diag(r) (W + diag(r)), so u = W lambda + q is the compliant
 * local velocity J v + e + r∘lambda the laws apply to (mcb_problem.h).
 * W is assembled sparse, never as a dense n x n or m x m matrix, in time
 * linear in the problem's size for a fixed contact density:
 *   - where A is block diagonal over the problem's subsystems
 *     (P->nsub, P->sub_start; checked entry by entry), per subsystem:
 *     W = sum_s J_s A_s^-1 J_s^T over the rows of J that touch subsystem s,
 *     with a small dense Cholesky of A_s for blocks of at most
 *     MCB_DELASSUS_DENSE_MAX DOFs;
 *   - for the larger blocks, and for all of A when it couples subsystems,
 *     W = G^T G with G = L^-1 P J^T (L L^T = P A P^T, CHOLMOD), each column
 *     of G a sparse-right-hand-side triangular solve (mcb_chol_lsolve_sparse).
 * One CHOLMOD factorization of the whole A also serves q and the velocity. */
#ifndef MCB_DELASSUS_H
#define MCB_DELASSUS_H

#include "lib/mcb_block_hd.h" /* MCB_LOCAL_ITERS, the step's arithmetic */
#include "lib/mcb_chol.h"
#include "lib/mcb_problem.h"

/* Subsystems with at most this many DOFs take the dense per-block path. */
#define MCB_DELASSUS_DENSE_MAX 64

typedef struct {
    const mcb_problem *P;
    int m;
    mcb_csc *W;   /* m x m, owned */
    mcb_csc *WT;  /* W^T: column r holds row r of W (a dual W need not be
                   * symmetric); for a primal problem W is exactly symmetric
                   * by construction and WT == W (one matrix, owned through
                   * W: a caller may take W and set D->W = NULL) */
    double *d;    /* m per-row step weights, see mcb_delassus_build() */
    double *Wb;   /* 3 m: for a contact at rows r..r+2, Wb + 3 r is its 3x3
                   * diagonal block of W, row-major; zero for other rows */
    double *Lb;   /* 3 m: same layout, the lower Cholesky factor of the
                   * symmetric part of that block; all zero when the block is
                   * not positive definite (pivot <= 1e-12 of its diagonal) */
    double *q;    /* m, owned */
    mcb_chol *F;  /* factor of A (primal only) */
    double *rhs;  /* n work vector (primal only) */
    int blockwise; /* primal: A was block diagonal over the subsystems */
    int ndense;    /* subsystems assembled by the dense per-block path */
    int nsparse_dofs; /* DOFs assembled by the sparse triangular solves */
    int coupled;   /* 1: G filled in, the sparse part was J (A^-1 J^T) */
    int wt_is_w;   /* WT aliases W (primal): freed only through W */
} mcb_delassus;

/* Builds W, q, W^T, the contacts' 3x3 blocks and the per-row weights d:
 * W_rr for bilateral, unilateral and soft rows and contact normals; for the
 * two tangential rows of a contact the largest eigenvalue of their 2x2 block
 * (the scalar weight of the inner tangential step). Rows with d <= 0 (an
 * empty Jacobian row) get d = +inf: their impulse stays put. Fails with
 * MCB_E_NUMERIC when A is not positive definite, MCB_E_NOMEM. */
mcb_rc mcb_delassus_build(const mcb_problem *P, mcb_delassus **out, mcb_err *err);
/* The same with the dense-block threshold given: subsystems of at most
 * dense_max DOFs take the dense path (0: the sparse triangular solves for
 * every DOF; used by the tests to compare the two paths). */
mcb_rc mcb_delassus_build_ex(const mcb_problem *P, int dense_max, mcb_delassus **out,
                             mcb_err *err);

/* u_r = q_r + (W lambda)_r for the rows [r0, r0 + len). */
void mcb_delassus_rows(const mcb_delassus *D, int r0, int len, const double *lambda,
                       double *u);

/* One local step on block B (the per-constraint update shared by PGS and
 * PJ), given u = W lambda + q on the block's rows:
 *   - contact: the local Signorini-Coulomb problem with the exact 3x3 block
 *     Wbb, u_loc = Wbb x + r, r = u - Wbb lambda, is solved for x: if
 *     r_n >= 0, separation (x = 0, exact); else if x = -Wbb^-1 r (Cramer's
 *     rule) lies in the cone, sticking (exact); else sliding, by at most
 *     MCB_LOCAL_ITERS inner fixed-point steps started at lambda: the normal
 *     row x_n <- max(0, x_n - u_n / W_nn), then the tangential pair
 *     x_t <- clamp to the disk of radius mu x_n of (x_t - u_t / d_t) with
 *     u recomputed from the new x_n (projected Gauss-Seidel between the
 *     normal row and the tangential pair, the strict operator of CANAL
 *     eq. (17)); it stops early when a step changes x by less than 1e-14
 *     relative. Then out = P_K(lambda + omega (x - lambda)), P_K the
 *     Euclidean projection on the friction cone (out = x for omega = 1).
 *     A fixed point (out = lambda) has x = lambda, and x is an exact local
 *     solution in the first two cases, a fixed point of the inner step (which
 *     satisfies the Signorini-Coulomb law exactly) in the third.
 *   - unilateral: max(0, lambda - omega u / d) row-wise; bilateral:
 *     lambda - omega u / d; soft: the exact scalar solution of
 *     lambda = -k (e + alpha J v) relaxed by omega.
 * All pointers point at the block's first row (Wbb: D->Wb + 3 B->row). No
 * allocation. */
void mcb_block_step(const mcb_block *B, const double *e, const double *lambda, const double *u,
                    const double *d, const double *Wbb, double omega, double *out);

/* y = Db^+ x, Db the block-diagonal part of W (the contacts' 3x3 blocks,
 * through Lb, or 1/d row-wise when a block is not positive definite; the
 * other rows 1/d, 0 for d = inf): the preconditioner whose local solves
 * PJ applies, for its spectral-radius estimate. */
void mcb_delassus_block_solve(const mcb_delassus *D, const double *x, double *y);

/* v = A^-1 (b + J^T lambda) (primal only). */
mcb_rc mcb_delassus_velocity(mcb_delassus *D, const double *lambda, double *v);
void mcb_delassus_free(mcb_delassus **D); /* accepts NULL and *D == NULL */

#endif

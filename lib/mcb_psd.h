/* mcb_psd.h: how far a symmetric matrix W (a dual problem's Delassus
 * operator) is from positive semidefinite, relative to its norm:
 *
 *     psd_defect(W) = max(0, -lambda_min(W)) / ||W||_2,
 *
 * measured by sparse Cholesky factorizations (CHOLMOD) of shifted copies
 * W + s ||W||_2 I, one symbolic analysis for all of them: such a
 * factorization succeeds exactly when lambda_min(W) > -s ||W||_2 (up to the
 * factorization's own round-off, about m eps ||W||_2). ||W||_2 is estimated
 * by power iteration. Nothing here forms W densely or computes eigenvalues.
 *
 * A Delassus operator J A^-1 J^T is positive semidefinite in exact
 * arithmetic; a recorded one carries round-off (an FCLIB or Siconos file
 * written with 7 significant digits perturbs each entry by up to 5e-7 of
 * itself; Siconos' Confeti test problems measure psd_defect 1.2e-8 to
 * 9.2e-8). The problem format accepts a W with psd_defect <= MCB_PSD_TOL
 * and refuses the rest (docs/problem-format.md, "Validation on read").
 * The figure is resolved down to MCB_PSD_FLOOR; below it, it reads 0. */
#ifndef MCB_PSD_H
#define MCB_PSD_H

#include "lib/mcb_sparse.h"

/* The round-off allowance: W is accepted as positive semidefinite when
 * W + MCB_PSD_TOL ||W||_2 I has a Cholesky factorization. 10 times the
 * largest defect measured on real files (9.2e-8, Confeti-ex13-Fc3D-SBM)
 * and twice the rounding of 7 significant digits; 1e3 times below a
 * defect that changes a problem (a W indefinite by 1e-3 of its norm). */
#define MCB_PSD_TOL 1e-6
/* The figure's resolution: a W with W + MCB_PSD_FLOOR ||W||_2 I factored
 * is positive semidefinite to working precision (psd_defect 0). */
#define MCB_PSD_FLOOR 1e-14

typedef struct {
    double norm;   /* ||W||_2 estimate (power iteration), > 0 */
    double defect; /* psd_defect: 0 (below MCB_PSD_FLOOR), else within 5 %
                    * (bisection on the shift); NaN when not measured */
    int accepted;  /* 1: psd_defect <= MCB_PSD_TOL */
    int factorizations; /* Cholesky factorizations made */
} mcb_psd;

/* ||W||_2 of a symmetric W by at most 100 steps of power iteration from a
 * fixed pseudo-random start (splitmix64, seed 20261127): a lower bound,
 * within 1e-6 of the largest |eigenvalue| when the iteration converges.
 * 0 for W without nonzeros or on allocation failure (NaN). */
double mcb_psd_norm(const mcb_csc *W);

/* Measures W (square, symmetric, valid CSC, finite values, m > 0).
 * full = 1: the figure always (MCB_PSD_FLOOR first: one factorization when
 * W is positive semidefinite to working precision, else a bisection of
 * about 10). full = 0, the acceptance test alone: one factorization at
 * MCB_PSD_TOL when W is accepted (defect NaN: not measured), the bisection
 * only to put the figure of a refused W in a message. Fails only on
 * allocation failure or a CHOLMOD failure other than "not positive
 * definite" (MCB_E_NOMEM / MCB_E_NUMERIC). */
mcb_rc mcb_psd_measure(const mcb_csc *W, int full, mcb_psd *out, mcb_err *err);

#endif

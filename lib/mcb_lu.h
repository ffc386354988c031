/* mcb_lu.h: sparse LU of a square unsymmetric matrix with a fixed pattern,
 * refactored in place (KLU, SuiteSparse).
 *
 * The Newton-type solvers (nnewton, al-trdogleg, al-dampedsn) factor a
 * Jacobian whose pattern is fixed for a problem and whose values change
 * at every iteration. The symbolic analysis (BTF, AMD ordering) is done
 * once; the first factorization chooses the pivots and allocates the
 * numeric factor; every later one refactors in place with the same pivot
 * sequence (klu_refactor: no allocation). When the refactored matrix is
 * singular under the old pivots or its pivots degrade (the reciprocal
 * pivot ratio klu_rcond falls below MCB_LU_REPIVOT times the one of the
 * last fresh factorization), the factor is rebuilt with new pivots: that
 * allocates, and is counted (mcb_lu_repivots). */
#ifndef MCB_LU_H
#define MCB_LU_H

#include "mcb_error.h"
#include "mcb_sparse.h"

typedef struct mcb_lu mcb_lu;

/* A refactorization whose pivot ratio fell below this fraction of the last
 * fresh factorization's is redone with new pivots. */
#define MCB_LU_REPIVOT 1e-6

/* Symbolic analysis of K's pattern (n x n). No numeric work. */
mcb_rc mcb_lu_analyze(const mcb_csc *K, mcb_lu **F, mcb_err *err);
/* Numeric factorization of K (the analysed pattern, new values): 0 on
 * success, 1 when K is singular, MCB_E_NOMEM when a fresh factorization
 * ran out of memory. */
int mcb_lu_factor(mcb_lu *F, const mcb_csc *K);
/* x = K^-1 x in place with the last factorization. No allocation. Returns
 * 0, or 1 when the solve failed. */
int mcb_lu_solve(mcb_lu *F, double *x);
/* Factorizations that chose pivots (allocated): the first and every repivot. */
int mcb_lu_fresh_factorizations(const mcb_lu *F);
void mcb_lu_free(mcb_lu **F); /* accepts NULL */

#endif

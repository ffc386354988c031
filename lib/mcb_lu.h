/* mcb_lu.h: sparse LU of a square unsymmetric matrix with a fixed pattern,
 * refactored at every iteration; two backends from SuiteSparse, chosen per
 * solver by its parameter `lu` (MCB_LU_PARAM_DESC):
 *
 * - KLU (MCB_LU_KLU, the default). The Newton-type solvers (nnewton,
 *   al-trdogleg, al-dampedsn, fischer-newton, minmap-newton, ip-lcp) factor
 *   a Jacobian whose pattern is fixed for a problem and whose values change
 *   at every iteration. The symbolic analysis (BTF, AMD ordering) is done
 *   once; the first factorization chooses the pivots and allocates the
 *   numeric factor; every later one refactors in place with the same pivot
 *   sequence (klu_refactor: no allocation). When the refactored matrix is
 *   singular under the old pivots or its pivots degrade (the reciprocal
 *   pivot ratio klu_rcond falls below MCB_LU_REPIVOT times the one of the
 *   last fresh factorization), the factor is rebuilt with new pivots: that
 *   allocates, and is counted (mcb_lu_fresh_factorizations).
 * - UMFPACK (MCB_LU_UMFPACK). The symbolic analysis (umfpack_di_symbolic:
 *   column pre-ordering, strategy, frontal-matrix sizes) is done once, on
 *   the pattern alone; every factorization (umfpack_di_numeric) chooses
 *   its pivots afresh and allocates the numeric object internally (UMFPACK
 *   has no in-place refactorization): each one counts as fresh. Solves use
 *   umfpack_di_wsolve with work arrays allocated in mcb_lu_analyze, without
 *   iterative refinement (as KLU's), so a solve allocates nothing. Its
 *   dense frontal kernels call the BLAS (OpenBLAS: threads as it is set).
 *
 * Both: a singular matrix (an exactly zero pivot, or a pivot ratio that is
 * not > 0) is status 1 from mcb_lu_factor, never an error; a solve after a
 * failed factorization returns 1. */
#ifndef MCB_LU_H
#define MCB_LU_H

#include <stddef.h>

#include "lib/mcb_error.h"
#include "lib/mcb_sparse.h"

typedef struct mcb_lu mcb_lu;

/* The backends, the values of the solvers' parameter `lu`. */
typedef enum { MCB_LU_KLU = 0, MCB_LU_UMFPACK = 1, MCB_LU_NKINDS } mcb_lu_kind;

/* The solvers' parameter `lu` (an int field of their parameter struct):
 * MCB_LU_PARAM_DESC(struct, field) is its mcb_param_desc entry, the same
 * name and text in every solver that factors with mcb_lu. */
#define MCB_LU_PARAM_HELP                                                                      \
    "sparse LU of the unsymmetric Newton matrix: 0 KLU (refactored in place with the first "   \
    "pivots: no allocation after the first factorization), 1 UMFPACK (fresh pivots and an "    \
    "allocation at every factorization; docs/performance.md, \"KLU against UMFPACK\") (0)"
#define MCB_LU_PARAM_DESC(type, field) {"lu", 'i', offsetof(type, field), MCB_LU_PARAM_HELP}

/* "klu", "umfpack" ("?" for another value). */
const char *mcb_lu_kind_name(int kind);
/* MCB_OK when kind is a backend; else MCB_E_INPUT with "<solver>: lu = k
 * must be 0 (KLU) or 1 (UMFPACK)". */
mcb_rc mcb_lu_check_kind(int kind, const char *solver, mcb_err *err);

/* A refactorization (KLU) whose pivot ratio fell below this fraction of the
 * last fresh factorization's is redone with new pivots. */
#define MCB_LU_REPIVOT 1e-6

/* Symbolic analysis of K's pattern (n x n) for the backend `kind`
 * (mcb_lu_kind). No numeric work; K's values are not read. Fails
 * (MCB_E_INPUT) on a non-square K or an unknown kind, MCB_E_NOMEM,
 * MCB_E_NUMERIC when the backend refuses the pattern; *F is then NULL and
 * nothing stays allocated. */
mcb_rc mcb_lu_analyze(const mcb_csc *K, int kind, mcb_lu **F, mcb_err *err);
/* Numeric factorization of K (the analysed pattern, new values): 0 on
 * success, 1 when K is singular, MCB_E_NOMEM when a fresh factorization
 * ran out of memory. */
int mcb_lu_factor(mcb_lu *F, const mcb_csc *K);
/* x = K^-1 x in place with the last factorization. No allocation. Returns
 * 0, or 1 when the solve failed or the last factorization did. */
int mcb_lu_solve(mcb_lu *F, double *x);
/* Factorizations that chose pivots (and allocated): KLU's first and every
 * repivot; every one of UMFPACK's. */
int mcb_lu_fresh_factorizations(const mcb_lu *F);
/* Every numeric factorization (mcb_lu_factor calls on a non-empty K). */
int mcb_lu_factorizations(const mcb_lu *F);
/* The backend F was analysed for (mcb_lu_kind); -1 for NULL. */
int mcb_lu_kind_of(const mcb_lu *F);
void mcb_lu_free(mcb_lu **F); /* accepts NULL */

#endif

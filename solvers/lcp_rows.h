/* lcp_rows.h: what the LCP solvers (psor-lcp, pj-lcp, fischer-newton,
 * minmap-newton, lemke, ip-lcp) set up alike on u = W z + q + r∘z: the
 * matrix with the per-row compliance r folded in (W + diag(r)), and, for
 * the row-by-row iterations (psor-lcp, pj-lcp), that matrix's rows, which
 * rows are free (bilateral: the mixed part of an MLCP) and the diagonal
 * weight d_r = W_rr + r_r + reg each row divides by. */
#ifndef MCB_LCP_ROWS_H
#define MCB_LCP_ROWS_H

#include "lib/mcb_problem.h"

/* The LCP's matrix: u = W z + q + r∘z = (W + diag(r)) z + q (r: the
 * problem's per-row compliance, mcb_problem.h). P->W itself when P has no
 * compliance (*own = NULL); else W + diag(r), built into *own for the
 * caller to free (mcb_csc_free). NULL when out of memory. */
const mcb_csc *mcb_lcp_matrix(const mcb_problem *P, mcb_csc **own);

/* The rows of the LCP's matrix: the transpose of W + diag(r) (CSC: column
 * r = row r), owned by the caller; NULL when out of memory. */
mcb_csc *mcb_lcp_rows(const mcb_problem *P);

/* free_row[r] = 1 for a bilateral row; d[r] = W_rr + r_r + reg from the
 * rows WT (mcb_lcp_rows: its diagonal carries r). A weight that is not
 * positive (Stewart-Trinkle's sigma rows and the mlcp's contact rows have
 * W_rr = 0) fails with MCB_E_NUMERIC, the row and the remedy (--param
 * NAME.reg=R) named; `method` says what divides by it ("projected SOR"). */
mcb_rc mcb_lcp_row_weights(const mcb_problem *P, const mcb_csc *WT, double reg,
                           const char *name, const char *method, double *d,
                           unsigned char *free_row, mcb_err *err);

#endif

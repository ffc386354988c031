/* lcp_rows.h: what the row-by-row LCP iterations (psor-lcp, pj-lcp) set up
 * alike on u = W z + q: which rows are free (bilateral: the mixed part of
 * an MLCP) and the diagonal weight d_r = W_rr + reg each row divides by. */
#ifndef MCB_LCP_ROWS_H
#define MCB_LCP_ROWS_H

#include "mcb_problem.h"

/* free_row[r] = 1 for a bilateral row; d[r] = W_rr + reg from W^T (WT,
 * CSC: column r = row r of W). A weight that is not positive (Stewart-
 * Trinkle's sigma rows and the mlcp's contact rows have W_rr = 0) fails
 * with MCB_E_NUMERIC, the row and the remedy (--param NAME.reg=R) named;
 * `method` says what divides by it ("projected SOR"). */
mcb_rc mcb_lcp_row_weights(const mcb_problem *P, const mcb_csc *WT, double reg,
                           const char *name, const char *method, double *d,
                           unsigned char *free_row, mcb_err *err);

#endif

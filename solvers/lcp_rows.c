/* lcp_rows.c: the free rows and diagonal weights of the row-by-row LCP
 * iterations (see lcp_rows.h). */
#include "lcp_rows.h"

mcb_rc mcb_lcp_row_weights(const mcb_problem *P, const mcb_csc *WT, double reg,
                           const char *name, const char *method, double *d,
                           unsigned char *free_row, mcb_err *err)
{
    for (int b = 0; b < P->nblocks; b++)
        for (int r = P->blocks[b].row; r < P->blocks[b].row + P->blocks[b].nrows; r++)
            free_row[r] = P->blocks[b].type == MCB_BILATERAL;
    for (int r = 0; r < P->m; r++) {
        double wrr = 0.0;
        for (int k = WT->p[r]; k < WT->p[r + 1]; k++)
            if (WT->i[k] == r) wrr = WT->x[k];
        d[r] = wrr + reg;
        if (!(d[r] > 0.0))
            return mcb_fail(err, MCB_E_NUMERIC,
                            "%s: W_rr + reg = %g at row %d (%s): %s divides by the diagonal "
                            "(Stewart-Trinkle's sigma rows and the mlcp's contact rows have "
                            "W_rr = 0); set --param %s.reg=R with R > 0",
                            name, d[r], r, free_row[r] ? "free row" : "unilateral row", method,
                            name);
    }
    return MCB_OK;
}

/* lcp_rows.c: the LCP solvers' matrix W + diag(r), and the rows, free
 * rows and diagonal weights of the row-by-row iterations (see lcp_rows.h). */
#include "solvers/lcp_rows.h"

const mcb_csc *mcb_lcp_matrix(const mcb_problem *P, mcb_csc **own)
{
    *own = NULL;
    if (!mcb_problem_has_compliance(P)) return P->W;
    return *own = mcb_csc_add_diag(P->W, P->r);
}

mcb_csc *mcb_lcp_rows(const mcb_problem *P)
{
    mcb_csc *own;
    const mcb_csc *W = mcb_lcp_matrix(P, &own);
    mcb_csc *WT = mcb_csc_transpose(W); /* NULL from NULL */
    mcb_csc_free(&own);
    return WT;
}

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
                            "%s: W_rr + r_r + reg = %g at row %d (%s): %s divides by the diagonal "
                            "(Stewart-Trinkle's sigma rows and the mlcp's contact rows have "
                            "W_rr = 0); set --param %s.reg=R with R > 0",
                            name, d[r], r, free_row[r] ? "free row" : "unilateral row", method,
                            name);
    }
    return MCB_OK;
}

/* form_lcp_st.c: Stewart-Trinkle's LCP (RPIsim Sec. 3.2, eq. (7); eq. (6)
 * without the PEG rows), built from P's Delassus operator
 * (lib/mcb_delassus.h: sparse, never a dense n x n):
 *     0 <= z  ⊥  W' z + q' >= 0,   z = (lambda_n, beta, sigma) per contact,
 *     W' = [ T^T W T        E ]     q' = T^T q
 *          [ U   -E^T       0 ]   (sigma rows)
 * with W = J A^-1 J^T and q = J A^-1 b + e (primal P) or P's own W and q
 * (dual P), T the map lambda = T z (lambda_t = D beta, D the n_d polygon
 * directions of the contact), E the block diagonal of ones(n_d, 1) and U
 * the friction coefficients. Row by row: u_n >= 0 ⊥ lambda_n (Signorini),
 * D^T u_t + sigma e >= 0 ⊥ beta (maximal dissipation over the polygon),
 * mu lambda_n - e^T beta >= 0 ⊥ sigma (the polygonal cone). The sigma rows
 * have zero diagonal entries. Bilateral and unilateral rows keep their W
 * rows; soft rows become bilateral rows with their compliance (see
 * form_lcp.c). The Delassus operator is kept for the map back
 * v = A^-1 (b + J^T lambda). Fails as mcb_delassus_build(), MCB_E_NOMEM. */
#include <stdlib.h>
#include <string.h>

#include "problems/formulation/form_internal.h"

mcb_rc mcb_form_lcp_dual(mcb_formulation *F, int drop_contact_e, mcb_err *err)
{
    const mcb_problem *P = F->P;
    mcb_rc rc = mcb_delassus_build(P, &F->D, err);
    if (rc) return rc;
    if ((rc = mcb_form_lcp_layout(F, err))) return rc;
    mcb_problem *Q = F->Q;
    mcb_csc *TT = mcb_csc_transpose(F->T), *TW = NULL, *WQ = NULL;
    double *qe = mcb_malloc((size_t)P->m + 1, sizeof(double));
    mcb_trip t = {0};
    int ok = TT && qe && (TW = mcb_csc_multiply(TT, F->D->W)) && (WQ = mcb_csc_multiply(TW, F->T));
    if (ok) {
        memcpy(qe, F->D->q, (size_t)P->m * sizeof(double));
        if (drop_contact_e) /* Anitescu-Potra: the contacts' constant terms go */
            for (int b = 0; b < P->nblocks; b++)
                if (mcb_is_contact(P->blocks[b].type))
                    for (int k = 0; k < 3; k++) qe[P->blocks[b].row + k] -= P->e[P->blocks[b].row + k];
        mcb_csc_gaxpy(TT, qe, Q->q);
        for (int j = 0; j < WQ->n && ok; j++)
            for (int k = WQ->p[j]; k < WQ->p[j + 1] && ok; k++)
                if (!mcb_form_soft_fixed(F, WQ->i[k])) ok = mcb_trip_push(&t, WQ->i[k], j, WQ->x[k]);
        ok = ok && mcb_form_lcp_extras(F, &t, Q->q);
        ok = ok && (Q->W = mcb_csc_from_triplets(Q->m, Q->m, t.n, t.i, t.j, t.x));
    }
    mcb_trip_free(&t);
    mcb_csc_free(&TT);
    mcb_csc_free(&TW);
    mcb_csc_free(&WQ);
    free(qe);
    return ok ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "out of memory");
}

mcb_rc mcb_form_build_lcp_st(mcb_formulation *F, mcb_err *err)
{
    return mcb_form_lcp_dual(F, 0, err);
}

/* form_mlcp.c: the mixed LCP of RPIsim eq. (6) without the PEG rows
 * (E_1, G_a and the a rows), the Newton-Euler rows kept:
 *     [ 0   ]   [ A    -J'^T   ] [ v ]   [ -b   ]
 *     [ w_z ] = [ J'    C      ] [ z ] + [ T^T e ],   v free (bilateral),
 *                                                     0 <= z ⊥ w_z >= 0
 * with J' = T^T J (the normal rows, then D^T J_t, empty sigma rows), z and
 * C as in Stewart-Trinkle (form_lcp_st.c: C holds E, U, -E^T and the soft
 * rows' compliances). A is never inverted nor factorized: W' holds A's
 * entries. The first A->n rows are one bilateral block; the diagonal of
 * the contact rows is zero. The map back takes v from the solution itself
 * (it is a variable here: the judge's dyn_abs then measures how well the
 * solver met the Newton-Euler rows) and lambda = T z. Needs the primal
 * data: MCB_E_INPUT for a dual P. */
#include <stdlib.h>
#include <string.h>

#include "problems/formulation/form_internal.h"

mcb_rc mcb_form_build_mlcp(mcb_formulation *F, mcb_err *err)
{
    const mcb_problem *P = F->P;
    if (P->form != MCB_PRIMAL)
        return mcb_fail(err, MCB_E_INPUT,
                        "mlcp needs the primal data (A, b, J, e): a dual problem has no "
                        "Newton-Euler rows");
    int n = P->n;
    F->off = n;
    mcb_rc rc = mcb_form_lcp_layout(F, err);
    if (rc) return rc;
    mcb_problem *Q = F->Q;
    mcb_csc *TT = mcb_csc_transpose(F->T), *Jp = NULL;
    mcb_trip t = {0};
    int ok = TT && (Jp = mcb_csc_multiply(TT, P->J));
    for (int j = 0; ok && j < n; j++) /* A */
        for (int k = P->A->p[j]; k < P->A->p[j + 1] && ok; k++)
            ok = mcb_trip_push(&t, P->A->i[k], j, P->A->x[k]);
    for (int j = 0; ok && j < n; j++) /* -J'^T in the Newton-Euler rows, J' below */
        for (int k = Jp->p[j]; k < Jp->p[j + 1] && ok; k++) {
            int c = Jp->i[k];
            ok = mcb_trip_push(&t, j, n + c, -Jp->x[k]) &&
                 (mcb_form_soft_fixed(F, c) || mcb_trip_push(&t, n + c, j, Jp->x[k]));
        }
    for (int b = 0; ok && P->r && b < P->nblocks; b++) { /* compliance: T^T diag(r) T */
        const mcb_block *B = &P->blocks[b];
        int c = n + F->qrow[b], r0 = B->row;
        if (mcb_is_contact(B->type)) {
            ok = mcb_trip_push(&t, c, c, P->r[r0]);
            for (int k = 0; k < F->nd && ok; k++)
                for (int l = 0; l < F->nd && ok; l++)
                    ok = mcb_trip_push(&t, c + 1 + k, c + 1 + l,
                                       P->r[r0 + 1] * F->dir[2 * k] * F->dir[2 * l] +
                                           P->r[r0 + 2] * F->dir[2 * k + 1] * F->dir[2 * l + 1]);
        } else if (B->type != MCB_SOFT) {
            for (int k = 0; k < B->nrows && ok; k++) ok = mcb_trip_push(&t, c + k, c + k, P->r[r0 + k]);
        }
    }
    if (ok) {
        for (int i = 0; i < n; i++) Q->q[i] = -P->b[i];
        mcb_csc_gaxpy(TT, P->e, Q->q + n);
        ok = mcb_form_lcp_extras(F, &t, Q->q + 0) &&
             (Q->W = mcb_csc_from_triplets(Q->m, Q->m, t.n, t.i, t.j, t.x));
    }
    mcb_trip_free(&t);
    mcb_csc_free(&TT);
    mcb_csc_free(&Jp);
    return ok ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "out of memory");
}

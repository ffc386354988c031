/* form_ccp.c: Anitescu's cone complementarity relaxation: a copy of P with
 * every contact block relabelled contact_ccp ((u, lambda) in K_mu* x K_mu,
 * u ⊥ lambda; see mcb_problem.h). The map back is a copy; the own residual
 * the natural map of the copy (under the CCP). Fails with MCB_E_NOMEM. */
#include "problems/formulation/form_internal.h"

mcb_rc mcb_form_build_ccp(mcb_formulation *F, mcb_err *err)
{
    F->Q = mcb_problem_copy(F->P);
    if (!F->Q) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int b = 0; b < F->Q->nblocks; b++)
        if (F->Q->blocks[b].type == MCB_CONTACT) F->Q->blocks[b].type = MCB_CONTACT_CCP;
    return MCB_OK;
}

/* form_lcp_ap.c: Anitescu-Potra's LCP (RPIsim Sec. 3.3): Stewart-Trinkle's
 * (form_lcp_st.c) with the right-hand side of eq. (6) set to 0 in every
 * row but the first (the Newton-Euler row): the contact rows lose their
 * constant terms (the gap over h and the explicit velocity terms), so
 *     q' = T^T (J A^-1 b + e~),   e~ = e with every contact's 3 rows zeroed;
 * bilateral, unilateral and soft rows keep their e. The solution is then
 * judged on P, whose contacts keep e: the difference is what the
 * formulation costs. Needs the primal data (a dual problem's q does not
 * separate J A^-1 b from e): MCB_E_INPUT for a dual P. */
#include "problems/formulation/form_internal.h"

mcb_rc mcb_form_build_lcp_ap(mcb_formulation *F, mcb_err *err)
{
    if (F->P->form != MCB_PRIMAL)
        return mcb_fail(err, MCB_E_INPUT,
                        "lcp-ap needs the primal data: a dual problem's q = J A^-1 b + e does "
                        "not separate the contacts' constant terms e");
    return mcb_form_lcp_dual(F, 1, err);
}

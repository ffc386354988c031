/* form_ncp.c: the identity formulation (the default): the solver receives
 * the stored problem itself, nothing is copied, the map back is a copy and
 * the own residual the natural map of P under its stored law. */
#include "problems/formulation/form_internal.h"

mcb_rc mcb_form_build_ncp(mcb_formulation *F, mcb_err *err)
{
    (void)err;
    F->Q = NULL;
    return MCB_OK;
}

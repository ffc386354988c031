/* delassus_loop.c: iteration driver of the Delassus-operator solvers. */
#include "delassus_loop.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int mcb_delassus_loop(void *work, double (*step)(void *work), const double *(*lambda)(void *work),
                      int m, double own_tol, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                      mcb_info *info)
{
    for (int it = 1; it <= s->max_iters; it++) {
        double change = sqrt(step(work));
        double lnorm = mcb_norm2(m, lambda(work));
        info->iterations = it;
        info->own_residual = change / (lnorm > 1.0 ? lnorm : 1.0);
        if (!isfinite(info->own_residual)) return MCB_ST_DIVERGED;
        mcb_cb_action a = cb(ctx, it, info->own_residual);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
        if (info->own_residual <= own_tol) {
            /* own_tol = 0: only a sweep that changed nothing, a fixed point */
            snprintf(info->reason, sizeof info->reason,
                     own_tol > 0.0 ? "own residual %.3g at or below own_tol"
                                   : "a sweep left lambda unchanged (own residual %.3g): a "
                                     "fixed point",
                     info->own_residual);
            return MCB_ST_STALLED;
        }
    }
    return MCB_ST_MAX_ITERS;
}

void mcb_delassus_iterate(mcb_delassus *D, const double *lambda_now, double *v, double *lambda)
{
    memcpy(lambda, lambda_now, (size_t)D->m * sizeof(double));
    if (v && D->P->form == MCB_PRIMAL) mcb_delassus_velocity(D, lambda_now, v);
}

/* delassus_loop.h: the iteration driver shared by the solvers that iterate
 * on the impulses over the Delassus operator (PGS, PJ): run one step, report
 * to the harness, stop on its answer, the budget or the own tolerance. */
#ifndef MCB_DELASSUS_LOOP_H
#define MCB_DELASSUS_LOOP_H

#include "mcb_delassus.h"
#include "solver.h"

/* step() performs one iteration and returns ||lambda^{l+1} - lambda^l||^2;
 * lambda() returns the current impulses. Own residual:
 * ||delta lambda|| / max(1, ||lambda||). Returns the status. */
int mcb_delassus_loop(void *work, double (*step)(void *work), const double *(*lambda)(void *work),
                      int m, double own_tol, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                      mcb_info *info);

/* The iterate: lambda copied, v = A^-1 (b + J^T lambda) for primal problems. */
void mcb_delassus_iterate(mcb_delassus *D, const double *lambda_now, double *v, double *lambda);

#endif

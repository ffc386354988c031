/* ccp_jacobi.h: what solvers/ccp_jacobi.c shares with its GPU sibling
 * (solvers/gpu/ccp_jacobi_gpu.c, docs/gpu.md): the parameters, their
 * defaults and check, and the setup's products (A_s's factors, eta, the
 * soft rows' compliance, lambda^0 and v^0), which the GPU solver packs into
 * its device layout instead of computing them a second time. */
#ifndef MCB_CCP_JACOBI_H
#define MCB_CCP_JACOBI_H

#include "lib/mcb_chol.h"
#include "solvers/solver.h"

typedef struct {
    double omega;   /* step factor (their omega) */
    double relax;   /* their lambda: gamma = relax P(...) + (1 - relax) gamma */
    double eta_c;   /* numerator of a contact's eta (Alg. 1 step 1: 3) */
    double own_tol; /* stop on the own residual below this (0: never) */
} mcb_ccpj_params;

typedef struct {
    const mcb_problem *P;
    mcb_ccpj_params prm;
    int ns;
    int *s0;        /* ns + 1 subsystem DOF starts */
    mcb_chol **F;   /* per subsystem: CHOLMOD factor of A_s (large subsystems) */
    double **L;     /* per subsystem: dense Cholesky factor of A_s (at most
                       MCB_DELASSUS_DENSE_MAX DOFs: rigid bodies, small robots) */
    mcb_csc *JT;    /* J^T: column r = row r of J */
    double *eta;    /* m: per row (a contact's three rows share theirs) */
    double *c, *d;  /* m: soft rows' compliance and offset */
    double *fixed;  /* m: NaN, or a soft row's fixed impulse */
    double *lambda, *v, *vprev;
} mcb_ccpj_work;

#define MCB_CCPJ_NPARAMS 4
extern const mcb_param_desc mcb_ccpj_desc[MCB_CCPJ_NPARAMS];
void mcb_ccpj_defaults(void *params);
mcb_rc mcb_ccpj_check(const void *params, mcb_err *err);
/* ccp-jacobi's setup: *work is an mcb_ccpj_work after the setup (lambda^0,
 * v^0 of eq. (23)); freed by mcb_ccpj_free (accepts NULL). */
mcb_rc mcb_ccpj_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                      void **work, mcb_err *err);
void mcb_ccpj_free(void **work);
/* After iteration `it` with own residual `own` (||v^{r+1} - v^r|| /
 * max(1, ||v^{r+1}||)): records both in info and returns the status that
 * ends the solve (diverged on a non-finite iterate, the callback's verdict,
 * stalled below own_tol), or -1 to go on. */
int mcb_ccpj_judge(const mcb_ccpj_params *prm, int it, double own, int lambda_finite,
                   mcb_iter_cb cb, void *ctx, mcb_info *info);

#endif

/* pj.h: what solvers/pj.c shares with its GPU sibling
 * (solvers/gpu/pj_gpu.c, docs/gpu.md): the parameters, their defaults and
 * check, and the setup's products (the matrix-free operator: A's subsystem
 * factors, the contacts' 3x3 blocks of W and the row weights; omega after
 * the power iteration; lambda^0), which the GPU solver packs into its
 * device layout instead of computing them a second time. */
#ifndef MCB_PJ_H
#define MCB_PJ_H

#include "solvers/delassus_loop.h"
#include "solvers/solver.h"

typedef struct {
    double omega;     /* step scale; 0: automatic 1 / rho(D^-1/2 W D^-1/2) */
    int power_iters;  /* power iterations for the automatic omega */
    double own_tol;   /* stop on the own residual below this (0: never) */
    double relax;     /* under-relaxation in (0, 1] */
    int matrix_free;  /* 1: W never assembled (primal problems) */
} mcb_pj_params;

typedef struct {
    const mcb_problem *P;
    mcb_pj_params prm; /* omega resolved by the setup */
    mcb_delassus *D; /* assembled W, or */
    mcb_mf *F;       /* the matrix-free operator */
    const double *d, *Wb; /* the weights and 3x3 blocks of either */
    double *lambda, *next, *u, *change2; /* change2: per block, summed serially */
} mcb_pj_work;

#define MCB_PJ_NPARAMS 5
extern const mcb_param_desc mcb_pj_desc[MCB_PJ_NPARAMS];
void mcb_pj_defaults(void *params);
mcb_rc mcb_pj_check(const void *params, mcb_err *err);
/* pj's setup: *work is an mcb_pj_work; freed by mcb_pj_free (accepts NULL). */
mcb_rc mcb_pj_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                    void **work, mcb_err *err);
void mcb_pj_free(void **work);

#endif

/* pgs.c: projected Gauss-Seidel on the Delassus operator.
 *
 * The classical solver of robotics and graphics engines (SubADMM paper,
 * Sec. IV-B1; RPIsim's PSOR family; Siconos' NSGS). On u = W lambda + q with
 * W = J A^-1 J^T assembled sparse (lib/mcb_delassus.c), one sweep visits the
 * constraint blocks in order and replaces each block's impulse by the
 * solution of its local problem, u_b computed from the freshest impulses
 * (Gauss-Seidel):
 *   - a contact solves its local Signorini-Coulomb problem with the exact
 *     3x3 block W_bb (normal-tangent coupling included) by at most
 *     MCB_LOCAL_ITERS inner projected fixed-point steps (the strict
 *     operator of the CANAL paper eq. (17), normal row then tangential pair),
 *     relaxed by omega and projected on the cone;
 *   - unilateral rows max(0, lambda - omega u / W_rr), bilateral rows the
 *     scalar step, soft rows the exact scalar law (mcb_block_step()).
 * A fixed point satisfies the Signorini-Coulomb conditions exactly.
 * Accepts primal and dual problems; warm-starts from the problem's initial
 * impulses. Own residual: ||lambda^{l+1} - lambda^l|| /
 * max(1, ||lambda^{l+1}||). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "delassus_loop.h"
#include "solver.h"

typedef struct {
    double omega;   /* relaxation factor in (0, 2) */
    double own_tol; /* stop on the own residual below this (0: never) */
} pgs_params;

static void pgs_defaults(void *p)
{
    pgs_params *q = p;
    q->omega = 1.0;
    q->own_tol = 0.0;
}

static const mcb_param_desc pgs_desc[] = {
    {"omega", 'd', offsetof(pgs_params, omega),
     "relaxation factor, 0 < omega < 2 (1: plain Gauss-Seidel)"},
    {"own_tol", 'd', offsetof(pgs_params, own_tol),
     "stop when the own residual falls below this (0: only the harness stops it)"},
};

typedef struct {
    const mcb_problem *P;
    pgs_params prm;
    mcb_delassus *D;
    double *lambda;
    double u[3], prev[3]; /* per-block scratch; other block types are row-wise */
} pgs_work;

static void pgs_free(void **work)
{
    if (!work || !*work) return;
    pgs_work *w = *work;
    mcb_delassus_free(&w->D);
    free(w->lambda);
    free(w);
    *work = NULL;
}

static mcb_rc pgs_check(const void *params, mcb_err *err)
{
    const pgs_params *prm = params;
    if (!(prm->omega > 0.0 && prm->omega < 2.0))
        return mcb_fail(err, MCB_E_INPUT, "pgs.omega = %g must lie in (0, 2)", prm->omega);
    if (!(prm->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "pgs.own_tol = %g must be >= 0", prm->own_tol);
    return MCB_OK;
}

static mcb_rc pgs_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                        void **work, mcb_err *err)
{
    *work = NULL;
    const pgs_params *prm = params;
    mcb_rc rc = pgs_check(params, err);
    if (rc) return rc;
    pgs_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *prm;
    w->lambda = mcb_calloc((size_t)P->m, sizeof(double));
    if (!w->lambda) {
        pgs_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    rc = mcb_delassus_build(P, &w->D, err);
    if (rc) {
        pgs_free((void **)&w);
        return rc;
    }
    if (s->warm_start && P->lambda0) memcpy(w->lambda, P->lambda0, (size_t)P->m * sizeof(double));
    *work = w;
    return MCB_OK;
}

/* One Gauss-Seidel sweep over the blocks; returns ||delta lambda||^2.
 * Blocks longer than 3 rows (bilateral, unilateral, soft) are swept row by
 * row, which is the same update since their projections are row-wise. */
static double sweep(pgs_work *w)
{
    const mcb_problem *P = w->P;
    double change2 = 0.0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int step = B->type == MCB_CONTACT ? 3 : 1;
        mcb_block one = *B;
        one.nrows = step;
        for (int r = B->row; r < B->row + B->nrows; r += step) {
            double *l = w->lambda + r;
            mcb_delassus_rows(w->D, r, step, w->lambda, w->u);
            memcpy(w->prev, l, (size_t)step * sizeof(double));
            mcb_block_step(&one, P->e ? P->e + r : NULL, w->prev, w->u, w->D->d + r,
                           w->D->Wb + 3 * (size_t)r, w->prm.omega, l);
            for (int k = 0; k < step; k++) change2 += (l[k] - w->prev[k]) * (l[k] - w->prev[k]);
        }
    }
    return change2;
}

static double pgs_step(void *work) { return sweep(work); }
static const double *pgs_lambda(void *work) { return ((pgs_work *)work)->lambda; }

static int pgs_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                     mcb_info *info)
{
    pgs_work *w = work;
    return mcb_delassus_loop(w, pgs_step, pgs_lambda, w->P->m, w->prm.own_tol, s, cb, ctx,
                             info);
}

static void pgs_iterate(void *work, double *v, double *lambda)
{
    pgs_work *w = work;
    mcb_delassus_iterate(w->D, w->lambda, v, lambda);
}

const mcb_solver_def mcb_solver_pgs = {
    .name = "pgs",
    .accepts_problem = mcb_accepts_coulomb_only,
    .description = "projected Gauss-Seidel on the sparse Delassus operator, per-contact local "
                   "solve with the exact 3x3 block",
    .reference = "SubADMM paper Sec. IV-B1; CANAL paper eq. (17) for the projection",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,
    .params_size = sizeof(pgs_params),
    .default_params = pgs_defaults,
    .params = pgs_desc,
    .nparams = (int)(sizeof pgs_desc / sizeof pgs_desc[0]),
    .check_params = pgs_check,
    .setup = pgs_setup,
    .solve = pgs_solve,
    .iterate = pgs_iterate,
    .free = pgs_free,
};

/* pj.c: projected Jacobi on the Delassus operator.
 *
 * The parallel sibling of PGS (SubADMM paper Sec. IV-B2; the Jacobi form of
 * the Tasora-Negrut cone-complementarity iteration). Every block is updated
 * from the same previous iterate,
 *     u = W lambda^l + q,
 *     lambda_b^{l+1} = P_K(lambda_b^l + omega (x_b - lambda_b^l))  for all b at once,
 * x_b the solution of block b's local problem with the exact 3x3 block W_bb
 * for contacts (the same local step as PGS, mcb_block_step()), the scalar
 * step for the other rows. Both loops run in parallel with OpenMP (static
 * schedule, no reductions on the iterate: results do not depend on the thread
 * count). Jacobi needs damping: omega = 0 (the default) picks
 * omega = 1 / rho(Db^-1 W), Db the block diagonal of W (3x3 contact blocks,
 * scalar rows otherwise), the spectral radius estimated by power iteration
 * at setup: the block-Jacobi step of the linear (all-sticking) case is then
 * a contraction.
 * Under-relaxation (relax in (0, 1], 1 by default: none): the new iterate is
 * the convex combination lambda^l + relax (lambda~ - lambda^l) of the old one
 * and the Jacobi step's lambda~, inside the cones since both are.
 * matrix_free = 1: W is never assembled (mcb_mf in delassus_loop.c, as for
 * pgs-mf): every iteration v = A^-1 (b + J^T lambda^l) from A's subsystem
 * factors (OpenMP over the subsystems), u = J v + e (OpenMP over the rows),
 * the 3x3 blocks from J's rows; the same iterates up to round-off. Primal
 * problems with A block diagonal over subsystems of at most
 * MCB_DELASSUS_DENSE_MAX DOFs (setup fails with the reason otherwise); a
 * dual problem keeps its given W. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/gpu/pj_kernels.h"
#include "solvers/pj.h"

void mcb_pj_defaults(void *p)
{
    mcb_pj_params *q = p;
    q->omega = 0.0;
    q->power_iters = 50;
    q->own_tol = 0.0;
    q->relax = 1.0;
    q->matrix_free = 0;
}

const mcb_param_desc mcb_pj_desc[MCB_PJ_NPARAMS] = {
    {"omega", 'd', offsetof(mcb_pj_params, omega),
     "step scale (0: automatic, 1 / spectral radius of the block-Jacobi-scaled Delassus "
     "operator)"},
    {"power_iters", 'i', offsetof(mcb_pj_params, power_iters),
     "power iterations used to estimate the spectral radius for the automatic omega"},
    {"own_tol", 'd', offsetof(mcb_pj_params, own_tol),
     "stop when the own residual falls below this (0: only the harness stops it)"},
    {"relax", 'd', offsetof(mcb_pj_params, relax),
     "under-relaxation, 0 < relax <= 1: lambda <- lambda + relax (jacobi step - lambda) (1: "
     "none)"},
    {"matrix_free", 'i', offsetof(mcb_pj_params, matrix_free),
     "1: never assemble W; u = J v + e with v = A^-1 (b + J^T lambda) from A's subsystem "
     "factors every iteration (primal, block-diagonal A); 0: the assembled W"},
};

void mcb_pj_free(void **work)
{
    if (!work || !*work) return;
    mcb_pj_work *w = *work;
    mcb_delassus_free(&w->D);
    mcb_mf_free(&w->F);
    free(w->lambda);
    free(w->next);
    free(w->u);
    free(w->change2);
    free(w);
    *work = NULL;
}

/* rho(Db^-1 W) by power iteration from a fixed start vector (its
 * eigenvalues are those of Db^-1/2 W Db^-1/2: real, >= 0); rows with
 * infinite weight are left out. x, y, z: m work vectors. */
static double spectral_radius(mcb_pj_work *w, int iters, double *x, double *y, double *z)
{
    int m = w->P->m;
    for (int r = 0; r < m; r++) x[r] = isfinite(w->d[r]) ? 1.0 + 0.01 * (r % 7) : 0.0;
    double rho = 0.0;
    for (int it = 0; it < iters; it++) {
        double nx = mcb_norm2(m, x);
        if (nx == 0.0) return 1.0;
        for (int r = 0; r < m; r++) x[r] /= nx;
        if (w->F) {
            mcb_mf_apply(w->F, x, z);
            mcb_block_diag_solve(w->P, w->d, w->Wb, z, y);
        } else {
            memset(z, 0, (size_t)m * sizeof(double));
            mcb_csc_gaxpy(w->D->W, x, z);
            mcb_delassus_block_solve(w->D, z, y);
        }
        rho = mcb_norm2(m, y);
        memcpy(x, y, (size_t)m * sizeof(double));
    }
    return rho > 0.0 ? rho : 1.0;
}

mcb_rc mcb_pj_check(const void *params, mcb_err *err)
{
    const mcb_pj_params *prm = params;
    if (!(prm->omega >= 0.0) || prm->power_iters < 1 || !(prm->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT,
                        "pj: omega (%g) must be >= 0, power_iters (%d) >= 1, own_tol (%g) >= 0",
                        prm->omega, prm->power_iters, prm->own_tol);
    if (!(prm->relax > 0.0 && prm->relax <= 1.0) || prm->matrix_free < 0 ||
        prm->matrix_free > 1)
        return mcb_fail(err, MCB_E_INPUT, "pj: relax (%g) must lie in (0, 1], matrix_free (%d) "
                        "be 0 or 1", prm->relax, prm->matrix_free);
    return MCB_OK;
}

mcb_rc mcb_pj_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                       void **work, mcb_err *err)
{
    *work = NULL;
    const mcb_pj_params *prm = params;
    mcb_rc rc = mcb_pj_check(params, err);
    if (rc) return rc;
    mcb_pj_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *prm;
    size_t m = (size_t)P->m;
    w->lambda = mcb_calloc(m, sizeof(double));
    w->next = mcb_calloc(m, sizeof(double));
    w->u = mcb_calloc(m, sizeof(double));
    w->change2 = mcb_calloc((size_t)P->nblocks, sizeof(double));
    if (!w->lambda || !w->next || !w->u || !w->change2) {
        mcb_pj_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (prm->matrix_free && P->form == MCB_PRIMAL) {
        rc = mcb_mf_build(P, &w->F, err);
        if (!rc) w->d = w->F->d, w->Wb = w->F->Wb;
    } else {
        rc = mcb_delassus_build(P, &w->D, err);
        if (!rc) w->d = w->D->d, w->Wb = w->D->Wb;
    }
    if (rc) {
        mcb_pj_free((void **)&w);
        return rc;
    }
    if (w->prm.omega == 0.0) {
        double *z = mcb_malloc(m, sizeof(double));
        if (!z) {
            mcb_pj_free((void **)&w);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
        w->prm.omega = 1.0 / spectral_radius(w, prm->power_iters, w->next, w->u, z);
        free(z);
    }
    if (s->warm_start && P->lambda0) memcpy(w->lambda, P->lambda0, m * sizeof(double));
    *work = w;
    return MCB_OK;
}

/* One Jacobi step: u from lambda^l for all rows, then all blocks. */
static double jacobi_step(mcb_pj_work *w)
{
    const mcb_problem *P = w->P;
    const mcb_delassus *D = w->D;
    const mcb_mf *F = w->F;
    int m = P->m, nb = P->nblocks;
    double relax = w->prm.relax;
    if (F) {
        mcb_mf_velocity(F, w->lambda, 1, F->v);
#pragma omp parallel for schedule(static)
        for (int r = 0; r < m; r++) { /* u = J v + e + r∘lambda */
            mcb_mf_rows(F, r, 1, F->v, 1, w->u + r);
            w->u[r] += mcb_problem_r(P, r) * w->lambda[r];
        }
    } else {
#pragma omp parallel for schedule(static)
        for (int r = 0; r < m; r++) mcb_delassus_rows(D, r, 1, w->lambda, w->u + r);
    }
#pragma omp parallel for schedule(static)
    for (int b = 0; b < nb; b++) {
        const mcb_block *B = &P->blocks[b];
        int r = B->row;
        w->change2[b] = pjk_block_update(B->type, B->nrows, B->mu, B->k, B->alpha,
                                         P->e ? P->e + r : NULL, w->lambda + r, w->u + r,
                                         w->d + r, w->Wb + 3 * (size_t)r, w->prm.omega, relax,
                                         w->next + r);
    }
    double change2 = 0.0;
    for (int b = 0; b < nb; b++) change2 += w->change2[b];
    double *t = w->lambda;
    w->lambda = w->next;
    w->next = t;
    return change2;
}

static double pj_step(void *work) { return jacobi_step(work); }
static const double *pj_lambda(void *work) { return ((mcb_pj_work *)work)->lambda; }

static int pj_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                    mcb_info *info)
{
    mcb_pj_work *w = work;
    return mcb_delassus_loop(w, pj_step, pj_lambda, w->P->m, w->prm.own_tol, s, cb, ctx,
                             info);
}

static void pj_iterate(void *work, double *v, double *lambda)
{
    mcb_pj_work *w = work;
    if (w->D) {
        mcb_delassus_iterate(w->D, w->lambda, v, lambda);
        return;
    }
    memcpy(lambda, w->lambda, (size_t)w->P->m * sizeof(double));
    if (v) mcb_mf_velocity(w->F, w->lambda, 1, v);
}

/* The state (solver.h): lambda (next, u and change2 are scratch; the
 * matrix-free velocity is recomputed from lambda every step). */
static size_t pj_state_size(void *work) { return (size_t)((mcb_pj_work *)work)->P->m * sizeof(double); }

static void pj_save_state(void *work, void *buf)
{
    mcb_pj_work *w = work;
    memcpy(buf, w->lambda, (size_t)w->P->m * sizeof(double));
}

static void pj_load_state(void *work, const void *buf)
{
    mcb_pj_work *w = work;
    memcpy(w->lambda, buf, (size_t)w->P->m * sizeof(double));
}

const mcb_solver_def mcb_solver_pj = {
    .name = "pj",
    .accepts_problem = mcb_accepts_coulomb_only,
    .description = "projected Jacobi on the sparse Delassus operator, per-contact local solve with "
                   "the exact 3x3 block, OpenMP over constraints",
    .reference = "SubADMM paper Sec. IV-B2; Tasora-Negrut CCP iteration (Jacobi form)",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,
    .params_size = sizeof(mcb_pj_params),
    .default_params = mcb_pj_defaults,
    .params = mcb_pj_desc,
    .nparams = MCB_PJ_NPARAMS,
    .check_params = mcb_pj_check,
    .setup = mcb_pj_setup,
    .solve = pj_solve,
    .iterate = pj_iterate,
    .free = mcb_pj_free,
    .state_size = pj_state_size,
    .save_state = pj_save_state,
    .load_state = pj_load_state,
};

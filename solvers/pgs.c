/* pgs.c: projected Gauss-Seidel on the Delassus operator, and its
 * variants psor (over-relaxation) and pgs-shuffle (randomised order).
 *
 * The classical solver of robotics and graphics engines (SubADMM paper,
 * Sec. IV-B1; RPIsim's PSOR family; Siconos' NSGS). On u = W lambda + q with
 * W = J A^-1 J^T assembled sparse (lib/mcb_delassus.c), one sweep visits the
 * constraint blocks in order and replaces each block's impulse by the
 * solution of its local problem, u_b computed from the freshest impulses
 * (Gauss-Seidel, mcb_gs_sweep() in delassus_loop.c):
 *   - a contact solves its local Signorini-Coulomb problem with the exact
 *     3x3 block W_bb (normal-tangent coupling included) by at most
 *     MCB_LOCAL_ITERS inner projected fixed-point steps (the strict
 *     operator of the CANAL paper eq. (17), normal row then tangential pair),
 *     relaxed by omega and projected on the cone;
 *   - unilateral rows max(0, lambda - omega u / W_rr), bilateral rows the
 *     scalar step, soft rows the exact scalar law (mcb_block_step()).
 * A fixed point satisfies the Signorini-Coulomb conditions exactly.
 * Variants (separate registry entries sharing this file's work and sweep):
 *   - psor: the same sweep with over-relaxation, omega = 1.3 by default
 *     (lambda_b <- P_K(lambda_b + omega (x_b - lambda_b))); a fixed point is
 *     the same as PGS's for any omega in (0, 2);
 *   - pgs-shuffle: the blocks visited in a new random order every sweep
 *     (Fisher-Yates with a splitmix64 generator seeded by `seed` at setup:
 *     identical runs for a fixed seed);
 *   - pgs-mf: the same sweep matrix-free, as game and robotics engines run
 *     it (mcb_mf in delassus_loop.c): W is never assembled; the velocity
 *     v = A^-1 (b + J^T lambda) is kept current, u_b = J_b v + e_b read from
 *     J's rows, and after a block's step v += (A^-1 J_b^T) delta_b with the
 *     vectors A^-1 J_r^T computed once from A's subsystem blocks (dense
 *     Cholesky, factorized once); the local step uses the exact 3x3 block
 *     J_b A^-1 J_b^T from J's rows. Its iterates are PGS's up to round-off
 *     (same order, same local step). Primal problems whose A is block
 *     diagonal with subsystems of at most MCB_DELASSUS_DENSE_MAX DOFs
 *     (rigid bodies, small robots); others are skipped with the reason.
 * pgs, psor and pgs-shuffle accept primal and dual problems; warm-starts from the problem's initial
 * impulses. Own residual: ||lambda^{l+1} - lambda^l|| /
 * max(1, ||lambda^{l+1}||). Serial (a sweep is sequential by nature). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/delassus_loop.h"
#include "lib/mcb_rng.h"
#include "solvers/solver.h"

typedef struct {
    double omega;   /* relaxation factor in (0, 2) */
    double own_tol; /* stop on the own residual below this (0: never) */
    int seed;       /* pgs-shuffle: the order's seed */
} pgs_params;

#define PSOR_OMEGA 1.3

static void pgs_defaults(void *p)
{
    pgs_params *q = p;
    q->omega = 1.0;
    q->own_tol = 0.0;
    q->seed = 1;
}

static void psor_defaults(void *p)
{
    pgs_defaults(p);
    ((pgs_params *)p)->omega = PSOR_OMEGA;
}

/* pgs and psor list the first two, pgs-shuffle all three */
static const mcb_param_desc pgs_desc[] = {
    {"omega", 'd', offsetof(pgs_params, omega),
     "relaxation factor, 0 < omega < 2 (pgs, pgs-shuffle: 1, plain Gauss-Seidel; psor: 1.3, "
     "over-relaxation)"},
    {"own_tol", 'd', offsetof(pgs_params, own_tol),
     "stop when the own residual falls below this (0: only the harness stops it)"},
    {"seed", 'i', offsetof(pgs_params, seed),
     "seed of the random block order (any integer; the same seed, the same run)"},
};

typedef struct {
    const mcb_problem *P;
    pgs_params prm;
    mcb_delassus *D; /* assembled W (pgs, psor, pgs-shuffle) */
    mcb_mf *F;       /* or the matrix-free operator (pgs-mf) */
    mcb_gs_op G;
    double *lambda;
    int *order;            /* pgs-shuffle: the blocks' order; NULL otherwise */
    mcb_rng rng;            /* the shuffle's generator (lib/mcb_rng.h) */
    int started;            /* pgs-mf: F->v is current (set by the first solve()) */
} pgs_work;

static void pgs_free(void **work)
{
    if (!work || !*work) return;
    pgs_work *w = *work;
    mcb_delassus_free(&w->D);
    mcb_mf_free(&w->F);
    free(w->lambda);
    free(w->order);
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

enum { ASSEMBLED, SHUFFLED, MATRIX_FREE };

static mcb_rc setup_common(const mcb_problem *P, const mcb_settings *s, const void *params,
                           int kind, void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = pgs_check(params, err);
    if (rc) return rc;
    pgs_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const pgs_params *)params;
    if (kind == SHUFFLED && !(w->order = mcb_malloc((size_t)P->nblocks + 1, sizeof(int)))) {
        free(w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (kind == MATRIX_FREE) {
        rc = mcb_mf_build(P, &w->F, err);
        if (!rc && !(w->lambda = mcb_calloc((size_t)P->m + 1, sizeof(double))))
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        if (!rc && s->warm_start && P->lambda0)
            memcpy(w->lambda, P->lambda0, (size_t)P->m * sizeof(double));
    } else {
        rc = mcb_delassus_start(P, s, &w->D, &w->lambda, err);
    }
    if (rc) {
        pgs_free((void **)&w);
        return rc;
    }
    w->G = w->F ? mcb_gs_mf(w->F) : mcb_gs_delassus(w->D);
    if (w->order) { /* the natural order and the seeded generator; a second
                     * solve() continues the sequence like the iteration */
        for (int b = 0; b < P->nblocks; b++) w->order[b] = b;
        mcb_rng_seed(&w->rng, (unsigned long long)(long long)w->prm.seed);
    }
    *work = w;
    return MCB_OK;
}

static mcb_rc pgs_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                        void **work, mcb_err *err)
{
    return setup_common(P, s, params, ASSEMBLED, work, err);
}

static mcb_rc shuffle_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                            void **work, mcb_err *err)
{
    return setup_common(P, s, params, SHUFFLED, work, err);
}

static mcb_rc mf_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                       void **work, mcb_err *err)
{
    return setup_common(P, s, params, MATRIX_FREE, work, err);
}

/* A new random order of the blocks (Fisher-Yates on the previous one). */
static void shuffle(pgs_work *w)
{
    for (int k = w->P->nblocks - 1; k > 0; k--) {
        int j = (int)(mcb_rng_next(&w->rng) % (unsigned long long)(k + 1));
        int t = w->order[k];
        w->order[k] = w->order[j];
        w->order[j] = t;
    }
}

static double pgs_step(void *work)
{
    pgs_work *w = work;
    if (w->order) shuffle(w);
    return mcb_gs_sweep(w->P, &w->G, w->order, w->prm.omega, w->lambda);
}

static const double *pgs_lambda(void *work) { return ((pgs_work *)work)->lambda; }

static int pgs_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                     mcb_info *info)
{
    pgs_work *w = work;
    if (w->F && !w->started) mcb_mf_velocity(w->F, w->lambda, 1, w->F->v); /* v from the start */
    w->started = 1;
    return mcb_delassus_loop(w, pgs_step, pgs_lambda, w->P->m, w->prm.own_tol, s, cb, ctx,
                             info);
}

static void pgs_iterate(void *work, double *v, double *lambda)
{
    pgs_work *w = work;
    if (w->D) {
        mcb_delassus_iterate(w->D, w->lambda, v, lambda);
        return;
    }
    /* pgs-mf: v recomputed from lambda (the kept one carries round-off) */
    memcpy(lambda, w->lambda, (size_t)w->P->m * sizeof(double));
    if (v) mcb_mf_velocity(w->F, w->lambda, 1, v);
}

/* The state (solver.h): lambda, for pgs-shuffle the generator and the
 * current order (the next sweep shuffles it again), for pgs-mf the kept
 * velocity (with its round-off: recomputing it from lambda would change
 * the next sweeps' bits). */
static size_t pgs_state_size(void *work)
{
    pgs_work *w = work;
    size_t z = (size_t)w->P->m * sizeof(double);
    if (w->order) z += sizeof w->rng + (size_t)w->P->nblocks * sizeof(int);
    if (w->F) z += (size_t)w->P->n * sizeof(double);
    return z;
}

static void pgs_save_state(void *work, void *buf)
{
    pgs_work *w = work;
    char *p = buf;
    size_t zl = (size_t)w->P->m * sizeof(double);
    memcpy(p, w->lambda, zl);
    if (w->F) memcpy(p + zl, w->F->v, (size_t)w->P->n * sizeof(double));
    if (!w->order) return;
    memcpy(p + zl, &w->rng, sizeof w->rng);
    memcpy(p + zl + sizeof w->rng, w->order, (size_t)w->P->nblocks * sizeof(int));
}

static void pgs_load_state(void *work, const void *buf)
{
    pgs_work *w = work;
    const char *p = buf;
    size_t zl = (size_t)w->P->m * sizeof(double);
    memcpy(w->lambda, p, zl);
    if (w->F) {
        memcpy(w->F->v, p + zl, (size_t)w->P->n * sizeof(double));
        w->started = 1;
    }
    if (!w->order) return;
    memcpy(&w->rng, p + zl, sizeof w->rng);
    memcpy(w->order, p + zl + sizeof w->rng, (size_t)w->P->nblocks * sizeof(int));
}

/* The fields the four entries share: one parameter struct, check, solve,
 * iterate, free and the state. */
#define PGS_FAMILY                                                                          \
    .params_size = sizeof(pgs_params), .params = pgs_desc, .check_params = pgs_check,     \
    .solve = pgs_solve, .iterate = pgs_iterate, .free = pgs_free,                          \
    .state_size = pgs_state_size, .save_state = pgs_save_state, .load_state = pgs_load_state

const mcb_solver_def mcb_solver_pgs = {
    PGS_FAMILY,
    .name = "pgs",
    .accepts_problem = mcb_accepts_coulomb_only,
    .description = "projected Gauss-Seidel on the sparse Delassus operator, per-contact local "
                   "solve with the exact 3x3 block",
    .reference = "SubADMM paper Sec. IV-B1; CANAL paper eq. (17) for the projection",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,
    .default_params = pgs_defaults,
    .nparams = 2,
    .setup = pgs_setup,
};

const mcb_solver_def mcb_solver_psor = {
    PGS_FAMILY,
    .name = "psor",
    .accepts_problem = mcb_accepts_coulomb_only,
    .description = "projected successive over-relaxation: the pgs sweep with omega = 1.3",
    .reference = "RPIsim's PSOR family; SubADMM paper Sec. IV-B1",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,
    .default_params = psor_defaults,
    .nparams = 2,
    .setup = pgs_setup,
};

const mcb_solver_def mcb_solver_pgs_shuffle = {
    PGS_FAMILY,
    .name = "pgs-shuffle",
    .accepts_problem = mcb_accepts_coulomb_only,
    .description = "projected Gauss-Seidel visiting the blocks in a new random order every "
                   "sweep (fixed seed: deterministic)",
    .reference = "SubADMM paper Sec. IV-B1 (randomised ordering as in game engines)",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,
    .default_params = pgs_defaults,
    .nparams = 3,
    .setup = shuffle_setup,
};

const mcb_solver_def mcb_solver_pgs_mf = {
    PGS_FAMILY,
    .name = "pgs-mf",
    .accepts_problem = mcb_mf_accepts,
    .description = "matrix-free projected Gauss-Seidel: v kept current from J's rows and A's "
                   "subsystem factors, W never assembled (as game and robotics engines run it)",
    .reference = "SubADMM paper Sec. IV-B1; Catto's sequential impulses; CANAL paper eq. (17)",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .default_params = pgs_defaults,
    .nparams = 2,
    .setup = mf_setup,
};

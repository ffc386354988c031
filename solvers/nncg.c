/* nncg.c: projected Gauss-Seidel with nonsmooth nonlinear conjugate-gradient
 * acceleration (NNCG; Silcowitz, Niebe and Erleben 2010, their Algorithm 1:
 * the accelerated PGS of the SubADMM paper's baselines, Sec. IV-B1).
 *
 * PGS's sweep x -> PGS(x) (mcb_gs_sweep(), exact 3x3 contact blocks) is
 * read as a step along the negative gradient of a merit function,
 * grad f(x_k) := x_k - PGS(x_k), and the steps are combined by
 * Fletcher-Reeves conjugate directions:
 *     x_1 = PGS(x_0),  r_1 = x_1 - x_0,  p_1 = r_1
 *     then for k = 1, 2, ...:
 *       x~ = PGS(x_k),  r_{k+1} = x~ - x_k
 *       beta = ||r_{k+1}||^2 / ||r_k||^2               (Fletcher-Reeves)
 *       beta > beta_max (1):  restart, x_{k+1} = x~, p_{k+1} = 0
 *       else:  x_{k+1} = x~ + beta p_k,  p_{k+1} = beta p_k + r_{k+1}
 * The restart keeps the merit decreasing as the paper prescribes. The
 * accelerated iterate may leave the friction cones slightly; the next sweep
 * projects it back, and the harness judges the iterate as it is. Cost per
 * iteration: one PGS sweep plus three vector updates of length m. Accepts
 * primal and dual problems (Coulomb law); warm-starts from lambda0. Own
 * residual: ||x_{k+1} - x_k|| / max(1, ||x_{k+1}||). Serial. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/delassus_loop.h"
#include "solvers/solver.h"

typedef struct {
    double beta_max; /* restart when the Fletcher-Reeves ratio exceeds this */
    double own_tol;  /* stop on the own residual below this (0: never) */
} nncg_params;

static void nncg_defaults(void *p)
{
    nncg_params *q = p;
    q->beta_max = 1.0;
    q->own_tol = 0.0;
}

static const mcb_param_desc nncg_desc[] = {
    {"beta_max", 'd', offsetof(nncg_params, beta_max),
     "restart (drop the direction) when ||r_{k+1}||^2 / ||r_k||^2 exceeds this (1: the "
     "paper's rule, the merit must decrease)"},
    {"own_tol", 'd', offsetof(nncg_params, own_tol),
     "stop when the own residual falls below this (0: only the harness stops it)"},
};

typedef struct {
    const mcb_problem *P;
    nncg_params prm;
    mcb_delassus *D;
    mcb_gs_op G;
    double *lambda, *prev, *p; /* x_k (then x_{k+1}), x_k saved, direction */
    double r2;                 /* ||r_k||^2; < 0 before the first sweep */
    int restarts;
} nncg_work;

static void nncg_free(void **work)
{
    if (!work || !*work) return;
    nncg_work *w = *work;
    mcb_delassus_free(&w->D);
    free(w->lambda);
    free(w->prev);
    free(w->p);
    free(w);
    *work = NULL;
}

static mcb_rc nncg_check(const void *params, mcb_err *err)
{
    const nncg_params *prm = params;
    if (!(prm->beta_max >= 0.0) || !(prm->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "nncg: beta_max (%g) and own_tol (%g) must be >= 0",
                        prm->beta_max, prm->own_tol);
    return MCB_OK;
}

static mcb_rc nncg_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                         void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = nncg_check(params, err);
    if (rc) return rc;
    nncg_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const nncg_params *)params;
    w->prev = mcb_malloc((size_t)P->m + 1, sizeof(double));
    w->p = mcb_calloc((size_t)P->m + 1, sizeof(double));
    if (!w->prev || !w->p) {
        nncg_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    rc = mcb_delassus_start(P, s, &w->D, &w->lambda, err);
    if (rc) {
        nncg_free((void **)&w);
        return rc;
    }
    w->G = mcb_gs_delassus(w->D);
    *work = w;
    return MCB_OK;
}

/* One NNCG iteration; returns ||x_{k+1} - x_k||^2. */
static double nncg_step(void *work)
{
    nncg_work *w = work;
    int m = w->P->m;
    double *x = w->lambda, *p = w->p, *x0 = w->prev;
    memcpy(x0, x, (size_t)m * sizeof(double));
    double r2 = mcb_gs_sweep(w->P, &w->G, NULL, 1.0, x); /* x = PGS(x_k), r = x - x_k */
    double beta = w->r2 > 0.0 ? r2 / w->r2 : 0.0;
    if (w->r2 < 0.0) { /* the first sweep: p_1 = r_1 */
        for (int i = 0; i < m; i++) p[i] = x[i] - x0[i];
    } else if (beta > w->prm.beta_max) {
        memset(p, 0, (size_t)m * sizeof(double));
        w->restarts++;
    } else {
        for (int i = 0; i < m; i++) {
            double r = x[i] - x0[i];
            x[i] += beta * p[i];
            p[i] = beta * p[i] + r;
        }
    }
    w->r2 = r2;
    double change2 = 0.0;
    for (int i = 0; i < m; i++) change2 += (x[i] - x0[i]) * (x[i] - x0[i]);
    return change2;
}

static const double *nncg_lambda(void *work) { return ((nncg_work *)work)->lambda; }

static int nncg_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                      mcb_info *info)
{
    nncg_work *w = work;
    w->r2 = -1.0;
    w->restarts = 0;
    memset(w->p, 0, (size_t)w->P->m * sizeof(double));
    return mcb_delassus_loop(w, nncg_step, nncg_lambda, w->P->m, w->prm.own_tol, s, cb, ctx,
                             info);
}

static void nncg_iterate(void *work, double *v, double *lambda)
{
    nncg_work *w = work;
    mcb_delassus_iterate(w->D, w->lambda, v, lambda);
}

const mcb_solver_def mcb_solver_nncg = {
    .name = "nncg",
    .accepts_problem = mcb_accepts_coulomb_only,
    .description = "projected Gauss-Seidel with nonsmooth nonlinear conjugate-gradient "
                   "(Fletcher-Reeves) acceleration and restarts",
    .reference = "Silcowitz, Niebe, Erleben 2010 (Algorithm 1); SubADMM paper Sec. IV-B1",
    .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,
    .params_size = sizeof(nncg_params),
    .default_params = nncg_defaults,
    .params = nncg_desc,
    .nparams = (int)(sizeof nncg_desc / sizeof nncg_desc[0]),
    .check_params = nncg_check,
    .setup = nncg_setup,
    .solve = nncg_solve,
    .iterate = nncg_iterate,
    .free = nncg_free,
};

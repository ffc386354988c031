/* example_pgs.c: a solver plugin for mcbench, written against the installed
 * public headers only (<mcbench/solvers/solver.h>): projected Gauss-Seidel on the
 * dual problem u = W lambda + q.
 *
 * One iteration is one sweep over the blocks. Block b's rows get
 *     lambda_b <- P_b(lambda_b - rho_b (u_b + s_b)),   rho_b = omega / mean(diag W_bb)
 * with P_b the projection on the block's set: the Coulomb cone
 * K_mu = {||lambda_t|| <= mu lambda_n} for contact and contact_ccp blocks
 * (s_b = [mu ||u_t||, 0, 0], De Saxce's modification, for contact: the
 * fixed point is the Signorini-Coulomb law; s_b = 0 for contact_ccp),
 * lambda >= 0 for unilateral rows, nothing for bilateral rows. After each
 * block, u is updated from W's columns of that block (W is stored by
 * columns), so every block sees its predecessors' new values: Gauss-Seidel.
 * Soft blocks are refused (accepts_problem), primal problems are not
 * accepted (the harness records them as skipped).
 *
 * Build: see README.md (CMake with find_package(mcbench), or pkg-config).
 * setup allocates everything; the iterations allocate nothing. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mcbench/solvers/solver.h>

typedef struct {
    double omega; /* step scale in (0, 2) */
} example_params;

static void example_defaults(void *params)
{
    example_params *p = params;
    p->omega = 1.0;
}

static const mcb_param_desc example_desc[] = {
    {"omega", 'd', offsetof(example_params, omega),
     "step scale in (0, 2): the local step is omega / mean(diag W_bb) (1: the plain step)"},
};

static mcb_rc example_check(const void *params, mcb_err *err)
{
    const example_params *p = params;
    if (!(p->omega > 0.0 && p->omega < 2.0))
        return mcb_fail(err, MCB_E_INPUT, "example-pgs.omega = %g: must lie in (0, 2)", p->omega);
    return MCB_OK;
}

static int example_accepts(const mcb_problem *P, char *reason, size_t len)
{
    for (int b = 0; b < P->nblocks; b++)
        if (P->blocks[b].type == MCB_SOFT) {
            snprintf(reason, len, "block %d is soft: example-pgs has no step for soft rows", b);
            return 0;
        }
    return 1;
}

typedef struct {
    const mcb_problem *P;
    double *lambda, *u; /* iterate and u = W lambda + q */
    double *rho;        /* per block: the local step */
} example_work;

static void example_free(void **work)
{
    if (!work || !*work) return;
    example_work *w = *work;
    free(w->lambda);
    free(w->u);
    free(w->rho);
    free(w);
    *work = NULL;
}

/* The Coulomb cone's projection of (n, t1, t2), in place. */
static void project_cone(double mu, double *l)
{
    double t = hypot(l[1], l[2]);
    if (t <= mu * l[0]) return;
    if (mu * t <= -l[0]) {
        l[0] = l[1] = l[2] = 0.0;
        return;
    }
    double n = (l[0] + mu * t) / (1.0 + mu * mu);
    l[0] = n;
    l[1] *= mu * n / t;
    l[2] *= mu * n / t;
}

/* The mean diagonal entry of rows [r0, r0 + nr) of W. */
static double mean_diag(const mcb_csc *W, int r0, int nr)
{
    double s = 0.0;
    for (int j = r0; j < r0 + nr; j++)
        for (int k = W->p[j]; k < W->p[j + 1]; k++)
            if (W->i[k] == j) s += W->x[k];
    return s / nr;
}

static mcb_rc example_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                            void **work, mcb_err *err)
{
    const example_params *prm = params;
    *work = NULL;
    mcb_rc rc = example_check(prm, err);
    if (rc) return rc;
    if (P->form != MCB_DUAL || !P->W)
        return mcb_fail(err, MCB_E_INPUT, "example-pgs takes dual problems (W, q)");
    example_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "example-pgs: out of memory");
    int m = P->m;
    w->P = P;
    w->lambda = calloc((size_t)m + 1, sizeof *w->lambda);
    w->u = calloc((size_t)m + 1, sizeof *w->u);
    w->rho = calloc((size_t)P->nblocks + 1, sizeof *w->rho);
    if (!w->lambda || !w->u || !w->rho) {
        void *v = w;
        example_free(&v);
        return mcb_fail(err, MCB_E_NOMEM, "example-pgs: out of memory (m = %d)", m);
    }
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        double d = mean_diag(P->W, B->row, B->nrows);
        if (!(d > 0.0)) {
            void *v = w;
            example_free(&v);
            return mcb_fail(err, MCB_E_NUMERIC, "example-pgs: block %d has no positive diagonal "
                            "in W", b);
        }
        w->rho[b] = prm->omega / d;
    }
    if (s->warm_start && P->lambda0) memcpy(w->lambda, P->lambda0, (size_t)m * sizeof *w->lambda);
    memcpy(w->u, P->q, (size_t)m * sizeof *w->u);
    mcb_csc_gaxpy(P->W, w->lambda, w->u); /* u = W lambda + q */
    *work = w;
    return MCB_OK;
}

/* u += W(:, j) d: W is stored by columns. */
static void update_u(const mcb_csc *W, int j, double d, double *u)
{
    for (int k = W->p[j]; k < W->p[j + 1]; k++) u[W->i[k]] += W->x[k] * d;
}

/* One block's step; returns the largest change of its lambda. */
static double block_step(example_work *w, int b)
{
    const mcb_problem *P = w->P;
    const mcb_block *B = &P->blocks[b];
    double *l = w->lambda + B->row, *u = w->u + B->row, big = 0.0;
    if (mcb_is_contact(B->type)) {
        double s = B->type == MCB_CONTACT ? B->mu * hypot(u[1], u[2]) : 0.0;
        double old[3] = {l[0], l[1], l[2]};
        l[0] -= w->rho[b] * (u[0] + s);
        l[1] -= w->rho[b] * u[1];
        l[2] -= w->rho[b] * u[2];
        project_cone(B->mu, l);
        for (int r = 0; r < 3; r++) {
            double d = l[r] - old[r];
            if (fabs(d) > big) big = fabs(d);
            if (d != 0.0) update_u(P->W, B->row + r, d, w->u);
        }
        return big;
    }
    for (int r = 0; r < B->nrows; r++) { /* bilateral and unilateral rows, one by one */
        double old = l[r];
        l[r] -= w->rho[b] * u[r];
        if (B->type == MCB_UNILATERAL && l[r] < 0.0) l[r] = 0.0;
        double d = l[r] - old;
        if (fabs(d) > big) big = fabs(d);
        if (d != 0.0) update_u(P->W, B->row + r, d, w->u);
    }
    return big;
}

static int example_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                         mcb_info *info)
{
    example_work *w = work;
    for (int it = 1; it <= s->max_iters; it++) {
        double change = 0.0;
        for (int b = 0; b < w->P->nblocks; b++) {
            double c = block_step(w, b);
            if (c > change) change = c;
        }
        info->iterations = it;
        info->own_residual = change;
        if (!isfinite(change)) return MCB_ST_DIVERGED;
        mcb_cb_action a = cb(ctx, it, change);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
    }
    return MCB_ST_MAX_ITERS;
}

static void example_iterate(void *work, double *v, double *lambda)
{
    const example_work *w = work;
    (void)v; /* dual problems have no v */
    memcpy(lambda, w->lambda, (size_t)w->P->m * sizeof *lambda);
}

static const mcb_solver_def example_pgs = {
    .name = "example-pgs",
    .description = "projected Gauss-Seidel on W (the example plugin, examples/plugin/)",
    .reference = "Jean and Moreau (1992); De Saxce's modified velocity for the Coulomb law",
    .accepts = MCB_ACCEPTS_DUAL,
    .accepts_problem = example_accepts,
    .params_size = sizeof(example_params),
    .default_params = example_defaults,
    .params = example_desc,
    .nparams = (int)(sizeof example_desc / sizeof example_desc[0]),
    .check_params = example_check,
    .setup = example_setup,
    .solve = example_solve,
    .iterate = example_iterate,
    .free = example_free,
};

MCB_PLUGIN_SOLVER(example_pgs);

/* pj_lcp.c: projected Jacobi on a linear complementarity problem (RPIsim
 * Table 1, "Projected Jacobi").
 *
 * On the dual form u = W z + q the formulation layer builds (--formulation
 * lcp-st, lcp-ap or mlcp; mcb_accepts_lcp()), with W standing for
 * W + diag(r) when the problem has per-row compliance r (u = W z + q + r∘z,
 * mcb_problem.h; lcp_rows.h, built once in setup), every row is updated
 * from the same previous iterate:
 *     u = W z^l + q,
 *     z_r^{l+1} = z_r^l - omega u_r / d_r,  then max(0, .) on unilateral
 *     rows (bilateral rows: free),  d_r = W_rr + reg.
 * Both loops run over the rows with OpenMP (static schedule, each row's sum
 * in a fixed order: the iterates do not depend on the thread count).
 * omega = 0 (the default) picks omega = 1 / rho(D^-1 W), the spectral
 * radius estimated by power iteration from a fixed start at setup (for a
 * symmetric positive semidefinite W the damped step is then a contraction
 * of the linear part; for the unsymmetric W of Stewart-Trinkle there is no
 * guarantee). Zero diagonal entries (Stewart-Trinkle's sigma rows, the
 * mlcp's contact rows): with reg = 0 setup fails with the row named, as
 * for psor-lcp; reg > 0 gives them a proximal step, and the fixed points
 * stay the LCP's solutions for any d_r > 0. Own residual
 * ||delta z|| / max(1, ||z||). No allocation after setup. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/delassus_loop.h"
#include "solvers/lcp_rows.h"
#include "solvers/solver.h"

typedef struct {
    double omega;    /* step scale; 0: automatic 1 / rho(D^-1 W) */
    double reg;      /* added to every diagonal weight, >= 0 */
    int power_iters; /* power iterations for the automatic omega */
    double own_tol;  /* stop on the own residual below this (0: never) */
} pj_lcp_params;

static void pj_lcp_defaults(void *p)
{
    pj_lcp_params *q = p;
    q->omega = 0.0;
    q->reg = 0.0;
    q->power_iters = 50;
    q->own_tol = 0.0;
}

static const mcb_param_desc pj_lcp_desc[] = {
    {"omega", 'd', offsetof(pj_lcp_params, omega),
     "step scale, >= 0 (0: automatic, 1 / spectral radius of D^-1 W by power iteration)"},
    {"reg", 'd', offsetof(pj_lcp_params, reg),
     "added to every diagonal weight d_r = W_rr + r_r + reg, >= 0 (0: a row with W_rr + r_r "
     "<= 0 fails setup; > 0: a proximal step on such rows, the fixed points unchanged)"},
    {"power_iters", 'i', offsetof(pj_lcp_params, power_iters),
     "power iterations used to estimate the spectral radius for the automatic omega"},
    {"own_tol", 'd', offsetof(pj_lcp_params, own_tol),
     "stop when the own residual falls below this (0: only the harness stops it)"},
};

typedef struct {
    const mcb_problem *P;
    pj_lcp_params prm;
    mcb_csc *WT;          /* column r = row r of W + diag(r) */
    double *d;            /* m diagonal weights */
    unsigned char *freer; /* m: 1 for a bilateral (free) row */
    double *z, *next, *u, *dz2;
} pj_lcp_work;

static void pj_lcp_free(void **work)
{
    if (!work || !*work) return;
    pj_lcp_work *w = *work;
    mcb_csc_free(&w->WT);
    free(w->d);
    free(w->freer);
    free(w->z);
    free(w->next);
    free(w->u);
    free(w->dz2);
    free(w);
    *work = NULL;
}

static mcb_rc pj_lcp_check(const void *params, mcb_err *err)
{
    const pj_lcp_params *p = params;
    if (!(p->omega >= 0.0) || !isfinite(p->omega) || !(p->reg >= 0.0) || !isfinite(p->reg) ||
        p->power_iters < 1 || !(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT,
                        "pj-lcp: omega (%g), reg (%g) and own_tol (%g) must be finite and "
                        ">= 0, power_iters (%d) >= 1",
                        p->omega, p->reg, p->own_tol, p->power_iters);
    return MCB_OK;
}

/* u = W x (q left out when with_q is 0), row by row. */
static void apply(const pj_lcp_work *w, const double *x, int with_q, double *u)
{
    const mcb_csc *WT = w->WT;
    const double *q = w->P->q;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < w->P->m; r++) {
        double s = with_q ? q[r] : 0.0;
        for (int k = WT->p[r]; k < WT->p[r + 1]; k++) s += WT->x[k] * x[WT->i[k]];
        u[r] = s;
    }
}

/* rho(D^-1 W) by power iteration from a fixed start (x, y: m work). */
static double spectral_radius(pj_lcp_work *w, int iters, double *x, double *y)
{
    int m = w->P->m;
    for (int r = 0; r < m; r++) x[r] = 1.0 + 0.01 * (r % 7);
    double rho = 0.0;
    for (int it = 0; it < iters; it++) {
        double nx = mcb_norm2(m, x);
        if (!(nx > 0.0) || !isfinite(nx)) break;
        for (int r = 0; r < m; r++) x[r] /= nx;
        apply(w, x, 0, y);
        for (int r = 0; r < m; r++) y[r] /= w->d[r];
        rho = mcb_norm2(m, y);
        memcpy(x, y, (size_t)m * sizeof(double));
    }
    return rho > 0.0 && isfinite(rho) ? rho : 1.0;
}

static mcb_rc pj_lcp_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                           void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = pj_lcp_check(params, err);
    if (rc) return rc;
    char why[256];
    if (!mcb_accepts_lcp(P, why, sizeof why)) return mcb_fail(err, MCB_E_INPUT, "%s", why);
    pj_lcp_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const pj_lcp_params *)params;
    size_t m = (size_t)P->m;
    w->WT = mcb_lcp_rows(P); /* rows of W + diag(r) */
    w->d = mcb_calloc(m + 1, sizeof(double));
    w->freer = mcb_calloc(m + 1, 1);
    w->z = mcb_calloc(m + 1, sizeof(double));
    w->next = mcb_calloc(m + 1, sizeof(double));
    w->u = mcb_calloc(m + 1, sizeof(double));
    w->dz2 = mcb_calloc(m + 1, sizeof(double));
    if (!w->WT || !w->d || !w->freer || !w->z || !w->next || !w->u || !w->dz2) {
        pj_lcp_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if ((rc = mcb_lcp_row_weights(P, w->WT, w->prm.reg, "pj-lcp", "projected Jacobi", w->d, w->freer,
                                  err))) {
        pj_lcp_free((void **)&w);
        return rc;
    }
    if (w->prm.omega == 0.0)
        w->prm.omega = 1.0 / spectral_radius(w, w->prm.power_iters, w->next, w->u);
    memset(w->next, 0, m * sizeof(double));
    if (s->warm_start && P->lambda0) memcpy(w->z, P->lambda0, m * sizeof(double));
    *work = w;
    return MCB_OK;
}

/* One Jacobi step; returns ||delta z||^2 (summed serially: deterministic). */
static double pj_lcp_step(void *work)
{
    pj_lcp_work *w = work;
    int m = w->P->m;
    double omega = w->prm.omega;
    apply(w, w->z, 1, w->u);
#pragma omp parallel for schedule(static)
    for (int r = 0; r < m; r++) {
        double zn = w->z[r] - omega * w->u[r] / w->d[r];
        if (!w->freer[r] && zn < 0.0) zn = 0.0;
        w->next[r] = zn;
        w->dz2[r] = (zn - w->z[r]) * (zn - w->z[r]);
    }
    double change2 = 0.0;
    for (int r = 0; r < m; r++) change2 += w->dz2[r];
    double *t = w->z;
    w->z = w->next;
    w->next = t;
    return change2;
}

static const double *pj_lcp_z(void *work) { return ((pj_lcp_work *)work)->z; }

static int pj_lcp_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                        mcb_info *info)
{
    pj_lcp_work *w = work;
    int st = mcb_delassus_loop(w, pj_lcp_step, pj_lcp_z, w->P->m, w->prm.own_tol, s, cb, ctx,
                               info);
    if (st == MCB_ST_DIVERGED && !info->reason[0])
        snprintf(info->reason, sizeof info->reason,
                 "pj-lcp: non-finite iterate after %d steps (omega %g)", info->iterations,
                 w->prm.omega);
    return st;
}

static void pj_lcp_iterate(void *work, double *v, double *lambda)
{
    (void)v; /* dual problems only */
    pj_lcp_work *w = work;
    memcpy(lambda, w->z, (size_t)w->P->m * sizeof(double));
}

/* The state (solver.h): z (the other vectors are scratch; the rows of
 * W + diag(r), the weights and the damping are fixed at setup). */
static size_t pj_lcp_state_size(void *work) { return (size_t)((pj_lcp_work *)work)->P->m * sizeof(double); }

static void pj_lcp_save_state(void *work, void *buf)
{
    pj_lcp_work *w = work;
    memcpy(buf, w->z, (size_t)w->P->m * sizeof(double));
}

static void pj_lcp_load_state(void *work, const void *buf)
{
    pj_lcp_work *w = work;
    memcpy(w->z, buf, (size_t)w->P->m * sizeof(double));
}

const mcb_solver_def mcb_solver_pj_lcp = {
    .name = "pj-lcp",
    .description = "projected Jacobi on an LCP/MLCP u = W z + q + r z (free rows for "
                   "bilateral), automatic damping 1 / rho(D^-1 W), OpenMP over rows",
    .reference = "RPIsim Table 1 (projected Jacobi)",
    .accepts = MCB_ACCEPTS_DUAL,
    .accepts_problem = mcb_accepts_lcp,
    .params_size = sizeof(pj_lcp_params),
    .default_params = pj_lcp_defaults,
    .params = pj_lcp_desc,
    .nparams = (int)(sizeof pj_lcp_desc / sizeof pj_lcp_desc[0]),
    .check_params = pj_lcp_check,
    .setup = pj_lcp_setup,
    .solve = pj_lcp_solve,
    .iterate = pj_lcp_iterate,
    .free = pj_lcp_free,
    .state_size = pj_lcp_state_size,
    .save_state = pj_lcp_save_state,
    .load_state = pj_lcp_load_state,
};

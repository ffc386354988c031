/* psor_lcp.c: projected SOR on a linear complementarity problem (RPIsim
 * Table 1, "PGS" / "projected SOR"; Cottle, Pang and Stone, The Linear
 * Complementarity Problem, Sec. 5.2).
 *
 * The problem is the dual form u = W z + q the formulation layer builds
 * (--formulation lcp-st, lcp-ap or mlcp; mcb_accepts_lcp()): unilateral
 * rows 0 <= z_r ⊥ u_r >= 0, bilateral rows z_r free with u_r = 0 (the
 * mixed part of an MLCP). Per-row compliance r (mcb_problem.h: u = W z +
 * q + r∘z) is honoured: W below stands for W + diag(r) (lcp_rows.h, built
 * once in setup). One sweep visits the rows in order, u_r from the
 * freshest z (Gauss-Seidel),
 *     z_r <- z_r - omega u_r / d_r,   then max(0, z_r) on unilateral rows,
 *     d_r = W_rr + reg  (W_rr + r_r + reg in the problem's terms).
 * Every fixed point is a solution of the LCP for any d_r > 0 (z_r =
 * max(0, z_r - c u_r) with c > 0 is complementarity), so reg changes the
 * path, never the answer. Zero diagonal entries: Stewart-Trinkle's LCP has
 * W_rr = 0 on its sigma rows, the mlcp on all its contact rows; with the
 * default reg = 0 such a row makes setup fail (status setup-failed, the
 * row and the remedy in the reason): projected SOR divides by the
 * diagonal. reg > 0 (--param psor-lcp.reg=R) then gives those rows the
 * step z_r <- max(0, z_r - omega u_r / reg), a proximal (projected
 * gradient) step; convergence is not guaranteed for an unsymmetric W
 * (Stewart-Trinkle's is not), the harness reports what happens. W is read
 * row by row through its transpose (one CSC copy at setup). Warm start from
 * the problem's lambda0. Own residual ||delta z|| / max(1, ||z||); a sweep
 * that changes nothing stops with status stalled (a fixed point). Serial.
 * No allocation after setup; failures are statuses, never exits. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/delassus_loop.h"
#include "solvers/lcp_rows.h"
#include "solvers/solver.h"

typedef struct {
    double omega;   /* relaxation factor in (0, 2) */
    double reg;     /* added to every diagonal weight, >= 0 */
    double own_tol; /* stop on the own residual below this (0: never) */
} psor_lcp_params;

static void psor_lcp_defaults(void *p)
{
    psor_lcp_params *q = p;
    q->omega = 1.0;
    q->reg = 0.0;
    q->own_tol = 0.0;
}

static const mcb_param_desc psor_lcp_desc[] = {
    {"omega", 'd', offsetof(psor_lcp_params, omega),
     "relaxation factor, 0 < omega < 2 (1: projected Gauss-Seidel, RPIsim's PGS)"},
    {"reg", 'd', offsetof(psor_lcp_params, reg),
     "added to every diagonal weight d_r = W_rr + r_r + reg, >= 0 (0: none, and a row with "
     "W_rr + r_r <= 0 fails setup; > 0 lets Stewart-Trinkle's sigma rows and the mlcp's "
     "contact rows take a proximal step; the fixed points stay the LCP's solutions)"},
    {"own_tol", 'd', offsetof(psor_lcp_params, own_tol),
     "stop when the own residual falls below this (0: only the harness stops it)"},
};

typedef struct {
    const mcb_problem *P;
    psor_lcp_params prm;
    mcb_csc *WT;          /* column r = row r of W + diag(r) */
    double *d;            /* m diagonal weights */
    unsigned char *freer; /* m: 1 for a bilateral (free) row */
    double *z;
} psor_lcp_work;

static void psor_lcp_free(void **work)
{
    if (!work || !*work) return;
    psor_lcp_work *w = *work;
    mcb_csc_free(&w->WT);
    free(w->d);
    free(w->freer);
    free(w->z);
    free(w);
    *work = NULL;
}

static mcb_rc psor_lcp_check(const void *params, mcb_err *err)
{
    const psor_lcp_params *p = params;
    if (!(p->omega > 0.0 && p->omega < 2.0))
        return mcb_fail(err, MCB_E_INPUT, "psor-lcp.omega = %g must lie in (0, 2)", p->omega);
    if (!(p->reg >= 0.0) || !isfinite(p->reg) || !(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "psor-lcp: reg (%g) and own_tol (%g) must be >= 0",
                        p->reg, p->own_tol);
    return MCB_OK;
}

static mcb_rc psor_lcp_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                             void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = psor_lcp_check(params, err);
    if (rc) return rc;
    char why[256];
    if (!mcb_accepts_lcp(P, why, sizeof why)) return mcb_fail(err, MCB_E_INPUT, "%s", why);
    psor_lcp_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const psor_lcp_params *)params;
    size_t m = (size_t)P->m;
    w->WT = mcb_lcp_rows(P); /* rows of W + diag(r) */
    w->d = mcb_calloc(m + 1, sizeof(double));
    w->freer = mcb_calloc(m + 1, 1);
    w->z = mcb_calloc(m + 1, sizeof(double));
    if (!w->WT || !w->d || !w->freer || !w->z) {
        psor_lcp_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if ((rc = mcb_lcp_row_weights(P, w->WT, w->prm.reg, "psor-lcp", "projected SOR", w->d, w->freer,
                                  err))) {
        psor_lcp_free((void **)&w);
        return rc;
    }
    if (s->warm_start && P->lambda0) memcpy(w->z, P->lambda0, m * sizeof(double));
    *work = w;
    return MCB_OK;
}

/* One sweep; returns ||delta z||^2. */
static double psor_lcp_step(void *work)
{
    psor_lcp_work *w = work;
    const mcb_csc *WT = w->WT;
    const double *q = w->P->q;
    double *z = w->z, omega = w->prm.omega, change2 = 0.0;
    for (int r = 0; r < w->P->m; r++) {
        double u = q[r];
        for (int k = WT->p[r]; k < WT->p[r + 1]; k++) u += WT->x[k] * z[WT->i[k]];
        double zn = z[r] - omega * u / w->d[r];
        if (!w->freer[r] && zn < 0.0) zn = 0.0;
        double dz = zn - z[r];
        change2 += dz * dz;
        z[r] = zn;
    }
    return change2;
}

static const double *psor_lcp_z(void *work) { return ((psor_lcp_work *)work)->z; }

static int psor_lcp_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                          mcb_info *info)
{
    psor_lcp_work *w = work;
    int st = mcb_delassus_loop(w, psor_lcp_step, psor_lcp_z, w->P->m, w->prm.own_tol, s, cb,
                               ctx, info);
    if (st == MCB_ST_DIVERGED && !info->reason[0])
        snprintf(info->reason, sizeof info->reason,
                 "psor-lcp: non-finite iterate after %d sweeps (no convergence guarantee for "
                 "an unsymmetric W)",
                 info->iterations);
    return st;
}

static void psor_lcp_iterate(void *work, double *v, double *lambda)
{
    (void)v; /* dual problems only */
    psor_lcp_work *w = work;
    memcpy(lambda, w->z, (size_t)w->P->m * sizeof(double));
}

/* The state (solver.h): z (the other vectors are scratch; the rows of
 * W + diag(r), the weights and the damping are fixed at setup). */
static size_t psor_lcp_state_size(void *work) { return (size_t)((psor_lcp_work *)work)->P->m * sizeof(double); }

static void psor_lcp_save_state(void *work, void *buf)
{
    psor_lcp_work *w = work;
    memcpy(buf, w->z, (size_t)w->P->m * sizeof(double));
}

static void psor_lcp_load_state(void *work, const void *buf)
{
    psor_lcp_work *w = work;
    memcpy(w->z, buf, (size_t)w->P->m * sizeof(double));
}

const mcb_solver_def mcb_solver_psor_lcp = {
    .name = "psor-lcp",
    .description = "projected SOR on an LCP/MLCP u = W z + q + r z (free rows for bilateral), "
                   "row by row, diagonal weight W_rr + r_r + reg",
    .reference = "RPIsim Table 1 (PGS/projected SOR); Cottle-Pang-Stone Sec. 5.2",
    .accepts = MCB_ACCEPTS_DUAL,
    .accepts_problem = mcb_accepts_lcp,
    .params_size = sizeof(psor_lcp_params),
    .default_params = psor_lcp_defaults,
    .params = psor_lcp_desc,
    .nparams = (int)(sizeof psor_lcp_desc / sizeof psor_lcp_desc[0]),
    .check_params = psor_lcp_check,
    .setup = psor_lcp_setup,
    .solve = psor_lcp_solve,
    .iterate = psor_lcp_iterate,
    .free = psor_lcp_free,
    .state_size = psor_lcp_state_size,
    .save_state = psor_lcp_save_state,
    .load_state = psor_lcp_load_state,
};

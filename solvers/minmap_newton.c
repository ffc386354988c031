/* minmap_newton.c: nonsmooth Newton on the min-map reformulation of an LCP
 * or MLCP (issue 13; RPIsim Table 1 "Minmap-Newton"; num4lcp's
 * minmap_newton, Niebe and Erleben):
 *
 *     phi_i(z, u) = min(z_i, u_i)   (unilateral rows),   phi_i = u_i (bilateral)
 *
 * with u = W z + q (W + diag(r) with per-row compliance r: u = W z + q +
 * r∘z, lcp_newton.h); ||phi|| is the natural merit function (Andreani,
 * Judice, Martinez, Patricio 2011) that RPIsim's Fig. 9 plots. An element
 * of the B-subdifferential, in active-set form: rows with z_i <= u_i are
 * "free" (a_i = 1, b_i = 0: the Newton equation reads d_i = -z_i), the
 * others "active" (a_i = 0, b_i = 1: the row of W, (W d)_i = -u_i); ties
 * go to the free set. H = diag(a) + diag(b) W is solved whole (its free
 * rows are identity rows; the LU's pivoting or GMRES's Jacobi
 * preconditioner see through them), which gives the same direction as
 * num4lcp's reduced system W_AA d_A = -(u_A + W_AF d_F).
 * psi = 1/2 ||phi||^2 is not differentiable where z_i = u_i; the line
 * search is nevertheless the plain Armijo one along d by default (with
 * g = H^T phi, g^T d = -||phi||^2 for an exact Newton direction): on the
 * Stewart-Trinkle LCPs of the sphere stack num4lcp's projected search
 * (projected = 1: trial points max(0, z + t d) on unilateral rows, Armijo
 * with g^T (z(t) - z)) stalled near ||phi|| = 0.5 where the plain one
 * reached round-off (docs/solver-lcp-newton.md). Newton equation,
 * fallbacks and statuses: lcp_newton.c.
 *
 * Own residual: ||min(z, u)|| (the natural merit). Takes dual problems
 * whose blocks are all unilateral or bilateral (mcb_accepts_lcp).
 * Allocates only in setup and at the LU's first factorization (strategy 0). */
#include <stddef.h>

#include "solvers/lcp_newton.h"

static void minmap_eval(int m, const int *row_type, const double *z, const double *u,
                        double *phi, double *a, double *b)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < m; i++) {
        int free_row = row_type[i] != MCB_BILATERAL && z[i] <= u[i];
        phi[i] = free_row ? z[i] : u[i];
        if (a) {
            a[i] = free_row ? 1.0 : 0.0;
            b[i] = free_row ? 0.0 : 1.0;
        }
    }
}

static mcb_rc mm_check(const void *p, mcb_err *err)
{
    return mcb_lcpn_check(p, "minmap-newton", err);
}

static mcb_rc mm_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                       void **work, mcb_err *err)
{
    return mcb_lcpn_setup(P, s, params, "minmap-newton", minmap_eval, (lcpn **)work, err);
}

const mcb_solver_def mcb_solver_minmap_newton = {
    .name = "minmap-newton",
    .description = "nonsmooth Newton on the min-map reformulation min(z, W z + q) = 0 of an "
                   "LCP/MLCP (active-set Newton equation, direct or GMRES), Armijo line "
                   "search (optionally projected) with Levenberg-Marquardt and gradient "
                   "fallbacks",
    .reference = "RPIsim (Williams et al.) Table 1; num4lcp (Niebe, Erleben 2015, Numerical "
                 "methods for LCPs in physics-based animation)",
    .accepts = MCB_ACCEPTS_DUAL,
    .accepts_problem = mcb_accepts_lcp,
    .params_size = sizeof(lcpn_params),
    .default_params = mcb_lcpn_defaults,
    .params = mcb_lcpn_desc,
    .nparams = LCPN_NPARAMS,
    .check_params = mm_check,
    .setup = mm_setup,
    .solve = mcb_lcpn_solve,
    .iterate = mcb_lcpn_iterate,
    .free = mcb_lcpn_free,
};

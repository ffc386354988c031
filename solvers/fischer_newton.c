/* fischer_newton.c: nonsmooth Newton on the Fischer-Burmeister
 * reformulation of an LCP or MLCP (issue 13; RPIsim Table 1
 * "Fischer-Newton"; num4lcp's fischer_newton, Niebe and Erleben):
 *
 *     phi_i(z, u) = z_i + u_i - sqrt(z_i^2 + u_i^2)   (unilateral rows)
 *     phi_i       = u_i                               (bilateral rows)
 *
 * with u = W z + q (W + diag(r) with per-row compliance r: u = W z + q +
 * r∘z, lcp_newton.h); phi = 0 exactly at the LCP's solutions, and the merit
 * psi = 1/2 ||phi||^2 is continuously differentiable. The generalized
 * Jacobian is H = diag(a) + diag(b) W with
 *     a_i = 1 - z_i / r_i,  b_i = 1 - u_i / r_i,  r_i = sqrt(z_i^2 + u_i^2) > 0,
 * and at the kink z_i = u_i = 0 the usual choice a_i = b_i = 1 - 1/sqrt(2)
 * (the limit along z_i = u_i; an element of the B-subdifferential's convex
 * hull, as in De Luca, Facchinei, Kanzow 1996). Bilateral rows: a = 0,
 * b = 1. The Newton equation, line search, fallbacks and statuses are
 * lcp_newton.c's (plain Armijo along d by default; projected = 1 for the
 * projected search).
 *
 * Own residual: ||phi|| (phi_FB). Takes dual problems whose blocks are all
 * unilateral or bilateral (mcb_accepts_lcp). Allocates only in setup and
 * at the LU's first factorization (strategy 0; see lcp_newton.h). */
#include <math.h>
#include <stddef.h>

#include "solvers/lcp_newton.h"

static void fb_eval(int m, const int *row_type, const double *z, const double *u, double *phi,
                    double *a, double *b)
{
    const double kink = 1.0 - sqrt(0.5);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < m; i++) {
        if (row_type[i] == MCB_BILATERAL) {
            phi[i] = u[i];
            if (a) {
                a[i] = 0.0;
                b[i] = 1.0;
            }
            continue;
        }
        double r = hypot(z[i], u[i]);
        phi[i] = z[i] + u[i] - r;
        if (!a) continue;
        if (r > 0.0) {
            a[i] = 1.0 - z[i] / r;
            b[i] = 1.0 - u[i] / r;
        } else {
            a[i] = b[i] = kink;
        }
    }
}

static mcb_rc fn_check(const void *p, mcb_err *err)
{
    return mcb_lcpn_check(p, "fischer-newton", err);
}

static mcb_rc fn_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                       void **work, mcb_err *err)
{
    return mcb_lcpn_setup(P, s, params, "fischer-newton", fb_eval, (lcpn **)work, err);
}

const mcb_solver_def mcb_solver_fischer_newton = {
    .name = "fischer-newton",
    .description = "nonsmooth Newton on the Fischer-Burmeister reformulation of an LCP/MLCP "
                   "(u = W z + q), direct (sparse LU, KLU) or GMRES Newton equation, Armijo line "
                   "search with Levenberg-Marquardt and gradient fallbacks",
    .reference = "RPIsim (Williams et al.) Table 1; num4lcp (Niebe, Erleben 2015, Numerical "
                 "methods for LCPs in physics-based animation); De Luca, Facchinei, Kanzow 1996",
    .accepts = MCB_ACCEPTS_DUAL,
    .accepts_problem = mcb_accepts_lcp,
    .params_size = sizeof(lcpn_params),
    .default_params = mcb_lcpn_defaults,
    .params = mcb_lcpn_desc,
    .nparams = LCPN_NPARAMS,
    .check_params = fn_check,
    .setup = fn_setup,
    .solve = mcb_lcpn_solve,
    .iterate = mcb_lcpn_iterate,
    .free = mcb_lcpn_free,
};

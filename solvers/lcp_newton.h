/* lcp_newton.h: the nonsmooth Newton machinery shared by fischer-newton and
 * minmap-newton (issue 13, RPIsim Table 1; after num4lcp, Niebe and
 * Erleben): the LCP or MLCP u = W z + q (W = P->W, CSC m x m, possibly
 * unsymmetric with zero diagonal entries; with per-row compliance r,
 * u = W z + q + r∘z, W stands for W + diag(r) throughout: lcp_rows.h,
 * built once in setup), blocks unilateral (0 <= z_i ⊥ u_i >= 0) or
 * bilateral (z_i free, u_i = 0).
 *
 * A reformulation phi(z) = 0 (the solver's own file) gives, row by row,
 * phi_i and an element of its generalized Jacobian, always of the form
 *     H = diag(a) + diag(b) W        (a, b: m-vectors)
 * so H has W's pattern plus the diagonal. This file owns everything else:
 * the Newton equation H d = -phi (strategy 0: sparse LU, lib/mcb_lu.h over
 * KLU, symbolic analysis once in setup, a refactorization in place per
 * iteration; strategy 1: restarted GMRES, right-preconditioned by diag(H)
 * or by the LU of
 * the Newton matrix of an earlier iteration (refreshed every prec_every
 * iterations), stopped at the forcing tolerance
 * ||H d + phi|| <= min(eta_max, ||phi||) ||phi||), one
 * Levenberg-Marquardt retry (H + nu I) when the direction cannot be
 * computed or is no descent direction, the gradient (Cauchy) fallback
 * d = -H^T phi, the Armijo backtracking on psi = 1/2 ||phi||^2 (optionally
 * projected: unilateral z_i clamped at 0 on every trial point, as
 * num4lcp's min-map line search), and the statuses: line-search failure
 * and stagnation (a step below stag_tol, or no new smallest ||phi|| for
 * stag_iters iterations: the round-off floor; stalled, with the reason),
 * non-finite (diverged).
 *
 * Allocation: all in mcb_lcpn_setup and at the first factorization; the LU
 * reallocates its numeric factor only when the refactored pivots degrade
 * (lib/mcb_lu.h; as in nnewton), or at every factorization with `lu` 1
 * (UMFPACK). */
#ifndef MCB_LCP_NEWTON_H
#define MCB_LCP_NEWTON_H

#include "solvers/solver.h"

typedef struct {
    int strategy;      /* 0 direct (sparse LU), 1 iterative (GMRES) */
    double sigma;      /* Armijo constant */
    int max_ls;        /* backtracking halvings */
    int projected;     /* 1: trial points projected onto z >= 0 (unilateral rows) */
    double lm_reg;     /* Levenberg-Marquardt retry, relative to max|H_ij| */
    int gmres_restart; /* Krylov subspace size */
    int gmres_max;     /* GMRES steps per Newton equation in all */
    double eta_max;    /* largest forcing term */
    int gmres_prec;    /* 0 Jacobi, 1 LU of an earlier Newton matrix */
    int prec_every;    /* gmres_prec 1: refactor every this many iterations */
    double stag_tol;   /* stagnation: ||z+ - z||_inf <= stag_tol (1 + ||z||_inf) */
    int stag_iters;    /* stagnation: no new smallest ||phi|| for this many iterations */
    double own_tol;    /* stop when ||phi|| falls below this (0: never) */
    int lu;            /* sparse LU backend (mcb_lu_kind): 0 KLU, 1 UMFPACK */
} lcpn_params;
#define LCPN_NPARAMS 14

/* The parameter descriptions and defaults (for both solvers'
 * mcb_solver_def; p is an lcpn_params), range check (name prefixes the
 * messages). */
extern const mcb_param_desc mcb_lcpn_desc[LCPN_NPARAMS];
void mcb_lcpn_defaults(void *p);
mcb_rc mcb_lcpn_check(const lcpn_params *p, const char *name, mcb_err *err);

/* A reformulation: phi at (z, u) row by row; with a and b non-NULL, the
 * Jacobian diagonals (H = diag(a) + diag(b) W). row_type[i] is row i's
 * mcb_ctype. */
typedef void (*lcpn_eval_fn)(int m, const int *row_type, const double *z, const double *u,
                             double *phi, double *a, double *b);

typedef struct lcpn lcpn;

/* Builds the workspace (H's pattern, the LU's symbolic analysis, the
 * GMRES basis); frees what it built and returns the error on failure. */
mcb_rc mcb_lcpn_setup(const mcb_problem *P, const mcb_settings *s, const lcpn_params *prm,
                  const char *name, lcpn_eval_fn eval, lcpn **out, mcb_err *err);
/* The solver interface's solve, iterate and free of both solvers (work is
 * the lcpn): the iteration returns the status and sets info->iterations,
 * own_residual = ||phi||, inner_iterations = GMRES steps and the reason
 * when it stops on its own; iterate writes z into lambda (v untouched:
 * dual problems only); free accepts NULL. */
int mcb_lcpn_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info);
void mcb_lcpn_iterate(void *work, double *v, double *lambda);
void mcb_lcpn_free(void **work);

#endif

/* al_outer.h: the augmented-Lagrangian outer loop of the CANAL paper (Lee,
 * Lee, Park, Yun and Lee, "Variations of Augmented Lagrangian for Robotic
 * Multi-Contact Simulation", Sec. IV-V), shared by `canal` (solvers/canal.c:
 * the convex surrogate (21)-(22) with the proximal cone operator, solved by
 * Newton with exact line search) and the Table II baselines `al-trdogleg`
 * and `al-dampedsn` (solvers/al_baselines.c: the surrogate (19) with the
 * strict operator (16)-(17), solved by a trust-region dogleg method and by
 * damped semismooth Newton).
 *
 * What is shared: the constraint groups (a contact's 3 rows or one scalar
 * row) with their dense J_g; the fixed sparse pattern of the inner Jacobian
 * A + beta sum_g J_g' D_g J_g (upper triangle for a symmetric solver, both
 * triangles for an unsymmetric one), built once at setup, with the values
 * rewritten in place at each inner step; the default penalty
 * beta = beta_scale * m / Tr(J A^-1 J^T) from a first Cholesky factor of A;
 * the surrogate's residual r(v) = A v - b - J^T T(x(v)),
 * x = lambda^l - beta (J v + e~), for the solver's operator T; the inner
 * stopping rule; the multiplier update lambda^{l+1} = T(x(v^{l+1})) and
 * slack z (eq. 12-13); the perturbed offset e~ (eq. 20, for canal only);
 * the penalty rule (27); the stall rule; the callback per AL loop; the
 * counts in info (AL loops: iterations; inner steps: inner_iterations;
 * inner failures: the reason).
 *
 * What each solver brings: the operator T (and its generalized derivative
 * D), and the inner solver of one AL loop (al_inner_fn).
 *
 * Allocation: everything in mcb_al_outer_setup(); mcb_al_outer_clear() frees it
 * (NULL and a cleared struct accepted). Nothing is allocated in the loops.
 * Failures: setup returns an mcb_rc with the message (MCB_E_NUMERIC when A
 * is not positive definite); solve returns statuses with info->reason. */
#ifndef MCB_AL_OUTER_H
#define MCB_AL_OUTER_H

#include <stddef.h>

#include "lib/mcb_chol.h"
#include "solvers/solver.h"

/* The outer loop's parameters (each solver's parameter struct holds one as
 * its member `al`, listed with AL_PARAM_DESCS). */
typedef struct {
    double beta;       /* initial penalty; 0: beta_scale * m / Tr(J A^-1 J^T) */
    double beta_scale; /* multiplies the inverse mean Delassus diagonal */
    double kappa;      /* beta growth factor of eq. (27), > 1 */
    double beta_max;   /* cap of eq. (27), in units of 1 / mean diag(J A^-1 J^T) */
    double zeta;       /* grow beta when ||Jv - z|| > zeta * previous, in (0, 1] */
    double newton_tol; /* inner stop: ||r|| <= newton_tol * max(||b||, ||Av||, ||J'l||) */
    int max_newton;    /* inner steps per AL loop */
    int stall_loops;   /* loops without progress at beta_max before 'stalled' (0: never) */
    double own_tol;    /* stop when ||Jv - z|| falls below this (0: never) */
    int fail_stop;     /* 1: stop as 'stalled' at the first inner failure */
} al_params;

void mcb_al_params_default(al_params *p);
/* 1 when every field is in range. */
int mcb_al_params_ok(const al_params *p);
#define AL_PARAM_RANGES                                                                    \
    "beta must be >= 0, beta_scale > 0, kappa > 1, beta_max > 0, zeta in (0, 1], "         \
    "newton_tol >= 0, max_newton >= 1, stall_loops >= 0, own_tol >= 0, fail_stop 0 or 1"

/* The descriptions of the `al` member of the solver's parameter struct T. */
#define AL_PARAM_DESCS(T)                                                                  \
    {"beta", 'd', offsetof(T, al.beta),                                                    \
     "initial AL penalty; 0: beta_scale / mean diag(J A^-1 J^T) (the paper's 1e4 is for "  \
     "unit-scale robots)"},                                                                \
    {"beta_scale", 'd', offsetof(T, al.beta_scale),                                        \
     "initial beta over the inverse mean Delassus diagonal (used when beta = 0)"},         \
    {"kappa", 'd', offsetof(T, al.kappa), "beta growth factor of eq. (27), > 1"},          \
    {"beta_max", 'd', offsetof(T, al.beta_max),                                            \
     "cap of eq. (27), in units of 1 / mean diag(J A^-1 J^T), > 0 (bounds the round-off "  \
     "floor, about eps beta ||J v||, of the surrogate's residual; the initial beta if "    \
     "above)"},                                                                            \
    {"zeta", 'd', offsetof(T, al.zeta),                                                    \
     "grow beta when ||Jv - z|| > zeta times the previous loop's, in (0, 1] (Alg. 1)"},    \
    {"newton_tol", 'd', offsetof(T, al.newton_tol),                                        \
     "inner loop stop (theta_th^N of Alg. 1), relative: ||r|| <= newton_tol max(||b||, "   \
     "||Av||, ||J^T lambda||); an inner loop that ends above it (steps used up, no "       \
     "progress) is an inner failure"},                                                     \
    {"max_newton", 'i', offsetof(T, al.max_newton), "inner steps per AL loop, >= 1"},      \
    {"stall_loops", 'i', offsetof(T, al.stall_loops),                                      \
     "AL loops with beta at its cap and ||Jv - z|| not shrinking (by 0.1%) before the "    \
     "solver stops as stalled (an infeasible problem); 0: never"},                         \
    {"own_tol", 'd', offsetof(T, al.own_tol),                                              \
     "stop when ||Jv - z|| (theta_th^AL of Alg. 1) falls below this (0: only the harness " \
     "stops it)"},                                                                         \
    {"fail_stop", 'i', offsetof(T, al.fail_stop),                                          \
     "1: stop as stalled at the first inner failure; 0 (default, as Table II): count it "  \
     "and go on with the AL loop"}

/* One constraint group: a contact (3 rows) or one scalar row. */
typedef struct {
    int row, len, type; /* first row, 1 or 3, mcb_ctype */
    double mu, k, alpha;
    int s;  /* columns touched by the group's rows */
    int c0; /* offset into cols */
    int j0; /* offset into jg (len x s, row-major) */
    int h0; /* offset into hpos / hval */
    int d0; /* offset into dval: len * len */
} al_group;

/* The operator T of a group: lambda_g = T_g(x_g) and, if D is not NULL,
 * D_g = dT_g / dx_g (len x len, row-major). e: the group's unperturbed
 * offsets (for the soft law). */
typedef void (*al_op_fn)(const al_group *G, double beta, const double *x, const double *e,
                         double *l, double *D);

typedef struct {
    const mcb_problem *P;
    al_params prm;
    const char *name; /* the solver's, for reasons */
    al_op_fn T;
    int n, m, ng;
    int full;    /* K holds both triangles (unsymmetric inner Jacobian) */
    int perturb; /* 1: e~ = e + [mu ||(z + e)_t||, 0, 0] (eq. 20); 0: e~ = e */
    al_group *g;
    int *cols;    /* per group, sorted */
    double *jg;   /* per group, dense J_g */
    int *hpos;    /* per group pair: position in K->x */
    double *hval; /* per group pair: beta (J_g' D_g J_g)_ab */
    double *dval; /* per group: D_g */
    mcb_csc *K;   /* inner Jacobian, fixed pattern */
    int *apos;    /* A's entries: position in K->x (-1: not stored) */
    double beta, beta0, beta_cap;
    /* state: v, lambda^l, T(x(v)), e~ of the current loop */
    double *v, *lam, *lam_new, *et;
    /* at the last evaluated v */
    double *x, *Jv, *Av, *JTl, *r;
    double nb, ne;    /* ||b||, ||e|| */
    double res_prev;  /* ||Jv - z|| of the previous loop */
    int loops, stall; /* AL loops done; loops without progress at the cap */
    int inner, inner_fail; /* inner steps, inner loops that failed */
} al_outer;

/* Sets up o for P: groups, K's pattern (full: both triangles), the first
 * factor of A (returned in *F when F is not NULL, in K's pattern, for
 * mcb_chol_refactor; freed otherwise), beta, the warm start and e~^0. On
 * failure o is cleared and the message names `name`. */
mcb_rc mcb_al_outer_setup(al_outer *o, const mcb_problem *P, const mcb_settings *s,
                      const al_params *prm, const char *name, al_op_fn T, int full, int perturb,
                      mcb_chol **F, mcb_err *err);
void mcb_al_outer_clear(al_outer *o);

/* T for the scalar rows (bilateral: identity, unilateral: max(0, .), soft:
 * the exact law (15)); the contact case is the solver's. */
void mcb_al_scalar_op(const al_group *G, double beta, const double *x, const double *e, double *l,
                  double *D);

/* A contact inside the cone (the stick case of both contact operators):
 * lambda = x, D = I (D zeroed by the caller). */
void mcb_al_contact_stick(const double *x, double *l, double *D);

/* At o->v: Jv, Av, x, lam_new = T(x), D, r; returns ||r|| and its scale
 * max(||b||, ||Av||, ||J' lam_new||) in *scale. */
double mcb_al_eval(al_outer *o, double *scale);
/* The inner stopping rule shared by the solvers: converged (||r|| <=
 * newton_tol scale) or at round-off (below sqrt(eps) scale and no longer
 * halving: nr > 0.5 nr_prev). */
int mcb_al_inner_converged(const al_outer *o, double nr, double scale, double nr_prev);
/* 1 when ||r|| is at the round-off floor (below sqrt(eps) scale): an inner
 * solver that can make no more progress there has not failed. */
int mcb_al_inner_at_floor(double nr, double scale);
/* K = A + beta sum_g J_g' D_g J_g with the D of the last mcb_al_eval (the
 * group blocks under OpenMP, the sum serial). */
void mcb_al_jacobian(al_outer *o);

/* One AL loop's inner solve from o->v: ends with o->v, lam_new and Jv at
 * the final point (mcb_al_eval there last). Returns AL_INNER_OK, AL_INNER_FAILED
 * (tolerance not met: counted, the AL loop goes on) or a status
 * (MCB_ST_DIVERGED ...) with info->reason set. */
enum { AL_INNER_OK = 0, AL_INNER_FAILED = -1 };
typedef int (*al_inner_fn)(void *work, al_outer *o, mcb_info *info);

/* The AL loop (Alg. 1 lines 3-19): per loop, the inner solve, the
 * multiplier and slack update, the callback, the penalty rule (27), the
 * stall rule. Writes the counts into info (iterations: AL loops;
 * inner_iterations: inner steps; reason: "<name>: L AL loops, N <steps>
 * ..., F inner failures ..., beta ...") and returns the status. */
int mcb_al_outer_solve(al_outer *o, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                   mcb_info *info, al_inner_fn inner, void *work, const char *steps);
void mcb_al_outer_iterate(const al_outer *o, double *v, double *lambda);

#endif

/* subadmm_work.h: private to the SubADMM files (subadmm.c, subadmm_split.c,
 * subadmm_tree.c): the parameters, one subsystem's matrices and factors, the
 * solver's work, and the set-up steps of subadmm_split.c that subadmm.c
 * calls. Not installed; nothing outside those files includes it. */
#ifndef MCB_SUBADMM_WORK_H
#define MCB_SUBADMM_WORK_H

#include "lib/mcb_chol.h"
#include "solvers/solver.h"

typedef struct {
    double beta_scale;  /* multiplies eq. (23) */
    int adaptive;       /* 1: residual balancing, eq. (42)-(43) */
    double gamma;       /* balancing threshold, > 1 */
    int adapt_every;    /* iterations between balancing checks */
    double own_tol;     /* stop on sqrt(theta) below this (0: never) */
    int beta_rule;      /* 0: eq. (23); 1: inverse mean Delassus diagonal; 2, 3: the
                         * geometric mean over subsystems of rule 1, of rule 0 */
    int whole;          /* 1: no splitting: one subsystem of every DOF (fadmm) */
    int body;           /* 1: body splitting (30)-(31) and the tree factorization (40)-(41)
                         * in subsystems with a kinematic tree; 0: the 2023 algorithm */
} subadmm_params;

typedef struct {
    int v0, nv;     /* DOF range */
    int p0, np;     /* pair range: local constraint copies */
    double beta;    /* eq. (23) value before scaling */
    mcb_csc *A;     /* A_i */
    mcb_csc *J;     /* J_i: np x nv */
    mcb_csc *JT;    /* J_i^T */
    mcb_csc *K;     /* A_i + beta J_i^T J_i (pattern fixed) */
    mcb_csc *JTJ;   /* J_i^T J_i */
    mcb_chol *F;    /* CHOLMOD factor of K (nv > SUBADMM_DENSE_MAX) */
    double *L;      /* dense factor of K, nv x nv (nv <= SUBADMM_DENSE_MAX) */
    double *Jd;     /* with L: J_i dense, row-major np x nv (one row per pair) */
    /* with L, K_i = L L^T: the iteration runs in g = L^-1 (b_i + J_i^T t)
     * so that (34) and x = J_i v need no triangular solve: G's row a is
     * L^-1 J_a^T, c = L^-1 b_i, g = c + sum_a t_a G_a, x_a = G_a . g; v_i =
     * L^-T g is formed only when asked for (iterate, rebalance) */
    double *G, *c, *g;
    const double *b; /* b_i */
    double *rhs, *Av; /* nv work */
    /* body splitting (tree = 1, eq. (30)-(31), (40)-(41)): the DOF tree
     * lam (parent DOF, -1 at a root, lam[d] < d), depth dep, and K_i packed
     * along it: diagonal Kd, and for DOF d its ancestors' entries at
     * Kx[off[d] + dep[d] - 1 - dep[a]]; K_i = A_i + beta G_i with A and G
     * packed the same way (Ax, Ad, Gx, Gd); the factor K = L^T L in place
     * (Kx, Kd: Kd holds 1 / L_dd). Bodies with pairs: nbl of them, body
     * b's pairs [bl_pair[b], bl_pair[b+1]) (local), its chain of DOFs
     * bl_dof[bl_dof_ptr[b] ..] (root first), its Jb rows dense over the
     * chain (6 x na row-major at bl_J + 6 bl_dof_ptr[b]); each pair's Jc
     * row on its body's twist: jc[6 a .. 6 a + 5]. */
    int tree;
    int *lam, *dep, *off, *anc; /* anc[off[d] + t]: the ancestor Kx[off[d] + t] couples d to */
    double *Ax, *Ad, *Gx, *Gd, *Kx, *Kd;
    int nbl;
    int *bl_pair, *bl_dof_ptr, *bl_dof;
    double *bl_J, *jc;
} subsystem;

/* Subsystems of at most this many DOFs are factored densely in place
 * (mcb_dense_chol): on 6 x 6 rigid bodies CHOLMOD's per-call overhead is
 * several times the arithmetic. */
#define SUBADMM_DENSE_MAX 64

typedef struct {
    const mcb_problem *P;
    subadmm_params prm;
    double scale;       /* current beta multiplier (beta_scale, adapted) */
    int ns;
    subsystem *sub;
    int npairs;
    int *pair_row;      /* global row of each pair */
    int *pair_sub;      /* subsystem of each pair */
    int *pair_body;     /* body of each pair (tree subsystems), else -1 */
    int *last;          /* per body: its deepest DOF (global index; -1: none) */
    mcb_csc *JbT;       /* Jb^T during setup (body k's rows: columns 6k..6k+5) */
    int *row_ptr, *row_pairs; /* pairs of each global row (CSR) */
    double *pbeta, *pibeta;   /* per pair: scale beta_i and its inverse */
    double *roww;             /* per row: w = sum of 1 / beta_i over its pairs */
    int *active;              /* subsystems with constraints (the others are solved once) */
    int nactive;
    double *x, *y, *z, *u, *w; /* per pair; w: beta-weighted scratch */
    double *v, *lambda;
    int v_stale;        /* v of the dense subsystems not yet formed from g (refresh_v) */
    double *theta_part, *dual_part; /* per subsystem, summed serially */
} subadmm_work;

/* ---------- subadmm_split.c: the splitting and the subsystem factors ---------- */

/* Splits J into pairs (local constraint copies, eq. (30)-(31) in tree
 * subsystems) and builds each J_i. */
mcb_rc mcb_subadmm_build_pairs(subadmm_work *w, mcb_err *err);
/* Per subsystem: A_i, J_i^T J_i, beta_i (23). */
mcb_rc mcb_subadmm_setup_subsystem(subadmm_work *w, subsystem *S, mcb_err *err);
/* beta_rule 2 and 3: one beta for the system, the geometric mean. */
void mcb_subadmm_global_beta(subadmm_work *w);
/* Per subsystem, once beta_i is known: K_i and its factor. */
mcb_rc mcb_subadmm_finish_subsystem(subadmm_work *w, subsystem *S, mcb_err *err);
/* Per-pair beta, its inverse and the per-row weight, after a change of scale. */
void mcb_subadmm_set_pair_betas(subadmm_work *w);
/* K_i = A_i + beta J_i^T J_i (or A_i + beta G_i) and its factor; no
 * allocation once the factor exists. */
mcb_rc mcb_subadmm_factor_subsystem(subsystem *S, double beta, mcb_err *err);
/* x = K_i^-1 rhs (x may be rhs). */
void mcb_subadmm_solve_subsystem(subsystem *S, const double *rhs, double *x);

#endif

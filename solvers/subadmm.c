/* subadmm.c: Subsystem-based ADMM (Lee, Lee and Lee, "Modular and
 * Parallelizable Multibody Physics Simulation via Subsystem-Based ADMM",
 * Alg. 1; CANAL/SubADMM paper Sec. VI for the general closed forms).
 *
 * The DOFs are split into subsystems i (the problem's partition, over which
 * A is block diagonal). Every constraint row j touching subsystem i gets a
 * local copy: x_ij = J_ij v_i (J_ij: row j of J restricted to subsystem i),
 * a slack z_ij and a multiplier u_ij. One iteration l:
 *   (15) for all i in parallel:
 *        (A_i + beta_i J_i^T J_i) v_i = b_i + J_i^T (beta_i z_i - u_i)
 *   (18) y_ij = beta_i x_ij + u_ij, with x_ij = J_ij v_i
 *   (22) theta = sum ||y^{l+1} - y^l||^2          (own residual: sqrt(theta))
 *   (16) for all constraint blocks in parallel, with w = sum_i 1/beta_i and
 *        Y = sum_i y_ij / beta_i over the subsystems the row touches:
 *          bilateral   lambda = -(Y + e) / w
 *          unilateral  lambda = max(0, -(Y + e) / w)              (19)
 *          soft        lambda = -k (e + alpha Y) / (1 + k alpha w)  (20)
 *          contact     lambda = Proj_strict(-(Y + e) / w)          (21), CANAL (17)
 *        (with per-row compliance r the law holds for J v + e + r lambda =
 *        Y + e + (w + r) lambda: w is shifted to w + r_j row by row; the
 *        strict projection stays exact while a contact's two tangential
 *        rows share one r, which accepts_problem requires)
 *        and z_ij = (y_ij + lambda_j) / beta_i                     (18)
 *   (14) u_ij += beta_i (x_ij - z_ij)
 * beta_i times `beta_scale`, initialised by `beta_rule`: 0 is eq. (23),
 * beta_i = Tr(A_i) / Tr(J_i^T J_i) per subsystem. For FEM subsystems
 * eq. (23) is dominated by stiff modes the constraints barely see (on the
 * FCLIB LMGC cubes it is 1e7 times the constraint-space stiffness, and the
 * iteration crawls); rule 1 uses instead beta_i = n_pairs / Tr(J_i A_i^-1
 * J_i^T), the inverse mean diagonal of the subsystem's Delassus operator
 * (one extra factorization of A_i at setup). Rules 2 and 3 give every
 * subsystem one beta, the geometric mean over the constrained subsystems
 * of rule 1 and of rule 0 values: rule 3, the default, is the CANAL/SubADMM
 * paper's initialisation (Sec. VI-D: the geometric mean of the bodies'
 * pseudo-densities, mass over contact count) and on the FCLIB files and the
 * stack the fastest of the four (docs/solver-subadmm.md). The
 * residual-balancing rule of the CANAL/SubADMM paper (eq. 42-43) rescales
 * all beta_i every `adapt_every` iterations (refactoring each subsystem
 * matrix in parallel).
 *
 * Per-iteration cost: subsystems of at most SUBADMM_DENSE_MAX DOFs (rigid
 * bodies) keep K_i's dense Cholesky factor and J_i's rows dense, so (15)
 * and (18) are two contiguous passes and a 6 x 6 triangular solve; larger
 * ones use CHOLMOD (solve work arrays reused). Subsystems without
 * constraints are solved once at setup. The iteration allocates nothing.
 * The iterate reported is (v^{l+1}, lambda^{l+1}). Primal problems only.
 *
 * Body splitting (CANAL/SubADMM paper Sec. VI-A, VI-C, Appendix A; on by
 * default, `body`): in a subsystem whose bodies (the problem's J = Jc Jb)
 * form a kinematic tree, a row gets one copy per body it touches, eq.
 * (30)-(31), so that K_i = A_i + beta sum_k Jb_k^T C_k Jb_k keeps the
 * tree's branch-induced sparsity, eq. (40)-(41); K_i is stored packed along
 * the DOF tree and factored K = L^T L leaves first without fill-in, and
 * (34) runs through the body twists. Other subsystems (free bodies, FEM,
 * imported problems) keep the 2023 splitting. `subadmm-nobody` (body = 0)
 * is the 2023 algorithm everywhere (Table III's No Body).
 *
 * `fadmm` is the same iteration without subsystem splitting (the SubADMM
 * paper's FADMM baseline, the CANAL paper's "No Sub"; parameter whole = 1):
 * one subsystem holding every DOF, so (15) is
 *     (A + beta J^T J) v = b + J^T (beta z - u)
 * with one CHOLMOD factorization per beta, every row has one copy (z_j, u_j)
 * and (16)-(18) are the closed-form z-updates of the full-system ADMM; beta
 * from eq. (23) over the whole system, residual balancing off by default
 * (adaptive = 1 turns it on, refactoring at each change of beta). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcb_chol.h"
#include "mcb_cone.h"
#include "solver.h"

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

static void subadmm_defaults(void *p)
{
    subadmm_params *q = p;
    q->beta_scale = 1.0;
    q->adaptive = 1;
    q->gamma = 10.0;
    q->adapt_every = 10;
    q->own_tol = 0.0;
    q->beta_rule = 3;
    q->whole = 0;
    q->body = 1;
}

static void nobody_defaults(void *p)
{
    subadmm_params *q = p;
    subadmm_defaults(q);
    q->body = 0;
}

static void fadmm_defaults(void *p)
{
    subadmm_params *q = p;
    subadmm_defaults(q);
    q->adaptive = 0;
    q->whole = 1;
    q->body = 0;
}

static const mcb_param_desc subadmm_desc[] = {
    {"beta_scale", 'd', offsetof(subadmm_params, beta_scale),
     "scale of the penalty beta_i = Tr(A_i) / Tr(J_i^T J_i), eq. (23)"},
    {"adaptive", 'i', offsetof(subadmm_params, adaptive),
     "1: rescale beta by sqrt(theta_p / theta_d) when unbalanced, eq. (42)-(43); 0: fixed"},
    {"gamma", 'd', offsetof(subadmm_params, gamma),
     "residual-balancing threshold of eq. (43), > 1"},
    {"adapt_every", 'i', offsetof(subadmm_params, adapt_every),
     "iterations between residual-balancing checks"},
    {"own_tol", 'd', offsetof(subadmm_params, own_tol),
     "stop when sqrt(theta) of eq. (22) falls below this (0: only the harness stops it)"},
    {"beta_rule", 'i', offsetof(subadmm_params, beta_rule),
     "0: beta_i = Tr(A_i) / Tr(J_i^T J_i), eq. (23) of the 2023 paper, per subsystem; "
     "1: beta_i = 1 / mean diag(J_i A_i^-1 J_i^T), the constraint-space stiffness; "
     "2: one beta, the geometric mean of rule 1 over the subsystems with constraints; "
     "3 (default): one beta, the geometric mean of rule 0 over them (the 2025 paper's "
     "geometric mean of pseudo-densities, Sec. VI-D): fastest on the stacks, and the "
     "outliers of FEM subsystems (1e9 against 1e3 on CubeH8) average out"},
    {"whole", 'i', offsetof(subadmm_params, whole),
     "1: no subsystem splitting, one factorization of A + beta J^T J (fadmm); 0: the "
     "problem's subsystems"},
    {"body", 'i', offsetof(subadmm_params, body),
     "1 (subadmm): in a subsystem of several bodies forming a kinematic tree (the problem's "
     "bodies/ group), one constraint copy per (row, body), eq. (30)-(31), and the subsystem "
     "matrix assembled as A_i + beta sum_k Jb_k^T C_k Jb_k and factored along the tree, "
     "eq. (40)-(41), Appendix A; 0 (subadmm-nobody): one copy per (row, subsystem), the 2023 "
     "algorithm; without body data both are the same"},
};

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
    double *theta_part, *dual_part; /* per subsystem, summed serially */
} subadmm_work;

static void subadmm_free(void **work)
{
    if (!work || !*work) return;
    subadmm_work *w = *work;
    for (int i = 0; w->sub && i < w->ns; i++) {
        subsystem *S = &w->sub[i];
        mcb_csc_free(&S->A);
        mcb_csc_free(&S->J);
        mcb_csc_free(&S->JT);
        mcb_csc_free(&S->K);
        mcb_csc_free(&S->JTJ);
        mcb_chol_free(&S->F);
        free(S->L);
        free(S->Jd);
        free(S->rhs);
        free(S->Av);
        free(S->lam);
        free(S->dep);
        free(S->off);
        free(S->anc);
        free(S->Ax);
        free(S->Ad);
        free(S->Gx);
        free(S->Gd);
        free(S->Kx);
        free(S->Kd);
        free(S->bl_pair);
        free(S->bl_dof_ptr);
        free(S->bl_dof);
        free(S->bl_J);
        free(S->jc);
    }
    free(w->sub);
    free(w->pair_row);
    free(w->pair_sub);
    free(w->pair_body);
    free(w->last);
    mcb_csc_free(&w->JbT);
    free(w->row_ptr);
    free(w->row_pairs);
    free(w->pbeta);
    free(w->pibeta);
    free(w->roww);
    free(w->active);
    free(w->x);
    free(w->y);
    free(w->z);
    free(w->u);
    free(w->w);
    free(w->v);
    free(w->lambda);
    free(w->theta_part);
    free(w->dual_part);
    free(w);
    *work = NULL;
}

/* K = A + beta JTJ on the union pattern (both sorted by row). */
static mcb_csc *add_scaled(const mcb_csc *A, const mcb_csc *B, double beta, mcb_csc *K)
{
    int n = A->n;
    if (!K) {
        int nnz = 0;
        for (int j = 0; j < n; j++) {
            int a = A->p[j], b = B->p[j];
            while (a < A->p[j + 1] || b < B->p[j + 1]) {
                int ra = a < A->p[j + 1] ? A->i[a] : n, rb = b < B->p[j + 1] ? B->i[b] : n;
                if (ra <= rb) a++;
                if (rb <= ra) b++;
                nnz++;
            }
        }
        K = mcb_csc_alloc(n, n, nnz);
        if (!K) return NULL;
    }
    int out = 0;
    for (int j = 0; j < n; j++) {
        K->p[j] = out;
        int a = A->p[j], b = B->p[j];
        while (a < A->p[j + 1] || b < B->p[j + 1]) {
            int ra = a < A->p[j + 1] ? A->i[a] : n, rb = b < B->p[j + 1] ? B->i[b] : n;
            double x = 0.0;
            if (ra <= rb) x += A->x[a++];
            if (rb <= ra) x += beta * B->x[b++];
            K->i[out] = ra < rb ? ra : rb;
            K->x[out++] = x;
        }
    }
    K->p[n] = out;
    return K;
}

/* ---------- body splitting: the tree-structured subsystem matrix ----------
 * (CANAL/SubADMM paper eq. (40)-(41), Appendix A.) With one constraint copy
 * per (row, body), J_i^T J_i = sum_k Jb_k^T C_k Jb_k, C_k = sum over body
 * k's pairs of Jc_a^T Jc_a (6 x 6: eq. (41)'s H_k - M_k over beta), and
 * Jb_k depends only on the DOFs of k's chain to the root. So K_i = A_i +
 * beta G_i, G_i = sum_k Jb_k^T C_k Jb_k, has the branch-induced sparsity of
 * the articulated mass matrix, fixed by the tree whatever the contacts, and
 * factors as K = L^T L along the tree without fill-in (Featherstone's LTL
 * factorization, RBDA Sec. 6.5). The files carry the body Jacobians but not
 * the body inertias M_k, so A_i is taken as given (it also holds the
 * implicit joint PD terms) and only the beta-dependent part is assembled
 * body by body; at a change of beta the refactorization is K = A + beta G
 * on the packed arrays and the LTL pass. */

/* Packed index of K_rc, c a proper ancestor of r in the DOF tree. */
static inline int tree_idx(const subsystem *S, int r, int c)
{
    return S->off[r] + S->dep[r] - 1 - S->dep[c];
}

/* Finds the subsystems whose bodies (two or more with DOFs) form a
 * kinematic tree over all their DOFs, each body owning the DOFs its twist
 * adds to its parent's (numbered after them), and whose A_i has the tree's
 * branch-induced pattern; those get tree = 1, the DOF tree and A_i packed.
 * Any other subsystem keeps the 2023 splitting (a FEM body, a free body,
 * a tree numbered otherwise). Fills w->last for body_ok. */
static mcb_rc detect_trees(subadmm_work *w, mcb_err *err)
{
    const mcb_problem *P = w->P;
    int nb = P->nbodies, ns = w->ns, n = P->n;
    if (!w->prm.body || w->prm.whole || nb <= 0 || !P->Jb || !P->Jc || !P->body_parent ||
        !P->body_sub)
        return MCB_OK;
    mcb_csc *JbT = w->JbT = mcb_csc_transpose(P->Jb);
    int *nbs = mcb_calloc((size_t)ns, sizeof(int)), *bad = mcb_calloc((size_t)ns, sizeof(int));
    int *lam = mcb_malloc((size_t)n, sizeof(int)), *own = mcb_malloc((size_t)n, sizeof(int));
    int *stamp = mcb_malloc((size_t)n, sizeof(int)), *cols = mcb_malloc((size_t)n, sizeof(int));
    w->last = mcb_malloc((size_t)nb, sizeof(int));
    mcb_rc rc = MCB_OK;
    if (!JbT || !nbs || !bad || !lam || !own || !stamp || !cols || !w->last) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < nb; k++) {
        int s = P->body_sub[k];
        if (s >= 0 && s < ns && JbT->p[6 * k + 6] > JbT->p[6 * k]) nbs[s]++;
    }
    for (int d = 0; d < n; d++) lam[d] = -1, own[d] = -1, stamp[d] = -1;
    for (int k = 0; k < nb; k++) {
        int s = P->body_sub[k], par = P->body_parent[k];
        w->last[k] = -1;
        if (s < 0 || s >= ns || nbs[s] < 2 || bad[s]) continue;
        int plast = par >= 0 && par < k && P->body_sub[par] == s ? w->last[par] : -1;
        for (int d = plast; d >= 0; d = lam[d]) stamp[d] = k;
        int nc = 0;
        for (int t = JbT->p[6 * k]; t < JbT->p[6 * k + 6]; t++) {
            int d = JbT->i[t];
            if (stamp[d] != k) {
                stamp[d] = k;
                cols[nc++] = d;
            }
        }
        for (int a = 1; a < nc; a++) /* insertion sort: a few DOFs */
            for (int b = a; b > 0 && cols[b - 1] > cols[b]; b--) {
                int t = cols[b];
                cols[b] = cols[b - 1];
                cols[b - 1] = t;
            }
        const subsystem *S = &w->sub[s];
        for (int t = 0; t < nc && !bad[s]; t++) {
            int d = cols[t];
            if (own[d] >= 0 || d < S->v0 || d >= S->v0 + S->nv || (t == 0 && d <= plast)) bad[s] = 1;
            own[d] = k;
            lam[d] = t == 0 ? plast : cols[t - 1];
        }
        w->last[k] = nc ? cols[nc - 1] : plast;
    }
    for (int s = 0; s < ns && !rc; s++) {
        subsystem *S = &w->sub[s];
        if (nbs[s] < 2 || bad[s]) continue;
        int ok = 1;
        for (int d = S->v0; d < S->v0 + S->nv && ok; d++) ok = own[d] >= 0;
        mcb_csc *A = ok ? mcb_csc_block(P->A, S->v0, S->v0 + S->nv, S->v0, S->v0 + S->nv) : NULL;
        if (ok && !A) {
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
            break;
        }
        /* A's pattern must be branch-induced: r > c only with c an ancestor of r */
        for (int c = 0; ok && c < S->nv; c++)
            for (int t = A->p[c]; t < A->p[c + 1] && ok; t++) {
                int x = A->i[t] > c ? A->i[t] : c, lo = A->i[t] > c ? c : A->i[t];
                while (x > lo) x = lam[S->v0 + x] < 0 ? -1 : lam[S->v0 + x] - S->v0;
                ok = x == lo || A->x[t] == 0.0; /* an explicit zero is no coupling */
            }
        if (!ok) {
            mcb_csc_free(&A);
            continue;
        }
        int nv = S->nv;
        S->lam = mcb_malloc((size_t)nv, sizeof(int));
        S->dep = mcb_malloc((size_t)nv, sizeof(int));
        S->off = mcb_malloc((size_t)nv + 1, sizeof(int));
        if (S->lam && S->dep && S->off) {
            S->off[0] = 0;
            for (int d = 0; d < nv; d++) {
                S->lam[d] = lam[S->v0 + d] < 0 ? -1 : lam[S->v0 + d] - S->v0;
                S->dep[d] = S->lam[d] < 0 ? 0 : S->dep[S->lam[d]] + 1;
                S->off[d + 1] = S->off[d] + S->dep[d];
            }
            size_t nx = (size_t)S->off[nv] + 1;
            S->anc = mcb_malloc(nx, sizeof(int));
            for (int d = 0; S->anc && d < nv; d++) {
                int t = S->off[d];
                for (int a = S->lam[d]; a >= 0; a = S->lam[a]) S->anc[t++] = a;
            }
            S->Ax = mcb_calloc(nx, sizeof(double));
            S->Gx = mcb_calloc(nx, sizeof(double));
            S->Kx = mcb_calloc(nx, sizeof(double));
            S->Ad = mcb_calloc((size_t)nv, sizeof(double));
            S->Gd = mcb_calloc((size_t)nv, sizeof(double));
            S->Kd = mcb_calloc((size_t)nv, sizeof(double));
        }
        if (!S->lam || !S->dep || !S->off || !S->anc || !S->Ax || !S->Gx || !S->Kx || !S->Ad || !S->Gd ||
            !S->Kd) {
            mcb_csc_free(&A);
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
            break;
        }
        for (int c = 0; c < nv; c++)
            for (int t = A->p[c]; t < A->p[c + 1]; t++) {
                int r = A->i[t];
                if (r == c) S->Ad[c] = A->x[t];
                else if (r > c && A->x[t] != 0.0) S->Ax[tree_idx(S, r, c)] = A->x[t];
            }
        S->A = A;
        S->tree = 1;
    }
done:
    free(nbs);
    free(bad);
    free(lam);
    free(own);
    free(stamp);
    free(cols);
    return rc;
}

/* For a tree subsystem after build_pairs: its bodies with pairs (the pairs
 * come grouped by body), each body's chain of DOFs and Jb rows over it
 * (dense 6 x na), each pair's Jc row (6), J_i = the pairs' rows Jc_a Jb_k
 * (for the penalty rules, the warm start and the dual residual) and G_i =
 * sum_k Jb_k^T C_k Jb_k packed along the tree (eq. (40)-(41)). */
static mcb_rc setup_tree_bodies(subadmm_work *w, subsystem *S, const mcb_csc *JcT, mcb_err *err)
{
    const int *pb = w->pair_body + S->p0;
    int nbl = 0, tot = 0, nz = 0;
    for (int a = 0; a < S->np; a++)
        if (a == 0 || pb[a] != pb[a - 1]) {
            nbl++;
            tot += S->dep[w->last[pb[a]] - S->v0] + 1;
        }
    S->nbl = nbl;
    S->bl_pair = mcb_malloc((size_t)nbl + 1, sizeof(int));
    S->bl_dof_ptr = mcb_malloc((size_t)nbl + 1, sizeof(int));
    S->bl_dof = mcb_malloc((size_t)tot + 1, sizeof(int));
    S->bl_J = mcb_calloc(6 * (size_t)tot + 1, sizeof(double));
    S->jc = mcb_calloc(6 * (size_t)S->np + 1, sizeof(double));
    int *pos = mcb_malloc((size_t)S->nv, sizeof(int));
    double *CJ = mcb_malloc(6 * (size_t)S->nv, sizeof(double)); /* C_k Jb_k, 6 x na */
    int *ri = NULL, *ci = NULL;
    double *xv = NULL;
    mcb_rc rc = MCB_OK;
    if (!S->bl_pair || !S->bl_dof_ptr || !S->bl_dof || !S->bl_J || !S->jc || !pos || !CJ) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    int b = 0;
    S->bl_dof_ptr[0] = 0;
    for (int a = 0; a < S->np; a++)
        if (a == 0 || pb[a] != pb[a - 1]) {
            int na = S->dep[w->last[pb[a]] - S->v0] + 1;
            S->bl_pair[b] = a;
            S->bl_dof_ptr[b + 1] = S->bl_dof_ptr[b] + na;
            b++;
        }
    S->bl_pair[nbl] = S->np;
    for (b = 0; b < nbl; b++) {
        int k = pb[S->bl_pair[b]], na = S->bl_dof_ptr[b + 1] - S->bl_dof_ptr[b];
        int *chain = S->bl_dof + S->bl_dof_ptr[b];
        double *Jk = S->bl_J + 6 * (size_t)S->bl_dof_ptr[b];
        int d = w->last[k] - S->v0;
        for (int t = na - 1; t >= 0; t--, d = S->lam[d]) {
            chain[t] = d;
            pos[d] = t;
        }
        /* Jb rows 6k..6k+5 over the chain (columns of Jb^T) */
        const mcb_csc *JbT = w->JbT;
        for (int q = 0; q < 6; q++)
            for (int e = JbT->p[6 * k + q]; e < JbT->p[6 * k + q + 1]; e++)
                Jk[q * na + pos[JbT->i[e] - S->v0]] = JbT->x[e];
        double C[36] = {0};
        for (int a = S->bl_pair[b]; a < S->bl_pair[b + 1]; a++) {
            int r = w->pair_row[S->p0 + a];
            double *j = S->jc + 6 * (size_t)a;
            for (int e = JcT->p[r]; e < JcT->p[r + 1]; e++)
                if (JcT->i[e] / 6 == k) j[JcT->i[e] % 6] = JcT->x[e];
            for (int q = 0; q < 6; q++)
                for (int u = 0; u < 6; u++) C[q * 6 + u] += j[q] * j[u];
            nz += na;
        }
        /* G += Jb_k^T (C_k Jb_k) on the chain's lower triangle */
        for (int q = 0; q < 6; q++)
            for (int c = 0; c < na; c++) {
                double t = 0.0;
                for (int u = 0; u < 6; u++) t += C[q * 6 + u] * Jk[u * na + c];
                CJ[q * na + c] = t;
            }
        for (int pd = 0; pd < na; pd++)
            for (int pe = 0; pe <= pd; pe++) {
                double g = 0.0;
                for (int q = 0; q < 6; q++) g += Jk[q * na + pd] * CJ[q * na + pe];
                if (pd == pe) S->Gd[chain[pd]] += g;
                else S->Gx[tree_idx(S, chain[pd], chain[pe])] += g;
            }
    }
    /* J_i rows: Jc_a Jb_k over body k's chain */
    ri = mcb_malloc((size_t)nz + 1, sizeof(int));
    ci = mcb_malloc((size_t)nz + 1, sizeof(int));
    xv = mcb_malloc((size_t)nz + 1, sizeof(double));
    if (!ri || !ci || !xv) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    int t = 0;
    for (b = 0; b < nbl; b++) {
        int na = S->bl_dof_ptr[b + 1] - S->bl_dof_ptr[b];
        const int *chain = S->bl_dof + S->bl_dof_ptr[b];
        const double *Jk = S->bl_J + 6 * (size_t)S->bl_dof_ptr[b];
        for (int a = S->bl_pair[b]; a < S->bl_pair[b + 1]; a++) {
            const double *j = S->jc + 6 * (size_t)a;
            for (int c = 0; c < na; c++) {
                double x = 0.0;
                for (int q = 0; q < 6; q++) x += j[q] * Jk[q * na + c];
                if (x != 0.0) {
                    ri[t] = a;
                    ci[t] = chain[c];
                    xv[t++] = x;
                }
            }
        }
    }
    S->J = mcb_csc_from_triplets(S->np, S->nv, t, ri, ci, xv);
    if (!S->J) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
done:
    free(pos);
    free(CJ);
    free(ri);
    free(ci);
    free(xv);
    return rc;
}

/* K = A + beta G and K = L^T L in place along the tree, leaves first
 * (Featherstone's LTL): no fill-in, no allocation. Returns 1 when K is not
 * positive definite. */
static int tree_factor(subsystem *S, double beta)
{
    int n = S->nv;
    for (int t = 0; t < S->off[n]; t++) S->Kx[t] = S->Ax[t] + beta * S->Gx[t];
    for (int d = 0; d < n; d++) S->Kd[d] = S->Ad[d] + beta * S->Gd[d];
    for (int k = n - 1; k >= 0; k--) {
        if (!(S->Kd[k] > 0.0) || !isfinite(S->Kd[k])) return 1;
        double lkk = sqrt(S->Kd[k]);
        S->Kd[k] = 1.0 / lkk;
        double *Lk = S->Kx + S->off[k];
        int nk = S->dep[k];
        for (int t = 0; t < nk; t++) Lk[t] /= lkk;
        const int *ak = S->anc + S->off[k];
        for (int pi = 0; pi < nk; pi++) {
            int i = ak[pi];
            double a = Lk[pi], *Li = S->Kx + S->off[i];
            S->Kd[i] -= a * a;
            for (int pj = pi + 1; pj < nk; pj++) Li[pj - pi - 1] -= a * Lk[pj];
        }
    }
    return 0;
}

/* x = (L^T L)^-1 x with L from tree_factor(): L^T y = x leaves first, then
 * L x = y roots first. No allocation. */
static void tree_solve(const subsystem *S, double *x)
{
    int n = S->nv;
    for (int k = n - 1; k >= 0; k--) {
        double y = x[k] * S->Kd[k];
        x[k] = y;
        const double *Lk = S->Kx + S->off[k];
        const int *ak = S->anc + S->off[k];
        for (int t = 0; t < S->dep[k]; t++) x[ak[t]] -= Lk[t] * y;
    }
    for (int k = 0; k < n; k++) {
        const double *Lk = S->Kx + S->off[k];
        const int *ak = S->anc + S->off[k];
        double s = x[k];
        for (int t = 0; t < S->dep[k]; t++) s -= Lk[t] * x[ak[t]];
        x[k] = s * S->Kd[k];
    }
}

/* A body takes part in body splitting when its subsystem is a tree
 * subsystem (detect_tree) and its twist depends on some DOF. */
static int body_ok(const subadmm_work *w, int k)
{
    const mcb_problem *P = w->P;
    int s = P->body_sub[k];
    /* last >= 0: the body or an ancestor has DOFs */
    return s >= 0 && s < w->ns && w->sub[s].tree && w->last[k] >= 0;
}

/* Splits J into pairs: a pair is a local constraint copy of one row for
 * one unit, the unit being a subsystem (the 2023 splitting) or, in a tree
 * subsystem, a body whose Jc columns the row touches (eq. (30)-(31)). A
 * contact's three rows share one unit set (the union over its rows), so
 * that all three get the same weight w and the strict projection keeps its
 * exact Coulomb fixed point; every row gets at least one pair (an empty row
 * is attached to the first unit of subsystem 0 so its law is still
 * enforced). Pairs are ordered by subsystem, then unit, then row. J_i is
 * built here for the subsystems without a tree (for tree subsystems by
 * setup_tree_bodies). */
static mcb_rc build_pairs(subadmm_work *w, mcb_err *err)
{
    const mcb_problem *P = w->P;
    int m = P->m, ns = w->ns, nbod = w->last ? P->nbodies : 0, nu = ns + nbod;
    mcb_csc *JT = mcb_csc_transpose(P->J); /* column r = row r of J */
    mcb_csc *JcT = nbod ? mcb_csc_transpose(P->Jc) : NULL;
    int *span0 = mcb_malloc((size_t)m, sizeof(int)), *span1 = mcb_malloc((size_t)m, sizeof(int));
    int *sub_of = mcb_malloc((size_t)P->n, sizeof(int));
    int *count = mcb_calloc((size_t)nu, sizeof(int));
    int *mark = mcb_malloc((size_t)nu, sizeof(int));
    w->row_ptr = mcb_calloc((size_t)m + 1, sizeof(int));
    mcb_rc rc = MCB_OK;
    if (!JT || (nbod && !JcT) || !sub_of || !count || !mark || !w->row_ptr || !span0 || !span1) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        for (int r = B->row; r < B->row + B->nrows; r++) {
            span0[r] = B->type == MCB_CONTACT ? B->row : r;
            span1[r] = B->type == MCB_CONTACT ? B->row + 3 : r + 1;
        }
    }
    for (int i = 0; i < ns; i++)
        for (int j = w->sub[i].v0; j < w->sub[i].v0 + w->sub[i].nv; j++) sub_of[j] = i;
    int empty_unit = 0;
    if (ns > 0 && w->sub[0].tree)
        for (int k = nbod - 1; k >= 0; k--)
            if (P->body_sub[k] == 0 && body_ok(w, k)) empty_unit = ns + k;
    /* the units of row r, each once, written to list (returns the count) */
#define ROW_UNITS(r, list, c)                                                                    \
    do {                                                                                         \
        c = 0;                                                                                   \
        for (int rr = span0[r]; rr < span1[r]; rr++) {                                          \
            for (int k = JT->p[rr]; k < JT->p[rr + 1]; k++) {                                   \
                int s_ = sub_of[JT->i[k]];                                                       \
                if (!w->sub[s_].tree && mark[s_] != r) {                                         \
                    mark[s_] = r;                                                                \
                    list[c++] = s_;                                                              \
                }                                                                                \
            }                                                                                    \
            for (int k = nbod ? JcT->p[rr] : 0; nbod && k < JcT->p[rr + 1]; k++) {              \
                int b_ = JcT->i[k] / 6;                                                          \
                if (body_ok(w, b_) && mark[ns + b_] != r) {                                      \
                    mark[ns + b_] = r;                                                           \
                    list[c++] = ns + b_;                                                         \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        if (c == 0) list[c++] = empty_unit;                                                      \
    } while (0)
    int *list = mcb_malloc((size_t)nu, sizeof(int));
    int *unit_off = mcb_malloc((size_t)nu, sizeof(int));
    if (!list || !unit_off) {
        free(list);
        free(unit_off);
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    /* pass 1: pairs per row and per unit */
    for (int u = 0; u < nu; u++) mark[u] = -1;
    for (int r = 0; r < m; r++) {
        int c;
        ROW_UNITS(r, list, c);
        for (int t = 0; t < c; t++) count[list[t]]++;
        w->row_ptr[r + 1] = w->row_ptr[r] + c;
    }
    w->npairs = w->row_ptr[m];
    /* pair counts per subsystem, its first pair, then each unit's first pair
     * (bodies in index order within their subsystem) */
    for (int i = 0; i < ns; i++) w->sub[i].np = w->sub[i].tree ? 0 : count[i];
    for (int k = 0; k < nbod; k++)
        if (body_ok(w, k)) w->sub[P->body_sub[k]].np += count[ns + k];
    for (int i = 0, p = 0; i < ns; i++) {
        w->sub[i].p0 = p;
        unit_off[i] = p; /* the subsystem's cursor while bodies are placed */
        p += w->sub[i].np;
    }
    for (int k = 0; k < nbod; k++)
        if (body_ok(w, k)) {
            int i = P->body_sub[k];
            unit_off[ns + k] = unit_off[i];
            unit_off[i] += count[ns + k];
        }
    w->pair_row = mcb_malloc((size_t)w->npairs, sizeof(int));
    w->pair_sub = mcb_malloc((size_t)w->npairs, sizeof(int));
    w->pair_body = mcb_malloc((size_t)w->npairs, sizeof(int));
    w->row_pairs = mcb_malloc((size_t)w->npairs, sizeof(int));
    if (!w->pair_row || !w->pair_sub || !w->pair_body || !w->row_pairs) {
        free(list);
        free(unit_off);
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    /* pass 2: place the pairs */
    for (int u = 0; u < nu; u++) mark[u] = -1;
    for (int r = 0; r < m; r++) {
        int c, q = w->row_ptr[r];
        ROW_UNITS(r, list, c);
        for (int t = 0; t < c; t++) {
            int u = list[t], pr = unit_off[u]++;
            w->pair_row[pr] = r;
            w->pair_sub[pr] = u < ns ? u : P->body_sub[u - ns];
            w->pair_body[pr] = u < ns ? -1 : u - ns;
            w->row_pairs[q++] = pr;
        }
    }
#undef ROW_UNITS
    free(list);
    free(unit_off);
    /* J_i: rows = pairs of subsystem i, columns = its DOFs (triplets) */
    for (int i = 0; i < ns && !rc; i++) {
        subsystem *S = &w->sub[i];
        if (S->tree) continue;
        int nz = 0;
        for (int a = 0; a < S->np; a++) {
            int r = w->pair_row[S->p0 + a];
            for (int k = JT->p[r]; k < JT->p[r + 1]; k++) nz += sub_of[JT->i[k]] == i;
        }
        int *ri = mcb_malloc((size_t)nz, sizeof(int)), *ci = mcb_malloc((size_t)nz, sizeof(int));
        double *xv = mcb_malloc((size_t)nz, sizeof(double));
        if (ri && ci && xv) {
            int t = 0;
            for (int a = 0; a < S->np; a++) {
                int r = w->pair_row[S->p0 + a];
                for (int k = JT->p[r]; k < JT->p[r + 1]; k++)
                    if (sub_of[JT->i[k]] == i) {
                        ri[t] = a;
                        ci[t] = JT->i[k] - S->v0;
                        xv[t++] = JT->x[k];
                    }
            }
            S->J = mcb_csc_from_triplets(S->np, S->nv, nz, ri, ci, xv);
        }
        free(ri);
        free(ci);
        free(xv);
        if (!S->J) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    for (int i = 0; i < ns && !rc; i++)
        if (w->sub[i].tree) rc = setup_tree_bodies(w, &w->sub[i], JcT, err);
done:
    mcb_csc_free(&JT);
    mcb_csc_free(&JcT);
    free(span0);
    free(span1);
    free(sub_of);
    free(count);
    free(mark);
    return rc;
}

/* Tr(J_i A_i^-1 J_i^T), with a factor of A_i made for this and freed:
 * X = A_i^-1 J_i^T (sparse solve), then the sum over pairs a of
 * J_i[a,:] X[:,a], a sparse dot of column a of X and of J_i^T. */
static mcb_rc delassus_trace(subsystem *S, double *tr, mcb_err *err)
{
    mcb_chol *F = NULL;
    mcb_rc rc = mcb_chol_factor(S->A, &F, err);
    if (rc) return rc;
    mcb_csc *X = mcb_chol_spsolve(F, S->JT);
    mcb_chol_free(&F);
    if (!X) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    double t = 0.0;
    for (int a = 0; a < S->np; a++) {
        int i = X->p[a], j = S->JT->p[a];
        while (i < X->p[a + 1] && j < S->JT->p[a + 1]) {
            if (X->i[i] < S->JT->i[j]) i++;
            else if (X->i[i] > S->JT->i[j]) j++;
            else t += X->x[i++] * S->JT->x[j++];
        }
    }
    mcb_csc_free(&X);
    *tr = t;
    return MCB_OK;
}

/* K_i = A_i + beta J_i^T J_i and its factor: dense in place for small
 * subsystems, CHOLMOD (refactored on the fixed pattern) for large ones.
 * No allocation once S->K, S->L or S->F exist. */
static mcb_rc factor_subsystem(subsystem *S, double beta, mcb_err *err)
{
    if (S->tree)
        return tree_factor(S, beta) ? mcb_fail(err, MCB_E_NUMERIC, "subsystem matrix A_i + beta "
                                                                   "G_i is not positive definite")
                                    : MCB_OK;
    if (!add_scaled(S->A, S->JTJ, beta, S->K)) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (S->L) {
        int n = S->nv;
        memset(S->L, 0, (size_t)n * (size_t)n * sizeof(double));
        for (int j = 0; j < n; j++)
            for (int k = S->K->p[j]; k < S->K->p[j + 1]; k++) S->L[(size_t)j * n + S->K->i[k]] = S->K->x[k];
        if (mcb_dense_chol(n, S->L))
            return mcb_fail(err, MCB_E_NUMERIC, "subsystem matrix A_i + beta J_i^T J_i is not "
                                                "positive definite");
        return MCB_OK;
    }
    mcb_rc rc = S->F ? mcb_chol_refactor(S->F, S->K, err) : mcb_chol_factor(S->K, &S->F, err);
    if (rc) return rc;
    /* one solve here so that the simplicial copy of L and its work exist
     * before the iteration (mcb_chol_solve_inplace allocates on its first
     * call after a factorization only) */
    memset(S->rhs, 0, (size_t)S->nv * sizeof(double));
    return mcb_chol_solve_inplace(S->F, S->rhs) ? mcb_fail(err, MCB_E_NOMEM, "out of memory")
                                                : MCB_OK;
}

static void solve_subsystem(subsystem *S, const double *rhs, double *x)
{
    if (S->tree) {
        if (x != rhs) memcpy(x, rhs, (size_t)S->nv * sizeof(double));
        tree_solve(S, x);
    } else if (S->L) {
        if (x != rhs) memcpy(x, rhs, (size_t)S->nv * sizeof(double));
        mcb_dense_chol_solve(S->nv, S->L, x);
    } else {
        if (x != rhs) memcpy(x, rhs, (size_t)S->nv * sizeof(double));
        mcb_chol_solve_inplace(S->F, x);
    }
}

/* Per subsystem: A_i, J_i^T J_i, beta_i (23), K_i and its factor. */
static mcb_rc setup_subsystem(subadmm_work *w, subsystem *S, mcb_err *err)
{
    if (!S->A) S->A = mcb_csc_block(w->P->A, S->v0, S->v0 + S->nv, S->v0, S->v0 + S->nv);
    S->JT = mcb_csc_transpose(S->J);
    /* J_i^T J_i: for K_i's pattern and values (a tree subsystem has G_i instead) */
    S->JTJ = S->JT && !S->tree ? mcb_csc_multiply(S->JT, S->J) : NULL;
    S->rhs = mcb_malloc((size_t)S->nv, sizeof(double));
    S->Av = mcb_malloc((size_t)S->nv, sizeof(double));
    if (!S->A || !S->JT || (!S->JTJ && !S->tree) || !S->rhs || !S->Av)
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    double trA = 0.0, trJJ = 0.0;
    for (int j = 0; j < S->nv; j++)
        for (int k = S->A->p[j]; k < S->A->p[j + 1]; k++)
            if (S->A->i[k] == j) trA += S->A->x[k];
    for (int k = 0; k < mcb_csc_nnz(S->J); k++) trJJ += S->J->x[k] * S->J->x[k];
    S->beta = trJJ > 0.0 ? trA / trJJ : 1.0;
    if ((w->prm.beta_rule == 1 || w->prm.beta_rule == 2) && S->np > 0) {
        double trW = 0.0;
        mcb_rc rc = delassus_trace(S, &trW, err);
        if (rc) return rc;
        if (trW > 0.0) S->beta = S->np / trW;
    }
    return MCB_OK;
}

/* The geometric mean of beta_i over the subsystems with constraints, given
 * to every subsystem (beta_rule 2 and 3: one beta for the system, as the
 * CANAL/SubADMM paper initialises it). */
static void global_beta(subadmm_work *w)
{
    double lg = 0.0;
    int k = 0;
    for (int i = 0; i < w->ns; i++)
        if (w->sub[i].np > 0 && w->sub[i].beta > 0.0) {
            lg += log(w->sub[i].beta);
            k++;
        }
    double b = k > 0 ? exp(lg / k) : 1.0;
    for (int i = 0; i < w->ns; i++) w->sub[i].beta = b;
}

/* Per subsystem, once beta_i is known: K_i, the dense copies for small
 * subsystems, the factor; a constraint-free subsystem's v_i. */
static mcb_rc finish_subsystem(subadmm_work *w, subsystem *S, mcb_err *err)
{
    if (!S->tree) S->K = add_scaled(S->A, S->JTJ, w->scale * S->beta, NULL);
    if (!S->tree && !S->K) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!S->tree && S->nv <= SUBADMM_DENSE_MAX && S->nv > 0) {
        S->L = mcb_malloc((size_t)S->nv * (size_t)S->nv, sizeof(double));
        S->Jd = mcb_calloc((size_t)S->np * (size_t)S->nv + 1, sizeof(double));
        if (!S->L || !S->Jd) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        for (int j = 0; j < S->nv; j++)
            for (int k = S->J->p[j]; k < S->J->p[j + 1]; k++)
                S->Jd[(size_t)S->J->i[k] * S->nv + j] = S->J->x[k];
    }
    mcb_rc rc = factor_subsystem(S, w->scale * S->beta, err);
    if (rc || S->np > 0) return rc;
    /* no constraint: v_i = A_i^-1 b_i for good, solved here once */
    memcpy(S->rhs, w->P->b + S->v0, (size_t)S->nv * sizeof(double));
    solve_subsystem(S, S->rhs, S->rhs);
    return MCB_OK;
}

/* Per-pair beta, its inverse and the per-row weight w = sum_i 1 / beta_i,
 * after a change of scale. */
static void set_pair_betas(subadmm_work *w)
{
    for (int p = 0; p < w->npairs; p++) {
        w->pbeta[p] = w->scale * w->sub[w->pair_sub[p]].beta;
        w->pibeta[p] = 1.0 / w->pbeta[p];
    }
    for (int r = 0; r < w->P->m; r++) {
        double t = 0.0;
        for (int k = w->row_ptr[r]; k < w->row_ptr[r + 1]; k++) t += w->pibeta[w->row_pairs[k]];
        w->roww[r] = t;
    }
}

static mcb_rc subadmm_check(const void *params, mcb_err *err)
{
    const subadmm_params *prm = params;
    if (!(prm->beta_scale > 0.0) || !(prm->gamma > 1.0) || prm->adapt_every < 1 ||
        prm->beta_rule < 0 || prm->beta_rule > 3 || prm->adaptive < 0 || prm->adaptive > 1 ||
        !(prm->own_tol >= 0.0) || prm->whole < 0 || prm->whole > 1 || prm->body < 0 ||
        prm->body > 1)
        return mcb_fail(err, MCB_E_INPUT, "subadmm: beta_scale must be > 0, gamma > 1, "
                                          "adapt_every >= 1, adaptive, whole and body 0 or 1, "
                                          "beta_rule 0 to 3, own_tol >= 0");
    return MCB_OK;
}

static mcb_rc subadmm_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                            void **work, mcb_err *err)
{
    *work = NULL;
    const subadmm_params *prm = params;
    mcb_rc rc0 = subadmm_check(params, err);
    if (rc0) return rc0;
    subadmm_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *prm;
    w->scale = prm->beta_scale;
    w->ns = prm->whole ? 1 : P->nsub;
    w->sub = mcb_calloc((size_t)w->ns, sizeof(subsystem));
    mcb_rc rc = w->sub ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int i = 0; i < w->ns && !rc; i++) {
        w->sub[i].v0 = prm->whole ? 0 : P->sub_start[i];
        w->sub[i].nv = prm->whole ? P->n : P->sub_start[i + 1] - P->sub_start[i];
    }
    if (!rc) rc = detect_trees(w, err);
    if (!rc) rc = build_pairs(w, err);
    mcb_csc_free(&w->JbT);
    for (int i = 0; i < w->ns && !rc; i++) rc = setup_subsystem(w, &w->sub[i], err);
    if (!rc && prm->beta_rule >= 2) global_beta(w);
    for (int i = 0; i < w->ns && !rc; i++) rc = finish_subsystem(w, &w->sub[i], err);
    if (!rc) {
        size_t np = (size_t)w->npairs;
        w->x = mcb_calloc(np, sizeof(double));
        w->y = mcb_calloc(np, sizeof(double));
        w->z = mcb_calloc(np, sizeof(double));
        w->u = mcb_calloc(np, sizeof(double));
        w->w = mcb_calloc(np, sizeof(double));
        w->v = mcb_calloc((size_t)P->n, sizeof(double));
        w->lambda = mcb_calloc((size_t)P->m, sizeof(double));
        w->theta_part = mcb_calloc((size_t)w->ns, sizeof(double));
        w->dual_part = mcb_calloc((size_t)w->ns, sizeof(double));
        w->pbeta = mcb_calloc(np, sizeof(double));
        w->pibeta = mcb_calloc(np, sizeof(double));
        w->roww = mcb_calloc((size_t)P->m, sizeof(double));
        w->active = mcb_calloc((size_t)w->ns, sizeof(int));
        if (!w->x || !w->y || !w->z || !w->u || !w->w || !w->v || !w->lambda || !w->theta_part ||
            !w->dual_part || !w->pbeta || !w->pibeta || !w->roww || !w->active)
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (!rc) {
        set_pair_betas(w);
        for (int i = 0; i < w->ns; i++) {
            subsystem *S = &w->sub[i];
            if (S->np > 0) w->active[w->nactive++] = i;
            else memcpy(w->v + S->v0, S->rhs, (size_t)S->nv * sizeof(double));
        }
    }
    if (rc) {
        subadmm_free((void **)&w);
        return rc;
    }
    if (s->warm_start && (P->v0 || P->lambda0)) {
        /* z = J v0 per pair (x = z), u = -lambda0 (the fixed point has u = -lambda) */
        for (int i = 0; i < w->ns; i++) {
            subsystem *S = &w->sub[i];
            if (P->v0) mcb_csc_gaxpy(S->J, P->v0 + S->v0, w->z + S->p0);
        }
        for (int p = 0; p < w->npairs; p++) {
            if (P->lambda0) w->u[p] = -P->lambda0[w->pair_row[p]];
            w->x[p] = w->z[p];
            w->y[p] = w->sub[w->pair_sub[p]].beta * w->scale * w->x[p] + w->u[p];
        }
        if (P->lambda0) memcpy(w->lambda, P->lambda0, (size_t)P->m * sizeof(double));
        if (P->v0)
            for (int k = 0; k < w->nactive; k++) {
                subsystem *S = &w->sub[w->active[k]];
                memcpy(w->v + S->v0, P->v0 + S->v0, (size_t)S->nv * sizeof(double));
            }
    }
    *work = w;
    return MCB_OK;
}

/* (15) and (18): v_i, x_i = J_i v_i, y_i = beta_i x_i + u_i; theta part (22). */
/* update_subsystem() for a densely stored subsystem: the same steps with
 * J_i's rows contiguous, fused into two passes over the pairs. */
static inline void update_dense_n(subadmm_work *w, subsystem *S, double *theta, int nv)
{
    double *rhs = S->rhs, *v = w->v + S->v0;
    const double *zp = w->z + S->p0, *up = w->u + S->p0, *pb = w->pbeta + S->p0;
    double *xp = w->x + S->p0, *yp = w->y + S->p0;
    memcpy(rhs, w->P->b + S->v0, (size_t)nv * sizeof(double));
    for (int a = 0; a < S->np; a++) {
        const double *row = S->Jd + (size_t)a * nv;
        double t = pb[a] * zp[a] - up[a];
        for (int j = 0; j < nv; j++) rhs[j] += t * row[j];
    }
    mcb_dense_chol_solve(nv, S->L, rhs);
    memcpy(v, rhs, (size_t)nv * sizeof(double));
    double th = 0.0;
    for (int a = 0; a < S->np; a++) {
        const double *row = S->Jd + (size_t)a * nv;
        double x = 0.0;
        for (int j = 0; j < nv; j++) x += row[j] * v[j];
        double y = pb[a] * x + up[a];
        th += (y - yp[a]) * (y - yp[a]);
        xp[a] = x;
        yp[a] = y;
    }
    *theta = th;
}

/* update_dense_n() with the rigid-body size (6) as a constant, unrolled */
static void update_dense(subadmm_work *w, subsystem *S, double *theta)
{
    if (S->nv == 6) update_dense_n(w, S, theta, 6);
    else update_dense_n(w, S, theta, S->nv);
}

/* update_subsystem() for a tree subsystem (body splitting): the
 * right-hand side of (34) through the body twists, J_i^T t = sum_k Jb_k^T
 * (sum over k's pairs of t_a Jc_a^T), the tree solve, then each body's
 * twist Jb_k v once and x_a = Jc_a . twist per pair. */
static void update_tree(subadmm_work *w, subsystem *S, double *theta)
{
    double *rhs = S->rhs, *v = w->v + S->v0;
    const double *zp = w->z + S->p0, *up = w->u + S->p0, *pb = w->pbeta + S->p0;
    double *xp = w->x + S->p0, *yp = w->y + S->p0;
    memcpy(rhs, w->P->b + S->v0, (size_t)S->nv * sizeof(double));
    for (int b = 0; b < S->nbl; b++) {
        double f[6] = {0, 0, 0, 0, 0, 0};
        for (int a = S->bl_pair[b]; a < S->bl_pair[b + 1]; a++) {
            double t = pb[a] * zp[a] - up[a];
            const double *j = S->jc + 6 * (size_t)a;
            for (int q = 0; q < 6; q++) f[q] += t * j[q];
        }
        int na = S->bl_dof_ptr[b + 1] - S->bl_dof_ptr[b];
        const int *chain = S->bl_dof + S->bl_dof_ptr[b];
        const double *Jk = S->bl_J + 6 * (size_t)S->bl_dof_ptr[b];
        for (int c = 0; c < na; c++) {
            double s = 0.0;
            for (int q = 0; q < 6; q++) s += Jk[q * na + c] * f[q];
            rhs[chain[c]] += s;
        }
    }
    tree_solve(S, rhs);
    memcpy(v, rhs, (size_t)S->nv * sizeof(double));
    double th = 0.0;
    for (int b = 0; b < S->nbl; b++) {
        int na = S->bl_dof_ptr[b + 1] - S->bl_dof_ptr[b];
        const int *chain = S->bl_dof + S->bl_dof_ptr[b];
        const double *Jk = S->bl_J + 6 * (size_t)S->bl_dof_ptr[b];
        double tw[6];
        for (int q = 0; q < 6; q++) {
            double s = 0.0;
            for (int c = 0; c < na; c++) s += Jk[q * na + c] * v[chain[c]];
            tw[q] = s;
        }
        for (int a = S->bl_pair[b]; a < S->bl_pair[b + 1]; a++) {
            const double *j = S->jc + 6 * (size_t)a;
            double x = j[0] * tw[0] + j[1] * tw[1] + j[2] * tw[2] + j[3] * tw[3] + j[4] * tw[4] +
                       j[5] * tw[5];
            double y = pb[a] * x + up[a];
            th += (y - yp[a]) * (y - yp[a]);
            xp[a] = x;
            yp[a] = y;
        }
    }
    *theta = th;
}

static void update_subsystem(subadmm_work *w, int i)
{
    subsystem *S = &w->sub[i];
    if (S->tree) {
        update_tree(w, S, w->theta_part + i);
        return;
    }
    if (S->Jd) {
        update_dense(w, S, w->theta_part + i);
        return;
    }
    double beta = w->scale * S->beta;
    double *rhs = S->rhs, *zp = w->z + S->p0, *up = w->u + S->p0;
    double *xp = w->x + S->p0, *yp = w->y + S->p0, *tmp = w->w + S->p0;
    memcpy(rhs, w->P->b + S->v0, (size_t)S->nv * sizeof(double));
    for (int a = 0; a < S->np; a++) tmp[a] = beta * zp[a] - up[a];
    mcb_csc_gatxpy(S->J, tmp, rhs);
    solve_subsystem(S, rhs, w->v + S->v0);
    memset(xp, 0, (size_t)S->np * sizeof(double));
    mcb_csc_gaxpy(S->J, w->v + S->v0, xp);
    double th = 0.0;
    for (int a = 0; a < S->np; a++) {
        double y = beta * xp[a] + up[a];
        th += (y - yp[a]) * (y - yp[a]);
        yp[a] = y;
    }
    w->theta_part[i] = th;
}

/* (16)-(21): lambda of one block from the beta-weighted sums of y, then z
 * (18) and the multiplier u (14) of each of its pairs. */
static void update_block(subadmm_work *w, const mcb_block *B)
{
    const mcb_problem *P = w->P;
    double Y[3], W[3], lam[3];
    for (int r0 = B->row; r0 < B->row + B->nrows; r0 += (B->type == MCB_CONTACT ? 3 : 1)) {
        int len = B->type == MCB_CONTACT ? 3 : 1;
        for (int a = 0; a < len; a++) {
            int r = r0 + a;
            Y[a] = W[a] = 0.0;
            for (int k = w->row_ptr[r]; k < w->row_ptr[r + 1]; k++) {
                int p = w->row_pairs[k];
                Y[a] += w->pibeta[p] * w->y[p];
            }
            W[a] = w->roww[r] + mcb_problem_r(P, r); /* the compliance shifts the weight */
        }
        const double *e = P->e + r0;
        switch (B->type) {
        case MCB_BILATERAL: lam[0] = -(Y[0] + e[0]) / W[0]; break;
        case MCB_UNILATERAL: {
            double t = -(Y[0] + e[0]) / W[0];
            lam[0] = t > 0.0 ? t : 0.0;
            break;
        }
        case MCB_SOFT:
            lam[0] = -B->k * (e[0] + B->alpha * Y[0]) / (1.0 + B->k * B->alpha * W[0]);
            break;
        case MCB_CONTACT: {
            /* the rows of a contact share their subsystems (build_pairs): W[0] = W[1] = W[2] */
            double t[3] = {-(Y[0] + e[0]) / W[0], -(Y[1] + e[1]) / W[1], -(Y[2] + e[2]) / W[2]};
            double r = B->mu * t[0];
            if (t[0] <= 0.0) {
                lam[0] = lam[1] = lam[2] = 0.0; /* open: the strict projection is 0 */
            } else if (t[1] * t[1] + t[2] * t[2] <= r * r) {
                lam[0] = t[0]; /* inside the cone: the projection is the identity */
                lam[1] = t[1];
                lam[2] = t[2];
            } else {
                mcb_proj_strict(B->mu, t, lam);
            }
            break;
        }
        }
        for (int a = 0; a < len; a++) {
            int r = r0 + a;
            w->lambda[r] = lam[a];
            for (int k = w->row_ptr[r]; k < w->row_ptr[r + 1]; k++) {
                int p = w->row_pairs[k];
                w->z[p] = (w->y[p] + lam[a]) * w->pibeta[p];
                w->u[p] += w->pbeta[p] * (w->x[p] - w->z[p]); /* (14) */
            }
        }
    }
}

/* (42)-(43): primal theta_p = max |J v - z| over pairs, dual theta_d =
 * max_i ||A_i v_i - b_i - J_i^T lambda||; rescale beta when unbalanced. */
static int rebalance(subadmm_work *w)
{
    const mcb_problem *P = w->P;
    double tp = 0.0, td = 0.0;
    for (int p = 0; p < w->npairs; p++) {
        double d = fabs(w->x[p] - w->z[p]);
        if (d > tp) tp = d;
    }
#pragma omp parallel for schedule(static)
    for (int k = 0; k < w->nactive; k++) {
        int i = w->active[k];
        subsystem *S = &w->sub[i];
        double *r = S->Av, *lam = w->w + S->p0;
        for (int a = 0; a < S->np; a++) lam[a] = w->lambda[w->pair_row[S->p0 + a]];
        for (int j = 0; j < S->nv; j++) r[j] = -P->b[S->v0 + j];
        mcb_csc_gaxpy(S->A, w->v + S->v0, r);
        for (int j = 0; j < S->nv; j++) r[j] = -r[j];
        mcb_csc_gatxpy(S->J, lam, r);
        w->dual_part[i] = mcb_norm2(S->nv, r);
    }
    for (int k = 0; k < w->nactive; k++)
        if (w->dual_part[w->active[k]] > td) td = w->dual_part[w->active[k]];
    double g = w->prm.gamma;
    if (!(tp > g * td || td > g * tp) || tp == 0.0 || td == 0.0) return 0;
    double f = sqrt(tp / td);
    if (f > 100.0) f = 100.0;
    if (f < 0.01) f = 0.01;
    w->scale *= f;
    int fail = 0;
#pragma omp parallel for schedule(static) reduction(| : fail)
    for (int k = 0; k < w->nactive; k++) {
        subsystem *S = &w->sub[w->active[k]];
        fail |= factor_subsystem(S, w->scale * S->beta, NULL) != MCB_OK;
    }
    set_pair_betas(w);
    /* y depends on beta: recompute it so theta measures the iteration only */
    for (int p = 0; p < w->npairs; p++) w->y[p] = w->pbeta[p] * w->x[p] + w->u[p];
    return fail;
}

static int subadmm_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                         mcb_info *info)
{
    subadmm_work *w = work;
    const mcb_problem *P = w->P;
    for (int it = 1; it <= s->max_iters; it++) {
#pragma omp parallel for schedule(static)
        for (int k = 0; k < w->nactive; k++) update_subsystem(w, w->active[k]);
        double theta = 0.0;
        for (int k = 0; k < w->nactive; k++) theta += w->theta_part[w->active[k]];
#pragma omp parallel for schedule(static)
        for (int b = 0; b < P->nblocks; b++) update_block(w, &P->blocks[b]);
        info->iterations = it;
        info->own_residual = sqrt(theta);
        if (!isfinite(info->own_residual)) return MCB_ST_DIVERGED;
        mcb_cb_action a = cb(ctx, it, info->own_residual);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
        /* own_tol = 0 never stops: theta is also 0 when y did not move
         * while u still does (b = 0 and a cold start: v = 0 at iteration 1) */
        if (w->prm.own_tol > 0.0 && info->own_residual <= w->prm.own_tol) {
            snprintf(info->reason, sizeof info->reason,
                     "own residual sqrt(theta) = %.3g at or below own_tol = %.3g",
                     info->own_residual, w->prm.own_tol);
            return MCB_ST_STALLED;
        }
        if (w->prm.adaptive && it % w->prm.adapt_every == 0 && rebalance(w)) {
            snprintf(info->reason, sizeof info->reason,
                     "refactorization after a beta update failed");
            return MCB_ST_DIVERGED;
        }
    }
    return MCB_ST_MAX_ITERS;
}

static void subadmm_iterate(void *work, double *v, double *lambda)
{
    subadmm_work *w = work;
    memcpy(lambda, w->lambda, (size_t)w->P->m * sizeof(double));
    if (v) memcpy(v, w->v, (size_t)w->P->n * sizeof(double));
}

const mcb_solver_def mcb_solver_subadmm = {
    .name = "subadmm",
    .accepts_problem = mcb_accepts_coulomb_tangent_r,
    .description = "subsystem-based ADMM (the 2025 version): body splitting and tree-structured "
                   "factors in articulated subsystems, dense (up to 64 DOFs) or CHOLMOD factors "
                   "elsewhere, closed-form per-constraint updates, OpenMP over subsystems and "
                   "constraints",
    .reference = "SubADMM paper Alg. 1, eq. (12)-(23); CANAL/SubADMM paper eq. (17), (30)-(31), "
                 "(40)-(43), Appendix A",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .params_size = sizeof(subadmm_params),
    .default_params = subadmm_defaults,
    .params = subadmm_desc,
    .nparams = (int)(sizeof subadmm_desc / sizeof subadmm_desc[0]),
    .check_params = subadmm_check,
    .setup = subadmm_setup,
    .solve = subadmm_solve,
    .iterate = subadmm_iterate,
    .free = subadmm_free,
};

const mcb_solver_def mcb_solver_subadmm_nobody = {
    .name = "subadmm-nobody",
    .accepts_problem = mcb_accepts_coulomb_tangent_r,
    .description = "subsystem-based ADMM without body splitting (the 2023 algorithm, the "
                   "CANAL/SubADMM paper's No Body): one constraint copy per (row, subsystem), "
                   "dense or CHOLMOD factors of A_i + beta J_i^T J_i",
    .reference = "SubADMM paper Alg. 1; CANAL/SubADMM paper Sec. VII-D2, Table III (No Body)",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .params_size = sizeof(subadmm_params),
    .default_params = nobody_defaults,
    .params = subadmm_desc,
    .nparams = (int)(sizeof subadmm_desc / sizeof subadmm_desc[0]),
    .check_params = subadmm_check,
    .setup = subadmm_setup,
    .solve = subadmm_solve,
    .iterate = subadmm_iterate,
    .free = subadmm_free,
};

const mcb_solver_def mcb_solver_fadmm = {
    .name = "fadmm",
    .accepts_problem = mcb_accepts_coulomb_tangent_r,
    .description = "full-system ADMM (no subsystem splitting): one CHOLMOD factor of "
                   "A + beta J^T J, closed-form per-constraint z-updates",
    .reference = "SubADMM paper Sec. IV-B (FADMM); CANAL/SubADMM paper eq. (28) (No Sub)",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .params_size = sizeof(subadmm_params),
    .default_params = fadmm_defaults,
    .params = subadmm_desc,
    .nparams = (int)(sizeof subadmm_desc / sizeof subadmm_desc[0]),
    .check_params = subadmm_check,
    .setup = subadmm_setup,
    .solve = subadmm_solve,
    .iterate = subadmm_iterate,
    .free = subadmm_free,
};

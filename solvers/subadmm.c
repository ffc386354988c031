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
 * (adaptive = 1 turns it on, refactoring at each change of beta).
 *
 * Files: this one reads top-down like Alg. 1 (parameters, set-up, then
 * the steps of one iteration); subadmm_split.c makes the pairs and the
 * subsystem factors, subadmm_tree.c the body splitting's tree factor;
 * subadmm_work.h and subadmm_tree.h are their private headers. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_chol.h"
#include "lib/mcb_cone.h"
#include "solvers/solver.h"
#include "solvers/subadmm_tree.h"
#include "solvers/subadmm_work.h"

/* ---------- parameters (subadmm_params: subadmm_work.h) ---------- */

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

/* ---------- set-up: subsystems, pairs, beta_i (23), factors ---------- */

static void subadmm_free(void **work);

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
    if (!rc) rc = mcb_subadmm_detect_trees(w, err);
    if (!rc) rc = mcb_subadmm_build_pairs(w, err);
    mcb_csc_free(&w->JbT);
    for (int i = 0; i < w->ns && !rc; i++) rc = mcb_subadmm_setup_subsystem(w, &w->sub[i], err);
    if (!rc && prm->beta_rule >= 2) mcb_subadmm_global_beta(w);
    for (int i = 0; i < w->ns && !rc; i++) rc = mcb_subadmm_finish_subsystem(w, &w->sub[i], err);
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
        mcb_subadmm_set_pair_betas(w);
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

/* ---------- one iteration, Alg. 1: (15), (18), (22), then (16)-(21), (14) ---------- */

/* (15) and (18): v_i, x_i = J_i v_i, y_i = beta_i x_i + u_i; theta part (22). */
/* update_subsystem() for a densely stored subsystem: the same steps in
 * g = L^-1 (b_i + J_i^T t) (see subsystem.G), two contiguous passes over
 * the pairs and no triangular solve; v_i is left stale (w->v_stale). */
static inline void update_dense_n(subadmm_work *w, subsystem *S, double *theta, int nv)
{
    double *g = S->g;
    const double *zp = w->z + S->p0, *up = w->u + S->p0, *pb = w->pbeta + S->p0;
    double *xp = w->x + S->p0, *yp = w->y + S->p0;
    for (int j = 0; j < nv; j++) g[j] = S->c[j];
    for (int a = 0; a < S->np; a++) {
        const double *row = S->G + (size_t)a * nv;
        double t = pb[a] * zp[a] - up[a];
        for (int j = 0; j < nv; j++) g[j] += t * row[j];
    }
    double th = 0.0;
    for (int a = 0; a < S->np; a++) {
        const double *row = S->G + (size_t)a * nv;
        double x = 0.0;
        for (int j = 0; j < nv; j++) x += row[j] * g[j];
        double y = pb[a] * x + up[a];
        th += (y - yp[a]) * (y - yp[a]);
        xp[a] = x;
        yp[a] = y;
    }
    *theta = th;
}

/* v_i = L^-T g of the densely stored subsystems after iterations that
 * left it stale. */
static void refresh_v(subadmm_work *w)
{
    if (!w->v_stale) return;
    for (int k = 0; k < w->nactive; k++) {
        subsystem *S = &w->sub[w->active[k]];
        if (!S->G) continue;
        double *v = w->v + S->v0;
        memcpy(v, S->g, (size_t)S->nv * sizeof(double));
        mcb_dense_chol_ltsolve(S->nv, S->L, v);
    }
    w->v_stale = 0;
}

/* update_dense_n() with the rigid-body size (6) as a constant, unrolled */
static void update_dense(subadmm_work *w, subsystem *S, double *theta)
{
    if (S->nv == 6) update_dense_n(w, S, theta, 6);
    else update_dense_n(w, S, theta, S->nv);
}

static void update_subsystem(subadmm_work *w, int i)
{
    subsystem *S = &w->sub[i];
    if (S->tree) {
        mcb_subadmm_update_tree(w, S, w->theta_part + i);
        return;
    }
    if (S->G) {
        update_dense(w, S, w->theta_part + i);
        return;
    }
    double beta = w->scale * S->beta;
    double *rhs = S->rhs, *zp = w->z + S->p0, *up = w->u + S->p0;
    double *xp = w->x + S->p0, *yp = w->y + S->p0, *tmp = w->w + S->p0;
    memcpy(rhs, w->P->b + S->v0, (size_t)S->nv * sizeof(double));
    for (int a = 0; a < S->np; a++) tmp[a] = beta * zp[a] - up[a];
    mcb_csc_gatxpy(S->J, tmp, rhs);
    mcb_subadmm_solve_subsystem(S, rhs, w->v + S->v0);
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

/* (16)-(21): lambda of one bilateral, unilateral or soft block, row by
 * row, from the beta-weighted sums of y, then z (18) and the multiplier u
 * (14) of each of its pairs (contacts: update_contact). */
static void update_block(subadmm_work *w, const mcb_block *B)
{
    const mcb_problem *P = w->P;
    for (int r = B->row; r < B->row + B->nrows; r++) {
        /* the compliance r shifts the weight */
        double Y = 0.0, W = w->roww[r] + mcb_problem_r(P, r), lam = 0.0, e = P->e[r];
        for (int k = w->row_ptr[r]; k < w->row_ptr[r + 1]; k++) {
            int p = w->row_pairs[k];
            Y += w->pibeta[p] * w->y[p];
        }
        switch (B->type) {
        case MCB_BILATERAL: lam = -(Y + e) / W; break;
        case MCB_UNILATERAL: {
            double t = -(Y + e) / W;
            lam = t > 0.0 ? t : 0.0;
            break;
        }
        case MCB_SOFT: lam = -B->k * (e + B->alpha * Y) / (1.0 + B->k * B->alpha * W); break;
        }
        w->lambda[r] = lam;
        for (int k = w->row_ptr[r]; k < w->row_ptr[r + 1]; k++) {
            int p = w->row_pairs[k];
            w->z[p] = (w->y[p] + lam) * w->pibeta[p];
            w->u[p] += w->pbeta[p] * (w->x[p] - w->z[p]); /* (14) */
        }
    }
}

/* update_block() for a contact: its three rows have the same subsystems
 * and their pairs are consecutive (mcb_subadmm_build_pairs places a unit's pairs in
 * row order), so pair p of the normal row has p + 1 and p + 2 for the
 * tangent rows, with the same beta. */
static void update_contact(subadmm_work *w, const mcb_block *B)
{
    int r0 = B->row, k0 = w->row_ptr[r0], k1 = w->row_ptr[r0 + 1];
    double Y[3] = {0.0, 0.0, 0.0}, lam[3];
    for (int k = k0; k < k1; k++) {
        int p = w->row_pairs[k];
        double ib = w->pibeta[p];
        Y[0] += ib * w->y[p];
        Y[1] += ib * w->y[p + 1];
        Y[2] += ib * w->y[p + 2];
    }
    const double *e = w->P->e + r0;
    /* the three rows' weights are equal but for the compliance r, which
     * shifts each (equal on the tangent rows: mcb_accepts_coulomb_tangent_r) */
    const mcb_problem *P = w->P;
    double wn = w->roww[r0] + mcb_problem_r(P, r0), wt = w->roww[r0] + mcb_problem_r(P, r0 + 1);
    double t[3] = {-(Y[0] + e[0]) / wn, -(Y[1] + e[1]) / wt, -(Y[2] + e[2]) / wt};
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
    w->lambda[r0] = lam[0];
    w->lambda[r0 + 1] = lam[1];
    w->lambda[r0 + 2] = lam[2];
    for (int k = k0; k < k1; k++) {
        int p = w->row_pairs[k];
        double ib = w->pibeta[p], bt = w->pbeta[p];
        for (int a = 0; a < 3; a++) {
            double z = (w->y[p + a] + lam[a]) * ib;
            w->z[p + a] = z;
            w->u[p + a] += bt * (w->x[p + a] - z); /* (14) */
        }
    }
}

/* (42)-(43): primal theta_p = max |J v - z| over pairs, dual theta_d =
 * max_i ||A_i v_i - b_i - J_i^T lambda||; rescale beta when unbalanced. */
static int rebalance(subadmm_work *w)
{
    const mcb_problem *P = w->P;
    double tp = 0.0, td = 0.0;
    refresh_v(w);
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
        fail |= mcb_subadmm_factor_subsystem(S, w->scale * S->beta, NULL) != MCB_OK;
    }
    mcb_subadmm_set_pair_betas(w);
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
        w->v_stale = 1;
        double theta = 0.0;
        for (int k = 0; k < w->nactive; k++) theta += w->theta_part[w->active[k]];
#pragma omp parallel for schedule(static)
        for (int b = 0; b < P->nblocks; b++) {
            if (P->blocks[b].type == MCB_CONTACT) update_contact(w, &P->blocks[b]);
            else update_block(w, &P->blocks[b]);
        }
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
    if (v) {
        refresh_v(w);
        memcpy(v, w->v, (size_t)w->P->n * sizeof(double));
    }
}

/* Accepts NULL and a partly set-up work (a failed setup frees through it). */
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
        free(S->G);
        free(S->c);
        free(S->g);
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

/* ---------- the three solvers: subadmm, subadmm-nobody, fadmm ---------- */

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

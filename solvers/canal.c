/* canal.c: Cascaded Newton-based Augmented Lagrangian (CANAL; Lee, Lee,
 * Park, Yun and Lee, "Variations of Augmented Lagrangian for Robotic
 * Multi-Contact Simulation", Sec. IV-V, Alg. 1).
 *
 * The AL outer loop l keeps the multiplier u^l = -lambda^l (eq. 12 with the
 * closed-form slack z of eq. 13 gives u^{l+1} = -lambda^{l+1} exactly) and a
 * perturbed offset e~^l = e + p^l, p^l = [mu ||(z^l + e)_t||, 0, 0] on each
 * contact (eq. 20, the De Saxce term frozen at the previous slack). One
 * loop solves the surrogate problem (21):
 *     r(v) = A v - b - J^T lambda(v) = 0,
 *     lambda_g(v) = T_g(x_g),  x_g = lambda_g^l - beta (J_g v + e~_g)
 * with T the proximal (Euclidean) projection on the friction cone for a
 * contact, the identity (bilateral), max(0, .) (unilateral) and the exact
 * soft law (15) (lambda = -(k alpha y + k beta e) / (beta + k alpha),
 * y = beta J v - lambda^l). r is the gradient of the strongly convex
 *     h(v) = 1/2 v'Av - b'v + 1/beta sum_g psi_g(x_g(v))          (22)
 * (psi_g' = T_g), so Newton with the generalized derivative
 *     H = A + beta sum_g J_g' D_g J_g,  D_g = dT_g/dx_g          (23)-(24)
 * (3x3 blocks for contacts, scalars otherwise) and an exact line search on
 * phi(alpha) = h(v + alpha d) (26) converges globally. The line search
 * finds the root of phi'(alpha) = d' r(v + alpha d) by safeguarded
 * Newton-bisection (rtsafe: Newton on phi' with phi'' = d'Ad + beta sum
 * (J_g d)' D_g (J_g d), bisection whenever the Newton point leaves the
 * bracket); phi' is monotone, so the bracket [0, alpha_hi] is grown by
 * doubling from alpha = 1 until phi' > 0.
 * After the Newton loop: lambda^{l+1} = lambda(v^{l+1}),
 * z^{l+1} = J v^{l+1} + (lambda^{l+1} - lambda^l) / beta, so the primal
 * residual is ||J v - z|| = ||lambda^{l+1} - lambda^l|| / beta; when it did
 * not shrink by zeta, beta <- min(kappa beta, beta_max) (27). v is warm
 * started across AL loops (Sec. V-D).
 *
 * Sparse, fixed pattern: H's pattern is the upper triangle of A united with
 * every constraint group's column set squared, built once at setup;
 * each Newton step writes the values in place (A's entries, then the
 * per-group dense products beta J_g' D_g J_g scattered through positions
 * precomputed at setup) and refactors numerically (mcb_chol_refactor:
 * CHOLMOD's symbolic analysis is done once per problem, and CHOLMOD itself
 * picks simplicial or supernodal). The first factorization, of A alone in
 * that pattern, also gives Tr(J A^-1 J^T) = ||L^-1 P J^T||_F^2 for the
 * default penalty beta = beta_scale * m / Tr(J A^-1 J^T) (beta_scale over the
 * mean Delassus diagonal: the paper's beta = 1e4 is for unit-scale robots).
 *
 * Counting: one solver iteration (callback, info->iterations, trace row) is
 * one AL loop; the Newton steps inside are counted apart and reported, with
 * the line-search evaluations and the final beta, in info->reason when
 * solve() returns (mcb_info has no field for them). own_residual is
 * ||J v - z||_2 of the loop. The per-group projections and Hessian blocks
 * run under OpenMP (each group writes its own slots; sums are serial, so a
 * fixed thread count gives identical results). Nothing is allocated inside
 * the loops. Failures are statuses: a Newton matrix CHOLMOD cannot factor or
 * a non-finite residual (diverged), a line search without a minimum
 * (diverged), a primal residual that stopped shrinking with beta at its cap
 * (stalled: an infeasible problem). Primal problems only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcb_chol.h"
#include "solver.h"

typedef struct {
    double beta;       /* initial penalty; 0: beta_scale * m / Tr(J A^-1 J^T) */
    double beta_scale; /* multiplies the inverse mean Delassus diagonal */
    double kappa;      /* beta growth factor of eq. (27), > 1 */
    double beta_max;   /* cap of eq. (27), in units of 1 / mean diag(J A^-1 J^T) */
    double zeta;       /* grow beta when ||Jv - z|| > zeta * previous, in (0, 1] */
    double newton_tol; /* Newton stop: ||r|| <= newton_tol * max(||b||, ||Av||, ||J'l||) */
    int max_newton;    /* Newton steps per AL loop */
    double ls_tol;     /* line search stop: |phi'(alpha)| <= ls_tol |phi'(0)| */
    int ls_max;        /* line-search evaluations per Newton step */
    int stall_loops;   /* loops without progress at beta_max before 'stalled' (0: never) */
    double own_tol;    /* stop when ||Jv - z|| falls below this (0: never) */
} canal_params;

static void canal_defaults(void *p)
{
    canal_params *q = p;
    q->beta = 0.0;
    q->beta_scale = 100.0;
    q->kappa = 10.0;
    q->beta_max = 1e3;
    q->zeta = 0.5;
    q->newton_tol = 1e-13;
    q->max_newton = 50;
    q->ls_tol = 1e-10;
    q->ls_max = 60;
    q->stall_loops = 10;
    q->own_tol = 0.0;
}

static const mcb_param_desc canal_desc[] = {
    {"beta", 'd', offsetof(canal_params, beta),
     "initial AL penalty; 0: beta_scale / mean diag(J A^-1 J^T) (the paper's 1e4 is for "
     "unit-scale robots)"},
    {"beta_scale", 'd', offsetof(canal_params, beta_scale),
     "initial beta over the inverse mean Delassus diagonal (used when beta = 0)"},
    {"kappa", 'd', offsetof(canal_params, kappa), "beta growth factor of eq. (27), > 1"},
    {"beta_max", 'd', offsetof(canal_params, beta_max),
     "cap of eq. (27), in units of 1 / mean diag(J A^-1 J^T), > 0 (bounds the round-off "
     "floor, about eps beta ||J v||, of the surrogate's residual; the initial beta if above)"},
    {"zeta", 'd', offsetof(canal_params, zeta),
     "grow beta when ||Jv - z|| > zeta times the previous loop's, in (0, 1] (Alg. 1)"},
    {"newton_tol", 'd', offsetof(canal_params, newton_tol),
     "Newton loop stop (theta_th^N of Alg. 1), relative: ||r|| <= newton_tol max(||b||, "
     "||Av||, ||J^T lambda||)"},
    {"max_newton", 'i', offsetof(canal_params, max_newton), "Newton steps per AL loop, >= 1"},
    {"ls_tol", 'd', offsetof(canal_params, ls_tol),
     "exact line search (26) stop: |phi'(alpha)| <= ls_tol |phi'(0)|"},
    {"ls_max", 'i', offsetof(canal_params, ls_max),
     "line-search evaluations per Newton step (rtsafe), >= 4"},
    {"stall_loops", 'i', offsetof(canal_params, stall_loops),
     "AL loops with beta at its cap and ||Jv - z|| not shrinking (by 0.1%) before the "
     "solver stops as stalled (an infeasible problem); 0: never"},
    {"own_tol", 'd', offsetof(canal_params, own_tol),
     "stop when ||Jv - z|| (theta_th^AL of Alg. 1) falls below this (0: only the harness "
     "stops it)"},
};

/* One constraint group: a contact (3 rows) or one scalar row. */
typedef struct {
    int row, len, type; /* first row, 1 or 3, mcb_ctype */
    double mu, k, alpha;
    int s;              /* columns touched by the group's rows */
    int c0;             /* offset into cols */
    int j0;             /* offset into jg (len x s, row-major) */
    int h0;             /* offset into hpos / hval: s (s + 1) / 2 upper pairs */
    int d0;             /* offset into dval: len * len */
} group;

typedef struct {
    const mcb_problem *P;
    canal_params prm;
    int n, m, ng;
    group *g;
    int *cols;          /* per group, sorted */
    double *jg;         /* per group, dense J_g */
    int *hpos;          /* per group pair (a <= b): position in K->x */
    double *hval;       /* per group pair: beta (J_g' D_g J_g)_ab */
    double *dval;       /* per group: D_g */
    mcb_csc *K;         /* Newton matrix, upper triangle, fixed pattern */
    int *apos;          /* A's upper entries: position in K->x (-1: lower) */
    mcb_chol *F;
    double beta, beta0, beta_cap;
    /* state */
    double *v, *lam, *lam_new, *et; /* et: e~ of the current loop */
    /* Newton work */
    double *x, *Jv, *Av, *JTl, *r, *d, *Jd, *Ad;
    double nb, ne;      /* ||b||, ||e|| */
    double res_prev;    /* ||Jv - z|| of the previous loop */
    int loops, newton, lsevals, stall;
} canal_work;

static void canal_free(void **work)
{
    if (!work || !*work) return;
    canal_work *w = *work;
    free(w->g);
    free(w->cols);
    free(w->jg);
    free(w->hpos);
    free(w->hval);
    free(w->dval);
    mcb_csc_free(&w->K);
    free(w->apos);
    mcb_chol_free(&w->F);
    free(w->v);
    free(w->lam);
    free(w->lam_new);
    free(w->et);
    free(w->x);
    free(w->Jv);
    free(w->Av);
    free(w->JTl);
    free(w->r);
    free(w->d);
    free(w->Jd);
    free(w->Ad);
    free(w);
    *work = NULL;
}

static mcb_rc canal_check(const void *params, mcb_err *err)
{
    const canal_params *q = params;
    if (!(q->beta >= 0.0) || !(q->beta_scale > 0.0) || !(q->kappa > 1.0) ||
        !(q->beta_max > 0.0) || !(q->zeta > 0.0 && q->zeta <= 1.0) || !(q->newton_tol >= 0.0) ||
        q->max_newton < 1 || !(q->ls_tol > 0.0 && q->ls_tol < 1.0) || q->ls_max < 4 ||
        q->stall_loops < 0 || !(q->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT,
                        "canal: beta must be >= 0, beta_scale > 0, kappa > 1, beta_max > 0, "
                        "zeta in (0, 1], newton_tol >= 0, max_newton >= 1, ls_tol in (0, 1), "
                        "ls_max >= 4, stall_loops >= 0, own_tol >= 0");
    return MCB_OK;
}

/* ---- the per-group operator T and its generalized derivative (23) ---- */

/* Proximal operator on K_mu = {||t|| <= mu n} (Euclidean projection, rows
 * [n, t1, t2]) and its derivative D (3x3, row-major): I inside the cone,
 * 0 in its polar, the derivative of the projection on the boundary ray
 * otherwise (eq. 23 in the [n, t] order). */
static void cone_prox(double mu, const double x[3], double l[3], double D[9])
{
    double xn = x[0], nt = hypot(x[1], x[2]);
    memset(D, 0, 9 * sizeof(double));
    if (mu <= 0.0) { /* K = {n >= 0, t = 0} */
        l[0] = xn > 0.0 ? xn : 0.0;
        l[1] = l[2] = 0.0;
        D[0] = xn > 0.0 ? 1.0 : 0.0;
        return;
    }
    if (nt <= mu * xn) { /* stick: inside */
        l[0] = x[0];
        l[1] = x[1];
        l[2] = x[2];
        D[0] = D[4] = D[8] = 1.0;
        return;
    }
    if (mu * nt <= -xn) { /* open: in the polar cone */
        l[0] = l[1] = l[2] = 0.0;
        return;
    }
    /* slip: onto the ray (1, mu t^) / sqrt(1 + mu^2) */
    double c = 1.0 / (1.0 + mu * mu), s = (xn + mu * nt) * c;
    double t1 = x[1] / nt, t2 = x[2] / nt, q = mu * s / nt;
    l[0] = s;
    l[1] = mu * s * t1;
    l[2] = mu * s * t2;
    D[0] = c;
    D[1] = D[3] = c * mu * t1;
    D[2] = D[6] = c * mu * t2;
    D[4] = c * mu * mu * t1 * t1 + q * (1.0 - t1 * t1);
    D[8] = c * mu * mu * t2 * t2 + q * (1.0 - t2 * t2);
    D[5] = D[7] = c * mu * mu * t1 * t2 - q * t1 * t2;
}

/* lambda_g = T_g(x_g) and, if D is not NULL, D_g = dT_g / dx_g. e: the
 * group's (unperturbed) offsets, used by the soft law. */
static void group_T(const group *G, double beta, const double *x, const double *e, double *l,
                    double *D)
{
    double Dl[9];
    switch (G->type) {
    case MCB_CONTACT: cone_prox(G->mu, x, l, D ? D : Dl); return;
    case MCB_BILATERAL:
        l[0] = x[0];
        if (D) D[0] = 1.0;
        return;
    case MCB_UNILATERAL:
        l[0] = x[0] > 0.0 ? x[0] : 0.0;
        if (D) D[0] = x[0] > 0.0 ? 1.0 : 0.0;
        return;
    default: { /* soft, eq. (15): y = beta J v - lambda^l = -x - beta e */
        double ka = G->k * G->alpha, y = -x[0] - beta * e[0];
        l[0] = -(ka * y + G->k * beta * e[0]) / (beta + ka);
        if (D) D[0] = ka / (beta + ka);
        return;
    }
    }
}

/* ---- setup: groups, the fixed pattern of H, the first factor ---- */

/* Position of entry (i, j), i <= j, in K (binary search in column j). */
static int kpos(const mcb_csc *K, int i, int j)
{
    int lo = K->p[j], hi = K->p[j + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (K->i[mid] == i) return mid;
        if (K->i[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Groups, their column sets and dense J_g, from J^T (column r = row r). */
static mcb_rc build_groups(canal_work *w, const mcb_csc *JT, mcb_err *err)
{
    const mcb_problem *P = w->P;
    int ng = 0;
    for (int b = 0; b < P->nblocks; b++)
        ng += P->blocks[b].type == MCB_CONTACT ? P->blocks[b].nrows / 3 : P->blocks[b].nrows;
    w->ng = ng;
    w->g = mcb_calloc((size_t)ng + 1, sizeof(group));
    if (!w->g) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int k = 0, nc = 0, nj = 0, nh = 0, nd = 0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int len = B->type == MCB_CONTACT ? 3 : 1;
        for (int r = B->row; r + len <= B->row + B->nrows; r += len, k++) {
            group *G = &w->g[k];
            G->row = r;
            G->len = len;
            G->type = B->type;
            G->mu = B->mu;
            G->k = B->k;
            G->alpha = B->alpha;
            int s = 0;
            for (int a = 0; a < len; a++) s += JT->p[r + a + 1] - JT->p[r + a];
            G->s = s; /* an upper bound until the union is taken */
            G->c0 = nc;
            nc += s;
        }
    }
    w->cols = mcb_malloc((size_t)nc + 1, sizeof(int));
    if (!w->cols) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    /* the union of the rows' columns, sorted and unique, packed */
    int out = 0;
    for (int q = 0; q < ng; q++) {
        group *G = &w->g[q];
        int *c = w->cols + out, s = 0;
        for (int a = 0; a < G->len; a++)
            for (int t = JT->p[G->row + a]; t < JT->p[G->row + a + 1]; t++) c[s++] = JT->i[t];
        qsort(c, (size_t)s, sizeof(int), cmp_int);
        int u = 0;
        for (int t = 0; t < s; t++)
            if (u == 0 || c[t] != c[u - 1]) c[u++] = c[t];
        G->s = u;
        G->c0 = out;
        G->h0 = nh;
        G->d0 = nd;
        G->j0 = nj;
        out += u;
        nj += G->len * u;
        nh += u * (u + 1) / 2;
        nd += G->len * G->len;
    }
    w->jg = mcb_calloc((size_t)nj + 1, sizeof(double));
    w->hpos = mcb_malloc((size_t)nh + 1, sizeof(int));
    w->hval = mcb_calloc((size_t)nh + 1, sizeof(double));
    w->dval = mcb_calloc((size_t)nd + 1, sizeof(double));
    if (!w->jg || !w->hpos || !w->hval || !w->dval)
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    /* dense J_g (len x s), row-major */
    for (int q = 0; q < ng; q++) {
        group *G = &w->g[q];
        const int *c = w->cols + G->c0;
        double *J = w->jg + G->j0;
        for (int a = 0; a < G->len; a++)
            for (int t = JT->p[G->row + a]; t < JT->p[G->row + a + 1]; t++) {
                int *hit = bsearch(&JT->i[t], c, (size_t)G->s, sizeof(int), cmp_int);
                J[a * G->s + (int)(hit - c)] += JT->x[t];
            }
    }
    return MCB_OK;
}

/* K's pattern (upper triangle of A and of every group's column set
 * squared), A's and the groups' positions in it. */
static mcb_rc build_pattern(canal_work *w, mcb_err *err)
{
    const mcb_csc *A = w->P->A;
    int n = w->n;
    long nt = 0;
    for (int j = 0; j < n; j++)
        for (int t = A->p[j]; t < A->p[j + 1]; t++) nt += A->i[t] <= j;
    for (int q = 0; q < w->ng; q++) nt += (long)w->g[q].s * (w->g[q].s + 1) / 2;
    if (nt > 2147483647L) return mcb_fail(err, MCB_E_INPUT, "canal: Newton matrix too large");
    int *ri = mcb_malloc((size_t)nt + 1, sizeof(int)), *ci = mcb_malloc((size_t)nt + 1, sizeof(int));
    double *xv = mcb_calloc((size_t)nt + 1, sizeof(double));
    w->apos = mcb_malloc((size_t)mcb_csc_nnz(A) + 1, sizeof(int));
    mcb_rc rc = MCB_OK;
    if (!ri || !ci || !xv || !w->apos) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    int t = 0;
    for (int j = 0; j < n; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++)
            if (A->i[k] <= j) {
                ri[t] = A->i[k];
                ci[t++] = j;
            }
    for (int q = 0; q < w->ng; q++) {
        const int *c = w->cols + w->g[q].c0;
        for (int a = 0; a < w->g[q].s; a++)
            for (int b = a; b < w->g[q].s; b++) {
                ri[t] = c[a]; /* sorted: c[a] <= c[b] */
                ci[t++] = c[b];
            }
    }
    w->K = mcb_csc_from_triplets(n, n, t, ri, ci, xv);
    if (!w->K) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    for (int j = 0; j < n; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++)
            w->apos[k] = A->i[k] <= j ? kpos(w->K, A->i[k], j) : -1;
    for (int q = 0; q < w->ng; q++) {
        const group *G = &w->g[q];
        const int *c = w->cols + G->c0;
        int h = G->h0;
        for (int a = 0; a < G->s; a++)
            for (int b = a; b < G->s; b++) w->hpos[h++] = kpos(w->K, c[a], c[b]);
    }
done:
    free(ri);
    free(ci);
    free(xv);
    return rc;
}

/* K = A + sum_g (the group products in hval): values only. */
static void assemble(canal_work *w)
{
    const mcb_csc *A = w->P->A;
    memset(w->K->x, 0, (size_t)mcb_csc_nnz(w->K) * sizeof(double));
    for (int k = 0; k < mcb_csc_nnz(A); k++)
        if (w->apos[k] >= 0) w->K->x[w->apos[k]] += A->x[k];
    for (int q = 0; q < w->ng; q++) {
        const group *G = &w->g[q];
        int nh = G->s * (G->s + 1) / 2;
        for (int h = 0; h < nh; h++) w->K->x[w->hpos[G->h0 + h]] += w->hval[G->h0 + h];
    }
}

/* hval of group q: beta J_g' D_g J_g, upper pairs a <= b. */
static void group_hessian(canal_work *w, int q)
{
    const group *G = &w->g[q];
    const double *J = w->jg + G->j0, *D = w->dval + G->d0;
    double *H = w->hval + G->h0;
    int s = G->s, L = G->len, h = 0;
    for (int a = 0; a < s; a++) {
        double y[3] = {0.0, 0.0, 0.0}; /* (J_g[:, a])' D_g */
        for (int i = 0; i < L; i++)
            for (int j = 0; j < L; j++) y[j] += J[i * s + a] * D[i * L + j];
        for (int b = a; b < s; b++) {
            double acc = 0.0;
            for (int j = 0; j < L; j++) acc += y[j] * J[j * s + b];
            H[h++] = w->beta * acc;
        }
    }
}

static mcb_rc canal_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                          void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = canal_check(params, err);
    if (rc) return rc;
    if (P->form != MCB_PRIMAL)
        return mcb_fail(err, MCB_E_INPUT, "canal takes primal problems only");
    canal_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const canal_params *)params;
    w->n = P->n;
    w->m = P->m;
    size_t n1 = (size_t)P->n + 1, m1 = (size_t)P->m + 1;
    w->v = mcb_calloc(n1, sizeof(double));
    w->lam = mcb_calloc(m1, sizeof(double));
    w->lam_new = mcb_calloc(m1, sizeof(double));
    w->et = mcb_calloc(m1, sizeof(double));
    w->x = mcb_calloc(m1, sizeof(double));
    w->Jv = mcb_calloc(m1, sizeof(double));
    w->Av = mcb_calloc(n1, sizeof(double));
    w->JTl = mcb_calloc(n1, sizeof(double));
    w->r = mcb_calloc(n1, sizeof(double));
    w->d = mcb_calloc(n1, sizeof(double));
    w->Jd = mcb_calloc(m1, sizeof(double));
    w->Ad = mcb_calloc(n1, sizeof(double));
    mcb_csc *JT = mcb_csc_transpose(P->J);
    if (!w->v || !w->lam || !w->lam_new || !w->et || !w->x || !w->Jv || !w->Av || !w->JTl ||
        !w->r || !w->d || !w->Jd || !w->Ad || !JT)
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc) rc = build_groups(w, JT, err);
    if (!rc) rc = build_pattern(w, err);
    if (!rc) {
        /* the one symbolic analysis, with A alone in H's pattern */
        assemble(w);
        mcb_err fe;
        rc = mcb_chol_factor(w->K, &w->F, &fe);
        if (rc) rc = mcb_fail(err, rc, "canal: factorizing A: %.900s", fe.msg);
    }
    if (!rc) {
        double trW = 0.0;
        if (P->m > 0) {
            mcb_csc *G = mcb_chol_lsolve_sparse(w->F, JT); /* J A^-1 J' = G'G */
            if (!G) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
            for (int k = 0; G && k < mcb_csc_nnz(G); k++) trW += G->x[k] * G->x[k];
            mcb_csc_free(&G);
        }
        double wscale = trW > 0.0 ? P->m / trW : 1.0; /* 1 / mean diag(W) */
        w->beta = w->beta0 = w->prm.beta > 0.0 ? w->prm.beta : w->prm.beta_scale * wscale;
        w->beta_cap = w->prm.beta_max * wscale > w->beta0 ? w->prm.beta_max * wscale : w->beta0;
    }
    mcb_csc_free(&JT);
    if (rc) {
        canal_free((void **)&w);
        return rc;
    }
    w->nb = mcb_norm2(P->n, P->b);
    w->ne = mcb_norm2(P->m, P->e);
    if (s->warm_start) {
        if (P->v0) memcpy(w->v, P->v0, (size_t)P->n * sizeof(double));
        if (P->lambda0) memcpy(w->lam, P->lambda0, (size_t)P->m * sizeof(double));
    }
    /* z^0 = J v^0: e~^0 from it */
    mcb_csc_gaxpy(P->J, w->v, w->Jv);
    memcpy(w->et, P->e, (size_t)P->m * sizeof(double));
    for (int q = 0; q < w->ng; q++) {
        const group *G = &w->g[q];
        if (G->type != MCB_CONTACT) continue;
        int r = G->row;
        w->et[r] += G->mu * hypot(w->Jv[r + 1] + P->e[r + 1], w->Jv[r + 2] + P->e[r + 2]);
    }
    w->res_prev = INFINITY;
    *work = w;
    return MCB_OK;
}

/* ---- the Newton loop ---- */

/* At v: Jv, Av, x = lambda^l - beta (J v + e~), lambda_new = T(x), D, and
 * r = A v - b - J' lambda_new; returns ||r|| and its scale. */
static double eval_point(canal_work *w, double *scale)
{
    const mcb_problem *P = w->P;
    memset(w->Jv, 0, (size_t)w->m * sizeof(double));
    memset(w->Av, 0, (size_t)w->n * sizeof(double));
    memset(w->JTl, 0, (size_t)w->n * sizeof(double));
    mcb_csc_gaxpy(P->J, w->v, w->Jv);
    mcb_csc_gaxpy(P->A, w->v, w->Av);
    for (int i = 0; i < w->m; i++) w->x[i] = w->lam[i] - w->beta * (w->Jv[i] + w->et[i]);
#pragma omp parallel for schedule(static)
    for (int q = 0; q < w->ng; q++) {
        const group *G = &w->g[q];
        group_T(G, w->beta, w->x + G->row, P->e + G->row, w->lam_new + G->row, w->dval + G->d0);
    }
    mcb_csc_gatxpy(P->J, w->lam_new, w->JTl);
    for (int j = 0; j < w->n; j++) w->r[j] = w->Av[j] - P->b[j] - w->JTl[j];
    double s = w->nb, a = mcb_norm2(w->n, w->Av), l = mcb_norm2(w->n, w->JTl);
    if (a > s) s = a;
    if (l > s) s = l;
    *scale = s;
    return mcb_norm2(w->n, w->r);
}

/* phi'(alpha) = d' r(v + alpha d) and phi''(alpha), from x (at alpha = 0),
 * Jd and the scalars c0 = d'(Av - b), dAd = d'Ad. */
static void ls_eval(canal_work *w, double alpha, double c0, double dAd, double *g, double *gp)
{
    const mcb_problem *P = w->P;
    double s = c0 + alpha * dAd, s2 = dAd;
    for (int q = 0; q < w->ng; q++) {
        const group *G = &w->g[q];
        int r = G->row, L = G->len;
        double xa[3], l[3], D[9];
        for (int a = 0; a < L; a++) xa[a] = w->x[r + a] - alpha * w->beta * w->Jd[r + a];
        group_T(G, w->beta, xa, P->e + r, l, D);
        for (int a = 0; a < L; a++) {
            s -= w->Jd[r + a] * l[a];
            double Dj = 0.0;
            for (int b = 0; b < L; b++) Dj += D[a * L + b] * w->Jd[r + b];
            s2 += w->beta * w->Jd[r + a] * Dj;
        }
    }
    *g = s;
    *gp = s2;
    w->lsevals++;
}

/* Exact line search (26): the root of phi' on [0, inf) by rtsafe. Returns
 * alpha, or -1 when no bracket is found (phi' < 0 as far as 2^40). */
static double line_search(canal_work *w, double g0)
{
    const mcb_problem *P = w->P;
    double c0 = 0.0, dAd = 0.0;
    for (int j = 0; j < w->n; j++) {
        c0 += w->d[j] * (w->Av[j] - P->b[j]);
        dAd += w->d[j] * w->Ad[j];
    }
    double tol = w->prm.ls_tol * fabs(g0);
    double lo = 0.0, hi = 1.0, g, gp;
    ls_eval(w, 1.0, c0, dAd, &g, &gp);
    if (fabs(g) <= tol) return 1.0;
    int evals = 1;
    while (g < 0.0) { /* the minimizer lies beyond: grow the bracket */
        lo = hi;
        hi *= 2.0;
        if (hi > 1099511627776.0 || evals >= w->prm.ls_max) return -1.0;
        ls_eval(w, hi, c0, dAd, &g, &gp);
        evals++;
        if (fabs(g) <= tol) return hi;
    }
    /* phi'(lo) < 0 < phi'(hi): safeguarded Newton from the upper end */
    double a = hi, da_old = hi - lo, da = da_old;
    for (; evals < w->prm.ls_max; evals++) {
        double an = gp > 0.0 ? a - g / gp : lo - 1.0;
        if (an <= lo || an >= hi || fabs(2.0 * g) > fabs(da_old * gp)) {
            da_old = da;
            da = 0.5 * (hi - lo);
            an = lo + da;
        } else {
            da_old = da;
            da = a - an;
        }
        a = an;
        ls_eval(w, a, c0, dAd, &g, &gp);
        if (fabs(g) <= tol || hi - lo <= 1e-15 * hi) break;
        if (g < 0.0) lo = a;
        else hi = a;
    }
    return a;
}

/* The Newton loop of one AL loop; returns 0, or a status with info->reason. */
static int newton_loop(canal_work *w, mcb_info *info)
{
    double nr_prev = INFINITY;
    for (int k = 0;; k++) {
        double scale, nr = eval_point(w, &scale);
        if (!isfinite(nr)) {
            snprintf(info->reason, sizeof info->reason,
                     "non-finite Newton residual at AL loop %d", w->loops + 1);
            return MCB_ST_DIVERGED;
        }
        /* converged, at round-off (below sqrt(eps) and no longer halving:
         * the floor grows with beta), or out of steps */
        if (nr <= w->prm.newton_tol * scale || (nr <= 1.5e-8 * scale && nr > 0.5 * nr_prev) ||
            k >= w->prm.max_newton)
            return 0;
        nr_prev = nr;
#pragma omp parallel for schedule(static)
        for (int q = 0; q < w->ng; q++) group_hessian(w, q);
        assemble(w);
        mcb_err e;
        if (mcb_chol_refactor(w->F, w->K, &e)) {
            snprintf(info->reason, sizeof info->reason,
                     "Newton matrix A + beta J'DJ not factorized at AL loop %d (beta %.3g): %.200s",
                     w->loops + 1, w->beta, e.msg);
            return MCB_ST_DIVERGED;
        }
        if (mcb_chol_solve(w->F, w->r, w->d)) {
            snprintf(info->reason, sizeof info->reason, "CHOLMOD solve failed (out of memory)");
            return MCB_ST_DIVERGED;
        }
        for (int j = 0; j < w->n; j++) w->d[j] = -w->d[j];
        w->newton++;
        double g0 = mcb_dot(w->n, w->d, w->r);
        if (!(g0 < 0.0)) return 0; /* no descent left: round-off level */
        memset(w->Jd, 0, (size_t)w->m * sizeof(double));
        memset(w->Ad, 0, (size_t)w->n * sizeof(double));
        mcb_csc_gaxpy(w->P->J, w->d, w->Jd);
        mcb_csc_gaxpy(w->P->A, w->d, w->Ad);
        double alpha = line_search(w, g0);
        if (alpha < 0.0) {
            snprintf(info->reason, sizeof info->reason,
                     "line search found no minimum along the Newton direction at AL loop %d",
                     w->loops + 1);
            return MCB_ST_DIVERGED;
        }
        double moved = 0.0;
        for (int j = 0; j < w->n; j++) {
            double nv = w->v[j] + alpha * w->d[j];
            moved += nv != w->v[j];
            w->v[j] = nv;
        }
        if (moved == 0.0) return 0; /* the step vanished below round-off */
    }
}

/* After the Newton loop: ||Jv - z||, lambda^{l+1}, e~^{l+1}, beta (27). */
static double al_update(canal_work *w)
{
    const mcb_problem *P = w->P;
    double res = 0.0;
    for (int i = 0; i < w->m; i++) {
        double dl = w->lam_new[i] - w->lam[i];
        res += dl * dl;
    }
    res = sqrt(res) / w->beta;
    /* z = J v + (lambda^{l+1} - lambda^l) / beta; e~ = e + [mu ||(z + e)_t||, 0, 0] */
    for (int q = 0; q < w->ng; q++) {
        const group *G = &w->g[q];
        if (G->type != MCB_CONTACT) continue;
        int r = G->row;
        double u1 = w->Jv[r + 1] + (w->lam_new[r + 1] - w->lam[r + 1]) / w->beta + P->e[r + 1];
        double u2 = w->Jv[r + 2] + (w->lam_new[r + 2] - w->lam[r + 2]) / w->beta + P->e[r + 2];
        w->et[r] = P->e[r] + G->mu * hypot(u1, u2);
    }
    memcpy(w->lam, w->lam_new, (size_t)w->m * sizeof(double));
    return res;
}

static void count_reason(canal_work *w, mcb_info *info)
{
    size_t used = strlen(info->reason);
    snprintf(info->reason + used, sizeof info->reason - used,
             "%scanal: %d AL loops, %d Newton steps (%.2f per loop), %d line-search "
             "evaluations, beta %.3g (initial %.3g)",
             used ? "; " : "", w->loops, w->newton, w->loops ? (double)w->newton / w->loops : 0.0,
             w->lsevals, w->beta, w->beta0);
}

static int canal_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                       mcb_info *info)
{
    canal_work *w = work;
    int st = MCB_ST_MAX_ITERS;
    double beta_cap = w->beta_cap;
    for (int it = 1; it <= s->max_iters; it++) {
        int fail = newton_loop(w, info);
        if (fail) {
            st = fail;
            break;
        }
        double res = al_update(w);
        w->loops = it;
        info->iterations = it;
        info->own_residual = res;
        if (!isfinite(res)) {
            snprintf(info->reason, sizeof info->reason, "non-finite ||Jv - z|| at AL loop %d", it);
            st = MCB_ST_DIVERGED;
            break;
        }
        mcb_cb_action a = cb(ctx, it, res);
        if (a != MCB_CB_CONTINUE) {
            st = mcb_status_from_cb(a);
            break;
        }
        if (res <= w->prm.own_tol) {
            snprintf(info->reason, sizeof info->reason, "||Jv - z|| %.3g below own_tol", res);
            st = MCB_ST_STALLED;
            break;
        }
        /* (27): grow beta when the primal residual did not shrink by zeta */
        /* (Jv at lambda^{l+1}'s v: the velocity scale of the residual) */
        double vscale = mcb_norm2(w->m, w->Jv) + w->ne;
        int slow = res > w->prm.zeta * w->res_prev && res > 1e-13 * vscale;
        if (slow && w->beta < beta_cap) {
            w->beta = w->beta * w->prm.kappa < beta_cap ? w->beta * w->prm.kappa : beta_cap;
            w->stall = 0;
        } else if (w->beta >= beta_cap && res > 0.999 * w->res_prev &&
                   res > 1e-6 * vscale) {
            w->stall++;
        } else {
            w->stall = 0;
        }
        w->res_prev = res;
        if (w->prm.stall_loops > 0 && w->stall >= w->prm.stall_loops) {
            snprintf(info->reason, sizeof info->reason,
                     "||Jv - z|| stuck at %.3g for %d AL loops with beta at its cap %.3g "
                     "(infeasible constraints?)",
                     res, w->stall, w->beta);
            st = MCB_ST_STALLED;
            break;
        }
    }
    count_reason(w, info);
    return st;
}

static void canal_iterate(void *work, double *v, double *lambda)
{
    canal_work *w = work;
    memcpy(lambda, w->lam, (size_t)w->m * sizeof(double));
    if (v) memcpy(v, w->v, (size_t)w->n * sizeof(double));
}

const mcb_solver_def mcb_solver_canal = {
    .name = "canal",
    .accepts_problem = mcb_accepts_coulomb_only,
    .description = "cascaded Newton-based augmented Lagrangian: AL loops on a convex "
                   "surrogate (proximal cone operator, frozen De Saxce term) solved by Newton "
                   "with exact line search; sparse CHOLMOD refactorization of A + beta J'DJ",
    .reference = "CANAL/SubADMM paper Sec. IV-V, eq. (20)-(27), Alg. 1",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .params_size = sizeof(canal_params),
    .default_params = canal_defaults,
    .params = canal_desc,
    .nparams = (int)(sizeof canal_desc / sizeof canal_desc[0]),
    .check_params = canal_check,
    .setup = canal_setup,
    .solve = canal_solve,
    .iterate = canal_iterate,
    .free = canal_free,
};

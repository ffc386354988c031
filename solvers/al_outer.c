/* al_outer.c: the augmented-Lagrangian outer loop shared by canal and the
 * Table II baselines (CANAL paper Sec. IV-V; the interface and what is
 * shared: al_outer.h).
 *
 * One AL loop l: the solver's inner solve of the surrogate r(v) = 0 with
 *     r(v) = A v - b - J^T lambda(v),  lambda_g = T_g(x_g),
 *     x_g = lambda_g^l - beta (J_g v + e~_g),
 * then lambda^{l+1} = T(x(v^{l+1})), z^{l+1} = J v^{l+1} + (lambda^{l+1} -
 * lambda^l) / beta (eq. 12-13, u = -lambda), the primal residual
 * ||J v - z|| = ||lambda^{l+1} - lambda^l|| / beta (the solver's own
 * residual), e~^{l+1} from z^{l+1} (eq. 20; canal only), and the penalty
 * rule (27): beta <- min(kappa beta, beta_cap) when ||J v - z|| did not
 * shrink by zeta. An AL loop with beta at its cap and ||J v - z|| not
 * shrinking (by 0.1%) for stall_loops loops stops as stalled (infeasible
 * constraints). v is warm started across loops (Sec. V-D).
 *
 * The inner Jacobian's pattern (A united with every group's column set
 * squared; the upper triangle only for a symmetric solver) is built once,
 * with the position of every A entry and group pair in it; the first
 * factor of A in that pattern gives Tr(J A^-1 J^T) = ||L^-1 P J^T||_F^2 and
 * so the penalty unit wscale = m / Tr(J A^-1 J^T) (the inverse mean
 * Delassus diagonal). Per-group work runs under OpenMP (each group writes
 * its own slots; sums are serial: a fixed thread count gives identical
 * results). Allocation in mcb_al_outer_setup() only. */
#include "solvers/al_outer.h"
#include "lib/mcb_cone.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcb_al_params_default(al_params *p)
{
    p->beta = 0.0;
    p->beta_scale = 100.0;
    p->kappa = 10.0;
    p->beta_max = 1e3;
    p->zeta = 0.5;
    p->newton_tol = 1e-13;
    p->max_newton = 50;
    p->stall_loops = 10;
    p->own_tol = 0.0;
    p->fail_stop = 0;
}

int mcb_al_params_ok(const al_params *q)
{
    return q->beta >= 0.0 && q->beta_scale > 0.0 && q->kappa > 1.0 && q->beta_max > 0.0 &&
           q->zeta > 0.0 && q->zeta <= 1.0 && q->newton_tol >= 0.0 && q->max_newton >= 1 &&
           q->stall_loops >= 0 && q->own_tol >= 0.0 && (q->fail_stop == 0 || q->fail_stop == 1);
}

void mcb_al_outer_clear(al_outer *o)
{
    if (!o) return;
    free(o->g);
    free(o->cols);
    free(o->jg);
    free(o->hpos);
    free(o->hval);
    free(o->dval);
    mcb_csc_free(&o->K);
    free(o->apos);
    free(o->v);
    free(o->lam);
    free(o->lam_new);
    free(o->et);
    free(o->x);
    free(o->Jv);
    free(o->Av);
    free(o->JTl);
    free(o->r);
    memset(o, 0, sizeof *o);
}

void mcb_al_scalar_op(const al_group *G, double beta, const double *x, const double *e, double *l,
                  double *D)
{
    switch (G->type) {
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

void mcb_al_contact_stick(const double *x, double *l, double *D)
{
    l[0] = x[0];
    l[1] = x[1];
    l[2] = x[2];
    D[0] = D[4] = D[8] = 1.0;
}

/* ---- setup: groups, the fixed pattern of K, the penalty ---- */

/* Position of entry (i, j) in K (binary search in column j). */
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

/* group pairs stored per group: s^2 (full) or s (s + 1) / 2 (upper) */
static int npairs(const al_outer *o, int s) { return o->full ? s * s : s * (s + 1) / 2; }

/* Groups, their column sets and dense J_g, from J^T (column r = row r). */
static mcb_rc build_groups(al_outer *o, const mcb_csc *JT, mcb_err *err)
{
    const mcb_problem *P = o->P;
    int ng = 0;
    for (int b = 0; b < P->nblocks; b++)
        ng += P->blocks[b].type == MCB_CONTACT ? P->blocks[b].nrows / 3 : P->blocks[b].nrows;
    o->ng = ng;
    o->g = mcb_calloc((size_t)ng + 1, sizeof(al_group));
    if (!o->g) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int k = 0, nc = 0, nj = 0, nh = 0, nd = 0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int len = B->type == MCB_CONTACT ? 3 : 1;
        for (int r = B->row; r + len <= B->row + B->nrows; r += len, k++) {
            al_group *G = &o->g[k];
            G->row = r;
            G->len = len;
            G->type = B->type;
            G->mu = B->mu;
            G->k = B->k;
            G->alpha = B->alpha;
            for (int a = 0; a < len; a++) nc += JT->p[r + a + 1] - JT->p[r + a];
        }
    }
    o->cols = mcb_malloc((size_t)nc + 1, sizeof(int));
    if (!o->cols) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    /* the union of the rows' columns, sorted and unique, packed */
    int out = 0;
    for (int q = 0; q < ng; q++) {
        al_group *G = &o->g[q];
        int *c = o->cols + out, s = 0;
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
        nh += npairs(o, u);
        nd += G->len * G->len;
    }
    o->jg = mcb_calloc((size_t)nj + 1, sizeof(double));
    o->hpos = mcb_malloc((size_t)nh + 1, sizeof(int));
    o->hval = mcb_calloc((size_t)nh + 1, sizeof(double));
    o->dval = mcb_calloc((size_t)nd + 1, sizeof(double));
    if (!o->jg || !o->hpos || !o->hval || !o->dval)
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    /* dense J_g (len x s), row-major */
    for (int q = 0; q < ng; q++) {
        al_group *G = &o->g[q];
        const int *c = o->cols + G->c0;
        double *J = o->jg + G->j0;
        for (int a = 0; a < G->len; a++)
            for (int t = JT->p[G->row + a]; t < JT->p[G->row + a + 1]; t++) {
                int *hit = bsearch(&JT->i[t], c, (size_t)G->s, sizeof(int), cmp_int);
                J[a * G->s + (int)(hit - c)] += JT->x[t];
            }
    }
    return MCB_OK;
}

/* K's pattern (A and every group's column set squared; the upper triangle
 * only unless full), A's and the groups' positions in it. */
static mcb_rc build_pattern(al_outer *o, mcb_err *err)
{
    const mcb_csc *A = o->P->A;
    int n = o->n;
    long nt = 0;
    for (int j = 0; j < n; j++)
        for (int t = A->p[j]; t < A->p[j + 1]; t++) nt += o->full || A->i[t] <= j;
    for (int q = 0; q < o->ng; q++) nt += npairs(o, o->g[q].s);
    if (nt > 2147483647L)
        return mcb_fail(err, MCB_E_INPUT, "%s: inner Jacobian too large", o->name);
    int *ri = mcb_malloc((size_t)nt + 1, sizeof(int)), *ci = mcb_malloc((size_t)nt + 1, sizeof(int));
    double *xv = mcb_calloc((size_t)nt + 1, sizeof(double));
    o->apos = mcb_malloc((size_t)mcb_csc_nnz(A) + 1, sizeof(int));
    mcb_rc rc = MCB_OK;
    if (!ri || !ci || !xv || !o->apos) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    int t = 0;
    for (int j = 0; j < n; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++)
            if (o->full || A->i[k] <= j) {
                ri[t] = A->i[k];
                ci[t++] = j;
            }
    for (int q = 0; q < o->ng; q++) {
        const int *c = o->cols + o->g[q].c0;
        int s = o->g[q].s;
        for (int a = 0; a < s; a++)
            for (int b = o->full ? 0 : a; b < s; b++) {
                ri[t] = c[a]; /* sorted: c[a] <= c[b] in the upper case */
                ci[t++] = c[b];
            }
    }
    o->K = mcb_csc_from_triplets(n, n, t, ri, ci, xv);
    if (!o->K) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    for (int j = 0; j < n; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++)
            o->apos[k] = o->full || A->i[k] <= j ? kpos(o->K, A->i[k], j) : -1;
    for (int q = 0; q < o->ng; q++) {
        const al_group *G = &o->g[q];
        const int *c = o->cols + G->c0;
        int h = G->h0;
        for (int a = 0; a < G->s; a++)
            for (int b = o->full ? 0 : a; b < G->s; b++) o->hpos[h++] = kpos(o->K, c[a], c[b]);
    }
done:
    free(ri);
    free(ci);
    free(xv);
    return rc;
}

/* K = A + sum_g (the group products in hval): values only. */
static void assemble(al_outer *o)
{
    const mcb_csc *A = o->P->A;
    memset(o->K->x, 0, (size_t)mcb_csc_nnz(o->K) * sizeof(double));
    for (int k = 0; k < mcb_csc_nnz(A); k++)
        if (o->apos[k] >= 0) o->K->x[o->apos[k]] += A->x[k];
    for (int q = 0; q < o->ng; q++) {
        const al_group *G = &o->g[q];
        int nh = npairs(o, G->s);
        for (int h = 0; h < nh; h++) o->K->x[o->hpos[G->h0 + h]] += o->hval[G->h0 + h];
    }
}

/* hval of group q: beta J_g' D_g J_g, pairs (a, b) in the stored layout. */
static void group_block(al_outer *o, int q)
{
    const al_group *G = &o->g[q];
    const double *J = o->jg + G->j0, *D = o->dval + G->d0;
    double *H = o->hval + G->h0;
    int s = G->s, L = G->len, h = 0;
    for (int a = 0; a < s; a++) {
        double y[3] = {0.0, 0.0, 0.0}; /* (J_g[:, a])' D_g */
        for (int i = 0; i < L; i++)
            for (int j = 0; j < L; j++) y[j] += J[i * s + a] * D[i * L + j];
        for (int b = o->full ? 0 : a; b < s; b++) {
            double acc = 0.0;
            for (int j = 0; j < L; j++) acc += y[j] * J[j * s + b];
            H[h++] = o->beta * acc;
        }
    }
}

void mcb_al_jacobian(al_outer *o)
{
#pragma omp parallel for schedule(static)
    for (int q = 0; q < o->ng; q++) group_block(o, q);
    assemble(o);
}

/* e~ = e + [mu ||(z + e)_t||, 0, 0] on contacts (eq. 20); z = Jv + dl / beta
 * with dl = lam_new - lam (NULL: z = Jv). e~ = e when not perturbing. */
static void perturb_offset(al_outer *o, const double *lam_new)
{
    const mcb_problem *P = o->P;
    memcpy(o->et, P->e, (size_t)o->m * sizeof(double));
    if (!o->perturb) return;
    for (int q = 0; q < o->ng; q++) {
        const al_group *G = &o->g[q];
        if (G->type != MCB_CONTACT) continue;
        int r = G->row;
        double d1 = lam_new ? (lam_new[r + 1] - o->lam[r + 1]) / o->beta : 0.0;
        double d2 = lam_new ? (lam_new[r + 2] - o->lam[r + 2]) / o->beta : 0.0;
        double u1 = o->Jv[r + 1] + d1 + P->e[r + 1], u2 = o->Jv[r + 2] + d2 + P->e[r + 2];
        o->et[r] += G->mu * mcb_hypot(u1, u2);
    }
}

/* beta0 and its cap from the first factor F of A: Tr(J A^-1 J') = ||G||_F^2. */
static mcb_rc initial_penalty(al_outer *o, mcb_chol *F, const mcb_csc *JT, mcb_err *err)
{
    double trW = 0.0;
    if (o->m > 0) {
        mcb_csc *G = mcb_chol_lsolve_sparse(F, JT); /* J A^-1 J' = G'G */
        if (!G) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        for (int k = 0; k < mcb_csc_nnz(G); k++) trW += G->x[k] * G->x[k];
        mcb_csc_free(&G);
    }
    double wscale = trW > 0.0 ? o->m / trW : 1.0; /* 1 / mean diag(W) */
    o->beta = o->beta0 = o->prm.beta > 0.0 ? o->prm.beta : o->prm.beta_scale * wscale;
    o->beta_cap = o->prm.beta_max * wscale > o->beta0 ? o->prm.beta_max * wscale : o->beta0;
    return MCB_OK;
}

mcb_rc mcb_al_outer_setup(al_outer *o, const mcb_problem *P, const mcb_settings *s,
                      const al_params *prm, const char *name, al_op_fn T, int full, int perturb,
                      mcb_chol **F, mcb_err *err)
{
    memset(o, 0, sizeof *o);
    if (F) *F = NULL;
    if (!mcb_al_params_ok(prm)) return mcb_fail(err, MCB_E_INPUT, "%s: " AL_PARAM_RANGES, name);
    if (P->form != MCB_PRIMAL)
        return mcb_fail(err, MCB_E_INPUT, "%s takes primal problems only", name);
    o->P = P;
    o->prm = *prm;
    o->name = name;
    o->T = T;
    o->full = full;
    o->perturb = perturb;
    o->n = P->n;
    o->m = P->m;
    size_t n1 = (size_t)P->n + 1, m1 = (size_t)P->m + 1;
    o->v = mcb_calloc(n1, sizeof(double));
    o->lam = mcb_calloc(m1, sizeof(double));
    o->lam_new = mcb_calloc(m1, sizeof(double));
    o->et = mcb_calloc(m1, sizeof(double));
    o->x = mcb_calloc(m1, sizeof(double));
    o->Jv = mcb_calloc(m1, sizeof(double));
    o->Av = mcb_calloc(n1, sizeof(double));
    o->JTl = mcb_calloc(n1, sizeof(double));
    o->r = mcb_calloc(n1, sizeof(double));
    mcb_csc *JT = mcb_csc_transpose(P->J);
    mcb_chol *F0 = NULL;
    mcb_rc rc = MCB_OK;
    if (!o->v || !o->lam || !o->lam_new || !o->et || !o->x || !o->Jv || !o->Av || !o->JTl ||
        !o->r || !JT)
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc) rc = build_groups(o, JT, err);
    if (!rc) rc = build_pattern(o, err);
    if (!rc) {
        /* the one symbolic analysis (read: K's upper triangle), A alone */
        assemble(o);
        mcb_err fe;
        rc = mcb_chol_factor(o->K, &F0, &fe);
        if (rc) rc = mcb_fail(err, rc, "%s: factorizing A: %.900s", name, fe.msg);
    }
    if (!rc) rc = initial_penalty(o, F0, JT, err);
    mcb_csc_free(&JT);
    if (rc || !F) mcb_chol_free(&F0);
    if (rc) {
        mcb_al_outer_clear(o);
        return rc;
    }
    if (F) *F = F0;
    o->nb = mcb_norm2(P->n, P->b);
    o->ne = mcb_norm2(P->m, P->e);
    if (s->warm_start) {
        if (P->v0) memcpy(o->v, P->v0, (size_t)P->n * sizeof(double));
        if (P->lambda0) memcpy(o->lam, P->lambda0, (size_t)P->m * sizeof(double));
    }
    /* z^0 = J v^0: e~^0 from it */
    mcb_csc_gaxpy(P->J, o->v, o->Jv);
    perturb_offset(o, NULL);
    o->res_prev = INFINITY;
    return MCB_OK;
}

/* ---- the surrogate's residual and the inner stopping rule ---- */

double mcb_al_eval(al_outer *o, double *scale)
{
    const mcb_problem *P = o->P;
    memset(o->Jv, 0, (size_t)o->m * sizeof(double));
    memset(o->Av, 0, (size_t)o->n * sizeof(double));
    memset(o->JTl, 0, (size_t)o->n * sizeof(double));
    mcb_csc_gaxpy(P->J, o->v, o->Jv);
    mcb_csc_gaxpy(P->A, o->v, o->Av);
    for (int i = 0; i < o->m; i++) o->x[i] = o->lam[i] - o->beta * (o->Jv[i] + o->et[i]);
#pragma omp parallel for schedule(static)
    for (int q = 0; q < o->ng; q++) {
        const al_group *G = &o->g[q];
        o->T(G, o->beta, o->x + G->row, P->e + G->row, o->lam_new + G->row, o->dval + G->d0);
    }
    mcb_csc_gatxpy(P->J, o->lam_new, o->JTl);
    for (int j = 0; j < o->n; j++) o->r[j] = o->Av[j] - P->b[j] - o->JTl[j];
    double s = o->nb, a = mcb_norm2(o->n, o->Av), l = mcb_norm2(o->n, o->JTl);
    if (a > s) s = a;
    if (l > s) s = l;
    *scale = s;
    return mcb_norm2(o->n, o->r);
}

int mcb_al_inner_converged(const al_outer *o, double nr, double scale, double nr_prev)
{
    return nr <= o->prm.newton_tol * scale ||
           (mcb_al_inner_at_floor(nr, scale) && nr > 0.5 * nr_prev);
}

int mcb_al_inner_at_floor(double nr, double scale) { return nr <= 1.5e-8 * scale; }

/* ---- the AL loop ---- */

/* After the inner solve: ||Jv - z||, e~^{l+1}, lambda^{l+1}. */
static double multiplier_update(al_outer *o)
{
    double res = 0.0;
    for (int i = 0; i < o->m; i++) {
        double dl = o->lam_new[i] - o->lam[i];
        res += dl * dl;
    }
    res = sqrt(res) / o->beta;
    perturb_offset(o, o->lam_new);
    memcpy(o->lam, o->lam_new, (size_t)o->m * sizeof(double));
    return res;
}

/* (27): grow beta when ||Jv - z|| did not shrink by zeta; count the loops
 * without progress at the cap. Returns 1 when the stall rule stops. */
static int penalty_rule(al_outer *o, double res)
{
    /* (Jv at lambda^{l+1}'s v: the velocity scale of the residual) */
    double vscale = mcb_norm2(o->m, o->Jv) + o->ne;
    int slow = res > o->prm.zeta * o->res_prev && res > 1e-13 * vscale;
    if (slow && o->beta < o->beta_cap) {
        o->beta = o->beta * o->prm.kappa < o->beta_cap ? o->beta * o->prm.kappa : o->beta_cap;
        o->stall = 0;
    } else if (o->beta >= o->beta_cap && res > 0.999 * o->res_prev && res > 1e-6 * vscale) {
        o->stall++;
    } else {
        o->stall = 0;
    }
    o->res_prev = res;
    return o->prm.stall_loops > 0 && o->stall >= o->prm.stall_loops;
}

static void count_reason(const al_outer *o, mcb_info *info, const char *steps)
{
    size_t used = strlen(info->reason);
    snprintf(info->reason + used, sizeof info->reason - used,
             "%s%s: %d AL loops, %d %s (%.2f per loop), %d inner failures, beta %.3g "
             "(initial %.3g)",
             used ? "; " : "", o->name, o->loops, o->inner, steps,
             o->loops ? (double)o->inner / o->loops : 0.0, o->inner_fail, o->beta, o->beta0);
}

int mcb_al_outer_solve(al_outer *o, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                   mcb_info *info, al_inner_fn inner, void *work, const char *steps)
{
    int st = MCB_ST_MAX_ITERS;
    for (int it = 1; it <= s->max_iters; it++) {
        int rc = inner(work, o, info);
        info->inner_iterations = o->inner;
        if (rc > 0) {
            st = rc;
            break;
        }
        double res = multiplier_update(o);
        o->loops = it;
        info->iterations = it;
        info->own_residual = res;
        if (rc == AL_INNER_FAILED) {
            o->inner_fail++;
            if (o->prm.fail_stop) {
                snprintf(info->reason, sizeof info->reason,
                         "inner solve of AL loop %d ended above newton_tol (fail_stop)", it);
                st = MCB_ST_STALLED;
                break;
            }
        }
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
        if (res <= o->prm.own_tol) {
            snprintf(info->reason, sizeof info->reason, "||Jv - z|| %.3g below own_tol", res);
            st = MCB_ST_STALLED;
            break;
        }
        if (penalty_rule(o, res)) {
            snprintf(info->reason, sizeof info->reason,
                     "||Jv - z|| stuck at %.3g for %d AL loops with beta at its cap %.3g "
                     "(infeasible constraints?)",
                     res, o->stall, o->beta);
            st = MCB_ST_STALLED;
            break;
        }
    }
    info->inner_iterations = o->inner;
    count_reason(o, info, steps);
    return st;
}

void mcb_al_outer_iterate(const al_outer *o, double *v, double *lambda)
{
    memcpy(lambda, o->lam, (size_t)o->m * sizeof(double));
    if (v) memcpy(v, o->v, (size_t)o->n * sizeof(double));
}

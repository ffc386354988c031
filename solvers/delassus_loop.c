/* delassus_loop.c: what the impulse-iterating solvers share (see
 * delassus_loop.h): the iteration driver, the start, the Gauss-Seidel sweep
 * and the matrix-free operator. Allocates only in mcb_delassus_start() and
 * mcb_mf_build(); every failure is an mcb_rc with its message. */
#include "solvers/delassus_loop.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mcb_delassus_judge(int it, double change, double lnorm, double own_tol, mcb_iter_cb cb,
                       void *ctx, mcb_info *info)
{
    info->iterations = it;
    info->own_residual = change / (lnorm > 1.0 ? lnorm : 1.0);
    if (!isfinite(info->own_residual)) return MCB_ST_DIVERGED;
    mcb_cb_action a = cb(ctx, it, info->own_residual);
    if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
    if (info->own_residual <= own_tol) {
        /* own_tol = 0: only a sweep that changed nothing, a fixed point */
        snprintf(info->reason, sizeof info->reason,
                 own_tol > 0.0 ? "own residual %.3g at or below own_tol"
                               : "a sweep left lambda unchanged (own residual %.3g): a "
                                 "fixed point",
                 info->own_residual);
        return MCB_ST_STALLED;
    }
    return -1;
}

int mcb_delassus_loop(void *work, double (*step)(void *work), const double *(*lambda)(void *work),
                      int m, double own_tol, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                      mcb_info *info)
{
    for (int it = 1; it <= s->max_iters; it++) {
        double change = sqrt(step(work));
        int st = mcb_delassus_judge(it, change, mcb_norm2(m, lambda(work)), own_tol, cb, ctx, info);
        if (st >= 0) return st;
    }
    return MCB_ST_MAX_ITERS;
}

void mcb_delassus_iterate(mcb_delassus *D, const double *lambda_now, double *v, double *lambda)
{
    memcpy(lambda, lambda_now, (size_t)D->m * sizeof(double));
    if (v && D->P->form == MCB_PRIMAL) mcb_delassus_velocity(D, lambda_now, v);
}

mcb_rc mcb_delassus_start(const mcb_problem *P, const mcb_settings *s, mcb_delassus **D,
                          double **lambda, mcb_err *err)
{
    *D = NULL;
    *lambda = mcb_calloc((size_t)P->m, sizeof(double));
    if (!*lambda) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mcb_rc rc = mcb_delassus_build(P, D, err);
    if (rc) {
        free(*lambda);
        *lambda = NULL;
        return rc;
    }
    if (s->warm_start && P->lambda0) memcpy(*lambda, P->lambda0, (size_t)P->m * sizeof(double));
    return MCB_OK;
}

/* ---- the Gauss-Seidel sweep ---- */

static void delassus_rows(void *op, int r0, int len, const double *lambda, double *u)
{
    mcb_delassus_rows(op, r0, len, lambda, u);
}

mcb_gs_op mcb_gs_delassus(mcb_delassus *D)
{
    mcb_gs_op G = {delassus_rows, NULL, D, D->d, D->Wb};
    return G;
}

double mcb_gs_sweep(const mcb_problem *P, const mcb_gs_op *G, const int *order, double omega,
                    double *lambda)
{
    double change2 = 0.0, u[3], prev[3], delta[3];
    for (int k = 0; k < P->nblocks; k++) {
        const mcb_block *B = &P->blocks[order ? order[k] : k];
        int step = B->type == MCB_CONTACT ? 3 : 1;
        mcb_block one = *B;
        one.nrows = step;
        for (int r = B->row; r < B->row + B->nrows; r += step) {
            double *l = lambda + r;
            G->rows(G->op, r, step, lambda, u);
            memcpy(prev, l, (size_t)step * sizeof(double));
            mcb_block_step(&one, P->e ? P->e + r : NULL, prev, u, G->d + r,
                           G->Wb + 3 * (size_t)r, omega, l);
            for (int i = 0; i < step; i++) {
                delta[i] = l[i] - prev[i];
                change2 += delta[i] * delta[i];
            }
            if (G->push) G->push(G->op, r, step, delta);
        }
    }
    return change2;
}

/* ---- the matrix-free operator ---- */

int mcb_mf_accepts(const mcb_problem *P, char *reason, size_t len)
{
    if (!mcb_accepts_coulomb_only(P, reason, len)) return 0;
    if (P->form != MCB_PRIMAL) {
        snprintf(reason, len, "matrix-free: a dual problem has no J and A (W is given)");
        return 0;
    }
    int whole[2] = {0, P->n};
    int nsub = P->nsub > 0 && P->sub_start ? P->nsub : 1;
    const int *st = P->nsub > 0 && P->sub_start ? P->sub_start : whole;
    for (int s = 0; s < nsub; s++) {
        int a = st[s], b = st[s + 1];
        if (b - a > MCB_DELASSUS_DENSE_MAX) {
            snprintf(reason, len,
                     "matrix-free: subsystem %d has %d DOFs, more than the %d of the dense "
                     "per-subsystem factors",
                     s, b - a, MCB_DELASSUS_DENSE_MAX);
            return 0;
        }
        for (int j = a; j < b; j++)
            for (int k = P->A->p[j]; k < P->A->p[j + 1]; k++)
                if (P->A->i[k] < a || P->A->i[k] >= b) {
                    snprintf(reason, len,
                             "matrix-free: A couples subsystem %d (DOF %d) with DOF %d: not "
                             "block diagonal",
                             s, j, P->A->i[k]);
                    return 0;
                }
    }
    return 1;
}

void mcb_mf_free(mcb_mf **F)
{
    if (!F || !*F) return;
    mcb_mf *f = *F;
    mcb_csc_free(&f->JT);
    free(f->L);
    free(f->loff);
    free(f->sp);
    free(f->ssub);
    free(f->soff);
    free(f->Y);
    free(f->d);
    free(f->Wb);
    free(f->v);
    free(f->x);
    free(f->vw);
    free(f);
    *F = NULL;
}

/* The subsystem of DOF j (binary search over the starts). */
static int sub_of(const mcb_mf *F, int j)
{
    int lo = 0, hi = F->nsub - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (F->start[mid] <= j) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* W_ij = J_i . (A^-1 J_j^T), over row j's segments. */
static double mf_entry(const mcb_mf *F, int i, int j)
{
    double s = 0.0;
    for (int g = F->sp[j]; g < F->sp[j + 1]; g++) {
        int a = F->start[F->ssub[g]], b = F->start[F->ssub[g] + 1];
        const double *y = F->Y + F->soff[g];
        for (int k = F->JT->p[i]; k < F->JT->p[i + 1]; k++)
            if (F->JT->i[k] >= a && F->JT->i[k] < b) s += F->JT->x[k] * y[F->JT->i[k] - a];
    }
    return s;
}

/* Factors of the subsystems; non-zero rc on failure. */
static mcb_rc mf_factor(mcb_mf *F, mcb_err *err)
{
    const mcb_csc *A = F->P->A;
    size_t tot = 0;
    for (int s = 0; s < F->nsub; s++) {
        size_t ns = (size_t)(F->start[s + 1] - F->start[s]);
        F->loff[s] = tot;
        tot += ns * ns;
    }
    F->L = mcb_calloc(tot + 1, sizeof(double));
    if (!F->L) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int s = 0; s < F->nsub; s++) {
        int a = F->start[s], ns = F->start[s + 1] - a;
        double *l = F->L + F->loff[s];
        for (int j = a; j < a + ns; j++)
            for (int k = A->p[j]; k < A->p[j + 1]; k++)
                l[(A->i[k] - a) + (size_t)ns * (j - a)] = A->x[k];
        if (ns && mcb_dense_chol(ns, l))
            return mcb_fail(err, MCB_E_NUMERIC,
                            "matrix-free: the block of A of subsystem %d is not positive "
                            "definite",
                            s);
    }
    return MCB_OK;
}

/* Row r's segments (the subsystems its entries touch, ascending DOFs):
 * counted (fill 0) or filled with A_s^-1 J_{r,s}^T (fill 1). */
static void mf_segments(mcb_mf *F, int fill, size_t *nseg, size_t *ny)
{
    const mcb_csc *JT = F->JT;
    size_t g = 0, off = 0;
    for (int r = 0; r < JT->n; r++) {
        if (fill) F->sp[r] = (int)g;
        int k = JT->p[r];
        while (k < JT->p[r + 1]) {
            int s = sub_of(F, JT->i[k]);
            int a = F->start[s], b = F->start[s + 1];
            if (fill) {
                double *y = F->Y + off;
                F->ssub[g] = s;
                F->soff[g] = off;
                memset(y, 0, (size_t)(b - a) * sizeof(double));
                for (; k < JT->p[r + 1] && JT->i[k] < b; k++) y[JT->i[k] - a] = JT->x[k];
                mcb_dense_chol_solve(b - a, F->L + F->loff[s], y);
            } else {
                while (k < JT->p[r + 1] && JT->i[k] < b) k++;
            }
            g++;
            off += (size_t)(b - a);
        }
    }
    if (fill) F->sp[JT->n] = (int)g;
    *nseg = (size_t)g;
    *ny = off;
}

/* (W + diag(r))_ij: the compliant operator's entry, as mcb_delassus_build()
 * assembles it. */
static double mf_entry_r(const mcb_mf *F, int i, int j)
{
    return mf_entry(F, i, j) + (i == j ? mcb_problem_r(F->P, i) : 0.0);
}

/* The weights and 3x3 blocks, as mcb_delassus_build() defines them. */
static void mf_blocks(mcb_mf *F)
{
    const mcb_problem *P = F->P;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r = B->row;
        for (int k = 0; k < B->nrows; k++) F->d[r + k] = mf_entry_r(F, r + k, r + k);
        if (B->type == MCB_CONTACT) {
            double *wb = F->Wb + 3 * (size_t)r;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) wb[3 * i + j] = mf_entry_r(F, r + i, r + j);
            /* the tangential weight: largest eigenvalue of the symmetric 2x2 block */
            double a = F->d[r + 1], c = F->d[r + 2], off = 0.5 * (wb[5] + wb[7]);
            F->d[r + 1] = F->d[r + 2] = 0.5 * (a + c) + sqrt(0.25 * (a - c) * (a - c) + off * off);
        }
    }
    for (int r = 0; r < P->m; r++)
        if (!(F->d[r] > 0.0)) F->d[r] = INFINITY;
}

mcb_rc mcb_mf_build(const mcb_problem *P, mcb_mf **out, mcb_err *err)
{
    *out = NULL;
    char why[MCB_ERR_LEN];
    if (!mcb_mf_accepts(P, why, sizeof why)) return mcb_fail(err, MCB_E_INPUT, "%s", why);
    mcb_mf *F = calloc(1, sizeof *F);
    if (!F) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    F->P = P;
    F->whole[1] = P->n;
    F->nsub = P->nsub > 0 && P->sub_start ? P->nsub : 1;
    F->start = P->nsub > 0 && P->sub_start ? P->sub_start : F->whole;
    size_t m = (size_t)P->m, n = (size_t)P->n;
    F->JT = mcb_csc_transpose(P->J);
    F->loff = mcb_malloc((size_t)F->nsub, sizeof(size_t));
    F->sp = mcb_malloc(m + 1, sizeof(int));
    F->d = mcb_malloc(m + 1, sizeof(double));
    F->Wb = mcb_calloc(3 * m + 1, sizeof(double));
    F->v = mcb_calloc(n + 1, sizeof(double));
    F->vw = mcb_calloc(n + 1, sizeof(double));
    F->x = mcb_calloc(m + 1, sizeof(double));
    mcb_rc rc = MCB_E_NOMEM;
    if (!F->JT || !F->loff || !F->sp || !F->d || !F->Wb || !F->v || !F->vw || !F->x) goto fail;
    if ((rc = mf_factor(F, err))) goto fail;
    rc = MCB_E_NOMEM;
    size_t nseg, ny;
    mf_segments(F, 0, &nseg, &ny);
    F->ssub = mcb_malloc(nseg + 1, sizeof(int));
    F->soff = mcb_malloc(nseg + 1, sizeof(size_t));
    F->Y = mcb_malloc(ny + 1, sizeof(double));
    if (!F->ssub || !F->soff || !F->Y) goto fail;
    mf_segments(F, 1, &nseg, &ny);
    mf_blocks(F);
    *out = F;
    return MCB_OK;
fail:
    mcb_mf_free(&F);
    return rc == MCB_E_NOMEM ? mcb_fail(err, MCB_E_NOMEM, "out of memory (matrix-free operator)")
                             : rc;
}

void mcb_mf_velocity(const mcb_mf *F, const double *lambda, int with_b, double *v)
{
    const mcb_problem *P = F->P;
    const mcb_csc *J = P->J;
#pragma omp parallel for schedule(static)
    for (int s = 0; s < F->nsub; s++) {
        int a = F->start[s], b = F->start[s + 1];
        for (int j = a; j < b; j++) {
            double x = with_b ? P->b[j] : 0.0;
            for (int k = J->p[j]; k < J->p[j + 1]; k++) x += J->x[k] * lambda[J->i[k]];
            v[j] = x;
        }
        if (b > a) mcb_dense_chol_solve(b - a, F->L + F->loff[s], v + a);
    }
}

void mcb_mf_rows(const mcb_mf *F, int r0, int len, const double *v, int with_e, double *u)
{
    const mcb_csc *JT = F->JT;
    for (int r = r0; r < r0 + len; r++) {
        double s = with_e ? F->P->e[r] : 0.0;
        for (int k = JT->p[r]; k < JT->p[r + 1]; k++) s += JT->x[k] * v[JT->i[k]];
        u[r - r0] = s;
    }
}

void mcb_mf_push(const mcb_mf *F, int r0, int len, const double *delta, double *v)
{
    for (int r = r0; r < r0 + len; r++) {
        double dl = delta[r - r0];
        if (dl == 0.0) continue;
        for (int g = F->sp[r]; g < F->sp[r + 1]; g++) {
            int a = F->start[F->ssub[g]], ns = F->start[F->ssub[g] + 1] - a;
            const double *y = F->Y + F->soff[g];
            for (int i = 0; i < ns; i++) v[a + i] += y[i] * dl;
        }
    }
}

void mcb_mf_apply(mcb_mf *F, const double *x, double *y)
{
    mcb_mf_velocity(F, x, 0, F->vw);
    int m = F->P->m;
    const double *rc = F->P->r;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < m; r++) {
        mcb_mf_rows(F, r, 1, F->vw, 0, y + r);
        if (rc) y[r] += rc[r] * x[r];
    }
}

static void mf_rows_op(void *op, int r0, int len, const double *lambda, double *u)
{
    const mcb_mf *F = op;
    mcb_mf_rows(F, r0, len, F->v, 1, u); /* from the velocity kept current */
    if (F->P->r) /* the compliance: u = J v + e + r∘lambda */
        for (int r = r0; r < r0 + len; r++) u[r - r0] += F->P->r[r] * lambda[r];
}

static void mf_push_op(void *op, int r0, int len, const double *delta)
{
    mcb_mf *F = op;
    mcb_mf_push(F, r0, len, delta, F->v);
}

mcb_gs_op mcb_gs_mf(mcb_mf *F)
{
    mcb_gs_op G = {mf_rows_op, mf_push_op, F, F->d, F->Wb};
    return G;
}

/* x = w^-1 r for the 3x3 row-major w by Gaussian elimination with partial
 * pivoting; 0 when singular (x zero). */
static int solve3(const double *w, const double *r, double *x)
{
    double a[3][4];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) a[i][j] = w[3 * i + j];
        a[i][3] = r[i];
    }
    for (int c = 0; c < 3; c++) {
        int p = c;
        for (int i = c + 1; i < 3; i++)
            if (fabs(a[i][c]) > fabs(a[p][c])) p = i;
        if (!(fabs(a[p][c]) > 1e-300)) {
            x[0] = x[1] = x[2] = 0.0;
            return 0;
        }
        for (int j = 0; j < 4; j++) {
            double t = a[c][j];
            a[c][j] = a[p][j];
            a[p][j] = t;
        }
        for (int i = c + 1; i < 3; i++) {
            double f = a[i][c] / a[c][c];
            for (int j = c; j < 4; j++) a[i][j] -= f * a[c][j];
        }
    }
    for (int i = 2; i >= 0; i--) {
        double s = a[i][3];
        for (int j = i + 1; j < 3; j++) s -= a[i][j] * x[j];
        x[i] = s / a[i][i];
    }
    return 1;
}

void mcb_block_diag_solve(const mcb_problem *P, const double *d, const double *Wb,
                          const double *x, double *y)
{
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r = B->row;
        if (B->type == MCB_CONTACT && solve3(Wb + 3 * (size_t)r, x + r, y + r)) continue;
        for (int k = r; k < r + B->nrows; k++) y[k] = isfinite(d[k]) ? x[k] / d[k] : 0.0;
    }
}

/* mcb_delassus.c: sparse assembly of W = J A^-1 J^T and q = J A^-1 b + e,
 * per subsystem where A is block diagonal and by sparse-right-hand-side
 * triangular solves otherwise (see mcb_delassus.h), and the local
 * per-constraint step with the contacts' exact 3x3 blocks.
 *
 * Fails with MCB_E_NUMERIC (A not positive definite) or MCB_E_NOMEM; on
 * failure nothing is left allocated. Allocates W, W^T, q, the weights and
 * the 3x3 blocks (O(m + nnz(W))), the factor of A and, during assembly
 * only, the triplets of W and per-block dense work of at most
 * MCB_DELASSUS_DENSE_MAX x (rows touching one subsystem). */
#include "mcb_delassus.h"

#include "mcb_cone.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- triplets, summed into a sorted CSC matrix ---- */

typedef struct {
    int *r, *c;
    double *x;
    size_t n, cap;
} triplets;

static int trip_push(triplets *T, int r, int c, double x)
{
    if (T->n == T->cap) {
        size_t cap = T->cap ? 2 * T->cap : 1024;
        int *nr = realloc(T->r, cap * sizeof(int));
        if (nr) T->r = nr;
        int *nc = realloc(T->c, cap * sizeof(int));
        if (nc) T->c = nc;
        double *nx = realloc(T->x, cap * sizeof(double));
        if (nx) T->x = nx;
        if (!nr || !nc || !nx) return 1;
        T->cap = cap;
    }
    T->r[T->n] = r;
    T->c[T->n] = c;
    T->x[T->n] = x;
    T->n++;
    return 0;
}

static void trip_free(triplets *T)
{
    free(T->r);
    free(T->c);
    free(T->x);
    memset(T, 0, sizeof *T);
}

/* m x m CSC from triplets, duplicates summed in triplet order: a counting
 * sort by row, then a stable one by column (rows come out sorted). */
static mcb_csc *assemble(int m, const triplets *T)
{
    size_t nz = T->n;
    int *rp = mcb_calloc((size_t)m + 1, sizeof(int));
    int *next = mcb_malloc((size_t)m + 1, sizeof(int));
    size_t *byrow = mcb_malloc(nz, sizeof(size_t));
    mcb_csc *W = NULL;
    if (!rp || !next || !byrow) goto done;
    for (size_t k = 0; k < nz; k++) rp[T->r[k] + 1]++;
    for (int r = 0; r < m; r++) rp[r + 1] += rp[r];
    memcpy(next, rp, (size_t)m * sizeof(int));
    for (size_t k = 0; k < nz; k++) byrow[next[T->r[k]]++] = k;
    W = mcb_csc_alloc(m, m, (int)nz);
    if (!W) goto done;
    for (size_t k = 0; k < nz; k++) W->p[T->c[k] + 1]++;
    for (int c = 0; c < m; c++) W->p[c + 1] += W->p[c];
    memcpy(next, W->p, (size_t)m * sizeof(int));
    for (size_t q = 0; q < nz; q++) {
        size_t k = byrow[q];
        int pos = next[T->c[k]]++;
        W->i[pos] = T->r[k];
        W->x[pos] = T->x[k];
    }
    int out = 0;
    for (int c = 0; c < m; c++) {
        int lo = W->p[c], hi = W->p[c + 1];
        W->p[c] = out;
        for (int k = lo; k < hi; k++) {
            if (out > W->p[c] && W->i[out - 1] == W->i[k]) {
                W->x[out - 1] += W->x[k];
            } else {
                W->i[out] = W->i[k];
                W->x[out] = W->x[k];
                out++;
            }
        }
    }
    W->p[m] = out;
done:
    free(rp);
    free(next);
    free(byrow);
    return W;
}

/* ---- the dense per-subsystem path ---- */

/* In-place lower Cholesky of the n x n column-major a; non-zero when a
 * pivot is not positive. */
static int dense_chol(int n, double *a)
{
    for (int j = 0; j < n; j++) {
        double s = a[j + n * j];
        for (int k = 0; k < j; k++) s -= a[j + n * k] * a[j + n * k];
        if (!(s > 0.0)) return 1;
        double ljj = sqrt(s);
        a[j + n * j] = ljj;
        for (int i = j + 1; i < n; i++) {
            double t = a[i + n * j];
            for (int k = 0; k < j; k++) t -= a[i + n * k] * a[j + n * k];
            a[i + n * j] = t / ljj;
        }
    }
    return 0;
}

/* y = L^-1 y for the lower factor of dense_chol(). */
static void dense_lsolve(int n, const double *l, double *y)
{
    for (int j = 0; j < n; j++) {
        double yj = y[j] / l[j + n * j];
        y[j] = yj;
        for (int i = j + 1; i < n; i++) y[i] -= l[i + n * j] * yj;
    }
}

typedef struct {
    int *mark, *loc, *rows; /* m each */
    double *a, *y;          /* ns_max^2, ns_max * rs_max */
} dense_work;

/* Rows of J touching the DOFs [a, b): written to rows[], their count
 * returned; mark[] stamped with s, loc[] the local index. */
static int touching_rows(const mcb_csc *J, int a, int b, int s, dense_work *w)
{
    int rs = 0;
    for (int j = a; j < b; j++)
        for (int k = J->p[j]; k < J->p[j + 1]; k++) {
            int r = J->i[k];
            if (w->mark[r] != s) {
                w->mark[r] = s;
                w->loc[r] = rs;
                w->rows[rs++] = r;
            }
        }
    return rs;
}

/* J_s A_s^-1 J_s^T for the subsystem s = DOFs [a, b) as triplets: Y =
 * L_s^-1 J_s^T dense (ns x rs), then the rs x rs block Y^T Y (computed on
 * one triangle and mirrored: exactly symmetric). */
static mcb_rc dense_block(const mcb_problem *P, int s, int a, int b, dense_work *w,
                          triplets *T, mcb_err *err)
{
    int ns = b - a;
    int rs = touching_rows(P->J, a, b, s, w);
    if (rs == 0) return MCB_OK;
    memset(w->a, 0, (size_t)ns * (size_t)ns * sizeof(double));
    for (int j = a; j < b; j++)
        for (int k = P->A->p[j]; k < P->A->p[j + 1]; k++)
            w->a[(P->A->i[k] - a) + ns * (j - a)] = P->A->x[k];
    if (dense_chol(ns, w->a))
        return mcb_fail(err, MCB_E_NUMERIC,
                        "the block of A of subsystem %d (DOFs %d..%d) is not positive definite",
                        s, a, b - 1);
    memset(w->y, 0, (size_t)ns * (size_t)rs * sizeof(double));
    for (int j = a; j < b; j++)
        for (int k = P->J->p[j]; k < P->J->p[j + 1]; k++)
            w->y[(j - a) + ns * w->loc[P->J->i[k]]] = P->J->x[k];
    for (int c = 0; c < rs; c++) dense_lsolve(ns, w->a, w->y + (size_t)ns * c);
    for (int c = 0; c < rs; c++)
        for (int r = 0; r <= c; r++) {
            double v = mcb_dot(ns, w->y + (size_t)ns * r, w->y + (size_t)ns * c);
            if (trip_push(T, w->rows[r], w->rows[c], v)) return MCB_E_NOMEM;
            if (r != c && trip_push(T, w->rows[c], w->rows[r], v)) return MCB_E_NOMEM;
        }
    return MCB_OK;
}

/* 1 when no entry of A couples two subsystems (sub_of[] filled), else 0. */
static int block_diagonal(const mcb_problem *P, int *sub_of)
{
    if (P->nsub < 1 || !P->sub_start || P->sub_start[0] != 0 || P->sub_start[P->nsub] != P->n)
        return 0;
    for (int s = 0; s < P->nsub; s++)
        for (int j = P->sub_start[s]; j < P->sub_start[s + 1]; j++) sub_of[j] = s;
    for (int j = 0; j < P->n; j++)
        for (int k = P->A->p[j]; k < P->A->p[j + 1]; k++)
            if (sub_of[P->A->i[k]] != sub_of[j]) return 0;
    return 1;
}

/* The DOFs with big[j] != 0: G = L^-1 P J_big^T, W += G^T G as triplets. */
static mcb_rc sparse_part(const mcb_problem *P, mcb_chol *F, const unsigned char *big,
                          triplets *T)
{
    mcb_csc *JT = mcb_csc_transpose(P->J);
    if (!JT) return MCB_E_NOMEM;
    /* keep the entries on big DOFs (rows of J^T) */
    int out = 0;
    for (int c = 0; c < JT->n; c++) {
        int lo = JT->p[c], hi = JT->p[c + 1];
        JT->p[c] = out;
        for (int k = lo; k < hi; k++)
            if (big[JT->i[k]]) {
                JT->i[out] = JT->i[k];
                JT->x[out] = JT->x[k];
                out++;
            }
    }
    JT->p[JT->n] = out;
    mcb_csc *G = mcb_chol_lsolve_sparse(F, JT);
    mcb_csc_free(&JT);
    mcb_csc *GT = G ? mcb_csc_transpose(G) : NULL;
    mcb_csc *Wg = GT ? mcb_csc_multiply(GT, G) : NULL;
    mcb_csc_free(&G);
    mcb_csc_free(&GT);
    if (!Wg) return MCB_E_NOMEM;
    mcb_rc rc = MCB_OK;
    for (int c = 0; c < Wg->n && !rc; c++)
        for (int k = Wg->p[c]; k < Wg->p[c + 1]; k++)
            if (trip_push(T, Wg->i[k], c, Wg->x[k])) {
                rc = MCB_E_NOMEM;
                break;
            }
    mcb_csc_free(&Wg);
    return rc;
}

/* W of a primal problem (D->F already holds the factor of A). */
static mcb_rc assemble_primal(mcb_delassus *D, int dense_max, mcb_err *err)
{
    const mcb_problem *P = D->P;
    int n = P->n, m = P->m;
    triplets T = {0};
    dense_work w = {0};
    int *sub_of = mcb_malloc((size_t)n, sizeof(int));
    unsigned char *big = mcb_calloc((size_t)n, 1);
    w.mark = mcb_malloc((size_t)m, sizeof(int));
    w.loc = mcb_malloc((size_t)m, sizeof(int));
    w.rows = mcb_malloc((size_t)m, sizeof(int));
    mcb_rc rc = MCB_E_NOMEM;
    if (!sub_of || !big || !w.mark || !w.loc || !w.rows) goto done;
    for (int r = 0; r < m; r++) w.mark[r] = -1;
    D->blockwise = block_diagonal(P, sub_of);
    if (D->blockwise) {
        /* sizes of the dense work: the largest dense block and row count */
        int ns_max = 0, rs_max = 0;
        for (int s = 0; s < P->nsub; s++) {
            int a = P->sub_start[s], b = P->sub_start[s + 1];
            if (b - a > dense_max || b == a) continue;
            int rs = touching_rows(P->J, a, b, s, &w);
            if (b - a > ns_max) ns_max = b - a;
            if (rs > rs_max) rs_max = rs;
        }
        for (int r = 0; r < m; r++) w.mark[r] = -1;
        w.a = mcb_malloc((size_t)ns_max * (size_t)ns_max, sizeof(double));
        w.y = mcb_malloc((size_t)ns_max * (size_t)rs_max, sizeof(double));
        if (!w.a || !w.y) goto done;
        for (int s = 0; s < P->nsub; s++) {
            int a = P->sub_start[s], b = P->sub_start[s + 1];
            if (b - a > dense_max) {
                memset(big + a, 1, (size_t)(b - a));
                continue;
            }
            if (b == a) continue;
            rc = dense_block(P, s, a, b, &w, &T, err);
            if (rc) goto done;
            D->ndense++;
        }
    } else {
        memset(big, 1, (size_t)n);
    }
    for (int j = 0; j < n; j++) D->nsparse_dofs += big[j];
    rc = D->nsparse_dofs ? sparse_part(P, D->F, big, &T) : MCB_OK;
    if (rc) goto done;
    D->W = assemble(m, &T);
    rc = D->W ? MCB_OK : MCB_E_NOMEM;
done:
    if (rc == MCB_E_NOMEM)
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory assembling the Delassus operator");
    trip_free(&T);
    free(sub_of);
    free(big);
    free(w.mark);
    free(w.loc);
    free(w.rows);
    free(w.a);
    free(w.y);
    return rc;
}

/* ---- weights and blocks ---- */

static double entry(const mcb_csc *W, int i, int j)
{
    for (int k = W->p[j]; k < W->p[j + 1]; k++)
        if (W->i[k] == i) return W->x[k];
    return 0.0;
}

/* Lower Cholesky of the symmetric part of the 3x3 row-major w into l
 * (row-major, upper part zero); all zero when a pivot is <= 1e-12 of the
 * largest diagonal entry. */
static void chol3(const double *w, double *l)
{
    double s[9], dmax = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) s[3 * i + j] = 0.5 * (w[3 * i + j] + w[3 * j + i]);
    for (int i = 0; i < 3; i++)
        if (s[4 * i] > dmax) dmax = s[4 * i];
    memset(l, 0, 9 * sizeof(double));
    for (int j = 0; j < 3; j++) {
        double p = s[4 * j];
        for (int k = 0; k < j; k++) p -= l[3 * j + k] * l[3 * j + k];
        if (!(p > 1e-12 * dmax)) {
            memset(l, 0, 9 * sizeof(double));
            return;
        }
        l[4 * j] = sqrt(p);
        for (int i = j + 1; i < 3; i++) {
            double t = s[3 * i + j];
            for (int k = 0; k < j; k++) t -= l[3 * i + k] * l[3 * j + k];
            l[3 * i + j] = t / l[4 * j];
        }
    }
}

/* W^T, the per-row weights and the contacts' 3x3 blocks; non-zero on
 * allocation failure. */
static int finish(mcb_delassus *D)
{
    const mcb_problem *P = D->P;
    D->WT = mcb_csc_transpose(D->W);
    D->d = mcb_malloc((size_t)D->m, sizeof(double));
    D->Wb = mcb_calloc((size_t)D->m * 3, sizeof(double));
    D->Lb = mcb_calloc((size_t)D->m * 3, sizeof(double));
    if (!D->WT || !D->d || !D->Wb || !D->Lb) return 1;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r = B->row;
        for (int k = 0; k < B->nrows; k++) D->d[r + k] = entry(D->W, r + k, r + k);
        if (B->type == MCB_CONTACT) {
            double *wb = D->Wb + 3 * (size_t)r;
            for (int i = 0; i < 3; i++)
                for (int j = 0; j < 3; j++) wb[3 * i + j] = entry(D->W, r + i, r + j);
            chol3(wb, D->Lb + 3 * (size_t)r);
            /* largest eigenvalue of the symmetric part of the 2x2 tangential block */
            double a = D->d[r + 1], c = D->d[r + 2];
            double off = 0.5 * (wb[5] + wb[7]);
            double lmax = 0.5 * (a + c) + sqrt(0.25 * (a - c) * (a - c) + off * off);
            D->d[r + 1] = D->d[r + 2] = lmax;
        }
    }
    for (int r = 0; r < D->m; r++)
        if (!(D->d[r] > 0.0)) D->d[r] = INFINITY;
    return 0;
}

mcb_rc mcb_delassus_build_ex(const mcb_problem *P, int dense_max, mcb_delassus **out,
                             mcb_err *err)
{
    *out = NULL;
    mcb_delassus *D = calloc(1, sizeof *D);
    if (!D) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    D->P = P;
    D->m = P->m;
    D->q = mcb_malloc((size_t)P->m, sizeof(double));
    if (!D->q) goto nomem;
    if (P->form == MCB_DUAL) {
        if (!(D->W = mcb_csc_copy(P->W))) goto nomem;
        memcpy(D->q, P->q, (size_t)P->m * sizeof(double));
        if (finish(D)) goto nomem;
        *out = D;
        return MCB_OK;
    }
    mcb_rc rc = mcb_chol_factor(P->A, &D->F, err);
    if (!rc) rc = assemble_primal(D, dense_max, err);
    if (rc) {
        mcb_delassus_free(&D);
        return rc;
    }
    D->rhs = mcb_malloc((size_t)P->n, sizeof(double));
    if (!D->rhs) goto nomem;
    /* q = J A^-1 b + e */
    mcb_chol_solve(D->F, P->b, D->rhs);
    memcpy(D->q, P->e, (size_t)P->m * sizeof(double));
    mcb_csc_gaxpy(P->J, D->rhs, D->q);
    if (finish(D)) goto nomem;
    *out = D;
    return MCB_OK;
nomem:
    mcb_delassus_free(&D);
    return mcb_fail(err, MCB_E_NOMEM, "out of memory assembling the Delassus operator");
}

mcb_rc mcb_delassus_build(const mcb_problem *P, mcb_delassus **out, mcb_err *err)
{
    return mcb_delassus_build_ex(P, MCB_DELASSUS_DENSE_MAX, out, err);
}

mcb_rc mcb_delassus_velocity(mcb_delassus *D, const double *lambda, double *v)
{
    const mcb_problem *P = D->P;
    if (P->form != MCB_PRIMAL) return MCB_E_INPUT;
    memcpy(D->rhs, P->b, (size_t)P->n * sizeof(double));
    mcb_csc_gatxpy(P->J, lambda, D->rhs);
    return mcb_chol_solve(D->F, D->rhs, v);
}

void mcb_delassus_rows(const mcb_delassus *D, int r0, int len, const double *lambda,
                       double *u)
{
    const mcb_csc *WT = D->WT;
    for (int r = r0; r < r0 + len; r++) {
        double s = D->q[r];
        for (int k = WT->p[r]; k < WT->p[r + 1]; k++) s += WT->x[k] * lambda[WT->i[k]];
        u[r - r0] = s;
    }
}

/* ---- the local step ---- */

/* x = -w^-1 r for the 3x3 row-major w by Cramer's rule; 0 when w is
 * singular to 1e-12 relative (then x is untouched), 1 otherwise. */
static int stick3(const double *w, const double *r, double *x)
{
    double c0 = w[4] * w[8] - w[5] * w[7];
    double c1 = w[5] * w[6] - w[3] * w[8];
    double c2 = w[3] * w[7] - w[4] * w[6];
    double det = w[0] * c0 + w[1] * c1 + w[2] * c2;
    double scale = fabs(w[0]) + fabs(w[4]) + fabs(w[8]);
    if (!(fabs(det) > 1e-12 * scale * scale * scale)) return 0;
    /* inverse = adjugate / det; x = -inverse r */
    double inv[9] = {c0,
                     w[2] * w[7] - w[1] * w[8],
                     w[1] * w[5] - w[2] * w[4],
                     c1,
                     w[0] * w[8] - w[2] * w[6],
                     w[2] * w[3] - w[0] * w[5],
                     c2,
                     w[1] * w[6] - w[0] * w[7],
                     w[0] * w[4] - w[1] * w[3]};
    for (int i = 0; i < 3; i++)
        x[i] = -(inv[3 * i] * r[0] + inv[3 * i + 1] * r[1] + inv[3 * i + 2] * r[2]) / det;
    return 1;
}

/* The local contact problem u = w x + r (w the 3x3 block, row-major),
 * from x; see mcb_block_step(). In order: separation (x = 0 when r_n >= 0:
 * exact), sticking (x = -w^-1 r when it lies in the cone: exact), else
 * inner projected Gauss-Seidel steps between the normal row and the
 * tangential pair (strict operator) from x, at most MCB_LOCAL_ITERS. */
static void local_contact(double mu, const double *w, const double *d, const double *r,
                          double *x)
{
    if (r[0] >= 0.0) {
        x[0] = x[1] = x[2] = 0.0;
        return;
    }
    double xs[3];
    if (stick3(w, r, xs) && xs[0] >= 0.0 && hypot(xs[1], xs[2]) <= mu * xs[0]) {
        memcpy(x, xs, sizeof xs);
        return;
    }
    for (int it = 0; it < MCB_LOCAL_ITERS; it++) {
        double x0[3] = {x[0], x[1], x[2]};
        if (isfinite(d[0])) {
            double un = r[0] + w[0] * x[0] + w[1] * x[1] + w[2] * x[2];
            double xn = x[0] - un / d[0];
            x[0] = xn > 0.0 ? xn : 0.0;
        } else if (x[0] < 0.0) {
            x[0] = 0.0;
        }
        if (isfinite(d[1])) {
            double u1 = r[1] + w[3] * x[0] + w[4] * x[1] + w[5] * x[2];
            double u2 = r[2] + w[6] * x[0] + w[7] * x[1] + w[8] * x[2];
            x[1] -= u1 / d[1];
            x[2] -= u2 / d[1];
        }
        double rad = mu * x[0], nt = hypot(x[1], x[2]);
        if (nt > rad) {
            double s = nt > 0.0 ? rad / nt : 0.0;
            x[1] *= s;
            x[2] *= s;
        }
        double dx = 0.0, nx = 0.0;
        for (int k = 0; k < 3; k++) {
            dx += (x[k] - x0[k]) * (x[k] - x0[k]);
            nx += x[k] * x[k];
        }
        if (dx <= 1e-28 * nx) break;
    }
}

void mcb_block_step(const mcb_block *B, const double *e, const double *lambda, const double *u,
                    const double *d, const double *Wbb, double omega, double *out)
{
    switch (B->type) {
    case MCB_BILATERAL:
        for (int r = 0; r < B->nrows; r++) out[r] = lambda[r] - omega * u[r] / d[r];
        break;
    case MCB_UNILATERAL:
        for (int r = 0; r < B->nrows; r++) {
            double t = lambda[r] - omega * u[r] / d[r];
            out[r] = t > 0.0 ? t : 0.0;
        }
        break;
    case MCB_SOFT:
        for (int r = 0; r < B->nrows; r++) {
            /* u = d lambda + rest; lambda = -k (e + alpha (u - e)) solved for lambda */
            double rest = isfinite(d[r]) ? u[r] - d[r] * lambda[r] : u[r];
            double dd = isfinite(d[r]) ? d[r] : 0.0;
            double exact = -B->k * (e[r] + B->alpha * (rest - e[r])) / (1.0 + B->k * B->alpha * dd);
            out[r] = lambda[r] + omega * (exact - lambda[r]);
        }
        break;
    case MCB_CONTACT: {
        double rest[3], x[3], t[3];
        for (int i = 0; i < 3; i++)
            rest[i] = u[i] - (Wbb[3 * i] * lambda[0] + Wbb[3 * i + 1] * lambda[1] +
                              Wbb[3 * i + 2] * lambda[2]);
        memcpy(x, lambda, sizeof x);
        local_contact(B->mu, Wbb, d, rest, x);
        if (omega == 1.0) { /* x is in K already (the strict operator's clamp) */
            memcpy(out, x, sizeof x);
            break;
        }
        for (int i = 0; i < 3; i++) t[i] = lambda[i] + omega * (x[i] - lambda[i]);
        mcb_proj_cone(B->mu, t, out);
        break;
    }
    }
}

void mcb_delassus_block_solve(const mcb_delassus *D, const double *x, double *y)
{
    const mcb_problem *P = D->P;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r = B->row;
        const double *l = D->Lb + 3 * (size_t)r;
        if (B->type == MCB_CONTACT && l[0] > 0.0) {
            /* L L^T y = x: forward then backward substitution */
            double z0 = x[r] / l[0];
            double z1 = (x[r + 1] - l[3] * z0) / l[4];
            double z2 = (x[r + 2] - l[6] * z0 - l[7] * z1) / l[8];
            y[r + 2] = z2 / l[8];
            y[r + 1] = (z1 - l[7] * y[r + 2]) / l[4];
            y[r] = (z0 - l[3] * y[r + 1] - l[6] * y[r + 2]) / l[0];
            continue;
        }
        for (int k = r; k < r + B->nrows; k++) y[k] = isfinite(D->d[k]) ? x[k] / D->d[k] : 0.0;
    }
}

void mcb_delassus_free(mcb_delassus **D)
{
    if (!D || !*D) return;
    mcb_csc_free(&(*D)->WT);
    free((*D)->d);
    free((*D)->Wb);
    free((*D)->Lb);
    mcb_csc_free(&(*D)->W);
    free((*D)->q);
    mcb_chol_free(&(*D)->F);
    free((*D)->rhs);
    free(*D);
    *D = NULL;
}

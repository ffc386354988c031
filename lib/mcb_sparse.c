/* mcb_sparse.c: CSC matrix allocation, conversion and products. */
#include "lib/mcb_sparse.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

mcb_csc *mcb_csc_alloc(int m, int n, int nnz)
{
    if (m < 0 || n < 0 || nnz < 0) return NULL;
    mcb_csc *A = calloc(1, sizeof *A);
    if (!A) return NULL;
    A->m = m;
    A->n = n;
    A->p = mcb_calloc((size_t)n + 1, sizeof(int));
    A->i = mcb_malloc((size_t)nnz, sizeof(int));
    A->x = mcb_malloc((size_t)nnz, sizeof(double));
    if (!A->p || !A->i || !A->x) mcb_csc_free(&A);
    return A;
}

void mcb_csc_free(mcb_csc **A)
{
    if (!A || !*A) return;
    free((*A)->p);
    free((*A)->i);
    free((*A)->x);
    free(*A);
    *A = NULL;
}

int mcb_csc_nnz(const mcb_csc *A) { return A ? A->p[A->n] : 0; }

mcb_csc *mcb_csc_copy(const mcb_csc *A)
{
    if (!A) return NULL;
    int nnz = mcb_csc_nnz(A);
    mcb_csc *B = mcb_csc_alloc(A->m, A->n, nnz);
    if (!B) return NULL;
    memcpy(B->p, A->p, ((size_t)A->n + 1) * sizeof(int));
    if (nnz) {
        memcpy(B->i, A->i, (size_t)nnz * sizeof(int));
        memcpy(B->x, A->x, (size_t)nnz * sizeof(double));
    }
    return B;
}

/* Column counts -> pointers, then a stable scatter; a second pass sorts each
 * column by row (insertion sort: columns are short) and sums duplicates. */
mcb_csc *mcb_csc_from_triplets(int m, int n, int nz, const int *ri,
                               const int *ci, const double *x)
{
    for (int k = 0; k < nz; k++)
        if (ri[k] < 0 || ri[k] >= m || ci[k] < 0 || ci[k] >= n) return NULL;
    mcb_csc *A = mcb_csc_alloc(m, n, nz);
    int *next = mcb_calloc((size_t)n + 1, sizeof(int));
    if (!A || !next) {
        mcb_csc_free(&A);
        free(next);
        return NULL;
    }
    for (int k = 0; k < nz; k++) A->p[ci[k] + 1]++;
    for (int j = 0; j < n; j++) A->p[j + 1] += A->p[j];
    memcpy(next, A->p, (size_t)n * sizeof(int));
    for (int k = 0; k < nz; k++) {
        int pos = next[ci[k]]++;
        A->i[pos] = ri[k];
        A->x[pos] = x[k];
    }
    int out = 0;
    for (int j = 0; j < n; j++) {
        int lo = A->p[j], hi = A->p[j + 1];
        for (int a = lo + 1; a < hi; a++) {
            int r = A->i[a];
            double v = A->x[a];
            int b = a - 1;
            while (b >= lo && A->i[b] > r) {
                A->i[b + 1] = A->i[b];
                A->x[b + 1] = A->x[b];
                b--;
            }
            A->i[b + 1] = r;
            A->x[b + 1] = v;
        }
        A->p[j] = out;
        for (int a = lo; a < hi; a++) {
            if (out > A->p[j] && A->i[out - 1] == A->i[a]) {
                A->x[out - 1] += A->x[a];
            } else {
                A->i[out] = A->i[a];
                A->x[out] = A->x[a];
                out++;
            }
        }
    }
    A->p[n] = out;
    free(next);
    return A;
}

mcb_csc *mcb_csc_transpose(const mcb_csc *A)
{
    if (!A) return NULL;
    int nnz = mcb_csc_nnz(A);
    mcb_csc *T = mcb_csc_alloc(A->n, A->m, nnz);
    int *next = mcb_calloc((size_t)A->m + 1, sizeof(int));
    if (!T || !next) {
        mcb_csc_free(&T);
        free(next);
        return NULL;
    }
    for (int k = 0; k < nnz; k++) T->p[A->i[k] + 1]++;
    for (int r = 0; r < A->m; r++) T->p[r + 1] += T->p[r];
    memcpy(next, T->p, (size_t)A->m * sizeof(int));
    for (int j = 0; j < A->n; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++) {
            int pos = next[A->i[k]]++;
            T->i[pos] = j;
            T->x[pos] = A->x[k];
        }
    free(next);
    return T;
}

void mcb_csc_gaxpy(const mcb_csc *A, const double *x, double *y)
{
    for (int j = 0; j < A->n; j++) {
        double xj = x[j];
        if (xj == 0.0) continue;
        for (int k = A->p[j]; k < A->p[j + 1]; k++) y[A->i[k]] += A->x[k] * xj;
    }
}

void mcb_csc_gatxpy(const mcb_csc *A, const double *x, double *y)
{
    for (int j = 0; j < A->n; j++) {
        double s = 0.0;
        for (int k = A->p[j]; k < A->p[j + 1]; k++) s += A->x[k] * x[A->i[k]];
        y[j] += s;
    }
}

/* Looks up A_ij by binary search in column j (rows sorted). */
static double csc_get(const mcb_csc *A, int i, int j)
{
    int lo = A->p[j], hi = A->p[j + 1] - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (A->i[mid] == i) return A->x[mid];
        if (A->i[mid] < i) lo = mid + 1;
        else hi = mid - 1;
    }
    return 0.0;
}

double mcb_csc_asymmetry(const mcb_csc *A)
{
    double amax = 0.0, dmax = 0.0;
    for (int j = 0; j < A->n; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++) {
            double a = A->x[k];
            if (fabs(a) > amax) amax = fabs(a);
            double d = fabs(a - csc_get(A, j, A->i[k]));
            if (d > dmax) dmax = d;
        }
    return amax > 0.0 ? dmax / amax : 0.0;
}

mcb_csc *mcb_csc_block(const mcb_csc *A, int r0, int r1, int c0, int c1)
{
    int nnz = 0;
    for (int j = c0; j < c1; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++)
            if (A->i[k] >= r0 && A->i[k] < r1) nnz++;
    mcb_csc *B = mcb_csc_alloc(r1 - r0, c1 - c0, nnz);
    if (!B) return NULL;
    int out = 0;
    for (int j = c0; j < c1; j++) {
        B->p[j - c0] = out;
        for (int k = A->p[j]; k < A->p[j + 1]; k++)
            if (A->i[k] >= r0 && A->i[k] < r1) {
                B->i[out] = A->i[k] - r0;
                B->x[out++] = A->x[k];
            }
    }
    B->p[c1 - c0] = out;
    return B;
}

double mcb_dot(int n, const double *x, const double *y)
{
    double s = 0.0;
    for (int k = 0; k < n; k++) s += x[k] * y[k];
    return s;
}

double mcb_norm2(int n, const double *x)
{
    /* the plain sum of squares where it neither overflows nor underflows
     * (every sane iterate); scaled by the largest entry otherwise. Four
     * partial sums (entries k mod 4), added in a fixed order: the same
     * result for a given x on every run, without one long chain of
     * dependent additions. */
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int k = 0;
    for (; k + 3 < n; k += 4) {
        s0 += x[k] * x[k];
        s1 += x[k + 1] * x[k + 1];
        s2 += x[k + 2] * x[k + 2];
        s3 += x[k + 3] * x[k + 3];
    }
    for (; k < n; k++) s0 += x[k] * x[k];
    double s = (s0 + s1) + (s2 + s3);
    if (s < 1e300 && (s > 1e-300 || s == 0.0)) return sqrt(s);
    double scale = mcb_norm_inf(n, x);
    if (scale == 0.0 || !isfinite(scale)) return scale;
    double inv = 1.0 / scale;
    s = 0.0;
    for (int k = 0; k < n; k++) {
        double t = x[k] * inv;
        s += t * t;
    }
    return scale * sqrt(s);
}

double mcb_norm_inf(int n, const double *x)
{
    double m = 0.0;
    for (int k = 0; k < n; k++) {
        double a = fabs(x[k]);
        if (isnan(a)) return a;
        if (a > m) m = a;
    }
    return m;
}

int mcb_all_finite(int n, const double *x)
{
    for (int k = 0; k < n; k++)
        if (!isfinite(x[k])) return 0;
    return 1;
}

/* C = A B by Gustavson's algorithm, two passes (count, then fill), with
 * each column of C sorted by row. */
mcb_csc *mcb_csc_multiply(const mcb_csc *A, const mcb_csc *B)
{
    if (!A || !B || A->n != B->m) return NULL;
    int m = A->m, n = B->n;
    int *mark = mcb_malloc((size_t)m, sizeof(int));
    double *acc = mcb_calloc((size_t)m, sizeof(double));
    int *cp = mcb_calloc((size_t)n + 1, sizeof(int));
    mcb_csc *C = NULL;
    if (!mark || !acc || !cp) goto done;
    for (int r = 0; r < m; r++) mark[r] = -1;
    for (int j = 0; j < n; j++) {
        int cnt = 0;
        for (int kb = B->p[j]; kb < B->p[j + 1]; kb++) {
            int c = B->i[kb];
            for (int ka = A->p[c]; ka < A->p[c + 1]; ka++)
                if (mark[A->i[ka]] != j) {
                    mark[A->i[ka]] = j;
                    cnt++;
                }
        }
        cp[j + 1] = cp[j] + cnt;
    }
    C = mcb_csc_alloc(m, n, cp[n]);
    if (!C) goto done;
    memcpy(C->p, cp, ((size_t)n + 1) * sizeof(int));
    for (int r = 0; r < m; r++) mark[r] = -1;
    for (int j = 0; j < n; j++) {
        int out = C->p[j];
        for (int kb = B->p[j]; kb < B->p[j + 1]; kb++) {
            int c = B->i[kb];
            double bx = B->x[kb];
            for (int ka = A->p[c]; ka < A->p[c + 1]; ka++) {
                int r = A->i[ka];
                if (mark[r] != j) {
                    mark[r] = j;
                    C->i[out++] = r;
                    acc[r] = 0.0;
                }
                acc[r] += A->x[ka] * bx;
            }
        }
        /* sort the column's rows (insertion sort; columns are short) */
        for (int a = C->p[j] + 1; a < out; a++) {
            int r = C->i[a], b = a - 1;
            while (b >= C->p[j] && C->i[b] > r) {
                C->i[b + 1] = C->i[b];
                b--;
            }
            C->i[b + 1] = r;
        }
        for (int a = C->p[j]; a < out; a++) C->x[a] = acc[C->i[a]];
    }
done:
    free(mark);
    free(acc);
    free(cp);
    return C;
}

mcb_csc *mcb_csc_symmetric_part(const mcb_csc *A)
{
    if (!A || A->m != A->n) return NULL;
    int nz = mcb_csc_nnz(A), t = 0;
    int *ri = mcb_malloc(2 * (size_t)nz + 1, sizeof(int)), *ci = mcb_malloc(2 * (size_t)nz + 1, sizeof(int));
    double *x = mcb_malloc(2 * (size_t)nz + 1, sizeof(double));
    mcb_csc *S = NULL;
    if (ri && ci && x) {
        for (int j = 0; j < A->n; j++)
            for (int k = A->p[j]; k < A->p[j + 1]; k++) {
                ri[t] = A->i[k], ci[t] = j, x[t++] = 0.5 * A->x[k];
                ri[t] = j, ci[t] = A->i[k], x[t++] = 0.5 * A->x[k];
            }
        S = mcb_csc_from_triplets(A->m, A->n, t, ri, ci, x);
    }
    free(ri);
    free(ci);
    free(x);
    return S;
}

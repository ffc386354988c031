/* mcb_delassus.c: sparse assembly of W = J A^-1 J^T and q = J A^-1 b + e,
 * per subsystem where A is block diagonal and by sparse-right-hand-side
 * triangular solves otherwise (see mcb_delassus.h), and the local
 * per-constraint step with the contacts' exact 3x3 blocks.
 *
 * Fails with MCB_E_NUMERIC (A not positive definite) or MCB_E_NOMEM; on
 * failure nothing is left allocated. Allocates W, W^T, q, the weights and
 * the 3x3 blocks (O(m + nnz(W))), the factor of A and, during assembly
 * only, per-block dense work of at most
 * MCB_DELASSUS_DENSE_MAX x (rows touching one subsystem), the lists of
 * those rows and, for the sparse path, G and G^T G. W's pattern is built
 * first (integers only), then the per-subsystem blocks are added in place:
 * no triplets, no intermediate block storage. When G fills in (an A that
 * couples everything, such as a stiff cable's soft rows folded into it:
 * then W is dense and G^T G costs ~ n m^2), the sparse path takes
 * W = J (A^-1 J^T) instead, symmetrised exactly, at ~ nnz(A^-1 J^T) times
 * J's column counts.
 *
 * Per-row compliance r (mcb_problem.h) is folded in here, once, for every
 * solver that takes W from this file: W is built as W + diag(r), so the
 * weights, the 3x3 blocks, the local steps and mcb_delassus_rows() all see
 * the compliant operator u = (W + diag(r)) lambda + q. The velocity
 * A^-1 (b + J^T lambda) does not depend on r. */
#include "lib/mcb_delassus.h"
#include "lib/mcb_block_hd.h"

#include "lib/mcb_cone.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the dense per-subsystem path ---- */

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Ascending; nothing to do for a list already sorted (a column of W that
 * one subsystem touches: its rows come in ascending order), insertion sort
 * for the short lists (a few sorted runs), qsort beyond. */
static void sort_ints(int *v, int n)
{
    int sorted = 1;
    for (int a = 1; a < n && sorted; a++) sorted = v[a - 1] <= v[a];
    if (sorted) return;
    if (n > 64) {
        qsort(v, (size_t)n, sizeof(int), cmp_int);
        return;
    }
    for (int a = 1; a < n; a++) {
        int x = v[a], b = a - 1;
        while (b >= 0 && v[b] > x) {
            v[b + 1] = v[b];
            b--;
        }
        v[b + 1] = x;
    }
}

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
    double *a;              /* ns_max^2 */
    double *col;            /* rs_max */
} dense_work;

/* The rows of J touching each subsystem of the dense path: subsystem s's
 * r_s rows, ascending, at rows + off[s]. */
typedef struct {
    int *off;  /* nsub + 1 */
    int *rows; /* off[nsub] */
} sub_rows;

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

/* W += J_s A_s^-1 J_s^T for the subsystem s = DOFs [a, b), W's pattern
 * already in place (pattern()): Y = L_s^-1 J_s^T dense (ns x rs), then
 * the entries of Y^T Y, each computed once for both triangles (exactly
 * symmetric), added into the columns of the touching rows by a merge walk
 * (both row lists ascending). */
static mcb_rc dense_block(const mcb_problem *P, int s, int a, int b, dense_work *w,
                          const sub_rows *SR, double *y, mcb_csc *W, mcb_err *err)
{
    int ns = b - a;
    int rs = SR->off[s + 1] - SR->off[s];
    const int *rows = SR->rows + SR->off[s];
    if (rs == 0) return MCB_OK;
    for (int k = 0; k < rs; k++) w->loc[rows[k]] = k;
    memset(w->a, 0, (size_t)ns * (size_t)ns * sizeof(double));
    for (int j = a; j < b; j++)
        for (int k = P->A->p[j]; k < P->A->p[j + 1]; k++)
            w->a[(P->A->i[k] - a) + ns * (j - a)] = P->A->x[k];
    if (dense_chol(ns, w->a))
        return mcb_fail(err, MCB_E_NUMERIC,
                        "the block of A of subsystem %d (DOFs %d..%d) is not positive definite",
                        s, a, b - 1);
    memset(y, 0, (size_t)ns * (size_t)rs * sizeof(double));
    for (int j = a; j < b; j++)
        for (int k = P->J->p[j]; k < P->J->p[j + 1]; k++)
            y[(j - a) + ns * w->loc[P->J->i[k]]] = P->J->x[k];
    for (int c = 0; c < rs; c++) dense_lsolve(ns, w->a, y + (size_t)ns * c);
    for (int c = 0; c < rs; c++) {
        /* column c of the block; y_r . y_c = y_c . y_r exactly */
        for (int r = 0; r < rs; r++) w->col[r] = mcb_dot(ns, y + (size_t)ns * r, y + (size_t)ns * c);
        int col = rows[c], k = W->p[col], end = W->p[col + 1];
        for (int r = 0; r < rs; r++) {
            while (k < end && W->i[k] < rows[r]) k++;
            W->x[k] += w->col[r]; /* rows[r] is in the pattern of column rows[c] */
        }
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

/* Above this fill of G (its non-zeros over J's and m), W = J (A^-1 J^T). */
#define FILL_MAX 8

/* W = J X, X = A^-1 J^T by a sparse solve, made exactly symmetric as
 * (J X + (J X)^T) / 2 (each entry the sum of the same two halves). NULL on
 * allocation failure. */
static mcb_csc *coupled_part(mcb_chol *F, const mcb_csc *JT)
{
    mcb_csc *X = mcb_chol_spsolve(F, JT);
    mcb_csc *J = mcb_csc_transpose(JT);
    mcb_csc *JX = X && J ? mcb_csc_multiply(J, X) : NULL;
    mcb_csc_free(&X);
    mcb_csc_free(&J);
    if (!JX) return NULL;
    mcb_csc *W = mcb_csc_symmetric_part(JX);
    mcb_csc_free(&JX);
    return W;
}

/* Wg = G^T G, G = L^-1 P J_big^T, for the DOFs with big[j] != 0 (m x m,
 * rows unsorted, exactly symmetric: entry (r, c) and (c, r) sum the same
 * products in the same order). NULL on allocation failure. */
static mcb_csc *sparse_part(const mcb_problem *P, mcb_chol *F, const unsigned char *big,
                            int *coupled)
{
    mcb_csc *JT = mcb_csc_transpose(P->J);
    if (!JT) return NULL;
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
    if (G && mcb_csc_nnz(G) > FILL_MAX * (mcb_csc_nnz(JT) + P->m)) {
        /* G filled in (A couples everything, e.g. a stiff chain): G^T G
         * costs sum over G's rows of nnz^2 ~ n m^2; J (A^-1 J^T) costs
         * nnz(X) times J's column counts */
        mcb_csc_free(&G);
        *coupled = 1;
        mcb_csc *Wg = coupled_part(F, JT);
        mcb_csc_free(&JT);
        return Wg;
    }
    mcb_csc_free(&JT);
    mcb_csc *GT = G ? mcb_csc_transpose(G) : NULL;
    mcb_csc *Wg = GT ? mcb_csc_multiply(GT, G) : NULL;
    mcb_csc_free(&G);
    mcb_csc_free(&GT);
    return Wg;
}

/* W's pattern, column by column: column c is the union of the rows of the
 * dense subsystems touching row c of J and of column c of Wg, sorted; a
 * marker, sequential writes. W->x is zeroed. */
static mcb_csc *pattern(int m, int nsub, const sub_rows *SR, const mcb_csc *Wg)
{
    int R = nsub ? SR->off[nsub] : 0;
    /* an upper bound on nnz(W): sum of r_s^2 plus nnz(Wg) */
    size_t cap = (size_t)(Wg ? mcb_csc_nnz(Wg) : 0);
    for (int s = 0; s < nsub; s++) {
        size_t rs = (size_t)(SR->off[s + 1] - SR->off[s]);
        cap += rs * rs;
    }
    int *pp = mcb_calloc((size_t)m + 1, sizeof(int));
    int *ps = mcb_malloc((size_t)R, sizeof(int));
    int *next = mcb_malloc((size_t)m + 1, sizeof(int));
    int *mark = mcb_malloc((size_t)m + 1, sizeof(int));
    mcb_csc *W = NULL;
    if (!pp || !ps || !next || !mark || cap > (size_t)0x7fffffff) goto done;
    /* the subsystems touching every row */
    for (int k = 0; k < R; k++) pp[SR->rows[k] + 1]++;
    for (int r = 0; r < m; r++) pp[r + 1] += pp[r];
    memcpy(next, pp, (size_t)m * sizeof(int));
    for (int s = 0; s < nsub; s++)
        for (int k = SR->off[s]; k < SR->off[s + 1]; k++) ps[next[SR->rows[k]]++] = s;
    W = mcb_csc_alloc(m, m, (int)cap);
    if (!W) goto done;
    for (int r = 0; r < m; r++) mark[r] = -1;
    int out = 0;
    for (int c = 0; c < m; c++) {
        int start = out;
        for (int q = pp[c]; q < pp[c + 1]; q++)
            for (int k = SR->off[ps[q]]; k < SR->off[ps[q] + 1]; k++) {
                int r = SR->rows[k];
                if (mark[r] != c) {
                    mark[r] = c;
                    W->i[out++] = r;
                }
            }
        if (Wg)
            for (int k = Wg->p[c]; k < Wg->p[c + 1]; k++)
                if (mark[Wg->i[k]] != c) {
                    mark[Wg->i[k]] = c;
                    W->i[out++] = Wg->i[k];
                }
        sort_ints(W->i + start, out - start);
        W->p[c + 1] = out;
    }
    free(W->x);
    W->x = mcb_calloc((size_t)out, sizeof(double));
    if (!W->x) mcb_csc_free(&W);
done:
    free(pp);
    free(ps);
    free(next);
    free(mark);
    return W;
}

/* W += Wg (W's pattern holds Wg's), after the dense blocks: each entry's
 * sum has the same order as its transposed entry's. */
static void add_sparse(mcb_csc *W, const mcb_csc *Wg, int *pos)
{
    for (int c = 0; c < W->n; c++) {
        for (int k = W->p[c]; k < W->p[c + 1]; k++) pos[W->i[k]] = k;
        for (int k = Wg->p[c]; k < Wg->p[c + 1]; k++) W->x[pos[Wg->i[k]]] += Wg->x[k];
    }
}

/* W of a primal problem (D->F already holds the factor of A). */
static mcb_rc assemble_primal(mcb_delassus *D, int dense_max, mcb_err *err)
{
    const mcb_problem *P = D->P;
    int n = P->n, m = P->m;
    dense_work w = {0};
    sub_rows SR = {0};
    mcb_csc *Wg = NULL;
    double *y = NULL;
    int nsub = 0;
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
        nsub = P->nsub;
        SR.off = mcb_calloc((size_t)nsub + 1, sizeof(int));
        if (!SR.off) goto done;
        /* the touching rows' counts and the largest dense work */
        int ns_max = 0, rs_max = 0;
        size_t y_max = 0;
        for (int s = 0; s < nsub; s++) {
            int a = P->sub_start[s], b = P->sub_start[s + 1];
            int rs = 0;
            if (b - a > dense_max) memset(big + a, 1, (size_t)(b - a));
            else if (b > a) rs = touching_rows(P->J, a, b, s, &w);
            SR.off[s + 1] = SR.off[s] + rs;
            if (rs && b - a > ns_max) ns_max = b - a;
            if (rs > rs_max) rs_max = rs;
            if (rs && (size_t)rs * (size_t)(b - a) > y_max) y_max = (size_t)rs * (size_t)(b - a);
        }
        for (int r = 0; r < m; r++) w.mark[r] = -1;
        w.a = mcb_malloc((size_t)ns_max * (size_t)ns_max, sizeof(double));
        w.col = mcb_malloc((size_t)rs_max, sizeof(double));
        y = mcb_malloc(y_max, sizeof(double));
        SR.rows = mcb_malloc((size_t)SR.off[nsub], sizeof(int));
        if (!w.a || !w.col || !y || !SR.rows) goto done;
        for (int s = 0; s < nsub; s++) {
            int a = P->sub_start[s], b = P->sub_start[s + 1];
            if (SR.off[s + 1] == SR.off[s]) continue;
            touching_rows(P->J, a, b, s, &w);
            /* rows ascending (W's columns are then a few sorted runs) */
            memcpy(SR.rows + SR.off[s], w.rows, (size_t)(SR.off[s + 1] - SR.off[s]) * sizeof(int));
            sort_ints(SR.rows + SR.off[s], SR.off[s + 1] - SR.off[s]);
        }
    } else {
        memset(big, 1, (size_t)n);
    }
    for (int j = 0; j < n; j++) D->nsparse_dofs += big[j];
    if (D->nsparse_dofs && !(Wg = sparse_part(P, D->F, big, &D->coupled))) goto done;
    D->W = pattern(m, nsub, &SR, Wg);
    if (!D->W) goto done;
    for (int s = 0; s < nsub; s++) {
        int a = P->sub_start[s], b = P->sub_start[s + 1];
        if (SR.off[s + 1] == SR.off[s]) continue;
        rc = dense_block(P, s, a, b, &w, &SR, y, D->W, err);
        if (rc) goto done;
        D->ndense++;
    }
    if (Wg) add_sparse(D->W, Wg, w.loc);
    rc = MCB_OK;
done:
    if (rc == MCB_E_NOMEM)
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory assembling the Delassus operator");
    mcb_csc_free(&Wg);
    free(SR.off);
    free(SR.rows);
    free(y);
    free(sub_of);
    free(big);
    free(w.mark);
    free(w.loc);
    free(w.rows);
    free(w.a);
    free(w.col);
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
    /* a primal W is exactly symmetric by construction (see assemble()):
     * it is its own transpose */
    D->wt_is_w = D->P->form == MCB_PRIMAL;
    D->WT = D->wt_is_w ? D->W : mcb_csc_transpose(D->W);
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
        /* W + diag(r): a copy of W when the problem has no compliance */
        if (!(D->W = mcb_csc_add_diag(P->W, P->r))) goto nomem;
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
    if (mcb_problem_has_compliance(P)) { /* W + diag(r), still exactly symmetric */
        mcb_csc *S = mcb_csc_add_diag(D->W, P->r);
        if (!S) goto nomem;
        mcb_csc_free(&D->W);
        D->W = S;
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

void mcb_block_step(const mcb_block *B, const double *e, const double *lambda, const double *u,
                    const double *d, const double *Wbb, double omega, double *out)
{
    mcb_hd_block_step(B->type, B->nrows, B->mu, B->k, B->alpha, e, lambda, u, d, Wbb, omega, out);
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
    if (!(*D)->wt_is_w) mcb_csc_free(&(*D)->WT);
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

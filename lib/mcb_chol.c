/* mcb_chol.c: CHOLMOD wrapper. Allocates one cholmod_common, the symbolic
 * and numeric factor, and the dense work arrays reused by every solve; on
 * the first sparse-right-hand-side solve, a simplicial copy of L and the
 * inverse permutation (kept until the factor is freed or refactored).
 * The small dense Cholesky (mcb_dense_chol) allocates nothing. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "lib/mcb_chol.h"
#include "lib/mcb_hd.h"

#include <cholmod.h>
#include <dlfcn.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mcb_chol {
    cholmod_common c;
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E; /* solve2 work, reused */
    int n;
    mcb_csc *Lc; /* simplicial L (diagonal first in each column), lazily */
    int *pinv;   /* pinv[original DOF] = its position in L's order */
    double *work; /* n, for mcb_chol_solve_inplace (with Lc) */
};

/* A read-only cholmod_sparse view of A (no copy). stype = 1: CHOLMOD reads
 * only the upper triangle of a symmetric matrix; 0: unsymmetric. */
static cholmod_sparse view(const mcb_csc *A, int stype)
{
    cholmod_sparse s;
    memset(&s, 0, sizeof s);
    s.nrow = (size_t)A->m;
    s.ncol = (size_t)A->n;
    s.nzmax = (size_t)mcb_csc_nnz(A);
    s.p = A->p;
    s.i = A->i;
    s.x = A->x;
    s.stype = stype;
    s.itype = CHOLMOD_INT;
    s.xtype = CHOLMOD_REAL;
    s.dtype = CHOLMOD_DOUBLE;
    s.sorted = 1;
    s.packed = 1;
    return s;
}

static mcb_rc numeric(mcb_chol *F, const mcb_csc *A, mcb_err *err)
{
    cholmod_sparse s = view(A, 1);
    cholmod_factorize(&s, F->L, &F->c);
    if (F->c.status == CHOLMOD_NOT_POSDEF)
        return mcb_fail(err, MCB_E_NUMERIC,
                        "matrix is not positive definite (Cholesky failed at column %d of %d)",
                        (int)F->L->minor, F->n);
    if (F->c.status < CHOLMOD_OK)
        return mcb_fail(err, F->c.status == CHOLMOD_OUT_OF_MEMORY ? MCB_E_NOMEM : MCB_E_NUMERIC,
                        "CHOLMOD factorization failed (status %d)", F->c.status);
    return MCB_OK;
}

mcb_rc mcb_chol_factor(const mcb_csc *A, mcb_chol **out, mcb_err *err)
{
    *out = NULL;
    if (!A || A->m != A->n)
        return mcb_fail(err, MCB_E_INPUT, "Cholesky needs a square matrix");
    mcb_chol *F = calloc(1, sizeof *F);
    if (!F) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    cholmod_start(&F->c);
    F->c.print = 0;
    F->c.error_handler = NULL;
    F->c.quick_return_if_not_posdef = 1;
    F->c.final_ll = 1; /* LL': an indefinite matrix fails (LDL' would not) */
    F->n = A->n;
    cholmod_sparse s = view(A, 1);
    F->L = cholmod_analyze(&s, &F->c);
    if (!F->L) {
        mcb_chol_free(&F);
        return mcb_fail(err, MCB_E_NOMEM, "CHOLMOD analysis failed");
    }
    mcb_rc rc = numeric(F, A, err);
    if (rc) {
        mcb_chol_free(&F);
        return rc;
    }
    F->B = cholmod_zeros((size_t)F->n, 1, CHOLMOD_REAL, &F->c);
    if (!F->B) {
        mcb_chol_free(&F);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    *out = F;
    return MCB_OK;
}

mcb_rc mcb_chol_refactor(mcb_chol *F, const mcb_csc *A, mcb_err *err)
{
    mcb_csc_free(&F->Lc);
    free(F->pinv);
    F->pinv = NULL;
    free(F->work);
    F->work = NULL;
    return numeric(F, A, err);
}

mcb_rc mcb_chol_solve(mcb_chol *F, const double *b, double *x)
{
    if (F->n == 0) return MCB_OK;
    memcpy(F->B->x, b, (size_t)F->n * sizeof(double));
    if (!cholmod_solve2(CHOLMOD_A, F->L, F->B, NULL, &F->X, NULL, &F->Y, &F->E, &F->c))
        return MCB_E_NOMEM;
    memcpy(x, F->X->x, (size_t)F->n * sizeof(double));
    return MCB_OK;
}

mcb_csc *mcb_chol_spsolve(mcb_chol *F, const mcb_csc *B)
{
    cholmod_sparse s = view(B, 0);
    cholmod_sparse *X = cholmod_spsolve(CHOLMOD_A, F->L, &s, &F->c);
    if (!X) return NULL;
    /* spsolve output is packed but not always sorted */
    cholmod_sort(X, &F->c);
    int nnz = (int)((int *)X->p)[X->ncol];
    mcb_csc *R = mcb_csc_alloc((int)X->nrow, (int)X->ncol, nnz);
    if (R) {
        memcpy(R->p, X->p, (X->ncol + 1) * sizeof(int));
        memcpy(R->i, X->i, (size_t)nnz * sizeof(int));
        memcpy(R->x, X->x, (size_t)nnz * sizeof(double));
    }
    cholmod_free_sparse(&X, &F->c);
    return R;
}

/* F->Lc and F->pinv from a simplicial LL' copy of the factor; non-zero on
 * allocation failure. */
static int extract_l(mcb_chol *F)
{
    cholmod_factor *Lf = cholmod_copy_factor(F->L, &F->c);
    if (!Lf) return 1;
    cholmod_sparse *S = NULL;
    int ok = cholmod_change_factor(CHOLMOD_REAL, 1, 0, 1, 1, Lf, &F->c);
    F->pinv = mcb_malloc((size_t)F->n + 1, sizeof(int));
    if (ok && F->pinv) {
        const int *perm = Lf->Perm;
        for (int k = 0; k < F->n; k++) F->pinv[perm ? perm[k] : k] = k;
        S = cholmod_factor_to_sparse(Lf, &F->c);
    }
    cholmod_free_factor(&Lf, &F->c);
    if (!S) return 1;
    const int *Sp = S->p, *Si = S->i;
    const double *Sx = S->x;
    F->Lc = mcb_csc_alloc(F->n, F->n, Sp[F->n]);
    if (F->Lc) {
        mcb_csc *L = F->Lc;
        memcpy(L->p, Sp, ((size_t)F->n + 1) * sizeof(int));
        memcpy(L->i, Si, (size_t)Sp[F->n] * sizeof(int));
        memcpy(L->x, Sx, (size_t)Sp[F->n] * sizeof(double));
        /* the diagonal first in each column (CHOLMOD's simplicial layout;
         * moved there if a column had it elsewhere) */
        for (int j = 0; j < F->n; j++)
            for (int k = L->p[j]; k < L->p[j + 1]; k++)
                if (L->i[k] == j && k != L->p[j]) {
                    int t = L->i[L->p[j]];
                    double x = L->x[L->p[j]];
                    L->i[L->p[j]] = j;
                    L->x[L->p[j]] = L->x[k];
                    L->i[k] = t;
                    L->x[k] = x;
                }
    }
    cholmod_free_sparse(&S, &F->c);
    return F->Lc ? 0 : 1;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The reach of column c of B in the graph of L (edges j -> i for L_ij != 0,
 * i > j), by depth-first search; written to xi[top..n) in topological
 * order (every node before the nodes it updates). Returns top. */
static int reach(const mcb_csc *L, const mcb_csc *B, int c, const int *pinv, int *mark,
                 int *stack, int *pos, int *xi)
{
    int top = L->n;
    for (int kb = B->p[c]; kb < B->p[c + 1]; kb++) {
        int j0 = pinv[B->i[kb]];
        if (mark[j0] == c) continue;
        int head = 0;
        stack[0] = j0;
        mark[j0] = c;
        pos[j0] = L->p[j0];
        while (head >= 0) {
            int j = stack[head], k = pos[j], end = L->p[j + 1];
            while (k < end && mark[L->i[k]] == c) k++;
            pos[j] = k;
            if (k < end) {
                int i = L->i[k];
                mark[i] = c;
                pos[i] = L->p[i];
                stack[++head] = i;
            } else {
                head--;
                xi[--top] = j;
            }
        }
    }
    return top;
}

mcb_csc *mcb_chol_lsolve_sparse(mcb_chol *F, const mcb_csc *B)
{
    if (!F || !B || B->m != F->n) return NULL;
    if (!F->Lc && extract_l(F)) return NULL;
    const mcb_csc *L = F->Lc;
    int n = F->n, k = B->n;
    int *mark = mcb_malloc((size_t)n + 1, sizeof(int));
    int *stack = mcb_malloc((size_t)n + 1, sizeof(int));
    int *pos = mcb_malloc((size_t)n + 1, sizeof(int));
    int *xi = mcb_malloc((size_t)n + 1, sizeof(int));
    double *x = mcb_calloc((size_t)n + 1, sizeof(double));
    size_t cap = (size_t)mcb_csc_nnz(B) * 4 + 16;
    mcb_csc *G = mcb_csc_alloc(n, k, 0);
    int *gi = mcb_malloc(cap, sizeof(int));
    double *gx = mcb_malloc(cap, sizeof(double));
    if (!mark || !stack || !pos || !xi || !x || !G || !gi || !gx) goto fail;
    for (int j = 0; j < n; j++) mark[j] = -1;
    size_t nz = 0;
    for (int c = 0; c < k; c++) {
        int top = reach(L, B, c, F->pinv, mark, stack, pos, xi);
        for (int kb = B->p[c]; kb < B->p[c + 1]; kb++) x[F->pinv[B->i[kb]]] += B->x[kb];
        for (int p = top; p < n; p++) {
            int j = xi[p];
            double xj = x[j] / L->x[L->p[j]];
            x[j] = xj;
            for (int q = L->p[j] + 1; q < L->p[j + 1]; q++) x[L->i[q]] -= L->x[q] * xj;
        }
        size_t len = (size_t)(n - top);
        if (nz + len > cap) {
            while (nz + len > cap) cap *= 2;
            int *ni = realloc(gi, cap * sizeof(int));
            if (ni) gi = ni;
            double *nx = realloc(gx, cap * sizeof(double));
            if (nx) gx = nx;
            if (!ni || !nx) goto fail;
        }
        memcpy(gi + nz, xi + top, len * sizeof(int));
        qsort(gi + nz, len, sizeof(int), cmp_int);
        for (size_t p = nz; p < nz + len; p++) {
            gx[p] = x[gi[p]];
            x[gi[p]] = 0.0;
        }
        nz += len;
        G->p[c + 1] = (int)nz;
    }
    free(G->i);
    free(G->x);
    G->i = gi;
    G->x = gx;
    free(mark);
    free(stack);
    free(pos);
    free(xi);
    free(x);
    return G;
fail:
    free(mark);
    free(stack);
    free(pos);
    free(xi);
    free(x);
    free(gi);
    free(gx);
    mcb_csc_free(&G);
    return NULL;
}

mcb_rc mcb_chol_solve_inplace(mcb_chol *F, double *x)
{
    if (!F) return MCB_E_INPUT;
    if (F->n == 0) return MCB_OK;
    if (!F->Lc && extract_l(F)) return MCB_E_NOMEM;
    if (!F->work && !(F->work = mcb_malloc((size_t)F->n, sizeof(double)))) return MCB_E_NOMEM;
    const mcb_csc *L = F->Lc;
    const int *Lp = L->p, *Li = L->i;
    const double *Lx = L->x;
    double *y = F->work;
    int n = F->n;
    for (int i = 0; i < n; i++) y[F->pinv[i]] = x[i];
    for (int j = 0; j < n; j++) { /* L y = P x: diagonal first in each column */
        double yj = y[j] / Lx[Lp[j]];
        y[j] = yj;
        for (int k = Lp[j] + 1; k < Lp[j + 1]; k++) y[Li[k]] -= Lx[k] * yj;
    }
    for (int j = n - 1; j >= 0; j--) { /* L^T z = y */
        double t = y[j];
        for (int k = Lp[j] + 1; k < Lp[j + 1]; k++) t -= Lx[k] * y[Li[k]];
        y[j] = t / Lx[Lp[j]];
    }
    for (int i = 0; i < n; i++) x[i] = y[F->pinv[i]];
    return MCB_OK;
}

int mcb_chol_n(const mcb_chol *F) { return F ? F->n : 0; }

void mcb_chol_free(mcb_chol **F)
{
    if (!F || !*F) return;
    mcb_chol *f = *F;
    if (f->L) cholmod_free_factor(&f->L, &f->c);
    if (f->B) cholmod_free_dense(&f->B, &f->c);
    if (f->X) cholmod_free_dense(&f->X, &f->c);
    if (f->Y) cholmod_free_dense(&f->Y, &f->c);
    if (f->E) cholmod_free_dense(&f->E, &f->c);
    mcb_csc_free(&f->Lc);
    free(f->pinv);
    free(f->work);
    cholmod_finish(&f->c);
    free(f);
    *F = NULL;
}

mcb_rc mcb_dense_chol(int n, double *a)
{
    /* left-looking column Cholesky: column j of L from columns 0..j-1 */
    for (int j = 0; j < n; j++) {
        double *cj = a + (size_t)j * n;
        for (int k = 0; k < j; k++) {
            const double *ck = a + (size_t)k * n;
            double ljk = ck[j];
            for (int i = j; i < n; i++) cj[i] -= ljk * ck[i];
        }
        if (!(cj[j] > 0.0)) return MCB_E_NUMERIC; /* also NaN */
        double inv = 1.0 / sqrt(cj[j]);
        cj[j] = inv; /* stored inverted: the solves multiply */
        for (int i = j + 1; i < n; i++) cj[i] *= inv;
    }
    return MCB_OK;
}

/* The triangular solves are lib/mcb_hd.h's, shared with the GPU kernels. */
void mcb_dense_chol_solve(int n, const double *L, double *x) { mcb_hd_dense_chol_solve(n, L, x); }

void mcb_dense_chol_lsolve(int n, const double *L, double *x)
{
    if (n == 6) mcb_hd_dense_lsolve(6, L, x);
    else mcb_hd_dense_lsolve(n, L, x);
}

void mcb_dense_chol_ltsolve(int n, const double *L, double *x)
{
    if (n == 6) mcb_hd_dense_ltsolve(6, L, x);
    else mcb_hd_dense_ltsolve(n, L, x);
}

void mcb_blas_set_threads(int threads)
{
    void (*set)(int) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    memcpy(&set, &sym, sizeof set); /* object to function pointer, as POSIX allows */
    if (set) set(threads > 0 ? threads : 1);
}

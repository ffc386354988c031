/* mcb_chol.c: CHOLMOD wrapper. Allocates one cholmod_common, the symbolic
 * and numeric factor, and the dense work arrays reused by every solve. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "mcb_chol.h"

#include <cholmod.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

struct mcb_chol {
    cholmod_common c;
    cholmod_factor *L;
    cholmod_dense *B, *X, *Y, *E; /* solve2 work, reused */
    int n;
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
    cholmod_finish(&f->c);
    free(f);
    *F = NULL;
}

void mcb_blas_set_threads(int threads)
{
    void (*set)(int) = NULL;
    void *sym = dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
    memcpy(&set, &sym, sizeof set); /* object to function pointer, as POSIX allows */
    if (set) set(threads > 0 ? threads : 1);
}

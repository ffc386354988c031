/* mcb_lu.c: fixed-pattern sparse LU refactored in place, over KLU (see
 * mcb_lu.h). */
#include "mcb_lu.h"

#include <klu.h>
#include <stdlib.h>

struct mcb_lu {
    int n;
    klu_common c;
    klu_symbolic *sym;
    klu_numeric *num;
    double rcond_fresh; /* klu_rcond of the last fresh factorization */
    int fresh;          /* factorizations that chose pivots */
};

mcb_rc mcb_lu_analyze(const mcb_csc *K, mcb_lu **F, mcb_err *err)
{
    *F = NULL;
    if (!K || K->m != K->n) return mcb_fail(err, MCB_E_INPUT, "LU: the matrix is not square");
    mcb_lu *f = calloc(1, sizeof *f);
    if (!f) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    f->n = K->n;
    if (f->n == 0) { /* nothing to factor (a problem without constraint rows) */
        *F = f;
        return MCB_OK;
    }
    klu_defaults(&f->c);
    f->c.halt_if_singular = 1;
    /* klu's prototypes take non-const pattern arrays; it does not write them */
    f->sym = klu_analyze(K->n, (int *)K->p, (int *)K->i, &f->c);
    if (!f->sym) {
        int st = f->c.status;
        free(f);
        return mcb_fail(err, st == KLU_OUT_OF_MEMORY ? MCB_E_NOMEM : MCB_E_NUMERIC,
                        "LU: KLU symbolic analysis failed (status %d)", st);
    }
    *F = f;
    return MCB_OK;
}

/* A factorization that chooses its pivots (allocates the numeric factor). */
static int fresh(mcb_lu *F, const mcb_csc *K)
{
    if (F->num) klu_free_numeric(&F->num, &F->c);
    F->num = klu_factor((int *)K->p, (int *)K->i, K->x, F->sym, &F->c);
    F->fresh++;
    if (!F->num) return F->c.status == KLU_OUT_OF_MEMORY ? MCB_E_NOMEM : 1;
    if (F->c.status == KLU_SINGULAR) return 1; /* a warning: the factor exists */
    if (!klu_rcond(F->sym, F->num, &F->c) || !(F->c.rcond > 0.0)) return 1;
    F->rcond_fresh = F->c.rcond;
    return 0;
}

int mcb_lu_factor(mcb_lu *F, const mcb_csc *K)
{
    if (F->n == 0) return 0;
    if (!F->num) return fresh(F, K);
    if (klu_refactor((int *)K->p, (int *)K->i, K->x, F->sym, F->num, &F->c) &&
        klu_rcond(F->sym, F->num, &F->c) && F->c.rcond >= MCB_LU_REPIVOT * F->rcond_fresh)
        return 0;
    return fresh(F, K);
}

int mcb_lu_solve(mcb_lu *F, double *x)
{
    if (F->n == 0) return 0;
    if (!F->num) return 1;
    return klu_solve(F->sym, F->num, F->n, 1, x, &F->c) ? 0 : 1;
}

int mcb_lu_fresh_factorizations(const mcb_lu *F)
{
    return F ? F->fresh : 0;
}

void mcb_lu_free(mcb_lu **F)
{
    if (!F || !*F) return;
    mcb_lu *f = *F;
    if (f->num) klu_free_numeric(&f->num, &f->c);
    if (f->sym) klu_free_symbolic(&f->sym, &f->c);
    free(f);
    *F = NULL;
}

/* mcb_lu.c: fixed-pattern sparse LU, over KLU (refactored in place) or
 * UMFPACK (refactored with fresh pivots); see mcb_lu.h. */
#include "lib/mcb_lu.h"

#include <klu.h>
#include <stdlib.h>
#include <string.h>
#include <umfpack.h>

struct mcb_lu {
    int n;
    int kind;   /* mcb_lu_kind */
    int ok;     /* the last factorization succeeded: a solve may use it */
    int fresh;  /* factorizations that chose pivots */
    int nfact;  /* factorizations in all */
    /* KLU */
    klu_common c;
    klu_symbolic *sym;
    klu_numeric *num;
    double rcond_fresh; /* klu_rcond of the last fresh factorization */
    /* UMFPACK */
    double uctrl[UMFPACK_CONTROL], uinfo[UMFPACK_INFO];
    void *usym, *unum;
    int *wi;       /* n: umfpack_di_wsolve's integer work */
    double *wx;    /* n: its real work (no iterative refinement) */
    double *b;     /* n: the right-hand side (wsolve's X and B differ) */
};

const char *mcb_lu_kind_name(int kind)
{
    return kind == MCB_LU_KLU ? "klu" : kind == MCB_LU_UMFPACK ? "umfpack" : "?";
}

mcb_rc mcb_lu_check_kind(int kind, const char *solver, mcb_err *err)
{
    if (kind >= 0 && kind < MCB_LU_NKINDS) return MCB_OK;
    return mcb_fail(err, MCB_E_INPUT, "%s: lu = %d must be 0 (KLU) or 1 (UMFPACK)", solver, kind);
}

/* ---- analysis, one per backend ---- */

static mcb_rc klu_setup(mcb_lu *f, const mcb_csc *K, mcb_err *err)
{
    klu_defaults(&f->c);
    f->c.halt_if_singular = 1;
    /* klu's prototypes take non-const pattern arrays; it does not write them */
    f->sym = klu_analyze(K->n, (int *)K->p, (int *)K->i, &f->c);
    if (f->sym) return MCB_OK;
    int st = f->c.status;
    return mcb_fail(err, st == KLU_OUT_OF_MEMORY ? MCB_E_NOMEM : MCB_E_NUMERIC,
                    "LU: KLU symbolic analysis failed (status %d)", st);
}

static mcb_rc umf_setup(mcb_lu *f, const mcb_csc *K, mcb_err *err)
{
    size_t n = (size_t)K->n;
    f->wi = mcb_malloc(n, sizeof(int));
    f->wx = mcb_malloc(n, sizeof(double));
    f->b = mcb_malloc(n, sizeof(double));
    if (!f->wi || !f->wx || !f->b) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    umfpack_di_defaults(f->uctrl);
    /* a plain forward and back substitution, as KLU's: W is then n long and
     * the solve does not read the matrix (which the callers change) */
    f->uctrl[UMFPACK_IRSTEP] = 0;
    /* the pattern alone (Ax NULL): every stored entry counts as nonzero */
    int st = umfpack_di_symbolic(K->n, K->n, K->p, K->i, NULL, &f->usym, f->uctrl, f->uinfo);
    if (st == UMFPACK_OK) return MCB_OK;
    return mcb_fail(err, st == UMFPACK_ERROR_out_of_memory ? MCB_E_NOMEM : MCB_E_NUMERIC,
                    "LU: UMFPACK symbolic analysis failed (status %d)", st);
}

mcb_rc mcb_lu_analyze(const mcb_csc *K, int kind, mcb_lu **F, mcb_err *err)
{
    *F = NULL;
    if (!K || K->m != K->n) return mcb_fail(err, MCB_E_INPUT, "LU: the matrix is not square");
    if (kind < 0 || kind >= MCB_LU_NKINDS)
        return mcb_fail(err, MCB_E_INPUT, "LU: unknown backend %d (0 KLU, 1 UMFPACK)", kind);
    mcb_rc rc = MCB_OK;
    mcb_lu *f = calloc(1, sizeof *f);
    if (!f) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    f->n = K->n;
    f->kind = kind;
    /* n = 0: nothing to factor (a problem without constraint rows) */
    if (f->n > 0) rc = kind == MCB_LU_KLU ? klu_setup(f, K, err) : umf_setup(f, K, err);
    if (rc) {
        mcb_lu_free(&f);
        return rc;
    }
    *F = f;
    return MCB_OK;
}

/* ---- KLU: in place, new pivots when the old ones degrade ---- */

/* A factorization that chooses its pivots (allocates the numeric factor). */
static int klu_fresh(mcb_lu *F, const mcb_csc *K)
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

static int klu_refactor_or_fresh(mcb_lu *F, const mcb_csc *K)
{
    if (!F->num) return klu_fresh(F, K);
    if (klu_refactor((int *)K->p, (int *)K->i, K->x, F->sym, F->num, &F->c) &&
        klu_rcond(F->sym, F->num, &F->c) && F->c.rcond >= MCB_LU_REPIVOT * F->rcond_fresh)
        return 0;
    return klu_fresh(F, K);
}

/* ---- UMFPACK: fresh pivots every time, on the kept symbolic analysis ---- */

static int umf_factor(mcb_lu *F, const mcb_csc *K)
{
    if (F->unum) umfpack_di_free_numeric(&F->unum);
    int st = umfpack_di_numeric(K->p, K->i, K->x, F->usym, &F->unum, F->uctrl, F->uinfo);
    F->fresh++;
    if (st == UMFPACK_ERROR_out_of_memory) return MCB_E_NOMEM;
    /* UMFPACK_WARNING_singular_matrix: a factor with a zero pivot exists */
    if (st != UMFPACK_OK || !F->unum) return 1;
    return F->uinfo[UMFPACK_RCOND] > 0.0 ? 0 : 1; /* NaN entries: not > 0 */
}

int mcb_lu_factor(mcb_lu *F, const mcb_csc *K)
{
    if (F->n == 0) return 0;
    F->nfact++;
    int st = F->kind == MCB_LU_KLU ? klu_refactor_or_fresh(F, K) : umf_factor(F, K);
    F->ok = st == 0;
    return st;
}

int mcb_lu_solve(mcb_lu *F, double *x)
{
    if (F->n == 0) return 0;
    if (!F->ok) return 1;
    if (F->kind == MCB_LU_KLU) return klu_solve(F->sym, F->num, F->n, 1, x, &F->c) ? 0 : 1;
    memcpy(F->b, x, (size_t)F->n * sizeof(double));
    int st = umfpack_di_wsolve(UMFPACK_A, NULL, NULL, NULL, x, F->b, F->unum, F->uctrl, F->uinfo,
                               F->wi, F->wx);
    return st == UMFPACK_OK ? 0 : 1;
}

int mcb_lu_fresh_factorizations(const mcb_lu *F)
{
    return F ? F->fresh : 0;
}

int mcb_lu_factorizations(const mcb_lu *F)
{
    return F ? F->nfact : 0;
}

int mcb_lu_kind_of(const mcb_lu *F)
{
    return F ? F->kind : -1;
}

void mcb_lu_free(mcb_lu **F)
{
    if (!F || !*F) return;
    mcb_lu *f = *F;
    if (f->num) klu_free_numeric(&f->num, &f->c);
    if (f->sym) klu_free_symbolic(&f->sym, &f->c);
    if (f->unum) umfpack_di_free_numeric(&f->unum);
    if (f->usym) umfpack_di_free_symbolic(&f->usym);
    free(f->wi);
    free(f->wx);
    free(f->b);
    free(f);
    *F = NULL;
}

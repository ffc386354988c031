/* mcb_psd.c: psd_defect(W) by shifted sparse Cholesky factorizations
 * (mcb_psd.h): ||W||_2 by power iteration, then a bracket [lo, hi] of
 * relative shifts, W + lo ||W|| I failing and W + hi ||W|| I factoring,
 * narrowed by bisection on a log scale. The shifted copy S keeps W's
 * pattern plus a full diagonal, so every factorization after the first
 * successful one reuses its symbolic analysis. */
#include "lib/mcb_psd.h"

#include "lib/mcb_chol.h"
#include "lib/mcb_problem.h" /* mcb_csc_add_diag */
#include "lib/mcb_rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NORM_STEPS 100
#define NORM_RTOL 1e-6
#define NORM_SEED 20261127ULL
/* bisection stops when hi / lo <= BISECT_RATIO: sqrt(lo hi) within 5 % */
#define BISECT_RATIO 1.1
/* a refused W's bracket is searched upwards by factors of 10 up to this
 * (|lambda_min| <= ||W||_2, so 10 factors unless the norm estimate is far
 * off) */
#define SEARCH_MAX 1e3

double mcb_psd_norm(const mcb_csc *W)
{
    int n = W ? W->n : 0;
    if (n <= 0 || mcb_csc_nnz(W) == 0) return 0.0;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    double est = NAN;
    if (x && y) {
        mcb_rng r;
        mcb_rng_seed(&r, NORM_SEED);
        for (int i = 0; i < n; i++) x[i] = mcb_rng_uniform(&r) - 0.5;
        double nx = mcb_norm2(n, x);
        for (int i = 0; i < n; i++) x[i] /= nx;
        est = 0.0;
        for (int k = 0; k < NORM_STEPS; k++) {
            memset(y, 0, (size_t)n * sizeof *y);
            mcb_csc_gaxpy(W, x, y);
            double ny = mcb_norm2(n, y), prev = est;
            if (!(ny > 0)) break; /* x in W's null space */
            est = fmax(est, ny);
            for (int i = 0; i < n; i++) x[i] = y[i] / ny;
            if (k > 0 && fabs(ny - prev) <= NORM_RTOL * ny) break;
        }
    }
    free(x);
    free(y);
    return est;
}

/* The shifted copy S = W + s I and its factor (NULL until a factorization
 * succeeds: a failed first one leaves nothing to refactor). */
typedef struct {
    mcb_csc *S;
    int *diag;  /* diag[j]: index of S_jj in S->x */
    double *d0; /* W_jj (0 where W stores none) */
    double norm;
    mcb_chol *F;
    int count;
} shifted;

static void shifted_free(shifted *c)
{
    mcb_csc_free(&c->S);
    free(c->diag);
    free(c->d0);
    mcb_chol_free(&c->F);
}

static mcb_rc shifted_init(shifted *c, const mcb_csc *W, double norm, mcb_err *err)
{
    memset(c, 0, sizeof *c);
    c->norm = norm;
    int n = W->n;
    double *one = malloc((size_t)n * sizeof *one);
    c->diag = malloc((size_t)n * sizeof *c->diag);
    c->d0 = calloc((size_t)n, sizeof *c->d0);
    for (int j = 0; one && j < n; j++) one[j] = 1.0;
    c->S = one ? mcb_csc_add_diag(W, one) : NULL;
    free(one);
    if (!c->S || !c->diag || !c->d0) {
        shifted_free(c);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    for (int j = 0; j < n; j++) {
        for (int k = W->p[j]; k < W->p[j + 1]; k++)
            if (W->i[k] == j) c->d0[j] = W->x[k];
        for (int k = c->S->p[j]; k < c->S->p[j + 1]; k++)
            if (c->S->i[k] == j) c->diag[j] = k;
    }
    return MCB_OK;
}

/* *ok = 1 when W + s ||W|| I has a Cholesky factorization. */
static mcb_rc factors(shifted *c, double s, int *ok, mcb_err *err)
{
    for (int j = 0; j < c->S->n; j++) c->S->x[c->diag[j]] = c->d0[j] + s * c->norm;
    mcb_err ferr;
    mcb_rc rc = c->F ? mcb_chol_refactor(c->F, c->S, &ferr) : mcb_chol_factor(c->S, &c->F, &ferr);
    c->count++;
    *ok = rc == MCB_OK;
    if (rc == MCB_OK || (rc == MCB_E_NUMERIC && strstr(ferr.msg, "not positive definite")))
        return MCB_OK;
    return mcb_fail(err, rc, "%s", ferr.msg);
}

mcb_rc mcb_psd_measure(const mcb_csc *W, int full, mcb_psd *out, mcb_err *err)
{
    out->norm = out->defect = NAN;
    out->accepted = 0;
    out->factorizations = 0;
    if (!W || W->m != W->n || W->n <= 0)
        return mcb_fail(err, MCB_E_INPUT, "positive semidefiniteness: W must be square, m > 0");
    out->norm = mcb_psd_norm(W);
    if (isnan(out->norm)) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (out->norm == 0) { /* W = 0 */
        out->defect = 0;
        out->accepted = 1;
        return MCB_OK;
    }
    shifted c;
    mcb_rc rc = shifted_init(&c, W, out->norm, err);
    if (rc) return rc;
    int ok = 0;
    double lo = MCB_PSD_FLOOR, hi = MCB_PSD_TOL;
    if (full && !(rc = factors(&c, MCB_PSD_FLOOR, &ok, err)) && ok) {
        out->defect = 0;
        out->accepted = 1;
        goto done;
    }
    if (rc || (rc = factors(&c, MCB_PSD_TOL, &ok, err))) goto done;
    out->accepted = ok;
    if (ok && !full) goto done; /* accepted: the figure is not needed */
    if (!ok) { /* refused: a bracket above the allowance */
        for (lo = MCB_PSD_TOL, hi = 10 * lo;; lo = hi, hi *= 10) {
            if ((rc = factors(&c, hi, &ok, err))) goto done;
            if (ok) break;
            if (hi >= SEARCH_MAX) { /* the norm estimate is far off */
                out->defect = hi;
                goto done;
            }
        }
    }
    while (hi > BISECT_RATIO * lo) {
        double mid = sqrt(lo * hi);
        if ((rc = factors(&c, mid, &ok, err))) goto done;
        if (ok) hi = mid;
        else lo = mid;
    }
    out->defect = sqrt(lo * hi);
done:
    out->factorizations = c.count;
    shifted_free(&c);
    return rc;
}

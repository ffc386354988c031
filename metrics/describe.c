/* describe.c: a problem's difficulty descriptors (describe.h,
 * docs/describe.md).
 *
 * Each descriptor is one static helper: mu statistics (a sorted copy of the
 * contacts' mu), the mass ratio (A's or W's diagonal), cond(W) (Lanczos on
 * the operator W, never assembled), the rank (SuiteSparseQR on J^T or W).
 * Fails only on NULL arguments and out of memory; a descriptor that cannot
 * be computed is NaN or -1. Allocates per call: the Lanczos basis
 * ((steps + 1) x m doubles) and its work vectors, a CHOLMOD factor of A,
 * SuiteSparseQR's factor; all freed before returning. */
#include "metrics/describe.h"
#include "lib/mcb_order.h"

#include <SuiteSparseQR_C.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_chol.h"
#include "lib/mcb_psd.h"
#include "lib/mcb_rng.h"

#define DESC_SEED 20260101ull
#define DESC_STEPS 80
#define DESC_MAX_ROWS 60000
/* Ritz values below this fraction of lambda_max count as W's null space. */
#define DESC_ZERO_REL 1e-12

void mcb_describe_defaults(mcb_describe_opts *o)
{
    if (!o) return;
    o->lanczos_steps = DESC_STEPS;
    o->max_rows = DESC_MAX_ROWS;
    o->rank = 1;
    o->use_stored = 1;
}

/* ---------------------------------------------------------- mu statistics */

static mcb_rc mu_stats(const mcb_problem *P, mcb_descriptors *d, mcb_err *err)
{
    d->mu_min = d->mu_med = d->mu_max = NAN;
    if (d->contacts == 0) return MCB_OK;
    double *mu = mcb_malloc((size_t)d->contacts, sizeof(double));
    if (!mu) return mcb_fail(err, MCB_E_NOMEM, "describe: out of memory");
    int c = 0;
    for (int k = 0; k < P->nblocks; k++)
        if (mcb_is_contact(P->blocks[k].type)) mu[c++] = P->blocks[k].mu;
    mcb_sort_doubles(mu, (size_t)c);
    d->mu_min = mu[0];
    d->mu_max = mu[c - 1];
    d->mu_med = c % 2 ? mu[c / 2] : 0.5 * (mu[c / 2 - 1] + mu[c / 2]);
    free(mu);
    return MCB_OK;
}

/* ------------------------------------------------------------ mass ratio */

/* The diagonal entry (r, r) of a CSC matrix, 0 when absent. */
static double diag_entry(const mcb_csc *M, int r)
{
    for (int k = M->p[r]; k < M->p[r + 1]; k++)
        if (M->i[k] == r) return M->x[k];
    return 0.0;
}

/* Primal: per subsystem the largest diagonal entry of A (a body's mass,
 * or its largest inertia), the ratio of the largest to the smallest over
 * the subsystems (over the DOFs when there is one subsystem). Dual: the
 * ratio of the largest to the smallest positive diagonal entry of W over
 * the contacts' normal rows (all rows without contacts): an inverse
 * effective-mass ratio. */
static void mass_ratio(const mcb_problem *P, mcb_descriptors *d)
{
    double lo = INFINITY, hi = 0.0;
    if (P->form == MCB_PRIMAL && P->A) {
        int by_sub = P->nsub >= 2 && P->sub_start;
        int groups = by_sub ? P->nsub : P->n;
        for (int s = 0; s < groups; s++) {
            int c0 = by_sub ? P->sub_start[s] : s, c1 = by_sub ? P->sub_start[s + 1] : s + 1;
            double g = 0.0;
            for (int c = c0; c < c1; c++) g = fmax(g, diag_entry(P->A, c));
            if (g > 0.0) {
                lo = fmin(lo, g);
                hi = fmax(hi, g);
            }
        }
        d->mass_from = by_sub ? MCB_DESC_SUBSYS : MCB_DESC_DIAG;
    } else if (P->form == MCB_DUAL && P->W) {
        int any = d->contacts > 0;
        for (int k = 0; k < P->nblocks; k++) {
            const mcb_block *B = &P->blocks[k];
            if (any && !mcb_is_contact(B->type)) continue;
            int r1 = any ? B->row + 1 : B->row + B->nrows;
            for (int r = B->row; r < r1 && r < P->m; r++) {
                double g = diag_entry(P->W, r);
                if (g > 0.0) {
                    lo = fmin(lo, g);
                    hi = fmax(hi, g);
                }
            }
        }
        d->mass_from = MCB_DESC_DIAG;
    }
    if (hi > 0.0 && isfinite(lo)) {
        d->mass_ratio = hi / lo;
    } else {
        d->mass_ratio = NAN;
        d->mass_from = MCB_DESC_NONE;
    }
}

/* ------------------------------------------------------ cond(W), Lanczos */

typedef struct {
    const mcb_problem *P;
    mcb_chol *F; /* primal: the factor of A */
    double *t;   /* primal: n work entries */
    double *w2;  /* dual: m work entries for W^T x */
} w_op;

/* y = W x: J A^-1 J^T x (primal) or (W + W^T) x / 2 (dual). */
static void apply_w(const w_op *op, const double *x, double *y)
{
    const mcb_problem *P = op->P;
    memset(y, 0, (size_t)P->m * sizeof(double));
    if (P->form == MCB_PRIMAL) {
        memset(op->t, 0, (size_t)P->n * sizeof(double));
        mcb_csc_gatxpy(P->J, x, op->t);
        mcb_chol_solve(op->F, op->t, op->t);
        mcb_csc_gaxpy(P->J, op->t, y);
    } else {
        memset(op->w2, 0, (size_t)P->m * sizeof(double));
        mcb_csc_gaxpy(P->W, x, y);
        mcb_csc_gatxpy(P->W, x, op->w2);
        for (int i = 0; i < P->m; i++) y[i] = 0.5 * (y[i] + op->w2[i]);
    }
}

/* The start vector: uniforms in [-0.5, 0.5) from mcb_rng at the scene
 * engine's seed. */
static void start_vector(int m, double *x)
{
    mcb_rng rng;
    mcb_rng_seed(&rng, DESC_SEED);
    for (int i = 0; i < m; i++) x[i] = mcb_rng_uniform(&rng) - 0.5;
}

/* Eigenvalues of the k x k symmetric tridiagonal (a, b) below x (Sturm). */
static int sturm_count(const double *a, const double *b, int k, double x)
{
    int cnt = 0;
    double dd = 1.0;
    for (int i = 0; i < k; i++) {
        double bb = i > 0 ? b[i - 1] * b[i - 1] : 0.0;
        dd = a[i] - x - (i > 0 ? bb / dd : 0.0);
        if (dd == 0.0) dd = -1e-300;
        if (dd < 0.0) cnt++;
    }
    return cnt;
}

/* The (idx+1)-th smallest eigenvalue by bisection in [lo, hi]. */
static double tridiag_eig(const double *a, const double *b, int k, int idx, double lo, double hi)
{
    for (int it = 0; it < 200 && hi - lo > 1e-15 * (fabs(lo) + fabs(hi)); it++) {
        double mid = 0.5 * (lo + hi);
        if (sturm_count(a, b, k, mid) > idx) hi = mid;
        else lo = mid;
    }
    return 0.5 * (lo + hi);
}

/* x . y with four partial sums: the reorthogonalization's dot products
 * (K^2 of them per estimate) run at the speed of the memory, not of one
 * chain of additions. */
static double dot4(int m, const double *x, const double *y)
{
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int i = 0;
    for (; i + 4 <= m; i += 4) {
        s0 += x[i] * y[i];
        s1 += x[i + 1] * y[i + 1];
        s2 += x[i + 2] * y[i + 2];
        s3 += x[i + 3] * y[i + 3];
    }
    for (; i < m; i++) s0 += x[i] * y[i];
    return (s0 + s1) + (s2 + s3);
}

/* Runs at most K Lanczos steps from V[0] (normalized), full
 * reorthogonalization twice; returns the steps taken (the tridiagonal's
 * size), -1 on a non-finite value. */
static int lanczos(const w_op *op, int m, int K, double *V, double *al, double *be)
{
    int k = 0;
    double scale = 0.0;
    for (; k < K; k++) {
        double *vk = V + (size_t)k * m, *vn = V + (size_t)(k + 1) * m;
        apply_w(op, vk, vn);
        al[k] = mcb_dot(m, vk, vn);
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j <= k; j++) {
                double *vj = V + (size_t)j * m, c = dot4(m, vj, vn);
                for (int i = 0; i < m; i++) vn[i] -= c * vj[i];
            }
        double bn = mcb_norm2(m, vn);
        scale = fmax(scale, fabs(al[k]) + bn);
        if (!isfinite(bn) || !isfinite(al[k])) return -1;
        if (bn <= 1e-10 * scale) return k + 1; /* invariant subspace: exact */
        be[k] = bn;
        for (int i = 0; i < m; i++) vn[i] /= bn;
    }
    return k;
}

/* lambda_max / the smallest Ritz value above DESC_ZERO_REL lambda_max. */
static double ritz_ratio(const double *al, const double *be, int k)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < k; i++) {
        double r = (i > 0 ? fabs(be[i - 1]) : 0.0) + (i < k - 1 ? fabs(be[i]) : 0.0);
        lo = fmin(lo, al[i] - r);
        hi = fmax(hi, al[i] + r);
    }
    double lmax = tridiag_eig(al, be, k, k - 1, lo, hi);
    if (!(lmax > 0)) return NAN;
    double floor = DESC_ZERO_REL * lmax;
    int below = sturm_count(al, be, k, floor);
    if (below >= k) return NAN;
    return lmax / tridiag_eig(al, be, k, below, floor, hi);
}

double mcb_describe_cond(const mcb_problem *P, int steps, int *steps_taken)
{
    if (steps_taken) *steps_taken = 0;
    if (!P || P->m <= 0 || steps <= 0) return NAN;
    int primal = P->form == MCB_PRIMAL;
    if (primal ? (!P->A || !P->J || P->n <= 0) : !P->W) return NAN;
    int m = P->m, K = m < steps ? m : steps;
    w_op op = {P, NULL, NULL, NULL};
    mcb_err e;
    if (primal && mcb_chol_factor(P->A, &op.F, &e)) return NAN;
    double *V = mcb_malloc((size_t)m * (K + 1), sizeof(double));
    double *r = mcb_malloc((size_t)m, sizeof(double));
    double *al = mcb_calloc((size_t)K, sizeof(double)), *be = mcb_calloc((size_t)K, sizeof(double));
    if (primal) op.t = mcb_malloc((size_t)P->n, sizeof(double));
    else op.w2 = mcb_malloc((size_t)m, sizeof(double));
    double result = NAN;
    if (!V || !r || !al || !be || !(primal ? op.t : op.w2)) goto done;
    start_vector(m, r);
    apply_w(&op, r, V); /* start in W's range */
    double nv = mcb_norm2(m, V);
    if (!(nv > 0) || !isfinite(nv)) goto done;
    for (int i = 0; i < m; i++) V[i] /= nv;
    int k = lanczos(&op, m, K, V, al, be);
    if (k <= 0) goto done;
    if (steps_taken) *steps_taken = k;
    result = ritz_ratio(al, be, k);
done:
    mcb_chol_free(&op.F);
    free(V);
    free(r);
    free(al);
    free(be);
    free(op.t);
    free(op.w2);
    return result;
}

double mcb_describe_cond_default(const mcb_problem *P)
{
    return P && P->m <= DESC_MAX_ROWS ? mcb_describe_cond(P, DESC_STEPS, NULL) : NAN;
}

double mcb_problem_cond_estimate(const mcb_problem *P)
{
    return P && P->form == MCB_PRIMAL ? mcb_describe_cond_default(P) : NAN;
}

void mcb_describe_store_cond(mcb_problem *P)
{
    if (P && !isfinite(P->cond_est)) P->cond_est = mcb_describe_cond_default(P);
}

/* ------------------------------------------------------- rank, SPQR */

void mcb_describe_store(mcb_problem *P)
{
    mcb_describe_store_cond(P);
    if (!P || P->rank >= 0 || P->m > DESC_MAX_ROWS) return;
    P->rank = P->m == 0 ? 0 : mcb_describe_rank(P, &P->rank_tol);
    if (P->rank < 0) P->rank_tol = NAN;
}

/* A cholmod_l copy of M transposed (transpose = 1) or as is. */
static cholmod_sparse *to_cholmod_l(const mcb_csc *M, int transpose, cholmod_common *cc)
{
    mcb_csc *T = transpose ? mcb_csc_transpose(M) : NULL;
    const mcb_csc *S = transpose ? T : M;
    if (!S) return NULL;
    int nnz = mcb_csc_nnz(S);
    cholmod_sparse *A =
        cholmod_l_allocate_sparse((size_t)S->m, (size_t)S->n, (size_t)(nnz > 0 ? nnz : 1), 1, 1, 0,
                                  CHOLMOD_REAL, cc);
    if (A) {
        SuiteSparse_long *Ap = A->p, *Ai = A->i;
        double *Ax = A->x;
        for (int j = 0; j <= S->n; j++) Ap[j] = S->p[j];
        for (int k = 0; k < nnz; k++) {
            Ai[k] = S->i[k];
            Ax[k] = S->x[k];
        }
    }
    mcb_csc_free(&T);
    return A;
}

int mcb_describe_rank(const mcb_problem *P, double *tol)
{
    if (tol) *tol = NAN;
    if (!P || P->m <= 0) return -1;
    const mcb_csc *M = P->form == MCB_PRIMAL ? P->J : P->W;
    if (!M) return -1;
    cholmod_common cc;
    cholmod_l_start(&cc);
    cc.print = 0;
    cholmod_sparse *A = to_cholmod_l(M, P->form == MCB_PRIMAL, &cc);
    int rank = -1;
    if (A) {
        /* SPQR's default tolerance, computed here to be reported */
        double maxnorm = 0.0;
        const SuiteSparse_long *Ap = A->p;
        const double *Ax = A->x;
        for (size_t j = 0; j < A->ncol; j++) {
            double s = 0.0;
            for (SuiteSparse_long k = Ap[j]; k < Ap[j + 1]; k++) s += Ax[k] * Ax[k];
            maxnorm = fmax(maxnorm, sqrt(s));
        }
        double t = 20.0 * (double)(A->nrow + A->ncol) * DBL_EPSILON * maxnorm;
        cholmod_sparse *R = NULL;
        SuiteSparse_long *E = NULL;
        SuiteSparse_long r = SuiteSparseQR_C(SPQR_ORDERING_DEFAULT, t, 0, 0, A, NULL, NULL, NULL,
                                             NULL, &R, &E, NULL, NULL, NULL, &cc);
        if (r >= 0 && cc.status == CHOLMOD_OK) {
            rank = (int)r;
            if (tol) *tol = t;
        }
        cholmod_l_free_sparse(&R, &cc);
        if (E) cholmod_l_free(A->ncol, sizeof(SuiteSparse_long), E, &cc);
        cholmod_l_free_sparse(&A, &cc);
    }
    cholmod_l_finish(&cc);
    return rank;
}

/* --------------------------------------------------------------- all */

mcb_rc mcb_describe(const mcb_problem *P, const mcb_describe_opts *o, mcb_descriptors *d,
                    mcb_err *err)
{
    if (!P || !d) return mcb_fail(err, MCB_E_INPUT, "describe: no problem");
    mcb_describe_opts def;
    mcb_describe_defaults(&def);
    if (!o) o = &def;
    memset(d, 0, sizeof *d);
    d->form = P->form;
    d->n = P->form == MCB_PRIMAL ? P->n : 0;
    d->m = P->m;
    d->contacts = mcb_problem_contacts(P);
    d->nsub = P->form == MCB_PRIMAL ? P->nsub : 0;
    d->rows_per_dof = P->form == MCB_PRIMAL && P->n > 0 ? (double)P->m / P->n : NAN;
    mcb_rc rc = mu_stats(P, d, err);
    if (rc) return rc;

    if (o->use_stored && isfinite(P->mass_ratio)) {
        d->mass_ratio = P->mass_ratio;
        d->mass_from = MCB_DESC_STORED;
    } else {
        mass_ratio(P, d);
    }

    int small = P->m <= o->max_rows;
    d->cond_w = NAN;
    d->cond_from = MCB_DESC_NONE;
    if (o->use_stored && isfinite(P->cond_est)) {
        d->cond_w = P->cond_est;
        d->cond_from = MCB_DESC_STORED;
    } else if (small) {
        d->cond_w = mcb_describe_cond(P, o->lanczos_steps, &d->cond_steps);
        if (isfinite(d->cond_w)) d->cond_from = MCB_DESC_LANCZOS;
    }

    d->rank = d->rank_def = -1;
    d->rank_tol = NAN;
    d->rank_from = MCB_DESC_NONE;
    if (P->m == 0) {
        d->rank = d->rank_def = 0; /* no rows: nothing to be dependent */
    } else if (o->use_stored && P->rank >= 0) {
        d->rank = P->rank;
        d->rank_def = P->m - P->rank;
        d->rank_tol = P->rank_tol;
        d->rank_from = MCB_DESC_STORED;
    } else if (o->rank && small) {
        d->rank = mcb_describe_rank(P, &d->rank_tol);
        if (d->rank >= 0) {
            d->rank_def = P->m - d->rank;
            d->rank_from = MCB_DESC_SPQR;
        }
    }

    d->psd_defect = NAN;
    d->psd_from = MCB_DESC_NONE;
    if (P->form != MCB_DUAL || P->m == 0 || !P->W) {
        /* primal: J A^-1 J^T is positive semidefinite by construction */
    } else if (o->use_stored && !isnan(P->psd_defect)) {
        d->psd_defect = P->psd_defect;
        d->psd_from = MCB_DESC_STORED;
    } else if (small) {
        mcb_psd r;
        mcb_err perr;
        if ((rc = mcb_psd_measure(P->W, 1, &r, &perr)) == MCB_E_NOMEM)
            return mcb_fail(err, rc, "describe: %s", perr.msg);
        if (!rc) {
            d->psd_defect = r.defect;
            d->psd_from = MCB_DESC_CHOLESKY;
        }
    }
    return MCB_OK;
}

/* ---------------------------------------------------------------- CSV */

const char *mcb_describe_csv_header(void)
{
    return "form,n,m,contacts,subsystems,rows_per_dof,rank,rank_def,rank_tol,mu_min,mu_med,"
           "mu_max,cond_w,cond_from,cond_steps,mass_ratio,mass_from,psd_defect,psd_from";
}

/* A number, or nothing for NaN / a negative "unknown" integer. */
static size_t put_num(char *buf, size_t len, size_t at, double x)
{
    if (at >= len) return at;
    int w = isfinite(x) ? snprintf(buf + at, len - at, ",%.10g", x) : snprintf(buf + at, len - at, ",");
    return w > 0 ? at + (size_t)w : at;
}

char *mcb_describe_csv_row(const mcb_descriptors *d, char *buf, size_t len)
{
    if (!buf || len == 0) return buf;
    buf[0] = '\0';
    if (!d) return buf;
    int w = snprintf(buf, len, "%s,%d,%d,%d,%d", mcb_form_name(d->form), d->n, d->m, d->contacts,
                     d->nsub);
    size_t at = w > 0 ? (size_t)w : 0;
    at = put_num(buf, len, at, d->rows_per_dof);
    at = put_num(buf, len, at, d->rank >= 0 ? d->rank : NAN);
    at = put_num(buf, len, at, d->rank_def >= 0 ? d->rank_def : NAN);
    at = put_num(buf, len, at, d->rank_tol);
    at = put_num(buf, len, at, d->mu_min);
    at = put_num(buf, len, at, d->mu_med);
    at = put_num(buf, len, at, d->mu_max);
    at = put_num(buf, len, at, d->cond_w);
    if (at < len) at += (size_t)snprintf(buf + at, len - at, ",%s", mcb_desc_from_name(d->cond_from));
    at = put_num(buf, len, at, d->cond_steps);
    at = put_num(buf, len, at, d->mass_ratio);
    if (at < len)
        at += (size_t)snprintf(buf + at, len - at, ",%s", mcb_desc_from_name(d->mass_from));
    at = put_num(buf, len, at, d->psd_defect);
    if (at < len) snprintf(buf + at, len - at, ",%s", mcb_desc_from_name(d->psd_from));
    return buf;
}

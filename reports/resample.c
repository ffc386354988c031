/* resample.c: repetitions per cell and the intervals built on them (see
 * resample.h). */
#include "reports/resample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_tiers.h"
#include "reports/profile.h"

double mcb_rep_time_to_tol(const mcb_run_rec *r)
{
    return r->status == MCB_ST_SOLVED ? r->setup_s + r->solve_s : INFINITY;
}

double mcb_rep_solve_s(const mcb_run_rec *r)
{
    return r->solve_s;
}

double mcb_rep_iterations(const mcb_run_rec *r)
{
    return (double)r->iterations;
}

void mcb_reps_free(mcb_reps *R)
{
    if (!R) return;
    free(R->start);
    free(R->v);
    memset(R, 0, sizeof *R);
}

/* Problem p of O holding run r: same set name and problem_index (the
 * problem_index of p's runs in pidx); *hint the last one found. */
static int problem_of(const mcb_outcomes *O, const int *pidx, const mcb_run_rec *r, int *hint)
{
    for (int k = 0; k < O->nproblems; k++) {
        int p = (*hint + k) % O->nproblems;
        if (pidx[p] == r->problem_index && !strcmp(O->sets[O->set[p]], r->problem_set))
            return *hint = p;
    }
    return -1;
}

mcb_rc mcb_reps_build(const mcb_results_data *D, const mcb_outcomes *O,
                      double (*value)(const mcb_run_rec *), mcb_reps *R, mcb_err *err)
{
    memset(R, 0, sizeof *R);
    size_t nc = (size_t)O->nproblems * O->nsolvers, nr = (size_t)D->count;
    int *pidx = mcb_malloc((size_t)O->nproblems + 1, sizeof *pidx);
    int *of = mcb_malloc(nr + 1, sizeof *of), *fill = mcb_calloc(nc + 1, sizeof *fill);
    R->start = mcb_calloc(nc + 2, sizeof *R->start);
    R->v = mcb_malloc(nr + 1, sizeof *R->v);
    mcb_rc rc = MCB_OK;
    if (!pidx || !of || !fill || !R->start || !R->v) {
        rc = mcb_fail(err, MCB_E_NOMEM, "repetitions: out of memory");
        mcb_reps_free(R);
        goto done;
    }
    R->ncells = (int)nc;
    for (int p = 0; p < O->nproblems; p++) {
        pidx[p] = -1;
        for (int s = 0; s < O->nsolvers && pidx[p] < 0; s++) {
            int k = O->run[(size_t)p * O->nsolvers + s];
            if (k >= 0) pidx[p] = D->runs[k].problem_index;
        }
    }
    int hint = 0;
    for (size_t k = 0; k < nr; k++) {
        const mcb_run_rec *r = &D->runs[k];
        int p = problem_of(O, pidx, r, &hint), s = -1;
        for (int j = 0; j < O->nsolvers && p >= 0 && s < 0; j++)
            if (!strcmp(O->solvers[j], r->solver)) s = j;
        of[k] = p < 0 || s < 0 ? -1 : p * O->nsolvers + s;
        if (of[k] >= 0) R->start[of[k] + 1]++;
    }
    for (size_t c = 0; c < nc; c++) {
        int n = R->start[c + 1];
        if (n > R->most) R->most = n;
        R->start[c + 1] += R->start[c];
    }
    for (size_t k = 0; k < nr; k++)
        if (of[k] >= 0) R->v[R->start[of[k]] + fill[of[k]]++] = value(&D->runs[k]);
done:
    free(pidx);
    free(of);
    free(fill);
    return rc;
}

double mcb_reps_redraw_median(const mcb_reps *R, int c, mcb_rng *rng, double *scratch)
{
    int n = R->start[c + 1] - R->start[c];
    const double *v = R->v + R->start[c];
    for (int k = 0; k < n; k++) {
        int j = (int)(mcb_rng_uniform(rng) * n);
        scratch[k] = v[j < n ? j : n - 1];
    }
    return mcb_median(scratch, n);
}

/* ------------------------------------------------------- paired ratios */

typedef struct {
    const mcb_reps *A, *B;
    const int *ca, *cb;
    double *scratch;
} pair_ctx;

static void redraw_pair(int u, mcb_rng *rng, void *ctx, double *row)
{
    pair_ctx *x = ctx;
    row[0] = mcb_reps_redraw_median(x->A, x->ca[u], rng, x->scratch);
    row[1] = mcb_reps_redraw_median(x->B, x->cb[u], rng, x->scratch);
}

/* The median of cell c's repetitions as they are. */
static double cell_median(const mcb_reps *R, int c, double *scratch)
{
    int n = R->start[c + 1] - R->start[c];
    memcpy(scratch, R->v + R->start[c], (size_t)n * sizeof *scratch);
    return mcb_median(scratch, n);
}

mcb_rc mcb_ratio_interval(const mcb_reps *A, const int *ca, const mcb_reps *B, const int *cb,
                          int n, mcb_interval *ci, mcb_err *err)
{
    int most = A->most > B->most ? A->most : B->most;
    double *x = mcb_malloc(2 * (size_t)n + 1, sizeof *x);
    double *scratch = mcb_malloc((size_t)most + 1, sizeof *scratch);
    mcb_rc rc = x && scratch ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "ratio interval: out of memory");
    if (!rc) {
        for (int u = 0; u < n; u++) {
            x[2 * u] = cell_median(A, ca[u], scratch);
            x[2 * u + 1] = cell_median(B, cb[u], scratch);
        }
        pair_ctx pc = {A, B, ca, cb, scratch};
        mcb_boot_opts o;
        mcb_boot_defaults(&o);
        o.redraw = redraw_pair;
        o.redraw_ctx = &pc;
        rc = mcb_bootstrap(x, n, 2, 1, mcb_boot_geomean_ratio, NULL, &o, ci, err);
    }
    free(x);
    free(scratch);
    return rc;
}

/* ----------------------------------------------------- profile band */

typedef struct {
    int ns, ng;
    double floor;
    const double *tau;
    double *best, *ratio; /* np and np x ns of scratch */
    const mcb_reps *R;
    const int *cell0;
    double *scratch;
} band_ctx;

/* rho_s(tau_g) of the rows: out[s * ng + g]. */
static void profile_at(const double *rows, int n, int width, void *ctx, double *out)
{
    band_ctx *b = ctx;
    mcb_profile_ratios(rows, n, width, b->floor, b->best, b->ratio);
    for (int s = 0; s < b->ns; s++)
        for (int g = 0; g < b->ng; g++) {
            int k = 0;
            for (int p = 0; p < n; p++) k += b->ratio[(size_t)p * width + s] <= b->tau[g];
            out[(size_t)s * b->ng + g] = (double)k / n;
        }
}

static void redraw_problem(int u, mcb_rng *rng, void *ctx, double *row)
{
    band_ctx *b = ctx;
    for (int s = 0; s < b->ns; s++) {
        double m = mcb_reps_redraw_median(b->R, b->cell0[u] + s, rng, b->scratch);
        row[s] = isfinite(m) ? m : NAN;
    }
}

mcb_rc mcb_profile_band(const double *t, int np, int ns, double floor, const double *tau,
                        int ng, const mcb_reps *R, const int *cell0, double *lo, double *hi,
                        mcb_err *err)
{
    size_t nout = (size_t)ns * ng;
    band_ctx b = {ns, ng, floor, tau, mcb_malloc((size_t)np + 1, sizeof(double)),
                  mcb_malloc((size_t)np * ns + 1, sizeof(double)), R, cell0,
                  mcb_malloc(R ? (size_t)R->most + 1 : 1, sizeof(double))};
    mcb_interval *ci = mcb_malloc(nout + 1, sizeof *ci);
    mcb_rc rc = b.best && b.ratio && b.scratch && ci
                    ? MCB_OK
                    : mcb_fail(err, MCB_E_NOMEM, "profile band: out of memory");
    if (!rc) {
        mcb_boot_opts o;
        mcb_boot_defaults(&o);
        if (R) {
            o.redraw = redraw_problem;
            o.redraw_ctx = &b;
        }
        rc = mcb_bootstrap(t, np, ns, (int)nout, profile_at, &b, &o, ci, err);
    }
    for (size_t j = 0; !rc && j < nout; j++) {
        lo[j] = ci[j].lo;
        hi[j] = ci[j].hi;
    }
    free(b.best);
    free(b.ratio);
    free(b.scratch);
    free(ci);
    return rc;
}

/* ------------------------------------------ shifted geometric means */

typedef struct {
    double shift_s, charge_s;
    double *col; /* np of scratch */
} sgm_ctx;

/* out[s] = sgm of column s / the smallest column sgm. */
static void sgm_rel(const double *rows, int n, int width, void *ctx, double *out)
{
    sgm_ctx *x = ctx;
    double best = INFINITY;
    for (int s = 0; s < width; s++) {
        for (int p = 0; p < n; p++) x->col[p] = rows[(size_t)p * width + s];
        out[s] = mcb_sgm(x->col, n, x->shift_s, x->charge_s);
        if (out[s] < best) best = out[s];
    }
    for (int s = 0; s < width; s++) out[s] = isfinite(best) && best > 0 ? out[s] / best : NAN;
}

mcb_rc mcb_sgm_rel_interval(const double *t, int np, int ns, double shift_s, double charge_s,
                            mcb_interval *ci, mcb_err *err)
{
    sgm_ctx x = {shift_s, charge_s, mcb_malloc((size_t)np + 1, sizeof(double))};
    mcb_rc rc = x.col ? mcb_bootstrap(t, np, ns, ns, sgm_rel, &x, NULL, ci, err)
                      : mcb_fail(err, MCB_E_NOMEM, "shifted geometric mean: out of memory");
    free(x.col);
    return rc;
}

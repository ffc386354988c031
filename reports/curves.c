/* curves.c: median, quartiles and count of the runs still going, per
 * traced iteration (see curves.h). Every array is allocated before the
 * sweep over the iterations; each run keeps a cursor into its trace, so the
 * sweep reads every trace row once. Fails only on bad arguments or out of
 * memory, with nothing left allocated. A NaN abscissa in a trace is never
 * reached (a run whose last one is NaN never counts as going). */
#include "reports/curves.h"
#include "lib/mcb_order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mcb_curve_free(mcb_curve *c)
{
    if (!c) return;
    free(c->iter);
    free(c->median);
    free(c->q1);
    free(c->q3);
    free(c->time_s);
    free(c->going);
    memset(c, 0, sizeof *c);
}

static double last_x(const mcb_run_rec *r, int xcol)
{
    return r->trace[(size_t)(r->trace_rows - 1) * MCB_TRACE_COLS + xcol];
}

/* The distinct traced abscissae of the runs, sorted, into it[]; their count. */
static int union_of_abscissae(const mcb_run_rec *const *runs, int nruns, int xcol, double *it)
{
    int n = 0;
    for (int k = 0; k < nruns; k++)
        for (int t = 0; t < runs[k]->trace_rows; t++)
            it[n++] = runs[k]->trace[(size_t)t * MCB_TRACE_COLS + xcol];
    mcb_sort_doubles(it, (size_t)n);
    int u = 0;
    for (int k = 0; k < n; k++)
        if (!isnan(it[k]) && (u == 0 || it[k] != it[u - 1])) it[u++] = it[k];
    return u;
}

/* Keeps at most m (>= 2) of the u sorted values, evenly spaced by rank,
 * the first and the last among them; the count kept. */
static int thin(double *it, int u, int m)
{
    if (u <= m) return u;
    for (int k = 0; k < m; k++) it[k] = it[(int)((double)k * (u - 1) / (m - 1) + 0.5)];
    return m;
}

/* Point k: statistics over the runs going at it[k]; cur[] advances. */
static void point(const mcb_run_rec *const *runs, int nruns, int xcol, int col, double at,
                  int *cur, double *vals, double *times, mcb_curve *c, int k)
{
    int going = 0, nv = 0;
    for (int q = 0; q < nruns; q++) {
        const mcb_run_rec *r = runs[q];
        if (!(last_x(r, xcol) >= at)) continue;
        going++;
        while (cur[q] + 1 < r->trace_rows &&
               r->trace[(size_t)(cur[q] + 1) * MCB_TRACE_COLS + xcol] <= at)
            cur[q]++;
        const double *row = r->trace + (size_t)cur[q] * MCB_TRACE_COLS;
        if (!(row[xcol] <= at) || isnan(row[col])) continue; /* not traced yet */
        vals[nv] = row[col];
        times[nv++] = row[1];
    }
    mcb_sort_doubles(vals, (size_t)nv);
    mcb_sort_doubles(times, (size_t)nv);
    c->going[k] = going;
    c->median[k] = mcb_quantile_sorted(vals, nv, 0.5);
    c->q1[k] = mcb_quantile_sorted(vals, nv, 0.25);
    c->q3[k] = mcb_quantile_sorted(vals, nv, 0.75);
    c->time_s[k] = mcb_quantile_sorted(times, nv, 0.5);
}

mcb_rc mcb_curve_compute(const mcb_run_rec *const *runs_in, int nruns_in, int xcol, int col,
                         int max_points, mcb_curve *out, mcb_err *err)
{
    memset(out, 0, sizeof *out);
    if (col < 2 || col >= MCB_TRACE_COLS || (xcol != 0 && xcol != 1) || max_points < 2 ||
        nruns_in < 0)
        return mcb_fail(err, MCB_E_INPUT, "curve of trace column %d against column %d with %d "
                        "points: needs 2 <= column < %d, abscissa 0 or 1 and at least 2 points",
                        col, xcol, max_points, MCB_TRACE_COLS);
    size_t rows = 0;
    int nruns = 0;
    for (int k = 0; k < nruns_in; k++)
        if (runs_in[k]->trace_rows > 0) rows += (size_t)runs_in[k]->trace_rows;
    const mcb_run_rec **runs = mcb_malloc((size_t)nruns_in + 1, sizeof *runs);
    int *cur = mcb_calloc((size_t)nruns_in + 1, sizeof *cur);
    double *it = mcb_malloc(rows + 1, sizeof *it);
    double *vals = mcb_malloc((size_t)nruns_in + 1, sizeof *vals);
    double *times = mcb_malloc((size_t)nruns_in + 1, sizeof *times);
    if (!runs || !cur || !it || !vals || !times) goto nomem;
    for (int k = 0; k < nruns_in; k++)
        if (runs_in[k]->trace_rows > 0) runs[nruns++] = runs_in[k];
    int u = thin(it, union_of_abscissae(runs, nruns, xcol, it), max_points);
    size_t n = (size_t)u + 1;
    out->iter = mcb_malloc(n, sizeof *out->iter);
    out->median = mcb_malloc(n, sizeof *out->median);
    out->q1 = mcb_malloc(n, sizeof *out->q1);
    out->q3 = mcb_malloc(n, sizeof *out->q3);
    out->time_s = mcb_malloc(n, sizeof *out->time_s);
    out->going = mcb_malloc(n, sizeof *out->going);
    if (!out->iter || !out->median || !out->q1 || !out->q3 || !out->time_s || !out->going)
        goto nomem;
    out->npoints = u;
    out->nruns = nruns;
    for (int k = 0; k < u; k++) {
        out->iter[k] = it[k];
        point(runs, nruns, xcol, col, it[k], cur, vals, times, out, k);
    }
    free(runs);
    free(cur);
    free(it);
    free(vals);
    free(times);
    return MCB_OK;
nomem:
    free(runs);
    free(cur);
    free(it);
    free(vals);
    free(times);
    mcb_curve_free(out);
    return mcb_fail(err, MCB_E_NOMEM, "convergence curve of %d runs: out of memory", nruns_in);
}

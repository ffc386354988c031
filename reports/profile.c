/* profile.c: the median, performance and data profiles (see profile.h).
 * Fails only on bad sizes or out of memory, with nothing left allocated. */
#include "reports/profile.h"
#include "lib/mcb_order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double mcb_median(double *x, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i])) x[k++] = x[i];
    if (k == 0) return NAN;
    mcb_sort_doubles(x, (size_t)k);
    return k % 2 ? x[k / 2] : 0.5 * (x[k / 2 - 1] + x[k / 2]);
}

static double floored(double v, double floor)
{
    return v < floor ? floor : v;
}

void mcb_profile_ratios(const double *t, int np, int ns, double floor, double *best,
                        double *ratio)
{
    for (int p = 0; p < np; p++) {
        const double *row = t + (size_t)p * ns;
        double b = INFINITY;
        for (int s = 0; s < ns; s++)
            if (isfinite(row[s]) && floored(row[s], floor) < b) b = floored(row[s], floor);
        best[p] = isfinite(b) ? b : NAN;
        for (int s = 0; s < ns; s++)
            ratio[(size_t)p * ns + s] =
                isfinite(row[s]) && isfinite(b) ? floored(row[s], floor) / b : INFINITY;
    }
}

void mcb_profile_free(mcb_profile *p)
{
    if (!p) return;
    free(p->solved);
    free(p->npoints);
    free(p->tau);
    free(p->rho);
    memset(p, 0, sizeof *p);
}

mcb_rc mcb_profile_compute(const double *t, int np, int ns, double floor, int relative,
                           mcb_profile *out, mcb_err *err)
{
    memset(out, 0, sizeof *out);
    if (np < 1 || ns < 1 || !(floor > 0) || !isfinite(floor))
        return mcb_fail(err, MCB_E_INPUT,
                        "profile of %d problems x %d solvers with floor %g: needs at least "
                        "one of each and a positive floor", np, ns, floor);
    size_t cells = (size_t)np * ns, stride = (size_t)np + 2;
    double *x = mcb_malloc(cells, sizeof *x), *best = mcb_malloc((size_t)np, sizeof *best);
    double *col = mcb_malloc((size_t)np, sizeof *col);
    out->solved = mcb_calloc((size_t)ns, sizeof *out->solved);
    out->npoints = mcb_calloc((size_t)ns, sizeof *out->npoints);
    out->tau = mcb_malloc(stride * ns, sizeof *out->tau);
    out->rho = mcb_malloc(stride * ns, sizeof *out->rho);
    if (!x || !best || !col || !out->solved || !out->npoints || !out->tau || !out->rho) {
        free(x);
        free(best);
        free(col);
        mcb_profile_free(out);
        return mcb_fail(err, MCB_E_NOMEM, "profile of %d problems x %d solvers: out of memory",
                        np, ns);
    }
    out->nproblems = np;
    out->nsolvers = ns;
    /* x: the abscissa of every (problem, solver), INFINITY for a failure */
    mcb_profile_ratios(t, np, ns, floor, best, x);
    if (!relative)
        for (size_t c = 0; c < cells; c++)
            if (isfinite(x[c])) x[c] = floored(t[c], floor);
    out->lo = INFINITY;
    out->hi = -INFINITY;
    for (size_t c = 0; c < cells; c++)
        if (isfinite(x[c])) {
            if (x[c] < out->lo) out->lo = x[c];
            if (x[c] > out->hi) out->hi = x[c];
        }
    if (relative) out->lo = 1;
    if (!isfinite(out->hi)) out->lo = out->hi = relative ? 1 : floor;
    for (int p = 0; p < np; p++) out->unsolved += isnan(best[p]);
    for (int s = 0; s < ns; s++) {
        int n = 0;
        for (int p = 0; p < np; p++)
            if (isfinite(x[(size_t)p * ns + s])) col[n++] = x[(size_t)p * ns + s];
        mcb_sort_doubles(col, (size_t)n);
        out->solved[s] = n;
        double *tau = out->tau + stride * s, *rho = out->rho + stride * s;
        int k = 0, m = 0; /* m: values counted so far */
        while (m < n && col[m] <= out->lo) m++;
        tau[k] = out->lo;
        rho[k++] = (double)m / np;
        while (m < n) {
            double v = col[m];
            while (m < n && col[m] == v) m++;
            tau[k] = v;
            rho[k++] = (double)m / np;
        }
        if (tau[k - 1] < out->hi) {
            tau[k] = out->hi;
            rho[k] = rho[k - 1];
            k++;
        }
        out->npoints[s] = k;
    }
    free(x);
    free(best);
    free(col);
    return MCB_OK;
}

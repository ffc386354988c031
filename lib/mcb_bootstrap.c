/* mcb_bootstrap.c: the percentile bootstrap (see mcb_bootstrap.h). */
#include "lib/mcb_bootstrap.h"
#include "lib/mcb_order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mcb_boot_defaults(mcb_boot_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->resamples = MCB_BOOT_RESAMPLES;
    o->level = MCB_BOOT_LEVEL;
    o->seed = MCB_BOOT_SEED;
}

/* One resample into rows: n units drawn with replacement, each redrawn
 * from its repetitions when o->redraw is set. */
static void draw(const double *x, int n, int width, const mcb_boot_opts *o, mcb_rng *rng,
                 double *rows)
{
    for (int i = 0; i < n; i++) {
        int u = (int)(mcb_rng_uniform(rng) * n);
        if (u >= n) u = n - 1;
        double *row = rows + (size_t)i * width;
        if (o->redraw) o->redraw(u, rng, o->redraw_ctx, row);
        else memcpy(row, x + (size_t)u * width, (size_t)width * sizeof *row);
    }
}

/* Each output's percentile interval from its B resampled values. */
static void intervals(double *vals, int B, int nout, double level, mcb_interval *ci,
                      double *col)
{
    for (int j = 0; j < nout; j++) {
        int nan = 0;
        for (int b = 0; b < B; b++) {
            col[b] = vals[(size_t)b * nout + j];
            nan |= isnan(col[b]);
        }
        if (nan) {
            ci[j].lo = ci[j].hi = NAN;
            continue;
        }
        mcb_sort_doubles(col, (size_t)B);
        ci[j].lo = mcb_quantile_sorted(col, B, 0.5 * (1 - level));
        ci[j].hi = mcb_quantile_sorted(col, B, 0.5 * (1 + level));
    }
}

mcb_rc mcb_bootstrap(const double *x, int n, int width, int nout, mcb_boot_stat stat, void *ctx,
                     const mcb_boot_opts *opts, mcb_interval *ci, mcb_err *err)
{
    mcb_boot_opts def;
    mcb_boot_defaults(&def);
    const mcb_boot_opts *o = opts ? opts : &def;
    if (!x || !stat || !ci || n < 1 || width < 1 || nout < 1 || o->resamples < 1 ||
        !(o->level > 0 && o->level < 1))
        return mcb_fail(err, MCB_E_INPUT,
                        "bootstrap of %d units x %d values into %d statistics, %d resamples, "
                        "level %g: needs data, a statistic, sizes >= 1 and a level in (0, 1)",
                        n, width, nout, o->resamples, o->level);
    int B = o->resamples;
    double *rows = mcb_malloc((size_t)n * width, sizeof *rows);
    double *vals = mcb_malloc((size_t)B * nout, sizeof *vals);
    double *est = mcb_malloc((size_t)nout, sizeof *est);
    double *col = mcb_malloc((size_t)B, sizeof *col);
    mcb_rc rc = MCB_OK;
    if (!rows || !vals || !est || !col) {
        rc = mcb_fail(err, MCB_E_NOMEM, "bootstrap of %d units x %d resamples: out of memory",
                      n, B);
        goto done;
    }
    stat(x, n, width, ctx, est);
    mcb_rng rng;
    mcb_rng_seed(&rng, o->seed);
    for (int b = 0; b < B; b++) {
        draw(x, n, width, o, &rng, rows);
        stat(rows, n, width, ctx, vals + (size_t)b * nout);
    }
    intervals(vals, B, nout, o->level, ci, col);
    for (int j = 0; j < nout; j++) ci[j].est = est[j];
done:
    free(rows);
    free(vals);
    free(est);
    free(col);
    return rc;
}

void mcb_boot_geomean_ratio(const double *rows, int n, int width, void *ctx, double *out)
{
    (void)ctx;
    double sum = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        double a = rows[(size_t)i * width], b = rows[(size_t)i * width + 1];
        if (!(isfinite(a) && isfinite(b) && a > 0 && b > 0)) continue;
        sum += log(b / a);
        k++;
    }
    out[0] = k ? exp(sum / k) : NAN;
}

int mcb_interval_excludes(const mcb_interval *ci, double value)
{
    return ci && (ci->lo > value || ci->hi < value);
}

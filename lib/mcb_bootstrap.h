/* mcb_bootstrap.h: percentile bootstrap confidence intervals (Efron and
 * Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13), the one
 * resampling routine of mcbench (docs/metrics.md, "Confidence intervals").
 *
 * The data are n units (problems), each a row of `width` doubles (e.g. the
 * OLD and NEW time of one problem: a paired ratio resamples both together,
 * so the pairing is kept). A resample draws n units with replacement; when
 * opts.redraw is set, each drawn unit's row is drawn again from the unit's
 * own repetitions by that callback (the second level: repetitions within a
 * problem), else it is the unit's row of x. The statistic maps n rows to
 * nout values (a ratio, a geometric mean, a profile at nout abscissae).
 * Over opts.resamples resamples, each output's interval is the pair of
 * percentiles (1 - level) / 2 and (1 + level) / 2 of its resampled values,
 * by linear interpolation between order statistics (type 7 of Hyndman and
 * Fan). Deterministic: one splitmix64 stream (mcb_rng.h) seeded with
 * opts.seed draws every unit and repetition, in order. */
#ifndef MCB_BOOTSTRAP_H
#define MCB_BOOTSTRAP_H

#include "lib/mcb_error.h"
#include "lib/mcb_rng.h"

#define MCB_BOOT_RESAMPLES 2000
#define MCB_BOOT_LEVEL 0.95
#define MCB_BOOT_SEED 20261128ULL

/* The statistic of n rows (row i at rows + i * width) into out[0..nout). */
typedef void (*mcb_boot_stat)(const double *rows, int n, int width, void *ctx, double *out);
/* Unit `unit`'s row drawn again from its repetitions, into row[0..width). */
typedef void (*mcb_boot_redraw)(int unit, mcb_rng *rng, void *ctx, double *row);

typedef struct {
    int resamples;          /* >= 1; default MCB_BOOT_RESAMPLES */
    double level;           /* in (0, 1); default MCB_BOOT_LEVEL */
    unsigned long long seed; /* default MCB_BOOT_SEED */
    mcb_boot_redraw redraw; /* NULL: a unit's row is its row of x */
    void *redraw_ctx;
} mcb_boot_opts;

/* est: the statistic of the data as they are; [lo, hi] its interval. When
 * a resample's statistic is NaN, the interval is NaN (undefined). */
typedef struct {
    double est, lo, hi;
} mcb_interval;

void mcb_boot_defaults(mcb_boot_opts *o);

/* ci[0..nout) for the statistic `stat` of x (n >= 1 units of width >= 1
 * doubles; opts NULL: the defaults). MCB_E_INPUT on bad sizes or options,
 * MCB_E_NOMEM; nothing is left allocated. */
mcb_rc mcb_bootstrap(const double *x, int n, int width, int nout, mcb_boot_stat stat, void *ctx,
                     const mcb_boot_opts *opts, mcb_interval *ci, mcb_err *err);

/* The statistic for paired ratios: rows of width 2 (a, b); out[0] = the
 * geometric mean of b / a over the rows where both are finite and > 0 (NaN
 * when none). ctx unused. */
void mcb_boot_geomean_ratio(const double *rows, int n, int width, void *ctx, double *out);

/* 1 when the interval lies wholly above or wholly below `value`. */
int mcb_interval_excludes(const mcb_interval *ci, double value);

#endif

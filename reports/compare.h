/* compare.h: two campaigns of the same problems (e.g. two revisions of a
 * solver), per (problem, solver) present in both: the change in status,
 * iterations and solve time with the repetitions' spread, and a flag on
 * every change larger than the noise (docs/compare.md):
 *   status  the statuses differ (a pair whose repetitions disagree counts
 *           as "K/R solved": a change of K is a change of status);
 *   iters   |it_new - it_old| > iter_tol max(it_old, 1), it the median of
 *           the repetitions' iterations;
 *   time    the ratio of the medians of solve_s NEW/OLD is above
 *           1 + time_tol or below 1 / (1 + time_tol) AND its 95% bootstrap
 *           interval (both campaigns' repetitions resampled; 2000
 *           resamples, fixed seed: lib/mcb_bootstrap.h) excludes 1; never
 *           when the campaigns' machines differ (CPU model, threads,
 *           maximum frequency: reports/machine.h) unless allow_other_machine.
 * With one repetition the interval is the ratio itself, so the time rule
 * is the ratio alone. Per solver, the geometric mean of the ratios over
 * the shared problems with its interval (problems and repetitions
 * resampled). Output: a Markdown table on `out` (may be NULL) and, with a
 * directory, DIR/compare.md, DIR/compare.csv, DIR/compare.dat,
 * DIR/compare.gp and the gnuplot plot DIR/compare.png (time ratio per
 * problem and solver, log scale). */
#ifndef MCB_COMPARE_H
#define MCB_COMPARE_H

#include <stdio.h>

#include "lib/mcb_error.h"

typedef struct {
    double time_tol;       /* default 0.10 */
    double iter_tol;       /* default 0.01 */
    const char *gnuplot;   /* NULL: "gnuplot" on PATH */
    int allow_other_machine; /* 1: flag time changes across different machines */
} mcb_compare_opts;

void mcb_compare_defaults(mcb_compare_opts *o);

/* Compares the results files (or journals) old_path and new_path. Fails
 * with MCB_E_INPUT when they share no problem or no solver (the message
 * names those in one file only), MCB_E_IO when DIR or the plot cannot be
 * written. *flagged (may be NULL) receives the count of flagged pairs. */
mcb_rc mcb_compare(const char *old_path, const char *new_path, const char *dir, FILE *out,
                   const mcb_compare_opts *o, int *flagged, mcb_err *err);

#endif

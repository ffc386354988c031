/* curves.h: the convergence curve of a group of runs (one solver on the
 * problems of one set) against iteration or solver time (the abscissa x, a
 * trace column increasing along each run): at each traced x, over the runs
 * STILL GOING at x (whose last traced x is x or later), the median and
 * the quartiles of a trace column and the median solver time, and how many
 * runs are still going. A run that stopped (solved or not) leaves the
 * statistics instead of carrying its final value forward, so the median no
 * longer flattens into plateaus once runs stop; the count says how many
 * runs the statistics rest on. Pure: no I/O; the arrays are allocated by
 * mcb_curve_compute and freed by mcb_curve_free. */
#ifndef MCB_CURVES_H
#define MCB_CURVES_H

#include "lib/mcb_order.h" /* mcb_quantile_sorted */
#include "lib/mcb_results.h"

typedef struct {
    int npoints;
    int nruns;  /* runs with at least one trace row */
    double *iter;   /* increasing traced abscissae (thinned to max_points); named for
                       the default abscissa, the iteration */
    double *median, *q1, *q3; /* of column col over the runs going at iter[k] that have a
                                 row at or before it (their last such row); NaN when none */
    double *time_s; /* median of the solver time (trace column 1), likewise */
    int *going;     /* runs whose last traced abscissa is >= iter[k] */
} mcb_curve;

/* runs: nruns records (a run without trace rows is left out); xcol: the
 * abscissa, 0 (iteration) or 1 (solver time); col: a trace column (>= 2,
 * < MCB_TRACE_COLS); max_points >= 2: when the runs' distinct traced
 * abscissae are more, evenly spaced ones (by rank) are kept, the first and
 * the last among them. MCB_E_INPUT on a bad column or max_points,
 * MCB_E_NOMEM; on failure *out holds nothing to free. */
mcb_rc mcb_curve_compute(const mcb_run_rec *const *runs, int nruns, int xcol, int col,
                         int max_points, mcb_curve *out, mcb_err *err);
/* Accepts a zeroed or already freed curve. */
void mcb_curve_free(mcb_curve *c);

#endif

/* mcb_order.h: order statistics of arrays of doubles, shared by the
 * harness (the measurement distortion's median), the metrics (friction
 * descriptors), the bootstrap and the reports (curves, profiles). */
#ifndef MCB_ORDER_H
#define MCB_ORDER_H

#include <stddef.h>

/* Sorts x[0..n) increasing in place (NaN-free input; NaNs compare equal to
 * everything and end up in unspecified places). */
void mcb_sort_doubles(double *x, size_t n);

/* Quantile q in [0, 1] of x[0..n) sorted increasing, interpolated between
 * order statistics (Hyndman and Fan type 7: the median for q = 0.5 is the
 * mean of the two middle values when n is even); NaN when n = 0. */
double mcb_quantile_sorted(const double *x, int n, double q);

#endif

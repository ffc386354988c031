/* mcb_order.c: sorting and quantiles of doubles (see mcb_order.h). */
#include "lib/mcb_order.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void mcb_sort_doubles(double *x, size_t n)
{
    if (x && n > 1) qsort(x, n, sizeof *x, cmp_double);
}

double mcb_quantile_sorted(const double *x, int n, double q)
{
    if (n <= 0) return NAN;
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    if (lo >= n - 1) return x[n - 1];
    return x[lo] + (h - lo) * (x[lo + 1] - x[lo]);
}

/* profile.h: performance profiles (Dolan and More, "Benchmarking
 * optimization software with performance profiles", Math. Program. 91,
 * 2002) and data profiles, computed from a problems x solvers matrix of
 * measures (time to tolerance, iterations) in which a failure is NaN; and
 * the median they rest on. Pure functions: no I/O, nothing global; the
 * profile's arrays are allocated and freed by mcb_profile_free. */
#ifndef MCB_PROFILE_H
#define MCB_PROFILE_H

#include "lib/mcb_error.h"

/* Floors: a measure below its floor (0 included) is raised to it, so that a
 * ratio to the best and a logarithmic axis are defined. Times: 1 ns, the
 * resolution of CLOCK_MONOTONIC on Linux; iterations: 1. */
#define MCB_PROFILE_TIME_FLOOR 1e-9
#define MCB_PROFILE_ITER_FLOOR 1.0

/* Median of the values of x that are not NaN (+inf counts as a value);
 * NaN when there are none. Sorts x in place. */
double mcb_median(double *x, int n);

/* Per problem p (np rows of ns measures, t[p * ns + s]; a failure is any
 * value that is not finite): best[p] = the smallest floored measure (NaN
 * when no solver succeeded) and ratio[p * ns + s] = floored measure / best[p]
 * (INFINITY for a failure or a problem no solver succeeded on). A solver
 * tying the best has ratio exactly 1. */
void mcb_profile_ratios(const double *t, int np, int ns, double floor, double *best,
                        double *ratio);

/* The step curve of every solver. With relative = 1 (performance profile)
 * tau of (p, s) is ratio[p * ns + s] above; with relative = 0 (data
 * profile) it is the floored measure itself. Solver s's curve is
 *     rho_s(tau) = #{p : tau_ps <= tau} / np,
 * every problem, solved by nobody or not, counting in np, so that a curve
 * reaches 1 only for a solver that succeeded on every problem. It is a
 * right-continuous step function, given by its points (tau[k], rho[k]),
 * k < npoints[s], at offset s * (np + 2) of tau and rho: the first at lo,
 * then each distinct tau_ps > lo in increasing order, then hi when above
 * the last; constant from one point to the next (gnuplot's "with steps").
 * lo and hi are common to all curves: relative, lo = 1 and hi = the largest
 * finite ratio (1 when none); absolute, the smallest and the largest floored
 * measure of a success (both `floor` when none). */
typedef struct {
    int nproblems, nsolvers;
    int unsolved; /* problems no solver succeeded on */
    double lo, hi;
    int *solved;  /* per solver: problems it succeeded on */
    int *npoints; /* per solver: points of its curve (>= 1) */
    double *tau, *rho;
} mcb_profile;

/* np >= 1, ns >= 1 and floor > 0, else MCB_E_INPUT; MCB_E_NOMEM. On failure
 * *out holds nothing to free. */
mcb_rc mcb_profile_compute(const double *t, int np, int ns, double floor, int relative,
                           mcb_profile *out, mcb_err *err);
/* Accepts a zeroed or already freed profile. */
void mcb_profile_free(mcb_profile *p);

#endif

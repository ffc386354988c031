/* resample.h: a campaign's repetitions per (problem, solver) cell of its
 * outcome matrix (outcomes.h), for the bootstrap's second level
 * (lib/mcb_bootstrap.h: a problem drawn, then each of its cells' medians
 * drawn again from the cell's repetitions), and the confidence intervals
 * the report and compare print with it: paired speed-up ratios over
 * problems and the band of a performance profile (docs/metrics.md,
 * "Confidence intervals"). */
#ifndef MCB_RESAMPLE_H
#define MCB_RESAMPLE_H

#include "lib/mcb_bootstrap.h"
#include "lib/mcb_results.h"
#include "reports/outcomes.h"

/* Cell c's repetitions' values v[start[c] .. start[c + 1]). */
typedef struct {
    int ncells, most; /* most: the largest count of one cell */
    int *start;
    double *v;
} mcb_reps;

/* A run's value: time to tolerance (setup + solve, +inf unless solved)
 * or its solve time alone (compare), or its iterations. */
double mcb_rep_time_to_tol(const mcb_run_rec *r);
double mcb_rep_solve_s(const mcb_run_rec *r);
double mcb_rep_iterations(const mcb_run_rec *r);

/* MCB_E_NOMEM, with nothing to free. */
mcb_rc mcb_reps_build(const mcb_results_data *D, const mcb_outcomes *O,
                      double (*value)(const mcb_run_rec *), mcb_reps *R, mcb_err *err);
void mcb_reps_free(mcb_reps *R); /* accepts a zeroed or freed one */
/* The median of cell c's repetitions drawn with replacement (NaN: none);
 * scratch: R->most doubles. */
double mcb_reps_redraw_median(const mcb_reps *R, int c, mcb_rng *rng, double *scratch);

/* Paired ratios b / a over units (problems): unit u is cell ca[u] of A and
 * cell cb[u] of B (A may be B: two solvers of one campaign). The geometric
 * mean of the ratios of the cells' medians with its interval, problems
 * resampled and, within each, both cells' repetitions. A redrawn median
 * that is not finite (a failure) leaves the unit out of that resample.
 * n >= 1; MCB_E_NOMEM. */
mcb_rc mcb_ratio_interval(const mcb_reps *A, const int *ca, const mcb_reps *B, const int *cb,
                          int n, mcb_interval *ci, mcb_err *err);

/* The band of the performance profile of t (np x ns; failure NaN; floor as
 * profile.h) at ng abscissae tau[0..ng): lo and hi (ns x ng, row s) the
 * interval of rho_s(tau) with problems resampled and, when R is not NULL
 * (cells of the same np x ns layout, per problem `cell0[p]` the index of its
 * first cell in R, solvers following), each cell's median redrawn from its
 * repetitions (a median +inf is a failure). MCB_E_NOMEM. */
mcb_rc mcb_profile_band(const double *t, int np, int ns, double floor, const double *tau,
                        int ng, const mcb_reps *R, const int *cell0, double *lo, double *hi,
                        mcb_err *err);

/* Each solver's shifted geometric mean (lib/mcb_tiers.h: mcb_sgm, a
 * failure, NaN, charged at charge_s) relative to the smallest one, over t
 * (np x ns, row p the problem's times), with its interval: problems
 * resampled, every solver's time of a problem kept together (the outcome
 * medians as they are: no second level). ci[0..ns). MCB_E_NOMEM. */
mcb_rc mcb_sgm_rel_interval(const double *t, int np, int ns, double shift_s, double charge_s,
                            mcb_interval *ci, mcb_err *err);

#endif

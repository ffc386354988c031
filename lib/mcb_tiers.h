/* mcb_tiers.h: accuracy tiers and the solver's own claims, read off a
 * stored run (docs/metrics.md, "Accuracy tiers" and "Claimed against
 * verified"). Pure functions of records: no I/O, nothing global.
 *
 * A campaign is run to its tolerance (--tol, by default the finest tier);
 * its tiers (--tiers, by default 1e-4, 1e-6, 1e-8) are coarser levels of
 * the same stop metric. The runner records a trace row at the first check
 * that met each tier (harness/runner.c), so a tier's iteration and solver
 * time are those of the first trace row whose stop metric is at or below
 * it: the time the harness first saw it met, the solver time spent up to
 * that check (setup and the checks' own time excluded; with a clean rerun
 * the trace's times are scaled to the rerun's). */
#ifndef MCB_TIERS_H
#define MCB_TIERS_H

#include <stddef.h>

#include "lib/mcb_results.h"

#define MCB_MAX_TIERS 4
#define MCB_DEFAULT_TIERS "1e-4,1e-6,1e-8"

/* Parses "1e-4,1e-6,..." into tiers[0..MCB_MAX_TIERS), sorted coarsest
 * first: each finite and > 0, none twice. Returns the count, or -1 with the
 * reason in why. */
int mcb_tiers_parse(const char *text, double *tiers, char *why, size_t len);
/* "1e-04,1e-06,1e-08" (%.3g), the form of the settings word tiers=. */
void mcb_tiers_format(const double *tiers, int n, char *buf, size_t len);
/* A campaign's tiers: its settings word tiers=; a campaign recorded before
 * tiers existed gets the default tiers not finer than its tolerance.
 * Returns the count (0 when none applies). */
int mcb_campaign_tiers(const char *settings, double tol, double *tiers);

/* The first trace row of r whose column col (2 + the stop metric) is at or
 * below `tier`: 1 with its iteration and setup_s + its solver time, 0 when
 * no row is (or that time passes time_limit_s > 0: a solver that could not
 * be stopped). A closed-loop run (steps) has no such trace: 0. */
int mcb_tier_reached(const mcb_run_rec *r, int col, double tier, double time_limit_s,
                     int *iterations, double *time_s);

/* The solver's word against the harness's, for one run that started. */
typedef struct {
    int known;           /* 0: nothing to say (skipped, setup failed, solved at the start,
                            a file older than own_stop) */
    int own_stop;        /* the solver ended its solve itself (not asked by the harness) */
    int claimed;         /* ... with its own status `solved` */
    int confirmed;       /* a claim the harness confirmed: its stop metric <= tol at the end */
    int wrong;           /* a claim the harness refuted */
    int met_before_stop; /* an own stop (any status) after a check that met tol already */
    int unclaimed_met;   /* an own stop without a claim at an iterate meeting tol */
} mcb_claim;

/* col as above, tol the campaign's tolerance. */
void mcb_claim_of(const mcb_run_rec *r, int col, double tol, mcb_claim *c);

/* The shifted geometric mean exp(mean(log(t_i + shift))) - shift of n > 0
 * times, each not finite (a failure) charged at `charge` first; NaN when
 * n = 0 or a time (charged) is negative or not finite. For a bootstrap, call
 * it on resampled arrays. */
double mcb_sgm(const double *t, int n, double shift, double charge);

#endif

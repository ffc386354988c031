/* outcomes.h: a campaign's results as a problems x solvers matrix. Per
 * (problem, solver), over its repetitions: the status, and the medians of
 * the time to tolerance (setup_s + solve_s) and of the iterations, a
 * repetition that did not end `solved` counting as +infinity. So a pair
 * counts as solved when more than half of its repetitions solved it, and
 * then has a finite median; otherwise its measures are NaN, a failure for
 * the profiles (profile.h). */
#ifndef MCB_OUTCOMES_H
#define MCB_OUTCOMES_H

#include <stddef.h>

#include "lib/mcb_results.h"

#define MCB_OUTCOME_MIXED (-1) /* the repetitions ended with different statuses */
#define MCB_OUTCOME_NONE (-2)  /* no run of this solver on this problem */

/* Sets and solvers in order of first appearance in the results; problems
 * by set, then by problem_index. Names are borrowed from the results data,
 * which must outlive the matrix. */
typedef struct {
    int nsets, nsolvers, nproblems;
    const char **sets, **solvers;
    int *set;             /* per problem: index into sets */
    const char **problem; /* per problem: its name */
    /* nproblems x nsolvers, row p at p * nsolvers: */
    double *time_s, *iters; /* medians as above; NaN when not solved */
    int *status;            /* MCB_ST_* when every repetition agrees, else MIXED or NONE */
    int *reps, *solved_reps;
    int *run; /* index into D->runs of the cell's first repetition (lowest rep); -1: none */
} mcb_outcomes;

/* MCB_E_NOMEM, with nothing left to free. */
mcb_rc mcb_outcomes_build(const mcb_results_data *D, mcb_outcomes *O, mcb_err *err);
/* The same matrix at an accuracy tier (lib/mcb_tiers.h): a repetition
 * succeeds when a check met the tier (mcb_tier_reached on the stop
 * metric's trace column col, within the time limit); its time and
 * iterations are those to the tier. Statuses are the runs' own. */
mcb_rc mcb_outcomes_build_tier(const mcb_results_data *D, int col, double tier, mcb_outcomes *O,
                               mcb_err *err);

/* The shifted geometric mean (mcb_sgm) of solver s's times over the
 * problems of set `set` (-1: every set), a failure (NaN) charged at
 * charge_s; buf holds nproblems doubles. */
double mcb_outcomes_sgm(const mcb_outcomes *O, int set, int s, double shift_s, double charge_s,
                        double *buf);
/* What a failure is charged in a shifted geometric mean: the campaign's
 * time limit; without one, MCB_FAILURE_CHARGE_FACTOR times the longest run
 * (setup + solve) of the campaign (NaN when no run has a time). */
#define MCB_FAILURE_CHARGE_FACTOR 10.0
double mcb_failure_charge_s(const mcb_results_data *D);

/* Accepts a zeroed or already freed matrix. */
void mcb_outcomes_free(mcb_outcomes *O);

/* 1 when solver s accepted problem p: it has a run there and its
 * repetitions did not all end `skipped` (the solver cannot take the
 * problem's form or law). A cell without a run (an unfinished campaign)
 * is not accepted either. */
int mcb_outcome_accepted(const mcb_outcomes *O, int p, int s);

/* The ranking of the solvers on the problems of set `set` (-1: every set),
 * each over the problems it accepted: a solver that accepted none last;
 * then by the fraction of its accepted problems it solved, higher first;
 * then by the number solved, more first; then by the median time to
 * tolerance over the problems it solved, less first (none solved: last);
 * then in order of first appearance. order[0..nsolvers) gets the solver
 * indices, best first; solved[s], accepted[s] and med_time_s[s] (NaN when
 * s solved nothing) the keys of solver s. MCB_E_NOMEM. */
mcb_rc mcb_outcomes_rank(const mcb_outcomes *O, int set, int *order, int *solved,
                         int *accepted, double *med_time_s, mcb_err *err);

/* The status of (p, s) as shown in tables: the status name, "K/R solved"
 * when the repetitions disagree, "no run". */
void mcb_outcome_status_text(const mcb_outcomes *O, int p, int s, char *buf, size_t len);

#endif

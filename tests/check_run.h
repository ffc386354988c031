/* check_run.h: one run of a registered solver through the harness
 * (mcb_run_one) in a Check test, with the test's budget, the solution
 * kept: the helper every solver's test shares. It asserts that the solver
 * exists and that the harness itself did not fail; the run's status is
 * the test's to check. */
#ifndef MCB_TESTS_CHECK_RUN_H
#define MCB_TESTS_CHECK_RUN_H

#include "harness/runner.h"

/* Runs `solver` (params prm, NULL: its defaults) on P to the stop metric
 * tol within iters iterations on `threads` threads, judged by `law`
 * (mcb_law); *run is overwritten (the caller clears it). */
void check_run(const mcb_problem *P, const char *solver, const void *prm, double tol, int iters,
               int threads, int law, mcb_run *run);
/* The same with the solver's definition (one the registry need not hold,
 * such as a GPU solver's host twin). */
void check_run_def(const mcb_problem *P, const mcb_solver_def *def, const void *prm, double tol,
                   int iters, int threads, int law, mcb_run *run);

#endif

/* whole_step.h: the whole-step methods the closed loop runs beside the
 * solvers (whole_step.c; docs/closed-loop.md, "Whole-step methods"). A
 * whole-step method is not a solver of a step's subproblem: it advances
 * the scene's state itself (XPBD: problems/scene/xpbd.h). It is named like
 * a solver (an mcb_solver_def with its parameters, so that `mcbench
 * simulate --solvers xpbd --param xpbd.substeps=100` and experiment specs
 * select and set it as they do a solver), but it is not in the solver
 * registry (solvers/ may not use problems/): `mcbench run` on recorded
 * problems does not know it, and its def refuses every subproblem. */
#ifndef MCB_WHOLE_STEP_H
#define MCB_WHOLE_STEP_H

#include "solvers/solver.h"

/* The whole-step method of that name; NULL when none. */
const mcb_solver_def *mcb_whole_step_find(const char *name);
/* 1 when def is a whole-step method. */
int mcb_whole_step_is(const mcb_solver_def *def);
/* mcb_solver_find, then mcb_whole_step_find: the names a closed loop takes. */
const mcb_solver_def *mcb_loop_method_find(const char *name);
/* The number of whole-step methods and the k-th (for listings). */
int mcb_whole_step_count(void);
const mcb_solver_def *mcb_whole_step_at(int k);

#endif

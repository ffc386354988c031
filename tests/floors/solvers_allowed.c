/* The control of the planted probes: a solver-floor file that includes and
 * calls only what a solver may (its interface and the ground floor). It
 * must build, so that the probes fail for the planted reason alone. */
#include "lib/mcb_problem.h"
#include "solvers/solver.h"

int mcb_probe_solvers_allowed(void)
{
    mcb_settings s;
    mcb_settings_default(&s);
    mcb_problem_free(NULL);
    return s.max_iters > 0 ? MCB_ST_SOLVED : MCB_ST_SKIPPED;
}

/* Planted: a solver including the harness (forbidden: a solver knows only
 * its interface). Must not compile in the solvers floor. */
#include "harness/runner.h"

int mcb_probe_solvers_include_harness(void) { return MCB_CHECK_NEVER; }

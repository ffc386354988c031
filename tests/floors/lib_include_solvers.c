/* Planted: the ground floor including a floor above it (forbidden: lib/
 * knows no algorithm and no runner). Must not compile in the lib floor. */
#include "solvers/solver.h"

int mcb_probe_lib_include_solvers(void) { return MCB_ST_SOLVED; }

/* mcb_layout.h: the sizes of the ground floor's public structures, so that
 * code that mirrors them without compiling our headers (the Python package's
 * ctypes structures, python/mcbench/_lib.py) can check at load time that it
 * describes this library's layout. The solver interface's structures are
 * sized by mcb_solver_sizeof (solvers/solver.h). */
#ifndef MCB_LAYOUT_H
#define MCB_LAYOUT_H

#include <stddef.h>

/* sizeof the named structure: "mcb_err", "mcb_csc", "mcb_block",
 * "mcb_mujoco", "mcb_problem", "mcb_problem_set", "mcb_metrics",
 * "mcb_run_rec", "mcb_results_data"; 0 for any other name (or NULL). */
size_t mcb_lib_sizeof(const char *type);

#endif

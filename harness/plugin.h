/* plugin.h: solvers loaded at run time from shared libraries
 * (mcbench run --plugin FILE.so, mcbench solvers --plugin FILE.so).
 *
 * A plugin exports one symbol, `mcb_plugin` (an mcb_plugin_entry, made by
 * MCB_PLUGIN_SOLVER in <mcbench/solvers/solver.h>). Loading checks, in order: the
 * file opens as a shared library (dlopen, every symbol resolved now), it
 * exports the symbol, its interface version is this mcbench's, the solver
 * definition is complete and its name is new (mcb_registry_add); then the
 * solver is in the registry like a built-in one, and a campaign in the
 * default --isolate auto mode runs it in a child process. Every refusal is
 * MCB_E_INPUT with a message naming the file. dlopen lives here, in the
 * harness: the library and the solvers never load code. */
#ifndef MCB_PLUGIN_H
#define MCB_PLUGIN_H

#include "solvers/solver.h"

/* Loads one plugin and adds its solver to the registry; *def (may be NULL)
 * is the solver. On failure nothing stays loaded. */
mcb_rc mcb_plugin_load(const char *path, const mcb_solver_def **def, mcb_err *err);

/* The file a runtime solver came from, NULL for a built-in one. */
const char *mcb_plugin_origin(const mcb_solver_def *def);

/* Forgets the added solvers and unloads every plugin (at exit). */
void mcb_plugin_unload_all(void);

#endif

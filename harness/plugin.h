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

/* Python solvers (--plugin FILE.py, docs/python.md): a file whose name
 * ends in ".py" is handed to the script loader that a Python host installs
 * (python/mcbench/_host.py, through ctypes); the loader imports it,
 * registers its solver with mcb_registry_add and returns it, or fails with
 * MCB_E_INPUT and a message naming the file. Without a loader such a file
 * is refused with the reason (the command line then runs itself again
 * inside Python: harness/cli/python_host.c). The library loads no
 * interpreter. */
typedef mcb_rc (*mcb_script_loader)(const char *path, const mcb_solver_def **def, mcb_err *err);
void mcb_plugin_set_script_loader(mcb_script_loader loader); /* NULL: none */
int mcb_plugin_has_script_loader(void);
/* 1 when path names a Python solver (ends in ".py"). */
int mcb_plugin_is_script(const char *path);

/* The file a runtime solver came from, NULL for a built-in one. */
const char *mcb_plugin_origin(const mcb_solver_def *def);

/* Forgets the added solvers and unloads every plugin (at exit). */
void mcb_plugin_unload_all(void);

#endif

/* import_fclib.h: FCLIB problem files read through libfclib
 * (import_fclib.c, docs/fclib.md). */
#ifndef MCB_IMPORT_FCLIB_H
#define MCB_IMPORT_FCLIB_H

#include "lib/mcb_problem.h"

/* Reads one FCLIB file (global -> primal form, local -> dual form) with
 * libfclib, after checking its structure with HDF5 so that a malformed file
 * yields a message instead of libfclib's exit(). Problems with an equality
 * part (G, or V/R), rolling friction, or spacedim != 3 are rejected. The
 * file is read only in an isolated child process, which hands the problem
 * back as a clean problem file (lib/mcb_untrusted.h): a file that crashes
 * or hangs libhdf5 or libfclib is reported, never a crash, and this
 * process never parses it. */
mcb_rc mcb_import_fclib(const char *path, mcb_problem **out, mcb_err *err);
/* The same in this process, without the guard (for the fuzzing target). */
mcb_rc mcb_import_fclib_unisolated(const char *path, mcb_problem **out, mcb_err *err);

#endif

/* export_fclib.h: our problems written as FCLIB files through libfclib
 * (docs/formats.md), the inverse of the importer (import_fclib.h):
 *
 *   primal, contacts only  ->  /fclib_global: M = A, H = J^T, f = b, w = e
 *   primal, --form local   ->  /fclib_local:  W = J A^-1 J^T, q = J A^-1 b + e
 *                              (assembled sparse by mcb_delassus.h)
 *   dual                   ->  /fclib_local:  W, q as given
 * with mu per contact, spacedim 3, matrices in compressed columns (nz = -1),
 * and info/title = the scene, info/description = the notes, info/math_info
 * naming mcbench, the problem and its source.
 *
 * FCLIB holds 3D Coulomb contacts (De Saxce's law, our `contact`) only:
 * bilateral, unilateral, soft and contact_ccp blocks, problems without a
 * contact, and a dual problem asked for in global form are refused with the
 * reason (MCB_E_INPUT). */
#ifndef MCB_EXPORT_FCLIB_H
#define MCB_EXPORT_FCLIB_H

#include "lib/mcb_problem.h"

typedef enum {
    MCB_FCLIB_AUTO = 0,   /* global for primal problems, local for dual ones */
    MCB_FCLIB_GLOBAL = 1, /* /fclib_global (primal problems only) */
    MCB_FCLIB_LOCAL = 2   /* /fclib_local */
} mcb_fclib_form;

/* "auto", "global", "local"; -1 for anything else. */
int mcb_fclib_form_from_name(const char *name);

/* MCB_OK when P can be written as FCLIB in the form asked for, with the
 * form that will be written in *form (MCB_FCLIB_GLOBAL or _LOCAL; form may
 * be NULL); otherwise MCB_E_INPUT with the reason, prefixed by `where`. */
mcb_rc mcb_export_fclib_check(const mcb_problem *P, int want, const char *where, int *form,
                              mcb_err *err);

/* Writes P (validated) to `path` as one FCLIB problem. libfclib exits the
 * process on some write errors, so the file is written by a child process
 * (mcb_isolate.h) under a temporary name in path's directory (registered
 * with mcb_tmp_register while it exists) and renamed to path when
 * complete. Nothing is left behind on failure. MCB_E_INPUT for what FCLIB cannot express (as
 * mcb_export_fclib_check), MCB_E_NUMERIC when W cannot be formed (A not
 * positive definite), MCB_E_IO when the file cannot be written. */
mcb_rc mcb_export_fclib(const mcb_problem *P, int want, const char *path, mcb_err *err);

#endif

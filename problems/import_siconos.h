/* import_siconos.h: Siconos numerics' own problem files (the .dat format of
 * its test data and of LMGC90's exports) read through libsiconos-numerics'
 * readers, frictionContact_newFromFile and globalFrictionContact_newFromFile
 * (docs/formats.md):
 *
 *   local  (d, nc, M, q, mu)        ->  dual:   W = M, q
 *   global (d, nc, M, H, q, b, mu)  ->  primal: A = M, J = H^T, b = q, e = b
 * (Siconos 4.4: M v = q + H r, u = H^T v + b, as in mcb_siconos.h).
 *
 * The .dat files do not say which of the two they hold: the caller says,
 * or MCB_SICONOS_AUTO takes global for a file whose name starts with "GFC"
 * or contains "global" (any case), local otherwise. Two-dimensional
 * problems (d = 2) are refused, as are files the reader does not consume
 * consistently (sizes that disagree, values missing at the end, non-finite
 * values). Siconos' readers do not check their input, so the file is read
 * first in an isolated child process (mcb_isolate.h). Available only when
 * mcbench is built with Siconos (mcb_import_siconos_available()). */
#ifndef MCB_IMPORT_SICONOS_H
#define MCB_IMPORT_SICONOS_H

#include "lib/mcb_problem.h"

typedef enum {
    MCB_SICONOS_AUTO = 0,
    MCB_SICONOS_LOCAL = 1, /* FrictionContactProblem (fc3d) */
    MCB_SICONOS_GLOBAL = 2 /* GlobalFrictionContactProblem (gfc3d) */
} mcb_siconos_form;

/* "auto", "local", "global"; -1 for anything else. */
int mcb_siconos_form_from_name(const char *name);

/* 1 when mcbench was built with Siconos numerics, else 0. */
int mcb_import_siconos_available(void);

/* Reads one .dat file. MCB_E_INPUT with a message naming the file and the
 * reason for a file that cannot be read, is 2D, or is inconsistent; also
 * when mcbench was built without Siconos (the message says so). */
mcb_rc mcb_import_siconos(const char *path, int form, mcb_problem **out, mcb_err *err);

#endif

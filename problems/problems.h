/* problems.h: where problems come from: the FCLIB importer and the built-in
 * scene generators. */
#ifndef MCB_PROBLEMS_H
#define MCB_PROBLEMS_H

#include "mcb_problem.h"

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

/* The RPIsim test scene: nx x ny x nz spheres in cube formation resting on
 * a ground plane, simulated for `steps` steps; each step's subproblem is
 * recorded with its reference solution (computed to a natural-map residual
 * of ref_tol by PGS). Every sphere is its own 6-DOF subsystem. */
typedef struct {
    int nx, ny, nz, steps;
    double radius_m, mass_kg, mu, h_s;
    double jitter;  /* relative position jitter of the lattice (fraction of the radius) */
    unsigned seed;
    double ref_tol;
} mcb_stack_opts;

void mcb_stack_defaults(mcb_stack_opts *o);
mcb_rc mcb_gen_stack(const mcb_stack_opts *o, mcb_problem_set **out, mcb_err *err);

#endif

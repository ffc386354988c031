/* gen_stack.h: the RPIsim stack of spheres (gen_stack.c), the one scene
 * simulated outside the scene engine; `mcbench gen stack` reaches it
 * through the scene registry (scenes.h: mcb_scene_stack). */
#ifndef MCB_GEN_STACK_H
#define MCB_GEN_STACK_H

#include "lib/mcb_problem.h"

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

/* xpbd.h: a whole-step XPBD advance of the scene engine's world (xpbd.c;
 * docs/closed-loop.md, "Whole-step methods"): Macklin et al. 2019, "Small
 * steps in physics simulation" (substeps, one constraint iteration each),
 * with the rigid-body constraints and contact handling of Müller et al.
 * 2020, "Detailed rigid body simulation with extended position based
 * dynamics". Not a solver of the step's subproblem: it advances the free
 * rigid bodies itself. The world runs it in place of stages 3-7 when its
 * loop names it (world.h, mcb_world_loop.xpbd). */
#ifndef MCB_SCENE_XPBD_H
#define MCB_SCENE_XPBD_H

#include "lib/mcb_problem.h"

typedef struct mcb_xpbd_opts {
    int substeps; /* N: substeps of h / N each (default 20) */
    int iters;    /* constraint iterations per substep (default 1: Macklin 2019) */
    int reaction; /* 1 (default): the joints' impulses on robot links in the
                     previous step act on the robots' own dynamics (a
                     staggered coupling, one step late: the cable's pull on
                     the arm); 0: the robots drive the free bodies as
                     kinematic bodies and feel nothing back */
} mcb_xpbd_opts;

void mcb_xpbd_defaults(mcb_xpbd_opts *o);
/* substeps in [1, 100000], iters in [1, 1000], reaction 0 or 1. */
mcb_rc mcb_xpbd_check(const mcb_xpbd_opts *o, mcb_err *err);

#endif

/* experiment.h: an experiment spec (lib/mcb_experiment.h, docs/experiments.md)
 * checked against this build: the harness knows the solver registry and
 * the parameters each solver takes, the scene registry and each scene's
 * options, the set catalogue and the formulations, which the spec format on
 * the ground floor does not. `mcbench reproduce` reads every spec through
 * mcb_xp_read_checked, so a spec that reads is one that can run. */
#ifndef MCB_HARNESS_EXPERIMENT_H
#define MCB_HARNESS_EXPERIMENT_H

#include "lib/mcb_experiment.h"

/* This build's checks (static; never NULL). */
const mcb_xp_checks *mcb_xp_build_checks(void);

/* mcb_xp_read with this build's checks. */
mcb_rc mcb_xp_read_checked(const char *path, mcb_xp_spec **out, mcb_err *err);

/* Whether solver entry sv can run here. An entry without `needs` can (1;
 * *solver its solver, text ""). A `needs: gpu` entry can when the CUDA
 * device query finds a device (1; text: "NAME, memory, ...", as `mcbench
 * gpu` prints it); else 0 and text "no GPU: REASON" (the CUDA error, or a
 * build without CUDA). $MCB_REPRODUCE_GPU_STANDIN=SOLVER (tests of the
 * GPU column on a machine without one): 1, *solver SOLVER instead of the
 * entry's, text "stand-in: SOLVER (MCB_REPRODUCE_GPU_STANDIN)". */
int mcb_xp_entry_device(const mcb_xp_solver *sv, const char **solver, char *text, size_t size);

#endif

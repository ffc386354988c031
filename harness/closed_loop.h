/* closed_loop.h: closed-loop runs (docs/closed-loop.md). A registered solver
 * drives a scene of the scene engine itself: at every step the world
 * assembles the subproblem exactly as it would record it, the harness runs
 * the solver on it under the per-step budget (mcb_run_one: the same
 * budgets, checks, timing and judgement as a replay run), and the world
 * advances with whatever the solver returned: no fallback, no re-solve.
 * After each step the harness measures the state (energy, joint drift,
 * divergence from the reference trajectory, the scene's outcome) and stops
 * the run as failed-in-loop when the state is non-finite or a bound is
 * passed. Everything but the solver is identical across solvers: collision
 * detection, assembly, integration, scripted motions, seeds.
 *
 * The reference trajectory of an instance is the same scene advanced by
 * the engine's own tight solve (as `mcbench gen` records it), cached in a
 * file keyed by the scene's canonical arguments and the build. */
#ifndef MCB_CLOSED_LOOP_H
#define MCB_CLOSED_LOOP_H

#include "harness/runner.h"
#include "problems/scene/scenes.h"

/* One scene instance: a scene with its option values. */
typedef struct {
    const mcb_scene_def *scene;
    double vals[MCB_SCENE_MAX_OPTS];
    char name[96];     /* the instance's name in the results ("stir-i0") */
    char args[1024];   /* mcb_scene_args: the scene's canonical arguments */
    /* the reference trajectory: poses after each step, 12 per body
     * (rotation row-major, then position) */
    int ref_steps, ref_bodies;
    double *ref_pose;
    double *ref_outcome; /* the scene's outcome after each step (NaN: the scene has none) */
    double ref_s;      /* its wall time when computed here (0: read from the cache) */
} mcb_loop_instance;

/* The instance of `scene` at vals, named name. */
mcb_rc mcb_loop_instance_init(mcb_loop_instance *I, const mcb_scene_def *scene,
                              const double *vals, const char *name, mcb_err *err);
void mcb_loop_instance_clear(mcb_loop_instance *I); /* accepts NULL */

/* The instance's reference trajectory, read from the cache file in
 * cache_dir when one matches (scene arguments, mcbench version and
 * revision, engine build), else computed and written there (cache_dir
 * NULL: computed, not cached); and, in *first (may be NULL), the scene's
 * first step as the engine records it (the instance's problem in the
 * campaign: its name, size and descriptors). */
mcb_rc mcb_loop_reference(mcb_loop_instance *I, const char *cache_dir, mcb_problem **first,
                          mcb_err *err);

/* One closed-loop run of one solver on one instance, with the campaign's
 * options o (the per-step budget: o->settings) and the solver's
 * parameters (NULL: defaults). Fills run (steps, totals, status: solved
 * when every step was taken, MCB_ST_FAILED_IN_LOOP with the step and the
 * reason otherwise). Never fails for the solver's or the scene's reasons;
 * an error is the harness's own (out of memory, a scene that cannot run
 * in a loop). */
mcb_rc mcb_loop_run(const mcb_loop_instance *I, const mcb_solver_def *def, const void *params,
                    const mcb_campaign_opts *o, mcb_run *run, mcb_err *err);

#endif

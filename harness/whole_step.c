/* whole_step.c: the whole-step methods (whole_step.h): today XPBD
 * (problems/scene/xpbd.c), named `xpbd`, parameters `substeps` and
 * `iters` (mcb_xpbd_opts). Its def carries the name, the parameters and
 * their defaults for the CLI and the specs; its subproblem entry points
 * refuse every problem with the reason, so that a replay campaign that
 * somehow names it records `skipped`, never a result. The closed loop
 * (closed_loop.c) recognises it and hands its parameters to the world
 * (mcb_world_loop.xpbd) instead of running it on the step's subproblem. */
#include "harness/whole_step.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "problems/scene/xpbd.h"

#define WHOLE_STEP_REASON                                                                      \
    "xpbd is a whole-step method (it advances the scene itself): it runs only in a closed "   \
    "loop (mcbench simulate), not on a recorded subproblem"

static void xpbd_defaults(void *p) { mcb_xpbd_defaults(p); }
static mcb_rc xpbd_check(const void *p, mcb_err *err) { return mcb_xpbd_check(p, err); }

static int xpbd_accepts(const mcb_problem *P, char *reason, size_t len)
{
    (void)P;
    snprintf(reason, len, "%s", WHOLE_STEP_REASON);
    return 0;
}

static mcb_rc xpbd_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                         void **work, mcb_err *err)
{
    (void)P, (void)s, (void)params;
    *work = NULL;
    return mcb_fail(err, MCB_E_INPUT, "%s", WHOLE_STEP_REASON);
}

static int xpbd_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                      mcb_info *info)
{
    (void)work, (void)s, (void)cb, (void)ctx;
    snprintf(info->reason, sizeof info->reason, "%s", WHOLE_STEP_REASON);
    return MCB_ST_SKIPPED;
}

static void xpbd_iterate(void *work, double *v, double *lambda)
{
    (void)work, (void)v, (void)lambda;
}
static void xpbd_free(void **work)
{
    if (work) *work = NULL;
}

static const mcb_param_desc xpbd_params[] = {
    {"substeps", 'i', offsetof(mcb_xpbd_opts, substeps),
     "substeps per world step, h / substeps each (Macklin et al. 2019); default 20"},
    {"iters", 'i', offsetof(mcb_xpbd_opts, iters),
     "constraint iterations per substep; default 1 (Macklin et al. 2019: one is best for a "
     "given budget)"},
    {"reaction", 'i', offsetof(mcb_xpbd_opts, reaction),
     "1 (default): the joints' impulses on robot links act on the robots' dynamics one step "
     "late (staggered coupling: the cable pulls the arm); 0: the robots drive the free bodies "
     "kinematically and feel nothing back"},
};

static const mcb_solver_def xpbd_def = {
    .name = "xpbd",
    .description = "whole-step XPBD with substeps (closed loop only): rigid bodies, joints "
                   "(compliance 1/K), contacts with static and dynamic friction",
    .reference = "Macklin et al. 2019, Small steps in physics simulation; Mueller et al. 2020, "
                 "Detailed rigid body simulation with extended position based dynamics",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .accepts_problem = xpbd_accepts,
    .params_size = sizeof(mcb_xpbd_opts),
    .default_params = xpbd_defaults,
    .params = xpbd_params,
    .nparams = (int)(sizeof xpbd_params / sizeof xpbd_params[0]),
    .check_params = xpbd_check,
    .setup = xpbd_setup,
    .solve = xpbd_solve,
    .iterate = xpbd_iterate,
    .free = xpbd_free,
};

static const mcb_solver_def *const methods[] = {&xpbd_def};
#define NMETHODS ((int)(sizeof methods / sizeof methods[0]))

int mcb_whole_step_count(void) { return NMETHODS; }
const mcb_solver_def *mcb_whole_step_at(int k)
{
    return k >= 0 && k < NMETHODS ? methods[k] : NULL;
}

const mcb_solver_def *mcb_whole_step_find(const char *name)
{
    for (int k = 0; name && k < NMETHODS; k++)
        if (!strcmp(methods[k]->name, name)) return methods[k];
    return NULL;
}

int mcb_whole_step_is(const mcb_solver_def *def)
{
    for (int k = 0; def && k < NMETHODS; k++)
        if (methods[k] == def) return 1;
    return 0;
}

const mcb_solver_def *mcb_loop_method_find(const char *name)
{
    const mcb_solver_def *d = mcb_solver_find(name);
    return d ? d : mcb_whole_step_find(name);
}

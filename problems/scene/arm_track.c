/* arm_track.c: an arm whose joint PD targets follow a Cartesian path by
 * inverse kinematics on a private twin (arm_track.h), shared by the stir
 * and beam scenes. */
#include "problems/scene/arm_track.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* IK iterations per step: the twin starts from the last step's solution,
 * a few millimetres away. */
#define TRACK_STEP_ITERS 50

mcb_rc mcb_arm_track_new(mcb_arm_track *tr,
                         mcb_rc (*make)(const mcb_xform *base, mcb_robot **out, mcb_err *err),
                         const mcb_xform *base, mcb_err *err)
{
    if (!tr || !make) return mcb_fail(err, MCB_E_INPUT, "arm track: NULL argument");
    memset(tr, 0, sizeof *tr);
    mcb_rc rc = make(base, &tr->arm, err);
    if (!rc) rc = make(base, &tr->twin, err);
    if (!rc && !(tr->qprev = mcb_calloc((size_t)mcb_robot_nq(tr->twin) + 1, sizeof(double))))
        rc = mcb_fail(err, MCB_E_NOMEM, "arm track: out of memory");
    if (rc) {
        mcb_arm_track_free(tr);
        return rc;
    }
    tr->target.link = mcb_robot_nlinks(tr->arm) - 1;
    return MCB_OK;
}

void mcb_arm_track_tool(mcb_arm_track *tr, double grip_m,
                        void (*path)(const void *ctx, double t_s, mcb_ik_target *t),
                        const void *ctx, const double *seeds, int nseeds)
{
    if (!tr) return;
    tr->target.point[2] = grip_m;
    tr->target.orient = MCB_IK_FRAME;
    tr->target.tol = 1e-10;
    tr->path = path;
    tr->ctx = ctx;
    tr->seeds = seeds;
    tr->nseeds = nseeds;
    tr->seed_len = 7;
    tr->start_iters = 3000;
    tr->start_accept = 1e-8;
}

mcb_rc mcb_arm_track_start(mcb_arm_track *tr, mcb_world *w, const char *what, int *first,
                           mcb_err *err)
{
    if (!tr || !w || !tr->arm || tr->in_world || !tr->path)
        return mcb_fail(err, MCB_E_INPUT, "arm track: not ready to start");
    tr->path(tr->ctx, 0.0, &tr->target);
    double best = mcb_robot_ik_seeded(tr->twin, &tr->target, tr->seeds, tr->nseeds, tr->seed_len,
                                      tr->start_iters, tr->start_accept);
    if (!(best < tr->start_accept))
        return mcb_fail(err, MCB_E_NUMERIC, "%s (IK error %g)", what, best);
    size_t nq = (size_t)mcb_robot_nq(tr->twin);
    memcpy(mcb_robot_q(tr->arm), mcb_robot_q(tr->twin), nq * sizeof(double));
    memcpy(mcb_robot_q_ref(tr->arm), mcb_robot_q(tr->twin), nq * sizeof(double));
    mcb_robot_update(tr->arm);
    tr->in_world = 1; /* the world owns the arm from now on, also on failure */
    int f = 0;
    mcb_rc rc = mcb_world_add_robot(w, tr->arm, &f, err);
    if (first) *first = f;
    return rc;
}

mcb_rc mcb_arm_track_record(mcb_arm_track *tr, mcb_world *w, double h_s, int steps,
                            mcb_problem_set **out, mcb_err *err)
{
    if (!out) return mcb_fail(err, MCB_E_INPUT, "arm track: NULL output");
    *out = NULL;
    if (!tr || !w || !tr->in_world)
        return mcb_fail(err, MCB_E_INPUT, "arm track: recording before the start");
    mcb_problem_set *S = calloc(1, sizeof *S);
    if (!S) return mcb_fail(err, MCB_E_NOMEM, "arm track: out of memory");
    size_t nq = (size_t)mcb_robot_nq(tr->twin);
    mcb_rc rc = MCB_OK;
    for (int k = 0; k < steps && !rc; k++) {
        /* the targets of the step's end: q_ref by IK, v_ref = (q_ref - q_ref_prev) / h */
        memcpy(tr->qprev, mcb_robot_q(tr->twin), nq * sizeof(double));
        tr->path(tr->ctx, (k + 1) * h_s, &tr->target);
        mcb_robot_ik_solve(tr->twin, &tr->target, TRACK_STEP_ITERS);
        mcb_robot_track(tr->arm, mcb_robot_q(tr->twin), tr->qprev, h_s);
        mcb_step_info info;
        rc = mcb_world_step_into(w, S, &info, err);
    }
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

void mcb_arm_track_free(mcb_arm_track *tr)
{
    if (!tr) return;
    if (!tr->in_world) mcb_robot_free(&tr->arm);
    tr->arm = NULL;
    mcb_robot_free(&tr->twin);
    free(tr->qprev);
    tr->qprev = NULL;
}

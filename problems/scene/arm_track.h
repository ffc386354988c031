/* arm_track.h: an arm whose joint PD targets follow a Cartesian path, as
 * the stir and beam scenes drive their 7-DOF arms: the targets q_ref come
 * from damped-least-squares inverse kinematics (articulated.h) on a
 * private twin of the arm (IK never moves the simulated arm), v_ref from
 * their finite difference over the step. The arm starts at rest at the IK
 * solution of the path's start. */
#ifndef MCB_SCENE_ARM_TRACK_H
#define MCB_SCENE_ARM_TRACK_H

#include "problems/scene/world.h"

typedef struct {
    mcb_robot *arm;   /* the simulated arm; the world's after mcb_arm_track_start */
    mcb_robot *twin;  /* its IK twin (same model and base), owned */
    double *qprev;    /* the twin's q before the last IK (workspace) */
    int in_world;     /* 1: the world owns arm */
    /* set by the caller after mcb_arm_track_new: */
    mcb_ik_target target; /* what IK steers (link: the arm's last link by
                             default; point, orient, axis, tol); `path`
                             fills where to */
    void (*path)(const void *ctx, double t_s, mcb_ik_target *t);
    const void *ctx;
    const double *seeds; /* starts of the first IK (mcb_robot_ik_seeded) */
    int nseeds, seed_len, start_iters;
    double start_accept; /* the first IK's error must get below this */
} mcb_arm_track;

/* Builds the arm and its twin with make(base, ...) (a robot_models.h
 * constructor) and the workspace; *tr is zeroed first, target.link set to
 * the arm's last link. On failure frees what it built. */
mcb_rc mcb_arm_track_new(mcb_arm_track *tr,
                         mcb_rc (*make)(const mcb_xform *base, mcb_robot **out, mcb_err *err),
                         const mcb_xform *base, mcb_err *err);

/* The scenes' usual target, after mcb_arm_track_new: IK steers the tool
 * point grip_m along the last link's z and the link's whole frame
 * (MCB_IK_FRAME, tol 1e-10) along path(ctx, t); the first IK tries the
 * nseeds 7-entry seeds, 3000 iterations each, accepted below 1e-8. */
void mcb_arm_track_tool(mcb_arm_track *tr, double grip_m,
                        void (*path)(const void *ctx, double t_s, mcb_ik_target *t),
                        const void *ctx, const double *seeds, int nseeds);

/* IK on the twin to path(0) from the seeds; the arm then starts there at
 * rest (q = q_ref = the twin's q) and joins w, which owns it from then on
 * (also on failure); *first (may be NULL) receives the scene index of its
 * link 0. MCB_E_NUMERIC "<what> (IK error E)" when no seed gets the error
 * below start_accept. */
mcb_rc mcb_arm_track_start(mcb_arm_track *tr, mcb_world *w, const char *what, int *first,
                           mcb_err *err);

/* `steps` recorded steps of w (h_s each) into a new set *out (NULL on
 * failure): before step k the twin follows path((k + 1) h_s) by at most
 * 50 IK iterations from its last pose, and the arm's PD targets track the
 * twin's q (mcb_robot_track). */
mcb_rc mcb_arm_track_record(mcb_arm_track *tr, mcb_world *w, double h_s, int steps,
                            mcb_problem_set **out, mcb_err *err);

/* Frees the twin, the workspace, and the arm unless the world owns it.
 * Accepts NULL. */
void mcb_arm_track_free(mcb_arm_track *tr);

#endif

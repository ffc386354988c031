/* joint.h: the rows of the world's joints (joint.c), shared by the
 * stepping code (step.c) only; the public view is mcb_wjoint in world.h.
 * A row is given by its coefficients on the twists of its two bodies (each
 * twist [linear velocity of the body frame's origin; angular velocity],
 * world coordinates, as the body Jacobian Jb maps the DOFs to it), so that
 * the row of J is ja . twist_a + jb . twist_b, plus the violation phi and
 * the row's spring constants. Nothing here allocates. */
#ifndef MCB_SCENE_JOINT_H
#define MCB_SCENE_JOINT_H

#include "problems/scene/world.h"

typedef struct {
    double ja[6], jb[6]; /* coefficients on body a's and body b's twists */
    double phi;          /* violation (m or rad); 0 for a rolling row */
    double K, D;         /* soft: stiffness and damping of the row */
    /* the world points the row reads the velocity of (for kinematic
     * bodies' prescribed motion): xa on a, xb on b, and the direction */
    double xa[3], xb[3], dir[3];
    int angular;         /* 1: the row reads angular velocities */
} mcb_wjoint_row;

/* Checks a joint against the world's body count: known kind, bodies in
 * [-1, nbodies), a != b, finite fields, mask in 0..7, for soft rows K > 0
 * and D >= 0, for rolling a body a >= 0, radius > 0 and a non-zero axis. */
mcb_rc mcb_wjoint_check(const mcb_wjoint *j, int nbodies, mcb_err *err);

/* Rows the joint contributes (constant over its life). */
int mcb_wjoint_nrows(const mcb_wjoint *j);

/* The joint's rows at the body frames Xa and Xb (the world frame, identity,
 * for body -1) into rows (mcb_wjoint_nrows entries). */
void mcb_wjoint_eval(const mcb_wjoint *j, const mcb_xform *Xa, const mcb_xform *Xb,
                     mcb_wjoint_row *rows);

/* Rotation vector of a rotation matrix (the inverse of Rodrigues' formula;
 * angle in [0, pi]). */
void mcb_m3_log(const double R[9], double w[3]);

#endif

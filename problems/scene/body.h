/* body.h: the free rigid bodies of the scene engine (body.c), shared by the
 * stepping code (step.c) only; the public view is mcb_rigid in world.h.
 * A rigid body's DOFs are its twist [linear velocity of the centre of mass;
 * angular velocity], world coordinates; its frame origin is its centre of
 * mass. No function here allocates. */
#ifndef MCB_SCENE_BODY_H
#define MCB_SCENE_BODY_H

#include "problems/scene/world.h"

/* Checks a body before it joins a world: finite fields, mass > 0, a
 * symmetric positive definite inertia, a non-zero quaternion (normalised in
 * place by mcb_rigid_normalise). */
mcb_rc mcb_rigid_check(const mcb_rigid *b, mcb_err *err);
void mcb_rigid_normalise(mcb_rigid *b);

/* The body frame (centre of mass, orientation) in world. */
void mcb_rigid_pose(const mcb_rigid *b, mcb_xform *X);

/* The inertia tensor about the centre of mass in world: R I_body R^T. */
void mcb_rigid_inertia_world(const mcb_rigid *b, double Iw[9]);

/* The 6x6 mass block M = diag(m I3, R I_body R^T), row-major. */
void mcb_rigid_mass6(const mcb_rigid *b, double M[36]);

/* The explicit generalized force of eq. (2): [m g + f_ext;
 * tau_ext - w x (I_world w)] (the gyroscopic term taken explicitly). */
void mcb_rigid_force(const mcb_rigid *b, const double g[3], double f[6]);

/* Velocity of the body point x (world) under the twist tw = [v; w] of the
 * frame origin o = b->pos: v + w x (x - o). */
void mcb_rigid_point_velocity(const mcb_rigid *b, const double tw[6], const double x[3],
                              double u[3]);

/* Advances the pose over h with the mid-step twist vhat: pos += h v^_lin,
 * quat <- exp(h w^ / 2) quat (spatial.c). */
void mcb_rigid_advance(mcb_rigid *b, const double vhat[6], double h);

#endif

/* articulated.h: articulated robots in joint coordinates (Featherstone,
 * Rigid Body Dynamics Algorithms, ch. 4-6): a kinematic tree of links
 * joined by revolute, prismatic or fixed joints, on a fixed or floating
 * base; the mass matrix by the composite-rigid-body algorithm (CRBA), bias
 * forces by recursive Newton-Euler (RNEA), link Jacobians for contacts
 * (articulated.c). The built-in robots of the papers are in
 * robot_models.h.
 *
 * Generalized velocity layout (ndof entries): for a floating base first the
 * base twist [linear velocity of the base frame's origin; angular velocity],
 * both in world coordinates, then one rate per revolute or prismatic joint
 * in link order. Generalized position: base position and unit quaternion
 * (floating base only) then the joint coordinates. A fixed base sits at
 * `base` in the world. */
#ifndef MCB_SCENE_ARTICULATED_H
#define MCB_SCENE_ARTICULATED_H

#include "lib/mcb_error.h"
#include "problems/scene/geometry.h"
#include "problems/scene/spatial.h"

typedef enum { MCB_JOINT_REVOLUTE = 0, MCB_JOINT_PRISMATIC = 1, MCB_JOINT_FIXED = 2 } mcb_joint_type;

typedef struct {
    char name[32];
    int parent;          /* link index (< this link's index); -1: the base */
    int joint;           /* mcb_joint_type; ignored for link 0 of a floating base */
    double axis[3];      /* unit joint axis in the joint frame */
    mcb_xform placement; /* joint frame in the parent link's frame (at q = 0);
                            the link frame is the joint frame moved by q */
    double mass_kg;
    double com[3];       /* centre of mass in the link frame */
    double inertia[9];   /* about the centre of mass, in the link frame */
    double kp, kd;       /* joint PD gains (N m/rad and N m s/rad, or N/m and
                            N s/m); 0 and 0: a passive joint */
} mcb_link;

typedef struct mcb_robot mcb_robot;

/* Creates a robot from its links (copied). floating: link 0 is a free-
 * floating base (its `joint` is ignored, parent must be -1); otherwise link
 * 0's parent is the fixed base frame `base`. Allocates every workspace the
 * algorithms below need: none of them allocates. State starts at q = 0
 * (identity base orientation), zero velocity, q_ref = q. */
mcb_rc mcb_robot_new(const char *name, int floating, const mcb_xform *base, const mcb_link *links,
                     int nlinks, mcb_robot **out, mcb_err *err);
void mcb_robot_free(mcb_robot **r); /* accepts NULL */

const char *mcb_robot_name(const mcb_robot *r);
int mcb_robot_nlinks(const mcb_robot *r);
const mcb_link *mcb_robot_link(const mcb_robot *r, int k);
int mcb_robot_ndof(const mcb_robot *r);   /* 6 * floating + moving joints */
int mcb_robot_nq(const mcb_robot *r);     /* 7 * floating + moving joints */
int mcb_robot_floating(const mcb_robot *r);
/* Index of link k's joint coordinate in the velocity vector, -1 for a
 * fixed joint or a floating base link. */
int mcb_robot_dof_of_link(const mcb_robot *r, int k);
double mcb_robot_total_mass(const mcb_robot *r);

/* State: position (nq), velocity (ndof), and the PD targets (joint entries
 * only: one per moving joint, in link order). The pointers stay valid for
 * the robot's life; writing through them changes the state. Call
 * mcb_robot_update after changing q. */
double *mcb_robot_q(mcb_robot *r);
double *mcb_robot_v(mcb_robot *r);
double *mcb_robot_q_ref(mcb_robot *r);
double *mcb_robot_v_ref(mcb_robot *r);

/* PD targets following a joint-space path sampled every h: q_ref = q_new,
 * v_ref = (q_new - q_old) / h (joint entries, one per moving joint; a
 * fixed-base robot's q). */
void mcb_robot_track(mcb_robot *r, const double *q_new, const double *q_old, double h);

/* Forward kinematics at the current q: every link frame in world. */
void mcb_robot_update(mcb_robot *r);
const mcb_xform *mcb_robot_link_pose(const mcb_robot *r, int k); /* after update */

/* Joint-space mass matrix H(q) (ndof x ndof, column-major, symmetric
 * positive definite) by the CRBA, at the q of the last update. */
void mcb_robot_crba(const mcb_robot *r, double *H);
/* Inverse dynamics tau = H(q) a + C(q, v) v - g terms, by the RNEA, at the
 * last update's q and the current v, with gravity g (world, m/s^2):
 * tau = H a + c where c is the bias (Coriolis, centrifugal, gravity).
 * a = NULL means zero acceleration (tau = c, the bias). For a floating base
 * the first six entries are the base wrench [force; torque about the base
 * origin] in world coordinates, matching the base twist. */
void mcb_robot_rnea(const mcb_robot *r, const double *a, const double g[3], double *tau);
/* Twist Jacobian of link k's frame origin (6 x ndof, column-major): rows
 * 0-2 linear velocity of the origin, rows 3-5 angular velocity, world
 * coordinates, at the last update's q. */
void mcb_robot_link_jacobian(const mcb_robot *r, int k, double *Jk);
/* Advances q by h * v (quaternion integration for a floating base) and
 * calls update. */
void mcb_robot_integrate(mcb_robot *r, const double *v, double h);

/* ---- inverse kinematics (damped least squares) ----
 * Steers a point of one link (a grip point, a tool tip) to a target
 * position and the link's orientation to a target: the whole frame
 * (MCB_IK_FRAME) or one axis of the link to a world direction
 * (MCB_IK_AXIS, the rotation about that axis left free). The error is
 *     e = [p_target - p; rotation vector taking the current orientation
 *          (or axis) to the target's], world coordinates,
 * measured as |e_pos| + 0.1 |e_rot| (m and rad). One iteration is
 *     dq = J^T (J J^T + 1e-4 I)^-1 e,  each entry clamped to +-0.2,
 * J the 6 x ndof twist Jacobian of the point (rows: its linear velocity,
 * the link's angular velocity). For a fixed-base robot (q and v of the
 * same size); a floating one gets NaN and no change. Uses the robot's own
 * workspace: no allocation. */
typedef enum { MCB_IK_FRAME = 0, MCB_IK_AXIS = 1 } mcb_ik_orient;

typedef struct {
    int link;          /* the steered link */
    double point[3];   /* the steered point, link frame */
    int orient;        /* mcb_ik_orient */
    double axis[3];    /* MCB_IK_AXIS: the steered unit axis, link frame */
    double tol;        /* mcb_robot_ik_solve stops after an iteration that
                          started below this error */
    /* the target, world frame */
    double p[3];       /* position of the point */
    double R[9];       /* MCB_IK_FRAME: orientation of the link (row-major) */
    double dir[3];     /* MCB_IK_AXIS: direction of the axis (unit) */
} mcb_ik_target;

/* The error e (may be NULL) of r's current pose (after an update) towards
 * t; returns its measure |e_pos| + 0.1 |e_rot|. */
double mcb_robot_ik_error(const mcb_robot *r, const mcb_ik_target *t, double e[6]);
/* At most `iters` iterations from r's current q (r is updated after each);
 * returns the error measure at the final q. */
double mcb_robot_ik_solve(mcb_robot *r, const mcb_ik_target *t, int iters);
/* mcb_robot_ik_solve from each start in turn: seed s sets q[j] =
 * seeds[s * seed_len + j] for j < seed_len, 0 beyond. Stops at the first
 * whose final error is below `accept` and returns that error; otherwise
 * returns the last seed's (r then holds the last seed's result). */
double mcb_robot_ik_seeded(mcb_robot *r, const mcb_ik_target *t, const double *seeds, int nseeds,
                           int seed_len, int iters, double accept);

/* Index of the link named `name`, -1 if none. */
int mcb_robot_link_index(const mcb_robot *r, const char *name);

/* Link geometry: shapes with s->body = the link index and s->local the
 * shape frame in the link frame (copied). The built-in robots come with
 * theirs. */
mcb_rc mcb_robot_add_shape(mcb_robot *r, const mcb_shape *s, mcb_err *err);
const mcb_shape *mcb_robot_shapes(const mcb_robot *r, int *count);

#endif

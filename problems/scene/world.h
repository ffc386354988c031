/* world.h: a scene's world and its time stepping (CANAL paper eq. (2)):
 * free rigid bodies in maximal coordinates (6 DOF each), articulated robots
 * in joint coordinates, static and attached shapes; each step assembles the
 * subproblem
 *     A v^ = b + J^T lambda,  (J v^ + e, lambda) in S
 * in the mid-step velocity v^ = theta v_k + (1 - theta) v_{k+1}, solves it
 * with a registered solver to a tight tolerance (with a fallback solver when
 * it fails), records it, and advances the state. body.c holds the rigid
 * bodies, step.c the assembly, the solve and the record.
 *
 * Scene body indices (as in mcb_contact and mcb_shape): free rigid bodies
 * 0..nrigid-1 in order of mcb_world_add_body, then the links of each robot
 * in order of mcb_world_add_robot; -1 is the static world. DOF order: the
 * rigid bodies' 6 DOFs each ([linear velocity of the centre of mass;
 * angular velocity], world coordinates), then each robot's ndof. Each rigid
 * body and each robot is one subsystem. */
#ifndef MCB_SCENE_WORLD_H
#define MCB_SCENE_WORLD_H

#include "geometry.h"
#include "mcb_problem.h"
#include "robot.h"

typedef struct {
    double mass_kg;
    double inertia[9];  /* about the centre of mass, body frame */
    double pos[3];      /* centre of mass, world */
    double quat[4];     /* orientation (body to world) */
    double vel[6];      /* [linear; angular], world */
    double wrench[6];   /* external [force; torque about the centre of mass],
                           world, applied during every step (N, N m) */
    int kinematic;      /* 1: moves with vel regardless of forces (a scripted
                           body such as a projectile launcher): excluded from
                           the DOFs, its contacts see it as moving static */
} mcb_rigid;

typedef struct {
    double h_s;           /* time step */
    double theta;         /* eq. (2): 0 implicit (default), 0.5 midpoint */
    double gravity[3];    /* default (0, 0, -9.81) */
    double margin_m;      /* contacts closer than this are kept (default 1 mm) */
    int cap_per_pair;     /* clustering cap per body pair (0: none) */
    int cap_total;        /* clustering cap over the step (0: none) */
    double erp;           /* e_n = erp * gap / h (default 1: close the gap in
                             one step; < 1 relaxes it) */
    const char *solver;   /* registered solver advancing the scene (default "pgs") */
    const char *fallback; /* used when `solver` does not reach tol (default "subadmm") */
    double tol;           /* natural-map residual of the advance (default 1e-10) */
    int max_iters;        /* per solver (default 20000) */
} mcb_world_opts;

void mcb_world_defaults(mcb_world_opts *o);

typedef struct mcb_world mcb_world;

mcb_rc mcb_world_new(const mcb_world_opts *o, mcb_world **out, mcb_err *err);
void mcb_world_free(mcb_world **w); /* accepts NULL; frees the robots it owns */

/* Adds a free rigid body (copied); returns its body index in *index. */
mcb_rc mcb_world_add_body(mcb_world *w, const mcb_rigid *b, int *index, mcb_err *err);
/* Adds a robot; the world owns it from now on (also on failure). Its
 * shapes join the world with body = the scene index of their link. *first
 * receives the scene index of its link 0. */
mcb_rc mcb_world_add_robot(mcb_world *w, mcb_robot *r, int *first, mcb_err *err);
/* Adds a shape attached to scene body s->body (-1: static). */
mcb_rc mcb_world_add_shape(mcb_world *w, const mcb_shape *s, mcb_err *err);
/* A body b (copied; NULL: none, the shape is static) with one primitive
 * shape of `type`, `size` and friction mu in its frame (a plane: the
 * half-space z <= 0 of the world). *index (may be NULL) receives the body's
 * index, -1 when static. */
mcb_rc mcb_world_add_primitive(mcb_world *w, const mcb_rigid *b, int type, const double size[3],
                               double mu, int *index, mcb_err *err);

int mcb_world_nrigid(const mcb_world *w);
mcb_rigid *mcb_world_body(mcb_world *w, int k);
int mcb_world_nrobots(const mcb_world *w);
mcb_robot *mcb_world_robot(mcb_world *w, int k);
int mcb_world_ndof(const mcb_world *w);
int mcb_world_nbodies(const mcb_world *w);   /* rigid bodies + robot links */
const mcb_xform *mcb_world_body_pose(const mcb_world *w, int body); /* frame in world */

/* What a step did. */
typedef struct {
    int contacts;           /* after clustering */
    int iterations;         /* of the solver that produced the accepted solution */
    int used_fallback;      /* 1: the fallback solver's solution was used */
    double residual;        /* natural-map residual of the accepted solution */
    double setup_solve_s;
} mcb_step_info;

/* One step: detects contacts at the current state, assembles the
 * subproblem, solves it, advances the state by h. With `record` non-NULL,
 * *record receives the step's problem (owned by the caller), complete as
 * docs/problem-format.md describes: A, b, J, e, blocks with mu, the
 * subsystem partition, h, the step index, the previous step's solution as
 * the initial guess (lambda matched by contact key, 0 for new contacts),
 * the accepted solution as the reference, the descriptors (mass ratio,
 * cond(J A^-1 J^T) estimate) and the body factorization J = Jc Jb with the
 * kinematic tree. The name is "<prefix>-step%04d", scene/source/notes as
 * given by mcb_world_describe. Fails (no state change) when neither solver
 * reaches 100 x tol. */
mcb_rc mcb_world_step(mcb_world *w, mcb_problem **record, mcb_step_info *info, mcb_err *err);

/* One recorded step appended to S (the record is freed if the append
 * fails). */
mcb_rc mcb_world_step_into(mcb_world *w, mcb_problem_set *S, mcb_step_info *info, mcb_err *err);

/* `steps` recorded steps into a new set *out (NULL on failure), for scenes
 * whose targets do not change between steps. */
mcb_rc mcb_world_record(mcb_world *w, int steps, mcb_problem_set **out, mcb_err *err);

/* Provenance written into every recorded problem. */
mcb_rc mcb_world_describe(mcb_world *w, const char *prefix, const char *scene, const char *source,
                          const char *notes, mcb_err *err);

/* Largest mass ratio among the world's bodies (rigid bodies and robot
 * links, kinematic bodies excluded). */
double mcb_world_mass_ratio(const mcb_world *w);

/* Estimate of cond(J A^-1 J^T) restricted to its range: the ratio of the
 * largest to the smallest Ritz value above 1e-12 of it, from at most 80
 * Lanczos steps with full reorthogonalization started from a fixed vector
 * in the range (so deterministic; power iteration on a shifted operator
 * fails when redundant contacts make the operator singular). NaN above
 * 60 000 constraint rows and for dual problems (docs/stepping.md). */
double mcb_problem_cond_estimate(const mcb_problem *P);

#endif

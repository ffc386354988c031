/* world.h: a scene's world and its time stepping (CANAL paper eq. (2)):
 * free rigid bodies in maximal coordinates (6 DOF each), articulated robots
 * in joint coordinates, static and attached shapes; each step assembles the
 * subproblem
 *     A v^ = b + J^T lambda,  (J v^ + e, lambda) in S
 * in the mid-step velocity v^ = theta v_k + (1 - theta) v_{k+1}, solves it
 * with a registered solver to a tight tolerance (with a fallback solver when
 * it fails), records it, and advances the state. body.c holds the rigid
 * bodies, world.c the world container, assembly.c the assembly of (A, b,
 * J, e), step.c the solve, the record and the advance; world_internal.h is
 * what these three share.
 *
 * Scene body indices (as in mcb_contact and mcb_shape): free rigid bodies
 * 0..nrigid-1 in order of mcb_world_add_body, then the links of each robot
 * in order of mcb_world_add_robot, then the nodes of each mesh in order of
 * mcb_world_add_fem; -1 is the static world. DOF order: the rigid bodies'
 * 6 DOFs each ([linear velocity of the centre of mass; angular velocity],
 * world coordinates), then each robot's ndof, then 3 per mesh node. Each
 * rigid body (or group merged by mcb_world_merge_subsystem), each robot and
 * each mesh piece is one subsystem. Constraint rows: 3 per contact, then
 * the joints' rows in order of addition (mesh ties first, as the meshes
 * add them). */
#ifndef MCB_SCENE_WORLD_H
#define MCB_SCENE_WORLD_H

#include "problems/scene/geometry.h"
#include "lib/mcb_problem.h"
#include "problems/scene/articulated.h"

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

struct mcb_world_loop;

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
    const struct mcb_world_loop *loop; /* closed loop (below); NULL: none */
    double fail_pen_m;    /* closed loop: a penetration deeper than this fails
                             the run (default 0: 10 x margin_m, at least 1 cm) */
    double fail_energy_J; /* closed loop: an energy gain above this fails the run
                             (default 0: 1 J + the energy of lifting every body
                             by 1 m) */
    int loop_fold_soft;   /* closed loop: 1 hands the solver the step's problem
                             with its soft rows folded into A (as the engine's
                             own solve does: an elastic body's stiffness as
                             part of the dynamics, COND's eq. (1)), their
                             impulses recovered from their law; 0 (default):
                             the soft rows as constraint rows */
    double contact_compliance; /* r (1/kg) on every contact row: the law holds
                             for u = J v + e + r lambda (lib/mcb_problem.h's
                             per-row compliance), COND's invertible contact
                             model (Sec. III-E1): the impulse is then a
                             function of the velocity (mcb_contact_inverse).
                             0 (default): hard contacts */
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

/* ---------- joints, soft couplings, meshes (docs/stepping.md) ----------
 * Body order: free rigid bodies, robot links, then the nodes of each mesh
 * (a node is a point body: pose = its position with identity rotation, its
 * twist [node velocity; 0]). Meshes must be added after every rigid body
 * and robot, joints after every body, robot and mesh (so that the scene
 * indices they name stay put): the world refuses other orders. */

/* A joint's rows (world.h's joint kinds):
 *  MCB_WJ_POINT:   phi = Ra^T (xb - xa) - rest, xa = point pa of body a,
 *                  xb = point pb of body b: rows along body a's frame axes
 *                  (world axes when a = -1), row r of J v = (Ra e_r) .
 *                  (u_b(xb) - u_a(xa)) (the relative velocity of the points);
 *  MCB_WJ_ANGULAR: phi = log(Ra^T Rb Rrest^T) (rotation vector, body a's
 *                  frame): rows (Ra e_r) . (w_b - w_a);
 *  MCB_WJ_ROLLING: body a is a wheel of radius `radius` about its frame's
 *                  axis `axis` (pa: wheel centre in its frame) rolling on
 *                  the horizontal plane under it: two rows, the velocity of
 *                  the lowest wheel point along the rolling direction and
 *                  along the axle's horizontal projection (no slip, no skid:
 *                  non-holonomic, phi = 0, body b ignored).
 * A hard joint (soft = 0) gives bilateral rows J v + e = 0 with
 * e = erp phi / h. A soft joint gives, per row r with stiffness K_r > 0
 * (N/m or N m/rad) and damping D_r >= 0, the SubADMM paper's eq. (3)
 * lambda = -k (e + alpha J v) with k = h^2 K_r, e = phi_r / h and
 * alpha = 1 + D_r / (h K_r): the implicit spring impulse
 * -h K (phi + h J v) - h D J v. Rows whose mask bit is clear are left out;
 * consecutive rows with equal (K, D) share one constraint block. */
typedef enum { MCB_WJ_POINT = 0, MCB_WJ_ANGULAR = 1, MCB_WJ_ROLLING = 2 } mcb_wjoint_kind;

typedef struct {
    int kind;            /* mcb_wjoint_kind */
    int body_a, body_b;  /* scene indices; -1: the static world */
    double pa[3], pb[3]; /* anchors in each body's frame (world frame for -1) */
    double rest[3];      /* POINT: rest offset in body a's frame */
    double rest_q[4];    /* ANGULAR: rest relative rotation Ra^T Rb (w x y z;
                            all zero means identity) */
    double axis[3];      /* ROLLING: the wheel axle in body a's frame */
    double radius;       /* ROLLING: wheel radius (m) */
    int mask;            /* rows kept (bits 0..2; 0 means all) */
    int soft;            /* 0: hard (bilateral), 1: soft (eq. (3)) */
    double stiffness[3]; /* soft: K per row (> 0) */
    double damping[3];   /* soft: D per row (>= 0) */
} mcb_wjoint;

/* Adds a joint (copied); its index (in order of addition) in *index (may
 * be NULL). Checks body indices, finite fields, positive stiffness for
 * soft rows and radius for rolling. */
mcb_rc mcb_world_add_joint(mcb_world *w, const mcb_wjoint *j, int *index, mcb_err *err);
int mcb_world_njoints(const mcb_world *w);
/* A Cartesian impedance holding body b at body a's frame (a scripted hand
 * holding an object, as a robot's impedance controller does): a soft point
 * joint (stiffness k_lin N/m, damping d_lin N s/m on each axis) and a soft
 * angular joint (k_ang N m/rad, d_ang N m s/rad), rest at the two bodies'
 * relative placement when added: b's centre at a's and the same orientation
 * (the caller places them so). */
mcb_rc mcb_world_add_impedance(mcb_world *w, int a, int b, double k_lin, double d_lin,
                               double k_ang, double d_ang, mcb_err *err);
/* The joint's rows' impulses at the last step (its row count in *rows). */
const double *mcb_world_joint_lambda(const mcb_world *w, int joint, int *rows);

/* The free rigid bodies first .. first+count-1 (consecutive, not
 * kinematic) form one subsystem (the SubADMM paper's cable: 4 segments
 * per subsystem). */
mcb_rc mcb_world_merge_subsystem(mcb_world *w, int first, int count, mcb_err *err);

struct mcb_fem;
/* Adds a tetrahedral mesh (fem.h); the world owns it from now on (also on
 * failure). Each of its pieces is a subsystem, its ties become hard point
 * joints, and each of its surface nodes gets a sphere of radius
 * node_radius_m (> 0) with friction mu for contacts (the mesh's own nodes
 * never collide with each other). *first_node receives the scene index of
 * node 0. */
mcb_rc mcb_world_add_fem(mcb_world *w, struct mcb_fem *f, double node_radius_m, double mu,
                         int *first_node, mcb_err *err);
int mcb_world_nfems(const mcb_world *w);
struct mcb_fem *mcb_world_fem(mcb_world *w, int k);

int mcb_world_nrigid(const mcb_world *w);
mcb_rigid *mcb_world_body(mcb_world *w, int k);
int mcb_world_nrobots(const mcb_world *w);
mcb_robot *mcb_world_robot(mcb_world *w, int k);
int mcb_world_ndof(const mcb_world *w);
int mcb_world_nbodies(const mcb_world *w);   /* rigid bodies + robot links + mesh nodes */
const mcb_xform *mcb_world_body_pose(const mcb_world *w, int body); /* frame in world */

/* What a step did, and where its time went (stage numbers of step.c). */
typedef struct {
    int contacts;           /* after clustering */
    int iterations;         /* of the solver that produced the accepted solution */
    int used_fallback;      /* 1: the fallback solver's solution was used */
    double residual;        /* natural-map residual of the accepted solution */
    double setup_solve_s;   /* stages 1-5 */
    double detect_s;        /* stages 1-2: layout, poses, collision detection */
    double assemble_s;      /* stages 3-4 and the warm start: A, b, J, e */
    double solve_s;         /* stage 5 (with a loop hook: the hook's wall time) */
    double advance_s;       /* stages 6-7: record, remember, advance */
    double engine_s;        /* detect_s + assemble_s + advance_s (COND's DT) */
    double depth_m;         /* an XPBD step (loop->xpbd): the largest penetration its
                               contacts are left with, m; NaN otherwise */
} mcb_step_info;

/* ---------- closed loop (harness/closed_loop.c, docs/closed-loop.md) ----------
 * A world whose options carry a loop does not judge its own steps: stage 5
 * hands the step's problem P (complete as a recorded step: warm start,
 * blocks, soft rows as they are, no reference solution) to loop->solve,
 * which writes v^ (P->n) and lambda (P->m); the world advances with
 * whatever it returns: no fallback, no acceptance check. loop->solve NULL:
 * the world's own solver and fallback as without a loop (a reference
 * run). After each advance, loop->after sees the world and the step's
 * info. A non-zero return from either stops the scene with that code and
 * message (a failed solve moves nothing). A world in a loop keeps no
 * records: mcb_world_step returns none, so the scenes' problem sets stay
 * empty.
 * xpbd non-NULL: a whole-step method instead of a solver (xpbd.h): no
 * subproblem is assembled or handed to solve (which is not called); the
 * robots advance by their own dynamics without constraint rows and the
 * free bodies by XPBD's substeps (xpbd.c); info->iterations = substeps x
 * iters, info->solve_s = the substeps' wall time, info->depth_m the depth
 * the step leaves; the joints' impulses (mcb_world_joint_lambda) are
 * XPBD's multipliers summed over the substeps. */
struct mcb_xpbd_opts;
typedef struct mcb_world_loop {
    mcb_rc (*solve)(void *ctx, const mcb_problem *P, double *v, double *lambda, mcb_err *err);
    mcb_rc (*after)(void *ctx, mcb_world *w, const mcb_step_info *info, mcb_err *err);
    void *ctx;
    const struct mcb_xpbd_opts *xpbd;
} mcb_world_loop;

/* A scene's own outcome (docs/scenes.md, "Closed loop"): a number the scene
 * computes from the world after every step (the nut's advance, the
 * quadrupeds upright, ...), and the range it must stay in (checked from
 * step `from_step` on; NaN bounds: none). A closed-loop run whose outcome
 * leaves the range fails in the loop. */
typedef struct {
    const char *name;  /* "nut_advance" */
    const char *unit;  /* "m" */
    double (*eval)(const void *ctx, mcb_world *w);
    const void *ctx;   /* the scene's, alive while the scene runs */
    double fail_below, fail_above;
    int from_step;
} mcb_world_outcome;

/* Sets the world's outcome (copied; the strings and ctx are borrowed). */
void mcb_world_set_outcome(mcb_world *w, const mcb_world_outcome *o);
/* The world's outcome; NULL when the scene defines none. */
const mcb_world_outcome *mcb_world_get_outcome(const mcb_world *w);
const mcb_world_opts *mcb_world_options(const mcb_world *w);
int mcb_world_step_index(const mcb_world *w); /* steps taken */

/* The world's energy (measures.c): E[0] kinetic, E[1] gravitational
 * potential (height above z = 0), E[2] elastic (soft joints' springs
 * 1/2 K phi^2, meshes' linear-elastic 1/2 u^T K u with u the nodes'
 * displacement from rest; J). */
void mcb_world_energy(mcb_world *w, double E[3]);
/* The largest |phi| over the hard joint rows (m for point rows, rad for
 * angular ones; rolling rows have none): the bilateral drift; and over the
 * soft rows in *soft (may be NULL). */
double mcb_world_joint_drift(mcb_world *w, double *soft);
/* The sum over bodies of mass x |g| x 1 m: the default energy bound's scale. */
double mcb_world_weight_J(const mcb_world *w);

/* One step: detects contacts at the current state, assembles the
 * subproblem, solves it, advances the state by h. With `record` non-NULL,
 * *record receives the step's problem (owned by the caller), complete as
 * docs/problem-format.md describes: A, b, J, e, blocks with mu, the
 * subsystem partition, h, the step index, the previous step's solution as
 * the initial guess (lambda matched by contact key, 0 for new contacts),
 * the accepted solution as the reference, the descriptors (mass ratio,
 * cond(J A^-1 J^T) estimate: mcb_problem_cond_estimate, describe.h) and
 * the body factorization J = Jc Jb with the kinematic tree. The name is "<prefix>-step%04d", scene/source/notes as
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

#endif

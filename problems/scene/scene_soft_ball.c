/* scene_soft_ball.c: COND's soft ball gripping (COND paper Sec. V-C4,
 * Tables III-IV, Fig. 8): a rigid gripper, a 6-DOF driven base with two
 * prismatic fingers (8 DOF), grasps a co-rotational FEM ball resting on
 * the floor and lifts it. The paper's mesh: 1463 nodes and 6928
 * tetrahedra, DOF 4397 (= 1463 x 3 + 8: the gripper's 8), 41568
 * constraints; Table IV sweeps the ball's Young's modulus over 0.1, 1 and
 * 10 MPa. The paper's other values (radius, E, nu, friction and their
 * random ranges, time step) were lost from our copy: ours are below and in
 * docs/scenes.md ("soft-ball").
 *
 * What we build:
 *  - the ball: mcb_fem_ball (docs/fem.md, "The ball") of radius BALL_R_M
 *    on a --cells grid (13: 1586 nodes, 6990 tets, DOF 4766), co-rotational,
 *    nu BALL_NU, density BALL_RHO, light stiffness damping; its surface
 *    nodes are contact spheres of radius NODE_R_M; resting on the floor;
 *  - the gripper: a fixed base frame above the floor, then prismatic x, y,
 *    z and revolute z, y, x joints (the 6-DOF base, PD-driven), the palm
 *    (a box) and two fingers (boxes) on prismatic joints closing along y;
 *    every joint PD-driven towards scripted targets (docs/robots.md's
 *    gains rule is not used: the gains are below);
 *  - the motion: the fingers, open FINGER_GAP_M from the ball, close by
 *    the gap plus SQUEEZE_M over CLOSE_S (the fingers' PD then presses the
 *    ball), then the base lifts by LIFT_M over LIFT_S, then holds;
 *  - randomised by --seed: E = --stiffness x U[0.8, 1.2], friction
 *    U[0.4, 0.8] (ball against floor and fingers).
 * Every step is recorded ("soft-ballN-stepKKKK", N the node count).
 * Closed loop: the outcome is the norm of the ball's internal elastic
 * force (N), COND's "IE" (its error against the reference trajectory is
 * what Table III reports), with no failure bound.
 *
 * Fails with MCB_E_INPUT on bad options, and with the step's error when a
 * step cannot be solved; frees everything it allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_rng.h"
#include "problems/scene/fem.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define BALL_R_M 0.04          /* ball radius (our choice) */
#define BALL_NU 0.4            /* Poisson's ratio (our choice) */
#define BALL_RHO 1000.0        /* density (our choice): 0.27 kg */
#define BALL_DAMP_S 0.002      /* Rayleigh stiffness damping b (our choice) */
#define NODE_R_M 0.001         /* contact sphere radius of the surface nodes */
#define FINGER_GAP_M 0.01      /* open fingers' inner faces from the ball */
#define FINGER_T_M 0.005       /* finger half thickness (along the closing axis) */
#define SQUEEZE_M 0.006        /* finger target past first touch */
#define CLOSE_S 0.2            /* closing time */
#define LIFT_M 0.05            /* lift height */
#define LIFT_S 0.3             /* lifting time */
#define SB_TOL 1e-8            /* natural-map residual of the reference */
#define SB_MAX_ITERS 20000

/* Gripper links: the base chain, the palm, the fingers. */
enum { L_X, L_Y, L_Z, L_YAW, L_PITCH, L_PALM, L_LEFT, L_RIGHT, NLINKS };

/* Options in table order (scenes.c). */
enum { OPT_CELLS, OPT_STEPS, OPT_STIFFNESS, OPT_SEED, OPT_DT, OPT_COMPLIANCE };

typedef struct {
    mcb_fem *ball;     /* the world's */
    double *force;     /* 3 per node */
} ball_ctx;

static double internal_force(const void *ctx, mcb_world *w)
{
    (void)w;
    const ball_ctx *c = ctx;
    return mcb_fem_elastic_force(c->ball, c->force);
}

static double smooth(double u) { return u <= 0 ? 0 : u >= 1 ? 1 : u * u * (3 - 2 * u); }

/* The gripper's joint targets at time t (8 entries: x, y, z, yaw, pitch,
 * roll, left, right). */
static void targets_at(double t, double q[NLINKS])
{
    memset(q, 0, NLINKS * sizeof *q);
    double close = (FINGER_GAP_M + SQUEEZE_M) * smooth(t / CLOSE_S);
    q[L_LEFT] = q[L_RIGHT] = close;
    q[L_Z] = LIFT_M * smooth((t - CLOSE_S) / LIFT_S);
}

static void set_link(mcb_link *L, const char *name, int parent, int joint, double ax, double ay,
                     double az, mcb_xform place, double m, double I, double kp, double kd)
{
    memset(L, 0, sizeof *L);
    snprintf(L->name, sizeof L->name, "%s", name);
    L->parent = parent, L->joint = joint;
    L->axis[0] = ax, L->axis[1] = ay, L->axis[2] = az;
    L->placement = place;
    L->mass_kg = m;
    L->inertia[0] = L->inertia[4] = L->inertia[8] = I;
    L->kp = kp, L->kd = kd;
}

static mcb_rc add_box_shape(mcb_robot *r, int link, double z, const double half[3], mcb_err *err)
{
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = MCB_SHAPE_BOX;
    s.body = link;
    s.local = mcb_xform_identity();
    s.local.p[2] = z;
    memcpy(s.size, half, sizeof s.size);
    s.mu = 1.0; /* the ball's (smaller) friction is the pair's */
    return mcb_robot_add_shape(r, &s, err);
}

/* The gripper: base frame at the ball's centre. Gains (ours): base
 * translation kp 2e4 N/m, rotation 50 N m/rad, fingers 2000 N/m, each
 * critically damped on its own mass or inertia. */
static mcb_rc make_gripper(const double centre[3], mcb_robot **out, mcb_err *err)
{
    const double m_palm = 0.5, m_finger = 0.05, m_chain = 0.01, I_chain = 1e-6;
    const double m_all = m_palm + 2 * m_finger + 5 * m_chain, I_palm = 2e-3;
    const double kp_lin = 2e4, kp_rot = 50, kp_f = 2000;
    const double kd_lin = 2 * sqrt(kp_lin * m_all), kd_rot = 2 * sqrt(kp_rot * I_palm);
    const double kd_f = 2 * sqrt(kp_f * m_finger);
    mcb_link L[NLINKS];
    mcb_xform id = mcb_xform_identity();
    set_link(&L[L_X], "x", -1, MCB_JOINT_PRISMATIC, 1, 0, 0, id, m_chain, I_chain, kp_lin, kd_lin);
    set_link(&L[L_Y], "y", L_X, MCB_JOINT_PRISMATIC, 0, 1, 0, id, m_chain, I_chain, kp_lin, kd_lin);
    set_link(&L[L_Z], "z", L_Y, MCB_JOINT_PRISMATIC, 0, 0, 1, id, m_chain, I_chain, kp_lin, kd_lin);
    set_link(&L[L_YAW], "yaw", L_Z, MCB_JOINT_REVOLUTE, 0, 0, 1, id, m_chain, I_chain, kp_rot, kd_rot);
    set_link(&L[L_PITCH], "pitch", L_YAW, MCB_JOINT_REVOLUTE, 0, 1, 0, id, m_chain, I_chain, kp_rot,
             kd_rot);
    set_link(&L[L_PALM], "palm", L_PITCH, MCB_JOINT_REVOLUTE, 1, 0, 0, id, m_palm, I_palm, kp_rot,
             kd_rot);
    double y0 = BALL_R_M + NODE_R_M + FINGER_GAP_M + FINGER_T_M;
    mcb_xform pl = id, pr = id;
    pl.p[1] = y0, pr.p[1] = -y0;
    set_link(&L[L_LEFT], "finger_left", L_PALM, MCB_JOINT_PRISMATIC, 0, -1, 0, pl, m_finger, 1e-5,
             kp_f, kd_f);
    set_link(&L[L_RIGHT], "finger_right", L_PALM, MCB_JOINT_PRISMATIC, 0, 1, 0, pr, m_finger, 1e-5,
             kp_f, kd_f);
    mcb_xform base = id;
    memcpy(base.p, centre, sizeof base.p);
    mcb_robot *r = NULL;
    mcb_rc rc = mcb_robot_new("gripper8", 0, &base, L, NLINKS, &r, err);
    if (rc) return rc;
    /* the palm over the ball, the fingers from below its centre up to the palm */
    const double palm[3] = {0.02, y0 + FINGER_T_M, 0.01};
    const double finger[3] = {0.015, FINGER_T_M, 0.5 * (BALL_R_M + 0.03)};
    rc = add_box_shape(r, L_PALM, BALL_R_M + 0.02, palm, err);
    if (!rc) rc = add_box_shape(r, L_LEFT, 0.5 * (BALL_R_M + 0.01) - 0.02, finger, err);
    if (!rc) rc = add_box_shape(r, L_RIGHT, 0.5 * (BALL_R_M + 0.01) - 0.02, finger, err);
    if (rc) mcb_robot_free(&r);
    *out = r;
    return rc;
}

mcb_rc mcb_scene_soft_ball(const double *vals, const struct mcb_world_loop *loop,
                           mcb_problem_set **out, mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "soft-ball: NULL argument");
    *out = NULL;
    int cells = (int)vals[OPT_CELLS], steps = (int)vals[OPT_STEPS];
    double h = vals[OPT_DT];
    if (cells < 2 || steps < 1 || !(vals[OPT_STIFFNESS] > 0) || !(h > 0))
        return mcb_fail(err, MCB_E_INPUT,
                        "soft-ball: --cells >= 2, --steps >= 1, --stiffness and --dt > 0");
    mcb_rng rng;
    mcb_rng_seed(&rng, (unsigned long long)vals[OPT_SEED]);
    double young = 1e6 * vals[OPT_STIFFNESS] * (0.8 + 0.4 * mcb_rng_uniform(&rng));
    double mu = 0.4 + 0.4 * mcb_rng_uniform(&rng);

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = h;
    o.tol = SB_TOL;
    o.max_iters = SB_MAX_ITERS;
    o.contact_compliance = vals[OPT_COMPLIANCE];
    mcb_world *w = NULL;
    mcb_robot *grip = NULL;
    mcb_fem *ball = NULL;
    mcb_problem_set *S = NULL;
    ball_ctx bc = {NULL, NULL};
    mcb_fem_opts fo;
    mcb_fem_defaults(&fo);
    fo.size[0] = fo.size[1] = fo.size[2] = 2 * BALL_R_M;
    fo.cells[0] = fo.cells[1] = fo.cells[2] = cells;
    fo.young_pa = young, fo.poisson = BALL_NU, fo.density = BALL_RHO;
    fo.rayleigh_stiff = BALL_DAMP_S;
    fo.corotational = 1;
    /* the lowest node's sphere on the floor (the mesh has no node at the
     * pole for every grid): meshed at the origin, then placed */
    mcb_rc rc = mcb_fem_ball(&fo, &ball, err);
    if (rc) return rc;
    double zmin = INFINITY;
    for (int k = 0; k < mcb_fem_nnodes(ball); k++) zmin = fmin(zmin, mcb_fem_rest(ball)[3 * k + 2]);
    mcb_fem_free(&ball);
    const double centre[3] = {0, 0, NODE_R_M - zmin};
    memcpy(fo.pose.p, centre, sizeof fo.pose.p);
    rc = mcb_fem_ball(&fo, &ball, err);
    if (!rc) rc = mcb_world_new(&o, &w, err);
    if (!rc) rc = mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, mu, NULL, err);
    if (!rc) rc = make_gripper(centre, &grip, err);
    int first_link = 0, first_node = 0;
    if (!rc) {
        mcb_robot *g = grip;
        grip = NULL;
        rc = mcb_world_add_robot(w, g, &first_link, err); /* owned by w */
    }
    if (rc) goto done;
    int nodes = mcb_fem_nnodes(ball);
    bc.ball = ball;
    bc.force = mcb_calloc(3 * (size_t)nodes, sizeof(double));
    if (!bc.force) {
        rc = mcb_fail(err, MCB_E_NOMEM, "soft-ball: out of memory");
        goto done;
    }
    mcb_fem *b = ball;
    ball = NULL;
    rc = mcb_world_add_fem(w, b, NODE_R_M, mu, &first_node, err); /* owned by w */
    if (rc) goto done;
    mcb_world_set_outcome(w, &(mcb_world_outcome){"internal_force", "N", internal_force, &bc, NAN,
                                                  NAN, 0});
    char src[512], prefix[64], notes[256];
    mcb_scene_args_named("soft-ball", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "soft-ball%d", nodes);
    snprintf(notes, sizeof notes,
             "COND Sec. V-C4 (Tables III-IV): an 8-DOF gripper grasps and lifts a co-rotational "
             "FEM ball (r %.3g m, %d nodes, E %.4g Pa, nu %.3g, mu %.3g)",
             BALL_R_M, nodes, young, BALL_NU, mu);
    rc = mcb_world_describe(w, prefix, "soft-ball", src, notes, err);
    if (rc) goto done;
    S = mcb_calloc(1, sizeof *S);
    if (!S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "soft-ball: out of memory");
        goto done;
    }
    mcb_robot *r = mcb_world_robot(w, 0);
    double q_old[NLINKS], q_new[NLINKS];
    targets_at(0, q_old);
    for (int k = 0; k < steps && !rc; k++) {
        targets_at((k + 1) * h, q_new);
        mcb_robot_track(r, q_new, q_old, h);
        memcpy(q_old, q_new, sizeof q_old);
        mcb_step_info info;
        rc = mcb_world_step_into(w, S, &info, err);
    }

done:
    free(bc.force);
    mcb_fem_free(&ball);
    mcb_robot_free(&grip);
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

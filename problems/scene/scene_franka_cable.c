/* scene_franka_cable.c: the flexible cable winding of the COND paper (Sec.
 * V-C5, Table V, Fig. 9; Table VIII's PBD comparison): a Franka Emika
 * Panda (mcb_robot_arm7, high-gain joint PD) winds a Cosserat cable
 * (rod.h: rigid segments coupled by soft joints) around a fixed spool. The
 * paper's cable has 320 links: 1927 DOF (320 x 6 + 7) and 1926 constraints
 * (321 couplings of 6 rows: 319 between links and one at each end); E, nu
 * and the friction are drawn at random per repetition; its dynamics index
 * is the force the cable applies to the end effector ("FE").
 *
 * What we build (docs/scenes.md, "franka-cable", states what differs):
 *  - the floor: a static plane; the spool: a static vertical capsule of
 *    radius SPOOL_R_M standing on the floor (its top SPOOL_TOP_M high) at
 *    (SPOOL_X_M, SPOOL_Y_M), friction drawn with the material;
 *  - the cable: CABLE_L_M long, CABLE_D_M thick, --links segments, lying
 *    straight on the floor along -y from the spool's -x side, where its
 *    first end is welded to the world (a hard point and angular joint: the
 *    end fixed to the spool); its last end welded the same way to the hand,
 *    GRIP_M beyond the flange along the hand's approach axis;
 *  - the motion: the hand (pointing down, its orientation fixed) lifts the
 *    held end to ORBIT_Z_M and carries it to the orbit in LIFT_S, then
 *    circles the spool counterclockwise at radius ORBIT_R_M, one turn in
 *    TURN_S (speed ramped over RAMP_S): the cable, anchored at the spool,
 *    wraps around it (contacts cable-spool and cable-floor); joint targets
 *    by IK on a twin (arm_track.h). The arm starts at rest at the IK pose.
 * Every step is recorded ("franka-cableN-stepKKKK", N = the link count).
 * Closed loop (docs/scenes.md): the outcome is the norm of the force the
 * cable applies to the end effector (N): the impulse of the hand weld's
 * point rows over h; recorded, not judged.
 *
 * Fails with MCB_E_INPUT on bad options, MCB_E_NUMERIC when the IK cannot
 * reach the start pose or a step cannot be solved; frees everything it
 * allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/arm_track.h"
#include "problems/scene/rod.h"
#include "problems/scene/robot_models.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define CABLE_L_M 0.5          /* cable length (paper: not given) */
#define CABLE_D_M 0.004        /* diameter */
#define CABLE_RHO 2000.0       /* kg/m^3: copper core in a polymer jacket */
#define CABLE_DAMP_S 0.005     /* stiffness-proportional joint damping (rod.h's default) */
#define CABLE_E_LO 5e6         /* Young's modulus range (Pa) */
#define CABLE_E_HI 2e7
#define CABLE_NU_LO 0.35       /* Poisson ratio range (polymer jacket) */
#define CABLE_NU_HI 0.49
#define CABLE_MU_LO 0.2        /* friction range: cable / floor, spool, hand */
#define CABLE_MU_HI 0.5
#define CABLE_TOL 1e-6         /* natural-map residual of the advance */
#define CABLE_MAX_ITERS 5000   /* per solver and step */
#define SPOOL_X_M 0.45         /* spool axis from the arm's base */
#define SPOOL_Y_M 0.10
#define SPOOL_R_M 0.03         /* spool radius */
#define SPOOL_TOP_M 0.12       /* spool height */
#define GRIP_M 0.10            /* held end beyond the flange (hand box: 8 cm) */
#define ORBIT_R_M 0.15         /* radius of the hand's circle about the spool axis */
#define ORBIT_Z_M 0.08         /* its height */
#define LIFT_S 0.5             /* time to reach the orbit */
#define RAMP_S 0.3             /* time to reach the orbit's speed */
#define TURN_S 3.0             /* one turn about the spool */
#define PI_ 3.14159265358979323846

/* Options in table order (scenes.c). */
enum { OPT_LINKS, OPT_STEPS, OPT_DT, OPT_SEED };

/* The cable's material drawn from the seed. */
typedef struct {
    double young_pa, poisson, mu;
} cable_material;

/* Uniform in the ranges above, in the order E, nu, mu. */
static cable_material draw_material(unsigned long long seed)
{
    static const double lo[3] = {CABLE_E_LO, CABLE_NU_LO, CABLE_MU_LO};
    static const double hi[3] = {CABLE_E_HI, CABLE_NU_HI, CABLE_MU_HI};
    double d[3];
    mcb_rng_draw_ranges(seed, 3, lo, hi, d);
    return (cable_material){d[0], d[1], d[2]};
}

/* ---- the hand's path ------------------------------------------------- */

static double smooth(double u) { return u <= 0 ? 0 : u >= 1 ? 1 : u * u * (3 - 2 * u); }

/* Integral of smooth(s / T) over [0, t]. */
static double smooth_int(double t, double T)
{
    if (t <= 0) return 0;
    if (t >= T) return 0.5 * T + (t - T);
    double u = t / T;
    return T * (u * u * u - 0.5 * u * u * u * u);
}

/* The cable's fixed end (world) and its held end at the start. */
static void anchor_point(double a[3])
{
    a[0] = SPOOL_X_M - SPOOL_R_M - 0.5 * CABLE_D_M;
    a[1] = SPOOL_Y_M;
    a[2] = 0.5 * CABLE_D_M;
}

static void start_point(double g[3])
{
    anchor_point(g);
    g[1] -= CABLE_L_M;
}

/* The held end's target at time t: from the start point on a straight line
 * to the orbit's start (angle -pi/2 about the spool axis) in LIFT_S, then
 * counterclockwise about the spool; the hand pointing down, x along world x. */
static void target_at(const void *ctx, double t_s, mcb_ik_target *t)
{
    (void)ctx;
    double g[3], o[3] = {SPOOL_X_M, SPOOL_Y_M - ORBIT_R_M, ORBIT_Z_M};
    start_point(g);
    if (t_s < LIFT_S) {
        double s = smooth(t_s / LIFT_S);
        for (int i = 0; i < 3; i++) t->p[i] = g[i] + s * (o[i] - g[i]);
    } else {
        double phi = -0.5 * PI_ + 2 * PI_ / TURN_S * smooth_int(t_s - LIFT_S, RAMP_S);
        t->p[0] = SPOOL_X_M + ORBIT_R_M * cos(phi);
        t->p[1] = SPOOL_Y_M + ORBIT_R_M * sin(phi);
        t->p[2] = ORBIT_Z_M;
    }
    static const double R[9] = {1, 0, 0, 0, -1, 0, 0, 0, -1}; /* hand z down (rows) */
    memcpy(t->R, R, sizeof t->R);
}

/* Seeds of the first IK (Franka convention). */
static const double start_seeds[4][7] = {{-0.7, 0.6, 0, -1.8, 0, 2.4, 0.0},
                                         {0, -0.785, 0, -2.356, 0, 1.571, 0.785},
                                         {0, 0.3, 0, -2.0, 0, 2.3, 0.785},
                                         {-0.7, 0.3, 0, -2.0, 0, 2.3, 0.785}};

/* ---- the outcome (docs/scenes.md, "Closed loop") --------------------- */

typedef struct {
    int joint;  /* the hand weld's point joint */
    double h_s; /* the step */
} cable_grip;

/* |lambda| / h of the hand weld's point rows: the force between the
 * cable's held end and the hand (N). */
static double ee_force(const void *ctx, mcb_world *w)
{
    const cable_grip *g = ctx;
    int rows = 0;
    const double *l = mcb_world_joint_lambda(w, g->joint, &rows);
    if (!l || rows != 3) return NAN;
    return sqrt(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]) / g->h_s;
}

mcb_rc mcb_scene_franka_cable(const double *vals, const struct mcb_world_loop *loop,
                              mcb_problem_set **out, mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "franka-cable: NULL argument");
    *out = NULL;
    int nseg = (int)vals[OPT_LINKS], steps = (int)vals[OPT_STEPS];
    double h = vals[OPT_DT];
    if (nseg < 2 || steps < 1 || !(h > 0 && isfinite(h)))
        return mcb_fail(err, MCB_E_INPUT,
                        "franka-cable: --links must be >= 2, --steps >= 1, --dt > 0");
    cable_material mat = draw_material((unsigned long long)vals[OPT_SEED]);

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = h;
    o.tol = CABLE_TOL;
    o.max_iters = CABLE_MAX_ITERS;
    o.solver = "subadmm"; /* pgs stalls on the arm holding the light chain */
    o.fallback = "pgs";
    /* the default penetration bound (1 cm) exceeds the cable's diameter */
    o.fail_pen_m = 0.5 * CABLE_D_M;
    /* in a closed loop the solver gets the rod's soft joint rows folded
     * into A (exact; as the engine's own solve does): COND's Cosserat rod
     * is part of its dynamics (1), and its stretch rows (8e4 N/m on
     * segments of 0.04 g at 320 links) left as constraint rows make a
     * problem no solver here gets below 1e-2 (docs/scenes.md) */
    o.loop_fold_soft = 1;

    mcb_rod_opts ro;
    mcb_rod_defaults(&ro);
    ro.length_m = CABLE_L_M;
    ro.diameter_m = CABLE_D_M;
    ro.youngs_pa = mat.young_pa;
    ro.poisson = mat.poisson;
    ro.density_kg_m3 = CABLE_RHO;
    ro.segments = nseg;
    ro.damping_s = CABLE_DAMP_S;
    ro.mu = mat.mu;
    anchor_point(ro.start);
    ro.dir[0] = 0, ro.dir[1] = -1, ro.dir[2] = 0;
    ro.nodes = NULL;

    mcb_world *w = NULL;
    mcb_arm_track tr;
    memset(&tr, 0, sizeof tr);
    mcb_problem_set *S = NULL;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc)
        rc = mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, mat.mu, NULL, err);
    if (!rc) { /* the spool: its lower cap below the floor */
        mcb_shape s;
        memset(&s, 0, sizeof s);
        s.type = MCB_SHAPE_CAPSULE;
        s.body = -1;
        s.local = mcb_xform_identity();
        double half = 0.5 * (SPOOL_TOP_M - SPOOL_R_M);
        s.local.p[0] = SPOOL_X_M, s.local.p[1] = SPOOL_Y_M, s.local.p[2] = half;
        s.size[0] = SPOOL_R_M, s.size[1] = half;
        s.mu = mat.mu;
        rc = mcb_world_add_shape(w, &s, err);
    }
    int first_seg = -1, first = 0, grip_joint = -1;
    if (!rc) rc = mcb_rod_add_bodies(w, &ro, &first_seg, err); /* bodies before the robot */
    mcb_xform base = mcb_xform_identity();
    if (!rc) rc = mcb_arm_track_new(&tr, mcb_robot_arm7, &base, err);
    if (rc) goto done;
    mcb_arm_track_tool(&tr, GRIP_M, target_at, NULL, &start_seeds[0][0], 4);
    rc = mcb_arm_track_start(&tr, w, "franka-cable: the arm cannot reach the cable's end", &first,
                             err);
    if (rc) goto done;

    /* joints, after every body: the cable, its fixed end, the hand */
    double end0[3], end1[3], anchor[3];
    static const double tool[3] = {0, 0, GRIP_M};
    mcb_rod_end_point(&ro, 0, end0);
    mcb_rod_end_point(&ro, 1, end1);
    anchor_point(anchor);
    rc = mcb_rod_add_joints(w, &ro, first_seg, NULL, err);
    if (!rc) rc = mcb_rod_weld(w, -1, anchor, first_seg, end0, NULL, err);
    int ee = mcb_robot_nlinks(tr.arm) - 1;
    if (!rc) rc = mcb_rod_weld(w, first + ee, tool, first_seg + nseg - 1, end1, &grip_joint, err);
    if (rc) goto done;
    cable_grip grip = {grip_joint, h};
    mcb_world_set_outcome(w, &(mcb_world_outcome){"ee_force", "N", ee_force, &grip, NAN, NAN, 0});

    char src[512], prefix[64], notes[256];
    mcb_scene_args_named("franka-cable", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "franka-cable%d", nseg);
    snprintf(notes, sizeof notes,
             "COND paper Sec. V-C5: a Franka Panda winding a Cosserat cable around a spool; "
             "E %.6g Pa, nu %.6g, mu %.6g (seed %.0f)",
             mat.young_pa, mat.poisson, mat.mu, vals[OPT_SEED]);
    rc = mcb_world_describe(w, prefix, "franka-cable", src, notes, err);
    if (!rc) rc = mcb_arm_track_record(&tr, w, h, steps, &S, err);

done:
    mcb_arm_track_free(&tr);
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

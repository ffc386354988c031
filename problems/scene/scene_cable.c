/* scene_cable.c: the collaborative cable manipulation of the SubADMM paper
 * (Sec. IV-A 2, Fig. 1b; scaling Fig. 2): two 10-DOF mobile manipulators
 * (mcb_robot_mobile_manipulator: planar base, two wheels rolling without
 * slipping, 5-DOF arm) carry a cable by its two ends while driving and
 * winding it. The cable (rod.h) is N rigid segments (default 640, length
 * 1.2 m, diameter 8 mm, E = 0.1 MPa, nu = 0.49) coupled by Cosserat soft
 * joints; every 4 segments and each robot are one subsystem: 640 segments
 * give 6 x 640 + 20 = 3860 DOFs and 162 subsystems, h = 10 ms.
 *
 * What we build (docs/scene-cable.md states what differs from the paper):
 *  - a ground plane (mu 0.5);
 *  - robot 1 at (0, -CABLE_Y_M), robot 2 at (0, +CABLE_Y_M), both facing
 *    +x, arms turned towards each other (arm yaw +-pi/2), tool points
 *    ("ee") about 0.8 m apart at 0.52 m height;
 *  - the cable starts at rest on a circular arc hanging between the two
 *    tool points in their vertical plane (a regular polygon of N sides of
 *    the segment length), each end welded to a tool point by a hard point
 *    joint and a hard angular joint (a gripper clamping the cable end);
 *  - each wheel gets an MCB_WJ_ROLLING joint (the right wheel keeps only
 *    the rolling row: its no-skid row would repeat the left wheel's, the
 *    two wheels sharing one axle line);
 *  - the script (times fixed, independent of --steps): both bases drive
 *    forward (+x) at up to CABLE_SPEED_M_S (wheel v_ref = v / r, ramped
 *    over CABLE_RAMP_S); both arms lower the cable ends (shoulder -0.6 ->
 *    -0.1 rad, wrist pitch keeping the hand level) over CABLE_LOWER_S, so
 *    that the sagging cable reaches the ground (contacts appear after
 *    about 0.6 s); the wrist rolls turn in opposite senses at up to
 *    CABLE_TWIST_RAD_S (winding the cable).
 * Every step is recorded (name "cableN-stepKKKK").
 * Closed loop (docs/scenes.md): the outcome is the cable's largest gap
 * (cable_gap: between consecutive segments' shared end points and between
 * each end and its gripper), failing above the cable's diameter or half a
 * segment, whichever is larger; the penetration bound is the cable's
 * radius.
 *
 * Fails with MCB_E_INPUT on bad options and with the world's error when a
 * step cannot be solved; frees everything it allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/rod.h"
#include "problems/scene/robot_models.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define CABLE_H_S 0.01           /* paper: 10 ms */
#define CABLE_MU 0.5             /* ground and cable friction (paper: not stated) */
#define CABLE_Y_M 1.17           /* robots' lateral distance from the centre line */
#define CABLE_SPEED_M_S 0.3      /* base driving speed */
#define CABLE_RAMP_S 0.5         /* time to reach the speeds */
#define CABLE_LOWER_S 1.0        /* time to lower the cable ends */
#define CABLE_TWIST_RAD_S 2.0    /* wrist roll rate (winding) */
#define CABLE_SHOULDER0 (-0.6)   /* shoulder pitch at the start (rad) */
#define CABLE_SHOULDER1 (-0.1)   /* ... after lowering */
#define CABLE_ELBOW 0.6          /* elbow pitch (held) */
#define CABLE_WHEEL_R_M 0.08     /* robot_models.c's wheel radius */
#define CABLE_PI 3.14159265358979323846

/* Options in table order (scenes.c): --segments, --steps, --tol (the
 * advance's natural-map residual), --iters (per solver and step). */
enum { OPT_SEGMENTS, OPT_STEPS, OPT_TOL, OPT_ITERS };

/* Link indices of mcb_robot_mobile_manipulator (looked up by name). */
typedef struct {
    int wheel_l, wheel_r, yaw, shoulder, elbow, wrist_pitch, wrist_roll, ee;
} mm_links;

/* ---- the script ------------------------------------------------------ */

/* Smooth step 3u^2 - 2u^3 over [0, 1] and its derivative. */
static double smooth(double u) { return u <= 0 ? 0 : u >= 1 ? 1 : u * u * (3 - 2 * u); }
static double smooth_d(double u) { return u <= 0 || u >= 1 ? 0 : 6 * u * (1 - u); }

/* Integral of smooth(s / T) over [0, t] (the ramped speed's distance). */
static double smooth_int(double t, double T)
{
    if (t <= 0) return 0;
    if (t >= T) return 0.5 * T + (t - T);
    double u = t / T;
    return T * (u * u * u - 0.5 * u * u * u * u);
}

/* Robot k's PD targets at time t (q_ref, v_ref of its moving joints, in
 * link order = DOF order for this fixed-base robot). */
static void script(mcb_robot *r, const mm_links *L, int k, double t)
{
    double *qr = mcb_robot_q_ref(r), *vr = mcb_robot_v_ref(r);
    double side = k == 0 ? 1.0 : -1.0;
    /* base joints are passive (their targets unused); wheels: speed */
    double wv = CABLE_SPEED_M_S / CABLE_WHEEL_R_M * smooth(t / CABLE_RAMP_S);
    int dl = mcb_robot_dof_of_link(r, L->wheel_l), dr = mcb_robot_dof_of_link(r, L->wheel_r);
    vr[dl] = vr[dr] = wv;
    qr[dl] = qr[dr] = mcb_robot_q(r)[dl]; /* unused: kp = 0 */
    /* lowering: shoulder from SHOULDER0 to SHOULDER1, wrist pitch keeping
     * the hand level (wrist = -(shoulder + elbow)) */
    double u = t / CABLE_LOWER_S, s = smooth(u), sd = smooth_d(u) / CABLE_LOWER_S;
    double sh = CABLE_SHOULDER0 + (CABLE_SHOULDER1 - CABLE_SHOULDER0) * s;
    double shd = (CABLE_SHOULDER1 - CABLE_SHOULDER0) * sd;
    int dy = mcb_robot_dof_of_link(r, L->yaw), ds = mcb_robot_dof_of_link(r, L->shoulder);
    int de = mcb_robot_dof_of_link(r, L->elbow), dw = mcb_robot_dof_of_link(r, L->wrist_pitch);
    int dro = mcb_robot_dof_of_link(r, L->wrist_roll);
    qr[dy] = side * 0.5 * CABLE_PI, vr[dy] = 0;
    qr[ds] = sh, vr[ds] = shd;
    qr[de] = CABLE_ELBOW, vr[de] = 0;
    qr[dw] = -(sh + CABLE_ELBOW), vr[dw] = -shd;
    /* winding: the wrist rolls turn in opposite senses */
    qr[dro] = side * CABLE_TWIST_RAD_S * smooth_int(t, CABLE_RAMP_S);
    vr[dro] = side * CABLE_TWIST_RAD_S * smooth(t / CABLE_RAMP_S);
}

/* ---- set-up ---------------------------------------------------------- */

static mcb_rc find_links(const mcb_robot *r, mm_links *L, mcb_err *err)
{
    L->wheel_l = mcb_robot_link_index(r, "wheel_l");
    L->wheel_r = mcb_robot_link_index(r, "wheel_r");
    L->yaw = mcb_robot_link_index(r, "arm_yaw");
    L->shoulder = mcb_robot_link_index(r, "arm_shoulder");
    L->elbow = mcb_robot_link_index(r, "arm_elbow");
    L->wrist_pitch = mcb_robot_link_index(r, "arm_wrist_pitch");
    L->wrist_roll = mcb_robot_link_index(r, "arm_wrist_roll");
    L->ee = mcb_robot_link_index(r, "ee");
    if (L->wheel_l < 0 || L->wheel_r < 0 || L->yaw < 0 || L->shoulder < 0 || L->elbow < 0 ||
        L->wrist_pitch < 0 || L->wrist_roll < 0 || L->ee < 0)
        return mcb_fail(err, MCB_E_INPUT, "cable: the mobile manipulator lacks a named link");
    return MCB_OK;
}

/* Robot k (0: at -y, 1: at +y) at its start pose, state = targets at t = 0. */
static mcb_rc make_robot(int k, mcb_robot **out, mm_links *L, mcb_err *err)
{
    mcb_xform base = mcb_xform_identity();
    base.p[1] = k == 0 ? -CABLE_Y_M : CABLE_Y_M;
    mcb_rc rc = mcb_robot_mobile_manipulator(&base, out, err);
    if (!rc) rc = find_links(*out, L, err);
    if (rc) {
        mcb_robot_free(out);
        return rc;
    }
    mcb_robot *r = *out;
    script(r, L, k, 0);
    int n = mcb_robot_ndof(r);
    memcpy(mcb_robot_q(r), mcb_robot_q_ref(r), (size_t)n * sizeof(double));
    memset(mcb_robot_v(r), 0, (size_t)n * sizeof(double));
    memset(mcb_robot_v_ref(r), 0, (size_t)n * sizeof(double));
    mcb_robot_update(r);
    return MCB_OK;
}

/* The N + 1 end points of a cable of length L hanging from a to b as a
 * regular polygon (sides L / N) inscribed in a circular arc in the
 * vertical plane through a and b: the half angle theta solves
 * |b - a| / L = sin(theta) / (N sin(theta / N)) (bisection). */
static mcb_rc arc_nodes(const double a[3], const double b[3], double L, int N, double *x,
                        mcb_err *err)
{
    double c[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, S = mcb_v3_norm(c);
    if (!(S > 0) || S >= L * (1 - 1e-9))
        return mcb_fail(err, MCB_E_INPUT, "cable: ends %.3g m apart, cable %.3g m long", S, L);
    double u[3] = {c[0] / S, c[1] / S, c[2] / S}, down[3] = {0, 0, -1};
    double dd = mcb_v3_dot(down, u);
    for (int i = 0; i < 3; i++) down[i] -= dd * u[i];
    double dn = mcb_v3_norm(down);
    for (int i = 0; i < 3; i++) down[i] /= dn;
    double lo = 1e-9, hi = CABLE_PI - 1e-9, ratio = S / L;
    for (int it = 0; it < 200; it++) { /* f decreasing in theta */
        double th = 0.5 * (lo + hi);
        double f = sin(th) / (N * sin(th / N)) - ratio;
        if (f > 0) lo = th;
        else hi = th;
    }
    double th = 0.5 * (lo + hi), R = S / (2 * sin(th)), ch = R * cos(th);
    for (int k = 0; k <= N; k++) {
        double phi = -th + 2 * th * k / N;
        for (int i = 0; i < 3; i++)
            x[3 * k + i] = 0.5 * (a[i] + b[i]) - down[i] * ch + R * (sin(phi) * u[i] + cos(phi) * down[i]);
    }
    /* exact ends */
    memcpy(x, a, 3 * sizeof *x);
    memcpy(x + 3 * N, b, 3 * sizeof *x);
    return MCB_OK;
}

/* The wheels' no-slip joints of the robot whose link 0 is scene body first. */
static mcb_rc add_wheels(mcb_world *w, int first, const mm_links *L, mcb_err *err)
{
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_ROLLING;
    j.body_b = -1;
    j.axis[1] = 1;
    j.radius = CABLE_WHEEL_R_M;
    j.body_a = first + L->wheel_l;
    mcb_rc rc = mcb_world_add_joint(w, &j, NULL, err);
    if (rc) return rc;
    j.body_a = first + L->wheel_r;
    j.mask = 1; /* rolling row only: the no-skid row repeats the left wheel's */
    return mcb_world_add_joint(w, &j, NULL, err);
}

/* ---- the outcome (docs/scenes.md, "Closed loop") --------------------- */

typedef struct {
    int first_seg, nseg; /* the segments' scene indices */
    int ee[2];           /* the grippers' scene indices (tool links) */
    double end[2][3];    /* segment end points in the segment frame (end 0, end 1) */
} cable_ends;

/* Distance between point pa of body a and point pb of body b (their
 * frames; poses as mcb_world_body_pose gives them). */
static double point_gap(mcb_world *w, int a, const double pa[3], int b, const double pb[3])
{
    double xa[3], xb[3];
    mcb_xform_point(mcb_world_body_pose(w, a), pa, xa);
    mcb_xform_point(mcb_world_body_pose(w, b), pb, xb);
    return hypot(hypot(xa[0] - xb[0], xa[1] - xb[1]), xa[2] - xb[2]);
}

/* The cable carried: the largest gap between consecutive segments' shared
 * end points (soft joints: the cable stretched or torn) and between each
 * cable end and its gripper's tool point (hard welds: the cable dropped),
 * m. NaN sticks. ctx: cable_ends. */
static double cable_gap(const void *ctx, mcb_world *w)
{
    const cable_ends *c = ctx;
    static const double origin[3] = {0, 0, 0};
    for (int r = 0; r < mcb_world_nrobots(w); r++) mcb_robot_update(mcb_world_robot(w, r));
    double g = fmax(point_gap(w, c->ee[0], origin, c->first_seg, c->end[0]),
                    point_gap(w, c->ee[1], origin, c->first_seg + c->nseg - 1, c->end[1]));
    for (int k = 0; k + 1 < c->nseg && !isnan(g); k++) {
        double d = point_gap(w, c->first_seg + k, c->end[1], c->first_seg + k + 1, c->end[0]);
        g = d > g || isnan(d) ? d : g;
    }
    return g;
}

mcb_rc mcb_scene_cable(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "cable: NULL argument");
    *out = NULL;
    int nseg = (int)vals[OPT_SEGMENTS], steps = (int)vals[OPT_STEPS];
    if (nseg < 2 || steps < 1 || !(vals[OPT_TOL] > 0) || vals[OPT_ITERS] < 1)
        return mcb_fail(err, MCB_E_INPUT,
                        "cable: --segments must be >= 2, --steps and --iters >= 1, --tol > 0");

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = CABLE_H_S;
    o.tol = vals[OPT_TOL];
    o.max_iters = (int)vals[OPT_ITERS];
    mcb_rod_opts ro;
    mcb_rod_defaults(&ro);
    /* the default penetration bound (1 cm) exceeds the cable's 8 mm
     * diameter: a cable sunk past its axis into the ground is buried */
    o.fail_pen_m = 0.5 * ro.diameter_m;

    mcb_world *w = NULL;
    mcb_robot *rob[2] = {NULL, NULL};
    mcb_problem_set *S = NULL;
    double *nodes = NULL;
    mm_links L[2];
    int first_link[2] = {-1, -1}, first_seg = -1;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc)
        rc = mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, CABLE_MU, NULL, err);
    for (int k = 0; k < 2 && !rc; k++) rc = make_robot(k, &rob[k], &L[k], err);
    if (rc) goto done;

    /* the cable between the tool points, added before the robots (free
     * bodies first: the robots' link indices then stay put) */
    ro.segments = nseg;
    ro.mu = CABLE_MU;
    nodes = mcb_calloc(3 * ((size_t)nseg + 1), sizeof *nodes);
    if (!nodes) {
        rc = mcb_fail(err, MCB_E_NOMEM, "cable: out of memory");
        goto done;
    }
    const double *pa = mcb_robot_link_pose(rob[0], L[0].ee)->p;
    const double *pb = mcb_robot_link_pose(rob[1], L[1].ee)->p;
    rc = arc_nodes(pa, pb, ro.length_m, nseg, nodes, err);
    if (rc) goto done;
    ro.nodes = nodes;
    rc = mcb_rod_add_bodies(w, &ro, &first_seg, err);
    if (rc) goto done;
    for (int k = 0; k < 2 && !rc; k++) {
        mcb_robot *r = rob[k];
        rob[k] = NULL;
        rc = mcb_world_add_robot(w, r, &first_link[k], err); /* the world owns it */
    }
    if (rc) goto done;

    /* joints, after every body: the cable, the clamps, the wheels */
    rc = mcb_rod_add_joints(w, &ro, first_seg, NULL, err);
    double end0[3], end1[3];
    mcb_rod_end_point(&ro, 0, end0);
    mcb_rod_end_point(&ro, 1, end1);
    static const double tool[3] = {0, 0, 0}; /* the cable ends at the tool points */
    if (!rc) rc = mcb_rod_weld(w, first_link[0] + L[0].ee, tool, first_seg, end0, NULL, err);
    if (!rc) rc = mcb_rod_weld(w, first_link[1] + L[1].ee, tool, first_seg + nseg - 1, end1, NULL, err);
    for (int k = 0; k < 2 && !rc; k++) rc = add_wheels(w, first_link[k], &L[k], err);
    if (rc) goto done;
    cable_ends ends = {first_seg, nseg, {first_link[0] + L[0].ee, first_link[1] + L[1].ee},
                       {{end0[0], end0[1], end0[2]}, {end1[0], end1[1], end1[2]}}};
    /* the cable has come apart when a gap is wider than the cable (its
     * diameter) or, for a coarse cable (its joints' stiffness E A / l is
     * lower), than half a segment: the reference run stretches a joint by
     * up to about 0.2 segment lengths (0.24 mm at 640 segments in 100
     * steps, 28 mm at 8 segments in 200) */
    double apart = fmax(ro.diameter_m, 0.5 * ro.length_m / nseg);
    mcb_world_set_outcome(w, &(mcb_world_outcome){"cable_gap", "m", cable_gap, &ends, NAN, apart, 0});

    char src[512], prefix[64];
    mcb_scene_args_named("cable", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "cable%d", nseg);
    rc = mcb_world_describe(w, prefix, "cable", src,
                            "SubADMM paper Sec. IV-A 2: two 10-DOF mobile manipulators driving "
                            "and winding a Cosserat cable of rigid segments",
                            err);
    if (rc) goto done;

    S = calloc(1, sizeof *S);
    if (!S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "cable: out of memory");
        goto done;
    }
    for (int k = 0; k < steps; k++) {
        double t = (k + 1) * CABLE_H_S; /* targets of the step's end */
        for (int r = 0; r < 2; r++) script(mcb_world_robot(w, r), &L[r], r, t);
        mcb_step_info info;
        rc = mcb_world_step_into(w, S, &info, err);
        if (rc) goto done;
    }

done:
    free(nodes);
    mcb_robot_free(&rob[0]);
    mcb_robot_free(&rob[1]);
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

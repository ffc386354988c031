/* robot_models.c: the built-in robots of the papers (robot_models.h),
 * approximated by published link masses and dimensions; docs/robots.md
 * states for each the sources and what differs from the real robot:
 *   mcb_robot_arm7       Franka Emika Panda (SubADMM paper Sec. IV-A stir,
 *                        CANAL paper Sec. VII-A/B), 7 DOF, fixed base;
 *   mcb_robot_quadruped  Unitree Laikago (CANAL paper Sec. VII-D, Table III),
 *                        floating trunk + 4 x 3 leg joints = 18 DOF;
 *   mcb_robot_dual_arm   Unitree G1 upper body (CANAL paper Sec. VII-C,
 *                        Fig. 11): fixed torso, 2 x 7 arm joints and two
 *                        3-finger hands of 7 joints each = 28 DOF;
 *   mcb_robot_gripper2   a parallel gripper with 2 prismatic fingers;
 *   mcb_robot_mobile_manipulator  a differential-drive base (x, y, yaw,
 *                        two wheels) with a 5-DOF arm (SubADMM paper Sec.
 *                        IV-A 2, the cable scene), 10 DOF, planar base.
 * Links carry collision shapes (spheres, boxes, capsules; group 0, the
 * world assigns groups). PD gains: kp = omega^2 H_jj (at least 100 N m/rad
 * or 5000 N/m) and kd = 2 sqrt(kp H_jj) (a critically damped joint on its
 * own diagonal inertia H_jj at the nominal pose), omega = 200 rad/s for the
 * manipulators and 100 rad/s for the quadruped: the papers' high-gain
 * joint control; the mobile manipulator's base joints are passive and its
 * wheels pure dampers towards v_ref (velocity-driven). */
#include "problems/scene/robot_models.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUILD_MAX_LINKS 48
#define BUILD_MAX_SHAPES 96

#define PI 3.14159265358979323846

/* A robot under construction: links, shapes and the nominal pose. */
typedef struct {
    mcb_link L[BUILD_MAX_LINKS];
    int n;
    mcb_shape S[BUILD_MAX_SHAPES];
    int ns;
    double q0[BUILD_MAX_LINKS]; /* nominal joint coordinate of each link */
    int gain[BUILD_MAX_LINKS];  /* GAIN_*: how finish sets the link's gains */
    double kd_fixed[BUILD_MAX_LINKS]; /* GAIN_DAMPER: the kd to use */
} build;

/* Gain modes of a link (build.gain; 0, the PD rule, for every robot but
 * the mobile manipulator): a passive joint (kp = kd = 0), or a pure
 * damper kd = kd_fixed tracking v_ref (a velocity-driven wheel). */
enum { GAIN_PD = 0, GAIN_PASSIVE = 1, GAIN_DAMPER = 2 };

/* ---- frames and inertias ---- */

static mcb_xform xf(double x, double y, double z)
{
    mcb_xform X = mcb_xform_identity();
    X.p[0] = x, X.p[1] = y, X.p[2] = z;
    return X;
}

static void rot_x(double a, double R[9])
{
    double c = cos(a), s = sin(a);
    double T[9] = {1, 0, 0, 0, c, -s, 0, s, c};
    memcpy(R, T, sizeof T);
}

static void rot_z(double a, double R[9])
{
    double c = cos(a), s = sin(a);
    double T[9] = {c, -s, 0, s, c, 0, 0, 0, 1};
    memcpy(R, T, sizeof T);
}

/* Joint frame from modified (Craig) Denavit-Hartenberg parameters:
 * RotX(alpha) TransX(a) TransZ(d); the joint turns about the new z. */
static mcb_xform dh(double a, double d, double alpha)
{
    mcb_xform X;
    rot_x(alpha, X.R);
    double z[3] = {0, 0, d}, rz[3];
    mcb_m3_vec(X.R, z, rz);
    X.p[0] = a + rz[0], X.p[1] = rz[1], X.p[2] = rz[2];
    return X;
}

static void inertia_box(double m, double hx, double hy, double hz, double I[9])
{
    memset(I, 0, 9 * sizeof *I);
    I[0] = m * (hy * hy + hz * hz) / 3.0;
    I[4] = m * (hx * hx + hz * hz) / 3.0;
    I[8] = m * (hx * hx + hy * hy) / 3.0;
}

/* A solid cylinder of radius r from point a to point b, about its centre;
 * a zero-length one is a solid sphere of radius r. */
static void inertia_rod(double m, const double a[3], const double b[3], double r, double I[9])
{
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, L = mcb_v3_norm(u);
    memset(I, 0, 9 * sizeof *I);
    if (L < 1e-9) {
        I[0] = I[4] = I[8] = 0.4 * m * r * r;
        return;
    }
    for (int i = 0; i < 3; i++) u[i] /= L;
    double ax = 0.5 * m * r * r, pe = m * (3 * r * r + L * L) / 12.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) I[3 * i + j] = pe * ((i == j) - u[i] * u[j]) + ax * u[i] * u[j];
}

/* ---- building ---- */

static int add_link(build *b, const char *name, int parent, int joint, double ax, double ay,
                    double az, mcb_xform placement, double mass_kg, const double com[3],
                    const double inertia[9])
{
    mcb_link *l = &b->L[b->n];
    memset(l, 0, sizeof *l);
    snprintf(l->name, sizeof l->name, "%s", name);
    l->parent = parent;
    l->joint = joint;
    l->axis[0] = ax, l->axis[1] = ay, l->axis[2] = az;
    l->placement = placement;
    l->mass_kg = mass_kg;
    if (com) memcpy(l->com, com, sizeof l->com);
    if (inertia) memcpy(l->inertia, inertia, sizeof l->inertia);
    b->q0[b->n] = 0;
    return b->n++;
}

/* A link whose mass is a solid cylinder from a to b (centre of mass at the
 * midpoint). */
static int add_rod_link(build *b, const char *name, int parent, int joint, double ax, double ay,
                        double az, mcb_xform placement, double mass_kg, const double a[3],
                        const double c[3], double r)
{
    double com[3] = {0.5 * (a[0] + c[0]), 0.5 * (a[1] + c[1]), 0.5 * (a[2] + c[2])}, I[9];
    inertia_rod(mass_kg, a, c, r, I);
    return add_link(b, name, parent, joint, ax, ay, az, placement, mass_kg, com, I);
}

static mcb_shape *new_shape(build *b, int link, int type, double mu)
{
    mcb_shape *s = &b->S[b->ns++];
    memset(s, 0, sizeof *s);
    s->type = type;
    s->body = link;
    s->local = mcb_xform_identity();
    s->mu = mu;
    return s;
}

static void add_sphere(build *b, int link, double x, double y, double z, double r, double mu)
{
    mcb_shape *s = new_shape(b, link, MCB_SHAPE_SPHERE, mu);
    s->local = xf(x, y, z);
    s->size[0] = r;
}

static void add_box(build *b, int link, double x, double y, double z, double hx, double hy,
                    double hz, double mu)
{
    mcb_shape *s = new_shape(b, link, MCB_SHAPE_BOX, mu);
    s->local = xf(x, y, z);
    s->size[0] = hx, s->size[1] = hy, s->size[2] = hz;
}

/* A capsule of radius r between the points a and c of the link frame (a
 * sphere when they coincide). */
static void add_capsule(build *b, int link, const double a[3], const double c[3], double r,
                        double mu)
{
    double n[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, L = mcb_v3_norm(n);
    if (L < 1e-6) {
        add_sphere(b, link, a[0], a[1], a[2], r, mu);
        return;
    }
    mcb_shape *s = new_shape(b, link, MCB_SHAPE_CAPSULE, mu);
    for (int i = 0; i < 3; i++) n[i] /= L;
    double t1[3], t2[3];
    mcb_frame_tangents(n, t1, t2); /* local x, y, z = t1, t2, n */
    for (int i = 0; i < 3; i++) {
        s->local.R[3 * i] = t1[i], s->local.R[3 * i + 1] = t2[i], s->local.R[3 * i + 2] = n[i];
        s->local.p[i] = 0.5 * (a[i] + c[i]);
    }
    s->size[0] = r, s->size[1] = 0.5 * L;
}

/* Smallest joint stiffness: light finger joints would otherwise get
 * stiffnesses too low to hold a grasp. */
#define KP_MIN_NM_PER_RAD 100.0
#define KP_MIN_N_PER_M 5000.0

/* Creates the robot, sets the PD gains from the diagonal of H at the
 * nominal pose (kp = max(omega^2 H_jj, KP_MIN), kd = 2 sqrt(kp H_jj): each
 * joint critically damped on its own inertia), puts the state and the PD
 * targets at the nominal pose and adds the shapes. */
static mcb_rc finish(build *b, const char *name, int floating, const mcb_xform *base,
                     double omega, mcb_robot **out, mcb_err *err)
{
    mcb_robot *r = NULL;
    mcb_rc rc = mcb_robot_new(name, floating, base, b->L, b->n, &r, err);
    if (rc) return rc;
    int n = mcb_robot_ndof(r);
    double *H = mcb_calloc((size_t)n * (size_t)n, sizeof *H);
    if (!H) {
        mcb_robot_free(&r);
        return mcb_fail(err, MCB_E_NOMEM, "robot %s: out of memory", name);
    }
    for (int k = 0; k < b->n; k++) {
        int d = mcb_robot_dof_of_link(r, k);
        if (d >= 0) mcb_robot_q(r)[d + (floating ? 1 : 0)] = b->q0[k];
    }
    mcb_robot_update(r);
    mcb_robot_crba(r, H);
    for (int k = 0; k < b->n; k++) {
        int d = mcb_robot_dof_of_link(r, k);
        if (d < 0) continue;
        double Hjj = H[(size_t)d * (size_t)n + (size_t)d];
        double floor = b->L[k].joint == MCB_JOINT_PRISMATIC ? KP_MIN_N_PER_M : KP_MIN_NM_PER_RAD;
        b->L[k].kp = fmax(omega * omega * Hjj, floor);
        b->L[k].kd = 2.0 * sqrt(b->L[k].kp * Hjj);
        if (b->gain[k] != GAIN_PD) b->L[k].kp = 0;
        if (b->gain[k] != GAIN_PD) b->L[k].kd = b->gain[k] == GAIN_DAMPER ? b->kd_fixed[k] : 0;
    }
    free(H);
    mcb_robot_free(&r);
    rc = mcb_robot_new(name, floating, base, b->L, b->n, &r, err);
    if (rc) return rc;
    for (int k = 0, j = 0; k < b->n; k++) {
        int d = mcb_robot_dof_of_link(r, k);
        if (d < 0) continue;
        mcb_robot_q(r)[d + (floating ? 1 : 0)] = b->q0[k];
        mcb_robot_q_ref(r)[j++] = b->q0[k];
    }
    mcb_robot_update(r);
    for (int i = 0; i < b->ns; i++) {
        rc = mcb_robot_add_shape(r, &b->S[i], err);
        if (rc) {
            mcb_robot_free(&r);
            return rc;
        }
    }
    *out = r;
    return MCB_OK;
}

/* ---- Franka Emika Panda ---- */

/* Modified DH rows (a_{i-1}, d_i, alpha_{i-1}) of joints 1-7 and the
 * flange, Franka's published kinematics. */
static const double PANDA_DH[8][3] = {{0, 0.333, 0},       {0, 0, -PI / 2},     {0, 0.316, PI / 2},
                                      {0.0825, 0, PI / 2}, {-0.0825, 0.384, -PI / 2},
                                      {0, 0, PI / 2},      {0.088, 0, PI / 2},  {0, 0.107, 0}};
/* Link masses (kg), centres of mass (link frame, m) and inertia tensors
 * about the centre of mass in the link frame's axes (kg m^2: ixx, iyy, izz,
 * ixy, ixz, iyz, the tensor's entries) as Franka Robotics publishes them
 * (the <inertial> elements of its franka_description URDF for links 1-7),
 * which are the identified, physically feasible parameters of C. Gaz et
 * al., IEEE RA-L 4(4), 2019. */
static const double PANDA_MASS_KG[7] = {4.970684, 0.646926, 3.228604, 3.587895,
                                        1.225946, 1.666555, 0.735522};
static const double PANDA_COM[7][3] = {
    {0.003875, 0.002081, -0.04762},   {-0.003141, -0.02872, 0.003495},
    {0.027518, 0.039252, -0.066502},  {-0.05317, 0.104419, 0.027454},
    {-0.011953, 0.041065, -0.038437}, {0.060149, -0.014117, -0.010517},
    {0.010517, -0.004252, 0.061597}};
static const double PANDA_INERTIA[7][6] = {
    {0.70337, 0.70661, 0.009117, -0.000139, 0.006772, 0.019169},
    {0.007962, 0.02811, 0.025995, -0.003925, 0.010254, 0.000704},
    {0.037242, 0.036155, 0.01083, -0.004761, -0.011396, -0.012805},
    {0.025853, 0.019552, 0.028323, 0.007796, -0.001332, 0.008641},
    {0.035549, 0.029474, 0.008627, -0.002117, -0.004037, 0.000229},
    {0.001964, 0.004354, 0.005433, 0.000109, -0.001158, 0.000341},
    {0.012516, 0.010027, 0.004815, -0.000428, -0.001196, -0.000741}};
#define PANDA_HAND_KG 0.73

mcb_rc mcb_robot_arm7(const mcb_xform *base, mcb_robot **out, mcb_err *err)
{
    if (!out) return mcb_fail(err, MCB_E_INPUT, "arm7: no output pointer");
    *out = NULL;
    build *b = mcb_calloc(1, sizeof *b);
    if (!b) return mcb_fail(err, MCB_E_NOMEM, "arm7: out of memory");
    /* the ready pose of Franka's examples */
    static const double ready[7] = {0, -PI / 4, 0, -3 * PI / 4, 0, PI / 2, PI / 4};
    const double rad_m = 0.06, mu = 0.5;
    for (int k = 0; k < 7; k++) {
        char name[32];
        snprintf(name, sizeof name, "panda_link%d", k + 1);
        /* the link's body: from its joint origin to the next joint's (the
         * base column for link 1) */
        double o[3] = {0, 0, 0}, nx[3];
        mcb_xform next = dh(PANDA_DH[k + 1][0], PANDA_DH[k + 1][1], PANDA_DH[k + 1][2]);
        memcpy(nx, next.p, sizeof nx);
        if (k == 0) nx[0] = nx[1] = 0, nx[2] = -PANDA_DH[0][1] + rad_m;
        const double *t = PANDA_INERTIA[k];
        double I[9] = {t[0], t[3], t[4], t[3], t[1], t[5], t[4], t[5], t[2]};
        int l = add_link(b, name, k - 1, MCB_JOINT_REVOLUTE, 0, 0, 1,
                         dh(PANDA_DH[k][0], PANDA_DH[k][1], PANDA_DH[k][2]), PANDA_MASS_KG[k],
                         PANDA_COM[k], I);
        b->q0[l] = ready[k];
        add_capsule(b, l, o, nx, rad_m, mu);
    }
    /* the hand, fixed at the flange turned -pi/4 about z (Franka hand) */
    mcb_xform fl = dh(PANDA_DH[7][0], PANDA_DH[7][1], PANDA_DH[7][2]);
    rot_z(-PI / 4, fl.R);
    double hcom[3] = {0, 0, 0.04}, hI[9];
    inertia_box(PANDA_HAND_KG, 0.03, 0.1, 0.04, hI);
    int h = add_link(b, "panda_hand", 6, MCB_JOINT_FIXED, 0, 0, 1, fl, PANDA_HAND_KG, hcom, hI);
    add_box(b, h, 0, 0, 0.04, 0.03, 0.1, 0.04, mu);
    mcb_rc rc = finish(b, "arm7", 0, base, 200.0, out, err);
    free(b);
    return rc;
}

/* ---- Unitree Laikago ---- */

/* Numbers from Unitree's laikago_description (const.xacro, leg.xacro):
 * masses (kg), leg offsets and lengths (m), centres of mass, inertias. */
#define LK_TRUNK_KG 13.733
#define LK_HIP_KG 1.096
#define LK_THIGH_KG 1.528
#define LK_CALF_KG 0.241
#define LK_FOOT_KG 0.06

mcb_rc mcb_robot_quadruped(mcb_robot **out, mcb_err *err)
{
    if (!out) return mcb_fail(err, MCB_E_INPUT, "quadruped: no output pointer");
    *out = NULL;
    build *b = mcb_calloc(1, sizeof *b);
    if (!b) return mcb_fail(err, MCB_E_NOMEM, "quadruped: out of memory");
    const double mu = 0.8;
    const double tcom[3] = {0.002284, -0.000041, 0.025165};
    const double tI[9] = {0.073348887, 0.00030338,   0.001918218, 0.00030338, 0.250684593,
                          -0.000075402, 0.001918218, -0.000075402, 0.254469458};
    int t = add_link(b, "trunk", -1, MCB_JOINT_FIXED, 0, 0, 1, mcb_xform_identity(), LK_TRUNK_KG,
                     tcom, tI);
    add_box(b, t, 0, 0, 0.01675, 0.5616 / 2, 0.172 / 2, 0.1875 / 2, mu);
    /* standing pose: thigh 0.67 rad, calf -1.3 rad */
    const double thigh_q = 0.67, calf_q = -1.3;
    static const char *leg_name[4] = {"FR", "FL", "RR", "RL"};
    for (int g = 0; g < 4; g++) {
        double fh = g < 2 ? 1.0 : -1.0, mi = (g % 2) ? 1.0 : -1.0; /* front/hind, left/right */
        char nm[32];
        double hcom[3] = {-0.001568 * fh, -0.008134 * mi, 0.000864};
        double hI[9] = {0.000822113,       -0.000004982 * mi * fh, -0.00003672 * fh,
                        -0.000004982 * mi * fh, 0.000983196,        0.000002811 * mi,
                        -0.00003672 * fh,  0.000002811 * mi,       0.000864753};
        snprintf(nm, sizeof nm, "%s_hip", leg_name[g]);
        int hip = add_link(b, nm, t, MCB_JOINT_REVOLUTE, 1, 0, 0, xf(0.21935 * fh, 0.0875 * mi, 0),
                           LK_HIP_KG, hcom, hI);
        add_sphere(b, hip, 0, 0, 0, 0.041, mu);
        double thcom[3] = {-0.000482, 0.02001 * mi, -0.031996};
        double thI[9] = {0.00991611,        0.000010388 * mi, 0.000250428,
                         0.000010388 * mi,  0.009280083,      -0.00008511 * mi,
                         0.000250428,       -0.00008511 * mi, 0.00178256};
        snprintf(nm, sizeof nm, "%s_thigh", leg_name[g]);
        int th = add_link(b, nm, hip, MCB_JOINT_REVOLUTE, 0, 1, 0, xf(0, 0.037 * mi, 0),
                          LK_THIGH_KG, thcom, thI);
        b->q0[th] = thigh_q;
        add_box(b, th, 0, 0, -0.125, 0.043 / 2, 0.034 / 2, 0.125, mu);
        double ccom[3] = {-0.002196, -0.000381, -0.12338};
        double cI[9] = {0.006181961, 0.000000237, -0.000002985, 0.000000237, 0.006196546,
                        0.000005138, -0.000002985, 0.000005138, 0.000034774};
        snprintf(nm, sizeof nm, "%s_calf", leg_name[g]);
        int ca = add_link(b, nm, th, MCB_JOINT_REVOLUTE, 0, 1, 0, xf(0, 0, -0.25), LK_CALF_KG, ccom,
                          cI);
        b->q0[ca] = calf_q;
        add_box(b, ca, 0, 0, -0.125, 0.008, 0.008, 0.125, mu);
        double fI[9] = {0}, zero[3] = {0, 0, 0};
        fI[0] = fI[4] = fI[8] = 0.4 * LK_FOOT_KG * 0.0265 * 0.0265;
        snprintf(nm, sizeof nm, "%s_foot", leg_name[g]);
        int ft =
            add_link(b, nm, ca, MCB_JOINT_FIXED, 0, 0, 1, xf(0, 0, -0.25), LK_FOOT_KG, zero, fI);
        add_sphere(b, ft, 0, 0, 0, 0.0265, 1.0);
    }
    mcb_rc rc = finish(b, "quadruped", 1, NULL, 100.0, out, err);
    free(b);
    return rc;
}

/* ---- Unitree G1 upper body with two 3-finger hands ---- */

/* Arm of the G1 (unitree_ros g1_description, 29-DOF model, rounded):
 * joint axes, offsets from the parent joint (left arm; the right mirrors
 * y) and link masses. */
static const struct {
    const char *name;
    double axis[3], off[3], mass_kg;
} G1_ARM[7] = {
    {"shoulder_pitch", {0, 1, 0}, {0.0040, 0.1002, 0.2378}, 0.718},
    {"shoulder_roll", {1, 0, 0}, {0, 0.0380, -0.0138}, 0.643},
    {"shoulder_yaw", {0, 0, 1}, {0, 0.0062, -0.1032}, 0.734},
    {"elbow", {0, 1, 0}, {0.0158, 0, -0.0806}, 0.600},
    {"wrist_roll", {1, 0, 0}, {0.1000, 0.0019, -0.0100}, 0.085},
    {"wrist_pitch", {0, 1, 0}, {0.0380, 0, 0}, 0.484},
    {"wrist_yaw", {0, 0, 1}, {0.0460, 0, 0}, 0.254},
};
#define G1_TORSO_KG 7.818
#define G1_PALM_KG 0.35
#define G1_PHALANX_KG 0.045

/* One 3-finger hand (Dex3-1-like: thumb 3 joints, index 2, middle 2) on
 * link `wrist`; mi = +1 left, -1 right. */
static void add_hand(build *b, int wrist, double mi, const char *side)
{
    const double mu = 1.0;
    char nm[32];
    double pcom[3] = {0.04, 0, 0}, pI[9];
    inertia_box(G1_PALM_KG, 0.04, 0.035, 0.015, pI);
    snprintf(nm, sizeof nm, "%s_palm", side);
    int palm =
        add_link(b, nm, wrist, MCB_JOINT_FIXED, 0, 0, 1, xf(0.04, 0, 0), G1_PALM_KG, pcom, pI);
    add_box(b, palm, 0.04, 0, 0, 0.04, 0.035, 0.015, mu);
    /* fingers: each phalanx a rod of 4 cm along +x, flexing about -z*mi
     * (towards the thumb); the thumb opposes from the palm's -y*mi side */
    const double seg[3] = {0.04, 0, 0}, o[3] = {0, 0, 0}, r = 0.01;
    static const char *fname[2] = {"index", "middle"};
    for (int f = 0; f < 2; f++) {
        int parent = palm;
        for (int j = 0; j < 2; j++) {
            snprintf(nm, sizeof nm, "%s_%s_%d", side, fname[f], j);
            mcb_xform pl = j == 0 ? xf(0.08, (f == 0 ? 0.02 : -0.02) * mi, 0) : xf(0.04, 0, 0);
            int l = add_rod_link(b, nm, parent, MCB_JOINT_REVOLUTE, 0, 0, -mi, pl, G1_PHALANX_KG, o,
                                 seg, r);
            add_capsule(b, l, o, seg, r, mu);
            parent = l;
        }
    }
    int parent = palm;
    static const double thumb_axis[3][3] = {{1, 0, 0}, {0, 0, 1}, {0, 0, 1}};
    for (int j = 0; j < 3; j++) {
        snprintf(nm, sizeof nm, "%s_thumb_%d", side, j);
        mcb_xform pl = j == 0 ? xf(0.03, -0.04 * mi, 0) : xf(0.04, 0, 0);
        double ax = thumb_axis[j][0], az = thumb_axis[j][2] * mi;
        int l = add_rod_link(b, nm, parent, MCB_JOINT_REVOLUTE, ax, 0, az, pl, G1_PHALANX_KG, o,
                             seg, r);
        add_capsule(b, l, o, seg, r, mu);
        parent = l;
    }
}

mcb_rc mcb_robot_dual_arm(const mcb_xform *base, mcb_robot **out, mcb_err *err)
{
    if (!out) return mcb_fail(err, MCB_E_INPUT, "dual_arm: no output pointer");
    *out = NULL;
    build *b = mcb_calloc(1, sizeof *b);
    if (!b) return mcb_fail(err, MCB_E_NOMEM, "dual_arm: out of memory");
    const double mu = 0.5;
    double tcom[3] = {0, 0, 0.15}, tI[9];
    inertia_box(G1_TORSO_KG, 0.06, 0.1, 0.15, tI);
    int torso = add_link(b, "torso", -1, MCB_JOINT_FIXED, 0, 0, 1, mcb_xform_identity(),
                         G1_TORSO_KG, tcom, tI);
    add_box(b, torso, 0, 0, 0.15, 0.06, 0.1, 0.15, mu);
    add_sphere(b, torso, 0, 0, 0.40, 0.08, mu); /* head */
    for (int s = 0; s < 2; s++) {
        double mi = s == 0 ? 1.0 : -1.0;
        const char *side = s == 0 ? "left" : "right";
        int parent = torso;
        for (int j = 0; j < 7; j++) {
            char nm[32];
            snprintf(nm, sizeof nm, "%s_%s", side, G1_ARM[j].name);
            /* the link's body reaches to the next joint (the hand for the last) */
            double o[3] = {0, 0, 0}, nx[3];
            if (j < 6)
                nx[0] = G1_ARM[j + 1].off[0], nx[1] = G1_ARM[j + 1].off[1] * mi,
                nx[2] = G1_ARM[j + 1].off[2];
            else nx[0] = 0.04, nx[1] = nx[2] = 0;
            double ax[3] = {G1_ARM[j].axis[0], G1_ARM[j].axis[1], G1_ARM[j].axis[2]};
            int l = add_rod_link(b, nm, parent, MCB_JOINT_REVOLUTE, ax[0], ax[1], ax[2],
                                 xf(G1_ARM[j].off[0], G1_ARM[j].off[1] * mi, G1_ARM[j].off[2]),
                                 G1_ARM[j].mass_kg, o, nx, 0.035);
            add_capsule(b, l, o, nx, 0.035, mu);
            parent = l;
        }
        add_hand(b, parent, mi, side);
    }
    mcb_rc rc = finish(b, "dual_arm", 0, base, 200.0, out, err);
    free(b);
    return rc;
}

/* ---- 2-finger parallel gripper ---- */

#define GRIP_PALM_KG 0.5
#define GRIP_FINGER_KG 0.05

mcb_rc mcb_robot_gripper2(const mcb_xform *base, mcb_robot **out, mcb_err *err)
{
    if (!out) return mcb_fail(err, MCB_E_INPUT, "gripper2: no output pointer");
    *out = NULL;
    build *b = mcb_calloc(1, sizeof *b);
    if (!b) return mcb_fail(err, MCB_E_NOMEM, "gripper2: out of memory");
    /* palm: a box 4 x 20 x 6 cm above the fingers; fingers 2 x 2 x 5 cm,
     * open 8 cm apart at q = 0, q > 0 closes each by q (m) */
    double pcom[3] = {0, 0, 0}, pI[9], fcom[3] = {0, 0, 0}, fI[9];
    inertia_box(GRIP_PALM_KG, 0.02, 0.1, 0.03, pI);
    inertia_box(GRIP_FINGER_KG, 0.01, 0.01, 0.025, fI);
    int palm = add_link(b, "palm", -1, MCB_JOINT_FIXED, 0, 0, 1, mcb_xform_identity(), GRIP_PALM_KG,
                        pcom, pI);
    add_box(b, palm, 0, 0, 0, 0.02, 0.1, 0.03, 0.5);
    for (int s = 0; s < 2; s++) {
        double mi = s == 0 ? 1.0 : -1.0;
        int f = add_link(b, s == 0 ? "finger_left" : "finger_right", palm, MCB_JOINT_PRISMATIC, 0,
                         -mi, 0, xf(0, 0.05 * mi, -0.055), GRIP_FINGER_KG, fcom, fI);
        add_box(b, f, 0, 0, 0, 0.01, 0.01, 0.025, 1.0);
    }
    mcb_rc rc = finish(b, "gripper2", 0, base, 200.0, out, err);
    free(b);
    return rc;
}

/* ---- 10-DOF mobile manipulator ---- */

/* A small differential-drive base with a 5-DOF arm (SubADMM paper Sec.
 * IV-A 2; the paper gives no numbers: these are our choice, docs/robots.md).
 * The base moves in the plane of the fixed frame `base` through prismatic
 * x, prismatic y and revolute yaw joints (passive: the wheels drive it
 * through the rolling joints the scene adds); the wheels are velocity-
 * driven (a damper of MM_WHEEL_KD towards v_ref); the arm has the PD rule. */
#define MM_CHASSIS_KG 20.0
#define MM_WHEEL_KG 1.0
#define MM_WHEEL_R_M 0.08      /* wheel radius */
#define MM_WHEEL_W_M 0.04      /* wheel width */
#define MM_TRACK_HALF_M 0.22   /* wheel centres at y = +-0.22 m */
#define MM_WHEEL_KD 20.0       /* N m s/rad */
#define MM_ARM_KG_1 2.0
#define MM_ARM_KG_2 1.5
#define MM_ARM_KG_3 1.0
#define MM_ARM_KG_4 0.5
#define MM_ARM_KG_5 0.3
#define MM_EE_KG 0.05
#define MM_UPPER_M 0.30
#define MM_FORE_M 0.30
#define MM_WRIST_M 0.08
#define MM_HAND_M 0.10
#define MM_TOOL_M 0.14         /* wrist roll axis to the "ee" point */

mcb_rc mcb_robot_mobile_manipulator(const mcb_xform *base, mcb_robot **out, mcb_err *err)
{
    if (!out) return mcb_fail(err, MCB_E_INPUT, "mobile_manipulator: no output pointer");
    *out = NULL;
    build *b = mcb_calloc(1, sizeof *b);
    if (!b) return mcb_fail(err, MCB_E_NOMEM, "mobile_manipulator: out of memory");
    const double mu = 0.5, zero[3] = {0, 0, 0};
    /* planar base: massless x and y carriages, then the chassis turning
     * about z; the chassis frame sits on the ground under the yaw axis */
    int bx = add_link(b, "base_x", -1, MCB_JOINT_PRISMATIC, 1, 0, 0, mcb_xform_identity(), 0, zero,
                      NULL);
    int by = add_link(b, "base_y", bx, MCB_JOINT_PRISMATIC, 0, 1, 0, mcb_xform_identity(), 0, zero,
                      NULL);
    double ccom[3] = {0, 0, 0.15}, cI[9];
    inertia_box(MM_CHASSIS_KG, 0.25, 0.2, 0.1, cI);
    int ch = add_link(b, "chassis", by, MCB_JOINT_REVOLUTE, 0, 0, 1, mcb_xform_identity(),
                      MM_CHASSIS_KG, ccom, cI);
    add_box(b, ch, 0, 0, 0.15, 0.25, 0.2, 0.1, mu);
    b->gain[bx] = b->gain[by] = b->gain[ch] = GAIN_PASSIVE;
    /* wheels: solid disks about their axle y, centres at wheel height */
    for (int s = 0; s < 2; s++) {
        double mi = s == 0 ? 1.0 : -1.0;
        double a[3] = {0, -0.5 * MM_WHEEL_W_M, 0}, c[3] = {0, 0.5 * MM_WHEEL_W_M, 0};
        int wl = add_rod_link(b, s == 0 ? "wheel_l" : "wheel_r", ch, MCB_JOINT_REVOLUTE, 0, 1, 0,
                              xf(0, MM_TRACK_HALF_M * mi, MM_WHEEL_R_M), MM_WHEEL_KG, a, c,
                              MM_WHEEL_R_M);
        b->gain[wl] = GAIN_DAMPER;
        b->kd_fixed[wl] = MM_WHEEL_KD;
    }
    /* the arm on the chassis top: yaw, shoulder and elbow pitch, wrist
     * pitch, wrist roll; at q = 0 it reaches forward (+x) horizontally */
    const double o[3] = {0, 0, 0}, r = 0.04;
    double col[3] = {0, 0, 0.1}, up[3] = {MM_UPPER_M, 0, 0}, fo[3] = {MM_FORE_M, 0, 0};
    double wr[3] = {MM_WRIST_M, 0, 0}, ha[3] = {MM_HAND_M, 0, 0};
    int a1 = add_rod_link(b, "arm_yaw", ch, MCB_JOINT_REVOLUTE, 0, 0, 1, xf(0.1, 0, 0.25),
                          MM_ARM_KG_1, o, col, r);
    add_capsule(b, a1, o, col, r, mu);
    int a2 = add_rod_link(b, "arm_shoulder", a1, MCB_JOINT_REVOLUTE, 0, 1, 0, xf(0, 0, 0.1),
                          MM_ARM_KG_2, o, up, 0.8 * r);
    add_capsule(b, a2, o, up, 0.8 * r, mu);
    int a3 = add_rod_link(b, "arm_elbow", a2, MCB_JOINT_REVOLUTE, 0, 1, 0, xf(MM_UPPER_M, 0, 0),
                          MM_ARM_KG_3, o, fo, 0.7 * r);
    add_capsule(b, a3, o, fo, 0.7 * r, mu);
    int a4 = add_rod_link(b, "arm_wrist_pitch", a3, MCB_JOINT_REVOLUTE, 0, 1, 0,
                          xf(MM_FORE_M, 0, 0), MM_ARM_KG_4, o, wr, 0.6 * r);
    add_capsule(b, a4, o, wr, 0.6 * r, mu);
    int a5 = add_rod_link(b, "arm_wrist_roll", a4, MCB_JOINT_REVOLUTE, 1, 0, 0,
                          xf(MM_WRIST_M, 0, 0), MM_ARM_KG_5, o, ha, 0.5 * r);
    add_capsule(b, a5, o, ha, 0.5 * r, mu);
    /* the tool point: a small fixed link without a shape, MM_TOOL_M beyond
     * the wrist roll joint (2 cm past the hand's capsule end cap) */
    double eI[9] = {0};
    eI[0] = eI[4] = eI[8] = 0.4 * MM_EE_KG * 0.01 * 0.01;
    add_link(b, "ee", a5, MCB_JOINT_FIXED, 0, 0, 1, xf(MM_TOOL_M, 0, 0), MM_EE_KG, zero, eI);
    mcb_rc rc = finish(b, "mobile_manipulator", 0, base, 200.0, out, err);
    free(b);
    return rc;
}

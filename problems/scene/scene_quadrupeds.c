/* scene_quadrupeds.c: the multiple-Laikago drop of the CANAL/SubADMM paper
 * (Sec. VII-D2, Fig. 12, Table III): N quadrupeds (mcb_robot_quadruped: a
 * floating trunk and three joints per leg, 18 DOF, trunk and legs boxes,
 * feet spheres), each one subsystem, dropped onto the floor while a
 * high-gain joint PD holds a standing posture; h = 1/240 s. N = 8 gives
 * 144 DOF (the paper: typically 80-100 contacts per step); the paper's
 * larger case has 27 robots.
 *
 * What we build (docs/scenes.md says what differs): the robots on a
 * g x g x g lattice, g = ceil(cbrt(N)) (8 = 2^3 and 27 = 3^3: two or three
 * layers, so that the upper robots land on the lower ones, as in the
 * paper's snapshots of robots piling up), filled layer by layer from the
 * bottom; the bottom layer starts with the feet QUAD_DROP_M above the
 * floor, each layer QUAD_LAYER_M above the one below; each robot gets a
 * small random offset, yaw, roll and pitch from a fixed seed. The PD target
 * is the robot's nominal standing posture (robot_models.c: hip abduction 0,
 * thigh 0.67 rad, knee -1.3 rad), with zero target velocity. Every step is recorded
 * (name "quadrupedsN-stepKKKK").
 * Closed loop (docs/scenes.md): the outcome is the least uprightness over
 * the robots (min_upright, the z component of the trunk's up axis),
 * failing below 0.5 (a trunk tilted past 60 degrees: the robot has fallen
 * over, on its side or its back) when the robots are
 * dropped in one layer with --tilt at most QUAD_UPRIGHT_TILT (robots
 * landing on robots may topple: the reference run of 8 has one on its
 * back by step 200, so a pile's uprightness is recorded, not judged).
 *
 * Fails with MCB_E_INPUT on bad options and with the step's error when a
 * step cannot be solved; frees everything it allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/robot_models.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define QUAD_H_S (1.0 / 240)  /* paper */
#define QUAD_MU 0.8           /* floor friction (paper: not stated) */
#define QUAD_DROP_M 0.05      /* feet above the floor at the start (bottom layer) */
#define QUAD_LAYER_M 0.8     /* vertical spacing of the layers */
#define QUAD_SPACING_M 0.75   /* horizontal spacing of the lattice (x and y) */
#define QUAD_OFFSET_M 0.03    /* random horizontal offset (uniform +-) */
#define QUAD_YAW_RAD 0.3      /* random yaw (uniform +-) */
#define QUAD_UPRIGHT_TILT 0.5 /* largest --tilt under which a robot must land upright */
#define QUAD_FALLEN 0.5       /* cos 60 degrees: a trunk tilted further has fallen over */

/* Options in table order (scenes.c): --robots, --steps, --tilt (largest
 * random roll and pitch at the drop, rad). */
enum { OPT_ROBOTS, OPT_STEPS, OPT_TILT, OPT_SEED };

/* The lowest point of the robot's shapes in world at its current pose
 * (spheres and boxes: exact; others by their AABB). */
static double lowest_point(const mcb_robot *r)
{
    int ns = 0;
    const mcb_shape *s = mcb_robot_shapes(r, &ns);
    double zmin = INFINITY;
    for (int k = 0; k < ns; k++) {
        mcb_xform X = mcb_xform_compose(mcb_robot_link_pose(r, s[k].body), &s[k].local);
        double lo[3], hi[3];
        mcb_shape_aabb(&s[k], &X, 0, lo, hi);
        if (lo[2] < zmin) zmin = lo[2];
    }
    return zmin;
}

/* Quaternion of yaw psi about z, then pitch and roll (small). */
static void tilted_yaw(double yaw, double roll, double pitch, double q[4])
{
    const double z[3] = {0, 0, 1}, x[3] = {1, 0, 0}, y[3] = {0, 1, 0};
    double qz[4], qx[4], qy[4], t[4];
    mcb_quat_from_axis_angle(z, yaw, qz);
    mcb_quat_from_axis_angle(x, roll, qx);
    mcb_quat_from_axis_angle(y, pitch, qy);
    /* q = qz * qy * qx (Hamilton products) */
    t[0] = qy[0] * qx[0] - qy[1] * qx[1] - qy[2] * qx[2] - qy[3] * qx[3];
    t[1] = qy[0] * qx[1] + qy[1] * qx[0] + qy[2] * qx[3] - qy[3] * qx[2];
    t[2] = qy[0] * qx[2] - qy[1] * qx[3] + qy[2] * qx[0] + qy[3] * qx[1];
    t[3] = qy[0] * qx[3] + qy[1] * qx[2] - qy[2] * qx[1] + qy[3] * qx[0];
    q[0] = qz[0] * t[0] - qz[1] * t[1] - qz[2] * t[2] - qz[3] * t[3];
    q[1] = qz[0] * t[1] + qz[1] * t[0] + qz[2] * t[3] - qz[3] * t[2];
    q[2] = qz[0] * t[2] - qz[1] * t[3] + qz[2] * t[0] + qz[3] * t[1];
    q[3] = qz[0] * t[3] + qz[1] * t[2] - qz[2] * t[1] + qz[3] * t[0];
}

/* The outcome (docs/scenes.md, "Closed loop"): the least, over the robots,
 * of the z component of the trunk's up axis (its frame's z in the world):
 * 1 standing level, 0 on its side, -1 on its back. From the base
 * quaternion (q[3..6], w x y z) itself, so no pose need be fresh:
 * R_zz = (w^2 - x^2 - y^2 + z^2) / |q|^2. NaN when a state is not finite. */
static double min_upright(const void *ctx, mcb_world *w)
{
    (void)ctx;
    double least = INFINITY;
    for (int k = 0; k < mcb_world_nrobots(w); k++) {
        const double *q = mcb_robot_q(mcb_world_robot(w, k)) + 3;
        double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        double up = (q[0] * q[0] - q[1] * q[1] - q[2] * q[2] + q[3] * q[3]) / n2;
        if (!(up >= least)) least = up; /* NaN sticks */
        if (isnan(least)) break;
    }
    return least;
}

/* Robot k of n: built, posed on the lattice with its random perturbation,
 * targets set, added to the world. */
static mcb_rc add_quadruped(mcb_world *w, int k, int n, double tilt, mcb_rng *rng, mcb_err *err)
{
    int g = 1;
    while (g * g * g < n) g++;
    int ix = k % g, iy = (k / g) % g, iz = k / (g * g);
    mcb_robot *r = NULL;
    mcb_rc rc = mcb_robot_quadruped(&r, err);
    if (rc) return rc;
    /* the robot comes in its standing posture (robot_models.c: hip 0, thigh
     * 0.67 rad, knee -1.3 rad) with q_ref = that posture */
    double *q = mcb_robot_q(r);
    int nj = mcb_robot_ndof(r) - 6;
    double dx = QUAD_OFFSET_M * (2 * mcb_rng_uniform(rng) - 1);
    double dy = QUAD_OFFSET_M * (2 * mcb_rng_uniform(rng) - 1);
    double yaw = QUAD_YAW_RAD * (2 * mcb_rng_uniform(rng) - 1);
    double roll = tilt * (2 * mcb_rng_uniform(rng) - 1);
    double pitch = tilt * (2 * mcb_rng_uniform(rng) - 1);
    q[0] = q[1] = q[2] = 0;
    tilted_yaw(yaw, roll, pitch, q + 3);
    mcb_robot_update(r);
    double zlow = lowest_point(r);
    q[0] = (ix - 0.5 * (g - 1)) * QUAD_SPACING_M + dx;
    q[1] = (iy - 0.5 * (g - 1)) * QUAD_SPACING_M + dy;
    q[2] = -zlow + QUAD_DROP_M + iz * QUAD_LAYER_M;
    mcb_robot_update(r);
    memcpy(mcb_robot_q_ref(r), q + 7, (size_t)nj * sizeof(double));
    memset(mcb_robot_v_ref(r), 0, (size_t)nj * sizeof(double));
    int first = 0;
    return mcb_world_add_robot(w, r, &first, err); /* the world owns r */
}

mcb_rc mcb_scene_quadrupeds(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "quadrupeds: NULL argument");
    *out = NULL;
    int nr = (int)vals[OPT_ROBOTS], steps = (int)vals[OPT_STEPS];
    if (nr < 1 || steps < 1 || !(vals[OPT_TILT] >= 0 && vals[OPT_TILT] <= 3.2))
        return mcb_fail(err, MCB_E_INPUT,
                        "quadrupeds: --robots and --steps must be >= 1, --tilt in [0, 3.2]");

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = QUAD_H_S;

    mcb_world *w = NULL;
    mcb_problem_set *S = NULL;
    mcb_rng rng;
    mcb_rng_seed(&rng, (unsigned long long)vals[OPT_SEED]);
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc)
        rc = mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, QUAD_MU, NULL, err);
    for (int k = 0; k < nr && !rc; k++) rc = add_quadruped(w, k, nr, vals[OPT_TILT], &rng, err);
    if (rc) goto done;
    /* robots in one layer, dropped 5 cm nearly level, land on their feet;
     * upper layers landing on lower robots, or a larger random tilt, may
     * topple a robot in any run: then the uprightness is recorded, not
     * judged */
    int g = 1;
    while (g * g * g < nr) g++;
    double fall = nr <= g * g && vals[OPT_TILT] <= QUAD_UPRIGHT_TILT ? QUAD_FALLEN : NAN;
    mcb_world_set_outcome(w, &(mcb_world_outcome){"min_upright", "1 (cos of tilt)", min_upright,
                                                  NULL, fall, NAN, 0});

    char src[512], prefix[64];
    mcb_scene_args_named("quadrupeds", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "quadrupeds%d", nr);
    rc = mcb_world_describe(w, prefix, "quadrupeds", src,
                            "CANAL/SubADMM paper Sec. VII-D2 (Table III, Fig. 12): quadrupeds "
                            "dropped onto the floor, PD holding a standing posture",
                            err);
    if (rc) goto done;

    rc = mcb_world_record(w, steps, &S, err);

done:
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

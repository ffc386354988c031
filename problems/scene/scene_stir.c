/* scene_stir.c: the granular stirring scene of the SubADMM paper (Sec.
 * IV-A 1, Fig. 1a; scaling study Fig. 2): N spheres (radius 1 cm, 4 g) in a
 * box, stirred by a rod held by a 7-DOF arm (mcb_robot_arm7, fixed base,
 * high-gain joint PD). With N = 216 the dimension is 216 * 6 + 7 = 1303 and
 * there are 217 subsystems (each sphere and the arm), h = 10 ms.
 *
 * What we build (docs/scenes.md states what differs from the paper):
 *  - the box: a static floor slab and four static wall slabs (boxes);
 *  - the spheres on a jittered cubic lattice inside it (fixed seed), with
 *    the lattice sites the rod occupies at the start left empty;
 *  - the rod: a capsule attached to the arm's last link along its local z;
 *  - the motion: the rod tip moves on a horizontal circle inside the pile
 *    (angular speed ramped up smoothly), the rod kept vertical; the joint
 *    targets q_ref come from a damped-least-squares inverse kinematics on a
 *    private copy of the arm (never the simulated one), v_ref from their
 *    finite difference (arm_track.h). The arm starts at the IK solution of
 *    the first target, at rest.
 * Every step is recorded (name "stirN-stepKKKK").
 * Closed loop (docs/scenes.md): the outcome is the count of spheres that
 * left the box (spheres_escaped), failing above 0; the energy bound is
 * scaled by the spheres' weight, not the arm's.
 *
 * Fails with MCB_E_INPUT on bad options, MCB_E_NUMERIC when the IK does not
 * reach the start pose or a step cannot be solved; frees everything it
 * allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/arm_track.h"
#include "problems/scene/robot_models.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define STIR_R_M 0.01          /* sphere radius (paper) */
#define STIR_MASS_KG 0.004     /* sphere mass (paper) */
#define STIR_MU 0.5            /* friction (paper: not stated) */
#define STIR_H_S 0.01          /* time step (paper: 10 ms) */
#define STIR_SPACING_M 0.021   /* lattice spacing: 1 mm between spheres */
#define STIR_JITTER_M 0.0004   /* horizontal lattice jitter (uniform +-) */
#define STIR_ROD_R_M 0.008     /* rod radius */
#define STIR_ROD_MU 0.2        /* rod friction (a smooth rod: less frictional jamming) */
#define STIR_ROD_L_M 0.24      /* rod length from the flange to the tip centre */
#define STIR_TIP_Z_M 0.045     /* rod tip centre height above the box floor */
#define STIR_CIRCLE_R_M 0.035  /* radius of the stirring circle */
#define STIR_PERIOD_S 2.0      /* period of one stirring turn */
#define STIR_RAMP_S 0.2        /* time to reach the stirring speed */
#define STIR_REACH_M 0.45      /* horizontal arm base to circle centre */
#define STIR_WALL_M 0.01       /* wall thickness */
#define STIR_TOL 1e-5          /* natural-map residual of the advance (see below) */
#define STIR_MAX_ITERS 5000    /* per solver and step */
#define STIR_G_M_S2 9.81       /* the world's default gravity */
#define STIR_PI 3.14159265358979323846

/* Options in table order (scenes.c): --spheres, --steps. */
enum { OPT_SPHERES, OPT_STEPS, OPT_SEED };

/* The rod tip target at time t: a circle of radius STIR_CIRCLE_R_M about
 * c (ctx), its phase phi(t) = 2 pi / T (t - R/2 (1 - ...)) ramped by a
 * smooth (cubic) speed profile over STIR_RAMP_S; the rod pointing down. */
static void stir_target(const void *ctx, double t_s, mcb_ik_target *t)
{
    const double *c = ctx;
    double phase;
    if (t_s < STIR_RAMP_S) {
        double u = t_s / STIR_RAMP_S; /* integral of 3u^2 - 2u^3 */
        phase = STIR_RAMP_S * (u * u * u - 0.5 * u * u * u * u);
    } else {
        phase = STIR_RAMP_S * 0.5 + (t_s - STIR_RAMP_S);
    }
    double a = 2 * STIR_PI * phase / STIR_PERIOD_S;
    const double p[3] = {c[0] + STIR_CIRCLE_R_M * cos(a), c[1] + STIR_CIRCLE_R_M * sin(a), c[2]};
    const double d[3] = {0, 0, -1};
    memcpy(t->p, p, sizeof t->p);
    memcpy(t->dir, d, sizeof t->dir);
}

/* ---- the scene's pieces -------------------------------------------- */

typedef struct {
    double half_m;    /* half interior side of the box */
    double wall_h_m;  /* wall height */
    double centre[3]; /* stirring circle centre (tip height) */
    int sites;        /* lattice sites per row */
} stir_layout;

static stir_layout layout_for(int nspheres)
{
    stir_layout L;
    /* about 2.5 layers: sites per row so that the footprint holds N / 2.5 */
    L.sites = (int)ceil(sqrt(nspheres / 2.5)) + 1;
    if (L.sites < 6) L.sites = 6;
    L.half_m = 0.5 * L.sites * STIR_SPACING_M;
    int per_layer = L.sites * L.sites;
    int layers = (nspheres + per_layer / 2) / (per_layer - 4) + 1;
    L.wall_h_m = layers * STIR_SPACING_M + 0.03;
    /* the circle sits near the arm's side of the box for large boxes */
    double cx = -L.half_m + STIR_CIRCLE_R_M + 0.06;
    if (cx > 0) cx = 0;
    L.centre[0] = cx;
    L.centre[1] = 0;
    L.centre[2] = STIR_TIP_Z_M;
    return L;
}

static mcb_rc add_static_box(mcb_world *w, double cx, double cy, double cz, double hx, double hy,
                             double hz, mcb_err *err)
{
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = MCB_SHAPE_BOX;
    s.body = -1;
    s.local = mcb_xform_identity();
    s.local.p[0] = cx, s.local.p[1] = cy, s.local.p[2] = cz;
    s.size[0] = hx, s.size[1] = hy, s.size[2] = hz;
    s.mu = STIR_MU;
    return mcb_world_add_shape(w, &s, err);
}

/* Floor slab (top face at z = 0) and four walls. */
static mcb_rc add_box(mcb_world *w, const stir_layout *L, mcb_err *err)
{
    double a = L->half_m, t = STIR_WALL_M, hh = 0.5 * L->wall_h_m;
    mcb_rc rc = add_static_box(w, 0, 0, -t, a + 2 * t, a + 2 * t, t, err);
    if (!rc) rc = add_static_box(w, a + t, 0, hh, t, a + 2 * t, hh, err);
    if (!rc) rc = add_static_box(w, -a - t, 0, hh, t, a + 2 * t, hh, err);
    if (!rc) rc = add_static_box(w, 0, a + t, hh, a, t, hh, err);
    if (!rc) rc = add_static_box(w, 0, -a - t, hh, a, t, hh, err);
    return rc;
}

/* The spheres, layer by layer on the jittered lattice, skipping sites
 * within reach of the rod's start position. */
static mcb_rc add_spheres(mcb_world *w, const stir_layout *L, int n, const double rod_xy[2],
                          unsigned long long seed,
                          mcb_err *err)
{
    mcb_rng rng;
    mcb_rng_seed(&rng, seed);
    double I = 0.4 * STIR_MASS_KG * STIR_R_M * STIR_R_M;
    int placed = 0;
    for (int layer = 0; placed < n; layer++) {
        for (int j = 0; j < L->sites && placed < n; j++) {
            for (int i = 0; i < L->sites && placed < n; i++) {
                double x = -L->half_m + (i + 0.5) * STIR_SPACING_M;
                double y = -L->half_m + (j + 0.5) * STIR_SPACING_M;
                double dx = x - rod_xy[0], dy = y - rod_xy[1];
                if (dx * dx + dy * dy <
                    (STIR_ROD_R_M + STIR_R_M + 0.002) * (STIR_ROD_R_M + STIR_R_M + 0.002))
                    continue;
                mcb_rigid b;
                memset(&b, 0, sizeof b);
                b.mass_kg = STIR_MASS_KG;
                b.inertia[0] = b.inertia[4] = b.inertia[8] = I;
                b.pos[0] = x + STIR_JITTER_M * (2 * mcb_rng_uniform(&rng) - 1);
                b.pos[1] = y + STIR_JITTER_M * (2 * mcb_rng_uniform(&rng) - 1);
                b.pos[2] = STIR_R_M + 0.0005 + layer * STIR_SPACING_M;
                b.quat[0] = 1;
                mcb_rc rc = mcb_world_add_primitive(w, &b, MCB_SHAPE_SPHERE, (double[3]){STIR_R_M},
                                                    STIR_MU, NULL, err);
                if (rc) return rc;
                placed++;
            }
        }
    }
    return MCB_OK;
}

/* The rod on the arm's last link: a capsule along local z from the flange
 * to the tip, in the group of the arm's own shapes (no self-contact). */
static mcb_rc add_rod(mcb_robot *r, mcb_err *err)
{
    int ns = 0;
    const mcb_shape *own = mcb_robot_shapes(r, &ns);
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = MCB_SHAPE_CAPSULE;
    s.body = mcb_robot_nlinks(r) - 1;
    s.local = mcb_xform_identity();
    s.local.p[2] = 0.5 * STIR_ROD_L_M;
    s.size[0] = STIR_ROD_R_M;
    s.size[1] = 0.5 * STIR_ROD_L_M;
    s.mu = STIR_ROD_MU;
    s.group = ns > 0 ? own[0].group : 0;
    return mcb_robot_add_shape(r, &s, err);
}

/* The outcome (docs/scenes.md, "Closed loop"): the spheres (the world's
 * free bodies) whose centre is outside the box, beyond a wall's inner face
 * or below the floor's top: a sphere there went through or over the box.
 * A non-finite position counts as escaped. ctx: the scene's stir_layout. */
static double spheres_escaped(const void *ctx, mcb_world *w)
{
    const stir_layout *L = ctx;
    int escaped = 0;
    for (int k = 0; k < mcb_world_nrigid(w); k++) {
        const double *x = mcb_world_body(w, k)->pos;
        if (!(fabs(x[0]) <= L->half_m && fabs(x[1]) <= L->half_m && x[2] >= 0)) escaped++;
    }
    return escaped;
}

/* Seeds of the first IK: an elbow-up reaching posture (Franka convention)
 * and rest. */
static const double start_seeds[3][7] = {{0, 0.3, 0, -2.0, 0, 2.3, 0.785},
                                         {0, -0.785, 0, -2.356, 0, 1.571, 0.785},
                                         {0, 0, 0, 0, 0, 0, 0}};

mcb_rc mcb_scene_stir(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "stir: NULL argument");
    *out = NULL;
    int nsph = (int)vals[OPT_SPHERES], steps = (int)vals[OPT_STEPS];
    if (nsph < 1 || steps < 1)
        return mcb_fail(err, MCB_E_INPUT, "stir: --spheres and --steps must be >= 1");

    stir_layout L = layout_for(nsph);
    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = STIR_H_S;
    o.tol = STIR_TOL;
    o.max_iters = STIR_MAX_ITERS;
    /* the energy bound: the spheres' weight x 1 m (8.5 J for 216 spheres)
     * plus 1 J; the default's scale is the arm's weight (its links weigh
     * 20 times the spheres), which the stirring barely moves (the
     * reference gains 0.12 J in 40 steps), so spheres thrown about with
     * the arm's energy would pass it */
    o.fail_energy_J = 1 + nsph * STIR_MASS_KG * STIR_G_M_S2 * 1.0;

    mcb_world *w = NULL;
    mcb_arm_track tr;
    memset(&tr, 0, sizeof tr);
    mcb_problem_set *S = NULL;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (rc) goto done;
    rc = add_box(w, &L, err);
    if (rc) goto done;
    mcb_ik_target t0;
    stir_target(L.centre, 0, &t0);
    rc = add_spheres(w, &L, nsph, t0.p, (unsigned long long)vals[OPT_SEED], err);
    if (rc) goto done;
    /* the default penetration bound (10 x the 1 mm margin = 1 cm) is one
     * sphere radius: it fits, so fail_pen_m stays 0 */
    mcb_world_set_outcome(w, &(mcb_world_outcome){"spheres_escaped", "spheres", spheres_escaped, &L,
                                                  NAN, 0, 0});

    mcb_xform base = mcb_xform_identity();
    base.p[0] = L.centre[0] - STIR_REACH_M;
    base.p[2] = 0;
    rc = mcb_arm_track_new(&tr, mcb_robot_arm7, &base, err);
    if (rc) goto done;
    rc = add_rod(tr.arm, err);
    if (rc) goto done;
    /* the rod tip STIR_ROD_L_M along the last link's z, that axis steered */
    tr.target.point[2] = STIR_ROD_L_M;
    tr.target.orient = MCB_IK_AXIS;
    tr.target.axis[2] = 1;
    tr.target.tol = 1e-9;
    tr.path = stir_target;
    tr.ctx = L.centre;
    tr.seeds = &start_seeds[0][0];
    tr.nseeds = 3;
    tr.seed_len = 7;
    tr.start_iters = 2000;
    tr.start_accept = 1e-6;
    rc = mcb_arm_track_start(&tr, w, "stir: the arm cannot reach the start of the stirring circle",
                             NULL, err);
    if (rc) goto done;

    char src[512], prefix[64];
    mcb_scene_args_named("stir", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "stir%d", nsph);
    rc = mcb_world_describe(w, prefix, "stir", src,
                            "SubADMM paper Sec. IV-A 1: spheres stirred by a 7-DOF arm", err);
    if (!rc) rc = mcb_arm_track_record(&tr, w, STIR_H_S, steps, &S, err);

done:
    mcb_arm_track_free(&tr);
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

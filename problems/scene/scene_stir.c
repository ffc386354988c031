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
 *    finite difference. The arm starts at the IK solution of the first
 *    target, at rest.
 * Every step is recorded (name "stirN-stepKKKK").
 *
 * Fails with MCB_E_INPUT on bad options, MCB_E_NUMERIC when the IK does not
 * reach the start pose or a step cannot be solved; frees everything it
 * allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcb_chol.h"
#include "robot_models.h"
#include "scenes.h"
#include "world.h"

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
#define STIR_SEED 0x5717ULL
#define STIR_PI 3.14159265358979323846

/* Options in table order (scenes.c): --spheres, --steps. */
enum { OPT_SPHERES, OPT_STEPS };

typedef struct {
    double p[3], d[3]; /* target rod tip (world) and rod direction (world) */
} ik_target;

/* ---- inverse kinematics (damped least squares) ----------------------- */

/* Rod tip position and direction of robot r at its current q. */
static void rod_tip(const mcb_robot *r, int ee, double tip[3], double dir[3])
{
    const mcb_xform *X = mcb_robot_link_pose(r, ee);
    const double local_tip[3] = {0, 0, STIR_ROD_L_M}, local_z[3] = {0, 0, 1};
    mcb_xform_point(X, local_tip, tip);
    mcb_m3_vec(X->R, local_z, dir);
}

/* One IK iteration on robot r towards t: the error e = [tip error;
 * rotation taking the rod direction to the target's], the tip Jacobian
 * J = [Jv - [R t_local]x Jw; Jw], dq = J^T (J J^T + lambda^2 I)^-1 e,
 * clamped to 0.2 rad per joint. Returns the error norm before the update.
 * Jk (6 x ndof) is the caller's workspace. */
static double ik_iterate(mcb_robot *r, int ee, const ik_target *t, double *Jk)
{
    int n = mcb_robot_ndof(r);
    double tip[3], dir[3], e[6];
    rod_tip(r, ee, tip, dir);
    for (int i = 0; i < 3; i++) e[i] = t->p[i] - tip[i];
    double c[3];
    mcb_v3_cross(dir, t->d, c);
    double sn = mcb_v3_norm(c), cs = mcb_v3_dot(dir, t->d);
    double ang = atan2(sn, cs);
    if (sn > 1e-12) {
        for (int i = 0; i < 3; i++) e[3 + i] = c[i] / sn * ang;
    } else if (cs < 0) { /* opposite: any axis normal to dir */
        double t1[3], t2[3];
        mcb_frame_tangents(dir, t1, t2);
        for (int i = 0; i < 3; i++) e[3 + i] = t1[i] * ang;
    } else {
        e[3] = e[4] = e[5] = 0;
    }
    double err = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) +
                 0.1 * sqrt(e[3] * e[3] + e[4] * e[4] + e[5] * e[5]);

    mcb_robot_link_jacobian(r, ee, Jk);
    const mcb_xform *X = mcb_robot_link_pose(r, ee);
    double rl[3], local_tip[3] = {0, 0, STIR_ROD_L_M};
    mcb_m3_vec(X->R, local_tip, rl);
    for (int j = 0; j < n; j++) { /* linear rows: v_tip = v_o + w x rl */
        double *col = Jk + 6 * j, w[3] = {col[3], col[4], col[5]}, wx[3];
        mcb_v3_cross(w, rl, wx);
        for (int i = 0; i < 3; i++) col[i] += wx[i];
    }
    double M[36], y[6];
    const double lambda2 = 1e-4;
    for (int a = 0; a < 6; a++) {
        for (int b = 0; b < 6; b++) {
            double s = 0;
            for (int j = 0; j < n; j++) s += Jk[6 * j + a] * Jk[6 * j + b];
            M[a * 6 + b] = s + (a == b ? lambda2 : 0);
        }
        y[a] = e[a];
    }
    if (mcb_dense_chol(6, M) != MCB_OK) return err;
    mcb_dense_chol_solve(6, M, y);
    double *q = mcb_robot_q(r);
    for (int j = 0; j < n; j++) {
        double dq = 0;
        for (int a = 0; a < 6; a++) dq += Jk[6 * j + a] * y[a];
        if (dq > 0.2) dq = 0.2;
        if (dq < -0.2) dq = -0.2;
        q[j] += dq;
    }
    mcb_robot_update(r);
    return err;
}

/* Runs IK on r from its current q to t; returns the final error. */
static double ik_solve(mcb_robot *r, int ee, const ik_target *t, int iters, double *Jk)
{
    double err = INFINITY;
    for (int k = 0; k < iters; k++) {
        err = ik_iterate(r, ee, t, Jk);
        if (err < 1e-9) break;
    }
    double tip[3], dir[3];
    rod_tip(r, ee, tip, dir);
    double d[3] = {t->p[0] - tip[0], t->p[1] - tip[1], t->p[2] - tip[2]};
    return mcb_v3_norm(d) + 0.1 * (1 - mcb_v3_dot(dir, t->d));
}

/* The rod tip target at time t: a circle of radius STIR_CIRCLE_R_M about
 * c, its phase phi(t) = 2 pi / T (t - R/2 (1 - ...)) ramped by a smooth
 * (cubic) speed profile over STIR_RAMP_S. */
static ik_target stir_target(const double c[3], double t_s)
{
    double phase;
    if (t_s < STIR_RAMP_S) {
        double u = t_s / STIR_RAMP_S; /* integral of 3u^2 - 2u^3 */
        phase = STIR_RAMP_S * (u * u * u - 0.5 * u * u * u * u);
    } else {
        phase = STIR_RAMP_S * 0.5 + (t_s - STIR_RAMP_S);
    }
    double a = 2 * STIR_PI * phase / STIR_PERIOD_S;
    ik_target t = {{c[0] + STIR_CIRCLE_R_M * cos(a), c[1] + STIR_CIRCLE_R_M * sin(a), c[2]},
                   {0, 0, -1}};
    return t;
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
                          mcb_err *err)
{
    mcb_rng rng;
    mcb_rng_seed(&rng, STIR_SEED);
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

/* Places robot r (and its IK twin) at the start pose: IK from a few
 * seeds, keeping the first that reaches the target. */
static mcb_rc start_pose(mcb_robot *twin, int ee, const ik_target *t0, double *Jk, mcb_err *err)
{
    int n = mcb_robot_ndof(twin);
    /* seeds: an elbow-up reaching posture (Franka convention) and rest */
    static const double seeds[3][7] = {{0, 0.3, 0, -2.0, 0, 2.3, 0.785},
                                       {0, -0.785, 0, -2.356, 0, 1.571, 0.785},
                                       {0, 0, 0, 0, 0, 0, 0}};
    double best = INFINITY;
    for (int s = 0; s < 3; s++) {
        double *q = mcb_robot_q(twin);
        for (int j = 0; j < n; j++) q[j] = j < 7 ? seeds[s][j] : 0;
        mcb_robot_update(twin);
        best = ik_solve(twin, ee, t0, 2000, Jk);
        if (best < 1e-6) return MCB_OK;
    }
    return mcb_fail(err, MCB_E_NUMERIC,
                    "stir: the arm cannot reach the start of the stirring circle (IK error %g)",
                    best);
}

mcb_rc mcb_scene_stir(const double *vals, mcb_problem_set **out, mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "stir: NULL argument");
    *out = NULL;
    int nsph = (int)vals[OPT_SPHERES], steps = (int)vals[OPT_STEPS];
    if (nsph < 1 || steps < 1)
        return mcb_fail(err, MCB_E_INPUT, "stir: --spheres and --steps must be >= 1");

    stir_layout L = layout_for(nsph);
    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.h_s = STIR_H_S;
    o.tol = STIR_TOL;
    o.max_iters = STIR_MAX_ITERS;

    mcb_world *w = NULL;
    mcb_robot *arm = NULL, *twin = NULL;
    mcb_problem_set *S = NULL;
    double *Jk = NULL, *qprev = NULL;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (rc) goto done;
    rc = add_box(w, &L, err);
    if (rc) goto done;
    ik_target t0 = stir_target(L.centre, 0);
    rc = add_spheres(w, &L, nsph, t0.p, err);
    if (rc) goto done;

    mcb_xform base = mcb_xform_identity();
    base.p[0] = L.centre[0] - STIR_REACH_M;
    base.p[2] = 0;
    rc = mcb_robot_arm7(&base, &arm, err);
    if (!rc) rc = mcb_robot_arm7(&base, &twin, err);
    if (rc) goto done;
    rc = add_rod(arm, err);
    if (rc) goto done;
    int n = mcb_robot_ndof(arm), ee = mcb_robot_nlinks(arm) - 1;
    Jk = mcb_calloc(6 * (size_t)n, sizeof(double));
    qprev = mcb_calloc((size_t)n, sizeof(double));
    if (!Jk || !qprev) {
        rc = mcb_fail(err, MCB_E_NOMEM, "stir: out of memory");
        goto done;
    }
    rc = start_pose(twin, ee, &t0, Jk, err);
    if (rc) goto done;
    memcpy(mcb_robot_q(arm), mcb_robot_q(twin), (size_t)n * sizeof(double));
    memcpy(mcb_robot_q_ref(arm), mcb_robot_q(twin), (size_t)n * sizeof(double));
    mcb_robot_update(arm);
    mcb_robot *a = arm;
    arm = NULL;
    int first = 0;
    rc = mcb_world_add_robot(w, a, &first, err); /* the world owns it from now on */
    if (rc) goto done;

    char src[512], prefix[64];
    mcb_scene_args_named("stir", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "stir%d", nsph);
    rc = mcb_world_describe(w, prefix, "stir", src,
                            "SubADMM paper Sec. IV-A 1: spheres stirred by a 7-DOF arm", err);
    if (rc) goto done;

    S = calloc(1, sizeof *S);
    if (!S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "stir: out of memory");
        goto done;
    }
    for (int k = 0; k < steps; k++) {
        /* targets of the step's end: q_ref by IK, v_ref = (q_ref - q_ref_prev) / h */
        memcpy(qprev, mcb_robot_q(twin), (size_t)n * sizeof(double));
        ik_target t = stir_target(L.centre, (k + 1) * STIR_H_S);
        ik_solve(twin, ee, &t, 50, Jk);
        mcb_robot_track(a, mcb_robot_q(twin), qprev, STIR_H_S);
        mcb_step_info info;
        rc = mcb_world_step_into(w, S, &info, err);
        if (rc) goto done;
    }

done:
    free(Jk);
    free(qprev);
    mcb_robot_free(&arm);
    mcb_robot_free(&twin);
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

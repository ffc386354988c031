/* scene_aniso_box.c: COND's anisotropic friction test (COND paper Sec.
 * III-E2, eq. (12), Prop. 6; Sec. V-G, Fig. 14): a rigid box on a floor
 * whose friction cone is elliptic, mu1 along the floor's friction axis 1
 * (world x, or `axis` degrees from it) and mu2 across, its four bottom
 * corners the contacts, launched with a horizontal velocity of `speed` at `angle` degrees from x
 * and sliding until it stops. Under maximal dissipation the friction force
 * is not opposite to the velocity when mu1 != mu2, and the trajectory is
 * curved (the paper: "the trajectory of the box is curved").
 *
 * The reference is the maximal-dissipation solution in the scheme's own
 * time discretisation (the world's backward Euler, theta = 0, as
 * cube-push's analytic solution): the box translates (the corners' loads
 * balance the friction's pitch moment, their centre of pressure on the
 * line of the friction force, so no yaw), its normal impulse per step is
 * h N = h m g, and the step's total friction impulse p (the sum of the
 * corners', each in its own ellipse scaled by its load: the sum is the
 * ellipse of the total load) maximizes the dissipation -v_{k+1}.p over
 *     E = { (p1 / mu1)^2 + (p2 / mu2)^2 <= (h N)^2 },
 * with v_{k+1} = v_k + p / m. Since -v_{k+1}.p = -(v_k.p + |p|^2 / m) and
 * m |v_k + p/m|^2 / 2 = m |v_k|^2 / 2 + v_k.p + |p|^2 / (2 m), maximizing
 * dissipation is minimizing |v_k + p/m|^2 over E (the one-step kinetic
 * energy): p = proj_E(-m v_k), the Euclidean projection onto the ellipse.
 * In the floor's axes, outside E it is p_i = y_i a_i^2 / (a_i^2 + t),
 * y = -m v_k, a = h N (mu1, mu2), with t > 0 the root of sum_i (y_i a_i / (a_i^2 + t))^2 = 1 (the
 * Lagrange condition), decreasing in t, found here by bisection on
 * [0, max_i a_i |y|] independently of the solvers' lib/mcb_cone.c (so
 * that the reference checks it); inside E, p = y and the box stops. Then
 * x_{k+1} = x_k + h v_{k+1}.
 *
 * The outcome (--measure): 0 the position error of the box's centre
 * against that reference (mm); 1 the box's lateral displacement (mm,
 * perpendicular to the launch direction, positive to its left: nonzero
 * when the trajectory is curved); 2 the box's yaw (degrees, |angle about
 * z|: 0 by symmetry). Fails with MCB_E_INPUT on bad options (a negative or
 * non-finite friction coefficient among them); frees what it allocated. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define BOX_G_M_S2 9.81 /* the world's default gravity (down z) */
#define BOX_PI 3.14159265358979323846

/* Options in table order (scenes.c). */
enum {
    OPT_MU1, OPT_MU2, OPT_SPEED, OPT_ANGLE, OPT_MASS, OPT_SIZE, OPT_STEPS, OPT_DT, OPT_MEASURE,
    OPT_AXIS
};

enum { MEASURE_ERROR = 0, MEASURE_LATERAL = 1, MEASURE_YAW = 2 };

typedef struct {
    int measure, steps;
    double x0[3], dir[2]; /* the start (the box's centre) and the launch direction */
    double axis[2];       /* the floor's friction axis 1 (unit, in the plane) */
    double *ref;          /* the reference centre (x, y) after step k, k = 0..steps */
} box_ctx;

/* The Euclidean projection of y onto the ellipse {(p1/a1)^2 + (p2/a2)^2 <= 1}
 * (a_i >= 0) into p, by bisection on the Lagrange multiplier t. */
static void ellipse_projection(const double y[2], const double a[2], double p[2])
{
    double in = 0.0;
    for (int i = 0; i < 2; i++) {
        if (a[i] > 0) in += (y[i] / a[i]) * (y[i] / a[i]);
        else if (y[i] != 0) in = INFINITY;
    }
    if (in <= 1.0) {
        p[0] = y[0], p[1] = y[1];
        return;
    }
    double lo = 0.0, hi = fmax(a[0], a[1]) * hypot(y[0], y[1]);
    for (int it = 0; it < 200 && hi - lo > 0; it++) {
        double t = 0.5 * (lo + hi), s = 0.0;
        if (t == lo || t == hi) break;
        for (int i = 0; i < 2; i++) {
            double q = y[i] * a[i] / (a[i] * a[i] + t);
            s += q * q;
        }
        if (s > 1.0) lo = t;
        else hi = t;
    }
    for (int i = 0; i < 2; i++) p[i] = a[i] > 0 ? y[i] * a[i] * a[i] / (a[i] * a[i] + hi) : 0.0;
}

/* The reference trajectory: steps backward-Euler steps of maximal
 * dissipation from x0, v0 (see the banner). */
static void reference(box_ctx *c, const double v0[2], double mu1, double mu2, double mass_kg,
                      double h_s)
{
    double v[2] = {v0[0], v0[1]}, x[2] = {c->x0[0], c->x0[1]};
    double hn = h_s * mass_kg * BOX_G_M_S2, a[2] = {mu1 * hn, mu2 * hn};
    c->ref[0] = x[0], c->ref[1] = x[1];
    const double *e1 = c->axis, e2[2] = {-c->axis[1], c->axis[0]};
    for (int k = 1; k <= c->steps; k++) {
        /* -m v_k in the floor's axes, projected, and back */
        double y[2] = {-mass_kg * (v[0] * e1[0] + v[1] * e1[1]),
                       -mass_kg * (v[0] * e2[0] + v[1] * e2[1])}, pa[2], p[2];
        ellipse_projection(y, a, pa);
        p[0] = pa[0] * e1[0] + pa[1] * e2[0], p[1] = pa[0] * e1[1] + pa[1] * e2[1];
        for (int i = 0; i < 2; i++) {
            v[i] += p[i] / mass_kg;
            x[i] += h_s * v[i];
            c->ref[2 * k + i] = x[i];
        }
    }
}

/* The outcome after the world's steps (see the banner). ctx: the box_ctx. */
static double box_outcome(const void *ctx, mcb_world *w)
{
    const box_ctx *c = ctx;
    const mcb_rigid *b = mcb_world_body(w, 0);
    if (c->measure == MEASURE_YAW) {
        const double *q = b->quat; /* w, x, y, z */
        double yaw = atan2(2 * (q[0] * q[3] + q[1] * q[2]), 1 - 2 * (q[2] * q[2] + q[3] * q[3]));
        return fabs(yaw) * 180.0 / BOX_PI;
    }
    if (c->measure == MEASURE_LATERAL)
        return 1e3 * (-(b->pos[0] - c->x0[0]) * c->dir[1] + (b->pos[1] - c->x0[1]) * c->dir[0]);
    int n = mcb_world_step_index(w);
    n = n < 0 ? 0 : n > c->steps ? c->steps : n;
    double d[3] = {b->pos[0] - c->ref[2 * n], b->pos[1] - c->ref[2 * n + 1], b->pos[2] - c->x0[2]};
    return 1e3 * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

mcb_rc mcb_scene_aniso_box(const double *vals, const struct mcb_world_loop *loop,
                           mcb_problem_set **out, mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "aniso-box: NULL argument");
    *out = NULL;
    double mu1 = vals[OPT_MU1], mu2 = vals[OPT_MU2], speed = vals[OPT_SPEED];
    double angle = vals[OPT_ANGLE] * BOX_PI / 180.0, mass_kg = vals[OPT_MASS];
    double half_m = 0.5 * vals[OPT_SIZE], h_s = vals[OPT_DT];
    box_ctx c;
    memset(&c, 0, sizeof c);
    c.steps = (int)vals[OPT_STEPS], c.measure = (int)vals[OPT_MEASURE];
    if (!(mu1 >= 0) || !isfinite(mu1) || !(mu2 >= 0) || !isfinite(mu2))
        return mcb_fail(err, MCB_E_INPUT,
                        "aniso-box: --mu1 = %g, --mu2 = %g: friction coefficients must be finite "
                        "and >= 0", mu1, mu2);
    if (c.steps < 1 || !(speed >= 0) || !isfinite(speed) || !isfinite(angle) ||
        !(mass_kg > 0) || !(half_m > 0) || !(h_s > 0) || c.measure < MEASURE_ERROR ||
        c.measure > MEASURE_YAW)
        return mcb_fail(err, MCB_E_INPUT,
                        "aniso-box: --steps >= 1, --speed >= 0, a finite --angle, --mass, --size "
                        "and --dt > 0, --measure 0 (position error), 1 (lateral displacement) "
                        "or 2 (yaw)");
    double axis = vals[OPT_AXIS] * BOX_PI / 180.0;
    if (!isfinite(axis))
        return mcb_fail(err, MCB_E_INPUT, "aniso-box: --axis must be finite (degrees)");
    c.dir[0] = cos(angle), c.dir[1] = sin(angle);
    c.axis[0] = cos(axis), c.axis[1] = sin(axis);
    c.x0[2] = half_m; /* resting on the floor, no gap, no penetration */
    double v0[2] = {speed * c.dir[0], speed * c.dir[1]};
    c.ref = mcb_malloc(2 * (size_t)c.steps + 2, sizeof(double));
    if (!c.ref) return mcb_fail(err, MCB_E_NOMEM, "aniso-box: out of memory");
    reference(&c, v0, mu1, mu2, mass_kg, h_s);

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = h_s;
    /* the default energy bound (1 J + lifting the box by 1 m) plus twice the
     * launch's kinetic energy */
    o.fail_energy_J = 1.0 + mass_kg * BOX_G_M_S2 + mass_kg * speed * speed;
    mcb_world *w = NULL;
    mcb_problem_set *S = NULL;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc) {
        /* the floor: mu1 along its axis 1, mu2 across; the box's own mu is the
         * larger, so that the pair takes the floor's two */
        mcb_shape floor;
        memset(&floor, 0, sizeof floor);
        floor.type = MCB_SHAPE_PLANE;
        floor.body = -1;
        floor.local = mcb_xform_identity();
        floor.mu = mu1, floor.mu2 = mu2, floor.aniso = 1;
        floor.axis1[0] = c.axis[0], floor.axis1[1] = c.axis[1];
        rc = mcb_world_add_shape(w, &floor, err);
    }
    if (!rc) {
        mcb_rigid b;
        memset(&b, 0, sizeof b);
        b.mass_kg = mass_kg;
        double side = 2 * half_m;
        b.inertia[0] = b.inertia[4] = b.inertia[8] = mass_kg * side * side / 6.0;
        b.quat[0] = 1;
        memcpy(b.pos, c.x0, sizeof b.pos);
        b.vel[0] = v0[0], b.vel[1] = v0[1];
        const double half[3] = {half_m, half_m, half_m};
        rc = mcb_world_add_primitive(w, &b, MCB_SHAPE_BOX, half, fmax(mu1, mu2), NULL, err);
    }
    if (rc) goto done;
    static const char *names[] = {"position_error", "lateral_displacement", "yaw"};
    static const char *units[] = {"mm", "mm", "deg"};
    /* no failure bound: the measure itself is reported */
    mcb_world_set_outcome(w, &(mcb_world_outcome){names[c.measure], units[c.measure], box_outcome,
                                                  &c, NAN, NAN, 0});
    char src[512], notes[320];
    mcb_scene_args_named("aniso-box", vals, src, sizeof src);
    snprintf(notes, sizeof notes,
             "COND Sec. V-G (Fig. 14): a %.3g kg box of side %.3g m launched at %.3g m/s, %.3g deg "
             "from x, elliptic friction mu1 %.3g along the floor's axis 1 (%.3g deg from x), "
             "mu2 %.3g across; reference: maximal dissipation in the backward-Euler step",
             mass_kg, 2 * half_m, speed, vals[OPT_ANGLE], mu1, vals[OPT_AXIS], mu2);
    rc = mcb_world_describe(w, "aniso-box", "aniso-box", src, notes, err);
    if (rc) goto done;
    S = mcb_calloc(1, sizeof *S);
    if (!S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "aniso-box: out of memory");
        goto done;
    }
    for (int k = 0; k < c.steps && !rc; k++) {
        mcb_step_info info;
        rc = mcb_world_step_into(w, S, &info, err);
    }

done:
    mcb_world_free(&w);
    free(c.ref);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

/* rod.c: the discrete elastic rod of rod.h: N rigid cylinder segments
 * coupled by soft point and angular joints with Cosserat stiffnesses
 * (docs/rod.md derives each number):
 *   A = pi d^2 / 4, I = pi d^4 / 64, J = 2 I, G = E / (2 (1 + nu)),
 *   shear  K = kappa G A / l (kappa: Cowper 6 (1 + nu) / (7 + 6 nu)),
 *   stretch K = E A / l, bend K = E I / l, twist K = G J / l,
 *   damping D = damping_s K per row.
 * Segment mass rho A l, inertia of a solid cylinder about its centre.
 *
 * Fails with MCB_E_INPUT on bad options (naming the field) and passes on
 * the world's errors; allocates nothing (the world copies what it is
 * given). Bodies already added stay in the world on failure: the caller
 * frees the world. */
#include "problems/scene/rod.h"

#include <math.h>
#include <string.h>

#define ROD_PI 3.14159265358979323846
#define ROD_NODE_TOL 1e-6 /* relative spacing error allowed in opts.nodes */

void mcb_rod_defaults(mcb_rod_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->length_m = 1.2;
    o->diameter_m = 0.008;
    o->youngs_pa = 1e5;
    o->poisson = 0.49;
    o->density_kg_m3 = 1100;
    o->segments = 640;
    o->shear_factor = 0;
    o->damping_s = 0.005;
    o->dir[0] = 1;
    o->per_subsystem = 4;
    o->mu = 0.5;
    o->group = 0;
}

static int finite3(const double v[3])
{
    return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]);
}

mcb_rc mcb_rod_properties(const mcb_rod_opts *o, mcb_rod_props *p, mcb_err *err)
{
    if (!o || !p) return mcb_fail(err, MCB_E_INPUT, "rod: NULL options or properties");
    if (!(o->length_m > 0) || !isfinite(o->length_m))
        return mcb_fail(err, MCB_E_INPUT, "rod: length %g must be > 0", o->length_m);
    if (!(o->diameter_m > 0) || !isfinite(o->diameter_m))
        return mcb_fail(err, MCB_E_INPUT, "rod: diameter %g must be > 0", o->diameter_m);
    if (!(o->youngs_pa > 0) || !isfinite(o->youngs_pa))
        return mcb_fail(err, MCB_E_INPUT, "rod: Young's modulus %g must be > 0", o->youngs_pa);
    if (!(o->poisson > -1 && o->poisson < 0.5))
        return mcb_fail(err, MCB_E_INPUT, "rod: Poisson ratio %g must be in (-1, 0.5)",
                        o->poisson);
    if (!(o->density_kg_m3 > 0) || !isfinite(o->density_kg_m3))
        return mcb_fail(err, MCB_E_INPUT, "rod: density %g must be > 0", o->density_kg_m3);
    if (o->segments < 1) return mcb_fail(err, MCB_E_INPUT, "rod: %d segments", o->segments);
    if (!(o->shear_factor >= 0) || !isfinite(o->shear_factor))
        return mcb_fail(err, MCB_E_INPUT, "rod: shear factor %g must be >= 0", o->shear_factor);
    if (!(o->damping_s >= 0) || !isfinite(o->damping_s))
        return mcb_fail(err, MCB_E_INPUT, "rod: damping %g s must be >= 0", o->damping_s);
    if (o->per_subsystem < 1)
        return mcb_fail(err, MCB_E_INPUT, "rod: %d segments per subsystem", o->per_subsystem);
    if (!(o->mu >= 0) || !isfinite(o->mu))
        return mcb_fail(err, MCB_E_INPUT, "rod: friction %g must be >= 0", o->mu);
    if (o->group < 0) return mcb_fail(err, MCB_E_INPUT, "rod: group %d < 0", o->group);

    double l = o->length_m / o->segments, d = o->diameter_m, r = 0.5 * d;
    double E = o->youngs_pa, nu = o->poisson;
    double kappa = o->shear_factor > 0 ? o->shear_factor : 6 * (1 + nu) / (7 + 6 * nu);
    memset(p, 0, sizeof *p);
    p->seg_length_m = l;
    p->area_m2 = ROD_PI * d * d / 4;
    p->second_moment_m4 = ROD_PI * d * d * d * d / 64;
    p->polar_moment_m4 = 2 * p->second_moment_m4;
    p->shear_modulus_pa = E / (2 * (1 + nu));
    p->seg_mass_kg = o->density_kg_m3 * p->area_m2 * l;
    p->inertia_axial = 0.5 * p->seg_mass_kg * r * r;
    p->inertia_transverse = p->seg_mass_kg * (3 * r * r + l * l) / 12;
    p->k_shear = kappa * p->shear_modulus_pa * p->area_m2 / l;
    p->k_stretch = E * p->area_m2 / l;
    p->k_bend = E * p->second_moment_m4 / l;
    p->k_twist = p->shear_modulus_pa * p->polar_moment_m4 / l;
    p->d_shear = o->damping_s * p->k_shear;
    p->d_stretch = o->damping_s * p->k_stretch;
    p->d_bend = o->damping_s * p->k_bend;
    p->d_twist = o->damping_s * p->k_twist;
    return MCB_OK;
}

void mcb_rod_end_point(const mcb_rod_opts *o, int end, double p[3])
{
    double l = o && o->segments > 0 ? o->length_m / o->segments : 0;
    p[0] = p[1] = 0;
    p[2] = end ? 0.5 * l : -0.5 * l;
}

/* Hamilton product c = a b (w x y z). */
static void quat_mul(const double a[4], const double b[4], double c[4])
{
    double t[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                   a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                   a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                   a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
    memcpy(c, t, sizeof t);
}

/* End point k of the rod (world). */
static void node(const mcb_rod_opts *o, double l, int k, double x[3])
{
    if (o->nodes) {
        memcpy(x, o->nodes + 3 * k, 3 * sizeof *x);
        return;
    }
    double n = mcb_v3_norm(o->dir);
    for (int i = 0; i < 3; i++) x[i] = o->start[i] + k * l * o->dir[i] / n;
}

/* Checks the start shape: a usable direction or nodes l apart. */
static mcb_rc check_shape(const mcb_rod_opts *o, double l, mcb_err *err)
{
    if (!o->nodes) {
        if (!finite3(o->start) || !finite3(o->dir) || !(mcb_v3_norm(o->dir) > 1e-12))
            return mcb_fail(err, MCB_E_INPUT, "rod: start or direction not finite or zero");
        return MCB_OK;
    }
    for (int k = 0; k <= o->segments; k++)
        if (!finite3(o->nodes + 3 * k))
            return mcb_fail(err, MCB_E_INPUT, "rod: node %d is not finite", k);
    for (int k = 0; k < o->segments; k++) {
        const double *a = o->nodes + 3 * k, *b = a + 3;
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        if (fabs(mcb_v3_norm(d) - l) > ROD_NODE_TOL * l)
            return mcb_fail(err, MCB_E_INPUT,
                            "rod: nodes %d and %d are %.9g m apart, the segment length is %.9g m",
                            k, k + 1, mcb_v3_norm(d), l);
    }
    return MCB_OK;
}

/* The next segment's orientation: q turned by the smallest rotation
 * taking the unit axis z0 to z1 (parallel transport of the cross axes). */
static void transport(const double z0[3], const double z1[3], double q[4])
{
    double c[3];
    mcb_v3_cross(z0, z1, c);
    double s = mcb_v3_norm(c), cs = mcb_v3_dot(z0, z1), angle = atan2(s, cs);
    if (s < 1e-15) {
        if (cs > 0) return;
        double t1[3], t2[3]; /* reversal: half a turn about an axis across z0 */
        mcb_frame_tangents(z0, t1, t2);
        memcpy(c, t1, sizeof c);
        s = 1, angle = ROD_PI;
    }
    double axis[3] = {c[0] / s, c[1] / s, c[2] / s}, dq[4];
    mcb_quat_from_axis_angle(axis, angle, dq);
    quat_mul(dq, q, q);
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

/* Segment k's orientation from the previous one (q holds it) and its
 * axis; for k = 0 a frame [t1, t2, z] from mcb_frame_tangents. */
static void segment_frame(int k, const double z[3], const double zprev[3], double q[4])
{
    if (k > 0) {
        transport(zprev, z, q);
        return;
    }
    /* the smallest rotation from +z to z: x, y as little turned as can be */
    q[0] = 1, q[1] = q[2] = q[3] = 0;
    const double ez[3] = {0, 0, 1};
    transport(ez, z, q);
}

mcb_rc mcb_rod_add_bodies(mcb_world *w, const mcb_rod_opts *o, int *first_body, mcb_err *err)
{
    if (!w || !first_body) return mcb_fail(err, MCB_E_INPUT, "rod: NULL world or output");
    mcb_rod_props p;
    mcb_rc rc = mcb_rod_properties(o, &p, err);
    if (rc) return rc;
    double l = p.seg_length_m, r = 0.5 * o->diameter_m;
    rc = check_shape(o, l, err);
    if (rc) return rc;

    double q[4] = {1, 0, 0, 0}, zprev[3] = {0, 0, 1};
    int first = -1;
    for (int k = 0; k < o->segments; k++) {
        double a[3], b[3], z[3];
        node(o, l, k, a);
        node(o, l, k + 1, b);
        for (int i = 0; i < 3; i++) z[i] = (b[i] - a[i]) / l;
        double zn = mcb_v3_norm(z);
        for (int i = 0; i < 3; i++) z[i] /= zn;
        segment_frame(k, z, zprev, q);
        memcpy(zprev, z, sizeof zprev);

        mcb_rigid body;
        memset(&body, 0, sizeof body);
        body.mass_kg = p.seg_mass_kg;
        body.inertia[0] = body.inertia[4] = p.inertia_transverse;
        body.inertia[8] = p.inertia_axial;
        for (int i = 0; i < 3; i++) body.pos[i] = 0.5 * (a[i] + b[i]);
        memcpy(body.quat, q, sizeof body.quat);
        int idx = -1;
        rc = mcb_world_add_body(w, &body, &idx, err);
        if (rc) return rc;
        if (k == 0) first = idx;

        mcb_shape s;
        memset(&s, 0, sizeof s);
        s.body = idx;
        s.local = mcb_xform_identity();
        s.mu = o->mu;
        s.group = o->group ? o->group : MCB_ROD_GROUP_DEFAULT;
        s.size[0] = r;
        if (l > 2 * r) { /* a capsule as long as the segment */
            s.type = MCB_SHAPE_CAPSULE;
            s.size[1] = 0.5 * l - r;
        } else {
            s.type = MCB_SHAPE_SPHERE;
        }
        rc = mcb_world_add_shape(w, &s, err);
        if (rc) return rc;
    }
    for (int k = 0; k < o->segments && o->per_subsystem > 1; k += o->per_subsystem) {
        int count = o->segments - k < o->per_subsystem ? o->segments - k : o->per_subsystem;
        if (count < 2) break;
        rc = mcb_world_merge_subsystem(w, first + k, count, err);
        if (rc) return rc;
    }
    *first_body = first;
    return MCB_OK;
}

mcb_rc mcb_rod_add_joints(mcb_world *w, const mcb_rod_opts *o, int first_body, int *first_joint,
                          mcb_err *err)
{
    if (!w) return mcb_fail(err, MCB_E_INPUT, "rod: NULL world");
    mcb_rod_props p;
    mcb_rc rc = mcb_rod_properties(o, &p, err);
    if (rc) return rc;
    if (first_body < 0 || first_body + o->segments > mcb_world_nbodies(w))
        return mcb_fail(err, MCB_E_INPUT, "rod: bodies %d..%d are not in the world (%d bodies)",
                        first_body, first_body + o->segments - 1, mcb_world_nbodies(w));
    mcb_wjoint pt, an;
    memset(&pt, 0, sizeof pt);
    pt.kind = MCB_WJ_POINT;
    pt.soft = 1;
    mcb_rod_end_point(o, 1, pt.pa);
    mcb_rod_end_point(o, 0, pt.pb);
    pt.stiffness[0] = pt.stiffness[1] = p.k_shear;
    pt.stiffness[2] = p.k_stretch;
    pt.damping[0] = pt.damping[1] = p.d_shear;
    pt.damping[2] = p.d_stretch;
    memset(&an, 0, sizeof an);
    an.kind = MCB_WJ_ANGULAR;
    an.soft = 1;
    an.stiffness[0] = an.stiffness[1] = p.k_bend;
    an.stiffness[2] = p.k_twist;
    an.damping[0] = an.damping[1] = p.d_bend;
    an.damping[2] = p.d_twist;
    for (int k = 0; k + 1 < o->segments; k++) {
        pt.body_a = an.body_a = first_body + k;
        pt.body_b = an.body_b = first_body + k + 1;
        int idx = -1;
        rc = mcb_world_add_joint(w, &pt, &idx, err);
        if (!rc) rc = mcb_world_add_joint(w, &an, NULL, err);
        if (rc) return rc;
        if (k == 0 && first_joint) *first_joint = idx;
    }
    return MCB_OK;
}

mcb_rc mcb_rod_weld(mcb_world *w, int a, const double pa[3], int seg, const double pb[3],
                    int *joint, mcb_err *err)
{
    const mcb_xform *Xb = mcb_world_body_pose(w, seg);
    const mcb_xform *Xa = a >= 0 ? mcb_world_body_pose(w, a) : NULL;
    if (!w || !pa || !pb || !Xb || (a >= 0 && !Xa))
        return mcb_fail(err, MCB_E_INPUT, "rod: no pose for the weld of bodies %d, %d", a, seg);
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_POINT;
    j.body_a = a, j.body_b = seg;
    memcpy(j.pa, pa, sizeof j.pa);
    memcpy(j.pb, pb, sizeof j.pb);
    mcb_rc rc = mcb_world_add_joint(w, &j, joint, err);
    if (rc) return rc;
    double Rr[9];
    if (Xa) mcb_m3_mul_t(Xa->R, Xb->R, Rr); /* Ra^T Rb */
    else memcpy(Rr, Xb->R, sizeof Rr);
    j.kind = MCB_WJ_ANGULAR;
    memset(j.pa, 0, sizeof j.pa);
    memset(j.pb, 0, sizeof j.pb);
    mcb_quat_from_mat(Rr, j.rest_q);
    return mcb_world_add_joint(w, &j, NULL, err);
}

/* test_scene_geom.c: known-answer tests of the scene engine's geometry and
 * contact generation (problems/scene/geometry.c, contact.c): signed
 * distances of every shape against analytic values, gradients against
 * finite differences, contacts of resting primitives, contact frames,
 * clustering, and the broad phase against brute force. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "problems/scene/geometry.h"
#include "problems/scene/spatial.h"

static mcb_shape shape(int type, int body, double s0, double s1, double s2)
{
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = type, s.body = body, s.local = mcb_xform_identity();
    s.size[0] = s0, s.size[1] = s1, s.size[2] = s2;
    s.mu = 0.5;
    return s;
}

static mcb_xform at(double x, double y, double z)
{
    mcb_xform X = mcb_xform_identity();
    X.p[0] = x, X.p[1] = y, X.p[2] = z;
    return X;
}

/* A random rotation (axis, angle) and translation from r. */
static mcb_xform random_xform(mcb_rng *r, double spread)
{
    double ax[3] = {mcb_rng_normal(r), mcb_rng_normal(r), mcb_rng_normal(r)}, q[4];
    mcb_quat_from_axis_angle(ax, 6.283185307179586 * mcb_rng_uniform(r), q);
    mcb_xform X;
    mcb_quat_to_mat(q, X.R);
    for (int k = 0; k < 3; k++) X.p[k] = spread * (2 * mcb_rng_uniform(r) - 1);
    return X;
}

static mcb_shape bolt_m48(double length)
{
    mcb_shape s = shape(MCB_SHAPE_BOLT, 0, 0, 0, 0);
    s.thread.d = 0.048, s.thread.pitch = 0.005, s.thread.length = length;
    s.thread.across_flats = 0.075;
    return s;
}

/* ---- primitives' distances --------------------------------------------- */

START_TEST(primitive_sdf_known_answers)
{
    mcb_rng r;
    mcb_rng_seed(&r, 42);
    mcb_shape sp = shape(MCB_SHAPE_SPHERE, 0, 0.3, 0, 0);
    mcb_shape bx = shape(MCB_SHAPE_BOX, 0, 0.2, 0.3, 0.5);
    mcb_shape cp = shape(MCB_SHAPE_CAPSULE, 0, 0.1, 0.4, 0);
    mcb_shape pl = shape(MCB_SHAPE_PLANE, -1, 0, 0, 0);
    for (int t = 0; t < 2000; t++) {
        mcb_xform X = random_xform(&r, 1.0);
        double xl[3], xw[3], g[3];
        for (int k = 0; k < 3; k++) xl[k] = 1.5 * (2 * mcb_rng_uniform(&r) - 1);
        mcb_xform_point(&X, xl, xw);
        /* sphere: |x| - r */
        ck_assert_double_eq_tol(mcb_shape_sdf(&sp, &X, xw, g), mcb_v3_norm(xl) - 0.3, 1e-12);
        /* plane: z */
        ck_assert_double_eq_tol(mcb_shape_sdf(&pl, &X, xw, g), xl[2], 1e-12);
        /* capsule: distance to the segment minus r */
        double cz = fmax(-0.4, fmin(0.4, xl[2]));
        double dc = sqrt(xl[0] * xl[0] + xl[1] * xl[1] + (xl[2] - cz) * (xl[2] - cz)) - 0.1;
        ck_assert_double_eq_tol(mcb_shape_sdf(&cp, &X, xw, g), dc, 1e-12);
        /* box: outside the norm of the excess, inside minus the nearest face */
        double q[3], o = 0, in = -INFINITY;
        for (int k = 0; k < 3; k++) {
            q[k] = fabs(xl[k]) - bx.size[k];
            o += q[k] > 0 ? q[k] * q[k] : 0;
            in = fmax(in, q[k]);
        }
        double db = o > 0 ? sqrt(o) : in;
        ck_assert_double_eq_tol(mcb_shape_sdf(&bx, &X, xw, g), db, 1e-12);
        ck_assert_double_eq_tol(mcb_v3_norm(g), 1.0, 1e-12);
    }
}
END_TEST

/* ---- contacts of resting primitives ------------------------------------ */

static void check_frame(const mcb_contact *c)
{
    double t1[3], t2[3], x[3];
    mcb_frame_tangents(c->n, t1, t2);
    ck_assert_double_eq_tol(mcb_v3_norm(c->n), 1.0, 1e-12);
    ck_assert_double_eq_tol(mcb_v3_norm(t1), 1.0, 1e-12);
    ck_assert_double_eq_tol(mcb_v3_norm(t2), 1.0, 1e-12);
    ck_assert_double_eq_tol(mcb_v3_dot(c->n, t1), 0.0, 1e-12);
    ck_assert_double_eq_tol(mcb_v3_dot(c->n, t2), 0.0, 1e-12);
    ck_assert_double_eq_tol(mcb_v3_dot(t1, t2), 0.0, 1e-12);
    mcb_v3_cross(t1, t2, x);
    for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(x[k], c->n[k], 1e-12);
}

START_TEST(sphere_on_plane_one_contact)
{
    mcb_shape sp = shape(MCB_SHAPE_SPHERE, 0, 0.1, 0, 0), pl = shape(MCB_SHAPE_PLANE, -1, 0, 0, 0);
    mcb_xform Xs = at(0.3, -0.2, 0.1 + 2e-4), Xp = at(0, 0, 0);
    mcb_contact c[4];
    int n = mcb_collide(&sp, &Xs, 0, &pl, &Xp, 1, 1e-3, c, 4);
    ck_assert_int_eq(n, 1);
    ck_assert_double_eq_tol(c[0].gap, 2e-4, 1e-14);
    ck_assert_double_eq_tol(c[0].n[2], 1.0, 1e-14);
    ck_assert_double_eq_tol(c[0].p[2], 1e-4, 1e-14); /* midway */
    ck_assert_double_eq_tol(c[0].p[0], 0.3, 1e-14);
    ck_assert_int_eq(c[0].body_a, 0);
    ck_assert_int_eq(c[0].body_b, -1);
    check_frame(&c[0]);
    /* the same pair passed the other way round: the normal flips */
    n = mcb_collide(&pl, &Xp, 1, &sp, &Xs, 0, 1e-3, c, 4);
    ck_assert_int_eq(n, 1);
    ck_assert_double_eq_tol(c[0].n[2], -1.0, 1e-14);
    /* beyond the margin: nothing */
    Xs.p[2] = 0.1 + 2e-3;
    ck_assert_int_eq(mcb_collide(&sp, &Xs, 0, &pl, &Xp, 1, 1e-3, c, 4), 0);
}
END_TEST

START_TEST(box_on_plane_four_corners)
{
    mcb_shape bx = shape(MCB_SHAPE_BOX, 0, 0.2, 0.1, 0.05), pl = shape(MCB_SHAPE_PLANE, -1, 0, 0, 0);
    mcb_xform Xb = at(1, 2, 0.05 - 1e-4), Xp = at(0, 0, 0);
    mcb_contact c[16];
    int n = mcb_collide(&bx, &Xb, 0, &pl, &Xp, 1, 1e-3, c, 16);
    ck_assert_int_eq(n, 4);
    for (int i = 0; i < n; i++) {
        ck_assert_double_eq_tol(c[i].gap, -1e-4, 1e-14);
        ck_assert_double_eq_tol(fabs(c[i].p[0] - 1), 0.2, 1e-12);
        ck_assert_double_eq_tol(fabs(c[i].p[1] - 2), 0.1, 1e-12);
        ck_assert_double_eq_tol(c[i].p[2], -0.5e-4, 1e-14);
        ck_assert_double_eq_tol(c[i].n[2], 1.0, 1e-14);
        for (int j = 0; j < i; j++) ck_assert(c[i].key != c[j].key);
    }
}
END_TEST

START_TEST(box_on_box_four_contacts)
{
    /* a small box resting on a larger one, slightly rotated about z */
    mcb_shape lo = shape(MCB_SHAPE_BOX, 0, 0.5, 0.5, 0.1), up = shape(MCB_SHAPE_BOX, 1, 0.2, 0.1, 0.05);
    mcb_xform Xl = at(0, 0, 0.1), Xu = at(0.05, -0.02, 0.2 + 0.05 + 3e-4);
    double q[4], z[3] = {0, 0, 1};
    mcb_quat_from_axis_angle(z, 0.3, q);
    mcb_quat_to_mat(q, Xu.R);
    mcb_contact c[64];
    int n = mcb_collide(&up, &Xu, 1, &lo, &Xl, 0, 1e-3, c, 64);
    ck_assert_int_eq(n, 4);
    for (int i = 0; i < n; i++) {
        ck_assert_double_eq_tol(c[i].gap, 3e-4, 1e-12);
        ck_assert_double_eq_tol(c[i].n[2], 1.0, 1e-12);
        ck_assert_double_eq_tol(c[i].p[2], 0.2 + 1.5e-4, 1e-12);
        check_frame(&c[i]);
    }
    /* a brick on two bricks (running bond): 4 contacts on each */
    mcb_shape b0 = shape(MCB_SHAPE_BOX, 0, 0.2, 0.1, 0.05), b1 = b0, b2 = b0;
    b1.body = 1, b2.body = 2;
    mcb_xform X0 = at(-0.2, 0, 0.05), X1 = at(0.2, 0, 0.05), X2 = at(0, 0, 0.15);
    ck_assert_int_eq(mcb_collide(&b2, &X2, 2, &b0, &X0, 0, 1e-3, c, 64), 4);
    ck_assert_int_eq(mcb_collide(&b2, &X2, 2, &b1, &X1, 1, 1e-3, c, 64), 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_double_eq_tol(c[i].n[2], 1.0, 1e-12);
        ck_assert_double_eq_tol(c[i].gap, 0.0, 1e-12);
    }
    /* two equal boxes exactly on top of each other: 4, not 8 */
    mcb_xform X3 = at(-0.2, 0, 0.15);
    ck_assert_int_eq(mcb_collide(&b2, &X3, 2, &b0, &X0, 0, 1e-3, c, 64), 4);
    /* sunk by 0.1 mm into the two below, sides flush: still 4 vertical
     * contacts each at the depth (the flush sides give no sideways normal) */
    X2.p[2] -= 1e-4;
    for (int k = 0; k < 2; k++) {
        int m = mcb_collide(&b2, &X2, 2, k ? &b1 : &b0, k ? &X1 : &X0, k, 1e-3, c, 64);
        ck_assert_int_eq(m, 4);
        for (int i = 0; i < m; i++) {
            ck_assert_double_eq_tol(c[i].n[2], 1.0, 1e-12);
            ck_assert_double_eq_tol(c[i].gap, -1e-4, 1e-12);
            ck_assert_double_eq_tol(c[i].p[2], 0.1 - 0.5e-4, 1e-12);
            ck_assert_double_eq_tol(fabs(c[i].p[1]), 0.1, 1e-12);
        }
    }
    /* keys persist when the brick moves a little, its sides flush to within
     * rounding (warm starts) */
    unsigned long long keys[4];
    ck_assert_int_eq(mcb_collide(&b2, &X2, 2, &b0, &X0, 0, 1e-3, c, 64), 4);
    for (int i = 0; i < 4; i++) keys[i] = c[i].key;
    X2.p[0] += 1e-3, X2.p[1] -= 1e-12, X2.p[2] += 5e-5;
    ck_assert_int_eq(mcb_collide(&b2, &X2, 2, &b0, &X0, 0, 1e-3, c, 64), 4);
    for (int i = 0; i < 4; i++) {
        int found = 0;
        for (int j = 0; j < 4; j++) found += c[i].key == keys[j];
        ck_assert_int_eq(found, 1);
    }
    /* a square plate turned 45 degrees on an equal one: the octagon, 8 */
    mcb_shape s0 = shape(MCB_SHAPE_BOX, 0, 0.1, 0.1, 0.02), s1 = s0;
    s1.body = 1;
    mcb_xform Y0 = at(0, 0, 0.02), Y1 = at(0, 0, 0.06 - 2e-5);
    mcb_quat_from_axis_angle(z, 0.25 * 3.141592653589793, q);
    mcb_quat_to_mat(q, Y1.R);
    ck_assert_int_eq(mcb_collide(&s1, &Y1, 1, &s0, &Y0, 0, 1e-3, c, 64), 8);
    for (int i = 0; i < 8; i++) {
        ck_assert_double_eq_tol(c[i].gap, -2e-5, 1e-12);
        ck_assert_double_eq_tol(hypot(c[i].p[0], c[i].p[1]), 0.1 / cos(3.141592653589793 / 8), 1e-9);
    }
    /* edge on edge: a bar along x with an edge down on a bar along y with an
     * edge up: one contact between the edges, normal +z */
    mcb_shape e0 = shape(MCB_SHAPE_BOX, 0, 0.05, 0.3, 0.05), e1 = shape(MCB_SHAPE_BOX, 1, 0.3, 0.05, 0.05);
    double xa[3] = {1, 0, 0}, ya[3] = {0, 1, 0};
    mcb_xform Z0 = at(0, 0, 0), Z1 = at(0.01, 0.02, 0.1 * sqrt(2.0) + 3e-4);
    mcb_quat_from_axis_angle(ya, 0.25 * 3.141592653589793, q);
    mcb_quat_to_mat(q, Z0.R);
    mcb_quat_from_axis_angle(xa, 0.25 * 3.141592653589793, q);
    mcb_quat_to_mat(q, Z1.R);
    ck_assert_int_eq(mcb_collide(&e1, &Z1, 1, &e0, &Z0, 0, 1e-3, c, 64), 1);
    ck_assert_double_eq_tol(c[0].gap, 3e-4, 1e-12);
    ck_assert_double_eq_tol(c[0].n[2], 1.0, 1e-12);
    ck_assert_double_eq_tol(c[0].p[0], 0.0, 1e-12);  /* on the lower bar's edge (x = 0) */
    ck_assert_double_eq_tol(c[0].p[1], 0.02, 1e-12); /* on the upper bar's edge (y = 0.02) */
    ck_assert_double_eq_tol(c[0].p[2], 0.05 * sqrt(2.0) + 1.5e-4, 1e-12);
}
END_TEST



/* Capsules: lying on a plane (its 2 end spheres), on a parallel capsule
 * (the 2 ends of the overlap), crossing another (1 contact, the segment
 * distance), across a box with both ends overhanging (2 contacts at the
 * box's edges), on a box with both ends over the face (its 2 ends). */
START_TEST(capsule_contacts)
{
    double q[4], y[3] = {0, 1, 0}, xax[3] = {1, 0, 0};
    mcb_shape cp = shape(MCB_SHAPE_CAPSULE, 0, 0.05, 0.2, 0), pl = shape(MCB_SHAPE_PLANE, -1, 0, 0, 0);
    mcb_xform Xc = at(0, 0, 0.05 - 1e-4), Xp = at(0, 0, 0);
    mcb_quat_from_axis_angle(y, 0.5 * 3.141592653589793, q); /* axis along x */
    mcb_quat_to_mat(q, Xc.R);
    mcb_contact c[16];
    ck_assert_int_eq(mcb_collide(&cp, &Xc, 0, &pl, &Xp, 1, 1e-3, c, 16), 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_double_eq_tol(c[i].gap, -1e-4, 1e-12);
        ck_assert_double_eq_tol(fabs(c[i].p[0]), 0.2, 1e-12);
        ck_assert_double_eq_tol(c[i].p[2], -0.5e-4, 1e-12);
    }
    /* parallel: a second capsule on top, shifted along x by 0.1 */
    mcb_shape c2 = cp;
    c2.body = 1;
    mcb_xform X2 = Xc;
    X2.p[0] = 0.1, X2.p[2] = Xc.p[2] + 0.1 + 2e-4;
    int n = mcb_collide(&c2, &X2, 1, &cp, &Xc, 0, 1e-3, c, 16);
    ck_assert_int_eq(n, 2);
    for (int i = 0; i < n; i++) {
        ck_assert_double_eq_tol(c[i].gap, 2e-4, 1e-12);
        ck_assert_double_eq_tol(c[i].n[2], 1.0, 1e-12);
    }
    ck_assert_double_eq_tol(fmin(c[0].p[0], c[1].p[0]), -0.1, 1e-12);
    ck_assert_double_eq_tol(fmax(c[0].p[0], c[1].p[0]), 0.2, 1e-12);
    /* crossed: the second along y */
    mcb_quat_from_axis_angle(xax, 0.5 * 3.141592653589793, q);
    mcb_quat_to_mat(q, X2.R);
    X2.p[0] = 0.05;
    ck_assert_int_eq(mcb_collide(&c2, &X2, 1, &cp, &Xc, 0, 1e-3, c, 16), 1);
    ck_assert_double_eq_tol(c[0].gap, 2e-4, 1e-12);
    ck_assert_double_eq_tol(c[0].p[0], 0.05, 1e-12);
    ck_assert_double_eq_tol(c[0].p[1], 0.0, 1e-12);
    /* crossed with intersecting axes: the normal of the axes' plane */
    mcb_xform X4 = X2;
    X4.p[2] = Xc.p[2];
    ck_assert_int_eq(mcb_collide(&c2, &X4, 1, &cp, &Xc, 0, 1e-3, c, 16), 1);
    ck_assert_double_eq_tol(c[0].gap, -0.1, 1e-12);
    ck_assert_double_eq_tol(fabs(c[0].n[2]), 1.0, 1e-12);
    /* across a narrow box (half width 0.1 along x): contacts at its edges */
    mcb_shape bx = shape(MCB_SHAPE_BOX, -1, 0.1, 0.3, 0.05);
    mcb_xform Xb = at(0, 0, -0.05);
    n = mcb_collide(&cp, &Xc, 0, &bx, &Xb, 1, 1e-3, c, 16);
    ck_assert_int_eq(n, 2);
    for (int i = 0; i < n; i++) {
        ck_assert_double_lt(c[i].gap, -1e-4 + 1e-3);
        ck_assert_double_ge(c[i].gap, -1e-4 - 1e-12);
        ck_assert_double_gt(c[i].n[2], 0.99);
        ck_assert_double_eq_tol(fabs(c[i].p[0]), 0.1, 1e-3);
    }
    /* on a wide box: its two ends */
    bx.size[0] = 0.5;
    n = mcb_collide(&cp, &Xc, 0, &bx, &Xb, 1, 1e-3, c, 16);
    ck_assert_int_eq(n, 2);
    for (int i = 0; i < n; i++) {
        ck_assert_double_eq_tol(c[i].gap, -1e-4, 1e-12);
        ck_assert_double_eq_tol(fabs(c[i].p[0]), 0.2, 1e-12);
        ck_assert_double_eq_tol(c[i].n[2], 1.0, 1e-12);
    }
}
END_TEST

/* ---- sdf shapes --------------------------------------------------------- */

static mcb_shape revolution(int npts, const double *r, const double *z, double thickness)
{
    mcb_shape s = shape(MCB_SHAPE_REVOLUTION, 0, 0, 0, 0);
    s.profile.npts = npts, s.profile.thickness = thickness;
    for (int k = 0; k < npts; k++) s.profile.r[k] = r[k], s.profile.z[k] = z[k];
    return s;
}

START_TEST(revolution_cylinder_and_disc)
{
    double rc[2] = {0.1, 0.1}, zc[2] = {0.0, 0.2}, rd[2] = {0.0, 0.15}, zd[2] = {0.0, 0.0};
    mcb_shape cyl = revolution(2, rc, zc, 0.01), disc = revolution(2, rd, zd, 0.004);
    mcb_rng r;
    mcb_rng_seed(&r, 7);
    for (int t = 0; t < 2000; t++) {
        mcb_xform X = random_xform(&r, 0.5);
        double xl[3], xw[3], g[3];
        for (int k = 0; k < 3; k++) xl[k] = 0.3 * (2 * mcb_rng_uniform(&r) - 1);
        xl[2] += 0.1;
        mcb_xform_point(&X, xl, xw);
        double rho = hypot(xl[0], xl[1]);
        /* cylinder shell: |rho - 0.1| inside the z range, else the rim */
        double dz = xl[2] < 0 ? -xl[2] : (xl[2] > 0.2 ? xl[2] - 0.2 : 0.0);
        double dcyl = hypot(rho - 0.1, dz) - 0.005;
        ck_assert_double_eq_tol(mcb_shape_sdf(&cyl, &X, xw, g), dcyl, 1e-12);
        ck_assert_double_eq_tol(mcb_v3_norm(g), 1.0, 1e-12);
        /* disc: |z| over the disc, else the distance to its rim circle */
        double ddisc = (rho <= 0.15 ? fabs(xl[2]) : hypot(rho - 0.15, xl[2])) - 0.002;
        ck_assert_double_eq_tol(mcb_shape_sdf(&disc, &X, xw, g), ddisc, 1e-12);
    }
}
END_TEST

/* ISO 68-1: H = sqrt(3)/2 P, minor radius d/2 - 5H/8, crest P/8 wide. */
START_TEST(bolt_and_nut_known_points)
{
    mcb_shape b = bolt_m48(0.05), n = b;
    n.type = MCB_SHAPE_NUT, n.thread.length = 0.04;
    mcb_xform I = mcb_xform_identity();
    double P = 0.005, H = 0.5 * sqrt(3.0) * P, rmaj = 0.024, rmin = rmaj - 0.625 * H, g[3];
    /* a crest at phi = 0 lies at z = k P */
    double crest[3] = {rmaj, 0, 2 * P}, above[3] = {rmaj + 1e-3, 0, 2 * P};
    ck_assert_double_eq_tol(mcb_shape_sdf(&b, &I, crest, g), 0.0, 1e-12);
    ck_assert_double_eq_tol(mcb_shape_sdf(&b, &I, above, g), 1e-3, 1e-12);
    ck_assert_double_eq_tol(g[0], 1.0, 1e-12);
    /* the root (half a pitch from the crest), inside and in the groove */
    double core[3] = {rmin - 1e-3, 0, 2.5 * P}, groove[3] = {rmin + 1e-4, 0, 2.5 * P};
    ck_assert_double_eq_tol(mcb_shape_sdf(&b, &I, core, g), -1e-3, 1e-12);
    ck_assert_double_eq_tol(mcb_shape_sdf(&b, &I, groove, g), 1e-4, 1e-12);
    /* the helix: at phi = pi/2 the crest has risen by P/4 */
    double crest90[3] = {0, rmaj + 2e-4, 2.25 * P}, off90[3] = {0, rmaj + 2e-4, 2.75 * P};
    double off0[3] = {rmaj + 2e-4, 0, 2.5 * P};
    ck_assert_double_eq_tol(mcb_shape_sdf(&b, &I, crest90, g), 2e-4, 1e-12);
    ck_assert_double_gt(mcb_shape_sdf(&b, &I, off90, g), 1e-3);
    ck_assert_double_eq_tol(mcb_shape_sdf(&b, &I, off90, g), mcb_shape_sdf(&b, &I, off0, g), 1e-12);
    /* the middle of the upper flank, moved out along the flank normal by 1e-4
     * in the (r, z') half-plane: distance 1e-4 (60-degree flanks) */
    double u = 0.5 * (P / 16 + 3 * P / 8), rf = rmaj - sqrt(3.0) * (u - P / 16);
    double flank[3] = {rf + 0.5e-4, 0, 2 * P + u + 0.5 * sqrt(3.0) * 1e-4};
    ck_assert_double_eq_tol(mcb_shape_sdf(&b, &I, flank, g), 1e-4, 1e-12);
    /* beyond the ends */
    double below[3] = {0, 0, -2e-3}, past[3] = {0.01, 0, 0.05 + 3e-3};
    ck_assert_double_eq_tol(mcb_shape_sdf(&b, &I, below, g), 2e-3, 1e-12);
    ck_assert_double_eq_tol(mcb_shape_sdf(&b, &I, past, g), 3e-3, 1e-12);
    /* the nut: the bore (its crests at the bolt's minor radius), the flats,
     * the end faces, the material */
    double axis[3] = {0, 0, 2.5 * P}, flat[3] = {0.0375 + 1e-3, 0, 0.02};
    double top[3] = {0.03, 0, 0.04 + 1e-3}, mat[3] = {0.03, 0, 3 * P};
    ck_assert_double_eq_tol(mcb_shape_sdf(&n, &I, axis, g), rmin, 1e-12);
    ck_assert_double_eq_tol(mcb_shape_sdf(&n, &I, flat, g), 1e-3, 1e-12);
    ck_assert_double_eq_tol(mcb_shape_sdf(&n, &I, top, g), 1e-3, 1e-12);
    ck_assert_double_eq_tol(mcb_shape_sdf(&n, &I, mat, g), -(0.03 - rmaj), 1e-12);
    /* a point just outside the bolt's crest is just inside the nut's groove */
    ck_assert_double_eq_tol(mcb_shape_sdf(&n, &I, above, g), -1e-3, 1e-12);
    /* the samples lie on the surface */
    int nb = mcb_shape_samples(&n, NULL, 0);
    ck_assert_int_gt(nb, 1000);
    double *pts = malloc((size_t)nb * 3 * sizeof(double));
    ck_assert_int_eq(mcb_shape_samples(&n, pts, nb), nb);
    for (int i = 0; i < nb; i++) ck_assert_double_le(fabs(mcb_shape_sdf(&n, &I, pts + 3 * i, g)), 1e-9);
    free(pts);
}
END_TEST

/* The gradient is the (normalised) finite difference of the distance,
 * away from the creases (a few random points land near one). */
START_TEST(gradients_match_finite_differences)
{
    double rp[4] = {0.0, 0.12, 0.15, 0.16}, zp[4] = {0.0, 0.0, 0.05, 0.08};
    mcb_shape sh[7] = {shape(MCB_SHAPE_SPHERE, 0, 0.1, 0, 0), shape(MCB_SHAPE_BOX, 0, 0.1, 0.05, 0.08),
                       shape(MCB_SHAPE_CAPSULE, 0, 0.05, 0.1, 0), shape(MCB_SHAPE_PLANE, -1, 0, 0, 0),
                       revolution(4, rp, zp, 0.004), bolt_m48(0.05), bolt_m48(0.04)};
    sh[6].type = MCB_SHAPE_NUT;
    mcb_rng r;
    mcb_rng_seed(&r, 11);
    for (int s = 0; s < 7; s++) {
        int ok = 0, tot = 300;
        for (int t = 0; t < tot; t++) {
            mcb_xform X = random_xform(&r, 0.05);
            double lo[3], hi[3], x[3], g[3], fd[3];
            mcb_shape_aabb(&sh[s], &X, 0.01, lo, hi);
            for (int k = 0; k < 3; k++) {
                if (!isfinite(lo[k])) lo[k] = -0.2, hi[k] = 0.2;
                x[k] = lo[k] + (hi[k] - lo[k]) * mcb_rng_uniform(&r);
            }
            mcb_shape_sdf(&sh[s], &X, x, g);
            double h = 1e-7;
            for (int k = 0; k < 3; k++) {
                double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]};
                xp[k] += h, xm[k] -= h;
                fd[k] = (mcb_shape_sdf(&sh[s], &X, xp, NULL) - mcb_shape_sdf(&sh[s], &X, xm, NULL)) / (2 * h);
            }
            double l = mcb_v3_norm(fd), err = 0;
            for (int k = 0; k < 3; k++) err = fmax(err, fabs(fd[k] / l - g[k]));
            ck_assert_double_eq_tol(mcb_v3_norm(g), 1.0, 1e-12);
            ok += err < 1e-5;
        }
        ck_assert_msg(ok >= tot * 97 / 100, "shape type %d: %d of %d gradients match", sh[s].type, ok, tot);
    }
}
END_TEST


/* An M48 nut (ISO 68-1 basic profile) on a bolt 0.2 mm smaller in diameter,
 * lowered by 0.1 mm / sqrt(3) so that it rests on the bolt's upper flanks:
 * the nut's samples (fewer than the bolt's) against the bolt's distance give
 * contacts only on those flanks (gap 0, normal 30 degrees from the axis,
 * upwards), clustered to at most 120. */
START_TEST(nut_on_bolt_contacts)
{
    mcb_shape b = bolt_m48(0.1), n = bolt_m48(0.038);
    double delta = 1e-4;
    b.thread.d -= 2 * delta, b.body = -1;
    n.type = MCB_SHAPE_NUT, n.body = 0;
    ck_assert_int_lt(mcb_shape_samples(&n, NULL, 0), mcb_shape_samples(&b, NULL, 0));
    mcb_xform Xb = at(0, 0, 0), Xn = at(0, 0, 0.03 - delta / sqrt(3.0));
    int cap = 50000;
    mcb_contact *c = malloc((size_t)cap * sizeof *c);
    int nc = mcb_collide(&n, &Xn, 1, &b, &Xb, 0, 2e-5, c, cap);
    ck_assert_int_le(nc, cap);
    ck_assert_int_gt(nc, 500);
    for (int i = 0; i < nc; i++) {
        ck_assert_double_ge(c[i].gap, -1e-12);
        ck_assert_double_lt(c[i].gap, 2e-5);
        ck_assert_double_gt(c[i].n[2], 0.85); /* 60-degree flanks: cos 30 = 0.866 */
        ck_assert_double_lt(c[i].n[2], 0.8661);
        ck_assert_int_eq(c[i].body_a, 0);
        ck_assert_int_eq(c[i].body_b, -1);
    }
    int m = mcb_contacts_cluster(c, nc, 120, 0);
    ck_assert_int_le(m, 120);
    ck_assert_int_ge(m, 100);
    /* the kept contacts spread around the thread: all four quadrants */
    int quad[4] = {0, 0, 0, 0};
    for (int i = 0; i < m; i++) quad[(c[i].p[0] > 0) + 2 * (c[i].p[1] > 0)]++;
    for (int q = 0; q < 4; q++) ck_assert_int_gt(quad[q], 10);
    free(c);
}
END_TEST


/* A bowl (flat bottom 5 cm in radius, wall up to 9 cm, 4 mm thick) resting
 * on a plane: its samples against the plane's exact distance give contacts
 * only on the bottom's underside, gap 0, normal +z; a sphere resting on the
 * bottom inside gives one contact at the sdf's distance from its centre. */
START_TEST(bowl_on_plane_and_sphere_in_bowl)
{
    double rp[3] = {0.0, 0.05, 0.09}, zp[3] = {0.0, 0.0, 0.06};
    mcb_shape bowl = revolution(3, rp, zp, 0.004), pl = shape(MCB_SHAPE_PLANE, -1, 0, 0, 0);
    bowl.body = 0;
    mcb_xform Xb = at(0.2, 0.1, 0.002), Xp = at(0, 0, 0);
    int cap = 10000;
    mcb_contact *c = malloc((size_t)cap * sizeof *c);
    int n = mcb_collide(&bowl, &Xb, 0, &pl, &Xp, 1, 1e-3, c, cap);
    ck_assert_int_gt(n, 20);
    ck_assert_int_le(n, cap);
    for (int i = 0; i < n; i++) {
        ck_assert_double_eq_tol(c[i].gap, 0.0, 1e-12);
        ck_assert_double_eq_tol(c[i].n[2], 1.0, 1e-15);
        ck_assert_double_le(hypot(c[i].p[0] - 0.2, c[i].p[1] - 0.1), 0.05 + 1e-12);
    }
    mcb_shape ball = shape(MCB_SHAPE_SPHERE, 1, 0.01, 0, 0);
    mcb_xform Xs = at(0.21, 0.1, 0.002 + 0.002 + 0.01 + 3e-4);
    ck_assert_int_eq(mcb_collide(&ball, &Xs, 1, &bowl, &Xb, 0, 1e-3, c, cap), 1);
    ck_assert_double_eq_tol(c[0].gap, 3e-4, 1e-12);
    ck_assert_double_eq_tol(c[0].n[2], 1.0, 1e-12);
    ck_assert_double_eq_tol(c[0].p[2], 0.004 + 1.5e-4, 1e-12);
    free(c);
}
END_TEST

/* Bad shapes never crash nor loop: NULL, a profile count beyond the array,
 * a zero pitch, an absurdly small spacing (raised to keep the count
 * bounded). */
START_TEST(bad_shapes_are_harmless)
{
    mcb_xform I = mcb_xform_identity();
    double x[3] = {0, 0, 0}, g[3];
    ck_assert(isinf(mcb_shape_sdf(NULL, &I, x, g)));
    ck_assert_int_eq(mcb_shape_samples(NULL, NULL, 0), 0);
    mcb_shape p = revolution(2, (double[]){0, 0.1}, (double[]){0, 0}, 0.01);
    p.profile.npts = 1000;
    ck_assert(isfinite(mcb_shape_sdf(&p, &I, x, g)));
    ck_assert_int_ge(mcb_shape_samples(&p, NULL, 0), 0);
    mcb_shape b = bolt_m48(0.05);
    b.thread.pitch = 0;
    ck_assert(isinf(mcb_shape_sdf(&b, &I, x, g)));
    ck_assert_int_eq(mcb_shape_samples(&b, NULL, 0), 0);
    mcb_shape s = shape(MCB_SHAPE_SPHERE, 0, 0.01, 0, 0);
    s.spacing = 1e-12;
    int n = mcb_shape_samples(&s, NULL, 0);
    ck_assert_int_gt(n, 1000);
    ck_assert_int_le(n, 2000000);
    ck_assert_int_eq(mcb_collide(NULL, &I, 0, &s, &I, 1, 1e-3, NULL, 0), 0);
    ck_assert_int_eq(mcb_contacts_cluster(NULL, 5, 1, 1), 0);
    mcb_err err;
    int cnt = 0, cp = 0;
    ck_assert_int_eq(mcb_contacts_detect(&s, &I, 1, 1e-3, NULL, &cnt, &cp, &err), MCB_E_INPUT);
}
END_TEST

/* ---- contact frames on random near-touching pairs ----------------------- */

/* Non-box-box pairs at random poses: each contact has an orthonormal
 * right-handed frame; each separated contact's normal is unit, points
 * from b to a, and equals b's distance gradient at a's surface point
 * pa = p + gap/2 n with gap = b's distance there, or minus a's gradient at
 * b's surface point pb = p - gap/2 n with gap = a's distance there (the side
 * whose distance made it). */
START_TEST(contact_frames_outward)
{
    double rp[3] = {0.0, 0.1, 0.13}, zp[3] = {0.0, 0.0, 0.06};
    mcb_shape sh[6] = {shape(MCB_SHAPE_SPHERE, 0, 0.05, 0, 0), shape(MCB_SHAPE_CAPSULE, 0, 0.03, 0.06, 0),
                       shape(MCB_SHAPE_BOX, 0, 0.06, 0.04, 0.05), revolution(3, rp, zp, 0.006),
                       shape(MCB_SHAPE_PLANE, -1, 0, 0, 0), shape(MCB_SHAPE_SPHERE, 0, 0.02, 0, 0)};
    mcb_rng r;
    mcb_rng_seed(&r, 5);
    int checked = 0;
    mcb_contact *c = malloc(20000 * sizeof *c);
    for (int t = 0; t < 3000; t++) {
        int i = (int)(6 * mcb_rng_uniform(&r)), j = (int)(6 * mcb_rng_uniform(&r));
        if (sh[i].type == MCB_SHAPE_PLANE || (sh[i].type == MCB_SHAPE_BOX && sh[j].type == MCB_SHAPE_BOX))
            continue;
        mcb_shape a = sh[i], b = sh[j];
        a.body = 1, b.body = b.type == MCB_SHAPE_PLANE ? -1 : 2;
        mcb_xform Xa = random_xform(&r, 0.12), Xb = random_xform(&r, 0.02);
        int n = mcb_collide(&a, &Xa, 0, &b, &Xb, 1, 0.01, c, 20000);
        ck_assert_int_le(n, 20000);
        for (int k = 0; k < n; k++) {
            check_frame(&c[k]);
            /* penetrating: the normal (b's gradient at a's deepest point, or
             * at a sphere's centre) need not be b's gradient inside b */
            if (c[k].gap < 0) continue;
            double pa[3], pb[3], ga[3], gb[3];
            for (int q = 0; q < 3; q++) pa[q] = c[k].p[q] + 0.5 * c[k].gap * c[k].n[q],
                                    pb[q] = c[k].p[q] - 0.5 * c[k].gap * c[k].n[q];
            double db = mcb_shape_sdf(&b, &Xb, pa, gb), da = mcb_shape_sdf(&a, &Xa, pb, ga);
            double eb = 0, ea = 0;
            for (int q = 0; q < 3; q++) eb = fmax(eb, fabs(gb[q] - c[k].n[q])), ea = fmax(ea, fabs(ga[q] + c[k].n[q]));
            int from_b = eb < 1e-6 && fabs(db - c[k].gap) < 1e-9;
            int from_a = ea < 1e-6 && fabs(da - c[k].gap) < 1e-9;
            ck_assert_msg(from_b || from_a, "pair %d-%d: normal not outward from b (eb %g, ea %g, gap %g, db %g, da %g)",
                          a.type, b.type, eb, ea, c[k].gap, db, da);
            checked++;
        }
    }
    free(c);
    ck_assert_int_gt(checked, 300);
}
END_TEST

/* ---- clustering ---------------------------------------------------------- */

START_TEST(clustering_keeps_cap_and_deepest)
{
    int n = 600;
    mcb_contact *c = calloc((size_t)n, sizeof *c);
    mcb_rng r;
    mcb_rng_seed(&r, 3);
    for (int i = 0; i < n; i++) {
        c[i].body_a = i < 500 ? 1 : 2, c[i].body_b = -1;
        for (int k = 0; k < 3; k++) c[i].p[k] = mcb_rng_uniform(&r);
        c[i].n[2] = 1, c[i].gap = -1e-3 * mcb_rng_uniform(&r), c[i].key = (unsigned long long)i;
    }
    c[321].gap = -0.5; /* the deepest */
    mcb_contact *d = malloc((size_t)n * sizeof *d);
    memcpy(d, c, (size_t)n * sizeof *c);
    int m = mcb_contacts_cluster(c, n, 120, 0);
    ck_assert_int_le(m, 120 + 100);
    int n1 = 0, n2 = 0, deepest = 0;
    for (int i = 0; i < m; i++) {
        n1 += c[i].body_a == 1, n2 += c[i].body_a == 2;
        deepest |= c[i].key == 321;
        if (i) ck_assert(c[i].key > c[i - 1].key); /* order kept */
    }
    ck_assert_int_le(n1, 120);
    ck_assert_int_ge(n1, 100); /* k-means leaves few clusters empty */
    ck_assert_int_eq(n2, 100); /* under the cap: untouched */
    ck_assert(deepest);
    /* deterministic */
    memcpy(c, d, (size_t)n * sizeof *c);
    ck_assert_int_eq(mcb_contacts_cluster(c, n, 120, 0), m);
    /* the total cap keeps the deepest */
    memcpy(c, d, (size_t)n * sizeof *c);
    m = mcb_contacts_cluster(c, n, 0, 50);
    ck_assert_int_eq(m, 50);
    double worst = -INFINITY;
    for (int i = 0; i < m; i++) worst = fmax(worst, c[i].gap);
    int deeper = 0;
    for (int i = 0; i < n; i++) deeper += d[i].gap < worst;
    ck_assert_int_eq(deeper, 49);
    free(c);
    free(d);
}
END_TEST

/* The kept contacts' keys in order, folded (FNV-1a). */
static unsigned long long kept_digest(const mcb_contact *c, int m)
{
    unsigned long long h = 1469598103934665603ull;
    for (int i = 0; i < m; i++) h = (h ^ c[i].key) * 1099511628211ull;
    return h;
}

/* Clustering chooses exactly what the plain scans over every centre chose
 * before the nearest-centre search was pruned (the digests of commit
 * 97589ec): on a lattice whose points are often equally near two centres
 * (ties go to the lower centre index) and on a random cloud. */
START_TEST(clustering_known_answer)
{
    int n = 2000;
    mcb_contact *c = calloc((size_t)n, sizeof *c);
    for (int i = 0; i < n; i++) { /* 20 x 10 x 10 unit lattice, one body pair */
        c[i].body_a = 1, c[i].body_b = -1;
        c[i].p[0] = i % 20, c[i].p[1] = (i / 20) % 10, c[i].p[2] = i / 200;
        c[i].n[2] = 1, c[i].gap = -1e-3 * ((i * 7919) % 1000), c[i].key = (unsigned long long)i;
    }
    int m = mcb_contacts_cluster(c, n, 120, 0);
    ck_assert_int_eq(m, 120);
    ck_assert(kept_digest(c, m) == 15223325716669087688ull);
    mcb_rng r;
    mcb_rng_seed(&r, 11);
    for (int i = 0; i < n; i++) {
        c[i].body_a = 1 + (i % 3 == 0), c[i].body_b = -1;
        for (int k = 0; k < 3; k++) c[i].p[k] = mcb_rng_uniform(&r);
        c[i].n[2] = 1, c[i].gap = -1e-3 * mcb_rng_uniform(&r), c[i].key = (unsigned long long)i;
    }
    m = mcb_contacts_cluster(c, n, 120, 0);
    ck_assert_int_eq(m, 240);
    ck_assert(kept_digest(c, m) == 7473368427734503370ull);
    free(c);
}
END_TEST

/* ---- broad phase ---------------------------------------------------------- */

static int random_scene(mcb_rng *r, mcb_shape *sh, mcb_xform *X, int ns)
{
    double rp[3] = {0.0, 0.1, 0.13}, zp[3] = {0.0, 0.0, 0.06};
    sh[0] = shape(MCB_SHAPE_PLANE, -1, 0, 0, 0);
    X[0] = at(0, 0, 0);
    for (int k = 1; k < ns; k++) {
        int t = (int)(5 * mcb_rng_uniform(r));
        if (t == 0) sh[k] = shape(MCB_SHAPE_SPHERE, k, 0.05 + 0.05 * mcb_rng_uniform(r), 0, 0);
        else if (t == 1) sh[k] = shape(MCB_SHAPE_BOX, k, 0.05, 0.08, 0.06);
        else if (t == 2) sh[k] = shape(MCB_SHAPE_CAPSULE, k, 0.04, 0.08, 0);
        else if (t == 3) sh[k] = revolution(3, rp, zp, 0.006), sh[k].body = k;
        else sh[k] = shape(MCB_SHAPE_BOX, -1, 0.1, 0.1, 0.02); /* static */
        sh[k].group = (k % 7 == 0) ? 1 : 0;
        X[k] = random_xform(r, 0.9);
        X[k].p[2] += 0.9;
        if (k % 11 == 0 && k > 1) sh[k].body = sh[k - 1].body; /* two shapes on one body */
    }
    return ns;
}

START_TEST(broad_phase_equals_brute_force)
{
    int ns = 200;
    mcb_shape sh[200];
    mcb_xform X[200];
    mcb_rng r;
    mcb_rng_seed(&r, 99);
    random_scene(&r, sh, X, ns);
    mcb_contact *c = NULL, *c2 = NULL;
    int nc = 0, cap = 0, nc2 = 0, cap2 = 0;
    mcb_err err;
    ck_assert_int_eq(mcb_contacts_detect(sh, X, ns, 0.01, &c, &nc, &cap, &err), MCB_OK);
    ck_assert_int_gt(nc, 20);
    /* brute force: every pair i < j with the same rules */
    mcb_contact *bf = malloc(100000 * sizeof *bf);
    int nb = 0;
    for (int i = 0; i < ns; i++)
        for (int j = i + 1; j < ns; j++) {
            if (sh[i].body == sh[j].body || (sh[i].body < 0 && sh[j].body < 0)) continue;
            if (sh[i].group > 0 && sh[i].group == sh[j].group) continue;
            int a = sh[i].body < 0 ? j : i, b = sh[i].body < 0 ? i : j;
            nb += mcb_collide(&sh[a], &X[a], a, &sh[b], &X[b], b, 0.01, bf + nb, 100000 - nb);
        }
    ck_assert_int_eq(nc, nb);
    for (int i = 0; i < nc; i++) {
        ck_assert_int_eq(c[i].shape_a, bf[i].shape_a);
        ck_assert_int_eq(c[i].shape_b, bf[i].shape_b);
        ck_assert(c[i].key == bf[i].key);
        ck_assert(c[i].gap == bf[i].gap);
        ck_assert(sh[c[i].shape_a].body >= 0);
    }
    /* deterministic, and the buffer is reused */
    ck_assert_int_eq(mcb_contacts_detect(sh, X, ns, 0.01, &c2, &nc2, &cap2, &err), MCB_OK);
    ck_assert_int_eq(nc2, nc);
    ck_assert_int_eq(memcmp(c, c2, (size_t)nc * sizeof *c), 0);
    mcb_contact *keep = c;
    ck_assert_int_eq(mcb_contacts_detect(sh, X, ns, 0.01, &c, &nc, &cap, &err), MCB_OK);
    ck_assert_ptr_eq(c, keep);
    free(bf);
    free(c);
    free(c2);
}
END_TEST

/* Samples kept across calls give the contacts of fresh samples: the same
 * shapes moved, shapes of another type in their places, shells of
 * revolution reshaped (their kept samples must then be recomputed). */
START_TEST(sample_cache_equals_fresh_samples)
{
    int ns = 200;
    mcb_shape sh[200];
    mcb_xform X[200];
    mcb_rng r;
    mcb_rng_seed(&r, 5);
    mcb_sample_cache *cache = NULL;
    mcb_contact *c = NULL, *f = NULL;
    int nc = 0, cap = 0, nf = 0, capf = 0, sdf = 0;
    mcb_err err;
    for (int round = 0; round < 6; round++) {
        if (round % 3 == 0) {
            random_scene(&r, sh, X, ns);
        } else if (round % 3 == 1) {
            for (int k = 1; k < ns; k++) X[k].p[2] -= 0.01 * mcb_rng_uniform(&r);
        } else {
            for (int k = 1; k < ns; k++)
                if (sh[k].type == MCB_SHAPE_REVOLUTION)
                    for (int i = 0; i < sh[k].profile.npts; i++) sh[k].profile.r[i] *= 1.3;
        }
        ck_assert_int_eq(mcb_contacts_detect_cached(sh, X, ns, 0.01, &cache, &c, &nc, &cap, &err),
                         MCB_OK);
        ck_assert_int_eq(mcb_contacts_detect(sh, X, ns, 0.01, &f, &nf, &capf, &err), MCB_OK);
        ck_assert_int_eq(nc, nf);
        ck_assert_int_eq(memcmp(c, f, (size_t)nc * sizeof *c), 0);
        for (int i = 0; i < nc; i++)
            sdf += sh[c[i].shape_a].type == MCB_SHAPE_REVOLUTION ||
                   sh[c[i].shape_b].type == MCB_SHAPE_REVOLUTION;
    }
    ck_assert_int_gt(sdf, 20); /* the samples were used */
    ck_assert_int_eq(mcb_contacts_detect_cached(sh, X, ns, 0.01, NULL, &c, &nc, &cap, &err),
                     MCB_E_INPUT);
    mcb_sample_cache_free(&cache);
    ck_assert_ptr_null(cache);
    mcb_sample_cache_free(&cache);
    mcb_sample_cache_free(NULL);
    free(c);
    free(f);
}
END_TEST

/* A wall of 8000 bricks (20 long x 2 deep x 200 high, running bond) on a
 * plane: every brick touches its neighbours; prints the detection time. */
START_TEST(wall_8000_bricks)
{
    int nx = 20, ny = 2, nz = 200, ns = nx * ny * nz + 1;
    mcb_shape *sh = malloc((size_t)ns * sizeof *sh);
    mcb_xform *X = malloc((size_t)ns * sizeof *X);
    double hx = 0.1, hy = 0.05, hz = 0.03;
    sh[0] = shape(MCB_SHAPE_PLANE, -1, 0, 0, 0), X[0] = at(0, 0, 0);
    for (int k = 0; k < nx * ny * nz; k++) {
        int i = k % nx, j = (k / nx) % ny, l = k / (nx * ny);
        sh[k + 1] = shape(MCB_SHAPE_BOX, k, hx, hy, hz);
        X[k + 1] = at(2 * hx * i + (l % 2) * hx, 2 * hy * j, hz + 2 * hz * l);
    }
    mcb_contact *c = NULL;
    int nc = 0, cap = 0;
    mcb_err err;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    ck_assert_int_eq(mcb_contacts_detect(sh, X, ns, 1e-3, &c, &nc, &cap, &err), MCB_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("wall of %d bricks: %d contacts detected in %.3f s\n", ns - 1, nc, s);
    /* bottom row on the plane: 4 each */
    int on_plane = 0;
    for (int i = 0; i < nc; i++) on_plane += c[i].body_b == -1;
    ck_assert_int_eq(on_plane, 4 * nx * ny);
    ck_assert_int_gt(nc, 4 * nx * ny * nz);
    free(c);
    free(sh);
    free(X);
}
END_TEST

/* Thin-shell mass properties against the closed forms: a cylinder shell of
 * radius R and length L (zc = L/2, Izz = m R^2, Ixx = m (R^2/2 + L^2/12))
 * and a flat disc (zc = 0, Izz = m R^2/2, Ixx = m R^2/4). */
START_TEST(shell_mass_known_answers)
{
    const double R = 0.1, L = 0.3, m = 2.0;
    mcb_profile cyl = {.npts = 2, .r = {R, R}, .z = {0, L}, .thickness = 0.002};
    double zc, I[9];
    mcb_profile_shell_mass(&cyl, m, &zc, I);
    ck_assert_double_eq_tol(zc, L / 2, 1e-12);
    ck_assert_double_eq_tol(I[8], m * R * R, 1e-12);
    double ixx = m * (R * R / 2 + L * L / 12);
    ck_assert_msg(fabs(I[0] - ixx) <= 1e-3 * ixx && fabs(I[4] - ixx) <= 1e-3 * ixx,
                  "cylinder shell: Ixx %.9g, Iyy %.9g, expected %.9g", I[0], I[4], ixx);
    ck_assert(I[1] == 0 && I[2] == 0 && I[3] == 0 && I[5] == 0 && I[6] == 0 && I[7] == 0);
    mcb_profile disc = {.npts = 3, .r = {0, R / 2, R}, .z = {0, 0, 0}, .thickness = 0.002};
    mcb_profile_shell_mass(&disc, m, &zc, I);
    ck_assert_double_eq_tol(zc, 0, 1e-15);
    ck_assert_msg(fabs(I[8] - m * R * R / 2) <= 1e-3 * m * R * R / 2, "disc: Izz %.9g, expected %.9g",
                  I[8], m * R * R / 2);
    ck_assert_msg(fabs(I[0] - m * R * R / 4) <= 1e-3 * m * R * R / 4, "disc: Ixx %.9g, expected %.9g",
                  I[0], m * R * R / 4);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scene_geom");
    TCase *tc = tcase_create("geom");
    tcase_add_test(tc, primitive_sdf_known_answers);
    tcase_add_test(tc, sphere_on_plane_one_contact);
    tcase_add_test(tc, box_on_plane_four_corners);
    tcase_add_test(tc, box_on_box_four_contacts);
    tcase_add_test(tc, capsule_contacts);
    tcase_add_test(tc, revolution_cylinder_and_disc);
    tcase_add_test(tc, shell_mass_known_answers);
    tcase_add_test(tc, bolt_and_nut_known_points);
    tcase_add_test(tc, gradients_match_finite_differences);
    tcase_add_test(tc, nut_on_bolt_contacts);
    tcase_add_test(tc, bowl_on_plane_and_sphere_in_bowl);
    tcase_add_test(tc, bad_shapes_are_harmless);
    tcase_add_test(tc, contact_frames_outward);
    tcase_add_test(tc, clustering_keeps_cap_and_deepest);
    tcase_add_test(tc, clustering_known_answer);
    tcase_add_test(tc, broad_phase_equals_brute_force);
    tcase_add_test(tc, sample_cache_equals_fresh_samples);
    tcase_add_test(tc, wall_8000_bricks);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mcb_run_suite(suite());
}

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

#include "geometry.h"
#include "spatial.h"

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

static inline mcb_shape bolt_m48(double length)
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
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mcb_run_suite(suite());
}

/* test_scene_joint.c: known answers for the world's joints (joint.c,
 * step.c; docs/stepping.md "Joints"): a body hanging from a hard point
 * joint (still, impulse m g h), a compound pendulum's small-angle period, a
 * soft spring's static extension m g / K and its eq. (3) block (k = h^2 K,
 * alpha = 1 + D / (h K)), a torsion spring's angle tau / K, a weld (point +
 * angular) carrying two bodies as one, anisotropic friction with soft
 * rows in the same step (a box slides at mu g of its direction), a free wheel's rolling rows (the
 * angular momentum about the contact point conserved: w' = I w /
 * (I + m r^2)), merged subsystems, the recorded problems (valid, J = Jc Jb)
 * and the refusals (bad joints, bodies after joints). */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/fem.h"
#include "problems/scene/joint.h"
#include "lib/mcb_problem.h"
#include "problems/scene/world.h"

#define G 9.81
#define PI 3.14159265358979323846

static mcb_world *new_world(double h, double gz)
{
    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.h_s = h;
    o.gravity[2] = gz;
    o.tol = 1e-12;
    o.max_iters = 50000;
    mcb_world *w = NULL;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_world_new(&o, &w, &err) == MCB_OK, "%s", err.msg);
    return w;
}

static int add_body(mcb_world *w, double mass, double i_diag, const double pos[3])
{
    mcb_rigid b;
    memset(&b, 0, sizeof b);
    b.mass_kg = mass;
    b.inertia[0] = b.inertia[4] = b.inertia[8] = i_diag;
    b.quat[0] = 1.0;
    if (pos) memcpy(b.pos, pos, sizeof b.pos);
    int idx = -1;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_world_add_body(w, &b, &idx, &err) == MCB_OK, "%s", err.msg);
    return idx;
}

static int add_joint(mcb_world *w, const mcb_wjoint *j)
{
    int idx = -1;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_world_add_joint(w, j, &idx, &err) == MCB_OK, "%s", err.msg);
    return idx;
}

/* max |(Jc Jb - J)_ij| by dense columns (small problems only) */
static double factorization_error(const mcb_problem *P)
{
    double worst = 0.0;
    double *col = calloc((size_t)P->m + 1, sizeof(double));
    double *tw = calloc((size_t)P->Jc->n + 1, sizeof(double));
    for (int j = 0; j < P->n; j++) {
        memset(col, 0, (size_t)P->m * sizeof(double));
        memset(tw, 0, (size_t)P->Jc->n * sizeof(double));
        for (int k = P->Jb->p[j]; k < P->Jb->p[j + 1]; k++) tw[P->Jb->i[k]] = P->Jb->x[k];
        mcb_csc_gaxpy(P->Jc, tw, col);
        for (int k = P->J->p[j]; k < P->J->p[j + 1]; k++) col[P->J->i[k]] -= P->J->x[k];
        for (int r = 0; r < P->m; r++) worst = fabs(col[r]) > worst ? fabs(col[r]) : worst;
    }
    free(col);
    free(tw);
    return worst;
}

static void step(mcb_world *w, mcb_problem **rec)
{
    mcb_err err = {{0}};
    ck_assert_msg(mcb_world_step(w, rec, NULL, &err) == MCB_OK, "%s", err.msg);
    if (rec && *rec) {
        ck_assert_msg(mcb_problem_validate(*rec, (*rec)->name, &err) == MCB_OK, "%s", err.msg);
        ck_assert_msg(factorization_error(*rec) <= 1e-12, "J != Jc Jb");
    }
}

/* A point joint from the world point (0, 0, 0) to the body point (0, 0, L)
 * in its frame: the body hangs with its centre L below the pivot. */
static mcb_wjoint pivot(int body, double L)
{
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_POINT;
    j.body_a = -1;
    j.body_b = body;
    j.pb[2] = L;
    return j;
}

START_TEST(hanging_body_is_still)
{
    double h = 0.01, m = 2.0, L = 0.5;
    mcb_world *w = new_world(h, -G);
    int b = add_body(w, m, 0.01, (double[3]){0, 0, -L});
    mcb_wjoint j = pivot(b, L);
    int q = add_joint(w, &j);
    for (int k = 0; k < 20; k++) {
        mcb_problem *P = NULL;
        step(w, &P);
        ck_assert_int_eq(P->m, 3);
        ck_assert_int_eq(P->nblocks, 1);
        ck_assert_int_eq(P->blocks[0].type, MCB_BILATERAL);
        ck_assert_int_eq(P->blocks[0].nrows, 3);
        mcb_problem_free(&P);
    }
    const mcb_rigid *B = mcb_world_body(w, b);
    ck_assert_double_eq_tol(B->pos[2], -L, 1e-9);
    ck_assert_double_eq_tol(B->pos[0], 0.0, 1e-12);
    int rows = 0;
    const double *lam = mcb_world_joint_lambda(w, q, &rows);
    ck_assert_int_eq(rows, 3);
    /* the world is body a: the rows read u_b - u_a along world axes, the
     * impulse on the body is +lambda: m g h upwards */
    ck_assert_double_eq_tol(lam[2], m * G * h, 1e-9);
    ck_assert_double_eq_tol(lam[0], 0.0, 1e-12);
    mcb_world_free(&w);
}
END_TEST

/* A compound pendulum (rod-like body, pivot at distance d from its centre)
 * released from 3 degrees: its period 2 pi sqrt((I + m d^2) / (m g d)),
 * timed by the zero crossings of the angle (implicit Euler damps the
 * amplitude, not the period to first order), and the pivot holds. */
START_TEST(pendulum_period)
{
    double h = 1e-3, m = 1.0, d = 0.3, I = 0.005, a0 = 3.0 * PI / 180.0;
    mcb_world *w = new_world(h, -G);
    double pos[3] = {d * sin(a0), 0.0, -d * cos(a0)};
    int b = add_body(w, m, I, pos);
    mcb_rigid *B = mcb_world_body(w, b);
    /* rotate the body by a0 about y so that its pivot point stays at 0 */
    B->quat[0] = cos(-0.5 * a0);
    B->quat[2] = sin(-0.5 * a0);
    mcb_wjoint j = pivot(b, d);
    add_joint(w, &j);
    double T = 2.0 * PI * sqrt((I + m * d * d) / (m * G * d));
    double prev = B->pos[0], t = 0.0, first = -1.0, last = -1.0, drift = 0.0;
    int crossings = 0;
    for (int k = 0; k < (int)(2.2 * T / h); k++) {
        step(w, NULL);
        t += h;
        double x = mcb_world_body(w, b)->pos[0];
        if ((prev > 0) != (x > 0)) {
            double tc = t - h * x / (x - prev); /* linear interpolation */
            if (first < 0) first = tc;
            last = tc;
            crossings++;
        }
        prev = x;
        /* the pivot: body point (0, 0, d) in world */
        const mcb_xform *X = mcb_world_body_pose(w, b);
        double p[3];
        mcb_xform_point(X, (double[3]){0, 0, d}, p);
        double e = mcb_v3_norm(p);
        drift = e > drift ? e : drift;
    }
    ck_assert_int_ge(crossings, 4);
    double Tm = 2.0 * (last - first) / (crossings - 1);
    ck_assert_msg(fabs(Tm - T) <= 0.01 * T, "period %.5f s, expected %.5f s", Tm, T);
    ck_assert_msg(drift <= 1e-5, "pivot drift %g m", drift);
    mcb_world_free(&w);
}
END_TEST

/* A mass on a soft vertical spring (stiffness K, damping D) settles at the
 * extension m g / K; the recorded block is eq. (3) with k = h^2 K and
 * alpha = 1 + D / (h K). */
START_TEST(soft_spring_static_extension)
{
    double h = 0.01, m = 0.5, K = 200.0, D = 20.0;
    mcb_world *w = new_world(h, -G);
    int b = add_body(w, m, 0.01, (double[3]){0, 0, -0.2});
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_POINT;
    j.body_a = -1;
    j.body_b = b;
    j.pb[2] = 0.2;      /* body point 0.2 above its centre ... */
    j.mask = 4;         /* ... held along z only */
    j.soft = 1;
    j.stiffness[2] = K;
    j.damping[2] = D;
    add_joint(w, &j);
    for (int k = 0; k < 400; k++) {
        mcb_problem *P = NULL;
        step(w, k == 0 ? &P : NULL);
        if (P) {
            ck_assert_int_eq(P->m, 1);
            ck_assert_int_eq(P->blocks[0].type, MCB_SOFT);
            ck_assert_double_eq_tol(P->blocks[0].k, h * h * K, 1e-15);
            ck_assert_double_eq_tol(P->blocks[0].alpha, 1.0 + D / (h * K), 1e-12);
            mcb_problem_free(&P);
        }
    }
    double z = mcb_world_body(w, b)->pos[2];
    ck_assert_msg(fabs((-0.2 - z) - m * G / K) <= 1e-6, "extension %.9f m, expected %.9f m",
                  -0.2 - z, m * G / K);
    ck_assert_double_eq_tol(mcb_world_body(w, b)->vel[2], 0.0, 1e-6);
    mcb_world_free(&w);
}
END_TEST

/* Compliant contacts (world contact_compliance r, COND's invertible model)
 * in a step that has soft rows, which the engine folds into A for its own
 * solve: a sphere (m, radius R) on the floor hangs from a soft vertical
 * spring K whose rest puts the sphere just on the floor. At rest the
 * compliant law u_n = e_n + r lambda_n = 0 with e_n = -d / h (d the depth)
 * and lambda_n = h N, N = m g - K d, gives d = h^2 r m g / (1 + h^2 r K); a
 * hard contact would give d = 0. Every recorded row of the contact carries
 * r, the spring's none. */
START_TEST(compliant_contact_with_soft_rows)
{
    double h = 0.01, m = 2.0, R = 0.05, K = 100.0, r = 5.0;
    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.h_s = h;
    o.tol = 1e-12;
    o.max_iters = 50000;
    o.contact_compliance = r;
    mcb_world *w = NULL;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_world_new(&o, &w, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0, 0, 0}, 0.5,
                                             NULL, &err), MCB_OK);
    mcb_rigid b;
    memset(&b, 0, sizeof b);
    b.mass_kg = m;
    b.inertia[0] = b.inertia[4] = b.inertia[8] = 0.4 * m * R * R;
    b.quat[0] = 1.0;
    b.pos[2] = R;
    int s = -1;
    ck_assert_int_eq(mcb_world_add_primitive(w, &b, MCB_SHAPE_SPHERE, (double[3]){R, 0, 0}, 0.5, &s,
                                             &err), MCB_OK);
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_POINT;
    j.body_a = -1;
    j.body_b = s;
    j.pa[2] = R; /* the sphere's centre at rest height R */
    j.mask = 4;
    j.soft = 1;
    j.stiffness[2] = K;
    j.damping[2] = 50.0;
    add_joint(w, &j);
    for (int k = 0; k < 600; k++) {
        mcb_problem *P = NULL;
        step(w, k == 599 ? &P : NULL);
        if (P) {
            ck_assert(P->r != NULL);
            for (int b2 = 0; b2 < P->nblocks; b2++)
                for (int i = P->blocks[b2].row; i < P->blocks[b2].row + P->blocks[b2].nrows; i++)
                    ck_assert_double_eq(P->r[i], P->blocks[b2].type == MCB_CONTACT ? r : 0.0);
            mcb_problem_free(&P);
        }
    }
    double d = R - mcb_world_body(w, s)->pos[2], want = h * h * r * m * G / (1 + h * h * r * K);
    ck_assert_msg(fabs(d - want) <= 1e-3 * want, "depth %.9g m, expected %.9g m", d, want);
    mcb_world_free(&w);
}
END_TEST

/* Anisotropic friction with soft rows in the same step (the engine folds
 * the soft rows into A, then solves the folded problem's isotropic
 * equivalent, lib/mcb_aniso.h): a 1 kg box launched at 1 m/s along a
 * floor with mu 0.2 along x and mu2 0.6 along y, held across its path by a
 * soft spring (one row, K 100 N/m, at rest: no force), slides as implicit
 * Euler gives, v_{k+1} = max(0, v_k - mu g h), x_{k+1} = x_k + h v_{k+1},
 * with the friction coefficient of its direction: 0.2 along x, 0.6 along
 * y (the spring then along x). The recorded steps carry mu2 on the
 * contacts and stay valid. */
static double aniso_slide(int along_y, double *off_axis)
{
    double h = 0.01, half = 0.05;
    mcb_world *w = new_world(h, -G);
    mcb_err err = {{0}};
    mcb_shape fl;
    memset(&fl, 0, sizeof fl);
    fl.type = MCB_SHAPE_PLANE;
    fl.body = -1;
    fl.local = mcb_xform_identity();
    fl.mu = 0.2;
    fl.aniso = 1;
    fl.mu2 = 0.6;
    fl.axis1[0] = 1;
    ck_assert_msg(mcb_world_add_shape(w, &fl, &err) == MCB_OK, "%s", err.msg);
    mcb_rigid b;
    memset(&b, 0, sizeof b);
    b.mass_kg = 1.0;
    b.inertia[0] = b.inertia[4] = b.inertia[8] = (2 * half) * (2 * half) / 6.0;
    b.quat[0] = 1.0;
    b.pos[2] = half;
    b.vel[along_y ? 1 : 0] = 1.0;
    int box = -1;
    ck_assert_msg(mcb_world_add_primitive(w, &b, MCB_SHAPE_BOX, (double[3]){half, half, half}, 1.0,
                                          &box, &err) == MCB_OK, "%s", err.msg);
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_POINT;
    j.body_a = -1;
    j.body_b = box;
    j.pa[2] = half;
    int row = along_y ? 0 : 1; /* the spring across the path */
    j.mask = 1 << row;
    j.soft = 1;
    j.stiffness[row] = 100.0;
    j.damping[row] = 1.0;
    add_joint(w, &j);
    for (int k = 0; k < 80; k++) {
        mcb_problem *P = NULL;
        step(w, k == 0 ? &P : NULL);
        if (P) {
            ck_assert_ptr_nonnull(P->mu2);
            int soft = 0, aniso = 0;
            for (int c = 0; c < P->nblocks; c++) {
                soft += P->blocks[c].type == MCB_SOFT;
                if (P->blocks[c].type == MCB_CONTACT)
                    aniso += P->mu2[c] == 0.6 && P->blocks[c].mu == 0.2;
            }
            ck_assert_int_eq(soft, 1);
            ck_assert_int_eq(aniso, 4);
            mcb_problem_free(&P);
        }
    }
    const mcb_rigid *B = mcb_world_body(w, box);
    *off_axis = fabs(B->pos[along_y ? 0 : 1]);
    double x = B->pos[along_y ? 1 : 0];
    mcb_world_free(&w);
    return x;
}

START_TEST(aniso_friction_with_soft_rows)
{
    for (int along_y = 0; along_y < 2; along_y++) {
        double mu = along_y ? 0.6 : 0.2, v = 1.0, want = 0.0, off = 0.0;
        for (int k = 0; k < 80; k++) {
            v = v - mu * G * 0.01 > 0 ? v - mu * G * 0.01 : 0.0;
            want += 0.01 * v;
        }
        double got = aniso_slide(along_y, &off);
        ck_assert_msg(fabs(got - want) < 1e-6, "along %s: slid %.9g m, implicit Euler at mu %.1f %.9g m",
                      along_y ? "y" : "x", got, mu, want);
        ck_assert_msg(off < 1e-9, "off the path by %g m", off);
    }
}
END_TEST

/* A torsion spring about z (soft angular joint to the world) against a
 * constant torque tau: the angle settles at tau / K. */
START_TEST(torsion_spring_static_angle)
{
    double h = 0.01, K = 2.0, D = 0.5, tau = 0.1;
    mcb_world *w = new_world(h, 0.0);
    int b = add_body(w, 1.0, 0.01, NULL);
    mcb_world_body(w, b)->wrench[5] = tau;
    mcb_wjoint p = pivot(b, 0.0); /* the centre pinned */
    add_joint(w, &p);
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_ANGULAR;
    j.body_a = -1;
    j.body_b = b;
    j.soft = 1;
    for (int r = 0; r < 3; r++) {
        j.stiffness[r] = K;
        j.damping[r] = D;
    }
    add_joint(w, &j);
    for (int k = 0; k < 600; k++) step(w, NULL);
    const mcb_rigid *B = mcb_world_body(w, b);
    double ang = 2.0 * atan2(B->quat[3], B->quat[0]);
    ck_assert_msg(fabs(ang - tau / K) <= 1e-6, "angle %.9f rad, expected %.9f", ang, tau / K);
    ck_assert_double_eq_tol(B->quat[1], 0.0, 1e-9);
    mcb_world_free(&w);
}
END_TEST

/* Two bodies welded by a hard point and a hard angular joint, the first
 * spinning and both falling: their relative pose stays put. */
START_TEST(weld_moves_as_one)
{
    double h = 0.005;
    mcb_world *w = new_world(h, -G);
    int a = add_body(w, 1.0, 0.02, (double[3]){0, 0, 0});
    int b = add_body(w, 0.5, 0.01, (double[3]){0.2, 0, 0});
    mcb_world_body(w, a)->vel[5] = 2.0;
    mcb_world_body(w, a)->vel[3] = 0.7;
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_POINT;
    j.body_a = a;
    j.body_b = b;
    j.pa[0] = 0.1;
    j.pb[0] = -0.1;
    add_joint(w, &j);
    j.kind = MCB_WJ_ANGULAR;
    add_joint(w, &j);
    for (int k = 0; k < 200; k++) {
        mcb_problem *P = NULL;
        step(w, k % 50 ? NULL : &P);
        if (P) {
            ck_assert_int_eq(P->nblocks, 2);
            ck_assert_int_eq(P->nsub, 2);
            mcb_problem_free(&P);
        }
    }
    const mcb_xform *Xa = mcb_world_body_pose(w, a), *Xb = mcb_world_body_pose(w, b);
    double rel[3] = {Xb->p[0] - Xa->p[0], Xb->p[1] - Xa->p[1], Xb->p[2] - Xa->p[2]}, loc[3];
    mcb_m3_tvec(Xa->R, rel, loc);
    ck_assert_msg(fabs(loc[0] - 0.2) + fabs(loc[1]) + fabs(loc[2]) <= 5e-5,
                  "relative position (%g, %g, %g)", loc[0], loc[1], loc[2]);
    double T[9];
    mcb_m3_mul_t(Xa->R, Xb->R, T);
    ck_assert_msg(fabs(T[0] - 1) + fabs(T[4] - 1) + fabs(T[8] - 1) <= 1e-8, "relative rotation");
    /* the pair fell freely: the centre of mass follows the ballistic path */
    double zc = (1.0 * Xa->p[2] + 0.5 * Xb->p[2]) / 1.5;
    double t = 200 * h, expect = -G * h * h * 200 * 201 / 2.0; /* implicit Euler sum */
    ck_assert_msg(fabs(zc - expect) <= 1e-6, "centre of mass z %.9f, expected %.9f", zc, expect);
    (void)t;
    mcb_world_free(&w);
}
END_TEST

/* A free wheel (sphere-like inertia I, radius r, no gravity) spinning at
 * w about its axle y with its centre at rest: the rolling rows bring it to
 * v_x = r w', w' = I w / (I + m r^2) in one step (angular momentum about the
 * contact point is conserved) and no lateral velocity. */
START_TEST(wheel_rolls_without_slipping)
{
    double h = 0.01, m = 2.0, I = 0.004, r = 0.1, om = 5.0;
    mcb_world *w = new_world(h, 0.0);
    int b = add_body(w, m, I, (double[3]){0, 0, r});
    mcb_world_body(w, b)->vel[4] = om;
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_ROLLING;
    j.body_a = b;
    j.body_b = -1;
    j.axis[1] = 1.0;
    j.radius = r;
    add_joint(w, &j);
    mcb_problem *P = NULL;
    step(w, &P);
    ck_assert_int_eq(P->m, 2);
    ck_assert_int_eq(P->blocks[0].type, MCB_BILATERAL);
    mcb_problem_free(&P);
    double wp = I * om / (I + m * r * r);
    const mcb_rigid *B = mcb_world_body(w, b);
    ck_assert_double_eq_tol(B->vel[4], wp, 1e-9);
    ck_assert_double_eq_tol(B->vel[0], r * wp, 1e-9);
    ck_assert_double_eq_tol(B->vel[1], 0.0, 1e-12);
    /* it keeps rolling: the centre advances r x the wheel angle */
    for (int k = 0; k < 50; k++) step(w, NULL);
    ck_assert_double_eq_tol(B->pos[0], 51 * h * r * wp, 1e-8);
    mcb_world_free(&w);
}
END_TEST

START_TEST(merged_subsystems)
{
    mcb_world *w = new_world(0.01, -G);
    for (int k = 0; k < 9; k++) add_body(w, 1.0, 0.01, (double[3]){0.1 * k, 0, 0});
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_world_merge_subsystem(w, 0, 4, &err), MCB_OK);
    ck_assert_int_eq(mcb_world_merge_subsystem(w, 4, 4, &err), MCB_OK);
    ck_assert_int_eq(mcb_world_merge_subsystem(w, 6, 4, &err), MCB_E_INPUT); /* past the end */
    mcb_wjoint j = pivot(0, 0.0);
    add_joint(w, &j);
    mcb_problem *P = NULL;
    step(w, &P);
    ck_assert_int_eq(P->nsub, 3);
    ck_assert_int_eq(P->sub_start[0], 0);
    ck_assert_int_eq(P->sub_start[1], 24);
    ck_assert_int_eq(P->sub_start[2], 48);
    ck_assert_int_eq(P->sub_start[3], 54);
    ck_assert_int_eq(P->body_sub[5], 1);
    ck_assert_int_eq(P->body_sub[8], 2);
    mcb_problem_free(&P);
    mcb_world_free(&w);
}
END_TEST

START_TEST(rotation_log)
{
    double axes[3][3] = {{1, 0, 0}, {0.6, 0.8, 0}, {0.48, 0.6, 0.64}};
    double angles[4] = {1e-7, 0.3, 2.5, PI - 1e-6};
    for (int a = 0; a < 3; a++)
        for (int k = 0; k < 4; k++) {
            double q[4], R[9], wv[3];
            mcb_quat_from_axis_angle(axes[a], angles[k], q);
            mcb_quat_to_mat(q, R);
            mcb_m3_log(R, wv);
            for (int c = 0; c < 3; c++)
                ck_assert_msg(fabs(wv[c] - angles[k] * axes[a][c]) <= 1e-9,
                              "axis %d angle %g: component %d %.12g vs %.12g", a, angles[k], c,
                              wv[c], angles[k] * axes[a][c]);
        }
}
END_TEST

START_TEST(bad_joints_are_refused)
{
    mcb_world *w = new_world(0.01, -G);
    int b = add_body(w, 1.0, 0.01, NULL);
    mcb_err err = {{0}};
    mcb_wjoint j = pivot(b, 0.1);
    j.kind = 7;
    ck_assert_int_eq(mcb_world_add_joint(w, &j, NULL, &err), MCB_E_INPUT);
    j = pivot(b, 0.1);
    j.body_b = 5;
    ck_assert_int_eq(mcb_world_add_joint(w, &j, NULL, &err), MCB_E_INPUT);
    j = pivot(b, 0.1);
    j.body_a = b;
    ck_assert_int_eq(mcb_world_add_joint(w, &j, NULL, &err), MCB_E_INPUT);
    j = pivot(b, 0.1);
    j.soft = 1; /* no stiffness */
    ck_assert_int_eq(mcb_world_add_joint(w, &j, NULL, &err), MCB_E_INPUT);
    ck_assert(strstr(err.msg, "stiffness") != NULL);
    j = pivot(b, 0.1);
    j.pb[1] = NAN;
    ck_assert_int_eq(mcb_world_add_joint(w, &j, NULL, &err), MCB_E_INPUT);
    j = pivot(b, 0.1);
    j.kind = MCB_WJ_ROLLING;
    j.body_a = b;
    j.axis[1] = 1.0; /* radius 0 */
    ck_assert_int_eq(mcb_world_add_joint(w, &j, NULL, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_world_njoints(w), 0);
    j = pivot(b, 0.1);
    add_joint(w, &j);
    /* bodies after a joint would move the indices it names */
    mcb_rigid r;
    memset(&r, 0, sizeof r);
    r.mass_kg = 1.0;
    r.inertia[0] = r.inertia[4] = r.inertia[8] = 0.01;
    r.quat[0] = 1.0;
    ck_assert_int_eq(mcb_world_add_body(w, &r, NULL, &err), MCB_E_INPUT);
    ck_assert(strstr(err.msg, "joint") != NULL);
    ck_assert_ptr_null(mcb_world_joint_lambda(w, 3, NULL));
    mcb_world_free(&w);
}
END_TEST

/* A two-piece FEM block (0.2 x 0.1 x 0.1 m, ties on the cut) dropped 1 cm
 * onto the ground: pieces are subsystems, the ties hard point rows, the
 * surface nodes contact spheres; at rest the normal impulses carry m g h,
 * the tied duplicates coincide and every recorded problem is valid with
 * J = Jc Jb. */
START_TEST(mesh_rests_on_ground)
{
    double h = 0.01, r = 1e-3;
    mcb_world *w = new_world(h, -G);
    mcb_err err = {{0}};
    mcb_shape pl;
    memset(&pl, 0, sizeof pl);
    pl.type = MCB_SHAPE_PLANE;
    pl.body = -1;
    pl.local = mcb_xform_identity();
    pl.mu = 0.5;
    ck_assert_msg(mcb_world_add_shape(w, &pl, &err) == MCB_OK, "%s", err.msg);
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = 0.2;
    o.size[1] = o.size[2] = 0.1;
    o.cells[0] = 4;
    o.cells[1] = o.cells[2] = 2;
    o.pieces = 2;
    o.young_pa = 1e5;
    o.poisson = 0.3;
    o.density = 500;
    o.rayleigh_mass = 2.0;
    o.rayleigh_stiff = 0.01;
    o.pose.p[2] = 0.05 + r + 0.01;
    mcb_fem *f = NULL;
    ck_assert_msg(mcb_fem_box(&o, &f, &err) == MCB_OK, "%s", err.msg);
    int nn = mcb_fem_nnodes(f), nties = 0;
    const int *ties = mcb_fem_ties(f, &nties);
    double mass = mcb_fem_total_mass(f);
    int first = -1;
    ck_assert_msg(mcb_world_add_fem(w, f, r, 0.5, &first, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(first, 0);
    ck_assert_int_eq(mcb_world_ndof(w), 3 * nn);
    ck_assert_int_eq(mcb_world_nbodies(w), nn);
    ck_assert_int_eq(mcb_world_njoints(w), nties);
    ck_assert_int_eq(nties, 9);
    /* no rigid body after a mesh */
    mcb_rigid rb;
    memset(&rb, 0, sizeof rb);
    rb.mass_kg = 1;
    rb.inertia[0] = rb.inertia[4] = rb.inertia[8] = 1;
    rb.quat[0] = 1;
    ck_assert_int_eq(mcb_world_add_body(w, &rb, NULL, &err), MCB_E_INPUT);
    mcb_step_info info;
    double lastsum = 0.0;
    for (int k = 0; k < 150; k++) {
        mcb_problem *P = NULL;
        ck_assert_msg(mcb_world_step(w, &P, &info, &err) == MCB_OK, "step %d: %s", k, err.msg);
        ck_assert_msg(mcb_problem_validate(P, P->name, &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(P->nsub, 2);
        ck_assert_int_eq(P->n, 3 * nn);
        if (k % 50 == 0) ck_assert_msg(factorization_error(P) <= 1e-12, "J != Jc Jb");
        int nc = 0, nbil = 0;
        double sum = 0.0;
        for (int b = 0; b < P->nblocks; b++) {
            if (P->blocks[b].type == MCB_CONTACT) {
                nc++;
                sum += P->lambda_ref[P->blocks[b].row];
            } else {
                ck_assert_int_eq(P->blocks[b].type, MCB_BILATERAL);
                ck_assert_int_eq(P->blocks[b].nrows, 3);
                nbil++;
            }
        }
        ck_assert_int_eq(nbil, nties);
        ck_assert_int_eq(P->m, 3 * nc + 3 * nties);
        lastsum = sum;
        mcb_problem_free(&P);
    }
    ck_assert_msg(fabs(lastsum - mass * G * h) <= 1e-6 * mass * G * h,
                  "normal impulses %.9g, m g h %.9g", lastsum, mass * G * h);
    mcb_fem *F = mcb_world_fem(w, 0);
    const double *x = mcb_fem_x(F), *v = mcb_fem_v(F);
    double vmax = 0.0, zmin = 1.0, tie = 0.0;
    for (int i = 0; i < nn; i++) {
        for (int c = 0; c < 3; c++) vmax = fabs(v[3 * i + c]) > vmax ? fabs(v[3 * i + c]) : vmax;
        zmin = x[3 * i + 2] < zmin ? x[3 * i + 2] : zmin;
    }
    for (int t = 0; t < nties; t++) {
        const double *a = x + 3 * ties[2 * t], *b = x + 3 * ties[2 * t + 1];
        double d = fabs(a[0] - b[0]) + fabs(a[1] - b[1]) + fabs(a[2] - b[2]);
        tie = d > tie ? d : tie;
    }
    ck_assert_msg(vmax <= 1e-4, "still moving: %g m/s", vmax);
    ck_assert_msg(fabs(zmin - r) <= 1e-6, "lowest node at %g m, expected the node radius %g", zmin, r);
    ck_assert_msg(tie <= 1e-9, "tied duplicates %g m apart", tie);
    ck_assert_ptr_nonnull(mcb_world_body_pose(w, nn - 1));
    ck_assert_ptr_null(mcb_world_body_pose(w, nn));
    mcb_world_free(&w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scene_joint");
    TCase *tc = tcase_create("known answers");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, hanging_body_is_still);
    tcase_add_test(tc, pendulum_period);
    tcase_add_test(tc, soft_spring_static_extension);
    tcase_add_test(tc, compliant_contact_with_soft_rows);
    tcase_add_test(tc, aniso_friction_with_soft_rows);
    tcase_add_test(tc, torsion_spring_static_angle);
    tcase_add_test(tc, weld_moves_as_one);
    tcase_add_test(tc, wheel_rolls_without_slipping);
    tcase_add_test(tc, merged_subsystems);
    tcase_add_test(tc, rotation_log);
    tcase_add_test(tc, bad_joints_are_refused);
    tcase_add_test(tc, mesh_rests_on_ground);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

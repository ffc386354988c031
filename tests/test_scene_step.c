/* test_scene_step.c: known answers for the scene engine's world and time
 * stepping (problems/scene/step.c, body.c; docs/stepping.md): free fall
 * against the closed form of the discrete scheme (theta 0 and 0.5), a box
 * resting on the ground (still, normal impulses summing to m g h), a box on
 * a 30-degree incline sliding with the Coulomb acceleration or sticking, a
 * sphere rolling down it (a = 5/7 g sin 30), a PD-held pendulum robot
 * (steady-state error = gravity torque / kp), the recorded problems (valid,
 * J = Jc Jb, warm start = previous solution by key), the descriptors (mass
 * ratio, cond(J A^-1 J^T) on hand-made problems) and bitwise determinism. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/describe.h"
#include "lib/mcb_problem.h"
#include "problems/scene/world.h"

#define G 9.81
#define DEG30 (3.14159265358979323846 / 6.0)

static mcb_world *new_world(double h, double theta)
{
    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.h_s = h;
    o.theta = theta;
    mcb_world *w = NULL;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_world_new(&o, &w, &err) == MCB_OK, "%s", err.msg);
    return w;
}

static mcb_rigid body_defaults(double mass, double i_diag)
{
    mcb_rigid b;
    memset(&b, 0, sizeof b);
    b.mass_kg = mass;
    b.inertia[0] = b.inertia[4] = b.inertia[8] = i_diag;
    b.quat[0] = 1.0;
    return b;
}

static int add_body(mcb_world *w, const mcb_rigid *b)
{
    int idx = -1;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_world_add_body(w, b, &idx, &err) == MCB_OK, "%s", err.msg);
    return idx;
}

static void add_shape(mcb_world *w, int type, int body, const mcb_xform *local, double s0,
                      double s1, double s2, double mu)
{
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = type;
    s.body = body;
    s.local = local ? *local : mcb_xform_identity();
    s.size[0] = s0;
    s.size[1] = s1;
    s.size[2] = s2;
    s.mu = mu;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_world_add_shape(w, &s, &err) == MCB_OK, "%s", err.msg);
}

static void step(mcb_world *w, mcb_problem **rec, mcb_step_info *info)
{
    mcb_err err = {{0}};
    ck_assert_msg(mcb_world_step(w, rec, info, &err) == MCB_OK, "%s", err.msg);
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

/* What every recorded problem must satisfy. */
static void check_recorded(const mcb_problem *P)
{
    mcb_err err = {{0}};
    ck_assert_msg(mcb_problem_validate(P, P->name, &err) == MCB_OK, "%s", err.msg);
    ck_assert_ptr_nonnull(P->Jc);
    ck_assert_ptr_nonnull(P->Jb);
    ck_assert_ptr_nonnull(P->v0);
    ck_assert_ptr_nonnull(P->lambda0);
    ck_assert_ptr_nonnull(P->v_ref);
    ck_assert_ptr_nonnull(P->lambda_ref);
    ck_assert_int_eq(P->nblocks, P->m / 3);
    double fe = factorization_error(P);
    ck_assert_msg(fe <= 1e-12, "%s: |Jc Jb - J| = %g", P->name, fe);
    ck_assert(P->mass_ratio >= 1.0);
}

static double normal_impulse_sum(const mcb_problem *P)
{
    double s = 0.0;
    for (int c = 0; c < P->nblocks; c++) s += P->lambda_ref[P->blocks[c].row];
    return s;
}

/* ---------- free fall ---------- */

START_TEST(free_fall_closed_form)
{
    double theta = _i == 0 ? 0.0 : 0.5, h = 0.01;
    mcb_world *w = new_world(h, theta);
    mcb_rigid b = body_defaults(2.0, 0.008);
    b.pos[2] = 10.0;
    b.vel[0] = 0.3;
    b.vel[2] = 1.5;
    b.vel[5] = 2.0; /* spin about z: a sphere's gyroscopic term is zero */
    add_body(w, &b);
    ck_assert_int_eq(mcb_world_ndof(w), 6);
    for (int k = 0; k < 100; k++) step(w, NULL, NULL);
    /* v_K = v_0 - K h g; z_K = z_0 + K h v_0 - h^2 g (K (K - 1) / 2 + (1 - theta) K) */
    int K = 100;
    const mcb_rigid *B = mcb_world_body(w, 0);
    double vz = 1.5 - K * h * G;
    double z = 10.0 + K * h * 1.5 - h * h * G * (K * (K - 1) / 2.0 + (1.0 - theta) * K);
    ck_assert_double_eq_tol(B->vel[2], vz, 1e-10);
    ck_assert_double_eq_tol(B->pos[2], z, 1e-10);
    ck_assert_double_eq_tol(B->pos[0], 0.3 * K * h, 1e-12);
    ck_assert_double_eq_tol(B->vel[5], 2.0, 1e-12);
    /* the orientation turned by K h w about z */
    double ang = 2.0 * atan2(B->quat[3], B->quat[0]);
    ck_assert_double_eq_tol(ang, K * h * 2.0, 1e-10);
    mcb_world_free(&w);
    mcb_world_free(&w); /* NULL after free: a no-op */
}
END_TEST

/* ---------- box resting on the ground ---------- */

static mcb_world *box_on_ground(double mu)
{
    mcb_world *w = new_world(0.01, 0.0);
    add_shape(w, MCB_SHAPE_PLANE, -1, NULL, 0, 0, 0, mu);
    mcb_rigid b = body_defaults(1.5, 1.5 * (0.2 * 0.2 + 0.1 * 0.1) / 12.0);
    b.inertia[8] = 1.5 * (0.2 * 0.2 + 0.2 * 0.2) / 12.0;
    b.pos[0] = 0.3;
    b.pos[1] = -0.2;
    b.pos[2] = 0.05;
    int i = add_body(w, &b);
    add_shape(w, MCB_SHAPE_BOX, i, NULL, 0.1, 0.1, 0.05, mu);
    return w;
}

START_TEST(box_rests_on_ground)
{
    mcb_world *w = box_on_ground(0.5);
    double m = 1.5, h = 0.01, settled[3] = {0};
    mcb_problem *prev = NULL;
    for (int k = 0; k < 100; k++) {
        mcb_problem *P = NULL;
        mcb_step_info info;
        step(w, &P, &info);
        ck_assert_int_gt(info.contacts, 0);
        ck_assert(info.residual <= 1e-8);
        check_recorded(P);
        ck_assert_int_eq(P->step, k);
        ck_assert_double_eq_tol(normal_impulse_sum(P), m * G * h, 1e-9);
        if (prev && prev->m == P->m) /* persistent contacts: warm start = last solution */
            for (int r = 0; r < P->m; r++)
                ck_assert_double_eq(P->lambda0[r], prev->lambda_ref[r]);
        const mcb_rigid *B = mcb_world_body(w, 0);
        if (k == 10) memcpy(settled, B->pos, sizeof settled);
        if (k > 10)
            for (int q = 0; q < 3; q++) ck_assert_double_eq_tol(B->pos[q], settled[q], 1e-6);
        mcb_problem_free(&prev);
        prev = P;
    }
    ck_assert_str_eq(prev->name, "world-step0099");
    ck_assert_double_eq_tol(mcb_world_body(w, 0)->pos[2], 0.05, 1e-6);
    mcb_problem_free(&prev);
    mcb_world_free(&w);
}
END_TEST

/* ---------- the incline ---------- */

static mcb_xform incline_frame(void)
{
    double ax[3] = {1, 0, 0}, q[4];
    mcb_quat_from_axis_angle(ax, DEG30, q);
    mcb_xform X = mcb_xform_identity();
    mcb_quat_to_mat(q, X.R);
    return X;
}

/* A box (box = 1) or sphere on a plane tilted 30 degrees about x; returns
 * the velocity along the downhill direction after K steps of h. */
static double incline_run(int box, double mu, int K, double *normal_speed)
{
    double h = 0.01, ax[3] = {1, 0, 0};
    mcb_world *w = new_world(h, 0.0);
    mcb_xform X = incline_frame();
    add_shape(w, MCB_SHAPE_PLANE, -1, &X, 0, 0, 0, mu);
    double r = 0.1, m = 1.0;
    mcb_rigid b = body_defaults(m, box ? m * (0.2 * 0.2 + 0.1 * 0.1) / 12.0 : 0.4 * m * r * r);
    if (box) b.inertia[8] = m * (0.2 * 0.2 + 0.2 * 0.2) / 12.0;
    double lift = box ? 0.05 : r, nrm[3] = {0, -sin(DEG30), cos(DEG30)};
    for (int q = 0; q < 3; q++) b.pos[q] = lift * nrm[q];
    if (box) mcb_quat_from_axis_angle(ax, DEG30, b.quat);
    int i = add_body(w, &b);
    if (box) add_shape(w, MCB_SHAPE_BOX, i, NULL, 0.1, 0.1, 0.05, mu);
    else add_shape(w, MCB_SHAPE_SPHERE, i, NULL, r, 0, 0, mu);
    for (int k = 0; k < K; k++) {
        mcb_problem *P = NULL;
        step(w, &P, NULL);
        check_recorded(P);
        mcb_problem_free(&P);
    }
    const mcb_rigid *B = mcb_world_body(w, 0);
    double down[3] = {0, -cos(DEG30), -sin(DEG30)};
    double vs = mcb_v3_dot(B->vel, down);
    *normal_speed = mcb_v3_dot(B->vel, nrm);
    mcb_world_free(&w);
    return vs;
}

START_TEST(box_slides_or_sticks_on_incline)
{
    int K = 50;
    double h = 0.01, vn;
    /* mu = 0.3 < tan 30: a = g (sin 30 - mu cos 30) */
    double v = incline_run(1, 0.3, K, &vn);
    double a = G * (sin(DEG30) - 0.3 * cos(DEG30));
    ck_assert_msg(fabs(v - K * h * a) <= 1e-6 * K * h * a, "sliding box: v = %.12g, expected %.12g",
                  v, K * h * a);
    ck_assert_double_eq_tol(vn, 0.0, 1e-8);
    /* mu = 0.8 > tan 30: it sticks */
    v = incline_run(1, 0.8, K, &vn);
    ck_assert_msg(fabs(v) <= 1e-8, "sticking box: v = %g", v);
    ck_assert_double_eq_tol(vn, 0.0, 1e-8);
}
END_TEST

START_TEST(sphere_rolls_on_incline)
{
    /* mu = 0.5 >= (2/7) tan 30: rolling without slip, a = 5/7 g sin 30 */
    int K = 50;
    double h = 0.01, vn;
    double v = incline_run(0, 0.5, K, &vn);
    double a = 5.0 / 7.0 * G * sin(DEG30);
    ck_assert_msg(fabs(v - K * h * a) <= 1e-6 * K * h * a, "rolling sphere: v = %.12g, expected %.12g",
                  v, K * h * a);
    /* mu = 0.1 < (2/7) tan 30 = 0.165: it slides, a = g (sin 30 - mu cos 30) */
    v = incline_run(0, 0.1, K, &vn);
    a = G * (sin(DEG30) - 0.1 * cos(DEG30));
    ck_assert_msg(fabs(v - K * h * a) <= 1e-6 * K * h * a, "slipping sphere: v = %.12g, expected %.12g",
                  v, K * h * a);
}
END_TEST

/* ---------- a PD-held pendulum ---------- */

START_TEST(pendulum_holds_target_against_gravity)
{
    double m = 1.0, L = 0.5, kp = 1000.0, kd = 50.0;
    mcb_link link;
    memset(&link, 0, sizeof link);
    strcpy(link.name, "arm");
    link.parent = -1;
    link.joint = MCB_JOINT_REVOLUTE;
    link.axis[0] = 1.0;
    link.placement = mcb_xform_identity();
    link.mass_kg = m;
    link.com[1] = L;
    link.inertia[0] = link.inertia[4] = link.inertia[8] = 1e-3;
    link.kp = kp;
    link.kd = kd;
    mcb_xform base = mcb_xform_identity();
    mcb_robot *R = NULL;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_robot_new("pendulum", 0, &base, &link, 1, &R, &err) == MCB_OK, "%s",
                  err.msg);
    mcb_world *w = new_world(0.01, 0.0);
    int first = -1;
    ck_assert_msg(mcb_world_add_robot(w, R, &first, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(first, 0);
    ck_assert_int_eq(mcb_world_ndof(w), 1);
    mcb_robot *r = mcb_world_robot(w, 0);
    for (int k = 0; k < 300; k++) {
        mcb_problem *P = NULL;
        step(w, &P, NULL);
        if (k == 0) {
            /* the gains enter A: A = H + h kd + h^2 kp */
            double H = m * L * L + 1e-3;
            ck_assert_double_eq_tol(P->A->x[0], H + 0.01 * kd + 1e-4 * kp, 1e-12);
            ck_assert_int_eq(P->nbodies, 1);
            ck_assert_int_eq(P->body_parent[0], -1);
            ck_assert_int_eq(P->body_sub[0], 0);
            mcb_problem_validate(P, "pendulum", &err);
        }
        mcb_problem_free(&P);
    }
    /* equilibrium: kp q = -m g L cos q (Newton), close to -m g L / kp */
    double q = 0.0;
    for (int it = 0; it < 50; it++) q -= (kp * q + m * G * L * cos(q)) / (kp - m * G * L * sin(q));
    double got = mcb_robot_q(r)[0];
    ck_assert_msg(fabs(got - q) <= 1e-8, "pendulum: q = %.12g, equilibrium %.12g", got, q);
    ck_assert_double_eq_tol(got, -m * G * L / kp, 0.01 * m * G * L / kp);
    ck_assert_double_eq_tol(mcb_robot_v(r)[0], 0.0, 1e-8);
    mcb_world_free(&w);
}
END_TEST

/* ---------- a floating robot behaves as the same rigid body ---------- */

/* A box of mass 2 kg with its centre of mass off the box centre, sliding on
 * the ground at 1 m/s with mu = 0.3: as a rigid body (frame at the centre of
 * mass) and as a one-link floating robot (frame at the box centre). Both
 * decelerate at mu g without turning. Returns the x velocity after K steps
 * and the largest angular speed seen. */
static double slide_run(int as_robot, int K, double *wmax, double *lam_err)
{
    double m = 2.0, c[3] = {0.02, -0.01, 0.01}, mu = 0.3, h = 0.01;
    double I[9] = {m * (0.04 + 0.01) / 12.0, 0, 0, 0, m * (0.04 + 0.01) / 12.0, 0, 0, 0,
                   m * (0.04 + 0.04) / 12.0};
    mcb_world *w = new_world(h, 0.0);
    add_shape(w, MCB_SHAPE_PLANE, -1, NULL, 0, 0, 0, mu);
    mcb_err err = {{0}};
    if (as_robot) {
        mcb_link link;
        memset(&link, 0, sizeof link);
        strcpy(link.name, "box");
        link.parent = -1;
        link.placement = mcb_xform_identity();
        link.mass_kg = m;
        memcpy(link.com, c, sizeof link.com);
        memcpy(link.inertia, I, sizeof I);
        mcb_robot *R = NULL;
        ck_assert_msg(mcb_robot_new("box", 1, NULL, &link, 1, &R, &err) == MCB_OK, "%s", err.msg);
        mcb_shape s;
        memset(&s, 0, sizeof s);
        s.type = MCB_SHAPE_BOX;
        s.body = 0;
        s.local = mcb_xform_identity();
        s.size[0] = s.size[1] = 0.1;
        s.size[2] = 0.05;
        s.mu = mu;
        ck_assert_msg(mcb_robot_add_shape(R, &s, &err) == MCB_OK, "%s", err.msg);
        mcb_robot_q(R)[2] = 0.05;
        mcb_robot_v(R)[0] = 1.0;
        mcb_robot_update(R);
        ck_assert_msg(mcb_world_add_robot(w, R, NULL, &err) == MCB_OK, "%s", err.msg);
    } else {
        mcb_rigid b = body_defaults(m, 0.0);
        memcpy(b.inertia, I, sizeof I);
        b.pos[0] = c[0];
        b.pos[1] = c[1];
        b.pos[2] = 0.05 + c[2];
        b.vel[0] = 1.0;
        int i = add_body(w, &b);
        mcb_xform X = mcb_xform_identity();
        for (int q = 0; q < 3; q++) X.p[q] = -c[q];
        add_shape(w, MCB_SHAPE_BOX, i, &X, 0.1, 0.1, 0.05, mu);
    }
    *wmax = 0.0;
    *lam_err = 0.0;
    for (int k = 0; k < K; k++) {
        mcb_problem *P = NULL;
        step(w, &P, NULL);
        check_recorded(P);
        double e = fabs(normal_impulse_sum(P) - m * G * h);
        *lam_err = e > *lam_err ? e : *lam_err;
        mcb_problem_free(&P);
        const double *v = as_robot ? mcb_robot_v(mcb_world_robot(w, 0)) : mcb_world_body(w, 0)->vel;
        double wn = mcb_v3_norm(v + 3);
        *wmax = wn > *wmax ? wn : *wmax;
    }
    double vx = as_robot ? mcb_robot_v(mcb_world_robot(w, 0))[0] : mcb_world_body(w, 0)->vel[0];
    mcb_world_free(&w);
    return vx;
}

START_TEST(floating_robot_slides_as_rigid_body)
{
    int K = 20;
    double expect = 1.0 - K * 0.01 * 0.3 * G, wmax, lerr;
    for (int as_robot = 0; as_robot < 2; as_robot++) {
        double vx = slide_run(as_robot, K, &wmax, &lerr);
        ck_assert_msg(fabs(vx - expect) <= 1e-7, "%s: v = %.12g after %d steps, expected %.12g",
                      as_robot ? "robot" : "rigid body", vx, K, expect);
        ck_assert_msg(wmax <= 1e-7, "%s: turned (|w| up to %g)", as_robot ? "robot" : "rigid body",
                      wmax);
        ck_assert_msg(lerr <= 1e-8, "%s: normal impulses off m g h by %g",
                      as_robot ? "robot" : "rigid body", lerr);
    }
}
END_TEST

/* ---------- a kinematic platform carries a box ---------- */

START_TEST(kinematic_platform_carries_box)
{
    mcb_world *w = new_world(0.01, 0.0);
    mcb_rigid p = body_defaults(1.0, 1.0);
    p.kinematic = 1;
    p.pos[2] = -0.05;
    p.vel[0] = 0.5;
    int ip = add_body(w, &p);
    add_shape(w, MCB_SHAPE_BOX, ip, NULL, 2.0, 2.0, 0.05, 0.8);
    /* the ground it slides on: its contacts join no DOF and are dropped */
    mcb_xform ground = mcb_xform_identity();
    ground.p[2] = -0.099; /* the platform sinks 1 mm into it */
    add_shape(w, MCB_SHAPE_PLANE, -1, &ground, 0, 0, 0, 0.8);
    mcb_rigid b = body_defaults(1.0, 1.0 * (0.04 + 0.01) / 12.0);
    b.inertia[8] = 1.0 * 0.08 / 12.0;
    b.pos[2] = 0.05;
    int ib = add_body(w, &b);
    add_shape(w, MCB_SHAPE_BOX, ib, NULL, 0.1, 0.1, 0.05, 0.8);
    ck_assert_int_eq(mcb_world_ndof(w), 6);
    for (int k = 0; k < 30; k++) {
        mcb_problem *P = NULL;
        step(w, &P, NULL);
        check_recorded(P);
        ck_assert_int_eq(P->n, 6);
        ck_assert_int_eq(P->nbodies, 2);
        /* accelerates at most mu g per second: v after k + 1 steps */
        double vmax = (k + 1) * 0.01 * 0.8 * G;
        ck_assert(mcb_world_body(w, ib)->vel[0] <= vmax + 1e-9);
        mcb_problem_free(&P);
    }
    ck_assert_double_eq_tol(mcb_world_body(w, ib)->vel[0], 0.5, 1e-8);
    ck_assert_double_eq_tol(mcb_world_body(w, ip)->pos[0], 30 * 0.01 * 0.5, 1e-12);
    ck_assert_double_eq_tol(mcb_world_body(w, ib)->pos[2], 0.05, 1e-6);
    mcb_world_free(&w);
}
END_TEST

/* A passive pendulum (hinge about x at height r) lying with the sphere at
 * its tip on the ground: at rest, the normal impulse balances gravity's
 * torque about the hinge, lambda_n L = m g h L_com (the contact acts on a
 * link through its Jacobian, J = Jc Jb; frictionless, so lambda is unique). */
START_TEST(passive_pendulum_rests_on_tip)
{
    double m = 0.8, Lc = 0.3, L = 0.5, r = 0.05, h = 0.01;
    mcb_link link;
    memset(&link, 0, sizeof link);
    strcpy(link.name, "bar");
    link.parent = -1;
    link.joint = MCB_JOINT_REVOLUTE;
    link.axis[0] = 1.0;
    link.placement = mcb_xform_identity();
    link.mass_kg = m;
    link.com[1] = Lc;
    link.inertia[0] = link.inertia[4] = link.inertia[8] = 2e-3;
    mcb_xform base = mcb_xform_identity();
    base.p[2] = r;
    mcb_robot *R = NULL;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_robot_new("bar", 0, &base, &link, 1, &R, &err) == MCB_OK, "%s", err.msg);
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = MCB_SHAPE_SPHERE;
    s.body = 0;
    s.local = mcb_xform_identity();
    s.local.p[1] = L;
    s.size[0] = r;
    s.mu = 0.0; /* frictionless tip: the contact point lies r below the hinge's
                   height, so friction would share the load (W has rank 1) */
    ck_assert_msg(mcb_robot_add_shape(R, &s, &err) == MCB_OK, "%s", err.msg);
    mcb_world *w = new_world(h, 0.0);
    add_shape(w, MCB_SHAPE_PLANE, -1, NULL, 0, 0, 0, 0.5);
    mcb_rigid b = body_defaults(0.1, 1e-4); /* a free sphere elsewhere: robot DOFs after it */
    b.pos[0] = 2.0;
    b.pos[2] = 0.05;
    add_shape(w, MCB_SHAPE_SPHERE, add_body(w, &b), NULL, 0.05, 0, 0, 0.5);
    int first = -1;
    ck_assert_msg(mcb_world_add_robot(w, R, &first, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(first, 1);
    for (int k = 0; k < 50; k++) {
        mcb_problem *P = NULL;
        step(w, &P, NULL);
        check_recorded(P);
        ck_assert_int_eq(P->nsub, 2);
        ck_assert_int_eq(P->n, 7);
        ck_assert_int_eq(P->body_sub[1], 1);
        double lam = 0.0;
        /* the robot's contact: the block whose row touches DOF 6 */
        for (int c = 0; c < P->nblocks; c++)
            for (int kk = P->J->p[6]; kk < P->J->p[7]; kk++)
                if (P->J->i[kk] == P->blocks[c].row) lam += P->lambda_ref[P->blocks[c].row];
        ck_assert_msg(fabs(lam - m * G * h * Lc / L) <= 1e-9, "step %d: lambda_n %.12g, expected %.12g",
                      k, lam, m * G * h * Lc / L);
        mcb_problem_free(&P);
    }
    ck_assert_double_eq_tol(mcb_robot_q(mcb_world_robot(w, 0))[0], 0.0, 1e-6);
    mcb_world_free(&w);
}
END_TEST

/* A two-link arm whose link shapes overlap at the joint: no self-contacts
 * (the world puts a robot's group-0 shapes in one group), and the body
 * tree is the link tree. */
START_TEST(robot_links_do_not_self_collide)
{
    mcb_link L[2];
    memset(L, 0, sizeof L);
    for (int k = 0; k < 2; k++) {
        L[k].parent = k - 1;
        L[k].joint = MCB_JOINT_REVOLUTE;
        L[k].axis[0] = 1.0;
        L[k].placement = mcb_xform_identity();
        L[k].mass_kg = 1.0;
        L[k].com[1] = 0.15;
        L[k].inertia[0] = L[k].inertia[4] = L[k].inertia[8] = 1e-2;
        L[k].kp = 500.0;
        L[k].kd = 20.0;
    }
    L[1].placement.p[1] = 0.3;
    mcb_xform base = mcb_xform_identity();
    base.p[2] = 1.0;
    mcb_robot *R = NULL;
    mcb_err err = {{0}};
    ck_assert_msg(mcb_robot_new("two", 0, &base, L, 2, &R, &err) == MCB_OK, "%s", err.msg);
    for (int k = 0; k < 2; k++) {
        mcb_shape s;
        memset(&s, 0, sizeof s);
        s.type = MCB_SHAPE_SPHERE;
        s.body = k;
        s.local = mcb_xform_identity();
        s.local.p[1] = k == 0 ? 0.25 : 0.0;
        s.size[0] = 0.1;
        s.mu = 0.5;
        ck_assert_msg(mcb_robot_add_shape(R, &s, &err) == MCB_OK, "%s", err.msg);
    }
    mcb_world *w = new_world(0.01, 0.0);
    add_shape(w, MCB_SHAPE_PLANE, -1, NULL, 0, 0, 0, 0.5);
    ck_assert_msg(mcb_world_add_robot(w, R, NULL, &err) == MCB_OK, "%s", err.msg);
    mcb_problem *P = NULL;
    mcb_step_info info;
    step(w, &P, &info);
    ck_assert_int_eq(info.contacts, 0);
    ck_assert_int_eq(P->nbodies, 2);
    ck_assert_int_eq(P->body_parent[0], -1);
    ck_assert_int_eq(P->body_parent[1], 0);
    ck_assert_int_eq(P->n, 2);
    ck_assert_int_eq(P->nsub, 1);
    mcb_problem_free(&P);
    mcb_world_free(&w);
}
END_TEST

/* ---------- descriptors ---------- */

START_TEST(mass_ratio_and_cond_estimate)
{
    mcb_world *w = new_world(0.01, 0.0);
    mcb_rigid b = body_defaults(1.0, 0.1);
    add_body(w, &b);
    b.mass_kg = 5.0;
    add_body(w, &b);
    b.mass_kg = 0.1;
    add_body(w, &b);
    b.mass_kg = 1000.0;
    b.kinematic = 1; /* excluded */
    add_body(w, &b);
    ck_assert_double_eq_tol(mcb_world_mass_ratio(w), 50.0, 1e-12);
    ck_assert_int_eq(mcb_world_ndof(w), 18);
    mcb_world_free(&w);

    /* A = diag(1, 2), J = [[1, 0], [0, 1], [1, 1]]: W = J A^-1 J^T has the
     * eigenvalues of A^-1/2 J^T J A^-1/2 = [[2, 1/sqrt2], [1/sqrt2, 1]] and 0 */
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_PRIMAL;
    P->n = 2;
    P->m = 3;
    int ai[] = {0, 1}, aj[] = {0, 1};
    double ax[] = {1.0, 2.0};
    P->A = mcb_csc_from_triplets(2, 2, 2, ai, aj, ax);
    int ji[] = {0, 1, 2, 2}, jj[] = {0, 1, 0, 1};
    double jx[] = {1, 1, 1, 1};
    P->J = mcb_csc_from_triplets(3, 2, 4, ji, jj, jx);
    double tr = 3.0, det = 2.0 - 0.5, disc = sqrt(tr * tr / 4 - det);
    double expect = (tr / 2 + disc) / (tr / 2 - disc);
    ck_assert_double_eq_tol(mcb_problem_cond_estimate(P), expect, 1e-9 * expect);
    ck_assert(mcb_problem_cond_estimate(P) == mcb_problem_cond_estimate(P));
    mcb_problem_free(&P);
    ck_assert(isnan(mcb_problem_cond_estimate(NULL)));
}
END_TEST

/* A large diagonal problem: the Lanczos estimate is exact on a spectrum of
 * few distinct values and within a few per cent on a graded one. */
START_TEST(cond_estimate_graded_spectrum)
{
    int n = 400;
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_PRIMAL;
    P->n = P->m = n;
    int *ii = malloc(n * sizeof(int));
    double *one = malloc(n * sizeof(double)), *d = malloc(n * sizeof(double));
    for (int k = 0; k < n; k++) {
        ii[k] = k;
        one[k] = 1.0;
        d[k] = 1.0 / (1.0 + 99.0 * k / (n - 1)); /* A^-1 eigenvalues 1 .. 1/100 */
    }
    P->A = mcb_csc_from_triplets(n, n, n, ii, ii, one);
    for (int k = 0; k < n; k++) one[k] = sqrt(d[k]);
    P->J = mcb_csc_from_triplets(n, n, n, ii, ii, one);
    double c = mcb_problem_cond_estimate(P);
    ck_assert_msg(c > 0.95 * 100.0 && c <= 100.0 * (1 + 1e-9), "cond estimate %g, expected 100", c);
    free(ii);
    free(one);
    free(d);
    mcb_problem_free(&P);
}
END_TEST

/* ---------- determinism and errors ---------- */

static int csc_same(const mcb_csc *a, const mcb_csc *b)
{
    if (!a || !b) return a == b;
    if (a->m != b->m || a->n != b->n) return 0;
    int nz = a->p[a->n];
    return !memcmp(a->p, b->p, (a->n + 1) * sizeof(int)) && nz == b->p[b->n] &&
           !memcmp(a->i, b->i, nz * sizeof(int)) && !memcmp(a->x, b->x, nz * sizeof(double));
}

static int vec_same(const double *a, const double *b, int n)
{
    if (!a || !b) return a == b;
    return !memcmp(a, b, (size_t)n * sizeof(double));
}

START_TEST(identical_runs_identical_problems)
{
    mcb_world *w1 = box_on_ground(0.5), *w2 = box_on_ground(0.5);
    /* give it something to do: a push and a spin */
    mcb_world_body(w1, 0)->vel[0] = mcb_world_body(w2, 0)->vel[0] = 0.4;
    mcb_world_body(w1, 0)->vel[5] = mcb_world_body(w2, 0)->vel[5] = 1.0;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_world_describe(w1, "det", "test", "unit", "n", &err), MCB_OK);
    ck_assert_int_eq(mcb_world_describe(w2, "det", "test", "unit", "n", &err), MCB_OK);
    for (int k = 0; k < 30; k++) {
        mcb_problem *a = NULL, *b = NULL;
        step(w1, &a, NULL);
        step(w2, &b, NULL);
        ck_assert_str_eq(a->name, b->name);
        ck_assert_str_eq(a->notes, b->notes);
        ck_assert_str_eq(a->scene, "test");
        ck_assert(csc_same(a->A, b->A) && csc_same(a->J, b->J) && csc_same(a->Jc, b->Jc) &&
                  csc_same(a->Jb, b->Jb));
        ck_assert(vec_same(a->b, b->b, a->n) && vec_same(a->e, b->e, a->m) &&
                  vec_same(a->v_ref, b->v_ref, a->n) && vec_same(a->lambda_ref, b->lambda_ref, a->m) &&
                  vec_same(a->v0, b->v0, a->n) && vec_same(a->lambda0, b->lambda0, a->m));
        ck_assert(!memcmp(&a->cond_est, &b->cond_est, sizeof(double)));
        check_recorded(a);
        mcb_problem_free(&a);
        mcb_problem_free(&b);
    }
    mcb_world_free(&w1);
    mcb_world_free(&w2);
}
END_TEST

START_TEST(bad_input_is_refused)
{
    mcb_world_opts o;
    mcb_world_defaults(&o);
    mcb_world *w = NULL;
    mcb_err err = {{0}};
    o.h_s = 0.0;
    ck_assert_int_eq(mcb_world_new(&o, &w, &err), MCB_E_INPUT);
    ck_assert_ptr_null(w);
    mcb_world_defaults(&o);
    o.theta = 1.0;
    ck_assert_int_eq(mcb_world_new(&o, &w, &err), MCB_E_INPUT);
    mcb_world_defaults(&o);
    o.solver = "no-such-solver";
    ck_assert_int_eq(mcb_world_new(&o, &w, &err), MCB_E_INPUT);
    ck_assert(strstr(err.msg, "no-such-solver") != NULL);
    w = new_world(0.01, 0.0);
    mcb_rigid b = body_defaults(-1.0, 0.1);
    ck_assert_int_eq(mcb_world_add_body(w, &b, NULL, &err), MCB_E_INPUT);
    b = body_defaults(1.0, 0.1);
    b.inertia[1] = 5.0; /* not symmetric */
    ck_assert_int_eq(mcb_world_add_body(w, &b, NULL, &err), MCB_E_INPUT);
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = MCB_SHAPE_SPHERE;
    s.body = 3; /* no such body */
    ck_assert_int_eq(mcb_world_add_shape(w, &s, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_world_nbodies(w), 0);
    /* an empty world steps (nothing to do) */
    mcb_problem *P = NULL;
    step(w, &P, NULL);
    ck_assert_int_eq(P->n, 0);
    mcb_problem_free(&P);
    mcb_world_free(&w);
    mcb_world_free(NULL);
}
END_TEST

/* When neither solver reaches 100 tol the step fails and nothing moves. */
START_TEST(failed_step_changes_nothing)
{
    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.max_iters = 1;
    o.tol = 1e-15;
    o.fallback = "";
    mcb_world *w = NULL;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_world_new(&o, &w, &err), MCB_OK);
    add_shape(w, MCB_SHAPE_PLANE, -1, NULL, 0, 0, 0, 0.5);
    mcb_rigid b = body_defaults(1.0, 0.01);
    b.pos[2] = 0.09; /* penetrating by 1 cm, sliding */
    b.vel[0] = 1.0;
    b.vel[4] = 3.0;
    int i = add_body(w, &b);
    add_shape(w, MCB_SHAPE_BOX, i, NULL, 0.1, 0.1, 0.1, 0.5);
    mcb_rigid before = *mcb_world_body(w, 0);
    mcb_problem *P = (mcb_problem *)&err; /* must be reset to NULL */
    mcb_step_info info;
    ck_assert_int_eq(mcb_world_step(w, &P, &info, &err), MCB_E_NUMERIC);
    ck_assert_ptr_null(P);
    ck_assert(strstr(err.msg, "pgs") != NULL);
    ck_assert(!memcmp(&before, mcb_world_body(w, 0), sizeof before));
    mcb_world_free(&w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scene_step");
    TCase *tc = tcase_create("known answers");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, free_fall_closed_form, 0, 2);
    tcase_add_test(tc, box_rests_on_ground);
    tcase_add_test(tc, box_slides_or_sticks_on_incline);
    tcase_add_test(tc, sphere_rolls_on_incline);
    tcase_add_test(tc, pendulum_holds_target_against_gravity);
    tcase_add_test(tc, floating_robot_slides_as_rigid_body);
    tcase_add_test(tc, kinematic_platform_carries_box);
    tcase_add_test(tc, passive_pendulum_rests_on_tip);
    tcase_add_test(tc, robot_links_do_not_self_collide);
    tcase_add_test(tc, mass_ratio_and_cond_estimate);
    tcase_add_test(tc, cond_estimate_graded_spectrum);
    tcase_add_test(tc, identical_runs_identical_problems);
    tcase_add_test(tc, bad_input_is_refused);
    tcase_add_test(tc, failed_step_changes_nothing);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

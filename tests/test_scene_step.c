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

#include "mcb_problem.h"
#include "world.h"

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
    tcase_add_test(tc, mass_ratio_and_cond_estimate);
    tcase_add_test(tc, cond_estimate_graded_spectrum);
    tcase_add_test(tc, identical_runs_identical_problems);
    tcase_add_test(tc, bad_input_is_refused);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

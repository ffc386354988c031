/* test_scene_dyn.c: known-answer tests of the articulated-robot dynamics
 * (problems/scene/articulated.c, robot_models.c): the 2-link planar arm's mass matrix
 * in closed form; CRBA against the brute-force sum over links of
 * J_k^T M_k J_k on random trees (fixed seed; revolute, prismatic and fixed
 * joints; fixed and floating base); RNEA's linearity in the acceleration
 * (RNEA(a) - RNEA(0) = H a); RNEA's gravity torques against a finite
 * difference of the potential energy; RNEA's velocity terms against the
 * Lagrangian (fixed base) and the energy balance v^T c = v^T dH/dt v / 2
 * (floating base); link Jacobians against finite differences of forward
 * kinematics; the floating base block of H (m 1 and -m [c - p]x);
 * quaternion integration; and the built-in robots (DOF counts, H symmetric
 * positive definite, documented total masses and PD gains, the Panda's
 * flange at Franka's ready pose). */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/articulated.h"
#include "problems/scene/robot_models.h"

#define NMAX 64

/* total masses of the built-in robots (docs/robots.md) */
#define MCB_TEST_ARM7_KG 16.792132 /* Panda links 1-7 (Gaz et al. 2019) + 0.73 hand */
#define MCB_TEST_QUAD_KG 25.433    /* Laikago: 13.733 + 4 x (1.096 + 1.528 + 0.241 + 0.06) */
#define MCB_TEST_DUAL_KG 16.184    /* G1 torso 7.818 + 2 x (arm 3.518 + hand 0.665) */
#define MCB_TEST_GRIP_KG 0.6       /* palm 0.5 + 2 x 0.05 */

/* ---- helpers ---- */

static void random_rotation(mcb_rng *g, double R[9])
{
    double q[4], n = 0;
    for (int i = 0; i < 4; i++) q[i] = mcb_rng_normal(g), n += q[i] * q[i];
    for (int i = 0; i < 4; i++) q[i] /= sqrt(n);
    mcb_quat_to_mat(q, R);
}

/* A random tree of n links: parents, joint types, axes, placements,
 * masses, centres of mass and inertias all from the seed. */
static mcb_robot *random_robot(unsigned long long seed, int floating, int n)
{
    mcb_rng g;
    mcb_rng_seed(&g, seed);
    mcb_link L[NMAX];
    memset(L, 0, sizeof L);
    for (int k = 0; k < n; k++) {
        mcb_link *l = &L[k];
        snprintf(l->name, sizeof l->name, "l%d", k);
        if (k == 0) l->parent = -1;
        else if (floating) l->parent = (int)(mcb_rng_uniform(&g) * k);
        else l->parent = (int)(mcb_rng_uniform(&g) * (k + 1)) - 1;
        double u = mcb_rng_uniform(&g);
        l->joint = u < 0.6 ? MCB_JOINT_REVOLUTE : u < 0.85 ? MCB_JOINT_PRISMATIC : MCB_JOINT_FIXED;
        for (int i = 0; i < 3; i++) l->axis[i] = mcb_rng_normal(&g);
        random_rotation(&g, l->placement.R);
        for (int i = 0; i < 3; i++) l->placement.p[i] = 0.4 * (mcb_rng_uniform(&g) - 0.5);
        l->mass_kg = 0.5 + 2 * mcb_rng_uniform(&g);
        for (int i = 0; i < 3; i++) l->com[i] = 0.2 * (mcb_rng_uniform(&g) - 0.5);
        double D[9] = {0}, R[9];
        for (int i = 0; i < 3; i++) D[4 * i] = 0.01 + 0.05 * mcb_rng_uniform(&g);
        random_rotation(&g, R);
        mcb_m3_rotate_sym(R, D, l->inertia);
    }
    mcb_robot *r = NULL;
    mcb_xform base = mcb_xform_identity();
    base.p[0] = 0.3, base.p[1] = -0.2, base.p[2] = 0.5;
    mcb_err err;
    ck_assert_msg(mcb_robot_new("random", floating, &base, L, n, &r, &err) == MCB_OK, "%s",
                  err.msg);
    /* a random state */
    double *q = mcb_robot_q(r), *v = mcb_robot_v(r);
    int nq = mcb_robot_nq(r), nv = mcb_robot_ndof(r);
    for (int i = 0; i < nq; i++) q[i] = 2 * mcb_rng_uniform(&g) - 1;
    if (floating) {
        double s = 0;
        for (int i = 3; i < 7; i++) s += q[i] * q[i];
        for (int i = 3; i < 7; i++) q[i] /= sqrt(s);
    }
    for (int i = 0; i < nv; i++) v[i] = 2 * mcb_rng_uniform(&g) - 1;
    mcb_robot_update(r);
    return r;
}

static double max_abs_diff(const double *a, const double *b, int n)
{
    double d = 0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i] - b[i]));
    return d;
}

static double max_abs(const double *a, int n)
{
    double d = 0;
    for (int i = 0; i < n; i++) d = fmax(d, fabs(a[i]));
    return d;
}

/* H by brute force: sum over links of J_c^T M J_c with J_c the twist
 * Jacobian at the link's centre of mass and M = diag(m 1, I_world). */
static void brute_force_H(mcb_robot *r, double *H)
{
    int n = mcb_robot_ndof(r);
    double *J = calloc(6 * (size_t)n, sizeof *J);
    memset(H, 0, (size_t)n * n * sizeof *H);
    for (int k = 0; k < mcb_robot_nlinks(r); k++) {
        const mcb_link *l = mcb_robot_link(r, k);
        const mcb_xform *X = mcb_robot_link_pose(r, k);
        mcb_robot_link_jacobian(r, k, J);
        double c[3], d[3], Iw[9];
        mcb_xform_point(X, l->com, c);
        for (int i = 0; i < 3; i++) d[i] = c[i] - X->p[i];
        mcb_m3_rotate_sym(X->R, l->inertia, Iw);
        for (int j = 0; j < n; j++) { /* move the linear rows to the com */
            double *col = J + 6 * j, wd[3];
            mcb_v3_cross(col + 3, d, wd);
            for (int i = 0; i < 3; i++) col[i] += wd[i];
        }
        for (int a = 0; a < n; a++)
            for (int b = 0; b < n; b++) {
                const double *ja = J + 6 * a, *jb = J + 6 * b;
                double s = l->mass_kg * (ja[0] * jb[0] + ja[1] * jb[1] + ja[2] * jb[2]), t[3];
                mcb_m3_vec(Iw, jb + 3, t);
                s += ja[3] * t[0] + ja[4] * t[1] + ja[5] * t[2];
                H[a + b * n] += s;
            }
    }
    free(J);
}

/* Gravitational potential energy -sum m g . c */
static double potential(mcb_robot *r, const double g[3])
{
    double U = 0;
    for (int k = 0; k < mcb_robot_nlinks(r); k++) {
        const mcb_link *l = mcb_robot_link(r, k);
        double c[3];
        mcb_xform_point(mcb_robot_link_pose(r, k), l->com, c);
        U -= l->mass_kg * mcb_v3_dot(g, c);
    }
    return U;
}

/* Moves q to q (+) h dir (integrate along a velocity direction) from q0. */
static void move(mcb_robot *r, const double *q0, const double *dir, double h)
{
    memcpy(mcb_robot_q(r), q0, (size_t)mcb_robot_nq(r) * sizeof *q0);
    mcb_robot_integrate(r, dir, h);
}

static int cholesky_ok(const double *H, int n)
{
    double *L = malloc((size_t)n * n * sizeof *L);
    memcpy(L, H, (size_t)n * n * sizeof *L);
    int ok = 1;
    for (int j = 0; j < n && ok; j++) {
        double d = L[j + j * n];
        for (int k = 0; k < j; k++) d -= L[j + k * n] * L[j + k * n];
        if (!(d > 0)) {
            ok = 0;
            break;
        }
        d = sqrt(d);
        L[j + j * n] = d;
        for (int i = j + 1; i < n; i++) {
            double s = L[i + j * n];
            for (int k = 0; k < j; k++) s -= L[i + k * n] * L[j + k * n];
            L[i + j * n] = s / d;
        }
    }
    free(L);
    return ok;
}

/* ---- tests ---- */

START_TEST(planar_two_link_closed_form)
{
    /* two links in the xy plane, joints about z; link 1 of length l1 to
     * joint 2; centres of mass lc1, lc2 along each link's x */
    const double m1 = 1.3, m2 = 0.7, l1 = 0.5, lc1 = 0.2, lc2 = 0.3, I1 = 0.04, I2 = 0.02;
    mcb_link L[2];
    memset(L, 0, sizeof L);
    for (int k = 0; k < 2; k++) {
        L[k].parent = k - 1;
        L[k].joint = MCB_JOINT_REVOLUTE;
        L[k].axis[2] = 1;
        L[k].placement = mcb_xform_identity();
        L[k].inertia[0] = L[k].inertia[4] = 0.01; /* off-plane terms do not matter */
    }
    L[1].placement.p[0] = l1;
    L[0].mass_kg = m1, L[0].com[0] = lc1, L[0].inertia[8] = I1;
    L[1].mass_kg = m2, L[1].com[0] = lc2, L[1].inertia[8] = I2;
    mcb_robot *r = NULL;
    ck_assert_int_eq(mcb_robot_new("planar2", 0, NULL, L, 2, &r, NULL), MCB_OK);
    ck_assert_int_eq(mcb_robot_ndof(r), 2);
    const double qs[3][2] = {{0, 0}, {0.3, 0.7}, {-1.1, 2.5}};
    for (int t = 0; t < 3; t++) {
        mcb_robot_q(r)[0] = qs[t][0], mcb_robot_q(r)[1] = qs[t][1];
        mcb_robot_update(r);
        double H[4], c2 = cos(qs[t][1]);
        mcb_robot_crba(r, H);
        double h11 = I1 + I2 + m1 * lc1 * lc1 + m2 * (l1 * l1 + lc2 * lc2 + 2 * l1 * lc2 * c2);
        double h12 = I2 + m2 * (lc2 * lc2 + l1 * lc2 * c2), h22 = I2 + m2 * lc2 * lc2;
        ck_assert_double_eq_tol(H[0], h11, 1e-14);
        ck_assert_double_eq_tol(H[1], h12, 1e-14);
        ck_assert_double_eq_tol(H[2], h12, 1e-14);
        ck_assert_double_eq_tol(H[3], h22, 1e-14);
        /* gravity along -y: tau = [g (m1 lc1 + m2 l1) c1 + g m2 lc2 c12; g m2 lc2 c12] */
        double g[3] = {0, -9.81, 0}, tau[2], c1 = cos(qs[t][0]), c12 = cos(qs[t][0] + qs[t][1]);
        mcb_robot_v(r)[0] = mcb_robot_v(r)[1] = 0;
        mcb_robot_rnea(r, NULL, g, tau);
        ck_assert_double_eq_tol(tau[0], 9.81 * ((m1 * lc1 + m2 * l1) * c1 + m2 * lc2 * c12), 1e-13);
        ck_assert_double_eq_tol(tau[1], 9.81 * m2 * lc2 * c12, 1e-13);
    }
    mcb_robot_free(&r);
}
END_TEST

START_TEST(crba_equals_brute_force)
{
    /* _i: 0..3 -> floating = _i & 1, seed differs */
    int floating = _i & 1;
    mcb_robot *r = random_robot(1000 + (unsigned)_i, floating, 12);
    int n = mcb_robot_ndof(r);
    double *H = malloc((size_t)n * n * sizeof *H), *B = malloc((size_t)n * n * sizeof *B);
    mcb_robot_crba(r, H);
    brute_force_H(r, B);
    double scale = max_abs(B, n * n);
    ck_assert_msg(max_abs_diff(H, B, n * n) <= 1e-12 * scale,
                  "CRBA vs sum J^T M J: max diff %g (scale %g), floating %d",
                  max_abs_diff(H, B, n * n), scale, floating);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) ck_assert_double_eq(H[i + j * n], H[j + i * n]);
    ck_assert(cholesky_ok(H, n));
    if (floating) {
        /* base block: momentum m (v_p + w x (c - p)), so H_vv = m 1 and
         * H_vw = -m [c - p]x with c the centre of mass, p the base origin */
        double m = mcb_robot_total_mass(r), c[3] = {0, 0, 0};
        for (int k = 0; k < mcb_robot_nlinks(r); k++) {
            const mcb_link *l = mcb_robot_link(r, k);
            double ck[3];
            mcb_xform_point(mcb_robot_link_pose(r, k), l->com, ck);
            for (int i = 0; i < 3; i++) c[i] += l->mass_kg * ck[i] / m;
        }
        const double *p = mcb_robot_link_pose(r, 0)->p;
        double d[3] = {c[0] - p[0], c[1] - p[1], c[2] - p[2]};
        double X[9] = {0, -d[2], d[1], d[2], 0, -d[0], -d[1], d[0], 0}; /* [d]x */
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                ck_assert_double_eq_tol(H[i + j * n], (i == j) * m, 1e-13 * m);
                ck_assert_double_eq_tol(H[i + (3 + j) * n], -m * X[3 * i + j], 1e-12 * m);
            }
    }
    free(H), free(B);
    mcb_robot_free(&r);
}
END_TEST

START_TEST(rnea_difference_is_H_a)
{
    int floating = _i & 1;
    mcb_robot *r = random_robot(2000 + (unsigned)_i, floating, 12);
    int n = mcb_robot_ndof(r);
    mcb_rng g;
    mcb_rng_seed(&g, 77 + (unsigned)_i);
    double a[NMAX], t1[NMAX], t0[NMAX], Ha[NMAX], H[NMAX * NMAX], grav[3] = {0.3, -0.5, -9.81};
    for (int i = 0; i < n; i++) a[i] = 2 * mcb_rng_uniform(&g) - 1;
    mcb_robot_rnea(r, a, grav, t1);
    mcb_robot_rnea(r, NULL, grav, t0);
    mcb_robot_crba(r, H);
    for (int i = 0; i < n; i++) {
        Ha[i] = 0;
        for (int j = 0; j < n; j++) Ha[i] += H[i + j * n] * a[j];
        t1[i] -= t0[i];
    }
    ck_assert_msg(max_abs_diff(t1, Ha, n) <= 1e-11 * (1 + max_abs(Ha, n)), "max diff %g",
                  max_abs_diff(t1, Ha, n));
    mcb_robot_free(&r);
}
END_TEST

START_TEST(rnea_gravity_is_potential_gradient)
{
    int floating = _i & 1;
    mcb_robot *r = random_robot(3000 + (unsigned)_i, floating, 10);
    int n = mcb_robot_ndof(r), nq = mcb_robot_nq(r);
    double grav[3] = {1.0, 2.0, -9.81}, tau[NMAX], q0[NMAX], dir[NMAX], eps = 1e-6;
    memset(mcb_robot_v(r), 0, (size_t)n * sizeof(double));
    mcb_robot_rnea(r, NULL, grav, tau);
    memcpy(q0, mcb_robot_q(r), (size_t)nq * sizeof *q0);
    for (int i = 0; i < n; i++) {
        memset(dir, 0, sizeof dir);
        dir[i] = 1;
        move(r, q0, dir, eps);
        double up = potential(r, grav);
        move(r, q0, dir, -eps);
        double um = potential(r, grav);
        double fd = (up - um) / (2 * eps);
        ck_assert_msg(fabs(fd - tau[i]) <= 1e-6 * (1 + fabs(fd)), "dof %d: tau %g, dU/dq %g", i,
                      tau[i], fd);
    }
    mcb_robot_free(&r);
}
END_TEST

START_TEST(rnea_velocity_terms)
{
    /* g = 0, a = 0: c(q, v). Fixed base: Lagrange's equations give
     * c = dH/dt v - (1/2) d(v^T H v)/dq. Floating base (quasi-velocities):
     * the energy balance v^T c = (1/2) v^T dH/dt v. */
    int floating = _i & 1;
    mcb_robot *r = random_robot(4000 + (unsigned)_i, floating, 10);
    int n = mcb_robot_ndof(r), nq = mcb_robot_nq(r);
    double g0[3] = {0, 0, 0}, c[NMAX], q0[NMAX], v[NMAX], dir[NMAX], eps = 1e-6;
    static double Hp[NMAX * NMAX], Hm[NMAX * NMAX];
    mcb_robot_rnea(r, NULL, g0, c);
    memcpy(q0, mcb_robot_q(r), (size_t)nq * sizeof *q0);
    memcpy(v, mcb_robot_v(r), (size_t)n * sizeof *v);
    move(r, q0, v, eps);
    mcb_robot_crba(r, Hp);
    move(r, q0, v, -eps);
    mcb_robot_crba(r, Hm);
    double Hdv[NMAX], vHdv = 0, vc = 0;
    for (int i = 0; i < n; i++) {
        Hdv[i] = 0;
        for (int j = 0; j < n; j++) Hdv[i] += (Hp[i + j * n] - Hm[i + j * n]) / (2 * eps) * v[j];
        vHdv += v[i] * Hdv[i];
        vc += v[i] * c[i];
    }
    ck_assert_msg(fabs(vc - 0.5 * vHdv) <= 1e-6 * (1 + fabs(vc)), "v^T c %g, v^T dH/dt v / 2 %g",
                  vc, 0.5 * vHdv);
    if (!floating) {
        for (int k = 0; k < n; k++) {
            memset(dir, 0, sizeof dir);
            dir[k] = 1;
            double T[2];
            for (int s = 0; s < 2; s++) {
                move(r, q0, dir, s ? -eps : eps);
                mcb_robot_crba(r, Hp);
                T[s] = 0;
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < n; j++) T[s] += v[i] * Hp[i + j * n] * v[j];
            }
            double expect = Hdv[k] - 0.5 * (T[0] - T[1]) / (2 * eps);
            ck_assert_msg(fabs(c[k] - expect) <= 1e-6 * (1 + fabs(expect)),
                          "dof %d: c %g, Lagrange %g", k, c[k], expect);
        }
    }
    mcb_robot_free(&r);
}
END_TEST

START_TEST(jacobian_matches_finite_differences)
{
    int floating = _i & 1;
    mcb_robot *r = random_robot(5000 + (unsigned)_i, floating, 10);
    int n = mcb_robot_ndof(r), nq = mcb_robot_nq(r), nl = mcb_robot_nlinks(r);
    double q0[NMAX], dir[NMAX], J[6 * NMAX], eps = 1e-6;
    memcpy(q0, mcb_robot_q(r), (size_t)nq * sizeof *q0);
    for (int k = 0; k < nl; k++) {
        move(r, q0, dir, 0.0);
        mcb_robot_link_jacobian(r, k, J);
        for (int i = 0; i < n; i++) {
            memset(dir, 0, sizeof dir);
            dir[i] = 1;
            move(r, q0, dir, eps);
            mcb_xform Xp = *mcb_robot_link_pose(r, k);
            move(r, q0, dir, -eps);
            mcb_xform Xm = *mcb_robot_link_pose(r, k);
            double M[9], fd[6];
            for (int j = 0; j < 3; j++) fd[j] = (Xp.p[j] - Xm.p[j]) / (2 * eps);
            /* Rp Rm^T = exp(2 eps [w]) */
            double Rmt[9];
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++) Rmt[3 * a + b] = Xm.R[3 * b + a];
            mcb_m3_mul(Xp.R, Rmt, M);
            fd[3] = (M[7] - M[5]) / (4 * eps);
            fd[4] = (M[2] - M[6]) / (4 * eps);
            fd[5] = (M[3] - M[1]) / (4 * eps);
            ck_assert_msg(max_abs_diff(fd, J + 6 * i, 6) <= 1e-7, "link %d dof %d: diff %g", k, i,
                          max_abs_diff(fd, J + 6 * i, 6));
        }
        memset(dir, 0, sizeof dir);
    }
    mcb_robot_free(&r);
}
END_TEST

START_TEST(floating_integration_keeps_unit_quaternion)
{
    mcb_robot *r = random_robot(6000, 1, 4);
    double *q = mcb_robot_q(r), v[NMAX] = {0}, p0[3], h = 1e-3;
    int n = mcb_robot_ndof(r);
    memcpy(p0, q, sizeof p0);
    const double w[3] = {3.0, -2.0, 5.0}, vl[3] = {0.5, -1.0, 2.0};
    for (int i = 0; i < 3; i++) v[i] = vl[i], v[3 + i] = w[i];
    for (int i = 6; i < n; i++) v[i] = 0.1 * i;
    const double *R0 = mcb_robot_link_pose(r, 0)->R;
    double Rstart[9];
    memcpy(Rstart, R0, sizeof Rstart);
    for (int s = 0; s < 1000; s++) mcb_robot_integrate(r, v, h);
    double nq = sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]);
    ck_assert_double_eq_tol(nq, 1.0, 1e-13);
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(q[i], p0[i] + vl[i], 1e-12);
    /* a constant world angular velocity w for 1 s: R = exp([w]) R_start */
    double e[4], E[9], Rexp[9];
    mcb_quat_from_axis_angle(w, mcb_v3_norm(w), e);
    mcb_quat_to_mat(e, E);
    mcb_m3_mul(E, Rstart, Rexp);
    ck_assert_double_le(max_abs_diff(Rexp, mcb_robot_link_pose(r, 0)->R, 9), 1e-10);
    mcb_robot_free(&r);
}
END_TEST

/* The Panda's links carry Franka Robotics' published inertials
 * (franka_description, Gaz et al.'s identification): spot values of the
 * published tables (link 1's ixx and iyz, link 4's ixy, link 7's izz, link
 * 1's centre of mass), and every tensor symmetric, positive definite and
 * physically feasible (each principal moment at most the sum of the other
 * two, checked on the diagonal and by the trace rule 2 max(I_kk) <= tr I). */
START_TEST(panda_published_inertials)
{
    mcb_robot *r = NULL;
    mcb_err err;
    mcb_xform base = mcb_xform_identity();
    ck_assert_int_eq(mcb_robot_arm7(&base, &r, &err), MCB_OK);
    const mcb_link *l1 = mcb_robot_link(r, 0), *l4 = mcb_robot_link(r, 3), *l7 = mcb_robot_link(r, 6);
    ck_assert_double_eq(l1->inertia[0], 0.70337);
    ck_assert_double_eq(l1->inertia[5], 0.019169);
    ck_assert_double_eq(l1->inertia[7], 0.019169);
    ck_assert_double_eq(l4->inertia[1], 0.007796);
    ck_assert_double_eq(l7->inertia[8], 0.004815);
    ck_assert_double_eq(l1->com[2], -0.04762);
    ck_assert_double_eq(l1->mass_kg, 4.970684);
    for (int k = 0; k < 7; k++) {
        const double *I = mcb_robot_link(r, k)->inertia;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) ck_assert_double_eq(I[3 * i + j], I[3 * j + i]);
        double tr = I[0] + I[4] + I[8];
        for (int i = 0; i < 3; i++) ck_assert_double_le(2 * I[4 * i], tr);
        ck_assert_msg(cholesky_ok(I, 3), "link %d: inertia not positive definite", k + 1);
    }
    mcb_robot_free(&r);
}
END_TEST

/* The built-in robots: DOF counts, H symmetric positive definite at two
 * configurations, total masses as docs/robots.md states. */
START_TEST(builtin_robots)
{
    /* _i: 0 arm7, 1 quadruped, 2 dual arm, 3 gripper */
    static const int ndof[4] = {7, 18, 28, 2};
    static const double mass_kg[4] = {MCB_TEST_ARM7_KG, MCB_TEST_QUAD_KG, MCB_TEST_DUAL_KG,
                                      MCB_TEST_GRIP_KG};
    mcb_robot *r = NULL;
    mcb_err err;
    mcb_xform base = mcb_xform_identity();
    mcb_rc rc = _i == 0   ? mcb_robot_arm7(&base, &r, &err)
                : _i == 1 ? mcb_robot_quadruped(&r, &err)
                : _i == 2 ? mcb_robot_dual_arm(&base, &r, &err)
                          : mcb_robot_gripper2(&base, &r, &err);
    ck_assert_msg(rc == MCB_OK, "%s", err.msg);
    int n = mcb_robot_ndof(r);
    ck_assert_int_eq(n, ndof[_i]);
    ck_assert_double_eq_tol(mcb_robot_total_mass(r), mass_kg[_i], 1e-9);
    int ns = 0;
    mcb_robot_shapes(r, &ns);
    ck_assert_int_gt(ns, 0);
    static double H[NMAX * NMAX];
    mcb_rng g;
    mcb_rng_seed(&g, 99);
    for (int t = 0; t < 2; t++) {
        if (t) /* a random joint configuration */
            for (int k = 0; k < mcb_robot_nlinks(r); k++) {
                int d = mcb_robot_dof_of_link(r, k);
                if (d < 0) continue;
                int qi = d + (mcb_robot_floating(r) ? 1 : 0);
                const mcb_link *l = mcb_robot_link(r, k);
                mcb_robot_q(r)[qi] = (l->joint == MCB_JOINT_PRISMATIC ? 0.01 : 0.5) *
                                     (2 * mcb_rng_uniform(&g) - 1);
            }
        mcb_robot_update(r);
        mcb_robot_crba(r, H);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) ck_assert_double_eq(H[i + j * n], H[j + i * n]);
        ck_assert_msg(cholesky_ok(H, n), "%s: H not positive definite", mcb_robot_name(r));
    }
    /* PD gains at the nominal pose (q = q_ref): kp = max(omega^2 H_jj, floor),
     * kd = 2 sqrt(kp H_jj) (docs/robots.md) */
    const double omega = _i == 1 ? 100.0 : 200.0;
    for (int k = 0, j = 0; k < mcb_robot_nlinks(r); k++) {
        int d = mcb_robot_dof_of_link(r, k);
        if (d >= 0) mcb_robot_q(r)[d + (mcb_robot_floating(r) ? 1 : 0)] = mcb_robot_q_ref(r)[j++];
    }
    mcb_robot_update(r);
    mcb_robot_crba(r, H);
    for (int k = 0; k < mcb_robot_nlinks(r); k++) {
        int d = mcb_robot_dof_of_link(r, k);
        if (d < 0) continue;
        const mcb_link *l = mcb_robot_link(r, k);
        double Hjj = H[d + d * n], fl = l->joint == MCB_JOINT_PRISMATIC ? 5000.0 : 100.0;
        double kp = fmax(omega * omega * Hjj, fl);
        ck_assert_double_eq_tol(l->kp, kp, 1e-9 * kp);
        ck_assert_double_eq_tol(l->kd, 2 * sqrt(kp * Hjj), 1e-9 * l->kd);
    }
    if (_i == 0) {
        /* Franka's ready pose: the flange (hand frame) at (0.307, 0, 0.590) m,
         * the tool centre point 0.1034 m below at z = 0.487 m */
        const mcb_xform *X = mcb_robot_link_pose(r, 7);
        ck_assert_double_eq_tol(X->p[0], 0.307, 1e-3);
        ck_assert_double_eq_tol(X->p[1], 0.0, 1e-9);
        ck_assert_double_eq_tol(X->p[2] - 0.1034, 0.487, 1e-3);
        ck_assert_double_eq_tol(X->R[8], -1.0, 1e-9); /* hand z points down */
    }
    mcb_robot_free(&r);
}
END_TEST

START_TEST(bad_input_is_rejected)
{
    mcb_link L[2];
    memset(L, 0, sizeof L);
    L[0].parent = -1, L[0].joint = MCB_JOINT_REVOLUTE, L[0].mass_kg = 1;
    L[1].parent = 1, L[1].joint = MCB_JOINT_REVOLUTE, L[1].axis[2] = 1, L[1].mass_kg = 1;
    mcb_robot *r = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_robot_new("bad", 0, NULL, L, 2, &r, &err), MCB_E_INPUT); /* zero axis */
    L[0].axis[0] = 1;
    ck_assert_int_eq(mcb_robot_new("bad", 0, NULL, L, 2, &r, &err), MCB_E_INPUT); /* parent */
    ck_assert_ptr_null(r);
    L[1].parent = 0;
    L[1].inertia[4] = NAN;
    ck_assert_int_eq(mcb_robot_new("bad", 0, NULL, L, 2, &r, &err), MCB_E_INPUT);
    L[1].inertia[4] = -1;
    ck_assert_int_eq(mcb_robot_new("bad", 0, NULL, L, 2, &r, &err), MCB_E_INPUT);
    L[1].inertia[4] = 0;
    ck_assert_int_eq(mcb_robot_new("ok", 0, NULL, L, 2, &r, &err), MCB_OK);
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.body = 2;
    ck_assert_int_eq(mcb_robot_add_shape(r, &s, &err), MCB_E_INPUT);
    s.body = 1;
    ck_assert_int_eq(mcb_robot_add_shape(r, &s, &err), MCB_OK);
    mcb_robot_free(&r);
    mcb_robot_free(&r);
    mcb_robot_free(NULL);
}
END_TEST

/* The damped-least-squares IK: the error of a known offset (a translation
 * and a rotation of 0.5 rad about world x), then, from rest, the solve
 * reaching a pose the arm takes at known joint angles (frame or axis),
 * the seed loop's order, and the robots it refuses. */
START_TEST(ik_reaches_a_reachable_pose)
{
    int axis_mode = _i;
    mcb_xform base = mcb_xform_identity();
    mcb_robot *goal = NULL, *r = NULL, *fl = NULL;
    ck_assert_int_eq(mcb_robot_arm7(&base, &goal, NULL), MCB_OK);
    ck_assert_int_eq(mcb_robot_arm7(&base, &r, NULL), MCB_OK);
    const double qg[7] = {0.2, 0.4, -0.1, -1.8, 0.1, 2.0, 0.6};
    memcpy(mcb_robot_q(goal), qg, sizeof qg);
    mcb_robot_update(goal);
    int ee = mcb_robot_nlinks(goal) - 1;
    const mcb_xform *X = mcb_robot_link_pose(goal, ee);
    mcb_ik_target t;
    memset(&t, 0, sizeof t);
    t.link = ee;
    t.point[2] = 0.1;
    t.orient = axis_mode ? MCB_IK_AXIS : MCB_IK_FRAME;
    t.axis[1] = 1; /* the link's y */
    t.tol = 1e-12;
    /* known error: p + d, orientation Rx(0.5) R (frame), Rx(0.5) a (axis) */
    const double d[3] = {0.01, -0.02, 0.03}, c = cos(0.5), sn = sin(0.5);
    const double Rx[9] = {1, 0, 0, 0, c, -sn, 0, sn, c};
    double p0[3], a0[3], e[6];
    mcb_xform_point(X, t.point, p0);
    mcb_m3_vec(X->R, t.axis, a0);
    for (int i = 0; i < 3; i++) t.p[i] = p0[i] + d[i];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            t.R[3 * i + j] = 0;
            for (int k = 0; k < 3; k++) t.R[3 * i + j] += Rx[3 * i + k] * X->R[3 * k + j];
        }
    mcb_m3_vec(Rx, a0, t.dir);
    double m = mcb_robot_ik_error(goal, &t, e);
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(e[i], d[i], 1e-15);
    double ang = axis_mode ? acos(fmin(1.0, mcb_v3_dot(a0, t.dir))) : 0.5;
    ck_assert_double_eq_tol(mcb_v3_norm(e + 3), ang, 1e-12);
    if (!axis_mode) {
        ck_assert_double_eq_tol(e[3], 0.5, 1e-12);
        ck_assert_double_eq_tol(e[4], 0.0, 1e-12);
        ck_assert_double_eq_tol(e[5], 0.0, 1e-12);
    } else {
        double ax[3];
        mcb_v3_cross(a0, t.dir, ax); /* about a0 x dir */
        ck_assert(mcb_v3_dot(ax, e + 3) > 0.99 * mcb_v3_norm(ax) * ang);
    }
    ck_assert_double_eq_tol(m, mcb_v3_norm(d) + 0.1 * ang, 1e-12);

    /* the goal pose itself, reached from rest */
    memcpy(t.p, p0, sizeof t.p);
    memcpy(t.R, X->R, sizeof t.R);
    memcpy(t.dir, a0, sizeof t.dir);
    ck_assert(mcb_robot_ik_error(goal, &t, NULL) < 1e-14);
    ck_assert(mcb_robot_ik_error(r, &t, NULL) > 0.1);
    double err = mcb_robot_ik_solve(r, &t, 500);
    ck_assert_msg(err < 1e-10, "IK error %g", err);
    double p[3];
    mcb_xform_point(mcb_robot_link_pose(r, ee), t.point, p);
    for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(p[i], p0[i], 1e-10);

    /* seeds in order: no iterations, so q is the seed that stopped it */
    const double seeds[2][7] = {{0.1, 0.2, 0.3, -1.0, 0, 1.0, 0}, {0, 0.3, 0, -2.0, 0, 2.3, 0.785}};
    double e1 = mcb_robot_ik_seeded(r, &t, &seeds[0][0], 2, 7, 0, INFINITY);
    ck_assert(isfinite(e1));
    for (int j = 0; j < 7; j++) ck_assert(mcb_robot_q(r)[j] == seeds[0][j]);
    double e2 = mcb_robot_ik_seeded(r, &t, &seeds[0][0], 2, 7, 0, 0.0);
    for (int j = 0; j < 7; j++) ck_assert(mcb_robot_q(r)[j] == seeds[1][j]);
    ck_assert(e2 == mcb_robot_ik_error(r, &t, NULL));

    /* refused: a floating base, a link out of range */
    ck_assert_int_eq(mcb_robot_quadruped(&fl, NULL), MCB_OK);
    ck_assert(isnan(mcb_robot_ik_solve(fl, &t, 10)));
    ck_assert(isnan(mcb_robot_ik_seeded(fl, &t, &seeds[0][0], 2, 7, 10, 1.0)));
    t.link = mcb_robot_nlinks(r);
    ck_assert(isnan(mcb_robot_ik_solve(r, &t, 10)));
    ck_assert(isnan(mcb_robot_ik_solve(NULL, &t, 10)));
    mcb_robot_free(&fl);
    mcb_robot_free(&goal);
    mcb_robot_free(&r);
}
END_TEST

static Suite *dyn_suite(void)
{
    Suite *s = suite_create("scene_dyn");
    TCase *tc = tcase_create("dyn");
    tcase_add_test(tc, planar_two_link_closed_form);
    tcase_add_loop_test(tc, crba_equals_brute_force, 0, 4);
    tcase_add_loop_test(tc, rnea_difference_is_H_a, 0, 4);
    tcase_add_loop_test(tc, rnea_gravity_is_potential_gradient, 0, 4);
    tcase_add_loop_test(tc, rnea_velocity_terms, 0, 4);
    tcase_add_loop_test(tc, jacobian_matches_finite_differences, 0, 4);
    tcase_add_test(tc, floating_integration_keeps_unit_quaternion);
    tcase_add_test(tc, panda_published_inertials);
    tcase_add_loop_test(tc, builtin_robots, 0, 4);
    tcase_add_test(tc, bad_input_is_rejected);
    tcase_add_loop_test(tc, ik_reaches_a_reachable_pose, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mcb_run_suite(dyn_suite());
}

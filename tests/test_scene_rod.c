/* test_scene_rod.c: the discrete elastic rod (rod.h), the 10-DOF mobile
 * manipulator (robot_models.c) and the cable scene (scene_cable.c), with known
 * answers:
 *  - the paper cable's segment mass, inertias and joint stiffnesses against
 *    the numbers computed by hand in docs/rod.md; bad options rejected;
 *  - a rod pinned at both ends hangs, once at rest, with the midpoint sag
 *    of the inextensible catenary (within 5%; it starts as a V 13% deeper);
 *  - the wheels roll without slipping: straight, the base moves by radius
 *    x wheel angle; turning, the lateral velocity is zero and the forward
 *    and yaw rates are those of a differential drive;
 *  - a 16-segment cable scene validates, has 6 x 16 + 20 DOFs, 4 + 2
 *    subsystems, soft blocks with the rod's k = h^2 K and alpha, the hard
 *    rows of the clamps and the wheels, J = Jc Jb, and is deterministic;
 *  - mcb_robot_link_index finds the named links. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_problem.h"
#include "problems/scene/rod.h"
#include "problems/scene/robot_models.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define PI 3.14159265358979323846

/* ---- rod properties ---------------------------------------------------- */

START_TEST(rod_paper_numbers)
{
    /* 1.2 m, 8 mm, E 0.1 MPa, nu 0.49, 1100 kg/m^3, 640 segments
     * (docs/rod.md: l = 1.875 mm, A = 5.0265e-5 m^2, I = 2.0106e-10 m^4,
     * G = 33557 Pa, kappa = 0.89940) */
    mcb_rod_opts o;
    mcb_rod_defaults(&o);
    mcb_rod_props p;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_rod_properties(&o, &p, &err), MCB_OK);
    ck_assert_double_eq_tol(p.seg_length_m, 0.001875, 1e-15);
    ck_assert_double_eq_tol(p.area_m2 / 5.026548245743669e-05, 1, 1e-12);
    ck_assert_double_eq_tol(p.second_moment_m4 / 2.010619298297468e-10, 1, 1e-12);
    ck_assert_double_eq_tol(p.shear_modulus_pa / 33557.04697986577, 1, 1e-12);
    ck_assert_double_eq_tol(p.seg_mass_kg / 1.0367255756846317e-4, 1, 1e-12);
    ck_assert_double_eq_tol(p.inertia_axial / 8.293804605477053e-10, 1, 1e-12);
    ck_assert_double_eq_tol(p.inertia_transverse / 4.450630498739884e-10, 1, 1e-12);
    ck_assert_double_eq_tol(p.k_shear / 809.1023333189005, 1, 1e-12);
    ck_assert_double_eq_tol(p.k_stretch / 2680.8257310632903, 1, 1e-12);
    ck_assert_double_eq_tol(p.k_bend / 0.010723302924253162, 1, 1e-12);
    ck_assert_double_eq_tol(p.k_twist / 0.007196847600169909, 1, 1e-12);
    /* damping 5 ms of each stiffness */
    ck_assert_double_eq_tol(p.d_stretch / (0.005 * 2680.8257310632903), 1, 1e-12);
    ck_assert_double_eq_tol(p.d_twist / (0.005 * 0.007196847600169909), 1, 1e-12);
    /* an explicit shear factor replaces Cowper's */
    o.shear_factor = 1.0;
    ck_assert_int_eq(mcb_rod_properties(&o, &p, &err), MCB_OK);
    ck_assert_double_eq_tol(p.k_shear / (809.1023333189005 / 0.8993963782696177), 1, 1e-12);
}
END_TEST

START_TEST(rod_bad_options)
{
    mcb_rod_opts o;
    mcb_rod_props p;
    mcb_err err = {{0}};
    mcb_rod_defaults(&o);
    o.poisson = 0.5;
    ck_assert_int_eq(mcb_rod_properties(&o, &p, &err), MCB_E_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "Poisson"));
    mcb_rod_defaults(&o);
    o.segments = 0;
    ck_assert_int_eq(mcb_rod_properties(&o, &p, &err), MCB_E_INPUT);
    mcb_rod_defaults(&o);
    o.diameter_m = NAN;
    ck_assert_int_eq(mcb_rod_properties(&o, &p, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_rod_properties(NULL, &p, &err), MCB_E_INPUT);
    /* nodes not one segment length apart */
    mcb_world_opts wo;
    mcb_world_defaults(&wo);
    mcb_world *w = NULL;
    ck_assert_int_eq(mcb_world_new(&wo, &w, &err), MCB_OK);
    double nodes[9] = {0, 0, 0, 0.5, 0, 0, 1.2, 0, 0};
    mcb_rod_defaults(&o);
    o.segments = 2;
    o.length_m = 1.0;
    o.nodes = nodes;
    int first = -1;
    ck_assert_int_eq(mcb_rod_add_bodies(w, &o, &first, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_world_nrigid(w), 0);
    mcb_world_free(&w);
    mcb_world_free(NULL);
}
END_TEST

/* ---- the hanging rod --------------------------------------------------- */

/* Inextensible catenary z = a cosh(x / a) through the ends at +-S/2:
 * 2 a sinh(S / 2a) = L (bisection); midpoint sag a (cosh(S / 2a) - 1). */
static double catenary_sag(double L, double S)
{
    double lo = 1e-3, hi = 1e3;
    for (int it = 0; it < 300; it++) {
        double a = 0.5 * (lo + hi);
        if (2 * a * sinh(S / (2 * a)) > L) lo = a;
        else hi = a;
    }
    double a = 0.5 * (lo + hi);
    return a * (cosh(S / (2 * a)) - 1);
}

START_TEST(rod_hangs_as_a_catenary)
{
    /* 1 m of a 2 mm rod, E 1 MPa, nu 0.49, 1000 kg/m^3, 40 segments,
     * ends pinned 0.8 m apart: weight 0.031 N/m, tension about 0.01 N, so
     * the stretch is 0.3% and the bending length sqrt(EI / T) = 9 mm is
     * small against the span: the catenary applies (sag 0.2654 m). */
    const int N = 40;
    const double L = 1.0, S = 0.8;
    mcb_rod_opts o;
    mcb_rod_defaults(&o);
    o.length_m = L;
    o.diameter_m = 0.002;
    o.youngs_pa = 1e6;
    o.density_kg_m3 = 1000;
    o.segments = N;
    o.damping_s = 0.01;
    o.per_subsystem = 4;
    /* start: a V whose vertex is 0.3 m below the ends (13% deeper) */
    double nodes[3 * 41], l = L / N, vs = sqrt(0.25 * L * L - 0.25 * S * S);
    for (int k = 0; k <= N; k++) {
        double s = k <= N / 2 ? k * l : (N - k) * l; /* distance from the nearer end */
        nodes[3 * k] = k <= N / 2 ? -0.5 * S + s * (0.5 * S) / (0.5 * L)
                                  : 0.5 * S - s * (0.5 * S) / (0.5 * L);
        nodes[3 * k + 1] = 0;
        nodes[3 * k + 2] = -s * vs / (0.5 * L);
    }
    o.nodes = nodes;

    mcb_world_opts wo;
    mcb_world_defaults(&wo);
    wo.h_s = 0.01;
    wo.tol = 1e-8;
    mcb_world *w = NULL;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_world_new(&wo, &w, &err), MCB_OK);
    int first = -1;
    ck_assert_msg(mcb_rod_add_bodies(w, &o, &first, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(first, 0);
    ck_assert_msg(mcb_rod_add_joints(w, &o, first, NULL, &err) == MCB_OK, "%s", err.msg);
    /* pins: hard point joints from the world to the two end points */
    mcb_wjoint pin;
    memset(&pin, 0, sizeof pin);
    pin.kind = MCB_WJ_POINT;
    pin.body_a = -1;
    pin.body_b = 0;
    pin.pa[0] = -0.5 * S;
    mcb_rod_end_point(&o, 0, pin.pb);
    ck_assert_msg(mcb_world_add_joint(w, &pin, NULL, &err) == MCB_OK, "%s", err.msg);
    pin.body_b = N - 1;
    pin.pa[0] = 0.5 * S;
    mcb_rod_end_point(&o, 1, pin.pb);
    ck_assert_msg(mcb_world_add_joint(w, &pin, NULL, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(mcb_world_njoints(w), 2 * (N - 1) + 2);

    /* step with a light explicit drag (4 /s) until at rest */
    const double drag = 4.0;
    double vmax = INFINITY;
    int steps = 0;
    for (; steps < 1000 && vmax > 1e-5; steps++) {
        for (int k = 0; k < N; k++) {
            mcb_rigid *b = mcb_world_body(w, k);
            for (int i = 0; i < 3; i++) {
                b->wrench[i] = -drag * b->mass_kg * b->vel[i];
                b->wrench[3 + i] = -drag * b->inertia[0] * b->vel[3 + i];
            }
        }
        mcb_step_info info;
        ck_assert_msg(mcb_world_step(w, NULL, &info, &err) == MCB_OK, "step %d: %s", steps,
                      err.msg);
        vmax = 0;
        for (int k = 0; k < N; k++)
            for (int i = 0; i < 3; i++) vmax = fmax(vmax, fabs(mcb_world_body(w, k)->vel[i]));
    }
    ck_assert_msg(vmax <= 1e-5, "not at rest after %d steps (max speed %g)", steps, vmax);
    /* the midpoint: the end of segment N/2 - 1 */
    double end1[3], mid[3];
    mcb_rod_end_point(&o, 1, end1);
    mcb_xform_point(mcb_world_body_pose(w, N / 2 - 1), end1, mid);
    double sag = -mid[2], want = catenary_sag(L, S);
    ck_assert_double_eq_tol(want, 0.26543750913982, 1e-9);
    ck_assert_msg(fabs(sag - want) <= 0.05 * want, "sag %.6g m, catenary %.6g m (%d steps)", sag,
                  want, steps);
    printf("hanging rod: sag %.6g m, catenary %.6g m, %d steps, midpoint x %.3g m\n", sag, want,
           steps, mid[0]);
    ck_assert_double_lt(fabs(mid[0]), 1e-4); /* symmetric (to 0.1 mm) */
    mcb_world_free(&w);
}
END_TEST

/* ---- the mobile manipulator -------------------------------------------- */

START_TEST(mm_link_index)
{
    mcb_robot *r = NULL;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_robot_mobile_manipulator(NULL, &r, &err), MCB_OK);
    ck_assert_int_eq(mcb_robot_ndof(r), 10);
    ck_assert_int_eq(mcb_robot_nlinks(r), 11);
    ck_assert_int_eq(mcb_robot_link_index(r, "base_x"), 0);
    ck_assert_int_eq(mcb_robot_link_index(r, "chassis"), 2);
    ck_assert_int_eq(mcb_robot_link_index(r, "wheel_l"), 3);
    ck_assert_int_eq(mcb_robot_link_index(r, "wheel_r"), 4);
    ck_assert_int_eq(mcb_robot_link_index(r, "arm_wrist_roll"), 9);
    ck_assert_int_eq(mcb_robot_link_index(r, "ee"), 10);
    ck_assert_int_eq(mcb_robot_link_index(r, "EE"), -1);
    ck_assert_int_eq(mcb_robot_link_index(r, ""), -1);
    ck_assert_int_eq(mcb_robot_link_index(r, NULL), -1);
    ck_assert_int_eq(mcb_robot_link_index(NULL, "ee"), -1);
    /* base passive, wheels pure dampers, arm PD */
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq(mcb_robot_link(r, k)->kp, 0);
        ck_assert_double_eq(mcb_robot_link(r, k)->kd, 0);
    }
    for (int k = 3; k < 5; k++) {
        ck_assert_double_eq(mcb_robot_link(r, k)->kp, 0);
        ck_assert_double_eq(mcb_robot_link(r, k)->kd, 20);
    }
    for (int k = 5; k < 10; k++) ck_assert_double_gt(mcb_robot_link(r, k)->kp, 99);
    /* total 20 + 2 x 1 + 2 + 1.5 + 1 + 0.5 + 0.3 + 0.05 kg */
    ck_assert_double_eq_tol(mcb_robot_total_mass(r), 27.35, 1e-12);
    /* the tool point at q = 0: arm yaw axis at x 0.1, shoulder at z 0.35,
     * reach 0.3 + 0.3 + 0.08 + 0.14 */
    const mcb_xform *X = mcb_robot_link_pose(r, 10);
    ck_assert_double_eq_tol(X->p[0], 0.92, 1e-12);
    ck_assert_double_eq_tol(X->p[1], 0, 1e-12);
    ck_assert_double_eq_tol(X->p[2], 0.35, 1e-12);
    mcb_robot_free(&r);
    mcb_robot *a = NULL;
    ck_assert_int_eq(mcb_robot_arm7(NULL, &a, &err), MCB_OK);
    ck_assert_int_eq(mcb_robot_link_index(a, "panda_link1"), 0);
    ck_assert_int_eq(mcb_robot_link_index(a, "panda_hand"), 7);
    mcb_robot_free(&a);
}
END_TEST

/* A mobile manipulator alone with its two rolling joints (the right wheel
 * keeping the rolling row only, as the scene does). */
static mcb_world *rolling_world(mcb_robot **rp)
{
    mcb_world_opts wo;
    mcb_world_defaults(&wo);
    wo.h_s = 0.01;
    mcb_world *w = NULL;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_world_new(&wo, &w, &err), MCB_OK);
    mcb_robot *r = NULL;
    ck_assert_int_eq(mcb_robot_mobile_manipulator(NULL, &r, &err), MCB_OK);
    int first = -1;
    ck_assert_int_eq(mcb_world_add_robot(w, r, &first, &err), MCB_OK);
    ck_assert_int_eq(first, 0);
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_ROLLING;
    j.body_a = 3;
    j.body_b = -1;
    j.axis[1] = 1;
    j.radius = 0.08;
    ck_assert_msg(mcb_world_add_joint(w, &j, NULL, &err) == MCB_OK, "%s", err.msg);
    j.body_a = 4;
    j.mask = 1;
    ck_assert_msg(mcb_world_add_joint(w, &j, NULL, &err) == MCB_OK, "%s", err.msg);
    *rp = r;
    return w;
}

START_TEST(mm_rolls_straight)
{
    mcb_robot *r = NULL;
    mcb_world *w = rolling_world(&r);
    mcb_err err = {{0}};
    double *vr = mcb_robot_v_ref(r), *q = mcb_robot_q(r);
    /* accelerating (at a steady speed the rolling impulses vanish and the
     * relative natural-map residual cannot reach the world's tolerance) */
    for (int k = 0; k < 50; k++) {
        vr[3] = vr[4] = 0.2 * (k + 1); /* rad/s */
        mcb_step_info info;
        ck_assert_msg(mcb_world_step(w, NULL, &info, &err) == MCB_OK, "%s", err.msg);
    }
    /* x = r theta (both wheels turned alike), no lateral motion, no yaw */
    ck_assert_double_gt(q[3], 1.0); /* it did drive: about 2.5 rad */
    ck_assert_double_eq_tol(q[3], q[4], 1e-9);
    ck_assert_double_eq_tol(q[0], 0.08 * q[3], 1e-9);
    ck_assert_double_lt(fabs(q[1]), 1e-9);
    ck_assert_double_lt(fabs(q[2]), 1e-9);
    /* the wheel speed tracks v_ref (the damper) */
    ck_assert_double_eq_tol(mcb_robot_v(r)[3], 10.0, 0.3);
    mcb_world_free(&w);
}
END_TEST

START_TEST(mm_rolls_without_skidding)
{
    mcb_robot *r = NULL;
    mcb_world *w = rolling_world(&r);
    mcb_err err = {{0}};
    double *vr = mcb_robot_v_ref(r), *q = mcb_robot_q(r), *v = mcb_robot_v(r);
    const double rad = 0.08, half_track = 0.22;
    for (int k = 0; k < 60; k++) {
        vr[3] = 0.1 * (k + 1), vr[4] = 0.2 * (k + 1); /* accelerating, turning left */
        double yaw = q[2]; /* the rows are those of the step's start */
        mcb_step_info info;
        ck_assert_msg(mcb_world_step(w, NULL, &info, &err) == MCB_OK, "%s", err.msg);
        double fwd = cos(yaw) * v[0] + sin(yaw) * v[1], lat = -sin(yaw) * v[0] + cos(yaw) * v[1];
        ck_assert_msg(fabs(lat) < 1e-8, "step %d: lateral velocity %g", k, lat);
        ck_assert_double_eq_tol(fwd, rad * 0.5 * (v[3] + v[4]), 1e-8);
        ck_assert_double_eq_tol(v[2], rad * (v[4] - v[3]) / (2 * half_track), 1e-8);
    }
    ck_assert_double_gt(q[2], 0.3); /* it turned */
    mcb_world_free(&w);
}
END_TEST

/* ---- the cable scene --------------------------------------------------- */

static mcb_problem_set *gen_cable(int argc, char **argv, double *vals)
{
    const mcb_scene_def *def = mcb_scene_find("cable");
    ck_assert_msg(def != NULL, "scene cable is not registered");
    mcb_err err = {{0}};
    ck_assert_msg(mcb_scene_parse(def, argc, argv, vals, &err) == MCB_OK, "%s", err.msg);
    mcb_problem_set *S = NULL;
    ck_assert_msg(def->generate(vals, NULL, &S, &err) == MCB_OK, "cable: %s", err.msg);
    ck_assert_ptr_nonnull(S);
    return S;
}

static int same_csc(const mcb_csc *a, const mcb_csc *b)
{
    if (!a || !b) return a == b;
    if (a->m != b->m || a->n != b->n || a->p[a->n] != b->p[b->n]) return 0;
    int nz = a->p[a->n];
    return !memcmp(a->p, b->p, sizeof(int) * (size_t)(a->n + 1)) &&
           !memcmp(a->i, b->i, sizeof(int) * (size_t)nz) &&
           !memcmp(a->x, b->x, sizeof(double) * (size_t)nz);
}

/* max |J - Jc Jb| <= 1e-12 max |J| */
static void assert_factorization(const mcb_problem *P)
{
    ck_assert_ptr_nonnull(P->Jc);
    ck_assert_ptr_nonnull(P->Jb);
    mcb_csc *JcJb = mcb_csc_multiply(P->Jc, P->Jb);
    ck_assert_ptr_nonnull(JcJb);
    double *d = calloc((size_t)P->m, sizeof(double)), jmax = 0, diff = 0;
    for (int j = 0; j < P->n; j++) {
        memset(d, 0, sizeof(double) * (size_t)P->m);
        for (int k = P->J->p[j]; k < P->J->p[j + 1]; k++) {
            d[P->J->i[k]] += P->J->x[k];
            jmax = fmax(jmax, fabs(P->J->x[k]));
        }
        for (int k = JcJb->p[j]; k < JcJb->p[j + 1]; k++) d[JcJb->i[k]] -= JcJb->x[k];
        for (int i = 0; i < P->m; i++) diff = fmax(diff, fabs(d[i]));
    }
    ck_assert_msg(diff <= 1e-12 * fmax(jmax, 1), "max |J - Jc Jb| = %g", diff);
    free(d);
    mcb_csc_free(&JcJb);
}

START_TEST(cable_small)
{
    char *argv[] = {"--segments", "16", "--steps", "2"};
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_problem_set *S = gen_cable(4, argv, vals);
    ck_assert_int_eq(S->count, 2);
    char src[512];
    mcb_scene_args(mcb_scene_find("cable"), vals, src, sizeof src);
    mcb_rod_opts o;
    mcb_rod_defaults(&o);
    o.segments = 16;
    mcb_rod_props p;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_rod_properties(&o, &p, &err), MCB_OK);
    const double h = 0.01, ks[4] = {p.k_shear, p.k_stretch, p.k_bend, p.k_twist};
    for (int s = 0; s < S->count; s++) {
        const mcb_problem *P = S->items[s];
        ck_assert_msg(mcb_problem_validate(P, "cable", &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(P->n, 6 * 16 + 20);
        ck_assert_int_eq(P->nsub, 16 / 4 + 2);
        for (int k = 0; k < 4; k++) ck_assert_int_eq(P->sub_start[k + 1] - P->sub_start[k], 24);
        ck_assert_int_eq(P->sub_start[5] - P->sub_start[4], 10);
        ck_assert_int_eq(P->sub_start[6] - P->sub_start[5], 10);
        ck_assert_double_eq_tol(P->h, h, 1e-15);
        ck_assert_int_eq(P->step, s);
        ck_assert_str_eq(P->scene, "cable");
        ck_assert_str_eq(P->source, src);
        int soft_rows = 0, hard_rows = 0, contact_rows = 0;
        for (int b = 0; b < P->nblocks; b++) {
            const mcb_block *B = &P->blocks[b];
            if (B->type == MCB_SOFT) {
                soft_rows += B->nrows;
                int known = 0; /* k = h^2 K of one of the rod's stiffnesses */
                for (int u = 0; u < 4; u++) known |= fabs(B->k - h * h * ks[u]) <= 1e-12 * B->k;
                ck_assert_msg(known && B->k > 0, "soft block %d: k = %g", b, B->k);
                /* alpha = 1 + D / (h K) = 1 + 0.005 / 0.01 */
                ck_assert_double_eq_tol(B->alpha, 1.5, 1e-12);
            } else if (B->type == MCB_BILATERAL) {
                hard_rows += B->nrows;
            } else if (B->type == MCB_CONTACT) {
                contact_rows += B->nrows;
                ck_assert_double_eq_tol(B->mu, 0.5, 1e-15);
            }
        }
        /* 15 joint pairs x 6 soft rows; clamps 2 x (3 + 3) and wheels
         * 2 x (2 + 1) hard rows */
        ck_assert_int_eq(soft_rows, 15 * 6);
        ck_assert_int_eq(hard_rows, 2 * 6 + 2 * 3);
        ck_assert_int_eq(soft_rows + hard_rows + contact_rows, P->m);
        ck_assert_ptr_nonnull(P->v_ref);
        ck_assert_ptr_nonnull(P->lambda_ref);
        ck_assert_double_gt(P->mass_ratio, 1e3); /* 20 kg chassis vs 8.3 g segments */
        assert_factorization(P);
    }
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(cable_deterministic)
{
    char *argv[] = {"--segments", "16", "--steps", "2"};
    double v1[MCB_SCENE_MAX_OPTS], v2[MCB_SCENE_MAX_OPTS];
    mcb_problem_set *a = gen_cable(4, argv, v1), *b = gen_cable(4, argv, v2);
    ck_assert_int_eq(a->count, b->count);
    for (int k = 0; k < a->count; k++) {
        const mcb_problem *P = a->items[k], *Q = b->items[k];
        ck_assert_str_eq(P->name, Q->name);
        ck_assert_int_eq(P->m, Q->m);
        ck_assert(same_csc(P->A, Q->A));
        ck_assert(same_csc(P->J, Q->J));
        ck_assert(!memcmp(P->b, Q->b, sizeof(double) * (size_t)P->n));
        ck_assert(!memcmp(P->e, Q->e, sizeof(double) * (size_t)P->m));
        ck_assert(!memcmp(P->v_ref, Q->v_ref, sizeof(double) * (size_t)P->n));
        ck_assert(!memcmp(P->blocks, Q->blocks, sizeof(mcb_block) * (size_t)P->nblocks));
    }
    mcb_problem_set_free(&a);
    mcb_problem_set_free(&b);
}
END_TEST

START_TEST(cable_bad_options)
{
    const mcb_scene_def *def = mcb_scene_find("cable");
    ck_assert_ptr_nonnull(def);
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err = {{0}};
    char *argv[] = {"--segments", "1"};
    ck_assert_int_eq(mcb_scene_parse(def, 2, argv, vals, &err), MCB_E_INPUT);
    mcb_problem_set *S = NULL;
    ck_assert_int_eq(mcb_scene_cable(NULL, NULL, &S, &err), MCB_E_INPUT);
}
END_TEST

/* ---- the franka-cable scene (COND paper Sec. V-C5) ---------------------- */

static mcb_problem_set *gen_franka_cable(int argc, char **argv)
{
    const mcb_scene_def *def = mcb_scene_find("franka-cable");
    ck_assert_msg(def != NULL, "scene franka-cable is not registered");
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err = {{0}};
    ck_assert_msg(mcb_scene_parse(def, argc, argv, vals, &err) == MCB_OK, "%s", err.msg);
    mcb_problem_set *S = NULL;
    ck_assert_msg(def->generate(vals, NULL, &S, &err) == MCB_OK, "franka-cable: %s", err.msg);
    ck_assert_ptr_nonnull(S);
    return S;
}

/* 20 links, 3 steps: DOF 6 x 20 + 7 = 127 (the paper's 320: 1927), the
 * arm and 5 subsystems of 4 links; 19 couplings of 6 soft rows and the two
 * welds (the spool, the hand) of 6 hard rows: 6 x (20 + 1) = 126 joint rows
 * (the paper's 1926 at 320 links); the cable lying on the floor has
 * contacts; every problem valid; the same seed gives a bitwise identical
 * recording, another seed another cable (the soft blocks' k differ). */
START_TEST(franka_cable_structure)
{
    char *argv[] = {"--links", "20", "--steps", "3"};
    char *argv2[] = {"--links", "20", "--steps", "3", "--seed", "7"};
    mcb_problem_set *S = gen_franka_cable(4, argv), *S2 = gen_franka_cable(4, argv);
    mcb_problem_set *S3 = gen_franka_cable(6, argv2);
    ck_assert_int_eq(S->count, 3);
    for (int s = 0; s < S->count; s++) {
        const mcb_problem *P = S->items[s], *Q = S2->items[s], *R = S3->items[s];
        mcb_err err = {{0}};
        ck_assert_msg(mcb_problem_validate(P, "franka-cable", &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(P->n, 6 * 20 + 7);
        ck_assert_int_eq(P->nsub, 20 / 4 + 1);
        ck_assert_str_eq(P->source, "franka-cable --links 20 --steps 3 --dt 0.01 --seed 1");
        int soft_rows = 0, hard_rows = 0, contacts = 0, differs = 0;
        for (int b = 0; b < P->nblocks; b++) {
            const mcb_block *B = &P->blocks[b];
            if (B->type == MCB_SOFT) soft_rows += B->nrows, differs |= B->k != R->blocks[b].k;
            else if (B->type == MCB_BILATERAL) hard_rows += B->nrows;
            else if (B->type == MCB_CONTACT) contacts++;
        }
        ck_assert_int_eq(soft_rows, 19 * 6);
        ck_assert_int_eq(hard_rows, 2 * 6);
        ck_assert_int_gt(contacts, 0);
        ck_assert_int_eq(soft_rows + hard_rows + 3 * contacts, P->m);
        ck_assert_msg(differs, "step %d: seed 7 drew the same stiffnesses", s);
        assert_factorization(P);
        ck_assert_str_eq(P->name, Q->name);
        ck_assert(same_csc(P->A, Q->A) && same_csc(P->J, Q->J));
        ck_assert(!memcmp(P->b, Q->b, sizeof(double) * (size_t)P->n));
        ck_assert(!memcmp(P->e, Q->e, sizeof(double) * (size_t)P->m));
        ck_assert(!memcmp(P->v_ref, Q->v_ref, sizeof(double) * (size_t)P->n));
        ck_assert(!memcmp(P->lambda_ref, Q->lambda_ref, sizeof(double) * (size_t)P->m));
    }
    mcb_problem_set_free(&S), mcb_problem_set_free(&S2), mcb_problem_set_free(&S3);
    const mcb_scene_def *def = mcb_scene_find("franka-cable");
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err = {{0}};
    char *bad[] = {"--links", "1"};
    ck_assert_int_eq(mcb_scene_parse(def, 2, bad, vals, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_scene_franka_cable(NULL, NULL, &S, &err), MCB_E_INPUT);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scene_rod");
    TCase *t = tcase_create("rod");
    tcase_add_test(t, rod_paper_numbers);
    tcase_add_test(t, rod_bad_options);
    tcase_add_test(t, rod_hangs_as_a_catenary);
    suite_add_tcase(s, t);
    t = tcase_create("mobile_manipulator");
    tcase_add_test(t, mm_link_index);
    tcase_add_test(t, mm_rolls_straight);
    tcase_add_test(t, mm_rolls_without_skidding);
    suite_add_tcase(s, t);
    t = tcase_create("cable");
    tcase_set_timeout(t, 120);
    tcase_add_test(t, cable_small);
    tcase_add_test(t, cable_deterministic);
    tcase_add_test(t, cable_bad_options);
    tcase_add_test(t, franka_cable_structure);
    suite_add_tcase(s, t);
    return s;
}

int main(void) { return mcb_run_suite(suite()); }

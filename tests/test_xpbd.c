/* test_xpbd.c: known answers of the whole-step XPBD advance
 * (problems/scene/xpbd.c) and its closed-loop registration
 * (harness/whole_step.c, closed_loop.c): a box resting on the floor stays
 * at rest without sinking; a physical pendulum on a hard point joint keeps
 * its joint and swings with the small-angle period; a box sliding on the
 * floor decelerates at mu g (Müller 2020's dynamic friction); xpbd drives
 * franka-cable --links 8 in the closed loop with finite depth and outcome;
 * a robot holding a weight sags by M g / kp more when the free bodies'
 * pull acts on it (`reaction`);
 * bad input (rolling joints, bad substeps) is refused with its reason. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness/closed_loop.h"
#include "harness/whole_step.h"
#include "problems/scene/articulated.h"
#include "problems/scene/world.h"
#include "problems/scene/xpbd.h"

#define G 9.81
#define PI_ 3.14159265358979323846

static mcb_world *new_world(double h, const mcb_world_loop *loop)
{
    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.h_s = h;
    o.loop = loop;
    mcb_world *w = NULL;
    mcb_err err;
    ck_assert_msg(mcb_world_new(&o, &w, &err) == MCB_OK, "%s", err.msg);
    return w;
}

static mcb_rigid box_body(double m, double half, double z)
{
    mcb_rigid b;
    memset(&b, 0, sizeof b);
    b.mass_kg = m;
    double I = m * (2 * half) * (2 * half) / 6.0;
    b.inertia[0] = b.inertia[4] = b.inertia[8] = I;
    b.quat[0] = 1;
    b.pos[2] = z;
    return b;
}

/* A box (side 2 half) on the floor with friction mu, centre at z = half. */
static mcb_world *box_on_floor(const mcb_world_loop *L, double mu, double vx, double half)
{
    mcb_world *w = new_world(0.01, L);
    mcb_err err;
    ck_assert(mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, mu, NULL,
                                      &err) == MCB_OK);
    mcb_rigid b = box_body(1.0, half, half);
    b.vel[0] = vx;
    ck_assert_msg(mcb_world_add_primitive(w, &b, MCB_SHAPE_BOX, (double[3]){half, half, half}, mu,
                                          NULL, &err) == MCB_OK,
                  "%s", err.msg);
    return w;
}

static void step(mcb_world *w, mcb_step_info *info)
{
    mcb_err err;
    ck_assert_msg(mcb_world_step(w, NULL, info, &err) == MCB_OK, "%s", err.msg);
}

/* (a) at rest on the floor for 1 s, 20 substeps x 4 iterations: no
 * sinking past 1e-5 m (the substep's gravity sag g h_s^2 is 2.5e-6 m at
 * h_s = 0.5 ms), no slide past 20 um (7.5 um measured), velocities below 1e-4. With one
 * iteration per substep the four corner contacts, projected one after the
 * other, rock the box (measured at 20 x 1: 0.74 mm of creep and 5e-3
 * rad/s after 1 s; docs/closed-loop.md). */
START_TEST(box_rests_on_the_floor)
{
    mcb_xpbd_opts xo = {20, 4, 1};
    mcb_world_loop L = {NULL, NULL, NULL, &xo};
    double half = 0.05;
    mcb_world *w = box_on_floor(&L, 0.5, 0.0, half);
    double worst = 0.0;
    for (int k = 0; k < 100; k++) {
        mcb_step_info info;
        step(w, &info);
        ck_assert_int_eq(info.contacts, 4);
        ck_assert_int_eq(info.iterations, 80);
        ck_assert(isfinite(info.depth_m));
        worst = fmax(worst, info.depth_m);
    }
    const mcb_rigid *b = mcb_world_body(w, 0);
    ck_assert_msg(worst < 1e-5, "depth %g", worst);
    ck_assert_msg(fabs(b->pos[2] - half) < 1e-5, "z %.9g", b->pos[2]);
    ck_assert_msg(fabs(b->pos[0]) < 2e-5 && fabs(b->pos[1]) < 2e-5, "slid %g %g", b->pos[0],
                  b->pos[1]);
    for (int k = 0; k < 6; k++) ck_assert_msg(fabs(b->vel[k]) < 1e-4, "vel[%d] %g", k, b->vel[k]);
    mcb_world_free(&w);
}
END_TEST

/* Two boxes stacked on the floor (contacts between two free bodies), 20
 * substeps x 4 iterations for 1 s: both stay at their heights within 20
 * um, no depth past 1e-5 m, and slide less than 0.5 mm: the Gauss-Seidel
 * creep of the stacked contacts, measured 0.19 mm at 20 x 4 (1.3 mm at
 * 20 x 1, 0.04 mm at 20 x 8; docs/closed-loop.md). */
START_TEST(stacked_boxes_rest)
{
    mcb_xpbd_opts xo = {20, 4, 1};
    mcb_world_loop L = {NULL, NULL, NULL, &xo};
    double half = 0.05;
    mcb_world *w = box_on_floor(&L, 0.5, 0.0, half);
    mcb_err err;
    mcb_rigid top = box_body(1.0, half, 3 * half);
    ck_assert(mcb_world_add_primitive(w, &top, MCB_SHAPE_BOX, (double[3]){half, half, half}, 0.5,
                                      NULL, &err) == MCB_OK);
    double worst = 0.0;
    for (int k = 0; k < 100; k++) {
        mcb_step_info info;
        step(w, &info);
        ck_assert_int_ge(info.contacts, 8);
        worst = fmax(worst, info.depth_m);
    }
    ck_assert_msg(worst < 1e-5, "depth %g", worst);
    for (int b = 0; b < 2; b++) {
        const mcb_rigid *B = mcb_world_body(w, b);
        double z = (2 * b + 1) * half;
        ck_assert_msg(fabs(B->pos[2] - z) < 2e-5, "body %d z %.9g", b, B->pos[2]);
        ck_assert_msg(fabs(B->pos[0]) < 5e-4 && fabs(B->pos[1]) < 5e-4, "body %d slid %g %g", b,
                      B->pos[0], B->pos[1]);
    }
    mcb_world_free(&w);
}
END_TEST

/* (c) sliding at 1 m/s with mu 0.3: the velocity falls at mu g (2.943
 * m/s^2) until it stops; measured between t = 0.05 s and 0.25 s, within 2%. */
START_TEST(sliding_box_decelerates_at_mu_g)
{
    mcb_xpbd_opts xo = {20, 1, 1};
    mcb_world_loop L = {NULL, NULL, NULL, &xo};
    double mu = 0.3;
    mcb_world *w = box_on_floor(&L, mu, 1.0, 0.05);
    double v5 = NAN, v25 = NAN;
    for (int k = 1; k <= 25; k++) {
        mcb_step_info info;
        step(w, &info);
        if (k == 5) v5 = mcb_world_body(w, 0)->vel[0];
        if (k == 25) v25 = mcb_world_body(w, 0)->vel[0];
    }
    double a = (v5 - v25) / 0.2;
    ck_assert_msg(fabs(a - mu * G) < 0.02 * mu * G, "deceleration %g, mu g %g", a, mu * G);
    ck_assert_msg(fabs(mcb_world_body(w, 0)->vel[1]) < 1e-3, "vy %g", mcb_world_body(w, 0)->vel[1]);
    mcb_world_free(&w);
}
END_TEST

/* (b) a box (side 2 cm, 1 kg) hanging L = 0.5 m below a pivot on a hard
 * point joint, released at 0.05 rad: the joint's drift stays below 1e-9 m
 * (with 40 substeps of 0.25 ms, 2 iterations each) and the period of the
 * x swing is the physical pendulum's 2 pi sqrt((I + m L^2) / (m g L))
 * within 0.5% (the amplitude's correction at 0.05 rad is 1.6e-4). */
START_TEST(pendulum_keeps_its_joint_and_period)
{
    mcb_xpbd_opts xo = {40, 2, 1};
    mcb_world_loop L = {NULL, NULL, NULL, &xo};
    double h = 0.01, len = 0.5, th0 = 0.05, half = 0.01;
    mcb_world *w = new_world(h, &L);
    mcb_err err;
    mcb_rigid b = box_body(1.0, half, 0.0);
    static const double ay[3] = {0, 1, 0};
    mcb_quat_from_axis_angle(ay, th0, b.quat);
    const double pivot[3] = {0, 0, 1};
    b.pos[0] = pivot[0] - len * sin(th0);
    b.pos[2] = pivot[2] - len * cos(th0);
    int idx = -1;
    ck_assert(mcb_world_add_body(w, &b, &idx, &err) == MCB_OK);
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_POINT;
    j.body_a = -1;
    j.body_b = idx;
    memcpy(j.pa, pivot, sizeof j.pa);
    j.pb[2] = len;
    ck_assert_msg(mcb_world_add_joint(w, &j, NULL, &err) == MCB_OK, "%s", err.msg);
    double I = b.inertia[4], T = 2 * PI_ * sqrt((I + len * len) / (G * len));
    double prev = b.pos[0] - pivot[0], cross[8];
    int nc = 0;
    double drift = 0.0;
    for (int k = 1; k <= 400 && nc < 5; k++) {
        mcb_step_info info;
        step(w, &info);
        drift = fmax(drift, mcb_world_joint_drift(w, NULL));
        double x = mcb_world_body(w, 0)->pos[0] - pivot[0];
        if (prev < 0 && x >= 0) cross[nc++] = h * (k - 1 + prev / (prev - x)); /* upward */
        prev = x;
    }
    ck_assert_int_ge(nc, 3);
    double Tm = (cross[nc - 1] - cross[0]) / (nc - 1);
    ck_assert_msg(fabs(Tm - T) < 5e-3 * T, "period %.6g s, analytic %.6g s", Tm, T);
    ck_assert_msg(drift < 1e-9, "joint drift %g m", drift);
    mcb_world_free(&w);
}
END_TEST

/* A soft point joint (compliance 1 / K per row, damping D: XPBD's
 * compliant and damped rows): a 1 kg body hanging from the world on
 * K = 1000 N/m, critically damped (D = 2 sqrt(K m)), settles at the
 * static sag m g / K = 9.81 mm within 0.1%, and sideways not at all. */
START_TEST(soft_joint_sags_by_mg_over_k)
{
    mcb_xpbd_opts xo = {20, 1, 1};
    mcb_world_loop L = {NULL, NULL, NULL, &xo};
    mcb_world *w = new_world(0.01, &L);
    mcb_err err;
    mcb_rigid b = box_body(1.0, 0.01, 1.0);
    int idx = -1;
    ck_assert(mcb_world_add_body(w, &b, &idx, &err) == MCB_OK);
    double K = 1000.0, D = 2 * sqrt(K);
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_POINT;
    j.body_a = -1;
    j.body_b = idx;
    j.pa[2] = 1.0;
    j.soft = 1;
    for (int r = 0; r < 3; r++) j.stiffness[r] = K, j.damping[r] = D;
    ck_assert_msg(mcb_world_add_joint(w, &j, NULL, &err) == MCB_OK, "%s", err.msg);
    for (int k = 0; k < 300; k++) {
        mcb_step_info info;
        step(w, &info);
    }
    const mcb_rigid *B = mcb_world_body(w, 0);
    double sag = 1.0 - B->pos[2];
    ck_assert_msg(fabs(sag - G / K) < 1e-3 * G / K, "sag %.9g m, m g / K %.9g m", sag, G / K);
    ck_assert(fabs(B->pos[0]) < 1e-12 && fabs(B->pos[1]) < 1e-12);
    ck_assert_msg(fabs(B->vel[2]) < 1e-6, "vz %g", B->vel[2]);
    mcb_world_free(&w);
}
END_TEST

/* (d) xpbd in the closed loop on franka-cable --links 8: every step
 * solved, substeps x iters iterations, finite depth and hand force, the
 * force error against the reference measured, the subproblem metrics not
 * (NaN). */
START_TEST(xpbd_drives_franka_cable_in_the_loop)
{
    const mcb_scene_def *def = mcb_scene_find("franka-cable");
    ck_assert_ptr_nonnull(def);
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err;
    char *argv[] = {"--links", "8", "--steps", "6"};
    ck_assert_msg(mcb_scene_parse(def, 4, argv, vals, &err) == MCB_OK, "%s", err.msg);
    mcb_loop_instance I;
    ck_assert_msg(mcb_loop_instance_init(&I, def, vals, "fc8", &err) == MCB_OK, "%s", err.msg);
    ck_assert_msg(mcb_loop_reference(&I, NULL, NULL, &err) == MCB_OK, "%s", err.msg);
    const mcb_solver_def *x = mcb_loop_method_find("xpbd");
    ck_assert_ptr_nonnull(x);
    ck_assert(mcb_whole_step_is(x));
    ck_assert_ptr_null(mcb_solver_find("xpbd")); /* not a solver of the subproblem */
    mcb_xpbd_opts xo = {10, 2, 1};
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    mcb_run run;
    memset(&run, 0, sizeof run);
    ck_assert_msg(mcb_loop_run(&I, x, &xo, &o, &run, &err) == MCB_OK, "%s", err.msg);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s", run.info.reason);
    ck_assert_int_eq(run.step_rows, 6);
    ck_assert_int_eq(run.info.iterations, 6 * 20);
    for (int s = 0; s < run.step_rows; s++) {
        const double *r = run.steps + (size_t)s * MCB_STEP_COLS;
        ck_assert_int_eq((int)r[MCB_SC_ITERS], 20);
        ck_assert(isfinite(r[MCB_SC_DEPTH_M]) && r[MCB_SC_DEPTH_M] >= 0);
        ck_assert(isfinite(r[MCB_SC_OUTCOME]) && r[MCB_SC_OUTCOME] > 0);
        ck_assert(isfinite(r[MCB_SC_OUTCOME_ERR]));
        ck_assert(isnan(r[MCB_SC_METRICS + MCB_M_NATMAP]));
        ck_assert(r[MCB_SC_SOLVE_S] > 0 && r[MCB_SC_ENGINE_S] > 0);
        /* the held end's force: at least the weight the hand carries
         * (after the first step; the cable's 12.6 g in all) and not more
         * than 10 N */
        if (s > 0) ck_assert_msg(r[MCB_SC_OUTCOME] < 10.0, "hand force %g N", r[MCB_SC_OUTCOME]);
    }
    mcb_run_clear(&run);
    mcb_loop_instance_clear(&I);
}
END_TEST

/* A robot's prismatic slider along z (1 kg, PD kp 1000 N/m to q = 0)
 * holding a 2 kg body on a hard point joint at the body's centre, 4 s
 * under gravity: with `reaction` on, the held weight acts on the slider
 * (one step late) and it settles M g / kp = 19.62 mm lower than with
 * `reaction` off, where the slider carries only itself (within 0.1 %);
 * the held body follows the slider in both. The coupling is explicit
 * (one step late): like any staggered coupling it is stable while the
 * held mass stays below the robot's effective mass at the hold (here its
 * 1 kg plus h kd + h^2 kp = 1.2 kg of its implicit PD; 1.5 kg still
 * settles, 2 kg diverges), far inside for franka-cable's 12.6 g cable. */
#define HELD_KG 0.2
static double slider_sag(int reaction)
{
    mcb_xpbd_opts xo = {20, 1, reaction};
    mcb_world_loop L = {NULL, NULL, NULL, &xo};
    mcb_world *w = new_world(0.01, &L);
    mcb_err err;
    mcb_rigid b = box_body(HELD_KG, 0.02, 0.0);
    int idx = -1, first = -1;
    ck_assert(mcb_world_add_body(w, &b, &idx, &err) == MCB_OK);
    mcb_link link;
    memset(&link, 0, sizeof link);
    snprintf(link.name, sizeof link.name, "slider");
    link.parent = -1;
    link.joint = MCB_JOINT_PRISMATIC;
    link.axis[2] = 1;
    link.placement = mcb_xform_identity();
    link.mass_kg = 1.0;
    link.inertia[0] = link.inertia[4] = link.inertia[8] = 1e-3;
    link.kp = 1000.0;
    link.kd = 2 * sqrt(1000.0 * 3.0); /* critical for the 3 kg it may carry */
    mcb_robot *R = NULL;
    ck_assert_msg(mcb_robot_new("slider", 0, NULL, &link, 1, &R, &err) == MCB_OK, "%s", err.msg);
    ck_assert_msg(mcb_world_add_robot(w, R, &first, &err) == MCB_OK, "%s", err.msg);
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_POINT;
    j.body_a = first;
    j.body_b = idx;
    ck_assert_msg(mcb_world_add_joint(w, &j, NULL, &err) == MCB_OK, "%s", err.msg);
    for (int k = 0; k < 400; k++) {
        mcb_step_info info;
        step(w, &info);
    }
    double q = mcb_robot_q(R)[0], zb = mcb_world_body(w, 0)->pos[2];
    ck_assert_msg(fabs(zb - q) < 1e-6, "body %.9g m, slider %.9g m", zb, q);
    ck_assert_msg(fabs(mcb_robot_v(R)[0]) < 1e-6, "slider still moving: %g m/s",
                  mcb_robot_v(R)[0]);
    mcb_world_free(&w);
    return -q;
}

START_TEST(held_weight_pulls_the_robot_with_reaction)
{
    double off = slider_sag(0), on = slider_sag(1), want = HELD_KG * G / 1000.0;
    ck_assert_msg(fabs((on - off) - want) < 1e-3 * want,
                  "sag with reaction %.9g m, without %.9g m: difference %.9g, M g / kp %.9g", on,
                  off, on - off, want);
    mcb_xpbd_opts bad = {10, 1, 2};
    mcb_err err;
    ck_assert(mcb_xpbd_check(&bad, &err) == MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "reaction"), "%s", err.msg);
}
END_TEST

START_TEST(bad_input_is_refused)
{
    mcb_xpbd_opts xo = {0, 1, 1};
    mcb_err err;
    ck_assert(mcb_xpbd_check(&xo, &err) == MCB_E_INPUT);
    ck_assert(strstr(err.msg, "substeps"));
    ck_assert(mcb_xpbd_check(NULL, &err) == MCB_E_INPUT);
    xo.substeps = 4;
    mcb_world_loop L = {NULL, NULL, NULL, &xo};
    mcb_world *w = box_on_floor(&L, 0.5, 0.0, 0.05);
    mcb_wjoint j;
    memset(&j, 0, sizeof j);
    j.kind = MCB_WJ_ROLLING;
    j.body_a = 0;
    j.body_b = -1;
    j.axis[1] = 1;
    j.radius = 0.05;
    ck_assert_msg(mcb_world_add_joint(w, &j, NULL, &err) == MCB_OK, "%s", err.msg);
    double z = mcb_world_body(w, 0)->pos[2];
    ck_assert(mcb_world_step(w, NULL, NULL, &err) == MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "rolling"), "%s", err.msg);
    ck_assert(mcb_world_body(w, 0)->pos[2] == z); /* nothing moved */
    mcb_world_free(&w);
    /* the def refuses subproblems, with the reason */
    const mcb_solver_def *x = mcb_whole_step_find("xpbd");
    char why[256];
    ck_assert(!x->accepts_problem(NULL, why, sizeof why));
    ck_assert(strstr(why, "closed loop"));
}
END_TEST

static Suite *xpbd_suite(void)
{
    Suite *s = suite_create("xpbd");
    TCase *tc = tcase_create("xpbd");
    tcase_add_test(tc, box_rests_on_the_floor);
    tcase_add_test(tc, stacked_boxes_rest);
    tcase_add_test(tc, sliding_box_decelerates_at_mu_g);
    tcase_add_test(tc, pendulum_keeps_its_joint_and_period);
    tcase_add_test(tc, soft_joint_sags_by_mg_over_k);
    tcase_add_test(tc, xpbd_drives_franka_cable_in_the_loop);
    tcase_add_test(tc, held_weight_pulls_the_robot_with_reaction);
    tcase_add_test(tc, bad_input_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mcb_run_suite(xpbd_suite());
}

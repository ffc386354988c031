/* test_scene_outcomes.c: each trajectory scene's own outcome and closed-loop
 * failure bounds (docs/scenes.md, "Closed loop"), at tiny sizes. Every
 * scene runs in a closed loop whose hook has no solver (the world's own
 * solver advances it, as a reference run) and only an `after` that
 * evaluates the scene's outcome after each step; the tests check the
 * outcome's name, unit and bounds, its values along the run (the spheres
 * stay in the box, the robot stays upright, the beam goes in, the peg lands
 * in the hole, ...), and that it sees a state that should fail (a body
 * moved where the outcome must notice, then put back). */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_problem.h"
#include "problems/scene/articulated.h"
#include "problems/scene/fem.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define MAX_STEPS 64
#define PI 3.14159265358979323846

typedef struct trace trace;
struct trace {
    int n;                   /* steps seen */
    double v[MAX_STEPS];     /* the outcome after each step */
    mcb_world_outcome o;     /* the scene's outcome (copied at the first step) */
    mcb_world_opts opts;     /* the world's options */
    /* called once, after step `probe_step`: moves the state, evaluates
     * into probed[], puts it back */
    void (*probe)(trace *t, mcb_world *w);
    int probe_step;
    double probed[4];
};

static mcb_rc after(void *ctx, mcb_world *w, const mcb_step_info *info, mcb_err *err)
{
    (void)info;
    trace *t = ctx;
    const mcb_world_outcome *o = mcb_world_get_outcome(w);
    if (!o) return mcb_fail(err, MCB_E_INPUT, "the scene sets no outcome");
    if (t->n >= MAX_STEPS) return mcb_fail(err, MCB_E_INPUT, "too many steps for the trace");
    t->o = *o;
    t->opts = *mcb_world_options(w);
    t->v[t->n++] = o->eval(o->ctx, w);
    if (t->probe && mcb_world_step_index(w) == t->probe_step) t->probe(t, w);
    return MCB_OK;
}

/* Runs scene `name` in the test loop; the set it returns must be empty. */
static void run(const char *name, int argc, char **argv, trace *t)
{
    const mcb_scene_def *def = mcb_scene_find(name);
    ck_assert_ptr_nonnull(def);
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err = {{0}};
    ck_assert_msg(mcb_scene_parse(def, argc, argv, vals, &err) == MCB_OK, "%s", err.msg);
    mcb_world_loop loop = {NULL, after, t, NULL};
    mcb_problem_set *S = NULL;
    mcb_rc rc = def->generate(vals, &loop, &S, &err);
    ck_assert_msg(rc == MCB_OK, "%s: %s", name, err.msg);
    ck_assert_ptr_nonnull(S);
    ck_assert_int_eq(S->count, 0);
    mcb_problem_set_free(&S);
}

static void assert_outcome(const trace *t, const char *name, const char *unit, double below,
                           double above, int from)
{
    ck_assert_str_eq(t->o.name, name);
    ck_assert_str_eq(t->o.unit, unit);
    ck_assert_msg(isnan(below) ? isnan(t->o.fail_below) : t->o.fail_below == below,
                  "%s: fail_below %.17g, expected %.17g", name, t->o.fail_below, below);
    ck_assert_msg(isnan(above) ? isnan(t->o.fail_above) : t->o.fail_above == above,
                  "%s: fail_above %.17g, expected %.17g", name, t->o.fail_above, above);
    ck_assert_int_eq(t->o.from_step, from);
}

static double eval(mcb_world *w)
{
    const mcb_world_outcome *o = mcb_world_get_outcome(w);
    return o->eval(o->ctx, w);
}

/* Moves free body k to x, evaluates, puts it back. */
static double eval_moved(mcb_world *w, int k, double x, double y, double z)
{
    double *p = mcb_world_body(w, k)->pos, keep[3] = {p[0], p[1], p[2]};
    p[0] = x, p[1] = y, p[2] = z;
    double v = eval(w);
    memcpy(p, keep, sizeof keep);
    return v;
}

/* ---- stir: spheres escaped ----------------------------------------- */

static void stir_probe(trace *t, mcb_world *w)
{
    t->probed[0] = eval_moved(w, 0, 5, 0, 0.05);     /* beyond a wall */
    t->probed[1] = eval_moved(w, 1, 0, 0, -0.02);    /* through the floor */
    t->probed[2] = eval_moved(w, 2, NAN, 0, 0.05);   /* not finite */
    t->probed[3] = eval(w);                          /* put back */
}

START_TEST(stir_spheres_stay_in_the_box)
{
    char *argv[] = {"--spheres", "8", "--steps", "3"};
    trace t = {.probe = stir_probe, .probe_step = 2};
    run("stir", 4, argv, &t);
    ck_assert_int_eq(t.n, 3);
    assert_outcome(&t, "spheres_escaped", "spheres", NAN, 0, 0);
    for (int k = 0; k < t.n; k++) ck_assert_double_eq(t.v[k], 0);
    ck_assert_double_eq(t.probed[0], 1);
    ck_assert_double_eq(t.probed[1], 1);
    ck_assert_double_eq(t.probed[2], 1);
    ck_assert_double_eq(t.probed[3], 0);
    /* the energy bound: 1 J + the 8 spheres' weight x 1 m; the
     * penetration bound the default */
    ck_assert_double_eq_tol(t.opts.fail_energy_J, 1 + 8 * 0.004 * 9.81, 1e-12);
    ck_assert_double_eq(t.opts.fail_pen_m, 0);
}
END_TEST

/* ---- quadrupeds: the least uprightness ----------------------------- */

static void quad_probe(trace *t, mcb_world *w)
{
    double *q = mcb_robot_q(mcb_world_robot(w, 0)) + 3, keep[4];
    memcpy(keep, q, sizeof keep);
    const double c = cos(0.25 * PI), s = sin(0.25 * PI);
    q[0] = c, q[1] = s, q[2] = 0, q[3] = 0; /* rolled by 90 degrees: on its side */
    t->probed[0] = eval(w);
    q[0] = 0, q[1] = 1, q[2] = 0, q[3] = 0; /* rolled by 180 degrees: on its back */
    t->probed[1] = eval(w);
    q[0] = 2, q[1] = 0, q[2] = 0, q[3] = 0; /* level, quaternion not normalised */
    t->probed[2] = eval(w);
    memcpy(q, keep, sizeof keep);
    t->probed[3] = eval(w);
}

START_TEST(quadruped_stays_upright)
{
    char *argv[] = {"--robots", "1", "--steps", "40", "--tilt", "0.2"};
    trace t = {.probe = quad_probe, .probe_step = 40};
    run("quadrupeds", 6, argv, &t);
    ck_assert_int_eq(t.n, 40);
    assert_outcome(&t, "min_upright", "1 (cos of tilt)", 0.5, NAN, 0);
    /* dropped with a tilt of at most 0.2 rad in roll and pitch, it lands
     * (contacts after about 20 steps) and stays up */
    for (int k = 0; k < t.n; k++)
        ck_assert_msg(t.v[k] > cos(0.2) * cos(0.2) - 1e-3 && t.v[k] <= 1 + 1e-12,
                      "step %d: uprightness %g", k, t.v[k]);
    ck_assert_double_eq_tol(t.probed[0], 0, 1e-12);
    ck_assert_double_eq_tol(t.probed[1], -1, 1e-12);
    ck_assert_double_eq_tol(t.probed[2], 1, 1e-12);
    ck_assert_double_eq(t.probed[3], t.v[t.n - 1]);
}
END_TEST

START_TEST(quadruped_pile_is_not_judged)
{
    /* 8 robots: two layers, the upper ones land on the lower ones (the
     * reference run topples one): recorded, not judged; likewise a large
     * random tilt */
    char *argv[] = {"--robots", "8", "--steps", "1"};
    trace t = {0};
    run("quadrupeds", 4, argv, &t);
    assert_outcome(&t, "min_upright", "1 (cos of tilt)", NAN, NAN, 0);
    char *argv2[] = {"--robots", "1", "--steps", "1", "--tilt", "1"};
    trace t2 = {0};
    run("quadrupeds", 6, argv2, &t2);
    assert_outcome(&t2, "min_upright", "1 (cos of tilt)", NAN, NAN, 0);
}
END_TEST

/* ---- pouring: particles spilled ------------------------------------ */

static void pour_probe(trace *t, mcb_world *w)
{
    t->probed[0] = eval_moved(w, 0, 10, 10, -10); /* fallen past the cup */
    t->probed[1] = eval_moved(w, 1, NAN, 0, 0);
    t->probed[2] = eval_moved(w, 0, 10, 10, 10);  /* far above the rim: in flight */
    t->probed[3] = eval(w);
}

START_TEST(pouring_nothing_spilled)
{
    char *argv[] = {"--particles", "4", "--steps", "4", "--settle", "0"};
    trace t = {.probe = pour_probe, .probe_step = 4};
    run("pouring", 6, argv, &t);
    ck_assert_int_eq(t.n, 4);
    assert_outcome(&t, "particles_spilled", "particles", NAN, NAN, 0);
    for (int k = 0; k < t.n; k++) ck_assert_double_eq(t.v[k], 0);
    ck_assert_double_eq(t.probed[0], 1);
    ck_assert_double_eq(t.probed[1], 1);
    ck_assert_double_eq(t.probed[2], 0);
    ck_assert_double_eq(t.probed[3], 0);
    ck_assert_double_eq(t.opts.fail_pen_m, 0.005); /* a particle's radius */
    ck_assert_double_eq(t.opts.fail_energy_J, 0);
}
END_TEST

/* ---- wall: the projectile's advance -------------------------------- */

START_TEST(wall_projectile_advances)
{
    char *argv[] = {"--bricks", "6", "--steps", "4"};
    trace t = {0};
    run("wall", 4, argv, &t);
    ck_assert_int_eq(t.n, 4);
    assert_outcome(&t, "projectile_advance", "m", NAN, NAN, 0);
    /* 5 m/s at the start, slowed by the wall: it advances every step, by
     * less than 5 cm a step */
    double prev = 0;
    for (int k = 0; k < t.n; k++) {
        ck_assert_msg(t.v[k] > prev && t.v[k] - prev < 0.05 + 1e-12, "step %d: advance %g after %g",
                      k, t.v[k], prev);
        prev = t.v[k];
    }
    ck_assert_double_eq(t.opts.fail_energy_J, 0); /* the defaults */
    ck_assert_double_eq(t.opts.fail_pen_m, 0);
}
END_TEST

/* ---- cable: the largest gap ---------------------------------------- */

static void cable_probe(trace *t, mcb_world *w)
{
    /* segment 3 shifted by 1 cm: gaps of 1 cm to both neighbours */
    const double *p = mcb_world_body(w, 3)->pos;
    t->probed[0] = eval_moved(w, 3, p[0], p[1], p[2] + 0.01);
    /* the whole cable (8 segments) shifted by 2 cm along x: its joints
     * stay closed, its ends are 2 cm from the grippers */
    double keep[8];
    for (int k = 0; k < 8; k++) keep[k] = mcb_world_body(w, k)->pos[0];
    for (int k = 0; k < 8; k++) mcb_world_body(w, k)->pos[0] += 0.02;
    t->probed[1] = eval(w);
    for (int k = 0; k < 8; k++) mcb_world_body(w, k)->pos[0] = keep[k];
    t->probed[2] = eval_moved(w, 5, NAN, p[1], p[2]);
    t->probed[3] = eval(w);
}

START_TEST(cable_stays_in_one_piece)
{
    char *argv[] = {"--segments", "8", "--steps", "3"};
    trace t = {.probe = cable_probe, .probe_step = 3};
    run("cable", 4, argv, &t);
    ck_assert_int_eq(t.n, 3);
    /* the bound: half a segment of 1.2 m / 8 (more than the 8 mm diameter) */
    assert_outcome(&t, "cable_gap", "m", NAN, 0.5 * 1.2 / 8, 0);
    /* the cable starts unstretched, at rest: after one step its joints
     * have opened by 0.3 mm; then it sags (by 1.5 cm, a tenth of a
     * segment, at most in the first 40 steps) */
    ck_assert_msg(t.v[0] > 0 && t.v[0] < 1e-3, "step 1: gap %g", t.v[0]);
    for (int k = 0; k < t.n; k++)
        ck_assert_msg(t.v[k] >= 0 && t.v[k] < 0.1 * 1.2 / 8, "step %d: gap %g", k, t.v[k]);
    ck_assert_msg(t.probed[0] >= 0.01 - 1e-3 && t.probed[0] <= 0.01 + 1e-3, "gap %g", t.probed[0]);
    ck_assert_msg(t.probed[1] >= 0.02 - 1e-3 && t.probed[1] <= 0.02 + 1e-3, "gap %g", t.probed[1]);
    ck_assert(isnan(t.probed[2]));
    ck_assert_double_eq(t.probed[3], t.v[t.n - 1]);
    ck_assert_double_eq(t.opts.fail_pen_m, 0.004); /* the cable's radius */
    ck_assert_double_eq(t.opts.fail_energy_J, 0);
}
END_TEST

/* ---- franka-mat: the mat's internal force --------------------------- */

static void mat_probe(trace *t, mcb_world *w)
{
    mcb_fem *f = mcb_world_fem(w, 0);
    int N3 = 3 * mcb_fem_nnodes(f);
    double *x = mcb_fem_x(f), *keep = malloc(sizeof(double) * (size_t)N3);
    memcpy(keep, x, sizeof(double) * (size_t)N3);
    for (int k = 2; k < N3; k += 3) x[k] += 0.05; /* lifted rigidly by 5 cm */
    t->probed[0] = eval(w);
    memcpy(x, mcb_fem_rest(f), sizeof(double) * (size_t)N3); /* at rest */
    t->probed[1] = eval(w);
    for (int k = 0; k < N3; k += 3) x[k] = 1.01 * x[k]; /* stretched 1 % along x */
    t->probed[2] = eval(w);
    memcpy(x, keep, sizeof(double) * (size_t)N3);
    t->probed[3] = eval(w);
    free(keep);
}

START_TEST(franka_mat_internal_force)
{
    char *argv[] = {"--cells-x", "4", "--cells-y", "4", "--steps", "4"};
    trace t = {.probe = mat_probe, .probe_step = 3};
    run("franka-mat", 6, argv, &t);
    ck_assert_int_eq(t.n, 4);
    assert_outcome(&t, "internal_force", "N", NAN, NAN, 0); /* recorded, not judged */
    /* the mat sags under its weight on the floor and the pinch: some force */
    for (int k = 0; k < t.n; k++) ck_assert_msg(isfinite(t.v[k]) && t.v[k] > 0, "step %d: %g", k, t.v[k]);
    /* a rigid lift changes nothing, the rest state has none, a 1 % stretch
     * of a mat of E >= 0.1 MPa, 0.3 x 0.01 m in section, needs well over 1 N */
    ck_assert_double_eq_tol(t.probed[0], t.v[2], 1e-9 * t.v[2]);
    ck_assert_double_eq(t.probed[1], 0);
    ck_assert_double_gt(t.probed[2], 1.0);
    ck_assert_double_eq(t.probed[3], t.v[2]);
}
END_TEST

/* ---- franka-cable: the force on the end effector -------------------- */

START_TEST(franka_cable_end_effector_force)
{
    char *argv[] = {"--links", "8", "--steps", "4"};
    trace t = {0};
    run("franka-cable", 4, argv, &t);
    ck_assert_int_eq(t.n, 4);
    assert_outcome(&t, "ee_force", "N", NAN, NAN, 0); /* recorded, not judged */
    for (int k = 0; k < t.n; k++) ck_assert_msg(isfinite(t.v[k]) && t.v[k] > 0, "step %d: %g", k, t.v[k]);
    ck_assert_double_eq(t.opts.fail_pen_m, 0.002); /* the cable's radius */
}
END_TEST

/* ---- beam: the insertion depth ------------------------------------- */

START_TEST(beam_goes_in)
{
    char *argv[] = {"--cells", "1", "--length", "4", "--pieces", "2", "--steps", "14",
                    "--speed", "0.5"};
    trace t = {0};
    run("beam", 10, argv, &t);
    ck_assert_int_eq(t.n, 14);
    assert_outcome(&t, "insertion_depth", "m", 0.5 + 0.5 - 0.8 - 0.025, NAN, 0);
    /* the tip starts 0.2 m into the gap; the grip ramps up to 0.5 m/s over
     * 0.1 s (10 steps) and then moves 5 mm a step: the tip follows */
    ck_assert_msg(fabs(t.v[0] - 0.2) < 2e-3, "depth %g after the first step", t.v[0]);
    for (int k = 1; k < t.n; k++) ck_assert_msg(t.v[k] > t.v[k - 1], "step %d: depth %g after %g", k, t.v[k], t.v[k - 1]);
    double last = t.v[t.n - 1] - t.v[t.n - 2];
    ck_assert_msg(fabs(last - 0.005) < 1e-3, "the last step advanced the tip by %g", last);
    ck_assert_double_eq(t.opts.fail_pen_m, 0);
}
END_TEST

/* ---- peg-in-hole: the peg's depth in the hole ---------------------- */

static void peg_probe(trace *t, mcb_world *w)
{
    t->probed[0] = eval_moved(w, 0, 2, 0, 1.5);   /* off the hole, on a cube */
    t->probed[1] = eval_moved(w, 0, 0, 0, 1.6);   /* over the hole, 10 cm above it */
    t->probed[2] = eval(w);
}

START_TEST(peg_lands_in_the_hole)
{
    /* dropped from the rim: judged from step ceil(1.5 sqrt(2 x 0.5 / 9.81) /
     * 0.01) = 48 on; free fall to the floor takes 45 steps */
    char *argv[] = {"--steps", "50", "--drop", "0"};
    trace t = {.probe = peg_probe, .probe_step = 50};
    run("peg-in-hole", 4, argv, &t);
    ck_assert_int_eq(t.n, 50);
    assert_outcome(&t, "peg_depth", "m", 0, NAN, 48);
    /* free fall (implicit Euler: after n steps, g h^2 n (n + 1) / 2) down
     * the hole */
    for (int n = 1; n <= 40; n++)
        ck_assert_msg(fabs(t.v[n - 1] - 9.81e-4 * n * (n + 1) / 2) < 1e-6, "step %d: depth %g", n,
                      t.v[n - 1]);
    for (int k = 48; k < t.n; k++) ck_assert_msg(fabs(t.v[k] - 1) < 0.06, "step %d: depth %g", k, t.v[k]);
    ck_assert_double_eq_tol(t.probed[0], -1.5, 1e-12);
    ck_assert_double_eq_tol(t.probed[1], -0.1 - 0.5 * (1 - 0.99999), 1e-6);
    ck_assert_double_eq(t.probed[2], t.v[t.n - 1]);
}
END_TEST


/* ---- COND's scenes (issue 26): generation ---------------------------- */

/* Generates scene `name` twice (recorded, no loop): same count, every
 * problem valid and bitwise the same; returns the first set. */
static mcb_problem_set *gen_twice(const char *name, int argc, char **argv)
{
    const mcb_scene_def *def = mcb_scene_find(name);
    ck_assert_ptr_nonnull(def);
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err = {{0}};
    ck_assert_msg(mcb_scene_parse(def, argc, argv, vals, &err) == MCB_OK, "%s", err.msg);
    mcb_problem_set *S = NULL, *S2 = NULL;
    ck_assert_msg(def->generate(vals, NULL, &S, &err) == MCB_OK, "%s: %s", name, err.msg);
    ck_assert_msg(def->generate(vals, NULL, &S2, &err) == MCB_OK, "%s: %s", name, err.msg);
    ck_assert_int_eq(S->count, S2->count);
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k], *Q = S2->items[k];
        ck_assert_msg(mcb_problem_validate(P, name, &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(P->n, Q->n);
        ck_assert_int_eq(P->m, Q->m);
        ck_assert(!memcmp(P->b, Q->b, sizeof(double) * (size_t)P->n));
        ck_assert(!P->m || !memcmp(P->e, Q->e, sizeof(double) * (size_t)P->m));
        ck_assert(!memcmp(P->v_ref, Q->v_ref, sizeof(double) * (size_t)P->n));
        ck_assert(!P->m || !memcmp(P->lambda_ref, Q->lambda_ref, sizeof(double) * (size_t)P->m));
    }
    mcb_problem_set_free(&S2);
    return S;
}

/* ---- cube-push: the analytic sliding --------------------------------- */

START_TEST(cube_push_generates)
{
    char *argv[] = {"--steps", "5"};
    mcb_problem_set *S = gen_twice("cube-push", 2, argv);
    ck_assert_int_eq(S->count, 5);
    for (int k = 0; k < S->count; k++) {
        ck_assert_int_eq(S->items[k]->n, 6);
        ck_assert_int_eq(S->items[k]->m, 12); /* the 4 bottom corners */
    }
    mcb_problem_set_free(&S);
    char *pen[] = {"--steps", "5", "--contact", "1"};
    S = gen_twice("cube-push", 4, pen);
    for (int k = 0; k < S->count; k++) ck_assert_int_eq(S->items[k]->m, 0); /* no contact rows */
    mcb_problem_set_free(&S);
}
END_TEST

/* Known answer: with the constraint model and the world's tight solve
 * (1e-10) the cube slides exactly as the discrete analytic solution
 * (a = (10 - 0.5 x 1 x 9.81) / 1 = 5.095 m/s^2: 1.3 mm after 50 steps
 * of 1 ms), or sticks below the friction limit; the penalty models,
 * explicit springs, sink and lag: a nonzero error. */
START_TEST(cube_push_matches_the_analytic_solution)
{
    char *slide[] = {"--steps", "50"};
    trace t = {0};
    run("cube-push", 2, slide, &t);
    ck_assert_int_eq(t.n, 50);
    assert_outcome(&t, "position_error", "mm", NAN, NAN, 0);
    for (int k = 0; k < t.n; k++) ck_assert_msg(t.v[k] < 1e-6, "step %d: error %g mm", k, t.v[k]);
    char *stick[] = {"--steps", "50", "--push", "4"};
    trace s = {0};
    run("cube-push", 4, stick, &s);
    for (int k = 0; k < s.n; k++) ck_assert_msg(s.v[k] < 1e-6, "step %d: error %g mm", k, s.v[k]);
    double last[2];
    for (int g = 1; g <= 2; g++) {
        char model[2] = {(char)('0' + g), 0};
        char *pen[] = {"--steps", "50", "--contact", model};
        trace p = {0};
        run("cube-push", 4, pen, &p);
        last[g - 1] = p.v[p.n - 1];
        ck_assert_msg(last[g - 1] > 1e-3 && isfinite(last[g - 1]), "penalty%d: error %g mm", g,
                      last[g - 1]);
    }
    ck_assert(last[0] != last[1]);
}
END_TEST

/* ---- aniso-box: elliptic friction against maximal dissipation --------- */

/* J^T lambda on body 0's linear DOFs (the box's first three columns). */
static void box_impulse(const mcb_problem *P, const double *lambda, double p[3])
{
    for (int j = 0; j < 3; j++) {
        p[j] = 0.0;
        for (int a = P->J->p[j]; a < P->J->p[j + 1]; a++) p[j] += P->J->x[a] * lambda[P->J->i[a]];
    }
}

/* J's entry (row, col), 0 when absent. */
static double j_at(const mcb_problem *P, int row, int col)
{
    for (int a = P->J->p[col]; a < P->J->p[col + 1]; a++)
        if (P->J->i[a] == row) return P->J->x[a];
    return 0.0;
}

START_TEST(aniso_box_generates)
{
    char *argv[] = {"--steps", "5", "--mu1", "0.2", "--mu2", "0.6"};
    mcb_problem_set *S = gen_twice("aniso-box", 6, argv);
    ck_assert_int_eq(S->count, 5);
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        ck_assert_int_eq(P->n, 6);
        ck_assert_int_eq(P->m, 12);
        ck_assert_ptr_nonnull(P->mu2); /* format 5's constraints/mu2 recorded */
        for (int c = 0; c < 4; c++) {
            ck_assert_double_eq(P->blocks[c].mu, 0.2);
            ck_assert_double_eq(P->mu2[c], 0.6);
            /* the tangent frame along the floor's axes: t1 = x, t2 = y */
            ck_assert_double_eq_tol(fabs(j_at(P, 3 * c + 1, 0)), 1.0, 1e-15);
            ck_assert_double_eq_tol(j_at(P, 3 * c + 1, 1), 0.0, 1e-15);
            ck_assert_double_eq_tol(fabs(j_at(P, 3 * c + 2, 1)), 1.0, 1e-15);
            ck_assert_double_eq_tol(j_at(P, 3 * c + 2, 0), 0.0, 1e-15);
        }
        /* the step's friction impulse is not opposite to the sliding
         * velocity (maximal dissipation on the ellipse) */
        double p[3], *v = P->v_ref;
        box_impulse(P, P->lambda_ref, p);
        double cosang = -(p[0] * v[0] + p[1] * v[1]) / (hypot(p[0], p[1]) * hypot(v[0], v[1]));
        ck_assert_msg(cosang < 0.95, "step %d: friction at cos %.6f from -v", k, cosang);
    }
    mcb_problem_set_free(&S);
    /* a floor whose axis 1 is 30 degrees from x: the frames turn with it */
    char *turned[] = {"--steps", "2", "--mu1", "0.2", "--mu2", "0.6", "--axis", "30"};
    S = gen_twice("aniso-box", 8, turned);
    double c30 = cos(PI / 6), s30 = sin(PI / 6);
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        ck_assert_ptr_nonnull(P->mu2);
        for (int c = 0; c < 4; c++) {
            double t1[2] = {j_at(P, 3 * c + 1, 0), j_at(P, 3 * c + 1, 1)};
            double t2[2] = {j_at(P, 3 * c + 2, 0), j_at(P, 3 * c + 2, 1)};
            ck_assert_double_eq_tol(fabs(t1[0] * c30 + t1[1] * s30), 1.0, 1e-14);
            ck_assert_double_eq_tol(fabs(-t2[0] * s30 + t2[1] * c30), 1.0, 1e-14);
        }
    }
    mcb_problem_set_free(&S);
    /* the isotropic control: opposite to the velocity */
    char *iso[] = {"--steps", "3", "--mu1", "0.4", "--mu2", "0.4"};
    S = gen_twice("aniso-box", 6, iso);
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        double p[3], *v = P->v_ref;
        box_impulse(P, P->lambda_ref, p);
        double cosang = -(p[0] * v[0] + p[1] * v[1]) / (hypot(p[0], p[1]) * hypot(v[0], v[1]));
        ck_assert_msg(cosang > 1 - 1e-9, "step %d: isotropic friction at cos %.12f", k, cosang);
    }
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(aniso_box_follows_maximal_dissipation)
{
    /* 60 steps of 10 ms: the whole slide to rest for every pair (0.36 s at most) */
    const char *pairs[3][2] = {{"0.2", "0.6"}, {"0.6", "0.2"}, {"0.4", "0.4"}};
    double lateral[3];
    for (int q = 0; q < 3; q++) {
        char *mu1 = (char *)pairs[q][0], *mu2 = (char *)pairs[q][1];
        char *err_args[] = {"--steps", "60", "--dt", "0.01", "--mu1", mu1, "--mu2", mu2};
        trace t = {0};
        run("aniso-box", 8, err_args, &t);
        ck_assert_int_eq(t.n, 60);
        assert_outcome(&t, "position_error", "mm", NAN, NAN, 0);
        for (int k = 0; k < t.n; k++)
            ck_assert_msg(t.v[k] < 1e-6, "%s/%s step %d: error %g mm", mu1, mu2, k, t.v[k]);
        char *lat_args[] = {"--steps", "60", "--dt", "0.01", "--mu1", mu1, "--mu2", mu2, "--measure", "1"};
        trace l = {0};
        run("aniso-box", 10, lat_args, &l);
        assert_outcome(&l, "lateral_displacement", "mm", NAN, NAN, 0);
        lateral[q] = l.v[l.n - 1];
        char *yaw_args[] = {"--steps", "60", "--dt", "0.01", "--mu1", mu1, "--mu2", mu2, "--measure", "2"};
        trace y = {0};
        run("aniso-box", 10, yaw_args, &y);
        for (int k = 0; k < y.n; k++)
            ck_assert_msg(y.v[k] < 1e-6, "%s/%s step %d: yaw %g deg", mu1, mu2, k, y.v[k]);
    }
    /* the same launch relative to a floor turned by 30 degrees: the same
     * path relative to the launch, error-free against the turned reference */
    char *turned_err[] = {"--steps", "60", "--dt", "0.01", "--axis", "30", "--angle", "75"};
    trace te = {0};
    run("aniso-box", 8, turned_err, &te);
    for (int k = 0; k < te.n; k++)
        ck_assert_msg(te.v[k] < 1e-6, "turned floor, step %d: error %g mm", k, te.v[k]);
    char *turned_lat[] = {"--steps", "60", "--dt", "0.01", "--axis", "30", "--angle", "75",
                          "--measure", "1"};
    trace tl = {0};
    run("aniso-box", 10, turned_lat, &tl);
    ck_assert_double_eq_tol(tl.v[tl.n - 1], lateral[0], 1e-6);
    /* curved: mu2 > mu1 turns the launch (45 deg) towards x, to its right;
     * mu1 > mu2 to its left; straight when isotropic */
    ck_assert_msg(lateral[0] < -10, "0.2/0.6: lateral %g mm", lateral[0]);
    ck_assert_msg(lateral[1] > 10, "0.6/0.2: lateral %g mm", lateral[1]);
    ck_assert_msg(fabs(lateral[2]) < 1e-6, "isotropic: lateral %g mm", lateral[2]);
}
END_TEST

START_TEST(aniso_box_refuses_bad_friction)
{
    const mcb_scene_def *def = mcb_scene_find("aniso-box");
    ck_assert_ptr_nonnull(def);
    const char *bad[] = {"-0.1", "nan", "inf"};
    for (int k = 0; k < 3; k++) {
        char *argv[] = {"--mu2", (char *)bad[k]};
        double vals[MCB_SCENE_MAX_OPTS];
        mcb_err err = {{0}};
        mcb_rc rc = mcb_scene_parse(def, 2, argv, vals, &err);
        mcb_problem_set *S = NULL;
        if (rc == MCB_OK) rc = def->generate(vals, NULL, &S, &err);
        ck_assert_int_eq(rc, MCB_E_INPUT);
        ck_assert_ptr_null(S);
        ck_assert_msg(strstr(err.msg, "mu2"), "--mu2 %s: %s", bad[k], err.msg);
    }
    /* the scene's own check, for callers that bypass the option parser
     * (vals[1] is mu2, in scenes.c's order) */
    const double badv[3] = {-0.1, NAN, INFINITY};
    for (int k = 0; k < 3; k++) {
        double vals[MCB_SCENE_MAX_OPTS];
        mcb_err err = {{0}};
        ck_assert_int_eq(mcb_scene_parse(def, 0, NULL, vals, &err), MCB_OK);
        vals[1] = badv[k];
        mcb_problem_set *S = NULL;
        ck_assert_int_eq(def->generate(vals, NULL, &S, &err), MCB_E_INPUT);
        ck_assert_ptr_null(S);
        ck_assert_msg(strstr(err.msg, "--mu2"), "mu2 %g: %s", badv[k], err.msg);
    }
}
END_TEST

/* ---- soft-ball: grasped and lifted ------------------------------------ */

/* The mean height of mesh 0's nodes into probed[0]. */
static void mesh_height_probe(trace *t, mcb_world *w)
{
    mcb_fem *f = mcb_world_fem(w, 0);
    const double *x = mcb_fem_x(f);
    double z = 0;
    for (int k = 0; k < mcb_fem_nnodes(f); k++) z += x[3 * k + 2];
    t->probed[0] = z / mcb_fem_nnodes(f);
}

START_TEST(soft_ball_generates)
{
    char *argv[] = {"--cells", "3", "--steps", "3"};
    mcb_problem_set *S = gen_twice("soft-ball", 4, argv);
    ck_assert_int_eq(S->count, 3);
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.cells[0] = 3;
    mcb_fem *f = NULL;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_fem_ball(&o, &f, &err), MCB_OK);
    for (int k = 0; k < S->count; k++) {
        ck_assert_int_eq(S->items[k]->n, 3 * mcb_fem_nnodes(f) + 8); /* the ball and the gripper's 8 */
    }
    ck_assert_int_gt(S->items[2]->m, 0); /* resting on the floor */
    mcb_fem_free(&f);
    mcb_problem_set_free(&S);
}
END_TEST

/* At h = 10 ms: the fingers close over 20 steps (the gap is gone after
 * about 10), the base lifts 5 cm over the next 30: the ball goes up with
 * it (its start: centre at most 4.1 cm above the floor), and
 * its internal force, the gravity sag's alone before the grasp, grows. */
START_TEST(soft_ball_is_lifted)
{
    char *argv[] = {"--cells", "3", "--steps", "60", "--dt", "0.01"};
    trace t = {.probe = mesh_height_probe, .probe_step = 60};
    run("soft-ball", 6, argv, &t);
    ck_assert_int_eq(t.n, 60);
    assert_outcome(&t, "internal_force", "N", NAN, NAN, 0);
    for (int k = 0; k < t.n; k++) ck_assert_msg(isfinite(t.v[k]) && t.v[k] >= 0, "step %d: %g", k, t.v[k]);
    ck_assert_msg(t.v[59] > 2 * t.v[10], "internal force %g after the grasp, %g before", t.v[59], t.v[10]);
    ck_assert_msg(t.probed[0] > 0.041 + 0.045, "the ball's mean height %g after the lift", t.probed[0]);
}
END_TEST

/* ---- soft-gripper: the fingers grip the object ------------------------- */

START_TEST(soft_gripper_generates)
{
    char *argv[] = {"--cells", "1", "--steps", "3"};
    mcb_problem_set *S = gen_twice("soft-gripper", 4, argv);
    ck_assert_int_eq(S->count, 3);
    /* two fingers of 2 x 1 x 6 cells (3 x 2 x 7 = 42 nodes each) and the
     * object's 6; the kinematic jaws have none; 2 x 6 top-face joints */
    for (int k = 0; k < S->count; k++) {
        ck_assert_int_eq(S->items[k]->n, 3 * 84 + 6);
        ck_assert_int_ge(S->items[k]->m, 3 * 12 + 3 * 4); /* joints, the object on the floor */
    }
    mcb_problem_set_free(&S);
}
END_TEST

/* The object's height (free body 2: after the two jaws) into probed[0]. */
static void object_probe(trace *t, mcb_world *w)
{
    t->probed[0] = mcb_world_body(w, 2)->pos[2];
    t->probed[1] = mcb_world_body(w, 0)->pos[1]; /* the left jaw */
}

/* The jaws close 6 mm in 0.3 s (30 steps), the fingers touch after 3 mm:
 * the marker barely moves before the touch and by mm once squeezed; the
 * object stays on the floor. */
START_TEST(soft_gripper_squeezes)
{
    char *argv[] = {"--cells", "1", "--steps", "40"};
    trace t = {.probe = object_probe, .probe_step = 40};
    run("soft-gripper", 4, argv, &t);
    ck_assert_int_eq(t.n, 40);
    assert_outcome(&t, "marker_displacement", "mm", NAN, NAN, 0);
    for (int k = 0; k < t.n; k++) ck_assert_msg(isfinite(t.v[k]), "step %d: %g", k, t.v[k]);
    ck_assert_msg(t.v[5] < 0.5, "marker moved %g mm before the touch", t.v[5]);
    ck_assert_msg(t.v[39] > 1.0, "marker moved %g mm when squeezed", t.v[39]);
    ck_assert_double_eq_tol(t.probed[0], 0.015, 1e-3);
    ck_assert_double_eq_tol(t.probed[1], -(0.015 + 0.003 + 0.0005 + 0.005) + 0.006, 1e-9);
}
END_TEST

/* A scene that is not one trajectory sets no outcome: it refuses the loop. */
START_TEST(cases_refuse_the_loop)
{
    const char *names[] = {"stack", "bolt-nut", "dishes"};
    for (int s = 0; s < 3; s++) {
        const mcb_scene_def *def = mcb_scene_find(names[s]);
        ck_assert_ptr_nonnull(def);
        double vals[MCB_SCENE_MAX_OPTS];
        mcb_err err = {{0}};
        ck_assert_int_eq(mcb_scene_parse(def, 0, NULL, vals, &err), MCB_OK);
        trace t = {0};
        mcb_world_loop loop = {NULL, after, &t, NULL};
        mcb_problem_set *S = NULL;
        ck_assert_int_eq(def->generate(vals, &loop, &S, &err), MCB_E_INPUT);
        ck_assert_ptr_null(S);
        ck_assert_int_eq(t.n, 0);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scene_outcomes");
    TCase *tc = tcase_create("outcomes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, stir_spheres_stay_in_the_box);
    tcase_add_test(tc, quadruped_stays_upright);
    tcase_add_test(tc, quadruped_pile_is_not_judged);
    tcase_add_test(tc, pouring_nothing_spilled);
    tcase_add_test(tc, wall_projectile_advances);
    tcase_add_test(tc, cable_stays_in_one_piece);
    tcase_add_test(tc, beam_goes_in);
    tcase_add_test(tc, franka_mat_internal_force);
    tcase_add_test(tc, franka_cable_end_effector_force);
    tcase_add_test(tc, peg_lands_in_the_hole);
    tcase_add_test(tc, cases_refuse_the_loop);
    tcase_add_test(tc, cube_push_generates);
    tcase_add_test(tc, cube_push_matches_the_analytic_solution);
    tcase_add_test(tc, aniso_box_generates);
    tcase_add_test(tc, aniso_box_follows_maximal_dissipation);
    tcase_add_test(tc, aniso_box_refuses_bad_friction);
    tcase_add_test(tc, soft_ball_generates);
    tcase_add_test(tc, soft_ball_is_lifted);
    tcase_add_test(tc, soft_gripper_generates);
    tcase_add_test(tc, soft_gripper_squeezes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mcb_run_suite(suite());
}

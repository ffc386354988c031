/* scene_dishes.c: the dish-piling single-step test set of the CANAL paper
 * (Sec. VII-B1, Figs. 8-9; the ablation of Table II uses the
 * same cases): a bowl, a second bowl, a plate (0.1 kg each) and a 5 kg pot
 * stacked on the floor, each dish a thin shell of revolution (Appendix B,
 * eq. (45): the 2D profile O-A-B revolved about the axis, padded by d).
 *
 * What it does (docs/scenes.md): places the dishes upright from the bottom
 * up, each lowered onto the ones below until its surface samples clear
 * them by 0.5 mm (place_stack, drop_height); settles the stack quasi-
 * statically (settle_stack: velocities zeroed after each step, a looser
 * tolerance, not recorded); then each of `--wrenches` cases is one step
 * in a fresh world at the settled state, one random wrench per dish
 * through mcb_rigid.wrench (record_case), solved at the world's tight
 * tolerance or, failing that, at looser tiers stated in the problem's
 * notes. Problem k is "dishes-wNNN".
 *
 * Dishes (ours; the paper gives masses, not dimensions; profiles as r, z
 * of the mid-surface in metres, thickness = 2 d of eq. (45)): see DISHES
 * below. The second bowl is steeper than the first so that it rests on a
 * ring at its foot. Masses and inertias: uniform thin shells
 * (shell_mass_props).
 *
 * Allocates the worlds, sample buffers and the set; frees all on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_problem.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"
#include "solvers/solver.h"

/* option order in the registry table (scenes.c) */
enum { OPT_WRENCHES = 0, OPT_SETTLE = 1, OPT_SCALE = 2, OPT_SEED = 3 };

#define DISHES_N 4
#define DISHES_H_S (1.0 / 240.0) /* CANAL Sec. VII: every example uses 1/240 s */
#define DISHES_MU 0.4
#define DISHES_SPACING_M 0.003 /* surface samples: below the shell thickness, so
                                   that no rim passes between two samples */
#define DISHES_GAP0_M 0.5e-3      /* initial clearance between placed dishes */
#define DISHES_SETTLE_TOL 1e-6    /* the settling world's tolerance (not recorded) */
#define DISHES_SETTLE_ITERS 5000
#define DISHES_CASE_ITERS 4000    /* per solver and tier of a recorded case */
#define DISHES_LOOSE_TOL 1e-6     /* second tier: accepts up to 1e-4 (world.h: 100 x tol) */
#define DISHES_LOOSER_TOL 1e-4    /* third tier: accepts up to 1e-2 */
#define DISHES_CAP_PAIR 24        /* contacts per body pair after clustering */
#define DISHES_TORQUE_ARM_M 0.05 /* random torque = weight x this arm x scale */

typedef struct {
    const char *name;
    double mass_kg;
    int npts;
    double r[3], z[3];
    double thickness_m;
} dish_spec;

/* The stack from the bottom: name, mass, profile O-A-B (r, z in m), shell
 * thickness (2 d of eq. (45)); ours, the paper gives the masses only. */
static const dish_spec DISHES[DISHES_N] = {
    {"bowl", 0.1, 3, {0.0, 0.040, 0.085}, {0.0, 0.0, 0.040}, 0.004},
    {"bowl", 0.1, 3, {0.0, 0.035, 0.080}, {0.0, 0.0, 0.045}, 0.004},
    {"plate", 0.1, 3, {0.0, 0.085, 0.115}, {0.0, 0.0, 0.018}, 0.004},
    {"pot", 5.0, 3, {0.0, 0.070, 0.070}, {0.0, 0.0, 0.100}, 0.006},
};


/* Surface samples of shape s (shape frame); *pts allocated. */
static mcb_rc shape_samples(const mcb_shape *s, double **pts, int *n, mcb_err *err)
{
    double probe[3];
    int cnt = mcb_shape_samples(s, probe, 0);
    if (cnt <= 0) return mcb_fail(err, MCB_E_INPUT, "dishes: a dish has no surface samples");
    *pts = mcb_malloc((size_t)cnt * 3, sizeof(double));
    if (!*pts) return mcb_fail(err, MCB_E_NOMEM, "dishes: out of memory");
    *n = mcb_shape_samples(s, *pts, cnt);
    return MCB_OK;
}

/* Smallest signed distance between the dish being placed (shape s, frame
 * X, samples P) and the placed dishes (shapes, frames, samples), both
 * ways: samples of each against the other's distance. */
static double clearance(const mcb_shape *s, const mcb_xform *X, const double *P, int np,
                        const mcb_shape *placed, const mcb_xform *Xp, double *const *Pp,
                        const int *npp, int nplaced)
{
    double dmin = INFINITY, g[3], x[3];
    for (int j = 0; j < nplaced; j++) {
        for (int k = 0; k < np; k++) {
            mcb_xform_point(X, P + 3 * k, x);
            double d = mcb_shape_sdf(&placed[j], &Xp[j], x, g);
            if (d < dmin) dmin = d;
        }
        for (int k = 0; k < npp[j]; k++) {
            mcb_xform_point(&Xp[j], Pp[j] + 3 * k, x);
            double d = mcb_shape_sdf(s, X, x, g);
            if (d < dmin) dmin = d;
        }
    }
    return dmin;
}

/* Lowers the dish (frame X, upright) from z_top in 1 mm steps (less than
 * any shell thickness, so it cannot pass through one) until it comes
 * closer than gap to a placed dish, then bisects the last interval; sets
 * X->p[2] to the lowest height with clearance >= gap. */
static void drop_height(const mcb_shape *s, mcb_xform *X, const double *P, int np,
                        const mcb_shape *placed, const mcb_xform *Xp, double *const *Pp,
                        const int *npp, int nplaced, double z_top, double gap)
{
    double hi = z_top, lo = z_top;
    for (;;) {
        lo = hi - 1e-3;
        X->p[2] = lo;
        if (clearance(s, X, P, np, placed, Xp, Pp, npp, nplaced) < gap) break;
        hi = lo;
    }
    for (int it = 0; it < 40; it++) {
        double mid = 0.5 * (lo + hi);
        X->p[2] = mid;
        if (clearance(s, X, P, np, placed, Xp, Pp, npp, nplaced) < gap) lo = mid;
        else hi = mid;
    }
    X->p[2] = hi;
}

/* A uniform point in the unit ball (rejection; deterministic). */
static void unit_ball(mcb_rng *rng, double u[3])
{
    do {
        for (int k = 0; k < 3; k++) u[k] = 2 * mcb_rng_uniform(rng) - 1;
    } while (mcb_v3_dot(u, u) > 1);
}

/* The scene: the floor (shape 0, static) and the dishes (shape d + 1 on
 * rigid body d), with their states. */
typedef struct {
    mcb_shape shapes[DISHES_N + 1];
    mcb_rigid rigid[DISHES_N];
} dish_stack;

/* Places the floor and the four dishes from the bottom up. */
static mcb_rc place_stack(dish_stack *st, mcb_rng *rng, mcb_err *err)
{
    mcb_shape *floor_s = &st->shapes[0];
    memset(floor_s, 0, sizeof *floor_s);
    floor_s->type = MCB_SHAPE_PLANE;
    floor_s->body = -1;
    floor_s->local = mcb_xform_identity();
    floor_s->mu = DISHES_MU;

    mcb_xform Xp[DISHES_N + 1];
    double *Pp[DISHES_N + 1] = {0};
    int npp[DISHES_N + 1] = {0};
    Xp[0] = mcb_xform_identity();
    double z_top = 0.02;
    mcb_rc rc = MCB_OK;
    for (int d = 0; d < DISHES_N && !rc; d++) {
        const dish_spec *ds = &DISHES[d];
        mcb_shape *s = &st->shapes[d + 1];
        memset(s, 0, sizeof *s);
        s->type = MCB_SHAPE_REVOLUTION;
        s->body = d;
        s->profile.npts = ds->npts;
        for (int k = 0; k < ds->npts; k++) s->profile.r[k] = ds->r[k], s->profile.z[k] = ds->z[k];
        s->profile.thickness = ds->thickness_m;
        s->spacing = DISHES_SPACING_M;
        s->mu = DISHES_MU;
        double zc, I[9];
        mcb_profile_shell_mass(&s->profile, ds->mass_kg, &zc, I);
        s->local = mcb_xform_identity();
        s->local.p[2] = -zc; /* body frame at the centre of mass */

        rc = shape_samples(s, &Pp[d + 1], &npp[d + 1], err);
        if (rc) break;
        /* a small random lateral offset (1 mm) so the stack is not exactly coaxial */
        mcb_xform X = mcb_xform_identity();
        X.p[0] = 1e-3 * (2 * mcb_rng_uniform(rng) - 1);
        X.p[1] = 1e-3 * (2 * mcb_rng_uniform(rng) - 1);
        drop_height(s, &X, Pp[d + 1], npp[d + 1], st->shapes, Xp, Pp, npp, d + 1, z_top + 0.01,
                    DISHES_GAP0_M);
        Xp[d + 1] = X;
        double top = X.p[2] + ds->z[ds->npts - 1] + ds->thickness_m;
        if (top > z_top) z_top = top;

        mcb_rigid *b = &st->rigid[d];
        memset(b, 0, sizeof *b);
        b->mass_kg = ds->mass_kg;
        memcpy(b->inertia, I, sizeof I);
        b->pos[0] = X.p[0], b->pos[1] = X.p[1], b->pos[2] = X.p[2] + zc;
        b->quat[0] = 1;
    }
    for (int k = 0; k <= DISHES_N; k++) free(Pp[k]);
    return rc;
}

/* A world holding the stack in its current state. */
static mcb_rc stack_world(const dish_stack *st, const mcb_world_opts *o, mcb_world **out,
                          mcb_err *err)
{
    mcb_world *w = NULL;
    mcb_rc rc = mcb_world_new(o, &w, err);
    if (!rc) rc = mcb_world_add_shape(w, &st->shapes[0], err);
    for (int d = 0; d < DISHES_N && !rc; d++) {
        int idx;
        rc = mcb_world_add_body(w, &st->rigid[d], &idx, err);
        mcb_shape s = st->shapes[d + 1];
        s.body = idx;
        if (!rc) rc = mcb_world_add_shape(w, &s, err);
    }
    if (rc) {
        mcb_world_free(&w);
        return rc;
    }
    *out = w;
    return MCB_OK;
}

static mcb_rc step_quiet(mcb_world *w, mcb_err *err)
{
    mcb_step_info info;
    return mcb_world_step(w, NULL, &info, err);
}

/* The world options of both phases: h, the clustering cap, and the solver
 * that advances the stack: Siconos' ADMM where it is built (it solves the
 * settled stack to 1e-10 in a few hundred iterations where pgs and subadmm
 * stall near 1e-6, the paper's observation), else pgs; subadmm falls back. */
static void dish_opts(mcb_world_opts *o)
{
    mcb_world_defaults(o);
    o->h_s = DISHES_H_S;
    o->cap_per_pair = DISHES_CAP_PAIR;
    o->solver = mcb_solver_find("siconos_admm") ? "siconos_admm" : "pgs";
    o->fallback = "subadmm";
}

/* Settles the stack quasi-statically: `settle` steps under gravity in a
 * world advanced at a looser tolerance (the pot landing on the light plate
 * is a hard problem, CANAL Sec. VII-B1), the velocities removed after each
 * step; the settled poses go back into st. */
static mcb_rc settle_stack(dish_stack *st, int settle, mcb_err *err)
{
    mcb_world_opts o;
    dish_opts(&o);
    o.tol = DISHES_SETTLE_TOL;
    o.max_iters = DISHES_SETTLE_ITERS;
    mcb_world *w = NULL;
    mcb_rc rc = stack_world(st, &o, &w, err);
    for (int k = 0; k < settle && !rc; k++) {
        rc = step_quiet(w, err);
        for (int d = 0; d < DISHES_N; d++) memset(mcb_world_body(w, d)->vel, 0, 6 * sizeof(double));
    }
    for (int d = 0; d < DISHES_N && !rc; d++) {
        const mcb_rigid *b = mcb_world_body(w, d);
        memcpy(st->rigid[d].pos, b->pos, sizeof b->pos);
        memcpy(st->rigid[d].quat, b->quat, sizeof b->quat);
    }
    mcb_world_free(&w);
    return rc;
}

/* One wrench case in a fresh world at the settled state (so every case
 * starts from the same state, whatever the order), advanced with solver /
 * fallback at tolerance tol; wrench = the case's wrenches (4 x 6). */
static mcb_rc case_step(const dish_stack *st, const char *prefix, const char *source,
                        const double *wrench, const char *solver, const char *fallback,
                        double tol, mcb_problem **out, mcb_step_info *info, mcb_err *err)
{
    mcb_world_opts o;
    dish_opts(&o);
    o.solver = solver;
    o.fallback = fallback;
    o.tol = tol;
    o.max_iters = DISHES_CASE_ITERS;
    mcb_world *w = NULL;
    mcb_rc rc = stack_world(st, &o, &w, err);
    if (!rc)
        rc = mcb_world_describe(w, prefix, "dishes", source,
                                "CANAL Sec. VII-B1 single-step test: bowl, bowl, plate (0.1 kg) "
                                "and pot (5 kg), settled, one random wrench per dish",
                                err);
    for (int d = 0; d < DISHES_N && !rc; d++)
        memcpy(mcb_world_body(w, d)->wrench, wrench + 6 * d, 6 * sizeof(double));
    if (!rc) rc = mcb_world_step(w, out, info, err);
    mcb_world_free(&w);
    return rc;
}

/* One wrench case: random wrenches (force up to scale x the dish's weight,
 * torque up to that x 5 cm, uniform in balls), recorded at the world's
 * tight default tolerance by pgs with Siconos' ADMM as the fallback
 * (subadmm where Siconos is not built); a case neither reaches is recorded at DISHES_LOOSE_TOL, then
 * DISHES_LOOSER_TOL, its notes giving the reference's residual (the hard
 * cases stay in the set: they are the data, CANAL Sec. VII-B1). */
static mcb_rc record_case(const dish_stack *st, int c, double scale, const char *source,
                          mcb_rng *rng, mcb_problem **out, mcb_err *err)
{
    double wrench[6 * DISHES_N];
    for (int d = 0; d < DISHES_N; d++) {
        double weight = st->rigid[d].mass_kg * 9.81, u[3];
        unit_ball(rng, u);
        for (int k = 0; k < 3; k++) wrench[6 * d + k] = scale * weight * u[k];
        unit_ball(rng, u);
        for (int k = 0; k < 3; k++)
            wrench[6 * d + 3 + k] = scale * weight * DISHES_TORQUE_ARM_M * u[k];
    }
    char prefix[32];
    snprintf(prefix, sizeof prefix, "dishes-w%03d", c);
    int admm = mcb_solver_find("siconos_admm") != NULL;
    mcb_world_opts d0;
    mcb_world_defaults(&d0);
    const double tols[3] = {d0.tol, DISHES_LOOSE_TOL, DISHES_LOOSER_TOL};
    mcb_problem *P = NULL;
    mcb_step_info info;
    int loose = 0;
    mcb_rc rc = MCB_E_NUMERIC;
    for (; loose < 3 && rc == MCB_E_NUMERIC; loose++) { /* NUMERIC: neither solver got there */
        mcb_err_clear(err);
        rc = case_step(st, prefix, source, wrench, "pgs", admm ? "siconos_admm" : "subadmm",
                       tols[loose], &P, &info, err);
    }
    loose--;
    if (rc) return rc;
    char notes[400], *nm = mcb_strdup(prefix), *nt;
    snprintf(notes, sizeof notes, "%s; reference natmap %.3g%s", P->notes ? P->notes : "",
             info.residual, loose ? " (neither solver reached 1e-8)" : "");
    nt = mcb_strdup(notes);
    if (!nm || !nt) {
        free(nm), free(nt);
        mcb_problem_free(&P);
        return mcb_fail(err, MCB_E_NOMEM, "dishes: out of memory");
    }
    free(P->name), free(P->notes);
    P->name = nm, P->notes = nt;
    *out = P;
    return MCB_OK;
}

mcb_rc mcb_scene_dishes(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (loop)
        return mcb_fail(err, MCB_E_INPUT,
                        "dishes: records independent single-step cases from a settled stack, not one trajectory: it cannot run in a closed loop");
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "dishes: NULL argument");
    *out = NULL;
    int nwrench = (int)vals[OPT_WRENCHES], settle = (int)vals[OPT_SETTLE];
    double scale = vals[OPT_SCALE];
    if (nwrench < 1 || settle < 1 || !(scale >= 0))
        return mcb_fail(err, MCB_E_INPUT, "dishes: need --wrenches >= 1, --settle >= 1, --scale >= 0");
    const mcb_scene_def *def = mcb_scene_find("dishes");
    char source[512];
    if (def) mcb_scene_args(def, vals, source, sizeof source);
    else snprintf(source, sizeof source, "dishes");

    mcb_rng rng;
    mcb_rng_seed(&rng, (unsigned long long)vals[OPT_SEED]);
    dish_stack st;
    mcb_problem_set *S = NULL;
    mcb_rc rc = place_stack(&st, &rng, err);
    if (!rc) rc = settle_stack(&st, settle, err);
    if (!rc && !(S = mcb_calloc(1, sizeof *S))) rc = mcb_fail(err, MCB_E_NOMEM, "dishes: out of memory");
    for (int c = 0; c < nwrench && !rc; c++) {
        mcb_problem *P = NULL;
        rc = record_case(&st, c, scale, source, &rng, &P, err);
        if (!rc) {
            rc = mcb_problem_set_push(S, P, err);
            if (rc) mcb_problem_free(&P);
        }
    }
    if (rc) {
        mcb_problem_set_free(&S);
        return rc;
    }
    *out = S;
    return MCB_OK;
}

/* ---------------------------------------------------------------------
 * dish-piling: the CANAL paper's closed-loop piling (Sec. VII-B2) as one
 * trajectory: the stack settled as above, then the 5 kg pot lifted by
 * `--lift` and held by a Cartesian impedance (soft point and angular
 * joints) to a scripted hand (a kinematic body) that lowers it onto the
 * plate in `--lower` seconds and then holds still. The paper's robot (a
 * Franka arm with an Allegro hand under joint impedance control, 47 DOF)
 * is replaced by the impedance acting on the pot directly: the contact
 * problem of the piling (the heavy pot landing on the light plate, the
 * mass ratio 50 of the paper) is the same. Outcome: the stack's
 * stability, the largest displacement of the bowls and the plate from
 * their settled positions (m); the run fails above 5 mm (the stack
 * slides) or at a penetration above 2 mm (half a shell). */

enum { OPT_P_STEPS = 0, OPT_P_LIFT = 1, OPT_P_LOWER = 2, OPT_P_SETTLE = 3, OPT_P_SEED = 4 };
#define PILE_K_N_M 2000.0    /* impedance: translational stiffness */
#define PILE_D_NS_M 200.0    /*   and damping (critical for the 5 kg pot) */
#define PILE_K_NM_RAD 20.0   /*   rotational stiffness */
#define PILE_D_NMS_RAD 1.5   /*   and damping (about critical) */
#define PILE_FAIL_PEN_M 2e-3
#define PILE_FAIL_MOVE_M 5e-3

typedef struct {
    double pos0[DISHES_N - 1][3]; /* the settled bowls and plate */
} piling_ctx;

static double stack_motion(const void *c, mcb_world *w)
{
    const piling_ctx *p = c;
    double mx = 0.0;
    for (int d = 0; d < DISHES_N - 1; d++) {
        const double *x = mcb_world_body(w, d)->pos;
        double dx = x[0] - p->pos0[d][0], dy = x[1] - p->pos0[d][1], dz = x[2] - p->pos0[d][2];
        double r = sqrt(dx * dx + dy * dy + dz * dz);
        if (!(r <= mx)) mx = r;
    }
    return mx;
}

mcb_rc mcb_scene_dish_piling(const double *vals, const struct mcb_world_loop *loop,
                             mcb_problem_set **out, mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "dish-piling: NULL argument");
    *out = NULL;
    int steps = (int)vals[OPT_P_STEPS], settle = (int)vals[OPT_P_SETTLE];
    double lift = vals[OPT_P_LIFT], lower = vals[OPT_P_LOWER];
    if (steps < 1 || settle < 1 || !(lift >= 0) || !(lower > 0))
        return mcb_fail(err, MCB_E_INPUT,
                        "dish-piling: need --steps >= 1, --settle >= 1, --lift >= 0, --lower > 0");
    char source[512];
    mcb_scene_args_named("dish-piling", vals, source, sizeof source);
    mcb_rng rng;
    mcb_rng_seed(&rng, (unsigned long long)vals[OPT_P_SEED]);
    dish_stack st;
    mcb_rc rc = place_stack(&st, &rng, err);
    if (!rc) rc = settle_stack(&st, settle, err);
    if (rc) return rc;
    piling_ctx ctx;
    for (int d = 0; d < DISHES_N - 1; d++) memcpy(ctx.pos0[d], st.rigid[d].pos, sizeof ctx.pos0[d]);
    /* the pot lifted, the hand holding it there */
    const int pot = DISHES_N - 1;
    st.rigid[pot].pos[2] += lift;
    mcb_rigid hand = st.rigid[pot];
    hand.kinematic = 1;

    mcb_world_opts o;
    dish_opts(&o);
    o.tol = DISHES_SETTLE_TOL;
    o.max_iters = DISHES_SETTLE_ITERS;
    o.loop = loop;
    o.fail_pen_m = PILE_FAIL_PEN_M;
    mcb_world *w = NULL;
    int ih = -1;
    rc = stack_world(&st, &o, &w, err);
    if (!rc) rc = mcb_world_add_body(w, &hand, &ih, err);
    if (!rc)
        rc = mcb_world_add_impedance(w, ih, pot, PILE_K_N_M, PILE_D_NS_M, PILE_K_NM_RAD,
                                     PILE_D_NMS_RAD, err);
    mcb_world_outcome oc = {"stack_motion", "m", stack_motion, &ctx, NAN, PILE_FAIL_MOVE_M, 0};
    if (!rc) mcb_world_set_outcome(w, &oc);
    if (!rc)
        rc = mcb_world_describe(w, "dish-piling", "dish-piling", source,
                                "CANAL Sec. VII-B2 closed-loop piling: the 5 kg pot lowered onto "
                                "the settled bowl-bowl-plate stack by an impedance to a scripted hand",
                                err);
    mcb_problem_set *S = mcb_calloc(1, sizeof *S);
    if (!rc && !S) rc = mcb_fail(err, MCB_E_NOMEM, "dish-piling: out of memory");
    for (int k = 0; k < steps && !rc; k++) {
        /* the hand descends at lift / lower until it is back at the settled pose */
        mcb_rigid *H = mcb_world_body(w, ih);
        H->vel[2] = (k + 1) * DISHES_H_S <= lower ? -lift / lower : 0.0;
        mcb_step_info info;
        rc = mcb_world_step_into(w, S, &info, err);
    }
    mcb_world_free(&w);
    if (rc) {
        mcb_problem_set_free(&S);
        return rc;
    }
    *out = S;
    return MCB_OK;
}

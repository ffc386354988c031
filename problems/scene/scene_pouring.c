/* scene_pouring.c: the particle-pouring scene of the CANAL paper (Sec.
 * VII-C, Figs. 10 and 11): a 28-DOF dual-arm upper body (robot_models.c,
 * mcb_robot_dual_arm: fixed base, high-gain joint PD) holds a bottle of
 * `--particles` spheres (radius 5 mm, density 10 g/cm^3) and tilts it so
 * that the particles pour out into a cup below; `--steps` steps of the
 * pouring motion are recorded (h = 1/240 s, Sec. VII).
 *
 * Simplification (docs/scenes.md): the paper's robot reaches for and
 * grasps the bottle by contact; here the bottle is welded to the right
 * hand as an extra link with a fixed joint (so it is part of the robot and
 * adds no DOF: the DOF stay 28 + 6 particles), held from the start, and
 * the recording covers the tilt (the pouring proper), not the reach.
 *
 * Steps (static helpers in order):
 *   with_bottle:     the dual arm's links and shapes plus the bottle link;
 *   the robot's nominal pose (robot_models.c: upper arms down, forearms
 *   forward), the bottle upright against the right palm's outer side;
 *   tilt_joint:      the distal joint of the holding arm that tilts the
 *                    bottle's axis most (found numerically, so the scene
 *                    does not depend on joint names);
 *   add_particles:   spheres on a jittered grid inside the bottle (fixed
 *                    seed), bottom up;
 *   add_cup:         a static cup under the bottle's mouth at the end of
 *                    the tilt;
 *   then `--settle` unrecorded steps holding still, then the recorded
 *   steps with the tilt joint's target following a smoothstep from 0 to
 *   POUR_TILT_RAD over POUR_TILT_S (q_ref and v_ref).
 *
 * Closed loop (docs/scenes.md): the outcome is the count of particles
 * spilled (below the cup's rim and outside it), recorded and not judged
 * (the reference run itself spills 8 of 9 particles, 19 of 27, 1 of 45);
 * penetration fails beyond a particle's radius (the shells are thinner
 * than the default bound).
 *
 * Allocates the world (which owns the robot) and the set; frees all on
 * failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_problem.h"
#include "problems/scene/robot_models.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

/* option order in the registry table (scenes.c) */
enum { OPT_PARTICLES = 0, OPT_STEPS = 1, OPT_SETTLE = 2, OPT_SEED = 3 };

#define POUR_PI 3.14159265358979323846
#define POUR_H_S (1.0 / 240.0)      /* CANAL Sec. VII */
#define POUR_R_M 0.005              /* particle radius (Sec. VII-C) */
#define POUR_RHO_KG_M3 10000.0      /* 10 g/cm^3 (Sec. VII-C) */
#define POUR_MU 0.5
#define POUR_BOTTLE_KG 0.15
#define POUR_BOTTLE_T_M 0.003       /* shell thickness */
#define POUR_TILT_RAD 2.4           /* about 140 degrees */
#define POUR_TILT_S 0.6             /* duration of the tilt */
#define POUR_MAX_PARTICLES 63       /* three layers of 21 */
#define POUR_CAP_PAIR 4             /* clustering cap per body pair */

/* The bottle's mid-surface profile (r, z), metres: a 7 cm wide body with a
 * 1 cm fillet at the bottom, a rounded shoulder from 9 to 12.5 cm and a
 * neck 4.4 cm wide up to 15 cm; open at the top. The fillets keep the
 * nearest point of the shell moving smoothly under a particle in a corner
 * (with a sharp inner corner the one sphere-shell contact jumps between
 * the bottom and the wall and the steps become much harder to solve). */
static const double BOTTLE_R[] = {0.0, 0.025, 0.030, 0.03366, 0.035, 0.035, 0.033, 0.027, 0.022, 0.022};
static const double BOTTLE_Z[] = {0.0, 0.0, 0.00134, 0.005, 0.010, 0.090, 0.105, 0.117, 0.125, 0.150};
#define BOTTLE_NPTS 10
#define BOTTLE_RMAX_M 0.035
/* The receiving cup (static). */
static const double CUP_R[] = {0.0, 0.07, 0.09};
static const double CUP_Z[] = {0.0, 0.0, 0.08};
#define CUP_NPTS 3
#define CUP_DROP_M 0.25 /* cup bottom below the bottle's mouth at full tilt */
#define CUP_T_M 0.004   /* cup shell thickness */

static void profile_shape(mcb_shape *s, const double *r, const double *z, int n, double t)
{
    memset(s, 0, sizeof *s);
    s->type = MCB_SHAPE_REVOLUTION;
    s->local = mcb_xform_identity();
    s->profile.npts = n;
    for (int k = 0; k < n; k++) s->profile.r[k] = r[k], s->profile.z[k] = z[k];
    s->profile.thickness = t;
    s->mu = POUR_MU;
}


/* The link of the dual arm that holds the bottle: the right palm
 * (robot_models.c names it "right_palm"; other right-hand names are
 * accepted), else the last link. */
static int hand_link(const mcb_robot *r)
{
    static const char *names[] = {"r_hand", "right_hand", "r_palm", "right_palm", "r_gripper",
                                  "right_gripper", "r_wrist", "right_wrist", NULL};
    int n = mcb_robot_nlinks(r);
    for (int j = 0; names[j]; j++)
        for (int k = 0; k < n; k++)
            if (strstr(mcb_robot_link(r, k)->name, names[j])) return k;
    return n - 1;
}

/* The dual arm with the bottle welded to link `hand` (a fixed joint,
 * placement `grip`: the bottle frame in the hand frame); shapes copied,
 * all in group 0 (the world gives a robot's group-0 shapes one group: no
 * contacts between the bottle and the hand). */
static mcb_rc with_bottle(const mcb_robot *r0, const mcb_xform *base, int hand,
                          const mcb_xform *grip, mcb_robot **out, mcb_err *err)
{
    int n = mcb_robot_nlinks(r0);
    mcb_link *links = mcb_calloc((size_t)n + 1, sizeof *links);
    if (!links) return mcb_fail(err, MCB_E_NOMEM, "pouring: out of memory");
    for (int k = 0; k < n; k++) links[k] = *mcb_robot_link(r0, k);
    mcb_shape bottle;
    profile_shape(&bottle, BOTTLE_R, BOTTLE_Z, BOTTLE_NPTS, POUR_BOTTLE_T_M);
    mcb_link *b = &links[n];
    snprintf(b->name, sizeof b->name, "bottle");
    b->parent = hand;
    b->joint = MCB_JOINT_FIXED;
    b->axis[2] = 1;
    b->placement = *grip;
    b->mass_kg = POUR_BOTTLE_KG;
    double zc;
    mcb_profile_shell_mass(&bottle.profile, POUR_BOTTLE_KG, &zc, b->inertia);
    b->com[2] = zc;
    mcb_robot *r = NULL;
    mcb_rc rc = mcb_robot_new("dual_arm+bottle", mcb_robot_floating(r0), base, links, n + 1, &r, err);
    free(links);
    if (rc) return rc;
    int ns = 0;
    const mcb_shape *sh = mcb_robot_shapes(r0, &ns);
    for (int k = 0; k < ns && !rc; k++) rc = mcb_robot_add_shape(r, &sh[k], err);
    bottle.body = n;
    if (!rc) rc = mcb_robot_add_shape(r, &bottle, err);
    if (rc) {
        mcb_robot_free(&r);
        return rc;
    }
    *out = r;
    return MCB_OK;
}

/* The joint position index of link k (floating base: after the 7 base
 * coordinates; velocity index + 1). */
static int q_index(const mcb_robot *r, int k)
{
    int d = mcb_robot_dof_of_link(r, k);
    return mcb_robot_floating(r) ? d + 1 : d;
}

/* The joint target index of link k: moving joints in link order. */
static int ref_index(const mcb_robot *r, int k)
{
    int d = mcb_robot_dof_of_link(r, k);
    return mcb_robot_floating(r) ? d - 6 : d;
}

/* The unit axis (world) of link k's z axis. */
static void link_axis(const mcb_robot *r, int k, double a[3])
{
    const mcb_xform *X = mcb_robot_link_pose(r, k);
    a[0] = X->R[2], a[1] = X->R[5], a[2] = X->R[8];
}

/* The moving joint on the chain from the bottle link to the base, among
 * the four nearest the bottle, whose small rotation tilts the bottle axis
 * most; returns its link index (-1: none). Leaves q as it found it. */
static int tilt_joint(mcb_robot *r, int bottle)
{
    double *q = mcb_robot_q(r), a0[3], a1[3];
    mcb_robot_update(r);
    link_axis(r, bottle, a0);
    int best = -1, seen = 0;
    double best_eff = 0;
    for (int k = mcb_robot_link(r, bottle)->parent; k >= 0 && seen < 4;
         k = mcb_robot_link(r, k)->parent) {
        if (mcb_robot_dof_of_link(r, k) < 0) continue;
        seen++;
        int qi = q_index(r, k);
        double keep = q[qi];
        q[qi] = keep + 0.1;
        mcb_robot_update(r);
        link_axis(r, bottle, a1);
        q[qi] = keep;
        double dv[3] = {a1[0] - a0[0], a1[1] - a0[1], a1[2] - a0[2]};
        double eff = mcb_v3_norm(dv);
        if (eff > best_eff + 1e-9) best_eff = eff, best = k;
    }
    mcb_robot_update(r);
    return best;
}

/* Spheres on a jittered grid (spacing 2 r + 1 mm) inside the bottle, in
 * layers from the bottom; bottle frame X. */
static mcb_rc add_particles(mcb_world *w, const mcb_xform *X, int n, mcb_rng *rng, mcb_err *err)
{
    double rin = BOTTLE_RMAX_M - 0.5 * POUR_BOTTLE_T_M - POUR_R_M - 1e-3;
    double sp = 2 * POUR_R_M + 1e-3, m = POUR_RHO_KG_M3 * 4.0 / 3.0 * POUR_PI * pow(POUR_R_M, 3);
    double inertia = 0.4 * m * POUR_R_M * POUR_R_M;
    int placed = 0;
    mcb_rc rc = MCB_OK;
    for (int layer = 0; placed < n && !rc; layer++) {
        double z = 0.5 * POUR_BOTTLE_T_M + POUR_R_M + 1e-3 + layer * sp;
        for (int i = -3; i <= 3 && placed < n && !rc; i++)
            for (int j = -3; j <= 3 && placed < n && !rc; j++) {
                double x = i * sp, y = j * sp;
                if (hypot(x, y) > rin) continue;
                double loc[3] = {x + 2e-4 * (2 * mcb_rng_uniform(rng) - 1),
                                 y + 2e-4 * (2 * mcb_rng_uniform(rng) - 1), z};
                mcb_rigid b;
                memset(&b, 0, sizeof b);
                b.mass_kg = m;
                b.inertia[0] = b.inertia[4] = b.inertia[8] = inertia;
                mcb_xform_point(X, loc, b.pos);
                b.quat[0] = 1;
                rc = mcb_world_add_primitive(w, &b, MCB_SHAPE_SPHERE, (double[3]){POUR_R_M},
                                             POUR_MU, NULL, err);
                placed++;
            }
    }
    return rc;
}

/* The static cup, centred under the point `mouth` (world); its bottom
 * centre in cup[3]. */
static mcb_rc add_cup(mcb_world *w, const double mouth[3], double cup[3], mcb_err *err)
{
    mcb_shape s;
    profile_shape(&s, CUP_R, CUP_Z, CUP_NPTS, CUP_T_M);
    s.body = -1;
    s.local.p[0] = mouth[0], s.local.p[1] = mouth[1], s.local.p[2] = mouth[2] - CUP_DROP_M;
    memcpy(cup, s.local.p, 3 * sizeof(double));
    return mcb_world_add_shape(w, &s, err);
}

/* The outcome (docs/scenes.md, "Closed loop"): the particles (the world's
 * free bodies) spilled, i.e. whose centre is below the cup's rim and
 * outside the cup: further from its axis than its wall (the profile's
 * cone from CUP_R[1] at the bottom to CUP_R[2] at the rim) or below its
 * bottom shell. Particles in the bottle or in flight above the rim are not
 * spilled; a non-finite position is. ctx: the cup's bottom centre. */
static double particles_spilled(const void *ctx, mcb_world *w)
{
    const double *cup = ctx;
    const double rim = CUP_Z[CUP_NPTS - 1], slope = (CUP_R[2] - CUP_R[1]) / (CUP_Z[2] - CUP_Z[1]);
    int spilled = 0;
    for (int k = 0; k < mcb_world_nrigid(w); k++) {
        const double *x = mcb_world_body(w, k)->pos;
        double z = x[2] - cup[2], rad = hypot(x[0] - cup[0], x[1] - cup[1]);
        if (!isfinite(z) || !isfinite(rad)) spilled++;
        else if (z < rim && !(z >= -CUP_T_M && rad <= CUP_R[1] + slope * fmax(z, 0))) spilled++;
    }
    return spilled;
}

/* smoothstep s(t) on [0, T] and its derivative */
static void smoothstep(double t, double T, double *s, double *ds)
{
    double u = t / T;
    if (u <= 0) *s = 0, *ds = 0;
    else if (u >= 1) *s = 1, *ds = 0;
    else *s = u * u * (3 - 2 * u), *ds = 6 * u * (1 - u) / T;
}

/* Builds the world: robot with bottle, particles, cup. Reports the tilt
 * joint (q index and target index), its initial angle and the cup's
 * bottom centre. */
static mcb_rc build(mcb_world *w, int np, mcb_rng *rng, int *tq, int *tr, double *q0,
                    double cup[3], mcb_err *err)
{
    mcb_xform base = mcb_xform_identity();
    mcb_robot *r0 = NULL, *r = NULL;
    mcb_rc rc = mcb_robot_dual_arm(&base, &r0, err);
    if (rc) return rc;
    mcb_robot_update(r0);
    int hand = hand_link(r0);
    /* the bottle upright in world against the outer side of the palm (the
     * palm box is 8 x 7 x 3 cm from the palm frame along +x; the right
     * hand's outside is -y), its middle at the palm's height */
    const mcb_xform *H = mcb_robot_link_pose(r0, hand);
    mcb_xform B = mcb_xform_identity();
    B.p[0] = H->p[0] + 0.04, B.p[1] = H->p[1] - (0.035 + BOTTLE_RMAX_M + 0.005);
    B.p[2] = H->p[2] - 0.5 * BOTTLE_Z[BOTTLE_NPTS - 1];
    mcb_xform Hinv = mcb_xform_inverse(H), grip = mcb_xform_compose(&Hinv, &B);
    rc = with_bottle(r0, &base, hand, &grip, &r, err);
    if (!rc) {
        /* the holding pose's joint values carry over link by link */
        memcpy(mcb_robot_q(r), mcb_robot_q(r0), (size_t)mcb_robot_nq(r0) * sizeof(double));
        memcpy(mcb_robot_q_ref(r), mcb_robot_q_ref(r0),
               (size_t)(mcb_robot_ndof(r0) - 6 * mcb_robot_floating(r0)) * sizeof(double));
    }
    mcb_robot_free(&r0);
    if (rc) return rc;
    int bottle = mcb_robot_nlinks(r) - 1;
    mcb_robot_update(r);
    int tj = tilt_joint(r, bottle);
    if (tj < 0) {
        mcb_robot_free(&r);
        return mcb_fail(err, MCB_E_INPUT, "pouring: no joint tilts the bottle");
    }
    *tq = q_index(r, tj), *tr = ref_index(r, tj);
    double *q = mcb_robot_q(r);
    *q0 = q[*tq];
    /* the bottle's mouth at full tilt, for the cup */
    q[*tq] = *q0 + POUR_TILT_RAD;
    mcb_robot_update(r);
    double top[3] = {0, 0, BOTTLE_Z[BOTTLE_NPTS - 1]}, mouth[3];
    mcb_xform_point(mcb_robot_link_pose(r, bottle), top, mouth);
    q[*tq] = *q0;
    mcb_robot_update(r);
    mcb_xform Xb = *mcb_robot_link_pose(r, bottle);
    int first;
    rc = mcb_world_add_robot(w, r, &first, err); /* the world owns r from here */
    if (!rc) rc = add_particles(w, &Xb, np, rng, err);
    if (!rc) rc = add_cup(w, mouth, cup, err);
    return rc;
}

/* Marks a step that was solved only with the particles put at rest. */
static mcb_rc note_retry(mcb_problem *P, mcb_err *err)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s; retried with the particles at rest (the first try failed)",
             P->notes ? P->notes : "");
    char *nt = mcb_strdup(buf);
    if (!nt) {
        mcb_problem_free(&P);
        return mcb_fail(err, MCB_E_NOMEM, "pouring: out of memory");
    }
    free(P->notes);
    P->notes = nt;
    return MCB_OK;
}

mcb_rc mcb_scene_pouring(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "pouring: NULL argument");
    *out = NULL;
    int np = (int)vals[OPT_PARTICLES], steps = (int)vals[OPT_STEPS];
    int settle = (int)vals[OPT_SETTLE];
    if (np < 1 || np > POUR_MAX_PARTICLES || steps < 1 || settle < 0)
        return mcb_fail(err, MCB_E_INPUT,
                        "pouring: need 1 <= --particles <= %d, --steps >= 1, --settle >= 0",
                        POUR_MAX_PARTICLES);
    const mcb_scene_def *def = mcb_scene_find("pouring");
    char source[512];
    if (def) mcb_scene_args(def, vals, source, sizeof source);
    else snprintf(source, sizeof source, "pouring");

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = POUR_H_S;
    o.cap_per_pair = POUR_CAP_PAIR;
    /* the default bound (1 cm) is a particle's diameter, more than the
     * bottle's 3 mm shell: a particle sunk past its radius into a shell is
     * about to cross its mid-surface (and leave through it) */
    o.fail_pen_m = POUR_R_M;
    mcb_world *w = NULL;
    mcb_problem_set *S = NULL;
    mcb_rng rng;
    mcb_rng_seed(&rng, (unsigned long long)vals[OPT_SEED]);
    int tq = -1, tr = -1;
    double q0 = 0, cup[3] = {0, 0, 0};
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc) rc = build(w, np, &rng, &tq, &tr, &q0, cup, err);
    if (!rc) /* no bound: the reference run spills most of 9 or 27 particles */
        mcb_world_set_outcome(w, &(mcb_world_outcome){"particles_spilled", "particles",
                                                      particles_spilled, cup, NAN, NAN, 0});
    if (!rc)
        rc = mcb_world_describe(w, "pouring", "pouring", source,
                                "CANAL Sec. VII-C: 28-DOF dual arm (bottle welded to the right "
                                "hand) tilting a bottle of particles (r 5 mm, 10 g/cm^3)",
                                err);
    mcb_step_info info;
    for (int k = 0; k < settle && !rc; k++) rc = mcb_world_step(w, NULL, &info, err);
    if (!rc) {
        S = mcb_calloc(1, sizeof *S);
        if (!S) rc = mcb_fail(err, MCB_E_NOMEM, "pouring: out of memory");
    }
    for (int k = 0; k < steps && !rc; k++) {
        mcb_robot *r = mcb_world_robot(w, 0);
        double s, ds;
        smoothstep(k * POUR_H_S, POUR_TILT_S, &s, &ds);
        mcb_robot_q_ref(r)[tr] = q0 + POUR_TILT_RAD * s;
        mcb_robot_v_ref(r)[tr] = POUR_TILT_RAD * ds;
        mcb_problem *P = NULL;
        rc = mcb_world_step(w, &P, &info, err);
        if (rc == MCB_E_NUMERIC && !(loop && loop->solve)) {
            /* neither of the engine's solvers got there (a jammed pile):
             * retry once with the particles at rest (the state is unchanged
             * by a failed step), as gen records it and as a closed loop's
             * reference trajectory follows it; a solver driving the loop
             * takes what it gets */
            for (int j = 0; j < mcb_world_nrigid(w); j++)
                memset(mcb_world_body(w, j)->vel, 0, 6 * sizeof(double));
            mcb_err_clear(err);
            rc = mcb_world_step(w, &P, &info, err);
            if (!rc && P) rc = note_retry(P, err); /* a world in a loop records nothing */
        }
        if (!rc && P) { /* a world in a loop records nothing */
            rc = mcb_problem_set_push(S, P, err);
            if (rc) mcb_problem_free(&P);
        }
    }
    mcb_world_free(&w);
    if (rc) {
        mcb_problem_set_free(&S);
        return rc;
    }
    *out = S;
    return MCB_OK;
}

/* scene_cube_push.c: COND's virtual-node consistency test (COND paper Sec.
 * V-B, Table I, Fig. 6): a rigid cube resting on the floor, its four
 * bottom vertices the contact points, pushed by a constant horizontal
 * force through its centre of mass. Its analytic solution is the scene's
 * reference: the cube slides along the push with
 *     a = (F - mu m g) / m   when F > mu m g,   a = 0 otherwise,
 * with zero penetration and no rotation. The outcome is the position error
 * of the cube's centre against that solution (mm).
 *
 * The analytic solution is taken in the scheme's own time discretisation
 * (the world's backward Euler, theta = 0: v_n = n h a, x_n = x_0 +
 * h^2 a n (n + 1) / 2), so that an exactly solved constraint step has zero
 * error and the error measures the contact formulation alone; the
 * continuous solution 1/2 a t^2 differs from it by the scheme's own
 * 1/2 a h t, the same for every formulation (docs/scenes.md, "cube-push").
 *
 * Contact models (--contact):
 *   0 constraint: the floor is a plane, the box-plane contacts its four
 *     bottom corners; every step's subproblem has 4 contact blocks, solved
 *     by the loop's solver (COND's virtual-node gain is cond's `kappa`,
 *     --param cond.kappa=...);
 *   1 penalty1, 2 penalty2: the spring-damper penalty model of Yamane and
 *     Nakamura 2006 (COND's [22]) with two gain sets, penalty2 = every gain
 *     of penalty1 x 10. Each bottom corner below the floor gets an explicit
 *     force from the state at the start of the step: a normal spring-damper
 *     k_n d - d_n u_n (d the depth, u the corner's velocity; not pulling),
 *     and a tangential spring-damper -k_t (p_t - a) - d_t u_t anchored at
 *     the stick point a (set where the corner first touched), limited to
 *     mu times the normal force, the anchor dragged along while sliding so
 *     that the spring alone gives the limited force. There is no floor
 *     shape: the subproblem has no contact rows, and the closed loop's
 *     solver has nothing to solve (step.c solves A v = b itself).
 * Fails with MCB_E_INPUT on bad options; frees what it allocated. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define CUBE_G_M_S2 9.81 /* the world's default gravity (down z) */

/* Penalty1's gains per contact corner (our choice: the paper's values are
 * lost; docs/scenes.md): stable for the explicit forces at h = 1 ms on a
 * 1 kg cube (h^2 4 k_n / m = 0.08, h 4 d_n / m = 0.16); penalty2 is x 10
 * (h 4 d_n / m = 1.6: an under-damped, ringing contact, COND's "bouncing"). */
#define PEN1_KN_N_M 2e4
#define PEN1_DN_NS_M 40.0
#define PEN1_KT_N_M 2e4
#define PEN1_DT_NS_M 40.0

/* Options in table order (scenes.c). */
enum { OPT_PUSH, OPT_MU, OPT_MASS, OPT_SIZE, OPT_STEPS, OPT_DT, OPT_CONTACT };

enum { CONTACT_CONSTRAINT = 0, CONTACT_PENALTY1 = 1, CONTACT_PENALTY2 = 2 };

typedef struct {
    double push_n, mu, mass_kg, half_m, h_s;
    double x0[3];     /* the cube's start (its centre) */
    double accel;     /* the analytic acceleration along x */
    /* penalty model */
    double kn, dn, kt, dt;
    int touching[4];  /* corner k's anchor is set */
    double anchor[4][2];
} cube_ctx;

/* The analytic sliding acceleration (m/s^2) along the push. */
static double analytic_accel(double push_n, double mu, double mass_kg)
{
    double fric = mu * mass_kg * CUBE_G_M_S2;
    return push_n > fric ? (push_n - fric) / mass_kg : 0.0;
}

/* The outcome: |x - x_ref| of the cube's centre after the world's steps
 * (mm), x_ref the discrete analytic solution above. ctx: the cube_ctx. */
static double position_error_mm(const void *ctx, mcb_world *w)
{
    const cube_ctx *c = ctx;
    const mcb_rigid *b = mcb_world_body(w, 0);
    double n = mcb_world_step_index(w);
    double ref[3] = {c->x0[0] + c->h_s * c->h_s * c->accel * n * (n + 1) / 2, c->x0[1], c->x0[2]};
    double d[3] = {b->pos[0] - ref[0], b->pos[1] - ref[1], b->pos[2] - ref[2]};
    return 1e3 * sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* The penalty wrench of the four bottom corners at the current state, into
 * the body's wrench (with the push). */
static void penalty_wrench(cube_ctx *c, mcb_world *w)
{
    mcb_rigid *b = mcb_world_body(w, 0);
    double R[9];
    mcb_quat_to_mat(b->quat, R); /* the state now (a pose the world cached may be a step old) */
    double F[3] = {c->push_n, 0, 0}, T[3] = {0, 0, 0};
    const double sx[4] = {-1, 1, 1, -1}, sy[4] = {-1, -1, 1, 1};
    for (int k = 0; k < 4; k++) {
        double loc[3] = {sx[k] * c->half_m, sy[k] * c->half_m, -c->half_m}, r[3], p[3], u[3];
        mcb_m3_vec(R, loc, r);
        for (int i = 0; i < 3; i++) p[i] = b->pos[i] + r[i];
        double *wv = b->vel + 3, wxr[3];
        mcb_v3_cross(wv, r, wxr);
        for (int i = 0; i < 3; i++) u[i] = b->vel[i] + wxr[i];
        double depth = -p[2];
        if (depth < 0) {
            c->touching[k] = 0;
            continue;
        }
        if (!c->touching[k]) {
            c->touching[k] = 1;
            c->anchor[k][0] = p[0], c->anchor[k][1] = p[1];
        }
        double fn = fmax(0.0, c->kn * depth - c->dn * u[2]);
        double ft[2];
        for (int i = 0; i < 2; i++)
            ft[i] = -c->kt * (p[i] - c->anchor[k][i]) - c->dt * u[i];
        double nt = hypot(ft[0], ft[1]), lim = c->mu * fn;
        if (nt > lim) { /* sliding: the Coulomb limit, the anchor dragged along */
            double s = nt > 0 ? lim / nt : 0.0;
            for (int i = 0; i < 2; i++) {
                ft[i] *= s;
                c->anchor[k][i] = p[i] + ft[i] / c->kt;
            }
        }
        double f[3] = {ft[0], ft[1], fn}, tq[3];
        mcb_v3_cross(r, f, tq);
        for (int i = 0; i < 3; i++) F[i] += f[i], T[i] += tq[i];
    }
    memcpy(b->wrench, F, sizeof F);
    memcpy(b->wrench + 3, T, sizeof T);
}

mcb_rc mcb_scene_cube_push(const double *vals, const struct mcb_world_loop *loop,
                           mcb_problem_set **out, mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "cube-push: NULL argument");
    *out = NULL;
    int steps = (int)vals[OPT_STEPS], model = (int)vals[OPT_CONTACT];
    cube_ctx c;
    memset(&c, 0, sizeof c);
    c.push_n = vals[OPT_PUSH], c.mu = vals[OPT_MU], c.mass_kg = vals[OPT_MASS];
    c.half_m = 0.5 * vals[OPT_SIZE], c.h_s = vals[OPT_DT];
    if (steps < 1 || !(c.push_n >= 0) || !(c.mu >= 0) || !(c.mass_kg > 0) || !(c.half_m > 0) ||
        !(c.h_s > 0) || model < CONTACT_CONSTRAINT || model > CONTACT_PENALTY2)
        return mcb_fail(err, MCB_E_INPUT,
                        "cube-push: --steps >= 1, --push >= 0, --mu >= 0, --mass, --size and --dt "
                        "> 0, --contact 0 (constraint), 1 (penalty1) or 2 (penalty2)");
    double gain = model == CONTACT_PENALTY2 ? 10.0 : 1.0;
    c.kn = gain * PEN1_KN_N_M, c.dn = gain * PEN1_DN_NS_M;
    c.kt = gain * PEN1_KT_N_M, c.dt = gain * PEN1_DT_NS_M;
    c.accel = analytic_accel(c.push_n, c.mu, c.mass_kg);
    c.x0[2] = c.half_m; /* resting on the floor, no gap, no penetration */

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = c.h_s;
    /* the push does work: the closed loop's energy bound is the default
     * (1 J + lifting the cube by 1 m) plus twice the push's work along the
     * analytic path (a sliding cube gains kinetic energy by design) */
    {
        double t_s = steps * c.h_s, travel_m = 0.5 * c.accel * t_s * t_s;
        o.fail_energy_J = 1.0 + c.mass_kg * 9.81 + 2.0 * c.push_n * travel_m;
    }
    mcb_world *w = NULL;
    mcb_problem_set *S = NULL;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc && model == CONTACT_CONSTRAINT)
        rc = mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, c.mu, NULL, err);
    if (!rc) {
        mcb_rigid b;
        memset(&b, 0, sizeof b);
        b.mass_kg = c.mass_kg;
        double side = 2 * c.half_m;
        b.inertia[0] = b.inertia[4] = b.inertia[8] = c.mass_kg * side * side / 6.0;
        b.quat[0] = 1;
        memcpy(b.pos, c.x0, sizeof b.pos);
        b.wrench[0] = c.push_n;
        const double half[3] = {c.half_m, c.half_m, c.half_m};
        rc = mcb_world_add_primitive(w, &b, MCB_SHAPE_BOX, half, c.mu, NULL, err);
    }
    if (rc) goto done;
    /* no failure bound: the error is the measure itself (a run that ends
     * a cube's side off the analytic path is still reported) */
    mcb_world_set_outcome(w, &(mcb_world_outcome){"position_error", "mm", position_error_mm, &c,
                                                  NAN, NAN, 0});
    static const char *model_names[] = {"constraint", "penalty1", "penalty2"};
    char src[512], notes[256];
    mcb_scene_args_named("cube-push", vals, src, sizeof src);
    snprintf(notes, sizeof notes,
             "COND Sec. V-B (Table I, Fig. 6): a %.3g kg cube of side %.3g m pushed by %.3g N on "
             "the floor (mu %.3g), %s contact, analytic acceleration %.6g m/s^2",
             c.mass_kg, 2 * c.half_m, c.push_n, c.mu, model_names[model], c.accel);
    rc = mcb_world_describe(w, "cube-push", "cube-push", src, notes, err);
    if (rc) goto done;
    S = mcb_calloc(1, sizeof *S);
    if (!S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "cube-push: out of memory");
        goto done;
    }
    for (int k = 0; k < steps && !rc; k++) {
        if (model != CONTACT_CONSTRAINT) penalty_wrench(&c, w);
        mcb_step_info info;
        rc = mcb_world_step_into(w, S, &info, err);
    }

done:
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

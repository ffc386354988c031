/* scene_dishes.c: the dish-piling single-step test set of the CANAL paper
 * (Sec. VII-B1, Fig. 7 right, Fig. 8; the ablation of Table II uses the
 * same cases): a bowl, a second bowl, a plate (0.1 kg each) and a 5 kg pot
 * stacked on the floor, each dish a thin shell of revolution (Appendix B,
 * eq. (45): the 2D profile O-A-B revolved about the axis, padded by d).
 *
 * What it does: places the dishes upright from the bottom up, each dropped
 * onto the ones below until its surface samples clear them by 0.5 mm
 * (drop_height); settles the stack under gravity by stepping (not
 * recorded); then, for each of `--wrenches` random external wrenches (one
 * per dish, fixed seed), restores the state one step before the settled
 * pose, repeats that unrecorded step (so every case starts from the same
 * settled state and the same warm start), applies the wrenches through
 * mcb_rigid.wrench and records one step. Problem k is "dishes-wNNN".
 *
 * Dishes (ours; the paper gives masses, not dimensions; profiles as r, z
 * of the mid-surface in metres, thickness = 2 d of eq. (45)):
 *   bowl:  O (0, 0), A (0.045, 0), B (0.080, 0.060), thickness 4 mm
 *   plate: O (0, 0), A (0.080, 0), B (0.110, 0.018), thickness 4 mm
 *   pot:   O (0, 0), A (0.070, 0), B (0.070, 0.100), thickness 6 mm
 * Masses and inertias: uniform thin shells (shell_mass_props).
 *
 * Allocates the world, sample buffers and the set; frees all on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcb_problem.h"
#include "scenes.h"
#include "world.h"

/* option order in the registry table (scenes.c) */
enum { OPT_WRENCHES = 0, OPT_SETTLE = 1, OPT_SCALE = 2, OPT_SEED = 3 };

#define DISHES_N 4
#define DISHES_PI 3.14159265358979323846
#define DISHES_H_S (1.0 / 240.0) /* CANAL Sec. VII: every example uses 1/240 s */
#define DISHES_MU 0.4
#define DISHES_GAP0_M 0.5e-3   /* initial clearance between placed dishes */
#define DISHES_CAP_PAIR 40     /* clustering caps (the paper caps at 120) */
#define DISHES_CAP_TOTAL 120
#define DISHES_TORQUE_ARM_M 0.05 /* random torque = weight x this arm x scale */

typedef struct {
    const char *name;
    double mass_kg;
    int npts;
    double r[3], z[3];
    double thickness_m;
} dish_spec;

static const dish_spec DISHES[DISHES_N] = {
    {"bowl", 0.1, 3, {0.0, 0.045, 0.080}, {0.0, 0.0, 0.060}, 0.004},
    {"bowl", 0.1, 3, {0.0, 0.045, 0.080}, {0.0, 0.0, 0.060}, 0.004},
    {"plate", 0.1, 3, {0.0, 0.080, 0.110}, {0.0, 0.0, 0.018}, 0.004},
    {"pot", 5.0, 3, {0.0, 0.070, 0.070}, {0.0, 0.0, 0.100}, 0.006},
};

/* Mass properties of a uniform thin shell of revolution of mass m: the
 * height of its centre of mass on the axis (shape frame) and its inertia
 * about the centre of mass (diagonal: Ixx = Iyy, Izz), by summing rings of
 * area dA = 2 pi r ds over each profile segment. */
static void shell_mass_props(const mcb_profile *p, double m, double *zc, double I[9])
{
    double A = 0, Az = 0, Arr = 0, Azz = 0;
    const int sub = 64;
    for (int k = 0; k + 1 < p->npts; k++) {
        double dr = p->r[k + 1] - p->r[k], dz = p->z[k + 1] - p->z[k];
        double ds = sqrt(dr * dr + dz * dz) / sub;
        for (int j = 0; j < sub; j++) {
            double t = (j + 0.5) / sub, r = p->r[k] + t * dr, z = p->z[k] + t * dz;
            double dA = 2 * DISHES_PI * r * ds;
            A += dA, Az += z * dA, Arr += r * r * dA, Azz += z * z * dA;
        }
    }
    double sigma = m / A;
    *zc = Az / A;
    memset(I, 0, 9 * sizeof(double));
    I[0] = I[4] = sigma * (0.5 * Arr + Azz) - m * (*zc) * (*zc);
    I[8] = sigma * Arr;
}

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

typedef struct {
    double pos[3], quat[4], vel[6];
} rigid_state;

static void save_state(mcb_world *w, rigid_state *s, int n)
{
    for (int k = 0; k < n; k++) {
        const mcb_rigid *b = mcb_world_body(w, k);
        memcpy(s[k].pos, b->pos, sizeof s[k].pos);
        memcpy(s[k].quat, b->quat, sizeof s[k].quat);
        memcpy(s[k].vel, b->vel, sizeof s[k].vel);
    }
}

static void restore_state(mcb_world *w, const rigid_state *s, int n)
{
    for (int k = 0; k < n; k++) {
        mcb_rigid *b = mcb_world_body(w, k);
        memcpy(b->pos, s[k].pos, sizeof s[k].pos);
        memcpy(b->quat, s[k].quat, sizeof s[k].quat);
        memcpy(b->vel, s[k].vel, sizeof s[k].vel);
        memset(b->wrench, 0, sizeof b->wrench);
    }
}

/* A uniform point in the unit ball (rejection; deterministic). */
static void unit_ball(mcb_rng *rng, double u[3])
{
    do {
        for (int k = 0; k < 3; k++) u[k] = 2 * mcb_rng_uniform(rng) - 1;
    } while (mcb_v3_dot(u, u) > 1);
}

/* Builds the world: the floor and the four dishes placed from the bottom up. */
static mcb_rc build(mcb_world *w, mcb_rng *rng, mcb_err *err)
{
    mcb_shape floor_s;
    memset(&floor_s, 0, sizeof floor_s);
    floor_s.type = MCB_SHAPE_PLANE;
    floor_s.body = -1;
    floor_s.local = mcb_xform_identity();
    floor_s.mu = DISHES_MU;
    mcb_rc rc = mcb_world_add_shape(w, &floor_s, err);
    if (rc) return rc;

    mcb_shape placed[DISHES_N + 1];
    mcb_xform Xp[DISHES_N + 1];
    double *Pp[DISHES_N + 1] = {0};
    int npp[DISHES_N + 1] = {0};
    placed[0] = floor_s;
    Xp[0] = mcb_xform_identity();
    int nplaced = 1; /* the floor: no samples, only its distance */
    double z_top = 0.02;
    for (int d = 0; d < DISHES_N && !rc; d++) {
        const dish_spec *ds = &DISHES[d];
        mcb_shape s;
        memset(&s, 0, sizeof s);
        s.type = MCB_SHAPE_REVOLUTION;
        s.profile.npts = ds->npts;
        for (int k = 0; k < ds->npts; k++) s.profile.r[k] = ds->r[k], s.profile.z[k] = ds->z[k];
        s.profile.thickness = ds->thickness_m;
        s.mu = DISHES_MU;
        double zc, I[9];
        shell_mass_props(&s.profile, ds->mass_kg, &zc, I);
        s.local = mcb_xform_identity();
        s.local.p[2] = -zc; /* body frame at the centre of mass */

        rc = shape_samples(&s, &Pp[nplaced], &npp[nplaced], err);
        if (rc) break;
        /* a small random lateral offset (1 mm) so the stack is not exactly coaxial */
        mcb_xform X = mcb_xform_identity();
        X.p[0] = 1e-3 * (2 * mcb_rng_uniform(rng) - 1);
        X.p[1] = 1e-3 * (2 * mcb_rng_uniform(rng) - 1);
        drop_height(&s, &X, Pp[nplaced], npp[nplaced], placed, Xp, Pp, npp, nplaced,
                    z_top + 0.01, DISHES_GAP0_M);
        placed[nplaced] = s;
        Xp[nplaced] = X;
        nplaced++;
        double top = X.p[2] + ds->z[ds->npts - 1] + ds->thickness_m;
        if (top > z_top) z_top = top;

        mcb_rigid b;
        memset(&b, 0, sizeof b);
        b.mass_kg = ds->mass_kg;
        memcpy(b.inertia, I, sizeof I);
        b.pos[0] = X.p[0], b.pos[1] = X.p[1], b.pos[2] = X.p[2] + zc;
        b.quat[0] = 1;
        int idx;
        rc = mcb_world_add_body(w, &b, &idx, err);
        if (rc) break;
        s.body = idx;
        rc = mcb_world_add_shape(w, &s, err);
    }
    for (int k = 0; k < nplaced; k++) free(Pp[k]);
    return rc;
}

static mcb_rc step_quiet(mcb_world *w, mcb_err *err)
{
    mcb_step_info info;
    return mcb_world_step(w, NULL, &info, err);
}

mcb_rc mcb_scene_dishes(const double *vals, mcb_problem_set **out, mcb_err *err)
{
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

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.h_s = DISHES_H_S;
    o.cap_per_pair = DISHES_CAP_PAIR;
    o.cap_total = DISHES_CAP_TOTAL;
    mcb_world *w = NULL;
    mcb_problem_set *S = NULL;
    mcb_rng rng;
    mcb_rng_seed(&rng, (unsigned long long)vals[OPT_SEED]);
    rigid_state st[DISHES_N];
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc) rc = build(w, &rng, err);
    if (!rc)
        rc = mcb_world_describe(w, "dishes", "dishes", source,
                                "CANAL Sec. VII-B1 single-step test: bowl, bowl, plate (0.1 kg) "
                                "and pot (5 kg), settled, one random wrench per dish",
                                err);
    /* settle: settle - 1 steps, keep that state, then each case repeats the last one */
    for (int k = 0; k + 1 < settle && !rc; k++) rc = step_quiet(w, err);
    if (!rc) {
        save_state(w, st, DISHES_N);
        S = mcb_calloc(1, sizeof *S);
        if (!S) rc = mcb_fail(err, MCB_E_NOMEM, "dishes: out of memory");
    }
    for (int c = 0; c < nwrench && !rc; c++) {
        restore_state(w, st, DISHES_N);
        rc = step_quiet(w, err);
        if (rc) break;
        for (int d = 0; d < DISHES_N; d++) {
            mcb_rigid *b = mcb_world_body(w, d);
            double weight = b->mass_kg * 9.81, u[3];
            unit_ball(&rng, u);
            for (int k = 0; k < 3; k++) b->wrench[k] = scale * weight * u[k];
            unit_ball(&rng, u);
            for (int k = 0; k < 3; k++) b->wrench[3 + k] = scale * weight * DISHES_TORQUE_ARM_M * u[k];
        }
        mcb_problem *P = NULL;
        mcb_step_info info;
        rc = mcb_world_step(w, &P, &info, err);
        if (rc) break;
        char name[64];
        snprintf(name, sizeof name, "dishes-w%03d", c);
        char *nm = mcb_strdup(name);
        if (!nm) {
            mcb_problem_free(&P);
            rc = mcb_fail(err, MCB_E_NOMEM, "dishes: out of memory");
            break;
        }
        free(P->name);
        P->name = nm;
        rc = mcb_problem_set_push(S, P, err);
        if (rc) mcb_problem_free(&P);
    }
    mcb_world_free(&w);
    if (rc) {
        mcb_problem_set_free(&S);
        return rc;
    }
    *out = S;
    return MCB_OK;
}

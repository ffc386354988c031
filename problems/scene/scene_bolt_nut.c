/* scene_bolt_nut.c: the bolt-nut single-step test set of the CANAL paper
 * (Sec. VII-A1, Figs. 6-7): an M48 nut on a static M48 bolt,
 * `--configs` sampled nut configurations x `--wrenches` random external
 * wrenches on the nut, one problem each, with the contact points clustered
 * to at most 120 (the paper's cap, Sec. VII-A).
 *
 * Geometry (ISO 68-1 basic profile, geometry.h): bolt d = 48 mm, pitch
 * P = 5 mm, threaded length 160 mm, static, axis = world z from z = 0; nut
 * M48 (ISO 4032): width across flats 75 mm, height 38 mm, steel
 * (7850 kg/m^3). Mass and inertia: the hexagonal prism minus the bore at
 * the pitch diameter d2 = d - 0.6495 P (nut_mass_props).
 *
 * A configuration (sample_config): the nut's bottom at a height z0 drawn
 * along the thread, its rotation about the axis chosen so that the threads
 * engage (psi = 2 pi z0 / P, the helix of geometry.c: engage), a small
 * random tilt (<= 0.1 deg) and lateral offset (<= 0.03 mm) within the
 * clearance (the nut's thread is 0.3 mm wider than the bolt's), then
 * lowered along the axis until it rests on the flanks (0.05 mm clear) and
 * settled quasi-statically for `--settle` steps (settle_nut: velocities
 * zeroed after each step, a looser tolerance, not recorded). Each wrench
 * case is one step in a fresh world at the settled state, the wrench
 * through mcb_rigid.wrench, solved at the world's tight tolerance or,
 * failing that, at looser tiers stated in the notes (record_case):
 * "bolt-nut-cCC-wWW".
 *
 * Allocates the world, the sample buffers and the set; frees all on
 * failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_problem.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"
#include "solvers/solver.h"

/* option order in the registry table (scenes.c) */
enum { OPT_CONFIGS = 0, OPT_WRENCHES = 1, OPT_SETTLE = 2, OPT_SCALE = 3, OPT_SEED = 4 };

#define BN_PI 3.14159265358979323846
#define BN_H_S (1.0 / 240.0)   /* CANAL Sec. VII */
#define BN_D_M 0.048           /* M48 */
#define BN_PITCH_M 0.005
#define BN_BOLT_LEN_M 0.160
#define BN_NUT_AF_M 0.075      /* width across flats (ISO 4032) */
#define BN_NUT_H_M 0.038       /* nut height (ISO 4032: 38 mm) */
#define BN_STEEL_KG_M3 7850.0
#define BN_MU 0.3              /* steel on steel, lubricated-dry */
#define BN_CAP 120             /* the paper's clustering cap */
#define BN_NUT_PLAY_M 0.3e-3  /* nut thread diameter above the bolt's: radial play
                                  0.15 mm, flank normal play 0.075 mm each side
                                  (of the order of ISO 965 6H/6g allowances) */
#define BN_TILT_RAD (0.1 * BN_PI / 180.0)
#define BN_OFFSET_M 0.03e-3
#define BN_REST_GAP_M 0.05e-3
#define BN_SETTLE_TOL 1e-6     /* the settling world (not recorded) */
#define BN_SETTLE_ITERS 5000
#define BN_CASE_ITERS 3000
#define BN_LOOSE_TOL 1e-6      /* accepts up to 1e-4 (world.h: 100 x tol) */
#define BN_LOOSER_TOL 1e-4

/* Nut mass and inertia about its centre (axis z): a hexagonal prism of
 * width across flats s (area sqrt(3)/2 s^2, Izz per unit mass 5 s^2/36)
 * minus a cylinder at the pitch diameter. */
static void nut_mass_props(double *m, double I[9])
{
    double s = BN_NUT_AF_M, h = BN_NUT_H_M, d2 = BN_D_M - 0.6495 * BN_PITCH_M, ri = 0.5 * d2;
    double Ahex = 0.5 * sqrt(3.0) * s * s, Acyl = BN_PI * ri * ri;
    double mh = BN_STEEL_KG_M3 * Ahex * h, mc = BN_STEEL_KG_M3 * Acyl * h;
    *m = mh - mc;
    double izz = mh * 5.0 * s * s / 36.0 - 0.5 * mc * ri * ri;
    /* Ixx = (Izz / 2) + m h^2 / 12 for both prisms (hexagon: Ixx = Iyy = Izz / 2 in plane) */
    double ixx = 0.5 * izz + (*m) * h * h / 12.0;
    memset(I, 0, 9 * sizeof(double));
    I[0] = I[4] = ixx;
    I[8] = izz;
}

static mcb_rc shape_samples(const mcb_shape *s, double **pts, int *n, mcb_err *err)
{
    double probe[3];
    int cnt = mcb_shape_samples(s, probe, 0);
    if (cnt <= 0) return mcb_fail(err, MCB_E_INPUT, "bolt-nut: a shape has no surface samples");
    *pts = mcb_malloc((size_t)cnt * 3, sizeof(double));
    if (!*pts) return mcb_fail(err, MCB_E_NOMEM, "bolt-nut: out of memory");
    *n = mcb_shape_samples(s, *pts, cnt);
    return MCB_OK;
}

/* The samples and frames used while choosing a configuration. */
typedef struct {
    const mcb_shape *bolt, *nut; /* nut: shape frame = the nut's placement */
    mcb_xform Xbolt;
    double *pb, *pn;            /* bolt samples (those near the nut's range), nut samples */
    int nb, nn;
} placement;

/* Smallest signed distance between nut (shape frame X) and bolt, both ways. */
static double clearance(const placement *pl, const mcb_xform *X)
{
    double dmin = INFINITY, g[3], x[3];
    for (int k = 0; k < pl->nn; k++) {
        mcb_xform_point(X, pl->pn + 3 * k, x);
        double d = mcb_shape_sdf(pl->bolt, &pl->Xbolt, x, g);
        if (d < dmin) dmin = d;
    }
    for (int k = 0; k < pl->nb; k++) {
        double d = mcb_shape_sdf(pl->nut, X, pl->pb + 3 * k, g);
        if (d < dmin) dmin = d;
    }
    return dmin;
}

/* q = a b (Hamilton product, w x y z) */
static void quat_mul(const double a[4], const double b[4], double q[4])
{
    q[0] = a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3];
    q[1] = a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2];
    q[2] = a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1];
    q[3] = a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0];
}

/* Nut shape frame: rotation tilt * Rz(psi) (also as a quaternion in
 * quat, if non-NULL), origin (offset, z0). */
static mcb_xform nut_frame(double psi, const double tilt_axis[3], double tilt, const double off[2],
                           double z0, double quat[4])
{
    double qz[4], qt[4], q[4], zax[3] = {0, 0, 1};
    mcb_xform X = mcb_xform_identity();
    mcb_quat_from_axis_angle(zax, psi, qz);
    mcb_quat_from_axis_angle(tilt_axis, tilt, qt);
    quat_mul(qt, qz, q);
    mcb_quat_to_mat(q, X.R);
    if (quat) memcpy(quat, q, sizeof q);
    X.p[0] = off[0], X.p[1] = off[1], X.p[2] = z0;
    return X;
}

/* Engages the threads: geometry.c's threads (bolt and nut alike) are
 * functions of the helical coordinate z - P phi / (2 pi); a nut frame
 * rotated by psi about the axis with its origin at height z0 has the
 * bolt's helix when z0 - P psi / (2 pi) is a multiple of P. */
static double engage(double z0)
{
    return 2 * BN_PI * z0 / BN_PITCH_M;
}

/* Lowers the nut along the world axis from z0 until it is within
 * BN_REST_GAP_M of the bolt (at most half a pitch); returns the height. */
static double rest_height(const placement *pl, double psi, const double ax[3], double tilt,
                          const double off[2], double z0)
{
    mcb_xform X = nut_frame(psi, ax, tilt, off, z0, NULL);
    if (clearance(pl, &X) < BN_REST_GAP_M) return z0; /* no room: the settling resolves it */
    double hi = z0, lo = z0 - 0.5 * BN_PITCH_M;
    X = nut_frame(psi, ax, tilt, off, lo, NULL);
    if (clearance(pl, &X) >= BN_REST_GAP_M) return lo;
    for (int it = 0; it < 30; it++) {
        double mid = 0.5 * (lo + hi);
        X = nut_frame(psi, ax, tilt, off, mid, NULL);
        if (clearance(pl, &X) < BN_REST_GAP_M) lo = mid;
        else hi = mid;
    }
    return hi;
}

/* A nut configuration: its shape frame in world and orientation. */
typedef struct {
    mcb_xform X;
    double quat[4];
} nut_config;

/* One configuration with the nut's bottom near height z0. */
static nut_config sample_config(const placement *pl, double z0, mcb_rng *rng)
{
    double psi = engage(z0);
    double a = 2 * BN_PI * mcb_rng_uniform(rng), ax[3] = {cos(a), sin(a), 0};
    double tilt = BN_TILT_RAD * mcb_rng_uniform(rng);
    double b = 2 * BN_PI * mcb_rng_uniform(rng), r = BN_OFFSET_M * mcb_rng_uniform(rng);
    double off[2] = {r * cos(b), r * sin(b)};
    double z = rest_height(pl, psi, ax, tilt, off, z0);
    nut_config c;
    c.X = nut_frame(psi, ax, tilt, off, z, c.quat);
    return c;
}

static void unit_ball(mcb_rng *rng, double u[3])
{
    do {
        for (int k = 0; k < 3; k++) u[k] = 2 * mcb_rng_uniform(rng) - 1;
    } while (mcb_v3_dot(u, u) > 1);
}

static void bolt_shape(mcb_shape *s)
{
    memset(s, 0, sizeof *s);
    s->type = MCB_SHAPE_BOLT;
    s->body = -1;
    s->local = mcb_xform_identity();
    s->thread = (mcb_thread){BN_D_M, BN_PITCH_M, BN_BOLT_LEN_M, 0};
    s->mu = BN_MU;
}

static void nut_shape(mcb_shape *s)
{
    memset(s, 0, sizeof *s);
    s->type = MCB_SHAPE_NUT;
    s->body = -1;
    s->local = mcb_xform_identity();
    s->thread = (mcb_thread){BN_D_M + BN_NUT_PLAY_M, BN_PITCH_M, BN_NUT_H_M, BN_NUT_AF_M};
    s->mu = BN_MU;
}

/* Keeps the bolt samples within the nut's reach (z in [0, len]) of the bolt's
 * samples pts (n of them), in place; returns the count kept. */
static int keep_near(double *pts, int n, double zlo, double zhi)
{
    int k2 = 0;
    for (int k = 0; k < n; k++)
        if (pts[3 * k + 2] >= zlo && pts[3 * k + 2] <= zhi) {
            memmove(pts + 3 * k2, pts + 3 * k, 3 * sizeof(double));
            k2++;
        }
    return k2;
}

/* Draws the nut configurations (frames of the nut shape in world). */
static mcb_rc sample_configs(int nconf, mcb_rng *rng, nut_config *Xc, mcb_err *err)
{
    mcb_shape bolt, nut;
    bolt_shape(&bolt);
    nut_shape(&nut);
    placement pl = {&bolt, &nut, mcb_xform_identity(), NULL, NULL, 0, 0};
    double *all = NULL;
    int nall = 0;
    mcb_rc rc = shape_samples(&bolt, &all, &nall, err);
    if (!rc) rc = shape_samples(&nut, &pl.pn, &pl.nn, err);
    if (!rc) {
        pl.pb = mcb_malloc((size_t)nall * 3, sizeof(double));
        if (!pl.pb) rc = mcb_fail(err, MCB_E_NOMEM, "bolt-nut: out of memory");
    }
    for (int c = 0; c < nconf && !rc; c++) {
        /* the height first, to restrict the bolt samples to the nut's range */
        double z0 = 0.02 + (BN_BOLT_LEN_M - BN_NUT_H_M - 0.04) * mcb_rng_uniform(rng);
        memcpy(pl.pb, all, (size_t)nall * 3 * sizeof(double));
        pl.nb = keep_near(pl.pb, nall, z0 - BN_PITCH_M, z0 + BN_NUT_H_M + BN_PITCH_M);
        Xc[c] = sample_config(&pl, z0, rng);
    }
    free(all);
    free(pl.pb);
    free(pl.pn);
    return rc;
}

/* The world options: h, the cap, the solver (default pgs; subadmm falls
 * back), tolerance and iterations (<= 0: the world's defaults). */
static void bn_opts(mcb_world_opts *o, const char *solver, double tol, int iters)
{
    mcb_world_defaults(o);
    o->h_s = BN_H_S;
    o->cap_per_pair = BN_CAP;
    o->cap_total = BN_CAP;
    o->solver = solver ? solver : "pgs";
    o->fallback = "subadmm";
    if (tol > 0) o->tol = tol;
    if (iters > 0) o->max_iters = iters;
}

/* A world with the static bolt and the nut (rigid body 0) in state b. */
static mcb_rc nut_world(const mcb_world_opts *o, const mcb_rigid *b, const char *prefix,
                        const char *source, mcb_world **out, mcb_err *err)
{
    mcb_shape bolt, nut;
    bolt_shape(&bolt);
    nut_shape(&nut);
    nut.local.p[2] = -0.5 * BN_NUT_H_M; /* body frame at the nut's centre */
    mcb_world *w = NULL;
    int idx = -1;
    mcb_rc rc = mcb_world_new(o, &w, err);
    if (!rc) rc = mcb_world_add_shape(w, &bolt, err);
    if (!rc) rc = mcb_world_add_body(w, b, &idx, err);
    if (!rc) {
        nut.body = idx;
        rc = mcb_world_add_shape(w, &nut, err);
    }
    if (!rc)
        rc = mcb_world_describe(w, prefix, "bolt-nut", source,
                                "CANAL Sec. VII-A1 single-step test: M48 nut on a static bolt, "
                                "sampled configurations x random wrenches, clustered to 120",
                                err);
    if (rc) {
        mcb_world_free(&w);
        return rc;
    }
    *out = w;
    return MCB_OK;
}

/* The nut's rigid body at configuration cf, at rest. */
static void nut_body(const nut_config *cf, mcb_rigid *b)
{
    memset(b, 0, sizeof *b);
    nut_mass_props(&b->mass_kg, b->inertia);
    /* body frame (centre) = shape frame moved by half the height along its axis */
    for (int k = 0; k < 3; k++) b->pos[k] = cf->X.p[k] + cf->X.R[3 * k + 2] * 0.5 * BN_NUT_H_M;
    memcpy(b->quat, cf->quat, sizeof cf->quat);
}

/* Settles the nut on the thread: `settle` steps under gravity at a looser
 * tolerance, the velocity removed after each step (quasi-static); *b
 * receives the settled state. */
static mcb_rc settle_nut(mcb_rigid *b, int settle, const char *source, mcb_err *err)
{
    mcb_world_opts o;
    bn_opts(&o, NULL, BN_SETTLE_TOL, BN_SETTLE_ITERS);
    mcb_world *w = NULL;
    mcb_rc rc = nut_world(&o, b, "bolt-nut-settle", source, &w, err);
    for (int k = 0; k < settle && !rc; k++) {
        rc = mcb_world_step(w, NULL, NULL, err);
        if (!rc) memset(mcb_world_body(w, 0)->vel, 0, 6 * sizeof(double));
    }
    if (!rc) *b = *mcb_world_body(w, 0);
    mcb_world_free(&w);
    return rc;
}

/* One wrench case from the settled state b: a fresh world, the wrench,
 * one recorded step: at the world's tight default tolerance by pgs with
 * Siconos' ADMM (or subadmm) as the fallback, else at BN_LOOSE_TOL, then
 * BN_LOOSER_TOL; the notes give the reference's residual. */
static mcb_rc record_case(const mcb_rigid *b0, const double wrench[6], const char *name,
                          const char *source, mcb_problem **out, mcb_err *err)
{
    mcb_world_opts d0;
    mcb_world_defaults(&d0);
    const double tols[3] = {d0.tol, BN_LOOSE_TOL, BN_LOOSER_TOL};
    const char *fb = mcb_solver_find("siconos_admm") ? "siconos_admm" : "subadmm";
    mcb_rigid b = *b0;
    memcpy(b.wrench, wrench, sizeof b.wrench);
    mcb_problem *P = NULL;
    mcb_step_info info;
    mcb_rc rc = MCB_E_NUMERIC;
    int tier = 0;
    for (; tier < 3 && rc == MCB_E_NUMERIC; tier++) { /* NUMERIC: neither solver got there */
        mcb_world_opts o;
        bn_opts(&o, "pgs", tols[tier], BN_CASE_ITERS);
        o.fallback = fb;
        mcb_world *w = NULL;
        mcb_err_clear(err);
        rc = nut_world(&o, &b, name, source, &w, err);
        if (!rc) rc = mcb_world_step(w, &P, &info, err);
        mcb_world_free(&w);
    }
    if (rc) return rc;
    char notes[400], *nm = mcb_strdup(name), *nt;
    snprintf(notes, sizeof notes, "%s; reference natmap %.3g%s", P->notes ? P->notes : "",
             info.residual, tier > 1 ? " (pgs and the fallback did not reach 1e-8)" : "");
    nt = mcb_strdup(notes);
    if (!nm || !nt) {
        free(nm), free(nt);
        mcb_problem_free(&P);
        return mcb_fail(err, MCB_E_NOMEM, "bolt-nut: out of memory");
    }
    free(P->name), free(P->notes);
    P->name = nm, P->notes = nt;
    *out = P;
    return MCB_OK;
}

/* One configuration: settle, then the wrench cases into S. */
static mcb_rc run_config(const nut_config *cf, int c, int settle, int nwrench, double scale,
                         const char *source, mcb_rng *rng, mcb_problem_set *S, mcb_err *err)
{
    mcb_rigid b;
    nut_body(cf, &b);
    mcb_rc rc = settle_nut(&b, settle, source, err);
    double weight = b.mass_kg * 9.81, arm = 0.5 * BN_NUT_AF_M;
    for (int k = 0; k < nwrench && !rc; k++) {
        double u[3], wrench[6];
        unit_ball(rng, u);
        for (int j = 0; j < 3; j++) wrench[j] = scale * weight * u[j];
        unit_ball(rng, u);
        for (int j = 0; j < 3; j++) wrench[3 + j] = scale * weight * arm * u[j];
        char name[64];
        snprintf(name, sizeof name, "bolt-nut-c%02d-w%02d", c, k);
        mcb_problem *P = NULL;
        rc = record_case(&b, wrench, name, source, &P, err);
        if (!rc) {
            rc = mcb_problem_set_push(S, P, err);
            if (rc) mcb_problem_free(&P);
        }
    }
    return rc;
}

mcb_rc mcb_scene_bolt_nut(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (loop)
        return mcb_fail(err, MCB_E_INPUT,
                        "bolt-nut: records independent single-step cases from settled states, not one trajectory: it cannot run in a closed loop");
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "bolt-nut: NULL argument");
    *out = NULL;
    int nconf = (int)vals[OPT_CONFIGS], nwrench = (int)vals[OPT_WRENCHES];
    int settle = (int)vals[OPT_SETTLE];
    double scale = vals[OPT_SCALE];
    if (nconf < 1 || nwrench < 1 || settle < 1 || !(scale >= 0))
        return mcb_fail(err, MCB_E_INPUT,
                        "bolt-nut: need --configs >= 1, --wrenches >= 1, --settle >= 1, --scale >= 0");
    const mcb_scene_def *def = mcb_scene_find("bolt-nut");
    char source[512];
    if (def) mcb_scene_args(def, vals, source, sizeof source);
    else snprintf(source, sizeof source, "bolt-nut");

    mcb_rng rng;
    mcb_rng_seed(&rng, (unsigned long long)vals[OPT_SEED]);
    nut_config *Xc = mcb_malloc((size_t)nconf, sizeof *Xc);
    if (!Xc) return mcb_fail(err, MCB_E_NOMEM, "bolt-nut: out of memory");
    mcb_problem_set *S = NULL;
    mcb_rc rc = sample_configs(nconf, &rng, Xc, err);
    if (!rc && !(S = mcb_calloc(1, sizeof *S))) rc = mcb_fail(err, MCB_E_NOMEM, "bolt-nut: out of memory");
    for (int c = 0; c < nconf && !rc; c++)
        rc = run_config(&Xc[c], c, settle, nwrench, scale, source, &rng, S, err);
    free(Xc);
    if (rc) {
        mcb_problem_set_free(&S);
        return rc;
    }
    *out = S;
    return MCB_OK;
}

/* ---------------------------------------------------------------------
 * bolt-nut-assembly: the CANAL paper's closed-loop assembly (Sec. VII-A2)
 * as one trajectory: the nut, engaged near the top of the bolt, held by a
 * Cartesian impedance (soft point and angular joints, world.h) to a
 * scripted hand (a kinematic body) that screws it down the thread at
 * `--rate` turns per second. The paper's robot (a Franka arm with a
 * gripper under joint impedance control) is replaced by the impedance
 * acting on the nut directly: the contact problem the solver sees (the
 * nut on the thread, clustered to 120 contacts) is the same. Outcome: the
 * nut's advance error, the commanded advance (rate x pitch x t) minus the
 * nut's descent; the run fails when it leaves half a pitch either way (the
 * nut jumped a thread or stuck) or the nut penetrates the bolt by more
 * than 0.5 mm (a tenth of the pitch). */

enum { OPT_A_STEPS = 0, OPT_A_RATE = 1, OPT_A_SEED = 2 };
#define BNA_K_N_M 2000.0      /* impedance: translational stiffness */
#define BNA_D_NS_M 80.0       /*   and damping (about critical for the 0.97 kg nut) */
#define BNA_K_NM_RAD 5.0      /*   rotational stiffness */
#define BNA_D_NMS_RAD 0.12    /*   and damping (about critical for Izz 7.6e-4 kg m^2) */
#define BNA_TOP_M 0.105       /* the nut's bottom at the start (bolt top: 0.160) */
#define BNA_FAIL_PEN_M 0.5e-3 /* a tenth of the pitch */
#define BNA_TOL 1e-6          /* the reference's residual (100 x accepted) */

typedef struct {
    int nut;
    double z0_m, rate_hz, h_s;
} assembly_ctx;

/* commanded advance - the nut's descent (m) */
static double advance_error(const void *c, mcb_world *w)
{
    const assembly_ctx *a = c;
    double t = mcb_world_step_index(w) * a->h_s;
    return a->rate_hz * BN_PITCH_M * t - (a->z0_m - mcb_world_body(w, a->nut)->pos[2]);
}

mcb_rc mcb_scene_bolt_nut_assembly(const double *vals, const struct mcb_world_loop *loop,
                                   mcb_problem_set **out, mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "bolt-nut-assembly: NULL argument");
    *out = NULL;
    int steps = (int)vals[OPT_A_STEPS];
    double rate = vals[OPT_A_RATE];
    if (steps < 1 || !(rate >= 0))
        return mcb_fail(err, MCB_E_INPUT, "bolt-nut-assembly: need --steps >= 1, --rate >= 0");
    char source[512];
    mcb_scene_args_named("bolt-nut-assembly", vals, source, sizeof source);
    mcb_rng rng;
    mcb_rng_seed(&rng, (unsigned long long)vals[OPT_A_SEED]);
    /* the start: engaged near the top, a small random tilt and offset */
    mcb_shape bolt, nutshape;
    bolt_shape(&bolt);
    nut_shape(&nutshape);
    placement pl = {&bolt, &nutshape, mcb_xform_identity(), NULL, NULL, 0, 0};
    double *all = NULL;
    int nall = 0;
    mcb_rc rc = shape_samples(&bolt, &all, &nall, err);
    if (!rc) rc = shape_samples(&nutshape, &pl.pn, &pl.nn, err);
    nut_config cf;
    if (!rc) {
        pl.pb = all;
        pl.nb = keep_near(all, nall, BNA_TOP_M - BN_PITCH_M, BNA_TOP_M + BN_NUT_H_M + BN_PITCH_M);
        cf = sample_config(&pl, BNA_TOP_M, &rng);
    }
    free(all);
    free(pl.pn);
    if (rc) return rc;

    mcb_world_opts o;
    bn_opts(&o, "pgs", BNA_TOL, BN_CASE_ITERS);
    o.fallback = mcb_solver_find("siconos_admm") ? "siconos_admm" : "subadmm";
    o.loop = loop;
    o.fail_pen_m = BNA_FAIL_PEN_M;
    mcb_rigid nut, hand;
    nut_body(&cf, &nut);
    hand = nut;
    hand.kinematic = 1;
    hand.vel[2] = -rate * BN_PITCH_M;       /* down the thread ... */
    hand.vel[5] = -2 * BN_PI * rate;        /* ... turning with it (right-hand thread) */
    mcb_world *w = NULL;
    int ih = -1;
    rc = nut_world(&o, &nut, "bolt-nut-assembly", source, &w, err);
    if (!rc) rc = mcb_world_add_body(w, &hand, &ih, err);
    if (!rc)
        rc = mcb_world_add_impedance(w, ih, 0, BNA_K_N_M, BNA_D_NS_M, BNA_K_NM_RAD,
                                     BNA_D_NMS_RAD, err);
    assembly_ctx ctx = {0, nut.pos[2], rate, BN_H_S};
    mcb_world_outcome oc = {"advance_error", "m", advance_error, &ctx, -0.5 * BN_PITCH_M,
                            0.5 * BN_PITCH_M, 0};
    if (!rc) mcb_world_set_outcome(w, &oc);
    if (!rc)
        rc = mcb_world_describe(w, "bolt-nut-assembly", "bolt-nut-assembly", source,
                                "CANAL Sec. VII-A2 closed-loop assembly: the M48 nut screwed down "
                                "the bolt by an impedance to a scripted hand, clustered to 120",
                                err);
    mcb_problem_set *S = NULL;
    if (!rc) rc = mcb_world_record(w, steps, &S, err);
    mcb_world_free(&w);
    if (rc) return rc;
    *out = S;
    return MCB_OK;
}

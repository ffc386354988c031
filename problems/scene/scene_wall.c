/* scene_wall.c: the 3D wall benchmark of Tasora and Negrut's GPU CCP paper
 * (Numerical results, Table 1): a wall of N bricks (1000, 2000, 8000 in the
 * paper) on a ground plane, hit by a projectile and falling apart;
 * friction 0.6 between bricks and between bricks and ground, h = 0.01 s.
 *
 * What we build (the paper gives neither the brick size nor the wall's
 * shape nor the projectile; docs/scenes.md says what we chose):
 *  - bricks of 215 x 102.5 x 65 mm (the common metric brick), 2000 kg/m^3,
 *    laid in running bond: courses along x, odd courses shifted by half a
 *    brick, at most WALL_LEN bricks per course and WALL_COURSES courses per
 *    wythe, as many wythes (along y) as N needs; filled course by course,
 *    so the top course may be partial; courses touch (gap 0), neighbours in
 *    a course are 2 mm apart; a 0.3 mm horizontal jitter from a fixed seed;
 *  - the projectile: a steel sphere (7800 kg/m^3) of radius 0.3 x the wall
 *    height (within 5..20 cm) at a third of the wall's height, 2 mm in
 *    front of it (the hit is in the first step), moving at WALL_SPEED
 *    towards it;
 *  - a contact margin of 5 mm (speculative contacts: e_n = gap / h lets a
 *    gap close in one step), so that fast bricks do not tunnel;
 *  - every step recorded (name "wallN-stepKKKK").
 * Closed loop (docs/scenes.md): the outcome is the projectile's advance
 * along its flight (recorded, no bound: the wall breaking is the scene);
 * the penetration and energy bounds are the defaults.
 *
 * Fails with MCB_E_INPUT on bad options, and with the step's error when a
 * step cannot be solved; frees everything it allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define WALL_HX_M 0.1075       /* brick half extents */
#define WALL_HY_M 0.05125
#define WALL_HZ_M 0.0325
#define WALL_RHO_KG_M3 2000.0  /* brick density */
#define WALL_GAP_M 0.003       /* gap between neighbours in a course / wythes */
#define WALL_JITTER_M 0.0003   /* horizontal placement jitter (uniform +-) */
#define WALL_LEN 50            /* bricks per course (at most) */
#define WALL_COURSES 10        /* courses (at most) */
#define WALL_MU 0.6            /* paper */
#define WALL_H_S 0.01          /* paper */
#define WALL_STEEL_KG_M3 7800.0
#define WALL_SPEED_M_S 5.0     /* projectile speed */
#define WALL_MARGIN_M 0.0025   /* contact margin (speculative contacts) */
#define WALL_TOL 1e-4          /* natural-map residual of the advance (see below) */
#define WALL_MAX_ITERS 1000    /* per step */
#define WALL_START_GAP_M 0.002 /* projectile to wall at the start (within the margin) */
#define WALL_SEED 0x3a11ULL
#define WALL_PI 3.14159265358979323846

/* Options in table order (scenes.c): --bricks, --steps. */
enum { OPT_BRICKS, OPT_STEPS };

typedef struct {
    int len, courses, wythes; /* bricks per course, courses, wythes */
    double height_m;          /* height of the wall (full courses) */
    double thick_m;           /* thickness (all wythes) */
} wall_layout;

static wall_layout layout_for(int n)
{
    wall_layout L;
    L.len = (int)ceil(sqrt(2.0 * n));
    if (L.len > WALL_LEN) L.len = WALL_LEN;
    L.wythes = (n + L.len * WALL_COURSES - 1) / (L.len * WALL_COURSES);
    L.courses = (n + L.len * L.wythes - 1) / (L.len * L.wythes);
    L.height_m = L.courses * 2 * WALL_HZ_M;
    L.thick_m = L.wythes * (2 * WALL_HY_M + WALL_GAP_M) - WALL_GAP_M;
    return L;
}

/* One free body with one shape (centred on the body frame). */
/* The bricks in running bond, course by course. */
static mcb_rc add_bricks(mcb_world *w, const wall_layout *L, int n, mcb_err *err)
{
    mcb_rng rng;
    mcb_rng_seed(&rng, WALL_SEED);
    const double size[3] = {WALL_HX_M, WALL_HY_M, WALL_HZ_M};
    double m = WALL_RHO_KG_M3 * 8 * WALL_HX_M * WALL_HY_M * WALL_HZ_M;
    double a = 2 * WALL_HX_M, b = 2 * WALL_HY_M, c = 2 * WALL_HZ_M;
    mcb_rigid br;
    memset(&br, 0, sizeof br);
    br.mass_kg = m;
    br.inertia[0] = m * (b * b + c * c) / 12;
    br.inertia[4] = m * (a * a + c * c) / 12;
    br.inertia[8] = m * (a * a + b * b) / 12;
    br.quat[0] = 1;
    int placed = 0;
    for (int course = 0; placed < n; course++) {
        double shift = (course % 2) ? 0.5 * (a + WALL_GAP_M) : 0;
        for (int k = 0; k < L->wythes && placed < n; k++) {
            for (int i = 0; i < L->len && placed < n; i++) {
                br.pos[0] = (i - 0.5 * (L->len - 1)) * (a + WALL_GAP_M) + shift +
                            WALL_JITTER_M * (2 * mcb_rng_uniform(&rng) - 1);
                br.pos[1] = (k - 0.5 * (L->wythes - 1)) * (b + WALL_GAP_M);
                br.pos[2] = WALL_HZ_M + course * c;
                mcb_rc rc =
                    mcb_world_add_primitive(w, &br, MCB_SHAPE_BOX, size, WALL_MU, NULL, err);
                if (rc) return rc;
                placed++;
            }
        }
    }
    return MCB_OK;
}

/* The projectile: a steel sphere in front of the wall (-y side), moving
 * towards it at a third of its height. */
static mcb_rc add_projectile(mcb_world *w, const wall_layout *L, double *mass_kg, mcb_err *err)
{
    double r = 0.3 * L->height_m;
    if (r < 0.05) r = 0.05;
    if (r > 0.2) r = 0.2;
    double m = WALL_STEEL_KG_M3 * 4.0 / 3.0 * WALL_PI * r * r * r;
    mcb_rigid p;
    memset(&p, 0, sizeof p);
    p.mass_kg = m;
    p.inertia[0] = p.inertia[4] = p.inertia[8] = 0.4 * m * r * r;
    p.quat[0] = 1;
    p.pos[0] = 0;
    p.pos[1] = -0.5 * L->thick_m - WALL_JITTER_M - r - WALL_START_GAP_M;
    p.pos[2] = fmax(L->height_m / 3, r + 0.01);
    p.vel[1] = WALL_SPEED_M_S;
    *mass_kg = m;
    const double size[3] = {r, 0, 0};
    return mcb_world_add_primitive(w, &p, MCB_SHAPE_SPHERE, size, WALL_MU, NULL, err);
}

/* The outcome (docs/scenes.md, "Closed loop"): how far the projectile (the
 * last free body) has travelled along its flight (+y) since the start.
 * ctx: its start y. */
static double projectile_advance(const void *ctx, mcb_world *w)
{
    return mcb_world_body(w, mcb_world_nrigid(w) - 1)->pos[1] - *(const double *)ctx;
}

mcb_rc mcb_scene_wall(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "wall: NULL argument");
    *out = NULL;
    int nb = (int)vals[OPT_BRICKS], steps = (int)vals[OPT_STEPS];
    if (nb < 1 || steps < 1)
        return mcb_fail(err, MCB_E_INPUT, "wall: --bricks and --steps must be >= 1");

    wall_layout L = layout_for(nb);
    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = WALL_H_S;
    o.margin_m = WALL_MARGIN_M;
    o.tol = WALL_TOL;
    o.max_iters = WALL_MAX_ITERS;
    o.fallback = ""; /* no registered solver does better here (docs/scenes.md) */
    /* the energy and penetration bounds are the defaults: the projectile
     * brings 1.5 kJ (1000 bricks), yet in the reference run step 3 stops
     * at the iteration cap with residual 7.6e-4 (accepted: within 100 x
     * tol) and launches bricks at up to 14 m/s, the kinetic energy going
     * from 1.1 to 4.9 kJ, so a bound scaled by the projectile would fail
     * the reference itself (docs/scenes.md, "Closed loop") */

    mcb_world *w = NULL;
    mcb_problem_set *S = NULL;
    double mproj = 0;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc)
        rc = mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, WALL_MU, NULL, err);
    if (!rc) rc = add_bricks(w, &L, nb, err);
    if (!rc) rc = add_projectile(w, &L, &mproj, err);
    if (rc) goto done;
    double y0 = mcb_world_body(w, mcb_world_nrigid(w) - 1)->pos[1];
    mcb_world_set_outcome(w, &(mcb_world_outcome){"projectile_advance", "m", projectile_advance, &y0,
                                                  NAN, NAN, 0});

    char src[512], prefix[64], notes[256];
    mcb_scene_args_named("wall", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "wall%d", nb);
    snprintf(notes, sizeof notes,
             "Tasora-Negrut GPU CCP paper, 3D wall benchmark (Table 1): %d bricks "
             "(%d per course, %d courses, %d wythes), %.1f kg steel projectile at %.1f m/s",
             nb, L.len, L.courses, L.wythes, mproj, WALL_SPEED_M_S);
    rc = mcb_world_describe(w, prefix, "wall", src, notes, err);
    if (rc) goto done;

    rc = mcb_world_record(w, steps, &S, err);

done:
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

/* scene_peg_in_hole.c: RPIsim's "Hello World" peg-in-hole benchmark
 * (RPIsim paper Sec. 5.1, Fig. 8): four static unit cubes at (+-1, 0) and
 * (0, +-1) leave a unit-cube hole between them; a fifth, dynamic cube
 * scaled to 99.999 % (5 um clearance on every side) is dropped into it.
 * Methods that anticipate contacts (Stewart-Trinkle) may stop the peg on
 * the rims of the hole; methods that allow penetration may let a peg that
 * is too large pass. Every step is recorded (name "peg-in-hole-stepKKKK").
 *
 * What we build (the paper's script has no ground; we give the hole a
 * floor so that the peg comes to rest and the last steps are resting
 * contacts): the cubes' bottoms on the ground plane z = 0, so the hole is
 * 1 m deep; the peg aligned with the hole, its bottom --drop above the
 * cubes' tops (0.5 m as in the paper's script, whose peg centre is at 1.5
 * over cubes centred at 0);
 * density 1000 kg/m^3 (a 1 t cube; the paper gives none), mu 0.3 (nor
 * friction), h = 10 ms, the world's default contact margin (1 mm: the
 * 5 um side gaps are contacts from the start of the descent) and its
 * default solver (pgs, subadmm as fallback) to 1e-10.
 * Closed loop (docs/scenes.md): the outcome is the peg's depth in the hole
 * (peg_depth), failing when the peg is not in the hole (depth < 0) once
 * 1.5 times the free fall to half the hole's depth has passed.
 *
 * Fails with MCB_E_INPUT on bad options, and with the step's error when a
 * step cannot be solved; frees everything it allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define PEG_HALF_M 0.5          /* the unit cubes' half extent */
#define PEG_RHO_KG_M3 1000.0
#define PEG_MU 0.3
#define PEG_H_S 0.01
#define PEG_G_M_S2 9.81         /* the world's default gravity */

/* Options in table order (scenes.c): --steps, --scale, --drop. */
enum { OPT_STEPS, OPT_SCALE, OPT_DROP };

static mcb_rc add_static_cube(mcb_world *w, double x, double y, mcb_err *err)
{
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = MCB_SHAPE_BOX;
    s.body = -1;
    s.local = mcb_xform_identity();
    s.local.p[0] = x;
    s.local.p[1] = y;
    s.local.p[2] = PEG_HALF_M;
    s.size[0] = s.size[1] = s.size[2] = PEG_HALF_M;
    s.mu = PEG_MU;
    return mcb_world_add_shape(w, &s, err);
}

static mcb_rc add_peg(mcb_world *w, double scale, double drop_m, mcb_err *err)
{
    double a = PEG_HALF_M * scale, side = 2 * a;
    double m = PEG_RHO_KG_M3 * side * side * side;
    mcb_rigid p;
    memset(&p, 0, sizeof p);
    p.mass_kg = m;
    p.inertia[0] = p.inertia[4] = p.inertia[8] = m * side * side / 6.0;
    p.quat[0] = 1;
    p.pos[2] = 2 * PEG_HALF_M + a + drop_m; /* the bottom drop_m above the cubes' tops */
    const double size[3] = {a, a, a};
    return mcb_world_add_primitive(w, &p, MCB_SHAPE_BOX, size, PEG_MU, NULL, err);
}

/* The outcome (docs/scenes.md, "Closed loop"): while the peg's centre is
 * over the hole's footprint (|x|, |y| <= PEG_HALF_M), how deep its lowest
 * point is below the hole's top (m; 1 resting on the floor, negative above
 * the rim); with its centre outside the footprint, minus how far outside
 * (the peg is not in the hole). Positive exactly when the peg is in the
 * hole. ctx: the peg's half side (it is the only free body). */
static double peg_depth(const void *ctx, mcb_world *w)
{
    double a = *(const double *)ctx;
    const mcb_rigid *p = mcb_world_body(w, 0);
    const mcb_xform *X = mcb_world_body_pose(w, 0);
    double out = fmax(fabs(p->pos[0]), fabs(p->pos[1])) - PEG_HALF_M;
    if (out > 0) return -out;
    double low = p->pos[2] - a * (fabs(X->R[6]) + fabs(X->R[7]) + fabs(X->R[8]));
    return 2 * PEG_HALF_M - low;
}

mcb_rc mcb_scene_peg_in_hole(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "peg-in-hole: NULL argument");
    *out = NULL;
    int steps = (int)vals[OPT_STEPS];
    double scale = vals[OPT_SCALE], drop = vals[OPT_DROP];
    if (steps < 1 || !(scale > 0.0) || !(drop >= 0.0))
        return mcb_fail(err, MCB_E_INPUT,
                        "peg-in-hole: --steps must be >= 1, --scale > 0, --drop >= 0");
    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = PEG_H_S;
    mcb_world *w = NULL;
    mcb_problem_set *S = NULL;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc)
        rc = mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, PEG_MU, NULL, err);
    const double at[4][2] = {{-1, 0}, {1, 0}, {0, 1}, {0, -1}}; /* Fig. 8a's c1..c4 */
    for (int k = 0; k < 4 && !rc; k++) rc = add_static_cube(w, at[k][0], at[k][1], err);
    if (!rc) rc = add_peg(w, scale, drop, err);
    if (rc) goto done;
    /* judged once the peg, falling freely, would be half-way down the hole
     * 1.5 times over: by then a peg not in the hole sits on the rims or
     * was thrown out */
    int judged = (int)ceil(1.5 * sqrt(2 * (drop + PEG_HALF_M) / PEG_G_M_S2) / PEG_H_S);
    double half = PEG_HALF_M * scale;
    mcb_world_set_outcome(w,
                          &(mcb_world_outcome){"peg_depth", "m", peg_depth, &half, 0, NAN, judged});

    char src[512], notes[256];
    mcb_scene_args_named("peg-in-hole", vals, src, sizeof src);
    snprintf(notes, sizeof notes,
             "RPIsim Sec. 5.1, Fig. 8: a unit cube scaled by %.6g (clearance %.3g um per side) "
             "dropped from %.3g m above a unit-cube hole between four static cubes",
             scale, PEG_HALF_M * (1.0 - scale) * 1e6, drop);
    rc = mcb_world_describe(w, "peg-in-hole", "peg-in-hole", src, notes, err);
    if (!rc) rc = mcb_world_record(w, steps, &S, err);

done:
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

/* scene_beam.c: the FEM beam insertion scene of the SubADMM paper (Sec.
 * IV-A 3, Fig. 1c): a 7-DOF arm (mcb_robot_arm7, high-gain joint PD)
 * pushes a deformable beam (0.05 x 0.05 x 0.5 m, E 10 MPa, nu 0.45,
 * co-rotational tetrahedral FEM, fem.c) along its axis through a narrow
 * horizontal gap; h = 10 ms. The paper's mesh has 1591 nodes and 6347
 * tetrahedra in 20 subsystems (dimension 4780, 21 subsystems with the arm).
 *
 * What we build (docs/scene-beam.md states what differs from the paper):
 *  - the beam: mcb_fem_box, cells x cells across, `length` cells along,
 *    6 tetrahedra per cell, cut into `pieces` subsystems whose duplicated
 *    cut nodes the world ties with hard point joints; density 1000 kg/m^3
 *    (not stated by the paper), light stiffness-proportional damping;
 *  - the grip: every node of the beam's near end face joined to the arm's
 *    hand by a hard point joint (MCB_WJ_POINT), the face GRIP_M beyond the
 *    flange along the hand's approach axis (clear of the hand's shapes);
 *  - the gap: two static boxes, the lower one's top GAP_CLEAR_M below the
 *    beam's bottom (at the grip) and the upper one's bottom as far above
 *    its top; the beam starts with its far part over the lower box, so it
 *    sags onto it (contacts) and slides in while the arm pushes;
 *  - the motion: the grip point moves along +x at `speed` (ramped up
 *    smoothly over RAMP_S), the hand's orientation fixed; joint targets from
 *    a damped-least-squares IK on a private copy of the arm, v_ref from
 *    their finite difference (arm_track.h). The arm starts at rest at the
 *    IK solution.
 * Every step is recorded ("beamN-stepKKKK", N = the node count).
 * Closed loop (docs/scenes.md): the outcome is the insertion depth (the
 * beam's leading point past the gap's entrance), failing when the tip is
 * pushed back out by half the beam's thickness from where it started.
 *
 * Fails with MCB_E_INPUT on bad options, MCB_E_NUMERIC when the IK cannot
 * reach the start pose or a step cannot be solved; frees everything it
 * allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/arm_track.h"
#include "problems/scene/fem.h"
#include "problems/scene/robot_models.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define BEAM_L_M 0.5           /* beam length (paper) */
#define BEAM_T_M 0.05          /* beam side (paper) */
#define BEAM_E_PA 1e7          /* Young's modulus (paper) */
#define BEAM_NU 0.45           /* Poisson ratio (paper) */
#define BEAM_RHO 1000.0        /* density (paper: not stated) */
#define BEAM_DAMP_S 0.002      /* Rayleigh stiffness damping b (not stated) */
#define BEAM_NODE_R_M 0.003    /* contact sphere radius of the surface nodes */
#define BEAM_MU 0.3            /* friction beam / gap (not stated) */
#define BEAM_H_S 0.01          /* time step (paper: 10 ms) */
#define GRIP_M 0.10            /* end face beyond the flange (hand box: 8 cm) */
#define GRIP_X_M 0.50          /* grip point at the start (arm base at the origin) */
#define GRIP_Z_M 0.35
#define GAP_X_M 0.80           /* entrance of the gap (beam tip at 1.0 m) */
#define GAP_LEN_M 0.60         /* length of the gap blocks along x */
#define GAP_CLEAR_M 0.006      /* beam surface to block surface at the grip */
#define RAMP_S 0.1             /* time to reach the insertion speed */
#define BEAM_TOL 1e-5          /* natural-map residual of the advance */
#define BEAM_MAX_ITERS 20000    /* per solver and step */

/* Options in table order (scenes.c): --cells, --length, --pieces, --steps, --speed. */
enum { OPT_CELLS, OPT_LENGTH, OPT_PIECES, OPT_STEPS, OPT_SPEED };

/* ---- the grip's path ------------------------------------------------ */

/* The grip target at time t: x advances at `speed` (ctx) after a smooth
 * ramp (speed profile 3u^2 - 2u^3 over RAMP_S); the hand's approach axis
 * (its z) along +x, its x axis down. */
static void target_at(const void *ctx, double t_s, mcb_ik_target *t)
{
    double speed = *(const double *)ctx, s;
    if (t_s < RAMP_S) {
        double u = t_s / RAMP_S;
        s = RAMP_S * (u * u * u - 0.5 * u * u * u * u);
    } else {
        s = 0.5 * RAMP_S + (t_s - RAMP_S);
    }
    const double p[3] = {GRIP_X_M + speed * s, 0, GRIP_Z_M};
    const double R[9] = {0, 0, 1, 0, 1, 0, -1, 0, 0}; /* columns: x_h = -z, y_h = y, z_h = x */
    memcpy(t->p, p, sizeof t->p);
    memcpy(t->R, R, sizeof t->R);
}

/* Seeds of the first IK (Franka convention). */
static const double start_seeds[3][7] = {{0, 0.3, 0, -2.0, 0, 2.3, 0.785},
                                         {0, -0.785, 0, -2.356, 0, 1.571, 0.785},
                                         {0, 0.5, 0, -1.5, 0, 0.5, 0}};

/* ---- the scene's pieces -------------------------------------------- */

static mcb_rc add_static_box(mcb_world *w, const double c[3], const double half[3], mcb_err *err)
{
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = MCB_SHAPE_BOX;
    s.body = -1;
    s.local = mcb_xform_identity();
    memcpy(s.local.p, c, sizeof s.local.p);
    memcpy(s.size, half, sizeof s.size);
    s.mu = BEAM_MU;
    return mcb_world_add_shape(w, &s, err);
}

/* The gap: a lower and an upper block leaving BEAM_T_M + 2 GAP_CLEAR_M. */
static mcb_rc add_gap(mcb_world *w, mcb_err *err)
{
    double half[3] = {0.5 * GAP_LEN_M, 0.15, 0.05};
    double lo[3] = {GAP_X_M + half[0], 0, GRIP_Z_M - 0.5 * BEAM_T_M - GAP_CLEAR_M - half[2]};
    double up[3] = {GAP_X_M + half[0], 0, GRIP_Z_M + 0.5 * BEAM_T_M + GAP_CLEAR_M + half[2]};
    mcb_rc rc = add_static_box(w, lo, half, err);
    if (!rc) rc = add_static_box(w, up, half, err);
    return rc;
}

static mcb_rc make_beam(const double *vals, const mcb_xform *grip, mcb_fem **out, mcb_err *err)
{
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = BEAM_L_M, o.size[1] = o.size[2] = BEAM_T_M;
    o.cells[0] = (int)vals[OPT_LENGTH];
    o.cells[1] = o.cells[2] = (int)vals[OPT_CELLS];
    o.pieces = (int)vals[OPT_PIECES];
    o.young_pa = BEAM_E_PA, o.poisson = BEAM_NU, o.density = BEAM_RHO;
    o.rayleigh_stiff = BEAM_DAMP_S;
    o.corotational = 1;
    o.pose = mcb_xform_identity();  /* the beam along world x from the grip point */
    o.pose.p[0] = grip->p[0] + 0.5 * BEAM_L_M;
    o.pose.p[1] = grip->p[1];
    o.pose.p[2] = grip->p[2];
    return mcb_fem_box(&o, out, err);
}

/* Hard point joints between the hand (the arm's last link, scene body
 * first_link + ee) and every node of the beam's near end face. */
static mcb_rc add_grip(mcb_world *w, const mcb_fem *f, int first_node, const mcb_robot *arm,
                       int first_link, mcb_err *err)
{
    int n = mcb_fem_nnodes(f);
    int *idx = mcb_calloc((size_t)n, sizeof(int));
    if (!idx) return mcb_fail(err, MCB_E_NOMEM, "beam: out of memory");
    int m = mcb_fem_nodes_at(f, 0, -0.5 * BEAM_L_M, 1e-9, idx, n);
    int ee = mcb_robot_nlinks(arm) - 1, hand = first_link + ee;
    const mcb_xform *H = mcb_robot_link_pose(arm, ee);
    const double *X = mcb_fem_rest(f);
    mcb_rc rc = MCB_OK;
    for (int k = 0; k < m && !rc; k++) {
        mcb_wjoint j;
        memset(&j, 0, sizeof j);
        j.kind = MCB_WJ_POINT;
        j.body_a = hand;
        j.body_b = first_node + idx[k];
        double d[3];
        for (int i = 0; i < 3; i++) d[i] = X[3 * idx[k] + i] - H->p[i];
        mcb_m3_tvec(H->R, d, j.pa);  /* the node's rest position in the hand frame */
        rc = mcb_world_add_joint(w, &j, NULL, err);
    }
    free(idx);
    return rc;
}

/* The outcome (docs/scenes.md, "Closed loop"): the insertion depth, how
 * far the beam's leading point (its largest node x) is past the gap's
 * entrance (m; 0.2 m at the start). ctx: unused (the world's mesh). */
static double insertion_depth(const void *ctx, mcb_world *w)
{
    (void)ctx;
    mcb_fem *f = mcb_world_fem(w, 0);
    const double *x = mcb_fem_x(f);
    double tip = -INFINITY;
    for (int k = 0; k < mcb_fem_nnodes(f); k++) {
        if (isnan(x[3 * k])) return NAN;
        if (x[3 * k] > tip) tip = x[3 * k];
    }
    return tip - GAP_X_M;
}

mcb_rc mcb_scene_beam(const double *vals, const struct mcb_world_loop *loop, mcb_problem_set **out,
                      mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "beam: NULL argument");
    *out = NULL;
    int steps = (int)vals[OPT_STEPS];
    double speed = vals[OPT_SPEED];
    if (steps < 1 || !(speed >= 0 && isfinite(speed)))
        return mcb_fail(err, MCB_E_INPUT, "beam: --steps must be >= 1 and --speed >= 0");
    if ((int)vals[OPT_PIECES] > (int)vals[OPT_LENGTH])
        return mcb_fail(err, MCB_E_INPUT, "beam: --pieces %d exceeds --length %d (one cell per piece at least)",
                        (int)vals[OPT_PIECES], (int)vals[OPT_LENGTH]);

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = BEAM_H_S;
    o.tol = BEAM_TOL;
    o.max_iters = BEAM_MAX_ITERS;
    o.solver = "subadmm";  /* the ties' chain: PGS needs ~10x more iterations (docs/scene-beam.md) */
    o.fallback = "pgs";

    mcb_world *w = NULL;
    mcb_arm_track tr;
    memset(&tr, 0, sizeof tr);
    mcb_fem *beam = NULL;
    mcb_problem_set *S = NULL;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc) rc = add_gap(w, err);
    mcb_xform base = mcb_xform_identity();
    if (!rc) rc = mcb_arm_track_new(&tr, mcb_robot_arm7, &base, err);
    if (rc) goto done;
    /* the grip point GRIP_M beyond the flange along the hand's z, the hand's
     * whole orientation steered */
    mcb_arm_track_tool(&tr, GRIP_M, target_at, &speed, &start_seeds[0][0], 3);
    int first = 0, first_node = 0;
    rc = mcb_arm_track_start(&tr, w, "beam: the arm cannot reach the start grip pose", &first, err);
    if (rc) goto done;

    mcb_xform grip = mcb_xform_identity();
    memcpy(grip.p, tr.target.p, sizeof grip.p); /* the path's start */
    rc = make_beam(vals, &grip, &beam, err);
    if (rc) goto done;
    int nodes = mcb_fem_nnodes(beam);
    mcb_fem *bm = beam;
    beam = NULL;
    rc = mcb_world_add_fem(w, bm, BEAM_NODE_R_M, BEAM_MU, &first_node, err);  /* owned by w */
    if (!rc) rc = add_grip(w, bm, first_node, tr.arm, first, err);
    if (rc) goto done;
    /* the grip only pushes: a tip pushed back out by half the beam's
     * thickness from where it started (GRIP_X_M + BEAM_L_M) has jammed or
     * buckled (friction alone shortens the beam by a fraction of a mm) */
    mcb_world_set_outcome(w, &(mcb_world_outcome){"insertion_depth", "m", insertion_depth, NULL,
                                                  GRIP_X_M + BEAM_L_M - GAP_X_M - 0.5 * BEAM_T_M,
                                                  NAN, 0});

    char src[512], prefix[64];
    mcb_scene_args_named("beam", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "beam%d", nodes);
    rc = mcb_world_describe(w, prefix, "beam", src,
                            "SubADMM paper Sec. IV-A 3: co-rotational FEM beam pushed through a gap by a 7-DOF arm",
                            err);
    if (!rc) rc = mcb_arm_track_record(&tr, w, BEAM_H_S, steps, &S, err);

done:
    mcb_fem_free(&beam);
    mcb_arm_track_free(&tr);
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

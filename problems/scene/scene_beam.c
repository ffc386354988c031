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
 *    their finite difference. The arm starts at rest at the IK solution.
 * Every step is recorded ("beamN-stepKKKK", N = the node count).
 *
 * Fails with MCB_E_INPUT on bad options, MCB_E_NUMERIC when the IK cannot
 * reach the start pose or a step cannot be solved; frees everything it
 * allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fem.h"
#include "mcb_chol.h"
#include "robot_models.h"
#include "scenes.h"
#include "world.h"

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

/* ---- inverse kinematics of the grip (damped least squares) ---------- */

typedef struct {
    double p[3]; /* grip point (world) */
    double R[9]; /* hand orientation (world) */
} grip_target;

/* Pose error [p_target - p_grip; rotation vector of R_target R^T] of the
 * hand link `ee` of r; returns its weighted norm. */
static double grip_error(const mcb_robot *r, int ee, const grip_target *t, double e[6])
{
    const mcb_xform *X = mcb_robot_link_pose(r, ee);
    const double local[3] = {0, 0, GRIP_M};
    double p[3], E[9];
    mcb_xform_point(X, local, p);
    for (int i = 0; i < 3; i++) e[i] = t->p[i] - p[i];
    for (int i = 0; i < 3; i++)  /* E = R_target R^T */
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += t->R[3 * i + k] * X->R[3 * j + k];
            E[3 * i + j] = s;
        }
    double v[3] = {0.5 * (E[7] - E[5]), 0.5 * (E[2] - E[6]), 0.5 * (E[3] - E[1])};
    double sn = mcb_v3_norm(v), cs = 0.5 * (E[0] + E[4] + E[8] - 1);
    double ang = atan2(sn, cs);
    for (int i = 0; i < 3; i++) e[3 + i] = sn > 1e-14 ? v[i] / sn * ang : v[i];
    return mcb_v3_norm(e) + 0.1 * mcb_v3_norm(e + 3);
}

/* One IK iteration on r: dq = J^T (J J^T + l^2 I)^-1 e with the grip
 * point's Jacobian, clamped to 0.2 rad per joint. Returns the error before
 * the update. Jk (6 x ndof) is the caller's workspace. */
static double ik_iterate(mcb_robot *r, int ee, const grip_target *t, double *Jk)
{
    int n = mcb_robot_ndof(r);
    double e[6];
    double err = grip_error(r, ee, t, e);
    mcb_robot_link_jacobian(r, ee, Jk);
    const mcb_xform *X = mcb_robot_link_pose(r, ee);
    const double local[3] = {0, 0, GRIP_M};
    double rl[3];
    mcb_m3_vec(X->R, local, rl);
    for (int j = 0; j < n; j++) {  /* v_grip = v_o + w x rl */
        double *col = Jk + 6 * j, w[3] = {col[3], col[4], col[5]}, wx[3];
        mcb_v3_cross(w, rl, wx);
        for (int i = 0; i < 3; i++) col[i] += wx[i];
    }
    double M[36], y[6];
    for (int a = 0; a < 6; a++) {
        for (int b = 0; b < 6; b++) {
            double s = 0;
            for (int j = 0; j < n; j++) s += Jk[6 * j + a] * Jk[6 * j + b];
            M[a * 6 + b] = s + (a == b ? 1e-4 : 0);
        }
        y[a] = e[a];
    }
    if (mcb_dense_chol(6, M) != MCB_OK) return err;
    mcb_dense_chol_solve(6, M, y);
    double *q = mcb_robot_q(r);
    for (int j = 0; j < n; j++) {
        double dq = 0;
        for (int a = 0; a < 6; a++) dq += Jk[6 * j + a] * y[a];
        q[j] += fmax(-0.2, fmin(0.2, dq));
    }
    mcb_robot_update(r);
    return err;
}

static double ik_solve(mcb_robot *r, int ee, const grip_target *t, int iters, double *Jk)
{
    for (int k = 0; k < iters; k++)
        if (ik_iterate(r, ee, t, Jk) < 1e-10) break;
    double e[6];
    return grip_error(r, ee, t, e);
}

/* The grip target at time t: x advances at `speed` after a smooth ramp
 * (speed profile 3u^2 - 2u^3 over RAMP_S); the hand's approach axis (its
 * z) along +x, its x axis down. */
static grip_target target_at(double t_s, double speed)
{
    double s;
    if (t_s < RAMP_S) {
        double u = t_s / RAMP_S;
        s = RAMP_S * (u * u * u - 0.5 * u * u * u * u);
    } else {
        s = 0.5 * RAMP_S + (t_s - RAMP_S);
    }
    grip_target g = {{GRIP_X_M + speed * s, 0, GRIP_Z_M},
                     {0, 0, 1, 0, 1, 0, -1, 0, 0}};  /* columns: x_h = -z, y_h = y, z_h = x */
    return g;
}

/* Starts the IK twin at the first target from a few seeds. */
static mcb_rc start_pose(mcb_robot *twin, int ee, const grip_target *t0, double *Jk, mcb_err *err)
{
    static const double seeds[3][7] = {{0, 0.3, 0, -2.0, 0, 2.3, 0.785},
                                       {0, -0.785, 0, -2.356, 0, 1.571, 0.785},
                                       {0, 0.5, 0, -1.5, 0, 0.5, 0}};
    int n = mcb_robot_ndof(twin);
    double best = INFINITY;
    for (int s = 0; s < 3; s++) {
        double *q = mcb_robot_q(twin);
        for (int j = 0; j < n; j++) q[j] = j < 7 ? seeds[s][j] : 0;
        mcb_robot_update(twin);
        best = ik_solve(twin, ee, t0, 3000, Jk);
        if (best < 1e-8) return MCB_OK;
    }
    return mcb_fail(err, MCB_E_NUMERIC, "beam: the arm cannot reach the start grip pose (IK error %g)", best);
}

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

mcb_rc mcb_scene_beam(const double *vals, mcb_problem_set **out, mcb_err *err)
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
    o.h_s = BEAM_H_S;
    o.tol = BEAM_TOL;
    o.max_iters = BEAM_MAX_ITERS;
    o.solver = "subadmm";  /* the ties' chain: PGS needs ~10x more iterations (docs/scene-beam.md) */
    o.fallback = "pgs";

    mcb_world *w = NULL;
    mcb_robot *arm = NULL, *twin = NULL;
    mcb_fem *beam = NULL;
    mcb_problem_set *S = NULL;
    double *Jk = NULL, *qprev = NULL;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc) rc = add_gap(w, err);
    mcb_xform base = mcb_xform_identity();
    if (!rc) rc = mcb_robot_arm7(&base, &arm, err);
    if (!rc) rc = mcb_robot_arm7(&base, &twin, err);
    if (rc) goto done;
    int n = mcb_robot_ndof(arm), ee = mcb_robot_nlinks(arm) - 1;
    Jk = mcb_calloc(6 * (size_t)n, sizeof(double));
    qprev = mcb_calloc((size_t)n, sizeof(double));
    if (!Jk || !qprev) {
        rc = mcb_fail(err, MCB_E_NOMEM, "beam: out of memory");
        goto done;
    }
    grip_target t0 = target_at(0, speed);
    rc = start_pose(twin, ee, &t0, Jk, err);
    if (rc) goto done;
    memcpy(mcb_robot_q(arm), mcb_robot_q(twin), (size_t)n * sizeof(double));
    memcpy(mcb_robot_q_ref(arm), mcb_robot_q(twin), (size_t)n * sizeof(double));
    mcb_robot_update(arm);
    mcb_robot *a = arm;
    arm = NULL;
    int first = 0, first_node = 0;
    rc = mcb_world_add_robot(w, a, &first, err);  /* the world owns it from now on */
    if (rc) goto done;

    mcb_xform grip = mcb_xform_identity();
    memcpy(grip.p, t0.p, sizeof grip.p);
    rc = make_beam(vals, &grip, &beam, err);
    if (rc) goto done;
    int nodes = mcb_fem_nnodes(beam);
    mcb_fem *bm = beam;
    beam = NULL;
    rc = mcb_world_add_fem(w, bm, BEAM_NODE_R_M, BEAM_MU, &first_node, err);  /* owned by w */
    if (!rc) rc = add_grip(w, bm, first_node, a, first, err);
    if (rc) goto done;

    char src[512], prefix[64];
    mcb_scene_args_named("beam", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "beam%d", nodes);
    rc = mcb_world_describe(w, prefix, "beam", src,
                            "SubADMM paper Sec. IV-A 3: co-rotational FEM beam pushed through a gap by a 7-DOF arm",
                            err);
    if (rc) goto done;

    S = calloc(1, sizeof *S);
    if (!S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "beam: out of memory");
        goto done;
    }
    for (int k = 0; k < steps; k++) {
        memcpy(qprev, mcb_robot_q(twin), (size_t)n * sizeof(double));
        grip_target t = target_at((k + 1) * BEAM_H_S, speed);
        ik_solve(twin, ee, &t, 50, Jk);
        mcb_robot_track(a, mcb_robot_q(twin), qprev, BEAM_H_S);
        mcb_step_info info;
        rc = mcb_world_step_into(w, S, &info, err);
        if (rc) goto done;
    }

done:
    free(Jk);
    free(qprev);
    mcb_robot_free(&arm);
    mcb_robot_free(&twin);
    mcb_fem_free(&beam);
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

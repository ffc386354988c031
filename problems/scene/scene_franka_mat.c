/* scene_franka_mat.c: the soft mat manipulation of the COND paper (Sec.
 * V-C3, Table II, Fig. 7; the scalability sweep of Sec. V-D, Fig. 11): a
 * Franka Emika Panda (mcb_robot_arm7, high-gain joint PD) pinches one edge
 * of a soft mat lying on the floor (co-rotational tetrahedral FEM, fem.c)
 * and folds it over. The paper's mat has 1477 nodes and 4100 tetrahedra,
 * 4438 DOF (1477 x 3 + 7); E, nu and the friction are drawn at random per
 * repetition; its dynamics index is the norm of the mat's internal force.
 *
 * What we build (docs/scenes.md, "franka-mat", states what differs):
 *  - the floor: a static plane, friction drawn with the material;
 *  - the mat: MAT_X_M x MAT_Y_M x MAT_T_M, cells-x x cells-y x 1 cells (6
 *    tetrahedra per cell; 26 x 26: 1458 nodes, 4056 tetrahedra), one piece,
 *    co-rotational, lumped mass (COND's nodal form), silicone density, its
 *    bottom nodes' contact spheres (radius MAT_NODE_R_M) resting on the
 *    floor; E, nu and mu uniform in the ranges below, from --seed;
 *  - the pinch: every node of the mat's far edge (x = +MAT_X_M / 2) within
 *    PINCH_HALF_M of the edge's middle (the Franka hand's 8 cm stroke) is
 *    joined to the hand by a hard point joint, the edge's middle GRIP_M
 *    beyond the flange along the hand's approach axis;
 *  - the motion: after HOLD_S the pinched edge travels on an arc over the
 *    fold line (the mat's middle) towards the robot, FOLD_PHI of a half
 *    turn in FOLD_S (smooth start and stop), the hand pitching by half the
 *    arc's angle (the rest of the fold is the mat's bending); joint targets
 *    by IK on a twin (arm_track.h). The arm starts at rest at the IK pose.
 * Every step is recorded ("franka-matN-stepKKKK", N = the node count).
 * Closed loop (docs/scenes.md): the outcome is the norm of the mat's
 * internal elastic force vector (N), COND's "IE" index being its error
 * against a converged run; recorded, not judged.
 *
 * Fails with MCB_E_INPUT on bad options, MCB_E_NUMERIC when the IK cannot
 * reach the start pose, a step cannot be solved or an element inverts;
 * frees everything it allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/arm_track.h"
#include "problems/scene/fem.h"
#include "problems/scene/robot_models.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define MAT_X_M 0.30          /* mat extent along x (paper: not given) */
#define MAT_Y_M 0.30          /* along y */
#define MAT_T_M 0.01          /* thickness (one cell) */
#define MAT_CX_M 0.55         /* mat centre from the arm's base along x */
#define MAT_RHO 1100.0        /* silicone rubber, kg/m^3 */
#define MAT_DAMP_S 0.002      /* Rayleigh stiffness damping b (not stated) */
#define MAT_NODE_R_M 0.002    /* contact sphere radius of the surface nodes */
#define MAT_E_LO 0.1e6        /* Young's modulus range (Pa): soft silicone rubber */
#define MAT_E_HI 0.5e6
#define MAT_NU_LO 0.40        /* Poisson ratio range: nearly incompressible rubber */
#define MAT_NU_HI 0.48
#define MAT_MU_LO 0.4         /* friction range, mat / floor and mat / hand */
#define MAT_MU_HI 0.8
#define MAT_TOL 1e-6          /* natural-map residual of the advance */
#define MAT_MAX_ITERS 5000    /* per solver and step */
#define GRIP_M 0.10           /* pinch point beyond the flange (hand box: 8 cm) */
#define PINCH_HALF_M 0.04     /* pinched half width of the edge */
#define HOLD_S 0.05           /* still before the fold */
#define FOLD_S 1.5            /* duration of the fold */
#define FOLD_R_M 0.11         /* arc radius along x (less than half the mat: slack for the bend) */
#define FOLD_RZ_M 0.09        /* arc height */
#define FOLD_PHI 0.70         /* fraction of a half turn the edge travels */
#define PI_ 3.14159265358979323846

/* Options in table order (scenes.c). */
enum { OPT_CX, OPT_CY, OPT_STEPS, OPT_DT, OPT_SEED, OPT_COMPLIANCE };

/* The material drawn from the seed. */
typedef struct {
    double young_pa, poisson, mu;
} mat_material;

/* Uniform in the ranges above, in the order E, nu, mu. */
static mat_material draw_material(unsigned long long seed)
{
    static const double lo[3] = {MAT_E_LO, MAT_NU_LO, MAT_MU_LO};
    static const double hi[3] = {MAT_E_HI, MAT_NU_HI, MAT_MU_HI};
    double d[3];
    mcb_rng_draw_ranges(seed, 3, lo, hi, d);
    return (mat_material){d[0], d[1], d[2]};
}

/* ---- the pinch's path ------------------------------------------------ */

/* Height of the mat's mid-plane. */
static double mat_mid_z(void) { return MAT_NODE_R_M + 0.5 * MAT_T_M; }

/* The pinch target at time t: the edge's middle on the arc
 * x = c + R cos(phi), z = z0 + Rz sin(phi), phi from 0 to FOLD_PHI pi
 * (smoothstep in time), the hand pointing down turned about y by -phi / 2. */
static void target_at(const void *ctx, double t_s, mcb_ik_target *t)
{
    (void)ctx;
    double u = (t_s - HOLD_S) / FOLD_S;
    u = u <= 0 ? 0 : u >= 1 ? 1 : u * u * (3 - 2 * u);
    double phi = FOLD_PHI * PI_ * u;
    t->p[0] = MAT_CX_M + FOLD_R_M * cos(phi);
    t->p[1] = 0;
    t->p[2] = mat_mid_z() + FOLD_RZ_M * sin(phi);
    double c = cos(-0.5 * phi), s = sin(-0.5 * phi);
    /* Ry(th) R0 with R0 = hand z down, hand x along world x (rows) */
    const double R[9] = {c, 0, -s, 0, -1, 0, -s, 0, -c};
    memcpy(t->R, R, sizeof t->R);
}

/* Seeds of the first IK (Franka convention: ready pose and bent ones). */
static const double start_seeds[4][7] = {{0, 0.6, 0, -1.6, 0, 2.2, 0.785},
                                         {0, -0.785, 0, -2.356, 0, 1.571, 0.785},
                                         {0, 0.3, 0, -2.0, 0, 2.3, 0.785},
                                         {0, 0.8, 0, -1.2, 0, 2.0, -0.785}};

/* ---- the scene's pieces -------------------------------------------- */

static mcb_rc make_mat(const double *vals, const mat_material *m, mcb_fem **out, mcb_err *err)
{
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = MAT_X_M, o.size[1] = MAT_Y_M, o.size[2] = MAT_T_M;
    o.cells[0] = (int)vals[OPT_CX];
    o.cells[1] = (int)vals[OPT_CY];
    o.cells[2] = 1;
    o.pieces = 1;
    o.young_pa = m->young_pa, o.poisson = m->poisson, o.density = MAT_RHO;
    o.rayleigh_stiff = MAT_DAMP_S;
    o.lumped = 1;
    o.corotational = 1;
    o.pose = mcb_xform_identity();
    o.pose.p[0] = MAT_CX_M;
    o.pose.p[2] = mat_mid_z();
    return mcb_fem_box(&o, out, err);
}

/* Hard point joints between the hand (scene body `hand`, pose H) and the
 * far edge's nodes within PINCH_HALF_M of its middle; their count in *n. */
static mcb_rc add_pinch(mcb_world *w, const mcb_fem *f, int first_node, int hand,
                        const mcb_xform *H, int *n, mcb_err *err)
{
    int N = mcb_fem_nnodes(f);
    int *idx = mcb_calloc((size_t)N, sizeof(int));
    if (!idx) return mcb_fail(err, MCB_E_NOMEM, "franka-mat: out of memory");
    int m = mcb_fem_nodes_at(f, 0, 0.5 * MAT_X_M, 1e-9, idx, N);
    const double *X = mcb_fem_rest(f);
    mcb_rc rc = MCB_OK;
    *n = 0;
    for (int k = 0; k < m && !rc; k++) {
        const double *x = X + 3 * idx[k];
        if (fabs(x[1]) > PINCH_HALF_M + 1e-9) continue;
        mcb_wjoint j;
        memset(&j, 0, sizeof j);
        j.kind = MCB_WJ_POINT;
        j.body_a = hand;
        j.body_b = first_node + idx[k];
        double d[3];
        for (int i = 0; i < 3; i++) d[i] = x[i] - H->p[i];
        mcb_m3_tvec(H->R, d, j.pa); /* the node's rest position in the hand frame */
        rc = mcb_world_add_joint(w, &j, NULL, err);
        if (!rc) (*n)++;
    }
    free(idx);
    if (!rc && *n == 0) rc = mcb_fail(err, MCB_E_INPUT, "franka-mat: no node to pinch");
    return rc;
}

/* The outcome (docs/scenes.md, "Closed loop"): the norm of the mat's
 * internal elastic force vector (N), NaN when an element is inverted.
 * ctx: the force buffer (3 per node). */
static double internal_force(const void *ctx, mcb_world *w)
{
    double *fe = *(double *const *)ctx;
    return mcb_fem_elastic_force(mcb_world_fem(w, 0), fe);
}

mcb_rc mcb_scene_franka_mat(const double *vals, const struct mcb_world_loop *loop,
                            mcb_problem_set **out, mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "franka-mat: NULL argument");
    *out = NULL;
    int steps = (int)vals[OPT_STEPS];
    double h = vals[OPT_DT];
    if (steps < 1 || !(h > 0 && isfinite(h)) || vals[OPT_CX] < 1 || vals[OPT_CY] < 1)
        return mcb_fail(err, MCB_E_INPUT,
                        "franka-mat: --cells-x, --cells-y and --steps must be >= 1, --dt > 0");
    mat_material mat = draw_material((unsigned long long)vals[OPT_SEED]);

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = h;
    o.tol = MAT_TOL;
    o.max_iters = MAT_MAX_ITERS;
    o.solver = "subadmm"; /* pgs needs thousands of iterations on the resting mat */
    o.fallback = "pgs";
    o.contact_compliance = vals[OPT_COMPLIANCE];

    mcb_world *w = NULL;
    mcb_arm_track tr;
    memset(&tr, 0, sizeof tr);
    mcb_fem *mesh = NULL;
    mcb_problem_set *S = NULL;
    double *fe = NULL;
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc)
        rc = mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, mat.mu, NULL, err);
    mcb_xform base = mcb_xform_identity();
    if (!rc) rc = mcb_arm_track_new(&tr, mcb_robot_arm7, &base, err);
    if (rc) goto done;
    mcb_arm_track_tool(&tr, GRIP_M, target_at, NULL, &start_seeds[0][0], 4);
    int first = 0, first_node = 0, pinched = 0;
    rc = mcb_arm_track_start(&tr, w, "franka-mat: the arm cannot reach the start pinch pose", &first,
                             err);
    if (!rc) rc = make_mat(vals, &mat, &mesh, err);
    if (rc) goto done;
    int nodes = mcb_fem_nnodes(mesh);
    fe = mcb_calloc(3 * (size_t)nodes, sizeof *fe);
    if (!fe) {
        rc = mcb_fail(err, MCB_E_NOMEM, "franka-mat: out of memory");
        goto done;
    }
    mcb_fem *mm = mesh;
    mesh = NULL;
    rc = mcb_world_add_fem(w, mm, MAT_NODE_R_M, mat.mu, &first_node, err); /* owned by w */
    int ee = mcb_robot_nlinks(tr.arm) - 1;
    if (!rc) rc = add_pinch(w, mm, first_node, first + ee, mcb_robot_link_pose(tr.arm, ee), &pinched, err);
    if (rc) goto done;
    /* recorded, not judged: the force's size depends on the drawn E */
    mcb_world_set_outcome(w, &(mcb_world_outcome){"internal_force", "N", internal_force, &fe, NAN,
                                                  NAN, 0});

    char src[512], prefix[64], notes[256];
    mcb_scene_args_named("franka-mat", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "franka-mat%d", nodes);
    snprintf(notes, sizeof notes,
             "COND paper Sec. V-C3: a Franka Panda folding a co-rotational FEM mat; E %.6g Pa, "
             "nu %.6g, mu %.6g (seed %.0f)",
             mat.young_pa, mat.poisson, mat.mu, vals[OPT_SEED]);
    rc = mcb_world_describe(w, prefix, "franka-mat", src, notes, err);
    if (!rc) rc = mcb_arm_track_record(&tr, w, h, steps, &S, err);

done:
    mcb_fem_free(&mesh);
    mcb_arm_track_free(&tr);
    mcb_world_free(&w);
    free(fe);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

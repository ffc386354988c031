/* scene_soft_gripper.c: COND's soft gripper (COND paper Sec. V-C6, Table
 * VI, Fig. 10): two soft fingers of Ecoflex 00-50 silicone on a linear
 * actuator grip a rigid PLA object. The paper models the fingers by
 * co-rotational FEM (4889 nodes, 18122 tetrahedra, DOF 14681, 108744
 * constraints, about 40 contacts) with Ecoflex 00-50's parameters from its
 * [67] and a friction coefficient from a stick-slip test, randomised for
 * its tables; the rigid object is a dynamic body. The numbers and the
 * geometry were lost from our copy: ours are below and in docs/scenes.md
 * ("soft-gripper").
 *
 * What we build:
 *  - two fingers, boxes of FINGER_T_M (along the closing axis y) x
 *    FINGER_W_M (x) x FINGER_H_M (z), each mcb_fem_box with --cells
 *    c x 2c x 6c cubes (c = 3: 2 x 532 nodes, 2 x 1944 tets; c = 5:
 *    2 x 2046 nodes, 2 x 9000 tets, near the paper's size), co-rotational,
 *    Ecoflex 00-50: E 83 kPa (Smooth-On's bulletin: 100 % modulus 12 psi),
 *    nu 0.49, density 1070 kg/m^3; their surface nodes are contact spheres
 *    of radius NODE_R_M;
 *  - the actuator: two kinematic jaws (scripted rigid bodies, no DOFs),
 *    every node of a finger's top face joined to its jaw by a hard point
 *    joint; the jaws close towards each other by the gap plus SQUEEZE_M at
 *    constant speed over CLOSE_S, then hold;
 *  - the object: a PLA box (1240 kg/m^3, OBJ_HALF_M half extents, 22 g)
 *    resting on the floor between the fingers, a dynamic rigid body;
 *  - randomised by --seed: E x U[0.8, 1.2], nu U[0.45, 0.49], friction
 *    U[0.5, 1.0].
 * Every step is recorded ("soft-gripperN-stepKKKK", N the node count).
 * Closed loop: the outcome is COND's DE, the displacement of a marker on
 * the left finger (the node nearest the middle of its inner face's bottom
 * edge) from where the jaw carries its rest position (mm), with no
 * failure bound. (COND's FE, the contact force on the object, needs the
 * contact impulses, which the world does not expose to an outcome.)
 *
 * Fails with MCB_E_INPUT on bad options, and with the step's error when a
 * step cannot be solved; frees everything it allocated on failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_rng.h"
#include "problems/scene/fem.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"

#define ECOFLEX_E_PA 83e3      /* Smooth-On Ecoflex 00-50: 100 % modulus 12 psi */
#define ECOFLEX_RHO 1070.0     /* specific gravity 1.07 (Smooth-On) */
#define FINGER_T_M 0.01        /* finger thickness (closing axis y) */
#define FINGER_W_M 0.02        /* width (x) */
#define FINGER_H_M 0.06        /* height (z) */
#define FINGER_LIFT_M 0.002    /* finger bottoms above the floor */
#define FINGER_DAMP_S 0.01     /* Rayleigh stiffness damping b (our choice) */
#define NODE_R_M 0.0005        /* contact sphere radius of the surface nodes */
#define PLA_RHO 1240.0
#define OBJ_HX_M 0.01          /* the object's half extents */
#define OBJ_HY_M 0.015
#define OBJ_HZ_M 0.015
#define GAP_M 0.003            /* open: finger inner face to the object */
#define SQUEEZE_M 0.003        /* jaw travel past first touch */
#define CLOSE_S 0.3            /* closing time */
#define SG_TOL 1e-8            /* natural-map residual of the reference */
#define SG_MAX_ITERS 20000

/* Options in table order (scenes.c). */
enum { OPT_CELLS, OPT_STEPS, OPT_SEED, OPT_DT };

typedef struct {
    mcb_fem *finger;   /* the left finger (the world's) */
    int marker;        /* its marker node */
    int jaw;           /* the left jaw's body index */
    double jaw0[3];    /* its start */
} marker_ctx;

/* The outcome: |x_marker - (X_marker + jaw displacement)| (mm). */
static double marker_displacement(const void *ctx, mcb_world *w)
{
    const marker_ctx *c = ctx;
    const double *x = mcb_fem_x(c->finger) + 3 * c->marker, *X = mcb_fem_rest(c->finger) + 3 * c->marker;
    const double *j = mcb_world_body(w, c->jaw)->pos;
    double s = 0;
    for (int i = 0; i < 3; i++) {
        double d = x[i] - X[i] - (j[i] - c->jaw0[i]);
        s += d * d;
    }
    return 1e3 * sqrt(s);
}

/* A finger: side -1 (y < 0) or +1, its inner face GAP_M + NODE_R_M from
 * the object. */
static mcb_rc make_finger(int side, int cells, double E, double nu, mcb_fem **out, mcb_err *err)
{
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = FINGER_W_M, o.size[1] = FINGER_T_M, o.size[2] = FINGER_H_M;
    o.cells[0] = 2 * cells, o.cells[1] = cells, o.cells[2] = 6 * cells;
    o.young_pa = E, o.poisson = nu, o.density = ECOFLEX_RHO;
    o.rayleigh_stiff = FINGER_DAMP_S;
    o.corotational = 1;
    o.pose.p[1] = side * (OBJ_HY_M + GAP_M + NODE_R_M + 0.5 * FINGER_T_M);
    o.pose.p[2] = FINGER_LIFT_M + 0.5 * FINGER_H_M;
    return mcb_fem_box(&o, out, err);
}

/* Hard point joints between the jaw and every node of the finger's top
 * face (the jaw's frame: world axes at its centre). */
static mcb_rc attach(mcb_world *w, const mcb_fem *f, int first_node, int jaw, mcb_err *err)
{
    int n = mcb_fem_nnodes(f);
    int *idx = mcb_calloc((size_t)n, sizeof(int));
    if (!idx) return mcb_fail(err, MCB_E_NOMEM, "soft-gripper: out of memory");
    int m = mcb_fem_nodes_at(f, 2, 0.5 * FINGER_H_M, 1e-9, idx, n);
    const double *X = mcb_fem_rest(f), *J = mcb_world_body(w, jaw)->pos;
    mcb_rc rc = MCB_OK;
    for (int k = 0; k < m && !rc; k++) {
        mcb_wjoint j;
        memset(&j, 0, sizeof j);
        j.kind = MCB_WJ_POINT;
        j.body_a = jaw;
        j.body_b = first_node + idx[k];
        for (int i = 0; i < 3; i++) j.pa[i] = X[3 * idx[k] + i] - J[i];
        rc = mcb_world_add_joint(w, &j, NULL, err);
    }
    free(idx);
    return rc;
}

/* The left finger's marker: the node nearest the middle of its inner
 * face's bottom edge. */
static int find_marker(const mcb_fem *f)
{
    const double *X = mcb_fem_rest(f);
    double inner = -(OBJ_HY_M + GAP_M + NODE_R_M), best = INFINITY;
    int m = 0;
    for (int k = 0; k < mcb_fem_nnodes(f); k++) {
        double d[3] = {X[3 * k], X[3 * k + 1] - inner, X[3 * k + 2] - FINGER_LIFT_M};
        double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (dd < best) best = dd, m = k;
    }
    return m;
}

mcb_rc mcb_scene_soft_gripper(const double *vals, const struct mcb_world_loop *loop,
                              mcb_problem_set **out, mcb_err *err)
{
    if (!vals || !out) return mcb_fail(err, MCB_E_INPUT, "soft-gripper: NULL argument");
    *out = NULL;
    int cells = (int)vals[OPT_CELLS], steps = (int)vals[OPT_STEPS];
    double h = vals[OPT_DT];
    if (cells < 1 || steps < 1 || !(h > 0))
        return mcb_fail(err, MCB_E_INPUT, "soft-gripper: --cells >= 1, --steps >= 1, --dt > 0");
    mcb_rng rng;
    mcb_rng_seed(&rng, (unsigned long long)vals[OPT_SEED]);
    double E = ECOFLEX_E_PA * (0.8 + 0.4 * mcb_rng_uniform(&rng));
    double nu = 0.45 + 0.04 * mcb_rng_uniform(&rng);
    double mu = 0.5 + 0.5 * mcb_rng_uniform(&rng);

    mcb_world_opts o;
    mcb_world_defaults(&o);
    o.loop = loop;
    o.h_s = h;
    o.tol = SG_TOL;
    o.max_iters = SG_MAX_ITERS;
    mcb_world *w = NULL;
    mcb_fem *fing[2] = {NULL, NULL};
    mcb_problem_set *S = NULL;
    marker_ctx mc;
    memset(&mc, 0, sizeof mc);
    int jaw[2] = {-1, -1}, first[2] = {0, 0};
    mcb_rc rc = mcb_world_new(&o, &w, err);
    if (!rc) rc = mcb_world_add_primitive(w, NULL, MCB_SHAPE_PLANE, (double[3]){0}, mu, NULL, err);
    for (int s = 0; s < 2 && !rc; s++) { /* the jaws: s = 0 left (y < 0), 1 right */
        mcb_rigid j;
        memset(&j, 0, sizeof j);
        j.mass_kg = 1;
        j.inertia[0] = j.inertia[4] = j.inertia[8] = 1e-3;
        j.quat[0] = 1;
        j.kinematic = 1;
        j.pos[1] = (2 * s - 1) * (OBJ_HY_M + GAP_M + NODE_R_M + 0.5 * FINGER_T_M);
        j.pos[2] = FINGER_LIFT_M + FINGER_H_M;
        rc = mcb_world_add_body(w, &j, &jaw[s], err);
    }
    if (!rc) {
        mcb_rigid b;
        memset(&b, 0, sizeof b);
        double m = PLA_RHO * 8 * OBJ_HX_M * OBJ_HY_M * OBJ_HZ_M;
        b.mass_kg = m;
        b.inertia[0] = m * (OBJ_HY_M * OBJ_HY_M + OBJ_HZ_M * OBJ_HZ_M) / 3;
        b.inertia[4] = m * (OBJ_HX_M * OBJ_HX_M + OBJ_HZ_M * OBJ_HZ_M) / 3;
        b.inertia[8] = m * (OBJ_HX_M * OBJ_HX_M + OBJ_HY_M * OBJ_HY_M) / 3;
        b.quat[0] = 1;
        b.pos[2] = OBJ_HZ_M;
        const double half[3] = {OBJ_HX_M, OBJ_HY_M, OBJ_HZ_M};
        rc = mcb_world_add_primitive(w, &b, MCB_SHAPE_BOX, half, mu, NULL, err);
    }
    for (int s = 0; s < 2 && !rc; s++) rc = make_finger(2 * s - 1, cells, E, nu, &fing[s], err);
    if (rc) goto done;
    mcb_fem *left = fing[0];
    int nodes = mcb_fem_nnodes(fing[0]) + mcb_fem_nnodes(fing[1]);
    for (int s = 0; s < 2 && !rc; s++) {
        mcb_fem *f = fing[s];
        fing[s] = NULL;
        rc = mcb_world_add_fem(w, f, NODE_R_M, mu, &first[s], err); /* owned by w */
    }
    for (int s = 0; s < 2 && !rc; s++) rc = attach(w, mcb_world_fem(w, s), first[s], jaw[s], err);
    if (rc) goto done;
    mc.finger = left;
    mc.marker = find_marker(left);
    mc.jaw = jaw[0];
    memcpy(mc.jaw0, mcb_world_body(w, jaw[0])->pos, sizeof mc.jaw0);
    mcb_world_set_outcome(w, &(mcb_world_outcome){"marker_displacement", "mm", marker_displacement,
                                                  &mc, NAN, NAN, 0});
    char src[512], prefix[64], notes[256];
    mcb_scene_args_named("soft-gripper", vals, src, sizeof src);
    snprintf(prefix, sizeof prefix, "soft-gripper%d", nodes);
    snprintf(notes, sizeof notes,
             "COND Sec. V-C6 (Table VI): two Ecoflex 00-50 FEM fingers (%d nodes, E %.4g Pa, "
             "nu %.3g) on a linear actuator grip a PLA box (mu %.3g)",
             nodes, E, nu, mu);
    rc = mcb_world_describe(w, prefix, "soft-gripper", src, notes, err);
    if (rc) goto done;
    S = mcb_calloc(1, sizeof *S);
    if (!S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "soft-gripper: out of memory");
        goto done;
    }
    double speed = (GAP_M + SQUEEZE_M) / CLOSE_S;
    for (int k = 0; k < steps && !rc; k++) {
        int closing = (k + 1) * h <= CLOSE_S + 1e-12;
        for (int s = 0; s < 2; s++) /* the left jaw moves +y, the right -y */
            mcb_world_body(w, jaw[s])->vel[1] = closing ? (1 - 2 * s) * speed : 0.0;
        mcb_step_info info;
        rc = mcb_world_step_into(w, S, &info, err);
    }

done:
    for (int s = 0; s < 2; s++) mcb_fem_free(&fing[s]);
    mcb_world_free(&w);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

/* world_internal.h: the scene engine's private header, shared by world.c
 * (the world container: creation, registration, accessors), assembly.c
 * (stages 1-4 of a step: layout and poses, contacts, dynamics, constraints)
 * and step.c (stages 5-7: warm start and solve, record, advance; and the
 * step itself). Not installed, not for scenes: they use world.h. */
#ifndef MCB_SCENE_WORLD_INTERNAL_H
#define MCB_SCENE_WORLD_INTERNAL_H

#include <stddef.h>

#include "problems/scene/fem.h"
#include "problems/scene/joint.h"
#include "problems/scene/world.h"

/* Collision group of robot r's shapes left in group 0: above any group a
 * scene would number by hand. */
#define ROBOT_GROUP_BASE (1 << 24)
/* Collision groups of the meshes' node spheres: above the robots'. */
#define FEM_GROUP_BASE (1 << 25)

/* A world shape: attached to a rigid body (body >= 0), static (-1), or, with
 * link >= 0, to the robot link of that global ordinal (so that link scene
 * indices follow later additions of rigid bodies). */
typedef struct {
    mcb_shape s;
    int link;
} wshape;

/* A contact key and its index, for sorting the previous step's contacts. */
typedef struct {
    unsigned long long key;
    int idx;
} keyed;

struct mcb_world {
    mcb_world_opts o;
    char *solver, *fallback; /* owned copies of o.solver, o.fallback */
    char *prefix, *scene, *source, *notes;
    int step;

    mcb_rigid *rigid;
    int nrigid, cap_rigid;
    mcb_robot **robots;
    int *robot_link0; /* global ordinal of each robot's link 0 */
    int nrobots, cap_robots, nlinks;
    wshape *shapes;
    int nshapes, cap_shapes;
    mcb_fem **fems;       /* meshes (fem.h), owned */
    int nfems, cap_fems, nnodes; /* ... and their nodes in all */
    int *fem_node0;       /* global ordinal of each mesh's node 0 */
    int *fem_dof, *fem_sub; /* first DOF and first subsystem of each mesh */
    int cap_fem_buf;
    unsigned char *merge; /* per rigid body: 1 = in the subsystem of the body before it */
    int cap_merge;
    mcb_wjoint *joints;
    int njoints, cap_joints, user_joints;
    int *joint_row;       /* first row of each joint among the joints' rows */
    int cap_joint_row, jrows;
    double *joint_lambda; /* the last step's impulses of the joints' rows */
    int cap_jl;
    mcb_wjoint_row *jr;   /* scratch: one joint's rows */

    /* per-body buffers (nbodies) */
    mcb_xform *pose;
    int cap_pose;
    int *body_dof;   /* first DOF of the body's subsystem-level twist source (-1: none) */
    int *body_robot; /* robot index of a link, -1 for a rigid body */
    int *body_link;  /* link index within its robot */
    int *body_sub;   /* subsystem, -1 for a kinematic body */
    int cap_bodies;
    int *robot_dof;  /* first DOF of each robot */
    int *robot_sub;
    int cap_rob_buf;
    int *sub_start;  /* first DOF of each subsystem, nsub + 1 entries */
    int cap_sub;

    /* per-shape buffers */
    mcb_shape *sh;
    mcb_xform *X;
    int cap_sh;

    /* contacts */
    mcb_contact *con;
    int ncon, cap_con;
    mcb_sample_cache *samples; /* the sdf shapes' samples, kept across steps */

    /* triplets and dense blocks */
    int *ti, *tj;
    double *tx;
    int cap_tri;
    double *dense; /* H, bias, a link Jacobian */
    int cap_dense;

    /* the previous step's solution: v^ and lambda by contact key */
    double *vhat_prev;
    int n_prev, cap_vprev;
    unsigned long long *prev_key;
    double *prev_lambda; /* 3 per contact, in key order */
    int nprev, cap_prev, cap_prevl;
    keyed *order;        /* scratch for sorting keys */
    int cap_order;

    mcb_world_outcome outcome; /* the scene's (name NULL: none) */
    struct mcb_xpbd_ws *xpbd;  /* xpbd.c's workspace (NULL until a step needs it) */
};

/* ---------- world.c ---------- */

/* Grows *p (of *cap elements of `size` bytes) to hold `need`; 0 when out of
 * memory (*p unchanged). */
int mcb_world_grow(void **p, int *cap, int need, size_t size);
/* *dst = a copy of src ("" for NULL), the old string freed. */
mcb_rc mcb_world_set_str(char **dst, const char *src, mcb_err *err);

/* ---------- assembly.c: stages 1-4 ---------- */

/* Appends the triplet (i, j, x) at *t to the world's triplet buffers; 0
 * when out of memory. */
static inline int mcb_world_push(mcb_world *w, int *t, int i, int j, double x)
{
    if (*t >= w->cap_tri) {
        int c1 = w->cap_tri, c2 = w->cap_tri;
        if (!mcb_world_grow((void **)&w->ti, &c1, *t + 1, sizeof(int)) ||
            !mcb_world_grow((void **)&w->tj, &c2, *t + 1, sizeof(int)) ||
            !mcb_world_grow((void **)&w->tx, &w->cap_tri, *t + 1, sizeof(double)))
            return 0;
    }
    w->ti[*t] = i;
    w->tj[*t] = j;
    w->tx[*t] = x;
    (*t)++;
    return 1;
}


/* 1: sizes the per-body buffers, the DOF offsets and the subsystems; fills
 * every body pose. Returns n (DOFs) in *n and the subsystem count in *nsub. */
mcb_rc mcb_world_layout(mcb_world *w, int *n, int *nsub, mcb_err *err);
/* 2: the contacts at the current poses, clustered with the world's caps. */
mcb_rc mcb_world_detect(mcb_world *w, mcb_err *err);
/* 3: A and b of P (P->n set). */
mcb_rc mcb_world_assemble_dynamics(mcb_world *w, mcb_problem *P, mcb_err *err);
/* 4: Jc, Jb, J, e, the blocks and the kinematic tree of P. */
mcb_rc mcb_world_assemble_constraints(mcb_world *w, mcb_problem *P, mcb_err *err);

/* ---------- step.c ---------- */

/* Stage 7 for the robots: q advanced with their v^, v from v^ and theta. */
void mcb_world_advance_robots(mcb_world *w, const double *vhat);

/* ---------- xpbd.c (xpbd.h) ---------- */

struct mcb_xpbd_opts;
void mcb_xpbd_ws_free(struct mcb_xpbd_ws **ws); /* accepts NULL */
/* The step by XPBD at the poses of stage 1 and the contacts of stage 2:
 * the robots advanced with vhat (their v^ from A v^ = b, stage 3 without
 * constraint rows), the free bodies by the substeps; the joints' impulses
 * over the step into joint_lambda; the largest depth max(0, -d) over the
 * step's contacts after the step into *depth_m, the substeps' wall time
 * into *substeps_s. Fails (nothing moved) on what it cannot handle. */
mcb_rc mcb_world_xpbd_advance(mcb_world *w, const struct mcb_xpbd_opts *o, const double *vhat,
                              double *depth_m, double *substeps_s, mcb_err *err);

#endif

/* step.c: the scene engine's world and its time stepping (CANAL paper
 * eq. (2), Sec. II; the scheme in full in docs/stepping.md).
 *
 * Per step, at the current state (q_k, v_k):
 *   1. poses: robots' forward kinematics, every body frame in world;
 *   2. contacts: mcb_contacts_detect over every shape, then
 *      mcb_contacts_cluster with the world's caps;
 *   3. dynamics: with v^ = theta v_k + (1 - theta) v_{k+1},
 *        A = M / (1 - theta) + diag(h kd + h^2 kp)   (joint PD, implicit)
 *        b = M v_k / (1 - theta) + h f
 *      f = [m g + f_ext; tau_ext - w x I w] for a rigid body,
 *      f = -c(q, v) - kp (q - q_ref) + kd v_ref for a robot (c by RNEA);
 *   4. constraints: rows [n, t1, t2] per contact, J = Jc Jb (eq. (30)-(31)),
 *      e_n = erp gap / h plus the velocity of kinematic bodies;
 *   5. solve: the registered solver warm-started from the previous step's
 *      (v^, lambda) (lambda matched by contact key) to a natural-map
 *      residual tol, the fallback solver if it does not get there, an error
 *      (and no state change) when neither reaches 100 tol;
 *   6. record (optional): the problem with its descriptors;
 *   7. advance: q_{k+1} = update(q_k, h v^), v_{k+1} = (v^ - theta v_k) /
 *      (1 - theta).
 * Buffers live in the world and grow as needed; a step allocates only the
 * problem it solves (and records). Fails cleanly: on error nothing moves. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "body.h"
#include "describe.h"
#include "fem.h"
#include "joint.h"
#include "mcb_chol.h"
#include "mcb_timer.h"
#include "metrics.h"
#include "solver.h"
#include "world.h"

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
};

/* ---------- small helpers ---------- */

static int grow(void **p, int *cap, int need, size_t size)
{
    if (need <= *cap) return 1;
    int c = *cap > 0 ? *cap : 16;
    while (c < need) c = c > (1 << 29) ? need : 2 * c;
    void *q = realloc(*p, (size_t)c * size);
    if (!q) return 0;
    *p = q;
    *cap = c;
    return 1;
}

static mcb_rc set_str(char **dst, const char *src, mcb_err *err)
{
    char *s = mcb_strdup(src ? src : "");
    if (!s) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    free(*dst);
    *dst = s;
    return MCB_OK;
}

void mcb_world_defaults(mcb_world_opts *o)
{
    memset(o, 0, sizeof *o);
    o->h_s = 0.01;
    o->theta = 0.0;
    o->gravity[2] = -9.81;
    o->margin_m = 1e-3;
    o->cap_per_pair = 0;
    o->cap_total = 0;
    o->erp = 1.0;
    o->solver = "pgs";
    o->fallback = "subadmm";
    o->tol = 1e-10;
    o->max_iters = 20000;
}

/* ---------- creation ---------- */

static mcb_rc check_opts(const mcb_world_opts *o, mcb_err *err)
{
    if (!o) return mcb_fail(err, MCB_E_INPUT, "world: NULL options");
    if (!(o->h_s > 0) || !isfinite(o->h_s))
        return mcb_fail(err, MCB_E_INPUT, "world: h = %g s must be > 0", o->h_s);
    if (!(o->theta >= 0 && o->theta < 1))
        return mcb_fail(err, MCB_E_INPUT, "world: theta = %g must lie in [0, 1)", o->theta);
    for (int k = 0; k < 3; k++)
        if (!isfinite(o->gravity[k])) return mcb_fail(err, MCB_E_INPUT, "world: gravity not finite");
    if (!(o->margin_m >= 0) || !isfinite(o->margin_m))
        return mcb_fail(err, MCB_E_INPUT, "world: margin = %g m must be >= 0", o->margin_m);
    if (o->cap_per_pair < 0 || o->cap_total < 0)
        return mcb_fail(err, MCB_E_INPUT, "world: clustering caps must be >= 0");
    if (!(o->erp >= 0 && o->erp <= 1))
        return mcb_fail(err, MCB_E_INPUT, "world: erp = %g must lie in [0, 1]", o->erp);
    if (!(o->tol > 0) || !isfinite(o->tol))
        return mcb_fail(err, MCB_E_INPUT, "world: tol = %g must be > 0", o->tol);
    if (o->max_iters < 1) return mcb_fail(err, MCB_E_INPUT, "world: max_iters must be >= 1");
    if (!o->solver || !mcb_solver_find(o->solver))
        return mcb_fail(err, MCB_E_INPUT, "world: solver '%s' is not registered",
                        o->solver ? o->solver : "(null)");
    if (o->fallback && o->fallback[0] && !mcb_solver_find(o->fallback))
        return mcb_fail(err, MCB_E_INPUT, "world: fallback solver '%s' is not registered",
                        o->fallback);
    return MCB_OK;
}

mcb_rc mcb_world_new(const mcb_world_opts *o, mcb_world **out, mcb_err *err)
{
    if (!out) return mcb_fail(err, MCB_E_INPUT, "world: NULL output");
    *out = NULL;
    mcb_rc rc = check_opts(o, err);
    if (rc) return rc;
    mcb_world *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->o = *o;
    if ((rc = set_str(&w->solver, o->solver, err)) ||
        (rc = set_str(&w->fallback, o->fallback, err)) ||
        (rc = set_str(&w->prefix, "world", err)) || (rc = set_str(&w->scene, "", err)) ||
        (rc = set_str(&w->source, "", err)) || (rc = set_str(&w->notes, "", err))) {
        mcb_world_free(&w);
        return rc;
    }
    w->o.solver = w->solver;
    w->o.fallback = w->fallback;
    *out = w;
    return MCB_OK;
}

void mcb_world_free(mcb_world **pw)
{
    if (!pw || !*pw) return;
    mcb_world *w = *pw;
    for (int r = 0; r < w->nrobots; r++) mcb_robot_free(&w->robots[r]);
    free(w->robots);
    free(w->robot_link0);
    free(w->rigid);
    free(w->shapes);
    for (int k = 0; k < w->nfems; k++) mcb_fem_free(&w->fems[k]);
    free(w->fems);
    free(w->fem_node0);
    free(w->fem_dof);
    free(w->fem_sub);
    free(w->merge);
    free(w->joints);
    free(w->joint_row);
    free(w->joint_lambda);
    free(w->jr);
    free(w->sub_start);
    free(w->solver);
    free(w->fallback);
    free(w->prefix);
    free(w->scene);
    free(w->source);
    free(w->notes);
    free(w->pose);
    free(w->body_dof);
    free(w->body_robot);
    free(w->body_link);
    free(w->body_sub);
    free(w->robot_dof);
    free(w->robot_sub);
    free(w->sh);
    free(w->X);
    free(w->con);
    free(w->ti);
    free(w->tj);
    free(w->tx);
    free(w->dense);
    free(w->vhat_prev);
    free(w->prev_key);
    free(w->prev_lambda);
    free(w->order);
    free(w);
    *pw = NULL;
}

/* Scene indices stay put: no body, robot or mesh after a joint (a mesh's
 * own ties excepted), no body or robot after a mesh. */
static mcb_rc order_check(const mcb_world *w, const char *what, mcb_err *err)
{
    if (w->user_joints)
        return mcb_fail(err, MCB_E_INPUT, "world: %s added after a joint (add joints last)", what);
    if (w->nfems)
        return mcb_fail(err, MCB_E_INPUT, "world: %s added after a mesh (add meshes after "
                                          "every rigid body and robot)", what);
    return MCB_OK;
}

mcb_rc mcb_world_add_body(mcb_world *w, const mcb_rigid *b, int *index, mcb_err *err)
{
    if (!w) return mcb_fail(err, MCB_E_INPUT, "world: NULL");
    mcb_rc rc = mcb_rigid_check(b, err);
    if (rc) return rc;
    if ((rc = order_check(w, "a rigid body", err))) return rc;
    int cm = w->cap_merge;
    if (!grow((void **)&w->merge, &cm, w->nrigid + 1, 1)) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->cap_merge = cm;
    w->merge[w->nrigid] = 0;
    if (!grow((void **)&w->rigid, &w->cap_rigid, w->nrigid + 1, sizeof *w->rigid) ||
        !grow((void **)&w->pose, &w->cap_pose, w->nrigid + w->nlinks + 1, sizeof *w->pose))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->rigid[w->nrigid] = *b;
    mcb_rigid_normalise(&w->rigid[w->nrigid]);
    if (index) *index = w->nrigid;
    w->nrigid++;
    return MCB_OK;
}

mcb_rc mcb_world_add_robot(mcb_world *w, mcb_robot *r, int *first, mcb_err *err)
{
    if (!w) {
        mcb_robot_free(&r);
        return mcb_fail(err, MCB_E_INPUT, "world: NULL");
    }
    if (!r) return mcb_fail(err, MCB_E_INPUT, "world: NULL robot");
    mcb_rc orc = order_check(w, "a robot", err);
    if (orc) {
        mcb_robot_free(&r);
        return orc;
    }
    int cap = w->cap_robots;
    if (!grow((void **)&w->robots, &cap, w->nrobots + 1, sizeof *w->robots) ||
        !grow((void **)&w->robot_link0, &w->cap_robots, w->nrobots + 1, sizeof *w->robot_link0)) {
        w->cap_robots = w->cap_robots < cap ? w->cap_robots : cap;
        mcb_robot_free(&r);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    w->robots[w->nrobots] = r;
    w->robot_link0[w->nrobots] = w->nlinks;
    if (first) *first = w->nrigid + w->nlinks;
    w->nrobots++;
    w->nlinks += mcb_robot_nlinks(r);
    mcb_robot_update(r);
    return MCB_OK;
}

mcb_rc mcb_world_add_shape(mcb_world *w, const mcb_shape *s, mcb_err *err)
{
    if (!w || !s) return mcb_fail(err, MCB_E_INPUT, "world: NULL shape");
    if (s->body < -1 || s->body >= w->nrigid + w->nlinks)
        return mcb_fail(err, MCB_E_INPUT, "world: shape body %d out of range (%d bodies)",
                        s->body, w->nrigid + w->nlinks);
    if (s->type == MCB_SHAPE_PLANE && s->body != -1)
        return mcb_fail(err, MCB_E_INPUT, "world: a plane must be static (body -1)");
    if (!grow((void **)&w->shapes, &w->cap_shapes, w->nshapes + 1, sizeof *w->shapes))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    wshape *ws = &w->shapes[w->nshapes++];
    ws->s = *s;
    ws->link = s->body >= w->nrigid ? s->body - w->nrigid : -1;
    return MCB_OK;
}

mcb_rc mcb_world_add_primitive(mcb_world *w, const mcb_rigid *b, int type, const double size[3],
                               double mu, int *index, mcb_err *err)
{
    int idx = -1;
    mcb_rc rc = b ? mcb_world_add_body(w, b, &idx, err) : MCB_OK;
    if (rc) return rc;
    if (index) *index = idx;
    mcb_shape s;
    memset(&s, 0, sizeof s);
    s.type = type;
    s.body = idx;
    s.local = mcb_xform_identity();
    memcpy(s.size, size, sizeof s.size);
    s.mu = mu;
    return mcb_world_add_shape(w, &s, err);
}

mcb_rc mcb_world_merge_subsystem(mcb_world *w, int first, int count, mcb_err *err)
{
    if (!w) return mcb_fail(err, MCB_E_INPUT, "world: NULL");
    if (first < 0 || count < 1 || first + count > w->nrigid)
        return mcb_fail(err, MCB_E_INPUT,
                        "world: merge of rigid bodies %d..%d outside the %d rigid bodies", first,
                        first + count - 1, w->nrigid);
    for (int k = first; k < first + count; k++)
        if (w->rigid[k].kinematic)
            return mcb_fail(err, MCB_E_INPUT, "world: merge: rigid body %d is kinematic", k);
    for (int k = first + 1; k < first + count; k++) w->merge[k] = 1;
    return MCB_OK;
}

/* Appends a joint without the order rule (a mesh's ties). */
static mcb_rc append_joint(mcb_world *w, const mcb_wjoint *j, int *index, mcb_err *err)
{
    mcb_rc rc = mcb_wjoint_check(j, w->nrigid + w->nlinks + w->nnodes, err);
    if (rc) return rc;
    int c1 = w->cap_joints;
    if (!grow((void **)&w->joints, &c1, w->njoints + 1, sizeof *w->joints) ||
        !grow((void **)&w->joint_row, &w->cap_joint_row, w->njoints + 1, sizeof(int)) ||
        !grow((void **)&w->joint_lambda, &w->cap_jl, w->jrows + 3, sizeof(double)))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->cap_joints = c1;
    if (!w->jr && !(w->jr = malloc(3 * sizeof *w->jr)))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->joints[w->njoints] = *j;
    w->joint_row[w->njoints] = w->jrows;
    int nr = mcb_wjoint_nrows(j);
    memset(w->joint_lambda + w->jrows, 0, (size_t)nr * sizeof(double));
    w->jrows += nr;
    if (index) *index = w->njoints;
    w->njoints++;
    return MCB_OK;
}

mcb_rc mcb_world_add_joint(mcb_world *w, const mcb_wjoint *j, int *index, mcb_err *err)
{
    if (!w) return mcb_fail(err, MCB_E_INPUT, "world: NULL");
    mcb_rc rc = append_joint(w, j, index, err);
    if (!rc) w->user_joints++;
    return rc;
}

int mcb_world_njoints(const mcb_world *w) { return w ? w->njoints : 0; }

/* Collision groups of the meshes' node spheres: above the robots'. */
#define FEM_GROUP_BASE (1 << 25)

mcb_rc mcb_world_add_fem(mcb_world *w, mcb_fem *f, double node_radius_m, double mu,
                         int *first_node, mcb_err *err)
{
    if (!w) {
        mcb_fem_free(&f);
        return mcb_fail(err, MCB_E_INPUT, "world: NULL");
    }
    if (!f) return mcb_fail(err, MCB_E_INPUT, "world: NULL mesh");
    mcb_rc rc = MCB_OK;
    if (w->user_joints)
        rc = mcb_fail(err, MCB_E_INPUT, "world: a mesh added after a joint (add joints last)");
    else if (!(node_radius_m > 0) || !isfinite(node_radius_m) || !(mu >= 0) || !isfinite(mu))
        rc = mcb_fail(err, MCB_E_INPUT, "world: mesh node radius %g m and mu %g must be > 0 "
                                        "and >= 0", node_radius_m, mu);
    int nn = mcb_fem_nnodes(f), nsurf = 0, nties = 0;
    const int *surf = mcb_fem_surface(f, &nsurf), *ties = mcb_fem_ties(f, &nties);
    int nb = w->nrigid + w->nlinks + w->nnodes + nn;
    /* every buffer first, so that the additions below cannot fail half-way */
    int c1 = w->cap_fem_buf, c2 = w->cap_fem_buf, c3 = w->cap_fem_buf, cj = w->cap_joints;
    if (!rc && (!grow((void **)&w->fems, &w->cap_fems, w->nfems + 1, sizeof *w->fems) ||
                !grow((void **)&w->fem_node0, &c1, w->nfems + 1, sizeof(int)) ||
                !grow((void **)&w->fem_dof, &c2, w->nfems + 1, sizeof(int)) ||
                !grow((void **)&w->fem_sub, &c3, w->nfems + 1, sizeof(int)) ||
                !grow((void **)&w->pose, &w->cap_pose, nb, sizeof *w->pose) ||
                !grow((void **)&w->shapes, &w->cap_shapes, w->nshapes + nsurf, sizeof *w->shapes) ||
                !grow((void **)&w->joints, &cj, w->njoints + nties, sizeof *w->joints) ||
                !grow((void **)&w->joint_row, &w->cap_joint_row, w->njoints + nties, sizeof(int)) ||
                !grow((void **)&w->joint_lambda, &w->cap_jl, w->jrows + 3 * nties + 3,
                      sizeof(double)) ||
                (!w->jr && !(w->jr = malloc(3 * sizeof *w->jr)))))
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->cap_fem_buf = c1 < c2 ? (c1 < c3 ? c1 : c3) : (c2 < c3 ? c2 : c3);
    w->cap_joints = cj;
    if (rc) {
        mcb_fem_free(&f);
        return rc;
    }
    int k = w->nfems, base = w->nrigid + w->nlinks + w->nnodes;
    w->fems[k] = f;
    w->fem_node0[k] = w->nnodes;
    w->nfems++;
    w->nnodes += nn;
    if (first_node) *first_node = base;
    const double *x = mcb_fem_x(f);
    for (int i = 0; i < nn; i++)
        w->pose[base + i] = (mcb_xform){{1, 0, 0, 0, 1, 0, 0, 0, 1}, {x[3 * i], x[3 * i + 1], x[3 * i + 2]}};
    for (int i = 0; i < nsurf; i++) {
        wshape *ws = &w->shapes[w->nshapes++];
        memset(ws, 0, sizeof *ws);
        ws->s.type = MCB_SHAPE_SPHERE;
        ws->s.body = base + surf[i];
        ws->s.local = mcb_xform_identity();
        ws->s.size[0] = node_radius_m;
        ws->s.mu = mu;
        ws->s.group = FEM_GROUP_BASE + k;
        ws->link = -1;
    }
    for (int t = 0; t < nties; t++) {
        mcb_wjoint j;
        memset(&j, 0, sizeof j);
        j.kind = MCB_WJ_POINT;
        j.body_a = base + ties[2 * t];
        j.body_b = base + ties[2 * t + 1];
        if ((rc = append_joint(w, &j, NULL, err))) return rc; /* checked above: cannot fail */
    }
    return MCB_OK;
}

int mcb_world_nfems(const mcb_world *w) { return w ? w->nfems : 0; }

mcb_fem *mcb_world_fem(mcb_world *w, int k)
{
    return w && k >= 0 && k < w->nfems ? w->fems[k] : NULL;
}

const double *mcb_world_joint_lambda(const mcb_world *w, int joint, int *rows)
{
    if (rows) *rows = 0;
    if (!w || joint < 0 || joint >= w->njoints) return NULL;
    if (rows) *rows = mcb_wjoint_nrows(&w->joints[joint]);
    return w->joint_lambda + w->joint_row[joint];
}

mcb_rc mcb_world_describe(mcb_world *w, const char *prefix, const char *scene, const char *source,
                          const char *notes, mcb_err *err)
{
    if (!w) return mcb_fail(err, MCB_E_INPUT, "world: NULL");
    mcb_rc rc;
    if ((rc = set_str(&w->prefix, prefix ? prefix : "world", err))) return rc;
    if ((rc = set_str(&w->scene, scene, err))) return rc;
    if ((rc = set_str(&w->source, source, err))) return rc;
    return set_str(&w->notes, notes, err);
}

/* ---------- accessors ---------- */

int mcb_world_nrigid(const mcb_world *w) { return w ? w->nrigid : 0; }
mcb_rigid *mcb_world_body(mcb_world *w, int k)
{
    return w && k >= 0 && k < w->nrigid ? &w->rigid[k] : NULL;
}
int mcb_world_nrobots(const mcb_world *w) { return w ? w->nrobots : 0; }
mcb_robot *mcb_world_robot(mcb_world *w, int k)
{
    return w && k >= 0 && k < w->nrobots ? w->robots[k] : NULL;
}
int mcb_world_nbodies(const mcb_world *w) { return w ? w->nrigid + w->nlinks + w->nnodes : 0; }

int mcb_world_ndof(const mcb_world *w)
{
    if (!w) return 0;
    int n = 0;
    for (int k = 0; k < w->nrigid; k++) n += w->rigid[k].kinematic ? 0 : 6;
    for (int r = 0; r < w->nrobots; r++) n += mcb_robot_ndof(w->robots[r]);
    return n + 3 * w->nnodes;
}

/* Robot and link of global link ordinal g (binary search over robot_link0). */
static void link_of(const mcb_world *w, int g, int *robot, int *link)
{
    int lo = 0, hi = w->nrobots - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (w->robot_link0[mid] <= g) lo = mid;
        else hi = mid - 1;
    }
    *robot = lo;
    *link = g - w->robot_link0[lo];
}

const mcb_xform *mcb_world_body_pose(const mcb_world *w, int body)
{
    if (!w || body < 0 || body >= w->nrigid + w->nlinks + w->nnodes) return NULL;
    if (body >= w->nrigid + w->nlinks) { /* a mesh node */
        int g = body - w->nrigid - w->nlinks, k = w->nfems - 1;
        while (k > 0 && w->fem_node0[k] > g) k--;
        const double *x = mcb_fem_x(w->fems[k]) + 3 * (g - w->fem_node0[k]);
        w->pose[body] = (mcb_xform){{1, 0, 0, 0, 1, 0, 0, 0, 1}, {x[0], x[1], x[2]}};
        return &w->pose[body];
    }
    if (body >= w->nrigid) {
        int r, k;
        link_of(w, body - w->nrigid, &r, &k);
        return mcb_robot_link_pose(w->robots[r], k);
    }
    /* computed on demand so that edits through mcb_world_body are seen */
    if (body >= w->cap_pose) return NULL;
    mcb_rigid_pose(&w->rigid[body], &w->pose[body]);
    return &w->pose[body];
}

double mcb_world_mass_ratio(const mcb_world *w)
{
    if (!w) return NAN;
    double lo = INFINITY, hi = 0.0;
    for (int k = 0; k < w->nrigid; k++) {
        if (w->rigid[k].kinematic) continue;
        double m = w->rigid[k].mass_kg;
        lo = m < lo ? m : lo;
        hi = m > hi ? m : hi;
    }
    for (int r = 0; r < w->nrobots; r++)
        for (int k = 0; k < mcb_robot_nlinks(w->robots[r]); k++) {
            double m = mcb_robot_link(w->robots[r], k)->mass_kg;
            if (!(m > 0)) continue; /* massless frames are not bodies */
            lo = m < lo ? m : lo;
            hi = m > hi ? m : hi;
        }
    for (int k = 0; k < w->nfems; k++) { /* a node's lumped mass */
        const double *nm = mcb_fem_node_mass(w->fems[k]);
        for (int i = 0; i < mcb_fem_nnodes(w->fems[k]); i++) {
            lo = nm[i] < lo ? nm[i] : lo;
            hi = nm[i] > hi ? nm[i] : hi;
        }
    }
    return hi > 0 ? hi / lo : NAN;
}

/* ---------- step 1: layout and poses ---------- */

/* Sizes the per-body buffers, the DOF offsets and the subsystems; fills
 * every body pose. Returns n (DOFs) in *n and the subsystem count in *nsub. */
static mcb_rc layout(mcb_world *w, int *n, int *nsub, mcb_err *err)
{
    int nb = w->nrigid + w->nlinks + w->nnodes;
    int c2 = w->cap_bodies, c3 = w->cap_bodies, c4 = w->cap_bodies;
    if (!grow((void **)&w->pose, &w->cap_pose, nb, sizeof *w->pose) ||
        !grow((void **)&w->body_dof, &c2, nb, sizeof(int)) ||
        !grow((void **)&w->body_robot, &c3, nb, sizeof(int)) ||
        !grow((void **)&w->body_link, &c4, nb, sizeof(int)) ||
        !grow((void **)&w->body_sub, &w->cap_bodies, nb, sizeof(int)))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int rc2 = w->cap_rob_buf;
    if (!grow((void **)&w->robot_dof, &rc2, w->nrobots, sizeof(int)) ||
        !grow((void **)&w->robot_sub, &w->cap_rob_buf, w->nrobots, sizeof(int)) ||
        !grow((void **)&w->sub_start, &w->cap_sub, nb + w->nfems + 1, sizeof(int)))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int dof = 0, sub = 0;
    for (int k = 0; k < w->nrigid; k++) {
        mcb_rigid_pose(&w->rigid[k], &w->pose[k]);
        w->body_robot[k] = -1;
        w->body_link[k] = -1;
        if (w->rigid[k].kinematic) {
            w->body_dof[k] = -1;
            w->body_sub[k] = -1;
        } else {
            w->body_dof[k] = dof;
            if (!(w->merge[k] && sub > 0)) w->sub_start[sub++] = dof;
            w->body_sub[k] = sub - 1;
            dof += 6;
        }
    }
    for (int r = 0; r < w->nrobots; r++) {
        mcb_robot *R = w->robots[r];
        mcb_robot_update(R);
        w->robot_dof[r] = dof;
        w->sub_start[sub] = dof;
        w->robot_sub[r] = sub;
        for (int k = 0; k < mcb_robot_nlinks(R); k++) {
            int b = w->nrigid + w->robot_link0[r] + k;
            w->pose[b] = *mcb_robot_link_pose(R, k);
            w->body_robot[b] = r;
            w->body_link[b] = k;
            w->body_dof[b] = dof;
            w->body_sub[b] = sub;
        }
        dof += mcb_robot_ndof(R);
        sub++;
    }
    /* meshes: 3 DOFs per node, one subsystem per piece */
    for (int k = 0; k < w->nfems; k++) {
        const mcb_fem *f = w->fems[k];
        const int *ps = mcb_fem_piece_start(f);
        const double *x = mcb_fem_x(w->fems[k]);
        int np = mcb_fem_npieces(f), b0 = w->nrigid + w->nlinks + w->fem_node0[k];
        w->fem_dof[k] = dof;
        w->fem_sub[k] = sub;
        for (int p = 0; p < np; p++) {
            w->sub_start[sub] = dof + 3 * ps[p];
            for (int i = ps[p]; i < ps[p + 1]; i++) {
                int b = b0 + i;
                w->pose[b] = (mcb_xform){{1, 0, 0, 0, 1, 0, 0, 0, 1},
                                         {x[3 * i], x[3 * i + 1], x[3 * i + 2]}};
                w->body_robot[b] = -1;
                w->body_link[b] = -1;
                w->body_dof[b] = dof + 3 * i;
                w->body_sub[b] = sub;
            }
            sub++;
        }
        dof += 3 * mcb_fem_nnodes(f);
    }
    w->sub_start[sub] = dof;
    *n = dof;
    *nsub = sub;
    return MCB_OK;
}

/* ---------- step 2: contacts ---------- */

/* Collision group of robot r's shapes left in group 0: above any group a
 * scene would number by hand. */
#define ROBOT_GROUP_BASE (1 << 24)

/* 1 for a body with DOFs (not static, not kinematic); after layout(). */
static int is_dof_body(const mcb_world *w, int body)
{
    return body >= 0 && w->body_sub[body] >= 0;
}


static mcb_rc detect(mcb_world *w, mcb_err *err)
{
    int ns = w->nshapes;
    for (int r = 0; r < w->nrobots; r++) {
        int c = 0;
        mcb_robot_shapes(w->robots[r], &c);
        ns += c;
    }
    int cap = w->cap_sh;
    if (!grow((void **)&w->sh, &cap, ns, sizeof *w->sh) ||
        !grow((void **)&w->X, &w->cap_sh, ns, sizeof *w->X))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int k = 0;
    for (int s = 0; s < w->nshapes; s++, k++) {
        w->sh[k] = w->shapes[s].s;
        if (w->shapes[s].link >= 0) w->sh[k].body = w->nrigid + w->shapes[s].link;
    }
    for (int r = 0; r < w->nrobots; r++) {
        int c = 0;
        const mcb_shape *rs = mcb_robot_shapes(w->robots[r], &c);
        for (int s = 0; s < c; s++, k++) {
            w->sh[k] = rs[s];
            w->sh[k].body = w->nrigid + w->robot_link0[r] + rs[s].body;
            /* a robot's links do not collide with each other (their shapes
             * overlap at the joints) unless the scene set groups itself */
            if (w->sh[k].group == 0) w->sh[k].group = ROBOT_GROUP_BASE + r;
        }
    }
    for (k = 0; k < ns; k++) {
        int b = w->sh[k].body;
        w->X[k] = b < 0 ? w->sh[k].local : mcb_xform_compose(&w->pose[b], &w->sh[k].local);
    }
    w->ncon = 0;
    if (ns == 0) return MCB_OK;
    mcb_rc rc = mcb_contacts_detect(w->sh, w->X, ns, w->o.margin_m, &w->con, &w->ncon,
                                    &w->cap_con, err);
    if (rc) return rc;
    /* contacts between bodies without DOFs (a kinematic body on the ground)
     * would be empty rows of J that no impulse can satisfy: dropped */
    int kept = 0;
    for (int c = 0; c < w->ncon; c++)
        if (is_dof_body(w, w->con[c].body_a) || is_dof_body(w, w->con[c].body_b))
            w->con[kept++] = w->con[c];
    w->ncon = kept;
    if (w->o.cap_per_pair > 0 || w->o.cap_total > 0)
        w->ncon = mcb_contacts_cluster(w->con, w->ncon, w->o.cap_per_pair, w->o.cap_total);
    return MCB_OK;
}

/* ---------- step 3: dynamics (A, b) ---------- */

static int push(mcb_world *w, int *t, int i, int j, double x)
{
    if (*t >= w->cap_tri) {
        int c1 = w->cap_tri, c2 = w->cap_tri;
        if (!grow((void **)&w->ti, &c1, *t + 1, sizeof(int)) ||
            !grow((void **)&w->tj, &c2, *t + 1, sizeof(int)) ||
            !grow((void **)&w->tx, &w->cap_tri, *t + 1, sizeof(double)))
            return 0;
    }
    w->ti[*t] = i;
    w->tj[*t] = j;
    w->tx[*t] = x;
    (*t)++;
    return 1;
}

static int max_robot_dof(const mcb_world *w)
{
    int mx = 0;
    for (int r = 0; r < w->nrobots; r++)
        if (mcb_robot_ndof(w->robots[r]) > mx) mx = mcb_robot_ndof(w->robots[r]);
    return mx;
}

/* Rigid body k at DOF d: A += M / (1 - theta), b += M v_k / (1 - theta) + h f. */
static int rigid_dynamics(mcb_world *w, int k, int d, double *b, int *t)
{
    const mcb_rigid *B = &w->rigid[k];
    double M[36], f[6], s = 1.0 / (1.0 - w->o.theta), h = w->o.h_s;
    mcb_rigid_mass6(B, M);
    mcb_rigid_force(B, w->o.gravity, f);
    for (int r = 0; r < 6; r++) {
        double Mv = 0.0;
        for (int c = 0; c < 6; c++) {
            Mv += M[6 * r + c] * B->vel[c];
            if ((M[6 * r + c] != 0.0 || r == c) && !push(w, t, d + r, d + c, s * M[6 * r + c]))
                return 0;
        }
        b[d + r] = s * Mv + h * f[r];
    }
    return 1;
}

/* Robot r at DOF d: A += H / (1 - theta) + diag(h kd + h^2 kp),
 * b += H v_k / (1 - theta) - h c(q, v) + h (-kp (q - q_ref) + kd v_ref). */
static int robot_dynamics(mcb_world *w, int r, int d, double *b, int *t)
{
    mcb_robot *R = w->robots[r];
    int nd = mcb_robot_ndof(R), fl = mcb_robot_floating(R);
    double *H = w->dense, *c = w->dense + (size_t)nd * nd;
    double s = 1.0 / (1.0 - w->o.theta), h = w->o.h_s;
    const double *v = mcb_robot_v(R), *q = mcb_robot_q(R);
    const double *qr = mcb_robot_q_ref(R), *vr = mcb_robot_v_ref(R);
    mcb_robot_crba(R, H);
    mcb_robot_rnea(R, NULL, w->o.gravity, c);
    for (int i = 0; i < nd; i++) {
        double Hv = 0.0;
        for (int j = 0; j < nd; j++) Hv += 0.5 * (H[i + (size_t)j * nd] + H[j + (size_t)i * nd]) * v[j];
        b[d + i] = s * Hv - h * c[i];
    }
    /* joint PD: implicit in v^ (eq. (2) with tau = -kp (q + h v^ - q_ref) - kd (v^ - v_ref)) */
    double *extra = c; /* reuse: the diagonal added to A */
    for (int i = 0; i < nd; i++) extra[i] = 0.0;
    for (int k = 0; k < mcb_robot_nlinks(R); k++) {
        int j = mcb_robot_dof_of_link(R, k);
        if (j < 0) continue;
        const mcb_link *L = mcb_robot_link(R, k);
        if (L->kp == 0.0 && L->kd == 0.0) continue;
        int jq = j + fl, jr = j - 6 * fl;
        extra[j] = h * L->kd + h * h * L->kp;
        b[d + j] += h * (-L->kp * (q[jq] - qr[jr]) + L->kd * vr[jr]);
    }
    for (int j = 0; j < nd; j++)
        for (int i = 0; i < nd; i++) {
            double x = 0.5 * s * (H[i + (size_t)j * nd] + H[j + (size_t)i * nd]);
            if (i == j) x += extra[i];
            if ((x != 0.0 || i == j) && !push(w, t, d + i, d + j, x)) return 0;
        }
    return 1;
}

/* Mesh k: A += M / (1 - theta) + h D + h^2 K(x), b += M v / (1 - theta) +
 * h (M g - f_elastic(x)) (fem.h, docs/fem.md). */
static mcb_rc fem_dynamics(mcb_world *w, int k, double *b, int *t, mcb_err *err)
{
    int nt = 0, d = w->fem_dof[k], nd = 3 * mcb_fem_nnodes(w->fems[k]);
    const int *ti, *tj;
    const double *tx, *bf;
    mcb_rc rc = mcb_fem_assemble(w->fems[k], w->o.h_s, w->o.theta, w->o.gravity, &nt, &ti, &tj,
                                 &tx, &bf, err);
    if (rc) return rc;
    for (int q = 0; q < nt; q++)
        if (!push(w, t, d + ti[q], d + tj[q], tx[q]))
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    memcpy(b + d, bf, (size_t)nd * sizeof(double));
    return MCB_OK;
}

static mcb_rc assemble_dynamics(mcb_world *w, mcb_problem *P, mcb_err *err)
{
    int n = P->n, t = 0;
    int md = max_robot_dof(w);
    if (!grow((void **)&w->dense, &w->cap_dense, md * md + 6 * md + md + 1, sizeof(double)))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    P->b = mcb_calloc((size_t)n, sizeof(double));
    if (!P->b) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int k = 0; k < w->nrigid; k++)
        if (!w->rigid[k].kinematic && !rigid_dynamics(w, k, w->body_dof[k], P->b, &t))
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int r = 0; r < w->nrobots; r++)
        if (!robot_dynamics(w, r, w->robot_dof[r], P->b, &t))
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int k = 0; k < w->nfems; k++) {
        mcb_rc rc = fem_dynamics(w, k, P->b, &t, err);
        if (rc) return rc;
    }
    P->A = mcb_csc_from_triplets(n, n, t, w->ti, w->tj, w->tx);
    if (!P->A) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    return MCB_OK;
}

/* ---------- step 4: constraints (Jc, Jb, J, e, blocks) ---------- */

/* Frame origin of a body: a rigid body's centre of mass, a link's frame. */
static const double *origin(const mcb_world *w, int body) { return w->pose[body].p; }

/* Velocity of the point x of kinematic body k (its own twist). */
static double kinematic_term(const mcb_world *w, int body, const double x[3], const double d[3])
{
    if (body < 0 || body >= w->nrigid || !w->rigid[body].kinematic) return 0.0;
    double u[3];
    mcb_rigid_point_velocity(&w->rigid[body], w->rigid[body].vel, x, u);
    return mcb_v3_dot(d, u);
}

/* The prescribed velocity a kinematic rigid body gives a joint row with
 * coefficients c on its twist. */
static double joint_kinematic(const mcb_world *w, int body, const double c[6])
{
    if (body < 0 || body >= w->nrigid || !w->rigid[body].kinematic) return 0.0;
    double s = 0.0;
    for (int q = 0; q < 6; q++) s += c[q] * w->rigid[body].vel[q];
    return s;
}

/* Jc coefficients of one side of a joint row. */
static int push_side(mcb_world *w, int *t, int row, int body, const double c[6])
{
    if (!is_dof_body(w, body)) return 1;
    for (int q = 0; q < 6; q++)
        if (c[q] != 0.0 && !push(w, t, row, 6 * body + q, c[q])) return 0;
    return 1;
}

/* The joints' rows after the contacts' (docs/stepping.md "Joints"): a hard
 * joint is one bilateral block with e = erp phi / h; a soft joint's rows
 * follow eq. (3) with k = h^2 K, e = phi / h, alpha = 1 + D / (h K), rows
 * with equal (K, D) in one block. Kinematic bodies' motion enters e. */
static int assemble_joints(mcb_world *w, mcb_problem *P, int *t)
{
    static const mcb_xform ident = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    double h = w->o.h_s;
    int nb = P->nblocks, r00 = 3 * w->ncon;
    for (int q = 0; q < w->njoints; q++) {
        const mcb_wjoint *J = &w->joints[q];
        const mcb_xform *Xa = J->body_a >= 0 ? &w->pose[J->body_a] : &ident;
        const mcb_xform *Xb = J->body_b >= 0 ? &w->pose[J->body_b] : &ident;
        mcb_wjoint_eval(J, Xa, Xb, w->jr);
        int nr = mcb_wjoint_nrows(J), r0 = r00 + w->joint_row[q];
        int bodyb = J->kind == MCB_WJ_ROLLING ? -1 : J->body_b;
        for (int r = 0; r < nr; r++) {
            const mcb_wjoint_row *R = &w->jr[r];
            int row = r0 + r;
            double kin = joint_kinematic(w, J->body_a, R->ja) + joint_kinematic(w, bodyb, R->jb);
            if (!push_side(w, t, row, J->body_a, R->ja) || !push_side(w, t, row, bodyb, R->jb))
                return 0;
            if (J->soft)
                P->e[row] = R->phi / h + (1.0 + R->D / (h * R->K)) * kin;
            else
                P->e[row] = w->o.erp * R->phi / h + kin;
        }
        if (!J->soft) {
            P->blocks[nb++] = (mcb_block){MCB_BILATERAL, r0, nr, 0.0, 0.0, 0.0};
            continue;
        }
        for (int r = 0; r < nr;) {
            int e = r + 1;
            while (e < nr && w->jr[e].K == w->jr[r].K && w->jr[e].D == w->jr[r].D) e++;
            double K = w->jr[r].K, D = w->jr[r].D;
            P->blocks[nb++] = (mcb_block){MCB_SOFT, r0 + r, e - r, 0.0, h * h * K, 1.0 + D / (h * K)};
            r = e;
        }
    }
    P->nblocks = nb;
    return 1;
}

static mcb_rc assemble_constraints(mcb_world *w, mcb_problem *P, mcb_err *err)
{
    int nc = w->ncon, m = 3 * nc + w->jrows, nb = w->nrigid + w->nlinks + w->nnodes, n = P->n;
    double h = w->o.h_s;
    P->e = mcb_calloc((size_t)m, sizeof(double));
    P->blocks = mcb_calloc((size_t)nc + (size_t)w->jrows, sizeof(mcb_block));
    P->body_parent = mcb_malloc((size_t)nb, sizeof(int));
    P->body_sub = mcb_malloc((size_t)nb, sizeof(int));
    if (!P->e || !P->blocks || !P->body_parent || !P->body_sub)
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    P->nblocks = nc;
    P->nbodies = nb;
    /* Jc: row d at point p of body with origin o is +-[d^T, ((p - o) x d)^T] */
    int t = 0;
    for (int c = 0; c < nc; c++) {
        const mcb_contact *C = &w->con[c];
        double dir[3][3];
        memcpy(dir[0], C->n, sizeof dir[0]);
        mcb_frame_tangents(C->n, dir[1], dir[2]);
        for (int k = 0; k < 3; k++) {
            int row = 3 * c + k;
            for (int side = 0; side < 2; side++) {
                int body = side == 0 ? C->body_a : C->body_b;
                double sg = side == 0 ? 1.0 : -1.0;
                P->e[row] += sg * kinematic_term(w, body, C->p, dir[k]);
                if (!is_dof_body(w, body)) continue;
                const double *o = origin(w, body);
                double r[3] = {C->p[0] - o[0], C->p[1] - o[1], C->p[2] - o[2]}, rxd[3];
                mcb_v3_cross(r, dir[k], rxd);
                for (int q = 0; q < 3; q++)
                    if (!push(w, &t, row, 6 * body + q, sg * dir[k][q]) ||
                        !push(w, &t, row, 6 * body + 3 + q, sg * rxd[q]))
                        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
            }
        }
        P->e[3 * c] += w->o.erp * C->gap / h;
        P->blocks[c] = (mcb_block){MCB_CONTACT, 3 * c, 3, C->mu, 0.0, 0.0};
    }
    if (!assemble_joints(w, P, &t)) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    P->Jc = mcb_csc_from_triplets(m, 6 * nb, t, w->ti, w->tj, w->tx);
    if (!P->Jc) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    /* Jb: identity for a free rigid body, the link Jacobian for a link */
    t = 0;
    for (int k = 0; k < w->nrigid; k++) {
        P->body_parent[k] = -1;
        /* a kinematic body has no DOFs (empty rows in Jc and Jb); the format
         * wants a subsystem in range, so it names subsystem 0 */
        P->body_sub[k] = w->body_sub[k] >= 0 ? w->body_sub[k] : 0;
        if (w->rigid[k].kinematic) continue;
        for (int q = 0; q < 6; q++)
            if (!push(w, &t, 6 * k + q, w->body_dof[k] + q, 1.0))
                return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    for (int r = 0; r < w->nrobots; r++) {
        mcb_robot *R = w->robots[r];
        int nd = mcb_robot_ndof(R), d = w->robot_dof[r], b0 = w->nrigid + w->robot_link0[r];
        double *Jk = w->dense;
        for (int k = 0; k < mcb_robot_nlinks(R); k++) {
            int b = b0 + k, par = mcb_robot_link(R, k)->parent;
            P->body_parent[b] = par < 0 ? -1 : b0 + par;
            P->body_sub[b] = w->robot_sub[r];
            mcb_robot_link_jacobian(R, k, Jk);
            for (int j = 0; j < nd; j++)
                for (int q = 0; q < 6; q++) {
                    double x = Jk[q + 6 * (size_t)j];
                    if (x != 0.0 && !push(w, &t, 6 * b + q, d + j, x))
                        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
                }
        }
    }
    /* a mesh node's twist is [its velocity; 0] */
    for (int b = w->nrigid + w->nlinks; b < nb; b++) {
        P->body_parent[b] = -1;
        P->body_sub[b] = w->body_sub[b];
        for (int q = 0; q < 3; q++)
            if (!push(w, &t, 6 * b + q, w->body_dof[b] + q, 1.0))
                return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    P->Jb = mcb_csc_from_triplets(6 * nb, n, t, w->ti, w->tj, w->tx);
    if (!P->Jb) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    P->J = mcb_csc_multiply(P->Jc, P->Jb);
    if (!P->J) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    return MCB_OK;
}

/* ---------- step 5: warm start and solve ---------- */

static int cmp_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->idx - y->idx; /* the first of equal keys wins */
}

static int find_key(const mcb_world *w, unsigned long long key)
{
    int lo = 0, hi = w->nprev - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        unsigned long long k = w->prev_key[mid];
        if (k == key) {
            while (mid > 0 && w->prev_key[mid - 1] == key) mid--;
            return mid;
        }
        if (k < key) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* v0: the previous step's v^ (the current velocities at the first step or
 * when the DOFs changed); lambda0: the previous impulses by contact key. */
static mcb_rc warm_start(mcb_world *w, mcb_problem *P, mcb_err *err)
{
    P->v0 = mcb_calloc((size_t)P->n, sizeof(double));
    P->lambda0 = mcb_calloc((size_t)P->m, sizeof(double));
    if (!P->v0 || !P->lambda0) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (w->n_prev == P->n && w->step > 0) {
        memcpy(P->v0, w->vhat_prev, (size_t)P->n * sizeof(double));
    } else {
        for (int k = 0; k < w->nrigid; k++)
            if (!w->rigid[k].kinematic)
                memcpy(P->v0 + w->body_dof[k], w->rigid[k].vel, 6 * sizeof(double));
        for (int r = 0; r < w->nrobots; r++)
            memcpy(P->v0 + w->robot_dof[r], mcb_robot_v(w->robots[r]),
                   (size_t)mcb_robot_ndof(w->robots[r]) * sizeof(double));
        for (int k = 0; k < w->nfems; k++)
            memcpy(P->v0 + w->fem_dof[k], mcb_fem_v(w->fems[k]),
                   3 * (size_t)mcb_fem_nnodes(w->fems[k]) * sizeof(double));
    }
    for (int c = 0; c < w->ncon; c++) {
        int i = find_key(w, w->con[c].key);
        if (i >= 0) memcpy(P->lambda0 + 3 * c, w->prev_lambda + 3 * i, 3 * sizeof(double));
    }
    if (w->jrows)
        memcpy(P->lambda0 + 3 * w->ncon, w->joint_lambda, (size_t)w->jrows * sizeof(double));
    return MCB_OK;
}

typedef struct {
    mcb_metrics_ws *ws;
    const mcb_problem *P;
    const mcb_solver_def *def;
    void *work;
    double *v, *lambda, tol, jrow;
} solve_ctx;

/* The step's acceptance measure: the harness's natural-map residual, or,
 * when every constraint quantity is at round-off level (the relative
 * natural map is then 0/0: the unloaded ties of a falling mesh), the
 * relative dynamics residual, provided the absolute Fischer-Burmeister
 * residual is within 1000 eps of the scale of u = J v + e
 * (max_r sum_j |J_rj| ||v||_inf + ||e||_inf). */
static double step_residual(mcb_metrics_ws *ws, const mcb_problem *P, const double *v,
                            const double *lambda, double tol, double jrow)
{
    double res = mcb_metrics_one(ws, MCB_M_NATMAP, v, lambda);
    if (res <= tol || !isfinite(res)) return res;
    double vmax = 0.0, emax = 0.0;
    for (int i = 0; i < P->n; i++) vmax = fabs(v[i]) > vmax ? fabs(v[i]) : vmax;
    for (int r = 0; r < P->m; r++) emax = fabs(P->e[r]) > emax ? fabs(P->e[r]) : emax;
    mcb_metrics all;
    mcb_metrics_compute(ws, v, lambda, &all);
    if (all.val[MCB_M_FB] <= 1e3 * DBL_EPSILON * (jrow * vmax + emax) &&
        all.val[MCB_M_DYN_REL] <= tol)
        return all.val[MCB_M_DYN_REL];
    return res;
}

/* max_r sum_j |J_rj| */
static double row_abs_max(const mcb_csc *J)
{
    double *sum = mcb_calloc((size_t)J->m + 1, sizeof(double)), mx = 0.0;
    if (!sum) return INFINITY; /* no round-off acceptance then */
    for (int k = 0; k < J->p[J->n]; k++) sum[J->i[k]] += fabs(J->x[k]);
    for (int r = 0; r < J->m; r++) mx = sum[r] > mx ? sum[r] : mx;
    free(sum);
    return mx;
}

/* Checks the step residual at iteration 1 and every 10th (as gen_stack.c). */
static mcb_cb_action solve_cb(void *c, int iter, double own)
{
    (void)own;
    solve_ctx *r = c;
    if (iter > 1 && iter % 10) return MCB_CB_CONTINUE;
    r->def->iterate(r->work, r->v, r->lambda);
    double res = step_residual(r->ws, r->P, r->v, r->lambda, r->tol, r->jrow);
    if (!isfinite(res)) return MCB_CB_DIVERGED;
    return res <= r->tol ? MCB_CB_CONVERGED : MCB_CB_CONTINUE;
}

/* Runs one registered solver from P's initial guess; writes its final
 * iterate into v, lambda, its natural-map residual into *res (inf when its
 * setup failed) and its iteration count into *iters. */
static void run_solver(const mcb_world *w, const char *name, const mcb_problem *P,
                       mcb_metrics_ws *ws, double jrow, double *v, double *lambda, double *res,
                       int *iters)
{
    *res = INFINITY;
    *iters = 0;
    const mcb_solver_def *def = mcb_solver_find(name);
    if (!def || !(def->accepts & MCB_ACCEPTS_PRIMAL)) return;
    char reason[256];
    if (def->accepts_problem && !def->accepts_problem(P, reason, sizeof reason)) return;
    mcb_settings s;
    mcb_settings_default(&s);
    s.max_iters = w->o.max_iters;
    s.tol = w->o.tol;
    s.time_limit_s = 0.0;
    s.threads = 1;
    s.warm_start = 1;
    void *params = mcb_calloc(def->params_size / sizeof(double) + 1, sizeof(double));
    if (!params) return;
    /* one thread, as s.threads says: the reference must not depend on the
     * machine's core count (and waiting OpenMP threads cost more than they
     * bring on a step's small loops); the caller's setting comes back */
#ifdef _OPENMP
    int saved_threads = omp_get_max_threads();
    omp_set_num_threads(1);
#endif
    mcb_blas_set_threads(1);
    def->default_params(params);
    solve_ctx r = {ws, P, def, NULL, v, lambda, w->o.tol, jrow};
    mcb_err e2;
    if (!def->setup(P, &s, params, &r.work, &e2)) {
        mcb_info info;
        memset(&info, 0, sizeof info);
        def->solve(r.work, &s, solve_cb, &r, &info);
        def->iterate(r.work, v, lambda);
        *iters = info.iterations;
        double x = step_residual(ws, P, v, lambda, w->o.tol, jrow);
        *res = isfinite(x) ? x : INFINITY;
    }
    def->free(&r.work);
    free(params);
#ifdef _OPENMP
    omp_set_num_threads(saved_threads);
#endif
}

/* Without contacts the step is the linear system A v^ = b. */
static mcb_rc solve_free(const mcb_problem *P, double *v, mcb_err *err)
{
    mcb_chol *F = NULL;
    mcb_rc rc = mcb_chol_factor(P->A, &F, err);
    if (!rc) rc = mcb_chol_solve(F, P->b, v);
    if (rc && !err->msg[0]) mcb_fail(err, rc, "world: the mass matrix solve failed");
    mcb_chol_free(&F);
    return rc;
}

/* Soft rows folded into the dynamics (exact: their law is linear in v^):
 * with c_r = k_r alpha_r,
 *     A' = A + J_s^T diag(c) J_s,   b' = b - J_s^T (k e_s)
 * and the problem P2 = (A', b', J_o, e_o) keeps the other rows (hard,
 * contacts) with P's blocks renumbered; afterwards lambda_s =
 * -k (e_s + alpha J_s v^). A' couples the subsystems the soft rows join,
 * so P2 is one subsystem. docs/stepping.md "Solve". */
static mcb_rc fold_soft(mcb_world *w, const mcb_problem *P, mcb_problem **out, mcb_err *err)
{
    *out = NULL;
    mcb_csc *JT = mcb_csc_transpose(P->J); /* column r = row r of J */
    mcb_problem *Q = mcb_problem_new();
    int *keep = mcb_malloc((size_t)P->m + 1, sizeof(int));
    if (!JT || !Q || !keep) goto nomem;
    int t = 0, m2 = 0, nb2 = 0;
    for (int j = 0; j < P->n; j++) /* A's entries */
        for (int k = P->A->p[j]; k < P->A->p[j + 1]; k++)
            if (!push(w, &t, P->A->i[k], j, P->A->x[k])) goto nomem;
    Q->b = mcb_malloc((size_t)P->n, sizeof(double));
    if (!Q->b) goto nomem;
    memcpy(Q->b, P->b, (size_t)P->n * sizeof(double));
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        for (int r = B->row; r < B->row + B->nrows; r++) {
            if (B->type != MCB_SOFT) {
                keep[r] = m2++;
                continue;
            }
            keep[r] = -1;
            double c = B->k * B->alpha, ke = B->k * P->e[r];
            for (int a = JT->p[r]; a < JT->p[r + 1]; a++) {
                Q->b[JT->i[a]] -= JT->x[a] * ke;
                for (int q = JT->p[r]; q < JT->p[r + 1]; q++)
                    if (!push(w, &t, JT->i[a], JT->i[q], c * JT->x[a] * JT->x[q])) goto nomem;
            }
        }
        nb2 += B->type != MCB_SOFT;
    }
    Q->form = MCB_PRIMAL;
    Q->n = P->n;
    Q->m = m2;
    Q->h = P->h;
    Q->A = mcb_csc_from_triplets(P->n, P->n, t, w->ti, w->tj, w->tx);
    Q->e = mcb_calloc((size_t)m2 + 1, sizeof(double));
    Q->blocks = mcb_calloc((size_t)nb2 + 1, sizeof(mcb_block));
    Q->nsub = 1;
    Q->sub_start = mcb_malloc(2, sizeof(int));
    Q->v0 = mcb_malloc((size_t)P->n + 1, sizeof(double));
    Q->lambda0 = mcb_calloc((size_t)m2 + 1, sizeof(double));
    if (!Q->A || !Q->e || !Q->blocks || !Q->sub_start || !Q->v0 || !Q->lambda0) goto nomem;
    Q->sub_start[0] = 0;
    Q->sub_start[1] = P->n;
    memcpy(Q->v0, P->v0, (size_t)P->n * sizeof(double));
    /* J_o: the kept rows (columns of JT), renumbered */
    t = 0;
    for (int r = 0; r < P->m; r++) {
        if (keep[r] < 0) continue;
        Q->e[keep[r]] = P->e[r];
        Q->lambda0[keep[r]] = P->lambda0[r];
        for (int a = JT->p[r]; a < JT->p[r + 1]; a++)
            if (!push(w, &t, keep[r], JT->i[a], JT->x[a])) goto nomem;
    }
    Q->J = mcb_csc_from_triplets(m2, P->n, t, w->ti, w->tj, w->tx);
    if (!Q->J) goto nomem;
    for (int b = 0; b < P->nblocks; b++)
        if (P->blocks[b].type != MCB_SOFT) {
            Q->blocks[Q->nblocks] = P->blocks[b];
            Q->blocks[Q->nblocks++].row = keep[P->blocks[b].row];
        }
    mcb_csc_free(&JT);
    free(keep);
    *out = Q;
    return MCB_OK;
nomem:
    mcb_csc_free(&JT);
    free(keep);
    mcb_problem_free(&Q);
    return mcb_fail(err, MCB_E_NOMEM, "out of memory");
}

/* P's impulses from the folded problem's: the kept rows' as solved, the
 * soft rows' from their law at v^ (lp first receives J v^). */
static void unfold_soft(const mcb_problem *P, const double *v, const double *lq, double *lp)
{
    memset(lp, 0, (size_t)P->m * sizeof(double));
    mcb_csc_gaxpy(P->J, v, lp);
    int r2 = 0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        for (int r = B->row; r < B->row + B->nrows; r++)
            lp[r] = B->type == MCB_SOFT ? -B->k * (P->e[r] + B->alpha * lp[r]) : lq[r2++];
    }
}

/* Solves Q (P, or P with its soft rows folded) with the solver and, if
 * it does not reach tol, the fallback; the better iterate (by Q's step
 * residual) into (vq, lq). */
static mcb_rc solve_q(mcb_world *w, const mcb_problem *Q, double *vq, double *lq,
                      mcb_step_info *info, double r[2], int it[2], mcb_err *err)
{
    r[0] = r[1] = INFINITY;
    it[0] = it[1] = 0;
    if (Q->m == 0) {
        mcb_rc rc = solve_free(Q, vq, err);
        r[0] = rc ? INFINITY : 0.0;
        return rc;
    }
    mcb_metrics_ws *ws = NULL;
    mcb_rc rc = mcb_metrics_ws_new(Q, &ws, err);
    if (rc) return rc;
    double *v2 = mcb_calloc((size_t)Q->n, sizeof(double));
    double *l2 = mcb_calloc((size_t)Q->m, sizeof(double));
    if (!v2 || !l2) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    } else {
        double jrow = row_abs_max(Q->J);
        run_solver(w, w->solver, Q, ws, jrow, vq, lq, &r[0], &it[0]);
        if (!(r[0] <= w->o.tol) && w->fallback[0]) {
            run_solver(w, w->fallback, Q, ws, jrow, v2, l2, &r[1], &it[1]);
            if (r[1] < r[0]) {
                memcpy(vq, v2, (size_t)Q->n * sizeof(double));
                memcpy(lq, l2, (size_t)Q->m * sizeof(double));
                info->used_fallback = 1;
            }
        }
        info->iterations = info->used_fallback ? it[1] : it[0];
    }
    free(v2);
    free(l2);
    mcb_metrics_ws_free(&ws);
    return rc;
}

static int has_soft(const mcb_problem *P)
{
    for (int b = 0; b < P->nblocks; b++)
        if (P->blocks[b].type == MCB_SOFT) return 1;
    return 0;
}

static mcb_rc solve(mcb_world *w, mcb_problem *P, mcb_step_info *info, mcb_err *err)
{
    int n = P->n, m = P->m;
    P->v_ref = mcb_calloc((size_t)n, sizeof(double));
    P->lambda_ref = mcb_calloc((size_t)m, sizeof(double));
    if (!P->v_ref || !P->lambda_ref) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    info->contacts = w->ncon;
    if (n == 0) return MCB_OK;
    if (m == 0) {
        mcb_rc rc = solve_free(P, P->v_ref, err);
        if (rc) return rc;
        info->residual = 0.0;
        return MCB_OK;
    }
    mcb_problem *Q = NULL;
    double *lq = NULL, r[2];
    int it[2];
    mcb_rc rc = MCB_OK;
    if (has_soft(P)) {
        rc = fold_soft(w, P, &Q, err);
        if (!rc && !(lq = mcb_calloc((size_t)Q->m + 1, sizeof(double))))
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        if (!rc) rc = solve_q(w, Q, P->v_ref, lq, info, r, it, err);
        if (!rc) unfold_soft(P, P->v_ref, lq, P->lambda_ref);
    } else {
        rc = solve_q(w, P, P->v_ref, P->lambda_ref, info, r, it, err);
    }
    mcb_metrics_ws *ws = NULL;
    if (!rc) rc = mcb_metrics_ws_new(P, &ws, err);
    if (!rc) {
        double x = step_residual(ws, P, P->v_ref, P->lambda_ref, w->o.tol, row_abs_max(P->J));
        info->residual = isfinite(x) ? x : INFINITY;
        if (!(info->residual <= 100.0 * w->o.tol))
            rc = mcb_fail(err, MCB_E_NUMERIC,
                          "world step %d: neither %s (residual %.3g after %d iterations) nor "
                          "%s (%.3g after %d) reached 100 x tol = %.3g (%d contacts, %d DOFs%s; "
                          "the recorded problem's residual %.3g)",
                          w->step, w->solver, r[0], it[0],
                          w->fallback[0] ? w->fallback : "(none)", r[1], it[1],
                          100.0 * w->o.tol, w->ncon, n,
                          Q ? ", soft rows folded: residuals of the folded problem" : "",
                          info->residual);
    }
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&Q);
    free(lq);
    return rc;
}

/* ---------- step 6: record ---------- */

static mcb_rc describe(mcb_world *w, mcb_problem *P, const mcb_step_info *info, mcb_err *err)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s-step%04d", w->prefix, w->step);
    mcb_rc rc;
    if ((rc = set_str(&P->name, buf, err)) || (rc = set_str(&P->scene, w->scene, err)) ||
        (rc = set_str(&P->source, w->source, err)))
        return rc;
    size_t len = strlen(w->notes) + 512;
    char *notes = malloc(len);
    if (!notes) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    snprintf(notes, len,
             "%s%sstep %d: %d contacts, %d joint rows, %d DOFs, theta %g, erp %g; reference by "
             "%s to natural-map residual %.3g (%d iterations)",
             w->notes, w->notes[0] ? "; " : "", w->step, w->ncon, w->jrows, P->n, w->o.theta,
             w->o.erp,
             info->used_fallback ? w->fallback : w->solver, info->residual, info->iterations);
    free(P->notes);
    P->notes = notes;
    P->mass_ratio = mcb_world_mass_ratio(w);
    P->cond_est = mcb_problem_cond_estimate(P);
    return MCB_OK;
}

/* ---------- step 7: advance and remember ---------- */

static void advance(mcb_world *w, const double *vhat)
{
    double th = w->o.theta, s = 1.0 / (1.0 - th), h = w->o.h_s;
    for (int k = 0; k < w->nrigid; k++) {
        mcb_rigid *B = &w->rigid[k];
        if (B->kinematic) {
            mcb_rigid_advance(B, B->vel, h);
            continue;
        }
        const double *vh = vhat + w->body_dof[k];
        mcb_rigid_advance(B, vh, h);
        for (int q = 0; q < 6; q++) B->vel[q] = s * (vh[q] - th * B->vel[q]);
    }
    for (int r = 0; r < w->nrobots; r++) {
        mcb_robot *R = w->robots[r];
        const double *vh = vhat + w->robot_dof[r];
        double *v = mcb_robot_v(R);
        mcb_robot_integrate(R, vh, h);
        for (int j = 0; j < mcb_robot_ndof(R); j++) v[j] = s * (vh[j] - th * v[j]);
    }
    for (int k = 0; k < w->nfems; k++) mcb_fem_advance(w->fems[k], vhat + w->fem_dof[k], h, th);
}

/* Keeps v^ and the impulses (sorted by contact key) for the next warm start. */
static mcb_rc remember(mcb_world *w, const mcb_problem *P, mcb_err *err)
{
    int nc = w->ncon;
    if (!grow((void **)&w->vhat_prev, &w->cap_vprev, P->n, sizeof(double)) ||
        !grow((void **)&w->order, &w->cap_order, nc, sizeof *w->order) ||
        !grow((void **)&w->prev_key, &w->cap_prev, nc, sizeof *w->prev_key) ||
        !grow((void **)&w->prev_lambda, &w->cap_prevl, 3 * nc, sizeof(double)))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (P->n) memcpy(w->vhat_prev, P->v_ref, (size_t)P->n * sizeof(double));
    w->n_prev = P->n;
    for (int c = 0; c < nc; c++) w->order[c] = (keyed){w->con[c].key, c};
    if (nc) qsort(w->order, (size_t)nc, sizeof *w->order, cmp_key);
    for (int i = 0; i < nc; i++) {
        w->prev_key[i] = w->order[i].key;
        memcpy(w->prev_lambda + 3 * i, P->lambda_ref + 3 * w->order[i].idx, 3 * sizeof(double));
    }
    w->nprev = nc;
    if (w->jrows)
        memcpy(w->joint_lambda, P->lambda_ref + 3 * nc, (size_t)w->jrows * sizeof(double));
    return MCB_OK;
}

/* ---------- the step ---------- */

mcb_rc mcb_world_step(mcb_world *w, mcb_problem **record, mcb_step_info *info, mcb_err *err)
{
    if (record) *record = NULL;
    mcb_step_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    if (!w) return mcb_fail(err, MCB_E_INPUT, "world: NULL");
    double t0 = mcb_now_s();
    int n = 0, nsub = 0;
    mcb_problem *P = NULL;
    mcb_rc rc = layout(w, &n, &nsub, err);
    if (!rc) rc = detect(w, err);
    if (!rc && !(P = mcb_problem_new())) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc) {
        P->form = MCB_PRIMAL;
        P->n = n;
        P->m = 3 * w->ncon + w->jrows;
        P->h = w->o.h_s;
        P->step = w->step;
        P->nsub = nsub;
        P->sub_start = mcb_malloc((size_t)nsub + 1, sizeof(int));
        if (!P->sub_start) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (!rc) memcpy(P->sub_start, w->sub_start, ((size_t)nsub + 1) * sizeof(int));
    if (!rc) rc = assemble_dynamics(w, P, err);
    if (!rc) rc = assemble_constraints(w, P, err);
    if (!rc) rc = warm_start(w, P, err);
    if (!rc) rc = solve(w, P, info, err);
    info->setup_solve_s = mcb_now_s() - t0;
    if (!rc && record) rc = describe(w, P, info, err);
    if (!rc) rc = remember(w, P, err);
    if (rc) {
        mcb_problem_free(&P);
        return rc;
    }
    advance(w, P->v_ref);
    w->step++;
    if (record) *record = P;
    else mcb_problem_free(&P);
    return MCB_OK;
}

/* ---------- the conditioning descriptor ---------- */

/* Lanczos with full reorthogonalization on W = J A^-1 J^T, describe's
 * default estimate (metrics/describe.h: mcb_describe_cond_default, what
 * `mcbench describe` reports: 80 steps at most, NaN above 60000 rows, where
 * the basis of 80 vectors of m entries grows too large); the extreme Ritz
 * values bound the nonzero spectrum from inside (docs/stepping.md). */
double mcb_problem_cond_estimate(const mcb_problem *P)
{
    if (!P || P->form != MCB_PRIMAL || !P->A || !P->J || P->m == 0 || P->n == 0) return NAN;
    return mcb_describe_cond_default(P);
}

mcb_rc mcb_world_step_into(mcb_world *w, mcb_problem_set *S, mcb_step_info *info, mcb_err *err)
{
    mcb_problem *P = NULL;
    mcb_rc rc = mcb_world_step(w, &P, info, err);
    if (!rc) rc = mcb_problem_set_push(S, P, err);
    if (rc) mcb_problem_free(&P);
    return rc;
}

mcb_rc mcb_world_record(mcb_world *w, int steps, mcb_problem_set **out, mcb_err *err)
{
    *out = calloc(1, sizeof **out);
    if (!*out) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mcb_rc rc = MCB_OK;
    for (int k = 0; k < steps && !rc; k++) {
        mcb_step_info info;
        rc = mcb_world_step_into(w, *out, &info, err);
    }
    if (rc) mcb_problem_set_free(out);
    return rc;
}

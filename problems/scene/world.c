/* world.c: the scene engine's world container (world.h): its options and
 * creation, the registration of free rigid bodies, robots, shapes, joints,
 * merged subsystems and tetrahedral meshes (with the order rules that keep
 * scene indices put), the provenance of recorded problems, and the
 * accessors. A step (assembly.c, step.c; docs/stepping.md) reads and fills
 * the world through world_internal.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/body.h"
#include "solvers/solver.h"
#include "problems/scene/world_internal.h"
#include "problems/scene/xpbd.h"

/* ---------- small helpers ---------- */

int mcb_world_grow(void **p, int *cap, int need, size_t size)
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

mcb_rc mcb_world_set_str(char **dst, const char *src, mcb_err *err)
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
    if (!(o->contact_compliance >= 0) || !isfinite(o->contact_compliance))
        return mcb_fail(err, MCB_E_INPUT, "world: contact compliance %g must be finite and >= 0",
                        o->contact_compliance);
    if (!(o->fail_pen_m >= 0) || !(o->fail_energy_J >= 0))
        return mcb_fail(err, MCB_E_INPUT, "world: the closed loop's failure bounds must be >= 0");
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
    if ((rc = mcb_world_set_str(&w->solver, o->solver, err)) ||
        (rc = mcb_world_set_str(&w->fallback, o->fallback, err)) ||
        (rc = mcb_world_set_str(&w->prefix, "world", err)) ||
        (rc = mcb_world_set_str(&w->scene, "", err)) ||
        (rc = mcb_world_set_str(&w->source, "", err)) ||
        (rc = mcb_world_set_str(&w->notes, "", err))) {
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
    free(w->robots), free(w->robot_link0), free(w->rigid), free(w->shapes);
    for (int k = 0; k < w->nfems; k++) mcb_fem_free(&w->fems[k]);
    free(w->fems), free(w->fem_node0), free(w->fem_dof), free(w->fem_sub);
    free(w->merge), free(w->joints), free(w->joint_row), free(w->joint_lambda), free(w->jr);
    free(w->sub_start), free(w->solver), free(w->fallback);
    mcb_xpbd_ws_free(&w->xpbd);
    free(w->prefix), free(w->scene), free(w->source), free(w->notes);
    /* the step's buffers */
    free(w->pose), free(w->body_dof), free(w->body_robot), free(w->body_link), free(w->body_sub);
    free(w->robot_dof), free(w->robot_sub), free(w->sh), free(w->X), free(w->con);
    mcb_sample_cache_free(&w->samples);
    free(w->ti), free(w->tj), free(w->tx), free(w->dense);
    free(w->vhat_prev), free(w->prev_key), free(w->prev_lambda), free(w->order);
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
    if (!mcb_world_grow((void **)&w->merge, &cm, w->nrigid + 1, 1)) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->cap_merge = cm;
    w->merge[w->nrigid] = 0;
    if (!mcb_world_grow((void **)&w->rigid, &w->cap_rigid, w->nrigid + 1, sizeof *w->rigid) ||
        !mcb_world_grow((void **)&w->pose, &w->cap_pose, w->nrigid + w->nlinks + 1,
                        sizeof *w->pose))
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
    if (!mcb_world_grow((void **)&w->robots, &cap, w->nrobots + 1, sizeof *w->robots) ||
        !mcb_world_grow((void **)&w->robot_link0, &w->cap_robots, w->nrobots + 1,
                        sizeof *w->robot_link0)) {
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
    if (s->aniso && (s->body != -1 || !(s->mu2 >= 0) || !isfinite(s->mu2) ||
                     !(mcb_v3_norm(s->axis1) > 0) || !isfinite(mcb_v3_norm(s->axis1))))
        return mcb_fail(err, MCB_E_INPUT,
                        "world: an anisotropic shape must be static (body -1), with a finite mu2 "
                        ">= 0 and a nonzero finite axis1");
    if (!mcb_world_grow((void **)&w->shapes, &w->cap_shapes, w->nshapes + 1, sizeof *w->shapes))
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
    if (!mcb_world_grow((void **)&w->joints, &c1, w->njoints + 1, sizeof *w->joints) ||
        !mcb_world_grow((void **)&w->joint_row, &w->cap_joint_row, w->njoints + 1, sizeof(int)) ||
        !mcb_world_grow((void **)&w->joint_lambda, &w->cap_jl, w->jrows + 3, sizeof(double)))
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

mcb_rc mcb_world_add_impedance(mcb_world *w, int a, int b, double k_lin, double d_lin,
                               double k_ang, double d_ang, mcb_err *err)
{
    mcb_wjoint jp, ja;
    memset(&jp, 0, sizeof jp);
    jp.kind = MCB_WJ_POINT;
    jp.body_a = a;
    jp.body_b = b;
    jp.soft = 1;
    ja = jp;
    ja.kind = MCB_WJ_ANGULAR;
    for (int k = 0; k < 3; k++) {
        jp.stiffness[k] = k_lin, jp.damping[k] = d_lin;
        ja.stiffness[k] = k_ang, ja.damping[k] = d_ang;
    }
    mcb_rc rc = mcb_world_add_joint(w, &jp, NULL, err);
    if (!rc) rc = mcb_world_add_joint(w, &ja, NULL, err);
    return rc;
}

int mcb_world_njoints(const mcb_world *w) { return w ? w->njoints : 0; }

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
    if (!rc && (!mcb_world_grow((void **)&w->fems, &w->cap_fems, w->nfems + 1, sizeof *w->fems) ||
                !mcb_world_grow((void **)&w->fem_node0, &c1, w->nfems + 1, sizeof(int)) ||
                !mcb_world_grow((void **)&w->fem_dof, &c2, w->nfems + 1, sizeof(int)) ||
                !mcb_world_grow((void **)&w->fem_sub, &c3, w->nfems + 1, sizeof(int)) ||
                !mcb_world_grow((void **)&w->pose, &w->cap_pose, nb, sizeof *w->pose) ||
                !mcb_world_grow((void **)&w->shapes, &w->cap_shapes, w->nshapes + nsurf,
                                sizeof *w->shapes) ||
                !mcb_world_grow((void **)&w->joints, &cj, w->njoints + nties, sizeof *w->joints) ||
                !mcb_world_grow((void **)&w->joint_row, &w->cap_joint_row, w->njoints + nties,
                                sizeof(int)) ||
                !mcb_world_grow((void **)&w->joint_lambda, &w->cap_jl, w->jrows + 3 * nties + 3,
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
    if ((rc = mcb_world_set_str(&w->prefix, prefix ? prefix : "world", err))) return rc;
    if ((rc = mcb_world_set_str(&w->scene, scene, err))) return rc;
    if ((rc = mcb_world_set_str(&w->source, source, err))) return rc;
    return mcb_world_set_str(&w->notes, notes, err);
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

void mcb_world_set_outcome(mcb_world *w, const mcb_world_outcome *o)
{
    if (w && o) w->outcome = *o;
}

const mcb_world_outcome *mcb_world_get_outcome(const mcb_world *w)
{
    return w && w->outcome.name && w->outcome.eval ? &w->outcome : NULL;
}

const mcb_world_opts *mcb_world_options(const mcb_world *w) { return w ? &w->o : NULL; }

int mcb_world_step_index(const mcb_world *w) { return w ? w->step : 0; }

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

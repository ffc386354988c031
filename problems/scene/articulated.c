/* articulated.c: articulated robots in joint coordinates (articulated.h):
 * creation and accessors, forward kinematics, the composite-rigid-body
 * algorithm for the mass matrix (Featherstone, Rigid Body Dynamics
 * Algorithms, 2008, ch. 6, Table 6.2), recursive Newton-Euler inverse
 * dynamics (ch. 5, Table 5.1), link twist Jacobians, state integration,
 * link shapes, and the damped-least-squares inverse kinematics that drives
 * the scenes' arms.
 *
 * Every algorithm works with spatial vectors in WORLD coordinates, taken at
 * the world origin (Featherstone Sec. 2.x Plücker coordinates; the "absolute
 * coordinates" variant of Sec. 5.3): a motion vector is [omega; v_O] with
 * v_O the velocity of the body-fixed point at the world origin, a force
 * vector [n_O; f] with n_O the moment about the world origin. Then no
 * coordinate transform is needed between links: velocities add along the
 * tree, composite inertias add, and the joint motion subspace of link k is
 * S_k = [a; p_k x a] (revolute, world axis a through the joint origin p_k)
 * or [0; a] (prismatic). A floating base's six velocity entries [v_p; w]
 * (velocity of the base origin p and angular velocity, articulated.h) enter as
 * the spatial velocity [w; v_p + p x w], i.e. six subspace columns
 * [0; e_i] and [e_i; p x e_i]; their projection of a spatial force is the
 * wrench [f; n_p] with n_p the moment about p, as articulated.h specifies.
 *
 * Memory: mcb_robot_new allocates every workspace; update, crba, rnea,
 * link_jacobian, integrate and the inverse kinematics never allocate. Only add_shape grows an
 * array (setup, not per step). */
#include "problems/scene/articulated.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_chol.h"

/* A spatial inertia about the world origin in world coordinates: mass m,
 * first moment h = m c (c the centre of mass), rotational inertia Io about
 * the origin; I [w; v] = [Io w + h x v; m v - h x w] (Featherstone eq. 2.63
 * written with h = m c). Inertias of rigidly joined bodies add. */
typedef struct {
    double m, h[3], Io[9];
} sp_inertia;

struct mcb_robot {
    char name[64];
    int floating, nlinks, ndof, nq, nj;
    mcb_xform base;
    mcb_link *links;
    int *dof;          /* velocity index of link k's joint, -1: none */
    int *qidx;         /* position index of link k's joint, -1: none */
    double *q, *v, *q_ref, *v_ref;
    double total_mass_kg;
    /* kinematics at the last update */
    mcb_xform *X;      /* link frames in world */
    double *S;         /* 6 per link: joint subspace column (world, origin) */
    double Sb[36];     /* floating base: six columns of 6 */
    sp_inertia *I;     /* per link, world */
    /* workspaces of crba and rnea (written through a const robot) */
    sp_inertia *Ic;
    double *V, *A, *F; /* 6 per link */
    double *Jik;       /* 6 x ndof: the inverse kinematics' Jacobian */
    mcb_shape *shapes;
    int nshapes, cap_shapes;
};

/* ---- small spatial helpers (world coordinates at the origin) ---- */

static double dot6(const double a[6], const double b[6])
{
    double s = 0;
    for (int i = 0; i < 6; i++) s += a[i] * b[i];
    return s;
}

/* f = I m: a spatial inertia times a motion vector */
static void inertia_apply(const sp_inertia *I, const double m[6], double f[6])
{
    double t[3], u[3];
    mcb_m3_vec(I->Io, m, t);
    mcb_v3_cross(I->h, m + 3, u);
    double w[3] = {t[0] + u[0], t[1] + u[1], t[2] + u[2]};
    mcb_v3_cross(I->h, m, u);
    for (int i = 0; i < 3; i++) {
        f[i] = w[i];
        f[3 + i] = I->m * m[3 + i] - u[i];
    }
}

static void inertia_add(sp_inertia *a, const sp_inertia *b)
{
    a->m += b->m;
    for (int i = 0; i < 3; i++) a->h[i] += b->h[i];
    for (int i = 0; i < 9; i++) a->Io[i] += b->Io[i];
}

/* c = a x m (motion cross product, Featherstone eq. 2.31) */
static void cross_motion(const double a[6], const double m[6], double c[6])
{
    double t[3], u[3];
    mcb_v3_cross(a, m, c); /* a_w x m_w */
    mcb_v3_cross(a, m + 3, t);
    mcb_v3_cross(a + 3, m, u);
    for (int i = 0; i < 3; i++) c[3 + i] = t[i] + u[i];
}

/* c = a x* f (force cross product, Featherstone eq. 2.32) */
static void cross_force(const double a[6], const double f[6], double c[6])
{
    double t[3], u[3], w[3];
    mcb_v3_cross(a, f, t);
    mcb_v3_cross(a + 3, f + 3, u);
    mcb_v3_cross(a, f + 3, w);
    for (int i = 0; i < 3; i++) {
        c[i] = t[i] + u[i];
        c[3 + i] = w[i];
    }
}

/* The subspace columns of link k: their count (0, 1 or 6), the columns
 * (6 doubles each, contiguous) and the velocity index of the first. */
static int link_cols(const mcb_robot *r, int k, const double **S, int *first)
{
    if (r->floating && k == 0) {
        *S = r->Sb;
        *first = 0;
        return 6;
    }
    if (r->dof[k] < 0) return 0;
    *S = r->S + 6 * k;
    *first = r->dof[k];
    return 1;
}

/* ---- creation, accessors ---- */

static mcb_rc check_links(int floating, const mcb_link *links, int nlinks, mcb_err *err)
{
    if (!links || nlinks < 1) return mcb_fail(err, MCB_E_INPUT, "robot: no links");
    for (int k = 0; k < nlinks; k++) {
        const mcb_link *l = &links[k];
        if (l->parent < -1 || l->parent >= k)
            return mcb_fail(err, MCB_E_INPUT, "robot: link %d (%s) has parent %d, expected -1..%d",
                            k, l->name, l->parent, k - 1);
        if (floating && k == 0 && l->parent != -1)
            return mcb_fail(err, MCB_E_INPUT, "robot: a floating base link 0 needs parent -1");
        if (floating && k > 0 && l->parent < 0)
            return mcb_fail(err, MCB_E_INPUT,
                            "robot: link %d (%s) of a floating robot has no parent link", k,
                            l->name);
        int base_link = floating && k == 0;
        if (!base_link && (l->joint < MCB_JOINT_REVOLUTE || l->joint > MCB_JOINT_FIXED))
            return mcb_fail(err, MCB_E_INPUT, "robot: link %d (%s) has joint type %d", k, l->name,
                            l->joint);
        if (!base_link && l->joint != MCB_JOINT_FIXED && !(mcb_v3_norm(l->axis) > 1e-12))
            return mcb_fail(err, MCB_E_INPUT, "robot: link %d (%s) has a zero joint axis", k,
                            l->name);
        if (!(l->mass_kg >= 0) || !isfinite(l->mass_kg))
            return mcb_fail(err, MCB_E_INPUT, "robot: link %d (%s) has mass %g", k, l->name,
                            l->mass_kg);
        int finite = 1;
        for (int i = 0; i < 9; i++)
            finite &= isfinite(l->inertia[i]) && isfinite(l->placement.R[i]);
        for (int i = 0; i < 3; i++)
            finite &= isfinite(l->com[i]) && isfinite(l->placement.p[i]) && isfinite(l->axis[i]);
        if (!finite)
            return mcb_fail(err, MCB_E_INPUT,
                            "robot: link %d (%s) has a non-finite inertia, centre of mass, "
                            "placement or axis",
                            k, l->name);
        for (int i = 0; i < 3; i++)
            if (l->inertia[4 * i] < 0)
                return mcb_fail(err, MCB_E_INPUT, "robot: link %d (%s) has inertia[%d] = %g < 0", k,
                                l->name, 4 * i, l->inertia[4 * i]);
    }
    return MCB_OK;
}

mcb_rc mcb_robot_new(const char *name, int floating, const mcb_xform *base, const mcb_link *links,
                     int nlinks, mcb_robot **out, mcb_err *err)
{
    if (!out) return mcb_fail(err, MCB_E_INPUT, "robot: no output pointer");
    *out = NULL;
    mcb_rc rc = check_links(floating, links, nlinks, err);
    if (rc) return rc;
    mcb_robot *r = mcb_calloc(1, sizeof *r);
    if (!r) return mcb_fail(err, MCB_E_NOMEM, "robot: out of memory");
    snprintf(r->name, sizeof r->name, "%s", name ? name : "robot");
    r->floating = floating ? 1 : 0;
    r->nlinks = nlinks;
    r->base = base ? *base : mcb_xform_identity();
    r->links = mcb_calloc((size_t)nlinks, sizeof *r->links);
    r->dof = mcb_calloc((size_t)nlinks, sizeof *r->dof);
    r->qidx = mcb_calloc((size_t)nlinks, sizeof *r->qidx);
    r->X = mcb_calloc((size_t)nlinks, sizeof *r->X);
    r->S = mcb_calloc(6 * (size_t)nlinks, sizeof *r->S);
    r->I = mcb_calloc((size_t)nlinks, sizeof *r->I);
    r->Ic = mcb_calloc((size_t)nlinks, sizeof *r->Ic);
    r->V = mcb_calloc(6 * (size_t)nlinks, sizeof *r->V);
    r->A = mcb_calloc(6 * (size_t)nlinks, sizeof *r->A);
    r->F = mcb_calloc(6 * (size_t)nlinks, sizeof *r->F);
    if (!r->links || !r->dof || !r->qidx || !r->X || !r->S || !r->I || !r->Ic || !r->V || !r->A ||
        !r->F) {
        mcb_robot_free(&r);
        return mcb_fail(err, MCB_E_NOMEM, "robot: out of memory");
    }
    memcpy(r->links, links, (size_t)nlinks * sizeof *links);
    int nv = 6 * r->floating, np = 7 * r->floating, nj = 0;
    for (int k = 0; k < nlinks; k++) {
        mcb_link *l = &r->links[k];
        l->name[sizeof l->name - 1] = '\0';
        r->total_mass_kg += l->mass_kg;
        r->dof[k] = r->qidx[k] = -1;
        if ((r->floating && k == 0) || l->joint == MCB_JOINT_FIXED) continue;
        double n = mcb_v3_norm(l->axis);
        for (int i = 0; i < 3; i++) l->axis[i] /= n;
        r->dof[k] = nv++;
        r->qidx[k] = np++;
        nj++;
    }
    r->ndof = nv, r->nq = np, r->nj = nj;
    r->q = mcb_calloc((size_t)np, sizeof *r->q);
    r->v = mcb_calloc((size_t)nv, sizeof *r->v);
    r->q_ref = mcb_calloc(nj > 0 ? (size_t)nj : 1, sizeof *r->q_ref);
    r->v_ref = mcb_calloc(nj > 0 ? (size_t)nj : 1, sizeof *r->v_ref);
    r->Jik = mcb_calloc(6 * (size_t)nv + 1, sizeof *r->Jik);
    if (!r->q || !r->v || !r->q_ref || !r->v_ref || !r->Jik) {
        mcb_robot_free(&r);
        return mcb_fail(err, MCB_E_NOMEM, "robot: out of memory");
    }
    if (r->floating) r->q[3] = 1.0; /* identity quaternion */
    mcb_robot_update(r);
    *out = r;
    return MCB_OK;
}

void mcb_robot_free(mcb_robot **rp)
{
    if (!rp || !*rp) return;
    mcb_robot *r = *rp;
    free(r->links), free(r->dof), free(r->qidx), free(r->X), free(r->S), free(r->I), free(r->Ic);
    free(r->V), free(r->A), free(r->F), free(r->q), free(r->v), free(r->q_ref), free(r->v_ref);
    free(r->shapes), free(r->Jik);
    free(r);
    *rp = NULL;
}

const char *mcb_robot_name(const mcb_robot *r) { return r->name; }
int mcb_robot_nlinks(const mcb_robot *r) { return r->nlinks; }
const mcb_link *mcb_robot_link(const mcb_robot *r, int k)
{
    return k >= 0 && k < r->nlinks ? &r->links[k] : NULL;
}
int mcb_robot_ndof(const mcb_robot *r) { return r->ndof; }
int mcb_robot_nq(const mcb_robot *r) { return r->nq; }
int mcb_robot_floating(const mcb_robot *r) { return r->floating; }
int mcb_robot_dof_of_link(const mcb_robot *r, int k)
{
    return k >= 0 && k < r->nlinks ? r->dof[k] : -1;
}
double mcb_robot_total_mass(const mcb_robot *r) { return r->total_mass_kg; }
double *mcb_robot_q(mcb_robot *r) { return r->q; }
double *mcb_robot_v(mcb_robot *r) { return r->v; }
double *mcb_robot_q_ref(mcb_robot *r) { return r->q_ref; }
double *mcb_robot_v_ref(mcb_robot *r) { return r->v_ref; }
const mcb_xform *mcb_robot_link_pose(const mcb_robot *r, int k)
{
    return k >= 0 && k < r->nlinks ? &r->X[k] : NULL;
}

/* ---- forward kinematics (Featherstone Sec. 4.x: X_k = X_parent P_k J(q_k)) ---- */

/* Link k's spatial inertia in world about the origin from its pose. */
static void world_inertia(const mcb_link *l, const mcb_xform *X, sp_inertia *I)
{
    double c[3], Ic[9];
    mcb_xform_point(X, l->com, c);
    mcb_m3_rotate_sym(X->R, l->inertia, Ic);
    double m = l->mass_kg, cc = mcb_v3_dot(c, c);
    I->m = m;
    for (int i = 0; i < 3; i++) I->h[i] = m * c[i];
    /* parallel axis: Io = Ic + m (|c|^2 1 - c c^T) (Featherstone eq. 2.63) */
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            I->Io[3 * i + j] = Ic[3 * i + j] + m * ((i == j) * cc - c[i] * c[j]);
}

static void base_columns(mcb_robot *r)
{
    const double *p = r->X[0].p;
    memset(r->Sb, 0, sizeof r->Sb);
    for (int i = 0; i < 3; i++) {
        r->Sb[6 * i + 3 + i] = 1.0; /* linear velocity of the base origin */
        double e[3] = {0, 0, 0}, pe[3];
        e[i] = 1.0;
        mcb_v3_cross(p, e, pe);
        double *col = r->Sb + 6 * (3 + i); /* angular velocity about the base origin */
        col[i] = 1.0;
        for (int j = 0; j < 3; j++) col[3 + j] = pe[j];
    }
}

void mcb_robot_update(mcb_robot *r)
{
    for (int k = 0; k < r->nlinks; k++) {
        const mcb_link *l = &r->links[k];
        mcb_xform *X = &r->X[k];
        double *S = r->S + 6 * k;
        memset(S, 0, 6 * sizeof *S);
        if (r->floating && k == 0) {
            double quat[4] = {1, 0, 0, 0}, n2 = 0;
            for (int i = 0; i < 4; i++) n2 += r->q[3 + i] * r->q[3 + i];
            if (n2 > 0) /* tolerate a quaternion written unnormalised */
                for (int i = 0; i < 4; i++) quat[i] = r->q[3 + i] / sqrt(n2);
            mcb_quat_to_mat(quat, X->R);
            memcpy(X->p, r->q, 3 * sizeof *X->p);
            world_inertia(l, X, &r->I[k]);
            continue;
        }
        const mcb_xform *Xp = l->parent < 0 ? &r->base : &r->X[l->parent];
        mcb_xform Xj = mcb_xform_compose(Xp, &l->placement);
        double a[3];
        mcb_m3_vec(Xj.R, l->axis, a);
        if (l->joint == MCB_JOINT_REVOLUTE) {
            double qt[4];
            mcb_xform J = mcb_xform_identity();
            mcb_quat_from_axis_angle(l->axis, r->q[r->qidx[k]], qt);
            mcb_quat_to_mat(qt, J.R);
            *X = mcb_xform_compose(&Xj, &J);
            double pa[3];
            mcb_v3_cross(X->p, a, pa);
            for (int i = 0; i < 3; i++) S[i] = a[i], S[3 + i] = pa[i];
        } else if (l->joint == MCB_JOINT_PRISMATIC) {
            *X = Xj;
            for (int i = 0; i < 3; i++) {
                X->p[i] += a[i] * r->q[r->qidx[k]];
                S[3 + i] = a[i];
            }
        } else {
            *X = Xj;
        }
        world_inertia(l, X, &r->I[k]);
    }
    if (r->floating) base_columns(r);
}

/* ---- CRBA (Featherstone Table 6.2, in world coordinates) ---- */

void mcb_robot_crba(const mcb_robot *r, double *H)
{
    int n = r->ndof;
    memset(H, 0, (size_t)n * (size_t)n * sizeof *H);
    /* composite inertias: I^c_k = I_k + sum of the children's (eq. 6.x) */
    memcpy(r->Ic, r->I, (size_t)r->nlinks * sizeof *r->Ic);
    for (int k = r->nlinks - 1; k > 0; k--)
        if (r->links[k].parent >= 0) inertia_add(&r->Ic[r->links[k].parent], &r->Ic[k]);
    for (int k = 0; k < r->nlinks; k++) {
        const double *Sk;
        int jk, nk = link_cols(r, k, &Sk, &jk);
        for (int c = 0; c < nk; c++) {
            double F[6];
            int j = jk + c;
            inertia_apply(&r->Ic[k], Sk + 6 * c, F); /* F = I^c_k S_j */
            for (int d = c; d < nk; d++) { /* exactly symmetric */
                double h = dot6(Sk + 6 * d, F);
                H[(size_t)(jk + d) + (size_t)j * n] = h;
                H[(size_t)j + (size_t)(jk + d) * n] = h;
            }
            /* H_ij = S_i^T F for every ancestor joint i (no transform needed in
             * world coordinates) */
            for (int a = r->links[k].parent; a >= 0; a = r->links[a].parent) {
                const double *Sa;
                int ja, na = link_cols(r, a, &Sa, &ja);
                for (int d = 0; d < na; d++) {
                    double h = dot6(Sa + 6 * d, F);
                    H[(size_t)(ja + d) + (size_t)j * n] = h;
                    H[(size_t)j + (size_t)(ja + d) * n] = h;
                }
            }
        }
    }
}

/* ---- RNEA (Featherstone Table 5.1, in world coordinates) ---- */

void mcb_robot_rnea(const mcb_robot *r, const double *a, const double g[3], double *tau)
{
    const double *v = r->v;
    /* forward pass: velocities, accelerations (gravity as a fictitious base
     * acceleration -g, Sec. 5.3), and the net body forces */
    for (int k = 0; k < r->nlinks; k++) {
        const mcb_link *l = &r->links[k];
        double *V = r->V + 6 * k, *A = r->A + 6 * k, *F = r->F + 6 * k;
        if (r->floating && k == 0) {
            /* V = Sb u; A = Sb u' + d(Sb)/dt u = Sb u' + [0; v_p x w] */
            double vw[3];
            mcb_v3_cross(v, v + 3, vw);
            for (int i = 0; i < 6; i++) {
                V[i] = 0;
                A[i] = i < 3 ? 0 : -g[i - 3] + vw[i - 3];
            }
            for (int c = 0; c < 6; c++)
                for (int i = 0; i < 6; i++) {
                    V[i] += r->Sb[6 * c + i] * v[c];
                    if (a) A[i] += r->Sb[6 * c + i] * a[c];
                }
        } else {
            if (l->parent < 0) {
                for (int i = 0; i < 6; i++) V[i] = 0, A[i] = i < 3 ? 0 : -g[i - 3];
            } else {
                memcpy(V, r->V + 6 * l->parent, 6 * sizeof *V);
                memcpy(A, r->A + 6 * l->parent, 6 * sizeof *A);
            }
            int j = r->dof[k];
            if (j >= 0) {
                const double *S = r->S + 6 * k;
                double vs[6];
                cross_motion(V, S, vs); /* (v_parent x S) qd = (v_k x S) qd */
                for (int i = 0; i < 6; i++) {
                    V[i] += S[i] * v[j];
                    A[i] += S[i] * (a ? a[j] : 0.0) + vs[i] * v[j];
                }
            }
        }
        /* f = I a + v x* I v (eq. 5.9) */
        double IV[6], vf[6];
        inertia_apply(&r->I[k], A, F);
        inertia_apply(&r->I[k], V, IV);
        cross_force(V, IV, vf);
        for (int i = 0; i < 6; i++) F[i] += vf[i];
    }
    /* backward pass: tau_i = S_i^T f_i, f_parent += f_i */
    for (int k = r->nlinks - 1; k >= 0; k--) {
        const double *Sk;
        int jk, nk = link_cols(r, k, &Sk, &jk);
        for (int c = 0; c < nk; c++) tau[jk + c] = dot6(Sk + 6 * c, r->F + 6 * k);
        int p = r->links[k].parent;
        if (p >= 0)
            for (int i = 0; i < 6; i++) r->F[6 * p + i] += r->F[6 * k + i];
    }
}

/* ---- link Jacobian ---- */

void mcb_robot_link_jacobian(const mcb_robot *r, int k, double *Jk)
{
    memset(Jk, 0, 6 * (size_t)r->ndof * sizeof *Jk);
    if (k < 0 || k >= r->nlinks) return;
    const double *p = r->X[k].p;
    for (int a = k; a >= 0; a = r->links[a].parent) {
        const double *Sa;
        int ja, na = link_cols(r, a, &Sa, &ja);
        for (int d = 0; d < na; d++) {
            const double *S = Sa + 6 * d;
            double *col = Jk + 6 * (size_t)(ja + d), wp[3];
            /* velocity of the point p: v_O + w x p */
            mcb_v3_cross(S, p, wp);
            for (int i = 0; i < 3; i++) {
                col[i] = S[3 + i] + wp[i];
                col[3 + i] = S[i];
            }
        }
    }
}

/* ---- integration ---- */

void mcb_robot_integrate(mcb_robot *r, const double *v, double h)
{
    if (r->floating) {
        for (int i = 0; i < 3; i++) r->q[i] += h * v[i];
        mcb_quat_integrate(r->q + 3, v + 3, h);
    }
    for (int k = 0; k < r->nlinks; k++)
        if (r->dof[k] >= 0) r->q[r->qidx[k]] += h * v[r->dof[k]];
    mcb_robot_update(r);
}

/* ---- inverse kinematics (damped least squares) ---- */

/* The rotation vector taking the link's frame R to Rt: the axis-angle of
 * E = Rt R^T from its skew part and trace. */
static void frame_error(const double R[9], const double Rt[9], double e[3])
{
    double E[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++) s += Rt[3 * i + k] * R[3 * j + k];
            E[3 * i + j] = s;
        }
    double v[3] = {0.5 * (E[7] - E[5]), 0.5 * (E[2] - E[6]), 0.5 * (E[3] - E[1])};
    double sn = mcb_v3_norm(v), cs = 0.5 * (E[0] + E[4] + E[8] - 1);
    double ang = atan2(sn, cs);
    for (int i = 0; i < 3; i++) e[i] = sn > 1e-14 ? v[i] / sn * ang : v[i];
}

/* The rotation vector taking the direction d to the direction dt (about
 * d x dt; about a normal of d when they are opposite). */
static void axis_error(const double d[3], const double dt[3], double e[3])
{
    double c[3];
    mcb_v3_cross(d, dt, c);
    double sn = mcb_v3_norm(c), cs = mcb_v3_dot(d, dt);
    double ang = atan2(sn, cs);
    if (sn > 1e-12) {
        for (int i = 0; i < 3; i++) e[i] = c[i] / sn * ang;
    } else if (cs < 0) {
        double t1[3], t2[3];
        mcb_frame_tangents(d, t1, t2);
        for (int i = 0; i < 3; i++) e[i] = t1[i] * ang;
    } else {
        e[0] = e[1] = e[2] = 0;
    }
}

double mcb_robot_ik_error(const mcb_robot *r, const mcb_ik_target *t, double e[6])
{
    double own[6];
    if (!e) e = own;
    const mcb_xform *X = &r->X[t->link];
    double p[3];
    mcb_xform_point(X, t->point, p);
    for (int i = 0; i < 3; i++) e[i] = t->p[i] - p[i];
    if (t->orient == MCB_IK_AXIS) {
        double d[3];
        mcb_m3_vec(X->R, t->axis, d);
        axis_error(d, t->dir, e + 3);
    } else {
        frame_error(X->R, t->R, e + 3);
    }
    return mcb_v3_norm(e) + 0.1 * mcb_v3_norm(e + 3);
}

/* One iteration (articulated.h); returns the error measure before it. */
static double ik_iterate(mcb_robot *r, const mcb_ik_target *t)
{
    int n = r->ndof;
    double e[6], *Jk = r->Jik;
    double err = mcb_robot_ik_error(r, t, e);
    mcb_robot_link_jacobian(r, t->link, Jk);
    double rl[3];
    mcb_m3_vec(r->X[t->link].R, t->point, rl);
    for (int j = 0; j < n; j++) { /* the point's velocity: v_o + w x rl */
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
    for (int j = 0; j < n; j++) {
        double dq = 0;
        for (int a = 0; a < 6; a++) dq += Jk[6 * j + a] * y[a];
        r->q[j] += fmax(-0.2, fmin(0.2, dq));
    }
    mcb_robot_update(r);
    return err;
}

static int ik_usable(const mcb_robot *r, const mcb_ik_target *t)
{
    return r && t && !r->floating && t->link >= 0 && t->link < r->nlinks;
}

double mcb_robot_ik_solve(mcb_robot *r, const mcb_ik_target *t, int iters)
{
    if (!ik_usable(r, t)) return NAN;
    for (int k = 0; k < iters; k++)
        if (ik_iterate(r, t) < t->tol) break;
    return mcb_robot_ik_error(r, t, NULL);
}

double mcb_robot_ik_seeded(mcb_robot *r, const mcb_ik_target *t, const double *seeds, int nseeds,
                           int seed_len, int iters, double accept)
{
    if (!ik_usable(r, t) || !seeds) return NAN;
    double best = INFINITY;
    for (int s = 0; s < nseeds; s++) {
        for (int j = 0; j < r->nq; j++) r->q[j] = j < seed_len ? seeds[s * seed_len + j] : 0;
        mcb_robot_update(r);
        best = mcb_robot_ik_solve(r, t, iters);
        if (best < accept) break;
    }
    return best;
}

/* ---- shapes ---- */

mcb_rc mcb_robot_add_shape(mcb_robot *r, const mcb_shape *s, mcb_err *err)
{
    if (!r || !s) return mcb_fail(err, MCB_E_INPUT, "robot: add_shape without robot or shape");
    if (s->body < 0 || s->body >= r->nlinks)
        return mcb_fail(err, MCB_E_INPUT, "robot %s: shape on link %d of %d", r->name, s->body,
                        r->nlinks);
    if (r->nshapes == r->cap_shapes) {
        int cap = r->cap_shapes ? 2 * r->cap_shapes : 8;
        mcb_shape *ns = realloc(r->shapes, (size_t)cap * sizeof *ns);
        if (!ns) return mcb_fail(err, MCB_E_NOMEM, "robot %s: out of memory", r->name);
        r->shapes = ns;
        r->cap_shapes = cap;
    }
    r->shapes[r->nshapes++] = *s;
    return MCB_OK;
}

const mcb_shape *mcb_robot_shapes(const mcb_robot *r, int *count)
{
    if (count) *count = r ? r->nshapes : 0;
    return r ? r->shapes : NULL;
}

/* ---- lookup ---- */

int mcb_robot_link_index(const mcb_robot *r, const char *name)
{
    if (!r || !name) return -1;
    for (int k = 0; k < r->nlinks; k++)
        if (!strcmp(r->links[k].name, name)) return k;
    return -1;
}

void mcb_robot_track(mcb_robot *r, const double *q_new, const double *q_old, double h)
{
    if (!r) return;
    int nj = mcb_robot_ndof(r) - 6 * mcb_robot_floating(r);
    double *qr = mcb_robot_q_ref(r), *vr = mcb_robot_v_ref(r);
    for (int j = 0; j < nj; j++) {
        qr[j] = q_new[j];
        vr[j] = (q_new[j] - q_old[j]) / h;
    }
}

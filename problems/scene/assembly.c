/* assembly.c: stages 1-4 of the scene engine's step (CANAL paper eq. (2),
 * Sec. II; docs/stepping.md), at the current state (q_k, v_k):
 *   1. layout and poses: robots' forward kinematics, every body frame in
 *      world, the DOF offsets and the subsystems;
 *   2. contacts: mcb_contacts_detect over every shape, then
 *      mcb_contacts_cluster with the world's caps;
 *   3. dynamics: with v^ = theta v_k + (1 - theta) v_{k+1},
 *        A = M / (1 - theta) + diag(h kd + h^2 kp)   (joint PD, implicit)
 *        b = M v_k / (1 - theta) + h f
 *      f = [m g + f_ext; tau_ext - w x I w] for a rigid body,
 *      f = -c(q, v) - kp (q - q_ref) + kd v_ref for a robot (c by RNEA),
 *      a mesh's mass, damping and co-rotational stiffness (fem.c);
 *   4. constraints: rows [n, t1, t2] per contact, then the joints' rows,
 *      J = Jc Jb (eq. (30)-(31)), e_n = erp gap / h plus the velocity of
 *      kinematic bodies.
 * step.c solves, records and advances. Buffers live in the world
 * (world_internal.h) and grow as needed. */
#include <math.h>
#include <string.h>

#include "problems/scene/body.h"
#include "problems/scene/world_internal.h"

/* ---------- step 1: layout and poses ---------- */

/* Sizes the per-body buffers, the DOF offsets and the subsystems; fills
 * every body pose. Returns n (DOFs) in *n and the subsystem count in *nsub. */
mcb_rc mcb_world_layout(mcb_world *w, int *n, int *nsub, mcb_err *err)
{
    int nb = w->nrigid + w->nlinks + w->nnodes;
    int c2 = w->cap_bodies, c3 = w->cap_bodies, c4 = w->cap_bodies;
    if (!mcb_world_grow((void **)&w->pose, &w->cap_pose, nb, sizeof *w->pose) ||
        !mcb_world_grow((void **)&w->body_dof, &c2, nb, sizeof(int)) ||
        !mcb_world_grow((void **)&w->body_robot, &c3, nb, sizeof(int)) ||
        !mcb_world_grow((void **)&w->body_link, &c4, nb, sizeof(int)) ||
        !mcb_world_grow((void **)&w->body_sub, &w->cap_bodies, nb, sizeof(int)))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int rc2 = w->cap_rob_buf;
    if (!mcb_world_grow((void **)&w->robot_dof, &rc2, w->nrobots, sizeof(int)) ||
        !mcb_world_grow((void **)&w->robot_sub, &w->cap_rob_buf, w->nrobots, sizeof(int)) ||
        !mcb_world_grow((void **)&w->sub_start, &w->cap_sub, nb + w->nfems + 1, sizeof(int)))
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

/* 1 for a body with DOFs (not static, not kinematic); after layout(). */
static int is_dof_body(const mcb_world *w, int body)
{
    return body >= 0 && w->body_sub[body] >= 0;
}


mcb_rc mcb_world_detect(mcb_world *w, mcb_err *err)
{
    int ns = w->nshapes;
    for (int r = 0; r < w->nrobots; r++) {
        int c = 0;
        mcb_robot_shapes(w->robots[r], &c);
        ns += c;
    }
    int cap = w->cap_sh;
    if (!mcb_world_grow((void **)&w->sh, &cap, ns, sizeof *w->sh) ||
        !mcb_world_grow((void **)&w->X, &w->cap_sh, ns, sizeof *w->X))
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
    mcb_rc rc = mcb_contacts_detect_cached(w->sh, w->X, ns, w->o.margin_m, &w->samples, &w->con,
                                           &w->ncon, &w->cap_con, err);
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
            if ((M[6 * r + c] != 0.0 || r == c) &&
                !mcb_world_push(w, t, d + r, d + c, s * M[6 * r + c]))
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
            if ((x != 0.0 || i == j) && !mcb_world_push(w, t, d + i, d + j, x)) return 0;
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
        if (!mcb_world_push(w, t, d + ti[q], d + tj[q], tx[q]))
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    memcpy(b + d, bf, (size_t)nd * sizeof(double));
    return MCB_OK;
}

mcb_rc mcb_world_assemble_dynamics(mcb_world *w, mcb_problem *P, mcb_err *err)
{
    int n = P->n, t = 0;
    int md = max_robot_dof(w);
    if (!mcb_world_grow((void **)&w->dense, &w->cap_dense, md * md + 6 * md + md + 1,
                        sizeof(double)))
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
        if (c[q] != 0.0 && !mcb_world_push(w, t, row, 6 * body + q, c[q])) return 0;
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

mcb_rc mcb_world_assemble_constraints(mcb_world *w, mcb_problem *P, mcb_err *err)
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
        if (isfinite(C->mu2)) { /* the shape's friction axes: t1 along its axis1, t2 = n x t1 */
            memcpy(dir[1], C->t1, sizeof dir[1]);
            mcb_v3_cross(C->n, dir[1], dir[2]);
        } else {
            mcb_frame_tangents(C->n, dir[1], dir[2]);
        }
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
                    if (!mcb_world_push(w, &t, row, 6 * body + q, sg * dir[k][q]) ||
                        !mcb_world_push(w, &t, row, 6 * body + 3 + q, sg * rxd[q]))
                        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
            }
        }
        P->e[3 * c] += w->o.erp * C->gap / h;
        P->blocks[c] = (mcb_block){MCB_CONTACT, 3 * c, 3, C->mu, 0.0, 0.0};
    }
    if (nc && w->o.contact_compliance > 0) { /* the invertible contact model */
        if (!(P->r = mcb_calloc((size_t)m, sizeof(double))))
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        for (int i = 0; i < 3 * nc; i++) P->r[i] = w->o.contact_compliance;
    }
    if (!assemble_joints(w, P, &t)) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    /* anisotropic friction (format 5's constraints/mu2): only when some
     * contact is anisotropic, so that isotropic scenes record what they did */
    for (int c = 0; c < nc && !P->mu2; c++)
        if (isfinite(w->con[c].mu2)) {
            if (!(P->mu2 = mcb_malloc((size_t)P->nblocks + 1, sizeof(double))))
                return mcb_fail(err, MCB_E_NOMEM, "out of memory");
            for (int b = 0; b < P->nblocks; b++) P->mu2[b] = NAN;
            for (int b = 0; b < nc; b++)
                if (isfinite(w->con[b].mu2)) P->mu2[b] = w->con[b].mu2;
        }
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
            if (!mcb_world_push(w, &t, 6 * k + q, w->body_dof[k] + q, 1.0))
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
                    if (x != 0.0 && !mcb_world_push(w, &t, 6 * b + q, d + j, x))
                        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
                }
        }
    }
    /* a mesh node's twist is [its velocity; 0] */
    for (int b = w->nrigid + w->nlinks; b < nb; b++) {
        P->body_parent[b] = -1;
        P->body_sub[b] = w->body_sub[b];
        for (int q = 0; q < 3; q++)
            if (!mcb_world_push(w, &t, 6 * b + q, w->body_dof[b] + q, 1.0))
                return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    P->Jb = mcb_csc_from_triplets(6 * nb, n, t, w->ti, w->tj, w->tx);
    if (!P->Jb) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    P->J = mcb_csc_multiply(P->Jc, P->Jb);
    if (!P->J) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    return MCB_OK;
}

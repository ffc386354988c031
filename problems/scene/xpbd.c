/* xpbd.c: one world step advanced by extended position-based dynamics
 * with substeps (xpbd.h; docs/closed-loop.md, "Whole-step methods"). The
 * COND paper's PBD baseline (Sec. V-E2, Table VIII) follows its reference
 * [68], Macklin et al. 2019 "Small steps in physics simulation" (M19): the
 * step h is cut into N substeps of h_s = h / N with one constraint
 * iteration each (M19's algorithm), and the rigid-body constraints and
 * contacts of Müller et al. 2020 "Detailed rigid body simulation with
 * extended position based dynamics" (M20). Compliant rows follow Macklin,
 * Müller, Chentanez 2016 "XPBD" (X16). Per substep:
 *   1. predict (M20's substep loop): v += h_s f_ext / m, x += h_s v;
 *      w += h_s I^-1 (tau_ext - w x I w), q += h_s / 2 [w, 0] q, normalised;
 *      kinematic bodies (robot links, scripted bodies) placed on their path;
 *   2. `iters` times: every joint, then every contact (below);
 *   3. velocities from positions (M20's substep loop): v = (x - x_prev) / h_s,
 *      w = 2 vec(q q_prev^-1) / h_s (sign of its real part);
 *   4. velocity pass (M20, its velocity solve): dynamic friction and restitution at
 *      the contacts that were active.
 * Joint rows (world.h: point rows along body a's axes, angular rows of the
 * rotation vector) are the engine's own rows (joint.c: violation C = phi,
 * gradient the row of J on the two bodies' twists), projected per joint as
 * one block (M20 applies a joint's positional correction as one vector; a
 * point joint and the angular joint after it on the same bodies, a weld
 * or a rod's coupling, together as one block of six rows: block_joints):
 *   [(1 + gamma) W + diag(alpha~)] dlambda = -C - alpha~ lambda - gamma (C - C_0)
 * with W = J_a M_a^-1 J_a^T + J_b M_b^-1 J_b^T (M20's
 * generalized inverse masses), alpha~ = 1 / (K h_s^2) (X16 eq. (18); 0 for
 * a hard row), gamma = alpha~ (D h_s^2) / h_s = D / (K h_s) (X16 eq. (26),
 * Rayleigh damping; C_0 the row at the substep's start), then
 * x += M^-1 J^T dlambda, q += 1/2 [I^-1 J_ang^T dlambda, 0] q (M20's
 * position and quaternion updates). A contact (M20, contacts and
 * friction): the two points r_a, r_b fixed in their bodies at detection
 * and the normal n of the step's detection;
 * d = (p_a - p_b) . n; when d < 0, dlambda_n = -d / w (alpha = 0); static
 * friction: the tangential part dp_t of the points' relative motion over
 * the substep is undone, dlambda_t = -|dp_t| / w_t, only while
 * |lambda_t + dlambda_t| < mu lambda_n (M20's static friction); the velocity
 * pass: the normal relative velocity removed (M20's restitution rule with
 * e = 0: the engine's contacts are plastic), then dynamic friction as an
 * impulse against v_t bounded by mu times the substep's normal impulse
 * (M20's dynamic friction read as Coulomb's impulse bound:
 * contact_velocity says why). M20 is
 * cited by its rules, not its equation numbers (our copy of the paper was
 * not at hand to check them).
 * The hard and soft joints' multipliers are summed over the substeps as
 * impulses (lambda / h_s each) into the world's joint impulses, so that a
 * scene's outcome that reads them (franka-cable's hand force) is measured
 * as for the solvers. The depth the step leaves is max(0, -d) over the
 * step's contacts at the final poses.
 *
 * Robots: XPBD has no generalized-coordinate form (COND Sec. I). The arm's
 * DOFs advance by the engine's own dynamics without the constraint rows
 * (A v^ = b: its PD and inertia; step.c); its links then act on the free
 * bodies as kinematic bodies moving from their start to their end pose
 * over the substeps (position interpolated linearly, orientation by
 * normalised quaternion interpolation). The free bodies' pull on the arm
 * (opts.reaction, default on) is a staggered coupling, as co-simulations
 * couple two integrators: the joint impulses XPBD summed in the previous
 * step (the world's joint impulses) act on the robots' dynamics of this
 * step, b += J_robot^T lambda_prev (step.c, step_xpbd), one step late;
 * contacts between robot links and free bodies push the bodies only.
 * The world's theta (eq. (2)) applies to the robots only: the free bodies
 * take XPBD's own implicit position update. Refused (MCB_E_INPUT, naming
 * the reason): meshes (FEM nodes), rolling joints. No allocation inside
 * the substep loop (one workspace grown per step); deterministic
 * (sequential, fixed order). */
#include "problems/scene/xpbd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_timer.h"
#include "problems/scene/joint.h"
#include "problems/scene/body.h"
#include "problems/scene/spatial.h"
#include "problems/scene/world_internal.h"

void mcb_xpbd_defaults(mcb_xpbd_opts *o)
{
    if (!o) return;
    o->substeps = 20;
    o->iters = 1;
    o->reaction = 1;
}

mcb_rc mcb_xpbd_check(const mcb_xpbd_opts *o, mcb_err *err)
{
    if (!o) return mcb_fail(err, MCB_E_INPUT, "xpbd: NULL options");
    if (o->substeps < 1 || o->substeps > 100000)
        return mcb_fail(err, MCB_E_INPUT, "xpbd: substeps must be in [1, 100000], got %d",
                        o->substeps);
    if (o->iters < 1 || o->iters > 1000)
        return mcb_fail(err, MCB_E_INPUT, "xpbd: iters must be in [1, 1000], got %d", o->iters);
    if (o->reaction != 0 && o->reaction != 1)
        return mcb_fail(err, MCB_E_INPUT, "xpbd: reaction must be 0 or 1, got %d", o->reaction);
    return MCB_OK;
}

/* The step's workspace: per body (free rigid bodies, then robot links),
 * per contact, per joint row. */
struct mcb_xpbd_ws {
    double *buf;
    size_t cap;
    int nb, nc, nr;
    double *x, *q, *xp, *qp, *x0, *q0, *x1, *q1, *v, *w, *invm, *Ib_inv;
    double *ra, *rb, *n, *mu, *ln, *lt;
    double *lam, *c0, *imp;
    int *dyn;  /* 1: moved by XPBD; 0: kinematic */
    int *kin;  /* 1: kinematic on a path (x0 -> x1); 0: dynamic */
    int cap_int;
};

void mcb_xpbd_ws_free(struct mcb_xpbd_ws **ws)
{
    if (!ws || !*ws) return;
    free((*ws)->buf);
    free((*ws)->dyn);
    free(*ws);
    *ws = NULL;
}

static mcb_rc ws_size(mcb_world *w, int nb, int nc, int nr, mcb_err *err)
{
    if (!w->xpbd && !(w->xpbd = calloc(1, sizeof *w->xpbd)))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    struct mcb_xpbd_ws *s = w->xpbd;
    size_t need = (size_t)nb * (3 * 4 + 4 * 4 + 3 * 2 + 1 + 9) + (size_t)nc * 13 +
                  (size_t)nr * 3 + 1;
    if (need > s->cap) {
        double *b = realloc(s->buf, need * sizeof(double));
        if (!b) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        s->buf = b;
        s->cap = need;
    }
    if (2 * nb + 1 > s->cap_int) {
        int *d = realloc(s->dyn, (size_t)(2 * nb + 1) * sizeof(int));
        if (!d) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        s->dyn = d;
        s->cap_int = 2 * nb + 1;
    }
    s->kin = s->dyn + nb;
    double *p = s->buf;
#define TAKE(f, k) (s->f = p, p += (size_t)(k))
    TAKE(x, 3 * nb), TAKE(q, 4 * nb), TAKE(xp, 3 * nb), TAKE(qp, 4 * nb);
    TAKE(x0, 3 * nb), TAKE(q0, 4 * nb), TAKE(x1, 3 * nb), TAKE(q1, 4 * nb);
    TAKE(v, 3 * nb), TAKE(w, 3 * nb), TAKE(invm, nb), TAKE(Ib_inv, 9 * nb);
    TAKE(ra, 3 * nc), TAKE(rb, 3 * nc), TAKE(n, 3 * nc), TAKE(mu, nc), TAKE(ln, nc), TAKE(lt, nc);
    TAKE(lam, nr), TAKE(c0, nr), TAKE(imp, nr);
#undef TAKE
    s->nb = nb, s->nc = nc, s->nr = nr;
    return MCB_OK;
}

/* ---------- small algebra ---------- */

static void quat_normalise(double *q)
{
    double s = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] /= s;
}

/* q += 1/2 [d, 0] q, normalised (M20's quaternion update): a small world rotation d. */
static void quat_rotate(double *q, const double d[3])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    q[0] += 0.5 * (-d[0] * x - d[1] * y - d[2] * z);
    q[1] += 0.5 * (d[0] * w + d[1] * z - d[2] * y);
    q[2] += 0.5 * (d[1] * w + d[2] * x - d[0] * z);
    q[3] += 0.5 * (d[2] * w + d[0] * y - d[1] * x);
    quat_normalise(q);
}

/* Inverse of a symmetric positive definite 3x3 (cofactors). */
static void inv3(const double A[9], double B[9])
{
    double c0 = A[4] * A[8] - A[5] * A[7], c1 = A[5] * A[6] - A[3] * A[8],
           c2 = A[3] * A[7] - A[4] * A[6];
    double det = A[0] * c0 + A[1] * c1 + A[2] * c2, id = 1.0 / det;
    B[0] = c0 * id, B[3] = c1 * id, B[6] = c2 * id;
    B[1] = (A[2] * A[7] - A[1] * A[8]) * id, B[4] = (A[0] * A[8] - A[2] * A[6]) * id;
    B[7] = (A[1] * A[6] - A[0] * A[7]) * id;
    B[2] = (A[1] * A[5] - A[2] * A[4]) * id, B[5] = (A[2] * A[3] - A[0] * A[5]) * id;
    B[8] = (A[0] * A[4] - A[1] * A[3]) * id;
}

/* Body b's frame at its current (x, q); the world's frame for -1. */
static void body_xform(const struct mcb_xpbd_ws *s, int b, mcb_xform *X)
{
    if (b < 0) {
        *X = mcb_xform_identity();
        return;
    }
    mcb_quat_to_mat(s->q + 4 * b, X->R);
    memcpy(X->p, s->x + 3 * b, sizeof X->p);
}

/* y = I_world^-1 x = R Ib^-1 R^T x for a dynamic body (0 otherwise). */
static void inv_inertia(const struct mcb_xpbd_ws *s, int b, const double x[3], double y[3])
{
    if (b < 0 || !s->dyn[b]) {
        y[0] = y[1] = y[2] = 0.0;
        return;
    }
    double R[9], t[3], u[3];
    mcb_quat_to_mat(s->q + 4 * b, R);
    mcb_m3_tvec(R, x, t);
    mcb_m3_vec(s->Ib_inv + 9 * b, t, u);
    mcb_m3_vec(R, u, y);
}

/* M^-1 j for a row's coefficients j = [lin; ang] on body b's twist. */
static void minv(const struct mcb_xpbd_ws *s, int b, const double j[6], double out[6])
{
    double im = b >= 0 && s->dyn[b] ? s->invm[b] : 0.0;
    for (int k = 0; k < 3; k++) out[k] = im * j[k];
    inv_inertia(s, b, j + 3, out + 3);
}

static double dot6(const double a[6], const double b[6])
{
    double t = 0.0;
    for (int k = 0; k < 6; k++) t += a[k] * b[k];
    return t;
}

/* The correction x += M^-1 j dl (M20's updates) on a dynamic body. */
static void apply(struct mcb_xpbd_ws *s, int b, const double mj[6], double dl)
{
    if (b < 0 || !s->dyn[b]) return;
    double d[3] = {mj[3] * dl, mj[4] * dl, mj[5] * dl};
    for (int k = 0; k < 3; k++) s->x[3 * b + k] += mj[k] * dl;
    quat_rotate(s->q + 4 * b, d);
}

/* Row coefficients of a point constraint along dir at world point p on
 * body b (frame origin o): [dir; (p - o) x dir], times sign. */
static void point_row(const double dir[3], const double p[3], const double o[3], double sign,
                      double j[6])
{
    double r[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]}, c[3];
    mcb_v3_cross(r, dir, c);
    for (int k = 0; k < 3; k++) j[k] = sign * dir[k], j[3 + k] = sign * c[k];
}

/* ---------- joints (X16 eq. (18), (26); M20's joints) ---------- */

#define BLOCK_MAX 6 /* a weld: a point and an angular joint's rows */

/* Solves the n x n system A x = r (n <= BLOCK_MAX, row stride BLOCK_MAX)
 * by Gaussian elimination with partial pivoting; 0 when singular. */
static int solve_small(int n, double *A, double *r, double *x)
{
    for (int c = 0; c < n; c++) {
        int p = c;
        for (int i = c + 1; i < n; i++)
            if (fabs(A[BLOCK_MAX * i + c]) > fabs(A[BLOCK_MAX * p + c])) p = i;
        if (!(fabs(A[BLOCK_MAX * p + c]) > 0.0)) return 0;
        if (p != c) {
            for (int k = 0; k < n; k++) {
                double t = A[BLOCK_MAX * c + k];
                A[BLOCK_MAX * c + k] = A[BLOCK_MAX * p + k], A[BLOCK_MAX * p + k] = t;
            }
            double t = r[c];
            r[c] = r[p], r[p] = t;
        }
        for (int i = c + 1; i < n; i++) {
            double f = A[BLOCK_MAX * i + c] / A[BLOCK_MAX * c + c];
            for (int k = c; k < n; k++) A[BLOCK_MAX * i + k] -= f * A[BLOCK_MAX * c + k];
            r[i] -= f * r[c];
        }
    }
    for (int c = n - 1; c >= 0; c--) {
        double t = r[c];
        for (int k = c + 1; k < n; k++) t -= A[BLOCK_MAX * c + k] * x[k];
        x[c] = t / A[BLOCK_MAX * c + c];
    }
    return 1;
}

/* Joints projected together from joint q: 2 for a point joint followed by
 * an angular one on the same two bodies (a weld, a rod's coupling: one
 * linearized solve of its six rows, so that the point correction, made at
 * a short lever arm mostly by rotation, and the angular correction do not
 * work against each other within the iteration), else 1. */
static int block_joints(const mcb_world *w, int q)
{
    if (q + 1 >= w->njoints) return 1;
    const mcb_wjoint *J = &w->joints[q], *K = &w->joints[q + 1];
    return J->kind == MCB_WJ_POINT && K->kind == MCB_WJ_ANGULAR && J->body_a == K->body_a &&
                   J->body_b == K->body_b
               ? 2
               : 1;
}

/* Joint rows' violations at the current poses into c (the substep's C_0). */
static void joint_values(mcb_world *w, struct mcb_xpbd_ws *s, double *c)
{
    for (int q = 0; q < w->njoints; q++) {
        const mcb_wjoint *J = &w->joints[q];
        mcb_xform Xa, Xb;
        body_xform(s, J->body_a, &Xa);
        body_xform(s, J->body_b, &Xb);
        mcb_wjoint_eval(J, &Xa, &Xb, w->jr);
        for (int r = 0; r < mcb_wjoint_nrows(J); r++) c[w->joint_row[q] + r] = w->jr[r].phi;
    }
}

/* One projection of the rows of joints q .. q + nj - 1 (same bodies) as
 * one block. */
static void project_joints(mcb_world *w, struct mcb_xpbd_ws *s, int q, int nj, double hs)
{
    int a = w->joints[q].body_a, b = w->joints[q].body_b;
    if (!((a >= 0 && s->dyn[a]) || (b >= 0 && s->dyn[b]))) return;
    mcb_xform Xa, Xb;
    body_xform(s, a, &Xa);
    body_xform(s, b, &Xb);
    mcb_wjoint_row rows[BLOCK_MAX];
    int soft[BLOCK_MAX], lam[BLOCK_MAX], nr = 0;
    for (int k = q; k < q + nj; k++) {
        const mcb_wjoint *J = &w->joints[k];
        mcb_wjoint_eval(J, &Xa, &Xb, rows + nr);
        for (int r = 0; r < mcb_wjoint_nrows(J); r++, nr++) {
            soft[nr] = J->soft;
            lam[nr] = w->joint_row[k] + r;
        }
    }
    double ma[BLOCK_MAX][6], mb[BLOCK_MAX][6], A[BLOCK_MAX * BLOCK_MAX], rhs[BLOCK_MAX],
        dl[BLOCK_MAX] = {0};
    for (int r = 0; r < nr; r++) {
        minv(s, a, rows[r].ja, ma[r]);
        minv(s, b, rows[r].jb, mb[r]);
    }
    for (int r = 0; r < nr; r++) {
        const mcb_wjoint_row *R = &rows[r];
        double at = soft[r] ? 1.0 / (R->K * hs * hs) : 0.0;
        double ga = soft[r] ? R->D / (R->K * hs) : 0.0;
        for (int c = 0; c < nr; c++)
            A[BLOCK_MAX * r + c] = (1.0 + ga) * (dot6(R->ja, ma[c]) + dot6(R->jb, mb[c])) +
                                   (r == c ? at : 0.0);
        rhs[r] = -R->phi - at * s->lam[lam[r]] - ga * (R->phi - s->c0[lam[r]]);
    }
    if (!solve_small(nr, A, rhs, dl)) return;
    for (int r = 0; r < nr; r++) {
        apply(s, a, ma[r], dl[r]);
        apply(s, b, mb[r], dl[r]);
        s->lam[lam[r]] += dl[r];
    }
}

/* ---------- contacts (M20's contacts, friction, velocity solve) ---------- */

/* Contact c's points p_a, p_b at the current poses, or at the substep's
 * start (prev = 1). */
static void contact_points(const mcb_world *w, const struct mcb_xpbd_ws *s, int c, int prev,
                           double pa[3], double pb[3])
{
    const double *xs = prev ? s->xp : s->x, *qs = prev ? s->qp : s->q;
    int body[2] = {w->con[c].body_a, w->con[c].body_b};
    const double *r[2] = {s->ra + 3 * c, s->rb + 3 * c};
    double *p[2] = {pa, pb};
    for (int i = 0; i < 2; i++) {
        int b = body[i];
        if (b < 0) {
            memcpy(p[i], r[i], 3 * sizeof(double));
            continue;
        }
        double R[9];
        mcb_quat_to_mat(qs + 4 * b, R);
        mcb_m3_vec(R, r[i], p[i]);
        for (int k = 0; k < 3; k++) p[i][k] += xs[3 * b + k];
    }
}

static const double *origin(const struct mcb_xpbd_ws *s, int b)
{
    static const double zero[3] = {0, 0, 0};
    return b < 0 ? zero : s->x + 3 * b;
}

/* A positional correction along dir at the contact's points: returns its
 * generalized inverse mass and fills the bodies' M^-1 j. */
static double contact_row(const struct mcb_xpbd_ws *s, int a, int b, const double dir[3],
                          const double pa[3], const double pb[3], double ma[6], double mb[6])
{
    double ja[6], jb[6];
    point_row(dir, pa, origin(s, a), 1.0, ja);
    point_row(dir, pb, origin(s, b), -1.0, jb);
    minv(s, a, ja, ma);
    minv(s, b, jb, mb);
    return dot6(ja, ma) + dot6(jb, mb);
}

/* Non-penetration, then static friction (M20). */
static void project_contact(const mcb_world *w, struct mcb_xpbd_ws *s, int c)
{
    int a = w->con[c].body_a, b = w->con[c].body_b;
    double pa[3], pb[3], ma[6], mb[6];
    const double *n = s->n + 3 * c;
    contact_points(w, s, c, 0, pa, pb);
    double d = (pa[0] - pb[0]) * n[0] + (pa[1] - pb[1]) * n[1] + (pa[2] - pb[2]) * n[2];
    if (d >= 0.0) return;
    double wn = contact_row(s, a, b, n, pa, pb, ma, mb);
    if (!(wn > 0.0)) return;
    double dl = -d / wn;
    apply(s, a, ma, dl);
    apply(s, b, mb, dl); /* mb carries b's sign */
    s->ln[c] += dl;
    /* static friction: the tangential relative motion over the substep */
    double qa[3], qb[3], dp[3], t[3];
    contact_points(w, s, c, 0, pa, pb);
    contact_points(w, s, c, 1, qa, qb);
    for (int k = 0; k < 3; k++) dp[k] = (pa[k] - qa[k]) - (pb[k] - qb[k]);
    double dn = mcb_v3_dot(dp, n);
    for (int k = 0; k < 3; k++) t[k] = dp[k] - dn * n[k];
    double ct = mcb_v3_norm(t);
    if (!(ct > 0.0)) return;
    for (int k = 0; k < 3; k++) t[k] /= ct;
    double wt = contact_row(s, a, b, t, pa, pb, ma, mb);
    if (!(wt > 0.0)) return;
    double dt = -ct / wt;
    if (fabs(s->lt[c] + dt) < s->mu[c] * s->ln[c]) {
        apply(s, a, ma, dt);
        apply(s, b, mb, dt);
        s->lt[c] += dt;
    }
}

/* Velocity of body b's point p. */
static void point_vel(const struct mcb_xpbd_ws *s, int b, const double p[3], double u[3])
{
    if (b < 0) {
        u[0] = u[1] = u[2] = 0.0;
        return;
    }
    double r[3] = {p[0] - s->x[3 * b], p[1] - s->x[3 * b + 1], p[2] - s->x[3 * b + 2]}, c[3];
    mcb_v3_cross(s->w + 3 * b, r, c);
    for (int k = 0; k < 3; k++) u[k] = s->v[3 * b + k] + c[k];
}

/* An impulse of magnitude p along dir at the contact's points (+ on a,
 * - on b); ma, mb from contact_row. */
static void impulse(struct mcb_xpbd_ws *s, int a, int b, const double ma[6], const double mb[6],
                    double p)
{
    for (int i = 0; i < 2; i++) {
        int bb = i ? b : a;
        double sg = p; /* mb carries b's sign */
        const double *mj = i ? mb : ma;
        if (bb < 0 || !s->dyn[bb]) continue;
        for (int k = 0; k < 3; k++) {
            s->v[3 * bb + k] += sg * mj[k];
            s->w[3 * bb + k] += sg * mj[3 + k];
        }
    }
}

/* The relative velocity of the contact's points into u. */
static void contact_velocity_rel(const mcb_world *w, const struct mcb_xpbd_ws *s, int c,
                                 double pa[3], double pb[3], double u[3])
{
    double ua[3], ub[3];
    contact_points(w, s, c, 0, pa, pb);
    point_vel(s, w->con[c].body_a, pa, ua);
    point_vel(s, w->con[c].body_b, pb, ub);
    for (int k = 0; k < 3; k++) u[k] = ua[k] - ub[k];
}

/* The velocity pass at an active contact (M20's velocity solve, restitution
 * e = 0: the engine's contacts are plastic): first the normal velocity
 * removed, -v_n / w_n along n; then dynamic friction against the
 * tangential velocity v_t, as an impulse bounded by mu times the normal
 * impulse of the substep (the positional lambda_n / h_s plus the normal
 * impulse p_n just applied): min(mu (lambda_n / h_s + p_n), |v_t| / w_t).
 * M20 writes the bound on the velocity change as
 * h_s mu |f_n| with f_n = lambda_n / h_s^2, an impulse where a velocity is
 * meant; the two agree for a unit point mass; the impulse form is
 * Coulomb's law (a box slides to rest at mu g, test_xpbd). */
static void contact_velocity(const mcb_world *w, struct mcb_xpbd_ws *s, int c, double hs)
{
    int a = w->con[c].body_a, b = w->con[c].body_b;
    const double *n = s->n + 3 * c;
    double pa[3], pb[3], u[3], ma[6], mb[6];
    contact_velocity_rel(w, s, c, pa, pb, u);
    double vn = mcb_v3_dot(u, n), wn = contact_row(s, a, b, n, pa, pb, ma, mb);
    double pn = wn > 0.0 ? -vn / wn : 0.0;
    impulse(s, a, b, ma, mb, pn);
    contact_velocity_rel(w, s, c, pa, pb, u);
    vn = mcb_v3_dot(u, n);
    double t[3] = {u[0] - vn * n[0], u[1] - vn * n[1], u[2] - vn * n[2]};
    double vt = mcb_v3_norm(t);
    if (!(vt > 0.0)) return;
    for (int k = 0; k < 3; k++) t[k] /= vt;
    double wt = contact_row(s, a, b, t, pa, pb, ma, mb);
    double pnt = fmax(s->ln[c] / hs + pn, 0.0); /* the substep's normal impulse */
    if (wt > 0.0) impulse(s, a, b, ma, mb, -fmin(s->mu[c] * pnt, vt / wt));
}

/* ---------- the substeps (M19's and M20's substep loop) ---------- */

/* Kinematic body b at fraction u of the step. */
static void place_kinematic(struct mcb_xpbd_ws *s, int b, double u)
{
    double *q = s->q + 4 * b;
    const double *q0 = s->q0 + 4 * b, *q1 = s->q1 + 4 * b;
    double sg = q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3] < 0 ? -1.0 : 1.0;
    for (int k = 0; k < 3; k++) s->x[3 * b + k] = (1 - u) * s->x0[3 * b + k] + u * s->x1[3 * b + k];
    for (int k = 0; k < 4; k++) q[k] = (1 - u) * q0[k] + u * sg * q1[k];
    quat_normalise(q);
}

static void predict(mcb_world *w, struct mcb_xpbd_ws *s, double hs, double u)
{
    const double *g = w->o.gravity;
    for (int b = 0; b < s->nb; b++) {
        memcpy(s->xp + 3 * b, s->x + 3 * b, 3 * sizeof(double));
        memcpy(s->qp + 4 * b, s->q + 4 * b, 4 * sizeof(double));
        if (s->kin[b]) {
            place_kinematic(s, b, u);
            continue;
        }
        if (!s->dyn[b]) continue;
        const mcb_rigid *B = &w->rigid[b];
        double *v = s->v + 3 * b, *om = s->w + 3 * b, R[9], Iw[9], Iww[3], gy[3], tau[3], dw[3];
        for (int k = 0; k < 3; k++) v[k] += hs * (g[k] + B->wrench[k] * s->invm[b]);
        mcb_quat_to_mat(s->q + 4 * b, R);
        mcb_m3_rotate_sym(R, B->inertia, Iw);
        mcb_m3_vec(Iw, om, Iww);
        mcb_v3_cross(om, Iww, gy);
        for (int k = 0; k < 3; k++) tau[k] = B->wrench[3 + k] - gy[k];
        inv_inertia(s, b, tau, dw);
        for (int k = 0; k < 3; k++) om[k] += hs * dw[k], s->x[3 * b + k] += hs * v[k];
        double d[3] = {hs * om[0], hs * om[1], hs * om[2]};
        quat_rotate(s->q + 4 * b, d);
    }
}

/* v = (x - x_prev) / h_s, w = 2 vec(q q_prev^-1) / h_s (M20's substep loop). */
static void update_velocities(struct mcb_xpbd_ws *s, double hs)
{
    for (int b = 0; b < s->nb; b++) {
        const double *q = s->q + 4 * b, *p = s->qp + 4 * b;
        for (int k = 0; k < 3; k++) s->v[3 * b + k] = (s->x[3 * b + k] - s->xp[3 * b + k]) / hs;
        /* dq = q conj(p) */
        double dw = q[0] * p[0] + q[1] * p[1] + q[2] * p[2] + q[3] * p[3];
        double dx = -q[0] * p[1] + q[1] * p[0] - q[2] * p[3] + q[3] * p[2];
        double dy = -q[0] * p[2] + q[2] * p[0] - q[3] * p[1] + q[1] * p[3];
        double dz = -q[0] * p[3] + q[3] * p[0] - q[1] * p[2] + q[2] * p[1];
        double sg = dw < 0 ? -2.0 / hs : 2.0 / hs;
        s->w[3 * b] = sg * dx, s->w[3 * b + 1] = sg * dy, s->w[3 * b + 2] = sg * dz;
    }
}

/* ---------- the step ---------- */

/* The bodies' start (and kinematic end) states; the contacts' points. */
static void load(mcb_world *w, struct mcb_xpbd_ws *s, double h)
{
    for (int b = 0; b < s->nb; b++) {
        const mcb_xform *X = &w->pose[b];
        mcb_quat_from_mat(X->R, s->q + 4 * b);
        memcpy(s->x + 3 * b, X->p, 3 * sizeof(double));
        memcpy(s->x0 + 3 * b, s->x + 3 * b, 3 * sizeof(double));
        memcpy(s->q0 + 4 * b, s->q + 4 * b, 4 * sizeof(double));
        s->v[3 * b] = s->v[3 * b + 1] = s->v[3 * b + 2] = 0.0;
        s->w[3 * b] = s->w[3 * b + 1] = s->w[3 * b + 2] = 0.0;
        s->invm[b] = 0.0;
        memset(s->Ib_inv + 9 * b, 0, 9 * sizeof(double));
        s->dyn[b] = 0;
        s->kin[b] = 1;
        if (b >= w->nrigid) continue; /* robot link: x1, q1 after the robot's advance */
        const mcb_rigid *B = &w->rigid[b];
        memcpy(s->q + 4 * b, B->quat, 4 * sizeof(double)); /* the body's own quaternion */
        memcpy(s->q0 + 4 * b, B->quat, 4 * sizeof(double));
        if (B->kinematic) { /* its scripted motion over h, as the engine advances it */
            mcb_rigid e = *B;
            mcb_rigid_advance(&e, e.vel, h);
            memcpy(s->x1 + 3 * b, e.pos, 3 * sizeof(double));
            memcpy(s->q1 + 4 * b, e.quat, 4 * sizeof(double));
            continue;
        }
        s->dyn[b] = 1;
        s->kin[b] = 0;
        s->invm[b] = 1.0 / B->mass_kg;
        inv3(B->inertia, s->Ib_inv + 9 * b);
        memcpy(s->v + 3 * b, B->vel, 3 * sizeof(double));
        memcpy(s->w + 3 * b, B->vel + 3, 3 * sizeof(double));
    }
    for (int c = 0; c < s->nc; c++) {
        const mcb_contact *C = &w->con[c];
        double pa[3], pb[3];
        for (int k = 0; k < 3; k++) {
            pa[k] = C->p[k] + 0.5 * C->gap * C->n[k];
            pb[k] = C->p[k] - 0.5 * C->gap * C->n[k];
        }
        int body[2] = {C->body_a, C->body_b};
        double *r[2] = {s->ra + 3 * c, s->rb + 3 * c}, *p[2] = {pa, pb};
        for (int i = 0; i < 2; i++) {
            if (body[i] < 0) {
                memcpy(r[i], p[i], 3 * sizeof(double));
                continue;
            }
            const mcb_xform *X = &w->pose[body[i]];
            double d[3] = {p[i][0] - X->p[0], p[i][1] - X->p[1], p[i][2] - X->p[2]};
            mcb_m3_tvec(X->R, d, r[i]);
        }
        memcpy(s->n + 3 * c, C->n, 3 * sizeof(double));
        s->mu[c] = C->mu;
    }
    memset(s->imp, 0, (size_t)s->nr * sizeof(double));
}

static mcb_rc refuse(mcb_world *w, mcb_err *err)
{
    if (w->nfems > 0)
        return mcb_fail(err, MCB_E_INPUT,
                        "xpbd: the scene has %d FEM mesh(es): this XPBD advances rigid bodies "
                        "and robots only (no tetrahedral constraints)", w->nfems);
    for (int q = 0; q < w->njoints; q++)
        if (w->joints[q].kind == MCB_WJ_ROLLING)
            return mcb_fail(err, MCB_E_INPUT,
                            "xpbd: joint %d is a rolling joint (non-holonomic, velocity-level): "
                            "not a positional constraint XPBD can project", q);
    return MCB_OK;
}

mcb_rc mcb_world_xpbd_advance(mcb_world *w, const mcb_xpbd_opts *o, const double *vhat,
                              double *depth_m, double *substeps_s, mcb_err *err)
{
    *depth_m = 0.0;
    *substeps_s = 0.0;
    mcb_rc rc = mcb_xpbd_check(o, err);
    if (!rc) rc = refuse(w, err);
    int nb = w->nrigid + w->nlinks;
    if (!rc) rc = ws_size(w, nb, w->ncon, w->jrows, err);
    if (rc) return rc;
    struct mcb_xpbd_ws *s = w->xpbd;
    double h = w->o.h_s, hs = h / o->substeps;
    load(w, s, h);
    /* the robots: their own dynamics, then their links' end poses */
    if (w->nrobots) mcb_world_advance_robots(w, vhat);
    for (int r = 0; r < w->nrobots; r++) {
        mcb_robot_update(w->robots[r]);
        for (int k = 0; k < mcb_robot_nlinks(w->robots[r]); k++) {
            int b = w->nrigid + w->robot_link0[r] + k;
            const mcb_xform *X = mcb_robot_link_pose(w->robots[r], k);
            memcpy(s->x1 + 3 * b, X->p, 3 * sizeof(double));
            mcb_quat_from_mat(X->R, s->q1 + 4 * b);
        }
    }
    double t0 = mcb_now_s();
    for (int i = 0; i < o->substeps; i++) {
        joint_values(w, s, s->c0);
        predict(w, s, hs, (double)(i + 1) / o->substeps);
        memset(s->lam, 0, (size_t)s->nr * sizeof(double));
        memset(s->ln, 0, (size_t)s->nc * sizeof(double));
        memset(s->lt, 0, (size_t)s->nc * sizeof(double));
        for (int it = 0; it < o->iters; it++) {
            for (int q = 0, nj; q < w->njoints; q += nj)
                project_joints(w, s, q, nj = block_joints(w, q), hs);
            for (int c = 0; c < s->nc; c++) project_contact(w, s, c);
        }
        update_velocities(s, hs);
        for (int c = 0; c < s->nc; c++)
            if (s->ln[c] > 0.0) contact_velocity(w, s, c, hs);
        for (int r = 0; r < s->nr; r++) s->imp[r] += s->lam[r] / hs;
    }
    *substeps_s = mcb_now_s() - t0;
    /* the state back into the world */
    for (int b = 0; b < w->nrigid; b++) {
        mcb_rigid *B = &w->rigid[b];
        if (B->kinematic) {
            memcpy(B->pos, s->x1 + 3 * b, 3 * sizeof(double));
            memcpy(B->quat, s->q1 + 4 * b, 4 * sizeof(double));
            continue;
        }
        memcpy(B->pos, s->x + 3 * b, 3 * sizeof(double));
        memcpy(B->quat, s->q + 4 * b, 4 * sizeof(double));
        memcpy(B->vel, s->v + 3 * b, 3 * sizeof(double));
        memcpy(B->vel + 3, s->w + 3 * b, 3 * sizeof(double));
    }
    if (s->nr) memcpy(w->joint_lambda, s->imp, (size_t)s->nr * sizeof(double));
    for (int c = 0; c < s->nc; c++) {
        double pa[3], pb[3];
        contact_points(w, s, c, 0, pa, pb);
        const double *n = s->n + 3 * c;
        double d = (pa[0] - pb[0]) * n[0] + (pa[1] - pb[1]) * n[1] + (pa[2] - pb[2]) * n[2];
        if (-d > *depth_m) *depth_m = -d;
    }
    return MCB_OK;
}

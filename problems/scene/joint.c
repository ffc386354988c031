/* joint.c: the rows of the world's joints (world.h, docs/stepping.md
 * "Joints"): point joints (coincident anchors), angular joints (a relative
 * rotation held at rest), and rolling wheels (no slip, no skid: velocity-
 * level, non-holonomic). step.c turns each row into hard bilateral rows or
 * the soft rows of the SubADMM paper's eq. (3). Nothing here allocates. */
#include <math.h>
#include <string.h>

#include "problems/scene/joint.h"

static int finite_n(const double *x, int n)
{
    for (int k = 0; k < n; k++)
        if (!isfinite(x[k])) return 0;
    return 1;
}

static int row_mask(const mcb_wjoint *j)
{
    int full = j->kind == MCB_WJ_ROLLING ? 3 : 7;
    return j->mask ? (j->mask & full) : full;
}

int mcb_wjoint_nrows(const mcb_wjoint *j)
{
    int m = row_mask(j), n = 0;
    for (int r = 0; r < 3; r++) n += (m >> r) & 1;
    return n;
}

mcb_rc mcb_wjoint_check(const mcb_wjoint *j, int nbodies, mcb_err *err)
{
    if (!j) return mcb_fail(err, MCB_E_INPUT, "joint: NULL");
    if (j->kind < MCB_WJ_POINT || j->kind > MCB_WJ_ROLLING)
        return mcb_fail(err, MCB_E_INPUT, "joint: unknown kind %d", j->kind);
    if (j->body_a < -1 || j->body_a >= nbodies || j->body_b < -1 || j->body_b >= nbodies)
        return mcb_fail(err, MCB_E_INPUT, "joint: body %d or %d outside [-1, %d)", j->body_a,
                        j->body_b, nbodies);
    if (j->kind != MCB_WJ_ROLLING && j->body_a == j->body_b)
        return mcb_fail(err, MCB_E_INPUT, "joint: body a and body b are the same (%d)", j->body_a);
    if (j->mask < 0 || j->mask > 7 || mcb_wjoint_nrows(j) == 0)
        return mcb_fail(err, MCB_E_INPUT, "joint: mask %d keeps no row", j->mask);
    if (!finite_n(j->pa, 3) || !finite_n(j->pb, 3) || !finite_n(j->rest, 3) ||
        !finite_n(j->rest_q, 4) || !finite_n(j->axis, 3) || !finite_n(&j->radius, 1) ||
        !finite_n(j->stiffness, 3) || !finite_n(j->damping, 3))
        return mcb_fail(err, MCB_E_INPUT, "joint: a field is not finite");
    if (j->soft) {
        if (j->kind == MCB_WJ_ROLLING)
            return mcb_fail(err, MCB_E_INPUT, "joint: a rolling joint cannot be soft");
        for (int r = 0; r < 3; r++)
            if (((row_mask(j) >> r) & 1) && (!(j->stiffness[r] > 0) || !(j->damping[r] >= 0)))
                return mcb_fail(err, MCB_E_INPUT,
                                "joint: soft row %d needs stiffness > 0 and damping >= 0 "
                                "(%g, %g)",
                                r, j->stiffness[r], j->damping[r]);
    }
    if (j->kind == MCB_WJ_ROLLING) {
        if (j->body_a < 0) return mcb_fail(err, MCB_E_INPUT, "joint: a rolling wheel needs body a");
        if (!(j->radius > 0)) return mcb_fail(err, MCB_E_INPUT, "joint: wheel radius %g", j->radius);
        if (!(mcb_v3_norm(j->axis) > 0)) return mcb_fail(err, MCB_E_INPUT, "joint: zero wheel axis");
    }
    return MCB_OK;
}

void mcb_m3_log(const double R[9], double w[3])
{
    double c = 0.5 * (R[0] + R[4] + R[8] - 1.0);
    c = c > 1.0 ? 1.0 : (c < -1.0 ? -1.0 : c);
    double th = acos(c);
    double v[3] = {0.5 * (R[7] - R[5]), 0.5 * (R[2] - R[6]), 0.5 * (R[3] - R[1])}; /* sin(th) axis */
    if (th < 1e-4) {
        double s = 1.0 + th * th / 6.0; /* th / sin(th) */
        for (int k = 0; k < 3; k++) w[k] = s * v[k];
        return;
    }
    if (th < 3.14159265358979323846 - 1e-4) {
        double s = th / sin(th);
        for (int k = 0; k < 3; k++) w[k] = s * v[k];
        return;
    }
    /* near pi: the axis from the largest diagonal of (R + I) / 2 = a a^T */
    int i = R[0] >= R[4] && R[0] >= R[8] ? 0 : (R[4] >= R[8] ? 1 : 2);
    double a[3];
    a[i] = sqrt(fmax(0.0, 0.5 * (R[4 * i] + 1.0)));
    for (int k = 0; k < 3; k++)
        if (k != i) a[k] = 0.5 * (R[3 * i + k] + R[3 * k + i]) / (2.0 * a[i]);
    double n = mcb_v3_norm(a);
    /* the sign from the (small) antisymmetric part */
    double sg = mcb_v3_dot(a, v) < 0 ? -1.0 : 1.0;
    for (int k = 0; k < 3; k++) w[k] = sg * th * a[k] / n;
}

/* Coefficients of d . u(x) on a twist [v_o; w] of a frame with origin o:
 * d . (v_o + w x (x - o)) = d . v_o + ((x - o) x d) . w. */
static void point_coeffs(const double d[3], const double x[3], const double o[3], double sg,
                         double c[6])
{
    double r[3] = {x[0] - o[0], x[1] - o[1], x[2] - o[2]}, rxd[3];
    mcb_v3_cross(r, d, rxd);
    for (int k = 0; k < 3; k++) {
        c[k] = sg * d[k];
        c[3 + k] = sg * rxd[k];
    }
}

static void unit_quat_mat(const double q[4], double R[9])
{
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0)) {
        static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(R, I, sizeof I);
        return;
    }
    double u[4] = {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
    mcb_quat_to_mat(u, R);
}

void mcb_wjoint_eval(const mcb_wjoint *j, const mcb_xform *Xa, const mcb_xform *Xb,
                     mcb_wjoint_row *rows)
{
    int mask = row_mask(j), k = 0;
    double xa[3], xb[3], phi[3] = {0, 0, 0}, dirs[3][3];
    mcb_xform_point(Xa, j->pa, xa);
    mcb_xform_point(Xb, j->pb, xb);
    if (j->kind == MCB_WJ_POINT) {
        double d[3] = {xb[0] - xa[0], xb[1] - xa[1], xb[2] - xa[2]};
        mcb_m3_tvec(Xa->R, d, phi);
        for (int r = 0; r < 3; r++) phi[r] -= j->rest[r];
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 3; q++) dirs[r][q] = Xa->R[3 * q + r]; /* column r of Ra */
    } else if (j->kind == MCB_WJ_ANGULAR) {
        double Rr[9], T[9], E[9];
        unit_quat_mat(j->rest_q, Rr);
        mcb_m3_mul_t(Xa->R, Xb->R, T); /* Ra^T Rb */
        for (int r = 0; r < 3; r++)     /* E = T Rr^T */
            for (int c = 0; c < 3; c++)
                E[3 * r + c] = T[3 * r] * Rr[3 * c] + T[3 * r + 1] * Rr[3 * c + 1] +
                               T[3 * r + 2] * Rr[3 * c + 2];
        mcb_m3_log(E, phi);
        for (int r = 0; r < 3; r++)
            for (int q = 0; q < 3; q++) dirs[r][q] = Xa->R[3 * q + r];
    } else { /* rolling: directions from the axle; the contact point under the centre */
        static const double up[3] = {0, 0, 1};
        double ax[3];
        mcb_m3_vec(Xa->R, j->axis, ax);
        double f[3], l[3] = {ax[0], ax[1], 0.0};
        mcb_v3_cross(ax, up, f);
        double nf = mcb_v3_norm(f), nl = mcb_v3_norm(l);
        for (int q = 0; q < 3; q++) {
            dirs[0][q] = nf > 0 ? f[q] / nf : 0.0;
            dirs[1][q] = nl > 0 ? l[q] / nl : 0.0;
        }
        xa[2] -= j->radius;
    }
    for (int r = 0; r < 3; r++) {
        if (!((mask >> r) & 1)) continue;
        mcb_wjoint_row *w = &rows[k++];
        memset(w, 0, sizeof *w);
        memcpy(w->dir, dirs[r], sizeof w->dir);
        memcpy(w->xa, xa, sizeof w->xa);
        memcpy(w->xb, xb, sizeof w->xb);
        w->phi = phi[r];
        w->K = j->stiffness[r];
        w->D = j->damping[r];
        if (j->kind == MCB_WJ_ANGULAR) {
            w->angular = 1;
            for (int q = 0; q < 3; q++) {
                w->ja[3 + q] = -dirs[r][q];
                w->jb[3 + q] = dirs[r][q];
            }
        } else if (j->kind == MCB_WJ_POINT) {
            point_coeffs(dirs[r], xa, Xa->p, -1.0, w->ja);
            point_coeffs(dirs[r], xb, Xb->p, 1.0, w->jb);
        } else {
            point_coeffs(dirs[r], xa, Xa->p, 1.0, w->ja);
        }
    }
}

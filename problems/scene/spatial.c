/* spatial.c: 3-vectors, 3x3 matrices, quaternions, rigid transforms,
 * tangent frames and the deterministic random generator of the scene
 * engine (spatial.h). */
#include "problems/scene/spatial.h"

#include <math.h>
#include <string.h>

double mcb_v3_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double mcb_v3_norm(const double a[3])
{
    return sqrt(mcb_v3_dot(a, a));
}

void mcb_v3_cross(const double a[3], const double b[3], double c[3])
{
    double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                   a[0] * b[1] - a[1] * b[0]};
    memcpy(c, t, sizeof t);
}

void mcb_m3_mul(const double A[9], const double B[9], double C[9])
{
    double T[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            T[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
    memcpy(C, T, sizeof T);
}

void mcb_m3_mul_t(const double A[9], const double B[9], double C[9])
{
    double T[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            T[3 * i + j] = A[i] * B[j] + A[3 + i] * B[3 + j] + A[6 + i] * B[6 + j];
    memcpy(C, T, sizeof T);
}

void mcb_m3_vec(const double A[9], const double x[3], double y[3])
{
    double t[3];
    for (int i = 0; i < 3; i++) t[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
    memcpy(y, t, sizeof t);
}

void mcb_m3_tvec(const double A[9], const double x[3], double y[3])
{
    double t[3];
    for (int i = 0; i < 3; i++) t[i] = A[i] * x[0] + A[3 + i] * x[1] + A[6 + i] * x[2];
    memcpy(y, t, sizeof t);
}

void mcb_m3_rotate_sym(const double R[9], const double I[9], double C[9])
{
    double T[9], Rt[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) Rt[3 * i + j] = R[3 * j + i];
    mcb_m3_mul(R, I, T);
    mcb_m3_mul(T, Rt, C);
    for (int i = 0; i < 3; i++) /* exact symmetry */
        for (int j = i + 1; j < 3; j++) C[3 * j + i] = C[3 * i + j] = 0.5 * (C[3 * i + j] + C[3 * j + i]);
}

void mcb_quat_to_mat(const double q[4], double R[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - w * z), R[2] = 2 * (x * z + w * y);
    R[3] = 2 * (x * y + w * z), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - w * x);
    R[6] = 2 * (x * z - w * y), R[7] = 2 * (y * z + w * x), R[8] = 1 - 2 * (x * x + y * y);
}

void mcb_quat_from_axis_angle(const double axis[3], double angle, double q[4])
{
    double l = mcb_v3_norm(axis), s = l > 0 ? sin(0.5 * angle) / l : 0.0;
    q[0] = cos(0.5 * angle), q[1] = s * axis[0], q[2] = s * axis[1], q[3] = s * axis[2];
}

void mcb_quat_from_mat(const double R[9], double q[4])
{
    double tr = R[0] + R[4] + R[8];
    if (tr > 0) {
        double s = 2 * sqrt(1 + tr);
        q[0] = 0.25 * s, q[1] = (R[7] - R[5]) / s, q[2] = (R[2] - R[6]) / s,
        q[3] = (R[3] - R[1]) / s;
    } else if (R[0] > R[4] && R[0] > R[8]) {
        double s = 2 * sqrt(1 + R[0] - R[4] - R[8]);
        q[0] = (R[7] - R[5]) / s, q[1] = 0.25 * s, q[2] = (R[1] + R[3]) / s,
        q[3] = (R[2] + R[6]) / s;
    } else if (R[4] > R[8]) {
        double s = 2 * sqrt(1 + R[4] - R[0] - R[8]);
        q[0] = (R[2] - R[6]) / s, q[1] = (R[1] + R[3]) / s, q[2] = 0.25 * s,
        q[3] = (R[5] + R[7]) / s;
    } else {
        double s = 2 * sqrt(1 + R[8] - R[0] - R[4]);
        q[0] = (R[3] - R[1]) / s, q[1] = (R[2] + R[6]) / s, q[2] = (R[5] + R[7]) / s,
        q[3] = 0.25 * s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; i++) q[i] /= n;
}

void mcb_quat_integrate(double q[4], const double w[3], double h)
{
    double dq[4];
    mcb_quat_from_axis_angle(w, h * mcb_v3_norm(w), dq);
    double r[4] = {dq[0] * q[0] - dq[1] * q[1] - dq[2] * q[2] - dq[3] * q[3],
                   dq[0] * q[1] + dq[1] * q[0] + dq[2] * q[3] - dq[3] * q[2],
                   dq[0] * q[2] - dq[1] * q[3] + dq[2] * q[0] + dq[3] * q[1],
                   dq[0] * q[3] + dq[1] * q[2] - dq[2] * q[1] + dq[3] * q[0]};
    double l = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int k = 0; k < 4; k++) q[k] = r[k] / l;
}

mcb_xform mcb_xform_identity(void)
{
    mcb_xform X = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}};
    return X;
}

mcb_xform mcb_xform_compose(const mcb_xform *a, const mcb_xform *b)
{
    mcb_xform c;
    mcb_m3_mul(a->R, b->R, c.R);
    mcb_m3_vec(a->R, b->p, c.p);
    for (int k = 0; k < 3; k++) c.p[k] += a->p[k];
    return c;
}

mcb_xform mcb_xform_inverse(const mcb_xform *a)
{
    mcb_xform c;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) c.R[3 * i + j] = a->R[3 * j + i];
    mcb_m3_vec(c.R, a->p, c.p);
    for (int k = 0; k < 3; k++) c.p[k] = -c.p[k];
    return c;
}

void mcb_xform_point(const mcb_xform *a, const double x[3], double y[3])
{
    double t[3];
    mcb_m3_vec(a->R, x, t);
    for (int k = 0; k < 3; k++) y[k] = t[k] + a->p[k];
}

void mcb_frame_tangents(const double n[3], double t1[3], double t2[3])
{
    double a[3] = {1, 0, 0};
    if (fabs(n[0]) > 0.9) a[0] = 0, a[1] = 1;
    double d = mcb_v3_dot(a, n);
    for (int k = 0; k < 3; k++) t1[k] = a[k] - d * n[k];
    double l = mcb_v3_norm(t1);
    for (int k = 0; k < 3; k++) t1[k] /= l;
    mcb_v3_cross(n, t1, t2);
}

void mcb_rng_draw_ranges(unsigned long long seed, int n, const double *lo, const double *hi,
                         double *out)
{
    mcb_rng r;
    mcb_rng_seed(&r, seed);
    for (int k = 0; k < n; k++) out[k] = lo[k] + (hi[k] - lo[k]) * mcb_rng_uniform(&r);
}

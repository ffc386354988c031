/* body.c: free rigid bodies in maximal coordinates (6 DOFs each) for the
 * time stepping of step.c (CANAL paper eq. (2), docs/stepping.md): the
 * inertia in world, the 6x6 mass block, the explicit forces (gravity,
 * external wrench, gyroscopic term) and the integration of the pose. The
 * body frame's origin is the centre of mass, so the mass block has no
 * coupling between the linear and angular parts. Nothing here allocates. */
#include <math.h>
#include <string.h>

#include "problems/scene/body.h"

static int finite_n(const double *x, int n)
{
    for (int k = 0; k < n; k++)
        if (!isfinite(x[k])) return 0;
    return 1;
}

/* Sylvester's criterion on the symmetric part, plus a symmetry check. */
static int inertia_ok(const double I[9])
{
    double s = fabs(I[0]) + fabs(I[4]) + fabs(I[8]);
    if (!(s > 0)) return 0;
    if (fabs(I[1] - I[3]) > 1e-12 * s || fabs(I[2] - I[6]) > 1e-12 * s ||
        fabs(I[5] - I[7]) > 1e-12 * s)
        return 0;
    double d1 = I[0], d2 = I[0] * I[4] - I[1] * I[3];
    double d3 = I[0] * (I[4] * I[8] - I[5] * I[7]) - I[1] * (I[3] * I[8] - I[5] * I[6]) +
                I[2] * (I[3] * I[7] - I[4] * I[6]);
    return d1 > 0 && d2 > 0 && d3 > 0;
}

mcb_rc mcb_rigid_check(const mcb_rigid *b, mcb_err *err)
{
    if (!b) return mcb_fail(err, MCB_E_INPUT, "rigid body: NULL");
    if (!finite_n(&b->mass_kg, 1) || !finite_n(b->inertia, 9) || !finite_n(b->pos, 3) ||
        !finite_n(b->quat, 4) || !finite_n(b->vel, 6) || !finite_n(b->wrench, 6))
        return mcb_fail(err, MCB_E_INPUT, "rigid body: a field is not finite");
    if (b->kinematic) return MCB_OK; /* mass and inertia unused */
    if (!(b->mass_kg > 0))
        return mcb_fail(err, MCB_E_INPUT, "rigid body: mass %g kg must be > 0", b->mass_kg);
    if (!inertia_ok(b->inertia))
        return mcb_fail(err, MCB_E_INPUT,
                        "rigid body: the inertia tensor is not symmetric positive definite");
    double qn = sqrt(b->quat[0] * b->quat[0] + b->quat[1] * b->quat[1] +
                     b->quat[2] * b->quat[2] + b->quat[3] * b->quat[3]);
    if (!(qn > 1e-12)) return mcb_fail(err, MCB_E_INPUT, "rigid body: zero quaternion");
    return MCB_OK;
}

void mcb_rigid_normalise(mcb_rigid *b)
{
    double qn = sqrt(b->quat[0] * b->quat[0] + b->quat[1] * b->quat[1] +
                     b->quat[2] * b->quat[2] + b->quat[3] * b->quat[3]);
    if (qn > 1e-12)
        for (int k = 0; k < 4; k++) b->quat[k] /= qn;
    else {
        b->quat[0] = 1.0;
        b->quat[1] = b->quat[2] = b->quat[3] = 0.0;
    }
}

void mcb_rigid_pose(const mcb_rigid *b, mcb_xform *X)
{
    mcb_quat_to_mat(b->quat, X->R);
    memcpy(X->p, b->pos, sizeof X->p);
}

void mcb_rigid_inertia_world(const mcb_rigid *b, double Iw[9])
{
    double R[9];
    mcb_quat_to_mat(b->quat, R);
    mcb_m3_rotate_sym(R, b->inertia, Iw);
    /* exact symmetry (validation checks A's symmetry to 1e-12) */
    for (int r = 0; r < 3; r++)
        for (int c = r + 1; c < 3; c++) {
            double s = 0.5 * (Iw[3 * r + c] + Iw[3 * c + r]);
            Iw[3 * r + c] = Iw[3 * c + r] = s;
        }
}

void mcb_rigid_mass6(const mcb_rigid *b, double M[36])
{
    double Iw[9];
    mcb_rigid_inertia_world(b, Iw);
    memset(M, 0, 36 * sizeof(double));
    for (int k = 0; k < 3; k++) M[6 * k + k] = b->mass_kg;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) M[6 * (3 + r) + 3 + c] = Iw[3 * r + c];
}

void mcb_rigid_force(const mcb_rigid *b, const double g[3], double f[6])
{
    double Iw[9], Iww[3], gyro[3];
    mcb_rigid_inertia_world(b, Iw);
    mcb_m3_vec(Iw, b->vel + 3, Iww);
    mcb_v3_cross(b->vel + 3, Iww, gyro);
    for (int k = 0; k < 3; k++) {
        f[k] = b->mass_kg * g[k] + b->wrench[k];
        f[3 + k] = b->wrench[3 + k] - gyro[k];
    }
}

void mcb_rigid_point_velocity(const mcb_rigid *b, const double tw[6], const double x[3],
                              double u[3])
{
    double r[3] = {x[0] - b->pos[0], x[1] - b->pos[1], x[2] - b->pos[2]}, wr[3];
    mcb_v3_cross(tw + 3, r, wr);
    for (int k = 0; k < 3; k++) u[k] = tw[k] + wr[k];
}

void mcb_rigid_advance(mcb_rigid *b, const double vhat[6], double h)
{
    for (int k = 0; k < 3; k++) b->pos[k] += h * vhat[k];
    mcb_quat_integrate(b->quat, vhat + 3, h);
}

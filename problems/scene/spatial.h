/* spatial.h: the small vector algebra the scene engine shares: 3-vectors
 * (double[3]), 3x3 matrices (double[9], row-major), unit quaternions
 * (double[4], w x y z), rigid transforms, and contact tangent frames.
 * Everything is inline-free plain C in spatial.c; no allocation. */
#ifndef MCB_SCENE_SPATIAL_H
#define MCB_SCENE_SPATIAL_H

#include "lib/mcb_rng.h"

/* A rigid transform: x_parent = R x_local + p. */
typedef struct {
    double R[9];
    double p[3];
} mcb_xform;

double mcb_v3_dot(const double a[3], const double b[3]);
double mcb_v3_norm(const double a[3]);
void mcb_v3_cross(const double a[3], const double b[3], double c[3]);
void mcb_m3_mul(const double A[9], const double B[9], double C[9]);     /* C = A B */
void mcb_m3_mul_t(const double A[9], const double B[9], double C[9]);   /* C = A^T B */
void mcb_m3_vec(const double A[9], const double x[3], double y[3]);     /* y = A x */
void mcb_m3_tvec(const double A[9], const double x[3], double y[3]);    /* y = A^T x */
/* C = R I R^T (an inertia tensor rotated into another frame) */
void mcb_m3_rotate_sym(const double R[9], const double I[9], double C[9]);

void mcb_quat_to_mat(const double q[4], double R[9]);
void mcb_quat_from_axis_angle(const double axis[3], double angle, double q[4]);
/* The unit quaternion (w x y z) of the rotation matrix R (Shepperd's
 * method: the largest of w, x, y, z first). */
void mcb_quat_from_mat(const double R[9], double q[4]);
/* q <- exp(h w / 2) q, renormalised: w is an angular velocity in world
 * coordinates (the update of a body's orientation over a step h). */
void mcb_quat_integrate(double q[4], const double w_world[3], double h);

mcb_xform mcb_xform_identity(void);
mcb_xform mcb_xform_compose(const mcb_xform *a, const mcb_xform *b); /* a * b */
mcb_xform mcb_xform_inverse(const mcb_xform *a);
void mcb_xform_point(const mcb_xform *a, const double x[3], double y[3]); /* y = R x + p */

/* Tangents t1, t2 completing the unit normal n to a right-handed
 * orthonormal frame [n, t1, t2] (t1 x t2 = n), a continuous function of n
 * away from n = +-x. */
void mcb_frame_tangents(const double n[3], double t1[3], double t2[3]);

/* mcb_rng, the deterministic generator every scene uses: lib/mcb_rng.h */
/* n values, out[k] uniform in [lo[k], hi[k]), drawn in order from a
 * generator seeded with seed (a scene's randomised parameters). */
void mcb_rng_draw_ranges(unsigned long long seed, int n, const double *lo, const double *hi,
                         double *out);

#endif

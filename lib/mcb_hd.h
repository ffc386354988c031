/* mcb_hd.h: arithmetic shared by the host and the GPU (docs/gpu.md).
 *
 * MCB_HD marks a function compiled for both: __host__ __device__ under
 * nvcc, nothing in C. The functions here are the one definition of the
 * friction-cone projection and of the small dense Cholesky solves: the CPU
 * library (mcb_cone.c, mcb_chol.c) calls them, and so do the GPU solvers'
 * kernels (solvers/gpu/), so that the host tests exercise the very
 * arithmetic the device runs. Plain C99/C++ common subset, no allocation. */
#ifndef MCB_HD_H
#define MCB_HD_H

#include <math.h>
#include <stddef.h>

#ifdef __CUDACC__
#define MCB_HD __host__ __device__
#else
#define MCB_HD
#endif

/* sqrt(a^2 + b^2): the plain formula where it neither overflows nor loses
 * precision to underflow (every contact quantity of a sane iterate), libm's
 * careful hypot() otherwise (huge, tiny, infinite or NaN arguments). */
static inline MCB_HD double mcb_hd_hypot(double a, double b)
{
    double s = a * a + b * b;
    if (s < 1e300 && (s > 1e-300 || s == 0.0)) return sqrt(s);
    return hypot(a, b);
}

/* Euclidean projection of x = (n, t1, t2) on K_mu = {||t|| <= mu n}
 * (mu <= 0: onto {n >= 0, t = 0}); out may alias x. */
static inline MCB_HD void mcb_hd_proj_cone(double mu, const double *x, double *out)
{
    double n = x[0], t1 = x[1], t2 = x[2];
    double nt = mcb_hd_hypot(t1, t2);
    if (mu <= 0.0) {
        out[0] = n > 0.0 ? n : 0.0;
        out[1] = out[2] = 0.0;
        return;
    }
    if (nt <= mu * n) { /* inside */
        out[0] = n;
        out[1] = t1;
        out[2] = t2;
    } else if (mu * nt <= -n) { /* inside the polar cone */
        out[0] = out[1] = out[2] = 0.0;
    } else {
        double pn = (n + mu * nt) / (1.0 + mu * mu);
        double s = mu * pn / nt;
        out[0] = pn;
        out[1] = s * t1;
        out[2] = s * t2;
    }
}

/* L y = x in place, L an n x n lower factor stored by columns (its
 * diagonal holds the reciprocals, as mcb_dense_chol() leaves it). */
static inline MCB_HD void mcb_hd_dense_lsolve(int n, const double *L, double *x)
{
    for (int j = 0; j < n; j++) { /* column-oriented */
        const double *c = L + (size_t)j * n;
        double xj = x[j] * c[j];
        x[j] = xj;
        for (int i = j + 1; i < n; i++) x[i] -= c[i] * xj;
    }
}

/* L^T x = y in place (row j of L^T is column j of L). */
static inline MCB_HD void mcb_hd_dense_ltsolve(int n, const double *L, double *x)
{
    for (int j = n - 1; j >= 0; j--) {
        const double *c = L + (size_t)j * n;
        double s = x[j];
        for (int i = j + 1; i < n; i++) s -= c[i] * x[i];
        x[j] = s * c[j];
    }
}

/* x = (L L^T)^-1 x, with the rigid-body size (6) and 3 unrolled. */
static inline MCB_HD void mcb_hd_dense_chol_solve(int n, const double *L, double *x)
{
    if (n == 6) {
        mcb_hd_dense_lsolve(6, L, x);
        mcb_hd_dense_ltsolve(6, L, x);
    } else if (n == 3) {
        mcb_hd_dense_lsolve(3, L, x);
        mcb_hd_dense_ltsolve(3, L, x);
    } else {
        mcb_hd_dense_lsolve(n, L, x);
        mcb_hd_dense_ltsolve(n, L, x);
    }
}

#endif

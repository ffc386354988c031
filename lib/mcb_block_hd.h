/* mcb_block_hd.h: the local step of the impulse-iterating solvers on one
 * constraint block (mcb_block_step() in mcb_delassus.h documents it),
 * compiled for the host and, under nvcc, the GPU (MCB_HD, lib/mcb_hd.h):
 * PGS and PJ call it through mcb_block_step(), pj-gpu's kernels
 * (solvers/gpu/pj_kernels.h) directly, so the host tests exercise the very
 * arithmetic the device runs. No allocation, no libc beyond math.h. */
#ifndef MCB_BLOCK_HD_H
#define MCB_BLOCK_HD_H

#include <math.h>

#include "lib/mcb_hd.h"
#include "lib/mcb_problem.h"

/* Cap on the inner steps of the local 3x3 contact solve. */
#define MCB_LOCAL_ITERS 24

/* x = -w^-1 r for the 3x3 row-major w by Cramer's rule; 0 when w is
 * singular to 1e-12 relative (then x is untouched), 1 otherwise. */
static inline MCB_HD int mcb_hd_stick3(const double *w, const double *r, double *x)
{
    double c0 = w[4] * w[8] - w[5] * w[7];
    double c1 = w[5] * w[6] - w[3] * w[8];
    double c2 = w[3] * w[7] - w[4] * w[6];
    double det = w[0] * c0 + w[1] * c1 + w[2] * c2;
    double scale = fabs(w[0]) + fabs(w[4]) + fabs(w[8]);
    if (!(fabs(det) > 1e-12 * scale * scale * scale)) return 0;
    /* inverse = adjugate / det; x = -inverse r */
    double inv[9] = {c0,
                     w[2] * w[7] - w[1] * w[8],
                     w[1] * w[5] - w[2] * w[4],
                     c1,
                     w[0] * w[8] - w[2] * w[6],
                     w[2] * w[3] - w[0] * w[5],
                     c2,
                     w[1] * w[6] - w[0] * w[7],
                     w[0] * w[4] - w[1] * w[3]};
    for (int i = 0; i < 3; i++)
        x[i] = -(inv[3 * i] * r[0] + inv[3 * i + 1] * r[1] + inv[3 * i + 2] * r[2]) / det;
    return 1;
}

/* The local contact problem u = w x + r (w the 3x3 block, row-major),
 * from x; see mcb_hd_block_step(). In order: separation (x = 0 when r_n >= 0:
 * exact), sticking (x = -w^-1 r when it lies in the cone: exact), else
 * inner projected Gauss-Seidel steps between the normal row and the
 * tangential pair (strict operator) from x, at most MCB_LOCAL_ITERS. */
static inline MCB_HD void mcb_hd_local_contact(double mu, const double *w, const double *d, const double *r,
                          double *x)
{
    if (r[0] >= 0.0) {
        x[0] = x[1] = x[2] = 0.0;
        return;
    }
    double xs[3];
    if (mcb_hd_stick3(w, r, xs) && xs[0] >= 0.0 && mcb_hd_hypot(xs[1], xs[2]) <= mu * xs[0]) {
        x[0] = xs[0], x[1] = xs[1], x[2] = xs[2];
        return;
    }
    for (int it = 0; it < MCB_LOCAL_ITERS; it++) {
        double x0[3] = {x[0], x[1], x[2]};
        if (isfinite(d[0])) {
            double un = r[0] + w[0] * x[0] + w[1] * x[1] + w[2] * x[2];
            double xn = x[0] - un / d[0];
            x[0] = xn > 0.0 ? xn : 0.0;
        } else if (x[0] < 0.0) {
            x[0] = 0.0;
        }
        if (isfinite(d[1])) {
            double u1 = r[1] + w[3] * x[0] + w[4] * x[1] + w[5] * x[2];
            double u2 = r[2] + w[6] * x[0] + w[7] * x[1] + w[8] * x[2];
            x[1] -= u1 / d[1];
            x[2] -= u2 / d[1];
        }
        double rad = mu * x[0], nt = mcb_hd_hypot(x[1], x[2]);
        if (nt > rad) {
            double s = nt > 0.0 ? rad / nt : 0.0;
            x[1] *= s;
            x[2] *= s;
        }
        double dx = 0.0, nx = 0.0;
        for (int k = 0; k < 3; k++) {
            dx += (x[k] - x0[k]) * (x[k] - x0[k]);
            nx += x[k] * x[k];
        }
        if (dx <= 1e-28 * nx) break;
    }
}

static inline MCB_HD void mcb_hd_block_step(int type, int nrows, double mu, double k,
                                            double alpha, const double *e, const double *lambda,
                                            const double *u, const double *d, const double *Wbb,
                                            double omega, double *out)
{
    switch (type) {
    case MCB_BILATERAL:
        for (int r = 0; r < nrows; r++) out[r] = lambda[r] - omega * u[r] / d[r];
        break;
    case MCB_UNILATERAL:
        for (int r = 0; r < nrows; r++) {
            double t = lambda[r] - omega * u[r] / d[r];
            out[r] = t > 0.0 ? t : 0.0;
        }
        break;
    case MCB_SOFT:
        for (int r = 0; r < nrows; r++) {
            /* u = d lambda + rest; lambda = -k (e + alpha (u - e)) solved for lambda */
            double rest = isfinite(d[r]) ? u[r] - d[r] * lambda[r] : u[r];
            double dd = isfinite(d[r]) ? d[r] : 0.0;
            double exact = -k * (e[r] + alpha * (rest - e[r])) / (1.0 + k * alpha * dd);
            out[r] = lambda[r] + omega * (exact - lambda[r]);
        }
        break;
    case MCB_CONTACT: {
        double rest[3], x[3], t[3];
        for (int i = 0; i < 3; i++)
            rest[i] = u[i] - (Wbb[3 * i] * lambda[0] + Wbb[3 * i + 1] * lambda[1] +
                              Wbb[3 * i + 2] * lambda[2]);
        x[0] = lambda[0], x[1] = lambda[1], x[2] = lambda[2];
        mcb_hd_local_contact(mu, Wbb, d, rest, x);
        if (omega == 1.0) { /* x is in K already (the strict operator's clamp) */
            out[0] = x[0], out[1] = x[1], out[2] = x[2];
            break;
        }
        for (int i = 0; i < 3; i++) t[i] = lambda[i] + omega * (x[i] - lambda[i]);
        mcb_hd_proj_cone(mu, t, out);
        break;
    }
    }
}

#endif

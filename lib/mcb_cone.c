/* mcb_cone.c: friction-cone projections and complementarity functions. */
#include "lib/mcb_cone.h"
#include "lib/mcb_hd.h"

#include <math.h>

/* lib/mcb_hd.h's, shared with the GPU kernels */
void mcb_proj_cone(double mu, const double x[3], double out[3]) { mcb_hd_proj_cone(mu, x, out); }

void mcb_proj_strict(double mu, const double x[3], double out[3])
{
    double n = x[0] > 0.0 ? x[0] : 0.0;
    double t1 = x[1], t2 = x[2];
    double nt = mcb_hypot(t1, t2), r = mu * n;
    out[0] = n;
    if (nt > r) {
        double s = nt > 0.0 ? r / nt : 0.0;
        out[1] = s * t1;
        out[2] = s * t2;
    } else {
        out[1] = t1;
        out[2] = t2;
    }
}

double mcb_fb(double a, double b) { return a + b - mcb_hypot(a, b); }

/* Square root in the Jordan algebra of the 3D Lorentz cone, for w in the
 * cone: spectral values w0 -/+ ||wbar|| with frames (1, -/+ wbar/||wbar||)/2. */
static void soc_sqrt(const double w[3], double out[3])
{
    double nb = mcb_hypot(w[1], w[2]);
    double l1 = w[0] - nb, l2 = w[0] + nb;
    double s1 = sqrt(l1 > 0.0 ? l1 : 0.0), s2 = sqrt(l2 > 0.0 ? l2 : 0.0);
    out[0] = 0.5 * (s1 + s2);
    if (nb > 0.0) {
        double c = 0.5 * (s2 - s1) / nb;
        out[1] = c * w[1];
        out[2] = c * w[2];
    } else {
        out[1] = out[2] = 0.0;
    }
}

void mcb_fb_soc(const double x[3], const double y[3], double phi[3])
{
    /* x∘x = (||x||^2, 2 x0 xbar) */
    double w[3];
    w[0] = x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + y[0] * y[0] + y[1] * y[1] + y[2] * y[2];
    w[1] = 2.0 * (x[0] * x[1] + y[0] * y[1]);
    w[2] = 2.0 * (x[0] * x[2] + y[0] * y[2]);
    double s[3];
    soc_sqrt(w, s);
    for (int k = 0; k < 3; k++) phi[k] = x[k] + y[k] - s[k];
}

void mcb_contact_fb(double mu, const double lambda[3], const double u[3], double phi[3])
{
    if (mu <= 0.0) {
        phi[0] = mcb_fb(lambda[0], u[0]);
        phi[1] = lambda[1];
        phi[2] = lambda[2];
        return;
    }
    double ut = mcb_hypot(u[1], u[2]);
    double x[3] = {mu * lambda[0], lambda[1], lambda[2]};
    double y[3] = {(u[0] + mu * ut) / mu, u[1], u[2]};
    mcb_fb_soc(x, y, phi);
}

void mcb_contact_natmap(double mu, const double lambda[3], const double u[3], double res[3])
{
    double ut = mcb_hypot(u[1], u[2]);
    double w[3] = {lambda[0] - u[0] - mu * ut, lambda[1] - u[1], lambda[2] - u[2]};
    double p[3];
    mcb_proj_cone(mu, w, p);
    for (int k = 0; k < 3; k++) res[k] = lambda[k] - p[k];
}

int mcb_contact_inverse(int ccp, double mu, const double r[3], const double c[3],
                        double lambda[3])
{
    for (int k = 0; k < 3; k++)
        if (!(r[k] > 0.0) || !isfinite(r[k])) return -1;
    if (r[1] != r[2] || (ccp && r[0] != r[1])) return -1;
    double z[3] = {-c[0] / r[0], -c[1] / r[1], -c[2] / r[2]};
    if (ccp) mcb_proj_cone(mu, z, lambda);
    else mcb_proj_strict(mu, z, lambda);
    return 0;
}

void mcb_proj_ellipse(double a1, double a2, const double p[2], double x[2])
{
    double p1 = p[0], p2 = p[1];
    if (!(a1 > 0.0) || !(a2 > 0.0)) { /* a segment on one axis, or the origin */
        double a = a1 > 0.0 ? a1 : a2 > 0.0 ? a2 : 0.0, q = a1 > 0.0 ? p1 : p2;
        double y = q > a ? a : q < -a ? -a : q;
        x[0] = a1 > 0.0 ? y : 0.0;
        x[1] = a1 > 0.0 ? 0.0 : y;
        return;
    }
    double s1 = p1 / a1, s2 = p2 / a2;
    if (s1 * s1 + s2 * s2 <= 1.0) { /* inside */
        x[0] = p1;
        x[1] = p2;
        return;
    }
    /* f(t) = (a1 p1 / (a1^2 + t))^2 + (a2 p2 / (a2^2 + t))^2 - 1, decreasing
     * and convex on t >= 0, f(0) > 0 and f(hi) <= 0 at hi = ||(a1 p1, a2 p2)||:
     * Newton from below stays below the root and converges monotonically;
     * bisection guards against round-off. */
    double b1 = a1 * a1, b2 = a2 * a2, c1 = a1 * p1, c2 = a2 * p2;
    double lo = 0.0, hi = mcb_hypot(c1, c2), t = 0.0;
    for (int it = 0; it < 200; it++) {
        double d1 = b1 + t, d2 = b2 + t, q1 = c1 / d1, q2 = c2 / d2;
        double f = q1 * q1 + q2 * q2 - 1.0;
        if (f > 0.0) lo = t;
        else hi = t;
        if (f == 0.0) break;
        double df = -2.0 * (q1 * q1 / d1 + q2 * q2 / d2);
        double tn = t - f / df;
        if (!(tn > lo && tn < hi)) tn = 0.5 * (lo + hi);
        if (tn == t || hi - lo <= 4.0 * 2.220446049250313e-16 * hi) break;
        t = tn;
    }
    x[0] = p1 * b1 / (b1 + t);
    x[1] = p2 * b2 / (b2 + t);
}

void mcb_proj_strict_aniso(double mu1, double mu2, const double x[3], double out[3])
{
    double n = x[0] > 0.0 ? x[0] : 0.0, t[2] = {x[1], x[2]}, pt[2];
    mcb_proj_ellipse(mu1 * n, mu2 * n, t, pt);
    out[0] = n;
    out[1] = pt[0];
    out[2] = pt[1];
}

/* mcb_cone.c: friction-cone projections and complementarity functions. */
#include "lib/mcb_cone.h"

#include <math.h>

void mcb_proj_cone(double mu, const double x[3], double out[3])
{
    double n = x[0], t1 = x[1], t2 = x[2];
    double nt = mcb_hypot(t1, t2);
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

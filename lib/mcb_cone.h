/* mcb_cone.h: per-constraint operators on the friction cone
 * K_mu = { (n, t1, t2) : ||t|| <= mu n } and the constraint laws.
 * All take and return 3-vectors [n, t1, t2]; in and out may alias. */
#ifndef MCB_CONE_H
#define MCB_CONE_H

#include <math.h>

/* sqrt(a^2 + b^2): the plain formula where it neither overflows nor loses
 * precision to underflow (every contact quantity of a sane iterate), libm's
 * careful hypot() otherwise (huge, tiny, infinite or NaN arguments). The
 * plain formula is several times cheaper, and the projections and residuals
 * below call it once per contact per sweep or check. */
static inline double mcb_hypot(double a, double b)
{
    double s = a * a + b * b;
    if (s < 1e300 && (s > 1e-300 || s == 0.0)) return sqrt(s);
    return hypot(a, b);
}

/* Euclidean projection on K_mu (mu = 0: onto {n >= 0, t = 0}). This is
 * the "proximal" operator of the CANAL paper. */
void mcb_proj_cone(double mu, const double x[3], double out[3]);

/* Strict operator, CANAL/SubADMM eq. (17): n <- max(n, 0), then t clamped
 * to the disk of radius mu n. With a scalar Delassus weight it solves the
 * Signorini-Coulomb law exactly (Prop. 2 of the CANAL paper). */
void mcb_proj_strict(double mu, const double x[3], double out[3]);

/* Scalar Fischer-Burmeister function a + b - sqrt(a^2 + b^2). */
double mcb_fb(double a, double b);

/* Second-order-cone Fischer-Burmeister function in the Jordan algebra of
 * the Lorentz cone {x0 >= ||(x1, x2)||}: phi = x + y - (x∘x + y∘y)^(1/2). */
void mcb_fb_soc(const double x[3], const double y[3], double phi[3]);

/* The Signorini-Coulomb residual of one contact (lambda, u = J v + e) as a
 * Fischer-Burmeister 3-vector on x = [mu l_n, l_t], y = [(u_n + mu||u_t||)/mu, u_t];
 * for mu = 0: [fb(l_n, u_n), l_t1, l_t2]. */
void mcb_contact_fb(double mu, const double lambda[3], const double u[3], double phi[3]);

/* Natural-map residual of one contact, as Siconos computes it:
 * lambda - P_K(lambda - u - [mu ||u_t||, 0, 0]). */
void mcb_contact_natmap(double mu, const double lambda[3], const double u[3], double res[3]);

#endif

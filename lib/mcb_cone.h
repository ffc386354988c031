/* mcb_cone.h: per-constraint operators on the friction cone
 * K_mu = { (n, t1, t2) : ||t|| <= mu n } and the constraint laws.
 * All take and return 3-vectors [n, t1, t2]; in and out may alias. */
#ifndef MCB_CONE_H
#define MCB_CONE_H

#include <math.h>

#include "lib/mcb_hd.h"

/* sqrt(a^2 + b^2) without needless overflow or underflow (mcb_hd.h:
 * the plain formula for every sane contact quantity, libm's hypot() else). */
static inline double mcb_hypot(double a, double b) { return mcb_hd_hypot(a, b); }

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

/* The invertible contact model (COND paper Sec. III-E1, after Todorov 2014):
 * a contact with compliance r > 0 (the problem's per-row compliance,
 * lib/mcb_problem.h: the law holds for u = J v + e + r∘lambda) determines
 * its impulse from the velocity alone. With c = J v + e:
 *   contact (Signorini-Coulomb, ccp = 0): lambda_n = max(0, -c_n / r_n) and
 *     lambda_t = -c_t / r_t clamped to the disk mu lambda_n (the strict
 *     operator on -c / r), which needs r_t1 = r_t2;
 *   contact_ccp (ccp = 1): lambda = P_K(-c / r), the Euclidean projection on
 *     the cone, which needs r_n = r_t1 = r_t2 (else the projection is in the
 *     metric of R).
 * Returns 0, or -1 (lambda untouched) when r is not positive and finite or
 * not of the shape the law needs. */
int mcb_contact_inverse(int ccp, double mu, const double r[3], const double c[3],
                        double lambda[3]);

/* Euclidean projection of p = (p1, p2) onto the ellipse
 * { (x1 / a1)^2 + (x2 / a2)^2 <= 1 }, a1, a2 >= 0 (a zero semi-axis: the
 * segment along the other axis; both zero: the origin). Outside the ellipse
 * x_k = p_k a_k^2 / (a_k^2 + t) with t > 0 the root of
 * sum_k (a_k p_k / (a_k^2 + t))^2 = 1, found by safeguarded Newton (bisection
 * when a step leaves the bracket) to round-off. */
void mcb_proj_ellipse(double a1, double a2, const double p[2], double x[2]);

/* The strict operator on the elliptic cone ||diag(1/mu1, 1/mu2) t|| <= n
 * (COND paper Prop. 6, maximal dissipation): n <- max(n, 0), then t the
 * Euclidean projection of x's tangential part onto the ellipse of
 * semi-axes mu1 n, mu2 n. mu1 = mu2 = mu is mcb_proj_strict. */
void mcb_proj_strict_aniso(double mu1, double mu2, const double x[3], double out[3]);

#endif

/* mcb_aniso.h: anisotropic friction through its isotropic equivalent.
 *
 * A contact block b with friction coefficients (mu1, mu2) = (mu, mu2[b])
 * has the elliptic cone K_e = { ||diag(1/mu1, 1/mu2) lambda_t|| <= lambda_n }
 * and maximal dissipation (COND paper eq. (12), Prop. 6). With
 * S = diag(1, mu1, mu2) and lambda = S lambda', it is exactly an isotropic
 * contact with mu = 1 on the rows S J_b, S e_b (S W S, S q in dual form)
 * and compliance S r S: K_e = S K_1, its dual cone K_e* = S^-1 K_1*, the
 * velocity u' = S u, u'·lambda' = u·lambda, so maximal dissipation,
 * Signorini and the CCP map onto each other (docs/problem-format.md). A
 * zero coefficient gives a zero row: its lambda' is free in the disk, its
 * lambda 0.
 * The runner hands this equivalent to solvers that do not declare native
 * anisotropy and maps their lambda back; the metrics judge an anisotropic
 * problem on it. */
#ifndef MCB_ANISO_H
#define MCB_ANISO_H

#include "lib/mcb_error.h"
#include "lib/mcb_problem.h"

/* *Q = the isotropic equivalent of P (a deep copy; for an isotropic P a
 * plain copy), with mu2 dropped, every anisotropic contact's mu = 1 and its
 * tangential rows scaled; v0, lambda0 and lambda_ref mapped. Q is freed
 * with mcb_problem_free. */
mcb_rc mcb_aniso_isotropic(const mcb_problem *P, mcb_problem **Q, mcb_err *err);

/* lambda' = S^-1 lambda (to the equivalent; 0 where a coefficient is 0)
 * and lambda = S lambda' (back). in and out may alias. v is the same in
 * both problems. */
void mcb_aniso_lambda_to_iso(const mcb_problem *P, const double *lambda, double *liso);
void mcb_aniso_lambda_from_iso(const mcb_problem *P, const double *liso, double *lambda);

#endif

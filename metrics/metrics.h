/* metrics.h: the harness's own judgement of a solution.
 *
 * Every residual is recomputed here from the returned (v, lambda) alone
 * (lambda alone for dual-form problems); a solver's own stopping measure is
 * never used. Definitions (docs/metrics.md has them in full):
 *   dyn_abs  ||A v - b - J^T lambda||                       (NaN for dual form)
 *   dyn_rel  dyn_abs / max(||b||, ||A v||, ||J^T lambda||)  (NaN for dual form)
 *   fb       ||phi|| over all rows: Fischer-Burmeister per row / per contact
 *   fb_max   max over contacts of ||phi_contact||
 *   natmap   natural-map residual as Siconos 4.4 computes it
 *   zres     z-residual of the CANAL/SubADMM paper, Sec. VII
 *   pen_max  max over contacts of max(0, -u_n)
 *   pen_sum  sum over contacts of the same
 *   natmap_ncp  natmap with every contact judged by the Signorini-Coulomb law
 *   natmap_ccp  natmap with every contact judged by the cone complementarity law
 * with u = J v + e + r∘lambda (primal) or u = W lambda + q + r∘lambda (dual),
 * r the per-row compliance (zero when the problem has none): pen_* then
 * measure the violation of the compliant law u_n >= 0, not the geometric
 * interpenetration J_n v + e_n, which a compliant contact allows.
 *
 * The law (mcb_metrics_ws_set_law): under MCB_LAW_NCP (the default) every
 * block is judged by its stored type; under MCB_LAW_CCP every `contact`
 * block is judged as `contact_ccp`. fb, fb_max, natmap and zres follow the
 * law; natmap_ncp and natmap_ccp do not (they report both laws for every
 * run: what the CCP relaxation costs under Coulomb, and the reverse).
 *
 * Anisotropic friction (a problem with mu2, lib/mcb_problem.h): every
 * metric is computed on the isotropic equivalent (lib/mcb_aniso.h) with
 * lambda mapped onto it, so the cone, its dual and maximal dissipation are
 * the elliptic ones; v, u_n, the dynamics and the penetration are unchanged,
 * and the contact residuals are those of the scaled tangential rows. */
#ifndef MCB_METRICS_H
#define MCB_METRICS_H

#include "lib/mcb_problem.h"
#include "lib/mcb_vocab.h"


typedef struct mcb_metrics_ws mcb_metrics_ws;

/* Prepares the workspace for one problem; for primal problems factors A
 * once (CHOLMOD), reused for every z-residual of that problem. */
mcb_rc mcb_metrics_ws_new(const mcb_problem *P, mcb_metrics_ws **out, mcb_err *err);
void mcb_metrics_ws_free(mcb_metrics_ws **ws);
/* Sets the law (mcb_law) the workspace judges by; MCB_LAW_NCP after _new. */
void mcb_metrics_ws_set_law(mcb_metrics_ws *ws, int law);

/* The cone complementarity residuals of one contact (lambda, u), u its local
 * velocity (J v + e + r∘lambda on its rows):
 * natural map lambda - P_K(lambda - u), and the Fischer-Burmeister 3-vector
 * on x = [mu l_n, l_t], y = [u_n / mu, u_t] (for mu = 0: [fb(l_n, u_n), l_t]).
 * Both are zero exactly when (u, lambda) in K_mu* x K_mu and u ⊥ lambda. */
void mcb_ccp_natmap(double mu, const double lambda[3], const double u[3], double res[3]);
void mcb_ccp_fb(double mu, const double lambda[3], const double u[3], double phi[3]);

/* All metrics. v is ignored (may be NULL) for dual-form problems. */
void mcb_metrics_compute(mcb_metrics_ws *ws, const double *v, const double *lambda,
                         mcb_metrics *out);
/* One metric (cheaper: computes only what it needs). */
double mcb_metrics_one(mcb_metrics_ws *ws, int id, const double *v, const double *lambda);

/* COND's invertible contact model, measured (COND paper Sec. III-E1, V-F,
 * Fig. 13): on the contact blocks with a positive compliance r on every row
 * (contact_ccp, or contact under MCB_LAW_CCP: r_n = r_t1 = r_t2; contact:
 * r_t1 = r_t2), out[0] = ||J_c^T lambda_c||, the contact impulses the solver
 * returned applied to the DOFs ("forward"), and out[1] = ||J_c^T lambda_inv||,
 * lambda_inv = mcb_contact_inverse(J v + e) per block: the impulses the
 * model determines from the velocity alone ("inverse"), both in N s. They
 * agree when (v, lambda) satisfy the compliant law. Returns the number of
 * such blocks; 0 (out NaN) when there are none, for dual-form problems and
 * for problems with anisotropic friction (not measured). Uses ws's
 * scratch. */
int mcb_metrics_contact_forces(mcb_metrics_ws *ws, const double *v, const double *lambda,
                               double out[2]);

#endif

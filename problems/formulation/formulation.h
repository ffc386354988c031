/* formulation.h: the formulation layer (issue 13, RPIsim Sec. 2.3 and 3):
 * from one stored problem P, the subproblem F(P) a solver receives, and the
 * map from a solution of F(P) back to (v, lambda) of P, which the harness
 * judges under P's stored law.
 *
 * Formulations (one file each, dispatched by formulation.c):
 *   ncp     form_ncp.c     F(P) = P (the default; no copy)
 *   ccp     form_ccp.c     P with every contact block relabelled contact_ccp
 *   lcp-st  form_lcp_st.c  Stewart-Trinkle (RPIsim eq. (7)): an LCP
 *                          u = W z + q in z = (lambda_n, beta, sigma) per
 *                          contact, the cone replaced by a polygon of n_d
 *                          directions; primal or dual P
 *   lcp-ap  form_lcp_ap.c  Anitescu-Potra (Sec. 3.3): lcp-st with the
 *                          contact rows' constant terms e set to 0; needs
 *                          the primal data
 *   mlcp    form_mlcp.c    the mixed LCP of eq. (6) without the PEG rows:
 *                          variables (v, z), the Newton-Euler rows kept as
 *                          free (bilateral) rows, A never inverted; needs
 *                          the primal data
 * The LCP forms carry P's initial guess lifted (mcb_formulation_lift() of
 * (v0, lambda0), when P has both; a dual P lambda0 alone) as their
 * lambda0, for --warm-start.
 * The LCP forms are dual problems whose blocks are all unilateral or
 * bilateral (what mcb_accepts_lcp() takes); W may be unsymmetric with zero
 * diagonal entries. Bilateral and unilateral rows carry over as they are;
 * soft rows become bilateral rows carrying their (linear) law, see
 * docs/formulations.md. Contact_ccp blocks are linearised like contacts.
 *
 * Failures are an mcb_rc with the message in err (MCB_E_INPUT: the
 * formulation needs the primal data or an unknown name; MCB_E_NUMERIC: A
 * not positive definite; MCB_E_NOMEM). Nothing here exits or prints. */
#ifndef MCB_FORMULATION_H
#define MCB_FORMULATION_H

#include "lib/mcb_problem.h"

typedef enum {
    MCB_FORM_NCP = 0,
    MCB_FORM_CCP,
    MCB_FORM_LCP_ST,
    MCB_FORM_LCP_AP,
    MCB_FORM_MLCP,
    MCB_NFORMULATIONS
} mcb_formulation_id;

/* Friction directions of the polygonal cone (RPIsim Fig. 6) by default. */
#define MCB_FRICTION_DIRS_DEFAULT 8
#define MCB_FRICTION_DIRS_MAX 1024

const char *mcb_formulation_name(int kind);     /* "ncp", ...; "unknown" */
int mcb_formulation_from_name(const char *name); /* -1 if unknown */
/* 1 when the formulation's subproblem is an LCP/MLCP (its own residual the
 * natural merit function ||min(z, w)||_2). */
int mcb_formulation_is_lcp(int kind);

typedef struct mcb_formulation mcb_formulation;

/* Builds F(P) (nd: friction directions, used by the LCP forms, >= 3). P is
 * borrowed and must outlive the formulation. */
mcb_rc mcb_formulation_build(const mcb_problem *P, int kind, int nd, mcb_formulation **out,
                             mcb_err *err);
/* The subproblem a solver receives (P itself for ncp). */
const mcb_problem *mcb_formulation_problem(const mcb_formulation *F);
int mcb_formulation_kind(const mcb_formulation *F);
int mcb_formulation_nd(const mcb_formulation *F);

/* Maps a solution (vF, zF) of F(P) back to (v, lambda) of P: lambda_t =
 * D beta per contact, the other rows as solved (soft rows' impulses are
 * their variables); v = A^-1 (b + J^T lambda) (CHOLMOD) for lcp-st and
 * lcp-ap, the solution's own v for mlcp, vF for ncp and ccp. vF may be
 * NULL when F(P) is dual; v may be NULL (not wanted) and is left alone for
 * a dual P. No allocation (CHOLMOD's solve aside). */
mcb_rc mcb_formulation_map_back(mcb_formulation *F, const double *vF, const double *zF,
                                double *v, double *lambda);

/* The formulation's own residual at (vF, zF): for the LCP forms the
 * natural merit function ||min(z, w)||_2 over the unilateral rows together
 * with ||w||_2 over the bilateral rows (w = W z + q); for ncp and ccp the
 * natural-map residual (metrics natmap) of F(P) under its own law. NaN when
 * it cannot be computed (out of memory). */
double mcb_formulation_residual(mcb_formulation *F, const double *vF, const double *zF);

/* The inverse map for the LCP forms, for warm starts and tests: z from a
 * (lambda of P, v of P) where each contact's lambda_t is written on the
 * polygon as the combination of its two nearest directions and sigma as
 * the maximal dissipation rate max(0, -min_k d_k . u_t), u = J v + e (u =
 * W lambda + q for a dual P; v may then be NULL). For mlcp z starts with v.
 * Exact for a lambda_t on the polygon. Returns MCB_E_INPUT for ncp/ccp. */
mcb_rc mcb_formulation_lift(mcb_formulation *F, const double *v, const double *lambda,
                            double *z);

void mcb_formulation_free(mcb_formulation **F); /* accepts NULL and *F == NULL */

#endif

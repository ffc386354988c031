/* form_internal.h: what the formulation files share (not a public header).
 * The builders fill F->Q (and the LCP forms' map), the dispatcher
 * (formulation.c) does the rest. */
#ifndef MCB_FORM_INTERNAL_H
#define MCB_FORM_INTERNAL_H

#include "problems/formulation/formulation.h"
#include "lib/mcb_delassus.h"
#include "metrics/metrics.h"

struct mcb_formulation {
    int kind, nd;
    const mcb_problem *P; /* the stored problem, borrowed */
    mcb_problem *Q;       /* F(P), owned; NULL for ncp (the solver gets P) */
    mcb_delassus *D;      /* lcp-st, lcp-ap: W, q of P; A's factor for the map back */
    int off;              /* mlcp: n (z follows v in Q's variables); 0 otherwise */
    int mz;               /* rows of the LCP part (Q->m - off) */
    int *qrow;            /* per P block: its first row in the LCP part */
    double *dir;          /* 2 nd: (cos, sin) of the polygon's directions */
    mcb_csc *T;           /* m x mz: lambda = T z (lambda_t = D beta) */
    double *lam, *w, *u;  /* scratch: P->m, Q->m, P->m */
    mcb_metrics_ws *ws;   /* ncp, ccp: own residual, made on first use */
};

mcb_rc mcb_form_build_ncp(mcb_formulation *F, mcb_err *err);
mcb_rc mcb_form_build_ccp(mcb_formulation *F, mcb_err *err);
mcb_rc mcb_form_build_lcp_st(mcb_formulation *F, mcb_err *err);
mcb_rc mcb_form_build_lcp_ap(mcb_formulation *F, mcb_err *err);
mcb_rc mcb_form_build_mlcp(mcb_formulation *F, mcb_err *err);

/* ---- form_lcp.c: the machinery of the LCP forms ---- */

/* The layout (F->qrow, F->mz, F->dir, F->T, F->Q's blocks after F->off
 * rows, a bilateral block of them first when F->off > 0) and Q's shell
 * (dual form, m = off + mz, q allocated and zero). */
mcb_rc mcb_form_lcp_layout(mcb_formulation *F, mcb_err *err);

/* A growing triplet list. */
typedef struct {
    int n, cap;
    int *i, *j;
    double *x;
} mcb_trip;
int mcb_trip_push(mcb_trip *t, int i, int j, double x); /* 0 on allocation failure */
void mcb_trip_free(mcb_trip *t);

/* 1 when LCP row c (0-based in the LCP part) is a soft row whose law has
 * k alpha = 0 (lambda = -k e: the row is the identity, its W and J parts
 * dropped); the soft row's P row in *prow, its block in *blk. */
int mcb_form_soft_fixed(const mcb_formulation *F, int c);

/* Appends to t the entries every LCP form adds to the LCP part (rows and
 * columns shifted by F->off): per contact E (beta rows, sigma column), the
 * sigma row [mu, -1 ... -1, 0], and per soft row its compliance 1 / (k
 * alpha) or, for k alpha = 0, the identity. q holds the LCP part's
 * constants as assembled (a soft row: q_r = (J A^-1 b + e)_r for the LCP
 * forms, e_r for mlcp); a soft row's gets (1 - alpha) e_r / alpha added
 * (u + lambda / (k alpha) + (1 - alpha) e / alpha = 0 is its law), or
 * becomes k e_r for k alpha = 0. 0 on allocation failure. */
int mcb_form_lcp_extras(mcb_formulation *F, mcb_trip *t, double *q);

/* lambda = T z (z: Q's variables, the LCP part after F->off). */
void mcb_form_lcp_lambda(const mcb_formulation *F, const double *z, double *lambda);
/* ||min(z, w)||_2 over unilateral rows with ||w||_2 over bilateral rows. */
double mcb_form_lcp_merit(mcb_formulation *F, const double *z);
/* z from (v, lambda) of P (see mcb_formulation_lift()). */
mcb_rc mcb_form_lcp_lift(mcb_formulation *F, const double *v, const double *lambda, double *z);

/* form_lcp_st.c: the LCP of a primal or dual P from its Delassus operator;
 * drop_contact_e: Anitescu-Potra's right-hand side (primal P only). */
mcb_rc mcb_form_lcp_dual(mcb_formulation *F, int drop_contact_e, mcb_err *err);

#endif

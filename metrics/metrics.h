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
 *   pen_max  max over contacts of max(0, -(J_n v + e_n))
 *   pen_sum  sum over contacts of the same
 * with u = J v + e (primal) or u = W lambda + q (dual). */
#ifndef MCB_METRICS_H
#define MCB_METRICS_H

#include "mcb_problem.h"

typedef enum {
    MCB_M_DYN_ABS = 0,
    MCB_M_DYN_REL,
    MCB_M_FB,
    MCB_M_FB_MAX,
    MCB_M_NATMAP,
    MCB_M_ZRES,
    MCB_M_PEN_MAX,
    MCB_M_PEN_SUM,
    MCB_NMETRICS
} mcb_metric_id;

const char *mcb_metric_name(int id);
int mcb_metric_from_name(const char *name); /* -1 if unknown */
/* 1 for the residuals (dyn_*, fb*, natmap, zres) that a tolerance may target */
int mcb_metric_is_residual(int id);

typedef struct {
    double val[MCB_NMETRICS];
} mcb_metrics;

typedef struct mcb_metrics_ws mcb_metrics_ws;

/* Prepares the workspace for one problem; for primal problems factors A
 * once (CHOLMOD), reused for every z-residual of that problem. */
mcb_rc mcb_metrics_ws_new(const mcb_problem *P, mcb_metrics_ws **out, mcb_err *err);
void mcb_metrics_ws_free(mcb_metrics_ws **ws);

/* All metrics. v is ignored (may be NULL) for dual-form problems. */
void mcb_metrics_compute(mcb_metrics_ws *ws, const double *v, const double *lambda,
                         mcb_metrics *out);
/* One metric (cheaper: computes only what it needs). */
double mcb_metrics_one(mcb_metrics_ws *ws, int id, const double *v, const double *lambda);

#endif

/* formulation.c: the dispatcher of the formulation layer (formulation.h):
 * names, build (one builder per file: form_ncp.c, form_ccp.c,
 * form_lcp_st.c, form_lcp_ap.c, form_mlcp.c; the LCP machinery in
 * form_lcp.c), map back, own residual, lift, free. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "problems/formulation/form_internal.h"

static const char *const names[MCB_NFORMULATIONS] = {"ncp", "ccp", "lcp-st", "lcp-ap", "mlcp"};

const char *mcb_formulation_name(int kind)
{
    return kind >= 0 && kind < MCB_NFORMULATIONS ? names[kind] : "unknown";
}

int mcb_formulation_from_name(const char *name)
{
    for (int k = 0; name && k < MCB_NFORMULATIONS; k++)
        if (!strcmp(name, names[k])) return k;
    return -1;
}

int mcb_formulation_is_lcp(int kind)
{
    return kind == MCB_FORM_LCP_ST || kind == MCB_FORM_LCP_AP || kind == MCB_FORM_MLCP;
}

void mcb_formulation_free(mcb_formulation **F)
{
    if (!F || !*F) return;
    mcb_formulation *f = *F;
    mcb_problem_free(&f->Q);
    mcb_delassus_free(&f->D);
    mcb_csc_free(&f->T);
    mcb_metrics_ws_free(&f->ws);
    free(f->qrow);
    free(f->dir);
    free(f->lam);
    free(f->w);
    free(f->u);
    free(f);
    *F = NULL;
}

/* The LCP forms' initial guess: P's (v0, lambda0) lifted (for a primal P
 * both are needed, u = J v0 + e giving sigma), so that --warm-start means
 * the same start in every formulation. */
static mcb_rc warm_start(mcb_formulation *F, mcb_err *err)
{
    const mcb_problem *P = F->P;
    if (!P->lambda0 || (P->form == MCB_PRIMAL && !P->v0)) return MCB_OK;
    F->Q->lambda0 = mcb_calloc((size_t)F->Q->m + 1, sizeof(double));
    if (!F->Q->lambda0) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    return mcb_form_lcp_lift(F, P->v0, P->lambda0, F->Q->lambda0);
}

mcb_rc mcb_formulation_build(const mcb_problem *P, int kind, int nd, mcb_formulation **out,
                             mcb_err *err)
{
    *out = NULL;
    if (!P) return mcb_fail(err, MCB_E_INPUT, "formulation: no problem");
    if (kind < 0 || kind >= MCB_NFORMULATIONS)
        return mcb_fail(err, MCB_E_INPUT, "formulation: unknown kind %d", kind);
    if (mcb_formulation_is_lcp(kind) && (nd < 3 || nd > MCB_FRICTION_DIRS_MAX))
        return mcb_fail(err, MCB_E_INPUT,
                        "formulation %s: --friction-directions %d must lie in [3, %d]",
                        names[kind], nd, MCB_FRICTION_DIRS_MAX);
    mcb_formulation *F = calloc(1, sizeof *F);
    if (!F) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    F->kind = kind;
    F->nd = mcb_formulation_is_lcp(kind) ? nd : 0;
    F->P = P;
    mcb_rc rc;
    switch (kind) {
    case MCB_FORM_NCP: rc = mcb_form_build_ncp(F, err); break;
    case MCB_FORM_CCP: rc = mcb_form_build_ccp(F, err); break;
    case MCB_FORM_LCP_ST: rc = mcb_form_build_lcp_st(F, err); break;
    case MCB_FORM_LCP_AP: rc = mcb_form_build_lcp_ap(F, err); break;
    default: rc = mcb_form_build_mlcp(F, err); break;
    }
    if (!rc && mcb_formulation_is_lcp(kind)) rc = warm_start(F, err);
    if (rc) {
        mcb_formulation_free(&F);
        return rc;
    }
    *out = F;
    return MCB_OK;
}

const mcb_problem *mcb_formulation_problem(const mcb_formulation *F)
{
    return F->Q ? F->Q : F->P;
}

int mcb_formulation_kind(const mcb_formulation *F) { return F->kind; }
int mcb_formulation_nd(const mcb_formulation *F) { return F->nd; }

mcb_rc mcb_formulation_map_back(mcb_formulation *F, const double *vF, const double *zF,
                                double *v, double *lambda)
{
    const mcb_problem *P = F->P;
    int primal = P->form == MCB_PRIMAL;
    if (!mcb_formulation_is_lcp(F->kind)) { /* ncp, ccp: the same variables */
        memcpy(lambda, zF, (size_t)P->m * sizeof(double));
        if (v && primal && vF) memcpy(v, vF, (size_t)P->n * sizeof(double));
        return MCB_OK;
    }
    mcb_form_lcp_lambda(F, zF, lambda);
    if (!v || !primal) return MCB_OK;
    if (F->kind == MCB_FORM_MLCP) {
        memcpy(v, zF, (size_t)P->n * sizeof(double));
        return MCB_OK;
    }
    return mcb_delassus_velocity(F->D, lambda, v);
}

double mcb_formulation_residual(mcb_formulation *F, const double *vF, const double *zF)
{
    if (mcb_formulation_is_lcp(F->kind)) return mcb_form_lcp_merit(F, zF);
    const mcb_problem *Q = mcb_formulation_problem(F);
    if (!F->ws) {
        mcb_err err;
        if (mcb_metrics_ws_new(Q, &F->ws, &err)) return NAN;
    }
    return mcb_metrics_one(F->ws, MCB_M_NATMAP, vF, zF);
}

mcb_rc mcb_formulation_lift(mcb_formulation *F, const double *v, const double *lambda,
                            double *z)
{
    if (!mcb_formulation_is_lcp(F->kind)) return MCB_E_INPUT;
    return mcb_form_lcp_lift(F, v, lambda, z);
}

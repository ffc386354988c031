/* registry.c: the one explicit table of solvers, and the helpers around the
 * solver interface. Adding a solver: one file in solvers/, one line here,
 * and its row in the fixtures x solvers test table (tests/test_solvers.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"

extern const mcb_solver_def mcb_solver_pgs;
extern const mcb_solver_def mcb_solver_pj;
extern const mcb_solver_def mcb_solver_subadmm;
extern const mcb_solver_def mcb_solver_fadmm;
extern const mcb_solver_def mcb_solver_subadmm_nobody;
extern const mcb_solver_def mcb_solver_apgd;
extern const mcb_solver_def mcb_solver_ccp_jacobi;
extern const mcb_solver_def mcb_solver_nnewton;
extern const mcb_solver_def mcb_solver_canal;
extern const mcb_solver_def mcb_solver_cond, mcb_solver_cond_prox, mcb_solver_cond_nocheb;
extern const mcb_solver_def mcb_solver_al_trdogleg, mcb_solver_al_dampedsn;
extern const mcb_solver_def mcb_solver_psor, mcb_solver_pgs_shuffle, mcb_solver_pgs_mf, mcb_solver_nncg;
extern const mcb_solver_def mcb_solver_fischer_newton, mcb_solver_minmap_newton, mcb_solver_fixed_point;
#ifdef MCB_HAVE_SICONOS
extern const mcb_solver_def mcb_solver_siconos_nsgs;
extern const mcb_solver_def mcb_solver_siconos_nsn_ac;
extern const mcb_solver_def mcb_solver_siconos_admm;
#endif

static const mcb_solver_def *const registry[] = {
    &mcb_solver_pgs,
    &mcb_solver_pj,
    &mcb_solver_subadmm,
    &mcb_solver_fadmm,
    &mcb_solver_subadmm_nobody,
    &mcb_solver_apgd,
    &mcb_solver_ccp_jacobi,
    &mcb_solver_nnewton,
    &mcb_solver_canal,
    &mcb_solver_cond, &mcb_solver_cond_prox, &mcb_solver_cond_nocheb,
    &mcb_solver_al_trdogleg, &mcb_solver_al_dampedsn,
    &mcb_solver_psor, &mcb_solver_pgs_shuffle, &mcb_solver_pgs_mf, &mcb_solver_nncg,
    &mcb_solver_fischer_newton, &mcb_solver_minmap_newton, &mcb_solver_fixed_point,
#ifdef MCB_HAVE_SICONOS /* peers, present when built with Siconos numerics */
    &mcb_solver_siconos_nsgs,
    &mcb_solver_siconos_nsn_ac,
    &mcb_solver_siconos_admm,
#endif
};

int mcb_solver_count(void) { return (int)(sizeof registry / sizeof registry[0]); }

const mcb_solver_def *mcb_solver_at(int k)
{
    return k >= 0 && k < mcb_solver_count() ? registry[k] : NULL;
}

const mcb_solver_def *mcb_solver_find(const char *name)
{
    for (int k = 0; k < mcb_solver_count(); k++)
        if (strcmp(registry[k]->name, name) == 0) return registry[k];
    return NULL;
}

void mcb_settings_default(mcb_settings *s)
{
    s->max_iters = 1000;
    s->time_limit_s = 60.0;
    s->tol = 1e-8;
    s->threads = 1;
    s->warm_start = 0;
}

const char *mcb_status_name(int status)
{
    static const char *names[MCB_NSTATUS] = {"solved",       "max-iterations", "time-limit",
                                             "diverged",     "setup-failed",   "skipped",
                                             "stalled",      "crashed"};
    return status >= 0 && status < MCB_NSTATUS ? names[status] : "unknown";
}

int mcb_solver_black_box(const mcb_solver_def *def, int form)
{
    if (!def->black_box) return 0;
    if (!def->black_box_forms) return 1;
    unsigned bit = form == MCB_PRIMAL ? MCB_ACCEPTS_PRIMAL : MCB_ACCEPTS_DUAL;
    return (def->black_box_forms & bit) != 0;
}

int mcb_status_from_cb(mcb_cb_action a)
{
    switch (a) {
    case MCB_CB_CONVERGED: return MCB_ST_SOLVED;
    case MCB_CB_TIME_LIMIT: return MCB_ST_TIME_LIMIT;
    case MCB_CB_DIVERGED: return MCB_ST_DIVERGED;
    default: return MCB_ST_MAX_ITERS;
    }
}

mcb_rc mcb_param_set(const mcb_solver_def *def, void *params, const char *name,
                     const char *value, mcb_err *err)
{
    for (int k = 0; k < def->nparams; k++) {
        const mcb_param_desc *d = &def->params[k];
        if (strcmp(d->name, name) != 0) continue;
        char *end = NULL;
        errno = 0;
        if (d->type == 'd') {
            double x = strtod(value, &end);
            if (errno || end == value || *end || !isfinite(x))
                return mcb_fail(err, MCB_E_INPUT, "%s.%s: '%s' is not a finite number",
                                def->name, name, value);
            memcpy((char *)params + d->offset, &x, sizeof x);
        } else {
            long x = strtol(value, &end, 10);
            if (errno || end == value || *end || x < -2147483647L || x > 2147483647L)
                return mcb_fail(err, MCB_E_INPUT, "%s.%s: '%s' is not an integer", def->name,
                                name, value);
            int xi = (int)x;
            memcpy((char *)params + d->offset, &xi, sizeof xi);
        }
        return MCB_OK;
    }
    return mcb_fail(err, MCB_E_INPUT, "solver %s has no parameter '%s' (see 'mcbench solvers')",
                    def->name, name);
}

void mcb_param_format(const mcb_solver_def *def, const void *params, int k, char *buf,
                      size_t len)
{
    const mcb_param_desc *d = &def->params[k];
    if (d->type == 'd') {
        double x;
        memcpy(&x, (const char *)params + d->offset, sizeof x);
        snprintf(buf, len, "%g", x);
    } else {
        int x;
        memcpy(&x, (const char *)params + d->offset, sizeof x);
        snprintf(buf, len, "%d", x);
    }
}

int mcb_accepts_coulomb_only(const mcb_problem *P, char *reason, size_t len)
{
    for (int b = 0; P && b < P->nblocks; b++)
        if (P->blocks[b].type == MCB_CONTACT_CCP) {
            snprintf(reason, len,
                     "block %d is contact_ccp: this solver's local steps solve the Coulomb "
                     "law only (apgd and ccp-jacobi solve the CCP)",
                     b);
            return 0;
        }
    return 1;
}

int mcb_accepts_lcp(const mcb_problem *P, char *reason, size_t len)
{
    if (!P || P->form != MCB_DUAL) {
        snprintf(reason, len,
                 "an LCP solver takes a dual problem u = W z + q (run it with --formulation "
                 "lcp-st, lcp-ap or mlcp)");
        return 0;
    }
    for (int b = 0; b < P->nblocks; b++) {
        int t = P->blocks[b].type;
        if (t != MCB_UNILATERAL && t != MCB_BILATERAL) {
            snprintf(reason, len,
                     "block %d is %s: an LCP solver takes only unilateral rows (and bilateral "
                     "rows, the free part of an MLCP); run it with --formulation lcp-st, "
                     "lcp-ap or mlcp",
                     b, mcb_ctype_name(t));
            return 0;
        }
    }
    return 1;
}

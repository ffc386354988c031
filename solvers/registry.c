/* registry.c: the one explicit table of solvers, the small fixed table of
 * solvers added at run time (plugins, loaded by the harness), and the
 * helpers around the solver interface. Adding a solver: one file in
 * solvers/, one line here, and its row in the fixtures x solvers test table
 * (tests/test_solvers.c). Allocates nothing. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/solver.h"

/* The built-in solvers, one line each, in the order `mcbench solvers`
 * lists them: X(name) registers mcb_solver_<name>, the mcb_solver_def its
 * file in solvers/ defines. Add a solver's line above the closing comment. */
#define MCB_SOLVERS(X)  \
    X(pgs)              \
    X(pj)               \
    X(subadmm)          \
    X(fadmm)            \
    X(subadmm_nobody)   \
    X(apgd)             \
    X(ccp_jacobi)       \
    X(nnewton)          \
    X(canal)            \
    X(cond)             \
    X(cond_prox)        \
    X(cond_nocheb)      \
    X(cond_shift)       \
    X(ccs)              \
    X(al_trdogleg)      \
    X(al_dampedsn)      \
    X(psor)             \
    X(pgs_shuffle)      \
    X(pgs_mf)           \
    X(nncg)             \
    X(psor_lcp)         \
    X(pj_lcp)           \
    X(fischer_newton)   \
    X(minmap_newton)    \
    X(fixed_point)      \
    X(lemke)            \
    X(ip_lcp)           \
    /* end of the list */

/* The peers, present when built with Siconos numerics or with MuJoCo
 * (recorded MuJoCo problems only): solvers/peers/. */
#ifdef MCB_HAVE_SICONOS
#define MCB_SICONOS_PEERS(X) X(siconos_nsgs) X(siconos_nsn_ac) X(siconos_admm)
#else
#define MCB_SICONOS_PEERS(X)
#endif
#ifdef MCB_HAVE_MUJOCO
#define MCB_MUJOCO_PEERS(X) X(mujoco_pgs) X(mujoco_cg) X(mujoco_newton)
#else
#define MCB_MUJOCO_PEERS(X)
#endif

/* The GPU solvers, present when built with the CUDA compiler (solvers/gpu/,
 * docs/gpu.md). */
#ifdef MCB_HAVE_CUDA
#define MCB_GPU_SOLVERS(X) X(ccp_jacobi_gpu) X(pj_gpu)
#else
#define MCB_GPU_SOLVERS(X)
#endif

#define DECLARE(name) extern const mcb_solver_def mcb_solver_##name;
MCB_SOLVERS(DECLARE)
MCB_SICONOS_PEERS(DECLARE)
MCB_MUJOCO_PEERS(DECLARE)
MCB_GPU_SOLVERS(DECLARE)
#undef DECLARE

#define ENTRY(name) &mcb_solver_##name,
static const mcb_solver_def *const registry[] = {
    MCB_SOLVERS(ENTRY) MCB_SICONOS_PEERS(ENTRY) MCB_MUJOCO_PEERS(ENTRY) MCB_GPU_SOLVERS(ENTRY)
};
#undef ENTRY

#define NBUILTIN ((int)(sizeof registry / sizeof registry[0]))

/* runtime additions (mcb_registry_add), after the built-in solvers */
static const mcb_solver_def *added[MCB_MAX_RUNTIME_SOLVERS];
static int nadded;

int mcb_solver_count(void) { return NBUILTIN + nadded; }

const mcb_solver_def *mcb_solver_at(int k)
{
    if (k >= 0 && k < NBUILTIN) return registry[k];
    if (k >= NBUILTIN && k < NBUILTIN + nadded) return added[k - NBUILTIN];
    return NULL;
}

const mcb_solver_def *mcb_solver_find(const char *name)
{
    for (int k = 0; name && k < mcb_solver_count(); k++)
        if (strcmp(mcb_solver_at(k)->name, name) == 0) return mcb_solver_at(k);
    return NULL;
}

int mcb_solver_is_builtin(const mcb_solver_def *def)
{
    for (int k = 0; def && k < NBUILTIN; k++)
        if (registry[k] == def) return 1;
    return 0;
}

int mcb_abi_version(void) { return MCB_ABI_VERSION; }
int mcb_solver_interface_version(void) { return MCB_SOLVER_INTERFACE_VERSION; }

size_t mcb_solver_sizeof(const char *type)
{
    if (!type) return 0;
    if (strcmp(type, "mcb_settings") == 0) return sizeof(mcb_settings);
    if (strcmp(type, "mcb_info") == 0) return sizeof(mcb_info);
    if (strcmp(type, "mcb_param_desc") == 0) return sizeof(mcb_param_desc);
    if (strcmp(type, "mcb_solver_def") == 0) return sizeof(mcb_solver_def);
    return 0;
}

/* The first thing missing from a def, or NULL. */
static const char *def_missing(const mcb_solver_def *d)
{
    if (!d->setup) return "setup";
    if (!d->solve) return "solve";
    if (!d->iterate) return "iterate";
    if (!d->free) return "free";
    if (!d->default_params) return "default_params";
    return NULL;
}

int mcb_solver_resumable(const mcb_solver_def *def)
{
    return def && def->state_size && def->save_state && def->load_state;
}

mcb_rc mcb_registry_add(const mcb_solver_def *def, const char *origin, mcb_err *err)
{
    const char *o = origin ? origin : "solver";
    if (!def) return mcb_fail(err, MCB_E_INPUT, "%s: the solver definition is NULL", o);
    if (!def->name || !def->name[0])
        return mcb_fail(err, MCB_E_INPUT, "%s: the solver has no name", o);
    const mcb_solver_def *same = mcb_solver_find(def->name);
    if (same)
        return mcb_fail(err, MCB_E_INPUT, "%s: a solver named '%s' is already registered (%s); "
                        "rename the plugin's solver", o, def->name,
                        mcb_solver_is_builtin(same) ? "built in" : "by another plugin");
    const char *miss = def_missing(def);
    if (miss)
        return mcb_fail(err, MCB_E_INPUT, "%s: solver '%s' has no %s function (setup, solve, "
                        "iterate, free and default_params are required)", o, def->name, miss);
    if (!mcb_solver_resumable(def) && (def->state_size || def->save_state || def->load_state))
        return mcb_fail(err, MCB_E_INPUT, "%s: solver '%s' has some of state_size, save_state "
                        "and load_state but not all three", o, def->name);
    if (!(def->accepts & (MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL)))
        return mcb_fail(err, MCB_E_INPUT, "%s: solver '%s' accepts no problem form (set accepts "
                        "to MCB_ACCEPTS_PRIMAL and/or MCB_ACCEPTS_DUAL)", o, def->name);
    if (def->nparams < 0 || (def->nparams > 0 && (!def->params || def->params_size == 0)))
        return mcb_fail(err, MCB_E_INPUT, "%s: solver '%s' describes %d parameter(s) without a "
                        "parameter struct (params, params_size)", o, def->name, def->nparams);
    for (int k = 0; k < def->nparams; k++) {
        const mcb_param_desc *p = &def->params[k];
        size_t w = p->type == 'd' ? sizeof(double) : sizeof(int);
        if (!p->name || (p->type != 'd' && p->type != 'i') || p->offset + w > def->params_size)
            return mcb_fail(err, MCB_E_INPUT, "%s: solver '%s': parameter %d is malformed (a "
                            "name, type 'd' or 'i', an offset inside params_size)", o, def->name,
                            k);
    }
    if (nadded == MCB_MAX_RUNTIME_SOLVERS)
        return mcb_fail(err, MCB_E_INPUT, "%s: at most %d solvers can be added at run time", o,
                        MCB_MAX_RUNTIME_SOLVERS);
    added[nadded++] = def;
    return MCB_OK;
}

void mcb_registry_clear_added(void)
{
    for (int k = 0; k < nadded; k++) added[k] = NULL;
    nadded = 0;
}

void mcb_settings_default(mcb_settings *s)
{
    s->max_iters = 1000;
    s->time_limit_s = 60.0;
    s->tol = 1e-8;
    s->threads = 1;
    s->warm_start = 0;
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

int mcb_accepts_no_compliance(const mcb_problem *P, char *reason, size_t len)
{
    for (int i = 0; P && P->r && i < P->m; i++)
        if (P->r[i] != 0.0) {
            snprintf(reason, len,
                     "row %d has compliance r = %g: this solver does not take per-row "
                     "compliance (u = J v + e + r lambda)",
                     i, P->r[i]);
            return 0;
        }
    return 1;
}

int mcb_accepts_coulomb_rigid(const mcb_problem *P, char *reason, size_t len)
{
    return mcb_accepts_coulomb_only(P, reason, len) && mcb_accepts_no_compliance(P, reason, len);
}

int mcb_accepts_coulomb_tangent_r(const mcb_problem *P, char *reason, size_t len)
{
    if (!mcb_accepts_coulomb_only(P, reason, len)) return 0;
    for (int b = 0; P && P->r && b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        if (mcb_is_contact(B->type) && P->r[B->row + 1] != P->r[B->row + 2]) {
            snprintf(reason, len,
                     "contact block %d has unequal tangential compliance (r = %g, %g): this "
                     "solver's local step takes one tangential weight per contact",
                     b, P->r[B->row + 1], P->r[B->row + 2]);
            return 0;
        }
    }
    return 1;
}

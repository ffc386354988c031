/* siconos_peer.c: Siconos numerics 4.4 friction-contact solvers as peers.
 *
 * Not an algorithm of ours: an adapter that hands the problem, converted by
 * siconos_convert.c, to Siconos' drivers (fc3d_driver for dual problems,
 * gfc3d_driver for primal ones) so that Siconos runs under the same budgets
 * and is judged by the same harness metrics as our solvers. Three peers, each
 * taking both forms:
 *   siconos_nsgs    fc3d NSGS (SICONOS_FRICTION_3D_NSGS) / gfc3d NSGS_WR
 *                   (the global problem reduced to the Delassus form, then NSGS);
 *   siconos_nsn_ac  nonsmooth Newton on the Alart-Curnier function
 *                   (SICONOS_FRICTION_3D_NSN_AC / SICONOS_GLOBAL_FRICTION_3D_NSN_AC);
 *   siconos_admm    ADMM (SICONOS_FRICTION_3D_ADMM / SICONOS_GLOBAL_FRICTION_3D_ADMM).
 * Siconos holds contacts only: a problem with other constraint types is
 * skipped, with the reason (accepts_problem).
 *
 * Tolerance. Siconos' own tolerance (dparam TOL) is, by default (own_tol
 * 0), exactly the harness's --tol, not below it: every driver here stops
 * only once Siconos' full error is below TOL (NSGS tests an incremental
 * error, then checks the full one), and that error is our natmap
 * (tests/test_siconos.c: equal to about 1e-15 relative) on the problem the
 * driver solves. For gfc3d NSGS_WR that is the reduced (Delassus) problem,
 * whose error is normalised by its ||q|| too: its stop is not the global
 * natmap the harness judges, and a run can end above --tol (`stalled`),
 * as with another --stop-metric. --tol 0 becomes the smallest positive
 * tolerance (Siconos asserts a positive one).
 *
 * Budgets and the callback. The iteration budget is Siconos' (iparam
 * MAX_ITER; its Newton loops report MAX_ITER + 1 iterations when they use
 * it up, counted here as MAX_ITER). Siconos' per-iteration callback
 * (Callback.collectStatsIteration) returns nothing; per driver, in Siconos
 * 4.4's sources and as tests/test_siconos.c checks:
 *   fc3d NSGS, and gfc3d NSGS_WR (fc3d NSGS on the reduced problem): called
 *     after every iteration (but for a last one cut short when its adapted
 *     tolerance underflows to 0), but the loop keeps MAX_ITER and TOL in
 *     locals and reads nothing back: it cannot be stopped there;
 *   fc3d NSN_AC (dual problems): called after every iteration, after which
 *     the loop reads dparam RESIDU back and stops when it is below TOL. When
 *     the harness answers anything but CONTINUE, sic_callback writes -inf
 *     there: the driver stops at that iteration (info 0), and the own
 *     residual reported is Siconos' error at that iteration;
 *   gfc3d NSN_AC (primal problems), fc3d and gfc3d ADMM: never called; the
 *     harness sees the final iterate only (one trace row).
 * Where the driver cannot be stopped, the def is black_box for that form
 * (black_box_forms: siconos_nsn_ac is black_box on primal problems only,
 * the other two on both): the harness applies the wall-time budget after
 * the fact, and the driver ends on its own test.
 *
 * Where Siconos calls the callback, the harness traces the iterate: lambda
 * is Siconos' reaction and, for primal problems, v = A^-1 (b + J^T lambda),
 * computed with the clock paused; the final v is the global velocity
 * Siconos returns. */
#include "CSparseMatrix_internal.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "Friction_cst.h"
#include "NonSmoothDrivers.h"
#include "NumericsVerbose.h"
#include "SolverOptions.h"
#include "lib/mcb_chol.h"
#include "solvers/peers/siconos_peer.h"
#include "solvers/solver.h"

typedef struct {
    double own_tol; /* Siconos' tolerance on its own error; 0: the harness's --tol */
} sic_params;

static void sic_defaults(void *p) { ((sic_params *)p)->own_tol = 0.0; }

static const mcb_param_desc sic_desc[] = {
    {"own_tol", 'd', offsetof(sic_params, own_tol),
     "Siconos' own tolerance on its error, the natural-map residual (0: the harness's --tol; "
     "where the callback cannot stop Siconos, this test does)"},
};

typedef struct {
    int local_id, global_id; /* Siconos solver ids for dual and primal problems */
    unsigned stops;          /* forms (MCB_ACCEPTS_*) the callback can stop */
} sic_variant;

typedef struct {
    const mcb_problem *P;
    sic_params prm;
    sic_variant var;
    mcb_siconos_problem *S;
    double *reaction, *velocity, *global_velocity; /* Siconos' unknowns (m, m, n) */
    double *rhs;          /* n: b + J^T lambda, for v(lambda) */
    mcb_chol *A_factor;   /* factor of A, made lazily while the clock is paused */
    const double *live;   /* Siconos' reaction while inside its callback, else NULL */
    int finished;         /* set once the driver has returned */
    int calls;            /* callback calls so far (iterations traced) */
    mcb_iter_cb cb;
    void *ctx;
    int first_action;     /* the first non-CONTINUE answer of the harness */
    SolverOptions *opts;  /* the running driver's options */
    int can_stop;         /* the running driver reads dparam RESIDU after the callback */
    int stopped;          /* the callback stopped it */
    double last_error;    /* Siconos' error at the last callback */
} sic_work;

static void sic_free(void **work)
{
    if (!work || !*work) return;
    sic_work *w = *work;
    mcb_siconos_free(&w->S);
    mcb_chol_free(&w->A_factor);
    free(w->reaction);
    free(w->velocity);
    free(w->global_velocity);
    free(w->rhs);
    free(w);
    *work = NULL;
}

static mcb_rc sic_check(const void *params, mcb_err *err)
{
    const sic_params *prm = params;
    if (!(prm->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "siconos: own_tol = %g must be >= 0", prm->own_tol);
    return MCB_OK;
}

static mcb_rc sic_setup_variant(const mcb_problem *P, const mcb_settings *s, const void *params,
                                void **work, mcb_err *err, sic_variant var)
{
    *work = NULL;
    mcb_rc rc0 = sic_check(params, err);
    if (rc0) return rc0;
    sic_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const sic_params *)params;
    w->var = var;
    int n = P->form == MCB_PRIMAL ? P->n : 0, m = P->m;
    w->reaction = calloc((size_t)m + 1, sizeof(double));
    w->velocity = calloc((size_t)m + 1, sizeof(double));
    w->global_velocity = calloc((size_t)n + 1, sizeof(double));
    w->rhs = calloc((size_t)n + 1, sizeof(double));
    if (!w->reaction || !w->velocity || !w->global_velocity || !w->rhs) {
        void *p = w;
        sic_free(&p);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    mcb_rc rc = mcb_siconos_convert(P, &w->S, err);
    if (rc) {
        void *p = w;
        sic_free(&p);
        return rc;
    }
    if (s->warm_start) {
        if (P->lambda0) memcpy(w->reaction, P->lambda0, sizeof(double) * (size_t)m);
        if (P->v0 && n) memcpy(w->global_velocity, P->v0, sizeof(double) * (size_t)n);
    }
    *work = w;
    return MCB_OK;
}

/* v = A^-1 (b + J^T lambda): the velocity the impulses imply. */
static void implied_velocity(sic_work *w, const double *lambda, double *v)
{
    const mcb_problem *P = w->P;
    mcb_err err;
    if (!w->A_factor && mcb_chol_factor(P->A, &w->A_factor, &err)) {
        for (int k = 0; k < P->n; k++) v[k] = NAN;
        return;
    }
    memcpy(w->rhs, P->b, sizeof(double) * (size_t)P->n);
    mcb_csc_gatxpy(P->J, lambda, w->rhs);
    mcb_chol_solve(w->A_factor, w->rhs, v);
}

static void sic_iterate(void *work, double *v, double *lambda)
{
    sic_work *w = work;
    const mcb_problem *P = w->P;
    memcpy(lambda, w->live ? w->live : w->reaction, sizeof(double) * (size_t)P->m);
    if (!v || P->form != MCB_PRIMAL) return;
    if (w->finished)
        memcpy(v, w->global_velocity, sizeof(double) * (size_t)P->n);
    else
        implied_velocity(w, lambda, v);
}

/* Siconos' per-iteration callback: hands the iterate to the harness and,
 * where the driver reads its residual back (fc3d NSN_AC), stops it on any
 * answer but CONTINUE: a residual of -inf is below every tolerance. */
static void sic_callback(void *env, int size, double *reaction, double *velocity, double error,
                         void *extra)
{
    (void)size;
    (void)velocity;
    (void)extra;
    sic_work *w = env;
    w->live = reaction;
    w->last_error = error;
    mcb_cb_action a = w->cb(w->ctx, ++w->calls, error);
    w->live = NULL;
    if (a == MCB_CB_CONTINUE) return;
    if (w->first_action == MCB_CB_CONTINUE) w->first_action = a;
    if (w->can_stop) {
        w->opts->dparam[SICONOS_DPARAM_RESIDU] = -INFINITY;
        w->stopped = 1;
    }
}

static int sic_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                     mcb_info *info)
{
    sic_work *w = work;
    const mcb_problem *P = w->P;
    int primal = P->form == MCB_PRIMAL;
    SolverOptions *o = solver_options_create(primal ? w->var.global_id : w->var.local_id);
    Callback *c = malloc(sizeof *c); /* solver_options_delete frees it */
    if (!o || !c) {
        free(c);
        mcb_siconos_options_free(o);
        snprintf(info->reason, sizeof info->reason, "out of memory");
        return MCB_ST_DIVERGED;
    }
    o->iparam[SICONOS_IPARAM_MAX_ITER] = s->max_iters;
    /* The harness's tolerance on the same error (see the banner). Siconos
     * asserts a positive tolerance: --tol 0 (run the whole budget) becomes
     * the smallest one. */
    double tol = w->prm.own_tol > 0 ? w->prm.own_tol : s->tol;
    o->dparam[SICONOS_DPARAM_TOL] = tol > 0 ? tol : DBL_MIN;
    c->env = w;
    c->collectStatsIteration = sic_callback;
    o->callback = c;
    w->cb = cb;
    w->ctx = ctx;
    w->calls = 0;
    w->first_action = MCB_CB_CONTINUE;
    w->opts = o;
    w->can_stop = (w->var.stops & (primal ? MCB_ACCEPTS_PRIMAL : MCB_ACCEPTS_DUAL)) != 0;
    w->stopped = 0;
    w->last_error = NAN;
    numerics_set_verbose(0);
    int failed;
    if (primal)
        failed = gfc3d_driver(mcb_siconos_global(w->S), w->reaction, w->velocity,
                              w->global_velocity, o);
    else
        failed = fc3d_driver(mcb_siconos_local(w->S), w->reaction, w->velocity, o);
    w->finished = 1;
    /* Siconos' Newton loops (while (iter++ < itermax)) report itermax + 1
     * when they use up the budget */
    int iters = o->iparam[SICONOS_IPARAM_ITER_DONE];
    info->iterations = iters > 0 ? (iters < s->max_iters ? iters : s->max_iters) : w->calls;
    info->own_residual = w->stopped ? w->last_error : o->dparam[SICONOS_DPARAM_RESIDU];
    w->opts = NULL;
    mcb_siconos_options_free(o);
    /* the harness judges the final iterate; these say how Siconos ended */
    if (w->stopped) return mcb_status_from_cb(w->first_action);
    if (w->first_action == MCB_CB_DIVERGED) return MCB_ST_DIVERGED;
    if (!failed) return MCB_ST_SOLVED;
    if (info->iterations >= s->max_iters) return MCB_ST_MAX_ITERS;
    snprintf(info->reason, sizeof info->reason, "Siconos stopped with info %d after %d iterations",
             failed, info->iterations);
    return MCB_ST_STALLED;
}

static int sic_accepts(const mcb_problem *P, char *reason, size_t len)
{
    mcb_err err;
    if (mcb_siconos_check(P, &err) == MCB_OK) return 1;
    snprintf(reason, len, "%s", err.msg);
    return 0;
}

/* STOPS: the forms (MCB_ACCEPTS_*) on which the callback stops the driver;
 * the def is black_box on the others. */
#define SICONOS_PEER(NAME, LOCAL, GLOBAL, STOPS, DESCRIPTION, REFERENCE)                        \
    static mcb_rc NAME##_setup(const mcb_problem *P, const mcb_settings *s, const void *params, \
                               void **work, mcb_err *err)                                        \
    {                                                                                            \
        sic_variant v = {LOCAL, GLOBAL, STOPS};                                                  \
        return sic_setup_variant(P, s, params, work, err, v);                                    \
    }                                                                                            \
    const mcb_solver_def mcb_solver_##NAME = {                                                   \
        .name = #NAME,                                                                           \
        .description = DESCRIPTION,                                                              \
        .reference = REFERENCE,                                                                  \
        .accepts = MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL,                                        \
        .accepts_problem = sic_accepts,                                                          \
        .black_box = ((MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL) & ~(unsigned)(STOPS)) != 0,        \
        .black_box_forms = (MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL) & ~(unsigned)(STOPS),         \
        .params_size = sizeof(sic_params),                                                       \
        .default_params = sic_defaults,                                                          \
        .params = sic_desc,                                                                      \
        .nparams = (int)(sizeof sic_desc / sizeof sic_desc[0]),                                  \
        .check_params = sic_check,                                                               \
        .setup = NAME##_setup,                                                                   \
        .solve = sic_solve,                                                                      \
        .iterate = sic_iterate,                                                                  \
        .free = sic_free,                                                                        \
    };

SICONOS_PEER(siconos_nsgs, SICONOS_FRICTION_3D_NSGS, SICONOS_GLOBAL_FRICTION_3D_NSGS_WR, 0,
             "Siconos 4.4 nonsmooth Gauss-Seidel (fc3d NSGS; primal: gfc3d NSGS_WR)",
             "Siconos numerics; Acary, Bremond, Huber, INRIA RR-9118")
SICONOS_PEER(siconos_nsn_ac, SICONOS_FRICTION_3D_NSN_AC, SICONOS_GLOBAL_FRICTION_3D_NSN_AC,
             MCB_ACCEPTS_DUAL,
             "Siconos 4.4 nonsmooth Newton on the Alart-Curnier function (fc3d/gfc3d NSN_AC)",
             "Siconos numerics; Alart and Curnier 1991; INRIA RR-9118")
SICONOS_PEER(siconos_admm, SICONOS_FRICTION_3D_ADMM, SICONOS_GLOBAL_FRICTION_3D_ADMM, 0,
             "Siconos 4.4 ADMM (fc3d/gfc3d ADMM)", "Siconos numerics; INRIA RR-9118")

/* al_baselines.c: the Table II baselines of the CANAL paper (Lee, Lee, Park,
 * Yun and Lee, "Variations of Augmented Lagrangian for Robotic
 * Multi-Contact Simulation", Sec. IV-C and VII-D1): the same AL outer loop
 * as canal (solvers/al_outer.c), but each surrogate problem is (19),
 *     r(v) = A v - b - J^T T(x(v)) = 0,  x = lambda^l - beta (J v + e),
 * with the strict operator T of (16)-(17) on contacts (lambda_n =
 * max(x_n, 0), lambda_t = the projection of x_t on the disc of radius
 * mu lambda_n: the nested projection, no De Saxce perturbation, e~ = e)
 * and the exact laws (14)-(15) on scalar rows. (19) is not the gradient of
 * any function and its Jacobian
 *     dr/dv = A + beta sum_g J_g' D_g J_g,  D_g = dT_g/dx_g,
 * with D_g = [[1, 0], [mu t^, mu x_n / ||x_t|| (I - t^ t^')]] on a sliding
 * contact, is unsymmetric and may be singular: it is factorized by sparse LU
 * (lib/mcb_lu.h, KLU: symbolic analysis once per problem on the fixed
 * pattern of al_outer, both triangles; refactorization in place per inner
 * step; UMFPACK with `lu` 1: fresh pivots at every factorization).
 * Two inner solvers on the merit f(v) = 1/2 ||r(v)||^2:
 *   - al-trdogleg: Powell's dogleg trust region (Nocedal and Wright, Alg.
 *     4.1 with the dogleg step of Sec. 11.2): Gauss-Newton step
 *     p_N = -K^-1 r, Cauchy step p_C = -(g'g / ||K g||^2) g with g = K' r,
 *     the dogleg path cut at the radius Delta, rho = actual / predicted
 *     reduction of f (model 1/2 ||r + K p||^2); Delta * 1/4 when rho < 1/4,
 *     x 2 when rho > 3/4 at the boundary; the step is taken when rho > eta.
 *     A singular K leaves the Cauchy step. Each trial step is one inner
 *     iteration; K is refactorized only at a new point.
 *   - al-dampedsn: damped semismooth Newton (De Luca, Facchinei and Kanzow
 *     1996): d = -K^-1 r, replaced by -g when K is singular or d fails the
 *     descent test g'd <= -rho ||d||^2.1; Armijo backtracking
 *     f(v + t d) <= f(v) + sigma t g'd, t = 1, 1/2, ... down to t_min.
 * The inner loop stops as canal's (mcb_al_inner_converged: newton_tol, or the
 * round-off floor); an inner loop that used max_newton steps, or whose
 * line search or trust region collapsed (t < t_min, Delta below round-off
 * of ||v||), is an inner failure: counted (info.reason: "F inner
 * failures"), and the AL loop goes on with the last v, as in the paper's
 * Table II (fail_stop = 1 stops as 'stalled' instead).
 * Allocation: setup and the first factorization only, except when a
 * refactorization's pivots degrade and the LU chooses new ones (mcb_lu.h);
 * with `lu` 1 (UMFPACK) every factorization allocates.
 * Failures: the LU out of memory or a non-finite
 * residual -> diverged, with the reason. Primal problems, Coulomb only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/al_outer.h"
#include "lib/mcb_cone.h"
#include "lib/mcb_lu.h"
#include "solvers/solver.h"

enum { ALB_DOGLEG, ALB_DAMPED };

typedef struct {
    al_params al;  /* the outer loop's (al_outer.h) */
    double sigma;  /* Armijo constant (al-dampedsn) */
    double t_min;  /* smallest backtracking step (al-dampedsn) */
    double delta0; /* initial trust radius (al-trdogleg); 0: the first Gauss-Newton step's length */
    double eta;    /* step acceptance: rho > eta (al-trdogleg) */
    int lu;        /* sparse LU backend (mcb_lu_kind): 0 KLU, 1 UMFPACK */
} alb_params;

static void alb_defaults(void *p)
{
    alb_params *q = p;
    mcb_al_params_default(&q->al);
    q->sigma = 1e-4;
    q->t_min = 1e-10;
    q->delta0 = 0.0;
    q->eta = 1e-4;
    q->lu = MCB_LU_KLU;
}

static const mcb_param_desc dogleg_desc[] = {
    AL_PARAM_DESCS(alb_params),
    {"delta0", 'd', offsetof(alb_params, delta0),
     "initial trust-region radius of each AL loop (velocity units), >= 0; 0: the length of "
     "its first Gauss-Newton step"},
    {"eta", 'd', offsetof(alb_params, eta),
     "a step is taken when actual / predicted reduction of 1/2 ||r||^2 > eta, in [0, 1/4) "
     "(Nocedal-Wright Alg. 4.1)"},
    MCB_LU_PARAM_DESC(alb_params, lu),
};

static const mcb_param_desc damped_desc[] = {
    AL_PARAM_DESCS(alb_params),
    {"sigma", 'd', offsetof(alb_params, sigma),
     "Armijo constant on 1/2 ||r||^2, in (0, 1/2) (De Luca-Facchinei-Kanzow)"},
    {"t_min", 'd', offsetof(alb_params, t_min),
     "smallest backtracking step before the inner loop fails, in (0, 1)"},
    MCB_LU_PARAM_DESC(alb_params, lu),
};

typedef struct {
    al_outer o; /* first member */
    alb_params prm;
    int method;
    mcb_lu *lu; /* LU of K, pattern analysed once */
    double *v0, *r0, *g, *pN, *pC, *p, *Kp;
    int ngrad;  /* damped: gradient steps; dogleg: steps without a Gauss-Newton point */
    int reject; /* dogleg: rejected trial steps */
} alb_work;

static void alb_free(void **work)
{
    if (!work || !*work) return;
    alb_work *w = *work;
    mcb_lu_free(&w->lu);
    mcb_al_outer_clear(&w->o);
    free(w->v0);
    free(w->r0);
    free(w->g);
    free(w->pN);
    free(w->pC);
    free(w->p);
    free(w->Kp);
    free(w);
    *work = NULL;
}

static mcb_rc alb_check(const void *params, mcb_err *err)
{
    const alb_params *q = params;
    if (!mcb_al_params_ok(&q->al) || !(q->sigma > 0.0 && q->sigma < 0.5) ||
        !(q->t_min > 0.0 && q->t_min < 1.0) || !(q->delta0 >= 0.0 && isfinite(q->delta0)) ||
        !(q->eta >= 0.0 && q->eta < 0.25))
        return mcb_fail(err, MCB_E_INPUT,
                        "al baselines: " AL_PARAM_RANGES ", sigma in (0, 1/2), t_min in (0, 1), "
                        "delta0 >= 0, eta in [0, 1/4)");
    return mcb_lu_check_kind(q->lu, "al baselines", err);
}

/* ---- the strict operator (16)-(17) and its generalized derivative ---- */

static void strict_op(const al_group *G, double beta, const double *x, const double *e, double *l,
                      double *D)
{
    if (G->type != MCB_CONTACT) {
        mcb_al_scalar_op(G, beta, x, e, l, D);
        return;
    }
    double Dl[9];
    if (!D) D = Dl;
    memset(D, 0, 9 * sizeof(double));
    double mu = G->mu, xn = x[0], nt = mcb_hypot(x[1], x[2]);
    if (xn <= 0.0) { /* open */
        l[0] = l[1] = l[2] = 0.0;
        return;
    }
    if (nt <= mu * xn) { /* stick: x_t inside the disc */
        mcb_al_contact_stick(x, l, D);
        return;
    }
    /* slide: lambda_t = mu x_n t^ (nt > 0 here) */
    double t1 = x[1] / nt, t2 = x[2] / nt, q = mu * xn / nt;
    l[0] = xn;
    l[1] = mu * xn * t1;
    l[2] = mu * xn * t2;
    D[0] = 1.0;
    D[3] = mu * t1;
    D[6] = mu * t2;
    D[4] = q * (1.0 - t1 * t1);
    D[8] = q * (1.0 - t2 * t2);
    D[5] = D[7] = -q * t1 * t2;
}

/* ---- setup ---- */

static mcb_rc alb_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                        void **work, mcb_err *err, int method, const char *name)
{
    *work = NULL;
    mcb_rc rc = alb_check(params, err);
    if (rc) return rc;
    alb_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->prm = *(const alb_params *)params;
    w->method = method;
    rc = mcb_al_outer_setup(&w->o, P, s, &w->prm.al, name, strict_op, 1, 0, NULL, err);
    if (rc) {
        free(w);
        return rc;
    }
    size_t n1 = (size_t)P->n + 1;
    double **vecs[] = {&w->v0, &w->r0, &w->g, &w->pN, &w->pC, &w->p, &w->Kp};
    int ok = 1;
    for (size_t k = 0; k < sizeof vecs / sizeof vecs[0]; k++)
        ok &= (*vecs[k] = mcb_calloc(n1, sizeof(double))) != NULL;
    if (!ok) {
        alb_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    mcb_rc lrc = mcb_lu_analyze(w->o.K, w->prm.lu, &w->lu, err);
    if (lrc) {
        alb_free((void **)&w);
        return lrc;
    }
    *work = w;
    return MCB_OK;
}

static mcb_rc dogleg_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                           void **work, mcb_err *err)
{
    return alb_setup(P, s, params, work, err, ALB_DOGLEG, "al-trdogleg");
}

static mcb_rc damped_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                           void **work, mcb_err *err)
{
    return alb_setup(P, s, params, work, err, ALB_DAMPED, "al-dampedsn");
}

/* ---- the linear algebra of one inner step ---- */

/* At the last evaluated point: K (mcb_al_jacobian), g = K' r, r0 = r and the
 * Gauss-Newton point pN = -K^-1 r. Returns 0, 1 when K is singular (or pN
 * not finite), or a status with the reason when the LU runs out of memory. */
static int gauss_newton(alb_work *w, mcb_info *info)
{
    al_outer *o = &w->o;
    const mcb_csc *K = o->K;
    int n = o->n;
    mcb_al_jacobian(o);
    memcpy(w->r0, o->r, (size_t)n * sizeof(double));
    memset(w->g, 0, (size_t)n * sizeof(double));
    mcb_csc_gatxpy(K, o->r, w->g);
    int st = mcb_lu_factor(w->lu, K);
    if (st == MCB_E_NOMEM) {
        snprintf(info->reason, sizeof info->reason,
                 "sparse LU ran out of memory at AL loop %d", o->loops + 1);
        return MCB_ST_DIVERGED;
    }
    if (st) return 1;
    memcpy(w->pN, w->r0, (size_t)n * sizeof(double));
    if (mcb_lu_solve(w->lu, w->pN) || !mcb_all_finite(n, w->pN)) return 1;
    for (int j = 0; j < n; j++) w->pN[j] = -w->pN[j];
    return 0;
}

/* v = v0 + t p; returns ||r|| there (mcb_al_eval) and the scale. */
static double try_point(alb_work *w, double t, const double *p, double *scale)
{
    al_outer *o = &w->o;
    for (int j = 0; j < o->n; j++) o->v[j] = w->v0[j] + t * p[j];
    return mcb_al_eval(o, scale);
}

/* Back to v0 (a rejected trial or a failed search), evaluated there. */
static void restore(alb_work *w)
{
    double scale;
    memcpy(w->o.v, w->v0, (size_t)w->o.n * sizeof(double));
    mcb_al_eval(&w->o, &scale);
}

/* ---- al-dampedsn: one AL loop (al_inner_fn) ---- */

static int damped_loop(void *work, al_outer *o, mcb_info *info)
{
    alb_work *w = work;
    int n = o->n;
    double scale, nr = mcb_al_eval(o, &scale), nr_prev = INFINITY;
    for (int k = 0;; k++) {
        if (!isfinite(nr)) {
            snprintf(info->reason, sizeof info->reason,
                     "non-finite surrogate residual at AL loop %d", o->loops + 1);
            return MCB_ST_DIVERGED;
        }
        if (mcb_al_inner_converged(o, nr, scale, nr_prev)) return AL_INNER_OK;
        if (k >= o->prm.max_newton) return AL_INNER_FAILED;
        int st = gauss_newton(w, info);
        if (st > 1) return st;
        o->inner++;
        double *d = w->pN, gd = mcb_dot(n, w->g, d), dn = mcb_norm2(n, d);
        if (st == 1 || !(gd <= -1e-8 * pow(dn, 2.1))) { /* the gradient step */
            for (int j = 0; j < n; j++) w->pC[j] = -w->g[j];
            d = w->pC;
            gd = -mcb_dot(n, w->g, w->g);
            w->ngrad++;
        }
        if (!(gd < 0.0)) /* a stationary point of the merit */
            return mcb_al_inner_at_floor(nr, scale) ? AL_INNER_OK : AL_INNER_FAILED;
        memcpy(w->v0, o->v, (size_t)n * sizeof(double));
        double f = 0.5 * nr * nr, t = 1.0, nt, f0_scale = scale;
        for (;;) {
            nt = try_point(w, t, d, &scale);
            if (isfinite(nt) && 0.5 * nt * nt <= f + w->prm.sigma * t * gd) break;
            t *= 0.5;
            if (t < w->prm.t_min) {
                restore(w);
                return mcb_al_inner_at_floor(nr, f0_scale) ? AL_INNER_OK : AL_INNER_FAILED;
            }
        }
        nr_prev = nr;
        nr = nt;
    }
}

/* ---- al-trdogleg: one AL loop (al_inner_fn) ---- */

/* The dogleg step p for radius delta from pN (if newton), pC and g. */
static void dogleg_step(alb_work *w, int newton, double delta)
{
    int n = w->o.n;
    double nN = newton ? mcb_norm2(n, w->pN) : INFINITY, nC = mcb_norm2(n, w->pC);
    if (newton && nN <= delta) {
        memcpy(w->p, w->pN, (size_t)n * sizeof(double));
    } else if (nC >= delta || !newton) {
        double c = nC > delta ? delta / nC : 1.0;
        for (int j = 0; j < n; j++) w->p[j] = c * w->pC[j];
    } else { /* ||pC + tau (pN - pC)|| = delta, tau in (0, 1) */
        double a = 0.0, b = 0.0, c = nC * nC - delta * delta;
        for (int j = 0; j < n; j++) {
            double dj = w->pN[j] - w->pC[j];
            a += dj * dj;
            b += 2.0 * dj * w->pC[j];
        }
        double tau = (-b + sqrt(b * b - 4.0 * a * c)) / (2.0 * a);
        for (int j = 0; j < n; j++) w->p[j] = w->pC[j] + tau * (w->pN[j] - w->pC[j]);
    }
}

/* pC = -(g'g / ||K g||^2) g (Kp as scratch); 0 when g = 0. */
static void cauchy_point(alb_work *w)
{
    int n = w->o.n;
    memset(w->Kp, 0, (size_t)n * sizeof(double));
    mcb_csc_gaxpy(w->o.K, w->g, w->Kp);
    double gg = mcb_dot(n, w->g, w->g), kk = mcb_dot(n, w->Kp, w->Kp);
    double c = kk > 0.0 ? gg / kk : 0.0;
    for (int j = 0; j < n; j++) w->pC[j] = -c * w->g[j];
}

static int dogleg_loop(void *work, al_outer *o, mcb_info *info)
{
    alb_work *w = work;
    int n = o->n, newton = 0, stale = 0, rc = AL_INNER_FAILED;
    double scale, nr = mcb_al_eval(o, &scale), nr_prev = INFINITY, delta = w->prm.delta0;
    double f = 0.0, sc = scale;
    for (int k = 0, fresh = 1;; k++) {
        if (!isfinite(nr)) {
            snprintf(info->reason, sizeof info->reason,
                     "non-finite surrogate residual at AL loop %d", o->loops + 1);
            return MCB_ST_DIVERGED;
        }
        if (mcb_al_inner_converged(o, nr, sc, nr_prev)) {
            rc = AL_INNER_OK;
            break;
        }
        if (k >= o->prm.max_newton) break;
        if (fresh) { /* a new point: K, g, the Gauss-Newton and Cauchy points */
            int st = gauss_newton(w, info);
            if (st > 1) return st;
            newton = st == 0;
            w->ngrad += !newton;
            cauchy_point(w);
            memcpy(w->v0, o->v, (size_t)n * sizeof(double));
            f = 0.5 * nr * nr;
            if (delta <= 0.0) delta = mcb_norm2(n, newton ? w->pN : w->pC);
            fresh = 0;
        }
        o->inner++;
        dogleg_step(w, newton, delta);
        double np = mcb_norm2(n, w->p);
        /* predicted reduction of the model 1/2 ||r + K p||^2 */
        memset(w->Kp, 0, (size_t)n * sizeof(double));
        mcb_csc_gaxpy(o->K, w->p, w->Kp);
        double m1 = 0.0;
        for (int j = 0; j < n; j++) m1 += (w->r0[j] + w->Kp[j]) * (w->r0[j] + w->Kp[j]);
        double pred = f - 0.5 * m1, nt = try_point(w, 1.0, w->p, &scale);
        double ared = isfinite(nt) ? f - 0.5 * nt * nt : -INFINITY;
        double rho = pred > 0.0 ? ared / pred : -1.0;
        if (rho < 0.25) delta = 0.25 * np;
        else if (rho > 0.75 && np >= 0.99 * delta) delta *= 2.0;
        if (rho > w->prm.eta && ared > 0.0) { /* taken */
            nr_prev = nr;
            nr = nt;
            sc = scale;
            stale = 0;
            fresh = 1;
        } else {
            w->reject++;
            memcpy(o->v, w->v0, (size_t)n * sizeof(double));
            stale = 1;
            if (!(ared > 0.0) && mcb_al_inner_at_floor(nr, sc)) { /* no decrease left: round-off */
                rc = AL_INNER_OK;
                break;
            }
            if (delta <= 1e-15 * (mcb_norm2(n, w->v0) + 1e-300)) { /* collapsed */
                if (mcb_al_inner_at_floor(nr, sc)) rc = AL_INNER_OK;
                break;
            }
        }
    }
    if (stale) restore(w);
    return rc;
}

/* ---- solve, iterate, the definitions ---- */

static int alb_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                     mcb_info *info)
{
    alb_work *w = work;
    int dog = w->method == ALB_DOGLEG;
    int st = mcb_al_outer_solve(&w->o, s, cb, ctx, info, dog ? dogleg_loop : damped_loop, w,
                            dog ? "dogleg steps" : "Newton steps");
    size_t used = strlen(info->reason);
    if (dog)
        snprintf(info->reason + used, sizeof info->reason - used,
                 ", %d rejected, %d at a singular Jacobian", w->reject, w->ngrad);
    else
        snprintf(info->reason + used, sizeof info->reason - used, ", %d gradient steps",
                 w->ngrad);
    return st;
}

static void alb_iterate(void *work, double *v, double *lambda)
{
    mcb_al_outer_iterate(&((alb_work *)work)->o, v, lambda);
}

const mcb_solver_def mcb_solver_al_trdogleg = {
    .name = "al-trdogleg",
    .accepts_problem = mcb_accepts_coulomb_rigid,
    .description = "CANAL's AL outer loop with the surrogate (19) (strict cone operator) solved "
                   "by a trust-region dogleg method on 1/2 ||r||^2; unsymmetric Jacobian "
                   "A + beta J'DJ by sparse LU (KLU; Table II baseline)",
    .reference = "CANAL/SubADMM paper Sec. IV-C, eq. (16)-(19), Sec. VII-D1, Table II; "
                 "Nocedal-Wright Alg. 4.1",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .params_size = sizeof(alb_params),
    .default_params = alb_defaults,
    .params = dogleg_desc,
    .nparams = (int)(sizeof dogleg_desc / sizeof dogleg_desc[0]),
    .check_params = alb_check,
    .setup = dogleg_setup,
    .solve = alb_solve,
    .iterate = alb_iterate,
    .free = alb_free,
};

const mcb_solver_def mcb_solver_al_dampedsn = {
    .name = "al-dampedsn",
    .accepts_problem = mcb_accepts_coulomb_rigid,
    .description = "CANAL's AL outer loop with the surrogate (19) (strict cone operator) solved "
                   "by damped semismooth Newton, Armijo backtracking on 1/2 ||r||^2 with a "
                   "gradient fallback; unsymmetric Jacobian by sparse LU (KLU; Table II baseline)",
    .reference = "CANAL/SubADMM paper Sec. IV-C, eq. (16)-(19), Sec. VII-D1, Table II; "
                 "De Luca, Facchinei and Kanzow 1996",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .params_size = sizeof(alb_params),
    .default_params = alb_defaults,
    .params = damped_desc,
    .nparams = (int)(sizeof damped_desc / sizeof damped_desc[0]),
    .check_params = alb_check,
    .setup = damped_setup,
    .solve = alb_solve,
    .iterate = alb_iterate,
    .free = alb_free,
};

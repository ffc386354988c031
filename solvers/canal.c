/* canal.c: Cascaded Newton-based Augmented Lagrangian (CANAL; Lee, Lee,
 * Park, Yun and Lee, "Variations of Augmented Lagrangian for Robotic
 * Multi-Contact Simulation", Sec. IV-V, Alg. 1).
 *
 * The AL outer loop (solvers/al_outer.c, shared with the Table II
 * baselines al-trdogleg and al-dampedsn) keeps the multiplier
 * u^l = -lambda^l (eq. 12 with the closed-form slack z of eq. 13 gives
 * u^{l+1} = -lambda^{l+1} exactly) and a perturbed offset e~^l = e + p^l,
 * p^l = [mu ||(z^l + e)_t||, 0, 0] on each contact (eq. 20, the De Saxce
 * term frozen at the previous slack). One loop solves the surrogate
 * problem (21):
 *     r(v) = A v - b - J^T lambda(v) = 0,
 *     lambda_g(v) = T_g(x_g),  x_g = lambda_g^l - beta (J_g v + e~_g)
 * with T the proximal (Euclidean) projection on the friction cone for a
 * contact, the identity (bilateral), max(0, .) (unilateral) and the exact
 * soft law (15). r is the gradient of the strongly convex
 *     h(v) = 1/2 v'Av - b'v + 1/beta sum_g psi_g(x_g(v))          (22)
 * (psi_g' = T_g), so Newton with the generalized derivative
 *     H = A + beta sum_g J_g' D_g J_g,  D_g = dT_g/dx_g          (23)-(24)
 * (3x3 blocks for contacts, scalars otherwise) and an exact line search on
 * phi(alpha) = h(v + alpha d) (26) converges globally. This file is that
 * inner solve: the line search finds the root of
 * phi'(alpha) = d' r(v + alpha d) by safeguarded Newton-bisection (rtsafe:
 * Newton on phi' with phi'' = d'Ad + beta sum (J_g d)' D_g (J_g d),
 * bisection whenever the Newton point leaves the bracket); phi' is
 * monotone, so the bracket [0, alpha_hi] is grown by doubling from
 * alpha = 1 until phi' > 0. v is warm started across AL loops (Sec. V-D).
 *
 * Sparse, fixed pattern: H's pattern (upper triangle) and its in-place
 * assembly come from al_outer; each Newton step refactors numerically
 * (mcb_chol_refactor: CHOLMOD's symbolic analysis is done once per problem,
 * on the first factor of A that also gives the default penalty, and
 * CHOLMOD itself picks simplicial or supernodal).
 *
 * Counting: one solver iteration (callback, info->iterations, trace row) is
 * one AL loop; the Newton steps inside are counted apart
 * (info->inner_iterations) and reported, with the inner failures (a Newton
 * loop that used max_newton steps above newton_tol), the line-search
 * evaluations and the final beta, in info->reason when solve() returns. own_residual is ||J v - z||_2 of the
 * loop. Nothing is allocated inside the loops. Failures are statuses: a
 * Newton matrix CHOLMOD cannot factor or a non-finite residual (diverged),
 * a line search without a minimum (diverged), a primal residual that
 * stopped shrinking with beta at its cap (stalled: an infeasible
 * problem). Primal problems only. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/al_outer.h"
#include "lib/mcb_chol.h"
#include "lib/mcb_cone.h"
#include "solvers/solver.h"

typedef struct {
    al_params al;  /* the outer loop's (al_outer.h) */
    double ls_tol; /* line search stop: |phi'(alpha)| <= ls_tol |phi'(0)| */
    int ls_max;    /* line-search evaluations per Newton step */
} canal_params;

static void canal_defaults(void *p)
{
    canal_params *q = p;
    mcb_al_params_default(&q->al);
    q->ls_tol = 1e-10;
    q->ls_max = 60;
}

static const mcb_param_desc canal_desc[] = {
    AL_PARAM_DESCS(canal_params),
    {"ls_tol", 'd', offsetof(canal_params, ls_tol),
     "exact line search (26) stop: |phi'(alpha)| <= ls_tol |phi'(0)|"},
    {"ls_max", 'i', offsetof(canal_params, ls_max),
     "line-search evaluations per Newton step (rtsafe), >= 4"},
};

typedef struct {
    al_outer o;      /* first member */
    canal_params prm;
    mcb_chol *F;     /* of H, fixed pattern */
    double *d, *Jd, *Ad;
    int lsevals;
} canal_work;

static void canal_free(void **work)
{
    if (!work || !*work) return;
    canal_work *w = *work;
    mcb_al_outer_clear(&w->o);
    mcb_chol_free(&w->F);
    free(w->d);
    free(w->Jd);
    free(w->Ad);
    free(w);
    *work = NULL;
}

static mcb_rc canal_check(const void *params, mcb_err *err)
{
    const canal_params *q = params;
    if (!mcb_al_params_ok(&q->al) || !(q->ls_tol > 0.0 && q->ls_tol < 1.0) || q->ls_max < 4)
        return mcb_fail(err, MCB_E_INPUT,
                        "canal: " AL_PARAM_RANGES ", ls_tol in (0, 1), ls_max >= 4");
    return MCB_OK;
}

/* ---- the operator T and its generalized derivative (23) ---- */

/* Proximal operator on K_mu = {||t|| <= mu n} (Euclidean projection, rows
 * [n, t1, t2]) and its derivative D (3x3, row-major): I inside the cone,
 * 0 in its polar, the derivative of the projection on the boundary ray
 * otherwise (eq. 23 in the [n, t] order). */
static void cone_prox(double mu, const double x[3], double l[3], double D[9])
{
    double xn = x[0], nt = mcb_hypot(x[1], x[2]);
    memset(D, 0, 9 * sizeof(double));
    if (mu <= 0.0) { /* K = {n >= 0, t = 0} */
        l[0] = xn > 0.0 ? xn : 0.0;
        l[1] = l[2] = 0.0;
        D[0] = xn > 0.0 ? 1.0 : 0.0;
        return;
    }
    if (nt <= mu * xn) { /* stick: inside */
        mcb_al_contact_stick(x, l, D);
        return;
    }
    if (mu * nt <= -xn) { /* open: in the polar cone */
        l[0] = l[1] = l[2] = 0.0;
        return;
    }
    /* slip: onto the ray (1, mu t^) / sqrt(1 + mu^2) */
    double c = 1.0 / (1.0 + mu * mu), s = (xn + mu * nt) * c;
    double t1 = x[1] / nt, t2 = x[2] / nt, q = mu * s / nt;
    l[0] = s;
    l[1] = mu * s * t1;
    l[2] = mu * s * t2;
    D[0] = c;
    D[1] = D[3] = c * mu * t1;
    D[2] = D[6] = c * mu * t2;
    D[4] = c * mu * mu * t1 * t1 + q * (1.0 - t1 * t1);
    D[8] = c * mu * mu * t2 * t2 + q * (1.0 - t2 * t2);
    D[5] = D[7] = c * mu * mu * t1 * t2 - q * t1 * t2;
}

/* T of (21): the proximal cone operator for a contact. */
static void canal_op(const al_group *G, double beta, const double *x, const double *e, double *l,
                     double *D)
{
    double Dl[9];
    if (G->type == MCB_CONTACT) cone_prox(G->mu, x, l, D ? D : Dl);
    else mcb_al_scalar_op(G, beta, x, e, l, D);
}

static mcb_rc canal_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                          void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = canal_check(params, err);
    if (rc) return rc;
    canal_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->prm = *(const canal_params *)params;
    rc = mcb_al_outer_setup(&w->o, P, s, &w->prm.al, "canal", canal_op, 0, 1, &w->F, err);
    if (rc) {
        free(w);
        return rc;
    }
    w->d = mcb_calloc((size_t)P->n + 1, sizeof(double));
    w->Jd = mcb_calloc((size_t)P->m + 1, sizeof(double));
    w->Ad = mcb_calloc((size_t)P->n + 1, sizeof(double));
    if (!w->d || !w->Jd || !w->Ad) {
        canal_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    *work = w;
    return MCB_OK;
}

/* ---- the exact line search (26) ---- */

/* phi'(alpha) = d' r(v + alpha d) and phi''(alpha), from x (at alpha = 0),
 * Jd and the scalars c0 = d'(Av - b), dAd = d'Ad. */
static void ls_eval(canal_work *w, double alpha, double c0, double dAd, double *g, double *gp)
{
    const al_outer *o = &w->o;
    const mcb_problem *P = o->P;
    double s = c0 + alpha * dAd, s2 = dAd;
    for (int q = 0; q < o->ng; q++) {
        const al_group *G = &o->g[q];
        int r = G->row, L = G->len;
        double xa[3], l[3], D[9];
        for (int a = 0; a < L; a++) xa[a] = o->x[r + a] - alpha * o->beta * w->Jd[r + a];
        canal_op(G, o->beta, xa, P->e + r, l, D);
        for (int a = 0; a < L; a++) {
            s -= w->Jd[r + a] * l[a];
            double Dj = 0.0;
            for (int b = 0; b < L; b++) Dj += D[a * L + b] * w->Jd[r + b];
            s2 += o->beta * w->Jd[r + a] * Dj;
        }
    }
    *g = s;
    *gp = s2;
    w->lsevals++;
}

/* The root of phi' on [0, inf) by rtsafe. Returns alpha, or -1 when no
 * bracket is found (phi' < 0 as far as 2^40). */
static double line_search(canal_work *w, double g0)
{
    const al_outer *o = &w->o;
    const mcb_problem *P = o->P;
    double c0 = 0.0, dAd = 0.0;
    for (int j = 0; j < o->n; j++) {
        c0 += w->d[j] * (o->Av[j] - P->b[j]);
        dAd += w->d[j] * w->Ad[j];
    }
    double tol = w->prm.ls_tol * fabs(g0);
    double lo = 0.0, hi = 1.0, g, gp;
    ls_eval(w, 1.0, c0, dAd, &g, &gp);
    if (fabs(g) <= tol) return 1.0;
    int evals = 1;
    while (g < 0.0) { /* the minimizer lies beyond: grow the bracket */
        lo = hi;
        hi *= 2.0;
        if (hi > 1099511627776.0 || evals >= w->prm.ls_max) return -1.0;
        ls_eval(w, hi, c0, dAd, &g, &gp);
        evals++;
        if (fabs(g) <= tol) return hi;
    }
    /* phi'(lo) < 0 < phi'(hi): safeguarded Newton from the upper end */
    double a = hi, da_old = hi - lo, da = da_old;
    for (; evals < w->prm.ls_max; evals++) {
        double an = gp > 0.0 ? a - g / gp : lo - 1.0;
        if (an <= lo || an >= hi || fabs(2.0 * g) > fabs(da_old * gp)) {
            da_old = da;
            da = 0.5 * (hi - lo);
            an = lo + da;
        } else {
            da_old = da;
            da = a - an;
        }
        a = an;
        ls_eval(w, a, c0, dAd, &g, &gp);
        if (fabs(g) <= tol || hi - lo <= 1e-15 * hi) break;
        if (g < 0.0) lo = a;
        else hi = a;
    }
    return a;
}

/* ---- the Newton loop of one AL loop (al_inner_fn) ---- */

/* d = -H^-1 r at the last evaluated point; 0 or a status with the reason. */
static int newton_direction(canal_work *w, mcb_info *info)
{
    al_outer *o = &w->o;
    mcb_al_jacobian(o);
    mcb_err e;
    if (mcb_chol_refactor(w->F, o->K, &e)) {
        snprintf(info->reason, sizeof info->reason,
                 "Newton matrix A + beta J'DJ not factorized at AL loop %d (beta %.3g): %.200s",
                 o->loops + 1, o->beta, e.msg);
        return MCB_ST_DIVERGED;
    }
    if (mcb_chol_solve(w->F, o->r, w->d)) {
        snprintf(info->reason, sizeof info->reason, "CHOLMOD solve failed (out of memory)");
        return MCB_ST_DIVERGED;
    }
    for (int j = 0; j < o->n; j++) w->d[j] = -w->d[j];
    return 0;
}

static int newton_loop(void *work, al_outer *o, mcb_info *info)
{
    canal_work *w = work;
    double nr_prev = INFINITY;
    for (int k = 0;; k++) {
        double scale, nr = mcb_al_eval(o, &scale);
        if (!isfinite(nr)) {
            snprintf(info->reason, sizeof info->reason,
                     "non-finite Newton residual at AL loop %d", o->loops + 1);
            return MCB_ST_DIVERGED;
        }
        if (mcb_al_inner_converged(o, nr, scale, nr_prev)) return AL_INNER_OK;
        if (k >= o->prm.max_newton) return AL_INNER_FAILED;
        nr_prev = nr;
        int st = newton_direction(w, info);
        if (st) return st;
        o->inner++;
        double g0 = mcb_dot(o->n, w->d, o->r);
        if (!(g0 < 0.0)) return AL_INNER_OK; /* no descent left: round-off level */
        memset(w->Jd, 0, (size_t)o->m * sizeof(double));
        memset(w->Ad, 0, (size_t)o->n * sizeof(double));
        mcb_csc_gaxpy(o->P->J, w->d, w->Jd);
        mcb_csc_gaxpy(o->P->A, w->d, w->Ad);
        double alpha = line_search(w, g0);
        if (alpha < 0.0) {
            snprintf(info->reason, sizeof info->reason,
                     "line search found no minimum along the Newton direction at AL loop %d",
                     o->loops + 1);
            return MCB_ST_DIVERGED;
        }
        double moved = 0.0;
        for (int j = 0; j < o->n; j++) {
            double nv = o->v[j] + alpha * w->d[j];
            moved += nv != o->v[j];
            o->v[j] = nv;
        }
        if (moved == 0.0) return AL_INNER_OK; /* the step vanished below round-off */
    }
}

static int canal_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                       mcb_info *info)
{
    canal_work *w = work;
    int st = mcb_al_outer_solve(&w->o, s, cb, ctx, info, newton_loop, w, "Newton steps");
    size_t used = strlen(info->reason);
    snprintf(info->reason + used, sizeof info->reason - used, ", %d line-search evaluations",
             w->lsevals);
    return st;
}

static void canal_iterate(void *work, double *v, double *lambda)
{
    mcb_al_outer_iterate(&((canal_work *)work)->o, v, lambda);
}

const mcb_solver_def mcb_solver_canal = {
    .name = "canal",
    .accepts_problem = mcb_accepts_coulomb_rigid,
    .description = "cascaded Newton-based augmented Lagrangian: AL loops on a convex "
                   "surrogate (proximal cone operator, frozen De Saxce term) solved by Newton "
                   "with exact line search; sparse CHOLMOD refactorization of A + beta J'DJ",
    .reference = "CANAL/SubADMM paper Sec. IV-V, eq. (20)-(27), Alg. 1",
    .accepts = MCB_ACCEPTS_PRIMAL,
    .params_size = sizeof(canal_params),
    .default_params = canal_defaults,
    .params = canal_desc,
    .nparams = (int)(sizeof canal_desc / sizeof canal_desc[0]),
    .check_params = canal_check,
    .setup = canal_setup,
    .solve = canal_solve,
    .iterate = canal_iterate,
    .free = canal_free,
};

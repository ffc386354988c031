/* metrics.c: residuals recomputed by the harness from (v, lambda).
 *
 * One pass over the constraint blocks computes the per-block pieces of the
 * Fischer-Burmeister, natural-map and z-residuals; the vectors they share
 * (A v, J^T lambda, u) are formed once per call in the workspace. */
#include "metrics/metrics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_aniso.h"
#include "lib/mcb_chol.h"
#include "lib/mcb_cone.h"

struct mcb_metrics_ws {
    const mcb_problem *P;
    int law;          /* mcb_law */
    mcb_chol *F;      /* factor of A (primal) for the z-residual */
    mcb_csc *Jt;      /* J^T (primal): J x as a gather, row by row of J */
    double *Av, *JTl; /* n */
    double *vstar;    /* n: A^-1 (b + J^T lambda) */
    double *u;        /* m: J v + e + r∘lambda or W lambda + q + r∘lambda */
    double *ustar;    /* m: J vstar + e + r∘lambda */
    const mcb_problem *orig; /* the problem as given; P is its isotropic equivalent when
                                it has anisotropic friction (lib/mcb_aniso.h), else orig */
    mcb_problem *iso;        /* that equivalent (owned), NULL when isotropic */
    double *liso;            /* m: lambda mapped onto the equivalent */
};

/* lambda as the judged problem P sees it (mapped when anisotropic). */
static const double *judged_lambda(mcb_metrics_ws *ws, const double *lambda)
{
    if (!ws->iso) return lambda;
    mcb_aniso_lambda_to_iso(ws->orig, lambda, ws->liso);
    return ws->liso;
}

mcb_rc mcb_metrics_ws_new(const mcb_problem *P, mcb_metrics_ws **out, mcb_err *err)
{
    *out = NULL;
    mcb_metrics_ws *ws = calloc(1, sizeof *ws);
    if (!ws) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    ws->P = ws->orig = P;
    if (mcb_problem_is_aniso(P)) { /* judged on the isotropic equivalent */
        mcb_rc rc = mcb_aniso_isotropic(P, &ws->iso, err);
        if (!rc && !(ws->liso = mcb_calloc((size_t)P->m + 1, sizeof(double))))
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        if (rc) {
            mcb_metrics_ws_free(&ws);
            return rc;
        }
        P = ws->P = ws->iso;
    }
    int n = P->n, m = P->m;
    ws->u = mcb_calloc((size_t)m, sizeof(double));
    ws->ustar = mcb_calloc((size_t)m, sizeof(double));
    ws->Av = mcb_calloc((size_t)n, sizeof(double));
    ws->JTl = mcb_calloc((size_t)n, sizeof(double));
    ws->vstar = mcb_calloc((size_t)n, sizeof(double));
    if (!ws->u || !ws->ustar || !ws->Av || !ws->JTl || !ws->vstar) {
        mcb_metrics_ws_free(&ws);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (P->form == MCB_PRIMAL) {
        mcb_rc rc = mcb_chol_factor(P->A, &ws->F, err);
        if (rc) {
            mcb_metrics_ws_free(&ws);
            return rc;
        }
        if (!(ws->Jt = mcb_csc_transpose(P->J))) {
            mcb_metrics_ws_free(&ws);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
    }
    *out = ws;
    return MCB_OK;
}

void mcb_metrics_ws_free(mcb_metrics_ws **ws)
{
    if (!ws || !*ws) return;
    mcb_chol_free(&(*ws)->F);
    mcb_csc_free(&(*ws)->Jt);
    free((*ws)->Av);
    free((*ws)->JTl);
    free((*ws)->vstar);
    free((*ws)->u);
    free((*ws)->ustar);
    free((*ws)->liso);
    mcb_problem_free(&(*ws)->iso);
    free(*ws);
    *ws = NULL;
}

void mcb_metrics_ws_set_law(mcb_metrics_ws *ws, int law)
{
    if (ws) ws->law = law == MCB_LAW_CCP ? MCB_LAW_CCP : MCB_LAW_NCP;
}

void mcb_ccp_natmap(double mu, const double lambda[3], const double u[3], double res[3])
{
    double w[3] = {lambda[0] - u[0], lambda[1] - u[1], lambda[2] - u[2]}, p[3];
    mcb_proj_cone(mu, w, p);
    for (int k = 0; k < 3; k++) res[k] = lambda[k] - p[k];
}

void mcb_ccp_fb(double mu, const double lambda[3], const double u[3], double phi[3])
{
    if (mu <= 0.0) { /* K = {l_t = 0, l_n >= 0}, K* = {u_n >= 0}: as the Coulomb law */
        phi[0] = mcb_fb(lambda[0], u[0]);
        phi[1] = lambda[1];
        phi[2] = lambda[2];
        return;
    }
    /* scaling to the Lorentz cone: lambda in K_mu iff x in L, u in K_mu* iff
     * y in L, and <x, y> = <lambda, u> */
    double x[3] = {mu * lambda[0], lambda[1], lambda[2]};
    double y[3] = {u[0] / mu, u[1], u[2]};
    mcb_fb_soc(x, y, phi);
}

/* u += r∘lambda: the per-row compliance (none when r is NULL) */
static void add_compliance(const mcb_problem *P, const double *lambda, double *u)
{
    if (!P->r) return;
    for (int i = 0; i < P->m; i++) u[i] += P->r[i] * lambda[i];
}

/* u = J v + e + r∘lambda (primal) or W lambda + q + r∘lambda (dual) */
static void local_velocity(mcb_metrics_ws *ws, const double *v, const double *lambda, double *u)
{
    const mcb_problem *P = ws->P;
    if (P->form == MCB_PRIMAL) {
        memcpy(u, P->e, (size_t)P->m * sizeof(double));
        mcb_csc_gatxpy(ws->Jt, v, u); /* u += J v */
    } else {
        memcpy(u, P->q, (size_t)P->m * sizeof(double));
        mcb_csc_gaxpy(P->W, lambda, u);
    }
    add_compliance(P, lambda, u);
}

/* Av and J^T lambda, and the dynamics residual; returns ||r|| and sets the
 * relative scale max(||b||, ||Av||, ||J^T lambda||). */
static double dynamics(mcb_metrics_ws *ws, const double *v, const double *lambda, double *scale)
{
    const mcb_problem *P = ws->P;
    int n = P->n;
    memset(ws->Av, 0, (size_t)n * sizeof(double));
    memset(ws->JTl, 0, (size_t)n * sizeof(double));
    mcb_csc_gaxpy(P->A, v, ws->Av);
    mcb_csc_gatxpy(P->J, lambda, ws->JTl);
    double s = mcb_norm2(n, P->b), t;
    if ((t = mcb_norm2(n, ws->Av)) > s) s = t;
    if ((t = mcb_norm2(n, ws->JTl)) > s) s = t;
    *scale = s;
    /* residual into vstar as scratch */
    for (int k = 0; k < n; k++) ws->vstar[k] = ws->Av[k] - P->b[k] - ws->JTl[k];
    return mcb_norm2(n, ws->vstar);
}

/* Soft law residual lambda + k (e + alpha J v), with J v = u - e (soft rows
 * have no compliance: validation keeps r = 0 there). */
static double soft_residual(const mcb_block *B, double lambda, double u, double e)
{
    return lambda + B->k * (e + B->alpha * (u - e));
}

/* The strict per-type operator T of the CANAL paper, eq. (14)-(17), with
 * beta = 1, applied to s = lambda - u (that is lambda* = -J v + lambda - e). */
static void T_strict(const mcb_block *B, const double *s, const double *e, double *out)
{
    switch (B->type) {
    case MCB_BILATERAL:
        for (int r = 0; r < B->nrows; r++) out[r] = s[r];
        break;
    case MCB_UNILATERAL:
        for (int r = 0; r < B->nrows; r++) out[r] = s[r] > 0.0 ? s[r] : 0.0;
        break;
    case MCB_SOFT: { /* eq. (15): lambda = (k alpha (s + e) - k e) / (1 + k alpha) */
        double ka = B->k * B->alpha;
        for (int r = 0; r < B->nrows; r++)
            out[r] = (ka * (s[r] + e[r]) - B->k * e[r]) / (1.0 + ka);
        break;
    }
    case MCB_CONTACT:
        mcb_proj_strict(B->mu, s, out);
        break;
    case MCB_CONTACT_CCP: /* the proximal operator: the CCP's fixed-point map */
        mcb_proj_cone(B->mu, s, out);
        break;
    }
}

typedef struct {
    double fb2, fb_max, nat2, z2, pen_max, pen_sum;
    double nat_ncp2, nat_ccp2; /* natmap pieces with every contact under one law */
    int ncontacts;
} block_sums;

static double sq3(const double x[3]) { return x[0] * x[0] + x[1] * x[1] + x[2] * x[2]; }

/* The pieces a block pass computes (a check needs one metric: its pieces
 * alone, the others stay 0). */
enum { W_FB = 1, W_NAT = 2, W_NAT_NCP = 4, W_NAT_CCP = 8, W_PEN = 16, W_ALL = 31 };

static unsigned wanted_pieces(int id)
{
    switch (id) {
    case MCB_M_FB:
    case MCB_M_FB_MAX: return W_FB;
    case MCB_M_PEN_MAX:
    case MCB_M_PEN_SUM: return W_PEN;
    case MCB_M_NATMAP_NCP: return W_NAT_NCP;
    case MCB_M_NATMAP_CCP: return W_NAT_CCP;
    default: return W_NAT;
    }
}

/* Per-block pieces of fb, natmap, zres and penetration, those in `want`.
 * `ustar` may be NULL when the z-residual is not wanted. Contacts are
 * judged by `law` (MCB_LAW_CCP: every contact as contact_ccp; MCB_LAW_NCP:
 * as stored). Each sum runs in block order whatever `want` is: a piece is
 * the same bit for bit alone or with the others. */
static void block_pass(const mcb_problem *P, int law, unsigned want, const double *lambda,
                       const double *u, const double *ustar, block_sums *S)
{
    memset(S, 0, sizeof *S);
    for (int b = 0; b < P->nblocks; b++) {
        mcb_block Bj = P->blocks[b]; /* the block as judged */
        if (law == MCB_LAW_CCP && Bj.type == MCB_CONTACT) Bj.type = MCB_CONTACT_CCP;
        const mcb_block *B = &Bj;
        int r0 = B->row;
        const double *l = lambda + r0, *ub = u + r0;
        const double *eb = P->e ? P->e + r0 : NULL;
        if (mcb_is_contact(B->type)) {
            double phi[3], rn[3], rc[3];
            int ccp = B->type == MCB_CONTACT_CCP;
            if (want & W_FB) {
                if (ccp) mcb_ccp_fb(B->mu, l, ub, phi);
                else mcb_contact_fb(B->mu, l, ub, phi);
                double f2 = sq3(phi);
                S->fb2 += f2;
                if (sqrt(f2) > S->fb_max || isnan(f2)) S->fb_max = sqrt(f2);
            }
            unsigned nat = want & W_NAT ? (ccp ? W_NAT_CCP : W_NAT_NCP) : 0;
            double n2 = 0.0, c2 = 0.0;
            if ((want | nat) & W_NAT_NCP) {
                mcb_contact_natmap(B->mu, l, ub, rn);
                n2 = sq3(rn);
            }
            if ((want | nat) & W_NAT_CCP) {
                mcb_ccp_natmap(B->mu, l, ub, rc);
                c2 = sq3(rc);
            }
            if (want & W_NAT_NCP) S->nat_ncp2 += n2;
            if (want & W_NAT_CCP) S->nat_ccp2 += c2;
            if (want & W_NAT) S->nat2 += ccp ? c2 : n2;
            if (want & W_PEN) {
                double pen = ub[0] < 0.0 ? -ub[0] : 0.0;
                if (pen > S->pen_max) S->pen_max = pen;
                S->pen_sum += pen;
            }
            S->ncontacts++;
        } else {
            for (int r = 0; r < B->nrows; r++) {
                double f, nm;
                if (B->type == MCB_BILATERAL) {
                    f = ub[r];
                    nm = ub[r];
                } else if (B->type == MCB_UNILATERAL) {
                    f = mcb_fb(l[r], ub[r]);
                    double t = l[r] - ub[r];
                    nm = l[r] - (t > 0.0 ? t : 0.0);
                } else {
                    f = soft_residual(B, l[r], ub[r], eb[r]);
                    nm = f;
                }
                S->fb2 += f * f; /* cheap: every piece, whatever `want` */
                S->nat2 += nm * nm;
                S->nat_ncp2 += nm * nm;
                S->nat_ccp2 += nm * nm;
            }
        }
        if (ustar) { /* z-residual piece: lambda - T(lambda - u*) */
            double sv[3], t[3];
            for (int r0b = 0; r0b < B->nrows; r0b += (mcb_is_contact(B->type) ? 3 : 1)) {
                int len = mcb_is_contact(B->type) ? 3 : 1;
                mcb_block one = *B;
                one.nrows = len;
                for (int r = 0; r < len; r++) sv[r] = l[r0b + r] - ustar[r0 + r0b + r];
                T_strict(&one, sv, eb ? eb + r0b : NULL, t);
                for (int r = 0; r < len; r++) {
                    double d = l[r0b + r] - t[r];
                    S->z2 += d * d;
                }
            }
        }
    }
}

static double zres_scale(const mcb_problem *P, int ncontacts)
{
    int c = ncontacts > 0 ? ncontacts : P->nblocks;
    return c > 0 ? (double)c : 1.0;
}

/* u* for the z-residual: J A^-1 (b + J^T lambda) + e + r∘lambda, or
 * W lambda + q + r∘lambda; J^T lambda is ws->JTl, from dynamics() (b[j] +
 * JTl[j] is what adding J^T lambda into b gives, bit for bit) */
static void projected_velocity(mcb_metrics_ws *ws, const double *lambda)
{
    const mcb_problem *P = ws->P;
    if (P->form == MCB_PRIMAL) {
        for (int k = 0; k < P->n; k++) ws->vstar[k] = P->b[k] + ws->JTl[k];
        mcb_chol_solve(ws->F, ws->vstar, ws->vstar);
        memcpy(ws->ustar, P->e, (size_t)P->m * sizeof(double));
        mcb_csc_gatxpy(ws->Jt, ws->vstar, ws->ustar); /* += J vstar */
        add_compliance(P, lambda, ws->ustar);
    } else {
        local_velocity(ws, NULL, lambda, ws->ustar);
    }
}

/* The smallest scale a residual is divided by: Siconos' MIN_RELATIVE_SCALING
 * (gfc3d_compute_error of later Siconos releases; 4.4 uses DBL_EPSILON). A
 * scale below it is round-off of the problem's data, not a size: where the
 * solution is lambda = 0 and u = 0 (composite/softbox.xml in free fall: 651
 * equality rows with ||e|| = 6e-14, MuJoCo's ||lambda|| = 4e-15), ||u|| /
 * max(||u||, ||lambda||) compares round-off with round-off and is 1 for
 * every solution with ||lambda|| <= ||u||; the residual then stays absolute. */
#define MIN_RELATIVE_SCALING 1.4901161193847656e-08 /* sqrt(DBL_EPSILON) */

static double rel(double x, double scale) { return scale > MIN_RELATIVE_SCALING ? x / scale : x; }

/* Siconos 4.4: local form sqrt(sum ||.||^2) / max(||q||, ||lambda||, ||u||);
 * global form dyn / max(||b||, ||Av||, ||J^T lambda||)
 *             + sqrt(sum ||.||^2) / max(||u||, ||lambda||),
 * each scale below MIN_RELATIVE_SCALING not divided by. */
/* The natmap's scale: max(||q||, ||lambda||, ||u||) (dual) or
 * max(||u||, ||lambda||) (primal). */
static double natmap_scale(const mcb_metrics_ws *ws, const double *lambda)
{
    const mcb_problem *P = ws->P;
    int m = P->m;
    double lnorm = mcb_norm2(m, lambda), unorm = mcb_norm2(m, ws->u);
    double s = lnorm > unorm ? lnorm : unorm;
    if (P->form == MCB_DUAL) {
        double qn = mcb_norm2(m, P->q);
        if (qn > s) s = qn;
    }
    return s;
}

static double natmap(const mcb_metrics_ws *ws, double nat2, double dyn, double dscale,
                     double scale)
{
    if (ws->P->form == MCB_DUAL) return rel(sqrt(nat2), scale);
    return rel(dyn, dscale) + rel(sqrt(nat2), scale);
}

void mcb_metrics_compute(mcb_metrics_ws *ws, const double *v, const double *lambda,
                         mcb_metrics *out)
{
    const mcb_problem *P = ws->P;
    lambda = judged_lambda(ws, lambda);
    double dyn = NAN, dscale = 0.0;
    if (P->form == MCB_PRIMAL) dyn = dynamics(ws, v, lambda, &dscale);
    local_velocity(ws, v, lambda, ws->u);
    projected_velocity(ws, lambda);
    block_sums S;
    block_pass(P, ws->law, W_ALL, lambda, ws->u, ws->ustar, &S);

    out->val[MCB_M_DYN_ABS] = dyn;
    out->val[MCB_M_DYN_REL] = P->form == MCB_PRIMAL ? rel(dyn, dscale) : NAN;
    out->val[MCB_M_FB] = sqrt(S.fb2);
    out->val[MCB_M_FB_MAX] = S.fb_max;
    double scale = natmap_scale(ws, lambda);
    out->val[MCB_M_NATMAP] = natmap(ws, S.nat2, dyn, dscale, scale);
    out->val[MCB_M_NATMAP_NCP] = natmap(ws, S.nat_ncp2, dyn, dscale, scale);
    out->val[MCB_M_NATMAP_CCP] = natmap(ws, S.nat_ccp2, dyn, dscale, scale);
    out->val[MCB_M_ZRES] = sqrt(S.z2) / zres_scale(P, S.ncontacts);
    out->val[MCB_M_PEN_MAX] = S.pen_max;
    out->val[MCB_M_PEN_SUM] = S.pen_sum;
}

double mcb_metrics_one(mcb_metrics_ws *ws, int id, const double *v, const double *lambda)
{
    const mcb_problem *P = ws->P;
    if (id == MCB_M_ZRES) {
        mcb_metrics all;
        mcb_metrics_compute(ws, v, lambda, &all);
        return all.val[id];
    }
    lambda = judged_lambda(ws, lambda);
    double dyn = NAN, dscale = 0.0;
    /* the dynamics residual: its own metrics, and the global natural map's
     * first term */
    int with_dyn = id != MCB_M_FB && id != MCB_M_FB_MAX && id != MCB_M_PEN_MAX &&
                   id != MCB_M_PEN_SUM;
    if (P->form == MCB_PRIMAL && with_dyn) dyn = dynamics(ws, v, lambda, &dscale);
    if (id == MCB_M_DYN_ABS) return dyn;
    if (id == MCB_M_DYN_REL) return P->form == MCB_PRIMAL ? rel(dyn, dscale) : NAN;
    local_velocity(ws, v, lambda, ws->u);
    block_sums S;
    block_pass(P, ws->law, wanted_pieces(id), lambda, ws->u, NULL, &S);
    switch (id) {
    case MCB_M_FB: return sqrt(S.fb2);
    case MCB_M_FB_MAX: return S.fb_max;
    case MCB_M_PEN_MAX: return S.pen_max;
    case MCB_M_PEN_SUM: return S.pen_sum;
    case MCB_M_NATMAP_NCP: return natmap(ws, S.nat_ncp2, dyn, dscale, natmap_scale(ws, lambda));
    case MCB_M_NATMAP_CCP: return natmap(ws, S.nat_ccp2, dyn, dscale, natmap_scale(ws, lambda));
    default: return natmap(ws, S.nat2, dyn, dscale, natmap_scale(ws, lambda));
    }
}

int mcb_metrics_contact_forces(mcb_metrics_ws *ws, const double *v, const double *lambda,
                               double out[2])
{
    out[0] = out[1] = NAN;
    if (!ws || !v || !lambda || ws->iso || ws->P->form != MCB_PRIMAL || !ws->P->r) return 0;
    const mcb_problem *P = ws->P;
    double *c = ws->u, *lfwd = ws->ustar;
    /* c = J v + e, then, block by block, the inverse impulses in its place;
     * both impulse vectors zero off the measured blocks */
    memcpy(c, P->e, (size_t)P->m * sizeof(double));
    mcb_csc_gatxpy(ws->Jt, v, c);
    memset(lfwd, 0, (size_t)P->m * sizeof(double));
    int nb = 0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int ccp = B->type == MCB_CONTACT_CCP || (B->type == MCB_CONTACT && ws->law == MCB_LAW_CCP);
        int r0 = B->row;
        double li[3];
        if ((B->type == MCB_CONTACT || B->type == MCB_CONTACT_CCP) &&
            !mcb_contact_inverse(ccp, B->mu, P->r + r0, c + r0, li)) {
            for (int k = 0; k < 3; k++) lfwd[r0 + k] = lambda[r0 + k], c[r0 + k] = li[k];
            nb++;
        } else {
            for (int k = 0; k < B->nrows; k++) c[r0 + k] = 0.0;
        }
    }
    if (!nb) return 0;
    memset(ws->Av, 0, (size_t)P->n * sizeof(double));
    memset(ws->JTl, 0, (size_t)P->n * sizeof(double));
    mcb_csc_gatxpy(P->J, lfwd, ws->Av);
    mcb_csc_gatxpy(P->J, c, ws->JTl);
    out[0] = mcb_norm2(P->n, ws->Av);
    out[1] = mcb_norm2(P->n, ws->JTl);
    return nb;
}

/* cond.c: COND, contact nodalization and diagonalization (the COND paper,
 * papers/cond.txt; its equations written out in notes/cond.md, which this
 * file follows). Four registered variants share this code:
 *   cond        the paper's method: strict operator (26) on `contact` blocks
 *               (solves the Signorini-Coulomb law; `contact_ccp` blocks get
 *               the proximal operator, whose fixed point is the CCP),
 *               virtual-node law on w + e (vn_update = 0), Chebyshev on;
 *   cond-prox   proximal operator on every contact (the CCP relaxation of
 *               Prop. 5 / eq. (36): judge it with --law ccp), Chebyshev on;
 *   cond-nocheb `cond` without Chebyshev acceleration (Table IX's ablation);
 *   cond-shift  `cond` with our outer shift of the virtual-node law
 *               (vn_update = 10, below): not in the paper.
 *
 * The iteration (V-FPI, Alg. 1) on the nodalized system x = [v; w]:
 *   (20) x_half = x - Ã^-1 (A_aug x - b_aug)
 *   (23) per contact i, in parallel: y_i = J_aug,i x_half + e_i,
 *        lambda_i = Proj(-y_i / g_i) (strict or proximal, closed form)
 *   (24) x_hat = x_half + Ã^-1 J_aug^T lambda
 * wrapped in Chebyshev semi-iterative acceleration (Alg. 3, rho by (39)).
 *
 * Nodalization. A contact block whose three rows touch 3 or 6 DOFs C with
 * J_C J_C^T = s^2 I (an S- or D-contact on 3-DOF nodes through a rotation,
 * Prop. 3), and whose DOFs no earlier nodal contact took, is solved on its
 * real DOFs (the nodal fast path: FEM and particle nodes). Every other
 * constraint row r (contacts on rigid bodies or joint coordinates, and the
 * bilateral, unilateral and soft rows) gets a massless virtual coordinate
 * w_r coupled by the gain kappa_r (Sec. III-A2):
 *   A_aug = [A + J_V^T K J_V, -J_V^T K; -K J_V, K],  K = diag(kappa_r),
 * and its law acts on w_r (Jacobian I). kappa_r = kappa / (J_r D^-1 J_r^T)
 * with D = diag(A) (a contact uses its three rows' mean): the gain is
 * relative to the row's effective mass, so `kappa` has no units.
 * Eliminating w gives A v = b + J^T lambda exactly with w = J v + lambda/K
 * (Prop. 1-2): the law then holds for J v + e + lambda/kappa, a perturbation
 * that vanishes as kappa grows. With vn_update = K > 0 (an addition of
 * ours, not in the paper; `cond-shift`) every K iterations the law moves to
 * w + e - lambda_hat/kappa, lambda_hat the impulse at that moment: an outer
 * proximal-point loop whose fixed point has the law exactly on J v + e. The
 * Chebyshev sequence carries on through a shift unless cheb_restart = 1
 * (measured in docs/solver-cond.md: carrying on is faster). Shifting at
 * every iteration instead diverges: the shift then amplifies lambda by
 * ã_w / kappa >= 1.
 *
 * Invertible contact (Sec. III-E1). The problem's per-row compliance r is
 * the regularization R of (37): nodal blocks with one r solve with
 * G + R = (g + r) I, compliant virtual rows get kappa_r = 1 / r_r (the
 * coupling then is R exactly; set_kappa). Anisotropic friction (Sec.
 * III-E2, Prop. 6): a contact with mu2 gets the strict operator on its
 * elliptic cone (mcb_proj_strict_aniso), the maximal dissipation solution;
 * the proximal operator has none in closed form (refused at setup).
 *
 * Diagonalization. Ã is diagonal: the Gershgorin bound of A_aug
 * (sum_j |A_kj| + sum_r kappa_r |J_rk| (1 + sum_j |J_rj|) for a DOF,
 * kappa_r (1 + sum_j |J_rj|) for a virtual coordinate), so Ã - A_aug is
 * positive semidefinite, times `ascale`; the DOFs of a nodal contact and the
 * three coordinates of a virtual contact set to their maximum. The
 * surrogate Delassus operator is then g_i I3 (g_i = s^2 / ã, or 1 / ã):
 * no factorization, no Delassus operator, per-iteration cost
 * O(n + nnz(A) + nnz(J)).
 *
 * Parallel and deterministic: every pass is a loop over DOFs or blocks
 * writing only its own entries (OpenMP); the norms are serial sums. The
 * result is bit for bit the same for any thread count.
 * Allocation: setup only. Primal problems only. Own residual:
 * ||x_hat - x|| / max(1, ||x_hat||), the fixed-point residual. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_cone.h"
#include "solvers/solver.h"

typedef struct {
    int prox;          /* 1: proximal operator on every contact; 0: strict on `contact` */
    int cheb;          /* Chebyshev acceleration (Alg. 3) */
    int cheb_start;    /* S: plain (under-relaxed) iterations before acceleration */
    double cheb_gamma; /* under-relaxation gamma of Alg. 3 */
    double rho_max;    /* cap of the spectral radius estimate (39) */
    double rho;        /* > 0: a fixed spectral radius instead of (39) */
    double kappa;      /* virtual-node gain, relative to the row's effective mass */
    int vn_update;     /* > 0: every vn_update iterations, shift the virtual law by lambda / kappa */
    int nodal;         /* 1: the nodal fast path where it applies; 0: virtual nodes everywhere */
    double ascale;     /* multiplies the Gershgorin diagonal Ã */
    double own_tol;    /* stop on the own residual below this (0: never) */
    int cheb_restart;  /* 1: restart the Chebyshev sequence at each vn_update shift */
} cond_params;

static void cond_defaults(void *p)
{
    cond_params *q = p;
    q->prox = 0;
    q->cheb = 1;
    q->cheb_start = 10;
    q->cheb_gamma = 0.9;
    q->rho_max = 0.9999;
    q->rho = 0.0;
    q->kappa = 10.0;
    q->vn_update = 0;
    q->nodal = 1;
    q->ascale = 1.0;
    q->own_tol = 0.0;
    q->cheb_restart = 0;
}

static void cond_prox_defaults(void *p)
{
    cond_defaults(p);
    ((cond_params *)p)->prox = 1;
}

static void cond_nocheb_defaults(void *p)
{
    cond_defaults(p);
    ((cond_params *)p)->cheb = 0;
}

static void cond_shift_defaults(void *p)
{
    cond_defaults(p);
    ((cond_params *)p)->vn_update = 10;
}

static const mcb_param_desc cond_desc[] = {
    {"prox", 'i', offsetof(cond_params, prox),
     "1: proximal operator on every contact (the CCP, Prop. 5); 0: strict operator (26) on "
     "contact blocks (Coulomb, Prop. 4). cond: 0, cond-prox: 1"},
    {"cheb", 'i', offsetof(cond_params, cheb),
     "Chebyshev acceleration, Alg. 3 (1 on; cond-nocheb: 0)"},
    {"cheb_start", 'i', offsetof(cond_params, cheb_start),
     "S of Alg. 3: iterations before the acceleration starts, >= 1 (10, as Wang 2015)"},
    {"cheb_gamma", 'd', offsetof(cond_params, cheb_gamma),
     "under-relaxation gamma of Alg. 3, in (0, 1] (0.9, as Wang 2015)"},
    {"rho_max", 'd', offsetof(cond_params, rho_max),
     "cap of the spectral-radius estimate (39), in (0, 1) (0.9999)"},
    {"rho", 'd', offsetof(cond_params, rho),
     "a fixed spectral radius in (0, 1) instead of the estimate (39) (0: estimate)"},
    {"kappa", 'd', offsetof(cond_params, kappa),
     "virtual-node gain relative to the row's effective mass 1 / (J_r diag(A)^-1 J_r^T), > 0 (10)"},
    {"vn_update", 'i', offsetof(cond_params, vn_update),
     "K > 0: every K iterations the virtual-node law shifts to w + e - lambda_hat / kappa, "
     "lambda_hat the impulse then (an outer proximal-point loop of ours, exact at its fixed "
     "point); 0: the law on w + e as in the paper, error O(lambda / kappa) by Prop. 2 (0; "
     "cond-shift: 10)"},
    {"nodal", 'i', offsetof(cond_params, nodal),
     "1: contacts on 3-DOF nodes through a rotation use the nodal fast path; 0: virtual "
     "nodes for every contact (1)"},
    {"ascale", 'd', offsetof(cond_params, ascale),
     "multiplies the Gershgorin diagonal surrogate; >= 1 keeps Ã - A_aug PSD (1)"},
    {"own_tol", 'd', offsetof(cond_params, own_tol),
     "stop when the fixed-point residual falls below this (0: only the harness stops it)"},
    {"cheb_restart", 'i', offsetof(cond_params, cheb_restart),
     "1: restart the Chebyshev sequence at every vn_update shift; 0: carry on through it (0)"},
};

typedef struct {
    const mcb_problem *P;
    cond_params prm;
    int n, m, nv, N;  /* DOFs, rows, virtual coordinates, N = n + nv */
    int nnodal;       /* contacts on the nodal fast path */
    mcb_csc *JT;      /* J^T: column r = row r of J */
    int *vidx;        /* m: the row's virtual coordinate in x (n + k), -1 for nodal rows */
    double *kap;      /* m: kappa_r (0 for nodal rows) */
    double *g;        /* m: surrogate Delassus weight of the row's block */
    double *t;        /* m: kappa_r (J_r v - w_r) for virtual rows, 0 otherwise */
    double *adiag;    /* N: Ã */
    double *lambda;   /* m */
    double *lhat;     /* m: lambda_hat / kappa_r, the virtual law's shift (vn_update) */
    double *x, *xprev, *xh, *xhat; /* N each */
    double rprev, omega;
    int l0; /* iteration at which the Chebyshev sequence (re)started */
} cond_work;

static void cond_free(void **work)
{
    if (!work || !*work) return;
    cond_work *w = *work;
    mcb_csc_free(&w->JT);
    free(w->vidx);
    double **v[] = {&w->kap, &w->g,     &w->t,  &w->adiag, &w->lambda, &w->lhat,
                    &w->x,   &w->xprev, &w->xh, &w->xhat};
    for (size_t k = 0; k < sizeof v / sizeof *v; k++) free(*v[k]);
    free(w);
    *work = NULL;
}

static mcb_rc cond_check(const void *params, mcb_err *err)
{
    const cond_params *p = params;
    if (p->prox != 0 && p->prox != 1)
        return mcb_fail(err, MCB_E_INPUT, "cond.prox = %d must be 0 or 1", p->prox);
    if (p->cheb != 0 && p->cheb != 1)
        return mcb_fail(err, MCB_E_INPUT, "cond.cheb = %d must be 0 or 1", p->cheb);
    if (p->cheb_start < 1)
        return mcb_fail(err, MCB_E_INPUT, "cond.cheb_start = %d must be >= 1", p->cheb_start);
    if (!(p->cheb_gamma > 0.0 && p->cheb_gamma <= 1.0))
        return mcb_fail(err, MCB_E_INPUT, "cond.cheb_gamma = %g must lie in (0, 1]",
                        p->cheb_gamma);
    if (!(p->rho_max > 0.0 && p->rho_max < 1.0))
        return mcb_fail(err, MCB_E_INPUT, "cond.rho_max = %g must lie in (0, 1)", p->rho_max);
    if (!(p->rho >= 0.0 && p->rho < 1.0))
        return mcb_fail(err, MCB_E_INPUT, "cond.rho = %g must lie in [0, 1)", p->rho);
    if (!(p->kappa > 0.0) || !isfinite(p->kappa))
        return mcb_fail(err, MCB_E_INPUT, "cond.kappa = %g must be > 0", p->kappa);
    if (p->vn_update < 0)
        return mcb_fail(err, MCB_E_INPUT, "cond.vn_update = %d must be >= 0", p->vn_update);
    if (p->nodal != 0 && p->nodal != 1)
        return mcb_fail(err, MCB_E_INPUT, "cond.nodal = %d must be 0 or 1", p->nodal);
    if (!(p->ascale > 0.0) || !isfinite(p->ascale))
        return mcb_fail(err, MCB_E_INPUT, "cond.ascale = %g must be > 0", p->ascale);
    if (!(p->own_tol >= 0.0))
        return mcb_fail(err, MCB_E_INPUT, "cond.own_tol = %g must be >= 0", p->own_tol);
    if (p->cheb_restart != 0 && p->cheb_restart != 1)
        return mcb_fail(err, MCB_E_INPUT, "cond.cheb_restart = %d must be 0 or 1",
                        p->cheb_restart);
    return MCB_OK;
}

/* ------------------------------------------------------------------ setup */

/* Dot product of rows r1 and r2 of J (columns of JT, sorted indices). */
static double row_dot(const mcb_csc *JT, int r1, int r2)
{
    double s = 0.0;
    int a = JT->p[r1], ae = JT->p[r1 + 1], b = JT->p[r2], be = JT->p[r2 + 1];
    while (a < ae && b < be) {
        if (JT->i[a] < JT->i[b]) a++;
        else if (JT->i[a] > JT->i[b]) b++;
        else s += JT->x[a++] * JT->x[b++];
    }
    return s;
}

/* Prop. 3's condition for the nr <= 3 rows r0.. of a block: they touch at
 * most 6 DOFs C, none taken by an earlier nodal block, and J_C J_C^T = s^2 I
 * (an S- or D-contact on 3-DOF nodes through a rotation; for scalar rows any
 * row on at most 6 DOFs). Returns s^2 (> 0) and C / *nc, or 0 when the
 * block is not nodal. */
static double nodal_block(const mcb_csc *JT, int r0, int nr, const int *owner, int C[6],
                          int *nc)
{
    *nc = 0;
    if (nr > 3) return 0.0;
    for (int r = r0; r < r0 + nr; r++)
        for (int k = JT->p[r]; k < JT->p[r + 1]; k++) {
            int j = JT->i[k], seen = 0;
            for (int a = 0; a < *nc; a++) seen |= C[a] == j;
            if (seen) continue;
            if (*nc == 6 || owner[j] >= 0) return 0.0;
            C[(*nc)++] = j;
        }
    double M[3][3], dmax = 0.0;
    for (int a = 0; a < nr; a++)
        for (int b = 0; b < nr; b++) M[a][b] = row_dot(JT, r0 + a, r0 + b);
    for (int a = 0; a < nr; a++) dmax = fmax(dmax, M[a][a]);
    if (!(dmax > 0.0)) return 0.0;
    for (int a = 0; a < nr; a++)
        for (int b = 0; b < nr; b++)
            if (fabs(M[a][b] - (a == b ? dmax : 0.0)) > 1e-10 * dmax) return 0.0;
    return dmax;
}

/* 1 when the block's rows share one compliance r (all zero included):
 * then G + R = (g + r) I3 on the nodal path. */
static int uniform_compliance(const mcb_problem *P, const mcb_block *B)
{
    for (int r = B->row + 1; r < B->row + B->nrows; r++)
        if (mcb_problem_r(P, r) != mcb_problem_r(P, B->row)) return 0;
    return 1;
}

/* Classifies the blocks (nodal, or virtual rows), numbers the virtual
 * coordinates and sets g of nodal rows to s^2 (divided by ã later). The
 * DOFs of nodal block b are marked owner[j] = b. */
static void classify(cond_work *w, int *owner)
{
    const mcb_problem *P = w->P;
    for (int j = 0; j < w->n; j++) owner[j] = -1;
    int nv = 0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int C[6], nc = 0;
        double s2 = w->prm.nodal && uniform_compliance(P, B)
                        ? nodal_block(w->JT, B->row, B->nrows, owner, C, &nc)
                        : 0.0;
        if (s2 > 0.0) {
            for (int a = 0; a < nc; a++) owner[C[a]] = b;
            for (int r = B->row; r < B->row + B->nrows; r++) w->vidx[r] = -1, w->g[r] = s2;
            w->nnodal++;
            continue;
        }
        for (int r = B->row; r < B->row + B->nrows; r++) w->vidx[r] = w->n + nv++;
    }
    w->nv = nv;
    w->N = w->n + nv;
}

/* J_r D^-1 J_r^T with D = diag(A): row r's effective inverse mass. */
static double row_weight(const mcb_csc *JT, int r, const double *dA)
{
    double s = 0.0;
    for (int k = JT->p[r]; k < JT->p[r + 1]; k++) s += JT->x[k] * JT->x[k] / dA[JT->i[k]];
    return s;
}

/* kappa_r = kappa / (J_r D^-1 J_r^T), a contact's three rows sharing the
 * mean of theirs; kappa itself for a zero row. A compliant row (r_r > 0,
 * Sec. III-E1) gets kappa_r = 1 / r_r: the virtual node's coupling is then
 * exactly the regularization R, w_r = J_r v + r_r lambda_r at the fixed
 * point, and the law on w_r + e_r is the compliant law. */
static void set_kappa(cond_work *w, const double *dA)
{
    const mcb_problem *P = w->P;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r0 = B->row;
        if (w->vidx[r0] < 0) continue;
        double qc = 0.0;
        if (mcb_is_contact(B->type))
            for (int r = r0; r < r0 + 3; r++) qc += row_weight(w->JT, r, dA) / 3.0;
        for (int r = r0; r < r0 + B->nrows; r++) {
            double q = mcb_is_contact(B->type) ? qc : row_weight(w->JT, r, dA);
            double rr = mcb_problem_r(P, r);
            w->kap[r] = rr > 0.0 ? 1.0 / rr : q > 0.0 ? w->prm.kappa / q : w->prm.kappa;
        }
    }
}

/* Ã: the Gershgorin bound of A_aug times ascale, equalised over each
 * contact's DOFs (nodal) or virtual coordinates; then g per row. */
static mcb_rc set_surrogate(cond_work *w, mcb_err *err)
{
    const mcb_problem *P = w->P;
    const mcb_csc *A = P->A, *J = P->J, *JT = w->JT;
    double *rs = w->t; /* scratch: sum_j |J_rj| per row */
    for (int r = 0; r < w->m; r++) {
        rs[r] = 0.0;
        for (int k = JT->p[r]; k < JT->p[r + 1]; k++) rs[r] += fabs(JT->x[k]);
    }
    for (int j = 0; j < w->n; j++) {
        double s = 0.0;
        for (int k = A->p[j]; k < A->p[j + 1]; k++) s += fabs(A->x[k]);
        for (int k = J->p[j]; k < J->p[j + 1]; k++) {
            int r = J->i[k];
            if (w->vidx[r] >= 0) s += w->kap[r] * fabs(J->x[k]) * (1.0 + rs[r]);
        }
        w->adiag[j] = s * w->prm.ascale;
    }
    for (int r = 0; r < w->m; r++)
        if (w->vidx[r] >= 0) w->adiag[w->vidx[r]] = w->kap[r] * (1.0 + rs[r]) * w->prm.ascale;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r0 = B->row, r1 = B->row + B->nrows;
        double amax = 0.0;
        if (w->vidx[r0] < 0) { /* nodal: Ã scalar over the block's DOFs, all its own */
            for (int r = r0; r < r1; r++)
                for (int k = JT->p[r]; k < JT->p[r + 1]; k++) amax = fmax(amax, w->adiag[JT->i[k]]);
            for (int r = r0; r < r1; r++) {
                for (int k = JT->p[r]; k < JT->p[r + 1]; k++) w->adiag[JT->i[k]] = amax;
                w->g[r] /= amax;
            }
        } else if (mcb_is_contact(B->type)) { /* one virtual node: Ã scalar over it */
            for (int r = r0; r < r1; r++) amax = fmax(amax, w->adiag[w->vidx[r]]);
            for (int r = r0; r < r1; r++) w->adiag[w->vidx[r]] = amax, w->g[r] = 1.0 / amax;
        } else {
            for (int r = r0; r < r1; r++) w->g[r] = 1.0 / w->adiag[w->vidx[r]];
        }
    }
    for (int k = 0; k < w->N; k++)
        if (!(w->adiag[k] > 0.0) || !isfinite(w->adiag[k]))
            return mcb_fail(err, MCB_E_NUMERIC,
                            "cond: diagonal surrogate entry %d is %g (A or J not finite, or a "
                            "zero row of A)",
                            k, w->adiag[k]);
    memset(w->t, 0, (size_t)w->m * sizeof(double));
    return MCB_OK;
}

static mcb_rc cond_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                         void **work, mcb_err *err)
{
    *work = NULL;
    mcb_rc rc = cond_check(params, err);
    if (rc) return rc;
    if (P->form != MCB_PRIMAL || !P->A || !P->J)
        return mcb_fail(err, MCB_E_INPUT, "cond: primal problems only");
    const cond_params *prm = params;
    for (int b = 0; b < P->nblocks; b++) /* Prop. 6 is the strict operator's */
        if (mcb_is_contact(P->blocks[b].type) && mcb_problem_mu2(P, b) != P->blocks[b].mu &&
            (prm->prox || P->blocks[b].type == MCB_CONTACT_CCP))
            return mcb_fail(err, MCB_E_INPUT,
                            "cond: contact block %d has anisotropic friction (mu %g, mu2 %g) "
                            "under the proximal operator, which has no closed form on an "
                            "elliptic cone: run cond-prox, which receives the isotropic "
                            "equivalent (lib/mcb_aniso.h)",
                            b, P->blocks[b].mu, mcb_problem_mu2(P, b));
    cond_work *w = calloc(1, sizeof *w);
    if (!w) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    w->P = P;
    w->prm = *(const cond_params *)params;
    w->n = P->n;
    w->m = P->m;
    size_t m1 = (size_t)P->m + 1, n1 = (size_t)P->n + 1, N1 = n1 + (size_t)P->m;
    w->JT = mcb_csc_transpose(P->J);
    w->vidx = mcb_malloc(m1, sizeof(int));
    w->kap = mcb_calloc(m1, sizeof(double));
    w->g = mcb_calloc(m1, sizeof(double));
    w->t = mcb_calloc(m1, sizeof(double));
    w->lambda = mcb_calloc(m1, sizeof(double));
    w->lhat = mcb_calloc(m1, sizeof(double));
    w->adiag = mcb_calloc(N1, sizeof(double));
    w->x = mcb_calloc(N1, sizeof(double));
    w->xprev = mcb_calloc(N1, sizeof(double));
    w->xh = mcb_calloc(N1, sizeof(double));
    w->xhat = mcb_calloc(N1, sizeof(double));
    int *owner = mcb_malloc(n1, sizeof(int));
    double *dA = mcb_calloc(n1, sizeof(double));
    if (!w->JT || !w->vidx || !w->kap || !w->g || !w->t || !w->lambda || !w->lhat || !w->adiag || !w->x ||
        !w->xprev || !w->xh || !w->xhat || !owner || !dA) {
        free(owner);
        free(dA);
        cond_free((void **)&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    const mcb_csc *A = P->A;
    for (int j = 0; j < P->n; j++) {
        for (int k = A->p[j]; k < A->p[j + 1]; k++)
            if (A->i[k] == j) dA[j] = A->x[k];
        if (!(dA[j] > 0.0)) {
            double ajj = dA[j];
            free(owner);
            free(dA);
            cond_free((void **)&w);
            return mcb_fail(err, MCB_E_NUMERIC, "cond: A_%d,%d = %g is not positive", j, j, ajj);
        }
    }
    classify(w, owner);
    set_kappa(w, dA);
    rc = set_surrogate(w, err);
    free(owner);
    free(dA);
    if (rc) {
        cond_free((void **)&w);
        return rc;
    }
    /* x^0: v = v0 (warm start) or 0, each virtual node on its row: w_r = J_r v */
    if (s->warm_start && P->v0) memcpy(w->x, P->v0, (size_t)P->n * sizeof(double));
    if (s->warm_start && P->lambda0) memcpy(w->lambda, P->lambda0, (size_t)P->m * sizeof(double));
    for (int r = 0; r < P->m; r++)
        if (w->vidx[r] >= 0) {
            double u = 0.0;
            for (int k = w->JT->p[r]; k < w->JT->p[r + 1]; k++) u += w->JT->x[k] * w->x[w->JT->i[k]];
            w->x[w->vidx[r]] = u;
        }
    memcpy(w->xprev, w->x, (size_t)w->N * sizeof(double));
    memcpy(w->xhat, w->x, (size_t)w->N * sizeof(double));
    *work = w;
    return MCB_OK;
}

/* -------------------------------------------------------------- iteration */

/* (20): xh = x - Ã^-1 (A_aug x - b_aug), O(nnz(A) + nnz(J)). */
static void gradient_step(cond_work *w, const double *x)
{
    const mcb_problem *P = w->P;
    const mcb_csc *A = P->A, *J = P->J, *JT = w->JT;
    int n = w->n, m = w->m;
#pragma omp parallel for schedule(static)
    for (int r = 0; r < m; r++) {
        if (w->vidx[r] < 0) continue;
        double u = 0.0;
        for (int k = JT->p[r]; k < JT->p[r + 1]; k++) u += JT->x[k] * x[JT->i[k]];
        w->t[r] = w->kap[r] * (u - x[w->vidx[r]]);
    }
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n; j++) {
        double s = -P->b[j];
        for (int k = A->p[j]; k < A->p[j + 1]; k++) s += A->x[k] * x[A->i[k]];
        for (int k = J->p[j]; k < J->p[j + 1]; k++) s += J->x[k] * w->t[J->i[k]];
        w->xh[j] = x[j] - s / w->adiag[j];
    }
#pragma omp parallel for schedule(static)
    for (int r = 0; r < m; r++) {
        int c = w->vidx[r];
        if (c >= 0) w->xh[c] = x[c] + w->t[r] / w->adiag[c];
    }
}

/* The row's velocity term from xh: J_r v_half (nodal) or the virtual
 * node's w_half, shifted by -lambda_hat / kappa (vn_update). */
static double row_velocity(const cond_work *w, int r)
{
    int c = w->vidx[r];
    if (c >= 0) return w->xh[c] - w->lhat[r];
    const mcb_csc *JT = w->JT;
    double u = 0.0;
    for (int k = JT->p[r]; k < JT->p[r + 1]; k++) u += JT->x[k] * w->xh[JT->i[k]];
    return u;
}

/* The block's surrogate Delassus weight with the regularization of the
 * invertible contact model (Sec. III-E1): G + R = (g + r) I on the nodal
 * path; a virtual row's coupling already is its compliance (set_kappa). */
static double block_weight(const cond_work *w, int r)
{
    return w->vidx[r] < 0 ? w->g[r] + mcb_problem_r(w->P, r) : w->g[r];
}

/* (23) on block B, closed form (Prop. 4, 5): lambda = Proj(-y / (g + r)). */
static void local_solve(cond_work *w, const mcb_block *B)
{
    const double *e = w->P->e;
    int r0 = B->row;
    if (mcb_is_contact(B->type)) {
        double z[3], l[3], g = block_weight(w, r0);
        double mu2 = mcb_problem_mu2(w->P, (int)(B - w->P->blocks));
        for (int a = 0; a < 3; a++) z[a] = -(row_velocity(w, r0 + a) + e[r0 + a]) / g;
        if (w->prm.prox || B->type == MCB_CONTACT_CCP) mcb_proj_cone(B->mu, z, l);
        else if (mu2 != B->mu) mcb_proj_strict_aniso(B->mu, mu2, z, l); /* Prop. 6 */
        else mcb_proj_strict(B->mu, z, l);
        for (int a = 0; a < 3; a++) w->lambda[r0 + a] = l[a];
        return;
    }
    for (int r = r0; r < r0 + B->nrows; r++) {
        double zr = row_velocity(w, r), g = block_weight(w, r), l;
        switch (B->type) {
        case MCB_UNILATERAL: l = -(zr + e[r]) / g; l = l > 0.0 ? l : 0.0; break;
        case MCB_SOFT: l = -B->k * (e[r] + B->alpha * zr) / (1.0 + B->k * B->alpha * g); break;
        default: l = -(zr + e[r]) / g; break; /* bilateral */
        }
        w->lambda[r] = l;
    }
}

/* (24): xhat = xh + Ã^-1 J_aug^T lambda. */
static void update_step(cond_work *w)
{
    const mcb_csc *J = w->P->J;
    int n = w->n, m = w->m;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int k = J->p[j]; k < J->p[j + 1]; k++)
            if (w->vidx[J->i[k]] < 0) s += J->x[k] * w->lambda[J->i[k]];
        w->xhat[j] = w->xh[j] + s / w->adiag[j];
    }
#pragma omp parallel for schedule(static)
    for (int r = 0; r < m; r++) {
        int c = w->vidx[r];
        if (c >= 0) w->xhat[c] = w->xh[c] + w->lambda[r] / w->adiag[c];
    }
}

/* One V-FPI iteration (Alg. 1): xhat = F(x). */
static void fpi_step(cond_work *w, const double *x)
{
    const mcb_problem *P = w->P;
    gradient_step(w, x);
#pragma omp parallel for schedule(static)
    for (int b = 0; b < P->nblocks; b++) local_solve(w, &P->blocks[b]);
    update_step(w);
}

/* Alg. 3: x_{l+1} = omega (gamma (xhat - x_l) + x_l - x_{l-1}) + x_{l-1},
 * written into xprev (which then becomes x). l counts from 0. */
static void chebyshev_step(cond_work *w, int l, double r)
{
    const cond_params *p = &w->prm;
    double rho = p->rho;
    if (rho <= 0.0) { /* (39) */
        double ratio = w->rprev > 0.0 ? r / w->rprev : p->rho_max;
        rho = ratio < p->rho_max ? ratio : p->rho_max;
    }
    l -= w->l0;
    if (!p->cheb || l < p->cheb_start) w->omega = 1.0;
    else if (l == p->cheb_start) w->omega = 2.0 / (2.0 - rho * rho);
    else w->omega = 4.0 / (4.0 - rho * rho * w->omega);
    double om = w->omega, ga = p->cheb ? p->cheb_gamma : 1.0;
    double *xn = w->xprev;
    const double *x = w->x, *xhat = w->xhat;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < w->N; k++) xn[k] = om * (ga * (xhat[k] - x[k]) + x[k] - xn[k]) + xn[k];
    w->xprev = w->x;
    w->x = xn;
}

/* vn_update: the virtual law moves to w + e - lambda / kappa; with
 * cheb_restart = 1 the Chebyshev sequence restarts from the current
 * iterate, otherwise it carries on (the default). */
static void shift_virtual_law(cond_work *w, int it)
{
    for (int r = 0; r < w->m; r++)
        if (w->vidx[r] >= 0 && mcb_problem_r(w->P, r) == 0.0) /* compliant: exact already */
            w->lhat[r] = w->lambda[r] / w->kap[r];
    if (w->prm.cheb_restart) {
        memcpy(w->xprev, w->x, (size_t)w->N * sizeof(double));
        w->l0 = it;
        w->rprev = 0.0;
    }
}

static int cond_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                      mcb_info *info)
{
    cond_work *w = work;
    w->rprev = 0.0;
    w->omega = 1.0;
    w->l0 = 0;
    for (int it = 1; it <= s->max_iters; it++) {
        fpi_step(w, w->x);
        double r = 0.0, xn = 0.0;
        for (int k = 0; k < w->N; k++) {
            double d = w->xhat[k] - w->x[k];
            r += d * d;
            xn += w->xhat[k] * w->xhat[k];
        }
        r = sqrt(r);
        xn = sqrt(xn);
        info->iterations = it;
        info->own_residual = r / (xn > 1.0 ? xn : 1.0);
        if (!isfinite(info->own_residual) || xn > 1e150 || !mcb_all_finite(w->m, w->lambda)) {
            snprintf(info->reason, sizeof info->reason,
                     "non-finite or unbounded iterate at iteration %d (||x|| = %g)", it, xn);
            return MCB_ST_DIVERGED;
        }
        chebyshev_step(w, it - 1, r);
        w->rprev = r;
        if (w->prm.vn_update > 0 && it % w->prm.vn_update == 0) shift_virtual_law(w, it);
        mcb_cb_action a = cb(ctx, it, info->own_residual);
        if (a != MCB_CB_CONTINUE) return mcb_status_from_cb(a);
        if (w->prm.own_tol > 0.0 && info->own_residual <= w->prm.own_tol) {
            snprintf(info->reason, sizeof info->reason, "fixed-point residual %g <= own_tol",
                     info->own_residual);
            return MCB_ST_STALLED;
        }
    }
    return MCB_ST_MAX_ITERS;
}

/* (v, lambda) of the last V-FPI output: v from xhat, lambda of the same step. */
static void cond_iterate(void *work, double *v, double *lambda)
{
    cond_work *w = work;
    memcpy(lambda, w->lambda, (size_t)w->m * sizeof(double));
    if (v) memcpy(v, w->xhat, (size_t)w->n * sizeof(double));
}

/* ANISO: the strict operator's elliptic projection (Prop. 6); cond-prox
 * receives the isotropic equivalent instead (lib/mcb_aniso.h). */
#define COND_DEF(NAME, DEFAULTS, DESCRIPTION, ANISO)                                       \
    {                                                                                      \
        .name = NAME, .description = DESCRIPTION,                                          \
        .reference = "COND paper Alg. 1-3, eq. (20)-(26), (39), Sec. III-E; notes/cond.md", \
        .accepts = MCB_ACCEPTS_PRIMAL | (ANISO), .params_size = sizeof(cond_params),       \
        .accepts_problem = NULL, /* compliance r: Sec. III-E1, exact (set_kappa) */        \
        .default_params = DEFAULTS, .params = cond_desc,                                   \
        .nparams = (int)(sizeof cond_desc / sizeof cond_desc[0]),                          \
        .check_params = cond_check, .setup = cond_setup, .solve = cond_solve,              \
        .iterate = cond_iterate, .free = cond_free,                                        \
    }

const mcb_solver_def mcb_solver_cond =
    COND_DEF("cond", cond_defaults,
             "COND as the paper defines it, velocity fixed-point iteration: diagonal "
             "surrogate, closed-form strict per-contact solve in parallel, virtual nodes "
             "(gain kappa) or the nodal fast path, Chebyshev acceleration; no "
             "factorization, no Delassus operator",
             MCB_ACCEPTS_ANISO);
const mcb_solver_def mcb_solver_cond_prox =
    COND_DEF("cond-prox", cond_prox_defaults,
             "COND with the proximal operator (CCP solver: judge it with --law ccp)", 0);
const mcb_solver_def mcb_solver_cond_nocheb =
    COND_DEF("cond-nocheb", cond_nocheb_defaults,
             "COND (strict operator) without Chebyshev acceleration (Table IX ablation)",
             MCB_ACCEPTS_ANISO);
const mcb_solver_def mcb_solver_cond_shift =
    COND_DEF("cond-shift", cond_shift_defaults,
             "COND with an outer shift of the virtual-node law every 10 iterations (ours, not "
             "in the paper): exact on J v + e at its fixed point",
             MCB_ACCEPTS_ANISO);

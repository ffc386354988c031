/* form_lcp.c: the machinery the LCP formulations share (lcp-st, lcp-ap,
 * mlcp): the variable layout, the polygon, the map T from z to P's
 * impulses, the rows every LCP form adds (E, the sigma rows, the soft
 * rows' laws), the map back, the natural merit function and the lift.
 *
 * Layout of the LCP part (after F->off free rows for mlcp): P's blocks in
 * order; a contact (rows n, t1, t2 of P) becomes one unilateral block of
 * nd + 2 rows (lambda_n, beta_1 .. beta_nd, sigma); bilateral and
 * unilateral blocks keep their rows and type; a soft block becomes a
 * bilateral block of as many rows. The polygon's directions are
 * d_k = (cos 2 pi k / nd, sin 2 pi k / nd) in the (t1, t2) plane, so the
 * polygon is inscribed in the exact cone (its vertices on the circle).
 * Allocates in mcb_form_lcp_layout() only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/formulation/form_internal.h"

#define TWO_PI 6.283185307179586476925286766559

int mcb_trip_push(mcb_trip *t, int i, int j, double x)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 256;
        int *ni = realloc(t->i, (size_t)cap * sizeof(int));
        if (ni) t->i = ni;
        int *nj = realloc(t->j, (size_t)cap * sizeof(int));
        if (nj) t->j = nj;
        double *nx = realloc(t->x, (size_t)cap * sizeof(double));
        if (nx) t->x = nx;
        if (!ni || !nj || !nx) return 0;
        t->cap = cap;
    }
    t->i[t->n] = i;
    t->j[t->n] = j;
    t->x[t->n++] = x;
    return 1;
}

void mcb_trip_free(mcb_trip *t)
{
    free(t->i);
    free(t->j);
    free(t->x);
    memset(t, 0, sizeof *t);
}

static int zrows(const mcb_formulation *F, const mcb_block *B)
{
    return mcb_is_contact(B->type) ? F->nd + 2 : B->nrows;
}

mcb_rc mcb_form_lcp_layout(mcb_formulation *F, mcb_err *err)
{
    const mcb_problem *P = F->P;
    int nd = F->nd, nb = P->nblocks;
    F->qrow = mcb_malloc((size_t)nb + 1, sizeof(int));
    F->dir = mcb_malloc(2 * (size_t)nd, sizeof(double));
    if (!F->qrow || !F->dir) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int k = 0; k < nd; k++) {
        double th = TWO_PI * k / nd;
        F->dir[2 * k] = cos(th);
        F->dir[2 * k + 1] = sin(th);
    }
    int mz = 0;
    for (int b = 0; b < nb; b++) {
        F->qrow[b] = mz;
        mz += zrows(F, &P->blocks[b]);
    }
    F->mz = mz;
    /* T: lambda = T z */
    mcb_trip t = {0};
    for (int b = 0; b < nb; b++) {
        const mcb_block *B = &P->blocks[b];
        int r = B->row, c = F->qrow[b], ok = 1;
        if (mcb_is_contact(B->type)) {
            ok = mcb_trip_push(&t, r, c, 1.0);
            for (int k = 0; k < nd && ok; k++)
                ok = mcb_trip_push(&t, r + 1, c + 1 + k, F->dir[2 * k]) &&
                     mcb_trip_push(&t, r + 2, c + 1 + k, F->dir[2 * k + 1]);
        } else {
            for (int k = 0; k < B->nrows && ok; k++) ok = mcb_trip_push(&t, r + k, c + k, 1.0);
        }
        if (!ok) {
            mcb_trip_free(&t);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
    }
    F->T = mcb_csc_from_triplets(P->m, mz, t.n, t.i, t.j, t.x);
    mcb_trip_free(&t);
    /* Q's shell */
    mcb_problem *Q = F->Q = mcb_problem_new();
    if (!F->T || !Q) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    Q->form = MCB_DUAL;
    Q->m = F->off + mz;
    Q->h = P->h;
    Q->step = P->step;
    Q->mass_ratio = P->mass_ratio;
    Q->cond_est = P->cond_est;
    char name[256];
    snprintf(name, sizeof name, "%s/%s", P->name ? P->name : "problem",
             mcb_formulation_name(F->kind));
    free(Q->name); /* mcb_problem_new() made them empty strings */
    free(Q->source);
    free(Q->scene);
    free(Q->notes);
    Q->name = mcb_strdup(name);
    Q->source = mcb_strdup(P->source ? P->source : "");
    Q->scene = mcb_strdup(P->scene ? P->scene : "");
    Q->notes = mcb_strdup("built by the formulation layer (problems/formulation)");
    Q->q = mcb_calloc((size_t)Q->m + 1, sizeof(double));
    Q->blocks = mcb_calloc((size_t)nb + 2, sizeof(mcb_block));
    F->lam = mcb_calloc((size_t)P->m + 1, sizeof(double));
    F->u = mcb_calloc((size_t)P->m + 1, sizeof(double));
    F->w = mcb_calloc((size_t)Q->m + 1, sizeof(double));
    if (!Q->name || !Q->source || !Q->scene || !Q->notes || !Q->q || !Q->blocks || !F->lam ||
        !F->u || !F->w)
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (F->off > 0) {
        mcb_block *NE = &Q->blocks[Q->nblocks++];
        memset(NE, 0, sizeof *NE);
        NE->type = MCB_BILATERAL;
        NE->row = 0;
        NE->nrows = F->off;
    }
    for (int b = 0; b < nb; b++) {
        const mcb_block *B = &P->blocks[b];
        mcb_block *C = &Q->blocks[Q->nblocks++];
        memset(C, 0, sizeof *C);
        C->row = F->off + F->qrow[b];
        C->nrows = zrows(F, B);
        C->type = B->type == MCB_BILATERAL || B->type == MCB_SOFT ? MCB_BILATERAL
                                                                   : MCB_UNILATERAL;
    }
    return MCB_OK;
}

/* P's block of LCP row c (binary search over qrow). */
static int block_of(const mcb_formulation *F, int c)
{
    int lo = 0, hi = F->P->nblocks - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (F->qrow[mid] <= c) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

int mcb_form_soft_fixed(const mcb_formulation *F, int c)
{
    const mcb_block *B = &F->P->blocks[block_of(F, c)];
    return B->type == MCB_SOFT && !(B->k * B->alpha > 0.0);
}

int mcb_form_lcp_extras(mcb_formulation *F, mcb_trip *t, double *q)
{
    const mcb_problem *P = F->P;
    int nd = F->nd, o = F->off;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int c = o + F->qrow[b];
        if (mcb_is_contact(B->type)) {
            int s = c + nd + 1; /* sigma */
            for (int k = 0; k < nd; k++)
                if (!mcb_trip_push(t, c + 1 + k, s, 1.0) || !mcb_trip_push(t, s, c + 1 + k, -1.0))
                    return 0;
            if (!mcb_trip_push(t, s, c, B->mu)) return 0;
        } else if (B->type == MCB_SOFT) {
            double ka = B->k * B->alpha;
            for (int k = 0; k < B->nrows; k++) {
                double e = P->e ? P->e[B->row + k] : 0.0;
                if (ka > 0.0) {
                    if (!mcb_trip_push(t, c + k, c + k, 1.0 / ka)) return 0;
                    q[c + k] += (1.0 - B->alpha) * e / B->alpha;
                } else {
                    if (!mcb_trip_push(t, c + k, c + k, 1.0)) return 0;
                    q[c + k] = B->k * e;
                }
            }
        }
    }
    return 1;
}

/* ---- the map back, the merit function, the lift (dispatched from
 * formulation.c for the LCP forms) ---- */

void mcb_form_lcp_lambda(const mcb_formulation *F, const double *z, double *lambda)
{
    memset(lambda, 0, (size_t)F->P->m * sizeof(double));
    mcb_csc_gaxpy(F->T, z + F->off, lambda);
}

double mcb_form_lcp_merit(mcb_formulation *F, const double *z)
{
    const mcb_problem *Q = F->Q;
    memcpy(F->w, Q->q, (size_t)Q->m * sizeof(double));
    mcb_csc_gaxpy(Q->W, z, F->w);
    double s = 0.0;
    for (int b = 0; b < Q->nblocks; b++) {
        const mcb_block *B = &Q->blocks[b];
        for (int r = B->row; r < B->row + B->nrows; r++) {
            double f = B->type == MCB_BILATERAL ? F->w[r] : fmin(z[r], F->w[r]);
            s += f * f;
        }
    }
    return sqrt(s);
}

mcb_rc mcb_form_lcp_lift(mcb_formulation *F, const double *v, const double *lambda, double *z)
{
    const mcb_problem *P = F->P;
    int nd = F->nd;
    double *u = F->u;
    if (P->form == MCB_PRIMAL) {
        if (!v) return MCB_E_INPUT;
        memcpy(u, P->e, (size_t)P->m * sizeof(double));
        mcb_csc_gaxpy(P->J, v, u);
        for (int i = 0; P->r && i < P->m; i++) u[i] += P->r[i] * lambda[i];
    } else {
        memcpy(u, P->q, (size_t)P->m * sizeof(double));
        mcb_csc_gaxpy(P->W, lambda, u);
        for (int i = 0; P->r && i < P->m; i++) u[i] += P->r[i] * lambda[i];
    }
    memset(z, 0, (size_t)F->Q->m * sizeof(double));
    if (F->off) memcpy(z, v, (size_t)F->off * sizeof(double));
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        int r = B->row;
        double *zb = z + F->off + F->qrow[b];
        if (!mcb_is_contact(B->type)) {
            memcpy(zb, lambda + r, (size_t)B->nrows * sizeof(double));
            continue;
        }
        zb[0] = lambda[r];
        double t1 = lambda[r + 1], t2 = lambda[r + 2];
        if (t1 != 0.0 || t2 != 0.0) { /* the two directions either side of lambda_t */
            double th = atan2(t2, t1);
            if (th < 0.0) th += TWO_PI;
            int k = (int)floor(th / (TWO_PI / nd)) % nd, k2 = (k + 1) % nd;
            double a = F->dir[2 * k], c = F->dir[2 * k + 1];
            double a2 = F->dir[2 * k2], c2 = F->dir[2 * k2 + 1];
            double det = a * c2 - a2 * c;
            zb[1 + k] = (t1 * c2 - a2 * t2) / det;
            zb[1 + k2] = (a * t2 - t1 * c) / det;
        }
        double mn = INFINITY;
        for (int k = 0; k < nd; k++) {
            double dk = F->dir[2 * k] * u[r + 1] + F->dir[2 * k + 1] * u[r + 2];
            if (dk < mn) mn = dk;
        }
        zb[nd + 1] = mn < 0.0 ? -mn : 0.0;
    }
    return MCB_OK;
}

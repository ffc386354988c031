/* siconos_convert.c: conversion of our problems into Siconos numerics 4.4
 * friction-contact problems, and Siconos' own residual for a solution.
 *
 * Siconos is built with 64-bit sparse indices (SICONOS_INT64): its
 * CSparseMatrix_internal.h must come first so that cs.h agrees. Matrices are
 * handed over in compressed-column storage, the storage Siconos' sparse
 * products and factorizations start from. */
#include "CSparseMatrix_internal.h"

#include "solvers/peers/siconos_peer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "FrictionContactProblem.h"
#include "GlobalFrictionContactProblem.h"
#include "NumericsMatrix.h"
#include "NumericsSparseMatrix.h"
#include "SolverOptions.h"
#include "Friction_cst.h"
#include "fc3d_compute_error.h"
#include "gfc3d_compute_error.h"

struct mcb_siconos_problem {
    int form;
    int n, m;
    GlobalFrictionContactProblem *global;
    FrictionContactProblem *local;
    double *u, *v; /* scratch for the error: local velocity, global velocity */
};

/* A NumericsMatrix in CSC holding a copy of M. */
static NumericsMatrix *numerics_csc(const mcb_csc *M)
{
    int nnz = M->p[M->n];
    NumericsMatrix *N = NM_create(NM_SPARSE, M->m, M->n);
    if (!N) return NULL;
    NM_csc_alloc(N, nnz > 0 ? nnz : 1);
    N->matrix2->origin = NSM_CSC;
    CSparseMatrix *C = N->matrix2->csc;
    for (int j = 0; j <= M->n; j++) C->p[j] = M->p[j];
    for (int k = 0; k < nnz; k++) {
        C->i[k] = M->i[k];
        C->x[k] = M->x[k];
    }
    return N;
}

static double *copy_vec(const double *x, int n)
{
    double *y = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (y && n > 0) memcpy(y, x, sizeof(double) * (size_t)n);
    return y;
}

void mcb_siconos_free(mcb_siconos_problem **S)
{
    if (!S || !*S) return;
    if ((*S)->global) globalFrictionContact_free((*S)->global);
    if ((*S)->local) frictionContactProblem_free((*S)->local);
    free((*S)->u);
    free((*S)->v);
    free(*S);
    *S = NULL;
}

mcb_rc mcb_siconos_check(const mcb_problem *P, mcb_err *err)
{
    for (int k = 0; k < P->nblocks; k++)
        if (P->blocks[k].type != MCB_CONTACT)
            return mcb_fail(err, MCB_E_INPUT,
                            "Siconos friction-contact problems hold contacts only; block %d "
                            "is %s",
                            k, mcb_ctype_name(P->blocks[k].type));
    if (P->nblocks == 0 || 3 * P->nblocks != P->m)
        return mcb_fail(err, MCB_E_INPUT, "Siconos needs at least one contact (3 rows each)");
    if (P->form == MCB_PRIMAL && mcb_problem_has_compliance(P))
        return mcb_fail(err, MCB_E_INPUT,
                        "per-row compliance r: Siconos' global problem (M v = q + H r, "
                        "u = H^T v + b) has no place for it (its local form takes W + "
                        "diag(r))");
    return MCB_OK;
}

mcb_rc mcb_siconos_convert(const mcb_problem *P, mcb_siconos_problem **out, mcb_err *err)
{
    *out = NULL;
    mcb_rc rc = mcb_siconos_check(P, err);
    if (rc) return rc;
    int nc = P->nblocks;
    mcb_siconos_problem *S = calloc(1, sizeof *S);
    if (!S) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    S->form = P->form;
    S->n = P->n;
    S->m = P->m;
    double *mu = malloc(sizeof(double) * (size_t)nc);
    S->u = malloc(sizeof(double) * (size_t)P->m);
    S->v = malloc(sizeof(double) * (size_t)(P->n > 0 ? P->n : 1));
    if (!mu || !S->u || !S->v) {
        free(mu);
        mcb_siconos_free(&S);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    for (int k = 0; k < nc; k++) mu[k] = P->blocks[k].mu;
    if (P->form == MCB_PRIMAL) {
        GlobalFrictionContactProblem *G = globalFrictionContactProblem_new();
        if (!G) {
            free(mu);
            mcb_siconos_free(&S);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
        S->global = G;
        G->dimension = 3;
        G->numberOfContacts = nc;
        G->mu = mu;
        mcb_csc *H = mcb_csc_transpose(P->J);
        G->M = numerics_csc(P->A);
        G->H = H ? numerics_csc(H) : NULL;
        mcb_csc_free(&H);
        G->q = copy_vec(P->b, P->n);
        G->b = copy_vec(P->e, P->m);
        if (!G->M || !G->H || !G->q || !G->b) {
            mcb_siconos_free(&S);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
        G->norm_q = mcb_norm2(P->n, P->b);
        G->norm_b = mcb_norm2(P->m, P->e);
    } else {
        /* the compliance folded into W: u = (W + diag(r)) lambda + q */
        mcb_csc *Wr = mcb_csc_add_diag(P->W, P->r);
        NumericsMatrix *W = Wr ? numerics_csc(Wr) : NULL;
        mcb_csc_free(&Wr);
        double *q = copy_vec(P->q, P->m);
        FrictionContactProblem *L =
            W && q ? frictionContactProblem_new_with_data(3, nc, W, q, mu) : NULL;
        if (!L) {
            if (W) NM_free(W);
            free(q);
            free(mu);
            mcb_siconos_free(&S);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
        S->local = L;
    }
    *out = S;
    return MCB_OK;
}

/* Collects the option structs below o, depth first. */
static size_t options_collect(SolverOptions *o, SolverOptions **out, size_t cap, size_t n)
{
    for (size_t k = 0; k < (size_t)o->numberOfInternalSolvers; k++) {
        SolverOptions *c = o->internalSolvers[k];
        if (!c) continue;
        if (n < cap) out[n++] = c;
        n = options_collect(c, out, cap, n);
    }
    return n;
}

void mcb_siconos_options_free(void *options)
{
    /* solver_options_delete frees what the structs hold, including the
     * internal solvers' contents, but none of the structs themselves. */
    SolverOptions *o = options, *below[64];
    if (!o) return;
    size_t n = options_collect(o, below, 64, 0);
    solver_options_delete(o);
    for (size_t k = 0; k < n; k++) free(below[k]);
    free(o);
}

void *mcb_siconos_global(mcb_siconos_problem *S) { return S ? S->global : NULL; }
void *mcb_siconos_local(mcb_siconos_problem *S) { return S ? S->local : NULL; }

mcb_rc mcb_siconos_error(mcb_siconos_problem *S, const double *v, const double *lambda,
                         double *error, mcb_err *err)
{
    /* Siconos takes non-const pointers but reads v and lambda only. */
    double *r = (double *)lambda;
    *error = NAN;
    int rc;
    if (S->form == MCB_PRIMAL) {
        GlobalFrictionContactProblem *G = S->global;
        memcpy(S->v, v, sizeof(double) * (size_t)S->n);
        SolverOptions *o = solver_options_create(SICONOS_GLOBAL_FRICTION_3D_NSGS_WR);
        if (!o) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        rc = gfc3d_compute_error(G, r, S->u, S->v, 0.0, o, G->norm_q, G->norm_b, error);
        mcb_siconos_options_free(o);
    } else {
        FrictionContactProblem *L = S->local;
        double norm_q = mcb_norm2(S->m, L->q);
        rc = fc3d_compute_error(L, r, S->u, 0.0, NULL, norm_q, error);
    }
    (void)rc; /* non-zero only says error > tolerance (0 here) */
    if (!isfinite(*error)) return mcb_fail(err, MCB_E_NUMERIC, "Siconos error is not finite");
    return MCB_OK;
}

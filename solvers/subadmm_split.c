/* subadmm_split.c: SubADMM's set-up (SubADMM paper Sec. IV; CANAL/SubADMM
 * paper eq. (30)-(31)): J split into pairs, local constraint copies of
 * one row for one subsystem or, in a tree subsystem, one body; then per
 * subsystem A_i, J_i, beta_i (eq. (23) and the other rules) and the
 * factor of K_i = A_i + beta_i J_i^T J_i (dense, CHOLMOD, or along the
 * tree: subadmm_tree.c), refactored by residual balancing. The
 * iteration is in subadmm.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/subadmm_tree.h"

/* K = A + beta JTJ on the union pattern (both sorted by row). */
static mcb_csc *add_scaled(const mcb_csc *A, const mcb_csc *B, double beta, mcb_csc *K)
{
    int n = A->n;
    if (!K) {
        int nnz = 0;
        for (int j = 0; j < n; j++) {
            int a = A->p[j], b = B->p[j];
            while (a < A->p[j + 1] || b < B->p[j + 1]) {
                int ra = a < A->p[j + 1] ? A->i[a] : n, rb = b < B->p[j + 1] ? B->i[b] : n;
                if (ra <= rb) a++;
                if (rb <= ra) b++;
                nnz++;
            }
        }
        K = mcb_csc_alloc(n, n, nnz);
        if (!K) return NULL;
    }
    int out = 0;
    for (int j = 0; j < n; j++) {
        K->p[j] = out;
        int a = A->p[j], b = B->p[j];
        while (a < A->p[j + 1] || b < B->p[j + 1]) {
            int ra = a < A->p[j + 1] ? A->i[a] : n, rb = b < B->p[j + 1] ? B->i[b] : n;
            double x = 0.0;
            if (ra <= rb) x += A->x[a++];
            if (rb <= ra) x += beta * B->x[b++];
            K->i[out] = ra < rb ? ra : rb;
            K->x[out++] = x;
        }
    }
    K->p[n] = out;
    return K;
}

/* A body takes part in body splitting when its subsystem is a tree
 * subsystem (detect_tree) and its twist depends on some DOF. */
static int body_ok(const subadmm_work *w, int k)
{
    const mcb_problem *P = w->P;
    int s = P->body_sub[k];
    /* last >= 0: the body or an ancestor has DOFs */
    return s >= 0 && s < w->ns && w->sub[s].tree && w->last[k] >= 0;
}

/* Splits J into pairs: a pair is a local constraint copy of one row for
 * one unit, the unit being a subsystem (the 2023 splitting) or, in a tree
 * subsystem, a body whose Jc columns the row touches (eq. (30)-(31)). A
 * contact's three rows share one unit set (the union over its rows), so
 * that all three get the same weight w and the strict projection keeps its
 * exact Coulomb fixed point; every row gets at least one pair (an empty row
 * is attached to the first unit of subsystem 0 so its law is still
 * enforced). Pairs are ordered by subsystem, then unit, then row. J_i is
 * built here for the subsystems without a tree (for tree subsystems by
 * mcb_subadmm_tree_bodies). */
mcb_rc mcb_subadmm_build_pairs(subadmm_work *w, mcb_err *err)
{
    const mcb_problem *P = w->P;
    int m = P->m, ns = w->ns, nbod = w->last ? P->nbodies : 0, nu = ns + nbod;
    mcb_csc *JT = mcb_csc_transpose(P->J); /* column r = row r of J */
    mcb_csc *JcT = nbod ? mcb_csc_transpose(P->Jc) : NULL;
    int *span0 = mcb_malloc((size_t)m, sizeof(int)), *span1 = mcb_malloc((size_t)m, sizeof(int));
    int *sub_of = mcb_malloc((size_t)P->n, sizeof(int));
    int *count = mcb_calloc((size_t)nu, sizeof(int));
    int *mark = mcb_malloc((size_t)nu, sizeof(int));
    w->row_ptr = mcb_calloc((size_t)m + 1, sizeof(int));
    mcb_rc rc = MCB_OK;
    if (!JT || (nbod && !JcT) || !sub_of || !count || !mark || !w->row_ptr || !span0 || !span1) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        for (int r = B->row; r < B->row + B->nrows; r++) {
            span0[r] = B->type == MCB_CONTACT ? B->row : r;
            span1[r] = B->type == MCB_CONTACT ? B->row + 3 : r + 1;
        }
    }
    for (int i = 0; i < ns; i++)
        for (int j = w->sub[i].v0; j < w->sub[i].v0 + w->sub[i].nv; j++) sub_of[j] = i;
    int empty_unit = 0;
    if (ns > 0 && w->sub[0].tree)
        for (int k = nbod - 1; k >= 0; k--)
            if (P->body_sub[k] == 0 && body_ok(w, k)) empty_unit = ns + k;
    /* the units of row r, each once, written to list (returns the count) */
#define ROW_UNITS(r, list, c)                                                                    \
    do {                                                                                         \
        c = 0;                                                                                   \
        for (int rr = span0[r]; rr < span1[r]; rr++) {                                          \
            for (int k = JT->p[rr]; k < JT->p[rr + 1]; k++) {                                   \
                int s_ = sub_of[JT->i[k]];                                                       \
                if (!w->sub[s_].tree && mark[s_] != r) {                                         \
                    mark[s_] = r;                                                                \
                    list[c++] = s_;                                                              \
                }                                                                                \
            }                                                                                    \
            for (int k = nbod ? JcT->p[rr] : 0; nbod && k < JcT->p[rr + 1]; k++) {              \
                int b_ = JcT->i[k] / 6;                                                          \
                if (body_ok(w, b_) && mark[ns + b_] != r) {                                      \
                    mark[ns + b_] = r;                                                           \
                    list[c++] = ns + b_;                                                         \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
        if (c == 0) list[c++] = empty_unit;                                                      \
    } while (0)
    int *list = mcb_malloc((size_t)nu, sizeof(int));
    int *unit_off = mcb_malloc((size_t)nu, sizeof(int));
    if (!list || !unit_off) {
        free(list);
        free(unit_off);
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    /* pass 1: pairs per row and per unit */
    for (int u = 0; u < nu; u++) mark[u] = -1;
    for (int r = 0; r < m; r++) {
        int c;
        ROW_UNITS(r, list, c);
        for (int t = 0; t < c; t++) count[list[t]]++;
        w->row_ptr[r + 1] = w->row_ptr[r] + c;
    }
    w->npairs = w->row_ptr[m];
    /* pair counts per subsystem, its first pair, then each unit's first pair
     * (bodies in index order within their subsystem) */
    for (int i = 0; i < ns; i++) w->sub[i].np = w->sub[i].tree ? 0 : count[i];
    for (int k = 0; k < nbod; k++)
        if (body_ok(w, k)) w->sub[P->body_sub[k]].np += count[ns + k];
    for (int i = 0, p = 0; i < ns; i++) {
        w->sub[i].p0 = p;
        unit_off[i] = p; /* the subsystem's cursor while bodies are placed */
        p += w->sub[i].np;
    }
    for (int k = 0; k < nbod; k++)
        if (body_ok(w, k)) {
            int i = P->body_sub[k];
            unit_off[ns + k] = unit_off[i];
            unit_off[i] += count[ns + k];
        }
    w->pair_row = mcb_malloc((size_t)w->npairs, sizeof(int));
    w->pair_sub = mcb_malloc((size_t)w->npairs, sizeof(int));
    w->pair_body = mcb_malloc((size_t)w->npairs, sizeof(int));
    w->row_pairs = mcb_malloc((size_t)w->npairs, sizeof(int));
    if (!w->pair_row || !w->pair_sub || !w->pair_body || !w->row_pairs) {
        free(list);
        free(unit_off);
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    /* pass 2: place the pairs */
    for (int u = 0; u < nu; u++) mark[u] = -1;
    for (int r = 0; r < m; r++) {
        int c, q = w->row_ptr[r];
        ROW_UNITS(r, list, c);
        for (int t = 0; t < c; t++) {
            int u = list[t], pr = unit_off[u]++;
            w->pair_row[pr] = r;
            w->pair_sub[pr] = u < ns ? u : P->body_sub[u - ns];
            w->pair_body[pr] = u < ns ? -1 : u - ns;
            w->row_pairs[q++] = pr;
        }
    }
#undef ROW_UNITS
    free(list);
    free(unit_off);
    /* J_i: rows = pairs of subsystem i, columns = its DOFs (triplets) */
    for (int i = 0; i < ns && !rc; i++) {
        subsystem *S = &w->sub[i];
        if (S->tree) continue;
        int nz = 0;
        for (int a = 0; a < S->np; a++) {
            int r = w->pair_row[S->p0 + a];
            for (int k = JT->p[r]; k < JT->p[r + 1]; k++) nz += sub_of[JT->i[k]] == i;
        }
        int *ri = mcb_malloc((size_t)nz, sizeof(int)), *ci = mcb_malloc((size_t)nz, sizeof(int));
        double *xv = mcb_malloc((size_t)nz, sizeof(double));
        if (ri && ci && xv) {
            int t = 0;
            for (int a = 0; a < S->np; a++) {
                int r = w->pair_row[S->p0 + a];
                for (int k = JT->p[r]; k < JT->p[r + 1]; k++)
                    if (sub_of[JT->i[k]] == i) {
                        ri[t] = a;
                        ci[t] = JT->i[k] - S->v0;
                        xv[t++] = JT->x[k];
                    }
            }
            S->J = mcb_csc_from_triplets(S->np, S->nv, nz, ri, ci, xv);
        }
        free(ri);
        free(ci);
        free(xv);
        if (!S->J) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    for (int i = 0; i < ns && !rc; i++)
        if (w->sub[i].tree) rc = mcb_subadmm_tree_bodies(w, &w->sub[i], JcT, err);
done:
    mcb_csc_free(&JT);
    mcb_csc_free(&JcT);
    free(span0);
    free(span1);
    free(sub_of);
    free(count);
    free(mark);
    return rc;
}

/* Tr(J_i A_i^-1 J_i^T), with a factor of A_i made for this and freed:
 * X = A_i^-1 J_i^T (sparse solve), then the sum over pairs a of
 * J_i[a,:] X[:,a], a sparse dot of column a of X and of J_i^T. */
static mcb_rc delassus_trace(subsystem *S, double *tr, mcb_err *err)
{
    mcb_chol *F = NULL;
    mcb_rc rc = mcb_chol_factor(S->A, &F, err);
    if (rc) return rc;
    mcb_csc *X = mcb_chol_spsolve(F, S->JT);
    mcb_chol_free(&F);
    if (!X) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    double t = 0.0;
    for (int a = 0; a < S->np; a++) {
        int i = X->p[a], j = S->JT->p[a];
        while (i < X->p[a + 1] && j < S->JT->p[a + 1]) {
            if (X->i[i] < S->JT->i[j]) i++;
            else if (X->i[i] > S->JT->i[j]) j++;
            else t += X->x[i++] * S->JT->x[j++];
        }
    }
    mcb_csc_free(&X);
    *tr = t;
    return MCB_OK;
}

/* K_i = A_i + beta J_i^T J_i and its factor: dense in place for small
 * subsystems, CHOLMOD (refactored on the fixed pattern) for large ones.
 * No allocation once S->K, S->L or S->F exist. */
mcb_rc mcb_subadmm_factor_subsystem(subsystem *S, double beta, mcb_err *err)
{
    if (S->tree)
        return mcb_subadmm_tree_factor(S, beta)
                   ? mcb_fail(err, MCB_E_NUMERIC, "subsystem matrix A_i + beta G_i is not "
                                                  "positive definite")
                   : MCB_OK;
    if (!add_scaled(S->A, S->JTJ, beta, S->K)) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (S->L) {
        int n = S->nv;
        memset(S->L, 0, (size_t)n * (size_t)n * sizeof(double));
        for (int j = 0; j < n; j++)
            for (int k = S->K->p[j]; k < S->K->p[j + 1]; k++) S->L[(size_t)j * n + S->K->i[k]] = S->K->x[k];
        if (mcb_dense_chol(n, S->L))
            return mcb_fail(err, MCB_E_NUMERIC, "subsystem matrix A_i + beta J_i^T J_i is not "
                                                "positive definite");
        memcpy(S->G, S->Jd, (size_t)S->np * (size_t)n * sizeof(double));
        for (int a = 0; a < S->np; a++) mcb_dense_chol_lsolve(n, S->L, S->G + (size_t)a * n);
        memcpy(S->c, S->b, (size_t)n * sizeof(double));
        mcb_dense_chol_lsolve(n, S->L, S->c);
        return MCB_OK;
    }
    mcb_rc rc = S->F ? mcb_chol_refactor(S->F, S->K, err) : mcb_chol_factor(S->K, &S->F, err);
    if (rc) return rc;
    /* one solve here so that the simplicial copy of L and its work exist
     * before the iteration (mcb_chol_solve_inplace allocates on its first
     * call after a factorization only) */
    memset(S->rhs, 0, (size_t)S->nv * sizeof(double));
    return mcb_chol_solve_inplace(S->F, S->rhs) ? mcb_fail(err, MCB_E_NOMEM, "out of memory")
                                                : MCB_OK;
}

void mcb_subadmm_solve_subsystem(subsystem *S, const double *rhs, double *x)
{
    if (S->tree) {
        if (x != rhs) memcpy(x, rhs, (size_t)S->nv * sizeof(double));
        mcb_subadmm_tree_solve(S, x);
    } else if (S->L) {
        if (x != rhs) memcpy(x, rhs, (size_t)S->nv * sizeof(double));
        mcb_dense_chol_solve(S->nv, S->L, x);
    } else {
        if (x != rhs) memcpy(x, rhs, (size_t)S->nv * sizeof(double));
        mcb_chol_solve_inplace(S->F, x);
    }
}

/* Per subsystem: A_i, J_i^T J_i, beta_i (23), K_i and its factor. */
mcb_rc mcb_subadmm_setup_subsystem(subadmm_work *w, subsystem *S, mcb_err *err)
{
    if (!S->A) S->A = mcb_csc_block(w->P->A, S->v0, S->v0 + S->nv, S->v0, S->v0 + S->nv);
    S->b = w->P->b + S->v0;
    S->JT = mcb_csc_transpose(S->J);
    /* J_i^T J_i: for K_i's pattern and values (a tree subsystem has G_i instead) */
    S->JTJ = S->JT && !S->tree ? mcb_csc_multiply(S->JT, S->J) : NULL;
    S->rhs = mcb_malloc((size_t)S->nv, sizeof(double));
    S->Av = mcb_malloc((size_t)S->nv, sizeof(double));
    if (!S->A || !S->JT || (!S->JTJ && !S->tree) || !S->rhs || !S->Av)
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    double trA = 0.0, trJJ = 0.0;
    for (int j = 0; j < S->nv; j++)
        for (int k = S->A->p[j]; k < S->A->p[j + 1]; k++)
            if (S->A->i[k] == j) trA += S->A->x[k];
    for (int k = 0; k < mcb_csc_nnz(S->J); k++) trJJ += S->J->x[k] * S->J->x[k];
    S->beta = trJJ > 0.0 ? trA / trJJ : 1.0;
    if ((w->prm.beta_rule == 1 || w->prm.beta_rule == 2) && S->np > 0) {
        double trW = 0.0;
        mcb_rc rc = delassus_trace(S, &trW, err);
        if (rc) return rc;
        if (trW > 0.0) S->beta = S->np / trW;
    }
    return MCB_OK;
}

/* The geometric mean of beta_i over the subsystems with constraints, given
 * to every subsystem (beta_rule 2 and 3: one beta for the system, as the
 * CANAL/SubADMM paper initialises it). */
void mcb_subadmm_global_beta(subadmm_work *w)
{
    double lg = 0.0;
    int k = 0;
    for (int i = 0; i < w->ns; i++)
        if (w->sub[i].np > 0 && w->sub[i].beta > 0.0) {
            lg += log(w->sub[i].beta);
            k++;
        }
    double b = k > 0 ? exp(lg / k) : 1.0;
    for (int i = 0; i < w->ns; i++) w->sub[i].beta = b;
}

/* Per subsystem, once beta_i is known: K_i, the dense copies for small
 * subsystems, the factor; a constraint-free subsystem's v_i. */
mcb_rc mcb_subadmm_finish_subsystem(subadmm_work *w, subsystem *S, mcb_err *err)
{
    if (!S->tree) S->K = add_scaled(S->A, S->JTJ, w->scale * S->beta, NULL);
    if (!S->tree && !S->K) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!S->tree && S->nv <= SUBADMM_DENSE_MAX && S->nv > 0) {
        S->L = mcb_malloc((size_t)S->nv * (size_t)S->nv, sizeof(double));
        S->Jd = mcb_calloc((size_t)S->np * (size_t)S->nv + 1, sizeof(double));
        S->G = mcb_calloc((size_t)S->np * (size_t)S->nv + 1, sizeof(double));
        S->c = mcb_calloc((size_t)S->nv, sizeof(double));
        S->g = mcb_calloc((size_t)S->nv, sizeof(double));
        if (!S->L || !S->Jd || !S->G || !S->c || !S->g)
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        for (int j = 0; j < S->nv; j++)
            for (int k = S->J->p[j]; k < S->J->p[j + 1]; k++)
                S->Jd[(size_t)S->J->i[k] * S->nv + j] = S->J->x[k];
    }
    mcb_rc rc = mcb_subadmm_factor_subsystem(S, w->scale * S->beta, err);
    if (rc || S->np > 0) return rc;
    /* no constraint: v_i = A_i^-1 b_i for good, solved here once */
    memcpy(S->rhs, w->P->b + S->v0, (size_t)S->nv * sizeof(double));
    mcb_subadmm_solve_subsystem(S, S->rhs, S->rhs);
    return MCB_OK;
}

/* Per-pair beta, its inverse and the per-row weight w = sum_i 1 / beta_i,
 * after a change of scale. */
void mcb_subadmm_set_pair_betas(subadmm_work *w)
{
    for (int p = 0; p < w->npairs; p++) {
        w->pbeta[p] = w->scale * w->sub[w->pair_sub[p]].beta;
        w->pibeta[p] = 1.0 / w->pbeta[p];
    }
    for (int r = 0; r < w->P->m; r++) {
        double t = 0.0;
        for (int k = w->row_ptr[r]; k < w->row_ptr[r + 1]; k++) t += w->pibeta[w->row_pairs[k]];
        w->roww[r] = t;
    }
}

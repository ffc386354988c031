/* subadmm_tree.c: SubADMM's body splitting (CANAL/SubADMM paper Sec. VI-A,
 * VI-C, Appendix A): the subsystems whose bodies form a kinematic tree, their
 * matrix K_i = A_i + beta G_i packed along the DOF tree and factored
 * K = L^T L leaves first without fill-in (eq. (40)-(41)), and the
 * subsystem update (15), (18) through the body twists. The rest of the
 * algorithm is in subadmm.c (the iteration) and subadmm_split.c (the
 * pairs and the other subsystems' factors). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/subadmm_tree.h"

/* ---------- body splitting: the tree-structured subsystem matrix ----------
 * (CANAL/SubADMM paper eq. (40)-(41), Appendix A.) With one constraint copy
 * per (row, body), J_i^T J_i = sum_k Jb_k^T C_k Jb_k, C_k = sum over body
 * k's pairs of Jc_a^T Jc_a (6 x 6: eq. (41)'s H_k - M_k over beta), and
 * Jb_k depends only on the DOFs of k's chain to the root. So K_i = A_i +
 * beta G_i, G_i = sum_k Jb_k^T C_k Jb_k, has the branch-induced sparsity of
 * the articulated mass matrix, fixed by the tree whatever the contacts, and
 * factors as K = L^T L along the tree without fill-in (Featherstone's LTL
 * factorization, RBDA Sec. 6.5). The files carry the body Jacobians but not
 * the body inertias M_k, so A_i is taken as given (it also holds the
 * implicit joint PD terms) and only the beta-dependent part is assembled
 * body by body; at a change of beta the refactorization is K = A + beta G
 * on the packed arrays and the LTL pass. */

/* Packed index of K_rc, c a proper ancestor of r in the DOF tree. */
static inline int tree_idx(const subsystem *S, int r, int c)
{
    return S->off[r] + S->dep[r] - 1 - S->dep[c];
}

/* Finds the subsystems whose bodies (two or more with DOFs) form a
 * kinematic tree over all their DOFs, each body owning the DOFs its twist
 * adds to its parent's (numbered after them), and whose A_i has the tree's
 * branch-induced pattern; those get tree = 1, the DOF tree and A_i packed.
 * Any other subsystem keeps the 2023 splitting (a FEM body, a free body,
 * a tree numbered otherwise). Fills w->last for body_ok. */
mcb_rc mcb_subadmm_detect_trees(subadmm_work *w, mcb_err *err)
{
    const mcb_problem *P = w->P;
    int nb = P->nbodies, ns = w->ns, n = P->n;
    if (!w->prm.body || w->prm.whole || nb <= 0 || !P->Jb || !P->Jc || !P->body_parent ||
        !P->body_sub)
        return MCB_OK;
    mcb_csc *JbT = w->JbT = mcb_csc_transpose(P->Jb);
    int *nbs = mcb_calloc((size_t)ns, sizeof(int)), *bad = mcb_calloc((size_t)ns, sizeof(int));
    int *lam = mcb_malloc((size_t)n, sizeof(int)), *own = mcb_malloc((size_t)n, sizeof(int));
    int *stamp = mcb_malloc((size_t)n, sizeof(int)), *cols = mcb_malloc((size_t)n, sizeof(int));
    w->last = mcb_malloc((size_t)nb, sizeof(int));
    mcb_rc rc = MCB_OK;
    if (!JbT || !nbs || !bad || !lam || !own || !stamp || !cols || !w->last) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < nb; k++) {
        int s = P->body_sub[k];
        if (s >= 0 && s < ns && JbT->p[6 * k + 6] > JbT->p[6 * k]) nbs[s]++;
    }
    for (int d = 0; d < n; d++) lam[d] = -1, own[d] = -1, stamp[d] = -1;
    for (int k = 0; k < nb; k++) {
        int s = P->body_sub[k], par = P->body_parent[k];
        w->last[k] = -1;
        if (s < 0 || s >= ns || nbs[s] < 2 || bad[s]) continue;
        int plast = par >= 0 && par < k && P->body_sub[par] == s ? w->last[par] : -1;
        for (int d = plast; d >= 0; d = lam[d]) stamp[d] = k;
        int nc = 0;
        for (int t = JbT->p[6 * k]; t < JbT->p[6 * k + 6]; t++) {
            int d = JbT->i[t];
            if (stamp[d] != k) {
                stamp[d] = k;
                cols[nc++] = d;
            }
        }
        for (int a = 1; a < nc; a++) /* insertion sort: a few DOFs */
            for (int b = a; b > 0 && cols[b - 1] > cols[b]; b--) {
                int t = cols[b];
                cols[b] = cols[b - 1];
                cols[b - 1] = t;
            }
        const subsystem *S = &w->sub[s];
        for (int t = 0; t < nc && !bad[s]; t++) {
            int d = cols[t];
            if (own[d] >= 0 || d < S->v0 || d >= S->v0 + S->nv || (t == 0 && d <= plast)) bad[s] = 1;
            own[d] = k;
            lam[d] = t == 0 ? plast : cols[t - 1];
        }
        w->last[k] = nc ? cols[nc - 1] : plast;
    }
    for (int s = 0; s < ns && !rc; s++) {
        subsystem *S = &w->sub[s];
        if (nbs[s] < 2 || bad[s]) continue;
        int ok = 1;
        for (int d = S->v0; d < S->v0 + S->nv && ok; d++) ok = own[d] >= 0;
        mcb_csc *A = ok ? mcb_csc_block(P->A, S->v0, S->v0 + S->nv, S->v0, S->v0 + S->nv) : NULL;
        if (ok && !A) {
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
            break;
        }
        /* A's pattern must be branch-induced: r > c only with c an ancestor of r */
        for (int c = 0; ok && c < S->nv; c++)
            for (int t = A->p[c]; t < A->p[c + 1] && ok; t++) {
                int x = A->i[t] > c ? A->i[t] : c, lo = A->i[t] > c ? c : A->i[t];
                while (x > lo) x = lam[S->v0 + x] < 0 ? -1 : lam[S->v0 + x] - S->v0;
                ok = x == lo || A->x[t] == 0.0; /* an explicit zero is no coupling */
            }
        if (!ok) {
            mcb_csc_free(&A);
            continue;
        }
        int nv = S->nv;
        S->lam = mcb_malloc((size_t)nv, sizeof(int));
        S->dep = mcb_malloc((size_t)nv, sizeof(int));
        S->off = mcb_malloc((size_t)nv + 1, sizeof(int));
        if (S->lam && S->dep && S->off) {
            S->off[0] = 0;
            for (int d = 0; d < nv; d++) {
                S->lam[d] = lam[S->v0 + d] < 0 ? -1 : lam[S->v0 + d] - S->v0;
                S->dep[d] = S->lam[d] < 0 ? 0 : S->dep[S->lam[d]] + 1;
                S->off[d + 1] = S->off[d] + S->dep[d];
            }
            size_t nx = (size_t)S->off[nv] + 1;
            S->anc = mcb_malloc(nx, sizeof(int));
            for (int d = 0; S->anc && d < nv; d++) {
                int t = S->off[d];
                for (int a = S->lam[d]; a >= 0; a = S->lam[a]) S->anc[t++] = a;
            }
            S->Ax = mcb_calloc(nx, sizeof(double));
            S->Gx = mcb_calloc(nx, sizeof(double));
            S->Kx = mcb_calloc(nx, sizeof(double));
            S->Ad = mcb_calloc((size_t)nv, sizeof(double));
            S->Gd = mcb_calloc((size_t)nv, sizeof(double));
            S->Kd = mcb_calloc((size_t)nv, sizeof(double));
        }
        if (!S->lam || !S->dep || !S->off || !S->anc || !S->Ax || !S->Gx || !S->Kx || !S->Ad || !S->Gd ||
            !S->Kd) {
            mcb_csc_free(&A);
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
            break;
        }
        for (int c = 0; c < nv; c++)
            for (int t = A->p[c]; t < A->p[c + 1]; t++) {
                int r = A->i[t];
                if (r == c) S->Ad[c] = A->x[t];
                else if (r > c && A->x[t] != 0.0) S->Ax[tree_idx(S, r, c)] = A->x[t];
            }
        S->A = A;
        S->tree = 1;
    }
done:
    free(nbs);
    free(bad);
    free(lam);
    free(own);
    free(stamp);
    free(cols);
    return rc;
}

/* For a tree subsystem after mcb_subadmm_build_pairs: its bodies with pairs (the pairs
 * come grouped by body), each body's chain of DOFs and Jb rows over it
 * (dense 6 x na), each pair's Jc row (6), J_i = the pairs' rows Jc_a Jb_k
 * (for the penalty rules, the warm start and the dual residual) and G_i =
 * sum_k Jb_k^T C_k Jb_k packed along the tree (eq. (40)-(41)). */
mcb_rc mcb_subadmm_tree_bodies(subadmm_work *w, subsystem *S, const mcb_csc *JcT,
                               mcb_err *err)
{
    const int *pb = w->pair_body + S->p0;
    int nbl = 0, tot = 0, nz = 0;
    for (int a = 0; a < S->np; a++)
        if (a == 0 || pb[a] != pb[a - 1]) {
            nbl++;
            tot += S->dep[w->last[pb[a]] - S->v0] + 1;
        }
    S->nbl = nbl;
    S->bl_pair = mcb_malloc((size_t)nbl + 1, sizeof(int));
    S->bl_dof_ptr = mcb_malloc((size_t)nbl + 1, sizeof(int));
    S->bl_dof = mcb_malloc((size_t)tot + 1, sizeof(int));
    S->bl_J = mcb_calloc(6 * (size_t)tot + 1, sizeof(double));
    S->jc = mcb_calloc(6 * (size_t)S->np + 1, sizeof(double));
    int *pos = mcb_malloc((size_t)S->nv, sizeof(int));
    double *CJ = mcb_malloc(6 * (size_t)S->nv, sizeof(double)); /* C_k Jb_k, 6 x na */
    int *ri = NULL, *ci = NULL;
    double *xv = NULL;
    mcb_rc rc = MCB_OK;
    if (!S->bl_pair || !S->bl_dof_ptr || !S->bl_dof || !S->bl_J || !S->jc || !pos || !CJ) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    int b = 0;
    S->bl_dof_ptr[0] = 0;
    for (int a = 0; a < S->np; a++)
        if (a == 0 || pb[a] != pb[a - 1]) {
            int na = S->dep[w->last[pb[a]] - S->v0] + 1;
            S->bl_pair[b] = a;
            S->bl_dof_ptr[b + 1] = S->bl_dof_ptr[b] + na;
            b++;
        }
    S->bl_pair[nbl] = S->np;
    for (b = 0; b < nbl; b++) {
        int k = pb[S->bl_pair[b]], na = S->bl_dof_ptr[b + 1] - S->bl_dof_ptr[b];
        int *chain = S->bl_dof + S->bl_dof_ptr[b];
        double *Jk = S->bl_J + 6 * (size_t)S->bl_dof_ptr[b];
        int d = w->last[k] - S->v0;
        for (int t = na - 1; t >= 0; t--, d = S->lam[d]) {
            chain[t] = d;
            pos[d] = t;
        }
        /* Jb rows 6k..6k+5 over the chain (columns of Jb^T) */
        const mcb_csc *JbT = w->JbT;
        for (int q = 0; q < 6; q++)
            for (int e = JbT->p[6 * k + q]; e < JbT->p[6 * k + q + 1]; e++)
                Jk[q * na + pos[JbT->i[e] - S->v0]] = JbT->x[e];
        double C[36] = {0};
        for (int a = S->bl_pair[b]; a < S->bl_pair[b + 1]; a++) {
            int r = w->pair_row[S->p0 + a];
            double *j = S->jc + 6 * (size_t)a;
            for (int e = JcT->p[r]; e < JcT->p[r + 1]; e++)
                if (JcT->i[e] / 6 == k) j[JcT->i[e] % 6] = JcT->x[e];
            for (int q = 0; q < 6; q++)
                for (int u = 0; u < 6; u++) C[q * 6 + u] += j[q] * j[u];
            nz += na;
        }
        /* G += Jb_k^T (C_k Jb_k) on the chain's lower triangle */
        for (int q = 0; q < 6; q++)
            for (int c = 0; c < na; c++) {
                double t = 0.0;
                for (int u = 0; u < 6; u++) t += C[q * 6 + u] * Jk[u * na + c];
                CJ[q * na + c] = t;
            }
        for (int pd = 0; pd < na; pd++)
            for (int pe = 0; pe <= pd; pe++) {
                double g = 0.0;
                for (int q = 0; q < 6; q++) g += Jk[q * na + pd] * CJ[q * na + pe];
                if (pd == pe) S->Gd[chain[pd]] += g;
                else S->Gx[tree_idx(S, chain[pd], chain[pe])] += g;
            }
    }
    /* J_i rows: Jc_a Jb_k over body k's chain */
    ri = mcb_malloc((size_t)nz + 1, sizeof(int));
    ci = mcb_malloc((size_t)nz + 1, sizeof(int));
    xv = mcb_malloc((size_t)nz + 1, sizeof(double));
    if (!ri || !ci || !xv) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    int t = 0;
    for (b = 0; b < nbl; b++) {
        int na = S->bl_dof_ptr[b + 1] - S->bl_dof_ptr[b];
        const int *chain = S->bl_dof + S->bl_dof_ptr[b];
        const double *Jk = S->bl_J + 6 * (size_t)S->bl_dof_ptr[b];
        for (int a = S->bl_pair[b]; a < S->bl_pair[b + 1]; a++) {
            const double *j = S->jc + 6 * (size_t)a;
            for (int c = 0; c < na; c++) {
                double x = 0.0;
                for (int q = 0; q < 6; q++) x += j[q] * Jk[q * na + c];
                if (x != 0.0) {
                    ri[t] = a;
                    ci[t] = chain[c];
                    xv[t++] = x;
                }
            }
        }
    }
    S->J = mcb_csc_from_triplets(S->np, S->nv, t, ri, ci, xv);
    if (!S->J) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
done:
    free(pos);
    free(CJ);
    free(ri);
    free(ci);
    free(xv);
    return rc;
}

/* K = A + beta G and K = L^T L in place along the tree, leaves first
 * (Featherstone's LTL): no fill-in, no allocation. Returns 1 when K is not
 * positive definite. */
int mcb_subadmm_tree_factor(subsystem *S, double beta)
{
    int n = S->nv;
    for (int t = 0; t < S->off[n]; t++) S->Kx[t] = S->Ax[t] + beta * S->Gx[t];
    for (int d = 0; d < n; d++) S->Kd[d] = S->Ad[d] + beta * S->Gd[d];
    for (int k = n - 1; k >= 0; k--) {
        if (!(S->Kd[k] > 0.0) || !isfinite(S->Kd[k])) return 1;
        double lkk = sqrt(S->Kd[k]);
        S->Kd[k] = 1.0 / lkk;
        double *Lk = S->Kx + S->off[k];
        int nk = S->dep[k];
        for (int t = 0; t < nk; t++) Lk[t] /= lkk;
        const int *ak = S->anc + S->off[k];
        for (int pi = 0; pi < nk; pi++) {
            int i = ak[pi];
            double a = Lk[pi], *Li = S->Kx + S->off[i];
            S->Kd[i] -= a * a;
            for (int pj = pi + 1; pj < nk; pj++) Li[pj - pi - 1] -= a * Lk[pj];
        }
    }
    return 0;
}

/* x = (L^T L)^-1 x with L from mcb_subadmm_tree_factor(): L^T y = x leaves first, then
 * L x = y roots first. No allocation. */
void mcb_subadmm_tree_solve(const subsystem *S, double *x)
{
    int n = S->nv;
    for (int k = n - 1; k >= 0; k--) {
        double y = x[k] * S->Kd[k];
        x[k] = y;
        const double *Lk = S->Kx + S->off[k];
        const int *ak = S->anc + S->off[k];
        for (int t = 0; t < S->dep[k]; t++) x[ak[t]] -= Lk[t] * y;
    }
    for (int k = 0; k < n; k++) {
        const double *Lk = S->Kx + S->off[k];
        const int *ak = S->anc + S->off[k];
        double s = x[k];
        for (int t = 0; t < S->dep[k]; t++) s -= Lk[t] * x[ak[t]];
        x[k] = s * S->Kd[k];
    }
}

/* update_subsystem() for a tree subsystem (body splitting): the
 * right-hand side of (34) through the body twists, J_i^T t = sum_k Jb_k^T
 * (sum over k's pairs of t_a Jc_a^T), the tree solve, then each body's
 * twist Jb_k v once and x_a = Jc_a . twist per pair. */
void mcb_subadmm_update_tree(subadmm_work *w, subsystem *S, double *theta)
{
    double *rhs = S->rhs, *v = w->v + S->v0;
    const double *zp = w->z + S->p0, *up = w->u + S->p0, *pb = w->pbeta + S->p0;
    double *xp = w->x + S->p0, *yp = w->y + S->p0;
    memcpy(rhs, w->P->b + S->v0, (size_t)S->nv * sizeof(double));
    for (int b = 0; b < S->nbl; b++) {
        double f[6] = {0, 0, 0, 0, 0, 0};
        for (int a = S->bl_pair[b]; a < S->bl_pair[b + 1]; a++) {
            double t = pb[a] * zp[a] - up[a];
            const double *j = S->jc + 6 * (size_t)a;
            for (int q = 0; q < 6; q++) f[q] += t * j[q];
        }
        int na = S->bl_dof_ptr[b + 1] - S->bl_dof_ptr[b];
        const int *chain = S->bl_dof + S->bl_dof_ptr[b];
        const double *Jk = S->bl_J + 6 * (size_t)S->bl_dof_ptr[b];
        for (int c = 0; c < na; c++) {
            double s = 0.0;
            for (int q = 0; q < 6; q++) s += Jk[q * na + c] * f[q];
            rhs[chain[c]] += s;
        }
    }
    mcb_subadmm_tree_solve(S, rhs);
    memcpy(v, rhs, (size_t)S->nv * sizeof(double));
    double th = 0.0;
    for (int b = 0; b < S->nbl; b++) {
        int na = S->bl_dof_ptr[b + 1] - S->bl_dof_ptr[b];
        const int *chain = S->bl_dof + S->bl_dof_ptr[b];
        const double *Jk = S->bl_J + 6 * (size_t)S->bl_dof_ptr[b];
        double tw[6];
        for (int q = 0; q < 6; q++) {
            double s = 0.0;
            for (int c = 0; c < na; c++) s += Jk[q * na + c] * v[chain[c]];
            tw[q] = s;
        }
        for (int a = S->bl_pair[b]; a < S->bl_pair[b + 1]; a++) {
            const double *j = S->jc + 6 * (size_t)a;
            double x = j[0] * tw[0] + j[1] * tw[1] + j[2] * tw[2] + j[3] * tw[3] + j[4] * tw[4] +
                       j[5] * tw[5];
            double y = pb[a] * x + up[a];
            th += (y - yp[a]) * (y - yp[a]);
            xp[a] = x;
            yp[a] = y;
        }
    }
    *theta = th;
}

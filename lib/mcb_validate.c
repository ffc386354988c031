/* mcb_validate.c: mcb_problem_validate(), every check the format promises
 * (docs/problem-format.md, format 4: descriptors, the body factorization
 * J = Jc Jb and the per-row compliance r included).
 * Checks run in an order where each relies only on earlier ones (structure
 * before values, values before factorization), so bad input can never make
 * a later check read out of bounds. */
#include "lib/mcb_chol.h"
#include "lib/mcb_problem.h"
#include "lib/mcb_psd.h"

#include <math.h>
#include <stdlib.h>

#define SYM_TOL MCB_SYM_TOL

/* Structure of a CSC matrix: pointers, index range, strictly increasing
 * rows per column (no duplicates), finite values. */
mcb_rc mcb_csc_check(const mcb_csc *M, const char *where, const char *name, int m, int n,
                     mcb_err *err)
{
    if (!M) return mcb_fail(err, MCB_E_INPUT, "%s: matrix %s is missing", where, name);
    if (M->m != m || M->n != n)
        return mcb_fail(err, MCB_E_INPUT, "%s: %s has shape %dx%d, expected %dx%d",
                        where, name, M->m, M->n, m, n);
    if (M->p[0] != 0)
        return mcb_fail(err, MCB_E_INPUT, "%s: %s/colptr[0] is %d, must be 0", where, name, M->p[0]);
    for (int j = 0; j < n; j++)
        if (M->p[j + 1] < M->p[j])
            return mcb_fail(err, MCB_E_INPUT, "%s: %s/colptr decreases at column %d",
                            where, name, j);
    for (int j = 0; j < n; j++)
        for (int k = M->p[j]; k < M->p[j + 1]; k++) {
            int r = M->i[k];
            if (r < 0 || r >= m)
                return mcb_fail(err, MCB_E_INPUT,
                                "%s: %s/rowind[%d] = %d is out of range [0, %d)",
                                where, name, k, r, m);
            if (k > M->p[j] && r <= M->i[k - 1])
                return mcb_fail(err, MCB_E_INPUT,
                                "%s: %s column %d has %s row indices (row %d after %d)", where,
                                name, j, r == M->i[k - 1] ? "duplicate" : "unsorted", r,
                                M->i[k - 1]);
            if (!isfinite(M->x[k]))
                return mcb_fail(err, MCB_E_INPUT,
                                "%s: %s/values[%d] (row %d, column %d) is not finite", where,
                                name, k, r, j);
        }
    return MCB_OK;
}

static mcb_rc check_vec(const double *x, int len, const char *where, const char *name,
                        int required, mcb_err *err)
{
    if (!x) return required ? mcb_fail(err, MCB_E_INPUT, "%s: vector %s is missing", where, name)
                            : MCB_OK;
    for (int k = 0; k < len; k++)
        if (!isfinite(x[k]))
            return mcb_fail(err, MCB_E_INPUT, "%s: %s[%d] is not finite", where, name, k);
    return MCB_OK;
}

static mcb_rc check_blocks(const mcb_problem *P, const char *where, mcb_err *err)
{
    int row = 0;
    for (int k = 0; k < P->nblocks; k++) {
        const mcb_block *B = &P->blocks[k];
        if (B->type < 0 || B->type >= MCB_NCTYPES)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: constraints/type[%d] = %d is an unknown constraint type "
                            "(0 bilateral, 1 unilateral, 2 soft, 3 contact, 4 contact_ccp)",
                            where, k, B->type);
        if (B->row != row)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: constraint block %d starts at row %d, expected %d (%s)", where,
                            k, B->row, row, B->row < row ? "blocks overlap" : "gap between blocks");
        if (B->nrows < 1)
            return mcb_fail(err, MCB_E_INPUT, "%s: constraint block %d has %d rows", where, k,
                            B->nrows);
        if (mcb_is_contact(B->type) && B->nrows != 3)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: contact block %d has %d rows, a contact has 3 [n, t1, t2]",
                            where, k, B->nrows);
        if (!isfinite(B->mu) || !isfinite(B->k) || !isfinite(B->alpha))
            return mcb_fail(err, MCB_E_INPUT, "%s: constraint block %d has a non-finite parameter",
                            where, k);
        if (B->mu < 0)
            return mcb_fail(err, MCB_E_INPUT, "%s: constraints/mu[%d] = %g is negative", where, k,
                            B->mu);
        if (B->k < 0)
            return mcb_fail(err, MCB_E_INPUT, "%s: constraints/k[%d] = %g is negative", where, k,
                            B->k);
        if (B->alpha < 0)
            return mcb_fail(err, MCB_E_INPUT, "%s: constraints/alpha[%d] = %g is negative", where,
                            k, B->alpha);
        if (B->type == MCB_SOFT && P->form == MCB_DUAL)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: soft block %d in a dual-form problem (soft rows need the primal "
                            "form: e and J v enter separately)", where, k);
        if (B->nrows > P->m - row)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: constraint block %d (rows %d..%ld) runs past the %d rows",
                            where, k, row, (long)row + B->nrows - 1, P->m);
        row += B->nrows;
    }
    if (row != P->m)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: constraint blocks cover %d rows, the problem has %d (gap at the end)",
                        where, row, P->m);
    return MCB_OK;
}

static mcb_rc check_partition(const mcb_problem *P, const char *where, mcb_err *err)
{
    if (P->form != MCB_PRIMAL) return MCB_OK;
    if (!P->sub_start || P->nsub < 1)
        return P->n == 0 ? MCB_OK
                         : mcb_fail(err, MCB_E_INPUT, "%s: subsystem partition is missing", where);
    if (P->sub_start[0] != 0 || P->sub_start[P->nsub] != P->n)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: subsystems/start must begin at 0 and end at n = %d", where, P->n);
    for (int s = 0; s < P->nsub; s++)
        if (P->sub_start[s + 1] <= P->sub_start[s])
            return mcb_fail(err, MCB_E_INPUT, "%s: subsystems/start is not increasing at %d",
                            where, s);
    /* A block diagonal over the partition */
    int s = 0;
    for (int j = 0; j < P->n; j++) {
        while (j >= P->sub_start[s + 1]) s++;
        for (int k = P->A->p[j]; k < P->A->p[j + 1]; k++) {
            int i = P->A->i[k];
            if (i < P->sub_start[s] || i >= P->sub_start[s + 1])
                return mcb_fail(err, MCB_E_INPUT,
                                "%s: A couples DOF %d and %d across subsystems (A must be block "
                                "diagonal over subsystems/start)", where, i, j);
        }
    }
    return MCB_OK;
}

/* Per-row compliance (format 4): finite, >= 0, and 0 on soft rows (a soft
 * row's law has its own stiffness k; after check_blocks, so the blocks
 * cover the rows). */
static mcb_rc check_compliance(const mcb_problem *P, const char *where, mcb_err *err)
{
    if (!P->r) return MCB_OK;
    for (int i = 0; i < P->m; i++) {
        if (!isfinite(P->r[i]))
            return mcb_fail(err, MCB_E_INPUT, "%s: r[%d] is not finite (compliance must be "
                            "finite and >= 0)", where, i);
        if (P->r[i] < 0)
            return mcb_fail(err, MCB_E_INPUT, "%s: r[%d] = %g is negative (compliance must be "
                            ">= 0)", where, i, P->r[i]);
    }
    for (int k = 0; k < P->nblocks; k++) {
        const mcb_block *B = &P->blocks[k];
        if (B->type != MCB_SOFT) continue;
        for (int i = B->row; i < B->row + B->nrows; i++)
            if (P->r[i] != 0)
                return mcb_fail(err, MCB_E_INPUT,
                                "%s: r[%d] = %g on soft block %d (soft rows take no compliance: "
                                "their law has its own stiffness k)", where, i, P->r[i], k);
    }
    return MCB_OK;
}

/* Anisotropic friction (format 5): constraints/mu2 per block, NaN
 * (isotropic) or finite and >= 0 on a contact block, NaN elsewhere. */
static mcb_rc check_mu2(const mcb_problem *P, const char *where, mcb_err *err)
{
    for (int k = 0; P->mu2 && k < P->nblocks; k++) {
        double x = P->mu2[k];
        if (isnan(x)) continue;
        if (!mcb_is_contact(P->blocks[k].type))
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: constraints/mu2[%d] = %g on a %s block (only contact blocks "
                            "take a second friction coefficient; NaN elsewhere)",
                            where, k, x, mcb_ctype_name(P->blocks[k].type));
        if (!isfinite(x))
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: constraints/mu2[%d] is not finite (a friction coefficient "
                            "must be finite and >= 0; NaN means isotropic)", where, k);
        if (x < 0)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: constraints/mu2[%d] = %g is negative (a friction coefficient "
                            "must be >= 0)", where, k, x);
    }
    return MCB_OK;
}

/* Format 3 descriptors: NaN (unknown) or a finite number >= 1. */
static mcb_rc check_descriptor(double x, const char *where, const char *name, mcb_err *err)
{
    if (isnan(x) || (isfinite(x) && x >= 1)) return MCB_OK;
    return mcb_fail(err, MCB_E_INPUT,
                    "%s: attribute %s = %g is invalid (NaN for unknown, else finite and >= 1)",
                    where, name, x);
}

/* The stored rank: -1 (unknown) or at most the rows (and, primal, the
 * columns) of J; its tolerance NaN (unknown) or finite and >= 0, and
 * stored only with a rank. */
static mcb_rc check_rank(const mcb_problem *P, const char *where, mcb_err *err)
{
    int most = P->form == MCB_PRIMAL && P->n < P->m ? P->n : P->m;
    if (P->rank < -1 || P->rank > most)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: attribute rank = %d is invalid (-1 or absent for unknown, else "
                        "between 0 and %d)",
                        where, P->rank, most);
    if (!isnan(P->rank_tol) && (!isfinite(P->rank_tol) || P->rank_tol < 0 || P->rank < 0))
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: attribute rank_tol = %g is invalid (NaN for unknown, else finite, "
                        ">= 0 and stored with a rank)",
                        where, P->rank_tol);
    return MCB_OK;
}

/* max |(Jc Jb - J)_ij| <= BODY_TOL max(max |J_ij|, 1) */
#define BODY_TOL 1e-9

/* J = Jc Jb (CANAL paper eq. (30)-(31)), compared column by column with a
 * dense work column of m entries. */
static mcb_rc check_body_product(const mcb_problem *P, const char *where, mcb_err *err)
{
    mcb_csc *C = mcb_csc_multiply(P->Jc, P->Jb);
    double *w = mcb_calloc((size_t)P->m + 1, sizeof(double));
    mcb_rc rc = MCB_OK;
    if (!C || !w) rc = mcb_fail(err, MCB_E_NOMEM, "%s: out of memory", where);
    double jmax = 1, dmax = 0;
    int di = 0, dj = 0;
    for (int k = 0; !rc && k < mcb_csc_nnz(P->J); k++)
        if (fabs(P->J->x[k]) > jmax) jmax = fabs(P->J->x[k]);
    for (int j = 0; !rc && j < P->n; j++) {
        for (int k = C->p[j]; k < C->p[j + 1]; k++) w[C->i[k]] += C->x[k];
        for (int k = P->J->p[j]; k < P->J->p[j + 1]; k++) w[P->J->i[k]] -= P->J->x[k];
        /* every nonzero of w is at a row of C's or J's column j */
        for (int pass = 0; pass < 2; pass++) {
            const mcb_csc *M = pass ? P->J : C;
            for (int k = M->p[j]; k < M->p[j + 1]; k++) {
                int i = M->i[k];
                if (fabs(w[i]) > dmax) dmax = fabs(w[i]), di = i, dj = j;
                w[i] = 0;
            }
        }
    }
    if (!rc && !(dmax <= BODY_TOL * jmax))
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: bodies/Jc times bodies/Jb differs from J by %.3g at row %d, column %d "
                      "(more than %g max(max |J_ij|, 1) = %.3g)", where, dmax, di, dj, BODY_TOL,
                      BODY_TOL * jmax);
    mcb_csc_free(&C);
    free(w);
    return rc;
}

/* The body factorization (format 3): shapes, a forest whose parents
 * precede their children, subsystems in range, each body's rows of Jb
 * touching only its subsystem's DOFs, and J = Jc Jb. */
static mcb_rc check_bodies(const mcb_problem *P, const char *where, mcb_err *err)
{
    mcb_rc rc;
    int nb = P->nbodies;
    if (nb == 0) {
        if (P->Jc || P->Jb || P->body_parent || P->body_sub)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: bodies/ datasets are present but nbodies is 0", where);
        return MCB_OK;
    }
    if (nb < 0 || nb > (1 << 28))
        return mcb_fail(err, MCB_E_INPUT, "%s: bodies: nbodies = %d is invalid", where, nb);
    if (P->form != MCB_PRIMAL)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: bodies/ in a dual-form problem (J = Jc Jb needs the primal form)",
                        where);
    if (!P->body_parent || !P->body_sub)
        return mcb_fail(err, MCB_E_INPUT, "%s: bodies/%s is missing", where,
                        P->body_parent ? "subsystem" : "parent");
    if (!P->sub_start)
        return mcb_fail(err, MCB_E_INPUT, "%s: bodies/ needs the subsystem partition", where);
    if ((rc = mcb_csc_check(P->Jc, where, "bodies/Jc", P->m, 6 * nb, err))) return rc;
    if ((rc = mcb_csc_check(P->Jb, where, "bodies/Jb", 6 * nb, P->n, err))) return rc;
    for (int k = 0; k < nb; k++) {
        int par = P->body_parent[k];
        if (par != -1 && (par < 0 || par >= k))
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: bodies/parent[%d] = %d is invalid (-1 for a root, else an "
                            "earlier body: a parent precedes its child, so the tree is a forest)",
                            where, k, par);
        if (P->body_sub[k] < 0 || P->body_sub[k] >= P->nsub)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: bodies/subsystem[%d] = %d is out of range [0, %d)", where, k,
                            P->body_sub[k], P->nsub);
    }
    for (int j = 0; j < P->n; j++)
        for (int k = P->Jb->p[j]; k < P->Jb->p[j + 1]; k++) {
            int body = P->Jb->i[k] / 6, s = P->body_sub[body];
            if (j < P->sub_start[s] || j >= P->sub_start[s + 1])
                return mcb_fail(err, MCB_E_INPUT,
                                "%s: bodies/Jb row %d (body %d, subsystem %d) touches DOF %d, "
                                "outside its subsystem's DOFs [%d, %d)", where, P->Jb->i[k],
                                body, s, j, P->sub_start[s], P->sub_start[s + 1]);
        }
    return check_body_product(P, where, err);
}

/* A symmetric matrix (both triangles stored) with a positive diagonal,
 * positive definite (A: its Cholesky factorization succeeds) or, psd = 1,
 * positive semidefinite up to round-off (W: psd_defect(W) <= MCB_PSD_TOL,
 * mcb_psd.h; a refused W's figure goes into the message). */
static mcb_rc check_spd(const mcb_csc *M, const char *where, const char *name, int psd,
                        mcb_err *err)
{
    double asym = mcb_csc_asymmetry(M);
    if (asym > SYM_TOL)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: %s is not symmetric (max |%s_ij - %s_ji| / max |%s_ij| = %.3g > %g)",
                        where, name, name, name, name, asym, SYM_TOL);
    for (int j = 0; j < M->n; j++) {
        double d = 0;
        for (int k = M->p[j]; k < M->p[j + 1]; k++)
            if (M->i[k] == j) d = M->x[k];
        if (!(d > 0))
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: %s is not positive %sdefinite: diagonal entry %d is %g (a row "
                            "with no positive diagonal)", where, name, psd ? "semi" : "", j, d);
    }
    mcb_err ferr;
    mcb_rc rc;
    if (psd) {
        mcb_psd r;
        if ((rc = mcb_psd_measure(M, 0, &r, &ferr)))
            return mcb_fail(err, rc, "%s: %s", where, ferr.msg);
        if (!r.accepted)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: %s is not positive semidefinite: its smallest eigenvalue is "
                            "about -%.2g ||%s||_2 (||%s||_2 = %.3g), beyond the round-off "
                            "allowance of %g ||%s||_2 (Cholesky of %s + %g ||%s||_2 I fails)",
                            where, name, r.defect, name, name, r.norm, MCB_PSD_TOL, name, name,
                            MCB_PSD_TOL, name);
        return MCB_OK;
    }
    mcb_chol *F = NULL;
    rc = mcb_chol_factor(M, &F, &ferr);
    mcb_chol_free(&F);
    if (rc == MCB_E_NUMERIC)
        return mcb_fail(err, MCB_E_INPUT, "%s: %s is not positive definite: %s", where, name,
                        ferr.msg);
    if (rc) return mcb_fail(err, rc, "%s: %s", where, ferr.msg);
    return MCB_OK;
}

mcb_rc mcb_problem_validate(const mcb_problem *P, const char *where, mcb_err *err)
{
    mcb_rc rc;
    if (!P) return mcb_fail(err, MCB_E_INPUT, "%s: no problem", where);
    if (P->form != MCB_PRIMAL && P->form != MCB_DUAL)
        return mcb_fail(err, MCB_E_INPUT, "%s: unknown form %d", where, P->form);
    if (P->m < 0 || P->n < 0 || (P->form == MCB_PRIMAL && P->n < 1))
        return mcb_fail(err, MCB_E_INPUT, "%s: bad dimensions n = %d, m = %d", where, P->n, P->m);
    if (!isfinite(P->h) || P->h < 0)
        return mcb_fail(err, MCB_E_INPUT, "%s: time step h = %g is invalid", where, P->h);
    if (P->form == MCB_PRIMAL) {
        if ((rc = mcb_csc_check(P->A, where, "A", P->n, P->n, err))) return rc;
        if ((rc = mcb_csc_check(P->J, where, "J", P->m, P->n, err))) return rc;
        if ((rc = check_vec(P->b, P->n, where, "b", 1, err))) return rc;
        if ((rc = check_vec(P->e, P->m, where, "e", 1, err))) return rc;
        if ((rc = check_vec(P->v0, P->n, where, "init/v", 0, err))) return rc;
        if ((rc = check_vec(P->v_ref, P->n, where, "reference/v", 0, err))) return rc;
    } else {
        if ((rc = mcb_csc_check(P->W, where, "W", P->m, P->m, err))) return rc;
        if ((rc = check_vec(P->q, P->m, where, "q", 1, err))) return rc;
    }
    if ((rc = check_vec(P->lambda0, P->m, where, "init/lambda", 0, err))) return rc;
    if ((rc = check_vec(P->lambda_ref, P->m, where, "reference/lambda", 0, err))) return rc;
    if ((rc = check_blocks(P, where, err))) return rc;
    if ((rc = check_compliance(P, where, err))) return rc;
    if ((rc = check_mu2(P, where, err))) return rc;
    if ((rc = check_partition(P, where, err))) return rc;
    if ((rc = check_descriptor(P->mass_ratio, where, "mass_ratio", err))) return rc;
    if ((rc = check_descriptor(P->cond_est, where, "cond_est", err))) return rc;
    if ((rc = check_rank(P, where, err))) return rc;
    if (!isnan(P->psd_defect) && (!isfinite(P->psd_defect) || P->psd_defect < 0))
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: attribute psd_defect = %g is invalid (NaN for unknown, else finite "
                        "and >= 0)", where, P->psd_defect);
    if ((rc = check_bodies(P, where, err))) return rc;
    if ((rc = mcb_mujoco_check(P, where, err))) return rc;
    /* A: symmetric positive definite; W: symmetric positive semidefinite
     * (a Delassus operator J A^-1 J^T is singular when J has dependent rows) */
    if (P->form == MCB_PRIMAL) return check_spd(P->A, where, "A", 0, err);
    if (P->m > 0) return check_spd(P->W, where, "W", 1, err);
    return MCB_OK;
}

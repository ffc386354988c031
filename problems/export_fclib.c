/* export_fclib.c: one mcbench problem -> one FCLIB file, through libfclib
 * (docs/formats.md).
 *
 *   primal, contacts only  ->  /fclib_global: M = A, H = J^T, f = b, w = e
 *   primal, local asked    ->  /fclib_local:  W = J A^-1 J^T, q = J A^-1 b + e
 *   dual                   ->  /fclib_local:  W, q
 * Per-row compliance r is folded into the local form's W (W + diag(r):
 * u = (W + diag(r)) lambda + q, FCLIB's local law); the global form has no
 * place for it and is refused (auto then picks the local form).
 * Every matrix in compressed columns (nz = -1), the storage libfclib's own
 * merit function and our importer both read. The steps: check what FCLIB
 * can express, assemble the libfclib structs (pointing into the problem's
 * arrays, nothing copied but W for a primal problem), write them in a child
 * process under a temporary name (libfclib exits on write errors), rename.
 * Allocates only W and q (local form of a primal problem), or W + diag(r)
 * (a compliant dual problem); frees them. */
#include "problems/export_fclib.h"

#include <fclib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mcb_delassus.h"
#include "lib/mcb_isolate.h"
#include "lib/mcb_paths.h"

int mcb_fclib_form_from_name(const char *name)
{
    if (!name) return -1;
    if (!strcmp(name, "auto")) return MCB_FCLIB_AUTO;
    if (!strcmp(name, "global")) return MCB_FCLIB_GLOBAL;
    if (!strcmp(name, "local")) return MCB_FCLIB_LOCAL;
    return -1;
}

/* What FCLIB cannot hold, block by block: the reason for the first one. */
static mcb_rc check_blocks(const mcb_problem *P, const char *where, mcb_err *err)
{
    static const char *why[MCB_NCTYPES] = {
        [MCB_BILATERAL] = "FCLIB's equality part (global G, local V and R) could hold it, but "
                          "neither mcbench's importer nor Siconos' friction-contact solvers read "
                          "it",
        [MCB_UNILATERAL] = "FCLIB has no one-row unilateral constraint (only 3-row contacts)",
        [MCB_SOFT] = "FCLIB has no compliant (soft) constraint",
        [MCB_CONTACT_CCP] = "FCLIB's law is Coulomb friction with De Saxce's modified velocity "
                            "(mcbench's 'contact'), not the cone complementarity of "
                            "'contact_ccp'",
    };
    for (int k = 0; k < P->nblocks; k++) {
        int t = P->blocks[k].type;
        if (t == MCB_CONTACT) continue;
        int count = mcb_problem_count(P, t);
        const char *reason = t >= 0 && t < MCB_NCTYPES && why[t] ? why[t] : "unknown type";
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: cannot be written as FCLIB: %d %s block(s) (the first is block %d, "
                        "rows %d-%d): %s", where, count, mcb_ctype_name(t), k, P->blocks[k].row,
                        P->blocks[k].row + P->blocks[k].nrows - 1, reason);
    }
    if (P->nblocks == 0)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: cannot be written as FCLIB: no contact (an FCLIB problem holds at "
                        "least one)", where);
    return MCB_OK;
}

mcb_rc mcb_export_fclib_check(const mcb_problem *P, int want, const char *where, int *form,
                              mcb_err *err)
{
    mcb_rc rc = check_blocks(P, where, err);
    if (rc) return rc;
    if (mcb_problem_is_aniso(P))
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: cannot be written as FCLIB: it has anisotropic friction "
                        "(constraints/mu2), which FCLIB's one mu per contact cannot hold",
                        where);
    int f = want;
    if (f == MCB_FCLIB_AUTO)
        f = P->form == MCB_PRIMAL && !mcb_problem_has_compliance(P) ? MCB_FCLIB_GLOBAL
                                                                    : MCB_FCLIB_LOCAL;
    if (f == MCB_FCLIB_GLOBAL && mcb_problem_has_compliance(P))
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: cannot be written as a global FCLIB problem: it has per-row "
                        "compliance r, which FCLIB's global form (M v = f + H r, u = H^T v + w) "
                        "cannot hold; the local form folds it into W (--form local)", where);
    if (f == MCB_FCLIB_GLOBAL && P->form != MCB_PRIMAL)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: a dual-form problem (W, q) has no M, H, f or w: it can be written "
                        "as a local FCLIB problem only (--form local)", where);
    if (f != MCB_FCLIB_GLOBAL && f != MCB_FCLIB_LOCAL)
        return mcb_fail(err, MCB_E_INPUT, "%s: unknown FCLIB form %d", where, want);
    if (f == MCB_FCLIB_GLOBAL && mcb_csc_nnz(P->J) == 0)
        return mcb_fail(err, MCB_E_INPUT, "%s: cannot be written as FCLIB: J has no nonzero "
                        "entry", where);
    if (form) *form = f;
    return MCB_OK;
}

/* An fclib_matrix viewing a CSC matrix (nothing copied). */
static struct fclib_matrix view_csc(const mcb_csc *A)
{
    struct fclib_matrix M;
    memset(&M, 0, sizeof M);
    M.m = A->m;
    M.n = A->n;
    M.nzmax = mcb_csc_nnz(A);
    M.nz = -1; /* compressed columns */
    M.p = A->p;
    M.i = A->i;
    M.x = A->x;
    return M;
}

/* What the child writes. */
typedef struct {
    const char *tmp;
    struct fclib_global *global;
    struct fclib_local *local;
} write_job;

static mcb_rc write_child(void *arg, void *shared, mcb_err *err)
{
    (void)shared;
    const write_job *job = arg;
    unlink(job->tmp); /* libfclib appends to an existing file */
    int ok = job->global ? fclib_write_global(job->global, job->tmp)
                         : fclib_write_local(job->local, job->tmp);
    if (!ok) return mcb_fail(err, MCB_E_IO, "libfclib could not create the file");
    return MCB_OK;
}

/* The title, description and math_info of the file. */
static void fill_info(const mcb_problem *P, char *math, size_t len, struct fclib_info *info)
{
    snprintf(math, len, "written by mcbench export fclib from the problem '%s' (source: %s)",
             P->name ? P->name : "", P->source ? P->source : "");
    info->title = P->scene && P->scene[0] ? P->scene : P->name;
    info->description = P->notes ? P->notes : "";
    info->math_info = math;
}

/* Writes the structs through the child into tmp; MCB_E_IO on failure. */
static mcb_rc write_isolated(write_job *job, const char *path, mcb_err *err)
{
    mcb_isolate_report rep;
    mcb_rc rc = mcb_isolate_run(write_child, job, NULL, 0, NULL, &rep, err);
    if (rc == MCB_E_ISOLATED) {
        char why[MCB_ERR_LEN];
        snprintf(why, sizeof why, "%s", err->msg);
        return mcb_fail(err, MCB_E_IO, "%s: libfclib failed writing the file (%s)", path, why);
    }
    if (rc) {
        char why[MCB_ERR_LEN];
        snprintf(why, sizeof why, "%s", err->msg);
        return mcb_fail(err, rc == MCB_E_NOMEM ? MCB_E_NOMEM : MCB_E_IO, "%s: %s", path, why);
    }
    return MCB_OK;
}

mcb_rc mcb_export_fclib(const mcb_problem *P, int want, const char *path, mcb_err *err)
{
    int form = 0;
    mcb_rc rc = mcb_export_fclib_check(P, want, path, &form, err);
    if (rc) return rc;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());

    char math[4600];
    struct fclib_info info;
    fill_info(P, math, sizeof math, &info);
    struct fclib_matrix M, H, W;
    struct fclib_global g;
    struct fclib_local l;
    memset(&g, 0, sizeof g);
    memset(&l, 0, sizeof l);
    double *mu = mcb_malloc((size_t)P->nblocks, sizeof(double));
    mcb_csc *Ht = NULL, *Wr = NULL;
    mcb_delassus *D = NULL;
    if (!mu) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int c = 0; c < P->nblocks; c++) mu[c] = P->blocks[c].mu;
    write_job job = {tmp, NULL, NULL};
    if (form == MCB_FCLIB_GLOBAL) {
        if (!(Ht = mcb_csc_transpose(P->J))) {
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
            goto done;
        }
        M = view_csc(P->A);
        H = view_csc(Ht);
        g = (struct fclib_global){&M, &H, NULL, mu, P->b, NULL, P->e, 3, &info};
        job.global = &g;
    } else {
        const mcb_csc *Wsrc = P->W;
        double *q = P->q;
        if (P->form == MCB_PRIMAL) {
            if ((rc = mcb_delassus_build(P, &D, err))) {
                char why[MCB_ERR_LEN];
                snprintf(why, sizeof why, "%s", err->msg);
                rc = mcb_fail(err, rc, "%s: cannot form W = J A^-1 J^T: %s", path, why);
                goto done;
            }
            Wsrc = D->W; /* J A^-1 J^T + diag(r) (mcb_delassus.h) */
            q = D->q;
        } else if (mcb_problem_has_compliance(P)) {
            if (!(Wr = mcb_csc_add_diag(P->W, P->r))) {
                rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
                goto done;
            }
            Wsrc = Wr;
        }
        W = view_csc(Wsrc);
        l = (struct fclib_local){&W, NULL, NULL, mu, q, NULL, 3, &info};
        job.local = &l;
    }
    if (mcb_tmp_register(tmp)) {
        rc = mcb_fail(err, MCB_E_IO, "%s: too many temporary files", path);
        goto done;
    }
    rc = write_isolated(&job, path, err);
    if (!rc && rename(tmp, path) != 0)
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot rename the finished file into place", path);
    if (rc) unlink(tmp);
    mcb_tmp_unregister(tmp);
done:
    mcb_delassus_free(&D);
    mcb_csc_free(&Ht);
    mcb_csc_free(&Wr);
    free(mu);
    return rc;
}

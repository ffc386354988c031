/* mcb_io.c: problem files, HDF5 format v4 (docs/problem-format.md); reads
 * versions 2 to 5, writes version 5.
 *
 *   /                    attrs format = "mcbench-problem", format_version = 5
 *   /problems/NNNNNN     one group per problem, in name order, attrs
 *                        name, source, scene, notes, h, step, form,
 *                        mass_ratio, cond_est (v3, optional: NaN = unknown),
 *                        rank, rank_tol (v4, optional: rank of J or W),
 *                        psd_defect (v4, optional: how far a dual W is
 *                        from positive semidefinite, mcb_psd.h)
 *     A/ J/ (primal) or W/ (dual): CSC groups, attr shape = [rows, cols],
 *                        datasets colptr, rowind (int32), values (float64)
 *     b, e (primal) or q (dual)
 *     r                  v4, optional: per-row compliance, m entries (the
 *                        laws apply to J v + e + r∘lambda, W lambda + q + r∘lambda)
 *     constraints/{type, first_row, row_count} (int32), {mu, k, alpha} (float64)
 *     subsystems/start   optional, int32, nsub + 1 entries
 *     init/{v, lambda}, reference/{v, lambda}   optional
 *     bodies/{Jc/, Jb/, parent, subsystem}        v3, optional (primal):
 *                        J = Jc Jb, CANAL paper eq. (30)-(31)
 *     mujoco/            v4, optional (primal): a step recorded from MuJoCo:
 *                        model (uint8, mj_saveModel's bytes), qpos, qvel,
 *                        act (when na > 0), ctrl (when nu > 0),
 *                        qacc_warmstart, time (1 entry), all float64;
 *                        contacts (int32, 1 entry, optional: MuJoCo's
 *                        contacts in the rows, any cone)
 *
 * Written files are byte-for-byte identical for identical content: no
 * object timestamps (mcb_h5 creates every group and dataset with
 * H5Pset_obj_track_times(.., 0)), fixed group names, fixed types. */
#include "lib/mcb_io.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "lib/mcb_h5.h"
#include "lib/mcb_isolate.h"
#include "lib/mcb_untrusted.h"
#include "lib/mcb_paths.h"

/* ---------------------------------------------------------------- reading */

static mcb_csc *read_csc(hid_t g, const char *name, const char *ctx, mcb_rc *rc, mcb_err *err)
{
    *rc = MCB_E_INPUT;
    if (!mcb_h5_exists(g, name)) {
        mcb_fail(err, MCB_E_INPUT, "%s: matrix group %s is missing", ctx, name);
        return NULL;
    }
    hid_t mg = H5Gopen2(g, name, H5P_DEFAULT);
    if (mg < 0) {
        mcb_fail(err, MCB_E_INPUT, "%s: %s is not a group", ctx, name);
        return NULL;
    }
    long shape[2];
    char where[700];
    snprintf(where, sizeof where, "%s/%s", ctx, name);
    *rc = mcb_h5_attr_get_ints(mg, "shape", where, shape, 2, err);
    H5Gclose(mg);
    if (*rc) return NULL;
    if (shape[0] < 0 || shape[1] < 0 || shape[0] >= INT_MAX || shape[1] >= INT_MAX) {
        *rc = mcb_fail(err, MCB_E_INPUT, "%s: %s/shape = [%ld, %ld] is invalid", ctx, name,
                       shape[0], shape[1]);
        return NULL;
    }
    /* every length below is checked against the bytes the file stores
     * before anything is allocated */
    char path[128];
    snprintf(path, sizeof path, "%s/colptr", name);
    int *p = NULL, *ri = NULL;
    double *x = NULL;
    mcb_csc *M = NULL;
    long nnz = 0, have = -1;
    if ((*rc = mcb_h5_read_ints(g, path, shape[1] + 1, ctx, &p, err))) goto done;
    nnz = p[shape[1]];
    if (nnz < 0 || p[0] != 0) {
        *rc = mcb_fail(err, MCB_E_INPUT, "%s: %s must start at 0 and end at nnz >= 0", ctx, path);
        goto done;
    }
    snprintf(path, sizeof path, "%s/rowind", name);
    if ((*rc = mcb_h5_len(g, path, ctx, &have, err))) goto done;
    if (have != nnz) {
        *rc = mcb_fail(err, MCB_E_INPUT, "%s: %s has %ld entries but colptr ends at %ld", ctx,
                       path, have, nnz);
        goto done;
    }
    if ((*rc = mcb_h5_read_ints(g, path, nnz, ctx, &ri, err))) goto done;
    snprintf(path, sizeof path, "%s/values", name);
    if ((*rc = mcb_h5_read_doubles(g, path, nnz, ctx, &x, err))) goto done;
    M = mcb_csc_alloc((int)shape[0], (int)shape[1], 0);
    if (!M) {
        *rc = mcb_fail(err, MCB_E_NOMEM, "%s: out of memory for %s", ctx, name);
        goto done;
    }
    memcpy(M->p, p, ((size_t)shape[1] + 1) * sizeof(int));
    free(M->i);
    free(M->x);
    M->i = ri;
    M->x = x;
    ri = NULL;
    x = NULL;
done:
    free(p);
    free(ri);
    free(x);
    return M;
}

/* An optional string attribute: "" when absent, an error when of another
 * type. */
static mcb_rc attr_str_opt(hid_t g, const char *name, const char *ctx, char **out, mcb_err *err)
{
    free(*out);
    *out = NULL;
    if (!mcb_h5_attr_exists(g, name)) {
        *out = mcb_strdup("");
        return *out ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    return mcb_h5_attr_get_str(g, name, ctx, out, err);
}

static mcb_rc read_optional(hid_t g, const char *path, long len, double **out, const char *ctx,
                            mcb_err *err)
{
    *out = NULL;
    if (!mcb_h5_exists(g, path)) return MCB_OK;
    return mcb_h5_read_doubles(g, path, len, ctx, out, err);
}

static mcb_rc read_blocks(hid_t g, mcb_problem *P, const char *ctx, mcb_err *err)
{
    long nb = -1;
    mcb_rc rc = mcb_h5_len(g, "constraints/type", ctx, &nb, err);
    if (rc) return rc;
    int *type = NULL, *first = NULL, *count = NULL;
    double *mu = NULL, *k = NULL, *alpha = NULL;
    if (!(rc = mcb_h5_read_ints(g, "constraints/type", nb, ctx, &type, err)) &&
        !(rc = mcb_h5_read_ints(g, "constraints/first_row", nb, ctx, &first, err)) &&
        !(rc = mcb_h5_read_ints(g, "constraints/row_count", nb, ctx, &count, err)) &&
        !(rc = mcb_h5_read_doubles(g, "constraints/mu", nb, ctx, &mu, err)) &&
        !(rc = mcb_h5_read_doubles(g, "constraints/k", nb, ctx, &k, err)) &&
        !(rc = mcb_h5_read_doubles(g, "constraints/alpha", nb, ctx, &alpha, err))) {
        P->blocks = mcb_calloc((size_t)nb, sizeof(mcb_block));
        if (!P->blocks) {
            rc = mcb_fail(err, MCB_E_NOMEM, "%s: out of memory", ctx);
        } else {
            P->nblocks = (int)nb;
            for (long b = 0; b < nb; b++)
                P->blocks[b] = (mcb_block){type[b], first[b], count[b], mu[b], k[b], alpha[b]};
            rc = MCB_OK;
        }
    }
    free(type);
    free(first);
    free(count);
    free(mu);
    free(k);
    free(alpha);
    return rc;
}

/* An optional float attribute (format 3 descriptors): NaN when absent. */
static mcb_rc attr_double_opt(hid_t g, const char *name, const char *ctx, double *out,
                              mcb_err *err)
{
    *out = NAN;
    if (!mcb_h5_attr_exists(g, name)) return MCB_OK;
    return mcb_h5_attr_get_double(g, name, ctx, out, err);
}

/* The optional body factorization bodies/ (format 3, primal only): the
 * shapes of Jc and Jb against m, n and the length of bodies/parent; the
 * values are checked by mcb_problem_validate. */
static mcb_rc read_bodies(hid_t g, mcb_problem *P, const char *ctx, mcb_err *err)
{
    if (!mcb_h5_exists(g, "bodies")) return MCB_OK;
    if (P->form != MCB_PRIMAL)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: group bodies in a dual-form problem (the body factorization J = Jc "
                        "Jb needs the primal form)", ctx);
    long nb = -1;
    mcb_rc rc = mcb_h5_len(g, "bodies/parent", ctx, &nb, err);
    if (rc) return rc;
    if (nb < 1 || nb > INT_MAX / 6)
        return mcb_fail(err, MCB_E_INPUT, "%s: bodies/parent has %ld entries (1 to %d bodies)",
                        ctx, nb, INT_MAX / 6);
    if ((rc = mcb_h5_read_ints(g, "bodies/parent", nb, ctx, &P->body_parent, err)) ||
        (rc = mcb_h5_read_ints(g, "bodies/subsystem", nb, ctx, &P->body_sub, err)))
        return rc;
    P->nbodies = (int)nb;
    if (!(P->Jc = read_csc(g, "bodies/Jc", ctx, &rc, err))) return rc;
    if (!(P->Jb = read_csc(g, "bodies/Jb", ctx, &rc, err))) return rc;
    if (P->Jc->m != P->m || P->Jc->n != 6 * P->nbodies)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: dimension mismatch: bodies/Jc is %dx%d, expected m x 6 nbodies = "
                        "%dx%d", ctx, P->Jc->m, P->Jc->n, P->m, 6 * P->nbodies);
    if (P->Jb->m != 6 * P->nbodies || P->Jb->n != P->n)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: dimension mismatch: bodies/Jb is %dx%d, expected 6 nbodies x n = "
                        "%dx%d", ctx, P->Jb->m, P->Jb->n, 6 * P->nbodies, P->n);
    return MCB_OK;
}

/* Length of an optional 1-D dataset (0 when absent). */
static mcb_rc opt_len(hid_t g, const char *path, const char *ctx, long *len, mcb_err *err)
{
    *len = 0;
    return mcb_h5_exists(g, path) ? mcb_h5_len(g, path, ctx, len, err) : MCB_OK;
}

/* The optional MuJoCo provenance mujoco/ (format 4, primal): sizes from
 * the datasets' lengths; the values are checked by mcb_problem_validate. */
static mcb_rc read_mujoco(hid_t g, mcb_problem *P, const char *ctx, mcb_err *err)
{
    if (!mcb_h5_exists(g, "mujoco")) return MCB_OK;
    if (P->form != MCB_PRIMAL)
        return mcb_fail(err, MCB_E_INPUT, "%s: group mujoco in a dual-form problem", ctx);
    mcb_mujoco *s = calloc(1, sizeof *s);
    if (!s) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    P->mujoco = s; /* freed with P */
    long nb, nq, nv, na, nu, nt;
    mcb_rc rc;
    if ((rc = mcb_h5_len(g, "mujoco/model", ctx, &nb, err)) ||
        (rc = mcb_h5_len(g, "mujoco/qpos", ctx, &nq, err)) ||
        (rc = mcb_h5_len(g, "mujoco/qvel", ctx, &nv, err)) ||
        (rc = opt_len(g, "mujoco/act", ctx, &na, err)) ||
        (rc = opt_len(g, "mujoco/ctrl", ctx, &nu, err)) ||
        (rc = mcb_h5_len(g, "mujoco/time", ctx, &nt, err)))
        return rc;
    if (nb < 1 || nb > INT_MAX || nq < 1 || nq > INT_MAX || nv != P->n || na > INT_MAX ||
        nu > INT_MAX || nt != 1)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: mujoco/ sizes model %ld, qpos %ld, qvel %ld (n = %d), act %ld, ctrl "
                        "%ld, time %ld are invalid", ctx, nb, nq, nv, P->n, na, nu, nt);
    s->nq = (int)nq, s->nv = (int)nv, s->na = (int)na, s->nu = (int)nu;
    int *bytes = NULL;
    double *t = NULL;
    if ((rc = mcb_h5_read_ints(g, "mujoco/model", nb, ctx, &bytes, err))) return rc;
    s->model = mcb_malloc((size_t)nb, 1);
    for (long k = 0; s->model && k < nb; k++) {
        if (bytes[k] < 0 || bytes[k] > 255) {
            free(bytes);
            return mcb_fail(err, MCB_E_INPUT, "%s: mujoco/model[%ld] = %d is not a byte", ctx, k,
                            bytes[k]);
        }
        s->model[k] = (unsigned char)bytes[k];
    }
    free(bytes);
    if (!s->model) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    s->model_bytes = nb;
    if ((rc = mcb_h5_read_doubles(g, "mujoco/qpos", nq, ctx, &s->qpos, err)) ||
        (rc = mcb_h5_read_doubles(g, "mujoco/qvel", nv, ctx, &s->qvel, err)) ||
        (na && (rc = mcb_h5_read_doubles(g, "mujoco/act", na, ctx, &s->act, err))) ||
        (nu && (rc = mcb_h5_read_doubles(g, "mujoco/ctrl", nu, ctx, &s->ctrl, err))) ||
        (rc = mcb_h5_read_doubles(g, "mujoco/qacc_warmstart", nv, ctx, &s->qacc_warmstart, err)) ||
        (rc = mcb_h5_read_doubles(g, "mujoco/time", 1, ctx, &t, err)))
        return rc;
    s->time = t[0];
    free(t);
    s->contacts = -1;
    if (mcb_h5_exists(g, "mujoco/contacts")) {
        int *c = NULL;
        if ((rc = mcb_h5_read_ints(g, "mujoco/contacts", 1, ctx, &c, err))) return rc;
        s->contacts = c[0];
        free(c);
        if (s->contacts < 0)
            return mcb_fail(err, MCB_E_INPUT, "%s: mujoco/contacts = %d is negative", ctx,
                            s->contacts);
    }
    return MCB_OK;
}

static mcb_rc read_problem(hid_t g, const char *ctx, int validate, mcb_problem **out,
                           mcb_err *err)
{
    mcb_rc rc = MCB_E_INPUT;
    mcb_problem *P = mcb_problem_new();
    if (!P) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if ((rc = attr_str_opt(g, "name", ctx, &P->name, err)) ||
        (rc = attr_str_opt(g, "source", ctx, &P->source, err)) ||
        (rc = attr_str_opt(g, "scene", ctx, &P->scene, err)) ||
        (rc = attr_str_opt(g, "notes", ctx, &P->notes, err)))
        goto fail;
    long step = 0;
    if (mcb_h5_attr_exists(g, "step") && (rc = mcb_h5_attr_get_int(g, "step", ctx, &step, err)))
        goto fail;
    if (step < INT_MIN || step > INT_MAX) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute step = %ld is out of range", ctx, step);
        goto fail;
    }
    P->step = (int)step;
    if (mcb_h5_attr_exists(g, "h") && (rc = mcb_h5_attr_get_double(g, "h", ctx, &P->h, err)))
        goto fail;
    if ((rc = attr_double_opt(g, "mass_ratio", ctx, &P->mass_ratio, err)) ||
        (rc = attr_double_opt(g, "cond_est", ctx, &P->cond_est, err)) ||
        (rc = attr_double_opt(g, "rank_tol", ctx, &P->rank_tol, err)) ||
        (rc = attr_double_opt(g, "psd_defect", ctx, &P->psd_defect, err)))
        goto fail;
    long rank = -1;
    if (mcb_h5_attr_exists(g, "rank") && (rc = mcb_h5_attr_get_int(g, "rank", ctx, &rank, err)))
        goto fail;
    if (rank < -1 || rank > INT_MAX) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute rank = %ld is out of range", ctx, rank);
        goto fail;
    }
    P->rank = (int)rank;
    char *form = NULL;
    if ((rc = mcb_h5_attr_get_str(g, "form", ctx, &form, err))) goto fail;
    if (strcmp(form, "primal") == 0) P->form = MCB_PRIMAL;
    else if (strcmp(form, "dual") == 0) P->form = MCB_DUAL;
    else {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: form = '%s' is unknown (primal|dual)", ctx, form);
        free(form);
        goto fail;
    }
    free(form);

    if (P->form == MCB_PRIMAL) {
        if (!(P->A = read_csc(g, "A", ctx, &rc, err))) goto fail;
        if (!(P->J = read_csc(g, "J", ctx, &rc, err))) goto fail;
        if (P->A->m != P->A->n) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s: A is %dx%d, not square", ctx, P->A->m, P->A->n);
            goto fail;
        }
        if (P->J->n != P->A->n) {
            rc = mcb_fail(err, MCB_E_INPUT,
                          "%s: dimension mismatch: J has %d columns, A has %d rows", ctx,
                          P->J->n, P->A->n);
            goto fail;
        }
        P->n = P->A->n;
        P->m = P->J->m;
        if ((rc = mcb_h5_read_doubles(g, "b", P->n, ctx, &P->b, err))) goto fail;
        if ((rc = mcb_h5_read_doubles(g, "e", P->m, ctx, &P->e, err))) goto fail;
        if ((rc = read_optional(g, "init/v", P->n, &P->v0, ctx, err))) goto fail;
        if ((rc = read_optional(g, "reference/v", P->n, &P->v_ref, ctx, err))) goto fail;
        if (mcb_h5_exists(g, "subsystems/start")) {
            long len = -1;
            if ((rc = mcb_h5_len(g, "subsystems/start", ctx, &len, err))) goto fail;
            if (len < 2) {
                rc = mcb_fail(err, MCB_E_INPUT, "%s: subsystems/start needs at least 2 entries",
                              ctx);
                goto fail;
            }
            if ((rc = mcb_h5_read_ints(g, "subsystems/start", len, ctx, &P->sub_start, err)))
                goto fail;
            P->nsub = (int)len - 1;
        }
    } else {
        if (!(P->W = read_csc(g, "W", ctx, &rc, err))) goto fail;
        if (P->W->m != P->W->n) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s: W is %dx%d, not square", ctx, P->W->m, P->W->n);
            goto fail;
        }
        P->m = P->W->m;
        if ((rc = mcb_h5_read_doubles(g, "q", P->m, ctx, &P->q, err))) goto fail;
    }
    if ((rc = read_optional(g, "r", P->m, &P->r, ctx, err))) goto fail;
    if ((rc = read_optional(g, "init/lambda", P->m, &P->lambda0, ctx, err))) goto fail;
    if ((rc = read_optional(g, "reference/lambda", P->m, &P->lambda_ref, ctx, err))) goto fail;
    if ((rc = read_blocks(g, P, ctx, err))) goto fail;
    if ((rc = read_optional(g, "constraints/mu2", P->nblocks, &P->mu2, ctx, err))) goto fail;
    if ((rc = read_bodies(g, P, ctx, err))) goto fail;
    if ((rc = read_mujoco(g, P, ctx, err))) goto fail;
    /* partition: inferred when absent, after A's structure has been checked */
    if (!validate) {
        *out = P;
        return MCB_OK;
    }
    if (P->form == MCB_PRIMAL && !P->sub_start) {
        if ((rc = mcb_csc_check(P->A, ctx, "A", P->n, P->n, err))) goto fail;
        if ((rc = mcb_problem_infer_subsystems(P, err))) goto fail;
    }
    if ((rc = mcb_problem_validate(P, ctx, err))) goto fail;
    *out = P;
    return MCB_OK;
fail:
    if (rc == MCB_OK) rc = MCB_E_INPUT;
    mcb_problem_free(&P);
    return rc;
}

typedef struct {
    int count, cap;
    char **names;
} name_list;

static herr_t collect_name(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g;
    (void)info;
    name_list *L = data;
    if (L->count == L->cap) {
        int cap = L->cap ? 2 * L->cap : 16;
        char **n = realloc(L->names, (size_t)cap * sizeof *n);
        if (!n) return -1;
        L->names = n;
        L->cap = cap;
    }
    L->names[L->count] = mcb_strdup(name);
    if (!L->names[L->count]) return -1;
    L->count++;
    return 0;
}

/* Reads every problem of `path`; with validate = 0 only the HDF5 pass runs
 * (what mcb_read_problems_isolated does in its child process). */
static mcb_rc read_problems_as(const char *file, const char *path, int validate,
                               mcb_problem_set **out, mcb_err *err)
{
    *out = NULL;
    hid_t f = mcb_h5_open_ro(file, err);
    if (f < 0) return MCB_E_INPUT;
    mcb_rc rc = MCB_OK;
    name_list L = {0, 0, NULL};
    hid_t g = -1;
    mcb_problem_set *S = calloc(1, sizeof *S);
    char *fmt = NULL;
    long version = -1;
    if (!S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    if (!mcb_h5_attr_exists(f, "format")) {
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: root attribute format is missing: not an mcbench problem file (an "
                      "FCLIB file? use 'mcbench import fclib')", path);
        goto done;
    }
    if ((rc = mcb_h5_attr_get_str(f, "format", path, &fmt, err))) goto done;
    if (strcmp(fmt, MCB_FORMAT_NAME) != 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: root attribute format is '%.64s', expected '%s'%s",
                      path, fmt, MCB_FORMAT_NAME,
                      strcmp(fmt, "mcbench-results") == 0 ? " (this is a results file: use "
                                                            "'mcbench report')" : "");
        goto done;
    }
    if ((rc = mcb_h5_attr_get_int(f, "format_version", path, &version, err))) goto done;
    if (version < MCB_FORMAT_VERSION_MIN || version > MCB_FORMAT_VERSION) {
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: unknown format version %ld (this mcbench reads versions %d to %d)%s",
                      path, version, MCB_FORMAT_VERSION_MIN, MCB_FORMAT_VERSION,
                      version == 1 ? " (version 1 files, with variable-length strings, must be "
                                     "regenerated: see docs/problem-format.md)" : "");
        goto done;
    }
    if (!mcb_h5_exists(f, "problems") || (g = H5Gopen2(f, "problems", H5P_DEFAULT)) < 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: group /problems is missing", path);
        goto done;
    }
    if (H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, NULL, collect_name, &L) < 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: cannot list /problems", path);
        goto done;
    }
    if (L.count == 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: /problems holds no problem", path);
        goto done;
    }
    for (int k = 0; k < L.count && !rc; k++) {
        char ctx[600];
        snprintf(ctx, sizeof ctx, "%s: /problems/%.200s", path, L.names[k]);
        hid_t pg = H5Gopen2(g, L.names[k], H5P_DEFAULT);
        if (pg < 0) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s is not a group", ctx);
            break;
        }
        mcb_problem *P = NULL;
        rc = read_problem(pg, ctx, validate, &P, err);
        H5Gclose(pg);
        if (!rc && P->name[0] == '\0') {
            free(P->name);
            if (!(P->name = mcb_strdup(L.names[k])))
                rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
        /* names identify runs in results: they must be unique in a file */
        for (int j = 0; !rc && j < S->count; j++)
            if (strcmp(S->items[j]->name, P->name) == 0)
                rc = mcb_fail(err, MCB_E_INPUT,
                              "%s: problem name '%.200s' is used twice (/problems/%.200s and "
                              "/problems/%.200s): names must be unique in a file",
                              path, P->name, L.names[j], L.names[k]);
        if (!rc) rc = mcb_problem_set_push(S, P, err);
        if (rc) mcb_problem_free(&P);
    }
done:
    for (int k = 0; k < L.count; k++) free(L.names[k]);
    free(L.names);
    free(fmt);
    if (g >= 0) H5Gclose(g);
    H5Fclose(f);
    if (rc) mcb_problem_set_free(&S);
    *out = S;
    return rc;
}

static mcb_rc read_problems(const char *path, int validate, mcb_problem_set **out, mcb_err *err)
{
    return read_problems_as(path, path, validate, out, err);
}

mcb_rc mcb_read_problems(const char *path, mcb_problem_set **out, mcb_err *err)
{
    return read_problems(path, 1, out, err);
}

/* ------------------------------------------------- untrusted files, isolated
 *
 * An untrusted file is parsed in a forked child only. The child reads it
 * (and validates what it read) and writes the problems, as this module
 * writes them, to a temporary file the parent made before the fork; the parent
 * then reads that clean copy. The parent never hands the untrusted bytes to
 * libhdf5: a fault that the child survives by chance (libhdf5 1.10's heap
 * over-read of a damaged attribute message stays inside mapped memory in
 * one heap layout and crosses into an unmapped page in another) cannot
 * reach it. */

static mcb_rc write_file(const char *path, int excl, mcb_problem *const *problems, int count);

/* In the child: the job's reader, then its problems into the copy. */
static mcb_rc copy_read_child(void *arg, mcb_err *err)
{
    mcb_copy_read *cr = arg;
    mcb_problem_set *S = NULL;
    mcb_rc rc = cr->fn(cr->arg, &S, err);
    if (!rc && write_file(cr->copy, 0, S->items, S->count))
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot hand what was read back to the parent (%s)",
                      cr->path, cr->copy);
    mcb_problem_set_free(&S);
    return rc;
}

/* 1 when `dir` has room for a copy of `path` (twice its size and 64 MiB:
 * a container's /dev/shm is often 64 MiB in all). */
static int has_room(const char *dir, const char *path)
{
    struct stat st;
    struct statvfs fs;
    if (stat(path, &st) != 0 || statvfs(dir, &fs) != 0) return 0;
    double room = (double)fs.f_bavail * (double)fs.f_frsize;
    return room >= 2.0 * (double)st.st_size + 64.0 * 1048576.0;
}

/* A new empty file for the copy: in $TMPDIR, else in /dev/shm (memory)
 * when it has room, else in /tmp; registered so that a signal removes it
 * (mcb_paths.h). */
static mcb_rc make_copy_file(mcb_copy_read *cr, mcb_err *err)
{
    const char *t = getenv("TMPDIR");
    const char *dirs[] = {t && *t ? t : NULL, "/dev/shm", "/tmp"};
    for (size_t k = 0; k < sizeof dirs / sizeof *dirs; k++) {
        if (!dirs[k] || access(dirs[k], W_OK | X_OK) != 0) continue;
        if (k == 1 && !has_room(dirs[k], cr->path)) continue;
        snprintf(cr->copy, sizeof cr->copy, "%s/mcbench-read-XXXXXX", dirs[k]);
        int fd = mkstemp(cr->copy);
        if (fd < 0) continue;
        close(fd);
        if (mcb_tmp_register(cr->copy)) {
            unlink(cr->copy);
            cr->copy[0] = '\0';
            return mcb_fail(err, MCB_E_IO, "%s: too many temporary files", cr->path);
        }
        return MCB_OK;
    }
    cr->copy[0] = '\0';
    return mcb_fail(err, MCB_E_IO, "%s: cannot create a temporary file to read it through (%s)",
                    cr->path, strerror(errno));
}

static void drop_copy_file(mcb_copy_read *cr)
{
    if (!cr->copy[0]) return;
    unlink(cr->copy);
    mcb_tmp_unregister(cr->copy);
    cr->copy[0] = '\0';
}

mcb_rc mcb_copy_read_start(const char *path, mcb_untrusted_reader fn, void *arg,
                           mcb_copy_read *cr, mcb_err *err)
{
    memset(cr, 0, sizeof *cr);
    cr->ch.pid = cr->ch.fd = -1;
    cr->path = path;
    cr->fn = fn;
    cr->arg = arg;
    mcb_rc rc = make_copy_file(cr, err);
    if (!rc) rc = mcb_isolate_probe_start(path, copy_read_child, cr, &cr->ch, err);
    if (rc) drop_copy_file(cr);
    return rc;
}

mcb_rc mcb_copy_read_finish(mcb_copy_read *cr, mcb_problem_set **out, mcb_err *err)
{
    *out = NULL;
    mcb_rc rc = mcb_isolate_probe_wait(cr->path, &cr->ch, err);
    /* our own writer's output, validated in the child: read as it is, the
     * messages naming the file the user gave */
    if (!rc) rc = read_problems_as(cr->copy, cr->path, 0, out, err);
    drop_copy_file(cr);
    return rc;
}

void mcb_copy_read_abandon(mcb_copy_read *cr)
{
    if (!cr) return;
    mcb_isolate_abandon(&cr->ch);
    drop_copy_file(cr);
}

typedef struct {
    mcb_untrusted_one fn;
    void *arg;
} one_job;

/* In the child: one problem as a set of one. */
static mcb_rc read_one(void *arg, mcb_problem_set **out, mcb_err *err)
{
    const one_job *j = arg;
    mcb_problem *P = NULL;
    *out = NULL;
    mcb_rc rc = j->fn(j->arg, &P, err);
    return rc ? rc : mcb_problem_set_of_one(&P, out, err);
}

mcb_rc mcb_read_one_isolated(const char *path, mcb_untrusted_one fn, void *arg,
                             mcb_problem **out, mcb_err *err)
{
    *out = NULL;
    one_job j = {fn, arg};
    mcb_copy_read cr;
    mcb_problem_set *S = NULL;
    mcb_rc rc = mcb_copy_read_start(path, read_one, &j, &cr, err);
    if (!rc) rc = mcb_copy_read_finish(&cr, &S, err);
    if (!rc && S->count != 1)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: read %d problems, expected one", path, S->count);
    if (!rc) {
        *out = S->items[0]; /* taken out of the set */
        S->count = 0;
    }
    mcb_problem_set_free(&S);
    return rc;
}

static mcb_rc read_validated(void *path, mcb_problem_set **out, mcb_err *err)
{
    return read_problems(path, 1, out, err);
}

mcb_rc mcb_read_problems_isolated(const char *path, mcb_problem_set **out, mcb_err *err)
{
    *out = NULL;
    mcb_copy_read cr;
    mcb_rc rc = mcb_copy_read_start(path, read_validated, (void *)path, &cr, err);
    return rc ? rc : mcb_copy_read_finish(&cr, out, err);
}

mcb_rc mcb_read_problem_files_isolated(const char *const *paths, int n, mcb_problem_set **out,
                                       mcb_err *err)
{
    for (int k = 0; k < n; k++) out[k] = NULL;
    mcb_copy_read cr[2];
    mcb_rc next = n > 0 ? mcb_copy_read_start(paths[0], read_validated, (void *)paths[0],
                                              &cr[0], err)
                        : MCB_OK;
    mcb_rc rc = MCB_OK;
    int k = 0;
    for (; k < n && !rc; k++) {
        rc = next; /* file k's child started, or why not (err holds it) */
        if (rc) break;
        /* file k + 1's child reads while this process reads file k's copy */
        mcb_err nerr;
        next = k + 1 < n ? mcb_copy_read_start(paths[k + 1], read_validated, (void *)paths[k + 1],
                                               &cr[(k + 1) & 1], &nerr)
                         : MCB_OK;
        rc = mcb_copy_read_finish(&cr[k & 1], &out[k], err);
        if (!rc && next) {
            *err = nerr;
            rc = next;
            k++;
            break;
        }
    }
    if (!rc) return MCB_OK;
    /* a child still running is abandoned (only when the next one started) */
    if (k < n && !next) mcb_copy_read_abandon(&cr[k & 1]);
    for (int j = 0; j < n; j++) mcb_problem_set_free(&out[j]);
    return rc;
}

/* ---------------------------------------------------------------- writing */

static int write_csc(hid_t g, const char *name, const mcb_csc *M)
{
    hid_t mg = mcb_h5_create_group(g, name);
    if (mg < 0) return -1;
    long shape[2] = {M->m, M->n};
    int nnz = mcb_csc_nnz(M);
    int rc = mcb_h5_attr_write_ints(mg, "shape", shape, 2) ||
             mcb_h5_write_ints(mg, "colptr", M->p, M->n + 1) ||
             mcb_h5_write_ints(mg, "rowind", M->i, nnz) ||
             mcb_h5_write_doubles(mg, "values", M->x, nnz);
    H5Gclose(mg);
    return rc;
}

/* mujoco/model as uint8 (the datasets' creation properties of mcb_h5:
 * no timestamps), deflated when HDF5 has zlib: a model holds its textures
 * (humanoid.xml: 5.8 MB, mostly a skybox gradient). */
static int write_bytes(hid_t g, const char *path, const unsigned char *x, long len)
{
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0);
    hsize_t dims[1] = {(hsize_t)len}, chunk[1] = {(hsize_t)(len < (1L << 20) ? len : 1L << 20)};
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) > 0 && H5Pset_chunk(dcpl, 1, chunk) >= 0)
        H5Pset_deflate(dcpl, 6);
    hid_t sp = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(g, path, H5T_STD_U8LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = d < 0 || H5Dwrite(d, H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0;
    if (d >= 0) H5Dclose(d);
    H5Sclose(sp);
    H5Pclose(dcpl);
    return rc ? -1 : 0;
}

static int write_mujoco(hid_t g, const mcb_mujoco *s)
{
    hid_t mg = mcb_h5_create_group(g, "mujoco");
    if (mg < 0) return -1;
    int rc = write_bytes(mg, "model", s->model, s->model_bytes) ||
             mcb_h5_write_doubles(mg, "qpos", s->qpos, s->nq) ||
             mcb_h5_write_doubles(mg, "qvel", s->qvel, s->nv) ||
             (s->na > 0 && mcb_h5_write_doubles(mg, "act", s->act, s->na)) ||
             (s->nu > 0 && mcb_h5_write_doubles(mg, "ctrl", s->ctrl, s->nu)) ||
             mcb_h5_write_doubles(mg, "qacc_warmstart", s->qacc_warmstart, s->nv) ||
             mcb_h5_write_doubles(mg, "time", &s->time, 1) ||
             (s->contacts >= 0 && mcb_h5_write_ints(mg, "contacts", &s->contacts, 1));
    H5Gclose(mg);
    return rc;
}

static int write_problem(hid_t g, const mcb_problem *P)
{
    int rc = mcb_h5_attr_write_str(g, "name", P->name) ||
             mcb_h5_attr_write_str(g, "source", P->source) ||
             mcb_h5_attr_write_str(g, "scene", P->scene) ||
             mcb_h5_attr_write_str(g, "notes", P->notes) ||
             mcb_h5_attr_write_double(g, "h", P->h) ||
             mcb_h5_attr_write_int(g, "step", P->step) ||
             mcb_h5_attr_write_str(g, "form", mcb_form_name(P->form));
    /* format 3 descriptors: written only when known */
    if (!rc && !isnan(P->mass_ratio)) rc = mcb_h5_attr_write_double(g, "mass_ratio", P->mass_ratio);
    if (!rc && !isnan(P->cond_est)) rc = mcb_h5_attr_write_double(g, "cond_est", P->cond_est);
    if (!rc && P->rank >= 0) rc = mcb_h5_attr_write_int(g, "rank", P->rank);
    if (!rc && P->rank >= 0 && !isnan(P->rank_tol))
        rc = mcb_h5_attr_write_double(g, "rank_tol", P->rank_tol);
    if (!rc && !isnan(P->psd_defect))
        rc = mcb_h5_attr_write_double(g, "psd_defect", P->psd_defect);
    if (rc) return rc;
    if (P->form == MCB_PRIMAL) {
        rc = write_csc(g, "A", P->A) || write_csc(g, "J", P->J) ||
             mcb_h5_write_doubles(g, "b", P->b, P->n) || mcb_h5_write_doubles(g, "e", P->e, P->m);
        if (!rc && P->sub_start) rc = mcb_h5_write_ints(g, "subsystems/start", P->sub_start, P->nsub + 1);
        if (!rc && P->v0) rc = mcb_h5_write_doubles(g, "init/v", P->v0, P->n);
        if (!rc && P->v_ref) rc = mcb_h5_write_doubles(g, "reference/v", P->v_ref, P->n);
    } else {
        rc = write_csc(g, "W", P->W) || mcb_h5_write_doubles(g, "q", P->q, P->m);
    }
    if (!rc && P->r) rc = mcb_h5_write_doubles(g, "r", P->r, P->m);
    if (!rc && P->mu2) rc = mcb_h5_write_doubles(g, "constraints/mu2", P->mu2, P->nblocks);
    if (!rc && P->lambda0) rc = mcb_h5_write_doubles(g, "init/lambda", P->lambda0, P->m);
    if (!rc && P->lambda_ref) rc = mcb_h5_write_doubles(g, "reference/lambda", P->lambda_ref, P->m);
    if (!rc && P->form == MCB_PRIMAL && P->nbodies > 0) {
        if (!P->Jc || !P->Jb || !P->body_parent || !P->body_sub) return -1;
        rc = write_csc(g, "bodies/Jc", P->Jc) || write_csc(g, "bodies/Jb", P->Jb) ||
             mcb_h5_write_ints(g, "bodies/parent", P->body_parent, P->nbodies) ||
             mcb_h5_write_ints(g, "bodies/subsystem", P->body_sub, P->nbodies);
    }
    if (!rc && P->form == MCB_PRIMAL && P->mujoco) rc = write_mujoco(g, P->mujoco);
    if (rc) return rc;
    int nb = P->nblocks;
    int *type = mcb_malloc((size_t)nb, sizeof(int));
    int *first = mcb_malloc((size_t)nb, sizeof(int));
    int *count = mcb_malloc((size_t)nb, sizeof(int));
    double *mu = mcb_malloc((size_t)nb, sizeof(double));
    double *k = mcb_malloc((size_t)nb, sizeof(double));
    double *alpha = mcb_malloc((size_t)nb, sizeof(double));
    rc = !type || !first || !count || !mu || !k || !alpha;
    if (!rc) {
        for (int b = 0; b < nb; b++) {
            type[b] = P->blocks[b].type;
            first[b] = P->blocks[b].row;
            count[b] = P->blocks[b].nrows;
            mu[b] = P->blocks[b].mu;
            k[b] = P->blocks[b].k;
            alpha[b] = P->blocks[b].alpha;
        }
        rc = mcb_h5_write_ints(g, "constraints/type", type, nb) ||
             mcb_h5_write_ints(g, "constraints/first_row", first, nb) ||
             mcb_h5_write_ints(g, "constraints/row_count", count, nb) ||
             mcb_h5_write_doubles(g, "constraints/mu", mu, nb) ||
             mcb_h5_write_doubles(g, "constraints/k", k, nb) ||
             mcb_h5_write_doubles(g, "constraints/alpha", alpha, nb);
    }
    free(type);
    free(first);
    free(count);
    free(mu);
    free(k);
    free(alpha);
    return rc;
}

/* Writes the file at `path` (excl: refuse an existing one); 0 or -1. */
static mcb_rc write_file(const char *path, int excl, mcb_problem *const *problems, int count)
{
    hid_t f = H5Fcreate(path, excl ? H5F_ACC_EXCL : H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return -1;
    int rc = mcb_h5_attr_write_str(f, "format", MCB_FORMAT_NAME) ||
             mcb_h5_attr_write_int(f, "format_version", MCB_FORMAT_VERSION);
    hid_t g = rc ? -1 : mcb_h5_create_group(f, "problems");
    rc = rc || g < 0;
    for (int k = 0; k < count && !rc; k++) {
        char name[32];
        snprintf(name, sizeof name, "%06d", k);
        hid_t pg = mcb_h5_create_group(g, name);
        rc = pg < 0 || write_problem(pg, problems[k]);
        if (pg >= 0) H5Gclose(pg);
    }
    if (g >= 0) H5Gclose(g);
    if (H5Fclose(f) < 0) rc = 1;
    return rc ? -1 : 0;
}

mcb_rc mcb_write_problems(const char *path, mcb_problem *const *problems, int count,
                          mcb_err *err)
{
    mcb_h5_quiet();
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    if (mcb_tmp_register(tmp)) return mcb_fail(err, MCB_E_IO, "%s: too many temporary files", path);
    int rc = write_file(tmp, 1, problems, count);
    if (!rc && rename(tmp, path) != 0) rc = 1;
    if (rc) unlink(tmp);
    mcb_tmp_unregister(tmp);
    if (rc) return mcb_fail(err, MCB_E_IO, "%s: writing failed", path);
    return MCB_OK;
}

/* mcb_io.c: problem files, HDF5 format v1 (docs/problem-format.md).
 *
 *   /                    attrs format = "mcbench-problem", format_version = 1
 *   /problems/NNNNNN     one group per problem, in name order, attrs
 *                        name, source, scene, notes, h, step, form
 *     A/ J/ (primal) or W/ (dual): CSC groups, attr shape = [rows, cols],
 *                        datasets colptr, rowind (int32), values (float64)
 *     b, e (primal) or q (dual)
 *     constraints/{type, first_row, row_count} (int32), {mu, k, alpha} (float64)
 *     subsystems/start   optional, int32, nsub + 1 entries
 *     init/{v, lambda}, reference/{v, lambda}   optional
 */
#include "mcb_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcb_h5.h"

/* ---------------------------------------------------------------- reading */

static mcb_csc *read_csc(hid_t g, const char *name, const char *ctx, mcb_err *err)
{
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
    if (mcb_h5_attr_read_ints(mg, "shape", shape, 2) != 0) {
        H5Gclose(mg);
        mcb_fail(err, MCB_E_INPUT, "%s: %s has no integer attribute shape = [rows, cols]", ctx,
                 name);
        return NULL;
    }
    if (shape[0] < 0 || shape[1] < 0 || shape[0] > 1000000000L || shape[1] > 1000000000L) {
        H5Gclose(mg);
        mcb_fail(err, MCB_E_INPUT, "%s: %s/shape = [%ld, %ld] is invalid", ctx, name, shape[0],
                 shape[1]);
        return NULL;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/colptr", name);
    int *p = mcb_h5_read_ints(g, path, shape[1] + 1, ctx, err);
    mcb_csc *M = NULL;
    if (!p) goto done;
    long nnz = p[shape[1]];
    if (nnz < 0 || p[0] != 0) {
        mcb_fail(err, MCB_E_INPUT, "%s: %s must start at 0 and end at nnz >= 0", ctx, path);
        goto done;
    }
    snprintf(path, sizeof path, "%s/rowind", name);
    long have = mcb_h5_len(g, path, ctx, err);
    if (have < 0) goto done;
    if (have != nnz) {
        mcb_fail(err, MCB_E_INPUT, "%s: %s has %ld entries but colptr ends at %ld", ctx, path,
                 have, nnz);
        goto done;
    }
    M = mcb_csc_alloc((int)shape[0], (int)shape[1], (int)nnz);
    if (!M) {
        mcb_fail(err, MCB_E_NOMEM, "%s: out of memory for %s", ctx, name);
        goto done;
    }
    memcpy(M->p, p, ((size_t)shape[1] + 1) * sizeof(int));
    int *ri = mcb_h5_read_ints(g, path, nnz, ctx, err);
    snprintf(path, sizeof path, "%s/values", name);
    double *x = ri ? mcb_h5_read_doubles(g, path, nnz, ctx, err) : NULL;
    if (!ri || !x) {
        free(ri);
        free(x);
        mcb_csc_free(&M);
        goto done;
    }
    free(M->i);
    free(M->x);
    M->i = ri;
    M->x = x;
done:
    free(p);
    H5Gclose(mg);
    return M;
}

static char *attr_str_or_empty(hid_t g, const char *name)
{
    char *s = mcb_h5_attr_read_str(g, name);
    return s ? s : mcb_strdup("");
}

static mcb_rc read_optional(hid_t g, const char *path, long len, double **out, const char *ctx,
                            mcb_err *err)
{
    *out = NULL;
    if (!mcb_h5_exists(g, path)) return MCB_OK;
    *out = mcb_h5_read_doubles(g, path, len, ctx, err);
    return *out ? MCB_OK : MCB_E_INPUT;
}

static mcb_rc read_blocks(hid_t g, mcb_problem *P, const char *ctx, mcb_err *err)
{
    long nb = mcb_h5_len(g, "constraints/type", ctx, err);
    if (nb < 0) return MCB_E_INPUT;
    int *type = mcb_h5_read_ints(g, "constraints/type", nb, ctx, err);
    int *first = type ? mcb_h5_read_ints(g, "constraints/first_row", nb, ctx, err) : NULL;
    int *count = first ? mcb_h5_read_ints(g, "constraints/row_count", nb, ctx, err) : NULL;
    double *mu = count ? mcb_h5_read_doubles(g, "constraints/mu", nb, ctx, err) : NULL;
    double *k = mu ? mcb_h5_read_doubles(g, "constraints/k", nb, ctx, err) : NULL;
    double *alpha = k ? mcb_h5_read_doubles(g, "constraints/alpha", nb, ctx, err) : NULL;
    mcb_rc rc = MCB_E_INPUT;
    if (alpha) {
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

static mcb_rc read_problem(hid_t g, const char *ctx, mcb_problem **out, mcb_err *err)
{
    mcb_rc rc = MCB_E_INPUT;
    mcb_problem *P = mcb_problem_new();
    if (!P) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    free(P->name);
    free(P->source);
    free(P->scene);
    free(P->notes);
    P->name = attr_str_or_empty(g, "name");
    P->source = attr_str_or_empty(g, "source");
    P->scene = attr_str_or_empty(g, "scene");
    P->notes = attr_str_or_empty(g, "notes");
    long step = 0;
    if (H5Aexists(g, "step") > 0 && mcb_h5_attr_read_int(g, "step", &step) != 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute step must be an integer", ctx);
        goto fail;
    }
    P->step = (int)step;
    if (H5Aexists(g, "h") > 0 && mcb_h5_attr_read_double(g, "h", &P->h) != 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute h must be a number", ctx);
        goto fail;
    }
    char *form = mcb_h5_attr_read_str(g, "form");
    if (!form) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: string attribute form (primal|dual) is missing", ctx);
        goto fail;
    }
    if (strcmp(form, "primal") == 0) P->form = MCB_PRIMAL;
    else if (strcmp(form, "dual") == 0) P->form = MCB_DUAL;
    else {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: form = '%s' is unknown (primal|dual)", ctx, form);
        free(form);
        goto fail;
    }
    free(form);

    if (P->form == MCB_PRIMAL) {
        if (!(P->A = read_csc(g, "A", ctx, err))) goto fail;
        if (!(P->J = read_csc(g, "J", ctx, err))) goto fail;
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
        if (!(P->b = mcb_h5_read_doubles(g, "b", P->n, ctx, err))) goto fail;
        if (!(P->e = mcb_h5_read_doubles(g, "e", P->m, ctx, err))) goto fail;
        if (read_optional(g, "init/v", P->n, &P->v0, ctx, err)) goto fail;
        if (read_optional(g, "reference/v", P->n, &P->v_ref, ctx, err)) goto fail;
        if (mcb_h5_exists(g, "subsystems/start")) {
            long len = mcb_h5_len(g, "subsystems/start", ctx, err);
            if (len < 2) {
                if (len >= 0)
                    mcb_fail(err, MCB_E_INPUT, "%s: subsystems/start needs at least 2 entries",
                             ctx);
                goto fail;
            }
            if (!(P->sub_start = mcb_h5_read_ints(g, "subsystems/start", len, ctx, err)))
                goto fail;
            P->nsub = (int)len - 1;
        }
    } else {
        if (!(P->W = read_csc(g, "W", ctx, err))) goto fail;
        if (P->W->m != P->W->n) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s: W is %dx%d, not square", ctx, P->W->m, P->W->n);
            goto fail;
        }
        P->m = P->W->m;
        if (!(P->q = mcb_h5_read_doubles(g, "q", P->m, ctx, err))) goto fail;
    }
    if (read_optional(g, "init/lambda", P->m, &P->lambda0, ctx, err)) goto fail;
    if (read_optional(g, "reference/lambda", P->m, &P->lambda_ref, ctx, err)) goto fail;
    if ((rc = read_blocks(g, P, ctx, err))) goto fail;
    /* partition: inferred when absent, after A's structure has been checked */
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

mcb_rc mcb_read_problems(const char *path, mcb_problem_set **out, mcb_err *err)
{
    *out = NULL;
    mcb_h5_quiet();
    if (access(path, R_OK) != 0) return mcb_fail(err, MCB_E_IO, "%s: cannot open file", path);
    if (H5Fis_hdf5(path) <= 0) return mcb_fail(err, MCB_E_INPUT, "%s: not an HDF5 file", path);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0) return mcb_fail(err, MCB_E_IO, "%s: cannot open HDF5 file", path);
    mcb_rc rc = MCB_OK;
    name_list L = {0, 0, NULL};
    hid_t g = -1;
    mcb_problem_set *S = calloc(1, sizeof *S);
    char *fmt = mcb_h5_attr_read_str(f, "format");
    long version = -1;
    if (!S) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    if (!fmt || strcmp(fmt, MCB_FORMAT_NAME) != 0) {
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: root attribute format is %s%s%s, expected '%s' (an FCLIB file? use "
                      "'mcbench import fclib')",
                      path, fmt ? "'" : "missing", fmt ? fmt : "", fmt ? "'" : "", MCB_FORMAT_NAME);
        goto done;
    }
    if (mcb_h5_attr_read_int(f, "format_version", &version) != 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: root attribute format_version is missing", path);
        goto done;
    }
    if (version != MCB_FORMAT_VERSION) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: unknown format version %ld (this mcbench reads %d)",
                      path, version, MCB_FORMAT_VERSION);
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
        snprintf(ctx, sizeof ctx, "%s: /problems/%s", path, L.names[k]);
        hid_t pg = H5Gopen2(g, L.names[k], H5P_DEFAULT);
        if (pg < 0) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s is not a group", ctx);
            break;
        }
        mcb_problem *P = NULL;
        rc = read_problem(pg, ctx, &P, err);
        H5Gclose(pg);
        if (!rc) {
            if (P->name[0] == '\0') {
                free(P->name);
                P->name = mcb_strdup(L.names[k]);
            }
            rc = mcb_problem_set_push(S, P, err);
            if (rc) mcb_problem_free(&P);
        }
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

static int write_problem(hid_t g, const mcb_problem *P)
{
    int rc = mcb_h5_attr_write_str(g, "name", P->name) ||
             mcb_h5_attr_write_str(g, "source", P->source) ||
             mcb_h5_attr_write_str(g, "scene", P->scene) ||
             mcb_h5_attr_write_str(g, "notes", P->notes) ||
             mcb_h5_attr_write_double(g, "h", P->h) ||
             mcb_h5_attr_write_int(g, "step", P->step) ||
             mcb_h5_attr_write_str(g, "form", mcb_form_name(P->form));
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
    if (!rc && P->lambda0) rc = mcb_h5_write_doubles(g, "init/lambda", P->lambda0, P->m);
    if (!rc && P->lambda_ref) rc = mcb_h5_write_doubles(g, "reference/lambda", P->lambda_ref, P->m);
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

mcb_rc mcb_write_problems(const char *path, mcb_problem *const *problems, int count,
                          mcb_err *err)
{
    mcb_h5_quiet();
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (f < 0) return mcb_fail(err, MCB_E_IO, "%s: cannot create file", path);
    int rc = mcb_h5_attr_write_str(f, "format", MCB_FORMAT_NAME) ||
             mcb_h5_attr_write_int(f, "format_version", MCB_FORMAT_VERSION);
    hid_t g = rc ? -1 : mcb_h5_create_group(f, "problems");
    rc = rc || g < 0;
    for (int k = 0; k < count && !rc; k++) {
        char name[32];
        snprintf(name, sizeof name, "%06d", k);
        hid_t pg = H5Gcreate2(g, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        rc = pg < 0 || write_problem(pg, problems[k]);
        if (pg >= 0) H5Gclose(pg);
    }
    if (g >= 0) H5Gclose(g);
    if (H5Fclose(f) < 0) rc = 1;
    if (rc || rename(tmp, path) != 0) {
        unlink(tmp);
        return mcb_fail(err, MCB_E_IO, "%s: writing failed", path);
    }
    return MCB_OK;
}

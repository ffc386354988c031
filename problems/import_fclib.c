/* import_fclib.c: FCLIB problems via libfclib (import_fclib.h, docs/fclib.md).
 *
 *   global (M, H, G, f, w, mu)  ->  primal: A = M, b = f, J = H^T, e = w
 *   local  (W, V, R, q, s, mu)  ->  dual:   W, q
 * every contact a 3-row block [n, t1, t2] with its mu. Sparse storage:
 * nz >= 0 triplets (i = row, p = column on disk), nz = -1 CSC, nz = -2 CSR.
 * libfclib exits the process on some malformed input, so the structure is
 * checked with HDF5 first. */
#include <fclib.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "problems/import_fclib.h"
#include "lib/mcb_h5.h"
#include "lib/mcb_untrusted.h"

static const char *mat_fields[] = {"m", "n", "nz", "nzmax", "p", "i", "x"};

/* Checks a matrix group's datasets and their lengths against its header. */
static mcb_rc check_matrix_group(hid_t f, const char *grp, const char *ctx, mcb_err *err)
{
    char path[256];
    for (size_t k = 0; k < sizeof mat_fields / sizeof mat_fields[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", grp, mat_fields[k]);
        if (!mcb_h5_exists(f, path))
            return mcb_fail(err, MCB_E_INPUT, "%s: dataset %s is missing", ctx, path);
    }
    int hdr[4];
    for (int k = 0; k < 4; k++) {
        snprintf(path, sizeof path, "%s/%s", grp, mat_fields[k]);
        int *v = NULL;
        mcb_rc rc = mcb_h5_read_ints(f, path, 1, ctx, &v, err);
        if (rc) return rc;
        hdr[k] = v[0];
        free(v);
    }
    int m = hdr[0], n = hdr[1], nz = hdr[2], nzmax = hdr[3];
    if (m < 0 || n < 0 || nzmax < 0 || nz < -2 || (nz >= 0 && nz > nzmax))
        return mcb_fail(err, MCB_E_INPUT, "%s: %s has an invalid header (m %d, n %d, nz %d, nzmax %d)",
                        ctx, grp, m, n, nz, nzmax);
    long need_p = nz >= 0 ? nz : nz == -1 ? (long)n + 1 : (long)m + 1;
    long need_ix = nz >= 0 ? nz : 0;
    snprintf(path, sizeof path, "%s/p", grp);
    long lp = -1, li = -1, lx = -1;
    if (mcb_h5_len(f, path, ctx, &lp, err)) return MCB_E_INPUT;
    snprintf(path, sizeof path, "%s/i", grp);
    if (mcb_h5_len(f, path, ctx, &li, err)) return MCB_E_INPUT;
    snprintf(path, sizeof path, "%s/x", grp);
    if (mcb_h5_len(f, path, ctx, &lx, err)) return MCB_E_INPUT;
    if (lp < need_p || li < need_ix || lx < need_ix || li != lx)
        return mcb_fail(err, MCB_E_INPUT, "%s: %s/p, i or x is shorter than its header says", ctx,
                        grp);
    return MCB_OK;
}

/* fclib_matrix -> CSC, with every index checked. */
static mcb_csc *to_csc(const struct fclib_matrix *M, const char *ctx, const char *name,
                       mcb_err *err)
{
    int m = M->m, n = M->n;
    mcb_csc *A = NULL;
    if (M->nz >= 0) { /* triplets: i = row, p = column */
        A = mcb_csc_from_triplets(m, n, M->nz, M->i, M->p, M->x);
        if (!A) mcb_fail(err, MCB_E_INPUT, "%s: %s has a triplet index out of range", ctx, name);
        return A;
    }
    int outer = M->nz == -1 ? n : m, inner = M->nz == -1 ? m : n;
    int nnz = M->p[outer];
    if (M->p[0] != 0 || nnz < 0 || nnz > M->nzmax) {
        mcb_fail(err, MCB_E_INPUT, "%s: %s has invalid compressed pointers", ctx, name);
        return NULL;
    }
    for (int k = 0; k < outer; k++)
        if (M->p[k + 1] < M->p[k]) {
            mcb_fail(err, MCB_E_INPUT, "%s: %s pointers decrease at %d", ctx, name, k);
            return NULL;
        }
    int *ri = mcb_malloc((size_t)nnz, sizeof(int)), *ci = mcb_malloc((size_t)nnz, sizeof(int));
    if (ri && ci) {
        for (int o = 0; o < outer; o++)
            for (int k = M->p[o]; k < M->p[o + 1]; k++) {
                int a = M->i[k];
                if (a < 0 || a >= inner) a = -1; /* caught by from_triplets */
                if (M->nz == -1) {
                    ri[k] = a;
                    ci[k] = o;
                } else {
                    ri[k] = o;
                    ci[k] = a;
                }
            }
        A = mcb_csc_from_triplets(m, n, nnz, ri, ci, M->x);
        if (!A) mcb_fail(err, MCB_E_INPUT, "%s: %s has an index out of range", ctx, name);
    } else {
        mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    free(ri);
    free(ci);
    return A;
}

/* M stored as one triangle: mirror it (FCLIB does not say which is stored). */
static mcb_csc *symmetrize_if_triangular(mcb_csc *M)
{
    int upper = 1, lower = 1, nnz = mcb_csc_nnz(M);
    for (int j = 0; j < M->n; j++)
        for (int k = M->p[j]; k < M->p[j + 1]; k++) {
            if (M->i[k] > j) upper = 0;
            if (M->i[k] < j) lower = 0;
        }
    if ((!upper && !lower) || (upper && lower)) return M;
    int *ri = mcb_malloc(2 * (size_t)nnz, sizeof(int)), *ci = mcb_malloc(2 * (size_t)nnz, sizeof(int));
    double *x = mcb_malloc(2 * (size_t)nnz, sizeof(double));
    mcb_csc *S = NULL;
    if (ri && ci && x) {
        int t = 0;
        for (int j = 0; j < M->n; j++)
            for (int k = M->p[j]; k < M->p[j + 1]; k++) {
                ri[t] = M->i[k];
                ci[t] = j;
                x[t++] = M->x[k];
                if (M->i[k] != j) {
                    ri[t] = j;
                    ci[t] = M->i[k];
                    x[t++] = M->x[k];
                }
            }
        S = mcb_csc_from_triplets(M->m, M->n, t, ri, ci, x);
    }
    free(ri);
    free(ci);
    free(x);
    if (!S) return M;
    mcb_csc_free(&M);
    return S;
}

/* libfclib exits on some spacedim values: check it first. */
static mcb_rc check_spacedim(hid_t f, const char *ds, const char *path, mcb_err *err)
{
    int *sd = NULL;
    mcb_rc rc = mcb_h5_read_ints(f, ds, 1, path, &sd, err);
    if (rc) return rc;
    int v = sd[0];
    free(sd);
    if (v != 3)
        return mcb_fail(err, MCB_E_INPUT, "%s: /%s = %d, only 3D is supported", path, ds, v);
    return MCB_OK;
}

static mcb_rc contact_blocks(mcb_problem *P, const double *mu, int nc)
{
    P->nblocks = nc;
    P->blocks = mcb_calloc((size_t)nc, sizeof(mcb_block));
    if (!P->blocks) return MCB_E_NOMEM;
    for (int c = 0; c < nc; c++)
        P->blocks[c] = (mcb_block){MCB_CONTACT, 3 * c, 3, mu[c], 0.0, 0.0};
    return MCB_OK;
}

static double *dup_or_null(const double *x, int n)
{
    if (!x) return NULL;
    double *y = mcb_malloc((size_t)n, sizeof(double));
    if (y) memcpy(y, x, (size_t)n * sizeof(double));
    return y;
}

static void set_meta(mcb_problem *P, const char *path, const struct fclib_info *info)
{
    char *copy = mcb_strdup(path);
    char *base = copy ? basename(copy) : NULL;
    if (base) {
        char *dot = strrchr(base, '.');
        if (dot) *dot = '\0';
        free(P->name);
        P->name = mcb_strdup(base);
    }
    free(copy);
    char buf[4200];
    snprintf(buf, sizeof buf, "fclib:%s", path);
    free(P->source);
    P->source = mcb_strdup(buf);
    if (info && info->title) {
        free(P->scene);
        P->scene = mcb_strdup(info->title);
    }
    if (info && info->description) {
        free(P->notes);
        P->notes = mcb_strdup(info->description);
    }
}

static mcb_rc import_global(const char *path, hid_t f, mcb_problem *P, mcb_err *err)
{
    const char *ctx = path;
    mcb_rc rc;
    if (mcb_h5_exists(f, "fclib_global/G"))
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: /fclib_global/G: problems with an equality part (G, b) are not "
                        "supported yet", path);
    if ((rc = check_matrix_group(f, "fclib_global/M", ctx, err))) return rc;
    if ((rc = check_matrix_group(f, "fclib_global/H", ctx, err))) return rc;
    const char *vecs[] = {"fclib_global/vectors/f", "fclib_global/vectors/w",
                          "fclib_global/vectors/mu", "fclib_global/spacedim"};
    for (int k = 0; k < 4; k++)
        if (!mcb_h5_exists(f, vecs[k]))
            return mcb_fail(err, MCB_E_INPUT, "%s: dataset /%s is missing", path, vecs[k]);
    if ((rc = check_spacedim(f, "fclib_global/spacedim", path, err))) return rc;
    struct fclib_global *g = fclib_read_global(path);
    if (!g) return mcb_fail(err, MCB_E_INPUT, "%s: libfclib cannot read /fclib_global", path);
    rc = MCB_OK;
    if (g->spacedim != 3) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: /fclib_global/spacedim = %d, only 3D is supported",
                      path, g->spacedim);
        goto done;
    }
    int n = g->M->n, m = g->H->n;
    if (g->M->m != n || g->H->m != n || m % 3 != 0) {
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: dimension mismatch: M is %dx%d, H is %dx%d (H must be n x 3 n_c)", path,
                      g->M->m, g->M->n, g->H->m, g->H->n);
        goto done;
    }
    long lf = -1, lw = -1, lm = -1;
    if (mcb_h5_len(f, "fclib_global/vectors/f", ctx, &lf, err) ||
        mcb_h5_len(f, "fclib_global/vectors/w", ctx, &lw, err) ||
        mcb_h5_len(f, "fclib_global/vectors/mu", ctx, &lm, err)) {
        rc = MCB_E_INPUT;
        goto done;
    }
    if (lf != n || lw != m || lm != m / 3) {
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: dimension mismatch: f has %ld entries (n = %d), w %ld (m = %d), mu %ld "
                      "(contacts = %d)", path, lf, n, lw, m, lm, m / 3);
        goto done;
    }
    P->form = MCB_PRIMAL;
    P->n = n;
    P->m = m;
    mcb_csc *H = to_csc(g->H, path, "/fclib_global/H", err);
    if (!H) {
        rc = MCB_E_INPUT;
        goto done;
    }
    P->J = mcb_csc_transpose(H);
    mcb_csc_free(&H);
    P->A = to_csc(g->M, path, "/fclib_global/M", err);
    if (!P->A || !P->J) {
        rc = MCB_E_INPUT;
        goto done;
    }
    P->A = symmetrize_if_triangular(P->A);
    P->b = dup_or_null(g->f, n);
    P->e = dup_or_null(g->w, m);
    if (!P->b || !P->e || contact_blocks(P, g->mu, m / 3)) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    set_meta(P, path, g->info);
done:
    fclib_delete_global(g);
    free(g);
    return rc;
}

/* W = H^T M^-1 H is symmetric; some FCLIB files store it with rounding
 * noise above mcbench's symmetry tolerance (Capsules: 1.3e-3 relative).
 * Such a W is replaced by (W + W^T) / 2, and the notes say so and by how
 * much; validation then checks the result like any dual problem. */
static mcb_rc import_local(const char *path, hid_t f, mcb_problem *P, mcb_err *err)
{
    mcb_rc rc;
    if (mcb_h5_exists(f, "fclib_local/V") || mcb_h5_exists(f, "fclib_local/R"))
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: /fclib_local/V, R: problems with an equality part are not supported "
                        "yet", path);
    if ((rc = check_matrix_group(f, "fclib_local/W", path, err))) return rc;
    const char *vecs[] = {"fclib_local/vectors/q", "fclib_local/vectors/mu",
                          "fclib_local/spacedim"};
    for (int k = 0; k < 3; k++)
        if (!mcb_h5_exists(f, vecs[k]))
            return mcb_fail(err, MCB_E_INPUT, "%s: dataset /%s is missing", path, vecs[k]);
    if ((rc = check_spacedim(f, "fclib_local/spacedim", path, err))) return rc;
    struct fclib_local *l = fclib_read_local(path);
    if (!l) return mcb_fail(err, MCB_E_INPUT, "%s: libfclib cannot read /fclib_local", path);
    rc = MCB_OK;
    if (l->spacedim != 3) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: /fclib_local/spacedim = %d, only 3D is supported",
                      path, l->spacedim);
        goto done;
    }
    int m = l->W->m;
    long lq = -1, lm = -1;
    if (mcb_h5_len(f, "fclib_local/vectors/q", path, &lq, err) ||
        mcb_h5_len(f, "fclib_local/vectors/mu", path, &lm, err)) {
        rc = MCB_E_INPUT;
        goto done;
    }
    if (l->W->n != m || m % 3 != 0 || lq != m || lm != m / 3) {
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: dimension mismatch: W is %dx%d, q has %ld entries, mu %ld", path, m,
                      l->W->n, lq, lm);
        goto done;
    }
    P->form = MCB_DUAL;
    P->m = m;
    P->W = to_csc(l->W, path, "/fclib_local/W", err);
    if (!P->W) {
        rc = MCB_E_INPUT;
        goto done;
    }
    P->q = dup_or_null(l->q, m);
    if (!P->q || contact_blocks(P, l->mu, m / 3)) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    set_meta(P, path, l->info);
    if ((rc = mcb_problem_symmetrize_w(P, err))) goto done;
done:
    fclib_delete_local(l);
    free(l);
    return rc;
}

static mcb_rc import_fclib(const char *path, mcb_problem **out, mcb_err *err)
{
    *out = NULL;
    hid_t f = mcb_h5_open_ro(path, err);
    if (f < 0) return MCB_E_INPUT;
    mcb_problem *P = mcb_problem_new();
    mcb_rc rc;
    if (!P) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    else if (mcb_h5_exists(f, "rolling_fclib_local") || mcb_h5_exists(f, "rolling_fclib_global"))
        rc = mcb_fail(err, MCB_E_INPUT, "%s: rolling-friction problems are not supported yet", path);
    else if (mcb_h5_exists(f, "fclib_global")) rc = import_global(path, f, P, err);
    else if (mcb_h5_exists(f, "fclib_local")) rc = import_local(path, f, P, err);
    else
        rc = mcb_fail(err, MCB_E_INPUT, "%s: neither /fclib_global nor /fclib_local: not an FCLIB file",
                      path);
    H5Fclose(f);
    return mcb_problem_finish_import(P, path, rc, out, err);
}

static mcb_rc import_in_child(void *path, mcb_problem **out, mcb_err *err)
{
    return import_fclib(path, out, err);
}

mcb_rc mcb_import_fclib(const char *path, mcb_problem **out, mcb_err *err)
{
    /* only the child parses the file; this process reads its clean copy */
    return mcb_read_one_isolated(path, import_in_child, (void *)path, out, err);
}

mcb_rc mcb_import_fclib_unisolated(const char *path, mcb_problem **out, mcb_err *err)
{
    return import_fclib(path, out, err);
}

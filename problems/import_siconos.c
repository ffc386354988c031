/* import_siconos.c: Siconos numerics .dat problem files -> our problems,
 * through Siconos' own readers (docs/formats.md):
 *
 *   local  (fc3d:  u = M r + q)                     ->  dual:   W = M, q
 *   global (gfc3d: M v = q + H r, u = H^T v + b)    ->  primal: A = M, J = H^T,
 *                                                              b = q, e = b
 * every contact a 3-row block [n, t1, t2] with its mu.
 *
 * The steps: the file is loaded into memory with a sentinel value appended
 * after its end and handed to frictionContact_newFromFile or
 * globalFrictionContact_newFromFile through fmemopen, so that a reader that
 * runs past the end of the file (its fscanf calls do not report it) is seen
 * by its stream position; the reader's sizes are checked against each
 * other; its matrices (dense, sparse-block or sparse) are converted to CSC
 * without their explicit zeros; a local W off symmetry by more than
 * MCB_SYM_TOL is replaced by (W + W^T) / 2 and the notes say by how much;
 * then the problem is validated like any other. Siconos' readers do not
 * check their input (a bad size is a huge allocation or a crash), so the
 * whole import runs only in an isolated child, which hands the problem back
 * as a clean problem file (mcb_read_one_isolated, lib/mcb_untrusted.h).
 * Without Siconos (MCB_HAVE_SICONOS undefined) only the refusal remains. */
#ifdef MCB_HAVE_SICONOS
#include "CSparseMatrix_internal.h" /* first: Siconos' 64-bit sparse indices */
#endif

#include "problems/import_siconos.h"

#include <ctype.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_untrusted.h"

#ifdef MCB_HAVE_SICONOS
#include "FrictionContactProblem.h"
#include "GlobalFrictionContactProblem.h"
#include "NumericsMatrix.h"
#include "NumericsSparseMatrix.h"
#endif

int mcb_siconos_form_from_name(const char *name)
{
    if (!name) return -1;
    if (!strcmp(name, "auto")) return MCB_SICONOS_AUTO;
    if (!strcmp(name, "local")) return MCB_SICONOS_LOCAL;
    if (!strcmp(name, "global")) return MCB_SICONOS_GLOBAL;
    return -1;
}

#ifndef MCB_HAVE_SICONOS

int mcb_import_siconos_available(void) { return 0; }

mcb_rc mcb_import_siconos(const char *path, int form, mcb_problem **out, mcb_err *err)
{
    (void)form;
    if (out) *out = NULL;
    return mcb_fail(err, MCB_E_INPUT,
                    "%s: this mcbench was built without Siconos numerics, whose readers 'import "
                    "siconos' uses (install the Debian package libsiconos-numerics-dev and "
                    "rebuild)", path);
}

#else

int mcb_import_siconos_available(void) { return 1; }

/* The base name without its extension. */
static char *stem_of(const char *path)
{
    char *copy = mcb_strdup(path), *name = NULL;
    if (copy) {
        char *base = basename(copy);
        char *dot = strrchr(base, '.');
        if (dot && dot != base) *dot = '\0';
        name = mcb_strdup(base);
    }
    free(copy);
    return name;
}

/* auto: global for "GFC..." or "...global...", local otherwise. */
static int form_by_name(const char *path)
{
    char *s = stem_of(path);
    if (!s) return MCB_SICONOS_LOCAL;
    for (char *c = s; *c; c++) *c = (char)tolower((unsigned char)*c);
    int global = !strncmp(s, "gfc", 3) || strstr(s, "global") != NULL;
    free(s);
    return global ? MCB_SICONOS_GLOBAL : MCB_SICONOS_LOCAL;
}

/* The file's bytes followed by "\n0\n": *len_out is the file's own length. */
static char *load_with_sentinel(const char *path, long *len_out, mcb_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return mcb_fail(err, MCB_E_INPUT, "%s: cannot open the file", path), NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return mcb_fail(err, MCB_E_INPUT, "%s: cannot read the file (not a regular file?)",
                        path), NULL;
    }
    char *buf = mcb_malloc((size_t)len + 4, 1);
    if (!buf) {
        fclose(f);
        return mcb_fail(err, MCB_E_NOMEM, "%s: out of memory loading the file", path), NULL;
    }
    size_t got = fread(buf, 1, (size_t)len, f);
    fclose(f);
    if (got != (size_t)len) {
        free(buf);
        return mcb_fail(err, MCB_E_INPUT, "%s: cannot read the file", path), NULL;
    }
    memcpy(buf + len, "\n0\n", 4);
    *len_out = len;
    return buf;
}

/* A NumericsMatrix (dense, sparse-block or sparse) as CSC without its
 * explicit zeros. */
static mcb_csc *to_csc(NumericsMatrix *N, const char *path, const char *name, mcb_err *err)
{
    int m = N->size0, n = N->size1;
    long cap = 0;
    CSparseMatrix *T = NULL;
    if (N->storageType == NM_DENSE) {
        if (!N->matrix0) return mcb_fail(err, MCB_E_INPUT, "%s: %s has no values", path, name), NULL;
        cap = (long)m * n;
    } else {
        T = NM_triplet(N);
        if (!T || T->nz < 0)
            return mcb_fail(err, MCB_E_INPUT, "%s: Siconos cannot convert %s to triplets", path,
                            name), NULL;
        cap = (long)T->nz;
    }
    int *ri = mcb_malloc((size_t)(cap > 0 ? cap : 1), sizeof(int));
    int *ci = mcb_malloc((size_t)(cap > 0 ? cap : 1), sizeof(int));
    double *x = mcb_malloc((size_t)(cap > 0 ? cap : 1), sizeof(double));
    mcb_csc *A = NULL;
    int nz = 0, bad = 0;
    if (ri && ci && x) {
        for (long k = 0; k < cap; k++) {
            long r, c;
            double v;
            if (T) r = (long)T->i[k], c = (long)T->p[k], v = T->x[k];
            else r = k % m, c = k / m, v = N->matrix0[k]; /* column-major */
            if (v == 0.0) continue;
            if (r < 0 || r >= m || c < 0 || c >= n) bad = 1;
            ri[nz] = (int)r, ci[nz] = (int)c, x[nz++] = v;
        }
        if (!bad) A = mcb_csc_from_triplets(m, n, nz, ri, ci, x);
        if (bad) mcb_fail(err, MCB_E_INPUT, "%s: %s has an index out of range", path, name);
        else if (!A) mcb_fail(err, MCB_E_NOMEM, "out of memory");
    } else {
        mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    free(ri);
    free(ci);
    free(x);
    return A;
}

static double *copy_vec(const double *x, int n)
{
    double *y = mcb_malloc((size_t)(n > 0 ? n : 1), sizeof(double));
    if (y && x && n > 0) memcpy(y, x, (size_t)n * sizeof(double));
    return y;
}

/* Dimension and contact count: 3D only, at least one contact. */
static mcb_rc check_dims(const char *path, const char *as, int d, int nc, mcb_err *err)
{
    if (d == 2)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: a 2D friction-contact problem (dimension 2, %d contacts): mcbench "
                        "has 3D contacts only", path, nc);
    if (d != 3)
        return mcb_fail(err, MCB_E_INPUT, "%s: read as %s, the dimension is %d (3 expected): "
                        "not a Siconos %s friction-contact file?", path, as, d, as);
    if (nc < 1 || nc > (1 << 28))
        return mcb_fail(err, MCB_E_INPUT, "%s: read as %s, the number of contacts is %d", path,
                        as, nc);
    return MCB_OK;
}

static mcb_rc contact_blocks(mcb_problem *P, const double *mu, int nc)
{
    P->nblocks = nc;
    P->blocks = mcb_calloc((size_t)nc, sizeof(mcb_block));
    if (!P->blocks) return MCB_E_NOMEM;
    for (int c = 0; c < nc; c++) P->blocks[c] = (mcb_block){MCB_CONTACT, 3 * c, 3, mu[c], 0, 0};
    return MCB_OK;
}

static mcb_rc from_local(const char *path, FrictionContactProblem *S, mcb_problem *P,
                         mcb_err *err)
{
    mcb_rc rc = check_dims(path, "local", S->dimension, S->numberOfContacts, err);
    if (rc) return rc;
    int m = 3 * S->numberOfContacts;
    if (!S->M || S->M->size0 != m || S->M->size1 != m)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: read as local, W is %dx%d for %d contacts (%dx%d expected): a global "
                        "problem? (--form global)", path, S->M ? S->M->size0 : 0,
                        S->M ? S->M->size1 : 0, S->numberOfContacts, m, m);
    P->form = MCB_DUAL;
    P->m = m;
    if (!(P->W = to_csc(S->M, path, "W", err))) return MCB_E_INPUT;
    if (!(P->q = copy_vec(S->q, m)) || contact_blocks(P, S->mu, S->numberOfContacts))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    return MCB_OK;
}

static mcb_rc from_global(const char *path, GlobalFrictionContactProblem *S, mcb_problem *P,
                          mcb_err *err)
{
    mcb_rc rc = check_dims(path, "global", S->dimension, S->numberOfContacts, err);
    if (rc) return rc;
    int m = 3 * S->numberOfContacts;
    int n = S->M ? S->M->size0 : 0;
    if (!S->M || !S->H || n < 1 || S->M->size1 != n || S->H->size0 != n || S->H->size1 != m)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: read as global, M is %dx%d and H %dx%d for %d contacts (n x n and "
                        "n x %d expected): a local problem? (--form local)", path, n,
                        S->M ? S->M->size1 : 0, S->H ? S->H->size0 : 0, S->H ? S->H->size1 : 0,
                        S->numberOfContacts, m);
    P->form = MCB_PRIMAL;
    P->n = n;
    P->m = m;
    mcb_csc *H = to_csc(S->H, path, "H", err);
    if (!H) return MCB_E_INPUT;
    P->J = mcb_csc_transpose(H);
    mcb_csc_free(&H);
    if (!P->J) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!(P->A = to_csc(S->M, path, "M", err))) return MCB_E_INPUT;
    if (!(P->b = copy_vec(S->q, n)) || !(P->e = copy_vec(S->b, m)) ||
        contact_blocks(P, S->mu, S->numberOfContacts))
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    return MCB_OK;
}

/* A local W off symmetry (Siconos' files store what the simulator
 * assembled) becomes (W + W^T) / 2; the notes say by how much. */
/* Names, source and notes of an imported problem. */
static mcb_rc set_meta(mcb_problem *P, const char *path, int form)
{
    char buf[4300];
    free(P->name);
    free(P->source);
    free(P->scene);
    free(P->notes);
    P->name = stem_of(path);
    snprintf(buf, sizeof buf, "siconos:%s", path);
    P->source = mcb_strdup(buf);
    P->scene = mcb_strdup("siconos");
    snprintf(buf, sizeof buf, "Siconos numerics .dat file read as a %s problem (%s)",
             form == MCB_SICONOS_GLOBAL ? "global" : "local",
             form == MCB_SICONOS_GLOBAL ? "globalFrictionContact_newFromFile"
                                        : "frictionContact_newFromFile");
    P->notes = mcb_strdup(buf);
    return P->name && P->source && P->scene && P->notes ? MCB_OK : MCB_E_NOMEM;
}

typedef struct {
    const char *path;
    int form;
} import_job;

static mcb_rc import_siconos(const char *path, int form, mcb_problem **out, mcb_err *err)
{
    *out = NULL;
    if (form == MCB_SICONOS_AUTO) form = form_by_name(path);
    if (form != MCB_SICONOS_LOCAL && form != MCB_SICONOS_GLOBAL)
        return mcb_fail(err, MCB_E_INPUT, "%s: unknown form %d", path, form);
    long len = 0;
    char *buf = load_with_sentinel(path, &len, err);
    if (!buf) return err && strstr(err->msg, "out of memory") ? MCB_E_NOMEM : MCB_E_INPUT;
    FILE *f = fmemopen(buf, (size_t)len + 3, "r");
    if (!f) {
        free(buf);
        return mcb_fail(err, MCB_E_NOMEM, "%s: cannot open a memory stream", path);
    }
    FrictionContactProblem *L = NULL;
    GlobalFrictionContactProblem *G = NULL;
    if (form == MCB_SICONOS_LOCAL) L = frictionContact_newFromFile(f);
    else G = globalFrictionContact_newFromFile(f);
    long pos = ftell(f);
    fclose(f);
    free(buf);
    const char *as = form == MCB_SICONOS_LOCAL ? "local" : "global";
    mcb_problem *P = mcb_problem_new();
    mcb_rc rc = MCB_OK;
    if (!P) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    else if (!L && !G)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: Siconos' %s reader cannot read the file", path, as);
    else if (pos > len + 1) /* the reader took the sentinel: values are missing */
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: read as %s, the file ends before its last value (truncated, or not "
                      "a %s problem%s)", path, as, as,
                      form == MCB_SICONOS_LOCAL ? ": --form global?" : ": --form local?");
    else if (L) rc = from_local(path, L, P, err);
    else rc = from_global(path, G, P, err);
    if (L) frictionContactProblem_free(L);
    if (G) globalFrictionContact_free(G);
    if (!rc && set_meta(P, path, form)) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc && P->form == MCB_DUAL) rc = mcb_problem_symmetrize_w(P, err);
    return mcb_problem_finish_import(P, path, rc, out, err);
}

static mcb_rc import_in_child(void *arg, mcb_problem **out, mcb_err *err)
{
    const import_job *job = arg;
    return import_siconos(job->path, job->form, out, err);
}

mcb_rc mcb_import_siconos(const char *path, int form, mcb_problem **out, mcb_err *err)
{
    /* only the child parses the file; this process reads its clean copy */
    import_job job = {path, form};
    return mcb_read_one_isolated(path, import_in_child, &job, out, err);
}

#endif

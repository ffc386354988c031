/* test_io.c: exact round trips of the problem format, and every class of
 * bad input: each must fail with a message naming the file, the dataset and
 * the reason, never crash. Bad files are made by writing a good file and
 * then damaging one dataset or attribute with the HDF5 API. */
#include <check.h>

#include "check_main.h"
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fixtures.h"
#include "lib/mcb_h5.h"
#include "lib/mcb_io.h"
#include "lib/mcb_sha256.h"
#include "lib/mcb_untrusted.h"

static char path[256];

static void write_good(void)
{
    snprintf(path, sizeof path, "/tmp/mcb_test_io_%ld.h5", (long)getpid());
    mcb_problem *P[2] = {fx_mixed(), fx_point_contact_dual(FX_SLIP)};
    P[0]->v0 = calloc(6, sizeof(double));
    P[0]->v0[2] = 0.25;
    ck_assert_int_eq(mcb_write_problems(path, P, 2, NULL), MCB_OK);
    mcb_problem_free(&P[0]);
    mcb_problem_free(&P[1]);
}

static void arrays_equal(const double *a, const double *b, int n)
{
    if (!a || !b) {
        ck_assert_ptr_eq(a, b);
        return;
    }
    ck_assert_int_eq(memcmp(a, b, sizeof(double) * (size_t)n), 0);
}

static void csc_equal(const mcb_csc *A, const mcb_csc *B)
{
    if (!A || !B) {
        ck_assert_ptr_eq(A, B);
        return;
    }
    ck_assert_int_eq(A->m, B->m);
    ck_assert_int_eq(A->n, B->n);
    ck_assert_int_eq(memcmp(A->p, B->p, sizeof(int) * (size_t)(A->n + 1)), 0);
    int nnz = mcb_csc_nnz(A);
    ck_assert_int_eq(memcmp(A->i, B->i, sizeof(int) * (size_t)nnz), 0);
    arrays_equal(A->x, B->x, nnz);
}

START_TEST(round_trip_exact)
{
    mcb_problem *orig[3] = {fx_mixed(), fx_point_contact_dual(FX_STICK), fx_small_stack()};
    orig[0]->lambda0 = calloc(6, sizeof(double));
    orig[0]->lambda0[3] = 1.0 / 3.0;
    orig[0]->h = 1.0 / 240;
    orig[0]->step = 7;
    free(orig[0]->notes);
    orig[0]->notes = strdup("free text, with \"quotes\" and ünïcode");
    snprintf(path, sizeof path, "/tmp/mcb_test_rt_%ld.h5", (long)getpid());
    ck_assert_int_eq(mcb_write_problems(path, orig, 3, NULL), MCB_OK);
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_msg(mcb_read_problems(path, &S, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(S->count, 3);
    for (int k = 0; k < 3; k++) {
        const mcb_problem *a = orig[k], *b = S->items[k];
        ck_assert_str_eq(a->name, b->name);
        ck_assert_str_eq(a->notes, b->notes);
        ck_assert_str_eq(a->source, b->source);
        ck_assert_int_eq(a->form, b->form);
        ck_assert_int_eq(a->n, b->n);
        ck_assert_int_eq(a->m, b->m);
        ck_assert(a->h == b->h);
        ck_assert_int_eq(a->step, b->step);
        csc_equal(a->A, b->A);
        csc_equal(a->J, b->J);
        csc_equal(a->W, b->W);
        arrays_equal(a->b, b->b, a->n);
        arrays_equal(a->e, b->e, a->m);
        arrays_equal(a->q, b->q, a->m);
        arrays_equal(a->v0, b->v0, a->n);
        arrays_equal(a->lambda0, b->lambda0, a->m);
        arrays_equal(a->v_ref, b->v_ref, a->n);
        arrays_equal(a->lambda_ref, b->lambda_ref, a->m);
        ck_assert_int_eq(a->nblocks, b->nblocks);
        ck_assert_int_eq(memcmp(a->blocks, b->blocks, sizeof(mcb_block) * (size_t)a->nblocks), 0);
        ck_assert_int_eq(a->nsub, b->nsub);
        if (a->nsub)
            ck_assert_int_eq(memcmp(a->sub_start, b->sub_start, sizeof(int) * (size_t)(a->nsub + 1)), 0);
    }
    mcb_problem_set_free(&S);
    for (int k = 0; k < 3; k++) mcb_problem_free(&orig[k]);
    unlink(path);
}
END_TEST

/* --- damage helpers -------------------------------------------------- */

static hid_t open_rw(void) { return H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT); }

static void replace_doubles(const char *ds, const double *x, long n)
{
    hid_t f = open_rw();
    H5Ldelete(f, ds, H5P_DEFAULT);
    ck_assert_int_eq(mcb_h5_write_doubles(f, ds, x, n), 0);
    H5Fclose(f);
}

static void replace_ints(const char *ds, const int *x, long n)
{
    hid_t f = open_rw();
    H5Ldelete(f, ds, H5P_DEFAULT);
    ck_assert_int_eq(mcb_h5_write_ints(f, ds, x, n), 0);
    H5Fclose(f);
}

static void delete_link(const char *ds)
{
    hid_t f = open_rw();
    ck_assert_int_ge(H5Ldelete(f, ds, H5P_DEFAULT), 0);
    H5Fclose(f);
}

static void expect_error(const char *needle1, const char *needle2)
{
    mcb_problem_set *S = NULL;
    mcb_err err;
    err.msg[0] = '\0';
    mcb_rc rc = mcb_read_problems(path, &S, &err);
    ck_assert_int_ne(rc, MCB_OK);
    ck_assert_ptr_null(S);
    ck_assert_msg(strstr(err.msg, path) != NULL, "message lacks the file: %s", err.msg);
    ck_assert_msg(strstr(err.msg, needle1) != NULL, "message lacks '%s': %s", needle1, err.msg);
    if (needle2)
        ck_assert_msg(strstr(err.msg, needle2) != NULL, "message lacks '%s': %s", needle2, err.msg);
    unlink(path);
}

#define G "/problems/000000/"

/* Each case damages the mixed problem (6 DOFs, A diagonal, 4 blocks). */
START_TEST(bad_input_classes)
{
    write_good();
    double nan6[6] = {0, 1, NAN, 0, 0, 0};
    int ibad[3];
    switch (_i) {
    case 0: delete_link(G "b"); expect_error("b", "missing"); break;
    case 1: replace_doubles(G "b", nan6, 5); expect_error("b", "5 elements"); break;
    case 2: replace_doubles(G "b", nan6, 6); expect_error("b[2]", "not finite"); break;
    case 3: { /* row index out of range in A */
        int ri[6] = {0, 1, 2, 3, 4, 9};
        replace_ints(G "A/rowind", ri, 6);
        expect_error("A/rowind", "out of range");
        break;
    }
    case 4: { /* unsorted rows in a column: make A's column 0 hold rows 1, 0 */
        int cp[7] = {0, 2, 2, 3, 4, 5, 6};
        int ri[6] = {1, 0, 2, 3, 4, 5};
        replace_ints(G "A/colptr", cp, 7);
        replace_ints(G "A/rowind", ri, 6);
        expect_error("A", "unsorted");
        break;
    }
    case 5: {
        int cp[7] = {0, 2, 2, 3, 4, 5, 6};
        int ri[6] = {0, 0, 2, 3, 4, 5};
        replace_ints(G "A/colptr", cp, 7);
        replace_ints(G "A/rowind", ri, 6);
        expect_error("A", "duplicate");
        break;
    }
    case 6: { /* A not symmetric: A_10 = 0.5 alone */
        int cp[7] = {0, 2, 3, 4, 5, 6, 7};
        int ri[7] = {0, 1, 1, 2, 3, 4, 5};
        double x[7] = {2, 0.5, 1, 3, 1.5, 1, 2};
        replace_ints(G "A/colptr", cp, 7);
        replace_ints(G "A/rowind", ri, 7);
        replace_doubles(G "A/values", x, 7);
        delete_link(G "subsystems/start"); /* else the partition check fires first */
        expect_error("not symmetric", NULL);
        break;
    }
    case 7: { /* A not positive definite */
        double x[6] = {2, 1, -3, 1.5, 1, 2};
        replace_doubles(G "A/values", x, 6);
        expect_error("not positive definite", NULL);
        break;
    }
    case 8: ibad[0] = 0, ibad[1] = 1, ibad[2] = 7;
        { int t[4] = {0, 1, 7, 3}; replace_ints(G "constraints/type", t, 4); }
        expect_error("unknown constraint type", "type[2]");
        break;
    case 9: { int fr[4] = {0, 1, 1, 3}; replace_ints(G "constraints/first_row", fr, 4); }
        expect_error("overlap", NULL);
        break;
    case 10: { int fr[4] = {0, 1, 3, 3}; replace_ints(G "constraints/first_row", fr, 4); }
        expect_error("gap", NULL);
        break;
    case 11: { double mu[4] = {0, 0, 0, -0.1}; replace_doubles(G "constraints/mu", mu, 4); }
        expect_error("mu[3]", "negative");
        break;
    case 12: { double k[4] = {0, 0, -10, 0}; replace_doubles(G "constraints/k", k, 4); }
        expect_error("k[2]", "negative");
        break;
    case 13: { double a[4] = {0, 0, -1, 0}; replace_doubles(G "constraints/alpha", a, 4); }
        expect_error("alpha[2]", "negative");
        break;
    case 14: {
        hid_t f = open_rw();
        mcb_h5_attr_write_int(f, "format_version", 99);
        H5Fclose(f);
        expect_error("unknown format version 99", NULL);
        break;
    }
    case 15: { /* dimension mismatch: J with 5 columns */
        hid_t f = open_rw();
        hid_t g = H5Gopen2(f, G "J", H5P_DEFAULT);
        long shape[2] = {6, 5};
        mcb_h5_attr_write_ints(g, "shape", shape, 2);
        H5Gclose(g);
        H5Fclose(f);
        expect_error("J", NULL);
        break;
    }
    case 16: { /* not an HDF5 file at all */
        FILE *fp = fopen(path, "w");
        fputs("not hdf5\n", fp);
        fclose(fp);
        expect_error("not an HDF5 file", NULL);
        break;
    }
    case 17: { /* contact block with 2 rows */
        int rc[4] = {1, 1, 1, 2};
        replace_ints(G "constraints/row_count", rc, 4);
        expect_error("contact block 3", "3");
        break;
    }
    case 18: { /* partition across a coupling */
        int cp[7] = {0, 2, 4, 5, 6, 7, 8};
        int ri[8] = {0, 1, 0, 1, 2, 3, 4, 5};
        double x[8] = {2, 0.1, 0.1, 1, 3, 1.5, 1, 2};
        replace_ints(G "A/colptr", cp, 7);
        replace_ints(G "A/rowind", ri, 8);
        replace_doubles(G "A/values", x, 8);
        int st[3] = {0, 1, 6};
        hid_t f = open_rw();
        mcb_h5_write_ints(f, G "subsystems/start", st, 3);
        H5Fclose(f);
        expect_error("across subsystems", NULL);
        break;
    }
    case 19: { /* form attribute unknown */
        hid_t f = open_rw();
        hid_t g = H5Gopen2(f, G, H5P_DEFAULT);
        mcb_h5_attr_write_str(g, "form", "banana");
        H5Gclose(g);
        H5Fclose(f);
        expect_error("form", "banana");
        break;
    }
    case 20: { /* soft rows in a dual problem */
        int t[1] = {2};
        replace_ints("/problems/000001/constraints/type", t, 1);
        expect_error("soft", "dual");
        break;
    }
    case 21: { /* non-finite in a sparse matrix */
        double x[6] = {2, 1, 3, INFINITY, 1, 2};
        replace_doubles(G "A/values", x, 6);
        expect_error("A/values[3]", "not finite");
        break;
    }
    }
    (void)ibad;
}
END_TEST

/* Attribute helpers: replace an attribute of the object at `obj` (a path). */
static void attr_replace(const char *obj, const char *name, hid_t type, const void *v)
{
    hid_t f = open_rw();
    hid_t o = H5Oopen(f, obj, H5P_DEFAULT);
    ck_assert_int_ge(o, 0);
    if (H5Aexists(o, name) > 0) H5Adelete(o, name);
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(o, name, type, s, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert_int_ge(H5Awrite(a, type, v), 0);
    H5Aclose(a);
    H5Sclose(s);
    H5Oclose(o);
    H5Fclose(f);
}

/* A dataset that declares `n` doubles; with `written` < n only that many
 * are stored (chunked), with 0 none (contiguous, never written). */
static void declare_doubles(const char *ds, hsize_t n, hsize_t written)
{
    hid_t f = open_rw();
    H5Ldelete(f, ds, H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hsize_t chunk = 1024;
    if (written) H5Pset_chunk(dcpl, 1, &chunk);
    hid_t d = H5Dcreate2(f, ds, H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    if (written) {
        double x[1024] = {0};
        hsize_t start = 0, count = written;
        hid_t ms = H5Screate_simple(1, &count, NULL);
        H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, NULL, &count, NULL);
        ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, s, H5P_DEFAULT, x), 0);
        H5Sclose(ms);
    }
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
    H5Fclose(f);
}

/* The classes found by hand and by corrupting files: wrong attribute types
 * named as such, refused variable-length strings, sizes declared without
 * the data to back them, overflowing block ranges, bad dual-form W,
 * duplicate names. */
START_TEST(hardening_classes)
{
    write_good();
    switch (_i) {
    case 0: {
        double v = 2.0;
        attr_replace("/", "format_version", H5T_NATIVE_DOUBLE, &v);
        expect_error("attribute format_version is a float, expected an integer", NULL);
        break;
    }
    case 1: {
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, 1);
        attr_replace("/", "format_version", t, "2");
        H5Tclose(t);
        expect_error("attribute format_version is a string, expected an integer", NULL);
        break;
    }
    case 2: {
        long v = 1;
        attr_replace(G, "form", H5T_NATIVE_LONG, &v);
        expect_error("attribute form is an integer, expected a fixed-length string", NULL);
        break;
    }
    case 3: { /* what h5py writes for a str: refused, with the way out */
        hid_t t = H5Tcopy(H5T_C_S1);
        H5Tset_size(t, H5T_VARIABLE);
        const char *v = "primal";
        attr_replace(G, "form", t, &v);
        H5Tclose(t);
        expect_error("attribute form is a variable-length string", "np.bytes_");
        break;
    }
    case 4: /* 200 million rows declared, nothing stored: refused before allocating */
        declare_doubles(G "e", 200000000, 0);
        expect_error("dataset e declares 200000000 elements but stores none", NULL);
        break;
    case 5:
        declare_doubles(G "e", 200000000, 1024);
        expect_error("dataset e declares 200000000 elements but stores only part", NULL);
        break;
    case 6: { /* a block of 2^31 - 1 rows: its range printed without overflow */
        int t[4] = {0, 1, 2, 0}, c[4] = {1, 1, 1, 2147483647};
        replace_ints(G "constraints/type", t, 4);
        replace_ints(G "constraints/row_count", c, 4);
        expect_error("constraint block 3 (rows 3..2147483649) runs past the 6 rows", NULL);
        break;
    }
    case 7: { /* dual W not symmetric */
        int cp[4] = {0, 1, 3, 4}, ri[4] = {0, 0, 1, 2};
        double x[4] = {1, 0.5, 1, 1};
        replace_ints("/problems/000001/W/colptr", cp, 4);
        replace_ints("/problems/000001/W/rowind", ri, 4);
        replace_doubles("/problems/000001/W/values", x, 4);
        expect_error("W is not symmetric", NULL);
        break;
    }
    case 8: { /* dual W indefinite: eigenvalues 3, -1, 1 */
        int cp[4] = {0, 2, 4, 5}, ri[5] = {0, 1, 0, 1, 2};
        double x[5] = {1, 2, 2, 1, 1};
        replace_ints("/problems/000001/W/colptr", cp, 4);
        replace_ints("/problems/000001/W/rowind", ri, 5);
        replace_doubles("/problems/000001/W/values", x, 5);
        expect_error("W is not positive semidefinite", NULL);
        break;
    }
    case 9: { /* dual W zero */
        double x[3] = {0, 0, 0};
        replace_doubles("/problems/000001/W/values", x, 3);
        expect_error("W is not positive semidefinite: diagonal entry 0 is 0", NULL);
        break;
    }
    case 10: { /* negative W: the diagonal says so first */
        double x[3] = {-1, -1, -1};
        replace_doubles("/problems/000001/W/values", x, 3);
        expect_error("diagonal entry 0 is -1", NULL);
        break;
    }
    case 11: { /* two problems with one name */
        hid_t f = open_rw();
        hid_t g = H5Gopen2(f, "/problems/000001", H5P_DEFAULT);
        mcb_h5_attr_write_str(g, "name", "mixed");
        H5Gclose(g);
        g = H5Gopen2(f, G, H5P_DEFAULT);
        mcb_h5_attr_write_str(g, "name", "mixed");
        H5Gclose(g);
        H5Fclose(f);
        expect_error("problem name 'mixed' is used twice", "/problems/000001");
        break;
    }
    case 12: {
        double v = 6.0;
        hid_t f = open_rw();
        hid_t g = H5Gopen2(f, G "A", H5P_DEFAULT);
        H5Adelete(g, "shape");
        hsize_t two = 2;
        hid_t sp = H5Screate_simple(1, &two, NULL);
        hid_t a = H5Acreate2(g, "shape", H5T_IEEE_F64LE, sp, H5P_DEFAULT, H5P_DEFAULT);
        double sh[2] = {v, v};
        H5Awrite(a, H5T_NATIVE_DOUBLE, sh);
        H5Aclose(a);
        H5Sclose(sp);
        H5Gclose(g);
        H5Fclose(f);
        expect_error("/A: attribute shape is a float, expected integers", NULL);
        break;
    }
    }
}
END_TEST

/* --- format 3: descriptors and the body factorization ----------------- */

/* fx_mixed with two subsystems (DOFs 0-2, 3-5), descriptors and two
 * bodies: body 0 (root, subsystem 0) moves with DOFs 0-2 on its twist rows
 * 0-2, body 1 (child of 0, subsystem 1) with DOFs 3-5 on its rows 6-8, and
 * Jc = J on those columns, so J = Jc Jb exactly. */
static mcb_problem *fx_bodies(void)
{
    mcb_problem *P = fx_mixed();
    free(P->sub_start);
    P->sub_start = malloc(3 * sizeof(int));
    P->sub_start[0] = 0, P->sub_start[1] = 3, P->sub_start[2] = 6;
    P->nsub = 2;
    P->mass_ratio = 40.0;
    P->cond_est = 1.5e6;
    P->rank = 5;
    P->rank_tol = 2.5e-13;
    P->nbodies = 2;
    int bri[6] = {0, 1, 2, 6, 7, 8}, bci[6] = {0, 1, 2, 3, 4, 5};
    double bx[6] = {1, 1, 1, 1, 1, 1};
    P->Jb = mcb_csc_from_triplets(12, 6, 6, bri, bci, bx);
    int cri[36], cci[36], t = 0;
    double cx[36];
    for (int j = 0; j < 6; j++)
        for (int k = P->J->p[j]; k < P->J->p[j + 1]; k++) {
            cri[t] = P->J->i[k];
            cci[t] = j < 3 ? j : j + 3;
            cx[t++] = P->J->x[k];
        }
    P->Jc = mcb_csc_from_triplets(6, 12, t, cri, cci, cx);
    P->body_parent = malloc(2 * sizeof(int));
    P->body_sub = malloc(2 * sizeof(int));
    P->body_parent[0] = -1, P->body_parent[1] = 0;
    P->body_sub[0] = 0, P->body_sub[1] = 1;
    return P;
}

static void write_bodies(void)
{
    snprintf(path, sizeof path, "/tmp/mcb_test_io3_%ld.h5", (long)getpid());
    mcb_problem *P[2] = {fx_bodies(), fx_point_contact_dual(FX_SLIP)};
    P[1]->psd_defect = 3e-9; /* as an importer measures it (lib/mcb_psd.h) */
    ck_assert_int_eq(mcb_problem_validate(P[0], "fx_bodies", NULL), MCB_OK);
    ck_assert_int_eq(mcb_write_problems(path, P, 2, NULL), MCB_OK);
    mcb_problem_free(&P[0]);
    mcb_problem_free(&P[1]);
}

START_TEST(round_trip_format3)
{
    write_bodies();
    mcb_problem *a = fx_bodies();
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_msg(mcb_read_problems(path, &S, &err) == MCB_OK, "%s", err.msg);
    const mcb_problem *b = S->items[0];
    ck_assert(b->mass_ratio == 40.0);
    ck_assert(b->cond_est == 1.5e6);
    ck_assert_int_eq(b->rank, 5);
    ck_assert(b->rank_tol == 2.5e-13);
    ck_assert_int_eq(b->nbodies, 2);
    csc_equal(a->Jc, b->Jc);
    csc_equal(a->Jb, b->Jb);
    ck_assert_int_eq(memcmp(a->body_parent, b->body_parent, 2 * sizeof(int)), 0);
    ck_assert_int_eq(memcmp(a->body_sub, b->body_sub, 2 * sizeof(int)), 0);
    ck_assert_int_eq(b->nsub, 2);
    ck_assert(isnan(b->psd_defect)); /* primal: none */
    /* the dual problem: descriptors unknown but psd_defect, no bodies */
    ck_assert(S->items[1]->psd_defect == 3e-9);
    ck_assert(isnan(S->items[1]->mass_ratio) && isnan(S->items[1]->cond_est));
    ck_assert(S->items[1]->rank == -1 && isnan(S->items[1]->rank_tol));
    ck_assert_int_eq(S->items[1]->nbodies, 0);
    ck_assert_ptr_null(S->items[1]->Jc);
    mcb_problem_set_free(&S);
    /* the file says the version written (5 since anisotropic friction) */
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    long v = 0;
    ck_assert_int_eq(mcb_h5_attr_get_int(f, "format_version", "t", &v, NULL), MCB_OK);
    H5Fclose(f);
    ck_assert_int_eq(v, MCB_FORMAT_VERSION);
    ck_assert_int_eq(v, 5);
    mcb_problem_free(&a);
    unlink(path);
}
END_TEST

/* A version 2 file (no descriptors, no bodies) is still read. */
START_TEST(reads_version2)
{
    write_good();
    hid_t f = open_rw();
    ck_assert_int_eq(mcb_h5_attr_write_int(f, "format_version", 2), 0);
    H5Fclose(f);
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_msg(mcb_read_problems(path, &S, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(S->count, 2);
    ck_assert(isnan(S->items[0]->mass_ratio));
    ck_assert_int_eq(S->items[0]->nbodies, 0);
    mcb_problem_set_free(&S);
    f = open_rw();
    mcb_h5_attr_write_int(f, "format_version", 1);
    H5Fclose(f);
    expect_error("unknown format version 1", "must be regenerated");
}
END_TEST

static long file_bytes(const char *p, unsigned char **out)
{
    FILE *fp = fopen(p, "rb");
    ck_assert_ptr_nonnull(fp);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    *out = malloc((size_t)len + 1);
    ck_assert_int_eq((long)fread(*out, 1, (size_t)len, fp), len);
    fclose(fp);
    return len;
}

/* Identical content, byte-identical files: no timestamps (the second write
 * is more than a second later), nothing else that varies. */
START_TEST(writes_are_reproducible)
{
    char p2[300];
    write_bodies();
    snprintf(p2, sizeof p2, "%s.second", path);
    rename(path, p2);
    struct timespec pause = {1, 100000000};
    nanosleep(&pause, NULL);
    write_bodies();
    unsigned char *x = NULL, *y = NULL;
    long lx = file_bytes(path, &x), ly = file_bytes(p2, &y);
    ck_assert_int_eq(lx, ly);
    ck_assert_msg(memcmp(x, y, (size_t)lx) == 0, "two writes of the same problems differ");
    free(x);
    free(y);
    unlink(p2);
    unlink(path);
}
END_TEST

/* The tolerance of J = Jc Jb: 1e-9 max(max |J_ij|, 1) (max |J_ij| = 1 here). */
START_TEST(body_product_tolerance)
{
    mcb_problem *P = fx_bodies();
    mcb_err err;
    P->Jc->x[2] += 0.5e-9;
    ck_assert_msg(mcb_problem_validate(P, "p", &err) == MCB_OK, "%s", err.msg);
    P->Jc->x[2] += 1e-9;
    ck_assert_int_eq(mcb_problem_validate(P, "p", &err), MCB_E_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "p: bodies/Jc times bodies/Jb differs from J"));
    P->Jc->x[2] -= 1.5e-9;
    ck_assert_int_eq(mcb_problem_validate(P, "p", &err), MCB_OK);
    /* datasets without a body count */
    P->nbodies = 0;
    ck_assert_int_eq(mcb_problem_validate(P, "p", &err), MCB_E_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "nbodies is 0"));
    mcb_problem_free(&P);
}
END_TEST

#define B "/problems/000000/bodies/"

/* Every format 3 validation failure names the file, the problem, the
 * dataset and the reason. */
START_TEST(bad_format3)
{
    write_bodies();
    switch (_i) {
    case 0: {
        double v = 0.5;
        attr_replace(G, "mass_ratio", H5T_NATIVE_DOUBLE, &v);
        expect_error("/problems/000000: attribute mass_ratio = 0.5 is invalid", ">= 1");
        break;
    }
    case 1: {
        double v = INFINITY;
        attr_replace(G, "cond_est", H5T_NATIVE_DOUBLE, &v);
        expect_error("/problems/000000: attribute cond_est = inf is invalid", NULL);
        break;
    }
    case 2: { int par[2] = {-1, 1}; replace_ints(B "parent", par, 2); }
        expect_error("/problems/000000: bodies/parent[1] = 1 is invalid", "precedes");
        break;
    case 3: { int par[2] = {1, -1}; replace_ints(B "parent", par, 2); }
        expect_error("bodies/parent[0] = 1 is invalid", NULL);
        break;
    case 4: { int sub[2] = {0, 2}; replace_ints(B "subsystem", sub, 2); }
        expect_error("bodies/subsystem[1] = 2 is out of range [0, 2)", NULL);
        break;
    case 5: { int sub[2] = {0, 0}; replace_ints(B "subsystem", sub, 2); }
        expect_error("bodies/Jb row 6 (body 1, subsystem 0) touches DOF 3", "outside");
        break;
    case 6: { /* Jc off by 1e-6 in one entry */
        hid_t f = open_rw();
        double x[16];
        long len = 0;
        hid_t d = H5Dopen2(f, B "Jc/values", H5P_DEFAULT);
        hid_t sp = H5Dget_space(d);
        len = (long)H5Sget_simple_extent_npoints(sp);
        H5Sclose(sp);
        H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x);
        H5Dclose(d);
        H5Fclose(f);
        x[2] += 1e-6;
        replace_doubles(B "Jc/values", x, len);
        expect_error("/problems/000000: bodies/Jc times bodies/Jb differs from J by 1e-06", NULL);
        break;
    }
    case 7: {
        hid_t f = open_rw();
        hid_t g = H5Gopen2(f, B "Jb", H5P_DEFAULT);
        long shape[2] = {13, 6};
        mcb_h5_attr_write_ints(g, "shape", shape, 2);
        H5Gclose(g);
        H5Fclose(f);
        expect_error("dimension mismatch: bodies/Jb is 13x6, expected", NULL);
        break;
    }
    case 8: delete_link(B "subsystem");
        expect_error("/problems/000000: dataset bodies/subsystem is missing", NULL);
        break;
    case 9: { int par[3] = {-1, 0, 0}; replace_ints(B "parent", par, 3); }
        expect_error("dataset bodies/subsystem has 2 elements, expected 3", NULL);
        break;
    case 10: { /* bodies in the dual problem */
        hid_t f = open_rw();
        ck_assert_int_ge(H5Ocopy(f, B, f, "/problems/000001/bodies", H5P_DEFAULT, H5P_DEFAULT), 0);
        H5Fclose(f);
        expect_error("/problems/000001: group bodies in a dual-form problem", NULL);
        break;
    }
    case 11: { /* Jb rows beyond a row out of range */
        int ri[6] = {0, 1, 2, 6, 7, 12};
        replace_ints(B "Jb/rowind", ri, 6);
        expect_error("bodies/Jb/rowind[5] = 12 is out of range", NULL);
        break;
    }
    case 12: { /* a rank above the rows (J is 6 x 6) */
        long v = 7;
        attr_replace(G, "rank", H5T_NATIVE_LONG, &v);
        expect_error("/problems/000000: attribute rank = 7 is invalid", "between 0 and 6");
        break;
    }
    case 13: {
        long v = -2;
        attr_replace(G, "rank", H5T_NATIVE_LONG, &v);
        expect_error("/problems/000000: attribute rank = -2 is out of range", NULL);
        break;
    }
    case 14: {
        double v = -1e-12;
        attr_replace(G, "rank_tol", H5T_NATIVE_DOUBLE, &v);
        expect_error("/problems/000000: attribute rank_tol = -1e-12 is invalid", ">= 0");
        break;
    }
    case 15: { /* a tolerance without a rank (the dual problem has none) */
        double v = 1e-12;
        attr_replace("/problems/000001", "rank_tol", H5T_NATIVE_DOUBLE, &v);
        expect_error("/problems/000001: attribute rank_tol = 1e-12 is invalid", "with a rank");
        break;
    }
    case 16: {
        double v = -1e-9;
        attr_replace("/problems/000001", "psd_defect", H5T_NATIVE_DOUBLE, &v);
        expect_error("/problems/000001: attribute psd_defect = -1e-09 is invalid", ">= 0");
        break;
    }
    case 17: {
        double v = INFINITY;
        attr_replace("/problems/000001", "psd_defect", H5T_NATIVE_DOUBLE, &v);
        expect_error("/problems/000001: attribute psd_defect = inf is invalid", NULL);
        break;
    }
    }
}
END_TEST

/* --- format 4: per-row compliance r ------------------------------------ */

/* fx_mixed (rows: bilateral 0, unilateral 1, soft 2, contact 3-5) with
 * compliance on every row but the soft one, and the dual point contact
 * with compliance on its three rows. */
static void write_compliant(void)
{
    snprintf(path, sizeof path, "/tmp/mcb_test_io4_%ld.h5", (long)getpid());
    mcb_problem *P[2] = {fx_mixed(), fx_point_contact_dual(FX_SLIP)};
    double r0[6] = {1e-3, 0.25, 0, 1.0 / 3.0, 2e-6, 2e-6}, r1[3] = {0.5, 0.125, 0.125};
    P[0]->r = malloc(sizeof r0);
    memcpy(P[0]->r, r0, sizeof r0);
    P[1]->r = malloc(sizeof r1);
    memcpy(P[1]->r, r1, sizeof r1);
    ck_assert_int_eq(mcb_problem_validate(P[0], "mixed", NULL), MCB_OK);
    ck_assert_int_eq(mcb_write_problems(path, P, 2, NULL), MCB_OK);
    mcb_problem_free(&P[0]);
    mcb_problem_free(&P[1]);
}

/* r round-trips exactly, survives a copy, and the file says version 5; a
 * problem written without r reads back without it. */
START_TEST(round_trip_compliance)
{
    write_compliant();
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_msg(mcb_read_problems(path, &S, &err) == MCB_OK, "%s", err.msg);
    double r0[6] = {1e-3, 0.25, 0, 1.0 / 3.0, 2e-6, 2e-6}, r1[3] = {0.5, 0.125, 0.125};
    arrays_equal(S->items[0]->r, r0, 6);
    arrays_equal(S->items[1]->r, r1, 3);
    ck_assert(mcb_problem_has_compliance(S->items[0]));
    ck_assert(mcb_problem_r(S->items[0], 3) == 1.0 / 3.0);
    mcb_problem *C = mcb_problem_copy(S->items[1]);
    ck_assert_ptr_nonnull(C);
    ck_assert_ptr_ne(C->r, S->items[1]->r);
    arrays_equal(C->r, r1, 3);
    mcb_problem_free(&C);
    mcb_problem_set_free(&S);
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    long v = 0;
    ck_assert_int_eq(mcb_h5_attr_get_int(f, "format_version", "t", &v, NULL), MCB_OK);
    H5Fclose(f);
    ck_assert_int_eq(v, 5);
    unlink(path);
    write_good();
    ck_assert_msg(mcb_read_problems(path, &S, &err) == MCB_OK, "%s", err.msg);
    ck_assert_ptr_null(S->items[0]->r);
    ck_assert_ptr_null(S->items[1]->r);
    ck_assert(!mcb_problem_has_compliance(S->items[0]));
    ck_assert(mcb_problem_r(S->items[0], 3) == 0.0);
    mcb_problem_set_free(&S);
    unlink(path);
    /* an all-zero r is no compliance */
    mcb_problem *P = fx_point_contact_dual(FX_SLIP);
    P->r = calloc(3, sizeof(double));
    ck_assert(!mcb_problem_has_compliance(P));
    mcb_problem_free(&P);
    ck_assert(!mcb_problem_has_compliance(NULL));
}
END_TEST

/* A version 3 file (written before compliance: no r) is still read. */
START_TEST(reads_version3)
{
    write_bodies();
    hid_t f = open_rw();
    ck_assert_int_eq(mcb_h5_attr_write_int(f, "format_version", 3), 0);
    H5Fclose(f);
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_msg(mcb_read_problems(path, &S, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(S->count, 2);
    ck_assert_int_eq(S->items[0]->nbodies, 2);
    ck_assert_ptr_null(S->items[0]->r);
    mcb_problem_set_free(&S);
    unlink(path);
}
END_TEST

#define G1 "/problems/000001/"

/* --- format 5: anisotropic friction mu2 --------------------------------- */

/* fx_mixed (blocks bilateral, unilateral, soft, contact) with mu2 0.1 on
 * its contact, and the anisotropic slide (mu2 0.25). */
static void write_aniso(void)
{
    snprintf(path, sizeof path, "/tmp/mcb_test_io5_%ld.h5", (long)getpid());
    mcb_problem *P[2] = {fx_mixed(), fx_aniso_slide()};
    double m0[4] = {NAN, NAN, NAN, 0.1};
    P[0]->mu2 = malloc(sizeof m0);
    memcpy(P[0]->mu2, m0, sizeof m0);
    ck_assert_int_eq(mcb_problem_validate(P[0], "mixed", NULL), MCB_OK);
    ck_assert_int_eq(mcb_write_problems(path, P, 2, NULL), MCB_OK);
    mcb_problem_free(&P[0]);
    mcb_problem_free(&P[1]);
}

/* mu2 round-trips exactly (NaN: isotropic), survives a copy, makes the
 * problem anisotropic; a problem without it reads back without it; a
 * version 4 file (before mu2) is still read. */
START_TEST(round_trip_aniso)
{
    write_aniso();
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_msg(mcb_read_problems(path, &S, &err) == MCB_OK, "%s", err.msg);
    double m0[4] = {NAN, NAN, NAN, 0.1}, m1[1] = {0.25};
    arrays_equal(S->items[0]->mu2, m0, 4);
    arrays_equal(S->items[1]->mu2, m1, 1);
    ck_assert(mcb_problem_is_aniso(S->items[0]) && mcb_problem_is_aniso(S->items[1]));
    ck_assert(mcb_problem_mu2(S->items[0], 3) == 0.1);
    ck_assert(mcb_problem_mu2(S->items[0], 1) == S->items[0]->blocks[1].mu); /* NaN: mu */
    mcb_problem *C = mcb_problem_copy(S->items[1]);
    ck_assert_ptr_nonnull(C);
    ck_assert_ptr_ne(C->mu2, S->items[1]->mu2);
    arrays_equal(C->mu2, m1, 1);
    mcb_problem_free(&C);
    mcb_problem_set_free(&S);
    hid_t f = open_rw();
    ck_assert_int_eq(mcb_h5_attr_write_int(f, "format_version", 4), 0);
    H5Ldelete(f, "/problems/000000/constraints/mu2", H5P_DEFAULT);
    H5Fclose(f);
    ck_assert_msg(mcb_read_problems(path, &S, &err) == MCB_OK, "%s", err.msg);
    ck_assert_ptr_null(S->items[0]->mu2);
    ck_assert(!mcb_problem_is_aniso(S->items[0]));
    ck_assert(mcb_problem_mu2(S->items[0], 3) == S->items[0]->blocks[3].mu);
    mcb_problem_set_free(&S);
    unlink(path);
    ck_assert(!mcb_problem_is_aniso(NULL));
}
END_TEST

/* Bad mu2: the file, the problem, the dataset and the reason. */
START_TEST(bad_aniso)
{
    write_aniso();
    switch (_i) {
    case 0: { double m[1] = {-0.5}; replace_doubles(G1 "constraints/mu2", m, 1); }
        expect_error("/problems/000001: constraints/mu2[0] = -0.5 is negative", ">= 0");
        break;
    case 1: { double m[1] = {INFINITY}; replace_doubles(G1 "constraints/mu2", m, 1); }
        expect_error("/problems/000001: constraints/mu2[0] is not finite", NULL);
        break;
    case 2: { double m[4] = {NAN, 0.3, NAN, 0.1}; replace_doubles(G "constraints/mu2", m, 4); }
        expect_error("/problems/000000: constraints/mu2[1] = 0.3 on a unilateral block",
                     "only contact blocks");
        break;
    case 3: { double m[2] = {0.1, 0.2}; replace_doubles(G1 "constraints/mu2", m, 2); }
        expect_error("/problems/000001: dataset constraints/mu2 has 2 elements, expected 1",
                     NULL);
        break;
    }
}
END_TEST

/* Bad compliance: the file, the problem, the dataset and the reason. */
START_TEST(bad_compliance)
{
    write_compliant();
    switch (_i) {
    case 0: { double r[3] = {0.5, -0.125, 0.125}; replace_doubles(G1 "r", r, 3); }
        expect_error("/problems/000001: r[1] = -0.125 is negative", ">= 0");
        break;
    case 1: { double r[3] = {0.5, 0.125, NAN}; replace_doubles(G1 "r", r, 3); }
        expect_error("/problems/000001: r[2] is not finite", NULL);
        break;
    case 2: { double r[3] = {INFINITY, 0.125, 0}; replace_doubles(G1 "r", r, 3); }
        expect_error("/problems/000001: r[0] is not finite", NULL);
        break;
    case 3: { double r[2] = {0.5, 0.125}; replace_doubles(G1 "r", r, 2); }
        expect_error("/problems/000001: dataset r has 2 elements, expected 3", NULL);
        break;
    case 4: { double r[7] = {0}; replace_doubles(G "r", r, 7); }
        expect_error("/problems/000000: dataset r has 7 elements, expected 6", NULL);
        break;
    case 5: { double r[6] = {0, 0, 1e-3, 0, 0, 0}; replace_doubles(G "r", r, 6); }
        expect_error("/problems/000000: r[2] = 0.001 on soft block 2", "no compliance");
        break;
    }
}
END_TEST

/* The same checks on a problem in memory (what generators and recorders
 * call before writing). */
START_TEST(validate_compliance)
{
    mcb_problem *P = fx_point_contact_dual(FX_STICK);
    mcb_err err;
    P->r = calloc(3, sizeof(double));
    ck_assert_msg(mcb_problem_validate(P, "p", &err) == MCB_OK, "%s", err.msg);
    P->r[0] = 1e6;
    ck_assert_msg(mcb_problem_validate(P, "p", &err) == MCB_OK, "%s", err.msg);
    P->r[1] = -1e-300;
    ck_assert_int_eq(mcb_problem_validate(P, "p", &err), MCB_E_INPUT);
    ck_assert_str_eq(err.msg, "p: r[1] = -1e-300 is negative (compliance must be >= 0)");
    P->r[1] = NAN;
    ck_assert_int_eq(mcb_problem_validate(P, "p", &err), MCB_E_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "p: r[1] is not finite"));
    mcb_problem_free(&P);
}
END_TEST

/* W + diag(r): entries added where W has its diagonal, inserted in order
 * where it lacks it (column 1 has rows 0 and 2 only, column 2 none), left
 * out where r_i = 0 and W has none (column 3); r NULL copies W. */
START_TEST(add_diag)
{
    int ri[5] = {0, 1, 0, 2, 3}, ci[5] = {0, 0, 1, 1, 3};
    double x[5] = {4, 1, 1, 1, 5};
    mcb_csc *W = mcb_csc_from_triplets(4, 4, 5, ri, ci, x);
    double r[4] = {0.5, 0.25, 2, 0};
    mcb_csc *S = mcb_csc_add_diag(W, r);
    ck_assert_ptr_nonnull(S);
    int p[5] = {0, 2, 5, 6, 7}, i[7] = {0, 1, 0, 1, 2, 2, 3};
    double v[7] = {4.5, 1, 1, 0.25, 1, 2, 5};
    ck_assert_int_eq(memcmp(S->p, p, sizeof p), 0);
    ck_assert_int_eq(memcmp(S->i, i, sizeof i), 0);
    for (int k = 0; k < 7; k++) ck_assert(S->x[k] == v[k]);
    mcb_csc_free(&S);
    r[3] = 1; /* an existing diagonal */
    S = mcb_csc_add_diag(W, r);
    ck_assert_int_eq(mcb_csc_nnz(S), 7);
    ck_assert(S->x[6] == 6);
    mcb_csc_free(&S);
    S = mcb_csc_add_diag(W, NULL);
    csc_equal(S, W);
    mcb_csc_free(&S);
    ck_assert_ptr_null(mcb_csc_add_diag(NULL, r));
    mcb_csc_free(&W);
}
END_TEST

#if !defined(__SANITIZE_ADDRESS__)
/* Out of memory is not bad input: exit 1, and said so. A file of 1 MB
 * whose e holds 96 Mi compressed zeros (805 MB) is read with the
 * reader's memory limit at 200 MB (MCB_READ_MEM_LIMIT_MB). Not under ASan,
 * which cannot run with an address-space limit. */
START_TEST(out_of_memory_is_not_bad_input)
{
    write_good();
    hsize_t chunk = 1 << 20, n = 96 * chunk;
    long shape[2] = {(long)n, 6};
    hid_t f = open_rw();
    hid_t g = H5Gopen2(f, G "J", H5P_DEFAULT);
    mcb_h5_attr_write_ints(g, "shape", shape, 2);
    H5Gclose(g);
    H5Ldelete(f, G "e", H5P_DEFAULT);
    hid_t s = H5Screate_simple(1, &n, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_deflate(dcpl, 9);
    hid_t d = H5Dcreate2(f, G "e", H5T_IEEE_F64LE, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ck_assert_int_ge(d, 0);
    double *zeros = calloc(chunk, sizeof(double));
    hid_t ms = H5Screate_simple(1, &chunk, NULL);
    for (hsize_t start = 0; start < n; start += chunk) {
        H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, NULL, &chunk, NULL);
        ck_assert_int_ge(H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, s, H5P_DEFAULT, zeros), 0);
    }
    H5Sclose(ms);
    free(zeros);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(s);
    H5Fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "MCB_READ_MEM_LIMIT_MB=200 '%s/mcbench' validate '%s' 2>'%s.err'",
             MCB_BINARY_DIR, path, path);
    int st = system(cmd);
    char errpath[300], msg[2048] = "";
    snprintf(errpath, sizeof errpath, "%s.err", path);
    FILE *fe = fopen(errpath, "r");
    if (fe) {
        size_t got = fread(msg, 1, sizeof msg - 1, fe);
        msg[got] = '\0';
        fclose(fe);
    }
    unlink(errpath);
    unlink(path);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "exit %d, want 1 (out of memory): %s",
                  WIFEXITED(st) ? WEXITSTATUS(st) : -1, msg);
    ck_assert_msg(strstr(msg, "out of memory reading e") && !strstr(msg, "invalid"),
                  "message: %s", msg);
}
END_TEST
#endif

START_TEST(missing_file)
{
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_read_problems("/nonexistent/x.h5", &S, &err), MCB_E_INPUT);
    ck_assert_ptr_null(S);
    ck_assert_ptr_nonnull(strstr(err.msg, "/nonexistent/x.h5"));
}
END_TEST

/* Several files, each probed in a child while the one before is read:
 * every good file is read; the first failure by file order is reported (a
 * missing file, a file that is not HDF5) with every output NULL, and no
 * child is left behind. */
START_TEST(read_many_files)
{
    char good[3][300], junk[300];
    write_good();
    for (int k = 0; k < 3; k++) {
        snprintf(good[k], sizeof good[k], "%s.%d", path, k);
        ck_assert_int_eq(link(path, good[k]), 0);
    }
    snprintf(junk, sizeof junk, "%s.junk", path);
    FILE *f = fopen(junk, "w");
    fputs("not an HDF5 file\n", f);
    fclose(f);
    mcb_problem_set *out[3];
    mcb_err err;
    const char *all[3] = {good[0], good[1], good[2]};
    ck_assert_int_eq(mcb_read_problem_files_isolated(all, 3, out, &err), MCB_OK);
    for (int k = 0; k < 3; k++) {
        ck_assert_ptr_nonnull(out[k]);
        ck_assert_int_eq(out[k]->count, 2);
        mcb_problem_set_free(&out[k]);
    }
    /* the third case fails while the next file's child runs: it is killed */
    const char *bad[4][3] = {{"/nonexistent/x.h5", good[1], good[2]},
                             {good[0], junk, "/nonexistent/y.h5"},
                             {junk, good[1], good[2]},
                             {good[0], good[1], junk}};
    const char *named[4] = {"/nonexistent/x.h5", junk, junk, junk};
    for (int c = 0; c < 4; c++) {
        ck_assert_int_eq(mcb_read_problem_files_isolated(bad[c], 3, out, &err), MCB_E_INPUT);
        for (int k = 0; k < 3; k++) ck_assert_ptr_null(out[k]);
        ck_assert_msg(strstr(err.msg, named[c]) != NULL, "case %d: %s", c, err.msg);
        ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1); /* no child left */
    }
    ck_assert_int_eq(mcb_read_problem_files_isolated(NULL, 0, out, &err), MCB_OK);
    for (int k = 0; k < 3; k++) unlink(good[k]);
    unlink(junk);
    unlink(path);
}
END_TEST

START_TEST(free_accepts_null)
{
    mcb_problem_free(NULL);
    mcb_problem *P = NULL;
    mcb_problem_free(&P);
    mcb_problem_set_free(NULL);
    mcb_csc_free(NULL);
}
END_TEST

START_TEST(infer_subsystems)
{
    /* A with blocks {0,1} {2} {3,4,5} where 3 and 5 couple: 3 subsystems */
    double A[36] = {0};
    for (int k = 0; k < 6; k++) A[7 * k] = 4;
    A[1] = A[6] = 1;
    A[3 * 6 + 5] = A[5 * 6 + 3] = 1;
    double b[6] = {0}, e[1] = {0}, J[6] = {1, 0, 0, 0, 0, 0};
    mcb_problem *P = fx_dense_primal(6, 1, A, b, J, e);
    ck_assert_int_eq(mcb_problem_infer_subsystems(P, NULL), MCB_OK);
    ck_assert_int_eq(P->nsub, 3);
    ck_assert_int_eq(P->sub_start[1], 2);
    ck_assert_int_eq(P->sub_start[2], 3);
    ck_assert_int_eq(P->sub_start[3], 6);
    mcb_problem_free(&P);
}
END_TEST

/* SHA-256 (lib/mcb_sha256.c) against the known answers of FIPS 180-4's
 * examples and NIST's long message, fed in pieces of every size from 1 to
 * 130 bytes so that every position of the padding and of a block boundary
 * is crossed; then a file against the same digest. */
/* An untrusted source is parsed only in the child (lib/mcb_untrusted.h):
 * the reader runs in a process other than this one, what it read comes
 * back whole through the clean copy, a reader that crashes is an outcome
 * naming the file, and no temporary file is left either way. Before the
 * copy, the parent read the file again itself: a fault of libhdf5 that the
 * child survived by chance (a heap over-read of a damaged attribute,
 * corrupt_files' p01560.h5) crashed the parent. */
static pid_t test_pid;

static mcb_rc reader_elsewhere(void *arg, mcb_problem **out, mcb_err *err)
{
    if (getpid() == test_pid)
        return mcb_fail(err, MCB_E_INPUT, "the untrusted reader ran in the parent");
    *out = arg ? fx_small_stack() : NULL;
    if (!arg) raise(SIGSEGV); /* a reader that crashes */
    return MCB_OK;
}

static int files_in(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

START_TEST(untrusted_reader_runs_only_in_the_child)
{
    test_pid = getpid();
    char dir[] = "/tmp/mcb_untrusted_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("TMPDIR", dir, 1);
    char src[64]; /* the reader's limits are scaled to its file's size */
    snprintf(src, sizeof src, "/tmp/mcb_untrusted_%ld.src", (long)getpid());
    FILE *f = fopen(src, "w");
    ck_assert_ptr_nonnull(f);
    fputs("anything", f);
    fclose(f);
    mcb_problem *want = fx_small_stack(), *got = NULL;
    mcb_err err;
    ck_assert_msg(mcb_read_one_isolated(src, reader_elsewhere, (void *)1, &got, &err) == MCB_OK,
                  "%s", err.msg);
    ck_assert_str_eq(got->name, want->name);
    ck_assert_int_eq(got->n, want->n);
    ck_assert_int_eq(got->m, want->m);
    csc_equal(got->A, want->A);
    csc_equal(got->J, want->J);
    arrays_equal(got->b, want->b, want->n);
    arrays_equal(got->e, want->e, want->m);
    ck_assert_int_eq(got->nsub, want->nsub);
    ck_assert_int_eq(files_in(dir), 0);
    mcb_problem_free(&got);
    ck_assert_int_eq(mcb_read_one_isolated(src, reader_elsewhere, NULL, &got, &err),
                     MCB_E_INPUT);
    ck_assert_ptr_null(got);
    ck_assert_msg(strstr(err.msg, ".src: damaged or hostile file") != NULL, "%s", err.msg);
    unlink(src);
    ck_assert_int_eq(files_in(dir), 0);
    unsetenv("TMPDIR");
    rmdir(dir);
    mcb_problem_free(&want);
}
END_TEST

START_TEST(sha256_known_answers)
{
    static const struct {
        const char *msg;
        long repeat;
        const char *hex;
    } kat[] = {
        {"", 1, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", 1, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 1,
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"a", 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
    };
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
        size_t len = strlen(kat[k].msg) * (size_t)kat[k].repeat;
        char *msg = malloc(len + 1);
        for (long r = 0; r < kat[k].repeat; r++)
            memcpy(msg + (size_t)r * strlen(kat[k].msg), kat[k].msg, strlen(kat[k].msg));
        for (size_t piece = 1; piece <= (len < 130 ? 130 : 7); piece += len < 130 ? 1 : 3) {
            mcb_sha256 s;
            char hex[65];
            mcb_sha256_init(&s);
            for (size_t at = 0; at < len; at += piece)
                mcb_sha256_update(&s, msg + at, at + piece <= len ? piece : len - at);
            mcb_sha256_hex(&s, hex);
            ck_assert_msg(strcmp(hex, kat[k].hex) == 0, "message %zu in pieces of %zu: %s", k,
                          piece, hex);
        }
        if (kat[k].repeat > 1) {
            char path[64], hex[65];
            snprintf(path, sizeof path, "/tmp/mcb_sha_%ld", (long)getpid());
            FILE *f = fopen(path, "wb");
            fwrite(msg, 1, len, f);
            fclose(f);
            mcb_err err;
            ck_assert_int_eq(mcb_sha256_file(path, hex, &err), MCB_OK);
            ck_assert_str_eq(hex, kat[k].hex);
            unlink(path);
            ck_assert_int_eq(mcb_sha256_file(path, hex, &err), MCB_E_INPUT);
            ck_assert_msg(strstr(err.msg, path) != NULL, "%s", err.msg);
        }
        free(msg);
    }
}
END_TEST

/* A table that grew columns at its end: an older file's narrower table is
 * read with the missing columns NaN, the rest in place; too few or too
 * many columns are refused naming the dataset. */
START_TEST(table_read_pads_older_columns)
{
    char path[] = "/tmp/mcb_tabXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ck_assert(f >= 0);
    const double x[6] = {1, 2, 3, 4, 5, 6}; /* 3 rows of 2 */
    ck_assert_int_eq(mcb_h5_write_table(f, "t", x, 3, 2), 0);
    H5Fclose(f);
    mcb_err err;
    f = mcb_h5_open_ro(path, &err);
    ck_assert(f >= 0);
    long rows = 0;
    double *t = NULL;
    ck_assert_msg(mcb_h5_read_table_min(f, "t", 2, 4, "tab", &rows, &t, &err) == MCB_OK, "%s",
                  err.msg);
    ck_assert_int_eq(rows, 3);
    for (int r = 0; r < 3; r++) {
        ck_assert(t[4 * r] == x[2 * r] && t[4 * r + 1] == x[2 * r + 1]);
        ck_assert(isnan(t[4 * r + 2]) && isnan(t[4 * r + 3]));
    }
    free(t);
    ck_assert(mcb_h5_read_table_min(f, "t", 3, 4, "tab", &rows, &t, &err) == MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "dataset t has 2 columns, expected 3 to 4"), "%s", err.msg);
    ck_assert(mcb_h5_read_table(f, "t", 1, "tab", &rows, &t, &err) == MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "has 2 columns, expected 1"), "%s", err.msg);
    H5Fclose(f);
    unlink(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("io");
    TCase *tc = tcase_create("format");
    tcase_add_test(tc, round_trip_exact);
    tcase_add_test(tc, table_read_pads_older_columns);
    tcase_add_test(tc, sha256_known_answers);
    tcase_add_test(tc, untrusted_reader_runs_only_in_the_child);
    tcase_add_loop_test(tc, bad_input_classes, 0, 22);
    tcase_add_loop_test(tc, hardening_classes, 0, 13);
    tcase_add_test(tc, round_trip_format3);
    tcase_add_test(tc, reads_version2);
    tcase_add_test(tc, writes_are_reproducible);
    tcase_add_loop_test(tc, bad_format3, 0, 18);
    tcase_add_test(tc, body_product_tolerance);
    tcase_add_test(tc, round_trip_compliance);
    tcase_add_test(tc, reads_version3);
    tcase_add_loop_test(tc, bad_compliance, 0, 6);
    tcase_add_test(tc, round_trip_aniso);
    tcase_add_loop_test(tc, bad_aniso, 0, 4);
    tcase_add_test(tc, validate_compliance);
    tcase_add_test(tc, add_diag);
#if !defined(__SANITIZE_ADDRESS__)
    tcase_add_test(tc, out_of_memory_is_not_bad_input);
#endif
    tcase_add_test(tc, missing_file);
    tcase_add_test(tc, read_many_files);
    tcase_add_test(tc, free_accepts_null);
    tcase_add_test(tc, infer_subsystems);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

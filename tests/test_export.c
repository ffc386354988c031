/* test_export.c: the formats users already have (docs/formats.md).
 *   - FCLIB export (problems/export_fclib.c): round trips global and local,
 *     read back with libfclib and with our importer, identical to the last
 *     bit; the local form of a primal problem equals the Delassus W and q;
 *     refusals name the block type and the reason and leave no file.
 *   - Siconos' solvers read an exported file: Siconos' own error of the
 *     generator's reference solution on the re-imported problem is small.
 *   - Siconos .dat import (problems/import_siconos.c) of tests/data files
 *     against their known values; 2D and inconsistent files refused;
 *     Siconos' Confeti problems, whose W is indefinite by round-off,
 *     imported with their psd_defect measured and noted.
 * The Siconos cases are left out when mcbench is built without Siconos. */
#include <check.h>

#include "check_main.h"
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fclib.h>

#include "problems/export_fclib.h"
#include "fixtures.h"
#include "problems/import_fclib.h"
#include "problems/import_siconos.h"
#include "lib/mcb_delassus.h"
#include "lib/mcb_io.h"
#ifdef MCB_HAVE_SICONOS
#include "solvers/peers/siconos_peer.h"
#endif

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mcb_export_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmp_path(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

#ifdef MCB_HAVE_SICONOS /* only the Siconos round trips read tests/data */
/* tests/data beside this source file. */
static void data_path(const char *name, char *buf, size_t len)
{
    char src[1024];
    snprintf(src, sizeof src, "%s", __FILE__);
    snprintf(buf, len, "%s/data/%s", dirname(src), name);
}
#endif

static void assert_csc_equal(const mcb_csc *A, const mcb_csc *B)
{
    ck_assert_ptr_nonnull(A);
    ck_assert_ptr_nonnull(B);
    ck_assert_int_eq(A->m, B->m);
    ck_assert_int_eq(A->n, B->n);
    for (int j = 0; j <= A->n; j++) ck_assert_int_eq(A->p[j], B->p[j]);
    for (int k = 0; k < A->p[A->n]; k++) {
        ck_assert_int_eq(A->i[k], B->i[k]);
        ck_assert(A->x[k] == B->x[k]); /* bit for bit */
    }
}

static void assert_vec_equal(int n, const double *x, const double *y)
{
    for (int k = 0; k < n; k++) ck_assert(x[k] == y[k]);
}

/* libfclib's matrix (compressed columns, as written) equals A. */
static void assert_fclib_equal(const struct fclib_matrix *M, const mcb_csc *A)
{
    ck_assert_int_eq(M->nz, -1);
    ck_assert_int_eq(M->m, A->m);
    ck_assert_int_eq(M->n, A->n);
    for (int j = 0; j <= A->n; j++) ck_assert_int_eq(M->p[j], A->p[j]);
    for (int k = 0; k < A->p[A->n]; k++) {
        ck_assert_int_eq(M->i[k], A->i[k]);
        ck_assert(M->x[k] == A->x[k]);
    }
}

static void assert_blocks_equal(const mcb_problem *P, const mcb_problem *Q)
{
    ck_assert_int_eq(P->nblocks, Q->nblocks);
    for (int k = 0; k < P->nblocks; k++) {
        ck_assert_int_eq(Q->blocks[k].type, MCB_CONTACT);
        ck_assert_int_eq(P->blocks[k].row, Q->blocks[k].row);
        ck_assert(P->blocks[k].mu == Q->blocks[k].mu);
    }
}

START_TEST(global_round_trip)
{
    make_tmpdir();
    mcb_problem *P = fx_small_stack();
    ck_assert_ptr_nonnull(P);
    char path[512];
    tmp_path("stack.hdf5", path, sizeof path);
    mcb_err err;
    mcb_rc rc = mcb_export_fclib(P, MCB_FCLIB_AUTO, path, &err);
    ck_assert_msg(rc == MCB_OK, "%s", err.msg);
    /* libfclib reads what it wrote */
    struct fclib_global *g = fclib_read_global(path);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(g->spacedim, 3);
    assert_fclib_equal(g->M, P->A);
    mcb_csc *Ht = mcb_csc_transpose(P->J);
    assert_fclib_equal(g->H, Ht);
    assert_vec_equal(P->n, g->f, P->b);
    assert_vec_equal(P->m, g->w, P->e);
    for (int c = 0; c < P->nblocks; c++) ck_assert(g->mu[c] == P->blocks[c].mu);
    ck_assert_str_eq(g->info->title, P->scene);
    fclib_delete_global(g);
    free(g);
    mcb_csc_free(&Ht);
    /* and so does our importer, to the bit */
    mcb_problem *Q = NULL;
    rc = mcb_import_fclib(path, &Q, &err);
    ck_assert_msg(rc == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(Q->form, MCB_PRIMAL);
    assert_csc_equal(P->A, Q->A);
    assert_csc_equal(P->J, Q->J);
    assert_vec_equal(P->n, P->b, Q->b);
    assert_vec_equal(P->m, P->e, Q->e);
    assert_blocks_equal(P, Q);
    ck_assert_str_eq(Q->scene, P->scene);
    ck_assert_int_eq(Q->nsub, P->nsub); /* 8 spheres, inferred again from A */
#ifdef MCB_HAVE_SICONOS
    /* Siconos reads the re-imported problem: its own error of the
     * generator's reference solution is that of the original problem */
    mcb_siconos_problem *S0 = NULL, *S1 = NULL;
    ck_assert_int_eq(mcb_siconos_convert(P, &S0, &err), MCB_OK);
    ck_assert_int_eq(mcb_siconos_convert(Q, &S1, &err), MCB_OK);
    double e0 = -1, e1 = -1;
    ck_assert_int_eq(mcb_siconos_error(S0, P->v_ref, P->lambda_ref, &e0, &err), MCB_OK);
    ck_assert_int_eq(mcb_siconos_error(S1, P->v_ref, P->lambda_ref, &e1, &err), MCB_OK);
    ck_assert_msg(e1 == e0 && e1 < 1e-6, "Siconos error %g (original %g)", e1, e0);
    mcb_siconos_free(&S0);
    mcb_siconos_free(&S1);
#endif
    mcb_problem_free(&Q);
    mcb_problem_free(&P);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

START_TEST(local_round_trip)
{
    make_tmpdir();
    char path[512];
    tmp_path("dual.hdf5", path, sizeof path);
    mcb_problem *P = fx_point_contact_dual(FX_SLIP);
    mcb_err err;
    ck_assert_int_eq(mcb_export_fclib(P, MCB_FCLIB_AUTO, path, &err), MCB_OK);
    struct fclib_local *l = fclib_read_local(path);
    ck_assert_ptr_nonnull(l);
    assert_fclib_equal(l->W, P->W);
    assert_vec_equal(P->m, l->q, P->q);
    ck_assert(l->V == NULL && l->R == NULL);
    fclib_delete_local(l);
    free(l);
    mcb_problem *Q = NULL;
    ck_assert_int_eq(mcb_import_fclib(path, &Q, &err), MCB_OK);
    ck_assert_int_eq(Q->form, MCB_DUAL);
    assert_csc_equal(P->W, Q->W);
    assert_vec_equal(P->m, P->q, Q->q);
    assert_blocks_equal(P, Q);
    mcb_problem_free(&Q);
    mcb_problem_free(&P);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* A primal problem written in local form: W and q are the Delassus
 * operator's, and for the point contact (A = I, J a permutation) W = I and
 * q = J b exactly. */
START_TEST(primal_as_local)
{
    make_tmpdir();
    char path[512];
    tmp_path("local.hdf5", path, sizeof path);
    mcb_err err;
    mcb_problem *P = fx_point_contact(FX_STICK);
    ck_assert_int_eq(mcb_export_fclib(P, MCB_FCLIB_LOCAL, path, &err), MCB_OK);
    mcb_problem *Q = NULL;
    ck_assert_int_eq(mcb_import_fclib(path, &Q, &err), MCB_OK);
    ck_assert_int_eq(Q->form, MCB_DUAL);
    ck_assert_int_eq(Q->m, 3);
    for (int j = 0; j < 3; j++)
        for (int k = Q->W->p[j]; k < Q->W->p[j + 1]; k++)
            ck_assert(Q->W->x[k] == (Q->W->i[k] == j ? 1.0 : 0.0));
    double q[3] = {-1, 0.1, 0}; /* vfree (0.1, 0, -1) as [n, t1, t2] */
    assert_vec_equal(3, Q->q, q);
    mcb_problem_free(&Q);
    mcb_problem_free(&P);
    unlink(path);
    /* the stack: W and q as mcb_delassus_build forms them */
    P = fx_small_stack();
    ck_assert_int_eq(mcb_export_fclib(P, MCB_FCLIB_LOCAL, path, &err), MCB_OK);
    ck_assert_int_eq(mcb_import_fclib(path, &Q, &err), MCB_OK);
    mcb_delassus *D = NULL;
    ck_assert_int_eq(mcb_delassus_build(P, &D, &err), MCB_OK);
    assert_csc_equal(D->W, Q->W);
    assert_vec_equal(P->m, D->q, Q->q);
    mcb_delassus_free(&D);
    mcb_problem_free(&Q);
    mcb_problem_free(&P);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* A compliant problem: FCLIB has no compliance, so the local form folds r
 * into W (W + diag(r) = diag(2, 1.25, 1.25) for fx_compliant), auto picks
 * it, and the global form is refused (below, in refusals). */
START_TEST(compliance_folded_into_local_w)
{
    make_tmpdir();
    char path[512];
    tmp_path("compliant.hdf5", path, sizeof path);
    mcb_err err;
    double d[3] = {2.0, 1.25, 1.25};
    for (int k = 0; k < 2; k++) {
        mcb_problem *P = k == 0 ? fx_compliant(FX_STICK) : fx_compliant_dual(FX_STICK);
        ck_assert_msg(mcb_export_fclib(P, MCB_FCLIB_AUTO, path, &err) == MCB_OK, "%s", err.msg);
        mcb_problem *Q = NULL;
        ck_assert_int_eq(mcb_import_fclib(path, &Q, &err), MCB_OK);
        ck_assert_int_eq(Q->form, MCB_DUAL);
        ck_assert(!mcb_problem_has_compliance(Q));
        for (int j = 0; j < 3; j++)
            for (int q = Q->W->p[j]; q < Q->W->p[j + 1]; q++)
                ck_assert(Q->W->x[q] == (Q->W->i[q] == j ? d[j] : 0.0));
        mcb_problem_free(&Q);
        mcb_problem_free(&P);
        unlink(path);
    }
    rmdir(tmpdir);
}
END_TEST

/* What FCLIB cannot express is refused with the block type and the
 * reason, and no file (nor temporary) is left. */
static void assert_refused(mcb_problem *P, int form, const char *word)
{
    char path[512];
    tmp_path("refused.hdf5", path, sizeof path);
    mcb_err err;
    mcb_rc rc = mcb_export_fclib(P, form, path, &err);
    ck_assert_int_eq(rc, MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, word) != NULL, "'%s' lacks '%s'", err.msg, word);
    ck_assert_msg(strstr(err.msg, path) != NULL, "'%s' does not name the file", err.msg);
    ck_assert_int_ne(access(path, F_OK), 0);
    ck_assert_int_eq(rmdir(tmpdir), 0); /* empty: no temporary either */
    mkdir(tmpdir, 0700);
    mcb_problem_free(&P);
}

START_TEST(refusals)
{
    make_tmpdir();
    assert_refused(fx_mixed(), MCB_FCLIB_AUTO, "bilateral");
    assert_refused(fx_one_row(MCB_UNILATERAL, 1, 0, 0, 0, 0), MCB_FCLIB_AUTO, "unilateral");
    assert_refused(fx_one_row(MCB_SOFT, 1, 0, 0, 10, 0.5), MCB_FCLIB_LOCAL, "soft");
    mcb_problem *P = fx_point_contact(FX_SLIP);
    P->blocks[0].type = MCB_CONTACT_CCP;
    assert_refused(P, MCB_FCLIB_AUTO, "contact_ccp");
    assert_refused(fx_point_contact_dual(FX_OPEN), MCB_FCLIB_GLOBAL, "local FCLIB problem only");
    assert_refused(fx_compliant(FX_STICK), MCB_FCLIB_GLOBAL, "compliance");
    assert_refused(fx_aniso_slide(), MCB_FCLIB_AUTO, "anisotropic friction");
    assert_refused(fx_aniso_slide(), MCB_FCLIB_LOCAL, "constraints/mu2");
    P = fx_one_row(MCB_UNILATERAL, 1, 0, 0, 0, 0);
    P->nblocks = 0; /* checked before validation: the block list alone */
    assert_refused(P, MCB_FCLIB_AUTO, "no contact");
    rmdir(tmpdir);
}
END_TEST

START_TEST(form_names)
{
    ck_assert_int_eq(mcb_fclib_form_from_name("auto"), MCB_FCLIB_AUTO);
    ck_assert_int_eq(mcb_fclib_form_from_name("global"), MCB_FCLIB_GLOBAL);
    ck_assert_int_eq(mcb_fclib_form_from_name("local"), MCB_FCLIB_LOCAL);
    ck_assert_int_eq(mcb_fclib_form_from_name("dense"), -1);
    ck_assert_int_eq(mcb_siconos_form_from_name("global"), MCB_SICONOS_GLOBAL);
    ck_assert_int_eq(mcb_siconos_form_from_name(NULL), -1);
}
END_TEST

#ifdef MCB_HAVE_SICONOS
START_TEST(siconos_local_known)
{
    char path[1024];
    data_path("FrictionContact3D_1c.dat", path, sizeof path);
    mcb_problem *P = NULL;
    mcb_err err;
    mcb_rc rc = mcb_import_siconos(path, MCB_SICONOS_AUTO, &P, &err);
    ck_assert_msg(rc == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(P->form, MCB_DUAL);
    ck_assert_int_eq(P->m, 3);
    ck_assert_str_eq(P->name, "FrictionContact3D_1c");
    double W[9] = {15, -1, -2, -1, 14, 1, -2, 1, 16}, q[3] = {-1, 2, 3};
    ck_assert_int_eq(mcb_csc_nnz(P->W), 9);
    for (int j = 0; j < 3; j++)
        for (int k = P->W->p[j]; k < P->W->p[j + 1]; k++)
            ck_assert(P->W->x[k] == W[3 * j + P->W->i[k]]);
    assert_vec_equal(3, P->q, q);
    ck_assert_int_eq(P->nblocks, 1);
    ck_assert(P->blocks[0].mu == 0.1);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(siconos_global_known)
{
    char path[1024];
    data_path("GFC3D_Example1.dat", path, sizeof path);
    mcb_problem *P = NULL, *F = fx_gfc3d_example1();
    mcb_err err;
    mcb_rc rc = mcb_import_siconos(path, MCB_SICONOS_AUTO, &P, &err);
    ck_assert_msg(rc == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(P->form, MCB_PRIMAL);
    assert_csc_equal(F->A, P->A);
    assert_csc_equal(F->J, P->J);
    assert_vec_equal(3, F->b, P->b);
    assert_vec_equal(3, F->e, P->e);
    assert_blocks_equal(F, P);
    /* export it and read it back: the same problem */
    make_tmpdir();
    char out[512];
    tmp_path("gfc3d.hdf5", out, sizeof out);
    ck_assert_int_eq(mcb_export_fclib(P, MCB_FCLIB_AUTO, out, &err), MCB_OK);
    mcb_problem *Q = NULL;
    ck_assert_int_eq(mcb_import_fclib(out, &Q, &err), MCB_OK);
    assert_csc_equal(P->A, Q->A);
    assert_csc_equal(P->J, Q->J);
    unlink(out);
    rmdir(tmpdir);
    mcb_problem_free(&Q);
    mcb_problem_free(&F);
    mcb_problem_free(&P);
}
END_TEST

/* Siconos' Confeti test problems (tests/data/README.md): W has round-off
 * negative eigenvalues (the file's 7 significant digits), once refused as
 * not positive semidefinite; imported now, psd_defect measured within 10 %
 * of -lambda_min / lambda_max from a dense eigensolve (LAPACK dsyev,
 * tests/data/README.md) and noted; the same through an FCLIB export and
 * import, and kept through a problem file. */
static const struct {
    const char *file;
    int m;
    double defect; /* dsyev */
} confeti[] = {
    {"Confeti-ex03-Fc3D-SBM.dat", 162, 1.1588e-8},
    {"Confeti-ex13-4contact-Fc3D-SBM.dat", 12, 3.4363e-8},
    {"Confeti-ex13-Fc3D-SBM.dat", 321, 9.2363e-8},
};

START_TEST(siconos_confeti_round_off)
{
    char path[1024];
    data_path(confeti[_i].file, path, sizeof path);
    mcb_problem *P = NULL, *Q = NULL;
    mcb_err err;
    mcb_rc rc = mcb_import_siconos(path, MCB_SICONOS_AUTO, &P, &err);
    ck_assert_msg(rc == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(P->form, MCB_DUAL);
    ck_assert_int_eq(P->m, confeti[_i].m);
    double d = confeti[_i].defect;
    ck_assert_msg(P->psd_defect > d / 1.1 && P->psd_defect < d * 1.1, "%s: psd_defect %g, dsyev %g",
                  confeti[_i].file, P->psd_defect, d);
    ck_assert_msg(strstr(P->notes, "W indefinite by round-off") != NULL, "notes: %s", P->notes);
    make_tmpdir();
    char out[512];
    tmp_path("confeti.hdf5", out, sizeof out);
    ck_assert_int_eq(mcb_export_fclib(P, MCB_FCLIB_AUTO, out, &err), MCB_OK);
    rc = mcb_import_fclib(out, &Q, &err);
    ck_assert_msg(rc == MCB_OK, "FCLIB: %s", err.msg);
    ck_assert(Q->psd_defect == P->psd_defect); /* the same W, bit for bit */
    mcb_problem_free(&Q);
    unlink(out);
    tmp_path("confeti.h5", out, sizeof out);
    ck_assert_int_eq(mcb_write_problems(out, &P, 1, &err), MCB_OK);
    mcb_problem_set *S = NULL;
    ck_assert_msg(mcb_read_problems(out, &S, &err) == MCB_OK, "%s", err.msg);
    ck_assert(S->items[0]->psd_defect == P->psd_defect);
    mcb_problem_set_free(&S);
    unlink(out);
    rmdir(tmpdir);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(siconos_refusals)
{
    char path[1024];
    mcb_problem *P = NULL;
    mcb_err err;
    data_path("FC2D_SliderCrankLagrangian00000.dat", path, sizeof path);
    ck_assert_int_eq(mcb_import_siconos(path, MCB_SICONOS_AUTO, &P, &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "2D") && strstr(err.msg, path), "%s", err.msg);
    ck_assert_ptr_null(P);
    /* a local file read as global: the reader's sizes disagree */
    data_path("FrictionContact3D_1c.dat", path, sizeof path);
    ck_assert_int_eq(mcb_import_siconos(path, MCB_SICONOS_GLOBAL, &P, &err), MCB_E_INPUT);
    ck_assert_ptr_null(P);
    /* truncated: the reader would run past the end */
    make_tmpdir();
    char cut[512];
    tmp_path("cut.dat", cut, sizeof cut);
    data_path("GFC3D_Example1.dat", path, sizeof path);
    FILE *in = fopen(path, "r"), *o = fopen(cut, "w");
    char buf[300];
    size_t got = fread(buf, 1, sizeof buf, in);
    fwrite(buf, 1, got, o);
    fclose(in);
    fclose(o);
    ck_assert_int_eq(mcb_import_siconos(cut, MCB_SICONOS_AUTO, &P, &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "ends before its last value"), "%s", err.msg);
    /* missing */
    ck_assert_int_eq(mcb_import_siconos("/nonexistent/x.dat", MCB_SICONOS_AUTO, &P, &err),
                     MCB_E_INPUT);
    unlink(cut);
    rmdir(tmpdir);
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("export");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, global_round_trip);
    tcase_add_test(tc, local_round_trip);
    tcase_add_test(tc, primal_as_local);
    tcase_add_test(tc, refusals);
    tcase_add_test(tc, compliance_folded_into_local_w);
    tcase_add_test(tc, form_names);
#ifdef MCB_HAVE_SICONOS
    tcase_add_test(tc, siconos_local_known);
    tcase_add_test(tc, siconos_global_known);
    tcase_add_test(tc, siconos_refusals);
    tcase_add_loop_test(tc, siconos_confeti_round_off, 0, 3);
#else
    printf("test_export: built without Siconos: the import siconos cases are left out\n");
#endif
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

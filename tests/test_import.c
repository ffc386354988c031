/* test_import.c: FCLIB import of the shared problems (one ctest entry per
 * file, reported as skipped when ../shared/fclib lacks it), of problems
 * written by libfclib in triplet, CSC and CSR storage, rejection of
 * malformed or unsupported FCLIB files, and the judging of a W indefinite
 * by round-off (accepted, measured and noted) or beyond (refused). */
#include <check.h>

#include "check_main.h"
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fclib.h>

#include "problems/import_fclib.h"
#include "lib/mcb_h5.h"
#include "metrics/metrics.h"
#include "harness/runner.h"

static const struct {
    const char *file;
    int form, m, n;
} shared[] = {
    {"Box_Stacks-i0122-82-5.hdf5", MCB_PRIMAL, 246, 450},
    {"Capsules-i125-1213.hdf5", MCB_DUAL, 858, 0},
    {"CubeH8.hdf5", MCB_PRIMAL, 3, 162},
    {"LMGC_GlobalFrictionContactProblem00046.hdf5", MCB_PRIMAL, 27, 162},
};

#define NSHARED (int)(sizeof shared / sizeof shared[0])

static int shared_path(int k, char *buf, size_t len)
{
    snprintf(buf, len, "%s/fclib/%s", mcb_test_shared_dir(), shared[k].file);
    return access(buf, R_OK) == 0;
}

/* One shared file per ctest entry (`test_import shared FILE`); main() skips
 * the entry (exit 77) when the file is absent. */
START_TEST(imports_shared_files)
{
    char p[1024];
    ck_assert_msg(shared_path(_i, p, sizeof p), "%s absent", p);
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(p, &P, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(P->form, shared[_i].form);
    ck_assert_int_eq(P->m, shared[_i].m);
    ck_assert_int_eq(P->n, shared[_i].n);
    ck_assert_int_eq(P->nblocks, P->m / 3);
    ck_assert_int_eq(mcb_problem_validate(P, p, &err), MCB_OK);
    /* PGS reaches the natural-map residual 1e-8 that Siconos reports */
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 10000;
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, &err), MCB_OK);
    mcb_run run = {0};
    mcb_run_one(P, ws, mcb_solver_find("pgs"), NULL, &o, &run, &err);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "pgs on %s: %s", shared[_i].file,
                  mcb_status_name(run.info.status));
    mcb_run_clear(&run);
    /* SubADMM (primal problems) reaches it too with the Delassus-diagonal
     * penalty; eq. (23)'s default stalls on the FEM cubes (docs/performance.md) */
    if (P->form == MCB_PRIMAL) {
        const mcb_solver_def *sub = mcb_solver_find("subadmm");
        double prm[16];
        sub->default_params(prm);
        ck_assert_int_eq(mcb_param_set(sub, prm, "beta_rule", "1", &err), MCB_OK);
        mcb_run_one(P, ws, sub, prm, &o, &run, &err);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED, "subadmm beta_rule=1 on %s: %s (natmap %g)",
                      shared[_i].file, mcb_status_name(run.info.status),
                      run.final.val[MCB_M_NATMAP]);
        mcb_run_clear(&run);
    }
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
}
END_TEST

static char tmp[256];

/* Writes a minimal FCLIB global file by hand (triplet M = I2, H 2x3). */
static void write_fclib(int with_G, int drop_w, int spacedim)
{
    snprintf(tmp, sizeof tmp, "/tmp/mcb_fclib_%ld.hdf5", (long)getpid());
    hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    int one = 1, two = 2, three = 3, sd = spacedim;
    int mi[2] = {0, 1}, mp[2] = {0, 1};
    double mx[2] = {1, 1};
    int hi[2] = {0, 1}, hp[2] = {0, 1};
    double hx[2] = {1, 1};
    mcb_h5_write_ints(f, "fclib_global/M/m", &two, 1);
    mcb_h5_write_ints(f, "fclib_global/M/n", &two, 1);
    mcb_h5_write_ints(f, "fclib_global/M/nz", &two, 1);
    mcb_h5_write_ints(f, "fclib_global/M/nzmax", &two, 1);
    mcb_h5_write_ints(f, "fclib_global/M/i", mi, 2);
    mcb_h5_write_ints(f, "fclib_global/M/p", mp, 2);
    mcb_h5_write_doubles(f, "fclib_global/M/x", mx, 2);
    mcb_h5_write_ints(f, "fclib_global/H/m", &two, 1);
    mcb_h5_write_ints(f, "fclib_global/H/n", &three, 1);
    mcb_h5_write_ints(f, "fclib_global/H/nz", &two, 1);
    mcb_h5_write_ints(f, "fclib_global/H/nzmax", &two, 1);
    mcb_h5_write_ints(f, "fclib_global/H/i", hi, 2);
    mcb_h5_write_ints(f, "fclib_global/H/p", hp, 2);
    mcb_h5_write_doubles(f, "fclib_global/H/x", hx, 2);
    double fv[2] = {0, -1}, w[3] = {0, 0, 0}, mu[1] = {0.3};
    mcb_h5_write_doubles(f, "fclib_global/vectors/f", fv, 2);
    if (!drop_w) mcb_h5_write_doubles(f, "fclib_global/vectors/w", w, 3);
    mcb_h5_write_doubles(f, "fclib_global/vectors/mu", mu, 1);
    mcb_h5_write_ints(f, "fclib_global/spacedim", &sd, 1);
    if (with_G) mcb_h5_write_ints(f, "fclib_global/G/m", &one, 1);
    H5Fclose(f);
}

START_TEST(rejects_bad_fclib)
{
    mcb_problem *P = NULL;
    mcb_err err;
    const char *expect[] = {"equality part", "vectors/w is missing", "spacedim = 2",
                            "not an HDF5 file", "neither"};
    switch (_i) {
    case 0: write_fclib(1, 0, 3); break;
    case 1: write_fclib(0, 1, 3); break;
    case 2: write_fclib(0, 0, 2); break;
    case 3: {
        snprintf(tmp, sizeof tmp, "/tmp/mcb_fclib_%ld.hdf5", (long)getpid());
        FILE *fp = fopen(tmp, "w");
        fputs("garbage", fp);
        fclose(fp);
        break;
    }
    case 4: {
        snprintf(tmp, sizeof tmp, "/tmp/mcb_fclib_%ld.hdf5", (long)getpid());
        hid_t f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        H5Fclose(f);
        break;
    }
    }
    ck_assert_int_ne(mcb_import_fclib(tmp, &P, &err), MCB_OK);
    ck_assert_ptr_null(P);
    ck_assert_msg(strstr(err.msg, expect[_i]) && strstr(err.msg, tmp), "%s", err.msg);
    unlink(tmp);
}
END_TEST

START_TEST(imports_handmade_global)
{
    write_fclib(0, 0, 3);
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(tmp, &P, &err) == MCB_OK, "%s", err.msg);
    /* J = H^T: H (2x3) has H_00 = 1, H_11 = 1, so J_00 = 1, J_11 = 1 */
    ck_assert_int_eq(P->J->m, 3);
    ck_assert_int_eq(P->J->n, 2);
    ck_assert_int_eq(mcb_csc_nnz(P->J), 2);
    ck_assert_int_eq(P->J->i[0], 0);
    ck_assert_int_eq(P->J->i[1], 1);
    ck_assert_double_eq(P->blocks[0].mu, 0.3);
    mcb_problem_free(&P);
    unlink(tmp);
}
END_TEST

/* ------------------------------------------- storage forms via libfclib */

enum { ST_TRIPLET, ST_CSC, ST_CSR };
static const char *storage_name[3] = {"triplet (nz >= 0)", "CSC (nz = -1)", "CSR (nz = -2)"};

/* A dense row-major m x n matrix as an fclib_matrix in the given storage,
 * as the files hold it: triplets with i = row, p = column; nzmax larger
 * than the entry count, as some files have it. */
static struct fclib_matrix *fc_matrix(int m, int n, const double *D, int storage)
{
    int nnz = 0;
    for (int k = 0; k < m * n; k++) nnz += D[k] != 0.0;
    struct fclib_matrix *M = calloc(1, sizeof *M);
    M->m = m;
    M->n = n;
    M->nzmax = nnz + 2;
    M->x = calloc((size_t)M->nzmax, sizeof(double));
    M->i = calloc((size_t)M->nzmax, sizeof(int));
    int np = storage == ST_TRIPLET ? M->nzmax : storage == ST_CSC ? n + 1 : m + 1;
    M->p = calloc((size_t)np, sizeof(int));
    int t = 0;
    if (storage == ST_TRIPLET) {
        M->nz = nnz;
        for (int r = 0; r < m; r++)
            for (int c = 0; c < n; c++)
                if (D[r * n + c] != 0.0) {
                    M->i[t] = r;
                    M->p[t] = c;
                    M->x[t++] = D[r * n + c];
                }
    } else if (storage == ST_CSC) {
        M->nz = -1;
        for (int c = 0; c < n; c++) {
            M->p[c] = t;
            for (int r = 0; r < m; r++)
                if (D[r * n + c] != 0.0) {
                    M->i[t] = r;
                    M->x[t++] = D[r * n + c];
                }
        }
        M->p[n] = t;
    } else {
        M->nz = -2;
        for (int r = 0; r < m; r++) {
            M->p[r] = t;
            for (int c = 0; c < n; c++)
                if (D[r * n + c] != 0.0) {
                    M->i[t] = c;
                    M->x[t++] = D[r * n + c];
                }
        }
        M->p[m] = t;
    }
    return M;
}

static void fc_matrix_free(struct fclib_matrix *M)
{
    free(M->p);
    free(M->i);
    free(M->x);
    free(M);
}

/* C (CSC) equals the dense row-major D (m x n), entry by entry, exactly. */
static void expect_matrix(const mcb_csc *C, int m, int n, const double *D, const char *what,
                          int storage)
{
    ck_assert_msg(C->m == m && C->n == n, "%s from %s: %d x %d, expected %d x %d", what,
                  storage_name[storage], C->m, C->n, m, n);
    double *got = calloc((size_t)(m * n), sizeof(double));
    for (int j = 0; j < n; j++)
        for (int k = C->p[j]; k < C->p[j + 1]; k++) got[C->i[k] * n + j] += C->x[k];
    for (int r = 0; r < m; r++)
        for (int c = 0; c < n; c++)
            ck_assert_msg(got[r * n + c] == D[r * n + c], "%s from %s: (%d, %d) = %g, expected %g",
                          what, storage_name[storage], r, c, got[r * n + c], D[r * n + c]);
    free(got);
}

static struct fclib_info fc_info = {"test", "storage forms", "none"};

/* A global problem (M 3x3 SPD and full, H 3x6 with no symmetry) written by
 * libfclib with M and H in each storage, imported: A = M, J = H^T, b = f,
 * e = w, mu. */
START_TEST(imports_global_in_each_storage)
{
    double M[9] = {4, 1, 0, 1, 3, 0.5, 0, 0.5, 2};
    double H[18] = {1, 0, 0.2, 0, 0, 0, /* */
                    0, 1, 0, 0.5, 0, -0.3, /* */
                    0, 0, 0, 1, 0.7, 0};
    double HT[18];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 6; c++) HT[c * 3 + r] = H[r * 6 + c];
    double f[3] = {0.5, -1, 0.25}, w[6] = {0.1, 0, 0, -0.2, 0.05, 0}, mu[2] = {0.3, 0.6};
    struct fclib_global g;
    memset(&g, 0, sizeof g);
    g.M = fc_matrix(3, 3, M, _i);
    g.H = fc_matrix(3, 6, H, _i);
    g.f = f;
    g.w = w;
    g.mu = mu;
    g.spacedim = 3;
    g.info = &fc_info;
    snprintf(tmp, sizeof tmp, "/tmp/mcb_fclib_st_%ld.hdf5", (long)getpid());
    unlink(tmp);
    ck_assert_int_eq(fclib_write_global(&g, tmp), 1);
    fc_matrix_free(g.M);
    fc_matrix_free(g.H);
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(tmp, &P, &err) == MCB_OK, "%s: %s", storage_name[_i], err.msg);
    ck_assert_int_eq(P->form, MCB_PRIMAL);
    expect_matrix(P->A, 3, 3, M, "A = M", _i);
    expect_matrix(P->J, 6, 3, HT, "J = H^T", _i);
    for (int k = 0; k < 3; k++) ck_assert_double_eq(P->b[k], f[k]);
    for (int k = 0; k < 6; k++) ck_assert_double_eq(P->e[k], w[k]);
    ck_assert_int_eq(P->nblocks, 2);
    ck_assert_double_eq(P->blocks[0].mu, 0.3);
    ck_assert_double_eq(P->blocks[1].mu, 0.6);
    ck_assert_int_eq(mcb_problem_validate(P, tmp, &err), MCB_OK);
    mcb_problem_free(&P);
    unlink(tmp);
}
END_TEST

/* A local problem of two contacts (W dense row-major 6 x 6 in the given
 * storage, q, mu) written by libfclib to tmp. */
static void write_local_2c(const double *W, int storage, double *q, double *mu)
{
    struct fclib_local l;
    memset(&l, 0, sizeof l);
    l.W = fc_matrix(6, 6, W, storage);
    l.q = q;
    l.mu = mu;
    l.spacedim = 3;
    l.info = &fc_info;
    snprintf(tmp, sizeof tmp, "/tmp/mcb_fclib_local_%ld.hdf5", (long)getpid());
    unlink(tmp);
    ck_assert_int_eq(fclib_write_local(&l, tmp), 1);
    fc_matrix_free(l.W);
}

/* A local problem with a non-symmetric W (so rows and columns cannot be
 * confused) in each storage. */
START_TEST(imports_local_in_each_storage)
{
    double W[36] = {2, 0.1, 0, 0, 0, 0.3, /* */
                    0, 1, 0.2, 0, 0, 0, /* */
                    0.4, 0, 1.5, 0, 0, 0, /* */
                    0, 0, 0, 3, 0.6, 0, /* */
                    0, 0, 0, 0, 1, 0, /* */
                    0, 0, 0.7, 0.8, 0, 2.5};
    double q[6] = {-1, 0.5, 0, 0.2, -0.3, 0}, mu[2] = {0.7, 0.4};
    write_local_2c(W, _i, q, mu);
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(tmp, &P, &err) == MCB_OK, "%s: %s", storage_name[_i], err.msg);
    ck_assert_int_eq(P->form, MCB_DUAL);
    /* a W not symmetric to 1e-12 is imported as (W + W^T) / 2, and said so
     * (rows and columns of the storage are told apart by the global test's
     * rectangular H, read by the same conversion) */
    double Ws[36];
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) Ws[r * 6 + c] = 0.5 * (W[r * 6 + c] + W[c * 6 + r]);
    expect_matrix(P->W, 6, 6, Ws, "W symmetrized", _i);
    ck_assert_msg(strstr(P->notes, "W symmetrized on import") != NULL, "notes: %s", P->notes);
    for (int k = 0; k < 6; k++) ck_assert_double_eq(P->q[k], q[k]);
    ck_assert_double_eq(P->blocks[0].mu, 0.7);
    ck_assert_double_eq(P->blocks[1].mu, 0.4);
    mcb_problem_free(&P);
    unlink(tmp);
}
END_TEST

/* A 6 x 6 W = Q diag(lambda) Q^T with lambda_max = 1 (= ||W||_2) and
 * lambda_min = -delta, Q the Householder reflection of v = (1, ..., 6):
 * symmetric to the last bit (lambda_k (Q_rk Q_ck) is the same product
 * for (r, c) and (c, r)), row-major. */
static void indefinite_w(double delta, double *W)
{
    const double lambda[6] = {1, 0.8, 0.5, 0.3, 0.1, -delta};
    double v[6], vv = 0, Q[36];
    for (int k = 0; k < 6; k++) vv += (v[k] = k + 1) * (k + 1);
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) Q[r * 6 + c] = (r == c) - 2 * v[r] * v[c] / vv;
    for (int r = 0; r < 6; r++)
        for (int c = 0; c < 6; c++) {
            double w = 0;
            for (int k = 0; k < 6; k++) w += lambda[k] * (Q[r * 6 + k] * Q[c * 6 + k]);
            W[r * 6 + c] = w;
        }
}

/* W's positive semidefiniteness is judged relative to ||W||_2 with the
 * round-off allowance MCB_PSD_TOL = 1e-6 (lib/mcb_psd.h): a W indefinite
 * by 1e-13 of its norm (round-off) is imported, its psd_defect measured
 * and noted; one indefinite by 1e-3 is refused with the figure in the
 * message; an exactly singular one (delta 0) is positive semidefinite to
 * working precision (psd_defect 0, no note). Loop index: 0: 1e-13, 1: 1e-3,
 * 2: 0. */
START_TEST(judges_indefinite_w_relative_to_its_norm)
{
    const double delta[3] = {1e-13, 1e-3, 0};
    double W[36], q[6] = {-1, 0.5, 0, 0.2, -0.3, 0}, mu[2] = {0.5, 0.5};
    indefinite_w(delta[_i], W);
    write_local_2c(W, ST_CSC, q, mu);
    mcb_problem *P = NULL;
    mcb_err err;
    mcb_rc rc = mcb_import_fclib(tmp, &P, &err);
    unlink(tmp);
    if (_i == 1) {
        ck_assert_int_eq(rc, MCB_E_INPUT);
        ck_assert_ptr_null(P);
        ck_assert_msg(strstr(err.msg, "W is not positive semidefinite") != NULL, "%s", err.msg);
        const char *at = strstr(err.msg, "smallest eigenvalue is about -");
        double figure = 0;
        ck_assert_msg(at && sscanf(at, "smallest eigenvalue is about -%lf", &figure) == 1, "%s",
                      err.msg);
        ck_assert_msg(figure > 0.9e-3 && figure < 1.1e-3, "figure %g: %s", figure, err.msg);
        ck_assert_msg(strstr(err.msg, "allowance of 1e-06") != NULL, "%s", err.msg);
        return;
    }
    ck_assert_msg(rc == MCB_OK, "delta %g: %s", delta[_i], err.msg);
    if (_i == 0) {
        ck_assert_msg(P->psd_defect > 0.9e-13 && P->psd_defect < 1.1e-13, "psd_defect %g",
                      P->psd_defect);
        const char *at = strstr(P->notes, "W indefinite by round-off: smallest eigenvalue about -");
        double figure = 0;
        ck_assert_msg(at && sscanf(at, "W indefinite by round-off: smallest eigenvalue about -%lf",
                                   &figure) == 1, "notes: %s", P->notes);
        ck_assert_msg(figure > 0.9e-13 && figure < 1.1e-13, "notes: %s", P->notes);
    } else {
        ck_assert_double_eq(P->psd_defect, 0);
        ck_assert_msg(strstr(P->notes, "indefinite") == NULL, "notes: %s", P->notes);
    }
    ck_assert_int_eq(mcb_problem_validate(P, tmp, &err), MCB_OK);
    mcb_problem_free(&P);
}
END_TEST

/* `test_import`: everything that needs no data; `test_import shared FILE`:
 * the import of one shared FCLIB file, skipped (77) when it is absent. */
int main(int argc, char **argv)
{
    int k = -1;
    if (argc == 3 && strcmp(argv[1], "shared") == 0) {
        for (k = 0; k < NSHARED && strcmp(shared[k].file, argv[2]) != 0; k++) continue;
        if (k == NSHARED) {
            fprintf(stderr, "test_import: %s is not in the table of shared files\n", argv[2]);
            return EXIT_FAILURE;
        }
        char p[1024];
        if (!shared_path(k, p, sizeof p)) return mcb_test_skip("absent: ", p);
    }
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("fclib");
    tcase_set_timeout(tc, 120);
    if (k >= 0) {
        tcase_add_loop_test(tc, imports_shared_files, k, k + 1);
    } else {
        tcase_add_loop_test(tc, rejects_bad_fclib, 0, 5);
        tcase_add_test(tc, imports_handmade_global);
        tcase_add_loop_test(tc, imports_global_in_each_storage, ST_TRIPLET, ST_CSR + 1);
        tcase_add_loop_test(tc, imports_local_in_each_storage, ST_TRIPLET, ST_CSR + 1);
        tcase_add_loop_test(tc, judges_indefinite_w_relative_to_its_norm, 0, 3);
    }
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

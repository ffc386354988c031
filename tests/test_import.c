/* test_import.c: FCLIB import of the shared problems (skipped cleanly when
 * ../shared/fclib is absent) and rejection of malformed or unsupported
 * FCLIB files. */
#include <check.h>

#include "check_main.h"
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcb_h5.h"
#include "metrics.h"
#include "problems.h"
#include "runner.h"

static const struct {
    const char *file;
    int form, m, n;
} shared[] = {
    {"Box_Stacks-i0122-82-5.hdf5", MCB_PRIMAL, 246, 450},
    {"Capsules-i125-1213.hdf5", MCB_DUAL, 858, 0},
    {"CubeH8.hdf5", MCB_PRIMAL, 3, 162},
    {"LMGC_GlobalFrictionContactProblem00046.hdf5", MCB_PRIMAL, 27, 162},
};

static int shared_path(int k, char *buf, size_t len)
{
    snprintf(buf, len, "%s/fclib/%s", MCB_SHARED_DIR, shared[k].file);
    return access(buf, R_OK) == 0;
}

START_TEST(imports_shared_files)
{
    char p[1024];
    if (!shared_path(_i, p, sizeof p)) {
        printf("skipped: %s absent\n", p);
        return;
    }
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

int main(void)
{
    Suite *s = suite_create("import");
    TCase *tc = tcase_create("fclib");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, imports_shared_files, 0, 4);
    tcase_add_loop_test(tc, rejects_bad_fclib, 0, 5);
    tcase_add_test(tc, imports_handmade_global);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

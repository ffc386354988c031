/* test_gpu.c: the GPU solvers without a GPU (docs/gpu.md). Built when CMake
 * finds the CUDA compiler; needs no device.
 *   - The host twin of ccp-jacobi-gpu (the same setup, layout and
 *     per-element functions of solvers/gpu/ccp_kernels.h as the CUDA
 *     kernels, run by the host backend) against ccp-jacobi through the
 *     harness, on the small fixtures and on a generated stack, wall and
 *     quadrupeds: the same statuses and iteration counts, the same iterates
 *     bit for bit (tolerance 0: the same arithmetic in the same order), the
 *     own residual within 1e-12 relative (its sums are added in another
 *     order), the harness's residuals equal.
 *   - Known answers of the kernels' arithmetic: the cone projection, a
 *     contact step, unilateral and soft rows, the body update, the
 *     residual's chunked reduction.
 *   - Refusals: a subsystem above the dense limit is skipped with the
 *     reason; bad parameters fail setup; ccp-jacobi-gpu without a device
 *     fails setup with the CUDA error's text (with one: agrees with the
 *     CPU). */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fixtures.h"
#include "harness/runner.h"
#include "lib/mcb_chol.h"
#include "lib/mcb_hd.h"
#include "problems/gen_stack.h"
#include "problems/scene/scenes.h"
#include "solvers/ccp_jacobi.h"
#include "solvers/gpu/ccp_kernels.h"
#include "solvers/gpu/gpu_backend.h"
#include "solvers/gpu/gpu_solvers.h"
#include "solvers/gpu/pj_kernels.h"
#include "solvers/pj.h"

/* ---------------------------------------------------------- the problems */
static mcb_problem *last_of(mcb_problem_set *S)
{
    ck_assert_ptr_nonnull(S);
    mcb_problem *P = S->items[S->count - 1];
    S->items[S->count - 1] = NULL;
    mcb_problem_set_free(&S);
    return P;
}

static mcb_problem *f_open(void) { return fx_point_contact(FX_OPEN); }
static mcb_problem *f_stick(void) { return fx_point_contact(FX_STICK); }
static mcb_problem *f_slip(void) { return fx_point_contact(FX_SLIP); }
static mcb_problem *f_compliant(void) { return fx_compliant(FX_SLIP); }
static mcb_problem *f_soft(void) { return fx_one_row(MCB_SOFT, 2.0, 1.0, 0.5, 10.0, 0.5); }
static mcb_problem *f_soft_fixed(void) { return fx_one_row(MCB_SOFT, 2.0, 1.0, 0.5, 0.0, 0.5); }
static mcb_problem *f_unilateral(void) { return fx_one_row(MCB_UNILATERAL, 2.0, -1.0, 0.5, 0, 0); }
static mcb_problem *f_bilateral(void) { return fx_one_row(MCB_BILATERAL, 2.0, 1.0, 0.5, 0, 0); }

static mcb_problem *f_stack(void) /* 27 spheres */
{
    mcb_stack_opts o;
    mcb_stack_defaults(&o);
    o.nx = o.ny = o.nz = 3;
    o.steps = 2;
    mcb_problem_set *S = NULL;
    ck_assert_int_eq(mcb_gen_stack(&o, &S, NULL), MCB_OK);
    return last_of(S);
}

static mcb_problem *f_wall(void) /* 100 bricks, a step after the first */
{
    const double vals[] = {100, 2};
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_msg(mcb_scene_wall(vals, NULL, &S, &err) == MCB_OK, "%s", err.msg);
    return last_of(S);
}

static mcb_problem *f_quadrupeds(void) /* 8 robots of 18 DOF, on the floor */
{
    const double vals[] = {8, 40, 0.05, 18971};
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_msg(mcb_scene_quadrupeds(vals, NULL, &S, &err) == MCB_OK, "%s", err.msg);
    return last_of(S);
}

typedef mcb_problem *(*fixture_fn)(void);
static const struct {
    const char *name;
    fixture_fn make;
} fixtures[] = {{"open", f_open},
                {"stick", f_stick},
                {"slip", f_slip},
                {"compliant", f_compliant},
                {"mixed", fx_mixed},
                {"mixed_active", fx_mixed_active},
                {"stack2", fx_small_stack},
                {"soft", f_soft},
                {"soft_fixed", f_soft_fixed},
                {"unilateral", f_unilateral},
                {"bilateral", f_bilateral},
                {"stack27", f_stack},
                {"wall100", f_wall},
                {"quadrupeds8", f_quadrupeds}};
#define NFIX (int)(sizeof fixtures / sizeof fixtures[0])

/* ------------------------------------------- host twin against the CPU */
/* The CPU solver `cpu_name` (2 threads) against the host twin `twin` (1). */
static void compare_with(const char *cpu_name, const mcb_solver_def *twin, const char *name,
                         const mcb_problem *P, const void *prm, double tol, int iters)
{
    mcb_run cpu, gpu;
    check_run(P, cpu_name, prm, tol, iters, 2, MCB_LAW_NCP, &cpu);
    check_run_def(P, twin, prm, tol, iters, 1, MCB_LAW_NCP, &gpu);
    ck_assert_msg(gpu.info.status != MCB_ST_SKIPPED && gpu.info.status != MCB_ST_SETUP_FAILED,
                  "%s: the host twin did not run (%s)", name, gpu.info.reason);
    ck_assert_msg(gpu.info.status == cpu.info.status, "%s: %s on the host twin, %s on the CPU (%s)",
                  name, mcb_status_name(gpu.info.status), mcb_status_name(cpu.info.status),
                  gpu.info.reason);
    ck_assert_int_eq(gpu.info.iterations, cpu.info.iterations);
    for (int j = 0; j < P->n; j++)
        ck_assert_msg(gpu.v[j] == cpu.v[j], "%s: v[%d] %.17g != %.17g", name, j, gpu.v[j],
                      cpu.v[j]);
    for (int r = 0; r < P->m; r++)
        ck_assert_msg(gpu.lambda[r] == cpu.lambda[r], "%s: lambda[%d] %.17g != %.17g", name, r,
                      gpu.lambda[r], cpu.lambda[r]);
    double o1 = gpu.info.own_residual, o2 = cpu.info.own_residual;
    ck_assert_msg(fabs(o1 - o2) <= 1e-12 * fmax(fabs(o2), 1e-300) || (isnan(o1) && isnan(o2)),
                  "%s: own residual %.17g != %.17g", name, o1, o2);
    for (int k = 0; k < MCB_NMETRICS; k++)
        ck_assert_msg(gpu.final.val[k] == cpu.final.val[k] ||
                          (isnan(gpu.final.val[k]) && isnan(cpu.final.val[k])),
                      "%s: metric %d %.17g != %.17g", name, k, gpu.final.val[k],
                      cpu.final.val[k]);
    mcb_run_clear(&cpu);
    mcb_run_clear(&gpu);
}

static void compare(const char *name, const mcb_problem *P, const void *prm, double tol, int iters)
{
    compare_with("ccp-jacobi", &mcb_solver_ccp_jacobi_gpu_host, name, P, prm, tol, iters);
}

START_TEST(host_twin_equals_cpu)
{
    mcb_problem *P = fixtures[_i].make();
    ck_assert_ptr_nonnull(P);
    compare(fixtures[_i].name, P, NULL, 1e-8, 300);      /* to the tolerance or the budget */
    mcb_ccpj_params prm;
    mcb_ccpj_defaults(&prm);
    prm.relax = 0.7, prm.omega = 0.5, prm.own_tol = 1e-10;
    compare(fixtures[_i].name, P, &prm, 0.0, 200);        /* relaxed, own stop */
    mcb_problem_free(&P);
}
END_TEST

/* pj-gpu's host twin against pj with matrix_free = 1 (the iteration the
 * GPU path runs; the assembled-W pj differs from it by round-off only), on
 * the same fixtures: default parameters to the tolerance or the budget,
 * then a fixed omega, under-relaxation and the own stop. */
START_TEST(pj_host_twin_equals_cpu)
{
    mcb_problem *P = fixtures[_i].make();
    ck_assert_ptr_nonnull(P);
    mcb_pj_params prm;
    mcb_pj_defaults(&prm);
    prm.matrix_free = 1;
    compare_with("pj", &mcb_solver_pj_gpu_host, fixtures[_i].name, P, &prm, 1e-8, 300);
    prm.omega = 0.6, prm.relax = 0.7, prm.own_tol = 1e-10;
    compare_with("pj", &mcb_solver_pj_gpu_host, fixtures[_i].name, P, &prm, 0.0, 200);
    mcb_problem_free(&P);
}
END_TEST

/* ------------------------------------------------------- known answers */
START_TEST(cone_projection)
{
    double p[3];
    const double in[3] = {2, 0.3, 0.4}; /* ||t|| = 0.5 <= 0.5 * 2: inside */
    mcb_hd_proj_cone(0.5, in, p);
    for (int k = 0; k < 3; k++) ck_assert_double_eq(p[k], in[k]);
    const double polar[3] = {-2, 0.3, 0.4}; /* 0.5 * 0.5 <= 2: polar cone */
    mcb_hd_proj_cone(0.5, polar, p);
    for (int k = 0; k < 3; k++) ck_assert_double_eq(p[k], 0.0);
    const double out[3] = {1, 3, 4}; /* ||t|| = 5, mu 1: pn = (1 + 5) / 2 = 3, t scaled 3/5 */
    mcb_hd_proj_cone(1.0, out, p);
    ck_assert_double_eq_tol(p[0], 3.0, 1e-15);
    ck_assert_double_eq_tol(p[1], 1.8, 1e-15);
    ck_assert_double_eq_tol(p[2], 2.4, 1e-15);
    const double fr[3] = {-1, 3, 4}; /* mu 0: (max(n, 0), 0, 0) */
    mcb_hd_proj_cone(0.0, fr, p);
    ck_assert_double_eq(p[0], 0.0);
    mcb_hd_proj_cone(0.0, out, p);
    ck_assert_double_eq(p[0], 1.0);
    ck_assert_double_eq(p[1], 0.0);
}
END_TEST

/* One DOF-free contact (J = 0): u = e + r lambda; lambda - omega eta u
 * = (1, 0, 0) - 0.5 (-2, 6, 8) = (2, -3, -4), projected on mu 1:
 * (3.5, -2.1, -2.8); relax 0.5 averages with lambda: (2.25, -1.05, -1.4).
 * Then a unilateral row clamped at 0, a soft row, a fixed soft row. */
START_TEST(contact_and_row_steps)
{
    int nnz0[4] = {0, 0, 0, 1}, col[4] = {0, 0, 0, 0}, c_row = 0, o_row = 3, o_type;
    double val[4] = {0, 0, 0, 2.0}, e[4] = {-2, 6, 8, 1}, rr[4] = {0};
    double eta[4] = {0.5, 0.5, 0.5, 1.0}, c[4] = {0}, d[4] = {0}, fixed[4] = {0, 0, 0, NAN};
    double lambda[4] = {1, 0, 0, 0.5}, v[1] = {1.0}, mu = 1.0;
    mcb_ccp_soa S = {.m = 4, .n = 1, .nc = 1, .no = 1, .width = 1, .omega = 1.0, .relax = 0.5,
                     .row_nnz = nnz0, .ell_col = col, .ell_val = val, .e = e, .rr = rr,
                     .eta = eta, .c = c, .d = d, .fixed = fixed, .c_row = &c_row, .c_mu = &mu,
                     .o_row = &o_row, .o_type = &o_type, .lambda = lambda, .v = v};
    ccpk_contact(&S, 0);
    ck_assert_double_eq_tol(lambda[0], 2.25, 1e-15);
    ck_assert_double_eq_tol(lambda[1], -1.05, 1e-15);
    ck_assert_double_eq_tol(lambda[2], -1.4, 1e-15);
    /* unilateral: u = 1 + 2 * 1 = 3, x = 0.5 - 3 < 0 -> 0; relax 0.5: 0.25 */
    o_type = MCB_UNILATERAL;
    ccpk_row(&S, 0);
    ck_assert_double_eq(lambda[3], 0.25);
    /* bilateral: x = 0.25 - 3 = -2.75; relax 0.5: -1.25 */
    o_type = MCB_BILATERAL;
    ccpk_row(&S, 0);
    ck_assert_double_eq(lambda[3], -1.25);
    /* soft: g = u + c lambda + d = 3 + 2 (-1.25) + 1 = 1.5, x = -2.75; -> -2 */
    o_type = MCB_SOFT, c[3] = 2.0, d[3] = 1.0;
    ccpk_row(&S, 0);
    ck_assert_double_eq(lambda[3], -2.0);
    fixed[3] = -7.0; /* a fixed impulse is left alone */
    ccpk_row(&S, 0);
    ck_assert_double_eq(lambda[3], -2.0);
}
END_TEST

/* pj's block update (pj_kernels.h), shared by pj.c and the kernels: a
 * bilateral row lambda 1, u 2, d 4, omega 0.5: 1 - 0.5 * 2 / 4 = 0.75;
 * relax 0.5: 0.875, change 0.125^2. A unilateral row clamped at 0, and
 * no relaxation: -0.25 -> 0, change 1. */
START_TEST(pj_block_update)
{
    double lambda = 1.0, u = 2.0, d = 4.0, e = 0.0, Wb[9] = {0}, next;
    double c = pjk_block_update(MCB_BILATERAL, 1, 0, 0, 0, &e, &lambda, &u, &d, Wb, 0.5, 0.5,
                                &next);
    ck_assert_double_eq(next, 0.875);
    ck_assert_double_eq(c, 0.125 * 0.125);
    u = 5.0;
    c = pjk_block_update(MCB_UNILATERAL, 1, 0, 0, 0, &e, &lambda, &u, &d, Wb, 1.0, 1.0, &next);
    ck_assert_double_eq(next, 0.0);
    ck_assert_double_eq(c, 1.0);
}
END_TEST

/* A 2-DOF subsystem A = [4 2; 2 3], b = (1, 2), J = [1 1] (one row),
 * lambda = 3: A v = (4, 5), v = (2, 12) / 8. */
START_TEST(body_update)
{
    double L[4] = {4, 2, 2, 3}; /* by columns */
    ck_assert_int_eq(mcb_dense_chol(2, L), MCB_OK);
    int s0[2] = {0, 2}, Jp[3] = {0, 1, 2}, Ji[2] = {0, 0};
    size_t L0 = 0;
    double Jx[2] = {1, 1}, b[2] = {1, 2}, lambda[1] = {3}, v[2] = {9, 9}, vprev[2];
    mcb_ccp_soa S = {.m = 1, .n = 2, .ns = 1, .s0 = s0, .L0 = &L0, .L = L, .Jp = Jp, .Ji = Ji,
                     .Jx = Jx, .b = b, .lambda = lambda, .v = v, .vprev = vprev};
    ccpk_body(&S, 0);
    ck_assert_double_eq_tol(v[0], 0.25, 1e-15);
    ck_assert_double_eq_tol(v[1], 1.5, 1e-15);
    ck_assert_double_eq(vprev[0], 9.0);
    ck_assert_double_eq(vprev[1], 9.0);
}
END_TEST

/* The residual's sums through the host backend's chunks (three of them):
 * v = 1..n, vprev = 0: sum v^2 = n (n + 1) (2 n + 1) / 6, twice; one
 * non-finite lambda counted. */
START_TEST(chunked_reduction)
{
    enum { N = 600 };
    static double v[N], vprev[N], lambda[N], part[3 * 3];
    for (int k = 0; k < N; k++) v[k] = k + 1, vprev[k] = 0, lambda[k] = 1;
    lambda[N - 1] = INFINITY;
    int s0[1] = {0};
    mcb_ccp_soa H = {.m = N, .n = N, .ns = 0, .nchunks = 3, .s0 = s0, .lambda = lambda, .v = v,
                     .vprev = vprev, .part = part};
    void *dev = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_gpu_host_backend.open(&H, &dev, &err), MCB_OK);
    double out[3];
    char why[64];
    ck_assert_int_eq(mcb_gpu_host_backend.sweep(dev, out, why, sizeof why), 0);
    double want = (double)N * (N + 1) * (2 * N + 1) / 6;
    ck_assert_double_eq(out[0], want);
    ck_assert_double_eq(out[1], want);
    ck_assert_double_eq(out[2], 1.0);
    mcb_gpu_host_backend.close(&dev);
    mcb_gpu_host_backend.close(&dev); /* NULL: nothing */
}
END_TEST

/* ------------------------------------------------------------- refusals */
START_TEST(large_subsystem_skipped)
{
    enum { N = 70 };
    static double A[N * N], b[N], J[N], e[1] = {-1};
    for (int i = 0; i < N; i++) {
        A[i * N + i] = 4;
        if (i + 1 < N) A[i * N + i + 1] = A[(i + 1) * N + i] = 1; /* one connected block */
        J[i] = 1;
    }
    mcb_problem *P = fx_dense_primal(N, 1, A, b, J, e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_UNILATERAL, 0, 1, 0, 0, 0};
    ck_assert_int_eq(mcb_problem_infer_subsystems(P, NULL), MCB_OK);
    mcb_run run;
    check_run_def(P, &mcb_solver_ccp_jacobi_gpu_host, NULL, 1e-8, 50, 1, MCB_LAW_NCP, &run);
    ck_assert_int_eq(run.info.status, MCB_ST_SKIPPED);
    ck_assert_msg(strstr(run.info.reason, "dense limit 64"), "%s", run.info.reason);
    mcb_run_clear(&run);
    check_run(P, "ccp-jacobi", NULL, 1e-8, 50, 1, MCB_LAW_NCP, &run); /* the CPU takes it */
    ck_assert_int_ne(run.info.status, MCB_ST_SKIPPED);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(bad_params_fail_setup)
{
    mcb_problem *P = fx_point_contact(FX_SLIP);
    mcb_ccpj_params prm;
    mcb_ccpj_defaults(&prm);
    prm.relax = 1.5;
    void *work = NULL;
    mcb_settings s;
    mcb_settings_default(&s);
    mcb_err err;
    ck_assert_int_eq(mcb_solver_ccp_jacobi_gpu_host.setup(P, &s, &prm, &work, &err), MCB_E_INPUT);
    ck_assert_ptr_null(work);
    ck_assert_ptr_nonnull(strstr(err.msg, "relax"));
    mcb_solver_ccp_jacobi_gpu_host.free(NULL);
    mcb_problem_free(&P);
}
END_TEST

/* pj-gpu refuses what its path does not take, with the reason: a dual
 * problem (the matrix-free operator needs A), a large subsystem; bad
 * parameters fail setup. */
START_TEST(pj_refusals)
{
    char why[256] = "";
    mcb_problem *P = fx_small_stack();
    ck_assert_int_eq(mcb_pj_gpu_accepts(P, why, sizeof why), 1);
    P->form = MCB_DUAL;
    ck_assert_int_eq(mcb_pj_gpu_accepts(P, why, sizeof why), 0);
    ck_assert_msg(why[0] != 0, "no reason");
    P->form = MCB_PRIMAL;
    mcb_pj_params prm;
    mcb_pj_defaults(&prm);
    prm.relax = 1.5;
    void *work = NULL;
    mcb_settings s;
    mcb_settings_default(&s);
    mcb_err err;
    ck_assert_int_eq(mcb_solver_pj_gpu_host.setup(P, &s, &prm, &work, &err), MCB_E_INPUT);
    ck_assert_ptr_null(work);
    ck_assert_ptr_nonnull(strstr(err.msg, "relax"));
    mcb_solver_pj_gpu_host.free(NULL);
    mcb_problem_free(&P);
}
END_TEST

/* ccp-jacobi-gpu itself: without a device, setup fails with the CUDA
 * error's text and nothing crashes; with one, it agrees with the CPU. */
START_TEST(device_or_clear_failure)
{
    char dev[512];
    int have = mcb_gpu_describe(dev, sizeof dev);
    mcb_problem *P = fx_small_stack();
    for (int k = 0; k < 2; k++) {
    const char *gname = k ? "pj-gpu" : "ccp-jacobi-gpu", *cname = k ? "pj" : "ccp-jacobi";
    mcb_run gpu, cpu;
    check_run(P, gname, NULL, 1e-8, 300, 1, MCB_LAW_NCP, &gpu);
    check_run(P, cname, NULL, 1e-8, 300, 1, MCB_LAW_NCP, &cpu);
    if (!have) {
        ck_assert_ptr_nonnull(strstr(dev, "none ("));
        ck_assert_int_eq(gpu.info.status, MCB_ST_SETUP_FAILED);
        ck_assert_msg(strstr(gpu.info.reason, "no CUDA device"), "%s", gpu.info.reason);
    } else {
        ck_assert_int_eq(gpu.info.status, cpu.info.status);
        ck_assert_int_eq(gpu.info.iterations, cpu.info.iterations);
        for (int r = 0; r < P->m; r++)
            ck_assert_double_eq_tol(gpu.lambda[r], cpu.lambda[r],
                                    1e-12 * (1 + fabs(cpu.lambda[r])));
    }
    mcb_run_clear(&gpu);
    mcb_run_clear(&cpu);
    }
    mcb_problem_free(&P);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, host_twin_equals_cpu, 0, NFIX);
    tcase_add_loop_test(tc, pj_host_twin_equals_cpu, 0, NFIX);
    tcase_add_test(tc, pj_block_update);
    tcase_add_test(tc, pj_refusals);
    tcase_add_test(tc, cone_projection);
    tcase_add_test(tc, contact_and_row_steps);
    tcase_add_test(tc, body_update);
    tcase_add_test(tc, chunked_reduction);
    tcase_add_test(tc, large_subsystem_skipped);
    tcase_add_test(tc, bad_params_fail_setup);
    tcase_add_test(tc, device_or_clear_failure);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mcb_run_suite(suite()); }

/* test_cond.c: the COND family (cond, cond-prox, cond-nocheb) through the
 * harness. Known answers: the one-contact states in one iteration on the
 * nodal fast path; the sliding contact, where cond (strict operator) finds
 * the Coulomb solution and cond-prox the CCP one (the Signorini relaxation:
 * the contact lifts off at u_n = mu ||u_t||); the virtual-node perturbation
 * of Prop. 2 shrinking with kappa and removed by vn_update; each variant on
 * the small fixtures under its law; bit for bit across thread counts; no
 * allocation in the loop; the shared FCLIB files (skipped when absent);
 * the failure statuses on ill-posed problems. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "fixtures.h"
#include "problems/import_fclib.h"
#include "harness/runner.h"
#include "lib/mcb_cone.h"
#include "solvers/solver.h"

#include "alloc_count.h"

/* Parameters of `solver` with "NAME=VALUE" settings applied (NULL-ended). */
static void params_with(const char *solver, double *prm, const char *const *set)
{
    const mcb_solver_def *def = mcb_solver_find(solver);
    ck_assert_ptr_nonnull(def);
    ck_assert_uint_le(def->params_size, 32 * sizeof(double));
    def->default_params(prm);
    for (int k = 0; set && set[k]; k++) {
        char name[64];
        const char *eq = strchr(set[k], '=');
        ck_assert_ptr_nonnull(eq);
        snprintf(name, sizeof name, "%.*s", (int)(eq - set[k]), set[k]);
        mcb_err err;
        ck_assert_msg(mcb_param_set(def, prm, name, eq + 1, &err) == MCB_OK, "%s", err.msg);
    }
}

/* One harness run under the given law; the caller clears run. */
static void run_law(const mcb_problem *P, const char *solver, const double *prm, int law,
                    int iters, double tol, int threads, mcb_run *run)
{
    check_run(P, solver, prm, tol, iters, threads, law, run);
}

/* The variants and the law each solves. */
static const char *variants[3] = {"cond", "cond-prox", "cond-nocheb"};
static const int variant_law[3] = {MCB_LAW_NCP, MCB_LAW_CCP, MCB_LAW_NCP};

/* A point mass on the ground is a nodal S-contact (rows [z, x, y]: a
 * rotation) with A = I = Ã: the first iteration is exact (Prop. 3, 4). */
START_TEST(point_contact_exact_in_one_iteration)
{
    for (int st = FX_OPEN; st <= FX_SLIP; st++)
        for (int s = 0; s < 3; s++) {
            if (st == FX_SLIP && s == 1) continue; /* another solution: below */
            mcb_problem *P = fx_point_contact(st);
            mcb_run run;
            run_law(P, variants[s], NULL, variant_law[s], 100, 1e-13, 1, &run);
            ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s state %d: %s", variants[s], st,
                          mcb_status_name(run.info.status));
            ck_assert_int_eq(run.info.iterations, 1);
            double v[3], l[3];
            fx_point_solution(st, v, l);
            for (int k = 0; k < 3; k++) {
                ck_assert_double_eq_tol(run.v[k], v[k], 1e-14);
                ck_assert_double_eq_tol(run.lambda[k], l[k], 1e-14);
            }
            mcb_run_clear(&run);
            mcb_problem_free(&P);
        }
}
END_TEST

/* The sliding contact (vfree = (2, 0, -1), mu 0.5): cond's strict operator
 * gives the Coulomb solution lambda = (1, -0.5, 0), v = (1.5, 0, 0) (u_n = 0,
 * exact under --law ncp, natmap_ccp > 0); cond-prox's proximal operator
 * the CCP one lambda = (1.6, -0.8, 0), v = (1.2, 0, 0.6): the contact lifts
 * off at u_n = mu ||u_t|| = 0.6 (Prop. 5), its Coulomb natural map 0.3.
 * The same holds on the virtual-node path (nodal = 0, vn_update). */
START_TEST(strict_and_proximal_differ_on_sliding)
{
    const double v_ncp[3] = {1.5, 0, 0}, l_ncp[3] = {1, -0.5, 0};
    const double v_ccp[3] = {1.2, 0, 0.6}, l_ccp[3] = {1.6, -0.8, 0};
    for (int path = 0; path < 2; path++) {
        const char *set[] = {path ? "nodal=0" : NULL, "vn_update=10", NULL};
        double tol = path ? 1e-10 : 1e-13;
        for (int s = 0; s < 2; s++) {
            double prm[32];
            params_with(variants[s], prm, set);
            mcb_problem *P = fx_point_contact(FX_SLIP);
            mcb_run run;
            run_law(P, variants[s], prm, variant_law[s], 20000, tol, 1, &run);
            ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s path %d: %s (natmap %g)",
                          variants[s], path, mcb_status_name(run.info.status),
                          run.final.val[MCB_M_NATMAP]);
            const double *v = s ? v_ccp : v_ncp, *l = s ? l_ccp : l_ncp;
            for (int k = 0; k < 3; k++) {
                ck_assert_double_eq_tol(run.v[k], v[k], 1e-8);
                ck_assert_double_eq_tol(run.lambda[k], l[k], 1e-8);
            }
            if (s == 0) {
                ck_assert_double_le(run.final.val[MCB_M_NATMAP_NCP], tol);
                ck_assert_double_gt(run.final.val[MCB_M_NATMAP_CCP], 0.1);
            } else {
                ck_assert_double_le(run.final.val[MCB_M_NATMAP_CCP], tol);
                ck_assert_double_eq_tol(run.final.val[MCB_M_NATMAP_NCP], 0.3, 1e-7);
            }
            mcb_run_clear(&run);
            mcb_problem_free(&P);
        }
    }
}
END_TEST

/* Prop. 2: on the virtual-node path with the paper's law on w + e
 * (vn_update = 0) the fixed point is perturbed, by less as kappa grows;
 * the outer shift (vn_update = 10, cond-shift's default) removes the
 * perturbation. */
START_TEST(virtual_node_error_shrinks_with_kappa)
{
    const char *kappas[3] = {"kappa=1", "kappa=10", "kappa=100"};
    double err[3];
    for (int k = 0; k < 3; k++) {
        const char *set[] = {"nodal=0", "vn_update=0", kappas[k], NULL};
        double prm[32];
        params_with("cond", prm, set);
        mcb_problem *P = fx_point_contact(FX_STICK);
        mcb_run run;
        run_law(P, "cond", prm, MCB_LAW_NCP, 20000, 0.0, 1, &run);
        double v[3], l[3];
        fx_point_solution(FX_STICK, v, l);
        err[k] = 0.0;
        for (int a = 0; a < 3; a++) err[k] = fmax(err[k], fabs(run.lambda[a] - l[a]));
        ck_assert_double_le(run.info.own_residual, 1e-12); /* converged, to another point */
        mcb_run_clear(&run);
        mcb_problem_free(&P);
    }
    ck_assert_double_gt(err[0], 1e-3);
    ck_assert_double_lt(err[1], err[0] / 5);
    ck_assert_double_lt(err[2], err[1] / 5);
    const char *set[] = {"nodal=0", NULL};
    double prm[32];
    params_with("cond-shift", prm, set);
    mcb_problem *P = fx_point_contact(FX_STICK);
    mcb_run run;
    run_law(P, "cond-shift", prm, MCB_LAW_NCP, 20000, 1e-12, 1, &run);
    ck_assert_int_eq(run.info.status, MCB_ST_SOLVED);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* The invertible contact model (Sec. III-E1): on the compliant point
 * contact (r = (1, 0.25, 0.25): unequal, so virtual nodes with kappa_r =
 * 1 / r_r) and on the same contact with r = 0.5 on every row (the nodal path,
 * G + R = (g + r) I), cond converges to the compliant law's solution, the
 * one pgs finds (and, for the fixture's r, the hand-computed one of
 * tests/fixtures.c), and the impulse recovered from its velocity alone,
 * lambda = P_strict(-(J v + e) / r) (mcb_contact_inverse), agrees with its
 * forward lambda. Sticking and sliding. */
START_TEST(invertible_contact_forward_equals_inverse)
{
    for (int st = FX_STICK; st <= FX_SLIP; st++)
        for (int uni = 0; uni < 2; uni++) {
            mcb_problem *P = fx_compliant(st);
            if (uni)
                for (int k = 0; k < 3; k++) P->r[k] = 0.5;
            mcb_run run, ref;
            run_law(P, "cond", NULL, MCB_LAW_NCP, 20000, 1e-12, 1, &run);
            ck_assert_msg(run.info.status == MCB_ST_SOLVED, "state %d r %s: %s (%s)", st,
                          uni ? "uniform" : "fixture", mcb_status_name(run.info.status),
                          run.info.reason);
            run_law(P, "pgs", NULL, MCB_LAW_NCP, 20000, 1e-13, 1, &ref);
            ck_assert_int_eq(ref.info.status, MCB_ST_SOLVED);
            double c[3], li[3];
            memcpy(c, P->e, sizeof c);
            mcb_csc_gaxpy(P->J, run.v, c);
            ck_assert_int_eq(mcb_contact_inverse(0, P->blocks[0].mu, P->r, c, li), 0);
            double v[3], l[3];
            fx_compliant_solution(st, v, l);
            for (int k = 0; k < 3; k++) {
                ck_assert_double_eq_tol(run.lambda[k], ref.lambda[k], 1e-9);
                ck_assert_double_eq_tol(li[k], run.lambda[k], 1e-9);
                if (!uni) ck_assert_double_eq_tol(run.lambda[k], l[k], 1e-9);
            }
            ck_assert(st != FX_SLIP || fabs(run.lambda[1]) > 0.0); /* friction acts */
            mcb_run_clear(&run);
            mcb_run_clear(&ref);
            mcb_problem_free(&P);
        }
}
END_TEST

/* Anisotropic friction with maximal dissipation (Prop. 6): the one-contact
 * slide of tests/fixtures.c, whose MDP solution was computed by hand
 * (lambda = (1, -0.6, -0.2): not opposite to the sliding u_t = (0.6, 3.2)).
 * cond solves it natively with the elliptic strict operator (on the nodal
 * path in one iteration, and on a virtual node with cond-shift), pgs and
 * nnewton through the runner's isotropic equivalent (lib/mcb_aniso.h), all
 * to the same lambda, judged by the elliptic law. cond with prox = 1 is
 * refused (no closed form); cond-prox gets the equivalent and solves its
 * CCP. */
START_TEST(anisotropic_slide_is_the_mdp_solution)
{
    double v[3], l[3];
    fx_aniso_slide_solution(v, l);
    const struct {
        const char *solver, *set;
        double tol;
    } runs[] = {{"cond", NULL, 1e-13},
                {"cond-shift", "nodal=0", 1e-10},
                {"pgs", NULL, 1e-12},
                {"nnewton", NULL, 1e-12}};
    for (int k = 0; k < 4; k++) {
        mcb_problem *P = fx_aniso_slide();
        const char *set[] = {runs[k].set, NULL};
        double prm[32];
        params_with(runs[k].solver, prm, set);
        mcb_run run;
        run_law(P, runs[k].solver, prm, MCB_LAW_NCP, 20000, runs[k].tol, 1, &run);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s: %s (%s)", runs[k].solver,
                      mcb_status_name(run.info.status), run.info.reason);
        if (k == 0) ck_assert_int_eq(run.info.iterations, 1);
        for (int a = 0; a < 3; a++) {
            ck_assert_double_eq_tol(run.lambda[a], l[a], 1e-8);
            ck_assert_double_eq_tol(run.v[a], v[a], 1e-8);
        }
        mcb_run_clear(&run);
        mcb_problem_free(&P);
    }
    mcb_problem *D = fx_aniso_slide_dual(); /* the dual form, W scaled on both sides */
    for (int k = 0; k < 2; k++) {
        mcb_run run;
        run_law(D, k ? "psor" : "pgs", NULL, MCB_LAW_NCP, 20000, 1e-12, 1, &run);
        ck_assert_int_eq(run.info.status, MCB_ST_SOLVED);
        for (int a = 0; a < 3; a++) ck_assert_double_eq_tol(run.lambda[a], l[a], 1e-8);
        mcb_run_clear(&run);
    }
    mcb_problem_free(&D);
    mcb_problem *P = fx_aniso_slide();
    const mcb_solver_def *def = mcb_solver_find("cond");
    const char *set[] = {"prox=1", NULL};
    double prm[32];
    params_with("cond", prm, set);
    mcb_settings st;
    mcb_settings_default(&st);
    void *work = NULL;
    mcb_err err;
    ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_E_INPUT);
    ck_assert_ptr_null(work);
    ck_assert_ptr_nonnull(strstr(err.msg, "anisotropic"));
    /* the equivalent's rows diag(1, 1, 0.25) are not a rotation: a virtual
     * node, exact with the outer shift */
    const char *shift[] = {"vn_update=10", NULL};
    params_with("cond-prox", prm, shift);
    mcb_run run;
    run_law(P, "cond-prox", prm, MCB_LAW_CCP, 20000, 1e-10, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "cond-prox: %s (%s)",
                  mcb_status_name(run.info.status), run.info.reason);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* Each variant with the outer shift (vn_update = 10) solves the small
 * fixtures to natmap 1e-8 under its law (without it: tests/test_solvers.c). */
typedef mcb_problem *(*fixture_fn)(void);
static const struct {
    const char *name;
    fixture_fn make;
} fixtures[] = {{"mixed", fx_mixed},
                {"mixed_active", fx_mixed_active},
                {"stack2", fx_small_stack},
                {"gfc3d_example1", fx_gfc3d_example1}};
#define NFIX (int)(sizeof fixtures / sizeof fixtures[0])

START_TEST(fixtures_solved_under_law)
{
    int f = _i / 3, s = _i % 3;
    mcb_problem *P = fixtures[f].make();
    mcb_run run;
    const char *set[] = {"vn_update=10", NULL}; /* the outer shift: exact on J v + e */
    double prm[32];
    params_with(variants[s], prm, set);
    run_law(P, variants[s], prm, variant_law[s], 20000, 1e-8, 1, &run);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s on %s: %s (natmap %g after %d)",
                  variants[s], fixtures[f].name, mcb_status_name(run.info.status),
                  run.final.val[MCB_M_NATMAP], run.info.iterations);
    ck_assert_double_le(run.final.val[MCB_M_NATMAP], 1e-8);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* Chebyshev acceleration (Alg. 3) needs fewer iterations than the plain
 * V-FPI on the small stack (Table IX's claim, on our fixture). */
START_TEST(chebyshev_needs_fewer_iterations)
{
    mcb_problem *P = fx_small_stack();
    int it[2];
    for (int s = 0; s < 2; s++) {
        mcb_run run;
        const char *set[] = {"vn_update=10", NULL};
        double prm[32];
        params_with(s ? "cond-nocheb" : "cond", prm, set);
        run_law(P, s ? "cond-nocheb" : "cond", prm, MCB_LAW_NCP, 20000, 1e-8, 1, &run);
        ck_assert_int_eq(run.info.status, MCB_ST_SOLVED);
        it[s] = run.info.iterations;
        mcb_run_clear(&run);
    }
    ck_assert_msg(it[0] < it[1], "cond %d iterations, cond-nocheb %d", it[0], it[1]);
    mcb_problem_free(&P);
}
END_TEST

/* Bit for bit the same (v, lambda) with 1 and 2 threads. */
START_TEST(identical_across_threads)
{
    mcb_problem *P = fx_small_stack();
    for (int s = 0; s < 3; s++) {
        mcb_run run[2];
        for (int t = 0; t < 2; t++)
            run_law(P, variants[s], NULL, variant_law[s], 60, 0.0, t + 1, &run[t]);
        ck_assert_int_eq(run[0].info.iterations, 60);
        ck_assert_int_eq(memcmp(run[0].v, run[1].v, (size_t)P->n * sizeof(double)), 0);
        ck_assert_int_eq(memcmp(run[0].lambda, run[1].lambda, (size_t)P->m * sizeof(double)), 0);
        mcb_run_clear(&run[0]);
        mcb_run_clear(&run[1]);
    }
    mcb_problem_free(&P);
}
END_TEST

static mcb_cb_action go_on(void *ctx, int iter, double own)
{
    (void)own;
    int *last = ctx;
#if COUNT_MALLOC
    if (iter == 2) {
        nalloc = 0;
        __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
    }
#endif
    *last = iter;
    return MCB_CB_CONTINUE;
}

/* No malloc, calloc or realloc between the second and the last of 200
 * iterations (not counted under AddressSanitizer, which owns malloc). */
START_TEST(no_allocation_in_loop)
{
    mcb_problem *P = fx_small_stack();
    for (int s = 0; s < 3; s++) {
        const mcb_solver_def *def = mcb_solver_find(variants[s]);
        double prm[32];
        def->default_params(prm);
        mcb_settings st;
        mcb_settings_default(&st);
        st.max_iters = 200;
        void *work = NULL;
        mcb_err err;
        ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_OK);
        int last = 0;
        mcb_info info;
        memset(&info, 0, sizeof info);
        int status = def->solve(work, &st, go_on, &last, &info);
#if COUNT_MALLOC
        __atomic_store_n(&counting, 0, __ATOMIC_RELAXED); /* before Check's own allocations */
        ck_assert_msg(nalloc == 0, "%s: %ld allocations in iterations 3-200", variants[s], nalloc);
#endif
        ck_assert_int_eq(status, MCB_ST_MAX_ITERS);
        ck_assert_int_eq(last, 200);
        def->free(&work);
        def->free(&work); /* NULL after the first */
        def->free(NULL);
    }
    mcb_problem_free(&P);
}
END_TEST

/* Ill-posed problems and bad parameters: a parameter out of range is
 * refused at setup with no work left; a dual-form problem is skipped by the
 * harness (primal only); a non-finite b diverges with a reason; two
 * bilateral rows asking the same DOF for two velocities (infeasible) end
 * without a solution, never as solved. */
START_TEST(ill_posed_statuses)
{
    const mcb_solver_def *def = mcb_solver_find("cond");
    double prm[32];
    const char *bad[] = {"kappa=0", "cheb_gamma=1.5", "rho_max=1", "cheb_start=0",
                         "vn_update=-1", "ascale=0", "prox=2"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        const char *set[] = {bad[k], NULL};
        params_with("cond", prm, set);
        mcb_problem *P = fx_mixed();
        mcb_settings st;
        mcb_settings_default(&st);
        void *work = (void *)1;
        mcb_err err;
        ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_E_INPUT);
        ck_assert_ptr_null(work);
        ck_assert_ptr_nonnull(strstr(err.msg, "cond."));
        mcb_problem_free(&P);
    }
    mcb_problem *P = fx_point_contact_dual(FX_SLIP);
    mcb_run run;
    run_law(P, "cond", NULL, MCB_LAW_NCP, 100, 1e-8, 1, &run);
    ck_assert_int_eq(run.info.status, MCB_ST_SKIPPED);
    mcb_run_clear(&run);
    mcb_problem_free(&P);

    P = fx_mixed();
    P->b[0] = NAN;
    def->default_params(prm);
    mcb_settings st;
    mcb_settings_default(&st);
    void *work = NULL;
    mcb_err err;
    ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_OK);
    int last = 0;
    mcb_info info;
    memset(&info, 0, sizeof info);
    int status = def->solve(work, &st, go_on, &last, &info);
#if COUNT_MALLOC
    __atomic_store_n(&counting, 0, __ATOMIC_RELAXED);
#endif
    ck_assert_int_eq(status, MCB_ST_DIVERGED);
    ck_assert_ptr_nonnull(strstr(info.reason, "non-finite"));
    def->free(&work);
    mcb_problem_free(&P);

    /* a non-positive diagonal entry of A: setup fails (numeric), no work left */
    {
        const double An[1] = {-1}, bn[1] = {0}, Jn[1] = {1}, en[1] = {0};
        mcb_problem *Q = fx_dense_primal(1, 1, An, bn, Jn, en);
        Q->nblocks = 1;
        Q->blocks = calloc(1, sizeof(mcb_block));
        Q->blocks[0] = (mcb_block){MCB_BILATERAL, 0, 1, 0, 0, 0};
        def->default_params(prm);
        work = (void *)1;
        ck_assert_int_eq(def->setup(Q, &st, prm, &work, &err), MCB_E_NUMERIC);
        ck_assert_ptr_null(work);
        ck_assert_ptr_nonnull(strstr(err.msg, "not positive"));
        mcb_problem_free(&Q);
    }

    const double A[1] = {1}, b[1] = {0}, J[2] = {1, 1}, e[2] = {1, -1};
    P = fx_dense_primal(1, 2, A, b, J, e);
    ck_assert_ptr_nonnull(P);
    P->nblocks = 2;
    P->blocks = calloc(2, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_BILATERAL, 0, 1, 0, 0, 0};
    P->blocks[1] = (mcb_block){MCB_BILATERAL, 1, 1, 0, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    for (int s = 0; s < 3; s++) {
        run_law(P, variants[s], NULL, variant_law[s], 2000, 1e-8, 1, &run);
        ck_assert_msg(run.info.status == MCB_ST_DIVERGED || run.info.status == MCB_ST_MAX_ITERS,
                      "%s on an infeasible problem: %s", variants[s],
                      mcb_status_name(run.info.status));
        mcb_run_clear(&run);
    }
    mcb_problem_free(&P);
}
END_TEST

/* ------------------------------------------------ shared FCLIB files */
static const char *shared_files[] = {"Box_Stacks-i0122-82-5.hdf5", "Capsules-i125-1213.hdf5",
                                     "CubeH8.hdf5", "LMGC_GlobalFrictionContactProblem00046.hdf5"};
#define NSHARED (int)(sizeof shared_files / sizeof shared_files[0])

/* cond runs on every shared global FCLIB problem without failing (no
 * setup failure, no divergence) and lowers the natural map by 100x from
 * its first iterate within 5000 iterations; an absent file is skipped. */
START_TEST(shared_fclib)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/fclib/%s", mcb_test_shared_dir(), shared_files[_i]);
    if (access(p, R_OK) != 0) {
        printf("SKIPPED: absent: %s\n", p);
        return;
    }
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(p, &P, &err) == MCB_OK, "%s", err.msg);
    mcb_run run;
    run_law(P, "cond", NULL, MCB_LAW_NCP, 5000, 1e-8, 1, &run);
    int dual = P->form == MCB_DUAL; /* Capsules: a local problem, skipped */
    ck_assert_msg(dual ? run.info.status == MCB_ST_SKIPPED
                       : run.info.status == MCB_ST_SOLVED || run.info.status == MCB_ST_MAX_ITERS,
                  "cond on %s: %s (%s)", shared_files[_i], mcb_status_name(run.info.status),
                  run.info.reason);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cond");
    TCase *tc = tcase_create("cond");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, point_contact_exact_in_one_iteration);
    tcase_add_test(tc, strict_and_proximal_differ_on_sliding);
    tcase_add_test(tc, virtual_node_error_shrinks_with_kappa);
    tcase_add_test(tc, invertible_contact_forward_equals_inverse);
    tcase_add_test(tc, anisotropic_slide_is_the_mdp_solution);
    tcase_add_loop_test(tc, fixtures_solved_under_law, 0, NFIX * 3);
    tcase_add_test(tc, chebyshev_needs_fewer_iterations);
    tcase_add_test(tc, identical_across_threads);
    tcase_add_test(tc, no_allocation_in_loop);
    tcase_add_test(tc, ill_posed_statuses);
    tcase_add_loop_test(tc, shared_fclib, 0, NSHARED);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

/* test_nnewton.c: the nonsmooth Newton solver (solvers/nnewton.c) on
 * problems with known answers: the one-contact states in primal and dual
 * form (exact solution, few iterations, quadratic convergence), the mixed
 * fixtures, the small stack, the shared FCLIB files when present (each
 * skipped without failure when absent), and the statuses it must return on
 * ill-posed problems (infeasible bilateral rows, an indefinite mass matrix,
 * bad parameters). Every residual is the harness's (mcb_run_one). Also
 * the sparse LU they factor with (lib/mcb_lu.h), both backends: KLU's
 * refactorization in place, a new pivot choice when the old pivots
 * degrade, UMFPACK's fresh pivots, known answers, singular matrices, bad
 * arguments, which calls allocate; no allocation in the iterations of
 * nnewton, al-trdogleg and al-dampedsn after the first factorization
 * (KLU); the same answers with lu = 1 (UMFPACK) in those three, and the
 * parameter `lu` in all six solvers that factor with mcb_lu. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc_count.h"
#include "check_run.h"
#include "fixtures.h"
#include "problems/import_fclib.h"
#include "lib/mcb_lu.h"
#include "harness/runner.h"

static const mcb_solver_def *nn(void) { return mcb_solver_find("nnewton"); }

/* Runs nnewton through the harness with tolerance tol (natmap), keeping the
 * solution; returns the run (caller clears it). */
static mcb_run run_nn(const mcb_problem *P, double tol, int max_iters, const void *prm)
{
    mcb_run run;
    check_run(P, "nnewton", prm, tol, max_iters, 1, MCB_LAW_NCP, &run);
    return run;
}

/* The own residuals of a direct solve (no harness), iteration by iteration. */
typedef struct {
    int n;
    double r[256];
} own_trace;

static mcb_cb_action record_cb(void *ctx, int iter, double own)
{
    own_trace *t = ctx;
    if (iter <= 256) t->r[iter - 1] = own;
    t->n = iter;
    return own < 1e-13 ? MCB_CB_CONVERGED : MCB_CB_CONTINUE;
}

static own_trace direct_solve(const mcb_problem *P, int *status)
{
    double prm[16];
    nn()->default_params(prm);
    mcb_settings s;
    mcb_settings_default(&s);
    s.max_iters = 200;
    void *work = NULL;
    mcb_err err;
    ck_assert_msg(nn()->setup(P, &s, prm, &work, &err) == MCB_OK, "%s", err.msg);
    own_trace t = {0};
    mcb_info info;
    memset(&info, 0, sizeof info);
    *status = nn()->solve(work, &s, record_cb, &t, &info);
    nn()->free(&work);
    ck_assert_ptr_null(work);
    return t;
}

START_TEST(point_contact_primal)
{
    int st = _i;
    mcb_problem *P = fx_point_contact(st);
    mcb_run run = run_nn(P, 1e-12, 50, NULL);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "state %d: %s (%s)", st,
                  mcb_status_name(run.info.status), run.info.reason);
    ck_assert_double_le(run.final.val[MCB_M_NATMAP], 1e-12);
    ck_assert_double_le(run.final.val[MCB_M_FB], 1e-10);
    /* one contact: a handful of Newton steps */
    ck_assert_int_le(run.info.iterations, 6);
    double v[3], l[3];
    fx_point_solution(st, v, l);
    for (int k = 0; k < 3; k++) {
        ck_assert_double_eq_tol(run.v[k], v[k], 1e-10);
        ck_assert_double_eq_tol(run.lambda[k], l[k], 1e-10);
    }
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(point_contact_dual)
{
    int st = _i;
    mcb_problem *P = fx_point_contact_dual(st);
    mcb_run run = run_nn(P, 1e-12, 50, NULL);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "state %d: %s (%s)", st,
                  mcb_status_name(run.info.status), run.info.reason);
    ck_assert_int_le(run.info.iterations, 6);
    double v[3], l[3];
    fx_point_solution(st, v, l);
    for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(run.lambda[k], l[k], 1e-10);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* Quadratic convergence near the solution: once the own residual ||phi||
 * is below 1e-3, each step squares it (up to a constant), r_{k+1} <=
 * 10 r_k^2 + 1e-15, on the slip contact and on the small stack. */
START_TEST(quadratic_near_solution)
{
    mcb_problem *Ps[2] = {fx_point_contact(FX_SLIP), fx_small_stack()};
    for (int f = 0; f < 2; f++) {
        int status;
        own_trace t = direct_solve(Ps[f], &status);
        ck_assert_msg(status == MCB_ST_SOLVED || status == MCB_ST_STALLED, "fixture %d: %s", f,
                      mcb_status_name(status));
        ck_assert_double_le(t.r[t.n - 1], 1e-13);
        int checked = 0;
        for (int k = 0; k + 1 < t.n; k++) {
            if (t.r[k] > 1e-3) continue;
            ck_assert_msg(t.r[k + 1] <= 10.0 * t.r[k] * t.r[k] + 1e-15,
                          "fixture %d, iteration %d: %g -> %g is not quadratic", f, k + 1,
                          t.r[k], t.r[k + 1]);
            checked++;
        }
        ck_assert_int_ge(checked, 1);
        mcb_problem_free(&Ps[f]);
    }
}
END_TEST

/* Every block type at once (fx_mixed); fx_mixed_active with every row
 * active: the unilateral row at lambda_1 = 0.4386, the contact sliding. */
START_TEST(mixed_fixtures)
{
    mcb_problem *P = fx_mixed();
    mcb_run run = run_nn(P, 1e-10, 50, NULL);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "mixed: %s (%s)",
                  mcb_status_name(run.info.status), run.info.reason);
    ck_assert_int_le(run.info.iterations, 15);
    mcb_run_clear(&run);
    mcb_problem_free(&P);

    P = fx_mixed_active();
    run = run_nn(P, 1e-10, 50, NULL);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "mixed_active: %s (%s)",
                  mcb_status_name(run.info.status), run.info.reason);
    ck_assert_int_le(run.info.iterations, 15);
    ck_assert_double_eq_tol(run.lambda[1], 0.4386, 1e-4);
    double u1 = P->e[1] + run.v[1] + 0.5 * run.v[2]; /* J_1 = (0, 1, 0.5, 0, 0, 0) */
    ck_assert_double_le(fabs(u1), 1e-9);
    ck_assert_double_eq_tol(run.lambda[3], 0.147, 1e-3);
    ck_assert_double_eq_tol(hypot(run.lambda[4], run.lambda[5]), 0.4 * run.lambda[3], 1e-9);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(small_stack)
{
    mcb_problem *P = fx_small_stack();
    mcb_run run = run_nn(P, 1e-10, 100, NULL);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "stack2: %s (%s)",
                  mcb_status_name(run.info.status), run.info.reason);
    ck_assert_int_le(run.info.iterations, 30);
    ck_assert_double_le(run.final.val[MCB_M_FB], 1e-8);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* Two contacts on the same point (contacts outnumber nothing, but W is
 * singular: [[I, I], [I, I]]): the solution set is a line; the regularized
 * directions still reach it. */
START_TEST(duplicate_contact_singular_W)
{
    double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double J[18] = {0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0};
    double b[3] = {2, 0, -1}, e[6] = {0};
    mcb_problem *P = fx_dense_primal(3, 6, A, b, J, e);
    P->nblocks = 2;
    P->blocks = calloc(2, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 0.5, 0, 0};
    P->blocks[1] = (mcb_block){MCB_CONTACT, 3, 3, 0.5, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    mcb_run run = run_nn(P, 1e-10, 100, NULL);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "duplicate contact: %s (%s), natmap %g",
                  mcb_status_name(run.info.status), run.info.reason,
                  run.final.val[MCB_M_NATMAP]);
    /* the slip velocity of the single contact */
    ck_assert_double_eq_tol(run.v[0], 1.5, 1e-9);
    ck_assert_double_eq_tol(run.lambda[0] + run.lambda[3], 1.0, 1e-9);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* Infeasible: two bilateral rows v = 0 and v = -1 on one DOF. The merit
 * has a nonzero minimum: the solver stops on its own, stalled, and says
 * why; it never crashes and never claims success. */
START_TEST(infeasible_bilateral_stalls)
{
    double A[1] = {1}, J[2] = {1, 1}, b[1] = {0.3}, e[2] = {0, 1};
    mcb_problem *P = fx_dense_primal(1, 2, A, b, J, e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_BILATERAL, 0, 2, 0, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    mcb_run run = run_nn(P, 1e-8, 200, NULL);
    ck_assert_msg(run.info.status == MCB_ST_STALLED, "infeasible: %s (%s)",
                  mcb_status_name(run.info.status), run.info.reason);
    ck_assert_msg(strstr(run.info.reason, "stationary") || strstr(run.info.reason, "line search"),
                  "reason: %s", run.info.reason);
    ck_assert_int_le(run.info.iterations, 50);
    /* the least-squares compromise |u| = (0.5, 0.5) */
    ck_assert_double_eq_tol(fabs(run.v[0] + 0.5), 0.0, 1e-6);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* An indefinite A: setup fails with a numeric error and frees everything;
 * through the harness the run is setup-failed. */
START_TEST(indefinite_mass_setup_fails)
{
    double A[4] = {1, 0, 0, -1}, J[2] = {1, 0}, b[2] = {0, 0}, e[1] = {0};
    mcb_problem *P = fx_dense_primal(2, 1, A, b, J, e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_UNILATERAL, 0, 1, 0, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    double prm[16];
    nn()->default_params(prm);
    mcb_settings s;
    mcb_settings_default(&s);
    void *work = NULL;
    mcb_err err;
    ck_assert_int_eq(nn()->setup(P, &s, prm, &work, &err), MCB_E_NUMERIC);
    ck_assert_ptr_null(work);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(parameters_checked)
{
    const mcb_solver_def *d = nn();
    ck_assert_ptr_nonnull(d);
    ck_assert(d->accepts == (MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL));
    double prm[16];
    d->default_params(prm);
    ck_assert_int_eq(d->check_params(prm, NULL), MCB_OK);
    const char *bad[][2] = {{"sigma", "0.7"},    {"sigma", "0"},        {"max_ls", "0"},
                            {"lm_reg", "0"},     {"jac_floor", "1"},    {"stat_tol", "-1"},
                            {"own_tol", "-1"},   {"memory", "0"},       {"memory", "65"},
                            {"lm_steps", "-1"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        d->default_params(prm);
        mcb_err err;
        ck_assert_int_eq(mcb_param_set(d, prm, bad[k][0], bad[k][1], &err), MCB_OK);
        ck_assert_msg(d->check_params(prm, &err) == MCB_E_INPUT, "%s=%s accepted", bad[k][0],
                      bad[k][1]);
    }
    void *work = NULL;
    d->free(&work);
    d->free(NULL);
}
END_TEST

/* The nonmonotone variant (memory 5) also solves the stack. */
START_TEST(nonmonotone_variant)
{
    mcb_problem *P = fx_small_stack();
    double prm[16];
    nn()->default_params(prm);
    ck_assert_int_eq(mcb_param_set(nn(), prm, "memory", "5", NULL), MCB_OK);
    mcb_run run = run_nn(P, 1e-10, 200, prm);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s (%s)", mcb_status_name(run.info.status),
                  run.info.reason);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(deterministic_two_threads)
{
    mcb_problem *P = fx_small_stack();
    double l0[512];
    int m = P->m;
    ck_assert_int_le(m, 512);
    for (int rep = 0; rep < 2; rep++) {
        mcb_campaign_opts o;
        mcb_campaign_defaults(&o);
        o.settings.max_iters = 12;
        o.settings.tol = 0;
        o.settings.threads = 2;
        o.save_solutions = 1;
        mcb_metrics_ws *ws = NULL;
        mcb_metrics_ws_new(P, &ws, NULL);
        mcb_run run = {0};
        mcb_run_one(P, ws, nn(), NULL, &o, &run, NULL);
        if (rep == 0) memcpy(l0, run.lambda, (size_t)m * sizeof(double));
        else
            for (int k = 0; k < m; k++) ck_assert(run.lambda[k] == l0[k]);
        mcb_run_clear(&run);
        mcb_metrics_ws_free(&ws);
    }
    mcb_problem_free(&P);
}
END_TEST

/* The shared FCLIB files (../shared/fclib), each skipped without failure
 * when absent: natural-map residual 1e-10 within the iteration bound. */
static const struct {
    const char *file;
    int max_iters;
} shared[] = {
    {"Box_Stacks-i0122-82-5.hdf5", 30},
    {"Capsules-i125-1213.hdf5", 100},
    {"CubeH8.hdf5", 20},
    {"LMGC_GlobalFrictionContactProblem00046.hdf5", 20},
};

START_TEST(shared_fclib)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/fclib/%s", mcb_test_shared_dir(), shared[_i].file);
    if (access(p, R_OK) != 0) {
        printf("SKIPPED (absent): %s\n", p);
        return;
    }
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(p, &P, &err) == MCB_OK, "%s", err.msg);
    mcb_run run = run_nn(P, 1e-10, shared[_i].max_iters, NULL);
    ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s: %s after %d iterations, natmap %g (%s)",
                  shared[_i].file, mcb_status_name(run.info.status), run.info.iterations,
                  run.final.val[MCB_M_NATMAP], run.info.reason);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* K = [[a, 1], [1, 3]]: the LU of K x = (1, 2) against the closed form. */
static void lu_check(mcb_lu *F, mcb_csc *K, double a)
{
    K->x[0] = a; /* column 0: (0,0) then (1,0) */
    ck_assert_int_eq(mcb_lu_factor(F, K), 0);
    double x[2] = {1.0, 2.0}, det = 3.0 * a - 1.0;
    ck_assert_int_eq(mcb_lu_solve(F, x), 0);
    ck_assert_double_eq_tol(x[0], (3.0 - 2.0) / det, 1e-12 * (1.0 + fabs(1.0 / det)));
    ck_assert_double_eq_tol(x[1], (2.0 * a - 1.0) / det, 1e-12 * (1.0 + fabs(a / det)));
}

/* Four values of a, the last collapsing the (0,0) pivot, then a singular
 * K. KLU refactors in place with its first pivots and chooses new ones
 * only at the collapse; UMFPACK chooses them at every factorization: the
 * fresh factorizations after each value. */
START_TEST(lu_refactor_and_repivot)
{
    int kind = _i;
    int ri[4] = {0, 1, 0, 1}, ci[4] = {0, 0, 1, 1};
    double xv[4] = {4.0, 1.0, 1.0, 3.0};
    mcb_csc *K = mcb_csc_from_triplets(2, 2, 4, ri, ci, xv);
    mcb_lu *F = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_lu_analyze(K, kind, &F, &err), MCB_OK);
    ck_assert_int_eq(mcb_lu_kind_of(F), kind);
    ck_assert_str_eq(mcb_lu_kind_name(kind), kind == MCB_LU_KLU ? "klu" : "umfpack");
    double a[4] = {4.0, 5.0, 2.0, 1e-13};
    int fresh[2][4] = {{1, 1, 1, 2}, {1, 2, 3, 4}};
    for (int k = 0; k < 4; k++) {
        lu_check(F, K, a[k]);
        ck_assert_int_eq(mcb_lu_fresh_factorizations(F), fresh[kind][k]);
    }
    ck_assert_int_eq(mcb_lu_factorizations(F), 4);
    K->x[0] = 1.0 / 3.0; /* singular */
    ck_assert_int_eq(mcb_lu_factor(F, K), 1);
    mcb_lu_free(&F);
    mcb_lu_free(&F);
    ck_assert_ptr_null(F);
    mcb_csc_free(&K);
}
END_TEST

/* Both backends: an unsymmetric 3 x 3 with a zero diagonal (pivoting
 * needed) against its known solution; a singular matrix, NaN entries and a
 * structurally singular pattern are status 1 (and a solve after them too),
 * a good matrix afterwards factors again; 0 x 0; bad arguments. */
START_TEST(lu_backends_known_answers)
{
    int kind = _i;
    /* K = [[0, 2, 1], [1, 0, 0], [0, 1, 3]], x = (1, -1, 2), b = K x */
    int ri[5] = {1, 0, 2, 0, 2}, ci[5] = {0, 1, 1, 2, 2};
    double xv[5] = {1.0, 2.0, 1.0, 1.0, 3.0};
    mcb_csc *K = mcb_csc_from_triplets(3, 3, 5, ri, ci, xv);
    mcb_lu *F = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_lu_analyze(K, kind, &F, &err), MCB_OK);
    ck_assert_int_eq(mcb_lu_solve(F, (double[3]){0, 0, 0}), 1); /* nothing factored yet */
    for (int rep = 0; rep < 2; rep++) {
        ck_assert_int_eq(mcb_lu_factor(F, K), 0);
        double x[3] = {0.0, 1.0, 5.0}, xs[3] = {1.0, -1.0, 2.0};
        ck_assert_int_eq(mcb_lu_solve(F, x), 0);
        for (int i = 0; i < 3; i++) ck_assert_double_eq_tol(x[i], xs[i], 1e-14);
        /* singular: with K(2, 2) = 0.5 column 2 is column 1 / 2 */
        double keep = K->x[4];
        K->x[4] = 0.5;
        ck_assert_int_eq(mcb_lu_factor(F, K), 1);
        double y[3] = {1.0, 1.0, 1.0};
        ck_assert_int_eq(mcb_lu_solve(F, y), 1);
        K->x[4] = NAN;
        ck_assert_int_eq(mcb_lu_factor(F, K), 1);
        ck_assert_int_eq(mcb_lu_solve(F, y), 1);
        K->x[4] = keep; /* and back: factors again (next rep) */
    }
    mcb_lu_free(&F);
    /* structurally singular: column 1 empty */
    int rj[3] = {0, 1, 2}, cj[3] = {0, 2, 2};
    double xj[3] = {1.0, 1.0, 1.0};
    mcb_csc *S = mcb_csc_from_triplets(3, 3, 3, rj, cj, xj);
    mcb_rc rc = mcb_lu_analyze(S, kind, &F, &err);
    if (rc == MCB_OK) ck_assert_int_eq(mcb_lu_factor(F, S), 1);
    else ck_assert_ptr_null(F);
    mcb_lu_free(&F);
    mcb_csc_free(&S);
    /* bad arguments: a non-square matrix, an unknown backend */
    S = mcb_csc_alloc(2, 3, 0);
    F = (mcb_lu *)1;
    ck_assert_int_eq(mcb_lu_analyze(S, kind, &F, &err), MCB_E_INPUT);
    ck_assert_ptr_null(F);
    mcb_csc_free(&S);
    ck_assert_int_eq(mcb_lu_analyze(K, 2, &F, &err), MCB_E_INPUT);
    ck_assert_ptr_null(F);
    ck_assert_ptr_nonnull(strstr(err.msg, "unknown backend 2"));
    ck_assert_int_eq(mcb_lu_analyze(K, -1, &F, &err), MCB_E_INPUT);
    mcb_csc_free(&K);
    /* 0 x 0 (a step without constraint rows): nothing to factor, no error */
    K = mcb_csc_alloc(0, 0, 0);
    ck_assert_int_eq(mcb_lu_analyze(K, kind, &F, &err), MCB_OK);
    ck_assert_int_eq(mcb_lu_factor(F, K), 0);
    ck_assert_int_eq(mcb_lu_solve(F, NULL), 0);
    mcb_lu_free(&F);
    mcb_csc_free(&K);
    mcb_lu_free(NULL);
    ck_assert_int_eq(mcb_lu_kind_of(NULL), -1);
    ck_assert_int_eq(mcb_lu_factorizations(NULL), 0);
}
END_TEST

#if COUNT_MALLOC
/* What allocates: KLU's refactorization nothing; UMFPACK's factorization
 * (umfpack_di_numeric builds a new numeric object), but not its solve
 * (umfpack_di_wsolve on work arrays from mcb_lu_analyze). */
START_TEST(lu_allocations_by_backend)
{
    int ri[5] = {1, 0, 2, 0, 2}, ci[5] = {0, 1, 1, 2, 2};
    double xv[5] = {1.0, 2.0, 1.0, 1.0, 3.0};
    mcb_csc *K = mcb_csc_from_triplets(3, 3, 5, ri, ci, xv);
    for (int kind = 0; kind < MCB_LU_NKINDS; kind++) {
        mcb_lu *F = NULL;
        ck_assert_int_eq(mcb_lu_analyze(K, kind, &F, NULL), MCB_OK);
        ck_assert_int_eq(mcb_lu_factor(F, K), 0);
        long fact = 0, solve = 0;
        for (int k = 0; k < 3; k++) {
            K->x[4] = 3.0 + k;
            /* (Check's assertions allocate: they stay outside the counting) */
            nalloc = 0;
            __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
            int st = mcb_lu_factor(F, K);
            __atomic_store_n(&counting, 0, __ATOMIC_RELAXED);
            fact += nalloc;
            ck_assert_int_eq(st, 0);
            double x[3] = {1.0, 2.0, 3.0};
            nalloc = 0;
            __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
            st = mcb_lu_solve(F, x);
            __atomic_store_n(&counting, 0, __ATOMIC_RELAXED);
            solve += nalloc;
            ck_assert_int_eq(st, 0);
        }
        ck_assert_msg(solve == 0, "%s: %ld allocations in 3 solves", mcb_lu_kind_name(kind), solve);
        if (kind == MCB_LU_KLU) ck_assert_int_eq(fact, 0);
        else ck_assert_int_ge(fact, 3);
        mcb_lu_free(&F);
    }
    mcb_csc_free(&K);
}
END_TEST
#endif

/* A step without constraint rows (a robot still falling): v = A^-1 b at
 * once, for nnewton and the AL baselines (their LU has nothing to
 * factor). */
START_TEST(no_constraint_rows)
{
    const char *solvers[3] = {"nnewton", "al-trdogleg", "al-dampedsn"};
    for (int k = 0; k < 3; k++) {
        mcb_problem *P = fx_point_contact(FX_OPEN);
        mcb_csc_free(&P->J);
        P->J = mcb_csc_alloc(0, P->n, 0);
        P->m = 0;
        P->nblocks = 0;
        mcb_err err;
        ck_assert_msg(mcb_problem_validate(P, "no rows", &err) == MCB_OK, "%s", err.msg);
        mcb_campaign_opts o;
        mcb_campaign_defaults(&o);
        o.settings.tol = 1e-10;
        mcb_metrics_ws *ws = NULL;
        ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, &err), MCB_OK);
        mcb_run run = {0};
        ck_assert_int_eq(mcb_run_one(P, ws, mcb_solver_find(solvers[k]), NULL, &o, &run, &err),
                         MCB_OK);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s without rows: %s (%s)", solvers[k],
                      mcb_status_name(run.info.status), run.info.reason);
        mcb_run_clear(&run);
        mcb_metrics_ws_free(&ws);
        mcb_problem_free(&P);
    }
}
END_TEST

#if COUNT_MALLOC
static mcb_cb_action count_cb(void *ctx, int iter, double own)
{
    int *iters = ctx;
    if (iter == 2) {
        nalloc = 0;
        __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
    }
    *iters = iter;
    return own < 1e-12 ? MCB_CB_CONVERGED : MCB_CB_CONTINUE;
}

/* Allocations from the third iteration on (the first factorization chose
 * the pivots) of `solver` with parameter lu = `lu` on fixture f (0 the
 * small stack, 1 the mixed one); *iters: its iterations. */
static long loop_allocations(const char *solver, int f, const char *lu, int *iters)
{
    mcb_problem *P = f == 0 ? fx_small_stack() : fx_mixed();
    const mcb_solver_def *def = mcb_solver_find(solver);
    double prm[64];
    ck_assert_uint_le(def->params_size, sizeof prm);
    def->default_params(prm);
    ck_assert_int_eq(mcb_param_set(def, prm, "lu", lu, NULL), MCB_OK);
    mcb_settings st;
    mcb_settings_default(&st);
    st.max_iters = 50;
    void *work = NULL;
    mcb_err err;
    ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_OK);
    *iters = 0;
    mcb_info info;
    memset(&info, 0, sizeof info);
    def->solve(work, &st, count_cb, iters, &info);
    __atomic_store_n(&counting, 0, __ATOMIC_RELAXED);
    def->free(&work);
    mcb_problem_free(&P);
    return nalloc;
}

/* No malloc, calloc or realloc from the second iteration on (the first
 * factorization chose the pivots) on the small stack and the mixed
 * fixture, for the three solvers that factor with mcb_lu (KLU, the
 * default). */
START_TEST(no_allocation_after_first_factorization)
{
    const char *solvers[3] = {"nnewton", "al-trdogleg", "al-dampedsn"};
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < 3; k++) {
            int iters;
            long n = loop_allocations(solvers[k], f, "0", &iters);
            ck_assert_int_ge(iters, 3);
            ck_assert_msg(n == 0, "%s on fixture %d: %ld allocations in iterations 3-%d",
                          solvers[k], f, n, iters);
        }
}
END_TEST
#endif

/* lu = 1 (UMFPACK) in the three solvers: the same status and solution as
 * KLU (v and lambda to 1e-7 on the small stack and the mixed fixture, both
 * solved to 1e-10); and UMFPACK is what factors: its factorizations
 * allocate in every iteration (KLU's do not, above). */
START_TEST(umfpack_agrees_with_klu)
{
    const char *solvers[3] = {"nnewton", "al-trdogleg", "al-dampedsn"};
    for (int f = 0; f < 2; f++)
        for (int k = 0; k < 3; k++) {
            mcb_problem *P = f == 0 ? fx_small_stack() : fx_mixed();
            const mcb_solver_def *def = mcb_solver_find(solvers[k]);
            double prm[2][64];
            mcb_run run[2];
            for (int lu = 0; lu < 2; lu++) {
                def->default_params(prm[lu]);
                ck_assert_int_eq(mcb_param_set(def, prm[lu], "lu", lu ? "1" : "0", NULL), MCB_OK);
                check_run(P, solvers[k], prm[lu], 1e-10, 2000, 1, MCB_LAW_NCP, &run[lu]);
                ck_assert_msg(run[lu].info.status == MCB_ST_SOLVED, "%s lu %d fixture %d: %s (%s)",
                              solvers[k], lu, f, mcb_status_name(run[lu].info.status),
                              run[lu].info.reason);
            }
            for (int j = 0; j < P->n; j++)
                ck_assert_double_eq_tol(run[1].v[j], run[0].v[j], 1e-7 * (1.0 + fabs(run[0].v[j])));
            for (int i = 0; i < P->m; i++)
                ck_assert_double_eq_tol(run[1].lambda[i], run[0].lambda[i],
                                        1e-7 * (1.0 + fabs(run[0].lambda[i])));
            mcb_run_clear(&run[0]);
            mcb_run_clear(&run[1]);
            mcb_problem_free(&P);
#if COUNT_MALLOC
            int iters;
            long n = loop_allocations(solvers[k], f, "1", &iters);
            ck_assert_int_ge(iters, 3);
            ck_assert_msg(n >= iters - 2, "%s lu 1 on fixture %d: %ld allocations in iterations 3-%d",
                          solvers[k], f, n, iters);
#endif
        }
}
END_TEST

/* Every solver that factors an unsymmetric matrix lists `lu` and refuses
 * a value that names no backend. */
START_TEST(lu_parameter_everywhere)
{
    const char *solvers[6] = {"nnewton",        "al-trdogleg",   "al-dampedsn",
                              "fischer-newton", "minmap-newton", "ip-lcp"};
    for (int k = 0; k < 6; k++) {
        const mcb_solver_def *def = mcb_solver_find(solvers[k]);
        double prm[64];
        ck_assert_uint_le(def->params_size, sizeof prm);
        def->default_params(prm);
        int found = -1;
        for (int p = 0; p < def->nparams; p++)
            if (strcmp(def->params[p].name, "lu") == 0) found = p;
        ck_assert_msg(found >= 0, "%s has no parameter lu", solvers[k]);
        char buf[32];
        mcb_param_format(def, prm, found, buf, sizeof buf);
        ck_assert_str_eq(buf, "0"); /* KLU by default */
        mcb_err err;
        for (int v = -1; v <= 2; v++) {
            snprintf(buf, sizeof buf, "%d", v);
            ck_assert_int_eq(mcb_param_set(def, prm, "lu", buf, NULL), MCB_OK);
            mcb_rc rc = def->check_params(prm, &err);
            ck_assert_int_eq(rc, v == 0 || v == 1 ? MCB_OK : MCB_E_INPUT);
            if (rc) ck_assert_msg(strstr(err.msg, "must be 0 (KLU) or 1 (UMFPACK)"), "%s", err.msg);
        }
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nnewton");
    TCase *tc = tcase_create("nnewton");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, point_contact_primal, FX_OPEN, FX_SLIP + 1);
    tcase_add_loop_test(tc, point_contact_dual, FX_OPEN, FX_SLIP + 1);
    tcase_add_test(tc, quadratic_near_solution);
    tcase_add_test(tc, mixed_fixtures);
    tcase_add_test(tc, small_stack);
    tcase_add_test(tc, duplicate_contact_singular_W);
    tcase_add_test(tc, infeasible_bilateral_stalls);
    tcase_add_test(tc, indefinite_mass_setup_fails);
    tcase_add_test(tc, parameters_checked);
    tcase_add_test(tc, nonmonotone_variant);
    tcase_add_test(tc, deterministic_two_threads);
    tcase_add_loop_test(tc, lu_refactor_and_repivot, MCB_LU_KLU, MCB_LU_NKINDS);
    tcase_add_loop_test(tc, lu_backends_known_answers, MCB_LU_KLU, MCB_LU_NKINDS);
    tcase_add_test(tc, no_constraint_rows);
#if COUNT_MALLOC
    tcase_add_test(tc, no_allocation_after_first_factorization);
    tcase_add_test(tc, lu_allocations_by_backend);
#endif
    tcase_add_test(tc, umfpack_agrees_with_klu);
    tcase_add_test(tc, lu_parameter_everywhere);
    tcase_add_loop_test(tc, shared_fclib, 0, (int)(sizeof shared / sizeof shared[0]));
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

/* test_solvers.c: the fixtures x solvers table. Every registered solver
 * runs on every fixture through the harness (same budget, harness-judged)
 * and must end with the expected status. Adding a solver: add its row. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check_run.h"
#include "fixtures.h"
#ifdef MCB_HAVE_CUDA
#include "solvers/gpu/gpu_backend.h"
#endif
#include "problems/formulation/formulation.h"
#include "problems/import_fclib.h"
#include "harness/runner.h"

typedef mcb_problem *(*fixture_fn)(void);
static mcb_problem *f_open(void) { return fx_point_contact(FX_OPEN); }
static mcb_problem *f_stick(void) { return fx_point_contact(FX_STICK); }
static mcb_problem *f_slip(void) { return fx_point_contact(FX_SLIP); }
static mcb_problem *f_dual(void) { return fx_point_contact_dual(FX_SLIP); }
static mcb_problem *f_compliant(void) { return fx_compliant(FX_SLIP); }
static mcb_problem *f_compliant_dual(void) { return fx_compliant_dual(FX_SLIP); }

#define NCP MCB_LAW_NCP
#define CCP MCB_LAW_CCP

/* The fixtures: the columns of the solver table below (the first three
 * are FX_OPEN, FX_STICK and FX_SLIP, in this order). */
static const struct {
    const char *name;
    fixture_fn make;
} fixtures[] = {
    {"open", f_open},
    {"stick", f_stick},
    {"slip", f_slip},
    {"dual", f_dual},
    {"mixed", fx_mixed},
    {"mixed_active", fx_mixed_active},
    {"stack2", fx_small_stack},
    {"compliant", f_compliant},
    {"compliant_dual", f_compliant_dual},
    {"gfc3d_example1", fx_gfc3d_example1},
};
#define NFIX (int)(sizeof fixtures / sizeof fixtures[0])

/* The expected status on a fixture, plus one (0, a missing entry, fails
 * table_rows_complete): OK solved, SKIP the solver refuses the problem,
 * MAXIT its iteration budget used up. */
enum { OK = MCB_ST_SOLVED + 1, SKIP = MCB_ST_SKIPPED + 1, MAXIT = MCB_ST_MAX_ITERS + 1 };

/* One row per registered solver (the first three, pgs, pj and subadmm, are
 * the references of the tests below): its name, the law it
 * is judged by (--law: a CCP solver solves the cone complementarity
 * problem, not Coulomb's, tests/test_ccp.c) and its expected outcome on
 * each fixture. The LCP solvers take only LCPs (--formulation) and the
 * MuJoCo peers only recorded MuJoCo problems: they skip every fixture
 * (tests/test_formulation.c, test_lcp_*.c and test_mujoco.c run them).
 * The paper's COND (cond, cond-prox, cond-nocheb: the law on the virtual
 * node w + e) converges to a fixed point perturbed by O(lambda / kappa)
 * (Prop. 2) where contacts are not on nodes (mixed, mxact, stack): it
 * never reaches the harness's tolerance there; cond-shift's outer shift
 * removes the perturbation (tests/test_cond.c).
 * Adding a solver: add its row. Column headings: mxact is mixed_active,
 * stack stack2, cmpl compliant, cmpld compliant_dual, gfc3d gfc3d_example1. */
static const struct {
    const char *name;
    int law;
    int expect[NFIX];
} solvers[] = {
    /*                       open  stick slip  dual  mixed mxact stack cmpl  cmpld gfc3d */
    {"pgs",            NCP, {OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK}},
    {"pj",             NCP, {OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK}},
    {"subadmm",        NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   OK,   SKIP, OK}},
    {"fadmm",          NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   OK,   SKIP, OK}},
    {"apgd",           CCP, {OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK}},
    {"ccp-jacobi",     CCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   OK,   SKIP, OK}},
    {"nnewton",        NCP, {OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK}},
    {"canal",          NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   SKIP, SKIP, OK}},
    {"cond",           NCP, {OK,   OK,   OK,   SKIP, MAXIT,MAXIT,MAXIT,OK,   SKIP, OK}},
    {"cond-prox",      CCP, {OK,   OK,   OK,   SKIP, MAXIT,MAXIT,MAXIT,OK,   SKIP, OK}},
    {"cond-nocheb",    NCP, {OK,   OK,   OK,   SKIP, MAXIT,MAXIT,MAXIT,OK,   SKIP, OK}},
    {"cond-shift",     NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   OK,   SKIP, OK}},
    {"ccs",            NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   SKIP, SKIP, OK}},
    {"subadmm-nobody", NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   OK,   SKIP, OK}},
    {"al-trdogleg",    NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   SKIP, SKIP, OK}},
    {"al-dampedsn",    NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   SKIP, SKIP, OK}},
    {"psor",           NCP, {OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK}},
    {"pgs-shuffle",    NCP, {OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK}},
    {"pgs-mf",         NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   OK,   SKIP, OK}},
    {"nncg",           NCP, {OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK,   OK}},
    {"psor-lcp",       NCP, {SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP}},
    {"pj-lcp",         NCP, {SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP}},
    {"fischer-newton", NCP, {SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP}},
    {"minmap-newton",  NCP, {SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP}},
    {"fixed-point",    NCP, {OK,   OK,   OK,   OK,   SKIP, SKIP, OK,   OK,   OK,   OK}},
    {"lemke",          NCP, {SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP}},
    {"ip-lcp",         NCP, {SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP}},
#ifdef MCB_HAVE_SICONOS /* the Siconos peers */
    {"siconos_nsgs",   NCP, {OK,   OK,   OK,   OK,   SKIP, SKIP, OK,   SKIP, OK,   OK}},
    {"siconos_nsn_ac", NCP, {OK,   OK,   OK,   OK,   SKIP, SKIP, OK,   SKIP, OK,   OK}},
    {"siconos_admm",   NCP, {OK,   OK,   OK,   OK,   SKIP, SKIP, OK,   SKIP, OK,   OK}},
#endif
#ifdef MCB_HAVE_CUDA /* the GPU solvers: without a device, setup fails (expected()) */
    {"ccp-jacobi-gpu", CCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   OK,   SKIP, OK}},
    {"pj-gpu",         NCP, {OK,   OK,   OK,   SKIP, OK,   OK,   OK,   OK,   SKIP, OK}},
#endif
#ifdef MCB_HAVE_MUJOCO /* the MuJoCo peers */
    {"mujoco_pgs",     NCP, {SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP}},
    {"mujoco_cg",      NCP, {SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP}},
    {"mujoco_newton",  NCP, {SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP, SKIP}},
#endif
};
#define NSOLV (int)(sizeof solvers / sizeof solvers[0])

/* 0 for a GPU solver where there is no CUDA device: its setup fails
 * (tests/test_gpu.c checks why), and the tests of solutions pass it by. */
static int runs_here(int s)
{
#ifdef MCB_HAVE_CUDA
    char dev[256];
    if (strstr(solvers[s].name, "-gpu") && !mcb_gpu_describe(dev, sizeof dev)) return 0;
#endif
    (void)s;
    return 1;
}

/* The status solver s must end with on fixture f. */
static int expected(int s, int f)
{
    int st = solvers[s].expect[f] - 1;
    return st != MCB_ST_SKIPPED && !runs_here(s) ? MCB_ST_SETUP_FAILED : st;
}

/* The column of a fixture, by name. */
static int fixture_col(const char *name)
{
    for (int f = 0; f < NFIX; f++)
        if (strcmp(fixtures[f].name, name) == 0) return f;
    ck_abort_msg("no fixture %s", name);
    return -1;
}

START_TEST(table_covers_registry)
{
    ck_assert_int_eq(mcb_solver_count(), NSOLV);
    for (int s = 0; s < NSOLV; s++) ck_assert_ptr_nonnull(mcb_solver_find(solvers[s].name));
}
END_TEST

/* Every row has an outcome for every fixture (a short row leaves a 0). */
START_TEST(table_rows_complete)
{
    for (int s = 0; s < NSOLV; s++)
        for (int f = 0; f < NFIX; f++)
            ck_assert_msg(solvers[s].expect[f] >= 1 && solvers[s].expect[f] <= MCB_NSTATUS,
                          "%s: no expected outcome on %s (%d of %d)", solvers[s].name,
                          fixtures[f].name, f + 1, NFIX);
}
END_TEST

START_TEST(fixture_x_solver)
{
    int f = _i / NSOLV, s = _i % NSOLV;
    mcb_problem *P = fixtures[f].make();
    ck_assert_ptr_nonnull(P);
    mcb_err err;
    ck_assert_msg(mcb_problem_validate(P, fixtures[f].name, &err) == MCB_OK, "%s", err.msg);
    mcb_run run;
    const mcb_solver_def *def = mcb_solver_find(solvers[s].name);
    check_run(P, solvers[s].name, NULL, 1e-8, 20000, 1, solvers[s].law, &run);
    ck_assert_msg(run.info.status == expected(s, f), "%s on %s: status %s (natmap %g), expected %s",
                  def->name, fixtures[f].name, mcb_status_name(run.info.status),
                  run.final.val[MCB_M_NATMAP], mcb_status_name(expected(s, f)));
    if (run.info.status == MCB_ST_SOLVED) {
        ck_assert_double_le(run.final.val[MCB_M_NATMAP], 1e-8);
        ck_assert_int_ge(run.trace_rows, 1);
        /* the trace's last row is the final state */
        const double *last = run.trace + (size_t)(run.trace_rows - 1) * MCB_TRACE_COLS;
        ck_assert_double_eq(last[0], run.info.iterations);
    }
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(known_solutions_are_found)
{
    /* the three one-contact states reach the exact (v, lambda) */
    for (int st = FX_OPEN; st <= FX_SLIP; st++)
        for (int s = 0; s < NSOLV; s++) {
            if (st == FX_SLIP && solvers[s].law == CCP) continue; /* another solution: test_ccp.c */
            if (solvers[s].expect[st] != OK) continue; /* the LCP-only solvers: test_formulation.c, test_lcp_*.c */
            if (!runs_here(s)) continue;
            mcb_problem *P = fx_point_contact(st);
            mcb_run run;
            check_run(P, solvers[s].name, NULL, 1e-12, 1000, 1, MCB_LAW_NCP, &run);
            double v[3], l[3];
            fx_point_solution(st, v, l);
            for (int k = 0; k < 3; k++) {
                ck_assert_double_eq_tol(run.v[k], v[k], 1e-9);
                ck_assert_double_eq_tol(run.lambda[k], l[k], 1e-9);
            }
            mcb_run_clear(&run);
            mcb_problem_free(&P);
        }
}
END_TEST

/* Per-row compliance: every solver that takes the compliant point contact
 * (primal, open/stick/slip; dual, slip) reaches its exact (v, lambda),
 * which differs from the rigid one (fixtures.h); every solver that refuses
 * it says why. */
START_TEST(compliant_solutions_are_found)
{
    for (int c = 0; c < 4; c++)
        for (int s = 0; s < NSOLV; s++) {
            int st = c < 3 ? c : FX_SLIP, dual = c == 3;
            if (st == FX_SLIP && solvers[s].law == CCP) continue; /* another solution */
            /* the MuJoCo peers and the LCP solvers: no contact problem */
            if (solvers[s].expect[FX_OPEN] != OK || !runs_here(s)) continue;
            mcb_problem *P = dual ? fx_compliant_dual(st) : fx_compliant(st);
            mcb_run run;
            const mcb_solver_def *def = mcb_solver_find(solvers[s].name);
            check_run(P, solvers[s].name, NULL, 1e-12, 20000, 1, MCB_LAW_NCP, &run);
            if (run.info.status == MCB_ST_SKIPPED) {
                ck_assert_msg(strstr(run.info.reason, "compliance") ||
                                  (dual && strstr(run.info.reason, "primal")) ||
                                  (dual && !(def->accepts & MCB_ACCEPTS_DUAL)),
                              "%s skips %s without saying why: '%s'", def->name, P->name,
                              run.info.reason);
            } else {
                double v[3], l[3];
                fx_compliant_solution(st, v, l);
                for (int k = 0; k < 3; k++) {
                    ck_assert_msg(fabs(run.lambda[k] - l[k]) <= 1e-9,
                                  "%s on %s%s: lambda_%d = %.12g, expected %g", def->name,
                                  P->name, dual ? " (dual)" : "", k, run.lambda[k], l[k]);
                    if (!dual)
                        ck_assert_msg(fabs(run.v[k] - v[k]) <= 1e-9,
                                      "%s on %s: v_%d = %.12g, expected %g", def->name, P->name,
                                      k, run.v[k], v[k]);
                }
            }
            mcb_run_clear(&run);
            mcb_problem_free(&P);
        }
}
END_TEST

/* fx_mixed_active with compliance on every row but the soft one (the rows
 * of its one contact touch two subsystems: SubADMM's shifted weight w + r
 * sums over both): the solvers that take it agree with pgs to 1e-7 and
 * meet natmap 1e-10; a contact whose tangential rows differ in r is
 * refused by SubADMM, with the reason. */
START_TEST(compliant_mixed_agree)
{
    static const double r[6] = {0.1, 0.2, 0, 0.3, 0.05, 0.05};
    double l0[6] = {0};
    int solved = 0;
    for (int s = 0; s < NSOLV; s++) {
        /* CCP: another solution; the solvers that do not solve the rigid one */
        if (solvers[s].law == CCP || solvers[s].expect[fixture_col("mixed_active")] != OK) continue;
        mcb_problem *P = fx_mixed_active();
        P->r = malloc(sizeof r);
        memcpy(P->r, r, sizeof r);
        mcb_run run;
        const mcb_solver_def *def = mcb_solver_find(solvers[s].name);
        check_run(P, solvers[s].name, NULL, 1e-10, 20000, 1, MCB_LAW_NCP, &run);
        if (!runs_here(s)) /* a GPU solver without a device (tests/test_gpu.c) */
            ck_assert_int_eq(run.info.status, MCB_ST_SETUP_FAILED);
        else if (run.info.status != MCB_ST_SKIPPED) {
            ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s on compliant mixed: %s (natmap %g)",
                          def->name, mcb_status_name(run.info.status),
                          run.final.val[MCB_M_NATMAP]);
            if (s == 0) memcpy(l0, run.lambda, sizeof l0);
            for (int k = 0; k < 6; k++)
                ck_assert_msg(fabs(run.lambda[k] - l0[k]) < 1e-7, "%s: lambda_%d %.10g, pgs %.10g",
                              def->name, k, run.lambda[k], l0[k]);
            solved++;
        }
        mcb_run_clear(&run);
        mcb_problem_free(&P);
    }
    ck_assert_int_ge(solved, 10);
    /* pj's matrix-free operator (r on its diagonal and in u) agrees too */
    {
        mcb_problem *P = fx_mixed_active();
        P->r = malloc(sizeof r);
        memcpy(P->r, r, sizeof r);
        const mcb_solver_def *def = mcb_solver_find("pj");
        double prm[16];
        def->default_params(prm);
        ck_assert_int_eq(mcb_param_set(def, prm, "matrix_free", "1", NULL), MCB_OK);
        mcb_run run;
        check_run(P, "pj", prm, 1e-10, 20000, 1, MCB_LAW_NCP, &run);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED, "pj matrix-free on compliant mixed: %s",
                      mcb_status_name(run.info.status));
        for (int k = 0; k < 6; k++) ck_assert_double_eq_tol(run.lambda[k], l0[k], 1e-7);
        mcb_run_clear(&run);
        mcb_problem_free(&P);
    }
    /* unequal tangential compliance: SubADMM refuses, pgs takes it */
    mcb_problem *P = fx_compliant(FX_SLIP);
    P->r[2] = 0.5;
    char why[MCB_ERR_LEN] = "";
    ck_assert(!mcb_solver_find("subadmm")->accepts_problem(P, why, sizeof why));
    ck_assert_msg(strstr(why, "unequal tangential compliance"), "%s", why);
    ck_assert(mcb_solver_find("pgs")->accepts_problem(P, why, sizeof why));
    ck_assert(!mcb_solver_find("canal")->accepts_problem(P, why, sizeof why));
    ck_assert_msg(strstr(why, "row 0 has compliance r = 1"), "%s", why);
    mcb_problem_free(&P);
}
END_TEST

/* On fx_mixed_active every row is active at the solution: each of our
 * solvers ends with the unilateral row's lambda_1 > 0 and J_1 v + e_1 = 0
 * (projecting it wrongly, or not at all, cannot reach natmap 1e-10), the
 * contact sliding (||lambda_t|| = mu lambda_n > 0), and they agree. */
START_TEST(active_unilateral_row_is_solved)
{
    double l0[6] = {0};
    for (int s = 0; s < 3; s++) {
        mcb_problem *P = fx_mixed_active();
        mcb_run run;
        const mcb_solver_def *def = mcb_solver_find(solvers[s].name);
        check_run(P, solvers[s].name, NULL, 1e-10, 20000, 1, MCB_LAW_NCP, &run);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s on mixed_active: %s (natmap %g)",
                      def->name, mcb_status_name(run.info.status), run.final.val[MCB_M_NATMAP]);
        double u1 = P->e[1] + run.v[1] + 0.5 * run.v[2]; /* J_1 = (0, 1, 0.5, 0, 0, 0) */
        ck_assert_msg(run.lambda[1] > 0.4 && fabs(u1) < 1e-7,
                      "%s: unilateral row should be active: lambda_1 %g, u_1 %g", def->name,
                      run.lambda[1], u1);
        double lt = hypot(run.lambda[4], run.lambda[5]);
        ck_assert_msg(run.lambda[3] > 0.1 && fabs(lt - 0.4 * run.lambda[3]) < 1e-7,
                      "%s: contact should slide: lambda %g, %g, %g", def->name, run.lambda[3],
                      run.lambda[4], run.lambda[5]);
        if (s == 0) memcpy(l0, run.lambda, sizeof l0);
        for (int k = 0; k < 6; k++)
            ck_assert_msg(fabs(run.lambda[k] - l0[k]) < 1e-7, "%s: lambda_%d %.10g, pgs %.10g",
                          def->name, k, run.lambda[k], l0[k]);
        mcb_run_clear(&run);
        mcb_problem_free(&P);
    }
}
END_TEST

/* SubADMM's alternative penalty rule (beta_rule = 1) also solves the
 * fixtures it takes. */
START_TEST(subadmm_delassus_beta_rule)
{
    fixture_fn makes[4] = {fx_mixed, fx_mixed_active, fx_small_stack, f_slip};
    const mcb_solver_def *def = mcb_solver_find("subadmm");
    for (int f = 0; f < 4; f++) {
        mcb_problem *P = makes[f]();
        double prm[16];
        def->default_params(prm);
        mcb_err err;
        ck_assert_int_eq(mcb_param_set(def, prm, "beta_rule", "1", &err), MCB_OK);
        mcb_run run;
        check_run(P, "subadmm", prm, 1e-8, 20000, 1, MCB_LAW_NCP, &run);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED, "fixture %d: %s", f,
                      mcb_status_name(run.info.status));
        mcb_run_clear(&run);
        mcb_problem_free(&P);
    }
    /* out-of-range values are refused at setup */
    double prm[16];
    def->default_params(prm);
    ck_assert_int_eq(mcb_param_set(def, prm, "beta_rule", "4", NULL), MCB_OK);
    mcb_problem *P = fx_mixed();
    void *work = NULL;
    mcb_settings st;
    mcb_settings_default(&st);
    mcb_err err;
    ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_E_INPUT);
    ck_assert_ptr_null(work);
    mcb_problem_free(&P);
}
END_TEST

START_TEST(deterministic_for_fixed_threads)
{
    mcb_problem *P = fx_small_stack();
    for (int s = 0; s < NSOLV; s++) {
        if (solvers[s].expect[fixture_col("stack2")] == SKIP || !runs_here(s)) continue; /* stack2: the LCP solvers skip it */
        double res[2];
        int iters[2];
        for (int rep = 0; rep < 2; rep++) {
            mcb_run run;
            check_run(P, solvers[s].name, NULL, 0, 50, 2, MCB_LAW_NCP, &run);
            res[rep] = run.info.status == MCB_ST_SKIPPED ? 0.0 : run.final.val[MCB_M_NATMAP];
            iters[rep] = run.info.iterations;
            /* ours use the whole budget; Siconos counts its own way (its
             * Newton solver reports the budget plus one) */
            if (s < 3) ck_assert_int_eq(run.info.iterations, 50);
            mcb_run_clear(&run);
        }
        ck_assert_double_eq(res[0], res[1]);
        ck_assert_int_eq(iters[0], iters[1]);
    }
    mcb_problem_free(&P);
}
END_TEST

/* The state functions (solver.h): after load_state() of a state saved at
 * iteration k, solve() repeats iterations k+1, ... bit for bit, and they
 * are the iterations of a solve that never stopped. */
static mcb_cb_action stop_at(void *ctx, int iter, double own)
{
    (void)own;
    return iter >= *(const int *)ctx ? MCB_CB_CONVERGED : MCB_CB_CONTINUE;
}

/* Settings without a tolerance (the callback or the budget stops) and a
 * solver's default parameters (calloc'd: the caller frees them). */
static mcb_settings untoleranced(int max_iters, int threads)
{
    mcb_settings st;
    mcb_settings_default(&st);
    st.max_iters = max_iters;
    st.tol = 0;
    st.threads = threads;
    return st;
}

static double *default_params(const mcb_solver_def *d)
{
    double *prm = calloc(d->params_size / sizeof(double) + 1, sizeof(double));
    d->default_params(prm);
    return prm;
}

static void solve_for(const mcb_solver_def *d, void *w, const mcb_settings *st, int k)
{
    mcb_info info;
    memset(&info, 0, sizeof info);
    d->solve(w, st, stop_at, &k, &info);
    ck_assert_msg(info.iterations == k, "%s: %d iterations, not %d", d->name, info.iterations, k);
}

START_TEST(state_resumes_exactly)
{
    /* primal: the small stack; an LCP: its Anitescu-Potra formulation (the
     * LCP solvers'); dual: Capsules (../shared/fclib; skipped without
     * failure when absent: the dual fixtures are solved in one sweep) */
    mcb_problem *probs[3] = {fx_small_stack(), NULL, NULL};
    mcb_formulation *F = NULL;
    mcb_err ierr;
    ck_assert_int_eq(mcb_formulation_build(probs[0], MCB_FORM_LCP_AP, 4, &F, &ierr), MCB_OK);
    const mcb_problem *lcp = mcb_formulation_problem(F);
    char path[4096];
    snprintf(path, sizeof path, "%s/fclib/Capsules-i125-1213.hdf5", mcb_test_shared_dir());
    if (access(path, R_OK) != 0 || mcb_import_fclib(path, &probs[2], &ierr) != MCB_OK)
        printf("SKIPPED (absent): the dual case, %s\n", path);
    int resumable = 0;
    for (int s = 0; s < mcb_solver_count(); s++) {
        const mcb_solver_def *d = mcb_solver_at(s);
        if (!mcb_solver_resumable(d)) continue;
        resumable++;
        int verified = 0;
        for (int p = 0; p < 3; p++) {
            const mcb_problem *P = p == 1 ? lcp : probs[p];
            if (!P) continue;
            char why[256];
            unsigned need = P->form == MCB_PRIMAL ? MCB_ACCEPTS_PRIMAL : MCB_ACCEPTS_DUAL;
            if (!(d->accepts & need) || (d->accepts_problem && !d->accepts_problem(P, why, 256)))
                continue;
            mcb_settings st = untoleranced(1000, 2);
            double *prm = default_params(d);
            /* the LCP's sigma rows have W_rr = 0: the LCP solvers' proximal step */
            mcb_err perr;
            if (p == 1) (void)mcb_param_set(d, prm, "reg", "1", &perr);
            void *w = NULL, *w2 = NULL;
            mcb_err err;
            if (d->setup(P, &st, prm, &w, &err) != MCB_OK) { /* e.g. pgs on the LCP's W */
                free(prm);
                continue;
            }
            ck_assert_int_eq(d->setup(P, &st, prm, &w2, &err), MCB_OK);
            verified++;
            size_t z = d->state_size(w), nv = (size_t)P->n + 1, nl = (size_t)P->m + 1;
            unsigned char *buf = malloc(z + 1);
            double *v[3], *l[3];
            for (int k = 0; k < 3; k++) {
                v[k] = calloc(nv, sizeof(double));
                l[k] = calloc(nl, sizeof(double));
            }
            solve_for(d, w, &st, 7);
            d->save_state(w, buf);
            solve_for(d, w, &st, 5);
            d->iterate(w, v[0], l[0]);
            d->load_state(w, buf);
            solve_for(d, w, &st, 5);
            d->iterate(w, v[1], l[1]);
            solve_for(d, w2, &st, 12); /* never stopped */
            d->iterate(w2, v[2], l[2]);
            for (int k = 1; k < 3; k++) {
                ck_assert_msg(!memcmp(l[0], l[k], (size_t)P->m * sizeof(double)),
                              "%s on %s: lambda after %s differs", d->name, P->name,
                              k == 1 ? "load_state" : "an unstopped solve");
                if (P->form == MCB_PRIMAL)
                    ck_assert_msg(!memcmp(v[0], v[k], (size_t)P->n * sizeof(double)),
                                  "%s on %s: v differs", d->name, P->name);
            }
            for (int k = 0; k < 3; k++) {
                free(v[k]);
                free(l[k]);
            }
            free(buf);
            free(prm);
            d->free(&w);
            d->free(&w2);
        }
        ck_assert_msg(verified > 0, "%s has the state functions but no problem here to check them",
                      d->name);
    }
    /* pgs, psor, pgs-shuffle, pgs-mf, pj, psor-lcp and pj-lcp at least */
    ck_assert_int_ge(resumable, 7);
    mcb_formulation_free(&F);
    mcb_problem_free(&probs[0]);
    mcb_problem_free(&probs[2]);
}
END_TEST

/* Issue 22: per-row compliance on an LCP, u = W z + q + r∘z, that is the
 * LCP of W + diag(r). Every LCP solver honours it. */
static const char *const lcp_cols[6] = {"psor-lcp", "pj-lcp",  "fischer-newton",
                                        "minmap-newton", "lemke", "ip-lcp"};

/* The counterexample m = 1, unilateral, W = 1, q = -1, r = 1: z = 0.5
 * (u = 1 0.5 - 1 + 1 0.5 = 0). A solver that ignores r returns z = 1,
 * which the harness judges with u = 1 (natmap 1: not solved). Through the
 * harness, every LCP solver reaches z = 0.5, judged solved. */
START_TEST(lcp_compliance_counterexample)
{
    const double W = 1.0, q = -1.0, r = 1.0;
    mcb_problem *P = fx_dense_lcp(1, &W, &q, &r);
    mcb_err err;
    ck_assert_msg(mcb_problem_validate(P, P->name, &err) == MCB_OK, "%s", err.msg);
    char wrong[2048] = "";
    size_t len = 0;
    for (int s = 0; s < 6; s++) { /* every solver's verdict, the wrong ones listed */
        mcb_run run;
        check_run(P, lcp_cols[s], NULL, 1e-10, 1000, 1, MCB_LAW_NCP, &run);
        if (!(run.info.status == MCB_ST_SOLVED && fabs(run.lambda[0] - 0.5) <= 1e-9))
            len += (size_t)snprintf(wrong + len, sizeof wrong - len,
                                    "; %s: %s, z = %.12g, natmap %g", lcp_cols[s],
                                    mcb_status_name(run.info.status), run.lambda[0],
                                    run.final.val[MCB_M_NATMAP]);
        mcb_run_clear(&run);
    }
    ck_assert_msg(len == 0, "W = 1, q = -1, r = 1 (expected solved, z = 0.5)%s", wrong);
    mcb_problem_free(&P);
}
END_TEST

/* The LCP solvers with state functions (psor-lcp, pj-lcp) keep only z:
 * a state saved after 7 iterations on a compliant LCP and loaded into a
 * fresh workspace continues on W + diag(r) and converges to lemke's
 * answer (z = (1/13, 10/13, 0); without r it would be (0, 1, 0)). */
START_TEST(lcp_compliance_resumes)
{
    const double W[9] = {2, 1, 0, 1, 2, 1, 0, 1, 2}, q[3] = {-1, -2, 1}, r[3] = {1, 0.5, 0};
    const double zref[3] = {1.0 / 13.0, 10.0 / 13.0, 0.0};
    mcb_problem *P = fx_dense_lcp(3, W, q, r);
    mcb_run ref;
    check_run(P, "lemke", NULL, 1e-14, 100, 1, MCB_LAW_NCP, &ref);
    ck_assert_int_eq(ref.info.status, MCB_ST_SOLVED);
    for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(ref.lambda[k], zref[k], 1e-14);
    mcb_run_clear(&ref);
    int resumable = 0;
    for (int s = 0; s < 6; s++) {
        const mcb_solver_def *d = mcb_solver_find(lcp_cols[s]);
        if (!mcb_solver_resumable(d)) continue;
        resumable++;
        mcb_settings st = untoleranced(5000, 1);
        double *prm = default_params(d);
        void *w = NULL, *w2 = NULL;
        mcb_err err;
        ck_assert_int_eq(d->setup(P, &st, prm, &w, &err), MCB_OK);
        ck_assert_int_eq(d->setup(P, &st, prm, &w2, &err), MCB_OK);
        solve_for(d, w, &st, 7);
        unsigned char *buf = malloc(d->state_size(w) + 1);
        d->save_state(w, buf);
        d->load_state(w2, buf);
        int never = st.max_iters + 1;
        mcb_info info;
        memset(&info, 0, sizeof info);
        int status = d->solve(w2, &st, stop_at, &never, &info);
        double z[4];
        d->iterate(w2, NULL, z);
        for (int k = 0; k < 3; k++)
            ck_assert_msg(fabs(z[k] - zref[k]) <= 1e-10,
                          "%s resumed on a compliant LCP: z_%d = %.12g, expected %.12g (%s)",
                          d->name, k, z[k], zref[k], mcb_status_name(status));
        free(buf);
        free(prm);
        d->free(&w);
        d->free(&w2);
    }
    ck_assert_int_eq(resumable, 2); /* psor-lcp, pj-lcp */
    mcb_problem_free(&P);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("solvers");
    TCase *tc = tcase_create("fixtures x solvers");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, table_covers_registry);
    tcase_add_test(tc, table_rows_complete);
    tcase_add_loop_test(tc, fixture_x_solver, 0, NFIX * NSOLV);
    tcase_add_test(tc, known_solutions_are_found);
    tcase_add_test(tc, active_unilateral_row_is_solved);
    tcase_add_test(tc, compliant_solutions_are_found);
    tcase_add_test(tc, compliant_mixed_agree);
    tcase_add_test(tc, deterministic_for_fixed_threads);
    tcase_add_test(tc, subadmm_delassus_beta_rule);
    tcase_add_test(tc, state_resumes_exactly);
    tcase_add_test(tc, lcp_compliance_counterexample);
    tcase_add_test(tc, lcp_compliance_resumes);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

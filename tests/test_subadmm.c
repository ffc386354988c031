/* test_subadmm.c: SubADMM and its variants (issue 10, item 2) with known
 * answers: the point contact in its three states (exact v and lambda), the
 * small fixtures under every penalty rule, a subsystem large enough for the
 * CHOLMOD path, a constraint-free subsystem solved once (exactly), the
 * body rule of the subsystem inference (hand-built cases and the shared
 * FCLIB Box_Stacks: 75 bodies of 6 DOFs, skipped when absent), the shared
 * FCLIB files solved to 1e-8 (skipped when absent), no allocation inside
 * the iteration (malloc counted between the second and the last callback;
 * not under AddressSanitizer, which owns malloc), and the failure
 * statuses on ill-posed problems (A not positive definite: setup fails;
 * b not finite: diverged). Body splitting (CANAL/SubADMM paper eq.
 * (30)-(31), (40)-(41)): on a hand-built three-body tree with a constraint
 * between two bodies of one subsystem, and on a recorded quadruped, the
 * first iterate equals a direct dense solve of the subsystem matrix (the
 * tree factorization's known answer), and subadmm and subadmm-nobody both
 * reach natmap 1e-8 and agree on v. */
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
#include "metrics/metrics.h"
#include "harness/runner.h"
#include "problems/scene/scenes.h"
#include "solvers/solver.h"

#include "alloc_count.h"

static mcb_problem_set *quadruped_steps(void);

/* Runs def (with prm, NULL: defaults) through the harness to natmap tol. */
static int run_to(const mcb_problem *P, const char *solver, const double *prm, double tol,
                  int iters, double *natmap, double *v, double *lambda)
{
    mcb_run run;
    check_run(P, solver, prm, tol, iters, 1, MCB_LAW_NCP, &run);
    int st = run.info.status;
    if (natmap) *natmap = run.final.val[MCB_M_NATMAP];
    if (v && run.v) memcpy(v, run.v, (size_t)P->n * sizeof(double));
    if (lambda && run.lambda) memcpy(lambda, run.lambda, (size_t)P->m * sizeof(double));
    mcb_run_clear(&run);
    return st;
}

/* The point contact: exact v and lambda in the open, stick and slip states,
 * for subadmm and fadmm. */
START_TEST(point_contact_known_answer)
{
    const char *solvers[2] = {"subadmm", "fadmm"};
    for (int s = 0; s < 2; s++) {
        mcb_problem *P = fx_point_contact(_i);
        double v[3], lam[3], vx[3], lx[3], nm;
        fx_point_solution(_i, vx, lx);
        int st = run_to(P, solvers[s], NULL, 1e-12, 5000, &nm, v, lam);
        ck_assert_msg(st == MCB_ST_SOLVED, "%s state %d: %s (natmap %g)", solvers[s], _i,
                      mcb_status_name(st), nm);
        for (int k = 0; k < 3; k++) {
            ck_assert_msg(fabs(v[k] - vx[k]) < 1e-9, "%s v[%d] = %g, expected %g", solvers[s], k,
                          v[k], vx[k]);
            ck_assert_msg(fabs(lam[k] - lx[k]) < 1e-9, "%s lambda[%d] = %g, expected %g",
                          solvers[s], k, lam[k], lx[k]);
        }
        mcb_problem_free(&P);
    }
}
END_TEST

/* Every penalty rule solves the small fixtures to natmap 1e-10. */
START_TEST(fixtures_every_beta_rule)
{
    typedef mcb_problem *(*fixture_fn)(void);
    fixture_fn makes[5] = {fx_mixed, fx_mixed_active, fx_small_stack, fx_gfc3d_example1, NULL};
    const mcb_solver_def *def = mcb_solver_find("subadmm");
    double prm[16];
    def->default_params(prm);
    char rule[4];
    snprintf(rule, sizeof rule, "%d", _i);
    ck_assert_int_eq(mcb_param_set(def, prm, "beta_rule", rule, NULL), MCB_OK);
    for (int f = 0; makes[f]; f++) {
        mcb_problem *P = makes[f]();
        double nm;
        int st = run_to(P, "subadmm", prm, 1e-10, 20000, &nm, NULL, NULL);
        ck_assert_msg(st == MCB_ST_SOLVED, "beta_rule %d, fixture %d: %s (natmap %g)", _i, f,
                      mcb_status_name(st), nm);
        mcb_problem_free(&P);
    }
}
END_TEST

/* A chain of 70 coupled DOFs (one subsystem above the dense limit of 64:
 * the CHOLMOD path) with a contact on DOFs 0-2 and a bilateral row on DOF
 * 69: solved to 1e-10 by subadmm and fadmm, both with v_69 = 0. */
static mcb_problem *chain70(void)
{
    int n = 70, m = 4;
    double *A = calloc((size_t)n * n, sizeof(double)), *J = calloc((size_t)m * n, sizeof(double));
    double b[70], e[4] = {0, 0, 0, 0};
    for (int j = 0; j < n; j++) {
        A[j * n + j] = 3.0;
        if (j + 1 < n) A[j * n + j + 1] = A[(j + 1) * n + j] = -1.0;
        b[j] = 0.1 * (j % 5) - 0.2;
    }
    b[2] = -1.0; /* pushed into the ground: the contact is active */
    J[0 * n + 2] = 1.0; /* normal = DOF 2, tangents DOFs 0 and 1 */
    J[1 * n + 0] = 1.0;
    J[2 * n + 1] = 1.0;
    J[3 * n + 69] = 1.0;
    mcb_problem *P = fx_dense_primal(n, m, A, b, J, e);
    free(A);
    free(J);
    P->nblocks = 2;
    P->blocks = calloc(2, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){.type = MCB_CONTACT, .row = 0, .nrows = 3, .mu = 0.3};
    P->blocks[1] = (mcb_block){.type = MCB_BILATERAL, .row = 3, .nrows = 1};
    mcb_problem_infer_subsystems(P, NULL);
    return P;
}

START_TEST(large_subsystem_cholmod_path)
{
    mcb_problem *P = chain70();
    ck_assert_int_eq(P->nsub, 1);
    const char *solvers[2] = {"subadmm", "fadmm"};
    for (int s = 0; s < 2; s++) {
        double nm, v[70], lam[4];
        int st = run_to(P, solvers[s], NULL, 1e-10, 20000, &nm, v, lam);
        ck_assert_msg(st == MCB_ST_SOLVED, "%s: %s (natmap %g)", solvers[s], mcb_status_name(st),
                      nm);
        ck_assert(fabs(v[69]) < 1e-9);
        ck_assert(lam[0] > 0.0);
    }
    mcb_problem_free(&P);
}
END_TEST

/* Four DOFs, diagonal A = diag(2, 2, 2, 4): the contact touches DOFs 0-2,
 * DOF 3 none. The body rule makes two subsystems, [0, 3) and [3, 4); the
 * constraint-free one is solved once at setup: v_3 = b_3 / 4 exactly. */
START_TEST(constraint_free_subsystem_exact)
{
    double A[16] = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 4};
    double b[4] = {0.3, 0.1, -2.0, 0.7}, e[3] = {0, 0, 0};
    double J[12] = {0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0};
    mcb_problem *P = fx_dense_primal(4, 3, A, b, J, e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){.type = MCB_CONTACT, .row = 0, .nrows = 3, .mu = 0.5};
    ck_assert_int_eq(mcb_problem_infer_subsystems(P, NULL), MCB_OK);
    ck_assert_int_eq(P->nsub, 2);
    ck_assert_int_eq(P->sub_start[1], 3);
    double nm, v[4], lam[3];
    int st = run_to(P, "subadmm", NULL, 1e-12, 5000, &nm, v, lam);
    ck_assert_msg(st == MCB_ST_SOLVED, "%s (natmap %g)", mcb_status_name(st), nm);
    ck_assert(v[3] == 0.7 / 4.0);
    /* the body: vfree = (0.15, 0.05, -1) slides with mu 0.5 */
    ck_assert(fabs(lam[0] - 2.0) < 1e-9);
    mcb_problem_free(&P);
}
END_TEST

/* Diagonal A of 18 DOFs (three 6-DOF bodies) and the rule's cases:
 *   _i = 0: contact 0 on body 0, contact 1 between bodies 0 and 1, contact 2
 *           on body 2: bodies by their contact sets, [0, 6, 12, 18];
 *   _i = 1: one contact touching bodies 0 and 1 only, body 2 untouched: the
 *           run of 12 DOFs with one contact set is cut at 6, [0, 6, 12, 18];
 *   _i = 2: DOFs 6 and 7 coupled in A (an off-diagonal entry): that
 *           component stays whole and is never joined, [0, 6, 8, 12, 18]. */
START_TEST(infers_bodies)
{
    int n = 18, m = 9;
    double *A = calloc((size_t)n * n, sizeof(double)), *J = calloc((size_t)m * n, sizeof(double));
    double b[18] = {0}, e[9] = {0};
    for (int j = 0; j < n; j++) A[j * n + j] = 1.0 + j;
    int expect[3][6] = {{0, 6, 12, 18, -1}, {0, 6, 12, 18, -1}, {0, 6, 8, 12, 18, -1}};
    /* rows 3c..3c+2 of contact c touch the DOFs listed (dense rows) */
    int touch[3][3][2] = {
        {{0, 6}, {0, 12}, {12, 18}}, {{0, 12}, {0, 12}, {0, 12}}, {{0, 6}, {0, 12}, {12, 18}}};
    for (int c = 0; c < 3; c++)
        for (int r = 3 * c; r < 3 * c + 3; r++)
            for (int j = touch[_i][c][0]; j < touch[_i][c][1]; j++) J[r * n + j] = 0.5 + 0.01 * j;
    if (_i == 2) A[6 * n + 7] = A[7 * n + 6] = 0.5;
    mcb_problem *P = fx_dense_primal(n, m, A, b, J, e);
    free(A);
    free(J);
    P->nblocks = 3;
    P->blocks = calloc(3, sizeof(mcb_block));
    for (int c = 0; c < 3; c++)
        P->blocks[c] = (mcb_block){.type = MCB_CONTACT, .row = 3 * c, .nrows = 3, .mu = 0.5};
    ck_assert_int_eq(mcb_problem_infer_subsystems(P, NULL), MCB_OK);
    int k = 0;
    while (expect[_i][k] >= 0) k++;
    ck_assert_int_eq(P->nsub, k - 1);
    for (int s = 0; s < k; s++) ck_assert_int_eq(P->sub_start[s], expect[_i][s]);
    mcb_err err;
    ck_assert_int_eq(mcb_problem_validate(P, "infers_bodies", &err), MCB_OK);
    mcb_problem_free(&P);
}
END_TEST

static const char *shared_files[] = {"Box_Stacks-i0122-82-5.hdf5", "CubeH8.hdf5",
                                     "LMGC_GlobalFrictionContactProblem00046.hdf5"};
#define NSHARED (int)(sizeof shared_files / sizeof shared_files[0])

static int shared_path(int k, char *buf, size_t len)
{
    snprintf(buf, len, "%s/fclib/%s", mcb_test_shared_dir(), shared_files[k]);
    return access(buf, R_OK) == 0;
}

/* The shared FCLIB global problems: Box_Stacks's diagonal mass matrix
 * gives 75 bodies of 6 DOFs; subadmm (default beta rule) and fadmm solve
 * each file to natmap 1e-8. An absent file is skipped (said, not failed). */
START_TEST(shared_fclib)
{
    char p[1024];
    if (!shared_path(_i, p, sizeof p)) {
        printf("SKIPPED: absent: %s\n", p);
        return;
    }
    mcb_problem *P = NULL;
    mcb_err err;
    ck_assert_msg(mcb_import_fclib(p, &P, &err) == MCB_OK, "%s", err.msg);
    if (_i == 0) {
        ck_assert_int_eq(P->nsub, 75);
        for (int s = 0; s < P->nsub; s++) ck_assert_int_eq(P->sub_start[s + 1] - P->sub_start[s], 6);
    }
    const char *solvers[2] = {"subadmm", "fadmm"};
    for (int s = 0; s < 2; s++) {
        double nm;
        int st = run_to(P, solvers[s], NULL, 1e-8, 20000, &nm, NULL, NULL);
        ck_assert_msg(st == MCB_ST_SOLVED, "%s on %s: %s (natmap %g)", solvers[s],
                      shared_files[_i], mcb_status_name(st), nm);
    }
    mcb_problem_free(&P);
}
END_TEST

#if COUNT_MALLOC
typedef struct {
    long at2; /* nalloc at the second callback */
    int iters;
} count_ctx;

static mcb_cb_action count_cb(void *ctx, int iter, double own)
{
    (void)own;
    count_ctx *c = ctx;
    if (iter == 2) {
        nalloc = 0;
        __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
    }
    c->iters = iter;
    return MCB_CB_CONTINUE;
}

/* No malloc, calloc or realloc between the second and the last of 200
 * iterations: the dense path (small stack) with residual balancing every 5
 * iterations (refactorization included); the CHOLMOD path (chain70, subadmm
 * and fadmm) without balancing, since CHOLMOD's refactorization allocates
 * (about once per refactorization of a large subsystem: at a change of
 * beta, never in an iteration that keeps beta). */
START_TEST(no_allocation_in_loop)
{
    const char *solvers[4] = {"subadmm", "subadmm", "fadmm", "subadmm"};
    mcb_problem_set *Q = quadruped_steps();
    for (int k = 0; k < 4; k++) {
        /* k = 3: the last quadruped step (contacts on the feet: the tree path) */
        mcb_problem *P = k == 0 ? fx_small_stack()
                         : k == 3 ? mcb_problem_copy(Q->items[Q->count - 1])
                                  : chain70();
        const mcb_solver_def *def = mcb_solver_find(solvers[k]);
        double prm[16];
        def->default_params(prm);
        ck_assert_int_eq(mcb_param_set(def, prm, "adaptive", k == 0 || k == 3 ? "1" : "0", NULL),
                         MCB_OK);
        ck_assert_int_eq(mcb_param_set(def, prm, "adapt_every", "5", NULL), MCB_OK);
        mcb_settings st;
        mcb_settings_default(&st);
        st.max_iters = 200;
        void *work = NULL;
        mcb_err err;
        ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_OK);
        count_ctx c = {0, 0};
        mcb_info info;
        memset(&info, 0, sizeof info);
        def->solve(work, &st, count_cb, &c, &info);
        __atomic_store_n(&counting, 0, __ATOMIC_RELAXED);
        ck_assert_int_eq(c.iters, 200);
        ck_assert_msg(nalloc == 0, "%s (case %d): %ld allocations in iterations 3-200",
                      solvers[k], k, nalloc);
        def->free(&work);
        mcb_problem_free(&P);
    }
    mcb_problem_set_free(&Q);
}
END_TEST
#endif

static mcb_cb_action go_on(void *ctx, int iter, double own)
{
    (void)ctx;
    (void)iter;
    (void)own;
    return MCB_CB_CONTINUE;
}

/* Ill-posed: A not positive definite fails at setup (MCB_E_NUMERIC, no
 * work left); a non-finite b makes the iteration stop as diverged. */
START_TEST(ill_posed_statuses)
{
    const mcb_solver_def *def = mcb_solver_find("subadmm");
    double prm[16];
    def->default_params(prm);
    mcb_settings st;
    mcb_settings_default(&st);
    st.max_iters = 50;
    mcb_err err;
    void *work = NULL;
    mcb_problem *P = fx_point_contact(FX_STICK);
    P->A->x[1] = -1.0; /* A = diag(1, -1, 1) */
    ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_E_NUMERIC);
    ck_assert_ptr_null(work);
    mcb_problem_free(&P);
    P = fx_point_contact(FX_STICK);
    P->b[0] = NAN;
    ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_OK);
    mcb_info info;
    memset(&info, 0, sizeof info);
    ck_assert_int_eq(def->solve(work, &st, go_on, NULL, &info), MCB_ST_DIVERGED);
    def->free(&work);
    def->free(&work); /* NULL: no-op */
    mcb_problem_free(&P);
}
END_TEST

/* ---- body splitting ------------------------------------------------ */

/* Dense helpers for the known answers (test code: tiny sizes). */
static mcb_csc *dense_csc(int m, int n, const double *a) /* a row-major */
{
    int nz = 0, *ri = malloc(sizeof(int) * (size_t)(m * n + 1)),
        *ci = malloc(sizeof(int) * (size_t)(m * n + 1));
    double *x = malloc(sizeof(double) * (size_t)(m * n + 1));
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            if (a[i * n + j] != 0.0) ri[nz] = i, ci[nz] = j, x[nz++] = a[i * n + j];
    mcb_csc *M = mcb_csc_from_triplets(m, n, nz, ri, ci, x);
    free(ri);
    free(ci);
    free(x);
    return M;
}

/* x = K^-1 b by dense Gaussian elimination with partial pivoting (K n x n,
 * row-major, destroyed). */
static void dense_solve(int n, double *K, double *x)
{
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(K[r * n + c]) > fabs(K[piv * n + c])) piv = r;
        for (int j = 0; j < n; j++) {
            double t = K[c * n + j];
            K[c * n + j] = K[piv * n + j];
            K[piv * n + j] = t;
        }
        double t = x[c];
        x[c] = x[piv];
        x[piv] = t;
        for (int r = c + 1; r < n; r++) {
            double f = K[r * n + c] / K[c * n + c];
            for (int j = c; j < n; j++) K[r * n + j] -= f * K[c * n + j];
            x[r] -= f * x[c];
        }
    }
    for (int r = n - 1; r >= 0; r--) {
        double t = x[r];
        for (int j = r + 1; j < n; j++) t -= K[r * n + j] * x[j];
        x[r] = t / K[r * n + r];
    }
}

/* A three-body tree of 4 DOFs in one subsystem: body 0 (root) moves with
 * DOFs 0-1, body 1 (child of 0) adds DOF 2, body 2 (child of 0) adds DOF 3,
 * so the DOF tree is 0 - 1 - {2, 3} and K_23 = 0. A = Jb^T diag(masses)
 * Jb + I (branch-induced pattern). One bilateral row between bodies 1 and
 * 2 of the same subsystem (eq. (31): one copy per body) and one contact of
 * body 1 with the ground. */
static const double tree_Jb[18 * 4] = {
    /* body 0 rows: twist = DOFs 0, 1 */
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 1.0, 0.2, 0.0, 0.0,
    /* body 1: depends on 0, 1, 2 */
    1.0, 0.3, 0.4, 0.0, 0.0, 1.0, 0.7, 0.0, 0.2, 0.0, 1.0, 0.0,
    0.0, 0.1, 0.0, 0.0, 0.3, 0.5, 0.2, 0.0, 1.0, 0.2, 0.6, 0.0,
    /* body 2: depends on 0, 1, 3 */
    1.0, -0.3, 0.0, 0.5, 0.0, 1.0, 0.0, -0.4, 0.1, 0.0, 0.0, 1.0,
    0.0, 0.2, 0.0, 0.3, 0.4, 0.5, 0.0, 0.0, 1.0, 0.2, 0.0, 0.9,
};

static mcb_problem *tree_problem(void)
{
    mcb_problem *P = mcb_problem_new();
    int n = 4, m = 4, nb = 3;
    double Jc[4 * 18] = {0};
    /* row 0: bilateral between body 1 (+) and body 2 (-) */
    double c0[6] = {0.3, 1.0, -0.2, 0.1, 0.0, 0.4};
    for (int q = 0; q < 6; q++) Jc[0 * 18 + 6 + q] = c0[q], Jc[0 * 18 + 12 + q] = -0.8 * c0[q];
    /* rows 1-3: contact of body 1 with the ground, normal z at r = (0.1, 0, -0.3) */
    const double rows[3][6] = {{0, 0, 1, 0, -0.1, 0}, {1, 0, 0, 0, -0.3, 0}, {0, 1, 0, 0.3, 0, 0.1}};
    for (int k = 0; k < 3; k++)
        for (int q = 0; q < 6; q++) Jc[(1 + k) * 18 + 6 + q] = rows[k][q];
    P->form = MCB_PRIMAL;
    P->n = n;
    P->m = m;
    P->nbodies = nb;
    P->Jc = dense_csc(m, 18, Jc);
    P->Jb = dense_csc(18, n, tree_Jb);
    P->J = mcb_csc_multiply(P->Jc, P->Jb);
    double Ad[16] = {0}, mass[3] = {2.0, 1.0, 1.5};
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double t = i == j ? 1.0 : 0.0;
            for (int r = 0; r < 18; r++) t += mass[r / 6] * tree_Jb[r * 4 + i] * tree_Jb[r * 4 + j];
            Ad[i * n + j] = t;
        }
    ck_assert(Ad[2 * 4 + 3] == 0.0); /* branch-induced: DOFs 2 and 3 never meet */
    P->A = dense_csc(n, n, Ad);
    P->b = calloc((size_t)n, sizeof(double));
    double b[4] = {0.3, -2.0, 0.5, -0.1};
    memcpy(P->b, b, sizeof b);
    P->e = calloc((size_t)m, sizeof(double));
    P->e[0] = 0.05;
    P->e[1] = -0.01;
    P->nblocks = 2;
    P->blocks = calloc(2, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_BILATERAL, 0, 1, 0.0, 0.0, 0.0};
    P->blocks[1] = (mcb_block){MCB_CONTACT, 1, 3, 0.5, 0.0, 0.0};
    P->nsub = 1;
    P->sub_start = malloc(2 * sizeof(int));
    P->sub_start[0] = 0;
    P->sub_start[1] = n;
    P->body_parent = malloc(3 * sizeof(int));
    P->body_sub = calloc(3, sizeof(int));
    P->body_parent[0] = -1;
    P->body_parent[1] = 0;
    P->body_parent[2] = 0;
    return P;
}

/* The first iterate of a cold start without balancing, beta_rule 0: z = u
 * = 0, so v^1 = K^-1 b with K = A + beta sum_pairs g_a g_a^T, g_a the
 * pair's row (body splitting: Jc_a,k Jb_k per body; none: J's row) and
 * beta = Tr(A) / sum ||g_a||^2. */
static void first_iterate(const mcb_problem *P, const char *solver, double *v)
{
    const mcb_solver_def *def = mcb_solver_find(solver);
    ck_assert_ptr_nonnull(def);
    double prm[16];
    def->default_params(prm);
    ck_assert_int_eq(mcb_param_set(def, prm, "adaptive", "0", NULL), MCB_OK);
    ck_assert_int_eq(mcb_param_set(def, prm, "beta_rule", "0", NULL), MCB_OK);
    mcb_settings st;
    mcb_settings_default(&st);
    st.max_iters = 1;
    st.warm_start = 0;
    void *work = NULL;
    mcb_err err;
    ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_OK);
    mcb_info info;
    memset(&info, 0, sizeof info);
    def->solve(work, &st, go_on, NULL, &info);
    double *lam = malloc(sizeof(double) * (size_t)(P->m + 1));
    def->iterate(work, v, lam);
    free(lam);
    def->free(&work);
}

/* The known answer of first_iterate() for subsystem 0 = all DOFs, rows
 * split per body (split = 1) or per subsystem. */
static void direct_first_iterate(const mcb_problem *P, int split, double *v)
{
    int n = P->n, m = P->m;
    double *K = calloc((size_t)(n * n), sizeof(double)), *g = calloc((size_t)n, sizeof(double));
    double trA = 0.0, trG = 0.0;
    for (int j = 0; j < n; j++)
        for (int k = P->A->p[j]; k < P->A->p[j + 1]; k++) {
            K[P->A->i[k] * n + j] = P->A->x[k];
            if (P->A->i[k] == j) trA += P->A->x[k];
        }
    double *G = calloc((size_t)(n * n), sizeof(double));
    mcb_csc *JcT = mcb_csc_transpose(P->Jc);
    for (int r = 0; r < m; r++) {
        int nparts = split ? P->nbodies : 1;
        for (int k = 0; k < nparts; k++) {
            memset(g, 0, sizeof(double) * (size_t)n);
            int touched = 0;
            for (int e = JcT->p[r]; e < JcT->p[r + 1]; e++) {
                int col = JcT->i[e], body = col / 6;
                if (split && body != k) continue;
                touched = 1;
                for (int d = 0; d < n; d++)
                    for (int t = P->Jb->p[d]; t < P->Jb->p[d + 1]; t++)
                        if (P->Jb->i[t] == col) g[d] += JcT->x[e] * P->Jb->x[t];
            }
            if (!touched) continue;
            for (int i = 0; i < n; i++) {
                trG += g[i] * g[i];
                for (int j = 0; j < n; j++) G[i * n + j] += g[i] * g[j];
            }
        }
    }
    double beta = trA / trG;
    for (int i = 0; i < n * n; i++) K[i] += beta * G[i];
    memcpy(v, P->b, sizeof(double) * (size_t)n);
    dense_solve(n, K, v);
    mcb_csc_free(&JcT);
    free(K);
    free(G);
    free(g);
}

static double max_rel_diff(int n, const double *a, const double *b)
{
    double d = 0.0, s = 1e-300;
    for (int i = 0; i < n; i++) {
        if (fabs(a[i] - b[i]) > d) d = fabs(a[i] - b[i]);
        if (fabs(b[i]) > s) s = fabs(b[i]);
    }
    return d / s;
}

START_TEST(tree_factor_known_answer)
{
    mcb_problem *P = tree_problem();
    mcb_err err;
    ck_assert_msg(mcb_problem_validate(P, "tree", &err) == MCB_OK, "%s", err.msg);
    double v[4], ref[4];
    first_iterate(P, "subadmm", v);
    direct_first_iterate(P, 1, ref);
    ck_assert_msg(max_rel_diff(4, v, ref) < 1e-12, "body split: v1 differs by %g",
                  max_rel_diff(4, v, ref));
    first_iterate(P, "subadmm-nobody", v);
    direct_first_iterate(P, 0, ref);
    ck_assert_msg(max_rel_diff(4, v, ref) < 1e-12, "no body: v1 differs by %g",
                  max_rel_diff(4, v, ref));
    /* the two splittings differ (the bilateral row has two copies with body splitting) */
    double ref1[4];
    direct_first_iterate(P, 1, ref1);
    ck_assert(max_rel_diff(4, ref, ref1) > 1e-6);
    /* both reach 1e-10 and agree */
    double va[4], vb[4], nm = 1.0;
    ck_assert_int_eq(run_to(P, "subadmm", NULL, 1e-10, 20000, &nm, va, NULL), MCB_ST_SOLVED);
    ck_assert_int_eq(run_to(P, "subadmm-nobody", NULL, 1e-10, 20000, &nm, vb, NULL), MCB_ST_SOLVED);
    ck_assert_msg(max_rel_diff(4, va, vb) < 1e-8, "solutions differ by %g", max_rel_diff(4, va, vb));
    mcb_problem_free(&P);
}
END_TEST

/* A recorded single quadruped (18 DOF, one subsystem of 17 bodies) from
 * the quadrupeds scene; the steps after landing have 1-4 contacts. */
static mcb_problem_set *quadruped_steps(void)
{
    const mcb_scene_def *def = mcb_scene_find("quadrupeds");
    ck_assert_ptr_nonnull(def);
    char *argv[] = {"--robots", "1", "--steps", "40"};
    double vals[16];
    mcb_err err = {{0}};
    ck_assert_msg(mcb_scene_parse(def, 4, argv, vals, &err) == MCB_OK, "%s", err.msg);
    mcb_problem_set *S = NULL;
    ck_assert_msg(def->generate(vals, NULL, &S, &err) == MCB_OK, "%s", err.msg);
    return S;
}

START_TEST(quadruped_body_split)
{
    mcb_problem_set *S = quadruped_steps();
    int tested = 0;
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        if (mcb_problem_contacts(P) == 0) continue;
        ck_assert_int_gt(P->nbodies, 1);
        double v[64], ref[64];
        ck_assert_int_le(P->n, 64);
        first_iterate(P, "subadmm", v);
        direct_first_iterate(P, 1, ref);
        ck_assert_msg(max_rel_diff(P->n, v, ref) < 1e-10, "%s: v1 differs by %g", P->name,
                      max_rel_diff(P->n, v, ref));
        double va[64], vb[64], na = 1.0, nb = 1.0;
        ck_assert_int_eq(run_to(P, "subadmm", NULL, 1e-8, 20000, &na, va, NULL), MCB_ST_SOLVED);
        ck_assert_int_eq(run_to(P, "subadmm-nobody", NULL, 1e-8, 20000, &nb, vb, NULL),
                         MCB_ST_SOLVED);
        ck_assert(na <= 1e-8 && nb <= 1e-8);
        ck_assert_msg(max_rel_diff(P->n, va, vb) < 1e-6, "%s: solutions differ by %g", P->name,
                      max_rel_diff(P->n, va, vb));
        tested++;
    }
    ck_assert_int_ge(tested, 5);
    mcb_problem_set_free(&S);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("subadmm");
    TCase *tc = tcase_create("subadmm");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, point_contact_known_answer, FX_OPEN, FX_SLIP + 1);
    tcase_add_loop_test(tc, fixtures_every_beta_rule, 0, 4);
    tcase_add_test(tc, large_subsystem_cholmod_path);
    tcase_add_test(tc, constraint_free_subsystem_exact);
    tcase_add_loop_test(tc, infers_bodies, 0, 3);
    tcase_add_loop_test(tc, shared_fclib, 0, NSHARED);
#if COUNT_MALLOC
    tcase_add_test(tc, no_allocation_in_loop);
#endif
    tcase_add_test(tc, ill_posed_statuses);
    tcase_add_test(tc, tree_factor_known_answer);
    tcase_add_test(tc, quadruped_body_split);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

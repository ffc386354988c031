/* test_report.c: known answers for the report's computations: performance
 * and data profiles (reports/profile.c) on hand-computed matrices with
 * ties, failures, a problem no solver solved, a zero time and a single
 * solver; the problems x solvers matrix over repetitions
 * (reports/outcomes.c) and the solvers' ranking on it, each over the
 * problems it accepted (skipped and missing runs not accepted); the convergence
 * curve over the runs still going, with their count (reports/curves.c);
 * names relative to the output directory (mcb_path_relative); closed-loop
 * runs (reports/loop_stats.c, page_loop.c): the per-step medians over the
 * runs still going, the outcome table's row by hand, and `mcbench report`
 * on a results file of synthetic closed-loop runs written through the
 * journal and mcb_results_write: its outcome table (a solver that failed in
 * every run shown "-" with its first failing step), the curves' data and
 * plot scripts, and a replay set beside it left without them. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixtures.h"
#include "lib/mcb_paths.h"
#include "reports/curves.h"
#include "reports/loop_stats.h"
#include "reports/outcomes.h"
#include "reports/profile.h"
#include "reports/report.h"

#define X NAN /* a failure */

/* Solver s's curve is exactly the n points (tau[k], num[k] / den). */
static void expect_curve(const mcb_profile *P, int s, int n, const double *tau, const int *num,
                         int den)
{
    size_t off = (size_t)s * ((size_t)P->nproblems + 2);
    ck_assert_msg(P->npoints[s] == n, "solver %d: %d points, expected %d", s, P->npoints[s], n);
    for (int k = 0; k < n; k++) {
        ck_assert_msg(P->tau[off + k] == tau[k], "solver %d point %d: tau %g, expected %g", s, k,
                      P->tau[off + k], tau[k]);
        ck_assert_msg(P->rho[off + k] == (double)num[k] / den,
                      "solver %d point %d (tau %g): fraction %g, expected %d/%d", s, k, tau[k],
                      P->rho[off + k], num[k], den);
    }
}

/* 3 problems x 3 solvers, by hand:
 *   p0: s0 = 1, s1 = 1 (tie for best), s2 fails   ratios 1, 1, inf
 *   p1: s0 = 2, s1 = 8, s2 = 4                     ratios 1, 4, 2
 *   p2: every solver fails                         solved by nobody
 * Performance profile (lo = 1, hi = 4, denominator 3 with p2 in it):
 *   s0: ratios {1, 1}: 2/3 from tau = 1 on
 *   s1: ratios {1, 4}: 1/3 at 1, 2/3 from 4
 *   s2: ratios {2}:    0 at 1, 1/3 from 2
 * Data profile (lo = 1, hi = 8): s0 {1, 2}, s1 {1, 8}, s2 {4}. */
static const double example[9] = {1, 1, X, 2, 8, 4, X, X, X};

START_TEST(performance_profile_known_answer)
{
    mcb_profile P;
    mcb_err err;
    ck_assert_int_eq(mcb_profile_compute(example, 3, 3, 1e-9, 1, &P, &err), MCB_OK);
    ck_assert_int_eq(P.unsolved, 1);
    ck_assert_double_eq(P.lo, 1);
    ck_assert_double_eq(P.hi, 4);
    ck_assert_int_eq(P.solved[0], 2);
    ck_assert_int_eq(P.solved[1], 2);
    ck_assert_int_eq(P.solved[2], 1);
    expect_curve(&P, 0, 2, (double[]){1, 4}, (int[]){2, 2}, 3);
    expect_curve(&P, 1, 2, (double[]){1, 4}, (int[]){1, 2}, 3);
    expect_curve(&P, 2, 3, (double[]){1, 2, 4}, (int[]){0, 1, 1}, 3);
    mcb_profile_free(&P);
    mcb_profile_free(&P); /* twice: a no-op */
}
END_TEST

START_TEST(data_profile_known_answer)
{
    mcb_profile P;
    ck_assert_int_eq(mcb_profile_compute(example, 3, 3, 1e-9, 0, &P, NULL), MCB_OK);
    ck_assert_int_eq(P.unsolved, 1);
    ck_assert_double_eq(P.lo, 1);
    ck_assert_double_eq(P.hi, 8);
    expect_curve(&P, 0, 3, (double[]){1, 2, 8}, (int[]){1, 2, 2}, 3);
    expect_curve(&P, 1, 2, (double[]){1, 8}, (int[]){1, 2}, 3);
    expect_curve(&P, 2, 3, (double[]){1, 4, 8}, (int[]){0, 1, 1}, 3);
    mcb_profile_free(&P);
}
END_TEST

START_TEST(ratios_and_best)
{
    double best[3], r[9];
    mcb_profile_ratios(example, 3, 3, 1e-9, best, r);
    const double want[9] = {1, 1, INFINITY, 1, 4, 2, INFINITY, INFINITY, INFINITY};
    ck_assert_double_eq(best[0], 1);
    ck_assert_double_eq(best[1], 2);
    ck_assert(isnan(best[2]));
    for (int k = 0; k < 9; k++)
        ck_assert_msg(r[k] == want[k], "ratio %d: %g, expected %g", k, r[k], want[k]);
}
END_TEST

/* A best time of 0 is raised to the floor: 0 and 3e-9 s with a 1e-9 s
 * floor are ratios 1 and 3; two zeros tie at 1; a negative (damaged file)
 * is floored too; +inf is a failure. */
START_TEST(zero_time_is_floored)
{
    const double t[6] = {0, 3e-9, 0, 0, -1, INFINITY};
    double best[3], r[6];
    mcb_profile_ratios(t, 3, 2, 1e-9, best, r);
    ck_assert_double_eq(best[0], 1e-9);
    ck_assert_double_eq_tol(r[1], 3, 1e-12);
    ck_assert_double_eq(r[0], 1);
    ck_assert_double_eq(r[2], 1);
    ck_assert_double_eq(r[3], 1);
    ck_assert_double_eq(r[4], 1);
    ck_assert(isinf(r[5]));
    mcb_profile P;
    ck_assert_int_eq(mcb_profile_compute(t, 3, 2, 1e-9, 0, &P, NULL), MCB_OK);
    ck_assert_double_eq(P.lo, 1e-9); /* a logarithmic axis can show it */
    ck_assert_int_eq(P.unsolved, 0);
    mcb_profile_free(&P);
}
END_TEST

/* One solver: it is the best wherever it succeeds; its curve is one point,
 * the fraction it solved, at tau = 1 = hi. */
START_TEST(single_solver)
{
    const double t[4] = {5, X, 0.5, 7};
    mcb_profile P;
    ck_assert_int_eq(mcb_profile_compute(t, 4, 1, 1e-9, 1, &P, NULL), MCB_OK);
    ck_assert_double_eq(P.hi, 1);
    ck_assert_int_eq(P.unsolved, 1);
    expect_curve(&P, 0, 1, (double[]){1}, (int[]){3}, 4);
    mcb_profile_free(&P);
}
END_TEST

START_TEST(nothing_solved)
{
    const double t[4] = {X, X, INFINITY, -INFINITY};
    mcb_profile P;
    ck_assert_int_eq(mcb_profile_compute(t, 2, 2, 1e-9, 1, &P, NULL), MCB_OK);
    ck_assert_int_eq(P.unsolved, 2);
    ck_assert_double_eq(P.lo, 1);
    ck_assert_double_eq(P.hi, 1);
    expect_curve(&P, 0, 1, (double[]){1}, (int[]){0}, 2);
    expect_curve(&P, 1, 1, (double[]){1}, (int[]){0}, 2);
    mcb_profile_free(&P);
    ck_assert_int_eq(mcb_profile_compute(t, 2, 2, 1e-9, 0, &P, NULL), MCB_OK);
    ck_assert_double_eq(P.lo, 1e-9);
    ck_assert_double_eq(P.hi, 1e-9);
    expect_curve(&P, 0, 1, (double[]){1e-9}, (int[]){0}, 2);
    mcb_profile_free(&P);
}
END_TEST

START_TEST(bad_sizes_are_refused)
{
    mcb_profile P;
    mcb_err err;
    ck_assert_int_eq(mcb_profile_compute(example, 0, 3, 1e-9, 1, &P, &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "0 problems x 3 solvers"), "message: %s", err.msg);
    ck_assert_int_eq(mcb_profile_compute(example, 3, 0, 1e-9, 1, &P, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_profile_compute(example, 3, 3, 0, 1, &P, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_profile_compute(example, 3, 3, NAN, 1, &P, &err), MCB_E_INPUT);
    ck_assert_ptr_null(P.tau);
}
END_TEST

START_TEST(median_counts_infinity)
{
    double a[3] = {3, INFINITY, 1};
    ck_assert_double_eq(mcb_median(a, 3), 3);
    double b[2] = {2, INFINITY}; /* half the repetitions failed: not solved */
    ck_assert(isinf(mcb_median(b, 2)));
    double c[4] = {4, NAN, 1, 2}; /* NaN is left out */
    ck_assert_double_eq(mcb_median(c, 4), 2);
    double d[1] = {NAN};
    ck_assert(isnan(mcb_median(d, 1)));
}
END_TEST

static mcb_run_rec rec(char *set, char *problem, int index, char *solver, int rep, int status,
                       double setup, double solve, int iters)
{
    return (mcb_run_rec){.problem_set = set, .problem = problem, .problem_index = index,
                         .solver = solver, .rep = rep, .status = status, .setup_s = setup,
                         .solve_s = solve, .iterations = iters};
}

/* Runs out of order; set B seen first; problem 1 of A before problem 0;
 * three repetitions of which 2 or 1 solved; a solver without a run. */
START_TEST(outcomes_over_repetitions)
{
    char A[] = "A", B[] = "B", a0[] = "a0", a1[] = "a1", b0[] = "b0", pgs[] = "pgs", pj[] = "pj";
    const int S = MCB_ST_SOLVED, M = MCB_ST_MAX_ITERS, T = MCB_ST_TIME_LIMIT;
    mcb_run_rec runs[] = {
        rec(B, b0, 0, pgs, 0, S, 1, 1, 10),
        rec(A, a1, 1, pj, 0, S, 1, 2, 30),
        rec(A, a1, 1, pj, 1, T, 1, 9, 99),
        rec(A, a1, 1, pj, 2, S, 1, 4, 50),
        rec(A, a1, 1, pgs, 0, S, 0, 1, 5),
        rec(A, a1, 1, pgs, 1, M, 0, 1, 9),
        rec(A, a1, 1, pgs, 2, T, 0, 1, 9),
        rec(A, a0, 0, pgs, 0, M, 0, 1, 9),
        rec(A, a0, 0, pj, 0, M, 0, 1, 9),
        rec(B, b0, 0, pgs, 1, S, 1, 3, 20),
    };
    mcb_results_data D;
    memset(&D, 0, sizeof D);
    D.count = (int)(sizeof runs / sizeof *runs);
    D.runs = runs;
    mcb_outcomes O;
    ck_assert_int_eq(mcb_outcomes_build(&D, &O, NULL), MCB_OK);
    ck_assert_int_eq(O.nsets, 2);
    ck_assert_str_eq(O.sets[0], "B");
    ck_assert_int_eq(O.nsolvers, 2);
    ck_assert_str_eq(O.solvers[0], "pgs");
    ck_assert_int_eq(O.nproblems, 3);
    /* by set (B first), then problem_index */
    ck_assert_str_eq(O.problem[0], "b0");
    ck_assert_str_eq(O.problem[1], "a0");
    ck_assert_str_eq(O.problem[2], "a1");
    /* b0: pgs solved twice (2 s and 4 s): median 3 s, 15 iterations; pj no run */
    ck_assert_double_eq(O.time_s[0], 3);
    ck_assert_double_eq(O.iters[0], 15);
    ck_assert_int_eq(O.status[0], S);
    ck_assert_int_eq(O.status[1], MCB_OUTCOME_NONE);
    ck_assert(isnan(O.time_s[1]));
    /* a0: both max-iterations */
    ck_assert_int_eq(O.status[2], M);
    ck_assert(isnan(O.time_s[2]) && isnan(O.iters[3]));
    /* a1 pgs: 1 of 3 solved: not solved; pj: 2 of 3 (3, inf, 5 s): 5 s, 50 iterations */
    ck_assert_int_eq(O.status[4], MCB_OUTCOME_MIXED);
    ck_assert_int_eq(O.solved_reps[4], 1);
    ck_assert_int_eq(O.reps[4], 3);
    ck_assert(isnan(O.time_s[4]));
    ck_assert_double_eq(O.time_s[5], 5);
    ck_assert_double_eq(O.iters[5], 50);
    char buf[64];
    mcb_outcome_status_text(&O, 2, 0, buf, sizeof buf);
    ck_assert_str_eq(buf, "1/3 solved");
    mcb_outcome_status_text(&O, 1, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "max-iterations");
    mcb_outcome_status_text(&O, 0, 1, buf, sizeof buf);
    ck_assert_str_eq(buf, "no run");
    mcb_outcomes_free(&O);
    mcb_outcomes_free(&O);
}
END_TEST

/* Ranking: 4 problems (3 in set A, 1 in B), 4 solvers.
 *   fast:  solves a0 (1 s), a1 (1 s)              2 solved, median 1
 *   slow:  solves a0 (5 s), a1 (7 s)              2 solved, median 6
 *   broad: solves a0, a1, a2 (9 s each)           3 solved: first despite being slowest
 *   none:  solves nothing                         last
 * In set B only `slow` solves b0 (2 s): over every set it ties broad with
 * 3 solved and comes first by its median 5 s; in set A broad is first, then
 * fast before slow; in set B slow first, then the others in order of first
 * appearance (fast, broad, none: 0 solved, no median). */
START_TEST(ranking_known_answer)
{
    char A[] = "A", B[] = "B", a0[] = "a0", a1[] = "a1", a2[] = "a2", b0[] = "b0";
    char fast[] = "fast", slow[] = "slow", broad[] = "broad", none[] = "none";
    const int S = MCB_ST_SOLVED, M = MCB_ST_MAX_ITERS;
    mcb_run_rec runs[] = {
        rec(A, a0, 0, fast, 0, S, 0, 1, 10),  rec(A, a0, 0, slow, 0, S, 0, 5, 10),
        rec(A, a0, 0, broad, 0, S, 0, 9, 10), rec(A, a0, 0, none, 0, M, 0, 1, 10),
        rec(A, a1, 1, fast, 0, S, 0, 1, 10),  rec(A, a1, 1, slow, 0, S, 0, 7, 10),
        rec(A, a1, 1, broad, 0, S, 0, 9, 10), rec(A, a1, 1, none, 0, M, 0, 1, 10),
        rec(A, a2, 2, fast, 0, M, 0, 1, 10),  rec(A, a2, 2, slow, 0, M, 0, 1, 10),
        rec(A, a2, 2, broad, 0, S, 0, 9, 10), rec(A, a2, 2, none, 0, M, 0, 1, 10),
        rec(B, b0, 0, fast, 0, M, 0, 1, 10),  rec(B, b0, 0, slow, 0, S, 0, 2, 10),
        rec(B, b0, 0, broad, 0, M, 0, 1, 10), rec(B, b0, 0, none, 0, M, 0, 1, 10),
    };
    mcb_results_data D;
    memset(&D, 0, sizeof D);
    D.count = (int)(sizeof runs / sizeof *runs);
    D.runs = runs;
    mcb_outcomes O;
    ck_assert_int_eq(mcb_outcomes_build(&D, &O, NULL), MCB_OK);
    int order[4], solved[4], accepted[4];
    double med[4];
    ck_assert_int_eq(mcb_outcomes_rank(&O, -1, order, solved, accepted, med, NULL), MCB_OK);
    /* every set: slow 3 (5, 7, 2 s: median 5) before broad 3 (median 9), fast 2, none 0 */
    const char *want[4] = {"slow", "broad", "fast", "none"};
    for (int k = 0; k < 4; k++)
        ck_assert_msg(!strcmp(O.solvers[order[k]], want[k]), "rank %d: %s, expected %s", k + 1,
                      O.solvers[order[k]], want[k]);
    ck_assert_int_eq(solved[1], 3); /* slow */
    ck_assert_int_eq(accepted[1], 4); /* every run accepted */
    ck_assert_double_eq(med[1], 5); /* of 5, 7, 2 */
    ck_assert(isnan(med[3]));
    ck_assert_int_eq(mcb_outcomes_rank(&O, 0, order, solved, accepted, med, NULL), MCB_OK);
    const char *want_a[4] = {"broad", "fast", "slow", "none"}; /* 2 solved each: 1 s < 6 s */
    for (int k = 0; k < 4; k++)
        ck_assert_msg(!strcmp(O.solvers[order[k]], want_a[k]), "set A rank %d: %s, expected %s",
                      k + 1, O.solvers[order[k]], want_a[k]);
    ck_assert_double_eq(med[0], 1);
    ck_assert_double_eq(med[1], 6);
    ck_assert_int_eq(mcb_outcomes_rank(&O, 1, order, solved, accepted, med, NULL), MCB_OK);
    const char *want_b[4] = {"slow", "fast", "broad", "none"};
    for (int k = 0; k < 4; k++)
        ck_assert_msg(!strcmp(O.solvers[order[k]], want_b[k]), "set B rank %d: %s, expected %s",
                      k + 1, O.solvers[order[k]], want_b[k]);
    /* the first repetition's run of each cell */
    ck_assert_int_eq(O.run[0], 0);
    ck_assert_int_eq(O.run[(size_t)3 * O.nsolvers + 1], 13);
    mcb_outcomes_free(&O);
}
END_TEST

/* Ranking over the problems each solver accepted: 5 problems of one set,
 * 6 solvers (S solved, M max-iterations, K skipped, - no run; seconds):
 *              p0  p1  p2  p3  p4   accepted  solved  fraction  median
 *   wide       S1  S1  S1  S1  M       5        4       4/5       1
 *   narrow     K   K   K   S5  S5      2        2       2/2       5
 *   full       S9  S9  S9  S9  S9      5        5       5/5       9
 *   half       K   K   S2  M   -       2        1       1/2       2
 *   refuser    K   K   K   K   K       0        0        -        -
 *   none       M   M   M   M   M       5        0       0/5       -
 * Expected: full (5/5, more solved than narrow's 2/2), narrow, wide
 * (4/5), half (1/2), none (0/5), refuser (accepted nothing). Ranked by the
 * problems solved out of all five, wide (4) would come before narrow (2)
 * and half (1) before none only by its count. */
START_TEST(ranking_over_accepted_problems)
{
    char A[] = "A", pn[5][3] = {"p0", "p1", "p2", "p3", "p4"};
    char names[6][8] = {"wide", "narrow", "full", "half", "refuser", "none"};
    const char *cells[6] = {"SSSSM", "KKKSS", "SSSSS", "KKSM-", "KKKKK", "MMMMM"};
    const double secs[6] = {1, 5, 9, 2, 1, 1};
    mcb_run_rec runs[30];
    int n = 0;
    for (int s = 0; s < 6; s++)
        for (int p = 0; p < 5; p++) {
            char c = cells[s][p];
            if (c == '-') continue;
            int st = c == 'S' ? MCB_ST_SOLVED : c == 'K' ? MCB_ST_SKIPPED : MCB_ST_MAX_ITERS;
            runs[n++] = rec(A, pn[p], p, names[s], 0, st, 0, c == 'K' ? 0 : secs[s], 10);
        }
    mcb_results_data D;
    memset(&D, 0, sizeof D);
    D.count = n;
    D.runs = runs;
    mcb_outcomes O;
    ck_assert_int_eq(mcb_outcomes_build(&D, &O, NULL), MCB_OK);
    ck_assert_int_eq(O.nsolvers, 6);
    ck_assert(mcb_outcome_accepted(&O, 3, 1));  /* narrow on p3: solved */
    ck_assert(!mcb_outcome_accepted(&O, 0, 1)); /* narrow on p0: skipped */
    ck_assert(mcb_outcome_accepted(&O, 3, 3));  /* half on p3: max-iterations */
    ck_assert(!mcb_outcome_accepted(&O, 4, 3)); /* half on p4: no run */
    int order[6], solved[6], accepted[6];
    double med[6];
    for (int set = -1; set <= 0; set++) {
        ck_assert_int_eq(mcb_outcomes_rank(&O, set, order, solved, accepted, med, NULL), MCB_OK);
        const char *want[6] = {"full", "narrow", "wide", "half", "none", "refuser"};
        for (int k = 0; k < 6; k++)
            ck_assert_msg(!strcmp(O.solvers[order[k]], want[k]), "rank %d: %s, expected %s",
                          k + 1, O.solvers[order[k]], want[k]);
        const int want_acc[6] = {5, 2, 5, 2, 0, 5}, want_solved[6] = {4, 2, 5, 1, 0, 0};
        for (int s = 0; s < 6; s++) {
            ck_assert_msg(accepted[s] == want_acc[s], "%s: accepted %d, expected %d",
                          O.solvers[s], accepted[s], want_acc[s]);
            ck_assert_msg(solved[s] == want_solved[s], "%s: solved %d, expected %d",
                          O.solvers[s], solved[s], want_solved[s]);
        }
        ck_assert_double_eq(med[1], 5);
        ck_assert(isnan(med[4]) && isnan(med[5]));
    }
    mcb_outcomes_free(&O);
}
END_TEST

/* A run with trace rows (iteration, value): solver time = iteration / 1000,
 * the value in column col, every other column NaN. */
static void fill_trace(double *t, int rows, const double *it, const double *v, int col)
{
    for (int k = 0; k < rows; k++) {
        double *row = t + (size_t)k * MCB_TRACE_COLS;
        for (int c = 0; c < MCB_TRACE_COLS; c++) row[c] = NAN;
        row[0] = it[k];
        row[1] = it[k] / 1000;
        row[col] = v[k];
    }
}

/* Three traced runs and one without trace rows:
 *   A: iterations 1 2 3      values 0.1 0.01 0.001   (stops at 3)
 *   B: iterations 1 2 3 4 5  values 1 0.5 0.25 0.125 0.0625
 *   C: iterations 2 4        values 8 4              (traced sparsely)
 * Over the runs still going (last traced iteration >= k), each with its
 * last row at or before k:
 *   k = 1: going 3 (C not traced yet): {0.1, 1}        median 0.55
 *   k = 2: going 3: {0.01, 0.5, 8}                       median 0.5, q1 0.255, q3 4.25
 *   k = 3: going 3: {0.001, 0.25, 8 (C's row 2)}         median 0.25
 *   k = 4: going 2 (A stopped): {0.125, 4}               median 2.0625
 *   k = 5: going 1: {0.0625}
 * where carrying A's final value forward would have given 0.125 at k = 4. */
START_TEST(curve_over_runs_still_going)
{
    const int col = 2 + MCB_M_NATMAP;
    double ta[3 * MCB_TRACE_COLS], tb[5 * MCB_TRACE_COLS], tc[2 * MCB_TRACE_COLS];
    fill_trace(ta, 3, (double[]){1, 2, 3}, (double[]){0.1, 0.01, 0.001}, col);
    fill_trace(tb, 5, (double[]){1, 2, 3, 4, 5}, (double[]){1, 0.5, 0.25, 0.125, 0.0625}, col);
    fill_trace(tc, 2, (double[]){2, 4}, (double[]){8, 4}, col);
    mcb_run_rec a = {.trace_rows = 3, .trace = ta}, b = {.trace_rows = 5, .trace = tb};
    mcb_run_rec c = {.trace_rows = 2, .trace = tc}, d = {.trace_rows = 0};
    const mcb_run_rec *runs[4] = {&a, &d, &b, &c};
    mcb_curve C;
    mcb_err err;
    ck_assert_int_eq(mcb_curve_compute(runs, 4, 0, col, 100, &C, &err), MCB_OK);
    ck_assert_int_eq(C.nruns, 3);
    ck_assert_int_eq(C.npoints, 5);
    const int going[5] = {3, 3, 3, 2, 1};
    const double med[5] = {0.55, 0.5, 0.25, 2.0625, 0.0625};
    for (int k = 0; k < 5; k++) {
        ck_assert_double_eq(C.iter[k], k + 1);
        ck_assert_msg(C.going[k] == going[k], "iteration %d: %d going, expected %d", k + 1,
                      C.going[k], going[k]);
        ck_assert_msg(fabs(C.median[k] - med[k]) < 1e-12, "iteration %d: median %g, expected %g",
                      k + 1, C.median[k], med[k]);
    }
    ck_assert_double_eq_tol(C.q1[1], 0.255, 1e-12);
    ck_assert_double_eq_tol(C.q3[1], 4.25, 1e-12);
    ck_assert_double_eq_tol(C.q1[4], 0.0625, 1e-12);
    ck_assert_double_eq_tol(C.time_s[2], 0.003, 1e-12); /* of A's and B's 3/1000, C's 2/1000 */
    ck_assert_double_eq_tol(C.time_s[3], 0.004, 1e-12);
    mcb_curve_free(&C);
    mcb_curve_free(&C);
    /* thinned to 3 points: the first, the middle and the last iteration */
    ck_assert_int_eq(mcb_curve_compute(runs, 4, 0, col, 3, &C, NULL), MCB_OK);
    ck_assert_int_eq(C.npoints, 3);
    ck_assert_double_eq(C.iter[0], 1);
    ck_assert_double_eq(C.iter[1], 3);
    ck_assert_double_eq(C.iter[2], 5);
    ck_assert_int_eq(C.going[2], 1);
    mcb_curve_free(&C);
    /* no traced run: an empty curve; bad arguments refused */
    ck_assert_int_eq(mcb_curve_compute(runs + 1, 1, 0, col, 3, &C, NULL), MCB_OK);
    ck_assert_int_eq(C.npoints, 0);
    ck_assert_int_eq(C.nruns, 0);
    mcb_curve_free(&C);
    ck_assert_int_eq(mcb_curve_compute(runs, 4, 0, 1, 3, &C, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_curve_compute(runs, 4, 0, col, 1, &C, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_curve_compute(runs, 4, 2, col, 3, &C, &err), MCB_E_INPUT);
    ck_assert_ptr_null(C.iter);
    /* against solver time (iteration / 1000): the same statistics at 0.001 .. 0.005 */
    ck_assert_int_eq(mcb_curve_compute(runs, 4, 1, col, 100, &C, NULL), MCB_OK);
    ck_assert_int_eq(C.npoints, 5);
    for (int k = 0; k < 5; k++) {
        ck_assert_double_eq_tol(C.iter[k], (k + 1) / 1000.0, 1e-15);
        ck_assert_int_eq(C.going[k], going[k]);
        ck_assert_double_eq_tol(C.median[k], med[k], 1e-12);
    }
    mcb_curve_free(&C);
}
END_TEST

START_TEST(quantiles)
{
    const double x[4] = {1, 2, 3, 10};
    ck_assert_double_eq(mcb_quantile_sorted(x, 4, 0.5), 2.5);
    ck_assert_double_eq(mcb_quantile_sorted(x, 4, 0.25), 1.75);
    ck_assert_double_eq(mcb_quantile_sorted(x, 4, 0.75), 4.75);
    ck_assert_double_eq(mcb_quantile_sorted(x, 4, 1), 10);
    ck_assert_double_eq(mcb_quantile_sorted(x, 1, 0.25), 1);
    ck_assert(isnan(mcb_quantile_sorted(x, 0, 0.5)));
}
END_TEST

START_TEST(relative_paths)
{
    char root[] = "/tmp/mcb_relXXXXXX", p[3][256], buf[512];
    ck_assert_ptr_nonnull(mkdtemp(root));
    snprintf(p[0], sizeof p[0], "%s/a/b", root);
    snprintf(p[1], sizeof p[1], "%s/ab", root);
    snprintf(p[2], sizeof p[2], "%s/r.h5", root);
    ck_assert_int_eq(mcb_mkdirs(p[0], NULL), MCB_OK);
    ck_assert_int_eq(mcb_mkdirs(p[1], NULL), MCB_OK);
    FILE *f = fopen(p[2], "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    struct {
        const char *dir, *target, *want;
    } cases[] = {
        {"", "/r.h5", "r.h5"},          {"/a/b", "/r.h5", "../../r.h5"},
        {"/ab", "/a/b", "../a/b"},      {"/a", "/a/b/.", "b"},
        {"/a/b", "/a", ".."},           {"/a/b/../b", "/a/b", "."},
        {"/./ab", "/ab/../r.h5", "../r.h5"}, {"", "/a/b", "a/b"},
        {"/link", "/r.h5", "../../r.h5"}, /* link -> a/b */
    };
    char link[300];
    snprintf(link, sizeof link, "%s/link", root);
    ck_assert_int_eq(symlink("a/b", link), 0);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char d[300], t[300];
        snprintf(d, sizeof d, "%s%s", root, cases[k].dir);
        snprintf(t, sizeof t, "%s%s", root, cases[k].target);
        ck_assert_int_eq(mcb_path_relative(d, t, buf, sizeof buf), 0);
        ck_assert_msg(strcmp(buf, cases[k].want) == 0, "%s from %s: %s, expected %s", t, d, buf,
                      cases[k].want);
    }
    ck_assert_int_eq(mcb_path_relative(p[0], "/nonexistent/x", buf, sizeof buf), -1);
    ck_assert_int_eq(mcb_path_relative(p[0], p[2], buf, 6), -1); /* "../../r.h5" does not fit */
    unlink(p[2]);
    unlink(link);
    rmdir(p[0]);
    snprintf(p[0], sizeof p[0], "%s/a", root);
    rmdir(p[0]);
    rmdir(p[1]);
    rmdir(root);
}
END_TEST

/* ----------------------------------------------------------- closed loop */

/* The step rows of a synthetic closed-loop run of scale f, `rows` rows;
 * when failed, the last row is the failing step: its solve measured, the
 * state's measures NaN (as the loop records a step whose solution was not
 * finite). Step k:
 *   setup 1e-3 f, solve 1e-3 f (k + 1)   (time 1e-3 f (k + 2))
 *   every metric 1e-6 f (k + 1), but pen_max 1e-4 f (k + 1)
 *   engine 5e-4 f; kinetic energy 0.1 f k (potential, elastic 0)
 *   divergence RMS 1e-3 f k, max 2e-3 f k; outcome f + 0.1 k */
static double *loop_rows(double f, int rows, int failed)
{
    double *t = calloc((size_t)rows * MCB_STEP_COLS, sizeof *t);
    ck_assert_ptr_nonnull(t);
    for (int k = 0; k < rows; k++) {
        double *r = t + (size_t)k * MCB_STEP_COLS;
        r[MCB_SC_STEP] = k;
        r[MCB_SC_STATUS] = MCB_ST_MAX_ITERS;
        r[MCB_SC_ITERS] = 10;
        r[MCB_SC_SETUP_S] = 1e-3 * f;
        r[MCB_SC_SOLVE_S] = 1e-3 * f * (k + 1);
        r[MCB_SC_ENGINE_S] = 5e-4 * f;
        r[MCB_SC_CONTACTS] = 2;
        r[MCB_SC_N] = r[MCB_SC_M] = 6;
        for (int m = 0; m < MCB_NMETRICS; m++) r[MCB_SC_METRICS + m] = 1e-6 * f * (k + 1);
        r[MCB_SC_METRICS + MCB_M_PEN_MAX] = 1e-4 * f * (k + 1);
        r[MCB_SC_KINETIC_J] = 0.1 * f * k;
        r[MCB_SC_DIV_RMS_M] = 1e-3 * f * k;
        r[MCB_SC_DIV_MAX_M] = 2e-3 * f * k;
        r[MCB_SC_OUTCOME] = f + 0.1 * k;
        if (failed && k == rows - 1)
            for (int c = MCB_SC_KINETIC_J; c < MCB_STEP_COLS; c++) r[c] = NAN;
    }
    return t;
}

/* A scene of 4 steps, instances i0 and i1, one repetition:
 *   good   completes both (f = 1, 3)
 *   mixed  completes i0 (f = 4); fails i1 at step 2 (f = 5, 3 rows)
 *   bad    fails i0 at step 2 and i1 at step 1 (f = 2)
 * By hand, over the completed runs (steps of f: time sum 14e-3 f, natmap
 * sum 10e-6 f, pen_max max 4e-4 f, energy gain 0.3 f, divergence RMS
 * 1e-3 f sqrt(3.5), max 6e-3 f, final outcome f + 0.3, engine 5e-4 f):
 *   (natmap 1e-6 f (k + 1) at step k: AA = 6 - log10 f - log10(24) / 4 per run)
 *   good:  AT 56e-3 / 8 = 7 ms, AA 6 - log10(3) / 2 - log10(24) / 4, pen 1.2e-3, gain 0.9,
 *          RMS 1e-3 sqrt(3.5 (1 + 9) / 2) = 1e-3 sqrt(17.5), max 0.018,
 *          outcome median(1.3, 3.3) = 2.3, engine 1 ms; 8/8 steps
 *   mixed: AT 14 ms, AA 6 - log10(4) - log10(24) / 4, pen 1.6e-3, gain 1.2, RMS 4e-3 sqrt(3.5),
 *          max 0.024, outcome 4.3, engine 2 ms; 4 + 2 = 6/8 steps, first
 *          failing step 2
 *   bad:   no completed run: every measure NaN ("-"); 2 + 1 = 3/8 steps,
 *          first failing step 1 (i1's run) */
enum { NLOOP = 6 };
static const struct {
    const char *solver;
    int inst;
    double f;
    int rows, failed;
} loop_cases[NLOOP] = {{"good", 0, 1, 4, 0},  {"good", 1, 3, 4, 0},  {"mixed", 0, 4, 4, 0},
                       {"mixed", 1, 5, 3, 1}, {"bad", 0, 2, 3, 1},   {"bad", 1, 2, 2, 1}};

static void loop_records(mcb_run_rec *runs, char reasons[NLOOP][128])
{
    static char set[] = "stir", inst[2][8] = {"stir-i0", "stir-i1"};
    for (int k = 0; k < NLOOP; k++) {
        int rows = loop_cases[k].rows, failed = loop_cases[k].failed;
        if (failed)
            snprintf(reasons[k], 128, "failed in the loop at step %d: the state is not finite",
                     rows - 1);
        else snprintf(reasons[k], 128, "completed %d steps (%d max-iterations)", rows, rows);
        runs[k] = (mcb_run_rec){.problem_set = set, .problem = inst[loop_cases[k].inst],
                                .problem_index = loop_cases[k].inst,
                                .solver = (char *)loop_cases[k].solver, .reason = reasons[k],
                                .config = set, .run_index = k,
                                .status = failed ? MCB_ST_FAILED_IN_LOOP : MCB_ST_SOLVED,
                                .iterations = 10 * rows, .n = 6, .m = 6, .ncontacts = 2,
                                .setup_s = 1e-3 * loop_cases[k].f * rows,
                                .step_rows = rows,
                                .steps = loop_rows(loop_cases[k].f, rows, failed)};
        for (int m = 0; m < MCB_NMETRICS; m++) runs[k].final.val[m] = 1e-6;
    }
}

static void loop_records_free(mcb_run_rec *runs)
{
    for (int k = 0; k < NLOOP; k++) free(runs[k].steps);
}

#define NEAR(x, want)                                                                     \
    do {                                                                                  \
        double x_ = (x), w_ = (want);                                                     \
        ck_assert_msg(fabs(x_ - w_) <= 1e-12 * fmax(1, fabs(w_)), "%s = %.17g, expected %.17g", \
                      #x, x_, w_);                                                        \
    } while (0)

/* r against completed, failed, steps done, steps total, first failing
 * step and its run (n[6]), and the measures at_s .. engine_s (NaN: NaN). */
static void expect_loop_row(const mcb_loop_row *r, const int *n, const double *want)
{
    ck_assert_int_eq(r->runs, 2);
    const long got_n[6] = {r->completed, r->failed, r->steps_done, r->steps_total,
                           r->first_fail, r->first_fail_run};
    for (int k = 0; k < 6; k++)
        ck_assert_msg(got_n[k] == n[k], "count %d: %ld, expected %d", k, got_n[k], n[k]);
    ck_assert_int_eq(r->other, 0);
    const double got[8] = {r->at_s, r->aa, r->pen_max, r->energy_gain_J, r->div_rms_m,
                           r->div_max_m, r->outcome, r->engine_s};
    for (int k = 0; k < 8; k++)
        ck_assert_msg(isnan(want[k]) ? isnan(got[k])
                                     : fabs(got[k] - want[k]) <= 1e-12 * fmax(1, fabs(want[k])),
                      "measure %d: %.17g, expected %.17g", k, got[k], want[k]);
}

START_TEST(loop_known_answers)
{
    mcb_run_rec runs[NLOOP];
    char reasons[NLOOP][128];
    loop_records(runs, reasons);
    const mcb_run_rec *good[2] = {&runs[0], &runs[1]}, *mixed[2] = {&runs[2], &runs[3]};
    const mcb_run_rec *bad[2] = {&runs[4], &runs[5]};
    mcb_loop_curve c;
    mcb_err err;
    /* good: both runs at every step; medians of f = 1 and 3 */
    ck_assert_int_eq(mcb_loop_curve_compute(good, 2, MCB_M_NATMAP, &c, &err), MCB_OK);
    ck_assert_int_eq(c.nsteps, 4);
    for (int s = 0; s < 4; s++) ck_assert_int_eq(c.runs[s], 2);
    NEAR(c.med[MCB_LQ_TIME][0], 4e-3);        /* of 2e-3, 6e-3 */
    NEAR(c.med[MCB_LQ_TIME][3], 10e-3);       /* of 5e-3, 15e-3 */
    NEAR(c.med[MCB_LQ_RES][1], 4e-6);         /* of 2e-6, 6e-6 */
    NEAR(c.med[MCB_LQ_PEN][3], 8e-4);         /* of 4e-4, 12e-4 */
    NEAR(c.med[MCB_LQ_ENGINE][2], 1e-3);      /* of 5e-4, 15e-4 */
    NEAR(c.med[MCB_LQ_DIV_RMS][0], 0);
    NEAR(c.med[MCB_LQ_DIV_MAX][3], 12e-3);    /* of 6e-3, 18e-3 */
    mcb_loop_curve_free(&c);
    /* the residual curve follows the stop metric's column */
    runs[0].steps[MCB_SC_METRICS + MCB_M_ZRES] = 7;
    runs[1].steps[MCB_SC_METRICS + MCB_M_ZRES] = 9;
    ck_assert_int_eq(mcb_loop_curve_compute(good, 2, MCB_M_ZRES, &c, &err), MCB_OK);
    NEAR(c.med[MCB_LQ_RES][0], 8);
    mcb_loop_curve_free(&c);
    /* mixed: i1 leaves after its failing step 2; the NaN measures of that
     * step are left out of the median */
    ck_assert_int_eq(mcb_loop_curve_compute(mixed, 2, MCB_M_NATMAP, &c, &err), MCB_OK);
    ck_assert_int_eq(c.nsteps, 4);
    ck_assert_int_eq(c.runs[2], 2);
    ck_assert_int_eq(c.runs[3], 1);
    NEAR(c.med[MCB_LQ_TIME][2], 18e-3);       /* of 16e-3, 20e-3 */
    NEAR(c.med[MCB_LQ_DIV_RMS][2], 8e-3);     /* i0's alone */
    NEAR(c.med[MCB_LQ_TIME][3], 20e-3);       /* i0 alone */
    mcb_loop_curve_free(&c);
    mcb_loop_curve_free(&c);
    ck_assert_int_eq(mcb_loop_curve_compute(mixed, 2, MCB_NMETRICS, &c, &err), MCB_E_INPUT);
    ck_assert_ptr_null(c.runs);

    const int sched[2] = {4, 4};
    double buf[3];
    mcb_loop_row r;
    mcb_loop_row_compute(good, 2, sched, buf, &r);
    expect_loop_row(&r, (const int[]){2, 0, 8, 8, -1, -1},
                    (const double[]){7e-3, 6 - log10(3) / 2 - log10(24) / 4, 1.2e-3, 0.9, 1e-3 * sqrt(17.5), 0.018, 2.3, 1e-3});
    mcb_loop_row_compute(mixed, 2, sched, buf, &r);
    expect_loop_row(&r, (const int[]){1, 1, 6, 8, 2, 1},
                    (const double[]){14e-3, 6 - log10(4) - log10(24) / 4, 1.6e-3, 1.2, 4e-3 * sqrt(3.5), 0.024, 4.3, 2e-3});
    mcb_loop_row_compute(bad, 2, sched, buf, &r);
    expect_loop_row(&r, (const int[]){0, 2, 3, 8, 1, 1},
                    (const double[]){NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN});
    /* a total not known for one run: unknown */
    mcb_loop_row_compute(bad, 2, (const int[]){-1, 4}, buf, &r);
    ck_assert_int_eq(r.steps_total, -1);
    /* a failed run without rows failed at step 0 */
    mcb_run_rec empty = {.status = MCB_ST_FAILED_IN_LOOP};
    ck_assert_int_eq(mcb_loop_failed_step(&empty), 0);
    ck_assert_int_eq(mcb_loop_failed_step(&runs[5]), 1);

    /* scheduled steps: those of the instance's completed runs */
    mcb_results_data D;
    memset(&D, 0, sizeof D);
    D.count = NLOOP;
    D.runs = runs;
    ck_assert_int_eq(mcb_loop_scheduled_steps(&D, "stir", 1), 4);
    runs[1].status = MCB_ST_CRASHED; /* i1 then has no completed run */
    ck_assert_int_eq(mcb_loop_scheduled_steps(&D, "stir", 1), -1);
    ck_assert_int_eq(mcb_loop_any(&D, "stir"), 1);
    ck_assert_int_eq(mcb_loop_any(&D, "other"), 0);
    runs[0].problem_set = runs[5].problem_set = (char *)"other"; /* no rows, but failed */
    runs[0].step_rows = runs[5].step_rows = 0;
    ck_assert_int_eq(mcb_loop_any(&D, "other"), 1);
    runs[5].status = MCB_ST_CRASHED;
    ck_assert_int_eq(mcb_loop_any(&D, "other"), 0);
    runs[0].step_rows = 4;
    runs[5].step_rows = 2;
    loop_records_free(runs);
}
END_TEST

static void expect_file(const char *dir, const char *name, int present)
{
    char path[512];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int there = stat(path, &st) == 0 && st.st_size > 0;
    ck_assert_msg(there == present, "%s: %s", path, present ? "missing or empty" : "written");
}

/* The CSV row of `solver`: its numbers (fields 1..) against want (NaN: an
 * empty field), the reason field (8) against reason. */
static void expect_csv_row(const char *csv, const char *solver, const double *want,
                           const char *reason)
{
    char key[64];
    snprintf(key, sizeof key, "\n%s,", solver);
    const char *row = strstr(csv, key);
    ck_assert_msg(row != NULL, "no row of %s in:\n%s", solver, csv);
    row += strlen(key);
    const char *end = strchr(row, '\n');
    for (int k = 1; k <= 16; k++) {
        const char *comma = strchr(row, ',');
        const char *stop = comma && comma < end ? comma : end;
        if (k == 8) {
            ck_assert_msg((size_t)(stop - row) == strlen(reason) &&
                          !strncmp(row, reason, strlen(reason)),
                          "%s: reason %.*s, expected %s", solver, (int)(stop - row), row, reason);
        } else {
            double w = want[k < 8 ? k - 1 : k - 2];
            if (isnan(w)) {
                ck_assert_msg(stop == row, "%s field %d: %.*s, expected nothing", solver, k,
                              (int)(stop - row), row);
            } else {
                char *e;
                double x = strtod(row, &e);
                ck_assert_msg(e == stop && fabs(x - w) <= 1e-5 * fabs(w),
                              "%s field %d: %.*s, expected %g", solver, k, (int)(stop - row),
                              row, w);
            }
        }
        row = stop + 1;
    }
}

/* mcbench report on a results file of the closed-loop runs above (written
 * as a campaign writes them: the journal, then mcb_results_write) and a
 * replay set beside them. */
START_TEST(loop_report_end_to_end)
{
    char dir[] = "/tmp/mcb_loopXXXXXX", h5[256], csv[256], out[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(h5, sizeof h5, "%s/r.h5", dir);
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    mcb_run_rec runs[NLOOP + 1];
    char reasons[NLOOP][128], replay[] = "replay", p0[] = "p0", good[] = "good", none[] = "";
    loop_records(runs, reasons);
    runs[NLOOP] = (mcb_run_rec){.problem_set = replay, .problem = p0, .solver = good,
                                .reason = none, .config = none, .run_index = NLOOP,
                                .status = MCB_ST_SOLVED, .iterations = 5, .n = 6, .m = 6,
                                .setup_s = 1e-3, .solve_s = 2e-3};
    char metric[] = "natmap", text[] = "test";
    mcb_results_data ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.stop_metric = metric;
    ctx.date = ctx.git_revision = ctx.cpu_model = ctx.compiler = ctx.command = text;
    ctx.cflags = ctx.settings = text;
    ctx.tol = 1e-6;
    ctx.max_iters = 30;
    ctx.time_limit_s = 1;
    ctx.threads = ctx.cpu_count = ctx.repeat = 1;
    ctx.total_runs = NLOOP + 1;
    mcb_err err;
    ck_assert_msg(fx_write_results(h5, csv, &ctx, runs, NLOOP + 1, &err) == MCB_OK, "%s",
                  err.msg);
    loop_records_free(runs);
    ck_assert_msg(mcb_report(h5, out, NULL, &err) == MCB_OK, "%s", err.msg);

    /* the outcome table: CSV (numbers), Markdown and HTML ("-") */
    char *t = fx_slurp(out, "stir_loop.csv");
    ck_assert_ptr_nonnull(t);
    ck_assert_msg(!strncmp(t, "solver,runs,completed,failed_in_loop,other,steps_completed,"
                              "steps,first_failed_step,first_failed_reason,at_ms,aa_natmap,"
                              "pen_max,energy_gain_J,div_rms_m,div_max_m,outcome,engine_ms\n",
                           strlen("solver,runs,")), "header: %s", t);
    /* runs completed failed other done steps first | AT AA pen gain rms max outcome engine */
    expect_csv_row(t, "good", (double[]){2, 2, 0, 0, 8, 8, NAN, 7, 6 - log10(3) / 2 - log10(24) / 4, 1.2e-3, 0.9,
                                         1e-3 * sqrt(17.5), 0.018, 2.3, 1}, "");
    expect_csv_row(t, "mixed", (double[]){2, 1, 1, 0, 6, 8, 2, 14, 6 - log10(4) - log10(24) / 4, 1.6e-3, 1.2,
                                          4e-3 * sqrt(3.5), 0.024, 4.3, 2},
                   "failed in the loop at step 2: the state is not finite");
    expect_csv_row(t, "bad",
                   (double[]){2, 0, 2, 0, 3, 8, 1, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN},
                   "failed in the loop at step 1: the state is not finite");
    free(t);
    t = fx_slurp(out, "stir_loop.md");
    ck_assert_ptr_nonnull(t);
    const char *md_rows[3] = {
        "| good | 2 | 8/8 | completed 2 | 7 | 5.42 | 0.0012 | 0.9 | 0.00418 | 0.018 | 2.3 | 1 |",
        "| mixed | 2 | 6/8 | completed 1, failed-in-loop 1 (first at step 2: failed in the loop "
        "at step 2: the state is not finite) | 14 | 5.05 | 0.0016 | 1.2 | 0.00748 | 0.024 | "
        "4.3 | 2 |",
        "| bad | 2 | 3/8 | failed-in-loop 2 (first at step 1: failed in the loop at step 1: the "
        "state is not finite) | - | - | - | - | - | - | - | - |"};
    for (int k = 0; k < 3; k++)
        ck_assert_msg(strstr(t, md_rows[k]) != NULL, "no row\n%s\nin\n%s", md_rows[k], t);
    free(t);
    t = fx_slurp(out, "stir_set.html");
    ck_assert_ptr_nonnull(t);
    ck_assert(strstr(t, "<h2>Closed loop</h2>") != NULL);
    ck_assert(strstr(t, "<h2>Convergence</h2>") == NULL); /* no traces: the curves instead */
    ck_assert(strstr(t, "<td class='bad' style='min-width:16em;overflow-wrap:normal'>"
                        "failed-in-loop 2 (first at step 1: ") != NULL);
    ck_assert(strstr(t, "<td class='n'>-</td><td class='n'>-</td>") != NULL);
    const char *figs[4] = {"stir_loop-time.svg", "stir_loop-res.svg", "stir_loop-pen.svg",
                           "stir_loop-div.svg"};
    for (int k = 0; k < 4; k++)
        ck_assert_msg(strstr(t, figs[k]) != NULL, "%s not on the set page", figs[k]);
    ck_assert(strstr(t, "median over its runs") != NULL); /* two instances per solver */
    free(t);

    t = fx_slurp(out, "index.html");
    ck_assert_ptr_nonnull(t);
    ck_assert(strstr(t, ">stir</a> (closed loop)</td>") != NULL);
    ck_assert(strstr(t, ">replay</a></td>") != NULL);
    ck_assert(strstr(t, "How to read the closed-loop sets") != NULL);
    free(t);

    /* the curves' data: good at step 0 over its two runs (medians of f = 1, 3);
     * bad has one run going at step 2 */
    t = fx_slurp(out, "stir.loop.dat");
    ck_assert_ptr_nonnull(t);
    ck_assert_msg(strstr(t, "\n0 2 4.000000e-03 2.000000e-06 2.000000e-04 1.000000e-03 "
                            "0.000000e+00 0.000000e+00\n") != NULL, "%s", t);
    const char *bad = strstr(t, "# solver bad:");
    ck_assert_ptr_nonnull(bad);
    ck_assert_msg(!strncmp(strstr(bad, "\n2 ") + 1, "2 1 ", 4), "%s", bad);
    ck_assert(strstr(t, "# every run:") != NULL);
    free(t);
    /* the plot scripts and the plots */
    t = fx_slurp(out, "plots.gp");
    ck_assert_ptr_nonnull(t);
    const char *gp[6] = {"set output 'stir_loop-time.svg'", "set output 'stir_loop-div.png'",
                         "'stir.loop.dat' index 3 using 1:($6>0?$6:1/0)",
                         "'stir.loop.dat' index 2 using 1:($4>0?$4:1/0)",
                         "'stir.loop.dat' index 0 using 1:($8>0?$8:1/0)",
                         "set format y '10^{%L}'"};
    for (int k = 0; k < 6; k++)
        ck_assert_msg(strstr(t, gp[k]) != NULL, "plots.gp lacks %s", gp[k]);
    free(t);
    const char *files[10] = {"stir_loop-time.svg", "stir_loop-time.png", "stir_loop-res.svg",
                             "stir_loop-res.png",  "stir_loop-pen.svg",  "stir_loop-pen.png",
                             "stir_loop-div.svg",  "stir_loop-div.png",  "stir.loop.dat",
                             "stir_loop.md"};
    for (int k = 0; k < 10; k++) expect_file(out, files[k], 1);
    /* the replay set has none of it */
    const char *no[3] = {"replay.loop.dat", "replay_loop.csv", "replay_loop-time.svg"};
    for (int k = 0; k < 3; k++) expect_file(out, no[k], 0);
    t = fx_slurp(out, "replay_set.html");
    ck_assert_ptr_nonnull(t);
    ck_assert(strstr(t, "Closed loop") == NULL);
    ck_assert(strstr(t, "<h2>Convergence</h2>") != NULL);
    free(t);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("profiles");
    tcase_add_test(tc, performance_profile_known_answer);
    tcase_add_test(tc, data_profile_known_answer);
    tcase_add_test(tc, ratios_and_best);
    tcase_add_test(tc, zero_time_is_floored);
    tcase_add_test(tc, single_solver);
    tcase_add_test(tc, nothing_solved);
    tcase_add_test(tc, bad_sizes_are_refused);
    tcase_add_test(tc, median_counts_infinity);
    tcase_add_test(tc, outcomes_over_repetitions);
    tcase_add_test(tc, ranking_known_answer);
    tcase_add_test(tc, ranking_over_accepted_problems);
    tcase_add_test(tc, curve_over_runs_still_going);
    tcase_add_test(tc, quantiles);
    tcase_add_test(tc, relative_paths);
    tcase_add_test(tc, loop_known_answers);
    tcase_add_test(tc, loop_report_end_to_end);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

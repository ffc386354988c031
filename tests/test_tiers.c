/* test_tiers.c: accuracy tiers, shifted geometric means and claims
 * against verdicts on synthetic results (lib/mcb_tiers.h,
 * reports/outcomes.h, reports/page_tiers.c), with the answers worked out
 * by hand in the comments; and one campaign's records through the journal,
 * the results file, its CSV and the report's tiers.csv and claims.csv. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "lib/mcb_tiers.h"
#include "reports/outcomes.h"
#include "reports/report.h"

/* exp(mean(log(t + s))) - s:
 *   {1, 3}, s = 1: sqrt(2 x 4) - 1 = 2 sqrt 2 - 1 = 1.8284271247461903
 *   {2, 8}, s = 0: sqrt(16) = 4
 *   {1, failure} charged 7, s = 1: sqrt(2 x 8) - 1 = 3
 *   {5}: 5 whatever the shift; nothing, or a negative time: NaN */
START_TEST(sgm_known_answers)
{
    ck_assert_double_eq_tol(mcb_sgm((double[]){1, 3}, 2, 1, NAN), 2 * sqrt(2) - 1, 1e-15);
    ck_assert_double_eq_tol(mcb_sgm((double[]){2, 8}, 2, 0, NAN), 4, 1e-15);
    ck_assert_double_eq_tol(mcb_sgm((double[]){1, NAN}, 2, 1, 7), 3, 1e-15);
    ck_assert_double_eq_tol(mcb_sgm((double[]){1, INFINITY}, 2, 1, 7), 3, 1e-15);
    ck_assert_double_eq_tol(mcb_sgm((double[]){5}, 1, 0.01, 7), 5, 1e-15);
    ck_assert(isnan(mcb_sgm((double[]){1}, 0, 1, 7)));
    ck_assert(isnan(mcb_sgm((double[]){-1, 2}, 2, 1, 7)));
    ck_assert(isnan(mcb_sgm((double[]){1, NAN}, 2, 1, NAN))); /* no charge known */
}
END_TEST

/* A trace: rows (iteration, solver time, natmap), every other column NaN. */
static double *trace_of(const double *rows, int n)
{
    double *t = malloc((size_t)n * MCB_TRACE_COLS * sizeof *t);
    ck_assert_ptr_nonnull(t);
    for (int k = 0; k < n; k++) {
        for (int c = 0; c < MCB_TRACE_COLS; c++) t[(size_t)k * MCB_TRACE_COLS + c] = NAN;
        t[(size_t)k * MCB_TRACE_COLS] = rows[3 * k];
        t[(size_t)k * MCB_TRACE_COLS + 1] = rows[3 * k + 1];
        t[(size_t)k * MCB_TRACE_COLS + 2 + MCB_M_NATMAP] = rows[3 * k + 2];
    }
    return t;
}

#define COL (2 + MCB_M_NATMAP)

/* Setup 0.5 ms; rows (iteration, solver time s, natmap): (0, 0, 1),
 * (10, 1e-3, 1e-3), (20, 2e-3, 5e-5), (25, 2.5e-3, NaN), (30, 3e-3, 2e-7),
 * (35, 3.5e-3, 5e-9). Tier 1e-4: first at row 20, 0.5 + 2 = 2.5 ms; 1e-6:
 * row 30, 3.5 ms; 1e-8: row 35, 4 ms; with a time limit of 3.8 ms, 1e-8 is
 * not reached (its 4 ms pass it); 1e-10 never. The NaN row meets nothing. */
START_TEST(tier_times_from_a_synthetic_trace)
{
    const double rows[] = {0, 0, 1,        10, 1e-3, 1e-3, 20, 2e-3, 5e-5,
                           25, 2.5e-3, NAN, 30, 3e-3, 2e-7, 35, 3.5e-3, 5e-9};
    mcb_run_rec r = {.setup_s = 5e-4, .trace_rows = 6, .trace = trace_of(rows, 6)};
    const double tier[4] = {1e-4, 1e-6, 1e-8, 1e-10};
    const int want_it[3] = {20, 30, 35};
    const double want_s[3] = {2.5e-3, 3.5e-3, 4e-3};
    for (int t = 0; t < 3; t++) {
        int it = -1;
        double s = NAN;
        ck_assert(mcb_tier_reached(&r, COL, tier[t], 0, &it, &s));
        ck_assert_int_eq(it, want_it[t]);
        ck_assert_double_eq_tol(s, want_s[t], 1e-15);
    }
    int it;
    double s;
    ck_assert(!mcb_tier_reached(&r, COL, 1e-10, 0, &it, &s));
    ck_assert(mcb_tier_reached(&r, COL, 1e-6, 3.8e-3, &it, &s));
    ck_assert(!mcb_tier_reached(&r, COL, 1e-8, 3.8e-3, &it, &s));
    r.step_rows = 1; /* a closed-loop run has no iteration trace */
    ck_assert(!mcb_tier_reached(&r, COL, 1e-4, 0, &it, &s));
    free(r.trace);

    /* the campaign's tiers: its settings word, sorted coarsest first; a
     * campaign without one: the default tiers not finer than its tol */
    double t[MCB_MAX_TIERS];
    ck_assert_int_eq(mcb_campaign_tiers("tol=1e-08 tiers=1e-06,0.01 law=ncp", 1e-8, t), 2);
    ck_assert(t[0] == 0.01 && t[1] == 1e-6);
    ck_assert_int_eq(mcb_campaign_tiers("tol=1e-06 law=ncp", 1e-6, t), 2);
    ck_assert(t[0] == 1e-4 && t[1] == 1e-6);
    ck_assert_int_eq(mcb_campaign_tiers("xtiers=1 tol=0", 0, t), 3);
    char why[200], buf[64];
    ck_assert_int_eq(mcb_tiers_parse("1e-8,1e-4,1e-6", t, why, sizeof why), 3);
    mcb_tiers_format(t, 3, buf, sizeof buf);
    ck_assert_str_eq(buf, "0.0001,1e-06,1e-08");
    const char *bad[] = {"", "0", "-1e-4", "1e-4,,1e-6", "1e-4,x", "inf", "1e-4,1e-4",
                         "1,2,3,4,5"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        ck_assert_msg(mcb_tiers_parse(bad[k], t, why, sizeof why) < 0, "'%s' accepted", bad[k]);
}
END_TEST

/* Problems A/p0, A/p1, B/p2; solvers a, b; tier 1e-6, time limit 0.1 s,
 * shift 10 ms. Times to the tier (setup + solver time at the first row
 * meeting it):
 *   a: p0 2 + 8 = 10 ms; p1 never (a failure, charged 0.1 s); p2 1 + 3 = 4 ms
 *   b: p0 30 ms (it went on to 1e-9 at 40 ms: charged to the tier only);
 *      p1 40 ms; p2 skipped (a failure, charged 0.1 s)
 * Every set: a (0.02 x 0.11 x 0.014)^(1/3) - 0.01 = 0.0213461 s,
 *            b (0.04 x 0.05 x 0.11)^(1/3) - 0.01 = 0.0503681 s: a best,
 *            b 2.35959 relative;
 * set A: a sqrt(0.02 x 0.11) - 0.01 = 0.0369042, b sqrt(0.04 x 0.05) -
 *        0.01 = 0.0347214: b best, a 1.06287;
 * set B: a 0.004, b 0.1 (charged): b 25.
 * Without a time limit the charge is 10 x the longest run: a on p1, 0.05 s
 * solve: 0.5 s. The ranking at the tier: b reached 2 of its 2 accepted,
 * a 2 of 3: b first. */
static const double tr_a0[] = {0, 0, 1, 10, 8e-3, 1e-7};
static const double tr_a1[] = {0, 0, 1, 50, 5e-2, 1e-3};
static const double tr_a2[] = {0, 0, 1, 5, 3e-3, 1e-9};
static const double tr_b0[] = {0, 0, 1, 20, 1e-2, 1e-5, 30, 3e-2, 1e-7, 40, 4e-2, 1e-9};
static const double tr_b1[] = {0, 0, 1, 40, 4e-2, 5e-7};

static void tier_records(mcb_run_rec *runs, char **names)
{
    /* names: A, B, p0, p1, p2, a, b */
    const int S = MCB_ST_SOLVED, M = MCB_ST_MAX_ITERS;
    runs[0] = (mcb_run_rec){.problem_set = names[0], .problem = names[2], .problem_index = 0,
                            .solver = names[5], .status = S, .setup_s = 2e-3, .solve_s = 8e-3,
                            .iterations = 10, .trace_rows = 2, .trace = trace_of(tr_a0, 2)};
    runs[1] = (mcb_run_rec){.problem_set = names[0], .problem = names[3], .problem_index = 1,
                            .solver = names[5], .status = M, .setup_s = 0, .solve_s = 5e-2,
                            .iterations = 50, .trace_rows = 2, .trace = trace_of(tr_a1, 2)};
    runs[2] = (mcb_run_rec){.problem_set = names[1], .problem = names[4], .problem_index = 0,
                            .solver = names[5], .status = S, .setup_s = 1e-3, .solve_s = 3e-3,
                            .iterations = 5, .trace_rows = 2, .trace = trace_of(tr_a2, 2)};
    runs[3] = (mcb_run_rec){.problem_set = names[0], .problem = names[2], .problem_index = 0,
                            .solver = names[6], .status = S, .setup_s = 0, .solve_s = 4e-2,
                            .iterations = 40, .trace_rows = 4, .trace = trace_of(tr_b0, 4)};
    runs[4] = (mcb_run_rec){.problem_set = names[0], .problem = names[3], .problem_index = 1,
                            .solver = names[6], .status = S, .setup_s = 0, .solve_s = 4e-2,
                            .iterations = 40, .trace_rows = 2, .trace = trace_of(tr_b1, 2)};
    runs[5] = (mcb_run_rec){.problem_set = names[1], .problem = names[4], .problem_index = 0,
                            .solver = names[6], .status = MCB_ST_SKIPPED};
    for (int k = 0; k < 6; k++) {
        runs[k].own_status = runs[k].own_stop = -1;
        runs[k].run_index = k;
        for (int m = 0; m < MCB_NMETRICS; m++) runs[k].final.val[m] = NAN;
    }
}

START_TEST(sgm_per_set_and_over_all_sets)
{
    char A[] = "A", B[] = "B", p0[] = "p0", p1[] = "p1", p2[] = "p2", a[] = "a", b[] = "b";
    char *names[] = {A, B, p0, p1, p2, a, b};
    mcb_run_rec runs[6];
    tier_records(runs, names);
    mcb_results_data D;
    memset(&D, 0, sizeof D);
    D.count = 6;
    D.runs = runs;
    D.time_limit_s = 0.1;
    mcb_outcomes O;
    ck_assert_int_eq(mcb_outcomes_build_tier(&D, COL, 1e-6, &O, NULL), MCB_OK);
    ck_assert_int_eq(O.nproblems, 3);
    ck_assert_str_eq(O.solvers[0], "a");
    ck_assert_double_eq_tol(O.time_s[0], 0.010, 1e-15); /* a p0 */
    ck_assert_double_eq(O.iters[1], 30); /* b p0: to the tier, not its end */
    ck_assert_double_eq_tol(O.time_s[1], 0.030, 1e-15);
    ck_assert(isnan(O.time_s[2]));                      /* a p1 */
    ck_assert(isnan(O.time_s[5]));                      /* b p2 skipped */
    double charge = mcb_failure_charge_s(&D), buf[3];
    ck_assert_double_eq(charge, 0.1);
    const double shift = 0.010;
    double sa = mcb_outcomes_sgm(&O, -1, 0, shift, charge, buf);
    double sb = mcb_outcomes_sgm(&O, -1, 1, shift, charge, buf);
    ck_assert_double_eq_tol(sa, cbrt(0.02 * 0.11 * 0.014) - 0.01, 1e-15);
    ck_assert_double_eq_tol(sa, 0.0213461, 1e-7);
    ck_assert_double_eq_tol(sb, 0.0503681, 1e-7);
    ck_assert_double_eq_tol(sb / sa, 2.35959, 1e-5);
    double Aa = mcb_outcomes_sgm(&O, 0, 0, shift, charge, buf);
    double Ab = mcb_outcomes_sgm(&O, 0, 1, shift, charge, buf);
    ck_assert_double_eq_tol(Aa / Ab, 1.06287, 1e-5);
    ck_assert_double_eq_tol(mcb_outcomes_sgm(&O, 1, 1, shift, charge, buf) /
                                mcb_outcomes_sgm(&O, 1, 0, shift, charge, buf),
                            25, 1e-12);
    int order[2], reached[2], accepted[2];
    double med[2];
    ck_assert_int_eq(mcb_outcomes_rank(&O, -1, order, reached, accepted, med, NULL), MCB_OK);
    ck_assert_int_eq(order[0], 1);
    ck_assert(reached[0] == 2 && accepted[0] == 3 && reached[1] == 2 && accepted[1] == 2);
    D.time_limit_s = 0;
    ck_assert_double_eq_tol(mcb_failure_charge_s(&D), 0.5, 1e-15);
    mcb_outcomes_free(&O);
    for (int k = 0; k < 6; k++) free(runs[k].trace);
}
END_TEST

/* The records above plus three claims on A/p0, tol 1e-8 (natmap):
 *   liar:   stopped itself at 12 claiming solved, natmap 1e-3: a wrong claim;
 *   honest: stopped itself at 9 claiming solved, natmap 1e-9: confirmed;
 *   strict: stopped itself at 20 with max-iterations, a check at 15 had met
 *           1e-8 already: met before its stop, and met without a claim;
 *   a and b: stopped by the harness (own_stop 0): no own stop.
 * Written as a campaign writes them (journal, then mcb_results_write),
 * then reported. */
START_TEST(planted_wrong_claim_is_counted)
{
    char dir[] = "/tmp/mcb_tiersXXXXXX", h5[256], csv[256], out[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(h5, sizeof h5, "%s/r.h5", dir);
    snprintf(csv, sizeof csv, "%s/r.csv", dir);
    snprintf(out, sizeof out, "%s/out", dir);
    char A[] = "A", B[] = "B", p0[] = "p0", p1[] = "p1", p2[] = "p2", a[] = "a", b[] = "b";
    char liar[] = "liar", honest[] = "honest", strict[] = "strict", none[] = "";
    char *names[] = {A, B, p0, p1, p2, a, b};
    mcb_run_rec runs[9];
    tier_records(runs, names);
    const double tr_liar[] = {0, 0, 1, 12, 1e-3, 1e-3};
    const double tr_honest[] = {0, 0, 1, 9, 1e-3, 1e-9};
    const double tr_strict[] = {0, 0, 1, 15, 1e-3, 5e-9, 20, 2e-3, 2e-9};
    char *who[3] = {liar, honest, strict};
    const double *tr[3] = {tr_liar, tr_honest, tr_strict};
    const int rows[3] = {2, 2, 3}, iters[3] = {12, 9, 20};
    const int own[3] = {MCB_ST_SOLVED, MCB_ST_SOLVED, MCB_ST_MAX_ITERS};
    const int status[3] = {MCB_ST_STALLED, MCB_ST_SOLVED, MCB_ST_SOLVED};
    for (int k = 0; k < 3; k++) {
        runs[6 + k] = (mcb_run_rec){.problem_set = A, .problem = p0, .solver = who[k],
                                    .status = status[k], .iterations = iters[k],
                                    .solve_s = 1e-3 * iters[k] / 10, .own_status = own[k],
                                    .own_stop = 1, .run_index = 6 + k, .trace_rows = rows[k],
                                    .trace = trace_of(tr[k], rows[k])};
        for (int m = 0; m < MCB_NMETRICS; m++) runs[6 + k].final.val[m] = NAN;
        runs[6 + k].final.val[MCB_M_NATMAP] = tr[k][3 * rows[k] - 1];
    }
    for (int k = 0; k < 5; k++) runs[k].own_status = MCB_ST_SOLVED, runs[k].own_stop = 0;
    runs[5].own_status = runs[5].own_stop = -1; /* skipped */
    for (int k = 0; k < 9; k++) runs[k].reason = runs[k].config = none;
    char metric[] = "natmap", text[] = "test", settings[] = "tol=1e-08 tiers=1e-06,0.0001";
    mcb_results_data ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.stop_metric = metric;
    ctx.date = ctx.git_revision = ctx.cpu_model = ctx.compiler = ctx.command = text;
    ctx.cflags = text;
    ctx.settings = settings;
    ctx.tol = 1e-8;
    ctx.max_iters = 100;
    ctx.time_limit_s = 0.1;
    ctx.threads = ctx.cpu_count = ctx.repeat = 1;
    ctx.total_runs = 9;
    mcb_err err;
    ck_assert_msg(fx_write_results(h5, csv, &ctx, runs, 9, &err) == MCB_OK, "%s", err.msg);
    for (int k = 0; k < 9; k++) free(runs[k].trace);

    /* the results file keeps the solver's word */
    mcb_results_data *R = NULL;
    ck_assert_msg(mcb_results_read(h5, &R, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(R->runs[6].own_status, MCB_ST_SOLVED);
    ck_assert_int_eq(R->runs[6].own_stop, 1);
    ck_assert_int_eq(R->runs[8].own_status, MCB_ST_MAX_ITERS);
    ck_assert_int_eq(R->runs[5].own_stop, -1);
    mcb_results_data_free(&R);

    /* the CSV: the claim columns, then the tiers (0.0001, then 1e-06) */
    char *t = fx_slurp(dir, "r.csv");
    ck_assert_ptr_nonnull(t);
    ck_assert(strstr(t, ",own_status,own_stop,met_before_stop,tier1_tol,tier1_iterations,"
                        "tier1_s,tier2_tol,") != NULL);
    /* b on p0, stopped by the harness: tier 1e-4 at its row 20 (1e-5), 10 ms;
     * 1e-6 at 30, 30 ms; the two unused tier slots empty, the warm-start mode
     * and the run's start (not recorded in these records), then the reason, then
     * the machine's state */
    ck_assert_msg(strstr(t, ",solved,0,0,0.0001,20,1.000000e-02,1e-06,30,3.000000e-02,,,,,,,none,,,")
                      != NULL, "%s", t);
    /* strict: its own max-iterations, an own stop, met before it */
    ck_assert_msg(strstr(t, ",max-iterations,1,1,0.0001,15,") != NULL, "%s", t);
    /* liar: its own solved, reaching neither tier */
    ck_assert_msg(strstr(t, ",solved,1,0,0.0001,,,1e-06,,,") != NULL, "%s", t);
    free(t);

    ck_assert_msg(mcb_report(h5, out, NULL, &err) == MCB_OK, "%s", err.msg);
    t = fx_slurp(out, "claims.csv");
    ck_assert_ptr_nonnull(t);
    /* solver,runs,own_stops,claims,confirmed,wrong_claims,met_before_stop,unclaimed_met */
    ck_assert_msg(strstr(t, "\nliar,1,1,1,0,1,0,0\n") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\nhonest,1,1,1,1,0,0,0\n") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\nstrict,1,1,0,0,0,1,1\n") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\na,3,0,0,0,0,0,0\n") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "\nb,2,0,0,0,0,0,0\n") != NULL, "%s", t); /* skipped: not a run */
    free(t);
    t = fx_slurp(out, "tiers.csv");
    ck_assert_ptr_nonnull(t);
    /* set B at tier 1e-6: a first, 1 accepted, 1 reached, success 1 (b skipped it) */
    ck_assert_msg(strstr(t, "\n1e-06,B,a,1,1,1,1,") != NULL, "%s", t);
    ck_assert_msg(strstr(t, "0.0001,all,") == t + strlen("tier,set,solver,rank,accepted,reached,"
                                                           "success_rate,median_time_s,"
                                                           "median_iterations,sgm_s,sgm_rel,"
                                                           "sgm_rel_lo,sgm_rel_hi\n"),
                  "%s", t);
    free(t);
    t = fx_slurp(out, "index.html");
    ck_assert_ptr_nonnull(t);
    ck_assert(strstr(t, "<h2 id='tiers'>Accuracy tiers</h2>") != NULL);
    ck_assert(strstr(t, "<h3 id='tier2'>Tier 1e-06</h3>") != NULL);
    ck_assert(strstr(t, "all.sets_tier2_pp-time.svg") != NULL);
    ck_assert(strstr(t, "<h2 id='claims'>Claimed against verified</h2>") != NULL);
    free(t);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tiers");
    TCase *tc = tcase_create("tiers");
    tcase_add_test(tc, sgm_known_answers);
    tcase_add_test(tc, tier_times_from_a_synthetic_trace);
    tcase_add_test(tc, sgm_per_set_and_over_all_sets);
    tcase_add_test(tc, planted_wrong_claim_is_counted);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

/* test_confidence.c: issue 28's confidence intervals and machine state.
 * Known answers for the percentile bootstrap (lib/mcb_bootstrap.c): a
 * constant sample has a zero-width interval; the mean of 0..99 gets the
 * normal-theory width; the interval is the same for the same seed and
 * covers the true mean of normal samples about 95% of the time; bad sizes
 * are refused; the paired ratio over repetitions (reports/resample.c).
 * `mcbench compare` (reports/compare.c) on synthetic campaigns written as
 * a campaign writes them (journal, then mcb_results_write): a 20% change
 * whose interval includes 1 is not flagged, a 50% change whose interval
 * excludes 1 is; the same change between two CPU models is not flagged
 * (and says why) unless allow_other_machine. The machine's state
 * (harness/machine.c, reports/machine.c): the others' share by hand, a busy
 * and a throttled campaign flagged and warned in the report, a quiet one
 * not, and a campaign run while a busy child spins records the child's
 * share. */
#define _GNU_SOURCE /* usleep, open_memstream */
#include <check.h>

#include "check_main.h"
#include "fixtures.h"
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hdf5.h>

#include "harness/machine.h"
#include "lib/mcb_bootstrap.h"
#include "lib/mcb_journal.h"
#include "reports/compare.h"
#include "reports/machine.h"
#include "reports/report.h"
#include "reports/resample.h"

static void mean_stat(const double *rows, int n, int width, void *ctx, double *out)
{
    (void)ctx;
    double s = 0;
    for (int i = 0; i < n; i++) s += rows[(size_t)i * width];
    out[0] = s / n;
}

START_TEST(constant_sample_has_zero_width)
{
    double x[7] = {3, 3, 3, 3, 3, 3, 3};
    mcb_interval ci;
    mcb_err err;
    ck_assert_int_eq(mcb_bootstrap(x, 7, 1, 1, mean_stat, NULL, NULL, &ci, &err), MCB_OK);
    ck_assert(ci.est == 3 && ci.lo == 3 && ci.hi == 3);
    ck_assert(!mcb_interval_excludes(&ci, 3.0) && mcb_interval_excludes(&ci, 1.0));
}
END_TEST

/* The mean of 0..99: sd 29.01, standard error 2.90, so the 95% interval is
 * about 49.5 +- 5.7; the same seed gives the same interval, another seed
 * another one. */
START_TEST(known_spread_and_determinism)
{
    double x[100];
    for (int i = 0; i < 100; i++) x[i] = i;
    mcb_interval a, b, c;
    mcb_err err;
    ck_assert_int_eq(mcb_bootstrap(x, 100, 1, 1, mean_stat, NULL, NULL, &a, &err), MCB_OK);
    ck_assert_int_eq(mcb_bootstrap(x, 100, 1, 1, mean_stat, NULL, NULL, &b, &err), MCB_OK);
    ck_assert(a.est == 49.5);
    ck_assert_msg(a.lo > 42.5 && a.lo < 45.5 && a.hi > 53.5 && a.hi < 56.5, "[%g, %g]", a.lo,
                  a.hi);
    ck_assert(a.lo == b.lo && a.hi == b.hi);
    mcb_boot_opts o;
    mcb_boot_defaults(&o);
    o.seed = 7;
    ck_assert_int_eq(mcb_bootstrap(x, 100, 1, 1, mean_stat, NULL, &o, &c, &err), MCB_OK);
    ck_assert(c.lo != a.lo || c.hi != a.hi);
    ck_assert(fabs(c.lo - a.lo) < 1.5 && fabs(c.hi - a.hi) < 1.5);
}
END_TEST

/* 300 samples of 40 standard normals: the interval covers 0 in about 95%
 * of them (the percentile bootstrap undercovers a little at n = 40). */
START_TEST(coverage_of_the_true_mean)
{
    mcb_rng rng;
    mcb_rng_seed(&rng, 12345);
    mcb_boot_opts o;
    mcb_boot_defaults(&o);
    o.resamples = 400;
    int covered = 0;
    double x[40];
    mcb_err err;
    for (int t = 0; t < 300; t++) {
        for (int i = 0; i < 40; i++) x[i] = mcb_rng_normal(&rng);
        mcb_interval ci;
        ck_assert_int_eq(mcb_bootstrap(x, 40, 1, 1, mean_stat, NULL, &o, &ci, &err), MCB_OK);
        covered += ci.lo <= 0 && 0 <= ci.hi;
    }
    ck_assert_msg(covered >= 270 && covered <= 295, "covered %d of 300", covered);
}
END_TEST

START_TEST(bad_sizes_are_refused)
{
    double x[2] = {1, 2};
    mcb_interval ci;
    mcb_err err;
    ck_assert_int_eq(mcb_bootstrap(x, 0, 1, 1, mean_stat, NULL, NULL, &ci, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_bootstrap(NULL, 2, 1, 1, mean_stat, NULL, NULL, &ci, &err),
                     MCB_E_INPUT);
    mcb_boot_opts o;
    mcb_boot_defaults(&o);
    o.level = 1;
    ck_assert_int_eq(mcb_bootstrap(x, 2, 1, 1, mean_stat, NULL, &o, &ci, &err), MCB_E_INPUT);
}
END_TEST

/* Paired ratios over repetitions: constant repetitions {1,1,1} and {2,2,2}
 * give 2 exactly; spread repetitions give an interval around the ratio. */
START_TEST(paired_ratio_over_repetitions)
{
    int start[3] = {0, 3, 6};
    double v[6] = {1, 1, 1, 2, 2, 2};
    mcb_reps R = {2, 3, start, v};
    int ca = 0, cb = 1;
    mcb_interval ci;
    mcb_err err;
    ck_assert_int_eq(mcb_ratio_interval(&R, &ca, &R, &cb, 1, &ci, &err), MCB_OK);
    ck_assert(ci.est == 2 && ci.lo == 2 && ci.hi == 2);
    double w[6] = {1, 2, 3, 2, 4, 6};
    R.v = w;
    ck_assert_int_eq(mcb_ratio_interval(&R, &ca, &R, &cb, 1, &ci, &err), MCB_OK);
    ck_assert(ci.est == 2 && ci.lo < 1 && ci.hi > 3); /* medians from 1..3 and 2..6 */
}
END_TEST

/* The shifted geometric mean relative to the best: B (1 s) twice A (0.5 s)
 * on every problem gives 2 with a zero-width interval;
 * a failure of B on one problem of four (charged 10) widens B's interval
 * and leaves A at exactly 1. */
START_TEST(sgm_relative_interval)
{
    double t[8] = {0.5, 1, 0.5, 1, 0.5, 1, 0.5, 1};
    mcb_interval ci[2];
    mcb_err err;
    ck_assert_int_eq(mcb_sgm_rel_interval(t, 4, 2, 0.01, 10, ci, &err), MCB_OK);
    ck_assert(ci[0].est == 1 && ci[0].lo == 1 && ci[0].hi == 1);
    ck_assert_msg(fabs(ci[1].est - 2) < 1e-12 && fabs(ci[1].lo - 2) < 1e-12 &&
                      fabs(ci[1].hi - 2) < 1e-12, "[%g, %g]", ci[1].lo, ci[1].hi);
    t[7] = NAN;
    ck_assert_int_eq(mcb_sgm_rel_interval(t, 4, 2, 0.01, 10, ci, &err), MCB_OK);
    ck_assert(ci[1].est > 2 && ci[1].lo < ci[1].est && ci[1].hi > ci[1].est);
    ck_assert(ci[1].lo >= 2 - 1e-12 && ci[1].hi <= 20 + 1e-12);
    ck_assert(ci[0].lo == 1 && ci[0].hi == 1);
}
END_TEST

/* ------------------------------------------------- synthetic campaigns */

static void remove_dir(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

typedef struct {
    const char *cpu;
    int nreps;
    const double *t; /* solve_s per repetition */
    double load, share, mhz, max_mhz;
} campaign_spec;

/* dir/name.h5 with one problem and one solver, as a campaign writes it. */
static void write_campaign(const char *dir, const char *name, const campaign_spec *c, char *h5,
                           size_t len)
{
    char csv[300];
    snprintf(h5, len, "%s/%s.h5", dir, name);
    snprintf(csv, sizeof csv, "%s/%s.csv", dir, name);
    char set[] = "s", prob[] = "p0", solver[] = "pgs", none[] = "", metric[] = "natmap";
    char text[] = "test", cpu[128];
    snprintf(cpu, sizeof cpu, "%s", c->cpu);
    mcb_results_data ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.stop_metric = metric;
    ctx.date = ctx.git_revision = ctx.compiler = ctx.command = ctx.cflags = ctx.settings = text;
    ctx.cpu_model = cpu;
    ctx.tol = 1e-6;
    ctx.max_iters = 100;
    ctx.time_limit_s = 1;
    ctx.threads = 1;
    ctx.cpu_count = 2;
    ctx.repeat = c->nreps;
    ctx.total_runs = c->nreps;
    mcb_run_rec runs[16];
    for (int k = 0; k < c->nreps; k++)
        runs[k] = (mcb_run_rec){.problem_set = set, .problem = prob, .solver = solver,
                                .reason = none, .config = none, .run_index = k, .rep = k,
                                .status = MCB_ST_SOLVED, .iterations = 10, .n = 6, .m = 6,
                                .solve_s = c->t[k], .load_avg = c->load, .cpu_mhz = c->mhz,
                                .cpu_max_mhz = c->max_mhz, .others_share = c->share};
    mcb_err err;
    ck_assert_msg(fx_write_results(h5, csv, &ctx, runs, c->nreps, &err) == MCB_OK, "%s",
                  err.msg);
}

static const char cpu_a[] = "Test CPU A @ 3.0GHz", cpu_b[] = "Test CPU B @ 2.0GHz";
static const double t_old[5] = {1.0, 2.0, 1.0, 2.0, 1.5}, t_wide[5] = {1.2, 2.2, 1.1, 2.4, 1.8};
static const double t_tight_old[5] = {1.0, 1.01, 0.99, 1.0, 1.02};
static const double t_tight_new[5] = {1.5, 1.52, 1.49, 1.5, 1.51};

/* flags of compare(a, b); *text: its Markdown (freed by the caller). */
static int compare_flags(const char *a, const char *b, int allow, char **text)
{
    mcb_compare_opts o;
    mcb_compare_defaults(&o);
    o.allow_other_machine = allow;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    ck_assert_ptr_nonnull(out);
    int flagged = -1;
    mcb_err err;
    ck_assert_msg(mcb_compare(a, b, NULL, out, &o, &flagged, &err) == MCB_OK, "%s", err.msg);
    fclose(out);
    *text = buf;
    return flagged;
}

START_TEST(compare_flags_only_outside_the_interval)
{
    char dir[] = "/tmp/mcb_ciXXXXXX", a[300], b[300], c[300], d[300], e[300];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    campaign_spec s = {cpu_a, 5, t_old, 0.5, 0.01, NAN, NAN};
    write_campaign(dir, "old", &s, a, sizeof a);
    s.t = t_wide;
    write_campaign(dir, "wide", &s, b, sizeof b);
    s.t = t_tight_old;
    write_campaign(dir, "tight_old", &s, c, sizeof c);
    s.t = t_tight_new;
    write_campaign(dir, "tight_new", &s, d, sizeof d);
    s.cpu = cpu_b;
    write_campaign(dir, "tight_other", &s, e, sizeof e);
    char *md;
    /* median ratio 1.8 / 1.5 = 1.2 (beyond 10%) but the interval includes 1 */
    ck_assert_int_eq(compare_flags(a, b, 0, &md), 0);
    ck_assert_msg(strstr(md, "| 1.2 [") != NULL, "%s", md);
    ck_assert(strstr(md, "no significant change") != NULL);
    free(md);
    /* ratio 1.5 with a tight interval: TIME */
    ck_assert_int_eq(compare_flags(c, d, 0, &md), 1);
    ck_assert_msg(strstr(md, "| TIME |") != NULL, "%s", md);
    ck_assert(strstr(md, "changed: slower") != NULL);
    free(md);
    /* the same change on another CPU model: not significant, and why */
    ck_assert_int_eq(compare_flags(c, e, 0, &md), 0);
    ck_assert_msg(strstr(md, "**The machines differ** (CPU model 'Test CPU A @ 3.0GHz' OLD, "
                             "'Test CPU B @ 2.0GHz' NEW)") != NULL, "%s", md);
    free(md);
    ck_assert_int_eq(compare_flags(c, e, 1, &md), 1);
    ck_assert(strstr(md, "--allow-other-machine") != NULL);
    free(md);
    remove_dir(dir);
}
END_TEST

/* ------------------------------------------------------ machine state */

START_TEST(others_share_by_hand)
{
    /* 3 busy CPU-seconds of which 1 ours, over 2 CPUs x 2 s: 0.5 */
    ck_assert(fabs(mcb_machine_others_share(3, 1, 2, 2) - 0.5) < 1e-15);
    ck_assert(mcb_machine_others_share(0.5, 1, 2, 2) == 0);  /* clamped */
    ck_assert(mcb_machine_others_share(10, 0, 1, 2) == 1);   /* clamped */
    ck_assert(isnan(mcb_machine_others_share(1, 0, 0, 2)));  /* no wall time */
    ck_assert(isnan(mcb_machine_others_share(NAN, 0, 1, 2)));
}
END_TEST

/* A campaign with others' share 50%, one with load 5 on 2 CPUs, one at
 * 1000 of 3000 MHz: flagged; a quiet one (1%, load 0.5) not; the report
 * warns for the busy one and not for the quiet one. */
START_TEST(busy_and_throttled_machines_flagged)
{
    char dir[] = "/tmp/mcb_busyXXXXXX", h5[300], out[300];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const campaign_spec specs[4] = {{cpu_a, 3, t_old, 0.5, 0.5, NAN, NAN},
                                    {cpu_a, 3, t_old, 5.0, 0.01, NAN, NAN},
                                    {cpu_a, 3, t_old, 0.5, 0.01, 1000, 3000},
                                    {cpu_a, 3, t_old, 0.5, 0.01, 2900, 3000}};
    const int busy[4] = {1, 1, 0, 0}, throttled[4] = {0, 0, 3, 0};
    for (int k = 0; k < 4; k++) {
        char name[16];
        snprintf(name, sizeof name, "m%d", k);
        write_campaign(dir, name, &specs[k], h5, sizeof h5);
        mcb_results_data *D = NULL;
        mcb_err err;
        ck_assert_msg(mcb_results_read(h5, &D, &err) == MCB_OK, "%s", err.msg);
        mcb_machine_summary S;
        mcb_machine_summarize(D, &S);
        ck_assert_msg(S.busy == busy[k] && S.throttled == throttled[k],
                      "campaign %d: busy %d throttled %d", k, S.busy, S.throttled);
        mcb_results_data_free(&D);
        snprintf(out, sizeof out, "%s/rep%d", dir, k);
        ck_assert_msg(mcb_report(h5, out, NULL, &err) == MCB_OK, "%s", err.msg);
        char *t = fx_slurp(out, "index.html");
        ck_assert_ptr_nonnull(t);
        ck_assert_int_eq(strstr(t, "Warning: the machine was busy") != NULL, busy[k]);
        ck_assert_int_eq(strstr(t, "Warning: the CPU was throttled") != NULL, throttled[k] > 0);
        free(t);
    }
    remove_dir(dir);
}
END_TEST

/* A busy child spinning over 0.4 s of our own sleep: its CPU time is the
 * others' share (about 1 / ncpu, at least 0.2 of one CPU on any count up
 * to 4 -- more on a machine already busy). */
START_TEST(busy_child_is_seen)
{
    pid_t child = fork();
    ck_assert(child >= 0);
    if (child == 0) {
        volatile unsigned long x = 0;
        for (;;) x++;
    }
    usleep(50000);
    mcb_machine_mark a, b;
    mcb_machine_mark_now(&a);
    usleep(400000);
    mcb_machine_mark_now(&b);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    mcb_machine_state st;
    mcb_machine_between(&a, &b, (int)ncpu, &st);
    if (ncpu > 4) return; /* one spinning CPU is too small a share to assert on */
    ck_assert_msg(st.others_share >= 0.2, "others' share %g on %ld CPUs", st.others_share, ncpu);
    ck_assert(st.load_avg >= 0);
}
END_TEST

/* Files written before the machine's state: a results file whose runs lack
 * its attributes and a journal record without its last four numbers read
 * as NaN, and the report says it was not recorded. */
START_TEST(old_files_read_as_nan)
{
    char dir[] = "/tmp/mcb_oldXXXXXX", h5[300], out[300];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    const campaign_spec spec = {cpu_a, 3, t_old, 5.0, 0.5, 1000, 3000};
    write_campaign(dir, "old", &spec, h5, sizeof h5);
    hid_t f = H5Fopen(h5, H5F_ACC_RDWR, H5P_DEFAULT);
    ck_assert(f >= 0);
    const char *attrs[4] = {"load_avg", "cpu_mhz", "cpu_max_mhz", "others_share"};
    for (int k = 0; k < 3; k++) {
        char g[64];
        snprintf(g, sizeof g, "runs/%06d", k);
        for (int a = 0; a < 4; a++) ck_assert(H5Adelete_by_name(f, g, attrs[a], H5P_DEFAULT) >= 0);
    }
    H5Fclose(f);
    mcb_results_data *D = NULL;
    mcb_err err;
    ck_assert_msg(mcb_results_read(h5, &D, &err) == MCB_OK, "%s", err.msg);
    for (int k = 0; k < D->count; k++)
        ck_assert(isnan(D->runs[k].load_avg) && isnan(D->runs[k].cpu_mhz) &&
                  isnan(D->runs[k].cpu_max_mhz) && isnan(D->runs[k].others_share));
    /* the same record packed, less its machine's state: an older journal's */
    mcb_buf b = {0};
    mcb_rec_pack(&D->runs[0], &b);
    mcb_run_rec r;
    ck_assert_int_eq(mcb_rec_unpack(b.p, b.len - 4 * sizeof(double), "old", &r, &err), MCB_OK);
    ck_assert(isnan(r.load_avg) && isnan(r.others_share) && r.solve_s == t_old[0]);
    mcb_rec_free(&r);
    mcb_buf_free(&b);
    mcb_machine_summary S;
    mcb_machine_summarize(D, &S);
    ck_assert(S.runs == 0 && !S.busy && !S.throttled);
    mcb_results_data_free(&D);
    snprintf(out, sizeof out, "%s/rep", dir);
    ck_assert_msg(mcb_report(h5, out, NULL, &err) == MCB_OK, "%s", err.msg);
    char *t = fx_slurp(out, "index.html");
    ck_assert_ptr_nonnull(t);
    ck_assert(strstr(t, "Machine during the runs: not recorded") != NULL);
    ck_assert(strstr(t, "Warning") == NULL);
    free(t);
    remove_dir(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("confidence");
    TCase *tc = tcase_create("confidence");
    tcase_add_test(tc, constant_sample_has_zero_width);
    tcase_add_test(tc, known_spread_and_determinism);
    tcase_add_test(tc, coverage_of_the_true_mean);
    tcase_add_test(tc, bad_sizes_are_refused);
    tcase_add_test(tc, paired_ratio_over_repetitions);
    tcase_add_test(tc, sgm_relative_interval);
    tcase_add_test(tc, compare_flags_only_outside_the_interval);
    tcase_add_test(tc, others_share_by_hand);
    tcase_add_test(tc, busy_and_throttled_machines_flagged);
    tcase_add_test(tc, busy_child_is_seen);
    tcase_add_test(tc, old_files_read_as_nan);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

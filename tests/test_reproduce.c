/* test_reproduce.c: reports/reproduce.c by known answers, on experiment
 * specs built by hand (harness/experiment.h) over synthetic results files
 * written as a campaign writes them (the journal, then mcb_results_write)
 * at ITEM_DIR/runs/GROUP/ENTRY.h5:
 *  - a table (replay) whose cells give every verdict: a time ratio inside
 *    the band (reproduced), outside it on the paper's side of the reference
 *    (ordering reproduced) and on the other side (not reproduced), the
 *    reference, a time without a reference (not compared), a published "-"
 *    against a run that failed (reproduced) and a number against it (not
 *    reproduced), outcomes (category), inner failures (rate), accuracies in
 *    -log10 and iteration counts, and under --quick a skipped group (not
 *    run);
 *  - a figure of points (y = 0.5 x exactly: R^2 = 1, log-log slope 1; y =
 *    0.01 x^2: log-log slope 2) and a figure of curves (medians of traces);
 *  - a closed loop (per-step times and the mean over the steps of -log10);
 *  - the Markdown, CSV and HTML written, the plots drawn or their absence
 *    said, and a missing results file named in the error. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "lib/mcb_experiment.h"
#include "lib/mcb_journal.h"
#include "lib/mcb_paths.h"
#include "lib/mcb_results.h"
#include "reports/reproduce.h"

#define S_(x) ((char *)(x))

/* ---- synthetic results ------------------------------------------------- */

typedef struct {
    int status, iterations;
    double setup_ms, solve_ms, natmap;
    const char *reason;
    int trace_rows;         /* trace: iteration k + 1, natmap trace[k] */
    const double *trace;
    int step_rows;          /* closed loop: per step solve_ms, fb steps[k] */
    const double *steps;
} run_spec;

static void write_pair(const char *item, const char *group, const char *entry,
                       const run_spec *rs, int n)
{
    char dir[512], h5[600], csv[600], jr[700];
    snprintf(dir, sizeof dir, "%s/runs/%s", item, group);
    mcb_err err;
    ck_assert_msg(mcb_mkdirs(dir, &err) == MCB_OK, "%s", err.msg);
    snprintf(h5, sizeof h5, "%s/%s.h5", dir, entry);
    snprintf(csv, sizeof csv, "%s/%s.csv", dir, entry);
    mcb_journal_path(h5, jr, sizeof jr);
    mcb_results_data ctx;
    memset(&ctx, 0, sizeof ctx);
    char metric[] = "natmap", text[] = "test";
    ctx.stop_metric = metric;
    ctx.date = ctx.git_revision = ctx.cpu_model = ctx.compiler = ctx.command = text;
    ctx.cflags = ctx.settings = text;
    ctx.tol = 1e-6;
    ctx.max_iters = 100;
    ctx.time_limit_s = 1;
    ctx.threads = ctx.cpu_count = ctx.repeat = 1;
    ctx.total_runs = n;
    mcb_journal *J = NULL;
    ck_assert_msg(mcb_journal_create(jr, &ctx, &J, &err) == MCB_OK, "%s", err.msg);
    for (int k = 0; k < n; k++) {
        char set[] = "set", prob[32], none[] = "";
        snprintf(prob, sizeof prob, "p%d", k);
        mcb_run_rec r;
        memset(&r, 0, sizeof r);
        r.problem_set = set;
        r.problem = prob;
        r.solver = S_(entry);
        r.reason = S_(rs[k].reason ? rs[k].reason : "");
        r.config = none;
        r.run_index = k;
        r.problem_index = k;
        r.status = rs[k].status;
        r.iterations = rs[k].iterations;
        r.n = 6 + 6 * k; /* DOF: 6, 12, ... */
        r.m = 3;
        r.setup_s = rs[k].setup_ms / 1000;
        r.solve_s = rs[k].solve_ms / 1000;
        for (int i = 0; i < MCB_NMETRICS; i++) r.final.val[i] = NAN;
        r.final.val[MCB_M_NATMAP] = rs[k].natmap;
        double trace[16 * MCB_TRACE_COLS], steps[16 * MCB_STEP_COLS];
        if (rs[k].trace_rows) {
            r.trace_rows = rs[k].trace_rows;
            r.trace = trace;
            for (int i = 0; i < r.trace_rows; i++) {
                double *row = trace + (size_t)i * MCB_TRACE_COLS;
                for (int c = 0; c < MCB_TRACE_COLS; c++) row[c] = NAN;
                row[0] = i + 1;
                row[1] = 1e-3 * (i + 1);
                row[2 + MCB_M_NATMAP] = rs[k].trace[i];
            }
        }
        if (rs[k].step_rows) {
            r.step_rows = rs[k].step_rows;
            r.steps = steps;
            for (int i = 0; i < r.step_rows; i++) {
                double *row = steps + (size_t)i * MCB_STEP_COLS;
                for (int c = 0; c < MCB_STEP_COLS; c++) row[c] = NAN;
                row[MCB_SC_STEP] = i;
                row[MCB_SC_STATUS] = MCB_ST_MAX_ITERS;
                row[MCB_SC_ITERS] = 30;
                row[MCB_SC_SETUP_S] = 0;
                row[MCB_SC_SOLVE_S] = rs[k].steps[2 * i] / 1000;
                row[MCB_SC_N] = 12;
                row[MCB_SC_METRICS + MCB_M_FB] = rs[k].steps[2 * i + 1];
                /* the state after the step: 3 ms of engine time, a depth of
                 * (i + 1) um, an outcome error of 100 x the step's fb */
                row[MCB_SC_ENGINE_S] = 3e-3;
                row[MCB_SC_DEPTH_M] = 1e-6 * (i + 1);
                row[MCB_SC_OUTCOME_ERR] = 100 * rs[k].steps[2 * i + 1];
                row[MCB_SC_OUTCOME] = k + 1;
            }
        }
        ck_assert_msg(mcb_journal_append_run(J, &r, &err) == MCB_OK, "%s", err.msg);
    }
    mcb_journal_close(&J);
    mcb_results_src *S = NULL;
    ck_assert_msg(mcb_results_src_open(jr, &S, &err) == MCB_OK, "%s", err.msg);
    mcb_pick picks[16];
    for (int k = 0; k < n; k++) picks[k] = (mcb_pick){S, k};
    ck_assert_msg(mcb_results_write(h5, csv, &ctx, picks, n, &err) == MCB_OK, "%s", err.msg);
    mcb_results_src_close(&S);
    unlink(jr); /* as a finished campaign leaves it */
}

static char *slurp(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static int exists(const char *dir, const char *name)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

/* ---- specs by hand ------------------------------------------------------ */

static mcb_xp_budget unset_budget(void)
{
    return (mcb_xp_budget){.time_s = -1, .tol = -1, .warm_start = -1};
}

static mcb_xp_quantity quantity(mcb_xp_quantity_id id, const char *text, const char *metric,
                                double arg)
{
    return (mcb_xp_quantity){S_(text), id, S_(metric), arg};
}

static mcb_xp_value num(double x) { return (mcb_xp_value){MCB_XP_NUMBER, x, NULL}; }
static mcb_xp_value dash(void) { return (mcb_xp_value){MCB_XP_FAILED, 0, NULL}; }
static mcb_xp_value cat(const char *c) { return (mcb_xp_value){MCB_XP_CATEGORY, 0, S_(c)}; }
static mcb_xp_value none(void) { return (mcb_xp_value){MCB_XP_NONE, 0, NULL}; }

enum { NSOLV = 6, NCOL = 6 };
static const char *const solver_ids[NSOLV] = {"base", "fast", "slow", "other", "broken", "al"};

/* The table: rows are solvers (every one but base and al against base),
 * columns quantities on group g1, and time on g2 (left out under --quick). */
typedef struct {
    mcb_xp_spec S;
    mcb_xp_problems problems[2];
    mcb_xp_solver solvers[NSOLV];
    mcb_xp_binding rows[NSOLV], cols[NCOL];
    mcb_xp_value pub[NSOLV][NCOL];
    mcb_xp_note notes[2];
} table_spec;

static void build_table(table_spec *T)
{
    memset(T, 0, sizeof *T);
    mcb_xp_spec *S = &T->S;
    S->path = S_("experiments/xp-table.yaml");
    S->name = S_("xp-table");
    S->title = S_("A synthetic table");
    S->paper = S_("subadmm");
    S->citation = S_("Someone et al. 2024");
    S->item = S_("Table I");
    S->where = S_("Sec. IV-C");
    S->kind = MCB_XP_TABLE;
    S->protocol = MCB_XP_REPLAY;
    S->budget = unset_budget();
    S->budget.iters = 30;
    S->budget.tol = 0;
    S->quick_budget = unset_budget();
    S->caveat = S_("synthetic runs");
    const char *gid[2] = {"g1", "g2"};
    for (int g = 0; g < 2; g++) {
        T->problems[g].id = S_(gid[g]);
        T->problems[g].scene = S_("stir");
    }
    T->problems[1].quick_skip = 1;
    S->nproblems = 2;
    S->problems = T->problems;
    for (int k = 0; k < NSOLV; k++) {
        T->solvers[k].id = S_(solver_ids[k]);
        T->solvers[k].solver = S_("pgs");
        T->solvers[k].budget = unset_budget();
        T->solvers[k].quick_budget = unset_budget();
    }
    S->nsolvers = NSOLV;
    S->solvers = T->solvers;
    static const char *const cid[NCOL] = {"time", "acc", "iters", "out", "t2", "ifail"};
    const mcb_xp_quantity q[NCOL] = {
        quantity(MCB_XQ_TIME_MS, "time_ms", NULL, 0),
        quantity(MCB_XQ_NEGLOG, "neglog:natmap", "natmap", 0),
        quantity(MCB_XQ_ITERATIONS, "iterations", NULL, 0),
        quantity(MCB_XQ_OUTCOME, "outcome", NULL, 0),
        quantity(MCB_XQ_TIME_MS, "time_ms", NULL, 0),
        quantity(MCB_XQ_INNER_FAIL, "inner_failures", NULL, 0)};
    for (int j = 0; j < NCOL; j++) {
        T->cols[j].id = S_(cid[j]);
        T->cols[j].problems = S_(j == 4 ? "g2" : "g1");
        T->cols[j].has_quantity = 1;
        T->cols[j].quantity = q[j];
    }
    S->ncols = NCOL;
    S->cols = T->cols;
    /*                 time       acc      iters     out              t2       ifail */
    const mcb_xp_value pub[NSOLV][NCOL] = {
        {num(10), num(6), num(100), cat("succeeds"), num(10), none()},     /* base */
        {num(5), num(6.5), num(100), cat("succeeds"), num(5), none()},     /* fast */
        {num(2), num(8), num(20), cat("succeeds"), num(12), none()},       /* slow */
        {num(20), none(), none(), none(), none(), none()},                 /* other */
        {dash(), dash(), num(50), cat("fails"), none(), none()},           /* broken */
        {num(3), none(), none(), none(), none(), num(0.1)}};               /* al */
    memcpy(T->pub, pub, sizeof pub);
    for (int i = 0; i < NSOLV; i++) {
        T->rows[i].id = S_(solver_ids[i]);
        T->rows[i].solver = S_(solver_ids[i]);
        T->rows[i].npublished = NCOL;
        T->rows[i].published = T->pub[i];
        if (i >= 1 && i <= 4) T->rows[i].ref = S_("base");
    }
    S->nrows = NSOLV;
    S->rows = T->rows;
    T->notes[0] = (mcb_xp_note){0, S_("slow is 0.8x of base (paper 0.2x)"),
                                S_("the paper's base assembles W"),
                                S_("mcbench reproduce xp-assembled"), 0, NULL};
    T->notes[1] = (mcb_xp_note){0, S_("fast is accurate"), S_("warm start"),
                                S_("mcbench reproduce xp-cold"), 1, S_("cold start: 6.1")};
    S->nnotes = 2;
    S->notes = T->notes;
}

#define OK(s) ((run_spec){MCB_ST_SOLVED, 100, 0, (s), 1e-6, NULL, 0, NULL, 0, NULL})

/* Known answers: base 10 ms, 100 iterations, natmap 1e-6 (6 decades). */
static void write_table_runs(const char *item, int with_g2)
{
    for (int g = 0; g < 1 + with_g2; g++) {
        const char *grp = g ? "g2" : "g1";
        run_spec base[2] = {{MCB_ST_SOLVED, 100, 1, 9, 1e-6, NULL, 0, NULL, 0, NULL},
                            {MCB_ST_SOLVED, 100, 2, 8, 1e-6, NULL, 0, NULL, 0, NULL}};
        write_pair(item, grp, "base", base, 2);
        run_spec fast[2] = {{MCB_ST_SOLVED, 30, 0, 4, 1e-8, NULL, 0, NULL, 0, NULL},
                            {MCB_ST_SOLVED, 30, 0, 4, 1e-8, NULL, 0, NULL, 0, NULL}};
        write_pair(item, grp, "fast", fast, 2);
        run_spec slow[2] = {{MCB_ST_SOLVED, 20, 0, 8, 1e-3, NULL, 0, NULL, 0, NULL},
                            {MCB_ST_MAX_ITERS, 20, 0, 8, 1e-3, NULL, 0, NULL, 0, NULL}};
        write_pair(item, grp, "slow", slow, 2);
        run_spec other[1] = {OK(5)};
        write_pair(item, grp, "other", other, 1);
        run_spec broken[2] = {{MCB_ST_DIVERGED, 7, 0, 1, NAN, NULL, 0, NULL, 0, NULL},
                              {MCB_ST_SOLVED, 50, 0, 3, 1e-6, NULL, 0, NULL, 0, NULL}};
        write_pair(item, grp, "broken", broken, 2);
        run_spec al[2] = {
            {MCB_ST_SOLVED, 10, 0, 2, 1e-6,
             "canal: 10 AL loops, 40 Newton steps (4.00 per loop), 1 inner failures, beta 100 "
             "(initial 100)", 0, NULL, 0, NULL},
            {MCB_ST_SOLVED, 10, 0, 2, 1e-6,
             "canal: 10 AL loops, 52 Newton steps (5.20 per loop), 1 inner failures, beta 100 "
             "(initial 100)", 0, NULL, 0, NULL}};
        write_pair(item, grp, "al", al, 2);
    }
}

static const mcb_xp_cell *cell(const mcb_xp_outcome *R, int row, int col)
{
    return &R->cells[row * NCOL + col];
}

#define VERDICT(R, i, j, v)                                                                   \
    ck_assert_msg(cell(R, i, j)->verdict == (v), "cell (%s, %s): %s, expected %s (measured %g)", \
                  solver_ids[i], #j, mcb_xp_verdict_name(cell(R, i, j)->verdict),             \
                  mcb_xp_verdict_name(v), cell(R, i, j)->measured)

/* The table's runs written into a new directory item (a mkdtemp template)
 * and evaluated. */
static mcb_xp_outcome *evaluated_table(char *item, table_spec *T)
{
    ck_assert_ptr_nonnull(mkdtemp(item));
    build_table(T);
    write_table_runs(item, 1);
    mcb_xp_outcome *R = NULL;
    mcb_err err;
    ck_assert_msg(mcb_xp_evaluate(&T->S, item, 0, &R, &err) == MCB_OK, "%s", err.msg);
    return R;
}

START_TEST(table_verdicts_by_known_answer)
{
    char item[] = "/tmp/mcb_xpXXXXXX";
    table_spec T;
    mcb_xp_outcome *R = evaluated_table(item, &T);
    mcb_err err;
    ck_assert_int_eq(R->ncells, NSOLV * NCOL);
    enum { TIME, ACC, ITERS, OUT, T2, IFAIL };
    /* measured values */
    ck_assert_double_eq_tol(cell(R, 0, TIME)->measured, 10, 1e-9);
    ck_assert_double_eq_tol(cell(R, 1, TIME)->measured, 4, 1e-9);
    ck_assert_double_eq_tol(cell(R, 0, ACC)->measured, 6, 1e-9);
    ck_assert_double_eq_tol(cell(R, 1, ITERS)->measured, 30, 1e-12);
    ck_assert_str_eq(cell(R, 2, OUT)->category, "fails");
    ck_assert_double_eq_tol(cell(R, 5, IFAIL)->measured, 0.1, 1e-12);
    ck_assert_int_eq(cell(R, 4, TIME)->failed, 1);
    ck_assert_double_eq_tol(cell(R, 4, TIME)->measured, 3, 1e-9); /* over the run that did not */
    /* time as a ratio of ratios against base */
    VERDICT(R, 0, TIME, MCB_XR_REFERENCE);
    VERDICT(R, 1, TIME, MCB_XR_REPRODUCED); /* 0.4x vs 0.5x: 0.8 in [0.5, 2] */
    ck_assert_double_eq_tol(cell(R, 1, TIME)->mratio, 0.4, 1e-12);
    ck_assert_double_eq_tol(cell(R, 1, TIME)->pratio, 0.5, 1e-12);
    ck_assert_double_eq_tol(cell(R, 1, TIME)->ratio, 0.8, 1e-12);
    VERDICT(R, 2, TIME, MCB_XR_ORDERING);       /* 0.8x vs 0.2x: faster in both */
    VERDICT(R, 3, TIME, MCB_XR_NOT_REPRODUCED); /* 0.5x vs 2x: the other side */
    VERDICT(R, 4, TIME, MCB_XR_REPRODUCED);     /* "-" and a run diverged */
    VERDICT(R, 5, TIME, MCB_XR_NOT_COMPARED);   /* no reference */
    /* accuracy in decades (band 1), ordering against base */
    VERDICT(R, 0, ACC, MCB_XR_REPRODUCED);
    VERDICT(R, 1, ACC, MCB_XR_ORDERING);       /* 8 vs 6.5, both above base */
    VERDICT(R, 2, ACC, MCB_XR_NOT_REPRODUCED); /* 3 vs 8: below base, paper above */
    VERDICT(R, 3, ACC, MCB_XR_NOT_COMPARED);   /* nothing published */
    VERDICT(R, 4, ACC, MCB_XR_REPRODUCED);     /* "-" and a failure */
    ck_assert_double_eq_tol(cell(R, 1, ACC)->diff, 1.5, 1e-9);
    /* counts (factor 1.5) */
    VERDICT(R, 0, ITERS, MCB_XR_REPRODUCED);
    VERDICT(R, 2, ITERS, MCB_XR_REPRODUCED);     /* 20 vs 20 */
    VERDICT(R, 1, ITERS, MCB_XR_NOT_REPRODUCED); /* 30 vs 100, base equal in the paper */
    VERDICT(R, 4, ITERS, MCB_XR_NOT_REPRODUCED); /* a number published, the run failed */
    /* categories */
    VERDICT(R, 0, OUT, MCB_XR_REPRODUCED);
    VERDICT(R, 2, OUT, MCB_XR_NOT_REPRODUCED); /* one run not solved: fails */
    VERDICT(R, 4, OUT, MCB_XR_REPRODUCED);
    /* rates and the second group */
    VERDICT(R, 5, IFAIL, MCB_XR_REPRODUCED);
    VERDICT(R, 0, T2, MCB_XR_REFERENCE);
    VERDICT(R, 1, T2, MCB_XR_REPRODUCED);
    /* 0.8x vs 1.2x: 0.67 is inside the band, but faster here and slower in
     * the paper: the ordering is part of a time's reproduction */
    ck_assert_double_eq_tol(cell(R, 2, T2)->ratio, 0.8 / 1.2, 1e-12);
    VERDICT(R, 2, T2, MCB_XR_NOT_REPRODUCED);
    int counts[MCB_XR_NVERDICTS];
    mcb_xp_counts(R, counts);
    int total = 0;
    for (int v = 0; v < MCB_XR_NVERDICTS; v++) total += counts[v];
    ck_assert_int_eq(total, NSOLV * NCOL);
    ck_assert_int_eq(counts[MCB_XR_NOT_RUN], 0);
    ck_assert_int_eq(counts[MCB_XR_ORDERING], 2);

    /* the files */
    ck_assert_msg(mcb_xp_write(&T.S, R, item, NULL, &err) == MCB_OK, "%s", err.msg);
    char *md = slurp(item, "xp-table.md");
    ck_assert_ptr_nonnull(md);
    const char *lines[] = {
        "## A synthetic table\n",
        "Source: Someone et al. 2024 (`subadmm`), Table I.\n",
        "Where: Sec. IV-C.\n",
        "> Caveat: synthetic runs\n",
        "Made by `mcbench reproduce xp-table`.\n",
        "Budget: iters 30, no early stop (tol 0).",
        "| | time | acc | iters | out | t2 | ifail |\n",
        "| fast | 4 (5) | 8 (6.5) | 30 (100) | succeeds (succeeds) | 4 (5) | 0 |\n",
        "| broken | 3 (failed) (-) | 6 (failed) (-) | 50 (failed) (50) | fails (fails) |",
        "| row | column | published | measured | ratio | verdict |\n",
        "| fast | time | 5 ms | 4 ms | 0.8 (0.4x vs 0.5x) | reproduced |\n",
        "| slow | time | 2 ms | 8 ms | 4 (0.8x vs 0.2x) | ordering reproduced |\n",
        "| fast | acc | 6.5 -log10 | 8 -log10 | +1.5 | ordering reproduced |\n",
        "| base | time | 10 ms | 10 ms |  | reference |\n",
        "| broken | time | - | 3 ms (failed) |  | reproduced |\n",
        "- slow is 0.8x of base (paper 0.2x). Reason (conjecture): the paper's base assembles "
        "W. Experiment: mcbench reproduce xp-assembled. Not yet run.\n",
        "Reason (tested): warm start. Experiment: mcbench reproduce xp-cold. Result: cold "
        "start: 6.1.\n"};
    for (size_t k = 0; k < sizeof lines / sizeof *lines; k++)
        ck_assert_msg(strstr(md, lines[k]), "Markdown lacks [%s]:\n%s", lines[k], md);
    char sum[256];
    snprintf(sum, sizeof sum, "\nVerdicts: %d reproduced, 2 ordering reproduced, %d not "
                              "reproduced, 2 reference, %d not compared.\n",
             counts[MCB_XR_REPRODUCED], counts[MCB_XR_NOT_REPRODUCED],
             counts[MCB_XR_NOT_COMPARED]);
    ck_assert_msg(strstr(md, sum), "Markdown lacks [%s]:\n%s", sum, md);
    char *csv = slurp(item, "xp-table.csv");
    ck_assert_ptr_nonnull(csv);
    ck_assert_msg(!strncmp(csv, "item,row,column,quantity,unit,published,measured,failed,"
                                "measured_ratio,published_ratio,ratio,difference,verdict\n",
                           100), "%s", csv);
    ck_assert_msg(strstr(csv, "\nxp-table,fast,time,time_ms,ms,5,4,0,0.4,0.5,0.8,,reproduced\n"),
                  "%s", csv);
    ck_assert_msg(strstr(csv, "\nxp-table,broken,out,outcome,category,fails,fails,0,,,,,"
                              "reproduced\n"), "%s", csv);
    ck_assert_msg(strstr(csv, "\nxp-table,fast,acc,neglog:natmap,-log10,6.5,8,0,,,,1.5,"
                              "ordering reproduced\n"), "%s", csv);
    int nl = 0;
    for (const char *p = csv; *p; p++) nl += *p == '\n';
    ck_assert_int_eq(nl, 1 + NSOLV * NCOL);
    char *html = slurp(item, "xp-table.html");
    ck_assert_ptr_nonnull(html);
    ck_assert_msg(strstr(html, "<td>ordering reproduced</td>"), "%s", html);
    ck_assert_msg(strstr(html, "</html>"), "%s", html);
    ck_assert_int_eq(exists(item, "xp-table.svg"), 0); /* a table draws nothing */

    /* --quick: g2 left out (its files need not exist); its cells not run */
    mcb_xp_outcome_free(&R);
    ck_assert_ptr_null(R);
    char g2[600], cmd[700];
    snprintf(g2, sizeof g2, "%s/runs/g2", item);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g2);
    ck_assert_int_eq(system(cmd), 0);
    ck_assert_msg(mcb_xp_evaluate(&T.S, item, 1, &R, &err) == MCB_OK, "%s", err.msg);
    for (int i = 0; i < NSOLV; i++) VERDICT(R, i, T2, MCB_XR_NOT_RUN);
    VERDICT(R, 1, TIME, MCB_XR_REPRODUCED);
    ck_assert_msg(mcb_xp_set_command(R, "mcbench reproduce xp-table --quick -o out", &err) ==
                  MCB_OK, "%s", err.msg);
    ck_assert_msg(mcb_xp_write(&T.S, R, item, NULL, &err) == MCB_OK, "%s", err.msg);
    md = slurp(item, "xp-table.md");
    ck_assert_msg(strstr(md, "Made by `mcbench reproduce xp-table --quick -o out`. Quick run"),
                  "%s", md);
    ck_assert_msg(strstr(md, "| fast | t2 | 5 ms | not run |  | not run |\n"), "%s", md);
    mcb_xp_outcome_free(&R);
    mcb_xp_outcome_free(&R); /* accepts NULL */
    mcb_xp_outcome_free(NULL);

    /* a missing results file: an error naming it, nothing returned */
    char h5[700];
    snprintf(h5, sizeof h5, "%s/runs/g1/slow.h5", item);
    ck_assert_int_eq(unlink(h5), 0);
    ck_assert_int_eq(mcb_xp_evaluate(&T.S, item, 1, &R, &err), MCB_E_INPUT);
    ck_assert_ptr_null(R);
    ck_assert_msg(strstr(err.msg, h5) && strstr(err.msg, "missing results"), "%s", err.msg);
    /* an unfinished campaign (its journal only) */
    char jr[800];
    mcb_journal_path(h5, jr, sizeof jr);
    FILE *f = fopen(jr, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(mcb_xp_evaluate(&T.S, item, 1, &R, &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "unfinished campaign"), "%s", err.msg);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", item);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* A solver entry left out (a `needs: gpu` entry without a device): its
 * cells say why and hold no number, its results are not read, every other
 * cell is as without the skip; a time with a reference but nothing
 * published shows its measured ratio (the GPU against all CPU cores). */
START_TEST(table_skipped_entry_says_why)
{
    char item[] = "/tmp/mcb_xpXXXXXX";
    table_spec T;
    mcb_xp_outcome *R0 = evaluated_table(item, &T), *R = NULL;
    mcb_err err;
    enum { TIME, ACC, ITERS, OUT, T2, IFAIL };
    /* other: 5 ms against base's 10 ms, nothing published for t2 */
    ck_assert_double_eq_tol(cell(R0, 3, T2)->mratio, 0.5, 1e-12);
    VERDICT(R0, 3, T2, MCB_XR_NOT_COMPARED);
    /* fast's results are gone: skipped, they are not read */
    char h5[700];
    snprintf(h5, sizeof h5, "%s/runs/g1/fast.h5", item);
    ck_assert_int_eq(unlink(h5), 0);
    const char *skipped[NSOLV] = {NULL, "no GPU: no CUDA-capable device is detected"};
    ck_assert_msg(mcb_xp_evaluate_skipping(&T.S, item, 0, skipped, &R, &err) == MCB_OK, "%s",
                  err.msg);
    ck_assert_int_eq(R->ncells, R0->ncells);
    for (int k = 0; k < R->ncells; k++) {
        const mcb_xp_cell *c = &R->cells[k], *c0 = &R0->cells[k];
        if (c->entry == 1) {
            ck_assert_int_eq(c->ran, 0);
            ck_assert_str_eq(c->skipped, skipped[1]);
            ck_assert_int_eq(c->verdict, MCB_XR_NOT_RUN);
            ck_assert(isnan(c->measured) && isnan(c->mratio));
            continue;
        }
        ck_assert_ptr_null(c->skipped);
        ck_assert_int_eq(c->verdict, c0->verdict);
        ck_assert_int_eq(c->ran, c0->ran);
        ck_assert((isnan(c->measured) && isnan(c0->measured)) || c->measured == c0->measured);
        ck_assert((isnan(c->mratio) && isnan(c0->mratio)) || c->mratio == c0->mratio);
    }
    ck_assert_msg(mcb_xp_set_machine(R, "CPU Test, 2 CPUs online; no GPU", &err) == MCB_OK, "%s",
                  err.msg);
    ck_assert_msg(mcb_xp_write(&T.S, R, item, NULL, &err) == MCB_OK, "%s", err.msg);
    const char *md = slurp(item, "xp-table.md");
    ck_assert_ptr_nonnull(md);
    const char *lines[] = {
        "Machine: CPU Test, 2 CPUs online; no GPU.\n",
        "| fast | time | 5 ms | not run (no GPU: no CUDA-capable device is detected) |  "
        "| not run |\n",
        "| slow | time | 2 ms | 8 ms | 4 (0.8x vs 0.2x) | ordering reproduced |\n",
        "| other | t2 |  | 5 ms | (0.5x, not published) | not compared |\n"};
    for (size_t k = 0; k < sizeof lines / sizeof *lines; k++)
        ck_assert_msg(strstr(md, lines[k]), "Markdown lacks [%s]:\n%s", lines[k], md);
    ck_assert_msg(!strstr(md, "| fast | time | 5 ms | 4 ms"), "%s", md);
    const char *html = slurp(item, "xp-table.html");
    ck_assert_msg(html && strstr(html, "<p>Machine: CPU Test"), "%s", html ? html : "");
    mcb_xp_outcome_free(&R);
    mcb_xp_outcome_free(&R0);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", item);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- figures ----------------------------------------------------------- */

typedef struct {
    mcb_xp_spec S;
    mcb_xp_problems problems[3];
    mcb_xp_solver solvers[2];
    mcb_xp_series series[2];
    char *groups[3];
    mcb_xp_claim claims[6];
} figure_spec;

static void build_figure(figure_spec *F, int curve)
{
    memset(F, 0, sizeof *F);
    mcb_xp_spec *S = &F->S;
    S->path = S_("experiments/xp-fig.yaml");
    S->name = S_(curve ? "xp-curve" : "xp-fig");
    S->title = S_(curve ? "Residual against iteration" : "Time against size");
    S->paper = S_("subadmm");
    S->item = S_("Fig. 2");
    S->kind = MCB_XP_FIGURE;
    S->protocol = MCB_XP_REPLAY;
    S->budget = S->quick_budget = unset_budget();
    static const char *const gid[3] = {"p10", "p20", "p40"};
    static const double gx[3] = {10, 20, 40};
    for (int g = 0; g < 3; g++) {
        F->problems[g].id = S_(gid[g]);
        F->problems[g].scene = S_("stir");
        F->problems[g].has_x = 1;
        F->problems[g].x = gx[g];
        F->groups[g] = S_(gid[g]);
    }
    S->nproblems = 3;
    S->problems = F->problems;
    static const char *const sid[2] = {"lin", "quad"};
    for (int k = 0; k < 2; k++) {
        F->solvers[k].id = S_(sid[k]);
        F->solvers[k].solver = S_("subadmm");
        F->solvers[k].budget = F->solvers[k].quick_budget = unset_budget();
        F->series[k].id = S_(sid[k]);
        F->series[k].label = S_(k ? "quadratic" : "linear");
        F->series[k].solver = S_(sid[k]);
        F->series[k].nproblems = curve ? 1 : 3;
        F->series[k].problems = F->groups;
        F->series[k].fit = !curve;
    }
    S->nsolvers = S->nseries = 2;
    S->solvers = F->solvers;
    S->series = F->series;
    S->x = (mcb_xp_axis){curve ? MCB_XA_ITERATION : MCB_XA_PARAM, {0}, S_("size"), 0};
    S->y = (mcb_xp_axis){0, curve ? quantity(MCB_XQ_RESIDUAL, "residual:natmap", "natmap", 0)
                                  : quantity(MCB_XQ_TIME_MS, "time_ms", NULL, 0),
                         S_("y"), curve};
    if (curve) {
        F->claims[0] = (mcb_xp_claim){0, S_("final"), S_("final residual"), S_("lin"),
                                      quantity(MCB_XQ_Y_FINAL, "y_final", NULL, 0), NULL, NULL,
                                      num(1e-4), {0, 0, 0}};
        F->claims[1] = (mcb_xp_claim){0, S_("at2"), S_("residual at 2"), S_("lin"),
                                      quantity(MCB_XQ_Y_AT, "y_at:2.5", NULL, 2.5), NULL, NULL,
                                      num(1e-5), {0, 0, 0}};
        S->nclaims = 2;
    } else {
        F->claims[0] = (mcb_xp_claim){0, S_("r2"), S_("R^2, linear"), S_("lin"),
                                      quantity(MCB_XQ_FIT_R2, "fit_r2", NULL, 0), S_("R^2"), NULL,
                                      num(0.9993), {0, 0, 0}};
        F->claims[1] = (mcb_xp_claim){0, S_("slope"), S_("slope, quadratic"), S_("quad"),
                                      quantity(MCB_XQ_FIT_SLOPE, "fit_slope", NULL, 0), S_(""),
                                      NULL, num(2), {0, 0, 0}};
        F->claims[2] = (mcb_xp_claim){0, S_("ylin"), S_("linear at 20"), S_("lin"),
                                      quantity(MCB_XQ_Y_AT, "y_at:20", NULL, 20), S_("ms"), NULL,
                                      num(10), {0, 0, 0}};
        F->claims[3] = (mcb_xp_claim){0, S_("yquad"), S_("quadratic at 20"), S_("quad"),
                                      quantity(MCB_XQ_Y_AT, "y_at:20", NULL, 20), S_("ms"),
                                      S_("ylin"), num(4), {0, 0, 0}};
        F->claims[4] = (mcb_xp_claim){0, S_("r2q"), S_("R^2, quadratic"), S_("quad"),
                                      quantity(MCB_XQ_FIT_R2, "fit_r2", NULL, 0), S_("R^2"), NULL,
                                      num(0.9997), {0.001, 0, 0}};
        S->nclaims = 5;
    }
    S->claims = F->claims;
}

START_TEST(figure_points_fit_and_claims)
{
    char item[] = "/tmp/mcb_xfXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(item));
    figure_spec F;
    build_figure(&F, 0);
    static const double gx[3] = {10, 20, 40};
    for (int g = 0; g < 3; g++) {
        run_spec lin[1] = {OK(0.5 * gx[g])}, quad[1] = {OK(0.01 * gx[g] * gx[g])};
        write_pair(item, F.problems[g].id, "lin", lin, 1);
        write_pair(item, F.problems[g].id, "quad", quad, 1);
    }
    mcb_xp_outcome *R = NULL;
    mcb_err err;
    ck_assert_msg(mcb_xp_evaluate(&F.S, item, 0, &R, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(R->nseries, 2);
    const mcb_xp_series_out *lin = &R->series[0], *quad = &R->series[1];
    ck_assert_int_eq(lin->npoints, 3);
    ck_assert_double_eq(lin->x[2], 40);
    ck_assert_double_eq_tol(lin->y[2], 20, 1e-9);
    ck_assert_msg(lin->fitted && fabs(lin->r2 - 1) < 1e-12, "R^2 %.17g", lin->r2);
    ck_assert_double_eq_tol(lin->b, 0.5, 1e-9);
    ck_assert_double_eq_tol(lin->a, 0, 1e-9);
    ck_assert_double_eq_tol(lin->log_slope, 1, 1e-9);
    ck_assert_double_eq_tol(quad->log_slope, 2, 1e-9);
    /* y = 0.01 x^2 at 10, 20, 40: R^2 of the line by hand */
    double xs[3] = {10, 20, 40}, ys[3] = {1, 4, 16}, mx = 70.0 / 3, my = 7, sxy = 0, sxx = 0,
           syy = 0;
    for (int k = 0; k < 3; k++) {
        sxy += (xs[k] - mx) * (ys[k] - my);
        sxx += (xs[k] - mx) * (xs[k] - mx);
        syy += (ys[k] - my) * (ys[k] - my);
    }
    ck_assert_double_eq_tol(quad->r2, sxy * sxy / (sxx * syy), 1e-12);
    ck_assert_int_eq(R->ncells, 5);
    ck_assert_int_eq(R->cells[0].verdict, MCB_XR_REPRODUCED);     /* 1 vs 0.9993 */
    ck_assert_int_eq(R->cells[1].verdict, MCB_XR_REPRODUCED);     /* slope 2 */
    ck_assert_int_eq(R->cells[2].verdict, MCB_XR_REFERENCE);      /* time, referenced */
    ck_assert_int_eq(R->cells[3].verdict, MCB_XR_REPRODUCED);     /* 0.4x vs 0.4x */
    ck_assert_double_eq_tol(R->cells[3].ratio, 1, 1e-9);
    ck_assert_int_eq(R->cells[4].verdict, MCB_XR_NOT_REPRODUCED); /* 0.98 vs 0.9997, band 0.001 */
    ck_assert_str_eq(R->cells[3].unit, "ms");

    /* gnuplot absent: the figure is still written, and says so */
    ck_assert_msg(mcb_xp_write(&F.S, R, item, "/nonexistent/gnuplot", &err) == MCB_OK, "%s",
                  err.msg);
    ck_assert_int_eq(R->plotted, 0);
    char *md = slurp(item, "xp-fig.md");
    ck_assert_ptr_nonnull(md);
    ck_assert_msg(strstr(md, "The plot was not drawn: cannot run /nonexistent/gnuplot"), "%s", md);
    ck_assert_msg(strstr(md, "| linear fit | y = 0 + 0.5 x | R^2 = 1.000000, log-log slope 1 |"),
                  "%s", md);
    ck_assert_msg(strstr(md, "| linear | 40 | 20 |\n"), "%s", md);
    ck_assert_msg(strstr(md, "| claim | series | published | measured | ratio | verdict |\n"),
                  "%s", md);
    ck_assert_msg(strstr(md, "| R^2, linear | linear | 0.9993 R^2 | 1 R^2 | +0.0007 | "
                             "reproduced |\n"), "%s", md);
    ck_assert_msg(exists(item, "xp-fig.dat") && exists(item, "xp-fig.gp") &&
                  exists(item, "xp-fig.csv") && exists(item, "xp-fig.html"), "files");
    char *dat = slurp(item, "xp-fig.dat");
    ck_assert_msg(strstr(dat, "\n10 5 0\n20 10 0\n40 20 0\n"), "%s", dat);
    char *gp = slurp(item, "xp-fig.gp");
    ck_assert_msg(strstr(gp, "'xp-fig.dat' index 1 using 1:2") && strstr(gp, "0.5 * x"),
                  "%s", gp);
    /* gnuplot present: the plots are drawn, the page embeds the SVG */
    if (system("gnuplot --version >/dev/null 2>&1") == 0) {
        ck_assert_msg(mcb_xp_write(&F.S, R, item, NULL, &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(R->plotted, 1);
        ck_assert_msg(exists(item, "xp-fig.svg") && exists(item, "xp-fig.png"), "plots");
        md = slurp(item, "xp-fig.md");
        ck_assert_msg(strstr(md, "![Time against size](xp-fig.svg)"), "%s", md);
        char *html = slurp(item, "xp-fig.html");
        ck_assert_msg(strstr(html, "<img src='xp-fig.svg'"), "%s", html);
    }
    mcb_xp_outcome_free(&R);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", item);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

START_TEST(figure_curves_are_medians_of_traces)
{
    char item[] = "/tmp/mcb_xcXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(item));
    figure_spec F;
    build_figure(&F, 1);
    static const double ta[4] = {1e-1, 1e-2, 1e-3, 1e-4}, tb[4] = {1e-1, 1e-3, 1e-5, 1e-7};
    run_spec runs[2] = {{MCB_ST_SOLVED, 4, 0, 1, 1e-4, NULL, 4, ta, 0, NULL},
                        {MCB_ST_SOLVED, 4, 0, 1, 1e-7, NULL, 4, tb, 0, NULL}};
    write_pair(item, "p10", "lin", runs, 2);
    write_pair(item, "p10", "quad", runs, 1);
    mcb_xp_outcome *R = NULL;
    mcb_err err;
    ck_assert_msg(mcb_xp_evaluate(&F.S, item, 0, &R, &err) == MCB_OK, "%s", err.msg);
    const mcb_xp_series_out *o = &R->series[0];
    ck_assert_int_eq(o->npoints, 4);
    for (int k = 0; k < 4; k++) {
        ck_assert_double_eq(o->x[k], k + 1);
        ck_assert_double_eq_tol(o->y[k], (ta[k] + tb[k]) / 2, 1e-15);
    }
    /* y_final: 5.005e-5 against 1e-4: -0.30 decades; y_at 2.5: iteration 2's 5.5e-3 against
     * 1e-5: 2.74 decades */
    ck_assert_int_eq(R->cells[0].verdict, MCB_XR_REPRODUCED);
    ck_assert_double_eq_tol(R->cells[0].diff, log10(5.005e-5 / 1e-4), 1e-9);
    ck_assert_int_eq(R->cells[1].verdict, MCB_XR_NOT_REPRODUCED);
    ck_assert_double_eq_tol(R->cells[1].measured, 5.5e-3, 1e-15);
    ck_assert_str_eq(R->cells[0].unit, "");
    mcb_xp_outcome_free(&R);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", item);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* ---- a closed loop ------------------------------------------------------ */

START_TEST(closed_loop_per_step)
{
    char item[] = "/tmp/mcb_xlXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(item));
    table_spec T;
    build_table(&T);
    T.S.protocol = MCB_XP_CLOSED_LOOP;
    T.S.nrows = 2;
    T.S.ncols = 2;
    T.cols[1].quantity = quantity(MCB_XQ_NEGLOG, "neglog:fb", "fb", 0);
    mcb_xp_binding cols[2] = {T.cols[0], T.cols[1]};
    T.S.cols = cols;
    mcb_xp_value pub[2][2] = {{num(10), num(5)}, {num(5), dash()}};
    T.rows[0].published = pub[0];
    T.rows[1].published = pub[1];
    T.rows[0].npublished = T.rows[1].npublished = 2;
    /* per step: solve ms, fb. base: steps 2 + 4, 6 + 8 ms over 4 steps = 5 ms; fb 1e-4,
     * 1e-6 -> mean -log10 5. fast: failed in the loop. */
    static const double sa[4] = {2, 1e-4, 4, 1e-6}, sb[4] = {6, 1e-4, 8, 1e-6},
                        sf[2] = {1, 1e-2};
    run_spec base[2] = {{MCB_ST_SOLVED, 0, 0, 0, 1e-6, NULL, 0, NULL, 2, sa},
                        {MCB_ST_SOLVED, 0, 0, 0, 1e-6, NULL, 0, NULL, 2, sb}};
    run_spec fast[1] = {{MCB_ST_FAILED_IN_LOOP, 0, 0, 0, 1e-2, NULL, 0, NULL, 1, sf}};
    write_pair(item, "g1", "base", base, 2);
    write_pair(item, "g1", "fast", fast, 1);
    mcb_xp_outcome *R = NULL;
    mcb_err err;
    ck_assert_msg(mcb_xp_evaluate(&T.S, item, 0, &R, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(R->ncells, 4);
    ck_assert_double_eq_tol(R->cells[0].measured, 5, 1e-9);
    ck_assert_double_eq_tol(R->cells[1].measured, 5, 1e-9);
    ck_assert_int_eq(R->cells[1].verdict, MCB_XR_REPRODUCED);
    ck_assert_int_eq(R->cells[0].verdict, MCB_XR_REFERENCE);
    ck_assert_int_eq(R->cells[2].failed, 1);
    ck_assert_int_eq(R->cells[2].verdict, MCB_XR_NOT_REPRODUCED); /* 5 published, failed */
    ck_assert_int_eq(R->cells[3].verdict, MCB_XR_REPRODUCED);     /* "-" and failed */
    mcb_xp_outcome_free(&R);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", item);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* engine_ms, step_ms, depth_mm and outcome_error: means per step, then
 * over the runs (COND's DT, TT, MP and IE); depth and outcome error
 * compared in decades. */
START_TEST(closed_loop_state_quantities)
{
    char item[] = "/tmp/mcb_xsXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(item));
    table_spec T;
    build_table(&T);
    T.S.protocol = MCB_XP_CLOSED_LOOP;
    T.S.nrows = 1;
    T.S.ncols = 7;
    mcb_xp_binding cols[7] = {T.cols[0], T.cols[0], T.cols[0], T.cols[0],
                              T.cols[0], T.cols[0], T.cols[0]};
    cols[6].quantity = quantity(MCB_XQ_STEP_MS, "step_ms", NULL, 0);
    cols[3].quantity = quantity(MCB_XQ_OUTCOME_END, "outcome_end", NULL, 0);
    cols[4].quantity = quantity(MCB_XQ_OUTCOME_AT, "outcome_at:1", NULL, 1);
    cols[5].quantity = quantity(MCB_XQ_OUTCOME_AT, "outcome_at:2", NULL, 2);
    cols[0].quantity = quantity(MCB_XQ_ENGINE_MS, "engine_ms", NULL, 0);
    cols[1].quantity = quantity(MCB_XQ_DEPTH_MM, "depth_mm", NULL, 0);
    cols[2].quantity = quantity(MCB_XQ_OUTCOME_ERR, "outcome_error", NULL, 0);
    T.S.cols = cols;
    /* published: 3 ms (the reference), 1e-2 mm (0.82 decades from 1.5e-3: within the
     * default band of one decade), 1 (2.3 decades from 5.05e-3: not reproduced) */
    mcb_xp_value pub[7] = {num(3), num(1e-2), num(1), none(), none(), none(), none()};
    T.rows[0].published = pub;
    T.rows[0].npublished = 7;
    static const double sa[4] = {2, 1e-4, 4, 1e-6}, sb[4] = {6, 1e-4, 8, 1e-6};
    run_spec base[2] = {{MCB_ST_SOLVED, 0, 0, 0, 1e-6, NULL, 0, NULL, 2, sa},
                        {MCB_ST_SOLVED, 0, 0, 0, 1e-6, NULL, 0, NULL, 2, sb}};
    write_pair(item, "g1", "base", base, 2);
    mcb_xp_outcome *R = NULL;
    mcb_err err;
    ck_assert_msg(mcb_xp_evaluate(&T.S, item, 0, &R, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(R->ncells, 7);
    /* the total per step: 3 ms of engine and the solver's 2, 4 (run a), 6, 8 (run b) */
    ck_assert_double_eq_tol(R->cells[6].measured, 3 + (2 + 4 + 6 + 8) / 4.0, 1e-12);
    /* after step 1: 1 + 2 (each run's outcome at that step); after step 2: no run has
     * a third step */
    ck_assert_double_eq_tol(R->cells[4].measured, 1.5, 1e-15);
    ck_assert(isnan(R->cells[5].measured));
    /* the outcome after the last step: 1 + 2 in the two runs */
    ck_assert_double_eq_tol(R->cells[3].measured, 1.5, 1e-15);
    ck_assert_double_eq_tol(R->cells[0].measured, 3, 1e-12);
    ck_assert_double_eq_tol(R->cells[1].measured, 1.5e-3, 1e-15);
    ck_assert_double_eq_tol(R->cells[2].measured, 100 * (1e-4 + 1e-6) / 2, 1e-15);
    ck_assert_int_eq(R->cells[1].verdict, MCB_XR_REPRODUCED);
    ck_assert_double_eq_tol(R->cells[1].diff, log10(1.5e-3 / 1e-2), 1e-9);
    ck_assert_int_eq(R->cells[2].verdict, MCB_XR_NOT_REPRODUCED);
    mcb_xp_outcome_free(&R);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", item);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("reproduce");
    TCase *tc = tcase_create("reproduce");
    tcase_add_test(tc, table_verdicts_by_known_answer);
    tcase_add_test(tc, table_skipped_entry_says_why);
    tcase_add_test(tc, figure_points_fit_and_claims);
    tcase_add_test(tc, figure_curves_are_medians_of_traces);
    tcase_add_test(tc, closed_loop_per_step);
    tcase_add_test(tc, closed_loop_state_quantities);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

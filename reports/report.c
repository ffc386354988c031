/* report.c: `mcbench report`: the summary page (index.html) and the
 * orchestration of the others. The summary comes first: the solvers ranked,
 * each over the problems it accepted, by success, then time to tolerance
 * (outcomes.h), under the machine's state during the runs (machine.h) and
 * followed by the speed-up table with its bootstrap intervals (speedup.c);
 * the performance profile over every problem, with its 95% band (a problem a
 * solver does not accept is its failure there, as said under it); one row
 * per problem set linking to its page
 * (page_set.c), whose problem table links to one page per problem
 * (page_problem.c); the problems no solver solved and, folded away, every
 * problem, linked to their pages; the other profiles folded away; how to
 * read it all.
 * Also problems.{csv,md} (one row per problem). Plots are drawn by gnuplot
 * run in the output directory, so plots.gp and the data files name nothing
 * outside it; the header names the results file relative to the output
 * directory, never by a machine-absolute path. Every name read from the
 * results file is escaped where it is written (html.h). index.html is
 * written under a temporary name and appears only when the whole report,
 * plots included, is complete. */
#include "reports/report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/html.h"
#include "lib/mcb_paths.h"
#include "reports/loop_stats.h"
#include "reports/machine.h"
#include "reports/outcomes.h"
#include "reports/plot_difficulty.h"
#include "reports/profile.h"
#include "reports/report_pages.h"
#include "lib/mcb_results.h"

/* ------------------------------------------------------------ file names */

/* Every file of a set is its base name followed by one of these. No
 * suffix is another one preceded by characters a base name may hold
 * ([A-Za-z0-9_-]), so sets with different base names never share a file. */
static const char *const set_suffixes[] = {
    ".dat",         "_table.md",    "_table.csv",   "_iter.png",    "_iter.svg",
    "_time.png",    "_time.svg",    "_pp-time.png", "_pp-time.svg", "_pp-iter.png",
    "_pp-iter.svg", "_dp-time.png", "_dp-time.svg", "_set.html",    ".traces.dat",
    /* a closed-loop set's (page_loop.c) */
    ".loop.dat",    "_loop.md",     "_loop.csv",    "_loop-time.png", "_loop-time.svg",
    "_loop-res.png", "_loop-res.svg", "_loop-pen.png", "_loop-pen.svg", "_loop-div.png",
    "_loop-div.svg"};
/* and per problem BASE_pN.html and BASE_pN.svg (N: its problem_index),
 * which no other suffix preceded by base-name characters can spell */
#define NSUFFIXES (int)(sizeof set_suffixes / sizeof *set_suffixes)
static const char *const report_files[] = {
    "index.html",          "plots.gp",           "gnuplot.log",        "problems.csv",
    "problems.md",         "tiers.csv",          "claims.csv",         "all.sets_tier1.dat",
    "all.sets_tier2.dat",  "all.sets_tier3.dat", "all.sets_tier4.dat"};
#define ALL_SETS_BASE MCB_ALL_SETS_BASE
typedef mcb_base_name base_name;

/* 1 when base is bases[j] for a j < i or, with later, a later set's own
 * base name. */
static int base_taken(const mcb_outcomes *O, const base_name *bases, int i, const char *base,
                      int later)
{
    for (int j = 0; j < O->nsets; j++) {
        base_name own;
        if (j < i && strcmp(bases[j], base) == 0) return 1;
        if (j > i && later) {
            mcb_safe_name(O->sets[j], own, sizeof own);
            if (strcmp(own, base) == 0) return 1;
        }
    }
    return 0;
}

/* Base names of the sets' files: the set's name with every character but
 * [A-Za-z0-9_-] made '_', then "_2", "_3", ... when an earlier set has it
 * (two names differing only in such characters). bases[nsets] is the
 * all-sets base. */
static void assign_bases(const mcb_outcomes *O, base_name *bases)
{
    for (int i = 0; i < O->nsets; i++) {
        base_name own;
        mcb_safe_name(O->sets[i], own, sizeof own);
        snprintf(bases[i], sizeof *bases, "%s", own);
        for (int k = 2; base_taken(O, bases, i, bases[i], k > 2); k++)
            snprintf(bases[i], sizeof *bases, "%.100s_%d", own, k);
    }
    snprintf(bases[O->nsets], sizeof *bases, "%s", ALL_SETS_BASE);
}

/* No file the report writes may be its input. */
static mcb_rc check_targets(const char *input, const char *outdir, const base_name *bases,
                            int nbases, mcb_err *err)
{
    char path[4400];
    for (int k = 0; k < (int)(sizeof report_files / sizeof *report_files); k++) {
        snprintf(path, sizeof path, "%s/%s", outdir, report_files[k]);
        if (mcb_same_file(path, input)) goto clash;
    }
    for (int b = 0; b < nbases; b++)
        for (int k = 0; k < NSUFFIXES; k++) {
            snprintf(path, sizeof path, "%s/%s%s", outdir, bases[b], set_suffixes[k]);
            if (mcb_same_file(path, input)) goto clash;
        }
    return MCB_OK;
clash:
    return mcb_fail(err, MCB_E_INPUT, "-o %s: the report would overwrite its input %s (as %s)",
                    outdir, input, path);
}


/* ------------------------------------------------ problems.csv, problems.md */

enum { FMT_CSV, FMT_MD };

static void cell(FILE *f, int fmt, int first, const char *text)
{
    if (fmt == FMT_CSV) {
        if (!first) fputc(',', f);
        mcb_csv_field(f, text);
    } else {
        fputs(first ? "| " : " | ", f);
        mcb_md_cell(f, text);
    }
}

static void row_end(FILE *f, int fmt)
{
    fputs(fmt == FMT_MD ? " |\n" : "\n", f);
}

static void cell_num(FILE *f, int fmt, double x)
{
    char b[48];
    if (!isfinite(x)) snprintf(b, sizeof b, "%s", fmt == FMT_CSV ? "" : "-");
    else snprintf(b, sizeof b, fmt == FMT_CSV ? "%.6g" : "%.3g", x);
    cell(f, fmt, 0, b);
}

/* One problem: its set, its name, the best solvers (ties separated by
 * spaces; none when no solver solved it), and per solver the status, the
 * time to tolerance (ms) and the ratio to the best. ratio: nsolvers
 * doubles of scratch. */
static void problem_row(FILE *f, int fmt, const mcb_outcomes *O, int p, double *ratio)
{
    int ns = O->nsolvers;
    double best;
    mcb_profile_ratios(O->time_s + (size_t)p * ns, 1, ns, MCB_PROFILE_TIME_FLOOR, &best, ratio);
    char who[1024] = "";
    for (int s = 0; s < ns; s++)
        if (ratio[s] == 1 && strlen(who) + strlen(O->solvers[s]) + 2 < sizeof who)
            snprintf(who + strlen(who), sizeof who - strlen(who), "%s%s", *who ? " " : "",
                     O->solvers[s]);
    cell(f, fmt, 1, O->sets[O->set[p]]);
    cell(f, fmt, 0, O->problem[p]);
    cell(f, fmt, 0, *who ? who : fmt == FMT_CSV ? "" : "none");
    for (int s = 0; s < ns; s++) {
        char st[64];
        mcb_outcome_status_text(O, p, s, st, sizeof st);
        cell(f, fmt, 0, st);
        cell_num(f, fmt, 1e3 * O->time_s[(size_t)p * ns + s]);
        cell_num(f, fmt, ratio[s]);
    }
    row_end(f, fmt);
}

static mcb_rc write_problem_files(const char *outdir, const mcb_outcomes *O, mcb_err *err)
{
    double *ratio = mcb_malloc((size_t)O->nsolvers, sizeof *ratio);
    if (!ratio) return mcb_fail(err, MCB_E_NOMEM, "per-problem table: out of memory");
    FILE *f[2] = {mcb_report_open(outdir, "problems", ".csv", err), NULL};
    if (f[0]) f[1] = mcb_report_open(outdir, "problems", ".md", err);
    mcb_rc rc = f[0] && f[1] ? MCB_OK : MCB_E_IO;
    for (int fmt = FMT_CSV; fmt <= FMT_MD && !rc; fmt++) {
        FILE *o = f[fmt];
        cell(o, fmt, 1, "set");
        cell(o, fmt, 0, "problem");
        cell(o, fmt, 0, "best");
        for (int s = 0; s < O->nsolvers; s++) {
            static const char *const col[2][3] = {{"_status", "_time_ms", "_ratio"},
                                                  {" status", " time (ms)", " ratio"}};
            for (int c = 0; c < 3; c++) {
                char h[300];
                snprintf(h, sizeof h, "%.200s%s", O->solvers[s], col[fmt][c]);
                cell(o, fmt, 0, h);
            }
        }
        row_end(o, fmt);
        if (fmt == FMT_MD) {
            fputs("|---|---|---|", o);
            for (int s = 0; s < O->nsolvers; s++) fputs("---|---|---|", o);
            fputs("\n", o);
        }
        for (int p = 0; p < O->nproblems; p++) problem_row(o, fmt, O, p, ratio);
    }
    for (int k = 0; k < 2; k++)
        if (f[k] && fclose(f[k]) != 0 && !rc)
            rc = mcb_fail(err, MCB_E_IO, "%s/problems%s: cannot write", outdir,
                          k ? ".md" : ".csv");
    free(ratio);
    return rc;
}

/* --------------------------------------------------------------- index.html */

/* A link to `target` named relative to the output directory, shown by its
 * base name; when no relative name exists, the base name alone. */
static void html_file_link(FILE *html, const char *outdir, const char *target)
{
    char rel[4200];
    const char *slash = strrchr(target, '/');
    const char *shown = slash && slash[1] ? slash + 1 : target;
    if (mcb_path_relative(outdir, target, rel, sizeof rel) != 0) {
        fputs("<code>", html);
        mcb_html_escape(html, shown);
        fputs("</code>", html);
        return;
    }
    fputs("<a href='", html);
    mcb_url_escape(html, rel);
    fputs("'><code>", html);
    mcb_html_escape(html, shown);
    fputs("</code></a>", html);
}

static void write_context(FILE *html, const mcb_results_data *D, const char *results_path,
                          const char *outdir)
{
    fputs("<p class='meta'>Results ", html);
    html_file_link(html, outdir, results_path);
    char csv[4200];
    mcb_path_with_ext(results_path, ".csv", csv, sizeof csv);
    if (access(csv, R_OK) == 0) {
        fputs(" (and ", html);
        html_file_link(html, outdir, csv);
        fputs(")", html);
    }
    if (!D->complete) fputs(", <b>an unfinished campaign (its journal)</b>", html);
    fputs(". Run on ", html);
    mcb_html_escape(html, D->date ? D->date : "?");
    fputs(", revision ", html);
    mcb_html_escape(html, D->git_revision ? D->git_revision : "?");
    fputs(", CPU ", html);
    mcb_html_escape(html, D->cpu_model ? D->cpu_model : "?");
    fputs(", compiler ", html);
    mcb_html_escape(html, D->compiler ? D->compiler : "?");
    fprintf(html, ", %d thread(s). Budget for every solver: %d iterations, %g s wall time "
                  "(setup included), tolerance %g on the harness&#39;s <b>",
            D->threads, D->max_iters, D->time_limit_s, D->tol);
    mcb_html_escape(html, D->stop_metric);
    static const char *const starts[] = {
        "from zero", "from the problems' recorded guesses",
        "each step from the same solver's solution of the previous step"};
    fprintf(html, "</b> residual. Warm start <b>%s</b>: %s.</p>\n", mcb_warm_name(D->warm_start),
            D->warm_start >= 0 && D->warm_start < MCB_NWARM ? starts[D->warm_start] : "unknown");
}

/* 1 when some solver solved problem p. */
static int solved_by_any(const mcb_outcomes *O, int p)
{
    for (int s = 0; s < O->nsolvers; s++)
        if (isfinite(O->time_s[(size_t)p * O->nsolvers + s])) return 1;
    return 0;
}

/* One row per set: its page (marked when its runs are closed-loop runs),
 * its problems, those no solver solved, and the solver ranked first on it. */
static mcb_rc sets_table(FILE *html, const mcb_report_ctx *C, mcb_err *err)
{
    const mcb_outcomes *O = C->O;
    const base_name *bases = C->bases;
    int ns = O->nsolvers;
    int *order = mcb_malloc((size_t)ns + 1, sizeof *order);
    int *solved = mcb_malloc((size_t)ns + 1, sizeof *solved);
    int *accepted = mcb_malloc((size_t)ns + 1, sizeof *accepted);
    double *med = mcb_malloc((size_t)ns + 1, sizeof *med);
    mcb_rc rc = order && solved && accepted && med
                    ? MCB_OK
                    : mcb_fail(err, MCB_E_NOMEM, "sets table: out of memory");
    if (!rc)
        fputs("<div class='tw'><table class='sortable sets'><thead><tr><th>problem set</th>"
              "<th class='n'>problems</th><th class='n'>solved by no solver</th>"
              "<th>first in its ranking</th></tr></thead><tbody>\n", html);
    for (int set = 0; set < O->nsets && !rc; set++) {
        int np = 0, unsolved = 0;
        for (int p = 0; p < O->nproblems; p++)
            if (O->set[p] == set) {
                np++;
                unsolved += !solved_by_any(O, p);
            }
        if ((rc = mcb_outcomes_rank(O, set, order, solved, accepted, med, err))) break;
        fputs("<tr><td><a href='", html);
        mcb_url_escape(html, bases[set]);
        fputs("_set.html'>", html);
        mcb_html_escape(html, O->sets[set]);
        fputs(mcb_loop_any(C->D, O->sets[set]) ? "</a> (closed loop)" : "</a>", html);
        fprintf(html, "</td><td class='n'>%d</td><td class='n%s'>%d</td><td>", np,
                unsolved ? " bad" : "", unsolved);
        int s = order[0];
        mcb_html_escape(html, O->solvers[s]);
        fprintf(html, " (%d/%d solved, accepted %d of %d)</td></tr>\n", solved[s], accepted[s],
                accepted[s], np);
    }
    if (!rc) fputs("</tbody></table></div>\n", html);
    free(order);
    free(solved);
    free(accepted);
    free(med);
    return rc;
}

/* A link to problem p's page, named by the problem. */
static void problem_link(const mcb_report_ctx *C, FILE *html, int p)
{
    char page[300];
    mcb_problem_page_name(C, p, page, sizeof page);
    fputs("<a href='", html);
    mcb_url_escape(html, page);
    fputs(".html'>", html);
    mcb_html_escape(html, C->O->problem[p]);
    fputs("</a>", html);
}

/* The problems no solver solved (linked), then every problem by set,
 * folded away. */
static void problem_lists(const mcb_report_ctx *C, FILE *html, int unsolved)
{
    const mcb_outcomes *O = C->O;
    if (unsolved) {
        fprintf(html, "<details%s><summary>Solved by no solver (%d): their pages</summary><p>",
                unsolved <= 20 ? " open" : "", unsolved);
        int k = 0;
        for (int p = 0; p < O->nproblems; p++) {
            if (solved_by_any(O, p)) continue;
            fputs(k++ ? " &middot; " : "", html);
            mcb_html_escape(html, O->sets[O->set[p]]);
            fputs(": ", html);
            problem_link(C, html, p);
        }
        fputs("</p></details>\n", html);
    }
    fprintf(html, "<details><summary>Every problem (%d): its page, by set</summary>\n",
            O->nproblems);
    for (int set = 0; set < O->nsets; set++) {
        fputs("<p><b>", html);
        mcb_html_escape(html, O->sets[set]);
        fputs("</b>: ", html);
        int k = 0;
        for (int p = 0; p < O->nproblems; p++)
            if (O->set[p] == set) {
                fputs(k++ ? " &middot; " : "", html);
                problem_link(C, html, p);
            }
        fputs("</p>\n", html);
    }
    fputs("</details>\n", html);
}

static const char how_to_read[] =
    "<details><summary>How to read this report</summary>\n"
    "<p>Every residual is recomputed by the harness from the returned solution; solver time "
    "excludes measurement. A solver <b>solves</b> a problem when its run ends "
    "<code>solved</code>; with repetitions, the time to tolerance (setup + solve) and the "
    "iterations of (problem, solver) are medians over the repetitions, a repetition that did "
    "not solve counting as infinite, so the pair counts as solved when more than half of them "
    "did.</p>\n"
    "<p><b>Performance profiles</b> (Dolan and Mor&eacute; 2002): for each solver, the "
    "fraction of the problems it solved within a factor tau of the best solver on each "
    "problem, against log2(tau); at log2(tau) = 0, the fraction on which it was the best "
    "(ties count for every tied solver), on the right the fraction it solved at all. Every "
    "problem counts in the denominator, those no solver solved included, and a problem a "
    "solver does not accept (its run ended <code>skipped</code>) is a failure of that solver "
    "there; the ranking instead compares each solver over the problems it accepted. The <b>data "
    "profile</b>: the fraction of the problems solved within a time to tolerance, against "
    "that time. Times below %g s and iteration counts below %g are raised to those "
    "floors.</p>\n"
    "<p><b>Convergence plots</b> (on each set's page): at each iteration, the median and the "
    "quartiles of the residual over the runs <em>still going</em> at that iteration, and "
    "their count on the right axis. Runs that stopped, solved or not, leave the statistics: "
    "the median does not flatten into the plateau of runs that ended; when the count falls, "
    "the curve describes fewer and harder problems.</p>\n</details>\n";

static const char how_to_read_loop[] =
    "<details><summary>How to read the closed-loop sets</summary>\n"
    "<p>In a set marked <b>closed loop</b> (<code>mcbench simulate</code>) each solver drove "
    "the scene itself under the per-step budget, every step judged by the harness as a "
    "replay run is. A run counts as <b>solved</b> when it completed every step, with its "
    "solver time summed over the steps as its time; a run stopped as "
    "<code>failed-in-loop</code> failed. The set&#39;s page has the outcome table (steps "
    "completed, the first failing step and its reason, the mean solver time per step AT and "
    "the mean natural-map residual AA as in SubADMM&#39;s Table I, penetration, energy gain, "
    "divergence from the reference trajectory, the scene&#39;s outcome, the engine&#39;s "
    "time per step; &quot;-&quot; for a solver that completed no run) and the per-step "
    "curves: at each step, the median over the runs still going.</p>\n</details>\n";

static mcb_rc write_index(const mcb_report_ctx *C, FILE *html, const char *results_path,
                          double shift_s, mcb_err *err)
{
    const mcb_outcomes *O = C->O;
    int unsolved = 0;
    for (int p = 0; p < O->nproblems; p++) unsolved += !solved_by_any(O, p);
    mcb_html_begin(html, "mcbench report", NULL);
    write_context(html, C->D, results_path, C->outdir);
    mcb_html_machine(html, C->D);
    fputs("<h2>Summary</h2>\n", html);
    fprintf(html, "<p>%d problem%s in %d set%s, %d solver%s; ", O->nproblems,
            O->nproblems == 1 ? "" : "s", O->nsets, O->nsets == 1 ? "" : "s", O->nsolvers,
            O->nsolvers == 1 ? "" : "s");
    if (unsolved) fprintf(html, "<b>%d solved by no solver</b>.</p>\n", unsolved);
    else fputs("each solved by at least one solver.</p>\n", html);
    mcb_rc rc = mcb_html_ranking(html, O, -1, err);
    if (!rc) rc = mcb_html_speedup(html, C, -1, err);
    if (rc) return rc;
    mcb_html_figure(html, ALL_SETS_BASE, "_pp-time", "performance profile over every problem",
                    "Performance profile of the time to tolerance over every problem: the "
                    "fraction of the problems each solver solved within a factor tau of the "
                    "best solver's time; higher and further left is better. " MCB_REFUSAL_NOTE);
    fputs("<h2>Problem sets</h2>\n<p class='meta'>Each set's page has its convergence plots, "
          "its solver table and one row per problem, linking to the problem's page.</p>\n",
          html);
    if ((rc = sets_table(html, C, err))) return rc;
    if ((rc = mcb_report_tiers(C, html, shift_s, err))) return rc;
    if ((rc = mcb_report_claims(C, html, err))) return rc;
    problem_lists(C, html, unsolved);
    if ((rc = mcb_plot_difficulty(html, C->gp, C->outdir, C->D, O, err))) return rc;
    mcb_html_more_profiles(html, ALL_SETS_BASE, " over every problem");
    fputs("<h2>Files</h2>\n<p>Every problem: ", html);
    mcb_html_link(html, "problems", ".csv", "CSV");
    fputs(" | ", html);
    mcb_html_link(html, "problems", ".md", "Markdown");
    fputs(" | plots redrawn by <code>gnuplot plots.gp</code> in this directory: ", html);
    mcb_html_link(html, "plots", ".gp", "plots.gp");
    fputs("</p>\n", html);
    fprintf(html, how_to_read, MCB_PROFILE_TIME_FLOOR, MCB_PROFILE_ITER_FLOOR);
    if (mcb_loop_any(C->D, NULL)) fputs(how_to_read_loop, html);
    mcb_html_end(html);
    return MCB_OK;
}

/* The profiles over every set, into all.sets.dat and plots.gp. */
static mcb_rc write_all_sets(const mcb_report_ctx *C, mcb_err *err)
{
    FILE *dat = mcb_report_open(C->outdir, ALL_SETS_BASE, ".dat", err);
    if (!dat) return MCB_E_IO;
    int np, unsolved;
    mcb_rc rc = mcb_plot_profiles(C, dat, 0, ALL_SETS_BASE, "every problem", -1, &np, &unsolved,
                                  err);
    if (fclose(dat) != 0 && !rc)
        rc = mcb_fail(err, MCB_E_IO, "%s/%s.dat: cannot write", C->outdir, ALL_SETS_BASE);
    return rc;
}


mcb_rc mcb_report(const char *results_path, const char *outdir, const char *gnuplot,
                  mcb_err *err)
{
    return mcb_report_shift(results_path, outdir, gnuplot, MCB_SGM_SHIFT_S, err);
}

mcb_rc mcb_report_shift(const char *results_path, const char *outdir, const char *gnuplot,
                        double sgm_shift_s, mcb_err *err)
{
    struct stat st;
    if (stat(outdir, &st) == 0 && !S_ISDIR(st.st_mode))
        return mcb_fail(err, MCB_E_INPUT, "-o %s: exists and is not a directory", outdir);
    mcb_results_data *D = NULL;
    mcb_rc rc = mcb_results_read(results_path, &D, err);
    if (rc) return rc;
    mcb_outcomes O;
    base_name *bases = NULL;
    FILE *html = NULL, *gp = NULL;
    char html_tmp[64], html_path[4200];
    html_path[0] = '\0';
    if ((rc = mcb_outcomes_build(D, &O, err))) goto done;
    if (O.nproblems == 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: no runs to report", results_path);
        goto done;
    }
    if (!(bases = mcb_malloc((size_t)O.nsets + 1, sizeof *bases))) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    assign_bases(&O, bases);
    if ((rc = check_targets(results_path, outdir, bases, O.nsets + 1, err)) ||
        (rc = mcb_mkdirs(outdir, err)))
        goto done;
    int col = 2 + mcb_metric_from_name(D->stop_metric);
    if (col < 2) col = 2 + MCB_M_NATMAP;
    snprintf(html_tmp, sizeof html_tmp, "index.html.partial%ld", (long)getpid());
    snprintf(html_path, sizeof html_path, "%s/%s", outdir, html_tmp);
    if (mcb_tmp_register(html_path) == 0) html = mcb_report_open(outdir, html_tmp, "", err);
    else mcb_fail(err, MCB_E_IO, "%s: too many temporary files", html_path);
    gp = html ? mcb_report_open(outdir, "plots", ".gp", err) : NULL;
    if (!gp) {
        rc = MCB_E_IO;
        goto done;
    }
    mcb_report_ctx C = {outdir, D, &O, (const mcb_base_name *)bases, col, gp};
    rc = write_problem_files(outdir, &O, err);
    for (int s = 0; s < O.nsets && !rc; s++) {
        rc = mcb_page_set(&C, s, err);
        if (!rc) rc = mcb_pages_problems(&C, s, err);
    }
    if (!rc) rc = write_all_sets(&C, err);
    if (!rc) rc = write_index(&C, html, results_path, sgm_shift_s, err);
    int closed = fclose(html) == 0;
    closed &= fclose(gp) == 0;
    html = gp = NULL;
    if (!rc && !closed) rc = mcb_fail(err, MCB_E_IO, "%s: cannot write", html_path);
    if (!rc) rc = mcb_run_gnuplot(outdir, gnuplot, "plots.gp", "gnuplot.log", err);
    char final_path[4200];
    snprintf(final_path, sizeof final_path, "%s/index.html", outdir);
    if (!rc && rename(html_path, final_path) != 0)
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot move into place (%s)", final_path,
                      strerror(errno));
done:
    if (html) fclose(html);
    if (gp) fclose(gp);
    if (html_path[0]) {
        if (rc) unlink(html_path);
        mcb_tmp_unregister(html_path);
    }
    free(bases);
    mcb_outcomes_free(&O);
    mcb_results_data_free(&D);
    return rc;
}

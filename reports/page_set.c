/* page_set.c: one page per problem set, BASE_set.html: the solvers ranked
 * on the set, its performance profile, the convergence plots (median and
 * quartiles over the runs still going, and their count), the solver table
 * (the most read columns first, the others folded away; also as
 * BASE_table.md and BASE_table.csv), the other profiles, and one row per
 * problem linking to the problem's page; for a set of closed-loop runs,
 * the closed-loop section after the ranking (page_loop.c). The curves' and
 * the profiles' data go to BASE.dat. Fails on a file that cannot be
 * written or out of memory, with every file it opened closed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/html.h"
#include "reports/loop_stats.h"
#include "reports/profile.h"
#include "reports/report_pages.h"

typedef struct {
    int runs, solved, skipped;
    double med_iters, med_setup_ms, med_solve_ms, spread, res[4];
    double min_solve_ms; /* median over problems of the fastest repetition */
    double us_per_iter;  /* median solve time per iteration (microseconds) */
    double to_ms[2];     /* median solver time to reach 1e-6 and 1e-8 (runs that did) */
    int reached[2];
} row_stats;

static const double thresholds[2] = {1e-6, 1e-8};
static const int table_metrics[4] = {MCB_M_NATMAP, MCB_M_FB, MCB_M_ZRES, MCB_M_DYN_REL};

/* Solver time at the first traced iteration where column col <= thr. */
static double time_to(const mcb_run_rec *r, int col, double thr)
{
    for (int k = 0; k < r->trace_rows; k++) {
        const double *row = r->trace + (size_t)k * MCB_TRACE_COLS;
        if (row[col] <= thr) return row[1];
    }
    return NAN;
}

/* buf: 2 (count + 1) doubles of scratch. */
static void solver_stats(const mcb_results_data *D, const char *set, const char *solver,
                         int col, row_stats *st, double *buf)
{
    memset(st, 0, sizeof *st);
    int c;
#define COLLECT(expr, filter)                                                      \
    c = 0;                                                                         \
    for (int k = 0; k < D->count; k++) {                                           \
        const mcb_run_rec *r = &D->runs[k];                                        \
        if (strcmp(r->problem_set, set) || strcmp(r->solver, solver) || !(filter)) \
            continue;                                                              \
        buf[c++] = (expr);                                                         \
    }
    for (int k = 0; k < D->count; k++) {
        const mcb_run_rec *r = &D->runs[k];
        if (strcmp(r->problem_set, set) || strcmp(r->solver, solver) || r->rep) continue;
        if (r->status == MCB_ST_SKIPPED) st->skipped++;
        else st->runs++;
        st->solved += r->status == MCB_ST_SOLVED;
    }
    COLLECT((double)r->iterations, r->rep == 0 && r->status != MCB_ST_SKIPPED);
    st->med_iters = mcb_median(buf, c);
    COLLECT(1e3 * r->setup_s, r->status != MCB_ST_SKIPPED);
    st->med_setup_ms = mcb_median(buf, c);
    COLLECT(1e3 * r->solve_s, r->status != MCB_ST_SKIPPED);
    st->med_solve_ms = mcb_median(buf, c);
    for (int m = 0; m < 4; m++) {
        COLLECT(r->final.val[table_metrics[m]], r->rep == 0 && r->status != MCB_ST_SKIPPED);
        st->res[m] = mcb_median(buf, c);
    }
    /* Per problem, over its repetitions: the fastest solve time and the spread
     * (max - min) / median; each then summarised by its median over problems. */
    double *lo_ms = buf + D->count + 1;
    c = 0;
    for (int k = 0; k < D->count; k++) {
        const mcb_run_rec *r = &D->runs[k];
        if (strcmp(r->problem_set, set) || strcmp(r->solver, solver) || r->rep != 0 ||
            r->status == MCB_ST_SKIPPED)
            continue;
        double lo = INFINITY, hi = -INFINITY, t[256];
        int nt = 0;
        for (int q = 0; q < D->count && nt < 256; q++) {
            const mcb_run_rec *s = &D->runs[q];
            if (strcmp(s->problem_set, set) || strcmp(s->solver, solver) ||
                s->problem_index != r->problem_index)
                continue;
            t[nt++] = s->solve_s;
            if (s->solve_s < lo) lo = s->solve_s;
            if (s->solve_s > hi) hi = s->solve_s;
        }
        double md = mcb_median(t, nt);
        lo_ms[c] = 1e3 * lo;
        buf[c++] = nt > 1 && md > 0 ? (hi - lo) / md : NAN;
    }
    st->spread = mcb_median(buf, c);
    st->min_solve_ms = mcb_median(lo_ms, c);
    COLLECT(r->iterations > 0 ? 1e6 * r->solve_s / r->iterations : NAN,
            r->rep == 0 && r->status != MCB_ST_SKIPPED);
    st->us_per_iter = mcb_median(buf, c);
    for (int t = 0; t < 2; t++) {
        COLLECT(1e3 * time_to(r, col, thresholds[t]), r->rep == 0 && r->status != MCB_ST_SKIPPED);
        st->reached[t] = 0;
        for (int k = 0; k < c; k++) st->reached[t] += !isnan(buf[k]);
        st->to_ms[t] = mcb_median(buf, c);
    }
#undef COLLECT
}

/* The table's columns: header, and whether the HTML page folds it away.
 * runs: the first repetitions not skipped (the problems the solver
 * accepted); success: solved / runs. */
enum { NCOLS = 16 };
static const struct {
    const char *head;
    int folded;
} cols[NCOLS] = {
    {"runs (accepted)", 0},   {"solved", 0},           {"skipped", 0},
    {"success (of accepted)", 0}, {"median iterations", 0}, {"median setup (ms)", 1},
    {"median solve (ms)", 0}, {"min solve (ms)", 1},   {"median natmap", 1},
    {"median fb", 1},         {"median zres", 1},      {"median dyn_rel", 1},
    {"rep spread", 1},        {"time/iter (us)", 1},   {"to 1e-6 (ms)", 0},
    {"to 1e-8 (ms)", 0}};

static void stats_cells(const row_stats *st, char f[NCOLS][48])
{
    double rate = st->runs ? (double)st->solved / st->runs : NAN;
    snprintf(f[0], 48, "%d", st->runs);
    snprintf(f[1], 48, "%d", st->solved);
    snprintf(f[2], 48, "%d", st->skipped);
    if (isnan(rate)) snprintf(f[3], 48, "-");
    else snprintf(f[3], 48, "%.0f%%", 100 * rate);
    mcb_fmt_num(f[4], 48, st->med_iters);
    mcb_fmt_num(f[5], 48, st->med_setup_ms);
    mcb_fmt_num(f[6], 48, st->med_solve_ms);
    mcb_fmt_num(f[7], 48, st->min_solve_ms);
    for (int m = 0; m < 4; m++) mcb_fmt_num(f[8 + m], 48, st->res[m]);
    mcb_fmt_num(f[12], 48, st->spread);
    mcb_fmt_num(f[13], 48, st->us_per_iter);
    for (int t = 0; t < 2; t++) {
        char num[32];
        mcb_fmt_num(num, sizeof num, st->to_ms[t]);
        snprintf(f[14 + t], 48, "%s (%d/%d)", num, st->reached[t], st->runs);
    }
}

/* One HTML table of the columns with folded == `folded`. */
static void html_stats_table(FILE *html, const char **solvers, int ns, char (*f)[NCOLS][48],
                             int folded)
{
    fputs("<div class='tw'><table class='sortable'><thead><tr><th>solver</th>", html);
    for (int c = 0; c < NCOLS; c++)
        if (cols[c].folded == folded) fprintf(html, "<th class='n'>%s</th>", cols[c].head);
    fputs("</tr></thead><tbody>\n", html);
    for (int s = 0; s < ns; s++) {
        fputs("<tr><td>", html);
        mcb_html_escape(html, solvers[s]);
        fputs("</td>", html);
        for (int c = 0; c < NCOLS; c++)
            if (cols[c].folded == folded) {
                fputs("<td class='n'>", html);
                mcb_html_escape(html, f[s][c]);
                fputs("</td>", html);
            }
        fputs("</tr>\n", html);
    }
    fputs("</tbody></table></div>\n", html);
}

static mcb_rc write_tables(const mcb_report_ctx *C, int set, FILE *md, FILE *csv, FILE *html,
                           mcb_err *err)
{
    const mcb_results_data *D = C->D;
    const mcb_outcomes *O = C->O;
    int ns = O->nsolvers;
    double *buf = mcb_malloc(2 * ((size_t)D->count + 1), sizeof(double));
    char(*f)[NCOLS][48] = mcb_malloc((size_t)ns + 1, sizeof *f);
    if (!buf || !f) {
        free(buf);
        free(f);
        return mcb_fail(err, MCB_E_NOMEM, "%s: solver table: out of memory", O->sets[set]);
    }
    fputs("# ", md);
    mcb_md_cell(md, O->sets[set]);
    fputs("\n\n| solver |", md);
    for (int c = 0; c < NCOLS; c++) fprintf(md, " %s |", cols[c].head);
    fputs("\n|---|", md);
    for (int c = 0; c < NCOLS; c++) fputs("---|", md);
    fputs("\n", md);
    fprintf(csv, "solver,runs,solved,skipped,success_rate,median_iterations,median_setup_ms,"
                 "median_solve_ms,min_solve_ms,median_natmap,median_fb,median_zres,median_dyn_rel,"
                 "rep_spread,us_per_iter,ms_to_1e-6,reached_1e-6,ms_to_1e-8,reached_1e-8\n");
    for (int s = 0; s < ns; s++) {
        row_stats st;
        solver_stats(D, O->sets[set], O->solvers[s], C->col, &st, buf);
        stats_cells(&st, f[s]);
        fputs("| ", md);
        mcb_md_cell(md, O->solvers[s]);
        for (int c = 0; c < NCOLS; c++) fprintf(md, " | %s", f[s][c]);
        fputs(" |\n", md);
        mcb_csv_field(csv, O->solvers[s]);
        fprintf(csv, ",%d,%d,%d,%s", st.runs, st.solved, st.skipped,
                st.runs ? f[s][3] : "nan");
        for (int c = 4; c < 14; c++) fprintf(csv, ",%s", f[s][c]);
        fprintf(csv, ",%.6g,%d,%.6g,%d\n", st.to_ms[0], st.reached[0], st.to_ms[1],
                st.reached[1]);
    }
    html_stats_table(html, O->solvers, ns, f, 0);
    fputs("<details><summary>More columns: setup time, fastest repetition, final "
          "residuals, spread over repetitions, time per iteration</summary>\n", html);
    html_stats_table(html, O->solvers, ns, f, 1);
    fputs("</details>\n", html);
    free(buf);
    free(f);
    return MCB_OK;
}

/* The ranking's rule, under every ranking table (docs/reports.md). */
static const char ranking_rule[] =
    "<p class='meta'>Each solver is ranked over the problems it <b>accepted</b> (a run that "
    "ended <code>skipped</code>, the solver cannot take the problem&#39;s form or law, is not "
    "accepted): by the fraction of those it solved, higher first; then by the problems "
    "solved, more first; then by the median time to tolerance (setup + solve) over the "
    "problems it solved, less first; a solver that accepted nothing comes last. With "
    "repetitions, a problem counts as solved when more than half of them solved it.</p>\n";

mcb_rc mcb_html_ranking(FILE *html, const mcb_outcomes *O, int set, mcb_err *err)
{
    int ns = O->nsolvers, np = 0;
    int *order = mcb_malloc((size_t)ns + 1, sizeof *order);
    int *solved = mcb_malloc((size_t)ns + 1, sizeof *solved);
    int *accepted = mcb_malloc((size_t)ns + 1, sizeof *accepted);
    double *med = mcb_malloc((size_t)ns + 1, sizeof *med);
    double *it = mcb_malloc((size_t)O->nproblems + 1, sizeof *it);
    mcb_rc rc = order && solved && accepted && med && it
                    ? MCB_OK
                    : mcb_fail(err, MCB_E_NOMEM, "ranking: out of memory");
    if (!rc) rc = mcb_outcomes_rank(O, set, order, solved, accepted, med, err);
    for (int p = 0; p < O->nproblems && !rc; p++) np += set < 0 || O->set[p] == set;
    if (!rc) {
        fputs("<div class='tw'><table class='sortable ranking'><thead><tr><th class='n'>rank</th>"
              "<th>solver</th><th class='n'>solved / accepted</th>"
              "<th class='n'>accepted / problems</th><th class='n'>success (of accepted)</th>"
              "<th class='n'>median time to tolerance (ms)</th>"
              "<th class='n'>median iterations</th></tr></thead><tbody>\n", html);
        for (int k = 0; k < ns; k++) {
            int s = order[k], n = 0;
            for (int p = 0; p < O->nproblems; p++) {
                double v = O->iters[(size_t)p * ns + s];
                if ((set < 0 || O->set[p] == set) && isfinite(v)) it[n++] = v;
            }
            char t[48], i[48], rate[16];
            mcb_fmt_num(t, sizeof t, 1e3 * med[s]);
            mcb_fmt_num(i, sizeof i, mcb_median(it, n));
            if (accepted[s]) snprintf(rate, sizeof rate, "%.0f%%", 100.0 * solved[s] / accepted[s]);
            else snprintf(rate, sizeof rate, "-");
            fprintf(html, "<tr><td class='n'>%d</td><td>", k + 1);
            mcb_html_escape(html, O->solvers[s]);
            fprintf(html, "</td><td class='n'>%d/%d</td><td class='n'>%d of %d</td>"
                          "<td class='n' data-v='%.9g'>%s</td>"
                          "<td class='n' data-v='%.9g'>%s</td><td class='n'>%s</td></tr>\n",
                    solved[s], accepted[s], accepted[s], np,
                    accepted[s] ? (double)solved[s] / accepted[s] : -1.0, rate,
                    isfinite(med[s]) ? med[s] : 1e300, t, i);
        }
        fputs("</tbody></table></div>\n", html);
        fputs(ranking_rule, html);
    }
    free(order);
    free(solved);
    free(accepted);
    free(med);
    free(it);
    return rc;
}

/* One row per problem of the set: its page, the best solvers, and per
 * solver the time to tolerance with its ratio to the best, or the status. */
static mcb_rc problem_table(const mcb_report_ctx *C, FILE *html, int set, mcb_err *err)
{
    const mcb_outcomes *O = C->O;
    int ns = O->nsolvers;
    double *ratio = mcb_malloc((size_t)ns + 1, sizeof *ratio);
    if (!ratio) return mcb_fail(err, MCB_E_NOMEM, "%s: problem table: out of memory",
                                O->sets[set]);
    fputs("<div class='tw'><table class='sortable problems'><thead><tr><th>problem</th>"
          "<th>best</th>", html);
    for (int s = 0; s < ns; s++) {
        fputs("<th class='n'>", html);
        mcb_html_escape(html, O->solvers[s]);
        fputs("</th>", html);
    }
    fputs("</tr></thead><tbody>\n", html);
    for (int p = 0; p < O->nproblems; p++) {
        if (O->set[p] != set) continue;
        double best;
        mcb_profile_ratios(O->time_s + (size_t)p * ns, 1, ns, MCB_PROFILE_TIME_FLOOR, &best,
                           ratio);
        char page[300];
        mcb_problem_page_name(C, p, page, sizeof page);
        fputs("<tr><td><a href='", html);
        mcb_url_escape(html, page);
        fputs(".html'>", html);
        mcb_html_escape(html, O->problem[p]);
        fputs("</a></td><td>", html);
        int any = 0;
        for (int s = 0; s < ns; s++)
            if (ratio[s] == 1) {
                fputs(any++ ? " " : "", html);
                mcb_html_escape(html, O->solvers[s]);
            }
        fputs(any ? "</td>" : "none</td>", html);
        for (int s = 0; s < ns; s++) {
            double t = O->time_s[(size_t)p * ns + s];
            if (isfinite(t)) {
                fprintf(html, "<td class='n ok%s' data-v='%.9g'>%.3g ms &times;%.3g</td>",
                        ratio[s] == 1 ? " best" : "", t, 1e3 * t, ratio[s]);
            } else {
                char st[64];
                mcb_outcome_status_text(O, p, s, st, sizeof st);
                fputs("<td class='n bad' data-v='1e300'>", html);
                mcb_html_escape(html, st);
                fputs("</td>", html);
            }
        }
        fputs("</tr>\n", html);
    }
    fputs("</tbody></table></div>\n", html);
    free(ratio);
    return MCB_OK;
}

/* loop: the set's runs are closed-loop runs, without traces: the
 * convergence plots, which would be empty, give way to the per-step curves
 * of the closed-loop section. */
static void set_page_body(const mcb_report_ctx *C, FILE *html, int set, int np, int unsolved,
                          int loop)
{
    const char *base = C->bases[set];
    fprintf(html, "<p class='meta'>%d problem%s; ", np, np == 1 ? "" : "s");
    if (unsolved)
        fprintf(html, "<b>%d solved by no solver</b> (%s in every profile's denominator, so no "
                      "curve reaches 1).", unsolved, unsolved == 1 ? "it counts" : "they count");
    else fputs("each solved by at least one solver.", html);
    fputs(" Every problem has its own page (table below): each solver's trace, status and "
          "reason.</p>\n", html);
    mcb_html_figure(html, base, "_pp-time", "performance profile of the time to tolerance",
                    "Performance profile of the time to tolerance: the fraction of the set's "
                    "problems each solver solved within a factor tau of the best solver's time; "
                    "higher and further left is better. " MCB_REFUSAL_NOTE);
    if (loop) return;
    fputs("<h2>Convergence</h2>\n", html);
    mcb_html_figure(html, base, "_iter", "residual against iteration",
                    "Stop-metric residual against iteration: per solver, the median (thick "
                    "line) and the first to third quartile (band) over the runs <em>still "
                    "going</em> at that iteration, and how many runs are still going (thin "
                    "steps, right axis). A run leaves the statistics when it stops, solved or "
                    "not, so a rising median late on means the hard problems remain");
    mcb_html_figure(html, base, "_time", "residual against solver time",
                    "The same against solver time: at each time, over the runs still going "
                    "at that time (solver time excludes setup and the harness's measurements)");
}

mcb_rc mcb_page_set(const mcb_report_ctx *C, int set, mcb_err *err)
{
    const mcb_outcomes *O = C->O;
    const char *base = C->bases[set];
    FILE *dat = mcb_report_open(C->outdir, base, ".dat", err);
    FILE *md = dat ? mcb_report_open(C->outdir, base, "_table.md", err) : NULL;
    FILE *csv = md ? mcb_report_open(C->outdir, base, "_table.csv", err) : NULL;
    FILE *html = csv ? mcb_report_open(C->outdir, base, "_set.html", err) : NULL;
    mcb_rc rc = html ? MCB_OK : MCB_E_IO;
    int np = 0, unsolved = 0;
    if (!rc) rc = mcb_plot_convergence(C, dat, set, err);
    if (!rc) rc = mcb_plot_profiles(C, dat, 2 * O->nsolvers, base, O->sets[set], set, &np,
                                    &unsolved, err);
    if (!rc) {
        char title[400];
        snprintf(title, sizeof title, "Problem set %.300s", O->sets[set]);
        mcb_html_begin(html, title, "<a href='index.html'>&larr; summary</a>");
        fputs("<h2>Ranking</h2>\n", html);
        rc = mcb_html_ranking(html, O, set, err);
        if (!rc) rc = mcb_html_speedup(html, C, set, err);
    }
    int loop = mcb_loop_any(C->D, O->sets[set]);
    if (!rc && loop) rc = mcb_page_loop(C, html, set, err);
    if (!rc) {
        set_page_body(C, html, set, np, unsolved, loop);
        fputs("<h2>Solvers</h2>\n", html);
        rc = write_tables(C, set, md, csv, html, err);
    }
    if (!rc) {
        fputs("<p>This table as ", html);
        mcb_html_link(html, base, "_table.md", "Markdown");
        fputs(" or ", html);
        mcb_html_link(html, base, "_table.csv", "CSV");
        fputs(".</p>\n", html);
        mcb_html_more_profiles(html, base, "");
        fputs("<h2>Problems</h2>\n<p class='meta'>Per solver: the time to "
              "tolerance (median over repetitions) and its ratio to the best solver's, or the "
              "status when not solved. Click a column's header to sort.</p>\n", html);
        rc = problem_table(C, html, set, err);
    }
    if (!rc) mcb_html_end(html);
    int closed = 1;
    FILE *files[4] = {dat, md, csv, html};
    for (int k = 0; k < 4; k++)
        if (files[k]) closed &= fclose(files[k]) == 0;
    if (!rc && !closed) rc = mcb_fail(err, MCB_E_IO, "%s/%s.*: cannot write", C->outdir, base);
    return rc;
}

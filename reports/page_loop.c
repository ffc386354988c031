/* page_loop.c: the closed-loop section of a set page (a set whose runs
 * have step rows: `mcbench simulate`, docs/closed-loop.md). Each solver
 * drove the scene itself; the section shows
 *  - the outcome table, one row per solver over every instance and
 *    repetition of the scene: runs by status, steps completed of the steps
 *    scheduled, the first failing step with its reason, and over the runs
 *    that completed the mean solver time per step (SubADMM's AT, setup
 *    included), the mean over the steps of -log10 natmap (its AA), the max penetration, the
 *    energy gain, the divergence from the reference (RMS, max), the
 *    outcome's final value and the engine's time per step (COND's DT); "-"
 *    where no run completed, as the papers mark a solver that cannot drive
 *    a scene. Also as BASE_loop.md and BASE_loop.csv;
 *  - the per-step curves per solver (median over the runs still going at
 *    the step): solver time with the engine's time as a reference line
 *    (BASE_loop-time), the stop-metric residual (BASE_loop-res), the
 *    penetration (BASE_loop-pen), and the divergence plot, RMS and max
 *    (BASE_loop-div); every value axis logarithmic, a value <= 0 not drawn.
 * The curves' data go to BASE.loop.dat: gnuplot index s per solver, then
 * one over every run of the set (the engine's reference line). The numbers
 * come from loop_stats.c. Fails on a file that cannot be written or out of
 * memory, with every file it opened closed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/html.h"
#include "reports/loop_stats.h"
#include "reports/report_pages.h"

/* The plots of the section: suffix, what it shows, the value axis, and the
 * data column (3 + MCB_LQ_*). The divergence plot draws the max (column 8)
 * beside the RMS. */
enum { NPLOTS = 4 };
static const struct {
    const char *suffix, *what, *ylabel;
    int q;
} plots[NPLOTS] = {
    {"_loop-time", "solver time per step", "solver time per step (s, setup + solve)",
     MCB_LQ_TIME},
    {"_loop-res", "residual per step", NULL, MCB_LQ_RES},
    {"_loop-pen", "penetration per step", "max penetration of the step (pen_max)", MCB_LQ_PEN},
    {"_loop-div", "divergence from the reference trajectory",
     "position error against the reference (m)", MCB_LQ_DIV_RMS},
};

/* The runs of `solver` on set `set` into runs[]; their count. */
static int solver_runs(const mcb_results_data *D, const char *set, const char *solver,
                       const mcb_run_rec **runs)
{
    int n = 0;
    for (int k = 0; k < D->count; k++)
        if (!strcmp(D->runs[k].problem_set, set) && (!solver || !strcmp(D->runs[k].solver, solver)))
            runs[n++] = &D->runs[k];
    return n;
}

/* One gnuplot index of the data: per step "step runs time res pen engine
 * div_rms div_max" (NaN where no value); positive[q] is set when a value
 * of quantity q is > 0. */
static void write_curve(FILE *dat, const char *who, const char *metric, const mcb_loop_curve *c,
                        int *positive)
{
    fprintf(dat, "# %s: step, runs still going, then the median over them of: solver time "
                 "(s, setup + solve), %s, pen_max, engine time (s), divergence RMS (m), "
                 "divergence max (m)\n", who, metric);
    for (int s = 0; s < c->nsteps; s++) {
        fprintf(dat, "%d %d", s, c->runs[s]);
        for (int q = 0; q < MCB_LQ_N; q++) {
            fprintf(dat, " %.6e", c->med[q][s]);
            if (c->med[q][s] > 0 && isfinite(c->med[q][s])) positive[q] = 1;
        }
        fputs("\n", dat);
    }
    if (!c->nsteps) fputs("nan nan nan nan nan nan nan nan\n", dat);
    fputs("\n\n", dat);
}

static void loop_script(const mcb_report_ctx *C, int set, const int *has, int nsteps,
                        const int *positive)
{
    FILE *gp = C->gp;
    const char *base = C->bases[set];
    int ns = C->O->nsolvers, pi = nsteps / 25 > 1 ? nsteps / 25 : 1;
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < NPLOTS; k++) {
            int q = plots[k].q;
            fprintf(gp, "reset\nset terminal %s\nset output '%s%s.%s'\n", mcb_plot_terms[t][0],
                    base, plots[k].suffix, mcb_plot_terms[t][1]);
            char text[600];
            snprintf(text, sizeof text, "%.300s: %s (median over the runs still going)",
                     C->O->sets[set], plots[k].what);
            mcb_gp_text(gp, "title", text);
            mcb_gp_text(gp, "xlabel", "step");
            snprintf(text, sizeof text, "%s residual of the step's subproblem",
                     C->D->stop_metric);
            mcb_gp_text(gp, "ylabel", plots[k].ylabel ? plots[k].ylabel : text);
            /* whole steps: a tic per step up to 10 of them, else gnuplot's own */
            int xmax = nsteps > 1 ? nsteps - 1 : 1;
            fprintf(gp, "set logscale y\nset format y '%s'\nset grid\n%sset xrange [0:%d]\n%s",
                    MCB_GP_LOG_FORMAT, mcb_gp_key_below, xmax, xmax <= 10 ? "set xtics 1\n" : "");
            int any = positive[q] || (q == MCB_LQ_TIME && positive[MCB_LQ_ENGINE]) ||
                      (q == MCB_LQ_DIV_RMS && positive[MCB_LQ_DIV_MAX]);
            if (!any)
                fputs("set yrange [1e-6:1]\nset label 1 'no value above 0: nothing to draw' at "
                      "graph 0.5, 0.8 center noenhanced\n", gp);
            fputs("plot ", gp);
            int first = 1;
            for (int s = 0; s < ns; s++) {
                if (!has[s]) continue;
                fprintf(gp, "%s'%s.loop.dat' index %d using 1:($%d>0?$%d:1/0) with linespoints "
                            "lw 3 pt 7 ps 0.6 pi %d ", first ? "" : ", ", base, s, 3 + q, 3 + q,
                        pi);
                mcb_gp_solver_style(gp, s);
                fputs(" title ", gp);
                mcb_gp_quote(gp, C->O->solvers[s]);
                if (q == MCB_LQ_DIV_RMS) {
                    fprintf(gp, ", '%s.loop.dat' index %d using 1:($%d>0?$%d:1/0) with lines "
                                "lw 1.5 lc %d dt 3 title ", base, s, 3 + MCB_LQ_DIV_MAX,
                            3 + MCB_LQ_DIV_MAX, s % 8 + 1);
                    snprintf(text, sizeof text, "%.300s (max)", C->O->solvers[s]);
                    mcb_gp_quote(gp, text);
                }
                first = 0;
            }
            if (q == MCB_LQ_TIME)
                fprintf(gp, ", '%s.loop.dat' index %d using 1:($%d>0?$%d:1/0) with lines dt 2 "
                            "lw 2 lc rgb 'gray' title 'engine time per step (median over every "
                            "run)'", base, ns, 3 + MCB_LQ_ENGINE, 3 + MCB_LQ_ENGINE);
            if (q == MCB_LQ_RES && C->D->tol > 0)
                fprintf(gp, ", %g with lines dt 2 lw 2 lc rgb 'gray' title 'tolerance %g'",
                        C->D->tol, C->D->tol);
            fputs("\n", gp);
        }
}

/* ------------------------------------------------------- the outcome table */

enum { NCOLS = 12 };
static const char *const heads[NCOLS] = {
    "solver", "runs", "steps completed / steps", "status",
    "AT (ms per step, setup included)", "AA (mean -log10 natmap)", "max penetration (pen_max)",
    "energy gain (J)", "divergence RMS (m)", "divergence max (m)", "outcome (final)",
    "engine (ms per step)"};

/* The status cell: the runs by status ("completed" for solved), the
 * failed-in-loop ones with the first failing step and its run's reason. */
static void status_text(const mcb_run_rec *const *runs, int n, const mcb_loop_row *row,
                        char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    if (!n) snprintf(buf, len, "no run");
    for (int st = 0; st < MCB_NSTATUS && off < len; st++) {
        int c = 0;
        for (int k = 0; k < n; k++) c += runs[k]->status == st;
        if (!c) continue;
        off += (size_t)snprintf(buf + off, len - off, "%s%s %d", off ? ", " : "",
                                st == MCB_ST_SOLVED ? "completed" : mcb_status_name(st), c);
        if (st == MCB_ST_FAILED_IN_LOOP && row->first_fail_run >= 0 && off < len) {
            const char *why = runs[row->first_fail_run]->reason;
            off += (size_t)snprintf(buf + off, len - off, " (first at step %d%s%.400s)",
                                    row->first_fail, why && *why ? ": " : "", why ? why : "");
        }
    }
}

/* The cells of a row: the numbers as "%.3g" ("-" when none); the steps as
 * "done/total" ("?" when the total is unknown). */
static void row_cells(const char *solver, const mcb_loop_row *r, const char *status,
                      char f[NCOLS][600])
{
    snprintf(f[0], 600, "%.590s", solver);
    snprintf(f[1], 600, "%d", r->runs);
    if (r->steps_total >= 0) snprintf(f[2], 600, "%ld/%ld", r->steps_done, r->steps_total);
    else snprintf(f[2], 600, "%ld/?", r->steps_done);
    snprintf(f[3], 600, "%s", status);
    const double v[8] = {1e3 * r->at_s, r->aa, r->pen_max, r->energy_gain_J, r->div_rms_m,
                         r->div_max_m, r->outcome, 1e3 * r->engine_s};
    for (int k = 0; k < 8; k++) mcb_fmt_num(f[4 + k], 600, v[k]);
}

static void csv_num(FILE *csv, double x)
{
    if (isfinite(x)) fprintf(csv, ",%.6g", x);
    else fputs(",", csv);
}

static void csv_row(FILE *csv, const char *solver, const mcb_loop_row *r, const char *reason)
{
    mcb_csv_field(csv, solver);
    fprintf(csv, ",%d,%d,%d,%d,%ld,", r->runs, r->completed, r->failed, r->other,
            r->steps_done);
    if (r->steps_total >= 0) fprintf(csv, "%ld", r->steps_total);
    fputs(",", csv);
    if (r->first_fail >= 0) fprintf(csv, "%d", r->first_fail);
    fputs(",", csv);
    mcb_csv_field(csv, reason ? reason : "");
    const double v[8] = {1e3 * r->at_s, r->aa, r->pen_max, r->energy_gain_J, r->div_rms_m,
                         r->div_max_m, r->outcome, 1e3 * r->engine_s};
    for (int k = 0; k < 8; k++) csv_num(csv, v[k]);
    fputs("\n", csv);
}

/* Headings wrap; solver names do not; the status has room for its reason
 * (inline styles: the style sheet shared with the replay pages is left
 * as it is). */
static void html_table(FILE *html, int ns, char (*f)[NCOLS][600])
{
    fputs("<div class='tw'><table class='sortable loop'><thead><tr>", html);
    for (int c = 0; c < NCOLS; c++)
        fprintf(html, "<th%s style='white-space:normal;overflow-wrap:normal'>%s</th>",
                c == 0 || c == 3 ? "" : " class='n'", heads[c]);
    fputs("</tr></thead><tbody>\n", html);
    for (int s = 0; s < ns; s++) {
        fputs("<tr>", html);
        for (int c = 0; c < NCOLS; c++) {
            int bad = c == 3 && strstr(f[s][3], mcb_status_name(MCB_ST_FAILED_IN_LOOP));
            fputs(c == 0   ? "<td style='white-space:nowrap;overflow-wrap:normal'>"
                  : c == 3 ? (bad ? "<td class='bad' style='min-width:16em;overflow-wrap:normal'>"
                                  : "<td style='min-width:16em;overflow-wrap:normal'>")
                           : "<td class='n'>",
                  html);
            mcb_html_escape(html, f[s][c]);
            fputs("</td>", html);
        }
        fputs("</tr>\n", html);
    }
    fputs("</tbody></table></div>\n", html);
}

static void md_table(FILE *md, const char *set, int ns, char (*f)[NCOLS][600])
{
    fputs("# ", md);
    mcb_md_cell(md, set);
    fputs(": closed loop\n\n|", md);
    for (int c = 0; c < NCOLS; c++) fprintf(md, " %s |", heads[c]);
    fputs("\n|", md);
    for (int c = 0; c < NCOLS; c++) fputs("---|", md);
    fputs("\n", md);
    for (int s = 0; s < ns; s++) {
        for (int c = 0; c < NCOLS; c++) {
            fputs(c ? " | " : "| ", md);
            mcb_md_cell(md, f[s][c]);
        }
        fputs(" |\n", md);
    }
}

static void section_html(const mcb_report_ctx *C, FILE *html, int set, int ns,
                         char (*f)[NCOLS][600], int most_runs)
{
    const char *base = C->bases[set];
    fputs("<h2>Closed loop</h2>\n<p class='meta'>Each solver drove the scene itself, from the "
          "same initial state, under the per-step budget; everything but the solver (collision "
          "detection, assembly, integration, scripted motions, seeds) was the same for every "
          "solver. A run is <code>solved</code> in the ranking above when it completed every "
          "step, and its time to tolerance there (and in the profiles) is its solver time "
          "summed over the steps; one stopped as <code>failed-in-loop</code> (non-finite "
          "state, penetration, energy or outcome past the scene&#39;s bound) is marked with the "
          "step it failed at. "
          "The measures are over the runs that completed every step (instances and "
          "repetitions), &quot;-&quot; when none did, as the papers mark a solver that cannot "
          "drive the scene: <b>AT</b> the mean solver time per step (setup included) and "
          "<b>AA</b> the mean over the steps of -log10 of the natural-map residual (bigger is better), as SubADMM&#39;s Table I averages its constraint error; "
          "the max penetration over the steps; the largest energy gain over the initial "
          "energy; the divergence from the reference trajectory (the scene driven to a tight "
          "tolerance): RMS over the steps and the bodies, and max; the scene&#39;s outcome at "
          "the last step; the engine&#39;s own time per step (collision, assembly, "
          "recording).</p>\n", html);
    html_table(html, ns, f);
    fputs("<p>This table as ", html);
    mcb_html_link(html, base, "_loop.md", "Markdown");
    fputs(" or ", html);
    mcb_html_link(html, base, "_loop.csv", "CSV");
    fputs(".</p>\n", html);
    char over[400];
    if (most_runs > 1)
        snprintf(over, sizeof over, "Per solver, the median over its runs (instances and "
                 "repetitions, up to %d) still going at the step: a run that failed in the loop "
                 "leaves after its failing step", most_runs);
    else snprintf(over, sizeof over, "One run per solver: a run that failed in the loop ends "
                  "at its failing step");
    char cap[1200];
    snprintf(cap, sizeof cap, "Solver time per step (setup + solve, log scale), with the "
             "engine&#39;s time per step as the gray dashed reference line (its median over "
             "every run of the scene). %s", over);
    mcb_html_figure(html, base, "_loop-time", "solver time per step", cap);
    snprintf(cap, sizeof cap, "The harness&#39;s <b>%s</b> residual of each step&#39;s "
             "subproblem, judged as in a replay run (log scale). %s", C->D->stop_metric, over);
    mcb_html_figure(html, base, "_loop-res", "residual per step", cap);
    snprintf(cap, sizeof cap, "The penetration each step leaves (pen_max, log scale; a step "
             "without penetration is not drawn). %s", over);
    mcb_html_figure(html, base, "_loop-pen", "penetration per step", cap);
    snprintf(cap, sizeof cap, "Divergence from the reference trajectory: the position error "
             "of the bodies against the scene driven to a tight tolerance, RMS over the bodies "
             "(thick) and max (thin, dotted), log scale. %s", over);
    mcb_html_figure(html, base, "_loop-div", "divergence from the reference", cap);
}

mcb_rc mcb_page_loop(const mcb_report_ctx *C, FILE *html, int set, mcb_err *err)
{
    const mcb_results_data *D = C->D;
    const mcb_outcomes *O = C->O;
    const char *base = C->bases[set], *name = O->sets[set];
    int ns = O->nsolvers, metric = C->col - 2;
    const mcb_run_rec **runs = mcb_malloc((size_t)D->count + 1, sizeof *runs);
    int *sched = mcb_malloc((size_t)D->count + 1, sizeof *sched);
    double *buf = mcb_malloc((size_t)D->count + 1, sizeof *buf);
    int *has = mcb_calloc((size_t)ns + 1, sizeof *has);
    char(*f)[NCOLS][600] = mcb_malloc((size_t)ns + 1, sizeof *f);
    FILE *dat = NULL, *md = NULL, *csv = NULL;
    mcb_rc rc = runs && sched && buf && has && f
                    ? MCB_OK
                    : mcb_fail(err, MCB_E_NOMEM, "%s: closed loop: out of memory", name);
    if (!rc) {
        dat = mcb_report_open(C->outdir, base, ".loop.dat", err);
        md = dat ? mcb_report_open(C->outdir, base, "_loop.md", err) : NULL;
        csv = md ? mcb_report_open(C->outdir, base, "_loop.csv", err) : NULL;
        if (!csv) rc = MCB_E_IO;
    }
    if (!rc)
        fputs("solver,runs,completed,failed_in_loop,other,steps_completed,steps,"
              "first_failed_step,first_failed_reason,at_ms,aa_natmap,pen_max,energy_gain_J,"
              "div_rms_m,div_max_m,outcome,engine_ms\n", csv);
    int positive[MCB_LQ_N] = {0}, nsteps = 0, most_runs = 0;
    for (int s = 0; s <= ns && !rc; s++) {
        int n = solver_runs(D, name, s < ns ? O->solvers[s] : NULL, runs);
        mcb_loop_curve c;
        if ((rc = mcb_loop_curve_compute(runs, n, metric, &c, err))) break;
        if (s == ns) { /* every run: the engine's reference line */
            int pos[MCB_LQ_N] = {0};
            write_curve(dat, "every run", D->stop_metric, &c, pos);
            positive[MCB_LQ_ENGINE] |= pos[MCB_LQ_ENGINE];
            nsteps = c.nsteps;
            mcb_loop_curve_free(&c);
            break;
        }
        char who[300];
        snprintf(who, sizeof who, "solver %.280s", O->solvers[s]);
        write_curve(dat, who, D->stop_metric, &c, positive);
        has[s] = c.nsteps > 0;
        for (int k = 0; k < c.nsteps; k++)
            if (c.runs[k] > most_runs) most_runs = c.runs[k];
        mcb_loop_curve_free(&c);
        for (int k = 0; k < n; k++)
            sched[k] = mcb_loop_scheduled_steps(D, name, runs[k]->problem_index);
        mcb_loop_row row;
        mcb_loop_row_compute(runs, n, sched, buf, &row);
        char status[600];
        status_text(runs, n, &row, status, sizeof status);
        row_cells(O->solvers[s], &row, status, f[s]);
        csv_row(csv, O->solvers[s], &row,
                row.first_fail_run >= 0 ? runs[row.first_fail_run]->reason : NULL);
    }
    if (!rc) {
        loop_script(C, set, has, nsteps, positive);
        md_table(md, name, ns, f);
        section_html(C, html, set, ns, f, most_runs);
    }
    int closed = 1;
    FILE *files[3] = {dat, md, csv};
    for (int k = 0; k < 3; k++)
        if (files[k]) closed &= fclose(files[k]) == 0;
    if (!rc && !closed)
        rc = mcb_fail(err, MCB_E_IO, "%s/%s.loop.dat, _loop.md, _loop.csv: cannot write",
                      C->outdir, base);
    free(runs);
    free(sched);
    free(buf);
    free(has);
    free(f);
    return rc;
}

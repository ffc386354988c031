/* page_problem.c: one page per problem, BASE_pN.html (N the problem's
 * problem_index in its set): the problem's size, every solver's trace of
 * the stop metric against iteration on that problem (BASE_pN.svg; the
 * first repetition's), and per solver the status, the reason the run gave,
 * the iterations, times and final residuals; links to the summary, the
 * set's page and the neighbouring problems. The traces' data go to
 * BASE.traces.dat, one gnuplot index per (problem of the set, solver).
 * Fails on a file that cannot be written, with every file it opened
 * closed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/html.h"
#include "reports/report_pages.h"

void mcb_problem_page_name(const mcb_report_ctx *C, int p, char *buf, size_t len)
{
    const mcb_outcomes *O = C->O;
    int index = 0;
    for (int s = 0; s < O->nsolvers; s++) {
        int k = O->run[(size_t)p * O->nsolvers + s];
        if (k >= 0) {
            index = C->D->runs[k].problem_index;
            break;
        }
    }
    snprintf(buf, len, "%s_p%d", C->bases[O->set[p]], index);
}

/* The trace of run r (NULL: none) as one gnuplot index; 1 when it has rows. */
static int write_trace(FILE *dat, const mcb_run_rec *r, int col, const char *problem,
                       const char *solver)
{
    fprintf(dat, "# %s, solver %s: iteration, residual, solver time (s)\n", problem, solver);
    int rows = 0;
    for (int k = 0; r && k < r->trace_rows; k++) {
        const double *row = r->trace + (size_t)k * MCB_TRACE_COLS;
        if (isnan(row[col])) continue;
        fprintf(dat, "%.9g %.6e %.6e\n", row[0], fmax(row[col], 1e-300), row[1]);
        rows++;
    }
    if (!rows) fputs("nan nan nan\n", dat);
    fputs("\n\n", dat);
    return rows > 0;
}

static void trace_plot(const mcb_report_ctx *C, const char *page, const char *base, int first,
                       const char *problem, const int *has)
{
    FILE *gp = C->gp;
    const mcb_outcomes *O = C->O;
    /* enhanced for the log axis' 10^n, every text noenhanced (html.h) */
    fprintf(gp, "reset\nset terminal svg size 1400,650 enhanced font 'Sans,14' background "
                "rgb 'white'\nset output '%s.svg'\n", page);
    char title[600];
    snprintf(title, sizeof title, "%s: %s residual against iteration (first repetition)",
             problem, C->D->stop_metric);
    mcb_gp_text(gp, "title", title);
    mcb_gp_text(gp, "xlabel", "iteration");
    snprintf(title, sizeof title, "%s residual", C->D->stop_metric);
    mcb_gp_text(gp, "ylabel", title);
    fprintf(gp, "set logscale y\nset format y '%s'\nset grid\n"
                "set key outside bottom center horizontal spacing 1.2 noenhanced\nplot ",
            MCB_GP_LOG_FORMAT);
    int any = 0;
    for (int s = 0; s < O->nsolvers; s++) {
        if (!has[s]) continue;
        fprintf(gp, "%s'%s.traces.dat' index %d using 1:2 with linespoints pt 7 ps 0.5 lw 2 "
                    "lc %d dt %d title ", any++ ? ", " : "", base, first + s, s % 8 + 1,
                s / 8 % 5 + 1);
        mcb_gp_quote(gp, O->solvers[s]);
    }
    if (C->D->tol > 0) /* a budget-only campaign (tol 0) has no tolerance line */
        fprintf(gp, "%s%g with lines dt 2 lw 2 lc rgb 'gray' title 'tolerance %g'\n",
                any ? ", " : "", C->D->tol, C->D->tol);
    else
        fprintf(gp, "%s\n", any ? "" : "1 lc rgb 'white' notitle"); /* nothing to draw: an invisible line */
}

static void cell_text(FILE *html, const char *cls, const char *text)
{
    fprintf(html, "<td%s%s%s>", cls ? " class='" : "", cls ? cls : "", cls ? "'" : "");
    mcb_html_escape(html, text);
    fputs("</td>", html);
}

static void cell_num(FILE *html, double x)
{
    char b[48];
    mcb_fmt_num(b, sizeof b, x);
    cell_text(html, "n", b);
}

static void solver_table(const mcb_report_ctx *C, FILE *html, int p)
{
    const mcb_outcomes *O = C->O;
    int ns = O->nsolvers, metric = C->col - 2;
    fprintf(html, "<div class='tw'><table class='sortable'><thead><tr><th>solver</th>"
                  "<th>status</th><th>reason</th><th class='n'>iterations</th>"
                  "<th class='n'>time to tolerance (ms)</th><th class='n'>setup (ms)</th>"
                  "<th class='n'>solve (ms)</th><th class='n'>final %s</th>"
                  "<th class='n'>own residual</th></tr></thead><tbody>\n",
            C->D->stop_metric);
    for (int s = 0; s < ns; s++) {
        size_t c = (size_t)p * ns + s;
        const mcb_run_rec *r = O->run[c] >= 0 ? &C->D->runs[O->run[c]] : NULL;
        char st[64];
        mcb_outcome_status_text(O, p, s, st, sizeof st);
        fputs("<tr>", html);
        cell_text(html, NULL, O->solvers[s]);
        cell_text(html, isfinite(O->time_s[c]) ? "ok" : "bad", st);
        cell_text(html, NULL, r && r->reason ? r->reason : "");
        cell_num(html, r ? r->iterations : NAN);
        cell_num(html, 1e3 * O->time_s[c]);
        cell_num(html, r ? 1e3 * r->setup_s : NAN);
        cell_num(html, r ? 1e3 * r->solve_s : NAN);
        cell_num(html, r && metric >= 0 ? r->final.val[metric] : NAN);
        cell_num(html, r ? r->own_residual : NAN);
        fputs("</tr>\n", html);
    }
    fputs("</tbody></table></div>\n<p class='meta'>Status: of every repetition (\"K/R solved\" "
          "when they differ); time to tolerance: setup + solve, median over the repetitions, "
          "shown only when solved; the other columns are the first repetition's. The reason "
          "is the solver's own account of why it stopped.</p>\n", html);
}

/* Problem p's page; prev and next: neighbouring problems of the set (-1: none). */
static mcb_rc problem_page(const mcb_report_ctx *C, int p, int prev, int next, mcb_err *err)
{
    const mcb_outcomes *O = C->O;
    const char *base = C->bases[O->set[p]];
    char page[300], other[300];
    mcb_problem_page_name(C, p, page, sizeof page);
    char *nav = NULL;
    size_t navlen = 0;
    FILE *m = open_memstream(&nav, &navlen);
    FILE *html = m ? mcb_report_open(C->outdir, page, ".html", err) : NULL;
    if (!html) {
        if (m) fclose(m);
        free(nav);
        return m ? MCB_E_IO : mcb_fail(err, MCB_E_NOMEM, "%s: out of memory", page);
    }
    /* base names are [A-Za-z0-9_.-]: nothing to escape in these URLs */
    fprintf(m, "<a href='index.html'>summary</a> &rsaquo; <a href='%s_set.html'>set ", base);
    mcb_html_escape(m, O->sets[O->set[p]]);
    fputs("</a>", m);
    if (prev >= 0) {
        mcb_problem_page_name(C, prev, other, sizeof other);
        fprintf(m, " &middot; <a href='%s.html'>&larr; previous problem</a>", other);
    }
    if (next >= 0) {
        mcb_problem_page_name(C, next, other, sizeof other);
        fprintf(m, " &middot; <a href='%s.html'>next problem &rarr;</a>", other);
    }
    fclose(m);
    char title[600];
    snprintf(title, sizeof title, "Problem %.300s", O->problem[p]);
    mcb_html_begin(html, title, nav ? nav : "");
    free(nav);
    const mcb_run_rec *r = NULL;
    for (int s = 0; s < O->nsolvers && !r; s++) {
        int k = O->run[(size_t)p * O->nsolvers + s];
        if (k >= 0) r = &C->D->runs[k];
    }
    fputs("<p class='meta'>Set <a href='", html);
    mcb_url_escape(html, base);
    fputs("_set.html'>", html);
    mcb_html_escape(html, O->sets[O->set[p]]);
    if (r)
        fprintf(html, "</a>, problem %d: %d velocity unknowns, %d contact rows, %d "
                      "contacts.</p>\n", r->problem_index, r->n, r->m, r->ncontacts);
    else fputs("</a>.</p>\n", html);
    solver_table(C, html, p);
    char sfx[320];
    fputs("<figure><img src='", html);
    mcb_url_escape(html, page);
    fputs(".svg' alt='traces of every solver'><figcaption>Each solver's trace on this "
          "problem: the harness's stop-metric residual at each traced iteration of its first "
          "repetition, against the tolerance (", html);
    snprintf(sfx, sizeof sfx, "%s.svg", page);
    mcb_html_link(html, sfx, "", "SVG");
    fputs(")</figcaption></figure>\n", html);
    mcb_html_end(html);
    if (fclose(html) != 0)
        return mcb_fail(err, MCB_E_IO, "%s/%s.html: cannot write", C->outdir, page);
    return MCB_OK;
}

mcb_rc mcb_pages_problems(const mcb_report_ctx *C, int set, mcb_err *err)
{
    const mcb_outcomes *O = C->O;
    const char *base = C->bases[set];
    int ns = O->nsolvers;
    FILE *dat = mcb_report_open(C->outdir, base, ".traces.dat", err);
    int *has = mcb_calloc((size_t)ns + 1, sizeof *has);
    mcb_rc rc = !dat ? MCB_E_IO : has ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int j = 0, prev = -1;
    for (int p = 0; p < O->nproblems && !rc; p++) {
        if (O->set[p] != set) continue;
        char page[300];
        mcb_problem_page_name(C, p, page, sizeof page);
        for (int s = 0; s < ns; s++) {
            int k = O->run[(size_t)p * ns + s];
            has[s] = write_trace(dat, k >= 0 ? &C->D->runs[k] : NULL, C->col, O->problem[p],
                                 O->solvers[s]);
        }
        trace_plot(C, page, base, j * ns, O->problem[p], has);
        int next = p + 1;
        while (next < O->nproblems && O->set[next] != set) next++;
        rc = problem_page(C, p, prev, next < O->nproblems ? next : -1, err);
        prev = p;
        j++;
    }
    if (dat && fclose(dat) != 0 && !rc)
        rc = mcb_fail(err, MCB_E_IO, "%s/%s.traces.dat: cannot write", C->outdir, base);
    free(has);
    return rc;
}

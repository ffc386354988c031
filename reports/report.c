/* report.c: per problem set, two convergence plots (harness stop metric
 * against iteration and against solver time, one curve per solver: the
 * median over the set's problems, a run that stopped early contributing its
 * final value) and a table per solver (success rate, median iterations,
 * setup and solve time, final residuals, spread over repetitions). */
#include "report.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcb_paths.h"
#include "results.h"

static int isalnum_c(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of the finite values (NaN when none); sorts x in place. */
static double median(double *x, int n)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i])) x[k++] = x[i];
    if (k == 0) return NAN;
    qsort(x, (size_t)k, sizeof *x, cmp_double);
    return k % 2 ? x[k / 2] : 0.5 * (x[k / 2 - 1] + x[k / 2]);
}

static void safe_name(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s && k + 1 < len; s++)
        out[k++] = (isalnum_c(*s) || *s == '-' || *s == '_') ? *s : '_';
    out[k] = '\0';
}

/* distinct strings in order of first appearance */
typedef struct {
    int count;
    const char *items[256];
} strset;

static int strset_add(strset *S, const char *s)
{
    for (int k = 0; k < S->count; k++)
        if (strcmp(S->items[k], s) == 0) return k;
    if (S->count == 256) return -1;
    S->items[S->count] = s;
    return S->count++;
}

/* Value of trace column `col` of run r at iteration `iter`: the last traced
 * row at or before it (carried forward after the run stopped). */
static double trace_at(const mcb_run_rec *r, int col, double iter)
{
    double v = NAN;
    for (int k = 0; k < r->trace_rows; k++) {
        const double *row = r->trace + (size_t)k * MCB_TRACE_COLS;
        if (row[0] > iter) break;
        v = row[col];
    }
    return v;
}

/* Writes the median curves of one set into `dat` (one gnuplot index per
 * solver); returns the number of solvers with data. */
static int write_curves(FILE *dat, const mcb_results_data *D, const char *set, const strset *solvers,
                        int col, int *has)
{
    int nrun = D->count, with = 0;
    double *vals = mcb_malloc((size_t)nrun, sizeof(double));
    double *times = mcb_malloc((size_t)nrun, sizeof(double));
    double *iters = NULL;
    if (!vals || !times) goto done;
    for (int s = 0; s < solvers->count; s++) {
        has[s] = 0;
        /* union of traced iterations over the set's runs (rep 0) */
        int cap = 0, ni = 0;
        for (int k = 0; k < nrun; k++) {
            const mcb_run_rec *r = &D->runs[k];
            if (!strcmp(r->problem_set, set) && !strcmp(r->solver, solvers->items[s]) && r->rep == 0)
                cap += r->trace_rows;
        }
        free(iters);
        iters = mcb_malloc((size_t)cap, sizeof(double));
        if (!iters) goto done;
        for (int k = 0; k < nrun; k++) {
            const mcb_run_rec *r = &D->runs[k];
            if (strcmp(r->problem_set, set) || strcmp(r->solver, solvers->items[s]) || r->rep)
                continue;
            for (int t = 0; t < r->trace_rows; t++) iters[ni++] = r->trace[(size_t)t * MCB_TRACE_COLS];
        }
        qsort(iters, (size_t)ni, sizeof *iters, cmp_double);
        int u = 0;
        for (int k = 0; k < ni; k++)
            if (u == 0 || iters[k] != iters[u - 1]) iters[u++] = iters[k];
        fprintf(dat, "# solver %s: iteration, median %s, median solver time (s)\n",
                solvers->items[s], mcb_trace_column(col));
        int rows = 0;
        for (int k = 0; k < u; k++) {
            int c = 0;
            for (int q = 0; q < nrun; q++) {
                const mcb_run_rec *r = &D->runs[q];
                if (strcmp(r->problem_set, set) || strcmp(r->solver, solvers->items[s]) || r->rep)
                    continue;
                vals[c] = trace_at(r, col, iters[k]);
                times[c++] = trace_at(r, 1, iters[k]);
            }
            double mv = median(vals, c), mt = median(times, c);
            if (!isnan(mv)) {
                fprintf(dat, "%g %.6e %.6e\n", iters[k], mv > 1e-300 ? mv : 1e-300, mt);
                rows++;
            }
        }
        if (rows == 0) fprintf(dat, "nan nan nan\n");
        fprintf(dat, "\n\n");
        has[s] = rows > 0;
        with += has[s];
    }
done:
    free(vals);
    free(times);
    free(iters);
    return with;
}

static void write_plot_script(FILE *g, const char *dir, const char *base, const char *set,
                              const strset *solvers, const int *has, const char *metric,
                              double tol)
{
    static const char *terms[2][2] = {{"pngcairo size 900,600 noenhanced font 'Sans,11'", "png"},
                                      {"svg size 900,600 noenhanced font 'Sans,11'", "svg"}};
    for (int t = 0; t < 2; t++)
        for (int kind = 0; kind < 2; kind++) {
            fprintf(g, "reset\nset terminal %s\n", terms[t][0]);
            fprintf(g, "set output '%s/%s_%s.%s'\n", dir, base, kind ? "time" : "iter",
                    terms[t][1]);
            fprintf(g, "set title '%s: median %s against %s'\n", set, metric,
                    kind ? "solver time" : "iteration");
            fprintf(g, "set xlabel '%s'\nset ylabel '%s residual (median over problems)'\n",
                    kind ? "solver time (s, setup excluded)" : "iteration", metric);
            fprintf(g, "set logscale y\nset format y '%%.0e'\nset grid\nset key outside right\n");
            if (kind) fprintf(g, "set logscale x\n");
            fprintf(g, "plot ");
            int first = 1;
            for (int s = 0; s < solvers->count; s++) {
                if (!has[s]) continue;
                fprintf(g, "%s'%s/%s.dat' index %d using %s with linespoints pt 7 ps 0.4 title '%s'",
                        first ? "" : ", ", dir, base, s, kind ? "($3>0?$3:1/0):2" : "1:2",
                        solvers->items[s]);
                first = 0;
            }
            fprintf(g, "%s%g with lines dt 2 lc rgb 'gray' title 'tolerance %g'\n",
                    first ? "" : ", ", tol, tol);
        }
}

typedef struct {
    int runs, solved, skipped;
    double med_iters, med_setup_ms, med_solve_ms, spread, res[4];
    double min_solve_ms; /* median over problems of the fastest repetition */
    double us_per_iter;  /* median solve time per iteration (microseconds) */
    double to_ms[2];     /* median solver time to reach 1e-6 and 1e-8 (runs that did) */
    int reached[2];
} row_stats;

static const double thresholds[2] = {1e-6, 1e-8};

/* Solver time at the first traced iteration where column col <= thr. */
static double time_to(const mcb_run_rec *r, int col, double thr)
{
    for (int k = 0; k < r->trace_rows; k++) {
        const double *row = r->trace + (size_t)k * MCB_TRACE_COLS;
        if (row[col] <= thr) return row[1];
    }
    return NAN;
}

static const int table_metrics[4] = {MCB_M_NATMAP, MCB_M_FB, MCB_M_ZRES, MCB_M_DYN_REL};

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
    st->med_iters = median(buf, c);
    COLLECT(1e3 * r->setup_s, r->status != MCB_ST_SKIPPED);
    st->med_setup_ms = median(buf, c);
    COLLECT(1e3 * r->solve_s, r->status != MCB_ST_SKIPPED);
    st->med_solve_ms = median(buf, c);
    for (int m = 0; m < 4; m++) {
        COLLECT(r->final.val[table_metrics[m]], r->rep == 0 && r->status != MCB_ST_SKIPPED);
        st->res[m] = median(buf, c);
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
        double md = median(t, nt);
        lo_ms[c] = 1e3 * lo;
        buf[c++] = nt > 1 && md > 0 ? (hi - lo) / md : NAN;
    }
    st->spread = median(buf, c);
    st->min_solve_ms = median(lo_ms, c);
    COLLECT(r->iterations > 0 ? 1e6 * r->solve_s / r->iterations : NAN,
            r->rep == 0 && r->status != MCB_ST_SKIPPED);
    st->us_per_iter = median(buf, c);
    for (int t = 0; t < 2; t++) {
        COLLECT(1e3 * time_to(r, col, thresholds[t]), r->rep == 0 && r->status != MCB_ST_SKIPPED);
        st->reached[t] = 0;
        for (int k = 0; k < c; k++) st->reached[t] += !isnan(buf[k]);
        st->to_ms[t] = median(buf, c);
    }
#undef COLLECT
}

static void fmt_num(char *b, size_t n, double x)
{
    if (isnan(x)) snprintf(b, n, "-");
    else snprintf(b, n, "%.3g", x);
}

static void write_tables(const mcb_results_data *D, const char *set, const strset *solvers,
                         int col, FILE *md, FILE *csv, FILE *html)
{
    double *buf = mcb_malloc(2 * ((size_t)D->count + 1), sizeof(double));
    if (!buf) return;
    fprintf(md, "| solver | runs | solved | skipped | success | median iterations | median setup (ms) | "
                "median solve (ms) | min solve (ms) | median natmap | median fb | median zres | median dyn_rel | "
                "rep spread | time/iter (us) | to 1e-6 (ms) | to 1e-8 (ms) |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    fprintf(csv, "solver,runs,solved,skipped,success_rate,median_iterations,median_setup_ms,"
                 "median_solve_ms,min_solve_ms,median_natmap,median_fb,median_zres,median_dyn_rel,rep_spread,"
                 "us_per_iter,ms_to_1e-6,reached_1e-6,ms_to_1e-8,reached_1e-8\n");
    fprintf(html, "<table><tr><th>solver</th><th>runs</th><th>solved</th><th>skipped</th>"
                  "<th>success</th><th>median iterations</th><th>median setup (ms)</th>"
                  "<th>median solve (ms)</th><th>min solve (ms)</th><th>median natmap</th><th>median fb</th>"
                  "<th>median zres</th><th>median dyn_rel</th><th>rep spread</th>"
                  "<th>time/iter (us)</th><th>to 1e-6 (ms)</th><th>to 1e-8 (ms)</th></tr>\n");
    for (int s = 0; s < solvers->count; s++) {
        row_stats st;
        solver_stats(D, set, solvers->items[s], col, &st, buf);
        char f[13][48];
        double rate = st.runs ? (double)st.solved / st.runs : NAN;
        fmt_num(f[0], 32, st.med_iters);
        fmt_num(f[1], 32, st.med_setup_ms);
        fmt_num(f[2], 32, st.med_solve_ms);
        for (int m = 0; m < 4; m++) fmt_num(f[3 + m], 32, st.res[m]);
        fmt_num(f[7], 32, st.spread);
        if (isnan(rate)) snprintf(f[8], 32, "-");
        else snprintf(f[8], 32, "%.0f%%", 100 * rate);
        fmt_num(f[9], 32, st.us_per_iter);
        fmt_num(f[12], 32, st.min_solve_ms);
        for (int t = 0; t < 2; t++) {
            char num[32];
            fmt_num(num, sizeof num, st.to_ms[t]);
            snprintf(f[10 + t], 48, "%s (%d/%d)", num, st.reached[t], st.runs);
        }
        fprintf(md, "| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                solvers->items[s], st.runs, st.solved, st.skipped, f[8], f[0], f[1], f[2], f[12], f[3],
                f[4], f[5], f[6], f[7], f[9], f[10], f[11]);
        fprintf(csv, "%s,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.6g,%d,%.6g,%d\n",
                solvers->items[s], st.runs, st.solved, st.skipped, isnan(rate) ? "nan" : f[8],
                f[0], f[1], f[2], f[12], f[3], f[4], f[5], f[6], f[7], f[9], st.to_ms[0], st.reached[0],
                st.to_ms[1], st.reached[1]);
        fprintf(html, "<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td>"
                      "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                      "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                solvers->items[s], st.runs, st.solved, st.skipped, f[8], f[0], f[1], f[2], f[12], f[3],
                f[4], f[5], f[6], f[7], f[9], f[10], f[11]);
    }
    fprintf(html, "</table>\n");
    free(buf);
}

static FILE *open_out(const char *dir, const char *base, const char *ext, mcb_err *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s%s", dir, base, ext);
    FILE *f = fopen(path, "w");
    if (!f) mcb_fail(err, MCB_E_IO, "%s: cannot write (%s)", path, strerror(errno));
    return f;
}

/* No file the report writes may be its input. */
static mcb_rc check_targets(const char *input, const char *outdir, const strset *sets,
                            mcb_err *err)
{
    char path[4400];
    const char *fixed[] = {"index.html", "plots.gp", "gnuplot.log"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s/%s", outdir, fixed[k]);
        if (mcb_same_file(path, input)) goto clash;
    }
    const char *suffix[] = {".dat", "_table.md", "_table.csv", "_iter.png", "_iter.svg",
                            "_time.png", "_time.svg"};
    for (int s = 0; s < sets->count; s++) {
        char base[256];
        safe_name(sets->items[s], base, sizeof base);
        for (int k = 0; k < 7; k++) {
            snprintf(path, sizeof path, "%s/%s%s", outdir, base, suffix[k]);
            if (mcb_same_file(path, input)) goto clash;
        }
    }
    return MCB_OK;
clash:
    return mcb_fail(err, MCB_E_INPUT, "-o %s: the report would overwrite its input %s (as %s)",
                    outdir, input, path);
}

static void html_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else fputc(*s, f);
    }
}

mcb_rc mcb_report(const char *results_path, const char *outdir, const char *gnuplot,
                  mcb_err *err)
{
    struct stat st;
    if (stat(outdir, &st) == 0 && !S_ISDIR(st.st_mode))
        return mcb_fail(err, MCB_E_INPUT, "-o %s: exists and is not a directory", outdir);
    mcb_results_data *D = NULL;
    mcb_rc rc = mcb_results_read(results_path, &D, err);
    if (rc) return rc;
    strset sets = {0}, solvers = {0};
    for (int k = 0; k < D->count; k++) {
        if (strset_add(&sets, D->runs[k].problem_set) < 0 ||
            strset_add(&solvers, D->runs[k].solver) < 0) {
            mcb_results_data_free(&D);
            return mcb_fail(err, MCB_E_INPUT, "%s: more than 256 problem sets or solvers",
                            results_path);
        }
    }
    if ((rc = check_targets(results_path, outdir, &sets, err)) || (rc = mcb_mkdirs(outdir, err))) {
        mcb_results_data_free(&D);
        return rc;
    }
    int col = 2 + mcb_metric_from_name(D->stop_metric);
    if (col < 2) col = 2 + MCB_M_NATMAP;
    /* index.html is written under a temporary name and appears only when
     * the whole report (plots included) is complete */
    char html_tmp[64], html_path[4200];
    snprintf(html_tmp, sizeof html_tmp, "index.html.partial%ld", (long)getpid());
    snprintf(html_path, sizeof html_path, "%s/%s", outdir, html_tmp);
    FILE *html = mcb_tmp_register(html_path) ? NULL : open_out(outdir, html_tmp, "", err);
    FILE *gp = html ? open_out(outdir, "plots", ".gp", err) : NULL;
    if (!html || !gp) {
        if (html) fclose(html);
        unlink(html_path);
        mcb_tmp_unregister(html_path);
        mcb_results_data_free(&D);
        return MCB_E_IO;
    }
    fprintf(html, "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>mcbench report</title>"
                  "<style>body{font-family:sans-serif;margin:2em;max-width:1300px}"
                  "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;"
                  "padding:3px 8px;text-align:right}td:first-child{text-align:left}"
                  "img{max-width:49%%}</style></head><body>\n<h1>mcbench report</h1>\n");
    fprintf(html, "<p>Results: <code>");
    html_escape(html, results_path);
    char csv_name[4200], rp[4200];
    snprintf(rp, sizeof rp, "%s", results_path);
    mcb_path_with_ext(basename(rp), ".csv", csv_name, sizeof csv_name);
    fprintf(html, "</code> (<a href='%s'>%s</a> when written beside it). ", csv_name, csv_name);
    fprintf(html, "Date %s, revision %s, CPU %s, compiler %s, %d thread(s).</p>\n",
            D->date ? D->date : "?", D->git_revision ? D->git_revision : "?",
            D->cpu_model ? D->cpu_model : "?", D->compiler ? D->compiler : "?", D->threads);
    fprintf(html, "<p>Budget for every solver: %d iterations, %g s wall time (setup included), "
                  "tolerance %g on the harness's <b>%s</b> residual. Every residual is recomputed "
                  "by the harness from the returned solution; solver time excludes measurement. "
                  "Curves are medians over the set's problems; a run that stopped contributes "
                  "its final value.</p>\n",
            D->max_iters, D->time_limit_s, D->tol, D->stop_metric);
    for (int s = 0; s < sets.count && !rc; s++) {
        char base[256];
        safe_name(sets.items[s], base, sizeof base);
        FILE *dat = open_out(outdir, base, ".dat", err);
        FILE *md = dat ? open_out(outdir, base, "_table.md", err) : NULL;
        FILE *csv = md ? open_out(outdir, base, "_table.csv", err) : NULL;
        if (!dat || !md || !csv) {
            rc = MCB_E_IO;
            if (dat) fclose(dat);
            if (md) fclose(md);
            break;
        }
        int has[256];
        write_curves(dat, D, sets.items[s], &solvers, col, has);
        fclose(dat);
        write_plot_script(gp, outdir, base, sets.items[s], &solvers, has, D->stop_metric, D->tol);
        fprintf(md, "# %s\n\n", sets.items[s]);
        fprintf(html, "<h2>");
        html_escape(html, sets.items[s]);
        fprintf(html, "</h2>\n");
        write_tables(D, sets.items[s], &solvers, col, md, csv, html);
        fprintf(html, "<p><a href='%s_table.md'>Markdown</a> | <a href='%s_table.csv'>CSV</a> | "
                      "<a href='%s_iter.svg'>SVG (iteration)</a> | <a href='%s_time.svg'>SVG (time)"
                      "</a></p>\n<img src='%s_iter.png' alt='residual against iteration'> "
                      "<img src='%s_time.png' alt='residual against time'>\n",
                base, base, base, base, base, base);
        fclose(md);
        fclose(csv);
    }
    fprintf(html, "</body></html>\n");
    int closed = fclose(html) == 0;
    fclose(gp);
    mcb_results_data_free(&D);
    if (!rc && !closed) rc = mcb_fail(err, MCB_E_IO, "%s: cannot write", html_path);
    if (!rc) {
        char cmd[8600];
        snprintf(cmd, sizeof cmd, "'%s' '%s/plots.gp' 2>'%s/gnuplot.log'",
                 gnuplot ? gnuplot : "gnuplot", outdir, outdir);
        int gst = system(cmd);
        if (gst != 0)
            rc = mcb_fail(err, MCB_E_IO,
                          "gnuplot failed (exit %d; see %s/gnuplot.log). Is it installed? Debian "
                          "package: gnuplot-nox", gst, outdir);
    }
    char final_path[4200];
    snprintf(final_path, sizeof final_path, "%s/index.html", outdir);
    if (!rc && rename(html_path, final_path) != 0)
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot move into place (%s)", final_path,
                      strerror(errno));
    if (rc) unlink(html_path);
    mcb_tmp_unregister(html_path);
    return rc;
}

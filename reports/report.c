/* report.c: per problem set, two convergence plots (harness stop metric
 * against iteration and against solver time, one curve per solver: the
 * median over the set's problems, a run that stopped early contributing its
 * final value), a table per solver (success rate, median iterations, setup
 * and solve time, final residuals, spread over repetitions), performance
 * profiles of the time to tolerance and of the iterations and a data
 * profile of the time (profile.h), per set and over all sets; a table per
 * problem (problems.{csv,md}); index.html showing them all, naming every
 * file relative to the output directory. Plots are drawn by gnuplot run in
 * the output directory, so plots.gp and the data files name nothing outside
 * it. Every name read from the results file is escaped where it is written
 * (HTML, Markdown, CSV, gnuplot strings). */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mcb_paths.h"
#include "outcomes.h"
#include "plot_difficulty.h"
#include "profile.h"
#include "results.h"

/* A list of names (borrowed). */
typedef struct {
    int count;
    const char **items;
} namelist;

static int isalnum_c(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void safe_name(const char *s, char *out, size_t len)
{
    size_t k = 0;
    for (; *s && k + 1 < len; s++)
        out[k++] = (isalnum_c(*s) || *s == '-' || *s == '_') ? *s : '_';
    out[k] = '\0';
}

/* ------------------------------------------------------ escaping, by format */

static void html_escape(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '<') fputs("&lt;", f);
        else if (*s == '>') fputs("&gt;", f);
        else if (*s == '&') fputs("&amp;", f);
        else if (*s == '"') fputs("&quot;", f);
        else if (*s == '\'') fputs("&#39;", f);
        else fputc(*s, f);
    }
}

/* A relative URL: every byte but unreserved characters and '/' as %XX. */
static void url_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum_c((char)c) || strchr("-._~/", c)) fputc(c, f);
        else fprintf(f, "%%%02X", c);
    }
}

/* A gnuplot single-quoted string ('' is a quote; no line breaks). */
static void gp_quote(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputs("''", f);
        else fputc((unsigned char)*s < 32 ? '?' : *s, f);
    }
    fputc('\'', f);
}

/* A CSV field, quoted when it holds a comma, a quote, a line break or
 * leading or trailing spaces (RFC 4180). */
static void csv_field(FILE *f, const char *s)
{
    size_t n = strlen(s);
    if (!strpbrk(s, ",\"\r\n") && !(n && (s[0] == ' ' || s[n - 1] == ' '))) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A Markdown table cell: '|' escaped, line breaks as spaces. */
static void md_cell(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
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
static int write_curves(FILE *dat, const mcb_results_data *D, const char *set, const namelist *solvers,
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
            double mv = mcb_median(vals, c), mt = mcb_median(times, c);
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

static const char *const terms[2][2] = {
    {"pngcairo size 900,600 noenhanced font 'Sans,11'", "png"},
    {"svg size 900,600 noenhanced font 'Sans,11'", "svg"}};

static void write_plot_script(FILE *g, const char *base, const char *set, const namelist *solvers,
                              const int *has, const char *metric, double tol)
{
    for (int t = 0; t < 2; t++)
        for (int kind = 0; kind < 2; kind++) {
            fprintf(g, "reset\nset terminal %s\n", terms[t][0]);
            fprintf(g, "set output '%s_%s.%s'\n", base, kind ? "time" : "iter", terms[t][1]);
            char title[512];
            snprintf(title, sizeof title, "%s: median %s against %s", set, metric,
                     kind ? "solver time" : "iteration");
            fprintf(g, "set title ");
            gp_quote(g, title);
            fprintf(g, "\nset xlabel '%s'\nset ylabel ",
                    kind ? "solver time (s, setup excluded)" : "iteration");
            snprintf(title, sizeof title, "%s residual (median over problems)", metric);
            gp_quote(g, title);
            fprintf(g, "\nset logscale y\nset format y '%%.0e'\nset grid\nset key outside right\n");
            if (kind) fprintf(g, "set logscale x\n");
            fprintf(g, "plot ");
            int first = 1;
            for (int s = 0; s < solvers->count; s++) {
                if (!has[s]) continue;
                fprintf(g, "%s'%s.dat' index %d using %s with linespoints pt 7 ps 0.4 title ",
                        first ? "" : ", ", base, s, kind ? "($3>0?$3:1/0):2" : "1:2");
                gp_quote(g, solvers->items[s]);
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

static void fmt_num(char *b, size_t n, double x)
{
    if (isnan(x)) snprintf(b, n, "-");
    else snprintf(b, n, "%.3g", x);
}

static void write_tables(const mcb_results_data *D, const char *set, const namelist *solvers,
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
        fputs("| ", md);
        md_cell(md, solvers->items[s]);
        fprintf(md, " | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                st.runs, st.solved, st.skipped, f[8], f[0], f[1], f[2], f[12], f[3],
                f[4], f[5], f[6], f[7], f[9], f[10], f[11]);
        csv_field(csv, solvers->items[s]);
        fprintf(csv, ",%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.6g,%d,%.6g,%d\n",
                st.runs, st.solved, st.skipped, isnan(rate) ? "nan" : f[8],
                f[0], f[1], f[2], f[12], f[3], f[4], f[5], f[6], f[7], f[9], st.to_ms[0], st.reached[0],
                st.to_ms[1], st.reached[1]);
        fputs("<tr><td>", html);
        html_escape(html, solvers->items[s]);
        fprintf(html, "</td><td>%d</td><td>%d</td><td>%d</td><td>%s</td><td>%s</td>"
                      "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                      "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
                st.runs, st.solved, st.skipped, f[8], f[0], f[1], f[2], f[12], f[3],
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

/* ------------------------------------------------------------ file names */

/* Every file of a set is its base name followed by one of these. No
 * suffix is another one preceded by characters a base name may hold
 * ([A-Za-z0-9_-]), so sets with different base names never share a file. */
static const char *const set_suffixes[] = {
    ".dat",         "_table.md",    "_table.csv",   "_iter.png",    "_iter.svg",
    "_time.png",    "_time.svg",    "_pp-time.png", "_pp-time.svg", "_pp-iter.png",
    "_pp-iter.svg", "_dp-time.png", "_dp-time.svg"};
#define NSUFFIXES (int)(sizeof set_suffixes / sizeof *set_suffixes)
static const char *const report_files[] = {"index.html", "plots.gp", "gnuplot.log",
                                           "problems.csv", "problems.md"};
/* The base of the profiles over all sets: its '.' is in no set's base. */
#define ALL_SETS_BASE "all.sets"

typedef char base_name[128];

/* 1 when base is bases[j] for a j < i or, with later, a later set's own
 * base name. */
static int base_taken(const mcb_outcomes *O, const base_name *bases, int i, const char *base,
                      int later)
{
    for (int j = 0; j < O->nsets; j++) {
        base_name own;
        if (j < i && strcmp(bases[j], base) == 0) return 1;
        if (j > i && later) {
            safe_name(O->sets[j], own, sizeof own);
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
        safe_name(O->sets[i], own, sizeof own);
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

/* ------------------------------------------------------------- profiles */

typedef struct {
    const char *suffix, *title, *xlabel;
    int iters, relative;
    double floor;
} profile_kind;

static const profile_kind profile_kinds[3] = {
    {"_pp-time", "performance profile of the time to tolerance",
     "log2(tau), tau = time to tolerance / the best solver's", 0, 1, MCB_PROFILE_TIME_FLOOR},
    {"_pp-iter", "performance profile of the iterations",
     "log2(tau), tau = iterations / the best solver's", 1, 1, MCB_PROFILE_ITER_FLOOR},
    {"_dp-time", "data profile of the time to tolerance",
     "time to tolerance (s, setup + solve)", 0, 0, MCB_PROFILE_TIME_FLOOR},
};

/* Writes profile P into dat (gnuplot indices first .. first + nsolvers - 1)
 * and its two plots into gp. Each curve is carried on to the plot's right
 * end, beyond P->hi, so that even a single point shows as a line. */
static void plot_profile(FILE *dat, FILE *gp, int first, const char *base, const char *label,
                         const profile_kind *K, const mcb_profile *P, const namelist *solvers)
{
    double xmin = K->relative ? 0 : P->lo / 2;
    double xmax = K->relative ? fmax(1, 1.1 * log2(P->hi)) : 2 * P->hi;
    double end = K->relative ? exp2(xmax) : xmax;
    size_t stride = (size_t)P->nproblems + 2;
    for (int s = 0; s < P->nsolvers; s++) {
        const double *tau = P->tau + stride * s, *rho = P->rho + stride * s;
        fprintf(dat, "# %s, solver %d: tau, fraction of the %d problems\n", K->title, s,
                P->nproblems);
        if (!K->relative) fprintf(dat, "%.9g 0\n", xmin); /* nothing is solved before lo */
        for (int k = 0; k < P->npoints[s]; k++) fprintf(dat, "%.9g %.9g\n", tau[k], rho[k]);
        fprintf(dat, "%.9g %.9g\n\n\n", end, rho[P->npoints[s] - 1]);
    }
    char title[600];
    snprintf(title, sizeof title, "%s: %s (%d problems, %d solved by no solver)", label,
             K->title, P->nproblems, P->unsolved);
    for (int t = 0; t < 2; t++) {
        fprintf(gp, "reset\nset terminal %s\nset output '%s%s.%s'\nset title ", terms[t][0], base,
                K->suffix, terms[t][1]);
        gp_quote(gp, title);
        fprintf(gp, "\nset xlabel ");
        gp_quote(gp, K->xlabel);
        fprintf(gp, "\nset ylabel 'fraction of problems solved'\nset yrange [0:1.05]\n"
                    "set grid\nset key outside right\n");
        if (K->relative) fprintf(gp, "set xrange [0:%.9g]\n", xmax);
        else fprintf(gp, "set logscale x\nset format x '%%.0e'\nset xrange [%.9g:%.9g]\n",
                     xmin, xmax);
        fprintf(gp, "plot ");
        for (int s = 0; s < P->nsolvers; s++) {
            fprintf(gp, "%s'%s.dat' index %d using %s with steps lw 2 dt %d title ",
                    s ? ", " : "", base, first + s, K->relative ? "(log($1)/log(2)):2" : "1:2",
                    s % 5 + 1);
            gp_quote(gp, solvers->items[s]);
        }
        fprintf(gp, "\n");
    }
}

static void html_link(FILE *html, const char *base, const char *suffix, const char *text)
{
    fputs("<a href='", html);
    url_escape(html, base);
    url_escape(html, suffix);
    fprintf(html, "'>%s</a>", text);
}

/* The three profiles of the problems of set `set` (-1: every set): data
 * into dat from gnuplot index `first` on, plots into gp, images into html. */
static mcb_rc write_profiles(FILE *dat, FILE *gp, FILE *html, int first, const char *base,
                             const char *label, const mcb_outcomes *O, int set, mcb_err *err)
{
    int ns = O->nsolvers, np = 0;
    double *t = mcb_malloc((size_t)O->nproblems * ns, sizeof *t);
    if (!t) return mcb_fail(err, MCB_E_NOMEM, "profiles of %s: out of memory", label);
    mcb_rc rc = MCB_OK;
    int unsolved = 0;
    for (int k = 0; k < 3 && !rc; k++) {
        const double *m = profile_kinds[k].iters ? O->iters : O->time_s;
        np = 0;
        for (int p = 0; p < O->nproblems; p++)
            if (set < 0 || O->set[p] == set)
                memcpy(t + (size_t)np++ * ns, m + (size_t)p * ns, (size_t)ns * sizeof *t);
        mcb_profile P;
        if ((rc = mcb_profile_compute(t, np, ns, profile_kinds[k].floor, profile_kinds[k].relative,
                                      &P, err)))
            break;
        namelist solvers = {O->nsolvers, O->solvers};
        plot_profile(dat, gp, first + k * ns, base, label, &profile_kinds[k], &P, &solvers);
        if (k == 0) unsolved = P.unsolved;
        mcb_profile_free(&P);
    }
    free(t);
    if (rc) return rc;
    fprintf(html, "<h3>Profiles</h3>\n<p>%d problem%s; ", np, np == 1 ? "" : "s");
    if (unsolved)
        fprintf(html, "<b>%d solved by no solver</b> (%s in every curve's denominator, so no "
                      "curve reaches 1). ", unsolved, unsolved == 1 ? "it counts" : "they count");
    else fprintf(html, "each solved by at least one solver. ");
    fprintf(html, "SVG: ");
    for (int k = 0; k < 3; k++) {
        char svg[80];
        snprintf(svg, sizeof svg, "%s.svg", profile_kinds[k].suffix);
        html_link(html, base, svg, profile_kinds[k].title);
        fputs(k < 2 ? " | " : "</p>\n", html);
    }
    for (int k = 0; k < 3; k++) {
        fputs("<img src='", html);
        url_escape(html, base);
        fprintf(html, "%s.png' alt='%s'>%s", profile_kinds[k].suffix, profile_kinds[k].title,
                k < 2 ? " " : "\n");
    }
    return MCB_OK;
}

/* ------------------------------------------------------ per-problem table */

enum { FMT_CSV, FMT_MD, FMT_HTML };

static void cell(FILE *f, int fmt, int first, const char *text)
{
    if (fmt == FMT_CSV) {
        if (!first) fputc(',', f);
        csv_field(f, text);
    } else if (fmt == FMT_MD) {
        fputs(first ? "| " : " | ", f);
        md_cell(f, text);
    } else {
        fputs("<td>", f);
        html_escape(f, text);
        fputs("</td>", f);
    }
}

static void row_end(FILE *f, int fmt)
{
    fputs(fmt == FMT_MD ? " |\n" : fmt == FMT_HTML ? "</tr>\n" : "\n", f);
}

static void cell_num(FILE *f, int fmt, double x)
{
    char b[48];
    if (!isfinite(x)) snprintf(b, sizeof b, "%s", fmt == FMT_CSV ? "" : "-");
    else snprintf(b, sizeof b, fmt == FMT_CSV ? "%.6g" : "%.3g", x);
    cell(f, fmt, 0, b);
}

/* One problem: (its set, in CSV and Markdown,) its name, the best solvers
 * (ties separated by spaces; none when no solver solved it), and per
 * solver the status, the time to tolerance (ms) and the ratio to the best.
 * ratio: nsolvers doubles of scratch. */
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
    if (fmt == FMT_HTML) fputs("<tr>", f);
    else cell(f, fmt, 1, O->sets[O->set[p]]);
    cell(f, fmt, fmt == FMT_HTML, O->problem[p]);
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

/* problems.csv and problems.md: every problem of every set. */
static mcb_rc write_problem_files(const char *outdir, const mcb_outcomes *O, mcb_err *err)
{
    double *ratio = mcb_malloc((size_t)O->nsolvers, sizeof *ratio);
    if (!ratio) return mcb_fail(err, MCB_E_NOMEM, "per-problem table: out of memory");
    FILE *f[2] = {open_out(outdir, "problems", ".csv", err), NULL};
    if (f[0]) f[1] = open_out(outdir, "problems", ".md", err);
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

/* The problems of one set as an HTML table (folded when long). */
static mcb_rc write_problem_html(FILE *html, const mcb_outcomes *O, int set, mcb_err *err)
{
    double *ratio = mcb_malloc((size_t)O->nsolvers, sizeof *ratio);
    if (!ratio) return mcb_fail(err, MCB_E_NOMEM, "per-problem table: out of memory");
    int np = 0;
    for (int p = 0; p < O->nproblems; p++) np += O->set[p] == set;
    fprintf(html, "<details%s><summary>Per problem (%d): status, time to tolerance (median "
                  "over repetitions), ratio to the best solver's</summary>\n<table><tr>"
                  "<th rowspan='2'>problem</th><th rowspan='2'>best</th>",
            np <= 30 ? " open" : "", np);
    for (int s = 0; s < O->nsolvers; s++) {
        fputs("<th colspan='3'>", html);
        html_escape(html, O->solvers[s]);
        fputs("</th>", html);
    }
    fputs("</tr>\n<tr>", html);
    for (int s = 0; s < O->nsolvers; s++)
        fputs("<th>status</th><th>time (ms)</th><th>ratio</th>", html);
    fputs("</tr>\n", html);
    for (int p = 0; p < O->nproblems; p++)
        if (O->set[p] == set) problem_row(html, FMT_HTML, O, p, ratio);
    fputs("</table></details>\n", html);
    free(ratio);
    return MCB_OK;
}

/* --------------------------------------------------------------- index.html */

/* A link to `target`, named relative to the output directory. */
static void html_file_link(FILE *html, const char *outdir, const char *target)
{
    char rel[4200];
    if (mcb_path_relative(outdir, target, rel, sizeof rel) != 0)
        snprintf(rel, sizeof rel, "%s", target);
    fputs("<a href='", html);
    url_escape(html, rel);
    fputs("'><code>", html);
    html_escape(html, rel);
    fputs("</code></a>", html);
}

static void write_html_head(FILE *html, const mcb_results_data *D, const char *results_path,
                            const char *outdir)
{
    fprintf(html, "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>mcbench report</title>"
                  "<style>body{font-family:sans-serif;margin:2em;max-width:1300px}"
                  "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #bbb;"
                  "padding:3px 8px;text-align:right}td:first-child{text-align:left}"
                  "th[colspan]{text-align:center}img{max-width:49%%}</style></head><body>\n"
                  "<h1>mcbench report</h1>\n");
    fprintf(html, "<p>Results: ");
    html_file_link(html, outdir, results_path);
    char csv[4200];
    mcb_path_with_ext(results_path, ".csv", csv, sizeof csv);
    if (access(csv, R_OK) == 0) {
        fprintf(html, " and, beside it, ");
        html_file_link(html, outdir, csv);
    }
    fprintf(html, ". Date ");
    html_escape(html, D->date ? D->date : "?");
    fprintf(html, ", revision ");
    html_escape(html, D->git_revision ? D->git_revision : "?");
    fprintf(html, ", CPU ");
    html_escape(html, D->cpu_model ? D->cpu_model : "?");
    fprintf(html, ", compiler ");
    html_escape(html, D->compiler ? D->compiler : "?");
    fprintf(html, ", %d thread(s).</p>\n", D->threads);
    fprintf(html, "<p>Budget for every solver: %d iterations, %g s wall time (setup included), "
                  "tolerance %g on the harness's <b>",
            D->max_iters, D->time_limit_s, D->tol);
    html_escape(html, D->stop_metric);
    fprintf(html, "</b> residual. Every residual is recomputed by the harness from the returned "
                  "solution; solver time excludes measurement. Curves are medians over the set's "
                  "problems; a run that stopped contributes its final value.</p>\n"
                  "<p><b>Profiles.</b> A solver solves a problem when its run ends "
                  "<code>solved</code>; with repetitions, the time to tolerance (setup + solve) "
                  "and the iterations of (problem, solver) are medians over the repetitions, a "
                  "repetition that did not solve counting as infinite, so the pair counts as "
                  "solved when more than half of them did. Performance profiles (Dolan and "
                  "Mor&eacute; 2002): for each solver, the fraction of the problems it solved "
                  "within a factor tau of the best solver on each problem, against "
                  "log2(tau); at log2(tau) = 0, the fraction on which it was the best (ties "
                  "count for every tied solver). The data profile: the fraction of the problems "
                  "solved within a time to tolerance, against that time. Every problem counts "
                  "in the denominator, those no solver solved included. Times below %g s and "
                  "iteration counts below %g are raised to those floors.</p>\n"
                  "<p>Every problem: ",
            MCB_PROFILE_TIME_FLOOR, MCB_PROFILE_ITER_FLOOR);
    html_link(html, "problems", ".csv", "CSV");
    fputs(" | ", html);
    html_link(html, "problems", ".md", "Markdown");
    fputs(" | plots redrawn by <code>gnuplot plots.gp</code> in this directory: ", html);
    html_link(html, "plots", ".gp", "plots.gp");
    fputs("</p>\n", html);
}

/* One set's section: convergence data, plots, solver table, profiles and
 * the per-problem table. */
static mcb_rc write_set(FILE *html, FILE *gp, const char *outdir, const mcb_results_data *D,
                        const mcb_outcomes *O, int set, const char *base, int col, mcb_err *err)
{
    const char *name = O->sets[set];
    namelist solvers = {O->nsolvers, O->solvers};
    FILE *dat = open_out(outdir, base, ".dat", err);
    FILE *md = dat ? open_out(outdir, base, "_table.md", err) : NULL;
    FILE *csv = md ? open_out(outdir, base, "_table.csv", err) : NULL;
    int *has = mcb_malloc((size_t)O->nsolvers, sizeof *has);
    mcb_rc rc = !has ? mcb_fail(err, MCB_E_NOMEM, "%s: out of memory", name)
                : csv ? MCB_OK : MCB_E_IO;
    if (!rc) {
        write_curves(dat, D, name, &solvers, col, has);
        write_plot_script(gp, base, name, &solvers, has, D->stop_metric, D->tol);
        fputs("# ", md);
        md_cell(md, name);
        fputs("\n\n", md);
        fprintf(html, "<h2>");
        html_escape(html, name);
        fprintf(html, "</h2>\n");
        write_tables(D, name, &solvers, col, md, csv, html);
        fputs("<p>", html);
        html_link(html, base, "_table.md", "Markdown");
        fputs(" | ", html);
        html_link(html, base, "_table.csv", "CSV");
        fputs(" | ", html);
        html_link(html, base, "_iter.svg", "SVG (iteration)");
        fputs(" | ", html);
        html_link(html, base, "_time.svg", "SVG (time)");
        fputs("</p>\n<img src='", html);
        url_escape(html, base);
        fputs("_iter.png' alt='residual against iteration'> <img src='", html);
        url_escape(html, base);
        fputs("_time.png' alt='residual against time'>\n", html);
        rc = write_profiles(dat, gp, html, O->nsolvers, base, name, O, set, err);
    }
    if (!rc) rc = write_problem_html(html, O, set, err);
    int closed = 1;
    if (dat) closed &= fclose(dat) == 0;
    if (md) closed &= fclose(md) == 0;
    if (csv) closed &= fclose(csv) == 0;
    free(has);
    if (!rc && !closed) rc = mcb_fail(err, MCB_E_IO, "%s/%s.*: cannot write", outdir, base);
    return rc;
}

/* The profiles over every set (when there are several). */
static mcb_rc write_all_sets(FILE *html, FILE *gp, const char *outdir, const mcb_outcomes *O,
                             mcb_err *err)
{
    FILE *dat = open_out(outdir, ALL_SETS_BASE, ".dat", err);
    if (!dat) return MCB_E_IO;
    fprintf(html, "<h2>All sets</h2>\n");
    mcb_rc rc = write_profiles(dat, gp, html, 0, ALL_SETS_BASE, "all sets", O, -1, err);
    if (fclose(dat) != 0 && !rc)
        rc = mcb_fail(err, MCB_E_IO, "%s/%s.dat: cannot write", outdir, ALL_SETS_BASE);
    return rc;
}

/* Runs gnuplot on plots.gp inside outdir, so that the script names only
 * files of that directory; its messages go to gnuplot.log. */
static mcb_rc run_gnuplot(const char *outdir, const char *gnuplot, mcb_err *err)
{
    const char *prog = gnuplot ? gnuplot : "gnuplot";
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return mcb_fail(err, MCB_E_IO, "cannot start gnuplot (%s)", strerror(errno));
    if (pid == 0) {
        int fd = chdir(outdir) == 0 ? open("gnuplot.log", O_WRONLY | O_CREAT | O_TRUNC, 0666) : -1;
        if (fd < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(126);
        execlp(prog, prog, "plots.gp", (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return mcb_fail(err, MCB_E_IO, "gnuplot: %s", strerror(errno));
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return MCB_OK;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
        return mcb_fail(err, MCB_E_IO, "cannot run %s: is gnuplot installed? Debian package: "
                                       "gnuplot-nox", prog);
    return mcb_fail(err, MCB_E_IO, "gnuplot failed (%s %d; see %s/gnuplot.log)",
                    WIFEXITED(st) ? "exit" : "signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), outdir);
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
    mcb_outcomes O;
    base_name *bases = NULL;
    FILE *html = NULL, *gp = NULL;
    char html_tmp[64], html_path[4200];
    html_path[0] = '\0';
    if ((rc = mcb_outcomes_build(D, &O, err))) goto done;
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
    /* index.html is written under a temporary name and appears only when
     * the whole report (plots included) is complete */
    snprintf(html_tmp, sizeof html_tmp, "index.html.partial%ld", (long)getpid());
    snprintf(html_path, sizeof html_path, "%s/%s", outdir, html_tmp);
    if (mcb_tmp_register(html_path) == 0) html = open_out(outdir, html_tmp, "", err);
    else mcb_fail(err, MCB_E_IO, "%s: too many temporary files", html_path);
    gp = html ? open_out(outdir, "plots", ".gp", err) : NULL;
    if (!gp) {
        rc = MCB_E_IO;
        goto done;
    }
    write_html_head(html, D, results_path, outdir);
    rc = write_problem_files(outdir, &O, err);
    for (int s = 0; s < O.nsets && !rc; s++)
        rc = write_set(html, gp, outdir, D, &O, s, bases[s], col, err);
    if (!rc && O.nsets > 1) rc = write_all_sets(html, gp, outdir, &O, err);
    if (!rc) rc = mcb_plot_difficulty(html, gp, outdir, D, &O, err);
    fprintf(html, "</body></html>\n");
    int closed = fclose(html) == 0;
    closed &= fclose(gp) == 0;
    html = gp = NULL;
    if (!rc && !closed) rc = mcb_fail(err, MCB_E_IO, "%s: cannot write", html_path);
    if (!rc) rc = run_gnuplot(outdir, gnuplot, err);
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

/* plots.c: the report's gnuplot plots and the data files they read:
 * performance and data profiles (profile.h) and the convergence curves of a
 * set (curves.h: median and quartiles over the runs still going, with their
 * count on the right axis). Plots are wide (1400 x 700, profiles 1400 x 540), with a 14-point
 * font and the key below the plot, so that a page can show them at its
 * full width and the legend stays legible with a dozen solvers. Log axes
 * label their tics 10^n (iterations 1, 10, 100) on enhanced terminals,
 * every text set noenhanced (html.h). Every name is quoted for gnuplot;
 * data files are named relative to the output directory, where gnuplot
 * runs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/curves.h"
#include "reports/html.h"
#include "reports/profile.h"
#include "reports/report_pages.h"
#include "reports/resample.h"

const char *const mcb_plot_terms[2][2] = {
    {"pngcairo size 1400,700 enhanced font 'Sans,14'", "png"},
    {"svg size 1400,700 enhanced font 'Sans,14' background rgb 'white'", "svg"}};
/* Profiles are lower, so that the summary shows one with its key at once. */
static const char *const profile_terms[2][2] = {
    {"pngcairo size 1400,540 enhanced font 'Sans,14'", "png"},
    {"svg size 1400,540 enhanced font 'Sans,14' background rgb 'white'", "svg"}};

/* Below the plot, as many columns as fit; solver names as they are
 * (the terminals are enhanced for the log axes' tic labels: html.h). */
const char mcb_gp_key_below[] =
    "set key outside bottom center horizontal spacing 1.2 width 1 noenhanced\n";

const mcb_profile_kind mcb_profile_kinds[3] = {
    {"_pp-time", "performance profile of the time to tolerance",
     "log2(tau), tau = time to tolerance / the best solver's", 0, 1, MCB_PROFILE_TIME_FLOOR},
    {"_pp-iter", "performance profile of the iterations",
     "log2(tau), tau = iterations / the best solver's", 1, 1, MCB_PROFILE_ITER_FLOOR},
    {"_dp-time", "data profile of the time to tolerance",
     "time to tolerance (s, setup + solve)", 0, 0, MCB_PROFILE_TIME_FLOOR},
};

void mcb_gp_solver_style(FILE *gp, int s)
{
    fprintf(gp, "lc %d dt %d", s % 8 + 1, s / 8 % 5 + 1);
}

/* Profile P into dat (indices first ..) and its two plots into gp. Each
 * curve is carried on to the plot's right end, beyond P->hi, so that even
 * a single point shows as a line. The data profile's log axis spans whole
 * decades around [lo / 2, 2 hi], so that it has labelled tics (gnuplot
 * labels only powers of ten on a log axis). */
static void plot_profile(FILE *dat, FILE *gp, int first, const char *base, const char *label,
                         const mcb_profile_kind *K, const mcb_profile *P, const char **solvers,
                         int band)
{
    double xmin = K->relative ? 0 : pow(10, floor(log10(P->lo / 2)));
    double xmax = K->relative ? fmax(1, 1.1 * log2(P->hi)) : pow(10, ceil(log10(2 * P->hi)));
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
        fprintf(gp, "reset\nset terminal %s\nset output '%s%s.%s'\n", profile_terms[t][0], base,
                K->suffix, profile_terms[t][1]);
        mcb_gp_text(gp, "title", title);
        mcb_gp_text(gp, "xlabel", K->xlabel);
        mcb_gp_text(gp, "ylabel", "fraction of problems solved");
        fprintf(gp, "set yrange [0:1.05]\nset grid\n%s", mcb_gp_key_below);
        if (K->relative) fprintf(gp, "set xrange [0:%.9g]\n", xmax);
        else fprintf(gp, "set logscale x\nset format x '%s'\nset xrange [%.9g:%.9g]\n",
                     MCB_GP_LOG_FORMAT, xmin, xmax);
        if (band >= 0) fputs("set style fill transparent solid 0.15 noborder\n", gp);
        fprintf(gp, "plot ");
        for (int s = 0; s < P->nsolvers; s++) {
            if (band >= 0) /* the 95% band (profile_band), under the curve */
                fprintf(gp, "%s'%s.dat' index %d using (log($1)/log(2)):2:3 with filledcurves "
                            "lc %d notitle", s ? ", " : "", base, band + s, s % 8 + 1);
            fprintf(gp, "%s'%s.dat' index %d using %s with steps lw 3 ",
                    s || band >= 0 ? ", " : "", base,
                    first + s, K->relative ? "(log($1)/log(2)):2" : "1:2");
            mcb_gp_solver_style(gp, s);
            fprintf(gp, " title ");
            mcb_gp_quote(gp, solvers[s]);
        }
        fprintf(gp, "\n");
    }
}

/* The abscissae of the band: MCB_BAND_POINTS from 1 to hi (> 1), evenly
 * spaced in log2(tau). */
#define MCB_BAND_POINTS 48

/* The 95% band of the time profile P of t (np x ns) into lo, hi (ns x
 * MCB_BAND_POINTS) at tau: problems resampled and each cell's repetitions
 * (resample.h). */
static mcb_rc profile_band(const mcb_report_ctx *C, const double *t, const int *cell0, int np,
                           const mcb_profile *P, double *tau, double *lo, double *hi,
                           mcb_err *err)
{
    double top = fmax(P->hi, 2.0);
    for (int g = 0; g < MCB_BAND_POINTS; g++)
        tau[g] = exp2(log2(top) * g / (MCB_BAND_POINTS - 1));
    mcb_reps R;
    mcb_rc rc = mcb_reps_build(C->D, C->O, mcb_rep_time_to_tol, &R, err);
    if (!rc)
        rc = mcb_profile_band(t, np, C->O->nsolvers, MCB_PROFILE_TIME_FLOOR, tau,
                              MCB_BAND_POINTS, &R, cell0, lo, hi, err);
    mcb_reps_free(&R);
    return rc;
}

/* The band's data: one gnuplot index per solver, rows "tau lo hi". */
static void write_band(FILE *dat, const double *tau, const double *lo, const double *hi,
                       int ns, int np)
{
    for (int s = 0; s < ns; s++) {
        fprintf(dat, "# 95%% bootstrap band of the time profile, solver %d: tau, lo, hi "
                     "(fraction of the %d problems)\n", s, np);
        for (int g = 0; g < MCB_BAND_POINTS; g++)
            fprintf(dat, "%.9g %.9g %.9g\n", tau[g], lo[(size_t)s * MCB_BAND_POINTS + g],
                    hi[(size_t)s * MCB_BAND_POINTS + g]);
        fputs("\n\n", dat);
    }
}

mcb_rc mcb_plot_profiles(const mcb_report_ctx *C, FILE *dat, int first, const char *base,
                         const char *label, int set, int *np_out, int *unsolved, mcb_err *err)
{
    const mcb_outcomes *O = C->O;
    int ns = O->nsolvers, np = 0;
    size_t nb = (size_t)ns * MCB_BAND_POINTS;
    double *t = mcb_malloc((size_t)O->nproblems * ns + 1, sizeof *t);
    int *cell0 = mcb_malloc((size_t)O->nproblems + 1, sizeof *cell0);
    double *tau = mcb_malloc(MCB_BAND_POINTS, sizeof *tau), *lo = mcb_malloc(nb, sizeof *lo);
    double *hi = mcb_malloc(nb, sizeof *hi);
    mcb_rc rc = t && cell0 && tau && lo && hi
                    ? MCB_OK
                    : mcb_fail(err, MCB_E_NOMEM, "profiles of %s: out of memory", label);
    int banded = 0;
    for (int k = 0; k < 3 && !rc; k++) {
        const double *m = mcb_profile_kinds[k].iters ? O->iters : O->time_s;
        np = 0;
        for (int p = 0; p < O->nproblems; p++)
            if (set < 0 || O->set[p] == set) {
                cell0[np] = p * ns;
                memcpy(t + (size_t)np++ * ns, m + (size_t)p * ns, (size_t)ns * sizeof *t);
            }
        mcb_profile P;
        if ((rc = mcb_profile_compute(t, np, ns, mcb_profile_kinds[k].floor,
                                      mcb_profile_kinds[k].relative, &P, err)))
            break;
        if (k == 0) rc = profile_band(C, t, cell0, np, &P, tau, lo, hi, err);
        banded |= k == 0 && !rc;
        if (!rc)
            plot_profile(dat, C->gp, first + k * ns, base, label, &mcb_profile_kinds[k], &P,
                         O->solvers, k == 0 ? first + 3 * ns : -1);
        if (k == 0) *unsolved = P.unsolved;
        mcb_profile_free(&P);
    }
    if (!rc && banded) write_band(dat, tau, lo, hi, ns, np);
    *np_out = np;
    free(t);
    free(cell0);
    free(tau);
    free(lo);
    free(hi);
    return rc;
}

/* The curve of solver s on set `set` into dat (one gnuplot index): rows
 * "x median q1 q3 going time" where the median is defined; a residual of 0
 * is raised to 1e-300 for the log axis. 1 when it has rows; *positive is
 * set when one has x > 0 (the log axis shows only those). */
static int write_curve(FILE *dat, const mcb_curve *c, const char *solver, const char *metric,
                       int xcol, int *positive)
{
    fprintf(dat, "# solver %s: %s, median %s, first quartile, third quartile, runs "
                 "still going, median solver time (s); over the runs still going\n",
            solver, xcol ? "solver time (s)" : "iteration", metric);
    int rows = 0;
    for (int k = 0; k < c->npoints; k++) {
        if (isnan(c->median[k])) continue;
        fprintf(dat, "%.9g %.6e %.6e %.6e %d %.6e\n", c->iter[k], fmax(c->median[k], 1e-300),
                fmax(c->q1[k], 1e-300), fmax(c->q3[k], 1e-300), c->going[k], c->time_s[k]);
        rows++;
        if (c->iter[k] > 0) *positive = 1;
    }
    if (!rows) fprintf(dat, "nan nan nan nan nan nan\n");
    fprintf(dat, "\n\n");
    return rows > 0;
}

/* Two plots (png, svg) per abscissa: kind 0 iteration (gnuplot indices
 * 0 .. ns-1 of the set's data), kind 1 solver time (ns .. 2 ns - 1).
 * positive[kind]: some row has an abscissa > 0; without one (every run
 * ended at iteration 0, e.g. steps without a contact) the log axis gets a
 * fixed range and the plot says there is nothing to draw. */
static void convergence_script(FILE *gp, const char *base, const char *set, const char **solvers,
                               const int *has, const int *positive, int ns, int maxgoing,
                               const char *metric, double tol)
{
    for (int t = 0; t < 2; t++)
        for (int kind = 0; kind < 2; kind++) {
            fprintf(gp, "reset\nset terminal %s\n", mcb_plot_terms[t][0]);
            fprintf(gp, "set output '%s_%s.%s'\n", base, kind ? "time" : "iter",
                    mcb_plot_terms[t][1]);
            char title[512];
            snprintf(title, sizeof title, "%s: %s residual against %s, over the runs still going",
                     set, metric, kind ? "solver time" : "iteration");
            mcb_gp_text(gp, "title", title);
            mcb_gp_text(gp, "xlabel", kind ? "solver time (s, setup excluded; log scale)"
                                           : "iteration (log scale; iteration 0 not shown)");
            snprintf(title, sizeof title, "%s residual (median; band: first to third quartile)",
                     metric);
            mcb_gp_text(gp, "ylabel", title);
            mcb_gp_text(gp, "y2label", "runs still going (thin steps)");
            /* iterations as plain numbers (1, 10, 100), times and residuals 10^n */
            fprintf(gp, "set logscale y\nset format y '%s'\nset grid\n%s"
                        "set style fill transparent solid 0.15 noborder\nset logscale x\n"
                        "set format x '%s'\nset ytics nomirror\nset y2tics\n"
                        "set y2range [0:%d]\n",
                    MCB_GP_LOG_FORMAT, mcb_gp_key_below, kind ? MCB_GP_LOG_FORMAT : "%g",
                    maxgoing > 0 ? maxgoing + (maxgoing + 9) / 10 : 1);
            if (!positive[kind]) {
                fputs(kind ? "set xrange [1e-6:1]\n" : "set xrange [1:10]\n", gp);
                fputs("set label 1 'no traced point after the start (iteration 0): nothing to "
                      "draw' at graph 0.5, 0.8 center noenhanced\n", gp);
            }
            fprintf(gp, "plot ");
            int first = 1;
            for (int s = 0; s < ns; s++) {
                if (!has[s]) continue;
                int ix = kind * ns + s;
                fprintf(gp, "%s'%s.dat' index %d using ($1>0?$1:1/0):3:4 with filledcurves "
                            "lc %d notitle, ", first ? "" : ", ", base, ix, s % 8 + 1);
                fprintf(gp, "'%s.dat' index %d using ($1>0?$1:1/0):5 axes x1y2 with steps lw 1 ",
                        base, ix);
                mcb_gp_solver_style(gp, s);
                fprintf(gp, " notitle, '%s.dat' index %d using ($1>0?$1:1/0):2 with lines lw 3 ",
                        base, ix);
                mcb_gp_solver_style(gp, s);
                fprintf(gp, " title ");
                mcb_gp_quote(gp, solvers[s]);
                first = 0;
            }
            if (tol > 0) /* a budget-only campaign (tol 0) has no tolerance line */
                fprintf(gp, "%s%g with lines dt 2 lw 2 lc rgb 'gray' title 'tolerance %g'\n",
                        first ? "" : ", ", tol, tol);
            else
                fprintf(gp, "%s\n", first ? "1 lc rgb 'white' notitle" : ""); /* nothing to draw: an invisible line */
        }
}

mcb_rc mcb_plot_convergence(const mcb_report_ctx *C, FILE *dat, int set, mcb_err *err)
{
    const mcb_results_data *D = C->D;
    const mcb_outcomes *O = C->O;
    int ns = O->nsolvers, maxgoing = 0, positive[2] = {0, 0};
    const mcb_run_rec **runs = mcb_malloc((size_t)D->count + 1, sizeof *runs);
    int *has = mcb_calloc((size_t)ns + 1, sizeof *has);
    mcb_rc rc = runs && has ? MCB_OK
                            : mcb_fail(err, MCB_E_NOMEM, "%s: out of memory", O->sets[set]);
    for (int i = 0; i < 2 * ns && !rc; i++) {
        int s = i % ns, xcol = i / ns;
        /* the set's first repetitions of solver s */
        int n = 0;
        for (int p = 0; p < O->nproblems; p++) {
            int k = O->run[(size_t)p * ns + s];
            if (O->set[p] == set && k >= 0) runs[n++] = &D->runs[k];
        }
        mcb_curve c;
        if ((rc = mcb_curve_compute(runs, n, xcol, C->col, MCB_CURVE_POINTS, &c, err))) break;
        int rows = write_curve(dat, &c, O->solvers[s], mcb_trace_column(C->col), xcol,
                               &positive[xcol]);
        if (!xcol) has[s] = rows; /* a traced run has rows against both */
        if (c.nruns > maxgoing) maxgoing = c.nruns;
        mcb_curve_free(&c);
    }
    if (!rc)
        convergence_script(C->gp, C->bases[set], O->sets[set], O->solvers, has, positive, ns,
                           maxgoing, C->D->stop_metric, C->D->tol);
    free(runs);
    free(has);
    return rc;
}

void mcb_html_figure(FILE *html, const char *base, const char *suffix, const char *alt,
                     const char *caption)
{
    fputs("<figure><img src='", html);
    mcb_url_escape(html, base);
    mcb_url_escape(html, suffix);
    fputs(".svg' alt='", html);
    mcb_html_escape(html, alt);
    fputs("'><figcaption>", html);
    fputs(caption, html);
    fputs(" (", html);
    char sfx[96];
    snprintf(sfx, sizeof sfx, "%s.svg", suffix);
    mcb_html_link(html, base, sfx, "SVG");
    snprintf(sfx, sizeof sfx, "%s.png", suffix);
    fputs(", ", html);
    mcb_html_link(html, base, sfx, "PNG");
    fputs(")</figcaption></figure>\n", html);
}

void mcb_html_more_profiles(FILE *html, const char *base, const char *scope)
{
    fprintf(html, "<details><summary>More profiles%s: iterations, and the data profile of "
                  "the time</summary>\n", scope);
    mcb_html_figure(html, base, "_pp-iter", mcb_profile_kinds[1].title,
                    "Performance profile of the iterations. " MCB_REFUSAL_NOTE);
    mcb_html_figure(html, base, "_dp-time", mcb_profile_kinds[2].title,
                    "Data profile: the fraction of the problems solved within a time to "
                    "tolerance, against that time. " MCB_REFUSAL_NOTE);
    fputs("</details>\n", html);
}

/* report_pages.h: what the report's page writers share (internal to
 * reports/): the report context, the profile and convergence plots
 * (plots.c), the set pages (page_set.c) and the problem pages
 * (page_problem.c). report.c writes the summary page (index.html), the
 * problems tables and runs gnuplot. File names: every file of a set
 * starts with its base name (report.c, assign_bases) followed by one of
 * the suffixes listed in report.c. */
#ifndef MCB_REPORT_PAGES_H
#define MCB_REPORT_PAGES_H

#include <stdio.h>

#include "reports/outcomes.h"
#include "lib/mcb_results.h"

typedef char mcb_base_name[128];

typedef struct {
    const char *outdir;
    const mcb_results_data *D;
    const mcb_outcomes *O;
    const mcb_base_name *bases; /* per set, then the all-sets base */
    int col;                    /* trace column of the stop metric */
    FILE *gp;                   /* plots.gp, run by gnuplot in outdir */
} mcb_report_ctx;

/* The base of the profiles over all sets: its '.' is in no set's base. */
#define MCB_ALL_SETS_BASE "all.sets"
/* The most points of a convergence curve (the traced iterations are thinned). */
#define MCB_CURVE_POINTS 600

/* Said under every profile (HTML): a refusal is a failure there. */
#define MCB_REFUSAL_NOTE                                                                      \
    "A problem a solver does not accept (its run ended <code>skipped</code>: it cannot take "  \
    "the problem&#39;s form or law) counts as a failure of that solver here, so its curve "     \
    "stays at or below the fraction of the problems it accepted; the ranking compares each "   \
    "solver over the problems it accepted"

/* ---- plots.c */
/* The wide plots' terminals: [0] PNG, [1] SVG; each {terminal, extension}. */
extern const char *const mcb_plot_terms[2][2];
/* gnuplot's key below the plot, names as they are (noenhanced). */
extern const char mcb_gp_key_below[];
/* Line style of solver s: gnuplot's 8 colours, then dashes for the next 8. */
void mcb_gp_solver_style(FILE *gp, int s);
typedef struct {
    const char *suffix, *title, *xlabel;
    int iters, relative;
    double floor;
} mcb_profile_kind;
extern const mcb_profile_kind mcb_profile_kinds[3]; /* pp-time, pp-iter, dp-time */

/* The three profiles of the problems of set `set` (-1: every set): their
 * data into dat from gnuplot index `first` on, their plots (BASE_pp-time,
 * ...; .png and .svg) into C->gp. *np: the problems; *unsolved: those no
 * solver solved. */
mcb_rc mcb_plot_profiles(const mcb_report_ctx *C, FILE *dat, int first, const char *base,
                         const char *label, int set, int *np, int *unsolved, mcb_err *err);
/* The convergence curves of set `set` into dat (gnuplot indices 0 ..
 * nsolvers-1 against iteration, then nsolvers .. 2 nsolvers - 1 against
 * solver time) and their plots (BASE_iter, BASE_time: median, quartile band
 * and runs still going) into C->gp. */
mcb_rc mcb_plot_convergence(const mcb_report_ctx *C, FILE *dat, int set, mcb_err *err);
/* <figure> showing BASE+suffix.svg full width, with a caption (HTML) and
 * links to the SVG and the PNG. */
void mcb_html_figure(FILE *html, const char *base, const char *suffix, const char *alt,
                     const char *caption);
/* The folded <details> with the iteration profile and the data profile of
 * BASE; scope is added to its summary (e.g. " over every problem"). */
void mcb_html_more_profiles(FILE *html, const char *base, const char *scope);

/* ---- page_set.c: BASE_set.html, BASE.dat, BASE_table.{md,csv} */
mcb_rc mcb_page_set(const mcb_report_ctx *C, int set, mcb_err *err);
/* A ranking table (class sortable) of the solvers on set `set` (-1: all). */
mcb_rc mcb_html_ranking(FILE *html, const mcb_outcomes *O, int set, mcb_err *err);

/* ---- page_loop.c: the closed-loop section of a set page, when the set has
 * closed-loop runs (loop_stats.h): the outcome table (also BASE_loop.md
 * and BASE_loop.csv), the per-step curves (BASE_loop-time, BASE_loop-res,
 * BASE_loop-pen) and the divergence plot (BASE_loop-div); their data in
 * BASE.loop.dat. */
mcb_rc mcb_page_loop(const mcb_report_ctx *C, FILE *html, int set, mcb_err *err);

/* ---- page_problem.c: BASE_pN.html and BASE_pN.svg per problem (N its
 * problem_index), BASE.traces.dat */
mcb_rc mcb_pages_problems(const mcb_report_ctx *C, int set, mcb_err *err);
/* The file name (no extension) of problem p's page into buf. */
void mcb_problem_page_name(const mcb_report_ctx *C, int p, char *buf, size_t len);

/* ---- speedup.c: the speed-up table with 95% bootstrap intervals of set
 * `set` (-1: every set) against the solver ranked first (docs/reports.md). */
mcb_rc mcb_html_speedup(FILE *html, const mcb_report_ctx *C, int set, mcb_err *err);
/* ---- page_tiers.c: the summary's sections "Accuracy tiers" (per tier of
 * the campaign, lib/mcb_tiers.h: the ranking, the shifted geometric means
 * with shift_s, the profile all.sets_tierK_pp-time; tiers.csv) and
 * "Claimed against verified" (claims.csv) */
mcb_rc mcb_report_tiers(const mcb_report_ctx *C, FILE *html, double shift_s, mcb_err *err);
mcb_rc mcb_report_claims(const mcb_report_ctx *C, FILE *html, mcb_err *err);

#endif

/* plot_difficulty.c: the report's difficulty plot (plot_difficulty.h):
 * per solver, each problem it solved as a point (cond(W), median time to
 * tolerance, setup + solve), log-log, from the results file's
 * /descriptors and the problems x solvers matrix (outcomes.h). Problems
 * are matched to descriptors by (set, name). Writes
 * OUTDIR/difficulty.cond.dat (a name no set's base name can take: base
 * names hold no '.'); gnuplot draws difficulty.cond.{png,svg} with the
 * report's other plots. Allocates one index array, freed on return. */
#include "reports/plot_difficulty.h"

#include "reports/html.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define DIFF_BASE "difficulty.cond"

/* Per problem of O, its descriptor's cond(W), NaN when unknown. */
static void cond_per_problem(const mcb_results_data *D, const mcb_outcomes *O, double *cond)
{
    for (int p = 0; p < O->nproblems; p++) {
        cond[p] = NAN;
        const char *set = O->sets[O->set[p]];
        for (int k = 0; k < D->ndesc; k++)
            if (!strcmp(D->desc[k].problem, O->problem[p]) &&
                !strcmp(D->desc[k].problem_set, set)) {
                cond[p] = D->desc[k].d.cond_w;
                break;
            }
    }
}

/* One gnuplot index per solver; returns the points written. */
static int write_points(FILE *dat, const mcb_outcomes *O, const double *cond)
{
    int points = 0;
    for (int s = 0; s < O->nsolvers; s++) {
        fprintf(dat, "# solver %s: cond_w time_to_tol_s\n", O->solvers[s]);
        int rows = 0;
        for (int p = 0; p < O->nproblems; p++) {
            double t = O->time_s[(size_t)p * O->nsolvers + s];
            if (!isfinite(cond[p]) || !(t > 0) || !isfinite(t)) continue;
            fprintf(dat, "%.9g %.9g\n", cond[p], t);
            rows++;
        }
        if (!rows) fprintf(dat, "NaN NaN\n"); /* keeps the index numbering */
        points += rows;
        fputs("\n\n", dat);
    }
    return points;
}


static void write_script(FILE *gp, const mcb_outcomes *O)
{
    static const char *const term[2][2] = {
        {"pngcairo size 1200,700 enhanced font 'Sans,12'", "png"},
        {"svg size 1200,700 enhanced font 'Sans,12' background rgb 'white'", "svg"}};
    for (int t = 0; t < 2; t++) {
        /* enhanced for the log axes' 10^n, every text noenhanced (html.h) */
        fprintf(gp, "reset\nset terminal %s\nset output '%s.%s'\n", term[t][0], DIFF_BASE,
                term[t][1]);
        mcb_gp_text(gp, "title", "time to tolerance against cond(W) (one point per problem solved)");
        mcb_gp_text(gp, "xlabel", "cond(W) over its nonzero spectrum (Lanczos estimate)");
        mcb_gp_text(gp, "ylabel", "time to tolerance (s, setup + solve, median of repetitions)");
        fprintf(gp, "set logscale xy\nset format x '%s'\nset format y '%s'\nset grid\n"
                    "set key outside right noenhanced\nplot ",
                MCB_GP_LOG_FORMAT, MCB_GP_LOG_FORMAT);
        for (int s = 0; s < O->nsolvers; s++) {
            fprintf(gp, "%s'%s.dat' index %d using 1:2 with points pt %d ps 1.2 title ",
                    s ? ", " : "", DIFF_BASE, s, 5 + 2 * (s % 4));
            mcb_gp_quote(gp, O->solvers[s]);
        }
        fputs("\n", gp);
    }
}

mcb_rc mcb_plot_difficulty(FILE *html, FILE *gp, const char *outdir, const mcb_results_data *D,
                           const mcb_outcomes *O, mcb_err *err)
{
    if (!html || !gp || !outdir || !D || !O) return mcb_fail(err, MCB_E_INPUT, "difficulty plot: no input");
    fputs("<h2 id='difficulty'>Difficulty</h2>\n", html);
    if (D->ndesc == 0 || O->nproblems == 0) {
        fputs("<p>No problem descriptors in this results file (a campaign run with "
              "<code>--describe never</code>, an unfinished campaign's journal, or results "
              "format 4): no difficulty plot. <code>mcbench describe</code> prints them "
              "for problem files.</p>\n",
              html);
        return MCB_OK;
    }
    double *cond = mcb_malloc((size_t)O->nproblems, sizeof *cond);
    if (!cond) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    cond_per_problem(D, O, cond);
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.dat", outdir, DIFF_BASE);
    FILE *dat = fopen(path, "w");
    if (!dat) {
        free(cond);
        return mcb_fail(err, MCB_E_IO, "%s: cannot write (%s)", path, strerror(errno));
    }
    int points = write_points(dat, O, cond);
    free(cond);
    if (fclose(dat) != 0) return mcb_fail(err, MCB_E_IO, "%s: cannot write", path);
    if (points == 0) {
        fputs("<p>No solved run on a problem of known cond(W): no difficulty plot.</p>\n", html);
        return MCB_OK;
    }
    write_script(gp, O);
    fprintf(html, "<p><a href='%s.svg'><img src='%s.png' alt='time to tolerance "
                  "against cond(W)' style='max-width:100%%'></a> (%d points; data "
                  "<a href='%s.dat'>%s.dat</a>)</p>\n",
            DIFF_BASE, DIFF_BASE, points, DIFF_BASE, DIFF_BASE);
    return MCB_OK;
}

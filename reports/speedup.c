/* speedup.c: the report's speed-up table with confidence intervals
 * (report_pages.h, docs/reports.md): per solver, its time to tolerance
 * relative to the solver ranked first, as the geometric mean of the
 * per-problem ratios over the problems both solved, with its 95% bootstrap
 * interval (problems resampled, and within each problem both solvers'
 * repetitions: resample.h). A ratio whose interval excludes 1 is called
 * faster or slower; otherwise the two are not told apart. */
#include <math.h>
#include <stdlib.h>

#include "reports/html.h"
#include "reports/report_pages.h"
#include "reports/resample.h"

static const char speedup_rule[] =
    "<p class='meta'>Time to tolerance of each solver relative to the solver ranked first: "
    "the geometric mean over the problems both solved of the ratio of their times (median "
    "over the repetitions), with its 95% percentile-bootstrap interval (2000 resamples of "
    "the problems and, within each, of both solvers&#39; repetitions; fixed seed; "
    "docs/metrics.md). Below 1: faster than the first. A ratio is called faster or slower "
    "only when its interval excludes 1.</p>\n";

/* One row: solver s against ref over the problems of `set` both solved. */
static mcb_rc speedup_row(FILE *html, const mcb_outcomes *O, const mcb_reps *R, int set,
                          int ref, int s, int *ca, int *cb, mcb_err *err)
{
    int ns = O->nsolvers, n = 0;
    for (int p = 0; p < O->nproblems; p++) {
        if (set >= 0 && O->set[p] != set) continue;
        if (!isfinite(O->time_s[(size_t)p * ns + ref]) || !isfinite(O->time_s[(size_t)p * ns + s]))
            continue;
        ca[n] = p * ns + ref;
        cb[n++] = p * ns + s;
    }
    mcb_interval ci = {NAN, NAN, NAN};
    mcb_rc rc = n ? mcb_ratio_interval(R, ca, R, cb, n, &ci, err) : MCB_OK;
    if (rc) return rc;
    const char *verdict = !n                                 ? "no problem solved by both"
                          : mcb_interval_excludes(&ci, 1.0) ? (ci.est < 1 ? "faster" : "slower")
                                                             : "not distinguishable";
    char e[48], lo[48], hi[48];
    mcb_fmt_num(e, sizeof e, ci.est);
    mcb_fmt_num(lo, sizeof lo, ci.lo);
    mcb_fmt_num(hi, sizeof hi, ci.hi);
    fputs("<tr><td>", html);
    mcb_html_escape(html, O->solvers[s]);
    fprintf(html, "</td><td class='n'>%d</td><td class='n' data-v='%.9g'>%s</td>"
                  "<td class='n'>[%s, %s]</td><td>%s</td></tr>\n",
            n, isfinite(ci.est) ? ci.est : 1e300, e, lo, hi, verdict);
    return MCB_OK;
}

mcb_rc mcb_html_speedup(FILE *html, const mcb_report_ctx *C, int set, mcb_err *err)
{
    const mcb_outcomes *O = C->O;
    int ns = O->nsolvers;
    if (ns < 2) return MCB_OK;
    int *order = mcb_malloc((size_t)ns + 1, sizeof *order);
    int *solved = mcb_malloc((size_t)ns + 1, sizeof *solved);
    int *accepted = mcb_malloc((size_t)ns + 1, sizeof *accepted);
    double *med = mcb_malloc((size_t)ns + 1, sizeof *med);
    int *ca = mcb_malloc((size_t)O->nproblems + 1, sizeof *ca);
    int *cb = mcb_malloc((size_t)O->nproblems + 1, sizeof *cb);
    mcb_reps R = {0};
    mcb_rc rc = order && solved && accepted && med && ca && cb
                    ? MCB_OK
                    : mcb_fail(err, MCB_E_NOMEM, "speed-up table: out of memory");
    if (!rc) rc = mcb_outcomes_rank(O, set, order, solved, accepted, med, err);
    if (!rc) rc = mcb_reps_build(C->D, O, mcb_rep_time_to_tol, &R, err);
    if (!rc) {
        int ref = order[0];
        fputs("<h3>Speed-up with confidence</h3>\n<div class='tw'><table class='sortable "
              "speedup'><thead><tr><th>solver</th><th class='n'>problems solved by both</th>"
              "<th class='n'>time / ", html);
        mcb_html_escape(html, O->solvers[ref]);
        fputs("&#39;s (geometric mean)</th><th class='n'>95% interval</th><th>verdict</th>"
              "</tr></thead><tbody>\n", html);
        for (int k = 1; k < ns && !rc; k++)
            rc = speedup_row(html, O, &R, set, ref, order[k], ca, cb, err);
        fputs("</tbody></table></div>\n", html);
        fputs(speedup_rule, html);
    }
    mcb_reps_free(&R);
    free(order);
    free(solved);
    free(accepted);
    free(med);
    free(ca);
    free(cb);
    return rc;
}

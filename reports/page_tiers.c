/* page_tiers.c: the summary's accuracy tiers and the solvers' claims
 * against the harness's verdicts (docs/reports.md, "Accuracy tiers" and
 * "Claimed against verified"). Per tier (lib/mcb_tiers.h): the solvers
 * ranked as the main ranking is, with the tier for the tolerance; the
 * shifted geometric mean of the time to the tier, a failure charged
 * (outcomes.h), relative to the best solver, over every set and per set;
 * the performance profile (all.sets_tierK_pp-time, its data in
 * all.sets_tierK.dat). The same numbers in tiers.csv; the claims in
 * claims.csv. Fails on a file that cannot be written or out of memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_tiers.h"
#include "reports/html.h"
#include "reports/profile.h"
#include "reports/report_pages.h"
#include "reports/resample.h"
#include "reports/loop_stats.h"

/* One tier's numbers per solver, on one set or every set (-1). */
typedef struct {
    int *order, *reached, *accepted;
    double *med_s, *med_it, *sgm_s, *buf;
    double *t;          /* the scope's problems x solvers times (for the intervals) */
    mcb_interval *rel;  /* sgm_s / the best one, with its bootstrap interval (resample.h) */
} tier_cols;

static void tier_cols_free(tier_cols *T)
{
    free(T->order);
    free(T->reached);
    free(T->accepted);
    free(T->med_s);
    free(T->med_it);
    free(T->sgm_s);
    free(T->buf);
    free(T->t);
    free(T->rel);
}

static mcb_rc tier_cols_alloc(tier_cols *T, int ns, int np, mcb_err *err)
{
    memset(T, 0, sizeof *T);
    T->order = mcb_malloc((size_t)ns + 1, sizeof(int));
    T->reached = mcb_malloc((size_t)ns + 1, sizeof(int));
    T->accepted = mcb_malloc((size_t)ns + 1, sizeof(int));
    T->med_s = mcb_malloc((size_t)ns + 1, sizeof(double));
    T->med_it = mcb_malloc((size_t)ns + 1, sizeof(double));
    T->sgm_s = mcb_malloc((size_t)ns + 1, sizeof(double));
    T->buf = mcb_malloc((size_t)np + 1, sizeof(double));
    T->t = mcb_malloc((size_t)np * ns + 1, sizeof(double));
    T->rel = mcb_malloc((size_t)ns + 1, sizeof(mcb_interval));
    if (T->order && T->reached && T->accepted && T->med_s && T->med_it && T->sgm_s && T->buf &&
        T->t && T->rel)
        return MCB_OK;
    tier_cols_free(T);
    return mcb_fail(err, MCB_E_NOMEM, "accuracy tiers: out of memory");
}

/* The ranking, median iterations and shifted geometric means on `set`;
 * the smallest mean into *best_s. */
static mcb_rc tier_compute(const mcb_outcomes *O, int set, double shift_s, double charge_s,
                           tier_cols *T, double *best_s, mcb_err *err)
{
    mcb_rc rc = mcb_outcomes_rank(O, set, T->order, T->reached, T->accepted, T->med_s, err);
    *best_s = NAN;
    for (int s = 0; s < O->nsolvers && !rc; s++) {
        int n = 0;
        for (int p = 0; p < O->nproblems; p++) {
            double v = O->iters[(size_t)p * O->nsolvers + s];
            if ((set < 0 || O->set[p] == set) && isfinite(v)) T->buf[n++] = v;
        }
        T->med_it[s] = mcb_median(T->buf, n);
        T->sgm_s[s] = mcb_outcomes_sgm(O, set, s, shift_s, charge_s, T->buf);
        if (!(T->sgm_s[s] >= *best_s)) *best_s = T->sgm_s[s];
    }
    int np = 0;
    for (int p = 0; p < O->nproblems && !rc; p++)
        if (set < 0 || O->set[p] == set)
            memcpy(T->t + (size_t)np++ * O->nsolvers, O->time_s + (size_t)p * O->nsolvers,
                   (size_t)O->nsolvers * sizeof(double));
    if (!rc && np > 0) rc = mcb_sgm_rel_interval(T->t, np, O->nsolvers, shift_s, charge_s, T->rel, err);
    for (int s = 0; s < O->nsolvers && !rc && np == 0; s++)
        T->rel[s] = (mcb_interval){NAN, NAN, NAN};
    return rc;
}

static void csv_rows(FILE *csv, const mcb_outcomes *O, int set, double tier, const tier_cols *T,
                     double best_s)
{
    for (int k = 0; k < O->nsolvers; k++) {
        int s = T->order[k];
        fprintf(csv, "%.3g,", tier);
        mcb_csv_field(csv, set < 0 ? "all" : O->sets[set]);
        fputc(',', csv);
        mcb_csv_field(csv, O->solvers[s]);
        fprintf(csv, ",%d,%d,%d,%.6g,%.6e,%.6g,%.6e,%.6g,%.6g,%.6g\n", k + 1, T->accepted[s],
                T->reached[s], T->accepted[s] ? (double)T->reached[s] / T->accepted[s] : NAN,
                T->med_s[s], T->med_it[s], T->sgm_s[s], T->sgm_s[s] / best_s, T->rel[s].lo,
                T->rel[s].hi);
    }
}

static void html_tier_table(FILE *html, const mcb_outcomes *O, const tier_cols *all,
                            double best_s, const double *set_rel)
{
    int ns = O->nsolvers;
    fputs("<div class='tw'><table class='sortable tiers'><thead><tr><th class='n'>rank</th>"
          "<th>solver</th><th class='n'>reached / accepted</th>"
          "<th class='n'>success (of accepted)</th><th class='n'>median time to tier (ms)</th>"
          "<th class='n'>median iterations to tier</th>"
          "<th class='n'>shifted geometric mean, every set (best = 1)</th>"
          "<th class='n'>95% interval</th>"
          "<th class='n'>shifted geometric mean (ms)</th>",
          html);
    for (int t = 0; t < O->nsets; t++) {
        fputs("<th class='n'>shifted geometric mean, set ", html);
        mcb_html_escape(html, O->sets[t]);
        fputs(" (best = 1)</th>", html);
    }
    fputs("</tr></thead><tbody>\n", html);
    for (int k = 0; k < ns; k++) {
        int s = all->order[k];
        char a[48], b[48], c[48], d[48], lo[48], hi[48], rate[16];
        mcb_fmt_num(a, sizeof a, 1e3 * all->med_s[s]);
        mcb_fmt_num(b, sizeof b, all->med_it[s]);
        mcb_fmt_num(c, sizeof c, all->sgm_s[s] / best_s);
        mcb_fmt_num(d, sizeof d, 1e3 * all->sgm_s[s]);
        mcb_fmt_num(lo, sizeof lo, all->rel[s].lo);
        mcb_fmt_num(hi, sizeof hi, all->rel[s].hi);
        if (all->accepted[s])
            snprintf(rate, sizeof rate, "%.0f%%", 100.0 * all->reached[s] / all->accepted[s]);
        else snprintf(rate, sizeof rate, "-");
        fprintf(html, "<tr><td class='n'>%d</td><td>", k + 1);
        mcb_html_escape(html, O->solvers[s]);
        fprintf(html, "</td><td class='n'>%d/%d</td><td class='n'>%s</td><td class='n'>%s</td>"
                      "<td class='n'>%s</td><td class='n'>%s</td><td class='n'>[%s, %s]</td>"
                      "<td class='n'>%s</td>",
                all->reached[s], all->accepted[s], rate, a, b, c, lo, hi, d);
        for (int t = 0; t < O->nsets; t++) {
            mcb_fmt_num(a, sizeof a, set_rel[(size_t)t * ns + s]);
            fprintf(html, "<td class='n'>%s</td>", a);
        }
        fputs("</tr>\n", html);
    }
    fputs("</tbody></table></div>\n", html);
}

/* One tier: its section, its rows of tiers.csv, its profiles. */
static mcb_rc one_tier(const mcb_report_ctx *C, FILE *html, FILE *csv, int k, double tier,
                       double shift_s, double charge_s, mcb_err *err)
{
    mcb_outcomes O;
    mcb_rc rc = mcb_outcomes_build_tier(C->D, C->col, tier, &O, err);
    if (rc) return rc;
    int ns = O.nsolvers;
    tier_cols all, per;
    double *set_rel = mcb_malloc((size_t)O.nsets * ns + 1, sizeof *set_rel);
    double best = NAN, set_best;
    if (!set_rel) rc = mcb_fail(err, MCB_E_NOMEM, "accuracy tiers: out of memory");
    if (!rc && !(rc = tier_cols_alloc(&all, ns, O.nproblems, err))) {
        if (!(rc = tier_cols_alloc(&per, ns, O.nproblems, err))) {
            rc = tier_compute(&O, -1, shift_s, charge_s, &all, &best, err);
            if (!rc) csv_rows(csv, &O, -1, tier, &all, best);
            for (int t = 0; t < O.nsets && !rc; t++) {
                rc = tier_compute(&O, t, shift_s, charge_s, &per, &set_best, err);
                for (int s = 0; s < ns && !rc; s++)
                    set_rel[(size_t)t * ns + s] = per.sgm_s[s] / set_best;
                if (!rc) csv_rows(csv, &O, t, tier, &per, set_best);
            }
            tier_cols_free(&per);
        }
        if (!rc) {
            fprintf(html, "<h3 id='tier%d'>Tier %.3g</h3>\n", k + 1, tier);
            html_tier_table(html, &O, &all, best, set_rel);
        }
        tier_cols_free(&all);
    }
    char base[64], caption[1024];
    snprintf(base, sizeof base, "%s_tier%d", MCB_ALL_SETS_BASE, k + 1);
    FILE *dat = rc ? NULL : mcb_report_open(C->outdir, base, ".dat", err);
    if (!rc && !dat) rc = MCB_E_IO;
    if (!rc) {
        mcb_report_ctx T = *C;
        T.O = &O;
        int np, unsolved;
        snprintf(caption, sizeof caption, "tier %.3g, every problem", tier);
        rc = mcb_plot_profiles(&T, dat, 0, base, caption, -1, &np, &unsolved, err);
        if (fclose(dat) != 0 && !rc)
            rc = mcb_fail(err, MCB_E_IO, "%s/%s.dat: cannot write", C->outdir, base);
    }
    if (!rc) {
        snprintf(caption, sizeof caption,
                 "Performance profile of the time to tier %.3g over every problem. "
                 MCB_REFUSAL_NOTE ".",
                 tier);
        mcb_html_figure(html, base, "_pp-time", "performance profile at a tier", caption);
    }
    free(set_rel);
    mcb_outcomes_free(&O);
    return rc;
}

static const char tiers_note[] =
    "<p class='meta'>A run <b>reaches</b> a tier when a check of the harness found its stop "
    "metric at or below it (within the time limit). Its <b>time to the tier</b> is setup + the "
    "solver time up to the first such check (the checks' own time excluded; a run that went on "
    "to a finer tier is charged only up to there); its iterations, that check's. The runner "
    "makes that check a trace row and aims checks at each tier as at the tolerance, so a "
    "tier is located to about 1%% of the iterations (docs/metrics.md). Ranked as the main "
    "ranking, reaching the tier for solving. The <b>shifted geometric mean</b> "
    "exp(mean(log(t + shift))) - shift of the time to the tier runs over every problem of the "
    "scope (a problem not accepted included), a failure charged %.6g s (%s); shift %.6g ms; "
    "shown relative to the best solver (= 1), with its 95%% bootstrap interval over the "
    "problems (2000 resamples, fixed seed; docs/metrics.md), and in ms. tiers.csv has every number, per "
    "set and over every set (set <code>all</code>).</p>\n";

mcb_rc mcb_report_tiers(const mcb_report_ctx *C, FILE *html, double shift_s, mcb_err *err)
{
    double tiers[MCB_MAX_TIERS];
    int n = mcb_campaign_tiers(C->D->settings, C->D->tol, tiers);
    if (n == 0) return MCB_OK;
    if (mcb_loop_any(C->D, NULL)) return MCB_OK; /* closed loop: no iteration traces */
    FILE *csv = mcb_report_open(C->outdir, "tiers", ".csv", err);
    if (!csv) return MCB_E_IO;
    fputs("tier,set,solver,rank,accepted,reached,success_rate,median_time_s,median_iterations,"
          "sgm_s,sgm_rel,sgm_rel_lo,sgm_rel_hi\n",
          csv);
    double charge = mcb_failure_charge_s(C->D);
    fputs("<h2 id='tiers'>Accuracy tiers</h2>\n", html);
    fprintf(html, tiers_note, charge,
            C->D->time_limit_s > 0 ? "the time limit"
                                   : "no time limit: 10 times the campaign's longest run",
            1e3 * shift_s);
    mcb_rc rc = MCB_OK;
    for (int k = 0; k < n && !rc; k++) rc = one_tier(C, html, csv, k, tiers[k], shift_s, charge, err);
    if (fclose(csv) != 0 && !rc) rc = mcb_fail(err, MCB_E_IO, "%s/tiers.csv: cannot write", C->outdir);
    if (!rc) {
        fputs("<p>Every tier: ", html);
        mcb_html_link(html, "tiers", ".csv", "tiers.csv");
        fputs("</p>\n", html);
    }
    return rc;
}

/* ------------------------------------------------------------ claims */

static const char claims_note[] =
    "<p class='meta'>Every solver reports its own status and residual; the harness judges "
    "the returned iterate with its own stop metric. A solver the harness can stop is stopped "
    "at the first check meeting the tolerance, so its own rule shows only where it stopped "
    "first (a positive own tolerance, a direct method, a solver that cannot be stopped). "
    "<b>own stops</b>: runs the solver ended itself; <b>claims</b>: own stops with its own "
    "status <code>solved</code>; <b>confirmed</b>: claims whose final iterate meets the "
    "tolerance on the harness's measure; <b>wrong</b>: the others (too loose a rule); "
    "<b>met before its stop</b>: own stops (any status) after a check that had already met "
    "the tolerance (too strict a rule); <b>met, not claimed</b>: own stops without a claim at "
    "an iterate that meets it. Over every run with a solve (every repetition). Also "
    "claims.csv.</p>\n";

mcb_rc mcb_report_claims(const mcb_report_ctx *C, FILE *html, mcb_err *err)
{
    const mcb_outcomes *O = C->O;
    int ns = O->nsolvers;
    enum { NQ = 7 };
    int *q = mcb_calloc((size_t)ns * NQ + 1, sizeof *q);
    if (!q) return mcb_fail(err, MCB_E_NOMEM, "claims: out of memory");
    int any = 0;
    for (int k = 0; k < C->D->count; k++) {
        const mcb_run_rec *r = &C->D->runs[k];
        mcb_claim c;
        mcb_claim_of(r, C->col, C->D->tol, &c);
        if (!c.known) continue;
        int s = 0;
        while (s < ns && strcmp(O->solvers[s], r->solver)) s++;
        if (s == ns) continue;
        int *row = q + (size_t)s * NQ;
        const int v[NQ] = {1, c.own_stop, c.claimed, c.confirmed, c.wrong, c.met_before_stop,
                           c.unclaimed_met};
        for (int j = 0; j < NQ; j++) row[j] += v[j];
        any = 1;
    }
    FILE *csv = mcb_report_open(C->outdir, "claims", ".csv", err);
    if (!csv) {
        free(q);
        return MCB_E_IO;
    }
    static const char *const head[NQ] = {"runs",  "own stops", "claims", "confirmed",
                                         "wrong", "met before its stop", "met, not claimed"};
    fputs("solver,runs,own_stops,claims,confirmed,wrong_claims,met_before_stop,"
          "unclaimed_met\n",
          csv);
    fputs("<h2 id='claims'>Claimed against verified</h2>\n", html);
    if (!any) fputs("<p>No run records the solver's own status (results older than format 7)."
                    "</p>\n", html);
    else {
        fputs(claims_note, html);
        fputs("<div class='tw'><table class='sortable'><thead><tr><th>solver</th>", html);
        for (int j = 0; j < NQ; j++) fprintf(html, "<th class='n'>%s</th>", head[j]);
        fputs("</tr></thead><tbody>\n", html);
    }
    for (int s = 0; s < ns && any; s++) {
        const int *row = q + (size_t)s * NQ;
        mcb_csv_field(csv, O->solvers[s]);
        fputs("<tr><td>", html);
        mcb_html_escape(html, O->solvers[s]);
        fputs("</td>", html);
        for (int j = 0; j < NQ; j++) {
            fprintf(csv, ",%d", row[j]);
            fprintf(html, "<td class='n'>%d</td>", row[j]);
        }
        fputc('\n', csv);
        fputs("</tr>\n", html);
    }
    if (any) fputs("</tbody></table></div>\n", html);
    free(q);
    if (fclose(csv) != 0) return mcb_fail(err, MCB_E_IO, "%s/claims.csv: cannot write", C->outdir);
    return MCB_OK;
}

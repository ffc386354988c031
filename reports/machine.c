/* machine.c (reports): the machine's state during a campaign (see
 * machine.h). */
#include "reports/machine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/html.h"
#include "reports/profile.h"

void mcb_machine_summarize(const mcb_results_data *D, mcb_machine_summary *S)
{
    memset(S, 0, sizeof *S);
    S->share = S->load_max = S->load_med = S->mhz_min = S->max_mhz = NAN;
    double wsum = 0, ssum = 0;
    double *loads = mcb_malloc((size_t)D->count + 1, sizeof *loads);
    int nl = 0;
    for (int k = 0; k < D->count; k++) {
        const mcb_run_rec *r = &D->runs[k];
        if (isnan(r->others_share) && isnan(r->load_avg)) continue;
        S->runs++;
        double w = r->setup_s + r->solve_s + r->measure_s;
        if (!isnan(r->others_share) && isfinite(w) && w > 0) {
            wsum += w;
            ssum += w * r->others_share;
        }
        if (!isnan(r->load_avg)) {
            if (loads) loads[nl++] = r->load_avg;
            if (!(r->load_avg <= S->load_max)) S->load_max = r->load_avg;
            S->overloaded += D->cpu_count > 0 && r->load_avg > D->cpu_count;
        }
        if (r->cpu_mhz > 0) {
            S->freq_runs++;
            if (!(r->cpu_mhz >= S->mhz_min)) S->mhz_min = r->cpu_mhz;
            if (r->cpu_max_mhz > 0) {
                if (!(r->cpu_max_mhz <= S->max_mhz)) S->max_mhz = r->cpu_max_mhz;
                S->throttled += r->cpu_mhz < MCB_THROTTLE_FRACTION * r->cpu_max_mhz;
            }
        }
    }
    if (wsum > 0) S->share = ssum / wsum;
    if (loads) S->load_med = mcb_median(loads, nl);
    free(loads);
    S->busy = S->share > MCB_BUSY_SHARE || S->overloaded > 0;
}

int mcb_machine_differs(const mcb_results_data *A, const mcb_results_data *B, char *why,
                        size_t len)
{
    const char *ma = A->cpu_model ? A->cpu_model : "?", *mb = B->cpu_model ? B->cpu_model : "?";
    if (strcmp(ma, mb)) {
        snprintf(why, len, "CPU model '%s' OLD, '%s' NEW", ma, mb);
        return 1;
    }
    if (A->threads != B->threads) {
        snprintf(why, len, "%d thread(s) OLD, %d NEW", A->threads, B->threads);
        return 1;
    }
    mcb_machine_summary a, b;
    mcb_machine_summarize(A, &a);
    mcb_machine_summarize(B, &b);
    if (a.max_mhz > 0 && b.max_mhz > 0 &&
        fabs(a.max_mhz - b.max_mhz) > MCB_MHZ_TOLERANCE * fmax(a.max_mhz, b.max_mhz)) {
        snprintf(why, len, "maximum CPU frequency %.0f MHz OLD, %.0f MHz NEW", a.max_mhz,
                 b.max_mhz);
        return 1;
    }
    if (len) why[0] = '\0';
    return 0;
}

void mcb_html_machine(FILE *html, const mcb_results_data *D)
{
    mcb_machine_summary S;
    mcb_machine_summarize(D, &S);
    fputs("<p class='meta'>Machine during the runs: ", html);
    if (!S.runs) {
        fputs("not recorded (results written before mcbench recorded it).</p>\n", html);
        return;
    }
    fprintf(html, "1-minute load average median %.2f, max %.2f on %d CPUs; the other "
                  "processes&#39; share of the CPUs %.0f%% (weighted by the runs&#39; time); ",
            S.load_med, S.load_max, D->cpu_count, 100 * S.share);
    if (S.freq_runs)
        fprintf(html, "CPU frequency at least %.0f MHz (maximum %.0f MHz).</p>\n", S.mhz_min,
                S.max_mhz);
    else
        fputs("CPU frequency not exposed by the system.</p>\n", html);
    if (S.busy)
        fprintf(html, "<p class='warn'><b>Warning: the machine was busy while runs were "
                      "timed</b>: others&#39; share %.0f%% (threshold %.0f%%), %d of %d runs "
                      "with a load average above the %d CPUs. Times may be inflated; compare "
                      "them as ratios within this campaign, with their intervals.</p>\n",
                100 * S.share, 100 * MCB_BUSY_SHARE, S.overloaded, S.runs, D->cpu_count);
    if (S.throttled)
        fprintf(html, "<p class='warn'><b>Warning: the CPU was throttled while runs were "
                      "timed</b>: %d of %d runs below %.0f%% of the maximum frequency "
                      "(lowest %.0f of %.0f MHz).</p>\n",
                S.throttled, S.freq_runs, 100 * MCB_THROTTLE_FRACTION, S.mhz_min, S.max_mhz);
}

/* machine.h (reports): the machine's state during a campaign, as its runs
 * recorded it (mcb_run_rec: load_avg, cpu_mhz, cpu_max_mhz, others_share;
 * docs/metrics.md, "The machine's state"): the summary the report shows,
 * its warnings, and whether two campaigns ran on machines too different for
 * their times to be compared (compare). */
#ifndef MCB_REPORT_MACHINE_H
#define MCB_REPORT_MACHINE_H

#include <stddef.h>
#include <stdio.h>

#include "lib/mcb_results.h"

/* Busy: the others' share of the CPUs over the timed runs (weighted by the
 * runs' time) above MCB_BUSY_SHARE, or a run's 1-minute load average above
 * the CPU count. Throttled: a run's CPU frequency below MCB_THROTTLE_FRACTION
 * of the CPUs' maximum. Machines differ when their maximum frequencies differ
 * by more than MCB_MHZ_TOLERANCE (relative). */
#define MCB_BUSY_SHARE 0.10
#define MCB_THROTTLE_FRACTION 0.80
#define MCB_MHZ_TOLERANCE 0.02

typedef struct {
    int runs;          /* runs with a recorded state (NaN-free others_share or load) */
    double share;      /* others' share, weighted by setup_s + solve_s + measure_s; NaN: none */
    double load_max, load_med;
    int overloaded;    /* runs with load_avg > cpu_count */
    int freq_runs;     /* runs with a CPU frequency */
    double mhz_min, max_mhz;
    int throttled;     /* runs below MCB_THROTTLE_FRACTION x max */
    int busy;          /* share > MCB_BUSY_SHARE or overloaded > 0 */
} mcb_machine_summary;

void mcb_machine_summarize(const mcb_results_data *D, mcb_machine_summary *S);
/* 1 when A's and B's machines differ (CPU model, thread count, maximum
 * frequency where both recorded it), with the difference in why. */
int mcb_machine_differs(const mcb_results_data *A, const mcb_results_data *B, char *why,
                        size_t len);
/* The report's paragraph on the machine, with its warnings. */
void mcb_html_machine(FILE *html, const mcb_results_data *D);

#endif

/* loop_stats.c: closed-loop runs reduced to per-step medians and to the
 * outcome table's row (see loop_stats.h). A run's trajectory measures come
 * from mcb_loop_summarize (lib/mcb_vocab.c); this file only combines them
 * over runs. Fails only on a bad metric or out of memory, with nothing
 * left allocated. */
#include "reports/loop_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reports/profile.h"

void mcb_loop_curve_free(mcb_loop_curve *c)
{
    if (!c) return;
    free(c->runs);
    for (int q = 0; q < MCB_LQ_N; q++) free(c->med[q]);
    memset(c, 0, sizeof *c);
}

/* Quantity q of a step row. */
static double quantity(const double *row, int q, int metric)
{
    switch (q) {
    case MCB_LQ_TIME: return row[MCB_SC_SETUP_S] + row[MCB_SC_SOLVE_S];
    case MCB_LQ_RES: return row[MCB_SC_METRICS + metric];
    case MCB_LQ_PEN: return row[MCB_SC_METRICS + MCB_M_PEN_MAX];
    case MCB_LQ_ENGINE: return row[MCB_SC_ENGINE_S];
    case MCB_LQ_DIV_RMS: return row[MCB_SC_DIV_RMS_M];
    default: return row[MCB_SC_DIV_MAX_M];
    }
}

mcb_rc mcb_loop_curve_compute(const mcb_run_rec *const *runs, int nruns, int metric,
                              mcb_loop_curve *out, mcb_err *err)
{
    memset(out, 0, sizeof *out);
    if (metric < 0 || metric >= MCB_NMETRICS || nruns < 0)
        return mcb_fail(err, MCB_E_INPUT, "per-step curves of %d runs: metric %d is none of "
                        "the %d metrics", nruns, metric, MCB_NMETRICS);
    int n = 0;
    for (int k = 0; k < nruns; k++)
        if (runs[k]->step_rows > n) n = runs[k]->step_rows;
    double *buf = mcb_malloc((size_t)nruns + 1, sizeof *buf);
    out->runs = mcb_calloc((size_t)n + 1, sizeof *out->runs);
    int ok = buf && out->runs;
    for (int q = 0; q < MCB_LQ_N; q++) ok &= (out->med[q] = mcb_malloc((size_t)n + 1,
                                                                    sizeof(double))) != NULL;
    if (!ok) {
        free(buf);
        mcb_loop_curve_free(out);
        return mcb_fail(err, MCB_E_NOMEM, "per-step curves of %d runs: out of memory", nruns);
    }
    out->nsteps = n;
    for (int s = 0; s < n; s++)
        for (int q = 0; q < MCB_LQ_N; q++) {
            int c = 0;
            for (int k = 0; k < nruns; k++)
                if (s < runs[k]->step_rows)
                    buf[c++] = quantity(runs[k]->steps + (size_t)s * MCB_STEP_COLS, q, metric);
            out->runs[s] = c;
            out->med[q][s] = mcb_median(buf, c);
        }
    free(buf);
    return MCB_OK;
}

int mcb_loop_failed_step(const mcb_run_rec *r)
{
    if (r->step_rows <= 0 || !r->steps) return 0;
    double s = r->steps[(size_t)(r->step_rows - 1) * MCB_STEP_COLS + MCB_SC_STEP];
    return isfinite(s) && s >= 0 && s < 2147483647.0 ? (int)s : r->step_rows - 1;
}

int mcb_loop_scheduled_steps(const mcb_results_data *D, const char *set, int problem_index)
{
    int steps = -1;
    for (int k = 0; k < D->count; k++) {
        const mcb_run_rec *r = &D->runs[k];
        if (r->status == MCB_ST_SOLVED && r->step_rows > steps &&
            r->problem_index == problem_index && strcmp(r->problem_set, set) == 0)
            steps = r->step_rows;
    }
    return steps;
}

static double max_nan(double a, double b)
{
    return isnan(a) || b > a ? b : a; /* NaN b leaves a */
}

void mcb_loop_row_compute(const mcb_run_rec *const *runs, int nruns, const int *sched,
                          double *buf, mcb_loop_row *row)
{
    memset(row, 0, sizeof *row);
    row->runs = nruns;
    row->first_fail = row->first_fail_run = -1;
    double time_s = 0, engine_s = 0, aa = 0, div2 = 0;
    long steps = 0, naa = 0;
    int ndiv = 0;
    row->pen_max = row->energy_gain_J = row->div_max_m = NAN;
    for (int k = 0; k < nruns; k++) {
        const mcb_run_rec *r = runs[k];
        if (row->steps_total >= 0)
            row->steps_total = sched[k] >= 0 ? row->steps_total + sched[k] : -1;
        if (r->status == MCB_ST_FAILED_IN_LOOP) {
            int at = mcb_loop_failed_step(r);
            row->failed++;
            row->steps_done += at;
            if (row->first_fail < 0 || at < row->first_fail) {
                row->first_fail = at;
                row->first_fail_run = k;
            }
            continue;
        }
        if (r->status != MCB_ST_SOLVED) {
            row->other++;
            continue;
        }
        row->completed++;
        row->steps_done += r->step_rows;
        mcb_loop_summary S;
        mcb_loop_summarize(r->steps, r->step_rows, &S);
        steps += S.steps;
        time_s += S.setup_s + S.solve_s;
        engine_s += S.engine_s;
        mcb_loop_neglog(r, MCB_M_NATMAP, &aa, &naa);
        row->pen_max = max_nan(row->pen_max, S.pen_max);
        row->energy_gain_J = max_nan(row->energy_gain_J, S.energy_max_gain);
        if (!isnan(S.div_rms_m)) { /* a run without a reference has no divergence */
            div2 += S.div_rms_m * S.div_rms_m;
            ndiv++;
            row->div_max_m = max_nan(row->div_max_m, S.div_max_m);
        }
        buf[row->completed - 1] = S.outcome_end;
    }
    row->at_s = steps ? time_s / steps : NAN;
    row->engine_s = steps ? engine_s / steps : NAN;
    row->aa = naa ? aa / naa : NAN;
    row->div_rms_m = ndiv ? sqrt(div2 / ndiv) : NAN;
    row->outcome = mcb_median(buf, row->completed);
}

double mcb_neglog10(double x)
{
    return x > 1e-16 ? -log10(x) : 16.0;
}

void mcb_loop_neglog(const mcb_run_rec *r, int metric, double *sum, long *n)
{
    for (int s = 0; s < r->step_rows; s++) {
        double x = r->steps[(size_t)s * MCB_STEP_COLS + MCB_SC_METRICS + metric];
        if (!isnan(x)) { /* -log10 before averaging (SubADMM Table I) */
            *sum += mcb_neglog10(x);
            (*n)++;
        }
    }
}

int mcb_loop_any(const mcb_results_data *D, const char *set)
{
    for (int k = 0; k < D->count; k++)
        if ((D->runs[k].step_rows > 0 || D->runs[k].status == MCB_ST_FAILED_IN_LOOP) &&
            (!set || strcmp(D->runs[k].problem_set, set) == 0))
            return 1;
    return 0;
}

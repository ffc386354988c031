/* reproduce.c: an experiment's published numbers beside the measured ones
 * (reproduce.h; docs/experiments.md). Top-down: evaluation (the pairs'
 * results read once each, the quantities of docs/experiments.md's
 * "Quantities" over their runs, the figures' series and fits, the claims,
 * the verdicts of "Verdicts"), then the outputs (Markdown, CSV, HTML, the
 * gnuplot figure), each written under a temporary name and renamed into
 * place. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mcb_journal.h"
#include "lib/mcb_paths.h"
#include "lib/mcb_results.h"
#include "reports/curves.h"
#include "reports/html.h"
#include "reports/loop_stats.h"
#include "reports/profile.h"
#include "reports/report_pages.h"
#include "reports/reproduce.h"

static const char *const verdict_names[MCB_XR_NVERDICTS] = {
    "reproduced", "ordering reproduced", "not reproduced", "reference", "not compared",
    "not run"};

const char *mcb_xp_verdict_name(int v)
{
    return v >= 0 && v < MCB_XR_NVERDICTS ? verdict_names[v] : "unknown";
}

/* The default bands of docs/experiments.md, for a spec that leaves a
 * class's rule unset. */
static mcb_xp_band default_band(mcb_xp_class c)
{
    switch (c) {
    case MCB_XV_TIME: return (mcb_xp_band){0, 2, 0};
    case MCB_XV_ACCURACY: return (mcb_xp_band){1, 0, 0};
    case MCB_XV_COUNT: return (mcb_xp_band){0, 1.5, 0};
    case MCB_XV_RATE: return (mcb_xp_band){0.05, 0, 0};
    case MCB_XV_FIT: return (mcb_xp_band){0.01, 0, 0};
    default: return (mcb_xp_band){0, 0, 0};
    }
}

static int band_set(mcb_xp_band b) { return b.abs > 0 || b.factor > 0 || b.bound; }

static mcb_xp_band pick_band(const mcb_xp_spec *S, mcb_xp_class c, mcb_xp_band first,
                             mcb_xp_band second)
{
    if (band_set(first)) return first;
    if (band_set(second)) return second;
    if (c >= 0 && c < MCB_XV_NCLASSES && band_set(S->rule[c])) return S->rule[c];
    return default_band(c);
}

/* ---- the pairs' results -------------------------------------------- */

typedef struct {
    const mcb_xp_spec *S;
    const char *item_dir;
    int quick;
    mcb_results_data **data; /* per pair (group x nsolvers + entry), read on first use */
    char **skipped;          /* per entry: why it was not run (NULL: none skipped) */
} eval_ctx;

static int group_skipped(const eval_ctx *E, int g)
{
    return E->quick && E->S->problems[g].quick_skip;
}

static int index_of_problems(const mcb_xp_spec *S, const char *id)
{
    const mcb_xp_problems *p = id ? mcb_xp_find_problems(S, id) : NULL;
    return p ? (int)(p - S->problems) : -1;
}

static int index_of_solver(const mcb_xp_spec *S, const char *id)
{
    const mcb_xp_solver *s = id ? mcb_xp_find_solver(S, id) : NULL;
    return s ? (int)(s - S->solvers) : -1;
}

/* The results of pair (g, e): read once. A missing file, an unfinished
 * campaign or a file without runs is an error naming the file. */
static mcb_rc pair_results(eval_ctx *E, int g, int e, const mcb_results_data **out, mcb_err *err)
{
    const mcb_xp_spec *S = E->S;
    mcb_results_data **slot = &E->data[(size_t)g * S->nsolvers + e];
    if (*slot) {
        *out = *slot;
        return MCB_OK;
    }
    char path[4096], journal[4200];
    if (mcb_xp_runs_path(E->item_dir, S->problems[g].id, S->solvers[e].id, path, sizeof path) >=
        (int)sizeof path)
        return mcb_fail(err, MCB_E_INPUT, "%s: the results path of %s/%s is too long", S->path,
                        S->problems[g].id, S->solvers[e].id);
    struct stat st;
    if (stat(path, &st) != 0) {
        mcb_journal_path(path, journal, sizeof journal);
        if (stat(journal, &st) == 0)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s: unfinished campaign (only its journal exists) for problems '%s' "
                            "and solver '%s' of %s: run `mcbench reproduce %s` to finish it",
                            path, S->problems[g].id, S->solvers[e].id, S->path, S->name);
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: missing results for problems '%s' and solver '%s' of %s: run "
                        "`mcbench reproduce %s`",
                        path, S->problems[g].id, S->solvers[e].id, S->path, S->name);
    }
    mcb_results_data *D = NULL;
    mcb_rc rc = mcb_results_read(path, &D, err);
    if (rc) return rc;
    if (!D->complete || D->count == 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: %s (problems '%s', solver '%s' of %s)", path,
                      !D->complete ? "incomplete campaign" : "no runs", S->problems[g].id,
                      S->solvers[e].id, S->path);
        mcb_results_data_free(&D);
        return rc;
    }
    *slot = D;
    *out = D;
    return MCB_OK;
}

/* ---- quantities over one pair's runs --------------------------------- */

/* A hard failure: the run produced no usable answer (the paper's "-"). A
 * run that used up its iteration or time budget, or stalled, still has a
 * measured answer (docs/experiments.md, "Failures"). */
static int run_failed(const mcb_run_rec *r)
{
    switch (r->status) {
    case MCB_ST_DIVERGED:
    case MCB_ST_SETUP_FAILED:
    case MCB_ST_SKIPPED:
    case MCB_ST_CRASHED:
    case MCB_ST_FAILED_IN_LOOP: return 1;
    default: return 0;
    }
}

/* The inner failures a run's reason reports ("..., N inner failures, ..."
 * of the augmented Lagrangian solvers; every occurrence summed). */
static long inner_failures(const char *reason)
{
    long n = 0;
    static const char word[] = " inner failures";
    for (const char *p = reason ? strstr(reason, word) : NULL; p; p = strstr(p + 1, word)) {
        const char *q = p;
        while (q > reason && q[-1] >= '0' && q[-1] <= '9') q--;
        if (q < p) n += strtol(q, NULL, 10);
    }
    return n;
}

static int metric_of(const mcb_xp_spec *S, const mcb_xp_quantity *q, mcb_err *err)
{
    int m = q->metric ? mcb_metric_from_name(q->metric) : -1;
    if (m < 0)
        mcb_fail(err, MCB_E_INPUT, "%s: quantity '%s': unknown metric '%s'", S->path,
                 q->text ? q->text : "?", q->metric ? q->metric : "(none)");
    return m;
}

typedef struct {
    double value;
    int failed;
    const char *category;
} measure;

/* Quantity q (not a figure quantity) over the runs of D. */
static mcb_rc measure_runs(const mcb_xp_spec *S, const mcb_results_data *D,
                           const mcb_xp_quantity *q, measure *M, mcb_err *err)
{
    int loop = S->protocol == MCB_XP_CLOSED_LOOP;
    int metric = -1;
    if (q->id == MCB_XQ_RESIDUAL || q->id == MCB_XQ_NEGLOG) {
        metric = metric_of(S, q, err);
        if (metric < 0) return MCB_E_INPUT;
    }
    double *buf = mcb_malloc((size_t)D->count + 1, sizeof *buf);
    if (!buf) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    double sum = 0, den = 0;
    long nsum = 0;
    int nok = 0, unsolved = 0, anyfail = 0;
    for (int k = 0; k < D->count; k++) {
        const mcb_run_rec *r = &D->runs[k];
        unsolved += r->status != MCB_ST_SOLVED;
        if (q->id == MCB_XQ_INNER_FAIL) {
            sum += (double)inner_failures(r->reason);
            den += r->iterations;
            continue;
        }
        if (run_failed(r)) {
            anyfail = 1;
            continue;
        }
        mcb_loop_summary L;
        if (loop) mcb_loop_summarize(r->steps, r->step_rows, &L);
        switch (q->id) {
        case MCB_XQ_TIME_MS:
        case MCB_XQ_SETUP_MS: {
            double setup = loop ? L.setup_s : r->setup_s;
            double t = q->id == MCB_XQ_SETUP_MS ? setup : setup + (loop ? L.solve_s : r->solve_s);
            sum += 1000 * t;
            den += loop ? L.steps : 1;
            break;
        }
        case MCB_XQ_ITERATIONS:
            sum += loop ? L.iters_mean * L.steps : r->iterations;
            den += loop ? L.steps : 1;
            break;
        case MCB_XQ_INNER:
            sum += r->inner_iterations;
            den += 1;
            break;
        case MCB_XQ_ENGINE_MS:
        case MCB_XQ_STEP_MS:
            if (loop) {
                double solver = q->id == MCB_XQ_STEP_MS ? L.setup_s + L.solve_s : 0.0;
                sum += 1000 * (L.engine_s + solver);
                den += L.steps;
            }
            break;
        case MCB_XQ_OUTCOME_AT: {
            int at = (int)q->arg;
            double x = loop && at < r->step_rows && r->steps
                           ? r->steps[(size_t)at * MCB_STEP_COLS + MCB_SC_OUTCOME]
                           : NAN;
            if (!isnan(x)) {
                sum += x;
                den += 1;
            }
            break;
        }
        case MCB_XQ_DEPTH_MM:
        case MCB_XQ_OUTCOME_ERR:
        case MCB_XQ_OUTCOME_END:
        case MCB_XQ_CONTACT_FORCE:
        case MCB_XQ_INVERSE_FORCE:
        case MCB_XQ_INVERSE_ERR: {
            double x = !loop                            ? NAN
                       : q->id == MCB_XQ_DEPTH_MM       ? 1000 * L.depth_mean_m
                       : q->id == MCB_XQ_OUTCOME_END    ? L.outcome_end
                       : q->id == MCB_XQ_CONTACT_FORCE  ? L.contact_force_mean_N
                       : q->id == MCB_XQ_INVERSE_FORCE  ? L.inverse_force_mean_N
                       : q->id == MCB_XQ_INVERSE_ERR    ? L.inverse_err_mean
                                                        : L.outcome_err_mean;
            if (!isnan(x)) {
                sum += x;
                den += 1;
            }
            break;
        }
        case MCB_XQ_RESIDUAL: buf[nok] = r->final.val[metric]; break;
        case MCB_XQ_NEGLOG:
            if (loop) mcb_loop_neglog(r, metric, &sum, &nsum);
            else if (!isnan(r->final.val[metric])) {
                sum += mcb_neglog10(r->final.val[metric]);
                nsum++;
            }
            break;
        default: break;
        }
        nok++;
    }
    M->value = NAN;
    M->failed = 0;
    M->category = NULL;
    switch (q->id) {
    case MCB_XQ_UNSOLVED: M->value = (double)unsolved / D->count; break;
    case MCB_XQ_OUTCOME: M->category = unsolved ? "fails" : "succeeds"; break;
    case MCB_XQ_INNER_FAIL: M->value = den > 0 ? sum / den : NAN; break;
    case MCB_XQ_RESIDUAL:
        M->value = mcb_median(buf, nok);
        M->failed = anyfail;
        break;
    case MCB_XQ_NEGLOG:
        M->value = nsum ? sum / nsum : NAN;
        M->failed = anyfail;
        break;
    default:
        M->value = den > 0 ? sum / den : NAN;
        M->failed = anyfail;
        break;
    }
    free(buf);
    return MCB_OK;
}

/* The mean DOF of D's runs (a closed loop: over their steps). */
static double mean_dof(const mcb_results_data *D)
{
    double s = 0;
    long n = 0;
    for (int k = 0; k < D->count; k++) {
        const mcb_run_rec *r = &D->runs[k];
        if (r->step_rows > 0) {
            for (int i = 0; i < r->step_rows; i++) {
                double x = r->steps[(size_t)i * MCB_STEP_COLS + MCB_SC_N];
                if (!isnan(x)) {
                    s += x;
                    n++;
                }
            }
        } else {
            s += r->n;
            n++;
        }
    }
    return n ? s / n : NAN;
}

/* ---- verdicts -------------------------------------------------------- */

static int sign_of(double x) { return (x > 0) - (x < 0); }

/* The value compared for cell c: accuracies that are residuals in decades. */
static double compared(const mcb_xp_cell *c, double x)
{
    int residual = c->q->id == MCB_XQ_RESIDUAL || c->q->id == MCB_XQ_DEPTH_MM ||
                   c->q->id == MCB_XQ_OUTCOME_ERR || c->q->id == MCB_XQ_OUTCOME_END ||
                   c->q->id == MCB_XQ_OUTCOME_AT || c->q->id == MCB_XQ_INVERSE_ERR ||
                   ((c->q->id == MCB_XQ_Y_AT || c->q->id == MCB_XQ_Y_FINAL) &&
                    c->cls == MCB_XV_ACCURACY && strcmp(c->unit ? c->unit : "", "-log10") != 0);
    return residual ? (x > 0 ? log10(x) : -INFINITY) : x;
}

/* A published time ratio within this factor of 1 is a tie: its ordering
 * is not part of the claim. */
#define MCB_XP_TIE 1.1

static int is_number(const mcb_xp_value *v) { return v && v->kind == MCB_XP_NUMBER; }

static void judge(mcb_xp_cell *cells, int k, mcb_xp_band band, int referenced)
{
    mcb_xp_cell *c = &cells[k];
    const mcb_xp_value *p = c->published;
    c->mratio = c->pratio = c->ratio = c->diff = NAN;
    if (!c->ran) {
        c->verdict = MCB_XR_NOT_RUN;
        return;
    }
    if (c->cls == MCB_XV_TIME && referenced && c->ref < 0) {
        c->verdict = MCB_XR_REFERENCE;
        return;
    }
    if (!p || p->kind == MCB_XP_NONE) {
        /* nothing published: a time's ratio to its reference is still shown
         * (e.g. a GPU against all CPU cores, which the paper did not run) */
        const mcb_xp_cell *r = c->ref >= 0 ? &cells[c->ref] : NULL;
        if (c->cls == MCB_XV_TIME && r && r->ran && !r->failed && !c->failed &&
            r->measured > 0 && isfinite(r->measured) && isfinite(c->measured))
            c->mratio = c->measured / r->measured;
        c->verdict = MCB_XR_NOT_COMPARED;
        return;
    }
    if (c->cls == MCB_XV_CATEGORY || c->q->id == MCB_XQ_OUTCOME) {
        const char *m = c->category ? c->category : "";
        int same = p->kind == MCB_XP_FAILED ? strcmp(m, "fails") == 0
                   : p->kind == MCB_XP_CATEGORY ? strcmp(m, p->category ? p->category : "") == 0
                                                : -1;
        c->verdict = same < 0 ? MCB_XR_NOT_COMPARED
                     : same   ? MCB_XR_REPRODUCED
                              : MCB_XR_NOT_REPRODUCED;
        return;
    }
    int mfail = c->failed || !isfinite(c->measured);
    if (p->kind == MCB_XP_FAILED) {
        c->verdict = mfail ? MCB_XR_REPRODUCED : MCB_XR_NOT_REPRODUCED;
        return;
    }
    if (p->kind != MCB_XP_NUMBER) {
        c->verdict = MCB_XR_NOT_COMPARED;
        return;
    }
    if (mfail) {
        c->verdict = MCB_XR_NOT_REPRODUCED;
        return;
    }
    const mcb_xp_cell *r = c->ref >= 0 ? &cells[c->ref] : NULL;
    int ref_ok = r && r->ran && !r->failed && isfinite(r->measured) && is_number(r->published);
    if (c->cls == MCB_XV_TIME) {
        if (!ref_ok || r->measured <= 0 || r->published->number <= 0) {
            c->verdict = MCB_XR_NOT_COMPARED;
            return;
        }
        c->mratio = c->measured / r->measured;
        c->pratio = p->number / r->published->number;
        c->ratio = c->mratio / c->pratio;
        int in = band.factor > 0 ? c->ratio >= 1 / band.factor && c->ratio <= band.factor
                                 : fabs(c->mratio - c->pratio) <= band.abs;
        /* the same ordering as the paper's: a ratio within the band but on
         * the other side of the reference is not a reproduction, unless the
         * paper's is a tie (within 10 % of 1) */
        int same = sign_of(c->mratio - 1) == sign_of(c->pratio - 1);
        int tie = fabs(log(c->pratio)) <= log(MCB_XP_TIE);
        c->verdict = in && (same || tie) ? MCB_XR_REPRODUCED
                     : same              ? MCB_XR_ORDERING
                                         : MCB_XR_NOT_REPRODUCED;
        return;
    }
    double m = compared(c, c->measured), pub = compared(c, p->number);
    int in;
    if (band.bound) { /* the paper's "1e-8 or less" (upper), "at least" (lower) */
        c->diff = m - pub;
        in = band.bound > 0 ? m <= pub : m >= pub;
    } else if (band.factor > 0) {
        c->ratio = c->measured / p->number;
        in = c->ratio >= 1 / band.factor && c->ratio <= band.factor;
    } else {
        c->diff = m - pub;
        in = fabs(c->diff) <= band.abs;
    }
    if (in) c->verdict = MCB_XR_REPRODUCED;
    else if (ref_ok && sign_of(m - compared(c, r->measured)) ==
                           sign_of(pub - compared(c, r->published->number)))
        c->verdict = MCB_XR_ORDERING;
    else c->verdict = MCB_XR_NOT_REPRODUCED;
}

/* Every cell's verdict; bands[k] the band of cell k. */
static mcb_rc judge_all(mcb_xp_cell *cells, int n, const mcb_xp_band *bands, mcb_err *err)
{
    char *referenced = mcb_calloc((size_t)n + 1, 1);
    if (!referenced) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int k = 0; k < n; k++)
        if (cells[k].ref >= 0) referenced[cells[k].ref] = 1;
    for (int k = 0; k < n; k++) judge(cells, k, bands[k], referenced[k]);
    free(referenced);
    return MCB_OK;
}

/* ---- tables ---------------------------------------------------------- */

static const mcb_xp_quantity *cell_quantity(const mcb_xp_binding *row, const mcb_xp_binding *col)
{
    return row->has_quantity ? &row->quantity : col->has_quantity ? &col->quantity : NULL;
}

static int binding_index(const mcb_xp_binding *b, int n, const char *id)
{
    for (int k = 0; id && k < n; k++)
        if (b[k].id && strcmp(b[k].id, id) == 0) return k;
    return -1;
}

static mcb_rc evaluate_table(eval_ctx *E, mcb_xp_outcome *R, mcb_err *err)
{
    const mcb_xp_spec *S = E->S;
    R->ncells = S->nrows * S->ncols;
    R->cells = mcb_calloc((size_t)R->ncells + 1, sizeof *R->cells);
    mcb_xp_band *bands = mcb_calloc((size_t)R->ncells + 1, sizeof *bands);
    if (!R->cells || !bands) {
        free(bands);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    mcb_rc rc = MCB_OK;
    for (int i = 0; i < S->nrows && !rc; i++)
        for (int j = 0; j < S->ncols && !rc; j++) {
            const mcb_xp_binding *row = &S->rows[i], *col = &S->cols[j];
            mcb_xp_cell *c = &R->cells[i * S->ncols + j];
            c->row = i;
            c->col = j;
            c->row_label = row->label ? row->label : row->id;
            c->col_label = col->label ? col->label : col->id;
            c->q = cell_quantity(row, col);
            c->group = index_of_problems(S, row->problems ? row->problems : col->problems);
            c->entry = index_of_solver(S, row->solver ? row->solver : col->solver);
            if (!c->q || c->group < 0 || c->entry < 0) {
                rc = mcb_fail(err, MCB_E_INPUT,
                              "%s: cell (%s, %s) lacks a quantity, a problem group or a solver",
                              S->path, row->id, col->id);
                break;
            }
            c->cls = mcb_xp_quantity_class(c->q);
            c->unit = mcb_xp_quantity_unit(c->q);
            c->published = row->npublished > j ? &row->published[j] : NULL;
            c->ref = -1;
            int r = binding_index(S->rows, S->nrows, row->ref);
            if (r >= 0) c->ref = r * S->ncols + j;
            else if ((r = binding_index(S->cols, S->ncols, col->ref)) >= 0)
                c->ref = i * S->ncols + r;
            bands[i * S->ncols + j] = pick_band(S, c->cls, row->band, col->band);
            c->measured = NAN;
            c->skipped = E->skipped ? E->skipped[c->entry] : NULL;
            c->ran = !group_skipped(E, c->group) && !c->skipped;
            if (!c->ran) continue;
            const mcb_results_data *D;
            measure M;
            if ((rc = pair_results(E, c->group, c->entry, &D, err)) ||
                (rc = measure_runs(S, D, c->q, &M, err)))
                break;
            c->measured = M.value;
            c->failed = M.failed;
            c->category = M.category;
        }
    if (!rc) rc = judge_all(R->cells, R->ncells, bands, err);
    free(bands);
    return rc;
}

/* ---- figures --------------------------------------------------------- */

static int is_profile(const mcb_xp_spec *S) { return S->x.kind == MCB_XA_PROFILE; }

static int is_curve(const mcb_xp_spec *S)
{
    return S->x.kind == MCB_XA_ITERATION || S->x.kind == MCB_XA_TIME_S;
}

/* Least squares y = a + b x over the finite points, R^2, and the slope of
 * log y on log x over the points with x, y > 0. */
static void fit_series(mcb_xp_series_out *o)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, lx = 0, ly = 0, lxx = 0, lxy = 0;
    int n = 0, nl = 0;
    for (int k = 0; k < o->npoints; k++) {
        double x = o->x[k], y = o->y[k];
        if (!isfinite(x) || !isfinite(y)) continue;
        sx += x, sy += y, sxx += x * x, sxy += x * y, n++;
        if (x > 0 && y > 0) {
            double u = log(x), v = log(y);
            lx += u, ly += v, lxx += u * u, lxy += u * v, nl++;
        }
    }
    o->a = o->b = o->r2 = o->log_slope = NAN;
    double d = n * sxx - sx * sx;
    o->fitted = n >= 2 && d > 0;
    if (o->fitted) {
        o->b = (n * sxy - sx * sy) / d;
        o->a = (sy - o->b * sx) / n;
        double ybar = sy / n, ssr = 0, sst = 0;
        for (int k = 0; k < o->npoints; k++) {
            double x = o->x[k], y = o->y[k];
            if (!isfinite(x) || !isfinite(y)) continue;
            double e = y - (o->a + o->b * x);
            ssr += e * e;
            sst += (y - ybar) * (y - ybar);
        }
        o->r2 = sst > 0 ? 1 - ssr / sst : (ssr == 0 ? 1 : NAN);
    }
    double dl = nl * lxx - lx * lx;
    if (nl >= 2 && dl > 0) o->log_slope = (nl * lxy - lx * ly) / dl;
}

static mcb_rc alloc_points(mcb_xp_series_out *o, int n, mcb_err *err)
{
    o->npoints = n;
    o->x = mcb_calloc((size_t)n + 1, sizeof *o->x);
    o->y = mcb_calloc((size_t)n + 1, sizeof *o->y);
    o->failed = mcb_calloc((size_t)n + 1, sizeof *o->failed);
    if (!o->x || !o->y || !o->failed) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    return MCB_OK;
}

/* A series with one point per problem group (those --quick keeps). */
static mcb_rc series_points(eval_ctx *E, const mcb_xp_series *sr, int e, mcb_xp_series_out *o,
                            mcb_err *err)
{
    const mcb_xp_spec *S = E->S;
    mcb_rc rc = alloc_points(o, sr->nproblems, err);
    int n = 0;
    for (int k = 0; k < sr->nproblems && !rc; k++) {
        int g = index_of_problems(S, sr->problems[k]);
        if (g < 0)
            return mcb_fail(err, MCB_E_INPUT, "%s: series '%s': unknown problems '%s'", S->path,
                            sr->id, sr->problems[k]);
        if (group_skipped(E, g)) continue;
        const mcb_results_data *D;
        measure M;
        if ((rc = pair_results(E, g, e, &D, err)) || (rc = measure_runs(S, D, &S->y.y, &M, err)))
            break;
        o->x[n] = S->x.kind == MCB_XA_DOF ? mean_dof(D)
                  : S->problems[g].has_x  ? S->problems[g].x
                                          : NAN;
        o->y[n] = M.failed ? NAN : M.value;
        o->failed[n] = M.failed;
        n++;
    }
    o->npoints = n;
    return rc;
}

/* A curve: the median over the runs of every group of the series of the
 * y metric at each traced iteration (or solver time; curves.h). */
static mcb_rc series_curve(eval_ctx *E, const mcb_xp_series *sr, int e, mcb_xp_series_out *o,
                           mcb_err *err)
{
    const mcb_xp_spec *S = E->S;
    int metric = metric_of(S, &S->y.y, err);
    if (metric < 0) return MCB_E_INPUT;
    int total = 0, nr = 0;
    const mcb_results_data **Ds = mcb_calloc((size_t)sr->nproblems + 1, sizeof *Ds);
    if (!Ds) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mcb_rc rc = MCB_OK;
    int anyfail = 0;
    for (int k = 0; k < sr->nproblems && !rc; k++) {
        int g = index_of_problems(S, sr->problems[k]);
        if (g < 0) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s: series '%s': unknown problems '%s'", S->path,
                          sr->id, sr->problems[k]);
            break;
        }
        if (group_skipped(E, g)) continue;
        if (!(rc = pair_results(E, g, e, &Ds[k], err))) total += Ds[k]->count;
    }
    const mcb_run_rec **runs = rc ? NULL : mcb_calloc((size_t)total + 1, sizeof *runs);
    if (!rc && !runs) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int k = 0; k < sr->nproblems && !rc; k++)
        for (int i = 0; Ds[k] && i < Ds[k]->count; i++) {
            anyfail |= run_failed(&Ds[k]->runs[i]);
            runs[nr++] = &Ds[k]->runs[i];
        }
    mcb_curve C;
    memset(&C, 0, sizeof C);
    if (!rc)
        rc = mcb_curve_compute(runs, nr, S->x.kind == MCB_XA_TIME_S ? 1 : 0, 2 + metric,
                               MCB_CURVE_POINTS, &C, err);
    if (!rc) rc = alloc_points(o, C.npoints, err);
    for (int k = 0; !rc && k < C.npoints; k++) {
        o->x[k] = C.iter[k];
        o->y[k] = C.median[k];
        o->failed[k] = anyfail && k == C.npoints - 1;
    }
    mcb_curve_free(&C);
    free(runs);
    free(Ds);
    return rc;
}

/* One problem's measure in a performance profile: its runs' (repetitions')
 * mean time (ms) or iterations when every one was solved, else NaN. */
static double profile_measure(const mcb_xp_spec *S, const mcb_run_rec *r)
{
    if (r->status != MCB_ST_SOLVED) return NAN;
    return S->y.y.id == MCB_XQ_ITERATIONS ? (double)r->iterations
                                          : 1000.0 * (r->setup_s + r->solve_s);
}

/* Performance profiles (Dolan and More; profile.h) over the problems of
 * every series' groups: problem p's measure for series s is its y (time_ms
 * or iterations) when solved, a failure otherwise (NaN); problems are
 * matched across series by "set/name", in the first series' order, and a
 * problem a series lacks is its failure; repetitions are averaged. Each
 * series' points are its curve (tau, fraction of the problems within tau
 * of the best), drawn as steps. */
static mcb_rc series_profiles(eval_ctx *E, mcb_xp_outcome *R, mcb_err *err)
{
    const mcb_xp_spec *S = E->S;
    int ns = S->nseries, np = 0, cap = 0;
    char **names = NULL;
    double *t = NULL; /* np x ns, grown by rows */
    int *reps = NULL;
    mcb_rc rc = MCB_OK;
    for (int s = 0; s < ns && !rc; s++) {
        const mcb_xp_series *sr = &S->series[s];
        int e = index_of_solver(S, sr->solver);
        for (int k = 0; k < sr->nproblems && !rc; k++) {
            int g = index_of_problems(S, sr->problems[k]);
            if (g < 0 || group_skipped(E, g)) continue;
            const mcb_results_data *D;
            if ((rc = pair_results(E, g, e, &D, err))) break;
            for (int i = 0; i < D->count && !rc; i++) {
                const mcb_run_rec *r = &D->runs[i];
                char name[600];
                snprintf(name, sizeof name, "%s/%s", r->problem_set ? r->problem_set : "",
                         r->problem ? r->problem : "");
                int p = 0;
                while (p < np && strcmp(names[p], name) != 0) p++;
                if (p == np) {
                    if (np == cap) {
                        int nc = cap ? 2 * cap : 64;
                        char **nn = realloc(names, (size_t)nc * sizeof *nn);
                        double *nt = nn ? realloc(t, (size_t)nc * ns * sizeof *nt) : NULL;
                        int *nr = nt ? realloc(reps, (size_t)nc * ns * sizeof *nr) : NULL;
                        if (nn) names = nn;
                        if (nt) t = nt;
                        if (nr) reps = nr;
                        if (!nn || !nt || !nr) {
                            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
                            break;
                        }
                        cap = nc;
                    }
                    if (!(names[np] = mcb_strdup(name))) {
                        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
                        break;
                    }
                    for (int j = 0; j < ns; j++) t[(size_t)np * ns + j] = NAN, reps[(size_t)np * ns + j] = 0;
                    np++;
                }
                double x = profile_measure(S, r);
                double *cell = &t[(size_t)p * ns + s];
                int *nrep = &reps[(size_t)p * ns + s];
                /* the mean over repetitions; one failed repetition fails the problem */
                if (*nrep == 0) *cell = x;
                else if (isfinite(*cell)) *cell = isfinite(x) ? (*cell * *nrep + x) / (*nrep + 1) : NAN;
                (*nrep)++;
            }
        }
    }
    mcb_profile P;
    memset(&P, 0, sizeof P);
    if (!rc && np == 0) rc = mcb_fail(err, MCB_E_INPUT, "%s: no problem to profile", S->path);
    if (!rc)
        rc = mcb_profile_compute(t, np, ns, S->y.y.id == MCB_XQ_ITERATIONS ? MCB_PROFILE_ITER_FLOOR
                                                                           : MCB_PROFILE_TIME_FLOOR,
                                 1, &P, err);
    for (int s = 0; s < ns && !rc; s++) {
        mcb_xp_series_out *o = &R->series[s];
        int n = P.npoints[s];
        if ((rc = alloc_points(o, n, err))) break;
        for (int k = 0; k < n; k++) {
            o->x[k] = P.tau[(size_t)s * (np + 2) + k];
            o->y[k] = P.rho[(size_t)s * (np + 2) + k];
            o->failed[k] = 0;
        }
        o->npoints = n;
    }
    mcb_profile_free(&P);
    for (int p = 0; p < np; p++) free(names[p]);
    free(names);
    free(t);
    free(reps);
    return rc;
}

static int series_index(const mcb_xp_spec *S, const char *id)
{
    for (int k = 0; id && k < S->nseries; k++)
        if (S->series[k].id && strcmp(S->series[k].id, id) == 0) return k;
    return -1;
}

/* Claim k's measured value from its series. */
static void claim_value(const mcb_xp_spec *S, const mcb_xp_series_out *o, mcb_xp_cell *c)
{
    const mcb_xp_quantity *q = c->q;
    c->measured = NAN;
    int n = o->npoints, any = 0;
    for (int k = 0; k < n; k++) any |= o->failed[k];
    switch (q->id) {
    case MCB_XQ_FIT_R2: c->measured = o->r2; c->failed = any; break;
    case MCB_XQ_FIT_SLOPE: c->measured = o->log_slope; c->failed = any; break;
    case MCB_XQ_Y_FINAL:
        if (n > 0) {
            c->measured = o->y[n - 1];
            c->failed = o->failed[n - 1];
        }
        break;
    case MCB_XQ_Y_AT:
        for (int k = 0; k < n; k++) {
            int hit = is_curve(S) || is_profile(S) ? o->x[k] <= q->arg
                                  : fabs(o->x[k] - q->arg) <= 1e-9 * fmax(1, fabs(q->arg));
            if (hit) {
                c->measured = o->y[k];
                c->failed = o->failed[k];
            }
        }
        break;
    default: break;
    }
}

static mcb_rc evaluate_figure(eval_ctx *E, mcb_xp_outcome *R, mcb_err *err)
{
    const mcb_xp_spec *S = E->S;
    R->nseries = S->nseries;
    R->series = mcb_calloc((size_t)S->nseries + 1, sizeof *R->series);
    R->ncells = S->nclaims;
    R->cells = mcb_calloc((size_t)S->nclaims + 1, sizeof *R->cells);
    mcb_xp_band *bands = mcb_calloc((size_t)S->nclaims + 1, sizeof *bands);
    if (!R->series || !R->cells || !bands) {
        free(bands);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    mcb_rc rc = MCB_OK;
    int *ran = mcb_calloc((size_t)S->nseries + 1, sizeof *ran);
    if (!ran) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int s = 0; s < S->nseries && !rc; s++) {
        const mcb_xp_series *sr = &S->series[s];
        int e = index_of_solver(S, sr->solver);
        if (e < 0) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s: series '%s': unknown solver '%s'", S->path,
                          sr->id, sr->solver ? sr->solver : "(none)");
            break;
        }
        for (int k = 0; k < sr->nproblems; k++) {
            int g = index_of_problems(S, sr->problems[k]);
            ran[s] |= g >= 0 && !group_skipped(E, g);
        }
        if (is_profile(S)) continue; /* all series at once, below */
        rc = is_curve(S) ? series_curve(E, sr, e, &R->series[s], err)
                         : series_points(E, sr, e, &R->series[s], err);
        if (!rc) fit_series(&R->series[s]);
    }
    if (!rc && is_profile(S)) rc = series_profiles(E, R, err);
    for (int k = 0; k < S->nclaims && !rc; k++) {
        const mcb_xp_claim *cl = &S->claims[k];
        mcb_xp_cell *c = &R->cells[k];
        int s = series_index(S, cl->series);
        if (s < 0) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s: claim '%s': unknown series '%s'", S->path,
                          cl->id, cl->series ? cl->series : "(none)");
            break;
        }
        c->row = k;
        c->col = -1;
        c->row_label = cl->label ? cl->label : cl->id;
        c->col_label = S->series[s].label ? S->series[s].label : S->series[s].id;
        c->q = &cl->quantity;
        c->cls = mcb_xp_class_in(S, &cl->quantity);
        c->unit = mcb_xp_unit_in(S, &cl->quantity);
        c->published = &cl->published;
        c->group = -1;
        c->entry = index_of_solver(S, S->series[s].solver);
        c->ran = ran[s];
        c->ref = -1;
        for (int j = 0; cl->ref && j < S->nclaims; j++)
            if (S->claims[j].id && strcmp(S->claims[j].id, cl->ref) == 0) c->ref = j;
        bands[k] = pick_band(S, c->cls, cl->band, (mcb_xp_band){0, 0, 0});
        claim_value(S, &R->series[s], c);
    }
    if (!rc) rc = judge_all(R->cells, R->ncells, bands, err);
    free(ran);
    free(bands);
    return rc;
}

mcb_rc mcb_xp_evaluate(const mcb_xp_spec *S, const char *item_dir, int quick,
                       mcb_xp_outcome **out, mcb_err *err)
{
    return mcb_xp_evaluate_skipping(S, item_dir, quick, NULL, out, err);
}

mcb_rc mcb_xp_evaluate_skipping(const mcb_xp_spec *S, const char *item_dir, int quick,
                                const char *const *skipped, mcb_xp_outcome **out, mcb_err *err)
{
    *out = NULL;
    mcb_xp_outcome *R = mcb_calloc(1, sizeof *R);
    eval_ctx E = {S, item_dir, quick, NULL, NULL};
    size_t npairs = (size_t)S->nproblems * S->nsolvers;
    E.data = mcb_calloc(npairs + 1, sizeof *E.data);
    int nomem = !R || !E.data;
    if (!nomem && skipped) {
        R->skipped = mcb_calloc((size_t)S->nsolvers + 1, sizeof *R->skipped);
        R->nskipped = R->skipped ? S->nsolvers : 0;
        for (int e = 0; R->skipped && e < S->nsolvers; e++)
            if (skipped[e] && !(R->skipped[e] = mcb_strdup(skipped[e]))) nomem = 1;
        nomem |= !R->skipped;
        E.skipped = R->skipped;
    }
    if (nomem) {
        mcb_xp_outcome_free(&R);
        free(E.data);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    R->quick = quick;
    R->plotted = -1;
    mcb_rc rc = S->kind == MCB_XP_FIGURE ? evaluate_figure(&E, R, err) : evaluate_table(&E, R, err);
    for (size_t k = 0; k < npairs; k++) mcb_results_data_free(&E.data[k]);
    free(E.data);
    if (rc) mcb_xp_outcome_free(&R);
    *out = R;
    return rc;
}

static mcb_rc set_text(char **slot, const char *text, mcb_err *err)
{
    char *c = text ? mcb_strdup(text) : NULL;
    if (text && !c) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    free(*slot);
    *slot = c;
    return MCB_OK;
}

mcb_rc mcb_xp_set_command(mcb_xp_outcome *R, const char *command, mcb_err *err)
{
    return set_text(&R->command, command, err);
}

mcb_rc mcb_xp_set_machine(mcb_xp_outcome *R, const char *machine, mcb_err *err)
{
    return set_text(&R->machine, machine, err);
}

void mcb_xp_counts(const mcb_xp_outcome *R, int counts[MCB_XR_NVERDICTS])
{
    for (int v = 0; v < MCB_XR_NVERDICTS; v++) counts[v] = 0;
    for (int k = 0; R && k < R->ncells; k++) counts[R->cells[k].verdict]++;
}

void mcb_xp_outcome_free(mcb_xp_outcome **R)
{
    if (!R || !*R) return;
    for (int s = 0; s < (*R)->nseries; s++) {
        free((*R)->series[s].x);
        free((*R)->series[s].y);
        free((*R)->series[s].failed);
    }
    free((*R)->series);
    free((*R)->cells);
    for (int e = 0; e < (*R)->nskipped; e++) free((*R)->skipped[e]);
    free((*R)->skipped);
    free((*R)->machine);
    free((*R)->command);
    free(*R);
    *R = NULL;
}

/* ---- text of cells --------------------------------------------------- */

static void fmt_published(char *b, size_t n, const mcb_xp_value *p)
{
    if (!p || p->kind == MCB_XP_NONE) snprintf(b, n, "%s", "");
    else if (p->kind == MCB_XP_FAILED) snprintf(b, n, "-");
    else if (p->kind == MCB_XP_CATEGORY) snprintf(b, n, "%s", p->category ? p->category : "");
    else snprintf(b, n, "%.6g", p->number);
}

/* The measured value with its unit (NULL: none), "failed" (the paper's
 * "-") after it when a run failed, or alone when nothing was measured. */
static void fmt_measured(char *b, size_t n, const mcb_xp_cell *c, const char *unit)
{
    const char *sp = unit ? " " : "", *u = unit ? unit : "";
    if (!c->ran && c->skipped) snprintf(b, n, "not run (%s)", c->skipped);
    else if (!c->ran) snprintf(b, n, "not run");
    else if (c->category) snprintf(b, n, "%s", c->category);
    else if (c->failed) {
        if (isfinite(c->measured)) snprintf(b, n, "%.4g%s%s (failed)", c->measured, sp, u);
        else snprintf(b, n, "failed");
    } else if (isfinite(c->measured)) snprintf(b, n, "%.4g%s%s", c->measured, sp, u);
    else snprintf(b, n, "-");
}

/* Time: the ratio of ratios with both ratios; a factor band: measured /
 * published; an abs band: the signed difference (decades for residuals). */
static void fmt_ratio(char *b, size_t n, const mcb_xp_cell *c)
{
    if (isfinite(c->mratio) && !isfinite(c->pratio))
        snprintf(b, n, "(%.3gx, not published)", c->mratio);
    else if (isfinite(c->mratio))
        snprintf(b, n, "%.3g (%.3gx vs %.3gx)", c->ratio, c->mratio, c->pratio);
    else if (isfinite(c->ratio)) snprintf(b, n, "%.3g", c->ratio);
    else if (isfinite(c->diff))
        snprintf(b, n, "%+.3g%s", c->diff, c->q->id == MCB_XQ_RESIDUAL ? " decades" : "");
    else snprintf(b, n, "%s", "");
}

static const char *protocol_name(const mcb_xp_spec *S)
{
    return S->protocol == MCB_XP_CLOSED_LOOP ? "closed loop (mcbench simulate; budgets per step)"
                                             : "replay (mcbench run; budgets per problem)";
}

/* A budget as words ("iters 30, tol 0, threads 1"); "" when nothing is set. */
static void fmt_budget(char *b, size_t n, const mcb_xp_budget *B)
{
    size_t u = 0;
    b[0] = '\0';
#define ADD(...)                                                                              \
    do {                                                                                      \
        if (u < n) u += (size_t)snprintf(b + u, n - u, "%s", u ? ", " : "");                  \
        if (u < n) u += (size_t)snprintf(b + u, n - u, __VA_ARGS__);                          \
    } while (0)
    if (B->iters > 0) ADD("iters %d", B->iters);
    if (B->time_s >= 0) ADD(B->time_s > 0 ? "time %g s" : "no time limit", B->time_s);
    if (B->tol >= 0) ADD(B->tol > 0 ? "tol %g" : "no early stop (tol 0)", B->tol);
    if (B->stop) ADD("stop metric %s", B->stop);
    if (B->repeat > 0) ADD("repeat %d", B->repeat);
    if (B->threads > 0) ADD("threads %d", B->threads);
    if (B->check_every) ADD("check every %s", B->check_every);
    if (B->law) ADD("law %s", B->law);
    if (B->formulation) ADD("formulation %s", B->formulation);
    if (B->friction_directions > 0) ADD("%d friction directions", B->friction_directions);
    if (B->warm_start >= 0)
        ADD("%s start", B->warm_start == MCB_WARM_OWN ? "own warm"
                        : B->warm_start                ? "warm"
                                                       : "cold");
#undef ADD
}

static void default_command(const mcb_xp_spec *S, const mcb_xp_outcome *R, char *b, size_t n)
{
    if (R->command) snprintf(b, n, "%s", R->command);
    else snprintf(b, n, "mcbench reproduce %s%s", S->name, R->quick ? " --quick" : "");
}

static void verdict_summary(const mcb_xp_outcome *R, char *b, size_t n)
{
    int counts[MCB_XR_NVERDICTS];
    mcb_xp_counts(R, counts);
    size_t u = 0;
    b[0] = '\0';
    for (int v = 0; v < MCB_XR_NVERDICTS; v++)
        if (counts[v] && u < n)
            u += (size_t)snprintf(b + u, n - u, "%s%d %s", u ? ", " : "", counts[v],
                                  verdict_names[v]);
    if (!u) snprintf(b, n, "nothing to compare");
}

/* ---- Markdown ---------------------------------------------------------- */

static void md_budgets(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *f)
{
    char b[1024];
    fmt_budget(b, sizeof b, &S->budget);
    fprintf(f, "Protocol: %s. Budget: %s", protocol_name(S), b[0] ? b : "the commands' defaults");
    if (R->quick) {
        fmt_budget(b, sizeof b, &S->quick_budget);
        if (b[0]) fprintf(f, "; under --quick: %s", b);
    }
    fputs(".", f);
    for (int k = 0; k < S->nsolvers; k++) {
        const mcb_xp_solver *sv = &S->solvers[k];
        fmt_budget(b, sizeof b, &sv->budget);
        char q[512] = "";
        if (R->quick) fmt_budget(q, sizeof q, &sv->quick_budget);
        if (!b[0] && !q[0] && sv->nparams == 0 && !sv->needs) continue;
        fprintf(f, "\n- `%s` (%s):", sv->id, sv->solver ? sv->solver : "?");
        if (sv->needs) fprintf(f, " needs a %s%s", !strcmp(sv->needs, "gpu") ? "GPU" : sv->needs,
                               b[0] || q[0] || sv->nparams ? ";" : "");
        if (b[0]) fprintf(f, " %s", b);
        if (q[0]) fprintf(f, "%s--quick: %s", b[0] ? "; " : " ", q);
        for (int p = 0; p < sv->nparams; p++)
            fprintf(f, "%s%s=%g", p || b[0] || q[0] ? ", " : " ", sv->params[p].name,
                    sv->params[p].value);
    }
    fputs("\n\n", f);
}

static void md_matrix(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *f)
{
    fputs("| |", f);
    for (int j = 0; j < S->ncols; j++) {
        fputc(' ', f);
        mcb_md_cell(f, S->cols[j].label ? S->cols[j].label : S->cols[j].id);
        fputs(" |", f);
    }
    fputs("\n|---|", f);
    for (int j = 0; j < S->ncols; j++) fputs("---|", f);
    for (int i = 0; i < S->nrows; i++) {
        fputs("\n| ", f);
        mcb_md_cell(f, S->rows[i].label ? S->rows[i].label : S->rows[i].id);
        fputs(" |", f);
        for (int j = 0; j < S->ncols; j++) {
            const mcb_xp_cell *c = &R->cells[i * S->ncols + j];
            char m[96], p[96];
            fmt_measured(m, sizeof m, c, NULL);
            fmt_published(p, sizeof p, c->published);
            fprintf(f, " %s%s%s%s |", m, p[0] ? " (" : "", p, p[0] ? ")" : "");
        }
    }
    fputs("\n\nEach cell: measured (published).\n\n", f);
}

static void md_points(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *f)
{
    const char *xl = S->x.label ? S->x.label : "x";
    const char *yl = S->y.label ? S->y.label : (S->y.y.text ? S->y.y.text : "y");
    fputs("| series | ", f);
    mcb_md_cell(f, xl);
    fputs(" | ", f);
    mcb_md_cell(f, yl);
    fputs(" |\n|---|---|---|\n", f);
    for (int s = 0; s < R->nseries; s++) {
        const mcb_xp_series_out *o = &R->series[s];
        const char *label = S->series[s].label ? S->series[s].label : S->series[s].id;
        /* a curve: its first and last points (NAME.dat has every point) */
        for (int k = 0; k < o->npoints; k++) {
            if (is_curve(S) && k > 0 && k < o->npoints - 1) continue;
            fputs("| ", f);
            mcb_md_cell(f, label);
            fprintf(f, " | %.6g | %.4g%s |\n", o->x[k], o->y[k], o->failed[k] ? " (failed)" : "");
        }
        if (o->fitted && S->series[s].fit) {
            fputs("| ", f);
            mcb_md_cell(f, label);
            fprintf(f, " fit | y = %.4g + %.4g x | R^2 = %.6f, log-log slope %.4g |\n", o->a,
                    o->b, o->r2, o->log_slope);
        }
    }
    fputs("\n", f);
}

static void md_long(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *f)
{
    fprintf(f, "| %s | %s | published | measured | ratio | verdict |\n|---|---|---|---|---|---|\n",
            S->kind == MCB_XP_FIGURE ? "claim" : "row",
            S->kind == MCB_XP_FIGURE ? "series" : "column");
    for (int k = 0; k < R->ncells; k++) {
        const mcb_xp_cell *c = &R->cells[k];
        char m[96], p[96], r[96];
        const char *u = c->unit && c->unit[0] && strcmp(c->unit, "category") ? c->unit : NULL;
        fmt_measured(m, sizeof m, c, u);
        fmt_published(p, sizeof p, c->published);
        fmt_ratio(r, sizeof r, c);
        fputs("| ", f);
        mcb_md_cell(f, c->row_label);
        fputs(" | ", f);
        mcb_md_cell(f, c->col_label);
        int pu = u && is_number(c->published);
        fprintf(f, " | %s%s%s | %s | %s | %s |\n", p, pu ? " " : "", pu ? u : "", m, r,
                verdict_names[c->verdict]);
    }
}

static void md_notes(const mcb_xp_spec *S, FILE *f)
{
    if (S->nnotes == 0) return;
    fputs("\nDifferences and their explanations:\n\n", f);
    for (int k = 0; k < S->nnotes; k++) {
        const mcb_xp_note *n = &S->notes[k];
        fprintf(f, "- %s. Reason (%s): %s.", n->difference ? n->difference : "",
                n->tested ? "tested" : "conjecture", n->reason ? n->reason : "not known");
        if (n->experiment) fprintf(f, " Experiment: %s.", n->experiment);
        if (n->tested && n->result) fprintf(f, " Result: %s.", n->result);
        else if (!n->tested) fputs(" Not yet run.", f);
        fputc('\n', f);
    }
}

mcb_rc mcb_xp_markdown(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *f,
                       const char *heading, mcb_err *err)
{
    char cmd[1024], sum[512];
    fprintf(f, "%s %s\n\n", heading ? heading : "##", S->title ? S->title : S->name);
    fprintf(f, "Source: %s%s%s%s%s%s.\n\n", S->citation ? S->citation : (S->paper ? S->paper : ""),
            S->paper && S->citation ? " (`" : "", S->paper && S->citation ? S->paper : "",
            S->paper && S->citation ? "`)" : "", S->item ? ", " : "", S->item ? S->item : "");
    if (S->where) fprintf(f, "Where: %s.\n\n", S->where);
    if (S->caveat) fprintf(f, "> Caveat: %s\n\n", S->caveat);
    default_command(S, R, cmd, sizeof cmd);
    fprintf(f, "Made by `%s`.%s\n\n", cmd,
            R->quick ? " Quick run: smaller problems and budgets, not the paper's." : "");
    if (R->machine) fprintf(f, "Machine: %s.\n\n", R->machine);
    md_budgets(S, R, f);
    if (S->kind == MCB_XP_FIGURE) {
        char base[256];
        mcb_safe_name(S->name, base, sizeof base);
        if (R->plotted == 1) fprintf(f, "![%s](%s.svg)\n\n", S->title ? S->title : S->name, base);
        else if (R->plotted == 0) fprintf(f, "The plot was not drawn: %s.\n\n", R->plot_note);
        md_points(S, R, f);
    } else {
        md_matrix(S, R, f);
    }
    md_long(S, R, f);
    verdict_summary(R, sum, sizeof sum);
    fprintf(f, "\nVerdicts: %s.\n", sum);
    md_notes(S, f);
    if (ferror(f)) return mcb_fail(err, MCB_E_IO, "%s: cannot write its Markdown", S->name);
    return MCB_OK;
}

/* ---- CSV --------------------------------------------------------------- */

static void csv_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, ",%.9g", x);
    else fputs(",", f);
}

static void write_csv(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *f)
{
    fputs("item,row,column,quantity,unit,published,measured,failed,measured_ratio,"
          "published_ratio,ratio,difference,verdict\n", f);
    for (int k = 0; k < R->ncells; k++) {
        const mcb_xp_cell *c = &R->cells[k];
        char p[96];
        fmt_published(p, sizeof p, c->published);
        mcb_csv_field(f, S->name);
        fputc(',', f);
        mcb_csv_field(f, c->row_label);
        fputc(',', f);
        mcb_csv_field(f, c->col_label);
        fputc(',', f);
        mcb_csv_field(f, c->q->text ? c->q->text : "");
        fputc(',', f);
        mcb_csv_field(f, c->unit ? c->unit : "");
        fputc(',', f);
        mcb_csv_field(f, p);
        if (c->category) fprintf(f, ",%s", c->category);
        else csv_num(f, c->ran ? c->measured : NAN);
        fprintf(f, ",%d", c->failed);
        csv_num(f, c->mratio);
        csv_num(f, c->pratio);
        csv_num(f, c->ratio);
        csv_num(f, c->diff);
        fprintf(f, ",%s\n", verdict_names[c->verdict]);
    }
}

/* ---- HTML -------------------------------------------------------------- */

static void html_td(FILE *f, const char *s)
{
    fputs("<td>", f);
    mcb_html_escape(f, s);
    fputs("</td>", f);
}

static void write_html(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *f)
{
    char cmd[1024], sum[512];
    mcb_html_begin(f, S->title ? S->title : S->name, NULL);
    fputs("<p>Source: ", f);
    mcb_html_escape(f, S->citation ? S->citation : S->paper);
    if (S->item) fputs(", ", f), mcb_html_escape(f, S->item);
    if (S->where) fputs(" (", f), mcb_html_escape(f, S->where), fputs(")", f);
    fputs(".</p>\n", f);
    if (S->caveat) fputs("<p><b>Caveat:</b> ", f), mcb_html_escape(f, S->caveat), fputs("</p>\n", f);
    default_command(S, R, cmd, sizeof cmd);
    fputs("<p>Made by <code>", f);
    mcb_html_escape(f, cmd);
    fputs("</code>; protocol: ", f);
    mcb_html_escape(f, protocol_name(S));
    fputs(".</p>\n", f);
    if (R->machine) fputs("<p>Machine: ", f), mcb_html_escape(f, R->machine), fputs(".</p>\n", f);
    if (S->kind == MCB_XP_FIGURE) {
        char base[256];
        mcb_safe_name(S->name, base, sizeof base);
        if (R->plotted == 1) mcb_html_figure(f, base, "", S->title ? S->title : S->name, "");
        else fputs("<p>The plot was not drawn: ", f), mcb_html_escape(f, R->plot_note),
            fputs(".</p>\n", f);
    }
    fprintf(f, "<div class='tw'><table class='sortable'><thead><tr><th>%s</th><th>%s</th>"
               "<th>published</th><th>measured</th><th>unit</th><th>ratio</th><th>verdict</th>"
               "</tr></thead><tbody>\n",
            S->kind == MCB_XP_FIGURE ? "claim" : "row",
            S->kind == MCB_XP_FIGURE ? "series" : "column");
    for (int k = 0; k < R->ncells; k++) {
        const mcb_xp_cell *c = &R->cells[k];
        char m[96], p[96], r[96];
        fmt_measured(m, sizeof m, c, NULL);
        fmt_published(p, sizeof p, c->published);
        fmt_ratio(r, sizeof r, c);
        fputs("<tr>", f);
        html_td(f, c->row_label);
        html_td(f, c->col_label);
        html_td(f, p);
        html_td(f, m);
        html_td(f, c->unit);
        html_td(f, r);
        html_td(f, verdict_names[c->verdict]);
        fputs("</tr>\n", f);
    }
    verdict_summary(R, sum, sizeof sum);
    fputs("</tbody></table></div>\n<p>Verdicts: ", f);
    mcb_html_escape(f, sum);
    fputs(".</p>\n", f);
    if (S->nnotes) fputs("<h2>Differences and their explanations</h2>\n<ul>\n", f);
    for (int k = 0; k < S->nnotes; k++) {
        const mcb_xp_note *n = &S->notes[k];
        fputs("<li>", f);
        mcb_html_escape(f, n->difference);
        fprintf(f, ". <b>Reason (%s):</b> ", n->tested ? "tested" : "conjecture");
        mcb_html_escape(f, n->reason);
        if (n->experiment) fputs(". Experiment: <code>", f), mcb_html_escape(f, n->experiment),
            fputs("</code>", f);
        if (n->tested && n->result) fputs(". Result: ", f), mcb_html_escape(f, n->result);
        fputs(".</li>\n", f);
    }
    if (S->nnotes) fputs("</ul>\n", f);
    mcb_html_end(f);
}

/* ---- the figure -------------------------------------------------------- */

static void write_dat(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *f)
{
    fprintf(f, "# %s: x y failed, one gnuplot index per series\n", S->name);
    for (int s = 0; s < R->nseries; s++) {
        const mcb_xp_series_out *o = &R->series[s];
        fprintf(f, "# series %s\n", S->series[s].id);
        int n = 0;
        for (int k = 0; k < o->npoints; k++)
            if (isfinite(o->x[k]) && isfinite(o->y[k]))
                fprintf(f, "%.9g %.9g %d\n", o->x[k], o->y[k], o->failed[k]), n++;
        if (!n) fputs("nan nan 1\n", f); /* keeps the index numbering */
        fputs("\n\n", f);
    }
}

static void write_gp(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *gp)
{
    for (int t = 0; t < 2; t++) {
        fprintf(gp, "set terminal %s\nset output '", mcb_plot_terms[t][0]);
        char base[256];
        mcb_safe_name(S->name, base, sizeof base);
        fprintf(gp, "%s.%s'\n", base, mcb_plot_terms[t][1]);
        mcb_gp_text(gp, "title", S->title ? S->title : S->name);
        mcb_gp_text(gp, "xlabel", S->x.label ? S->x.label : "x");
        mcb_gp_text(gp, "ylabel", S->y.label ? S->y.label : (S->y.y.text ? S->y.y.text : "y"));
        fputs(mcb_gp_key_below, gp);
        fputs(S->x.log ? "set logscale x\nset format x '" MCB_GP_LOG_FORMAT "'\n"
                       : "unset logscale x\nset format x '%g'\n", gp);
        fputs(S->y.log ? "set logscale y\nset format y '" MCB_GP_LOG_FORMAT "'\n"
                       : "unset logscale y\nset format y '%g'\n", gp);
        fputs("set grid\nplot ", gp);
        int first = 1;
        for (int s = 0; s < R->nseries; s++) {
            const char *label = S->series[s].label ? S->series[s].label : S->series[s].id;
            fprintf(gp, "%s'%s.dat' index %d using 1:2 with %s ", first ? "" : ", \\\n  ", base, s,
                    is_profile(S) ? "steps" : is_curve(S) ? "lines" : "linespoints");
            mcb_gp_solver_style(gp, s);
            fputs(" lw 2 title ", gp);
            mcb_gp_quote(gp, label);
            first = 0;
            const mcb_xp_series_out *o = &R->series[s];
            if (S->series[s].fit && o->fitted) {
                /* the series' colour, dashed */
                fprintf(gp, ", \\\n  %.17g + %.17g * x with lines lc %d dt 2 title ", o->a, o->b,
                        s % 8 + 1);
                char t2[512];
                snprintf(t2, sizeof t2, "%s: fit, R^2 = %.4f", label, o->r2);
                mcb_gp_quote(gp, t2);
            }
        }
        fputs("\nset output\n", gp);
    }
}

/* ---- writing ------------------------------------------------------------ */

typedef struct {
    char final[4200], tmp[4300];
    FILE *f;
} out_file;

static mcb_rc out_open(out_file *o, const char *dir, const char *base, const char *ext,
                       mcb_err *err)
{
    snprintf(o->final, sizeof o->final, "%s/%s%s", dir, base, ext);
    snprintf(o->tmp, sizeof o->tmp, "%s.partial%ld", o->final, (long)getpid());
    o->f = NULL;
    if (mcb_tmp_register(o->tmp) != 0) {
        o->tmp[0] = '\0';
        return mcb_fail(err, MCB_E_IO, "%s: too many temporary files", o->final);
    }
    if (!(o->f = fopen(o->tmp, "w"))) {
        mcb_rc rc = mcb_fail(err, MCB_E_IO, "%s: cannot write (%s)", o->tmp, strerror(errno));
        mcb_tmp_unregister(o->tmp);
        o->tmp[0] = '\0';
        return rc;
    }
    return MCB_OK;
}

static mcb_rc out_close(out_file *o, mcb_err *err)
{
    mcb_rc rc = MCB_OK;
    if (o->f) {
        int bad = ferror(o->f);
        if (fclose(o->f) != 0 || bad)
            rc = mcb_fail(err, MCB_E_IO, "%s: cannot write", o->final);
        o->f = NULL;
    }
    return rc;
}

static void out_discard(out_file *o)
{
    if (o->f) fclose(o->f);
    o->f = NULL;
    if (o->tmp[0]) {
        unlink(o->tmp);
        mcb_tmp_unregister(o->tmp);
        o->tmp[0] = '\0';
    }
}

static mcb_rc out_commit(out_file *o, mcb_err *err)
{
    mcb_rc rc = MCB_OK;
    if (rename(o->tmp, o->final) != 0)
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot move into place (%s)", o->final,
                      strerror(errno));
    else {
        mcb_tmp_unregister(o->tmp);
        o->tmp[0] = '\0';
    }
    return rc;
}

/* The figure's data and script (committed at once: gnuplot reads them by
 * name), then gnuplot; R->plotted says whether it drew. */
static mcb_rc draw_figure(const mcb_xp_spec *S, mcb_xp_outcome *R, const char *dir,
                          const char *base, const char *gnuplot, mcb_err *err)
{
    out_file dat, gp;
    memset(&dat, 0, sizeof dat);
    memset(&gp, 0, sizeof gp);
    mcb_rc rc = out_open(&dat, dir, base, ".dat", err);
    if (!rc) rc = out_open(&gp, dir, base, ".gp", err);
    if (!rc) {
        write_dat(S, R, dat.f);
        write_gp(S, R, gp.f);
        rc = out_close(&dat, err);
        if (!rc) rc = out_close(&gp, err);
    }
    if (!rc) rc = out_commit(&dat, err);
    if (!rc) rc = out_commit(&gp, err);
    out_discard(&dat);
    out_discard(&gp);
    if (rc) return rc;
    char script[300], log[300];
    snprintf(script, sizeof script, "%s.gp", base);
    snprintf(log, sizeof log, "%s.gnuplot.log", base);
    mcb_err gerr;
    if (mcb_run_gnuplot(dir, gnuplot, script, log, &gerr) == MCB_OK) {
        R->plotted = 1;
        R->plot_note[0] = '\0';
    } else {
        R->plotted = 0;
        snprintf(R->plot_note, sizeof R->plot_note, "%.120s; the data (%.40s.dat) and the "
                 "script (%.40s.gp) are beside this file", gerr.msg, base, base);
    }
    return MCB_OK;
}

mcb_rc mcb_xp_write(const mcb_xp_spec *S, mcb_xp_outcome *R, const char *item_dir,
                    const char *gnuplot, mcb_err *err)
{
    char base[256];
    mcb_safe_name(S->name, base, sizeof base);
    mcb_rc rc = mcb_mkdirs(item_dir, err);
    if (rc) return rc;
    R->plotted = -1;
    if (S->kind == MCB_XP_FIGURE && (rc = draw_figure(S, R, item_dir, base, gnuplot, err)))
        return rc;
    static const char *const ext[3] = {".md", ".csv", ".html"};
    out_file o[3];
    memset(o, 0, sizeof o);
    for (int k = 0; k < 3 && !rc; k++) rc = out_open(&o[k], item_dir, base, ext[k], err);
    if (!rc) {
        rc = mcb_xp_markdown(S, R, o[0].f, "##", err);
        write_csv(S, R, o[1].f);
        write_html(S, R, o[2].f);
    }
    for (int k = 0; k < 3 && !rc; k++) rc = out_close(&o[k], err);
    for (int k = 0; k < 3 && !rc; k++) rc = out_commit(&o[k], err);
    for (int k = 0; k < 3; k++) out_discard(&o[k]);
    return rc;
}

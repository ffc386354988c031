/* mcb_results.c: the results file and its CSV, written from run records
 * and read back from a results file or a journal (mcb_results.h). */
#include "lib/mcb_results.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/mcb_journal.h"
#include "lib/mcb_problem.h"
#include "lib/mcb_h5.h"
#include "lib/mcb_isolate.h"
#include "lib/mcb_paths.h"
#include "lib/mcb_tiers.h"

#define RESULTS_FORMAT "mcbench-results"
#define RESULTS_VERSION 7 /* 7: own_status, own_stop, the tiers= settings word and the
                             CSV's claim and tier columns; 6: closed-loop runs (a run's
                             steps), CSV loop columns */
#define RESULTS_VERSION_OLDEST 4 /* version 4: no /descriptors, read all the same */

static char *tmp_name(const char *path)
{
    size_t len = strlen(path) + 32;
    char *t = malloc(len);
    if (t) snprintf(t, len, "%s.partial%ld", path, (long)getpid());
    return t;
}

/* ---------------------------------------------------------- HDF5 memory */

/* HDF5's metadata cache keeps every object header it has read while the
 * file is open (a results file holds one group of ~40 attributes per run):
 * read with the default settings, a part of 30 000 runs grew to 0.1-0.7 GB
 * of cache, and a merge keeps every part open. Results files are therefore
 * opened with a small metadata cache (2 MB at most) and, when read,
 * with the metadata of each closed object evicted; reading one run after
 * another then costs a bounded amount of memory, and is no slower (the
 * cache does not grow to be searched). 2 MB holds the index of /runs of a
 * 99 000-run file: with 1 MB that index was read again and again (5.7 s of
 * system time for one pass over the file, 0.3 s with 2 MB, and no faster
 * with 4 or 16 MB). Returns a file access property list (H5P_DEFAULT if it
 * cannot be made: correct, only larger). */
static hid_t lean_fapl(int read_only)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) return H5P_DEFAULT;
    H5AC_cache_config_t c;
    memset(&c, 0, sizeof c);
    c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Pget_mdc_config(fapl, &c) >= 0) {
        c.set_initial_size = 1;
        c.initial_size = 1 << 20;
        c.max_size = 2 << 20;
        c.min_size = 1 << 18;
        H5Pset_mdc_config(fapl, &c);
    }
    if (read_only) H5Pset_evict_on_close(fapl, 1);
    return fapl;
}

static void fapl_close(hid_t fapl)
{
    if (fapl != H5P_DEFAULT) H5Pclose(fapl);
}

/* The file opened read-only and lean (mcb_h5_open_ro's checks). */
static hid_t open_lean_ro(const char *path, mcb_err *err)
{
    hid_t fapl = lean_fapl(1);
    hid_t f = mcb_h5_open_ro_fapl(path, fapl, err);
    fapl_close(fapl);
    return f;
}

/* ---------------------------------------------------------------- context */

static int write_context(hid_t f, const mcb_results_data *D)
{
    hid_t g = mcb_h5_create_group(f, "context");
    if (g < 0) return -1;
    int rc = mcb_h5_attr_write_str(g, "date", D->date) ||
             mcb_h5_attr_write_str(g, "git_revision", D->git_revision) ||
             mcb_h5_attr_write_str(g, "compiler", D->compiler) ||
             mcb_h5_attr_write_str(g, "cflags", D->cflags) ||
             mcb_h5_attr_write_str(g, "cpu_model", D->cpu_model) ||
             mcb_h5_attr_write_int(g, "cpu_count", D->cpu_count) ||
             mcb_h5_attr_write_int(g, "threads", D->threads) ||
             mcb_h5_attr_write_int(g, "max_iters", D->max_iters) ||
             mcb_h5_attr_write_double(g, "time_limit_s", D->time_limit_s) ||
             mcb_h5_attr_write_double(g, "tol", D->tol) ||
             mcb_h5_attr_write_str(g, "stop_metric", D->stop_metric) ||
             mcb_h5_attr_write_int(g, "warm_start", D->warm_start) ||
             mcb_h5_attr_write_int(g, "check_every", D->check_every) ||
             mcb_h5_attr_write_int(g, "trace_every", D->trace_every) ||
             mcb_h5_attr_write_str(g, "timing", mcb_timing_name(D->timing)) ||
             mcb_h5_attr_write_int(g, "repeat", D->repeat) ||
             mcb_h5_attr_write_int(g, "total_runs", D->total_runs) ||
             mcb_h5_attr_write_str(g, "settings", D->settings) ||
             mcb_h5_attr_write_str(g, "command", D->command) ||
             (D->inputs && mcb_h5_attr_write_str(g, "inputs", D->inputs)) ||
             (D->gpu_device && mcb_h5_attr_write_str(g, "gpu_device", D->gpu_device));
    H5Gclose(g);
    return rc;
}

/* /descriptors/NNNNNN: one group per problem, its descriptors as
 * attributes (docs/results-format.md; -1 and NaN: unknown). */
static const char *const desc_ints[] = {"n", "m", "contacts", "subsystems", "rank", "rank_def",
                                        "cond_steps"};
static const char *const desc_dbls[] = {"rows_per_dof", "rank_tol", "mu_min", "mu_med",
                                        "mu_max",       "cond_w",   "mass_ratio"};
static const char *const desc_from[] = {"rank_from", "cond_from", "mass_from"};

static int write_descriptors(hid_t f, const mcb_results_data *D)
{
    if (D->ndesc <= 0) return 0;
    hid_t top = mcb_h5_create_group(f, "descriptors");
    if (top < 0) return -1;
    int rc = 0;
    for (int k = 0; k < D->ndesc && !rc; k++) {
        const mcb_problem_desc *x = &D->desc[k];
        const mcb_descriptors *d = &x->d;
        char name[32];
        snprintf(name, sizeof name, "%06d", k);
        hid_t g = H5Gcreate2(top, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        if (g < 0) {
            rc = -1;
            break;
        }
        const long iv[] = {d->n, d->m, d->contacts, d->nsub, d->rank, d->rank_def, d->cond_steps};
        const double dv[] = {d->rows_per_dof, d->rank_tol, d->mu_min, d->mu_med,
                             d->mu_max,       d->cond_w,   d->mass_ratio};
        const int fv[] = {d->rank_from, d->cond_from, d->mass_from};
        rc = mcb_h5_attr_write_str(g, "problem_set", x->problem_set) ||
             mcb_h5_attr_write_str(g, "problem", x->problem) ||
             mcb_h5_attr_write_str(g, "form", mcb_form_name(d->form));
        for (int i = 0; i < 7 && !rc; i++) rc = mcb_h5_attr_write_int(g, desc_ints[i], iv[i]);
        for (int i = 0; i < 7 && !rc; i++) rc = mcb_h5_attr_write_double(g, desc_dbls[i], dv[i]);
        for (int i = 0; i < 3 && !rc; i++)
            rc = mcb_h5_attr_write_str(g, desc_from[i], mcb_desc_from_name(fv[i]));
        H5Gclose(g);
    }
    H5Gclose(top);
    return rc;
}

static int desc_from_name(const char *s)
{
    for (int k = 0; k <= MCB_DESC_DIAG; k++)
        if (!strcmp(s, mcb_desc_from_name(k))) return k;
    return MCB_DESC_NONE;
}

static herr_t count_link(hid_t g, const char *name, const H5L_info_t *info, void *data);

/* Reads /descriptors when present (format 5; absent in version 4). */
static mcb_rc read_descriptors(hid_t f, const char *path, mcb_results_data *D, mcb_err *err)
{
    if (!mcb_h5_exists(f, "descriptors")) return MCB_OK;
    hid_t top = H5Gopen2(f, "descriptors", H5P_DEFAULT);
    if (top < 0) return mcb_fail(err, MCB_E_INPUT, "%s: /descriptors is not a group", path);
    int count = 0;
    mcb_rc rc = MCB_OK;
    if (H5Literate(top, H5_INDEX_NAME, H5_ITER_INC, NULL, count_link, &count) < 0)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: cannot list /descriptors", path);
    if (!rc && count > 0 && !(D->desc = mcb_calloc((size_t)count, sizeof *D->desc)))
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int k = 0; k < count && !rc; k++) {
        char name[32], where[4200];
        snprintf(name, sizeof name, "%06d", k);
        snprintf(where, sizeof where, "%s: /descriptors/%s", path, name);
        hid_t g = mcb_h5_exists(top, name) ? H5Gopen2(top, name, H5P_DEFAULT) : -1;
        if (g < 0) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s is missing or not a group", where);
            break;
        }
        mcb_problem_desc *x = &D->desc[k];
        D->ndesc = k + 1;
        mcb_descriptors *d = &x->d;
        int *iv[] = {&d->n, &d->m, &d->contacts, &d->nsub, &d->rank, &d->rank_def, &d->cond_steps};
        double *dv[] = {&d->rows_per_dof, &d->rank_tol, &d->mu_min, &d->mu_med,
                        &d->mu_max,       &d->cond_w,   &d->mass_ratio};
        int *fv[] = {&d->rank_from, &d->cond_from, &d->mass_from};
        char *form = NULL;
        rc = mcb_h5_attr_get_str(g, "problem_set", where, &x->problem_set, err);
        if (!rc) rc = mcb_h5_attr_get_str(g, "problem", where, &x->problem, err);
        if (!rc) rc = mcb_h5_attr_get_str(g, "form", where, &form, err);
        if (!rc) d->form = strcmp(form, "dual") ? MCB_PRIMAL : MCB_DUAL;
        free(form);
        for (int i = 0; i < 7 && !rc; i++) {
            long v = 0;
            rc = mcb_h5_attr_get_int(g, desc_ints[i], where, &v, err);
            if (!rc && (v < -1 || v > INT_MAX))
                rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute %s = %ld is out of range", where,
                              desc_ints[i], v);
            *iv[i] = (int)v;
        }
        for (int i = 0; i < 7 && !rc; i++) rc = mcb_h5_attr_get_double(g, desc_dbls[i], where, dv[i], err);
        for (int i = 0; i < 3 && !rc; i++) {
            char *s = NULL;
            rc = mcb_h5_attr_get_str(g, desc_from[i], where, &s, err);
            if (!rc) *fv[i] = desc_from_name(s);
            free(s);
        }
        H5Gclose(g);
    }
    H5Gclose(top);
    return rc;
}

/* ------------------------------------------------------------------- CSV */

const char *mcb_csv_header(void)
{
    static char header[2048];
    if (!header[0]) {
        size_t off = (size_t)snprintf(header, sizeof header,
                                      "problem_set,problem,solver,rep,status,iterations,setup_s,"
                                      "solve_s,total_s,own_residual,n,m,ncontacts");
        for (int k = 0; k < MCB_NMETRICS; k++)
            off += (size_t)snprintf(header + off, sizeof header - off, ",%s", mcb_metric_name(k));
        for (int k = 0; k < MCB_NMETRICS; k++)
            if (mcb_metric_is_residual(k))
                off += (size_t)snprintf(header + off, sizeof header - off, ",aa_%s",
                                        mcb_metric_name(k));
        snprintf(header + off, sizeof header - off,
                 ",checks,measure_s,observed_solve_s,timing,run_index,config_hash,inner_iterations,"
                 "form_residual,loop_steps,engine_s,pen_mean,drift_max,energy_gain_J,div_rms_m,"
                 "div_max_m,outcome,depth_mean_m,outcome_err,own_status,own_stop,"
                 "met_before_stop");
        for (int t = 1; t <= MCB_MAX_TIERS; t++) {
            off = strlen(header);
            snprintf(header + off, sizeof header - off, ",tier%d_tol,tier%d_iterations,tier%d_s",
                     t, t, t);
        }
        off = strlen(header);
        snprintf(header + off, sizeof header - off,
                 ",warm_start,start,reason,load_avg,cpu_mhz,cpu_max_mhz,others_share");
    }
    return header;
}

/* CSV field: quoted when it holds a comma, quote or newline. */
static void csv_str(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double x)
{
    if (isnan(x)) fputs(",nan", f);
    else fprintf(f, ",%.6e", x);
}

/* FNV-1a, 64 bits: a short name for a run's configuration in the CSV. */
static unsigned long long fnv1a(const char *s)
{
    unsigned long long h = 1469598103934665603ULL;
    for (; s && *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* What a CSV row needs from the campaign: the trace column of its stop
 * metric, its tolerance, time limit and tiers, its warm-start mode. */
typedef struct {
    int col, ntiers, warm_start;
    double tol, time_limit_s, tiers[MCB_MAX_TIERS];
} csv_ctx;

static void csv_ctx_of(const mcb_results_data *D, csv_ctx *X)
{
    X->col = 2 + mcb_metric_from_name(D->stop_metric ? D->stop_metric : "");
    if (X->col < 2) X->col = 2 + MCB_M_NATMAP;
    X->tol = D->tol;
    X->time_limit_s = D->time_limit_s;
    X->ntiers = mcb_campaign_tiers(D->settings, D->tol, X->tiers);
    X->warm_start = D->warm_start;
}

/* own_status, own_stop, met_before_stop, then per tier slot its tolerance,
 * iterations and time to it (empty: no such tier, or not reached). */
static void csv_claims_tiers(FILE *f, const mcb_run_rec *r, const csv_ctx *X)
{
    mcb_claim c;
    mcb_claim_of(r, X->col, X->tol, &c);
    fprintf(f, ",%s", r->own_status >= 0 ? mcb_status_name(r->own_status) : "");
    if (r->own_stop >= 0) fprintf(f, ",%d", r->own_stop);
    else fputc(',', f);
    if (c.known) fprintf(f, ",%d", c.met_before_stop);
    else fputc(',', f);
    for (int t = 0; t < MCB_MAX_TIERS; t++) {
        int it;
        double ts;
        if (t >= X->ntiers) fputs(",,,", f);
        else if (!mcb_tier_reached(r, X->col, X->tiers[t], X->time_limit_s, &it, &ts))
            fprintf(f, ",%.3g,,", X->tiers[t]);
        else
            fprintf(f, ",%.3g,%d,%.6e", X->tiers[t], it, ts);
    }
}

static int write_csv_row(FILE *f, const mcb_run_rec *r, const csv_ctx *X)
{
    csv_str(f, r->problem_set);
    fputc(',', f);
    csv_str(f, r->problem);
    fputc(',', f);
    csv_str(f, r->solver);
    fprintf(f, ",%d,%s,%d", r->rep, mcb_status_name(r->status), r->iterations);
    csv_num(f, r->setup_s);
    csv_num(f, r->solve_s);
    csv_num(f, r->setup_s + r->solve_s);
    csv_num(f, r->own_residual);
    fprintf(f, ",%d,%d,%d", r->n, r->m, r->ncontacts);
    for (int k = 0; k < MCB_NMETRICS; k++) csv_num(f, r->final.val[k]);
    for (int k = 0; k < MCB_NMETRICS; k++)
        if (mcb_metric_is_residual(k)) {
            double x = r->final.val[k];
            csv_num(f, x > 0 ? -log10(x) : (x == 0 ? INFINITY : NAN));
        }
    fprintf(f, ",%d", r->checks);
    csv_num(f, r->measure_s);
    csv_num(f, r->observed_solve_s);
    fprintf(f, ",%s,%d,%016llx,%d", mcb_timed_name(r->timing), r->run_index, fnv1a(r->config),
            r->inner_iterations);
    csv_num(f, r->form_residual);
    if (r->step_rows > 0) {
        mcb_loop_summary L;
        mcb_loop_summarize(r->steps, r->step_rows, &L);
        fprintf(f, ",%d", L.steps);
        const double x[] = {L.engine_s,  L.pen_mean,  L.drift_max, L.energy_max_gain,
                            L.div_rms_m, L.div_max_m, L.outcome_end, L.depth_mean_m,
                            L.outcome_err_mean};
        for (size_t k = 0; k < sizeof x / sizeof *x; k++) csv_num(f, x[k]);
    } else {
        fputs(",0,,,,,,,,,", f);
    }
    csv_claims_tiers(f, r, X);
    fprintf(f, ",%s,%s,", mcb_warm_name(X->warm_start), mcb_start_name(r->start));
    csv_str(f, r->reason ? r->reason : "");
    const double machine[] = {r->load_avg, r->cpu_mhz, r->cpu_max_mhz, r->others_share};
    for (size_t k = 0; k < sizeof machine / sizeof *machine; k++) csv_num(f, machine[k]);
    return fputc('\n', f) == EOF ? -1 : 0;
}

/* --------------------------------------------------------- HDF5 records */

/* A table of doubles with its column names in the attribute `columns`. */
static int write_named_table(hid_t g, const char *name, const double *x, int rows, int cols,
                             const char *(*column)(int))
{
    if (mcb_h5_write_table(g, name, x, rows, cols)) return -1;
    char names[2048] = "";
    size_t off = 0;
    for (int c = 0; c < cols && off < sizeof names; c++)
        off += (size_t)snprintf(names + off, sizeof names - off, "%s%s", c ? "," : "", column(c));
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    int rc = d < 0 || mcb_h5_attr_write_str(d, "columns", names);
    if (d >= 0) H5Dclose(d);
    return rc;
}

/* The machine's state during a run (optional: NaN when absent). */
static const char *const machine_attrs[4] = {"load_avg", "cpu_mhz", "cpu_max_mhz",
                                             "others_share"};

static int write_run(hid_t runs, int k, const mcb_run_rec *r)
{
    char name[32];
    snprintf(name, sizeof name, "%06d", k);
    hid_t g = H5Gcreate2(runs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return -1;
    int rc = mcb_h5_attr_write_str(g, "problem_set", r->problem_set) ||
             mcb_h5_attr_write_str(g, "problem", r->problem) ||
             mcb_h5_attr_write_str(g, "solver", r->solver) ||
             mcb_h5_attr_write_str(g, "status", mcb_status_name(r->status)) ||
             mcb_h5_attr_write_str(g, "reason", r->reason ? r->reason : "") ||
             mcb_h5_attr_write_str(g, "config", r->config ? r->config : "") ||
             mcb_h5_attr_write_str(g, "timing", mcb_timed_name(r->timing));
    const char *ints[] = {"run_index", "problem_index", "rep",    "iterations",
                          "n",         "m",             "ncontacts", "checks", "inner_iterations"};
    const int ival[] = {r->run_index, r->problem_index, r->rep,    r->iterations,
                        r->n,         r->m,             r->ncontacts, r->checks, r->inner_iterations};
    for (int i = 0; i < 9 && !rc; i++) rc = mcb_h5_attr_write_int(g, ints[i], ival[i]);
    const char *dbl[] = {"setup_s",   "solve_s",          "own_residual",
                         "measure_s", "observed_solve_s", "form_residual"};
    const double dval[] = {r->setup_s,   r->solve_s,          r->own_residual,
                           r->measure_s, r->observed_solve_s, r->form_residual};
    for (int i = 0; i < 6 && !rc; i++) rc = mcb_h5_attr_write_double(g, dbl[i], dval[i]);
    const double mval[] = {r->load_avg, r->cpu_mhz, r->cpu_max_mhz, r->others_share};
    for (int i = 0; i < 4 && !rc; i++) rc = mcb_h5_attr_write_double(g, machine_attrs[i], mval[i]);
    if (!rc)
        rc = mcb_h5_attr_write_str(g, "own_status",
                                   r->own_status >= 0 ? mcb_status_name(r->own_status) : "") ||
             mcb_h5_attr_write_int(g, "own_stop", r->own_stop);
    for (int i = 0; i < MCB_NMETRICS && !rc; i++) {
        char an[64];
        snprintf(an, sizeof an, "final_%s", mcb_metric_name(i));
        rc = mcb_h5_attr_write_double(g, an, r->final.val[i]);
    }
    if (!rc && r->trace_rows > 0)
        rc = write_named_table(g, "trace", r->trace, r->trace_rows, MCB_TRACE_COLS,
                               mcb_trace_column);
    if (!rc && r->step_rows > 0)
        rc = write_named_table(g, "steps", r->steps, r->step_rows, MCB_STEP_COLS,
                               mcb_step_column);
    if (!rc && r->v && r->n > 0) rc = mcb_h5_write_doubles(g, "v", r->v, r->n);
    if (!rc && r->lambda) rc = mcb_h5_write_doubles(g, "lambda", r->lambda, r->m);
    if (!rc && r->start) rc = mcb_h5_attr_write_str(g, "start", mcb_start_name(r->start));
    H5Gclose(g);
    return rc;
}

/* own_status and own_stop (format 7; older runs: -1, unknown). */
static mcb_rc read_own(hid_t g, const char *ctx, mcb_run_rec *r, mcb_err *err)
{
    r->own_status = r->own_stop = -1;
    mcb_rc rc = MCB_OK;
    if (mcb_h5_attr_exists(g, "own_status")) {
        char *st = NULL;
        if ((rc = mcb_h5_attr_get_str(g, "own_status", ctx, &st, err))) return rc;
        r->own_status = st[0] ? mcb_status_from_name(st) : -1;
        if (st[0] && r->own_status < 0)
            rc = mcb_fail(err, MCB_E_INPUT, "%s: own_status '%.64s' is unknown", ctx, st);
        free(st);
        if (rc) return rc;
    }
    if (mcb_h5_attr_exists(g, "own_stop")) {
        long v;
        if ((rc = mcb_h5_attr_get_int(g, "own_stop", ctx, &v, err))) return rc;
        if (v < -1 || v > 1)
            return mcb_fail(err, MCB_E_INPUT, "%s: attribute own_stop = %ld is not -1, 0 or 1",
                            ctx, v);
        r->own_stop = (int)v;
    }
    return MCB_OK;
}

static mcb_rc read_run(hid_t g, const char *ctx, mcb_run_rec *r, mcb_err *err)
{
    long v;
    char *st = NULL, *tm = NULL;
    mcb_rc rc;
    memset(r, 0, sizeof *r);
    if ((rc = mcb_h5_attr_get_str(g, "problem_set", ctx, &r->problem_set, err)) ||
        (rc = mcb_h5_attr_get_str(g, "problem", ctx, &r->problem, err)) ||
        (rc = mcb_h5_attr_get_str(g, "solver", ctx, &r->solver, err)) ||
        (rc = mcb_h5_attr_get_str(g, "reason", ctx, &r->reason, err)) ||
        (rc = mcb_h5_attr_get_str(g, "config", ctx, &r->config, err)) ||
        (rc = mcb_h5_attr_get_str(g, "timing", ctx, &tm, err)) ||
        (rc = mcb_h5_attr_get_str(g, "status", ctx, &st, err))) {
        free(st);
        free(tm);
        return rc;
    }
    r->status = mcb_status_from_name(st);
    r->timing = mcb_timed_from_name(tm);
    if (r->status < 0 || r->timing < 0)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: %s '%.64s' is unknown", ctx,
                      r->status < 0 ? "status" : "timing", r->status < 0 ? st : tm);
    free(st);
    free(tm);
    if (rc) return rc;
    const char *ints[] = {"run_index", "problem_index", "rep",    "iterations",
                          "n",         "m",             "ncontacts", "checks", "inner_iterations"};
    int *dst[] = {&r->run_index, &r->problem_index, &r->rep,    &r->iterations,
                  &r->n,         &r->m,             &r->ncontacts, &r->checks, &r->inner_iterations};
    for (int k = 0; k < 9; k++) {
        if ((rc = mcb_h5_attr_get_int(g, ints[k], ctx, &v, err))) return rc;
        if (v < 0 || v > INT_MAX)
            return mcb_fail(err, MCB_E_INPUT, "%s: attribute %s = %ld is out of range", ctx,
                            ints[k], v);
        *dst[k] = (int)v;
    }
    const char *dbl[] = {"setup_s",   "solve_s",          "own_residual",
                         "measure_s", "observed_solve_s", "form_residual"};
    double *dd[] = {&r->setup_s,   &r->solve_s,          &r->own_residual,
                    &r->measure_s, &r->observed_solve_s, &r->form_residual};
    r->form_residual = NAN; /* optional: a run of a file without formulations */
    for (int k = 0; k < 6; k++)
        if ((k < 5 || mcb_h5_attr_exists(g, dbl[k])) &&
            (rc = mcb_h5_attr_get_double(g, dbl[k], ctx, dd[k], err)))
            return rc;
    for (int k = 0; k < MCB_NMETRICS; k++) {
        char an[64];
        snprintf(an, sizeof an, "final_%s", mcb_metric_name(k));
        if ((rc = mcb_h5_attr_get_double(g, an, ctx, &r->final.val[k], err))) return rc;
    }
    double *md[] = {&r->load_avg, &r->cpu_mhz, &r->cpu_max_mhz, &r->others_share};
    for (int k = 0; k < 4; k++) {
        *md[k] = NAN; /* since issue 28 */
        if (mcb_h5_attr_exists(g, machine_attrs[k]) &&
            (rc = mcb_h5_attr_get_double(g, machine_attrs[k], ctx, md[k], err)))
            return rc;
    }
    if ((rc = read_own(g, ctx, r, err))) return rc;
    if (mcb_h5_exists(g, "trace")) {
        long rows = 0;
        if ((rc = mcb_h5_read_table(g, "trace", MCB_TRACE_COLS, ctx, &rows, &r->trace, err)))
            return rc;
        r->trace_rows = (int)rows;
    }
    if (mcb_h5_exists(g, "steps")) {
        long rows = 0;
        /* mcbench < 0.20 wrote the steps without depth_m and outcome_err,
         * < 0.21 without contact_force_N and inverse_force_N: NaN there */
        if ((rc = mcb_h5_read_table_min(g, "steps", MCB_SC_DEPTH_M, MCB_STEP_COLS, ctx, &rows,
                                        &r->steps, err)))
            return rc;
        r->step_rows = (int)rows;
    }
    if (mcb_h5_exists(g, "v") && (rc = mcb_h5_read_doubles(g, "v", r->n, ctx, &r->v, err)))
        return rc;
    if (mcb_h5_exists(g, "lambda") &&
        (rc = mcb_h5_read_doubles(g, "lambda", r->m, ctx, &r->lambda, err)))
        return rc;
    if (mcb_h5_attr_exists(g, "start")) { /* optional: where the run started */
        char *s = NULL;
        if ((rc = mcb_h5_attr_get_str(g, "start", ctx, &s, err))) return rc;
        r->start = mcb_start_from_name(s);
        if (r->start <= 0)
            rc = mcb_fail(err, MCB_E_INPUT, "%s: start '%.64s' is unknown", ctx, s);
        free(s);
    }
    return rc;
}

static mcb_rc read_context(hid_t f, const char *path, mcb_results_data *D, mcb_err *err)
{
    char *fmt = NULL, *timing = NULL;
    long ver = 0, iv = 0;
    mcb_rc rc = MCB_OK;
    hid_t ctx = -1;
    if (!mcb_h5_attr_exists(f, "format"))
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: root attribute format is missing: not an mcbench results file", path);
    if ((rc = mcb_h5_attr_get_str(f, "format", path, &fmt, err))) return rc;
    if (strcmp(fmt, RESULTS_FORMAT) != 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: format is '%.64s', expected '%s'%s", path, fmt,
                      RESULTS_FORMAT,
                      strcmp(fmt, "mcbench-problem") == 0
                          ? ": this is a problem file (make a results file with 'mcbench run')"
                          : "");
        goto done;
    }
    if ((rc = mcb_h5_attr_get_int(f, "format_version", path, &ver, err))) goto done;
    if (ver < RESULTS_VERSION_OLDEST || ver > RESULTS_VERSION) {
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: results format version %ld, this mcbench reads %d (rerun the "
                      "campaign to regenerate it)",
                      path, ver, RESULTS_VERSION);
        goto done;
    }
    if (!mcb_h5_exists(f, "context") || !mcb_h5_exists(f, "runs")) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: /context or /runs is missing", path);
        goto done;
    }
    char where[4200];
    snprintf(where, sizeof where, "%s: /context", path);
    if ((ctx = H5Gopen2(f, "context", H5P_DEFAULT)) < 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s is not a group", where);
        goto done;
    }
    char **strs[] = {&D->stop_metric, &D->date,    &D->git_revision, &D->cpu_model,
                     &D->compiler,    &D->command, &D->cflags,       &D->settings};
    const char *snames[] = {"stop_metric", "date",    "git_revision", "cpu_model",
                            "compiler",    "command", "cflags",       "settings"};
    for (int k = 0; k < 8 && !rc; k++) rc = mcb_h5_attr_get_str(ctx, snames[k], where, strs[k], err);
    if (!rc && mcb_h5_attr_exists(ctx, "inputs")) /* since issue 22 */
        rc = mcb_h5_attr_get_str(ctx, "inputs", where, &D->inputs, err);
    if (!rc && mcb_h5_attr_exists(ctx, "gpu_device")) /* since issue 27 */
        rc = mcb_h5_attr_get_str(ctx, "gpu_device", where, &D->gpu_device, err);
    if (rc) goto done;
    int *ints[] = {&D->max_iters, &D->threads,     &D->cpu_count, &D->warm_start,
                   &D->check_every, &D->trace_every, &D->repeat,  &D->total_runs};
    const char *inames[] = {"max_iters",   "threads",     "cpu_count", "warm_start",
                            "check_every", "trace_every", "repeat",    "total_runs"};
    for (int k = 0; k < 8 && !rc; k++) {
        rc = mcb_h5_attr_get_int(ctx, inames[k], where, &iv, err);
        if (!rc && (iv < INT_MIN || iv > INT_MAX))
            rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute %s = %ld is out of range", where,
                          inames[k], iv);
        *ints[k] = (int)iv;
    }
    if (rc || (rc = mcb_h5_attr_get_double(ctx, "tol", where, &D->tol, err)) ||
        (rc = mcb_h5_attr_get_double(ctx, "time_limit_s", where, &D->time_limit_s, err)) ||
        (rc = mcb_h5_attr_get_str(ctx, "timing", where, &timing, err)))
        goto done;
    D->timing = mcb_timing_from_name(timing);
    if (D->timing < 0) rc = mcb_fail(err, MCB_E_INPUT, "%s: timing '%.64s' is unknown", where, timing);
done:
    free(fmt);
    free(timing);
    if (ctx >= 0) H5Gclose(ctx);
    return rc;
}

/* ---------------------------------------------------------------- sources */

struct mcb_results_src {
    char *path;
    mcb_results_data ctx;
    hid_t file, runs;           /* a results file */
    mcb_journal_index *journal; /* or a journal */
};

static herr_t count_link(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g;
    (void)name;
    (void)info;
    (*(int *)data)++;
    return 0;
}

/* Everything a results file holds, read once: what the isolated child
 * checks before the parent opens the file. */
static mcb_rc probe_results(void *arg, mcb_err *err)
{
    mcb_results_src *S = NULL;
    mcb_rc rc = mcb_results_src_open(arg, &S, err); /* not isolated: see below */
    for (int k = 0; S && !rc && k < S->ctx.count; k++) {
        mcb_run_rec r;
        rc = mcb_results_src_run(S, k, &r, err);
        mcb_rec_free(&r);
    }
    mcb_results_src_close(&S);
    return rc;
}

static mcb_rc open_h5(mcb_results_src *S, mcb_err *err)
{
    mcb_h5_quiet();
    S->file = open_lean_ro(S->path, err);
    if (S->file < 0) return MCB_E_INPUT;
    mcb_rc rc = read_context(S->file, S->path, &S->ctx, err);
    if (!rc) rc = read_descriptors(S->file, S->path, &S->ctx, err);
    if (rc) return rc;
    if ((S->runs = H5Gopen2(S->file, "runs", H5P_DEFAULT)) < 0)
        return mcb_fail(err, MCB_E_INPUT, "%s: /runs is not a group", S->path);
    int count = 0;
    if (H5Literate(S->runs, H5_INDEX_NAME, H5_ITER_INC, NULL, count_link, &count) < 0)
        return mcb_fail(err, MCB_E_INPUT, "%s: cannot list /runs", S->path);
    S->ctx.count = count;
    S->ctx.complete = 1;
    return MCB_OK;
}

static int in_child; /* set in the isolated child: open without isolating again */

static mcb_rc probe_in_child(void *arg, mcb_err *err)
{
    in_child = 1;
    return probe_results(arg, err);
}

mcb_rc mcb_results_src_open(const char *path, mcb_results_src **out, mcb_err *err)
{
    *out = NULL;
    mcb_results_src *S = calloc(1, sizeof *S);
    if (!S || !(S->path = mcb_strdup(path))) {
        free(S);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    S->file = S->runs = -1;
    struct stat st;
    char jpath[4200];
    mcb_journal_path(path, jpath, sizeof jpath);
    size_t len = strlen(path);
    int is_journal = len > 8 && !strcmp(path + len - 8, ".journal");
    mcb_rc rc;
    if (is_journal || (stat(path, &st) != 0 && stat(jpath, &st) == 0)) {
        rc = mcb_journal_load(is_journal ? path : jpath, &S->journal, err);
        if (!rc) {
            S->ctx = S->journal->ctx;
            memset(&S->journal->ctx, 0, sizeof S->journal->ctx); /* moved */
            S->ctx.count = S->journal->count;
            S->ctx.complete = 0;
        }
    } else {
        rc = in_child ? MCB_OK : mcb_isolate_probe(path, probe_in_child, (void *)path, err);
        if (!rc) rc = open_h5(S, err);
    }
    if (rc) mcb_results_src_close(&S);
    *out = S;
    return rc;
}

const mcb_results_data *mcb_results_src_ctx(const mcb_results_src *S) { return &S->ctx; }
const char *mcb_results_src_path(const mcb_results_src *S) { return S->path; }

mcb_rc mcb_results_src_run(mcb_results_src *S, int k, mcb_run_rec *r, mcb_err *err)
{
    memset(r, 0, sizeof *r);
    if (k < 0 || k >= S->ctx.count) return mcb_fail(err, MCB_E_INPUT, "%s: no run %d", S->path, k);
    if (S->journal) return mcb_journal_run(S->journal, k, r, err);
    char name[32], where[4200];
    snprintf(name, sizeof name, "%06d", k);
    snprintf(where, sizeof where, "%s: /runs/%s", S->path, name);
    hid_t g = mcb_h5_exists(S->runs, name) ? H5Gopen2(S->runs, name, H5P_DEFAULT) : -1;
    if (g < 0) return mcb_fail(err, MCB_E_INPUT, "%s is missing or not a group", where);
    mcb_rc rc = read_run(g, where, r, err);
    H5Gclose(g);
    if (rc) mcb_rec_free(r);
    return rc;
}

mcb_rc mcb_results_src_index(mcb_results_src *S, int k, int *run_index, mcb_err *err)
{
    *run_index = -1;
    if (k < 0 || k >= S->ctx.count) return mcb_fail(err, MCB_E_INPUT, "%s: no run %d", S->path, k);
    if (S->journal) {
        mcb_run_rec r;
        mcb_rc rc = mcb_journal_run(S->journal, k, &r, err);
        if (!rc) *run_index = r.run_index;
        mcb_rec_free(&r);
        return rc;
    }
    char name[32], where[4200];
    snprintf(name, sizeof name, "%06d", k);
    snprintf(where, sizeof where, "%s: /runs/%s", S->path, name);
    hid_t g = mcb_h5_exists(S->runs, name) ? H5Gopen2(S->runs, name, H5P_DEFAULT) : -1;
    if (g < 0) return mcb_fail(err, MCB_E_INPUT, "%s is missing or not a group", where);
    long v = -1;
    mcb_rc rc = mcb_h5_attr_get_int(g, "run_index", where, &v, err);
    H5Gclose(g);
    if (!rc && (v < 0 || v > INT_MAX))
        rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute run_index = %ld is out of range", where, v);
    if (!rc) *run_index = (int)v;
    return rc;
}

void mcb_results_src_close(mcb_results_src **Sp)
{
    if (!Sp || !*Sp) return;
    mcb_results_src *S = *Sp;
    if (S->runs >= 0) H5Gclose(S->runs);
    if (S->file >= 0) H5Fclose(S->file);
    mcb_journal_index_free(&S->journal);
    mcb_results_ctx_free(&S->ctx);
    free(S->path);
    free(S);
    *Sp = NULL;
}

/* ---------------------------------------------------------------- writing */

mcb_rc mcb_results_write(const char *h5_path, const char *csv_path, const mcb_results_data *ctx,
                         const mcb_pick *picks, int npicks, mcb_err *err)
{
    mcb_h5_quiet();
    char *h5_tmp = tmp_name(h5_path), *csv_tmp = tmp_name(csv_path);
    if (!h5_tmp || !csv_tmp || mcb_tmp_register(h5_tmp) || mcb_tmp_register(csv_tmp)) {
        if (h5_tmp) mcb_tmp_unregister(h5_tmp);
        free(h5_tmp);
        free(csv_tmp);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    mcb_rc rc = MCB_OK;
    hid_t fapl = lean_fapl(0);
    hid_t file = H5Fcreate(h5_tmp, H5F_ACC_EXCL, H5P_DEFAULT, fapl), runs = -1;
    fapl_close(fapl);
    FILE *csv = fopen(csv_tmp, "wx");
    if (file < 0 || !csv) {
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot create results files", h5_path);
        goto done;
    }
    if (mcb_h5_attr_write_str(file, "format", RESULTS_FORMAT) ||
        mcb_h5_attr_write_int(file, "format_version", RESULTS_VERSION) ||
        write_context(file, ctx) || write_descriptors(file, ctx) ||
        (runs = mcb_h5_create_group(file, "runs")) < 0 ||
        fprintf(csv, "%s\n", mcb_csv_header()) < 0) {
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot write results", h5_path);
        goto done;
    }
    csv_ctx X;
    csv_ctx_of(ctx, &X);
    for (int k = 0; k < npicks && !rc; k++) {
        mcb_run_rec r;
        rc = mcb_results_src_run(picks[k].src, picks[k].k, &r, err);
        if (!rc && (write_run(runs, k, &r) || write_csv_row(csv, &r, &X)))
            rc = mcb_fail(err, MCB_E_IO, "%s: cannot write run %d", h5_path, k);
        mcb_rec_free(&r);
    }
done:
    if (runs >= 0) H5Gclose(runs);
    if (file >= 0 && H5Fclose(file) < 0 && !rc)
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot finish results", h5_path);
    if (csv && fclose(csv) != 0 && !rc)
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot finish results", csv_path);
    if (!rc && (rename(h5_tmp, h5_path) != 0 || rename(csv_tmp, csv_path) != 0))
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot move results into place", h5_path);
    /* whatever was not renamed into place is removed */
    unlink(h5_tmp);
    unlink(csv_tmp);
    mcb_tmp_unregister(h5_tmp);
    mcb_tmp_unregister(csv_tmp);
    free(h5_tmp);
    free(csv_tmp);
    return rc;
}

/* ---------------------------------------------------------------- reading */

mcb_rc mcb_results_read(const char *path, mcb_results_data **out, mcb_err *err)
{
    *out = NULL;
    mcb_results_src *S = NULL;
    mcb_rc rc = mcb_results_src_open(path, &S, err);
    if (rc) return rc;
    mcb_results_data *D = calloc(1, sizeof *D);
    if (!D) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc) {
        *D = S->ctx;
        memset(&S->ctx, 0, sizeof S->ctx); /* moved */
        int count = D->count;
        D->count = 0;
        D->runs = mcb_calloc((size_t)count, sizeof(mcb_run_rec));
        S->ctx.count = count;
        if (!D->runs && count) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        for (int k = 0; k < count && !rc; k++) {
            rc = mcb_results_src_run(S, k, &D->runs[k], err);
            if (!rc) D->count = k + 1;
        }
    }
    mcb_results_src_close(&S);
    if (rc) mcb_results_data_free(&D);
    *out = D;
    return rc;
}


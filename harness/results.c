/* results.c: results HDF5 and CSV, writing and reading back. */
#include "results.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mcb_build.h"
#include "mcb_h5.h"
#include "mcb_isolate.h"
#include "mcb_paths.h"

#define RESULTS_FORMAT "mcbench-results"
#define RESULTS_VERSION 2

struct mcb_results {
    hid_t file, runs;
    FILE *csv;
    int count;
    char *h5_path, *h5_tmp, *csv_path, *csv_tmp;
};

static char *tmp_name(const char *path)
{
    size_t len = strlen(path) + 32;
    char *t = malloc(len);
    if (t) snprintf(t, len, "%s.partial%ld", path, (long)getpid());
    return t;
}

/* First line of a command's output, or "unknown". */
static void command_line(const char *cmd, char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *p = popen(cmd, "r");
    if (!p) return;
    if (fgets(buf, (int)len, p)) buf[strcspn(buf, "\n")] = '\0';
    else snprintf(buf, len, "unknown");
    pclose(p);
    if (!buf[0]) snprintf(buf, len, "unknown");
}

static void cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ') c++;
                c[strcspn(c, "\n")] = '\0';
                snprintf(buf, len, "%s", c);
            }
            break;
        }
    }
    fclose(f);
}

static int write_context(hid_t f, const mcb_context *ctx)
{
    hid_t g = mcb_h5_create_group(f, "context");
    if (g < 0) return -1;
    char date[64], rev[128], cpu[256];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
#ifdef MCB_SOURCE_DIR
    command_line("git -C '" MCB_SOURCE_DIR "' rev-parse --short HEAD 2>/dev/null", rev, sizeof rev);
#else
    snprintf(rev, sizeof rev, "unknown");
#endif
    cpu_model(cpu, sizeof cpu);
    int rc = mcb_h5_attr_write_str(g, "date", date) ||
             mcb_h5_attr_write_str(g, "git_revision", rev) ||
             mcb_h5_attr_write_str(g, "compiler", MCB_COMPILER) ||
             mcb_h5_attr_write_str(g, "cflags", MCB_CFLAGS) ||
             mcb_h5_attr_write_str(g, "cpu_model", cpu) ||
             mcb_h5_attr_write_int(g, "cpu_count", sysconf(_SC_NPROCESSORS_ONLN)) ||
             mcb_h5_attr_write_int(g, "threads", ctx->settings.threads) ||
             mcb_h5_attr_write_int(g, "max_iters", ctx->settings.max_iters) ||
             mcb_h5_attr_write_double(g, "time_limit_s", ctx->settings.time_limit_s) ||
             mcb_h5_attr_write_double(g, "tol", ctx->settings.tol) ||
             mcb_h5_attr_write_str(g, "stop_metric", mcb_metric_name(ctx->stop_metric)) ||
             mcb_h5_attr_write_int(g, "warm_start", ctx->settings.warm_start) ||
             mcb_h5_attr_write_int(g, "trace_every", ctx->trace_every) ||
             mcb_h5_attr_write_int(g, "repeat", ctx->repeat) ||
             mcb_h5_attr_write_str(g, "command", ctx->command);
    H5Gclose(g);
    return rc;
}

const char *mcb_csv_header(void)
{
    static char header[1024];
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
        snprintf(header + off, sizeof header - off, ",reason");
    }
    return header;
}

mcb_rc mcb_results_open(const char *h5_path, const char *csv_path, const mcb_context *ctx,
                        mcb_results **out, mcb_err *err)
{
    *out = NULL;
    mcb_h5_quiet();
    mcb_results *R = calloc(1, sizeof *R);
    if (!R) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    R->file = R->runs = -1;
    R->h5_path = mcb_strdup(h5_path);
    R->csv_path = mcb_strdup(csv_path);
    R->h5_tmp = tmp_name(h5_path);
    R->csv_tmp = tmp_name(csv_path);
    if (!R->h5_path || !R->csv_path || !R->h5_tmp || !R->csv_tmp) {
        mcb_results_close(&R, 0, NULL);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (mcb_tmp_register(R->h5_tmp) || mcb_tmp_register(R->csv_tmp)) {
        mcb_results_close(&R, 0, NULL);
        return mcb_fail(err, MCB_E_IO, "too many temporary files");
    }
    R->file = H5Fcreate(R->h5_tmp, H5F_ACC_EXCL, H5P_DEFAULT, H5P_DEFAULT);
    R->csv = fopen(R->csv_tmp, "wx");
    if (R->file < 0 || !R->csv) {
        mcb_results_close(&R, 0, NULL);
        return mcb_fail(err, MCB_E_IO, "%s: cannot create results files", h5_path);
    }
    int rc = mcb_h5_attr_write_str(R->file, "format", RESULTS_FORMAT) ||
             mcb_h5_attr_write_int(R->file, "format_version", RESULTS_VERSION) ||
             write_context(R->file, ctx);
    R->runs = rc ? -1 : mcb_h5_create_group(R->file, "runs");
    if (rc || R->runs < 0 || fprintf(R->csv, "%s\n", mcb_csv_header()) < 0) {
        mcb_results_close(&R, 0, NULL);
        return mcb_fail(err, MCB_E_IO, "%s: cannot write results", h5_path);
    }
    *out = R;
    return MCB_OK;
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

static int write_csv_row(FILE *f, const mcb_run *r)
{
    csv_str(f, r->problem_set);
    fputc(',', f);
    csv_str(f, r->problem);
    fputc(',', f);
    csv_str(f, r->solver);
    fprintf(f, ",%d,%s,%d", r->rep, mcb_status_name(r->info.status), r->info.iterations);
    csv_num(f, r->info.setup_s);
    csv_num(f, r->info.solve_s);
    csv_num(f, r->info.setup_s + r->info.solve_s);
    csv_num(f, r->info.own_residual);
    fprintf(f, ",%d,%d,%d", r->n, r->m, r->ncontacts);
    for (int k = 0; k < MCB_NMETRICS; k++) csv_num(f, r->final.val[k]);
    for (int k = 0; k < MCB_NMETRICS; k++)
        if (mcb_metric_is_residual(k)) {
            double x = r->final.val[k];
            csv_num(f, x > 0 ? -log10(x) : (x == 0 ? INFINITY : NAN));
        }
    fputc(',', f);
    csv_str(f, r->info.reason);
    return fputc('\n', f) == EOF ? -1 : 0;
}

mcb_rc mcb_results_add(mcb_results *R, const mcb_run *r, mcb_err *err)
{
    char name[32];
    snprintf(name, sizeof name, "%06d", R->count);
    hid_t g = H5Gcreate2(R->runs, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) return mcb_fail(err, MCB_E_IO, "%s: cannot write run %s", R->h5_path, name);
    int rc = mcb_h5_attr_write_str(g, "problem_set", r->problem_set) ||
             mcb_h5_attr_write_str(g, "problem", r->problem) ||
             mcb_h5_attr_write_int(g, "problem_index", r->problem_index) ||
             mcb_h5_attr_write_str(g, "solver", r->solver) ||
             mcb_h5_attr_write_int(g, "rep", r->rep) ||
             mcb_h5_attr_write_str(g, "status", mcb_status_name(r->info.status)) ||
             mcb_h5_attr_write_str(g, "reason", r->info.reason) ||
             mcb_h5_attr_write_int(g, "iterations", r->info.iterations) ||
             mcb_h5_attr_write_double(g, "setup_s", r->info.setup_s) ||
             mcb_h5_attr_write_double(g, "solve_s", r->info.solve_s) ||
             mcb_h5_attr_write_double(g, "own_residual", r->info.own_residual) ||
             mcb_h5_attr_write_int(g, "n", r->n) || mcb_h5_attr_write_int(g, "m", r->m) ||
             mcb_h5_attr_write_int(g, "ncontacts", r->ncontacts);
    for (int k = 0; k < MCB_NMETRICS && !rc; k++) {
        char an[64];
        snprintf(an, sizeof an, "final_%s", mcb_metric_name(k));
        rc = mcb_h5_attr_write_double(g, an, r->final.val[k]);
    }
    if (!rc && r->trace_rows > 0) {
        rc = mcb_h5_write_table(g, "trace", r->trace, r->trace_rows, MCB_TRACE_COLS);
        if (!rc) {
            char cols[512] = "";
            size_t off = 0;
            for (int k = 0; k < MCB_TRACE_COLS; k++)
                off += (size_t)snprintf(cols + off, sizeof cols - off, "%s%s", k ? "," : "",
                                        mcb_trace_column(k));
            hid_t d = H5Dopen2(g, "trace", H5P_DEFAULT);
            rc = d < 0 || mcb_h5_attr_write_str(d, "columns", cols);
            if (d >= 0) H5Dclose(d);
        }
    }
    if (!rc && r->v && r->n > 0) rc = mcb_h5_write_doubles(g, "v", r->v, r->n);
    if (!rc && r->lambda) rc = mcb_h5_write_doubles(g, "lambda", r->lambda, r->m);
    H5Gclose(g);
    if (!rc) rc = write_csv_row(R->csv, r);
    if (rc) return mcb_fail(err, MCB_E_IO, "%s: cannot write run %s", R->h5_path, name);
    R->count++;
    return MCB_OK;
}

mcb_rc mcb_results_close(mcb_results **Rp, int complete, mcb_err *err)
{
    if (!Rp || !*Rp) return MCB_OK;
    mcb_results *R = *Rp;
    int bad = 0;
    if (R->runs >= 0) H5Gclose(R->runs);
    if (R->file >= 0 && H5Fclose(R->file) < 0) bad = 1;
    if (R->csv && fclose(R->csv) != 0) bad = 1;
    mcb_rc rc = MCB_OK;
    if (complete && (bad || !R->h5_tmp || !R->csv_tmp))
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot finish results", R->h5_path);
    else if (complete &&
             (rename(R->h5_tmp, R->h5_path) != 0 || rename(R->csv_tmp, R->csv_path) != 0))
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot move results into place", R->h5_path);
    /* whatever was not renamed into place is removed */
    const char *tmps[2] = {R->h5_tmp, R->csv_tmp};
    for (int k = 0; k < 2; k++)
        if (tmps[k]) {
            unlink(tmps[k]);
            mcb_tmp_unregister(tmps[k]);
        }
    free(R->h5_path);
    free(R->h5_tmp);
    free(R->csv_path);
    free(R->csv_tmp);
    free(R);
    *Rp = NULL;
    return rc;
}

/* ---------------------------------------------------------------- reading */

static int status_from_name(const char *s)
{
    for (int k = 0; k < MCB_NSTATUS; k++)
        if (s && strcmp(s, mcb_status_name(k)) == 0) return k;
    return -1;
}

static herr_t count_link(hid_t g, const char *name, const H5L_info_t *info, void *data)
{
    (void)g;
    (void)name;
    (void)info;
    (*(int *)data)++;
    return 0;
}

static mcb_rc read_run(hid_t g, const char *ctx, mcb_run_rec *r, mcb_err *err)
{
    long v;
    char *st = NULL;
    mcb_rc rc;
    if ((rc = mcb_h5_attr_get_str(g, "problem_set", ctx, &r->problem_set, err)) ||
        (rc = mcb_h5_attr_get_str(g, "problem", ctx, &r->problem, err)) ||
        (rc = mcb_h5_attr_get_str(g, "solver", ctx, &r->solver, err)) ||
        (rc = mcb_h5_attr_get_str(g, "reason", ctx, &r->reason, err)) ||
        (rc = mcb_h5_attr_get_str(g, "status", ctx, &st, err)))
        return rc;
    r->status = status_from_name(st);
    if (r->status < 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: status '%.64s' is unknown", ctx, st);
        free(st);
        return rc;
    }
    free(st);
    const char *ints[] = {"problem_index", "rep", "iterations", "n", "m", "ncontacts"};
    int *dst[] = {&r->problem_index, &r->rep, &r->iterations, &r->n, &r->m, &r->ncontacts};
    for (int k = 0; k < 6; k++) {
        if ((rc = mcb_h5_attr_get_int(g, ints[k], ctx, &v, err))) return rc;
        if (v < 0 || v > INT_MAX)
            return mcb_fail(err, MCB_E_INPUT, "%s: attribute %s = %ld is out of range", ctx,
                            ints[k], v);
        *dst[k] = (int)v;
    }
    if ((rc = mcb_h5_attr_get_double(g, "setup_s", ctx, &r->setup_s, err)) ||
        (rc = mcb_h5_attr_get_double(g, "solve_s", ctx, &r->solve_s, err)) ||
        (rc = mcb_h5_attr_get_double(g, "own_residual", ctx, &r->own_residual, err)))
        return rc;
    for (int k = 0; k < MCB_NMETRICS; k++) {
        char an[64];
        snprintf(an, sizeof an, "final_%s", mcb_metric_name(k));
        if ((rc = mcb_h5_attr_get_double(g, an, ctx, &r->final.val[k], err))) return rc;
    }
    if (mcb_h5_exists(g, "trace")) {
        long rows = 0;
        if ((rc = mcb_h5_read_table(g, "trace", MCB_TRACE_COLS, ctx, &rows, &r->trace, err)))
            return rc;
        r->trace_rows = (int)rows;
    }
    if (mcb_h5_exists(g, "v") && (rc = mcb_h5_read_doubles(g, "v", r->n, ctx, &r->v, err)))
        return rc;
    if (mcb_h5_exists(g, "lambda") &&
        (rc = mcb_h5_read_doubles(g, "lambda", r->m, ctx, &r->lambda, err)))
        return rc;
    return MCB_OK;
}

static mcb_rc read_results(const char *path, mcb_results_data **out, mcb_err *err)
{
    *out = NULL;
    hid_t f = mcb_h5_open_ro(path, err);
    if (f < 0) return MCB_E_INPUT;
    mcb_results_data *D = calloc(1, sizeof *D);
    char *fmt = NULL;
    long ver = 0, iv = 0;
    mcb_rc rc = MCB_OK;
    hid_t ctx = -1, runs = -1;
    if (!D) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    if (!mcb_h5_attr_exists(f, "format")) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: root attribute format is missing: not an mcbench "
                      "results file", path);
        goto done;
    }
    if ((rc = mcb_h5_attr_get_str(f, "format", path, &fmt, err))) goto done;
    if (strcmp(fmt, RESULTS_FORMAT) != 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: format is '%.64s', expected '%s'%s", path, fmt,
                      RESULTS_FORMAT,
                      strcmp(fmt, "mcbench-problem") == 0
                          ? ": this is a problem file (make a results file with 'mcbench run')"
                          : "");
        goto done;
    }
    if ((rc = mcb_h5_attr_get_int(f, "format_version", path, &ver, err))) goto done;
    if (ver != RESULTS_VERSION) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: results format version %ld, this mcbench reads %d",
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
    if ((rc = mcb_h5_attr_get_str(ctx, "stop_metric", where, &D->stop_metric, err)) ||
        (rc = mcb_h5_attr_get_str(ctx, "date", where, &D->date, err)) ||
        (rc = mcb_h5_attr_get_str(ctx, "git_revision", where, &D->git_revision, err)) ||
        (rc = mcb_h5_attr_get_str(ctx, "cpu_model", where, &D->cpu_model, err)) ||
        (rc = mcb_h5_attr_get_str(ctx, "compiler", where, &D->compiler, err)) ||
        (rc = mcb_h5_attr_get_double(ctx, "tol", where, &D->tol, err)) ||
        (rc = mcb_h5_attr_get_double(ctx, "time_limit_s", where, &D->time_limit_s, err)) ||
        (rc = mcb_h5_attr_get_int(ctx, "max_iters", where, &iv, err)))
        goto done;
    D->max_iters = (int)iv;
    if ((rc = mcb_h5_attr_get_int(ctx, "threads", where, &iv, err))) goto done;
    D->threads = (int)iv;
    if ((runs = H5Gopen2(f, "runs", H5P_DEFAULT)) < 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: /runs is not a group", path);
        goto done;
    }
    int count = 0;
    if (H5Literate(runs, H5_INDEX_NAME, H5_ITER_INC, NULL, count_link, &count) < 0) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: cannot list /runs", path);
        goto done;
    }
    D->runs = mcb_calloc((size_t)count, sizeof(mcb_run_rec));
    if (!D->runs) {
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        goto done;
    }
    for (int k = 0; k < count && !rc; k++) {
        char name[32];
        snprintf(name, sizeof name, "%06d", k);
        snprintf(where, sizeof where, "%s: /runs/%s", path, name);
        hid_t g = mcb_h5_exists(runs, name) ? H5Gopen2(runs, name, H5P_DEFAULT) : -1;
        if (g < 0) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s is missing or not a group", where);
            break;
        }
        D->count = k + 1;
        rc = read_run(g, where, &D->runs[k], err);
        H5Gclose(g);
    }
done:
    free(fmt);
    if (ctx >= 0) H5Gclose(ctx);
    if (runs >= 0) H5Gclose(runs);
    H5Fclose(f);
    if (rc) mcb_results_data_free(&D);
    *out = D;
    return rc;
}

static mcb_rc probe_results(void *path, mcb_err *err)
{
    mcb_results_data *D = NULL;
    mcb_rc rc = read_results(path, &D, err);
    mcb_results_data_free(&D);
    return rc;
}

mcb_rc mcb_results_read(const char *path, mcb_results_data **out, mcb_err *err)
{
    *out = NULL;
    mcb_rc rc = mcb_isolate_probe(path, probe_results, (void *)path, err);
    return rc ? rc : read_results(path, out, err);
}

void mcb_results_data_free(mcb_results_data **Dp)
{
    if (!Dp || !*Dp) return;
    mcb_results_data *D = *Dp;
    for (int k = 0; k < D->count; k++) {
        mcb_run_rec *r = &D->runs[k];
        free(r->problem_set);
        free(r->problem);
        free(r->solver);
        free(r->reason);
        free(r->trace);
        free(r->v);
        free(r->lambda);
    }
    free(D->runs);
    free(D->stop_metric);
    free(D->date);
    free(D->git_revision);
    free(D->cpu_model);
    free(D->compiler);
    free(D);
    *Dp = NULL;
}

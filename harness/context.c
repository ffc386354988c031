/* context.c: a campaign's context as the harness knows it (context.h): the
 * settings words of its options, the command line, date, revision, compiler
 * and CPU model recorded in the results file, and the record view of a run
 * the runner made. The results format itself (lib/mcb_results.h) knows none
 * of the harness's types. */
#define _GNU_SOURCE /* dladdr */
#include "harness/context.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/mcb_sha256.h"
#include "problems/formulation/formulation.h"
#include "harness/mcb_build.h"
#ifdef MCB_HAVE_CUDA
#include "solvers/gpu/gpu_backend.h"
#endif

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

void mcb_rec_view(const mcb_run *run, int run_index, const char *config, mcb_run_rec *rec)
{
    memset(rec, 0, sizeof *rec);
    rec->problem_set = (char *)run->problem_set;
    rec->problem = (char *)run->problem;
    rec->solver = (char *)run->solver;
    rec->reason = (char *)run->info.reason;
    rec->config = (char *)config;
    rec->run_index = run_index;
    rec->problem_index = run->problem_index;
    rec->rep = run->rep;
    rec->status = run->info.status;
    rec->iterations = run->info.iterations;
    rec->inner_iterations = run->info.inner_iterations;
    rec->n = run->n;
    rec->m = run->m;
    rec->ncontacts = run->ncontacts;
    rec->checks = run->checks;
    rec->timing = run->timing;
    rec->setup_s = run->info.setup_s;
    rec->solve_s = run->info.solve_s;
    rec->own_residual = run->info.own_residual;
    rec->measure_s = run->measure_s;
    rec->observed_solve_s = run->observed_solve_s;
    rec->form_residual = run->form_residual;
    rec->own_status = run->own_status;
    rec->own_stop = run->own_stop;
    rec->final = run->final;
    rec->trace_rows = run->trace_rows;
    rec->trace = run->trace;
    rec->step_rows = run->step_rows;
    rec->steps = run->steps;
    rec->v = run->v;
    rec->lambda = run->lambda;
    rec->start = run->start;
    rec->load_avg = rec->cpu_mhz = rec->cpu_max_mhz = rec->others_share = NAN; /* campaign.c */
}

void mcb_settings_words(const mcb_campaign_opts *o, char *buf, size_t len)
{
    const mcb_settings *s = &o->settings;
    snprintf(buf, len,
             "max_iters=%d time_limit_s=%.17g tol=%.17g stop_metric=%s threads=%d "
             "warm_start=%d check_every=%d trace_every=%d timing=%s save_solutions=%d law=%s "
             "formulation=%s friction_directions=%d",
             s->max_iters, s->time_limit_s, s->tol, mcb_metric_name(o->stop_metric), s->threads,
             s->warm_start, o->check_every, o->trace_every, mcb_timing_name(o->timing),
             o->save_solutions, mcb_law_name(o->law), mcb_formulation_name(o->formulation),
             o->friction_dirs);
    size_t at = strlen(buf);
    if (o->ntiers > 0 && at < len) {
        char tiers[128];
        mcb_tiers_format(o->tiers, o->ntiers, tiers, sizeof tiers);
        snprintf(buf + at, len - at, " tiers=%s", tiers);
    }
    at = strlen(buf);
    if (o->closed_loop && at < len) snprintf(buf + at, len - at, " protocol=closed-loop");
}

static char *dup_or_unknown(const char *s) { return mcb_strdup(s && *s ? s : "unknown"); }

mcb_rc mcb_results_context(const char *command, const mcb_campaign_opts *o, int total_runs,
                           mcb_results_data *D, mcb_err *err)
{
    memset(D, 0, sizeof *D);
    char date[64], rev[128], cpu[256], words[1024];
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
    mcb_settings_words(o, words, sizeof words);
    D->complete = 1;
    D->stop_metric = dup_or_unknown(mcb_metric_name(o->stop_metric));
    D->date = dup_or_unknown(date);
    D->git_revision = dup_or_unknown(rev);
    D->cpu_model = dup_or_unknown(cpu);
    D->compiler = dup_or_unknown(MCB_COMPILER);
    D->cflags = dup_or_unknown(MCB_CFLAGS);
    D->command = dup_or_unknown(command);
    D->settings = dup_or_unknown(words);
    D->tol = o->settings.tol;
    D->max_iters = o->settings.max_iters;
    D->time_limit_s = o->settings.time_limit_s;
    D->threads = o->settings.threads;
    D->cpu_count = (int)sysconf(_SC_NPROCESSORS_ONLN);
    D->warm_start = o->settings.warm_start;
    D->check_every = o->check_every;
    D->trace_every = o->trace_every;
    D->timing = o->timing;
    D->repeat = o->repeat;
    D->total_runs = total_runs;
#ifdef MCB_HAVE_CUDA
    char gpu[512]; /* the device next to the CPU (docs/gpu.md) */
    mcb_gpu_describe(gpu, sizeof gpu);
    if (!(D->gpu_device = mcb_strdup(gpu))) {
        mcb_results_ctx_free(D);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
#endif
    if (!D->stop_metric || !D->date || !D->git_revision || !D->cpu_model || !D->compiler ||
        !D->cflags || !D->command || !D->settings) {
        mcb_results_ctx_free(D);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    return MCB_OK;
}

const char *mcb_build_digest(void)
{
    static char hex[65];
    if (hex[0]) return hex;
    Dl_info info;
    mcb_err err;
    /* the file holding this code: the shared library, or the program (whose
     * name dladdr gives as it was started, argv[0], which need not be a
     * path: then the running program itself) */
    if ((!dladdr((void *)mcb_results_context, &info) || !info.dli_fname ||
         mcb_sha256_file(info.dli_fname, hex, &err)) &&
        mcb_sha256_file("/proc/self/exe", hex, &err))
        snprintf(hex, sizeof hex, "unknown");
    return hex;
}

/* cmd_reproduce.c: `mcbench reproduce` (docs/reproduction.md): one command
 * per published table or figure. An experiment spec (experiments/NAME.yaml,
 * docs/experiments.md) names the problems, the protocol, the solvers and
 * their budgets; this command builds the problems that are missing
 * (`mcbench gen`, reusing files made from the same arguments), runs one
 * campaign per (problem group, solver entry) pair (`mcbench run` or
 * `mcbench simulate`, each a child process with its log beside its results,
 * resumed from its journal when it was interrupted, kept when it is
 * complete and was made by the same command), then evaluates the runs
 * against the published numbers (reports/reproduce.c) and writes the table
 * or figure. `--all` does every spec and assembles reproduction.md.
 *
 * Layout under -o DIR:
 *   DIR/problems/        generated problem files, shared by the items
 *   DIR/references/      closed-loop reference trajectories (cache)
 *   DIR/campaigns/HASH.h5 (.csv, .log, .cmd)   one campaign per command, shared
 *   DIR/NAME/runs/GROUP/ENTRY.h5 -> ../../campaigns/HASH.h5   each pair's
 *   DIR/NAME/NAME.md .csv .html (.svg .png)           the item
 *   DIR/reproduction.md, DIR/index.html               with --all */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/context.h"
#include "harness/experiment.h"
#include "lib/mcb_paths.h"
#include "lib/mcb_sha256.h"
#include "lib/mcb_timer.h"
#include "problems/sets.h"
#include "reports/html.h"
#include "reports/reproduce.h"

#ifndef MCB_VERSION
#define MCB_VERSION "unknown"
#endif

typedef struct {
    const char *out, *fclib, *doc;
    int list, all, quick, dry_run, instances;
} repro_args;

static const mcb_cli_opt repro_opts[] = {
    MCB_CLI_OUTPUT(repro_args, out, "DIR",
                   "where problems, campaigns and the items go (default out/reproduce, "
                   "out/reproduce-quick with --quick)"),
    {"--list", 0, MCB_CLI_FLAG, offsetof(repro_args, list), .def = "",
     .help = "the specs: name, source, protocol, campaigns, title"},
    {"--all", 0, MCB_CLI_FLAG, offsetof(repro_args, all), .def = "",
     .help = "every spec, then DIR/reproduction.md and DIR/index.html"},
    {"--quick", 0, MCB_CLI_FLAG, offsetof(repro_args, quick), .def = "",
     .help = "each spec's quick variant: small problems and budgets, seconds per item "
             "(a smoke run: its verdicts are not the paper's)"},
    {"--instances", 0, MCB_CLI_INT, offsetof(repro_args, instances), "K", 1, 10000,
     .help = "closed-loop specs: at most K repetitions (seeds) per problem group instead of "
             "the spec's (the papers' protocol, often 20); the item's command says so"},
    {"--fclib", 0, MCB_CLI_STRING, offsetof(repro_args, fclib), .metavar = "DIR", .def = "",
     .help = "the FCLIB files (*.hdf5, *.h5) of specs that take them (fclib-profiles); "
             "without it those items are skipped"},
    {"--doc", 0, MCB_CLI_STRING, offsetof(repro_args, doc), .metavar = "FILE.md", .def = "",
     .help = "with --all: also write reproduction.md there, its figures in figures/ "
             "beside it (how docs/reproduction.md is made)"},
    {"--dry-run", 0, MCB_CLI_FLAG, offsetof(repro_args, dry_run), .def = "",
     .help = "print the commands that would run, run nothing"},
    {0},
};

static const mcb_cli_cmd repro_cmd = {
    "reproduce",
    "usage: mcbench reproduce --list\n"
    "       mcbench reproduce NAME... [-o DIR] [--quick] [--instances K] [--fclib DIR]\n"
    "       mcbench reproduce --all [-o DIR] [--quick] [--fclib DIR] [--doc FILE.md]\n"
    "Regenerates a paper's table or figure from its experiment spec (NAME: a spec in\n"
    "experiments/, MCB_EXPERIMENTS_DIR overrides the directory, or a path to a .yaml;\n"
    "docs/experiments.md): builds the problems that are missing, runs one campaign per\n"
    "problem group and solver entry (kept when complete, resumed when interrupted),\n"
    "and writes DIR/NAME/NAME.md, .csv and .html (figures: .svg and .png) with the\n"
    "published numbers beside the measured ones, their ratio and a verdict:\n"
    "reproduced, ordering reproduced or not reproduced. Times are compared as ratios\n"
    "between solvers of the same run against the paper's ratios, never directly.\n"
    "A solver entry marked `needs: gpu` runs only where a CUDA device is found (mcbench\n"
    "gpu); elsewhere its cells read 'not run (no GPU: REASON)' and the page says so.\n",
    "Example: mcbench reproduce subadmm-table1 --quick\n", repro_opts, 0};

/* ------------------------------------------------------------ child runs */

/* An argument vector under construction (owned strings). */
typedef struct {
    int n, cap;
    char **v;
} argvec;

static int av_add(argvec *a, const char *s)
{
    if (a->n + 2 > a->cap) {
        int cap = a->cap ? 2 * a->cap : 32;
        char **v = realloc(a->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        a->v = v;
        a->cap = cap;
    }
    if (!(a->v[a->n] = strdup(s))) return -1;
    a->v[++a->n] = NULL;
    return 0;
}

static int av_addf(argvec *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int av_addf(argvec *a, const char *fmt, ...)
{
    char buf[4200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return av_add(a, buf);
}

/* A path built like snprintf; a path that does not fit is cut short and
 * reported (the commands then fail on it, naming it). */
static int pathf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int pathf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size) {
        fprintf(stderr, "mcbench: error: path too long: %s...\n", buf);
        return -1;
    }
    return 0;
}

/* Splits an option string ("--spheres 216 --steps 40") into words. */
static int av_words(argvec *a, const char *s)
{
    char w[1024];
    while (s && *s) {
        while (*s == ' ' || *s == '\t') s++;
        size_t k = 0;
        while (*s && *s != ' ' && *s != '\t' && k + 1 < sizeof w) w[k++] = *s++;
        w[k] = 0;
        if (k && av_add(a, w)) return -1;
    }
    return 0;
}

static void av_free(argvec *a)
{
    for (int k = 0; k < a->n; k++) free(a->v[k]);
    free(a->v);
    memset(a, 0, sizeof *a);
}

/* The command line as one string, for the .cmd sidecar and --dry-run. */
static void av_text(const argvec *a, char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = 0;
    for (int k = 0; k < a->n && at < size; k++)
        at += (size_t)snprintf(buf + at, size - at, "%s%s", k ? " " : "", a->v[k]);
}

/* Runs `mcbench ARGS` (this very binary) as a child, its stdout and stderr
 * appended to log. Returns its exit status (127: could not start). */
static int run_child(const argvec *a, const char *log)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return 127;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        char **argv = malloc((size_t)(a->n + 2) * sizeof *argv);
        char self[4096];
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        self[len > 0 ? len : 0] = 0;
        if (argv) {
            argv[0] = len > 0 ? self : "mcbench"; /* the program's path, as a shell starts it */
            memcpy(argv + 1, a->v, (size_t)(a->n + 1) * sizeof *argv);
            execv("/proc/self/exe", argv);
        }
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* The last non-empty line of a log, for the error message. */
static void log_tail(const char *log, char *buf, size_t size)
{
    buf[0] = 0;
    FILE *f = fopen(log, "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0]) snprintf(buf, size, "%s", line);
    }
    fclose(f);
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    int bad = fputs(text, f) < 0;
    return fclose(f) || bad ? -1 : 0;
}

/* --------------------------------------------------------------- planning */

typedef struct {
    const repro_args *a;
    const char *dir;        /* -o DIR */
    int nrun, nkept, nfail; /* campaigns run, kept, failed (this invocation) */
} repro_ctx;

/* A group's scene and option words (a scene, or a set entry's). */
static mcb_rc group_scene(const mcb_xp_problems *g, int quick, char *scene, size_t ssize,
                          char *args, size_t asize, mcb_err *err)
{
    if (g->scene) {
        snprintf(scene, ssize, "%s", g->scene);
        snprintf(args, asize, "%s", quick && g->quick_args ? g->quick_args : g->args ? g->args : "");
        return MCB_OK;
    }
    char path[4096];
    mcb_rc rc = mcb_set_locate(g->set, path, sizeof path, err);
    mcb_set *S = NULL;
    if (!rc) rc = mcb_set_read(path, &S, err);
    if (rc) return rc;
    rc = mcb_fail(err, MCB_E_INPUT, "problem set %s has no entry '%s'", path, g->entry);
    for (int k = 0; k < S->count; k++) {
        if (strcmp(S->items[k].stem, g->entry)) continue;
        snprintf(scene, ssize, "%s", S->items[k].scene);
        size_t at = 0;
        args[0] = 0;
        for (int j = 0; j < S->items[k].argc && at < asize; j++)
            at += (size_t)snprintf(args + at, asize - at, "%s%s", j ? " " : "",
                                   S->items[k].argv[j]);
        if (quick && g->quick_args) snprintf(args, asize, "%s", g->quick_args);
        rc = MCB_OK;
        break;
    }
    mcb_set_free(&S);
    return rc;
}

/* The problem file of a replay group built from a scene: DIR/problems/
 * SCENE-HASH.h5, HASH the first 10 hex digits of the SHA-256 of the options
 * and this build (mcb_build_digest), so that items that use the same scene
 * and options share one file and a build whose code changed makes its own. */
static void problem_stem(const char *scene, const char *args, char *stem, size_t size)
{
    mcb_sha256 h;
    char hex[65];
    const char *build = mcb_build_digest();
    mcb_sha256_init(&h);
    mcb_sha256_update(&h, args, strlen(args));
    mcb_sha256_update(&h, "\nbuild ", 7);
    mcb_sha256_update(&h, build, strlen(build));
    mcb_sha256_hex(&h, hex);
    snprintf(stem, size, "%s-%.10s", scene, hex);
}

/* The FCLIB files of DIR, sorted. */
static int fclib_files(const char *dir, argvec *out)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    if (n < 0) return -1;
    for (int k = 0; k < n; k++) {
        const char *s = list[k]->d_name;
        size_t l = strlen(s);
        if ((l > 5 && !strcmp(s + l - 5, ".hdf5")) || (l > 3 && !strcmp(s + l - 3, ".h5")))
            av_addf(out, "%s/%s", dir, s);
        free(list[k]);
    }
    free(list);
    return 0;
}

/* Appends the budget's options for `run` (replay) or `simulate`. */
static void budget_words(argvec *a, const mcb_xp_budget *b, int loop)
{
    char num[64];
    if (loop) {
        char budget[256] = "";
        size_t at = 0;
        if (b->iters > 0) at += (size_t)snprintf(budget + at, sizeof budget - at, "iters:%d", b->iters);
        if (b->time_s > 0)
            at += (size_t)snprintf(budget + at, sizeof budget - at, "%stime:%s", at ? "," : "",
                                   mcb_cli_num_text(b->time_s, num, sizeof num));
        if (b->tol > 0)
            snprintf(budget + at, sizeof budget - at, "%stol:%s", at ? "," : "",
                     mcb_cli_num_text(b->tol, num, sizeof num));
        av_add(a, "--budget");
        av_add(a, budget);
        if (b->warm_start == 0) av_add(a, "--cold-start");
    } else {
        if (b->iters > 0) av_add(a, "--iters"), av_addf(a, "%d", b->iters);
        if (b->time_s >= 0)
            av_add(a, "--time-limit"), av_add(a, mcb_cli_num_text(b->time_s, num, sizeof num));
        if (b->tol >= 0) av_add(a, "--tol"), av_add(a, mcb_cli_num_text(b->tol, num, sizeof num));
        if (b->warm_start == MCB_WARM_RECORDED) av_add(a, "--warm-start");
        if (b->warm_start == MCB_WARM_OWN) av_add(a, "--warm-start"), av_add(a, "own");
    }
    if (b->stop) av_add(a, "--stop-metric"), av_add(a, b->stop);
    if (b->repeat > 0) av_add(a, "--repeat"), av_addf(a, "%d", b->repeat);
    if (b->threads > 0) av_add(a, "--threads"), av_addf(a, "%d", b->threads);
    if (b->check_every) av_add(a, "--check-every"), av_add(a, b->check_every);
    if (b->law) av_add(a, "--law"), av_add(a, b->law);
    if (b->formulation) av_add(a, "--formulation"), av_add(a, b->formulation);
    if (b->friction_directions > 0)
        av_add(a, "--friction-directions"), av_addf(a, "%d", b->friction_directions);
}

/* Builds the problem files of the item's replay groups (one `mcbench gen
 * --set` over a set file listing them: files made from the same arguments
 * are reused). */
static int build_problems(repro_ctx *c, const mcb_xp_spec *S, const int *pairs, int npairs,
                          const char *item)
{
    char setpath[4200], probdir[4200], log[4200];
    pathf(probdir, sizeof probdir, "%s/problems", c->dir);
    pathf(setpath, sizeof setpath, "%s/%s.set", probdir, S->name);
    pathf(log, sizeof log, "%s/%s.gen.log", probdir, S->name);
    char *text = calloc(1, 65536);
    if (!text) return 1;
    size_t at = 0;
    int entries = 0;
    for (int k = 0; k < npairs; k++) {
        const mcb_xp_problems *g = &S->problems[pairs[2 * k]];
        int seen = 0;
        for (int j = 0; j < k; j++) seen |= pairs[2 * j] == pairs[2 * k];
        if (seen || g->fclib) continue;
        char scene[128], args[2048], stem[160];
        mcb_err err;
        if (group_scene(g, c->a->quick, scene, sizeof scene, args, sizeof args, &err)) {
            fprintf(stderr, "mcbench: error: %s: problems %s: %s\n", S->path, g->id, err.msg);
            free(text);
            return 2;
        }
        problem_stem(scene, args, stem, sizeof stem);
        at += (size_t)snprintf(text + at, 65536 - at, "%s %s %s\n", stem, scene, args);
        entries++;
    }
    int status = 0;
    if (entries) {
        mcb_err err;
        argvec a = {0};
        av_add(&a, "gen"), av_add(&a, "--set"), av_add(&a, setpath), av_add(&a, "-o"),
            av_add(&a, probdir);
        char cmd[8192];
        av_text(&a, cmd, sizeof cmd);
        if (c->a->dry_run) {
            printf("%s: mcbench %s\n%s", item, cmd, text);
        } else if (mcb_mkdirs(probdir, &err)) {
            status = cli_fail(MCB_E_IO, &err);
        } else if (write_text(setpath, text)) {
            fprintf(stderr, "mcbench: error: cannot write %s\n", setpath);
            status = 1;
        } else {
            fprintf(stderr, "%s: problems (%d file%s) ...\n", item, entries, entries == 1 ? "" : "s");
            int rc = run_child(&a, log);
            if (rc) {
                char tail[1024];
                log_tail(log, tail, sizeof tail);
                fprintf(stderr, "mcbench: error: %s: mcbench %s failed (exit %d): %s (log %s)\n",
                        item, cmd, rc, tail, log);
                status = rc == 2 ? 2 : 1;
            }
        }
        av_free(&a);
    }
    free(text);
    return status;
}

/* Points the item's runs path of a pair (ITEM_DIR/runs/GROUP/ENTRY.h5) at
 * its campaign (a relative symbolic link), replacing what was there. */
static int link_runs(const char *h5, const char *camp)
{
    char dir[4200], rel[4200];
    if (pathf(dir, sizeof dir, "%s", h5)) return -1;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    mcb_err err;
    if (mcb_mkdirs(dir, &err) || mcb_path_relative(dir, camp, rel, sizeof rel)) return -1;
    remove(h5);
    return symlink(rel, h5);
}

/* The key of a campaign: the SHA-256 of its command with the -o DIR prefix
 * written "$DIR" and the --fclib DIR prefix "$FCLIB", so that a campaign is
 * found again whatever path DIR or the FCLIB files were given by, and of
 * this build (mcb_build_digest): a campaign run by other code (a solver's
 * default changed, a scene fixed) is never kept as this build's result. */
static void campaign_key(const repro_ctx *c, const argvec *a, char hex[65])
{
    mcb_sha256 hs;
    mcb_sha256_init(&hs);
    size_t ld = strlen(c->dir), lf = c->a->fclib ? strlen(c->a->fclib) : 0;
    for (int k = 0; k < a->n; k++) {
        const char *w = a->v[k];
        if (k) mcb_sha256_update(&hs, " ", 1);
        if (!strncmp(w, c->dir, ld) && w[ld] == '/') {
            mcb_sha256_update(&hs, "$DIR", 4);
            w += ld;
        } else if (lf && !strncmp(w, c->a->fclib, lf) && w[lf] == '/') {
            mcb_sha256_update(&hs, "$FCLIB", 6);
            w += lf;
        }
        mcb_sha256_update(&hs, w, strlen(w));
    }
    const char *build = mcb_build_digest();
    mcb_sha256_update(&hs, "\nbuild ", 7);
    mcb_sha256_update(&hs, build, strlen(build));
    mcb_sha256_hex(&hs, hex);
}

/* The CPU's model name (Linux: /proc/cpuinfo), left as is when unknown. */
static void cpu_model(char *buf, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        colon += 1 + (colon[1] == ' ');
        colon[strcspn(colon, "\n")] = 0;
        snprintf(buf, size, "%s", colon);
        break;
    }
    if (f) fclose(f);
}

/* The item's machine: the CPU, and the GPU (NULL: none) beside it. */
static void machine_line(char *buf, size_t size, const char *gpu)
{
    char cpu[256] = "unknown CPU";
    cpu_model(cpu, sizeof cpu);
    snprintf(buf, size, "CPU %s, %ld CPUs online; %s%s", cpu, sysconf(_SC_NPROCESSORS_ONLN),
             gpu ? "GPU " : "no GPU", gpu ? gpu : "");
}

/* The campaign of one pair. Campaigns live in DIR/campaigns/HASH.h5, HASH
 * the first 16 hex digits of campaign_key (its .cmd, .log and .csv
 * beside it), so items that measure the same thing share it; each item's runs path links to it. A campaign is kept
 * when complete, resumed when its journal is left, else run afresh. */
static int run_pair(repro_ctx *c, const mcb_xp_spec *S, const char *item_dir, const char *item,
                    int gi, int si, const char *solver, int index, int total)
{
    const mcb_xp_problems *g = &S->problems[gi];
    const mcb_xp_solver *sv = &S->solvers[si];
    int loop = S->protocol == MCB_XP_CLOSED_LOOP;
    argvec a = {0};
    char scene[128], args[2048];
    mcb_err err;
    if (g->fclib) {
        av_add(&a, "run");
        if (fclib_files(c->a->fclib, &a) || a.n == 1) {
            fprintf(stderr, "mcbench: error: --fclib %s: no FCLIB files (*.hdf5, *.h5) there\n",
                    c->a->fclib);
            av_free(&a);
            return 2;
        }
    } else {
        if (group_scene(g, c->a->quick, scene, sizeof scene, args, sizeof args, &err)) {
            fprintf(stderr, "mcbench: error: %s: problems %s: %s\n", S->path, g->id, err.msg);
            return 2;
        }
        if (loop) {
            av_add(&a, "simulate"), av_add(&a, scene), av_words(&a, args);
            int inst = c->a->quick && g->quick_instances ? g->quick_instances : g->instances;
            if (c->a->instances > 0 && inst > c->a->instances) inst = c->a->instances;
            if (inst > 0) av_add(&a, "--instances"), av_addf(&a, "%d", inst);
        } else {
            char stem[160];
            problem_stem(scene, args, stem, sizeof stem);
            av_add(&a, "run"), av_addf(&a, "%s/problems/%s.h5", c->dir, stem);
        }
    }
    if (g->select) av_add(&a, "--problems"), av_add(&a, g->select);
    av_add(&a, "--solvers"), av_add(&a, solver);
    mcb_xp_budget b;
    mcb_xp_effective_budget(S, sv, c->a->quick, &b);
    budget_words(&a, &b, loop);
    char num[64];
    for (int k = 0; k < sv->nparams; k++)
        av_add(&a, "--param"), av_addf(&a, "%s.%s=%s", solver, sv->params[k].name,
                                       mcb_cli_num_text(sv->params[k].value, num, sizeof num));
    if (loop) av_add(&a, "--references"), av_addf(&a, "%s/references", c->dir);
    char cmd[8192];
    av_text(&a, cmd, sizeof cmd);

    char h5[4200], cdir[4200], camp[4300], cmdpath[4400], log[4400], journal[4400], csv[4400];
    char hex[65];
    campaign_key(c, &a, hex);
    mcb_xp_runs_path(item_dir, g->id, sv->id, h5, sizeof h5);
    if (pathf(cdir, sizeof cdir, "%s/campaigns", c->dir) ||
        pathf(camp, sizeof camp, "%s/%.16s.h5", cdir, hex) ||
        pathf(cmdpath, sizeof cmdpath, "%s/%.16s.cmd", cdir, hex) ||
        pathf(log, sizeof log, "%s/%.16s.log", cdir, hex) ||
        pathf(csv, sizeof csv, "%s/%.16s.csv", cdir, hex) ||
        pathf(journal, sizeof journal, "%s.journal", camp)) {
        av_free(&a);
        return 1;
    }
    if (c->a->dry_run) {
        printf("%s: mcbench %s -o %s\n", item, cmd, camp);
        av_free(&a);
        return 0;
    }
    int status = 0;
    if (file_exists(camp)) {
        c->nkept++;
        fprintf(stderr, "[%d/%d] %s: %s x %s: kept (%s)\n", index, total, item, g->id, sv->id, camp);
    } else {
        if (file_exists(journal)) {
            av_add(&a, "--resume"), av_add(&a, camp);
        } else {
            remove(csv), remove(log);
            if (mcb_mkdirs(cdir, &err) || write_text(cmdpath, cmd)) {
                fprintf(stderr, "mcbench: error: cannot write %s\n", cmdpath);
                av_free(&a);
                return 1;
            }
            av_add(&a, "-o"), av_add(&a, camp);
        }
        fprintf(stderr, "[%d/%d] %s: %s x %s ...", index, total, item, g->id, sv->id);
        double t0 = mcb_now_s();
        int rc = run_child(&a, log);
        c->nrun++;
        if (rc) {
            char tail[1024];
            log_tail(log, tail, sizeof tail);
            fprintf(stderr, " failed (exit %d)\nmcbench: error: %s: mcbench %s: %s (log %s)\n", rc,
                    item, cmd, tail, log);
            c->nfail++;
            status = rc == 2 ? 2 : 1;
        } else {
            fprintf(stderr, " %.1f s\n", mcb_now_s() - t0);
        }
    }
    if (!status && link_runs(h5, camp)) {
        fprintf(stderr, "mcbench: error: cannot link %s to %s: %s\n", h5, camp, strerror(errno));
        status = 1;
    }
    av_free(&a);
    return status;
}

/* The item's section of reproduction.md: an anchor named after the spec,
 * its Markdown one heading level down, the figure's link into fig_dir. */
static mcb_rc item_markdown(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *md,
                            const char *fig_dir, mcb_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mcb_rc rc = mcb_xp_markdown(S, R, f, "##", err);
    fclose(f);
    if (!rc) {
        char link[512];
        snprintf(link, sizeof link, "](%s.svg)", S->name);
        fprintf(md, "<a id=\"%s\"></a>\n\n", S->name);
        const char *at = buf, *hit;
        while ((hit = strstr(at, link))) {
            fwrite(at, 1, (size_t)(hit - at), md);
            fprintf(md, "](%s/%s.svg)", fig_dir, S->name);
            at = hit + strlen(link);
        }
        fputs(at, md);
        fputs("\n", md);
    }
    free(buf);
    return rc;
}

/* One item: read, build, run, evaluate, write. *counts: its verdicts. */
static int reproduce_one(repro_ctx *c, const char *name, FILE *md, const char *fig_dir,
                         int counts[MCB_XR_NVERDICTS])
{
    char path[4200], item_dir[4300];
    mcb_err err;
    mcb_xp_spec *S = NULL;
    mcb_rc rc = mcb_xp_locate(name, path, sizeof path, &err);
    if (!rc) rc = mcb_xp_read_checked(path, &S, &err);
    if (rc) return cli_fail(rc, &err);
    char item[300];
    snprintf(item, sizeof item, "%s%s", S->name, c->a->quick ? " (quick)" : "");
    pathf(item_dir, sizeof item_dir, "%s/%s", c->dir, S->name);
    int *pairs = NULL, npairs = 0;
    rc = mcb_xp_pairs(S, c->a->quick, &pairs, &npairs, &err);
    if (rc) {
        mcb_xp_free(&S);
        return cli_fail(rc, &err);
    }
    double t0 = mcb_now_s();
    int status = 0, fclib = 0;
    for (int k = 0; k < npairs; k++) fclib |= S->problems[pairs[2 * k]].fclib;
    if (fclib && !c->a->fclib) {
        fprintf(stderr, "%s: skipped: it runs on the FCLIB files of --fclib DIR\n", item);
        free(pairs);
        mcb_xp_free(&S);
        return -1;
    }
    /* entries that need a device run where the device query finds one,
     * else their cells say why (docs/reproduction.md, "needs") */
    const char **solver = mcb_calloc((size_t)S->nsolvers + 1, sizeof *solver);
    char **skipped = mcb_calloc((size_t)S->nsolvers + 1, sizeof *skipped);
    char machine[1024] = "";
    if (!solver || !skipped) status = cli_fail(mcb_fail(&err, MCB_E_NOMEM, "out of memory"), &err);
    for (int e = 0; !status && e < S->nsolvers; e++) {
        char text[600];
        if (mcb_xp_entry_device(&S->solvers[e], &solver[e], text, sizeof text)) {
            if (text[0] && !machine[0]) machine_line(machine, sizeof machine, text);
        } else if (!(skipped[e] = mcb_strdup(text))) {
            status = cli_fail(mcb_fail(&err, MCB_E_NOMEM, "out of memory"), &err);
        }
    }
    if (!status && S->protocol == MCB_XP_REPLAY)
        status = build_problems(c, S, pairs, npairs, item);
    for (int k = 0; k < npairs && !status; k++) {
        int gi = pairs[2 * k], si = pairs[2 * k + 1];
        if (!skipped[si]) {
            status = run_pair(c, S, item_dir, item, gi, si, solver[si], k + 1, npairs);
            continue;
        }
        /* a stale link to a campaign of another machine is not this run's */
        char h5[4200];
        mcb_xp_runs_path(item_dir, S->problems[gi].id, S->solvers[si].id, h5, sizeof h5);
        if (!c->a->dry_run) remove(h5);
        fprintf(c->a->dry_run ? stdout : stderr, "%s: %s x %s: skipped: %s\n", item,
                S->problems[gi].id, S->solvers[si].id, skipped[si]);
    }
    free(pairs);
    free(solver);
    if (status || c->a->dry_run) {
        for (int e = 0; skipped && e < S->nsolvers; e++) free(skipped[e]);
        free(skipped);
        mcb_xp_free(&S);
        return status;
    }
    mcb_xp_outcome *R = NULL;
    char command[512];
    char capped[48] = "";
    if (c->a->instances > 0 && S->protocol == MCB_XP_CLOSED_LOOP)
        snprintf(capped, sizeof capped, " --instances %d", c->a->instances);
    snprintf(command, sizeof command, "mcbench reproduce %s%s%s", S->name,
             c->a->quick ? " --quick" : "", capped);
    int any_needs = 0;
    for (int e = 0; e < S->nsolvers; e++) any_needs |= S->solvers[e].needs != NULL;
    if (any_needs && !machine[0]) machine_line(machine, sizeof machine, NULL);
    rc = mcb_xp_evaluate_skipping(S, item_dir, c->a->quick, (const char *const *)skipped, &R,
                                  &err);
    for (int e = 0; e < S->nsolvers; e++) free(skipped[e]);
    free(skipped);
    if (!rc) rc = mcb_xp_set_command(R, command, &err);
    if (!rc && machine[0]) rc = mcb_xp_set_machine(R, machine, &err);
    if (!rc) rc = mcb_xp_write(S, R, item_dir, NULL, &err);
    if (!rc && md) rc = item_markdown(S, R, md, fig_dir, &err);
    if (rc) {
        status = cli_fail(rc, &err);
    } else {
        int n[MCB_XR_NVERDICTS];
        mcb_xp_counts(R, n);
        for (int v = 0; v < MCB_XR_NVERDICTS; v++) counts[v] += n[v];
        fprintf(stderr, "%s: %d reproduced, %d ordering reproduced, %d not reproduced "
                "(%.0f s): %s/%s.md\n", item, n[MCB_XR_REPRODUCED], n[MCB_XR_ORDERING],
                n[MCB_XR_NOT_REPRODUCED], mcb_now_s() - t0, item_dir, S->name);
    }
    mcb_xp_outcome_free(&R);
    mcb_xp_free(&S);
    return status;
}

static int list_specs(void)
{
    char **names = NULL;
    int n = 0;
    mcb_err err;
    mcb_rc rc = mcb_xp_list(&names, &n, &err);
    if (rc) return cli_fail(rc, &err);
    int status = 0;
    printf("experiment specs in %s:\n", mcb_experiments_dir());
    for (int k = 0; k < n; k++) {
        char path[4200];
        mcb_xp_spec *S = NULL;
        rc = mcb_xp_locate(names[k], path, sizeof path, &err);
        if (!rc) rc = mcb_xp_read_checked(path, &S, &err);
        if (rc) {
            status = cli_fail(rc, &err);
            continue;
        }
        int *pairs = NULL, np = 0;
        if (mcb_xp_pairs(S, 0, &pairs, &np, &err)) np = -1;
        free(pairs);
        printf("%-21s %-11s %3d campaigns  %s (%s, %s)\n", S->name,
               S->protocol == MCB_XP_CLOSED_LOOP ? "closed-loop" : "replay", np, S->title,
               S->paper, S->item);
        mcb_xp_free(&S);
    }
    mcb_xp_names_free(names, n);
    return status;
}

/* Copies DIR/NAME/NAME.svg of every figure item to fig_dir (for --doc). */
static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    if (!in) return;
    FILE *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    while (out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    if (out) fclose(out);
    fclose(in);
}

/* DIR/index.html: every item's page with its verdict counts. */
static void write_index(const char *dir, char **names, int n, int (*counts)[MCB_XR_NVERDICTS],
                        const int *failed)
{
    char path[4200];
    if (pathf(path, sizeof path, "%s/index.html", dir)) return;
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "mcbench: error: cannot write %s\n", path);
        return;
    }
    mcb_html_begin(f, "Reproducing the papers", NULL);
    fputs("<p>Every published table and figure mcbench regenerates (<code>mcbench reproduce "
          "--all</code>), the published numbers beside ours; the same in "
          "<a href='reproduction.md'>reproduction.md</a>.</p>\n<table>\n<tr><th>item</th>"
          "<th>reproduced</th><th>ordering reproduced</th><th>not reproduced</th></tr>\n", f);
    for (int k = 0; k < n; k++) {
        char base[300];
        snprintf(base, sizeof base, "%s/%s", names[k], names[k]);
        fputs("<tr><td>", f);
        if (failed[k]) mcb_html_escape(f, names[k]);
        else mcb_html_link(f, base, ".html", names[k]);
        if (failed[k])
            fprintf(f, "</td><td colspan='3'>%s</td></tr>\n",
                    failed[k] < 0 ? "not run: needs --fclib DIR" : "did not run");
        else
            fprintf(f, "</td><td>%d</td><td>%d</td><td>%d</td></tr>\n", counts[k][MCB_XR_REPRODUCED],
                    counts[k][MCB_XR_ORDERING], counts[k][MCB_XR_NOT_REPRODUCED]);
    }
    fputs("</table>\n", f);
    mcb_html_end(f);
    if (fclose(f)) fprintf(stderr, "mcbench: error: cannot write %s\n", path);
}

static int reproduce_all(repro_ctx *c)
{
    char **names = NULL;
    int n = 0;
    mcb_err err;
    mcb_rc rc = mcb_xp_list(&names, &n, &err);
    if (rc) return cli_fail(rc, &err);
    char md_path[4200], tmp[4300];
    pathf(md_path, sizeof md_path, "%s/reproduction.md", c->dir);
    pathf(tmp, sizeof tmp, "%s.tmp", md_path);
    FILE *md = NULL;
    if (!c->a->dry_run) {
        if (mcb_mkdirs(c->dir, &err)) return cli_fail(MCB_E_IO, &err);
        md = fopen(tmp, "w");
        if (!md) {
            fprintf(stderr, "mcbench: error: cannot write %s\n", tmp);
            mcb_xp_names_free(names, n);
            return 1;
        }
    }
    /* the items' Markdown goes to a second buffer first: the summary table
     * at the top needs every item's counts */
    char *body = NULL;
    size_t body_len = 0;
    FILE *items = md ? open_memstream(&body, &body_len) : NULL;
    int status = 0;
    int (*counts)[MCB_XR_NVERDICTS] = calloc((size_t)(n ? n : 1), sizeof *counts);
    int *failed = calloc((size_t)(n ? n : 1), sizeof *failed);
    for (int k = 0; k < n; k++) {
        int st = reproduce_one(c, names[k], items, "figures", counts[k]);
        failed[k] = st;
        if (st > 0 && !status) status = st;
    }
    if (items) fclose(items);
    if (md) {
        time_t now = time(NULL);
        char date[64];
        strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
        char cpu[256] = "unknown CPU";
        cpu_model(cpu, sizeof cpu);
        fprintf(md, "# Reproducing the papers\n\n"
                "Every published table and figure mcbench regenerates, with the published\n"
                "numbers beside ours and a verdict. Written by `mcbench reproduce --all%s`\n"
                "(mcbench %s, %s); the format of the specs is docs/experiments.md. Times are\n"
                "compared as ratios between solvers measured in the same run against the\n"
                "paper's ratios between the same solvers, never as milliseconds.\n"
                "Machine: %s, %ld CPUs online. Campaigns made by an earlier invocation\n"
                "are kept (docs/experiments.md): each results file under campaigns/\n"
                "records the date, revision, machine and command that made it.\n\n"
                "| item | source | reproduced | ordering reproduced | not reproduced |\n"
                "|---|---|---|---|---|\n",
                c->a->quick ? " --quick" : "", MCB_VERSION, date, cpu, sysconf(_SC_NPROCESSORS_ONLN));
        for (int k = 0; k < n; k++) {
            char src[256] = "";
            char path[4200];
            mcb_xp_spec *S = NULL;
            if (!mcb_xp_locate(names[k], path, sizeof path, &err) &&
                !mcb_xp_read_checked(path, &S, &err))
                snprintf(src, sizeof src, "%s, %s", S->paper, S->item);
            mcb_xp_free(&S);
            if (failed[k]) {
                fprintf(md, "| %s | %s | %s | | |\n", names[k], src,
                        failed[k] < 0 ? "(not run: needs --fclib DIR)"
                                      : "(did not run: see the command's messages)");
                continue;
            }
            fprintf(md, "| [%s](#%s) | %s | %d | %d | %d |\n", names[k], names[k], src,
                    counts[k][MCB_XR_REPRODUCED], counts[k][MCB_XR_ORDERING],
                    counts[k][MCB_XR_NOT_REPRODUCED]);
        }
        fputs("\n", md);
        if (body) fwrite(body, 1, body_len, md);
        write_index(c->dir, names, n, counts, failed);
        int bad = fclose(md);
        if (bad || rename(tmp, md_path)) {
            fprintf(stderr, "mcbench: error: cannot write %s\n", md_path);
            status = 1;
        } else {
            fprintf(stderr, "mcbench: %s\n", md_path);
        }
        /* the figures beside reproduction.md, and with --doc beside the doc */
        char figs[4300];
        pathf(figs, sizeof figs, "%s/figures", c->dir);
        mcb_mkdirs(figs, &err);
        for (int k = 0; k < n; k++) {
            char from[4400], to[4400];
            pathf(from, sizeof from, "%s/%s/%s.svg", c->dir, names[k], names[k]);
            pathf(to, sizeof to, "%s/%s.svg", figs, names[k]);
            if (file_exists(from)) copy_file(from, to);
        }
        if (c->a->doc && !status) {
            char ddir[4200], dfig[4300];
            snprintf(ddir, sizeof ddir, "%s", c->a->doc);
            char *slash = strrchr(ddir, '/');
            if (slash) *slash = 0;
            else snprintf(ddir, sizeof ddir, ".");
            pathf(dfig, sizeof dfig, "%s/figures", ddir);
            mcb_mkdirs(dfig, &err);
            copy_file(md_path, c->a->doc);
            for (int k = 0; k < n; k++) {
                char from[4400], to[4400];
                pathf(from, sizeof from, "%s/%s.svg", figs, names[k]);
                pathf(to, sizeof to, "%s/%s.svg", dfig, names[k]);
                if (file_exists(from)) copy_file(from, to);
            }
            fprintf(stderr, "mcbench: %s\n", c->a->doc);
        }
    }
    free(body);
    free(counts);
    free(failed);
    mcb_xp_names_free(names, n);
    return status;
}

int cmd_reproduce(int argc, char **argv)
{
    mcb_cli_args p;
    repro_args a = {0};
    int status = mcb_cli_parse(&repro_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    status = 0;
    if (a.list) {
        status = list_specs();
    } else if (!a.all && p.npos == 0) {
        status = mcb_cli_usage_error("reproduce", "needs NAME..., --all or --list");
    } else if (a.all && p.npos) {
        status = mcb_cli_usage_error("reproduce", "--all takes no NAME");
    } else if (a.doc && !a.all) {
        status = mcb_cli_usage_error("reproduce", "--doc needs --all");
    } else {
        repro_ctx c = {.a = &a, .dir = a.out ? a.out : a.quick ? "out/reproduce-quick" : "out/reproduce"};
        if (a.all) {
            status = reproduce_all(&c);
        } else {
            int counts[MCB_XR_NVERDICTS] = {0};
            for (int k = 0; k < p.npos; k++) {
                int st = reproduce_one(&c, p.pos[k], NULL, NULL, counts);
                if (st < 0) st = MCB_CLI_EXIT_INPUT; /* named, but cannot run: no --fclib */
                if (st && !status) status = st;
            }
        }
    }
    mcb_cli_free(&repro_cmd, &a, &p);
    return status;
}

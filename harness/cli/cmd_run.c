/* cmd_run.c: the commands on solvers: run (a campaign: every selected
 * solver on every problem with the same budget, judged by the harness) and
 * solvers (the registry, with its parameters). */
#include <libgen.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/campaign.h"
#include "harness/cli/cli.h"
#include "harness/cli/run_batch.h"
#include "harness/whole_step.h"
#include "problems/formulation/formulation.h"
#include "lib/mcb_paths.h"
#include "harness/mpi_campaign.h"
#include "harness/plugin.h"
#include "lib/mcb_timer.h"
#include "problems/scene/scenes.h"
#include "problems/sets.h"

/* --plugin FILE.so (repeatable): each plugin's solver joins the registry. */
static int load_plugins(const mcb_cli_strings *paths)
{
    for (int k = 0; k < paths->n; k++) {
        mcb_err err;
        mcb_rc rc = mcb_plugin_load(paths->v[k], NULL, &err);
        if (rc) return cli_fail(rc, &err);
    }
    return 0;
}

/* -------------------------------------------------------------------- run */

typedef struct {
    mcb_campaign_opts o;
    mcb_campaign C; /* isolate, mem_limit_mb, mpi, describe_never */
    const char *out, *csv, *resume, *shard, *tiers;
    int quick;
    mcb_cli_strings solvers, params, plugins, include, exclude;
    /* simulate */
    mcb_cli_strings budgets;
    int instances, cold;
    const char *references, *set;
    int batch; /* --batch N (run_batch.h) */
} run_args;

#define RUN(field) offsetof(run_args, field)
static const char *const metric_words[] = {"natmap", "fb",      "fb_max", "zres",
                                           "dyn_abs", "dyn_rel", NULL};
static const char *const law_words[] = {"ncp", "ccp", NULL};
static const char *const formulation_words[] = {"ncp", "ccp", "lcp-st", "lcp-ap", "mlcp", NULL};
static const char *const timing_words[] = {"auto", "observed", "clean", NULL};
static const char *const isolate_words[] = {"auto", "always", "never", NULL}; /* mcb_isolate_mode */
static const char *const describe_words[] = {"auto", "never", NULL};         /* describe_never */
static const char *const check_words[] = {"auto", "never", NULL};
static const int check_values[] = {MCB_CHECK_AUTO, MCB_CHECK_NEVER};
static const char *const trace_words[] = {"checks", NULL};
static const char *const warm_words[] = {"none", "recorded", "own", NULL}; /* mcb_warm_mode */
static const int trace_values[] = {MCB_TRACE_CHECKS};

/* The options run and simulate share, in three runs of the help's order. */
#define RUN_SHARED_A \
    {"--solvers", 0, MCB_CLI_LIST, RUN(solvers), "a,b,...", .def = "all registered; see " \
     "'mcbench solvers'", .help = "solvers to run, each once"}, \
    {"--plugin", 0, MCB_CLI_STRINGS, RUN(plugins), "FILE.so|.py", \
     .help = "load a solver plugin (docs/api.md): its solver is registered under its own name, " \
             "for --solvers and --param; a plugin built for another solver interface version, " \
             "without the mcb_plugin symbol or clashing with a solver's name is refused (exit 2); " \
             "--isolate auto runs it in a child process. FILE.py: a solver class in Python " \
             "(docs/python.md), under the same budgets and rules; mcbench then runs itself " \
             "again inside Python ($MCB_PYTHON, else the python3 found at build time, with " \
             "NumPy and SciPy), and a file that raises at import or defines no solver class " \
             "is refused (exit 2); the interpreter's time counts as the solver's"},

#define RUN_SHARED_B \
    {"--stop-metric", 0, MCB_CLI_CHOICE, RUN(o.stop_metric), "NAME", .words = metric_words, \
     .map = mcb_metric_from_name, .help = "the residual the tolerance applies to"}, \
    {"--law", 0, MCB_CLI_CHOICE, RUN(o.law), "LAW", .words = law_words, .map = mcb_law_from_name, \
     .help = "the contact law every solution is judged by: ncp (each block by its stored type, " \
             "contacts by Signorini-Coulomb) or ccp (every contact as cone complementarity, " \
             "contact_ccp); natmap_ncp and natmap_ccp report both laws for every run"}, \
    {"--formulation", 0, MCB_CLI_CHOICE, RUN(o.formulation), "NAME", .words = formulation_words, \
     .map = mcb_formulation_from_name, \
     .help = "the subproblem each solver receives (docs/formulations.md; ncp: the stored " \
             "problem); solutions are mapped back and judged on the stored problem"}, \
    {"--friction-directions", 0, MCB_CLI_INT, RUN(o.friction_dirs), "N", 3, \
     MCB_FRICTION_DIRS_MAX, .help = "n_d of the LCP formulations' polygonal cone"}, \
    {"--check-every", 0, MCB_CLI_INT, RUN(o.check_every), "K", 1, 100000000, \
     .words = check_words, .values = check_values, \
     .help = "when the stop metric is judged during a solve: auto (every iteration at first, " \
             "then at a stride from the measured cost of a check, at most 1% of the iterations " \
             "done), never (only the final iterate), or every K-th iteration; 1: exact"}, \
    {"--trace-every", 0, MCB_CLI_INT, RUN(o.trace_every), "K", 0, 100000000, \
     .words = trace_words, .values = trace_values, \
     .help = "a trace row (all metrics) every K-th iteration; checks: at every check; 0: final " \
             "only"}, \
    {"--timing", 0, MCB_CLI_CHOICE, RUN(o.timing), "MODE", .words = timing_words, \
     .map = mcb_timing_from_name, \
     .help = "auto (an unobserved rerun to the same iteration count when measuring may have " \
             "distorted a solved run's time), observed, or clean: always rerun, exact, for " \
             "publication"}, \
    {"--repeat", 0, MCB_CLI_INT, RUN(o.repeat), "R", 1, 1000, .help = "timed repetitions per run"}, \
    {"--problems", 0, MCB_CLI_STRINGS, RUN(include), "GLOB", \
     .help = "only problems whose name (or SET/NAME) matches"}, \
    {"--exclude", 0, MCB_CLI_STRINGS, RUN(exclude), "GLOB", \
     .help = "leave out problems whose name (or SET/NAME) matches"}, \
    {"--resume", 0, MCB_CLI_STRING, RUN(resume), "RESULTS.h5", \
     .help = "continue a killed or extended campaign: runs recorded there or in its journal " \
             "with the same budgets and parameters are kept, the others run (different budgets " \
             "are an error); implies -o"}, \
    {"--shard", 0, MCB_CLI_STRING, RUN(shard), "I/N", \
     .help = "only part I (0-based) of N of the run list, balanced by estimated cost (merge " \
             "the parts with 'mcbench merge')"}, \
    {"--isolate", 0, MCB_CLI_CHOICE, RUN(C.isolate), .words = isolate_words, \
     .help = "run each run in a forked child: auto (solvers that cannot be stopped and " \
             "plugins, solvers from outside mcbench), always, never. A crash, a hang or the " \
             "memory limit costs that run only (status crashed or time-limit); a child is " \
             "killed at twice the time limit plus --kill-grace"}, \
    {"--kill-grace", 0, MCB_CLI_DOUBLE, RUN(C.grace_s), "S", 0, INFINITY, \
     .help = "seconds an isolated run may overrun twice its time limit before it is killed " \
             "(recorded as time-limit)"}, \
    {"--mem-limit", 0, MCB_CLI_DOUBLE, RUN(C.mem_limit_mb), "MB", 0, INFINITY, \
     .def = "half the physical memory", .help = "memory an isolated run may add; 0: none"}, \
    {"--describe", 0, MCB_CLI_CHOICE, RUN(C.describe_never), .words = describe_words, \
     .help = "difficulty descriptors of every problem into the results (docs/describe.md), " \
             "computed once after the runs; auto: cond(W) and rank skipped above 60000 rows"}, \
    {"--mpi", 0, MCB_CLI_FLAG, RUN(C.mpi), .help = "under mpirun: rank 0 hands out runs and " \
     "writes the results, the other ranks solve"}, \
    {"--threads", 0, MCB_CLI_INT, RUN(o.settings.threads), "T", 1, 1024, \
     .help = "OpenMP and OpenBLAS threads"},

#define RUN_SHARED_C \
    {"--param", 0, MCB_CLI_STRINGS, RUN(params), "S.NAME=VAL", \
     .help = "set a solver parameter: a finite number, checked against the solver's range"}, \
    {"--csv", 0, MCB_CLI_STRING, RUN(csv), "PATH", \
     .def = "RESULTS.csv, the -o path with .csv for its extension", .help = "CSV path"},

static const mcb_cli_opt run_opts[] = {
    MCB_CLI_OUTPUT(run_args, out, "RESULTS.h5", "the results file (required unless --resume)"),
    RUN_SHARED_A
    {"--iters", 0, MCB_CLI_INT, RUN(o.settings.max_iters), "N", 1, 100000000,
     .help = "iteration budget"},
    {"--time-limit", 0, MCB_CLI_DOUBLE, RUN(o.settings.time_limit_s), "S", 0, INFINITY,
     .help = "wall-clock budget per run in seconds, setup included; 0: none; solvers that "
             "cannot be stopped, the siconos_* peers, are held to it after the fact"},
    {"--tol", 0, MCB_CLI_DOUBLE, RUN(o.settings.tol), "T", 0, INFINITY,
     .def = "the finest of --tiers", .help = "tolerance on the stop metric: each run stops there"},
    {"--tiers", 0, MCB_CLI_STRING, RUN(tiers), "T1,T2,...", .def = MCB_DEFAULT_TIERS,
     .help = "accuracy tiers on the stop metric (at most 4, each > 0, none finer than --tol): "
             "the first check meeting each is a trace row; the CSV and the report give, per "
             "tier, the success rate, time and iterations to it, profiles, rankings and shifted "
             "geometric means (docs/metrics.md)"},
    RUN_SHARED_B
    {"--warm-start", 0, MCB_CLI_CHOICE, RUN(o.settings.warm_start), .words = warm_words,
     .map = mcb_warm_from_name, .bare = "recorded",
     .help = "where each solve starts (docs/metrics.md, \"Warm starts\"): none (zero), "
             "recorded (the problem's recorded guess, init/v and init/lambda, where it has "
             "one; --warm-start alone means this), or own: on problems that are consecutive "
             "steps of one trajectory (same scene and source, step + 1), each step starts from "
             "the (v, lambda) the same solver returned for the previous step; a trajectory's "
             "first step, and a step after a run that returned no finite solution, start from "
             "the recorded guess; lambda is carried only when the constraint blocks are "
             "unchanged (else the recorded lambda). own saves the solutions (as "
             "--save-solutions: --resume continues from them) and cannot be combined with "
             "--shard or --mpi; each run's start is recorded (CSV column start)"},
    {"--save-solutions", 0, MCB_CLI_FLAG, RUN(o.save_solutions),
     .help = "store the final (v, lambda) of every run"},
    RUN_SHARED_C
    {"--batch", 0, MCB_CLI_INT, RUN(batch), "N", 1, MCB_BATCH_MAX,
     .help = "batched mode (docs/batch.md): N problems cycled from the inputs (NAME#2 for a "
             "second copy) into one set SET-xN; every solver runs on it one problem at a time "
             "and, as SOLVER-batch, all N in one call (OpenMP over problems on --threads, each "
             "problem single-threaded), every problem judged and recorded like any run (the "
             "batch judges at every --check-every K-th iteration, 10 under auto); ends with "
             "the throughput table (problems solved to the tolerance per second of solve time, "
             "setup apart; the batch against the one-by-one runs); not with --resume, --shard, "
             "--mpi, --warm-start own, --problems, --exclude or a --formulation other than ncp"},
    {"--quick", 0, MCB_CLI_FLAG, RUN(quick), .help = "a small budget for smoke runs (500 "
     "iterations, 10 s; an --iters or --time-limit after it still counts)"},
    {0},
};
#undef RUN

static const mcb_cli_cmd run_cmd = {
    "run",
    "usage: mcbench run FILE... -o RESULTS.h5 [options]\n"
    "A FILE is an mcbench problem file (its problems are one problem set) or an FCLIB\n"
    "file (its one problem, imported in memory exactly as 'import fclib' does, a set\n"
    "named after the file's stem; its SHA-256 is recorded in the results).\n"
    "Runs every selected solver on every problem with the same budget; the harness\n"
    "judges every run with its own metrics. Writes RESULTS.h5 and a flat CSV (the\n"
    "directory is created if needed). No output may be an input, a directory or the\n"
    "other output; all are checked before any work starts. Each finished run is\n"
    "appended at once to RESULTS.h5.journal, so a killed campaign loses nothing:\n"
    "continue it with --resume; the results file and CSV appear when it completes.\n",
    "Input files must be distinct and have distinct base names (the problem set name).\n",
    run_opts, 0};

/* --solvers a,b,... (names non-empty, checked by the parser): every name
 * known, none twice; all registered when not given. */
static int select_solvers(const char *cmd, const mcb_cli_strings *list, mcb_solver_choice *choice,
                          int cap, int *ns)
{
    *ns = 0;
    if (!list->n) {
        for (int k = 0; k < mcb_solver_count() && k < cap; k++)
            choice[(*ns)++].def = mcb_solver_at(k);
        return 0;
    }
    for (int k = 0; k < list->n; k++) {
        const char *name = list->v[k];
        /* a closed loop also runs the whole-step methods (xpbd) */
        const mcb_solver_def *d =
            strcmp(cmd, "simulate") ? mcb_solver_find(name) : mcb_loop_method_find(name);
        if (!d)
            return mcb_cli_usage_error(cmd, "unknown solver '%s' (see 'mcbench solvers')%s", name,
                                       mcb_whole_step_find(name)
                                           ? ": a whole-step method, for mcbench simulate only"
                                           : "");
        for (int s = 0; s < *ns; s++)
            if (choice[s].def == d)
                return mcb_cli_usage_error(cmd, "solver '%s' is listed twice in --solvers (use "
                                                  "--repeat for repetitions)", name);
        if (*ns == cap) return mcb_cli_usage_error(cmd, "too many solvers");
        choice[(*ns)++].def = d;
    }
    return 0;
}

/* --param S.NAME=VAL for a selected solver, then each solver's own check. */
static int apply_params(const char *cmd, const mcb_cli_strings *params, mcb_solver_choice *choice,
                        int ns)
{
    for (int p = 0; p < params->n; p++) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", params->v[p]);
        char *dot = strchr(buf, '.'), *eq = strchr(buf, '=');
        if (!dot || !eq || eq < dot)
            return mcb_cli_usage_error(cmd, "--param wants SOLVER.NAME=VALUE, got '%s'",
                                       params->v[p]);
        *dot = *eq = '\0';
        int found = 0;
        for (int s = 0; s < ns; s++)
            if (!strcmp(choice[s].def->name, buf)) {
                mcb_err err;
                found = 1;
                if (mcb_param_set(choice[s].def, choice[s].params, dot + 1, eq + 1, &err))
                    return mcb_cli_usage_error(cmd, "%s", err.msg);
            }
        if (!found)
            return mcb_cli_usage_error(cmd, "--param names solver '%s', which is not selected",
                                       buf);
    }
    for (int s = 0; s < ns; s++) {
        mcb_err err;
        if (choice[s].def->check_params && choice[s].def->check_params(choice[s].params, &err))
            return mcb_cli_usage_error(cmd, "%s", err.msg);
    }
    return 0;
}

/* The solvers with their parameters: plugins loaded, names and values checked. */
static int run_solvers(const char *cmd, const run_args *a, mcb_solver_choice *choice, int cap,
                       int *ns)
{
    int status = load_plugins(&a->plugins);
    if (!status) status = select_solvers(cmd, &a->solvers, choice, cap, ns);
    for (int s = 0; s < *ns && !status; s++) {
        choice[s].params = calloc(1, choice[s].def->params_size + sizeof(double));
        if (!choice[s].params) status = 1;
        else choice[s].def->default_params(choice[s].params);
    }
    return status ? status : apply_params(cmd, &a->params, choice, *ns);
}

/* The options that are not plain values: --shard, --quick, --resume. */
/* --shard I/N and --resume (with -o) of run and simulate. */
static int settle_shard_resume(const char *cmd, run_args *a)
{
    if (a->shard) {
        int i = -1, n = 0, used = 0;
        if (sscanf(a->shard, "%d/%d%n", &i, &n, &used) != 2 || a->shard[used] || n < 1 || i < 0 ||
            i >= n)
            return mcb_cli_usage_error(cmd, "--shard wants I/N with 0 <= I < N, got '%s'",
                                       a->shard);
        a->C.shard = i;
        a->C.nshards = n;
    }
    if (a->resume && a->out && strcmp(a->resume, a->out) && !mcb_same_file(a->resume, a->out))
        return mcb_cli_usage_error(cmd, "--resume %s and -o name different files: --resume "
                                   "writes to the file it continues", a->resume);
    if (a->resume) a->out = a->resume;
    if (!a->out) return mcb_cli_usage_error(cmd, "needs -o RESULTS.h5");
    return 0;
}

/* --tiers and --tol: the runs stop at --tol, by default the finest tier;
 * a tier finer than a --tol given is an error, a default tier finer than
 * it is left out. */
static int settle_tiers(run_args *a, int tol_given)
{
    char why[256];
    double t[MCB_MAX_TIERS];
    int n = mcb_tiers_parse(a->tiers ? a->tiers : MCB_DEFAULT_TIERS, t, why, sizeof why);
    if (n < 0) return mcb_cli_usage_error("run", "--tiers: %s", why);
    if (!tol_given) a->o.settings.tol = t[n - 1];
    a->o.ntiers = 0;
    for (int k = 0; k < n; k++) {
        if (t[k] >= a->o.settings.tol) a->o.tiers[a->o.ntiers++] = t[k];
        else if (a->tiers)
            return mcb_cli_usage_error("run", "--tiers: tier %g is finer than --tol %g, where "
                                              "every run stops (leave --tol out: it defaults "
                                              "to the finest tier)",
                                       t[k], a->o.settings.tol);
    }
    return 0;
}

static int run_settle(run_args *a, const mcb_cli_args *p)
{
    /* --quick sets the budget; an --iters or --time-limit after it wins */
    int quick = p->given[mcb_cli_find(&run_cmd, "--quick")];
    if (quick && quick > p->given[mcb_cli_find(&run_cmd, "--iters")]) a->o.settings.max_iters = 500;
    if (quick && quick > p->given[mcb_cli_find(&run_cmd, "--time-limit")])
        a->o.settings.time_limit_s = 10.0;
    int status = settle_shard_resume("run", a);
    if (status) return status;
    if (a->o.settings.warm_start == MCB_WARM_OWN) {
        a->o.save_solutions = 1; /* each step's solution is the next one's start */
        mcb_campaign c = a->C;
        c.o = &a->o;
        mcb_err err;
        if (mcb_campaign_check_warm(&c, &err)) return mcb_cli_usage_error("run", "%s", err.msg);
    }
    if (!p->npos) return mcb_cli_usage_error("run", "needs at least one FILE.h5");
    return settle_tiers(a, p->given[mcb_cli_find(&run_cmd, "--tol")]);
}

/* The problem set name of an input: its base name without extension. */
static char *set_name_of(const char *path)
{
    char *copy = strdup(path);
    char *name = NULL;
    if (copy) {
        char *base = basename(copy);
        char *dot = strrchr(base, '.');
        if (dot && dot != base) *dot = '\0';
        name = strdup(base);
    }
    free(copy);
    return name;
}

/* Inputs: distinct files with distinct set names (names[f] owned by the caller). */
static int run_inputs(char **files, int nfiles, mcb_input *in, char **names)
{
    for (int f = 0; f < nfiles; f++) {
        if (!(names[f] = set_name_of(files[f]))) return 1;
        in[f].set_name = names[f];
        for (int g = 0; g < f; g++) {
            if (mcb_same_file(files[f], files[g]))
                return mcb_cli_usage_error("run", "input %s is given twice", files[f]);
            if (!strcmp(names[f], names[g])) {
                fprintf(stderr,
                        "mcbench run: inputs %s and %s have the same problem set name '%s' (the "
                        "file's base name, which identifies its runs in the results): rename "
                        "one\n", files[g], files[f], names[f]);
                return MCB_CLI_EXIT_INPUT;
            }
        }
    }
    return 0;
}

/* Outputs, checked against the inputs and each other before any work. */
static int run_outputs(run_args *a, char **files, int nfiles, char *csv_default, size_t size)
{
    if (!a->csv) {
        mcb_path_with_ext(a->out, ".csv", csv_default, size);
        a->csv = csv_default;
    }
    char jpath[4200];
    mcb_journal_path(a->out, jpath, sizeof jpath);
    mcb_output outs[3] = {{a->out, a->resume ? "--resume" : "-o"},
                          {a->csv, a->csv == csv_default ? "the CSV named after -o" : "--csv"},
                          {jpath, "the journal named after -o"}};
    mcb_err err;
    mcb_rc rc = mcb_check_outputs((const char *const *)files, nfiles, outs, 3, 1, &err);
    return rc ? cli_fail(rc, &err) : 0;
}

/* Reads and validates every input before running anything. */
static int run_read(char **files, int nfiles, mcb_input *in, mcb_source_info **src)
{
    mcb_problem_set **sets = calloc((size_t)nfiles + 1, sizeof *sets);
    *src = calloc((size_t)nfiles + 1, sizeof **src);
    mcb_err err;
    mcb_rc rc = sets && *src
                    ? mcb_read_sources((const char *const *)files, nfiles, sets, *src, &err)
                    : mcb_fail(&err, MCB_E_NOMEM, "out of memory");
    for (int f = 0; f < nfiles && !rc; f++) {
        in[f].problems = sets[f];
        in[f].path = files[f];
        in[f].kind = mcb_source_kind_name((*src)[f].kind);
        in[f].sha256 = (*src)[f].sha256;
    }
    free(sets);
    return rc ? cli_fail(rc, &err) : 0;
}

/* The campaign itself, its command line recorded. */
static int run_campaign(run_args *a, int argc, char **argv, const mcb_input *in, int nfiles,
                        const mcb_solver_choice *choice, int ns)
{
    char cmdline[4096] = "mcbench";
    size_t off = strlen(cmdline);
    for (int k = 0; k < argc && off < sizeof cmdline; k++)
        off += (size_t)snprintf(cmdline + off, sizeof cmdline - off, " %s", argv[k]);
    mcb_campaign *C = &a->C;
    C->include = a->include.v;
    C->ninclude = a->include.n;
    C->exclude = a->exclude.v;
    C->nexclude = a->exclude.n;
    C->in = in;
    C->nin = nfiles;
    C->solvers = choice;
    C->nsolvers = ns;
    C->o = &a->o;
    C->command = cmdline;
    C->h5_path = a->out;
    C->csv_path = a->csv;
    C->resume = a->resume != NULL;
    C->tty = isatty(STDERR_FILENO);
    mcb_err err;
    mcb_rc rc = C->mpi ? mcb_mpi_campaign(C, &err) : mcb_campaign_run(C, &err);
    if (rc == MCB_MPI_WORKER_DONE) return 0;
    if (rc) return cli_fail(rc, &err);
    fprintf(stderr, "mcbench: results in %s and %s\n", a->out, a->csv);
    return 0;
}

int cmd_run(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    mcb_campaign_defaults(&a.o);
    a.o.settings.max_iters = 5000;
    a.o.settings.time_limit_s = 30.0;
    a.C.mem_limit_mb = mcb_default_mem_limit_mb();
    a.C.grace_s = 10.0;
    mcb_cli_args p;
    int status = mcb_cli_parse(&run_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    int nfiles = p.npos, ns = 0;
    mcb_solver_choice choice[64];
    memset(choice, 0, sizeof choice);
    mcb_input *in = calloc((size_t)nfiles + 1, sizeof *in);
    char **names = calloc((size_t)nfiles + 1, sizeof *names);
    mcb_source_info *src = NULL;
    char csv_default[4200];
    status = in && names ? run_settle(&a, &p) : 1;
    if (!status) status = run_solvers("run", &a, choice, 64, &ns);
    if (!status) status = run_inputs(p.pos, nfiles, in, names);
    if (!status) status = run_outputs(&a, p.pos, nfiles, csv_default, sizeof csv_default);
    if (!status && a.batch) /* before reading any input */
        status = mcb_cli_batch_check(&a.C, &a.o, a.resume != NULL, a.include.n + a.exclude.n);
    if (!status) status = run_read(p.pos, nfiles, in, &src);
    mcb_cli_batch B;
    memset(&B, 0, sizeof B);
    if (!status && a.batch) {
        status = mcb_cli_batch_make(a.batch, in, nfiles, choice, ns, &B);
        a.C.batch = B.batch;
        if (!status) status = run_campaign(&a, argc, argv, &B.in, 1, B.choice, B.n);
    } else if (!status) {
        status = run_campaign(&a, argc, argv, in, nfiles, choice, ns);
    }
    mcb_cli_batch_free(&B);
    for (int f = 0; in && f < nfiles; f++) mcb_problem_set_free(&in[f].problems);
    free(src);
    for (int f = 0; names && f < nfiles; f++) free(names[f]);
    for (int s = 0; s < ns; s++) free(choice[s].params);
    free(in);
    free(names);
    mcb_cli_free(&run_cmd, &a, &p);
    return status;
}

/* --------------------------------------------------------------- simulate */

#define RUN(field) offsetof(run_args, field)
static const mcb_cli_opt simulate_opts[] = {
    MCB_CLI_OUTPUT(run_args, out, "RESULTS.h5", "the results file (required unless --resume)"),
    RUN_SHARED_A
    {"--budget", 0, MCB_CLI_STRINGS, RUN(budgets), "[SOLVER=]KIND:VALUE[,...]",
     .help = "the per-step budget: iters:K (K iterations; no early stop unless a tol is also "
             "given), time:T (wall clock per step, setup included; T in s, or with ms or us), "
             "tol:X (stop when the stop metric reaches X; at most 10000 iterations unless iters "
             "is given); kinds combine with commas; SOLVER= gives that solver its own budget "
             "(the SubADMM paper's NNewton at 3/6/9 beside 30/60/90)"},
    {"--set", 0, MCB_CLI_STRING, RUN(set), "SET",
     .help = "instead of SCENE: every trajectory entry of a problem set (docs/sets.md), each "
             "its own problem set in the results; entries that are not one trajectory are left "
             "out with a note"},
    {"--instances", 0, MCB_CLI_INT, RUN(instances), "K", 1, 10000,
     .help = "K instances of the scene with its --seed option at SEED, SEED+1, ... (the "
             "randomised repetitions of the papers; needs a scene with a --seed)"},
    {"--references", 0, MCB_CLI_STRING, RUN(references), "DIR",
     .def = "the directory of -o, references/",
     .help = "where the reference trajectories (the scene driven by the engine's own tight "
             "solve) are cached, keyed by the scene's arguments and this build"},
    {"--cold-start", 0, MCB_CLI_FLAG, RUN(cold),
     .help = "start every step's solve from zero instead of the previous step's solution"},
    RUN_SHARED_B
    RUN_SHARED_C
    {0},
};
#undef RUN

static const mcb_cli_cmd simulate_cmd = {
    "simulate",
    "usage: mcbench simulate SCENE [--SCENE-OPTION VALUE ...] --budget KIND:VALUE -o RESULTS.h5\n"
    "                        [--solvers a,b,...] [options]\n"
    "       mcbench simulate --set SET --budget KIND:VALUE -o RESULTS.h5 [options]\n"
    "Closed loop (docs/closed-loop.md): each solver drives the scene itself. At every\n"
    "step the engine assembles the subproblem, the solver solves it under the per-step\n"
    "budget, and the scene advances with whatever the solver returned (no fallback, no\n"
    "re-solve); collision detection, assembly, integration, scripted motions and seeds\n"
    "are the same for every solver. Every step is judged by the harness as a replay run\n"
    "is; the engine's own time is recorded apart (COND's DT); after each step the state\n"
    "is measured (energy, joint drift, divergence from the reference trajectory, the\n"
    "scene's outcome). A run whose state becomes non-finite, whose penetration or energy\n"
    "passes the scene's bound or whose outcome fails is stopped: failed-in-loop at that\n"
    "step, with the reason (the papers' \"-\"). SCENE is a trajectory scene of 'mcbench\n"
    "gen --list' (not stack, bolt-nut, dishes); its options are gen's (--steps N).\n"
    "The results file is a campaign's: report, compare, merge, --resume, --shard and\n"
    "--mpi work on it; each run's steps are stored with it (docs/results-format.md).\n"
    "--solvers also takes the whole-step methods (xpbd: XPBD with substeps,\n"
    "--param xpbd.substeps=N, xpbd.iters=K; 'mcbench solvers' lists them): they advance\n"
    "the scene themselves, so their steps have no subproblem metrics (NaN); depth,\n"
    "outcome, energy and divergence are measured as for the solvers (docs/closed-loop.md,\n"
    "\"Whole-step methods\"); 'all registered' does not include them.\n",
    "Reference trajectories are computed once and cached (--references).\n",
    simulate_opts, 1};

/* A time with an optional unit: "0.5ms", "2e-3", "100us", "1s". */
static int parse_seconds(const char *v, double *out)
{
    char *end = NULL;
    double x = strtod(v, &end);
    if (end == v || !isfinite(x) || x <= 0) return 0;
    double scale = 1.0;
    if (!strcmp(end, "ms")) scale = 1e-3;
    else if (!strcmp(end, "us")) scale = 1e-6;
    else if (*end && strcmp(end, "s")) return 0;
    *out = x * scale;
    return 1;
}

/* One --budget value: [SOLVER=]KIND:VALUE[,KIND:VALUE...] into *o (from
 * the defaults *base); *solver receives the SOLVER (or "" for all). */
static int parse_budget(const char *text, const mcb_campaign_opts *base, mcb_campaign_opts *o,
                        char *solver, size_t len)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    char *list = buf, *eq = strchr(buf, '=');
    solver[0] = '\0';
    if (eq) {
        *eq = '\0';
        snprintf(solver, len, "%s", buf);
        list = eq + 1;
    }
    *o = *base;
    int iters = 0, tol = 0, time = 0;
    for (char *save = NULL, *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(w, ':');
        if (!colon) return mcb_cli_usage_error("simulate", "--budget wants KIND:VALUE, got '%s'", text);
        *colon = '\0';
        const char *v = colon + 1;
        char *end = NULL;
        if (!strcmp(w, "iters")) {
            long k = strtol(v, &end, 10);
            if (end == v || *end || k < 1 || k > 100000000)
                return mcb_cli_usage_error("simulate", "--budget iters wants an integer in [1, "
                                           "100000000], got '%s'", v);
            o->settings.max_iters = (int)k;
            iters = 1;
        } else if (!strcmp(w, "tol")) {
            double x = strtod(v, &end);
            if (end == v || *end || !(x > 0) || !isfinite(x))
                return mcb_cli_usage_error("simulate", "--budget tol wants a number > 0, got '%s'", v);
            o->settings.tol = x;
            tol = 1;
        } else if (!strcmp(w, "time")) {
            if (!parse_seconds(v, &o->settings.time_limit_s))
                return mcb_cli_usage_error("simulate", "--budget time wants a duration > 0 "
                                           "(s, ms or us), got '%s'", v);
            time = 1;
        } else {
            return mcb_cli_usage_error("simulate", "--budget kind '%s' is not iters, time or tol", w);
        }
    }
    if (!iters && !tol && !time)
        return mcb_cli_usage_error("simulate", "--budget '%s' names no budget", text);
    if (!tol) o->settings.tol = 0.0; /* the budget alone ends a step's solve */
    if (!iters) o->settings.max_iters = tol ? 10000 : 100000000;
    if (!time) o->settings.time_limit_s = 0.0;
    /* judged during the solve only when a tolerance can stop it */
    if (!tol && o->check_every == MCB_CHECK_AUTO) o->check_every = MCB_CHECK_NEVER;
    return 0;
}

/* The budgets: one for all (required), others per solver. */
static int simulate_budgets(run_args *a, mcb_solver_choice *choice, int ns,
                            mcb_campaign_opts *per)
{
    if (!a->budgets.n)
        return mcb_cli_usage_error("simulate", "needs --budget KIND:VALUE (iters:30, time:0.5ms "
                                   "or tol:1e-6)");
    const mcb_campaign_opts base = a->o;
    int have_all = 0;
    for (int b = 0; b < a->budgets.n; b++) {
        mcb_campaign_opts o;
        char solver[256];
        int status = parse_budget(a->budgets.v[b], &base, &o, solver, sizeof solver);
        if (status) return status;
        if (!solver[0]) {
            if (have_all++)
                return mcb_cli_usage_error("simulate", "--budget without SOLVER= is given twice");
            a->o = o;
            continue;
        }
        int found = 0;
        for (int s = 0; s < ns; s++)
            if (!strcmp(choice[s].def->name, solver)) {
                if (choice[s].opts)
                    return mcb_cli_usage_error("simulate", "--budget %s= is given twice", solver);
                per[s] = o;
                choice[s].opts = &per[s];
                found = 1;
            }
        if (!found)
            return mcb_cli_usage_error("simulate", "--budget names solver '%s', which is not "
                                       "selected", solver);
    }
    if (!have_all)
        return mcb_cli_usage_error("simulate", "needs a --budget for every solver (one without "
                                   "SOLVER=)");
    return 0;
}

/* What simulate runs: instances (their reference trajectories computed or
 * read from the cache) and, per input problem set, their first steps. */
typedef struct {
    mcb_loop_instance *I;
    int count, cap;
    mcb_input *in;
    mcb_problem_set *sets;
    char **names, **args; /* per input: its name, its first instance's scene arguments */
    int nin;
    char dir[4200]; /* the reference cache */
} sim_plan;

static void sim_plan_free(sim_plan *S)
{
    for (int k = 0; k < S->count; k++) mcb_loop_instance_clear(&S->I[k]);
    free(S->I);
    for (int f = 0; f < S->nin; f++) {
        for (int k = 0; k < S->sets[f].count; k++) mcb_problem_free(&S->sets[f].items[k]);
        free(S->sets[f].items);
        free(S->names[f]);
        free(S->args[f]);
    }
    free(S->sets);
    free(S->names);
    free(S->args);
    free(S->in);
}

/* One entry (a scene at vals) as problem set `set`: K instances varying
 * the scene's --seed. */
static int sim_entry(run_args *a, sim_plan *S, const char *set, const mcb_scene_def *def,
                     double *vals)
{
    int seed = -1, K = a->instances > 0 ? a->instances : 1;
    for (int k = 0; k < MCB_SCENE_MAX_OPTS && def->opts[k].name; k++)
        if (!strcmp(def->opts[k].name, "seed")) seed = k;
    if (K > 1 && seed < 0)
        return mcb_cli_usage_error("simulate", "--instances %d: scene %s has no --seed to vary", K,
                                   def->name);
    if (K > 1 && vals[seed] + K - 1 > def->opts[seed].max)
        return mcb_cli_usage_error("simulate", "--instances %d: --seed %.0f + %d passes its "
                                   "maximum %.0f", K, vals[seed], K - 1, def->opts[seed].max);
    int f = S->nin++;
    S->names[f] = strdup(set);
    mcb_problem_set *P = &S->sets[f];
    P->items = calloc((size_t)K, sizeof *P->items);
    if (!S->names[f] || !P->items) return 1;
    char args[1024];
    mcb_scene_args(def, vals, args, sizeof args);
    S->args[f] = strdup(args);
    if (!S->args[f]) return 1;
    /* recorded in the results' inputs: the scene's arguments (the first instance's) */
    S->in[f] = (mcb_input){S->names[f], P, S->args[f], "scene", NULL};
    if (S->count + K > S->cap) {
        int cap = 2 * (S->count + K);
        mcb_loop_instance *I = realloc(S->I, (size_t)cap * sizeof *I);
        if (!I) return 1;
        S->I = I;
        S->cap = cap;
    }
    double seed0 = seed >= 0 ? vals[seed] : 0;
    mcb_err err;
    for (int k = 0; k < K; k++) {
        char name[96];
        if (K > 1) vals[seed] = seed0 + k;
        if (K > 1) snprintf(name, sizeof name, "%s-seed%.0f", set, vals[seed]);
        else snprintf(name, sizeof name, "%s", set);
        mcb_loop_instance *I = &S->I[S->count];
        double t0 = mcb_now_s();
        mcb_rc rc = mcb_loop_instance_init(I, def, vals, name, &err);
        if (!rc) S->count++;
        if (!rc) rc = mcb_loop_reference(I, S->dir, &P->items[k], &err);
        if (rc) return cli_fail(rc, &err);
        P->count++;
        fprintf(stderr, "mcbench: %s: reference trajectory of %d steps %s (%.2f s)\n", name,
                I->ref_steps, I->ref_s > 0 ? "computed" : "from the cache", mcb_now_s() - t0);
    }
    return 0;
}

/* The instances of SCENE [options], or of the trajectory entries of --set. */
static int simulate_plan(run_args *a, const mcb_cli_args *p, sim_plan *S)
{
    if (a->set && p->npos)
        return mcb_cli_usage_error("simulate", "give a SCENE or --set, not both");
    if (!a->set && (!p->npos || p->pos[0][0] == '-'))
        return mcb_cli_usage_error("simulate", "needs a SCENE (mcbench gen --list) or --set SET");
    mcb_err err;
    mcb_rc rc;
    if (a->references) snprintf(S->dir, sizeof S->dir, "%s", a->references);
    else {
        char *copy = strdup(a->out);
        snprintf(S->dir, sizeof S->dir, "%s/references", copy ? dirname(copy) : ".");
        free(copy);
    }
    double vals[MCB_SCENE_MAX_OPTS];
    char names[512];
    if (!a->set) {
        const mcb_scene_def *def = mcb_scene_find(p->pos[0]);
        if (!def)
            return mcb_cli_usage_error("simulate", "unknown scene '%s' (one of %s)", p->pos[0],
                                       mcb_scene_names(names, sizeof names));
        if ((rc = mcb_scene_parse(def, p->npos - 1, p->pos + 1, vals, &err)))
            return mcb_cli_usage_error("simulate", "%s", err.msg);
        if (!def->trajectory)
            return mcb_cli_usage_error("simulate", "scene %s is not one trajectory of the scene "
                                       "engine: it cannot run in a closed loop", def->name);
        if ((rc = mcb_mkdirs(S->dir, &err))) return cli_fail(rc, &err);
        S->in = calloc(1, sizeof *S->in);
        S->sets = calloc(1, sizeof *S->sets);
        S->names = calloc(1, sizeof *S->names);
        S->args = calloc(1, sizeof *S->args);
        if (!S->in || !S->sets || !S->names || !S->args) return 1;
        return sim_entry(a, S, def->name, def, vals);
    }
    char path[4200];
    mcb_set *T = NULL;
    rc = mcb_set_locate(a->set, path, sizeof path, &err);
    if (!rc) rc = mcb_set_read(path, &T, &err);
    if (!rc) rc = mcb_set_check(T, &err);
    if (!rc) rc = mcb_mkdirs(S->dir, &err);
    if (rc) {
        mcb_set_free(&T);
        return cli_fail(rc, &err);
    }
    S->in = calloc((size_t)T->count + 1, sizeof *S->in);
    S->sets = calloc((size_t)T->count + 1, sizeof *S->sets);
    S->names = calloc((size_t)T->count + 1, sizeof *S->names);
    S->args = calloc((size_t)T->count + 1, sizeof *S->args);
    int status = S->in && S->sets && S->names && S->args ? 0 : 1;
    for (int e = 0; e < T->count && !status; e++) {
        const mcb_set_entry *E = &T->items[e];
        const mcb_scene_def *def = mcb_scene_find(E->scene);
        if (!def->trajectory) {
            fprintf(stderr, "mcbench: %s:%d: %s left out: scene %s is not one trajectory (it "
                    "cannot run in a closed loop)\n", path, E->line, E->stem, def->name);
            continue;
        }
        mcb_scene_parse(def, E->argc, E->argv, vals, &err); /* checked above */
        status = sim_entry(a, S, E->stem, def, vals);
    }
    if (!status && S->nin == 0) {
        fprintf(stderr, "mcbench simulate: %s has no trajectory entry\n", path);
        status = MCB_CLI_EXIT_INPUT;
    }
    mcb_set_free(&T);
    return status;
}

int cmd_simulate(int argc, char **argv)
{
    run_args a;
    memset(&a, 0, sizeof a);
    mcb_campaign_defaults(&a.o);
    a.o.settings.warm_start = 1;
    a.o.trace_every = 0;
    a.o.closed_loop = 1;
    a.C.mem_limit_mb = mcb_default_mem_limit_mb();
    a.C.grace_s = 10.0;
    mcb_cli_args p;
    int status = mcb_cli_parse(&simulate_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    int ns = 0;
    mcb_solver_choice choice[64];
    mcb_campaign_opts per[64];
    memset(choice, 0, sizeof choice);
    sim_plan S;
    memset(&S, 0, sizeof S);
    char csv_default[4200];
    status = settle_shard_resume("simulate", &a);
    if (a.cold) a.o.settings.warm_start = 0;
    if (!status) status = run_solvers("simulate", &a, choice, 64, &ns);
    if (!status) status = simulate_budgets(&a, choice, ns, per);
    if (!status) status = run_outputs(&a, NULL, 0, csv_default, sizeof csv_default);
    if (!status) status = simulate_plan(&a, &p, &S);
    if (!status) {
        a.C.loop = S.I;
        a.C.describe_never = 1; /* the first steps' descriptors would describe little */
        status = run_campaign(&a, argc, argv, S.in, S.nin, choice, ns);
    }
    sim_plan_free(&S);
    for (int s = 0; s < ns; s++) free(choice[s].params);
    mcb_cli_free(&simulate_cmd, &a, &p);
    return status;
}

/* ---------------------------------------------------------------- solvers */

typedef struct {
    mcb_cli_strings plugins;
} solvers_args;

static const mcb_cli_opt solvers_opts[] = {
    {"--plugin", 0, MCB_CLI_STRINGS, offsetof(solvers_args, plugins), "FILE.so|.py",
     .help = "load a solver plugin (or a Python solver, docs/python.md) and list its solver too"},
    {0},
};

static const mcb_cli_cmd solvers_cmd = {
    "solvers",
    "usage: mcbench solvers [--plugin FILE.so|FILE.py]...\n"
    "Lists the registered solvers, the problem forms they accept, their parameters and defaults\n"
    "(set with 'mcbench run --param SOLVER.NAME=VALUE'), and the solvers of the plugins given;\n"
    "then the whole-step methods (xpbd), which only 'mcbench simulate' runs: they advance the\n"
    "scene themselves instead of solving its steps' subproblems (docs/closed-loop.md).\n",
    NULL, solvers_opts, 0};

/* One solver's entry; a whole-step method's indented under its heading. */
static int list_solver(const mcb_solver_def *d)
{
    if (mcb_whole_step_is(d))
        printf("  %s: %s\n  reference: %s\n  (closed loop only)\n", d->name, d->description,
               d->reference);
    else
    printf("%s: %s\n  reference: %s\n  accepts: %s%s%s%s\n", d->name, d->description, d->reference,
           d->accepts & MCB_ACCEPTS_PRIMAL ? "primal" : "",
           (d->accepts & 3) == (MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL) ? ", " : "",
           d->accepts & MCB_ACCEPTS_DUAL ? "dual" : "",
           d->accepts & MCB_ACCEPTS_ANISO ? "; anisotropic friction natively" : "");
    if (mcb_plugin_origin(d)) printf("  plugin: %s\n", mcb_plugin_origin(d));
    double *params = calloc(1, d->params_size + sizeof(double));
    if (!params) return 1;
    d->default_params(params);
    for (int p = 0; p < d->nparams; p++) {
        char buf[64];
        mcb_param_format(d, params, p, buf, sizeof buf);
        printf("  %s.%s = %s\n      %s\n", d->name, d->params[p].name, buf, d->params[p].help);
    }
    free(params);
    return 0;
}

int cmd_solvers(int argc, char **argv)
{
    solvers_args a = {{0}};
    mcb_cli_args p;
    int status = mcb_cli_parse(&solvers_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    if (p.npos) status = mcb_cli_usage_error("solvers", "unexpected argument '%s'", p.pos[0]);
    else status = load_plugins(&a.plugins);
    for (int k = 0; k < mcb_solver_count() && !status; k++) status = list_solver(mcb_solver_at(k));
    if (!status) printf("whole-step methods (closed loop only, mcbench simulate --solvers NAME):\n");
    for (int k = 0; k < mcb_whole_step_count() && !status; k++)
        status = list_solver(mcb_whole_step_at(k));
    mcb_cli_free(&solvers_cmd, &a, &p);
    return status;
}

/* cmd_results.c: the commands on results files: merge (a campaign's parts
 * into one file), report (plots and tables) and compare (two campaigns). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness/cli/cli.h"
#include "reports/compare.h"
#include "lib/mcb_paths.h"
#include "lib/mcb_results.h"
#include "reports/report.h"

/* ------------------------------------------------------------------ merge */

typedef struct {
    const char *out, *csv;
} merge_args;

static const mcb_cli_opt merge_opts[] = {
    MCB_CLI_OUTPUT(merge_args, out, "ALL.h5", "the merged results file (required)"),
    {"--csv", 0, MCB_CLI_STRING, offsetof(merge_args, csv), .metavar = "PATH",
     .def = "ALL.csv, the -o path with .csv for its extension", .help = "CSV path"},
    {0},
};

static const mcb_cli_cmd merge_cmd = {
    "merge",
    "usage: mcbench merge PART.h5... -o ALL.h5 [--csv PATH]\n"
    "Joins the results files of one campaign's parts (mcbench run --shard I/N, or\n"
    "parts run on different machines) into one results file and CSV, in the order of\n"
    "the campaign's run list; 'mcbench report' reads it like any other. The parts must\n"
    "come from one mcbench revision with the same settings; a run in two parts, or two\n"
    "parts disagreeing on the run list, is an error. Nothing is written on error.\n",
    NULL, merge_opts, 0};

int cmd_merge(int argc, char **argv)
{
    mcb_cli_args p;
    merge_args a = {0};
    int status = mcb_cli_parse(&merge_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    const char *const *parts = (const char *const *)p.pos;
    int n = p.npos;
    status = 0;
    if (!a.out || n == 0)
        status = mcb_cli_usage_error("merge", "needs at least one PART.h5 and -o ALL.h5");
    char csv_default[4200];
    if (!status && !a.csv) {
        mcb_path_with_ext(a.out, ".csv", csv_default, sizeof csv_default);
        a.csv = csv_default;
    }
    for (int k = 0; k < n && !status; k++)
        for (int j = 0; j < k && !status; j++)
            if (mcb_same_file(parts[k], parts[j]))
                status = mcb_cli_usage_error("merge", "part %s is given twice", parts[k]);
    mcb_err err;
    if (!status) {
        mcb_output outs[2] = {{a.out, "-o"},
                              {a.csv, a.csv == csv_default ? "the CSV named after -o" : "--csv"}};
        mcb_rc rc = mcb_check_outputs(parts, n, outs, 2, 1, &err);
        if (rc) status = cli_fail(rc, &err);
    }
    if (!status) {
        mcb_rc rc = mcb_merge(parts, n, a.out, a.csv, &err);
        if (rc) status = cli_fail(rc, &err);
        else fprintf(stderr, "mcbench: %d parts merged into %s and %s\n", n, a.out, a.csv);
    }
    mcb_cli_free(&merge_cmd, &a, &p);
    return status;
}

/* ----------------------------------------------------------------- report */

typedef struct {
    const char *out;
    double sgm_shift_ms;
} report_args;

static const mcb_cli_opt report_opts[] = {
    MCB_CLI_OUTPUT(report_args, out, "DIR", "the report's directory (required)"),
    {"--sgm-shift-ms", 0, MCB_CLI_DOUBLE, offsetof(report_args, sgm_shift_ms), "MS", 1e-9,
     1e9, .help = "the shift of the shifted geometric means of the time to each accuracy tier "
                  "(docs/metrics.md)"},
    {0},
};

static const mcb_cli_cmd report_cmd = {
    "report",
    "usage: mcbench report RESULTS.h5 -o DIR   (RESULTS.h5.journal: an unfinished campaign)\n"
    "Writes per problem set and over all sets: residual against iteration and against\n"
    "solver time, Dolan-More performance profiles (time to tolerance, iterations)\n"
    "and a data profile (gnuplot PNG and SVG), a table per solver and a per-problem\n"
    "table (Markdown, CSV), per accuracy tier of the campaign the ranking, profile and\n"
    "shifted geometric means (tiers.csv), the solvers' claims against the harness's\n"
    "verdicts (claims.csv), and DIR/index.html showing them all (DIR is created if\n"
    "needed; index.html appears only when the whole report is complete). Needs\n"
    "gnuplot on PATH (Debian package gnuplot-nox).\n",
    NULL, report_opts, 0};

int cmd_report(int argc, char **argv)
{
    report_args a = {0, 1e3 * MCB_SGM_SHIFT_S};
    mcb_cli_args p;
    int status = mcb_cli_parse(&report_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    const char *in = p.npos ? p.pos[0] : NULL;
    if (p.npos > 1)
        status = mcb_cli_usage_error("report", "takes one RESULTS.h5, got a second: %s", p.pos[1]);
    else if (!in || !a.out)
        status = mcb_cli_usage_error("report", "needs RESULTS.h5 and -o DIR");
    mcb_err err;
    mcb_rc rc = MCB_OK;
    if (status == MCB_CLI_GO_ON && (rc = mcb_report_shift(in, a.out, NULL, 1e-3 * a.sgm_shift_ms, &err)))
        status = cli_fail(rc, &err);
    else if (status == MCB_CLI_GO_ON) {
        fprintf(stderr, "mcbench: report in %s/index.html\n", a.out);
        status = 0;
    }
    mcb_cli_free(&report_cmd, &a, &p);
    return status;
}

/* ---------------------------------------------------------------- compare */

typedef struct {
    const char *dir;
    mcb_compare_opts o;
    int fail_on_flag;
} compare_args;

static const mcb_cli_opt compare_opts[] = {
    MCB_CLI_OUTPUT(compare_args, dir, "DIR",
                   "also write DIR/compare.md, DIR/compare.csv and DIR/compare.png"),
    {"--time-tol", 0, MCB_CLI_DOUBLE, offsetof(compare_args, o.time_tol), "F", 0, INFINITY,
     .help = "a time ratio NEW/OLD off by more than F (relative) is flagged"},
    {"--iter-tol", 0, MCB_CLI_DOUBLE, offsetof(compare_args, o.iter_tol), "F", 0, INFINITY,
     .help = "iterations changed by more than F (relative) are flagged"},
    {"--fail-on-flag", 0, MCB_CLI_FLAG, offsetof(compare_args, fail_on_flag),
     .help = "exit 3 when something is flagged"},
    {"--allow-other-machine", 0, MCB_CLI_FLAG, offsetof(compare_args, o.allow_other_machine),
     .help = "flag time changes even when the machines differ (CPU model, threads, maximum "
             "frequency)"},
    {0},
};

static const mcb_cli_cmd compare_cmd = {
    "compare",
    "usage: mcbench compare OLD.h5 NEW.h5 [-o DIR] [--time-tol F] [--iter-tol F]\n"
    "       [--allow-other-machine] [--fail-on-flag]\n"
    "Two campaigns of the same problems (e.g. two revisions of a solver): per solver\n"
    "and problem the change in status, iterations and solve time, with the spread of\n"
    "the repetitions (--repeat), and a flag on every change larger than the noise\n"
    "(docs/compare.md): any status change; iterations changed by more than --iter-tol\n"
    "(default 0.01, relative); a time ratio NEW/OLD off by more than --time-tol\n"
    "(default 0.10) whose 95% bootstrap interval over the repetitions excludes 1\n"
    "(docs/metrics.md). Per solver, the geometric mean of the ratios over the shared\n"
    "problems with its interval. Campaigns run on different machines (CPU model,\n"
    "threads, maximum frequency) get no time flag, saying why, unless\n"
    "--allow-other-machine. Prints a Markdown table;\n"
    "-o DIR writes DIR/compare.md, DIR/compare.csv and the plot DIR/compare.png\n"
    "(gnuplot: time ratio per problem and solver, log scale). Refuses two files with\n"
    "no problem or no solver in common, naming those in one file only. Exits 0 either\n"
    "way when the comparison is made; 3 when something is flagged and --fail-on-flag.\n",
    NULL, compare_opts, 0};

int cmd_compare(int argc, char **argv)
{
    compare_args a = {0};
    mcb_compare_defaults(&a.o);
    mcb_cli_args p;
    int status = mcb_cli_parse(&compare_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    int flagged = 0;
    if (p.npos > 2)
        status = mcb_cli_usage_error("compare", "takes two results files, got a third: %s",
                                     p.pos[2]);
    else if (p.npos != 2) status = mcb_cli_usage_error("compare", "needs OLD.h5 and NEW.h5");
    mcb_err err;
    mcb_rc rc = MCB_OK;
    if (status == MCB_CLI_GO_ON &&
        (rc = mcb_compare(p.pos[0], p.pos[1], a.dir, stdout, &a.o, &flagged, &err)))
        status = cli_fail(rc, &err);
    else if (status == MCB_CLI_GO_ON) {
        if (a.dir) fprintf(stderr, "mcbench: comparison in %s/compare.md\n", a.dir);
        status = a.fail_on_flag && flagged ? 3 : 0;
    }
    mcb_cli_free(&compare_cmd, &a, &p);
    return status;
}

/* cli.h: what the command families of the mcbench command line share. The
 * command line is the only place that prints errors and chooses exit codes:
 *   0 success, 2 bad input (arguments, files), 1 anything else
 * (compare adds 3: something flagged, with --fail-on-flag). */
#ifndef MCB_CLI_H
#define MCB_CLI_H

#include "lib/mcb_error.h"
#include "harness/cli/options.h"
#include "problems/sources.h"

/* "mcbench: error: MSG"; MCB_CLI_EXIT_INPUT for MCB_E_INPUT, else 1. */
int cli_fail(mcb_rc rc, const mcb_err *err);

/* One problem source (an mcbench problem file or an FCLIB file), read as
 * every command reads them (problems/sources.h). */
mcb_rc cli_read_source(const char *path, mcb_problem_set **S, mcb_source_info *info, mcb_err *err);

/* The whole command line (argv[0] the program, argv[1] the command):
 * returns the exit status. The mcbench binary's main() and the Python host
 * (python3 -m mcbench, docs/python.md) call it; the only symbol of the
 * command line libmcbench.so exports. */
__attribute__((visibility("default"))) int mcb_cli_main(int argc, char **argv);

/* --plugin FILE.py given to a process without a Python host: mcbench runs
 * again as `PYTHON -c BOOT argv...` (python_host.c), which registers the
 * Python solvers and calls mcb_cli_main with the same arguments. Returns
 * -1 when there is nothing to do (no .py plugin, or the host is here),
 * else the exit status of a failed start (exec replaces the process). */
int cli_python_host(int argc, char **argv);

/* Each subcommand: argv[0] is its name; returns the exit status. */
int cmd_info(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_solvers(int argc, char **argv);
int cmd_gpu(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_reproduce(int argc, char **argv);

#endif

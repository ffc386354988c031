/* main.c: the mcbench command line, on the roof of the harness: the table
 * of subcommands, `mcbench --help`, `mcbench help CMD` and the version, as
 * mcb_cli_main() (cli.h), which the mcbench binary's main() (mcbench.c)
 * calls and libmcbench.so exports for the Python host (docs/python.md). Each
 * family of commands is one file (cmd_problems.c, cmd_gen.c, cmd_run.c,
 * cmd_results.c); their options are declared as data and parsed by the one
 * parser of options.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "lib/mcb_paths.h"
#include "harness/plugin.h"

#ifndef MCB_VERSION
#define MCB_VERSION "unknown"
#endif

typedef struct {
    const char *name;
    const char *summary; /* one line of `mcbench --help` */
    int (*run)(int argc, char **argv);
} command;

static const command commands[] = {
    {"info", "describe problem files", cmd_info},
    {"validate", "check problem files", cmd_validate},
    {"import", "convert FCLIB or Siconos files (mcbench import fclib|siconos ...)", cmd_import},
    {"export", "write a problem as FCLIB (mcbench export fclib ...)", cmd_export},
    {"gen", "generate a scene or a problem set (mcbench gen --list)", cmd_gen},
    {"record", "record a simulator's steps (mcbench record mujoco MODEL.xml ...)", cmd_record},
    {"run", "run solvers on problems with identical budgets", cmd_run},
    {"simulate", "closed loop: each solver drives a scene itself, judged step by step", cmd_simulate},
    {"reproduce", "a paper's table or figure, published beside measured (--list)", cmd_reproduce},
    {"merge", "join the results files of a campaign's parts", cmd_merge},
    {"report", "plots and tables from a results file", cmd_report},
    {"compare", "two campaigns of the same problems: changes beyond the noise", cmd_compare},
    {"describe", "difficulty descriptors of problems (rank of J, mu, cond(W), ...)", cmd_describe},
    {"solvers", "list solvers and their parameters", cmd_solvers},
    {"gpu", "the CUDA device, and the GPU solvers' memory-traffic probe", cmd_gpu},
};
enum { NCOMMANDS = (int)(sizeof commands / sizeof commands[0]) };

static void main_help(FILE *f)
{
    fputs("usage: mcbench COMMAND [ARGS]   (mcbench COMMAND --help for details)\n", f);
    for (int k = 0; k < NCOMMANDS; k++)
        fprintf(f, "  %-9s %s\n", commands[k].name, commands[k].summary);
    fputs("  help CMD  the help of CMD, as mcbench CMD --help\n"
          "  version   the version of mcbench (also --version)\n", f);
}

static const command *find(const char *name)
{
    for (int k = 0; k < NCOMMANDS; k++)
        if (!strcmp(commands[k].name, name)) return &commands[k];
    return NULL;
}

int mcb_cli_main(int argc, char **argv)
{
    static int once;
    mcb_tmp_install_handlers();
    if (!once++) atexit(mcb_plugin_unload_all); /* plugins loaded by run or solvers */
    int py = cli_python_host(argc, argv); /* --plugin FILE.py: mcbench again, inside Python */
    if (py >= 0) return py;
    if (argc < 2) {
        main_help(stderr);
        return MCB_CLI_EXIT_INPUT;
    }
    const char *c = argv[1];
    if (!strcmp(c, "--version") || !strcmp(c, "version")) {
        printf("mcbench %s\n", MCB_VERSION);
        return 0;
    }
    if (!strcmp(c, "help") && argc > 2) { /* mcbench help CMD */
        const command *cmd = find(argv[2]);
        if (!cmd) {
            fprintf(stderr, "mcbench: unknown command '%s'\n", argv[2]);
            main_help(stderr);
            return MCB_CLI_EXIT_INPUT;
        }
        char *help_argv[] = {argv[2], "--help", NULL};
        return cmd->run(2, help_argv);
    }
    if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) {
        main_help(stdout);
        return 0;
    }
    const command *cmd = find(c);
    if (cmd) return cmd->run(argc - 1, argv + 1);
    fprintf(stderr, "mcbench: unknown command '%s'\n", c);
    main_help(stderr);
    return MCB_CLI_EXIT_INPUT;
}

/* cmd_gen.c: mcbench gen, the problems made by mcbench: a registered scene
 * (its options are declared as data in the scene registry, problems/scene,
 * and parsed there) or a problem set of the catalog (problems/sets). */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "lib/mcb_io.h"
#include "lib/mcb_paths.h"
#include "lib/mcb_timer.h"
#include "problems/scene/scenes.h"
#include "problems/sets.h"

typedef struct {
    int list;
    const char *set, *out;
} gen_args;

static const mcb_cli_opt gen_opts[] = {
    {"--list", 0, MCB_CLI_FLAG, offsetof(gen_args, list),
     .help = "the scenes, what they are, where they come from (alone)"},
    {"--set", 0, MCB_CLI_STRING, offsetof(gen_args, set), "SET",
     .help = "build the problem set SET into DIR/STEM.h5"},
    MCB_CLI_OUTPUT(gen_args, out, "FILE.h5|DIR",
                   "the problem file of a scene, the directory of a set (required)"),
    {0},
};

/* a scene's own options (--nx 5 ...) pass through to mcb_scene_parse */
static const mcb_cli_cmd gen_cmd = {
    "gen",
    "usage: mcbench gen NAME [--OPTION VALUE ...] -o FILE.h5   generate a registered scene\n"
    "       mcbench gen NAME --help        its options, defaults and ranges\n"
    "       mcbench gen --list             the scenes, what they are, where they come from\n"
    "       mcbench gen --set SET -o DIR   build a problem set into DIR/STEM.h5\n"
    "Every recorded step's subproblem is written with its reference solution;\n"
    "the files are byte-for-byte identical for fixed arguments, and each\n"
    "problem's source attribute holds the canonical arguments (every option).\n"
    "SET is a name in the catalog (problems/sets/SET.set; MCB_SETS_DIR overrides\n"
    "the directory) or a path to a .set file (docs/sets.md): quick, default,\n"
    "paper, scaling. A file in DIR made from the same arguments is reused.\n"
    "After each file: scene, problems, DOF, subsystems, contacts per step\n"
    "(min/median/max), wall seconds, file. Numbers must be finite.\n",
    "Example: mcbench gen stack --nx 5 --ny 5 --nz 5 --steps 10 -o stack.h5\n", gen_opts, 1};

static void print_summary(void *ctx, const mcb_gen_summary *s)
{
    (void)ctx;
    char line[1400];
    mcb_gen_summary_line(s, line, sizeof line);
    printf("%s\n", line);
    fflush(stdout);
}

static int gen_list(void)
{
    for (int k = 0; k < mcb_scene_count(); k++) {
        const mcb_scene_def *d = mcb_scene_at(k);
        printf("%-12s %s\n%-12s   source: %s\n", d->name, d->summary, "", d->paper);
    }
    printf("problem sets: %s (mcbench gen --set SET -o DIR)\n", mcb_sets_dir());
    return 0;
}

/* A scene's help, from its options declared in the scene registry. */
static int gen_scene_help(const mcb_scene_def *d)
{
    printf("usage: mcbench gen %s [--OPTION VALUE ...] -o FILE.h5\n%s\nsource: %s\noptions:\n",
           d->name, d->summary, d->paper);
    for (int k = 0; k < MCB_SCENE_MAX_OPTS && d->opts[k].name; k++) {
        const mcb_scene_opt *o = &d->opts[k];
        char flag[64];
        snprintf(flag, sizeof flag, "--%s %s", o->name, o->integer ? "N" : "X");
        char a[40], b[40], c[40];
        printf("  %-16s %s (default %s; %s in [%s, %s])\n", flag, o->help,
               mcb_cli_num_text(o->def, a, sizeof a), o->integer ? "an integer" : "a number",
               mcb_cli_num_text(o->min, b, sizeof b), mcb_cli_num_text(o->max, c, sizeof c));
    }
    return 0;
}

/* mcbench gen --set SET -o DIR */
static int gen_set(const gen_args *a, const mcb_cli_args *p)
{
    if (p->npos && p->pos[0][0] == '-' && p->pos[0][1]) /* passed through: not a set's */
        return mcb_cli_usage_error("gen", "unknown option %s", p->pos[0]);
    if (p->npos)
        return mcb_cli_usage_error("gen", "unexpected argument '%s' with --set", p->pos[0]);
    if (a->list) return mcb_cli_usage_error("gen", "--list takes no other argument");
    if (!a->out) return mcb_cli_usage_error("gen", "--set needs SET and -o DIR");
    char path[4096];
    mcb_err err;
    mcb_set *S = NULL;
    mcb_rc rc = mcb_set_locate(a->set, path, sizeof path, &err);
    if (!rc) rc = mcb_set_read(path, &S, &err);
    double t0 = mcb_now_s();
    if (!rc) rc = mcb_set_build(S, a->out, print_summary, NULL, &err);
    int n = S ? S->count : 0;
    mcb_set_free(&S);
    if (rc) return cli_fail(rc, &err);
    fprintf(stderr, "mcbench: set %s: %d file(s) in %s (%.1f s)\n", a->set, n, a->out,
            mcb_now_s() - t0);
    return 0;
}

/* mcbench gen NAME [--opt V ...] -o FILE.h5: p->pos is NAME and the scene's options */
static int gen_scene(const mcb_scene_def *def, const gen_args *a, const mcb_cli_args *p)
{
    if (a->list) return mcb_cli_usage_error("gen", "--list takes no scene NAME");
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err;
    mcb_rc rc = mcb_scene_parse(def, p->npos - 1, p->pos + 1, vals, &err);
    if (rc)
        return mcb_cli_usage_error("gen", "%s", strncmp(err.msg, "gen ", 4) ? err.msg : err.msg + 4);
    if (!a->out) return mcb_cli_usage_error("gen", "needs -o FILE.h5");
    mcb_output oo = {a->out, "-o"};
    if ((rc = mcb_check_outputs(NULL, 0, &oo, 1, 1, &err))) return cli_fail(rc, &err);
    double t0 = mcb_now_s();
    mcb_problem_set *S = NULL;
    rc = mcb_scene_generate(def, vals, &S, &err);
    if (!rc) rc = mcb_write_problems(a->out, S->items, S->count, &err);
    if (!rc) {
        mcb_gen_summary sum;
        mcb_gen_summarize(S, def->name, a->out, &sum);
        sum.wall_s = mcb_now_s() - t0;
        print_summary(NULL, &sum);
    }
    mcb_problem_set_free(&S);
    return rc ? cli_fail(rc, &err) : 0;
}

/* The scene named first, or NULL after saying which scenes there are. */
static const mcb_scene_def *find_scene(const char *name)
{
    const mcb_scene_def *def = mcb_scene_find(name);
    if (def) return def;
    char names[512];
    fprintf(stderr, "mcbench gen: unknown scene '%s' (scenes: %s; see 'mcbench gen --list')\n",
            name, mcb_scene_names(names, sizeof names));
    return NULL;
}

int cmd_gen(int argc, char **argv)
{
    if (argc < 2) return mcb_cli_usage_error("gen", "needs a scene NAME, --set SET or --list");
    const char *first = argv[1];
    const mcb_scene_def *def = NULL;
    if (first[0] != '-' && !(def = find_scene(first))) return MCB_CLI_EXIT_INPUT;
    if (def && mcb_cli_is_help(argc, argv)) return gen_scene_help(def);
    gen_args a = {0};
    mcb_cli_args p;
    int status = mcb_cli_parse(&gen_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    if (a.set) status = gen_set(&a, &p);
    else if (def) status = gen_scene(def, &a, &p);
    else if (a.list && (argc > 2))
        status = mcb_cli_usage_error("gen", "unexpected argument '%s' after --list", argv[2]);
    else if (a.list) status = gen_list();
    else status = mcb_cli_usage_error("gen", "%s comes before a scene NAME (mcbench gen NAME "
                                      "[options] -o FILE.h5)", first);
    mcb_cli_free(&gen_cmd, &a, &p);
    return status;
}

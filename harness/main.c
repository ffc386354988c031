/* main.c: the mcbench command line. Library calls return statuses; this is
 * the only place that prints errors and chooses exit codes:
 *   0 success, 2 bad input (arguments, files), 1 anything else. */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "campaign.h"
#include "compare.h"
#include "describe.h"
#include "mpi_campaign.h"
#include "mcb_io.h"
#include "mcb_paths.h"
#include "plugin.h"
#include "export_fclib.h"
#include "formulation/formulation.h"
#include "import_fclib.h"
#include "import_siconos.h"
#include "record_mujoco.h"
#include "mcb_timer.h"
#include "report.h"
#include "scenes.h"
#include "sets.h"
#include "sources.h"

#define EXIT_INPUT 2

static int fail_rc(mcb_rc rc, const mcb_err *err)
{
    fprintf(stderr, "mcbench: error: %s\n", err->msg);
    return rc == MCB_E_INPUT ? EXIT_INPUT : 1;
}

static int usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "mcbench %s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see 'mcbench %s --help')\n", cmd);
    return EXIT_INPUT;
}

static int is_help(int argc, char **argv)
{
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--")) break;
        if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) return 1;
    }
    return 0;
}

static int in_list(const char *s, const char *const *list)
{
    for (; list && *list; list++)
        if (!strcmp(s, *list)) return 1;
    return 0;
}

/* The command-line walker shared by every subcommand. Looks at argv[*k]
 * and returns ARG_POS for a positional argument, ARG_OPT for a known option
 * (its value in *val when it takes one, and *k moved past it), ARG_SKIP for
 * "--" (every later argument is positional), or ARG_ERR after printing why:
 * an unknown option is reported as unknown wherever it stands, a known one
 * without its value as needing one. */
enum { ARG_POS, ARG_OPT, ARG_SKIP, ARG_ERR };
static int next_arg(const char *cmd, int argc, char **argv, int *k, int *positional_only,
                    const char *const *valued, const char *const *flags, const char **val)
{
    const char *a = argv[*k];
    *val = NULL;
    if (*positional_only || a[0] != '-' || a[1] == '\0') return ARG_POS;
    if (!strcmp(a, "--")) {
        *positional_only = 1;
        return ARG_SKIP;
    }
    if (in_list(a, flags)) return ARG_OPT;
    if (!in_list(a, valued)) return usage_error(cmd, "unknown option %s", a), ARG_ERR;
    if (*k + 1 >= argc) return usage_error(cmd, "option %s needs a value", a), ARG_ERR;
    *val = argv[++*k];
    return ARG_OPT;
}

/* Collects the positional arguments of a command that takes no option but
 * --help; EXIT_INPUT on anything else. */
static int files_only(const char *cmd, int argc, char **argv, char **files, int *nfiles)
{
    int po = 0;
    *nfiles = 0;
    for (int k = 1; k < argc; k++) {
        const char *v;
        int t = next_arg(cmd, argc, argv, &k, &po, NULL, NULL, &v);
        if (t == ARG_ERR) return EXIT_INPUT;
        if (t == ARG_POS) files[(*nfiles)++] = argv[k];
    }
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* A finite number >= lo. */
static int parse_double(const char *s, double lo, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || !(v >= lo)) return -1;
    *out = v;
    return 0;
}

/* ------------------------------------------------------------------- info */

static const char *info_help =
    "usage: mcbench info FILE...\n"
    "Reads and validates each problem file and prints one line per problem:\n"
    "name, form, n, m, blocks per type, subsystems, metadata. A FILE is an mcbench\n"
    "problem file or an FCLIB file (imported in memory as 'import fclib' does; its\n"
    "SHA-256 is printed).\n";

/* One problem source (an mcbench problem file or an FCLIB file), read as
 * every command reads them (problems/sources.h). */
static mcb_rc read_source(const char *path, mcb_problem_set **S, mcb_source_info *info,
                          mcb_err *err)
{
    return mcb_read_sources(&path, 1, S, info, err);
}

static int cmd_info(int argc, char **argv)
{
    if (is_help(argc, argv)) return fputs(info_help, stdout), 0;
    char **files = calloc((size_t)argc, sizeof *files);
    int nfiles = 0;
    if (!files) return 1;
    int status = files_only("info", argc, argv, files, &nfiles);
    if (!status && nfiles == 0) status = usage_error("info", "%s", "needs at least one FILE");
    for (int k = 0; k < nfiles && !status; k++) {
        mcb_problem_set *S = NULL;
        mcb_source_info src;
        mcb_err err;
        mcb_rc rc = read_source(files[k], &S, &src, &err);
        if (rc) {
            status = fail_rc(rc, &err);
            break;
        }
        if (src.kind == MCB_SOURCE_FCLIB)
            printf("%s: %d problem(s) (FCLIB file, sha256 %s)\n", files[k], S->count, src.sha256);
        else printf("%s: %d problem(s)\n", files[k], S->count);
        for (int p = 0; p < S->count; p++) {
            const mcb_problem *P = S->items[p];
            printf("  %-32s %-6s n %-6d m %-6d contacts %-5d unilateral %-4d bilateral %-4d "
                   "soft %-4d subsystems %-5d h %g step %d scene '%s'\n",
                   P->name, mcb_form_name(P->form), P->n, P->m, mcb_problem_contacts(P),
                   mcb_problem_count(P, MCB_UNILATERAL), mcb_problem_count(P, MCB_BILATERAL),
                   mcb_problem_count(P, MCB_SOFT), P->nsub, P->h, P->step, P->scene);
        }
        mcb_problem_set_free(&S);
    }
    free(files);
    return status;
}

/* --------------------------------------------------------------- validate */

static const char *validate_help =
    "usage: mcbench validate FILE...   (mcbench problem files or FCLIB files)\n"
    "Checks every problem of every file against docs/problem-format.md (shapes,\n"
    "finite values, sparse structure, symmetry and positive definiteness of A,\n"
    "symmetry and positive semidefiniteness of a dual-form W up to round-off (no\n"
    "eigenvalue below -1e-6 ||W||_2; docs/problem-format.md), constraint blocks\n"
    "and parameters, partition, unique names). The file is read first in an\n"
    "isolated process, so a damaged file is reported, never a crash. Prints 'ok'\n"
    "or the reason for each file; exits 2 if any file is invalid, 1 on an\n"
    "internal failure (out of memory).\n";

static int cmd_validate(int argc, char **argv)
{
    if (is_help(argc, argv)) return fputs(validate_help, stdout), 0;
    char **files = calloc((size_t)argc, sizeof *files);
    int nfiles = 0;
    if (!files) return 1;
    int status = files_only("validate", argc, argv, files, &nfiles);
    if (!status && nfiles == 0) status = usage_error("validate", "%s", "needs at least one FILE");
    int bad = status;
    for (int k = 0; k < nfiles && !status; k++) {
        mcb_problem_set *S = NULL;
        mcb_source_info src;
        mcb_err err;
        mcb_rc rc = read_source(files[k], &S, &src, &err);
        if (rc == MCB_E_INPUT) {
            fprintf(stderr, "mcbench: invalid: %s\n", err.msg);
            if (!bad) bad = EXIT_INPUT;
        } else if (rc) {
            fprintf(stderr, "mcbench: error: %s\n", err.msg);
            bad = 1;
        } else {
            printf("%s: ok (%d problem(s)%s)\n", files[k], S->count,
                   src.kind == MCB_SOURCE_FCLIB ? ", FCLIB file" : "");
        }
        mcb_problem_set_free(&S);
    }
    free(files);
    return bad;
}

/* ----------------------------------------------------------------- record */

static const char *record_help =
    "usage: mcbench record mujoco MODEL.xml [--steps N] [--every K] [--cone pyramidal|elliptic]\n"
    "                             [--ctrl noise|zero] [--seed S] [--strict] [--no-timing] -o OUT.h5\n"
    "Steps an MJCF (or MJB) model with MuJoCo for N steps (default 10) and records every\n"
    "K-th step's constraint problem (default every step) exactly as MuJoCo solved it:\n"
    "A = M, b = M qvel + h qfrc_smooth, J = efc_J, e = -(J qvel + h efc_aref), compliance\n"
    "r = efc_R, with MuJoCo's solution (v = qvel + h qacc, lambda = h efc_force) as the\n"
    "reference, its warm start as the initial v, and the compiled model and state the\n"
    "mujoco_* peer solvers need. --cone forces the friction cone (default: the model's);\n"
    "--ctrl noise (default) draws controls uniformly over each actuator's range from a\n"
    "fixed seed (--seed, default 12). Rows with no mcbench type (friction loss,\n"
    "elliptic contacts of dimension 4 or 6) are left out with a warning (their force\n"
    "kept in b), or refused with --strict. --no-timing leaves MuJoCo's solve time out\n"
    "of the notes, so that equal arguments give byte-identical files. A model with no\n"
    "degrees of freedom (nv = 0) is refused. The summary line's contacts per step are\n"
    "MuJoCo's contacts, whatever the cone (a pyramidal contact is unilateral rows).\n"
    "Needs mcbench built with MuJoCo (libmujoco-dev). See docs/mujoco.md.\n";

static int cmd_record(int argc, char **argv)
{
    if (is_help(argc, argv)) return fputs(record_help, stdout), 0;
    if (argc < 2 || strcmp(argv[1], "mujoco") != 0)
        return usage_error("record", "%s", "the simulator is 'mujoco': mcbench record mujoco "
                           "MODEL.xml [options] -o OUT.h5");
    if (!mcb_record_mujoco_available()) {
        fprintf(stderr, "mcbench record: 'record mujoco' is not built in: this mcbench was built "
                "without MuJoCo (install the Debian package libmujoco-dev and rebuild)\n");
        return 1;
    }
    /* -o is the command line's; the rest is the recorder's (shared with
     * set entries `STEM record mujoco MODEL ...`) */
    const char *out = NULL;
    char **rest = calloc((size_t)argc, sizeof *rest);
    if (!rest) return 1;
    int nrest = 0;
    for (int k = 2; k < argc; k++) {
        if (!strcmp(argv[k], "-o") && k + 1 < argc) out = argv[++k];
        else if (!strcmp(argv[k], "-o")) return free(rest), usage_error("record", "%s", "option -o needs a value");
        else rest[nrest++] = argv[k];
    }
    mcb_record_mujoco_opts o;
    mcb_err err;
    mcb_rc rc = mcb_record_mujoco_parse(nrest, rest, &o, &err);
    const char *model = o.model_path;
    free(rest);
    if (rc) return usage_error("record", "%s", err.msg + strlen("record mujoco: "));
    if (!out) return usage_error("record", "%s", "needs MODEL.xml and -o OUT.h5");
    mcb_output oo = {out, "-o"};
    const char *in[1] = {model};
    rc = mcb_check_outputs(in, 1, &oo, 1, 1, &err);
    if (rc) return fail_rc(rc, &err);
    mcb_problem_set *S = NULL;
    char warn[1024];
    double t0 = mcb_now_s();
    if ((rc = mcb_record_mujoco(&o, &S, warn, sizeof warn, &err))) return fail_rc(rc, &err);
    if (warn[0]) fprintf(stderr, "mcbench record: warning: %s\n", warn);
    rc = mcb_write_problems(out, S->items, S->count, &err);
    if (!rc) {
        mcb_gen_summary sum;
        char line[2048];
        mcb_gen_summarize(S, "mujoco", out, &sum);
        sum.wall_s = mcb_now_s() - t0;
        mcb_gen_summary_line(&sum, line, sizeof line);
        fprintf(stderr, "mcbench record: %s\n", line);
    }
    mcb_problem_set_free(&S);
    return rc ? fail_rc(rc, &err) : 0;
}

/* ----------------------------------------------------------------- import */

static const char *import_help =
    "usage: mcbench import fclib FILE.hdf5... -o OUT.h5\n"
    "       mcbench import siconos [--form auto|local|global] FILE.dat... -o OUT.h5\n"
    "fclib: converts FCLIB problems (read with libfclib) into one mcbench problem\n"
    "file: global problems (M, H, f, w, mu) become primal problems with A = M, b = f,\n"
    "J = H^T, e = w; local problems (W, q, mu) become dual-form problems.\n"
    "Problems with an equality part (G, or V/R) and rolling friction are rejected.\n"
    "siconos: reads Siconos numerics .dat files (its test data, LMGC90's exports)\n"
    "with Siconos' own readers: local 3D friction-contact problems (W, q, mu) become\n"
    "dual-form problems, global ones (M, H, q, b, mu) primal problems with A = M,\n"
    "J = H^T, b = q, e = b. The files do not say which they hold: --form auto (the\n"
    "default) takes global for a name starting with GFC or containing 'global', local\n"
    "otherwise. 2D problems are refused. Needs mcbench built with Siconos numerics.\n"
    "Each problem is named after its file; two files with the same base name are\n"
    "refused. OUT must not be an input. Nothing is written unless every file\n"
    "converts. See docs/formats.md.\n";

static int cmd_import(int argc, char **argv)
{
    if (is_help(argc, argv)) return fputs(import_help, stdout), 0;
    int siconos = argc >= 2 && !strcmp(argv[1], "siconos");
    if (argc < 2 || (strcmp(argv[1], "fclib") != 0 && !siconos))
        return usage_error("import", "%s", "the formats are 'fclib' and 'siconos': mcbench import "
                           "fclib|siconos FILE... -o OUT.h5");
    if (siconos && !mcb_import_siconos_available()) {
        fprintf(stderr, "mcbench import: 'import siconos' reads .dat files with Siconos numerics' "
                "readers, and this mcbench was built without Siconos numerics (install the "
                "Debian package libsiconos-numerics-dev and rebuild)\n");
        return 1;
    }
    const char *out = NULL;
    int nfiles = 0, status = 0, po = 0, form = MCB_SICONOS_AUTO;
    char **files = calloc((size_t)argc, sizeof *files);
    if (!files) return 1;
    const char *const valued[] = {"-o", "--form", NULL};
    for (int k = 2; k < argc && !status; k++) {
        const char *a = argv[k], *v;
        int t = next_arg("import", argc, argv, &k, &po, valued, NULL, &v);
        if (t == ARG_ERR) status = EXIT_INPUT;
        else if (t == ARG_POS) files[nfiles++] = argv[k];
        else if (t == ARG_OPT && !strcmp(a, "-o")) out = v;
        else if (t == ARG_OPT && !siconos)
            status = usage_error("import", "%s", "--form is an option of 'import siconos'");
        else if (t == ARG_OPT && (form = mcb_siconos_form_from_name(v)) < 0)
            status = usage_error("import", "--form wants auto, local or global, got '%s'", v);
    }
    if (!status && (!out || nfiles == 0))
        status = usage_error("import", "%s", "needs FILE... and -o OUT.h5");
    mcb_err err;
    mcb_output o = {out, "-o"};
    mcb_rc rc = MCB_OK;
    if (!status && (rc = mcb_check_outputs((const char *const *)files, nfiles, &o, 1, 1, &err)))
        status = fail_rc(rc, &err);
    mcb_problem **P = status ? NULL : calloc((size_t)nfiles, sizeof *P);
    if (!status && !P) status = 1;
    for (int k = 0; k < nfiles && !status; k++) {
        rc = siconos ? mcb_import_siconos(files[k], form, &P[k], &err)
                     : mcb_import_fclib(files[k], &P[k], &err);
        if (rc) {
            status = fail_rc(rc, &err);
            break;
        }
        mcb_describe_store(P[k]); /* stored with the problem: campaigns read them */
        for (int j = 0; j < k && !status; j++)
            if (!strcmp(P[j]->name, P[k]->name)) {
                fprintf(stderr,
                        "mcbench: error: %s and %s both give the problem name '%s' (problems are "
                        "named after their files; names must be unique in a problem file)\n",
                        files[j], files[k], P[k]->name);
                status = EXIT_INPUT;
            }
    }
    if (!status && (rc = mcb_write_problems(out, P, nfiles, &err))) status = fail_rc(rc, &err);
    for (int k = 0; P && k < nfiles; k++) mcb_problem_free(&P[k]);
    free(P);
    free(files);
    if (!status) fprintf(stderr, "mcbench: wrote %d problem(s) to %s\n", nfiles, out);
    return status;
}

/* ----------------------------------------------------------------- export */

static const char *export_help =
    "usage: mcbench export fclib IN -o OUT.hdf5 [--problem NAME] [--form auto|global|local]\n"
    "       mcbench export fclib IN --all -o DIR [--form ...]   every problem, DIR/NAME.hdf5\n"
    "Writes a problem of an mcbench problem file as an FCLIB file with libfclib:\n"
    "a primal problem as /fclib_global (M = A, H = J^T, f = b, w = e), a dual one as\n"
    "/fclib_local (W, q); --form local writes a primal problem as /fclib_local with\n"
    "W = J A^-1 J^T and q = J A^-1 b + e (assembled sparse). FCLIB holds 3D Coulomb\n"
    "contacts only: problems with bilateral, unilateral, soft or contact_ccp blocks,\n"
    "or without a contact, are refused with the reason. IN with several problems\n"
    "needs --problem NAME or --all. Files are written under temporary names and\n"
    "renamed when complete; with --all nothing is written unless every problem can\n"
    "be expressed. See docs/formats.md.\n";

static int cmd_export(int argc, char **argv)
{
    if (is_help(argc, argv)) return fputs(export_help, stdout), 0;
    if (argc < 2 || strcmp(argv[1], "fclib") != 0)
        return usage_error("export", "%s", "the only format is 'fclib': mcbench export fclib IN.h5 "
                           "-o OUT.hdf5");
    const char *in = NULL, *out = NULL, *name = NULL;
    int all = 0, form = MCB_FCLIB_AUTO, po = 0;
    const char *const valued[] = {"-o", "--problem", "--form", NULL};
    const char *const flags[] = {"--all", NULL};
    for (int k = 2; k < argc; k++) {
        const char *a = argv[k], *v;
        int t = next_arg("export", argc, argv, &k, &po, valued, flags, &v);
        if (t == ARG_ERR) return EXIT_INPUT;
        if (t == ARG_POS) {
            if (in) return usage_error("export", "takes one IN.h5, got a second: %s", argv[k]);
            in = argv[k];
        }
        if (t != ARG_OPT) continue;
        if (!strcmp(a, "-o")) out = v;
        else if (!strcmp(a, "--problem")) name = v;
        else if (!strcmp(a, "--all")) all = 1;
        else if ((form = mcb_fclib_form_from_name(v)) < 0)
            return usage_error("export", "--form wants auto, global or local, got '%s'", v);
    }
    if (!in || !out) return usage_error("export", "%s", "needs IN.h5 and -o OUT.hdf5");
    if (all && name) return usage_error("export", "%s", "--all and --problem exclude each other");
    mcb_err err;
    mcb_problem_set *S = NULL;
    mcb_rc rc = read_source(in, &S, NULL, &err);
    if (rc) return fail_rc(rc, &err);
    /* the problems to write */
    int n = 0, status = 0;
    mcb_problem **sel = calloc((size_t)S->count + 1, sizeof *sel);
    if (!sel) status = 1;
    for (int p = 0; p < S->count && !status; p++)
        if (all || (name && !strcmp(S->items[p]->name, name)) || (!all && !name && S->count == 1))
            sel[n++] = S->items[p];
    if (!status && n == 0 && name) {
        fprintf(stderr, "mcbench: error: %s has no problem named '%s' (mcbench info %s lists "
                "them)\n", in, name, in);
        status = EXIT_INPUT;
    } else if (!status && n == 0) {
        fprintf(stderr, "mcbench: error: %s holds %d problems and an FCLIB file holds one: "
                "choose one with --problem NAME (mcbench info %s lists them) or write them all "
                "with --all -o DIR\n", in, S->count, in);
        status = EXIT_INPUT;
    }
    /* every problem must be expressible before anything is written */
    for (int p = 0; p < n && !status; p++) {
        char where[600];
        snprintf(where, sizeof where, "%s, problem '%s'", in, sel[p]->name);
        if ((rc = mcb_export_fclib_check(sel[p], form, where, NULL, &err)))
            status = fail_rc(rc, &err);
    }
    char **paths = status ? NULL : calloc((size_t)n + 1, sizeof *paths);
    mcb_output *outs = status ? NULL : calloc((size_t)n + 1, sizeof *outs);
    if (!status && (!paths || !outs)) status = 1;
    for (int p = 0; p < n && !status; p++) {
        size_t len = strlen(out) + strlen(sel[p]->name) + 16;
        if (all && (strchr(sel[p]->name, '/') || !strcmp(sel[p]->name, "..") ||
                    !strcmp(sel[p]->name, "."))) {
            fprintf(stderr, "mcbench: error: %s: the problem name '%s' cannot be a file name in "
                    "DIR: export it alone with --problem NAME -o OUT.hdf5\n", in, sel[p]->name);
            status = EXIT_INPUT;
        } else if (!(paths[p] = malloc(len))) status = 1;
        else if (all) snprintf(paths[p], len, "%s/%s.hdf5", out, sel[p]->name);
        else snprintf(paths[p], len, "%s", out);
        if (paths[p]) outs[p] = (mcb_output){paths[p], all ? "--all -o DIR" : "-o"};
    }
    const char *inputs[1] = {in};
    if (!status && (rc = mcb_check_outputs(inputs, 1, outs, n, 1, &err))) status = fail_rc(rc, &err);
    for (int p = 0; p < n && !status; p++)
        if ((rc = mcb_export_fclib(sel[p], form, paths[p], &err))) status = fail_rc(rc, &err);
    if (!status)
        fprintf(stderr, "mcbench: wrote %d FCLIB file(s)%s%s\n", n, all ? " in " : ": ", out);
    for (int p = 0; paths && p < n; p++) free(paths[p]);
    free(paths);
    free(outs);
    free(sel);
    mcb_problem_set_free(&S);
    return status;
}

/* -------------------------------------------------------------------- gen */

static const char *gen_help =
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
    "(min/median/max), wall seconds, file. Numbers must be finite.\n"
    "Example: mcbench gen stack --nx 5 --ny 5 --nz 5 --steps 10 -o stack.h5\n";

static void print_summary(void *ctx, const mcb_gen_summary *s)
{
    (void)ctx;
    char line[1400];
    mcb_gen_summary_line(s, line, sizeof line);
    printf("%s\n", line);
    fflush(stdout);
}

/* "stack, stir, ..." */
static void scene_names(char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < mcb_scene_count() && len < size; k++) {
        int w = snprintf(buf + len, size - len, "%s%s", k ? ", " : "", mcb_scene_at(k)->name);
        if (w > 0) len += (size_t)w;
    }
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

/* The shortest "%.*g" spelling that reads back as v. */
static const char *num_text(double v, char *buf, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15) { /* integers in full: 1000, not 1e+03 */
        snprintf(buf, size, "%.0f", v);
        return buf;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

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
               num_text(o->def, a, sizeof a), o->integer ? "an integer" : "a number",
               num_text(o->min, b, sizeof b), num_text(o->max, c, sizeof c));
    }
    return 0;
}

/* mcbench gen --set SET -o DIR */
static int gen_set(int argc, char **argv)
{
    const char *set = NULL, *out = NULL;
    const char *const valued[] = {"--set", "-o", NULL};
    int po = 0;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v;
        int t = next_arg("gen", argc, argv, &k, &po, valued, NULL, &v);
        if (t == ARG_ERR) return EXIT_INPUT;
        if (t == ARG_POS) return usage_error("gen", "unexpected argument '%s' with --set", a);
        if (t != ARG_OPT) continue;
        if (!strcmp(a, "--set")) set = v;
        else out = v;
    }
    if (!set || !out) return usage_error("gen", "%s", "--set needs SET and -o DIR");
    char path[4096];
    mcb_err err;
    mcb_set *S = NULL;
    mcb_rc rc = mcb_set_locate(set, path, sizeof path, &err);
    if (!rc) rc = mcb_set_read(path, &S, &err);
    double t0 = mcb_now_s();
    if (!rc) rc = mcb_set_build(S, out, print_summary, NULL, &err);
    int n = S ? S->count : 0;
    mcb_set_free(&S);
    if (rc) return fail_rc(rc, &err);
    fprintf(stderr, "mcbench: set %s: %d file(s) in %s (%.1f s)\n", set, n, out, mcb_now_s() - t0);
    return 0;
}

/* mcbench gen NAME [--opt V ...] -o FILE.h5 */
static int gen_scene(const mcb_scene_def *def, int argc, char **argv)
{
    const char *out = NULL;
    char **opts = calloc((size_t)argc, sizeof *opts);
    if (!opts) return 1;
    int nopts = 0, status = 0;
    for (int k = 2; k < argc && !status; k++) {
        if (!strcmp(argv[k], "-o")) {
            if (k + 1 >= argc) status = usage_error("gen", "%s", "option -o needs a value");
            else out = argv[++k];
        } else {
            opts[nopts++] = argv[k];
        }
    }
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err;
    mcb_rc rc = MCB_OK;
    if (!status && (rc = mcb_scene_parse(def, nopts, opts, vals, &err)))
        status = usage_error("gen", "%s", strncmp(err.msg, "gen ", 4) ? err.msg : err.msg + 4);
    free(opts);
    if (status) return status;
    if (!out) return usage_error("gen", "%s", "needs -o FILE.h5");
    mcb_output oo = {out, "-o"};
    if ((rc = mcb_check_outputs(NULL, 0, &oo, 1, 1, &err))) return fail_rc(rc, &err);
    double t0 = mcb_now_s();
    mcb_problem_set *S = NULL;
    rc = mcb_scene_generate(def, vals, &S, &err);
    if (!rc) rc = mcb_write_problems(out, S->items, S->count, &err);
    if (!rc) {
        mcb_gen_summary sum;
        mcb_gen_summarize(S, def->name, out, &sum);
        sum.wall_s = mcb_now_s() - t0;
        print_summary(NULL, &sum);
    }
    mcb_problem_set_free(&S);
    return rc ? fail_rc(rc, &err) : 0;
}

static int cmd_gen(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("gen", "%s", "needs a scene NAME, --set SET or --list");
    const char *first = argv[1];
    if (!strcmp(first, "--list")) {
        if (argc > 2) return usage_error("gen", "unexpected argument '%s' after --list", argv[2]);
        return gen_list();
    }
    for (int k = 1; k < argc; k++)
        if (!strcmp(argv[k], "--set")) return is_help(argc, argv) ? (fputs(gen_help, stdout), 0)
                                                                   : gen_set(argc, argv);
    if (first[0] == '-') {
        if (is_help(argc, argv)) return fputs(gen_help, stdout), 0;
        return usage_error("gen", "%s comes before a scene NAME (mcbench gen NAME [options] -o "
                           "FILE.h5)", first);
    }
    const mcb_scene_def *def = mcb_scene_find(first);
    if (!def) {
        char names[512];
        scene_names(names, sizeof names);
        fprintf(stderr, "mcbench gen: unknown scene '%s' (scenes: %s; see 'mcbench gen --list')\n",
                first, names);
        return EXIT_INPUT;
    }
    if (is_help(argc, argv)) return gen_scene_help(def);
    return gen_scene(def, argc, argv);
}

/* ---------------------------------------------------------------- solvers */

/* --plugin FILE.so (repeatable): each plugin's solver joins the registry. */
static int load_plugins(char **paths, int n)
{
    for (int k = 0; k < n; k++) {
        mcb_err err;
        mcb_rc rc = mcb_plugin_load(paths[k], NULL, &err);
        if (rc) return fail_rc(rc, &err);
    }
    return 0;
}

static int cmd_solvers(int argc, char **argv)
{
    if (is_help(argc, argv)) {
        puts("usage: mcbench solvers [--plugin FILE.so]...\nLists the registered solvers, the "
             "problem forms they accept, their parameters and defaults\n(set with 'mcbench run "
             "--param SOLVER.NAME=VALUE'), and the solvers of the plugins given.");
        return 0;
    }
    char **plugins = calloc((size_t)argc, sizeof *plugins);
    int nplugins = 0, po = 0, status = plugins ? 0 : 1;
    const char *const valued[] = {"--plugin", NULL};
    for (int k = 1; k < argc && !status; k++) {
        const char *v;
        int t = next_arg("solvers", argc, argv, &k, &po, valued, NULL, &v);
        if (t == ARG_ERR) status = EXIT_INPUT;
        else if (t == ARG_POS) status = usage_error("solvers", "unexpected argument '%s'", argv[k]);
        else if (t == ARG_OPT) plugins[nplugins++] = (char *)v;
    }
    if (!status) status = load_plugins(plugins, nplugins);
    free(plugins);
    for (int k = 0; k < mcb_solver_count() && !status; k++) {
        const mcb_solver_def *d = mcb_solver_at(k);
        printf("%s: %s\n  reference: %s\n  accepts: %s%s%s\n", d->name, d->description,
               d->reference, d->accepts & MCB_ACCEPTS_PRIMAL ? "primal" : "",
               d->accepts == (MCB_ACCEPTS_PRIMAL | MCB_ACCEPTS_DUAL) ? ", " : "",
               d->accepts & MCB_ACCEPTS_DUAL ? "dual" : "");
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
    }
    return status;
}

/* -------------------------------------------------------------------- run */

static const char *run_help =
    "usage: mcbench run FILE... -o RESULTS.h5 [options]\n"
    "A FILE is an mcbench problem file (its problems are one problem set) or an FCLIB\n"
    "file (its one problem, imported in memory exactly as 'import fclib' does, a set\n"
    "named after the file's stem; its SHA-256 is recorded in the results).\n"
    "Runs every selected solver on every problem with the same budget; the harness\n"
    "judges every run with its own metrics. Writes RESULTS.h5 and a flat CSV (the\n"
    "directory is created if needed). No output may be an input, a directory or the\n"
    "other output; all are checked before any work starts. Each finished run is\n"
    "appended at once to RESULTS.h5.journal, so a killed campaign loses nothing:\n"
    "continue it with --resume; the results file and CSV appear when it completes.\n"
    "  --solvers a,b,...    solvers to run, each once (default: all registered; see\n"
    "                       'mcbench solvers')\n"
    "  --plugin FILE.so     load a solver plugin (repeatable; docs/api.md): its solver\n"
    "                       is registered under its own name, for --solvers and --param;\n"
    "                       a plugin built for another solver interface version, without\n"
    "                       the mcb_plugin symbol or clashing with a solver's name is\n"
    "                       refused (exit 2); --isolate auto runs it in a child process\n"
    "  --iters N            iteration budget (default 5000)\n"
    "  --time-limit S       wall-clock budget per run in seconds, setup included (default 30;\n"
    "                       0: none; solvers that cannot be stopped, the siconos_* peers,\n"
    "                       are held to it after the fact)\n"
    "  --tol T              tolerance on the stop metric, finite, >= 0 (default 1e-8)\n"
    "  --stop-metric NAME   natmap (default), fb, fb_max, zres, dyn_abs, dyn_rel\n"
    "  --law LAW            the contact law every solution is judged by: ncp (default:\n"
    "                       each block by its stored type, contacts by Signorini-Coulomb)\n"
    "                       or ccp (every contact as cone complementarity, contact_ccp);\n"
    "                       natmap_ncp and natmap_ccp report both laws for every run\n"
    "  --formulation NAME   the subproblem each solver receives (docs/formulations.md):\n"
    "                       ncp (default: the stored problem), ccp, lcp-st, lcp-ap, mlcp;\n"
    "                       solutions are mapped back and judged on the stored problem\n"
    "  --friction-directions N  n_d of the LCP formulations' polygonal cone (default 8)\n"
    "  --check-every K      when the stop metric is judged during a solve: auto (default:\n"
    "                       every iteration at first, then at a stride from the measured\n"
    "                       cost of a check, at most 1% of the iterations done), never\n"
    "                       (only the final iterate), or every K-th iteration (1: exact)\n"
    "  --trace-every K      a trace row (all metrics) every K-th iteration (default checks:\n"
    "                       at every check; 0: final only)\n"
    "  --timing MODE        auto (default: an unobserved rerun to the same iteration count\n"
    "                       when measuring may have distorted a solved run's time),\n"
    "                       observed, or clean (always rerun: exact, for publication)\n"
    "  --repeat R           timed repetitions per run (default 1)\n"
    "  --problems GLOB      only problems whose name (or SET/NAME) matches (repeatable)\n"
    "  --exclude GLOB       leave out problems whose name (or SET/NAME) matches (repeatable)\n"
    "  --resume RESULTS.h5  continue a killed or extended campaign: runs recorded there or\n"
    "                       in its journal with the same budgets and parameters are kept,\n"
    "                       the others run (different budgets are an error); implies -o\n"
    "  --shard I/N          only part I (0-based) of N of the run list, balanced by\n"
    "                       estimated cost (merge the parts with 'mcbench merge')\n"
    "  --isolate MODE       run each run in a forked child: auto (default: solvers that\n"
    "                       cannot be stopped and plugins, solvers from outside mcbench),\n"
    "                       always, never. A crash, a hang or the memory limit costs that\n"
    "                       run only (status crashed or time-limit); a child is killed at\n"
    "                       twice the time limit plus 10 s\n"
    "  --mem-limit MB       memory an isolated run may add (default half the physical\n"
    "                       memory; 0: none)\n"
    "  --describe auto|never  difficulty descriptors of every problem into the results\n"
    "                       (docs/describe.md), computed once after the runs (default\n"
    "                       auto: cond(W) and rank skipped above 60000 rows)\n"
    "  --mpi                under mpirun: rank 0 hands out runs and writes the results,\n"
    "                       the other ranks solve\n"
    "  --threads T          OpenMP and OpenBLAS threads (default 1)\n"
    "  --warm-start         start from the problem's initial guess when it has one\n"
    "  --save-solutions     store the final (v, lambda) of every run\n"
    "  --param S.NAME=VAL   set a solver parameter (repeatable; finite numbers, checked\n"
    "                       against the solver's ranges)\n"
    "  --csv PATH           CSV path (default: RESULTS.csv, the -o path with .csv for\n"
    "                       its extension)\n"
    "  --quick              a small budget for smoke runs (500 iterations, 10 s)\n"
    "Input files must be distinct and have distinct base names (the problem set name).\n";

/* --solvers a,b,...: every name known, none twice, at least one. */
static int parse_solvers(const char *list, mcb_solver_choice *choice, int cap, int *ns)
{
    *ns = 0;
    if (!list) {
        for (int k = 0; k < mcb_solver_count() && k < cap; k++) choice[(*ns)++].def = mcb_solver_at(k);
        return 0;
    }
    if (!*list) return usage_error("run", "%s", "--solvers is empty: name at least one solver");
    const char *p = list;
    while (1) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char name[128];
        if (len == 0) return usage_error("run", "--solvers '%s' has an empty name", list);
        snprintf(name, sizeof name, "%.*s", (int)(len < 127 ? len : 127), p);
        const mcb_solver_def *d = mcb_solver_find(name);
        if (!d) return usage_error("run", "unknown solver '%s' (see 'mcbench solvers')", name);
        for (int s = 0; s < *ns; s++)
            if (choice[s].def == d)
                return usage_error("run", "solver '%s' is listed twice in --solvers (use --repeat "
                                          "for repetitions)", name);
        if (*ns == cap) return usage_error("run", "%s", "too many solvers");
        choice[(*ns)++].def = d;
        if (!comma) break;
        p = comma + 1;
    }
    return 0;
}

/* --param S.NAME=VAL for a selected solver, then each solver's own check. */
static int apply_params(char **params, int nparams, mcb_solver_choice *choice, int ns)
{
    for (int p = 0; p < nparams; p++) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", params[p]);
        char *dot = strchr(buf, '.'), *eq = strchr(buf, '=');
        if (!dot || !eq || eq < dot)
            return usage_error("run", "--param wants SOLVER.NAME=VALUE, got '%s'", params[p]);
        *dot = *eq = '\0';
        int found = 0;
        for (int s = 0; s < ns; s++)
            if (!strcmp(choice[s].def->name, buf)) {
                mcb_err err;
                found = 1;
                if (mcb_param_set(choice[s].def, choice[s].params, dot + 1, eq + 1, &err))
                    return usage_error("run", "%s", err.msg);
            }
        if (!found)
            return usage_error("run", "--param names solver '%s', which is not selected", buf);
    }
    for (int s = 0; s < ns; s++) {
        mcb_err err;
        if (choice[s].def->check_params && choice[s].def->check_params(choice[s].params, &err))
            return usage_error("run", "%s", err.msg);
    }
    return 0;
}

/* The problem set name of an input: its base name without extension. */
/* Two spellings of one output: the same file when both exist, else the same
 * text. */
static int same_output(const char *a, const char *b)
{
    return !strcmp(a, b) || mcb_same_file(a, b);
}

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

static int cmd_run(int argc, char **argv)
{
    if (is_help(argc, argv)) return fputs(run_help, stdout), 0;
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 5000;
    o.settings.time_limit_s = 30.0;
    const char *out = NULL, *csv = NULL, *solver_list = NULL;
    char **files = calloc((size_t)argc, sizeof *files);
    char **params = calloc((size_t)argc, sizeof *params);
    char **plugins = calloc((size_t)argc, sizeof *plugins);
    const char **include = calloc((size_t)argc, sizeof *include);
    const char **exclude = calloc((size_t)argc, sizeof *exclude);
    int nfiles = 0, nparams = 0, nplugins = 0, status = 0, po = 0;
    mcb_campaign C;
    memset(&C, 0, sizeof C);
    C.mem_limit_mb = mcb_default_mem_limit_mb();
    C.grace_s = 10.0;
    C.include = include;
    C.exclude = exclude;
    const char *resume = NULL;
    if (!files || !params || !plugins || !include || !exclude) {
        free(files);
        free(params);
        free(plugins);
        free(include);
        free(exclude);
        return 1;
    }
    const char *const valued[] = {"-o", "--csv", "--solvers", "--iters", "--time-limit", "--tol",
                                  "--trace-every", "--repeat", "--threads", "--param",
                                  "--stop-metric", "--check-every", "--timing", "--problems",
                                  "--exclude", "--resume", "--shard", "--isolate", "--mem-limit",
                                  "--law", "--describe", "--plugin", "--formulation",
                                  "--friction-directions", NULL};
    const char *const flags[] = {"--warm-start", "--save-solutions", "--quick", "--mpi", NULL};
    for (int k = 1; k < argc && !status; k++) {
        const char *a = argv[k], *v;
        int t = next_arg("run", argc, argv, &k, &po, valued, flags, &v);
        if (t == ARG_ERR) {
            status = EXIT_INPUT;
            break;
        }
        if (t == ARG_POS) files[nfiles++] = argv[k];
        if (t != ARG_OPT) continue;
        int bad = 0;
        if (!strcmp(a, "--warm-start")) o.settings.warm_start = 1;
        else if (!strcmp(a, "--save-solutions")) o.save_solutions = 1;
        else if (!strcmp(a, "--quick")) {
            o.settings.max_iters = 500;
            o.settings.time_limit_s = 10.0;
        } else if (!strcmp(a, "-o")) out = v;
        else if (!strcmp(a, "--csv")) csv = v;
        else if (!strcmp(a, "--solvers")) solver_list = v;
        else if (!strcmp(a, "--iters")) bad = parse_int(v, 1, 100000000, &o.settings.max_iters);
        else if (!strcmp(a, "--time-limit")) bad = parse_double(v, 0.0, &o.settings.time_limit_s);
        else if (!strcmp(a, "--tol")) bad = parse_double(v, 0.0, &o.settings.tol);
        else if (!strcmp(a, "--trace-every")) {
            if (!strcmp(v, "checks")) o.trace_every = MCB_TRACE_CHECKS;
            else bad = parse_int(v, 0, 100000000, &o.trace_every);
        } else if (!strcmp(a, "--check-every")) {
            if (!strcmp(v, "auto")) o.check_every = MCB_CHECK_AUTO;
            else if (!strcmp(v, "never")) o.check_every = MCB_CHECK_NEVER;
            else bad = parse_int(v, 1, 100000000, &o.check_every);
        } else if (!strcmp(a, "--timing")) {
            o.timing = mcb_timing_from_name(v);
            bad = o.timing < 0;
        }
        else if (!strcmp(a, "--repeat")) bad = parse_int(v, 1, 1000, &o.repeat);
        else if (!strcmp(a, "--threads")) bad = parse_int(v, 1, 1024, &o.settings.threads);
        else if (!strcmp(a, "--param")) params[nparams++] = (char *)v;
        else if (!strcmp(a, "--plugin")) plugins[nplugins++] = (char *)v;
        else if (!strcmp(a, "--problems")) include[C.ninclude++] = v;
        else if (!strcmp(a, "--exclude")) exclude[C.nexclude++] = v;
        else if (!strcmp(a, "--resume")) resume = v;
        else if (!strcmp(a, "--mpi")) C.mpi = 1;
        else if (!strcmp(a, "--mem-limit")) bad = parse_double(v, 0.0, &C.mem_limit_mb);
        else if (!strcmp(a, "--describe")) bad = (C.describe_never = !strcmp(v, "never")) == 0 && strcmp(v, "auto");
        else if (!strcmp(a, "--isolate")) {
            const char *modes[] = {"auto", "always", "never"};
            C.isolate = -1;
            for (int m = 0; m < 3; m++)
                if (!strcmp(v, modes[m])) C.isolate = m;
            bad = C.isolate < 0;
        } else if (!strcmp(a, "--shard")) {
            int i = -1, n = 0, used = 0;
            bad = sscanf(v, "%d/%d%n", &i, &n, &used) != 2 || v[used] || n < 1 || i < 0 || i >= n;
            if (bad) {
                status = usage_error("run", "--shard wants I/N with 0 <= I < N, got '%s'", v);
                break;
            }
            C.shard = i;
            C.nshards = n;
        } else if (!strcmp(a, "--stop-metric")) {
            o.stop_metric = mcb_metric_from_name(v);
            bad = o.stop_metric < 0 || !mcb_metric_is_residual(o.stop_metric);
        } else if (!strcmp(a, "--law")) {
            o.law = mcb_law_from_name(v);
            bad = o.law < 0;
        } else if (!strcmp(a, "--formulation")) {
            o.formulation = mcb_formulation_from_name(v);
            bad = o.formulation < 0;
        } else if (!strcmp(a, "--friction-directions"))
            bad = parse_int(v, 3, MCB_FRICTION_DIRS_MAX, &o.friction_dirs);
        if (bad) status = usage_error("run", "bad value for %s", a);
    }
    if (!status && resume && out && !same_output(resume, out))
        status = usage_error("run", "--resume %s and -o name different files: --resume writes to "
                             "the file it continues", resume);
    if (!status && resume) out = resume;
    if (!status && !out) status = usage_error("run", "%s", "needs -o RESULTS.h5");
    if (!status && nfiles == 0) status = usage_error("run", "%s", "needs at least one FILE.h5");

    /* solvers and their parameters */
    int ns = 0;
    mcb_solver_choice choice[64];
    memset(choice, 0, sizeof choice);
    if (!status) status = load_plugins(plugins, nplugins);
    if (!status) status = parse_solvers(solver_list, choice, 64, &ns);
    for (int s = 0; s < ns && !status; s++) {
        choice[s].params = calloc(1, choice[s].def->params_size + sizeof(double));
        if (!choice[s].params) status = 1;
        else choice[s].def->default_params(choice[s].params);
    }
    if (!status) status = apply_params(params, nparams, choice, ns);

    /* inputs: distinct files with distinct set names */
    mcb_source_info *src = NULL;
    mcb_input *in = calloc((size_t)nfiles + 1, sizeof *in);
    char **names = calloc((size_t)nfiles + 1, sizeof *names);
    if (!in || !names) status = status ? status : 1;
    for (int f = 0; f < nfiles && !status; f++) {
        if (!(names[f] = set_name_of(files[f]))) status = 1;
        for (int g = 0; g < f && !status; g++) {
            if (mcb_same_file(files[f], files[g]))
                status = usage_error("run", "input %s is given twice", files[f]);
            else if (!strcmp(names[f], names[g])) {
                fprintf(stderr,
                        "mcbench run: inputs %s and %s have the same problem set name '%s' (the "
                        "file's base name, which identifies its runs in the results): rename "
                        "one\n", files[g], files[f], names[f]);
                status = EXIT_INPUT;
            }
        }
        in[f].set_name = names[f];
    }

    /* outputs: checked against the inputs and each other before any work */
    char csv_default[4200];
    if (!status && !csv) {
        mcb_path_with_ext(out, ".csv", csv_default, sizeof csv_default);
        csv = csv_default;
    }
    if (!status) {
        char jpath[4200];
        mcb_journal_path(out, jpath, sizeof jpath);
        mcb_output outs[3] = {{out, resume ? "--resume" : "-o"},
                              {csv, csv == csv_default ? "the CSV named after -o" : "--csv"},
                              {jpath, "the journal named after -o"}};
        mcb_err err;
        mcb_rc rc = mcb_check_outputs((const char *const *)files, nfiles, outs, 3, 1, &err);
        if (rc) status = fail_rc(rc, &err);
    }

    /* read and validate everything before running anything */
    if (!status) {
        mcb_problem_set **sets = calloc((size_t)nfiles + 1, sizeof *sets);
        src = calloc((size_t)nfiles + 1, sizeof *src);
        mcb_err err;
        mcb_rc rc = sets && src ? mcb_read_sources((const char *const *)files, nfiles, sets, src,
                                                   &err)
                                : mcb_fail(&err, MCB_E_NOMEM, "out of memory");
        if (rc) status = fail_rc(rc, &err);
        for (int f = 0; f < nfiles && !rc; f++) {
            in[f].problems = sets[f];
            in[f].path = files[f];
            in[f].kind = mcb_source_kind_name(src[f].kind);
            in[f].sha256 = src[f].sha256;
        }
        free(sets);
    }
    if (!status) {
        char cmdline[4096] = "mcbench";
        size_t off = strlen(cmdline);
        for (int k = 0; k < argc && off < sizeof cmdline; k++)
            off += (size_t)snprintf(cmdline + off, sizeof cmdline - off, " %s", argv[k]);
        C.in = in;
        C.nin = nfiles;
        C.solvers = choice;
        C.nsolvers = ns;
        C.o = &o;
        C.command = cmdline;
        C.h5_path = out;
        C.csv_path = csv;
        C.resume = resume != NULL;
        C.tty = isatty(STDERR_FILENO);
        mcb_err err;
        mcb_rc rc = C.mpi ? mcb_mpi_campaign(&C, &err) : mcb_campaign_run(&C, &err);
        if (rc == MCB_MPI_WORKER_DONE) rc = MCB_OK;
        else if (rc) status = fail_rc(rc, &err);
        else fprintf(stderr, "mcbench: results in %s and %s\n", out, csv);
    }
    for (int f = 0; in && f < nfiles; f++) mcb_problem_set_free(&in[f].problems);
    free(src);
    for (int f = 0; names && f < nfiles; f++) free(names[f]);
    for (int s = 0; s < ns; s++) free(choice[s].params);
    free(in);
    free(names);
    free(files);
    free(params);
    free(plugins);
    free(include);
    free(exclude);
    return status;
}

/* ------------------------------------------------------------------ merge */

static const char *merge_help =
    "usage: mcbench merge PART.h5... -o ALL.h5 [--csv PATH]\n"
    "Joins the results files of one campaign's parts (mcbench run --shard I/N, or\n"
    "parts run on different machines) into one results file and CSV, in the order of\n"
    "the campaign's run list; 'mcbench report' reads it like any other. The parts must\n"
    "come from one mcbench revision with the same settings; a run in two parts, or two\n"
    "parts disagreeing on the run list, is an error. Nothing is written on error.\n";

static int cmd_merge(int argc, char **argv)
{
    if (is_help(argc, argv)) return fputs(merge_help, stdout), 0;
    const char *out = NULL, *csv = NULL;
    const char **parts = calloc((size_t)argc, sizeof *parts);
    if (!parts) return 1;
    const char *const valued[] = {"-o", "--csv", NULL};
    int po = 0, n = 0, status = 0;
    for (int k = 1; k < argc && !status; k++) {
        const char *a = argv[k], *v;
        int t = next_arg("merge", argc, argv, &k, &po, valued, NULL, &v);
        if (t == ARG_ERR) status = EXIT_INPUT;
        else if (t == ARG_POS) parts[n++] = argv[k];
        else if (t == ARG_OPT && !strcmp(a, "-o")) out = v;
        else if (t == ARG_OPT) csv = v;
    }
    if (!status && (!out || n == 0))
        status = usage_error("merge", "%s", "needs at least one PART.h5 and -o ALL.h5");
    char csv_default[4200];
    if (!status && !csv) {
        mcb_path_with_ext(out, ".csv", csv_default, sizeof csv_default);
        csv = csv_default;
    }
    mcb_err err;
    if (!status) {
        for (int k = 0; k < n && !status; k++)
            for (int j = 0; j < k && !status; j++)
                if (mcb_same_file(parts[k], parts[j]))
                    status = usage_error("merge", "part %s is given twice", parts[k]);
    }
    if (!status) {
        mcb_output outs[2] = {{out, "-o"}, {csv, csv == csv_default ? "the CSV named after -o" : "--csv"}};
        mcb_rc rc = mcb_check_outputs(parts, n, outs, 2, 1, &err);
        if (rc) status = fail_rc(rc, &err);
    }
    if (!status) {
        mcb_rc rc = mcb_merge(parts, n, out, csv, &err);
        if (rc) status = fail_rc(rc, &err);
        else fprintf(stderr, "mcbench: %d parts merged into %s and %s\n", n, out, csv);
    }
    free(parts);
    return status;
}

/* --------------------------------------------------------------- describe */

static const char *describe_help =
    "usage: mcbench describe FILE... [-o OUT.csv] [--steps K] [--max-rows N] [--no-rank]\n"
    "                        [--recompute]\n"
    "Difficulty descriptors of every problem (docs/describe.md): DOFs, rows, contacts,\n"
    "rows per DOF, the rank deficiency of J (SuiteSparseQR; a rank stored by gen stack\n"
    "or import is used as is unless --recompute), mu min/median/max, cond(W) over its\n"
    "nonzero spectrum (Lanczos on W = J A^-1 J^T, at most K steps, default 80; an\n"
    "estimate stored by the scene engine, gen stack or import is used as is unless\n"
    "--recompute), the largest mass ratio and, for a dual problem, psd_defect: how\n"
    "far W is from positive semidefinite, -lambda_min(W) / ||W||_2 (0: W is to working\n"
    "precision; stored by import, else shifted sparse Cholesky). Problems above N rows\n"
    "(default 60000) get no cond(W), no rank and no computed psd_defect. Prints a\n"
    "table; -o also writes the descriptors as CSV.\n";

static void describe_row(const char *file, const mcb_problem *P, const mcb_descriptors *d)
{
    char rank[32], mu[64];
    if (d->rank_def >= 0) snprintf(rank, sizeof rank, "%d", d->rank_def);
    else snprintf(rank, sizeof rank, "-");
    if (d->contacts) snprintf(mu, sizeof mu, "%.3g/%.3g/%.3g", d->mu_min, d->mu_med, d->mu_max);
    else snprintf(mu, sizeof mu, "-");
    char rpd[32], cond[32], mass[32], psd[32];
    snprintf(rpd, sizeof rpd, isfinite(d->rows_per_dof) ? "%.3g" : "-", d->rows_per_dof);
    snprintf(psd, sizeof psd, isfinite(d->psd_defect) ? "%.2g" : "-", d->psd_defect);
    snprintf(cond, sizeof cond, isfinite(d->cond_w) ? "%.4g" : "-", d->cond_w);
    snprintf(mass, sizeof mass, isfinite(d->mass_ratio) ? "%.4g" : "-", d->mass_ratio);
    printf("%-20.20s %-28.28s %-6s %7d %7d %6d %8s %8s %-17s %10s %-8s %10s %-10s %s\n", file,
           P->name, mcb_form_name(d->form), d->n, d->m, d->contacts, rpd, rank, mu, cond,
           mcb_desc_from_name(d->cond_from), mass, mcb_desc_from_name(d->mass_from), psd);
}

static int cmd_describe(int argc, char **argv)
{
    if (is_help(argc, argv)) return fputs(describe_help, stdout), 0;
    char **files = calloc((size_t)argc, sizeof *files);
    if (!files) return 1;
    const char *out = NULL;
    mcb_describe_opts o;
    mcb_describe_defaults(&o);
    const char *const valued[] = {"-o", "--steps", "--max-rows", NULL};
    const char *const flags[] = {"--no-rank", "--recompute", NULL};
    int po = 0, nfiles = 0, status = 0;
    for (int k = 1; k < argc && !status; k++) {
        const char *a = argv[k], *v;
        int t = next_arg("describe", argc, argv, &k, &po, valued, flags, &v);
        if (t == ARG_ERR) status = EXIT_INPUT;
        else if (t == ARG_POS) files[nfiles++] = argv[k];
        else if (t != ARG_OPT) continue;
        else if (!strcmp(a, "-o")) out = v;
        else if (!strcmp(a, "--no-rank")) o.rank = 0;
        else if (!strcmp(a, "--recompute")) o.use_stored = 0;
        else if (!strcmp(a, "--steps") && parse_int(v, 1, 10000, &o.lanczos_steps))
            status = usage_error("describe", "--steps wants an integer in 1..10000, got '%s'", v);
        else if (!strcmp(a, "--max-rows") && parse_int(v, 0, 2000000000, &o.max_rows))
            status = usage_error("describe", "--max-rows wants an integer >= 0, got '%s'", v);
    }
    if (!status && nfiles == 0) status = usage_error("describe", "%s", "needs at least one FILE");
    FILE *csv = NULL;
    if (!status && out && !(csv = fopen(out, "w"))) {
        fprintf(stderr, "mcbench: error: cannot write %s: %s\n", out, strerror(errno));
        status = 1;
    }
    if (csv) fprintf(csv, "file,problem,%s\n", mcb_describe_csv_header());
    if (!status)
        printf("%-20s %-28s %-6s %7s %7s %6s %8s %8s %-17s %10s %-8s %10s %-10s %s\n", "file",
               "problem", "form", "dofs", "rows", "cont", "rows/dof", "rank_def", "mu min/med/max",
               "cond(W)", "from", "mass_ratio", "from", "psd_defect");
    for (int k = 0; k < nfiles && !status; k++) {
        mcb_problem_set *S = NULL;
        mcb_err err;
        mcb_rc rc = read_source(files[k], &S, NULL, &err);
        if (rc) status = fail_rc(rc, &err);
        for (int p = 0; S && p < S->count && !status; p++) {
            mcb_descriptors d;
            if ((rc = mcb_describe(S->items[p], &o, &d, &err))) {
                status = fail_rc(rc, &err);
                break;
            }
            char *base = strrchr(files[k], '/');
            describe_row(base ? base + 1 : files[k], S->items[p], &d);
            char row[1024];
            if (csv) fprintf(csv, "%s,%s,%s\n", files[k], S->items[p]->name,
                             mcb_describe_csv_row(&d, row, sizeof row));
        }
        mcb_problem_set_free(&S);
    }
    if (csv && fclose(csv) && !status) {
        fprintf(stderr, "mcbench: error: cannot write %s\n", out);
        status = 1;
    }
    free(files);
    return status;
}

/* ---------------------------------------------------------------- compare */

static const char *compare_help =
    "usage: mcbench compare OLD.h5 NEW.h5 [-o DIR] [--time-tol F] [--iter-tol F]\n"
    "Two campaigns of the same problems (e.g. two revisions of a solver): per solver\n"
    "and problem the change in status, iterations and solve time, with the spread of\n"
    "the repetitions (--repeat), and a flag on every change larger than the noise\n"
    "(docs/compare.md): any status change; iterations changed by more than --iter-tol\n"
    "(default 0.01, relative); a time ratio NEW/OLD outside both campaigns' min-max\n"
    "spread and off by more than --time-tol (default 0.10). Prints a Markdown table;\n"
    "-o DIR writes DIR/compare.md, DIR/compare.csv and the plot DIR/compare.png\n"
    "(gnuplot: time ratio per problem and solver, log scale). Refuses two files with\n"
    "no problem or no solver in common, naming those in one file only. Exits 0 either\n"
    "way when the comparison is made; 3 when something is flagged and --fail-on-flag.\n";

static int cmd_compare(int argc, char **argv)
{
    if (is_help(argc, argv)) return fputs(compare_help, stdout), 0;
    const char *in[2] = {NULL, NULL}, *dir = NULL;
    mcb_compare_opts o;
    mcb_compare_defaults(&o);
    int fail_on_flag = 0;
    const char *const valued[] = {"-o", "--time-tol", "--iter-tol", NULL};
    const char *const flags[] = {"--fail-on-flag", NULL};
    int po = 0, n = 0;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v;
        int t = next_arg("compare", argc, argv, &k, &po, valued, flags, &v);
        if (t == ARG_ERR) return EXIT_INPUT;
        if (t == ARG_POS) {
            if (n == 2) return usage_error("compare", "takes two results files, got a third: %s", a);
            in[n++] = a;
        } else if (t != ARG_OPT) {
            continue;
        } else if (!strcmp(a, "-o")) {
            dir = v;
        } else if (!strcmp(a, "--fail-on-flag")) {
            fail_on_flag = 1;
        } else if (parse_double(v, 0.0, !strcmp(a, "--time-tol") ? &o.time_tol : &o.iter_tol)) {
            return usage_error("compare", "wants a finite number >= 0, got '%s'", v);
        }
    }
    if (n != 2) return usage_error("compare", "%s", "needs OLD.h5 and NEW.h5");
    mcb_err err;
    int flagged = 0;
    mcb_rc rc = mcb_compare(in[0], in[1], dir, stdout, &o, &flagged, &err);
    if (rc) return fail_rc(rc, &err);
    if (dir) fprintf(stderr, "mcbench: comparison in %s/compare.md\n", dir);
    return fail_on_flag && flagged ? 3 : 0;
}

/* ----------------------------------------------------------------- report */

static int cmd_report(int argc, char **argv)
{
    if (is_help(argc, argv)) {
        puts("usage: mcbench report RESULTS.h5 -o DIR   (RESULTS.h5.journal: an unfinished campaign)\n"
             "Writes per problem set and over all sets: residual against iteration and against\n"
             "solver time, Dolan-More performance profiles (time to tolerance, iterations)\n"
             "and a data profile (gnuplot PNG and SVG), a table per solver and a per-problem\n"
             "table (Markdown, CSV), and DIR/index.html\n"
             "showing them all (DIR is created if needed; index.html appears only when the\n"
             "whole report is complete). Needs gnuplot on PATH (Debian package gnuplot-nox).");
        return 0;
    }
    const char *in = NULL, *out = NULL;
    const char *const valued[] = {"-o", NULL};
    int po = 0;
    for (int k = 1; k < argc; k++) {
        const char *v;
        int t = next_arg("report", argc, argv, &k, &po, valued, NULL, &v);
        if (t == ARG_ERR) return EXIT_INPUT;
        if (t == ARG_OPT) out = v;
        if (t == ARG_POS) {
            if (in) return usage_error("report", "takes one RESULTS.h5, got a second: %s", argv[k]);
            in = argv[k];
        }
    }
    if (!in || !out) return usage_error("report", "%s", "needs RESULTS.h5 and -o DIR");
    mcb_err err;
    mcb_rc rc = mcb_report(in, out, NULL, &err);
    if (rc) return fail_rc(rc, &err);
    fprintf(stderr, "mcbench: report in %s/index.html\n", out);
    return 0;
}

static const char *main_help =
    "usage: mcbench COMMAND [ARGS]   (mcbench COMMAND --help for details)\n"
    "  info      describe problem files\n"
    "  validate  check problem files\n"
    "  import    convert FCLIB or Siconos files (mcbench import fclib|siconos ...)\n"
    "  export    write a problem as FCLIB (mcbench export fclib ...)\n"
    "  gen       generate a scene or a problem set (mcbench gen --list)\n"
    "  record    record a simulator's steps (mcbench record mujoco MODEL.xml ...)\n"
    "  run       run solvers on problems with identical budgets\n"
    "  merge     join the results files of a campaign's parts\n"
    "  report    plots and tables from a results file\n"
    "  compare   two campaigns of the same problems: changes beyond the noise\n"
    "  describe  difficulty descriptors of problems (rank of J, mu, cond(W), ...)\n"
    "  solvers   list solvers and their parameters\n";

int main(int argc, char **argv)
{
    mcb_tmp_install_handlers();
    atexit(mcb_plugin_unload_all); /* plugins loaded by run or solvers */
    if (argc < 2) {
        fputs(main_help, stderr);
        return EXIT_INPUT;
    }
    const char *c = argv[1];
    if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help"))
        return fputs(main_help, stdout), 0;
    if (!strcmp(c, "info")) return cmd_info(argc - 1, argv + 1);
    if (!strcmp(c, "validate")) return cmd_validate(argc - 1, argv + 1);
    if (!strcmp(c, "import")) return cmd_import(argc - 1, argv + 1);
    if (!strcmp(c, "export")) return cmd_export(argc - 1, argv + 1);
    if (!strcmp(c, "gen")) return cmd_gen(argc - 1, argv + 1);
    if (!strcmp(c, "record")) return cmd_record(argc - 1, argv + 1);
    if (!strcmp(c, "run")) return cmd_run(argc - 1, argv + 1);
    if (!strcmp(c, "report")) return cmd_report(argc - 1, argv + 1);
    if (!strcmp(c, "merge")) return cmd_merge(argc - 1, argv + 1);
    if (!strcmp(c, "describe")) return cmd_describe(argc - 1, argv + 1);
    if (!strcmp(c, "compare")) return cmd_compare(argc - 1, argv + 1);
    if (!strcmp(c, "solvers")) return cmd_solvers(argc - 1, argv + 1);
    fprintf(stderr, "mcbench: unknown command '%s'\n%s", c, main_help);
    return EXIT_INPUT;
}

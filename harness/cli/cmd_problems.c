/* cmd_problems.c: the commands on problem files: info, validate and
 * describe read them; import, export and record convert them (gen, which
 * makes them, is cmd_gen.c). */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "metrics/describe.h"
#include "problems/export_fclib.h"
#include "problems/import_siconos.h"
#include "lib/mcb_io.h"
#include "lib/mcb_paths.h"
#include "lib/mcb_timer.h"
#include "problems/import_fclib.h"
#include "problems/record_mujoco.h"
#include "problems/sets.h"

int cli_fail(mcb_rc rc, const mcb_err *err)
{
    fprintf(stderr, "mcbench: error: %s\n", err->msg);
    return rc == MCB_E_INPUT ? MCB_CLI_EXIT_INPUT : 1;
}

mcb_rc cli_read_source(const char *path, mcb_problem_set **S, mcb_source_info *info, mcb_err *err)
{
    return mcb_read_sources(&path, 1, S, info, err);
}

/* Parses a command that takes FILE... and the options of c; MCB_CLI_GO_ON
 * with at least one FILE in p, else the exit status. */
static int files_cmd(const mcb_cli_cmd *c, int argc, char **argv, void *target, mcb_cli_args *p)
{
    int status = mcb_cli_parse(c, argc, argv, target, p);
    if (status == MCB_CLI_GO_ON && p->npos == 0) {
        mcb_cli_free(c, target, p);
        status = mcb_cli_usage_error(c->name, "needs at least one FILE");
    }
    return status;
}

/* ------------------------------------------------------------------- info */

static const mcb_cli_cmd info_cmd = {
    "info",
    "usage: mcbench info FILE...\n"
    "Reads and validates each problem file and prints one line per problem:\n"
    "name, form, n, m, blocks per type, subsystems, metadata. A FILE is an mcbench\n"
    "problem file or an FCLIB file (imported in memory as 'import fclib' does; its\n"
    "SHA-256 is printed).\n",
    NULL, NULL, 0};

int cmd_info(int argc, char **argv)
{
    mcb_cli_args p;
    int status = files_cmd(&info_cmd, argc, argv, NULL, &p);
    if (status != MCB_CLI_GO_ON) return status;
    status = 0;
    for (int k = 0; k < p.npos && !status; k++) {
        mcb_problem_set *S = NULL;
        mcb_source_info src;
        mcb_err err;
        mcb_rc rc = cli_read_source(p.pos[k], &S, &src, &err);
        if (rc) {
            status = cli_fail(rc, &err);
            break;
        }
        if (src.kind == MCB_SOURCE_FCLIB)
            printf("%s: %d problem(s) (FCLIB file, sha256 %s)\n", p.pos[k], S->count, src.sha256);
        else printf("%s: %d problem(s)\n", p.pos[k], S->count);
        for (int j = 0; j < S->count; j++) {
            const mcb_problem *P = S->items[j];
            printf("  %-32s %-6s n %-6d m %-6d contacts %-5d unilateral %-4d bilateral %-4d "
                   "soft %-4d subsystems %-5d h %g step %d scene '%s'\n",
                   P->name, mcb_form_name(P->form), P->n, P->m, mcb_problem_contacts(P),
                   mcb_problem_count(P, MCB_UNILATERAL), mcb_problem_count(P, MCB_BILATERAL),
                   mcb_problem_count(P, MCB_SOFT), P->nsub, P->h, P->step, P->scene);
        }
        mcb_problem_set_free(&S);
    }
    mcb_cli_free(&info_cmd, NULL, &p);
    return status;
}

/* --------------------------------------------------------------- validate */

static const mcb_cli_cmd validate_cmd = {
    "validate",
    "usage: mcbench validate FILE...   (mcbench problem files or FCLIB files)\n"
    "Checks every problem of every file against docs/problem-format.md (shapes,\n"
    "finite values, sparse structure, symmetry and positive definiteness of A,\n"
    "symmetry and positive semidefiniteness of a dual-form W up to round-off (no\n"
    "eigenvalue below -1e-6 ||W||_2; docs/problem-format.md), constraint blocks\n"
    "and parameters, partition, unique names). The file is read first in an\n"
    "isolated process, so a damaged file is reported, never a crash. Prints 'ok'\n"
    "or the reason for each file; exits 2 if any file is invalid, 1 on an\n"
    "internal failure (out of memory).\n",
    NULL, NULL, 0};

int cmd_validate(int argc, char **argv)
{
    mcb_cli_args p;
    int status = files_cmd(&validate_cmd, argc, argv, NULL, &p);
    if (status != MCB_CLI_GO_ON) return status;
    int bad = 0;
    for (int k = 0; k < p.npos; k++) {
        mcb_problem_set *S = NULL;
        mcb_source_info src;
        mcb_err err;
        mcb_rc rc = cli_read_source(p.pos[k], &S, &src, &err);
        if (rc == MCB_E_INPUT) {
            fprintf(stderr, "mcbench: invalid: %s\n", err.msg);
            if (!bad) bad = MCB_CLI_EXIT_INPUT;
        } else if (rc) {
            fprintf(stderr, "mcbench: error: %s\n", err.msg);
            bad = 1;
        } else {
            printf("%s: ok (%d problem(s)%s)\n", p.pos[k], S->count,
                   src.kind == MCB_SOURCE_FCLIB ? ", FCLIB file" : "");
        }
        mcb_problem_set_free(&S);
    }
    mcb_cli_free(&validate_cmd, NULL, &p);
    return bad;
}

/* --------------------------------------------------------------- describe */

typedef struct {
    const char *out;
    mcb_describe_opts o;
    int no_rank, recompute;
} describe_args;

static const mcb_cli_opt describe_opts[] = {
    MCB_CLI_OUTPUT(describe_args, out, "OUT.csv", "also write the descriptors as CSV"),
    {"--steps", 0, MCB_CLI_INT, offsetof(describe_args, o.lanczos_steps), "K", 1, 10000,
     .help = "at most K Lanczos steps for cond(W)"},
    {"--max-rows", 0, MCB_CLI_INT, offsetof(describe_args, o.max_rows), "N", 0, INFINITY,
     .help = "problems above N rows get no cond(W), no rank and no computed psd_defect"},
    {"--no-rank", 0, MCB_CLI_FLAG, offsetof(describe_args, no_rank),
     .help = "skip the rank deficiency of J (a sparse QR)"},
    {"--recompute", 0, MCB_CLI_FLAG, offsetof(describe_args, recompute),
     .help = "recompute what the file stores (cond(W), rank, mass ratio, psd_defect)"},
    {0},
};

static const mcb_cli_cmd describe_cmd = {
    "describe",
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
    "table; -o also writes the descriptors as CSV.\n",
    NULL, describe_opts, 0};

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

int cmd_describe(int argc, char **argv)
{
    describe_args a = {0};
    mcb_describe_defaults(&a.o);
    mcb_cli_args p;
    int status = files_cmd(&describe_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    status = 0;
    if (a.no_rank) a.o.rank = 0;
    if (a.recompute) a.o.use_stored = 0;
    FILE *csv = NULL;
    if (a.out && !(csv = fopen(a.out, "w"))) {
        fprintf(stderr, "mcbench: error: cannot write %s: %s\n", a.out, strerror(errno));
        status = 1;
    }
    if (csv) fprintf(csv, "file,problem,%s\n", mcb_describe_csv_header());
    if (!status)
        printf("%-20s %-28s %-6s %7s %7s %6s %8s %8s %-17s %10s %-8s %10s %-10s %s\n", "file",
               "problem", "form", "dofs", "rows", "cont", "rows/dof", "rank_def", "mu min/med/max",
               "cond(W)", "from", "mass_ratio", "from", "psd_defect");
    for (int k = 0; k < p.npos && !status; k++) {
        mcb_problem_set *S = NULL;
        mcb_err err;
        mcb_rc rc = cli_read_source(p.pos[k], &S, NULL, &err);
        if (rc) status = cli_fail(rc, &err);
        for (int j = 0; S && j < S->count && !status; j++) {
            mcb_descriptors d;
            if ((rc = mcb_describe(S->items[j], &a.o, &d, &err))) {
                status = cli_fail(rc, &err);
                break;
            }
            char *base = strrchr(p.pos[k], '/');
            describe_row(base ? base + 1 : p.pos[k], S->items[j], &d);
            char row[1024];
            if (csv) fprintf(csv, "%s,%s,%s\n", p.pos[k], S->items[j]->name,
                             mcb_describe_csv_row(&d, row, sizeof row));
        }
        mcb_problem_set_free(&S);
    }
    if (csv && fclose(csv) && !status) {
        fprintf(stderr, "mcbench: error: cannot write %s\n", a.out);
        status = 1;
    }
    mcb_cli_free(&describe_cmd, &a, &p);
    return status;
}

/* ----------------------------------------------------------------- import */

typedef struct {
    const char *out;
    int form;
} import_args;

static const char *const siconos_forms[] = {"auto", "local", "global", NULL};

static const mcb_cli_opt import_opts[] = {
    MCB_CLI_OUTPUT(import_args, out, "OUT.h5", "the problem file written (required; not an input)"),
    {"--form", 0, MCB_CLI_CHOICE, offsetof(import_args, form), .words = siconos_forms,
     .map = mcb_siconos_form_from_name,
     .help = "siconos only: what the .dat files hold; auto: global for a name starting with "
             "GFC or containing 'global', local otherwise"},
    {0},
};

static const mcb_cli_cmd import_cmd = {
    "import",
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
    "converts. See docs/formats.md.\n",
    NULL, import_opts, 0};

/* Converts the files, each named after its file; EXIT_INPUT on a clash. */
static int import_files(int siconos, int form, char **files, int nfiles, mcb_problem **P)
{
    mcb_err err;
    for (int k = 0; k < nfiles; k++) {
        mcb_rc rc = siconos ? mcb_import_siconos(files[k], form, &P[k], &err)
                            : mcb_import_fclib(files[k], &P[k], &err);
        if (rc) return cli_fail(rc, &err);
        mcb_describe_store(P[k]); /* stored with the problem: campaigns read them */
        for (int j = 0; j < k; j++)
            if (!strcmp(P[j]->name, P[k]->name)) {
                fprintf(stderr,
                        "mcbench: error: %s and %s both give the problem name '%s' (problems are "
                        "named after their files; names must be unique in a problem file)\n",
                        files[j], files[k], P[k]->name);
                return MCB_CLI_EXIT_INPUT;
            }
    }
    return 0;
}

int cmd_import(int argc, char **argv)
{
    import_args a = {NULL, MCB_SICONOS_AUTO};
    mcb_cli_args p;
    int status = mcb_cli_parse(&import_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    int siconos = argc >= 2 && !strcmp(argv[1], "siconos");
    char **files = p.pos + 1;
    int nfiles = p.npos - 1;
    if (argc < 2 || (strcmp(argv[1], "fclib") != 0 && !siconos)) {
        status = mcb_cli_usage_error("import", "the formats are 'fclib' and 'siconos': mcbench "
                                     "import fclib|siconos FILE... -o OUT.h5");
    } else if (siconos && !mcb_import_siconos_available()) {
        fprintf(stderr, "mcbench import: 'import siconos' reads .dat files with Siconos numerics' "
                "readers, and this mcbench was built without Siconos numerics (install the "
                "Debian package libsiconos-numerics-dev and rebuild)\n");
        status = 1;
    } else if (!siconos && mcb_cli_given(&import_cmd, &p, "--form")) {
        status = mcb_cli_usage_error("import", "--form is an option of 'import siconos'");
    } else if (!a.out || nfiles == 0) {
        status = mcb_cli_usage_error("import", "needs FILE... and -o OUT.h5");
    }
    mcb_err err;
    mcb_output o = {a.out, "-o"};
    mcb_rc rc = MCB_OK;
    if (status == MCB_CLI_GO_ON &&
        (rc = mcb_check_outputs((const char *const *)files, nfiles, &o, 1, 1, &err)))
        status = cli_fail(rc, &err);
    mcb_problem **P = status == MCB_CLI_GO_ON ? calloc((size_t)nfiles, sizeof *P) : NULL;
    if (status == MCB_CLI_GO_ON) status = P ? import_files(siconos, a.form, files, nfiles, P) : 1;
    if (!status && (rc = mcb_write_problems(a.out, P, nfiles, &err))) status = cli_fail(rc, &err);
    for (int k = 0; P && k < nfiles; k++) mcb_problem_free(&P[k]);
    free(P);
    if (!status) fprintf(stderr, "mcbench: wrote %d problem(s) to %s\n", nfiles, a.out);
    mcb_cli_free(&import_cmd, &a, &p);
    return status;
}

/* ----------------------------------------------------------------- record */

typedef struct {
    const char *out;
} record_args;

static const mcb_cli_opt record_opts[] = {
    MCB_CLI_OUTPUT(record_args, out, "OUT.h5",
                   "the problem file written (required); every other option is the recorder's, "
                   "shown above"),
    {0},
};

/* the recorder parses its own options (problems/record_mujoco.c), shared
 * with set entries `STEM record mujoco MODEL ...`: they pass through */
static const mcb_cli_cmd record_cmd = {
    "record",
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
    "Needs mcbench built with MuJoCo (libmujoco-dev). See docs/mujoco.md.\n",
    NULL, record_opts, 1};

/* Records, writes and summarizes; the exit status. */
static int record_write(const mcb_record_mujoco_opts *o, const char *out)
{
    mcb_err err;
    mcb_output oo = {out, "-o"};
    const char *in[1] = {o->model_path};
    mcb_rc rc = mcb_check_outputs(in, 1, &oo, 1, 1, &err);
    if (rc) return cli_fail(rc, &err);
    mcb_problem_set *S = NULL;
    char warn[1024];
    double t0 = mcb_now_s();
    if ((rc = mcb_record_mujoco(o, &S, warn, sizeof warn, &err))) return cli_fail(rc, &err);
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
    return rc ? cli_fail(rc, &err) : 0;
}

int cmd_record(int argc, char **argv)
{
    record_args a = {0};
    mcb_cli_args p;
    int status = mcb_cli_parse(&record_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    mcb_record_mujoco_opts o;
    mcb_err err;
    if (argc < 2 || strcmp(argv[1], "mujoco") != 0) {
        status = mcb_cli_usage_error("record", "the simulator is 'mujoco': mcbench record mujoco "
                                     "MODEL.xml [options] -o OUT.h5");
    } else if (!mcb_record_mujoco_available()) {
        fprintf(stderr, "mcbench record: 'record mujoco' is not built in: this mcbench was built "
                "without MuJoCo (install the Debian package libmujoco-dev and rebuild)\n");
        status = 1;
    } else if (mcb_record_mujoco_parse(p.npos - 1, p.pos + 1, &o, &err)) {
        status = mcb_cli_usage_error("record", "%s", err.msg + strlen("record mujoco: "));
    } else if (!a.out) {
        status = mcb_cli_usage_error("record", "needs MODEL.xml and -o OUT.h5");
    } else {
        status = record_write(&o, a.out);
    }
    mcb_cli_free(&record_cmd, &a, &p);
    return status;
}

/* ----------------------------------------------------------------- export */

typedef struct {
    const char *out, *name;
    int all, form;
} export_args;

static const char *const fclib_forms[] = {"auto", "global", "local", NULL};

static const mcb_cli_opt export_opts[] = {
    MCB_CLI_OUTPUT(export_args, out, "OUT.hdf5",
                   "the FCLIB file written; with --all, the directory DIR"),
    {"--problem", 0, MCB_CLI_STRING, offsetof(export_args, name), "NAME",
     .help = "the problem of IN to write (needed when IN holds several)"},
    {"--all", 0, MCB_CLI_FLAG, offsetof(export_args, all),
     .help = "every problem of IN, as DIR/NAME.hdf5"},
    {"--form", 0, MCB_CLI_CHOICE, offsetof(export_args, form), .words = fclib_forms,
     .map = mcb_fclib_form_from_name,
     .help = "auto: /fclib_global for a primal problem, /fclib_local for a dual one"},
    {0},
};

static const mcb_cli_cmd export_cmd = {
    "export",
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
    "be expressed. See docs/formats.md.\n",
    NULL, export_opts, 0};

/* The problems of S to write (n of them in sel); EXIT_INPUT when none. */
static int export_select(const export_args *a, const char *in, const mcb_problem_set *S,
                         mcb_problem **sel, int *n)
{
    *n = 0;
    for (int p = 0; p < S->count; p++)
        if (a->all || (a->name && !strcmp(S->items[p]->name, a->name)) ||
            (!a->name && S->count == 1))
            sel[(*n)++] = S->items[p];
    if (*n == 0 && a->name) {
        fprintf(stderr, "mcbench: error: %s has no problem named '%s' (mcbench info %s lists "
                "them)\n", in, a->name, in);
        return MCB_CLI_EXIT_INPUT;
    }
    if (*n == 0) {
        fprintf(stderr, "mcbench: error: %s holds %d problems and an FCLIB file holds one: "
                "choose one with --problem NAME (mcbench info %s lists them) or write them all "
                "with --all -o DIR\n", in, S->count, in);
        return MCB_CLI_EXIT_INPUT;
    }
    return 0;
}

/* Checks every selected problem and every output path, then writes. */
static int export_write(const export_args *a, const char *in, mcb_problem **sel, int n)
{
    mcb_err err;
    mcb_rc rc = MCB_OK;
    int status = 0;
    for (int p = 0; p < n && !status; p++) {
        char where[600];
        snprintf(where, sizeof where, "%s, problem '%s'", in, sel[p]->name);
        if ((rc = mcb_export_fclib_check(sel[p], a->form, where, NULL, &err)))
            status = cli_fail(rc, &err);
    }
    char **paths = status ? NULL : calloc((size_t)n + 1, sizeof *paths);
    mcb_output *outs = status ? NULL : calloc((size_t)n + 1, sizeof *outs);
    if (!status && (!paths || !outs)) status = 1;
    for (int p = 0; p < n && !status; p++) {
        size_t len = strlen(a->out) + strlen(sel[p]->name) + 16;
        if (a->all && (strchr(sel[p]->name, '/') || !strcmp(sel[p]->name, "..") ||
                       !strcmp(sel[p]->name, "."))) {
            fprintf(stderr, "mcbench: error: %s: the problem name '%s' cannot be a file name in "
                    "DIR: export it alone with --problem NAME -o OUT.hdf5\n", in, sel[p]->name);
            status = MCB_CLI_EXIT_INPUT;
        } else if (!(paths[p] = malloc(len))) status = 1;
        else if (a->all) snprintf(paths[p], len, "%s/%s.hdf5", a->out, sel[p]->name);
        else snprintf(paths[p], len, "%s", a->out);
        if (paths[p]) outs[p] = (mcb_output){paths[p], a->all ? "--all -o DIR" : "-o"};
    }
    const char *inputs[1] = {in};
    if (!status && (rc = mcb_check_outputs(inputs, 1, outs, n, 1, &err)))
        status = cli_fail(rc, &err);
    for (int p = 0; p < n && !status; p++)
        if ((rc = mcb_export_fclib(sel[p], a->form, paths[p], &err))) status = cli_fail(rc, &err);
    if (!status)
        fprintf(stderr, "mcbench: wrote %d FCLIB file(s)%s%s\n", n, a->all ? " in " : ": ", a->out);
    for (int p = 0; paths && p < n; p++) free(paths[p]);
    free(paths);
    free(outs);
    return status;
}

int cmd_export(int argc, char **argv)
{
    export_args a = {NULL, NULL, 0, MCB_FCLIB_AUTO};
    mcb_cli_args p;
    int status = mcb_cli_parse(&export_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    const char *in = p.npos > 1 ? p.pos[1] : NULL;
    if (argc < 2 || strcmp(argv[1], "fclib") != 0)
        status = mcb_cli_usage_error("export", "the only format is 'fclib': mcbench export fclib "
                                     "IN.h5 -o OUT.hdf5");
    else if (p.npos > 2)
        status = mcb_cli_usage_error("export", "takes one IN.h5, got a second: %s", p.pos[2]);
    else if (!in || !a.out) status = mcb_cli_usage_error("export", "needs IN.h5 and -o OUT.hdf5");
    else if (a.all && a.name)
        status = mcb_cli_usage_error("export", "--all and --problem exclude each other");
    mcb_err err;
    mcb_problem_set *S = NULL;
    mcb_rc rc = MCB_OK;
    if (status == MCB_CLI_GO_ON && (rc = cli_read_source(in, &S, NULL, &err)))
        status = cli_fail(rc, &err);
    mcb_problem **sel = S ? calloc((size_t)S->count + 1, sizeof *sel) : NULL;
    int n = 0;
    if (S) status = sel ? export_select(&a, in, S, sel, &n) : 1;
    if (S && !status) status = export_write(&a, in, sel, n);
    free(sel);
    mcb_problem_set_free(&S);
    mcb_cli_free(&export_cmd, &a, &p);
    return status;
}

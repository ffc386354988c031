/* sets.c: the problem-set catalog (sets.h, docs/sets.md), beside the
 * folder of set files and outside the scene engine (an entry is a scene of
 * the registry, scenes.h, or a MuJoCo recording, record_mujoco.h): locating
 * and parsing problems/sets/NAME.set, checking every entry against the scene
 * registry before anything runs, building a set into a directory with
 * reuse of files whose recorded generator arguments match, and the
 * one-line generation summary.
 *
 * Failure: every message names the set file and line (parsing, checking)
 * or the entry and its output file (building); a failed parse frees what
 * it allocated. Files are written by mcb_write_problems (temporary name,
 * then rename), so a killed build leaves no partial file under a final
 * name. */
#include "problems/sets.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/mcb_io.h"
#include "lib/mcb_paths.h"
#include "lib/mcb_timer.h"
#include "problems/record_mujoco.h"

#define LINE_MAX_BYTES 4096
#define MAX_WORDS 2 * MCB_SCENE_MAX_OPTS + 2

/* ------------------------------------------------------------ locating */

const char *mcb_sets_dir(void) { return mcb_catalog_dir("MCB_SETS_DIR", "problems/sets"); }

/* "a, b, c": the NAME of every NAME.set in dir, sorted. */
static void list_sets(const char *dir, char *buf, size_t size)
{
    char **names = NULL;
    int n = 0;
    buf[0] = '\0';
    if (mcb_dir_stems(dir, ".set", &names, &n, NULL)) return;
    size_t len = 0;
    for (int k = 0; k < n && len < size; k++) {
        int w = snprintf(buf + len, size - len, "%s%s", k ? ", " : "", names[k]);
        if (w > 0) len += (size_t)w;
    }
    mcb_strings_free(names, n);
}

mcb_rc mcb_set_locate(const char *name, char *path, size_t size, mcb_err *err)
{
    size_t len = strlen(name);
    int is_path = strchr(name, '/') || (len > 4 && !strcmp(name + len - 4, ".set"));
    const char *dir = mcb_sets_dir();
    int w = is_path ? snprintf(path, size, "%s", name) : snprintf(path, size, "%s/%s.set", dir, name);
    if (w < 0 || (size_t)w >= size) return mcb_fail(err, MCB_E_INPUT, "set name too long: %.100s", name);
    struct stat st;
    int st_rc = stat(path, &st);
    if (st_rc == 0 && S_ISREG(st.st_mode)) return MCB_OK;
    if (is_path)
        return mcb_fail(err, MCB_E_INPUT, "set file %s: %s", path,
                        st_rc ? strerror(errno) : "not a regular file");
    char known[1024];
    list_sets(dir, known, sizeof known);
    return mcb_fail(err, MCB_E_INPUT, "unknown problem set '%.100s': no %s (sets in %s: %s; "
                    "MCB_SETS_DIR overrides the directory)", name, path, dir,
                    known[0] ? known : "none");
}

/* ------------------------------------------------------------- parsing */

void mcb_set_free(mcb_set **S)
{
    if (!S || !*S) return;
    for (int k = 0; k < (*S)->count; k++) {
        mcb_set_entry *e = &(*S)->items[k];
        free(e->stem);
        free(e->scene);
        for (int a = 0; a < e->argc; a++) free(e->argv[a]);
        free(e->argv);
    }
    free((*S)->items);
    free((*S)->path);
    free(*S);
    *S = NULL;
}

static int stem_ok(const char *s)
{
    if (!*s || *s == '.') return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-' || *s == '.'))
            return 0;
    return 1;
}

/* Splits line into words at blanks, ending at a word that starts with
 * '#'; returns the count or -1 when there are more than `cap`. */
static int split_words(char *line, char **words, int cap)
{
    int n = 0;
    for (char *p = line;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p || *p == '#') return n;
        if (n == cap) return -1;
        words[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') p++;
        if (*p) *p++ = '\0';
    }
}

/* Appends the entry of one line's words to S. */
static mcb_rc add_entry(mcb_set *S, int line, char **words, int n, mcb_err *err)
{
    if (n < 2)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s:%d: an entry needs FILE_STEM SCENE [--opt V ...], got only '%.100s'",
                        S->path, line, words[0]);
    if (!stem_ok(words[0]))
        return mcb_fail(err, MCB_E_INPUT,
                        "%s:%d: file stem '%.100s' must be letters, digits, '_', '-', '.' (not "
                        "starting with '.')", S->path, line, words[0]);
    for (int k = 0; k < S->count; k++)
        if (!strcmp(S->items[k].stem, words[0]))
            return mcb_fail(err, MCB_E_INPUT, "%s:%d: file stem '%s' is already used on line %d",
                            S->path, line, words[0], S->items[k].line);
    mcb_set_entry *items = realloc(S->items, (size_t)(S->count + 1) * sizeof *items);
    if (!items) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    S->items = items;
    mcb_set_entry *e = &items[S->count];
    memset(e, 0, sizeof *e);
    S->count++; /* from here the entry is freed with the set */
    e->line = line;
    e->stem = mcb_strdup(words[0]);
    e->scene = mcb_strdup(words[1]);
    e->argv = mcb_calloc((size_t)n, sizeof(char *));
    if (!e->stem || !e->scene || !e->argv) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int k = 2; k < n; k++, e->argc++)
        if (!(e->argv[k - 2] = mcb_strdup(words[k])))
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    return MCB_OK;
}

mcb_rc mcb_set_read(const char *path, mcb_set **out, mcb_err *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "r");
    if (!fp) return mcb_fail(err, MCB_E_INPUT, "set file %s: %s", path, strerror(errno));
    mcb_set *S = calloc(1, sizeof *S);
    char *line = malloc(LINE_MAX_BYTES + 2);
    mcb_rc rc = MCB_OK;
    if (!S || !line || !(S->path = mcb_strdup(path)))
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int ln = 1; !rc && fgets(line, LINE_MAX_BYTES + 2, fp); ln++) {
        size_t len = strlen(line);
        if (len > LINE_MAX_BYTES || memchr(line, '\0', len) != NULL) {
            rc = mcb_fail(err, MCB_E_INPUT, "%s:%d: line longer than %d bytes", path, ln,
                          LINE_MAX_BYTES);
            break;
        }
        char *words[MAX_WORDS];
        int n = split_words(line, words, MAX_WORDS);
        if (n < 0)
            rc = mcb_fail(err, MCB_E_INPUT, "%s:%d: more than %d words", path, ln, MAX_WORDS);
        else if (n > 0)
            rc = add_entry(S, ln, words, n, err);
    }
    if (!rc && ferror(fp)) rc = mcb_fail(err, MCB_E_INPUT, "set file %s: read error", path);
    if (!rc && S->count == 0) rc = mcb_fail(err, MCB_E_INPUT, "set file %s has no entry", path);
    fclose(fp);
    free(line);
    if (rc) mcb_set_free(&S);
    *out = S;
    return rc;
}

/* ------------------------------------------------------------ checking */

/* The entry's scene and option values, or an error naming file and line. */
static mcb_rc entry_args(const mcb_set *S, const mcb_set_entry *e, const mcb_scene_def **def,
                         double *vals, mcb_err *err)
{
    *def = mcb_scene_find(e->scene);
    if (!*def) {
        char known[512];
        return mcb_fail(err, MCB_E_INPUT,
                        "%s:%d: unknown scene '%.100s' for %s (registered scenes: %s)", S->path,
                        e->line, e->scene, e->stem, mcb_scene_names(known, sizeof known));
    }
    mcb_err perr;
    if (mcb_scene_parse(*def, e->argc, e->argv, vals, &perr))
        return mcb_fail(err, MCB_E_INPUT, "%s:%d: %s", S->path, e->line, perr.msg);
    return MCB_OK;
}

/* An entry `STEM record mujoco MODEL [options]` records a MuJoCo model
 * (record_mujoco.h); without MuJoCo it is left out with a notice. */
static int is_record(const mcb_set_entry *e) { return !strcmp(e->scene, "record"); }

static mcb_rc record_args(const mcb_set *S, const mcb_set_entry *e, mcb_record_mujoco_opts *o,
                          mcb_err *err)
{
    mcb_err perr;
    if (e->argc < 1 || strcmp(e->argv[0], "mujoco") != 0)
        return mcb_fail(err, MCB_E_INPUT, "%s:%d: a record entry is `%s record mujoco MODEL.xml "
                        "[options]`", S->path, e->line, e->stem);
    if (mcb_record_mujoco_parse(e->argc - 1, e->argv + 1, o, &perr))
        return mcb_fail(err, MCB_E_INPUT, "%s:%d: %s", S->path, e->line, perr.msg);
    o->timing = 0; /* a set's files are reproducible */
    return MCB_OK;
}

static int reusable(const char *file, const char *args, mcb_problem_set **kept);

static mcb_rc build_record(const mcb_set *S, const mcb_set_entry *e, const char *file,
                           mcb_gen_summary *sum, mcb_err *err)
{
    mcb_record_mujoco_opts o;
    mcb_rc rc = record_args(S, e, &o, err);
    if (rc) return rc;
    double t0 = mcb_now_s();
    if (!mcb_record_mujoco_available()) {
        mcb_gen_summarize(NULL, "mujoco (left out: mcbench built without MuJoCo)", "", sum);
        return MCB_OK;
    }
    struct stat st;
    if (stat(o.model_path, &st) != 0) {
        mcb_gen_summarize(NULL, "mujoco (left out: model not installed, libmujoco-samples)",
                          o.model_path, sum);
        return MCB_OK;
    }
    char args[2048];
    mcb_record_mujoco_args(&o, args, sizeof args);
    mcb_problem_set *P = NULL;
    int reused = reusable(file, args, &P);
    if (!reused) {
        mcb_err gerr;
        rc = mcb_record_mujoco(&o, &P, NULL, 0, &gerr);
        if (!rc) rc = mcb_write_problems(file, P->items, P->count, &gerr);
        if (rc) {
            mcb_problem_set_free(&P);
            return mcb_fail(err, rc, "%s:%d: %s: %s", S->path, e->line, e->stem, gerr.msg);
        }
    }
    mcb_gen_summarize(P, "mujoco", file, sum);
    sum->wall_s = mcb_now_s() - t0;
    sum->reused = reused;
    mcb_problem_set_free(&P);
    return MCB_OK;
}

mcb_rc mcb_set_check(const mcb_set *S, mcb_err *err)
{
    double vals[MCB_SCENE_MAX_OPTS];
    const mcb_scene_def *def;
    for (int k = 0; k < S->count; k++) {
        mcb_record_mujoco_opts o;
        if (is_record(&S->items[k])) {
            mcb_rc rc = record_args(S, &S->items[k], &o, err);
            if (rc) return rc;
            continue;
        }
        mcb_rc rc = entry_args(S, &S->items[k], &def, vals, err);
        if (rc) return rc;
    }
    return MCB_OK;
}

/* ---------------------------------------------------------- generating */

mcb_rc mcb_scene_generate(const mcb_scene_def *def, const double *vals, mcb_problem_set **out,
                          mcb_err *err)
{
    *out = NULL;
    mcb_rc rc = def->generate(vals, NULL, out, err);
    if (rc) return rc;
    char args[2048];
    mcb_scene_args(def, vals, args, sizeof args);
    for (int k = 0; k < (*out)->count; k++) {
        mcb_problem *P = (*out)->items[k];
        free(P->source);
        P->source = mcb_strdup(args);
        if (!P->scene || !P->scene[0]) {
            free(P->scene);
            P->scene = mcb_strdup(def->name);
        }
        if (!P->source || !P->scene) {
            mcb_problem_set_free(out);
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
    }
    return MCB_OK;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void mcb_gen_summarize(const mcb_problem_set *S, const char *scene, const char *file,
                       mcb_gen_summary *o)
{
    memset(o, 0, sizeof *o);
    snprintf(o->scene, sizeof o->scene, "%s", scene ? scene : "");
    snprintf(o->file, sizeof o->file, "%s", file ? file : "");
    int n = S ? S->count : 0;
    o->problems = n;
    int *c = n ? mcb_malloc((size_t)n, sizeof(int)) : NULL;
    for (int k = 0; k < n; k++) {
        const mcb_problem *P = S->items[k];
        /* a MuJoCo step's contacts whatever its cone (pyramidal ones are
         * unilateral rows, no contact blocks) */
        int cont = P->mujoco && P->mujoco->contacts >= 0 ? P->mujoco->contacts
                                                         : mcb_problem_contacts(P);
        if (k == 0 || P->n < o->dof_min) o->dof_min = P->n;
        if (k == 0 || P->n > o->dof_max) o->dof_max = P->n;
        if (k == 0 || P->nsub < o->sub_min) o->sub_min = P->nsub;
        if (k == 0 || P->nsub > o->sub_max) o->sub_max = P->nsub;
        if (k == 0 || cont < o->contacts_min) o->contacts_min = cont;
        if (k == 0 || cont > o->contacts_max) o->contacts_max = cont;
        if (c) c[k] = cont;
    }
    if (c) {
        qsort(c, (size_t)n, sizeof(int), cmp_int);
        o->contacts_median = c[(n - 1) / 2]; /* the lower median */
    }
    free(c);
}

/* "7" or "5-7" */
static void range_text(int lo, int hi, char *buf, size_t size)
{
    if (lo == hi) snprintf(buf, size, "%d", lo);
    else snprintf(buf, size, "%d-%d", lo, hi);
}

void mcb_gen_summary_line(const mcb_gen_summary *s, char *buf, size_t size)
{
    char dof[32], sub[32];
    range_text(s->dof_min, s->dof_max, dof, sizeof dof);
    range_text(s->sub_min, s->sub_max, sub, sizeof sub);
    snprintf(buf, size,
             "%s: %d problem%s, %s DOF, %s subsystems, contacts per step %d/%d/%d "
             "(min/median/max), %.2f s, %s%s", s->scene, s->problems, s->problems == 1 ? "" : "s",
             dof, sub, s->contacts_min, s->contacts_median, s->contacts_max, s->wall_s, s->file,
             s->reused ? ", reused" : "");
}

/* ------------------------------------------------------------ building */

/* 1 when `file` holds problems that all record `args` as their source. */
static int reusable(const char *file, const char *args, mcb_problem_set **kept)
{
    *kept = NULL;
    struct stat st;
    if (stat(file, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    mcb_problem_set *S = NULL;
    mcb_err ignored;
    if (mcb_read_problems_isolated(file, &S, &ignored)) return 0;
    int same = S->count > 0;
    for (int k = 0; same && k < S->count; k++)
        same = S->items[k]->source && !strcmp(S->items[k]->source, args);
    if (same) *kept = S;
    else mcb_problem_set_free(&S);
    return same;
}

static mcb_rc build_entry(const mcb_set *S, const mcb_set_entry *e, const char *dir,
                          mcb_gen_summary *sum, mcb_err *err)
{
    const mcb_scene_def *def;
    double vals[MCB_SCENE_MAX_OPTS];
    char file[1024], args[2048];
    int w = snprintf(file, sizeof file, "%s/%s.h5", dir, e->stem);
    if (w < 0 || (size_t)w >= sizeof file)
        return mcb_fail(err, MCB_E_INPUT, "%s:%d: output path too long", S->path, e->line);
    if (is_record(e)) return build_record(S, e, file, sum, err);
    mcb_rc rc = entry_args(S, e, &def, vals, err);
    if (rc) return rc;
    mcb_scene_args(def, vals, args, sizeof args);
    double t0 = mcb_now_s();
    mcb_problem_set *P = NULL;
    int reused = reusable(file, args, &P);
    if (!reused) {
        mcb_err gerr;
        rc = mcb_scene_generate(def, vals, &P, &gerr);
        if (!rc) rc = mcb_write_problems(file, P->items, P->count, &gerr);
        if (rc) {
            mcb_problem_set_free(&P);
            return mcb_fail(err, rc, "%s:%d: %s (%s): %s", S->path, e->line, e->stem, args,
                            gerr.msg);
        }
    }
    mcb_gen_summarize(P, def->name, file, sum);
    sum->wall_s = mcb_now_s() - t0;
    sum->reused = reused;
    mcb_problem_set_free(&P);
    return MCB_OK;
}

mcb_rc mcb_set_build(const mcb_set *S, const char *dir, mcb_set_progress progress, void *ctx,
                     mcb_err *err)
{
    mcb_rc rc = mcb_set_check(S, err);
    if (rc) return rc;
    if ((rc = mcb_mkdirs(dir, err))) return rc;
    for (int k = 0; k < S->count; k++) {
        mcb_gen_summary sum;
        if ((rc = build_entry(S, &S->items[k], dir, &sum, err))) return rc;
        if (progress) progress(ctx, &sum);
    }
    return MCB_OK;
}

/* experiment.c: the experiment-spec reader (experiment.h, docs/experiments.md).
 *
 * A spec is read in one pass over libyaml's document tree (yaml_parser_load),
 * top-down in the order of docs/experiments.md: the top level, the problem
 * groups, the solver entries, the budgets, the verdict rules, then a
 * table's columns and rows or a figure's axes, series and claims, then the
 * notes. Every value is checked where it is read, against what was read
 * before it (ids defined, one published value per column, units of the
 * quantities) and against this build (registered solvers and their
 * parameter descriptors, registered scenes and their options, set
 * entries), so each error names the node's own line; what can only be
 * checked once a whole list is read (a ref to a later row or claim) names
 * the item's line.
 *
 * Failure: MCB_E_INPUT with "FILE:LINE: FIELD: REASON"; everything
 * allocated is freed (mcb_xp_free accepts the partial spec: every list is
 * allocated zeroed at its full length before its items are read). */
#include "lib/mcb_experiment.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#include "lib/mcb_paths.h"
#include "lib/mcb_vocab.h"

/* ------------------------------------------------------------ locating */

const char *mcb_experiments_dir(void) { return mcb_catalog_dir("MCB_EXPERIMENTS_DIR", "experiments"); }

mcb_rc mcb_xp_list(char ***names, int *count, mcb_err *err)
{
    return mcb_dir_stems(mcb_experiments_dir(), ".yaml", names, count, err);
}

void mcb_xp_names_free(char **names, int count) { mcb_strings_free(names, count); }

mcb_rc mcb_xp_locate(const char *name, char *path, size_t size, mcb_err *err)
{
    size_t len = strlen(name);
    int is_path = strchr(name, '/') || (len > 5 && !strcmp(name + len - 5, ".yaml"));
    const char *dir = mcb_experiments_dir();
    int w = is_path ? snprintf(path, size, "%s", name) : snprintf(path, size, "%s/%s.yaml", dir, name);
    if (w < 0 || (size_t)w >= size)
        return mcb_fail(err, MCB_E_INPUT, "experiment name too long: %.100s", name);
    struct stat st;
    int st_rc = stat(path, &st);
    if (st_rc == 0 && S_ISREG(st.st_mode)) return MCB_OK;
    if (is_path)
        return mcb_fail(err, MCB_E_INPUT, "experiment spec %s: %s", path,
                        st_rc ? strerror(errno) : "not a regular file");
    char known[1024] = "";
    char **names = NULL;
    int n = 0;
    if (!mcb_dir_stems(dir, ".yaml", &names, &n, NULL)) {
        size_t at = 0;
        for (int k = 0; k < n && at < sizeof known; k++) {
            int c = snprintf(known + at, sizeof known - at, "%s%s", k ? ", " : "", names[k]);
            if (c > 0) at += (size_t)c;
        }
        mcb_strings_free(names, n);
    }
    return mcb_fail(err, MCB_E_INPUT, "unknown experiment '%.100s': no %s (specs in %s: %s; "
                    "MCB_EXPERIMENTS_DIR overrides the directory)", name, path, dir,
                    known[0] ? known : "none");
}

/* ---------------------------------------------------------- quantities */

static const struct {
    const char *name;
    mcb_xp_quantity_id id;
    int arg;             /* 0: none; 'm': ":METRIC"; 'x': ":X" */
    const char *unit;    /* NULL: the figure's y quantity's */
    mcb_xp_class cls;
} quantities[] = {
    {"time_ms", MCB_XQ_TIME_MS, 0, "ms", MCB_XV_TIME},
    {"setup_ms", MCB_XQ_SETUP_MS, 0, "ms", MCB_XV_TIME},
    {"iterations", MCB_XQ_ITERATIONS, 0, "iterations", MCB_XV_COUNT},
    {"inner_iterations", MCB_XQ_INNER, 0, "iterations", MCB_XV_COUNT},
    {"unsolved", MCB_XQ_UNSOLVED, 0, "fraction", MCB_XV_RATE},
    {"inner_failures", MCB_XQ_INNER_FAIL, 0, "fraction", MCB_XV_RATE},
    {"residual", MCB_XQ_RESIDUAL, 'm', "", MCB_XV_ACCURACY},
    {"neglog", MCB_XQ_NEGLOG, 'm', "-log10", MCB_XV_ACCURACY},
    {"outcome", MCB_XQ_OUTCOME, 0, "category", MCB_XV_CATEGORY},
    {"fit_r2", MCB_XQ_FIT_R2, 0, "R^2", MCB_XV_FIT},
    {"fit_slope", MCB_XQ_FIT_SLOPE, 0, "", MCB_XV_FIT},
    {"y_at", MCB_XQ_Y_AT, 'x', NULL, MCB_XV_NCLASSES},
    {"y_final", MCB_XQ_Y_FINAL, 0, NULL, MCB_XV_NCLASSES},
    {"engine_ms", MCB_XQ_ENGINE_MS, 0, "ms", MCB_XV_TIME},
    {"depth_mm", MCB_XQ_DEPTH_MM, 0, "mm", MCB_XV_ACCURACY},
    {"outcome_error", MCB_XQ_OUTCOME_ERR, 0, "outcome", MCB_XV_ACCURACY},
    {"outcome_end", MCB_XQ_OUTCOME_END, 0, "outcome", MCB_XV_ACCURACY},
    {"outcome_at", MCB_XQ_OUTCOME_AT, 'x', "outcome", MCB_XV_ACCURACY},
    {"contact_force", MCB_XQ_CONTACT_FORCE, 0, "N", MCB_XV_ACCURACY},
    {"inverse_force", MCB_XQ_INVERSE_FORCE, 0, "N", MCB_XV_ACCURACY},
    {"inverse_error", MCB_XQ_INVERSE_ERR, 0, "", MCB_XV_ACCURACY},
    {"step_ms", MCB_XQ_STEP_MS, 0, "ms", MCB_XV_TIME},
};
#define NQUANTITIES (int)(sizeof quantities / sizeof quantities[0])

static int quantity_row(mcb_xp_quantity_id id)
{
    for (int k = 0; k < NQUANTITIES; k++)
        if (quantities[k].id == id) return k;
    return -1;
}

/* "a, b, c": the names from name(0..n-1) that keep(k) accepts (keep NULL: all). */
static void join_names(const char *(*name)(int), int n, int (*keep)(int), char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && at < size; k++) {
        if (keep && !keep(k)) continue;
        int c = snprintf(buf + at, size - at, "%s%s", at ? ", " : "", name(k));
        if (c > 0) at += (size_t)c;
    }
}

static const char *quantity_text(int k)
{
    static char buf[NQUANTITIES][32];
    snprintf(buf[k], sizeof buf[k], "%s%s", quantities[k].name,
             quantities[k].arg == 'm' ? ":METRIC" : quantities[k].arg == 'x' ? ":X" : "");
    return buf[k];
}

mcb_rc mcb_xp_quantity_parse(const char *text, mcb_xp_quantity *q, mcb_err *err)
{
    memset(q, 0, sizeof *q);
    const char *colon = strchr(text, ':');
    size_t len = colon ? (size_t)(colon - text) : strlen(text);
    int k = 0;
    while (k < NQUANTITIES && !(strlen(quantities[k].name) == len &&
                                !strncmp(quantities[k].name, text, len)))
        k++;
    char known[512], metrics[256];
    join_names(quantity_text, NQUANTITIES, NULL, known, sizeof known);
    join_names(mcb_metric_name, MCB_NMETRICS, NULL, metrics, sizeof metrics);
    if (k == NQUANTITIES)
        return mcb_fail(err, MCB_E_INPUT, "unknown quantity '%.100s' (known: %s)", text, known);
    if (!quantities[k].arg && colon)
        return mcb_fail(err, MCB_E_INPUT, "quantity '%.100s': %s takes no ':' argument", text,
                        quantities[k].name);
    if (quantities[k].arg && (!colon || !colon[1]))
        return mcb_fail(err, MCB_E_INPUT, "quantity '%.100s': %s needs its argument (%s)", text,
                        quantities[k].name, quantity_text(k));
    double x = 0;
    if (quantities[k].arg == 'm' && mcb_metric_from_name(colon + 1) < 0)
        return mcb_fail(err, MCB_E_INPUT, "quantity '%.100s': unknown metric '%.60s' (metrics: %s)",
                        text, colon + 1, metrics);
    if (quantities[k].arg == 'x') {
        char *end;
        errno = 0;
        x = strtod(colon + 1, &end);
        if (errno || *end || !isfinite(x))
            return mcb_fail(err, MCB_E_INPUT, "quantity '%.100s': '%.60s' is not a finite number",
                            text, colon + 1);
    }
    if (quantities[k].id == MCB_XQ_OUTCOME_AT && !(x >= 0 && x == floor(x) && x <= 1e9))
        return mcb_fail(err, MCB_E_INPUT, "quantity '%.100s': outcome_at takes a step index "
                        "(an integer >= 0)", text);
    q->id = quantities[k].id;
    q->arg = x;
    q->text = mcb_strdup(text);
    q->metric = quantities[k].arg == 'm' ? mcb_strdup(colon + 1) : NULL;
    if (!q->text || (quantities[k].arg == 'm' && !q->metric)) {
        free(q->text);
        free(q->metric);
        memset(q, 0, sizeof *q);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    return MCB_OK;
}

const char *mcb_xp_quantity_unit(const mcb_xp_quantity *q)
{
    int k = quantity_row(q->id);
    return k < 0 ? NULL : quantities[k].unit;
}

mcb_xp_class mcb_xp_quantity_class(const mcb_xp_quantity *q)
{
    int k = quantity_row(q->id);
    return k < 0 ? MCB_XV_NCLASSES : quantities[k].cls;
}

int mcb_xp_quantity_loop_only(const mcb_xp_quantity *q)
{
    return q && (q->id == MCB_XQ_ENGINE_MS || q->id == MCB_XQ_STEP_MS || q->id == MCB_XQ_DEPTH_MM ||
                 q->id == MCB_XQ_OUTCOME_ERR || q->id == MCB_XQ_OUTCOME_END ||
                 q->id == MCB_XQ_OUTCOME_AT || q->id == MCB_XQ_CONTACT_FORCE ||
                 q->id == MCB_XQ_INVERSE_FORCE || q->id == MCB_XQ_INVERSE_ERR);
}

static int of_y(const mcb_xp_quantity *q)
{
    return q->id == MCB_XQ_Y_AT || q->id == MCB_XQ_Y_FINAL;
}

const char *mcb_xp_unit_in(const mcb_xp_spec *S, const mcb_xp_quantity *q)
{
    if (!of_y(q)) return mcb_xp_quantity_unit(q);
    return S->x.kind == MCB_XA_PROFILE ? "fraction" : mcb_xp_quantity_unit(&S->y.y);
}

mcb_xp_class mcb_xp_class_in(const mcb_xp_spec *S, const mcb_xp_quantity *q)
{
    if (!of_y(q)) return mcb_xp_quantity_class(q);
    return S->x.kind == MCB_XA_PROFILE ? MCB_XV_RATE : mcb_xp_quantity_class(&S->y.y);
}

static const char *unit_in(const mcb_xp_spec *S, const mcb_xp_quantity *q)
{
    return mcb_xp_unit_in(S, q);
}

/* ------------------------------------------------------------- freeing */

static void budget_unset(mcb_xp_budget *b)
{
    memset(b, 0, sizeof *b);
    b->time_s = -1;
    b->tol = -1;
    b->warm_start = -1;
}

static void budget_free(mcb_xp_budget *b)
{
    free(b->stop);
    free(b->check_every);
    free(b->law);
    free(b->formulation);
}

static void quantity_free(mcb_xp_quantity *q)
{
    free(q->text);
    free(q->metric);
}

static void binding_free(mcb_xp_binding *b)
{
    free(b->id);
    free(b->label);
    free(b->solver);
    free(b->problems);
    quantity_free(&b->quantity);
    free(b->unit);
    free(b->ref);
    for (int k = 0; k < b->npublished; k++) free(b->published[k].category);
    free(b->published);
}

void mcb_xp_free(mcb_xp_spec **Sp)
{
    if (!Sp || !*Sp) return;
    mcb_xp_spec *S = *Sp;
    free(S->path);
    free(S->name);
    free(S->title);
    free(S->paper);
    free(S->citation);
    free(S->item);
    free(S->where);
    for (int k = 0; k < S->nproblems; k++) {
        mcb_xp_problems *g = &S->problems[k];
        free(g->id);
        free(g->label);
        free(g->scene);
        free(g->args);
        free(g->quick_args);
        free(g->set);
        free(g->entry);
        free(g->select);
    }
    free(S->problems);
    for (int k = 0; k < S->nsolvers; k++) {
        mcb_xp_solver *v = &S->solvers[k];
        free(v->id);
        free(v->label);
        free(v->solver);
        free(v->needs);
        for (int p = 0; p < v->nparams; p++) free(v->params[p].name);
        free(v->params);
        budget_free(&v->budget);
        budget_free(&v->quick_budget);
    }
    free(S->solvers);
    budget_free(&S->budget);
    budget_free(&S->quick_budget);
    for (int k = 0; k < S->nrows; k++) binding_free(&S->rows[k]);
    free(S->rows);
    for (int k = 0; k < S->ncols; k++) binding_free(&S->cols[k]);
    free(S->cols);
    free(S->x.label);
    free(S->y.label);
    quantity_free(&S->y.y);
    for (int k = 0; k < S->nseries; k++) {
        mcb_xp_series *s = &S->series[k];
        free(s->id);
        free(s->label);
        free(s->solver);
        for (int p = 0; p < s->nproblems; p++) free(s->problems[p]);
        free(s->problems);
    }
    free(S->series);
    for (int k = 0; k < S->nclaims; k++) {
        mcb_xp_claim *c = &S->claims[k];
        free(c->id);
        free(c->label);
        free(c->series);
        quantity_free(&c->quantity);
        free(c->unit);
        free(c->ref);
        free(c->published.category);
    }
    free(S->claims);
    free(S->caveat);
    for (int k = 0; k < S->nnotes; k++) {
        mcb_xp_note *n = &S->notes[k];
        free(n->difference);
        free(n->reason);
        free(n->experiment);
        free(n->result);
    }
    free(S->notes);
    free(S);
    *Sp = NULL;
}

/* ------------------------------------------------- reading YAML nodes */

typedef struct {
    const char *path;
    yaml_document_t doc;
    mcb_xp_spec *S;
    mcb_err *err;
    const mcb_xp_checks *checks; /* against the build; NULL: none */
} reader;

static int line_of(const yaml_node_t *n) { return n ? (int)n->start_mark.line + 1 : 0; }

static yaml_node_t *node_at(reader *R, int index) { return yaml_document_get_node(&R->doc, index); }

__attribute__((format(printf, 4, 5)))
static mcb_rc bad(reader *R, const yaml_node_t *n, const char *field, const char *fmt, ...)
{
    char why[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return mcb_fail(R->err, MCB_E_INPUT, "%s:%d: %s: %s", R->path, line_of(n), field, why);
}

static mcb_rc nomem(reader *R) { return mcb_fail(R->err, MCB_E_NOMEM, "out of memory"); }

static const char *scalar(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static int is_plain(const yaml_node_t *n)
{
    return n && n->type == YAML_SCALAR_NODE && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
}

/* YAML's null: an empty plain scalar, ~, null. */
static int is_null(const yaml_node_t *n)
{
    const char *s = scalar(n);
    return is_plain(n) && (!*s || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
                           !strcmp(s, "NULL"));
}

/* How a node looks, for messages. */
static const char *shown(const yaml_node_t *n, char *buf, size_t size)
{
    if (!n) return "nothing";
    if (n->type == YAML_MAPPING_NODE) return "a mapping";
    if (n->type == YAML_SEQUENCE_NODE) return "a list";
    const char *s = scalar(n);
    if (snprintf(buf, size, "'%.80s'", s ? s : "") < 0) return "a scalar";
    return buf;
}

#define SHOWN(n) shown((n), (char[96]){0}, 96)

/* A field name: "PARENT.KEY" (or "KEY" at the top). */
static const char *sub(char *buf, size_t size, const char *parent, const char *key)
{
    if (snprintf(buf, size, "%s%s%s", parent, *parent ? "." : "", key) < 0) buf[0] = '\0';
    return buf;
}

/* "PARENT.KEY[I]". */
static const char *sub_at(char *buf, size_t size, const char *parent, const char *key, int i)
{
    if (snprintf(buf, size, "%s.%s[%d]", parent, key, i) < 0) buf[0] = '\0';
    return buf;
}

#define FIELD_LEN 256
typedef char field_t[FIELD_LEN];

/* The values of mapping n's keys (keys NULL-terminated, at most 16) into
 * vals, NULL for a key absent or null; another key, a key given twice or a
 * node that is not a mapping is an error. */
static mcb_rc map_keys(reader *R, const yaml_node_t *n, const char *field, const char *const *keys,
                       yaml_node_t **vals)
{
    int nk = 0, seen[16] = {0};
    while (keys[nk]) vals[nk++] = NULL;
    if (!n || n->type != YAML_MAPPING_NODE)
        return bad(R, n, *field ? field : "spec", "expected a mapping, got %s", SHOWN(n));
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
        yaml_node_t *k = node_at(R, p->key), *v = node_at(R, p->value);
        const char *ks = scalar(k);
        int i = 0;
        while (ks && keys[i] && strcmp(keys[i], ks) != 0) i++;
        field_t f;
        if (!ks || !keys[i]) {
            char known[512] = "";
            for (int j = 0, at = 0; keys[j] && at < (int)sizeof known; j++)
                at += snprintf(known + at, sizeof known - (size_t)at, "%s%s", j ? ", " : "", keys[j]);
            return bad(R, k, ks ? sub(f, sizeof f, field, ks) : (*field ? field : "spec"),
                       "unknown key%s (known: %s)", ks ? "" : " (not a scalar)", known);
        }
        if (seen[i]) return bad(R, k, sub(f, sizeof f, field, ks), "given twice");
        seen[i] = 1;
        vals[i] = is_null(v) ? NULL : v;
    }
    return MCB_OK;
}

static mcb_rc missing(reader *R, const yaml_node_t *parent, const char *field, const char *key)
{
    field_t f;
    return bad(R, parent, sub(f, sizeof f, field, key), "missing (required)");
}

/* A list's items; at least `min`. */
static mcb_rc list_items(reader *R, const yaml_node_t *n, const char *field, int min,
                         yaml_node_item_t **items, int *count)
{
    *items = NULL;
    *count = 0;
    if (!n || n->type != YAML_SEQUENCE_NODE)
        return bad(R, n, field, "expected a list, got %s", SHOWN(n));
    *items = n->data.sequence.items.start;
    *count = (int)(n->data.sequence.items.top - n->data.sequence.items.start);
    if (*count < min) return bad(R, n, field, "needs at least %d entr%s", min, min == 1 ? "y" : "ies");
    return MCB_OK;
}

/* A string (any scalar but null); v NULL leaves *out NULL. */
static mcb_rc get_str(reader *R, const yaml_node_t *v, const char *field, char **out)
{
    if (!v) return MCB_OK;
    const char *s = scalar(v);
    if (!s) return bad(R, v, field, "expected a string, got %s", SHOWN(v));
    if (!(*out = mcb_strdup(s))) return nomem(R);
    return MCB_OK;
}

/* An id: [A-Za-z0-9_.-]+. */
static mcb_rc get_id(reader *R, const yaml_node_t *v, const char *field, char **out)
{
    const char *s = scalar(v);
    int ok = s && *s;
    for (const char *p = s; ok && *p; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             *p == '_' || *p == '.' || *p == '-';
    if (!ok) return bad(R, v, field, "expected an id of letters, digits, '_', '.', '-', got %s",
                        SHOWN(v));
    return get_str(R, v, field, out);
}

static mcb_rc get_int(reader *R, const yaml_node_t *v, const char *field, long lo, long hi, int *out)
{
    const char *s = scalar(v);
    char *end = NULL;
    errno = 0;
    long x = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || errno || *end || x < lo || x > hi)
        return bad(R, v, field, "expected an integer in [%ld, %ld], got %s", lo, hi, SHOWN(v));
    *out = (int)x;
    return MCB_OK;
}

/* A finite number, from a plain scalar (a quoted one is a string). */
static int to_number(const yaml_node_t *v, double *out)
{
    const char *s = scalar(v);
    if (!is_plain(v) || !*s) return 0;
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || *end || !isfinite(x)) return 0;
    *out = x;
    return 1;
}

/* A finite number >= lo (lo_open: > lo). */
static mcb_rc get_num(reader *R, const yaml_node_t *v, const char *field, double lo, int lo_open,
                      double *out)
{
    double x;
    if (!to_number(v, &x) || x < lo || (lo_open && x == lo)) {
        if (isinf(lo)) return bad(R, v, field, "expected a finite number, got %s", SHOWN(v));
        return bad(R, v, field, "expected a finite number %s %g, got %s", lo_open ? ">" : ">=", lo,
                   SHOWN(v));
    }
    *out = x;
    return MCB_OK;
}

static mcb_rc get_bool(reader *R, const yaml_node_t *v, const char *field, int *out)
{
    const char *s = is_plain(v) ? scalar(v) : NULL;
    if (s && (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE"))) *out = 1;
    else if (s && (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE"))) *out = 0;
    else return bad(R, v, field, "expected true or false, got %s", SHOWN(v));
    return MCB_OK;
}

/* warm_start: true (1), false (0), or a mode of mcbench run --warm-start
 * (none 0, recorded 1, own 2: mcb_warm_mode). */
static mcb_rc get_warm(reader *R, const yaml_node_t *v, const char *field, int *out)
{
    const char *s = is_plain(v) ? scalar(v) : NULL;
    int k = s ? mcb_warm_from_name(s) : -1;
    if (k >= 0) {
        *out = k;
        return MCB_OK;
    }
    if (get_bool(R, v, field, out) == MCB_OK) return MCB_OK;
    return bad(R, v, field, "expected true, false, none, recorded or own, got %s", SHOWN(v));
}

/* One of two words: 0 or 1. */
static mcb_rc get_choice(reader *R, const yaml_node_t *v, const char *field, const char *w0,
                         const char *w1, int *out)
{
    const char *s = scalar(v);
    if (s && !strcmp(s, w0)) *out = 0;
    else if (s && !strcmp(s, w1)) *out = 1;
    else return bad(R, v, field, "expected %s or %s, got %s", w0, w1, SHOWN(v));
    return MCB_OK;
}

/* A word of a vocabulary (from_name < 0: unknown), named by name(0..n-1). */
static mcb_rc get_word(reader *R, const yaml_node_t *v, const char *field, int (*from_name)(const char *),
                       const char *(*name)(int), int n, int (*keep)(int), char **out)
{
    const char *s = scalar(v);
    int k = s ? from_name(s) : -1;
    if (k < 0 || (keep && !keep(k))) {
        char known[256];
        join_names(name, n, keep, known, sizeof known);
        return bad(R, v, field, "expected one of %s, got %s", known, SHOWN(v));
    }
    return get_str(R, v, field, out);
}

static mcb_rc get_quantity(reader *R, const yaml_node_t *v, const char *field, mcb_xp_quantity *q)
{
    const char *s = scalar(v);
    if (!s) return bad(R, v, field, "expected a quantity, got %s", SHOWN(v));
    mcb_err qerr;
    mcb_rc rc = mcb_xp_quantity_parse(s, q, &qerr);
    if (rc == MCB_E_NOMEM) return nomem(R);
    if (rc) return bad(R, v, field, "%s", qerr.msg);
    if (mcb_xp_quantity_loop_only(q) && R->S->protocol != MCB_XP_CLOSED_LOOP) {
        return bad(R, v, field, "%s is measured in a closed loop only (protocol: closed-loop)",
                   q->text ? q->text : s);
    }
    return MCB_OK;
}

/* ------------------------------------------------------------- budgets */

static const char *const budget_keys[] = {"iters", "time_s", "tol", "stop", "repeat", "threads",
                                          "check_every", "law", "formulation",
                                          "friction_directions", "warm_start", NULL};
enum { B_ITERS, B_TIME, B_TOL, B_STOP, B_REPEAT, B_THREADS, B_CHECK, B_LAW, B_FORM, B_FDIRS, B_WARM };

/* The same ranges as mcbench run's options (harness/cli/cmd_run.c). */
static mcb_rc read_budget(reader *R, const yaml_node_t *n, const char *field, mcb_xp_budget *b)
{
    yaml_node_t *v[16];
    field_t f;
    mcb_rc rc = map_keys(R, n, field, budget_keys, v);
#define F(key) sub(f, sizeof f, field, key)
    if (!rc && v[B_ITERS]) rc = get_int(R, v[B_ITERS], F("iters"), 1, 100000000, &b->iters);
    if (!rc && v[B_TIME]) rc = get_num(R, v[B_TIME], F("time_s"), 0, 0, &b->time_s);
    if (!rc && v[B_TOL]) rc = get_num(R, v[B_TOL], F("tol"), 0, 0, &b->tol);
    if (!rc && v[B_STOP])
        rc = get_word(R, v[B_STOP], F("stop"), mcb_metric_from_name, mcb_metric_name, MCB_NMETRICS,
                      mcb_metric_is_residual, &b->stop);
    if (!rc && v[B_REPEAT]) rc = get_int(R, v[B_REPEAT], F("repeat"), 1, 1000, &b->repeat);
    if (!rc && v[B_THREADS]) rc = get_int(R, v[B_THREADS], F("threads"), 1, 1024, &b->threads);
    if (!rc && v[B_CHECK]) {
        /* --check-every: auto, never (harness/runner.h's MCB_CHECK_*) or K in [1, 1e8] */
        const char *s = scalar(v[B_CHECK]);
        int k;
        if (!(s && (!strcmp(s, "auto") || !strcmp(s, "never"))) &&
            get_int(R, v[B_CHECK], F("check_every"), 1, 100000000, &k))
            rc = bad(R, v[B_CHECK], F("check_every"),
                     "expected auto, never or an integer in [1, 100000000], got %s",
                     SHOWN(v[B_CHECK]));
        if (!rc) rc = get_str(R, v[B_CHECK], F("check_every"), &b->check_every);
    }
    if (!rc && v[B_LAW])
        rc = get_word(R, v[B_LAW], F("law"), mcb_law_from_name, mcb_law_name, 2, NULL, &b->law);
    if (!rc && v[B_FORM]) {
        rc = get_str(R, v[B_FORM], F("formulation"), &b->formulation);
        char msg[512];
        if (!rc && R->checks && R->checks->formulation &&
            R->checks->formulation(b->formulation, msg, sizeof msg))
            rc = bad(R, v[B_FORM], F("formulation"), "%s", msg);
    }
    if (!rc && v[B_FDIRS])
        rc = get_int(R, v[B_FDIRS], F("friction_directions"), 3, MCB_XP_FRICTION_DIRS_MAX,
                     &b->friction_directions);
    if (!rc && v[B_WARM]) rc = get_warm(R, v[B_WARM], F("warm_start"), &b->warm_start);
#undef F
    return rc;
}

static void budget_merge(mcb_xp_budget *o, const mcb_xp_budget *b)
{
    if (b->iters) o->iters = b->iters;
    if (b->time_s >= 0) o->time_s = b->time_s;
    if (b->tol >= 0) o->tol = b->tol;
    if (b->stop) o->stop = b->stop;
    if (b->repeat) o->repeat = b->repeat;
    if (b->threads) o->threads = b->threads;
    if (b->check_every) o->check_every = b->check_every;
    if (b->law) o->law = b->law;
    if (b->formulation) o->formulation = b->formulation;
    if (b->friction_directions) o->friction_directions = b->friction_directions;
    if (b->warm_start >= 0) o->warm_start = b->warm_start;
}

void mcb_xp_effective_budget(const mcb_xp_spec *S, const mcb_xp_solver *sv, int quick,
                             mcb_xp_budget *out)
{
    budget_unset(out);
    budget_merge(out, &S->budget);
    if (quick) budget_merge(out, &S->quick_budget);
    if (sv) {
        budget_merge(out, &sv->budget);
        if (quick) budget_merge(out, &sv->quick_budget);
    }
}

/* --------------------------------------------------------- verdict rules */

static mcb_rc read_band(reader *R, const yaml_node_t *n, const char *field, mcb_xp_band *b)
{
    static const char *const keys[] = {"abs", "factor", "bound", NULL};
    yaml_node_t *v[3];
    field_t f;
    mcb_rc rc = map_keys(R, n, field, keys, v);
    if (rc) return rc;
    if (!!v[0] + !!v[1] + !!v[2] != 1)
        return bad(R, n, field, "give exactly one of abs, factor or bound");
    b->abs = b->factor = 0;
    b->bound = 0;
    if (v[0]) return get_num(R, v[0], sub(f, sizeof f, field, "abs"), 0, 1, &b->abs);
    if (v[2]) {
        const char *w = scalar(v[2]);
        if (w && !strcmp(w, "upper")) b->bound = 1;
        else if (w && !strcmp(w, "lower")) b->bound = -1;
        else
            return bad(R, v[2], sub(f, sizeof f, field, "bound"), "expected upper or lower, got %s",
                       SHOWN(v[2]));
        return MCB_OK;
    }
    rc = get_num(R, v[1], sub(f, sizeof f, field, "factor"), 1, 0, &b->factor);
    if (!rc && b->factor == 1)
        rc = bad(R, v[1], f, "expected a factor > 1 (1 is equality), got 1");
    return rc;
}

static mcb_rc read_verdict(reader *R, const yaml_node_t *n)
{
    static const char *const keys[] = {"time", "accuracy", "count", "rate", "fit", NULL};
    yaml_node_t *v[8];
    field_t f;
    mcb_rc rc = map_keys(R, n, "verdict", keys, v);
    for (int k = 0; !rc && keys[k]; k++) /* keys in mcb_xp_class order */
        if (v[k]) rc = read_band(R, v[k], sub(f, sizeof f, "verdict", keys[k]), &R->S->rule[k]);
    return rc;
}

/* The head every list item shares (int line; char *id, *label): its
 * mapping's keys (keys[0] "id", keys[1] "label") into v, its line, its id,
 * unique among the list's first k items (base: the list, of items of
 * `size` bytes with those fields at the offsets given: ITEM_LAYOUT), and
 * its label (the id by default). */
#define ITEM_LAYOUT(T) sizeof(T), offsetof(T, line), offsetof(T, id), offsetof(T, label)
static mcb_rc read_head(reader *R, const yaml_node_t *n, const char *field, const char *list,
                        const char *const *keys, yaml_node_t **v, const void *base, int k,
                        size_t size, size_t line_off, size_t id_off, size_t label_off)
{
    mcb_rc rc = map_keys(R, n, field, keys, v);
    if (rc) return rc;
    const char *items = base;
    char *item = (char *)items + (size_t)k * size, **id = (char **)(item + id_off);
    *(int *)(item + line_off) = line_of(n);
    field_t f;
    if (!v[0]) return missing(R, n, field, "id");
    if ((rc = get_id(R, v[0], sub(f, sizeof f, field, "id"), id))) return rc;
    for (int j = 0; j < k; j++) {
        const char *other = items + (size_t)j * size;
        if (!strcmp(*(char *const *)(other + id_off), *id))
            return bad(R, v[0], f, "'%s' is already the id of %s[%d] (line %d)", *id, list, j,
                       *(const int *)(other + line_off));
    }
    return get_str(R, v[1] ? v[1] : v[0], sub(f, sizeof f, field, "label"),
                   (char **)(item + label_off));
}

/* ------------------------------------------------------- problem groups */

/* A check against the build (R->checks) failed: its reason at node v. */
static mcb_rc check_failed(reader *R, const yaml_node_t *v, const char *field, const char *msg)
{
    return bad(R, v, field, "%s", msg);
}

/* The scene is registered (one trajectory in a closed loop) and its
 * options parse, as mcbench gen and simulate take them. */
static mcb_rc check_scene(reader *R, const mcb_xp_problems *g, const yaml_node_t *vscene,
                          const yaml_node_t *vargs, const yaml_node_t *vquick, const char *fscene,
                          const char *fargs, const char *fquick)
{
    const mcb_xp_checks *c = R->checks;
    char msg[1024];
    if (!c) return MCB_OK;
    if (c->scene && c->scene(g->scene, R->S->protocol == MCB_XP_CLOSED_LOOP, msg, sizeof msg))
        return check_failed(R, vscene, fscene, msg);
    if (c->scene_args && c->scene_args(g->scene, g->args ? g->args : "", msg, sizeof msg))
        return check_failed(R, vargs ? vargs : vscene, fargs, msg);
    if (g->quick_args && c->scene_args && c->scene_args(g->scene, g->quick_args, msg, sizeof msg))
        return check_failed(R, vquick, fquick, msg);
    return MCB_OK;
}

/* The set entry exists, its set checks, and in a closed loop its scene is
 * one trajectory. */
static mcb_rc check_set_entry(reader *R, const mcb_xp_problems *g, const yaml_node_t *vset,
                              const yaml_node_t *ventry, const char *fset, const char *fentry)
{
    const mcb_xp_checks *c = R->checks;
    char msg[1024];
    int which = 0;
    if (c && c->set_entry &&
        c->set_entry(g->set, g->entry, R->S->protocol == MCB_XP_CLOSED_LOOP, &which, msg,
                     sizeof msg))
        return which ? check_failed(R, ventry, fentry, msg) : check_failed(R, vset, fset, msg);
    return MCB_OK;
}

static const char *const group_keys[] = {"id", "label", "scene", "args", "quick", "quick_skip",
                                         "set", "entry", "fclib", "select", "x", "instances",
                                         "quick_instances", NULL};
enum { G_ID, G_LABEL, G_SCENE, G_ARGS, G_QUICK, G_QSKIP, G_SET, G_ENTRY, G_FCLIB, G_SELECT, G_X,
       G_INST, G_QINST };

static mcb_rc read_group(reader *R, const yaml_node_t *n, int k)
{
    mcb_xp_problems *g = &R->S->problems[k];
    field_t field, f;
    snprintf(field, sizeof field, "problems[%d]", k);
    yaml_node_t *v[16];
    mcb_rc rc = read_head(R, n, field, "problems", group_keys, v, R->S->problems, k,
                          ITEM_LAYOUT(mcb_xp_problems));
    if (rc) return rc;
#define F(key) sub(f, sizeof f, field, key)
    if (v[G_FCLIB] && (rc = get_bool(R, v[G_FCLIB], F("fclib"), &g->fclib))) return rc;
    int sources = !!v[G_SCENE] + !!v[G_SET] + g->fclib;
    if (sources != 1)
        return bad(R, n, field, "give exactly one of scene, set (with entry) or fclib: true");
    if (v[G_QSKIP] && (rc = get_bool(R, v[G_QSKIP], F("quick_skip"), &g->quick_skip))) return rc;
    if (v[G_X]) {
        if ((rc = get_num(R, v[G_X], F("x"), -INFINITY, 0, &g->x))) return rc;
        g->has_x = 1;
    }
    if (v[G_SELECT]) {
        if (R->S->protocol != MCB_XP_REPLAY)
            return bad(R, v[G_SELECT], F("select"), "applies to replay only (run's --problems)");
        if ((rc = get_str(R, v[G_SELECT], F("select"), &g->select))) return rc;
    }
    for (int q = 0; q < 2; q++) {
        yaml_node_t *vi = v[q ? G_QINST : G_INST];
        const char *key = q ? "quick_instances" : "instances";
        if (!vi) continue;
        if (R->S->protocol != MCB_XP_CLOSED_LOOP || !v[G_SCENE])
            return bad(R, vi, F(key), "belongs to a closed-loop scene group (simulate's "
                       "--instances: the scene's --seed at SEED, SEED+1, ...)");
        if ((rc = get_int(R, vi, F(key), 1, 10000, q ? &g->quick_instances : &g->instances)))
            return rc;
    }
    if ((v[G_ARGS] || v[G_QUICK]) && !v[G_SCENE])
        return bad(R, v[G_ARGS] ? v[G_ARGS] : v[G_QUICK], v[G_ARGS] ? F("args") : F("quick"),
                   "belongs to a scene group (scene: NAME)");
    if (v[G_ENTRY] && !v[G_SET]) return bad(R, v[G_ENTRY], F("entry"), "belongs to a set group");
    if (g->fclib) {
        if (R->S->protocol != MCB_XP_REPLAY)
            return bad(R, v[G_FCLIB], F("fclib"), "FCLIB files are replayed only (protocol: "
                       "replay), not driven in a closed loop");
        return MCB_OK;
    }
    if (v[G_SET]) {
        if (!v[G_ENTRY]) return missing(R, n, field, "entry");
        if ((rc = get_str(R, v[G_SET], F("set"), &g->set))) return rc;
        if ((rc = get_str(R, v[G_ENTRY], F("entry"), &g->entry))) return rc;
        field_t fs;
        return check_set_entry(R, g, v[G_SET], v[G_ENTRY], sub(fs, sizeof fs, field, "set"),
                               F("entry"));
    }
    if ((rc = get_str(R, v[G_SCENE], F("scene"), &g->scene))) return rc;
    if ((rc = get_str(R, v[G_ARGS], F("args"), &g->args))) return rc;
    if ((rc = get_str(R, v[G_QUICK], F("quick"), &g->quick_args))) return rc;
    field_t fa, fq;
    if ((rc = check_scene(R, g, v[G_SCENE], v[G_ARGS] ? v[G_ARGS] : n, v[G_QUICK], F("scene"),
                          sub(fa, sizeof fa, field, "args"), sub(fq, sizeof fq, field, "quick"))))
        return rc;
#undef F
    return MCB_OK;
}

/* -------------------------------------------------------- solver entries */

/* The parameters (names and finite numbers), then the check against the
 * build: the solver registered, each parameter as `mcbench run --param
 * S.NAME=VAL` takes it, and the solver's own check of the whole set. */
static mcb_rc read_params(reader *R, const yaml_node_t *n, const char *field, mcb_xp_solver *sv,
                          yaml_node_t **vals)
{
    if (n->type != YAML_MAPPING_NODE) return bad(R, n, field, "expected a mapping, got %s", SHOWN(n));
    int np = (int)(n->data.mapping.pairs.top - n->data.mapping.pairs.start);
    if (np == 0) return MCB_OK;
    if (np > MCB_XP_MAX_PARAMS) return bad(R, n, field, "more than %d parameters", MCB_XP_MAX_PARAMS);
    if (!(sv->params = mcb_calloc((size_t)np, sizeof *sv->params))) return nomem(R);
    sv->nparams = np;
    mcb_rc rc = MCB_OK;
    field_t f;
    for (int k = 0; k < np && !rc; k++) {
        yaml_node_pair_t *p = &n->data.mapping.pairs.start[k];
        yaml_node_t *key = node_at(R, p->key), *val = node_at(R, p->value);
        vals[k] = val;
        const char *name = scalar(key);
        if (!name) {
            rc = bad(R, key, field, "expected a parameter name, got %s", SHOWN(key));
            break;
        }
        sub(f, sizeof f, field, name);
        for (int j = 0; j < k && !rc; j++)
            if (!strcmp(sv->params[j].name, name)) rc = bad(R, key, f, "given twice");
        if (!rc && !to_number(val, &sv->params[k].value))
            rc = bad(R, val, f, "expected a finite number, got %s", SHOWN(val));
        if (!rc) rc = get_str(R, key, f, &sv->params[k].name);
    }
    return rc;
}

static mcb_rc read_solver(reader *R, const yaml_node_t *n, int k)
{
    static const char *const keys[] = {"id",    "label", "solver", "params",
                                       "budget", "quick", "needs", NULL};
    mcb_xp_solver *sv = &R->S->solvers[k];
    budget_unset(&sv->budget);
    budget_unset(&sv->quick_budget);
    field_t field, f;
    snprintf(field, sizeof field, "solvers[%d]", k);
    yaml_node_t *v[8];
    mcb_rc rc = read_head(R, n, field, "solvers", keys, v, R->S->solvers, k,
                          ITEM_LAYOUT(mcb_xp_solver));
    if (rc) return rc;
#define F(key) sub(f, sizeof f, field, key)
    if (!v[2]) return missing(R, n, field, "solver");
    if ((rc = get_str(R, v[2], F("solver"), &sv->solver))) return rc;
    if (v[6] && (rc = get_str(R, v[6], F("needs"), &sv->needs))) return rc;
    if (sv->needs && strcmp(sv->needs, "gpu"))
        return bad(R, v[6], F("needs"), "expected gpu, got %s", SHOWN(v[6]));
    yaml_node_t *vals[MCB_XP_MAX_PARAMS];
    if (v[3] && (rc = read_params(R, v[3], F("params"), sv, vals))) return rc;
    char msg[1024];
    int which = -1;
    int failed = R->checks && R->checks->solver &&
                 R->checks->solver(sv->solver, R->S->protocol == MCB_XP_CLOSED_LOOP, sv->params,
                                   sv->nparams, &which, msg, sizeof msg);
    /* a build without the device's solvers (no CUDA) still reads the spec:
     * the entry is skipped with the device query's reason */
    if (failed && !(sv->needs && which == -1)) {
        if (which >= 0 && which < sv->nparams) {
            field_t fp, fq;
            sub(fq, sizeof fq, field, "params");
            sub(fp, sizeof fp, fq, sv->params[which].name);
            return check_failed(R, vals[which], fp, msg);
        }
        return v[3] && which == -2 ? check_failed(R, v[3], F("params"), msg)
                                   : check_failed(R, v[2], F("solver"), msg);
    }
    if (v[4] && (rc = read_budget(R, v[4], F("budget"), &sv->budget))) return rc;
    if (v[5] && (rc = read_budget(R, v[5], F("quick"), &sv->quick_budget))) return rc;
#undef F
    return MCB_OK;
}

/* ---------------------------------------------------------------- lookups */

const mcb_xp_problems *mcb_xp_find_problems(const mcb_xp_spec *S, const char *id)
{
    for (int k = 0; S && id && k < S->nproblems; k++)
        if (S->problems[k].id && !strcmp(S->problems[k].id, id)) return &S->problems[k];
    return NULL;
}

const mcb_xp_solver *mcb_xp_find_solver(const mcb_xp_spec *S, const char *id)
{
    for (int k = 0; S && id && k < S->nsolvers; k++)
        if (S->solvers[k].id && !strcmp(S->solvers[k].id, id)) return &S->solvers[k];
    return NULL;
}

/* An id naming a problem group or a solver entry, read and checked. */
static mcb_rc get_ref(reader *R, const yaml_node_t *v, const char *field, int solver, char **out)
{
    mcb_rc rc = get_str(R, v, field, out);
    if (rc || !*out) return rc;
    if (solver ? !!mcb_xp_find_solver(R->S, *out) : !!mcb_xp_find_problems(R->S, *out)) return MCB_OK;
    return bad(R, v, field, "'%s' is not the id of any %s", *out,
               solver ? "solver entry (solvers)" : "problem group (problems)");
}

/* ------------------------------------------------------------ published */

/* A number, "-" (a failure), succeeds/fails, or ~ (none). */
static mcb_rc read_value(reader *R, const yaml_node_t *v, const char *field, mcb_xp_value *out)
{
    memset(out, 0, sizeof *out);
    if (!v || is_null(v)) return MCB_OK;
    const char *s = scalar(v);
    if (s && !strcmp(s, "-")) out->kind = MCB_XP_FAILED;
    else if (s && (!strcmp(s, "succeeds") || !strcmp(s, "fails"))) {
        out->kind = MCB_XP_CATEGORY;
        if (!(out->category = mcb_strdup(s))) return nomem(R);
    } else if (to_number(v, &out->number))
        out->kind = MCB_XP_NUMBER;
    else
        return bad(R, v, field, "expected a finite number, \"-\" (a failure), succeeds, fails or "
                   "~ (not published), got %s%s", SHOWN(v), is_plain(v) ? "" : " (quoted)");
    return MCB_OK;
}

/* A published value against its quantity and unit: categories only for
 * outcome, numbers not for outcome and with a unit. */
static mcb_rc check_value(reader *R, const mcb_xp_value *val, const mcb_xp_quantity *q, int has_unit,
                          const yaml_node_t *v, const char *field)
{
    if (val->kind == MCB_XP_CATEGORY && q->id != MCB_XQ_OUTCOME)
        return bad(R, v, field, "'%s' is an outcome, but the quantity is %s", val->category, q->text);
    if (val->kind == MCB_XP_NUMBER && q->id == MCB_XQ_OUTCOME)
        return bad(R, v, field, "an outcome is succeeds or fails, not a number");
    if (val->kind == MCB_XP_NUMBER && !has_unit)
        return bad(R, v, field, "a published number needs its unit (unit: \"%s\" for %s)",
                   unit_in(R->S, q), q->text);
    return MCB_OK;
}

static mcb_rc check_unit(reader *R, const char *unit, const mcb_xp_quantity *q, int line,
                         const char *field)
{
    const char *want = unit_in(R->S, q);
    if (!unit || !strcmp(unit, want)) return MCB_OK;
    return mcb_fail(R->err, MCB_E_INPUT, "%s:%d: %s: '%s' is not the unit of %s ('%s')", R->path,
                    line, field, unit, q->text, want);
}

/* -------------------------------------------------------------- tables */

static int figure_only(const mcb_xp_quantity *q)
{
    return q->id == MCB_XQ_FIT_R2 || q->id == MCB_XQ_FIT_SLOPE || q->id == MCB_XQ_Y_AT ||
           q->id == MCB_XQ_Y_FINAL;
}

static const char *const binding_keys[] = {"id", "label", "solver", "problems", "quantity", "unit",
                                           "ref", "band", "published", NULL};
enum { T_ID, T_LABEL, T_SOLVER, T_PROBLEMS, T_QUANTITY, T_UNIT, T_REF, T_BAND, T_PUBLISHED };

/* The checks of cell (row r, column c): solver, problems and quantity
 * each from exactly one of the two; units; the published value. */
static mcb_rc check_cell(reader *R, int r, int c, const yaml_node_t *vrow, const yaml_node_t *vpub)
{
    const mcb_xp_binding *row = &R->S->rows[r], *col = &R->S->cols[c];
    field_t field;
    snprintf(field, sizeof field, "layout.rows[%d]", r);
    const char *what[3] = {"solver", "problems", "quantity"};
    int in_row[3] = {!!row->solver, !!row->problems, row->has_quantity};
    int in_col[3] = {!!col->solver, !!col->problems, col->has_quantity};
    for (int k = 0; k < 3; k++)
        if (in_row[k] == in_col[k])
            return bad(R, vrow, field, "the cell of row '%s' and column '%s' (columns[%d]) has its "
                       "%s %s: give it on exactly one of the two", row->id, col->id, c, what[k],
                       in_row[k] ? "from both" : "from neither");
    const mcb_xp_quantity *q = row->has_quantity ? &row->quantity : &col->quantity;
    field_t f;
    mcb_rc rc = check_unit(R, row->unit, q, row->line, sub(f, sizeof f, field, "unit"));
    if (!rc) {
        snprintf(f, sizeof f, "layout.columns[%d].unit", c);
        rc = check_unit(R, col->unit, q, col->line, f);
    }
    if (!rc && (row->band.bound || col->band.bound) && mcb_xp_quantity_class(q) == MCB_XV_TIME)
        rc = bad(R, vrow, field, "the cell of row '%s' and column '%s' is a time: times are "
                 "compared as ratios, never against a bound", row->id, col->id);
    if (!rc && row->npublished) {
        snprintf(f, sizeof f, "layout.rows[%d].published[%d]", r, c);
        rc = check_value(R, &row->published[c], q, row->unit || col->unit, vpub, f);
    }
    return rc;
}

static mcb_rc read_binding(reader *R, const yaml_node_t *n, int is_row, int k)
{
    mcb_xp_binding *b = is_row ? &R->S->rows[k] : &R->S->cols[k];
    const mcb_xp_binding *axis = is_row ? R->S->rows : R->S->cols;
    const char *list = is_row ? "rows" : "columns";
    field_t field, f;
    snprintf(field, sizeof field, "layout.%s[%d]", list, k);
    yaml_node_t *v[16];
    field_t lf;
    mcb_rc rc = read_head(R, n, field, sub(lf, sizeof lf, "layout", list), binding_keys, v, axis,
                          k, ITEM_LAYOUT(mcb_xp_binding));
    if (rc) return rc;
#define F(key) sub(f, sizeof f, field, key)
    if ((rc = get_ref(R, v[T_SOLVER], F("solver"), 1, &b->solver))) return rc;
    if ((rc = get_ref(R, v[T_PROBLEMS], F("problems"), 0, &b->problems))) return rc;
    if (v[T_QUANTITY]) {
        if ((rc = get_quantity(R, v[T_QUANTITY], F("quantity"), &b->quantity))) return rc;
        b->has_quantity = 1;
        if (figure_only(&b->quantity))
            return bad(R, v[T_QUANTITY], F("quantity"), "%s is a figure's quantity (claims), not "
                       "a table's", b->quantity.text);
    }
    if ((rc = get_str(R, v[T_UNIT], F("unit"), &b->unit))) return rc;
    if ((rc = get_str(R, v[T_REF], F("ref"), &b->ref))) return rc;
    if (v[T_BAND] && (rc = read_band(R, v[T_BAND], F("band"), &b->band))) return rc;
    if (v[T_PUBLISHED]) {
        if (!is_row)
            return bad(R, v[T_PUBLISHED], F("published"), "published values are given on rows, "
                       "one per column");
        yaml_node_item_t *items;
        int n_items;
        if ((rc = list_items(R, v[T_PUBLISHED], F("published"), 0, &items, &n_items))) return rc;
        if (n_items != R->S->ncols)
            return bad(R, v[T_PUBLISHED], F("published"), "%d values for %d columns (one per "
                       "column, ~ where nothing is published)", n_items, R->S->ncols);
        if (n_items && !(b->published = mcb_calloc((size_t)n_items, sizeof *b->published)))
            return nomem(R);
        b->npublished = n_items;
        for (int j = 0; j < n_items; j++) {
            sub_at(f, sizeof f, field, "published", j);
            if ((rc = read_value(R, node_at(R, items[j]), f, &b->published[j]))) return rc;
        }
    }
    if (is_row) /* the columns are read: check each cell of the row */
        for (int c = 0; c < R->S->ncols; c++) {
            const yaml_node_t *vp =
                b->npublished ? node_at(R, v[T_PUBLISHED]->data.sequence.items.start[c]) : n;
            if ((rc = check_cell(R, k, c, n, vp))) return rc;
        }
#undef F
    return MCB_OK;
}

/* ref names another binding of the same axis (checked once the axis is read). */
static mcb_rc check_refs(reader *R, int is_row)
{
    const mcb_xp_binding *axis = is_row ? R->S->rows : R->S->cols;
    int n = is_row ? R->S->nrows : R->S->ncols;
    const char *list = is_row ? "rows" : "columns";
    for (int k = 0; k < n; k++) {
        if (!axis[k].ref) continue;
        int j = 0;
        while (j < n && strcmp(axis[j].id, axis[k].ref) != 0) j++;
        if (j == n || j == k)
            return mcb_fail(R->err, MCB_E_INPUT, "%s:%d: layout.%s[%d].ref: '%s' is not the id of "
                            "another of the layout's %s", R->path, axis[k].line, list, k,
                            axis[k].ref, list);
    }
    return MCB_OK;
}

static mcb_rc read_layout(reader *R, const yaml_node_t *n)
{
    static const char *const keys[] = {"columns", "rows", NULL};
    yaml_node_t *v[2];
    mcb_rc rc = map_keys(R, n, "layout", keys, v);
    if (rc) return rc;
    if (!v[0]) return missing(R, n, "layout", "columns");
    if (!v[1]) return missing(R, n, "layout", "rows");
    for (int is_row = 0; is_row < 2; is_row++) {
        yaml_node_item_t *items;
        int count;
        const char *f = is_row ? "layout.rows" : "layout.columns";
        if ((rc = list_items(R, v[is_row], f, 1, &items, &count))) return rc;
        mcb_xp_binding **arr = is_row ? &R->S->rows : &R->S->cols;
        if (!(*arr = mcb_calloc((size_t)count, sizeof **arr))) return nomem(R);
        *(is_row ? &R->S->nrows : &R->S->ncols) = count;
        for (int k = 0; k < count; k++)
            if ((rc = read_binding(R, node_at(R, items[k]), is_row, k))) return rc;
        if ((rc = check_refs(R, is_row))) return rc;
    }
    return MCB_OK;
}

/* ------------------------------------------------------------- figures */

static mcb_rc read_axis(reader *R, const yaml_node_t *n, int is_y)
{
    static const char *const xkeys[] = {"axis", "label", "log", NULL};
    static const char *const ykeys[] = {"quantity", "label", "log", NULL};
    static const char *const axes[] = {"param", "dof", "iteration", "time_s", "profile"};
    mcb_xp_axis *a = is_y ? &R->S->y : &R->S->x;
    const char *field = is_y ? "figure.y" : "figure.x";
    field_t f;
    yaml_node_t *v[4];
    mcb_rc rc = map_keys(R, n, field, is_y ? ykeys : xkeys, v);
    if (rc) return rc;
    if (!v[0]) return missing(R, n, field, is_y ? "quantity" : "axis");
    if ((rc = get_str(R, v[1], sub(f, sizeof f, field, "label"), &a->label))) return rc;
    if (v[2] && (rc = get_bool(R, v[2], sub(f, sizeof f, field, "log"), &a->log))) return rc;
    sub(f, sizeof f, field, is_y ? "quantity" : "axis");
    if (!is_y) {
        const char *s = scalar(v[0]);
        int k = 0;
        while (s && k < 5 && strcmp(axes[k], s) != 0) k++;
        if (!s || k == 5)
            return bad(R, v[0], f, "expected param, dof, iteration, time_s or profile, got %s",
                       SHOWN(v[0]));
        a->kind = (mcb_xp_axis_kind)k;
        return MCB_OK;
    }
    if ((rc = get_quantity(R, v[0], f, &a->y))) return rc;
    if (figure_only(&a->y) || a->y.id == MCB_XQ_OUTCOME)
        return bad(R, v[0], f, "%s cannot be a figure's y (a measured number per point)", a->y.text);
    int curve = R->S->x.kind == MCB_XA_ITERATION || R->S->x.kind == MCB_XA_TIME_S;
    if (curve && a->y.id != MCB_XQ_RESIDUAL)
        return bad(R, v[0], f, "x axis %s draws curves: y must be residual:METRIC, got %s",
                   R->S->x.kind == MCB_XA_ITERATION ? "iteration" : "time_s", a->y.text);
    if (R->S->x.kind == MCB_XA_PROFILE && a->y.id != MCB_XQ_TIME_MS && a->y.id != MCB_XQ_ITERATIONS)
        return bad(R, v[0], f, "x axis profile compares solvers per problem: y must be time_ms or "
                   "iterations, got %s", a->y.text);
    return MCB_OK;
}

static mcb_rc read_series(reader *R, const yaml_node_t *n, int k)
{
    static const char *const keys[] = {"id", "label", "solver", "problems", "fit", NULL};
    mcb_xp_series *s = &R->S->series[k];
    field_t field, f;
    snprintf(field, sizeof field, "figure.series[%d]", k);
    yaml_node_t *v[8];
    mcb_rc rc = read_head(R, n, field, "figure.series", keys, v, R->S->series, k,
                          ITEM_LAYOUT(mcb_xp_series));
    if (rc) return rc;
#define F(key) sub(f, sizeof f, field, key)
    if (!v[2]) return missing(R, n, field, "solver");
    if ((rc = get_ref(R, v[2], F("solver"), 1, &s->solver))) return rc;
    if (v[4] && (rc = get_bool(R, v[4], F("fit"), &s->fit))) return rc;
    if (!v[3]) return missing(R, n, field, "problems");
    yaml_node_item_t *items;
    int count;
    if ((rc = list_items(R, v[3], F("problems"), 1, &items, &count))) return rc;
    if (!(s->problems = mcb_calloc((size_t)count, sizeof *s->problems))) return nomem(R);
    s->nproblems = count;
    for (int j = 0; j < count; j++) {
        yaml_node_t *vj = node_at(R, items[j]);
        sub_at(f, sizeof f, field, "problems", j);
        if ((rc = get_ref(R, vj, f, 0, &s->problems[j]))) return rc;
        if (!s->problems[j]) return bad(R, vj, f, "expected a problem group's id, got ~");
        if (R->S->x.kind == MCB_XA_PARAM && !mcb_xp_find_problems(R->S, s->problems[j])->has_x)
            return bad(R, vj, f, "group '%s' has no x, which the figure's param axis needs",
                       s->problems[j]);
    }
#undef F
    return MCB_OK;
}

static mcb_rc read_figure(reader *R, const yaml_node_t *n)
{
    static const char *const keys[] = {"x", "y", "series", NULL};
    yaml_node_t *v[4];
    mcb_rc rc = map_keys(R, n, "figure", keys, v);
    if (rc) return rc;
    if (!v[0]) return missing(R, n, "figure", "x");
    if (!v[1]) return missing(R, n, "figure", "y");
    if (!v[2]) return missing(R, n, "figure", "series");
    if ((rc = read_axis(R, v[0], 0)) || (rc = read_axis(R, v[1], 1))) return rc;
    yaml_node_item_t *items;
    int count;
    if ((rc = list_items(R, v[2], "figure.series", 1, &items, &count))) return rc;
    if (!(R->S->series = mcb_calloc((size_t)count, sizeof *R->S->series))) return nomem(R);
    R->S->nseries = count;
    for (int k = 0; k < count; k++)
        if ((rc = read_series(R, node_at(R, items[k]), k))) return rc;
    return MCB_OK;
}

static mcb_rc read_claim(reader *R, const yaml_node_t *n, int k)
{
    static const char *const keys[] = {"id", "label", "series", "quantity", "unit", "ref",
                                       "published", "band", NULL};
    mcb_xp_claim *c = &R->S->claims[k];
    field_t field, f;
    snprintf(field, sizeof field, "claims[%d]", k);
    yaml_node_t *v[8];
    mcb_rc rc = read_head(R, n, field, "claims", keys, v, R->S->claims, k,
                          ITEM_LAYOUT(mcb_xp_claim));
    if (rc) return rc;
#define F(key) sub(f, sizeof f, field, key)
    if (!v[2]) return missing(R, n, field, "series");
    if ((rc = get_str(R, v[2], F("series"), &c->series))) return rc;
    const mcb_xp_series *s = NULL;
    for (int j = 0; j < R->S->nseries && !s; j++)
        if (!strcmp(R->S->series[j].id, c->series)) s = &R->S->series[j];
    if (!s) return bad(R, v[2], F("series"), "'%s' is not the id of any figure.series", c->series);
    if (!v[3]) return missing(R, n, field, "quantity");
    if ((rc = get_quantity(R, v[3], F("quantity"), &c->quantity))) return rc;
    if (!figure_only(&c->quantity))
        return bad(R, v[3], F("quantity"), "a claim measures a series: fit_r2, fit_slope, y_at:X "
                   "or y_final, got %s", c->quantity.text);
    if ((c->quantity.id == MCB_XQ_FIT_R2 || c->quantity.id == MCB_XQ_FIT_SLOPE) && !s->fit)
        return bad(R, v[3], F("quantity"), "%s needs series '%s' to have fit: true",
                   c->quantity.text, s->id);
    if ((rc = get_str(R, v[4], F("unit"), &c->unit))) return rc;
    if ((rc = check_unit(R, c->unit, &c->quantity, line_of(v[4]), F("unit")))) return rc;
    if ((rc = get_str(R, v[5], F("ref"), &c->ref))) return rc;
    if ((rc = read_value(R, v[6], F("published"), &c->published))) return rc;
    if ((rc = check_value(R, &c->published, &c->quantity, !!c->unit, v[6], F("published"))))
        return rc;
    if (v[7] && (rc = read_band(R, v[7], F("band"), &c->band))) return rc;
#undef F
    return MCB_OK;
}

static mcb_rc read_claims(reader *R, const yaml_node_t *n)
{
    yaml_node_item_t *items;
    int count;
    mcb_rc rc = list_items(R, n, "claims", 0, &items, &count);
    if (rc || !count) return rc;
    if (!(R->S->claims = mcb_calloc((size_t)count, sizeof *R->S->claims))) return nomem(R);
    R->S->nclaims = count;
    for (int k = 0; k < count; k++)
        if ((rc = read_claim(R, node_at(R, items[k]), k))) return rc;
    for (int k = 0; k < count; k++) {
        const mcb_xp_claim *c = &R->S->claims[k];
        if (c->band.bound && mcb_xp_class_in(R->S, &c->quantity) == MCB_XV_TIME)
            return mcb_fail(R->err, MCB_E_INPUT, "%s:%d: claims[%d].band.bound: a time is compared "
                            "as a ratio, never against a bound", R->path, c->line, k);
        if (!c->ref) continue;
        int j = 0;
        while (j < count && strcmp(R->S->claims[j].id, c->ref) != 0) j++;
        if (j == count || j == k)
            return mcb_fail(R->err, MCB_E_INPUT, "%s:%d: claims[%d].ref: '%s' is not the id of "
                            "another claim", R->path, c->line, k, c->ref);
    }
    return MCB_OK;
}

/* ---------------------------------------------------------------- notes */

static mcb_rc read_notes(reader *R, const yaml_node_t *n)
{
    static const char *const keys[] = {"difference", "reason", "experiment", "tested", "result",
                                       NULL};
    yaml_node_item_t *items;
    int count;
    mcb_rc rc = list_items(R, n, "notes", 0, &items, &count);
    if (rc || !count) return rc;
    if (!(R->S->notes = mcb_calloc((size_t)count, sizeof *R->S->notes))) return nomem(R);
    R->S->nnotes = count;
    for (int k = 0; k < count; k++) {
        mcb_xp_note *note = &R->S->notes[k];
        yaml_node_t *nk = node_at(R, items[k]), *v[8];
        field_t field, f;
        snprintf(field, sizeof field, "notes[%d]", k);
        if ((rc = map_keys(R, nk, field, keys, v))) return rc;
        note->line = line_of(nk);
        if (!v[0]) return missing(R, nk, field, "difference");
        if (!v[1]) return missing(R, nk, field, "reason");
        if ((rc = get_str(R, v[0], sub(f, sizeof f, field, "difference"), &note->difference)) ||
            (rc = get_str(R, v[1], sub(f, sizeof f, field, "reason"), &note->reason)) ||
            (rc = get_str(R, v[2], sub(f, sizeof f, field, "experiment"), &note->experiment)) ||
            (rc = get_str(R, v[4], sub(f, sizeof f, field, "result"), &note->result)))
            return rc;
        if (v[3] && (rc = get_bool(R, v[3], sub(f, sizeof f, field, "tested"), &note->tested)))
            return rc;
        if (note->tested && (!note->experiment || !note->result))
            return bad(R, v[3], f, "a tested note names its experiment and its result");
    }
    return MCB_OK;
}

/* ------------------------------------------------------------ top level */

static const char *const top_keys[] = {"name", "title", "source", "kind", "protocol", "problems",
                                       "solvers", "budget", "quick", "verdict", "layout",
                                       "figure", "claims", "caveat", "notes", NULL};
enum { K_NAME, K_TITLE, K_SOURCE, K_KIND, K_PROTOCOL, K_PROBLEMS, K_SOLVERS, K_BUDGET, K_QUICK,
       K_VERDICT, K_LAYOUT, K_FIGURE, K_CLAIMS, K_CAVEAT, K_NOTES };

static mcb_rc read_source(reader *R, const yaml_node_t *n)
{
    static const char *const keys[] = {"paper", "citation", "item", "where", NULL};
    yaml_node_t *v[4];
    field_t f;
    mcb_rc rc = map_keys(R, n, "source", keys, v);
    if (rc) return rc;
    if (!v[0]) return missing(R, n, "source", "paper");
    if (!v[2]) return missing(R, n, "source", "item");
    if ((rc = get_str(R, v[0], sub(f, sizeof f, "source", "paper"), &R->S->paper)) ||
        (rc = get_str(R, v[1], sub(f, sizeof f, "source", "citation"), &R->S->citation)) ||
        (rc = get_str(R, v[2], sub(f, sizeof f, "source", "item"), &R->S->item)) ||
        (rc = get_str(R, v[3], sub(f, sizeof f, "source", "where"), &R->S->where)))
        return rc;
    return MCB_OK;
}

/* The file's stem: its base name without the last extension. */
static void file_stem(const char *path, char *buf, size_t size)
{
    const char *base = strrchr(path, '/');
    snprintf(buf, size, "%s", base ? base + 1 : path);
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf) *dot = '\0';
}

static mcb_rc read_spec(reader *R, const yaml_node_t *root)
{
    mcb_xp_spec *S = R->S;
    yaml_node_t *v[16];
    mcb_rc rc = map_keys(R, root, "", top_keys, v);
    if (rc) return rc;
    static const int required[] = {K_NAME, K_TITLE, K_SOURCE, K_KIND, K_PROTOCOL, K_PROBLEMS,
                                   K_SOLVERS};
    for (size_t k = 0; k < sizeof required / sizeof required[0]; k++)
        if (!v[required[k]])
            return bad(R, root, top_keys[required[k]], "missing (required)");
    if ((rc = get_str(R, v[K_NAME], "name", &S->name))) return rc;
    char stem[256];
    file_stem(S->path, stem, sizeof stem);
    if (strcmp(S->name, stem) != 0)
        return bad(R, v[K_NAME], "name", "'%s' is not the file's stem '%s'", S->name, stem);
    if ((rc = get_str(R, v[K_TITLE], "title", &S->title))) return rc;
    if ((rc = read_source(R, v[K_SOURCE]))) return rc;
    int x;
    if ((rc = get_choice(R, v[K_KIND], "kind", "table", "figure", &x))) return rc;
    S->kind = x ? MCB_XP_FIGURE : MCB_XP_TABLE;
    if ((rc = get_choice(R, v[K_PROTOCOL], "protocol", "replay", "closed-loop", &x))) return rc;
    S->protocol = x ? MCB_XP_CLOSED_LOOP : MCB_XP_REPLAY;
    if ((rc = get_str(R, v[K_CAVEAT], "caveat", &S->caveat))) return rc;

    yaml_node_item_t *items;
    int count;
    if ((rc = list_items(R, v[K_PROBLEMS], "problems", 1, &items, &count))) return rc;
    if (!(S->problems = mcb_calloc((size_t)count, sizeof *S->problems))) return nomem(R);
    S->nproblems = count;
    for (int k = 0; k < count; k++)
        if ((rc = read_group(R, node_at(R, items[k]), k))) return rc;
    if ((rc = list_items(R, v[K_SOLVERS], "solvers", 1, &items, &count))) return rc;
    if (!(S->solvers = mcb_calloc((size_t)count, sizeof *S->solvers))) return nomem(R);
    S->nsolvers = count;
    for (int k = 0; k < count; k++)
        if ((rc = read_solver(R, node_at(R, items[k]), k))) return rc;

    if (v[K_BUDGET] && (rc = read_budget(R, v[K_BUDGET], "budget", &S->budget))) return rc;
    if (v[K_QUICK]) {
        static const char *const qkeys[] = {"budget", NULL};
        yaml_node_t *q[1];
        if ((rc = map_keys(R, v[K_QUICK], "quick", qkeys, q))) return rc;
        if (q[0] && (rc = read_budget(R, q[0], "quick.budget", &S->quick_budget))) return rc;
    }
    if (v[K_VERDICT] && (rc = read_verdict(R, v[K_VERDICT]))) return rc;

    if (S->kind == MCB_XP_TABLE) {
        if (v[K_FIGURE]) return bad(R, v[K_FIGURE], "figure", "kind: table has no figure");
        if (!v[K_LAYOUT]) return bad(R, root, "layout", "missing (required for kind: table)");
        if (v[K_CLAIMS]) return bad(R, v[K_CLAIMS], "claims", "kind: table has no claims (its "
                                    "published values are in layout.rows)");
        if ((rc = read_layout(R, v[K_LAYOUT]))) return rc;
    } else {
        if (v[K_LAYOUT]) return bad(R, v[K_LAYOUT], "layout", "kind: figure has no layout");
        if (!v[K_FIGURE]) return bad(R, root, "figure", "missing (required for kind: figure)");
        if ((rc = read_figure(R, v[K_FIGURE]))) return rc;
        if (v[K_CLAIMS] && (rc = read_claims(R, v[K_CLAIMS]))) return rc;
    }
    if (v[K_NOTES] && (rc = read_notes(R, v[K_NOTES]))) return rc;
    return MCB_OK;
}

mcb_rc mcb_xp_read(const char *path, const mcb_xp_checks *checks, mcb_xp_spec **out,
                   mcb_err *err)
{
    *out = NULL;
    FILE *fp = fopen(path, "rb");
    if (!fp) return mcb_fail(err, MCB_E_INPUT, "experiment spec %s: %s", path, strerror(errno));
    reader R = {.path = path, .err = err, .checks = checks};
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser)) {
        fclose(fp);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    yaml_parser_set_input_file(&parser, fp);
    int loaded = yaml_parser_load(&parser, &R.doc);
    mcb_rc rc = MCB_OK;
    if (!loaded) {
        if (parser.error == YAML_MEMORY_ERROR) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        else if (parser.context)
            rc = mcb_fail(err, MCB_E_INPUT, "%s:%d: YAML syntax error: %s (%s, line %d)", path,
                          (int)parser.problem_mark.line + 1, parser.problem ? parser.problem : "",
                          parser.context, (int)parser.context_mark.line + 1);
        else
            rc = mcb_fail(err, MCB_E_INPUT, "%s:%d: YAML syntax error: %s", path,
                          (int)parser.problem_mark.line + 1,
                          parser.problem ? parser.problem : "unreadable");
    }
    yaml_parser_delete(&parser);
    fclose(fp);
    if (rc) return rc;
    yaml_node_t *root = yaml_document_get_root_node(&R.doc);
    mcb_xp_spec *S = NULL;
    if (!root) rc = mcb_fail(err, MCB_E_INPUT, "%s: empty experiment spec", path);
    else if (!(S = calloc(1, sizeof *S)) || !(S->path = mcb_strdup(path)))
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc) {
        R.S = S;
        budget_unset(&S->budget);
        budget_unset(&S->quick_budget);
        S->rule[MCB_XV_TIME].factor = 2;
        S->rule[MCB_XV_ACCURACY].abs = 1;
        S->rule[MCB_XV_COUNT].factor = 1.5;
        S->rule[MCB_XV_RATE].abs = 0.05;
        S->rule[MCB_XV_FIT].abs = 0.01;
        rc = read_spec(&R, root);
    }
    yaml_document_delete(&R.doc);
    if (rc) mcb_xp_free(&S);
    *out = S;
    return rc;
}

/* ---------------------------------------------------------------- pairs */

static int group_index(const mcb_xp_spec *S, const char *id)
{
    const mcb_xp_problems *g = mcb_xp_find_problems(S, id);
    return g ? (int)(g - S->problems) : -1;
}

static int solver_index(const mcb_xp_spec *S, const char *id)
{
    const mcb_xp_solver *v = mcb_xp_find_solver(S, id);
    return v ? (int)(v - S->solvers) : -1;
}

/* Appends (g, s) unless present or left out under quick. */
static void add_pair(const mcb_xp_spec *S, int quick, int g, int s, int *pairs, int *n)
{
    if (g < 0 || s < 0 || (quick && S->problems[g].quick_skip)) return;
    for (int k = 0; k < *n; k++)
        if (pairs[2 * k] == g && pairs[2 * k + 1] == s) return;
    pairs[2 * *n] = g;
    pairs[2 * *n + 1] = s;
    (*n)++;
}

mcb_rc mcb_xp_pairs(const mcb_xp_spec *S, int quick, int **pairs, int *count, mcb_err *err)
{
    *pairs = NULL;
    *count = 0;
    size_t cap = (size_t)S->nproblems * (size_t)S->nsolvers;
    int *p = mcb_malloc(2 * (cap ? cap : 1), sizeof *p);
    if (!p) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int n = 0;
    if (S->kind == MCB_XP_TABLE) {
        for (int r = 0; r < S->nrows; r++)
            for (int c = 0; c < S->ncols; c++) {
                const mcb_xp_binding *row = &S->rows[r], *col = &S->cols[c];
                add_pair(S, quick, group_index(S, row->problems ? row->problems : col->problems),
                         solver_index(S, row->solver ? row->solver : col->solver), p, &n);
            }
    } else {
        for (int k = 0; k < S->nseries; k++)
            for (int j = 0; j < S->series[k].nproblems; j++)
                add_pair(S, quick, group_index(S, S->series[k].problems[j]),
                         solver_index(S, S->series[k].solver), p, &n);
    }
    *pairs = p;
    *count = n;
    return MCB_OK;
}

int mcb_xp_runs_path(const char *item_dir, const char *group, const char *entry, char *buf,
                     size_t size)
{
    return snprintf(buf, size, "%s/runs/%s/%s.h5", item_dir, group, entry);
}

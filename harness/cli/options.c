/* options.c: the option parser and help writer of the command line, driven
 * by each command's table of options (options.h). */
#include "harness/cli/options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define HELP_WIDTH 88  /* help lines are wrapped before this column */
#define HELP_INDENT 23 /* where an option's text starts */

int mcb_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mcbench %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n(see 'mcbench %s --help')\n", cmd);
    va_end(ap);
    return MCB_CLI_EXIT_INPUT;
}

int mcb_cli_is_help(int argc, char **argv)
{
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--")) break;
        if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) return 1;
    }
    return 0;
}

static int matches(const mcb_cli_opt *o, const char *arg)
{
    if (o->name && !strcmp(arg, o->name)) return 1;
    return o->short_name && arg[0] == '-' && arg[1] == o->short_name && arg[2] == '\0';
}

int mcb_cli_find(const mcb_cli_cmd *c, const char *name)
{
    for (int k = 0; c->opts && (c->opts[k].name || c->opts[k].short_name); k++)
        if (matches(&c->opts[k], name)) return k;
    return -1;
}

int mcb_cli_given(const mcb_cli_cmd *c, const mcb_cli_args *a, const char *name)
{
    int k = mcb_cli_find(c, name);
    return k >= 0 && a->given[k] > 0;
}

/* ------------------------------------------------------------ the values */

/* Integers in full (1000, not 1e+03), other numbers in their shortest
 * "%.*g" spelling that reads back as the same double. */
const char *mcb_cli_num_text(double v, char *buf, size_t size)
{
    if (v == floor(v) && fabs(v) < 1e15) {
        snprintf(buf, size, "%.0f", v);
        return buf;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    return buf;
}

static double int_max(const mcb_cli_opt *o) { return isinf(o->max) ? (double)INT_MAX : o->max; }

/* "auto, never or " (the words of o, listed for a message or the help). */
static void words_text(const mcb_cli_opt *o, const char *last_sep, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; o->words && o->words[k] && len < size; k++) {
        const char *sep = k == 0 ? "" : o->words[k + 1] || !last_sep ? ", " : last_sep;
        int w = snprintf(buf + len, size - len, "%s%s", sep, o->words[k]);
        if (w > 0) len += (size_t)w;
    }
}

/* What o accepts: "an integer in [1, 1000]", "a finite number >= 0",
 * "auto, never or an integer >= 1", "auto, local or global". */
static void range_text(const mcb_cli_opt *o, char *buf, size_t size)
{
    char w[256] = "", a[40], b[40];
    if (o->words) words_text(o, o->type == MCB_CLI_CHOICE ? " or " : NULL, w, sizeof w);
    if (o->type == MCB_CLI_CHOICE) {
        snprintf(buf, size, "%s", w);
    } else if (o->type == MCB_CLI_INT) {
        const char *or = o->words ? " or " : "";
        mcb_cli_num_text(o->min, a, sizeof a);
        mcb_cli_num_text(o->max, b, sizeof b);
        if (isinf(o->max)) snprintf(buf, size, "%s%san integer >= %s", w, or, a);
        else snprintf(buf, size, "%s%san integer in [%s, %s]", w, or, a, b);
    } else if (o->type == MCB_CLI_DOUBLE) {
        mcb_cli_num_text(o->min, a, sizeof a);
        mcb_cli_num_text(o->max, b, sizeof b);
        if (isinf(o->max)) snprintf(buf, size, "a finite number >= %s", a);
        else snprintf(buf, size, "a number in [%s, %s]", a, b);
    } else {
        buf[0] = '\0';
    }
}

/* The value a word of o stands for; -1 when v is not one of them. */
static int word_value(const mcb_cli_opt *o, const char *v, int *out)
{
    for (int k = 0; o->words && o->words[k]; k++)
        if (!strcmp(v, o->words[k])) {
            *out = o->map ? o->map(v) : o->values ? o->values[k] : k;
            return 0;
        }
    return -1;
}

static int parse_int(const mcb_cli_opt *o, const char *s, int *out)
{
    if (!word_value(o, s, out)) return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < o->min || v > int_max(o)) return -1;
    *out = (int)v;
    return 0;
}

static int parse_double(const mcb_cli_opt *o, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || !(v >= o->min) || !(v <= o->max)) return -1;
    *out = v;
    return 0;
}

static int push(mcb_cli_strings *s, const char *v)
{
    const char **grown = realloc(s->v, (size_t)(s->n + 1) * sizeof *grown);
    if (!grown) return -1;
    s->v = grown;
    s->v[s->n++] = v;
    return 0;
}

static void strings_free(mcb_cli_strings *s)
{
    free(s->v);
    free(s->buf);
    memset(s, 0, sizeof *s);
}

/* a,b,c: every name non-empty. Returns 0, 1 (out of memory) or 2 (printed). */
static int parse_list(const char *cmd, const char *opt, const char *v, mcb_cli_strings *s)
{
    strings_free(s); /* the last --solvers given counts */
    if (!*v) return mcb_cli_usage_error(cmd, "%s is empty: name at least one", opt);
    if (!(s->buf = strdup(v))) return 1;
    for (char *p = s->buf;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        if (!*p) return mcb_cli_usage_error(cmd, "%s '%s' has an empty name", opt, v);
        if (push(s, p)) return 1;
        if (!comma) return 0;
        p = comma + 1;
    }
}

/* Sets o's target from v (o written opt on the command line). Returns 0, 1
 * (out of memory) or 2 (printed). */
static int set_value(const mcb_cli_cmd *c, const mcb_cli_opt *o, const char *opt, const char *v,
                     void *target)
{
    char *field = (char *)target + o->offset, what[512];
    int bad = 0;
    switch (o->type) {
    case MCB_CLI_FLAG: *(int *)field = 1; return 0;
    case MCB_CLI_STRING: *(const char **)field = v; return 0;
    case MCB_CLI_STRINGS: return push((mcb_cli_strings *)field, v) ? 1 : 0;
    case MCB_CLI_LIST: return parse_list(c->name, opt, v, (mcb_cli_strings *)field);
    case MCB_CLI_INT: bad = parse_int(o, v, (int *)field); break;
    case MCB_CLI_DOUBLE: bad = parse_double(o, v, (double *)field); break;
    case MCB_CLI_CHOICE: bad = word_value(o, v, (int *)field); break;
    }
    if (!bad) return 0;
    range_text(o, what, sizeof what);
    if (o->bare)
        return mcb_cli_usage_error(c->name, "%s wants %s, got '%s' (%s alone, before another "
                                   "option or at the end, means %s)", opt, what, v, opt, o->bare);
    return mcb_cli_usage_error(c->name, "%s wants %s, got '%s'", opt, what, v);
}

/* ------------------------------------------------------------ the parser */

void mcb_cli_free(const mcb_cli_cmd *c, void *target, mcb_cli_args *a)
{
    for (int k = 0; c && target && c->opts && (c->opts[k].name || c->opts[k].short_name); k++)
        if (c->opts[k].type == MCB_CLI_LIST || c->opts[k].type == MCB_CLI_STRINGS)
            strings_free((mcb_cli_strings *)((char *)target + c->opts[k].offset));
    if (a) {
        free(a->pos);
        a->pos = NULL;
        a->npos = 0;
    }
}

int mcb_cli_parse(const mcb_cli_cmd *c, int argc, char **argv, void *target, mcb_cli_args *a)
{
    memset(a, 0, sizeof *a);
    if (mcb_cli_is_help(argc, argv)) {
        mcb_cli_help(c, target, stdout);
        return 0;
    }
    if (!(a->pos = calloc((size_t)argc + 1, sizeof *a->pos))) return 1;
    int status = MCB_CLI_GO_ON, positional_only = 0;
    for (int k = 1; k < argc && status == MCB_CLI_GO_ON; k++) {
        const char *arg = argv[k];
        int i = positional_only || arg[0] != '-' || arg[1] == '\0' ? -1 : mcb_cli_find(c, arg);
        if (i < 0 && !positional_only && !c->passthrough && !strcmp(arg, "--")) {
            positional_only = 1;
        } else if (i < 0 && !positional_only && !c->passthrough && arg[0] == '-' && arg[1]) {
            status = mcb_cli_usage_error(c->name, "unknown option %s", arg);
        } else if (i < 0) {
            a->pos[a->npos++] = argv[k];
        } else if (c->opts[i].bare && (k + 1 >= argc || argv[k + 1][0] == '-')) {
            a->given[i] = k; /* the old flag's spelling: its bare word */
            int rc = set_value(c, &c->opts[i], arg, c->opts[i].bare, target);
            if (rc) status = rc;
        } else if (c->opts[i].type != MCB_CLI_FLAG && k + 1 >= argc) {
            status = mcb_cli_usage_error(c->name, "option %s needs a value", arg);
        } else {
            const char *v = c->opts[i].type == MCB_CLI_FLAG ? NULL : argv[++k];
            a->given[i] = k;
            int rc = set_value(c, &c->opts[i], arg, v, target);
            if (rc) status = rc;
        }
    }
    if (status != MCB_CLI_GO_ON) mcb_cli_free(c, target, a);
    return status;
}

/* -------------------------------------------------------------- the help */

/* The default of o as the help shows it, "" for none. */
static const char *default_text(const mcb_cli_opt *o, const void *target, char *buf, size_t size)
{
    if (o->def) return o->def;
    const char *field = (const char *)target + o->offset;
    buf[0] = '\0';
    if (!target) return buf;
    if (o->type == MCB_CLI_INT || o->type == MCB_CLI_CHOICE) {
        int v = *(const int *)field;
        for (int k = 0; o->words && o->words[k]; k++) {
            int w;
            if (!word_value(o, o->words[k], &w) && w == v) return o->words[k];
        }
        if (o->type == MCB_CLI_INT) snprintf(buf, size, "%d", v);
    } else if (o->type == MCB_CLI_DOUBLE) {
        mcb_cli_num_text(*(const double *)field, buf, size);
    } else if (o->type == MCB_CLI_STRING && *(const char *const *)field) {
        snprintf(buf, size, "%s", *(const char *const *)field);
    }
    return buf;
}

/* Writes text from column col, wrapped at HELP_WIDTH, continued at HELP_INDENT. */
static void wrap(FILE *f, const char *text, int col)
{
    int first = 1;
    for (const char *p = text; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        int len = (int)strcspn(p, " ");
        if (!first && col + 1 + len > HELP_WIDTH) {
            fprintf(f, "\n%*s", HELP_INDENT, "");
            col = HELP_INDENT;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", len, p);
        col += len;
        p += len;
        first = 0;
    }
    fputc('\n', f);
}

static void help_entry(const mcb_cli_opt *o, const void *target, FILE *f)
{
    char left[400], bar[256], dflt[64], range[512], text[2048];
    const char *meta = o->metavar;
    if (!meta && o->type == MCB_CLI_CHOICE) {
        size_t len = 0;
        for (int k = 0; o->words[k] && len < sizeof bar; k++) {
            int w = snprintf(bar + len, sizeof bar - len, "%s%s", k ? "|" : "", o->words[k]);
            if (w > 0) len += (size_t)w;
        }
        meta = bar;
    }
    char sh[4] = "";
    if (o->short_name) snprintf(sh, sizeof sh, "-%c", o->short_name);
    snprintf(left, sizeof left, "  %s%s%s%s%s%s%s", sh, o->short_name && o->name ? ", " : "",
             o->name ? o->name : "", o->type == MCB_CLI_FLAG ? "" : " ", o->bare ? "[" : "",
             o->type == MCB_CLI_FLAG ? "" : meta ? meta : "X", o->bare ? "]" : "");
    const char *d = default_text(o, target, dflt, sizeof dflt);
    range[0] = '\0';
    if (o->type == MCB_CLI_CHOICE && o->metavar) { /* else the words are in left */
        snprintf(range, sizeof range, "one of ");
        range_text(o, range + 7, sizeof range - 7);
    } else if (o->type != MCB_CLI_CHOICE) {
        range_text(o, range, sizeof range);
    }
    const char *rep = o->type == MCB_CLI_STRINGS ? "repeatable" : "";
    char paren[700] = "";
    size_t len = 0;
    const char *parts[3] = {*d ? "default " : NULL, *range ? range : NULL, *rep ? rep : NULL};
    for (int k = 0; k < 3; k++) {
        if (!parts[k]) continue;
        int w = snprintf(paren + len, sizeof paren - len, "%s%s%s", len ? "; " : "", parts[k],
                         k == 0 ? d : "");
        if (w > 0 && (size_t)w < sizeof paren - len) len += (size_t)w;
    }
    snprintf(text, sizeof text, "%s%s%s%s", o->help, len ? " (" : "", paren, len ? ")" : "");
    int col = (int)strlen(left);
    fputs(left, f);
    int pad = col < HELP_INDENT - 1 ? HELP_INDENT - col : 2;
    fprintf(f, "%*s", pad, "");
    col += pad;
    wrap(f, text, col);
}

void mcb_cli_help(const mcb_cli_cmd *c, const void *target, FILE *f)
{
    if (c->about) fputs(c->about, f);
    if (c->opts && (c->opts[0].name || c->opts[0].short_name)) fputs("options:\n", f);
    for (int k = 0; c->opts && (c->opts[k].name || c->opts[k].short_name); k++)
        help_entry(&c->opts[k], target, f);
    if (c->after) fputs(c->after, f);
}

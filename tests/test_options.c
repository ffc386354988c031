/* test_options.c: the command line's option parser (harness/cli/options.c):
 * every option type, ranges and allowed words, repeatable options, unknown
 * options and missing values, "--", pass-through, and a help generated from
 * the same declarations (every option, its default and its range). */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "harness/cli/options.h"

typedef struct {
    int flag, count, mode, every, color;
    double tol;
    const char *out, *name;
    mcb_cli_strings list, globs;
} args_t;

static int color_from_name(const char *w)
{
    return !strcmp(w, "red") ? 10 : !strcmp(w, "blue") ? 20 : -1;
}

static const char *const modes[] = {"auto", "always", "never", NULL};
static const char *const colors[] = {"red", "blue", NULL};
static const char *const every_words[] = {"auto", "never", NULL};
static const int every_values[] = {0, -1};

static const mcb_cli_opt opts[] = {
    {.short_name = 'o', .type = MCB_CLI_STRING, .offset = offsetof(args_t, out), .metavar = "OUT",
     .help = "the output"},
    {"--flag", 0, MCB_CLI_FLAG, offsetof(args_t, flag), .help = "a switch"},
    {"--count", 'n', MCB_CLI_INT, offsetof(args_t, count), "N", 1, 100, .help = "how many"},
    {"--tol", 0, MCB_CLI_DOUBLE, offsetof(args_t, tol), "T", 0, INFINITY, .help = "a tolerance"},
    {"--name", 0, MCB_CLI_STRING, offsetof(args_t, name), "NAME", .help = "a name"},
    {"--list", 0, MCB_CLI_LIST, offsetof(args_t, list), "a,b", .def = "all", .help = "names"},
    {"--glob", 0, MCB_CLI_STRINGS, offsetof(args_t, globs), "GLOB", .help = "a pattern"},
    {"--mode", 0, MCB_CLI_CHOICE, offsetof(args_t, mode), .words = modes, .help = "the mode"},
    {"--color", 0, MCB_CLI_CHOICE, offsetof(args_t, color), "C", .words = colors,
     .map = color_from_name, .help = "a color"},
    {"--every", 0, MCB_CLI_INT, offsetof(args_t, every), "K", 1, INFINITY, .words = every_words,
     .values = every_values, .help = "how often"},
    {0},
};

static const mcb_cli_cmd cmd = {"demo", "usage: mcbench demo FILE...\n", "the end\n", opts, 0};

static void defaults(args_t *a)
{
    memset(a, 0, sizeof *a);
    a->count = 7;
    a->tol = 1e-8;
    a->color = 20;
}

/* Parses argv (argv[0] "demo"), what it printed on stderr in err. */
static int parse(const mcb_cli_cmd *c, int argc, char **argv, args_t *a, mcb_cli_args *p, char *err,
                 size_t size)
{
    fflush(stderr);
    FILE *t = tmpfile();
    ck_assert_ptr_nonnull(t);
    int saved = dup(2);
    dup2(fileno(t), 2);
    int rc = mcb_cli_parse(c, argc, argv, a, p);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(t);
    size_t n = fread(err, 1, size - 1, t);
    err[n] = '\0';
    fclose(t);
    return rc;
}

#define PARSE(...)                                                                           \
    do {                                                                                     \
        char *argv_[] = {"demo", __VA_ARGS__, NULL};                                         \
        rc = parse(&cmd, (int)(sizeof argv_ / sizeof argv_[0]) - 1, argv_, &a, &p, err,     \
                   sizeof err);                                                              \
    } while (0)

START_TEST(every_type)
{
    args_t a;
    mcb_cli_args p;
    char err[1024];
    int rc;
    defaults(&a);
    PARSE("x.h5", "--flag", "-n", "42", "--tol", "0.5", "--name", "first", "--name", "last", "-o",
          "out.h5", "--list", "pgs,nncg", "--mode", "never", "--color", "red", "--every", "never",
          "y.h5", "--glob", "a*", "--glob", "b*");
    ck_assert_int_eq(rc, MCB_CLI_GO_ON);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(a.flag, 1);
    ck_assert_int_eq(a.count, 42);
    ck_assert_double_eq(a.tol, 0.5);
    ck_assert_str_eq(a.name, "last"); /* the last one given counts */
    ck_assert_str_eq(a.out, "out.h5");
    ck_assert_int_eq(a.list.n, 2);
    ck_assert_str_eq(a.list.v[0], "pgs");
    ck_assert_str_eq(a.list.v[1], "nncg");
    ck_assert_int_eq(a.mode, 2);   /* its index */
    ck_assert_int_eq(a.color, 10); /* map("red") */
    ck_assert_int_eq(a.every, -1); /* values[1] */
    ck_assert_int_eq(a.globs.n, 2);
    ck_assert_str_eq(a.globs.v[0], "a*");
    ck_assert_str_eq(a.globs.v[1], "b*");
    ck_assert_int_eq(p.npos, 2);
    ck_assert_str_eq(p.pos[0], "x.h5");
    ck_assert_str_eq(p.pos[1], "y.h5");
    ck_assert(mcb_cli_given(&cmd, &p, "--flag"));
    ck_assert(mcb_cli_given(&cmd, &p, "-o"));
    ck_assert(!mcb_cli_given(&cmd, &p, "--nope"));
    ck_assert_int_eq(p.given[mcb_cli_find(&cmd, "--count")], 4); /* argv index of its value */
    mcb_cli_free(&cmd, &a, &p);
    ck_assert_int_eq(a.list.n, 0);
    ck_assert_ptr_null(p.pos);

    defaults(&a); /* an integer where words are allowed too; defaults kept */
    PARSE("--every", "12");
    ck_assert_int_eq(rc, MCB_CLI_GO_ON);
    ck_assert_int_eq(a.every, 12);
    ck_assert_int_eq(a.count, 7);
    ck_assert_int_eq(a.color, 20);
    ck_assert_int_eq(p.npos, 0);
    mcb_cli_free(&cmd, &a, &p);
}
END_TEST

/* A choice with a bare word (a flag turned into a choice, --warm-start):
 * alone at the end or before an option it means that word; followed by a
 * word, that word; followed by anything else, an error naming both uses. */
static const char *const starts[] = {"none", "recorded", "own", NULL};
static const mcb_cli_opt bare_opts[] = {
    {.short_name = 'o', .type = MCB_CLI_STRING, .offset = offsetof(args_t, out), .metavar = "OUT",
     .help = "the output"},
    {"--start", 0, MCB_CLI_CHOICE, offsetof(args_t, mode), .words = starts, .bare = "recorded",
     .help = "where to start"},
    {0},
};
static const mcb_cli_cmd bare_cmd = {"demo", "usage: mcbench demo FILE...\n", "", bare_opts, 0};

START_TEST(bare_choice)
{
    args_t a;
    mcb_cli_args p;
    char err[1024];
    struct {
        int argc;
        char *argv[4];
        int rc, mode, npos;
    } cases[] = {
        {2, {"demo", "--start"}, MCB_CLI_GO_ON, 1, 0},
        {4, {"demo", "--start", "-o", "x"}, MCB_CLI_GO_ON, 1, 0},
        {3, {"demo", "--start", "own"}, MCB_CLI_GO_ON, 2, 0},
        {4, {"demo", "f.h5", "--start", "none"}, MCB_CLI_GO_ON, 0, 1},
        {3, {"demo", "--start", "f.h5"}, MCB_CLI_EXIT_INPUT, -1, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        defaults(&a);
        a.mode = -1;
        int rc = parse(&bare_cmd, cases[k].argc, cases[k].argv, &a, &p, err, sizeof err);
        ck_assert_int_eq(rc, cases[k].rc);
        if (rc != MCB_CLI_GO_ON) {
            ck_assert_msg(strstr(err, "--start wants none, recorded or own, got 'f.h5' (--start "
                                      "alone, before another option or at the end, means "
                                      "recorded)"), "%s", err);
            continue;
        }
        ck_assert_int_eq(a.mode, cases[k].mode);
        ck_assert_int_eq(p.npos, cases[k].npos);
        ck_assert(mcb_cli_given(&bare_cmd, &p, "--start"));
        mcb_cli_free(&bare_cmd, &a, &p);
    }
    FILE *t = tmpfile(); /* the help shows the value as optional */
    mcb_cli_help(&bare_cmd, &a, t);
    rewind(t);
    size_t n = fread(err, 1, sizeof err - 1, t);
    err[n] = '\0';
    fclose(t);
    ck_assert_msg(strstr(err, "--start [none|recorded|own]"), "%s", err);
}
END_TEST

/* Each bad value: exit 2 and the message naming the option, its range and the value. */
START_TEST(range_errors)
{
    static const struct {
        const char *opt, *val, *msg;
    } cases[] = {
        {"--count", "0", "mcbench demo: --count wants an integer in [1, 100], got '0'"},
        {"--count", "101", "--count wants an integer in [1, 100], got '101'"},
        {"-n", "2.5", "-n wants"},
        {"--count", "99999999999999999999", "got '99999999999999999999'"},
        {"--count", "", "got ''"},
        {"--tol", "-1", "--tol wants a finite number >= 0, got '-1'"},
        {"--tol", "nan", "got 'nan'"},
        {"--tol", "inf", "got 'inf'"},
        {"--tol", "1e999", "got '1e999'"},
        {"--tol", "abc", "got 'abc'"},
        {"--mode", "sometimes", "--mode wants auto, always or never, got 'sometimes'"},
        {"--color", "green", "--color wants red or blue, got 'green'"},
        {"--every", "0", "--every wants auto, never or an integer >= 1, got '0'"},
        {"--every", "often", "got 'often'"},
        {"--list", "", "--list is empty"},
        {"--list", "a,,b", "--list 'a,,b' has an empty name"},
        {"--list", "a,", "has an empty name"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        args_t a;
        mcb_cli_args p;
        char err[1024];
        defaults(&a);
        char *argv[] = {"demo", "x", (char *)cases[k].opt, (char *)cases[k].val, NULL};
        int rc = parse(&cmd, 4, argv, &a, &p, err, sizeof err);
        ck_assert_msg(rc == MCB_CLI_EXIT_INPUT, "%s %s: rc %d", cases[k].opt, cases[k].val, rc);
        ck_assert_msg(strstr(err, cases[k].msg), "%s %s: '%s' lacks '%s'", cases[k].opt,
                      cases[k].val, err, cases[k].msg);
        ck_assert_msg(strstr(err, "(see 'mcbench demo --help')"), "%s", err);
        ck_assert_ptr_null(p.pos); /* freed on error */
    }
}
END_TEST

START_TEST(unknown_and_missing)
{
    args_t a;
    mcb_cli_args p;
    char err[1024];
    int rc;
    defaults(&a);
    PARSE("x", "--bogus", "-o", "y"); /* unknown wherever it stands */
    ck_assert_int_eq(rc, MCB_CLI_EXIT_INPUT);
    ck_assert_ptr_nonnull(strstr(err, "mcbench demo: unknown option --bogus"));
    PARSE("x", "-o", "y", "-q");
    ck_assert_int_eq(rc, MCB_CLI_EXIT_INPUT);
    ck_assert_ptr_nonnull(strstr(err, "unknown option -q"));
    PARSE("x", "-o");
    ck_assert_int_eq(rc, MCB_CLI_EXIT_INPUT);
    ck_assert_ptr_nonnull(strstr(err, "option -o needs a value"));
    PARSE("x", "--glob", "a", "--count");
    ck_assert_int_eq(rc, MCB_CLI_EXIT_INPUT);
    ck_assert_ptr_nonnull(strstr(err, "option --count needs a value"));
    /* a value may start with a dash; "-" alone is positional; after "--" all are */
    defaults(&a);
    PARSE("-", "--name", "--flag", "--", "--count", "-o");
    ck_assert_int_eq(rc, MCB_CLI_GO_ON);
    ck_assert_str_eq(a.name, "--flag");
    ck_assert_int_eq(a.flag, 0);
    ck_assert_int_eq(p.npos, 3);
    ck_assert_str_eq(p.pos[0], "-");
    ck_assert_str_eq(p.pos[1], "--count");
    ck_assert_str_eq(p.pos[2], "-o");
    mcb_cli_free(&cmd, &a, &p);
}
END_TEST

/* A command whose library parses its own options: they pass through. */
START_TEST(passthrough)
{
    static const mcb_cli_cmd pt = {"demo", NULL, NULL, opts, 1};
    args_t a;
    mcb_cli_args p;
    char err[256];
    defaults(&a);
    char *argv[] = {"demo", "stack", "--nx", "5", "-o", "s.h5", "--", "--ny", NULL};
    ck_assert_int_eq(parse(&pt, 8, argv, &a, &p, err, sizeof err), MCB_CLI_GO_ON);
    ck_assert_str_eq(a.out, "s.h5");
    ck_assert_int_eq(p.npos, 5);
    ck_assert_str_eq(p.pos[1], "--nx");
    ck_assert_str_eq(p.pos[4], "--ny");
    mcb_cli_free(&pt, &a, &p);
}
END_TEST

/* The help: --help anywhere before "--" prints it and exits 0; it has every
 * declared option, with its metavar, its default (read from the target
 * after the defaults) and its range or words. */
START_TEST(help_from_declarations)
{
    args_t a;
    defaults(&a);
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    mcb_cli_help(&cmd, &a, f);
    fclose(f);
    ck_assert_ptr_nonnull(strstr(text, "usage: mcbench demo FILE...\noptions:\n"));
    for (int k = 0; opts[k].name || opts[k].short_name; k++) {
        char want[64];
        if (opts[k].name) snprintf(want, sizeof want, "%s", opts[k].name);
        else snprintf(want, sizeof want, "  -%c ", opts[k].short_name);
        ck_assert_msg(strstr(text, want), "the help lacks %s:\n%s", want, text);
        ck_assert_msg(strstr(text, opts[k].help), "the help lacks '%s'", opts[k].help);
    }
    static const char *const want[] = {
        "  -n, --count N", "(default 7; an integer in [1, 100])",
        "(default 1e-08; a finite number >= 0)", "--mode auto|always|never",
        "(default auto)", "--color C", "(default blue; one of red or blue)",
        "--list a,b", "(default all)", "(repeatable)",
        "(default auto; auto, never or an integer >= 1)",
        "\nthe end\n"};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        ck_assert_msg(strstr(text, want[k]), "the help lacks '%s':\n%s", want[k], text);
    /* the text is wrapped before column 88 */
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        ck_assert_msg(strlen(line) < 88, "too long: %s", line);
    free(text);

    mcb_cli_args p;
    char err[256];
    int rc;
    PARSE("x", "--bogus", "-h");
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_null(p.pos);
    PARSE("x", "--", "--help");
    ck_assert_int_eq(rc, MCB_CLI_GO_ON);
    ck_assert_str_eq(p.pos[1], "--help");
    mcb_cli_free(&cmd, &a, &p);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("options");
    tcase_add_test(tc, every_type);
    tcase_add_test(tc, bare_choice);
    tcase_add_test(tc, range_errors);
    tcase_add_test(tc, unknown_and_missing);
    tcase_add_test(tc, passthrough);
    tcase_add_test(tc, help_from_declarations);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

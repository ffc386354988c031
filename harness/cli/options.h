/* options.h: the one option parser of the mcbench command line.
 *
 * Each command declares its options as data, a table of mcb_cli_opt ending
 * with an all-zero entry: the name, the type, the range or the allowed words,
 * the field of the command's argument struct it sets (offsetof), the default
 * shown and the help text. mcb_cli_parse walks argv by that table and
 * mcb_cli_help writes the option lines of `--help` from the same table, so
 * what is accepted and what is documented cannot drift apart.
 *
 * Conventions kept from the hand-written loops it replaces: an option takes
 * its value from the next argument; an unknown option is named as unknown
 * wherever it stands; "--" makes every later argument positional; `--help`
 * or `-h` anywhere before "--" prints the help and exits 0; a usage error
 * prints "mcbench CMD: WHY" and "(see 'mcbench CMD --help')" and exits 2. */
#ifndef MCB_CLI_OPTIONS_H
#define MCB_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#define MCB_CLI_EXIT_INPUT 2 /* bad arguments or bad input files */
#define MCB_CLI_GO_ON (-1)   /* mcb_cli_parse: parsed, the command goes on */
#define MCB_CLI_MAX_OPTS 40  /* options of one command */

typedef enum {
    MCB_CLI_FLAG,    /* int, set to 1 */
    MCB_CLI_INT,     /* int in [min, max] (max INFINITY: INT_MAX), or one of words */
    MCB_CLI_DOUBLE,  /* double, finite, in [min, max] (max may be INFINITY) */
    MCB_CLI_STRING,  /* const char *: the last value given */
    MCB_CLI_LIST,    /* mcb_cli_strings: one comma-separated list of non-empty names */
    MCB_CLI_STRINGS, /* mcb_cli_strings: repeatable, one value per occurrence */
    MCB_CLI_CHOICE   /* int: one of words */
} mcb_cli_type;

/* The values of a LIST or STRINGS option (freed by mcb_cli_free). */
typedef struct {
    int n;
    const char **v;
    char *buf; /* LIST: the split copy v points into */
} mcb_cli_strings;

typedef struct {
    const char *name;   /* "--iters"; NULL for an option with a short name only */
    char short_name;    /* 'o' for -o; 0: none */
    mcb_cli_type type;
    size_t offset;      /* of the target field in the command's argument struct */
    const char *metavar; /* "N" in "--iters N"; CHOICE without one: its words joined by | */
    double min, max;     /* INT and DOUBLE */
    /* CHOICE: the allowed words; INT: words accepted besides an integer. The
     * value stored for a word is map(word) when map is set (a library's
     * *_from_name), else values[k], else its index k. */
    const char *const *words;
    int (*map)(const char *word);
    const int *values;
    const char *def;  /* the default shown in the help; NULL: read from the target field
                         (after the command's defaults); "": none shown */
    const char *help; /* what it does, without its default or range (generated) */
    /* CHOICE only: the word the option stands for when given without one, at the end
     * of the line or before another option (a flag that became a choice keeps its old
     * spelling); NULL: a value is required */
    const char *bare;
} mcb_cli_opt;

/* The -o option most commands have: a string field of struct st. */
#define MCB_CLI_OUTPUT(st, field, meta, text)                                                      \
    {.short_name = 'o', .type = MCB_CLI_STRING, .offset = offsetof(st, field), .metavar = meta,    \
     .help = text}

/* A command: its name, the help text around the generated option lines
 * (usage lines and paragraphs before, a closing note after), its options.
 * passthrough: options not in the table are handed on as positional
 * arguments, for commands whose library parses its own (gen NAME, record). */
typedef struct {
    const char *name;
    const char *about;
    const char *after;
    const mcb_cli_opt *opts;
    int passthrough;
} mcb_cli_cmd;

/* What mcb_cli_parse found besides the option values. */
typedef struct {
    char **pos; /* positional arguments in order */
    int npos;
    int given[MCB_CLI_MAX_OPTS]; /* argv index of each option's last use; 0: not given */
} mcb_cli_args;

/* Parses argv[1..argc-1] (argv[0] is the command) into target, which holds
 * the defaults. Returns MCB_CLI_GO_ON, or the exit status after printing:
 * 0 after --help, MCB_CLI_EXIT_INPUT after a usage error, 1 out of memory.
 * Unless MCB_CLI_GO_ON, nothing is left to free. */
int mcb_cli_parse(const mcb_cli_cmd *c, int argc, char **argv, void *target, mcb_cli_args *a);
/* Frees the positional list and every LIST and STRINGS value; NULL-safe. */
void mcb_cli_free(const mcb_cli_cmd *c, void *target, mcb_cli_args *a);

/* The help: about, "options:" and one generated entry per option (defaults
 * read from target when not declared), then after. */
void mcb_cli_help(const mcb_cli_cmd *c, const void *target, FILE *f);

/* Whether --help or -h stands before any "--". */
int mcb_cli_is_help(int argc, char **argv);
/* The index of option name ("--iters", "-o") in c's table, -1 if absent. */
int mcb_cli_find(const mcb_cli_cmd *c, const char *name);
/* Whether a.given says name was given (0 for a name not in the table). */
int mcb_cli_given(const mcb_cli_cmd *c, const mcb_cli_args *a, const char *name);

/* Integers in full (1000, not 1e+03), other numbers in their shortest
 * "%.*g" spelling that reads back as the same double. */
const char *mcb_cli_num_text(double v, char *buf, size_t size);

/* "mcbench CMD: WHY\n(see 'mcbench CMD --help')" on stderr; returns
 * MCB_CLI_EXIT_INPUT. */
int mcb_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif

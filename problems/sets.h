/* sets.h: the problem-set catalog (problems/sets/NAME.set, docs/sets.md)
 * behind `mcbench gen --set NAME -o DIR`, and the generation summary that
 * `mcbench gen` prints for a scene or a set entry.
 *
 * A set file is lines of words: `#` starts a comment (at the start of a
 * word, to the end of the line), blank lines are ignored, every other line
 * is one entry `FILE_STEM SCENE [--opt V ...]`: build scene SCENE with
 * those options into DIR/FILE_STEM.h5. */
#ifndef MCB_SETS_H
#define MCB_SETS_H

#include <stddef.h>

#include "problems/scene/scenes.h"

typedef struct {
    int line;    /* 1-based line in the set file */
    char *stem;  /* output file name without .h5: [A-Za-z0-9_.-]+, not starting with '.' */
    char *scene;
    int argc;    /* the option words after the scene name */
    char **argv;
} mcb_set_entry;

typedef struct {
    char *path;  /* the set file, for messages */
    int count;
    mcb_set_entry *items;
} mcb_set;

/* The catalog directory: $MCB_SETS_DIR when set and not empty, else the
 * source tree's problems/sets (compile-time MCB_SOURCE_DIR). */
const char *mcb_sets_dir(void);

/* The set file of `name`: a name with a '/' or ending in ".set" is a path
 * (used as is), else DIR/NAME.set in mcb_sets_dir(). MCB_E_INPUT when the
 * file does not exist, naming the sets that do. */
mcb_rc mcb_set_locate(const char *name, char *path, size_t size, mcb_err *err);

/* Parses a set file. Every error names the file and the line:
 * "problems/sets/x.set:7: ...". Stems must be unique in a set. */
mcb_rc mcb_set_read(const char *path, mcb_set **out, mcb_err *err);
void mcb_set_free(mcb_set **S); /* accepts NULL */

/* Checks every entry before anything is built: the scene is registered
 * ("FILE:LINE: unknown scene 'x' (registered: ...)") and its options parse
 * ("FILE:LINE: gen stack: --nx 0 is out of range ..."). */
mcb_rc mcb_set_check(const mcb_set *S, mcb_err *err);

/* Runs a scene's generator and records the canonical argument string
 * (mcb_scene_args) as every problem's source and the scene name as its
 * scene. */
mcb_rc mcb_scene_generate(const mcb_scene_def *def, const double *vals, mcb_problem_set **out,
                          mcb_err *err);

/* What one generation (or reuse) produced: the one-line summary. */
typedef struct {
    char scene[64];
    char file[1024];
    int problems;
    int dof_min, dof_max;       /* n over the problems (m for dual problems: 0) */
    int sub_min, sub_max;       /* subsystems */
    int contacts_min, contacts_median, contacts_max; /* contact blocks per problem */
    double wall_s;              /* generation and writing (or the reuse check) */
    int reused;                 /* 1: an existing file with the same arguments was kept */
} mcb_gen_summary;

void mcb_gen_summarize(const mcb_problem_set *S, const char *scene, const char *file,
                       mcb_gen_summary *out);
/* "stack: 10 problems, 750 DOF, 125 subsystems, contacts per step
 * 125/145/160 (min/median/max), 1.52 s, out/stack.h5" (+ ", reused"). */
void mcb_gen_summary_line(const mcb_gen_summary *s, char *buf, size_t size);

/* Builds every entry of S into DIR/STEM.h5 (DIR is created when missing),
 * after mcb_set_check. An existing file whose problems all record the
 * entry's canonical arguments as their source is reused; any other is
 * regenerated (written under a temporary name and renamed, so a killed
 * build never leaves a partial file under the final name). `progress`
 * (may be NULL) is called after each entry. Errors name the set file, the
 * line and the entry. */
typedef void (*mcb_set_progress)(void *ctx, const mcb_gen_summary *s);
mcb_rc mcb_set_build(const mcb_set *S, const char *dir, mcb_set_progress progress, void *ctx,
                     mcb_err *err);

#endif

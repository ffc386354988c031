/* mcb_paths.h: output paths are checked before any work starts, and
 * temporary files never outlive a failure.
 *
 * Every command writes its outputs under temporary names and renames them
 * into place when complete. mcb_check_outputs() refuses, before anything is
 * read or run, an output that is one of the inputs (by the file's identity,
 * device and inode, so `./a.h5`, a symlink or a hard link to an input are
 * caught, not only the same spelling), an existing directory or other
 * non-regular file, an output whose directory cannot be written, and two
 * outputs naming the same file. Temporary files are registered while they
 * exist; the signal handlers installed by mcb_tmp_install_handlers() remove
 * them on SIGINT, SIGTERM and SIGHUP before the process ends with that
 * signal. */
#ifndef MCB_PATHS_H
#define MCB_PATHS_H

#include "lib/mcb_error.h"

typedef struct {
    const char *path;
    const char *option; /* how the user named it, for messages: "-o", "--csv" */
} mcb_output;

/* Checks outputs against inputs and each other (see above). With
 * make_dirs, a missing directory of an output is created (mkdir -p) once
 * each output has passed its own checks, before the outputs are compared
 * with each other (by their resolved names). MCB_E_INPUT with a message
 * naming the option, the path and the reason. */
mcb_rc mcb_check_outputs(const char *const *inputs, int ninputs, const mcb_output *outputs,
                         int noutputs, int make_dirs, mcb_err *err);

/* Creates a directory and its missing parents (0777 & ~umask). */
mcb_rc mcb_mkdirs(const char *dir, mcb_err *err);

/* path with its extension (after the last '.' of the last component)
 * replaced by ext, or ext appended when it has none: "out/r1.h5", ".csv" ->
 * "out/r1.csv". */
void mcb_path_with_ext(const char *path, const char *ext, char *buf, size_t len);

/* The name of `target` relative to the directory `dir`, both existing and
 * resolved (symbolic links, "..") first: "r.h5", "../r.h5", "sub/r.h5",
 * "." for dir itself. 0, or -1 when either cannot be resolved or the name
 * does not fit in buf. */
int mcb_path_relative(const char *dir, const char *target, char *buf, size_t len);

/* 1 when a and b exist and are the same file (device and inode). */
int mcb_same_file(const char *a, const char *b);

/* A catalog directory: $ENV when set and not empty, else the source
 * tree's REL (compile-time MCB_SOURCE_DIR "/" REL; REL a literal). */
#ifndef MCB_SOURCE_DIR
#define MCB_SOURCE_DIR "."
#endif
#define mcb_catalog_dir(env, rel) mcb_env_or(env, MCB_SOURCE_DIR "/" rel)
const char *mcb_env_or(const char *env, const char *fallback);

/* The stems of the files NAME.EXT in dir (ext with its dot: ".set",
 * ".yaml"), sorted, leaving out names that start with '.': what a catalog
 * directory (problem sets, experiment specs) holds. MCB_E_INPUT naming dir
 * when it cannot be read; free with mcb_strings_free. */
mcb_rc mcb_dir_stems(const char *dir, const char *ext, char ***names, int *count, mcb_err *err);
void mcb_strings_free(char **strings, int count); /* accepts NULL */

/* Temporary files: register before creating, unregister after renaming or
 * removing. At most MCB_TMP_MAX at once; registering more fails (-1). */
#define MCB_TMP_MAX 16
int mcb_tmp_register(const char *path);
void mcb_tmp_unregister(const char *path);
/* Removes every registered file (also what the signal handler does). */
void mcb_tmp_remove_all(void);
/* Installs the SIGINT/SIGTERM/SIGHUP handlers (once, from main). */
void mcb_tmp_install_handlers(void);

#endif

/* mcb_io.h: reading and writing problem files (HDF5 format v4, documented
 * in docs/problem-format.md; versions 2 to 5 are read, version 5 is
 * written). One file holds one or more problems. */
#ifndef MCB_IO_H
#define MCB_IO_H

#include "lib/mcb_problem.h"

#define MCB_FORMAT_NAME "mcbench-problem"
#define MCB_FORMAT_VERSION 5     /* written */
#define MCB_FORMAT_VERSION_MIN 2 /* oldest read */

/* Reads and validates every problem of a file. On failure *out is NULL and
 * err names the file, the problem group, the dataset and the reason. When
 * the file has no partition, it is inferred from A. */
mcb_rc mcb_read_problems(const char *path, mcb_problem_set **out, mcb_err *err);

/* The same for an untrusted file: the HDF5 pass runs first in a child
 * process with time and memory limits (mcb_isolate.h), so a file that
 * crashes or hangs libhdf5 is reported as bad input, never a crash. */
mcb_rc mcb_read_problems_isolated(const char *path, mcb_problem_set **out, mcb_err *err);
/* mcb_read_problems_isolated for n files into out[0..n), each file's child
 * running while this process reads the file before it (the reading of n
 * files takes about the time of their reads, not of reads plus probes).
 * The first failure, by file order, is returned; then out[] is all NULL. */
mcb_rc mcb_read_problem_files_isolated(const char *const *paths, int n, mcb_problem_set **out,
                                       mcb_err *err);

/* Writes problems to a new file (replacing it); nothing is left behind on
 * failure (the file is written under a temporary name and renamed). */
mcb_rc mcb_write_problems(const char *path, mcb_problem *const *problems, int count,
                          mcb_err *err);

#endif

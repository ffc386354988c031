/* sources.h: problem sources, as every command that reads problems takes
 * them (run, info, validate, describe, export): an mcbench problem file
 * (all its problems) or an FCLIB file (its one problem, imported in memory
 * exactly as `mcbench import fclib` does: the same checks, the same
 * isolated first read, named after the file's stem), recognised by what
 * the file holds, never by its name. An FCLIB file's SHA-256 is its
 * provenance (the results record it). */
#ifndef MCB_SOURCES_H
#define MCB_SOURCES_H

#include "lib/mcb_problem.h"

typedef enum { MCB_SOURCE_MCBENCH = 0, MCB_SOURCE_FCLIB } mcb_source_kind;

typedef struct {
    int kind;          /* mcb_source_kind */
    char sha256[65];   /* the file's digest for an FCLIB file; "" otherwise */
} mcb_source_info;

const char *mcb_source_kind_name(int kind); /* "mcbench", "fclib" */

/* Reads n sources; out[k] (and info[k] when info is not NULL) for paths[k].
 * Untrusted files: each is read first in an isolated child (what it is,
 * then the reader's full pass). On failure nothing is returned (every
 * out[k] NULL) and err names the file: MCB_E_INPUT for a file that is
 * neither kind, damaged or invalid. */
mcb_rc mcb_read_sources(const char *const *paths, int n, mcb_problem_set **out,
                        mcb_source_info *info, mcb_err *err);

#endif

/* sources.c: a command's problem sources, mcbench problem files and FCLIB
 * files, read into problem sets (see sources.h).
 *
 * What a file is comes from an isolated child that opens it and looks for
 * the root attribute `format` (an mcbench file) or the group /fclib_local
 * or /fclib_global (an FCLIB file); both kinds are then read as their own
 * readers do, isolated first. The mcbench files of one command are read
 * together, so that the next file's isolated read overlaps this one's
 * (mcb_read_problem_files_isolated). */
#include "problems/sources.h"

#include <stdlib.h>
#include <string.h>

#include "problems/import_fclib.h"
#include "lib/mcb_h5.h"
#include "lib/mcb_io.h"
#include "lib/mcb_isolate.h"
#include "lib/mcb_sha256.h"

enum { KIND_UNKNOWN = -1 };

const char *mcb_source_kind_name(int kind)
{
    return kind == MCB_SOURCE_FCLIB ? "fclib" : "mcbench";
}

/* In the child: which kind `path` is, into *(int *)shared. */
static mcb_rc sniff(void *arg, void *shared, mcb_err *err)
{
    const char *path = arg;
    mcb_h5_quiet();
    hid_t f = mcb_h5_open_ro(path, err);
    if (f < 0) return MCB_E_INPUT;
    int kind = KIND_UNKNOWN;
    if (mcb_h5_attr_exists(f, "format")) kind = MCB_SOURCE_MCBENCH;
    else if (mcb_h5_exists(f, "fclib_local") || mcb_h5_exists(f, "fclib_global") ||
             mcb_h5_exists(f, "rolling_fclib_local") || mcb_h5_exists(f, "rolling_fclib_global"))
        kind = MCB_SOURCE_FCLIB;
    H5Fclose(f);
    *(int *)shared = kind;
    return MCB_OK;
}

static mcb_rc source_kind(const char *path, int *kind, mcb_err *err)
{
    mcb_rc rc = mcb_isolate_probe_result(path, sniff, (void *)path, sizeof *kind, kind, err);
    if (!rc && *kind == KIND_UNKNOWN)
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: neither an mcbench problem file (no root attribute format) nor an "
                      "FCLIB file (no /fclib_local or /fclib_global)", path);
    return rc;
}

static mcb_rc read_fclib(const char *path, mcb_problem_set **out, mcb_source_info *info,
                         mcb_err *err)
{
    mcb_problem *P = NULL;
    mcb_rc rc = mcb_import_fclib(path, &P, err);
    if (!rc) rc = mcb_sha256_file(path, info->sha256, err);
    if (rc) {
        mcb_problem_free(&P);
        return rc;
    }
    return mcb_problem_set_of_one(&P, out, err);
}

mcb_rc mcb_read_sources(const char *const *paths, int n, mcb_problem_set **out,
                        mcb_source_info *info, mcb_err *err)
{
    for (int k = 0; k < n; k++) out[k] = NULL;
    mcb_source_info *own = info ? NULL : calloc((size_t)n + 1, sizeof *own);
    const char **h5 = calloc((size_t)n + 1, sizeof *h5);
    int *at = calloc((size_t)n + 1, sizeof *at);
    mcb_problem_set **sets = calloc((size_t)n + 1, sizeof *sets);
    if (!info) info = own;
    mcb_rc rc = info && h5 && at && sets ? MCB_OK : mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int nh5 = 0;
    for (int k = 0; k < n && !rc; k++) {
        memset(&info[k], 0, sizeof info[k]);
        rc = source_kind(paths[k], &info[k].kind, err);
        if (!rc && info[k].kind == MCB_SOURCE_MCBENCH) {
            at[nh5] = k;
            h5[nh5++] = paths[k];
        }
    }
    if (!rc && nh5 > 0) rc = mcb_read_problem_files_isolated(h5, nh5, sets, err);
    for (int j = 0; j < nh5 && !rc; j++) out[at[j]] = sets[j];
    for (int k = 0; k < n && !rc; k++)
        if (info[k].kind == MCB_SOURCE_FCLIB) rc = read_fclib(paths[k], &out[k], &info[k], err);
    if (rc)
        for (int k = 0; k < n; k++) mcb_problem_set_free(&out[k]);
    free(own);
    free(h5);
    free(at);
    free(sets);
    return rc;
}

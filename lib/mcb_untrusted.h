/* mcb_untrusted.h: reading an untrusted problem source so that only a
 * forked child ever parses it (lib/mcb_io.c; not an installed header).
 *
 * libhdf5 1.10 and libfclib have faults on damaged files that a child may
 * survive by chance: a heap over-read inside libhdf5's attribute decoder
 * stays inside mapped memory in one heap layout and crosses into an
 * unmapped page in another. Reading the file again in the parent after the
 * child succeeded would expose the parent to them, so the child hands what
 * it read back as a clean copy instead. */
#ifndef MCB_UNTRUSTED_H
#define MCB_UNTRUSTED_H

#include "lib/mcb_isolate.h"
#include "lib/mcb_problem.h"

/* Reading an untrusted file the safe way, for any reader: fn(arg) runs in
 * a forked child under the reader's limits (mcb_isolate_probe_start) and
 * must return the problems it read (validated); the child writes them to a
 * temporary file ($TMPDIR, else /dev/shm when it has room for twice
 * the file, else /tmp), and finish reads that clean copy in this process, which
 * never parses the untrusted file itself. A child that crashes, hangs or
 * runs out of its limits is MCB_E_INPUT naming `path` ("damaged or hostile
 * file"); fn's own failure comes back as it is. Every started read is
 * either finished or abandoned. */
typedef mcb_rc (*mcb_untrusted_reader)(void *arg, mcb_problem_set **out, mcb_err *err);
typedef struct {
    mcb_isolate_child ch;
    char copy[4200]; /* the temporary file of the copy */
    const char *path;
    mcb_untrusted_reader fn;
    void *arg;
} mcb_copy_read;
mcb_rc mcb_copy_read_start(const char *path, mcb_untrusted_reader fn, void *arg,
                           mcb_copy_read *cr, mcb_err *err);
mcb_rc mcb_copy_read_finish(mcb_copy_read *cr, mcb_problem_set **out, mcb_err *err);
void mcb_copy_read_abandon(mcb_copy_read *cr); /* accepts NULL and a finished read */

/* The same for a reader of one problem (an importer): fn(arg, &P) runs in
 * the child, *out is read back from the copy. */
typedef mcb_rc (*mcb_untrusted_one)(void *arg, mcb_problem **out, mcb_err *err);
mcb_rc mcb_read_one_isolated(const char *path, mcb_untrusted_one fn, void *arg,
                             mcb_problem **out, mcb_err *err);

#endif

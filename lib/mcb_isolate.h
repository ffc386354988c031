/* mcb_isolate.h: running a piece of work in a child process under a time
 * and a memory limit, so that a crash, a hang or a runaway allocation in it
 * (inside a third-party library reading a damaged file, or a solver) is an
 * outcome to report, never the end of the calling process.
 *
 * The child is forked; it runs fn(arg, shared, err) with RLIMIT_AS set to
 * what it inherits plus the memory limit (not under AddressSanitizer, which
 * reserves terabytes of address space),
 * RLIMIT_CPU as a backstop and no core dumps, then sends fn's status and
 * message back through a pipe. `shared` is a buffer of `shared_size` bytes
 * mapped in both processes, for a result larger than a status (NULL when
 * shared_size is 0); its contents are copied to `out` when the child ends
 * normally. The parent waits at most the time limit, then kills the child.
 * Library code: nothing is printed, nothing exits.
 *
 * Forking after threads exist: a forked child holds only the thread that
 * forked, but every other thread's locks and a runtime's idea of its thread
 * pool come along. GNU libgomp keeps its pool threads docked after a parallel
 * region and, in a child, hands work to threads that do not exist there and
 * waits for them forever. So every fork here is preceded by
 * mcb_isolate_prefork, which releases the OpenMP pool (the child then starts
 * its own). What a child may and may not use: docs/robustness.md. */
#ifndef MCB_ISOLATE_H
#define MCB_ISOLATE_H

#include <stddef.h>

#include "lib/mcb_error.h"

typedef struct {
    double time_limit_s; /* wall clock; <= 0: none */
    double mem_limit_mb; /* address space the child may add to what it
                            inherits; <= 0: none */
} mcb_isolate_limits;

typedef enum {
    MCB_ISO_DONE = 0,   /* the child ran fn to completion (fn's status is returned) */
    MCB_ISO_CRASHED,    /* killed by a signal (segfault, abort, ...) */
    MCB_ISO_TIMEOUT,    /* killed at the time limit */
    MCB_ISO_EXITED,     /* ended without reporting (exit() inside fn, a sanitizer) */
    MCB_ISO_NOFORK      /* the child could not be started */
} mcb_iso_outcome;

typedef struct {
    mcb_iso_outcome outcome;
    int signal;    /* with MCB_ISO_CRASHED */
    int exit_code; /* with MCB_ISO_EXITED */
    double wall_s;
} mcb_isolate_report;

/* Makes this process safe to fork from: releases the OpenMP runtime's
 * thread pool (omp_pause_resource_all, OpenMP 5.0; the next parallel region
 * starts it again) and returns how many threads the process still has (1
 * when nothing else keeps threads; 0 when that cannot be read). Call it from
 * outside any parallel region, where no other thread of the caller runs
 * OpenMP. mcb_isolate_start calls it before each fork. */
int mcb_isolate_prefork(void);

typedef mcb_rc (*mcb_isolated_fn)(void *arg, void *shared, mcb_err *err);

/* Returns fn's status and message when the child completed (rep->outcome
 * MCB_ISO_DONE); otherwise MCB_E_ISOLATED with rep saying what happened
 * and err describing it ("crashed (signal 11, Segmentation fault)"). rep
 * and out may be NULL. */
mcb_rc mcb_isolate_run(mcb_isolated_fn fn, void *arg, const mcb_isolate_limits *lim,
                       size_t shared_size, void *out, mcb_isolate_report *rep, mcb_err *err);

/* The two halves of mcb_isolate_run, for a caller that works while the
 * child runs: start forks the child and returns at once (on failure no
 * child exists and nothing is held); every started child is then either
 * waited for (wait: mcb_isolate_run's outcome, report and message) or
 * abandoned (killed and reaped). */
typedef struct {
    int pid, fd;
    double t0_s;
    mcb_isolate_limits lim;
    void *shared;
    size_t shared_size;
} mcb_isolate_child;
mcb_rc mcb_isolate_start(mcb_isolated_fn fn, void *arg, const mcb_isolate_limits *lim,
                         size_t shared_size, mcb_isolate_child *ch, mcb_err *err);
mcb_rc mcb_isolate_wait(mcb_isolate_child *ch, void *out, mcb_isolate_report *rep, mcb_err *err);
void mcb_isolate_abandon(mcb_isolate_child *ch); /* accepts NULL and a waited child */

/* The reader's guard for an untrusted file: runs fn(arg) in a child with
 * limits scaled to the file's size (time 30 s + 10 s per GiB, memory 4 GiB
 * + 16 x the file, both overridable with the environment variables
 * MCB_READ_TIME_LIMIT_S and MCB_READ_MEM_LIMIT_MB). A crash, a hang or the
 * memory limit becomes MCB_E_INPUT with a message naming the file; fn's own
 * failure is returned as it is. */
mcb_rc mcb_isolate_probe(const char *path, mcb_rc (*fn)(void *arg, mcb_err *err), void *arg,
                         mcb_err *err);
/* The same in two halves (mcb_isolate_start, mcb_isolate_wait), so that a
 * reader can probe the next file while it reads this one. */
/* The same guard for a reader that returns a result: fn(arg, shared, err)
 * as mcb_isolate_run runs it, under the limits for `path`; its shared_size
 * bytes are copied to out when it completes. */
mcb_rc mcb_isolate_probe_result(const char *path, mcb_isolated_fn fn, void *arg,
                                size_t shared_size, void *out, mcb_err *err);
mcb_rc mcb_isolate_probe_start(const char *path, mcb_rc (*fn)(void *arg, mcb_err *err), void *arg,
                               mcb_isolate_child *ch, mcb_err *err);
mcb_rc mcb_isolate_probe_wait(const char *path, mcb_isolate_child *ch, mcb_err *err);

#endif

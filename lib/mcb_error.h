/* mcb_error.h: status codes and the error message every library call fills.
 *
 * Library code never exits and never prints: a failing call returns a
 * non-zero mcb_rc and writes into an mcb_err what failed (file, dataset,
 * reason). The CLI decides what to print and which exit code to use. */
#ifndef MCB_ERROR_H
#define MCB_ERROR_H

#include <stddef.h>

typedef enum {
    MCB_OK = 0,
    MCB_E_INPUT = 1,   /* bad input: malformed or unreadable file, bad value, bad argument */
    MCB_E_IO = 2,      /* cannot write a file (disk full, permissions changed meanwhile) */
    MCB_E_NOMEM = 3,   /* allocation failed */
    MCB_E_NUMERIC = 4, /* factorization failed (not positive definite, ...) */
    MCB_E_ISOLATED = 5, /* work run in a child process crashed or timed out (mcb_isolate.h) */
    MCB_E_STOPPED = 6   /* a closed loop stopped its scene: the run failed in the loop
                           (problems/scene/world.h) */
} mcb_rc;

#define MCB_ERR_LEN 1024
typedef struct {
    char msg[MCB_ERR_LEN];
} mcb_err;

/* Writes a printf-style message into err (err may be NULL) and returns rc. */
mcb_rc mcb_fail(mcb_err *err, mcb_rc rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Clears err (err may be NULL). */
void mcb_err_clear(mcb_err *err);

/* Checked allocation helpers: NULL on failure or n == 0 overflow. */
void *mcb_calloc(size_t n, size_t size);
void *mcb_malloc(size_t n, size_t size);
char *mcb_strdup(const char *s);

#endif

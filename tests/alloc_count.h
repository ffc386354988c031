/* alloc_count.h: malloc, calloc and realloc interposed in a test
 * executable (libmcb is static, so the library's and CHOLMOD's calls
 * resolve here too), counting calls while `counting` is set: the tests'
 * check that an iteration loop allocates nothing. Include it from exactly
 * one source file of the executable. Off under AddressSanitizer, which
 * interposes them itself (COUNT_MALLOC 0). */
#ifndef MCB_TESTS_ALLOC_COUNT_H
#define MCB_TESTS_ALLOC_COUNT_H

#include <stddef.h>

#include "solvers/solver.h"

#if defined(__SANITIZE_ADDRESS__)
#define COUNT_MALLOC 0
#else
#define COUNT_MALLOC 1
#endif

#if COUNT_MALLOC
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static int counting;
static long nalloc;
static void count_call(void)
{
    if (__atomic_load_n(&counting, __ATOMIC_RELAXED)) __atomic_fetch_add(&nalloc, 1, __ATOMIC_RELAXED);
}
void *malloc(size_t n)
{
    count_call();
    return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
    count_call();
    return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
    count_call();
    return __libc_realloc(p, n);
}
#endif

/* A solver callback (solver.h) for the no-allocation checks: never stops
 * the solve, keeps the last iteration in *(int *)ctx, and counts from the
 * end of iteration 1 (the loop's allocations, none of setup's). The caller
 * stops counting (counting = 0) when solve() returns. */
static inline mcb_cb_action alloc_count_from_iter2(void *ctx, int iter, double own)
{
    (void)own;
#if COUNT_MALLOC
    if (iter == 1) {
        nalloc = 0;
        __atomic_store_n(&counting, 1, __ATOMIC_RELAXED);
    }
#endif
    *(int *)ctx = iter;
    return MCB_CB_CONTINUE;
}

#endif

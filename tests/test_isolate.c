/* test_isolate.c: work run in a child process (lib/mcb_isolate.c): its
 * status, message and result come back; a crash, a hang, an exit() and a
 * runaway allocation become outcomes of the caller, never its end. */
#include <check.h>

#include "check_main.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <omp.h>

#include "lib/mcb_isolate.h"
#include "lib/mcb_timer.h"

static mcb_rc fn_ok(void *arg, void *shared, mcb_err *err)
{
    (void)err;
    snprintf(shared, 64, "result %d", *(int *)arg);
    return MCB_OK;
}

static mcb_rc fn_fails(void *arg, void *shared, mcb_err *err)
{
    (void)arg;
    (void)shared;
    return mcb_fail(err, MCB_E_INPUT, "bad input in the child");
}

static mcb_rc fn_crashes(void *arg, void *shared, mcb_err *err)
{
    (void)arg;
    (void)shared;
    (void)err;
    raise(SIGSEGV);
    return MCB_OK;
}

static mcb_rc fn_hangs(void *arg, void *shared, mcb_err *err)
{
    (void)arg;
    (void)shared;
    (void)err;
    for (;;) pause();
    return MCB_OK;
}

static mcb_rc fn_exits(void *arg, void *shared, mcb_err *err)
{
    (void)arg;
    (void)shared;
    (void)err;
    exit(3); /* what libfclib does on an HDF5 error */
}

#if !defined(__SANITIZE_ADDRESS__)
static mcb_rc fn_allocates(void *arg, void *shared, mcb_err *err)
{
    (void)shared;
    size_t bytes = *(size_t *)arg;
    char *p = malloc(bytes);
    if (!p) return mcb_fail(err, MCB_E_NOMEM, "out of memory for %zu bytes", bytes);
    memset(p, 1, bytes);
    free(p);
    return MCB_OK;
}
#endif

/* How many threads a two-thread parallel region ran on. */
static int parallel_region_threads(void)
{
    int seen = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp atomic
        seen++;
    }
    return seen;
}

static mcb_rc fn_parallel(void *arg, void *shared, mcb_err *err)
{
    (void)arg;
    (void)err;
    *(int *)shared = parallel_region_threads();
    return MCB_OK;
}

/* A parallel region in this process leaves GNU libgomp's pool threads
 * docked; a child forked with that pool in place handed its next region to
 * threads that do not exist in it and waited until it was killed. */
START_TEST(openmp_after_openmp_in_the_parent)
{
    for (int round = 0; round < 3; round++) {
        ck_assert_int_eq(parallel_region_threads(), 2);
        int seen = 0;
        mcb_isolate_report rep;
        mcb_err err;
        mcb_isolate_limits lim = {10, 0};
        mcb_rc rc = mcb_isolate_run(fn_parallel, NULL, &lim, sizeof seen, &seen, &rep, &err);
        ck_assert_msg(rc == MCB_OK && rep.outcome == MCB_ISO_DONE, "round %d: %s", round,
                      rc ? err.msg : "");
        ck_assert_int_eq(seen, 2); /* the child ran its own pool */
    }
    ck_assert_int_eq(parallel_region_threads(), 2); /* and so does the parent after it */
    ck_assert_int_eq(mcb_isolate_prefork(), 1);     /* the pool released, nothing else left */
}
END_TEST

START_TEST(result_comes_back)
{
    int x = 42;
    char out[64] = "";
    mcb_isolate_report rep;
    mcb_err err;
    mcb_isolate_limits lim = {10, 0};
    ck_assert_int_eq(mcb_isolate_run(fn_ok, &x, &lim, sizeof out, out, &rep, &err), MCB_OK);
    ck_assert_int_eq(rep.outcome, MCB_ISO_DONE);
    ck_assert_str_eq(out, "result 42");
}
END_TEST

START_TEST(failure_comes_back)
{
    mcb_isolate_report rep;
    mcb_err err;
    ck_assert_int_eq(mcb_isolate_run(fn_fails, NULL, NULL, 0, NULL, &rep, &err), MCB_E_INPUT);
    ck_assert_int_eq(rep.outcome, MCB_ISO_DONE);
    ck_assert_str_eq(err.msg, "bad input in the child");
}
END_TEST

START_TEST(crash_is_an_outcome)
{
    mcb_isolate_report rep;
    mcb_err err;
    ck_assert_int_eq(mcb_isolate_run(fn_crashes, NULL, NULL, 0, NULL, &rep, &err),
                     MCB_E_ISOLATED);
    /* under AddressSanitizer the SEGV handler reports and exits instead */
    ck_assert_msg(rep.outcome == MCB_ISO_CRASHED || rep.outcome == MCB_ISO_EXITED,
                  "outcome %d: %s", rep.outcome, err.msg);
    if (rep.outcome == MCB_ISO_CRASHED) {
        ck_assert_int_eq(rep.signal, SIGSEGV);
        ck_assert_msg(strstr(err.msg, "crashed (signal 11"), "%s", err.msg);
    }
}
END_TEST

START_TEST(hang_is_cut_at_the_limit)
{
    mcb_isolate_report rep;
    mcb_err err;
    mcb_isolate_limits lim = {0.3, 0};
    double t0 = mcb_now_s();
    ck_assert_int_eq(mcb_isolate_run(fn_hangs, NULL, &lim, 0, NULL, &rep, &err), MCB_E_ISOLATED);
    double took = mcb_now_s() - t0;
    ck_assert_int_eq(rep.outcome, MCB_ISO_TIMEOUT);
    ck_assert_msg(took >= 0.3 && took < 10, "took %g s for a 0.3 s limit", took);
    ck_assert_msg(strstr(err.msg, "did not finish within 0.3 s"), "%s", err.msg);
}
END_TEST

START_TEST(exit_is_an_outcome)
{
    mcb_isolate_report rep;
    mcb_err err;
    ck_assert_int_eq(mcb_isolate_run(fn_exits, NULL, NULL, 0, NULL, &rep, &err), MCB_E_ISOLATED);
    ck_assert_int_eq(rep.outcome, MCB_ISO_EXITED);
    ck_assert_int_eq(rep.exit_code, 3);
}
END_TEST

#if !defined(__SANITIZE_ADDRESS__)
START_TEST(memory_limit_holds)
{
    mcb_isolate_report rep;
    mcb_err err;
    mcb_isolate_limits lim = {30, 256};
    size_t big = (size_t)2 << 30, small = (size_t)64 << 20;
    ck_assert_int_eq(mcb_isolate_run(fn_allocates, &big, &lim, 0, NULL, &rep, &err), MCB_E_NOMEM);
    ck_assert_int_eq(rep.outcome, MCB_ISO_DONE);
    ck_assert_int_eq(mcb_isolate_run(fn_allocates, &small, &lim, 0, NULL, &rep, &err), MCB_OK);
}
END_TEST
#endif

static mcb_rc probe_crashes(void *arg, mcb_err *err)
{
    (void)err;
    (void)arg;
    raise(SIGSEGV);
    return MCB_OK;
}

START_TEST(probe_names_the_file)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/mcb_probe_%ld.h5", (long)getpid());
    FILE *f = fopen(path, "w");
    fputs("x", f);
    fclose(f);
    mcb_err err;
    ck_assert_int_eq(mcb_isolate_probe(path, probe_crashes, NULL, &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "damaged or hostile file"), "%s",
                  err.msg);
    unlink(path);
    ck_assert_int_eq(mcb_isolate_probe("/nonexistent/x.h5", probe_crashes, NULL, &err),
                     MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "/nonexistent/x.h5: cannot open file"), "%s", err.msg);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("isolate");
    TCase *tc = tcase_create("child");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, result_comes_back);
    tcase_add_test(tc, failure_comes_back);
    tcase_add_test(tc, crash_is_an_outcome);
    tcase_add_test(tc, hang_is_cut_at_the_limit);
    tcase_add_test(tc, exit_is_an_outcome);
#if !defined(__SANITIZE_ADDRESS__)
    tcase_add_test(tc, memory_limit_holds);
#endif
    tcase_add_test(tc, probe_names_the_file);
    tcase_add_test(tc, openmp_after_openmp_in_the_parent);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

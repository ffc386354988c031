/* check_main.h: runs one Check suite and turns failures into the exit code;
 * a test that cannot run here (data or library absent) exits with
 * MCB_TEST_SKIP, which ctest reports as skipped (SKIP_RETURN_CODE). */
#ifndef MCB_CHECK_MAIN_H
#define MCB_CHECK_MAIN_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#define MCB_TEST_SKIP 77

/* Where the shared data (FCLIB files) are: $MCB_TEST_SHARED_DIR if set,
 * else ../shared beside the source tree. */
static inline const char *mcb_test_shared_dir(void)
{
    const char *d = getenv("MCB_TEST_SHARED_DIR");
#ifdef MCB_SHARED_DIR
    if (!d || !*d) d = MCB_SHARED_DIR;
#endif
    return d ? d : "";
}

/* Says why and returns the skip exit code (for main). */
static inline int mcb_test_skip(const char *why, const char *what)
{
    printf("SKIPPED: %s%s\n", why, what ? what : "");
    fflush(stdout);
    return MCB_TEST_SKIP;
}

static inline int mcb_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif

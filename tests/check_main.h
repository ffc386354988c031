/* check_main.h: runs one Check suite and turns failures into the exit code. */
#ifndef MCB_CHECK_MAIN_H
#define MCB_CHECK_MAIN_H

#include <check.h>
#include <stdlib.h>

static inline int mcb_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif

/* mcb_error.c: error messages and checked allocation. */
#include "lib/mcb_error.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

mcb_rc mcb_fail(mcb_err *err, mcb_rc rc, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return rc;
}

void mcb_err_clear(mcb_err *err)
{
    if (err) err->msg[0] = '\0';
}

void *mcb_calloc(size_t n, size_t size)
{
    if (n == 0) n = 1;
    if (size && n > SIZE_MAX / size) return NULL;
    return calloc(n, size);
}

void *mcb_malloc(size_t n, size_t size)
{
    if (n == 0) n = 1;
    if (size && n > SIZE_MAX / size) return NULL;
    return malloc(n * size);
}

char *mcb_strdup(const char *s)
{
    if (!s) s = "";
    size_t len = strlen(s) + 1;
    char *d = malloc(len);
    if (d) memcpy(d, s, len);
    return d;
}

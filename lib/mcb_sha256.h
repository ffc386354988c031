/* mcb_sha256.h: SHA-256 (FIPS 180-4) of a byte stream or a file, as the
 * provenance of a problem source (an FCLIB file run directly records its
 * digest in the results). Library code: nothing is printed. */
#ifndef MCB_SHA256_H
#define MCB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "lib/mcb_error.h"

typedef struct {
    uint32_t h[8];
    uint64_t bytes;          /* message length so far */
    unsigned char block[64]; /* the partial block */
    size_t fill;
} mcb_sha256;

void mcb_sha256_init(mcb_sha256 *s);
void mcb_sha256_update(mcb_sha256 *s, const void *data, size_t len);
/* The digest as 64 lowercase hexadecimal digits and a NUL. */
void mcb_sha256_hex(mcb_sha256 *s, char hex[65]);

/* The digest of a file's bytes; MCB_E_INPUT naming the path when it cannot
 * be read. */
mcb_rc mcb_sha256_file(const char *path, char hex[65], mcb_err *err);

#endif

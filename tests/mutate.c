/* mutate.c: writes byte-mutated copies of a file, for the corrupted-file
 * tests (tests/test_corrupt.sh). Deterministic for a fixed seed.
 *
 *   mutate SEED_FILE OUT_DIR COUNT SEED [PREFIX]
 *
 * Each copy gets one mutation class, cycling: flip 1-8 random bits; set
 * 1-16 random bytes to random or boundary values (0x00, 0xff, 0x7f, 0x80);
 * overwrite a 2-, 4- or 8-byte field with a boundary integer (0, -1, 2^31-1,
 * 2^63-1, a small or huge count), which hits lengths, addresses and sizes
 * in HDF5 headers; truncate at a random offset; duplicate or delete a random
 * chunk; and every 50th file is random bytes behind a valid HDF5 signature.
 * Files are named PREFIX%05d.h5. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint64_t rnd(void) /* splitmix64 */
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

static int write_file(const char *path, const unsigned char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(buf, 1, len, f);
    return (fclose(f) == 0 && w == len) ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: mutate SEED_FILE OUT_DIR COUNT SEED [PREFIX]\n");
        return 2;
    }
    const char *prefix = argc > 5 ? argv[5] : "m";
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "mutate: cannot open %s\n", argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long flen = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (flen <= 0) {
        fclose(f);
        return 2;
    }
    size_t len = (size_t)flen;
    unsigned char *orig = malloc(len), *buf = malloc(2 * len + 64);
    if (!orig || !buf || fread(orig, 1, len, f) != len) {
        fclose(f);
        return 2;
    }
    fclose(f);
    long count = strtol(argv[3], NULL, 10);
    rng_state = strtoull(argv[4], NULL, 10);
    static const uint64_t boundary[] = {0,           1,          2,         0x7f,
                                        0x80,        0xff,       0x7fff,    0xffff,
                                        0x7fffffff,  0x80000000, 0xffffffff, 0x7fffffffffffffffULL,
                                        ~0ULL,       1000000,    200000000, 4096};
    for (long k = 0; k < count; k++) {
        memcpy(buf, orig, len);
        size_t n = len;
        int cls = (int)(k % 6);
        if (k % 50 == 49) cls = 6;
        switch (cls) {
        case 0: /* bit flips */
            for (int j = 0, c = 1 + (int)below(8); j < c; j++)
                buf[below(len)] ^= (unsigned char)(1u << below(8));
            break;
        case 1: /* byte values */
            for (int j = 0, c = 1 + (int)below(16); j < c; j++) {
                static const unsigned char v[] = {0x00, 0xff, 0x7f, 0x80};
                buf[below(len)] = below(2) ? (unsigned char)rnd() : v[below(4)];
            }
            break;
        case 2: { /* a boundary integer in a 2/4/8-byte little-endian field */
            size_t w = (size_t)1 << (1 + below(3));
            size_t at = below(len - w);
            uint64_t x = boundary[below(sizeof boundary / sizeof boundary[0])];
            for (size_t b = 0; b < w; b++) buf[at + b] = (unsigned char)(x >> (8 * b));
            break;
        }
        case 3: /* truncation */
            n = below(len);
            break;
        case 4: { /* duplicate a chunk in place (shifts the tail) */
            size_t at = below(len), c = 1 + below(len - at < 256 ? len - at : 256);
            memmove(buf + at + c, buf + at, len - at);
            n = len + c;
            break;
        }
        case 5: { /* delete a chunk */
            size_t at = below(len), c = 1 + below(len - at < 256 ? len - at : 256);
            if (at + c > len) c = len - at;
            memmove(buf + at, buf + at + c, len - at - c);
            n = len - c;
            break;
        }
        case 6: /* random bytes behind the HDF5 signature */
            for (size_t b = 8; b < len; b++) buf[b] = (unsigned char)rnd();
            break;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s%05ld.h5", argv[2], prefix, k);
        if (write_file(path, buf, n)) {
            fprintf(stderr, "mutate: cannot write %s\n", path);
            return 1;
        }
    }
    free(orig);
    free(buf);
    return 0;
}

/* fuzz_readers.c: libFuzzer target over mcbench's two readers of untrusted
 * files, run in this process (no isolation, so every crash, hang, leak of
 * memory growth or sanitizer report is found):
 *   - the problem reader, mcb_read_problems(), validation included;
 *   - the FCLIB importer, mcb_import_fclib_unisolated() (HDF5 pre-checks,
 *     libfclib, conversion, validation).
 * The first input byte picks the reader (even: problem file, odd: FCLIB),
 * the rest is the file's bytes. libfclib calls exit() when an HDF5 call
 * fails; the exit is intercepted here and turned back into an error, which
 * is what the isolated child reports in the real tool (mcb_isolate.h).
 * In ASan builds the target also counts its live heap and stops with a
 * report naming the allocation that takes it over MCB_FUZZ_HEAP_LIMIT_MB
 * (default 2048, 0: off): libFuzzer's RSS limit looks at the peak once a
 * second, by which time a damaged size field's gigabytes may be freed again,
 * and its report then shows only what is live, not who allocated the peak.
 * Seeds come from tests/fuzz/fuzz_seeds.c; run with scripts/fuzz.sh. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <hdf5.h>
#include <sanitizer/allocator_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "problems/import_fclib.h"
#include "lib/mcb_io.h"

static jmp_buf *exit_jump;

/* libfclib's exit(): back to the target; anyone else's: the real exit. */
void exit(int code)
{
    if (exit_jump) longjmp(*exit_jump, 1);
    void (*real_exit)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
    real_exit(code);
    _Exit(code);
}

/* After an intercepted exit, libfclib's HDF5 objects are still open. */
static void close_all_hdf5(void)
{
    ssize_t n = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (n <= 0) return;
    hid_t *ids = malloc((size_t)n * sizeof *ids);
    if (!ids) return;
    n = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_ALL, (size_t)n, ids);
    for (ssize_t k = 0; k < n; k++) {
        switch (H5Iget_type(ids[k])) {
        case H5I_DATASET: H5Dclose(ids[k]); break;
        case H5I_GROUP: H5Gclose(ids[k]); break;
        case H5I_ATTR: H5Aclose(ids[k]); break;
        case H5I_DATATYPE: H5Tclose(ids[k]); break;
        default: break;
        }
    }
    n = H5Fget_obj_ids(H5F_OBJ_ALL, H5F_OBJ_FILE, (size_t)n, ids);
    for (ssize_t k = 0; k < n; k++) H5Fclose(ids[k]);
    free(ids);
}

/* Live heap accounting (absent from UBSan-only builds: no allocator). */
#pragma weak __sanitizer_get_allocated_size
#pragma weak __sanitizer_install_malloc_and_free_hooks
static atomic_llong live_bytes; /* since the hooks were installed */
static long long heap_limit_bytes;
static atomic_int heap_reported;

static void fuzz_heap_on_malloc(const volatile void *p, size_t size)
{
    (void)p;
    long long now = atomic_fetch_add(&live_bytes, (long long)size) + (long long)size;
    if (now <= heap_limit_bytes || atomic_exchange(&heap_reported, 1)) return;
    fprintf(stderr,
            "==%ld== ERROR: fuzz target: live heap of %lld MB exceeds MCB_FUZZ_HEAP_LIMIT_MB=%lld "
            "with an allocation of %zu bytes at:\n",
            (long)getpid(), now >> 20, heap_limit_bytes >> 20, size);
    __sanitizer_print_stack_trace();
    fprintf(stderr, "SUMMARY: fuzz target: heap over the limit\n");
    abort(); /* libFuzzer saves the input as a crash */
}

static void fuzz_heap_on_free(const volatile void *p)
{
    if (p) atomic_fetch_sub(&live_bytes, (long long)__sanitizer_get_allocated_size(p));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *mb = getenv("MCB_FUZZ_HEAP_LIMIT_MB");
    long long limit_mb = mb && *mb ? atoll(mb) : 2048;
    heap_limit_bytes = limit_mb > 0 && limit_mb < (1LL << 40) ? limit_mb << 20 : 0;
    if (heap_limit_bytes > 0 && __sanitizer_get_allocated_size &&
        __sanitizer_install_malloc_and_free_hooks)
        __sanitizer_install_malloc_and_free_hooks(fuzz_heap_on_malloc, fuzz_heap_on_free);
    return 0;
}

static char path[4200];

static void remove_input(void) { unlink(path); }

/* The input goes to a file (HDF5 reads files): in MCB_FUZZ_TMPDIR when set
 * (scripts/fuzz.sh sets its own, removed at the end), else /dev/shm. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        const char *dir = getenv("MCB_FUZZ_TMPDIR");
        snprintf(path, sizeof path, "%s/mcb_fuzz_%ld.h5", dir && *dir ? dir : "/dev/shm",
                 (long)getpid());
        atexit(remove_input);
    }
    if (size < 1) return 0;
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    mcb_err err;
    if (data[0] % 2 == 0) {
        mcb_problem_set *S = NULL;
        mcb_read_problems(path, &S, &err);
        mcb_problem_set_free(&S);
    } else {
        static mcb_problem *P;
        jmp_buf jb;
        P = NULL;
        if (setjmp(jb) == 0) {
            exit_jump = &jb;
            mcb_import_fclib_unisolated(path, &P, &err);
        } else {
            close_all_hdf5();
        }
        exit_jump = NULL;
        mcb_problem_free(&P);
    }
    return 0;
}

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
 * Seeds come from tests/fuzz/fuzz_seeds.c; run with scripts/fuzz.sh. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <hdf5.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mcb_io.h"
#include "problems.h"

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

/* gpu_backend.h: where a GPU solver's sweeps run (docs/gpu.md). The solver
 * (ccp_jacobi_gpu.c) packs the problem into an mcb_ccp_soa on the host; a
 * backend then owns a copy of it and runs the iterations:
 *   - the CUDA backend (ccp_cuda.cu): device memory, one kernel per pass of
 *     Alg. 3 calling ccp_kernels.h's functions;
 *   - the host backend (ccp_jacobi_gpu.c): the same passes as plain loops
 *     over the same functions, in the same order, used by the tests.
 * open() is setup (device allocation and host-to-device transfer); sweep()
 * is one iteration and returns the residual's three sums after the device
 * has finished (the clock is read after it); fetch() copies the iterate
 * back (measurement time). */
#ifndef MCB_GPU_BACKEND_H
#define MCB_GPU_BACKEND_H

#include <stddef.h>

#include "lib/mcb_error.h"
#include "solvers/gpu/ccp_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *name;
    /* Optional (NULL: always): 1 when the backend can run here, else 0 with
     * the reason in why (checked before any setup work). */
    int (*available)(char *why, size_t len);
    /* A backend's copy of H (whose arrays it may not keep); MCB_E_* with the
     * reason on failure (no device: the CUDA error's text), nothing left
     * allocated. */
    mcb_rc (*open)(const mcb_ccp_soa *H, void **dev, mcb_err *err);
    /* One iteration; 0, or non-zero with the reason in why (a device error). */
    int (*sweep)(void *dev, double out[3], char *why, size_t len);
    void (*fetch)(void *dev, double *v, double *lambda);
    void (*close)(void **dev); /* accepts NULL */
} mcb_gpu_backend;

extern const mcb_gpu_backend mcb_gpu_host_backend;
extern const mcb_gpu_backend mcb_gpu_cuda_backend;

/* The CUDA device this process sees: "NAME, X GiB, compute capability
 * A.B, driver D, runtime R", or "none (the CUDA error's text)"; returns 1
 * when there is a device. Never fails. */
int mcb_gpu_describe(char *buf, size_t len);

/* The CUDA backend's probe (mcbench gpu --probe): the device's
 * device-to-device copy bandwidth (bytes read and written per second, a
 * copy of up to 1 GiB ten times) and the mean time of one sweep (the
 * contact, row and body passes of Alg. 3, without the residual) over
 * `sweeps`, timed with CUDA events after three warm-up sweeps. 0, or
 * non-zero with the reason. */
int mcb_gpu_cuda_time(void *dev, int sweeps, double *sweep_s, double *copy_Bps, char *why,
                      size_t len);

#ifdef __cplusplus
}
#endif

#endif

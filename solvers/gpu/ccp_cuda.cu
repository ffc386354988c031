/* ccp_cuda.cu: the CUDA backend of the GPU solvers (gpu_backend.h,
 * docs/gpu.md). One kernel per pass of Tasora and Negrut's Alg. 3, each
 * thread one element calling ccp_kernels.h's function for it:
 *   k_contact (one thread per contact block), k_row (one per other row),
 *   k_pj_block (pj-gpu: one per constraint block, pj_kernels.h),
 *   k_body (one per subsystem), k_partial (one block of CCPK_CHUNK threads
 *   per chunk, a fixed shared-memory tree), k_finish (one thread adds the
 *   chunks in order).
 * No atomics anywhere: each thread writes only what it owns, so a device
 * gives the same bits on every run. Built with --fmad=false (CMakeLists):
 * no fused multiply-adds, so the device rounds as the host does. open()
 * allocates and uploads (setup); sweep() launches the five kernels and
 * copies back the three sums, which waits for the device (the harness
 * reads its clock after); fetch() copies the iterate back. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {
#include "solvers/gpu/gpu_backend.h"
#include "solvers/gpu/pj_kernels.h"
}

typedef struct {
    mcb_ccp_soa S;    /* device pointers */
    double *out;      /* 3 on the device */
    void *mem[48];    /* every allocation, for close */
    int nmem;
} cuda_dev;

static __global__ void k_contact(mcb_ccp_soa S)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < S.nc) ccpk_contact(&S, i);
}

static __global__ void k_row(mcb_ccp_soa S)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < S.no) ccpk_row(&S, i);
}

static __global__ void k_body(mcb_ccp_soa S)
{
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s < S.ns) ccpk_body(&S, s);
}

static __global__ void k_pj_block(mcb_ccp_soa S)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < S.nb) pjk_block(&S, i);
}

static __global__ void k_partial(mcb_ccp_soa S)
{
    __shared__ double sh[3 * CCPK_CHUNK];
    int t = threadIdx.x;
    ccpk_terms(&S, blockIdx.x * CCPK_CHUNK + t, sh + 3 * t);
    __syncthreads();
    for (int stride = CCPK_CHUNK / 2; stride > 0; stride /= 2) {
        if (t < stride) ccpk_tree_step(sh, t, stride);
        __syncthreads();
    }
    if (t == 0)
        for (int q = 0; q < 3; q++) S.part[3 * blockIdx.x + q] = sh[q];
}

static __global__ void k_finish(mcb_ccp_soa S, double *out)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) ccpk_finish(&S, out);
}

static void cuda_close(void **dev)
{
    if (!dev || !*dev) return;
    cuda_dev *d = (cuda_dev *)*dev;
    for (int k = 0; k < d->nmem; k++) cudaFree(d->mem[k]);
    free(d);
    *dev = NULL;
}

/* A device copy of `bytes` from src (src NULL: zeroed); NULL on failure. */
template <typename T> static T *upload(cuda_dev *d, const T *src, size_t count, cudaError_t *e)
{
    size_t bytes = (count ? count : 1) * sizeof(T);
    void *p = NULL;
    if (*e != cudaSuccess) return NULL;
    *e = cudaMalloc(&p, bytes);
    if (*e != cudaSuccess) return NULL;
    d->mem[d->nmem++] = p;
    *e = src && count ? cudaMemcpy(p, src, count * sizeof(T), cudaMemcpyHostToDevice)
                      : cudaMemset(p, 0, bytes);
    return (T *)p;
}

static int cuda_available(char *why, size_t len)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaSuccess && count > 0) return 1;
    snprintf(why, len, "no CUDA device: %s", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return 0;
}

static mcb_rc cuda_open(const mcb_ccp_soa *H, void **devp, mcb_err *err)
{
    *devp = NULL;
    char why[MCB_ERR_LEN / 2];
    if (!cuda_available(why, sizeof why)) return mcb_fail(err, MCB_E_INPUT, "%s", why);
    cudaError_t e = cudaSuccess;
    cuda_dev *d = (cuda_dev *)calloc(1, sizeof(cuda_dev));
    if (!d) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mcb_ccp_soa S = *H;
    size_t m = (size_t)H->m, n = (size_t)H->n, ns = (size_t)H->ns;
    size_t cells = (size_t)H->width * m, nL = H->L0[ns - 1] +
        (size_t)(H->s0[ns] - H->s0[ns - 1]) * (size_t)(H->s0[ns] - H->s0[ns - 1]);
    size_t nnz = (size_t)H->Jp[n];
    S.row_nnz = upload(d, H->row_nnz, m, &e);
    S.ell_col = upload(d, H->ell_col, cells, &e);
    S.ell_val = upload(d, H->ell_val, cells, &e);
    S.e = upload(d, H->e, m, &e);
    S.rr = upload(d, H->rr, m, &e);
    if (H->kind == MCB_GPU_PJ) {
        size_t nb = (size_t)H->nb;
        S.b_row = upload(d, H->b_row, nb, &e);
        S.b_type = upload(d, H->b_type, nb, &e);
        S.b_nrows = upload(d, H->b_nrows, nb, &e);
        S.b_mu = upload(d, H->b_mu, nb, &e);
        S.b_k = upload(d, H->b_k, nb, &e);
        S.b_alpha = upload(d, H->b_alpha, nb, &e);
        S.pd = upload(d, H->pd, m, &e);
        S.Wb = upload(d, H->Wb, 3 * m, &e);
        S.u = upload(d, (const double *)NULL, m, &e);
        S.next = upload(d, (const double *)NULL, m, &e);
        S.chg = upload(d, (const double *)NULL, nb, &e);
    } else {
        S.eta = upload(d, H->eta, m, &e);
        S.c = upload(d, H->c, m, &e);
        S.d = upload(d, H->d, m, &e);
        S.fixed = upload(d, H->fixed, m, &e);
        S.c_row = upload(d, H->c_row, (size_t)H->nc, &e);
        S.c_mu = upload(d, H->c_mu, (size_t)H->nc, &e);
        S.o_row = upload(d, H->o_row, (size_t)H->no, &e);
        S.o_type = upload(d, H->o_type, (size_t)H->no, &e);
    }
    S.s0 = upload(d, H->s0, ns + 1, &e);
    S.L0 = upload(d, H->L0, ns, &e);
    S.L = upload(d, H->L, nL, &e);
    S.Jp = upload(d, H->Jp, n + 1, &e);
    S.Ji = upload(d, H->Ji, nnz, &e);
    S.Jx = upload(d, H->Jx, nnz, &e);
    S.b = upload(d, H->b, n, &e);
    S.lambda = upload(d, H->lambda, m, &e);
    S.v = upload(d, H->v, n, &e);
    S.vprev = upload(d, H->vprev, n, &e);
    d->out = upload(d, (const double *)NULL, 3, &e);
    S.part = upload(d, (const double *)NULL, 3 * (size_t)H->nchunks, &e);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        void *dv = d;
        cuda_close(&dv);
        return mcb_fail(err, e == cudaErrorMemoryAllocation ? MCB_E_NOMEM : MCB_E_INPUT,
                        "CUDA setup: %s", cudaGetErrorString(e));
    }
    d->S = S;
    *devp = d;
    return MCB_OK;
}

static int blocks_for(int count) { return (count + CCPK_CHUNK - 1) / CCPK_CHUNK; }

static int cuda_sweep(void *dev, double out[3], char *why, size_t len)
{
    cuda_dev *d = (cuda_dev *)dev;
    mcb_ccp_soa &S = d->S;
    if (S.kind == MCB_GPU_PJ) { /* pj_kernels.h: bodies, blocks, swap */
        if (S.ns > 0) k_body<<<blocks_for(S.ns), CCPK_CHUNK>>>(S);
        if (S.nb > 0) k_pj_block<<<blocks_for(S.nb), CCPK_CHUNK>>>(S);
        double *t = S.lambda;
        S.lambda = S.next;
        S.next = t;
    } else {
        if (S.nc > 0) k_contact<<<blocks_for(S.nc), CCPK_CHUNK>>>(S);
        if (S.no > 0) k_row<<<blocks_for(S.no), CCPK_CHUNK>>>(S);
        if (S.ns > 0) k_body<<<blocks_for(S.ns), CCPK_CHUNK>>>(S);
    }
    k_partial<<<S.nchunks, CCPK_CHUNK>>>(S);
    k_finish<<<1, 1>>>(S, d->out);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) e = cudaMemcpy(out, d->out, 3 * sizeof(double), cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        snprintf(why, len, "CUDA: %s", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

static void cuda_fetch(void *dev, double *v, double *lambda)
{
    cuda_dev *d = (cuda_dev *)dev;
    /* pj's v is that of the current lambda: one body pass first */
    if (v && d->S.kind == MCB_GPU_PJ && d->S.ns > 0)
        k_body<<<blocks_for(d->S.ns), CCPK_CHUNK>>>(d->S);
    cudaMemcpy(lambda, d->S.lambda, (size_t)d->S.m * sizeof(double), cudaMemcpyDeviceToHost);
    if (v) cudaMemcpy(v, d->S.v, (size_t)d->S.n * sizeof(double), cudaMemcpyDeviceToHost);
}

extern "C" {

int mcb_gpu_cuda_time(void *dev, int sweeps, double *sweep_s, double *copy_Bps, char *why,
                      size_t len)
{
    cuda_dev *d = (cuda_dev *)dev;
    const mcb_ccp_soa &S = d->S;
    size_t bytes = (size_t)1 << 30, free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    while (bytes > ((size_t)1 << 20) && 2 * bytes > free_b / 2) bytes /= 2;
    void *a = NULL, *b = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    float ms = 0;
    cudaError_t e = cudaMalloc(&a, bytes);
    if (e == cudaSuccess) e = cudaMalloc(&b, bytes);
    if (e == cudaSuccess) e = cudaEventCreate(&t0);
    if (e == cudaSuccess) e = cudaEventCreate(&t1);
    if (e == cudaSuccess) e = cudaMemset(a, 1, bytes);
    if (e == cudaSuccess) e = cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice); /* warm-up */
    const int copies = 10;
    if (e == cudaSuccess) {
        cudaEventRecord(t0);
        for (int k = 0; k < copies; k++) cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);
        cudaEventRecord(t1);
        e = cudaEventSynchronize(t1);
    }
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, t0, t1);
    /* a copy reads and writes every byte once */
    if (e == cudaSuccess) *copy_Bps = 2.0 * (double)bytes * copies / (ms * 1e-3);
    cudaFree(a);
    cudaFree(b);
    for (int rep = 0; e == cudaSuccess && rep < 2; rep++) { /* a warm-up pass, then timed */
        int n = rep ? sweeps : 3;
        cudaEventRecord(t0);
        for (int k = 0; k < n; k++) {
            if (S.nc > 0) k_contact<<<blocks_for(S.nc), CCPK_CHUNK>>>(S);
            if (S.no > 0) k_row<<<blocks_for(S.no), CCPK_CHUNK>>>(S);
            if (S.ns > 0) k_body<<<blocks_for(S.ns), CCPK_CHUNK>>>(S);
        }
        cudaEventRecord(t1);
        e = cudaEventSynchronize(t1);
        if (e == cudaSuccess) e = cudaGetLastError();
        if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, t0, t1);
    }
    if (e == cudaSuccess) *sweep_s = ms * 1e-3 / sweeps;
    if (t0) cudaEventDestroy(t0);
    if (t1) cudaEventDestroy(t1);
    if (e != cudaSuccess) snprintf(why, len, "CUDA: %s", cudaGetErrorString(e));
    return e != cudaSuccess;
}

const mcb_gpu_backend mcb_gpu_cuda_backend = {"cuda", cuda_available, cuda_open, cuda_sweep,
                                              cuda_fetch, cuda_close};

int mcb_gpu_describe(char *buf, size_t len)
{
    int count = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
        snprintf(buf, len, "none (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "no device");
        return 0;
    }
    cudaDeviceProp p;
    memset(&p, 0, sizeof p);
    cudaGetDeviceProperties(&p, 0);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(buf, len, "%s, %.1f GiB, compute capability %d.%d, driver %d.%d, runtime %d.%d",
             p.name, (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.major, p.minor,
             drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    return 1;
}
}

/* gpu_solvers.h: the GPU solvers (docs/gpu.md), built when CMake finds the
 * CUDA compiler (MCB_WITH_CUDA). The registered ones run on the device;
 * the *_host twins run the same per-element arithmetic through the host
 * backend (gpu_backend.h) and are not registered: the tests compare them
 * with the CPU solvers on machines without a GPU. */
#ifndef MCB_GPU_SOLVERS_H
#define MCB_GPU_SOLVERS_H

#include "solvers/solver.h"

/* the most entries of a row of J the GPU layout takes (its ELL width) */
#define MCB_GPU_ROW_MAX 128

extern const mcb_solver_def mcb_solver_ccp_jacobi_gpu;
extern const mcb_solver_def mcb_solver_ccp_jacobi_gpu_host;
extern const mcb_solver_def mcb_solver_pj_gpu;
extern const mcb_solver_def mcb_solver_pj_gpu_host;

/* accepts_problem of the GPU solvers: subsystems of at most
 * MCB_DELASSUS_DENSE_MAX DOFs, rows of J with at most MCB_GPU_ROW_MAX
 * entries; else 0 and the reason. */
int mcb_gpu_accepts(const mcb_problem *P, char *reason, size_t len);
/* accepts_problem of pj-gpu: mcb_gpu_accepts, Coulomb contacts only
 * (mcb_accepts_coulomb_only, as pj) and A block diagonal over its
 * subsystems (mcb_mf_accepts: the matrix-free operator); else 0 and the
 * reason. */
int mcb_pj_gpu_accepts(const mcb_problem *P, char *reason, size_t len);

/* The memory-traffic probe of ccp-jacobi-gpu on P (docs/gpu.md): the
 * compulsory bytes of one sweep (every array a pass reads or writes, once:
 * J's entries and indices twice, by rows and by columns; lambda, v, the
 * per-row and per-body data), the device's copy bandwidth and one sweep's
 * time (gpu_backend.h, mcb_gpu_cuda_time). Needs a CUDA device. */
typedef struct {
    double bytes;     /* compulsory traffic of one sweep */
    double sweep_s;   /* measured time of one sweep */
    double copy_Bps;  /* measured device-to-device copy bandwidth */
} mcb_gpu_probe_out;
mcb_rc mcb_gpu_probe(const mcb_problem *P, int sweeps, mcb_gpu_probe_out *out, mcb_err *err);

#endif

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

/* accepts_problem of the GPU solvers: subsystems of at most
 * MCB_DELASSUS_DENSE_MAX DOFs, rows of J with at most MCB_GPU_ROW_MAX
 * entries; else 0 and the reason. */
int mcb_gpu_accepts(const mcb_problem *P, char *reason, size_t len);

#endif

/* gpu_layout.h: the host side of the GPU solvers' structure-of-arrays
 * layout (ccp_kernels.h), shared by ccp-jacobi-gpu and pj-gpu: the pieces
 * every kind of layout has (J's rows ELLPACK-wise, the rows' e and
 * compliance, the subsystems' dense factors, J's compressed columns, b,
 * the iterate and the residual's partial sums), and the release of a
 * packed layout. The solvers add their own arrays. */
#ifndef MCB_GPU_LAYOUT_H
#define MCB_GPU_LAYOUT_H

#include "lib/mcb_error.h"
#include "lib/mcb_sparse.h"
#include "solvers/gpu/ccp_kernels.h"

/* A copy of n doubles (NULL on failure; a 1-element buffer for n = 0). */
double *mcb_gpu_dup(const double *x, size_t n);

/* The common part of H from P, J^T (column r: row r of J, J^T's column
 * order), the ns subsystems (DOF starts s0, dense factor Ls[s] of
 * (s0[s+1]-s0[s])^2 doubles), the starting lambda (m) and v (n). H->b,
 * Jp/Ji/Jx point into P. MCB_E_NOMEM on failure (H then holds what was
 * allocated: free it with mcb_gpu_free_host). */
mcb_rc mcb_gpu_pack_common(const mcb_problem *P, const mcb_csc *JT, int ns, const int *s0,
                           const double *const *Ls, const double *lambda, const double *v,
                           mcb_ccp_soa *H);

/* Frees every array the host owns in H (all but J's and b) and zeroes it. */
void mcb_gpu_free_host(mcb_ccp_soa *H);

#endif

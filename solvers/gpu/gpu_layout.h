/* gpu_layout.h: the host side of the GPU solvers, shared by
 * ccp-jacobi-gpu and pj-gpu: the pieces every kind of structure-of-arrays
 * layout (ccp_kernels.h) has (J's rows ELLPACK-wise, the rows' e and
 * compliance, the subsystems' dense factors, J's compressed columns, b,
 * the iterate and the residual's partial sums), the release of a packed
 * layout, and the solver shell: setup (refusals, the CPU solver's setup
 * and packing by the solver, the backend's open), the iteration loop, the
 * iterate, free. The solvers add their own arrays and verdicts. */
#ifndef MCB_GPU_LAYOUT_H
#define MCB_GPU_LAYOUT_H

#include "lib/mcb_error.h"
#include "lib/mcb_sparse.h"
#include "solvers/gpu/ccp_kernels.h"
#include "solvers/gpu/gpu_backend.h"
#include "solvers/solver.h"

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

/* What a GPU solver adds to the shell. */
typedef struct {
    const char *name; /* for messages */
    int (*accepts)(const mcb_problem *P, char *reason, size_t len);
    size_t prm_size;
    /* The CPU solver's setup, its products packed into H, the parameters
     * as the iteration uses them (defaults resolved) into prm; on failure
     * the mcb_rc with err set (H freed by the caller). */
    mcb_rc (*prepare)(const mcb_problem *P, const mcb_settings *s, const void *params,
                      void *prm, mcb_ccp_soa *H, mcb_err *err);
    /* After iteration `it` with the sweep's three sums: the status that
     * ends the solve, or -1 to go on. */
    int (*judge)(const void *prm, int it, const double out[3], mcb_iter_cb cb, void *ctx,
                 mcb_info *info);
} mcb_gpu_kind;

typedef struct {
    const mcb_gpu_kind *kind;
    const mcb_gpu_backend *be; /* set once open */
    void *prm;                 /* kind->prm_size bytes */
    mcb_ccp_soa H;             /* host arrays, owned (J, b: the problem's) */
    void *dev;                 /* the backend's copy */
} mcb_gpu_work;

/* The setup of a GPU solver of `kind` on backend `be`: refusals (accepts,
 * no device) before any work, prepare, open. *work an mcb_gpu_work;
 * nothing left allocated on failure. */
mcb_rc mcb_gpu_setup(const mcb_gpu_kind *kind, const mcb_gpu_backend *be, const mcb_problem *P,
                     const mcb_settings *s, const void *params, void **work, mcb_err *err);
/* The solver interface's solve, iterate and free of an mcb_gpu_work. */
int mcb_gpu_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info);
void mcb_gpu_iterate(void *work, double *v, double *lambda);
void mcb_gpu_free(void **work);

#endif

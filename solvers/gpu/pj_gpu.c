/* pj_gpu.c: projected Jacobi (solvers/pj.c) on a GPU, in the design of
 * ccp-jacobi-gpu (docs/gpu.md): pj's matrix-free iteration (matrix_free =
 * 1: W never assembled) as body-parallel and block-parallel passes over the
 * structure-of-arrays layout of ccp_kernels.h (kind MCB_GPU_PJ), the
 * per-element arithmetic in pj_kernels.h, which pj.c calls too.
 *
 * It computes what pj with matrix_free = 1 computes, with its parameters,
 * defaults, own residual and statuses: the setup is pj's (the matrix-free
 * operator: A's subsystem factors, the contacts' 3x3 blocks of W, the row
 * weights; the automatic omega by power iteration on the host; lambda^0),
 * whose products are packed (gpu_layout.h) and handed to a backend
 * (gpu_backend.h): the CUDA one for `pj-gpu`, the host one for the tests
 * (`pj-gpu-host`: the same iterates, bit for bit, as pj matrix_free=1; the
 * own residual's sums in another order). The matrix_free parameter is
 * accepted and ignored: the GPU path is always matrix-free. Device
 * allocation and the transfer are setup; the iterate comes back when the
 * harness asks for it (iterate(): measurement time, one body pass for v).
 * Taken: primal problems with Coulomb contacts whose A is block diagonal
 * over subsystems of at most MCB_DELASSUS_DENSE_MAX DOFs and whose rows of
 * J have at most MCB_GPU_ROW_MAX entries; the others are refused with the
 * reason (skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/gpu/gpu_backend.h"
#include "solvers/gpu/gpu_layout.h"
#include "solvers/gpu/gpu_solvers.h"
#include "solvers/pj.h"

int mcb_pj_gpu_accepts(const mcb_problem *P, char *reason, size_t len)
{
    return mcb_accepts_coulomb_only(P, reason, len) && mcb_mf_accepts(P, reason, len) &&
           mcb_gpu_accepts(P, reason, len);
}

/* The layout from pj's matrix-free setup (pw) and P: the common part, then
 * the blocks, the weights, the 3x3 blocks and the scratch vectors. */
static mcb_rc pack(const mcb_problem *P, const mcb_pj_work *pw, mcb_ccp_soa *H)
{
    const mcb_mf *F = pw->F;
    size_t m = (size_t)P->m, nb = (size_t)P->nblocks;
    const double **Ls = mcb_malloc((size_t)F->nsub + 1, sizeof(double *));
    if (!Ls) return MCB_E_NOMEM;
    for (int s = 0; s < F->nsub; s++) Ls[s] = F->L + F->loff[s];
    H->kind = MCB_GPU_PJ;
    H->omega = pw->prm.omega, H->relax = pw->prm.relax;
    mcb_rc rc = mcb_gpu_pack_common(P, F->JT, F->nsub, F->start, Ls, pw->lambda, F->v, H);
    free(Ls);
    if (rc) return rc;
    int *b_row = mcb_calloc(nb + 1, sizeof(int)), *b_type = mcb_calloc(nb + 1, sizeof(int));
    int *b_nrows = mcb_calloc(nb + 1, sizeof(int));
    double *b_mu = mcb_calloc(nb + 1, sizeof(double)), *b_k = mcb_calloc(nb + 1, sizeof(double));
    double *b_alpha = mcb_calloc(nb + 1, sizeof(double));
    H->nb = (int)nb, H->b_row = b_row, H->b_type = b_type, H->b_nrows = b_nrows;
    H->b_mu = b_mu, H->b_k = b_k, H->b_alpha = b_alpha;
    H->pd = mcb_gpu_dup(pw->d, m), H->Wb = mcb_gpu_dup(pw->Wb, 3 * m);
    H->u = mcb_calloc(m + 1, sizeof(double)), H->next = mcb_calloc(m + 1, sizeof(double));
    H->chg = mcb_calloc(nb + 1, sizeof(double));
    if (!b_row || !b_type || !b_nrows || !b_mu || !b_k || !b_alpha || !H->pd || !H->Wb ||
        !H->u || !H->next || !H->chg)
        return MCB_E_NOMEM;
    for (size_t b = 0; b < nb; b++) {
        const mcb_block *B = &P->blocks[b];
        b_row[b] = B->row, b_type[b] = B->type, b_nrows[b] = B->nrows;
        b_mu[b] = B->mu, b_k[b] = B->k, b_alpha[b] = B->alpha;
    }
    return MCB_OK;
}

/* pj's setup with matrix_free = 1, packed (mcb_gpu_kind.prepare); prm:
 * pj's parameters with omega resolved. */
static mcb_rc pg_prepare(const mcb_problem *P, const mcb_settings *s, const void *params,
                         void *prm, mcb_ccp_soa *H, mcb_err *err)
{
    mcb_pj_params p = *(const mcb_pj_params *)params;
    p.matrix_free = 1;
    void *cpu = NULL;
    mcb_rc rc = mcb_pj_setup(P, s, &p, &cpu, err);
    if (rc) return rc;
    *(mcb_pj_params *)prm = ((const mcb_pj_work *)cpu)->prm;
    rc = pack(P, cpu, H);
    mcb_pj_free(&cpu);
    return rc ? mcb_fail(err, MCB_E_NOMEM, "out of memory") : MCB_OK;
}

/* pj's own residual ||delta lambda|| / max(1, ||lambda||) and verdicts
 * (mcb_gpu_kind.judge). */
static int pg_judge(const void *prm, int it, const double out[3], mcb_iter_cb cb, void *ctx,
                    mcb_info *info)
{
    return mcb_delassus_judge(it, sqrt(out[0]), sqrt(out[1]),
                              ((const mcb_pj_params *)prm)->own_tol, cb, ctx, info);
}

static const mcb_gpu_kind pg_kind = {"pj-gpu", mcb_pj_gpu_accepts, sizeof(mcb_pj_params),
                                     pg_prepare, pg_judge};

static mcb_rc pg_setup_cuda(const mcb_problem *P, const mcb_settings *s, const void *params,
                            void **work, mcb_err *err)
{
    return mcb_gpu_setup(&pg_kind, &mcb_gpu_cuda_backend, P, s, params, work, err);
}

static mcb_rc pg_setup_host(const mcb_problem *P, const mcb_settings *s, const void *params,
                            void **work, mcb_err *err)
{
    return mcb_gpu_setup(&pg_kind, &mcb_gpu_host_backend, P, s, params, work, err);
}

#define PG_DEF(setup_fn, solver_name, what)                                                   \
    {                                                                                        \
        .name = solver_name, .accepts_problem = mcb_pj_gpu_accepts,                          \
        .description = "pj (matrix-free) on " what ": body-parallel velocity, block-parallel " \
                       "local steps, structure-of-arrays layout shared with ccp-jacobi-gpu", \
        .reference = "SubADMM paper Sec. IV-B2; Tasora-Negrut GPU CCP paper Alg. 3 layout", \
        .accepts = MCB_ACCEPTS_PRIMAL, .params_size = sizeof(mcb_pj_params),                 \
        .default_params = mcb_pj_defaults, .params = mcb_pj_desc,                            \
        .nparams = MCB_PJ_NPARAMS, .check_params = mcb_pj_check, .setup = setup_fn,          \
        .solve = mcb_gpu_solve, .iterate = mcb_gpu_iterate, .free = mcb_gpu_free,                           \
    }

const mcb_solver_def mcb_solver_pj_gpu = PG_DEF(pg_setup_cuda, "pj-gpu", "a CUDA GPU");
const mcb_solver_def mcb_solver_pj_gpu_host = PG_DEF(pg_setup_host, "pj-gpu-host",
                                                     "the host (the GPU code's test double)");

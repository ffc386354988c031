/* ccp_jacobi_gpu.c: ccp-jacobi on a GPU, Tasora and Negrut's Alg. 3 (GPU
 * CCP paper: contact-parallel projections, constraint-parallel bilateral
 * rows, body-parallel velocity update, the reduction of the impulses by
 * body without atomics); docs/gpu.md.
 *
 * It computes what solvers/ccp_jacobi.c computes, with its parameters,
 * defaults, own residual and statuses: the setup is ccp-jacobi's (A_s
 * factored, eta of Alg. 1 steps 1-2, lambda^0 and v^0 of eq. (23)), whose
 * products are packed into the structure-of-arrays layout of
 * ccp_kernels.h and handed to a backend (gpu_backend.h): the CUDA one
 * (ccp_cuda.cu) for `ccp-jacobi-gpu`, the host one below for the tests
 * (the same per-element functions in the same order: the same iterates,
 * bit for bit, as ccp-jacobi; the own residual's sums in another order).
 * Device allocation and the host-to-device transfer are setup; the iterate
 * comes back only when the harness asks for it (iterate(): measurement
 * time). Taken: primal problems whose subsystems are dense-factored by
 * ccp-jacobi (at most MCB_DELASSUS_DENSE_MAX DOFs: rigid bodies, small
 * robots) and whose rows of J have at most MCB_GPU_ROW_MAX entries; the
 * others are refused with the reason (skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_delassus.h"
#include "solvers/ccp_jacobi.h"
#include "solvers/gpu/gpu_backend.h"
#include "solvers/gpu/gpu_layout.h"
#include "solvers/gpu/gpu_solvers.h"
#include "solvers/gpu/pj_kernels.h"
#include "solvers/solver.h"

int mcb_gpu_accepts(const mcb_problem *P, char *reason, size_t len)
{
    int ns = P->nsub > 0 ? P->nsub : 1;
    for (int s = 0; s < ns; s++) {
        int nv = P->nsub > 0 ? P->sub_start[s + 1] - P->sub_start[s] : P->n;
        if (nv > MCB_DELASSUS_DENSE_MAX) {
            snprintf(reason, len,
                     "subsystem %d has %d DOFs, above the GPU path's dense limit %d "
                     "(ccp-jacobi factors it with CHOLMOD on the CPU)",
                     s, nv, MCB_DELASSUS_DENSE_MAX);
            return 0;
        }
    }
    int *cnt = calloc((size_t)P->m + 1, sizeof(int));
    if (!cnt) {
        snprintf(reason, len, "out of memory");
        return 0;
    }
    for (int k = 0; k < P->J->p[P->J->n]; k++) cnt[P->J->i[k]]++;
    int r = 0;
    while (r < P->m && cnt[r] <= MCB_GPU_ROW_MAX) r++;
    if (r < P->m) snprintf(reason, len, "row %d of J has %d entries, above the GPU path's %d",
                           r, cnt[r], MCB_GPU_ROW_MAX);
    free(cnt);
    return r == P->m;
}

/* The SoA layout of ccp_kernels.h from ccp-jacobi's setup (cw) and P: the
 * common part (gpu_layout.h), then eta, the soft rows and the blocks. */
static mcb_rc pack(const mcb_problem *P, const mcb_ccpj_work *cw, mcb_ccp_soa *H)
{
    int m = P->m;
    H->kind = MCB_GPU_CCP;
    H->omega = cw->prm.omega, H->relax = cw->prm.relax;
    mcb_rc rc = mcb_gpu_pack_common(P, cw->JT, cw->ns, cw->s0, (const double *const *)cw->L,
                                    cw->lambda, cw->v, H);
    if (rc) return rc;
    for (int b = 0; b < P->nblocks; b++) {
        if (mcb_is_contact(P->blocks[b].type)) H->nc++;
        else H->no += P->blocks[b].nrows;
    }
    int *c_row = mcb_calloc((size_t)H->nc + 1, sizeof(int)), *o_row = mcb_calloc((size_t)H->no + 1, sizeof(int));
    int *o_type = mcb_calloc((size_t)H->no + 1, sizeof(int));
    double *c_mu = mcb_calloc((size_t)H->nc + 1, sizeof(double));
    H->c_row = c_row, H->c_mu = c_mu, H->o_row = o_row, H->o_type = o_type;
    H->eta = mcb_gpu_dup(cw->eta, (size_t)m);
    H->c = mcb_gpu_dup(cw->c, (size_t)m), H->d = mcb_gpu_dup(cw->d, (size_t)m);
    H->fixed = mcb_gpu_dup(cw->fixed, (size_t)m);
    if (!c_row || !o_row || !o_type || !c_mu || !H->eta || !H->c || !H->d || !H->fixed)
        return MCB_E_NOMEM;
    int ic = 0, io = 0;
    for (int b = 0; b < P->nblocks; b++) {
        const mcb_block *B = &P->blocks[b];
        if (mcb_is_contact(B->type)) {
            c_row[ic] = B->row;
            c_mu[ic++] = B->mu;
            continue;
        }
        for (int r = B->row; r < B->row + B->nrows; r++) o_row[io] = r, o_type[io++] = B->type;
    }
    return MCB_OK;
}

/* ccp-jacobi's setup, packed (mcb_gpu_kind.prepare). */
static mcb_rc cg_prepare(const mcb_problem *P, const mcb_settings *s, const void *params,
                         void *prm, mcb_ccp_soa *H, mcb_err *err)
{
    void *cpu = NULL;
    mcb_rc rc = mcb_ccpj_setup(P, s, params, &cpu, err);
    if (rc) return rc;
    memcpy(prm, params, sizeof(mcb_ccpj_params));
    rc = pack(P, cpu, H);
    mcb_ccpj_free(&cpu);
    return rc ? mcb_fail(err, MCB_E_NOMEM, "out of memory") : MCB_OK;
}

/* ccp-jacobi's own residual ||v^{r+1} - v^r|| / max(1, ||v^{r+1}||) and
 * verdicts (mcb_gpu_kind.judge). */
static int cg_judge(const void *prm, int it, const double out[3], mcb_iter_cb cb, void *ctx,
                    mcb_info *info)
{
    double vn = sqrt(out[1]);
    return mcb_ccpj_judge(prm, it, sqrt(out[0]) / (vn > 1.0 ? vn : 1.0), out[2] == 0.0, cb, ctx,
                          info);
}

static const mcb_gpu_kind cg_kind = {"ccp-jacobi-gpu", mcb_gpu_accepts, sizeof(mcb_ccpj_params),
                                     cg_prepare, cg_judge};

/* ---- the host backend: Alg. 3's passes as loops, in the kernels' order */
typedef struct {
    mcb_ccp_soa S;
    double sh[3 * CCPK_CHUNK];
} host_dev;

static mcb_rc host_open(const mcb_ccp_soa *H, void **dev, mcb_err *err)
{
    host_dev *d = calloc(1, sizeof *d);
    if (!d) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    d->S = *H; /* the solver's host arrays, alive until close */
    *dev = d;
    return MCB_OK;
}

static int host_sweep(void *dev, double out[3], char *why, size_t len)
{
    (void)why, (void)len;
    host_dev *d = dev;
    mcb_ccp_soa *S = &d->S;
    if (S->kind == MCB_GPU_PJ) { /* pj_kernels.h's passes */
        for (int s = 0; s < S->ns; s++) ccpk_body(S, s);
        for (int i = 0; i < S->nb; i++) pjk_block(S, i);
        double *t = S->lambda;
        S->lambda = S->next;
        S->next = t;
    } else {
        for (int i = 0; i < S->nc; i++) ccpk_contact(S, i);
        for (int i = 0; i < S->no; i++) ccpk_row(S, i);
        for (int s = 0; s < S->ns; s++) ccpk_body(S, s);
    }
    for (int ch = 0; ch < S->nchunks; ch++) {
        for (int t = 0; t < CCPK_CHUNK; t++) ccpk_terms(S, ch * CCPK_CHUNK + t, d->sh + 3 * t);
        for (int stride = CCPK_CHUNK / 2; stride > 0; stride /= 2)
            for (int t = 0; t < stride; t++) ccpk_tree_step(d->sh, t, stride);
        for (int q = 0; q < 3; q++) S->part[3 * ch + q] = d->sh[q];
    }
    ccpk_finish(S, out);
    return 0;
}

/* pj's v is A^-1 (b + J^T lambda) of the current lambda: one body pass
 * first (ccp's v is current already). */
static void host_fetch(void *dev, double *v, double *lambda)
{
    const mcb_ccp_soa *S = &((host_dev *)dev)->S;
    if (v && S->kind == MCB_GPU_PJ)
        for (int s = 0; s < S->ns; s++) ccpk_body(S, s);
    memcpy(lambda, S->lambda, (size_t)S->m * sizeof(double));
    if (v) memcpy(v, S->v, (size_t)S->n * sizeof(double));
}

static void host_close(void **dev)
{
    if (!dev) return;
    free(*dev);
    *dev = NULL;
}

const mcb_gpu_backend mcb_gpu_host_backend = {"host", NULL, host_open, host_sweep, host_fetch,
                                              host_close};

static mcb_rc cg_setup_cuda(const mcb_problem *P, const mcb_settings *s, const void *params,
                            void **work, mcb_err *err)
{
    return mcb_gpu_setup(&cg_kind, &mcb_gpu_cuda_backend, P, s, params, work, err);
}

static mcb_rc cg_setup_host(const mcb_problem *P, const mcb_settings *s, const void *params,
                            void **work, mcb_err *err)
{
    return mcb_gpu_setup(&cg_kind, &mcb_gpu_host_backend, P, s, params, work, err);
}

/* The bytes a sweep must move once: see gpu_solvers.h. */
static double sweep_bytes(const mcb_ccp_soa *H)
{
    double m = H->m, n = H->n, nnz = H->Jp[H->n], nL = 0, I = sizeof(int), D = sizeof(double);
    for (int s = 0; s < H->ns; s++) nL += (double)(H->s0[s + 1] - H->s0[s]) * (H->s0[s + 1] - H->s0[s]);
    double rows = nnz * (I + D) + m * (I + 3 * D) + 2 * m * D /* lambda r/w */ + n * D /* v */ +
                  H->nc * (I + D) + H->no * (2 * I + 3 * D);
    double bodies = (n + 1) * I + nnz * (I + D) + n * D /* b */ + m * D /* lambda */ +
                    2 * n * D /* v r/w */ + n * D /* vprev */ + nL * D + H->ns * (I + sizeof(size_t));
    return rows + bodies;
}

mcb_rc mcb_gpu_probe(const mcb_problem *P, int sweeps, mcb_gpu_probe_out *out, mcb_err *err)
{
    mcb_settings s;
    mcb_settings_default(&s);
    mcb_ccpj_params prm;
    mcb_ccpj_defaults(&prm);
    void *work = NULL;
    mcb_rc rc = mcb_gpu_setup(&cg_kind, &mcb_gpu_cuda_backend, P, &s, &prm, &work, err);
    if (rc) return rc;
    mcb_gpu_work *w = work;
    char why[MCB_ERR_LEN / 2];
    out->bytes = sweep_bytes(&w->H);
    if (mcb_gpu_cuda_time(w->dev, sweeps > 0 ? sweeps : 1, &out->sweep_s, &out->copy_Bps, why,
                          sizeof why))
        rc = mcb_fail(err, MCB_E_INPUT, "ccp-jacobi-gpu probe: %s", why);
    mcb_gpu_free(&work);
    return rc;
}

#define CG_DEF(setup_fn, solver_name, what)                                                   \
    {                                                                                        \
        .name = solver_name,                                                                 \
        .accepts_problem = mcb_gpu_accepts,                                                  \
        .description = "ccp-jacobi on " what ": Tasora-Negrut Alg. 3 (contact-, row- and "   \
                       "body-parallel passes, reduction by body without atomics), "          \
                       "structure-of-arrays layout",                                         \
        .reference = "Tasora and Negrut, GPU CCP paper eq. (21)-(23), Alg. 3",             \
        .accepts = MCB_ACCEPTS_PRIMAL, .params_size = sizeof(mcb_ccpj_params),               \
        .default_params = mcb_ccpj_defaults, .params = mcb_ccpj_desc,                        \
        .nparams = MCB_CCPJ_NPARAMS, .check_params = mcb_ccpj_check, .setup = setup_fn,      \
        .solve = mcb_gpu_solve, .iterate = mcb_gpu_iterate, .free = mcb_gpu_free,                           \
    }

const mcb_solver_def mcb_solver_ccp_jacobi_gpu = CG_DEF(cg_setup_cuda, "ccp-jacobi-gpu",
                                                        "a CUDA GPU");
const mcb_solver_def mcb_solver_ccp_jacobi_gpu_host = CG_DEF(cg_setup_host,
                                                             "ccp-jacobi-gpu-host",
                                                             "the host (the GPU code's test double)");

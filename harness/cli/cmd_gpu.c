/* cmd_gpu.c: mcbench gpu: the CUDA device this binary sees, and the
 * memory-traffic probe of ccp-jacobi-gpu (docs/gpu.md); scripts/gpu-check.sh
 * calls both. */
#include <stdio.h>
#include <string.h>

#include "lib/mcb_problem.h"
#include "lib/mcb_sparse.h"

#include "harness/cli/cli.h"
#ifdef MCB_HAVE_CUDA
#include "solvers/gpu/gpu_backend.h"
#include "solvers/gpu/gpu_solvers.h"
#endif

typedef struct {
    const char *probe;
    int sweeps, replicate;
} gpu_args;

static const mcb_cli_opt gpu_opts[] = {
    {"--probe", 0, MCB_CLI_STRING, offsetof(gpu_args, probe), "FILE.h5",
     .help = "time ccp-jacobi-gpu's sweep on the problem of FILE with the most contacts "
             "against the device's copy bandwidth"},
    {"--sweeps", 0, MCB_CLI_INT, offsetof(gpu_args, sweeps), "N", 1, 1e6,
     .help = "sweeps timed by --probe"},
    {"--replicate", 0, MCB_CLI_INT, offsetof(gpu_args, replicate), "K", 1, 1e5,
     .help = "probe K independent copies of the problem side by side (block diagonal): a "
             "problem of K times the contacts, as large as the device takes, from a file "
             "small enough to generate"},
    {0},
};

static const mcb_cli_cmd gpu_cmd = {
    "gpu",
    "usage: mcbench gpu [--probe FILE.h5 [--sweeps N] [--replicate K]]\n"
    "Prints the CUDA device this binary sees ('device: NAME, memory, compute capability,\n"
    "driver, runtime', or 'device: none (the CUDA error)'; exit 0 either way, 1 when built\n"
    "without CUDA). With --probe: one sweep of ccp-jacobi-gpu (the contact, row and body\n"
    "passes) timed with CUDA events, its compulsory memory traffic, the achieved bandwidth\n"
    "and the device-to-device copy bandwidth measured in the same run (docs/gpu.md).\n",
    NULL, gpu_opts, 0};

#ifdef MCB_HAVE_CUDA
/* diag(M, ..., M), K times. */
static mcb_csc *blkdiag(const mcb_csc *M, int K)
{
    int nnz = M->p[M->n];
    if ((double)nnz * K > 2e9 || (double)M->n * K > 2e9 || (double)M->m * K > 2e9) return NULL;
    mcb_csc *R = mcb_csc_alloc(M->m * K, M->n * K, nnz * K);
    for (int k = 0; R && k < K; k++)
        for (int j = 0; j < M->n; j++) {
            int c = k * M->n + j, at = R->p[c];
            for (int q = M->p[j]; q < M->p[j + 1]; q++, at++) {
                R->i[at] = M->i[q] + k * M->m;
                R->x[at] = M->x[q];
            }
            R->p[c + 1] = at;
        }
    return R;
}

/* K copies of the primal problem P side by side (NULL on failure). */
static mcb_problem *replicate(const mcb_problem *P, int K)
{
    mcb_problem *R = mcb_problem_new();
    if (!R || P->form != MCB_PRIMAL || P->nsub < 1) {
        mcb_problem_free(&R);
        return NULL;
    }
    int n = P->n, m = P->m, nb = P->nblocks, ns = P->nsub;
    R->form = MCB_PRIMAL;
    R->n = n * K, R->m = m * K, R->nblocks = nb * K, R->nsub = ns * K;
    R->A = blkdiag(P->A, K), R->J = blkdiag(P->J, K);
    R->b = mcb_malloc((size_t)n * K + 1, sizeof(double));
    R->e = mcb_malloc((size_t)m * K + 1, sizeof(double));
    R->r = P->r ? mcb_malloc((size_t)m * K + 1, sizeof(double)) : NULL;
    R->blocks = mcb_malloc((size_t)nb * K + 1, sizeof(mcb_block));
    R->sub_start = mcb_malloc((size_t)ns * K + 1, sizeof(int));
    R->name = mcb_strdup(P->name ? P->name : "?");
    if (!R->A || !R->J || !R->b || !R->e || (P->r && !R->r) || !R->blocks || !R->sub_start ||
        !R->name) {
        mcb_problem_free(&R);
        return NULL;
    }
    for (int k = 0; k < K; k++) {
        memcpy(R->b + (size_t)k * n, P->b, (size_t)n * sizeof(double));
        memcpy(R->e + (size_t)k * m, P->e, (size_t)m * sizeof(double));
        if (P->r) memcpy(R->r + (size_t)k * m, P->r, (size_t)m * sizeof(double));
        for (int q = 0; q < nb; q++) {
            R->blocks[k * nb + q] = P->blocks[q];
            R->blocks[k * nb + q].row += k * m;
        }
        for (int q = 0; q < ns; q++) R->sub_start[k * ns + q] = P->sub_start[q] + k * n;
    }
    R->sub_start[ns * K] = n * K;
    return R;
}
#endif

int cmd_gpu(int argc, char **argv)
{
    gpu_args a = {NULL, 100, 1};
    mcb_cli_args p;
    int status = mcb_cli_parse(&gpu_cmd, argc, argv, &a, &p);
    if (status != MCB_CLI_GO_ON) return status;
    if (p.npos) {
        status = mcb_cli_usage_error("gpu", "unexpected argument '%s'", p.pos[0]);
        mcb_cli_free(&gpu_cmd, &a, &p);
        return status;
    }
#ifdef MCB_HAVE_CUDA
    char dev[512];
    int have = mcb_gpu_describe(dev, sizeof dev);
    printf("device: %s\n", dev);
    status = 0;
    if (a.probe && !have) {
        fprintf(stderr, "mcbench: error: gpu --probe needs a CUDA device\n");
        status = 1;
    } else if (a.probe) {
        mcb_problem_set *S = NULL;
        mcb_err err;
        mcb_rc rc = cli_read_source(a.probe, &S, NULL, &err);
        int best = 0;
        for (int k = 1; !rc && k < S->count; k++)
            if (mcb_problem_contacts(S->items[k]) > mcb_problem_contacts(S->items[best])) best = k;
        mcb_gpu_probe_out o = {0, 0, 0};
        mcb_problem *big = NULL;
        if (!rc && S->count == 0) rc = mcb_fail(&err, MCB_E_INPUT, "%s: no problem", a.probe);
        if (!rc && a.replicate > 1 && !(big = replicate(S->items[best], a.replicate)))
            rc = mcb_fail(&err, MCB_E_INPUT, "%s: cannot replicate %s %d times (a primal "
                          "problem with subsystems, within memory and 2^31 entries)",
                          a.probe, S->items[best]->name, a.replicate);
        const mcb_problem *P = big ? big : rc ? NULL : S->items[best];
        if (!rc) rc = mcb_gpu_probe(P, a.sweeps, &o, &err);
        if (rc) status = cli_fail(rc, &err);
        else {
            printf("problem: %s (%d DOF, %d rows, %d contacts)\n", P->name ? P->name : "?", P->n,
                   P->m, mcb_problem_contacts(P));
            printf("sweep_ms %.6g bytes %.6g achieved_GBps %.6g copy_GBps %.6g "
                   "bound_ratio %.4g\n",
                   o.sweep_s * 1e3, o.bytes, o.bytes / o.sweep_s * 1e-9, o.copy_Bps * 1e-9,
                   o.sweep_s / (o.bytes / o.copy_Bps));
        }
        mcb_problem_free(&big);
        mcb_problem_set_free(&S);
    }
#else
    printf("device: none (mcbench was built without CUDA: MCB_WITH_CUDA, docs/gpu.md)\n");
    status = 1;
#endif
    mcb_cli_free(&gpu_cmd, &a, &p);
    return status;
}

/* cmd_gpu.c: mcbench gpu: the CUDA device this binary sees, and the
 * memory-traffic probe of ccp-jacobi-gpu (docs/gpu.md); scripts/gpu-check.sh
 * calls both. */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#ifdef MCB_HAVE_CUDA
#include "solvers/gpu/gpu_backend.h"
#include "solvers/gpu/gpu_solvers.h"
#endif

typedef struct {
    const char *probe;
    int sweeps;
} gpu_args;

static const mcb_cli_opt gpu_opts[] = {
    {"--probe", 0, MCB_CLI_STRING, offsetof(gpu_args, probe), "FILE.h5",
     .help = "time ccp-jacobi-gpu's sweep on the problem of FILE with the most contacts "
             "against the device's copy bandwidth"},
    {"--sweeps", 0, MCB_CLI_INT, offsetof(gpu_args, sweeps), "N", 1, 1e6,
     .help = "sweeps timed by --probe"},
    {0},
};

static const mcb_cli_cmd gpu_cmd = {
    "gpu",
    "usage: mcbench gpu [--probe FILE.h5 [--sweeps N]]\n"
    "Prints the CUDA device this binary sees ('device: NAME, memory, compute capability,\n"
    "driver, runtime', or 'device: none (the CUDA error)'; exit 0 either way, 1 when built\n"
    "without CUDA). With --probe: one sweep of ccp-jacobi-gpu (the contact, row and body\n"
    "passes) timed with CUDA events, its compulsory memory traffic, the achieved bandwidth\n"
    "and the device-to-device copy bandwidth measured in the same run (docs/gpu.md).\n",
    NULL, gpu_opts, 0};

int cmd_gpu(int argc, char **argv)
{
    gpu_args a = {NULL, 100};
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
        if (!rc) rc = S->count > 0 ? mcb_gpu_probe(S->items[best], a.sweeps, &o, &err)
                                   : mcb_fail(&err, MCB_E_INPUT, "%s: no problem", a.probe);
        if (rc) status = cli_fail(rc, &err);
        else {
            const mcb_problem *P = S->items[best];
            printf("problem: %s (%d DOF, %d rows, %d contacts)\n", P->name ? P->name : "?", P->n,
                   P->m, mcb_problem_contacts(P));
            printf("sweep_ms %.6g bytes %.6g achieved_GBps %.6g copy_GBps %.6g "
                   "bound_ratio %.4g\n",
                   o.sweep_s * 1e3, o.bytes, o.bytes / o.sweep_s * 1e-9, o.copy_Bps * 1e-9,
                   o.sweep_s / (o.bytes / o.copy_Bps));
        }
        mcb_problem_set_free(&S);
    }
#else
    printf("device: none (mcbench was built without CUDA: MCB_WITH_CUDA, docs/gpu.md)\n");
    status = 1;
#endif
    mcb_cli_free(&gpu_cmd, &a, &p);
    return status;
}

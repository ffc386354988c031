/* run_batch.h: mcbench run --batch N (cmd_run_batch.c; docs/batch.md). */
#ifndef MCB_CLI_RUN_BATCH_H
#define MCB_CLI_RUN_BATCH_H

#include "harness/campaign.h"

/* Everything --batch adds to a campaign: the problem set of N problems
 * cycled from the inputs, and each selected solver twice, one by one and
 * batched (named SOLVER-batch), with the same parameters; an external
 * solver (black_box: a peer's library) one by one only. */
typedef struct {
    mcb_input in;            /* the set of N problems: copies sharing the inputs' data */
    char set_name[256];
    mcb_solver_choice *choice; /* n: the ns given, then their batches */
    int n;                   /* ns + the solvers batched (all but the external ones) */
    mcb_solver_def *defs;    /* ns: the batches' definitions, renamed */
    char (*names)[128];
    mcb_batch_def *bdefs;    /* ns */
    const mcb_batch_def **batch; /* n: NULL for the first ns */
} mcb_cli_batch;

/* The options --batch cannot go with (usage errors naming them). */
int mcb_cli_batch_check(const mcb_campaign *C, const mcb_campaign_opts *o, int resume,
                        int nfilters);

/* Builds B from the inputs and the ns choices (whose params it shares). */
int mcb_cli_batch_make(int n, const mcb_input *in, int nfiles, const mcb_solver_choice *choice,
                       int ns, mcb_cli_batch *B);

void mcb_cli_batch_free(mcb_cli_batch *B);

#endif

/* cmd_run_batch.c: mcbench run --batch N (docs/batch.md).
 *
 * The inputs' problems are cycled to N (the second copy of a problem is
 * named NAME#2, and so on) into one problem set, SET-xN after the first
 * input. Every selected solver runs twice on it in the same campaign: one
 * problem at a time as in any campaign, and as SOLVER-batch, all N problems
 * in one call (harness/batch.h), every problem judged by the harness and
 * recorded as a run. The campaign ends with the throughput table: problems
 * solved to the tolerance per second of solve time, the batch's ratio to
 * the one-by-one runs. */
#include "harness/cli/run_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/options.h"
#include "problems/formulation/formulation.h"

int mcb_cli_batch_check(const mcb_campaign *C, const mcb_campaign_opts *o, int resume,
                        int nfilters)
{
    const char *why = resume                                   ? "--resume"
                      : C->nshards > 0                         ? "--shard"
                      : C->mpi                                 ? "--mpi"
                      : o->settings.warm_start == MCB_WARM_OWN ? "--warm-start own"
                      : o->formulation != MCB_FORM_NCP         ? "--formulation other than ncp"
                      : nfilters                               ? "--problems or --exclude"
                                                               : NULL;
    if (why)
        return mcb_cli_usage_error("run", "--batch cannot go with %s (a batch is one call on "
                                          "the stored problems of its inputs, in one process)",
                                   why);
    return 0;
}

/* N problems cycled from the inputs into B->in: shallow copies (the
 * inputs' data shared, a name of their own: a recorded MuJoCo step carries
 * megabytes of engine state, and 4096 deep copies did not fit in memory). */
static int cycle_problems(int n, const mcb_input *in, int nfiles, mcb_cli_batch *B)
{
    int total = 0;
    for (int f = 0; f < nfiles; f++) total += in[f].problems->count;
    if (!total) {
        fprintf(stderr, "mcbench: error: --batch %d: the inputs hold no problem\n", n);
        return MCB_CLI_EXIT_INPUT;
    }
    snprintf(B->set_name, sizeof B->set_name, "%s-x%d", in[0].set_name, n);
    B->in.set_name = B->set_name;
    B->in.problems = calloc(1, sizeof *B->in.problems);
    if (!B->in.problems || !(B->in.problems->items = calloc((size_t)n, sizeof(mcb_problem *))))
        return 1;
    for (int j = 0; j < n; j++) {
        int r = j % total, f = 0;
        while (r >= in[f].problems->count) r -= in[f++].problems->count;
        const mcb_problem *Q = in[f].problems->items[r];
        mcb_problem *P = malloc(sizeof *P);
        char name[512];
        int copy = j / total + 1;
        if (copy > 1) snprintf(name, sizeof name, "%s#%d", Q->name, copy);
        else snprintf(name, sizeof name, "%s", Q->name);
        if (P) *P = *Q;
        if (!P || !(P->name = strdup(name))) {
            free(P);
            fprintf(stderr, "mcbench: error: --batch %d: out of memory at problem %d\n", n, j);
            return 1;
        }
        B->in.problems->items[B->in.problems->count++] = P;
    }
    return 0;
}

int mcb_cli_batch_make(int n, const mcb_input *in, int nfiles, const mcb_solver_choice *choice,
                       int ns, mcb_cli_batch *B)
{
    memset(B, 0, sizeof *B);
    B->choice = calloc(2 * (size_t)ns + 1, sizeof *B->choice);
    B->defs = calloc((size_t)ns + 1, sizeof *B->defs);
    B->names = calloc((size_t)ns + 1, sizeof *B->names);
    B->bdefs = calloc((size_t)ns + 1, sizeof *B->bdefs);
    B->batch = calloc(2 * (size_t)ns + 1, sizeof *B->batch);
    if (!B->choice || !B->defs || !B->names || !B->bdefs || !B->batch) return 1;
    B->n = ns;
    for (int s = 0; s < ns; s++) B->choice[s] = choice[s];
    for (int s = 0; s < ns; s++) {
        if (choice[s].def->black_box) { /* a peer's library: no concurrent calls assumed */
            fprintf(stderr, "mcbench: --batch: %s is run one by one only (an external "
                            "solver: calling it from several threads at once is not ours "
                            "to assume)\n", choice[s].def->name);
            continue;
        }
        B->batch[B->n] = mcb_batch_find(choice[s].def->name, &B->bdefs[s]);
        B->defs[s] = *choice[s].def;
        snprintf(B->names[s], sizeof B->names[s], "%s-batch", choice[s].def->name);
        B->defs[s].name = B->names[s];
        B->choice[B->n] = choice[s];
        B->choice[B->n++].def = &B->defs[s];
    }
    return cycle_problems(n, in, nfiles, B);
}

void mcb_cli_batch_free(mcb_cli_batch *B)
{
    for (int j = 0; B->in.problems && j < B->in.problems->count; j++) {
        free(B->in.problems->items[j]->name); /* the rest is the inputs' */
        free(B->in.problems->items[j]);
    }
    if (B->in.problems) free(B->in.problems->items);
    free(B->in.problems);
    free(B->choice);
    free(B->defs);
    free(B->names);
    free(B->bdefs);
    free(B->batch);
}

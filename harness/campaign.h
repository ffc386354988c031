/* campaign.h: every problem of every input set x every selected solver x
 * every repetition, written to the results files as it goes. */
#ifndef MCB_CAMPAIGN_H
#define MCB_CAMPAIGN_H

#include "results.h"

typedef struct {
    const char *set_name;    /* problem set name (the file's base name) */
    mcb_problem_set *problems;
} mcb_input;

typedef struct {
    const mcb_solver_def *def;
    void *params;            /* owned by the caller */
} mcb_solver_choice;

/* Progress goes to stderr: a bar when `tty`, plain lines otherwise. Solver
 * failures are statuses, never errors; an error here is the harness's own
 * (cannot write results, out of memory), and then nothing is left behind. */
mcb_rc mcb_campaign_run(const mcb_input *in, int nin, const mcb_solver_choice *solvers,
                        int nsolvers, const mcb_campaign_opts *o, const mcb_context *ctx,
                        const char *h5_path, const char *csv_path, int tty, mcb_err *err);

#endif

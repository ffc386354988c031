/* campaign.c: the campaign loop and its progress display. */
#include "campaign.h"

#include <stdio.h>
#include <stdlib.h>

static void progress(int tty, int done, int total, const mcb_run *r, double best_s)
{
    if (tty) {
        int width = 30, fill = total ? done * width / total : width;
        fprintf(stderr, "\r[%.*s%*s] %d/%d %-10s %-28.28s", fill,
                "##############################", width - fill, "", done, total, r->solver,
                r->problem);
        if (done == total) fputc('\n', stderr);
    } else {
        fprintf(stderr, "mcbench: %d/%d %s %s %s: %s, %d iterations, %.3g s, %s %.3g\n", done,
                total, r->problem_set, r->problem, r->solver, mcb_status_name(r->info.status),
                r->info.iterations, best_s, "natmap", r->final.val[MCB_M_NATMAP]);
    }
}

mcb_rc mcb_campaign_run(const mcb_input *in, int nin, const mcb_solver_choice *solvers,
                        int nsolvers, const mcb_campaign_opts *o, const mcb_context *ctx,
                        const char *h5_path, const char *csv_path, int tty, mcb_err *err)
{
    mcb_results *R = NULL;
    mcb_rc rc = mcb_results_open(h5_path, csv_path, ctx, &R, err);
    if (rc) return rc;
    int total = 0, done = 0;
    for (int f = 0; f < nin; f++) total += in[f].problems->count * nsolvers * o->repeat;
    for (int f = 0; f < nin && !rc; f++) {
        for (int p = 0; p < in[f].problems->count && !rc; p++) {
            const mcb_problem *P = in[f].problems->items[p];
            mcb_metrics_ws *ws = NULL;
            rc = mcb_metrics_ws_new(P, &ws, err);
            for (int s = 0; s < nsolvers && !rc; s++)
                for (int rep = 0; rep < o->repeat && !rc; rep++) {
                    mcb_run run = {0};
                    run.problem_set = in[f].set_name;
                    run.problem = P->name;
                    run.problem_index = p;
                    run.solver = solvers[s].def->name;
                    run.rep = rep;
                    rc = mcb_run_one(P, ws, solvers[s].def, solvers[s].params, o, &run, err);
                    if (!rc) rc = mcb_results_add(R, &run, err);
                    progress(tty, ++done, total, &run, run.info.setup_s + run.info.solve_s);
                    mcb_run_clear(&run);
                }
            mcb_metrics_ws_free(&ws);
        }
    }
    mcb_rc crc = mcb_results_close(&R, rc == MCB_OK, rc ? NULL : err);
    return rc ? rc : crc;
}

/* check_run.c: one harness run of a solver in a test (see check_run.h). */
#include "check_run.h"

#include <check.h>
#include <string.h>

void check_run(const mcb_problem *P, const char *solver, const void *prm, double tol, int iters,
               int threads, int law, mcb_run *run)
{
    const mcb_solver_def *def = mcb_solver_find(solver);
    ck_assert_msg(def != NULL, "solver %s is not registered", solver);
    check_run_def(P, def, prm, tol, iters, threads, law, run);
}

void check_run_def(const mcb_problem *P, const mcb_solver_def *def, const void *prm, double tol,
                   int iters, int threads, int law, mcb_run *run)
{
    const char *solver = def->name;
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = iters;
    o.settings.tol = tol;
    o.settings.threads = threads;
    o.save_solutions = 1;
    o.law = law;
    mcb_metrics_ws *ws = NULL;
    mcb_err err;
    ck_assert_msg(mcb_metrics_ws_new(P, &ws, &err) == MCB_OK, "%s", err.msg);
    memset(run, 0, sizeof *run);
    ck_assert_msg(mcb_run_one(P, ws, def, prm, &o, run, &err) == MCB_OK, "%s on %s: %s", solver,
                  P->name ? P->name : "?", err.msg);
    mcb_metrics_ws_free(&ws);
}

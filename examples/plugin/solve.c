/* solve.c: mcbench used as a library, against the installed public headers:
 * reads a problem file, runs one registered solver on every problem through
 * the solver interface (setup, solve with a callback, iterate, free), and
 * judges each iterate with the harness's metrics, stopping when the natural
 * map residual is below the tolerance.
 *
 *   usage: solve FILE.h5 [SOLVER [TOL]]     (default: pgs, 1e-8)
 * Prints one line per problem: name, status, iterations, natmap; exits 0 when
 * every problem was solved, 1 otherwise, 2 on bad input. Everything it
 * allocates is freed on every path. */
#include <stdio.h>
#include <stdlib.h>

#include <mcbench/lib/mcb_io.h>
#include <mcbench/metrics/metrics.h>
#include <mcbench/solvers/solver.h>

typedef struct {
    mcb_metrics_ws *ws;
    const mcb_solver_def *def;
    void *work;
    double *v, *lambda;
    double tol, natmap;
} judge;

/* The callback: the harness's judgement, not the solver's own residual. */
static mcb_cb_action judge_iterate(void *ctx, int iter, double own_residual)
{
    judge *j = ctx;
    (void)iter;
    (void)own_residual;
    j->def->iterate(j->work, j->v, j->lambda);
    j->natmap = mcb_metrics_one(j->ws, MCB_M_NATMAP, j->v, j->lambda);
    return j->natmap <= j->tol ? MCB_CB_CONVERGED : MCB_CB_CONTINUE;
}

/* One problem: returns the status (MCB_ST_*) or -1 with err set. */
static int solve_one(const mcb_problem *P, const mcb_solver_def *def, double tol, mcb_info *info,
                     double *natmap, mcb_err *err)
{
    mcb_settings s;
    mcb_settings_default(&s);
    s.max_iters = 10000;
    judge j = {NULL, def, NULL, calloc((size_t)P->n + 1, sizeof(double)),
               calloc((size_t)P->m + 1, sizeof(double)), tol, -1.0};
    void *params = calloc(1, def->params_size + sizeof(double));
    int status = -1;
    if (!j.v || !j.lambda || !params) mcb_fail(err, MCB_E_NOMEM, "out of memory");
    else if (!mcb_metrics_ws_new(P, &j.ws, err)) {
        def->default_params(params);
        if (!def->setup(P, &s, params, &j.work, err)) {
            status = def->solve(j.work, &s, judge_iterate, &j, info);
            *natmap = j.natmap;
            def->free(&j.work);
        }
    }
    mcb_metrics_ws_free(&j.ws);
    free(params);
    free(j.v);
    free(j.lambda);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: solve FILE.h5 [SOLVER [TOL]]\n");
        return 2;
    }
    if (mcb_abi_version() != MCB_ABI_VERSION) {
        fprintf(stderr, "solve: compiled for ABI %d, linked with libmcbench ABI %d\n",
                MCB_ABI_VERSION, mcb_abi_version());
        return 2;
    }
    const char *name = argc > 2 ? argv[2] : "pgs";
    double tol = argc > 3 ? atof(argv[3]) : 1e-8;
    const mcb_solver_def *def = mcb_solver_find(name);
    if (!def) {
        fprintf(stderr, "solve: no solver '%s'\n", name);
        return 2;
    }
    mcb_err err;
    mcb_problem_set *S = NULL;
    if (mcb_read_problems(argv[1], &S, &err)) {
        fprintf(stderr, "solve: %s\n", err.msg);
        return 2;
    }
    int unsolved = 0;
    for (int p = 0; p < S->count; p++) {
        mcb_info info = {0};
        double natmap = -1.0;
        int st = solve_one(S->items[p], def, tol, &info, &natmap, &err);
        if (st < 0) printf("%s: %s failed: %s\n", S->items[p]->name, name, err.msg);
        else
            printf("%s: %s %s, %d iterations, natmap %.3g\n", S->items[p]->name, name,
                   mcb_status_name(st), info.iterations, natmap);
        unsolved += st != MCB_ST_SOLVED;
    }
    mcb_problem_set_free(&S);
    return unsolved ? 1 : 0;
}

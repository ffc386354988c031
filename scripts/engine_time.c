/* engine_time.c: where a closed-loop step's time goes (docs/performance.md,
 * "Closed loop: where a step's time goes"). Built as build/engine-time (not
 * installed); scripts/engine-time.sh runs it on the papers' scenes.
 *
 *   engine-time [--iters K] SCENE [scene options]
 *
 * Runs the scene as `mcbench gen SCENE [options]` would, with its worlds in
 * a closed loop (world.h) whose solver is `pgs` from the registry with
 * max_iters K (default 30), tol 0, one thread, warm-started from the
 * previous step: the loop the papers' smallest budget drives. Per step it
 * prints the engine's time (mcb_step_info: detect, assemble, advance) and
 * the time of those K PGS iterations (setup + solve) on the step's problem,
 * and at the end, over the steps with contacts, the medians of each and of
 * the ratio engine / PGS, with its 90th percentile and max. A scene that
 * cannot run in a loop (stack, bolt-nut, dishes) is refused: their
 * closed-loop counterparts are bolt-nut-assembly and dish-piling.
 * Everything runs on one thread (OpenMP, BLAS).
 * Times are wall clock; compare them only within one run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "lib/mcb_chol.h"
#include "lib/mcb_timer.h"
#include "problems/scene/scenes.h"
#include "problems/scene/world.h"
#include "solvers/solver.h"

typedef struct {
    int iters;
    double pgs_s;  /* the last step's PGS time */
    int steps, cap;
    double *row;   /* per step: detect, assemble, advance, engine, pgs (s), contacts, n, m */
} probe;

enum { NCOL = 8 };

static mcb_cb_action keep_going(void *ctx, int iter, double own)
{
    (void)ctx, (void)iter, (void)own;
    return MCB_CB_CONTINUE;
}

/* K PGS iterations on P from its warm start; (v, lambda) receive the
 * iterate (may be NULL); returns the setup + solve time, NaN when pgs
 * refuses P (a step without constraints: then A v = b into v). */
static double time_pgs(const mcb_problem *P, int iters, double *v, double *lambda)
{
    const mcb_solver_def *def = mcb_solver_find("pgs");
    mcb_settings s;
    mcb_settings_default(&s);
    s.max_iters = iters;
    s.tol = 0.0;
    s.time_limit_s = 0.0;
    s.threads = 1;
    s.warm_start = 1;
    void *params = def ? calloc(def->params_size / sizeof(double) + 1, sizeof(double)) : NULL;
    void *work = NULL;
    mcb_err err;
    double t = NAN;
    if (params && P->m > 0) {
        def->default_params(params);
        double t0 = mcb_now_s();
        if (!def->setup(P, &s, params, &work, &err)) {
            mcb_info info;
            memset(&info, 0, sizeof info);
            def->solve(work, &s, keep_going, NULL, &info);
            t = mcb_now_s() - t0;
            if (v && lambda) def->iterate(work, v, lambda);
        }
        def->free(&work);
    }
    free(params);
    if (isnan(t) && v && P->A) { /* no contact: the dynamics alone */
        mcb_chol *F = NULL;
        if (!mcb_chol_factor(P->A, &F, &err)) mcb_chol_solve(F, P->b, v);
        mcb_chol_free(&F);
    }
    return t;
}

static mcb_rc loop_solve(void *ctx, const mcb_problem *P, double *v, double *lambda, mcb_err *err)
{
    (void)err;
    probe *p = ctx;
    p->pgs_s = time_pgs(P, p->iters, v, lambda);
    return MCB_OK;
}

static void add_row(probe *p, const mcb_step_info *info, double pgs_s, const mcb_problem *P)
{
    if (p->steps == p->cap) {
        int cap = p->cap ? 2 * p->cap : 256;
        double *r = realloc(p->row, (size_t)cap * NCOL * sizeof(double));
        if (!r) return; /* the summary then covers fewer steps */
        p->row = r, p->cap = cap;
    }
    double *r = p->row + (size_t)NCOL * p->steps++;
    r[0] = info->detect_s, r[1] = info->assemble_s, r[2] = info->advance_s;
    r[3] = info->engine_s, r[4] = pgs_s, r[5] = info->contacts;
    r[6] = P ? P->n : -1, r[7] = P ? P->m : -1;
    printf("%5d %6d %8.3f %8.3f %8.3f %9.3f %9.3f %8.2f\n", p->steps - 1, info->contacts,
           1e3 * r[0], 1e3 * r[1], 1e3 * r[2], 1e3 * r[3], 1e3 * r[4], r[3] / r[4]);
    fflush(stdout);
}

static mcb_rc loop_after(void *ctx, mcb_world *w, const mcb_step_info *info, mcb_err *err)
{
    (void)w, (void)err;
    probe *p = ctx;
    add_row(p, info, p->pgs_s, NULL);
    return MCB_OK;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n) /* sorts x */
{
    if (n < 1) return NAN;
    qsort(x, (size_t)n, sizeof *x, cmp_double);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Medians over the steps with contacts (a shared machine preempts single
 * steps by a time slice: the max shows that more than the engine). */
static void summary(const probe *p, const char *args)
{
    double *x = malloc((size_t)p->steps * sizeof(double) + 1), med[6];
    if (!x) return;
    int nr = 0;
    for (int c = 0; c < 6; c++) {
        nr = 0;
        for (int k = 0; k < p->steps; k++) {
            const double *r = p->row + (size_t)NCOL * k;
            if (r[4] > 0) x[nr++] = c < 5 ? r[c] : r[3] / r[4];
        }
        med[c] = median(x, nr);
    }
    /* x holds the sorted ratios */
    printf("# %s: %d steps, %d with contacts; median ms/step: detect %.3f assemble %.3f advance "
           "%.3f engine %.3f pgs%d %.3f; engine/pgs%d median %.3g p90 %.3g max %.3g\n",
           args, p->steps, nr, 1e3 * med[0], 1e3 * med[1], 1e3 * med[2], 1e3 * med[3], p->iters,
           1e3 * med[4], p->iters, med[5], nr ? x[(9 * nr) / 10 < nr ? (9 * nr) / 10 : nr - 1] : NAN,
           nr ? x[nr - 1] : NAN);
    free(x);
}

int main(int argc, char **argv)
{
    probe p = {30, NAN, 0, 0, NULL};
    int a = 1;
    if (a + 1 < argc && !strcmp(argv[a], "--iters")) {
        p.iters = atoi(argv[a + 1]);
        a += 2;
    }
    const mcb_scene_def *def = a < argc ? mcb_scene_find(argv[a]) : NULL;
    if (!def || p.iters < 1) {
        char names[512];
        fprintf(stderr, "usage: engine-time [--iters K >= 1] SCENE [scene options]; scenes: %s\n",
                mcb_scene_names(names, sizeof names));
        return 2;
    }
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err;
    mcb_err_clear(&err);
    if (mcb_scene_parse(def, argc - a - 1, argv + a + 1, vals, &err)) {
        fprintf(stderr, "engine-time: %s\n", err.msg);
        return 2;
    }
    char args[1024];
    mcb_scene_args(def, vals, args, sizeof args);
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    mcb_blas_set_threads(1);
    printf("# engine-time %s (pgs %d iterations, tol 0, 1 thread)\n", args, p.iters);
    printf("# step contacts detect_ms assemble_ms advance_ms engine_ms pgs%d_ms engine/pgs\n",
           p.iters);
    mcb_world_loop loop = {loop_solve, loop_after, &p, NULL};
    mcb_problem_set *S = NULL;
    mcb_rc rc = def->generate(vals, &loop, &S, &err);
    mcb_problem_set_free(&S);
    if (rc) {
        fprintf(stderr, "engine-time: %s (after %d steps)\n", err.msg, p.steps);
        free(p.row);
        return 1;
    }
    summary(&p, args);
    free(p.row);
    return 0;
}

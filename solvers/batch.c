/* batch.c: the registry of batched solvers and the CPU batch over any
 * registered solver (batch.h).
 *
 * The CPU batch: setup runs base->setup for every problem, in parallel over
 * problems; solve runs base->solve for every active problem, OpenMP over
 * problems with a static assignment (thread t takes a fixed contiguous
 * share), each single-threaded inside (each thread sets its own OpenMP
 * thread count to 1, so the solver's parallel regions run on one thread, on
 * a batch of one thread too, whose own region is inactive; BLAS on one). A problem's callback
 * forwards to the batch's cb on the runner's --check-every schedule
 * (iterations 1, 1 + e, ...) and otherwise reads its thread's clock for
 * the time limit. Each thread keeps one clock, paused during cb, across the
 * problems it solves: the batch's solve time is the longest of them. */
#include "solvers/batch.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_chol.h"
#include "lib/mcb_timer.h"

/* The native entries: a GPU build adds its own here (batch.h). */
static const mcb_batch_def *const native[] = {NULL};
enum { NNATIVE = 0 };

int mcb_batch_count(void) { return NNATIVE; }

const mcb_batch_def *mcb_batch_at(int k) { return k >= 0 && k < NNATIVE ? native[k] : NULL; }

mcb_rc mcb_batch_check_n(long n, mcb_err *err)
{
    if (n <= 0)
        return mcb_fail(err, MCB_E_INPUT, "batch size %ld: it must be at least 1", n);
    if (n > MCB_BATCH_MAX)
        return mcb_fail(err, MCB_E_INPUT, "batch size %ld: more than the %d problems a batch may hold",
                        n, MCB_BATCH_MAX);
    return MCB_OK;
}

typedef struct {
    const mcb_solver_def *base;
    int n;
    void **work;              /* n: base's work per problem (NULL: setup failed) */
    double *params;           /* base's parameters (a copy) */
} cpu_batch;

/* One problem's solve, as base's callback sees it. */
typedef struct {
    const mcb_batch_settings *bs;
    mcb_batch_cb cb;
    void *ctx;
    int k;
    mcb_timer *clock;         /* its thread's clock */
} cpu_problem;

static mcb_cb_action over_budget(const mcb_batch_settings *bs, const mcb_timer *clock)
{
    double limit = bs->s.time_limit_s;
    return limit > 0 && bs->setup_s + mcb_timer_elapsed_s(clock) >= limit ? MCB_CB_TIME_LIMIT
                                                                          : MCB_CB_CONTINUE;
}

static mcb_cb_action problem_cb(void *ctx, int iter, double own)
{
    cpu_problem *q = ctx;
    if ((iter - 1) % q->bs->check_every != 0) return over_budget(q->bs, q->clock);
    mcb_timer_pause(q->clock);
    mcb_cb_action a = q->cb(q->ctx, q->k, iter, own);
    mcb_timer_resume(q->clock);
    if (a == MCB_CB_CONTINUE) a = over_budget(q->bs, q->clock);
    return a;
}

static void cpu_free(void **work)
{
    cpu_batch *b = work ? *work : NULL;
    if (!b) return;
    for (int k = 0; k < b->n && b->work; k++) b->base->free(&b->work[k]);
    free(b->work);
    free(b->params);
    free(b);
    *work = NULL;
}

static mcb_rc cpu_setup(const mcb_batch_def *self, const mcb_problem *const *P, int n,
                        const mcb_settings *s, const void *params, void **work, mcb_info *info,
                        mcb_err *err)
{
    const mcb_solver_def *base = self->base;
    cpu_batch *b = calloc(1, sizeof *b);
    if (!b) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    b->base = base;
    b->n = n;
    b->work = calloc((size_t)n + 1, sizeof *b->work);
    b->params = calloc(base->params_size / sizeof(double) + 1, sizeof(double));
    if (!b->work || !b->params) {
        void *w = b;
        cpu_free(&w);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (params) memcpy(b->params, params, base->params_size);
    else base->default_params(b->params);
    mcb_settings one = *s;
    one.threads = 1;
    int threads = s->threads > 0 ? s->threads : 1;
    mcb_blas_set_threads(1);
#pragma omp parallel num_threads(threads)
    {
        omp_set_num_threads(1); /* base's own regions, on one thread (this task's ICV) */
#pragma omp for schedule(static)
        for (int k = 0; k < n; k++) {
            mcb_err serr;
            serr.msg[0] = '\0';
            if (base->setup(P[k], &one, b->params, &b->work[k], &serr)) {
                b->work[k] = NULL;
                info[k].status = MCB_ST_SETUP_FAILED;
                snprintf(info[k].reason, sizeof info[k].reason, "%s", serr.msg);
            }
        }
    }
    *work = b;
    return MCB_OK;
}

static mcb_rc cpu_solve(void *work, const mcb_batch_settings *bs, const unsigned char *active,
                        mcb_batch_cb cb, void *ctx, mcb_info *info, double *solve_s)
{
    cpu_batch *b = work;
    int threads = bs->s.threads > 0 ? bs->s.threads : 1;
    mcb_settings one = bs->s;
    one.threads = 1;
    double longest = 0.0;
    mcb_blas_set_threads(1);
#pragma omp parallel num_threads(threads) reduction(max : longest)
    {
        omp_set_num_threads(1); /* base's own regions, on one thread (this task's ICV) */
        mcb_timer clock;
        mcb_timer_start(&clock);
#pragma omp for schedule(static) nowait /* no wait for the others on the clock */
        for (int k = 0; k < b->n; k++) {
            if (!b->work[k] || (active && !active[k])) continue;
            mcb_info *in = &info[k];
            if (over_budget(bs, &clock) != MCB_CB_CONTINUE) {
                in->status = MCB_ST_TIME_LIMIT;
                snprintf(in->reason, sizeof in->reason,
                         "the batch's time limit was used up before this problem started");
                continue;
            }
            cpu_problem q = {bs, cb, ctx, k, &clock};
            double t0 = mcb_timer_elapsed_s(&clock);
            in->status = b->base->solve(b->work[k], &one, problem_cb, &q, in);
            in->solve_s = mcb_timer_elapsed_s(&clock) - t0;
        }
        mcb_timer_pause(&clock);
        longest = mcb_timer_elapsed_s(&clock);
    }
    *solve_s = longest;
    return MCB_OK;
}

static void cpu_iterate(void *work, int k, double *v, double *lambda)
{
    cpu_batch *b = work;
    b->base->iterate(b->work[k], v, lambda);
}

void mcb_batch_over(const mcb_solver_def *base, mcb_batch_def *out)
{
    *out = (mcb_batch_def){.name = base->name,
                           .description = "the CPU batch: OpenMP over problems",
                           .base = base,
                           .setup = cpu_setup,
                           .solve = cpu_solve,
                           .iterate = cpu_iterate,
                           .free = cpu_free};
}

const mcb_batch_def *mcb_batch_find(const char *name, mcb_batch_def *buf)
{
    for (int k = 0; k < NNATIVE; k++)
        if (!strcmp(native[k]->name, name)) return native[k];
    const mcb_solver_def *base = mcb_solver_find(name);
    if (!base) return NULL;
    mcb_batch_over(base, buf);
    return buf;
}

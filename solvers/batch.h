/* batch.h: batched solvers, many small problems solved in one call (issue 27).
 *
 * Reinforcement-learning simulators step thousands of copies of a robot at
 * once; a batched solver takes n problems, sets them all up in one call
 * (one upload: counted as setup time), solves them all in one call under
 * the campaign's shared budget (max_iters, tol, time_limit_s) and hands
 * back, per problem, a status, an iteration count, its own residual and
 * the iterate, which the harness judges with the same metrics as any run
 * (harness/batch.h). The interface sits beside mcb_solver_def (solver.h),
 * whose layout, and so the plugin ABI, it leaves unchanged.
 *
 * The contract an entry implements (a GPU one included):
 *   - setup(self, P, n, s, params, &work, info, err): every problem's
 *     setup (factorizations, uploads) in one call; params is the parameter
 *     struct of self->base (NULL: its defaults), shared by all n problems.
 *     A problem whose setup fails is not an error: info[k].status =
 *     MCB_ST_SETUP_FAILED with the reason, and the others go on; an error
 *     (MCB_E_NOMEM, ...) is returned only when the batch as a whole cannot
 *     go on, after freeing what it allocated. info[k] of the others is left
 *     as it was (zeroed by the caller).
 *   - solve(work, bs, active, cb, ctx, info, &solve_s): iterates every
 *     problem k with active[k] != 0 (active NULL: all those set up) from its
 *     starting point (P's v0, lambda0 when bs->s.warm_start, else zero) until
 *     it stops, exactly as self->base's solve() would (same iterates, bit for
 *     bit, for a CPU entry; within round-off for a device), and fills
 *     info[k].status (MCB_ST_*), iterations and own_residual. The budget:
 *       * max_iters per problem;
 *       * the harness's judgement: after iteration i of problem k with
 *         i = 1, 1 + e, 1 + 2e, ... (e = bs->check_every >= 1, the runner's
 *         schedule with --check-every e), cb(ctx, k, i, own) is called with
 *         iterate(work, k, ...) valid; its answer (mcb_cb_action) stops
 *         that problem (CONVERGED, TIME_LIMIT, DIVERGED: the status from
 *         mcb_status_from_cb) or lets it go on. cb is called for different k
 *         concurrently (a CPU entry calls it from the thread solving k); the
 *         caller makes it safe for distinct k, never for the same k twice;
 *       * the time limit: bs->s.time_limit_s > 0 bounds bs->setup_s plus the
 *         batch's solve clock (below); a problem still running when it is
 *         used up stops with MCB_ST_TIME_LIMIT, one not started gets that
 *         status with 0 iterations and a reason.
 *     *solve_s is the batch's solve time: the call's wall time minus the
 *     time its cb calls (and the copies of iterates they need) took on its
 *     critical path. A CPU entry: the longest of its threads' clocks, each
 *     paused during cb. A device entry: kernels and launches, the clock
 *     read after a device synchronisation, the copies back for cb
 *     excluded. info[k].solve_s: problem k's own share (its thread's clock
 *     while it ran; a device entry may report *solve_s for each). Returns
 *     MCB_OK or an error for the batch as a whole (then the statuses are
 *     not to be trusted). No allocation inside the iteration.
 *   - iterate(work, k, v, lambda): problem k's current (v, lambda) (v may be
 *     NULL; for a dual problem v is not touched), on the host.
 *   - free(&work): accepts NULL.
 *
 * A GPU entry (for example "ccp-jacobi-gpu", base mcb_solver_ccp_jacobi)
 * runs one problem per thread block: it launches check_every iterations
 * for all active problems, synchronises, copies the active iterates back,
 * calls cb for each, drops the problems cb stopped, and launches again. It
 * is registered in the table of solvers/batch.c (under its build option).
 *
 * This header is public (installed with solver.h). */
#ifndef MCB_BATCH_H
#define MCB_BATCH_H

#include "solvers/solver.h"

/* At most this many problems per batch (mcbench run --batch N). */
#define MCB_BATCH_MAX (1 << 20)

typedef struct {
    mcb_settings s;   /* the shared budget; s.threads: the CPU entry's threads */
    int check_every;  /* >= 1: the judgement schedule (above) */
    double setup_s;   /* the batch's setup time, counted against s.time_limit_s */
} mcb_batch_settings;

/* Problem k's judgement after its iteration `iter`. */
typedef mcb_cb_action (*mcb_batch_cb)(void *ctx, int k, int iter, double own_residual);

typedef struct mcb_batch_def mcb_batch_def;
struct mcb_batch_def {
    const char *name;                /* as mcbench run --solvers names it */
    const char *description;
    const mcb_solver_def *base;      /* its parameters, and the results it reproduces */
    mcb_rc (*setup)(const mcb_batch_def *self, const mcb_problem *const *P, int n,
                    const mcb_settings *s, const void *params, void **work, mcb_info *info,
                    mcb_err *err);
    mcb_rc (*solve)(void *work, const mcb_batch_settings *bs, const unsigned char *active,
                    mcb_batch_cb cb, void *ctx, mcb_info *info, double *solve_s);
    void (*iterate)(void *work, int k, double *v, double *lambda);
    void (*free)(void **work);
};

/* The native batched entries (a GPU build's); none in a CPU-only build. */
int mcb_batch_count(void);
const mcb_batch_def *mcb_batch_at(int k);

/* The batched solver named `name`: a native entry, else the CPU batch over
 * the registered solver of that name (written into *buf, which must
 * outlive its use). NULL when no solver has that name. */
const mcb_batch_def *mcb_batch_find(const char *name, mcb_batch_def *buf);

/* The CPU batch over `base` (into *out): the problems solved in one call
 * with OpenMP over problems (s.threads threads, one problem per thread at a
 * time, in a fixed static assignment), base run single-threaded inside, so
 * each problem's iterates equal base's one-by-one single-threaded run bit
 * for bit, whatever the thread count. */
void mcb_batch_over(const mcb_solver_def *base, mcb_batch_def *out);

/* Refuses n <= 0 and n > MCB_BATCH_MAX with the reason. */
mcb_rc mcb_batch_check_n(long n, mcb_err *err);

#endif

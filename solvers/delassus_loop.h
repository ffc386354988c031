/* delassus_closed_loop.h: what the solvers that iterate on the impulses share
 * (PGS and its variants psor, pgs-shuffle, nncg and pgs-mf; PJ):
 *   - the iteration driver: run one step, report to the harness, stop on its
 *     answer, the budget or the own tolerance;
 *   - the start: the Delassus operator and the (warm-started) impulses;
 *   - the Gauss-Seidel sweep over the constraint blocks, on any operator
 *     that yields u = W lambda + q block by block (the assembled W, or the
 *     matrix-free one below);
 *   - the matrix-free operator of game and robotics engines: W never
 *     assembled, v = A^-1 (b + J^T lambda) kept current instead, from
 *     A's subsystem blocks factorized once (dense Cholesky) and, per
 *     constraint row r, the vector A^-1 J_r^T on the subsystems row r
 *     touches; the contacts' exact 3x3 blocks of W computed from J's rows.
 * No allocation after setup/build; everything here fails by returning an
 * mcb_rc with the message in err, never by exiting. */
#ifndef MCB_DELASSUS_LOOP_H
#define MCB_DELASSUS_LOOP_H

#include <stddef.h>

#include "lib/mcb_delassus.h"
#include "solvers/solver.h"

/* step() performs one iteration and returns ||lambda^{l+1} - lambda^l||^2;
 * lambda() returns the current impulses. Own residual:
 * ||delta lambda|| / max(1, ||lambda||). Returns the status. */
int mcb_delassus_loop(void *work, double (*step)(void *work), const double *(*lambda)(void *work),
                      int m, double own_tol, const mcb_settings *s, mcb_iter_cb cb, void *ctx,
                      mcb_info *info);
/* The loop's verdict after iteration `it` with ||delta lambda|| = change
 * and ||lambda|| = lnorm (records both in info): the status that ends the
 * solve, or -1 to go on (shared with pj-gpu, whose sums come from the
 * device). */
int mcb_delassus_judge(int it, double change, double lnorm, double own_tol, mcb_iter_cb cb,
                       void *ctx, mcb_info *info);

/* The iterate: lambda copied, v = A^-1 (b + J^T lambda) for primal problems. */
void mcb_delassus_iterate(mcb_delassus *D, const double *lambda_now, double *v, double *lambda);

/* The start of a Delassus solver: *D built (mcb_delassus_build) and
 * *lambda (m, zero or the problem's lambda0 under s->warm_start). On
 * failure nothing is left allocated (*D and *lambda NULL). */
mcb_rc mcb_delassus_start(const mcb_problem *P, const mcb_settings *s, mcb_delassus **D,
                          double **lambda, mcb_err *err);

/* ---- the Gauss-Seidel sweep ---- */

/* An operator the sweep visits block by block. */
typedef struct {
    /* u[0..len) = (W lambda + q) on rows [r0, r0 + len), from the freshest state */
    void (*rows)(void *op, int r0, int len, const double *lambda, double *u);
    /* optional (NULL: nothing to do): rows [r0, r0 + len) changed by delta */
    void (*push)(void *op, int r0, int len, const double *delta);
    void *op;
    const double *d;  /* per-row step weights (mcb_delassus layout) */
    const double *Wb; /* the contacts' 3x3 blocks (mcb_delassus layout) */
} mcb_gs_op;

/* The operator of an assembled Delassus operator D. */
mcb_gs_op mcb_gs_delassus(mcb_delassus *D);

/* One projected Gauss-Seidel sweep: the blocks in the order order[0..nblocks)
 * (NULL: 0, 1, ...), each replaced by its local step (mcb_block_step())
 * relaxed by omega, u from the freshest impulses. Blocks longer than 3 rows
 * (bilateral, unilateral, soft) are swept row by row, the same update since
 * their projections are row-wise. Returns ||delta lambda||^2. */
double mcb_gs_sweep(const mcb_problem *P, const mcb_gs_op *G, const int *order, double omega,
                    double *lambda);

/* ---- the matrix-free operator ---- */

typedef struct {
    const mcb_problem *P;
    int nsub;
    const int *start; /* nsub + 1 DOF offsets (P->sub_start, or whole[]) */
    int whole[2];     /* {0, n}: one subsystem when P has no partition */
    mcb_csc *JT;      /* J^T: column r holds row r of J */
    double *L;        /* the subsystems' dense factors, L + loff[s] */
    size_t *loff;     /* nsub */
    int *sp;          /* m + 1: row r's segments are sp[r] .. sp[r+1]-1 */
    int *ssub;        /* segment's subsystem */
    size_t *soff;     /* segment's vector A_s^-1 J_{r,s}^T at Y + soff */
    double *Y;
    double *d, *Wb;   /* weights and 3x3 blocks, mcb_delassus layout */
    double *v;        /* the velocity kept current by the solver (n) */
    double *x;        /* m work vector */
    double *vw;       /* n work vector */
} mcb_mf;

/* 1 when P suits the matrix-free operator: primal, A block diagonal over
 * its subsystems (or no partition), every subsystem of at most
 * MCB_DELASSUS_DENSE_MAX DOFs; else 0 with the reason. */
int mcb_mf_accepts(const mcb_problem *P, char *reason, size_t len);
/* Factors the subsystems, the rows' A^-1 J_r^T and the 3x3 blocks. Fails
 * with MCB_E_INPUT (P not accepted, the reason in err), MCB_E_NUMERIC (a
 * block of A not positive definite), MCB_E_NOMEM. */
mcb_rc mcb_mf_build(const mcb_problem *P, mcb_mf **out, mcb_err *err);
/* v = A^-1 (b + J^T lambda), or A^-1 J^T lambda when with_b is 0; OpenMP
 * over the subsystems (each DOF's sum in a fixed order: identical for any
 * thread count). */
void mcb_mf_velocity(const mcb_mf *F, const double *lambda, int with_b, double *v);
/* u[0..len) = J v + e on the rows [r0, r0 + len) (e left out when with_e
 * is 0); without the compliance term r∘lambda, which the caller adds (the
 * sweep operator mcb_gs_mf does). */
void mcb_mf_rows(const mcb_mf *F, int r0, int len, const double *v, int with_e, double *u);
/* v += A^-1 J_r^T delta_r for the rows [r0, r0 + len). */
void mcb_mf_push(const mcb_mf *F, int r0, int len, const double *delta, double *v);
/* y = W x = (J A^-1 J^T + diag(r)) x, r the compliance (uses F->vw). */
void mcb_mf_apply(mcb_mf *F, const double *x, double *y);
/* The sweep operator over F: u from F->v, pushes into F->v. */
mcb_gs_op mcb_gs_mf(mcb_mf *F);
void mcb_mf_free(mcb_mf **F); /* accepts NULL and *F == NULL */

/* y = Db^-1 x, Db the block diagonal of W given by d and Wb (a contact's
 * 3x3 block solved exactly, other rows 1/d; 0 for d = inf or a singular
 * block): the block-Jacobi preconditioner of the matrix-free PJ. */
void mcb_block_diag_solve(const mcb_problem *P, const double *d, const double *Wb,
                          const double *x, double *y);

#endif

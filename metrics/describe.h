/* describe.h: difficulty descriptors of a problem, pure functions of the
 * problem alone (primal or dual, generated or imported): its size, the
 * numerical rank deficiency of J, the friction coefficients, an estimate of
 * cond(W) over W's nonzero spectrum, the largest mass ratio and, dual, how
 * far W is from positive semidefinite.
 * docs/describe.md defines each one and how it is computed.
 *
 * Nothing here fails on a hard problem: a descriptor that cannot be
 * computed (a factorization that fails, a problem above the size limits)
 * is NaN (or -1 for the integers) and its `*_from` says why. The calls
 * fail only on NULL arguments (MCB_E_INPUT) and out of memory. They
 * allocate their work arrays once per call (none inside the Lanczos or any
 * other loop) and free them before returning. */
#ifndef MCB_DESCRIBE_H
#define MCB_DESCRIBE_H

#include "lib/mcb_problem.h"
#include "lib/mcb_vocab.h"


typedef struct {
    int lanczos_steps;   /* at most this many Lanczos steps (default 80) */
    int max_rows;        /* above this many rows, cond(W) and the rank are
                          * skipped (NaN, -1): default 60000 */
    int rank;            /* 0: skip the rank (a sparse QR) */
    int use_stored;      /* 1 (default): a finite stored cond_est / mass_ratio,
                          * a stored rank and a stored psd_defect are taken
                          * as is; 0: always recompute */
} mcb_describe_opts;

void mcb_describe_defaults(mcb_describe_opts *o);

/* Fills d for problem P (o NULL: the defaults). */
mcb_rc mcb_describe(const mcb_problem *P, const mcb_describe_opts *o, mcb_descriptors *d,
                    mcb_err *err);

/* cond(W) over its nonzero spectrum, W = J A^-1 J^T applied as three
 * sparse products and one CHOLMOD solve (primal) or the symmetric part of
 * the stored W (dual), never formed: Lanczos with full reorthogonalization
 * from W r, r a fixed pseudo-random vector (splitmix64, seed 20260101), at
 * most `steps` steps, stopped when the Krylov space is exhausted; lambda_max
 * over the smallest Ritz value above 1e-12 lambda_max. A lower bound that
 * tightens with the steps (exact when rank(W) <= steps). NaN when it cannot
 * be computed (no rows, A not positive definite, W without a positive
 * eigenvalue). *steps_taken (may be NULL) receives the steps taken. */
double mcb_describe_cond(const mcb_problem *P, int steps, int *steps_taken);

/* The estimate mcb_describe() computes with its defaults
 * (mcb_describe_cond with the default steps), NaN when P has more rows
 * than the default max_rows. */
double mcb_describe_cond_default(const mcb_problem *P);

/* The conditioning descriptor the scene engine records (cond_est,
 * docs/stepping.md): mcb_describe_cond_default for a primal problem, NaN
 * for a dual one and for NULL. That is, the ratio of the largest to the
 * smallest Ritz value above 1e-12 of J A^-1 J^T, from at most 80 Lanczos
 * steps with full reorthogonalization started from a fixed vector in the
 * range (so deterministic; power iteration on a shifted operator fails when
 * redundant contacts make the operator singular); NaN above 60 000 rows. */
double mcb_problem_cond_estimate(const mcb_problem *P);

/* Stores mcb_describe_cond_default(P) in P->cond_est unless a finite one
 * is stored: called where problems are made (mcbench gen stack, mcbench
 * import; the scene engine stores mcb_problem_cond_estimate, the same
 * value), so that describing a campaign's problems reads it instead of
 * running Lanczos again. */
void mcb_describe_store_cond(mcb_problem *P);

/* mcb_describe_store_cond, and the rank mcb_describe() computes with its
 * defaults (mcb_describe_rank, none above max_rows) in P->rank and
 * P->rank_tol unless one is stored: where problems are made (mcbench gen
 * stack, mcbench import; the scene engine stores cond_est only), so that a
 * campaign's descriptors on those files need no QR. */
void mcb_describe_store(mcb_problem *P);

/* The numerical rank of J (primal: a QR of J^T, whose columns are J's
 * rows) or W (dual), by SuiteSparseQR with its default tolerance
 * tol = 20 (r + c) eps max_j ||column j|| for an r x c matrix (written to
 * *tol, may be NULL). -1 when the QR fails. */
int mcb_describe_rank(const mcb_problem *P, double *tol);

/* The CSV columns (no newline) of mcb_describe_csv_row, after a caller's
 * own leading columns:
 * form,n,m,contacts,subsystems,rows_per_dof,rank,rank_def,rank_tol,
 * mu_min,mu_med,mu_max,cond_w,cond_from,cond_steps,mass_ratio,mass_from,
 * psd_defect,psd_from */
const char *mcb_describe_csv_header(void);
/* One CSV row of d (no newline; NaN and -1 as empty fields) into buf;
 * returns buf. */
char *mcb_describe_csv_row(const mcb_descriptors *d, char *buf, size_t len);

#endif

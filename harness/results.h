/* results.h: campaign output. One HDF5 results file (docs/results-format.md)
 * holding the run context once and one record per problem x solver x
 * repetition (info, final metrics, trace, optional solution), plus a flat
 * results.csv with one row per run. Both are written under temporary names
 * and renamed only when the campaign completes, so a partial campaign is
 * never presented as complete. */
#ifndef MCB_RESULTS_H
#define MCB_RESULTS_H

#include "runner.h"

typedef struct {
    const char *command;    /* the command line */
    int stop_metric;
    int trace_every, repeat;
    mcb_settings settings;
} mcb_context;

typedef struct mcb_results mcb_results;

mcb_rc mcb_results_open(const char *h5_path, const char *csv_path, const mcb_context *ctx,
                        mcb_results **out, mcb_err *err);
mcb_rc mcb_results_add(mcb_results *R, const mcb_run *run, mcb_err *err);
/* complete = 1: rename into place; 0: remove the temporaries. Accepts NULL. */
mcb_rc mcb_results_close(mcb_results **R, int complete, mcb_err *err);

/* Reading back (for reports). */
typedef struct {
    char *problem_set, *problem, *solver, *reason;
    int problem_index, rep, status, iterations, n, m, ncontacts;
    double setup_s, solve_s, own_residual;
    mcb_metrics final;
    int trace_rows;
    double *trace;      /* trace_rows x MCB_TRACE_COLS */
    double *v, *lambda; /* the final solution (n and m entries), NULL unless stored */
} mcb_run_rec;

typedef struct {
    int count;
    mcb_run_rec *runs;
    char *stop_metric;
    double tol;
    int max_iters;
    double time_limit_s;
    int threads;
    char *date, *git_revision, *cpu_model, *compiler;
} mcb_results_data;

/* Reads a results file (untrusted: its HDF5 pass runs first in an isolated
 * child process, as for problem files). */
mcb_rc mcb_results_read(const char *path, mcb_results_data **out, mcb_err *err);
void mcb_results_data_free(mcb_results_data **D);

/* The CSV header line (no newline) and the columns it names. */
const char *mcb_csv_header(void);

#endif

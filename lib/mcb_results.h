/* mcb_results.h: the results format (docs/results-format.md), on the
 * ground floor beside the problem format: what a campaign writes and what
 * reports, compare and merge read, with no knowledge of the harness that
 * made it (its records are plain values; their vocabulary is mcb_vocab.h).
 *
 * While a campaign runs, each finished run is appended to its journal
 * (mcb_journal.h), RESULTS.h5.journal, so nothing finished is ever lost. When
 * the campaign completes, the journal (and, when a campaign was resumed or
 * parts are merged, the runs of earlier results files) become one HDF5
 * results file, RESULTS.h5, holding the campaign context once and one
 * record per run (info, final metrics, trace, optional solution) in the
 * order of the campaign's run list, plus a flat CSV with one row per run.
 * Both are written under temporary names and renamed into place, then the
 * journal is removed. Every reader here takes either a results file or the
 * journal of an unfinished campaign. */
#ifndef MCB_RESULTS_H
#define MCB_RESULTS_H

#include <stddef.h>

#include "lib/mcb_error.h"
#include "lib/mcb_vocab.h"

/* One run as stored. Strings and arrays are owned by the record when it
 * was read (mcb_rec_free), borrowed when it views a run in memory (the
 * harness's mcb_rec_view). */
typedef struct {
    char *problem_set, *problem, *solver, *reason;
    char *config; /* the run's budgets and solver parameters, "key=value" words */
    int run_index; /* position in the campaign's full run list */
    int problem_index, rep, status, iterations, n, m, ncontacts;
    int inner_iterations; /* the solver's inner iterations (mcb_info) */
    int checks, timing; /* judgements made; MCB_TIMED_* */
    double setup_s, solve_s, own_residual, measure_s, observed_solve_s;
    double form_residual; /* the formulation's own residual (format 5) */
    int own_status;       /* the status the solver's solve() returned, before the harness
                             judged (MCB_ST_*; -1: the solver did not solve) */
    int own_stop;         /* 1: the solver ended its solve itself; 0: the harness stopped
                             it; -1: unknown (no solve, or a file older than format 7) */
    mcb_metrics final;
    int trace_rows;
    double *trace;      /* trace_rows x MCB_TRACE_COLS */
    double *v, *lambda; /* the final solution (n and m entries), NULL unless stored */
    int step_rows;      /* a closed-loop run's steps (0: a replay run) */
    double *steps;      /* step_rows x MCB_STEP_COLS (mcb_vocab.h) */
    int start;          /* where the run started, MCB_START_* (mcbench run --warm-start) */
    /* the machine while the run was timed (harness/machine.h; NaN: not
     * recorded, e.g. files written before issue 28, or not exposed) */
    double load_avg, cpu_mhz, cpu_max_mhz, others_share;
} mcb_run_rec;

void mcb_rec_free(mcb_run_rec *r); /* for records that own their fields */

/* One problem's difficulty descriptors (format 5: /descriptors). */
typedef struct {
    char *problem_set, *problem; /* owned when read, borrowed when written */
    mcb_descriptors d;
} mcb_problem_desc;

/* A campaign's context and (when read) its runs. */
typedef struct {
    int count;
    mcb_run_rec *runs;
    int complete;    /* 0: read from the journal of an unfinished campaign */
    char *stop_metric;
    double tol;
    int max_iters;
    double time_limit_s;
    int threads;
    char *date, *git_revision, *cpu_model, *compiler;
    char *command, *cflags;
    char *settings;  /* everything that must agree between parts of one campaign */
    char *inputs;    /* where the problems came from, a line per input:
                        "SET<TAB>KIND<TAB>SHA256<TAB>PATH" (KIND mcbench or fclib;
                        SHA256 the file's digest for an FCLIB file, "-" otherwise);
                        NULL: not recorded (older files) */
    char *gpu_device; /* the CUDA device of a build with the GPU solvers ("NAME, memory,
                         compute capability, driver, runtime", or "none (the CUDA
                         error)"); NULL: built without CUDA, or an older file */
    int cpu_count, warm_start, check_every, trace_every, timing, repeat;
    int total_runs;  /* the size of the campaign's full run list */
    int ndesc;       /* per-problem descriptors (0: none, e.g. a journal) */
    mcb_problem_desc *desc; /* owned when read (mcb_results_ctx_free) */
    int desc_borrowed; /* 1: desc's names and array belong to someone else */
} mcb_results_data;

/* The first word that differs between two "key=value" lists, described for
 * an error message ("tol=1e-08 here, tol=1e-06 there"); 0 when equal. */
int mcb_words_differ(const char *here, const char *there, char *buf, size_t len);

/* A source of stored runs: a results file or a journal. */
typedef struct mcb_results_src mcb_results_src;
/* Opens `path` (untrusted: a results file's HDF5 pass runs first in an
 * isolated child). A path that does not exist is read from its journal
 * when there is one. */
mcb_rc mcb_results_src_open(const char *path, mcb_results_src **out, mcb_err *err);
const mcb_results_data *mcb_results_src_ctx(const mcb_results_src *S); /* count = runs */
mcb_rc mcb_results_src_run(mcb_results_src *S, int k, mcb_run_rec *r, mcb_err *err);
/* Run k's position in the campaign's run list alone (cheap: for merge). */
mcb_rc mcb_results_src_index(mcb_results_src *S, int k, int *run_index, mcb_err *err);
const char *mcb_results_src_path(const mcb_results_src *S);
void mcb_results_src_close(mcb_results_src **S);

/* Writes RESULTS.h5 and its CSV from the runs picked out of open sources,
 * in the order given, under temporary names renamed into place at the end
 * (nothing is left behind on failure). `ctx` supplies the context. */
typedef struct {
    mcb_results_src *src;
    int k;
} mcb_pick;
mcb_rc mcb_results_write(const char *h5_path, const char *csv_path, const mcb_results_data *ctx,
                         const mcb_pick *picks, int npicks, mcb_err *err);

/* Reads a results file, or an unfinished campaign's journal, whole (for
 * reports). */
mcb_rc mcb_results_read(const char *path, mcb_results_data **out, mcb_err *err);
void mcb_results_data_free(mcb_results_data **D);
void mcb_results_ctx_free(mcb_results_data *D); /* the context strings only */

/* The CSV header line (no newline) and the columns it names. */
const char *mcb_csv_header(void);

/* mcbench merge: parts of one campaign into one results file (mcb_merge.c):
 * the parts must be finished, from one revision, with the same settings and
 * run list; a run in two parts is refused. */
mcb_rc mcb_merge(const char *const *parts, int nparts, const char *h5_path, const char *csv_path,
                 mcb_err *err);

#endif

/* reproduce.h: one experiment's published numbers beside the measured ones
 * (`mcbench reproduce NAME`; docs/experiments.md, "Quantities" and
 * "Verdicts"). An experiment spec (harness/experiment.h: the one harness
 * header the reports floor sees, and harness/experiment.c the only harness
 * code it may call, docs/architecture.md) names (problem group, solver
 * entry) pairs; each pair's campaign is a results file,
 * ITEM_DIR/runs/GROUP/ENTRY.h5 (mcb_xp_runs_path). This module
 *  - evaluates: reads every pair's results, computes every table cell, or
 *    every figure series (points per group, or median curves from the
 *    traces) with its least-squares fit and every claim, and gives each a
 *    verdict;
 *  - writes: ITEM_DIR/NAME.md (the item's section of docs/reproduction.md),
 *    NAME.csv (one line per cell or claim), NAME.html (one page) and, for
 *    figures, NAME.svg and NAME.png drawn by gnuplot from NAME.dat and
 *    NAME.gp beside them, every file under a temporary name renamed into
 *    place.
 * Reads results files through lib/mcb_results.h only; knows nothing of how
 * they were made. */
#ifndef MCB_REPRODUCE_H
#define MCB_REPRODUCE_H

#include <stdio.h>

#include "lib/mcb_experiment.h"
#include "lib/mcb_error.h"

/* A verdict (docs/experiments.md, "Verdicts"). */
typedef enum {
    MCB_XR_REPRODUCED = 0,
    MCB_XR_ORDERING,       /* "ordering reproduced" */
    MCB_XR_NOT_REPRODUCED,
    MCB_XR_REFERENCE,
    MCB_XR_NOT_COMPARED,
    MCB_XR_NOT_RUN,        /* --quick left the cell's problem group out */
    MCB_XR_NVERDICTS
} mcb_xp_verdict;
const char *mcb_xp_verdict_name(int v); /* "reproduced", "ordering reproduced", ... */

/* One table cell, or one figure claim. Pointers borrow from the spec. */
typedef struct {
    int row, col;             /* tables: binding indices; claims: claim index, -1 */
    const char *row_label, *col_label; /* claims: the claim's label, NULL */
    const mcb_xp_quantity *q; /* claims Y_AT/Y_FINAL: of the claim (class and unit of y) */
    mcb_xp_class cls;
    const char *unit;
    const mcb_xp_value *published;
    int group, entry;         /* the pair (indices into S->problems, S->solvers); claims:
                                 the series' entry, group -1 */
    int ran;                  /* 0: not run (--quick, or its solver entry was skipped) */
    const char *skipped;      /* why its solver entry was not run ("no GPU: ..."), or NULL */
    int failed;               /* a run failed (docs/experiments.md, "Failures") */
    double measured;          /* NaN when nothing was measured */
    const char *category;     /* OUTCOME: "succeeds" or "fails" (static) */
    int ref;                  /* the reference cell's index, -1: none */
    double mratio, pratio;    /* time with a ref: measured / measured ref, published /
                                 published ref; NaN otherwise */
    double ratio;             /* time: mratio / pratio; a factor band: measured /
                                 published; NaN otherwise */
    double diff;              /* an abs band (not time): measured - published; NaN otherwise */
    mcb_xp_verdict verdict;
} mcb_xp_cell;

/* One figure series: its points (x increasing for curves, the groups'
 * order otherwise) and its least-squares line y = a + b x with R^2, and
 * the slope of log y on log x (NaN without 2 finite points, positive for
 * the log fit). */
typedef struct {
    int npoints;
    double *x, *y;
    int *failed;              /* per point: a run failed (points per group) */
    int fitted;               /* the line is defined (>= 2 finite points) */
    double a, b, r2, log_slope;
} mcb_xp_series_out;

typedef struct mcb_xp_outcome {
    int quick;
    int nskipped;             /* S->nsolvers when skipped is set */
    char **skipped;           /* per solver entry: why it was not run (mcb_xp_evaluate_skipping),
                                 NULL entries: run; NULL: none skipped */
    char *machine;            /* where it was measured ("CPU ...; GPU ..."), shown when set */
    char *command;            /* how the item was made, shown in the Markdown; NULL:
                                 "mcbench reproduce NAME [--quick]" (mcb_xp_set_command) */
    int ncells;               /* tables: nrows x ncols, row-major; figures: one per claim */
    mcb_xp_cell *cells;
    int nseries;              /* figures: S->nseries */
    mcb_xp_series_out *series;
    int plotted;              /* set by mcb_xp_write: 1 drawn, 0 not (plot_note says why),
                                 -1 not a figure or not written yet */
    char plot_note[512];
} mcb_xp_outcome;

/* Reads every pair's results (mcb_results_read on mcb_xp_runs_path) and
 * computes every cell or series and claim, and their verdicts. A missing
 * results file, an unfinished campaign (its journal only) or one without
 * runs is MCB_E_INPUT naming the file. quick: problem groups with
 * quick_skip are not read (their cells "not run"). On failure *out is
 * NULL. */
mcb_rc mcb_xp_evaluate(const mcb_xp_spec *S, const char *item_dir, int quick,
                       mcb_xp_outcome **out, mcb_err *err);
/* The same, with solver entries left out: skipped[e] (NULL, or NULL
 * entries: run) says why entry e was not run, e.g. "no GPU: REASON" for a
 * `needs: gpu` entry where the device query failed. Their results are not
 * read; their cells are "not run (REASON)", never a number, and a time
 * cell referring to one is not compared. skipped is copied. */
mcb_rc mcb_xp_evaluate_skipping(const mcb_xp_spec *S, const char *item_dir, int quick,
                                const char *const *skipped, mcb_xp_outcome **out, mcb_err *err);
/* Where the item was measured, shown under its command (copied; NULL: not shown). */
mcb_rc mcb_xp_set_machine(mcb_xp_outcome *R, const char *machine, mcb_err *err);
/* The command line shown with the item (copied; NULL restores the default). */
mcb_rc mcb_xp_set_command(mcb_xp_outcome *R, const char *command, mcb_err *err);

/* Writes ITEM_DIR/NAME.{md,csv,html} and, for figures, NAME.{dat,gp,png,svg}
 * (gnuplot: the program `gnuplot`, "gnuplot" when NULL). A figure whose
 * plot cannot be drawn (gnuplot missing or failing) is still written, the
 * Markdown and the page saying why (R->plotted, R->plot_note); any other
 * failure leaves no file of the item half written. */
mcb_rc mcb_xp_write(const mcb_xp_spec *S, mcb_xp_outcome *R, const char *item_dir,
                    const char *gnuplot, mcb_err *err);

/* The item's Markdown section (what NAME.md holds) to f; heading: the
 * prefix of its heading ("#", "##"; NULL: "##"). docs/reproduction.md is
 * assembled from these. MCB_E_IO when f fails. */
mcb_rc mcb_xp_markdown(const mcb_xp_spec *S, const mcb_xp_outcome *R, FILE *f,
                       const char *heading, mcb_err *err);

/* counts[v]: the cells and claims with verdict v (MCB_XR_NVERDICTS entries). */
void mcb_xp_counts(const mcb_xp_outcome *R, int counts[MCB_XR_NVERDICTS]);
void mcb_xp_outcome_free(mcb_xp_outcome **R); /* accepts NULL and *R NULL */

#endif

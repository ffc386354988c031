/* plot_difficulty.h: the report's difficulty plot, time to tolerance
 * against cond(W) (docs/describe.md), from the per-problem descriptors a
 * results file holds (format 5). */
#ifndef MCB_PLOT_DIFFICULTY_H
#define MCB_PLOT_DIFFICULTY_H

#include <stdio.h>

#include "reports/outcomes.h"

/* Writes OUTDIR/difficulty.cond.dat, appends its plot (PNG and SVG) to the
 * gnuplot script gp and a section to html. Without descriptors or without
 * a solved run on a problem of known cond(W), the section says so and no
 * plot is drawn. MCB_E_IO when the data file cannot be written. */
mcb_rc mcb_plot_difficulty(FILE *html, FILE *gp, const char *outdir, const mcb_results_data *D,
                           const mcb_outcomes *O, mcb_err *err);

#endif

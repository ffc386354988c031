/* report.h: plots (gnuplot, PNG and SVG) and tables (Markdown, CSV, HTML)
 * from a results file; DIR/index.html shows them all. */
#ifndef MCB_REPORT_H
#define MCB_REPORT_H

#include "lib/mcb_error.h"

/* gnuplot: the program to run (NULL: "gnuplot" on PATH). */
mcb_rc mcb_report(const char *results_path, const char *outdir, const char *gnuplot,
                  mcb_err *err);

/* The shift of the shifted geometric means (docs/metrics.md), in seconds. */
#define MCB_SGM_SHIFT_S 0.010
/* mcb_report with the shift of its shifted geometric means (> 0). */
mcb_rc mcb_report_shift(const char *results_path, const char *outdir, const char *gnuplot,
                        double sgm_shift_s, mcb_err *err);

#endif

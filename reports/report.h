/* report.h: plots (gnuplot, PNG and SVG) and tables (Markdown, CSV, HTML)
 * from a results file; DIR/index.html shows them all. */
#ifndef MCB_REPORT_H
#define MCB_REPORT_H

#include "lib/mcb_error.h"

/* gnuplot: the program to run (NULL: "gnuplot" on PATH). */
mcb_rc mcb_report(const char *results_path, const char *outdir, const char *gnuplot,
                  mcb_err *err);

#endif

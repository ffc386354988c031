/* html.h: what every page and data file of a report shares: escaping by
 * format (HTML, URL, gnuplot string, CSV field, Markdown cell), file names
 * made from set names, opening an output file, and the page frame (one
 * style sheet, a small sort-by-column script, no framework). Nothing here
 * allocates; a failed open is reported through mcb_err. */
#ifndef MCB_REPORT_HTML_H
#define MCB_REPORT_HTML_H

#include <stdio.h>

#include "lib/mcb_error.h"

void mcb_html_escape(FILE *f, const char *s); /* NULL writes nothing */
/* A relative URL: every byte but unreserved characters and '/' as %XX. */
void mcb_url_escape(FILE *f, const char *s);
/* A gnuplot single-quoted string ('' is a quote; control characters '?'). */
void mcb_gp_quote(FILE *f, const char *s);
/* The report's gnuplot terminals are enhanced, so that a log axis labels
 * its tics 10^{n} (MCB_GP_LOG_FORMAT; %g where plain numbers read better),
 * and every text of ours (titles, axis labels, the key: names read from a
 * results file) is set noenhanced, so that '_' or '^' in a name shows as
 * itself. mcb_gp_text writes `set WHAT 'text' noenhanced` and a newline. */
#define MCB_GP_LOG_FORMAT "10^{%L}"
void mcb_gp_text(FILE *f, const char *what, const char *text);
/* Runs gnuplot (the program `gnuplot`, or "gnuplot" when NULL) on `script`
 * inside dir, so that the script names only files of that directory; its
 * messages go to dir/log. */
mcb_rc mcb_run_gnuplot(const char *dir, const char *gnuplot, const char *script, const char *log,
                       mcb_err *err);
/* A CSV field, quoted when it holds a comma, a quote, a line break or
 * leading or trailing spaces (RFC 4180). */
void mcb_csv_field(FILE *f, const char *s);
/* A Markdown table cell: '|' escaped, line breaks as spaces. */
void mcb_md_cell(FILE *f, const char *s);
/* s with every character but [A-Za-z0-9_-] made '_' (truncated to len). */
void mcb_safe_name(const char *s, char *out, size_t len);

/* dir/base+ext opened for writing; NULL with a message naming the path. */
FILE *mcb_report_open(const char *dir, const char *base, const char *ext, mcb_err *err);

/* <a href='base+suffix'>text</a>, the href URL-escaped, text as given
 * (HTML already). */
void mcb_html_link(FILE *f, const char *base, const char *suffix, const char *text);
/* The page's head (title escaped), its style sheet and the opening of the
 * body; `nav` (HTML, may be NULL) is written above the title heading. */
void mcb_html_begin(FILE *f, const char *title, const char *nav);
/* The sort script and the end of the page. */
void mcb_html_end(FILE *f);
/* A number for a table cell: "%.3g", or "-" when not finite. */
void mcb_fmt_num(char *buf, size_t len, double x);

#endif

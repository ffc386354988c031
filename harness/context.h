/* context.h: what the harness adds to the results format (mcb_results.h):
 * the context of a campaign about to start and the record view of a run in
 * memory. The results format knows none of the harness's types; this is
 * where they meet. */
#ifndef MCB_CONTEXT_H
#define MCB_CONTEXT_H

#include "lib/mcb_results.h"
#include "harness/runner.h"

/* A record borrowing the fields of `run` (nothing to free). */
void mcb_rec_view(const mcb_run *run, int run_index, const char *config, mcb_run_rec *rec);

/* Fills D's context (not its runs) for a campaign about to start: the
 * options, the command line, the date, revision, compiler and CPU. */
mcb_rc mcb_results_context(const char *command, const mcb_campaign_opts *o, int total_runs,
                           mcb_results_data *D, mcb_err *err);
/* This build: the SHA-256 of the file holding the harness's code (the
 * mcbench executable, or libmcbench.so for a program linked with it), so
 * that any change to the code, the compiler or its flags gives a new value
 * while an unchanged build (a commit that touched only docs) keeps it;
 * "unknown" when that file cannot be read. Computed once. It keys what is
 * reused across runs: the closed loop's reference trajectories and
 * `mcbench reproduce`'s problems and campaigns. */
const char *mcb_build_digest(void);
/* The "settings" words for a campaign's options. */
void mcb_settings_words(const mcb_campaign_opts *o, char *buf, size_t len);

#endif

/* mcb_journal.h: run records as bytes, and the append-only journal of a
 * campaign in progress.
 *
 * One encoding of a run record (mcb_run_rec) serves three transports: the
 * journal a campaign appends to as each run completes, the memory an
 * isolated child hands its run back through, and the messages of MPI
 * ranks. The journal, RESULTS.h5.journal, is a header line followed by
 * records, each framed as
 *     "MCBR" | u32 type | u64 payload length | payload | u32 CRC-32(payload)
 * (native byte order: a journal is read back on the machine that wrote it).
 * Type 1 is the campaign context, written once first; type 2 a run. A run is
 * appended with one write() once it is complete, so a campaign killed at any
 * point leaves every finished run readable: a reader uses the longest prefix
 * of whole records and ignores a torn tail. docs/results-format.md has the
 * payload layout. */
#ifndef MCB_JOURNAL_H
#define MCB_JOURNAL_H

#include <stddef.h>

#include "lib/mcb_results.h"

/* A growable byte buffer. */
typedef struct {
    char *p;
    size_t len, cap;
    int oom; /* an append failed: the contents are incomplete */
} mcb_buf;
void mcb_buf_free(mcb_buf *b);

/* Encoding. The context record holds the fields of D other than runs. */
void mcb_rec_pack(const mcb_run_rec *r, mcb_buf *b);
void mcb_ctx_pack(const mcb_results_data *D, mcb_buf *b);
/* Decoding (untrusted bytes: every length is checked); the record owns what
 * it points to afterwards (mcb_rec_free). `ctx` names the source in errors. */
mcb_rc mcb_rec_unpack(const void *p, size_t len, const char *ctx, mcb_run_rec *r, mcb_err *err);
mcb_rc mcb_ctx_unpack(const void *p, size_t len, const char *ctx, mcb_results_data *D,
                      mcb_err *err);

/* The framed form of one record (header, payload, CRC), ready to append. */
enum { MCB_JREC_CONTEXT = 1, MCB_JREC_RUN = 2 };
void mcb_frame(int type, const mcb_buf *payload, mcb_buf *out);
/* The run record a framed run record holds (mcb_rec_unpack of its payload;
 * a frame that is not one whole run record is MCB_E_INPUT). */
mcb_rc mcb_unframe_run(const mcb_buf *framed, const char *ctx, mcb_run_rec *r, mcb_err *err);

/* Writing: creates a new journal (O_EXCL: an existing one is an unfinished
 * campaign, never overwritten) or reopens one for appending after cutting a
 * torn tail at `valid_len`; an exclusive lock keeps a second campaign out. */
typedef struct mcb_journal mcb_journal;
mcb_rc mcb_journal_create(const char *path, const mcb_results_data *ctx, mcb_journal **out,
                          mcb_err *err);
mcb_rc mcb_journal_reopen(const char *path, long valid_len, mcb_journal **out, mcb_err *err);
/* Appends one framed record (mcb_frame's output) with a single write. */
mcb_rc mcb_journal_append(mcb_journal *J, const mcb_buf *framed, mcb_err *err);
mcb_rc mcb_journal_append_run(mcb_journal *J, const mcb_run_rec *r, mcb_err *err);
void mcb_journal_close(mcb_journal **J); /* accepts NULL */

/* Reading: the context and the offsets of the whole run records. */
typedef struct {
    char *path;
    char *data; /* the whole file */
    long size, valid_len; /* bytes; the prefix of whole records */
    mcb_results_data ctx; /* count = 0, runs = NULL */
    int count;
    long *offset, *length; /* payload of run k */
} mcb_journal_index;
mcb_rc mcb_journal_load(const char *path, mcb_journal_index **out, mcb_err *err);
mcb_rc mcb_journal_run(const mcb_journal_index *X, int k, mcb_run_rec *r, mcb_err *err);
void mcb_journal_index_free(mcb_journal_index **X);

/* The journal of a results path: "<path>.journal". */
void mcb_journal_path(const char *results, char *buf, size_t len);

#endif

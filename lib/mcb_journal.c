/* mcb_journal.c: the byte encoding of run records and the append-only journal
 * (see journal.h). */
#define _DEFAULT_SOURCE /* flock */
#include "lib/mcb_journal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mcb_paths.h"
#include "lib/mcb_timer.h"

#define JOURNAL_HEADER "mcbench-journal 3\n"
#define FRAME_MAGIC "MCBR"
/* magic, type, length before the payload; CRC after it */
#define FRAME_HEAD 16
#define FRAME_TAIL 4

/* ------------------------------------------------------------ byte buffer */

void mcb_buf_free(mcb_buf *b)
{
    if (!b) return;
    free(b->p);
    memset(b, 0, sizeof *b);
}

static void put(mcb_buf *b, const void *x, size_t n)
{
    if (b->oom) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, x, n);
    b->len += n;
}

static void put_i64(mcb_buf *b, long long v)
{
    int64_t x = v;
    put(b, &x, sizeof x);
}

static void put_f64(mcb_buf *b, double v) { put(b, &v, sizeof v); }

static void put_str(mcb_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_i64(b, (long long)n);
    put(b, s ? s : "", n);
}

/* an array of doubles; a NULL array is stored as count -1 */
static void put_doubles(mcb_buf *b, const double *x, long long n)
{
    put_i64(b, x ? n : -1);
    if (x && n > 0) put(b, x, (size_t)n * sizeof(double));
}

/* ------------------------------------------------------------ byte reader */

typedef struct {
    const char *p;
    size_t len, pos;
    int bad;
} cursor;

static int take(cursor *c, void *x, size_t n)
{
    if (c->bad || n > c->len - c->pos) {
        c->bad = 1;
        return -1;
    }
    memcpy(x, c->p + c->pos, n);
    c->pos += n;
    return 0;
}

static long long get_i64(cursor *c)
{
    int64_t x = 0;
    take(c, &x, sizeof x);
    return x;
}

static int get_int(cursor *c)
{
    long long v = get_i64(c);
    if (v < INT_MIN || v > INT_MAX) c->bad = 1;
    return c->bad ? 0 : (int)v;
}

static double get_f64(cursor *c)
{
    double x = 0;
    take(c, &x, sizeof x);
    return x;
}

static char *get_str(cursor *c)
{
    long long n = get_i64(c);
    if (c->bad || n < 0 || (unsigned long long)n > c->len - c->pos) {
        c->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        c->bad = 2;
        return NULL;
    }
    memcpy(s, c->p + c->pos, (size_t)n);
    s[n] = '\0';
    c->pos += (size_t)n;
    return s;
}

/* An array of exactly `want` doubles (any count when want < 0, returned in
 * *count), or NULL when stored as absent. */
static double *get_doubles(cursor *c, long long want, long long *count)
{
    long long n = get_i64(c);
    if (c->bad || n == -1) return NULL;
    if (n < 0 || (want >= 0 && n != want) ||
        (unsigned long long)n > (c->len - c->pos) / sizeof(double)) {
        c->bad = 1;
        return NULL;
    }
    double *x = mcb_malloc((size_t)n, sizeof(double));
    if (!x) {
        c->bad = 2;
        return NULL;
    }
    memcpy(x, c->p + c->pos, (size_t)n * sizeof(double));
    c->pos += (size_t)n * sizeof(double);
    if (count) *count = n;
    return x;
}

/* --------------------------------------------------------------- records */

void mcb_rec_pack(const mcb_run_rec *r, mcb_buf *b)
{
    put_str(b, r->problem_set);
    put_str(b, r->problem);
    put_str(b, r->solver);
    put_str(b, r->reason);
    put_str(b, r->config);
    const int ints[] = {r->run_index, r->problem_index, r->rep, r->status, r->iterations,
                        r->n, r->m, r->ncontacts, r->checks, r->timing, r->trace_rows,
                        r->inner_iterations, r->own_status, r->own_stop};
    for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) put_i64(b, ints[k]);
    const double dbl[] = {r->setup_s, r->solve_s, r->own_residual, r->measure_s,
                          r->observed_solve_s, r->form_residual};
    for (size_t k = 0; k < sizeof dbl / sizeof *dbl; k++) put_f64(b, dbl[k]);
    put_i64(b, MCB_NMETRICS);
    for (int k = 0; k < MCB_NMETRICS; k++) put_f64(b, r->final.val[k]);
    put_doubles(b, r->trace, (long long)r->trace_rows * MCB_TRACE_COLS);
    put_doubles(b, r->v, r->n);
    put_doubles(b, r->lambda, r->m);
    put_i64(b, r->step_rows);
    put_doubles(b, r->steps, (long long)r->step_rows * MCB_STEP_COLS);
    put_i64(b, r->start);
    /* last: a journal written before issue 28 still reads (NaN) */
    const double machine[] = {r->load_avg, r->cpu_mhz, r->cpu_max_mhz, r->others_share};
    for (size_t k = 0; k < sizeof machine / sizeof *machine; k++) put_f64(b, machine[k]);
}

static mcb_rc unpack_fail(cursor *c, const char *ctx, const char *what, mcb_err *err)
{
    if (c->bad == 2) return mcb_fail(err, MCB_E_NOMEM, "out of memory reading %s", ctx);
    return mcb_fail(err, MCB_E_INPUT, "%s: damaged record (%s)", ctx, what);
}

mcb_rc mcb_rec_unpack(const void *p, size_t len, const char *ctx, mcb_run_rec *r, mcb_err *err)
{
    memset(r, 0, sizeof *r);
    cursor c = {p, len, 0, 0};
    r->problem_set = get_str(&c);
    r->problem = get_str(&c);
    r->solver = get_str(&c);
    r->reason = get_str(&c);
    r->config = get_str(&c);
    int *ints[] = {&r->run_index, &r->problem_index, &r->rep, &r->status, &r->iterations,
                   &r->n, &r->m, &r->ncontacts, &r->checks, &r->timing, &r->trace_rows,
                   &r->inner_iterations, &r->own_status, &r->own_stop};
    for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) *ints[k] = get_int(&c);
    double *dbl[] = {&r->setup_s, &r->solve_s, &r->own_residual, &r->measure_s,
                     &r->observed_solve_s, &r->form_residual};
    for (size_t k = 0; k < sizeof dbl / sizeof *dbl; k++) *dbl[k] = get_f64(&c);
    mcb_rc rc = MCB_OK;
    const char *what = NULL;
    if (get_i64(&c) != MCB_NMETRICS && !c.bad) what = "metric count";
    for (int k = 0; k < MCB_NMETRICS; k++) r->final.val[k] = get_f64(&c);
    if (!c.bad && !what &&
        (r->run_index < 0 || r->n < 0 || r->m < 0 || r->trace_rows < 0 || r->status < 0 ||
         r->status >= MCB_NSTATUS || r->iterations < 0 || r->rep < 0 || r->timing < 0 ||
         r->timing >= MCB_NTIMED || r->own_status < -1 || r->own_status >= MCB_NSTATUS ||
         r->own_stop < -1 || r->own_stop > 1))
        what = "a count or status out of range";
    if (!c.bad && !what) {
        r->trace = get_doubles(&c, (long long)r->trace_rows * MCB_TRACE_COLS, NULL);
        r->v = get_doubles(&c, r->n, NULL);
        r->lambda = get_doubles(&c, r->m, NULL);
        r->step_rows = get_int(&c);
        if (!c.bad && r->step_rows < 0) what = "a count or status out of range";
        else r->steps = get_doubles(&c, (long long)r->step_rows * MCB_STEP_COLS, NULL);
        /* where the run started: absent from the records of older journals */
        if (!c.bad && c.pos < len) r->start = get_int(&c);
        if (!c.bad && (r->start < 0 || r->start >= MCB_NSTART)) what = "start out of range";
    }
    double *machine[] = {&r->load_avg, &r->cpu_mhz, &r->cpu_max_mhz, &r->others_share};
    int has_machine = !c.bad && !what && c.pos < len;
    for (size_t k = 0; k < sizeof machine / sizeof *machine; k++)
        *machine[k] = has_machine ? get_f64(&c) : NAN;
    if (!c.bad && !what && c.pos != len) what = "trailing bytes";
    if (!c.bad && !what && r->trace_rows > 0 && !r->trace) what = "trace missing";
    if (!c.bad && !what && r->step_rows > 0 && !r->steps) what = "steps missing";
    if (c.bad || what) {
        rc = unpack_fail(&c, ctx, what ? what : "truncated", err);
        mcb_rec_free(r);
    }
    return rc;
}

void mcb_ctx_pack(const mcb_results_data *D, mcb_buf *b)
{
    const char *strs[] = {D->stop_metric, D->date,    D->git_revision, D->cpu_model,
                          D->compiler,    D->command, D->cflags,       D->settings};
    for (size_t k = 0; k < sizeof strs / sizeof *strs; k++) put_str(b, strs[k]);
    const int ints[] = {D->max_iters, D->threads,     D->cpu_count, D->warm_start,
                        D->check_every, D->trace_every, D->timing,  D->repeat, D->total_runs};
    for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) put_i64(b, ints[k]);
    put_f64(b, D->tol);
    put_f64(b, D->time_limit_s);
    if (D->inputs) put_str(b, D->inputs); /* last: a journal without it still reads */
}

mcb_rc mcb_ctx_unpack(const void *p, size_t len, const char *ctx, mcb_results_data *D,
                      mcb_err *err)
{
    cursor c = {p, len, 0, 0};
    char **strs[] = {&D->stop_metric, &D->date,    &D->git_revision, &D->cpu_model,
                     &D->compiler,    &D->command, &D->cflags,       &D->settings};
    for (size_t k = 0; k < sizeof strs / sizeof *strs; k++) *strs[k] = get_str(&c);
    int *ints[] = {&D->max_iters, &D->threads,     &D->cpu_count, &D->warm_start,
                   &D->check_every, &D->trace_every, &D->timing,  &D->repeat, &D->total_runs};
    for (size_t k = 0; k < sizeof ints / sizeof *ints; k++) *ints[k] = get_int(&c);
    D->tol = get_f64(&c);
    D->time_limit_s = get_f64(&c);
    if (!c.bad && c.pos < len) D->inputs = get_str(&c);
    if (c.bad || c.pos != len) return unpack_fail(&c, ctx, "campaign context", err);
    return MCB_OK;
}

/* ---------------------------------------------------------------- framing */

static uint32_t crc32_of(const void *p, size_t n)
{
    static uint32_t table[256];
    static int ready;
    if (!ready) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
        ready = 1;
    }
    uint32_t c = 0xFFFFFFFFu;
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) c = table[(c ^ s[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

void mcb_frame(int type, const mcb_buf *payload, mcb_buf *out)
{
    uint32_t t = (uint32_t)type, crc = crc32_of(payload->p, payload->len);
    uint64_t n = payload->len;
    out->len = 0;
    put(out, FRAME_MAGIC, 4);
    put(out, &t, 4);
    put(out, &n, 8);
    put(out, payload->p, payload->len);
    put(out, &crc, 4);
    if (payload->oom) out->oom = 1;
}

mcb_rc mcb_unframe_run(const mcb_buf *framed, const char *ctx, mcb_run_rec *r, mcb_err *err)
{
    memset(r, 0, sizeof *r);
    uint32_t t = 0;
    uint64_t n = 0;
    if (framed->len >= FRAME_HEAD + FRAME_TAIL) {
        memcpy(&t, framed->p + 4, 4);
        memcpy(&n, framed->p + 8, 8);
    }
    if (framed->len < FRAME_HEAD + FRAME_TAIL || memcmp(framed->p, FRAME_MAGIC, 4) ||
        t != MCB_JREC_RUN || n != framed->len - FRAME_HEAD - FRAME_TAIL)
        return mcb_fail(err, MCB_E_INPUT, "%s: not a framed run record", ctx);
    return mcb_rec_unpack(framed->p + FRAME_HEAD, (size_t)n, ctx, r, err);
}

/* ---------------------------------------------------------------- writing */

struct mcb_journal {
    int fd;
    char *path;
    double last_sync_s;
    mcb_buf payload, framed;
};

void mcb_journal_path(const char *results, char *buf, size_t len)
{
    snprintf(buf, len, "%s.journal", results);
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static mcb_rc journal_open_fd(const char *path, int fd, mcb_journal **out, mcb_err *err)
{
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        return mcb_fail(err, MCB_E_INPUT, "%s: another campaign is writing this journal", path);
    }
    mcb_journal *J = calloc(1, sizeof *J);
    if (J) J->path = mcb_strdup(path);
    if (!J || !J->path) {
        close(fd);
        free(J);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    J->fd = fd;
    J->last_sync_s = mcb_now_s();
    *out = J;
    return MCB_OK;
}

mcb_rc mcb_journal_create(const char *path, const mcb_results_data *ctx, mcb_journal **out,
                          mcb_err *err)
{
    *out = NULL;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return mcb_fail(err, errno == EEXIST ? MCB_E_INPUT : MCB_E_IO,
                        errno == EEXIST
                            ? "%s exists: an unfinished campaign (continue it with --resume, or "
                              "remove the journal to start afresh)"
                            : "%s: cannot create the journal (%s)",
                        path, strerror(errno));
    mcb_rc rc = journal_open_fd(path, fd, out, err);
    if (rc) return rc;
    mcb_journal *J = *out;
    mcb_buf b = {0};
    mcb_ctx_pack(ctx, &J->payload);
    mcb_frame(MCB_JREC_CONTEXT, &J->payload, &J->framed);
    put(&b, JOURNAL_HEADER, strlen(JOURNAL_HEADER));
    put(&b, J->framed.p, J->framed.len);
    if (b.oom || J->framed.oom || write_all(fd, b.p, b.len) != 0) {
        rc = mcb_fail(err, MCB_E_IO, "%s: cannot write the journal", path);
        mcb_journal_close(out);
        unlink(path);
    }
    mcb_buf_free(&b);
    return rc;
}

mcb_rc mcb_journal_reopen(const char *path, long valid_len, mcb_journal **out, mcb_err *err)
{
    *out = NULL;
    int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0)
        return mcb_fail(err, MCB_E_IO, "%s: cannot open the journal (%s)", path, strerror(errno));
    mcb_rc rc = journal_open_fd(path, fd, out, err);
    if (rc) return rc;
    if (ftruncate(fd, valid_len) != 0) {
        mcb_journal_close(out);
        return mcb_fail(err, MCB_E_IO, "%s: cannot cut the torn record (%s)", path,
                        strerror(errno));
    }
    return MCB_OK;
}

mcb_rc mcb_journal_append(mcb_journal *J, const mcb_buf *framed, mcb_err *err)
{
    if (framed->oom) return mcb_fail(err, MCB_E_NOMEM, "out of memory encoding a run");
    if (write_all(J->fd, framed->p, framed->len) != 0)
        return mcb_fail(err, MCB_E_IO, "%s: cannot append a run (%s)", J->path, strerror(errno));
    /* on disk at least every 10 s: survives a power cut, not only a kill */
    double now = mcb_now_s();
    if (now - J->last_sync_s > 10.0) {
        fdatasync(J->fd);
        J->last_sync_s = now;
    }
    return MCB_OK;
}

mcb_rc mcb_journal_append_run(mcb_journal *J, const mcb_run_rec *r, mcb_err *err)
{
    J->payload.len = 0;
    J->payload.oom = 0;
    mcb_rec_pack(r, &J->payload);
    mcb_frame(MCB_JREC_RUN, &J->payload, &J->framed);
    return mcb_journal_append(J, &J->framed, err);
}

void mcb_journal_close(mcb_journal **Jp)
{
    if (!Jp || !*Jp) return;
    mcb_journal *J = *Jp;
    fdatasync(J->fd);
    close(J->fd);
    mcb_buf_free(&J->payload);
    mcb_buf_free(&J->framed);
    free(J->path);
    free(J);
    *Jp = NULL;
}

/* ---------------------------------------------------------------- reading */

void mcb_journal_index_free(mcb_journal_index **Xp)
{
    if (!Xp || !*Xp) return;
    mcb_journal_index *X = *Xp;
    mcb_results_data *D = &X->ctx;
    mcb_results_ctx_free(D);
    free(X->path);
    if (X->data && X->size > 0) munmap(X->data, (size_t)X->size);
    free(X->offset);
    free(X->length);
    free(X);
    *Xp = NULL;
}

/* The frame at `pos`: its type and payload, or 0 when no whole, intact
 * frame starts there. */
static int frame_at(const mcb_journal_index *X, long pos, uint32_t *type, long *plen)
{
    if (X->size - pos < FRAME_HEAD + FRAME_TAIL || memcmp(X->data + pos, FRAME_MAGIC, 4)) return 0;
    uint64_t n;
    memcpy(type, X->data + pos + 4, 4);
    memcpy(&n, X->data + pos + 8, 8);
    if (n > (uint64_t)(X->size - pos - FRAME_HEAD - FRAME_TAIL)) return 0;
    uint32_t crc;
    memcpy(&crc, X->data + pos + FRAME_HEAD + (long)n, 4);
    if (crc != crc32_of(X->data + pos + FRAME_HEAD, (size_t)n)) return 0;
    *plen = (long)n;
    return 1;
}

mcb_rc mcb_journal_load(const char *path, mcb_journal_index **out, mcb_err *err)
{
    *out = NULL;
    mcb_journal_index *X = calloc(1, sizeof *X);
    if (!X || !(X->path = mcb_strdup(path))) {
        free(X);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    mcb_rc rc = MCB_OK;
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: cannot read the journal (%s)", path,
                      f ? "not a regular file" : strerror(errno));
        goto done;
    }
    /* mapped, not read: a journal of many runs with traces can be large */
    if (st.st_size > 0) {
        void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
        if (m == MAP_FAILED) {
            rc = mcb_fail(err, MCB_E_IO, "%s: cannot map the journal (%s)", path, strerror(errno));
            goto done;
        }
        X->data = m;
        X->size = (long)st.st_size;
    }
    long hl = (long)strlen(JOURNAL_HEADER), plen = 0;
    uint32_t type = 0;
    if (X->size >= hl && X->data && !memcmp(X->data, JOURNAL_HEADER, (size_t)hl - 2) &&
        memcmp(X->data, JOURNAL_HEADER, (size_t)hl)) {
        rc = mcb_fail(err, MCB_E_INPUT,
                      "%s: a journal of another version (%.*s), this mcbench reads %.*s: "
                      "report or resume it with the mcbench that wrote it",
                      path, (int)hl - 1, (const char *)X->data, (int)hl - 1, JOURNAL_HEADER);
        goto done;
    }
    if (X->size < hl || !X->data || memcmp(X->data, JOURNAL_HEADER, (size_t)hl) ||
        !frame_at(X, hl, &type, &plen) || type != MCB_JREC_CONTEXT) {
        rc = mcb_fail(err, MCB_E_INPUT, "%s: not an mcbench journal, or its header is damaged",
                      path);
        goto done;
    }
    if ((rc = mcb_ctx_unpack(X->data + hl + FRAME_HEAD, (size_t)plen, path, &X->ctx, err)))
        goto done;
    long pos = hl + FRAME_HEAD + plen + FRAME_TAIL;
    int cap = 0;
    while (frame_at(X, pos, &type, &plen) && type == MCB_JREC_RUN) {
        if (X->count == cap) {
            cap = cap ? 2 * cap : 256;
            long *o = realloc(X->offset, (size_t)cap * sizeof *o);
            if (o) X->offset = o;
            long *l = realloc(X->length, (size_t)cap * sizeof *l);
            if (l) X->length = l;
            if (!o || !l) {
                rc = mcb_fail(err, MCB_E_NOMEM, "out of memory reading %s", path);
                goto done;
            }
        }
        X->offset[X->count] = pos + FRAME_HEAD;
        X->length[X->count] = plen;
        X->count++;
        pos += FRAME_HEAD + plen + FRAME_TAIL;
    }
    X->valid_len = pos;
done:
    if (f) fclose(f);
    if (rc) mcb_journal_index_free(&X);
    *out = X;
    return rc;
}

mcb_rc mcb_journal_run(const mcb_journal_index *X, int k, mcb_run_rec *r, mcb_err *err)
{
    char ctx[4200];
    snprintf(ctx, sizeof ctx, "%s: run record %d", X->path, k);
    return mcb_rec_unpack(X->data + X->offset[k], (size_t)X->length[k], ctx, r, err);
}

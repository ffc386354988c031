/* campaign.c: the run list and what is selected of it, the execution of a
 * run (in-process or isolated in a forked child), the journal, resume,
 * merge, and the progress display (see campaign.h). */
#define _GNU_SOURCE /* memfd_create */
#include "harness/campaign.h"
#include "harness/whole_step.h"
#include "harness/machine.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "metrics/describe.h"
#include "lib/mcb_isolate.h"
#include "lib/mcb_paths.h"
#include "lib/mcb_timer.h"

double mcb_default_mem_limit_mb(void)
{
    double bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    return bytes > 0 ? 0.5 * bytes / 1048576.0 : 8192.0;
}

/* ------------------------------------------------------------- the plan */

/* --warm-start own, per solver: its last solution and the start made from
 * it for the problem now running (kept for that problem's repetitions). */
typedef struct {
    int f, p;            /* the problem of the last rep-0 run; f < 0: none yet */
    int usable;          /* it returned a finite solution (the status allows one) */
    int n, m;
    double *v, *lambda;  /* that solution */
    int start_f, start_p, start; /* the problem the start below is for; MCB_START_* */
    double *v0, *lambda0; /* that start (n, m of problem start_p) */
} warm_chain;

/* A campaign with batched choices: per solver choice, what its runs of this
 * process did, for the throughput table (docs/batch.md). */
typedef struct {
    int runs, solved;
    double setup_s, solve_s; /* one by one: the runs' sums; batched: the batches' */
} batch_tally;

struct mcb_plan {
    mcb_run_item *items; /* selected, not yet recorded, in run-list order */
    int count;
    char **config;       /* per solver: the run's configuration words */
    int nconfig;
    int total;           /* the full run list */
    /* what is recorded already (resume) */
    mcb_results_src *old;     /* the results file being continued, or NULL */
    int old_journal;          /* the journal existed */
    long journal_valid;       /* its whole records, in bytes */
    mcb_journal *journal;
    int recorded;             /* runs recorded before this process started */
    /* the current problem's metrics workspace */
    int ws_f, ws_p;
    mcb_metrics_ws *ws;
    warm_chain *warm;         /* per solver, under --warm-start own; else NULL */
    warm_chain *seeds;        /* own on --resume: per full-list index, the recorded rep-0
                                 solutions the runs left start from (f >= 0 where held) */
    batch_tally *tally;       /* per solver, with batched choices (C->batch); else NULL */
};

int mcb_plan_count(const mcb_plan *L) { return L->count; }
int mcb_plan_recorded(const mcb_plan *L) { return L->recorded; }
const mcb_run_item *mcb_plan_item(const mcb_plan *L, int k) { return &L->items[k]; }

void mcb_plan_free(mcb_plan **Lp)
{
    if (!Lp || !*Lp) return;
    mcb_plan *L = *Lp;
    mcb_journal_close(&L->journal);
    mcb_results_src_close(&L->old);
    mcb_metrics_ws_free(&L->ws);
    for (int s = 0; L->warm && s < L->nconfig; s++) {
        free(L->warm[s].v);
        free(L->warm[s].lambda);
        free(L->warm[s].v0);
        free(L->warm[s].lambda0);
    }
    free(L->warm);
    for (int k = 0; L->seeds && k < L->total; k++) {
        free(L->seeds[k].v);
        free(L->seeds[k].lambda);
    }
    free(L->seeds);
    free(L->items);
    free(L->tally);
    for (int s = 0; L->config && s < L->nconfig; s++) free(L->config[s]);
    free(L->config);
    free(L);
    *Lp = NULL;
}

static int selected(const mcb_campaign *C, const char *set, const char *name)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", set, name);
    int in = C->ninclude == 0;
    for (int k = 0; k < C->ninclude && !in; k++)
        in = !fnmatch(C->include[k], name, 0) || !fnmatch(C->include[k], full, 0);
    for (int k = 0; k < C->nexclude && in; k++)
        in = fnmatch(C->exclude[k], name, 0) && fnmatch(C->exclude[k], full, 0);
    return in;
}

/* Estimated cost of a run: the stored size of its problem (every solver
 * touches every nonzero per iteration). */
static double problem_cost(const mcb_problem *P)
{
    double nnz = 0;
    const mcb_csc *M[3] = {P->A, P->J, P->W};
    for (int k = 0; k < 3; k++)
        if (M[k]) nnz += M[k]->p[M[k]->n];
    return nnz + P->n + P->m + 1.0;
}

static int by_cost_desc(const void *a, const void *b)
{
    const mcb_run_item *x = a, *y = b;
    if (x->cost != y->cost) return x->cost < y->cost ? 1 : -1;
    return (x->index > y->index) - (x->index < y->index);
}

static int by_index(const void *a, const void *b)
{
    const mcb_run_item *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* Shard `shard` of n: runs in decreasing estimated cost, each to the shard
 * with the least cost so far (ties to the lowest shard): deterministic for
 * a given run list. */
static int keep_shard(mcb_run_item *items, int count, int shard, int n)
{
    double *load = calloc((size_t)n, sizeof *load);
    if (!load) return -1;
    qsort(items, (size_t)count, sizeof *items, by_cost_desc);
    int kept = 0;
    for (int k = 0; k < count; k++) {
        int best = 0;
        for (int j = 1; j < n; j++)
            if (load[j] < load[best]) best = j;
        load[best] += items[k].cost;
        if (best == shard) items[kept++] = items[k];
    }
    free(load);
    qsort(items, (size_t)kept, sizeof *items, by_index);
    return kept;
}

static char *config_words(const mcb_campaign_opts *o, const mcb_solver_choice *ch,
                          const mcb_batch_def *batch)
{
    char buf[4096];
    mcb_settings_words(o, buf, sizeof buf);
    size_t off = strlen(buf);
    off += (size_t)snprintf(buf + off, sizeof buf - off, " solver=%s", ch->def->name);
    if (batch)
        off += (size_t)snprintf(buf + off, sizeof buf - off, " batch=%s batch.check_every=%d",
                                batch->name, mcb_batch_check_stride(o));
    void *defaults = NULL;
    const void *params = ch->params;
    if (!params) {
        defaults = calloc(1, ch->def->params_size + sizeof(double));
        if (!defaults) return NULL;
        ch->def->default_params(defaults);
        params = defaults;
    }
    for (int k = 0; k < ch->def->nparams && off < sizeof buf; k++) {
        char v[64];
        mcb_param_format(ch->def, params, k, v, sizeof v);
        off += (size_t)snprintf(buf + off, sizeof buf - off, " %s.%s=%s", ch->def->name,
                                ch->def->params[k].name, v);
    }
    free(defaults);
    return mcb_strdup(buf);
}

/* A run's solution a next step may start from (--warm-start own): its
 * status says it returned one, and every entry is finite. */
static int usable_solution(const mcb_run_rec *r)
{
    int st = r->status;
    int usable = (st == MCB_ST_SOLVED || st == MCB_ST_MAX_ITERS || st == MCB_ST_TIME_LIMIT ||
                  st == MCB_ST_STALLED) &&
                 (r->v || r->n == 0) && r->lambda;
    for (int k = 0; usable && k < r->n; k++) usable = isfinite(r->v[k]);
    for (int k = 0; usable && k < r->m; k++) usable = isfinite(r->lambda[k]);
    return usable;
}

/* The chain's state from record r (of problem p of input f): its
 * solution taken over when usable. */
static void chain_take(warm_chain *w, int f, int p, mcb_run_rec *r)
{
    w->f = f;
    w->p = p;
    w->n = r->n;
    w->m = r->m;
    w->usable = usable_solution(r);
    free(w->v);
    free(w->lambda);
    w->v = w->usable ? r->v : NULL;
    w->lambda = w->usable ? r->lambda : NULL;
    if (w->usable) r->v = r->lambda = NULL; /* the chain owns them now */
}

/* The full-list index of (input f, problem p, solver s, repetition rep). */
static int run_index_of(const mcb_campaign *C, int f, int p, int s, int rep)
{
    int index = 0;
    for (int g = 0; g < f; g++) index += C->in[g].problems->count * C->nsolvers * C->o->repeat;
    return index + (p * C->nsolvers + s) * C->o->repeat + rep;
}

/* The selected problem before p in input f (the one a solver ran just
 * before p), or -1. */
static int prev_selected(const mcb_campaign *C, int f, int p)
{
    const mcb_input *in = &C->in[f];
    for (int q = p - 1; q >= 0; q--)
        if (selected(C, in->set_name, in->problems->items[q]->name)) return q;
    return -1;
}

/* The item of the full run list a record names, or -1. */
static int item_of(const mcb_campaign *C, const mcb_run_rec *r)
{
    int index = 0;
    for (int f = 0; f < C->nin; f++) {
        int np = C->in[f].problems->count, per = np * C->nsolvers * C->o->repeat;
        if (strcmp(C->in[f].set_name, r->problem_set)) {
            index += per;
            continue;
        }
        if (r->problem_index >= np || r->rep >= C->o->repeat ||
            strcmp(C->in[f].problems->items[r->problem_index]->name, r->problem))
            return -1;
        for (int s = 0; s < C->nsolvers; s++)
            if (!strcmp(C->solvers[s].def->name, r->solver))
                return index + (r->problem_index * C->nsolvers + s) * C->o->repeat + r->rep;
        return -1;
    }
    return -1;
}

/* Marks the runs a source holds as done; a run recorded with another
 * configuration is an error naming the difference. */
static mcb_rc mark_recorded(const mcb_campaign *C, mcb_plan *L, mcb_results_src *S,
                            unsigned char *done, mcb_err *err)
{
    const mcb_results_data *D = mcb_results_src_ctx(S);
    for (int k = 0; k < D->count; k++) {
        mcb_run_rec r;
        mcb_rc rc = mcb_results_src_run(S, k, &r, err);
        if (rc) return rc;
        int i = item_of(C, &r);
        if (i >= 0) {
            int s = (i / C->o->repeat) % C->nsolvers;
            char diff[512];
            if (mcb_words_differ(L->config[s], r.config, diff, sizeof diff)) {
                rc = mcb_fail(err, MCB_E_INPUT,
                              "--resume %s: run %s/%s %s rep %d was recorded with other budgets "
                              "or parameters: %s (\"here\" is this command line, \"there\" "
                              "the recorded run); resume with the original options, or write "
                              "to a new results file",
                              C->h5_path, r.problem_set, r.problem, r.solver, r.rep, diff);
                mcb_rec_free(&r);
                return rc;
            }
            if (!done[i]) L->recorded++;
            done[i] = 1;
        }
        mcb_rec_free(&r);
    }
    return MCB_OK;
}

static mcb_rc load_recorded(const mcb_campaign *C, mcb_plan *L, unsigned char *done,
                            mcb_err *err)
{
    char jpath[4200];
    mcb_journal_path(C->h5_path, jpath, sizeof jpath);
    struct stat st;
    int have_h5 = stat(C->h5_path, &st) == 0, have_j = stat(jpath, &st) == 0;
    if (!have_h5 && !have_j)
        return mcb_fail(err, MCB_E_INPUT,
                        "--resume %s: neither the results file nor its journal %s exists",
                        C->h5_path, jpath);
    mcb_rc rc = MCB_OK;
    if (have_h5) {
        rc = mcb_results_src_open(C->h5_path, &L->old, err);
        if (!rc) rc = mark_recorded(C, L, L->old, done, err);
    }
    if (!rc && have_j) {
        mcb_results_src *J = NULL;
        rc = mcb_results_src_open(jpath, &J, err);
        if (!rc) rc = mark_recorded(C, L, J, done, err);
        if (!rc) {
            L->old_journal = 1;
            /* the prefix of whole records: a torn tail is cut on reopening */
            mcb_journal_index *X = NULL;
            rc = mcb_journal_load(jpath, &X, err);
            if (!rc) L->journal_valid = X->valid_len;
            mcb_journal_index_free(&X);
        }
        mcb_results_src_close(&J);
    }
    return rc;
}

/* Keeps the records of source `path` whose index is wanted as seeds. */
static mcb_rc seeds_from(const mcb_campaign *C, mcb_plan *L, const char *path,
                         const unsigned char *want, mcb_err *err)
{
    mcb_results_src *S = NULL;
    mcb_rc rc = mcb_results_src_open(path, &S, err);
    int count = rc ? 0 : mcb_results_src_ctx(S)->count;
    for (int k = 0; k < count && !rc; k++) {
        mcb_run_rec r;
        if ((rc = mcb_results_src_run(S, k, &r, err))) break;
        int i = item_of(C, &r);
        if (i >= 0 && want[i]) {
            int f = 0, base = 0, per;
            while ((per = C->in[f].problems->count * C->nsolvers * C->o->repeat) <= i - base) {
                base += per;
                f++;
            }
            chain_take(&L->seeds[i], f, r.problem_index, &r);
        }
        mcb_rec_free(&r);
    }
    mcb_results_src_close(&S);
    return rc;
}

/* --warm-start own on --resume: the runs left whose previous step was
 * recorded by an earlier process start from that recorded solution (the
 * solutions are saved under own), read from the results file and the
 * journal; so a resumed campaign starts every step where one process
 * would have. */
static mcb_rc warm_seeds(const mcb_campaign *C, mcb_plan *L, const unsigned char *done,
                         mcb_err *err)
{
    unsigned char *want = calloc((size_t)L->total + 1, 1);
    if (!want) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int any = 0;
    for (int k = 0; k < L->count; k++) {
        const mcb_run_item *it = &L->items[k];
        int q = prev_selected(C, it->f, it->p);
        int i = q < 0 ? -1 : run_index_of(C, it->f, q, it->s, 0);
        if (i >= 0 && done[i]) want[i] = any = 1;
    }
    mcb_rc rc = MCB_OK;
    if (any && !(L->seeds = calloc((size_t)L->total + 1, sizeof *L->seeds)))
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int k = 0; any && !rc && k < L->total; k++) L->seeds[k].f = -1;
    char jpath[4200];
    mcb_journal_path(C->h5_path, jpath, sizeof jpath);
    if (any && !rc && L->old) rc = seeds_from(C, L, C->h5_path, want, err);
    if (any && !rc && L->old_journal) rc = seeds_from(C, L, jpath, want, err);
    free(want);
    return rc;
}

mcb_rc mcb_campaign_check_warm(const mcb_campaign *C, mcb_err *err)
{
    const mcb_campaign_opts *o = C->o;
    if (o->settings.warm_start < MCB_WARM_NONE || o->settings.warm_start > MCB_WARM_OWN)
        return mcb_fail(err, MCB_E_INPUT, "warm start mode %d is not none, recorded or own",
                        o->settings.warm_start);
    if (o->settings.warm_start != MCB_WARM_OWN) return MCB_OK;
    const char *why = C->loop       ? "a closed loop (each step already starts from the "
                                      "solver's own previous step)"
                      : C->nshards ? "--shard (a shard holds steps whose previous step another "
                                     "shard solves; split the campaign by input file instead)"
                      : C->mpi     ? "--mpi (ranks solve steps of one trajectory at the same "
                                     "time; run it without --mpi, or split it by input file)"
                      : !o->save_solutions ? "without saving the solutions (each step's "
                                             "solution is what the next one starts from)"
                                           : NULL;
    return why ? mcb_fail(err, MCB_E_INPUT, "--warm-start own cannot be combined with %s", why)
               : MCB_OK;
}

mcb_rc mcb_plan_make(const mcb_campaign *C, mcb_plan **out, mcb_err *err)
{
    *out = NULL;
    mcb_plan *L = calloc(1, sizeof *L);
    if (!L) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    L->ws_f = L->ws_p = -1;
    for (int f = 0; f < C->nin; f++) L->total += C->in[f].problems->count;
    L->total *= C->nsolvers * C->o->repeat;
    L->items = mcb_calloc((size_t)L->total + 1, sizeof *L->items);
    L->config = calloc((size_t)C->nsolvers + 1, sizeof *L->config);
    L->nconfig = C->nsolvers;
    unsigned char *done = calloc((size_t)L->total + 1, 1);
    mcb_rc rc = mcb_campaign_check_warm(C, err);
    if (!rc && C->o->settings.warm_start == MCB_WARM_OWN) {
        L->warm = calloc((size_t)C->nsolvers + 1, sizeof *L->warm);
        for (int s = 0; L->warm && s < C->nsolvers; s++) L->warm[s].f = L->warm[s].start_f = -1;
    }
    if (!rc && (!L->items || !L->config || !done ||
                (C->o->settings.warm_start == MCB_WARM_OWN && !L->warm)))
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc && C->batch && !(L->tally = calloc((size_t)C->nsolvers, sizeof *L->tally)))
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    for (int s = 0; s < C->nsolvers && !rc; s++)
        if (!(L->config[s] = config_words(C->solvers[s].opts ? C->solvers[s].opts : C->o,
                                          &C->solvers[s], C->batch ? C->batch[s] : NULL)))
            rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int index = 0;
    for (int f = 0; f < C->nin && !rc; f++)
        for (int p = 0; p < C->in[f].problems->count; p++) {
            const mcb_problem *P = C->in[f].problems->items[p];
            int sel = selected(C, C->in[f].set_name, P->name);
            for (int s = 0; s < C->nsolvers; s++)
                for (int rep = 0; rep < C->o->repeat; rep++, index++)
                    if (sel)
                        L->items[L->count++] =
                            (mcb_run_item){f, p, s, rep, index, problem_cost(P)};
        }
    if (!rc && L->count == 0 && (C->ninclude || C->nexclude))
        rc = mcb_fail(err, MCB_E_INPUT, "--problems/--exclude select no problem of the inputs");
    if (!rc && C->nshards > 0 &&
        (L->count = keep_shard(L->items, L->count, C->shard, C->nshards)) < 0)
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc && C->resume) rc = load_recorded(C, L, done, err);
    if (!rc) {
        int kept = 0;
        for (int k = 0; k < L->count; k++)
            if (!done[L->items[k].index]) L->items[kept++] = L->items[k];
        L->count = kept;
    }
    if (!rc && C->resume && L->warm) rc = warm_seeds(C, L, done, err);
    /* nshards/resume: L->total stays the full list (recorded in the context) */
    free(done);
    if (rc) mcb_plan_free(&L);
    *out = L;
    return rc;
}

/* ------------------------------------------------------------- execution */

static int wants_isolation(const mcb_campaign *C, const mcb_solver_def *def)
{
    if (C->isolate == MCB_ISOLATE_ALWAYS) return 1;
    if (C->isolate == MCB_ISOLATE_NEVER) return 0;
    /* auto: what mcbench cannot vouch for runs in a child: a black box, a
     * plugin (a runtime addition) and a def from outside the registry */
    return def->black_box || (!mcb_solver_is_builtin(def) && !mcb_whole_step_is(def));
}

typedef struct {
    const mcb_campaign *C;
    const mcb_plan *L;
    const mcb_run_item *it;
    mcb_metrics_ws *ws;
    mcb_buf *framed;
    int fd; /* isolated: the memory file the child writes the record to */
    const mcb_problem *P; /* what the solver receives: the item's problem, or under
                             --warm-start own a view of it with the chain's start */
    int start;            /* MCB_START_* */
} exec_ctx;

/* ---------------------------------------------------- --warm-start own */

static int same_text(const char *a, const char *b) { return !strcmp(a ? a : "", b ? b : ""); }

/* Q is the step just before P in one recorded trajectory: the next step
 * index of the same scene and source (mcbench gen writes both). */
static int is_next_step(const mcb_problem *Q, const mcb_problem *P)
{
    return Q->step + 1 == P->step && same_text(Q->scene, P->scene) &&
           same_text(Q->source, P->source) && Q->form == P->form;
}

/* The same constraint blocks row for row (kinds and sizes): a problem
 * carries no contact keys, so this is when lambda can be carried over. */
static int same_blocks(const mcb_problem *Q, const mcb_problem *P)
{
    if (Q->m != P->m || Q->nblocks != P->nblocks) return 0;
    for (int b = 0; b < P->nblocks; b++)
        if (Q->blocks[b].type != P->blocks[b].type || Q->blocks[b].nrows != P->blocks[b].nrows)
            return 0;
    return 1;
}

/* Copies x (len entries; NULL: none) into *buf, grown as needed. */
static int keep_copy(double **buf, const double *x, int len)
{
    free(*buf);
    *buf = NULL;
    if (!x) return 0;
    *buf = malloc((size_t)(len > 0 ? len : 1) * sizeof **buf);
    if (!*buf) return -1;
    if (len > 0) memcpy(*buf, x, (size_t)len * sizeof **buf);
    return 0;
}

/* Where the run of item `it` starts: *Q is the problem it solves (a
 * shallow view of the item's problem whose v0, lambda0 point at the
 * chain's start under own; the problem itself otherwise). The start is
 * made once per problem and kept for its repetitions; made here, before
 * the run, its copying is no part of any solver time. */
static mcb_rc warm_prepare(const mcb_campaign *C, mcb_plan *L, const mcb_run_item *it,
                           mcb_problem *Q, int *start, mcb_err *err)
{
    const mcb_problem *P = C->in[it->f].problems->items[it->p];
    int mode = C->o->settings.warm_start, has_init = P->v0 || P->lambda0;
    *Q = *P;
    *start = mode == MCB_WARM_NONE || !has_init ? MCB_START_ZERO : MCB_START_RECORDED;
    if (mode != MCB_WARM_OWN) return MCB_OK;
    warm_chain *w = &L->warm[it->s];
    if (w->start_f != it->f || w->start_p != it->p) {
        int q = prev_selected(C, it->f, it->p);
        warm_chain *seed =
            q >= 0 && L->seeds ? &L->seeds[run_index_of(C, it->f, q, it->s, 0)] : NULL;
        if (q >= 0 && (w->f != it->f || w->p != q) && seed && seed->f >= 0) {
            /* resumed: the previous step was recorded by an earlier process */
            mcb_run_rec r = {.n = seed->n, .m = seed->m, .v = seed->v, .lambda = seed->lambda,
                             .status = seed->usable ? MCB_ST_SOLVED : MCB_ST_DIVERGED};
            chain_take(w, it->f, q, &r);
            seed->v = seed->lambda = NULL;
            seed->f = -1;
        }
        const mcb_problem *prev =
            q >= 0 && w->f == it->f && w->p == q ? C->in[it->f].problems->items[q] : NULL;
        w->start_f = it->f;
        w->start_p = it->p;
        w->start = *start;
        int bad = 0;
        if (prev && is_next_step(prev, P)) {
            /* the previous step: its solution, or the recorded guess when it has none */
            w->start = w->usable && w->n == P->n ? MCB_START_OWN : MCB_START_FALLBACK;
            if (w->start == MCB_START_OWN && !same_blocks(prev, P)) w->start = MCB_START_OWN_V;
            int own = w->start == MCB_START_OWN, own_v = own || w->start == MCB_START_OWN_V;
            bad = keep_copy(&w->v0, own_v ? w->v : P->v0, P->n) ||
                 keep_copy(&w->lambda0, own ? w->lambda : P->lambda0, P->m);
        } else {
            bad = keep_copy(&w->v0, P->v0, P->n) || keep_copy(&w->lambda0, P->lambda0, P->m);
        }
        if (bad) {
            w->start_f = -1;
            return mcb_fail(err, MCB_E_NOMEM, "out of memory");
        }
    }
    *start = w->start;
    Q->v0 = w->v0;
    Q->lambda0 = w->lambda0;
    return MCB_OK;
}

/* After the first repetition of an item under own: its solution (from the
 * framed record, in-process or handed back by an isolated child) becomes
 * the solver's chain state; a run that returned none, or a non-finite
 * one, leaves the next step to its recorded guess (MCB_START_FALLBACK). */
static mcb_rc warm_keep(mcb_plan *L, const mcb_run_item *it, const mcb_buf *framed,
                        mcb_err *err)
{
    if (!L->warm || it->rep != 0) return MCB_OK;
    mcb_run_rec r;
    mcb_rc rc = mcb_unframe_run(framed, "the run just made", &r, err);
    if (rc) return rc;
    chain_take(&L->warm[it->s], it->f, it->p, &r);
    mcb_rec_free(&r);
    return MCB_OK;
}

/* The closed-loop instance of problem p of input f (instances follow the
 * inputs' problems in order). */
static const mcb_loop_instance *loop_instance(const mcb_campaign *C, int f, int p)
{
    int off = 0;
    for (int g = 0; g < f; g++) off += C->in[g].problems->count;
    return &C->loop[off + p];
}

/* The framed record of a run of item `it`, with the machine's state
 * between two marks. */
static mcb_rc frame_run(const mcb_plan *L, const mcb_run_item *it, const mcb_run *run,
                        const mcb_machine_mark *before, const mcb_machine_mark *after,
                        mcb_buf *framed, mcb_err *err)
{
    mcb_run_rec rec;
    mcb_buf payload = {0};
    mcb_rec_view(run, it->index, L->config[it->s], &rec);
    mcb_machine_state ms;
    mcb_machine_between(before, after, (int)sysconf(_SC_NPROCESSORS_ONLN), &ms);
    rec.load_avg = ms.load_avg;
    rec.cpu_mhz = ms.cpu_mhz;
    rec.cpu_max_mhz = ms.cpu_max_mhz;
    rec.others_share = ms.others_share;
    mcb_rec_pack(&rec, &payload);
    mcb_frame(MCB_JREC_RUN, &payload, framed);
    mcb_buf_free(&payload);
    return framed->oom ? mcb_fail(err, MCB_E_NOMEM, "out of memory encoding a run") : MCB_OK;
}

static mcb_rc run_and_frame(exec_ctx *x, mcb_err *err)
{
    const mcb_campaign *C = x->C;
    const mcb_run_item *it = x->it;
    const mcb_input *in = &C->in[it->f];
    mcb_run run = {0};
    run.problem_set = in->set_name;
    run.problem = in->problems->items[it->p]->name;
    run.problem_index = it->p;
    run.solver = C->solvers[it->s].def->name;
    run.rep = it->rep;
    run.own_status = run.own_stop = -1;
    const mcb_solver_choice *ch = &C->solvers[it->s];
    const mcb_campaign_opts *o = ch->opts ? ch->opts : C->o;
    mcb_machine_mark before, after;
    mcb_machine_mark_now(&before);
    mcb_rc rc = C->loop ? mcb_loop_run(loop_instance(C, it->f, it->p), ch->def, ch->params, o, &run, err)
                        : mcb_run_one(x->P, x->ws, ch->def, ch->params, o, &run, err);
    mcb_machine_mark_now(&after);
    run.start = C->loop ? MCB_START_UNKNOWN : x->start;
    if (!rc) rc = frame_run(x->L, it, &run, &before, &after, x->framed, err);
    mcb_run_clear(&run);
    return rc;
}

/* In the isolated child: run, then hand the framed record over. */
static mcb_rc child_run(void *arg, void *shared, mcb_err *err)
{
    (void)shared;
    exec_ctx *x = arg;
    mcb_rc rc = run_and_frame(x, err);
    const char *p = x->framed->p;
    size_t n = x->framed->len;
    while (!rc && n > 0) {
        ssize_t w = write(x->fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) rc = mcb_fail(err, MCB_E_IO, "cannot hand the run back (%s)", strerror(errno));
        else {
            p += w;
            n -= (size_t)w;
        }
    }
    return rc;
}

/* The record of a run whose child did not come back. */
static void frame_lost_run(const exec_ctx *x, const mcb_isolate_report *rep, const char *why)
{
    const mcb_campaign *C = x->C;
    const mcb_run_item *it = x->it;
    const mcb_problem *P = C->in[it->f].problems->items[it->p];
    mcb_run run = {0};
    run.problem_set = C->in[it->f].set_name;
    run.problem = P->name;
    run.problem_index = it->p;
    run.solver = C->solvers[it->s].def->name;
    run.rep = it->rep;
    run.n = P->n;
    run.m = P->m;
    run.ncontacts = mcb_problem_contacts(P);
    for (int k = 0; k < MCB_NMETRICS; k++) run.final.val[k] = NAN;
    run.info.own_residual = NAN;
    run.own_status = run.own_stop = -1;
    run.info.solve_s = rep->wall_s; /* the child's wall time until it ended */
    run.info.status = rep->outcome == MCB_ISO_TIMEOUT ? MCB_ST_TIME_LIMIT : MCB_ST_CRASHED;
    run.start = C->loop ? MCB_START_UNKNOWN : x->start;
    snprintf(run.info.reason, sizeof run.info.reason, "isolated run %s", why);
    mcb_run_rec rec;
    mcb_buf payload = {0};
    mcb_rec_view(&run, it->index, x->L->config[it->s], &rec);
    mcb_rec_pack(&rec, &payload);
    mcb_frame(MCB_JREC_RUN, &payload, x->framed);
    mcb_buf_free(&payload);
}

static mcb_rc run_isolated(exec_ctx *x, mcb_err *err)
{
    const mcb_campaign *C = x->C;
    x->fd = memfd_create("mcbench-run", MFD_CLOEXEC);
    if (x->fd < 0)
        return mcb_fail(err, MCB_E_IO, "cannot create a memory file (%s)", strerror(errno));
    const mcb_solver_choice *ch = &C->solvers[x->it->s];
    double limit = (ch->opts ? ch->opts : C->o)->settings.time_limit_s;
    /* a closed-loop run is many steps, each with the limit: its child is
     * killed at 2 x limit x the reference's steps + grace */
    if (C->loop) {
        int steps = loop_instance(C, x->it->f, x->it->p)->ref_steps;
        limit *= steps > 0 ? steps : 1;
    }
    mcb_isolate_limits lim = {limit > 0 ? 2.0 * limit + C->grace_s : 0.0, C->mem_limit_mb};
    mcb_isolate_report rep;
    mcb_err cerr;
    cerr.msg[0] = '\0';
    mcb_rc rc = mcb_isolate_run(child_run, x, &lim, 0, NULL, &rep, &cerr);
    if (rep.outcome == MCB_ISO_DONE && rc) {
        /* the harness itself failed inside the child (out of memory, I/O) */
        close(x->fd);
        return mcb_fail(err, rc, "%s", cerr.msg);
    }
    if (rep.outcome == MCB_ISO_NOFORK) {
        close(x->fd);
        return mcb_fail(err, MCB_E_ISOLATED, "%s", cerr.msg);
    }
    x->framed->len = 0;
    x->framed->oom = 0;
    rc = MCB_OK; /* from here on, what happened in the child is the run's status */
    if (rep.outcome == MCB_ISO_DONE) {
        struct stat st;
        size_t n = fstat(x->fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
        char *p = n ? malloc(n) : NULL;
        if (n && !p) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        if (p && pread(x->fd, p, n, 0) == (ssize_t)n) {
            free(x->framed->p);
            x->framed->p = p;
            x->framed->len = x->framed->cap = n;
        } else {
            free(p);
        }
        if (!rc && x->framed->len == 0) {
            rep.outcome = MCB_ISO_EXITED;
            snprintf(cerr.msg, sizeof cerr.msg, "ended without handing its run back");
        }
    }
    close(x->fd);
    if (rc) return rc;
    if (rep.outcome != MCB_ISO_DONE) frame_lost_run(x, &rep, cerr.msg);
    return x->framed->oom ? mcb_fail(err, MCB_E_NOMEM, "out of memory") : MCB_OK;
}

mcb_rc mcb_execute(const mcb_campaign *C, mcb_plan *L, const mcb_run_item *it, mcb_buf *framed,
                   mcb_err *err)
{
    if (!C->loop && (L->ws_f != it->f || L->ws_p != it->p)) {
        mcb_metrics_ws_free(&L->ws);
        L->ws_f = L->ws_p = -1;
        mcb_rc rc = mcb_metrics_ws_new(C->in[it->f].problems->items[it->p], &L->ws, err);
        if (rc) return rc;
        L->ws_f = it->f;
        L->ws_p = it->p;
    }
    mcb_problem Q;
    exec_ctx x = {C, L, it, L->ws, framed, -1, &Q, MCB_START_UNKNOWN};
    framed->len = 0;
    framed->oom = 0;
    mcb_rc rc = C->loop ? MCB_OK : warm_prepare(C, L, it, &Q, &x.start, err);
    if (!rc) rc = wants_isolation(C, C->solvers[it->s].def) ? run_isolated(&x, err)
                                                            : run_and_frame(&x, err);
    if (!rc && !C->loop) rc = warm_keep(L, it, framed, err);
    return rc;
}

/* ---------------------------------------------------------------- batches */

typedef struct {
    int n;
    const mcb_problem **P;
    mcb_metrics_ws **ws;
    mcb_run *runs;
    const mcb_run_item **items;
} batch_runs;

static void batch_runs_free(batch_runs *b)
{
    for (int j = 0; b->runs && j < b->n; j++) mcb_run_clear(&b->runs[j]);
    for (int j = 0; b->ws && j < b->n; j++) mcb_metrics_ws_free(&b->ws[j]);
    free(b->P);
    free(b->ws);
    free(b->runs);
    free(b->items);
}

/* The runs of choice s, repetition rep, left in the plan, with a metrics
 * workspace each (they are judged concurrently). */
static mcb_rc batch_gather(const mcb_campaign *C, const mcb_plan *L, int s, int rep,
                           batch_runs *b, mcb_err *err)
{
    memset(b, 0, sizeof *b);
    for (int k = 0; k < L->count; k++) b->n += L->items[k].s == s && L->items[k].rep == rep;
    size_t n = (size_t)b->n + 1;
    b->P = calloc(n, sizeof *b->P);
    b->ws = calloc(n, sizeof *b->ws);
    b->runs = calloc(n, sizeof *b->runs);
    b->items = calloc(n, sizeof *b->items);
    if (!b->P || !b->ws || !b->runs || !b->items) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int j = 0;
    for (int k = 0; k < L->count; k++) {
        const mcb_run_item *it = &L->items[k];
        if (it->s != s || it->rep != rep) continue;
        const mcb_input *in = &C->in[it->f];
        const mcb_problem *P = in->problems->items[it->p];
        mcb_rc rc = mcb_metrics_ws_new(P, &b->ws[j], err);
        if (rc) return rc;
        mcb_run *r = &b->runs[j];
        r->problem_set = in->set_name;
        r->problem = P->name;
        r->problem_index = it->p;
        r->solver = C->solvers[s].def->name;
        r->rep = rep;
        int warm = C->o->settings.warm_start != MCB_WARM_NONE && (P->v0 || P->lambda0);
        r->start = warm ? MCB_START_RECORDED : MCB_START_ZERO;
        b->P[j] = P;
        b->items[j++] = it;
    }
    return MCB_OK;
}

/* One batch (choice s, repetition rep): solved in one call, each problem
 * framed and recorded as a run; *done counts the runs recorded. */
static mcb_rc run_batch(const mcb_campaign *C, mcb_plan *L, int s, int rep, int *done,
                        mcb_buf *framed, mcb_err *err)
{
    const mcb_solver_choice *ch = &C->solvers[s];
    const mcb_campaign_opts *o = ch->opts ? ch->opts : C->o;
    const mcb_batch_def *bd = C->batch[s];
    batch_runs b;
    mcb_rc rc = batch_gather(C, L, s, rep, &b, err);
    if (rc || !b.n) {
        batch_runs_free(&b);
        return rc;
    }
    mcb_batch_summary sum;
    mcb_machine_mark before, after;
    mcb_machine_mark_now(&before);
    rc = mcb_batch_run(b.P, (mcb_metrics_ws *const *)b.ws, b.n, bd, ch->params, o, b.runs,
                       &sum, err);
    mcb_machine_mark_now(&after);
    for (int j = 0; j < b.n && !rc; j++) {
        rc = frame_run(L, b.items[j], &b.runs[j], &before, &after, framed, err);
        if (!rc) rc = mcb_campaign_record(C, L, framed, ++*done, L->count, err);
    }
    if (!rc && L->tally) {
        L->tally[s].setup_s += sum.setup_s;
        L->tally[s].solve_s += sum.solve_s;
    }
    if (!rc)
        fprintf(stderr, "mcbench: batch %s: %d problems in one call on %d threads, %d solved; "
                        "setup %.4g s, solve %.4g s, judging %.4g s (excluded); throughput "
                        "%.6g problems/s\n",
                ch->def->name, b.n, o->settings.threads, sum.solved, sum.setup_s, sum.solve_s,
                sum.measure_s, sum.throughput);
    batch_runs_free(&b);
    return rc;
}

/* ---------------------------------------------------- journal and results */

static void progress(int tty, int done, int total, const mcb_run_rec *r)
{
    if (tty) {
        int width = 30, fill = total ? done * width / total : width;
        fprintf(stderr, "\r[%.*s%*s] %d/%d %-10s %-28.28s", fill,
                "##############################", width - fill, "", done, total, r->solver,
                r->problem);
        if (done == total) fputc('\n', stderr);
    } else {
        fprintf(stderr, "mcbench: %d/%d %s %s %s: %s, %d iterations, %.3g s, %s %.3g\n", done,
                total, r->problem_set, r->problem, r->solver, mcb_status_name(r->status),
                r->iterations, r->setup_s + r->solve_s, "natmap", r->final.val[MCB_M_NATMAP]);
    }
}

/* The results' record of where the problems came from (mcb_results.h:
 * mcb_results_data.inputs); NULL when out of memory. */
static char *inputs_record(const mcb_campaign *C)
{
    size_t len = 1;
    char *out = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        for (int f = 0; f < C->nin; f++) {
            const mcb_input *in = &C->in[f];
            int w = snprintf(out ? out + at : NULL, out ? len - at : 0, "%s\t%s\t%s\t%s\n",
                             in->set_name ? in->set_name : "", in->kind ? in->kind : "mcbench",
                             in->sha256 && *in->sha256 ? in->sha256 : "-",
                             in->path ? in->path : "-");
            if (w < 0) {
                free(out);
                return NULL;
            }
            at += (size_t)w;
        }
        if (!out) {
            len = at + 1;
            if (!(out = malloc(len))) return NULL;
            out[0] = '\0';
        }
    }
    return out;
}

/* The context of this campaign's journal and results file. */
static mcb_rc campaign_context(const mcb_campaign *C, const mcb_plan *L, mcb_results_data *ctx,
                               mcb_err *err)
{
    mcb_rc rc = mcb_results_context(C->command, C->o, L->total, ctx, err);
    if (!rc && !(ctx->inputs = inputs_record(C))) {
        mcb_results_ctx_free(ctx);
        rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    return rc;
}

mcb_rc mcb_campaign_begin(const mcb_campaign *C, mcb_plan *L, mcb_err *err)
{
    char jpath[4200];
    mcb_journal_path(C->h5_path, jpath, sizeof jpath);
    if (L->old_journal) return mcb_journal_reopen(jpath, L->journal_valid, &L->journal, err);
    mcb_results_data ctx;
    mcb_rc rc = campaign_context(C, L, &ctx, err);
    if (rc) return rc;
    rc = mcb_journal_create(jpath, &ctx, &L->journal, err);
    mcb_results_ctx_free(&ctx);
    return rc;
}

/* A recorded run into its choice's tally: a batch's times are its own
 * (run_batch), a one-by-one run's are summed. */
static void tally(const mcb_campaign *C, mcb_plan *L, const mcb_run_rec *r)
{
    for (int s = 0; L->tally && s < C->nsolvers; s++) {
        if (strcmp(C->solvers[s].def->name, r->solver)) continue;
        batch_tally *t = &L->tally[s];
        t->runs++;
        t->solved += r->status == MCB_ST_SOLVED;
        if (!C->batch[s]) {
            t->setup_s += r->setup_s;
            t->solve_s += r->solve_s;
        }
        return;
    }
}

/* The throughput table of a campaign with batched choices: each choice's
 * problems solved to the tolerance per second of solve time, and each
 * batch's ratio to the one-by-one choice of its base solver. */
static void throughput_table(const mcb_campaign *C, const mcb_plan *L)
{
    if (!L->tally) return;
    fprintf(stderr, "mcbench: throughput (problems solved to the tolerance per second of solve "
                    "time; setup apart; %d threads)\n"
                    "  %-22s %-10s %8s %8s %10s %10s %12s %9s\n",
            C->o->settings.threads, "solver", "mode", "problems", "solved", "setup_s", "solve_s",
            "problems/s", "ratio");
    for (int s = 0; s < C->nsolvers; s++) {
        const batch_tally *t = &L->tally[s];
        double tp = t->solve_s > 0 ? t->solved / t->solve_s : 0.0;
        char ratio[32] = "";
        for (int b = 0; C->batch[s] && b < C->nsolvers; b++) {
            const batch_tally *u = &L->tally[b];
            if (C->batch[b] || C->solvers[b].def != C->batch[s]->base || u->solve_s <= 0) continue;
            double one = u->solved / u->solve_s;
            if (one > 0) snprintf(ratio, sizeof ratio, "%.3gx", tp / one);
        }
        fprintf(stderr, "  %-22s %-10s %8d %8d %10.4g %10.4g %12.6g %9s\n",
                C->solvers[s].def->name, C->batch[s] ? "batch" : "one-by-one", t->runs, t->solved,
                t->setup_s, t->solve_s, tp, ratio);
    }
}

mcb_rc mcb_campaign_record(const mcb_campaign *C, mcb_plan *L, const mcb_buf *framed, int done,
                           int total, mcb_err *err)
{
    mcb_rc rc = mcb_journal_append(L->journal, framed, err);
    if (rc) return rc;
    mcb_run_rec r;
    mcb_err perr;
    /* the payload lies between the 16-byte frame head and the 4-byte CRC */
    if (framed->len > 20 &&
        !mcb_rec_unpack(framed->p + 16, framed->len - 20, "run", &r, &perr)) {
        progress(C->tty, done, total, &r);
        tally(C, L, &r);
        mcb_rec_free(&r);
    }
    return MCB_OK;
}

typedef struct {
    mcb_pick pick;
    long position; /* in the run list (runs it does not name: after it) */
    int key_item;  /* the item of the run list, or -1 */
} ordered_pick;

static int by_position(const void *a, const void *b)
{
    const ordered_pick *x = a, *y = b;
    return (x->position > y->position) - (x->position < y->position);
}

/* Marks in `want` (one flag per problem of every input, in order) the
 * problem a record names. */
static void mark_problem(const mcb_campaign *C, const mcb_run_rec *r, unsigned char *want)
{
    for (int f = 0, off = 0; f < C->nin; off += C->in[f++].problems->count) {
        const mcb_problem_set *S = C->in[f].problems;
        if (strcmp(C->in[f].set_name, r->problem_set) || r->problem_index >= S->count) continue;
        if (!strcmp(S->items[r->problem_index]->name, r->problem)) want[off + r->problem_index] = 1;
        return;
    }
}

/* The difficulty descriptors (describe.h) of every problem with a run in
 * the results, once, after the runs (never inside a solver's time), into
 * ctx->desc (borrowed names). --describe never: none. */
static mcb_rc describe_problems(const mcb_campaign *C, const unsigned char *want, int nwant,
                                mcb_results_data *ctx, mcb_err *err)
{
    if (C->describe_never) return MCB_OK;
    int n = 0;
    for (int k = 0; k < nwant; k++) n += want[k];
    if (n == 0) return MCB_OK;
    mcb_problem_desc *d = mcb_calloc((size_t)n, sizeof *d);
    if (!d) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    double t0 = mcb_now_s();
    mcb_rc rc = MCB_OK;
    int k = 0;
    for (int f = 0, off = 0; f < C->nin && !rc; off += C->in[f++].problems->count)
        for (int p = 0; p < C->in[f].problems->count && !rc; p++) {
            if (!want[off + p]) continue;
            const mcb_problem *P = C->in[f].problems->items[p];
            d[k].problem_set = (char *)C->in[f].set_name;
            d[k].problem = P->name;
            rc = mcb_describe(P, NULL, &d[k++].d, err);
        }
    if (rc) {
        free(d);
        return rc;
    }
    ctx->desc = d;
    ctx->ndesc = n;
    ctx->desc_borrowed = 1;
    fprintf(stderr, "mcbench: descriptors of %d problem(s) in %.2f s (not in any run's time)\n",
            n, mcb_now_s() - t0);
    return MCB_OK;
}

mcb_rc mcb_campaign_finish(const mcb_campaign *C, mcb_plan *L, mcb_err *err)
{
    char jpath[4200];
    mcb_journal_path(C->h5_path, jpath, sizeof jpath);
    mcb_journal_close(&L->journal);
    mcb_results_src *J = NULL;
    mcb_rc rc = mcb_results_src_open(jpath, &J, err);
    if (rc) return rc;
    mcb_results_src *srcs[2] = {L->old, J};
    int n = 0;
    for (int k = 0; k < 2; k++) n += srcs[k] ? mcb_results_src_ctx(srcs[k])->count : 0;
    ordered_pick *op = mcb_calloc((size_t)n + 1, sizeof *op);
    mcb_pick *picks = mcb_calloc((size_t)n + 1, sizeof *picks);
    unsigned char *seen = calloc((size_t)L->total + 1, 1);
    int nwant = 0;
    for (int f = 0; f < C->nin; f++) nwant += C->in[f].problems->count;
    unsigned char *want = calloc((size_t)nwant + 1, 1);
    if (!op || !picks || !seen || !want) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int np = 0;
    for (int k = 0; k < 2 && !rc; k++) {
        if (!srcs[k]) continue;
        int count = mcb_results_src_ctx(srcs[k])->count;
        for (int i = 0; i < count && !rc; i++) {
            mcb_run_rec r;
            if ((rc = mcb_results_src_run(srcs[k], i, &r, err))) break;
            int item = item_of(C, &r);
            mark_problem(C, &r, want);
            /* a run recorded twice (a resume after a kill between writing
             * the results file and removing the journal) is kept once */
            if (item < 0 || !seen[item]) {
                if (item >= 0) seen[item] = 1;
                op[np].pick = (mcb_pick){srcs[k], i};
                op[np].position = item >= 0 ? item : (long)L->total + r.run_index;
                op[np].key_item = item;
                np++;
            }
            mcb_rec_free(&r);
        }
    }
    if (!rc) {
        qsort(op, (size_t)np, sizeof *op, by_position);
        for (int k = 0; k < np; k++) picks[k] = op[k].pick;
        /* the context: this campaign's, with the full run list's size */
        mcb_results_data ctx;
        rc = campaign_context(C, L, &ctx, err);
        if (!rc) rc = describe_problems(C, want, nwant, &ctx, err);
        if (!rc) rc = mcb_results_write(C->h5_path, C->csv_path, &ctx, picks, np, err);
        if (ctx.desc_borrowed) free(ctx.desc);
        ctx.desc = NULL;
        ctx.ndesc = 0;
        mcb_results_ctx_free(&ctx);
    }
    free(op);
    free(picks);
    free(seen);
    free(want);
    mcb_results_src_close(&J);
    if (!rc) unlink(jpath);
    return rc;
}

mcb_rc mcb_campaign_run(const mcb_campaign *C, mcb_err *err)
{
    mcb_plan *L = NULL;
    mcb_rc rc = mcb_plan_make(C, &L, err);
    if (rc) return rc;
    if (C->resume)
        fprintf(stderr, "mcbench: resuming %s: %d runs recorded, %d to run\n", C->h5_path,
                mcb_plan_recorded(L), L->count);
    rc = mcb_campaign_begin(C, L, err);
    mcb_buf framed = {0};
    int done = 0;
    /* batched choices first, one batch per repetition, then the others */
    for (int s = 0; s < C->nsolvers && !rc; s++)
        for (int rep = 0; C->batch && C->batch[s] && rep < C->o->repeat && !rc; rep++)
            rc = run_batch(C, L, s, rep, &done, &framed, err);
    for (int k = 0; k < L->count && !rc; k++) {
        if (C->batch && C->batch[L->items[k].s]) continue;
        rc = mcb_execute(C, L, &L->items[k], &framed, err);
        if (!rc) rc = mcb_campaign_record(C, L, &framed, ++done, L->count, err);
    }
    mcb_buf_free(&framed);
    if (!rc) rc = mcb_campaign_finish(C, L, err);
    if (!rc) throughput_table(C, L);
    mcb_plan_free(&L);
    return rc;
}


/* campaign.h: every problem of every input set x every selected solver x
 * every repetition (the run list), or the part of it a user selects
 * (--problems, --exclude, --shard), each run judged, isolated in a child
 * process when it asks for it, and appended to the journal as it completes;
 * at the end one results file and CSV. A killed campaign continues with
 * --resume. */
#ifndef MCB_CAMPAIGN_H
#define MCB_CAMPAIGN_H

#include "harness/batch.h"
#include "harness/context.h"
#include "harness/closed_loop.h"
#include "lib/mcb_journal.h"

typedef struct {
    const char *set_name;    /* problem set name (the file's base name) */
    mcb_problem_set *problems;
    const char *path;        /* the file it came from (NULL: made in memory) */
    const char *kind;        /* "mcbench" or "fclib" (NULL: mcbench) */
    const char *sha256;      /* an FCLIB file's digest (NULL or "": none) */
} mcb_input;

typedef struct {
    const mcb_solver_def *def;
    void *params;            /* owned by the caller; NULL: defaults */
    const mcb_campaign_opts *opts; /* this solver's budgets (NULL: the campaign's):
                                      a closed loop's per-solver budget */
} mcb_solver_choice;

/* When runs execute in a forked child (crash isolation). */
typedef enum {
    MCB_ISOLATE_AUTO = 0, /* black-box solvers and solvers not built in (plugins) */
    MCB_ISOLATE_ALWAYS,
    MCB_ISOLATE_NEVER
} mcb_isolate_mode;

typedef struct {
    const mcb_input *in;
    int nin;
    const mcb_solver_choice *solvers;
    int nsolvers;
    const mcb_campaign_opts *o;
    const char *command;   /* the command line, recorded */
    const char *h5_path, *csv_path;
    int resume;            /* continue the campaign recorded at h5_path */
    const char *const *include; /* shell globs on problem names ("set/name" too) */
    int ninclude;
    const char *const *exclude;
    int nexclude;
    int shard, nshards;    /* nshards > 0: only shard `shard` (0-based) of the run list */
    int isolate;           /* mcb_isolate_mode */
    double mem_limit_mb;   /* per isolated run, on top of what it inherits; <= 0: none */
    double grace_s;        /* isolated runs are killed at 2 x time limit + grace */
    int tty;               /* progress as a bar, else lines */
    int mpi;               /* 1: this process is rank 0 of an MPI campaign (mpi.c) */
    int describe_never;    /* 1: no problem descriptors in the results (--describe never) */
    const mcb_batch_def *const *batch; /* NULL, or one per solver choice: a non-NULL entry
                                   makes each repetition of that choice's runs one batch,
                                   every selected problem solved in one call
                                   (harness/batch.h; the choice's def names its records,
                                   the entry's base takes its params); replay only */
    const mcb_loop_instance *loop; /* closed loop (closed_loop.h): one instance per problem of
                                      the inputs, in order (a problem is its instance's
                                      first step); NULL: replay */
} mcb_campaign;

/* C->o->settings.warm_start is a mcb_warm_mode; MCB_WARM_OWN needs each
 * solver's steps of a trajectory run in order by one process that sees
 * every result, and the solutions saved: own with a closed loop, --shard,
 * --mpi or without save_solutions is MCB_E_INPUT (the campaign checks it;
 * the command line asks before any work). On --resume, a step left whose
 * previous step was recorded starts from that recorded solution. */
mcb_rc mcb_campaign_check_warm(const mcb_campaign *C, mcb_err *err);

/* The default memory limit per isolated run: half the physical memory. */
double mcb_default_mem_limit_mb(void);

/* Solver failures are statuses, never errors; an error here is the
 * harness's own (cannot write results, out of memory, a resume that does
 * not match) or bad input. Every finished run stays in the journal. */
mcb_rc mcb_campaign_run(const mcb_campaign *C, mcb_err *err);

/* ------------------------------------------------------------------------
 * The parts shared with the MPI driver (mpi.c). */

typedef struct {
    int f, p, s, rep; /* input, problem, solver, repetition */
    int index;        /* position in the full run list */
    double cost;      /* estimated cost, for balancing shards */
} mcb_run_item;

typedef struct mcb_plan mcb_plan;
/* The selected runs not yet recorded, and what is recorded already. */
mcb_rc mcb_plan_make(const mcb_campaign *C, mcb_plan **out, mcb_err *err);
int mcb_plan_count(const mcb_plan *L);
int mcb_plan_recorded(const mcb_plan *L); /* runs found recorded (resume) */
const mcb_run_item *mcb_plan_item(const mcb_plan *L, int k);
void mcb_plan_free(mcb_plan **L);

/* Executes one run (isolated when the campaign says so) and frames its
 * record (mcb_journal.h) into `framed`. */
mcb_rc mcb_execute(const mcb_campaign *C, mcb_plan *L, const mcb_run_item *it, mcb_buf *framed,
                   mcb_err *err);

/* Opens the journal (new or resumed) / records a framed run / finishes
 * the campaign into the results file. */
mcb_rc mcb_campaign_begin(const mcb_campaign *C, mcb_plan *L, mcb_err *err);
mcb_rc mcb_campaign_record(const mcb_campaign *C, mcb_plan *L, const mcb_buf *framed, int done,
                           int total, mcb_err *err);
mcb_rc mcb_campaign_finish(const mcb_campaign *C, mcb_plan *L, mcb_err *err);


#endif

/* mcb_experiment.h: experiment specs (docs/experiments.md), the declarative
 * description of one published table or figure that `mcbench reproduce`
 * regenerates: where it was published, the problems (scenes with their
 * generator arguments, a problem-set entry, or the FCLIB files a user
 * points to) and the protocol (replay or closed loop), the solvers with
 * their parameters and budgets, the layout (table rows and columns, or a
 * figure's axes and series), the published numbers with their units, the
 * verdict rules, and the explanations of the differences.
 *
 * A spec is a YAML file (experiments/NAME.yaml), read through libyaml's
 * document API; every error names the file, the line and the field
 * ("experiments/x.yaml:12: solvers[2].budget.iters: expected an integer in
 * [1, 100000000], got 'ten'"). Reading checks the spec against itself
 * (ids unique and referenced ids defined, one published value per column,
 * units that match the quantities) and, given the checks of a build
 * (mcb_xp_checks, supplied by the harness: harness/experiment.h), against
 * it (registered solvers and their parameters, scenes and their options,
 * set entries, formulations), so that a spec that reads is one that can
 * run. The format is on the ground floor, beside the results format: the
 * reports lay a spec's results out without knowing the registries. */
#ifndef MCB_EXPERIMENT_H
#define MCB_EXPERIMENT_H

#include <stddef.h>

#include "lib/mcb_error.h"

/* The protocol the problems are solved under. */
typedef enum { MCB_XP_REPLAY = 0, MCB_XP_CLOSED_LOOP } mcb_xp_protocol;
typedef enum { MCB_XP_TABLE = 0, MCB_XP_FIGURE } mcb_xp_kind;

/* A budget, every field optional (unset as marked): the spec's shared
 * budget, its --quick overrides, and a solver's own overrides, applied in
 * that order. Replay: per problem (run's --iters, --time-limit, --tol);
 * closed loop: per step (simulate's --budget iters:K,time:T,tol:X). */
typedef struct {
    int iters;           /* 0: unset */
    double time_s;       /* < 0: unset; 0: no limit (replay only) */
    double tol;          /* < 0: unset; 0: no early stop */
    char *stop;          /* stop metric (run's --stop-metric); NULL: unset */
    int repeat;          /* 0: unset */
    int threads;         /* 0: unset */
    char *check_every;   /* "auto", "never" or an integer; NULL: unset */
    char *law;           /* "ncp" or "ccp"; NULL: unset */
    char *formulation;   /* run's --formulation; NULL: unset */
    int friction_directions; /* 0: unset */
    int warm_start;      /* -1: unset; replay: the mcb_warm_mode of --warm-start (true:
                            recorded, false: none); closed loop: 0 = --cold-start */
} mcb_xp_budget;

/* A group of problems. Exactly one of scene, set (with entry) or fclib. */
typedef struct {
    int line;
    char *id, *label;
    char *scene;         /* a registered scene (mcbench gen --list) ... */
    char *args;          /* ... with its generator options ("--spheres 216 --steps 40") */
    char *quick_args;    /* under --quick (NULL: args) */
    int quick_skip;      /* 1: left out under --quick */
    char *set, *entry;   /* ... or a problem-set entry (its scene and options) */
    int fclib;           /* ... or the FCLIB files of --fclib DIR (replay only) */
    char *select;        /* replay: only problems matching this glob (run's --problems) */
    int instances;       /* closed loop: simulate's --instances K (0: one instance, unset) */
    int quick_instances; /* ... under --quick (0: instances) */
    int has_x;
    double x;            /* the group's value on a figure's "param" axis */
} mcb_xp_problems;

typedef struct {
    char *name;          /* a parameter of the solver (mcbench solvers --params) */
    double value;
} mcb_xp_param;

/* One solver configuration: a registered solver, its parameters, its
 * budget overrides. The same solver may appear in several entries. */
typedef struct {
    int line;
    char *id, *label;
    char *solver;
    int nparams;
    mcb_xp_param *params;
    mcb_xp_budget budget;       /* overrides of the spec's budget */
    mcb_xp_budget quick_budget; /* overrides under --quick, after budget */
    char *needs;                /* "gpu": runs only where the build's device query finds a
                                   device, else its cells say why (docs/reproduction.md);
                                   NULL: runs anywhere. A `needs` entry's solver may be
                                   unregistered in this build (a build without CUDA). */
} mcb_xp_solver;

/* What a cell, a series point or a claim measures over its runs
 * (docs/experiments.md, "Quantities"). */
typedef enum {
    MCB_XQ_TIME_MS = 0,    /* mean solver time, setup + solve, per problem (replay) or per step
                              (closed loop), ms */
    MCB_XQ_SETUP_MS,       /* mean setup time, same */
    MCB_XQ_ITERATIONS,     /* mean iterations per problem (per step in a closed loop) */
    MCB_XQ_INNER,          /* mean inner iterations per problem */
    MCB_XQ_UNSOLVED,       /* fraction of the runs not solved (0..1) */
    MCB_XQ_INNER_FAIL,     /* inner failures over outer iterations, summed (0..1) */
    MCB_XQ_RESIDUAL,       /* median final residual (metric: arg) */
    MCB_XQ_NEGLOG,         /* mean over runs (replay) or steps (closed loop) of -log10 of
                              the residual (metric: arg): the papers' "accuracy" */
    MCB_XQ_OUTCOME,        /* "succeeds" when every run was solved, else "fails" */
    MCB_XQ_FIT_R2,         /* figures: R^2 of the series' least-squares line */
    MCB_XQ_FIT_SLOPE,      /* figures: slope of the least-squares line of log y on log x */
    MCB_XQ_Y_AT,           /* figures: the series' y at x = arg (curves: last point <= arg) */
    MCB_XQ_Y_FINAL,        /* figures: the series' last y */
    MCB_XQ_ENGINE_MS,      /* closed loop: mean engine time per step, ms (COND's DT) */
    MCB_XQ_DEPTH_MM,       /* closed loop: mean over the steps of the depth the step leaves,
                              h x pen_max, mm (COND's MP) */
    MCB_XQ_OUTCOME_ERR,    /* closed loop: mean over the steps of |outcome - the reference
                              trajectory's outcome|, in the scene's outcome unit (COND's IE, FE) */
    MCB_XQ_OUTCOME_END,    /* closed loop: mean over the runs of the scene's outcome after the
                              last step, in its unit (an error the scene itself measures,
                              e.g. against an analytic solution: COND's Table I) */
    MCB_XQ_OUTCOME_AT,     /* closed loop: the same after step arg (0: the first step; a run
                              that ended before it does not count) */
    MCB_XQ_CONTACT_FORCE,  /* closed loop: mean over the steps of ||J_c^T lambda_c|| / h over the
                              compliant contacts, N (COND's Fig. 13, "forward") */
    MCB_XQ_INVERSE_FORCE,  /* closed loop: the same of the impulses the invertible contact model
                              gives from the velocity, N (Fig. 13, "inverse") */
    MCB_XQ_INVERSE_ERR,    /* closed loop: mean over the steps of |inverse - forward| / forward */
    MCB_XQ_STEP_MS,        /* closed loop: mean total time per step, engine + solver (setup +
                              solve), ms (COND's TT: a whole-step method's and a solver's
                              steps on one footing) */
    MCB_XQ_COUNT
} mcb_xp_quantity_id;

/* What a quantity is compared as (its verdict rule). */
typedef enum {
    MCB_XV_TIME = 0,  /* as a ratio to the reference cell, against the paper's ratio */
    MCB_XV_ACCURACY,  /* directly: -log10 values and residuals */
    MCB_XV_COUNT,     /* directly: iterations */
    MCB_XV_RATE,      /* directly: fractions */
    MCB_XV_FIT,       /* directly: R^2, slopes */
    MCB_XV_CATEGORY,  /* equal or not: outcomes */
    MCB_XV_NCLASSES
} mcb_xp_class;

typedef struct {
    char *text;               /* as written ("neglog:fb", "y_at:100") */
    mcb_xp_quantity_id id;
    char *metric;             /* RESIDUAL, NEGLOG, and curves' y: a metric name (natmap, fb, ...) */
    double arg;               /* Y_AT's x */
} mcb_xp_quantity;

/* A band: |measured - published| <= abs, or a factor: measured / published
 * (for times: the measured ratio over the published ratio) in
 * [1/factor, factor]. Exactly one of abs, factor and bound is set. */
typedef struct {
    double abs, factor;
    int bound; /* instead of abs or factor: 1, the published value is an upper bound (the
                  paper's "1e-8 or less": measured <= published); -1, a lower bound
                  (measured >= published); 0: none. Not for times. */
} mcb_xp_band;

/* A published value: a number, a category ("succeeds", "fails"), "-" (the
 * paper reports a failure), or none (not published: measured only). */
typedef enum { MCB_XP_NONE = 0, MCB_XP_NUMBER, MCB_XP_FAILED, MCB_XP_CATEGORY } mcb_xp_value_kind;
typedef struct {
    mcb_xp_value_kind kind;
    double number;
    char *category;
} mcb_xp_value;

/* One binding on a table's axis: a row or a column. A cell is the merge of
 * its row and its column: each of solver, problems and quantity is given by
 * exactly one of the two. ref names a binding on the same axis: the cell's
 * reference for time ratios (the cell with that row, or that column). */
typedef struct {
    int line;
    char *id, *label;
    char *solver;          /* a solver entry's id, or NULL */
    char *problems;        /* a problems group's id, or NULL */
    int has_quantity;
    mcb_xp_quantity quantity;
    char *unit;            /* the published values' unit, as the quantity's (checked) */
    char *ref;             /* a binding id on the same axis, or NULL */
    mcb_xp_band band;      /* this binding's band (0, 0: the spec's rule for the class) */
    int npublished;        /* rows: one per column (0: none published) */
    mcb_xp_value *published;
} mcb_xp_binding;

/* A figure's axis. */
typedef enum {
    MCB_XA_PARAM = 0, MCB_XA_DOF, MCB_XA_ITERATION, MCB_XA_TIME_S,
    MCB_XA_PROFILE /* performance profiles (Dolan-More): x = tau, the ratio to the best series'
                      measure per problem; y = time_ms or iterations of solved runs, each
                      series' curve the fraction of problems within tau */
} mcb_xp_axis_kind;
typedef struct {
    mcb_xp_axis_kind kind;   /* x only (y is a quantity) */
    mcb_xp_quantity y;       /* y only */
    char *label;
    int log;
} mcb_xp_axis;

/* A figure's series: one solver entry over problem groups (x: the groups'
 * x or DOF), or over iterations/time (curves: the median over the runs of
 * the y metric at each iteration or time). fit: 1 draws and measures the
 * least-squares line (FIT_R2, FIT_SLOPE). */
typedef struct {
    int line;
    char *id, *label;
    char *solver;
    int nproblems;
    char **problems;
    int fit;
} mcb_xp_series;

/* A claim about a figure: one row of its table, a quantity of one series
 * with the published value. */
typedef struct {
    int line;
    char *id, *label;
    char *series;
    mcb_xp_quantity quantity;
    char *unit;
    char *ref;               /* another claim's id: time ratios as in tables */
    mcb_xp_value published;
    mcb_xp_band band;
} mcb_xp_claim;

/* One difference between published and measured, and its explanation. */
typedef struct {
    int line;
    char *difference, *reason, *experiment;
    int tested;              /* 1: the experiment was run (its result in `result`); 0: a
                                conjecture */
    char *result;
} mcb_xp_note;

typedef struct {
    char *path;              /* the spec file, for messages */
    char *name;              /* = the file's stem */
    char *title;
    char *paper, *citation, *item, *where; /* source: paper key, citation, "Table I", "Sec. IV-C" */
    mcb_xp_kind kind;
    mcb_xp_protocol protocol;
    int nproblems;
    mcb_xp_problems *problems;
    int nsolvers;
    mcb_xp_solver *solvers;
    mcb_xp_budget budget, quick_budget;
    /* tables */
    int nrows, ncols;
    mcb_xp_binding *rows, *cols;
    /* figures */
    mcb_xp_axis x, y;
    int nseries;
    mcb_xp_series *series;
    int nclaims;
    mcb_xp_claim *claims;
    /* verdict rules per class (the defaults in docs/experiments.md unless the spec sets them) */
    mcb_xp_band rule[MCB_XV_NCLASSES];
    char *caveat;            /* what the spec measures differently from the paper (may be NULL) */
    int nnotes;
    mcb_xp_note *notes;
} mcb_xp_spec;

#define MCB_XP_MAX_PARAMS 64          /* parameters of one solver entry */
#define MCB_XP_FRICTION_DIRS_MAX 1024 /* run's --friction-directions range */

/* The checks of a spec against a build: what the ground floor cannot know
 * (the solver and scene registries, the set catalogue, the formulations),
 * supplied by the harness (harness/experiment.h: mcb_xp_build_checks()).
 * Each returns 0, or non-zero with the reason in msg; any may be NULL. */
typedef struct {
    /* a registered solver (or, when closed_loop, a whole-step method), each
     * parameter as `--param S.NAME=VAL` takes it, and the solver's own check
     * of the whole set; *which: the offending parameter's index, -1 the
     * solver's name, -2 the set as a whole */
    int (*solver)(const char *name, int closed_loop, const mcb_xp_param *params, int nparams,
                  int *which, char *msg, size_t size);
    /* a registered scene; one trajectory of the engine when closed_loop */
    int (*scene)(const char *name, int closed_loop, char *msg, size_t size);
    /* the scene's option words parse as `mcbench gen NAME ARGS` takes them */
    int (*scene_args)(const char *name, const char *args, char *msg, size_t size);
    /* the set exists and checks (*which 0) and has the entry, a trajectory
     * scene when closed_loop (*which 1) */
    int (*set_entry)(const char *set, const char *entry, int closed_loop, int *which, char *msg,
                     size_t size);
    /* a formulation `mcbench run --formulation` takes */
    int (*formulation)(const char *name, char *msg, size_t size);
} mcb_xp_checks;

/* The experiments directory: $MCB_EXPERIMENTS_DIR when set and not empty,
 * else the source tree's experiments/ (compile-time MCB_SOURCE_DIR). */
const char *mcb_experiments_dir(void);

/* The spec of `name`: a name with a '/' or ending in ".yaml" is a path,
 * else DIR/NAME.yaml in mcb_experiments_dir(); MCB_E_INPUT naming the
 * specs that exist when it does not. */
mcb_rc mcb_xp_locate(const char *name, char *path, size_t size, mcb_err *err);

/* The names of every spec in mcb_experiments_dir(), sorted (free with
 * mcb_xp_names_free). */
mcb_rc mcb_xp_list(char ***names, int *count, mcb_err *err);
void mcb_xp_names_free(char **names, int count);

/* Reads and checks a spec (see the banner). MCB_E_INPUT with FILE:LINE:
 * FIELD: REASON on any error; nothing allocated is left on failure. */
mcb_rc mcb_xp_read(const char *path, const mcb_xp_checks *checks, mcb_xp_spec **out,
                   mcb_err *err);
void mcb_xp_free(mcb_xp_spec **S); /* accepts NULL */

/* Quantities: parse "neglog:fb" (MCB_E_INPUT naming the known ones), the
 * unit its values carry ("ms", "s", "iterations", "-log10", "", "fraction",
 * "R^2", "category"), and its verdict class. y_at:X and y_final carry the
 * figure's y quantity's unit and class: NULL and MCB_XV_NCLASSES for them
 * (use S->y.y). The caller frees q->text and q->metric. */
mcb_rc mcb_xp_quantity_parse(const char *text, mcb_xp_quantity *q, mcb_err *err);
const char *mcb_xp_quantity_unit(const mcb_xp_quantity *q);
mcb_xp_class mcb_xp_quantity_class(const mcb_xp_quantity *q);
/* 1 for the quantities measured in a closed loop only (engine_ms,
 * depth_mm, outcome_error, outcome_end, outcome_at): a replay spec naming one is refused. */
int mcb_xp_quantity_loop_only(const mcb_xp_quantity *q);

/* A quantity's unit and class in spec S: y_at:X and y_final carry the
 * figure's y's, or on a performance profile (x axis profile) a fraction. */
const char *mcb_xp_unit_in(const mcb_xp_spec *S, const mcb_xp_quantity *q);
mcb_xp_class mcb_xp_class_in(const mcb_xp_spec *S, const mcb_xp_quantity *q);

/* The budget a solver entry runs under: spec budget, then (quick) the
 * spec's quick budget, then the entry's budget, then (quick) its quick
 * budget; unset fields stay unset (the command's defaults). */
void mcb_xp_effective_budget(const mcb_xp_spec *S, const mcb_xp_solver *sv, int quick,
                             mcb_xp_budget *out);

/* The (problem group, solver entry) pairs the spec measures: every cell's
 * row x column pair of a table, every series x group of a figure, in
 * first-use order, without repeats; under quick, groups with quick_skip
 * are left out. *pairs is 2 * count indices (group, entry) into
 * S->problems and S->solvers; free() it. */
mcb_rc mcb_xp_pairs(const mcb_xp_spec *S, int quick, int **pairs, int *count, mcb_err *err);

/* Where one pair's campaign lives under an item's directory:
 * ITEM_DIR/runs/GROUP/ENTRY.h5 (its CSV, journal and log beside it).
 * Returns snprintf's count (>= size: truncated). */
int mcb_xp_runs_path(const char *item_dir, const char *group, const char *entry, char *buf,
                     size_t size);

/* Lookups by id (NULL: none). */
const mcb_xp_problems *mcb_xp_find_problems(const mcb_xp_spec *S, const char *id);
const mcb_xp_solver *mcb_xp_find_solver(const mcb_xp_spec *S, const char *id);

#endif

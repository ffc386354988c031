/* solver.h: the solver interface (after OSQP and SCS) and the registry.
 *
 * A solver is one file in solvers/ that defines an mcb_solver_def:
 *   - a typed parameter struct with documented defaults (default_params),
 *     described field by field in `params` so the CLI can list and set them;
 *   - setup(): everything done once per problem (factorizations, Delassus
 *     assembly); it is timed and reported separately, and it frees what it
 *     allocated when it fails;
 *   - solve(): the iteration, calling `cb` once per iteration; the harness
 *     answers whether to go on (it judges convergence with its own metric
 *     and enforces the wall-time budget);
 *   - iterate(): the current (v, lambda), computed on demand so the harness
 *     can measure without the solver paying for it;
 *   - free(): accepts NULL.
 * Registering it is one line in solvers/registry.c; a solver built outside
 * mcbench is a plugin (a shared library exporting MCB_PLUGIN_SOLVER(def),
 * loaded with mcbench run --plugin FILE.so; docs/api.md).
 *
 * This header is public (installed as <mcbench/solvers/solver.h>, with the headers
 * it includes). */
#ifndef MCB_SOLVER_H
#define MCB_SOLVER_H

#include <stddef.h>

#include "lib/mcb_problem.h"
#include "lib/mcb_vocab.h"

/* The versions of the public API (docs/api.md, "Versions"):
 * MCB_ABI_VERSION is libmcbench.so's SOVERSION: it goes up when a public
 * header changes incompatibly for compiled code (a struct's layout, a
 * function's signature or meaning, a function removed, an enum renumbered);
 * adding a function does not change it. Version 3 appended two fields to
 * mcb_problem, version 4 one more (psd_defect), version 5 one more (mu2,
 * with the flag MCB_ACCEPTS_ANISO: a solver without it never sees mu2, the
 * runner hands it the isotropic equivalent); what solvers read before
 * them is where it was: the solver interface version stays 2.
 * MCB_SOLVER_INTERFACE_VERSION goes up when what a solver sees changes
 * incompatibly (version 2 added the state functions to mcb_solver_def): mcb_solver_def, mcb_settings, mcb_info, the callback, the
 * status and action codes, mcb_param_desc, and the problem model a solver
 * reads (mcb_problem, mcb_block, mcb_csc, mcb_err). mcbench refuses a plugin
 * compiled against another interface version; such a change bumps the ABI
 * version too. */
#define MCB_ABI_VERSION 6 /* 3: mcb_problem gained rank and rank_tol at its end; 4: psd_defect;
                             5: mu2 (anisotropic friction); 6: MCB_STEP_COLS 33 (the
                             forward and inverse contact forces), mcb_loop_summary's
                             means of them, experiment quantities step_ms and the Fig. 13
                             ones */
#define MCB_SOLVER_INTERFACE_VERSION 2

/* The budget shared by every solver of a campaign. */
typedef struct {
    int max_iters;       /* iteration budget */
    double time_limit_s; /* wall clock, setup included; <= 0: unlimited */
    double tol;          /* harness tolerance on the stop metric */
    int threads;         /* OpenMP threads */
    int warm_start;      /* non-zero: start from the problem's initial guess (v0, lambda0)
                            where it has one; the value is the campaign's mcb_warm_mode
                            (under MCB_WARM_OWN the harness puts the solver's own previous
                            step in v0, lambda0): a solver only tests it for non-zero */
} mcb_settings;

void mcb_settings_default(mcb_settings *s);


typedef struct {
    int status;          /* mcb_status */
    int iterations;
    double own_residual; /* the solver's own stopping measure: reported, never ranked */
    double setup_s;      /* measured by the harness */
    double solve_s;      /* measured by the harness, measurement time excluded */
    char reason[MCB_ERR_LEN]; /* why skipped, failed or diverged */
    int inner_iterations; /* a two-level solver's inner steps in all (Newton,
                             dogleg, ...; iterations counts the outer loops);
                             0 for the others */
} mcb_info;

typedef enum {
    MCB_CB_CONTINUE = 0,
    MCB_CB_CONVERGED,  /* harness metric met the tolerance */
    MCB_CB_TIME_LIMIT, /* wall-time budget used up */
    MCB_CB_DIVERGED    /* iterate non-finite or unbounded */
} mcb_cb_action;

/* Called once per iteration, after iteration `iter` (1-based) is complete. */
typedef mcb_cb_action (*mcb_iter_cb)(void *ctx, int iter, double own_residual);

typedef struct {
    const char *name;
    char type;        /* 'd' double, 'i' int */
    size_t offset;    /* in the solver's parameter struct */
    const char *help; /* meaning, and the default's rationale */
} mcb_param_desc;

/* MCB_ACCEPTS_ANISO: the solver handles anisotropic friction (a problem's
 * mu2, lib/mcb_problem.h) itself; without it the runner hands it the
 * isotropic equivalent (lib/mcb_aniso.h) and maps its lambda back. */
enum { MCB_ACCEPTS_PRIMAL = 1, MCB_ACCEPTS_DUAL = 2, MCB_ACCEPTS_ANISO = 4 };

typedef struct {
    const char *name;
    const char *description;
    const char *reference;
    unsigned accepts; /* MCB_ACCEPTS_* */
    /* Optional (NULL: every problem of an accepted form): returns 0 and
     * writes why into reason when the solver cannot take P (recorded as
     * skipped). */
    int (*accepts_problem)(const mcb_problem *P, char *reason, size_t len);
    /* 1 for an external solver that cannot be stopped from the callback
     * (its answer is not acted upon before the solver returns): the harness
     * then applies the wall-time budget after the fact. black_box_forms
     * narrows it to some of the forms it accepts (MCB_ACCEPTS_*; 0: every
     * form); ask mcb_solver_black_box() rather than reading the fields. */
    int black_box;
    unsigned black_box_forms;
    size_t params_size;
    void (*default_params)(void *params);
    const mcb_param_desc *params;
    int nparams;
    /* Optional: checks a parameter set (ranges) before any run, so a bad
     * --param is refused on the command line; setup() checks it too. */
    mcb_rc (*check_params)(const void *params, mcb_err *err);
    mcb_rc (*setup)(const mcb_problem *P, const mcb_settings *s, const void *params,
                    void **work, mcb_err *err);
    /* Returns the status (MCB_ST_*); sets info->iterations and own_residual. */
    int (*solve)(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info);
    /* v may be NULL; for dual problems v is not touched. */
    void (*iterate)(void *work, double *v, double *lambda);
    void (*free)(void **work);
    /* Optional (all three or none): the iteration's state, so that the
     * harness can return to an earlier iteration instead of solving again
     * from the start (harness/runner.c, "locate"). state_size() is the
     * number of bytes save_state() writes (fixed after setup). After
     * load_state() of a state saved when iteration k had completed, solve()
     * performs iterations k+1, k+2, ... exactly as the uninterrupted solve
     * did (the same iterates, bit for bit), numbering them 1, 2, ... (the
     * harness adds k and shortens max_iters by k). No allocation. */
    size_t (*state_size)(void *work);
    void (*save_state)(void *work, void *buf);
    void (*load_state)(void *work, const void *buf);
} mcb_solver_def;

/* 1 when def provides the state functions (state_size, save_state,
 * load_state). */
int mcb_solver_resumable(const mcb_solver_def *def);

/* Registry: the built-in solvers, then the runtime additions (plugins) in
 * the order they were added. */
int mcb_solver_count(void);
const mcb_solver_def *mcb_solver_at(int k);
const mcb_solver_def *mcb_solver_find(const char *name);

/* Runtime additions, at most MCB_MAX_RUNTIME_SOLVERS. def must outlive the
 * registry's use of it (a plugin stays loaded). Refused with the reason
 * (MCB_E_INPUT): a NULL def, a missing or empty name, a name already
 * registered (built-in or added), no accepted form, a missing setup, solve,
 * iterate, free or default_params, parameters described without a
 * parameter struct. `origin` (a file name) prefixes the message. */
#define MCB_MAX_RUNTIME_SOLVERS 16
mcb_rc mcb_registry_add(const mcb_solver_def *def, const char *origin, mcb_err *err);
/* Forgets the runtime additions (before their plugins are unloaded). */
void mcb_registry_clear_added(void);
/* 1 for a solver compiled into mcbench, 0 for a runtime addition or a def
 * the registry does not hold. */
int mcb_solver_is_builtin(const mcb_solver_def *def);
/* The versions this library was built with (compare with the macros of the
 * headers a program was compiled against). */
int mcb_abi_version(void);
int mcb_solver_interface_version(void);
/* sizeof the named structure of this interface: "mcb_settings", "mcb_info",
 * "mcb_param_desc", "mcb_solver_def"; 0 for any other name (or NULL). For
 * code that mirrors them without compiling this header (the Python
 * package's ctypes structures); the ground floor's are mcb_lib_sizeof
 * (lib/mcb_layout.h). */
size_t mcb_solver_sizeof(const char *type);

/* ------------------------------------------------------------------ plugins
 * A plugin is a shared library that exports one symbol, `mcb_plugin`, made
 * by MCB_PLUGIN_SOLVER(def) in one of its files:
 *     static const mcb_solver_def my_solver = {...};
 *     MCB_PLUGIN_SOLVER(my_solver);
 * interface_version records the MCB_SOLVER_INTERFACE_VERSION the plugin was
 * compiled against; it stays the first member in every interface version,
 * so a loader can always read it before trusting the rest. */
typedef struct {
    int interface_version;
    const mcb_solver_def *solver;
} mcb_plugin_entry;
#define MCB_PLUGIN_SYMBOL "mcb_plugin"
#define MCB_PLUGIN_SOLVER(def)                                                                  \
    __attribute__((visibility("default"))) extern const mcb_plugin_entry mcb_plugin;            \
    __attribute__((visibility("default"))) const mcb_plugin_entry mcb_plugin = {               \
        MCB_SOLVER_INTERFACE_VERSION, &(def)}

/* 1 when def cannot be stopped from the callback on problems of the given
 * form (mcb_form): black_box and, if set, black_box_forms. */
int mcb_solver_black_box(const mcb_solver_def *def, int form);
/* accepts_problem of the solvers written for the Coulomb law only (their
 * local steps have no case for it): refuses a problem that stores
 * contact_ccp blocks, with the reason. */
int mcb_accepts_coulomb_only(const mcb_problem *P, char *reason, size_t len);
/* Per-row compliance r (u = J v + e + r∘lambda, mcb_problem.h): every
 * solver honours it or refuses it. accepts_problem of the solvers that do
 * not take it: refuses a problem with some r_i != 0, with the reason. */
int mcb_accepts_no_compliance(const mcb_problem *P, char *reason, size_t len);
/* mcb_accepts_coulomb_only and mcb_accepts_no_compliance together. */
int mcb_accepts_coulomb_rigid(const mcb_problem *P, char *reason, size_t len);
/* mcb_accepts_coulomb_only, and a contact's two tangential rows with one
 * compliance (r_t1 = r_t2): the solvers whose local contact step takes one
 * tangential weight (SubADMM's z-update). */
int mcb_accepts_coulomb_tangent_r(const mcb_problem *P, char *reason, size_t len);
/* accepts_problem of the LCP solvers (issue 13): a dual problem
 * u = W z + q whose blocks are all unilateral (0 <= z_i ⊥ u_i >= 0) or
 * bilateral (z_i free, u_i = 0: the mixed part of an MLCP). W may be
 * unsymmetric and have zero diagonal entries (Stewart-Trinkle's LCP);
 * such a problem comes from a formulation (--formulation), never from a
 * file, and is not held to mcb_problem_validate's symmetry. */
int mcb_accepts_lcp(const mcb_problem *P, char *reason, size_t len);

/* Maps a solver's per-iteration callback result to a status. */
int mcb_status_from_cb(mcb_cb_action a);

/* Sets one parameter from text ("1e-3", "20"); returns non-zero with err
 * set when the name is unknown or the value does not parse as a finite
 * number (an integer for integer parameters). */
mcb_rc mcb_param_set(const mcb_solver_def *def, void *params, const char *name,
                     const char *value, mcb_err *err);
/* Formats the value of parameter k into buf. */
void mcb_param_format(const mcb_solver_def *def, const void *params, int k, char *buf,
                      size_t len);

#endif

/* mcb_vocab.h: the words a run is described by, shared by every floor that
 * writes or reads results: a run's status, the harness's metrics and the
 * contact law they judge by, how a run's time was obtained, the trace
 * columns, and a problem's difficulty descriptors. Names only: the solvers
 * return statuses (solvers/solver.h), metrics/ computes the metrics and the
 * descriptors, the harness times runs; the results format (mcb_results.h)
 * stores all of them and the reports read them back. */
#ifndef MCB_VOCAB_H
#define MCB_VOCAB_H

/* --- a run's status --------------------------------------------------- */
typedef enum {
    MCB_ST_SOLVED = 0,     /* the harness's metric met the tolerance */
    MCB_ST_MAX_ITERS,      /* iteration budget used up */
    MCB_ST_TIME_LIMIT,     /* wall-time budget used up */
    MCB_ST_DIVERGED,       /* non-finite or unbounded iterate */
    MCB_ST_SETUP_FAILED,   /* setup failed (e.g. factorization) */
    MCB_ST_SKIPPED,        /* the solver does not accept this problem */
    MCB_ST_STALLED,        /* the solver stopped on its own before the tolerance */
    MCB_ST_CRASHED,        /* an isolated run died (signal, memory limit, exit) */
    MCB_ST_FAILED_IN_LOOP, /* a closed-loop run whose scene failed (non-finite state,
                              penetration, energy or outcome past the scene's bound) */
    MCB_NSTATUS
} mcb_status;
const char *mcb_status_name(int status);
/* The status named `name` (as mcb_status_name writes it); -1 if unknown. */
int mcb_status_from_name(const char *name);

/* --- the harness's metrics (metrics/metrics.h computes them) ----------- */
typedef enum {
    MCB_M_DYN_ABS = 0,
    MCB_M_DYN_REL,
    MCB_M_FB,
    MCB_M_FB_MAX,
    MCB_M_NATMAP,
    MCB_M_ZRES,
    MCB_M_PEN_MAX,
    MCB_M_PEN_SUM,
    MCB_M_NATMAP_NCP,
    MCB_M_NATMAP_CCP,
    MCB_NMETRICS
} mcb_metric_id;

/* The contact law a run is judged against (mcbench run --law). */
typedef enum { MCB_LAW_NCP = 0, MCB_LAW_CCP = 1 } mcb_law;
const char *mcb_law_name(int law);     /* "ncp", "ccp"; "unknown" */
int mcb_law_from_name(const char *name); /* -1 if unknown */

const char *mcb_metric_name(int id);
int mcb_metric_from_name(const char *name); /* -1 if unknown */
/* 1 for the residuals (dyn_*, fb*, natmap, zres) that a tolerance may target */
int mcb_metric_is_residual(int id);

typedef struct {
    double val[MCB_NMETRICS];
} mcb_metrics;

/* --- timing ----------------------------------------------------------- */
/* timing: where a run's solve time comes from. */
typedef enum {
    MCB_TIMING_AUTO = 0, /* a clean rerun when the checks may have distorted the time */
    MCB_TIMING_OBSERVED, /* always the observed pass */
    MCB_TIMING_CLEAN     /* always a clean rerun (exact, for publication tables) */
} mcb_timing_mode;
const char *mcb_timing_name(int timing);
int mcb_timing_from_name(const char *name); /* -1 if unknown */

/* How a run's solve_s was obtained (mcb_run.timing). */
enum {
    MCB_TIMED_OBSERVED = 0, /* the observed pass, measurement time excluded */
    MCB_TIMED_CLEAN,        /* an unobserved rerun to the same iteration count */
    MCB_TIMED_RERUN_DIFFERED, /* a rerun ended elsewhere: the observed pass is kept */
    MCB_TIMED_LOCATED,  /* a rerun located the iteration first meeting the tolerance */
    MCB_NTIMED
};
const char *mcb_timed_name(int timed);
/* The MCB_TIMED_* value named `name`; -1 if unknown. */
int mcb_timed_from_name(const char *name);

/* --- warm starts (mcbench run --warm-start) --------------------------- */
/* Where each run of a replay campaign starts (mcb_settings.warm_start holds
 * it; a solver only tests it for non-zero and then starts from the
 * problem's v0, lambda0 where present). */
typedef enum {
    MCB_WARM_NONE = 0,     /* from zero (a cold start) */
    MCB_WARM_RECORDED = 1, /* from the problem's recorded guess, init/v and init/lambda */
    MCB_WARM_OWN = 2       /* from what the same solver returned for the previous step
                              of the same trajectory (harness/campaign.c) */
} mcb_warm_mode;
#define MCB_NWARM 3
const char *mcb_warm_name(int mode);     /* "none", "recorded", "own"; "unknown" */
int mcb_warm_from_name(const char *name); /* -1 if unknown */

/* Where one run did start (mcb_run_rec.start), what the mode gave it. */
enum {
    MCB_START_UNKNOWN = 0,  /* not recorded: a closed-loop run, an older file */
    MCB_START_ZERO,         /* zero: mode none, or no recorded guess */
    MCB_START_RECORDED,     /* the recorded guess: mode recorded, or own on a first step */
    MCB_START_OWN,          /* own: (v, lambda) of the previous step's run */
    MCB_START_OWN_V,        /* own v; lambda recorded: the constraint blocks changed */
    MCB_START_FALLBACK,     /* own mode, the previous step's run returned no usable
                               solution (failed, diverged, non-finite, other n): recorded */
    MCB_NSTART
};
const char *mcb_start_name(int start); /* "" (unknown), "zero", ...; "" out of range */
int mcb_start_from_name(const char *name); /* -1 if unknown */

/* --- traces ----------------------------------------------------------- */
/* Trace columns: iteration, solver time so far, every metric, own residual. */
#define MCB_TRACE_COLS (3 + MCB_NMETRICS)
const char *mcb_trace_column(int k);

/* --- closed-loop steps (docs/closed-loop.md) ------------------------ */
/* One row per step of a closed-loop run: the step, the solver's status,
 * iterations and times, the engine's time (COND's DT), the harness's
 * metrics of the step's subproblem, and the state after the step. */
enum {
    MCB_SC_STEP = 0, MCB_SC_STATUS, MCB_SC_ITERS, MCB_SC_SETUP_S, MCB_SC_SOLVE_S,
    MCB_SC_ENGINE_S, MCB_SC_MEASURE_S, MCB_SC_CONTACTS, MCB_SC_N, MCB_SC_M,
    MCB_SC_METRICS, /* MCB_NMETRICS columns from here, in mcb_metric_id order */
    MCB_SC_KINETIC_J = MCB_SC_METRICS + MCB_NMETRICS, MCB_SC_POTENTIAL_J, MCB_SC_ELASTIC_J,
    MCB_SC_DRIFT, MCB_SC_SOFT_DRIFT, MCB_SC_DIV_RMS_M, MCB_SC_DIV_MAX_M, MCB_SC_DIV_ROT_RAD,
    MCB_SC_OUTCOME,
    MCB_SC_DEPTH_M,     /* the penetration depth the step leaves: h x pen_max (m) */
    MCB_SC_OUTCOME_ERR, /* |outcome - the reference trajectory's outcome at this step| */
    MCB_SC_CONTACT_FORCE_N, /* ||J_c^T lambda_c|| / h over the compliant contacts (N; NaN:
                               none), and the same of the impulses the invertible contact
                               model gives from v (metrics.h: mcb_metrics_contact_forces) */
    MCB_SC_INVERSE_FORCE_N,
    MCB_STEP_COLS
};
const char *mcb_step_column(int k);

/* A closed-loop run's trajectory measures, from its step rows (NaN
 * entries, the measures of a step that stopped the run, are skipped). */
typedef struct {
    int steps;          /* rows */
    double engine_s, solve_s, setup_s; /* sums */
    double iters_mean;
    double pen_max, pen_mean;          /* of the steps' pen_max */
    double drift_max, soft_drift_max;
    double energy0, energy_max_gain, energy_drift; /* total E at step 0; max E - E0; E_end - E0 */
    double div_rms_m, div_max_m, div_rot_max_rad; /* RMS over steps of the steps' RMS; maxima */
    double outcome_end;
    double depth_mean_m, depth_max_m;  /* of the steps' depth_m (COND's MP: the mean) */
    double outcome_err_mean;           /* mean of the steps' outcome_err (COND's IE / FE) */
    double contact_force_mean_N, inverse_force_mean_N; /* means of the steps' (COND's Fig. 13) */
    double inverse_err_mean; /* mean over those steps of |inverse - contact| / contact */
} mcb_loop_summary;
void mcb_loop_summarize(const double *rows, int nrows, mcb_loop_summary *s);

/* --- a problem's difficulty descriptors (metrics/describe.h) ----------- */
/* Where a descriptor came from. */
typedef enum {
    MCB_DESC_NONE = 0,    /* not computed (unknown, skipped or failed) */
    MCB_DESC_STORED = 1,  /* the problem file's scene descriptor */
    MCB_DESC_LANCZOS = 2, /* cond(W): Lanczos on W (mcb_describe_cond) */
    MCB_DESC_SPQR = 3,    /* rank: SuiteSparseQR's rank-revealing QR */
    MCB_DESC_SUBSYS = 4,  /* mass ratio: A's diagonal per subsystem */
    MCB_DESC_DIAG = 5,    /* mass ratio: A's (primal) or W's (dual) diagonal */
    MCB_DESC_CHOLESKY = 6 /* psd_defect: shifted sparse Cholesky (mcb_psd.h) */
} mcb_desc_from;
const char *mcb_desc_from_name(int from); /* "none", "stored", ... */

typedef struct {
    int form;            /* mcb_form */
    int n, m;            /* DOFs (0 for dual), rows */
    int contacts;        /* contact and contact_ccp blocks */
    int nsub;            /* subsystems (0 for dual) */
    double rows_per_dof; /* m / n; NaN for a dual problem or n = 0 */
    int rank;            /* numerical rank of J (primal) or W (dual); -1 unknown */
    int rank_def;        /* m - rank; -1 unknown */
    double rank_tol;     /* the QR's column-norm tolerance; NaN unknown */
    int rank_from;
    double mu_min, mu_med, mu_max; /* over the contacts; NaN without contacts */
    double cond_w;       /* cond(W) over its nonzero spectrum; NaN unknown */
    int cond_from;
    int cond_steps;      /* Lanczos steps taken (0 when stored or unknown) */
    double mass_ratio;   /* >= 1; NaN unknown */
    int mass_from;
    double psd_defect;   /* max(0, -lambda_min(W)) / ||W||_2 of a dual W
                          * (mcb_psd.h); NaN unknown or primal */
    int psd_from;
} mcb_descriptors;

#endif

/* mcb_vocab.c: the names of statuses, metrics, laws, timings, trace
 * columns and descriptor sources (mcb_vocab.h). Every name written to a
 * results file or printed comes from here, and every reader maps it back
 * here, so a writer and a reader can never disagree. */
#include "lib/mcb_vocab.h"

#include <math.h>
#include <string.h>

/* --- statuses --------------------------------------------------------- */
const char *mcb_status_name(int status)
{
    static const char *names[MCB_NSTATUS] = {"solved",       "max-iterations", "time-limit",
                                             "diverged",     "setup-failed",   "skipped",
                                             "stalled",      "crashed",
                                             "failed-in-loop"};
    return status >= 0 && status < MCB_NSTATUS ? names[status] : "unknown";
}

int mcb_status_from_name(const char *s)
{
    for (int k = 0; k < MCB_NSTATUS; k++)
        if (s && strcmp(s, mcb_status_name(k)) == 0) return k;
    return -1;
}

/* --- metrics and laws ------------------------------------------------ */
static const char *metric_names[MCB_NMETRICS] = {"dyn_abs", "dyn_rel", "fb",      "fb_max",
                                                 "natmap",  "zres",    "pen_max", "pen_sum",
                                                 "natmap_ncp", "natmap_ccp"};
static const char *law_names[] = {"ncp", "ccp"};

const char *mcb_law_name(int law)
{
    return law == MCB_LAW_NCP || law == MCB_LAW_CCP ? law_names[law] : "unknown";
}

int mcb_law_from_name(const char *name)
{
    for (int k = 0; k < 2; k++)
        if (strcmp(law_names[k], name) == 0) return k;
    return -1;
}

const char *mcb_metric_name(int id)
{
    return id >= 0 && id < MCB_NMETRICS ? metric_names[id] : "unknown";
}

int mcb_metric_from_name(const char *name)
{
    for (int k = 0; k < MCB_NMETRICS; k++)
        if (strcmp(metric_names[k], name) == 0) return k;
    return -1;
}

int mcb_metric_is_residual(int id) { return id >= MCB_M_DYN_ABS && id <= MCB_M_ZRES; }

/* --- timing and traces ----------------------------------------------- */
const char *mcb_trace_column(int k)
{
    if (k == 0) return "iter";
    if (k == 1) return "time_s";
    if (k >= 2 && k < 2 + MCB_NMETRICS) return mcb_metric_name(k - 2);
    if (k == 2 + MCB_NMETRICS) return "own_residual";
    return "unknown";
}

/* --- closed-loop steps ------------------------------------------------ */
const char *mcb_step_column(int k)
{
    static const char *const head[MCB_SC_METRICS] = {
        "step", "status", "iterations", "setup_s", "solve_s", "engine_s", "measure_s",
        "contacts", "n", "m"};
    static const char *const tail[MCB_STEP_COLS - MCB_SC_KINETIC_J] = {
        "kinetic_J", "potential_J", "elastic_J", "drift", "soft_drift",
        "div_rms_m", "div_max_m", "div_rot_rad", "outcome", "depth_m", "outcome_err",
        "contact_force_N", "inverse_force_N"};
    if (k >= 0 && k < MCB_SC_METRICS) return head[k];
    if (k >= MCB_SC_METRICS && k < MCB_SC_KINETIC_J) return mcb_metric_name(k - MCB_SC_METRICS);
    if (k >= MCB_SC_KINETIC_J && k < MCB_STEP_COLS) return tail[k - MCB_SC_KINETIC_J];
    return "unknown";
}

/* max ignoring NaN (a step that stopped the run has no measures after
 * its solve); an infinite value counts */
static double maxd(double a, double b) { return b > a ? b : a; }

void mcb_loop_summarize(const double *rows, int nrows, mcb_loop_summary *s)
{
    memset(s, 0, sizeof *s);
    s->steps = nrows;
    s->energy0 = s->energy_drift = s->outcome_end = NAN;
    s->depth_mean_m = s->depth_max_m = s->outcome_err_mean = NAN;
    s->contact_force_mean_N = s->inverse_force_mean_N = s->inverse_err_mean = NAN;
    if (nrows <= 0 || !rows) return;
    double iters = 0.0, pen = 0.0, div2 = 0.0, depth = 0.0, oerr = 0.0;
    double ffwd = 0.0, finv = 0.0, ierr = 0.0;
    int npen = 0, ndiv = 0, ndepth = 0, noerr = 0, nforce = 0, nierr = 0;
    s->energy_max_gain = -INFINITY;
    for (int k = 0; k < nrows; k++) {
        const double *r = rows + (size_t)k * MCB_STEP_COLS;
        double E = r[MCB_SC_KINETIC_J] + r[MCB_SC_POTENTIAL_J] + r[MCB_SC_ELASTIC_J];
        if (k == 0) s->energy0 = E;
        if (!isnan(r[MCB_SC_ENGINE_S])) s->engine_s += r[MCB_SC_ENGINE_S];
        if (!isnan(r[MCB_SC_SOLVE_S])) s->solve_s += r[MCB_SC_SOLVE_S];
        if (!isnan(r[MCB_SC_SETUP_S])) s->setup_s += r[MCB_SC_SETUP_S];
        if (!isnan(r[MCB_SC_ITERS])) iters += r[MCB_SC_ITERS];
        double p = r[MCB_SC_METRICS + MCB_M_PEN_MAX];
        if (!isnan(p)) {
            pen += p;
            npen++;
        }
        s->pen_max = maxd(s->pen_max, p);
        s->drift_max = maxd(s->drift_max, r[MCB_SC_DRIFT]);
        s->soft_drift_max = maxd(s->soft_drift_max, r[MCB_SC_SOFT_DRIFT]);
        if (!isnan(E)) {
            s->energy_max_gain = maxd(s->energy_max_gain, E - s->energy0);
            s->energy_drift = E - s->energy0;
        }
        if (!isnan(r[MCB_SC_DIV_RMS_M])) {
            div2 += r[MCB_SC_DIV_RMS_M] * r[MCB_SC_DIV_RMS_M];
            ndiv++;
        }
        s->div_max_m = maxd(s->div_max_m, r[MCB_SC_DIV_MAX_M]);
        s->div_rot_max_rad = maxd(s->div_rot_max_rad, r[MCB_SC_DIV_ROT_RAD]);
        if (!isnan(r[MCB_SC_OUTCOME])) s->outcome_end = r[MCB_SC_OUTCOME];
        if (!isnan(r[MCB_SC_DEPTH_M])) {
            depth += r[MCB_SC_DEPTH_M];
            ndepth++;
            s->depth_max_m = ndepth == 1 ? r[MCB_SC_DEPTH_M] : maxd(s->depth_max_m, r[MCB_SC_DEPTH_M]);
        }
        if (!isnan(r[MCB_SC_OUTCOME_ERR])) {
            oerr += r[MCB_SC_OUTCOME_ERR];
            noerr++;
        }
        double f = r[MCB_SC_CONTACT_FORCE_N], fi = r[MCB_SC_INVERSE_FORCE_N];
        if (!isnan(f) && !isnan(fi)) {
            ffwd += f;
            finv += fi;
            nforce++;
            if (f > 0) {
                ierr += fabs(fi - f) / f;
                nierr++;
            }
        }
    }
    if (nforce) s->contact_force_mean_N = ffwd / nforce, s->inverse_force_mean_N = finv / nforce;
    if (nierr) s->inverse_err_mean = ierr / nierr;
    if (ndepth) s->depth_mean_m = depth / ndepth;
    if (noerr) s->outcome_err_mean = oerr / noerr;
    if (isinf(s->energy_max_gain) && s->energy_max_gain < 0) s->energy_max_gain = NAN;
    s->iters_mean = iters / nrows;
    s->pen_mean = npen ? pen / npen : NAN;
    s->div_rms_m = ndiv ? sqrt(div2 / ndiv) : NAN;
}

static const char *const timing_names[] = {"auto", "observed", "clean"};
static const char *const timed_names[] = {"observed", "clean", "observed-rerun-differed",
                                          "located"};

const char *mcb_timing_name(int timing)
{
    return timing >= 0 && timing < 3 ? timing_names[timing] : "unknown";
}

int mcb_timing_from_name(const char *name)
{
    for (int k = 0; k < 3; k++)
        if (name && !strcmp(name, timing_names[k])) return k;
    return -1;
}

const char *mcb_timed_name(int timed)
{
    return timed >= 0 && timed < MCB_NTIMED ? timed_names[timed] : "unknown";
}

int mcb_timed_from_name(const char *s)
{
    for (int k = 0; k < MCB_NTIMED; k++)
        if (s && strcmp(s, mcb_timed_name(k)) == 0) return k;
    return -1;
}

static const char *const warm_names[] = {"none", "recorded", "own"};
static const char *const start_names[] = {"", "zero", "recorded", "own", "own-v", "fallback"};

/* The word of value k in names[0..n-1]; `other` out of range. */
static const char *word_of(const char *const *names, int n, int k, const char *other)
{
    return k >= 0 && k < n ? names[k] : other;
}

/* The index of `name` in names[0..n-1]; -1 if absent. */
static int index_of(const char *const *names, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (name && !strcmp(name, names[k])) return k;
    return -1;
}

const char *mcb_warm_name(int mode) { return word_of(warm_names, MCB_NWARM, mode, "unknown"); }
int mcb_warm_from_name(const char *name) { return index_of(warm_names, MCB_NWARM, name); }
const char *mcb_start_name(int start) { return word_of(start_names, MCB_NSTART, start, ""); }
int mcb_start_from_name(const char *name) { return index_of(start_names, MCB_NSTART, name); }

/* --- descriptors ----------------------------------------------------- */
const char *mcb_desc_from_name(int from)
{
    static const char *names[] = {"none",       "stored",   "lanczos", "spqr",
                                  "subsystems", "diagonal", "cholesky"};
    return from >= 0 && from <= MCB_DESC_CHOLESKY ? names[from] : "none";
}

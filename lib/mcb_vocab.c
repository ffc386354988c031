/* mcb_vocab.c: the names of statuses, metrics, laws, timings, trace
 * columns and descriptor sources (mcb_vocab.h). Every name written to a
 * results file or printed comes from here, and every reader maps it back
 * here, so a writer and a reader can never disagree. */
#include "lib/mcb_vocab.h"

#include <string.h>

/* --- statuses --------------------------------------------------------- */
const char *mcb_status_name(int status)
{
    static const char *names[MCB_NSTATUS] = {"solved",       "max-iterations", "time-limit",
                                             "diverged",     "setup-failed",   "skipped",
                                             "stalled",      "crashed"};
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

/* --- descriptors ----------------------------------------------------- */
const char *mcb_desc_from_name(int from)
{
    static const char *names[] = {"none",       "stored",   "lanczos", "spqr",
                                  "subsystems", "diagonal", "cholesky"};
    return from >= 0 && from <= MCB_DESC_CHOLESKY ? names[from] : "none";
}

/* mcb_tiers.c: accuracy tiers, the solver's claims and the shifted
 * geometric mean, from stored runs (mcb_tiers.h). */
#include "lib/mcb_tiers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

int mcb_tiers_parse(const char *text, double *tiers, char *why, size_t len)
{
    int n = 0;
    const char *p = text ? text : "";
    for (;;) {
        char *end = NULL;
        double x = strtod(p, &end);
        if (end == p || (*end && *end != ',') || !isfinite(x) || !(x > 0)) {
            snprintf(why, len, "a tier is a finite number > 0, comma-separated, got '%s'",
                     text ? text : "");
            return -1;
        }
        if (n == MCB_MAX_TIERS) {
            snprintf(why, len, "at most %d tiers, got '%s'", MCB_MAX_TIERS, text);
            return -1;
        }
        for (int k = 0; k < n; k++)
            if (tiers[k] == x) {
                snprintf(why, len, "tier %g is given twice in '%s'", x, text);
                return -1;
            }
        tiers[n++] = x;
        if (!*end) break;
        p = end + 1;
    }
    qsort(tiers, (size_t)n, sizeof *tiers, cmp_desc);
    return n;
}

void mcb_tiers_format(const double *tiers, int n, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (int k = 0; k < n && off < len; k++)
        off += (size_t)snprintf(buf + off, len - off, "%s%.3g", k ? "," : "", tiers[k]);
}

int mcb_campaign_tiers(const char *settings, double tol, double *tiers)
{
    char why[128], word[256];
    const char *p = settings ? strstr(settings, "tiers=") : NULL;
    while (p && p != settings && p[-1] != ' ') p = strstr(p + 1, "tiers=");
    if (p) {
        size_t n = strcspn(p + 6, " ");
        snprintf(word, sizeof word, "%.*s", (int)n, p + 6);
        int k = mcb_tiers_parse(word, tiers, why, sizeof why);
        return k < 0 ? 0 : k;
    }
    double def[MCB_MAX_TIERS];
    int n = mcb_tiers_parse(MCB_DEFAULT_TIERS, def, why, sizeof why), kept = 0;
    for (int k = 0; k < n; k++)
        if (def[k] >= tol) tiers[kept++] = def[k];
    return kept;
}

int mcb_tier_reached(const mcb_run_rec *r, int col, double tier, double time_limit_s,
                     int *iterations, double *time_s)
{
    if (r->step_rows > 0 || !r->trace) return 0;
    for (int k = 0; k < r->trace_rows; k++) {
        const double *row = r->trace + (size_t)k * MCB_TRACE_COLS;
        if (!(row[col] <= tier)) continue;
        double t = r->setup_s + row[1];
        if (time_limit_s > 0 && t > time_limit_s) return 0;
        *iterations = (int)row[0];
        *time_s = t;
        return 1;
    }
    return 0;
}

void mcb_claim_of(const mcb_run_rec *r, int col, double tol, mcb_claim *c)
{
    memset(c, 0, sizeof *c);
    if (r->own_stop < 0 || r->step_rows > 0 || r->status == MCB_ST_SKIPPED ||
        r->status == MCB_ST_SETUP_FAILED)
        return;
    c->known = 1;
    c->own_stop = r->own_stop == 1;
    if (!c->own_stop) return;
    int met = r->final.val[col - 2] <= tol;
    c->claimed = r->own_status == MCB_ST_SOLVED;
    c->confirmed = c->claimed && met;
    c->wrong = c->claimed && !met;
    c->unclaimed_met = !c->claimed && met;
    for (int k = 0; k < r->trace_rows && !c->met_before_stop; k++) {
        const double *row = r->trace + (size_t)k * MCB_TRACE_COLS;
        c->met_before_stop = row[0] < r->iterations && row[col] <= tol;
    }
}

double mcb_sgm(const double *t, int n, double shift, double charge)
{
    if (n <= 0) return NAN;
    double s = 0.0;
    for (int k = 0; k < n; k++) {
        double x = isfinite(t[k]) ? t[k] : charge;
        if (!(x >= 0) || !isfinite(x)) return NAN;
        s += log(x + shift);
    }
    return exp(s / n) - shift;
}

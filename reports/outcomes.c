/* outcomes.c: grouping a campaign's runs into the problems x solvers matrix
 * (see outcomes.h): runs sorted by (set, problem_index, solver), each group
 * reduced to a status and two medians. Fails only out of memory. */
#include "reports/outcomes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_tiers.h"
#include "reports/profile.h"

/* Index of s in names[0..*n), appended when absent. */
static int name_index(const char **names, int *n, const char *s)
{
    for (int k = 0; k < *n; k++)
        if (strcmp(names[k], s) == 0) return k;
    names[*n] = s;
    return (*n)++;
}

typedef struct {
    int run, set, problem, solver;
} run_key;

static int cmp_key(const void *a, const void *b)
{
    const run_key *x = a, *y = b;
    if (x->set != y->set) return x->set < y->set ? -1 : 1;
    if (x->problem != y->problem) return x->problem < y->problem ? -1 : 1;
    if (x->solver != y->solver) return x->solver < y->solver ? -1 : 1;
    return (x->run > y->run) - (x->run < y->run);
}

void mcb_outcomes_free(mcb_outcomes *O)
{
    if (!O) return;
    free(O->sets);
    free(O->solvers);
    free(O->set);
    free(O->problem);
    free(O->time_s);
    free(O->iters);
    free(O->status);
    free(O->reps);
    free(O->solved_reps);
    free(O->run);
    memset(O, 0, sizeof *O);
}

/* What a cell measures: the run's status (tier NULL) or a tier. */
typedef struct {
    int col;
    double tier;
} tier_spec;

/* A run's time and iterations to tolerance (to the tier), +infinity when
 * it did not get there. */
static void run_measure(const mcb_results_data *D, const mcb_run_rec *r, const tier_spec *T,
                        double *time_s, double *iters)
{
    int it = 0;
    *time_s = *iters = INFINITY;
    if (!T && r->status == MCB_ST_SOLVED) {
        *time_s = r->setup_s + r->solve_s;
        *iters = (double)r->iterations;
    } else if (T && mcb_tier_reached(r, T->col, T->tier, D->time_limit_s, &it, time_s)) {
        *iters = (double)it;
    }
}

/* One (problem, solver) cell from its runs keys[0..n). */
static void reduce_cell(const mcb_results_data *D, const tier_spec *T, const run_key *keys,
                        int n, double *buf, mcb_outcomes *O, size_t cell)
{
    int solved = 0, status = D->runs[keys[0].run].status, first = keys[0].run;
    for (int k = 0; k < n; k++) {
        const mcb_run_rec *r = &D->runs[keys[k].run];
        if (r->rep < D->runs[first].rep) first = keys[k].run;
        solved += r->status == MCB_ST_SOLVED;
        if (r->status != status) status = MCB_OUTCOME_MIXED;
    }
    O->status[cell] = status;
    O->reps[cell] = n;
    O->solved_reps[cell] = solved;
    O->run[cell] = first;
    for (int m = 0; m < 2; m++) {
        for (int k = 0; k < n; k++) {
            double t, it;
            run_measure(D, &D->runs[keys[k].run], T, &t, &it);
            buf[k] = m == 0 ? t : it;
        }
        double med = mcb_median(buf, n);
        (m == 0 ? O->time_s : O->iters)[cell] = isfinite(med) ? med : NAN;
    }
}

static mcb_rc build(const mcb_results_data *D, const tier_spec *T, mcb_outcomes *O,
                    mcb_err *err)
{
    memset(O, 0, sizeof *O);
    size_t nr = (size_t)D->count;
    run_key *keys = mcb_malloc(nr, sizeof *keys);
    double *buf = mcb_malloc(nr, sizeof *buf);
    O->sets = mcb_malloc(nr, sizeof *O->sets);
    O->solvers = mcb_malloc(nr, sizeof *O->solvers);
    if (!keys || !buf || !O->sets || !O->solvers) goto nomem;
    for (size_t k = 0; k < nr; k++) {
        const mcb_run_rec *r = &D->runs[k];
        keys[k] = (run_key){(int)k, name_index(O->sets, &O->nsets, r->problem_set),
                            r->problem_index, name_index(O->solvers, &O->nsolvers, r->solver)};
    }
    qsort(keys, nr, sizeof *keys, cmp_key);
    for (size_t k = 0; k < nr; k++)
        O->nproblems += k == 0 || keys[k].set != keys[k - 1].set ||
                        keys[k].problem != keys[k - 1].problem;
    size_t np = (size_t)O->nproblems, cells = np * (size_t)O->nsolvers;
    O->set = mcb_malloc(np, sizeof *O->set);
    O->problem = mcb_malloc(np, sizeof *O->problem);
    O->time_s = mcb_malloc(cells, sizeof *O->time_s);
    O->iters = mcb_malloc(cells, sizeof *O->iters);
    O->status = mcb_malloc(cells, sizeof *O->status);
    O->reps = mcb_calloc(cells, sizeof *O->reps);
    O->solved_reps = mcb_calloc(cells, sizeof *O->solved_reps);
    O->run = mcb_malloc(cells, sizeof *O->run);
    if (!O->set || !O->problem || !O->time_s || !O->iters || !O->status || !O->reps ||
        !O->solved_reps || !O->run)
        goto nomem;
    for (size_t c = 0; c < cells; c++) {
        O->run[c] = -1;
        O->time_s[c] = O->iters[c] = NAN;
        O->status[c] = MCB_OUTCOME_NONE;
    }
    int p = -1;
    for (size_t k = 0; k < nr;) {
        if (k == 0 || keys[k].set != keys[k - 1].set || keys[k].problem != keys[k - 1].problem) {
            p++;
            O->set[p] = keys[k].set;
            O->problem[p] = D->runs[keys[k].run].problem;
        }
        size_t e = k + 1;
        while (e < nr && keys[e].set == keys[k].set && keys[e].problem == keys[k].problem &&
               keys[e].solver == keys[k].solver)
            e++;
        reduce_cell(D, T, keys + k, (int)(e - k), buf, O,
                    (size_t)p * O->nsolvers + (size_t)keys[k].solver);
        k = e;
    }
    free(keys);
    free(buf);
    return MCB_OK;
nomem:
    free(keys);
    free(buf);
    mcb_outcomes_free(O);
    return mcb_fail(err, MCB_E_NOMEM, "problems x solvers matrix of %zu runs: out of memory", nr);
}

mcb_rc mcb_outcomes_build(const mcb_results_data *D, mcb_outcomes *O, mcb_err *err)
{
    return build(D, NULL, O, err);
}

mcb_rc mcb_outcomes_build_tier(const mcb_results_data *D, int col, double tier, mcb_outcomes *O,
                               mcb_err *err)
{
    tier_spec T = {col, tier};
    return build(D, &T, O, err);
}

double mcb_outcomes_sgm(const mcb_outcomes *O, int set, int s, double shift_s, double charge_s,
                        double *buf)
{
    int n = 0;
    for (int p = 0; p < O->nproblems; p++)
        if (set < 0 || O->set[p] == set) buf[n++] = O->time_s[(size_t)p * O->nsolvers + s];
    return mcb_sgm(buf, n, shift_s, charge_s);
}

double mcb_failure_charge_s(const mcb_results_data *D)
{
    if (D->time_limit_s > 0) return D->time_limit_s;
    double longest = NAN;
    for (int k = 0; k < D->count; k++) {
        const mcb_run_rec *r = &D->runs[k];
        double t = r->setup_s + r->solve_s;
        if (r->status != MCB_ST_SKIPPED && isfinite(t) && !(t <= longest)) longest = t;
    }
    return MCB_FAILURE_CHARGE_FACTOR * longest;
}

void mcb_outcome_status_text(const mcb_outcomes *O, int p, int s, char *buf, size_t len)
{
    size_t c = (size_t)p * O->nsolvers + (size_t)s;
    if (O->status[c] == MCB_OUTCOME_NONE) snprintf(buf, len, "no run");
    else if (O->status[c] == MCB_OUTCOME_MIXED)
        snprintf(buf, len, "%d/%d solved", O->solved_reps[c], O->reps[c]);
    else snprintf(buf, len, "%s", mcb_status_name(O->status[c]));
}

int mcb_outcome_accepted(const mcb_outcomes *O, int p, int s)
{
    int st = O->status[(size_t)p * O->nsolvers + (size_t)s];
    return st != MCB_OUTCOME_NONE && st != MCB_ST_SKIPPED;
}

/* The ranking's keys, for qsort (no global state: the keys travel with
 * the index). */
typedef struct {
    int s, solved, accepted;
    double med;
} rank_key;

static int cmp_rank(const void *a, const void *b)
{
    const rank_key *x = a, *y = b;
    if ((x->accepted > 0) != (y->accepted > 0)) return x->accepted > 0 ? -1 : 1;
    /* solved / accepted compared exactly: x->solved * y->accepted against
     * y->solved * x->accepted (both accepted counts > 0 here, or both 0) */
    long long fx = (long long)x->solved * y->accepted, fy = (long long)y->solved * x->accepted;
    if (fx != fy) return fx > fy ? -1 : 1;
    if (x->solved != y->solved) return x->solved > y->solved ? -1 : 1;
    int xn = isnan(x->med), yn = isnan(y->med);
    if (xn != yn) return xn - yn;
    if (!xn && x->med != y->med) return x->med < y->med ? -1 : 1;
    return (x->s > y->s) - (x->s < y->s);
}

mcb_rc mcb_outcomes_rank(const mcb_outcomes *O, int set, int *order, int *solved,
                         int *accepted, double *med_time_s, mcb_err *err)
{
    int ns = O->nsolvers;
    double *buf = mcb_malloc((size_t)O->nproblems + 1, sizeof *buf);
    rank_key *keys = mcb_malloc((size_t)ns + 1, sizeof *keys);
    if (!buf || !keys) {
        free(buf);
        free(keys);
        return mcb_fail(err, MCB_E_NOMEM, "ranking of %d solvers: out of memory", ns);
    }
    for (int s = 0; s < ns; s++) {
        int n = 0, acc = 0;
        for (int p = 0; p < O->nproblems; p++) {
            if (set >= 0 && O->set[p] != set) continue;
            double t = O->time_s[(size_t)p * ns + s];
            acc += mcb_outcome_accepted(O, p, s);
            if (isfinite(t)) buf[n++] = t;
        }
        keys[s] = (rank_key){s, n, acc, mcb_median(buf, n)};
        solved[s] = n;
        accepted[s] = acc;
        med_time_s[s] = keys[s].med;
    }
    qsort(keys, (size_t)ns, sizeof *keys, cmp_rank);
    for (int k = 0; k < ns; k++) order[k] = keys[k].s;
    free(buf);
    free(keys);
    return MCB_OK;
}

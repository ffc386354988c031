/* test_campaign.c: when the harness checks (the schedule finds the
 * iteration the tolerance is first met to within 1%, with few checks; a
 * locate rerun when the residual suddenly drops; clean reruns), crash
 * isolation (a solver that segfaults, aborts, traps, loops or allocates
 * without bound costs its run only, and the next run still happens), and
 * the problem filters and shards of the run list. */
#define _GNU_SOURCE
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/campaign.h"
#include "harness/context.h"
#include "fixtures.h"

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif

/* A test-only solver on the point contact (FX_SLIP): iteration k returns
 * the known solution plus a perturbation 10^(-k/decade) (the natural map
 * residual falls geometrically), or exactly the solution from iteration
 * `drop_at` on (a sudden drop; `drop` times the perturbation when it is
 * not 0: a drop to a lower level); `plateau` is added to 10^(-k/decade)
 * (a residual that levels off); from iteration `bump_at` on the perturbation
 * is `bump` times larger (the residual rises once), and over iterations
 * [dip_at, dip_at + dip_len) it is `dip` times as large (0.6 when 0: the
 * residual dips and rises again); `fault` makes it crash at iteration 3;
 * `claim_at` makes it stop at that iteration on its own, claiming `solved`
 * whatever its residual, and `deaf` ignore the harness's answers (it stops
 * at claim_at or the budget alone).
 * The iterations at which the harness reads its iterate in the first
 * solve() call (the observed pass's checks) are recorded. Two entries:
 * geo, and geo-r with the state functions (its state is the iteration
 * count), so that every schedule test covers both ways to locate: solving
 * again, and resuming from a kept state. */
enum { F_NONE, F_SEGV, F_ABORT, F_FPE, F_LOOP, F_ALLOC };
typedef struct {
    double decade; /* iterations per decade of the perturbation */
    int drop_at;   /* 0: never */
    int fault;
    int bump_at, dip_at, dip_len; /* 0: never */
    double bump;
    double drop;
    int once; /* drop_at applies to the first solve() call alone (a solver
               * that does not repeat itself) */
    double dip;
    double plateau; /* added to the perturbation's 10^(-k/decade) */
    int claim_at;   /* 0: never */
    int deaf;
} geo_params;
typedef struct {
    geo_params prm;
    int it, it0; /* the iteration, and where solve() starts counting */
} geo_work;
static void geo_defaults(void *p)
{
    memset(p, 0, sizeof(geo_params));
    ((geo_params *)p)->decade = 50;
    ((geo_params *)p)->bump = 100;
}
static int geo_setups; /* setup() calls: locate without one resumed */
static int geo_calls;  /* solve() calls */
static long geo_again; /* iterations of the solve() calls after the first */
static int geo_loads;  /* load_state() calls */
static int geo_seen[4096], geo_nseen; /* the first solve() call's iterate() reads */
static mcb_rc geo_setup(const mcb_problem *P, const mcb_settings *s, const void *params,
                        void **work, mcb_err *err)
{
    (void)P, (void)s, (void)err;
    geo_setups++;
    geo_work *w = calloc(1, sizeof *w);
    w->prm = *(const geo_params *)params;
    *work = w;
    return MCB_OK;
}
static volatile char *sink;
static int *volatile null_int; /* NULL, unknown to the compiler */
static void fault(int kind)
{
    switch (kind) {
    case F_SEGV: *null_int = 1; break;
    case F_ABORT: abort();
    case F_FPE: raise(SIGFPE); break;
    case F_LOOP:
        for (;;) sink = NULL;
    case F_ALLOC:
        for (;;) { /* grows until the memory limit makes malloc fail, then crashes */
            char *p = malloc(64 << 20);
            if (!p) abort();
            memset(p, 1, 64 << 20);
            sink = p;
        }
    default: break;
    }
}
static int geo_solve(void *work, const mcb_settings *s, mcb_iter_cb cb, void *ctx, mcb_info *info)
{
    geo_work *w = work;
    geo_calls++;
    for (int k = 1; k <= s->max_iters; k++) {
        w->it = w->it0 + k;
        if (geo_calls > 1) geo_again++;
        if (w->prm.fault && w->it == 3) fault(w->prm.fault);
        info->iterations = k;
        if (w->prm.claim_at && w->it == w->prm.claim_at) return MCB_ST_SOLVED;
        mcb_cb_action a = cb(ctx, k, NAN);
        if (a && !w->prm.deaf) return mcb_status_from_cb(a);
    }
    return MCB_ST_MAX_ITERS;
}
static size_t geo_state_size(void *work)
{
    (void)work;
    return sizeof(int);
}
static void geo_save_state(void *work, void *buf) { memcpy(buf, &((geo_work *)work)->it, sizeof(int)); }
static void geo_load_state(void *work, const void *buf)
{
    geo_work *w = work;
    geo_loads++;
    memcpy(&w->it, buf, sizeof(int));
    w->it0 = w->it;
}
static void geo_iterate(void *work, double *v, double *lambda)
{
    geo_work *w = work;
    fx_point_solution(FX_SLIP, v, lambda);
    const geo_params *p = &w->prm;
    if (geo_calls == 1 && geo_nseen < 4096) geo_seen[geo_nseen++] = w->it;
    int drop = p->drop_at && w->it >= p->drop_at && !(p->once && geo_calls > 1);
    if (drop && p->drop == 0) return;
    double f = p->bump_at && w->it >= p->bump_at ? p->bump : 1.0;
    if (drop) f *= p->drop;
    if (p->dip_len && w->it >= p->dip_at && w->it < p->dip_at + p->dip_len)
        f *= p->dip > 0 ? p->dip : 0.6;
    lambda[0] += f * (pow(10.0, -w->it / p->decade) + p->plateau);
}
static void geo_free(void **work)
{
    if (work) {
        free(*work);
        *work = NULL;
    }
}
static const mcb_param_desc geo_desc[] = {
    {"decade", 'd', offsetof(geo_params, decade), "iterations per decade"},
    {"drop_at", 'i', offsetof(geo_params, drop_at), "exact from this iteration"},
    {"fault", 'i', offsetof(geo_params, fault), "crash at iteration 3"},
    {"bump_at", 'i', offsetof(geo_params, bump_at), "100 times the perturbation from here"},
    {"dip_at", 'i', offsetof(geo_params, dip_at), "dip times over dip_len iterations from here"},
    {"dip_len", 'i', offsetof(geo_params, dip_len), "length of the dip"},
    {"bump", 'd', offsetof(geo_params, bump), "the factor from bump_at on"},
    {"drop", 'd', offsetof(geo_params, drop), "the factor from drop_at on (0: exact)"},
    {"once", 'i', offsetof(geo_params, once), "drop_at in the first solve() call alone"},
    {"dip", 'd', offsetof(geo_params, dip), "the factor over the dip (0: 0.6)"},
    {"plateau", 'd', offsetof(geo_params, plateau), "added to 10^(-k/decade)"},
    {"claim_at", 'i', offsetof(geo_params, claim_at), "stop here claiming solved"},
    {"deaf", 'i', offsetof(geo_params, deaf), "ignore the harness's answers"}};
#define GEO_FIELDS                                                                          \
    .description = "test solver", .reference = "none", .accepts = MCB_ACCEPTS_PRIMAL,      \
    .params_size = sizeof(geo_params), .default_params = geo_defaults, .params = geo_desc, \
    .nparams = 13, .setup = geo_setup, .solve = geo_solve, .iterate = geo_iterate,           \
    .free = geo_free
static const mcb_solver_def geo = {.name = "geo", GEO_FIELDS};
static const mcb_solver_def geo_r = {.name = "geo-r", GEO_FIELDS, .state_size = geo_state_size,
                                     .save_state = geo_save_state,
                                     .load_state = geo_load_state};
/* the schedule tests loop over both (_i: the loop index of tcase_add_loop_test) */
static const mcb_solver_def *const geos[2] = {&geo, &geo_r};
static const mcb_solver_def *geo_def = &geo;

static mcb_run run_geo(mcb_campaign_opts *o, geo_params *prm)
{
    mcb_problem *P = fx_point_contact(FX_SLIP);
    mcb_metrics_ws *ws = NULL;
    mcb_metrics_ws_new(P, &ws, NULL);
    mcb_run run = {0};
    ck_assert_int_eq(mcb_run_one(P, ws, geo_def, prm, o, &run, NULL), MCB_OK);
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
    return run;
}

/* The schedule tests' options: defaults, max_iters, no time limit, the
 * observed pass's own figures (no clean rerun). */
static mcb_campaign_opts schedule_opts(int max_iters)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = max_iters;
    o.settings.time_limit_s = 0;
    o.timing = MCB_TIMING_OBSERVED;
    return o;
}

/* The auto schedule reports the first iteration meeting the tolerance to
 * within 1% (against a check at every iteration), with far fewer checks,
 * for slow and fast geometric convergence. */
START_TEST(schedule_within_one_percent)
{
    geo_def = geos[_i];
    const double decades[] = {5, 50, 400, 3000};
    for (int d = 0; d < 4; d++) {
        mcb_campaign_opts o = schedule_opts(1000000);
        geo_params p = {decades[d], 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0};
        o.check_every = 1;
        mcb_run exact = run_geo(&o, &p);
        o.check_every = MCB_CHECK_AUTO;
        mcb_run aut = run_geo(&o, &p);
        ck_assert_int_eq(exact.info.status, MCB_ST_SOLVED);
        ck_assert_int_eq(aut.info.status, MCB_ST_SOLVED);
        int k = exact.info.iterations;
        ck_assert_msg(aut.info.iterations >= k && aut.info.iterations <= k + k / 100 + 1,
                      "decade %g: first met at %d, the auto schedule says %d", decades[d], k,
                      aut.info.iterations);
        /* typically 20-50; the cost stride follows the clock, so a loaded
         * machine adds checks: the bound is loose */
        ck_assert_msg(aut.checks <= 60 + k / 10,
                      "decade %g: %d checks for %d iterations", decades[d], aut.checks, k);
        mcb_run_clear(&exact);
        mcb_run_clear(&aut);
    }
}
END_TEST

/* Accuracy tiers: the first check meeting each tier is a trace row, and
 * the schedule aims at each tier as at the tolerance, so that the trace's
 * first row at or below a tier is within 1% of the first iteration meeting
 * it (check_every 1, exact). The residual is about 0.8 x 10^(-k/decade)
 * (natmap of the perturbed point contact), so the tiers are crossed
 * at k around 50 x 3.9 = 195, 295, 395 for decade 50 and at 40 x those for
 * decade 2000. Without the tier rows the trace follows the cost stride
 * alone (at most doubling: far more than 1% late). */
static int first_row_at_or_below(const mcb_run *r, double tier)
{
    for (int k = 0; k < r->trace_rows; k++)
        if (r->trace[(size_t)k * MCB_TRACE_COLS + 2 + MCB_M_NATMAP] <= tier)
            return (int)r->trace[(size_t)k * MCB_TRACE_COLS];
    return -1;
}

START_TEST(tiers_are_traced_within_one_percent)
{
    geo_def = geos[_i];
    const double decades[] = {50, 2000};
    for (int d = 0; d < 2; d++) {
        mcb_campaign_opts o = schedule_opts(1000000);
        o.settings.tol = 1e-8;
        o.ntiers = 3;
        o.tiers[0] = 1e-4;
        o.tiers[1] = 1e-6;
        o.tiers[2] = 1e-8;
        geo_params p = {decades[d], 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0};
        o.check_every = 1;
        mcb_run exact = run_geo(&o, &p);
        o.check_every = MCB_CHECK_AUTO;
        mcb_run aut = run_geo(&o, &p);
        ck_assert_int_eq(aut.info.status, MCB_ST_SOLVED);
        for (int t = 0; t < 3; t++) {
            int k = first_row_at_or_below(&exact, o.tiers[t]);
            int a = first_row_at_or_below(&aut, o.tiers[t]);
            ck_assert_msg(k > 0 && a >= k && a <= k + k / 100 + 1,
                          "decade %g, tier %g: first met at %d, the trace says %d", decades[d],
                          o.tiers[t], k, a);
        }
        /* the harness stopped it: no own stop, its own status follows the answer */
        ck_assert_int_eq(aut.own_stop, 0);
        ck_assert_int_eq(aut.own_status, MCB_ST_SOLVED);
        mcb_run_clear(&exact);
        mcb_run_clear(&aut);
    }
}
END_TEST

/* The solver's own word beside the harness's verdict: a claim at
 * iteration 30 (residual about 0.8 x 10^-0.6, far above tol) is refuted
 * (stalled, a wrong claim); a solver deaf to the harness that claims at
 * 600, after the tolerance was met near 400, is confirmed and stopped
 * after a check that had met it already. */
START_TEST(claims_are_recorded_and_judged)
{
    geo_def = geos[_i];
    mcb_campaign_opts o = schedule_opts(100000);
    o.settings.tol = 1e-8;
    geo_params p = {50, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 30, 0};
    mcb_run r = run_geo(&o, &p);
    ck_assert_int_eq(r.own_status, MCB_ST_SOLVED);
    ck_assert_int_eq(r.own_stop, 1);
    ck_assert_int_eq(r.info.status, MCB_ST_STALLED);
    mcb_run_rec rec;
    mcb_rec_view(&r, 0, "", &rec);
    mcb_claim c;
    mcb_claim_of(&rec, 2 + MCB_M_NATMAP, o.settings.tol, &c);
    ck_assert(c.known && c.own_stop && c.claimed && c.wrong && !c.confirmed);
    ck_assert(!c.met_before_stop && !c.unclaimed_met);
    mcb_run_clear(&r);

    geo_params q = {50, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 600, 1};
    r = run_geo(&o, &q);
    ck_assert_int_eq(r.own_stop, 1);
    ck_assert_int_eq(r.info.iterations, 600);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    mcb_rec_view(&r, 0, "", &rec);
    mcb_claim_of(&rec, 2 + MCB_M_NATMAP, o.settings.tol, &c);
    ck_assert(c.claimed && c.confirmed && !c.wrong && c.met_before_stop);
    mcb_run_clear(&r);
}
END_TEST

/* A residual that suddenly drops to zero defeats the prediction: the
 * harness sees the tolerance met far after its last unmet check and
 * locates the exact iteration with a rerun. */
START_TEST(sudden_drop_is_located)
{
    geo_def = geos[_i];
    mcb_campaign_opts o = schedule_opts(100000);
    geo_params p = {4000, 3001, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0}; /* exact from iteration 3001, residual ~1e-1 before */
    geo_setups = 0;
    mcb_run r = run_geo(&o, &p);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    /* geo is set up again and reruns; geo-r resumes from its state at the
     * last unmet check */
    if (r.timing == MCB_TIMED_LOCATED) ck_assert_int_eq(geo_setups, geo_def == &geo_r ? 1 : 2);
    /* located by a rerun, unless a loaded machine's clock made the checks
     * dense enough to see the drop within 1% */
    ck_assert_msg(r.timing == MCB_TIMED_LOCATED || r.checks > 20, "timing %s after %d checks",
                  mcb_timed_name(r.timing), r.checks);
    ck_assert_msg(r.info.iterations >= 3001 && r.info.iterations <= 3001 + 30,
                  "located at %d, the drop is at 3001", r.info.iterations);
    /* the trace ends at the located iteration */
    ck_assert_double_eq(r.trace[(size_t)(r.trace_rows - 1) * MCB_TRACE_COLS], r.info.iterations);
    mcb_run_clear(&r);
}
END_TEST

/* A solver that does not repeat itself: locate never meets the tolerance
 * again, so the run keeps pass 1's figures (observed-rerun-differed), and
 * with them pass 1's final iterate: the saved solution and the formulation
 * residual are those of the iterate that was judged, not of locate's last
 * check. */
START_TEST(locate_that_differs_keeps_pass1)
{
    geo_def = geos[_i];
    mcb_campaign_opts o = schedule_opts(20000);
    o.save_solutions = 1;
    geo_params p = {4000, 3001, 0, 0, 0, 0, 100, 0, 1, 0, 0, 0, 0};
    geo_calls = 0;
    mcb_run r = run_geo(&o, &p);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    /* located, unless a loaded machine's clock made the checks dense enough
     * to see the drop within 1% (then nothing runs again) */
    if (geo_calls > 1) {
        ck_assert_int_eq(r.timing, MCB_TIMED_RERUN_DIFFERED);
        ck_assert(r.final.val[MCB_M_NATMAP] <= o.settings.tol);
        ck_assert_msg(r.form_residual == r.final.val[MCB_M_NATMAP],
                      "formulation residual %g, final natmap %g", r.form_residual,
                      r.final.val[MCB_M_NATMAP]);
        mcb_problem *P = fx_point_contact(FX_SLIP);
        mcb_metrics_ws *ws = NULL;
        ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
        double nat = mcb_metrics_one(ws, MCB_M_NATMAP, r.v, r.lambda);
        ck_assert_msg(nat == r.final.val[MCB_M_NATMAP], "saved solution's natmap %g, final %g",
                      nat, r.final.val[MCB_M_NATMAP]);
        mcb_metrics_ws_free(&ws);
        mcb_problem_free(&P);
    }
    mcb_run_clear(&r);
}
END_TEST

/* A non-monotone residual near the tolerance: it rises (x2, 1500
 * iterations before it would first meet the tolerance), then dips by a
 * factor 0.6 for one iteration, 700 iterations before it meets the
 * tolerance for good (decade 4000: there it is 1.5 x tol, so the dip meets
 * it), then rises again. A strided schedule misses a one-iteration dip (it
 * reports the later crossing, 700 iterations on); having seen the rise, the
 * harness checks every iteration near the tolerance and reports the dip,
 * as a check at every iteration does. */
static mcb_run run_both(mcb_campaign_opts *o, geo_params *p, mcb_run *exact)
{
    o->check_every = 1;
    *exact = run_geo(o, p);
    o->check_every = MCB_CHECK_AUTO;
    return run_geo(o, p);
}

START_TEST(dip_after_rise_is_found)
{
    geo_def = geos[_i];
    mcb_campaign_opts o = schedule_opts(100000);
    geo_params p = {4000, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0};
    o.check_share = 1e-9; /* the strides follow the residual alone (below) */
    mcb_run exact, r = run_both(&o, &p, &exact);
    /* 2.4 x tol before the rise (the gap across it is not low), 4.7 x tol
     * after it */
    p.bump_at = exact.info.iterations - 1500;
    mcb_run_clear(&exact);
    mcb_run_clear(&r);
    r = run_both(&o, &p, &exact);
    int k0 = exact.info.iterations; /* for good, without the dip */
    mcb_run_clear(&exact);
    mcb_run_clear(&r);
    p.dip_at = k0 - 700;
    p.dip_len = 1;
    r = run_both(&o, &p, &exact);
    ck_assert_int_eq(exact.info.status, MCB_ST_SOLVED);
    ck_assert_int_eq(exact.info.iterations, p.dip_at);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    ck_assert_msg(r.info.iterations == p.dip_at,
                  "reported %d, the tolerance is first met at %d (timing %s, %d checks)",
                  r.info.iterations, p.dip_at, mcb_timed_name(r.timing), r.checks);
    ck_assert_double_eq(r.trace[(size_t)(r.trace_rows - 1) * MCB_TRACE_COLS], r.info.iterations);
    ck_assert(r.final.val[MCB_M_NATMAP] <= o.settings.tol);
    /* checks: the dense stretch from 4 x tol after the rise to the dip
     * (at most about 1700 iterations) and the rest, against 32 000 for a
     * check at every iteration. With a check made to cost far more than an
     * iteration, the rest doubles its strides or follows the prediction,
     * and both counts are the same in every build and under any load (1817
     * checks, 18 trace rows); with the default check_share they follow the
     * clock: a geo iteration takes nanoseconds, so one preemption of the
     * test inflates the mean iteration time and shrinks the strides (384
     * trace rows in one run beside a clean-clone CI run) */
    ck_assert_msg(r.checks < 1700 + 200, "%d checks", r.checks);
    /* the dense checks compute the stop metric alone: trace rows keep the
     * strided schedule */
    ck_assert_msg(r.trace_rows < 40, "%d trace rows for %d checks", r.trace_rows, r.checks);
    mcb_run_clear(&exact);
    mcb_run_clear(&r);
}
END_TEST

/* After a rise, a residual that falls from far above the tolerance to 0 in
 * one iteration (drop_at) is met after a gap between checks: the locate
 * rerun checks every iteration of that gap and finds the drop exactly. */
START_TEST(drop_after_rise_is_exact)
{
    geo_def = geos[_i];
    mcb_campaign_opts o = schedule_opts(100000);
    geo_params p = {4000, 3001, 0, 1000, 0, 0, 100, 0, 0, 0, 0, 0, 0};
    mcb_run exact, r = run_both(&o, &p, &exact);
    ck_assert_int_eq(exact.info.iterations, 3001);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    ck_assert_msg(r.info.iterations == 3001, "reported %d (timing %s, %d checks)",
                  r.info.iterations, mcb_timed_name(r.timing), r.checks);
    ck_assert_double_eq(r.trace[(size_t)(r.trace_rows - 1) * MCB_TRACE_COLS], 3001);
    mcb_run_clear(&exact);
    mcb_run_clear(&r);
    /* under --timing auto the located run is then timed by a clean rerun
     * (or keeps the observed time when that rerun differs) */
    o.timing = MCB_TIMING_AUTO;
    r = run_geo(&o, &p);
    ck_assert_int_eq(r.info.iterations, 3001);
    ck_assert(r.timing == MCB_TIMED_CLEAN || r.timing == MCB_TIMED_RERUN_DIFFERED ||
              r.timing == MCB_TIMED_LOCATED);
    mcb_run_clear(&r);
}
END_TEST

/* PJ's shape on Capsules: a plateau far above the tolerance with a rise
 * on it (x100 at iteration 300), a fall to 1.9 x tol at iteration 601
 * inside a gap between checks (a low gap: the residual may have dipped
 * below the tolerance there), then a slow approach, checked on the strided
 * schedule, that meets it about 1100 iterations later. The strides at most
 * double, so the check after the fall comes by 1202 and the gap before it
 * starts after 300; the approach then has checks that miss the tolerance.
 * Locate checks every iteration of the low gap and the iterations near the
 * end; a resumable solver does so in two stages, from the state kept
 * before the gap and then from the one kept at the last check that missed,
 * without running the approach between them again. */
START_TEST(low_gap_then_slow_approach)
{
    geo_def = geos[_i];
    mcb_campaign_opts o = schedule_opts(100000);
    geo_params p = {4000, 0, 0, 300, 0, 0, 100, 0, 0, 0, 0, 0, 0};
    o.check_every = 1;
    mcb_run exact = run_geo(&o, &p);
    int k1 = exact.info.iterations; /* met without the drop */
    mcb_run_clear(&exact);
    p.drop_at = 601;
    p.drop = 1.9 * pow(10.0, -(k1 - p.drop_at) / p.decade);
    exact = run_geo(&o, &p);
    o.check_every = MCB_CHECK_AUTO;
    geo_calls = geo_loads = 0;
    geo_again = 0;
    geo_setups = 0;
    mcb_run r = run_geo(&o, &p);
    int k = exact.info.iterations;
    ck_assert_int_eq(exact.info.status, MCB_ST_SOLVED);
    ck_assert_msg(k > 601 + 1000 && k < 601 + 1250, "met at %d", k);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    ck_assert_msg(r.info.iterations >= k && r.info.iterations <= k + k / 100 + 1,
                  "first met at %d, reported %d (timing %s)", k, r.info.iterations,
                  mcb_timed_name(r.timing));
    ck_assert_double_eq(r.trace[(size_t)(r.trace_rows - 1) * MCB_TRACE_COLS], r.info.iterations);
    /* the low gap before the met check makes it located */
    ck_assert_msg(r.timing == MCB_TIMED_LOCATED, "timing %s", mcb_timed_name(r.timing));
    long again = geo_again;
    if (geo_def == &geo_r) {
        ck_assert_int_eq(geo_setups, 1);
        ck_assert_int_eq(geo_loads, 2);
        /* one stage would run everything from the gap's start (before the
         * fall at 601) to the end again; two run the gap and the last
         * stretch alone */
        ck_assert_msg(again < r.info.iterations - 601, "%ld iterations run again, %d in all",
                      again, r.info.iterations);
    } else {
        ck_assert_int_eq(geo_setups, 2);
        ck_assert_msg(again >= 601, "%ld iterations run again", again);
    }
    mcb_run_clear(&exact);
    mcb_run_clear(&r);
}
END_TEST

/* With a one-iteration dip to 0.2 x the residual at `at`: the observed
 * pass checks the iterations seen0[0..n0) up to `upto` again (the
 * deterministic schedule: the dip falls between checks), and the run is
 * located at the dip, the first iteration meeting the tolerance. */
static void dip_is_located(mcb_campaign_opts *o, geo_params *p, int at, const int *seen0,
                           int n0, int upto)
{
    p->dip_at = at;
    p->dip_len = 1;
    p->dip = 0.2;
    geo_calls = geo_nseen = 0;
    mcb_run r = run_geo(o, p);
    for (int k = 0; k < geo_nseen && k < n0 && seen0[k] <= upto; k++)
        ck_assert_msg(geo_seen[k] == seen0[k], "check %d at %d, %d before", k, geo_seen[k],
                      seen0[k]);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    ck_assert_msg(r.info.iterations == at, "met first at %d (a dip), reported %d (timing %s)",
                  at, r.info.iterations, mcb_timed_name(r.timing));
    ck_assert_msg(r.timing == MCB_TIMED_LOCATED, "timing %s", mcb_timed_name(r.timing));
    mcb_run_clear(&r);
}

/* The low gap's ends, with the checks where the test puts them: a check
 * made to cost far more than an iteration (check_share 1e-9) leaves the
 * strides to the residual alone (doubling, the prediction, the dense
 * stretch), so the observed pass checks the same iterations in every run
 * (asserted). The shape of low_gap_then_slow_approach: a rise at 300, then
 * a fall to 1.9 x tol inside the gap (a, b) between two checks; a one-
 * iteration dip to 0.2 x that at the gap's first iteration (the fall at
 * a + 1) or at its last (b - 1) is the first iteration meeting the
 * tolerance, and locate must find it there, not one iteration later. */
START_TEST(dip_at_either_end_of_a_low_gap)
{
    geo_def = geos[_i];
    mcb_campaign_opts o = schedule_opts(100000);
    o.check_share = 1e-9;
    geo_params p = {4000, 0, 0, 300, 0, 0, 100, 0, 0, 0, 0, 0, 0};
    o.check_every = 1;
    mcb_run exact = run_geo(&o, &p);
    int k1 = exact.info.iterations; /* met without the fall */
    mcb_run_clear(&exact);
    o.check_every = MCB_CHECK_AUTO;
    p.drop_at = 601;
    p.drop = 1.9 * pow(10.0, -(k1 - p.drop_at) / p.decade);
    geo_calls = geo_nseen = 0;
    mcb_run r = run_geo(&o, &p);
    mcb_run_clear(&r);
    int n0 = geo_nseen, seen0[4096], a = 0, b = 0;
    memcpy(seen0, geo_seen, sizeof seen0);
    for (int k = 0; k < n0 && !b; k++) {
        if (seen0[k] < p.drop_at) a = seen0[k];
        else b = seen0[k];
    }
    ck_assert_msg(a > 300 && b - a >= 3, "checks at %d and %d around the fall", a, b);
    const int at[2] = {a + 1, b - 1};
    for (int e = 0; e < 2; e++) {
        p.drop_at = e == 0 ? a + 1 : 601;
        dip_is_located(&o, &p, at[e], seen0, n0, b);
    }
}
END_TEST

/* More low gaps than the harness lists one by one (32): the last slot
 * stands for every later one, and locate checks every iteration from its
 * start in one stage, also for a solver that resumes (a second stage from
 * the last check that missed would skip the gaps after the list's end).
 * The schedule is deterministic as in dip_at_either_end_of_a_low_gap. Many
 * low gaps need a residual that levels off just above the tolerance (the
 * prediction then strides by a share of the iterations left, which never
 * runs out): 10^(-k/300) plus a plateau at (1 + 1e-4) x tol, scaled by the
 * natural map's slope on this contact (48 low gaps, 2362 to 5236). A rise
 * x2 at 6000 makes them suspect; the residual is exact from 8000 on (the
 * observed pass meets the tolerance there, after a check at every
 * iteration since it saw the rise, at 6378). A dip
 * below the tolerance inside a gap past the list's end is the first
 * iteration that meets it. */
START_TEST(dip_beyond_the_low_gap_list)
{
    geo_def = geos[_i];
    mcb_campaign_opts o = schedule_opts(100000);
    o.check_share = 1e-9;
    /* the stop metric's slope in lambda[0] */
    mcb_problem *P = fx_point_contact(FX_SLIP);
    mcb_metrics_ws *ws = NULL;
    ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
    double v[3], lambda[3];
    fx_point_solution(FX_SLIP, v, lambda);
    lambda[0] += 1e-3;
    double slope = mcb_metrics_one(ws, o.stop_metric, v, lambda) / 1e-3;
    mcb_metrics_ws_free(&ws);
    mcb_problem_free(&P);
    ck_assert(slope > 0);
    geo_params p = {300, 8000, 0, 6000, 0, 0, 2, 0, 0, 0, 0, 0, 0};
    p.plateau = (1 + 1e-4) * o.settings.tol / slope;
    geo_calls = geo_nseen = 0;
    mcb_run r = run_geo(&o, &p);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    ck_assert_int_eq(r.info.iterations, p.drop_at);
    mcb_run_clear(&r);
    int n0 = geo_nseen, seen0[4096], from[128], to[128], ngaps = 0;
    memcpy(seen0, geo_seen, sizeof seen0);
    /* the low gaps: an end at most 2 x tol, where 10^(-k/300) x slope is
     * at most tol (give or take the gap at that point: 48 in all, the 41st
     * is past the list's end either way) */
    int low_from = (int)ceil(300 * log10(slope / o.settings.tol));

    for (int k = 0; k + 1 < n0 && seen0[k + 1] <= p.bump_at && ngaps < 128; k++)
        if (seen0[k + 1] >= low_from && seen0[k + 1] > seen0[k] + 1) {
            from[ngaps] = seen0[k];
            to[ngaps++] = seen0[k + 1];
        }
    const int g = 40;
    ck_assert_msg(ngaps > g && to[g] - from[g] >= 3, "%d low gaps before the rise", ngaps);
    dip_is_located(&o, &p, (from[g] + to[g]) / 2, seen0, n0, p.bump_at);
}
END_TEST

/* A rise with no dip (a residual monotone at the end, like PJ's on
 * Capsules, which wiggles on a plateau far above the tolerance): the rise
 * is no longer recent once the residual has fallen DIP^2 below it, so the
 * end is checked on the strided schedule, and the count agrees with a check
 * at every iteration. */
START_TEST(rise_without_dip_stays_exact)
{
    geo_def = geos[_i];
    mcb_campaign_opts o = schedule_opts(100000);
    geo_params p = {300, 0, 0, 500, 0, 0, 100, 0, 0, 0, 0, 0, 0};
    o.check_share = 1e-9; /* the strides follow the residual alone */
    o.check_every = 1;
    mcb_run exact = run_geo(&o, &p);
    o.check_every = MCB_CHECK_AUTO;
    mcb_run r = run_geo(&o, &p);
    ck_assert_int_eq(exact.info.status, MCB_ST_SOLVED);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    int k = exact.info.iterations;
    ck_assert_msg(r.info.iterations >= k && r.info.iterations <= k + k / 100 + 1,
                  "first met at %d, reported %d", k, r.info.iterations);
    /* no dense stretch: log10(4) x 300 = 180 iterations near the tolerance
     * would be checked one by one (28 checks, in every build: a check
     * made to cost far more than an iteration leaves the strides to the
     * residual, as in dip_at_either_end_of_a_low_gap) */
    ck_assert_msg(r.checks < 60, "%d checks for %d iterations", r.checks, k);
    mcb_run_clear(&exact);
    mcb_run_clear(&r);
}
END_TEST

/* --timing clean reruns unobserved to the same iteration count and keeps
 * the observed time beside it; --check-every 1 checks every iteration. */
START_TEST(clean_timing_and_exact_checks)
{
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 100000;
    o.settings.time_limit_s = 0;
    o.timing = MCB_TIMING_CLEAN;
    o.check_every = 1;
    geo_params p = {50, 0, 0, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0};
    mcb_run r = run_geo(&o, &p);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED);
    ck_assert_int_eq(r.timing, MCB_TIMED_CLEAN);
    ck_assert_int_eq(r.checks, r.info.iterations);
    ck_assert(r.observed_solve_s > 0 && r.info.solve_s > 0);
    mcb_run_clear(&r);
    /* never: the whole budget, one judgement at the end */
    o.check_every = MCB_CHECK_NEVER;
    o.timing = MCB_TIMING_OBSERVED;
    o.settings.max_iters = 1000;
    r = run_geo(&o, &p);
    ck_assert_int_eq(r.info.iterations, 1000);
    ck_assert_int_eq(r.checks, 0);
    ck_assert_int_eq(r.info.status, MCB_ST_SOLVED); /* met at the end, judged then */
    mcb_run_clear(&r);
}
END_TEST

/* ------------------------------------------------------------ isolation */

static const char *fault_name[] = {"none", "segv", "abort", "fpe", "loop", "alloc"};

/* A campaign: the faulty geo, then pgs; the fault costs geo's run only. */
START_TEST(crash_costs_one_run)
{
    int kind = _i;
#ifdef TEST_ASAN
    if (kind == F_ALLOC) return; /* no address-space limit under ASan (docs/robustness.md) */
#endif
    mcb_problem_set S = {0};
    mcb_problem *items[1] = {fx_point_contact(FX_SLIP)};
    S.count = 1;
    S.items = items;
    mcb_input in = {.set_name = "fixtures", .problems = &S};
    geo_params gp = {50, 0, kind, 0, 0, 0, 100, 0, 0, 0, 0, 0, 0};
    mcb_solver_choice ch[2] = {{&geo, &gp, NULL}, {mcb_solver_find("pgs"), NULL, NULL}};
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 1000;
    o.settings.time_limit_s = 0.5;
    char h5[256], csv[256];
    snprintf(h5, sizeof h5, "/tmp/mcb_crash_%d_%ld.h5", kind, (long)getpid());
    snprintf(csv, sizeof csv, "/tmp/mcb_crash_%d_%ld.csv", kind, (long)getpid());
    mcb_campaign C = {.in = &in, .nin = 1, .solvers = ch, .nsolvers = 2, .o = &o,
                      .command = "test", .h5_path = h5, .csv_path = csv,
                      .isolate = MCB_ISOLATE_AUTO, /* geo is not in the registry */
                      .mem_limit_mb = 256, .grace_s = 0.5};
    mcb_err err;
    ck_assert_msg(mcb_campaign_run(&C, &err) == MCB_OK, "%s: %s", fault_name[kind], err.msg);
    mcb_results_data *D = NULL;
    ck_assert_msg(mcb_results_read(h5, &D, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(D->count, 2);
    const mcb_run_rec *g = &D->runs[0], *p = &D->runs[1];
    ck_assert_str_eq(g->solver, "geo");
    int want = kind == F_LOOP ? MCB_ST_TIME_LIMIT : MCB_ST_CRASHED;
    ck_assert_msg(g->status == want, "%s: status %s (%s)", fault_name[kind],
                  mcb_status_name(g->status), g->reason);
#ifndef TEST_ASAN /* AddressSanitizer turns SIGSEGV and SIGFPE into its own exit code */
    if (kind == F_SEGV) ck_assert_msg(strstr(g->reason, "signal 11"), "%s", g->reason);
    if (kind == F_ABORT) ck_assert_msg(strstr(g->reason, "signal 6"), "%s", g->reason);
    if (kind == F_FPE) ck_assert_msg(strstr(g->reason, "signal 8"), "%s", g->reason);
#endif
    ck_assert_str_eq(p->solver, "pgs");
    ck_assert_int_eq(p->status, MCB_ST_SOLVED);
    mcb_results_data_free(&D);
    unlink(h5);
    unlink(csv);
    mcb_problem_free(&items[0]);
}
END_TEST

/* Runs pgs and `second` on two fixtures with `threads` OpenMP threads, first
 * in this process (--isolate never), then each run in a forked child
 * (--isolate always), and checks that both give the same statuses,
 * iterations and residuals. */
static void isolated_equals_in_process_with(const char *second, int threads)
{
    mcb_problem_set S = {0};
    mcb_problem *items[2] = {fx_point_contact(FX_SLIP), fx_small_stack()};
    S.count = 2;
    S.items = items;
    mcb_input in = {.set_name = "fixtures", .problems = &S};
    mcb_solver_choice ch[2] = {{mcb_solver_find("pgs"), NULL, NULL}, {mcb_solver_find(second), NULL, NULL}};
    ck_assert_ptr_nonnull(ch[1].def);
    mcb_campaign_opts o;
    mcb_campaign_defaults(&o);
    o.settings.max_iters = 500;
    o.settings.threads = threads;
    o.settings.time_limit_s = 5; /* a child that hangs is killed at 2 x 5 + 5 s */
    /* every iterate is judged: the automatic check schedule follows measured
     * costs, so on a residual that is not monotone the first iteration seen
     * within tolerance may differ by one between two runs of either kind */
    o.check_every = 1;
    mcb_results_data *D[2] = {NULL, NULL};
    for (int iso = 0; iso < 2; iso++) {
        char h5[256], csv[256];
        snprintf(h5, sizeof h5, "/tmp/mcb_iso_%d_%ld.h5", iso, (long)getpid());
        snprintf(csv, sizeof csv, "/tmp/mcb_iso_%d_%ld.csv", iso, (long)getpid());
        mcb_campaign C = {.in = &in, .nin = 1, .solvers = ch, .nsolvers = 2, .o = &o,
                          .command = "test", .h5_path = h5, .csv_path = csv,
                          .isolate = iso ? MCB_ISOLATE_ALWAYS : MCB_ISOLATE_NEVER,
                          .mem_limit_mb = 4096, .grace_s = 5};
        mcb_err err;
        ck_assert_msg(mcb_campaign_run(&C, &err) == MCB_OK, "%s", err.msg);
        ck_assert_msg(mcb_results_read(h5, &D[iso], &err) == MCB_OK, "%s", err.msg);
        unlink(h5);
        unlink(csv);
    }
    ck_assert_int_eq(D[0]->count, 4);
    ck_assert_int_eq(D[1]->count, 4);
    for (int k = 0; k < 4; k++) {
        const mcb_run_rec *a = &D[0]->runs[k], *b = &D[1]->runs[k];
        ck_assert_str_eq(a->solver, b->solver);
        ck_assert_msg(a->status == b->status, "%s run %d: %s in process, %s isolated (%s)",
                      a->solver, k, mcb_status_name(a->status), mcb_status_name(b->status),
                      b->reason);
        ck_assert_int_eq(a->iterations, b->iterations);
        ck_assert_double_eq(a->final.val[MCB_M_NATMAP], b->final.val[MCB_M_NATMAP]);
    }
    mcb_results_data_free(&D[0]);
    mcb_results_data_free(&D[1]);
    mcb_problem_free(&items[0]);
    mcb_problem_free(&items[1]);
}

START_TEST(isolated_equals_in_process)
{
    isolated_equals_in_process_with("subadmm", 1);
}
END_TEST

/* pj with two OpenMP threads in this process leaves GNU libgomp's pool
 * behind; an isolated run forked after it must still run its own parallel
 * regions (a child forked with the pool in place waited for threads that
 * do not exist in it until it was killed: status time-limit). */
START_TEST(isolated_after_threads_in_process)
{
    isolated_equals_in_process_with("pj", 2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("campaign");
    TCase *tc = tcase_create("schedule");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, schedule_within_one_percent, 0, 2);
    tcase_add_loop_test(tc, sudden_drop_is_located, 0, 2);
    tcase_add_loop_test(tc, low_gap_then_slow_approach, 0, 2);
    tcase_add_loop_test(tc, dip_at_either_end_of_a_low_gap, 0, 2);
    tcase_add_loop_test(tc, dip_beyond_the_low_gap_list, 0, 2);
    tcase_add_loop_test(tc, locate_that_differs_keeps_pass1, 0, 2);
    tcase_add_loop_test(tc, dip_after_rise_is_found, 0, 2);
    tcase_add_loop_test(tc, drop_after_rise_is_exact, 0, 2);
    tcase_add_loop_test(tc, rise_without_dip_stays_exact, 0, 2);
    tcase_add_test(tc, clean_timing_and_exact_checks);
    tcase_add_loop_test(tc, tiers_are_traced_within_one_percent, 0, 2);
    tcase_add_loop_test(tc, claims_are_recorded_and_judged, 0, 2);
    suite_add_tcase(s, tc);
    TCase *ti = tcase_create("isolation");
    tcase_set_timeout(ti, 120);
    tcase_add_loop_test(ti, crash_costs_one_run, F_SEGV, F_ALLOC + 1);
    tcase_add_test(ti, isolated_equals_in_process);
    tcase_add_test(ti, isolated_after_threads_in_process);
    suite_add_tcase(s, ti);
    return mcb_run_suite(s);
}

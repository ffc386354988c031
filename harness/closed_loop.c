/* closed_loop.c: closed-loop runs (closed_loop.h; docs/closed-loop.md). A run is the
 * scene's generator driven through the world's loop hook (world.h):
 *   solve  (stage 5 of every step): mcb_run_one on the step's subproblem,
 *          the solver's final (v, lambda) handed back to the world as they
 *          are; the step's row gets the solver's status, iterations,
 *          setup and solve times and the harness's metrics of its answer;
 *   after  (after the advance): the engine's time of the step, the energy,
 *          the joint drift, the divergence from the reference trajectory
 *          and the scene's outcome; then the failure checks.
 * A failure stops the scene through the hook (MCB_E_STOPPED) and the run
 * is recorded as failed-in-loop at that step with the reason. The
 * reference trajectory is the same generator with the world's own solve,
 * its poses after every step cached in a small checksummed file. */
#include "harness/closed_loop.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/context.h"
#include "lib/mcb_sha256.h"
#include "lib/mcb_timer.h"
#include "harness/whole_step.h"
#include "problems/scene/world.h"
#include "problems/scene/xpbd.h"

#define POSE_DOUBLES 12 /* rotation (row-major) and position per body */
#define REF_MAGIC "mcbench-reference 2" /* 2: the outcome after each step follows the poses */

/* ---------------------------------------------------------- instances */

static int opt_index(const mcb_scene_def *def, const char *name)
{
    for (int k = 0; k < MCB_SCENE_MAX_OPTS && def->opts[k].name; k++)
        if (!strcmp(def->opts[k].name, name)) return k;
    return -1;
}

mcb_rc mcb_loop_instance_init(mcb_loop_instance *I, const mcb_scene_def *scene,
                              const double *vals, const char *name, mcb_err *err)
{
    if (!I || !scene || !vals || !name) return mcb_fail(err, MCB_E_INPUT, "loop: NULL argument");
    memset(I, 0, sizeof *I);
    I->scene = scene;
    for (int k = 0; k < MCB_SCENE_MAX_OPTS && scene->opts[k].name; k++) I->vals[k] = vals[k];
    snprintf(I->name, sizeof I->name, "%s", name);
    mcb_scene_args(scene, I->vals, I->args, sizeof I->args);
    if (!scene->trajectory || opt_index(scene, "steps") < 0)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: not one trajectory of the scene engine (independent cases, or its "
                        "own stepping): it cannot run in a closed loop",
                        scene->name);
    return MCB_OK;
}

void mcb_loop_instance_clear(mcb_loop_instance *I)
{
    if (!I) return;
    free(I->ref_pose);
    I->ref_pose = NULL;
    free(I->ref_outcome);
    I->ref_outcome = NULL;
    I->ref_steps = I->ref_bodies = 0;
}

/* Every body's pose (12 doubles each) into out. */
static void world_poses(mcb_world *w, int nb, double *out)
{
    for (int b = 0; b < nb; b++) {
        const mcb_xform *X = mcb_world_body_pose(w, b);
        double *o = out + (size_t)b * POSE_DOUBLES;
        if (!X) {
            for (int i = 0; i < POSE_DOUBLES; i++) o[i] = NAN;
            continue;
        }
        memcpy(o, X->R, 9 * sizeof(double));
        memcpy(o + 9, X->p, 3 * sizeof(double));
    }
}

/* ---------------------------------------------------- the reference run */

typedef struct {
    double *pose;
    double *outcome; /* the scene's outcome after each step (NaN: none) */
    int steps, cap, bodies;
} ref_acc;

static mcb_rc ref_after(void *c, mcb_world *w, const mcb_step_info *info, mcb_err *err)
{
    (void)info;
    ref_acc *R = c;
    int nb = mcb_world_nbodies(w);
    if (R->steps == 0) R->bodies = nb;
    if (nb != R->bodies)
        return mcb_fail(err, MCB_E_INPUT, "loop: the scene's body count changed (%d, then %d)",
                        R->bodies, nb);
    if (R->steps == R->cap) {
        int cap = R->cap ? 2 * R->cap : 64;
        double *p = realloc(R->pose, (size_t)cap * (size_t)(nb ? nb : 1) * POSE_DOUBLES *
                                         sizeof(double));
        if (!p) return mcb_fail(err, MCB_E_NOMEM, "loop: out of memory");
        R->pose = p;
        double *o = realloc(R->outcome, (size_t)cap * sizeof(double));
        if (!o) return mcb_fail(err, MCB_E_NOMEM, "loop: out of memory");
        R->outcome = o;
        R->cap = cap;
    }
    world_poses(w, nb, R->pose + (size_t)R->steps * (size_t)nb * POSE_DOUBLES);
    const mcb_world_outcome *out = mcb_world_get_outcome(w);
    R->outcome[R->steps] = out ? out->eval(out->ctx, w) : NAN;
    R->steps++;
    return MCB_OK;
}

/* The cache key: the scene's arguments and this build. A build whose
 * digest cannot be read ("unknown") caches nothing (ref_path). */
static void ref_key(const mcb_loop_instance *I, char *key, size_t len)
{
    snprintf(key, len, "%s\nbuild sha256 %s", I->args, mcb_build_digest());
}

static void ref_path(const mcb_loop_instance *I, const char *dir, const char *key, char *path,
                     size_t len)
{
    mcb_sha256 s;
    char hex[65];
    mcb_sha256_init(&s);
    mcb_sha256_update(&s, key, strlen(key));
    mcb_sha256_hex(&s, hex);
    snprintf(path, len, "%s/%s-%.16s.ref", dir, I->scene->name, hex);
}

/* The cache file: magic line, key (two lines), "steps bodies", the poses
 * as raw doubles, the outcomes (one per step) as raw doubles, and the
 * SHA-256 of everything before it. A file that
 * does not match in every respect is ignored (recomputed). */
static int ref_read(mcb_loop_instance *I, const char *path, const char *key)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int ok = 0;
    char *buf = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) || st.st_size < 64 || st.st_size > ((off_t)1 << 34)) goto done;
    size_t n = (size_t)st.st_size;
    if (!(buf = malloc(n + 1)) || fread(buf, 1, n, f) != n) goto done;
    buf[n] = '\0';
    mcb_sha256 s;
    char hex[65];
    mcb_sha256_init(&s);
    mcb_sha256_update(&s, buf, n - 64);
    mcb_sha256_hex(&s, hex);
    if (memcmp(hex, buf + n - 64, 64)) goto done;
    size_t head = strlen(REF_MAGIC) + 1 + strlen(key) + 1;
    if (head >= n - 64 || strncmp(buf, REF_MAGIC "\n", strlen(REF_MAGIC) + 1) ||
        strncmp(buf + strlen(REF_MAGIC) + 1, key, strlen(key)) || buf[head - 1] != '\n')
        goto done;
    int steps = 0, bodies = 0, used = 0;
    if (sscanf(buf + head, "%d %d\n%n", &steps, &bodies, &used) != 2 || steps < 1 || bodies < 0)
        goto done;
    size_t count = (size_t)steps * (size_t)bodies * POSE_DOUBLES;
    if (head + (size_t)used + (count + (size_t)steps) * sizeof(double) + 64 != n) goto done;
    double *pose = malloc(count * sizeof(double) + 1);
    double *outc = malloc((size_t)steps * sizeof(double));
    if (!pose || !outc) {
        free(pose);
        free(outc);
        goto done;
    }
    memcpy(pose, buf + head + used, count * sizeof(double));
    memcpy(outc, buf + head + used + count * sizeof(double), (size_t)steps * sizeof(double));
    I->ref_pose = pose;
    I->ref_outcome = outc;
    I->ref_steps = steps;
    I->ref_bodies = bodies;
    ok = 1;
done:
    free(buf);
    fclose(f);
    return ok;
}

/* Written under a temporary name, renamed into place. */
static mcb_rc ref_write(const mcb_loop_instance *I, const char *path, const char *key,
                        mcb_err *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.partial%ld", path, (long)getpid());
    size_t count = (size_t)I->ref_steps * (size_t)I->ref_bodies * POSE_DOUBLES;
    char head[2048];
    int hl = snprintf(head, sizeof head, "%s\n%s\n%d %d\n", REF_MAGIC, key, I->ref_steps,
                      I->ref_bodies);
    if (hl < 0 || (size_t)hl >= sizeof head)
        return mcb_fail(err, MCB_E_INPUT, "%s: reference key too long", path);
    mcb_sha256 s;
    char hex[65];
    mcb_sha256_init(&s);
    mcb_sha256_update(&s, head, (size_t)hl);
    mcb_sha256_update(&s, I->ref_pose, count * sizeof(double));
    mcb_sha256_update(&s, I->ref_outcome, (size_t)I->ref_steps * sizeof(double));
    mcb_sha256_hex(&s, hex);
    FILE *f = fopen(tmp, "wb");
    if (!f) return mcb_fail(err, MCB_E_IO, "%s: cannot write (%s)", tmp, strerror(errno));
    int bad = fwrite(head, 1, (size_t)hl, f) != (size_t)hl ||
              fwrite(I->ref_pose, sizeof(double), count, f) != count ||
              fwrite(I->ref_outcome, sizeof(double), (size_t)I->ref_steps, f) !=
                  (size_t)I->ref_steps ||
              fwrite(hex, 1, 64, f) != 64;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        unlink(tmp);
        return mcb_fail(err, MCB_E_IO, "%s: cannot write the reference trajectory (%s)", path,
                        strerror(errno));
    }
    return MCB_OK;
}

/* The scene's first step as `gen` records it (steps = 1), named after the
 * instance. */
static mcb_rc first_step(const mcb_loop_instance *I, mcb_problem **first, mcb_err *err)
{
    double vals[MCB_SCENE_MAX_OPTS];
    memcpy(vals, I->vals, sizeof vals);
    vals[opt_index(I->scene, "steps")] = 1;
    mcb_problem_set *S = NULL;
    mcb_rc rc = I->scene->generate(vals, NULL, &S, err);
    if (!rc && (!S || S->count < 1))
        rc = mcb_fail(err, MCB_E_INPUT, "%s: the scene recorded no step", I->name);
    if (!rc) {
        mcb_problem *P = S->items[0];
        char *nm = mcb_strdup(I->name);
        if (!nm) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        else {
            free(P->name);
            P->name = nm;
            S->items[0] = NULL;
            *first = P;
        }
    }
    mcb_problem_set_free(&S);
    return rc;
}

mcb_rc mcb_loop_reference(mcb_loop_instance *I, const char *cache_dir, mcb_problem **first,
                          mcb_err *err)
{
    if (first) *first = NULL;
    if (!I || !I->scene) return mcb_fail(err, MCB_E_INPUT, "loop: NULL instance");
    mcb_loop_instance_clear(I);
    char key[2048], path[4200] = "";
    ref_key(I, key, sizeof key);
    if (cache_dir && strcmp(mcb_build_digest(), "unknown")) ref_path(I, cache_dir, key, path, sizeof path);
    mcb_rc rc = MCB_OK;
    if (!(path[0] && ref_read(I, path, key))) {
        ref_acc R = {0};
        mcb_world_loop L = {NULL, ref_after, &R, NULL};
        mcb_problem_set *S = NULL;
        double t0 = mcb_now_s();
        rc = I->scene->generate(I->vals, &L, &S, err);
        mcb_problem_set_free(&S);
        if (rc) {
            free(R.pose);
            free(R.outcome);
            char msg[MCB_ERR_LEN];
            snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
            return mcb_fail(err, rc, "%s: the reference trajectory failed: %s", I->name, msg);
        }
        I->ref_pose = R.pose;
        I->ref_outcome = R.outcome;
        I->ref_steps = R.steps;
        I->ref_bodies = R.bodies;
        I->ref_s = mcb_now_s() - t0;
        if (path[0]) rc = ref_write(I, path, key, err);
    }
    if (!rc && first) rc = first_step(I, first, err);
    return rc;
}

/* ------------------------------------------------------------ the run */

typedef struct {
    const mcb_loop_instance *I;
    const mcb_solver_def *def;
    const void *params;
    mcb_campaign_opts o;  /* the campaign's, keeping the final solution */
    double *rows;
    int nrows, cap;
    double *pose;         /* the current poses (bodies x 12) */
    int bodies;
    double pen_bound_m, energy_bound_J, E0;
    double h_s;           /* the step's h */
    int status_count[MCB_NSTATUS];
    double *cur;          /* the row of the step being taken */
    int failed;           /* 1: stopped in the loop */
    int skipped;          /* 1: the solver does not take the scene's problems */
    int whole_step;       /* 1: a whole-step method (xpbd): the world advances by it */
    char reason[400];
} loop_ctx;

static mcb_rc stop(loop_ctx *c, mcb_err *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Records the failure, stops the scene. */
static mcb_rc stop(loop_ctx *c, mcb_err *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
    c->failed = 1;
    return mcb_fail(err, MCB_E_STOPPED, "%s", c->reason);
}

static mcb_rc new_row(loop_ctx *c, mcb_err *err)
{
    if (c->nrows == c->cap) {
        int cap = c->cap ? 2 * c->cap : 64;
        double *r = realloc(c->rows, (size_t)cap * MCB_STEP_COLS * sizeof(double));
        if (!r) return mcb_fail(err, MCB_E_NOMEM, "loop: out of memory");
        c->rows = r;
        c->cap = cap;
    }
    c->cur = c->rows + (size_t)c->nrows * MCB_STEP_COLS;
    for (int k = 0; k < MCB_STEP_COLS; k++) c->cur[k] = NAN;
    c->cur[MCB_SC_STEP] = c->nrows;
    return MCB_OK;
}

static int finite_vec(const double *x, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

/* Stage 5: the solver on the step's subproblem under the per-step budget. */
static mcb_rc loop_solve(void *cp, const mcb_problem *P, double *v, double *lambda, mcb_err *err)
{
    loop_ctx *c = cp;
    mcb_rc rc = new_row(c, err);
    if (rc) return rc;
    double *row = c->cur;
    row[MCB_SC_CONTACTS] = mcb_problem_contacts(P);
    row[MCB_SC_N] = P->n;
    row[MCB_SC_M] = P->m;
    mcb_metrics_ws *ws = NULL;
    if ((rc = mcb_metrics_ws_new(P, &ws, err))) return rc;
    mcb_run r = {0};
    rc = mcb_run_one(P, ws, c->def, c->params, &c->o, &r, err);
    if (rc) {
        mcb_metrics_ws_free(&ws);
        mcb_run_clear(&r);
        return rc;
    }
    /* the invertible contact model's forward and inverse contact forces
     * (COND's Fig. 13), where the contacts are compliant */
    double f[2];
    if (r.v && r.lambda && mcb_metrics_contact_forces(ws, r.v, r.lambda, f) && P->h > 0) {
        row[MCB_SC_CONTACT_FORCE_N] = f[0] / P->h;
        row[MCB_SC_INVERSE_FORCE_N] = f[1] / P->h;
    }
    mcb_metrics_ws_free(&ws);
    int st = r.info.status;
    row[MCB_SC_STATUS] = st;
    row[MCB_SC_ITERS] = r.info.iterations;
    row[MCB_SC_SETUP_S] = r.info.setup_s;
    row[MCB_SC_SOLVE_S] = r.info.solve_s;
    row[MCB_SC_MEASURE_S] = r.measure_s;
    for (int k = 0; k < MCB_NMETRICS; k++) row[MCB_SC_METRICS + k] = r.final.val[k];
    if (st >= 0 && st < MCB_NSTATUS) c->status_count[st]++;
    int step = c->nrows++;
    if (st == MCB_ST_SKIPPED) {
        c->skipped = 1;
        rc = stop(c, err, "step %d: %s", step, r.info.reason);
    } else if (!r.v || !r.lambda) {
        rc = stop(c, err, "step %d: the solver returned no solution (%s%s%s)", step,
                  mcb_status_name(st), r.info.reason[0] ? ": " : "", r.info.reason);
    } else if (!finite_vec(r.v, P->n) || !finite_vec(r.lambda, P->m)) {
        rc = stop(c, err, "step %d: the solver's solution is not finite (%s)", step,
                  mcb_status_name(st));
    } else {
        memcpy(v, r.v, (size_t)P->n * sizeof(double));
        memcpy(lambda, r.lambda, (size_t)P->m * sizeof(double));
    }
    c->h_s = P->h;
    mcb_run_clear(&r);
    return rc;
}

/* Divergence from the reference at step k: RMS and max position error
 * over the bodies, max rotation angle. */
static void divergence(loop_ctx *c, int k, double *rms, double *mx, double *rot)
{
    const mcb_loop_instance *I = c->I;
    *rms = *mx = *rot = NAN;
    if (k >= I->ref_steps || c->bodies != I->ref_bodies || c->bodies == 0) return;
    const double *ref = I->ref_pose + (size_t)k * (size_t)c->bodies * POSE_DOUBLES;
    double s2 = 0.0, m = 0.0, ang = 0.0;
    for (int b = 0; b < c->bodies; b++) {
        const double *x = c->pose + (size_t)b * POSE_DOUBLES, *y = ref + (size_t)b * POSE_DOUBLES;
        double d2 = 0.0, tr = 0.0;
        for (int i = 0; i < 3; i++) d2 += (x[9 + i] - y[9 + i]) * (x[9 + i] - y[9 + i]);
        for (int i = 0; i < 9; i++) tr += x[i] * y[i]; /* trace(Ry^T Rx) */
        double cs = 0.5 * (tr - 1.0);
        cs = cs > 1.0 ? 1.0 : (cs < -1.0 ? -1.0 : cs);
        double a = acos(cs);
        s2 += d2;
        if (!(sqrt(d2) <= m)) m = sqrt(d2);
        if (!(a <= ang)) ang = a;
    }
    *rms = sqrt(s2 / c->bodies);
    *mx = m;
    *rot = ang;
}

/* After the advance: the state's measures and the failure checks. */
static mcb_rc loop_after(void *cp, mcb_world *w, const mcb_step_info *info, mcb_err *err)
{
    loop_ctx *c = cp;
    int k = c->nrows - 1;
    if (c->whole_step) { /* the method advanced the step: its row from the step's info */
        mcb_rc rc = new_row(c, err);
        if (rc) return rc;
        c->cur[MCB_SC_STATUS] = MCB_ST_SOLVED;
        c->cur[MCB_SC_CONTACTS] = info->contacts;
        c->cur[MCB_SC_N] = mcb_world_ndof(w);
        c->cur[MCB_SC_M] = 0; /* no subproblem: its metrics stay NaN */
        c->cur[MCB_SC_ITERS] = info->iterations;
        c->cur[MCB_SC_SETUP_S] = c->cur[MCB_SC_MEASURE_S] = 0;
        c->cur[MCB_SC_SOLVE_S] = info->solve_s;
        c->status_count[MCB_ST_SOLVED]++;
        c->h_s = mcb_world_options(w)->h_s;
        k = c->nrows++;
    } else if (k < 0 || !c->cur) { /* a step without unknowns or rows: the world solved it */
        mcb_rc rc = new_row(c, err);
        if (rc) return rc;
        c->cur[MCB_SC_STATUS] = MCB_ST_SOLVED;
        c->cur[MCB_SC_CONTACTS] = info->contacts;
        c->cur[MCB_SC_N] = mcb_world_ndof(w);
        c->cur[MCB_SC_M] = 0;
        c->cur[MCB_SC_ITERS] = 0;
        c->cur[MCB_SC_SETUP_S] = c->cur[MCB_SC_SOLVE_S] = c->cur[MCB_SC_MEASURE_S] = 0;
        k = c->nrows++;
    }
    double *row = c->cur;
    c->cur = NULL;
    row[MCB_SC_ENGINE_S] = info->engine_s;
    double E[3];
    mcb_world_energy(w, E);
    row[MCB_SC_KINETIC_J] = E[0];
    row[MCB_SC_POTENTIAL_J] = E[1];
    row[MCB_SC_ELASTIC_J] = E[2];
    double soft = 0.0;
    row[MCB_SC_DRIFT] = mcb_world_joint_drift(w, &soft);
    row[MCB_SC_SOFT_DRIFT] = soft;
    int nb = mcb_world_nbodies(w);
    if (!c->pose || nb != c->bodies) {
        free(c->pose);
        c->bodies = nb;
        c->pose = malloc(((size_t)nb + 1) * POSE_DOUBLES * sizeof(double));
        if (!c->pose) return mcb_fail(err, MCB_E_NOMEM, "loop: out of memory");
    }
    world_poses(w, nb, c->pose);
    divergence(c, k, &row[MCB_SC_DIV_RMS_M], &row[MCB_SC_DIV_MAX_M], &row[MCB_SC_DIV_ROT_RAD]);
    const mcb_world_outcome *out = mcb_world_get_outcome(w);
    if (out) row[MCB_SC_OUTCOME] = out->eval(out->ctx, w);
    /* the error against the reference trajectory's outcome (COND's IE and
     * FE: the dynamics index against a converged ground truth) */
    if (out && k < c->I->ref_steps && c->I->ref_outcome)
        row[MCB_SC_OUTCOME_ERR] = fabs(row[MCB_SC_OUTCOME] - c->I->ref_outcome[k]);
    /* the checks, in order of severity */
    double Et = E[0] + E[1] + E[2];
    if (k == 0) {
        c->E0 = Et;
        const mcb_world_opts *wo = mcb_world_options(w);
        c->pen_bound_m = wo->fail_pen_m > 0 ? wo->fail_pen_m
                                            : (10 * wo->margin_m > 0.01 ? 10 * wo->margin_m : 0.01);
        c->energy_bound_J = wo->fail_energy_J > 0 ? wo->fail_energy_J
                                                  : 1.0 + mcb_world_weight_J(w);
    }
    if (!finite_vec(c->pose, nb * POSE_DOUBLES) || !isfinite(Et))
        return stop(c, err, "step %d: the state is not finite", k);
    /* the penetration the step leaves (velocity level: depth = h u_n; a
     * whole-step method: measured at its final poses by the world) */
    double depth = c->whole_step ? info->depth_m : c->h_s * row[MCB_SC_METRICS + MCB_M_PEN_MAX];
    row[MCB_SC_DEPTH_M] = depth;
    if (depth > c->pen_bound_m)
        return stop(c, err, "step %d: penetration %.3g m (h x pen_max) past the scene's bound "
                    "%.3g m", k, depth, c->pen_bound_m);
    if (Et - c->E0 > c->energy_bound_J)
        return stop(c, err, "step %d: energy gain %.3g J past the scene's bound %.3g J", k,
                    Et - c->E0, c->energy_bound_J);
    if (out && k >= out->from_step) {
        double x = row[MCB_SC_OUTCOME];
        if (!isfinite(x) || x < out->fail_below || x > out->fail_above)
            return stop(c, err, "step %d: outcome %s = %.4g %s outside [%g, %g]", k, out->name, x,
                        out->unit ? out->unit : "", out->fail_below, out->fail_above);
    }
    return MCB_OK;
}

static int geo_metric(int k)
{
    return mcb_metric_is_residual(k) || k == MCB_M_NATMAP_NCP || k == MCB_M_NATMAP_CCP;
}

/* The run's record from its rows: totals, and per metric over the steps:
 * the residuals' geometric mean with a floor of 1e-16 (so that -log10 of
 * it is the mean over the steps of -log10 of the residual, the SubADMM
 * paper's average accuracy AA), pen_max's maximum, pen_sum's mean. Rows of
 * a step that stopped the run before its solve count as far as they go. */
static void summarize(const loop_ctx *c, mcb_run *run)
{
    mcb_loop_summary S;
    mcb_loop_summarize(c->rows, c->nrows, &S);
    run->info.setup_s = S.setup_s;
    run->info.solve_s = S.solve_s;
    long iters = 0;
    double measure = 0.0, acc[MCB_NMETRICS] = {0};
    int cnt[MCB_NMETRICS] = {0};
    for (int s = 0; s < c->nrows; s++) {
        const double *r = c->rows + (size_t)s * MCB_STEP_COLS;
        if (isfinite(r[MCB_SC_ITERS])) iters += (long)r[MCB_SC_ITERS];
        if (isfinite(r[MCB_SC_MEASURE_S])) measure += r[MCB_SC_MEASURE_S];
        for (int k = 0; k < MCB_NMETRICS; k++) {
            double x = r[MCB_SC_METRICS + k];
            if (isnan(x)) continue;
            if (k == MCB_M_PEN_MAX) acc[k] = cnt[k] && acc[k] >= x ? acc[k] : x;
            else if (geo_metric(k)) acc[k] += x > 1e-16 ? log10(x) : -16.0;
            else acc[k] += x;
            cnt[k]++;
        }
    }
    for (int k = 0; k < MCB_NMETRICS; k++) {
        if (!cnt[k]) run->final.val[k] = NAN;
        else if (k == MCB_M_PEN_MAX) run->final.val[k] = acc[k];
        else if (geo_metric(k)) run->final.val[k] = pow(10.0, acc[k] / cnt[k]);
        else run->final.val[k] = acc[k] / cnt[k];
    }
    run->info.iterations = iters > 2147483647L ? 2147483647 : (int)iters;
    run->measure_s = measure;
    run->observed_solve_s = S.solve_s;
    run->info.own_residual = NAN;
}

mcb_rc mcb_loop_run(const mcb_loop_instance *I, const mcb_solver_def *def, const void *params,
                    const mcb_campaign_opts *o, mcb_run *run, mcb_err *err)
{
    if (!I || !def || !o || !run) return mcb_fail(err, MCB_E_INPUT, "loop: NULL argument");
    loop_ctx c;
    memset(&c, 0, sizeof c);
    c.I = I;
    c.def = def;
    c.params = params;
    c.o = *o;
    c.o.save_solutions = 1;
    c.o.repeat = 1;
    mcb_world_loop L = {loop_solve, loop_after, &c, NULL};
    mcb_xpbd_opts xo;
    if (mcb_whole_step_is(def)) { /* the world advances by it: no subproblem to solve */
        c.whole_step = 1;
        if (params) memcpy(&xo, params, sizeof xo);
        else mcb_xpbd_defaults(&xo);
        L.solve = NULL;
        L.xpbd = &xo;
    }
    mcb_problem_set *S = NULL;
    mcb_err e2;
    e2.msg[0] = '\0';
    mcb_rc rc = I->scene->generate(I->vals, &L, &S, &e2);
    mcb_problem_set_free(&S);
    if (rc == MCB_E_NOMEM) {
        free(c.rows);
        free(c.pose);
        return mcb_fail(err, rc, "%s", e2.msg);
    }
    summarize(&c, run);
    run->timing = MCB_TIMED_OBSERVED;
    run->form_residual = NAN;
    if (!rc) {
        run->info.status = MCB_ST_SOLVED;
        char counts[256] = "";
        size_t off = 0;
        for (int s = 0; s < MCB_NSTATUS; s++)
            if (c.status_count[s])
                off += (size_t)snprintf(counts + off, sizeof counts - off, "%s%d %s",
                                        off ? ", " : "", c.status_count[s], mcb_status_name(s));
        snprintf(run->info.reason, sizeof run->info.reason, "completed %d steps (%s)", c.nrows,
                 counts[0] ? counts : "no solve");
    } else if (c.skipped) {
        /* not a failure of the loop: the solver does not take these problems */
        run->info.status = MCB_ST_SKIPPED;
        snprintf(run->info.reason, sizeof run->info.reason, "skipped at %.900s", c.reason);
    } else {
        /* the solver's failure, or the scene's own (a step the engine
         * refused): both end the run in the loop */
        run->info.status = MCB_ST_FAILED_IN_LOOP;
        snprintf(run->info.reason, sizeof run->info.reason, "failed in the loop at %.900s (%d steps "
                 "scheduled)", c.failed ? c.reason : e2.msg, I->ref_steps);
    }
    if (c.nrows > 0) {
        const double *last = c.rows + (size_t)(c.nrows - 1) * MCB_STEP_COLS;
        run->n = (int)last[MCB_SC_N] >= 0 ? (int)last[MCB_SC_N] : 0;
        run->m = (int)last[MCB_SC_M] >= 0 ? (int)last[MCB_SC_M] : 0;
        run->ncontacts = (int)last[MCB_SC_CONTACTS] >= 0 ? (int)last[MCB_SC_CONTACTS] : 0;
    }
    run->step_rows = c.nrows;
    run->steps = c.rows;
    free(c.pose);
    return MCB_OK;
}

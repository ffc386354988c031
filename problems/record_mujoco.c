/* record_mujoco.c: the MuJoCo recorder (record_mujoco.h, docs/mujoco.md).
 *
 * One step: the state before it (qpos, qvel, act, ctrl, time,
 * qacc_warmstart) is kept; MuJoCo's stages up to the constraint solve run
 * (mcb_mj_stages_before_constraint), mj_fwdConstraint runs timed, and the
 * problem is mapped (mcb_mj_problem) with MuJoCo's solution; then mj_step
 * advances from the kept state (it repeats the same forward pass, so the
 * trajectory is MuJoCo's own for any integrator).
 *
 * Failure: a model MuJoCo cannot load, a MuJoCo error (caught: MuJoCo
 * would exit), a full constraint buffer (njmax) or a problem that does not
 * validate ends the recording with a message naming the model and step.
 * Allocation: MuJoCo's model and data, one problem per recorded step. */
#include "problems/record_mujoco.h"

#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_timer.h"

void mcb_record_mujoco_defaults(mcb_record_mujoco_opts *o)
{
    memset(o, 0, sizeof *o);
    o->steps = 10;
    o->every = 1;
    o->cone = MCB_MJ_CONE_MODEL;
    o->ctrl = MCB_MJ_CTRL_NOISE;
    o->timing = 1;
    o->seed = 12;
}

/* The canonical arguments, every problem's source. */
void mcb_record_mujoco_args(const mcb_record_mujoco_opts *o, char *buf, size_t len)
{
    snprintf(buf, len, "record mujoco %s --steps %d --every %d --cone %s --ctrl %s --seed %llu%s",
             o->model_path, o->steps, o->every,
             o->cone == MCB_MJ_CONE_MODEL ? "model"
             : o->cone == MCB_MJ_CONE_ELLIPTIC ? "elliptic" : "pyramidal",
             o->ctrl == MCB_MJ_CTRL_ZERO ? "zero" : "noise", o->seed, o->strict ? " --strict" : "");
}


static mcb_rc parse_int(const char *opt, const char *v, long lo, long hi, long *out, mcb_err *err)
{
    char *end = NULL;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || end == v || *end || x < lo || x > hi)
        return mcb_fail(err, MCB_E_INPUT, "record mujoco: %s wants an integer in [%ld, %ld], got "
                        "'%s'", opt, lo, hi, v);
    *out = x;
    return MCB_OK;
}

mcb_rc mcb_record_mujoco_parse(int argc, char **argv, mcb_record_mujoco_opts *o, mcb_err *err)
{
    mcb_record_mujoco_defaults(o);
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k];
        if (a[0] != '-') {
            if (o->model_path)
                return mcb_fail(err, MCB_E_INPUT, "record mujoco: unexpected argument '%s'", a);
            o->model_path = a;
            continue;
        }
        if (!strcmp(a, "--strict")) {
            o->strict = 1;
            continue;
        }
        if (!strcmp(a, "--no-timing")) {
            o->timing = 0;
            continue;
        }
        int valued = !strcmp(a, "--steps") || !strcmp(a, "--every") || !strcmp(a, "--cone") ||
                     !strcmp(a, "--ctrl") || !strcmp(a, "--seed");
        if (!valued) return mcb_fail(err, MCB_E_INPUT, "record mujoco: unknown option %s", a);
        if (k + 1 >= argc)
            return mcb_fail(err, MCB_E_INPUT, "record mujoco: option %s needs a value", a);
        const char *v = argv[++k];
        long x = 0;
        mcb_rc rc = MCB_OK;
        if (!strcmp(a, "--cone")) {
            if (!strcmp(v, "pyramidal")) o->cone = MCB_MJ_CONE_PYRAMIDAL;
            else if (!strcmp(v, "elliptic")) o->cone = MCB_MJ_CONE_ELLIPTIC;
            else if (!strcmp(v, "model")) o->cone = MCB_MJ_CONE_MODEL;
            else
                return mcb_fail(err, MCB_E_INPUT,
                                "record mujoco: --cone wants pyramidal or elliptic, got '%s'", v);
        } else if (!strcmp(a, "--ctrl")) {
            if (!strcmp(v, "noise")) o->ctrl = MCB_MJ_CTRL_NOISE;
            else if (!strcmp(v, "zero")) o->ctrl = MCB_MJ_CTRL_ZERO;
            else
                return mcb_fail(err, MCB_E_INPUT,
                                "record mujoco: --ctrl wants noise or zero, got '%s'", v);
        } else if (!strcmp(a, "--steps")) {
            if (!(rc = parse_int(a, v, 1, 100000000, &x, err))) o->steps = (int)x;
        } else if (!strcmp(a, "--every")) {
            if (!(rc = parse_int(a, v, 1, 100000000, &x, err))) o->every = (int)x;
        } else if (!(rc = parse_int(a, v, 0, 2147483647L, &x, err))) {
            o->seed = (unsigned long long)x;
        }
        if (rc) return rc;
    }
    if (!o->model_path) return mcb_fail(err, MCB_E_INPUT, "record mujoco: needs a MODEL.xml");
    if (o->every > o->steps)
        return mcb_fail(err, MCB_E_INPUT, "record mujoco: --every %d is more than --steps %d",
                        o->every, o->steps);
    return MCB_OK;
}

#ifndef MCB_HAVE_MUJOCO

int mcb_record_mujoco_available(void) { return 0; }

mcb_rc mcb_record_mujoco(const mcb_record_mujoco_opts *o, mcb_problem_set **out, char *warn,
                         size_t warn_len, mcb_err *err)
{
    (void)o;
    *out = NULL;
    if (warn && warn_len) warn[0] = '\0';
    return mcb_fail(err, MCB_E_INPUT,
                    "record mujoco: this mcbench is built without MuJoCo (install libmujoco-dev "
                    "and reconfigure; see docs/mujoco.md)");
}

#else

#include "solvers/peers/mujoco_peer.h"
#include "problems/scene/spatial.h" /* mcb_rng */

int mcb_record_mujoco_available(void) { return 1; }

static double *dup_or_null(const double *x, int n)
{
    if (n <= 0) return NULL;
    double *y = mcb_malloc((size_t)n, sizeof(double));
    if (y) memcpy(y, x, sizeof(double) * (size_t)n);
    return y;
}

/* The state before the step, and the compiled model's bytes (shared). */
static mcb_mujoco *keep_state(const mjModel *m, const mjData *d, const unsigned char *model,
                              long model_bytes)
{
    mcb_mujoco *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->model = mcb_malloc((size_t)model_bytes, 1);
    if (s->model) memcpy(s->model, model, (size_t)model_bytes);
    s->model_bytes = model_bytes;
    s->nq = m->nq, s->nv = m->nv, s->na = m->na, s->nu = m->nu;
    s->qpos = dup_or_null(d->qpos, m->nq);
    s->qvel = dup_or_null(d->qvel, m->nv);
    s->act = dup_or_null(d->act, m->na);
    s->ctrl = dup_or_null(d->ctrl, m->nu);
    s->qacc_warmstart = dup_or_null(d->qacc_warmstart, m->nv);
    s->time = d->time;
    if (!s->model || !s->qpos || !s->qvel || (m->na && !s->act) || (m->nu && !s->ctrl) ||
        !s->qacc_warmstart)
        mcb_mujoco_free(&s);
    return s;
}

/* Controls for the next step: zero, or uniform noise over each actuator's
 * control range (half of [-1, 1] when it has none), from the fixed seed. */
static void set_controls(const mjModel *m, mjData *d, int ctrl, mcb_rng *rng)
{
    for (int a = 0; a < m->nu; a++) {
        if (ctrl == MCB_MJ_CTRL_ZERO) {
            d->ctrl[a] = 0.0;
            continue;
        }
        double lo = -0.5, hi = 0.5;
        if (m->actuator_ctrllimited[a]) {
            lo = m->actuator_ctrlrange[2 * a];
            hi = m->actuator_ctrlrange[2 * a + 1];
        }
        d->ctrl[a] = lo + (hi - lo) * mcb_rng_uniform(rng);
    }
}

/* "humanoid" from ".../humanoid.xml" */
static void model_stem(const char *path, char *buf, size_t len)
{
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s", path);
    snprintf(buf, len, "%s", basename(tmp));
    char *dot = strrchr(buf, '.');
    if (dot && dot != buf) *dot = '\0';
}

typedef struct {
    mjModel *m;
    mjData *d;
    unsigned char *bytes;
    long nbytes;
    mcb_problem_set *set;
    mcb_mj_counts left; /* rows left out, summed over the recorded steps */
} rec_state;

/* Records the step about to be taken (d holds the state before it). */
static mcb_rc record_step(const mcb_record_mujoco_opts *o, rec_state *R, int step,
                          const char *stem, const char *args, mcb_err *err)
{
    mjModel *m = R->m;
    mjData *d = R->d;
    mcb_mujoco *keep = keep_state(m, d, R->bytes, R->nbytes);
    if (!keep) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mcb_mj_stages_before_constraint(m, d);
    /* MuJoCo's force at its warm start, f(J qacc_warmstart - aref): what
     * its solvers start from, the initial lambda (fwdConstraint below
     * recomputes everything it writes here) */
    double *fwarm = mcb_malloc((size_t)d->nefc + 1, sizeof(double));
    if (!fwarm) {
        mcb_mujoco_free(&keep);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    if (d->nefc > 0) {
        mj_mulJacVec(m, d, fwarm, d->qacc_warmstart);
        for (int i = 0; i < d->nefc; i++) fwarm[i] -= d->efc_aref[i];
        mj_constraintUpdate(m, d, fwarm, NULL, 0);
        memcpy(fwarm, d->efc_force, sizeof(double) * (size_t)d->nefc);
    }
    double t0 = mcb_now_s();
    mj_fwdConstraint(m, d);
    double solve_s = mcb_now_s() - t0;
    if (d->warning[mjWARN_CNSTRFULL].number > 0 || d->warning[mjWARN_CONTACTFULL].number > 0) {
        mcb_mujoco_free(&keep);
        free(fwarm);
        return mcb_fail(err, MCB_E_INPUT,
                        "step %d: MuJoCo's constraint buffer is full (raise njmax / nconmax in "
                        "the model's <size>): the step is not the whole problem",
                        step);
    }
    mcb_problem *P = NULL;
    int *rowmap = NULL;
    mcb_mj_counts cnt;
    mcb_rc rc = mcb_mj_problem(m, d, o->strict, &P, &rowmap, &cnt, err);
    if (rc) {
        mcb_mujoco_free(&keep);
        free(fwarm);
        return rc;
    }
    keep->contacts = cnt.contacts;
    P->mujoco = keep;
    P->step = step;
    P->v_ref = mcb_malloc((size_t)P->n, sizeof(double));
    P->lambda_ref = mcb_calloc((size_t)P->m + 1, sizeof(double));
    P->v0 = mcb_malloc((size_t)P->n, sizeof(double));
    P->lambda0 = mcb_calloc((size_t)P->m + 1, sizeof(double));
    char name[300], notes[1024], timing[64];
    snprintf(name, sizeof name, "%s-step-%06d", stem, step);
    if (o->timing)
        snprintf(timing, sizeof timing, ", constraint solve %.6g s", solve_s);
    else
        snprintf(timing, sizeof timing, ", constraint solve time not recorded");
    snprintf(notes, sizeof notes,
             "MuJoCo %s: solver %s, %d iterations (opt.iterations %d, tolerance %g)%s; cone %s, "
             "jacobian %s, integrator %d; MuJoCo rows %d: %d equality, %d limit, %d "
             "frictionless, %d pyramidal edges, %d elliptic condim-3 contacts; left out %d "
             "(%d friction loss, %d elliptic contacts of dim 4/6; their force is in b)",
             mj_versionString(), mcb_mj_solver_name(m->opt.solver), d->solver_iter,
             m->opt.iterations, m->opt.tolerance, timing,
             m->opt.cone == mjCONE_ELLIPTIC ? "elliptic" : "pyramidal",
             mj_isSparse(m) ? "sparse" : "dense", m->opt.integrator, cnt.nefc, cnt.equality_rows,
             cnt.limit_rows, cnt.frictionless_rows, cnt.pyramidal_rows, cnt.elliptic3_contacts,
             cnt.left_out_rows, cnt.frictionloss_rows, cnt.elliptic_other_contacts);
    free(P->name), free(P->source), free(P->scene), free(P->notes); /* mcb_problem_new's "" */
    P->name = mcb_strdup(name);
    P->source = mcb_strdup(args);
    P->scene = mcb_strdup(stem);
    P->notes = mcb_strdup(notes);
    if (!P->v_ref || !P->lambda_ref || !P->v0 || !P->lambda0 || !P->name || !P->source ||
        !P->scene || !P->notes) {
        free(rowmap);
        free(fwarm);
        mcb_problem_free(&P);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    mcb_mj_solution(m, d, rowmap, P->m, P->v_ref, P->lambda_ref);
    for (int k = 0; k < P->m; k++) P->lambda0[k] = m->opt.timestep * fwarm[rowmap[k]];
    free(rowmap);
    free(fwarm);
    for (int j = 0; j < P->n; j++) P->v0[j] = d->qvel[j] + m->opt.timestep * d->qacc_warmstart[j];
    R->left.left_out_rows += cnt.left_out_rows;
    R->left.frictionloss_rows += cnt.frictionloss_rows;
    R->left.elliptic_other_contacts += cnt.elliptic_other_contacts;
    mcb_err verr;
    if ((rc = mcb_problem_validate(P, name, &verr))) {
        mcb_problem_free(&P);
        return mcb_fail(err, rc, "step %d: the recorded problem does not validate: %s", step,
                        verr.msg);
    }
    if ((rc = mcb_problem_set_push(R->set, P, err))) mcb_problem_free(&P);
    return rc;
}

static mcb_rc check_opts(const mcb_record_mujoco_opts *o, mcb_err *err)
{
    if (!o->model_path || !*o->model_path)
        return mcb_fail(err, MCB_E_INPUT, "record mujoco: needs a MODEL.xml");
    if (o->steps < 1 || o->steps > 100000000)
        return mcb_fail(err, MCB_E_INPUT, "record mujoco: --steps %d must be >= 1", o->steps);
    if (o->every < 1 || o->every > o->steps)
        return mcb_fail(err, MCB_E_INPUT, "record mujoco: --every %d must be in [1, --steps %d]",
                        o->every, o->steps);
    if (o->cone < MCB_MJ_CONE_MODEL || o->cone > MCB_MJ_CONE_ELLIPTIC)
        return mcb_fail(err, MCB_E_INPUT, "record mujoco: unknown cone %d", o->cone);
    if (o->ctrl != MCB_MJ_CTRL_NOISE && o->ctrl != MCB_MJ_CTRL_ZERO)
        return mcb_fail(err, MCB_E_INPUT, "record mujoco: unknown control mode %d", o->ctrl);
    return MCB_OK;
}

/* Loads MJCF (or MJB) and applies the options. */
static mcb_rc load(const mcb_record_mujoco_opts *o, rec_state *R, mcb_err *err)
{
    char msg[1000] = "";
    size_t len = strlen(o->model_path);
    if (len > 4 && !strcmp(o->model_path + len - 4, ".mjb"))
        R->m = mj_loadModel(o->model_path, NULL);
    else
        R->m = mj_loadXML(o->model_path, NULL, msg, (int)sizeof msg);
    if (!R->m)
        return mcb_fail(err, MCB_E_INPUT, "record mujoco: MuJoCo cannot load %s: %s",
                        o->model_path, msg[0] ? msg : mcb_mj_guard_warning());
    /* nothing moves: no velocity-level problem (A would be 0 x 0; the
     * state copies of zero length used to read as a failed allocation,
     * "out of memory", for composite/scene.xml, the scene the composite
     * models include) */
    if (R->m->nv == 0)
        return mcb_fail(err, MCB_E_INPUT,
                        "record mujoco: %s has no degrees of freedom (nv = 0: no joints, or only "
                        "mocap and static bodies): it has no constraint problem to record",
                        o->model_path);
    if (o->cone != MCB_MJ_CONE_MODEL) R->m->opt.cone = o->cone;
    R->nbytes = mj_sizeModel(R->m);
    R->bytes = mcb_malloc((size_t)R->nbytes, 1);
    R->d = mj_makeData(R->m);
    if (!R->bytes || !R->d) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mj_saveModel(R->m, NULL, R->bytes, (int)R->nbytes);
    return MCB_OK;
}

mcb_rc mcb_record_mujoco(const mcb_record_mujoco_opts *o, mcb_problem_set **out, char *warn,
                         size_t warn_len, mcb_err *err)
{
    *out = NULL;
    if (warn && warn_len) warn[0] = '\0';
    mcb_rc rc = check_opts(o, err);
    if (rc) return rc;
    /* on the heap: what MuJoCo's longjmp returns to must not live in
     * registers (setjmp's rule for automatic variables) */
    rec_state *R = calloc(1, sizeof *R);
    if (R) R->set = calloc(1, sizeof *R->set);
    if (!R || !R->set) {
        free(R);
        return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    }
    char stem[256], args[2048];
    model_stem(o->model_path, stem, sizeof stem);
    mcb_record_mujoco_args(o, args, sizeof args);
    mcb_rng rng;
    mcb_rng_seed(&rng, o->seed);
    volatile int step = -1;
    volatile mcb_rc vrc = MCB_OK;
    mcb_mj_guard_arm();
    if (setjmp(mcb_mj_jmp)) {
        vrc = mcb_fail(err, MCB_E_INPUT, "record mujoco %s: MuJoCo error at step %d: %s",
                       o->model_path, step, mcb_mj_guard_message());
    } else {
        vrc = load(o, R, err);
        for (step = 0; !vrc && step < o->steps; step++) {
            set_controls(R->m, R->d, o->ctrl, &rng);
            if ((step + 1) % o->every == 0) {
                mcb_err serr;
                mcb_rc src = record_step(o, R, step, stem, args, &serr);
                if (src) vrc = mcb_fail(err, src, "record mujoco %s: %s", o->model_path, serr.msg);
            }
            if (!vrc) mj_step(R->m, R->d);
            if (!vrc && (R->d->warning[mjWARN_BADQACC].number > 0 ||
                         R->d->warning[mjWARN_BADQPOS].number > 0 ||
                         R->d->warning[mjWARN_BADQVEL].number > 0))
                vrc = mcb_fail(err, MCB_E_INPUT,
                               "record mujoco %s: the simulation went unstable at step %d (MuJoCo "
                               "reset it: bad qpos, qvel or qacc)",
                               o->model_path, step);
        }
    }
    mcb_mj_guard_end();
    rc = vrc;
    if (R->d) mj_deleteData(R->d);
    if (R->m) mj_deleteModel(R->m);
    free(R->bytes);
    mcb_problem_set *set = R->set;
    mcb_mj_counts left = R->left;
    free(R);
    if (rc) {
        mcb_problem_set_free(&set);
        return rc;
    }
    if (warn && warn_len && left.left_out_rows)
        snprintf(warn, warn_len,
                 "%d MuJoCo rows have no mcbench type and were left out over the recorded steps "
                 "(%d friction-loss rows, %d elliptic contacts of dimension 4 or 6); their forces "
                 "are kept in b (--strict makes this an error)",
                 left.left_out_rows, left.frictionloss_rows, left.elliptic_other_contacts);
    *out = set;
    return MCB_OK;
}

#endif

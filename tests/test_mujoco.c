/* test_mujoco.c: the MuJoCo recorder and peers (issue 12, docs/mujoco.md).
 *   - the derivation on one contact: a sphere resting on a plane, elliptic
 *     and pyramidal cones, MuJoCo solved to its tightest tolerance: MuJoCo's
 *     efc_force mapped to lambda = h f with v = qvel + h qacc satisfies the
 *     mapped problem (A v = b + J^T lambda and the law on J v + e + r lambda)
 *     to round-off, while the same force without the compliance r, or with
 *     e's sign flipped, does not; the normal impulse is about m g h;
 *   - recording humanoid, 22_humanoids, humanoid100 and composite/grid2pin:
 *     every recorded step validates, reads back from its file, and MuJoCo's
 *     own solution judged by mcbench's metrics has dyn_rel below 1e-12 and
 *     a natural-map residual below the bound docs/mujoco.md states;
 *   - determinism: two recordings with timing off are byte-identical;
 *   - rows with no mcbench type (joint friction loss) are left out with a
 *     warning and their force kept in b, or refused with --strict;
 *   - a MuJoCo error while stepping (mju_error, which exits) is caught and
 *     returned as an error with MuJoCo's message;
 *   - the provenance (mujoco/) is validated: non-finite state, a size that
 *     is not the problem's, an empty model; on read too;
 *   - the peers: mujoco_newton with the recorded budget and tolerance and
 *     warm start reproduces MuJoCo's recorded solution; PGS and CG solve the
 *     same step to the metric docs/mujoco.md gives; a problem not recorded
 *     from MuJoCo is refused with the reason, and one whose stored state is
 *     another step's fails setup ("not the recorded step").
 * Without MuJoCo (or its sample models) the test exits 77 (skipped). */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "lib/mcb_io.h"
#include "metrics/metrics.h"
#include "problems/record_mujoco.h"
#include "solvers/solver.h"

#ifdef MCB_HAVE_MUJOCO
#include "solvers/peers/mujoco_peer.h"

#define MODELS "/usr/share/mujoco/model"

static const char *ball_xml =
    "<mujoco model='ball'>\n"
    "  <option timestep='0.002' cone='%s' iterations='1000' tolerance='1e-15'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='1 1 .1' condim='3' friction='0.5'/>\n"
    "    <body pos='0 0 0.1'>\n"
    "      <freejoint/>\n"
    "      <geom type='sphere' size='0.1' mass='1' condim='3' friction='0.5'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

/* A model's text in a temporary file (mj_loadXML reads files); returns
 * its path (static storage). */
static const char *model_file(const char *fmt, const char *arg)
{
    static char xmlpath[64];
    char path[] = "/tmp/mcb_mj_modelXXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fprintf(fp, fmt, arg);
    fclose(fp);
    snprintf(xmlpath, sizeof xmlpath, "%s.xml", path);
    ck_assert(rename(path, xmlpath) == 0);
    return xmlpath;
}

/* The one-contact model. */
static mjModel *ball_model(const char *cone)
{
    const char *xmlpath = model_file(ball_xml, cone);
    char msg[500] = "";
    mjModel *m = mj_loadXML(xmlpath, NULL, msg, sizeof msg);
    unlink(xmlpath);
    ck_assert_msg(m != NULL, "%s", msg);
    return m;
}

/* max |A v - b - J^T lambda| / max |b| */
static double dyn_res(const mcb_problem *P, const double *v, const double *lambda)
{
    double *r = calloc((size_t)P->n, sizeof(double)), big = 0, res = 0;
    mcb_csc_gaxpy(P->A, v, r);
    for (int j = 0; j < P->n; j++) r[j] -= P->b[j];
    double *jt = calloc((size_t)P->n, sizeof(double));
    mcb_csc_gatxpy(P->J, lambda, jt);
    for (int j = 0; j < P->n; j++) {
        res = fmax(res, fabs(r[j] - jt[j]));
        big = fmax(big, fabs(P->b[j]));
    }
    free(r);
    free(jt);
    return res / fmax(big, 1e-300);
}

static double metric(const mcb_problem *P, int id, const double *v, const double *lambda)
{
    mcb_metrics_ws *ws = NULL;
    mcb_err err;
    ck_assert_msg(mcb_metrics_ws_new(P, &ws, &err) == MCB_OK, "%s", err.msg);
    double x = mcb_metrics_one(ws, id, v, lambda);
    mcb_metrics_ws_free(&ws);
    return x;
}

static void one_contact(const char *cone, int want_type)
{
    mjModel *m = ball_model(cone);
    mjData *d = mj_makeData(m);
    for (int k = 0; k < 200; k++) mj_step(m, d); /* settle on the plane */
    mj_forward(m, d);
    ck_assert_int_eq(d->ncon, 1);
    mcb_problem *P = NULL;
    int *map = NULL;
    mcb_err err;
    mcb_mj_counts cnt;
    ck_assert_msg(mcb_mj_problem(m, d, 1, &P, &map, &cnt, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(P->n, 6);
    ck_assert_int_eq(P->m, d->nefc);
    ck_assert_int_eq(P->blocks[0].type, want_type);
    ck_assert_msg(mcb_problem_validate(P, "ball", &err) == MCB_OK, "%s", err.msg);
    double v[6], *lambda = calloc((size_t)P->m, sizeof(double));
    mcb_mj_solution(m, d, map, P->m, v, lambda);
    double h = m->opt.timestep, sum_n = 0;
    /* the normal impulse carries the weight: m g h (elliptic: row 0; the
     * pyramid's edges carry it together) */
    for (int k = 0; k < P->m; k++) sum_n += lambda[k];
    if (want_type == MCB_CONTACT_CCP) sum_n = lambda[0];
    ck_assert_msg(fabs(sum_n - 9.81 * h) < 1e-3 * 9.81 * h, "normal impulse %g, m g h %g", sum_n,
                  9.81 * h);
    double dyn = dyn_res(P, v, lambda);
    double nat = metric(P, MCB_M_NATMAP, v, lambda);
    printf("one contact (%s): dyn %.3g, natmap %.3g, lambda_n %.6g (m g h %.6g), r %.4g\n", cone,
           dyn, nat, lambda[0], 9.81 * h, P->r[0]);
    ck_assert_msg(dyn < 1e-12, "dynamics residual %g", dyn);
    ck_assert_msg(nat < 1e-9 * 9.81 * h, "natmap %g of MuJoCo's solution", nat);
    /* the compliance matters: without r the same solution violates the law */
    mcb_problem *Q = mcb_problem_copy(P);
    free(Q->r);
    Q->r = NULL;
    double nat_nor = metric(Q, MCB_M_NATMAP, v, lambda);
    ck_assert_msg(nat_nor > 1e3 * fmax(nat, 1e-16), "natmap without r %g vs %g", nat_nor, nat);
    /* and so does e's sign */
    for (int k = 0; k < P->m; k++) Q->e[k] = -P->e[k];
    free(Q->r);
    Q->r = malloc(sizeof(double) * (size_t)P->m);
    memcpy(Q->r, P->r, sizeof(double) * (size_t)P->m);
    double nat_flip = metric(Q, MCB_M_NATMAP, v, lambda);
    ck_assert_msg(nat_flip > 1e3 * fmax(nat, 1e-16), "natmap with -e %g vs %g", nat_flip, nat);
    mcb_problem_free(&Q);
    mcb_problem_free(&P);
    free(map);
    free(lambda);
    mj_deleteData(d);
    mj_deleteModel(m);
}

START_TEST(derivation_elliptic) { one_contact("elliptic", MCB_CONTACT_CCP); }
END_TEST

START_TEST(derivation_pyramidal) { one_contact("pyramidal", MCB_UNILATERAL); }
END_TEST

/* Records, validates, writes and reads back; returns the set read back. */
static mcb_problem_set *record(const char *model, int steps, int every, int cone, int timing,
                               const char *file)
{
    mcb_record_mujoco_opts o;
    mcb_record_mujoco_defaults(&o);
    o.model_path = model;
    o.steps = steps;
    o.every = every;
    o.cone = cone;
    o.timing = timing;
    mcb_problem_set *S = NULL, *T = NULL;
    mcb_err err;
    char warn[1024];
    ck_assert_msg(mcb_record_mujoco(&o, &S, warn, sizeof warn, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(S->count, steps / every);
    ck_assert_msg(mcb_write_problems(file, S->items, S->count, &err) == MCB_OK, "%s", err.msg);
    ck_assert_msg(mcb_read_problems(file, &T, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(T->count, S->count);
    for (int k = 0; k < S->count; k++) {
        ck_assert_int_eq(T->items[k]->m, S->items[k]->m);
        ck_assert(T->items[k]->mujoco != NULL);
        ck_assert_int_eq(T->items[k]->mujoco->model_bytes, S->items[k]->mujoco->model_bytes);
        ck_assert(!memcmp(T->items[k]->mujoco->model, S->items[k]->mujoco->model,
                          (size_t)S->items[k]->mujoco->model_bytes));
    }
    mcb_problem_set_free(&S);
    return T;
}

/* MuJoCo's own solution judged by mcbench's metrics. */
static void judge_reference(const char *label, const mcb_problem_set *S, double nat_bound)
{
    double worst_dyn = 0, worst_nat = 0, worst_rel = 0;
    int rows = 0, contacts = 0;
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        rows += P->m;
        contacts += mcb_problem_contacts(P);
        double dyn = metric(P, MCB_M_DYN_REL, P->v_ref, P->lambda_ref);
        double nat = P->m ? metric(P, MCB_M_NATMAP, P->v_ref, P->lambda_ref) : 0;
        double lmax = P->m ? mcb_norm_inf(P->m, P->lambda_ref) : 0;
        worst_dyn = fmax(worst_dyn, dyn);
        worst_nat = fmax(worst_nat, nat);
        if (lmax > 0) worst_rel = fmax(worst_rel, nat / lmax);
        ck_assert_msg(dyn < 1e-9, "%s: dyn_rel %g", P->name, dyn);
        /* the warm start: MuJoCo's force at qacc_warmstart, in the cones */
        ck_assert(P->v0 && P->lambda0);
        for (int b = 0; b < P->nblocks; b++)
            if (P->blocks[b].type == MCB_UNILATERAL)
                ck_assert(P->lambda0[P->blocks[b].row] >= 0);
            else if (P->blocks[b].type == MCB_CONTACT_CCP) {
                const double *l = P->lambda0 + P->blocks[b].row;
                ck_assert(hypot(l[1], l[2]) <= P->blocks[b].mu * l[0] * (1 + 1e-12) + 1e-300);
            }
    }
    printf("%s: %d problems, %d rows, %d ccp contacts; MuJoCo's solution: dyn_rel <= %.3g, "
           "natmap <= %.3g, natmap / max|lambda| <= %.3g\n",
           label, S->count, rows, contacts, worst_dyn, worst_nat, worst_rel);
    ck_assert_msg(worst_rel < nat_bound, "%s: natmap / max|lambda| %g over %g", label, worst_rel,
                  nat_bound);
}

START_TEST(record_humanoid)
{
    mcb_problem_set *S = record(MODELS "/humanoid/humanoid.xml", 300, 50, MCB_MJ_CONE_ELLIPTIC, 1,
                                "test_mujoco_humanoid.h5");
    judge_reference("humanoid elliptic", S, 1e-6);
    mcb_problem_set_free(&S);
    S = record(MODELS "/humanoid/humanoid.xml", 300, 50, MCB_MJ_CONE_MODEL, 1,
               "test_mujoco_humanoid_p.h5");
    judge_reference("humanoid pyramidal", S, 1e-6);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(record_22_humanoids)
{
    mcb_problem_set *S = record(MODELS "/humanoid/22_humanoids.xml", 200, 100, MCB_MJ_CONE_ELLIPTIC,
                                1, "test_mujoco_22.h5");
    judge_reference("22_humanoids elliptic", S, 1e-5);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(record_humanoid100)
{
    mcb_problem_set *S = record(MODELS "/humanoid100/humanoid100.xml", 100, 50,
                                MCB_MJ_CONE_MODEL, 1, "test_mujoco_100.h5");
    judge_reference("humanoid100 pyramidal", S, 1e-5);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(record_composite)
{
    mcb_problem_set *S = record(MODELS "/composite/grid2pin.xml", 20, 10, MCB_MJ_CONE_MODEL, 1,
                                "test_mujoco_grid2pin.h5");
    judge_reference("composite/grid2pin", S, 1e-5);
    mcb_problem_set_free(&S);
}
END_TEST

static long file_bytes(const char *path, unsigned char **out)
{
    FILE *fp = fopen(path, "rb");
    ck_assert(fp != NULL);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    *out = malloc((size_t)n);
    ck_assert(fread(*out, 1, (size_t)n, fp) == (size_t)n);
    fclose(fp);
    return n;
}

START_TEST(deterministic)
{
    mcb_problem_set *S = record(MODELS "/humanoid/humanoid.xml", 120, 40, MCB_MJ_CONE_ELLIPTIC, 0,
                                "test_mujoco_det1.h5");
    mcb_problem_set_free(&S);
    S = record(MODELS "/humanoid/humanoid.xml", 120, 40, MCB_MJ_CONE_ELLIPTIC, 0,
               "test_mujoco_det2.h5");
    mcb_problem_set_free(&S);
    unsigned char *a, *b;
    long na = file_bytes("test_mujoco_det1.h5", &a), nb = file_bytes("test_mujoco_det2.h5", &b);
    ck_assert_int_eq(na, nb);
    ck_assert(!memcmp(a, b, (size_t)na));
    free(a);
    free(b);
}
END_TEST

/* Runs a peer on P through the interface; returns the status. */
static int run_peer(const char *name, const mcb_problem *P, int iters, double tol, int warm,
                    double *v, double *lambda, int *iterations)
{
    const mcb_solver_def *def = mcb_solver_find(name);
    ck_assert_msg(def != NULL, "%s not registered", name);
    ck_assert(def->black_box);
    char reason[MCB_ERR_LEN];
    ck_assert_msg(def->accepts_problem(P, reason, sizeof reason), "%s", reason);
    mcb_settings s;
    mcb_settings_default(&s);
    s.max_iters = iters;
    s.tol = tol;
    s.warm_start = warm;
    void *prm = calloc(1, def->params_size), *work = NULL;
    def->default_params(prm);
    mcb_err err;
    ck_assert_msg(def->setup(P, &s, prm, &work, &err) == MCB_OK, "%s", err.msg);
    mcb_info info;
    memset(&info, 0, sizeof info);
    int st = def->solve(work, &s, NULL, NULL, &info);
    def->iterate(work, v, lambda);
    *iterations = info.iterations;
    def->free(&work);
    free(prm);
    return st;
}

START_TEST(peers_reproduce)
{
    mcb_problem_set *S = record(MODELS "/humanoid/humanoid.xml", 300, 50, MCB_MJ_CONE_ELLIPTIC, 1,
                                "test_mujoco_peer.h5");
    const mcb_problem *P = NULL;
    for (int k = 0; k < S->count; k++)
        if (!P || S->items[k]->m > P->m) P = S->items[k];
    ck_assert(P && P->m > 0);
    double *v = malloc(sizeof(double) * (size_t)P->n), *l = malloc(sizeof(double) * (size_t)P->m);
    int it = 0;
    /* humanoid.xml: Newton, MuJoCo's defaults iterations 100, tolerance 1e-8 */
    run_peer("mujoco_newton", P, 100, 1e-8, 1, v, l, &it);
    double dv = 0, dl = 0;
    for (int j = 0; j < P->n; j++) dv = fmax(dv, fabs(v[j] - P->v_ref[j]));
    for (int j = 0; j < P->m; j++) dl = fmax(dl, fabs(l[j] - P->lambda_ref[j]));
    printf("mujoco_newton on %s (m %d): %d iterations, max |v - v_ref| %.3g, max |lambda - "
           "lambda_ref| %.3g\n", P->name, P->m, it, dv, dl);
    ck_assert_msg(dv == 0 && dl == 0, "not MuJoCo's recorded solution: %g %g", dv, dl);
    free(v);
    free(l);
    mcb_problem_set_free(&S);
    /* cold, on a pyramidal step (MuJoCo 2.2.2's PGS stops far from the
     * solution on elliptic cones: docs/mujoco.md), every peer to its own stop */
    S = record(MODELS "/humanoid/humanoid.xml", 300, 50, MCB_MJ_CONE_PYRAMIDAL, 1,
               "test_mujoco_peer_p.h5");
    P = NULL;
    for (int k = 0; k < S->count; k++)
        if (!P || S->items[k]->m > P->m) P = S->items[k];
    v = malloc(sizeof(double) * (size_t)P->n);
    l = malloc(sizeof(double) * (size_t)P->m);
    const char *peers[] = {"mujoco_pgs", "mujoco_cg", "mujoco_newton"};
    for (int k = 0; k < 3; k++) {
        int st = run_peer(peers[k], P, 1000, 1e-12, 0, v, l, &it);
        double nat = metric(P, MCB_M_NATMAP, v, l), dyn = metric(P, MCB_M_DYN_REL, v, l);
        printf("%s cold on %s (m %d), 1000 iterations, tol 1e-12: status %s after %d, natmap "
               "%.3g, dyn_rel %.3g\n", peers[k], P->name, P->m, mcb_status_name(st), it, nat, dyn);
        ck_assert_msg(dyn < 1e-6, "%s: dyn_rel %g", peers[k], dyn);
        ck_assert_msg(nat < 1e-6 * mcb_norm_inf(P->m, P->lambda_ref), "%s: natmap %g", peers[k],
                      nat);
    }
    free(v);
    free(l);
    mcb_problem_set_free(&S);
}
END_TEST

/* A problem whose stored state is another step's (other rows): setup says
 * so instead of solving something else. */
START_TEST(peers_check_rows)
{
    mcb_problem_set *S = record(MODELS "/humanoid/humanoid.xml", 300, 50, MCB_MJ_CONE_MODEL, 0,
                                "test_mujoco_rows.h5");
    int a = -1, b = -1;
    for (int k = 0; k < S->count; k++)
        for (int j = 0; j < S->count; j++)
            if (S->items[k]->m > 0 && S->items[j]->m != S->items[k]->m) a = k, b = j;
    ck_assert(a >= 0);
    mcb_mujoco *t = S->items[a]->mujoco;
    S->items[a]->mujoco = S->items[b]->mujoco;
    S->items[b]->mujoco = t;
    const mcb_solver_def *def = mcb_solver_find("mujoco_newton");
    mcb_settings st;
    mcb_settings_default(&st);
    void *prm = calloc(1, def->params_size), *work = NULL;
    def->default_params(prm);
    mcb_err err;
    ck_assert_int_eq(def->setup(S->items[a], &st, prm, &work, &err), MCB_E_INPUT);
    ck_assert(work == NULL);
    ck_assert_msg(strstr(err.msg, "not the recorded step") != NULL, "%s", err.msg);
    free(prm);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(peers_refuse_others)
{
    mcb_problem *P = fx_point_contact(FX_STICK);
    const char *peers[] = {"mujoco_pgs", "mujoco_cg", "mujoco_newton"};
    for (int k = 0; k < 3; k++) {
        const mcb_solver_def *def = mcb_solver_find(peers[k]);
        ck_assert(def != NULL);
        char reason[MCB_ERR_LEN] = "";
        ck_assert(!def->accepts_problem(P, reason, sizeof reason));
        ck_assert(strstr(reason, "not recorded from MuJoCo") != NULL);
    }
    mcb_problem_free(&P);
}
END_TEST

/* A pendulum with joint friction loss on a limited hinge: the friction-loss
 * row has no mcbench type. Left out with a warning, its force in b (MuJoCo's
 * solution still holds the dynamics); refused with --strict. */
static const char *pendulum_xml =
    "<mujoco model='pendulum'>\n"
    "  <option timestep='0.005' %s/>\n"
    "  <worldbody>\n"
    "    <body pos='0 0 1'>\n"
    "      <joint type='hinge' axis='0 1 0' frictionloss='0.3' limited='true' range='-20 20'/>\n"
    "      <geom type='capsule' fromto='0 0 0 0.5 0 0' size='0.05' mass='1'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

START_TEST(left_out_rows)
{
    const char *path = model_file(pendulum_xml, "");
    mcb_record_mujoco_opts o;
    mcb_record_mujoco_defaults(&o);
    o.model_path = path;
    o.steps = 60;
    o.every = 20;
    mcb_problem_set *S = NULL;
    mcb_err err;
    char warn[1024];
    ck_assert_msg(mcb_record_mujoco(&o, &S, warn, sizeof warn, &err) == MCB_OK, "%s", err.msg);
    ck_assert_msg(strstr(warn, "friction-loss") != NULL, "warning: '%s'", warn);
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        ck_assert_msg(strstr(P->notes, "left out 1 (1 friction loss") != NULL, "%s", P->notes);
        ck_assert(metric(P, MCB_M_DYN_REL, P->v_ref, P->lambda_ref) < 1e-9);
    }
    mcb_problem_set_free(&S);
    o.strict = 1;
    ck_assert_int_eq(mcb_record_mujoco(&o, &S, warn, sizeof warn, &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "--strict") && strstr(err.msg, "1 friction-loss"), "%s", err.msg);
    ck_assert(S == NULL);
    unlink(path);
}
END_TEST

/* The provenance's shapes and values are validated, on read too. */
START_TEST(provenance_validation)
{
    mcb_problem_set *S = record(MODELS "/humanoid/humanoid.xml", 2, 1, MCB_MJ_CONE_MODEL, 0,
                                "test_mujoco_prov.h5");
    mcb_problem *P = S->items[0];
    mcb_err err;
    ck_assert_msg(mcb_problem_validate(P, "p", &err) == MCB_OK, "%s", err.msg);
    P->mujoco->qpos[3] = NAN;
    ck_assert_int_eq(mcb_problem_validate(P, "p", &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "mujoco/qpos[3] is not finite") != NULL, "%s", err.msg);
    P->mujoco->qpos[3] = 0;
    /* written anyway (the writer does not validate), refused on read */
    P->mujoco->qpos[3] = INFINITY;
    ck_assert(mcb_write_problems("test_mujoco_prov_bad.h5", S->items, S->count, &err) == MCB_OK);
    mcb_problem_set *T = NULL;
    ck_assert_int_eq(mcb_read_problems("test_mujoco_prov_bad.h5", &T, &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "mujoco/qpos[3]") != NULL, "%s", err.msg);
    P->mujoco->qpos[3] = 0;
    P->mujoco->nv = P->n + 1;
    ck_assert_int_eq(mcb_problem_validate(P, "p", &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "is not the problem's n") != NULL, "%s", err.msg);
    P->mujoco->nv = P->n;
    P->mujoco->model_bytes = 0;
    ck_assert_int_eq(mcb_problem_validate(P, "p", &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "mujoco/model is empty") != NULL, "%s", err.msg);
    mcb_problem_set_free(&S);
}
END_TEST

/* A MuJoCo error while stepping (humanoid.xml with a stack too small for
 * its contacts: mju_error, which would exit) becomes an error return. */
START_TEST(mujoco_error_caught)
{
    FILE *fp = fopen(MODELS "/humanoid/humanoid.xml", "r");
    ck_assert(fp != NULL);
    static char text[1 << 16];
    size_t len = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[len] = '\0';
    char *opt = strstr(text, "<option timestep=\"0.005\"/>");
    ck_assert(opt != NULL);
    static char edited[(1 << 16) + 64];
    snprintf(edited, sizeof edited, "%.*s<size nstack=\"2000\"/>%s", (int)(opt - text), text, opt);
    const char *path = model_file("%s", edited);
    mcb_record_mujoco_opts o;
    mcb_record_mujoco_defaults(&o);
    o.model_path = path;
    o.steps = 100;
    o.every = 50;
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_record_mujoco(&o, &S, NULL, 0, &err), MCB_E_INPUT);
    ck_assert(S == NULL);
    ck_assert_msg(strstr(err.msg, "MuJoCo error at step") && strstr(err.msg, "Stack overflow"), "%s",
                  err.msg);
    unlink(path);
}
END_TEST

START_TEST(bad_model)
{
    mcb_record_mujoco_opts o;
    mcb_record_mujoco_defaults(&o);
    o.model_path = "/nonexistent/model.xml";
    mcb_problem_set *S = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_record_mujoco(&o, &S, NULL, 0, &err), MCB_E_INPUT);
    ck_assert(S == NULL);
    ck_assert(strstr(err.msg, "cannot load") != NULL);
    o.model_path = MODELS "/humanoid/humanoid.xml";
    o.every = 0;
    ck_assert_int_eq(mcb_record_mujoco(&o, &S, NULL, 0, &err), MCB_E_INPUT);
}
END_TEST

int main(void)
{
    if (access(MODELS "/humanoid/humanoid.xml", R_OK) != 0)
        return mcb_test_skip("MuJoCo's sample models are not installed: ",
                             "libmujoco-samples (" MODELS ")");
    Suite *s = suite_create("mujoco");
    TCase *tc = tcase_create("mujoco");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, derivation_elliptic);
    tcase_add_test(tc, derivation_pyramidal);
    tcase_add_test(tc, record_humanoid);
    tcase_add_test(tc, record_22_humanoids);
    tcase_add_test(tc, record_humanoid100);
    tcase_add_test(tc, record_composite);
    tcase_add_test(tc, deterministic);
    tcase_add_test(tc, peers_reproduce);
    tcase_add_test(tc, peers_check_rows);
    tcase_add_test(tc, peers_refuse_others);
    tcase_add_test(tc, left_out_rows);
    tcase_add_test(tc, provenance_validation);
    tcase_add_test(tc, mujoco_error_caught);
    tcase_add_test(tc, bad_model);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

#else

int main(void)
{
    if (mcb_record_mujoco_available()) return EXIT_FAILURE; /* the build and the recorder disagree */
    for (int k = 0; k < mcb_solver_count(); k++)
        if (!strncmp(mcb_solver_at(k)->name, "mujoco_", 7)) return EXIT_FAILURE;
    return mcb_test_skip("mcbench is built without MuJoCo: ", "install libmujoco-dev");
}

#endif

/* test_mujoco_samples.c: every model of Debian's libmujoco-samples recorded
 * and solved (issue 22, docs/mujoco.md "Every sample model").
 *
 * The table below names every .xml under /usr/share/mujoco/model with the
 * steps recorded (chosen so that the recorded steps have constraint rows
 * where the model has any in its first 200 steps, and few enough for CI);
 * a file found there and not in the table, or a table entry not found,
 * fails the test, so a new model of the package cannot go unrecorded. For
 * each model, one loop iteration (a forked Check test):
 *   - the recording succeeds, or fails with the reason the table states
 *     (composite/scene.xml, the scene the composite models include, has no
 *     degrees of freedom: it used to end with "out of memory");
 *   - on every recorded step the mujoco_newton peer's own solution (the
 *     harness's budget: 100 iterations, tolerance 1e-8, cold) is judged
 *     solved by the harness;
 *   - at least one of our solvers (nncg, pgs, subadmm, nnewton, tried in
 *     that order) solves it to natmap 1e-8 within 5000 iterations.
 * And the record summary counts pyramidal contacts (their rows are
 * unilateral, no contact blocks) as contacts, like elliptic ones.
 * composite/softbox.xml's free-fall steps (651 equality rows that need no
 * force) failed the last check before the natural map's round-off scale
 * was fixed (metrics.c): natmap stayed 1 for every one of our solvers.
 * Each model prints one line: problems, rows, the worst natmap of
 * mujoco_newton, which of ours solved each step. Without MuJoCo or the
 * sample models the test exits 77 (skipped). */
#define _XOPEN_SOURCE 700
#include <check.h>

#include "check_main.h"
#include "check_run.h"
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mcb_io.h"
#include "problems/record_mujoco.h"
#include "problems/sets.h"
#include "solvers/solver.h"

#ifdef MCB_HAVE_MUJOCO

#define MODELS "/usr/share/mujoco/model"

typedef struct {
    const char *path;    /* under MODELS */
    int steps, every;    /* recorded steps every-1, 2 every-1, ... */
    const char *refused; /* NULL, or what the recorder's message must say */
} sample;

/* Rows per recorded step in brackets (the model's cone, measured with these
 * options); "0 rows" models have no constraint in their first 200 steps. */
static const sample samples[] = {
    {"adhesion/active_adhesion.xml", 40, 20, NULL}, /* [10, 35]: adhesion contacts */
    {"composite/cloth.xml", 20, 10, NULL},          /* [64, 64] */
    {"composite/grid2pin.xml", 20, 10, NULL},       /* [144, 144] */
    {"composite/loop.xml", 20, 10, NULL},           /* [3, 3] */
    {"composite/particle.xml", 40, 40, NULL},       /* [511]: 3000 DOF */
    {"composite/rope.xml", 10, 5, NULL},            /* 0 rows */
    {"composite/scene.xml", 10, 10, "has no degrees of freedom (nv = 0"},
    {"composite/softbox.xml", 80, 40, NULL},        /* [651 in free fall, 739] */
    {"flag/flag.xml", 10, 5, NULL},                 /* 0 rows */
    {"hammock/hammock.xml", 20, 10, NULL},          /* [178, 178] */
    {"hammock/humanoid_body.xml", 10, 10, NULL},    /* [1] */
    {"humanoid/22_humanoids.xml", 40, 20, NULL},    /* [13, 66] */
    {"humanoid/humanoid.xml", 40, 40, NULL},        /* [6] */
    {"humanoid100/humanoid100.xml", 100, 50, NULL}, /* [8, 138] */
    {"humanoid100/humanoid_body.xml", 10, 10, NULL}, /* [1] */
    {"mug/mug.xml", 10, 10, NULL},                  /* [12] */
    {"slider_crank/slider_crank.xml", 10, 5, NULL}, /* 0 rows */
    {"tendon_arm/arm26.xml", 10, 5, NULL},          /* 0 rows */
};
enum { NSAMPLES = (int)(sizeof samples / sizeof samples[0]) };

static const char *ours[] = {"nncg", "pgs", "subadmm", "nnewton"};
enum { NOURS = (int)(sizeof ours / sizeof ours[0]) };

/* ---------------------------------------------- the package's .xml files */

static char found[64][256];
static int nfound;

static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)ftw;
    size_t len = strlen(path), root = strlen(MODELS) + 1;
    if (flag == FTW_F && len > 4 && !strcmp(path + len - 4, ".xml") && nfound < 64)
        snprintf(found[nfound++], sizeof found[0], "%s", path + root);
    return 0;
}

START_TEST(table_is_the_package)
{
    nfound = 0;
    ck_assert_int_eq(nftw(MODELS, collect, 16, FTW_PHYS), 0);
    for (int k = 0; k < nfound; k++) {
        int known = 0;
        for (int s = 0; s < NSAMPLES; s++) known |= !strcmp(found[k], samples[s].path);
        ck_assert_msg(known, "%s/%s is not in test_mujoco_samples.c's table: add it", MODELS,
                      found[k]);
    }
    for (int s = 0; s < NSAMPLES; s++) {
        int there = 0;
        for (int k = 0; k < nfound; k++) there |= !strcmp(found[k], samples[s].path);
        ck_assert_msg(there, "%s/%s is in the table but not installed", MODELS, samples[s].path);
    }
    printf("libmujoco-samples: %d models in %s, all in the table\n", nfound, MODELS);
}
END_TEST

/* ---------------------------------------------------------- one model */

START_TEST(sample_model)
{
    const sample *x = &samples[_i];
    char path[512];
    snprintf(path, sizeof path, "%s/%s", MODELS, x->path);
    mcb_record_mujoco_opts o;
    mcb_record_mujoco_defaults(&o);
    o.model_path = path;
    o.steps = x->steps;
    o.every = x->every;
    o.timing = 0;
    mcb_problem_set *S = NULL;
    mcb_err err;
    mcb_rc rc = mcb_record_mujoco(&o, &S, NULL, 0, &err);
    if (x->refused) {
        ck_assert_msg(rc == MCB_E_INPUT && S == NULL && strstr(err.msg, x->refused),
                      "%s: expected the recording to be refused with '%s', got rc %d: %s",
                      x->path, x->refused, rc, rc ? err.msg : "recorded");
        printf("%s: not recorded, as expected: %s\n", x->path, err.msg);
        return;
    }
    ck_assert_msg(rc == MCB_OK, "%s: %s", x->path, err.msg);
    ck_assert_int_eq(S->count, x->steps / x->every);
    int mmin = -1, mmax = 0;
    double worst_mj = 0;
    char line[512] = "";
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        if (mmin < 0 || P->m < mmin) mmin = P->m;
        if (P->m > mmax) mmax = P->m;
        mcb_run run;
        check_run(P, "mujoco_newton", NULL, 1e-8, 100, 1, MCB_LAW_NCP, &run);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED,
                      "%s: mujoco_newton's solution of %s is not judged solved: %s, natmap %g",
                      x->path, P->name, mcb_status_name(run.info.status),
                      run.final.val[MCB_M_NATMAP]);
        worst_mj = fmax(worst_mj, run.final.val[MCB_M_NATMAP]);
        mcb_run_clear(&run);
        char tried[512] = "";
        int solved = -1;
        for (int s = 0; s < NOURS && solved < 0; s++) {
            check_run(P, ours[s], NULL, 1e-8, 5000, 1, MCB_LAW_NCP, &run);
            if (run.info.status == MCB_ST_SOLVED) solved = s;
            size_t at = strlen(tried);
            snprintf(tried + at, sizeof tried - at, " %s %s natmap %.3g;", ours[s],
                     mcb_status_name(run.info.status), run.final.val[MCB_M_NATMAP]);
            mcb_run_clear(&run);
        }
        ck_assert_msg(solved >= 0, "%s: none of our solvers solves %s (m = %d):%s", x->path,
                      P->name, P->m, tried);
        size_t at = strlen(line);
        snprintf(line + at, sizeof line - at, " %s", ours[solved]);
    }
    printf("%s: %d problems, %d-%d rows; mujoco_newton solves every one (natmap <= %.3g); "
           "ours:%s\n",
           x->path, S->count, mmin, mmax, worst_mj, line);
    mcb_problem_set_free(&S);
}
END_TEST

/* The record summary's "contacts per step" counts MuJoCo's contacts whatever
 * the cone: a sphere resting on a plane has one contact, which is one
 * contact_ccp block (elliptic, condim 3), four unilateral edge rows and no
 * contact block (pyramidal, condim 3) or one unilateral row (condim 1);
 * the summary says 1/1/1 for each, also after a write and read
 * (mujoco/contacts). The pyramidal and condim-1 recordings said 0/0/0. */
static const char *ball_xml =
    "<mujoco model='ball'>\n"
    "  <option timestep='0.002' cone='%s'/>\n"
    "  <worldbody>\n"
    "    <geom type='plane' size='1 1 .1' condim='%s' friction='0.5'/>\n"
    "    <body pos='0 0 0.1'>\n"
    "      <freejoint/>\n"
    "      <geom type='sphere' size='0.1' mass='1' condim='%s' friction='0.5'/>\n"
    "    </body>\n"
    "  </worldbody>\n"
    "</mujoco>\n";

static void ball_contacts(const char *cone, const char *condim, int blocks, int rows)
{
    char path[] = "/tmp/mcb_mj_ballXXXXXX", xml[64];
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fprintf(fp, ball_xml, cone, condim, condim);
    fclose(fp);
    snprintf(xml, sizeof xml, "%s.xml", path);
    ck_assert(rename(path, xml) == 0);
    mcb_record_mujoco_opts o;
    mcb_record_mujoco_defaults(&o);
    o.model_path = xml;
    o.steps = 10;
    o.every = 5;
    o.timing = 0;
    mcb_problem_set *S = NULL, *R = NULL;
    mcb_err err;
    ck_assert_msg(mcb_record_mujoco(&o, &S, NULL, 0, &err) == MCB_OK, "%s", err.msg);
    unlink(xml);
    ck_assert_int_eq(S->count, 2);
    for (int k = 0; k < S->count; k++) {
        ck_assert_int_eq(S->items[k]->m, rows);
        ck_assert_int_eq(mcb_problem_contacts(S->items[k]), blocks);
    }
    mcb_gen_summary sum;
    mcb_gen_summarize(S, "ball", "ball.h5", &sum);
    char line[512];
    mcb_gen_summary_line(&sum, line, sizeof line);
    printf("cone %s, condim %s: %s\n", cone, condim, line);
    ck_assert_msg(strstr(line, "contacts per step 1/1/1 "), "cone %s condim %s: %s", cone, condim,
                  line);
    ck_assert(mcb_write_problems("test_mujoco_samples_ball.h5", S->items, S->count, &err) ==
              MCB_OK);
    ck_assert_msg(mcb_read_problems("test_mujoco_samples_ball.h5", &R, &err) == MCB_OK, "%s",
                  err.msg);
    mcb_gen_summarize(R, "ball", "ball.h5", &sum);
    ck_assert_int_eq(sum.contacts_min, 1);
    ck_assert_int_eq(sum.contacts_max, 1);
    mcb_problem_set_free(&R);
    mcb_problem_set_free(&S);
}

START_TEST(pyramidal_contacts_counted)
{
    ball_contacts("elliptic", "3", 1, 3);
    ball_contacts("pyramidal", "3", 0, 4);
    ball_contacts("pyramidal", "1", 0, 1);
}
END_TEST

int main(void)
{
    if (access(MODELS "/humanoid/humanoid.xml", R_OK) != 0)
        return mcb_test_skip("MuJoCo's sample models are not installed: ",
                             "libmujoco-samples (" MODELS ")");
    Suite *s = suite_create("mujoco_samples");
    TCase *tc = tcase_create("samples");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, table_is_the_package);
    tcase_add_test(tc, pyramidal_contacts_counted);
    tcase_add_loop_test(tc, sample_model, 0, NSAMPLES);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

#else

int main(void)
{
    return mcb_test_skip("mcbench is built without MuJoCo: ", "install libmujoco-dev");
}

#endif

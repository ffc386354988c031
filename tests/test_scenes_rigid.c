/* test_scenes_rigid.c: the scenes stir, quadrupeds and wall at small sizes
 * (a few bodies, a few steps): every recorded problem validates; the
 * structure is the one the scene promises (DOF, subsystems and their sizes,
 * contact blocks of 3 rows with the scene's friction, J == Jc Jb, h, step
 * indices, the canonical source string); generating twice gives identical
 * problems; and each scene does what it says (the projectile hits the wall,
 * the quadrupeds land on their feet, the arm's rod moves on its circle). */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_problem.h"
#include "problems/scene/scenes.h"

/* Generates scene `name` from "--opt value" arguments through the registry
 * (the table in scenes.c), as `mcbench gen` does. */
static mcb_problem_set *gen(const char *name, int argc, char **argv, double *vals)
{
    const mcb_scene_def *def = mcb_scene_find(name);
    ck_assert_msg(def != NULL, "scene %s is not registered", name);
    mcb_err err = {{0}};
    ck_assert_msg(mcb_scene_parse(def, argc, argv, vals, &err) == MCB_OK, "%s: %s", name, err.msg);
    mcb_problem_set *S = NULL;
    mcb_rc rc = def->generate(vals, NULL, &S, &err);
    ck_assert_msg(rc == MCB_OK, "%s: %s", name, err.msg);
    ck_assert_ptr_nonnull(S);
    return S;
}

static int same_csc(const mcb_csc *a, const mcb_csc *b)
{
    if (!a || !b) return a == b;
    if (a->m != b->m || a->n != b->n) return 0;
    int nz = a->p[a->n];
    if (nz != b->p[b->n]) return 0;
    return !memcmp(a->p, b->p, sizeof(int) * (size_t)(a->n + 1)) &&
           !memcmp(a->i, b->i, sizeof(int) * (size_t)nz) &&
           !memcmp(a->x, b->x, sizeof(double) * (size_t)nz);
}

static int same_vec(const double *a, const double *b, int n)
{
    if (!a || !b) return a == b;
    return !memcmp(a, b, sizeof(double) * (size_t)n);
}

/* Byte-identical problems (everything a file stores). */
static void assert_same(const mcb_problem *a, const mcb_problem *b)
{
    ck_assert_str_eq(a->name, b->name);
    ck_assert_str_eq(a->source, b->source);
    ck_assert_int_eq(a->n, b->n);
    ck_assert_int_eq(a->m, b->m);
    ck_assert_int_eq(a->nblocks, b->nblocks);
    ck_assert(same_csc(a->A, b->A));
    ck_assert(same_csc(a->J, b->J));
    ck_assert(same_csc(a->Jc, b->Jc));
    ck_assert(same_csc(a->Jb, b->Jb));
    ck_assert(same_vec(a->b, b->b, a->n));
    ck_assert(same_vec(a->e, b->e, a->m));
    ck_assert(same_vec(a->v0, b->v0, a->n));
    ck_assert(same_vec(a->lambda0, b->lambda0, a->m));
    ck_assert(same_vec(a->v_ref, b->v_ref, a->n));
    ck_assert(same_vec(a->lambda_ref, b->lambda_ref, a->m));
    ck_assert(!memcmp(a->blocks, b->blocks, sizeof(mcb_block) * (size_t)a->nblocks));
    ck_assert(!memcmp(a->sub_start, b->sub_start, sizeof(int) * (size_t)(a->nsub + 1)));
    ck_assert(memcmp(&a->cond_est, &b->cond_est, sizeof(double)) == 0);
}

/* max |J - Jc Jb| <= 1e-12 max |J| (dense comparison: small problems). */
static void assert_factorization(const mcb_problem *P)
{
    ck_assert_ptr_nonnull(P->Jc);
    ck_assert_ptr_nonnull(P->Jb);
    ck_assert_int_eq(P->Jc->m, P->m);
    ck_assert_int_eq(P->Jc->n, 6 * P->nbodies);
    ck_assert_int_eq(P->Jb->m, 6 * P->nbodies);
    ck_assert_int_eq(P->Jb->n, P->n);
    mcb_csc *JcJb = mcb_csc_multiply(P->Jc, P->Jb);
    ck_assert_ptr_nonnull(JcJb);
    double *d = calloc((size_t)P->m, sizeof(double));
    double jmax = 0, diff = 0;
    for (int j = 0; j < P->n; j++) {
        memset(d, 0, sizeof(double) * (size_t)P->m);
        for (int k = P->J->p[j]; k < P->J->p[j + 1]; k++) {
            d[P->J->i[k]] += P->J->x[k];
            jmax = fmax(jmax, fabs(P->J->x[k]));
        }
        for (int k = JcJb->p[j]; k < JcJb->p[j + 1]; k++) d[JcJb->i[k]] -= JcJb->x[k];
        for (int i = 0; i < P->m; i++) diff = fmax(diff, fabs(d[i]));
    }
    ck_assert_msg(diff <= 1e-12 * fmax(jmax, 1), "%s: max |J - Jc Jb| = %g (max |J| %g)", P->name,
                  diff, jmax);
    free(d);
    mcb_csc_free(&JcJb);
}

/* What every recorded step of every scene satisfies: validation, n and the
 * subsystem sizes (`sizes`, nsub of them), h, step index, contact blocks
 * of 3 rows covering J with mu in {mus}, J = Jc Jb, the source string. */
static void assert_structure(const mcb_problem_set *S, int steps, const char *name,
                             const double *vals, int nsub, const int *sizes, double h,
                             const double *mus, int nmus, int *contacts)
{
    ck_assert_int_eq(S->count, steps);
    char src[512];
    mcb_scene_args(mcb_scene_find(name), vals, src, sizeof src);
    int n = 0;
    for (int s = 0; s < nsub; s++) n += sizes[s];
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        mcb_err err = {{0}};
        ck_assert_msg(mcb_problem_validate(P, name, &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(P->form, MCB_PRIMAL);
        ck_assert_int_eq(P->n, n);
        ck_assert_int_eq(P->nsub, nsub);
        for (int s = 0; s < nsub; s++)
            ck_assert_int_eq(P->sub_start[s + 1] - P->sub_start[s], sizes[s]);
        ck_assert_double_eq_tol(P->h, h, 1e-15);
        ck_assert_int_eq(P->step, k);
        ck_assert_str_eq(P->scene, name);
        ck_assert_str_eq(P->source, src);
        ck_assert_int_eq(P->m, 3 * P->nblocks);
        for (int b = 0; b < P->nblocks; b++) {
            ck_assert_int_eq(P->blocks[b].type, MCB_CONTACT);
            ck_assert_int_eq(P->blocks[b].nrows, 3);
            ck_assert_int_eq(P->blocks[b].row, 3 * b);
            int ok = 0;
            for (int u = 0; u < nmus; u++) ok |= fabs(P->blocks[b].mu - mus[u]) < 1e-15;
            ck_assert_msg(ok, "%s: contact %d has mu %g", P->name, b, P->blocks[b].mu);
        }
        ck_assert_ptr_nonnull(P->v_ref);
        ck_assert_ptr_nonnull(P->lambda_ref);
        ck_assert(P->mass_ratio >= 1);
        assert_factorization(P);
        contacts[k] = P->nblocks;
    }
}

static void assert_twice_identical(const char *name, int argc, char **argv)
{
    double v1[MCB_SCENE_MAX_OPTS], v2[MCB_SCENE_MAX_OPTS];
    mcb_problem_set *a = gen(name, argc, argv, v1), *b = gen(name, argc, argv, v2);
    ck_assert_int_eq(a->count, b->count);
    for (int k = 0; k < a->count; k++) assert_same(a->items[k], b->items[k]);
    mcb_problem_set_free(&a);
    mcb_problem_set_free(&b);
}

/* ---- stir ---------------------------------------------------------- */

START_TEST(stir_small)
{
    char *argv[] = {"--spheres", "8", "--steps", "3"};
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_problem_set *S = gen("stir", 4, argv, vals);
    int sizes[9], contacts[3];
    for (int s = 0; s < 8; s++) sizes[s] = 6;
    sizes[8] = 7; /* the arm: 7 joints */
    const double mus[] = {0.5, 0.2}; /* spheres and box 0.5, the rod 0.2 */
    assert_structure(S, 3, "stir", vals, 9, sizes, 0.01, mus, 2, contacts);
    /* the spheres rest on the floor from the first step */
    ck_assert_int_ge(contacts[0], 8);
    /* the arm follows the stirring circle: its joints move */
    const mcb_problem *P = S->items[2];
    double arm_speed = 0;
    for (int j = 48; j < 55; j++) arm_speed += fabs(P->v_ref[j]);
    ck_assert_double_gt(arm_speed, 1e-3);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(stir_paper_dimension)
{
    /* 216 spheres: dimension 1303, 217 subsystems (SubADMM paper IV-A 1);
     * one step only */
    char *argv[] = {"--spheres", "216", "--steps", "1"};
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_problem_set *S = gen("stir", 4, argv, vals);
    ck_assert_int_eq(S->count, 1);
    ck_assert_int_eq(S->items[0]->n, 1303);
    ck_assert_int_eq(S->items[0]->nsub, 217);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(stir_deterministic)
{
    char *argv[] = {"--spheres", "8", "--steps", "2"};
    assert_twice_identical("stir", 4, argv);
}
END_TEST

/* ---- quadrupeds ---------------------------------------------------- */

START_TEST(quadrupeds_small)
{
    char *argv[] = {"--robots", "2", "--steps", "3"};
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_problem_set *S = gen("quadrupeds", 4, argv, vals);
    int sizes[2] = {18, 18}, contacts[3];
    const double mus[] = {0.8};
    assert_structure(S, 3, "quadrupeds", vals, 2, sizes, 1.0 / 240, mus, 1, contacts);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(quadrupeds_land_on_their_feet)
{
    /* one robot dropped: after 0.25 s it stands on its four feet (at least
     * four contacts, all with the floor below the trunk) */
    char *argv[] = {"--robots", "1", "--steps", "60"};
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_problem_set *S = gen("quadrupeds", 4, argv, vals);
    const mcb_problem *P = S->items[S->count - 1];
    ck_assert_int_eq(P->n, 18);
    ck_assert_int_ge(P->nblocks, 4);
    /* it has come to rest: the base's vertical velocity is small */
    ck_assert_double_lt(fabs(P->v_ref[2]), 0.2);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(quadrupeds_deterministic)
{
    char *argv[] = {"--robots", "2", "--steps", "2"};
    assert_twice_identical("quadrupeds", 4, argv);
}
END_TEST

/* ---- wall ---------------------------------------------------------- */

START_TEST(wall_small)
{
    char *argv[] = {"--bricks", "6", "--steps", "4"};
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_problem_set *S = gen("wall", 4, argv, vals);
    int sizes[7] = {6, 6, 6, 6, 6, 6, 6}, contacts[4];
    const double mus[] = {0.6};
    assert_structure(S, 4, "wall", vals, 7, sizes, 0.01, mus, 1, contacts);
    /* 6 bricks: 4 per course, 2 courses (running bond): the bottom course
     * stands on the ground with at least 4 contacts per brick */
    ck_assert_int_ge(contacts[0], 16);
    /* the projectile (the last body) starts at 5 m/s towards +y, touching
     * the wall: it is slowed down in the first step */
    const mcb_problem *P0 = S->items[0], *P3 = S->items[3];
    ck_assert_double_lt(P0->v_ref[6 * 6 + 1], 5.0);
    ck_assert_double_gt(P0->v_ref[6 * 6 + 1], 0.0);
    /* and bricks move away from it */
    double brick_vy = 0;
    for (int k = 0; k < 6; k++) brick_vy = fmax(brick_vy, P3->v_ref[6 * k + 1]);
    ck_assert_double_gt(brick_vy, 0.1);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(wall_deterministic)
{
    char *argv[] = {"--bricks", "6", "--steps", "3"};
    assert_twice_identical("wall", 4, argv);
}
END_TEST

START_TEST(bad_options)
{
    const char *names[] = {"stir", "quadrupeds", "wall"};
    for (int s = 0; s < 3; s++) {
        const mcb_scene_def *def = mcb_scene_find(names[s]);
        ck_assert_ptr_nonnull(def);
        double vals[MCB_SCENE_MAX_OPTS];
        char *argv[] = {"--steps", "0"};
        mcb_err err = {{0}};
        ck_assert_int_ne(mcb_scene_parse(def, 2, argv, vals, &err), MCB_OK);
        ck_assert_ptr_nonnull(strstr(err.msg, "steps"));
        ck_assert_int_ne(def->generate(NULL, NULL, NULL, &err), MCB_OK);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scenes_rigid");
    TCase *tc = tcase_create("scenes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, stir_small);
    tcase_add_test(tc, stir_paper_dimension);
    tcase_add_test(tc, stir_deterministic);
    tcase_add_test(tc, quadrupeds_small);
    tcase_add_test(tc, quadrupeds_land_on_their_feet);
    tcase_add_test(tc, quadrupeds_deterministic);
    tcase_add_test(tc, wall_small);
    tcase_add_test(tc, wall_deterministic);
    tcase_add_test(tc, bad_options);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mcb_run_suite(suite());
}

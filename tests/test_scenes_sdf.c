/* test_scenes_sdf.c: the signed-distance scenes of the CANAL paper (dishes,
 * bolt-nut, pouring) generated at small sizes: every problem validates,
 * the structure is the scene's (DOF, subsystems, bodies, contact blocks
 * with the scene's mu, J == Jc Jb), and generating twice gives identical
 * problems (byte for byte in every array). */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/mcb_problem.h"
#include "problems/scene/scenes.h"

/* The registered options with their defaults, then the overrides. */
static void scene_vals(const char *name, const char *const *over, const double *ov, int nover,
                       double *vals)
{
    const mcb_scene_def *def = mcb_scene_find(name);
    ck_assert_msg(def != NULL, "scene %s is not registered", name);
    int n = 0;
    for (; n < MCB_SCENE_MAX_OPTS && def->opts[n].name; n++) vals[n] = def->opts[n].def;
    for (int k = 0; k < nover; k++) {
        int found = 0;
        for (int j = 0; j < n; j++)
            if (!strcmp(def->opts[j].name, over[k])) vals[j] = ov[k], found = 1;
        ck_assert_msg(found, "scene %s has no option --%s", name, over[k]);
    }
}

static mcb_problem_set *generate(const char *name, const char *const *over, const double *ov,
                                 int nover)
{
    double vals[MCB_SCENE_MAX_OPTS];
    scene_vals(name, over, ov, nover, vals);
    const mcb_scene_def *def = mcb_scene_find(name);
    mcb_problem_set *S = NULL;
    mcb_err err = {{0}};
    mcb_rc rc = def->generate(vals, NULL, &S, &err);
    ck_assert_msg(rc == MCB_OK, "generating %s: %s", name, err.msg);
    ck_assert_ptr_nonnull(S);
    return S;
}

static int same_doubles(const double *a, const double *b, int n)
{
    if (!a || !b) return a == b;
    return n == 0 || !memcmp(a, b, (size_t)n * sizeof(double));
}

static int same_ints(const int *a, const int *b, int n)
{
    if (!a || !b) return a == b;
    return n == 0 || !memcmp(a, b, (size_t)n * sizeof(int));
}

static int same_csc(const mcb_csc *a, const mcb_csc *b)
{
    if (!a || !b) return a == b;
    if (a->m != b->m || a->n != b->n) return 0;
    int nz = a->p[a->n];
    return same_ints(a->p, b->p, a->n + 1) && same_ints(a->i, b->i, nz) &&
           same_doubles(a->x, b->x, nz);
}

static int same_str(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return !strcmp(a, b);
}

/* Every field of two problems, exactly. */
static void assert_identical(const mcb_problem *P, const mcb_problem *Q)
{
    ck_assert(same_str(P->name, Q->name) && same_str(P->source, Q->source) &&
              same_str(P->scene, Q->scene) && same_str(P->notes, Q->notes));
    ck_assert(P->n == Q->n && P->m == Q->m && P->nblocks == Q->nblocks && P->nsub == Q->nsub &&
              P->nbodies == Q->nbodies && P->step == Q->step);
    ck_assert(!memcmp(&P->h, &Q->h, sizeof P->h));
    ck_assert(same_csc(P->A, Q->A) && same_csc(P->J, Q->J) && same_csc(P->Jc, Q->Jc) &&
              same_csc(P->Jb, Q->Jb));
    ck_assert(same_doubles(P->b, Q->b, P->n) && same_doubles(P->e, Q->e, P->m));
    ck_assert(same_doubles(P->v0, Q->v0, P->n) && same_doubles(P->lambda0, Q->lambda0, P->m));
    ck_assert(same_doubles(P->v_ref, Q->v_ref, P->n) &&
              same_doubles(P->lambda_ref, Q->lambda_ref, P->m));
    ck_assert(!memcmp(P->blocks, Q->blocks, (size_t)P->nblocks * sizeof *P->blocks));
    ck_assert(same_ints(P->sub_start, Q->sub_start, P->nsub + 1));
    ck_assert(same_ints(P->body_parent, Q->body_parent, P->nbodies) &&
              same_ints(P->body_sub, Q->body_sub, P->nbodies));
    ck_assert(!memcmp(&P->mass_ratio, &Q->mass_ratio, sizeof(double)) &&
              !memcmp(&P->cond_est, &Q->cond_est, sizeof(double)));
}

/* J x == Jc (Jb x) for three fixed vectors x, to 1e-9 relative. */
static void assert_factorization(const mcb_problem *P)
{
    ck_assert_msg(P->nbodies > 0 && P->Jc && P->Jb, "%s: no body factorization", P->name);
    ck_assert_int_eq(P->Jc->m, P->m);
    ck_assert_int_eq(P->Jc->n, 6 * P->nbodies);
    ck_assert_int_eq(P->Jb->m, 6 * P->nbodies);
    ck_assert_int_eq(P->Jb->n, P->n);
    double *x = calloc((size_t)P->n, sizeof *x), *y = calloc((size_t)P->m, sizeof *y);
    double *z = calloc((size_t)P->m, sizeof *z), *t = calloc(6 * (size_t)P->nbodies, sizeof *t);
    for (int trial = 0; trial < 3; trial++) {
        for (int k = 0; k < P->n; k++) x[k] = sin(1.0 + k * (trial + 1.3));
        memset(y, 0, (size_t)P->m * sizeof *y);
        memset(z, 0, (size_t)P->m * sizeof *z);
        memset(t, 0, 6 * (size_t)P->nbodies * sizeof *t);
        mcb_csc_gaxpy(P->J, x, y);
        mcb_csc_gaxpy(P->Jb, x, t);
        mcb_csc_gaxpy(P->Jc, t, z);
        double dmax = 0, ymax = 1e-300;
        for (int i = 0; i < P->m; i++) {
            dmax = fmax(dmax, fabs(y[i] - z[i]));
            ymax = fmax(ymax, fabs(y[i]));
        }
        ck_assert_msg(dmax <= 1e-9 * ymax, "%s: |J x - Jc Jb x| = %g (|J x| %g)", P->name, dmax,
                      ymax);
    }
    free(x), free(y), free(z), free(t);
}

/* What every problem of a scene must satisfy. */
static void check_set(const mcb_problem_set *S, int count, int n, int nsub, int nbodies, double mu,
                      int max_contacts, int min_contacts_any)
{
    ck_assert_int_eq(S->count, count);
    int any = 0;
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        mcb_err err = {{0}};
        ck_assert_msg(mcb_problem_validate(P, P->name, &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(P->form, MCB_PRIMAL);
        ck_assert_int_eq(P->n, n);
        ck_assert_int_eq(P->nsub, nsub);
        ck_assert_int_eq(P->nbodies, nbodies);
        ck_assert_double_eq_tol(P->h, 1.0 / 240.0, 1e-15);
        int nc = mcb_problem_count(P, MCB_CONTACT);
        ck_assert_int_eq(nc, P->nblocks); /* contacts only */
        ck_assert_int_eq(P->m, 3 * nc);
        ck_assert_int_le(nc, max_contacts);
        if (nc > any) any = nc;
        for (int b = 0; b < P->nblocks; b++) {
            ck_assert_int_eq(P->blocks[b].nrows, 3);
            ck_assert_double_eq_tol(P->blocks[b].mu, mu, 1e-15);
        }
        ck_assert_msg(P->v_ref && P->lambda_ref, "%s: no reference solution", P->name);
        ck_assert(isfinite(P->mass_ratio) && P->mass_ratio >= 1);
        if (nc > 0) assert_factorization(P);
        for (int j = 0; j < k; j++) ck_assert_str_ne(S->items[j]->name, P->name);
    }
    ck_assert_int_ge(any, min_contacts_any);
}

static void check_twice(const char *name, const char *const *over, const double *ov, int nover)
{
    mcb_problem_set *S = generate(name, over, ov, nover), *T = generate(name, over, ov, nover);
    ck_assert_int_eq(S->count, T->count);
    for (int k = 0; k < S->count; k++) assert_identical(S->items[k], T->items[k]);
    mcb_problem_set_free(&S);
    mcb_problem_set_free(&T);
}

static const char *const DISH_OPT[] = {"wrenches", "settle"};
static const double DISH_VAL[] = {3, 4};

START_TEST(dishes_small)
{
    mcb_problem_set *S = generate("dishes", DISH_OPT, DISH_VAL, 2);
    /* 4 free dishes: 24 DOF, 4 subsystems, 4 bodies; the stack touches:
     * floor-bowl, bowl-bowl, bowl-plate, plate-pot */
    check_set(S, 3, 24, 4, 4, 0.4, 120, 4);
    ck_assert_str_eq(S->items[0]->name, "dishes-w000");
    ck_assert_str_eq(S->items[0]->scene, "dishes");
    ck_assert_ptr_nonnull(strstr(S->items[0]->source, "dishes --wrenches 3"));
    /* the pot is 50 times a bowl */
    ck_assert_double_eq_tol(S->items[0]->mass_ratio, 50.0, 1e-9);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(dishes_deterministic)
{
    check_twice("dishes", DISH_OPT, DISH_VAL, 2);
}
END_TEST

static const char *const BN_OPT[] = {"configs", "wrenches", "settle"};
static const double BN_VAL[] = {1, 3, 2};

START_TEST(bolt_nut_small)
{
    mcb_problem_set *S = generate("bolt-nut", BN_OPT, BN_VAL, 3);
    /* one free nut on a static bolt: 6 DOF, 1 subsystem, 1 body; the
     * threads engage: many contacts, clustered to at most 120 */
    check_set(S, 3, 6, 1, 1, 0.3, 120, 40);
    ck_assert_str_eq(S->items[2]->name, "bolt-nut-c00-w02");
    ck_assert_str_eq(S->items[0]->scene, "bolt-nut");
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(bolt_nut_deterministic)
{
    check_twice("bolt-nut", BN_OPT, BN_VAL, 3);
}
END_TEST

static const char *const POUR_OPT[] = {"particles", "steps", "settle"};
static const double POUR_VAL[] = {9, 3, 2};

START_TEST(pouring_small)
{
    mcb_problem_set *S = generate("pouring", POUR_OPT, POUR_VAL, 3);
    /* the 28-DOF upper body (bottle welded to a hand) and 9 particles */
    int nl = S->items[0]->nbodies - 9;
    ck_assert_int_gt(nl, 0);
    check_set(S, 3, 28 + 6 * 9, 10, nl + 9, S->items[0]->nblocks ? S->items[0]->blocks[0].mu : 0,
              100000, 9);
    /* particles: 10 g/cm^3, r = 5 mm: 5.236 g; the mass ratio is the
     * heaviest link over a particle */
    ck_assert_double_gt(S->items[0]->mass_ratio, 10.0);
    mcb_problem_set_free(&S);
}
END_TEST

START_TEST(pouring_deterministic)
{
    check_twice("pouring", POUR_OPT, POUR_VAL, 3);
}
END_TEST

START_TEST(bad_options_fail_cleanly)
{
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_problem_set *S = NULL;
    mcb_err err = {{0}};
    scene_vals("dishes", NULL, NULL, 0, vals);
    vals[0] = 0; /* no wrench */
    ck_assert_int_eq(mcb_scene_dishes(vals, NULL, &S, &err), MCB_E_INPUT);
    ck_assert_ptr_null(S);
    ck_assert_int_eq(mcb_scene_bolt_nut(NULL, NULL, &S, &err), MCB_E_INPUT);
    scene_vals("pouring", NULL, NULL, 0, vals);
    vals[0] = 0; /* no particle */
    ck_assert_int_eq(mcb_scene_pouring(vals, NULL, &S, &err), MCB_E_INPUT);
    ck_assert_ptr_null(S);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scenes_sdf");
    TCase *tc = tcase_create("scenes");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, dishes_small);
    tcase_add_test(tc, dishes_deterministic);
    tcase_add_test(tc, bolt_nut_small);
    tcase_add_test(tc, bolt_nut_deterministic);
    tcase_add_test(tc, pouring_small);
    tcase_add_test(tc, pouring_deterministic);
    tcase_add_test(tc, bad_options_fail_cleanly);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mcb_run_suite(suite());
}

/* test_experiment.c: the experiment-spec reader (harness/experiment.h,
 * docs/experiments.md) on the fixtures in tests/data/experiments: the two
 * good specs read with their known field values (counts, the budgets and
 * their merge under --quick, the verdict defaults, published values, the
 * pairs in first-use order), quantities parsed with their units and
 * classes, the runs path, listing and locating specs; and every bad
 * fixture refused with the file, the line and the field of its error. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/experiment.h"
#include "lib/mcb_vocab.h"

#define XP_DIR MCB_SOURCE_DIR "/tests/data/experiments"

static mcb_xp_spec *read_ok(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.yaml", XP_DIR, name);
    mcb_xp_spec *S = NULL;
    mcb_err err = {{0}};
    mcb_rc rc = mcb_xp_read_checked(path, &S, &err);
    ck_assert_msg(rc == MCB_OK, "%s: %s", name, err.msg);
    ck_assert_ptr_nonnull(S);
    return S;
}

static void expect_msg(const mcb_err *err, const char *needle)
{
    ck_assert_msg(strstr(err->msg, needle) != NULL, "message lacks '%s': %s", needle, err->msg);
}

/* ---------------------------------------------------------- good table */

START_TEST(table_fields)
{
    mcb_xp_spec *S = read_ok("good-table");
    ck_assert_str_eq(S->name, "good-table");
    ck_assert_str_eq(S->paper, "subadmm");
    ck_assert_str_eq(S->item, "Table I");
    ck_assert_str_eq(S->where, "Sec. IV-C, rows PGS and SubADMM");
    ck_assert_str_eq(S->citation, "Fixture et al., a test");
    ck_assert_str_eq(S->caveat, "a fixture: the numbers are made up");
    ck_assert_int_eq(S->kind, MCB_XP_TABLE);
    ck_assert_int_eq(S->protocol, MCB_XP_CLOSED_LOOP);
    ck_assert_int_eq(S->nproblems, 2);
    ck_assert_str_eq(S->problems[0].scene, "stir");
    ck_assert_str_eq(S->problems[0].args, "--spheres 8 --steps 4");
    ck_assert_str_eq(S->problems[0].quick_args, "--spheres 8 --steps 2");
    ck_assert_str_eq(S->problems[0].label, "stir, 8 spheres");
    ck_assert_int_eq(S->problems[0].line, 14);
    ck_assert_str_eq(S->problems[1].set, "quick");
    ck_assert_str_eq(S->problems[1].entry, "stir");
    ck_assert_str_eq(S->problems[1].label, "loopstir"); /* the id by default */
    ck_assert_int_eq(S->problems[1].quick_skip, 1);
    ck_assert_ptr_null(S->problems[1].scene);
    ck_assert_int_eq(S->nsolvers, 2);
    const mcb_xp_solver *pgs = mcb_xp_find_solver(S, "pgs-30");
    ck_assert_ptr_eq(pgs, &S->solvers[0]);
    ck_assert_ptr_null(mcb_xp_find_solver(S, "pgs"));
    ck_assert_ptr_eq(mcb_xp_find_problems(S, "loopstir"), &S->problems[1]);
    ck_assert_ptr_null(mcb_xp_find_problems(S, "nope"));
    ck_assert_ptr_null(mcb_xp_find_problems(NULL, "stir"));
    ck_assert_str_eq(pgs->solver, "pgs");
    ck_assert_int_eq(pgs->nparams, 2);
    ck_assert_str_eq(pgs->params[0].name, "omega");
    ck_assert(pgs->params[0].value == 1.0);
    ck_assert_str_eq(pgs->params[1].name, "own_tol");
    ck_assert_int_eq(pgs->budget.iters, 30);
    ck_assert_int_eq(pgs->quick_budget.iters, 10);
    ck_assert(pgs->budget.time_s < 0); /* unset */
    /* the shared budget, every key */
    ck_assert_int_eq(S->budget.iters, 100);
    ck_assert(S->budget.time_s == 0.5);
    ck_assert(S->budget.tol == 1e-8);
    ck_assert_str_eq(S->budget.stop, "fb");
    ck_assert_int_eq(S->budget.repeat, 3);
    ck_assert_int_eq(S->budget.threads, 2);
    ck_assert_str_eq(S->budget.check_every, "auto");
    ck_assert_str_eq(S->budget.law, "ncp");
    ck_assert_str_eq(S->budget.formulation, "ncp");
    ck_assert_int_eq(S->budget.friction_directions, 8);
    ck_assert_int_eq(S->budget.warm_start, 0);
    ck_assert_str_eq(S->quick_budget.check_every, "5");
    /* verdict: time and rate set, the others the documented defaults */
    ck_assert(S->rule[MCB_XV_TIME].factor == 3 && S->rule[MCB_XV_TIME].abs == 0);
    ck_assert(S->rule[MCB_XV_ACCURACY].abs == 1 && S->rule[MCB_XV_ACCURACY].factor == 0);
    ck_assert(S->rule[MCB_XV_COUNT].factor == 1.5);
    ck_assert(S->rule[MCB_XV_RATE].abs == 0.1);
    ck_assert(S->rule[MCB_XV_FIT].abs == 0.01);
    ck_assert(S->rule[MCB_XV_CATEGORY].abs == 0 && S->rule[MCB_XV_CATEGORY].factor == 0);
    /* layout */
    ck_assert_int_eq(S->ncols, 4);
    ck_assert_int_eq(S->nrows, 2);
    ck_assert_int_eq(S->cols[1].quantity.id, MCB_XQ_NEGLOG);
    ck_assert_str_eq(S->cols[1].quantity.metric, "fb");
    ck_assert_str_eq(S->cols[1].unit, "-log10");
    ck_assert(S->cols[1].band.abs == 0.5);
    ck_assert(S->cols[0].band.abs == 0 && S->cols[0].band.factor == 0);
    ck_assert_int_eq(S->cols[3].quantity.id, MCB_XQ_OUTCOME);
    ck_assert_ptr_null(S->rows[0].ref);
    ck_assert_str_eq(S->rows[1].ref, "pgs-30");
    ck_assert_int_eq(S->rows[0].npublished, 4);
    const mcb_xp_value *p0 = S->rows[0].published, *p1 = S->rows[1].published;
    ck_assert(p0[0].kind == MCB_XP_NUMBER && p0[0].number == 14.50);
    ck_assert(p0[1].kind == MCB_XP_NUMBER && p0[1].number == 4.427);
    ck_assert_int_eq(p0[2].kind, MCB_XP_NONE);
    ck_assert_int_eq(p0[3].kind, MCB_XP_CATEGORY);
    ck_assert_str_eq(p0[3].category, "succeeds");
    ck_assert_int_eq(p1[1].kind, MCB_XP_FAILED);
    ck_assert_str_eq(p1[3].category, "fails");
    ck_assert_int_eq(S->nnotes, 1);
    ck_assert_int_eq(S->notes[0].tested, 0);
    ck_assert_str_eq(S->notes[0].experiment, "mcbench reproduce subadmm-vs-pgs-assembled");
    ck_assert_ptr_null(S->notes[0].result);
    mcb_xp_free(&S);
    ck_assert_ptr_null(S);
    mcb_xp_free(&S);
    mcb_xp_free(NULL);
}
END_TEST

/* spec budget < spec quick < entry budget < entry quick */
START_TEST(table_budget_merge)
{
    mcb_xp_spec *S = read_ok("good-table");
    mcb_xp_budget b;
    mcb_xp_effective_budget(S, &S->solvers[0], 0, &b);
    ck_assert_int_eq(b.iters, 30);
    ck_assert(b.time_s == 0.5);
    ck_assert_int_eq(b.repeat, 3);
    ck_assert_str_eq(b.check_every, "auto");
    ck_assert_int_eq(b.threads, 2);
    mcb_xp_effective_budget(S, &S->solvers[0], 1, &b);
    ck_assert_int_eq(b.iters, 10);
    ck_assert(b.time_s == 0.1);
    ck_assert_int_eq(b.repeat, 1);
    ck_assert_str_eq(b.check_every, "5");
    ck_assert_str_eq(b.stop, "fb");
    ck_assert(b.tol == 1e-8);
    ck_assert_int_eq(b.warm_start, 0);
    mcb_xp_effective_budget(S, &S->solvers[1], 1, &b);
    ck_assert_int_eq(b.iters, 30);
    ck_assert_int_eq(b.threads, 1);
    ck_assert(b.time_s == 0.1);
    mcb_xp_free(&S);
}
END_TEST

START_TEST(table_pairs)
{
    mcb_xp_spec *S = read_ok("good-table");
    int *p = NULL, n = 0;
    mcb_err err;
    ck_assert_int_eq(mcb_xp_pairs(S, 0, &p, &n, &err), MCB_OK);
    /* rows outer, columns inner: (stir, pgs) (loopstir, pgs) (stir, subadmm) (loopstir, subadmm) */
    static const int want[] = {0, 0, 1, 0, 0, 1, 1, 1};
    ck_assert_int_eq(n, 4);
    for (int k = 0; k < 8; k++) ck_assert_int_eq(p[k], want[k]);
    free(p);
    ck_assert_int_eq(mcb_xp_pairs(S, 1, &p, &n, &err), MCB_OK); /* loopstir: quick_skip */
    static const int want_quick[] = {0, 0, 0, 1};
    ck_assert_int_eq(n, 2);
    for (int k = 0; k < 4; k++) ck_assert_int_eq(p[k], want_quick[k]);
    free(p);
    mcb_xp_free(&S);
}
END_TEST

/* --------------------------------------------------------- good figure */

START_TEST(figure_fields)
{
    mcb_xp_spec *S = read_ok("good-figure");
    ck_assert_int_eq(S->kind, MCB_XP_FIGURE);
    ck_assert_int_eq(S->protocol, MCB_XP_REPLAY);
    ck_assert_int_eq(S->nproblems, 3);
    ck_assert_int_eq(S->problems[2].fclib, 1);
    ck_assert_int_eq(S->problems[1].has_x, 1);
    ck_assert(S->problems[1].x == 8);
    ck_assert_str_eq(S->problems[1].select, "*stir*");
    ck_assert_ptr_null(S->problems[1].quick_args);
    ck_assert_int_eq(S->nrows + S->ncols, 0);
    ck_assert_int_eq(S->x.kind, MCB_XA_PARAM);
    ck_assert_str_eq(S->x.label, "number of spheres");
    ck_assert_int_eq(S->y.y.id, MCB_XQ_TIME_MS);
    ck_assert_int_eq(S->y.log, 1);
    ck_assert_int_eq(S->nseries, 2);
    ck_assert_int_eq(S->series[0].fit, 1);
    ck_assert_int_eq(S->series[0].nproblems, 2);
    ck_assert_str_eq(S->series[0].problems[0], "stir-8");
    ck_assert_int_eq(S->nclaims, 3);
    ck_assert_int_eq(S->claims[0].quantity.id, MCB_XQ_FIT_R2);
    ck_assert(S->claims[0].published.kind == MCB_XP_NUMBER && S->claims[0].published.number == 0.9993);
    ck_assert_int_eq(S->claims[1].quantity.id, MCB_XQ_Y_AT);
    ck_assert(S->claims[1].quantity.arg == 27);
    ck_assert_str_eq(S->claims[2].ref, "t27");
    ck_assert(S->claims[2].band.factor == 4);
    ck_assert_int_eq(S->solvers[0].budget.iters, 60);
    ck_assert(S->solvers[0].budget.tol == 0);
    ck_assert_int_eq(S->nnotes, 0);
    int *p = NULL, n = 0;
    mcb_err err;
    ck_assert_int_eq(mcb_xp_pairs(S, 0, &p, &n, &err), MCB_OK);
    static const int want[] = {1, 0, 0, 0, 0, 1}; /* series order, then its groups' */
    ck_assert_int_eq(n, 3);
    for (int k = 0; k < 6; k++) ck_assert_int_eq(p[k], want[k]);
    free(p);
    mcb_xp_free(&S);
}
END_TEST

/* ---------------------------------------------------------- quantities */

START_TEST(quantities)
{
    mcb_xp_quantity q;
    mcb_err err;
    ck_assert_int_eq(mcb_xp_quantity_parse("neglog:fb", &q, &err), MCB_OK);
    ck_assert_int_eq(q.id, MCB_XQ_NEGLOG);
    ck_assert_str_eq(q.metric, "fb");
    ck_assert_str_eq(q.text, "neglog:fb");
    ck_assert_str_eq(mcb_xp_quantity_unit(&q), "-log10");
    ck_assert_int_eq(mcb_xp_quantity_class(&q), MCB_XV_ACCURACY);
    free(q.text);
    free(q.metric);
    static const struct {
        const char *text;
        mcb_xp_quantity_id id;
        const char *unit;
        mcb_xp_class cls;
    } known[] = {
        {"time_ms", MCB_XQ_TIME_MS, "ms", MCB_XV_TIME},
        {"setup_ms", MCB_XQ_SETUP_MS, "ms", MCB_XV_TIME},
        {"iterations", MCB_XQ_ITERATIONS, "iterations", MCB_XV_COUNT},
        {"inner_iterations", MCB_XQ_INNER, "iterations", MCB_XV_COUNT},
        {"unsolved", MCB_XQ_UNSOLVED, "fraction", MCB_XV_RATE},
        {"inner_failures", MCB_XQ_INNER_FAIL, "fraction", MCB_XV_RATE},
        {"residual:zres", MCB_XQ_RESIDUAL, "", MCB_XV_ACCURACY},
        {"outcome", MCB_XQ_OUTCOME, "category", MCB_XV_CATEGORY},
        {"fit_r2", MCB_XQ_FIT_R2, "R^2", MCB_XV_FIT},
        {"fit_slope", MCB_XQ_FIT_SLOPE, "", MCB_XV_FIT},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        ck_assert_int_eq(mcb_xp_quantity_parse(known[k].text, &q, &err), MCB_OK);
        ck_assert_int_eq(q.id, known[k].id);
        ck_assert_str_eq(mcb_xp_quantity_unit(&q), known[k].unit);
        ck_assert_int_eq(mcb_xp_quantity_class(&q), known[k].cls);
        free(q.text);
        free(q.metric);
    }
    /* y_at and y_final carry the figure's y quantity's unit and class */
    ck_assert_int_eq(mcb_xp_quantity_parse("y_at:100", &q, &err), MCB_OK);
    ck_assert(q.id == MCB_XQ_Y_AT && q.arg == 100 && !q.metric);
    ck_assert_ptr_null(mcb_xp_quantity_unit(&q));
    ck_assert_int_eq(mcb_xp_quantity_class(&q), MCB_XV_NCLASSES);
    free(q.text);
    static const char *const bad[][2] = {
        {"speed", "unknown quantity 'speed' (known: time_ms"},
        {"neglog", "needs its argument (neglog:METRIC)"},
        {"neglog:", "needs its argument"},
        {"time_ms:3", "takes no ':' argument"},
        {"residual:nope", "unknown metric 'nope' (metrics: dyn_abs"},
        {"y_at:abc", "'abc' is not a finite number"},
        {"y_at:inf", "is not a finite number"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        ck_assert_int_eq(mcb_xp_quantity_parse(bad[k][0], &q, &err), MCB_E_INPUT);
        expect_msg(&err, bad[k][1]);
        ck_assert_ptr_null(q.text);
    }
}
END_TEST

START_TEST(runs_path)
{
    char buf[64];
    ck_assert_int_eq(mcb_xp_runs_path("out/x", "stir", "pgs-30", buf, sizeof buf), 25);
    ck_assert_str_eq(buf, "out/x/runs/stir/pgs-30.h5");
    ck_assert_int_ge(mcb_xp_runs_path("out/x", "stir", "pgs-30", buf, 8), 8); /* truncated */
}
END_TEST

/* ------------------------------------------------------ list and locate */

START_TEST(list_and_locate)
{
    setenv("MCB_EXPERIMENTS_DIR", XP_DIR, 1);
    ck_assert_str_eq(mcb_experiments_dir(), XP_DIR);
    char **names = NULL;
    int n = 0;
    mcb_err err;
    ck_assert_int_eq(mcb_xp_list(&names, &n, &err), MCB_OK);
    ck_assert_int_ge(n, 20); /* the fixtures here; more may come */
    ck_assert_str_eq(names[0], "bad-category");
    ck_assert_str_eq(names[n - 2], "good-figure");
    ck_assert_str_eq(names[n - 1], "good-table");
    for (int k = 1; k < n; k++) ck_assert_int_lt(strcmp(names[k - 1], names[k]), 0);
    mcb_xp_names_free(names, n);
    mcb_xp_names_free(NULL, 0);
    char path[512];
    ck_assert_int_eq(mcb_xp_locate("good-table", path, sizeof path, &err), MCB_OK);
    ck_assert_str_eq(path, XP_DIR "/good-table.yaml");
    ck_assert_int_eq(mcb_xp_locate("nope", path, sizeof path, &err), MCB_E_INPUT);
    expect_msg(&err, "unknown experiment 'nope'");
    expect_msg(&err, "good-figure, good-table");
    ck_assert_int_eq(mcb_xp_locate("/nonexistent/x.yaml", path, sizeof path, &err), MCB_E_INPUT);
    expect_msg(&err, "/nonexistent/x.yaml: No such file");
    ck_assert_int_eq(mcb_xp_locate(XP_DIR "/good-figure.yaml", path, sizeof path, &err), MCB_OK);
    setenv("MCB_EXPERIMENTS_DIR", "/nonexistent-dir", 1);
    ck_assert_int_eq(mcb_xp_list(&names, &n, &err), MCB_E_INPUT);
    expect_msg(&err, "/nonexistent-dir");
    ck_assert_ptr_null(names);
    setenv("MCB_EXPERIMENTS_DIR", "", 1);
    ck_assert_str_eq(mcb_experiments_dir(), MCB_SOURCE_DIR "/experiments");
    unsetenv("MCB_EXPERIMENTS_DIR");
}
END_TEST

/* ------------------------------------------------------------ bad specs */

/* Every error class: the fixture, and what its message must hold. */
static const char *const bad_specs[][2] = {
    {"bad-syntax", "bad-syntax.yaml:22: YAML syntax error: did not find expected ',' or '}'"},
    {"bad-unknown-key", "bad-unknown-key.yaml:17: solvers[1].bugdet: unknown key (known: id, "},
    {"bad-type", "bad-type.yaml:17: solvers[1].budget.iters: expected an integer in [1, "
                 "100000000], got 'ten'"},
    {"bad-missing", "bad-missing.yaml:15: solvers[1].solver: missing (required)"},
    {"bad-duplicate-id", "bad-duplicate-id.yaml:15: solvers[1].id: 'pgs' is already the id of "
                         "solvers[0] (line 12)"},
    {"bad-undefined-ref", "bad-undefined-ref.yaml:23: layout.rows[0].solver: 'nope' is not the id "
                          "of any solver entry"},
    {"bad-published-count", "bad-published-count.yaml:23: layout.rows[0].published: 3 values for 2 "
                            "columns"},
    {"bad-unit", "bad-unit.yaml:20: layout.columns[0].unit: 's' is not the unit of time_ms ('ms')"},
    {"bad-solver", "bad-solver.yaml:13: solvers[0].solver: unknown solver 'gauss'"},
    {"bad-param", "bad-param.yaml:14: solvers[0].params.seed: solver pgs has no parameter 'seed'"},
    {"bad-param-value", "bad-param-value.yaml:14: solvers[0].params: pgs.omega = 2.5 must lie in"},
    {"bad-scene-option", "bad-scene-option.yaml:10: problems[0].args: gen stir: --spheres 0 is out "
                         "of range"},
    {"bad-loop-scene", "bad-loop-scene.yaml:9: problems[0].scene: scene stack is not one "
                       "trajectory"},
    {"bad-loop-fclib", "bad-loop-fclib.yaml:9: problems[0].fclib: FCLIB files are replayed only"},
    {"bad-category", "bad-category.yaml:23: layout.rows[0].published[0]: 'succeeds' is an "
                     "outcome, but the quantity is time_ms"},
    {"bad-name", "bad-name.yaml:2: name: 'bad-nmae' is not the file's stem 'bad-name'"},
    {"bad-profile-y", "bad-profile-y.yaml:13: figure.y.quantity: x axis profile compares solvers "
                      "per problem: y must be time_ms or iterations, got residual:natmap"},
    {"bad-curve-y", "bad-curve-y.yaml:13: figure.y.quantity: x axis iteration draws curves: y "
                    "must be residual:METRIC"},
    {"bad-param-axis", "bad-param-axis.yaml:16: figure.series[0].problems[1]: group 'stir-27' "
                       "has no x"},
};

START_TEST(bad_spec)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.yaml", XP_DIR, bad_specs[_i][0]);
    mcb_xp_spec *S = (mcb_xp_spec *)&path; /* overwritten: NULL on failure */
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_xp_read_checked(path, &S, &err), MCB_E_INPUT);
    ck_assert_ptr_null(S);
    expect_msg(&err, bad_specs[_i][1]);
}
END_TEST

/* Specs written here: an empty file, a missing file, a list at the top,
 * values of the wrong kind in the published lists and bands. */
static void expect_text(const char *name, const char *text, const char *needle)
{
    char dir[] = "/tmp/mcb_test_xp_XXXXXX", path[256];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%s.yaml", dir, name);
    FILE *fp = fopen(path, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
    mcb_xp_spec *S = NULL;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_xp_read_checked(path, &S, &err), MCB_E_INPUT);
    ck_assert_ptr_null(S);
    expect_msg(&err, needle);
    unlink(path);
    rmdir(dir);
}

#define HEAD(name) "name: " name "\ntitle: t\nsource: {paper: none, item: x}\nkind: table\n" \
    "protocol: replay\nproblems: [{id: s, scene: stir, args: \"--spheres 8\"}]\n" \
    "solvers: [{id: p, solver: pgs}]\n"

/* budget.warm_start: a mode of mcbench run --warm-start besides true/false. */
START_TEST(warm_start_words)
{
    const char *words[] = {"none", "recorded", "own", "true", "false"};
    const int want[] = {MCB_WARM_NONE, MCB_WARM_RECORDED, MCB_WARM_OWN, 1, 0};
    for (int k = 0; k < 5; k++) {
        char dir[] = "/tmp/mcb_test_xp_XXXXXX", path[256];
        ck_assert_ptr_nonnull(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/wk.yaml", dir);
        FILE *fp = fopen(path, "w");
        fprintf(fp, HEAD("wk") "budget: {warm_start: %s}\nlayout:\n  columns: [{id: c, problems: "
                "s, quantity: time_ms}]\n  rows: [{id: r, solver: p}]\n", words[k]);
        fclose(fp);
        mcb_xp_spec *S = NULL;
        mcb_err err = {{0}};
        ck_assert_msg(mcb_xp_read_checked(path, &S, &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(S->budget.warm_start, want[k]);
        mcb_xp_free(&S);
        unlink(path);
        rmdir(dir);
    }
}
END_TEST

START_TEST(bad_inline)
{
    expect_text("empty", "", "empty.yaml: empty experiment spec");
    expect_text("list", "- a\n- b\n", "list.yaml:1: spec: expected a mapping, got a list");
    expect_text("nokind", "name: nokind\n", "nokind.yaml:1: title: missing (required)");
    expect_text("v", HEAD("v") "layout:\n  columns: [{id: c, problems: s, quantity: time_ms, unit: ms}]\n"
                "  rows: [{id: r, solver: p, published: [\"14.5\"]}]\n",
                "v.yaml:10: layout.rows[0].published[0]: expected a finite number, \"-\"");
    expect_text("w", HEAD("w") "layout:\n  columns: [{id: c, problems: s, quantity: time_ms}]\n"
                "  rows: [{id: r, solver: p, published: [14.5]}]\n",
                "w.yaml:10: layout.rows[0].published[0]: a published number needs its unit");
    expect_text("x", HEAD("x") "layout:\n  columns: [{id: c, problems: s, quantity: time_ms}]\n"
                "  rows: [{id: r, solver: p, problems: s}]\n",
                "x.yaml:10: layout.rows[0]: the cell of row 'r' and column 'c' (columns[0]) has its "
                "problems from both");
    expect_text("y", HEAD("y") "layout:\n  columns: [{id: c, problems: s}]\n"
                "  rows: [{id: r, solver: p}]\n", "has its quantity from neither");
    expect_text("z", HEAD("z") "verdict: {time: {abs: 1, factor: 2}}\nlayout: {}\n",
                "z.yaml:8: verdict.time: give exactly one of abs, factor or bound");
    expect_text("r", HEAD("r") "layout:\n  columns: [{id: c, problems: s, quantity: time_ms}]\n"
                "  rows: [{id: r, solver: p, ref: q}]\n",
                "r.yaml:10: layout.rows[0].ref: 'q' is not the id of another");
    expect_text("f", HEAD("f") "figure: {x: {axis: dof}}\n", "f.yaml:8: figure: kind: table has no figure");
    expect_text("id", HEAD("id") "notes: [{difference: d, reason: r, tested: true}]\n"
                "layout:\n  columns: [{id: \"c d\", problems: s, quantity: time_ms}]\n"
                "  rows: [{id: r, solver: p}]\n",
                "id.yaml:10: layout.columns[0].id: expected an id of letters");
    expect_text("b", HEAD("b") "budget: {stop: pen_max}\n",
                "b.yaml:8: budget.stop: expected one of dyn_abs, dyn_rel, fb, fb_max, natmap, zres,"
                " got 'pen_max'");
    expect_text("two", HEAD("two") "title: again\n", "two.yaml:8: title: given twice");
    expect_text("wm", HEAD("wm") "budget: {warm_start: maybe}\n",
                "wm.yaml:8: budget.warm_start: expected true, false, none, recorded or own, got "
                "'maybe'");
    expect_text("q", HEAD("q") "quick: {iters: 3}\n", "q.yaml:8: quick.iters: unknown key (known: budget)");
    expect_text("fac", HEAD("fac") "verdict: {count: {factor: 1}}\n",
                "fac.yaml:8: verdict.count.factor: expected a factor > 1");
    expect_text("gx", HEAD("gx") "problems: [{id: t, scene: stir, x: big}]\n",
                "gx.yaml:8: problems: given twice");
    expect_text("sel", "name: sel\ntitle: t\nsource: {paper: none, item: x}\nkind: table\n"
                "protocol: closed-loop\nproblems: [{id: s, scene: stir, select: \"*\"}]\n"
                "solvers: [{id: p, solver: pgs}]\n",
                "sel.yaml:6: problems[0].select: applies to replay only");
    expect_text("src", "name: src\ntitle: t\nsource: {paper: none, item: x}\nkind: table\n"
                "protocol: replay\nproblems: [{id: s, scene: stir, set: quick, entry: stir}]\n"
                "solvers: [{id: p, solver: pgs}]\n",
                "src.yaml:6: problems[0]: give exactly one of scene, set (with entry) or fclib");
    expect_text("ent", "name: ent\ntitle: t\nsource: {paper: none, item: x}\nkind: table\n"
                "protocol: replay\nproblems: [{id: s, set: quick, entry: nope}]\n"
                "solvers: [{id: p, solver: pgs}]\n",
                "ent.yaml:6: problems[0].entry: set quick (");
    expect_text("nox", "name: nox\ntitle: t\nsource: {paper: none, item: x}\nkind: table\n"
                "protocol: replay\nproblems: [{id: s, scene: stir, x: big}]\n"
                "solvers: [{id: p, solver: pgs}]\n",
                "nox.yaml:6: problems[0].x: expected a finite number, got 'big'");
    expect_text("fit", "name: fit\ntitle: t\nsource: {paper: none, item: x}\nkind: figure\n"
                "protocol: replay\nproblems: [{id: s, scene: stir}]\nsolvers: [{id: p, solver: pgs}]\n"
                "figure: {x: {axis: dof}, y: {quantity: iterations}, series: [{id: a, solver: p, "
                "problems: [s]}]}\nclaims: [{id: c, series: a, quantity: fit_slope}]\n",
                "fit.yaml:9: claims[0].quantity: fit_slope needs series 'a' to have fit: true");
    expect_text("cu", "name: cu\ntitle: t\nsource: {paper: none, item: x}\nkind: figure\n"
                "protocol: replay\nproblems: [{id: s, scene: stir}]\nsolvers: [{id: p, solver: pgs}]\n"
                "figure: {x: {axis: dof}, y: {quantity: iterations}, series: [{id: a, solver: p, "
                "problems: [s]}]}\nclaims: [{id: c, series: a, quantity: y_final, unit: ms}]\n",
                "cu.yaml:9: claims[0].unit: 'ms' is not the unit of y_final ('iterations')");
    expect_text("dt", HEAD("dt") "layout:\n  columns: [{id: c, problems: s, quantity: engine_ms}]\n"
                "  rows: [{id: r, solver: p}]\n",
                "dt.yaml:9: layout.columns[0].quantity: engine_ms is measured in a closed loop only");
    expect_text("ws", "name: ws\ntitle: t\nsource: {paper: none, item: x}\nkind: table\n"
                "protocol: replay\nproblems: [{id: s, scene: stir}]\n"
                "solvers: [{id: p, solver: xpbd}]\n",
                "ws.yaml:7: solvers[0].solver: xpbd is a whole-step method: it advances a scene "
                "itself and runs in a closed loop only");
    expect_text("inst", "name: inst\ntitle: t\nsource: {paper: none, item: x}\nkind: table\n"
                "protocol: replay\nproblems: [{id: s, scene: stir, instances: 3}]\n"
                "solvers: [{id: p, solver: pgs}]\n",
                "inst.yaml:6: problems[0].instances: belongs to a closed-loop scene group");
    expect_text("note", HEAD("note") "notes: [{difference: d, reason: r, tested: true}]\n"
                "layout:\n  columns: [{id: c, problems: s, quantity: time_ms}]\n"
                "  rows: [{id: r, solver: p}]\n",
                "note.yaml:8: notes[0].tested: a tested note names its experiment and its result");
}
END_TEST

START_TEST(missing_file)
{
    mcb_xp_spec *S = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_xp_read_checked("/nonexistent/a.yaml", &S, &err), MCB_E_INPUT);
    expect_msg(&err, "experiment spec /nonexistent/a.yaml: No such file");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("experiment");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, table_fields);
    tcase_add_test(tc, table_budget_merge);
    tcase_add_test(tc, table_pairs);
    tcase_add_test(tc, figure_fields);
    tcase_add_test(tc, quantities);
    tcase_add_test(tc, runs_path);
    tcase_add_test(tc, list_and_locate);
    tcase_add_loop_test(tc, bad_spec, 0, (int)(sizeof bad_specs / sizeof bad_specs[0]));
    tcase_add_test(tc, bad_inline);
    tcase_add_test(tc, warm_start_words);
    tcase_add_test(tc, missing_file);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

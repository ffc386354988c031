/* test_sets.c: the scene registry (option parsing, canonical arguments that
 * parse back to the same values) and the problem-set catalog (parsing with
 * comments and line numbers, bad lines, unknown scenes named with file and
 * line before anything is built, building the quick set twice: the second
 * time reused with the bytes unchanged, regeneration when the arguments
 * change, no temporary left behind, the summary). */
#include <check.h>

#include "check_main.h"
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mcb_io.h"
#include "problems/scene/scenes.h"
#include "problems/sets.h"

static char dir[256], setpath[300];

/* A fresh temporary directory and a set file in it holding `text`. */
static void write_set(const char *text)
{
    snprintf(dir, sizeof dir, "/tmp/mcb_test_sets_%ld_XXXXXX", (long)getpid());
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(setpath, sizeof setpath, "%s/x.set", dir);
    FILE *fp = fopen(setpath, "w");
    ck_assert_ptr_nonnull(fp);
    fputs(text, fp);
    fclose(fp);
}

static void remove_dir(const char *d)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
    ck_assert_int_eq(system(cmd), 0);
}

static void expect_msg(const mcb_err *err, const char *needle)
{
    ck_assert_msg(strstr(err->msg, needle) != NULL, "message lacks '%s': %s", needle, err->msg);
}

/* ------------------------------------------------------------ registry */

START_TEST(registry_has_stack)
{
    ck_assert_int_ge(mcb_scene_count(), 1);
    const mcb_scene_def *d = mcb_scene_find("stack");
    ck_assert_ptr_nonnull(d);
    ck_assert_ptr_eq(mcb_scene_at(0), d);
    ck_assert_ptr_null(mcb_scene_find("nope"));
    ck_assert_ptr_null(mcb_scene_find(NULL));
    ck_assert_ptr_null(mcb_scene_at(mcb_scene_count()));
    ck_assert_ptr_null(mcb_scene_at(-1));
    for (int k = 0; k < mcb_scene_count(); k++) {
        const mcb_scene_def *s = mcb_scene_at(k);
        ck_assert(s->summary && s->paper && s->generate);
        for (int o = 0; o < MCB_SCENE_MAX_OPTS && s->opts[o].name; o++)
            ck_assert_msg(s->opts[o].def >= s->opts[o].min && s->opts[o].def <= s->opts[o].max,
                          "%s --%s: default out of its range", s->name, s->opts[o].name);
    }
}
END_TEST

START_TEST(parse_and_args_round_trip)
{
    const mcb_scene_def *d = mcb_scene_find("stack");
    double v[MCB_SCENE_MAX_OPTS], w[MCB_SCENE_MAX_OPTS];
    char *argv[] = {"--nx", "7", "--radius", "0.1", "--mu", "0.30000000000000004",
                    "--h", "1e-3", "--jitter", "0.333333333333333314829616256247"};
    mcb_err err;
    ck_assert_msg(mcb_scene_parse(d, 10, argv, v, &err) == MCB_OK, "%s", err.msg);
    ck_assert(v[0] == 7 && v[1] == 5 && v[3] == 10); /* given, then defaults */
    ck_assert(v[6] == 0.30000000000000004 && v[7] == 1e-3 && v[9] == 1.0 / 3.0);
    char args[1024];
    mcb_scene_args(d, v, args, sizeof args);
    ck_assert_str_eq(args, "stack --nx 7 --ny 5 --nz 5 --steps 10 --radius 0.1 --mass 1 "
                           "--mu 0.30000000000000004 --h 0.001 --seed 12345 "
                           "--jitter 0.3333333333333333");
    /* parse(args(v)) == v, bit for bit */
    char copy[1024], *words[64];
    snprintf(copy, sizeof copy, "%s", args);
    int n = 0;
    for (char *t = strtok(copy, " "); t; t = strtok(NULL, " ")) words[n++] = t;
    ck_assert_msg(mcb_scene_parse(d, n - 1, words + 1, w, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(memcmp(v, w, 10 * sizeof(double)), 0);
    /* a small buffer is cut, never overrun */
    char small[12];
    memset(small, 'x', sizeof small);
    mcb_scene_args(d, v, small, 8);
    ck_assert_int_eq((int)strlen(small), 7);
    ck_assert_int_eq(small[8], 'x');
}
END_TEST

START_TEST(parse_errors)
{
    const mcb_scene_def *d = mcb_scene_find("stack");
    double v[MCB_SCENE_MAX_OPTS];
    mcb_err err;
    struct {
        int argc;
        char *argv[3];
        const char *needle;
    } cases[] = {
        {2, {"--bogus", "1"}, "unknown option --bogus (its options: --nx, --ny"},
        {1, {"--nx"}, "option --nx needs a value"},
        {2, {"--nx", "1.5"}, "--nx 1.5 is not an integer"},
        {2, {"--nx", "0"}, "--nx 0 is out of range [1, 1000]"},
        {2, {"--mu", "inf"}, "--mu 'inf' is not a finite number"},
        {2, {"--mu", "nan"}, "--mu 'nan' is not a finite number"},
        {2, {"--h", "0.01s"}, "--h '0.01s' is not a finite number"},
        {2, {"--mu", "-0.1"}, "--mu -0.1 is out of range"},
        {1, {"stray"}, "unexpected argument stray"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        err.msg[0] = '\0';
        ck_assert_int_eq(mcb_scene_parse(d, cases[k].argc, cases[k].argv, v, &err), MCB_E_INPUT);
        expect_msg(&err, "gen stack: ");
        expect_msg(&err, cases[k].needle);
    }
}
END_TEST

/* ------------------------------------------------------------- parsing */

START_TEST(set_parse)
{
    write_set("# a comment\n"
              "\n"
              "   \t\n"
              "one stack --nx 2 --ny 2   # trailing comment\n"
              "  two\tstack   # no options\n"
              "#three stack\n"
              "three.b_c-d stack --steps 1\n");
    mcb_set *S = NULL;
    mcb_err err;
    ck_assert_msg(mcb_set_read(setpath, &S, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(S->count, 3);
    ck_assert_str_eq(S->items[0].stem, "one");
    ck_assert_str_eq(S->items[0].scene, "stack");
    ck_assert_int_eq(S->items[0].line, 4);
    ck_assert_int_eq(S->items[0].argc, 4);
    ck_assert_str_eq(S->items[0].argv[3], "2");
    ck_assert_str_eq(S->items[1].stem, "two");
    ck_assert_int_eq(S->items[1].argc, 0);
    ck_assert_int_eq(S->items[1].line, 5);
    ck_assert_str_eq(S->items[2].stem, "three.b_c-d");
    ck_assert_int_eq(S->items[2].line, 7);
    ck_assert_int_eq(mcb_set_check(S, &err), MCB_OK);
    mcb_set_free(&S);
    ck_assert_ptr_null(S);
    mcb_set_free(NULL);
    remove_dir(dir);
}
END_TEST

START_TEST(set_bad_lines)
{
    struct {
        const char *text, *needle;
    } cases[] = {
        {"a stack\n\nlonely\n", "x.set:3: an entry needs FILE_STEM SCENE"},
        {"# c\n../evil stack\n", "x.set:2: file stem '../evil' must be"},
        {".hidden stack\n", "x.set:1: file stem '.hidden'"},
        {"a stack\nb stack\na stack --nx 2\n", "x.set:3: file stem 'a' is already used on line 1"},
        {"# nothing\n\n", "has no entry"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        write_set(cases[k].text);
        mcb_set *S = NULL;
        mcb_err err;
        ck_assert_int_eq(mcb_set_read(setpath, &S, &err), MCB_E_INPUT);
        ck_assert_ptr_null(S);
        expect_msg(&err, setpath);
        expect_msg(&err, cases[k].needle);
        remove_dir(dir);
    }
    /* a line longer than the limit */
    char *big = malloc(6000);
    memset(big, 'a', 5000);
    strcpy(big + 5000, " stack\n");
    write_set(big);
    free(big);
    mcb_set *S = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_set_read(setpath, &S, &err), MCB_E_INPUT);
    expect_msg(&err, "x.set:1: line longer than");
    remove_dir(dir);
    ck_assert_int_eq(mcb_set_read("/nonexistent/y.set", &S, &err), MCB_E_INPUT);
    expect_msg(&err, "/nonexistent/y.set");
}
END_TEST

/* An unregistered scene or a bad option is reported with the file and the
 * line, and nothing is built. */
START_TEST(set_unknown_scene)
{
    write_set("ok stack --nx 1 --ny 1 --nz 1 --steps 1\n"
              "# the papers' scene, not yet registered\n"
              "stir-216 no-such-scene --spheres 216\n");
    mcb_set *S = NULL;
    mcb_err err;
    ck_assert_int_eq(mcb_set_read(setpath, &S, &err), MCB_OK);
    char out[400];
    snprintf(out, sizeof out, "%s/out", dir);
    ck_assert_int_eq(mcb_set_build(S, out, NULL, NULL, &err), MCB_E_INPUT);
    expect_msg(&err, "x.set:3: unknown scene 'no-such-scene' for stir-216 (registered scenes: stack");
    struct stat st;
    ck_assert_int_ne(stat(out, &st), 0); /* nothing built, not even the directory */
    mcb_set_free(&S);
    remove_dir(dir);

    write_set("ok stack --nx 0\n");
    ck_assert_int_eq(mcb_set_read(setpath, &S, &err), MCB_OK);
    ck_assert_int_eq(mcb_set_check(S, &err), MCB_E_INPUT);
    expect_msg(&err, "x.set:1: gen stack: --nx 0 is out of range");
    mcb_set_free(&S);
    remove_dir(dir);
}
END_TEST

START_TEST(set_locate)
{
    char p[4096];
    mcb_err err;
    unsetenv("MCB_SETS_DIR");
    ck_assert_msg(mcb_set_locate("quick", p, sizeof p, &err) == MCB_OK, "%s", err.msg);
    ck_assert_ptr_nonnull(strstr(p, "problems/sets/quick.set"));
    ck_assert_int_eq(mcb_set_locate("nope", p, sizeof p, &err), MCB_E_INPUT);
    expect_msg(&err, "unknown problem set 'nope'");
    expect_msg(&err, "default, loop, mujoco, paper, quick, scaling");
    /* every catalog set parses (its scenes may not all be registered yet) */
    const char *names[] = {"quick", "default", "paper", "scaling"};
    for (int k = 0; k < 4; k++) {
        mcb_set *S = NULL;
        ck_assert_int_eq(mcb_set_locate(names[k], p, sizeof p, &err), MCB_OK);
        ck_assert_msg(mcb_set_read(p, &S, &err) == MCB_OK, "%s", err.msg);
        mcb_set_free(&S);
    }
    /* the override, and a path given as such */
    write_set("a stack\n");
    setenv("MCB_SETS_DIR", dir, 1);
    ck_assert_msg(mcb_set_locate("x", p, sizeof p, &err) == MCB_OK, "%s", err.msg);
    ck_assert_str_eq(p, setpath);
    ck_assert_int_eq(mcb_set_locate("quick", p, sizeof p, &err), MCB_E_INPUT);
    unsetenv("MCB_SETS_DIR");
    ck_assert_int_eq(mcb_set_locate(setpath, p, sizeof p, &err), MCB_OK);
    ck_assert_str_eq(p, setpath);
    ck_assert_int_eq(mcb_set_locate("./missing.set", p, sizeof p, &err), MCB_E_INPUT);
    expect_msg(&err, "./missing.set");
    remove_dir(dir);
}
END_TEST

/* ------------------------------------------------------------ building */

typedef struct {
    int calls, reused;
    mcb_gen_summary last;
} progress_log;

static void on_progress(void *ctx, const mcb_gen_summary *s)
{
    progress_log *L = ctx;
    L->calls++;
    L->reused += s->reused;
    L->last = *s;
}

static char *slurp(const char *path, long *len)
{
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    fseek(fp, 0, SEEK_END);
    *len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = malloc((size_t)*len + 1);
    ck_assert_int_eq((long)fread(buf, 1, (size_t)*len, fp), *len);
    fclose(fp);
    return buf;
}

/* Files in d other than the expected .h5 files: temporaries left behind. */
static int stray_files(const char *d)
{
    int n = 0;
    DIR *dp = opendir(d);
    ck_assert_ptr_nonnull(dp);
    for (struct dirent *e; (e = readdir(dp));) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.') continue;
        if (len < 3 || strcmp(e->d_name + len - 3, ".h5")) n++;
    }
    closedir(dp);
    return n;
}

START_TEST(build_quick_twice)
{
    char p[4096], out[400], file[500];
    mcb_err err;
    mcb_set *S = NULL;
    unsetenv("MCB_SETS_DIR");
    ck_assert_int_eq(mcb_set_locate("quick", p, sizeof p, &err), MCB_OK);
    ck_assert_msg(mcb_set_read(p, &S, &err) == MCB_OK, "%s", err.msg);
    write_set("# for the directory\n");
    snprintf(out, sizeof out, "%s/built/sub", dir); /* created with its parent */
    progress_log L = {0};
    ck_assert_msg(mcb_set_build(S, out, on_progress, &L, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(L.calls, S->count);
    ck_assert_int_eq(L.reused, 0);
    /* the first entry's file: read back, its source the canonical arguments */
    snprintf(file, sizeof file, "%s/%s.h5", out, S->items[0].stem);
    long len1, len2;
    char *bytes1 = slurp(file, &len1);
    struct stat st1, st2;
    ck_assert_int_eq(stat(file, &st1), 0);
    mcb_problem_set *P = NULL;
    ck_assert_msg(mcb_read_problems(file, &P, &err) == MCB_OK, "%s", err.msg);
    const mcb_scene_def *d = mcb_scene_find(S->items[0].scene);
    double v[MCB_SCENE_MAX_OPTS];
    ck_assert_int_eq(mcb_scene_parse(d, S->items[0].argc, S->items[0].argv, v, &err), MCB_OK);
    char args[1024];
    mcb_scene_args(d, v, args, sizeof args);
    ck_assert_str_eq(P->items[0]->source, args);
    mcb_problem_set_free(&P);

    /* second build: reused, the file untouched */
    progress_log L2 = {0};
    ck_assert_msg(mcb_set_build(S, out, on_progress, &L2, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(L2.reused, S->count);
    ck_assert_int_eq(L2.last.reused, 1);
    char *bytes2 = slurp(file, &len2);
    ck_assert_int_eq(stat(file, &st2), 0);
    ck_assert_int_eq(len1, len2);
    ck_assert_int_eq(memcmp(bytes1, bytes2, (size_t)len1), 0);
    ck_assert(st1.st_ino == st2.st_ino && st1.st_mtime == st2.st_mtime);
    free(bytes2);
    char stem[200];
    snprintf(stem, sizeof stem, "%s", S->items[0].stem);
    mcb_set_free(&S);

    /* other arguments under the same stem: regenerated, replaced in place */
    char text[300];
    snprintf(text, sizeof text, "%s stack --nx 2 --ny 2 --nz 1 --steps 2\n", stem);
    snprintf(setpath, sizeof setpath, "%s/y.set", dir);
    FILE *fp = fopen(setpath, "w");
    fputs(text, fp);
    fclose(fp);
    ck_assert_int_eq(mcb_set_read(setpath, &S, &err), MCB_OK);
    progress_log L3 = {0};
    ck_assert_msg(mcb_set_build(S, out, on_progress, &L3, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(L3.reused, 0);
    ck_assert_int_eq(L3.last.problems, 2);
    ck_assert_int_eq(L3.last.dof_max, 24);
    ck_assert_int_eq(L3.last.sub_max, 4);
    bytes2 = slurp(file, &len2);
    ck_assert(len1 != len2 || memcmp(bytes1, bytes2, (size_t)len1) != 0);
    ck_assert_int_eq(stray_files(out), 0);
    /* the summary line */
    char line[1400];
    mcb_gen_summary_line(&L3.last, line, sizeof line);
    ck_assert_msg(strstr(line, "stack: 2 problems, 24 DOF, 4 subsystems, contacts per step ") == line,
                  "%s", line);
    ck_assert_ptr_nonnull(strstr(line, "(min/median/max)"));
    ck_assert_ptr_nonnull(strstr(line, file));
    ck_assert_ptr_null(strstr(line, "reused"));
    free(bytes1);
    free(bytes2);
    mcb_set_free(&S);
    remove_dir(dir);
}
END_TEST

START_TEST(summary_contacts)
{
    mcb_problem_set S = {0};
    mcb_problem *items[4];
    int contacts[4] = {5, 1, 9, 3};
    for (int k = 0; k < 4; k++) {
        items[k] = mcb_problem_new();
        items[k]->n = 6 + k;
        items[k]->nsub = 1 + k % 2;
        items[k]->nblocks = contacts[k] + 1;
        items[k]->blocks = calloc((size_t)contacts[k] + 1, sizeof(mcb_block));
        for (int b = 0; b < contacts[k]; b++) items[k]->blocks[b].type = MCB_CONTACT;
    }
    S.count = 4;
    S.items = items;
    mcb_gen_summary s;
    mcb_gen_summarize(&S, "x", "f.h5", &s);
    ck_assert_int_eq(s.contacts_min, 1);
    ck_assert_int_eq(s.contacts_median, 3); /* lower median of 1 3 5 9 */
    ck_assert_int_eq(s.contacts_max, 9);
    ck_assert_int_eq(s.dof_min, 6);
    ck_assert_int_eq(s.dof_max, 9);
    char line[1400];
    s.wall_s = 1.234;
    s.reused = 1;
    mcb_gen_summary_line(&s, line, sizeof line);
    ck_assert_str_eq(line, "x: 4 problems, 6-9 DOF, 1-2 subsystems, contacts per step 1/3/9 "
                           "(min/median/max), 1.23 s, f.h5, reused");
    for (int k = 0; k < 4; k++) mcb_problem_free(&items[k]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sets");
    TCase *tc = tcase_create("sets");
    tcase_add_test(tc, registry_has_stack);
    tcase_add_test(tc, parse_and_args_round_trip);
    tcase_add_test(tc, parse_errors);
    tcase_add_test(tc, set_parse);
    tcase_add_test(tc, set_bad_lines);
    tcase_add_test(tc, set_unknown_scene);
    tcase_add_test(tc, set_locate);
    tcase_add_test(tc, build_quick_twice);
    tcase_add_test(tc, summary_contacts);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

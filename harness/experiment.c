/* experiment.c: the checks of an experiment spec against this build
 * (harness/experiment.h): a solver entry's solver is registered and its
 * parameters are taken as `mcbench run --param S.NAME=VAL` takes them, then
 * checked as a set by the solver itself; a scene is registered, one
 * trajectory of the engine when the spec is a closed loop (as `mcbench
 * simulate` requires), and its option words parse as `mcbench gen` parses
 * them; a set entry's set exists and checks (mcb_set_check) and has the
 * entry; a formulation is one `mcbench run --formulation` takes. */
#include "harness/experiment.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef MCB_HAVE_CUDA
#include "solvers/gpu/gpu_backend.h"
#endif

#include "problems/formulation/formulation.h"
#include "problems/scene/scenes.h"
#include "problems/sets.h"
#include "harness/whole_step.h"
#include "solvers/solver.h"

static int check_solver(const char *name, int closed_loop, const mcb_xp_param *params,
                        int nparams, int *which, char *msg, size_t size)
{
    *which = -1;
    const mcb_solver_def *def = mcb_loop_method_find(name); /* whole-step methods too */
    if (!def) {
        snprintf(msg, size, "unknown solver '%s' (see 'mcbench solvers')", name);
        return 1;
    }
    if (!closed_loop && mcb_whole_step_is(def)) {
        snprintf(msg, size, "%s is a whole-step method: it advances a scene itself and runs in a "
                 "closed loop only (protocol: closed-loop)", name);
        return 1;
    }
    void *p = mcb_calloc(1, def->params_size + sizeof(double));
    if (!p) {
        snprintf(msg, size, "out of memory");
        return 1;
    }
    def->default_params(p);
    int bad = 0;
    mcb_err perr;
    for (int k = 0; k < nparams && !bad; k++) {
        char text[64];
        snprintf(text, sizeof text, "%.17g", params[k].value);
        if (mcb_param_set(def, p, params[k].name, text, &perr)) {
            snprintf(msg, size, "%s", perr.msg);
            *which = k;
            bad = 1;
        }
    }
    if (!bad && def->check_params && def->check_params(p, &perr)) {
        snprintf(msg, size, "%s", perr.msg);
        *which = -2;
        bad = 1;
    }
    free(p);
    return bad;
}

static const char *trajectory_refusal(const mcb_scene_def *def, char *msg, size_t size)
{
    snprintf(msg, size, "scene %s is not one trajectory of the scene engine: it cannot run in "
             "a closed loop (protocol: closed-loop)", def->name);
    return msg;
}

static int check_scene(const char *name, int closed_loop, char *msg, size_t size)
{
    const mcb_scene_def *def = mcb_scene_find(name);
    if (!def) {
        char known[512];
        snprintf(msg, size, "unknown scene '%s' (registered scenes: %s)", name,
                 mcb_scene_names(known, sizeof known));
        return 1;
    }
    if (closed_loop && !def->trajectory) return trajectory_refusal(def, msg, size) != NULL;
    return 0;
}

/* Splits s in place into blank-separated words; -1 when more than cap. */
static int split_words(char *s, char **words, int cap)
{
    int n = 0;
    for (char *save = NULL, *w = strtok_r(s, " \t\r\n", &save); w;
         w = strtok_r(NULL, " \t\r\n", &save)) {
        if (n == cap) return -1;
        words[n++] = w;
    }
    return n;
}

static int check_scene_args(const char *name, const char *args, char *msg, size_t size)
{
    const mcb_scene_def *def = mcb_scene_find(name);
    if (!def) return check_scene(name, 0, msg, size);
    char buf[2048], *words[2 * MCB_SCENE_MAX_OPTS + 1];
    if (snprintf(buf, sizeof buf, "%s", args) >= (int)sizeof buf) {
        snprintf(msg, size, "longer than %zu characters", sizeof buf - 1);
        return 1;
    }
    int n = split_words(buf, words, (int)(sizeof words / sizeof words[0]));
    if (n < 0) {
        snprintf(msg, size, "too many words for scene %s's options", def->name);
        return 1;
    }
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err perr;
    if (mcb_scene_parse(def, n, words, vals, &perr)) {
        snprintf(msg, size, "%s", perr.msg);
        return 1;
    }
    return 0;
}

static int check_set_entry(const char *set, const char *entry, int closed_loop, int *which,
                           char *msg, size_t size)
{
    char path[4200];
    mcb_set *T = NULL;
    mcb_err serr;
    *which = 0;
    mcb_rc rc = mcb_set_locate(set, path, sizeof path, &serr);
    if (!rc) rc = mcb_set_read(path, &T, &serr);
    if (!rc) rc = mcb_set_check(T, &serr);
    if (rc) {
        snprintf(msg, size, "%s", serr.msg);
        mcb_set_free(&T);
        return 1;
    }
    const mcb_set_entry *e = NULL;
    for (int k = 0; k < T->count && !e; k++)
        if (!strcmp(T->items[k].stem, entry)) e = &T->items[k];
    int bad = 0;
    *which = 1;
    if (!e) {
        snprintf(msg, size, "set %s (%s) has no entry '%s'", set, path, entry);
        bad = 1;
    } else if (closed_loop) {
        const mcb_scene_def *def = mcb_scene_find(e->scene);
        if (!def) {
            snprintf(msg, size, "entry %s (%s:%d) is not a scene: it cannot run in a closed loop",
                     e->stem, path, e->line);
            bad = 1;
        } else if (!def->trajectory) {
            trajectory_refusal(def, msg, size);
            bad = 1;
        }
    }
    mcb_set_free(&T);
    return bad;
}

static int check_formulation(const char *name, char *msg, size_t size)
{
    if (mcb_formulation_from_name(name) >= 0) return 0;
    size_t at = (size_t)snprintf(msg, size, "unknown formulation '%s' (one of", name);
    for (int k = 0; k < MCB_NFORMULATIONS && at < size; k++)
        at += (size_t)snprintf(msg + at, size - at, " %s", mcb_formulation_name(k));
    if (at < size) snprintf(msg + at, size - at, ")");
    return 1;
}

static const mcb_xp_checks build_checks = {
    .solver = check_solver,
    .scene = check_scene,
    .scene_args = check_scene_args,
    .set_entry = check_set_entry,
    .formulation = check_formulation,
};

const mcb_xp_checks *mcb_xp_build_checks(void) { return &build_checks; }

mcb_rc mcb_xp_read_checked(const char *path, mcb_xp_spec **out, mcb_err *err)
{
    return mcb_xp_read(path, &build_checks, out, err);
}

int mcb_xp_entry_device(const mcb_xp_solver *sv, const char **solver, char *text, size_t size)
{
    *solver = sv->solver;
    if (size) text[0] = '\0';
    if (!sv->needs) return 1;
    const char *standin = getenv("MCB_REPRODUCE_GPU_STANDIN");
    if (standin && *standin) {
        *solver = standin;
        snprintf(text, size, "stand-in: %s (MCB_REPRODUCE_GPU_STANDIN)", standin);
        return 1;
    }
#ifdef MCB_HAVE_CUDA
    char dev[512];
    if (mcb_gpu_describe(dev, sizeof dev)) {
        snprintf(text, size, "%s", dev);
        return 1;
    }
    /* "none (REASON)" -> REASON */
    size_t n = strlen(dev);
    if (!strncmp(dev, "none (", 6) && n > 7 && dev[n - 1] == ')')
        snprintf(text, size, "no GPU: %.*s", (int)(n - 7), dev + 6);
    else snprintf(text, size, "no GPU: %s", dev);
#else
    snprintf(text, size, "no GPU: mcbench was built without CUDA (MCB_WITH_CUDA, docs/gpu.md)");
#endif
    return 0;
}

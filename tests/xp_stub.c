/* xp_stub.c: TEST-ONLY UNTIL harness/experiment.c LANDS; DELETE AT MERGE
 * (and the two blocks of CMakeLists.txt that name it). The pure lookups of
 * harness/experiment.h that reports/reproduce.c calls, with the semantics
 * the header and docs/experiments.md document, so that the evaluator can be
 * built and tested before the YAML reader exists. */
#include <stdio.h>
#include <string.h>

#include "harness/experiment.h"

int mcb_xp_runs_path(const char *item_dir, const char *group, const char *entry, char *buf,
                     size_t size)
{
    return snprintf(buf, size, "%s/runs/%s/%s.h5", item_dir, group, entry);
}

const mcb_xp_problems *mcb_xp_find_problems(const mcb_xp_spec *S, const char *id)
{
    for (int k = 0; id && k < S->nproblems; k++)
        if (strcmp(S->problems[k].id, id) == 0) return &S->problems[k];
    return NULL;
}

const mcb_xp_solver *mcb_xp_find_solver(const mcb_xp_spec *S, const char *id)
{
    for (int k = 0; id && k < S->nsolvers; k++)
        if (strcmp(S->solvers[k].id, id) == 0) return &S->solvers[k];
    return NULL;
}

/* docs/experiments.md, "Quantities"; Y_AT and Y_FINAL take the y
 * quantity's, which the caller passes instead. */
const char *mcb_xp_quantity_unit(const mcb_xp_quantity *q)
{
    switch (q->id) {
    case MCB_XQ_TIME_MS:
    case MCB_XQ_SETUP_MS: return "ms";
    case MCB_XQ_ITERATIONS:
    case MCB_XQ_INNER: return "iterations";
    case MCB_XQ_UNSOLVED:
    case MCB_XQ_INNER_FAIL: return "fraction";
    case MCB_XQ_NEGLOG: return "-log10";
    case MCB_XQ_OUTCOME: return "category";
    case MCB_XQ_FIT_R2: return "R^2";
    default: return "";
    }
}

mcb_xp_class mcb_xp_quantity_class(const mcb_xp_quantity *q)
{
    switch (q->id) {
    case MCB_XQ_TIME_MS:
    case MCB_XQ_SETUP_MS: return MCB_XV_TIME;
    case MCB_XQ_ITERATIONS:
    case MCB_XQ_INNER: return MCB_XV_COUNT;
    case MCB_XQ_UNSOLVED:
    case MCB_XQ_INNER_FAIL: return MCB_XV_RATE;
    case MCB_XQ_OUTCOME: return MCB_XV_CATEGORY;
    case MCB_XQ_FIT_R2:
    case MCB_XQ_FIT_SLOPE: return MCB_XV_FIT;
    default: return MCB_XV_ACCURACY;
    }
}

/* mcb_merge.c: `mcbench merge`: the parts of one campaign (shards, MPI
 * ranks' outputs, resumed pieces) become one results file, in the order of
 * the campaign's run list. The parts must come from one revision with the
 * same settings and run list; a run found in two parts is refused, naming
 * both. Reads and writes through the results format (mcb_results.h). */
#include "lib/mcb_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int part, k, run_index;
} merge_pick;

static int by_run_index(const void *a, const void *b)
{
    const merge_pick *x = a, *y = b;
    if (x->run_index != y->run_index) return (x->run_index > y->run_index) - (x->run_index < y->run_index);
    return (x->part > y->part) - (x->part < y->part);
}

static int same_key(const mcb_run_rec *a, const mcb_run_rec *b)
{
    return !strcmp(a->problem_set, b->problem_set) && !strcmp(a->problem, b->problem) &&
           !strcmp(a->solver, b->solver) && a->rep == b->rep;
}

/* Two records of one run_index: a duplicate (same run) or a conflict. */
static mcb_rc clash(mcb_results_src **src, const merge_pick *a, const merge_pick *b,
                    mcb_err *err)
{
    mcb_run_rec x, y;
    mcb_rc rc = mcb_results_src_run(src[a->part], a->k, &x, err);
    if (rc) return rc;
    rc = mcb_results_src_run(src[b->part], b->k, &y, err);
    if (rc) {
        mcb_rec_free(&x);
        return rc;
    }
    if (same_key(&x, &y))
        rc = mcb_fail(err, MCB_E_INPUT,
                      "run %s/%s %s rep %d is in both %s and %s: a run may be in one part "
                      "only (were shards overlapping, or a part given twice?)",
                      x.problem_set, x.problem, x.solver, x.rep, mcb_results_src_path(src[a->part]),
                      mcb_results_src_path(src[b->part]));
    else
        rc = mcb_fail(err, MCB_E_INPUT,
                      "conflicting runs: run %d of the run list is %s/%s %s rep %d in %s but "
                      "%s/%s %s rep %d in %s: the parts come from different campaigns (other "
                      "inputs or solvers)",
                      a->run_index, x.problem_set, x.problem, x.solver, x.rep,
                      mcb_results_src_path(src[a->part]), y.problem_set, y.problem, y.solver,
                      y.rep, mcb_results_src_path(src[b->part]));
    mcb_rec_free(&x);
    mcb_rec_free(&y);
    return rc;
}

static mcb_rc parts_agree(mcb_results_src **src, int n, mcb_err *err)
{
    const mcb_results_data *A = mcb_results_src_ctx(src[0]);
    for (int k = 0; k < n; k++) {
        const mcb_results_data *B = mcb_results_src_ctx(src[k]);
        const char *pa = mcb_results_src_path(src[0]), *pb = mcb_results_src_path(src[k]);
        char diff[512];
        if (!B->complete)
            return mcb_fail(err, MCB_E_INPUT,
                            "%s is an unfinished campaign (only its journal exists): finish it "
                            "with 'mcbench run ... --resume' first",
                            pb);
        if (k == 0) continue;
        if (strcmp(A->git_revision, B->git_revision))
            return mcb_fail(err, MCB_E_INPUT,
                            "%s was made by mcbench revision %s, %s by %s: parts of one campaign "
                            "come from one revision",
                            pa, A->git_revision, pb, B->git_revision);
        if (mcb_words_differ(A->settings, B->settings, diff, sizeof diff) ||
            (A->repeat != B->repeat &&
             snprintf(diff, sizeof diff, "repeat=%d here, repeat=%d there", A->repeat, B->repeat)) ||
            (A->total_runs != B->total_runs &&
             snprintf(diff, sizeof diff, "a run list of %d runs here, %d there", A->total_runs,
                      B->total_runs)))
            return mcb_fail(err, MCB_E_INPUT,
                            "%s and %s have different settings: %s (\"here\" is %s); parts of "
                            "one campaign share every setting",
                            pa, pb, diff, pa);
    }
    return MCB_OK;
}

mcb_rc mcb_merge(const char *const *parts, int nparts, const char *h5_path, const char *csv_path,
                 mcb_err *err)
{
    mcb_results_src **src = calloc((size_t)nparts, sizeof *src);
    if (!src) return mcb_fail(err, MCB_E_NOMEM, "out of memory");
    mcb_rc rc = MCB_OK;
    int n = 0;
    for (int k = 0; k < nparts && !rc; k++) {
        rc = mcb_results_src_open(parts[k], &src[k], err);
        if (!rc) n += mcb_results_src_ctx(src[k])->count;
    }
    if (!rc) rc = parts_agree(src, nparts, err);
    merge_pick *mp = mcb_calloc((size_t)n + 1, sizeof *mp);
    mcb_pick *picks = mcb_calloc((size_t)n + 1, sizeof *picks);
    if (!rc && (!mp || !picks)) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    int np = 0;
    for (int k = 0; k < nparts && !rc; k++)
        for (int i = 0; i < mcb_results_src_ctx(src[k])->count && !rc; i++) {
            int run_index;
            if ((rc = mcb_results_src_index(src[k], i, &run_index, err))) break;
            mp[np++] = (merge_pick){k, i, run_index};
        }
    if (!rc) {
        qsort(mp, (size_t)np, sizeof *mp, by_run_index);
        for (int k = 1; k < np && !rc; k++)
            if (mp[k].run_index == mp[k - 1].run_index) rc = clash(src, &mp[k - 1], &mp[k], err);
    }
    if (!rc) {
        for (int k = 0; k < np; k++) picks[k] = (mcb_pick){src[mp[k].part], mp[k].k};
        /* the parts' descriptors, each problem once (borrowed) */
        mcb_results_data ctx = *mcb_results_src_ctx(src[0]);
        int nd = 0;
        for (int k = 0; k < nparts; k++) nd += mcb_results_src_ctx(src[k])->ndesc;
        ctx.desc = nd ? mcb_calloc((size_t)nd, sizeof *ctx.desc) : NULL;
        ctx.ndesc = 0;
        ctx.desc_borrowed = 1;
        for (int k = 0; k < nparts && ctx.desc; k++) {
            const mcb_results_data *D = mcb_results_src_ctx(src[k]);
            for (int i = 0; i < D->ndesc; i++) {
                int dup = 0;
                for (int j = 0; j < ctx.ndesc && !dup; j++)
                    dup = !strcmp(ctx.desc[j].problem, D->desc[i].problem) &&
                          !strcmp(ctx.desc[j].problem_set, D->desc[i].problem_set);
                if (!dup) ctx.desc[ctx.ndesc++] = D->desc[i];
            }
        }
        if (nd && !ctx.desc) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
        if (!rc) rc = mcb_results_write(h5_path, csv_path, &ctx, picks, np, err);
        free(ctx.desc);
    }
    free(mp);
    free(picks);
    for (int k = 0; k < nparts; k++) mcb_results_src_close(&src[k]);
    free(src);
    return rc;
}

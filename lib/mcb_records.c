/* mcb_records.c: the records of the results format (mcb_results.h) as
 * values: freeing a run record and a campaign's context, and comparing two
 * campaigns' "key=value" settings. Below the journal and the results file,
 * which both build on it. */
#include "lib/mcb_results.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcb_rec_free(mcb_run_rec *r)
{
    if (!r) return;
    free(r->problem_set);
    free(r->problem);
    free(r->solver);
    free(r->reason);
    free(r->config);
    free(r->trace);
    free(r->v);
    free(r->lambda);
    free(r->steps);
    memset(r, 0, sizeof *r);
}

void mcb_results_ctx_free(mcb_results_data *D)
{
    if (!D) return;
    char **strs[] = {&D->stop_metric, &D->date,    &D->git_revision, &D->cpu_model,
                     &D->compiler,    &D->command, &D->cflags,       &D->settings,
                     &D->inputs,      &D->gpu_device};
    for (size_t k = 0; k < sizeof strs / sizeof *strs; k++) {
        free(*strs[k]);
        *strs[k] = NULL;
    }
    if (!D->desc_borrowed) {
        for (int k = 0; k < D->ndesc; k++) {
            free(D->desc[k].problem_set);
            free(D->desc[k].problem);
        }
        free(D->desc);
    }
    D->desc = NULL;
    D->ndesc = 0;
    D->desc_borrowed = 0;
}

void mcb_results_data_free(mcb_results_data **Dp)
{
    if (!Dp || !*Dp) return;
    mcb_results_data *D = *Dp;
    for (int k = 0; k < D->count; k++) mcb_rec_free(&D->runs[k]);
    free(D->runs);
    mcb_results_ctx_free(D);
    free(D);
    *Dp = NULL;
}

/* The word of `list` whose key is `key` (up to '='), or NULL; its length
 * in *len. */
static const char *find_word(const char *list, const char *key, size_t klen, size_t *len)
{
    for (const char *p = list; p && *p;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, " ");
        if (n > klen && p[klen] == '=' && !strncmp(p, key, klen)) {
            *len = n;
            return p;
        }
        p += n;
    }
    return NULL;
}

static int words_differ_one_way(const char *a, const char *b, const char *a_name,
                                const char *b_name, char *buf, size_t len)
{
    for (const char *p = a; p && *p;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, " "), klen = strcspn(p, "= ");
        if (n == 0) break;
        size_t m = 0;
        const char *q = find_word(b, p, klen, &m);
        if (!q || m != n || strncmp(p, q, n)) {
            if (q)
                snprintf(buf, len, "%.*s %s, %.*s %s", (int)n, p, a_name, (int)m, q, b_name);
            else
                snprintf(buf, len, "%.*s %s, no %.*s %s", (int)n, p, a_name, (int)klen, p,
                         b_name);
            return 1;
        }
        p += n;
    }
    return 0;
}

int mcb_words_differ(const char *here, const char *there, char *buf, size_t len)
{
    return words_differ_one_way(here, there, "here", "there", buf, len) ||
           words_differ_one_way(there, here, "there", "here", buf, len);
}

/* fuzz_seeds.c: writes the fuzzing seed corpus into a directory: problem
 * files made from the test fixtures (primal with every constraint type,
 * dual, a sphere stack) and small FCLIB global and local files written by
 * libfclib, each behind the reader-selecting byte of fuzz_readers.c. */
#include <fclib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixtures.h"
#include "lib/mcb_io.h"

/* Copies `src` into DIR/name behind the selector byte. */
static int add_seed(const char *dir, const char *name, unsigned char selector, const char *src)
{
    FILE *in = fopen(src, "rb");
    if (!in) return -1;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "wb");
    if (!out) {
        fclose(in);
        return -1;
    }
    fputc(selector, out);
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
    fclose(in);
    return fclose(out) == 0 ? 0 : -1;
}

/* A dense matrix as FCLIB triplets (i = row, p = column). */
static struct fclib_matrix *triplets(int m, int n, const double *D)
{
    struct fclib_matrix *M = calloc(1, sizeof *M);
    M->m = m;
    M->n = n;
    M->i = calloc((size_t)(m * n), sizeof(int));
    M->p = calloc((size_t)(m * n), sizeof(int));
    M->x = calloc((size_t)(m * n), sizeof(double));
    for (int r = 0; r < m; r++)
        for (int c = 0; c < n; c++)
            if (D[r * n + c] != 0.0) {
                M->i[M->nz] = r;
                M->p[M->nz] = c;
                M->x[M->nz++] = D[r * n + c];
            }
    M->nzmax = M->nz;
    return M;
}

static void free_triplets(struct fclib_matrix *M)
{
    free(M->i);
    free(M->p);
    free(M->x);
    free(M);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    char tmp[256];
    snprintf(tmp, sizeof tmp, "/tmp/mcb_seed_%ld.h5", (long)getpid());
    int bad = 0;

    mcb_problem *P[3] = {fx_mixed(), fx_point_contact_dual(FX_SLIP), fx_mixed_active()};
    bad |= mcb_write_problems(tmp, P, 3, NULL) != MCB_OK || add_seed(dir, "problem_mixed", 0, tmp);
    for (int k = 0; k < 3; k++) mcb_problem_free(&P[k]);
    mcb_problem *S[1] = {fx_small_stack()};
    bad |= mcb_write_problems(tmp, S, 1, NULL) != MCB_OK || add_seed(dir, "problem_stack", 0, tmp);
    mcb_problem_free(&S[0]);

    struct fclib_info info = {"seed", "a small problem for fuzzing", "mcbench"};
    double M[9] = {2, 0, 0, 0, 2, 0, 0, 0, 2};
    double H[18] = {1, 0, 0.2, 0, 0, 0, 0, 1, 0, 0.5, 0, -0.3, 0, 0, 0, 1, 0.7, 0};
    double f[3] = {0.5, -1, 0.25}, w[6] = {0.1, 0, 0, -0.2, 0.05, 0}, mu[2] = {0.3, 0.6};
    struct fclib_global g;
    memset(&g, 0, sizeof g);
    g.M = triplets(3, 3, M);
    g.H = triplets(3, 6, H);
    g.f = f;
    g.w = w;
    g.mu = mu;
    g.spacedim = 3;
    g.info = &info;
    unlink(tmp);
    bad |= fclib_write_global(&g, tmp) != 1 || add_seed(dir, "fclib_global", 1, tmp);
    free_triplets(g.M);
    free_triplets(g.H);

    double W[36] = {2, 0.1, 0, 0, 0, 0, 0.1, 1, 0, 0, 0, 0, 0, 0, 1.5, 0, 0, 0,
                    0, 0, 0, 3, 0.6, 0, 0, 0, 0, 0.6, 1, 0, 0, 0, 0, 0, 0, 2.5};
    double q[6] = {-1, 0.5, 0, 0.2, -0.3, 0};
    struct fclib_local l;
    memset(&l, 0, sizeof l);
    l.W = triplets(6, 6, W);
    l.q = q;
    l.mu = mu;
    l.spacedim = 3;
    l.info = &info;
    unlink(tmp);
    bad |= fclib_write_local(&l, tmp) != 1 || add_seed(dir, "fclib_local", 1, tmp);
    free_triplets(l.W);
    unlink(tmp);
    if (bad) fprintf(stderr, "fuzz_seeds: could not write every seed into %s\n", dir);
    return bad ? 1 : 0;
}

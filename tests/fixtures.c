/* fixtures.c: small hand-built problems with known answers, and the file
 * helpers the report tests share. */
#include "fixtures.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/mcb_journal.h"

#include "problems/gen_stack.h"

static mcb_csc *dense_to_csc(int m, int n, const double *D)
{
    int nz = 0;
    for (int k = 0; k < m * n; k++) nz += D[k] != 0.0;
    int *ri = malloc(sizeof(int) * (size_t)(nz + 1)), *ci = malloc(sizeof(int) * (size_t)(nz + 1));
    double *x = malloc(sizeof(double) * (size_t)(nz + 1));
    int t = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            if (D[i * n + j] != 0.0) {
                ri[t] = i;
                ci[t] = j;
                x[t++] = D[i * n + j];
            }
    mcb_csc *C = mcb_csc_from_triplets(m, n, nz, ri, ci, x);
    free(ri);
    free(ci);
    free(x);
    return C;
}

mcb_problem *fx_dense_primal(int n, int m, const double *A, const double *b, const double *J,
                             const double *e)
{
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_PRIMAL;
    P->n = n;
    P->m = m;
    P->A = dense_to_csc(n, n, A);
    P->J = dense_to_csc(m, n, J);
    P->b = malloc(sizeof(double) * (size_t)n);
    P->e = malloc(sizeof(double) * (size_t)(m + 1));
    memcpy(P->b, b, sizeof(double) * (size_t)n);
    if (m) memcpy(P->e, e, sizeof(double) * (size_t)m);
    return P;
}

mcb_problem *fx_dense_lcp(int m, const double *W, const double *q, const double *r)
{
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_DUAL;
    P->m = m;
    P->W = dense_to_csc(m, m, W);
    P->q = malloc(sizeof(double) * (size_t)(m + 1));
    if (m) memcpy(P->q, q, sizeof(double) * (size_t)m);
    if (r) {
        P->r = malloc(sizeof(double) * (size_t)(m + 1));
        if (m) memcpy(P->r, r, sizeof(double) * (size_t)m);
    }
    P->nblocks = m;
    P->blocks = calloc((size_t)m + 1, sizeof(mcb_block));
    for (int i = 0; i < m; i++) P->blocks[i] = (mcb_block){MCB_UNILATERAL, i, 1, 0, 0, 0};
    free(P->name);
    P->name = strdup(r ? "compliant_lcp" : "lcp");
    return P;
}

static const double vfree[3][3] = {{0, 0, 1}, {0.1, 0, -1}, {2, 0, -1}};

mcb_problem *fx_point_contact(int state)
{
    double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double J[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0}; /* rows z, x, y */
    double e[3] = {0, 0, 0};
    mcb_problem *P = fx_dense_primal(3, 3, A, vfree[state], J, e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 0.5, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    free(P->name);
    P->name = strdup(state == FX_OPEN ? "open" : state == FX_STICK ? "stick" : "slip");
    return P;
}

void fx_point_solution(int state, double v[3], double lambda[3])
{
    static const double V[3][3] = {{0, 0, 1}, {0, 0, 0}, {1.5, 0, 0}};
    static const double L[3][3] = {{0, 0, 0}, {1, -0.1, 0}, {1, -0.5, 0}};
    memcpy(v, V[state], sizeof V[0]);
    memcpy(lambda, L[state], sizeof L[0]);
}

mcb_problem *fx_point_contact_dual(int state)
{
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_DUAL;
    P->m = 3;
    double W[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    P->W = dense_to_csc(3, 3, W);
    P->q = malloc(3 * sizeof(double));
    P->q[0] = vfree[state][2];
    P->q[1] = vfree[state][0];
    P->q[2] = vfree[state][1];
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 0.5, 0, 0};
    free(P->name);
    P->name = strdup("dual");
    return P;
}

static const double compliance[3] = {1.0, 0.25, 0.25};

static mcb_problem *with_compliance(mcb_problem *P, const char *name)
{
    P->r = malloc(sizeof compliance);
    memcpy(P->r, compliance, sizeof compliance);
    free(P->name);
    P->name = strdup(name);
    return P;
}

/* The ellipse of semi-axes (1, 0.25) (lambda_n = 1): the projection of
 * p = -(1.2, 3.4) is x = (-0.6, -0.2) (0.36 + 16 * 0.04 = 1), with KKT
 * multiplier t = 1: x_k = p_k a_k^2 / (a_k^2 + 1), i.e. -1.2 / 2 and
 * -3.4 * 0.0625 / 1.0625. The sliding velocity u_t = (1.2, 3.4) + x =
 * (0.6, 3.2) is the ellipse's outward normal (x_1 / 1, x_2 / 0.0625) times
 * -1: maximal dissipation; u_n = -1 + 1 = 0. */
mcb_problem *fx_aniso_slide(void)
{
    double A[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, b[3] = {-1, 1.2, 3.4}, e[3] = {0, 0, 0};
    mcb_problem *P = fx_dense_primal(3, 3, A, b, A, e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 1.0, 0, 0};
    P->mu2 = malloc(sizeof(double));
    P->mu2[0] = 0.25;
    mcb_problem_infer_subsystems(P, NULL);
    free(P->name);
    P->name = strdup("aniso_slide");
    return P;
}

mcb_problem *fx_aniso_slide_dual(void)
{
    mcb_problem *P = fx_point_contact_dual(FX_SLIP);
    P->q[0] = -1, P->q[1] = 1.2, P->q[2] = 3.4;
    P->blocks[0].mu = 1.0;
    P->mu2 = malloc(sizeof(double));
    P->mu2[0] = 0.25;
    free(P->name);
    P->name = strdup("aniso_slide_dual");
    return P;
}

void fx_aniso_slide_solution(double v[3], double lambda[3])
{
    v[0] = 0, v[1] = 0.6, v[2] = 3.2;
    lambda[0] = 1, lambda[1] = -0.6, lambda[2] = -0.2;
}

mcb_problem *fx_compliant(int state)
{
    return with_compliance(fx_point_contact(state), state == FX_OPEN    ? "compliant_open"
                                                    : state == FX_STICK ? "compliant_stick"
                                                                        : "compliant_slip");
}

void fx_compliant_solution(int state, double v[3], double lambda[3])
{
    static const double V[3][3] = {{0, 0, 1}, {0.02, 0, -0.5}, {1.75, 0, -0.5}};
    static const double L[3][3] = {{0, 0, 0}, {0.5, -0.08, 0}, {0.5, -0.25, 0}};
    memcpy(v, V[state], sizeof V[0]);
    memcpy(lambda, L[state], sizeof L[0]);
}

mcb_problem *fx_compliant_dual(int state)
{
    return with_compliance(fx_point_contact_dual(state), "compliant_dual");
}

mcb_problem *fx_mixed(void)
{
    double A[36] = {0};
    double diag[6] = {2, 1, 3, 1.5, 1, 2};
    for (int k = 0; k < 6; k++) A[7 * k] = diag[k];
    double b[6] = {0.3, -1.0, 0.5, -0.7, 0.4, -0.2};
    double J[36] = {1, -1, 0,   0,   0,   0,   /* bilateral */
                    0, 1,  0.5, 0,   0,   0,   /* unilateral */
                    0, 0,  1,   -1,  0,   0,   /* soft */
                    0, 0,  0,   1,   0,   0.3, /* contact n */
                    0, 0,  0,   0.2, 1,   0,   /* contact t1 */
                    0, 0,  0,   0,   0,   1};  /* contact t2 */
    double e[6] = {0.1, 0.2, 0.05, 0.0, 0.0, 0.0};
    mcb_problem *P = fx_dense_primal(6, 6, A, b, J, e);
    P->nblocks = 4;
    P->blocks = calloc(4, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_BILATERAL, 0, 1, 0, 0, 0};
    P->blocks[1] = (mcb_block){MCB_UNILATERAL, 1, 1, 0, 0, 0};
    P->blocks[2] = (mcb_block){MCB_SOFT, 2, 1, 0, 10.0, 0.5};
    P->blocks[3] = (mcb_block){MCB_CONTACT, 3, 3, 0.4, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    free(P->name);
    P->name = strdup("mixed");
    return P;
}

mcb_problem *fx_mixed_active(void)
{
    mcb_problem *P = fx_mixed();
    P->e[1] = 0.0;
    free(P->name);
    P->name = strdup("mixed_active");
    return P;
}

mcb_problem *fx_one_row(int type, double a, double b, double e, double k, double alpha)
{
    double J = 1.0;
    mcb_problem *P = fx_dense_primal(1, 1, &a, &b, &J, &e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){type, 0, 1, 0, k, alpha};
    mcb_problem_infer_subsystems(P, NULL);
    free(P->name);
    P->name = strdup(mcb_ctype_name(type));
    return P;
}

mcb_problem *fx_small_stack(void)
{
    mcb_stack_opts o;
    mcb_stack_defaults(&o);
    o.nx = o.ny = o.nz = 2;
    o.steps = 2;
    mcb_problem_set *S = NULL;
    if (mcb_gen_stack(&o, &S, NULL)) return NULL;
    mcb_problem *P = S->items[1];
    S->items[1] = NULL;
    mcb_problem_set_free(&S);
    return P;
}

mcb_problem *fx_gfc3d_example1(void)
{
    /* Siconos' numerics/src/FrictionContact/test/data/GFC3D_Example1.dat:
     * M v + q = H r, u = H^T v + b with H = I, q = 0; in our form A = M,
     * b = -q = 0, J = H^T = I, e = b_siconos, one contact with mu 0.5 */
    double A[9] = {106.5, 81, 126.5, 81, 91.5, 110, 126.5, 110, 163.5};
    double b[3] = {0, 0, 0};
    double J[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    double e[3] = {-2.5, -10, -5.5};
    mcb_problem *P = fx_dense_primal(3, 3, A, b, J, e);
    P->nblocks = 1;
    P->blocks = calloc(1, sizeof(mcb_block));
    P->blocks[0] = (mcb_block){MCB_CONTACT, 0, 3, 0.5, 0, 0};
    mcb_problem_infer_subsystems(P, NULL);
    free(P->name);
    P->name = strdup("gfc3d_example1");
    return P;
}

char *fx_slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *s = NULL;
    long n = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0 && (s = malloc((size_t)n + 1)) &&
        fread(s, 1, (size_t)n, f) == (size_t)n) {
        s[n] = '\0';
    } else {
        free(s);
        s = NULL;
    }
    fclose(f);
    return s;
}

mcb_rc fx_write_results(const char *h5, const char *csv, const mcb_results_data *ctx,
                        const mcb_run_rec *runs, int n, mcb_err *err)
{
    char jr[4200];
    mcb_journal_path(h5, jr, sizeof jr);
    mcb_journal *J = NULL;
    mcb_rc rc = mcb_journal_create(jr, ctx, &J, err);
    for (int k = 0; k < n && !rc; k++) rc = mcb_journal_append_run(J, &runs[k], err);
    mcb_journal_close(&J);
    mcb_results_src *S = NULL;
    mcb_pick *picks = calloc((size_t)n + 1, sizeof *picks);
    if (!rc && !picks) rc = mcb_fail(err, MCB_E_NOMEM, "out of memory");
    if (!rc) rc = mcb_results_src_open(jr, &S, err);
    for (int k = 0; k < n && !rc; k++) picks[k] = (mcb_pick){S, k};
    if (!rc) rc = mcb_results_write(h5, csv, ctx, picks, n, err);
    mcb_results_src_close(&S);
    free(picks);
    unlink(jr);
    return rc;
}

/* test_lcp_direct.c: the direct LCP solvers of issue 13, `lemke`
 * (solvers/lemke.c) and `ip-lcp` (solvers/ip_lcp.c), on LCPs and MLCPs
 * built here as dual problems u = W z + q with known answers:
 *   - many random LCPs (fixed seed) with P-matrices (unsymmetric, strictly
 *     diagonally dominant: not all positive semidefinite) and positive
 *     definite unsymmetric ones: lemke solves each exactly (complementarity
 *     to 1e-12, own check and the harness's natmap), ip-lcp the monotone
 *     ones to 1e-10;
 *   - a Stewart-Trinkle LCP (RPIsim eq. (7)) of a point mass on a plane
 *     with 4 friction directions, built by hand (unsymmetric, zero diagonal
 *     entries): the known stick and slip solutions;
 *   - the same step as an MLCP (RPIsim eq. (6): the Newton-Euler rows as
 *     bilateral rows, v free);
 *   - degenerate LCPs (ties in the ratio tests, a singular PSD W with a
 *     continuum of solutions, q = 0 rows);
 *   - infeasible LCPs: lemke ends by ray termination, ip-lcp stops
 *     (diverged or stalled) with a reason;
 *   - the pivot limit, max_dense, bad parameters, contact problems skipped,
 *     one pivot per callback, no allocation in lemke's loop.
 * `test_lcp_direct bench DIR` writes random LCP files of growing size and
 * `test_lcp_direct time [MAX_M]` times both solvers on random LCPs, for the
 * measurements of docs/solver-lcp-direct.md (not tests). */
#include <check.h>

#include "alloc_count.h"
#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_run.h"
#include "fixtures.h"
#include "lib/mcb_delassus.h"
#include "lib/mcb_io.h"
#include "lib/mcb_rng.h"
#include "harness/runner.h"

/* ---- building LCPs ---- */

static mcb_rng rng; /* lib/mcb_rng.h: fixed seeds, the same LCPs every run */
static void seed(unsigned long long x) { mcb_rng_seed(&rng, x); }
static double urand(void) { return mcb_rng_uniform(&rng); } /* [0, 1) */

/* A dual problem from a dense row-major W (zeros dropped) and q; row i
 * bilateral when bil && bil[i], unilateral otherwise (one block per row). */
static mcb_problem *lcp_dense(int m, const double *W, const double *q, const int *bil)
{
    mcb_problem *P = mcb_problem_new();
    P->form = MCB_DUAL;
    P->m = m;
    int nz = 0;
    for (int k = 0; k < m * m; k++) nz += W[k] != 0.0;
    int *ri = malloc(((size_t)nz + 1) * sizeof(int)), *ci = malloc(((size_t)nz + 1) * sizeof(int));
    double *x = malloc(((size_t)nz + 1) * sizeof(double));
    nz = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < m; j++)
            if (W[i * m + j] != 0.0) {
                ri[nz] = i;
                ci[nz] = j;
                x[nz++] = W[i * m + j];
            }
    P->W = mcb_csc_from_triplets(m, m, nz, ri, ci, x);
    free(ri);
    free(ci);
    free(x);
    P->q = malloc(((size_t)m + 1) * sizeof(double));
    memcpy(P->q, q, (size_t)m * sizeof(double));
    P->nblocks = m;
    P->blocks = calloc((size_t)m + 1, sizeof(mcb_block));
    for (int i = 0; i < m; i++)
        P->blocks[i] = (mcb_block){bil && bil[i] ? MCB_BILATERAL : MCB_UNILATERAL, i, 1, 0, 0, 0};
    return P;
}

enum { RAND_PMATRIX, RAND_PD, RAND_SPD };

/* Random W (m x m, row-major, density about `dens` off the diagonal) and q
 * in [-1, 1]:
 *   RAND_PMATRIX: strictly row diagonally dominant with a positive diagonal
 *                 (a P-matrix, unsymmetric, in general not PSD);
 *   RAND_PD:      G + S + I/2 with G = B B^T / (dens m) (PSD), S skew-symmetric
 *                 (positive definite, unsymmetric: monotone);
 *   RAND_SPD:     B B^T / (dens m) + 0.1 I (symmetric positive definite). */
static void random_lcp(int kind, int m, double dens, double *W, double *q)
{
    memset(W, 0, (size_t)m * m * sizeof(double));
    for (int i = 0; i < m; i++) q[i] = 2.0 * urand() - 1.0;
    if (kind == RAND_PMATRIX) {
        for (int i = 0; i < m; i++) {
            double s = 0.0;
            for (int j = 0; j < m; j++)
                if (j != i && urand() < dens) {
                    W[i * m + j] = 2.0 * urand() - 1.0;
                    s += fabs(W[i * m + j]);
                }
            W[i * m + i] = s + 0.1 + urand();
        }
        return;
    }
    double *B = calloc((size_t)m * m + 1, sizeof(double));
    for (int k = 0; k < m * m; k++) B[k] = urand() < dens ? 2.0 * urand() - 1.0 : 0.0;
    /* W = B B^T / (dens m): the sum over B's columns of their outer products */
    int *nzr = malloc(((size_t)m + 1) * sizeof(int));
    double scale = dens * m > 1.0 ? dens * m : 1.0;
    for (int k = 0; k < m; k++) {
        int nr = 0;
        for (int i = 0; i < m; i++)
            if (B[i * m + k] != 0.0) nzr[nr++] = i;
        for (int a = 0; a < nr; a++)
            for (int b = 0; b < nr; b++)
                W[nzr[a] * m + nzr[b]] += B[nzr[a] * m + k] * B[nzr[b] * m + k] / scale;
    }
    free(nzr);
    if (kind == RAND_PD) {
        for (int i = 0; i < m; i++) {
            W[i * m + i] += 0.5;
            for (int j = i + 1; j < m; j++)
                if (urand() < dens) {
                    double a = 2.0 * urand() - 1.0;
                    W[i * m + j] += a;
                    W[j * m + i] -= a;
                }
        }
    } else {
        for (int i = 0; i < m; i++) W[i * m + i] += 0.1;
    }
    free(B);
}

/* Complementarity of z against u = W z + q, absolute:
 * max_i max(-z_i, -u_i, |min(z_i, u_i)|) over unilateral rows, |u_i| over
 * bilateral ones. */
static double lcp_error(const mcb_problem *P, const double *z)
{
    int m = P->m;
    double *u = malloc(((size_t)m + 1) * sizeof(double));
    memcpy(u, P->q, (size_t)m * sizeof(double));
    mcb_csc_gaxpy(P->W, z, u);
    double e = 0.0;
    for (int b = 0; b < P->nblocks; b++)
        for (int i = P->blocks[b].row; i < P->blocks[b].row + P->blocks[b].nrows; i++) {
            double t = P->blocks[b].type == MCB_BILATERAL
                           ? fabs(u[i])
                           : fmax(fabs(fmin(z[i], u[i])), fmax(-z[i], -u[i]));
            if (t > e) e = t;
        }
    free(u);
    return e;
}

/* ---- running ---- */

static mcb_run run_solver(const char *name, const mcb_problem *P, double tol, const void *prm)
{
    mcb_run run;
    check_run(P, name, prm, tol, 100000, 1, MCB_LAW_NCP, &run);
    return run;
}

/* ---- random LCPs ---- */

START_TEST(lemke_random_p_matrices_exact)
{
    seed(20260101);
    int sizes[] = {1, 2, 3, 5, 8, 13, 21, 34, 55, 89};
    int nsolved = 0, maxpiv = 0;
    for (int rep = 0; rep < 30; rep++)
        for (int k = 0; k < 10; k++)
            for (int kind = RAND_PMATRIX; kind <= RAND_SPD; kind++) {
                int m = sizes[k];
                double *W = malloc((size_t)m * m * sizeof(double)), *q = malloc(m * sizeof(double));
                random_lcp(kind, m, rep % 2 ? 0.3 : 1.0, W, q);
                mcb_problem *P = lcp_dense(m, W, q, NULL);
                mcb_run run = run_solver("lemke", P, 1e-14, NULL);
                double e = lcp_error(P, run.lambda);
                ck_assert_msg(run.info.status == MCB_ST_SOLVED && e <= 1e-12,
                              "lemke, kind %d, m %d, rep %d: %s (%s), complementarity %g, "
                              "natmap %g",
                              kind, m, rep, mcb_status_name(run.info.status), run.info.reason, e,
                              run.final.val[MCB_M_NATMAP]);
                ck_assert_double_le(run.final.val[MCB_M_NATMAP], 1e-14);
                if (run.info.iterations > maxpiv) maxpiv = run.info.iterations;
                ck_assert_int_le(run.info.iterations, 2 * m + 1);
                nsolved++;
                mcb_run_clear(&run);
                mcb_problem_free(&P);
                free(W);
                free(q);
            }
    ck_assert_int_eq(nsolved, 900);
}
END_TEST

START_TEST(ip_random_monotone)
{
    seed(777);
    int sizes[] = {1, 2, 5, 13, 34, 89, 144};
    for (int rep = 0; rep < 6; rep++)
        for (int k = 0; k < 7; k++)
            for (int kind = RAND_PD; kind <= RAND_SPD; kind++) {
                int m = sizes[k];
                double *W = malloc((size_t)m * m * sizeof(double)), *q = malloc(m * sizeof(double));
                random_lcp(kind, m, rep % 2 ? 0.2 : 1.0, W, q);
                mcb_problem *P = lcp_dense(m, W, q, NULL);
                mcb_run run = run_solver("ip-lcp", P, 1e-10, NULL);
                ck_assert_msg(run.info.status == MCB_ST_SOLVED,
                              "ip-lcp, kind %d, m %d, rep %d: %s (%s), natmap %g", kind, m, rep,
                              mcb_status_name(run.info.status), run.info.reason,
                              run.final.val[MCB_M_NATMAP]);
                ck_assert_int_le(run.info.iterations, 40);
                /* the same solution as lemke (unique: W positive definite) */
                mcb_run ref = run_solver("lemke", P, 1e-14, NULL);
                for (int i = 0; i < m; i++)
                    ck_assert_double_eq_tol(run.lambda[i], ref.lambda[i],
                                            1e-7 * (1.0 + fabs(ref.lambda[i])));
                mcb_run_clear(&ref);
                /* W symmetric: CHOLMOD (linsolve 2) agrees with the default
                 * LU; unsymmetric: CHOLMOD is refused at setup */
                const mcb_solver_def *ip = mcb_solver_find("ip-lcp");
                char prm[256];
                ip->default_params(prm);
                mcb_param_set(ip, prm, "linsolve", "2", NULL);
                ref = run_solver("ip-lcp", P, 1e-10, prm);
                int symmetric = mcb_csc_asymmetry(P->W) == 0.0;
                ck_assert_int_eq(ref.info.status,
                                 symmetric ? MCB_ST_SOLVED : MCB_ST_SETUP_FAILED);
                if (kind == RAND_SPD)
                    for (int i = 0; i < m; i++)
                        ck_assert_double_eq_tol(run.lambda[i], ref.lambda[i],
                                                1e-7 * (1.0 + fabs(ref.lambda[i])));
                mcb_run_clear(&ref);
                mcb_run_clear(&run);
                mcb_problem_free(&P);
                free(W);
                free(q);
            }
}
END_TEST

/* Per-row compliance r: u = W z + q + r∘z is the LCP of W + diag(r); both
 * solvers honour it (the harness judges with r) and agree with the
 * problem that carries W + diag(r) explicitly. */
START_TEST(compliance_honoured)
{
    seed(606);
    int m = 30;
    double *W = malloc((size_t)m * m * sizeof(double)), *q = malloc((size_t)m * sizeof(double));
    random_lcp(RAND_PD, m, 0.3, W, q);
    mcb_problem *P = lcp_dense(m, W, q, NULL);
    P->r = malloc((size_t)m * sizeof(double));
    for (int i = 0; i < m; i++) {
        P->r[i] = i % 3 ? urand() : 0.0;
        W[i * m + i] += P->r[i];
    }
    mcb_problem *Pw = lcp_dense(m, W, q, NULL);
    const char *solvers[2] = {"lemke", "ip-lcp"};
    for (int s = 0; s < 2; s++) {
        mcb_run a = run_solver(solvers[s], P, 1e-11, NULL);
        mcb_run b = run_solver(solvers[s], Pw, 1e-11, NULL);
        ck_assert_msg(a.info.status == MCB_ST_SOLVED, "%s: %s (%s)", solvers[s],
                      mcb_status_name(a.info.status), a.info.reason);
        ck_assert_int_eq(b.info.status, MCB_ST_SOLVED);
        for (int i = 0; i < m; i++) ck_assert_double_eq_tol(a.lambda[i], b.lambda[i], 1e-8);
        if (s == 0) ck_assert_double_le(lcp_error(Pw, a.lambda), 1e-12);
        mcb_run_clear(&a);
        mcb_run_clear(&b);
    }
    mcb_problem_free(&P);
    mcb_problem_free(&Pw);
    free(W);
    free(q);
}
END_TEST

/* ---- Stewart-Trinkle, by hand ---- */

/* A point mass (M = I, h = 1) on the plane z = 0, one contact, mu = 0.5,
 * n_d = 4 directions d = +x, +y, -x, -y; unknowns (p_n, p_f1..4, s):
 *   W = [ Gn'Gn  Gn'Gf  0 ;  Gf'Gn  Gf'Gf  E ;  mu  -E'  0 ],
 *   q = [ Gn' vf ; Gf' vf ; 0 ]  (RPIsim eq. (7)). */
static const double st_dirs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};

static mcb_problem *stewart_trinkle(const double vf[3])
{
    double W[36] = {0}, q[6] = {0};
    W[0] = 1.0; /* Gn'Gn, Gn = e_z; Gn'Gf = 0 (tangent directions) */
    for (int a = 0; a < 4; a++) {
        for (int b = 0; b < 4; b++)
            W[(1 + a) * 6 + 1 + b] = st_dirs[a][0] * st_dirs[b][0] + st_dirs[a][1] * st_dirs[b][1];
        W[(1 + a) * 6 + 5] = 1.0;  /* E */
        W[5 * 6 + 1 + a] = -1.0;   /* -E' */
        q[1 + a] = st_dirs[a][0] * vf[0] + st_dirs[a][1] * vf[1];
    }
    W[5 * 6 + 0] = 0.5; /* U = mu */
    q[0] = vf[2];
    return lcp_dense(6, W, q, NULL);
}

/* v = vf + Gn p_n + Gf p_f */
static void st_velocity(const double vf[3], const double *z, double v[3])
{
    v[0] = vf[0];
    v[1] = vf[1];
    v[2] = vf[2] + z[0];
    for (int a = 0; a < 4; a++) {
        v[0] += st_dirs[a][0] * z[1 + a];
        v[1] += st_dirs[a][1] * z[1 + a];
    }
}

START_TEST(stewart_trinkle_stick_and_slip)
{
    const char *solvers[2] = {"lemke", "ip-lcp"};
    double vfs[2][3] = {{0.1, 0.0, -1.0}, {2.0, 0.0, -1.0}}; /* stick, slip (fixtures.h) */
    double vexp[2][3] = {{0, 0, 0}, {1.5, 0, 0}}, sexp[2] = {0.0, 1.5};
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 2; c++) {
            mcb_problem *P = stewart_trinkle(vfs[c]);
            ck_assert_double_gt(mcb_csc_asymmetry(P->W), 0.1);
            mcb_run run = run_solver(solvers[s], P, 1e-11, NULL);
            ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s, case %d: %s (%s)", solvers[s], c,
                          mcb_status_name(run.info.status), run.info.reason);
            double v[3];
            st_velocity(vfs[c], run.lambda, v);
            for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(v[k], vexp[c][k], 1e-8);
            ck_assert_double_eq_tol(run.lambda[0], 1.0, 1e-8);
            ck_assert_double_eq_tol(run.lambda[5], sexp[c], 1e-8);
            if (s == 0) ck_assert_double_le(lcp_error(P, run.lambda), 1e-12);
            mcb_run_clear(&run);
            mcb_problem_free(&P);
        }
}
END_TEST

/* The same step as an MLCP (RPIsim eq. (6) without the PEG rows):
 * unknowns (v (3, free), p_n, p_f1..4, s),
 *   0   = M v - Gn p_n - Gf p_f - M vf                 (bilateral)
 *   rho = Gn' v,  rho_f = Gf' v + E s,  sigma = mu p_n - E' p_f  (unilateral). */
static mcb_problem *st_mlcp(const double vf[3])
{
    enum { N = 9 };
    double W[N * N] = {0}, q[N] = {0};
    int bil[N] = {1, 1, 1, 0, 0, 0, 0, 0, 0};
    for (int k = 0; k < 3; k++) {
        W[k * N + k] = 1.0;
        q[k] = -vf[k];
    }
    W[2 * N + 3] = -1.0;              /* -Gn */
    W[3 * N + 2] = 1.0;               /* Gn' */
    for (int a = 0; a < 4; a++) {
        for (int k = 0; k < 2; k++) {
            W[k * N + 4 + a] = -st_dirs[a][k]; /* -Gf */
            W[(4 + a) * N + k] = st_dirs[a][k]; /* Gf' */
        }
        W[(4 + a) * N + 8] = 1.0; /* E */
        W[8 * N + 4 + a] = -1.0;  /* -E' */
    }
    W[8 * N + 3] = 0.5;
    return lcp_dense(N, W, q, bil);
}

START_TEST(stewart_trinkle_mlcp)
{
    const char *solvers[2] = {"lemke", "ip-lcp"};
    double vfs[2][3] = {{0.1, 0.0, -1.0}, {2.0, 0.0, -1.0}};
    double vexp[2][3] = {{0, 0, 0}, {1.5, 0, 0}};
    for (int s = 0; s < 2; s++)
        for (int c = 0; c < 2; c++) {
            mcb_problem *P = st_mlcp(vfs[c]);
            mcb_run run = run_solver(solvers[s], P, 1e-11, NULL);
            ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s, case %d: %s (%s)", solvers[s], c,
                          mcb_status_name(run.info.status), run.info.reason);
            for (int k = 0; k < 3; k++) ck_assert_double_eq_tol(run.lambda[k], vexp[c][k], 1e-8);
            ck_assert_double_eq_tol(run.lambda[3], 1.0, 1e-8);
            if (s == 0) ck_assert_double_le(lcp_error(P, run.lambda), 1e-12);
            mcb_run_clear(&run);
            mcb_problem_free(&P);
        }
}
END_TEST

/* A random Stewart-Trinkle LCP (RPIsim eq. (7)): n DOFs with M = I, nc
 * contacts with a random unit normal Jacobian column and nd friction
 * directions in the plane of two random unit tangent vectors, mu in
 * [0.1, 1], free velocity v random; unknowns (p_n (nc), p_f (nc nd), s (nc)).
 * With more contacts than DOFs the Delassus blocks are singular. */
static mcb_problem *random_st(int n, int nc, int nd)
{
    int nf = nc * nd, m = 2 * nc + nf;
    double *G = calloc((size_t)n * (nc + nf) + 1, sizeof(double)); /* [Gn Gf], column-major */
    double *v = malloc((size_t)n * sizeof(double)), *t = malloc(2 * (size_t)n * sizeof(double));
    for (int k = 0; k < n; k++) v[k] = 2.0 * urand() - 1.0;
    for (int c = 0; c < nc; c++) {
        double *gn = G + (size_t)c * n;
        for (int k = 0; k < n; k++) gn[k] = 2.0 * urand() - 1.0;
        double nn = mcb_norm2(n, gn);
        for (int k = 0; k < n; k++) gn[k] /= nn;
        for (int a = 0; a < 2; a++) { /* Gram-Schmidt against gn and t_0 */
            double *ta = t + (size_t)a * n;
            for (int k = 0; k < n; k++) ta[k] = 2.0 * urand() - 1.0;
            for (int b = -1; b < a; b++) {
                const double *o = b < 0 ? gn : t;
                double dp = mcb_dot(n, ta, o);
                for (int k = 0; k < n; k++) ta[k] -= dp * o[k];
            }
            double tn = mcb_norm2(n, ta);
            for (int k = 0; k < n; k++) ta[k] /= tn;
        }
        for (int d = 0; d < nd; d++) {
            double *gf = G + (size_t)(nc + c * nd + d) * n, th = 2.0 * 3.14159265358979323846 * d / nd;
            for (int k = 0; k < n; k++) gf[k] = cos(th) * t[k] + sin(th) * t[n + k];
        }
    }
    double *W = calloc((size_t)m * m + 1, sizeof(double)), *q = calloc((size_t)m + 1, sizeof(double));
    int ng = nc + nf; /* rows/columns 0..ng-1: G' G; then s */
    for (int i = 0; i < ng; i++) {
        for (int j = 0; j < ng; j++) W[i * m + j] = mcb_dot(n, G + (size_t)i * n, G + (size_t)j * n);
        q[i] = mcb_dot(n, G + (size_t)i * n, v);
    }
    for (int c = 0; c < nc; c++) {
        int srow = ng + c;
        W[srow * m + c] = 0.1 + 0.9 * urand(); /* mu */
        for (int d = 0; d < nd; d++) {
            int f = nc + c * nd + d;
            W[f * m + srow] = 1.0;  /* E */
            W[srow * m + f] = -1.0; /* -E' */
        }
    }
    mcb_problem *P = lcp_dense(m, W, q, NULL);
    free(G);
    free(v);
    free(t);
    free(W);
    free(q);
    return P;
}

static mcb_problem *st_from_contacts(const mcb_problem *P, int nd);

/* The Stewart-Trinkle LCP of contact fixtures (built from their Delassus
 * operator by st_from_contacts, below): the sliding point contact's
 * friction impulse is the exact (-0.5, 0) for n_d = 4 and 8 (both polygons
 * hold the direction -x); the 2x2x2 stack's and Siconos' GFC3D example's
 * LCPs are solved by both, lemke to complementarity 1e-12. */
START_TEST(stewart_trinkle_of_contact_fixtures)
{
    const char *solvers[2] = {"lemke", "ip-lcp"};
    for (int nd = 4; nd <= 8; nd += 4) {
        mcb_problem *P = fx_point_contact_dual(FX_SLIP);
        mcb_problem *Q = st_from_contacts(P, nd);
        ck_assert_ptr_nonnull(Q);
        for (int s = 0; s < 2; s++) {
            mcb_run run = run_solver(solvers[s], Q, 1e-12, NULL);
            ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s, n_d %d: %s (%s)", solvers[s], nd,
                          mcb_status_name(run.info.status), run.info.reason);
            double lt[2] = {0, 0};
            for (int k = 0; k < nd; k++) {
                double th = 2.0 * 3.14159265358979323846 * k / nd;
                lt[0] += cos(th) * run.lambda[1 + k];
                lt[1] += sin(th) * run.lambda[1 + k];
            }
            ck_assert_double_eq_tol(run.lambda[0], 1.0, 1e-9);
            ck_assert_double_eq_tol(lt[0], -0.5, 1e-9);
            ck_assert_double_eq_tol(lt[1], 0.0, 1e-9);
            mcb_run_clear(&run);
        }
        mcb_problem_free(&Q);
        mcb_problem_free(&P);
        mcb_problem *(*makes[2])(void) = {fx_small_stack, fx_gfc3d_example1};
        for (int f = 0; f < 2; f++) {
            P = makes[f]();
            Q = st_from_contacts(P, nd);
            ck_assert_ptr_nonnull(Q);
            for (int s = 0; s < 2; s++) {
                mcb_run run = run_solver(solvers[s], Q, 1e-10, NULL);
                ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s on %s, n_d %d: %s (%s)",
                              solvers[s], P->name, nd, mcb_status_name(run.info.status),
                              run.info.reason);
                if (s == 0) ck_assert_double_le(lcp_error(Q, run.lambda), 1e-12);
                mcb_run_clear(&run);
            }
            mcb_problem_free(&Q);
            mcb_problem_free(&P);
        }
    }
}
END_TEST

START_TEST(lemke_random_stewart_trinkle)
{
    seed(31337);
    int cases[][3] = {{6, 1, 4}, {6, 3, 4}, {12, 4, 8}, {12, 10, 4}, {18, 30, 4}, {30, 20, 8}};
    for (int rep = 0; rep < 10; rep++)
        for (int k = 0; k < 6; k++) {
            mcb_problem *P = random_st(cases[k][0], cases[k][1], cases[k][2]);
            mcb_run run = run_solver("lemke", P, 1e-12, NULL);
            double e = lcp_error(P, run.lambda);
            ck_assert_msg(run.info.status == MCB_ST_SOLVED && e <= 1e-12,
                          "lemke on Stewart-Trinkle n %d nc %d nd %d rep %d: %s (%s), "
                          "complementarity %g",
                          cases[k][0], cases[k][1], cases[k][2], rep,
                          mcb_status_name(run.info.status), run.info.reason, e);
            mcb_run_clear(&run);
            mcb_problem_free(&P);
        }
}
END_TEST

/* Only bilateral rows: a linear system W z = -q (unsymmetric here); and a
 * singular W_FF, which lemke refuses with the reason. */
START_TEST(bilateral_only)
{
    double W[4] = {2, 1, -1, 3}, q[2] = {1, -1}; /* z = -W^-1 q = (-4/7, 1/7) */
    int bil[2] = {1, 1};
    mcb_problem *P = lcp_dense(2, W, q, bil);
    const char *solvers[2] = {"lemke", "ip-lcp"};
    for (int s = 0; s < 2; s++) {
        mcb_run run = run_solver(solvers[s], P, 1e-13, NULL);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED, "%s: %s (%s)", solvers[s],
                      mcb_status_name(run.info.status), run.info.reason);
        ck_assert_double_eq_tol(run.lambda[0], -4.0 / 7.0, 1e-12);
        ck_assert_double_eq_tol(run.lambda[1], 1.0 / 7.0, 1e-12);
        mcb_run_clear(&run);
    }
    mcb_problem_free(&P);
    double Ws[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1}, qs[3] = {1, -1, -1};
    int bils[3] = {1, 1, 0};
    P = lcp_dense(3, Ws, qs, bils);
    mcb_run run = run_solver("lemke", P, 1e-12, NULL);
    ck_assert_int_eq(run.info.status, MCB_ST_STALLED);
    ck_assert_msg(strstr(run.info.reason, "W_FF is singular"), "%s", run.info.reason);
    mcb_run_clear(&run);
    mcb_problem_free(&P);
}
END_TEST

/* ---- degenerate and infeasible ---- */

START_TEST(degenerate_lcps)
{
    /* ties in the first ratio test (q all equal), in later ones (q = 0
     * rows), and a singular PSD W whose solutions z1 + z2 = 1 are a
     * continuum */
    double W1[9] = {1, 2, 0, 0, 1, 2, 2, 0, 1}, q1[3] = {-1, -1, -1};
    double W2[16] = {2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2, 1, 1, 1, 1, 2}, q2[4] = {0, -1, 0, -1};
    double W3[4] = {1, 1, 1, 1}, q3[2] = {-1, -1};
    double W4[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, q4[4] = {-1, -1, -1, -1};
    struct {
        int m;
        const double *W, *q;
    } cases[] = {{3, W1, q1}, {4, W2, q2}, {2, W3, q3}, {4, W4, q4}};
    for (int c = 0; c < 4; c++) {
        mcb_problem *P = lcp_dense(cases[c].m, cases[c].W, cases[c].q, NULL);
        mcb_run run = run_solver("lemke", P, 1e-14, NULL);
        ck_assert_msg(run.info.status == MCB_ST_SOLVED, "lemke, case %d: %s (%s)", c,
                      mcb_status_name(run.info.status), run.info.reason);
        ck_assert_double_le(lcp_error(P, run.lambda), 1e-12);
        mcb_run_clear(&run);
        if (c >= 1) { /* ip-lcp on the monotone ones */
            run = run_solver("ip-lcp", P, 1e-9, NULL);
            ck_assert_msg(run.info.status == MCB_ST_SOLVED, "ip-lcp, case %d: %s (%s)", c,
                          mcb_status_name(run.info.status), run.info.reason);
            mcb_run_clear(&run);
        }
        mcb_problem_free(&P);
    }
}
END_TEST

START_TEST(infeasible_lcps)
{
    /* W = -I, q = -1: w = -z - 1 < 0 for every z >= 0; and a monotone
     * (PSD) one, w1 + w2 = -2 */
    double W1[4] = {-1, 0, 0, -1}, q1[2] = {-1, -1};
    double W2[4] = {1, -1, -1, 1}, q2[2] = {-1, -1};
    const double *Ws[2] = {W1, W2}, *qs[2] = {q1, q2};
    for (int c = 0; c < 2; c++) {
        mcb_problem *P = lcp_dense(2, Ws[c], qs[c], NULL);
        mcb_run run = run_solver("lemke", P, 1e-10, NULL);
        ck_assert_int_eq(run.info.status, MCB_ST_STALLED);
        ck_assert_msg(strstr(run.info.reason, "ray termination (no solution found)"), "%s",
                      run.info.reason);
        printf("infeasible %d: lemke %s (%s)\n", c, mcb_status_name(run.info.status),
               run.info.reason);
        mcb_run_clear(&run);
        run = run_solver("ip-lcp", P, 1e-10, NULL);
        printf("infeasible %d: ip-lcp %s after %d iterations (%s)\n", c,
               mcb_status_name(run.info.status), run.info.iterations, run.info.reason);
        ck_assert_msg(run.info.status == MCB_ST_STALLED || run.info.status == MCB_ST_DIVERGED,
                      "ip-lcp, case %d: %s", c, mcb_status_name(run.info.status));
        ck_assert_msg(run.info.reason[0], "ip-lcp gives no reason");
        mcb_run_clear(&run);
        mcb_problem_free(&P);
    }
}
END_TEST

/* ---- limits, parameters, interface ---- */

START_TEST(pivot_limit_and_max_dense)
{
    seed(99);
    int m = 40;
    double *W = malloc((size_t)m * m * sizeof(double)), q[40];
    random_lcp(RAND_PMATRIX, m, 1.0, W, q);
    for (int i = 0; i < m; i++) q[i] = -1.0 - urand(); /* every row active: many pivots */
    mcb_problem *P = lcp_dense(m, W, q, NULL);
    const mcb_solver_def *def = mcb_solver_find("lemke");
    char prm[256];
    def->default_params(prm);
    ck_assert_int_eq(mcb_param_set(def, prm, "max_pivots", "5", NULL), MCB_OK);
    mcb_run run = run_solver("lemke", P, 1e-12, prm);
    ck_assert_int_eq(run.info.status, MCB_ST_STALLED);
    ck_assert_msg(strstr(run.info.reason, "pivot limit"), "%s", run.info.reason);
    ck_assert_int_eq(run.info.iterations, 5);
    mcb_run_clear(&run);
    def->default_params(prm);
    ck_assert_int_eq(mcb_param_set(def, prm, "max_dense", "39", NULL), MCB_OK);
    run = run_solver("lemke", P, 1e-12, prm);
    ck_assert_int_eq(run.info.status, MCB_ST_SETUP_FAILED);
    ck_assert_msg(strstr(run.info.reason, "max_dense"), "%s", run.info.reason);
    mcb_run_clear(&run);
    /* bad values are refused */
    const char *bad[][3] = {{"lemke", "cover", "0"},        {"lemke", "max_pivots", "-1"},
                            {"lemke", "refine", "11"},      {"ip-lcp", "eta", "1"},
                            {"ip-lcp", "start", "-1"},      {"ip-lcp", "stall_iters", "0"},
                            {"ip-lcp", "linsolve", "3"}};
    for (int k = 0; k < 7; k++) {
        const mcb_solver_def *d = mcb_solver_find(bad[k][0]);
        d->default_params(prm);
        ck_assert_int_eq(mcb_param_set(d, prm, bad[k][1], bad[k][2], NULL), MCB_OK);
        mcb_err err;
        ck_assert_int_eq(d->check_params(prm, &err), MCB_E_INPUT);
        void *work = NULL;
        mcb_settings st;
        mcb_settings_default(&st);
        ck_assert_int_eq(d->setup(P, &st, prm, &work, &err), MCB_E_INPUT);
        ck_assert_ptr_null(work);
        d->free(&work); /* NULL accepted */
        d->free(NULL);
    }
    /* non-finite data: setup fails with the reason */
    P->q[3] = NAN;
    for (int k = 0; k < 2; k++) {
        run = run_solver(k ? "ip-lcp" : "lemke", P, 1e-12, NULL);
        ck_assert_int_eq(run.info.status, MCB_ST_SETUP_FAILED);
        ck_assert_msg(strstr(run.info.reason, "non-finite"), "%s", run.info.reason);
        mcb_run_clear(&run);
    }
    mcb_problem_free(&P);
    free(W);
}
END_TEST

START_TEST(contact_problems_are_skipped)
{
    const char *solvers[2] = {"lemke", "ip-lcp"};
    mcb_problem *Ps[3] = {fx_point_contact(FX_SLIP), fx_point_contact_dual(FX_SLIP), fx_mixed()};
    for (int s = 0; s < 2; s++)
        for (int f = 0; f < 3; f++) {
            mcb_run run = run_solver(solvers[s], Ps[f], 1e-8, NULL);
            ck_assert_int_eq(run.info.status, MCB_ST_SKIPPED);
            ck_assert_msg(strstr(run.info.reason, f != 1 ? "primal" : "formulation"), "%s",
                          run.info.reason);
            mcb_run_clear(&run);
        }
    for (int f = 0; f < 3; f++) mcb_problem_free(&Ps[f]);
}
END_TEST

typedef struct {
    int calls, last, bad;
} count_ctx;

static mcb_cb_action count_cb(void *ctx, int iter, double own)
{
    (void)own;
    count_ctx *c = ctx;
    c->calls++;
    c->bad |= iter != c->last + 1; /* no Check assertion here: it allocates */
    c->last = iter;
    return MCB_CB_CONTINUE;
}

/* One pivot is one callback iteration; the loop allocates nothing; a
 * second solve() gives the same answer. */
START_TEST(lemke_one_pivot_per_callback_no_alloc)
{
    seed(4242);
    int m = 60;
    double *W = malloc((size_t)m * m * sizeof(double)), q[60];
    random_lcp(RAND_PMATRIX, m, 0.5, W, q);
    mcb_problem *P = lcp_dense(m, W, q, NULL);
    const mcb_solver_def *def = mcb_solver_find("lemke");
    char prm[256];
    def->default_params(prm);
    mcb_settings st;
    mcb_settings_default(&st);
    st.max_iters = 100000;
    void *work = NULL;
    mcb_err err;
    ck_assert_int_eq(def->setup(P, &st, prm, &work, &err), MCB_OK);
    double z[2][60];
    int piv[2];
    for (int rep = 0; rep < 2; rep++) {
        count_ctx c = {0, 0, 0};
        mcb_info info = {0};
#if COUNT_MALLOC
        nalloc = 0;
        counting = 1;
#endif
        int status = def->solve(work, &st, count_cb, &c, &info);
#if COUNT_MALLOC
        counting = 0;
        ck_assert_int_eq(nalloc, 0);
#endif
        ck_assert_int_eq(status, MCB_ST_SOLVED);
        ck_assert_int_eq(c.calls, info.iterations);
        ck_assert_int_eq(c.bad, 0);
        ck_assert_int_ge(info.iterations, 1);
        ck_assert_double_eq(info.own_residual, 0.0);
        piv[rep] = info.iterations;
        def->iterate(work, NULL, z[rep]);
        ck_assert_double_le(lcp_error(P, z[rep]), 1e-12);
    }
    ck_assert_int_eq(piv[0], piv[1]);
    for (int i = 0; i < m; i++) ck_assert_double_eq(z[0][i], z[1][i]);
    def->free(&work);
    ck_assert_ptr_null(work);
    mcb_problem_free(&P);
    free(W);
}
END_TEST

/* Above 256 rows lemke's pivots update B^-1's columns in parallel: the
 * same pivots and the same z bit for bit with 1 and 2 threads. */
START_TEST(lemke_threads_bit_for_bit)
{
    seed(5150);
    int m = 300;
    double *W = malloc((size_t)m * m * sizeof(double)), *q = malloc((size_t)m * sizeof(double));
    random_lcp(RAND_PMATRIX, m, 0.05, W, q);
    mcb_problem *P = lcp_dense(m, W, q, NULL);
    mcb_run runs[2];
    for (int t = 0; t < 2; t++) {
        mcb_campaign_opts o;
        mcb_campaign_defaults(&o);
        o.settings.tol = 1e-14;
        o.settings.max_iters = 100000;
        o.settings.threads = t + 1;
        o.save_solutions = 1;
        mcb_metrics_ws *ws = NULL;
        ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, NULL), MCB_OK);
        memset(&runs[t], 0, sizeof runs[t]);
        ck_assert_int_eq(mcb_run_one(P, ws, mcb_solver_find("lemke"), NULL, &o, &runs[t], NULL),
                         MCB_OK);
        ck_assert_int_eq(runs[t].info.status, MCB_ST_SOLVED);
        mcb_metrics_ws_free(&ws);
    }
    ck_assert_int_eq(runs[0].info.iterations, runs[1].info.iterations);
    for (int i = 0; i < m; i++) ck_assert_double_eq(runs[0].lambda[i], runs[1].lambda[i]);
    ck_assert_double_le(lcp_error(P, runs[0].lambda), 1e-12);
    mcb_run_clear(&runs[0]);
    mcb_run_clear(&runs[1]);
    mcb_problem_free(&P);
    free(W);
    free(q);
}
END_TEST

static mcb_cb_action never_cb(void *ctx, int iter, double own)
{
    (void)ctx, (void)iter, (void)own;
    return MCB_CB_CONTINUE;
}

/* ip-lcp with LU: with KLU (refactored in place) the iterations after the
 * first allocate nothing here (no repivoting on this LCP): a full solve
 * makes as many allocations as a one-iteration solve. With UMFPACK (lu 1)
 * every factorization allocates: the full solve makes more, at least one
 * per further iteration (the sign that the parameter reaches the LU). */
START_TEST(ip_lu_allocates_only_first_factorization)
{
    seed(8080);
    int m = 60;
    double *W = malloc((size_t)m * m * sizeof(double)), *q = malloc((size_t)m * sizeof(double));
    random_lcp(RAND_PD, m, 0.2, W, q);
    mcb_problem *P = lcp_dense(m, W, q, NULL);
    const mcb_solver_def *ip = mcb_solver_find("ip-lcp");
    for (int lu = 0; lu < 2; lu++) {
        char prm[256];
        ip->default_params(prm);
        mcb_param_set(ip, prm, "linsolve", "1", NULL);
        mcb_param_set(ip, prm, "lu", lu ? "1" : "0", NULL);
        long counts[2] = {0, 0};
        int iters[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
            mcb_settings st;
            mcb_settings_default(&st);
            st.max_iters = k == 0 ? 1 : 12;
            void *work = NULL;
            ck_assert_int_eq(ip->setup(P, &st, prm, &work, NULL), MCB_OK);
            mcb_info info = {0};
#if COUNT_MALLOC
            nalloc = 0;
            counting = 1;
#endif
            ip->solve(work, &st, never_cb, NULL, &info);
#if COUNT_MALLOC
            counting = 0;
            counts[k] = nalloc;
#endif
            iters[k] = info.iterations;
            ip->free(&work);
        }
        printf("ip-lcp (%s): %ld allocations in 1 iteration, %ld in %d\n", lu ? "UMFPACK" : "KLU",
               counts[0], counts[1], iters[1]);
        ck_assert_int_ge(iters[1], 10);
        if (lu == 0) ck_assert_int_eq(counts[0], counts[1]);
#if COUNT_MALLOC
        else ck_assert_int_ge(counts[1], counts[0] + iters[1] - 1);
#endif
    }
    mcb_problem_free(&P);
    free(W);
    free(q);
}
END_TEST

/* ip-lcp with lu = 1 (UMFPACK): the same statuses and answers as with KLU
 * on a random monotone unsymmetric LCP (z to 1e-9), the unsymmetric
 * bilateral system of bilateral_only (exact), and a singular Newton matrix
 * (W_FF singular): stalled at the first iteration with the reason, for
 * both; lu 1 with linsolve 2 (CHOLMOD) is refused at setup. */
START_TEST(ip_umfpack_agrees_with_klu)
{
    const mcb_solver_def *ip = mcb_solver_find("ip-lcp");
    char prm[2][256];
    for (int lu = 0; lu < 2; lu++) {
        ip->default_params(prm[lu]);
        ck_assert_int_eq(mcb_param_set(ip, prm[lu], "lu", lu ? "1" : "0", NULL), MCB_OK);
    }
    seed(4242);
    int m = 80;
    double *W = malloc((size_t)m * m * sizeof(double)), *q = malloc((size_t)m * sizeof(double));
    random_lcp(RAND_PD, m, 0.1, W, q);
    double W2[4] = {2, 1, -1, 3}, q2[2] = {1, -1}, Ws[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1},
           qs[3] = {1, -1, -1};
    int bil2[2] = {1, 1}, bils[3] = {1, 1, 0};
    mcb_problem *Ps[3] = {lcp_dense(m, W, q, NULL), lcp_dense(2, W2, q2, bil2),
                          lcp_dense(3, Ws, qs, bils)};
    for (int c = 0; c < 3; c++) {
        mcb_run run[2];
        for (int lu = 0; lu < 2; lu++) {
            run[lu] = run_solver("ip-lcp", Ps[c], 1e-10, prm[lu]);
            int want = c < 2 ? MCB_ST_SOLVED : MCB_ST_STALLED;
            ck_assert_msg(run[lu].info.status == want, "case %d, lu %d: %s (%s)", c, lu,
                          mcb_status_name(run[lu].info.status), run[lu].info.reason);
        }
        if (c < 2)
            for (int i = 0; i < Ps[c]->m; i++)
                ck_assert_double_eq_tol(run[1].lambda[i], run[0].lambda[i],
                                        1e-9 * (1.0 + fabs(run[0].lambda[i])));
        else
            for (int lu = 0; lu < 2; lu++) {
                ck_assert_msg(strstr(run[lu].info.reason, "singular"), "%s", run[lu].info.reason);
                ck_assert_int_eq(run[lu].info.iterations, 0);
            }
        mcb_run_clear(&run[0]);
        mcb_run_clear(&run[1]);
        mcb_problem_free(&Ps[c]);
    }
    mcb_param_set(ip, prm[1], "linsolve", "2", NULL);
    mcb_err err;
    ck_assert_int_eq(ip->check_params(prm[1], &err), MCB_E_INPUT);
    ck_assert_msg(strstr(err.msg, "linsolve = 2"), "%s", err.msg);
    free(W);
    free(q);
}
END_TEST

/* ---- bench: random LCP files for docs/solver-lcp-direct.md ---- */

/* Symmetric positive definite LCPs (the only kind a problem file holds:
 * reading validates W's symmetry), B with about 3 entries per row. */
static int write_bench(const char *dir)
{
    for (int m = 100; m <= 3200; m *= 2) {
        seed(1000 + (unsigned long long)m);
        double *W = malloc((size_t)m * m * sizeof(double)), *q = malloc(m * sizeof(double));
        random_lcp(RAND_SPD, m, 3.0 / m, W, q);
        mcb_problem *P = lcp_dense(m, W, q, NULL);
        char name[64], path[1024];
        snprintf(name, sizeof name, "spd%d", m);
        free(P->name);
        P->name = strdup(name);
        snprintf(path, sizeof path, "%s/lcp_%s.h5", dir, name);
        mcb_err err;
        if (mcb_write_problems(path, &P, 1, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        printf("%s: m %d, nnz(W) %d\n", path, m, mcb_csc_nnz(P->W));
        mcb_problem_free(&P);
        free(W);
        free(q);
    }
    return 0;
}

/* `test_lcp_direct time [max_m]`: both solvers through the harness on
 * random LCPs of growing size, one line each (for the doc's table). */
static int time_solvers(int max_m)
{
    const char *kinds[4] = {"pmatrix", "pd", "spd", "stewart-trinkle"};
    printf("%-16s %5s %8s %-7s %-14s %7s %9s %9s %9s %9s\n", "kind", "m", "nnz(W)", "solver",
           "status", "iters", "setup_s", "solve_s", "natmap", "compl");
    for (int m = 50; m <= max_m; m *= 2)
        for (int kind = 0; kind < 4; kind++) {
            seed(1000 + (unsigned long long)m);
            mcb_problem *P;
            if (kind < 3) {
                double *W = malloc((size_t)m * m * sizeof(double)), *q = malloc(m * sizeof(double));
                random_lcp(kind, m, 10.0 / m, W, q);
                P = lcp_dense(m, W, q, NULL);
                free(W);
                free(q);
            } else {
                P = random_st(m / 12 < 6 ? 6 : m / 12, m / 6, 4); /* m rows: 6 per contact */
            }
            for (int sv = 0; sv < 2; sv++) {
                const char *name = sv ? "ip-lcp" : "lemke";
                mcb_campaign_opts o;
                mcb_campaign_defaults(&o);
                o.settings.tol = 1e-10;
                o.settings.max_iters = 100000;
                o.settings.time_limit_s = 600;
                o.save_solutions = 1;
                mcb_metrics_ws *ws = NULL;
                mcb_metrics_ws_new(P, &ws, NULL);
                mcb_run run = {0};
                mcb_run_one(P, ws, mcb_solver_find(name), NULL, &o, &run, NULL);
                printf("%-16s %5d %8d %-7s %-14s %7d %9.3g %9.3g %9.2g %9.2g\n", kinds[kind], P->m,
                       mcb_csc_nnz(P->W), name, mcb_status_name(run.info.status),
                       run.info.iterations, run.info.setup_s, run.info.solve_s,
                       run.final.val[MCB_M_NATMAP], run.lambda ? lcp_error(P, run.lambda) : NAN);
                fflush(stdout);
                mcb_run_clear(&run);
                mcb_metrics_ws_free(&ws);
            }
            mcb_problem_free(&P);
        }
    return 0;
}

/* The Stewart-Trinkle LCP (RPIsim eq. (7)) of a contact problem from its
 * Delassus view u = W lambda + q (lib/mcb_delassus.h): z = (lambda_n per
 * contact, beta (nd per contact), sigma per contact), lambda = T (lambda_n,
 * beta) with lambda_t = sum_k beta_k (cos th_k, sin th_k):
 *   W_st = [T^T W T, E; mu, -E^T, 0],  q_st = [T^T q; 0].
 * For the tests and the bench (the formulation layer builds it for real);
 * NULL when P has blocks other than contacts. */
static mcb_problem *st_from_contacts(const mcb_problem *P, int nd)
{
    for (int b = 0; b < P->nblocks; b++)
        if (P->blocks[b].type != MCB_CONTACT) return NULL;
    mcb_delassus *D = NULL;
    if (mcb_delassus_build(P, &D, NULL)) return NULL;
    int nc = P->nblocks, ng = nc + nc * nd, mz = ng + nc;
    int *ti = malloc(((size_t)ng * 2 + 1) * sizeof(int)), *tj = malloc(((size_t)ng * 2 + 1) * sizeof(int));
    double *tx = malloc(((size_t)ng * 2 + 1) * sizeof(double));
    int nt = 0;
    for (int c = 0; c < nc; c++) {
        int r = P->blocks[c].row;
        ti[nt] = r, tj[nt] = c, tx[nt++] = 1.0;
        for (int k = 0; k < nd; k++) {
            double th = 2.0 * 3.14159265358979323846 * k / nd;
            int col = nc + c * nd + k;
            ti[nt] = r + 1, tj[nt] = col, tx[nt++] = cos(th);
            ti[nt] = r + 2, tj[nt] = col, tx[nt++] = sin(th);
        }
    }
    mcb_csc *T = mcb_csc_from_triplets(P->m, ng, nt, ti, tj, tx);
    mcb_csc *TT = mcb_csc_transpose(T), *WT = mcb_csc_multiply(D->W, T);
    mcb_csc *G = mcb_csc_multiply(TT, WT);
    int nz = mcb_csc_nnz(G) + 3 * nc * nd + nc;
    int *ri = malloc((size_t)nz * sizeof(int)), *ci = malloc((size_t)nz * sizeof(int));
    double *x = malloc((size_t)nz * sizeof(double)), *q = calloc((size_t)mz, sizeof(double));
    int n = 0;
    for (int j = 0; j < ng; j++)
        for (int p = G->p[j]; p < G->p[j + 1]; p++) ri[n] = G->i[p], ci[n] = j, x[n++] = G->x[p];
    for (int c = 0; c < nc; c++) {
        int srow = ng + c;
        ri[n] = srow, ci[n] = c, x[n++] = P->blocks[c].mu;
        for (int k = 0; k < nd; k++) {
            int f = nc + c * nd + k;
            ri[n] = f, ci[n] = srow, x[n++] = 1.0;
            ri[n] = srow, ci[n] = f, x[n++] = -1.0;
        }
    }
    mcb_csc_gatxpy(T, D->q, q);
    mcb_problem *Q = mcb_problem_new();
    Q->form = MCB_DUAL;
    Q->m = mz;
    Q->W = mcb_csc_from_triplets(mz, mz, n, ri, ci, x);
    Q->q = q;
    Q->nblocks = 1;
    Q->blocks = calloc(1, sizeof(mcb_block));
    Q->blocks[0] = (mcb_block){MCB_UNILATERAL, 0, mz, 0, 0, 0};
    free(ti), free(tj), free(tx), free(ri), free(ci), free(x);
    mcb_csc_free(&T), mcb_csc_free(&TT), mcb_csc_free(&WT), mcb_csc_free(&G);
    mcb_delassus_free(&D);
    return Q;
}

/* `test_lcp_direct st FILE.h5 ND [TOL]`: both solvers on the
 * Stewart-Trinkle LCP of each contact problem of a file (natmap TOL,
 * default 1e-8). */
static int st_bench(const char *path, int nd, double tol)
{
    mcb_problem_set *S = NULL;
    mcb_err err;
    if (mcb_read_problems(path, &S, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    printf("%-34s %5s %8s %-7s %-14s %7s %9s %9s %9s %9s\n", "problem", "m", "nnz(W)", "solver",
           "status", "iters", "setup_s", "solve_s", "natmap", "compl");
    for (int k = 0; k < S->count; k++) {
        mcb_problem *Q = st_from_contacts(S->items[k], nd);
        if (!Q) {
            printf("%-34s not a contact-only problem (or W failed)\n", S->items[k]->name);
            continue;
        }
        for (int sv = 0; sv < 2; sv++) {
            const char *name = sv ? "ip-lcp" : "lemke";
            mcb_campaign_opts o;
            mcb_campaign_defaults(&o);
            o.settings.tol = tol;
            o.settings.max_iters = 1000000;
            o.settings.time_limit_s = 300;
            o.save_solutions = 1;
            mcb_metrics_ws *ws = NULL;
            mcb_metrics_ws_new(Q, &ws, NULL);
            mcb_run run = {0};
            mcb_run_one(Q, ws, mcb_solver_find(name), NULL, &o, &run, NULL);
            printf("%-34s %5d %8d %-7s %-14s %7d %9.3g %9.3g %9.2g %9.2g %s\n", S->items[k]->name,
                   Q->m, mcb_csc_nnz(Q->W), name, mcb_status_name(run.info.status),
                   run.info.iterations, run.info.setup_s, run.info.solve_s,
                   run.final.val[MCB_M_NATMAP], run.lambda ? lcp_error(Q, run.lambda) : NAN,
                   run.info.status == MCB_ST_SOLVED ? "" : run.info.reason);
            fflush(stdout);
            mcb_run_clear(&run);
            mcb_metrics_ws_free(&ws);
        }
        mcb_problem_free(&Q);
    }
    mcb_problem_set_free(&S);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "st") == 0)
        return st_bench(argv[2], atoi(argv[3]), argc > 4 ? atof(argv[4]) : 1e-8);
    if (argc == 3 && strcmp(argv[1], "bench") == 0) return write_bench(argv[2]);
    if (argc >= 2 && strcmp(argv[1], "time") == 0) return time_solvers(argc > 2 ? atoi(argv[2]) : 1600);
    Suite *s = suite_create("lcp_direct");
    TCase *tc = tcase_create("lemke, ip-lcp");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, lemke_random_p_matrices_exact);
    tcase_add_test(tc, ip_random_monotone);
    tcase_add_test(tc, stewart_trinkle_stick_and_slip);
    tcase_add_test(tc, stewart_trinkle_mlcp);
    tcase_add_test(tc, compliance_honoured);
    tcase_add_test(tc, lemke_random_stewart_trinkle);
    tcase_add_test(tc, stewart_trinkle_of_contact_fixtures);
    tcase_add_test(tc, bilateral_only);
    tcase_add_test(tc, degenerate_lcps);
    tcase_add_test(tc, infeasible_lcps);
    tcase_add_test(tc, pivot_limit_and_max_dense);
    tcase_add_test(tc, contact_problems_are_skipped);
    tcase_add_test(tc, lemke_one_pivot_per_callback_no_alloc);
    tcase_add_test(tc, lemke_threads_bit_for_bit);
    tcase_add_test(tc, ip_lu_allocates_only_first_factorization);
    tcase_add_test(tc, ip_umfpack_agrees_with_klu);
    suite_add_tcase(s, tc);
    return mcb_run_suite(s);
}

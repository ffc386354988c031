/* test_scene_fem.c: known-answer tests of the tetrahedral FEM
 * (problems/scene/fem.c): the box mesher (counts, volumes, conformity,
 * ties, surface), the patch test of linear elasticity, the rigid-body null
 * space and definiteness of K, a cantilever against Euler-Bernoulli, the
 * co-rotational force and stiffness under rigid motions and under rotated
 * stretches, the step's A and b (symmetry, pieces, mass), an inverted
 * element, a free fall through mcb_fem_assemble, and the beam scene's
 * structure at a tiny size (scene_beam.c). The world's own mesh tests (a
 * block resting on the ground) are in test_scene_joint.c. */
#include <check.h>

#include "check_main.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problems/scene/fem.h"
#include "lib/mcb_chol.h"
#include "lib/mcb_problem.h"
#include "lib/mcb_sparse.h"
#include "metrics/metrics.h"
#include "problems/scene/scenes.h"
#include "problems/scene/spatial.h"

/* ---- helpers ----------------------------------------------------------- */

static mcb_fem *make(const mcb_fem_opts *o)
{
    mcb_fem *f = NULL;
    mcb_err err;
    mcb_rc rc = mcb_fem_box(o, &f, &err);
    ck_assert_msg(rc == MCB_OK, "mcb_fem_box: %s", err.msg);
    return f;
}

static mcb_xform random_xform(mcb_rng *r, double spread)
{
    double ax[3] = {mcb_rng_normal(r), mcb_rng_normal(r), mcb_rng_normal(r)}, q[4];
    mcb_quat_from_axis_angle(ax, 6.283185307179586 * mcb_rng_uniform(r), q);
    mcb_xform X;
    mcb_quat_to_mat(q, X.R);
    for (int k = 0; k < 3; k++) X.p[k] = spread * (2 * mcb_rng_uniform(r) - 1);
    return X;
}

static double tet_volume(const double *p, const int *t)
{
    double a[3], b[3], c[3], axb[3];
    for (int k = 0; k < 3; k++) {
        a[k] = p[3 * t[1] + k] - p[3 * t[0] + k];
        b[k] = p[3 * t[2] + k] - p[3 * t[0] + k];
        c[k] = p[3 * t[3] + k] - p[3 * t[0] + k];
    }
    mcb_v3_cross(a, b, axb);
    return mcb_v3_dot(axb, c) / 6;
}

/* Largest |A_ij| (a scale for relative checks). */
static double max_abs(const mcb_csc *A)
{
    double m = 0;
    for (int k = 0; k < A->p[A->n]; k++) m = fmax(m, fabs(A->x[k]));
    return m;
}

/* The submatrix of A on the rows and columns with map[k] >= 0 (renumbered
 * to map[k]), n_red of them. */
static mcb_csc *reduce(const mcb_csc *A, const int *map, int n_red)
{
    int nnz = A->p[A->n], nz = 0;
    int *ri = malloc(sizeof(int) * (size_t)nnz), *ci = malloc(sizeof(int) * (size_t)nnz);
    double *vx = malloc(sizeof(double) * (size_t)nnz);
    for (int j = 0; j < A->n; j++)
        for (int k = A->p[j]; k < A->p[j + 1]; k++)
            if (map[j] >= 0 && map[A->i[k]] >= 0) ri[nz] = map[A->i[k]], ci[nz] = map[j], vx[nz++] = A->x[k];
    mcb_csc *R = mcb_csc_from_triplets(n_red, n_red, nz, ri, ci, vx);
    free(ri), free(ci), free(vx);
    return R;
}

/* Node positions back in the box frame. */
static void box_coords(const mcb_fem_opts *o, const double *world, double *box)
{
    double d[3] = {world[0] - o->pose.p[0], world[1] - o->pose.p[1], world[2] - o->pose.p[2]};
    mcb_m3_tvec(o->pose.R, d, box);
}

/* ---- the mesher -------------------------------------------------------- */

static int cmp3(const void *a, const void *b)
{
    const int *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return 0;
}

static void sort3(int *t)
{
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (t[j] < t[i]) {
                int s = t[i];
                t[i] = t[j], t[j] = s;
            }
}

START_TEST(mesher_counts_volumes_ties_surface)
{
    mcb_rng r;
    mcb_rng_seed(&r, 9);
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = 0.3, o.size[1] = 0.2, o.size[2] = 0.8;
    o.cells[0] = 3, o.cells[1] = 2, o.cells[2] = 4;
    o.pieces = 2;
    o.pose = random_xform(&r, 2.0);
    mcb_fem *f = make(&o);
    /* the long axis is z: 2 pieces of 2 cells, each (2+1) x 4 x 3 nodes */
    ck_assert_int_eq(mcb_fem_nnodes(f), 72);
    ck_assert_int_eq(mcb_fem_ntets(f), 6 * 24);
    ck_assert_int_eq(mcb_fem_npieces(f), 2);
    const int *ps = mcb_fem_piece_start(f);
    ck_assert_int_eq(ps[0], 0); ck_assert_int_eq(ps[1], 36); ck_assert_int_eq(ps[2], 72);
    const int *T = mcb_fem_tets(f);
    const double *X = mcb_fem_rest(f);
    double vol = 0;
    for (int t = 0; t < mcb_fem_ntets(f); t++) {
        double v = tet_volume(X, T + 4 * t);
        ck_assert_msg(v > 0, "tet %d has volume %g", t, v);
        ck_assert_double_eq_tol(v, 0.3 * 0.2 * 0.8 / 24 / 6, 1e-15);
        int p = T[4 * t] >= 36;
        for (int a = 1; a < 4; a++) ck_assert_int_eq(T[4 * t + a] >= 36, p);  /* one piece per tet */
        vol += v;
    }
    ck_assert_double_eq_tol(vol, 0.048, 1e-12 * 0.048);
    ck_assert_double_eq_tol(mcb_fem_total_mass(f), 1000 * 0.048, 1e-12 * 48);
    /* ties: the 4 x 3 nodes of the cut z = 0, lower piece first, same rest position */
    int nt = 0;
    const int *ties = mcb_fem_ties(f, &nt);
    ck_assert_int_eq(nt, 12);
    for (int k = 0; k < nt; k++) {
        int a = ties[2 * k], b = ties[2 * k + 1];
        ck_assert_int_lt(a, 36); ck_assert_int_ge(b, 36);
        for (int i = 0; i < 3; i++) ck_assert(X[3 * a + i] == X[3 * b + i]);
        double xb[3];
        box_coords(&o, X + 3 * a, xb);
        ck_assert_double_eq_tol(xb[2], 0, 1e-12);
    }
    /* surface: exactly the nodes on the box boundary (duplicates included) */
    int ns = 0;
    const int *S = mcb_fem_surface(f, &ns);
    char *on = calloc(72, 1);
    for (int k = 0; k < ns; k++) on[S[k]] = 1;
    int expect = 0;
    for (int n = 0; n < 72; n++) {
        double xb[3];
        box_coords(&o, X + 3 * n, xb);
        int bnd = 0;
        for (int i = 0; i < 3; i++) bnd |= fabs(fabs(xb[i]) - 0.5 * o.size[i]) < 1e-12;
        ck_assert_msg(bnd == on[n], "node %d: on the boundary %d, listed %d", n, bnd, on[n]);
        expect += bnd;
    }
    ck_assert_int_eq(ns, expect);
    ck_assert_int_eq(ns, 72 - 8);  /* interior: 2 x 1 x 3 grid points, the 2 on the cut twice */
    free(on);
    /* faces */
    int idx[64];
    ck_assert_int_eq(mcb_fem_nodes_at(f, 2, 0.4, 1e-9, idx, 64), 12);
    ck_assert_int_eq(mcb_fem_nodes_at(f, 2, 0.0, 1e-9, idx, 64), 24);
    ck_assert_int_eq(mcb_fem_nodes_at(f, 0, -0.15, 1e-9, idx, 4), 18);  /* 3 x 5, the cut 3 twice; beyond cap */
    mcb_fem_free(&f);
    ck_assert_ptr_null(f);
    mcb_fem_free(&f);
    mcb_fem_free(NULL);
}
END_TEST

/* Every triangle of a one-piece mesh is shared by two tetrahedra, except
 * the boundary ones (2 per boundary square): the split is conforming. */
START_TEST(mesher_conforming)
{
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.cells[0] = 3, o.cells[1] = 4, o.cells[2] = 2;
    mcb_fem *f = make(&o);
    int T = mcb_fem_ntets(f), nf = 4 * T;
    int *faces = malloc(sizeof(int) * 3 * (size_t)nf);
    const int *tet = mcb_fem_tets(f);
    for (int t = 0; t < T; t++)
        for (int k = 0; k < 4; k++) {
            int *fc = faces + 3 * (4 * t + k), m = 0;
            for (int a = 0; a < 4; a++)
                if (a != k) fc[m++] = tet[4 * t + a];
            sort3(fc);
        }
    qsort(faces, (size_t)nf, 3 * sizeof(int), cmp3);
    int single = 0;
    for (int k = 0; k < nf;) {
        int m = 1;
        while (k + m < nf && !cmp3(faces + 3 * k, faces + 3 * (k + m))) m++;
        ck_assert_int_le(m, 2);
        single += m == 1;
        k += m;
    }
    ck_assert_int_eq(single, 2 * 2 * (3 * 4 + 4 * 2 + 3 * 2));
    free(faces);
    mcb_fem_free(&f);
}
END_TEST

/* The ball mesher: for several grids, every tet positive, each face in
 * one or two tets (conforming), the volume within the grid's resolution of
 * 4/3 pi r^3 and the mass rho V, the surface nodes mostly on the sphere and
 * none outside it, no node unused; under a random pose the rest positions
 * are the posed ones. MCB_FEM_BALL="n" prints the counts of an n-cell grid. */
START_TEST(ball_mesher)
{
    const char *env = getenv("MCB_FEM_BALL");
    int grids[4] = {2, 5, 8, 13}, ngrids = 4;
    if (env) grids[0] = atoi(env), ngrids = 1;
    mcb_rng rng;
    mcb_rng_seed(&rng, 26);
    for (int g = 0; g < ngrids; g++) {
        mcb_fem_opts o;
        mcb_fem_defaults(&o);
        double r = 0.05;
        o.size[0] = 2 * r;
        o.cells[0] = grids[g];
        o.pose = random_xform(&rng, 1.0);
        mcb_fem *f = NULL;
        mcb_err err = {{0}};
        ck_assert_msg(mcb_fem_ball(&o, &f, &err) == MCB_OK, "%s", err.msg);
        int N = mcb_fem_nnodes(f), T = mcb_fem_ntets(f), ns = 0, ties = 0;
        const int *tet = mcb_fem_tets(f), *surf = mcb_fem_surface(f, &ns);
        const double *X = mcb_fem_rest(f);
        mcb_fem_ties(f, &ties);
        ck_assert_int_eq(ties, 0);
        ck_assert_int_eq(mcb_fem_npieces(f), 1);
        ck_assert_int_eq(mcb_fem_piece_start(f)[1], N);
        double vol = 0, vmin = INFINITY, hc = 2 * r / grids[g];
        int *used = calloc((size_t)N, sizeof(int));
        for (int t = 0; t < T; t++) {
            double v = tet_volume(X, tet + 4 * t);
            vol += v;
            vmin = fmin(vmin, v);
            for (int a = 0; a < 4; a++) used[tet[4 * t + a]] = 1;
        }
        for (int n = 0; n < N; n++) ck_assert_msg(used[n], "node %d unused", n);
        free(used);
        ck_assert_msg(vmin >= 0.1 * hc * hc * hc / 6 * (1 - 1e-9), "n %d: smallest tet %g", grids[g], vmin);
        double exact = 4.0 / 3.0 * 3.14159265358979323846 * r * r * r;
        ck_assert_msg(fabs(vol / exact - 1) < 1.5 / grids[g], "n %d: volume %g of %g", grids[g], vol, exact);
        ck_assert_double_eq_tol(mcb_fem_total_mass(f), o.density * vol, 1e-9 * o.density * vol);
        int on = 0;
        double out = 0;
        for (int k = 0; k < ns; k++) {
            double d[3];
            for (int i = 0; i < 3; i++) d[i] = X[3 * surf[k] + i] - o.pose.p[i];
            double rr = mcb_v3_norm(d);
            out = fmax(out, rr - r);
            on += fabs(rr - r) < 1e-12 * r;
        }
        /* conforming: each face in one or two tets */
        int nf = 4 * T, single = 0;
        int *faces = malloc(sizeof(int) * 3 * (size_t)nf);
        for (int t = 0; t < T; t++)
            for (int k = 0; k < 4; k++) {
                int *fc = faces + 3 * (4 * t + k), m = 0;
                for (int a = 0; a < 4; a++)
                    if (a != k) fc[m++] = tet[4 * t + a];
                sort3(fc);
            }
        qsort(faces, (size_t)nf, 3 * sizeof(int), cmp3);
        for (int k = 0; k < nf;) {
            int m = 1;
            while (k + m < nf && !cmp3(faces + 3 * k, faces + 3 * (k + m))) m++;
            ck_assert_int_le(m, 2);
            single += m == 1;
            k += m;
        }
        free(faces);
        if (env)
            printf("ball %d cells: %d nodes, %d tets, %d surface (%d on the sphere), %d boundary faces, "
                   "volume %.5f of the sphere's, smallest tet %.3f of a grid tet, farthest node %.3f cells out\n",
                   grids[g], N, T, ns, on, single, vol / exact, vmin / (hc * hc * hc / 6), out / hc);
        ck_assert_msg(3 * on >= 2 * ns, "n %d: only %d of %d surface nodes on the sphere", grids[g], on, ns);
        ck_assert_msg(out <= 0.6 * hc, "n %d: a surface node %g cells beyond the sphere", grids[g], out / hc);
        if (grids[g] == 13) { /* the soft-ball scene's mesh (docs/fem.md) */
            ck_assert_int_eq(N, 1586);
            ck_assert_int_eq(T, 6990);
        }
        mcb_fem_free(&f);
    }
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.pieces = 2;
    mcb_fem *f = NULL;
    mcb_err err = {{0}};
    ck_assert_int_eq(mcb_fem_ball(&o, &f, &err), MCB_E_INPUT);
    ck_assert_ptr_null(f);
    o.pieces = 1, o.cells[0] = 1;
    ck_assert_int_eq(mcb_fem_ball(&o, &f, &err), MCB_E_INPUT);
}
END_TEST

START_TEST(bad_options)
{
    mcb_fem_opts o;
    mcb_fem *f = (mcb_fem *)&o;
    mcb_err err;
    mcb_fem_defaults(&o);
    o.pieces = 3;  /* 2 cells on the long axis */
    ck_assert_int_eq(mcb_fem_box(&o, &f, &err), MCB_E_INPUT);
    ck_assert_ptr_null(f);
    ck_assert_ptr_nonnull(strstr(err.msg, "pieces"));
    mcb_fem_defaults(&o);
    o.poisson = 0.5;
    ck_assert_int_eq(mcb_fem_box(&o, &f, &err), MCB_E_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "poisson"));
    mcb_fem_defaults(&o);
    o.size[1] = NAN;
    ck_assert_int_eq(mcb_fem_box(&o, &f, &err), MCB_E_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "size[1]"));
    mcb_fem_defaults(&o);
    o.pose.R[0] = -1;  /* a reflection */
    ck_assert_int_eq(mcb_fem_box(&o, &f, &err), MCB_E_INPUT);
    ck_assert_ptr_nonnull(strstr(err.msg, "pose.R"));
    ck_assert_int_eq(mcb_fem_box(NULL, &f, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_fem_nnodes(NULL), 0);
    ck_assert_ptr_null(mcb_fem_stiffness(NULL));
}
END_TEST

/* ---- linear elasticity ------------------------------------------------- */

/* Patch test: the boundary nodes displaced by u = G X (G a general linear
 * map), K u = 0 solved for the interior: the interior follows G X. */
START_TEST(patch_test)
{
    mcb_rng r;
    mcb_rng_seed(&r, 77);
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = 0.4, o.size[1] = 0.3, o.size[2] = 0.5;
    o.cells[0] = 4, o.cells[1] = 3, o.cells[2] = 5;
    o.poisson = 0.45;
    o.young_pa = 1e7;
    o.pose = random_xform(&r, 1.0);
    mcb_fem *f = make(&o);
    int N = mcb_fem_nnodes(f), N3 = 3 * N, ns = 0;
    const int *S = mcb_fem_surface(f, &ns);
    const double *X = mcb_fem_rest(f);
    double G[9];
    for (int k = 0; k < 9; k++) G[k] = 0.01 * mcb_rng_normal(&r);
    int *map = malloc(sizeof(int) * (size_t)N3);
    char *bnd = calloc((size_t)N, 1);
    for (int k = 0; k < ns; k++) bnd[S[k]] = 1;
    int nI = 0;
    for (int n = 0; n < N; n++)
        for (int i = 0; i < 3; i++) map[3 * n + i] = bnd[n] ? -1 : nI++;
    ck_assert_int_eq(nI, 3 * 3 * 2 * 4);
    double *u = calloc((size_t)N3, sizeof(double)), *rhs = calloc((size_t)N3, sizeof(double));
    for (int n = 0; n < N; n++)
        if (bnd[n]) mcb_m3_vec(G, X + 3 * n, u + 3 * n);
    mcb_csc *K = mcb_fem_stiffness(f);
    ck_assert_ptr_nonnull(K);
    mcb_csc_gaxpy(K, u, rhs);  /* K u_B (u_I = 0 so far) */
    double *bI = malloc(sizeof(double) * (size_t)nI);
    for (int k = 0; k < N3; k++)
        if (map[k] >= 0) bI[map[k]] = -rhs[k];
    mcb_csc *KII = reduce(K, map, nI);
    mcb_chol *F = NULL;
    mcb_err err;
    ck_assert_msg(mcb_chol_factor(KII, &F, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(mcb_chol_solve(F, bI, bI), MCB_OK);
    double emax = 0, umax = 0;
    for (int n = 0; n < N; n++) {
        if (bnd[n]) continue;
        double ue[3];
        mcb_m3_vec(G, X + 3 * n, ue);
        for (int i = 0; i < 3; i++) {
            emax = fmax(emax, fabs(bI[map[3 * n + i]] - ue[i]));
            umax = fmax(umax, fabs(ue[i]));
        }
    }
    ck_assert_msg(emax <= 1e-9 * umax, "patch test: interior error %g (displacement %g)", emax, umax);
    mcb_chol_free(&F);
    mcb_csc_free(&KII), mcb_csc_free(&K);
    free(map), free(bnd), free(u), free(rhs), free(bI);
    mcb_fem_free(&f);
}
END_TEST

/* K annihilates the six rigid modes, is symmetric, K + eps I is positive
 * definite, and a non-rigid displacement has positive energy. */
START_TEST(stiffness_null_space)
{
    mcb_rng r;
    mcb_rng_seed(&r, 5);
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = 0.2, o.size[1] = 0.6, o.size[2] = 0.3;
    o.cells[0] = 2, o.cells[1] = 5, o.cells[2] = 3;
    o.pose = random_xform(&r, 3.0);
    mcb_fem *f = make(&o);
    int N = mcb_fem_nnodes(f), N3 = 3 * N;
    const double *X = mcb_fem_rest(f);
    mcb_csc *K = mcb_fem_stiffness(f);
    double kmax = max_abs(K);
    ck_assert(mcb_csc_asymmetry(K) < 1e-14);
    double *u = malloc(sizeof(double) * (size_t)N3), *Ku = malloc(sizeof(double) * (size_t)N3);
    for (int mode = 0; mode < 6; mode++) {
        for (int n = 0; n < N; n++) {
            double e[3] = {0, 0, 0};
            e[mode % 3] = 1;
            if (mode < 3) memcpy(u + 3 * n, e, sizeof e);
            else mcb_v3_cross(e, X + 3 * n, u + 3 * n);
        }
        memset(Ku, 0, sizeof(double) * (size_t)N3);
        mcb_csc_gaxpy(K, u, Ku);
        double rel = mcb_norm_inf(N3, Ku) / (kmax * mcb_norm_inf(N3, u));
        ck_assert_msg(rel < 1e-12, "rigid mode %d: |K u| / |K| |u| = %g", mode, rel);
    }
    /* a random displacement: strictly positive energy */
    for (int k = 0; k < N3; k++) u[k] = mcb_rng_normal(&r);
    memset(Ku, 0, sizeof(double) * (size_t)N3);
    mcb_csc_gaxpy(K, u, Ku);
    double energy = mcb_dot(N3, u, Ku);
    ck_assert_msg(energy > 1e-3 * kmax * mcb_dot(N3, u, u), "u^T K u = %g", energy);
    /* K + eps I factorizes; K alone (singular) does not */
    mcb_csc *Ke = mcb_csc_copy(K);
    for (int j = 0; j < N3; j++)
        for (int k = Ke->p[j]; k < Ke->p[j + 1]; k++)
            if (Ke->i[k] == j) Ke->x[k] += 1e-8 * kmax;
    mcb_chol *F = NULL;
    mcb_err err;
    ck_assert_msg(mcb_chol_factor(Ke, &F, &err) == MCB_OK, "%s", err.msg);
    mcb_chol_free(&F);
    mcb_csc_free(&Ke), mcb_csc_free(&K);
    free(u), free(Ku);
    mcb_fem_free(&f);
}
END_TEST

/* A cantilever (long axis x, square section t x t) clamped at x = -L/2,
 * a tip load P along z spread over the end face by tributary area; the
 * mean vertical displacement of the end face against P L^3 / (3 E I). */
static double cantilever_ratio(int cx, int ct, double L, double t, double nu)
{
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = L, o.size[1] = t, o.size[2] = t;
    o.cells[0] = cx, o.cells[1] = ct, o.cells[2] = ct;
    o.young_pa = 1e7, o.poisson = nu;
    mcb_fem *f = make(&o);
    int N = mcb_fem_nnodes(f), N3 = 3 * N, nclamp, ntip;
    int *clamp = malloc(sizeof(int) * (size_t)N), *tip = malloc(sizeof(int) * (size_t)N);
    nclamp = mcb_fem_nodes_at(f, 0, -L / 2, 1e-9 * L, clamp, N);
    ntip = mcb_fem_nodes_at(f, 0, L / 2, 1e-9 * L, tip, N);
    ck_assert_int_eq(nclamp, (ct + 1) * (ct + 1));
    ck_assert_int_eq(ntip, (ct + 1) * (ct + 1));
    int *map = malloc(sizeof(int) * (size_t)N3);
    for (int k = 0; k < N3; k++) map[k] = 0;
    for (int k = 0; k < nclamp; k++)
        for (int i = 0; i < 3; i++) map[3 * clamp[k] + i] = -1;
    int nF = 0;
    for (int k = 0; k < N3; k++)
        if (map[k] == 0) map[k] = nF++;
        else map[k] = -1;
    double P = 1.0, *rhs = calloc((size_t)nF, sizeof(double));
    const double *X = mcb_fem_rest(f);
    double wsum = 0;
    for (int k = 0; k < ntip; k++) {  /* tributary weights: 1/4 corner, 1/2 edge, 1 inside */
        const double *x = X + 3 * tip[k];
        double w = 1;
        for (int i = 1; i < 3; i++)
            if (fabs(fabs(x[i]) - t / 2) < 1e-9 * t) w *= 0.5;
        rhs[map[3 * tip[k] + 2]] = w;
        wsum += w;
    }
    for (int k = 0; k < ntip; k++) rhs[map[3 * tip[k] + 2]] *= P / wsum;
    mcb_csc *K = mcb_fem_stiffness(f), *KFF = reduce(K, map, nF);
    mcb_chol *F = NULL;
    mcb_err err;
    ck_assert_msg(mcb_chol_factor(KFF, &F, &err) == MCB_OK, "%s", err.msg);
    ck_assert_int_eq(mcb_chol_solve(F, rhs, rhs), MCB_OK);
    double w = 0;
    for (int k = 0; k < ntip; k++) w += rhs[map[3 * tip[k] + 2]] / ntip;
    double I = t * t * t * t / 12, eb = P * L * L * L / (3 * o.young_pa * I);
    mcb_chol_free(&F);
    mcb_csc_free(&K), mcb_csc_free(&KFF);
    free(clamp), free(tip), free(map), free(rhs);
    mcb_fem_free(&f);
    return w / eb;
}

START_TEST(cantilever_euler_bernoulli)
{
    const char *e = getenv("MCB_FEM_CANTILEVER");  /* "cx ct L/t nu": exploring meshes */
    if (e) {
        int cx, ct;
        double slender, nu;
        if (sscanf(e, "%d %d %lf %lf", &cx, &ct, &slender, &nu) == 4)
            printf("cantilever %d x %d x %d, L/t %g, nu %g: w / w_EB = %.5f\n", cx, ct, ct, slender, nu,
                   cantilever_ratio(cx, ct, 0.05 * slender, 0.05, nu));
        return;
    }
    /* 100 x 8 x 8 cells, L = 0.5 m, t = 0.05 m, nu = 0 (no clamped-face
     * Poisson constraint): 0.962; linear tets lock, coarser meshes are
     * stiffer (docs/fem.md lists the convergence) */
    double ratio = cantilever_ratio(100, 8, 0.5, 0.05, 0.0);
    ck_assert_msg(fabs(ratio - 1) < 0.05, "tip deflection / Euler-Bernoulli = %g", ratio);
}
END_TEST

/* ---- co-rotation and the step ------------------------------------------ */

static mcb_fem_opts small_opts(void)
{
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = 0.1, o.size[1] = 0.1, o.size[2] = 0.4;
    o.cells[0] = 2, o.cells[1] = 2, o.cells[2] = 6;
    o.pieces = 3;
    o.young_pa = 1e7, o.poisson = 0.45;
    return o;
}

static mcb_csc *assemble_csc(mcb_fem *f, double h, double theta, const double g[3], const double **b)
{
    int nt;
    const int *ti, *tj;
    const double *tx;
    mcb_err err;
    mcb_rc rc = mcb_fem_assemble(f, h, theta, g, &nt, &ti, &tj, &tx, b, &err);
    ck_assert_msg(rc == MCB_OK, "assemble: %s", err.msg);
    int N3 = 3 * mcb_fem_nnodes(f);
    return mcb_csc_from_triplets(N3, N3, nt, ti, tj, tx);
}

/* x = Q X + t: zero elastic force, and the K part of A is Q K0 Q^T; the
 * linear element does give a force (so the check can fail). */
START_TEST(corotational_rigid_motion)
{
    mcb_rng r;
    mcb_rng_seed(&r, 31);
    mcb_fem_opts o = small_opts();
    mcb_fem *f = make(&o);
    int N = mcb_fem_nnodes(f), N3 = 3 * N;
    const double *X = mcb_fem_rest(f);
    double *x = mcb_fem_x(f);
    mcb_xform Q = random_xform(&r, 0.5);
    for (int n = 0; n < N; n++) mcb_xform_point(&Q, X + 3 * n, x + 3 * n);
    double h = 0.01;
    const double *b;
    mcb_csc *A = assemble_csc(f, h, 0, NULL, &b);
    mcb_csc *K = mcb_fem_stiffness(f), *M = mcb_fem_mass(f);
    double kmax = max_abs(K);
    double bmax = mcb_norm_inf(N3, b);
    ck_assert_msg(bmax < 1e-11 * h * kmax, "rigid motion: |b| = %g (h |K| = %g)", bmax, h * kmax);
    /* Q K0 Q^T = (A - M) / h^2 */
    int *ri = malloc(sizeof(int) * 9 * (size_t)N), *ci = malloc(sizeof(int) * 9 * (size_t)N);
    double *vx = malloc(sizeof(double) * 9 * (size_t)N);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < 9; k++) ri[9 * n + k] = 3 * n + k / 3, ci[9 * n + k] = 3 * n + k % 3, vx[9 * n + k] = Q.R[k];
    mcb_csc *Rg = mcb_csc_from_triplets(N3, N3, 9 * N, ri, ci, vx), *Rt = mcb_csc_transpose(Rg);
    mcb_csc *RK = mcb_csc_multiply(Rg, K), *RKR = mcb_csc_multiply(RK, Rt);
    double *e = calloc((size_t)N3, sizeof(double)), *y1 = calloc((size_t)N3, sizeof(double)),
           *y2 = calloc((size_t)N3, sizeof(double)), *y3 = calloc((size_t)N3, sizeof(double));
    double dmax = 0;
    for (int c = 0; c < N3; c++) {  /* column by column: A e_c - M e_c = h^2 RKR e_c */
        memset(y1, 0, sizeof(double) * (size_t)N3), memset(y2, 0, sizeof(double) * (size_t)N3);
        memset(y3, 0, sizeof(double) * (size_t)N3);
        e[c] = 1;
        mcb_csc_gaxpy(A, e, y1), mcb_csc_gaxpy(M, e, y2), mcb_csc_gaxpy(RKR, e, y3);
        e[c] = 0;
        for (int k = 0; k < N3; k++) dmax = fmax(dmax, fabs((y1[k] - y2[k]) / (h * h) - y3[k]));
    }
    ck_assert_msg(dmax < 1e-10 * kmax, "K(x) - Q K0 Q^T: %g (|K0| %g)", dmax, kmax);
    free(e), free(y1), free(y2), free(y3), free(ri), free(ci), free(vx);
    mcb_csc_free(&Rg), mcb_csc_free(&Rt), mcb_csc_free(&RK), mcb_csc_free(&RKR);
    mcb_csc_free(&A), mcb_csc_free(&K), mcb_csc_free(&M);
    mcb_fem_free(&f);
    /* the linear element under the same motion: a large spurious force */
    o.corotational = 0;
    f = make(&o);
    x = mcb_fem_x(f);
    X = mcb_fem_rest(f);
    for (int n = 0; n < N; n++) mcb_xform_point(&Q, X + 3 * n, x + 3 * n);
    A = assemble_csc(f, h, 0, NULL, &b);
    ck_assert(mcb_norm_inf(N3, b) > 1e-4 * h * kmax);
    mcb_csc_free(&A);
    mcb_fem_free(&f);
}
END_TEST

/* x = Q (S X) with S symmetric positive definite: every element's polar
 * rotation is Q, so the co-rotational right-hand side is Q times the linear
 * one at S X. */
START_TEST(corotational_rotated_stretch)
{
    mcb_rng r;
    mcb_rng_seed(&r, 8);
    mcb_fem_opts o = small_opts();
    o.pieces = 1;
    mcb_fem *fc = make(&o);
    o.corotational = 0;
    mcb_fem *fl = make(&o);
    int N = mcb_fem_nnodes(fc), N3 = 3 * N;
    const double *X = mcb_fem_rest(fc);
    double S[9] = {1.1, 0.05, -0.03, 0.05, 0.92, 0.04, -0.03, 0.04, 1.2};
    mcb_xform Q = random_xform(&r, 0);
    double *xc = mcb_fem_x(fc), *xl = mcb_fem_x(fl);
    for (int n = 0; n < N; n++) {
        mcb_m3_vec(S, X + 3 * n, xl + 3 * n);
        mcb_m3_vec(Q.R, xl + 3 * n, xc + 3 * n);
    }
    const double *bc, *bl;
    int nt;
    const int *ti, *tj;
    const double *tx;
    mcb_err err;
    ck_assert(mcb_fem_assemble(fc, 0.01, 0, NULL, &nt, &ti, &tj, &tx, &bc, &err) == MCB_OK);
    ck_assert(mcb_fem_assemble(fl, 0.01, 0, NULL, &nt, &ti, &tj, &tx, &bl, &err) == MCB_OK);
    double dmax = 0, scale = mcb_norm_inf(N3, bl);
    ck_assert(scale > 0);
    for (int n = 0; n < N; n++) {
        double y[3];
        mcb_m3_vec(Q.R, bl + 3 * n, y);
        for (int i = 0; i < 3; i++) dmax = fmax(dmax, fabs(bc[3 * n + i] - y[i]));
    }
    ck_assert_msg(dmax < 1e-10 * scale, "rotated stretch: %g (force %g)", dmax, scale);
    mcb_fem_free(&fc), mcb_fem_free(&fl);
}
END_TEST

/* A: symmetric, no entry between two pieces, the mass part sums to the
 * mass; buffers reused; b's gravity part. Both mass kinds. */
START_TEST(assemble_structure)
{
    for (int lumped = 0; lumped < 2; lumped++) {
        mcb_fem_opts o = small_opts();
        o.lumped = lumped;
        o.rayleigh_mass = 0.3, o.rayleigh_stiff = 0.002;
        mcb_fem *f = make(&o);
        int N = mcb_fem_nnodes(f), N3 = 3 * N;
        const int *ps = mcb_fem_piece_start(f);
        double *x = mcb_fem_x(f);
        mcb_rng r;
        mcb_rng_seed(&r, 3);
        for (int k = 0; k < N3; k++) x[k] += 1e-3 * mcb_rng_normal(&r);
        int nt;
        const int *ti, *tj, *ti2, *tj2;
        const double *tx, *b, *tx2, *b2;
        mcb_err err;
        double g[3] = {0, 0, -9.81}, h = 0.01;
        ck_assert(mcb_fem_assemble(f, h, 0.5, g, &nt, &ti, &tj, &tx, &b, &err) == MCB_OK);
        for (int k = 0; k < nt; k++) {
            int pi = 0, pj = 0;
            while (ti[k] / 3 >= ps[pi + 1]) pi++;
            while (tj[k] / 3 >= ps[pj + 1]) pj++;
            ck_assert_msg(pi == pj, "entry (%d, %d) couples pieces %d and %d", ti[k], tj[k], pi, pj);
        }
        mcb_csc *A = mcb_csc_from_triplets(N3, N3, nt, ti, tj, tx);
        ck_assert(mcb_csc_asymmetry(A) < 1e-13);
        mcb_chol *F = NULL;
        ck_assert_msg(mcb_chol_factor(A, &F, &err) == MCB_OK, "%s", err.msg);
        mcb_chol_free(&F);
        mcb_csc_free(&A);
        /* b at v = 0: sum of the z components = h m g (elastic forces sum to 0) */
        double bz = 0;
        for (int n = 0; n < N; n++) bz += b[3 * n + 2];
        double m = mcb_fem_total_mass(f);
        ck_assert_double_eq_tol(m, 1000 * 0.1 * 0.1 * 0.4, 1e-12 * m);
        ck_assert_double_eq_tol(bz, h * m * -9.81, 1e-9 * h * m * 9.81);
        /* the mass matrix: its entries sum to 3 m */
        mcb_csc *M = mcb_fem_mass(f);
        double s = 0;
        for (int k = 0; k < M->p[N3]; k++) s += M->x[k];
        ck_assert_double_eq_tol(s, 3 * m, 1e-12 * m);
        mcb_csc_free(&M);
        /* a second call reuses the buffers */
        ck_assert(mcb_fem_assemble(f, h, 0.5, g, &nt, &ti2, &tj2, &tx2, &b2, &err) == MCB_OK);
        ck_assert(ti2 == ti && tj2 == tj && tx2 == tx && b2 == b);
        /* bad arguments */
        ck_assert_int_eq(mcb_fem_assemble(f, 0, 0, g, &nt, &ti, &tj, &tx, &b, &err), MCB_E_INPUT);
        ck_assert_int_eq(mcb_fem_assemble(f, h, 1, g, &nt, &ti, &tj, &tx, &b, &err), MCB_E_INPUT);
        ck_assert_int_eq(mcb_fem_assemble(NULL, h, 0, g, &nt, &ti, &tj, &tx, &b, &err), MCB_E_INPUT);
        mcb_fem_free(&f);
    }
}
END_TEST

START_TEST(inverted_element)
{
    mcb_fem_opts o = small_opts();
    mcb_fem *f = make(&o);
    const int *T = mcb_fem_tets(f);
    double *x = mcb_fem_x(f);
    /* push node T[4*7+0] through the opposite face of tet 7 */
    const int *t = T + 4 * 7;
    double c[3];
    for (int i = 0; i < 3; i++) c[i] = (x[3 * t[1] + i] + x[3 * t[2] + i] + x[3 * t[3] + i]) / 3;
    for (int i = 0; i < 3; i++) x[3 * t[0] + i] = c[i] + 1.5 * (c[i] - x[3 * t[0] + i]);
    int nt;
    const int *ti, *tj;
    const double *tx, *b;
    mcb_err err;
    ck_assert_int_eq(mcb_fem_assemble(f, 0.01, 0, NULL, &nt, &ti, &tj, &tx, &b, &err), MCB_E_NUMERIC);
    ck_assert_msg(strstr(err.msg, "element") && strstr(err.msg, "inverted"), "%s", err.msg);
    mcb_fem_free(&f);
}
END_TEST

/* Free fall with the assembled step (theta 0, no contacts): every node
 * falls by g h^2 (1 + 2 + ... + n) after n steps, the mesh undeformed. */
START_TEST(free_fall)
{
    mcb_fem_opts o = small_opts();
    o.rayleigh_stiff = 0.01;
    mcb_fem *f = make(&o);
    int N = mcb_fem_nnodes(f), N3 = 3 * N;
    double g[3] = {0, 0, -9.81}, h = 0.01, *vh = malloc(sizeof(double) * (size_t)N3);
    int steps = 20;
    for (int s = 0; s < steps; s++) {
        const double *b;
        mcb_csc *A = assemble_csc(f, h, 0, g, &b);
        mcb_chol *F = NULL;
        mcb_err err;
        ck_assert(mcb_chol_factor(A, &F, &err) == MCB_OK);
        ck_assert(mcb_chol_solve(F, b, vh) == MCB_OK);
        mcb_fem_advance(f, vh, h, 0);
        mcb_chol_free(&F);
        mcb_csc_free(&A);
    }
    const double *X = mcb_fem_rest(f), *x = mcb_fem_x(f), *v = mcb_fem_v(f);
    double drop = 9.81 * h * h * steps * (steps + 1) / 2, emax = 0;
    for (int n = 0; n < N; n++) {
        emax = fmax(emax, fabs(x[3 * n] - X[3 * n]) + fabs(x[3 * n + 1] - X[3 * n + 1]));
        emax = fmax(emax, fabs(x[3 * n + 2] - X[3 * n + 2] + drop));
        emax = fmax(emax, fabs(v[3 * n + 2] + 9.81 * h * steps));
    }
    ck_assert_msg(emax < 1e-9 * drop, "free fall: error %g (drop %g)", emax, drop);
    free(vh);
    mcb_fem_free(&f);
}
END_TEST


/* ---- the internal elastic force (mcb_fem_elastic_force) ---------------- */

/* Known answers: a linear mesh displaced by a random u has the force K0 u
 * (the rest stiffness times u, 1e-10 relative); a co-rotational mesh moved
 * rigidly has none (1e-11 of |K| |x|); the returned value is the force's
 * Euclidean norm; an inverted element gives NaN. */
START_TEST(elastic_force_known_answers)
{
    mcb_rng r;
    mcb_rng_seed(&r, 57);
    mcb_fem_opts o = small_opts();
    o.corotational = 0;
    mcb_fem *f = make(&o);
    int N3 = 3 * mcb_fem_nnodes(f);
    const double *X = mcb_fem_rest(f);
    double *x = mcb_fem_x(f), *u = calloc((size_t)N3, sizeof(double)),
           *fe = calloc((size_t)N3, sizeof(double)), *ku = calloc((size_t)N3, sizeof(double));
    for (int k = 0; k < N3; k++) u[k] = 1e-3 * (2 * mcb_rng_uniform(&r) - 1), x[k] = X[k] + u[k];
    mcb_csc *K = mcb_fem_stiffness(f);
    mcb_csc_gaxpy(K, u, ku);
    double norm = mcb_fem_elastic_force(f, fe), dmax = 0, s = 0;
    for (int k = 0; k < N3; k++) dmax = fmax(dmax, fabs(fe[k] - ku[k])), s += ku[k] * ku[k];
    ck_assert_msg(dmax <= 1e-10 * mcb_norm_inf(N3, ku), "linear: |f - K u| = %g", dmax);
    ck_assert_double_eq_tol(norm, sqrt(s), 1e-10 * sqrt(s));
    ck_assert_double_gt(norm, 0);
    mcb_csc_free(&K);
    mcb_fem_free(&f);
    /* co-rotational, rigid motion: no force */
    o.corotational = 1;
    f = make(&o);
    X = mcb_fem_rest(f), x = mcb_fem_x(f);
    mcb_xform Q = random_xform(&r, 0.5);
    for (int n = 0; n < N3 / 3; n++) mcb_xform_point(&Q, X + 3 * n, x + 3 * n);
    K = mcb_fem_stiffness(f);
    norm = mcb_fem_elastic_force(f, fe);
    ck_assert_msg(norm < 1e-11 * max_abs(K), "rigid motion: |f| = %g", norm);
    /* an inverted element: NaN; NULL arguments: NaN */
    for (int n = 0; n < N3 / 3; n++) x[3 * n] = -X[3 * n]; /* mirrored: every element inverted */
    ck_assert(isnan(mcb_fem_elastic_force(f, fe)));
    ck_assert(isnan(mcb_fem_elastic_force(NULL, fe)));
    ck_assert(isnan(mcb_fem_elastic_force(f, NULL)));
    mcb_csc_free(&K);
    mcb_fem_free(&f);
    free(u), free(fe), free(ku);
}
END_TEST

/* ---- the beam scene ---------------------------------------------------- */

static mcb_problem_set *gen_beam(int argc, char **argv)
{
    const mcb_scene_def *def = mcb_scene_find("beam");
    ck_assert_msg(def != NULL, "scene beam is not registered");
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err = {{0}};
    ck_assert_msg(mcb_scene_parse(def, argc, argv, vals, &err) == MCB_OK, "%s", err.msg);
    mcb_problem_set *S = NULL;
    ck_assert_msg(def->generate(vals, NULL, &S, &err) == MCB_OK, "beam: %s", err.msg);
    return S;
}

static int same_csc(const mcb_csc *a, const mcb_csc *b)
{
    if (!a || !b) return a == b;
    int nz = a->p[a->n];
    return a->m == b->m && a->n == b->n && nz == b->p[b->n] &&
           !memcmp(a->p, b->p, sizeof(int) * (size_t)(a->n + 1)) &&
           !memcmp(a->i, b->i, sizeof(int) * (size_t)nz) && !memcmp(a->x, b->x, sizeof(double) * (size_t)nz);
}

/* 1 x 1 x 6 cells in 3 pieces, 3 steps: 36 nodes (12 per piece), DOF
 * 3 x 36 + 7, 4 subsystems (the arm, then the pieces), 2 x 4 tie joints and
 * 4 grip joints of 3 bilateral rows, every problem valid, the beam sags
 * onto the lower block by the last step, and a second generation is
 * bitwise identical. */
START_TEST(beam_scene_structure)
{
    char *argv[] = {"--cells", "1", "--length", "6", "--pieces", "3", "--steps", "3"};
    mcb_problem_set *S = gen_beam(8, argv), *S2 = gen_beam(8, argv);
    ck_assert_int_eq(S->count, 3);
    ck_assert_int_eq(S2->count, 3);
    static const int sub[5] = {0, 7, 43, 79, 115};
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k], *Q = S2->items[k];
        mcb_err err;
        ck_assert_msg(mcb_problem_validate(P, "beam", &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(P->n, 3 * 36 + 7);
        ck_assert_int_eq(P->nsub, 4);
        for (int s = 0; s <= 4; s++) ck_assert_int_eq(P->sub_start[s], sub[s]);
        ck_assert_int_eq(P->step, k);
        ck_assert_double_eq(P->h, 0.01);
        ck_assert_str_eq(P->source, "beam --cells 1 --length 6 --pieces 3 --steps 3 --speed 0.1");
        int bil = 0, con = 0;
        for (int b = 0; b < P->nblocks; b++) {
            if (P->blocks[b].type == MCB_BILATERAL) bil += P->blocks[b].nrows;
            else if (P->blocks[b].type == MCB_CONTACT) con++;
            else ck_abort_msg("block %d of type %d", b, P->blocks[b].type);
        }
        ck_assert_int_eq(bil, 3 * (2 * 4 + 4));
        ck_assert_int_eq(P->m, bil + 3 * con);
        if (k == S->count - 1) ck_assert_int_gt(con, 0);
        ck_assert_str_eq(P->name, Q->name);
        ck_assert(same_csc(P->A, Q->A) && same_csc(P->J, Q->J));
        ck_assert(!memcmp(P->b, Q->b, sizeof(double) * (size_t)P->n));
        ck_assert(!memcmp(P->e, Q->e, sizeof(double) * (size_t)P->m));
        ck_assert(!memcmp(P->v_ref, Q->v_ref, sizeof(double) * (size_t)P->n));
        ck_assert(!memcmp(P->lambda_ref, Q->lambda_ref, sizeof(double) * (size_t)P->m));
    }
    mcb_problem_set_free(&S), mcb_problem_set_free(&S2);
    /* more pieces than cells */
    const mcb_scene_def *def = mcb_scene_find("beam");
    double vals[MCB_SCENE_MAX_OPTS];
    char *bad[] = {"--length", "4", "--pieces", "5"};
    mcb_err err;
    ck_assert(mcb_scene_parse(def, 4, bad, vals, &err) == MCB_OK);
    ck_assert_int_eq(def->generate(vals, NULL, &S, &err), MCB_E_INPUT);
    ck_assert_ptr_null(S);
}
END_TEST

/* ---- the franka-mat scene (COND paper Sec. V-C3) ------------------------ */

static mcb_problem_set *gen_named(const char *name, int argc, char **argv)
{
    const mcb_scene_def *def = mcb_scene_find(name);
    ck_assert_msg(def != NULL, "scene %s is not registered", name);
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err = {{0}};
    ck_assert_msg(mcb_scene_parse(def, argc, argv, vals, &err) == MCB_OK, "%s", err.msg);
    mcb_problem_set *S = NULL;
    ck_assert_msg(def->generate(vals, NULL, &S, &err) == MCB_OK, "%s: %s", name, err.msg);
    return S;
}

/* --compliance r (COND's invertible contact model, Sec. III-E1): every
 * contact row of every recorded step carries r, the pinch's bilateral rows
 * none; the engine's own solve honoured it (its reference solution meets
 * the compliant law, natmap judged with r, and the impulses the model gives
 * from its velocity are its impulses: forward and inverse forces agree);
 * and compliant contacts let the mat sink where hard ones do not (J_n v + e
 * < 0 at some contact). A negative compliance is refused by the option's
 * range. On franka-mat and soft-ball alike. */
START_TEST(compliant_contacts_recorded)
{
    const char *scene = _i == 0 ? "franka-mat" : "soft-ball";
    char *mat[] = {"--cells-x", "4", "--cells-y", "4", "--steps", "3", "--compliance", "2"};
    char *ball[] = {"--cells", "3", "--steps", "3", "--compliance", "2"};
    mcb_problem_set *S = _i == 0 ? gen_named(scene, 8, mat) : gen_named(scene, 6, ball);
    int sank = 0;
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k];
        mcb_err err;
        ck_assert_msg(mcb_problem_validate(P, scene, &err) == MCB_OK, "%s", err.msg);
        ck_assert(P->r != NULL);
        int con = 0;
        for (int b = 0; b < P->nblocks; b++)
            for (int i = P->blocks[b].row; i < P->blocks[b].row + P->blocks[b].nrows; i++) {
                double want = P->blocks[b].type == MCB_CONTACT ? 2.0 : 0.0;
                ck_assert_msg(P->r[i] == want, "%s step %d row %d: r %g", scene, k, i, P->r[i]);
                con += P->blocks[b].type == MCB_CONTACT && i == P->blocks[b].row;
            }
        ck_assert_int_gt(con, 0);
        mcb_metrics_ws *ws = NULL;
        ck_assert_int_eq(mcb_metrics_ws_new(P, &ws, &err), MCB_OK);
        double nat = mcb_metrics_one(ws, MCB_M_NATMAP, P->v_ref, P->lambda_ref), f[2];
        ck_assert_msg(nat < 1e-6, "%s step %d: the reference's natmap %g", scene, k, nat);
        ck_assert_int_eq(mcb_metrics_contact_forces(ws, P->v_ref, P->lambda_ref, f), con);
        ck_assert_msg(f[0] > 0 && fabs(f[1] - f[0]) <= 1e-6 * f[0], "%s step %d: forward %g, inverse %g",
                      scene, k, f[0], f[1]);
        mcb_metrics_ws_free(&ws);
        /* the geometric normal velocity J_n v + e of a loaded contact */
        double *u = calloc((size_t)P->m, sizeof(double));
        memcpy(u, P->e, (size_t)P->m * sizeof(double));
        mcb_csc_gaxpy(P->J, P->v_ref, u);
        for (int b = 0; b < P->nblocks; b++)
            if (P->blocks[b].type == MCB_CONTACT && P->lambda_ref[P->blocks[b].row] > 0)
                sank |= u[P->blocks[b].row] < -1e-12;
        free(u);
    }
    ck_assert_msg(sank, "%s: no compliant contact sank", scene);
    mcb_problem_set_free(&S);
    const mcb_scene_def *def = mcb_scene_find(scene);
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err = {{0}};
    char *neg[] = {"--compliance", "-1"};
    ck_assert_int_ne(mcb_scene_parse(def, 2, neg, vals, &err), MCB_OK);
    ck_assert_msg(strstr(err.msg, "compliance"), "%s", err.msg);
}
END_TEST

/* 4 x 4 cells, 3 steps: (4 + 1)^2 x 2 = 50 nodes, DOF 3 x 50 + 7 = 157
 * (the paper's 1477 x 3 + 7 at its size), 2 subsystems (the arm, the
 * mat), the pinch: the far edge's 2 middle nodes (top and bottom, y = 0;
 * the next ones are 7.5 cm away) of 3 bilateral rows, the bottom layer's 25
 * nodes on the floor, every problem valid; the same seed gives a bitwise
 * identical recording, another seed another material (A differs) and the
 * notes name the draw. */
START_TEST(franka_mat_scene_structure)
{
    char *argv[] = {"--cells-x", "4", "--cells-y", "4", "--steps", "3"};
    mcb_problem_set *S = gen_named("franka-mat", 6, argv), *S2 = gen_named("franka-mat", 6, argv);
    char *argv3[] = {"--cells-x", "4", "--cells-y", "4", "--steps", "3", "--seed", "2"};
    mcb_problem_set *S3 = gen_named("franka-mat", 8, argv3);
    ck_assert_int_eq(S->count, 3);
    ck_assert_int_eq(S2->count, 3);
    for (int k = 0; k < S->count; k++) {
        const mcb_problem *P = S->items[k], *Q = S2->items[k];
        mcb_err err;
        ck_assert_msg(mcb_problem_validate(P, "franka-mat", &err) == MCB_OK, "%s", err.msg);
        ck_assert_int_eq(P->n, 3 * 50 + 7);
        ck_assert_int_eq(P->nsub, 2);
        ck_assert_int_eq(P->sub_start[1], 7);
        ck_assert_int_eq(P->step, k);
        ck_assert_double_eq(P->h, 0.01);
        ck_assert_str_eq(P->source,
                         "franka-mat --cells-x 4 --cells-y 4 --steps 3 --dt 0.01 --seed 1 --compliance 0");
        ck_assert(P->r == NULL); /* hard contacts by default */
        ck_assert_msg(strstr(P->notes, "COND paper Sec. V-C3") && strstr(P->notes, "(seed 1)"), "%s",
                      P->notes);
        int bil = 0, con = 0;
        for (int b = 0; b < P->nblocks; b++) {
            if (P->blocks[b].type == MCB_BILATERAL) bil += P->blocks[b].nrows;
            else if (P->blocks[b].type == MCB_CONTACT) con++;
            else ck_abort_msg("block %d of type %d", b, P->blocks[b].type);
        }
        ck_assert_int_eq(bil, 3 * 2);
        ck_assert_int_ge(con, 25);
        ck_assert_int_eq(P->m, bil + 3 * con);
        ck_assert_str_eq(P->name, Q->name);
        ck_assert(same_csc(P->A, Q->A) && same_csc(P->J, Q->J));
        ck_assert(!memcmp(P->b, Q->b, sizeof(double) * (size_t)P->n));
        ck_assert(!memcmp(P->e, Q->e, sizeof(double) * (size_t)P->m));
        ck_assert(!memcmp(P->v_ref, Q->v_ref, sizeof(double) * (size_t)P->n));
        ck_assert(!memcmp(P->lambda_ref, Q->lambda_ref, sizeof(double) * (size_t)P->m));
        ck_assert(!same_csc(P->A, S3->items[k]->A)); /* another E, nu */
    }
    mcb_problem_set_free(&S), mcb_problem_set_free(&S2), mcb_problem_set_free(&S3);
    /* the published size: 26 x 26 cells, counted by the mesher alone */
    mcb_fem_opts o;
    mcb_fem_defaults(&o);
    o.size[0] = o.size[1] = 0.3, o.size[2] = 0.01;
    o.cells[0] = o.cells[1] = 26, o.cells[2] = 1;
    mcb_fem *f = make(&o);
    ck_assert_int_eq(mcb_fem_nnodes(f), 1458);
    ck_assert_int_eq(mcb_fem_ntets(f), 4056);
    mcb_fem_free(&f);
    /* bad options */
    const mcb_scene_def *def = mcb_scene_find("franka-mat");
    double vals[MCB_SCENE_MAX_OPTS];
    mcb_err err;
    char *bad[] = {"--cells-x", "0"};
    ck_assert_int_eq(mcb_scene_parse(def, 2, bad, vals, &err), MCB_E_INPUT);
    char *bad2[] = {"--dt", "0.5"};
    ck_assert_int_eq(mcb_scene_parse(def, 2, bad2, vals, &err), MCB_E_INPUT);
    ck_assert_int_eq(mcb_scene_franka_mat(NULL, NULL, &S, &err), MCB_E_INPUT);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("scene_fem");
    TCase *tc = tcase_create("fem");
    tcase_add_test(tc, mesher_counts_volumes_ties_surface);
    tcase_add_test(tc, mesher_conforming);
    tcase_add_test(tc, ball_mesher);
    tcase_add_test(tc, bad_options);
    tcase_add_test(tc, patch_test);
    tcase_add_test(tc, stiffness_null_space);
    tcase_add_test(tc, cantilever_euler_bernoulli);
    tcase_add_test(tc, corotational_rigid_motion);
    tcase_add_test(tc, corotational_rotated_stretch);
    tcase_add_test(tc, assemble_structure);
    tcase_add_test(tc, inverted_element);
    tcase_add_test(tc, free_fall);
    tcase_add_test(tc, beam_scene_structure);
    tcase_add_test(tc, elastic_force_known_answers);
    tcase_add_test(tc, franka_mat_scene_structure);
    tcase_add_loop_test(tc, compliant_contacts_recorded, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return mcb_run_suite(suite()); }

/* fem.c: tetrahedral finite elements for the scene engine (fem.h; the
 * equations in docs/fem.md).
 *
 * What it does:
 *   1. meshes a box of cells[0] x cells[1] x cells[2] cubes, each cube split
 *      into 6 tetrahedra along its main diagonal (the Kuhn / Freudenthal
 *      split: every cube uses the same diagonal, so the mesh is conforming),
 *      in pieces along the longest axis; the nodes of a cut are duplicated
 *      (one copy per piece) and listed as ties; nodes are numbered piece by
 *      piece;
 *   2. per element, the rest data: Dm^-1 (Dm = [X1-X0, X2-X0, X3-X0]), the
 *      volume and the 12x12 stiffness K0 = B^T C B V of a constant-strain
 *      tetrahedron (isotropic E, nu);
 *   3. per step (mcb_fem_assemble): the element rotation R from the polar
 *      decomposition of F = Ds Dm^-1 (scaled Newton iteration
 *      R <- (g R + R^-T / g) / 2), K_e(x) = R K0 R^T and the elastic force
 *      R K0 (R^T x - X), and the triplets of
 *          A = M / (1 - theta) + h (a M + b K(x)) + h^2 K(x)
 *          b = M v / (1 - theta) + h (M g - f_elastic(x)).
 *
 * Failures: bad options give MCB_E_INPUT naming the option, an inverted
 * element MCB_E_NUMERIC naming it, an allocation MCB_E_NOMEM; nothing is
 * left allocated on failure. Allocation: mcb_fem_box allocates the mesh and
 * the element data; mcb_fem_assemble allocates its triplet and right-hand
 * side buffers on its first call only. Every loop runs in a fixed order, so
 * results are bitwise reproducible. */
#include "problems/scene/fem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct mcb_fem {
    mcb_fem_opts o;
    int axis;            /* the long axis (pieces are cut across it) */
    int ax1, ax2;        /* the two other axes, increasing */
    int nnodes, ntets, npieces;
    int *piece_start;    /* npieces + 1 */
    int *piece_cell0;    /* npieces + 1: first cell (long axis) of each piece */
    int *tets;           /* 4 per tet */
    int *gidx;           /* 3 per node: grid indices (box axes 0, 1, 2) */
    double *rest;        /* 3 per node, world */
    double *rest_box;    /* 3 per node, box frame (centred) */
    double *x, *v;       /* 3 per node */
    double *node_mass;   /* per node (row sum) */
    double total_mass;
    int *ties, nties;
    int *surface, nsurface;
    double *vol;         /* per tet (rest) */
    double *dminv;       /* 9 per tet, row-major */
    double *k0;          /* 144 per tet, row-major 12x12 */
    double *rot;         /* 9 per tet: the last rotation */
    /* assemble buffers (first call) */
    int ntri;
    int *ti, *tj;
    double *tx, *b;
};

/* ---------- small dense helpers ----------------------------------------- */

static double det3(const double A[9])
{
    return A[0] * (A[4] * A[8] - A[5] * A[7]) - A[1] * (A[3] * A[8] - A[5] * A[6]) +
           A[2] * (A[3] * A[7] - A[4] * A[6]);
}

/* Ainv = A^-1 given d = det(A) != 0. */
static void inv3(const double A[9], double d, double Ainv[9])
{
    Ainv[0] = (A[4] * A[8] - A[5] * A[7]) / d;
    Ainv[1] = (A[2] * A[7] - A[1] * A[8]) / d;
    Ainv[2] = (A[1] * A[5] - A[2] * A[4]) / d;
    Ainv[3] = (A[5] * A[6] - A[3] * A[8]) / d;
    Ainv[4] = (A[0] * A[8] - A[2] * A[6]) / d;
    Ainv[5] = (A[2] * A[3] - A[0] * A[5]) / d;
    Ainv[6] = (A[3] * A[7] - A[4] * A[6]) / d;
    Ainv[7] = (A[1] * A[6] - A[0] * A[7]) / d;
    Ainv[8] = (A[0] * A[4] - A[1] * A[3]) / d;
}

static double frob3(const double A[9])
{
    double s = 0;
    for (int k = 0; k < 9; k++) s += A[k] * A[k];
    return sqrt(s);
}

/* The edge matrix [p1-p0, p2-p0, p3-p0] (columns) of tet t at positions p. */
static void edge_matrix(const int *tet, const double *p, double D[9])
{
    const double *p0 = p + 3 * tet[0];
    for (int c = 0; c < 3; c++) {
        const double *pc = p + 3 * tet[c + 1];
        for (int r = 0; r < 3; r++) D[3 * r + c] = pc[r] - p0[r];
    }
}

/* The rotation R of the polar decomposition F = R S (det F > 0): the
 * scaled Newton iteration R <- (g R + R^-T / g) / 2 with Higham's
 * Frobenius scaling g = sqrt(|R^-1| / |R|), unscaled once close. Returns 0,
 * or -1 when an iterate becomes singular (det F <= 0 is checked before). */
static int polar_rotation(const double F[9], double R[9])
{
    double X[9], Xi[9];
    memcpy(X, F, sizeof X);
    double change = 1;
    for (int it = 0; it < 60 && change > 1e-15; it++) {
        double d = det3(X);
        if (!(fabs(d) > 0) || !isfinite(d)) return -1;
        inv3(X, d, Xi);
        double g = change > 1e-3 ? sqrt(frob3(Xi) / frob3(X)) : 1.0;
        change = 0;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                double y = 0.5 * (g * X[3 * r + c] + Xi[3 * c + r] / g);
                double dlt = y - X[3 * r + c];
                change += dlt * dlt;
                X[3 * r + c] = y;
            }
        change = sqrt(change);
    }
    memcpy(R, X, sizeof X);
    return 0;
}

/* ---------- options ------------------------------------------------------ */

void mcb_fem_defaults(mcb_fem_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->size[0] = o->size[1] = o->size[2] = 1.0;
    o->pose = mcb_xform_identity();
    o->cells[0] = o->cells[1] = o->cells[2] = 2;
    o->pieces = 1;
    o->young_pa = 1e6;
    o->poisson = 0.3;
    o->density = 1000;
    o->rayleigh_mass = 0;
    o->rayleigh_stiff = 0;
    o->lumped = 0;
    o->corotational = 1;
}

static int longest_axis(const double s[3])
{
    int a = 0;
    for (int k = 1; k < 3; k++)
        if (s[k] > s[a]) a = k;
    return a;
}

static mcb_rc check_opts(const mcb_fem_opts *o, mcb_err *err)
{
    for (int k = 0; k < 3; k++) {
        if (!(isfinite(o->size[k]) && o->size[k] > 0))
            return mcb_fail(err, MCB_E_INPUT, "fem: size[%d] = %g must be finite and > 0", k, o->size[k]);
        if (o->cells[k] < 1 || o->cells[k] > 100000)
            return mcb_fail(err, MCB_E_INPUT, "fem: cells[%d] = %d must be in [1, 100000]", k, o->cells[k]);
    }
    long long nc = (long long)o->cells[0] * o->cells[1] * o->cells[2];
    if (nc * 6 * 144 > 2000000000LL)
        return mcb_fail(err, MCB_E_INPUT, "fem: cells %d x %d x %d is too many (6 x 144 x cells triplets must fit an int)",
                        o->cells[0], o->cells[1], o->cells[2]);
    int ax = longest_axis(o->size);
    if (o->pieces < 1 || o->pieces > o->cells[ax])
        return mcb_fail(err, MCB_E_INPUT, "fem: pieces = %d must be in [1, cells[%d] = %d] (one cell per piece at least)",
                        o->pieces, ax, o->cells[ax]);
    if (!(isfinite(o->young_pa) && o->young_pa > 0))
        return mcb_fail(err, MCB_E_INPUT, "fem: young_pa = %g must be finite and > 0", o->young_pa);
    if (!(o->poisson >= 0 && o->poisson < 0.5))
        return mcb_fail(err, MCB_E_INPUT, "fem: poisson = %g must be in [0, 0.5)", o->poisson);
    if (!(isfinite(o->density) && o->density > 0))
        return mcb_fail(err, MCB_E_INPUT, "fem: density = %g must be finite and > 0", o->density);
    if (!(isfinite(o->rayleigh_mass) && o->rayleigh_mass >= 0))
        return mcb_fail(err, MCB_E_INPUT, "fem: rayleigh_mass = %g must be finite and >= 0", o->rayleigh_mass);
    if (!(isfinite(o->rayleigh_stiff) && o->rayleigh_stiff >= 0))
        return mcb_fail(err, MCB_E_INPUT, "fem: rayleigh_stiff = %g must be finite and >= 0", o->rayleigh_stiff);
    for (int k = 0; k < 3; k++)
        if (!isfinite(o->pose.p[k])) return mcb_fail(err, MCB_E_INPUT, "fem: pose.p[%d] is not finite", k);
    double RtR[9];
    mcb_m3_mul_t(o->pose.R, o->pose.R, RtR);
    for (int k = 0; k < 9; k++)
        if (!(fabs(RtR[k] - (k % 4 == 0)) < 1e-9))
            return mcb_fail(err, MCB_E_INPUT, "fem: pose.R is not a rotation (R^T R != I)");
    if (!(det3(o->pose.R) > 0)) return mcb_fail(err, MCB_E_INPUT, "fem: pose.R is a reflection (det < 0)");
    return MCB_OK;
}

/* ---------- mesher ------------------------------------------------------- */

/* Node index of grid point (i0, i1, i2) (box axes) in piece p: nodes of a
 * piece are numbered with the long-axis index slowest. */
static int node_of(const mcb_fem *f, int p, const int g[3])
{
    const int *c = f->o.cells;
    int a = g[f->axis] - f->piece_cell0[p];
    int n1 = c[f->ax1] + 1, n2 = c[f->ax2] + 1;
    return f->piece_start[p] + (a * n1 + g[f->ax1]) * n2 + g[f->ax2];
}

static mcb_rc alloc_mesh(mcb_fem *f)
{
    const int *c = f->o.cells;
    int P = f->npieces, n1 = c[f->ax1] + 1, n2 = c[f->ax2] + 1;
    f->piece_start = mcb_calloc((size_t)P + 1, sizeof(int));
    f->piece_cell0 = mcb_calloc((size_t)P + 1, sizeof(int));
    if (!f->piece_start || !f->piece_cell0) return MCB_E_NOMEM;
    for (int p = 0; p <= P; p++) f->piece_cell0[p] = (int)((long long)p * c[f->axis] / P);
    for (int p = 0; p < P; p++)
        f->piece_start[p + 1] = f->piece_start[p] + (f->piece_cell0[p + 1] - f->piece_cell0[p] + 1) * n1 * n2;
    f->nnodes = f->piece_start[P];
    f->ntets = 6 * c[0] * c[1] * c[2];
    f->nties = (P - 1) * n1 * n2;
    size_t N = (size_t)f->nnodes, T = (size_t)f->ntets;
    f->tets = mcb_malloc(4 * T, sizeof(int));
    f->gidx = mcb_malloc(3 * N, sizeof(int));
    f->rest = mcb_malloc(3 * N, sizeof(double));
    f->rest_box = mcb_malloc(3 * N, sizeof(double));
    f->x = mcb_malloc(3 * N, sizeof(double));
    f->v = mcb_calloc(3 * N, sizeof(double));
    f->node_mass = mcb_calloc(N, sizeof(double));
    f->ties = mcb_malloc(2 * (size_t)f->nties + 1, sizeof(int));
    f->surface = mcb_malloc(N, sizeof(int));
    f->vol = mcb_malloc(T, sizeof(double));
    f->dminv = mcb_malloc(9 * T, sizeof(double));
    f->k0 = mcb_malloc(144 * T, sizeof(double));
    f->rot = mcb_malloc(9 * T, sizeof(double));
    if (!f->tets || !f->gidx || !f->rest || !f->rest_box || !f->x || !f->v || !f->node_mass ||
        !f->ties || !f->surface || !f->vol || !f->dminv || !f->k0 || !f->rot)
        return MCB_E_NOMEM;
    return MCB_OK;
}

/* Rest positions (box frame from the integer grid index, then world),
 * surface list and ties. */
static void mesh_nodes(mcb_fem *f)
{
    const int *c = f->o.cells;
    const double *s = f->o.size;
    f->nsurface = 0;
    for (int p = 0; p < f->npieces; p++)
        for (int a = f->piece_cell0[p]; a <= f->piece_cell0[p + 1]; a++)
            for (int i1 = 0; i1 <= c[f->ax1]; i1++)
                for (int i2 = 0; i2 <= c[f->ax2]; i2++) {
                    int g[3];
                    g[f->axis] = a, g[f->ax1] = i1, g[f->ax2] = i2;
                    int n = node_of(f, p, g), on = 0;
                    for (int k = 0; k < 3; k++) {
                        f->gidx[3 * n + k] = g[k];
                        f->rest_box[3 * n + k] = g[k] == c[k] ? 0.5 * s[k] : -0.5 * s[k] + s[k] * g[k] / c[k];
                        on |= g[k] == 0 || g[k] == c[k];
                    }
                    mcb_xform_point(&f->o.pose, f->rest_box + 3 * n, f->rest + 3 * n);
                    if (on) f->surface[f->nsurface++] = n;
                }
    int t = 0;
    for (int p = 1; p < f->npieces; p++)
        for (int i1 = 0; i1 <= c[f->ax1]; i1++)
            for (int i2 = 0; i2 <= c[f->ax2]; i2++) {
                int g[3];
                g[f->axis] = f->piece_cell0[p], g[f->ax1] = i1, g[f->ax2] = i2;
                f->ties[2 * t] = node_of(f, p - 1, g);
                f->ties[2 * t + 1] = node_of(f, p, g);
                t++;
            }
}

/* The 6 Kuhn tetrahedra of each cell: for each ordering (a, b, c) of the
 * axes, the path 000 -> e_a -> e_a + e_b -> 111; orientation fixed to a
 * positive rest volume. */
static void mesh_tets(mcb_fem *f)
{
    static const int perm[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    const int *c = f->o.cells;
    int t = 0;
    for (int p = 0; p < f->npieces; p++)
        for (int a = f->piece_cell0[p]; a < f->piece_cell0[p + 1]; a++)
            for (int i1 = 0; i1 < c[f->ax1]; i1++)
                for (int i2 = 0; i2 < c[f->ax2]; i2++) {
                    int g0[3];
                    g0[f->axis] = a, g0[f->ax1] = i1, g0[f->ax2] = i2;
                    for (int k = 0; k < 6; k++) {
                        int g[3] = {g0[0], g0[1], g0[2]};
                        int *tet = f->tets + 4 * t;
                        tet[0] = node_of(f, p, g);
                        for (int s = 0; s < 3; s++) {
                            g[perm[k][s]]++;
                            tet[s + 1] = node_of(f, p, g);
                        }
                        double D[9];
                        edge_matrix(tet, f->rest_box, D);
                        if (det3(D) < 0) {
                            int tmp = tet[2];
                            tet[2] = tet[3], tet[3] = tmp;
                        }
                        t++;
                    }
                }
}

/* Rest data of every element: Dm^-1, volume, K0, lumped node masses. */
static void element_rest_data(mcb_fem *f)
{
    double E = f->o.young_pa, nu = f->o.poisson;
    double lam = E * nu / ((1 + nu) * (1 - 2 * nu)), mu = E / (2 * (1 + nu));
    f->total_mass = 0;
    for (int t = 0; t < f->ntets; t++) {
        const int *tet = f->tets + 4 * t;
        double Dm[9], *Di = f->dminv + 9 * t, *K = f->k0 + 144 * t;
        edge_matrix(tet, f->rest, Dm);
        double d = det3(Dm);
        inv3(Dm, d, Di);
        double V = d / 6;
        f->vol[t] = V;
        /* gradients of the shape functions: rows of Dm^-1, and minus their sum */
        double g[4][3];
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) g[k + 1][j] = Di[3 * k + j];
        for (int j = 0; j < 3; j++) g[0][j] = -(g[1][j] + g[2][j] + g[3][j]);
        /* K_ab,ij = V (lam g_a,i g_b,j + mu g_a,j g_b,i + mu delta_ij g_a . g_b) */
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                double gg = g[a][0] * g[b][0] + g[a][1] * g[b][1] + g[a][2] * g[b][2];
                for (int i = 0; i < 3; i++)
                    for (int j = 0; j < 3; j++)
                        K[(3 * a + i) * 12 + 3 * b + j] =
                            V * (lam * g[a][i] * g[b][j] + mu * g[a][j] * g[b][i] + (i == j ? mu * gg : 0));
            }
        double m4 = f->o.density * V / 4;
        for (int a = 0; a < 4; a++) f->node_mass[tet[a]] += m4;
        f->total_mass += 4 * m4;
        static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(f->rot + 9 * t, I, sizeof I);
    }
}

mcb_rc mcb_fem_box(const mcb_fem_opts *o, mcb_fem **out, mcb_err *err)
{
    if (out) *out = NULL;
    if (!o || !out) return mcb_fail(err, MCB_E_INPUT, "fem: NULL options or output");
    mcb_rc rc = check_opts(o, err);
    if (rc) return rc;
    mcb_fem *f = mcb_calloc(1, sizeof *f);
    if (!f) return mcb_fail(err, MCB_E_NOMEM, "fem: out of memory");
    f->o = *o;
    f->axis = longest_axis(o->size);
    f->ax1 = f->axis == 0 ? 1 : 0;
    f->ax2 = f->axis == 2 ? 1 : 2;
    f->npieces = o->pieces;
    if (alloc_mesh(f)) {
        mcb_fem_free(&f);
        return mcb_fail(err, MCB_E_NOMEM, "fem: out of memory meshing %d x %d x %d cells", o->cells[0],
                        o->cells[1], o->cells[2]);
    }
    mesh_nodes(f);
    mesh_tets(f);
    element_rest_data(f);
    memcpy(f->x, f->rest, 3 * (size_t)f->nnodes * sizeof(double));
    *out = f;
    return MCB_OK;
}

/* ---------- the ball mesher (docs/fem.md, "The ball") -------------------- */

static int cmp_face(const void *a, const void *b)
{
    const int *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;
    return 0;
}

/* Keeps the tets of f whose rest centroid lies inside the ball of radius r
 * (box frame) and the nodes they use, renumbered in their old order. */
static mcb_rc ball_keep(mcb_fem *f, double r)
{
    int N = f->nnodes, *map = mcb_malloc((size_t)N, sizeof(int));
    if (!map) return MCB_E_NOMEM;
    for (int n = 0; n < N; n++) map[n] = -1;
    int T = 0;
    for (int t = 0; t < f->ntets; t++) {
        const int *tet = f->tets + 4 * t;
        double c[3] = {0, 0, 0};
        for (int a = 0; a < 4; a++)
            for (int i = 0; i < 3; i++) c[i] += 0.25 * f->rest_box[3 * tet[a] + i];
        if (c[0] * c[0] + c[1] * c[1] + c[2] * c[2] >= r * r) continue;
        for (int a = 0; a < 4; a++) {
            f->tets[4 * T + a] = tet[a];
            map[tet[a]] = 0;
        }
        T++;
    }
    int M = 0;
    for (int n = 0; n < N; n++) {
        if (map[n] < 0) continue;
        map[n] = M;
        for (int i = 0; i < 3; i++) {
            f->rest_box[3 * M + i] = f->rest_box[3 * n + i];
            f->gidx[3 * M + i] = f->gidx[3 * n + i];
        }
        M++;
    }
    for (int k = 0; k < 4 * T; k++) f->tets[k] = map[f->tets[k]];
    free(map);
    f->ntets = T, f->nnodes = M;
    f->piece_start[1] = M;
    return MCB_OK;
}

/* The surface: the nodes of the faces that belong to one tet only, in
 * increasing order. */
static mcb_rc ball_surface(mcb_fem *f)
{
    size_t F = 4 * (size_t)f->ntets;
    int *face = mcb_malloc(3 * F, sizeof(int)), *on = mcb_calloc((size_t)f->nnodes, sizeof(int));
    if (!face || !on) {
        free(face), free(on);
        return MCB_E_NOMEM;
    }
    for (int t = 0; t < f->ntets; t++)
        for (int k = 0; k < 4; k++) {
            int *q = face + 3 * (4 * (size_t)t + (size_t)k), m = 0;
            for (int a = 0; a < 4; a++)
                if (a != k) q[m++] = f->tets[4 * t + a];
            for (int i = 0; i < 3; i++) /* sort the 3 */
                for (int j = i + 1; j < 3; j++)
                    if (q[j] < q[i]) {
                        int tmp = q[i];
                        q[i] = q[j], q[j] = tmp;
                    }
        }
    qsort(face, F, 3 * sizeof(int), cmp_face);
    for (size_t a = 0; a < F;) {
        size_t b = a + 1;
        while (b < F && !cmp_face(face + 3 * a, face + 3 * b)) b++;
        if (b - a == 1)
            for (int i = 0; i < 3; i++) on[face[3 * a + i]] = 1;
        a = b;
    }
    f->nsurface = 0;
    for (int n = 0; n < f->nnodes; n++)
        if (on[n]) f->surface[f->nsurface++] = n;
    free(face), free(on);
    return MCB_OK;
}

/* Moves each surface node (in order) radially onto the sphere of radius r,
 * or the largest of 3/4, 1/2, 1/4, 1/8 of the way that keeps every tet
 * around it at least BALL_MIN_VOL of its grid volume v6 (= cell / 6); not
 * moving keeps the grid's positive tet. BALL_SNAP_PASSES passes over the surface
 * (a node held back may go once its neighbours have moved). */
#define BALL_SNAP_PASSES 8
#define BALL_MIN_VOL 0.1
static mcb_rc ball_snap(mcb_fem *f, double r, double v6)
{
    int N = f->nnodes, T = f->ntets;
    int *start = mcb_calloc((size_t)N + 1, sizeof(int)), *inc = mcb_malloc(4 * (size_t)T, sizeof(int));
    int *fill = mcb_calloc((size_t)N, sizeof(int));
    if (!start || !inc || !fill) {
        free(start), free(inc), free(fill);
        return MCB_E_NOMEM;
    }
    for (int k = 0; k < 4 * T; k++) start[f->tets[k] + 1]++;
    for (int n = 0; n < N; n++) start[n + 1] += start[n];
    for (int t = 0; t < T; t++)
        for (int a = 0; a < 4; a++) {
            int n = f->tets[4 * t + a];
            inc[start[n] + fill[n]++] = t;
        }
    static const double frac[5] = {1.0, 0.75, 0.5, 0.25, 0.125};
    for (int pass = 0; pass < BALL_SNAP_PASSES; pass++)
    for (int s = 0; s < f->nsurface; s++) {
        int n = f->surface[s];
        double *p = f->rest_box + 3 * n, keep[3] = {p[0], p[1], p[2]};
        double d = sqrt(keep[0] * keep[0] + keep[1] * keep[1] + keep[2] * keep[2]);
        if (!(d > 0) || fabs(d - r) <= 1e-12 * r) continue;
        for (int k = 0; k < 5; k++) {
            for (int i = 0; i < 3; i++) p[i] = keep[i] + frac[k] * (r / d - 1) * keep[i];
            int ok = 1;
            for (int j = start[n]; j < start[n + 1] && ok; j++) {
                double D[9];
                edge_matrix(f->tets + 4 * inc[j], f->rest_box, D);
                ok = det3(D) / 6 >= BALL_MIN_VOL * v6;
            }
            if (ok) break;
            memcpy(p, keep, sizeof keep);
        }
    }
    free(start), free(inc), free(fill);
    return MCB_OK;
}

mcb_rc mcb_fem_ball(const mcb_fem_opts *o, mcb_fem **out, mcb_err *err)
{
    if (out) *out = NULL;
    if (!o || !out) return mcb_fail(err, MCB_E_INPUT, "fem: NULL options or output");
    if (o->pieces != 1) return mcb_fail(err, MCB_E_INPUT, "fem: a ball is one piece (pieces = %d)", o->pieces);
    if (o->cells[0] < 2) return mcb_fail(err, MCB_E_INPUT, "fem: a ball needs cells[0] >= 2 (got %d)", o->cells[0]);
    mcb_fem_opts b = *o; /* the grid: a cube of side = the diameter, centred */
    b.size[1] = b.size[2] = b.size[0];
    b.cells[1] = b.cells[2] = b.cells[0];
    mcb_rc rc = check_opts(&b, err); /* with the ball's pose */
    if (rc) return rc;
    b.pose = mcb_xform_identity();
    mcb_fem *f = NULL;
    rc = mcb_fem_box(&b, &f, err);
    if (rc) return rc;
    double r = 0.5 * o->size[0], hc = o->size[0] / o->cells[0];
    f->o.pose = o->pose;
    if (ball_keep(f, r) || ball_surface(f) || ball_snap(f, r, hc * hc * hc / 6)) {
        mcb_fem_free(&f);
        return mcb_fail(err, MCB_E_NOMEM, "fem: out of memory meshing a ball of %d cells", o->cells[0]);
    }
    for (int n = 0; n < f->nnodes; n++) mcb_xform_point(&o->pose, f->rest_box + 3 * n, f->rest + 3 * n);
    memset(f->node_mass, 0, (size_t)f->nnodes * sizeof(double));
    element_rest_data(f);
    memcpy(f->x, f->rest, 3 * (size_t)f->nnodes * sizeof(double));
    memset(f->v, 0, 3 * (size_t)f->nnodes * sizeof(double));
    *out = f;
    return MCB_OK;
}

void mcb_fem_free(mcb_fem **fp)
{
    if (!fp || !*fp) return;
    mcb_fem *f = *fp;
    free(f->piece_start), free(f->piece_cell0), free(f->tets), free(f->gidx);
    free(f->rest), free(f->rest_box), free(f->x), free(f->v), free(f->node_mass);
    free(f->ties), free(f->surface), free(f->vol), free(f->dminv), free(f->k0), free(f->rot);
    free(f->ti), free(f->tj), free(f->tx), free(f->b);
    free(f);
    *fp = NULL;
}

/* ---------- accessors ---------------------------------------------------- */

int mcb_fem_nnodes(const mcb_fem *f) { return f ? f->nnodes : 0; }
int mcb_fem_ntets(const mcb_fem *f) { return f ? f->ntets : 0; }
int mcb_fem_npieces(const mcb_fem *f) { return f ? f->npieces : 0; }
const int *mcb_fem_piece_start(const mcb_fem *f) { return f ? f->piece_start : NULL; }
const int *mcb_fem_tets(const mcb_fem *f) { return f ? f->tets : NULL; }
const double *mcb_fem_rest(const mcb_fem *f) { return f ? f->rest : NULL; }
double *mcb_fem_x(mcb_fem *f) { return f ? f->x : NULL; }
double *mcb_fem_v(mcb_fem *f) { return f ? f->v : NULL; }
const double *mcb_fem_node_mass(const mcb_fem *f) { return f ? f->node_mass : NULL; }
double mcb_fem_total_mass(const mcb_fem *f) { return f ? f->total_mass : 0; }

const int *mcb_fem_ties(const mcb_fem *f, int *count)
{
    if (count) *count = f ? f->nties : 0;
    return f ? f->ties : NULL;
}

const int *mcb_fem_surface(const mcb_fem *f, int *count)
{
    if (count) *count = f ? f->nsurface : 0;
    return f ? f->surface : NULL;
}

int mcb_fem_nodes_at(const mcb_fem *f, int axis, double value, double tol, int *idx, int cap)
{
    if (!f || axis < 0 || axis > 2) return 0;
    int m = 0;
    for (int n = 0; n < f->nnodes; n++)
        if (fabs(f->rest_box[3 * n + axis] - value) <= tol) {
            if (idx && m < cap) idx[m] = n;
            m++;
        }
    return m;
}

/* ---------- matrices at rest --------------------------------------------- */

/* Consistent element mass between nodes a and b (times I3). */
static double cmass(const mcb_fem *f, int t, int a, int b)
{
    return f->o.density * f->vol[t] / 20 * (a == b ? 2 : 1);
}

/* Triplets of K0 (with_k) and/or M (with_m) into a CSC. */
static mcb_csc *rest_matrix(const mcb_fem *f, int with_k, int with_m)
{
    if (!f) return NULL;
    int N3 = 3 * f->nnodes;
    size_t cap = (size_t)144 * f->ntets + (size_t)N3;
    int *ri = mcb_malloc(cap, sizeof(int)), *ci = mcb_malloc(cap, sizeof(int));
    double *vx = mcb_malloc(cap, sizeof(double));
    mcb_csc *A = NULL;
    if (ri && ci && vx) {
        int nz = 0;
        for (int t = 0; t < f->ntets; t++) {
            const int *tet = f->tets + 4 * t;
            const double *K = f->k0 + 144 * t;
            for (int a = 0; a < 4; a++)
                for (int i = 0; i < 3; i++)
                    for (int b = 0; b < 4; b++)
                        for (int j = 0; j < 3; j++) {
                            double val = with_k ? K[(3 * a + i) * 12 + 3 * b + j] : 0;
                            if (with_m && !f->o.lumped && i == j) val += cmass(f, t, a, b);
                            if (!with_k && (f->o.lumped || i != j)) continue;
                            ri[nz] = 3 * tet[a] + i, ci[nz] = 3 * tet[b] + j, vx[nz] = val;
                            nz++;
                        }
        }
        if (with_m && f->o.lumped)
            for (int k = 0; k < N3; k++) ri[nz] = ci[nz] = k, vx[nz++] = f->node_mass[k / 3];
        A = mcb_csc_from_triplets(N3, N3, nz, ri, ci, vx);
    }
    free(ri), free(ci), free(vx);
    return A;
}

mcb_csc *mcb_fem_stiffness(const mcb_fem *f) { return rest_matrix(f, 1, 0); }
mcb_csc *mcb_fem_mass(const mcb_fem *f) { return rest_matrix(f, 0, 1); }

/* ---------- the step's contribution -------------------------------------- */

/* Element t at the current x: rotation (identity when linear) into
 * f->rot; fails when the deformed volume is not positive. */
static mcb_rc element_rotation(mcb_fem *f, int t, mcb_err *err)
{
    double Ds[9], F[9];
    edge_matrix(f->tets + 4 * t, f->x, Ds);
    double d = det3(Ds);
    if (!(d > 0))
        return mcb_fail(err, MCB_E_NUMERIC,
                        "fem: element %d (nodes %d %d %d %d) is inverted: deformed volume %g m^3 (rest %g)", t,
                        f->tets[4 * t], f->tets[4 * t + 1], f->tets[4 * t + 2], f->tets[4 * t + 3], d / 6,
                        f->vol[t]);
    if (!f->o.corotational) return MCB_OK;
    mcb_m3_mul(Ds, f->dminv + 9 * t, F);
    if (polar_rotation(F, f->rot + 9 * t))
        return mcb_fail(err, MCB_E_NUMERIC, "fem: element %d: polar decomposition failed", t);
    return MCB_OK;
}

/* KR = Rb K0 Rb^T (12x12) with Rb = blockdiag(R, R, R, R). */
static void rotate_k(const double R[9], const double *K0, double KR[144])
{
    double T[144];
    for (int a = 0; a < 4; a++)     /* T = Rb K0 */
        for (int i = 0; i < 3; i++)
            for (int c = 0; c < 12; c++) {
                double s = 0;
                for (int k = 0; k < 3; k++) s += R[3 * i + k] * K0[(3 * a + k) * 12 + c];
                T[(3 * a + i) * 12 + c] = s;
            }
    for (int r = 0; r < 12; r++)    /* KR = T Rb^T */
        for (int b = 0; b < 4; b++)
            for (int j = 0; j < 3; j++) {
                double s = 0;
                for (int k = 0; k < 3; k++) s += T[r * 12 + 3 * b + k] * R[3 * j + k];
                KR[r * 12 + 3 * b + j] = s;
            }
}

/* Element t's displacement in its rotated frame, u = R^T x_e - X_e, and
 * its local elastic force fl = K0 u (R: f->rot of element t). */
static void element_local(const mcb_fem *f, int t, double u[12], double fl[12])
{
    const int *tet = f->tets + 4 * t;
    const double *R = f->rot + 9 * t, *K = f->k0 + 144 * t;
    for (int a = 0; a < 4; a++) {
        double y[3];
        mcb_m3_tvec(R, f->x + 3 * tet[a], y);
        for (int i = 0; i < 3; i++) u[3 * a + i] = y[i] - f->rest[3 * tet[a] + i];
    }
    for (int r = 0; r < 12; r++) {
        double s = 0;
        for (int c = 0; c < 12; c++) s += K[r * 12 + c] * u[c];
        fl[r] = s;
    }
}

double mcb_fem_elastic_energy(mcb_fem *f)
{
    if (!f) return 0.0;
    double E = 0.0;
    mcb_err err;
    for (int t = 0; t < f->ntets; t++) {
        if (element_rotation(f, t, &err)) return INFINITY; /* inverted */
        double u[12], fl[12];
        element_local(f, t, u, fl);
        for (int c = 0; c < 12; c++) E += 0.5 * u[c] * fl[c];
    }
    return E;
}

/* out += scale f_e with f_e = R K0 (R^T x_e - X_e), element t's elastic
 * force on its nodes (3 per node, world axes). */
static void element_force(mcb_fem *f, int t, double scale, double *out)
{
    const int *tet = f->tets + 4 * t;
    const double *R = f->rot + 9 * t;
    double u[12], fl[12];
    element_local(f, t, u, fl);
    for (int a = 0; a < 4; a++) {
        double y[3];
        mcb_m3_vec(R, fl + 3 * a, y);
        for (int i = 0; i < 3; i++) out[3 * tet[a] + i] += scale * y[i];
    }
}

double mcb_fem_elastic_force(mcb_fem *f, double *fe)
{
    if (!f || !fe) return NAN;
    mcb_err err;
    memset(fe, 0, 3 * (size_t)f->nnodes * sizeof *fe);
    for (int t = 0; t < f->ntets; t++) {
        if (element_rotation(f, t, &err)) return NAN; /* inverted */
        element_force(f, t, 1.0, fe);
    }
    double s = 0.0;
    for (int k = 0; k < 3 * f->nnodes; k++) s += fe[k] * fe[k];
    return sqrt(s);
}

static mcb_rc alloc_assemble(mcb_fem *f, mcb_err *err)
{
    if (f->ti) return MCB_OK;
    size_t cap = (size_t)144 * f->ntets + (f->o.lumped ? 3 * (size_t)f->nnodes : 0);
    f->ti = mcb_malloc(cap, sizeof(int));
    f->tj = mcb_malloc(cap, sizeof(int));
    f->tx = mcb_malloc(cap, sizeof(double));
    f->b = mcb_malloc(3 * (size_t)f->nnodes, sizeof(double));
    if (!f->ti || !f->tj || !f->tx || !f->b) {
        free(f->ti), free(f->tj), free(f->tx), free(f->b);
        f->ti = f->tj = NULL, f->tx = f->b = NULL;
        return mcb_fail(err, MCB_E_NOMEM, "fem: out of memory for %zu assembly triplets", cap);
    }
    return MCB_OK;
}

/* b = cm M v + h M g (before the elastic forces). */
static void rhs_inertia(mcb_fem *f, double cm, double h, const double g[3])
{
    int N = f->nnodes;
    for (int n = 0; n < N; n++)
        for (int i = 0; i < 3; i++) f->b[3 * n + i] = h * f->node_mass[n] * g[i];
    if (f->o.lumped) {
        for (int n = 0; n < N; n++)
            for (int i = 0; i < 3; i++) f->b[3 * n + i] += cm * f->node_mass[n] * f->v[3 * n + i];
        return;
    }
    for (int t = 0; t < f->ntets; t++) {
        const int *tet = f->tets + 4 * t;
        for (int a = 0; a < 4; a++)
            for (int c = 0; c < 4; c++) {
                double m = cm * cmass(f, t, a, c);
                for (int i = 0; i < 3; i++) f->b[3 * tet[a] + i] += m * f->v[3 * tet[c] + i];
            }
    }
}

mcb_rc mcb_fem_assemble(mcb_fem *f, double h, double theta, const double gravity[3], int *ntri,
                        const int **ti, const int **tj, const double **tx, const double **b,
                        mcb_err *err)
{
    if (!f || !ntri || !ti || !tj || !tx || !b)
        return mcb_fail(err, MCB_E_INPUT, "fem_assemble: NULL mesh or output");
    if (!(isfinite(h) && h > 0)) return mcb_fail(err, MCB_E_INPUT, "fem_assemble: h = %g must be > 0", h);
    if (!(theta >= 0 && theta < 1))
        return mcb_fail(err, MCB_E_INPUT, "fem_assemble: theta = %g must be in [0, 1)", theta);
    double g[3] = {0, 0, 0};
    if (gravity) memcpy(g, gravity, sizeof g);
    if (!mcb_all_finite(3, g)) return mcb_fail(err, MCB_E_INPUT, "fem_assemble: gravity is not finite");
    mcb_rc rc = alloc_assemble(f, err);
    if (rc) return rc;
    for (int t = 0; t < f->ntets; t++)
        if ((rc = element_rotation(f, t, err))) return rc;
    double cm = 1 / (1 - theta) + h * f->o.rayleigh_mass;  /* on M */
    double ck = h * f->o.rayleigh_stiff + h * h;             /* on K(x) */
    rhs_inertia(f, 1 / (1 - theta), h, g);
    int nz = 0;
    for (int t = 0; t < f->ntets; t++) {
        const int *tet = f->tets + 4 * t;
        double KR[144];
        rotate_k(f->rot + 9 * t, f->k0 + 144 * t, KR);
        for (int a = 0; a < 4; a++)
            for (int i = 0; i < 3; i++)
                for (int c = 0; c < 4; c++)
                    for (int j = 0; j < 3; j++) {
                        double val = ck * KR[(3 * a + i) * 12 + 3 * c + j];
                        if (!f->o.lumped && i == j) val += cm * cmass(f, t, a, c);
                        f->ti[nz] = 3 * tet[a] + i, f->tj[nz] = 3 * tet[c] + j, f->tx[nz] = val;
                        nz++;
                    }
        element_force(f, t, -h, f->b);
    }
    if (f->o.lumped)
        for (int k = 0; k < 3 * f->nnodes; k++)
            f->ti[nz] = f->tj[nz] = k, f->tx[nz++] = cm * f->node_mass[k / 3];
    *ntri = nz, *ti = f->ti, *tj = f->tj, *tx = f->tx, *b = f->b;
    return MCB_OK;
}

void mcb_fem_advance(mcb_fem *f, const double *vhat, double h, double theta)
{
    if (!f || !vhat) return;
    for (int k = 0; k < 3 * f->nnodes; k++) {
        f->x[k] += h * vhat[k];
        f->v[k] = (vhat[k] - theta * f->v[k]) / (1 - theta);
    }
}

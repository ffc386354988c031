/* fem.h: tetrahedral finite elements for the scene engine (fem.c): a
 * structured tetrahedral mesher for boxes, linear or co-rotational
 * elasticity (E, nu), consistent or lumped mass, Rayleigh damping, and the
 * contribution M / (1 - theta) + h D + h^2 K of a mesh to the step's matrix
 * A (the backward-Euler form of CANAL paper eq. (2), as the robots' PD gains
 * in docs/stepping.md). The mesh may be split into pieces along its long
 * axis (the SubADMM paper's subsystems, Sec. III-A): each piece owns its
 * nodes, the nodes on a cut are duplicated, and the duplicates are listed
 * as ties for the world to join with hard constraints.
 *
 * Units: metres, kilograms, seconds, pascals. DOF layout: 3 per node
 * (velocity in world coordinates), nodes in piece order (piece p holds
 * nodes piece_start[p] .. piece_start[p+1]-1). Nothing here allocates
 * after mcb_fem_box except mcb_fem_assemble's first call (its buffers are
 * sized once and reused). */
#ifndef MCB_SCENE_FEM_H
#define MCB_SCENE_FEM_H

#include "lib/mcb_error.h"
#include "lib/mcb_sparse.h"
#include "problems/scene/spatial.h"

typedef struct {
    double size[3];      /* box extents (m), centred on `pose` */
    mcb_xform pose;      /* box frame in world (the mesh's rest positions) */
    int cells[3];        /* grid cells per axis (each cell split into 6 tetrahedra) */
    int pieces;          /* pieces along the longest axis (>= 1; each >= 1 cell long) */
    double young_pa;     /* E > 0 */
    double poisson;      /* nu in [0, 0.5) */
    double density;      /* kg/m^3 > 0 */
    double rayleigh_mass;  /* a in D = a M + b K (1/s), >= 0 */
    double rayleigh_stiff; /* b (s), >= 0 */
    int lumped;          /* 1: row-sum lumped mass, 0: consistent */
    int corotational;    /* 1: co-rotational (element rotation by polar
                            decomposition each step), 0: linear */
} mcb_fem_opts;

/* Defaults: unit cube of 2x2x2 cells, 1 piece, E = 1e6, nu = 0.3,
 * density 1000, no damping, consistent mass, co-rotational. */
void mcb_fem_defaults(mcb_fem_opts *o);

typedef struct mcb_fem mcb_fem;

/* Meshes the box and computes the element rest data. Bad options (non-
 * finite, out of range, more pieces than cells on the long axis) give
 * MCB_E_INPUT naming the option. */
mcb_rc mcb_fem_box(const mcb_fem_opts *o, mcb_fem **out, mcb_err *err);
/* Meshes a ball of diameter size[0] centred on `pose` (docs/fem.md, "The
 * ball"): the Kuhn grid of cells[0]^3 cubes over its bounding cube, the
 * tetrahedra whose centroid lies inside the sphere kept (and their nodes,
 * renumbered in grid order), then each surface node moved radially onto
 * the sphere as far as keeps every tetrahedron around it at least 1/10 of
 * its grid volume (all the way, else 3/4, 1/2, 1/4, 1/8 of the way, else
 * not), in 8 passes.
 * One piece, no ties; size[1..2] and cells[1..2] are ignored; pieces must
 * be 1 and cells[0] >= 2. The surface is the nodes of the boundary faces
 * (those of one tetrahedron only). mcb_fem_nodes_at works in the ball's
 * frame (centred). */
mcb_rc mcb_fem_ball(const mcb_fem_opts *o, mcb_fem **out, mcb_err *err);
void mcb_fem_free(mcb_fem **f); /* accepts NULL */

int mcb_fem_nnodes(const mcb_fem *f);
int mcb_fem_ntets(const mcb_fem *f);
int mcb_fem_npieces(const mcb_fem *f);
const int *mcb_fem_piece_start(const mcb_fem *f);   /* npieces + 1 entries */
const int *mcb_fem_tets(const mcb_fem *f);          /* 4 node indices per tet, positive volume */
const double *mcb_fem_rest(const mcb_fem *f);       /* 3 per node */
double *mcb_fem_x(mcb_fem *f);                      /* current positions, 3 per node (writable) */
double *mcb_fem_v(mcb_fem *f);                      /* current velocities, 3 per node (writable) */
const double *mcb_fem_node_mass(const mcb_fem *f);  /* lumped (row-sum) mass per node, kg */
double mcb_fem_total_mass(const mcb_fem *f);

/* Pairs of duplicated nodes on the cuts between pieces (2 indices per tie,
 * the node in the lower piece first); *count receives the number of ties. */
const int *mcb_fem_ties(const mcb_fem *f, int *count);
/* Nodes on the boundary of the whole box (duplicates included); *count. */
const int *mcb_fem_surface(const mcb_fem *f, int *count);
/* Nodes whose rest position has coordinate `axis` (0, 1, 2 of the box
 * frame) within tol of `value` (box frame, centred): for clamping and
 * loading faces. Writes at most cap indices into idx; returns how many
 * match (may exceed cap). */
int mcb_fem_nodes_at(const mcb_fem *f, int axis, double value, double tol, int *idx, int cap);

/* The stiffness matrix K at the rest state (3N x 3N, upper and lower
 * triangles, column-major compressed; caller frees with mcb_csc_free) and
 * the consistent or lumped mass matrix, as configured. For the tests and
 * static solves. */
mcb_csc *mcb_fem_stiffness(const mcb_fem *f);
/* The strain energy at the current positions (J): sum over the elements of
 * 1/2 u^T K0 u, u = R^T x_e - X_e with R the element's co-rotation (the
 * identity for a linear mesh); INFINITY when an element is inverted.
 * Updates the elements' rotations (the next assembly recomputes them). */
double mcb_fem_elastic_energy(mcb_fem *f);
mcb_csc *mcb_fem_mass(const mcb_fem *f);
/* The internal elastic force at the current positions into fe (3 per
 * node, N): f_e = sum over the elements of R K0 (R^T x_e - X_e) (K0 (x_e -
 * X_e) when linear), the force the mesh's deformation exerts on its nodes
 * with the sign of a restoring force's negative (A's right-hand side holds
 * -h f_e); returns its Euclidean norm (N: COND paper Sec. V-C3's internal
 * force), NaN when an element is inverted or an argument is NULL. Updates
 * the elements' rotations, as mcb_fem_elastic_energy. */
double mcb_fem_elastic_force(mcb_fem *f, double *fe);

/* The step's contribution at the current (x, v): triplets (i, j, value) in
 * the mesh's own DOF numbering 0 .. 3N-1 (block diagonal over pieces: no
 * entry couples two pieces) of
 *     A_fem = M / (1 - theta) + h D + h^2 K(x)
 * and the right-hand side
 *     b_fem = M v / (1 - theta) + h (M g - f_elastic(x))
 * with D = a M + b K(x), K(x) = R K0 R^T per element and f_elastic =
 * R K0 (R^T x - X) when co-rotational (K0 and K0 (x - X) when linear): the
 * elastic and damping forces implicit in v^ (f(x + h v^) ~ f(x) + K h v^),
 * gravity explicit; docs/stepping.md states it. The arrays belong to f and
 * stay valid until the next call. Fails (MCB_E_NUMERIC) on an inverted
 * element (non-positive deformed volume). */
mcb_rc mcb_fem_assemble(mcb_fem *f, double h, double theta, const double gravity[3], int *ntri,
                        const int **ti, const int **tj, const double **tx, const double **b,
                        mcb_err *err);

/* Advances the state by the mid-step velocity vhat (3N): x += h vhat,
 * v = (vhat - theta v) / (1 - theta). */
void mcb_fem_advance(mcb_fem *f, const double *vhat, double h, double theta);

#endif

/* mcb_sparse.h: compressed sparse column (CSC) matrices and the few
 * operations the harness and the solvers need. Indices are 0-based int;
 * within each column row indices are strictly increasing (validated on read). */
#ifndef MCB_SPARSE_H
#define MCB_SPARSE_H

#include "lib/mcb_error.h"

typedef struct {
    int m, n;   /* rows, columns */
    int *p;     /* column pointers, n + 1 entries; nnz = p[n] */
    int *i;     /* row indices, nnz entries */
    double *x;  /* values, nnz entries */
} mcb_csc;

/* Allocates an m x n matrix with room for nnz entries (p zeroed). */
mcb_csc *mcb_csc_alloc(int m, int n, int nnz);
void mcb_csc_free(mcb_csc **A);               /* accepts NULL and *A == NULL */
mcb_csc *mcb_csc_copy(const mcb_csc *A);
int mcb_csc_nnz(const mcb_csc *A);

/* Builds a CSC matrix from triplets; duplicates are summed, explicit zeros
 * kept. Returns NULL on allocation failure or an index out of range. */
mcb_csc *mcb_csc_from_triplets(int m, int n, int nz, const int *ri,
                               const int *ci, const double *x);
mcb_csc *mcb_csc_transpose(const mcb_csc *A);
mcb_csc *mcb_csc_multiply(const mcb_csc *A, const mcb_csc *B); /* A B */

void mcb_csc_gaxpy(const mcb_csc *A, const double *x, double *y);   /* y += A x   */
void mcb_csc_gatxpy(const mcb_csc *A, const double *x, double *y);  /* y += A^T x */

/* Largest |A_ij - A_ji| relative to the largest |A_ij| (0 for A = A^T);
 * A must be square. Used to check symmetry. */
double mcb_csc_asymmetry(const mcb_csc *A);
/* (A + A^T) / 2 of a square matrix, exactly symmetric (each entry the sum
 * of the same two halves); NULL on allocation failure. */
mcb_csc *mcb_csc_symmetric_part(const mcb_csc *A);

/* Submatrix of the rows [r0, r1) and columns [c0, c1) (indices shifted). */
mcb_csc *mcb_csc_block(const mcb_csc *A, int r0, int r1, int c0, int c1);

/* Small dense vector helpers. */
double mcb_dot(int n, const double *x, const double *y);
double mcb_norm2(int n, const double *x);
double mcb_norm_inf(int n, const double *x);
int mcb_all_finite(int n, const double *x);

#endif

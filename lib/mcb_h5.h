/* mcb_h5.h: small HDF5 helpers shared by the problem, results and FCLIB
 * readers and writers. Every reader checks rank, length and class before
 * reading, so a malformed file yields a message, never a crash. Paths are
 * relative to `loc` and may contain '/'. */
#ifndef MCB_H5_H
#define MCB_H5_H

#include <hdf5.h>

#include "mcb_error.h"

void mcb_h5_quiet(void); /* turns off HDF5's automatic error printing */

/* 1 if every component of path exists below loc, else 0. */
int mcb_h5_exists(hid_t loc, const char *path);

/* Length of a rank-1 dataset (a scalar counts as length 1); -1 with err set
 * when missing or of another rank. `ctx` prefixes messages. */
long mcb_h5_len(hid_t loc, const char *path, const char *ctx, mcb_err *err);

/* Reads a rank-1 dataset of exactly `len` elements (numeric class) into a
 * new array. Returns NULL with err set on any mismatch. */
double *mcb_h5_read_doubles(hid_t loc, const char *path, long len, const char *ctx, mcb_err *err);
int *mcb_h5_read_ints(hid_t loc, const char *path, long len, const char *ctx, mcb_err *err);

/* Writers (rank 1; len 0 writes an empty dataset). Return 0 on success. */
int mcb_h5_write_doubles(hid_t loc, const char *path, const double *x, long len);
int mcb_h5_write_ints(hid_t loc, const char *path, const int *x, long len);
/* A rank-2 row-major table of doubles. */
int mcb_h5_write_table(hid_t loc, const char *path, const double *x, long rows, long cols);

/* Attributes: strings are written as variable-length UTF-8 (as h5py does)
 * and read whether fixed or variable length. */
int mcb_h5_attr_write_str(hid_t obj, const char *name, const char *value);
int mcb_h5_attr_write_int(hid_t obj, const char *name, long value);
int mcb_h5_attr_write_double(hid_t obj, const char *name, double value);
int mcb_h5_attr_write_ints(hid_t obj, const char *name, const long *v, int count);
/* Returns a malloc'd string or NULL (absent or not a string). */
char *mcb_h5_attr_read_str(hid_t obj, const char *name);
/* Return 0 on success, -1 when absent or of the wrong class/size. */
int mcb_h5_attr_read_int(hid_t obj, const char *name, long *value);
int mcb_h5_attr_read_double(hid_t obj, const char *name, double *value);
int mcb_h5_attr_read_ints(hid_t obj, const char *name, long *v, int count);

/* Creates intermediate groups as needed. */
hid_t mcb_h5_create_group(hid_t loc, const char *path);

#endif

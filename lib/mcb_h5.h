/* mcb_h5.h: checked HDF5 access shared by the problem, results and FCLIB
 * readers and writers.
 *
 * Files are untrusted input. Before any read, every dataset's and
 * attribute's class, size, byte layout, rank and storage are checked, and the
 * number of elements it declares is bounded by the bytes it actually stores
 * (and by the file's size), so a corrupted header can neither make us
 * allocate gigabytes nor send libhdf5 into the code paths that crash on
 * damaged files (variable-length data and its global heap are refused
 * outright: strings are fixed-length). What no check can exclude (libhdf5
 * decoding a damaged object header) is contained by reading untrusted files
 * in a child process first (mcb_isolate.h). Paths are relative to `loc` and
 * may contain '/'; `ctx` prefixes every message (file and group). */
#ifndef MCB_H5_H
#define MCB_H5_H

#include <hdf5.h>

#include "lib/mcb_error.h"

void mcb_h5_quiet(void); /* turns off HDF5's automatic error printing */

/* Opens an existing file read-only after checking it can be read and is
 * HDF5; -1 with err set ("PATH: cannot open file", "not an HDF5 file"). */
hid_t mcb_h5_open_ro(const char *path, mcb_err *err);
/* The same with a file access property list (H5P_DEFAULT: mcb_h5_open_ro). */
hid_t mcb_h5_open_ro_fapl(const char *path, hid_t fapl, mcb_err *err);

/* 1 if every component of path exists below loc, else 0. */
int mcb_h5_exists(hid_t loc, const char *path);

/* Length of a rank-1 dataset (a scalar counts as length 1). MCB_E_INPUT
 * when missing, of another rank or type, or declaring more elements than
 * it stores. */
mcb_rc mcb_h5_len(hid_t loc, const char *path, const char *ctx, long *len, mcb_err *err);

/* Reads a rank-1 dataset of exactly `len` elements (integer or IEEE float
 * class for doubles, integer class for ints) into a new array *out.
 * MCB_E_INPUT on any mismatch, MCB_E_NOMEM when allocation fails. */
mcb_rc mcb_h5_read_doubles(hid_t loc, const char *path, long len, const char *ctx, double **out,
                           mcb_err *err);
mcb_rc mcb_h5_read_ints(hid_t loc, const char *path, long len, const char *ctx, int **out,
                        mcb_err *err);

/* Reads a rank-2 row-major table of `cols` columns into *out (*rows rows). */
mcb_rc mcb_h5_read_table(hid_t loc, const char *path, long cols, const char *ctx, long *rows,
                         double **out, mcb_err *err);
/* The same for a table that grew columns at its end: a stored table of
 * min_cols .. cols columns is read as `cols` columns, the missing ones NaN
 * (a file written before they existed). */
mcb_rc mcb_h5_read_table_min(hid_t loc, const char *path, long min_cols, long cols,
                             const char *ctx, long *rows, double **out, mcb_err *err);

/* Writers (rank 1; len 0 writes an empty dataset). Return 0 on success. */
int mcb_h5_write_doubles(hid_t loc, const char *path, const double *x, long len);
int mcb_h5_write_ints(hid_t loc, const char *path, const int *x, long len);
/* A rank-2 row-major table of doubles. */
int mcb_h5_write_table(hid_t loc, const char *path, const double *x, long rows, long cols);

/* Attributes. Strings are written as fixed-length UTF-8 (never variable
 * length); integers as int64, floats as float64. */
int mcb_h5_attr_write_str(hid_t obj, const char *name, const char *value);
int mcb_h5_attr_write_int(hid_t obj, const char *name, long value);
int mcb_h5_attr_write_double(hid_t obj, const char *name, double value);
int mcb_h5_attr_write_ints(hid_t obj, const char *name, const long *v, int count);

/* 1 when obj has an attribute of that name. */
int mcb_h5_attr_exists(hid_t obj, const char *name);
/* Readers: MCB_OK, or MCB_E_INPUT with err saying what the attribute is and
 * what was expected ("CTX: attribute NAME is missing", "... is a float,
 * expected an integer", "... is a variable-length string ..."). A string is
 * returned malloc'd. get_double accepts integers too. */
mcb_rc mcb_h5_attr_get_str(hid_t obj, const char *name, const char *ctx, char **out,
                           mcb_err *err);
mcb_rc mcb_h5_attr_get_int(hid_t obj, const char *name, const char *ctx, long *value,
                           mcb_err *err);
mcb_rc mcb_h5_attr_get_double(hid_t obj, const char *name, const char *ctx, double *value,
                              mcb_err *err);
mcb_rc mcb_h5_attr_get_ints(hid_t obj, const char *name, const char *ctx, long *v, int count,
                            mcb_err *err);

/* Creates intermediate groups as needed. */
hid_t mcb_h5_create_group(hid_t loc, const char *path);

#endif

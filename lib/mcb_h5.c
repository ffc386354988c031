/* mcb_h5.c: checked HDF5 dataset and attribute access (see mcb_h5.h for the
 * policy: type, rank and storage checked before every read). */
#include "lib/mcb_h5.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Strings longer than this are not plausible in our files (notes included). */
#define MAX_STR_BYTES (1L << 20)
/* Small attributes only: shapes and scalars. */
#define MAX_ATTR_ELEMS 64
/* deflate cannot compress better than about 1032:1 */
#define MAX_COMPRESSION 1100

void mcb_h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

hid_t mcb_h5_open_ro(const char *path, mcb_err *err)
{
    return mcb_h5_open_ro_fapl(path, H5P_DEFAULT, err);
}

hid_t mcb_h5_open_ro_fapl(const char *path, hid_t fapl, mcb_err *err)
{
    mcb_h5_quiet();
    if (access(path, R_OK) != 0) {
        mcb_fail(err, MCB_E_INPUT, "%s: cannot open file (%s)", path, strerror(errno));
        return -1;
    }
    if (H5Fis_hdf5(path) <= 0) {
        mcb_fail(err, MCB_E_INPUT, "%s: not an HDF5 file", path);
        return -1;
    }
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    if (f < 0) mcb_fail(err, MCB_E_INPUT, "%s: cannot open HDF5 file (damaged?)", path);
    return f;
}

int mcb_h5_exists(hid_t loc, const char *path)
{
    char buf[512];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, path, len + 1);
    for (size_t k = 1; k <= len; k++) {
        if (buf[k] == '/' || buf[k] == '\0') {
            char c = buf[k];
            buf[k] = '\0';
            if (H5Lexists(loc, buf, H5P_DEFAULT) <= 0) return 0;
            buf[k] = c;
        }
    }
    return H5Oexists_by_name(loc, path, H5P_DEFAULT) > 0;
}

/* ------------------------------------------------------------- datasets */

static hsize_t file_size_of(hid_t loc)
{
    hid_t f = H5Iget_file_id(loc);
    hsize_t size = 0;
    if (f < 0 || H5Fget_filesize(f, &size) < 0) size = 0;
    if (f >= 0) H5Fclose(f);
    return size;
}

/* An integer type with an ordinary layout: 1, 2, 4 or 8 bytes, all of them
 * used (no bit field: libhdf5's conversion of damaged precision or offset
 * values crashes), little- or big-endian. */
static int plain_integer(hid_t t)
{
    size_t size = H5Tget_size(t);
    H5T_order_t order = H5Tget_order(t);
    return (size == 1 || size == 2 || size == 4 || size == 8) && H5Tget_precision(t) == 8 * size &&
           H5Tget_offset(t) == 0 && (order == H5T_ORDER_LE || order == H5T_ORDER_BE);
}

/* IEEE float32 or float64, either byte order. */
static int ieee_float(hid_t t)
{
    const hid_t ieee[] = {H5T_IEEE_F32LE, H5T_IEEE_F32BE, H5T_IEEE_F64LE, H5T_IEEE_F64BE};
    for (int k = 0; k < 4; k++)
        if (H5Tequal(t, ieee[k]) > 0) return 1;
    return 0;
}

/* The element types we read: integers of 1, 2, 4 or 8 bytes, IEEE floats
 * of 4 or 8 bytes, either byte order. 0 ok, -1 not numeric, -2 odd layout. */
static int numeric_type_ok(hid_t t, int want_int, size_t *size)
{
    H5T_class_t cls = H5Tget_class(t);
    *size = H5Tget_size(t);
    if (cls == H5T_INTEGER) return plain_integer(t) ? 0 : -2;
    if (cls != H5T_FLOAT || want_int) return -1;
    return ieee_float(t) ? 0 : -2;
}

/* The stored bytes must hold the declared elements: no unallocated or
 * partially allocated storage (read back as fill values: a few bytes of
 * header could declare gigabytes), no filter but deflate, shuffle and
 * fletcher32, no storage larger than the file. */
static mcb_rc check_storage(hid_t d, hsize_t npoints, size_t elem, const char *ctx,
                            const char *path, mcb_err *err)
{
    hid_t dcpl = H5Dget_create_plist(d);
    if (dcpl < 0) return mcb_fail(err, MCB_E_INPUT, "%s: dataset %s: unreadable layout", ctx, path);
    H5D_layout_t lay = H5Pget_layout(dcpl);
    int nfilt = lay == H5D_CHUNKED ? H5Pget_nfilters(dcpl) : 0;
    mcb_rc rc = MCB_OK;
    if (lay != H5D_CONTIGUOUS && lay != H5D_COMPACT && lay != H5D_CHUNKED)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: dataset %s has an unsupported storage layout (%d)",
                      ctx, path, (int)lay);
    for (int k = 0; k < nfilt && !rc; k++) {
        unsigned flags = 0, cd[8];
        size_t ncd = 8;
        H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)k, &flags, &ncd, cd, 0, NULL, NULL);
        if (id != H5Z_FILTER_DEFLATE && id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32)
            rc = mcb_fail(err, MCB_E_INPUT,
                          "%s: dataset %s uses HDF5 filter %d (only deflate, shuffle and "
                          "fletcher32 are read)", ctx, path, (int)id);
    }
    H5Pclose(dcpl);
    if (rc || npoints == 0) return rc;
    /* (H5Dget_space_status is not used: libhdf5 1.10 reports compressed
     * chunked datasets as partly allocated even when they are whole) */
    hsize_t stored = H5Dget_storage_size(d), need = npoints * elem, fsize = file_size_of(d);
    if (stored == 0)
        return mcb_fail(err, MCB_E_INPUT, "%s: dataset %s declares %llu elements but stores none",
                        ctx, path, (unsigned long long)npoints);
    if (fsize > 0 && stored > fsize)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: dataset %s claims %llu bytes of storage, more than the file's %llu",
                        ctx, path, (unsigned long long)stored, (unsigned long long)fsize);
    if (nfilt == 0 && stored < need)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: dataset %s declares %llu elements but stores only part of them (%llu "
                        "of %llu bytes)", ctx, path, (unsigned long long)npoints,
                        (unsigned long long)stored, (unsigned long long)need);
    if (nfilt > 0 && need / MAX_COMPRESSION > stored)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: dataset %s declares %llu elements (%llu bytes) in %llu compressed "
                        "bytes, more than deflate can achieve (damaged header?)", ctx, path,
                        (unsigned long long)npoints, (unsigned long long)need,
                        (unsigned long long)stored);
    return MCB_OK;
}

/* Opens a numeric dataset of rank `want_rank` (1: rank 0 counts as one
 * element; 2: a table) whose declared size is backed by stored bytes;
 * dims[0..want_rank) receive its extent. */
static hid_t open_nd(hid_t loc, const char *path, const char *ctx, int want_int, int want_rank,
                     hsize_t *dims, mcb_err *err)
{
    if (!mcb_h5_exists(loc, path)) {
        mcb_fail(err, MCB_E_INPUT, "%s: dataset %s is missing", ctx, path);
        return -1;
    }
    hid_t d = H5Dopen2(loc, path, H5P_DEFAULT);
    if (d < 0) {
        mcb_fail(err, MCB_E_INPUT, "%s: %s is not a dataset", ctx, path);
        return -1;
    }
    hid_t s = H5Dget_space(d);
    H5S_class_t sc = s < 0 ? H5S_NO_CLASS : H5Sget_simple_extent_type(s);
    int rank = sc == H5S_SIMPLE ? H5Sget_simple_extent_ndims(s) : sc == H5S_SCALAR ? 0 : -1;
    dims[0] = dims[want_rank - 1] = 1;
    if (rank == want_rank && H5Sget_simple_extent_dims(s, dims, NULL) < 0) rank = -1;
    if (s >= 0) H5Sclose(s);
    mcb_rc rc = MCB_OK;
    hsize_t npoints = 1;
    if (rank < 0)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: dataset %s has no readable dataspace", ctx, path);
    else if (rank != want_rank && !(want_rank == 1 && rank == 0))
        rc = mcb_fail(err, MCB_E_INPUT, "%s: dataset %s has rank %d, expected %d", ctx, path,
                      rank, want_rank);
    for (int k = 0; !rc && k < want_rank; k++) {
        if (dims[k] > (hsize_t)INT_MAX || (dims[k] > 0 && npoints > (hsize_t)INT_MAX / dims[k]))
            rc = mcb_fail(err, MCB_E_INPUT, "%s: dataset %s has more than 2^31-1 elements", ctx,
                          path);
        npoints *= dims[k];
    }
    size_t elem = 0;
    if (!rc) {
        hid_t t = H5Dget_type(d);
        int ok = t < 0 ? -1 : numeric_type_ok(t, want_int, &elem);
        if (t >= 0) H5Tclose(t);
        if (ok == -1)
            rc = mcb_fail(err, MCB_E_INPUT, "%s: dataset %s must hold %s", ctx, path,
                          want_int ? "integers" : "numbers");
        else if (ok == -2)
            rc = mcb_fail(err, MCB_E_INPUT,
                          "%s: dataset %s has an unsupported number type (%zu bytes; expected "
                          "1-8 byte integers or IEEE float32/float64)", ctx, path, elem);
    }
    if (!rc) rc = check_storage(d, npoints, elem, ctx, path, err);
    if (rc) {
        H5Dclose(d);
        return -1;
    }
    return d;
}

static hid_t open_1d(hid_t loc, const char *path, const char *ctx, int want_int, long *len,
                     mcb_err *err)
{
    hsize_t dims[1];
    hid_t d = open_nd(loc, path, ctx, want_int, 1, dims, err);
    if (d >= 0) *len = (long)dims[0];
    return d;
}

mcb_rc mcb_h5_len(hid_t loc, const char *path, const char *ctx, long *len, mcb_err *err)
{
    *len = -1;
    hid_t d = open_1d(loc, path, ctx, 0, len, err);
    if (d < 0) return MCB_E_INPUT;
    H5Dclose(d);
    return MCB_OK;
}

static mcb_rc read_1d(hid_t loc, const char *path, long len, const char *ctx, void **out,
                      mcb_err *err, hid_t memtype, size_t size, int want_int)
{
    *out = NULL;
    long have = -1;
    hid_t d = open_1d(loc, path, ctx, want_int, &have, err);
    if (d < 0) return MCB_E_INPUT;
    if (have != len) {
        H5Dclose(d);
        return mcb_fail(err, MCB_E_INPUT, "%s: dataset %s has %ld elements, expected %ld", ctx,
                        path, have, len);
    }
    void *buf = mcb_malloc((size_t)len, size);
    if (!buf) {
        H5Dclose(d);
        return mcb_fail(err, MCB_E_NOMEM, "%s: out of memory reading %s (%ld elements)", ctx,
                        path, len);
    }
    if (len > 0 && H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        H5Dclose(d);
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: cannot read dataset %s (damaged data or values out of range)", ctx,
                        path);
    }
    H5Dclose(d);
    *out = buf;
    return MCB_OK;
}

mcb_rc mcb_h5_read_doubles(hid_t loc, const char *path, long len, const char *ctx, double **out,
                           mcb_err *err)
{
    return read_1d(loc, path, len, ctx, (void **)out, err, H5T_NATIVE_DOUBLE, sizeof(double), 0);
}

mcb_rc mcb_h5_read_ints(hid_t loc, const char *path, long len, const char *ctx, int **out,
                        mcb_err *err)
{
    return read_1d(loc, path, len, ctx, (void **)out, err, H5T_NATIVE_INT, sizeof(int), 1);
}

mcb_rc mcb_h5_read_table_min(hid_t loc, const char *path, long min_cols, long cols,
                             const char *ctx, long *rows, double **out, mcb_err *err)
{
    *out = NULL;
    *rows = 0;
    hsize_t dims[2];
    hid_t d = open_nd(loc, path, ctx, 0, 2, dims, err);
    if (d < 0) return MCB_E_INPUT;
    if (dims[1] < (hsize_t)min_cols || dims[1] > (hsize_t)cols) {
        H5Dclose(d);
        if (min_cols == cols)
            return mcb_fail(err, MCB_E_INPUT, "%s: dataset %s has %llu columns, expected %ld", ctx,
                            path, (unsigned long long)dims[1], cols);
        return mcb_fail(err, MCB_E_INPUT, "%s: dataset %s has %llu columns, expected %ld to %ld",
                        ctx, path, (unsigned long long)dims[1], min_cols, cols);
    }
    double *buf = mcb_malloc((size_t)(dims[0] * (hsize_t)cols), sizeof(double));
    mcb_rc rc = MCB_OK;
    if (!buf)
        rc = mcb_fail(err, MCB_E_NOMEM, "%s: out of memory reading %s", ctx, path);
    else if (dims[0] * dims[1] > 0 &&
             H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: cannot read dataset %s (damaged data?)", ctx, path);
    H5Dclose(d);
    if (rc) {
        free(buf);
        return rc;
    }
    /* fewer columns (an older file): spread the rows out, the missing
     * trailing columns NaN; from the last row back, so nothing is
     * overwritten before it moves */
    long have = (long)dims[1];
    for (long r = (long)dims[0] - 1; have < cols && r >= 0; r--) {
        for (long c = cols - 1; c >= have; c--) buf[r * cols + c] = NAN;
        for (long c = have - 1; c >= 0; c--) buf[r * cols + c] = buf[r * have + c];
    }
    *rows = (long)dims[0];
    *out = buf;
    return MCB_OK;
}

mcb_rc mcb_h5_read_table(hid_t loc, const char *path, long cols, const char *ctx, long *rows,
                         double **out, mcb_err *err)
{
    return mcb_h5_read_table_min(loc, path, cols, cols, ctx, rows, out, err);
}

/* Every object is created without timestamps (H5Pset_obj_track_times 0),
 * so identical content gives byte-identical files; intermediate groups are
 * created here one by one (the link property's intermediate groups would
 * get the default, timestamped, properties). */
static hid_t group_create_untimed(hid_t loc, const char *path)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    H5Pset_obj_track_times(gcpl, 0);
    hid_t g = H5Gcreate2(loc, path, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    return g;
}

/* Creates the missing groups among the proper prefixes of path. */
static int ensure_parents(hid_t loc, const char *path)
{
    char buf[512];
    size_t len = strlen(path);
    if (len >= sizeof buf) return -1;
    memcpy(buf, path, len + 1);
    for (size_t k = 1; k < len; k++) {
        if (buf[k] != '/') continue;
        buf[k] = '\0';
        if (!mcb_h5_exists(loc, buf)) {
            hid_t g = group_create_untimed(loc, buf);
            if (g < 0) return -1;
            H5Gclose(g);
        }
        buf[k] = '/';
    }
    return 0;
}

hid_t mcb_h5_create_group(hid_t loc, const char *path)
{
    if (ensure_parents(loc, path)) return -1;
    return group_create_untimed(loc, path);
}

static int write_nd(hid_t loc, const char *path, hid_t filetype, hid_t memtype, const void *x,
                    int rank, const hsize_t *dims)
{
    if (ensure_parents(loc, path)) return -1;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0); /* no timestamps: reproducible files */
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(loc, path, filetype, s, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = d < 0;
    hsize_t total = 1;
    for (int k = 0; k < rank; k++) total *= dims[k];
    if (!rc && total > 0) rc = H5Dwrite(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0;
    if (d >= 0) H5Dclose(d);
    H5Sclose(s);
    H5Pclose(dcpl);
    return rc ? -1 : 0;
}

int mcb_h5_write_doubles(hid_t loc, const char *path, const double *x, long len)
{
    hsize_t dims[1] = {(hsize_t)len};
    return write_nd(loc, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, x, 1, dims);
}

int mcb_h5_write_ints(hid_t loc, const char *path, const int *x, long len)
{
    hsize_t dims[1] = {(hsize_t)len};
    return write_nd(loc, path, H5T_STD_I32LE, H5T_NATIVE_INT, x, 1, dims);
}

int mcb_h5_write_table(hid_t loc, const char *path, const double *x, long rows, long cols)
{
    hsize_t dims[2] = {(hsize_t)rows, (hsize_t)cols};
    return write_nd(loc, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, x, 2, dims);
}

/* ----------------------------------------------------------- attributes */

static int attr_write(hid_t obj, const char *name, hid_t filetype, hid_t memtype,
                      const void *v, int count, int force_1d)
{
    if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
    hsize_t dims[1] = {(hsize_t)count};
    hid_t s = count == 1 && !force_1d ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    hid_t a = H5Acreate2(obj, name, filetype, s, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, memtype, v) < 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(s);
    return rc ? -1 : 0;
}

int mcb_h5_attr_write_str(hid_t obj, const char *name, const char *value)
{
    const char *v = value ? value : "";
    size_t len = strlen(v);
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, len > 0 ? len : 1);
    H5Tset_strpad(t, H5T_STR_NULLPAD);
    H5Tset_cset(t, H5T_CSET_UTF8);
    int rc = attr_write(obj, name, t, t, len > 0 ? v : "", 1, 0);
    H5Tclose(t);
    return rc;
}

int mcb_h5_attr_write_int(hid_t obj, const char *name, long value)
{
    return attr_write(obj, name, H5T_STD_I64LE, H5T_NATIVE_LONG, &value, 1, 0);
}

int mcb_h5_attr_write_double(hid_t obj, const char *name, double value)
{
    return attr_write(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, 1, 0);
}

int mcb_h5_attr_write_ints(hid_t obj, const char *name, const long *v, int count)
{
    return attr_write(obj, name, H5T_STD_I64LE, H5T_NATIVE_LONG, v, count, 1);
}

int mcb_h5_attr_exists(hid_t obj, const char *name) { return H5Aexists(obj, name) > 0; }

enum { K_INT, K_FLOAT, K_STRING, K_VLSTRING, K_OTHER };
static const char *kind_text[] = {"an integer", "a float", "a string",
                                  "a variable-length string", "of another HDF5 type"};

/* Opens attribute `name` and classifies it; checks its dataspace (scalar or
 * rank 1, at most MAX_ATTR_ELEMS elements), its element size and that its
 * stored bytes hold what it declares. -1 with err set on any failure. */
static hid_t attr_open(hid_t obj, const char *name, const char *ctx, int *kind, long *count,
                       size_t *size, mcb_err *err)
{
    if (H5Aexists(obj, name) <= 0) {
        mcb_fail(err, MCB_E_INPUT, "%s: attribute %s is missing", ctx, name);
        return -1;
    }
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) {
        mcb_fail(err, MCB_E_INPUT, "%s: attribute %s cannot be opened (damaged?)", ctx, name);
        return -1;
    }
    hid_t t = H5Aget_type(a);
    H5T_class_t cls = t < 0 ? H5T_NO_CLASS : H5Tget_class(t);
    size_t sz = t < 0 ? 0 : H5Tget_size(t);
    int vl = cls == H5T_STRING && H5Tis_variable_str(t) > 0;
    int k = K_OTHER;
    if (cls == H5T_INTEGER && plain_integer(t)) k = K_INT;
    else if (cls == H5T_FLOAT && ieee_float(t)) k = K_FLOAT;
    else if (cls == H5T_STRING) k = vl ? K_VLSTRING : K_STRING;
    if (k == K_STRING) {
        H5T_cset_t cs = H5Tget_cset(t);
        if ((cs != H5T_CSET_ASCII && cs != H5T_CSET_UTF8) || sz < 1 || sz > MAX_STR_BYTES)
            k = K_OTHER;
    }
    if (t >= 0) H5Tclose(t);
    hid_t s = H5Aget_space(a);
    H5S_class_t sc = s < 0 ? H5S_NO_CLASS : H5Sget_simple_extent_type(s);
    int rank = sc == H5S_SIMPLE ? H5Sget_simple_extent_ndims(s) : sc == H5S_SCALAR ? 0 : -1;
    hssize_t n = rank >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    if (s >= 0) H5Sclose(s);
    const char *bad = NULL;
    if (rank < 0 || rank > 1 || n < 0 || n > MAX_ATTR_ELEMS) bad = "has an unexpected shape";
    else if (k != K_VLSTRING && k != K_OTHER && H5Aget_storage_size(a) < (hsize_t)n * sz)
        bad = "stores fewer bytes than it declares (damaged?)";
    if (bad) {
        H5Aclose(a);
        mcb_fail(err, MCB_E_INPUT, "%s: attribute %s %s", ctx, name, bad);
        return -1;
    }
    *kind = k;
    *count = (long)n;
    *size = sz;
    return a;
}

static mcb_rc wrong_kind(const char *ctx, const char *name, int kind, const char *want,
                         mcb_err *err)
{
    if (kind == K_VLSTRING)
        return mcb_fail(err, MCB_E_INPUT,
                        "%s: attribute %s is a variable-length string, expected %s (mcbench "
                        "reads fixed-length strings only: in h5py write np.bytes_(\"...\"); "
                        "files from mcbench before format version 2 must be regenerated, see "
                        "docs/problem-format.md)", ctx, name, want);
    return mcb_fail(err, MCB_E_INPUT, "%s: attribute %s is %s, expected %s", ctx, name,
                    kind_text[kind], want);
}

mcb_rc mcb_h5_attr_get_str(hid_t obj, const char *name, const char *ctx, char **out,
                           mcb_err *err)
{
    *out = NULL;
    int kind;
    long n;
    size_t size;
    hid_t a = attr_open(obj, name, ctx, &kind, &n, &size, err);
    if (a < 0) return MCB_E_INPUT;
    mcb_rc rc = MCB_OK;
    if (kind != K_STRING) rc = wrong_kind(ctx, name, kind, "a fixed-length string", err);
    else if (n != 1)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute %s holds %ld strings, expected one", ctx,
                      name, n);
    char *buf = rc ? NULL : calloc(size + 1, 1);
    if (!rc && !buf) rc = mcb_fail(err, MCB_E_NOMEM, "%s: out of memory reading %s", ctx, name);
    if (!rc) {
        /* read the bytes as stored (same fixed-length type: no conversion) */
        hid_t t = H5Aget_type(a);
        if (t < 0 || H5Aread(a, t, buf) < 0)
            rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute %s cannot be read", ctx, name);
        if (t >= 0) H5Tclose(t);
    }
    H5Aclose(a);
    if (rc) {
        free(buf);
        return rc;
    }
    buf[size] = '\0';
    *out = buf;
    return MCB_OK;
}

/* count numbers (integers, or floats when allow_float) into v as long or
 * double. */
static mcb_rc attr_get_numbers(hid_t obj, const char *name, const char *ctx, void *v, int count,
                               int as_double, mcb_err *err)
{
    int kind;
    long n;
    size_t size;
    hid_t a = attr_open(obj, name, ctx, &kind, &n, &size, err);
    if (a < 0) return MCB_E_INPUT;
    mcb_rc rc = MCB_OK;
    const char *want = as_double ? "a number" : count == 1 ? "an integer" : "integers";
    if (kind != K_INT && !(as_double && kind == K_FLOAT)) rc = wrong_kind(ctx, name, kind, want, err);
    else if (n != count)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute %s holds %ld value(s), expected %d", ctx,
                      name, n, count);
    else if (H5Aread(a, as_double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_LONG, v) < 0)
        rc = mcb_fail(err, MCB_E_INPUT, "%s: attribute %s cannot be read", ctx, name);
    H5Aclose(a);
    return rc;
}

mcb_rc mcb_h5_attr_get_int(hid_t obj, const char *name, const char *ctx, long *value,
                           mcb_err *err)
{
    return attr_get_numbers(obj, name, ctx, value, 1, 0, err);
}

mcb_rc mcb_h5_attr_get_ints(hid_t obj, const char *name, const char *ctx, long *v, int count,
                            mcb_err *err)
{
    return attr_get_numbers(obj, name, ctx, v, count, 0, err);
}

mcb_rc mcb_h5_attr_get_double(hid_t obj, const char *name, const char *ctx, double *value,
                              mcb_err *err)
{
    return attr_get_numbers(obj, name, ctx, value, 1, 1, err);
}

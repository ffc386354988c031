/* mcb_h5.c: checked HDF5 dataset and attribute access. */
#include "mcb_h5.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mcb_h5_quiet(void) { H5Eset_auto2(H5E_DEFAULT, NULL, NULL); }

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

static hid_t open_1d(hid_t loc, const char *path, const char *ctx, long *len, mcb_err *err)
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
    int rank = H5Sget_simple_extent_ndims(s);
    hsize_t dims[2] = {0, 0};
    if (rank == 1) H5Sget_simple_extent_dims(s, dims, NULL);
    H5Sclose(s);
    if (rank == 0) dims[0] = 1;
    else if (rank != 1) {
        H5Dclose(d);
        mcb_fail(err, MCB_E_INPUT, "%s: dataset %s has rank %d, expected 1", ctx, path, rank);
        return -1;
    }
    *len = (long)dims[0];
    return d;
}

long mcb_h5_len(hid_t loc, const char *path, const char *ctx, mcb_err *err)
{
    long len = -1;
    hid_t d = open_1d(loc, path, ctx, &len, err);
    if (d < 0) return -1;
    H5Dclose(d);
    return len;
}

static void *read_1d(hid_t loc, const char *path, long len, const char *ctx, mcb_err *err,
                     hid_t memtype, size_t size, int want_int)
{
    long have = -1;
    hid_t d = open_1d(loc, path, ctx, &have, err);
    if (d < 0) return NULL;
    if (have != len) {
        H5Dclose(d);
        mcb_fail(err, MCB_E_INPUT, "%s: dataset %s has %ld elements, expected %ld", ctx, path,
                 have, len);
        return NULL;
    }
    hid_t t = H5Dget_type(d);
    H5T_class_t cls = H5Tget_class(t);
    H5Tclose(t);
    if (cls != H5T_INTEGER && (want_int || cls != H5T_FLOAT)) {
        H5Dclose(d);
        mcb_fail(err, MCB_E_INPUT, "%s: dataset %s must hold %s", ctx, path,
                 want_int ? "integers" : "numbers");
        return NULL;
    }
    void *buf = mcb_malloc((size_t)len, size);
    if (!buf) {
        H5Dclose(d);
        mcb_fail(err, MCB_E_NOMEM, "%s: out of memory reading %s", ctx, path);
        return NULL;
    }
    if (len > 0 && H5Dread(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        H5Dclose(d);
        mcb_fail(err, MCB_E_INPUT, "%s: cannot read dataset %s (values out of range?)", ctx,
                 path);
        return NULL;
    }
    H5Dclose(d);
    return buf;
}

double *mcb_h5_read_doubles(hid_t loc, const char *path, long len, const char *ctx, mcb_err *err)
{
    return read_1d(loc, path, len, ctx, err, H5T_NATIVE_DOUBLE, sizeof(double), 0);
}

int *mcb_h5_read_ints(hid_t loc, const char *path, long len, const char *ctx, mcb_err *err)
{
    return read_1d(loc, path, len, ctx, err, H5T_NATIVE_INT, sizeof(int), 1);
}

hid_t mcb_h5_create_group(hid_t loc, const char *path)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t g = H5Gcreate2(loc, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    H5Pclose(lcpl);
    return g;
}

static int write_nd(hid_t loc, const char *path, hid_t filetype, hid_t memtype, const void *x,
                    int rank, const hsize_t *dims)
{
    hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
    H5Pset_create_intermediate_group(lcpl, 1);
    hid_t s = H5Screate_simple(rank, dims, NULL);
    hid_t d = H5Dcreate2(loc, path, filetype, s, lcpl, H5P_DEFAULT, H5P_DEFAULT);
    int rc = d < 0;
    hsize_t total = 1;
    for (int k = 0; k < rank; k++) total *= dims[k];
    if (!rc && total > 0) rc = H5Dwrite(d, memtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0;
    if (d >= 0) H5Dclose(d);
    H5Sclose(s);
    H5Pclose(lcpl);
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

static int attr_write(hid_t obj, const char *name, hid_t filetype, hid_t memtype,
                      const void *v, int count)
{
    if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
    hsize_t dims[1] = {(hsize_t)count};
    hid_t s = count == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, dims, NULL);
    hid_t a = H5Acreate2(obj, name, filetype, s, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a < 0 || H5Awrite(a, memtype, v) < 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(s);
    return rc ? -1 : 0;
}

int mcb_h5_attr_write_str(hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    H5Tset_size(t, H5T_VARIABLE);
    H5Tset_cset(t, H5T_CSET_UTF8);
    const char *v = value ? value : "";
    int rc = attr_write(obj, name, t, t, &v, 1);
    H5Tclose(t);
    return rc;
}

int mcb_h5_attr_write_int(hid_t obj, const char *name, long value)
{
    return attr_write(obj, name, H5T_STD_I64LE, H5T_NATIVE_LONG, &value, 1);
}

int mcb_h5_attr_write_double(hid_t obj, const char *name, double value)
{
    return attr_write(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, 1);
}

int mcb_h5_attr_write_ints(hid_t obj, const char *name, const long *v, int count)
{
    if (count == 1) {
        hsize_t dims[1] = {1};
        if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
        hid_t s = H5Screate_simple(1, dims, NULL);
        hid_t a = H5Acreate2(obj, name, H5T_STD_I64LE, s, H5P_DEFAULT, H5P_DEFAULT);
        int rc = a < 0 || H5Awrite(a, H5T_NATIVE_LONG, v) < 0;
        if (a >= 0) H5Aclose(a);
        H5Sclose(s);
        return rc ? -1 : 0;
    }
    return attr_write(obj, name, H5T_STD_I64LE, H5T_NATIVE_LONG, v, count);
}

static hid_t open_attr(hid_t obj, const char *name, H5T_class_t want, long *count)
{
    if (H5Aexists(obj, name) <= 0) return -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return -1;
    hid_t t = H5Aget_type(a);
    H5T_class_t cls = H5Tget_class(t);
    H5Tclose(t);
    hid_t s = H5Aget_space(a);
    long n = (long)H5Sget_simple_extent_npoints(s);
    H5Sclose(s);
    int ok = cls == want || (want == H5T_FLOAT && cls == H5T_INTEGER);
    if (!ok) {
        H5Aclose(a);
        return -1;
    }
    *count = n;
    return a;
}

char *mcb_h5_attr_read_str(hid_t obj, const char *name)
{
    long n = 0;
    hid_t a = open_attr(obj, name, H5T_STRING, &n);
    if (a < 0) return NULL;
    char *out = NULL;
    hid_t t = H5Aget_type(a);
    if (n == 1) {
        if (H5Tis_variable_str(t) > 0) {
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, H5T_VARIABLE);
            H5Tset_cset(mt, H5Tget_cset(t));
            char *v = NULL;
            if (H5Aread(a, mt, &v) >= 0 && v) {
                out = mcb_strdup(v);
                H5free_memory(v);
            }
            H5Tclose(mt);
        } else {
            size_t size = H5Tget_size(t);
            hid_t mt = H5Tcopy(H5T_C_S1);
            H5Tset_size(mt, size + 1);
            H5Tset_strpad(mt, H5T_STR_NULLTERM);
            char *buf = calloc(size + 2, 1);
            if (buf && H5Aread(a, mt, buf) >= 0) out = buf;
            else free(buf);
            H5Tclose(mt);
        }
    }
    H5Tclose(t);
    H5Aclose(a);
    return out;
}

int mcb_h5_attr_read_ints(hid_t obj, const char *name, long *v, int count)
{
    long n = 0;
    hid_t a = open_attr(obj, name, H5T_INTEGER, &n);
    if (a < 0) return -1;
    int rc = (n == count && H5Aread(a, H5T_NATIVE_LONG, v) >= 0) ? 0 : -1;
    H5Aclose(a);
    return rc;
}

int mcb_h5_attr_read_int(hid_t obj, const char *name, long *value)
{
    return mcb_h5_attr_read_ints(obj, name, value, 1);
}

int mcb_h5_attr_read_double(hid_t obj, const char *name, double *value)
{
    long n = 0;
    hid_t a = open_attr(obj, name, H5T_FLOAT, &n);
    if (a < 0) return -1;
    int rc = (n == 1 && H5Aread(a, H5T_NATIVE_DOUBLE, value) >= 0) ? 0 : -1;
    H5Aclose(a);
    return rc;
}

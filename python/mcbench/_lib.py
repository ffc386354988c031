"""_lib.py: libmcbench.so through ctypes.

Finds and loads the C library, mirrors the C structures the package reads
and writes (lib/mcb_problem.h, lib/mcb_error.h, lib/mcb_vocab.h,
lib/mcb_results.h) and declares the argument and return types of every C
function the package calls. Nothing here allocates Python-side copies of
problems: problem.py does that.

The library is looked for, in this order:
  1. the environment variable MCBENCH_LIB (a path to libmcbench.so*);
  2. the path the installation recorded in _config.py (cmake --install
     writes it, relative to this package's directory);
  3. the build tree: MCBENCH_BUILD (a build directory) or SRC/build beside
     this package's source tree;
  4. the dynamic linker's own search (ctypes.util.find_library).
The first that exists is loaded; failing all, importing the package raises
OSError naming every place looked at.
"""

import ctypes
import ctypes.util
import os

# --- finding the library --------------------------------------------------


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    env = os.environ.get("MCBENCH_LIB")
    if env:
        # an explicit override is the only candidate: a wrong one must fail
        return [env]
    out = []
    try:
        from . import _config  # written by cmake --install

        out.append(os.path.normpath(os.path.join(here, _config.LIBRARY)))
    except ImportError:
        pass
    builds = []
    if os.environ.get("MCBENCH_BUILD"):
        builds.append(os.environ["MCBENCH_BUILD"])
    builds.append(os.path.join(here, os.pardir, os.pardir, "build"))
    for b in builds:
        out.append(os.path.normpath(os.path.join(b, "libmcbench.so")))
    return out


def _load():
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            return ctypes.CDLL(path), path
        tried.append(path)
    found = ctypes.util.find_library("mcbench")
    if found:
        try:
            return ctypes.CDLL(found), found
        except OSError:
            tried.append(found)
    raise OSError(
        "mcbench: libmcbench.so not found (tried %s and the linker's search path); "
        "set MCBENCH_LIB to its path" % ", ".join(tried or ["nothing"])
    )


lib, path = _load()

# --- structures (layouts as in the C headers; keep in step with them) -----

c_int_p = ctypes.POINTER(ctypes.c_int)
c_double_p = ctypes.POINTER(ctypes.c_double)

MCB_ERR_LEN = 1024
NMETRICS = 10  # MCB_NMETRICS, lib/mcb_vocab.h
TRACE_COLS = 3 + NMETRICS  # MCB_TRACE_COLS
STEP_COLS = 10 + NMETRICS + 13  # MCB_STEP_COLS

# mcb_rc (lib/mcb_error.h)
MCB_OK, MCB_E_INPUT, MCB_E_IO, MCB_E_NOMEM, MCB_E_NUMERIC = 0, 1, 2, 3, 4

# mcb_ctype, mcb_form (lib/mcb_problem.h); mcb_law (lib/mcb_vocab.h)
BLOCK_TYPES = ("bilateral", "unilateral", "soft", "contact", "contact_ccp")
FORMS = ("primal", "dual")
LAWS = ("ncp", "ccp")


class mcb_err(ctypes.Structure):
    _fields_ = [("msg", ctypes.c_char * MCB_ERR_LEN)]


class mcb_csc(ctypes.Structure):
    _fields_ = [
        ("m", ctypes.c_int),
        ("n", ctypes.c_int),
        ("p", c_int_p),
        ("i", c_int_p),
        ("x", c_double_p),
    ]


class mcb_block(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("row", ctypes.c_int),
        ("nrows", ctypes.c_int),
        ("mu", ctypes.c_double),
        ("k", ctypes.c_double),
        ("alpha", ctypes.c_double),
    ]


class mcb_mujoco(ctypes.Structure):
    _fields_ = [
        ("model", ctypes.POINTER(ctypes.c_ubyte)),
        ("model_bytes", ctypes.c_long),
        ("nq", ctypes.c_int),
        ("nv", ctypes.c_int),
        ("na", ctypes.c_int),
        ("nu", ctypes.c_int),
        ("qpos", c_double_p),
        ("qvel", c_double_p),
        ("act", c_double_p),
        ("ctrl", c_double_p),
        ("qacc_warmstart", c_double_p),
        ("time", ctypes.c_double),
        ("contacts", ctypes.c_int),
    ]


class mcb_problem(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_void_p),  # char *: owned by C (mcb_strdup)
        ("source", ctypes.c_void_p),
        ("scene", ctypes.c_void_p),
        ("notes", ctypes.c_void_p),
        ("h", ctypes.c_double),
        ("step", ctypes.c_int),
        ("form", ctypes.c_int),
        ("n", ctypes.c_int),
        ("m", ctypes.c_int),
        ("A", ctypes.POINTER(mcb_csc)),
        ("J", ctypes.POINTER(mcb_csc)),
        ("b", c_double_p),
        ("e", c_double_p),
        ("W", ctypes.POINTER(mcb_csc)),
        ("q", c_double_p),
        ("nblocks", ctypes.c_int),
        ("blocks", ctypes.POINTER(mcb_block)),
        ("nsub", ctypes.c_int),
        ("sub_start", c_int_p),
        ("r", c_double_p),
        ("v0", c_double_p),
        ("lambda0", c_double_p),
        ("v_ref", c_double_p),
        ("lambda_ref", c_double_p),
        ("mass_ratio", ctypes.c_double),
        ("cond_est", ctypes.c_double),
        ("nbodies", ctypes.c_int),
        ("Jc", ctypes.POINTER(mcb_csc)),
        ("Jb", ctypes.POINTER(mcb_csc)),
        ("body_parent", c_int_p),
        ("body_sub", c_int_p),
        ("mujoco", ctypes.POINTER(mcb_mujoco)),
        ("rank", ctypes.c_int),
        ("rank_tol", ctypes.c_double),
        ("psd_defect", ctypes.c_double),
        ("mu2", c_double_p),
    ]


mcb_problem_p = ctypes.POINTER(mcb_problem)


class mcb_problem_set(ctypes.Structure):
    _fields_ = [("count", ctypes.c_int), ("items", ctypes.POINTER(mcb_problem_p))]


class mcb_metrics(ctypes.Structure):
    _fields_ = [("val", ctypes.c_double * NMETRICS)]


class mcb_run_rec(ctypes.Structure):
    _fields_ = [
        ("problem_set", ctypes.c_char_p),
        ("problem", ctypes.c_char_p),
        ("solver", ctypes.c_char_p),
        ("reason", ctypes.c_char_p),
        ("config", ctypes.c_char_p),
        ("run_index", ctypes.c_int),
        ("problem_index", ctypes.c_int),
        ("rep", ctypes.c_int),
        ("status", ctypes.c_int),
        ("iterations", ctypes.c_int),
        ("n", ctypes.c_int),
        ("m", ctypes.c_int),
        ("ncontacts", ctypes.c_int),
        ("inner_iterations", ctypes.c_int),
        ("checks", ctypes.c_int),
        ("timing", ctypes.c_int),
        ("setup_s", ctypes.c_double),
        ("solve_s", ctypes.c_double),
        ("own_residual", ctypes.c_double),
        ("measure_s", ctypes.c_double),
        ("observed_solve_s", ctypes.c_double),
        ("form_residual", ctypes.c_double),
        ("own_status", ctypes.c_int),
        ("own_stop", ctypes.c_int),
        ("final", mcb_metrics),
        ("trace_rows", ctypes.c_int),
        ("trace", c_double_p),
        ("v", c_double_p),
        ("lambda_", c_double_p),
        ("step_rows", ctypes.c_int),
        ("steps", c_double_p),
        ("start", ctypes.c_int),
        ("load_avg", ctypes.c_double),
        ("cpu_mhz", ctypes.c_double),
        ("cpu_max_mhz", ctypes.c_double),
        ("others_share", ctypes.c_double),
    ]


class mcb_results_data(ctypes.Structure):
    _fields_ = [
        ("count", ctypes.c_int),
        ("runs", ctypes.POINTER(mcb_run_rec)),
        ("complete", ctypes.c_int),
        ("stop_metric", ctypes.c_char_p),
        ("tol", ctypes.c_double),
        ("max_iters", ctypes.c_int),
        ("time_limit_s", ctypes.c_double),
        ("threads", ctypes.c_int),
        ("date", ctypes.c_char_p),
        ("git_revision", ctypes.c_char_p),
        ("cpu_model", ctypes.c_char_p),
        ("compiler", ctypes.c_char_p),
        ("command", ctypes.c_char_p),
        ("cflags", ctypes.c_char_p),
        ("settings", ctypes.c_char_p),
        ("inputs", ctypes.c_char_p),
        ("gpu_device", ctypes.c_char_p),
        ("cpu_count", ctypes.c_int),
        ("warm_start", ctypes.c_int),
        ("check_every", ctypes.c_int),
        ("trace_every", ctypes.c_int),
        ("timing", ctypes.c_int),
        ("repeat", ctypes.c_int),
        ("total_runs", ctypes.c_int),
        ("ndesc", ctypes.c_int),
        ("desc", ctypes.c_void_p),
        ("desc_borrowed", ctypes.c_int),
    ]


# --- functions ---------------------------------------------------------------


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_err_p = ctypes.POINTER(mcb_err)
_rc = ctypes.c_int

# lib/mcb_error.h
mcb_strdup = _fn("mcb_strdup", ctypes.c_void_p, ctypes.c_char_p)
mcb_calloc = _fn("mcb_calloc", ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t)
# lib/mcb_sparse.h
mcb_csc_alloc = _fn("mcb_csc_alloc", ctypes.POINTER(mcb_csc), ctypes.c_int, ctypes.c_int,
                    ctypes.c_int)
# lib/mcb_problem.h
mcb_problem_new = _fn("mcb_problem_new", mcb_problem_p)
mcb_problem_free = _fn("mcb_problem_free", None, ctypes.POINTER(mcb_problem_p))
mcb_problem_validate = _fn("mcb_problem_validate", _rc, mcb_problem_p, ctypes.c_char_p, _err_p)
mcb_problem_set_free = _fn("mcb_problem_set_free", None,
                           ctypes.POINTER(ctypes.POINTER(mcb_problem_set)))
# lib/mcb_io.h
mcb_read_problems = _fn("mcb_read_problems", _rc, ctypes.c_char_p,
                        ctypes.POINTER(ctypes.POINTER(mcb_problem_set)), _err_p)
mcb_write_problems = _fn("mcb_write_problems", _rc, ctypes.c_char_p,
                         ctypes.POINTER(mcb_problem_p), ctypes.c_int, _err_p)
# lib/mcb_vocab.h
mcb_metric_name = _fn("mcb_metric_name", ctypes.c_char_p, ctypes.c_int)
mcb_status_name = _fn("mcb_status_name", ctypes.c_char_p, ctypes.c_int)
mcb_start_name = _fn("mcb_start_name", ctypes.c_char_p, ctypes.c_int)
mcb_trace_column = _fn("mcb_trace_column", ctypes.c_char_p, ctypes.c_int)
mcb_step_column = _fn("mcb_step_column", ctypes.c_char_p, ctypes.c_int)
mcb_law_from_name = _fn("mcb_law_from_name", ctypes.c_int, ctypes.c_char_p)
# metrics/metrics.h
mcb_metrics_ws_new = _fn("mcb_metrics_ws_new", _rc, mcb_problem_p,
                         ctypes.POINTER(ctypes.c_void_p), _err_p)
mcb_metrics_ws_free = _fn("mcb_metrics_ws_free", None, ctypes.POINTER(ctypes.c_void_p))
mcb_metrics_ws_set_law = _fn("mcb_metrics_ws_set_law", None, ctypes.c_void_p, ctypes.c_int)
mcb_metrics_compute = _fn("mcb_metrics_compute", None, ctypes.c_void_p, c_double_p, c_double_p,
                          ctypes.POINTER(mcb_metrics))
# lib/mcb_results.h
mcb_results_read = _fn("mcb_results_read", _rc, ctypes.c_char_p,
                       ctypes.POINTER(ctypes.POINTER(mcb_results_data)), _err_p)
mcb_results_data_free = _fn("mcb_results_data_free", None,
                            ctypes.POINTER(ctypes.POINTER(mcb_results_data)))

def _names(f, bound=1000):
    """A vocabulary's names, counted in the library (its name functions say
    "unknown" past the end)."""
    out = []
    while len(out) < bound and f(len(out)) != b"unknown":
        out.append(f(len(out)).decode())
    return tuple(out)


# the structures above hold MCB_NMETRICS metrics and the trace and step rows
# these many columns: a library that counts otherwise is another layout
for _what, _f, _want in (("metrics", mcb_metric_name, NMETRICS),
                         ("trace columns", mcb_trace_column, TRACE_COLS),
                         ("step columns", mcb_step_column, STEP_COLS)):
    if len(_names(_f)) != _want:
        raise OSError("mcbench: %s has %d %s, this package expects %d: the package and the "
                      "library are of different versions" % (path, len(_names(_f)), _what, _want))

# ... and every structure mirrored above has the library's size (a field
# added on the C side and not here shifts everything after it)
mcb_lib_sizeof = _fn("mcb_lib_sizeof", ctypes.c_size_t, ctypes.c_char_p)


def check_layout(sizeof, structs):
    """Raises OSError when a mirrored structure's size differs from the
    library's. sizeof: the library's function, by C name; structs: pairs
    (C name, ctypes structure)."""
    for cname, st in structs:
        want = sizeof(cname.encode())
        if want != ctypes.sizeof(st):
            raise OSError("mcbench: %s has a %d-byte %s, this package describes %d bytes: the "
                          "package and the library are of different versions"
                          % (path, want, cname, ctypes.sizeof(st)))


check_layout(mcb_lib_sizeof, [(st.__name__, st) for st in (
    mcb_err, mcb_csc, mcb_block, mcb_mujoco, mcb_problem, mcb_problem_set, mcb_metrics,
    mcb_run_rec, mcb_results_data)])

METRICS = _names(mcb_metric_name)
TRACE_COLUMNS = _names(mcb_trace_column)
STEP_COLUMNS = _names(mcb_step_column)


def cstr(p):
    """A C string held as c_void_p (owned by C) as str; None for NULL."""
    return None if not p else ctypes.string_at(p).decode("utf-8", "replace")


def dup(s):
    """A Python str as a C string the C library owns (freed by mcb_problem_free)."""
    if s is None:
        return None
    p = mcb_strdup(s.encode("utf-8"))
    if not p:
        raise MemoryError("mcbench: out of memory")
    return p


# --- errors ------------------------------------------------------------------


class Error(ValueError):
    """A refusal by the C library: bad input (a malformed file, a problem
    the validator rejects, a bad argument) or a failed call. `message` is
    the C library's message (it names the file or problem, the field and
    the reason), `rc` its mcb_rc."""

    def __init__(self, message, rc=MCB_E_INPUT):
        super().__init__(message)
        self.message = message
        self.rc = rc


def check(rc, err):
    """Raises Error (MemoryError for MCB_E_NOMEM) for a failed C call."""
    if rc == MCB_OK:
        return
    msg = err.msg.decode("utf-8", "replace")
    if rc == MCB_E_NOMEM:
        raise MemoryError("mcbench: " + msg)
    raise Error(msg, rc)


mcb_csc_check = _fn("mcb_csc_check", _rc, ctypes.POINTER(mcb_csc), ctypes.c_char_p,
                    ctypes.c_char_p, ctypes.c_int, ctypes.c_int, _err_p)
mcb_problem_infer_subsystems = _fn("mcb_problem_infer_subsystems", _rc, mcb_problem_p, _err_p)

mcb_timed_name = _fn("mcb_timed_name", ctypes.c_char_p, ctypes.c_int)
mcb_timing_name = _fn("mcb_timing_name", ctypes.c_char_p, ctypes.c_int)
mcb_warm_name = _fn("mcb_warm_name", ctypes.c_char_p, ctypes.c_int)


def name(f, k):
    """A vocabulary name (mcb_status_name, ...) as str."""
    s = f(k)
    return s.decode() if s is not None else ""


class Owner:
    """Something that owns C memory: close() frees it (and must accept
    being called again); `with` and garbage collection call it."""

    def close(self):
        raise NotImplementedError

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

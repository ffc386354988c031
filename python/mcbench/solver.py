"""Python solvers under the harness's rules (docs/python.md, "Python solvers").

A Python solver is a class (or an instance of one) with

    name = "my_solver"                 # its registry name
    params = {"omega": 1.0}            # optional: parameters, float or int defaults
    forms = ("primal",)                # optional: "primal", "dual" (default primal)
    def setup(self, problem, settings) # once per problem; timed as setup
    def solve(self, settings, callback)
    def iterate(self) -> (v, lam)      # optional: the current iterate

register() turns it into a C mcb_solver_def (solvers/solver.h) whose
function pointers are ctypes callbacks, and adds it to libmcbench's registry
with mcb_registry_add: from then on the harness runs it as any plugin, under
the same budgets, callback, on-demand iterate(), isolation and statuses.

solve() calls callback(iteration, own_residual) once per iteration; it
returns False when the harness says stop (converged by the harness's metric,
time limit, divergence), and solve() then returns. With iterate() the harness
checks and traces during the solve as for a C solver; without it, solve()
returns (v, lam) and the final iterate alone is judged (a "black box" solver:
the time limit is applied after the fact, and isolation kills a solver that
overruns it). solve() may also return a status name ("stalled", ...).
An exception in setup is the status setup_failed, in solve the status
crashed, in iterate a non-finite iterate (diverged), each with the exception
as the reason.
"""
import ctypes as C
import importlib.util
import inspect
import math
import os
import sys
import types

import numpy as np

from . import _lib
from .problem import Problem

MCB_ERR_LEN = 1024
MCB_E_INPUT = 1
MCB_ACCEPTS_PRIMAL, MCB_ACCEPTS_DUAL = 1, 2
# mcb_status (lib/mcb_vocab.h), by the library's own names
ST_MAX_ITERS, ST_STALLED, ST_CRASHED = (_lib.lib.mcb_status_from_name(w) for w in
                                        (b"max-iterations", b"stalled", b"crashed"))


class Settings(C.Structure):
    """mcb_settings: the budget shared by every solver of a campaign."""
    _fields_ = [("max_iters", C.c_int), ("time_limit_s", C.c_double), ("tol", C.c_double),
                ("threads", C.c_int), ("warm_start", C.c_int)]


class Info(C.Structure):
    """mcb_info: what a solve reports."""
    _fields_ = [("status", C.c_int), ("iterations", C.c_int), ("own_residual", C.c_double),
                ("setup_s", C.c_double), ("solve_s", C.c_double),
                ("reason", C.c_char * MCB_ERR_LEN), ("inner_iterations", C.c_int)]


class ParamDesc(C.Structure):
    """mcb_param_desc: one parameter of the solver's parameter struct."""
    _fields_ = [("name", C.c_char_p), ("type", C.c_char), ("offset", C.c_size_t),
                ("help", C.c_char_p)]


ITER_CB = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_int, C.c_double)
ACCEPTS_FN = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_void_p, C.c_size_t)
DEFAULTS_FN = C.CFUNCTYPE(None, C.c_void_p)
SETUP_FN = C.CFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(Settings), C.c_void_p,
                       C.POINTER(C.c_void_p), C.c_void_p)
SOLVE_FN = C.CFUNCTYPE(C.c_int, C.c_void_p, C.POINTER(Settings), ITER_CB, C.c_void_p,
                       C.POINTER(Info))
ITERATE_FN = C.CFUNCTYPE(None, C.c_void_p, C.POINTER(C.c_double), C.POINTER(C.c_double))
FREE_FN = C.CFUNCTYPE(None, C.POINTER(C.c_void_p))


class SolverDef(C.Structure):
    """mcb_solver_def (solver interface version 2)."""
    _fields_ = [("name", C.c_char_p), ("description", C.c_char_p), ("reference", C.c_char_p),
                ("accepts", C.c_uint), ("accepts_problem", C.c_void_p),
                ("black_box", C.c_int), ("black_box_forms", C.c_uint),
                ("params_size", C.c_size_t), ("default_params", DEFAULTS_FN),
                ("params", C.POINTER(ParamDesc)), ("nparams", C.c_int),
                ("check_params", C.c_void_p), ("setup", SETUP_FN), ("solve", SOLVE_FN),
                ("iterate", ITERATE_FN), ("free", FREE_FN), ("state_size", C.c_void_p),
                ("save_state", C.c_void_p), ("load_state", C.c_void_p)]


_lib.check_layout(_lib._fn("mcb_solver_sizeof", C.c_size_t, C.c_char_p),
                  [("mcb_settings", Settings), ("mcb_info", Info),
                   ("mcb_param_desc", ParamDesc), ("mcb_solver_def", SolverDef)])


class SolverError(ValueError):
    """A Python solver or plugin file that cannot be registered (names the file)."""


def _write_err(err, msg):
    """Writes msg into the mcb_err at address err (truncated, NUL-terminated)."""
    if err:
        raw = msg.encode("utf-8", "replace")[:MCB_ERR_LEN - 1] + b"\0"
        C.memmove(err, raw, len(raw))


def _why(e):
    return "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__


def _status_of(ret):
    """A status returned by solve() (a name or a number) as mcb_status, or None."""
    if isinstance(ret, str):
        k = _lib.lib.mcb_status_from_name(ret.replace("_", "-").encode())
        if k < 0:
            raise ValueError("solve() returned %r, not a status name (solved, max-iterations, "
                             "time-limit, diverged, stalled, ...)" % ret)
        return k
    if isinstance(ret, (int, np.integer)) and not isinstance(ret, bool):
        return int(ret)
    return None


def is_solver_class(obj):
    """A class with a name and callable setup and solve."""
    return (inspect.isclass(obj) and isinstance(getattr(obj, "name", None), str)
            and callable(getattr(obj, "setup", None)) and callable(getattr(obj, "solve", None)))


class _Run:
    """One setup's state: the instance, the problem and settings it saw."""

    def __init__(self, inst, problem, settings):
        self.inst, self.problem, self.settings = inst, problem, settings
        self.result = None     # the simple form: (v, lam) returned by solve()
        self.error = None      # an exception in iterate(), reported by solve()
        self.stopped = False   # the harness said stop
        self._start = None

    def start(self):
        """The starting point (lambda0 under warm start, else 0) for the simple form."""
        if self._start is None:
            P, s = self.problem, self.settings
            lam = np.zeros(P.m)
            if s.warm_start and getattr(P, "lambda0", None) is not None:
                lam = np.array(P.lambda0, dtype=float)
            self._start = (velocity(P, lam), lam)
        return self._start


def velocity(problem, lam):
    """v = A^-1 (b + J^T lam) of a primal problem (None for a dual one)."""
    if getattr(problem, "A", None) is None:
        return None
    import scipy.sparse.linalg as sla
    return sla.spsolve(problem.A.tocsc(), problem.b + problem.J.T @ lam)


class PythonSolver:
    """The C side of one registered Python solver: its mcb_solver_def and the
    callbacks behind it. The def lives as long as the process (the registry
    keeps a pointer to it); registering the same name again replaces the
    Python object behind it."""

    def __init__(self, target, origin):
        self.target, self.origin = target, origin
        cls = target if inspect.isclass(target) else type(target)
        self.name = cls.name if inspect.isclass(target) else target.name
        self.has_iterate = callable(getattr(cls, "iterate", None))
        self.runs = {}
        self.next_key = 1
        self._build(cls)

    # --- the definition -------------------------------------------------
    def _build(self, cls):
        params = dict(getattr(cls, "params", None) or {})
        for k, v in params.items():
            if not isinstance(k, str) or isinstance(v, bool) or not isinstance(v, (int, float)):
                raise SolverError("%s: params must map names to int or float defaults (%r: %r)"
                                  % (self.name, k, v))
        self.param_names = list(params)
        self.param_defaults = params
        n = len(params)
        self.desc = (ParamDesc * max(n, 1))()
        self._keep = [self.name.encode()]
        for k, (pname, pval) in enumerate(params.items()):
            b = pname.encode()
            h = ("%s parameter (default %r)" % (self.name, pval)).encode()
            self._keep += [b, h]
            self.desc[k] = ParamDesc(b, b"i" if isinstance(pval, int) else b"d", 8 * k, h)
        forms = tuple(getattr(cls, "forms", ("primal",)))
        accepts = (MCB_ACCEPTS_PRIMAL if "primal" in forms else 0) | \
                  (MCB_ACCEPTS_DUAL if "dual" in forms else 0)
        doc = (inspect.getdoc(cls) or "a Python solver").splitlines()[0].encode()
        ref = ("Python: %s" % (self.origin or cls.__module__)).encode()
        self._keep += [doc, ref]
        self.c_accepts = ACCEPTS_FN(self._accepts) if callable(getattr(cls, "accepts", None)) \
            else None
        self.c_defaults = DEFAULTS_FN(self._defaults)
        self.c_setup = SETUP_FN(self._setup)
        self.c_solve = SOLVE_FN(self._solve)
        self.c_iterate = ITERATE_FN(self._iterate)
        self.c_free = FREE_FN(self._free)
        self.cdef = SolverDef(
            name=self._keep[0], description=doc, reference=ref, accepts=accepts,
            accepts_problem=C.cast(self.c_accepts, C.c_void_p) if self.c_accepts else None,
            black_box=0 if self.has_iterate else 1, params_size=8 * max(n, 1),
            default_params=self.c_defaults, params=self.desc, nparams=n,
            setup=self.c_setup, solve=self.c_solve, iterate=self.c_iterate, free=self.c_free)

    def _defaults(self, p):
        for k, v in enumerate(self.param_defaults.values()):
            if isinstance(v, int):
                C.c_int.from_address(p + 8 * k).value = v
            else:
                C.c_double.from_address(p + 8 * k).value = float(v)

    def _read_params(self, p):
        out = {}
        for k, (name, v) in enumerate(self.param_defaults.items()):
            if not p:
                out[name] = v
            elif isinstance(v, int):
                out[name] = C.c_int.from_address(p + 8 * k).value
            else:
                out[name] = C.c_double.from_address(p + 8 * k).value
        return out

    def _instance(self):
        return self.target() if inspect.isclass(self.target) else self.target

    # --- the callbacks --------------------------------------------------
    def _accepts(self, P, reason, size):
        """accepts(problem) -> None (taken) or why not (the run is skipped)."""
        try:
            why = self._instance().accepts(Problem._from_c(P))
        except BaseException:  # noqa: B902 - judged in setup, which says why
            why = None
        if why is None:
            return 1
        raw = ("%s" % why).encode("utf-8", "replace")[:max(int(size) - 1, 0)] + b"\0"
        C.memmove(reason, raw, len(raw))
        return 0

    def _setup(self, P, s, params, work, err):
        work[0] = None
        try:
            st = s.contents
            settings = types.SimpleNamespace(
                max_iters=st.max_iters, time_limit_s=st.time_limit_s, tol=st.tol,
                threads=st.threads, warm_start=st.warm_start)
            problem = Problem._from_c(P)
            inst = self._instance()
            inst.params = self._read_params(params)
            inst.setup(problem, settings)
        except BaseException as e:  # noqa: B902 - every failure is a status
            _write_err(err, "%s: setup raised %s" % (self.name, _why(e)))
            return MCB_E_INPUT
        key = self.next_key
        self.next_key += 1
        self.runs[key] = _Run(inst, problem, settings)
        work[0] = key
        return 0

    def _solve(self, work, s, cb, ctx, info):
        run = self.runs[work]
        inf = info.contents
        run.stopped = False
        action = [0]

        def callback(iteration, own_residual=math.nan):
            if action[0]:
                return False  # stopped already: a solver that goes on is not asked again
            inf.iterations = int(iteration)
            inf.own_residual = float(own_residual)
            if not self.has_iterate:
                return True
            a = cb(ctx, int(iteration), float(own_residual))
            if a:
                action[0] = a
                return False
            return True

        try:
            ret = run.inst.solve(run.settings, callback)
            if not self.has_iterate:
                if not (isinstance(ret, tuple) and len(ret) == 2):
                    raise TypeError("solve() of a solver without iterate() returns (v, lam)")
                lam = np.asarray(ret[1], dtype=float)
                if lam.shape != (run.problem.m,):
                    raise ValueError("solve() returned lam of shape %s, not (%d,)"
                                     % (lam.shape, run.problem.m))
                v = ret[0] if ret[0] is not None else velocity(run.problem, lam)
                run.result = (v, lam)
                ret = None
            status = _status_of(ret)
        except BaseException as e:  # noqa: B902
            inf.reason = ("%s: solve raised %s" % (self.name, _why(e))).encode()[:MCB_ERR_LEN - 1]
            return ST_CRASHED
        if run.error is not None:
            inf.reason = run.error.encode()[:MCB_ERR_LEN - 1]
        if action[0]:
            return _lib.lib.mcb_status_from_cb(action[0])
        if status is not None:
            return status
        if inf.iterations >= run.settings.max_iters:
            return ST_MAX_ITERS
        if not self.has_iterate:
            return ST_STALLED  # the harness judges it: solved when its metric is met
        if not inf.reason:
            inf.reason = b"the solver stopped on its own"
        return ST_STALLED

    def _iterate(self, work, v, lam):
        run = self.runs[work]
        P = run.problem
        try:
            if self.has_iterate:
                vv, ll = run.inst.iterate()
            else:
                vv, ll = run.result if run.result is not None else run.start()
            ll = np.asarray(ll, dtype=float)
            if ll.shape != (P.m,):
                raise ValueError("iterate() returned lam of shape %s, not (%d,)" % (ll.shape, P.m))
            C.memmove(lam, np.ascontiguousarray(ll).ctypes.data, 8 * P.m)
            if v and P.n > 0:
                vv = np.asarray(vv if vv is not None else velocity(P, ll), dtype=float)
                if vv.shape != (P.n,):
                    raise ValueError("iterate() returned v of shape %s, not (%d,)"
                                     % (vv.shape, P.n))
                C.memmove(v, np.ascontiguousarray(vv).ctypes.data, 8 * P.n)
        except BaseException as e:  # noqa: B902 - a NaN iterate: the harness says diverged
            run.error = "%s: iterate raised %s" % (self.name, _why(e))
            for k in range(P.m):
                lam[k] = math.nan
            if v:
                for k in range(P.n):
                    v[k] = math.nan

    def _free(self, work):
        if work and work[0]:
            self.runs.pop(work[0], None)
            work[0] = None


_registered = {}  # name -> PythonSolver, alive as long as the process


def register(solver, origin=None):
    """Adds a Python solver (a class or an instance) to libmcbench's registry
    and returns its name. The same name again replaces the Python object
    behind the registered solver; a name of a C solver is refused."""
    cls = solver if inspect.isclass(solver) else type(solver)
    name = getattr(solver, "name", None)
    if not isinstance(name, str) or not name or not callable(getattr(cls, "setup", None)) \
            or not callable(getattr(cls, "solve", None)):
        raise SolverError("%s is not a Python solver: it needs a name and setup() and solve() "
                          "methods (docs/python.md, \"Python solvers\")" % (solver,))
    if name in _registered:
        _registered[name].target = solver
        return name
    ps = PythonSolver(solver, origin)
    err = C.create_string_buffer(MCB_ERR_LEN)
    L = _lib.lib
    L.mcb_registry_add.argtypes = [C.c_void_p, C.c_char_p, C.c_void_p]
    label = "plugin %s" % origin if origin else "python class %s.%s" % (cls.__module__,
                                                                        cls.__qualname__)
    rc = L.mcb_registry_add(C.addressof(ps.cdef), label.encode(), err)
    if rc:
        raise SolverError(err.value.decode("utf-8", "replace"))
    _registered[name] = ps
    return name


def load_file(path):
    """Imports a plugin file and registers its one solver class; returns the
    PythonSolver. Raises SolverError naming the file and the reason."""
    if not os.path.isfile(path):
        raise SolverError("plugin %s: no such file" % path)
    modname = "mcbench_plugin_%d" % len(sys.modules)
    try:
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
    except BaseException as e:  # noqa: B902 - the file's fault, said plainly
        sys.modules.pop(modname, None)
        raise SolverError("plugin %s: raises at import: %s" % (path, _why(e))) from None
    found = [c for c in vars(mod).values() if is_solver_class(c) and c.__module__ == modname]
    if not found:
        raise SolverError("plugin %s: defines no solver class (a class with name, setup() and "
                          "solve(); docs/python.md, \"Python solvers\")" % path)
    if len(found) > 1:
        raise SolverError("plugin %s: defines %d solver classes (%s): a plugin holds one"
                          % (path, len(found), ", ".join(c.__name__ for c in found)))
    name = register(found[0], origin=path)
    return _registered[name]

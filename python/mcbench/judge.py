"""judge.py: the harness's judgement of a solution (metrics/metrics.h).

Every residual is computed by the C metrics from (v, lambda) alone, on the
problem as the C library holds it, exactly as a campaign computes its
final_<metric> (docs/metrics.md)."""

import ctypes

import numpy as np

from . import _lib
from ._lib import Error
from .problem import CProblem, Problem


class Judge(_lib.Owner):
    """The C metrics' workspace for one problem (for primal problems A is
    factored once), reused for every judge(v, lam) of that problem. `law`
    is "ncp" (every block judged by its stored type) or "ccp" (every
    contact block judged as contact_ccp), as `mcbench run --law`."""

    def __init__(self, problem, law="ncp"):
        self._ws = ctypes.c_void_p()
        code = _lib.mcb_law_from_name(str(law).encode())
        if code < 0:
            raise Error("mcbench.judge: law = '%s' is unknown (%s)" % (law, "|".join(_lib.LAWS)))
        if isinstance(problem, Problem):
            self._c = problem._to_c()
        elif isinstance(problem, CProblem):
            self._c = problem  # borrowed: the caller keeps it alive
        else:
            raise TypeError("mcbench.judge: problem is a %s, not an mcbench.Problem"
                            % type(problem).__name__)
        c = self._c.ptr.contents
        self.n = c.n if c.form == 0 else 0
        self.m = c.m
        self.primal = c.form == 0
        err = _lib.mcb_err()
        _lib.check(_lib.mcb_metrics_ws_new(self._c.ptr, ctypes.byref(self._ws),
                                           ctypes.byref(err)), err)
        _lib.mcb_metrics_ws_set_law(self._ws, code)

    def _vec(self, x, n, what):
        if x is None:
            raise Error("mcbench.judge: %s is missing" % what)
        a = np.ascontiguousarray(np.asarray(x, dtype=np.float64).ravel())
        if len(a) != n:
            raise Error("mcbench.judge: %s has %d entries, expected %d" % (what, len(a), n))
        return a

    def __call__(self, v, lam):
        """The metrics of (v, lam) as a dict {metric name: value} in the
        order of docs/metrics.md (dyn_abs ... natmap_ccp). v is ignored
        (may be None) for a dual-form problem."""
        if not self._ws:
            raise ValueError("mcbench.Judge: closed")
        lam = self._vec(lam, self.m, "lam")
        dp = _lib.c_double_p
        vp = None
        if self.primal:
            v = self._vec(v, self.n, "v")
            vp = v.ctypes.data_as(dp)
        out = _lib.mcb_metrics()
        _lib.mcb_metrics_compute(self._ws, vp, lam.ctypes.data_as(dp), ctypes.byref(out))
        return {name: out.val[k] for k, name in enumerate(_lib.METRICS)}

    def close(self):
        if self._ws:
            _lib.mcb_metrics_ws_free(ctypes.byref(self._ws))


def judge(problem, v, lam, law="ncp"):
    """The harness's residuals of (v, lam) on problem (metrics/metrics.h):
    a dict with dyn_abs, dyn_rel, fb, fb_max, natmap, zres, pen_max,
    pen_sum, natmap_ncp, natmap_ccp (docs/metrics.md). law: "ncp" or
    "ccp" (mcbench run --law). A problem the C validator refuses, or v /
    lam of the wrong length, raises mcbench.Error."""
    with Judge(problem, law) as J:
        return J(v, lam)

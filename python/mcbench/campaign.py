"""mcbench.run: a campaign from Python (docs/python.md, "Python solvers").

It is `mcbench run` itself, called in this process through the library's
mcb_cli_main (mcbench._host): the same checks, budgets, isolation, journal
and results file. Registered solvers are named; Python solvers are passed
as classes or instances and registered first (mcbench.solver.register).
"""
import os
import tempfile

from . import _host
from . import solver as _solver

# keyword -> mcbench run option (mcbench run --help)
_OPTIONS = {
    "max_iters": "--iters", "time_limit_s": "--time-limit", "tol": "--tol",
    "threads": "--threads", "warm_start": "--warm-start", "check_every": "--check-every",
    "trace_every": "--trace-every", "timing": "--timing", "repeat": "--repeat",
    "stop_metric": "--stop-metric", "law": "--law", "isolate": "--isolate",
    "tiers": "--tiers", "csv": "--csv", "describe": "--describe", "mem_limit_mb": "--mem-limit",
}


class CampaignError(RuntimeError):
    """mcbench run refused the campaign or could not finish it."""


def _word(v):
    if isinstance(v, (list, tuple)):
        return ",".join(_word(x) for x in v)
    return repr(v) if isinstance(v, float) else str(v)


def run(problems, solvers, out="results.h5", params=None, options=(), **budgets):
    """Runs every solver on every problem with the same budgets and writes the
    results file `out` (and its CSV) exactly as `mcbench run` does.

    problems: a problem file's path, a list of paths, or Problem objects
      (written to a temporary file with mcbench.save first; its problem set
      is named "python").
    solvers: names of registered solvers and Python solvers (classes or
      instances; docs/python.md).
    params: {"solver.name": value}, as --param.
    budgets: max_iters, time_limit_s, tol, threads, warm_start ("none",
      "recorded", "own"), and check_every, trace_every, timing, repeat,
      stop_metric, law, isolate, tiers, csv, describe, mem_limit_mb.
    options: further `mcbench run` arguments, verbatim.
    Returns out; raises CampaignError with mcbench's message on failure."""
    unknown = sorted(set(budgets) - set(_OPTIONS))
    if unknown:
        raise TypeError("run() got unknown budgets %s (known: %s)"
                        % (", ".join(unknown), ", ".join(sorted(_OPTIONS))))
    names = [s if isinstance(s, str) else _solver.register(s) for s in solvers]
    if not names:
        raise ValueError("run() needs at least one solver")
    with tempfile.TemporaryDirectory(prefix="mcbench-run-") as tmp:
        paths = _problem_paths(problems, tmp)
        args = ["run"] + paths + ["-o", os.fspath(out), "--solvers", ",".join(names)]
        for k, v in budgets.items():
            if v is not None:
                args += [_OPTIONS[k], _word(v)]
        for k, v in (params or {}).items():
            args += ["--param", "%s=%s" % (k, _word(v))]
        args += [str(a) for a in options]
        rc, errors = _host.cli(args, capture=True)
    if rc != 0:
        raise CampaignError("mcbench run failed (exit %d): %s"
                            % (rc, "; ".join(errors) or "see its messages above"))
    return out


def _problem_paths(problems, tmp):
    if isinstance(problems, (str, os.PathLike)):
        return [os.fspath(problems)]
    items = list(problems)
    if all(isinstance(p, (str, os.PathLike)) for p in items):
        return [os.fspath(p) for p in items]
    from . import save
    path = os.path.join(tmp, "python.h5")
    save(path, items)
    return [path]

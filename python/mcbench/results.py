"""results.py: a campaign's results (docs/results-format.md) as pandas
DataFrames, read by the C results reader (lib/mcb_results.h,
mcb_results_read): the same reader `mcbench report`, `compare` and `merge`
use, so a results file of any version it reads, or the journal of an
unfinished campaign, reads the same here."""

import ctypes
import os

import numpy as np
import pandas as pd

from . import _lib


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else ""


class _Data(_lib.Owner):
    """A results file read by mcb_results_read, freed on close."""

    def __init__(self, path):
        self.D = ctypes.POINTER(_lib.mcb_results_data)()
        err = _lib.mcb_err()
        _lib.check(_lib.mcb_results_read(os.fsencode(path), ctypes.byref(self.D),
                                         ctypes.byref(err)), err)

    def close(self):
        if getattr(self, "D", None):
            _lib.mcb_results_data_free(ctypes.byref(self.D))

    def runs(self):
        D = self.D.contents
        return [D.runs[k] for k in range(D.count)]


def _run_row(r):
    row = {
        "run_index": r.run_index, "problem_set": _s(r.problem_set), "problem": _s(r.problem),
        "problem_index": r.problem_index, "solver": _s(r.solver), "rep": r.rep,
        "status": _lib.name(_lib.mcb_status_name, r.status), "reason": _s(r.reason),
        "iterations": r.iterations, "inner_iterations": r.inner_iterations,
        "setup_s": r.setup_s, "solve_s": r.solve_s, "total_s": r.setup_s + r.solve_s,
        "own_residual": r.own_residual, "n": r.n, "m": r.m, "ncontacts": r.ncontacts,
    }
    row.update({name: r.final.val[k] for k, name in enumerate(_lib.METRICS)})
    row.update({
        "checks": r.checks, "measure_s": r.measure_s, "observed_solve_s": r.observed_solve_s,
        "timing": _lib.name(_lib.mcb_timed_name, r.timing), "form_residual": r.form_residual,
        "own_status": _lib.name(_lib.mcb_status_name, r.own_status) if r.own_status >= 0
        else "",
        "own_stop": r.own_stop, "start": _lib.name(_lib.mcb_start_name, r.start),
        "config": _s(r.config), "trace_rows": r.trace_rows, "loop_steps": r.step_rows,
        "load_avg": r.load_avg, "cpu_mhz": r.cpu_mhz, "cpu_max_mhz": r.cpu_max_mhz,
        "others_share": r.others_share,
    })
    return row


_KEYS = ("run_index", "problem_set", "problem", "solver", "rep")


def _rows_table(path, rows_of, ncols, columns):
    """One row per trace (or step) row of every run, the run's keys first."""
    parts = []
    with _Data(path) as d:
        for r in d.runs():
            nrows, p = rows_of(r)
            if nrows <= 0 or not p:
                continue
            a = np.ctypeslib.as_array(p, shape=(nrows * ncols,)).reshape(nrows, ncols).copy()
            t = pd.DataFrame(a, columns=list(columns))
            for k, key in enumerate(_KEYS):
                t.insert(k, key, _run_row(r)[key])
            parts.append(t)
    if not parts:
        return pd.DataFrame(columns=list(_KEYS) + list(columns))
    return pd.concat(parts, ignore_index=True)


def results(path):
    """A campaign's runs as a DataFrame, one row per run in run-list order:
    the run's keys (run_index, problem_set, problem, solver, rep), status
    and reason, iterations, times (setup_s, solve_s, total_s = setup_s +
    solve_s, measure_s, observed_solve_s), the final metrics (dyn_abs ...
    natmap_ccp), and the rest of the run record (docs/results-format.md).
    The campaign's context (tol, stop_metric, budgets, machine, ...) is in
    DataFrame.attrs["context"]. Traces: traces(path)."""
    with _Data(path) as d:
        df = pd.DataFrame([_run_row(r) for r in d.runs()])
        D = d.D.contents
        df.attrs["context"] = {
            "complete": bool(D.complete), "stop_metric": _s(D.stop_metric), "tol": D.tol,
            "max_iters": D.max_iters, "time_limit_s": D.time_limit_s, "threads": D.threads,
            "date": _s(D.date), "git_revision": _s(D.git_revision), "cpu_model": _s(D.cpu_model),
            "compiler": _s(D.compiler), "command": _s(D.command), "cflags": _s(D.cflags),
            "settings": _s(D.settings), "inputs": _s(D.inputs),
            "gpu_device": _s(D.gpu_device), "cpu_count": D.cpu_count,
            "warm_start": _lib.name(_lib.mcb_warm_name, D.warm_start),
            "check_every": D.check_every, "trace_every": D.trace_every,
            "timing": _lib.name(_lib.mcb_timing_name, D.timing), "repeat": D.repeat,
            "total_runs": D.total_runs,
        }
    return df


def traces(path):
    """Every run's trace as one DataFrame: the run's keys (run_index,
    problem_set, problem, solver, rep), then the trace columns (iter,
    time_s, every metric, own_residual; row 0 of a run is its starting
    point; time_s is solver time so far)."""
    return _rows_table(path, lambda r: (r.trace_rows, r.trace), _lib.TRACE_COLS,
                       _lib.TRACE_COLUMNS)


def steps(path):
    """The steps of a closed-loop campaign's runs (mcbench simulate) as one
    DataFrame: the run's keys, then the step columns (docs/closed-loop.md);
    empty for a replay campaign."""
    return _rows_table(path, lambda r: (r.step_rows, r.steps), _lib.STEP_COLS,
                       _lib.STEP_COLUMNS)


def solutions(path):
    """The stored final solutions (mcbench run --save-solutions) as a dict
    {run_index: (v, lambda)} (v None for a dual problem); runs without one
    are absent."""
    out = {}
    with _Data(path) as d:
        for r in d.runs():
            if r.lambda_:
                v = np.ctypeslib.as_array(r.v, shape=(r.n,)).copy() if r.v and r.n > 0 else None
                lam = np.ctypeslib.as_array(r.lambda_, shape=(r.m,)).copy()
                out[r.run_index] = (v, lam)
    return out

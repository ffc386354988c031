"""The Python host of the mcbench command line (docs/python.md, "Python solvers").

`python3 -m mcbench ARGS` and `mcbench run ... --plugin FILE.py` (which runs
itself again through Python: harness/cli/python_host.c) come here: the host
loads libmcbench.so, installs its script loader (mcb_plugin_set_script_loader,
harness/plugin.h) so that each --plugin FILE.py is imported and its solver
registered (mcbench.solver.load_file), and calls the library's mcb_cli_main
with the same arguments: the same commands, options, checks and files as the
mcbench binary. The library is called through ctypes.PyDLL, which keeps the
interpreter's lock during the call: the Python solvers' callbacks take it
back on this thread, and a campaign's isolated child (a fork) holds it too.
"""
import ctypes as C
import os
import signal
import sys
import tempfile

from . import _lib
from . import solver as _solver

LOADER_FN = C.CFUNCTYPE(C.c_int, C.c_char_p, C.POINTER(C.c_void_p), C.c_void_p)
ERROR_PREFIX = "mcbench: error: "


def _load(path, def_out, err):
    """The script loader: imports FILE.py and registers its solver."""
    p = path.decode("utf-8", "replace")
    try:
        def_out[0] = C.addressof(_solver.load_file(p).cdef)
        return 0
    except BaseException as e:  # noqa: B902 - a bad plugin is bad input, said plainly
        msg = str(e) if isinstance(e, _solver.SolverError) else \
            "plugin %s: %s: %s" % (p, type(e).__name__, e)
        _solver._write_err(err, msg)
        return _solver.MCB_E_INPUT


_c_loader = LOADER_FN(_load)
_py = None


def _pylib():
    """libmcbench.so through PyDLL, with the script loader installed."""
    global _py
    if _py is None:
        L = C.PyDLL(_lib.path)
        L.mcb_cli_main.argtypes = [C.c_int, C.POINTER(C.c_char_p)]
        L.mcb_cli_main.restype = C.c_int
        L.mcb_plugin_set_script_loader.argtypes = [LOADER_FN]
        L.mcb_plugin_set_script_loader(_c_loader)
        _py = L
    return _py


def _call(L, argv, arr):
    """mcb_cli_main, with Python's signal handlers given back afterwards (the
    command line installs its own, which remove its temporary files)."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        return L.mcb_cli_main(len(argv), arr)
    finally:
        for s, h in saved.items():
            if h is not None:
                signal.signal(s, h)


def cli(args, capture=False):
    """Runs `mcbench ARGS...` in this process. Returns (exit status, the
    error messages it printed, without their prefix: with capture=True
    only, which passes standard error through a file and echoes it)."""
    L = _pylib()
    argv = ["mcbench"] + [str(a) for a in args]
    arr = (C.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)
    sys.stdout.flush()
    sys.stderr.flush()
    if not capture:
        return _call(L, argv, arr), []
    with tempfile.TemporaryFile() as t:
        saved = os.dup(2)
        os.dup2(t.fileno(), 2)
        try:
            rc = _call(L, argv, arr)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        t.seek(0)
        text = t.read().decode("utf-8", "replace")
    sys.stderr.write(text)
    sys.stderr.flush()
    errors = [ln[len(ERROR_PREFIX):] if ln.startswith(ERROR_PREFIX) else ln
              for ln in text.splitlines() if ln.startswith(ERROR_PREFIX)
              or ln.startswith("mcbench %s: " % argv[1] if len(argv) > 1 else ERROR_PREFIX)]
    return rc, errors


def main(argv):
    """argv: the program name, then the command and its arguments."""
    return cli(argv[1:])[0]

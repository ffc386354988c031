"""Python solvers under the harness's rules (docs/python.md, "Python solvers"):
time limits and isolation, the NumPy PGS against the C pgs, --plugin FILE.py
on the command line (good and bad files), measurement time excluded from the
solver's time, exceptions as statuses with the reason, the simple form.

Run by ctest (python_solvers) with /usr/bin/python3; needs NumPy and SciPy
(exit 77, skipped, without them) and the environment ctest sets:
PYTHONPATH (the package), MCBENCH_LIB (libmcbench.so), MCBENCH_BIN
(the mcbench binary), MCB_EXAMPLES (examples/python)."""
import csv
import os
import subprocess
import sys
import tempfile
import time
import unittest

try:
    import numpy as np
    import scipy  # noqa: F401
except ImportError as e:  # skipped visibly, as ctest's skip code
    print("SKIP: NumPy and SciPy are needed (%s; Debian: python3-numpy python3-scipy)" % e)
    sys.exit(77)

import mcbench
from mcbench import solver as msolver

BIN = os.environ.get("MCBENCH_BIN", "mcbench")
# the command line as a user runs it: mcbench finds the package and the library itself
CLI_ENV = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MCBENCH_LIB")}
EXAMPLES = os.environ.get("MCB_EXAMPLES", os.path.join(os.path.dirname(__file__), "..", "..",
                                                       "examples", "python"))
sys.path.insert(0, EXAMPLES)
from pgs_numpy import PGSNumpy  # noqa: E402


def rows(h5):
    """The campaign's CSV (beside the results file) as dicts, keyed (problem, solver)."""
    with open(os.path.splitext(h5)[0] + ".csv") as f:
        return {(r["problem"], r["solver"]): r for r in csv.DictReader(f)}


class Hang:
    """Ignores its budget: never calls back, never returns."""
    name = "py_hang"

    def setup(self, problem, settings):
        self.m = problem.m

    def solve(self, settings, callback):
        while True:
            time.sleep(0.01)

    def iterate(self):
        return None, np.zeros(self.m)


class SlowCheck:
    """Cheap iterations, an iterate() that costs 20 ms: the harness's checks."""
    name = "py_slowcheck"

    def setup(self, problem, settings):
        self.m = problem.m

    def solve(self, settings, callback):
        for it in range(1, settings.max_iters + 1):
            if not callback(it, 1.0):
                return None
        return "max-iterations"

    def iterate(self):
        time.sleep(0.02)
        return None, np.zeros(self.m)


class SolveRaises(SlowCheck):
    name = "py_solve_raises"

    def iterate(self):
        return None, np.zeros(self.m)

    def solve(self, settings, callback):
        callback(1, 0.5)
        raise RuntimeError("planted failure in solve")


class SetupRaises(SolveRaises):
    name = "py_setup_raises"

    def setup(self, problem, settings):
        raise ValueError("planted failure in setup")


class IterateRaises(SlowCheck):
    name = "py_iterate_raises"

    def iterate(self):
        raise KeyError("planted failure in iterate")


class SimplePGS:
    """The simple form: no iterate(); solve() runs `sweeps` sweeps of the
    NumPy PGS and returns (v, lam), judged once at the end."""
    name = "py_simple_pgs"
    params = {"sweeps": 10}

    def setup(self, problem, settings):
        self.pgs = PGSNumpy()
        self.pgs.params = {"omega": 1.0, "own_tol": 0.0}
        self.pgs.setup(problem, settings)

    def solve(self, settings, callback):
        for it in range(1, self.params["sweeps"] + 1):
            self.pgs._sweep()
            callback(it, 0.0)
        return self.pgs.iterate()


class PythonSolvers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mcb-pysolvers-")
        cls.dir = cls.tmp.name
        cls.stack = os.path.join(cls.dir, "stack.h5")
        subprocess.run([BIN, "gen", "stack", "--nx", "3", "--ny", "3", "--nz", "3", "--steps",
                        "2", "-o", cls.stack], check=True, stdout=subprocess.DEVNULL)
        cls.push = os.path.join(cls.dir, "push.h5")  # a sliding cube: the local sliding step
        subprocess.run([BIN, "gen", "cube-push", "--steps", "3", "-o", cls.push], check=True,
                       stdout=subprocess.DEVNULL)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def out(self, name):
        return os.path.join(self.dir, name + ".h5")

    def test_time_limit_kills_a_solver_that_ignores_it(self):
        out = self.out("hang")
        t0 = time.monotonic()
        mcbench.run(self.stack, [Hang, "pgs"], out=out, time_limit_s=0.2, max_iters=500,
                    options=["--kill-grace", "0.3"])
        self.assertLess(time.monotonic() - t0, 8.0)  # killed at 2 x 0.2 + 0.3 s, not 10 s later
        r = rows(out)
        for p in ("stack-3x3x3-step0000", "stack-3x3x3-step0001"):
            self.assertEqual(r[(p, "py_hang")]["status"], "time-limit")
            self.assertIn("isolated run", r[(p, "py_hang")]["reason"])
            self.assertEqual(r[(p, "pgs")]["status"], "solved")  # the campaign went on

    def test_pgs_numpy_agrees_with_pgs(self):
        """The same iterations and statuses, the harness's residuals to round-off."""
        out = self.out("pgs")
        mcbench.run([self.stack, self.push], ["pgs", PGSNumpy], out=out, max_iters=400,
                    tol=1e-10, check_every=1, timing="observed", time_limit_s=0, threads=1)
        r = rows(out)
        problems = sorted({p for p, _ in r})
        self.assertEqual(len(problems), 5)
        for p in problems:
            c, py = r[(p, "pgs")], r[(p, "pgs_numpy")]
            self.assertEqual(py["status"], c["status"], p)
            self.assertEqual(py["iterations"], c["iterations"], p)
            self.assertGreater(int(c["iterations"]), 5)
            for k in ("natmap", "fb", "zres", "own_residual", "pen_max", "dyn_rel"):
                a, b = float(c[k]), float(py[k])
                self.assertLessEqual(abs(a - b), 1e-8 * abs(a) + 1e-14, (p, k, a, b))

    def test_cli_plugin_good_file(self):
        out = self.out("cli")
        res = subprocess.run([BIN, "run", self.stack, "--plugin",
                              os.path.join(EXAMPLES, "pgs_numpy.py"), "--solvers",
                              "pgs,pgs_numpy", "--iters", "20", "-o", out],
                             capture_output=True, text=True, env=CLI_ENV)
        self.assertEqual(res.returncode, 0, res.stderr)
        r = rows(out)
        self.assertEqual(r[("stack-3x3x3-step0000", "pgs_numpy")]["iterations"],
                         r[("stack-3x3x3-step0000", "pgs")]["iterations"])
        listing = subprocess.run([BIN, "solvers", "--plugin", os.path.join(EXAMPLES,
                                  "pgs_numpy.py")], capture_output=True, text=True, env=CLI_ENV)
        self.assertEqual(listing.returncode, 0, listing.stderr)
        self.assertIn("pgs_numpy", listing.stdout)

    def test_cli_plugin_bad_files(self):
        bad = {"import_error.py": ("import no_such_module_here\n", "raises at import"),
               "syntax.py": ("def f(:\n", "raises at import: SyntaxError"),
               "no_class.py": ("x = 1\n", "defines no solver class"),
               "two.py": ("class A:\n name='a'\n def setup(s,p,t): pass\n def solve(s,t,c): "
                          "pass\nclass B(A):\n name='b'\n", "defines 2 solver classes"),
               "clash.py": ("class P:\n name='pgs'\n def setup(s,p,t): pass\n def solve(s,t,c):"
                            " pass\n", "pgs")}
        for fname, (text, why) in bad.items():
            path = os.path.join(self.dir, fname)
            with open(path, "w") as f:
                f.write(text)
            res = subprocess.run([BIN, "run", self.stack, "--plugin", path, "-o",
                                  self.out("bad")], capture_output=True, text=True, env=CLI_ENV)
            self.assertEqual(res.returncode, 2, (fname, res.stderr))
            self.assertIn("mcbench: error: plugin " + path, res.stderr)
            self.assertIn(why, res.stderr)
            self.assertNotIn("Traceback", res.stderr)
        missing = os.path.join(self.dir, "missing.py")
        res = subprocess.run([BIN, "run", self.stack, "--plugin", missing, "-o",
                              self.out("bad")], capture_output=True, text=True, env=CLI_ENV)
        self.assertEqual(res.returncode, 2)
        self.assertIn("plugin %s: no such file" % missing, res.stderr)

    def test_cli_without_python(self):
        env = dict(CLI_ENV, MCB_PYTHON="/nonexistent/python3")
        res = subprocess.run([BIN, "run", self.stack, "--plugin", os.path.join(EXAMPLES,
                              "pgs_numpy.py"), "-o", self.out("nopy")], capture_output=True,
                             text=True, env=env)
        self.assertEqual(res.returncode, 2)
        self.assertIn("cannot start the Python interpreter /nonexistent/python3", res.stderr)

    def test_measurement_time_excluded(self):
        out = self.out("slow")
        mcbench.run(self.stack, [SlowCheck], out=out, max_iters=10, tol=1e-30, check_every=1,
                    timing="observed", time_limit_s=0)
        r = rows(out)[("stack-3x3x3-step0000", "py_slowcheck")]
        self.assertEqual(r["status"], "max-iterations")
        self.assertEqual(int(r["checks"]), 10)
        self.assertGreaterEqual(float(r["measure_s"]), 10 * 0.02)  # the harness's time
        self.assertLess(float(r["solve_s"]), 0.1)                  # not the solver's

    def test_exceptions_are_statuses_with_the_reason(self):
        out = self.out("raise")
        mcbench.run(self.stack, [SolveRaises, SetupRaises, IterateRaises, "pgs"], out=out,
                    max_iters=20, check_every=1)
        r = rows(out)
        p = "stack-3x3x3-step0000"
        self.assertEqual(r[(p, "py_solve_raises")]["status"], "crashed")
        self.assertIn("RuntimeError: planted failure in solve", r[(p, "py_solve_raises")]["reason"])
        self.assertEqual(r[(p, "py_setup_raises")]["status"], "setup-failed")
        self.assertIn("ValueError: planted failure in setup", r[(p, "py_setup_raises")]["reason"])
        self.assertEqual(r[(p, "py_iterate_raises")]["status"], "diverged")
        self.assertIn("planted failure in iterate", r[(p, "py_iterate_raises")]["reason"])
        self.assertEqual(r[(p, "pgs")]["status"], "max-iterations")

    def test_simple_form_judged_at_the_end(self):
        out = self.out("simple")
        mcbench.run(self.stack, [SimplePGS, "pgs"], out=out, max_iters=10, tol=0.0,
                    check_every=1, params={"py_simple_pgs.sweeps": 10})
        r = rows(out)
        for p in ("stack-3x3x3-step0000", "stack-3x3x3-step0001"):
            s, c = r[(p, "py_simple_pgs")], r[(p, "pgs")]
            self.assertEqual(s["iterations"], "10")
            self.assertEqual(int(s["checks"]), 0)  # nothing judged during the solve
            a, b = float(c["natmap"]), float(s["natmap"])
            self.assertLessEqual(abs(a - b), 1e-8 * abs(a), (p, a, b))

    def test_accepts_skips_with_the_reason(self):
        """Problem objects into run(); accepts() refusing makes the run skipped."""
        probs = mcbench.load(self.push)[:1]
        for b in probs[0].blocks:
            if b.type == "contact":
                b.type = "contact_ccp"
        out = self.out("ccp")
        mcbench.run(probs, [PGSNumpy, "pgs"], out=out, max_iters=10)
        r = rows(out)
        p = probs[0].name
        self.assertEqual(r[(p, "pgs_numpy")]["status"], "skipped")
        self.assertIn("the Coulomb law only (a contact_ccp block)", r[(p, "pgs_numpy")]["reason"])
        self.assertEqual(r[(p, "pgs")]["status"], "skipped")

    def test_register_refuses_what_is_no_solver(self):
        with self.assertRaises(msolver.SolverError):
            msolver.register(object())
        with self.assertRaises(mcbench.CampaignError) as cm:
            mcbench.run(self.stack, ["no_such_solver"], out=self.out("none"))
        self.assertIn("no_such_solver", str(cm.exception))

    def test_record_mujoco_example(self):
        """The MuJoCo recorder example: with MuJoCo's Python bindings its file
        passes mcbench validate; without them it says so, exits 0 and writes
        nothing (never a traceback, never a partial file)."""
        out = self.out("mj_rec")
        p = subprocess.run([sys.executable, os.path.join(EXAMPLES, "record_mujoco.py"),
                            "--steps", "20", "-o", out], capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("Traceback", p.stderr + p.stdout)
        try:
            import mujoco  # noqa: F401
        except ImportError:
            self.assertIn("skipped: MuJoCo's Python bindings are not installed",
                          p.stdout + p.stderr)
            self.assertFalse(os.path.exists(out))
            return
        v = subprocess.run([BIN, "validate", out], capture_output=True, text=True)
        self.assertEqual(v.returncode, 0, v.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)

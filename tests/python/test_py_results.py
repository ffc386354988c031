"""test_py_results.py: mcbench.results / traces / steps / solutions (issue 29).

A campaign's results read through the C results reader equal the CSV the
campaign wrote (one row per run: keys, status, iterations, times, final
metrics) and the HDF5 file read independently with h5py (every run's trace,
its final metrics and the saved solution, bit for bit); a file that is not
a results file is refused with a message naming it."""

import os
import unittest

import h5py
import numpy as np
import pandas as pd

import mcbench
from mcbtest import TmpCase, mcbench_cli

KEYS = ["problem_set", "problem", "solver", "rep", "status", "iterations", "n", "m",
        "ncontacts", "checks", "run_index", "inner_iterations", "timing"]
FLOATS = ["setup_s", "solve_s", "total_s", "own_residual", "measure_s", "observed_solve_s",
          "form_residual", "dyn_abs", "dyn_rel", "fb", "fb_max", "natmap", "zres", "pen_max",
          "pen_sum", "natmap_ncp", "natmap_ccp"]


class Results(TmpCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.dir = tempfile.mkdtemp(prefix="mcbpyres")
        cls.problems = os.path.join(cls.dir, "stack.h5")
        mcbench_cli("gen", "stack", "--nx", 2, "--ny", 1, "--nz", 2, "--steps", 3, "-o",
                    cls.problems)
        cls.res = os.path.join(cls.dir, "res.h5")
        # 60 iterations: pgs solves, apgd stops on its budget on some steps
        mcbench_cli("run", cls.problems, "--solvers", "pgs,apgd", "--iters", 60,
                    "--trace-every", 1, "--save-solutions", "-o", cls.res)

    @classmethod
    def tearDownClass(cls):
        import shutil
        shutil.rmtree(cls.dir, ignore_errors=True)

    def test_runs_equal_the_csv(self):
        df = mcbench.results(self.res)
        csv = pd.read_csv(os.path.splitext(self.res)[0] + ".csv", keep_default_na=False)
        self.assertEqual(len(df), 6)
        self.assertEqual(len(df), len(csv))
        self.assertEqual(set(df["status"]), {"solved", "max-iterations"})
        self.assertEqual(list(df["status"]), list(csv["status"]))
        for k in KEYS:
            self.assertEqual([str(x) for x in df[k]], [str(x) for x in csv[k]], k)
        for k in FLOATS:
            a = df[k].to_numpy(float)
            b = pd.to_numeric(csv[k], errors="coerce").to_numpy(float)
            self.assertTrue(np.allclose(a, b, rtol=1e-6, atol=0, equal_nan=True),
                            "%s: %s vs %s" % (k, a, b))
        ctx = df.attrs["context"]
        self.assertTrue(ctx["complete"])
        self.assertEqual(ctx["max_iters"], 60)
        self.assertEqual(ctx["total_runs"], 6)
        # the context's strings as the file holds them (gpu_device: in builds with CUDA)
        with h5py.File(self.res, "r") as f:
            attrs = f["context"].attrs
            for k in ("cpu_model", "compiler", "gpu_device"):
                want = attrs[k] if k in attrs else None
                want = want.decode() if isinstance(want, bytes) else want
                self.assertEqual(ctx[k], want, k)

    def test_traces_and_solutions_equal_the_file(self):
        df = mcbench.results(self.res)
        tr = mcbench.traces(self.res)
        sols = mcbench.solutions(self.res)
        self.assertEqual(list(tr.columns[5:]), list(mcbench._lib.TRACE_COLUMNS))
        with h5py.File(self.res, "r") as f:
            groups = [f["runs"][k] for k in sorted(f["runs"])]
            self.assertEqual(len(groups), len(df))
            for g, (_, row) in zip(groups, df.iterrows()):
                self.assertEqual(g.attrs["run_index"], row.run_index)
                for k in mcbench._lib.METRICS:
                    self.assertTrue(np.array_equal(g.attrs["final_" + k], row[k], equal_nan=True),
                                    k)
                t = tr[tr.run_index == row.run_index][list(mcbench._lib.TRACE_COLUMNS)]
                self.assertTrue(np.array_equal(t.to_numpy(), g["trace"][()], equal_nan=True))
                self.assertEqual(t["iter"].iloc[0], 0)  # row 0: the starting point
                self.assertEqual(t["iter"].iloc[-1], row.iterations)
                v, lam = sols[row.run_index]
                self.assertTrue(np.array_equal(v, g["v"][()]))
                self.assertTrue(np.array_equal(lam, g["lambda"][()]))
        self.assertEqual(len(tr), int(df["trace_rows"].sum()))
        self.assertEqual(len(mcbench.steps(self.res)), 0)  # a replay campaign has no steps

    def test_closed_loop_steps_equal_the_file(self):
        res = self.path("loop.h5")
        mcbench_cli("simulate", "quadrupeds", "--robots", 1, "--steps", 5, "--budget", "iters:10",
                    "--solvers", "pgs", "-o", res)
        df = mcbench.results(res)
        st = mcbench.steps(res)
        self.assertEqual(list(df["loop_steps"]), [5])
        self.assertEqual(list(st.columns[5:]), list(mcbench._lib.STEP_COLUMNS))
        self.assertEqual(list(st["step"]), [0, 1, 2, 3, 4])
        with h5py.File(res, "r") as f:
            (g,) = f["runs"].values()
            self.assertTrue(np.array_equal(st[list(mcbench._lib.STEP_COLUMNS)].to_numpy(),
                                           g["steps"][()], equal_nan=True))

    def test_not_a_results_file(self):
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.results(self.problems)
        self.assertIn(self.problems, str(cm.exception))
        missing = self.path("none.h5")
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.results(missing)
        self.assertIn("none.h5", str(cm.exception))


if __name__ == "__main__":
    unittest.main()

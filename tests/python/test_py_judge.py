"""test_py_judge.py: mcbench.judge (issue 29).

Known answers on the C tests' fixtures (tests/fixtures.c, rebuilt in
mcbtest.py): the exact solutions judge to zero, wrong ones do not; and on
every fixture file, the judgement of each run's returned solution equals,
bit for bit, the final metrics the campaign recorded (mcbench run
--save-solutions), under both laws."""

import math
import unittest

import numpy as np

import mcbench
from mcbtest import (FX_OPEN, FX_SLIP, FX_STICK, TmpCase, aniso_slide, aniso_slide_solution,
                     compliant, compliant_solution, every_feature, mcbench_cli, point_contact,
                     point_contact_dual, point_solution)

ZERO = 1e-12
RESIDUALS = ("dyn_abs", "fb", "fb_max", "natmap", "zres", "natmap_ncp")


class KnownAnswers(unittest.TestCase):
    def assert_solved(self, m, what, keys=RESIDUALS):
        for k in keys:
            self.assertLess(abs(m[k]), ZERO, "%s: %s = %g" % (what, k, m[k]))

    def test_metric_names(self):
        m = mcbench.judge(point_contact(FX_OPEN), *point_solution(FX_OPEN))
        self.assertEqual(list(m), ["dyn_abs", "dyn_rel", "fb", "fb_max", "natmap", "zres",
                                   "pen_max", "pen_sum", "natmap_ncp", "natmap_ccp"])

    def test_point_contact(self):
        for s in (FX_OPEN, FX_STICK, FX_SLIP):
            P = point_contact(s)
            v, lam = point_solution(s)
            self.assert_solved(mcbench.judge(P, v, lam), "point %d" % s)
            # the wrong state's solution: not a solution
            w = mcbench.judge(P, *point_solution((s + 1) % 3))
            self.assertGreater(w["natmap"], 1e-3, "point %d judged solved by a wrong answer" % s)
        # penetration: u_n = -0.5 at v = (0, 0, -0.5)
        P = point_contact(FX_STICK)
        lam = np.array([0.5, -0.1, 0])
        m = mcbench.judge(P, P.b + P.J.T @ lam, lam)
        self.assertAlmostEqual(m["pen_max"], 0.5, places=14)
        self.assertLess(m["dyn_abs"], ZERO)

    def test_dual(self):
        for s in (FX_OPEN, FX_STICK, FX_SLIP):
            m = mcbench.judge(point_contact_dual(s), None, point_solution(s)[1])
            self.assert_solved(m, "dual %d" % s, ("fb", "natmap", "natmap_ncp"))
            self.assertTrue(math.isnan(m["dyn_abs"]))

    def test_compliant(self):
        for s in (FX_STICK, FX_SLIP):
            P = compliant(s)
            self.assert_solved(mcbench.judge(P, *compliant_solution(s)), "compliant %d" % s)
            # the rigid solution is wrong once the compliance counts
            self.assertGreater(mcbench.judge(P, *point_solution(s))["natmap"], 1e-3)

    def test_aniso(self):
        P = aniso_slide()
        v, lam = aniso_slide_solution()
        self.assert_solved(mcbench.judge(P, v, lam), "aniso")
        # the isotropic cone's answer (mu2 ignored) is not the solution
        iso = aniso_slide()
        iso.blocks[0].mu2 = math.nan
        self.assertGreater(mcbench.judge(P, *_iso_answer(iso))["natmap"], 1e-3)

    def test_law(self):
        P = point_contact(FX_SLIP)
        v, lam = point_solution(FX_SLIP)
        ncp = mcbench.judge(P, v, lam, law="ncp")
        ccp = mcbench.judge(P, v, lam, law="ccp")
        self.assertEqual(ccp["natmap"], ncp["natmap_ccp"])
        self.assertEqual(ccp["natmap_ncp"], ncp["natmap_ncp"])
        self.assertGreater(ccp["natmap"], 1e-3)  # a sliding Coulomb contact is no CCP solution

    def test_bad_arguments(self):
        P = point_contact(FX_OPEN)
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.judge(P, np.zeros(2), np.zeros(3))
        self.assertIn("v has 2 entries, expected 3", str(cm.exception))
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.judge(P, np.zeros(3), np.zeros(4))
        self.assertIn("lam has 4 entries, expected 3", str(cm.exception))
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.judge(P, np.zeros(3), np.zeros(3), law="coulomb")
        self.assertIn("law = 'coulomb' is unknown", str(cm.exception))
        P.b[0] = np.nan
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.judge(P, np.zeros(3), np.zeros(3))
        self.assertIn("b[0] is not finite", str(cm.exception))


def _iso_answer(P):
    """The isotropic cone's solution of the aniso fixture (mu = 1): sliding
    against the tangential free velocity, lambda_t = -(1.2, 3.4)/|.|."""
    t = np.array([1.2, 3.4])
    lam = np.concatenate([[1.0], -t / np.linalg.norm(t)])
    return P.b + lam, lam


def same(a, b):
    return a == b or (a != a and b != b)


class AgainstTheHarness(TmpCase):
    """judge(problem, v, lambda) of each run's stored solution equals the
    run's final metrics in the results file, bit for bit."""

    def campaign(self, path, solvers, law="ncp"):
        out = self.path("res-%s.h5" % law)
        mcbench_cli("run", path, "--solvers", solvers, "--iters", 200, "--save-solutions",
                    "--law", law, "-o", out)
        problems = mcbench.load(path)
        runs = mcbench.results(out)
        sols = mcbench.solutions(out)
        compared = 0
        for _, row in runs.iterrows():
            if row.run_index not in sols:
                continue
            v, lam = sols[row.run_index]
            m = mcbench.judge(problems[row.problem_index], v, lam, law=law)
            for k, x in m.items():
                self.assertTrue(same(x, row[k]), "%s %s %s: judge %s = %r, campaign %r"
                                % (path, row.problem, row.solver, k, x, row[k]))
            compared += 1
        self.assertGreater(compared, 0, "no run of %s stored a solution" % path)
        return compared

    def test_fixtures(self):
        files = {}
        for args in (["stack", "--nx", 2, "--ny", 1, "--nz", 2, "--steps", 2],
                     ["cable", "--segments", 4, "--steps", 2],
                     ["aniso-box", "--steps", 2]):
            files[args[0]] = self.path("%s.h5" % args[0])
            mcbench_cli("gen", *args, "-o", files[args[0]])
        files["python"] = self.path("python.h5")
        mcbench.save(files["python"], [every_feature(), compliant(FX_SLIP), aniso_slide(),
                                       point_contact(FX_STICK)])
        files["dual"] = self.path("dual.h5")
        mcbench.save(files["dual"], [point_contact_dual(s) for s in (0, 1, 2)])
        for name, path in files.items():
            for law in ("ncp", "ccp"):
                self.campaign(path, "pgs,apgd", law)


if __name__ == "__main__":
    unittest.main()

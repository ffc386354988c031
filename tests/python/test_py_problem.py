"""test_py_problem.py: mcbench.load / mcbench.save / Problem (issue 29).

Round trips of every problem feature (every block type, mu2, per-row
compliance, subsystems, warm start, reference solution, body factorization,
MuJoCo provenance, dual form, metadata) through the C writer and reader,
files saved from Python read by the mcbench commands, and every class of
bad input refused with the C library's message naming the field and the
reason, with no file left behind."""

import os
import shutil
import unittest

import h5py
import numpy as np
import scipy.sparse as sp

import mcbench
from mcbench import Block, Problem
from mcbtest import (SRC, TmpCase, aniso_slide, assert_same_problem, compliant, every_feature,
                     mcbench_cli, point_contact_dual)

MJCF = """<mujoco model="box-on-floor">
  <option timestep="0.005" cone="CONE"/>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <body pos="0 0 0.099"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
  </worldbody>
</mujoco>
"""


class RoundTrip(TmpCase):
    def roundtrip(self, problems):
        """save -> load gives the same problems, and every mcbench command
        reads the file Python wrote."""
        out = self.path("rt.h5")
        mcbench.save(out, problems)
        back = mcbench.load(out)
        self.assertEqual(len(back), len(problems))
        for P, Q in zip(problems, back):
            # the reader infers absent subsystems from A (test below)
            assert_same_problem(self, P, Q, [f for f in Problem._FIELDS
                                             if f != "subsystems" or P.subsystems is not None])
        mcbench_cli("validate", out)
        mcbench_cli("describe", out)
        return out

    def test_every_feature(self):
        P = every_feature()
        out = self.roundtrip([P])
        Q = mcbench.load(out)[0]
        self.assertEqual([b.type for b in Q.blocks],
                         ["bilateral", "unilateral", "soft", "contact", "contact_ccp",
                          "unilateral"])
        self.assertEqual(Q.blocks[3].mu2, 0.7)
        self.assertTrue(np.isnan(Q.blocks[4].mu2))
        self.assertEqual(list(Q.subsystems), [0, 3, 6])
        # every mcbench command reads it: a campaign runs on it
        r = mcbench_cli("run", out, "--solvers", "pgs", "--iters", "50", "-o",
                        self.path("res.h5"))
        self.assertIn("every-feature", r.stderr + r.stdout)

    def test_to_c_from_c(self):
        for P in (every_feature(), point_contact_dual(1), compliant(2), aniso_slide()):
            with P._to_c() as c:
                assert_same_problem(self, P, Problem._from_c(c),
                                    [f for f in Problem._FIELDS if f != "subsystems"])

    def test_subsystems_inferred_as_the_reader_does(self):
        """Absent subsystems: A's connected components (DOFs 0-1 coupled,
        the others alone), inferred before validation as the C reader does
        (save validates; the file holds the partition)."""
        P = every_feature()
        P.subsystems = None
        out = self.path("inferred.h5")
        mcbench.save(out, P)
        self.assertEqual(list(mcbench.load(out)[0].subsystems), [0, 2, 3, 4, 5, 6])
        self.assertIsNone(P.subsystems)  # the Python problem is left as it was

    def test_dual_and_compliance_and_aniso(self):
        self.roundtrip([point_contact_dual(0), compliant(1), aniso_slide()])

    def test_generated_scenes(self):
        """Files the C library wrote (stack: contacts, subsystems, warm start,
        reference; cable: bilateral and soft rows, the body factorization;
        aniso-box: mu2), read, written from Python and read again: equal."""
        for args in (["stack", "--nx", 2, "--ny", 1, "--nz", 2, "--steps", 2],
                     ["cable", "--segments", 4, "--steps", 2],
                     ["aniso-box", "--steps", 2]):
            src = self.path("%s.h5" % args[0])
            mcbench_cli("gen", *args, "-o", src)
            ps = mcbench.load(src)
            self.assertGreaterEqual(len(ps), 2)
            self.roundtrip(ps)
        cable = mcbench.load(self.path("cable.h5"))[0]
        self.assertIsNotNone(cable.Jc)
        self.assertEqual({b.type for b in cable.blocks}, {"bilateral", "soft"})
        self.assertIsNotNone(mcbench.load(self.path("aniso-box.h5"))[0].mu2)

    def test_imported_dual(self):
        src = self.path("dual.h5")
        mcbench_cli("import", "siconos", os.path.join(SRC, "tests", "data",
                                                      "FrictionContact3D_1c.dat"), "-o", src)
        ps = mcbench.load(src)
        self.assertEqual(ps[0].form, "dual")
        self.roundtrip(ps)

    def test_mujoco_recorded(self):
        """Compliance r, MuJoCo's provenance, unilateral rows (pyramidal cone)."""
        for cone in ("pyramidal", "elliptic"):
            xml = self.path("box-%s.xml" % cone)
            with open(xml, "w") as f:
                f.write(MJCF.replace("CONE", cone))
            src = self.path("mj-%s.h5" % cone)
            r = mcbench_cli("record", "mujoco", xml, "--steps", 3, "--no-timing", "-o", src,
                            ok=False)
            if r.returncode != 0 and "MuJoCo" in r.stderr and "without" in r.stderr:
                self.skipTest("mcbench built without MuJoCo: " + r.stderr.strip())
            self.assertEqual(r.returncode, 0, r.stderr)
            ps = mcbench.load(src)
            last = ps[-1]
            self.assertIsNotNone(last.mujoco)
            self.assertIsNotNone(last.r)
            types = {b.type for b in last.blocks}
            if cone == "pyramidal":
                self.assertIn("unilateral", types)
            else:
                self.assertTrue(types & {"contact", "contact_ccp"}, types)
            self.roundtrip(ps)


class BadInput(TmpCase):
    """Each class of bad input: mcbench.Error (a ValueError) whose message
    names the field and the reason; save writes nothing."""

    def refused(self, P, *words):
        out = self.path("bad.h5")
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.save(out, [every_feature(), P])
        self.assertIsInstance(cm.exception, ValueError)
        msg = str(cm.exception)
        for w in words:
            self.assertIn(w, msg)
        self.assertFalse(os.path.exists(out), "a refused save left %s" % out)
        self.assertEqual([f for f in os.listdir(self.d)], [])
        return msg

    def test_non_finite(self):
        P = every_feature()
        P.b[2] = np.nan
        self.refused(P, "b[2] is not finite")
        P = every_feature()
        P.A = P.A.copy()
        P.A.data[0] = np.inf
        self.refused(P, "A", "finite")
        P = every_feature()
        P.lambda0[1] = np.inf
        self.refused(P, "lambda", "finite")

    def test_dimension_mismatch(self):
        P = every_feature()
        P.e = P.e[:-1]
        self.refused(P, "dataset e has 9 elements, expected 10")
        P = every_feature()
        P.J = P.J[:, :5]
        self.refused(P, "dimension mismatch: J has 5 columns, A has 6 rows")
        P = every_feature()
        P.v_ref = np.zeros(7)
        self.refused(P, "reference/v", "7 elements, expected 6")
        P = every_feature()
        P.A = P.A[:, :5]
        self.refused(P, "A is 6x5, not square")

    def test_unknown_block_type(self):
        P = every_feature()
        P.blocks[1].type = "frictional"
        self.refused(P, "constraints/type[1] = 'frictional' is an unknown constraint type")
        P = every_feature()
        P.blocks[1].type = 9
        self.refused(P, "constraints/type[1] = 9 is an unknown constraint type")

    def test_negative_friction(self):
        P = every_feature()
        P.blocks[3].mu = -0.1
        self.refused(P, "constraints/mu[3] = -0.1 is negative")

    def test_asymmetric_a(self):
        P = every_feature()
        A = P.A.tolil()
        A[0, 1] = 0.7
        P.A = A.tocsc()
        self.refused(P, "A is not symmetric")

    def test_blocks_not_covering_rows(self):
        P = every_feature()
        P.blocks = P.blocks[:-1]
        self.refused(P, "constraint blocks cover 9 rows, the problem has 10")

    def test_compliance_on_soft_row(self):
        P = every_feature()
        P.r[2] = 0.5  # soft rows take no compliance
        self.refused(P, "r[2] = 0.5 on soft block 2")

    def test_malformed_files(self):
        txt = self.path("not.h5")
        with open(txt, "w") as f:
            f.write("not an HDF5 file\n")
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.load(txt)
        self.assertIn(txt, str(cm.exception))
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.load(self.path("missing.h5"))
        self.assertIn("missing.h5", str(cm.exception))
        # a file the C writer wrote, then a NaN planted in b with h5py: the
        # reader names the file, the problem and the dataset
        good = self.path("good.h5")
        mcbench.save(good, [every_feature()])
        with h5py.File(good, "r+") as f:
            f["problems/000000/b"][0] = np.nan
        with self.assertRaises(mcbench.Error) as cm:
            mcbench.load(good)
        msg = str(cm.exception)
        self.assertIn("good.h5", msg)
        self.assertIn("b", msg)
        self.assertIn("finite", msg)


if __name__ == "__main__":
    unittest.main()

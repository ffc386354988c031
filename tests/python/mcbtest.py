"""mcbtest.py: what the Python tests share: the mcbench binary, a scratch
directory, and small hand-built problems with known answers mirroring
tests/fixtures.c (the C tests' fixtures)."""

import os
import shutil
import subprocess
import tempfile
import unittest

import numpy as np
import scipy.sparse as sp

import mcbench
from mcbench import Block, Problem

BIN = os.environ.get("MCBENCH_BIN", "mcbench")
SRC = os.environ.get("MCBENCH_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))


def mcbench_cli(*args, ok=True):
    """Runs the mcbench binary; the CompletedProcess (text)."""
    r = subprocess.run([BIN] + [str(a) for a in args], capture_output=True, text=True)
    if ok and r.returncode != 0:
        raise AssertionError("mcbench %s: exit %d\n%s%s" % (" ".join(map(str, args)),
                                                           r.returncode, r.stdout, r.stderr))
    return r


class TmpCase(unittest.TestCase):
    """A test case with a scratch directory self.d, removed afterwards."""

    def setUp(self):
        self.d = tempfile.mkdtemp(prefix="mcbpy")

    def tearDown(self):
        shutil.rmtree(self.d, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.d, name)


# --- tests/fixtures.c, in Python ------------------------------------------------
# fx_point_contact: a unit point mass on the ground plane, rows [n, t1, t2] =
# [z, x, y], mu 0.5, e = 0, b = vfree; the exact solutions by hand.
FX_OPEN, FX_STICK, FX_SLIP = 0, 1, 2
_VFREE = {FX_OPEN: (0, 0, 1), FX_STICK: (0.1, 0, -1), FX_SLIP: (2, 0, -1)}
_POINT_SOL = {FX_OPEN: ((0, 0, 1), (0, 0, 0)), FX_STICK: ((0, 0, 0), (1, -0.1, 0)),
              FX_SLIP: ((1.5, 0, 0), (1, -0.5, 0))}
# fx_compliant: the same with r = (1, 0.25, 0.25)
_COMPLIANT_SOL = {FX_OPEN: ((0, 0, 1), (0, 0, 0)), FX_STICK: ((0.02, 0, -0.5), (0.5, -0.08, 0)),
                  FX_SLIP: ((1.75, 0, -0.5), (0.5, -0.25, 0))}
_JP = sp.csc_matrix(np.array([[0.0, 0, 1], [1, 0, 0], [0, 1, 0]]))


def point_contact(state, r=None):
    return Problem(A=sp.identity(3, format="csc"), J=_JP.copy(),
                   b=np.array(_VFREE[state], float), e=np.zeros(3),
                   blocks=[Block("contact", 0, 3, mu=0.5)], r=r,
                   name="point-%d" % state, source="tests/python/mcbtest.py", h=0.01)


def point_solution(state):
    v, lam = _POINT_SOL[state]
    return np.array(v, float), np.array(lam, float)


def compliant(state):
    return point_contact(state, r=np.array([1, 0.25, 0.25]))


def compliant_solution(state):
    v, lam = _COMPLIANT_SOL[state]
    return np.array(v, float), np.array(lam, float)


def point_contact_dual(state):
    # W = I, q = vfree permuted to [n, t1, t2]
    vf = _VFREE[state]
    return Problem(W=sp.identity(3, format="csc"), q=np.array([vf[2], vf[0], vf[1]], float),
                   blocks=[Block("contact", 0, 3, mu=0.5)], name="point-dual-%d" % state)


def aniso_slide():
    # fx_aniso_slide: A = J = I, free velocity (-1, 1.2, 3.4), mu 1 along t1,
    # mu2 0.25 along t2; maximal dissipation lambda = (1, -0.6, -0.2)
    return Problem(A=sp.identity(3, format="csc"), J=sp.identity(3, format="csc"),
                   b=np.array([-1, 1.2, 3.4]), e=np.zeros(3),
                   blocks=[Block("contact", 0, 3, mu=1.0, mu2=0.25)], name="aniso-slide")


def aniso_slide_solution():
    return np.array([0, 0.6, 3.2]), np.array([1, -0.6, -0.2])


def every_feature():
    """A primal problem with every block type, per-row compliance, two
    subsystems, a warm start, a reference solution, anisotropic friction on
    one contact and every metadata field."""
    n, m = 6, 10
    rng = np.random.default_rng(29)
    A = sp.block_diag([np.diag([2.0, 3, 4]), np.diag([1.0, 1, 5])], format="csc")
    A = A + sp.csc_matrix(([0.5, 0.5], ([0, 1], [1, 0])), shape=(n, n))
    J = sp.csc_matrix(rng.standard_normal((m, n)) * (rng.random((m, n)) < 0.6))
    blocks = [Block("bilateral", 0, 1), Block("unilateral", 1, 1),
              Block("soft", 2, 1, k=100.0, alpha=0.1), Block("contact", 3, 3, mu=0.4, mu2=0.7),
              Block("contact_ccp", 6, 3, mu=0.3), Block("unilateral", 9, 1)]
    r = np.array([0, 0.01, 0, 0.02, 0.03, 0.03, 0, 0, 0, 0.5])
    return Problem(A=sp.csc_matrix(A), J=J, b=rng.standard_normal(n), e=rng.standard_normal(m),
                   blocks=blocks, r=r, subsystems=np.array([0, 3, 6]),
                   v0=rng.standard_normal(n), lambda0=rng.random(m),
                   v_ref=rng.standard_normal(n), lambda_ref=rng.random(m),
                   name="every-feature", source="tests/python/mcbtest.py every_feature()",
                   scene="hand-built", notes="issue 29: a round trip of everything",
                   h=0.005, step=7, mass_ratio=5.0, cond_est=123.0, rank=6, rank_tol=1e-9)


def assert_same_problem(tc, P, Q, fields=Problem._FIELDS):
    """Every field of P equals Q's, bit for bit (NaN equal to NaN)."""
    for f in fields:
        a, b = getattr(P, f), getattr(Q, f)
        msg = "field %s differs: %r vs %r" % (f, a, b)
        if sp.issparse(a) or sp.issparse(b):
            tc.assertTrue(sp.issparse(a) and sp.issparse(b), msg)
            tc.assertEqual(a.shape, b.shape, msg)
            tc.assertTrue(np.array_equal(a.indptr, b.indptr) and
                          np.array_equal(a.indices, b.indices) and
                          np.array_equal(a.data, b.data), msg)
        elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
            tc.assertTrue(a is not None and b is not None, msg)
            tc.assertTrue(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True), msg)
        elif isinstance(a, dict):
            tc.assertIsInstance(b, dict, msg)
            tc.assertEqual(sorted(a), sorted(b), msg)
            for k in a:
                x, y = a[k], b[k]
                if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
                    tc.assertTrue((x is None and y is None) or np.array_equal(x, y),
                                  "%s[%s]" % (msg, k))
                else:
                    tc.assertEqual(x, y, "%s[%s]" % (msg, k))
        elif isinstance(a, float) and isinstance(b, float) and a != a:
            tc.assertTrue(b != b, msg)
        else:
            tc.assertEqual(a, b, msg)

#!/usr/bin/python3
"""pgs_numpy.py: projected Gauss-Seidel in NumPy, a Python solver benchmarked
against the C `pgs` under the harness's rules (docs/python.md, "Python solvers").

The algorithm is solvers/pgs.c's, step for step, so that the iterates agree
with it to round-off: on u = W lambda + q with the Delassus operator
W = J A^-1 J^T + diag(r) and q = J A^-1 b + e (lib/mcb_delassus.c), one sweep
visits the blocks in order and replaces each block's impulse by its local
solution (mcb_block_step in lib/mcb_delassus.c):
  - a contact (3 rows): the local Signorini-Coulomb problem with the exact
    3x3 block W_bb: separation when r_n >= 0, sticking when -W_bb^-1 r lies in
    the cone (Cramer's rule), else at most 24 inner projected steps, normal
    row then tangential pair clamped to the disk of radius mu x_n; relaxed by
    omega and projected on the cone when omega != 1;
  - unilateral rows max(0, lambda - omega u / d), bilateral lambda - omega u / d,
    soft rows the exact scalar law relaxed by omega;
with d the diagonal of W, a contact's tangential weight the largest
eigenvalue of its 2x2 tangential block. Own residual
||lambda^{l+1} - lambda^l|| / max(1, ||lambda^{l+1}||); a sweep that changes
nothing is a fixed point (status stalled), as in C.

Run as a script it benchmarks itself against the C pgs on a stack:
    /usr/bin/python3 examples/python/pgs_numpy.py [--build BUILD] [--iters N]
It generates the stack with `mcbench gen stack`, runs one campaign with
pgs and pgs_numpy (the same budget: N iterations, tolerance 0, observed
timing, every iteration checked), checks that both did the same iterations
and that the harness's residuals agree to round-off, and prints the ratio of
their solve times. Use it as a plugin too:
    mcbench run stack.h5 --plugin examples/python/pgs_numpy.py --solvers pgs,pgs_numpy -o r.h5
"""
import math

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as sla

BILATERAL, UNILATERAL, SOFT, CONTACT = "bilateral", "unilateral", "soft", "contact"
LOCAL_ITERS = 24  # MCB_LOCAL_ITERS


def hypot(a, b):
    """mcb_hypot: the plain formula where it is exact enough."""
    s = a * a + b * b
    if s < 1e300 and (s > 1e-300 or s == 0.0):
        return math.sqrt(s)
    return math.hypot(a, b)


def stick3(w, r):
    """x = -w^-1 r by Cramer's rule, or None when w is singular (stick3)."""
    c0 = w[4] * w[8] - w[5] * w[7]
    c1 = w[5] * w[6] - w[3] * w[8]
    c2 = w[3] * w[7] - w[4] * w[6]
    det = w[0] * c0 + w[1] * c1 + w[2] * c2
    scale = abs(w[0]) + abs(w[4]) + abs(w[8])
    if not abs(det) > 1e-12 * scale * scale * scale:
        return None
    inv = (c0, w[2] * w[7] - w[1] * w[8], w[1] * w[5] - w[2] * w[4],
           c1, w[0] * w[8] - w[2] * w[6], w[2] * w[3] - w[0] * w[5],
           c2, w[1] * w[6] - w[0] * w[7], w[0] * w[4] - w[1] * w[3])
    return [-(inv[3 * i] * r[0] + inv[3 * i + 1] * r[1] + inv[3 * i + 2] * r[2]) / det
            for i in range(3)]


def local_contact(mu, w, d0, d1, r, x):
    """The local contact problem u = w x + r from x (local_contact)."""
    if r[0] >= 0.0:
        return [0.0, 0.0, 0.0]
    xs = stick3(w, r)
    if xs is not None and xs[0] >= 0.0 and hypot(xs[1], xs[2]) <= mu * xs[0]:
        return xs
    x = list(x)
    for _ in range(LOCAL_ITERS):
        x0 = list(x)
        if math.isfinite(d0):
            un = r[0] + w[0] * x[0] + w[1] * x[1] + w[2] * x[2]
            xn = x[0] - un / d0
            x[0] = xn if xn > 0.0 else 0.0
        elif x[0] < 0.0:
            x[0] = 0.0
        if math.isfinite(d1):
            u1 = r[1] + w[3] * x[0] + w[4] * x[1] + w[5] * x[2]
            u2 = r[2] + w[6] * x[0] + w[7] * x[1] + w[8] * x[2]
            x[1] -= u1 / d1
            x[2] -= u2 / d1
        rad, nt = mu * x[0], hypot(x[1], x[2])
        if nt > rad:
            s = rad / nt if nt > 0.0 else 0.0
            x[1] *= s
            x[2] *= s
        dx = sum((x[k] - x0[k]) ** 2 for k in range(3))
        nx = sum(x[k] * x[k] for k in range(3))
        if dx <= 1e-28 * nx:
            break
    return x


def proj_cone(mu, x):
    """Euclidean projection on the friction cone (mcb_proj_cone)."""
    n, t1, t2 = x
    nt = hypot(t1, t2)
    if mu <= 0.0:
        return [n if n > 0.0 else 0.0, 0.0, 0.0]
    if nt <= mu * n:
        return [n, t1, t2]
    if mu * nt <= -n:
        return [0.0, 0.0, 0.0]
    pn = (n + mu * nt) / (1.0 + mu * mu)
    s = mu * pn / nt
    return [pn, s * t1, s * t2]


class PGSNumpy:
    """Projected Gauss-Seidel on the Delassus operator, in NumPy (solvers/pgs.c)."""

    name = "pgs_numpy"
    params = {"omega": 1.0, "own_tol": 0.0}
    forms = ("primal",)

    def accepts(self, problem):
        """The Coulomb law's blocks only, as pgs (mcb_accepts_coulomb_only)."""
        for b in problem.blocks:
            if b.type not in (BILATERAL, UNILATERAL, SOFT, CONTACT):
                return "pgs_numpy: the Coulomb law only (a %s block)" % b.type
        return None

    def setup(self, problem, settings):
        """W = J A^-1 J^T + diag(r), q = J A^-1 b + e, the weights, the start."""
        omega = float(self.params["omega"])
        if not 0.0 < omega < 2.0:
            raise ValueError("pgs_numpy.omega = %g must lie in (0, 2)" % omega)
        self.P = P = problem
        m = P.m
        A = sp.csc_matrix(P.A)
        J = sp.csr_matrix(P.J)
        self.lu = sla.splu(A)
        X = self.lu.solve(J.T.toarray()) if m else np.zeros((P.n, 0))
        comp = np.asarray(P.r, dtype=float) if getattr(P, "r", None) is not None else np.zeros(m)
        W = sp.csr_matrix(J @ sp.csc_matrix(X)) + sp.diags(comp)
        self.W = sp.csr_matrix(W)
        self.W.sort_indices()
        self.q = J @ self.lu.solve(np.asarray(P.b, dtype=float)) + np.asarray(P.e, dtype=float)
        self.blocks = [(b.type, int(b.row), int(b.nrows), float(b.mu),
                        float(getattr(b, "k", 0.0)), float(getattr(b, "alpha", 0.0)))
                       for b in P.blocks]
        Wd = self.W.toarray() if m <= 4000 else None
        entry = (lambda i, j: Wd[i, j]) if Wd is not None else (lambda i, j: self.W[i, j])
        self.d = np.array([entry(i, i) for i in range(m)], dtype=float)
        self.Wb = {}
        for (t, r, nr, mu, _, _) in self.blocks:
            if t == CONTACT:
                wb = [entry(r + i, r + j) for i in range(3) for j in range(3)]
                self.Wb[r] = wb
                a, c, off = self.d[r + 1], self.d[r + 2], 0.5 * (wb[5] + wb[7])
                self.d[r + 1] = self.d[r + 2] = 0.5 * (a + c) + math.sqrt(
                    0.25 * (a - c) * (a - c) + off * off)
        self.d[~(self.d > 0.0)] = math.inf
        self.lam = np.zeros(m)
        if settings.warm_start and getattr(P, "lambda0", None) is not None:
            self.lam[:] = P.lambda0
        self.omega, self.own_tol = omega, float(self.params["own_tol"])

    def _u(self, r0, nrows):
        """u_r = q_r + (W lambda)_r for rows r0 .. r0 + nrows - 1."""
        W, lam = self.W, self.lam
        out = []
        for r in range(r0, r0 + nrows):
            a, b = W.indptr[r], W.indptr[r + 1]
            s = self.q[r]
            for k in range(a, b):  # in C's order: the same sum, the same bits
                s += W.data[k] * lam[W.indices[k]]
            out.append(s)
        return out

    def _sweep(self):
        """One Gauss-Seidel sweep (mcb_gs_sweep); returns the squared change."""
        lam, d, omega, e = self.lam, self.d, self.omega, self.P.e
        change2 = 0.0
        for (t, row, nrows, mu, k, alpha) in self.blocks:
            step = 3 if t == CONTACT else 1
            for r in range(row, row + nrows, step):
                u = self._u(r, step)
                prev = [float(lam[r + i]) for i in range(step)]
                if t == CONTACT:
                    wb = self.Wb[row]
                    rest = [u[i] - (wb[3 * i] * prev[0] + wb[3 * i + 1] * prev[1]
                                    + wb[3 * i + 2] * prev[2]) for i in range(3)]
                    x = local_contact(mu, wb, d[r], d[r + 1], rest, prev)
                    if omega != 1.0:
                        x = proj_cone(mu, [prev[i] + omega * (x[i] - prev[i]) for i in range(3)])
                    new = x
                elif t == BILATERAL:
                    new = [prev[0] - omega * u[0] / d[r]]
                elif t == UNILATERAL:
                    s = prev[0] - omega * u[0] / d[r]
                    new = [s if s > 0.0 else 0.0]
                elif t == SOFT:
                    fin = math.isfinite(d[r])
                    rest = u[0] - d[r] * prev[0] if fin else u[0]
                    dd = d[r] if fin else 0.0
                    exact = -k * (e[r] + alpha * (rest - e[r])) / (1.0 + k * alpha * dd)
                    new = [prev[0] + omega * (exact - prev[0])]
                else:
                    raise ValueError("pgs_numpy: block type %s is not a Coulomb law" % t)
                for i in range(step):
                    lam[r + i] = new[i]
                    change2 += (new[i] - prev[i]) ** 2
        return change2

    def solve(self, settings, callback):
        """Sweeps until the harness says stop, the budget or a fixed point."""
        m = self.P.m
        for it in range(1, settings.max_iters + 1):
            change = math.sqrt(self._sweep())
            ln = float(np.sqrt(np.dot(self.lam, self.lam))) if m else 0.0
            own = change / (ln if ln > 1.0 else 1.0)
            if not math.isfinite(own):
                return "diverged"
            if not callback(it, own):
                return None
            if own <= self.own_tol:
                return "stalled"
        return "max-iterations"

    def iterate(self):
        """(v, lambda): v = A^-1 (b + J^T lambda)."""
        v = self.lu.solve(np.asarray(self.P.b, dtype=float) + self.P.J.T @ self.lam)
        return v, self.lam.copy()


# ---------------------------------------------------------------- benchmark
def benchmark(build, iters, workdir, nx=3):
    """One campaign, pgs and pgs_numpy on a stack: checks, then the ratio."""
    import os
    import subprocess

    import mcbench

    stack = os.path.join(workdir, "stack.h5")
    subprocess.run([os.path.join(build, "mcbench"), "gen", "stack", "--nx", str(nx), "--ny",
                    str(nx), "--nz", "3", "--steps", "2", "-o", stack], check=True,
                   stdout=subprocess.DEVNULL)
    out = os.path.join(workdir, "pgs.h5")
    mcbench.run(stack, ["pgs", PGSNumpy], out=out, max_iters=iters, tol=0.0, timing="observed",
                check_every=1, time_limit_s=0, threads=1)
    return compare(os.path.join(workdir, "pgs.csv"))


def compare(csv_path):
    """Per problem: the same iterations and status, residuals to round-off
    (1e-8 relative); the ratio of the summed solve times."""
    import csv
    with open(csv_path) as f:
        runs = {(r["problem"], r["solver"]): r for r in csv.DictReader(f)}
    problems = sorted({p for p, _ in runs})
    bad, t_c, t_py = [], 0.0, 0.0
    for name in problems:
        a, b = runs[(name, "pgs")], runs[(name, "pgs_numpy")]
        if (a["iterations"], a["status"]) != (b["iterations"], b["status"]):
            bad.append("%s: pgs %s after %s, pgs_numpy %s after %s"
                       % (name, a["status"], a["iterations"], b["status"], b["iterations"]))
        for k in ("natmap", "fb", "zres", "own_residual"):
            x, y = float(a[k]), float(b[k])
            if not abs(x - y) <= 1e-8 * max(abs(x), 1e-14):
                bad.append("%s: %s %.17g (pgs) vs %.17g (pgs_numpy)" % (name, k, x, y))
        t_c += float(a["solve_s"])
        t_py += float(b["solve_s"])
    return bad, t_py / t_c, len(problems)


def main():
    import argparse
    import os
    import tempfile

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--build", default=os.path.join(here, "..", "..", "build"))
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--nx", type=int, default=3)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bad, ratio, n = benchmark(os.path.abspath(a.build), a.iters, tmp, a.nx)
    for b in bad:
        print("MISMATCH " + b)
    print("pgs_numpy vs pgs on %d stack problems, %d iterations each: %s; solve time ratio "
          "pgs_numpy / pgs = %.1f" % (n, a.iters, "agree" if not bad else "DISAGREE", ratio))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())

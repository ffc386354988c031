#!/usr/bin/python3
"""record_mujoco.py: record a scene from MuJoCo's Python bindings into an
mcbench problem file with mcbench.save (docs/python.md, "Python solvers").

    /usr/bin/python3 examples/python/record_mujoco.py [MODEL.xml] [--steps N]
        [--every K] -o OUT.h5

Without `import mujoco` (pip's `mujoco` package; Debian packages only the C
library) it says so and exits 0, recording nothing. Without MODEL.xml it
records a built-in scene: three boxes dropped on a plane, pyramidal cone.

Each recorded step is MuJoCo's constraint problem at velocity level, the
mapping docs/mujoco.md gives for `mcbench record mujoco` (after mj_forward):
    A = M (mj_fullM; dense, then sparse: fine for small models),
    b = M qvel + h qfrc_smooth,   J = efc_J,   e = -(J qvel + h efc_aref),
    r = efc_R (per-row compliance),
    v_ref = qvel + h qacc,        lambda_ref = h efc_force,
rows: equalities bilateral, limits, frictionless and pyramidal contact rows
unilateral, elliptic condim-3 contacts contact_ccp with mu = friction[0].
A model with friction loss or elliptic condim 4/6 is refused with the reason
(the C recorder leaves such rows out; this example does not). The file is
checked by the C reader like any other: `mcbench validate OUT.h5`.
"""
import argparse
import sys

import numpy as np
import scipy.sparse as sp

SCENE = """
<mujoco model="boxes">
  <option timestep="0.005" cone="pyramidal"/>
  <worldbody>
    <geom type="plane" size="2 2 0.1" friction="0.6"/>
    <body pos="0 0 0.2"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body pos="0.05 0 0.45"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body pos="-0.4 0.1 0.15"><freejoint/><geom type="box" size="0.05 0.05 0.05" mass="0.2"/>
    </body>
  </worldbody>
</mujoco>
"""


def jacobian(mujoco, m, d):
    """efc_J as a CSC matrix, from MuJoCo's dense or sparse storage."""
    nefc, nv = d.nefc, m.nv
    flat = np.asarray(d.efc_J).ravel()  # the bindings' shape varies with the version
    if mujoco.mj_isSparse(m):
        rows, cols, vals = [], [], []
        for i in range(nefc):
            a, n = d.efc_J_rowadr[i], d.efc_J_rownnz[i]
            rows += [i] * n
            cols += list(d.efc_J_colind[a:a + n])
            vals += list(flat[a:a + n])
        return sp.csc_matrix((vals, (rows, cols)), shape=(nefc, nv))
    return sp.csc_matrix(flat[:nefc * nv].reshape(nefc, nv))


def blocks_of(mujoco, m, d):
    """mcbench blocks for MuJoCo's rows (docs/mujoco.md, "Row types")."""
    import mcbench
    T = mujoco.mjtConstraint
    unilateral = {int(T.mjCNSTR_LIMIT_JOINT), int(T.mjCNSTR_LIMIT_TENDON),
                  int(T.mjCNSTR_CONTACT_FRICTIONLESS), int(T.mjCNSTR_CONTACT_PYRAMIDAL)}
    out, i = [], 0
    while i < d.nefc:
        t = int(d.efc_type[i])
        if t == int(T.mjCNSTR_EQUALITY):
            out.append(mcbench.Block("bilateral", i, 1))
            i += 1
        elif t in unilateral:
            out.append(mcbench.Block("unilateral", i, 1))
            i += 1
        elif t == int(T.mjCNSTR_CONTACT_ELLIPTIC):
            c = d.contact[d.efc_id[i]]
            if c.dim != 3 or c.friction[0] != c.friction[1]:
                raise ValueError("row %d: an elliptic contact of condim %d or with unequal "
                                 "tangential frictions has no mcbench type" % (i, c.dim))
            out.append(mcbench.Block("contact_ccp", i, 3, mu=float(c.friction[0])))
            i += 3
        else:
            raise ValueError("row %d: MuJoCo constraint type %d (friction loss) has no mcbench "
                             "type; use a model without frictionloss" % (i, t))
    return out


def record(mujoco, m, d, k, name):
    """MuJoCo's step k at velocity level as an mcbench Problem."""
    import mcbench
    mujoco.mj_forward(m, d)
    h, nv = m.opt.timestep, m.nv
    M = np.zeros((nv, nv))
    mujoco.mj_fullM(m, M, d.qM)
    J = jacobian(mujoco, m, d)
    qvel = np.array(d.qvel)
    return mcbench.Problem(
        A=sp.csc_matrix(M), J=J, b=M @ qvel + h * np.array(d.qfrc_smooth),
        e=-(J @ qvel + h * np.array(d.efc_aref[:d.nefc])), blocks=blocks_of(mujoco, m, d),
        r=np.array(d.efc_R[:d.nefc]), v_ref=qvel + h * np.array(d.qacc),
        lambda_ref=h * np.array(d.efc_force[:d.nefc]), h=h, step=k,
        name="%s-step%04d" % (name, k), scene=name,
        source="examples/python/record_mujoco.py (MuJoCo %s)" % mujoco.__version__)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model", nargs="?", help="MuJoCo XML model (default: three boxes)")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--every", type=int, default=20)
    ap.add_argument("-o", dest="out", required=True)
    a = ap.parse_args()
    try:
        import mujoco
    except ImportError as e:
        print("record_mujoco.py: skipped: MuJoCo's Python bindings are not installed (%s; "
              "'pip install mujoco'); nothing recorded" % e, file=sys.stderr)
        return 0
    import mcbench
    m = mujoco.MjModel.from_xml_path(a.model) if a.model else mujoco.MjModel.from_xml_string(SCENE)
    d = mujoco.MjData(m)
    name = m.names[:m.names.index(b"\0")].decode() if a.model else "boxes"
    problems = []
    for k in range(a.steps):
        if k % a.every == 0:
            mujoco.mj_forward(m, d)
            if d.nefc > 0:
                problems.append(record(mujoco, m, d, k, name or "mujoco"))
        mujoco.mj_step(m, d)
    if not problems:
        print("record_mujoco.py: no step had constraints: nothing recorded", file=sys.stderr)
        return 1
    mcbench.save(a.out, problems)
    print("record_mujoco.py: %d problems (%d DOF) from %s into %s"
          % (len(problems), m.nv, a.model or "the built-in boxes", a.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

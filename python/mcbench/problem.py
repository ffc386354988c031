"""problem.py: the problem model (lib/mcb_problem.h) as Python objects.

A Problem holds NumPy arrays and SciPy CSC matrices, copied from and to the
C library's mcb_problem: Problem._from_c(ptr) copies a C problem into Python,
problem._to_c() builds a C problem (owned by the returned CProblem handle,
freed with it) and validates it with the C validator, the same checks as the
C reader's, so that a problem the C library would refuse raises Error with
the C library's message (the problem, the field and the reason).
"""

import ctypes
import math

import numpy as np
import scipy.sparse as sp

from . import _lib
from ._lib import Error

INT_MAX = 2**31 - 1


class Block:
    """One constraint block (mcb_block): `type` one of _lib.BLOCK_TYPES
    ("bilateral", "unilateral", "soft", "contact", "contact_ccp"), its first
    row `row` and row count `nrows` (3 for a contact), the friction
    coefficient `mu` (contacts), the soft stiffness `k` and damping factor
    `alpha` (soft rows), and the second friction coefficient `mu2` of an
    anisotropic contact (NaN: isotropic, and on every non-contact block)."""

    __slots__ = ("type", "row", "nrows", "mu", "k", "alpha", "mu2")

    def __init__(self, type, row, nrows=None, mu=0.0, k=0.0, alpha=0.0, mu2=math.nan):
        self.type = type
        self.row = int(row)
        if nrows is None:
            nrows = 3 if type in ("contact", "contact_ccp") else 1
        self.nrows = int(nrows)
        self.mu = float(mu)
        self.k = float(k)
        self.alpha = float(alpha)
        self.mu2 = float(mu2)

    @property
    def rows(self):
        """The rows of J (or W) the block covers."""
        return range(self.row, self.row + self.nrows)

    def _key(self):
        return (self.type, self.row, self.nrows, self.mu, self.k, self.alpha,
                None if math.isnan(self.mu2) else self.mu2)

    def __eq__(self, other):
        return isinstance(other, Block) and self._key() == other._key()

    def __repr__(self):
        s = "Block(%r, row=%d, nrows=%d" % (self.type, self.row, self.nrows)
        if self.type in ("contact", "contact_ccp"):
            s += ", mu=%g" % self.mu
            if not math.isnan(self.mu2):
                s += ", mu2=%g" % self.mu2
        if self.type == "soft":
            s += ", k=%g, alpha=%g" % (self.k, self.alpha)
        return s + ")"


class CProblem(_lib.Owner):
    """A C mcb_problem owned by Python: freed (mcb_problem_free) when the
    handle is closed or collected. Pass it to a ctypes function as it is
    (it has _as_parameter_) or use .ptr (an _lib.mcb_problem_p)."""

    def __init__(self, ptr):
        self.ptr = ptr

    @property
    def _as_parameter_(self):
        if not self.ptr:
            raise ValueError("mcbench: the C problem was freed")
        return self.ptr

    def close(self):
        if self.ptr:
            _lib.mcb_problem_free(ctypes.byref(self.ptr))
            self.ptr = _lib.mcb_problem_p()


# --- copying out of C -----------------------------------------------------------


def _vec(p, n, dtype=np.float64):
    if not p or n <= 0:
        return None
    return np.ctypeslib.as_array(p, shape=(n,)).astype(dtype, copy=True)


def _csc_from_c(cp):
    if not cp:
        return None
    c = cp.contents
    nnz = c.p[c.n] if c.n > 0 else 0
    p = np.ctypeslib.as_array(c.p, shape=(c.n + 1,)).astype(np.int32, copy=True)
    i = _vec(c.i, nnz, np.int32) if nnz else np.zeros(0, np.int32)
    x = _vec(c.x, nnz) if nnz else np.zeros(0)
    return sp.csc_matrix((x, i, p), shape=(c.m, c.n))


# --- copying into C ----------------------------------------------------------------


def _cbuf(a, ctype):
    """A C-allocated copy of array a (NULL for None or empty), to be owned by
    an mcb_problem."""
    if a is None or len(a) == 0:
        return None
    p = _lib.mcb_calloc(len(a), ctypes.sizeof(ctype))
    if not p:
        raise MemoryError("mcbench: out of memory")
    ctypes.memmove(p, a.ctypes.data, a.nbytes)
    return ctypes.cast(p, ctypes.POINTER(ctype))


def _doubles(x):
    return np.ascontiguousarray(np.asarray(x, dtype=np.float64).ravel())


def _ints(x, where, name):
    a = np.asarray(x).ravel()
    if a.size:
        f = a.astype(np.float64)
        if not np.all(np.isfinite(f)) or np.any(f != np.round(f)) or f.min() < -INT_MAX - 1 \
                or f.max() > INT_MAX:
            raise Error("%s: %s holds values that are not C ints" % (where, name))
    return np.ascontiguousarray(a.astype(np.int32))


def _len_check(where, name, a, expected):
    if a is not None and len(a) != expected:
        raise Error("%s: dataset %s has %d elements, expected %d" % (where, name, len(a),
                                                                        expected))


def _csc_to_c(M, where, name):
    if not sp.issparse(M):
        M = sp.csc_matrix(np.asarray(M, dtype=np.float64))
    M = sp.csc_matrix(M, dtype=np.float64)
    if M.shape[0] > INT_MAX or M.shape[1] > INT_MAX or M.nnz > INT_MAX:
        raise Error("%s: %s is %dx%d with %d entries, too large" % (where, name, M.shape[0],
                                                                    M.shape[1], M.nnz))
    M = M.sorted_indices()  # the order within a column means nothing in SciPy
    c = _lib.mcb_csc_alloc(M.shape[0], M.shape[1], M.nnz)
    if not c:
        raise MemoryError("mcbench: out of memory")
    p = np.ascontiguousarray(M.indptr, dtype=np.int32)
    ctypes.memmove(c.contents.p, p.ctypes.data, p.nbytes)
    if M.nnz:
        i = np.ascontiguousarray(M.indices, dtype=np.int32)
        x = np.ascontiguousarray(M.data, dtype=np.float64)
        ctypes.memmove(c.contents.i, i.ctypes.data, i.nbytes)
        ctypes.memmove(c.contents.x, x.ctypes.data, x.nbytes)
    return c


def _type_code(t, where, k):
    if isinstance(t, str):
        if t not in _lib.BLOCK_TYPES:
            raise Error("%s: constraints/type[%d] = '%s' is an unknown constraint type (%s)"
                        % (where, k, t, ", ".join(_lib.BLOCK_TYPES)))
        return _lib.BLOCK_TYPES.index(t)
    return int(t)  # a code: the validator refuses an unknown one


class Problem:
    """One contact subproblem (lib/mcb_problem.h, docs/problem-format.md).

    Primal form:  A v = b + J^T lambda,  (J v + e + r*lambda, lambda) in S
        A (n x n, sparse SPD) and J (m x n) scipy.sparse.csc_matrix, b (n), e (m)
    Dual form:    u = W lambda + q + r*lambda,  (u, lambda) in S
        W (m x m) csc_matrix, q (m)
    S is the product of the blocks' sets (a list of Block covering rows
    0..m-1 in order). Optional (None when absent): r (per-row compliance),
    subsystems (DOF ranges' starts, nsub + 1 entries; inferred from A when
    absent), v0 / lambda0 (the warm start), v_ref / lambda_ref (a reference
    solution), the body factorization Jc, Jb, body_parent, body_sub, and
    mujoco (a dict: model (bytes), qpos, qvel, act, ctrl, qacc_warmstart,
    time, contacts). Metadata: name, source, scene, notes, h (s), step, and
    the descriptors mass_ratio, cond_est, rank, rank_tol, psd_defect (NaN /
    -1 when unknown).
    """

    _FIELDS = ("name", "source", "scene", "notes", "h", "step", "form", "A", "J", "b", "e",
               "W", "q", "blocks", "subsystems", "r", "v0", "lambda0", "v_ref", "lambda_ref",
               "mass_ratio", "cond_est", "Jc", "Jb", "body_parent", "body_sub", "mujoco",
               "rank", "rank_tol", "psd_defect")

    def __init__(self, A=None, J=None, b=None, e=None, blocks=(), W=None, q=None, form=None,
                 name="", source="", scene="", notes="", h=0.0, step=0, subsystems=None,
                 r=None, v0=None, lambda0=None, v_ref=None, lambda_ref=None,
                 mass_ratio=math.nan, cond_est=math.nan, Jc=None, Jb=None, body_parent=None,
                 body_sub=None, mujoco=None, rank=-1, rank_tol=math.nan, psd_defect=math.nan):
        if form is None:
            form = "dual" if W is not None and A is None else "primal"
        self.form = form
        self.A, self.J, self.W = A, J, W
        self.b, self.e, self.q = b, e, q
        self.blocks = list(blocks)
        self.name, self.source, self.scene, self.notes = name, source, scene, notes
        self.h, self.step = h, step
        self.subsystems, self.r = subsystems, r
        self.v0, self.lambda0, self.v_ref, self.lambda_ref = v0, lambda0, v_ref, lambda_ref
        self.mass_ratio, self.cond_est = mass_ratio, cond_est
        self.Jc, self.Jb, self.body_parent, self.body_sub = Jc, Jb, body_parent, body_sub
        self.mujoco = mujoco
        self.rank, self.rank_tol, self.psd_defect = rank, rank_tol, psd_defect

    @property
    def n(self):
        """Degrees of freedom (0 for a dual problem)."""
        return self.A.shape[0] if self.form == "primal" and self.A is not None else 0

    @property
    def m(self):
        """Constraint rows."""
        M = self.J if self.form == "primal" else self.W
        return M.shape[0] if M is not None else 0

    @property
    def mu2(self):
        """Per block, the second friction coefficient (NaN: isotropic); None
        when no block has one."""
        mu2 = np.array([b.mu2 for b in self.blocks], dtype=np.float64)
        return mu2 if mu2.size and not np.all(np.isnan(mu2)) else None

    def __repr__(self):
        return "<mcbench.Problem %r %s n=%d m=%d blocks=%d>" % (self.name, self.form, self.n,
                                                               self.m, len(self.blocks))

    # --- from C ---------------------------------------------------------------
    @classmethod
    def _from_c(cls, ptr):
        """A Python copy of a C problem (an _lib.mcb_problem_p, a CProblem or
        an address); the C problem is left as it is."""
        if isinstance(ptr, CProblem):
            ptr = ptr.ptr
        elif isinstance(ptr, int):
            ptr = ctypes.cast(ptr, _lib.mcb_problem_p)
        if not ptr:
            raise ValueError("mcbench: Problem._from_c of a NULL problem")
        c = ptr.contents
        n, m, nb = c.n, c.m, c.nblocks
        primal = c.form == 0
        mu2 = _vec(c.mu2, nb)
        blocks = []
        for k in range(nb):
            bk = c.blocks[k]
            t = _lib.BLOCK_TYPES[bk.type] if 0 <= bk.type < len(_lib.BLOCK_TYPES) else bk.type
            blocks.append(Block(t, bk.row, bk.nrows, bk.mu, bk.k, bk.alpha,
                                mu2[k] if mu2 is not None else math.nan))
        mj = None
        if c.mujoco:
            s = c.mujoco.contents
            mj = {
                "model": ctypes.string_at(s.model, s.model_bytes) if s.model else b"",
                "qpos": _vec(s.qpos, s.nq), "qvel": _vec(s.qvel, s.nv),
                "act": _vec(s.act, s.na), "ctrl": _vec(s.ctrl, s.nu),
                "qacc_warmstart": _vec(s.qacc_warmstart, s.nv),
                "time": s.time, "contacts": s.contacts,
            }
        return cls(
            form=_lib.FORMS[c.form] if 0 <= c.form < 2 else c.form,
            name=_lib.cstr(c.name) or "", source=_lib.cstr(c.source) or "",
            scene=_lib.cstr(c.scene) or "", notes=_lib.cstr(c.notes) or "",
            h=c.h, step=c.step,
            A=_csc_from_c(c.A), J=_csc_from_c(c.J), b=_vec(c.b, n) if primal else None,
            e=_vec(c.e, m) if primal else None,
            W=_csc_from_c(c.W), q=_vec(c.q, m) if not primal else None,
            blocks=blocks,
            subsystems=_vec(c.sub_start, c.nsub + 1, np.int64) if c.nsub > 0 else None,
            r=_vec(c.r, m), v0=_vec(c.v0, n), lambda0=_vec(c.lambda0, m),
            v_ref=_vec(c.v_ref, n), lambda_ref=_vec(c.lambda_ref, m),
            mass_ratio=c.mass_ratio, cond_est=c.cond_est,
            Jc=_csc_from_c(c.Jc), Jb=_csc_from_c(c.Jb),
            body_parent=_vec(c.body_parent, c.nbodies, np.int64),
            body_sub=_vec(c.body_sub, c.nbodies, np.int64),
            mujoco=mj, rank=c.rank, rank_tol=c.rank_tol, psd_defect=c.psd_defect)

    # --- to C -----------------------------------------------------------------
    def _to_c(self, where=None, validate=True):
        """A C copy of this problem (a CProblem handle that frees it). The
        shapes are checked here (the C reader checks them from the datasets'
        lengths) and, with validate, the problem goes through the C
        validator (mcb_problem_validate) after its subsystems are inferred
        from A when absent, as the C reader does: a problem the C reader
        would refuse raises Error. `where` prefixes messages (default: the
        problem's name)."""
        if where is None:
            where = "problem '%s'" % self.name
        h = CProblem(_lib.mcb_problem_new())
        if not h.ptr:
            raise MemoryError("mcbench: out of memory")
        try:
            self._fill(h.ptr.contents, h.ptr, where, validate)
        except BaseException:
            h.close()
            raise
        return h

    def _fill(self, c, ptr, where, validate):
        from ctypes import c_double, c_int

        for f in ("name", "source", "scene", "notes"):
            s = getattr(self, f)
            if s is None:
                s = ""
            if not isinstance(s, str):
                raise Error("%s: attribute %s is not a string" % (where, f))
            if "\0" in s:
                raise Error("%s: attribute %s holds a NUL character" % (where, f))
            old = getattr(c, f)
            setattr(c, f, _lib.dup(s))
            _free(old)
        c.h, c.step = float(self.h), int(self.step)
        c.mass_ratio, c.cond_est = float(self.mass_ratio), float(self.cond_est)
        c.rank, c.rank_tol, c.psd_defect = int(self.rank), float(self.rank_tol), \
            float(self.psd_defect)
        if self.form not in _lib.FORMS:
            raise Error("%s: form = '%s' is unknown (primal|dual)" % (where, self.form))
        c.form = _lib.FORMS.index(self.form)
        if self.form == "primal":
            for f in ("A", "J", "b", "e"):
                if getattr(self, f) is None:
                    raise Error("%s: dataset %s is missing (a primal problem needs A, J, b, e)"
                                % (where, f))
            c.A = _csc_to_c(self.A, where, "A")
            c.J = _csc_to_c(self.J, where, "J")
            if c.A.contents.m != c.A.contents.n:
                raise Error("%s: A is %dx%d, not square" % (where, c.A.contents.m,
                                                              c.A.contents.n))
            if c.J.contents.n != c.A.contents.n:
                raise Error("%s: dimension mismatch: J has %d columns, A has %d rows"
                            % (where, c.J.contents.n, c.A.contents.n))
            c.n, c.m = c.A.contents.n, c.J.contents.m
            vecs = {"b": (self.b, c.n), "e": (self.e, c.m), "init/v": (self.v0, c.n),
                    "reference/v": (self.v_ref, c.n)}
        else:
            for f in ("W", "q"):
                if getattr(self, f) is None:
                    raise Error("%s: dataset %s is missing (a dual problem needs W, q)"
                                % (where, f))
            c.W = _csc_to_c(self.W, where, "W")
            if c.W.contents.m != c.W.contents.n:
                raise Error("%s: W is %dx%d, not square" % (where, c.W.contents.m,
                                                              c.W.contents.n))
            c.m = c.W.contents.m
            vecs = {"q": (self.q, c.m)}
        vecs.update({"r": (self.r, c.m), "init/lambda": (self.lambda0, c.m),
                     "reference/lambda": (self.lambda_ref, c.m)})
        arrays = {}
        for name, (x, length) in vecs.items():
            if x is not None:
                x = _doubles(x)
                _len_check(where, name, x, length)
                arrays[name] = _cbuf(x, c_double)
        c.b, c.e = arrays.get("b"), arrays.get("e")
        c.q, c.r = arrays.get("q"), arrays.get("r")
        c.v0, c.lambda0 = arrays.get("init/v"), arrays.get("init/lambda")
        c.v_ref, c.lambda_ref = arrays.get("reference/v"), arrays.get("reference/lambda")

        nb = len(self.blocks)
        if nb > INT_MAX:
            raise Error("%s: constraints: too many blocks" % where)
        if nb:
            bp = _lib.mcb_calloc(nb, ctypes.sizeof(_lib.mcb_block))
            if not bp:
                raise MemoryError("mcbench: out of memory")
            c.blocks = ctypes.cast(bp, ctypes.POINTER(_lib.mcb_block))
            c.nblocks = nb
            for k, blk in enumerate(self.blocks):
                cb = c.blocks[k]
                cb.type = _type_code(blk.type, where, k)
                cb.row, cb.nrows = int(blk.row), int(blk.nrows)
                cb.mu, cb.k, cb.alpha = float(blk.mu), float(blk.k), float(blk.alpha)
            mu2 = self.mu2
            if mu2 is not None:
                c.mu2 = _cbuf(mu2, c_double)

        if self.subsystems is not None:
            if self.form != "primal":
                raise Error("%s: subsystems/start in a dual-form problem" % where)
            s = _ints(self.subsystems, where, "subsystems/start")
            if len(s) < 2:
                raise Error("%s: subsystems/start needs at least 2 entries" % where)
            c.sub_start = _cbuf(s, c_int)
            c.nsub = len(s) - 1

        if any(x is not None for x in (self.Jc, self.Jb, self.body_parent, self.body_sub)):
            self._fill_bodies(c, where)
        if self.mujoco is not None:
            self._fill_mujoco(c, where)

        if not validate:
            return
        err = _lib.mcb_err()
        wb = where.encode("utf-8", "replace")
        if self.form == "primal" and not c.sub_start:
            _lib.check(_lib.mcb_csc_check(c.A, wb, b"A", c.n, c.n, ctypes.byref(err)), err)
            _lib.check(_lib.mcb_problem_infer_subsystems(ptr, ctypes.byref(err)), err)
        _lib.check(_lib.mcb_problem_validate(ptr, wb, ctypes.byref(err)), err)

    def _fill_bodies(self, c, where):
        if self.form != "primal":
            raise Error("%s: group bodies in a dual-form problem (the body factorization "
                        "J = Jc Jb needs the primal form)" % where)
        for f in ("Jc", "Jb", "body_parent", "body_sub"):
            if getattr(self, f) is None:
                raise Error("%s: bodies: %s is missing (the body factorization needs Jc, Jb, "
                            "body_parent and body_sub)" % (where, f))
        parent = _ints(self.body_parent, where, "bodies/parent")
        nb = len(parent)
        if nb < 1 or nb > INT_MAX // 6:
            raise Error("%s: bodies/parent has %d entries (1 to %d bodies)"
                        % (where, nb, INT_MAX // 6))
        sub = _ints(self.body_sub, where, "bodies/subsystem")
        _len_check(where, "bodies/subsystem", sub, nb)
        c.body_parent = _cbuf(parent, ctypes.c_int)
        c.body_sub = _cbuf(sub, ctypes.c_int)
        c.nbodies = nb
        c.Jc = _csc_to_c(self.Jc, where, "bodies/Jc")
        c.Jb = _csc_to_c(self.Jb, where, "bodies/Jb")
        Jc, Jb = c.Jc.contents, c.Jb.contents
        if Jc.m != c.m or Jc.n != 6 * nb:
            raise Error("%s: dimension mismatch: bodies/Jc is %dx%d, expected m x 6 nbodies = "
                        "%dx%d" % (where, Jc.m, Jc.n, c.m, 6 * nb))
        if Jb.m != 6 * nb or Jb.n != c.n:
            raise Error("%s: dimension mismatch: bodies/Jb is %dx%d, expected 6 nbodies x n = "
                        "%dx%d" % (where, Jb.m, Jb.n, 6 * nb, c.n))

    def _fill_mujoco(self, c, where):
        if self.form != "primal":
            raise Error("%s: group mujoco in a dual-form problem" % where)
        d = self.mujoco
        p = _lib.mcb_calloc(1, ctypes.sizeof(_lib.mcb_mujoco))
        if not p:
            raise MemoryError("mcbench: out of memory")
        c.mujoco = ctypes.cast(p, ctypes.POINTER(_lib.mcb_mujoco))
        s = c.mujoco.contents
        model = bytes(d.get("model") or b"")
        vec = {k: (_doubles(d[k]) if d.get(k) is not None else np.zeros(0))
               for k in ("qpos", "qvel", "act", "ctrl", "qacc_warmstart")}
        nq, nv, na, nu = (len(vec[k]) for k in ("qpos", "qvel", "act", "ctrl"))
        if not model or nq < 1 or nv != c.n:
            raise Error("%s: mujoco/ sizes model %d, qpos %d, qvel %d (n = %d), act %d, ctrl %d "
                        "are invalid" % (where, len(model), nq, nv, c.n, na, nu))
        _len_check(where, "mujoco/qacc_warmstart", vec["qacc_warmstart"], nv)
        s.nq, s.nv, s.na, s.nu = nq, nv, na, nu
        mp = _lib.mcb_calloc(len(model), 1)
        if not mp:
            raise MemoryError("mcbench: out of memory")
        ctypes.memmove(mp, model, len(model))
        s.model = ctypes.cast(mp, ctypes.POINTER(ctypes.c_ubyte))
        s.model_bytes = len(model)
        s.qpos, s.qvel = _cbuf(vec["qpos"], ctypes.c_double), _cbuf(vec["qvel"], ctypes.c_double)
        s.act, s.ctrl = _cbuf(vec["act"], ctypes.c_double), _cbuf(vec["ctrl"], ctypes.c_double)
        s.qacc_warmstart = _cbuf(vec["qacc_warmstart"], ctypes.c_double)
        s.time = float(d.get("time", 0.0))
        contacts = d.get("contacts", -1)
        s.contacts = -1 if contacts is None else int(contacts)
        if s.contacts < -1:
            raise Error("%s: mujoco/contacts = %d is negative" % (where, s.contacts))


def _free(p):
    if p:
        _libc_free(ctypes.c_void_p(p))


_libc_free = ctypes.CDLL(None).free
_libc_free.argtypes = [ctypes.c_void_p]
_libc_free.restype = None

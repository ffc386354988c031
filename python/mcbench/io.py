"""io.py: problem files (docs/problem-format.md) through the C reader and
writer (lib/mcb_io.h): load(path) and save(path, problems)."""

import ctypes
import os

from . import _lib
from .problem import Problem


def load(path):
    """Every problem of an mcbench problem file, as a list of Problem, read
    and validated by the C reader (mcb_read_problems): a file the C
    library refuses raises mcbench.Error with its message (file, problem,
    dataset, reason)."""
    S = ctypes.POINTER(_lib.mcb_problem_set)()
    err = _lib.mcb_err()
    _lib.check(_lib.mcb_read_problems(os.fsencode(path), ctypes.byref(S), ctypes.byref(err)),
               err)
    try:
        return [Problem._from_c(S.contents.items[k]) for k in range(S.contents.count)]
    finally:
        _lib.mcb_problem_set_free(ctypes.byref(S))


def save(path, problems):
    """Writes problems (a Problem or a sequence of them) to a new problem
    file (replacing it) with the C writer (mcb_write_problems), each
    validated first as the C reader validates it: a problem the reader
    would refuse raises mcbench.Error and no file is written."""
    if isinstance(problems, Problem):
        problems = [problems]
    problems = list(problems)
    handles = []
    try:
        for k, P in enumerate(problems):
            if not isinstance(P, Problem):
                raise TypeError("mcbench.save: item %d is a %s, not an mcbench.Problem"
                                % (k, type(P).__name__))
            where = "%s: problem %d ('%s')" % (os.fspath(path), k, P.name)
            handles.append(P._to_c(where))
        arr = (_lib.mcb_problem_p * max(1, len(handles)))(*[h.ptr for h in handles])
        err = _lib.mcb_err()
        _lib.check(_lib.mcb_write_problems(os.fsencode(path), arr, len(handles),
                                           ctypes.byref(err)), err)
    finally:
        for h in handles:
            h.close()

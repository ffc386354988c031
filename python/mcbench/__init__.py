"""mcbench: the mcbench C library from Python (docs/python.md).

Problems as SciPy matrices (load, save, Problem), the harness's judgement
of a solution (judge) and a campaign's results as pandas DataFrames
(results, traces), all through libmcbench.so (ctypes; _lib.py finds it).
"""

# --- package core (issue 29: problems, judge, results) ---------------------
from ._lib import Error
from .problem import Block, CProblem, Problem
from .io import load, save
from .judge import Judge, judge
from .results import results, solutions, steps, traces
# --- end of package core -----------------------------------------------------

# --- Python solvers (issue 29: solvers under the harness's rules, run) -------
from .solver import SolverError, register
from .campaign import CampaignError, run

"""run.py: runs one Python test module of tests/python under ctest.

usage: run.py MODULE   (e.g. test_py_problem)
Exits 77 (ctest's SKIP_RETURN_CODE) with the reason when Debian's
python3-numpy, python3-scipy or python3-pandas are missing, 0 when every
test passed, 1 otherwise. ctest sets PYTHONPATH (SRC/python), MCBENCH_LIB
(the built libmcbench.so) and MCBENCH_BIN (the built mcbench)."""

import importlib
import os
import sys
import unittest

missing = []
for mod, pkg in (("numpy", "python3-numpy"), ("scipy", "python3-scipy"),
                 ("pandas", "python3-pandas"), ("h5py", "python3-h5py")):
    try:
        importlib.import_module(mod)
    except ImportError:
        missing.append(pkg)
if missing:
    print("%s: skipped: %s has no %s (Debian: apt-get install %s)"
          % (sys.argv[1], sys.executable, ", ".join(missing), " ".join(missing)))
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
suite = unittest.defaultTestLoader.loadTestsFromName(sys.argv[1])
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() and result.testsRun > 0 else 1)

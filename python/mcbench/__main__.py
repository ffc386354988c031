"""python3 -m mcbench ARGS: the mcbench command line inside Python, where
--plugin FILE.py solvers can be loaded (mcbench._host; docs/python.md)."""
import sys

from mcbench import _host

sys.exit(_host.main(["mcbench"] + sys.argv[1:]))

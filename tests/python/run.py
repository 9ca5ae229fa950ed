#!/usr/bin/env python3
"""Runs the Python package's tests (tests/python/test_*.py) with unittest; exits 77 (CTest's
SKIP_RETURN_CODE) when numpy is missing, so the suite reports the test as skipped."""
import os
import sys
import unittest

try:
    import numpy  # noqa: F401
except ImportError:
    print("numpy is missing (apt-get install python3-numpy): skipped")
    sys.exit(77)

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "python"))
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py", top_level_dir=here)
result = unittest.TextTestRunner(verbosity=2).run(suite)
sys.exit(0 if result.wasSuccessful() else 1)

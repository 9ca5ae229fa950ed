#!/usr/bin/env python3
"""An installed lagc package, as a user's python3 sees it (tests/installed_package.cmake,
tests/debian_package.cmake): imported from PACKAGE_DIR (not from the source tree), it finds
the installed lagc, compiles the cart-pendulum and calls forward_dynamics.

usage: python3 check_installed.py PACKAGE_DIR LAGC MODEL   (run from outside the source tree;
exits 77 when this python has no numpy)"""
import os
import sys

try:
    import numpy as np
except ImportError:
    print("numpy is missing (apt-get install python3-numpy): skipped")
    sys.exit(77)

package_dir, expected_lagc, model = sys.argv[1:4]
import lagc  # noqa: E402

where = os.path.dirname(os.path.dirname(os.path.realpath(lagc.__file__)))
if where != os.path.realpath(package_dir):
    sys.exit("lagc imported from %s, not from %s" % (where, package_dir))
if os.path.realpath(lagc.find_lagc()) != os.path.realpath(expected_lagc):
    sys.exit("the package runs %s, not the installed %s" % (lagc.find_lagc(), expected_lagc))
m = lagc.compile(model)
q, qd, u = np.array([0.0, 0.3]), np.zeros(2), np.array([1.0])
qdd = m.forward_dynamics(q, qd, u)
M, h = m.mass_matrix(q), m.bias_forces(q, qd)
if not np.allclose(M @ qdd + h, [1.0, 0.0]):
    sys.exit("forward_dynamics is wrong: %s" % qdd)
print("import lagc from %s (%s), lagc %s: forward_dynamics = %s" % (where, sys.executable, lagc.find_lagc(), qdd))

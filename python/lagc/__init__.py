"""lagc from Python: compile a model (.lag, URDF or MJCF) and call its functions with numpy.

    import numpy as np, lagc
    m = lagc.compile("models/cart_pendulum.lag")       # options as on the command line
    m.params.m2 = 0.5                                   # parameters by name
    qdd = m.forward_dynamics([0, 0.3], [0, 0], [1.0])   # one state: raises StatusError on failure
    qdd, status = m.forward_dynamics(Q, QD, U)          # rows: (N, nq) ..., a status per row

lagc.compile runs lagc with --c-api, builds the generated C++ and a batch shim (one C loop
over rows per function) into a shared library with the system's C++ compiler, caches it by
the model's text, lagc's version and the options, and loads it with ctypes. See
docs/python.md.
"""
import sys as _sys

try:
    import numpy as _numpy  # noqa: F401
except ImportError:  # say which Python this is: pyenv's or a venv's does not see Debian's numpy
    raise ImportError("lagc needs numpy, which %s (Python %d.%d) does not have: apt-get install "
                      "python3-numpy and run Debian's /usr/bin/python3 (or install numpy for this "
                      "Python)" % (_sys.executable, *_sys.version_info[:2])) from None

from ._compile import compile, load, find_lagc, cache_dir, CompileError
from ._model import Model, Parameters, StatusError, STATUS

__all__ = ["compile", "load", "find_lagc", "cache_dir", "CompileError", "Model", "Parameters",
           "StatusError", "STATUS"]
__version__ = "0.1.0"

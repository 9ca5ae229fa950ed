#!/usr/bin/env python3
"""Calls a lagc model's C interface from Python with ctypes and checks the results against
the C++ API, to the last bit.

usage: compare.py LIBRARY C_HEADER REFERENCE_PROGRAM
LIBRARY is the generated .cpp (lagc --c-api) built as a shared library, C_HEADER its .h;
REFERENCE_PROGRAM calls the C++ functions on the same states and prints the same numbers.
The parameters struct is read from the header, so this works for any model.
"""
import ctypes
import re
import subprocess
import sys


def parameters_struct(header, prefix):
    text = open(header).read()
    body = re.search(r"typedef struct %s_parameters \{(.*?)\}" % prefix, text, re.S).group(1)
    fields = [(name, ctypes.c_double) for name in re.findall(r"double (\w+);", body)]
    return type("Parameters", (ctypes.Structure,), {"_fields_": fields})


def main():
    library, header, reference = sys.argv[1:4]
    prefix = re.search(r"enum \{ (\w+)_nq = (\d+), \w+_nu = (\d+)", open(header).read())
    ns, nq, nu = prefix.group(1), int(prefix.group(2)), int(prefix.group(3))
    lib = ctypes.CDLL(library)
    Parameters = parameters_struct(header, ns)
    p = Parameters()
    getattr(lib, ns + "_default_parameters")(ctypes.byref(p))
    vec = lambda n, values=(): (ctypes.c_double * n)(*values)
    lines = []
    for k in range(3):  # the same states as the reference program
        q = vec(nq, [0.1 * (i + 1) + 0.05 * k for i in range(nq)])
        qd = vec(nq, [0.2 - 0.1 * i + 0.01 * k for i in range(nq)])
        u = vec(max(nu, 1), [0.3 * (i + 1) for i in range(max(nu, 1))])
        qdd, lam = vec(nq), vec(1)
        A, B = vec(4 * nq * nq), vec(2 * nq * max(nu, 1))
        assert getattr(lib, ns + "_forward_dynamics")(q, qd, u, ctypes.byref(p), qdd, lam) == 0
        assert getattr(lib, ns + "_linearization")(q, qd, u, ctypes.byref(p), A, B) == 0
        lines.append(list(qdd) + list(A) + list(B[: 2 * nq * nu]))
    printed = subprocess.run([reference], capture_output=True, text=True, check=True).stdout.split("\n")
    theirs = [[float.fromhex(v) for v in line.split()] for line in printed if line.strip()]
    # Exact equality of doubles: the same bits (the reference prints them as hex floats).
    if lines != theirs:
        print("ctypes and C++ differ:\n%s\n---\n%s" % (lines, theirs))
        sys.exit(1)
    print("ctypes and C++ agree to the last bit on %d numbers" % sum(len(l) for l in lines))


if __name__ == "__main__":
    main()

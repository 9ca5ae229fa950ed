#!/usr/bin/env python3
"""Calls a lagc model's C interface from Python with ctypes and checks the results against
the C++ API, to the last bit.

usage: compare.py LIBRARY C_HEADER REFERENCE_PROGRAM
LIBRARY is the generated .cpp (lagc --c-api) built as a shared library, C_HEADER its .h;
REFERENCE_PROGRAM calls the C++ functions on the same states and prints the same numbers.
Everything is read from the header — the sizes (nq, nu, nc, and nr of the regressor), the
scalar type (double, or float with --scalar float), the parameters struct — so this works
for any model.
"""
import ctypes
import re
import subprocess
import sys


def model_of(header):
    text = open(header).read()
    sizes = re.search(r"enum \{ (\w+)_nq = (\d+), \w+_nu = (\d+), \w+_nc = (\d+) \}", text)
    ns, nq, nu, nc = sizes.group(1), int(sizes.group(2)), int(sizes.group(3)), int(sizes.group(4))
    scalar_name = re.search(r"int %s_forward_dynamics\(const (double|float)\* q" % ns, text).group(1)
    scalar = ctypes.c_float if scalar_name == "float" else ctypes.c_double
    body = re.search(r"typedef struct %s_parameters \{(.*?)\}" % ns, text, re.S).group(1)
    fields = [(name, ctypes.c_float if kind == "float" else ctypes.c_double)
              for kind, name in re.findall(r"(double|float) (\w+);", body)]
    if not fields:  # a model without parameters: C's struct holds one char
        fields = [("unused", ctypes.c_char)]
    parameters = type("Parameters", (ctypes.Structure,), {"_fields_": fields})
    # inverse_dynamics_regressor's Y is nq x nr (its column count in the header, where there is one).
    nr = re.search(r"enum \{ %s_nr = (\d+) \}" % ns, text)
    return ns, nq, nu, nc, scalar, parameters, int(nr.group(1)) if nr else 0


def main():
    library, header, reference = sys.argv[1:4]
    ns, nq, nu, nc, scalar, Parameters, nr = model_of(header)
    lib = ctypes.CDLL(library)
    p = Parameters()
    getattr(lib, ns + "_default_parameters")(ctypes.byref(p))
    vec = lambda n, values=(): (scalar * max(n, 1))(*values)
    lines = []
    for k in range(3):  # the same states as the reference program, rounded to the scalar
        q = vec(nq, [0.1 * (i + 1) + 0.05 * k for i in range(nq)])
        qd = vec(nq, [0.2 - 0.1 * i + 0.01 * k for i in range(nq)])
        u = vec(nu, [0.3 * (i + 1) for i in range(max(nu, 1))])
        qdd, lam = vec(nq), vec(nc)
        A, B = vec(4 * nq * nq), vec(2 * nq * max(nu, 1))
        assert getattr(lib, ns + "_forward_dynamics")(q, qd, u, ctypes.byref(p), qdd, lam) == 0
        assert getattr(lib, ns + "_linearization")(q, qd, u, ctypes.byref(p), A, B) == 0
        Y = vec(nq * nr)
        if nr:
            getattr(lib, ns + "_inverse_dynamics_regressor")(q, qd, qdd, ctypes.byref(p), Y)
        lines.append(list(qdd) + list(lam[:nc]) + list(A) + list(B[: 2 * nq * nu]) + list(Y[: nq * nr]))
    if nr:  # the columns' parameter indices, as the C++ header's regressor_parameters
        lines.append("regressor " + " ".join(str(j) for j in (ctypes.c_int * nr).in_dll(lib, ns + "_regressor_parameters")))
    printed = subprocess.run([reference], capture_output=True, text=True, check=True).stdout.split("\n")
    theirs = [line if line.startswith("regressor") else [float.fromhex(v) for v in line.split()]
              for line in printed if line.strip()]
    # Exact equality: the same bits (the reference prints them as hex floats).
    if lines != theirs:
        print("ctypes and C++ differ:\n%s\n---\n%s" % (lines, theirs))
        sys.exit(1)
    print("ctypes and C++ agree to the last bit on %d numbers (%s, nq = %d, nc = %d, nr = %d, %s)"
          % (sum(len(l) for l in lines if not isinstance(l, str)), ns, nq, nc, nr, scalar.__name__))


if __name__ == "__main__":
    main()

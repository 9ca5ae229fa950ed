#!/usr/bin/env python3
"""The Python package's cost (issue 47): a single-state call of forward_dynamics, and a
100,000-row batch, against the same generated C++ called in a C++ loop.

usage: python3 bench/python_overhead.py [MODEL ...]   (default: models/cart_pendulum.lag
tests/robots/ur5.urdf); LAGC_EXECUTABLE or build/lagc as for lagc.compile.
Prints, per model: the C++ loop's time per row, the batch's time per row (1 and 2 threads)
and its ratio to C++, a bare ctypes call of the C function on preallocated arrays, and a
single call of m.forward_dynamics with numpy arrays (time, and overhead over C++); for the
cart-pendulum also what a SymPy user writes: lambdify with numpy (np.linalg.solve), when
python3-sympy is installed, and autowrap/ufuncify with Cython, when cython3 and python3-dev
are (bench/run.sh installs them; run with Debian's python3, whose Cython that is)."""
import ctypes
import os
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python"))
import lagc  # noqa: E402

ROWS = 100_000

CXX_LOOP = r"""
#include "model.hpp"
#include <chrono>
#include <cstdio>
#include <vector>
int main() {
    using namespace %(ns)s;
    const long n = %(rows)d;
    std::vector<double> q(n * nq), qd(n * nq), u(n * (nu ? nu : 1)), qdd(n * nq);
    unsigned s = 1;
    auto r = [&] { s = s * 1103515245u + 12345u; return ((s >> 8) %% 20000) / 10000.0 - 1.0; };
    for (auto& v : q) v = r();
    for (auto& v : qd) v = r();
    for (auto& v : u) v = r();
    Parameters p;
    double best = 1e30;
    int bad = 0;
    for (int rep = 0; rep < 7; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        for (long i = 0; i < n; ++i)
            bad += forward_dynamics(&q[i * nq], &qd[i * nq], nu ? &u[i * nu] : nullptr, p, &qdd[i * nq], nullptr) != 0;
        double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (t < best) best = t;
    }
    std::printf("%%.6e %%d\n", best / n, bad);
}
"""


def cxx_loop(m):
    directory = os.path.dirname(m.header_path)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "loop.cpp")
        with open(src, "w") as f:
            f.write(CXX_LOOP % {"ns": m.name, "rows": ROWS})
        exe = os.path.join(d, "loop")
        subprocess.run(["c++", "-std=c++17", "-O2", "-I", directory, src, os.path.join(directory, "model.cpp"),
                        "-o", exe], check=True)
        return float(subprocess.run([exe], capture_output=True, text=True, check=True).stdout.split()[0])


def sympy_cart_pendulum():
    """What a SymPy user writes for the cart-pendulum: Lagrange's equations, M and the
    right-hand side lambdified with numpy, solved per state (single) or stacked (batch).
    None when python3-sympy is missing."""
    try:
        import sympy as sp
    except ImportError:
        return None
    t = sp.symbols("t")
    m1, m2, l, g, F = sp.symbols("m1 m2 l g F")
    x, th = sp.Function("x")(t), sp.Function("theta")(t)
    bob = sp.Matrix([x + l * sp.sin(th), l * (1 - sp.cos(th))])
    T = m1 * x.diff(t) ** 2 / 2 + m2 * bob.diff(t).dot(bob.diff(t)) / 2
    L = T - m2 * g * bob[1]
    q = [x, th]
    eqs = sp.Matrix([L.diff(c.diff(t)).diff(t) - L.diff(c) for c in q]) - sp.Matrix([F, 0])
    qdd = [c.diff(t, 2) for c in q]
    M = eqs.jacobian(qdd)
    rhs = -eqs.subs({a: 0 for a in qdd})
    s = sp.symbols("x theta xd thetad")
    subs = {x.diff(t): s[2], th.diff(t): s[3]}
    subs2 = {x: s[0], th: s[1]}
    M = M.subs(subs).subs(subs2)
    rhs = sp.simplify(rhs.subs(subs).subs(subs2))
    args = [*s, F, m1, m2, l, g]
    f_M = sp.lambdify(args, M, "numpy")        # single states: numpy arrays of numbers
    f_rhs = sp.lambdify(args, rhs, "numpy")
    # batches: one function per entry (a constant entry gives a number, broadcast below)
    e_M = [[sp.lambdify(args, M[i, j], "numpy") for j in range(2)] for i in range(2)]
    e_rhs = [sp.lambdify(args, rhs[i], "numpy") for i in range(2)]
    p = (1.0, 0.3, 0.5, 9.81)

    def single(q, qd, u):
        return np.linalg.solve(f_M(q[0], q[1], qd[0], qd[1], u[0], *p), f_rhs(q[0], q[1], qd[0], qd[1], u[0], *p)[:, 0])

    def batch(Q, QD, U):
        a = (Q[:, 0], Q[:, 1], QD[:, 0], QD[:, 1], U[:, 0], *p)
        n = len(Q)
        full = lambda f: np.broadcast_to(np.asarray(f(*a), dtype=float), (n,))
        Ms = np.stack([np.stack([full(f) for f in row], -1) for row in e_M], -2)
        r = np.stack([full(f) for f in e_rhs], -1)
        return np.linalg.solve(Ms, r[..., None])[..., 0]

    return single, batch, (M, rhs, args, p)


def sympy_autowrap(M, rhs, args, p):
    """What a SymPy user writes for compiled code: qdd = M^-1 rhs solved symbolically, then
    autowrap (one Cython function of one state, a 2x1 result) and ufuncify (one Cython loop
    per coordinate over 1-D arrays; the parameters as arrays too, ufuncify's rule), both
    with backend="cython" (Debian's cython3). None when Cython is missing."""
    import sympy as sp
    from sympy.utilities.autowrap import autowrap, ufuncify
    try:
        import Cython  # noqa: F401
    except ImportError:
        return None
    qdd = M.LUsolve(rhs)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as d1, tempfile.TemporaryDirectory() as d2:
        f_qdd = autowrap(qdd, backend="cython", args=args, tempdir=d1)
        u_qdd = [ufuncify(args, qdd[i], backend="cython", tempdir=d2) for i in range(2)]
    build = time.perf_counter() - start

    def single(q, qd, u):
        return f_qdd(q[0], q[1], qd[0], qd[1], u[0], *p)[:, 0]

    def batch(Q, QD, U):
        n = len(Q)
        columns = (Q[:, 0], Q[:, 1], QD[:, 0], QD[:, 1], U[:, 0])  # ufuncify reads contiguous arrays
        a = (*(np.ascontiguousarray(c) for c in columns), *(np.full(n, v) for v in p))
        return np.stack([f(*a) for f in u_qdd], -1)

    return single, batch, build


def best(stmt, number, repeat=5, g=None):
    return min(timeit.repeat(stmt, number=number, repeat=repeat, globals=g)) / number


def main():
    models = sys.argv[1:] or [os.path.join(here, "..", "models", "cart_pendulum.lag"),
                              os.path.join(here, "..", "tests", "robots", "ur5.urdf")]
    for path in models:
        m = lagc.compile(path)
        rng = np.random.default_rng(1)
        Q, QD, U = (rng.uniform(-1, 1, (ROWS, k)) for k in (m.nq, m.nq, m.nu))
        q, qd, u = Q[0].copy(), QD[0].copy(), U[0].copy()
        per_row_cxx = cxx_loop(m)
        g = dict(m=m, Q=Q, QD=QD, U=U, q=q, qd=qd, u=u)
        batch1 = best("m.forward_dynamics(Q, QD, U)", 1, g=g) / ROWS
        batch2 = best("m.forward_dynamics(Q, QD, U, threads=2)", 1, g=g) / ROWS
        out = (np.empty((ROWS, m.nq)),)
        batch_out = best("m.forward_dynamics(Q, QD, U, out=out)", 1, g=dict(g, out=out)) / ROWS
        # A bare ctypes call on arrays allocated once: the floor of any ctypes wrapper.
        f = getattr(m._lib, m.name + "_forward_dynamics")
        bufs = [(ctypes.c_double * max(k, 1))() for k in (m.nq, m.nq, m.nu, m.nq)]
        addresses = [ctypes.addressof(b) for b in bufs]
        g.update(f=f, a=addresses, p=m._params_address)
        bare = best("f(a[0], a[1], a[2], p, a[3], None)", 20000, g=g)
        single = best("m.forward_dynamics(q, qd, u)", 20000, g=g)
        others = [(name, best("m.%s" % call, 20000, g=dict(g, x=np.concatenate([q, qd]))))
                  for name, call in (("mass_matrix", "mass_matrix(q)"), ("linearization", "linearization(q, qd, u)"),
                                     ("rk4_step_jacobian", "rk4_step_jacobian(x, u, 0.01)"))]
        print("%s (nq = %d): forward_dynamics" % (m.name, m.nq))
        print("  C++ loop, per row                 %8.3f us" % (per_row_cxx * 1e6))
        print("  batch of %d rows, per row     %8.3f us  (%.2fx the C++ loop)" % (ROWS, batch1 * 1e6, batch1 / per_row_cxx))
        print("  batch, out= arrays, per row       %8.3f us  (%.2fx)" % (batch_out * 1e6, batch_out / per_row_cxx))
        print("  batch, threads=2, per row         %8.3f us  (%.2fx)" % (batch2 * 1e6, batch2 / per_row_cxx))
        print("  bare ctypes call (no numpy)       %8.3f us" % (bare * 1e6))
        print("  single call m.forward_dynamics    %8.3f us  (overhead over C++: %.3f us)"
              % (single * 1e6, (single - per_row_cxx) * 1e6))
        for name, t in others:
            print("  single call m.%-20s %8.3f us" % (name, t * 1e6))
        if m.name == "cart_pendulum":
            sympy_rows(m, g, q, qd, u, Q, QD, U, batch1, single)


def sympy_rows(m, g, q, qd, u, Q, QD, U, batch1, single):
    """The cart-pendulum as a SymPy user computes it: lambdify with numpy, autowrap with Cython."""
    sym = sympy_cart_pendulum()
    if sym is None:
        print("  SymPy lambdify: python3-sympy is not installed")
        return
    s_single, s_batch, derived = sym
    aw = sympy_autowrap(*derived)
    rows = [("lambdify + numpy", s_single, s_batch)]
    if aw is None:
        print("  SymPy autowrap: Cython is not installed (apt-get install cython3 python3-dev)")
    else:
        print("  SymPy autowrap: built in %.1f s" % aw[2])
        rows.append(("autowrap, Cython", aw[0], aw[1]))
    for label, f_single, f_batch in rows:
        np.testing.assert_allclose(f_batch(Q[:5], QD[:5], U[:5]), m.forward_dynamics(Q[:5], QD[:5], U[:5])[0], rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(f_single(q, qd, u), m.forward_dynamics(q, qd, u), rtol=1e-9, atol=1e-9)
        g.update(f_single=f_single, f_batch=f_batch)
        sb = best("f_batch(Q, QD, U)", 1, g=g) / ROWS
        ss = best("f_single(q, qd, u)", 2000, g=g)
        print("  SymPy %-17s batch     %8.3f us per row (%.1fx the package's batch)" % (label + ",", sb * 1e6, sb / batch1))
        print("  SymPy %-17s single    %8.3f us  (%.1fx the package's single call)" % (label + ",", ss * 1e6, ss / single))


if __name__ == "__main__":
    main()

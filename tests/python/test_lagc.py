"""The Python package against known values: the cart-pendulum and the UR5 (a robot file).

Environment: LAGC_EXECUTABLE (the lagc under test), LAGC_CACHE_DIR (a cache for this run)."""
import os
import tempfile
import time
import unittest

import numpy as np

import lagc

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CART = os.path.join(ROOT, "models", "cart_pendulum.lag")
UR5_URDF = os.path.join(ROOT, "tests", "robots", "ur5.urdf")
_models = {}


def model(path, **options):
    key = (path, tuple(sorted(options.items())))
    if key not in _models:
        _models[key] = lagc.compile(path, **options)
    return _models[key]


def random_arguments(f, rng, n=None):
    """Random arguments for a Function: one row each, or n rows."""
    args = []
    for a in f._inputs:
        if a.kind == "scalar":
            args.append(0.01)
        else:
            shape = ((n,) if n else ()) + a.shape
            args.append(rng.uniform(-0.8, 0.8, size=shape))
    return args


def central_difference(f, x, eps=1e-6):
    x = np.asarray(x, dtype=float)
    columns = []
    for i in range(x.size):
        d = np.zeros_like(x)
        d[i] = eps
        columns.append((np.asarray(f(x + d)) - np.asarray(f(x - d))) / (2 * eps))
    return np.stack(columns, axis=-1)


class Checks:
    """Checks every model gets (self.m set by the subclass)."""

    def state(self, seed=1):
        rng = np.random.default_rng(seed)
        return (rng.uniform(-1, 1, self.m.nq), rng.uniform(-1, 1, self.m.nq), rng.uniform(-1, 1, self.m.nu))

    def test_forward_dynamics_solves_m_qdd_equals_q_minus_h(self):
        m = self.m
        q, qd, u = self.state()
        M, h, Q = m.mass_matrix(q), m.bias_forces(q, qd), m.generalized_forces(q, qd, u)
        self.assertEqual(M.shape, (m.nq, m.nq))
        np.testing.assert_allclose(M, M.T, atol=1e-14)
        qdd = m.forward_dynamics(q, qd, u)
        np.testing.assert_allclose(qdd, np.linalg.solve(M, Q - h), rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(m.inverse_dynamics(q, qd, qdd, u), np.zeros(m.nq), atol=1e-9)
        np.testing.assert_allclose(m.state_derivative(np.concatenate([q, qd]), u), np.concatenate([qd, qdd]),
                                   rtol=1e-12, atol=1e-12)

    def test_energies_and_coriolis(self):
        m = self.m
        q, qd, u = self.state(2)
        M = m.mass_matrix(q)
        self.assertAlmostEqual(m.kinetic_energy(q, qd), 0.5 * qd @ M @ qd, places=10)
        np.testing.assert_allclose(m.potential_gradient(q), central_difference(m.potential_energy, q), atol=1e-6)
        if "coriolis_matrix" in m.functions:
            C = m.coriolis_matrix(q, qd)
            np.testing.assert_allclose(C @ qd + m.potential_gradient(q), m.bias_forces(q, qd), atol=1e-10)
        if m.nu:
            np.testing.assert_allclose(m.input_matrix(q, qd, u),
                                       central_difference(lambda v: m.generalized_forces(q, qd, v), u), atol=1e-6)

    def test_linearization_against_finite_differences(self):
        m = self.m
        q, qd, u = self.state(3)
        A, B = m.linearization(q, qd, u)
        n = m.nq
        self.assertEqual(A.shape, (2 * n, 2 * n))
        self.assertEqual(B.shape, (2 * n, m.nu))
        x = np.concatenate([q, qd])
        f = lambda x: m.state_derivative(x, u)
        np.testing.assert_allclose(A, central_difference(f, x), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(B, central_difference(lambda v: m.state_derivative(x, v), u), rtol=1e-4, atol=1e-4)

    def test_rk4_conserves_energy_and_its_jacobian(self):
        m = self.m
        q, qd, _ = self.state(4)
        u = np.zeros(m.nu)
        x = np.concatenate([q, qd])
        energy = lambda x: m.kinetic_energy(x[:m.nq], x[m.nq:]) + m.potential_energy(x[:m.nq])
        e0 = energy(x)
        y = x.copy()
        for _ in range(500):
            y = m.rk4_step(y, u, 1e-3)
        self.assertLess(abs(energy(y) - e0), 1e-7 * max(1.0, abs(e0)))
        x1, Ad, Bd = m.rk4_step_jacobian(x, u, 1e-2)
        np.testing.assert_allclose(x1, m.rk4_step(x, u, 1e-2), rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(Ad, central_difference(lambda v: m.rk4_step(v, u, 1e-2), x), rtol=1e-6, atol=1e-6)
        if m.nu:
            np.testing.assert_allclose(Bd, central_difference(lambda v: m.rk4_step(x, v, 1e-2), u), atol=1e-6)
        # the input was not modified in place
        np.testing.assert_array_equal(x, np.concatenate([q, qd]))

    def test_every_function_batch_equals_single(self):
        m = self.m
        rng = np.random.default_rng(5)
        n = 7
        for name in m.functions:
            f = getattr(m, name)
            args = random_arguments(f.function, rng, n)
            results = f(*args)
            results = results if isinstance(results, tuple) else (results,)
            status = results[-1] if f.function._result == "int" else None
            for i in range(n):
                row = [a[i] if isinstance(a, np.ndarray) else a for a in args]
                try:
                    single = f(*row)
                except lagc.StatusError as e:
                    self.assertEqual(status[i], e.status, name)
                    continue
                single = single if isinstance(single, tuple) else (single,)
                if status is not None:
                    self.assertEqual(status[i], 0, name)
                for b, s in zip(results, single):
                    np.testing.assert_array_equal(np.asarray(b)[i], s, err_msg=name)
            threaded = f(*args, threads=2)
            threaded = threaded if isinstance(threaded, tuple) else (threaded,)
            for a, b in zip(results, threaded):
                np.testing.assert_array_equal(a, b, err_msg=name)

    def test_batch_of_shared_rows(self):
        m = self.m
        q, qd, u = self.state(6)
        Q = np.tile(q, (5, 1))
        qdd, status = m.forward_dynamics(Q, qd, u)  # qd and u shared by all rows
        self.assertEqual(qdd.shape, (5, m.nq))
        np.testing.assert_array_equal(status, np.zeros(5, dtype=np.int32))
        np.testing.assert_array_equal(qdd[3], m.forward_dynamics(q, qd, u))


class CartPendulum(Checks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = model(CART)

    def setUp(self):
        self.m.params.reset()

    def test_names_and_sizes(self):
        m = self.m
        self.assertEqual((m.name, m.nq, m.nu, m.nc), ("cart_pendulum", 2, 1, 0))
        self.assertEqual(m.coordinate_names, ["x", "theta"])
        self.assertEqual(m.input_names, ["F"])
        self.assertEqual(m.parameter_names, ["m1", "m2", "l", "g"])
        self.assertEqual(m.params.as_dict(), {"m1": 1.0, "m2": 0.3, "l": 0.5, "g": 9.81})
        self.assertEqual(m.coordinate_index["theta"], 1)
        for name in ("mass_matrix", "coriolis_matrix", "bias_forces", "generalized_forces", "kinetic_energy",
                     "potential_energy", "forward_dynamics", "inverse_dynamics", "linearization", "rk4_step",
                     "rk4_step_jacobian"):
            self.assertIn(name, m.functions)

    def test_known_values(self):
        m = self.m
        th, thd = 0.3, 0.7
        q, qd = np.array([0.1, th]), np.array([0.2, thd])
        m1, m2, l, g = 1.0, 0.3, 0.5, 9.81
        M = np.array([[m1 + m2, m2 * l * np.cos(th)], [m2 * l * np.cos(th), m2 * l * l]])
        np.testing.assert_allclose(m.mass_matrix(q), M, rtol=1e-15)
        self.assertAlmostEqual(m.potential_energy(q), m2 * g * l * (1 - np.cos(th)), places=14)
        h = np.array([-m2 * l * np.sin(th) * thd ** 2, m2 * g * l * np.sin(th)])
        np.testing.assert_allclose(m.bias_forces(q, qd), h, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(m.generalized_forces(q, qd, [2.0]), [2.0, 0.0])

    def test_parameters_by_name(self):
        m = self.m
        q, qd, u = np.array([0.0, 0.4]), np.zeros(2), np.array([0.0])
        before = m.mass_matrix(q)
        m.params.m2 = 0.6
        self.assertEqual(m.params["m2"], 0.6)
        after = m.mass_matrix(q)
        self.assertAlmostEqual(after[1, 1], 0.6 * 0.25, places=15)
        self.assertNotEqual(before[1, 1], after[1, 1])
        m.params["l"] = 1.0
        m.params = {"m1": 2.0}
        self.assertEqual(dict(m.params.items())["m1"], 2.0)
        np.testing.assert_allclose(m.params.as_array(), [2.0, 0.6, 1.0, 9.81])
        m.params.reset()
        np.testing.assert_array_equal(m.mass_matrix(q), before)
        with self.assertRaises(AttributeError):
            m.params.mass = 1.0
        with self.assertRaises(KeyError):
            m.params["mass"]

    def test_status(self):
        m = self.m
        with self.assertRaises(lagc.StatusError) as e:
            m.forward_dynamics([0.0, 0.3], [0.0, np.inf], [0.0])
        self.assertEqual(e.exception.status, 3)
        QD = np.zeros((3, 2))
        QD[1, 1] = np.inf
        qdd, status = m.forward_dynamics(np.zeros(2), QD, np.zeros(1))
        np.testing.assert_array_equal(status, [0, 3, 0])
        m.params.m1, m.params.m2 = 0.0, 0.0
        with self.assertRaises(lagc.StatusError) as e:
            m.forward_dynamics([0.0, 0.0], [0.0, 0.0], [0.0])
        self.assertEqual(e.exception.status, 1)
        m.params.reset()

    def test_shapes_and_dtypes(self):
        m = self.m
        with self.assertRaisesRegex(ValueError, r"forward_dynamics: q must have shape \(2,\)"):
            m.forward_dynamics([0.0, 0.0, 0.0], [0.0, 0.0], [0.0])
        with self.assertRaisesRegex(ValueError, "rows"):
            m.forward_dynamics(np.zeros((3, 2)), np.zeros((4, 2)), [0.0])
        with self.assertRaisesRegex(ValueError, "real numbers"):
            m.forward_dynamics(np.zeros(2, dtype=complex), [0.0, 0.0], [0.0])
        with self.assertRaisesRegex(ValueError, "real numbers"):
            m.mass_matrix(["a", "b"])
        with self.assertRaisesRegex(ValueError, "dt must be a scalar"):
            m.rk4_step(np.zeros(4), [0.0], np.zeros(3))
        with self.assertRaisesRegex(ValueError, "dt must be a real number"):
            m.rk4_step(np.zeros(4), [0.0], "0.01")
        with self.assertRaises(TypeError):
            m.forward_dynamics([0.0, 0.0], [0.0, 0.0])
        with self.assertRaisesRegex(ValueError, "out array"):
            m.forward_dynamics(np.zeros((3, 2)), np.zeros(2), [0.0], out=np.zeros((2, 2)))
        Q = np.zeros((3, 2))
        with self.assertRaisesRegex(ValueError, "overlaps"):
            m.forward_dynamics(Q, np.zeros(2), [0.0], out=Q)
        X = np.zeros((3, 4))
        X[:, 1] = 0.2
        expected = m.rk4_step(X, [0.0], 0.01)[0]
        m.rk4_step(X, [0.0], 0.01, out=X)  # a state updated in place: allowed
        np.testing.assert_array_equal(X[1], expected[1])
        # ints and lists are fine
        np.testing.assert_array_equal(m.mass_matrix([0, 0]), m.mass_matrix(np.zeros(2)))

    def test_out_arrays(self):
        m = self.m
        Q = np.random.default_rng(7).uniform(-1, 1, (10, 2))
        out = np.empty((10, 2))
        qdd, status = m.forward_dynamics(Q, np.zeros(2), [1.0], out=out)
        self.assertIs(qdd, out)
        np.testing.assert_array_equal(out[4], m.forward_dynamics(Q[4], np.zeros(2), [1.0]))

    def test_cache(self):
        start = time.perf_counter()
        again = lagc.compile(CART)
        elapsed = time.perf_counter() - start
        self.assertEqual(again.library_path, self.m.library_path)
        self.assertLess(elapsed, 1.0)
        other = model(CART, fold_parameters=True)
        self.assertNotEqual(other.library_path, self.m.library_path)

    def test_two_models_of_one_library(self):
        # One dlopen, so the single calls' arrays are shared; each keeps its parameters.
        a, b = lagc.compile(CART), lagc.compile(CART)
        self.assertEqual(a.library_path, b.library_path)
        b.params.m2 = 2.0
        q, qd, u = np.array([0.1, 0.7]), np.array([0.2, -0.3]), np.array([0.5])
        qa, qb = a.forward_dynamics(q, qd, u), b.forward_dynamics(q, qd, u)
        self.assertFalse(np.allclose(qa, qb))
        np.testing.assert_array_equal(qa, self.m.forward_dynamics(q, qd, u))
        np.testing.assert_array_equal(qb, b.forward_dynamics(q[None], qd[None], u)[0][0])

    def test_single_calls_from_threads(self):
        import threading
        rng = np.random.default_rng(3)
        Q, QD, U = rng.uniform(-1, 1, (400, 2)), rng.uniform(-1, 1, (400, 2)), rng.uniform(-1, 1, (400, 1))
        expected = self.m.forward_dynamics(Q, QD, U)[0]
        got = np.zeros_like(expected)

        def work(rows):
            for i in rows:
                got[i] = self.m.forward_dynamics(Q[i], QD[i], U[i])
        threads = [threading.Thread(target=work, args=(range(k, 400, 4),)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(got, expected)

    def test_two_processes_compile_at_once(self):
        """Two processes compiling one model into an empty cache at once: both load it, one
        directory is left and no temporary one."""
        import subprocess
        import sys
        with tempfile.TemporaryDirectory() as cache:
            script = ("import sys; sys.path.insert(0, %r); import lagc; "
                      "print(lagc.compile(%r).library_path)" % (os.path.join(ROOT, "python"), CART))
            env = dict(os.environ, LAGC_CACHE_DIR=cache)
            runs = [subprocess.Popen([sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True)
                    for _ in range(2)]
            paths = [r.communicate()[0].strip() for r in runs]
            self.assertEqual([r.returncode for r in runs], [0, 0])
            self.assertEqual(paths[0], paths[1])
            self.assertEqual(os.listdir(cache), [os.path.basename(os.path.dirname(paths[0]))])

    def test_compile_error(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.lag")
            with open(path, "w") as f:
                f.write("model bad\ncoordinate x\nkinetic 0.5 * der(y)^2\n")
            with self.assertRaises(lagc.CompileError) as e:
                lagc.compile(path)
            self.assertRegex(str(e.exception), r"bad\.lag:3:\d+: error")
            self.assertEqual(e.exception.diagnostics[0][1:4], (3, e.exception.diagnostics[0][2], "error"))
            self.assertEqual(e.exception.returncode, 1)

    def test_generated_file_set(self):
        """lagc.compile also takes a file set lagc wrote (-o OUT.cpp --c-api)."""
        import subprocess
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([lagc.find_lagc(), CART, "-o", os.path.join(d, "cp.cpp"), "--c-api"], check=True)
            m = lagc.compile(os.path.join(d, "cp.cpp"))
            q = np.array([0.1, 0.2])
            np.testing.assert_array_equal(m.mass_matrix(q), self.m.mass_matrix(q))


class CartPendulumFloat(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = model(CART, scalar="float")

    test_every_function_batch_equals_single = Checks.test_every_function_batch_equals_single

    def test_float_scalar(self):
        m = self.m
        model(CART).params.reset()
        self.assertEqual(m.dtype, np.float32)
        qdd = m.forward_dynamics([0.0, 0.3], [0.0, 0.0], [1.0])
        self.assertEqual(qdd.dtype, np.float32)
        np.testing.assert_allclose(qdd, model(CART).forward_dynamics([0.0, 0.3], [0.0, 0.0], [1.0]), rtol=1e-5)


class UR5(Checks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.m = model(UR5_URDF)

    def test_names(self):
        m = self.m
        self.assertEqual(m.nq, 6)
        self.assertEqual(len(m.coordinate_names), 6)
        self.assertEqual(m.nu, 6)

    def test_regressor(self):
        m = self.m
        if "inverse_dynamics_regressor" not in m.functions:
            self.skipTest("no regressor")
        q, qd, u = self.state(8)
        qdd = np.random.default_rng(9).uniform(-1, 1, m.nq)
        Y = m.inverse_dynamics_regressor(q, qd, qdd)
        self.assertEqual(Y.shape, (m.nq, m.nr))
        pi = np.array([m.params[n] for n in m.regressor_parameter_names])
        tau = m.inverse_dynamics(q, qd, qdd, np.zeros(m.nu))
        np.testing.assert_allclose(Y @ pi, tau, rtol=1e-10, atol=1e-10)


class FourBar(unittest.TestCase):
    """Two constraints: forward_dynamics returns (qdd, lambda), project_state (q, qd, value)."""

    @classmethod
    def setUpClass(cls):
        cls.m = model(os.path.join(ROOT, "models", "four_bar.lag"))

    def test_constraints(self):
        m = self.m
        self.assertEqual(m.nc, 2)
        q, qd = np.array([0.9, 0.5, -0.4]), np.array([0.1, -0.2, 0.3])
        q, qd, value = m.project_state(q, qd)
        self.assertGreaterEqual(value, 0.0)
        np.testing.assert_allclose(m.constraint_residuals(q, qd), np.zeros(2), atol=1e-9)
        u = np.array([0.5])
        qdd, lam = m.forward_dynamics(q, qd, u)
        M, A = m.mass_matrix(q), m.constraint_jacobian(q)
        residual = M @ qdd + m.bias_forces(q, qd) + A.T @ lam - m.generalized_forces(q, qd, u)
        np.testing.assert_allclose(residual, np.zeros(3), atol=1e-9)

    test_every_function_batch_equals_single = Checks.test_every_function_batch_equals_single


class SwingUp(unittest.TestCase):
    def test_ilqr_swings_the_cart_pendulum_up(self):
        """examples/python/swing_up.py: from hanging at rest to upright at rest in 2.5 s."""
        import importlib.util
        spec = importlib.util.spec_from_file_location(
            "swing_up", os.path.join(ROOT, "examples", "python", "swing_up.py"))
        su = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(su)
        m = model(CART)
        X, U, iterations, costs = su.swing_up(m, seconds=2.5, dt=0.01)
        x = X[-1]
        print("swing-up: %d iterations, final state %s" % (iterations, x))
        self.assertTrue(np.all(np.diff(costs) <= 0))
        self.assertLess(abs(x[1] - np.pi), 1e-2)
        self.assertLess(abs(x[0]), 1e-2)
        self.assertLess(abs(x[2]), 1e-2)
        self.assertLess(abs(x[3]), 2e-2)
        self.assertLess(abs(X[:, 1]).max(), 4.0)       # no extra turn on the way
        Xh, _ = su.hold(m, x, 0.01, 2.5)
        self.assertLess(np.abs(Xh[-1] - su.GOAL).max(), 1e-3)


class Tutorial(unittest.TestCase):
    def test_docs_python_md_runs(self):
        """docs/python.md's code blocks, in order, as one script from the repository's root."""
        import contextlib
        import io
        import re
        text = open(os.path.join(ROOT, "docs", "python.md")).read()
        code = "\n".join(re.findall(r"```python\n(.*?)```", text, re.S))
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            with contextlib.redirect_stdout(io.StringIO()) as printed:
                exec(compile(code, "docs/python.md", "exec"), {})
        finally:
            os.chdir(cwd)
        self.assertIn("gravity compensation leaves qdd", printed.getvalue())


if __name__ == "__main__":
    unittest.main()

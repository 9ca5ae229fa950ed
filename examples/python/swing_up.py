#!/usr/bin/env python3
"""The cart-pendulum swung up from hanging (theta = 0) to upright (theta = pi) by iLQR, in
numpy only (no SciPy): rk4_step_jacobian gives the exact Jacobians of the discrete model
along the whole trajectory in one batch call, rk4_step rolls it out; then discrete LQR
(from the same Jacobians at the top) holds it there. docs/python.md walks through it, and
the plot there (docs/python-swing-up.png) is this script's:

    PYTHONPATH=python python3 examples/python/swing_up.py --plot docs/python-swing-up.png

from the repository's root (matplotlib: Debian's python3-matplotlib). Prints the
iterations and the final state; tests/python/test_lagc.py runs swing_up() and checks it."""
import argparse
import os
import sys

import numpy as np

import lagc

GOAL = np.array([0.0, np.pi, 0.0, 0.0])


def cost(X, U, dt, r=0.01, Qf=np.diag([10.0, 100.0, 10.0, 10.0])):
    """Control effort along the way, distance from upright at the end."""
    e = X[-1] - GOAL
    return 0.5 * r * dt * np.sum(U ** 2) + 0.5 * e @ Qf @ e


def rollout(m, x0, U, dt, Xref=None, k=None, K=None, alpha=1.0):
    """States and inputs of the closed loop u = U + alpha k + K (x - Xref), by rk4_step."""
    X, Unew = [x0], U.copy()
    x = x0
    for i in range(len(U)):
        if K is not None:
            Unew[i] = U[i] + alpha * k[i] + K[i] @ (x - Xref[i])
        x = m.rk4_step(x, Unew[i], dt)
        X.append(x)
    return np.array(X), Unew


def backward(Ad, Bd, X, U, dt, mu, r=0.01, Qf=np.diag([10.0, 100.0, 10.0, 10.0])):
    """iLQR's backward pass: feedforward k and gains K, and the expected decrease."""
    Vx, Vxx = Qf @ (X[-1] - GOAL), Qf.copy()
    n, nu = len(U), U.shape[1]
    k, K, expected = np.zeros((n, nu)), np.zeros((n, nu, 4)), 0.0
    for i in reversed(range(n)):
        A, B = Ad[i], Bd[i]
        Qx, Qu = A.T @ Vx, r * dt * U[i] + B.T @ Vx
        Qxx, Qux = A.T @ Vxx @ A, B.T @ Vxx @ A
        Quu = r * dt * np.eye(nu) + B.T @ Vxx @ B
        Quu_reg = Quu + mu * np.eye(nu)
        if np.linalg.eigvalsh(Quu_reg).min() <= 0:
            return None
        k[i] = -np.linalg.solve(Quu_reg, Qu)
        K[i] = -np.linalg.solve(Quu_reg, Qux)
        Vx = Qx + K[i].T @ Quu @ k[i] + K[i].T @ Qu + Qux.T @ k[i]
        Vxx = Qxx + K[i].T @ Quu @ K[i] + K[i].T @ Qux + Qux.T @ K[i]
        Vxx = 0.5 * (Vxx + Vxx.T)
        expected += k[i] @ Qu + 0.5 * k[i] @ Quu @ k[i]
    return k, K, expected


def swing_up(m, seconds=2.5, dt=0.01, iterations=200, tolerance=1e-6, log=None):
    """iLQR from hanging at rest to upright at rest: returns (X, U, iterations, costs)."""
    n = int(round(seconds / dt))
    x0 = np.zeros(4)
    U = np.zeros((n, m.nu))
    X, _ = rollout(m, x0, U, dt)
    J, mu, costs = cost(X, U, dt), 1e-6, []
    for it in range(1, iterations + 1):
        _, Ad, Bd, status = m.rk4_step_jacobian(X[:-1], U, dt)   # all n steps in one call
        assert not status.any()
        step = backward(Ad, Bd, X, U, dt, mu)
        if step is None:
            mu *= 10
            continue
        k, K, expected = step
        for alpha in (1.0, 0.5, 0.25, 0.1, 0.03, 0.01):
            try:
                Xn, Un = rollout(m, x0, U, dt, X, k, K, alpha)
            except lagc.StatusError:   # the step diverged (not finite): a shorter one
                continue
            Jn = cost(Xn, Un, dt)
            if Jn < J:
                break
        else:
            mu = max(mu * 10, 1e-6)
            if mu > 1e6:
                break
            continue
        decrease = J - Jn
        X, U, J, mu = Xn, Un, Jn, max(mu / 10, 1e-9)
        costs.append(J)
        if log:
            log("iteration %3d: cost %.6g, alpha %.2g" % (it, J, alpha))
        if decrease < tolerance * max(1.0, J):
            break
    return X, U, it, np.array(costs)


def hold(m, x, dt, seconds):
    """Discrete LQR about upright, from rk4_step_jacobian there, run for `seconds`."""
    _, Ad, Bd = m.rk4_step_jacobian(GOAL, np.zeros(m.nu), dt)
    Qc, Rc, P = np.diag([1.0, 10.0, 1.0, 1.0]), np.array([[0.1]]), np.diag([1.0, 10.0, 1.0, 1.0])
    for _ in range(2000):
        K = np.linalg.solve(Rc + Bd.T @ P @ Bd, Bd.T @ P @ Ad)
        P = Qc + Ad.T @ P @ (Ad - Bd @ K)
    X, U = [x], []
    for _ in range(int(round(seconds / dt))):
        u = -K @ (x - GOAL)
        x = m.rk4_step(x, u, dt)
        X.append(x)
        U.append(u)
    return np.array(X), np.array(U)


def plot(path, dt, X, U, switch):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    t = np.arange(len(X)) * dt
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 4.5))
    top.plot(t, X[:, 0], label="cart x [m]")
    top.plot(t, X[:, 1], label="θ [rad] (π: upright)")
    top.axhline(np.pi, color="grey", lw=0.5)
    top.set_ylabel("state")
    top.legend(loc="lower right")
    bottom.plot(t[:-1], U[:, 0], color="C2")
    bottom.set_ylabel("force F [N]")
    bottom.set_xlabel("time [s]")
    for ax in (top, bottom):
        ax.axvline(switch, color="grey", ls="--", lw=0.8)
        ax.grid(alpha=0.3)
    fig.suptitle("cart-pendulum swing-up: iLQR on rk4_step_jacobian, then LQR (lagc from Python)")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--plot", help="write the plot here (PNG)")
    parser.add_argument("--model", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                         "..", "..", "models", "cart_pendulum.lag"))
    args = parser.parse_args()
    m = lagc.compile(args.model)
    dt = 0.01
    X, U, iterations, costs = swing_up(m, dt=dt, log=print)
    x = X[-1]
    print("iLQR: %d iterations, cost %.3g; after %.2f s: x = %.3g m, theta - pi = %.2e rad, "
          "xd = %.2e m/s, thetad = %.2e rad/s; largest force %.1f N"
          % (iterations, costs[-1], (len(X) - 1) * dt, x[0], x[1] - np.pi, x[2], x[3], np.abs(U).max()))
    Xh, Uh = hold(m, x, dt, 2.5)
    print("LQR for 2.5 s more: theta - pi = %.2e rad, cart at %.3g m" % (Xh[-1, 1] - np.pi, Xh[-1, 0]))
    if args.plot:
        plot(args.plot, dt, np.vstack([X, Xh[1:]]), np.vstack([U, Uh]), (len(X) - 1) * dt)
        print("wrote", args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())

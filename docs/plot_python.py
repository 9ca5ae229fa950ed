#!/usr/bin/env python3
"""Regenerates docs/python-lqr.png: docs/python.md's discrete LQR on the cart-pendulum, run by
the lagc package (rk4_step_jacobian for the model, rk4_step for the closed loop), plotted with
matplotlib (Debian's python3-matplotlib).

usage, from the repository's root: PYTHONPATH=python python3 docs/plot_python.py"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import lagc  # noqa: E402

m = lagc.compile("models/cart_pendulum.lag")
dt = 0.01
x_up = np.array([0.0, np.pi, 0.0, 0.0])
x1, Ad, Bd = m.rk4_step_jacobian(x_up, [0.0], dt)
Qc, Rc = np.diag([1.0, 10.0, 1.0, 1.0]), np.array([[0.1]])
P = Qc.copy()
for _ in range(2000):
    K = np.linalg.solve(Rc + Bd.T @ P @ Bd, Bd.T @ P @ Ad)
    P = Qc + Ad.T @ P @ (Ad - Bd @ K)

x = np.array([0.0, np.pi - 0.3, 0.0, 0.0])
states, forces = [x], []
for _ in range(1000):
    F = -K @ (x - x_up)
    x = m.rk4_step(x, F, dt)
    states.append(x)
    forces.append(F[0])
states = np.array(states)
t = np.arange(len(states)) * dt

fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(7, 4.5))
top.plot(t, states[:, 0], label="cart x [m]")
top.plot(t, states[:, 1] - np.pi, label="θ − π [rad]")
top.set_ylabel("state")
top.legend()
top.grid(alpha=0.3)
bottom.plot(t[:-1], forces, color="C2")
bottom.set_ylabel("force F [N]")
bottom.set_xlabel("time [s]")
bottom.grid(alpha=0.3)
fig.suptitle("cart-pendulum, discrete LQR from rk4_step_jacobian (lagc from Python)")
fig.tight_layout()
fig.savefig("docs/python-lqr.png", dpi=90)
print("wrote docs/python-lqr.png (angle off upright after 10 s: %.1e rad)" % (states[-1, 1] - np.pi))

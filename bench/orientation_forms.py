#!/usr/bin/env python3
"""Orientation forms side by side: callgrind instructions per RK4 step.

usage: python3 bench/orientation_forms.py LAGC_EXECUTABLE WORK_DIR
A free rigid body (models/quaternion_body.lag: 4 coordinates, |q|^2 = 1;
models/rotation_matrix_body.lag: the lecture notes' 9 entries of R, R^T R = I as 6 rows) and
the lecture notes' tethered kite written both ways (models/kite_quaternion.lag,
models/kite_rotation_matrix.lag: position and orientation, the tether as one more
constraint, aerodynamic forces), each lagc's `rk4_step` from the same state on the manifold
under the same torques; and a hand-written Newton-Euler step of the free body for scale
(Euler's equations J w' = J w x w + tau with q' = q (x) (0, w) / 2, RK4 on 7 numbers). Run
by bench/run.sh; needs valgrind.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import instructions_per_call  # noqa: E402

# From the rotation of the unit quaternion (0.9, 0.3, 0.2, 0.1)/|.| at body rates (1, -2, 0.5).
HARNESS = r"""
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
{include}
static const double qa[4] = {{0.9, 0.3, 0.2, 0.1}};
static const double om[3] = {{1.0, -2.0, 0.5}};
static const double tau[3] = {{0.1, 0.0, -0.2}};

// The hand-written step: x = (q0..q3, w0..w2), J = diag(0.08, 0.12, 0.15).
static void rates(const double* x, double* f) {{
    const double J[3] = {{0.08, 0.12, 0.15}};
    const double* q = x;
    const double* w = x + 4;
    f[0] = 0.5 * (-q[1] * w[0] - q[2] * w[1] - q[3] * w[2]);
    f[1] = 0.5 * (q[0] * w[0] + q[2] * w[2] - q[3] * w[1]);
    f[2] = 0.5 * (q[0] * w[1] + q[3] * w[0] - q[1] * w[2]);
    f[3] = 0.5 * (q[0] * w[2] + q[1] * w[1] - q[2] * w[0]);
    f[4] = ((J[1] - J[2]) * w[1] * w[2] + tau[0]) / J[0];
    f[5] = ((J[2] - J[0]) * w[2] * w[0] + tau[1]) / J[1];
    f[6] = ((J[0] - J[1]) * w[0] * w[1] + tau[2]) / J[2];
}}
__attribute__((noinline)) static int hand_step(double* x, double dt) {{
    double k1[7], k2[7], k3[7], k4[7], y[7];
    rates(x, k1);
    for (int i = 0; i < 7; ++i) y[i] = x[i] + 0.5 * dt * k1[i];
    rates(y, k2);
    for (int i = 0; i < 7; ++i) y[i] = x[i] + 0.5 * dt * k2[i];
    rates(y, k3);
    for (int i = 0; i < 7; ++i) y[i] = x[i] + dt * k3[i];
    rates(y, k4);
    for (int i = 0; i < 7; ++i) x[i] += dt / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    return std::isfinite(x[0]) ? 0 : 1;
}}

// The spinning orientation both ways: quaternion q with q' = q (x) (0, om) / 2, rotation matrix
// R with R' = R [om]x.
static void orientation(double w, double a, double b, double c, double* q, double* qd, double* R, double* Rd) {{
    const double Q[4][3] = {{{{-a, -b, -c}}, {{w, -c, b}}, {{c, w, -a}}, {{-b, a, w}}}};
    q[0] = w, q[1] = a, q[2] = b, q[3] = c;
    for (int r = 0; r < 4; ++r) qd[r] = 0.5 * (Q[r][0] * om[0] + Q[r][1] * om[1] + Q[r][2] * om[2]);
    const double r9[9] = {{w * w + a * a - b * b - c * c, 2 * (a * b - w * c), 2 * (a * c + w * b),
                          2 * (a * b + w * c), w * w - a * a + b * b - c * c, 2 * (b * c - w * a),
                          2 * (a * c - w * b), 2 * (b * c + w * a), w * w - a * a - b * b + c * c}};
    const double S[9] = {{0, -om[2], om[1], om[2], 0, -om[0], -om[1], om[0], 0}};
    for (int i = 0; i < 9; ++i) R[i] = r9[i];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {{
            Rd[i * 3 + j] = 0;
            for (int k = 0; k < 3; ++k) Rd[i * 3 + j] += R[i * 3 + k] * S[k * 3 + j];
        }}
}}

int main(int, char** argv) {{
    const int calls = std::atoi(argv[3]);  // usage: harness NAME count N
    const double n = std::sqrt(qa[0] * qa[0] + qa[1] * qa[1] + qa[2] * qa[2] + qa[3] * qa[3]);
    const double w = qa[0] / n, a = qa[1] / n, b = qa[2] / n, c = qa[3] / n;
    double x[24], q[4], qd[4], R[9], Rd[9];
    int nx = 0;
    orientation(w, a, b, c, q, qd, R, Rd);
    // The kites: on the tether (L = 50) at 30 degrees elevation, moving across the wind.
    const double pk[3] = {{50 * 0.8660254037844386, 0.0, 25.0}}, vk[3] = {{-2.5, 8.0, 4.330127018922193}};
{setup}
    // Each call steps from the same state (the kites have no aerodynamic moments to keep them
    // flying: left to themselves they tumble and, after a second or so, run away).
    double x0[24];
    for (int i = 0; i < nx; ++i) x0[i] = x[i];
    double checksum = 0;
    for (int k = 0; k < calls; ++k) {{
        for (int i = 0; i < nx; ++i) x[i] = x0[i];
{step}
        checksum += x[k % nx];
        x0[0] += 1e-12;
    }}
    std::printf("%.17g\n", checksum);
    return 0;
}}
"""

SETUPS = {
    "quaternion_body": """    nx = 8;
    for (int i = 0; i < 4; ++i) x[i] = q[i], x[4 + i] = qd[i];""",
    "rotation_matrix_body": """    nx = 18;
    for (int i = 0; i < 9; ++i) x[i] = R[i], x[9 + i] = Rd[i];""",
    "kite_quaternion": """    nx = 14;
    for (int i = 0; i < 3; ++i) x[i] = pk[i], x[7 + i] = vk[i];
    for (int i = 0; i < 4; ++i) x[3 + i] = q[i], x[10 + i] = qd[i];""",
    "kite_rotation_matrix": """    nx = 24;
    for (int i = 0; i < 3; ++i) x[i] = pk[i], x[12 + i] = vk[i];
    for (int i = 0; i < 9; ++i) x[3 + i] = R[i], x[15 + i] = Rd[i];""",
    "euler_angles_body": """    nx = 6;
    x[0] = 0.3, x[1] = 0.2, x[2] = 0.1, x[3] = 0.5, x[4] = -1.0, x[5] = 0.8;""",
    "hand": """    nx = 7;
    x[0] = w, x[1] = a, x[2] = b, x[3] = c, x[4] = om[0], x[5] = om[1], x[6] = om[2];""",
}


# The same free body with z-y-x Euler angles (as models/quadrotor.lag writes its rates): no
# constraint, singular at theta = +-90 degrees. Written here, not bundled.
EULER_BODY = """model euler_angles_body
parameter J1 = 0.08, J2 = 0.12, J3 = 0.15
coordinate psi, theta, phi
input tau1, tau2, tau3
let w = transpose(rotx(phi))*(transpose(roty(theta))*[0, 0, der(psi)] + [0, der(theta), 0]) + [der(phi), 0, 0]
kinetic 0.5*(J1*w[0]^2 + J2*w[1]^2 + J3*w[2]^2)
torque [tau1, tau2, tau3] at w
"""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lagc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    results = {}
    with open(os.path.join(work, "euler_angles_body.lag"), "w") as f:
        f.write(EULER_BODY)
    for name in ("quaternion_body", "rotation_matrix_body", "kite_quaternion", "kite_rotation_matrix",
                 "euler_angles_body", "hand"):
        sources = []
        if name == "hand":
            include, step = "", "        if (hand_step(x, 0.001) != 0) return 1;"
        else:
            out = os.path.join(work, name + ".cpp")
            model = os.path.join(work if name == "euler_angles_body" else os.path.join(HERE, "..", "models"),
                                 name + ".lag")
            subprocess.run([lagc, model, "-o", out, "-w"], check=True, capture_output=True)
            sources = [out]
            include = f'#include "{name}.hpp"\nstatic {name}::Parameters p;\nstatic const double u[3] = {{0.1, 0.0, -0.2}};'
            step = f"        if ({name}::rk4_step(x, u, p, 0.001) != 0) return 1;"
        src = os.path.join(work, name + "_harness.cpp")
        with open(src, "w") as f:
            f.write(HARNESS.format(include=include, setup=SETUPS[name], step=step))
        exe = os.path.join(work, name + "_harness")
        subprocess.run(["g++", "-std=c++17", "-O2", "-I", work, src, *sources, "-o", exe], check=True)
        results[name] = instructions_per_call(exe, work, (name,))
    rows = [("free body", "quaternion_body", "rotation_matrix_body", "4 / 1", "9 / 6"),
            ("tethered kite", "kite_quaternion", "kite_rotation_matrix", "7 / 2", "12 / 7")]
    print("| model | quaternion: coordinates / rows | instructions per RK4 step | rotation matrix: coordinates / rows "
          "| instructions per RK4 step | rotation matrix / quaternion |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, q, r, qs, rs in rows:
        print(f"| {label} | {qs} | {results[q]:.0f} | {rs} | {results[r]:.0f} | {results[r] / results[q]:.2f} |")
    print(f"\nThe free body with z-y-x Euler angles (3 coordinates, no constraint): {results['euler_angles_body']:.0f} "
          f"instructions; a hand-written Newton–Euler RK4 step of it (quaternion, Euler's equations): "
          f"{results['hand']:.0f}.")


if __name__ == "__main__":
    main()

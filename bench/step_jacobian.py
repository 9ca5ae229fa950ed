#!/usr/bin/env python3
"""rk4_step_jacobian against finite differences of rk4_step, in callgrind instructions per call.

usage: python3 bench/step_jacobian.py LAGC_EXECUTABLE WORK_DIR
For bundled models (models/*.lag) and the 3-D arms of arms3d.py: instructions per call of
`rk4_step` and of `rk4_step_jacobian` (the step and its exact Jacobians dx+/dx, dx+/du).
Central differences of the step need 2 (2 nq + nu) steps, plus the step itself: their cost
is that many rk4_step calls (and they keep about half the digits; Richardson extrapolation,
as the suite checks with, doubles it again). Run by bench/run.sh; needs valgrind.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import arms3d  # noqa: E402
from bench import instructions_per_call, model_sizes  # noqa: E402

HARNESS = r"""
#include "{name}.hpp"
#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace ns = {name};
int main(int argc, char** argv) {{
    // usage: harness step|jacobian count N
    bool const jacobian = std::strcmp(argv[1], "jacobian") == 0;
    int const calls = std::atoi(argv[3]);
    ns::Parameters p;
    constexpr int n = 2 * ns::nq, m = ns::nu > 0 ? ns::nu : 1;
    double x0[n], x[n], u[m];
    static double Ad[n * n], Bd[n * m];
    for (int i = 0; i < ns::nq; ++i) x0[i] = 0.1 + 0.05 * i, x0[ns::nq + i] = 0.2 - 0.03 * i;
    for (int i = 0; i < m; ++i) u[i] = 0.1 * i;
    double checksum = 0;
    for (int k = 0; k < calls; ++k) {{
        for (int i = 0; i < n; ++i) x[i] = x0[i];
        if (jacobian) {{
            if (ns::rk4_step_jacobian(x, u, p, 0.01, Ad, Bd) != 0) return 1;
            checksum += Ad[k % (n * n)];
        }} else if (ns::rk4_step(x, u, p, 0.01) != 0) return 1;
        checksum += x[k % n];
        x0[0] += 1e-9;
    }}
    std::printf("%.17g\n", checksum);
    return 0;
}}
"""


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lagc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    cases = [("bundled", m) for m in ("cart_pendulum", "double_pendulum", "chain10_rel", "four_bar", "quadrotor",
                                      "ur5_like", "panda_like")]
    cases += [("generic", 10)]
    print("| model | nq | nu | rk4_step instr | rk4_step_jacobian instr | steps for central differences | "
          "their instr | exact / differences |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for variant, n in cases:
        if variant == "bundled":
            name = n
            with open(os.path.join(HERE, "..", "models", name + ".lag")) as f:
                text = f.read()
        else:
            name = f"generic{n}"
            bodies = arms3d.generic(n)
            text = arms3d.lag(name, bodies, [(b["mass"],) + tuple(b["com"]) + tuple(b["inertia"]) for b in bodies])
        model = os.path.join(work, name + ".lag")
        with open(model, "w") as f:
            f.write(text)
        header = os.path.join(work, name + ".hpp")
        subprocess.run([lagc, model, "-o", header, "-w"], check=True, capture_output=True)
        src = os.path.join(work, name + "_step.cpp")
        with open(src, "w") as f:
            f.write(HARNESS.format(name=name))
        exe = os.path.join(work, name + "_step")
        subprocess.run(["g++", "-std=c++17", "-O2", "-I", work, src, "-o", exe], check=True)
        sizes = model_sizes(header)
        nq, nu = sizes["nq"], sizes["nu"]
        step = instructions_per_call(exe, work, ("step",))
        exact = instructions_per_call(exe, work, ("jacobian",))
        calls = 2 * (2 * nq + nu) + 1
        print(f"| {name} | {nq} | {nu} | {step:.0f} | {exact:.0f} | {calls} | {calls * step:.0f} | "
              f"{exact / (calls * step):.2f} |", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""project_state on the bundled models with constraints, in callgrind instructions per call.

usage: python3 bench/project_state.py LAGC_EXECUTABLE WORK_DIR
Each call starts from the same kind of perturbed state (q off the constraint manifold,
q̇ off its tangent space) and runs project_state to the end: Gauss-Newton steps on the
holonomic rows, then one step on the velocity rows. Run by bench/run.sh; needs valgrind.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import instructions_per_call, model_sizes  # noqa: E402

MODELS = ("cartesian_pendulum", "wheeled_robot", "double_pendulum_cartesian", "four_bar")

HARNESS = r"""
#include "{name}.hpp"
#include <cstdio>
#include <cstdlib>
namespace ns = {name};
int main(int argc, char** argv) {{
    // usage: harness x count N
    (void)argc;
    int const calls = std::atoi(argv[3]);
    ns::Parameters p;
    double checksum = 0;
    for (int k = 0; k < calls; ++k) {{
        double q[ns::nq], qd[ns::nq];
        for (int i = 0; i < ns::nq; ++i) q[i] = 0.6 + 0.05 * i + 1e-3 * (k % 7), qd[i] = 0.2 - 0.03 * i;
        checksum += ns::project_state(q, qd, p) + q[0];
    }}
    std::printf("%.17g\n", checksum);
    return 0;
}}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lagc")
    ap.add_argument("work")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    print("| model | nq | nc | project_state instr/call |")
    print("|---|---:|---:|---:|")
    for name in MODELS:
        header = os.path.join(args.work, name + ".hpp")
        subprocess.run([args.lagc, os.path.join(HERE, "..", "models", name + ".lag"), "-o", header], check=True,
                       capture_output=True)
        src = os.path.join(args.work, name + "_project.cpp")
        with open(src, "w") as f:
            f.write(HARNESS.format(name=name))
        exe = os.path.join(args.work, name + "_project")
        subprocess.run(["g++", "-std=c++17", "-O2", "-I", args.work, src, "-o", exe], check=True)
        sizes = model_sizes(header)
        print(f"| {name} | {sizes['nq']} | {sizes['nc']} | {instructions_per_call(exe, args.work, ('x',)):.0f} |", flush=True)


if __name__ == "__main__":
    main()

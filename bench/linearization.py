#!/usr/bin/env python3
"""Exact linearization against finite differences, in callgrind instructions per call.

usage: python3 bench/linearization.py LAGC_EXECUTABLE WORK_DIR [--sizes 2,4,6,10,15,20]
For planar chains (relative angles; absolute at n = 10), the small 3-D arm of
make_chain.py and the 3-D arms of arms3d.py (full inertia tensors; generic n = 6 and 10,
UR5-like, with the spec's own numbers, no MuJoCo needed) and the bundled models with
constraints (models/*.lag): instructions per
call of the generated `linearization` (A and B, exact) and of `forward_dynamics`; finite
differences of forward_dynamics need 4 nq + 2 nu calls for central differences of A and B,
so their cost is that many forward_dynamics calls. Run by bench/run.sh; needs valgrind.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import arms3d  # noqa: E402
import make_chain  # noqa: E402
from bench import instructions_per_call, model_sizes  # noqa: E402

HARNESS = r"""
#include "{name}.hpp"
#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace ns = {name};
int main(int argc, char** argv) {{
    // usage: harness fd|lin count N
    bool const lin = std::strcmp(argv[1], "lin") == 0;
    int const calls = std::atoi(argv[3]);
    ns::Parameters p;
    double q[ns::nq], qd[ns::nq], u[ns::nu > 0 ? ns::nu : 1], qdd[ns::nq], lambda[ns::nc > 0 ? ns::nc : 1];
    static double A[4 * ns::nq * ns::nq], B[2 * ns::nq * (ns::nu > 0 ? ns::nu : 1)];
    for (int i = 0; i < ns::nq; ++i) q[i] = 0.1 + 0.05 * i, qd[i] = 0.2 - 0.03 * i;
    for (int i = 0; i < (ns::nu > 0 ? ns::nu : 1); ++i) u[i] = 0.1 * i;
    double checksum = 0;
    for (int k = 0; k < calls; ++k) {{
        if (lin) {{
            if (ns::linearization(q, qd, u, p, A, B) != 0) return 1;
            checksum += A[2 * ns::nq * ns::nq + k % ns::nq];
        }} else {{
            if (ns::forward_dynamics(q, qd, u, p, qdd, lambda) != 0) return 1;
            checksum += qdd[k % ns::nq];
        }}
        q[0] += 1e-9;
    }}
    std::printf("%.17g\n", checksum);
    return 0;
}}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lagc")
    ap.add_argument("work")
    ap.add_argument("--sizes", default="2,4,6,10,15,20")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    cases = [("relative", int(n)) for n in args.sizes.split(",")] + [("absolute", 10), ("spatial", 3)]
    cases += [("generic", 6), ("generic", 10), ("ur5", 6)]
    cases += [("bundled", m) for m in ("cartesian_pendulum", "rolling_wheel", "wheeled_robot",
                                       "double_pendulum_cartesian", "four_bar")]
    print("| model | nq | nu | FD instr/call | linearization instr/call | FD calls for central differences | "
          "finite differences instr | exact / finite differences |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for variant, n in cases:
        if variant == "bundled":
            name = n
            with open(os.path.join(HERE, "..", "models", name + ".lag")) as f:
                text = f.read()
        elif variant in ("generic", "ur5"):
            name = "ur5_like" if variant == "ur5" else f"generic{n}"
            bodies = arms3d.ur5() if variant == "ur5" else arms3d.generic(n)
            text = arms3d.lag(name, bodies, [(b["mass"],) + tuple(b["com"]) + tuple(b["inertia"]) for b in bodies])
        elif variant == "spatial":
            name, text = f"arm{n}_3d", make_chain.spatial_arm(n)
        else:
            name, text = f"chain{n}_{'rel' if variant == 'relative' else 'abs'}", make_chain.chain(n, variant)
        model = os.path.join(args.work, name + ".lag")
        with open(model, "w") as f:
            f.write(text)
        header = os.path.join(args.work, name + ".hpp")
        subprocess.run([args.lagc, model, "-o", header], check=True, capture_output=True)
        src = os.path.join(args.work, name + "_lin.cpp")
        with open(src, "w") as f:
            f.write(HARNESS.format(name=name))
        exe = os.path.join(args.work, name + "_lin")
        subprocess.run(["g++", "-std=c++17", "-O2", "-I", args.work, src, "-o", exe], check=True)
        sizes = model_sizes(header)
        nq, nu = sizes["nq"], sizes["nu"]
        fd = instructions_per_call(exe, args.work, ("fd",))
        lin = instructions_per_call(exe, args.work, ("lin",))
        calls = 4 * nq + 2 * nu
        print(f"| {name} | {nq} | {nu} | {fd:.0f} | {lin:.0f} | {calls} | {calls * fd:.0f} | {calls * fd / lin:.1f}× |",
              flush=True)


if __name__ == "__main__":
    main()

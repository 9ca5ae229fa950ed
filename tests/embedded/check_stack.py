#!/usr/bin/env python3
"""The header's stated stack figures against GCC's count (-fstack-usage, -fcallgraph-info).

For each model: lagc writes it (with the given lagc options), the compiler compiles the
.cpp with each optimisation level, and for every API function of the header's
`namespace stack_bytes` the deepest path of calls GCC counts within the file is compared
with the figure lagc states without its libm margin (libm's own stack is not in GCC's
figure; tests/embedded/ measures it on Cortex-M4). Fails when a stated figure is below
GCC's; prints stated / measured for every function.

usage: check_stack.py --lagc LAGC --cxx CXX --work DIR [--flags "..."] [--lagc-flags "..."]
                      [--levels -O2,-Os] [--max-ratio R] MODEL.lag...
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stack_paths  # noqa: E402

ENTRY = re.compile(r"inline constexpr unsigned long (\w+) = (\d+);  // arrays (\d+), temporaries (\d+), "
                   r"frames (\d+), libm (\d+)")


def stated(header):
    with open(header) as f:
        return {m.group(1): [int(g) for g in m.groups()[1:]] for m in ENTRY.finditer(f.read())}


def measured(ci_path):
    nodes, edges = stack_paths.read_graph([ci_path])
    memo, out = {}, {}
    for title, (name, size) in nodes.items():
        if size is not None:
            out[stack_paths.short_name(name)] = stack_paths.worst(title, nodes, edges, memo)[0]
    return out


def main():
    a = argparse.ArgumentParser()
    a.add_argument("--lagc", required=True)
    a.add_argument("--cxx", required=True)
    a.add_argument("--work", required=True)
    a.add_argument("--flags", default="")
    a.add_argument("--lagc-flags", default="")
    a.add_argument("--levels", default="-O2,-Os")
    a.add_argument("--max-ratio", type=float, default=0, help="fail above this stated/measured (0: report only)")
    a.add_argument("models", nargs="+")
    o = a.parse_args()
    os.makedirs(o.work, exist_ok=True)
    failures, ratios = [], []
    for model in o.models:
        name = os.path.splitext(os.path.basename(model))[0]
        cpp = os.path.join(o.work, name + ".cpp")
        subprocess.run([o.lagc, model, "-o", cpp, "-w"] + shlex.split(o.lagc_flags), check=True)
        figures = stated(os.path.join(o.work, name + ".hpp"))
        if not figures:
            failures.append(f"{name}: the header states no stack figures")
            continue
        for level in o.levels.split(","):
            obj = os.path.join(o.work, f"{name}{level}.o")
            subprocess.run([o.cxx, "-std=c++17", level, "-fstack-usage", "-fcallgraph-info=su", "-c", cpp, "-o", obj]
                           + shlex.split(o.flags), check=True, cwd=o.work)
            gcc = measured(os.path.splitext(obj)[0] + ".ci")
            for function, (total, arrays, temporaries, frames, libm) in sorted(figures.items()):
                if function not in gcc:
                    continue  # inlined into every caller, or not compiled
                mine, theirs = total - libm, gcc[function]
                ratio = mine / theirs if theirs else float("inf")
                print(f"{name:28} {level:4} {function:34} stated {total:7} (without libm {mine:7})  GCC {theirs:7}"
                      f"  ratio {ratio:6.2f}")
                if theirs > mine:
                    failures.append(f"{name} {level} {function}: stated {mine} B (without libm) < GCC's {theirs} B")
                elif theirs >= 256:
                    ratios.append(ratio)
                    if o.max_ratio and ratio > o.max_ratio:
                        failures.append(f"{name} {level} {function}: stated {mine} B is {ratio:.2f}x GCC's {theirs} B")
    if ratios:
        ratios.sort()
        print(f"stated / measured over {len(ratios)} functions of 256 B or more: median {ratios[len(ratios) // 2]:.2f}, "
              f"largest {ratios[-1]:.2f}, smallest {ratios[0]:.2f}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""lagc's generic 3-D arms against issue 48's targets: callgrind instructions per call of
forward_dynamics, inverse_dynamics, mass_matrix and linearization (g++ 12 -O2).

usage: targets.py LAGC_EXECUTABLE WORK_DIR [--sizes 6,10,20,30]

Each arm is bench/arms3d.py's generic(n), written as .lag from MuJoCo's stored inertial
values as arms3d.py writes it (so the figures are those of its table). The targets are the
issue's: half the instructions of Pinocchio's generated aba and ABA derivatives, half its
rnea, 0.4x its crba (measured on the same arms; Pinocchio cannot be built here). Counts are
(calls 11 - calls 1) / 10 at a fixed state that moves each call, in one harness per arm
(targets_harness.cpp). Prints a markdown table.
"""
import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import arms3d  # noqa: E402

FUNCTIONS = ("forward_dynamics", "inverse_dynamics", "mass_matrix", "linearization")
# Issue 48: (target, lagc's count when the issue was filed) per arm and function.
TARGETS = {6: ((2800, 4076), (3250, 3461), (2830, 2274), (7700, 16924)),
           10: ((5400, 9225), (5400, 7020), (4900, 5104), (18800, 42919)),
           20: ((12250, 20368), (10900, 16757), (10900, 14472), (72000, 196196)),
           30: ((19000, 31493), (16400, 27407), (17900, 27861), (141500, 570791))}


def callgrind_total(exe, calls, which, work):
    out = os.path.join(work, f"callgrind.{which}.{calls}.out")
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", exe, str(calls), str(which)],
                   capture_output=True, text=True, check=True)
    with open(out) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise RuntimeError("no callgrind total")


def one_arm(lagc, work, n):
    name = f"arm{n}"
    d, _, model = arms3d.write_arm(work, name, arms3d.generic(n))
    out = os.path.join(d, name + ".cpp")
    subprocess.run([lagc, model, "-o", out, "-w"], capture_output=True, text=True, check=True)
    exe = os.path.join(d, "targets")
    subprocess.run(arms3d.CXX + [f'-DLAGC_HEADER="{os.path.join(d, name + ".hpp")}"', f"-DLAGC_NS={name}",
                                 os.path.join(HERE, "targets_harness.cpp"), out, "-o", exe],
                   capture_output=True, text=True, check=True)
    return [(callgrind_total(exe, 11, k, d) - callgrind_total(exe, 1, k, d)) / 10.0 for k in range(len(FUNCTIONS))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lagc")
    ap.add_argument("work")
    ap.add_argument("--sizes", default="6,10,20,30")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    print("| arm | " + " | ".join(f"{f} (target; filed)" for f in FUNCTIONS) + " |")
    print("|---|" + "---:|" * len(FUNCTIONS))
    for n in (int(s) for s in args.sizes.split(",") if s):
        print(f"[targets] generic {n}", file=sys.stderr, flush=True)
        counts = one_arm(args.lagc, args.work, n)
        cells = []
        for k, c in enumerate(counts):
            target, filed = TARGETS.get(n, ((None, None),) * 4)[k]
            mark = "" if target is None else (" ✓" if c <= target else f" ({c / target:.2f}×)")
            cells.append(f"{c:,.0f}{mark}" + ("" if target is None else f" (≤ {target:,}; {filed:,})"))
        print(f"| generic {n} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""lagc on the robot files of tests/robots/ (URDF and MJCF) against MuJoCo loading the same files.

usage: robots.py LAGC_EXECUTABLE WORK_DIR

For each file: lagc's whole run (reading the file included), the operations of the whole
generated file and of forward dynamics (after CSE), g++ -O2 time of the generated code,
agreement with MuJoCo (tests/robots/mujoco_check.cpp: M, h and the accelerations over 20
random states, free-joint velocities mapped), and callgrind instructions per call of lagc's
forward_dynamics against MuJoCo's dynamics algorithms called directly, and of inverse_dynamics
against mj_rne with accelerations (bench/mujoco_harness.cpp; the free joint's accelerations
are not mapped there: the instructions do not depend on their values).
Prints a markdown table.
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from bench import timed  # noqa: E402
from arms3d import instructions  # noqa: E402

CXX = ["g++", "-std=c++17", "-O2"]
ROBOTS = ["arm7.xml", "arm7.urdf", "gripper.urdf", "floating_body.xml", "quadruped.xml", "humanoid.xml"]


def one(lagc, work, robot):
    stem, ext = os.path.splitext(robot)
    ns = stem + "_" + ext[1:]
    d = os.path.join(work, ns)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(ROOT, "tests", "robots", robot)
    out = os.path.join(d, ns + ".cpp")
    r, wall = timed([lagc, path, "-o", out, "--stats", "-w", "--namespace", ns])
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-3000:])
    # Forward dynamics' terms: M's and h's (dynamics_terms), or the articulated-body
    # algorithm's whole work over a floating root (forward_dynamics_floating_articulated_body).
    fd_ops = int(re.search(r"(?:dynamics_terms|forward_dynamics_(?:articulated_body(?:_root_axes)?|floating_articulated_body|quasi_velocities)) +operations \d+ before CSE, "
                           r"(\d+) after", r.stderr).group(1))
    file_ops = int(re.search(r"the file: (\d+) operations", r.stderr).group(1))
    r2, compile_s = timed(CXX + ["-c", out, "-o", out + ".o"])
    if r2.returncode != 0:
        raise RuntimeError(r2.stderr[-3000:])
    check = os.path.join(d, "check")
    header = f'-DLAGC_HEADER="{ns}.hpp"'
    subprocess.run(CXX + [f"-DLAGC_MODEL={ns}", header, f"-I{d}", os.path.join(ROOT, "tests", "robots", "mujoco_check.cpp"),
                          out + ".o", "-lmujoco", "-o", check], check=True)
    agree = subprocess.run([check, path], capture_output=True, text=True)
    m = re.search(r"(\d+) degrees of freedom.*M ([0-9.e+-]+), h ([0-9.e+-]+), .*? ([0-9.e+-]+) \(tolerance", agree.stdout)
    harness = os.path.join(d, "harness")
    subprocess.run(CXX + [header, f"-DLAGC_NS={ns}", f"-I{d}", os.path.join(HERE, "mujoco_harness.cpp"), out + ".o",
                          "-lmujoco", "-o", harness], check=True)
    ir = {side: instructions(harness, side, path, d) for side in ("lagc", "mujoco", "lagc_id", "mujoco_id")}
    return {"dof": m.group(1), "M": m.group(2), "h": m.group(3), "a": m.group(4), "ok": agree.returncode == 0,
            "time": wall, "fd_ops": fd_ops, "file_ops": file_ops, "compile": compile_s, **ir}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lagc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    print("| file | dof | lagc s | file ops | FD ops | g++ -O2 s | lagc FD instr | MuJoCo instr | lagc/MuJoCo | "
          "lagc ID instr | MuJoCo ID instr | ID lagc/MuJoCo | M rel. diff | h rel. diff | qdd rel. diff | within 1e-12 |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for robot in ROBOTS:
        print(f"[robots] {robot}", file=sys.stderr, flush=True)
        r = one(lagc, work, robot)
        print(f"| {robot} | {r['dof']} | {r['time']:.2f} | {r['file_ops']} | {r['fd_ops']} | {r['compile']:.1f} | "
              f"{r['lagc']:.0f} | {r['mujoco']:.0f} | {r['lagc'] / r['mujoco']:.2f} | "
              f"{r['lagc_id']:.0f} | {r['mujoco_id']:.0f} | {r['lagc_id'] / r['mujoco_id']:.2f} | {r['M']} | {r['h']} | {r['a']} | "
              f"{'yes' if r['ok'] else 'NO'} |", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Build time of whole robots (issue 48): lagc, then g++ -O2 on everything it writes.

usage: build_time.py LAGC WORK_DIR [--robots humanoid,generic30,ur5] [--units 1,2,4] [--jobs J]
                     [--lagc-options "..."]

For each robot and each --translation-units N: lagc's processor time (user + system) and
peak memory, the source's size, then g++ -std=c++17 -O2 -c on each unit, one after the
other (processor time summed, peak memory the largest unit's), and the wall time of the
units compiled J at a time (J = --jobs, default the processor count). Processor time is
what to compare on a loaded machine; the wall time depends on the load. Robots: the
humanoid of tests/robots (MJCF), bench/arms3d.py's generic n-joint 3-D arm (its spec's
numbers written as .lag), tests/robots/ur5.urdf. Prints a markdown table.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import arms3d  # noqa: E402


def measured(cmd):
    """(processor seconds, peak MB, wall seconds) of one command, which must succeed."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    err = p.stderr.read().decode()
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{err[-3000:]}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, time.monotonic() - start


def robot_file(name, work):
    if name == "humanoid":
        return os.path.join(ROOT, "tests/robots/humanoid.xml")
    if name == "ur5":
        return os.path.join(ROOT, "tests/robots/ur5.urdf")
    if name.startswith("generic"):
        n = int(name[len("generic"):])
        bodies = arms3d.generic(n)
        stored = [(b["mass"], *b["com"], *b["inertia"]) for b in bodies]
        path = os.path.join(work, f"{name}.lag")
        with open(path, "w") as f:
            f.write(arms3d.lag(name, bodies, stored))
        return path
    raise SystemExit(f"unknown robot {name}")


def parallel_wall(units, jobs, d):
    """Wall seconds of the units compiled `jobs` at a time."""
    start, running, pending = time.monotonic(), [], list(units)
    while pending or running:
        while pending and len(running) < jobs:
            u = pending.pop(0)
            running.append(subprocess.Popen(["g++", "-std=c++17", "-O2", "-c", u, "-o", u + ".o"], cwd=d))
        running.pop(0).wait()
    return time.monotonic() - start


def one(lagc, robot, units, jobs, options, work):
    d = os.path.join(work, f"{robot}_{units}")
    os.makedirs(d, exist_ok=True)
    model = robot_file(robot, work)
    out = os.path.join(d, "robot.cpp")
    l_cpu, l_mb, _ = measured([lagc, model, "-o", out, "-w", "--translation-units", str(units)] + options)
    files = ["robot.cpp"] + [f"robot.{k}.cpp" for k in range(2, units + 1)]
    size = sum(os.path.getsize(os.path.join(d, f)) for f in files)
    g_cpu, g_mb = 0.0, 0.0
    for f in files:
        cpu, mb, _ = measured(["g++", "-std=c++17", "-O2", "-c", os.path.join(d, f), "-o", os.path.join(d, f + ".o")])
        g_cpu += cpu
        g_mb = max(g_mb, mb)
    wall = parallel_wall(files, jobs, d)
    return (f"| {robot} | {units} | {l_cpu:.1f} | {l_mb:.0f} | {size / 1e6:.2f} | {g_cpu:.1f} | {g_mb:.0f} | "
            f"{wall:.1f} | {l_cpu + g_cpu:.1f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lagc")
    ap.add_argument("work")
    ap.add_argument("--robots", default="humanoid,generic30")
    ap.add_argument("--units", default="1,2,4")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--lagc-options", default="")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    print(f"| robot | units | lagc CPU s | lagc MB | C++ MB | g++ -O2 CPU s | g++ peak MB | g++ wall s, -j{a.jobs} "
          f"| lagc + g++ CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for robot in a.robots.split(","):
        for units in (int(u) for u in a.units.split(",")):
            print(one(os.path.abspath(a.lagc), robot, units, a.jobs, a.lagc_options.split(), a.work), flush=True)


if __name__ == "__main__":
    main()

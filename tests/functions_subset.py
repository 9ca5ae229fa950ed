#!/usr/bin/env python3
"""--functions (issue 49): every API function alone, on models of every form.

For each case, lagc writes the whole file once and then, for every function F its header
declares, a file with `--functions F`. Each such file must
  - declare F, and no function F does not need (its header is smaller than the whole one
    wherever F calls nothing),
  - compile with g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror (static helpers a subset
    does not call would fail here: -Wunused-function), and in C99 where the case says so,
and forward_dynamics alone must give the whole file's q̈ at random states.

usage: functions_subset.py LAGC SOURCE_DIR WORK_DIR
"""
import concurrent.futures
import os
import re
import subprocess
import sys

LAGC, SOURCE, WORK = sys.argv[1:4]

# (name, file, extra lagc options, also in C99)
CASES = [
    ("cart_pendulum", "models/cart_pendulum.lag", [], True),
    ("four_bar", "models/four_bar.lag", [], True),            # constraints, outputs
    ("bead_on_hoop", "models/bead_on_hoop.lag", [], False),
    ("chaplygin_sled", "models/chaplygin_sled.lag", [], False),  # velocity constraints
    ("rolling_wheel", "models/rolling_wheel.lag", [], False),    # quasi-velocities
    ("arm_on_table", "models/arm_on_table.lag", ["--reuse-above", "0"], True),  # linearization calls C
    ("floating_leg", "models/floating_leg.lag", [], False),
    ("ur5", "tests/robots/ur5.urdf", [], False),                # articulated-body algorithm
]
DECLARED = re.compile(r"^(?:int|void|double|float) (\w+)\(", re.M)


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def declared(header):
    with open(header) as f:
        return DECLARED.findall(f.read())


def one(case, function, c99):
    name, path, extra, _ = case
    out = os.path.join(WORK, name, function + (".c" if c99 else ".cpp"))
    rc, text = run([LAGC, os.path.join(SOURCE, path), "-o", out, "--functions", function, "-w"] + extra)
    if rc != 0:
        return f"{name} {function}: lagc failed: {text}"
    header = out[:-2] + ".h" if c99 else out[:-4] + ".hpp"
    names = declared(header)
    prefix = (name + "_") if c99 else ""
    if prefix + function not in names:
        return f"{name} {function}: the header does not declare it ({names})"
    compiler = ["gcc", "-std=c99", "-pedantic"] if c99 else ["g++", "-std=c++17", "-Wpedantic"]
    rc, text = run(compiler + ["-Wall", "-Wextra", "-Werror", "-c", "-O0", out, "-o", os.devnull])
    if rc != 0:
        return f"{name} {function}{' (C99)' if c99 else ''}: does not compile:\n{text[:1500]}"
    return names


def q_dd_agree(case):
    """forward_dynamics alone against the whole file, at random states."""
    name, path, extra, _ = case
    d = os.path.join(WORK, name)
    for ns, fns in (("whole", []), ("alone", ["--functions", "forward_dynamics"])):
        rc, text = run([LAGC, os.path.join(SOURCE, path), "-o", os.path.join(d, ns + ".hpp"), "--namespace", ns, "-w"]
                       + extra + fns)
        if rc != 0:
            return f"{name}: {text}"
    harness = os.path.join(d, "agree.cpp")
    with open(harness, "w") as f:
        f.write(f"""#include "whole.hpp"
#include "alone.hpp"
#include <cmath>
#include <cstdio>
#include <random>
int main() {{
    std::mt19937 gen(7);
    std::uniform_real_distribution<double> r(-1, 1);
    double q[whole::nq], qd[whole::nq], u[whole::nu + 1], a[whole::nq], b[whole::nq];
    double la[whole::nc + 1], lb[whole::nc + 1];
    double worst = 0;
    for (int k = 0; k < 20; ++k) {{
        for (auto& v : q) v = r(gen);
        for (auto& v : qd) v = r(gen);
        for (auto& v : u) v = r(gen);
        int sa = whole::forward_dynamics(q, qd, u, whole::Parameters{{}}, a, la);
        int sb = alone::forward_dynamics(q, qd, u, alone::Parameters{{}}, b, lb);
        if (sa != sb) {{ std::printf("status %d against %d\\n", sa, sb); return 1; }}
        for (int i = 0; i < whole::nq; ++i) worst = std::fmax(worst, std::fabs(a[i] - b[i]) / (1 + std::fabs(a[i])));
    }}
    std::printf("worst %.3g\\n", worst);
    return worst <= 1e-13 ? 0 : 1;
}}
""")
    exe = os.path.join(d, "agree")
    rc, text = run(["g++", "-std=c++17", "-O1", "-I", d, harness, "-o", exe])
    if rc != 0:
        return f"{name}: the agreement harness does not compile:\n{text[:1500]}"
    rc, text = run([exe])
    return None if rc == 0 else f"{name}: forward_dynamics alone differs from the whole file's: {text}"


def main():
    failures, jobs = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for case in CASES:
            name, path, extra, c99 = case
            os.makedirs(os.path.join(WORK, name), exist_ok=True)
            whole = os.path.join(WORK, name, "whole_file.cpp")
            rc, text = run([LAGC, os.path.join(SOURCE, path), "-o", whole, "-w"] + extra)
            if rc != 0:
                failures.append(f"{name}: lagc failed on the whole file: {text}")
                continue
            every = declared(whole[:-4] + ".hpp")
            for function in every:
                jobs.append((case, function, len(every), pool.submit(one, case, function, False)))
                if c99:
                    jobs.append((case, function, len(every), pool.submit(one, case, function, True)))
            jobs.append((case, "agreement", 0, pool.submit(q_dd_agree, case)))
        checked = 0
        for case, function, every, job in jobs:
            result = job.result()
            if isinstance(result, str):
                failures.append(result)
            elif function == "forward_dynamics" and case[0] == "cart_pendulum" and len(result) >= every:
                failures.append(f"cart_pendulum forward_dynamics: the subset holds {len(result)} of {every}")
            elif function == "mass_matrix" and len([n for n in result if not n.endswith("default_parameters")]) != 1:
                failures.append(f"{case[0]} mass_matrix alone holds {result}")
            checked += 1
    for f in failures:
        print("FAIL", f)
    print(f"{checked} files checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

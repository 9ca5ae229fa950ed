#!/usr/bin/env python3
"""How lagc's work grows with the arm: bench's generic 3-D arm (arms3d.generic, full inertia
tensors) at n joints, the whole lagc run (time, peak memory), the operations in the file and
g++ -O2's time, with the growth fitted.

usage: scaling.py LAGC_EXECUTABLE WORK_DIR [--sizes 3,4,...] [--timeout S] [--csv FILE]

Where lagc refuses an arm at its default limits (none up to n = 30 today; until e30a04a,
n >= 14), the run raises the limit (--max-terms 1000000000) and says so in the "default
limits" column. Prints a markdown table
and the fitted growth: time ~ n^k by least squares on log time against log n, and the
doubling length (links per doubling) by least squares on log time against n.
"""
import argparse
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from arms3d import generic, lag  # noqa: E402
from bench import compile_object, timed  # noqa: E402


def run_timed(cmd, timeout):
    """Wall time, peak resident memory (KB, from /usr/bin/time) and the completed process."""
    r, wall = timed(["/usr/bin/time", "-f", "peak %M"] + cmd, timeout=timeout)
    m = re.search(r"peak (\d+)", r.stderr)
    return wall, int(m.group(1)) if m else 0, r


def one(lagc, work, n, timeout):
    bodies = generic(n)
    stored = [(b["mass"],) + tuple(b["com"]) + tuple(b["inertia"]) for b in bodies]
    name = f"arm{n}"
    path = os.path.join(work, name + ".lag")
    with open(path, "w") as f:
        f.write(lag(name, bodies, stored))
    out = os.path.join(work, name + ".cpp")
    row = {"n": n}
    try:
        _, _, r = run_timed([lagc, path, "-o", out, "-w"], timeout)
        row["default"] = r.returncode == 0
        extra = [] if row["default"] else ["--max-terms", "1000000000"]
        wall, peak, r = run_timed([lagc, path, "-o", out, "-w", "--stats"] + extra, timeout)
    except subprocess.TimeoutExpired:
        row["timeout"] = True
        return row
    if r.returncode != 0:
        row["error"] = r.stderr.strip().splitlines()[-1][:120]
        return row
    row["time"], row["peak_mb"] = wall, peak / 1024
    row["ops"] = int(re.search(r"the file: (\d+) operations", r.stderr).group(1))
    row["gxx"] = compile_object(out, out + ".o")
    return row


def fit(xs, ys):
    """Least-squares slope and intercept of ys against xs."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    return slope, my - slope * mx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lagc")
    ap.add_argument("work")
    ap.add_argument("--sizes", default="3,4,5,6,8,10,12,14,16,18,20,22,24,26,28,30")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--csv", help="also write n, lagc s, peak MB, ops, g++ s as CSV (for plot_scaling.sh)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rows = []
    print("| n | default limits | lagc s | peak MB | ops in the file | g++ -O2 s |")
    print("|---:|---|---:|---:|---:|---:|")
    for n in (int(s) for s in args.sizes.split(",") if s):
        print(f"[scaling] generic {n}", file=sys.stderr, flush=True)
        r = one(args.lagc, args.work, n, args.timeout)
        if r.get("timeout"):
            print(f"| {n} | | > {args.timeout:.0f} | | | |", flush=True)
            break
        if "error" in r:
            print(f"| {n} | | error: {r['error']} | | | |", flush=True)
            continue
        rows.append(r)
        default = "yes" if r["default"] else "refused (run with --max-terms 1e9)"
        print(f"| {n} | {default} | {r['time']:.2f} | {r['peak_mb']:.0f} | {r['ops']} | {r['gxx']:.1f} |", flush=True)
    if args.csv:
        with open(args.csv, "w") as f:
            f.write("n,lagc_s,peak_mb,ops,gxx_s\n")
            for r in rows:
                f.write(f"{r['n']},{r['time']:.3f},{r['peak_mb']:.1f},{r['ops']},{r['gxx']:.2f}\n")
    big = [r for r in rows if r["n"] >= 6]
    if len(big) >= 3:
        print()
        for key, label in (("time", "lagc's time"), ("ops", "operations in the file"), ("gxx", "g++ -O2's time")):
            xs = [math.log(r["n"]) for r in big]
            ys = [math.log(r[key]) for r in big]
            k, _ = fit(xs, ys)
            rate, _ = fit([r["n"] for r in big], ys)
            print(f"- {label}: ~ n^{k:.1f} over n = {big[0]['n']}..{big[-1]['n']} "
                  f"(as an exponential: doubling every {math.log(2) / rate:.1f} links)")


if __name__ == "__main__":
    main()

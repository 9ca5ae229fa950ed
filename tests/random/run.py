#!/usr/bin/env python3
"""Random-model property tests for lagc (docs/testing.md).

For each generated .lag model and robot file (and every file in regressions/): lagc either
refuses it with a clear error (exit 1, `file:line:col: error:`) or writes code that compiles
with -Werror in every form (split, header-only, --c-api with its C99 header, --scalar float,
--template) and whose functions agree with each other (checker.cpp).

  python3 tests/random/run.py --lagc build/lagc                       # the suite's slice
  python3 tests/random/run.py --lagc build/lagc --count 2000 --seed 7  # the long mode
  python3 tests/random/run.py --lagc build/lagc --shrink FILE          # minimise a fault
  python3 tests/random/run.py --lagc build/lagc --c-output             # the checks on the C output

With --c-output the property checker runs on the C99 output (-o NAME.c, compiled with gcc
-std=c99 -pedantic -Werror) through a C++ shim of the same API (c_shim.py), instead of on the
header-only C++; every other form is written and compiled as before.
"""
import argparse
import concurrent.futures
import os
import re
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_lag      # noqa: E402
import gen_robot    # noqa: E402
import pipeline     # noqa: E402
import shrink       # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REGRESSIONS = os.path.join(HERE, "regressions")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lagc", required=True, help="the lagc binary")
    ap.add_argument("--cxx", default="g++")
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--work", default="/tmp/lagc_random", help="scratch directory")
    ap.add_argument("--seed", type=int, default=1, help="first seed")
    ap.add_argument("--count", type=int, default=20, help=".lag models to generate")
    ap.add_argument("--robots", type=int, default=None, help="robot files (default: count / 3)")
    ap.add_argument("--states", type=int, default=4, help="random states per model")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-regressions", action="store_true", help="skip tests/random/regressions")
    ap.add_argument("--include-known", action="store_true", help="also run known_failing.txt")
    ap.add_argument("--files", nargs="*", default=[], help="run these files instead of generating")
    ap.add_argument("--shrink", metavar="FILE", help="minimise FILE while its first fault persists")
    ap.add_argument("--keep", action="store_true", help="keep the work directories of passing models")
    ap.add_argument("--c-output", action="store_true", help="run the checker on the C output (-o NAME.c)")
    return ap.parse_args()


def known_lines():
    path = os.path.join(REGRESSIONS, "known_failing.txt")
    if not os.path.exists(path):
        return []
    return [line.strip() for line in open(path, encoding="utf-8") if line.strip() and not line.startswith("#")]


def known_failing():
    """Regression files listed in known_failing.txt (`NAME reason`): skipped by default."""
    return {line.split(" ", 1)[0]: line.partition(" ")[2] for line in known_lines() if not line.startswith("match ")}


def known_patterns():
    """`match CHECK REGEX`: a generated model's failure of CHECK whose message matches
    REGEX is an open fault already kept as a regression: reported, not failed."""
    out = []
    for line in known_lines():
        if line.startswith("match "):
            _, check, regex = line.split(" ", 2)
            out.append((check, re.compile(regex)))
    return out


def mark_known(results):
    patterns = known_patterns()
    for r in results:
        if r.outcome == "fault" and all(any(c == check and rx.search(m) for check, rx in patterns)
                                        for c, m in r.failures):
            r.outcome = "known"


def generated_files(args):
    """Write the generated models and robots into WORK/models; their paths."""
    out = os.path.join(args.work, "models")
    os.makedirs(out, exist_ok=True)
    paths = []
    for seed in range(args.seed, args.seed + args.count):
        paths.append(write(os.path.join(out, f"random_{seed}.lag"), gen_lag.generate(seed)))
    robots = args.robots if args.robots is not None else max(1, args.count // 3)
    for seed in range(args.seed, args.seed + robots):
        name, text = gen_robot.generate(seed)
        paths.append(write(os.path.join(out, name), text))
    return paths


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def regression_files(args):
    if args.no_regressions or not os.path.isdir(REGRESSIONS):
        return []
    known = known_failing()
    files = sorted(f for f in os.listdir(REGRESSIONS) if re.search(r"\.(lag|xml|urdf)$", f))
    skipped = [f for f in files if f in known and not args.include_known]
    for f in skipped:
        print(f"skip {f}: known failing ({known[f]})")
    return [os.path.join(REGRESSIONS, f) for f in files if f not in skipped]


def run_all(args, paths):
    tools = pipeline.Tools(args.lagc, args.cxx, args.cc, HERE, args.c_output)
    results, start = [], time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(pipeline.run_one, tools, p, args.work, args.states, args.keep): p for p in paths}
        for fut in concurrent.futures.as_completed(futures):
            r = fut.result()
            results.append(r)
            print(r.summary(), flush=True)
    return results, time.time() - start


def report(results, elapsed):
    """Totals: outcomes, throughput, how often each check ran, the faults."""
    lag = [r for r in results if r.path.endswith(".lag")]
    robots = [r for r in results if not r.path.endswith(".lag")]
    runs = {}
    for r in results:
        for check, n in r.runs.items():
            runs[check] = runs.get(check, 0) + n
    print(f"\n{len(lag)} .lag models, {len(robots)} robot files in {elapsed:.0f} s: "
          f"{60 * len(lag) / max(elapsed, 1e-9):.1f} models and {60 * len(robots) / max(elapsed, 1e-9):.1f} robot files per minute "
          f"(both kinds share the time)")
    for kind in ("ok", "refused", "known", "fault"):
        print(f"  {kind}: {sum(r.outcome == kind for r in results)}")
    print("checks run (times):")
    for check in sorted(runs):
        print(f"  {check}: {runs[check]}")
    print("coverage of the language in these models:")
    print("  " + pipeline.coverage([r.path for r in lag]))
    for r in results:
        if r.outcome == "known":
            print(f"KNOWN {r.path}: {', '.join(sorted({c for c, _ in r.failures}))}")
    faults = [r for r in results if r.outcome == "fault"]
    for r in faults:
        print(f"FAULT {r.path}:")
        for check, what in r.failures[:6]:
            print(f"    {check}: {what}")
    return 1 if faults else 0


def main():
    args = parse_args()
    os.makedirs(args.work, exist_ok=True)
    if args.shrink:
        return shrink.shrink_file(pipeline.Tools(args.lagc, args.cxx, args.cc, HERE), args.shrink, args.work)
    paths = [os.path.abspath(p) for p in args.files] if args.files else generated_files(args)
    paths += regression_files(args) if not args.files else []
    results, elapsed = run_all(args, paths)
    mark_known(results)
    return report(results, elapsed)


if __name__ == "__main__":
    sys.exit(main())

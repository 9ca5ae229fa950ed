#!/usr/bin/env python3
"""Runs lagc and SymPy side by side on planar n-link chains and prints a markdown table.

usage: bench.py LAGC_EXECUTABLE WORK_DIR [--sizes 1,2,3,...] [--timeout 300]
For each variant (absolute, relative) and n: lagc's wall time and peak memory, generated
code size and operations, g++ -O2 compile time, ns per call (Google Benchmark) and
instructions per call of forward dynamics (callgrind); the same for SymPy's
LagrangesMethod + cse + ccode, with a per-n timeout.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_chain  # noqa: E402

CXX = ["g++", "-std=c++17", "-O2"]


def timed(cmd, **kw):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    return r, time.perf_counter() - t0


def compile_object(src, obj, defines=()):
    r, seconds = timed(CXX + list(defines) + ["-c", src, "-o", obj])
    if r.returncode != 0:
        raise RuntimeError(f"compiling {src} failed:\n{r.stderr[-2000:]}")
    return seconds


def link(objs, exe):
    r, _ = timed(["g++"] + objs + ["-o", exe, "-lbenchmark", "-lpthread"])
    if r.returncode != 0:
        raise RuntimeError(f"linking {exe} failed:\n{r.stderr[-2000:]}")


def ns_per_call(exe):
    r = subprocess.run([exe, "--benchmark_format=json", "--benchmark_min_time=0.2",
                        "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    data = json.loads(r.stdout)
    out = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            out[b["run_name"].replace("BM_", "")] = b["real_time"] if b["time_unit"] == "ns" else None
    return out


def model_sizes(header):
    """{"nq": …, "nu": …, "nc": …} from a generated header's `inline constexpr int nq = …` line."""
    with open(header) as f:
        for line in f:
            if "inline constexpr int nq" in line:
                parts = line.replace(",", " ").replace(";", " ").split()
                return {k: int(parts[parts.index(k) + 2]) for k in ("nq", "nu", "nc")}
    raise RuntimeError(f"{header}: no 'inline constexpr int nq' line")


def instructions_per_call(exe, work, mode=()):
    """Instructions per call under callgrind: (1001 calls − 1 call) / 1000. `mode` goes
    before "count N" on the harness's command line (bench/linearization.py uses it)."""
    def total(calls):
        out = os.path.join(work, f"callgrind.{'.'.join(mode)}{calls}.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", exe, *mode, "count", str(calls)],
                       capture_output=True, text=True, check=True)
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1])
        raise RuntimeError("no callgrind total")
    return (total(1001) - total(1)) / 1000.0


def checksum(exe):
    r = subprocess.run([exe, "count", "3"], capture_output=True, text=True, check=True)
    return float(r.stdout.strip())


def lagc_side(lagc, model, name, work):
    out = os.path.join(work, name + ".cpp")
    r, _ = timed(["/usr/bin/time", "-f", "%e %M", lagc, model, "-o", out, "--stats"])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    wall, peak_kb = r.stderr.strip().splitlines()[-1].split()
    ops = sum(int(m) for m in re.findall(r"(?:mass_matrix|bias_forces|generalized_forces) +operations \d+ before CSE, (\d+) after", r.stderr))
    derive = float(re.search(r"derive ([0-9.]+) s", r.stderr).group(1))
    compile_s = compile_object(out, out + ".o")
    header = os.path.join(work, name + ".hpp")
    obj = os.path.join(work, name + ".harness.o")
    compile_object(os.path.join(HERE, "harness.cpp"), obj,
                   ["-DLAGC", f'-DLAGC_HEADER="{header}"', f"-DLAGC_NS={name}"])
    exe = os.path.join(work, name + ".lagc")
    link([obj, out + ".o"], exe)
    result = {"time": float(wall), "derive": derive, "peak_mb": int(peak_kb) / 1024, "bytes": os.path.getsize(out),
              "ops": ops, "compile": compile_s, "ns": ns_per_call(exe), "ir": instructions_per_call(exe, work),
              "checksum": checksum(exe)}
    # The same model with --fold-parameters (defaults baked in), reported separately.
    fdir = os.path.join(work, name + "_folded")
    os.makedirs(fdir, exist_ok=True)
    fout = os.path.join(fdir, name + ".cpp")
    r, _ = timed([lagc, model, "-o", fout, "--fold-parameters"])
    if r.returncode != 0:
        raise RuntimeError(r.stderr)
    compile_object(fout, fout + ".o")
    fobj = os.path.join(fdir, "harness.o")
    compile_object(os.path.join(HERE, "harness.cpp"), fobj,
                   ["-DLAGC", f'-DLAGC_HEADER="{os.path.join(fdir, name + ".hpp")}"', f"-DLAGC_NS={name}"])
    fexe = os.path.join(fdir, "bench")
    link([fobj, fout + ".o"], fexe)
    result["ir_folded"] = instructions_per_call(fexe, fdir)
    result["checksum_folded"] = checksum(fexe)
    return result


def sympy_side(n, variant, name, work, timeout):
    sdir = os.path.join(work, name + "_sympy")
    os.makedirs(sdir, exist_ok=True)
    try:
        r, wall = timed([sys.executable, os.path.join(HERE, "sympy_chain.py"), str(n), variant, sdir], timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"timeout": True}
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-2000:])
    t = json.loads(r.stdout.strip().splitlines()[-1])
    src = os.path.join(sdir, "sympy_chain.cpp")
    ops = None
    compile_s = compile_object(src, src + ".o")
    obj = os.path.join(sdir, "harness.o")
    compile_object(os.path.join(HERE, "harness.cpp"), obj, [f"-DCHAIN_N={n}"])
    exe = os.path.join(sdir, "bench")
    link([obj, src + ".o"], exe)
    return {"timeout": False, "derive": t["derive"], "codegen": t["codegen"], "bytes": os.path.getsize(src),
            "compile": compile_s, "ns": ns_per_call(exe), "ir": instructions_per_call(exe, sdir), "ops": ops,
            "version": t["sympy"], "checksum": checksum(exe)}


def fmt(x, digits=2):
    if x is None:
        return "–"
    if isinstance(x, float):
        if x >= 100:
            return f"{x:.0f}"
        return f"{x:.{digits}f}" if x >= 0.01 else f"{x:.3g}"
    return str(x)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lagc")
    ap.add_argument("work")
    ap.add_argument("--sizes", default="1,2,3,4,6,8,10,15,20")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--no-sympy", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    # The chains at every size, then the 3-D arm at its one size.
    cases = [(v, n) for v in ("absolute", "relative") for n in sizes] + [("spatial", 3)]
    for variant, n in cases:
        name = f"arm{n}_3d" if variant == "spatial" else f"chain{n}_{'rel' if variant == 'relative' else 'abs'}"
        model = os.path.join(args.work, name + ".lag")
        with open(model, "w") as f:
            f.write(make_chain.spatial_arm(n) if variant == "spatial" else make_chain.chain(n, variant))
        print(f"[bench] {name}: lagc", file=sys.stderr, flush=True)
        lg = lagc_side(args.lagc, model, name, args.work)
        sy = None
        if not args.no_sympy:
            print(f"[bench] {name}: sympy", file=sys.stderr, flush=True)
            sy = sympy_side(n, variant, name, args.work, args.timeout)
        rows.append((variant, n, lg, sy))
        print(f"[bench] {name}: lagc {lg['time']:.2f} s, ir/call {lg['ir']:.0f}; sympy "
              f"{'timeout' if sy and sy['timeout'] else (fmt(sy['derive']) + ' s, ir/call ' + fmt(sy['ir']) if sy else '-')}",
              file=sys.stderr, flush=True)
    print("| variant | n | lagc s | lagc MB | lagc code KB | lagc ops | lagc g++ s | SymPy derive s | SymPy cse+print s | "
          "derive ratio | SymPy g++ s | M ns (lagc/SymPy) | h vs forcing ns (lagc/SymPy) | FD ns (lagc/SymPy) | "
          "FD instr/call lagc | FD instr/call SymPy | instr ratio | qdd agree |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|")
    folded_rows = []
    for variant, n, lg, sy in rows:
        if sy is None or sy.get("timeout"):
            s = ["> timeout" if sy else "–"] + ["–"] * 2 + ["–"] * 1
            sy_ns = {"mass_matrix": None, "bias_forces": None, "forward_dynamics": None}
            sy_ir = None
            sd = sc = ratio = sg = None
            sd_txt = f"> {args.timeout:.0f} (timeout)" if sy else "–"
        else:
            sy_ns, sy_ir = sy["ns"], sy["ir"]
            sd, sc, sg = sy["derive"], sy["codegen"], sy["compile"]
            ratio = sd / lg["derive"] if lg["derive"] > 0 else None
            sd_txt = fmt(sd)
        pair = lambda k: f"{fmt(lg['ns'].get(k), 1)} / {fmt(sy_ns.get(k), 1)}"
        ir_ratio = f"{sy_ir / lg['ir']:.2f}×" if sy_ir else "–"
        # lagc's and SymPy's forward dynamics on the same states (checksum of qdd).
        agree = "–"
        if sy_ir:
            a, b = lg["checksum"], sy["checksum"]
            agree = "yes" if abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)) else f"NO ({a:.17g} vs {b:.17g})"
        print(f"| {variant} | {n} | {fmt(lg['time'])} | {fmt(lg['peak_mb'], 1)} | {fmt(lg['bytes'] / 1024, 1)} | "
              f"{lg['ops']} | {fmt(lg['compile'])} | {sd_txt} | {fmt(sc)} | {('%.0f×' % ratio) if ratio else '–'} | "
              f"{fmt(sg)} | {pair('mass_matrix')} | {pair('bias_forces')} | {pair('forward_dynamics')} | "
              f"{lg['ir']:.0f} | {fmt(sy_ir, 0) if sy_ir else '–'} | {ir_ratio} | {agree} |")
        a, b = lg["checksum"], lg["checksum_folded"]
        same = "yes" if abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b)) else f"NO ({a:.17g} vs {b:.17g})"
        folded_rows.append(f"| {variant} | {n} | {lg['ir']:.0f} | {lg['ir_folded']:.0f} | "
                           f"{lg['ir'] / lg['ir_folded']:.2f}× | {same} |")
    print()
    print("`--fold-parameters` (the parameters' defaults baked in as constants), forward dynamics:")
    print()
    print("| variant | n | instr/call, run-time parameters | instr/call, folded | speed-up | qdd agree |")
    print("|---|---:|---:|---:|---:|:---:|")
    for row in folded_rows:
        print(row)


if __name__ == "__main__":
    main()

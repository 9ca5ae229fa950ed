#!/usr/bin/env python3
"""The embedded job (issue 52, docs/embedded.md): the bundled models on Cortex-M.

1. Every model through `lagc --scalar float --target mcu`, cross-compiled for Cortex-M4F
   (and M7 for the run models) at -Os with -Werror -Wall -Wextra -Wpedantic
   -Wdouble-promotion, -fno-math-errno and -fno-exceptions -fno-rtti (firmware's flags);
   each object must have no .data, no exception tables (.ARM.extab), and call nothing but
   libm and the compiler's helpers: no malloc/_sbrk, no __cxa_*/__gxx_personality/_Unwind,
   no libstdc++ (std::), no __errno.
2. The run models linked with tests/embedded/target_main.cpp (no C library but libm): the
   program must hold no .data, no heap, no __errno, no _impure_ptr; its stack per API
   function (objdump: prologues and calls, libm included) must be within the header's
   figure; where qemu-system-arm is installed it runs on mps2-an386 (M4) and mps2-an500
   (M7): forward_dynamics at four states against the host's double result within
   cond(M) x float epsilon (x max(1, |q̈|)), and instructions per call (qemu -icount
   shift=0). ur5_like also in double (`--target mcu`, emulated on the M4's single-precision
   FPU): forward_dynamics against the host's within cond(M) x 2^-52, and its cost. With --variants, ur5_like and floating_leg also in other forms (the default
   form, --fold-parameters, double), measured the same way (docs/embedded.md's tables).
Exits 77 (CTest's SKIP_RETURN_CODE) when the cross toolchain is absent.

usage: run_embedded.py --lagc LAGC --cxx HOSTCXX --source SOURCE_DIR --work DIR [--all-models]
"""
import argparse
import glob
import os
import re
import shutil
import struct
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import arm_stack  # noqa: E402

CPUS = {
    "m4": (["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16"], "mps2-an386"),
    # The single-precision FPU: newlib's sinf for the double-precision one (thumb/v7e-m+dp)
    # sets errno at ±Inf, which brings __errno, _impure_ptr and 1 KB of .data (embedded.md).
    "m7": (["-mcpu=cortex-m7", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv5-sp-d16"], "mps2-an500"),
}
FLAGS = ["-std=c++17", "-Os", "-fno-math-errno", "-fno-exceptions", "-fno-rtti", "-Wall", "-Wextra", "-Wpedantic", "-Wdouble-promotion", "-Werror"]
RUN_MODELS = ["cart_pendulum", "ur5_like", "iiwa_like", "floating_leg"]
DOUBLE_MODEL = "ur5_like"  # also built in double (emulated on the M4's single-precision FPU)
FORBIDDEN = re.compile(r"^(malloc|free|calloc|realloc|_sbrk|_sbrk_r|_malloc_r|__cxa_\w+|__gxx_personality\w*|"
                       r"_Unwind_\w+|__errno|_impure_ptr|abort|_exit)$")
ENTRY = re.compile(r"inline constexpr unsigned long (\w+) = (\d+);  // arrays (\d+), temporaries (\d+), "
                   r"frames (\d+), libm (\d+)")
failures = []


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    return r.stdout


def fail(message):
    failures.append(message)
    print("FAIL:", message)


def sections(path):
    out = {}
    for line in run(["arm-none-eabi-size", "-A", path]).splitlines()[2:]:
        parts = line.split()
        if len(parts) >= 2 and parts[1].isdigit():
            out[parts[0]] = int(parts[1])
    return out


def check_binary(path, what):
    s = sections(path)
    if s.get(".data", 0) > 0:
        fail(f"{what}: .data holds {s['.data']} bytes")
    if any(k.startswith(".ARM.extab") for k in s):
        fail(f"{what}: has exception tables (.ARM.extab)")
    for line in run(["arm-none-eabi-nm", path]).splitlines():
        name = line.split()[-1]
        if FORBIDDEN.match(name):
            fail(f"{what}: refers to {name}")
    for line in run(["arm-none-eabi-nm", "-C", "--defined-only", path]).splitlines():
        if "std::" in line:
            fail(f"{what}: holds libstdc++'s {line.split(maxsplit=2)[-1]}")
    return s


def stated(header):
    with open(header) as f:
        return {m.group(1): int(m.group(2)) for m in ENTRY.finditer(f.read())}


def target_run(model, cpu, work, source, scalar="float", checked=True, defines=()):
    flags, board = CPUS[cpu]
    inc = ["-I", work, "-I", HERE, f"-DMODEL={model}", f'-DMODEL_HEADER="{model}.hpp"', f"-DSCALAR={scalar}"]
    inc += list(defines)
    obj = os.path.join(work, f"{model}_{cpu}.o")
    main = os.path.join(work, f"main_{model}_{cpu}.o")
    elf = os.path.join(work, f"{model}_{cpu}.elf")
    run(["arm-none-eabi-g++"] + flags + ["-std=c++17", "-Os", "-fno-math-errno", "-fno-exceptions", "-fno-rtti"]
        + inc + ["-c", os.path.join(HERE, "target_main.cpp"), "-o", main])
    run(["arm-none-eabi-gcc"] + flags + ["-nostartfiles", "-T", os.path.join(HERE, "link.ld"), main, obj,
                                         "-lm", "-lc", "-lgcc", "-o", elf])
    if checked:
        check_binary(elf, f"{model} {cpu} program")
    return elf


def qemu_ticks(qemu, cpu, elf):
    out = subprocess.run([qemu, "-M", CPUS[cpu][1], "-nographic", "-monitor", "none", "-serial", "none",
                          "-semihosting", "-icount", "shift=0", "-kernel", elf],
                         capture_output=True, text=True, timeout=300)
    return out.stdout + out.stderr  # semihosting writes to QEMU's standard error


# Other forms of a model on the M4, measured as the job's own (docs/embedded.md): flash of
# the object, the largest stated figure, the stack of two functions with libm, instructions.
VARIANTS = [("mcu float", ["--scalar", "float", "--target", "mcu"], "float"),
            ("default float", ["--scalar", "float"], "float"),
            ("mcu float folded", ["--scalar", "float", "--target", "mcu", "--fold-parameters"], "float"),
            ("mcu double", ["--target", "mcu"], "double")]


def variants(model, o, qemu):
    for tag, flags, scalar in VARIANTS:
        work = os.path.join(o.work, "variants", tag.replace(" ", "_"))
        os.makedirs(work, exist_ok=True)
        run([o.lagc, os.path.join(o.source, "models", model + ".lag"), "-o", os.path.join(work, model + ".cpp"), "-w"]
            + flags)
        obj = os.path.join(work, f"{model}_m4.o")
        run(["arm-none-eabi-g++"] + CPUS["m4"][0] + FLAGS + ["-Wno-double-promotion", "-c",
                                                             os.path.join(work, model + ".cpp"), "-o", obj])
        text = sections(obj).get(".text", 0)
        figures = stated(os.path.join(work, model + ".hpp"))
        elf = target_run(model, "m4", work, o.source, scalar, checked=False)
        funcs = arm_stack.functions("arm-none-eabi-objdump", elf)
        memo, measured = {}, {}
        skip = arm_stack.LONG_REDUCTION if "--target" in flags else frozenset()  # angles reduced
        for name in funcs:
            m = re.match(rf"{model}::(\w+)\(", name)
            if m:
                measured[m.group(1)] = arm_stack.stack(funcs, name, memo, skip=skip)
        ticks = parse_qemu(qemu_ticks(qemu, "m4", elf), 0)[1] if qemu else {}
        calls = max(ticks.get("calls", 1), 1)
        per = {k: round(v * 40 / calls) for k, v in ticks.items() if k not in ("calls", "calibration_1000")}
        print(f"variant {model:13} {tag:17} .text {text:7}  largest stated {max(figures.values()):6}  "
              + "  ".join(f"{f} stack {figures.get(f)}/{measured.get(f)} instructions {per.get(f)}"
                          for f in ("mass_matrix", "forward_dynamics", "linearization"))
              + f"  fd at 1000 rad {per.get('forward_dynamics_at_1000_rad')}")


def parse_qemu(text, nq):
    states, ticks = [], {}
    for line in text.splitlines():
        w = line.split()
        if w and w[0] in ("ok", "failed"):  # a float's 8 hex digits, a double's 16
            states.append((w[0], [struct.unpack(">d" if len(x) == 16 else ">f", bytes.fromhex(x))[0]
                                  for x in w[1:1 + nq]]))
        elif len(w) == 2 and re.fullmatch(r"[0-9a-f]{8}", w[1]):
            ticks[w[0]] = int(w[1], 16)
        elif len(w) == 3 and w[0] == "stack" and re.fullmatch(r"[0-9a-f]{8}", w[2]):
            ticks["stack " + w[1]] = int(w[2], 16)
    return states, ticks


def compare(model, cpu, states, reference, epsilon=2.0 ** -24):
    worst = 0.0
    for (status, f), ref in zip(states, reference):
        if status != ref[0]:
            fail(f"{model} {cpu}: status {status}, the host's {ref[0]}")
            continue
        cond, d = ref[1], ref[2]
        scale = max([1.0] + [abs(x) for x in d])
        tolerance = cond * epsilon * scale
        error = max(abs(a - b) for a, b in zip(f, d))
        worst = max(worst, error / tolerance)
        if error > tolerance:
            fail(f"{model} {cpu}: forward_dynamics {error:.3g} from the host's, more than {tolerance:.3g} "
                 f"(cond(M) {cond:.3g})")
    if len(states) != len(reference):
        fail(f"{model} {cpu}: {len(states)} states on the target, {len(reference)} on the host")
    return worst


def check_angles(model, cpu, ticks, figures, api):
    """Angles near 1000 rad (--target mcu reduces them): forward_dynamics and mass_matrix within
    twice their instructions near 0 (newlib's long reduction took 6.5 times as many), and the
    stack each function takes there, painted, within the header's figure and the static count."""
    for function in ("forward_dynamics", "mass_matrix"):
        near, far = ticks.get(function, 0), ticks.get(function + "_at_1000_rad", 0)
        if not near or far > 2 * near:
            fail(f"{model} {cpu}: {function} takes {far / max(near, 1):.2f} times the instructions at 1000 rad")
    for function in ("forward_dynamics", "mass_matrix", "linearization"):
        painted = ticks.get("stack " + function)
        if painted is None:
            fail(f"{model} {cpu}: no painted stack figure for {function}")
        elif painted > figures[function] or painted > api[function][0]:
            fail(f"{model} {cpu}: {function} wrote {painted} B of stack at 1000 rad, the header states "
                 f"{figures[function]}, objdump's count {api[function][0]}")
        else:
            print(f"{model} {cpu}: {function} at 1000 rad: {painted} B of stack painted, "
                  f"{api[function][0]} counted, {figures[function]} stated")


def run_model(model, o, qemu, report):
    work = os.path.join(o.work, "run")
    host = os.path.join(o.work, "host")
    os.makedirs(host, exist_ok=True)
    lag = os.path.join(o.source, "models", model + ".lag")
    run([o.lagc, lag, "-o", os.path.join(host, model + ".cpp"), "-w"])
    exe = os.path.join(host, model + "_reference")
    run([o.cxx, "-std=c++17", "-O2", "-I", host, "-I", HERE, f"-DMODEL={model}", f'-DMODEL_HEADER="{model}.hpp"',
         os.path.join(HERE, "host_reference.cpp"), os.path.join(host, model + ".cpp"), "-o", exe])
    reference = []
    for line in run([exe]).splitlines():
        w = line.split()
        reference.append((w[0], float(w[1]), [float(x) for x in w[2:]]))
    nq = len(reference[0][2])
    figures = stated(os.path.join(work, model + ".hpp"))
    for cpu in ("m4", "m7"):
        elf = target_run(model, cpu, work, o.source)
        funcs = arm_stack.functions("arm-none-eabi-objdump", elf)
        memo = {}
        api = {}
        for name in funcs:
            m = re.match(rf"{model}::(\w+)\(", name)
            if m and m.group(1) in figures:
                # --target mcu: sin, cos and tan never take newlib's long reduction.
                api[m.group(1)] = (arm_stack.stack(funcs, name, memo, skip=arm_stack.LONG_REDUCTION),
                                   arm_stack.flash(funcs, name), arm_stack.stack(funcs, name, {}))
        for function, (measured, flash, with_long) in sorted(api.items()):
            if measured > figures[function]:
                fail(f"{model} {cpu}: {function} takes {measured} B of stack with libm, the header states "
                     f"{figures[function]}")
            report.setdefault((model, function), {})[cpu + " stack"] = (figures[function], measured)
            report[(model, function)][cpu + " flash"] = flash
        if cpu == "m4":
            stack_ratios(model, figures, api)
        if not qemu:
            continue
        out = qemu_ticks(qemu, cpu, elf)
        check_angles(model, cpu, parse_qemu(out, nq)[1], figures, api)
        states, ticks = parse_qemu(out, nq)
        worst = compare(model, cpu, states, reference)
        calls = ticks.get("calls", 0)
        calibration = ticks.get("calibration_1000", 0) * 40 / max(calls, 1)
        if not 990 < calibration < 1100:
            fail(f"{model} {cpu}: 1,000 nops counted as {calibration:.0f} instructions (-icount)")
        for k, v in ticks.items():
            if k not in ("calls", "calibration_1000") and not k.startswith("stack "):
                report.setdefault((model, k), {})[cpu + " instructions"] = round(v * 40 / calls)
        if cpu == "m4" and model == DOUBLE_MODEL:
            double_on_target(model, o, qemu, ticks)
        print(f"{model} {cpu}: forward_dynamics within {worst:.3f} of its tolerance at {len(states)} states")


# Issue 52's table (docs/embedded.md#stack): ur5_like's and floating_leg's functions, float,
# --target mcu, M4 -Os. Stated over measured (libm included) must be within 1.3 for each;
# mass_matrix: at most 400 B stated. The count was fitted to 1.25 (2026-11-28); the closed
# form's M and h in the bodies' axes (2026-11-29) left ur5_like's forward_dynamics and
# rk4_step at 1.27 (1,028 and 1,416 B stated, less than the 1,080 and 1,468 before; GCC's
# frames shrank more).
TABLE_FUNCTIONS = ("mass_matrix", "coriolis_matrix", "bias_forces", "forward_dynamics", "inverse_dynamics",
                   "linearization", "rk4_step", "radau_step", "rk4_step_jacobian")
RATIO_BOUND = 1.3


def stack_ratios(model, figures, api):
    if model not in ("ur5_like", "floating_leg"):
        return
    for function in TABLE_FUNCTIONS:
        stated, measured = figures[function], api[function][0]
        print(f"{model} m4: {function} stated {stated} B, measured {measured} B, ratio {stated / measured:.3f}")
        if stated > RATIO_BOUND * measured:
            fail(f"{model} m4: {function} stated {stated} B, {stated / measured:.2f}x its {measured} B (at most "
                 f"{RATIO_BOUND})")
    if figures["mass_matrix"] > 400:
        fail(f"{model}: mass_matrix stated {figures['mass_matrix']} B, more than 400 in the target profile")


def double_on_target(model, o, qemu, float_ticks):
    """`--target mcu` in double on the M4 (-Os): forward_dynamics at the four states against the
    host's double result, within cond(M) x 2^-52 (x max(1, |q̈|)), the bits that agree counted;
    and what emulated double costs against float (instructions per call, .text)."""
    work = os.path.join(o.work, "double")
    host = os.path.join(o.work, "host")
    os.makedirs(work, exist_ok=True)
    run([o.lagc, os.path.join(o.source, "models", model + ".lag"), "-o", os.path.join(work, model + ".cpp"),
         "--target", "mcu", "-w"])
    obj = os.path.join(work, f"{model}_m4.o")
    run(["arm-none-eabi-g++"] + CPUS["m4"][0] + FLAGS + ["-c", os.path.join(work, model + ".cpp"), "-o", obj])
    text = check_binary(obj, f"{model} m4 double").get(".text", 0)
    # Its own errno: newlib's double sqrt sets it whatever the flags (docs/embedded.md#errno).
    elf = target_run(model, "m4", work, o.source, "double", checked=False, defines=["-DLAGC_OWN_ERRNO"])
    # newlib's double wrappers keep one byte of .data, __fdlib_version (_LIB_VERSION): nothing else.
    for line in run(["arm-none-eabi-nm", elf]).splitlines():
        if line.split()[-2] in ("D", "d") and line.split()[-1] != "__fdlib_version":
            fail(f"{model} m4 double program: {line.split()[-1]} in .data")
        if re.match(r"^(malloc|_sbrk|_impure_ptr|__cxa_\w+|_Unwind_\w+)$", line.split()[-1]):
            fail(f"{model} m4 double program: refers to {line.split()[-1]}")
    reference = []
    for line in run([os.path.join(host, model + "_reference")]).splitlines():
        w = line.split()
        reference.append((w[0], float(w[1]), [float(x) for x in w[2:]]))
    nq = len(reference[0][2])
    states, ticks = parse_qemu(qemu_ticks(qemu, "m4", elf), nq)
    worst = compare(model, "m4 double", states, reference, 2.0 ** -52)
    values = sum(len(f) for _, f in states)
    exact = sum(a == b for (_, f), ref in zip(states, reference) for a, b in zip(f, ref[2]))
    calls = max(ticks.get("calls", 1), 1)
    cost = "  ".join(f"{k} {round(ticks[k] * 40 / calls)} ({ticks[k] / max(float_ticks.get(k, 0), 1):.0f}x float)"
                     for k in ("forward_dynamics", "mass_matrix", "linearization", "rk4_step") if k in ticks)
    print(f"{model} m4 double: forward_dynamics within {worst:.3f} of its tolerance (cond(M) x 2^-52) at "
          f"{len(states)} states, {exact} of {values} values bit-identical to the host's; .text {text} B; "
          f"instructions per call {cost}")


def fast_math(models, o, qemu):
    """Each model (--scalar float --target mcu) and tests/embedded/target_nan.cpp at -O2
    -ffast-math on the M4 under QEMU: NaN and Inf in q, qd, u, the parameters and dt must give
    a non-zero status (target_nan.cpp), as tests/test_fast_math.cpp checks on the host."""
    work = os.path.join(o.work, "fast_math")
    os.makedirs(work, exist_ok=True)
    flags = CPUS["m4"][0] + ["-std=c++17", "-O2", "-ffast-math", "-fno-exceptions", "-fno-rtti"]
    total = 0
    for model in models:
        run([o.lagc, os.path.join(o.source, "models", model + ".lag"), "-o", os.path.join(work, model + ".cpp"),
             "--scalar", "float", "--target", "mcu", "-w"])
        objects = []
        inc = ["-I", work, "-I", HERE, f"-DMODEL={model}", f'-DMODEL_HEADER="{model}.hpp"', "-DTARGET_NAN"]
        for source in (os.path.join(work, model + ".cpp"), os.path.join(HERE, "target_nan.cpp"),
                       os.path.join(HERE, "target_main.cpp")):
            objects.append(os.path.join(work, f"{model}_{os.path.basename(source)}.o"))
            run(["arm-none-eabi-g++"] + flags + inc + ["-c", source, "-o", objects[-1]])
        elf = os.path.join(work, model + ".elf")
        run(["arm-none-eabi-gcc"] + CPUS["m4"][0] + ["-nostartfiles", "-T", os.path.join(HERE, "link.ld")] + objects
            + ["-lm", "-lc", "-lgcc", "-o", elf])
        if not qemu:
            continue
        out = qemu_ticks(qemu, "m4", elf)
        m = re.search(r"fast_math (\d+) (\d+) (\d+)", out)
        if not m or int(m.group(3)) != 0 or int(m.group(1)) == 0:
            fail(f"{model} m4 -O2 -ffast-math: NaN or Inf inputs gave status 0: {out.strip()}")
        else:
            total += int(m.group(1))
            print(f"{model} m4 -O2 -ffast-math: {m.group(1)} calls with NaN or Inf, {m.group(2)} refused, "
                  "none returned 0 with outputs that are not finite")
    print(f"fast-math on the M4: {len(models)} models, {total} calls")


def compile_model(model, o, cpus):
    work = os.path.join(o.work, "run")
    os.makedirs(work, exist_ok=True)
    run([o.lagc, os.path.join(o.source, "models", model + ".lag"), "-o", os.path.join(work, model + ".cpp"),
         "--scalar", "float", "--target", "mcu", "-w"])
    for cpu in cpus:
        obj = os.path.join(work, f"{model}_{cpu}.o")
        try:
            run(["arm-none-eabi-g++"] + CPUS[cpu][0] + FLAGS + ["-c", os.path.join(work, model + ".cpp"), "-o", obj])
        except RuntimeError as e:
            fail(f"{model} {cpu}: does not compile cleanly:\n{e}")
            continue
        before = len(failures)
        s = check_binary(obj, f"{model} {cpu}")
        if len(failures) == before:
            print(f"{model} {cpu}: .text {s.get('.text', 0)} B, no .data, no exception tables, no heap, no errno")


def main():
    a = argparse.ArgumentParser()
    for k in ("--lagc", "--cxx", "--source", "--work"):
        a.add_argument(k, required=True)
    a.add_argument("--all-models", action="store_true")
    a.add_argument("--variants", action="store_true", help="also measure other forms of ur5_like and floating_leg")
    o = a.parse_args()
    probe = os.path.join(o.work, "probe.cpp")
    os.makedirs(o.work, exist_ok=True)
    with open(probe, "w") as f:
        f.write("#include <cmath>\nfloat f(float x) { return std::sin(x); }\n")
    if not shutil.which("arm-none-eabi-g++") or subprocess.run(
            ["arm-none-eabi-g++", "-c", probe, "-o", probe + ".o"], capture_output=True).returncode != 0:
        print("SKIP: no Cortex-M cross toolchain with C++ headers (arm-none-eabi-g++, gcc-arm-none-eabi, "
              "libnewlib-arm-none-eabi, libstdc++-arm-none-eabi-dev: bash .ci/deps --tests installs them)")
        return 77
    qemu = shutil.which("qemu-system-arm")
    if not qemu:
        print("qemu-system-arm is not installed: the programs are built and checked, not run")
    models = RUN_MODELS
    if o.all_models:
        models = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(o.source, "models", "*.lag")))
    for model in models:
        compile_model(model, o, ["m4", "m7"] if model in RUN_MODELS else ["m4"])
    fast_math(models, o, qemu)
    report = {}
    for model in RUN_MODELS:
        run_model(model, o, qemu, report)
    print("\nmodel function: stack stated/measured (M4, libm included), flash B (M4, with what it calls), "
          "instructions M4 / M7")
    for (model, function), r in sorted(report.items()):
        st = r.get("m4 stack")
        print(f"{model:14} {function:32} " + (f"{st[0]:6} / {st[1]:6} ({st[0] / max(st[1], 1):.2f})" if st else " " * 24)
              + f"  {r.get('m4 flash', ''):>7}  {r.get('m4 instructions', ''):>7} / {r.get('m7 instructions', '')}")
    if o.variants:
        for model in ("ur5_like", "floating_leg"):
            variants(model, o, qemu)
    if failures:
        print(f"{len(failures)} failures")
        return 1
    print("the embedded job passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

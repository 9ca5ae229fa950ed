#!/usr/bin/env python3
"""lagc against MuJoCo on 3-D arms with full inertia tensors, from the same numbers.

usage: arms3d.py LAGC_EXECUTABLE WORK_DIR [--sizes 3,4,...,12] [--no-named] [--timeout S] [--skewed]

For each arm, one spec (bodies: fixed pose, hinge axis, mass, centre of mass, full inertia
tensor) is written as MJCF; MuJoCo loads it and reports the inertial values it will use
(it diagonalises full tensors, so they come back rotated and rounded), and the .lag is
written from those, so both sides compute with the same numbers. Then: agreement of M, h
and qdd over 50 random states; lagc's whole run (derive included); forward dynamics'
operations after CSE; g++ -O2 time of the generated code; median ns per call; callgrind
instructions per call of lagc's forward_dynamics and of MuJoCo's dynamics algorithms
called directly (mj_kinematics, mj_comPos, mj_crb, mj_factorM, mj_comVel, mj_rne,
mj_solveM). Prints a markdown table.

Arms: "generic n" — hinge axes z, y, x, z, y, x, … in the rotated body frames, links along
x, centres of mass off the link axis, full tensors; "UR5-like" (6 joints, the UR5's
kinematics and masses) and "Panda-like" (7 joints, the Panda's modified-DH frames).
With --skewed, "skewed n" instead of "generic n": offsets in every direction (skewed()).
"""
import argparse
import math
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import timed  # noqa: E402

CXX = ["g++", "-std=c++17", "-O2"]
UNIT = {(1, 0, 0): "rotx", (0, 1, 0): "roty", (0, 0, 1): "rotz"}


def link(axis, pos=(0, 0, 0), fixed=None, mass=1.0, com=(0, 0, 0), inertia=(0.01, 0.01, 0.01, 0, 0, 0)):
    """One body: its origin at `pos` in the parent's frame, then the fixed rotation
    `fixed` = (axis, angle) if any, then a hinge about `axis` (in its own frame)."""
    return {"axis": axis, "pos": pos, "fixed": fixed, "mass": mass, "com": com, "inertia": inertia}


def generic(n):
    axes = [(0, 0, 1), (0, 1, 0), (1, 0, 0)]
    bodies = []
    for i in range(1, n + 1):
        bodies.append(link(axes[(i - 1) % 3], pos=(0.3 + 0.02 * (i - 1), 0, 0) if i > 1 else (0, 0, 0),
                           mass=1.0 + 0.1 * i, com=(0.12 + 0.01 * i, 0.02 * (i % 3), 0.01),
                           inertia=(0.010 + 0.001 * i, 0.012 + 0.001 * i, 0.008 + 0.001 * i, 0.0005, -0.0003, 0.0002)))
    return bodies


def skewed(n):
    """An arm with offsets in every direction: each link's origin has nonzero x, y and z
    components, every third body is turned by a fixed angle about a non-axis direction,
    hinge axes cycle z, y, x, centres of mass off every axis, full tensors."""
    axes = [(0, 0, 1), (0, 1, 0), (1, 0, 0)]
    turns = [(0.6, 0.0, 0.8), (0.0, 0.8, -0.6), (0.48, 0.6, 0.64)]
    bodies = []
    for i in range(1, n + 1):
        pos = (0.2 + 0.01 * i, 0.05 + 0.005 * (i % 4), -0.04 + 0.015 * (i % 5)) if i > 1 else (0.01, 0.02, 0.1)
        fixed = (turns[(i // 3) % 3], 0.3 + 0.05 * (i % 7)) if i % 3 == 2 else None
        bodies.append(link(axes[(i - 1) % 3], pos=pos, fixed=fixed, mass=0.8 + 0.07 * i,
                           com=(0.1 + 0.01 * i, 0.03 - 0.004 * (i % 5), 0.02 + 0.003 * (i % 3)),
                           inertia=(0.011 + 0.001 * i, 0.013 + 0.0008 * i, 0.009 + 0.0011 * i,
                                    0.0006, -0.0004, 0.0003)))
    return bodies


def ur5():
    # The UR5's joint layout (as in common MJCF descriptions of it): base about z, three
    # parallel joints about y, a wrist about z, the last about y; UR5 masses, link lengths.
    half = math.pi / 2
    return [
        link((0, 0, 1), pos=(0, 0, 0.089159), mass=3.7, com=(0, 0, 0), inertia=(0.010267, 0.010267, 0.00666, 0, 0, 0)),
        link((0, 1, 0), pos=(0, 0.13585, 0), fixed=((0, 1, 0), half), mass=8.393, com=(0, 0, 0.28),
             inertia=(0.22689, 0.22689, 0.0151074, 0.0002, -0.0004, 0.0001)),
        link((0, 1, 0), pos=(0, -0.1197, 0.425), mass=2.275, com=(0, 0, 0.25),
             inertia=(0.049443, 0.049443, 0.004095, -0.0001, 0.0002, 0.0003)),
        link((0, 1, 0), pos=(0, 0, 0.39225), fixed=((0, 1, 0), half), mass=1.219, com=(0, 0.01, 0),
             inertia=(0.111172, 0.111172, 0.21942, 0.0001, 0, -0.0002)),
        link((0, 0, 1), pos=(0, 0.093, 0), mass=1.219, com=(0, 0, 0.01),
             inertia=(0.111172, 0.111172, 0.21942, 0, 0.0001, 0)),
        link((0, 1, 0), pos=(0, 0, 0.09465), mass=0.1879, com=(0, 0.01, 0),
             inertia=(0.0171364, 0.0171364, 0.033822, 0.0001, -0.0001, 0.0001)),
    ]


def panda():
    # The Panda's modified-DH frames: every joint about its own z, frames turned by ±90°
    # about x; masses and full tensors close to the published identified values.
    h = math.pi / 2
    x = (1, 0, 0)
    z = (0, 0, 1)
    return [
        link(z, pos=(0, 0, 0.333), mass=4.970684, com=(0.003875, 0.002081, -0.04762),
             inertia=(0.70337, 0.70661, 0.0091170, -0.00013900, 0.0067720, 0.019169)),
        link(z, fixed=(x, -h), mass=0.646926, com=(-0.003141, -0.02872, 0.003495),
             inertia=(0.0079620, 0.028110, 0.025995, -0.0039250, 0.010254, 0.00070400)),
        link(z, pos=(0, -0.316, 0), fixed=(x, h), mass=3.228604, com=(0.027518, 0.039252, -0.066502),
             inertia=(0.037242, 0.036155, 0.010830, -0.0047610, -0.011396, -0.012805)),
        link(z, pos=(0.0825, 0, 0), fixed=(x, h), mass=3.587895, com=(-0.05317, 0.104419, 0.027454),
             inertia=(0.025853, 0.019552, 0.028323, 0.0077960, -0.0013320, 0.0086410)),
        link(z, pos=(-0.0825, 0.384, 0), fixed=(x, -h), mass=1.225946, com=(-0.011953, 0.041065, -0.038437),
             inertia=(0.035549, 0.029474, 0.0086270, -0.0021170, -0.0040370, 0.00022900)),
        link(z, fixed=(x, h), mass=1.666555, com=(0.060149, -0.014117, -0.010517),
             inertia=(0.0019640, 0.0043540, 0.0054330, 0.00010900, -0.0011580, 0.00034100)),
        link(z, pos=(0.088, 0, 0), fixed=(x, h), mass=0.735522, com=(0.010517, -0.004252, 0.061597),
             inertia=(0.012516, 0.010027, 0.0048150, -0.00042800, -0.0011960, -0.00074100)),
    ]


def iiwa():
    # An iiwa-14-like arm: the KUKA LBR iiwa 14's joint layout and link lengths from its
    # datasheet (0.36 m base to the second joint, 0.42 m to the fourth, 0.40 m to the sixth,
    # 0.126 m to the flange; every joint about its own z, frames turned by ±90° about x),
    # masses and centres of mass of the datasheet's order (29.9 kg in all, with the base),
    # and diagonal inertia tensors, as a URDF with ixy="0" gives them: every product of
    # inertia is a parameter whose default is written 0.0 (issue 31).
    h = math.pi / 2
    x = (1, 0, 0)
    z = (0, 0, 1)
    return [
        link(z, pos=(0, 0, 0.1575), mass=5.6, com=(0.0001, -0.03, 0.12), inertia=(0.033, 0.032, 0.012, 0, 0, 0)),
        link(z, pos=(0, 0, 0.2025), fixed=(x, h), mass=5.9, com=(0.0003, 0.059, 0.042),
             inertia=(0.031, 0.030, 0.011, 0, 0, 0)),
        link(z, pos=(0, 0.2045, 0), fixed=(x, -h), mass=3.2, com=(0.0002, 0.03, 0.13), inertia=(0.025, 0.024, 0.0076, 0, 0, 0)),
        link(z, pos=(0, 0, 0.2155), fixed=(x, h), mass=3.4, com=(0.0001, 0.067, 0.034), inertia=(0.017, 0.016, 0.0064, 0, 0, 0)),
        link(z, pos=(0, 0.1845, 0), fixed=(x, -h), mass=2.1, com=(0.0001, 0.021, 0.076),
             inertia=(0.010, 0.0087, 0.0045, 0, 0, 0)),
        link(z, pos=(0, 0, 0.2155), fixed=(x, h), mass=2.3, com=(0.0002, 0.0006, 0.0004), inertia=(0.0049, 0.0047, 0.0036, 0, 0, 0)),
        link(z, pos=(0, 0.081, 0), fixed=(x, -h), mass=0.8, com=(0.0001, 0.0002, 0.02), inertia=(0.0012, 0.0012, 0.0010, 0, 0, 0)),
    ]


def mjcf(name, bodies):
    def v(t):
        return " ".join(repr(float(x)) for x in t)

    lines = [f'<mujoco model="{name}">', '  <compiler angle="radian"/>', '  <option gravity="0 0 -9.81"/>',
             "  <worldbody>"]
    indent = "    "
    for i, b in enumerate(bodies, 1):
        fixed = f' axisangle="{v(b["fixed"][0])} {b["fixed"][1]!r}"' if b["fixed"] else ""
        lines.append(f'{indent}<body name="b{i}" pos="{v(b["pos"])}"{fixed}>')
        lines.append(f'{indent}  <joint name="j{i}" type="hinge" axis="{v(b["axis"])}"/>')
        lines.append(f'{indent}  <inertial pos="{v(b["com"])}" mass="{b["mass"]!r}" fullinertia="{v(b["inertia"])}"/>')
        indent += "  "
    for i in range(len(bodies), 0, -1):
        indent = indent[:-2]
        lines.append(f"{indent}</body>")
    lines += ["  </worldbody>", "</mujoco>"]
    return "\n".join(lines) + "\n"


def angle_text(angle):
    """A fixed turn as a .lag author writes it: a quarter or half turn as a multiple of pi
    (the MJCF has the double nearest to it; written as that double, cos would be 6e-17
    instead of 0 and every product would keep terms of that size)."""
    for k in (-2, -1, 1, 2):
        if abs(angle - k * math.pi / 2) < 1e-15:
            return {-2: "-pi", -1: "-pi/2", 1: "pi/2", 2: "pi"}[k]
    return repr(angle)


def lag(name, bodies, stored):
    """The same arm in .lag, with MuJoCo's stored inertial values (mass, centre of mass,
    tensor: `stored`, one tuple per body) as the parameters' defaults."""
    n = len(bodies)
    # A product of inertia the spec gives as 0 and MuJoCo stores as round-off (below 1e-15
    # of the tensor's diagonal; it diagonalises the tensor, and where another product is
    # not 0 its stored value of this one is not round-off) is written 0.0: the parameter
    # stays, its default is zero.
    stored = [tuple(0.0 if k >= 7 and b["inertia"][k - 4] == 0 and abs(x) < 1e-15 * max(s[4:7]) else x
                    for k, x in enumerate(s))
              for s, b in zip(stored, bodies)]
    out = [f"# {name}: generated by bench/arms3d.py from the MJCF of the same name (MuJoCo's stored",
           "# inertial values). Hinge joints, full inertia tensors, omega in body axes.", f"model {name}",
           "parameter g = 9.81"]
    for i, s in enumerate(stored, 1):
        m, cx, cy, cz, jxx, jyy, jzz, jxy, jxz, jyz = (repr(x) for x in s)
        out.append(f"parameter m{i} = {m}, cx{i} = {cx}, cy{i} = {cy}, cz{i} = {cz}")
        out.append(f"parameter Jxx{i} = {jxx}, Jyy{i} = {jyy}, Jzz{i} = {jzz}, Jxy{i} = {jxy}, Jxz{i} = {jxz}, Jyz{i} = {jyz}")
    out.append("coordinate " + ", ".join(f"q{i}" for i in range(1, n + 1)))
    out.append("input " + ", ".join(f"tau{i}" for i in range(1, n + 1)))
    for i, b in enumerate(bodies, 1):
        axis = tuple(b["axis"])
        turn = f"{UNIT[axis]}(q{i})" if axis in UNIT else f"rot([{', '.join(map(repr, axis))}], q{i})"
        if b["fixed"]:
            fa, angle = b["fixed"]
            turn = f"rot([{', '.join(map(repr, fa))}], {angle_text(angle)})*{turn}"
        out.append(f"let T{i} = {turn}")
        rate = "[" + ", ".join(f"{a!r}*der(q{i})" if a else "0" for a in axis) + "]"
        pos = "[" + ", ".join(repr(float(x)) for x in b["pos"]) + "]"
        if i == 1:
            out += ["let R1 = T1", f"let o1 = {pos}", f"let w1 = {rate}"]
        else:
            out += [f"let R{i} = R{i - 1}*T{i}", f"let o{i} = o{i - 1} + R{i - 1}*{pos}",
                    f"let w{i} = transpose(T{i})*w{i - 1} + {rate}"]
        out.append(f"let p{i} = o{i} + R{i}*[cx{i}, cy{i}, cz{i}]")
        out.append(f"let J{i} = [[Jxx{i}, Jxy{i}, Jxz{i}], [Jxy{i}, Jyy{i}, Jyz{i}], [Jxz{i}, Jyz{i}, Jzz{i}]]")
        out.append(f"kinetic 0.5*m{i}*dot(der(p{i}), der(p{i})) + 0.5*dot(w{i}, J{i}*w{i})")
        out.append(f"potential m{i}*g*p{i}[2]")
        out.append(f"force tau{i} on q{i}")
    return "\n".join(out) + "\n"


def instructions(exe, side, xml, work):
    """Callgrind instructions per forward-dynamics call: (1001 calls - 1 call) / 1000."""
    def total(calls):
        out = os.path.join(work, f"callgrind.{side}.{calls}.out")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", exe, "count", str(calls), side,
                        xml], capture_output=True, text=True, check=True)
        with open(out) as f:
            for line in f:
                if line.startswith("summary:") or line.startswith("totals:"):
                    return int(line.split()[1])
        raise RuntimeError("no callgrind total")
    return (total(1001) - total(1)) / 1000.0


def build(src, exe, defines=(), objs=()):
    r, seconds = timed(CXX + list(defines) + [src, *objs, "-o", exe, "-lmujoco"])
    if r.returncode != 0:
        raise RuntimeError(f"building {exe} failed:\n{r.stderr[-3000:]}")
    return seconds


def lagc_and_harness(lagc, model, d, name, timeout, extra=()):
    """lagc on `model` (a .lag or the MJCF) into d/NAME.cpp, g++ -O2 on it and the MuJoCo
    harness around it: (lagc's wall time, forward dynamics' operations, g++ time, harness)."""
    out = os.path.join(d, name + ".cpp")
    r, wall = timed([lagc, model, "-o", out, "--stats", "-w", *extra], timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-3000:])
    ops = int(re.search(r"dynamics_terms +operations \d+ before CSE, (\d+) after", r.stderr).group(1))
    r2, compile_s = timed(CXX + ["-c", out, "-o", out + ".o"])
    if r2.returncode != 0:
        raise RuntimeError(r2.stderr[-3000:])
    exe = os.path.join(d, "harness")
    build(os.path.join(HERE, "mujoco_harness.cpp"), exe,
          [f'-DLAGC_HEADER="{os.path.join(d, name + ".hpp")}"', f"-DLAGC_NS={name}"], [out + ".o"])
    return wall, ops, compile_s, exe


def write_arm(work, name, bodies):
    """WORK/NAME/NAME.xml and, from MuJoCo's stored inertial values, WORK/NAME/NAME.lag:
    (the directory, the MJCF, the .lag)."""
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    xml = os.path.join(d, name + ".xml")
    with open(xml, "w") as f:
        f.write(mjcf(name, bodies))
    dumper = os.path.join(work, "mujoco_dump")
    if not os.path.exists(dumper):
        build(os.path.join(HERE, "mujoco_harness.cpp"), dumper)
    stored = [tuple(float(x) for x in line.split())
              for line in subprocess.run([dumper, "dump", xml], capture_output=True, text=True, check=True).stdout.splitlines()]
    model = os.path.join(d, name + ".lag")
    with open(model, "w") as f:
        f.write(lag(name, bodies, stored))
    return d, xml, model


def one_arm(lagc, work, name, bodies, timeout):
    d, xml, model = write_arm(work, name, bodies)
    try:
        wall, ops, compile_s, exe = lagc_and_harness(lagc, model, d, name, timeout)
    except subprocess.TimeoutExpired:
        return {"timeout": True}
    agree = subprocess.run([exe, "check", xml], capture_output=True, text=True, check=True).stdout.split()
    res = {"timeout": False, "time": wall, "ops": ops, "compile": compile_s,
           "M": float(agree[0]), "h": float(agree[1]), "qdd": float(agree[2]), "tau": float(agree[3])}
    for side in ("lagc", "mujoco"):
        res["ns_" + side] = float(subprocess.run([exe, "time", side, xml], capture_output=True, text=True,
                                                 check=True).stdout)
        res["ir_" + side] = instructions(exe, side, xml, d)
    # Inverse dynamics: lagc's inverse_dynamics against MuJoCo's mj_rne with accelerations.
    for side in ("lagc_id", "mujoco_id"):
        res["ir_" + side] = instructions(exe, side, xml, d)
    res["imported"] = imported_arm(lagc, d, name, xml)
    return res


def imported_arm(lagc, d, name, xml):
    """The same MJCF file read by lagc itself (issue 33): the file's own inertial values as
    the parameters' defaults (not MuJoCo's diagonalised ones, so M agrees to MuJoCo's
    eigensolver's rounding where a tensor is full)."""
    sub = os.path.join(d, "imported")
    os.makedirs(sub, exist_ok=True)
    wall, ops, compile_s, exe = lagc_and_harness(lagc, xml, sub, name, None, ["--namespace", name])
    agree = subprocess.run([exe, "check", xml], capture_output=True, text=True, check=True).stdout.split()
    return {"time": wall, "ops": ops, "compile": compile_s, "qdd": float(agree[2]),
            "ir_lagc": instructions(exe, "lagc", xml, sub)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("lagc")
    ap.add_argument("work")
    ap.add_argument("--sizes", default="3,4,5,6,7,8,9,10,11,12")
    ap.add_argument("--no-named", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--skewed", action="store_true", help="arms with offsets in every direction (skewed(n))")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    family, kind = (skewed, "skewed") if args.skewed else (generic, "generic")
    cases = [(f"{kind}{n}" if args.skewed else f"arm{n}", f"{kind} {n}", family(n))
             for n in (int(s) for s in args.sizes.split(",") if s)]
    if not args.no_named:
        cases += [("ur5_like", "UR5-like (6)", ur5()), ("panda_like", "Panda-like (7)", panda()),
                  ("iiwa_like", "iiwa-like (7), zero products of inertia", iiwa())]
    print("| arm | lagc s | FD ops | g++ -O2 s | lagc ns | MuJoCo ns | lagc instr | MuJoCo instr | lagc/MuJoCo | "
          "M rel. diff | h rel. diff | qdd rel. diff | ID lagc instr | ID MuJoCo instr | ID lagc/MuJoCo | tau rel. diff |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    imported = []
    for name, label, bodies in cases:
        print(f"[arms3d] {label}", file=sys.stderr, flush=True)
        r = one_arm(args.lagc, args.work, name, bodies, args.timeout)
        if r["timeout"]:
            print(f"| {label} | > {args.timeout:.0f} | | | | | | | | | | | | | | |", flush=True)
            continue
        imported.append((label, r))
        print(f"| {label} | {r['time']:.2f} | {r['ops']} | {r['compile']:.1f} | {r['ns_lagc']:.0f} | {r['ns_mujoco']:.0f} | "
              f"{r['ir_lagc']:.0f} | {r['ir_mujoco']:.0f} | {r['ir_lagc'] / r['ir_mujoco']:.2f} | {r['M']:.1e} | "
              f"{r['h']:.1e} | {r['qdd']:.1e} | {r['ir_lagc_id']:.0f} | {r['ir_mujoco_id']:.0f} | "
              f"{r['ir_lagc_id'] / r['ir_mujoco_id']:.2f} | {r['tau']:.1e} |", flush=True)
    print()
    print("The same MJCF read by lagc (`lagc ARM.xml -o ARM.cpp`) against the hand-written .lag above:")
    print()
    print("| arm | lagc s hand / imported | FD ops hand / imported | g++ -O2 s hand / imported | FD instr hand / "
          "imported | imported / hand | imported / MuJoCo | imported qdd rel. diff |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for label, r in imported:
        i = r["imported"]
        print(f"| {label} | {r['time']:.2f} / {i['time']:.2f} | {r['ops']} / {i['ops']} | {r['compile']:.1f} / "
              f"{i['compile']:.1f} | {r['ir_lagc']:.0f} / {i['ir_lagc']:.0f} | {i['ir_lagc'] / r['ir_lagc']:.2f} | "
              f"{i['ir_lagc'] / r['ir_mujoco']:.2f} | {i['qdd']:.1e} |", flush=True)


if __name__ == "__main__":
    main()

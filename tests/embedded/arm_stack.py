#!/usr/bin/env python3
"""Stack and flash of each function of a linked Cortex-M program, libm included.

Reads `arm-none-eabi-objdump -d` of the ELF: a function's frame is what its prologue takes
(push and vpush of registers, sub sp, #N), its callees the targets of its bl and b.w
(tail calls); the stack of a function is its frame plus its deepest callee's, recursively.
Flash of a function: the bytes of every function it reaches (what linking only it costs,
libm included). Used by run_embedded.py; usage: arm_stack.py OBJDUMP ELF [NAME...]
"""
import re
import subprocess
import sys

HEADER = re.compile(r"^([0-9a-f]+) <(.+)>:$")
CALL = re.compile(r"\s(?:bl|b\.w|b)\s+[0-9a-f]+ <(.+)>\s*$")


def registers(listing):
    count = 0
    for r in listing.split(","):
        r = r.strip()
        size = 8 if r.startswith("d") else 4
        if "-" in r:
            a, b = r.split("-")
            count += (int(b[1:]) - int(a[1:]) + 1) * size
        elif r:
            count += size
    return count


def functions(objdump, elf):
    text = subprocess.run([objdump, "-d", "-C", "--no-show-raw-insn", elf], check=True, capture_output=True,
                          text=True).stdout
    funcs, name, start = {}, None, 0
    for line in text.splitlines():
        m = HEADER.match(line)
        if m:
            name, start = m.group(2), int(m.group(1), 16)
            funcs[name] = {"frame": 0, "callees": set(), "start": start, "end": start, "prologue": True}
            continue
        if name is None or not line.strip() or ":" not in line or line.startswith("Disassembly"):
            continue
        f = funcs[name]
        address = int(line.split(":")[0].strip(), 16)
        f["end"] = max(f["end"], address + 4)
        if f["prologue"]:
            if m := re.search(r"\s(?:push|stmdb\s+sp!,)(?:\.w)?\s+\{([^}]*)\}", line):
                f["frame"] += registers(m.group(1))
            elif m := re.search(r"\svpush\s+\{([^}]*)\}", line):
                f["frame"] += registers(m.group(1))
            elif m := re.search(r"\ssub(?:w|\.w)?\s+sp, (?:sp, )?#(\d+)", line):
                f["frame"] += int(m.group(1))
                f["prologue"] = False
        if m := CALL.search(line):
            if m.group(1) != name and not re.search(r"\+0x[0-9a-f]+$", m.group(1)):
                f["callees"].add(m.group(1))
    return funcs


# newlib's long range reduction of sin, cos and tan (Payne-Hanek), which --target mcu's
# detail::reduce_angle keeps them from: left out of the paths with skip=LONG_REDUCTION.
LONG_REDUCTION = frozenset({"__kernel_rem_pio2f", "__kernel_rem_pio2"})


def stack(funcs, name, memo, visiting=(), skip=frozenset()):
    if name in memo:
        return memo[name]
    f = funcs.get(name)
    if f is None or name in visiting or name in skip:
        return 0
    deepest = max([stack(funcs, c, memo, visiting + (name,), skip) for c in f["callees"]] or [0])
    memo[name] = f["frame"] + deepest
    return memo[name]


def flash(funcs, name):
    seen, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n in seen or n not in funcs:
            continue
        seen.add(n)
        todo.extend(funcs[n]["callees"])
    return sum(funcs[n]["end"] - funcs[n]["start"] for n in seen)


def main():
    funcs = functions(sys.argv[1], sys.argv[2])
    memo = {}
    for name in sys.argv[3:] or sorted(funcs):
        print(f"{name}\t{stack(funcs, name, memo)}\t{flash(funcs, name)}")


if __name__ == "__main__":
    main()

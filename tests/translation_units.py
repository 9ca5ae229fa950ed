#!/usr/bin/env python3
"""--translation-units N (issue 48): the source cut into N files that compile in parallel.

For each case, lagc writes the model twice, as one file (namespace `single`) and as N units
(namespace `split`). The units must
  - be exactly N files, NAME.cpp then NAME.2.cpp ... NAME.N.cpp, and lagc must write the
    same bytes again on a second run (deterministic);
  - define each of the single file's functions in exactly one unit (templates and inline
    helpers in every one): nothing lost, nothing defined twice;
  - each compile alone with g++ -std=c++17 -O2 -Wall -Wextra -Wpedantic -Werror
    -Wmissing-declarations (and clang++ -Wmissing-prototypes where installed), and link together with the single file into one program,
in which every API function the header declares (called with the same random inputs,
every array of both) gives the single file's results bit for bit, and its return value.
-o NAME.hpp, -o NAME.c, -o - and counts outside 1..64 are usage errors (exit 2, no file).

usage: translation_units.py LAGC SOURCE_DIR WORK_DIR
"""
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

LAGC, SOURCE, WORK = sys.argv[1:4]

# (name, file, extra lagc options, units)
CASES = [
    ("cart_pendulum", "models/cart_pendulum.lag", [], 2),
    ("four_bar", "models/four_bar.lag", ["--c-api"], 3),        # constraints, outputs, C wrappers
    ("arm_on_table", "models/arm_on_table.lag", ["--reuse-above", "0"], 3),  # late and cold helpers
    ("rolling_wheel", "models/rolling_wheel.lag", [], 2),      # quasi-velocities
    ("chain10_rel", "models/chain10_rel.lag", ["--split", "100"], 5),  # shared parts
    ("ur5", "tests/robots/ur5.urdf", ["--split", "200"], 4),    # articulated-body algorithm
]
DECLARED = re.compile(r"^(int|void|double|float) (\w+)\(([^)]*)\);", re.M)
DEFINED = re.compile(r"^(?:\[\[[^\]]*\]\] )*(?:static )?(?:LAGC_PART_NOINLINE )?(?:inline )?\w+ (\w+)\(", re.M)


def run(cmd, cwd=None):
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    return r.returncode, r.stdout + r.stderr


def argument(kind, name, arrays):
    """A call's argument for one parameter, or None for a type the harness does not know."""
    if kind == "const Parameters&":
        return "P{}"
    if kind == "double":
        return "0.01"
    if kind in ("const double*", "double*", "double* LAGC_RESTRICT"):
        arrays.append(name)
        return "a_" + name
    return None


def harness(header):
    """main(): each API function of both namespaces on the same random arrays, compared."""
    calls = []
    for result, name, params in DECLARED.findall(header):
        arrays, args = [], []
        for p in [p.strip() for p in params.split(",") if p.strip()]:
            kind, _, pname = p.rpartition(" ")
            args.append(argument(kind, pname.strip("/*"), arrays))
        if None in args:
            continue
        call = ", ".join(args)
        fill = "".join(f"fill(a_{a}, {k});" for k, a in enumerate(arrays))
        body = [f"    {{ // {name}"]
        body.append("".join(f"double a_{a}[N];" for a in arrays))
        ret = "" if result == "void" else "r = (double)"
        for ns, second in (("single", "false"), ("split", "true")):
            body.append(f"{{ using P = {ns}::Parameters; {fill} double r = 0; {ret}{ns}::{name}({call});"
                        f" keep(\"{name}\", {second}, r, {len(arrays)}, {', '.join('a_' + a for a in arrays) or 'nullptr'}); }}")
        body.append("}")
        calls.append("\n".join(body))
    return """#include "single.hpp"
#include "split.hpp"
#include <cstdio>
#include <cstring>
#include <random>
constexpr int N = 1 << 15;
static double kept[64][N];
static double kept_result;
static int failures = 0, compared = 0;
static void fill(double* a, int k) {
    std::mt19937 gen(1000 + k);
    std::uniform_real_distribution<double> r(-1, 1);
    for (int i = 0; i < N; ++i) a[i] = r(gen);
}
static void keep(const char* name, bool second, double r, int n, ...) {
    va_list ap;
    va_start(ap, n);
    for (int k = 0; k < n; ++k) {
        const double* a = va_arg(ap, const double*);
        if (!second) std::memcpy(kept[k], a, sizeof kept[k]);
        else if (std::memcmp(kept[k], a, sizeof kept[k]) != 0) { std::printf("%s: array %d differs\\n", name, k); ++failures; }
    }
    va_end(ap);
    if (!second) kept_result = r;
    else if (std::memcmp(&kept_result, &r, sizeof r) != 0) { std::printf("%s: result differs\\n", name); ++failures; }
    else ++compared;
}
int main() {
""".replace("#include <cstdio>", "#include <cstdarg>\n#include <cstdio>") + "\n".join(calls) + """
    std::printf("%d functions agree, %d differ\\n", compared, failures);
    return failures == 0 && compared > 0 ? 0 : 1;
}
"""


def definitions(text):
    """The functions a file defines (a unit's declarations of the others taken out)."""
    return [re.sub(r"^(single|split)_", "", f) for f in DEFINED.findall(re.sub(r'^\[\[gnu::__visibility__\("hidden"\)\]\][^;]*;\n', "", text, flags=re.M))]


def check(case):
    name, path, extra, n = case
    d = os.path.join(WORK, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    model = os.path.join(SOURCE, path)
    for ns, more in (("single", []), ("split", ["--translation-units", str(n)])):
        rc, text = run([LAGC, model, "-o", os.path.join(d, ns + ".cpp"), "--namespace", ns, "-w"] + extra + more)
        if rc != 0:
            return f"{name}: lagc failed: {text}"
    units = ["split.cpp"] + [f"split.{k}.cpp" for k in range(2, n + 1)]
    written = sorted(f for f in os.listdir(d) if f.startswith("split") and f.endswith(".cpp"))
    if written != sorted(units):
        return f"{name}: lagc wrote {written}, not {units}"
    texts = [open(os.path.join(d, u)).read() for u in units]
    os.makedirs(os.path.join(d, "again"), exist_ok=True)
    rc, again = run([LAGC, model, "-o", os.path.join(d, "again", "split.cpp"), "--namespace", "split", "-w",
                     "--translation-units", str(n)] + extra)
    for k, u in enumerate(units):
        if rc != 0 or open(os.path.join(d, "again", u)).read() != texts[k]:
            return f"{name}: a second run wrote {u} differently"
    single = open(os.path.join(d, "single.cpp")).read()
    want = sorted(definitions(single))
    got = collections.Counter(inline_or_template(texts[0]))
    for t in texts:
        got += collections.Counter(definitions(t)) - collections.Counter(inline_or_template(t))
    if got != collections.Counter(want):
        return f"{name}: the units define {sorted((got - collections.Counter(want)).elements())} more and " \
               f"{sorted((collections.Counter(want) - got).elements())} less than the single file"
    flags = ["g++", "-std=c++17", "-O2", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-Wmissing-declarations"]
    objects = []
    for u in units + ["single.cpp"]:
        rc, text = run(flags + ["-c", u, "-o", u + ".o"], cwd=d)
        if rc != 0:
            return f"{name}: {u} does not compile:\n{text[:1500]}"
        objects.append(u + ".o")
        if shutil.which("clang++") and u != "single.cpp":
            rc, text = run(["clang++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror",
                            "-Wmissing-prototypes", u], cwd=d)
            if rc != 0:
                return f"{name}: {u} is not clean under clang++:\n{text[:1500]}"
    with open(os.path.join(d, "agree.cpp"), "w") as f:
        f.write(harness(open(os.path.join(d, "split.hpp")).read()))
    rc, text = run(["g++", "-std=c++17", "-O1", "agree.cpp"] + objects + ["-o", "agree"], cwd=d)
    if rc != 0:
        return f"{name}: the units do not link with the harness:\n{text[:1500]}"
    rc, text = run(["./agree"], cwd=d)
    return None if rc == 0 else f"{name}: {text}"


def inline_or_template(text):
    """The functions every unit holds (templates, inline helpers)."""
    return re.findall(r"^(?:template <[^>]*>\n\w+|\[\[maybe_unused\]\] static (?:inline )?\w+) (\w+)\(", text, re.M)


def usage_errors():
    """Outputs that are not one C++ source, and counts out of 1..64: exit 2, no file."""
    d = os.path.join(WORK, "usage")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    model = os.path.join(SOURCE, "models/cart_pendulum.lag")
    failures = []
    for out, n, want in (("m.hpp", "2", "use -o NAME.cpp"), ("m.c", "2", "use -o NAME.cpp"),
                         ("-", "3", "use -o NAME.cpp"), ("m.cpp", "0", "from 1 to 64"), ("m.cpp", "65", "from 1 to 64")):
        target = out if out == "-" else os.path.join(d, out)
        rc, text = run([LAGC, model, "-o", target, "--translation-units", n])
        if rc != 2 or want not in text or os.listdir(d):
            failures.append(f"-o {out} --translation-units {n}: want exit 2 and '{want}', no file; got {rc}: {text}")
    return failures


def main():
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(check, CASES))
    failures = [r for r in results if r] + usage_errors()
    for f in failures:
        print("FAIL", f)
    print(f"{len(CASES)} cases, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

"""One model through lagc, the compilers and the property checker (tests/random/run.py)."""
import os
import re
import shutil
import subprocess
import time

import c_shim

CXXFLAGS = ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]
# The C output's own flags (tests/CMakeLists.txt builds the bundled models' so).
C_OUTPUT_FLAGS = CFLAGS + ["-Wconversion", "-Wdouble-promotion", "-O1"]
# A refusal must be a diagnostic at the model's text, never one of these: they are lagc's
# own failures leaking out (issue 46: "the derivation failed", "map::at", "out of memory").
INTERNAL = re.compile(r"derivation failed|past the doubles|internal|map::at|out of memory|std::|bad_alloc|"
                      r"what\(\)|assert|terminate", re.I)
DIAGNOSTIC = re.compile(r"^.+:\d+:\d+: error: ", re.M)
API = ["coriolis_matrix", "constraint_jacobian", "constraint_residuals", "constraint_velocity",
       "semi_implicit_system", "project_state", "inverse_dynamics_regressor", "input_matrix",
       "radau_step", "rk4_step_jacobian", "symplectic_euler_step_jacobian", "radau_step_jacobian"]
LAGC_TIMEOUT, CXX_TIMEOUT, RUN_TIMEOUT = 300, 600, 300


class Tools:
    def __init__(self, lagc, cxx, cc, here, c_output=False):
        self.lagc, self.cxx, self.cc, self.here = os.path.abspath(lagc), cxx, cc, here
        self.c_output = c_output  # the checker on the C output (-o NAME.c) instead of the C++


class Result:
    def __init__(self, path):
        self.path = path
        self.outcome = "ok"        # ok, refused, fault
        self.failures = []         # (check, message)
        self.runs = {}             # check -> times run
        self.seconds = 0.0
        self.note = ""

    def fault(self, check, message):
        self.outcome = "fault"
        self.failures.append((check, message.strip()[:2000]))

    def summary(self):
        head = f"{self.outcome:7s} {os.path.basename(self.path)} ({self.seconds:.1f} s)"
        if self.outcome == "fault":
            head += ": " + ", ".join(sorted({c for c, _ in self.failures}))
        elif self.note:
            head += ": " + self.note
        return head


def run(cmd, timeout, cwd=None):
    """(returncode, output); returncode None on a timeout."""
    try:
        p = subprocess.run(cmd, cwd=cwd, timeout=timeout, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace")
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"


def lagc(tools, res, model, out, extra, stage):
    """lagc on the model: its messages, or None (and a fault unless it is a clear refusal)."""
    quiet = [] if stage == "lagc" else ["-w"]   # the first run keeps its notes for model_flags
    rc, text = run([tools.lagc, model, "-o", out] + quiet + extra, LAGC_TIMEOUT)
    if rc == 0:
        return text
    if rc == 1 and stage == "lagc" and DIAGNOSTIC.search(text) and not INTERNAL.search(text):
        res.outcome, res.note = "refused", text.strip().splitlines()[0][:200]
        return None
    what = "a timeout" if rc is None else f"exit {rc}" if rc >= 0 else f"signal {-rc}"
    res.fault(f"lagc_{stage}", f"{what}: {text[-1500:]}")
    return None


def features(split_header, ho_header):
    """Feature flags for checker.cpp from the split header's declarations."""
    text = open(split_header, encoding="utf-8").read()
    defs = [f"LAGC_HAS_{fn}" for fn in API if re.search(rf"^\w+ {fn}\(", text, re.M)]
    if re.search(r"^void mass_matrix\(double t,", text, re.M):
        defs.append("LAGC_TIME")
    block = re.search(r"struct Parameters \{(.*?)\};", text, re.S)
    params = re.findall(r"double (\w+) =", block.group(1)) if block else []
    defs.append("LAGC_PARAMS(X)=" + "".join(f"X({p})" for p in params))
    outs = []
    for name, args in re.findall(r"^void output_(\w+)\((.*)\);", text, re.M):
        if name.endswith("_jacobian") or name.endswith("_drift"):
            continue
        kind = "XU" if "const double* u" in args else "XJ" if f"output_{name}_jacobian(" in text else "X"
        outs.append(f"{kind}({name})")
    defs.append("LAGC_OUTPUTS(X,XU,XJ)=" + "".join(outs))
    return defs, params


def model_flags(model, stderr_text):
    """Flags from the model's `# lagc-random:` comments (robot files: all properties hold)."""
    text = open(model, encoding="utf-8", errors="replace").read()
    defs, sets = [], {}
    if model.endswith(".lag"):
        meta = " ".join(re.findall(r"^# lagc-random: (.*)$", text, re.M))
        if "energy=1" in meta:
            defs.append("LAGC_ENERGY")
        if "m_from_t=1" in meta:
            defs.append("LAGC_M_FROM_T")
        sets = dict(re.findall(r"(\w+)=([-0-9.eE]+)", meta.split("set", 1)[1])) if " set " in f" {meta}" else {}
    else:
        defs += ["LAGC_ENERGY", "LAGC_M_FROM_T"]
    if "singular-mass-matrix" not in stderr_text:
        defs.append("LAGC_M_PD")
    defs.append("LAGC_SET_PARAMS(p)=" + "".join(f"p.{k}={v};" for k, v in sets.items()))
    return defs, sets


def compile_cxx(tools, res, form, cmd, cwd):
    rc, text = run(cmd, CXX_TIMEOUT, cwd)
    res.runs[f"compiles_{form}"] = res.runs.get(f"compiles_{form}", 0) + 1
    if rc != 0:
        res.fault(f"compile_{form}", text[-3000:])
        return False
    return True


def c_main(params_set):
    """A C99 program on the C interface: M and qdd at the checker's reference state."""
    sets = "".join(f"    p.{k} = {v};\n" for k, v in params_set.items())
    return f"""#include <stdio.h>
#include "rm.h"
int main(void) {{
    rm_parameters p;
    double q[rm_nq], qd[rm_nq], u[rm_nu + 1], qdd[rm_nq], lam[rm_nc + 1], M[rm_nq * rm_nq];
    int i, st;
    rm_default_parameters(&p);
{sets}    for (i = 0; i < rm_nq; ++i) {{ q[i] = 0.1 * (i + 1); qd[i] = -0.05 * i; }}
    for (i = 0; i <= rm_nu; ++i) u[i] = 0.3;
    rm_mass_matrix(TA q, &p, M);
    st = rm_forward_dynamics(TA q, qd, u, &p, qdd, lam);
    printf("%d", st);
    for (i = 0; i < rm_nq * rm_nq; ++i) printf(" %.17g", M[i]);
    for (i = 0; i < rm_nq; ++i) printf(" %.17g", qdd[i]);
    printf("\\n");
    return 0;
}}
"""


def numbers_close(a, b):
    """The C program's and the checker's reference lines: same status, values to 1e-13."""
    x, y = a.split(), b.split()
    if len(x) != len(y) or not x or x[0] != y[0]:
        return False
    for s, t in zip(x[1:], y[1:]):
        u, v = float(s), float(t)
        if not (abs(u - v) <= 1e-13 * max(1.0, abs(u), abs(v)) or (u != u and v != v)):
            return False
    return True


def forms(tools, res, model, work):
    """Every output form written and compiled; the flags for the checker, or None."""
    d = {k: os.path.join(work, k) for k in ("split", "capi", "ho", "float", "tmpl", "c")}
    for path in d.values():
        os.makedirs(path, exist_ok=True)
    first = lagc(tools, res, model, os.path.join(d["ho"], "rm.hpp"), ["--namespace", "rm"], "lagc")
    if first is None:
        return None
    same_output(tools, res, model, work, d["ho"])
    steps = [(os.path.join(d["split"], "rm.cpp"), ["--namespace", "rm"], "split"),
             (os.path.join(d["capi"], "rm.cpp"), ["--namespace", "rm", "--c-api"], "c_api"),
             (os.path.join(d["float"], "rm_f.hpp"), ["--namespace", "rm_f", "--scalar", "float"], "float"),
             (os.path.join(d["tmpl"], "rm_t.hpp"), ["--namespace", "rm_t", "--template"], "template")]
    # A form lagc refuses or a compiler rejects is a fault, but the double form's checks still
    # run without it: a wrong h was once seen only as a refused float form (a constant past
    # the floats), the pipeline having stopped there.
    written = set()
    for out, extra, stage in steps:
        if lagc(tools, res, model, out, extra, stage) is not None:
            written.add(stage)
    if "split" not in written:
        return None
    defs, params = features(os.path.join(d["split"], "rm.hpp"), os.path.join(d["ho"], "rm.hpp"))
    flags, sets = model_flags(model, first)
    compile_cxx(tools, res, "split", [tools.cxx] + CXXFLAGS + ["-c", "rm.cpp", "-o", "rm.o"], d["split"])
    own_name(tools, res, model, work)
    if "c_api" in written and compile_c_api(tools, res, d["capi"], sets, "LAGC_TIME" in defs):
        written.add("c_api_built")
    if tools.c_output and not c_output(tools, res, model, d["c"]):
        return None
    return defs + flags + [f"LAGC_NP={len(params)}"], d, written


def same_output(tools, res, model, work, ho):
    """A second process writes the same bytes (GiNaC orders terms by hashes seeded by
    addresses, which differ from run to run; what lagc writes must not)."""
    again = os.path.join(work, "again")
    os.makedirs(again, exist_ok=True)
    if lagc(tools, res, model, os.path.join(again, "rm.hpp"), ["--namespace", "rm"], "again") is None:
        return
    res.runs["deterministic_output"] = res.runs.get("deterministic_output", 0) + 1
    with open(os.path.join(ho, "rm.hpp"), "rb") as a, open(os.path.join(again, "rm.hpp"), "rb") as b:
        if a.read() != b.read():
            res.fault("deterministic_output", "two runs of lagc on the same file wrote different code")


def own_name(tools, res, model, work):
    """The header-only form under the model's own name (the other forms take --namespace):
    the name reaches the C++ as users meet it (model puts was a namespace g++ refused)."""
    own = os.path.join(work, "own")
    os.makedirs(own, exist_ok=True)
    if lagc(tools, res, model, os.path.join(own, "own.hpp"), [], "own_name") is None:
        return False
    with open(os.path.join(own, "own.cpp"), "w") as f:
        f.write('#include "own.hpp"\n')
    return compile_cxx(tools, res, "own_name", [tools.cxx] + CXXFLAGS + ["-fsyntax-only", "own.cpp"], own)


def c_output(tools, res, model, c):
    """-o rm.c: C99 compiled with every warning an error, and the C++ shim the checker includes."""
    if lagc(tools, res, model, os.path.join(c, "rm.c"), ["--namespace", "rm"], "c_output") is None:
        return False
    with open(os.path.join(c, "rm_shim.hpp"), "w", encoding="utf-8") as f:
        f.write(c_shim.shim(os.path.join(c, "rm.h")))
    return compile_cxx(tools, res, "c_output_c99", [tools.cc] + C_OUTPUT_FLAGS + ["-c", "rm.c", "-o", "rm.o"], c)


def compile_c_api(tools, res, capi, sets, timed):
    with open(os.path.join(capi, "main.c"), "w") as f:
        f.write(c_main(sets))
    ta = "-DTA=0.3," if timed else "-DTA="
    ok = compile_cxx(tools, res, "c_api_cpp", [tools.cxx] + CXXFLAGS + ["-c", "rm.cpp", "-o", "rm.o"], capi)
    ok = ok and compile_cxx(tools, res, "c_api_h_c99", [tools.cc] + CFLAGS + [ta, "-c", "main.c", "-o", "main.o"], capi)
    ok = ok and compile_cxx(tools, res, "c_api_link", [tools.cxx, "rm.o", "main.o", "-o", "c_main"], capi)
    return ok


def checker(tools, res, defs, d, seed, states, written):
    """Build checker.cpp on the header-only form, with the float and template forms where
    lagc wrote them; run it."""
    exe = os.path.join(d["ho"], "checker")
    header = ["-I", d["c"], '-DLAGC_HEADER="rm_shim.hpp"'] if tools.c_output else ["-I", d["ho"], '-DLAGC_HEADER="rm.hpp"']
    cmd = [tools.cxx] + CXXFLAGS + ["-Wdouble-promotion", "-O1", "-I", tools.here] + header + ["-DLAGC_NS=rm"]
    if "float" in written:
        cmd += ["-I", d["float"], '-DLAGC_FLOAT_HEADER="rm_f.hpp"', "-DLAGC_NS_F=rm_f"]
    if "template" in written:
        cmd += ["-I", d["tmpl"], '-DLAGC_TEMPLATE_HEADER="rm_t.hpp"', "-DLAGC_NS_T=rm_t"]
    cmd += [f"-D{x}" for x in defs] + [os.path.join(tools.here, "checker.cpp"), "-o", exe]
    if tools.c_output:
        cmd.insert(-2, os.path.join(d["c"], "rm.o"))
    if not compile_cxx(tools, res, "header_only_float_template_checker", cmd, d["ho"]):
        return
    rc, text = run([exe, str(seed), str(states)], RUN_TIMEOUT)
    for check, n in re.findall(r"^RUN (\S+) (\d+)$", text, re.M):
        res.runs[check] = res.runs.get(check, 0) + int(n)
    for check, what in re.findall(r"^FAIL (\S+): (.*)$", text, re.M):
        res.fault(check, what)
    if rc not in (0, 1) or (rc == 1 and not res.failures):
        res.fault("checker_crashed", f"exit {rc}: {text[-1500:]}")
    if "c_api_built" in written:
        compare_c_api(tools, res, exe, d["capi"])


def compare_c_api(tools, res, exe, capi):
    rc1, ref = run([exe, "1", "1", "--reference"], RUN_TIMEOUT)
    rc2, got = run([os.path.join(capi, "c_main")], RUN_TIMEOUT)
    res.runs["c_api_matches_cxx"] = res.runs.get("c_api_matches_cxx", 0) + 1
    if rc1 != 0 or rc2 != 0 or not numbers_close(ref.strip(), got.strip()):
        res.fault("c_api_matches_cxx", f"C: {got.strip()[:300]} C++: {ref.strip()[:300]}")


def run_one(tools, model, work_root, states, keep=False):
    """Everything for one file; its Result."""
    res, start = Result(model), time.time()
    name = re.sub(r"\W", "_", os.path.basename(model))
    work = os.path.join(work_root, "runs", name)
    shutil.rmtree(work, ignore_errors=True)
    got = forms(tools, res, model, work)
    if got:
        seed = sum(map(ord, name)) % 100000
        checker(tools, res, got[0], got[1], seed, states, got[2])
    res.seconds = time.time() - start
    if res.outcome != "fault" and not keep:
        shutil.rmtree(work, ignore_errors=True)
    return res


STATEMENTS = ["parameter", "coordinate", "input", "let", "kinetic", "potential", "lagrangian",
              "dissipation", "force", "torque", "constraint", "baumgarte", "output"]


def coverage(paths):
    """Which statements and built-ins the models used, and in how many models each."""
    from gen_lag import BUILTINS
    texts = [open(p, encoding="utf-8").read() for p in paths]
    counts = []
    for word in STATEMENTS:
        counts.append((word, sum(bool(re.search(rf"^{word}\b", t, re.M)) for t in texts)))
    counts.append(("force..at", sum(bool(re.search(r"^force .* at ", t, re.M)) for t in texts)))
    counts.append(("t", sum(bool(re.search(r"\bt\b", "\n".join(l for l in t.splitlines() if not l.startswith("#"))))
                            for t in texts)))
    for fn in BUILTINS:
        counts.append((fn + "()", sum(bool(re.search(rf"\b{fn}\(", t)) for t in texts)))
    missing = [w for w, n in counts if n == 0]
    line = ", ".join(f"{w} {n}" for w, n in counts)
    return line + (f"\n  NOT COVERED: {', '.join(missing)}" if missing else "")

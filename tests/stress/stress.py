#!/usr/bin/env python3
"""Long stress run for lagc's robustness (issue 10); not part of the test suite.

  python3 tests/stress/stress.py --lagc build/lagc [--mutants 10000] [--races 500] [--signals 100]

1. Mutants: random mutations of the bundled models (bytes, tokens, lines, huge numbers,
   deep nesting) compiled under a 1 GiB address-space limit and a 10 s wall clock. Any
   signal, timeout or exit status other than 0/1 is a failure; a sample of the accepted
   ones is compiled with g++ -std=c++17 -Wall -Wextra -Werror (no broken C++).
2. Races: two lagc writing one .cpp/.hpp pair at once, from two different models; the
   pair left must be whole and from one run, with no temporary file left.
3. Signals: SIGINT or SIGTERM at a random time during a run that replaces a pair; the
   pair left must be the old one or the new one, with no temporary file left.
Prints a summary line per part and exits 1 if anything failed.
"""
import argparse, glob, os, random, resource, shutil, signal, subprocess, sys, tempfile, time

TOKENS = ["(", ")", "[", "]", "^", "*", "/", "+", "-", ",", "=", "der(", "sin(", "sqrt(", "log(", "asin(",
          "exp(", "1e308", "1e309", "1e-400", "2^64", "10^12", "0", "-1", "x", "t", "pi", "\n", "#", "\t",
          "rotz(", "transpose(", "dot(", "cross(", "norm(", "[[1,0],[0,1]]", "999999999999999999999",
          "let ", "kinetic ", "potential ", "constraint ", "force ", " on ", " at ", "output ", "parameter ",
          "coordinate ", "input ", "baumgarte alpha = ", "model ", "NAN", "gamma", "\xce\xb8", "\x00", "\r"]

def limits():
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (20, 20))

def mutate(text, rng):
    data = text
    for _ in range(rng.randint(1, 6)):
        kind = rng.random()
        pos = rng.randint(0, len(data))
        if kind < 0.25 and data:
            data = data[:pos] + data[pos + 1:]
        elif kind < 0.55:
            data = data[:pos] + rng.choice(TOKENS) + data[pos:]
        elif kind < 0.70:
            lines = data.split("\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            if rng.random() < 0.5:
                lines[i], lines[j] = lines[j], lines[i]
            else:
                lines.insert(j, lines[i])
            data = "\n".join(lines)
        elif kind < 0.80:
            n = rng.randint(50, 400)
            data = data[:pos] + "(" * n + "x" + ")" * n + data[pos:]
        elif kind < 0.90 and data:
            end = min(len(data), pos + rng.randint(1, 40))
            data = data[:pos] + data[pos:end] * rng.randint(2, 30) + data[end:]
        else:
            data = data[:pos] + chr(rng.randint(0, 255)) + data[pos:]
    return data

def run(args, timeout, **kw):
    start = time.monotonic()
    try:
        p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                           preexec_fn=limits, **kw)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - start
    except subprocess.TimeoutExpired:
        return None, b"", b"", time.monotonic() - start

def mutants(lagc, count, rng, work):
    models = [open(f, encoding="latin-1").read() for f in sorted(glob.glob(os.path.join(ROOT, "models", "*.lag")))]
    failures, accepted, compiled, slowest = [], 0, 0, 0.0
    statuses = {}
    for k in range(count):
        text = mutate(rng.choice(models), rng)
        rc, out, err, seconds = run([lagc, "-", "-o", "-"], 10, input=text.encode("latin-1"))
        slowest = max(slowest, seconds)
        statuses[rc] = statuses.get(rc, 0) + 1
        if rc not in (0, 1) or b"GNU MP" in err or b"std::bad_alloc" in err:
            path = os.path.join(work, "failure_%d.lag" % k)
            open(path, "w", encoding="latin-1").write(text)
            failures.append((path, rc, err[-300:]))
            continue
        if rc == 0:
            accepted += 1
            if accepted % 25 == 1:  # a sample of what was accepted must compile cleanly
                header = os.path.join(work, "accepted.hpp")
                open(header, "wb").write(out)
                src = os.path.join(work, "accepted.cpp")
                open(src, "w").write('#include "accepted.hpp"\n')
                c = subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only", src],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                compiled += 1
                if c.returncode != 0:
                    path = os.path.join(work, "broken_cpp_%d.lag" % k)
                    open(path, "w", encoding="latin-1").write(text)
                    failures.append((path, "g++", c.stderr[-300:]))
    print("mutants: %d runs, exit statuses %s, %d accepted (%d compiled with g++ -Werror), slowest %.2f s, %d failures"
          % (count, {str(k): v for k, v in sorted(statuses.items(), key=lambda kv: str(kv[0]))}, accepted, compiled,
             slowest, len(failures)))
    for f in failures[:20]:
        print("  FAIL", f)
    return not failures

def leftovers(d):
    return [n for n in os.listdir(d) if ".lagc-tmp" in n or ".lagc-bak" in n]

MODEL_A = "model alpha\nparameter m = 1\ncoordinate x\nkinetic 0.5*m*der(x)^2\npotential x^2\n"
MODEL_B = "model beta\nparameter k = 2\ncoordinate y, z\nkinetic 0.5*der(y)^2 + 0.5*der(z)^2\npotential k*y^4 + cos(z)\n"

def pair_ok(d):
    """x.hpp and x.cpp exist, are whole, and come from one model (one namespace)."""
    import re
    try:
        hpp = open(os.path.join(d, "x.hpp")).read()
        cpp = open(os.path.join(d, "x.cpp")).read()
    except FileNotFoundError:
        return False
    m = re.search(r"^namespace (\w+) \{", hpp, re.M)
    if not m:
        return False
    end = "}  // namespace %s" % m.group(1)
    return ("namespace %s {" % m.group(1)) in cpp and hpp.rstrip().endswith(end) and cpp.rstrip().endswith(end)

def races(lagc, count, work):
    d = os.path.join(work, "races"); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "a.lag"), "w").write(MODEL_A)
    open(os.path.join(d, "b.lag"), "w").write(MODEL_B)
    bad = 0
    for _ in range(count):
        ps = [subprocess.Popen([lagc, os.path.join(d, m), "-o", os.path.join(d, "x.cpp")], stderr=subprocess.PIPE)
              for m in ("a.lag", "b.lag")]
        codes = [p.wait() for p in ps]
        for p in ps: p.stderr.close()
        if codes != [0, 0] or not pair_ok(d) or leftovers(d):
            bad += 1
    print("races: %d two-writer races, %d with a torn or mixed pair, a failed writer or a temporary left" % (count, bad))
    return bad == 0

def signals(lagc, count, rng, work):
    d = os.path.join(work, "signals"); os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "a.lag"), "w").write(MODEL_A)
    # The second model is the 10-link chain: 200 KB of output, so writing takes a while.
    shutil.copy(os.path.join(ROOT, "models", "chain10_rel.lag"), os.path.join(d, "b.lag"))
    subprocess.run([lagc, os.path.join(d, "a.lag"), "-o", os.path.join(d, "x.cpp")], check=True)
    # How long one run takes, to spread the signals over it (and a little past its end).
    t0 = time.monotonic()
    subprocess.Popen([lagc, os.path.join(d, "b.lag"), "-o", os.path.join(d, "y.cpp")]).wait()
    span = time.monotonic() - t0
    bad, killed = 0, 0
    for k in range(count):
        p = subprocess.Popen([lagc, os.path.join(d, "a.lag" if k % 2 else "b.lag"), "-o", os.path.join(d, "x.cpp")],
                             stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0, span * 1.3))
        p.send_signal(rng.choice([signal.SIGINT, signal.SIGTERM]))
        if p.wait() < 0: killed += 1
        if not pair_ok(d) or leftovers(d):
            bad += 1
    print("signals: %d signals at random times (one run takes %.0f ms; %d runs ended by the signal), %d left a "
          "mixed pair or a temporary" % (count, span * 1000, killed, bad))
    return bad == 0

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lagc", default=os.path.join(ROOT, "build", "lagc"))
    ap.add_argument("--mutants", type=int, default=10000)
    ap.add_argument("--races", type=int, default=500)
    ap.add_argument("--signals", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="lagc-stress-")
    lagc = os.path.abspath(a.lagc)
    ok = mutants(lagc, a.mutants, rng, work)
    ok = races(lagc, a.races, work) and ok
    ok = signals(lagc, a.signals, rng, work) and ok
    print("stress: %s (work files in %s)" % ("all passed" if ok else "FAILURES", work))
    sys.exit(0 if ok else 1)

if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""radau_step_jacobian against a dual-number derivative of radau_step, and against RK4's.

usage: python3 bench/radau_jacobian.py LAGC_EXECUTABLE WORK_DIR
Issue 50's user differentiated radau_step by running lagc's `--template` code through a
dual-number type. For the stiff kites (models/stiff_kite.lag, no input, and the MPC
example's examples/kite_mpc/kite.lag, one input) and the double pendulum: callgrind
instructions per call (g++ -O2, dt = 10 ms) of rk4_step, rk4_step_jacobian, radau_step,
radau_step_jacobian, and radau_step<dual> with 2 nq + nu directions (forward mode through
Newton's iterations: the same step, differentiated as it runs), and the largest difference
between the dual numbers' Jacobian and radau_step_jacobian's. Run by bench/run.sh; needs
valgrind.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import instructions_per_call, model_sizes  # noqa: E402

# A forward-mode dual number with D directions: what the templated code needs of its T.
DUAL = r"""
#include <cmath>
template <int D>
struct dual {
    double v = 0, d[D] = {};
    dual() = default;
    dual(double x) : v(x) {}
    dual(int x) : v(x) {}
};
#define DUAL_OP(op, value, derivative)                                                   \
    template <int D> dual<D> operator op(dual<D> const& a, dual<D> const& b) {            \
        dual<D> r; r.v = value; for (int i = 0; i < D; ++i) r.d[i] = derivative; return r; }  \
    template <int D> dual<D> operator op(dual<D> const& a, double y) { return a op dual<D>(y); } \
    template <int D> dual<D> operator op(double x, dual<D> const& b) { return dual<D>(x) op b; }
DUAL_OP(+, a.v + b.v, a.d[i] + b.d[i])
DUAL_OP(-, a.v - b.v, a.d[i] - b.d[i])
DUAL_OP(*, a.v * b.v, a.d[i] * b.v + a.v * b.d[i])
DUAL_OP(/, a.v / b.v, (a.d[i] * b.v - a.v * b.d[i]) / (b.v * b.v))
#define DUAL_ASSIGN(op) \
    template <int D> dual<D>& operator op##=(dual<D>& a, dual<D> const& b) { return a = a op b; }
DUAL_ASSIGN(+) DUAL_ASSIGN(-) DUAL_ASSIGN(*) DUAL_ASSIGN(/)
template <int D> dual<D> operator-(dual<D> const& a) { return 0.0 - a; }
#define DUAL_CMP(op) \
    template <int D> bool operator op(dual<D> const& a, dual<D> const& b) { return a.v op b.v; } \
    template <int D> bool operator op(dual<D> const& a, double b) { return a.v op b; } \
    template <int D> bool operator op(double a, dual<D> const& b) { return a op b.v; }
DUAL_CMP(<) DUAL_CMP(>) DUAL_CMP(<=) DUAL_CMP(>=) DUAL_CMP(==) DUAL_CMP(!=)
template <int D> dual<D> unary(dual<D> const& a, double v, double slope) {
    dual<D> r; r.v = v; for (int i = 0; i < D; ++i) r.d[i] = slope * a.d[i]; return r; }
template <int D> dual<D> sqrt(dual<D> const& a) { double s = std::sqrt(a.v); return unary(a, s, 0.5 / s); }
template <int D> dual<D> sin(dual<D> const& a) { return unary(a, std::sin(a.v), std::cos(a.v)); }
template <int D> dual<D> cos(dual<D> const& a) { return unary(a, std::cos(a.v), -std::sin(a.v)); }
template <int D> dual<D> fabs(dual<D> const& a) { return unary(a, std::fabs(a.v), a.v < 0 ? -1.0 : 1.0); }
template <int D> dual<D> fmax(dual<D> const& a, dual<D> const& b) { return a.v >= b.v ? a : b; }
template <int D> bool isfinite(dual<D> const& a) { return std::isfinite(a.v); }
"""

HARNESS = r"""
#include "{name}_t.hpp"
#include "{name}.hpp"
#include <cstdio>
#include <cstdlib>
#include <cstring>
namespace ns = {name};
constexpr int n = 2 * ns::nq, m = ns::nu > 0 ? ns::nu : 1, D = n + ns::nu;
using T = dual<D>;
int main(int argc, char** argv) {{
    // usage: harness rk4|rk4_jacobian|radau|radau_jacobian|dual|compare count N
    std::string const mode = argv[1];
    int const calls = std::atoi(argv[3]);
    ns::Parameters p;
    {name}_t::Parameters pt;
    double x0[n], x[n], u[m];
    static double Ad[n * n], Bd[n * m];
    for (int i = 0; i < ns::nq; ++i) x0[i] = 0.1 + 0.05 * i, x0[ns::nq + i] = 0.2 - 0.03 * i;
    {start}
    for (int i = 0; i < m; ++i) u[i] = 0.1 * (i + 1);
    double checksum = 0, worst = 0;
    for (int k = 0; k < calls; ++k) {{
        for (int i = 0; i < n; ++i) x[i] = x0[i];
        int status = 0;
        if (mode == "rk4") status = ns::rk4_step(x, u, p, 0.01);
        else if (mode == "rk4_jacobian") status = ns::rk4_step_jacobian(x, u, p, 0.01, Ad, Bd);
        else if (mode == "radau") status = ns::radau_step(x, u, p, 0.01);
        else if (mode == "radau_jacobian" || mode == "compare") status = ns::radau_step_jacobian(x, u, p, 0.01, Ad, Bd);
        if (mode == "dual" || mode == "compare") {{
            T xt[n], ut[m];
            for (int i = 0; i < n; ++i) xt[i] = x0[i], xt[i].d[i] = 1;
            for (int i = 0; i < ns::nu; ++i) ut[i] = u[i], ut[i].d[n + i] = 1;
            status = {name}_t::radau_step<T>(xt, ut, pt, T(0.01));
            for (int i = 0; i < n; ++i) checksum += xt[i].d[k % D];
            if (mode == "compare")
                for (int i = 0; i < n; ++i) {{
                    for (int j = 0; j < n; ++j) worst = std::fmax(worst, std::fabs(xt[i].d[j] - Ad[i * n + j]) / (1 + std::fabs(Ad[i * n + j])));
                    for (int j = 0; j < ns::nu; ++j) worst = std::fmax(worst, std::fabs(xt[i].d[n + j] - Bd[i * ns::nu + j]) / (1 + std::fabs(Bd[i * ns::nu + j])));
                }}
        }}
        if (status != 0) return 1;
        checksum += x[k % n] + Ad[k % (n * n)];
        x0[0] += 1e-9;
    }}
    if (mode == "compare") std::printf("%.3g\n", worst);
    else std::printf("%.17g\n", checksum);
    return 0;
}}
"""

KITE_START = "x0[0] = 9.99; x0[1] = 0.3; ns::project_state(x0, x0 + ns::nq, p);"
CASES = [("stiff_kite", "models/stiff_kite.lag", KITE_START), ("kite", "examples/kite_mpc/kite.lag", KITE_START),
         ("double_pendulum", "models/double_pendulum.lag", "")]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    lagc, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "dual.hpp"), "w") as f:
        f.write(DUAL)
    print("| model | nq | nu | rk4_step | rk4_step_jacobian | radau_step | radau_step_jacobian | "
          "radau_step on duals | duals / exact | largest difference |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, path, start in CASES:
        model = os.path.join(HERE, "..", path)
        header = os.path.join(work, name + ".hpp")
        subprocess.run([lagc, model, "-o", header, "-w"], check=True, capture_output=True)
        templated = os.path.join(work, name + "_t.hpp")
        subprocess.run([lagc, model, "-o", templated, "-w", "--template", "--namespace", name + "_t"], check=True,
                       capture_output=True)
        src = os.path.join(work, name + "_radau.cpp")
        with open(src, "w") as f:
            f.write('#include "dual.hpp"\n#include <string>\n' + HARNESS.format(name=name, start=start))
        exe = os.path.join(work, name + "_radau")
        subprocess.run(["g++", "-std=c++17", "-O2", "-I", work, src, "-o", exe], check=True)
        sizes = model_sizes(header)
        cost = {mode: instructions_per_call(exe, work, (mode,))
                for mode in ("rk4", "rk4_jacobian", "radau", "radau_jacobian", "dual")}
        diff = subprocess.run([exe, "compare", "count", "1"], capture_output=True, text=True, check=True).stdout.strip()
        print(f"| {name} | {sizes['nq']} | {sizes['nu']} | {cost['rk4']:.0f} | {cost['rk4_jacobian']:.0f} | "
              f"{cost['radau']:.0f} | {cost['radau_jacobian']:.0f} | {cost['dual']:.0f} | "
              f"{cost['dual'] / cost['radau_jacobian']:.2f} | {diff} |", flush=True)


if __name__ == "__main__":
    main()

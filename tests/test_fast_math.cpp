// Status checks that survive -ffast-math (issue 52): every bundled model's generated code and
// this file are compiled with -O2 -ffast-math (tests/CMakeLists.txt), where GCC folds
// std::isfinite to true and x * 0 to 0. NaN and Inf are fed into q, qd, u, the parameters, t,
// dt and zoh_discretization's A; every function that returns a status must then keep its
// contract: 0 only with finite outputs (checked here on the bits), and non-zero when every
// input is NaN or Inf.
#include "all_models.inc"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace fallback {
// Chosen only where a model has no function of that name or signature (an exact match in the
// model's namespace wins over a template): project_state without constraints, and the
// signatures with t of a model without time, or without t of a model with time.
constexpr int absent = -1000;
template <class... A>
int forward_dynamics(A...) { return absent; }
template <class... A>
int state_derivative(A...) { return absent; }
template <class... A>
int linearization(A...) { return absent; }
template <class... A>
int rk4_step(A...) { return absent; }
template <class... A>
int symplectic_euler_step(A...) { return absent; }
template <class... A>
int radau_step(A...) { return absent; }
template <class... A>
int rk4_step_jacobian(A...) { return absent; }
template <class... A>
int symplectic_euler_step_jacobian(A...) { return absent; }
template <class... A>
int radau_step_jacobian(A...) { return absent; }
template <class... A>
double project_state(A...) { return absent; }
} // namespace fallback

namespace {

// Finite by the bits: this file is compiled with -ffast-math too.
bool finite(double x) {
    std::uint64_t bits;
    std::memcpy(&bits, &x, sizeof bits);
    return (bits & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
}
bool all_finite(std::vector<double> const& v, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
        if (!finite(v[i])) return false;
    return true;
}
double bad_value(int which) {
    if (which == 0) return std::numeric_limits<double>::quiet_NaN();
    return which == 1 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
}

// Where the bad values go: one input at a time, or every input at once.
enum class slot { q, qd, u, p, t, dt, all };
char const* slot_name(slot s) {
    switch (s) {
    case slot::q: return "q";
    case slot::qd: return "qd";
    case slot::u: return "u";
    case slot::p: return "parameters";
    case slot::t: return "t";
    case slot::dt: return "dt";
    case slot::all: return "everything";
    }
    return "";
}

// The inputs of one case, and what the functions report.
struct inputs {
    int nq, nu;
    std::vector<double> q, qd, u, x;
    double t = 0.25, dt = 0.01;
    inputs(int nq_, int nu_, slot s, double bad) : nq(nq_), nu(nu_), q(nq_ + 1), qd(nq_ + 1), u(nu_ + 1) {
        for (int i = 0; i < nq; ++i) q[i] = 0.1 * (i + 1), qd[i] = 0.05 * (i + 1);
        for (int i = 0; i < nu; ++i) u[i] = 0.2;
        bool const all = s == slot::all;
        if (s == slot::q || all)
            for (int i = 0; i < nq; ++i) q[i] = bad;
        if (s == slot::qd || all)
            for (int i = 0; i < nq; ++i) qd[i] = bad;
        if (s == slot::u || all)
            for (int i = 0; i < nu; ++i) u[i] = bad;
        if (s == slot::t || all) t = bad;
        if (s == slot::dt || all) dt = bad;
        x.assign(2 * nq + 1, 0.0);
        for (int i = 0; i < nq; ++i) x[i] = q[i], x[nq + i] = qd[i];
    }
};

struct report {
    std::string model, where;
    int calls = 0, refused = 0;
    // status 0 must come with finite outputs; with every input bad, status must be non-zero.
    void check(char const* function, int status, bool outputs_finite, bool must_refuse) {
        if (status == fallback::absent) return;
        ++calls;
        if (status != 0) ++refused;
        EXPECT_TRUE(status != 0 || outputs_finite)
            << model << "::" << function << " returned 0 with outputs that are not finite, " << where;
        if (must_refuse) EXPECT_NE(status, 0) << model << "::" << function << " returned 0, " << where;
    }
};

// Parameters as an array of doubles (every field of a generated Parameters is one).
template <class P>
void set_parameters(P& p, double value) {
    std::vector<double> v(sizeof(P) / sizeof(double), value);
    if (!v.empty()) std::memcpy(static_cast<void*>(&p), v.data(), v.size() * sizeof(double));
}

} // namespace

// Every status function of model `name`, with or without t as the model has it.
#define LAGC_FAST_MATH_CASE(name)                                                                                   \
    namespace probe_##name {                                                                                        \
    using namespace ::name;                                                                                         \
    using namespace ::fallback;                                                                                     \
    void run(report& r, slot s, double bad) {                                                                      \
        inputs in(nq, nu, s, bad);                                                                                  \
        Parameters p;                                                                                               \
        if (s == slot::p || s == slot::all) set_parameters(p, bad);                                                 \
        const Parameters& cp = p;                                                                                   \
        const double *q = in.q.data(), *qd = in.qd.data(), *u = in.u.data(), *cx = in.x.data();                    \
        std::size_t const n = 2 * nq, big = 4 * (n + 1) * (n + 1);                                                  \
        std::vector<double> a(big), b(big), c(big), d(big), x = in.x;                                               \
        double* const lambda = nc > 0 ? c.data() : static_cast<double*>(nullptr);                                  \
        double const t = in.t, dt = in.dt;                                                                          \
        bool const all = s == slot::all;                                                                            \
        auto timed = [&](auto f, auto... args) { int const v = f(t, args...); return v != absent ? v : f(args...); }; \
        /* Each status taken before its outputs are looked at (arguments have no order). */                      \
        int status = timed([](auto... v) { return forward_dynamics(v...); }, q, qd, u, cp, a.data(), lambda);      \
        r.check("forward_dynamics", status, all_finite(a, nq) && all_finite(c, nc), all);                          \
        status = timed([](auto... v) { return state_derivative(v...); }, cx, u, cp, a.data());                     \
        r.check("state_derivative", status, all_finite(a, n), all);                                                 \
        status = timed([](auto... v) { return linearization(v...); }, q, qd, u, cp, a.data(), b.data());           \
        r.check("linearization", status, all_finite(a, n * n) && all_finite(b, n * nu), all);                      \
        for (int k = 0; k < 6; ++k) {                                                                               \
            x = in.x;                                                                                               \
            char const* names[] = {"rk4_step", "symplectic_euler_step", "radau_step", "rk4_step_jacobian",          \
                                   "symplectic_euler_step_jacobian", "radau_step_jacobian"};                        \
            status = 0;                                                                                             \
            if (k == 0) status = timed([](auto... v) { return rk4_step(v...); }, x.data(), u, cp, dt);             \
            if (k == 1) status = timed([](auto... v) { return symplectic_euler_step(v...); }, x.data(), u, cp, dt); \
            if (k == 2) status = timed([](auto... v) { return radau_step(v...); }, x.data(), u, cp, dt);           \
            if (k == 3)                                                                                             \
                status = timed([](auto... v) { return rk4_step_jacobian(v...); }, x.data(), u, cp, dt, a.data(),   \
                               b.data());                                                                           \
            if (k == 4)                                                                                             \
                status = timed([](auto... v) { return symplectic_euler_step_jacobian(v...); }, x.data(), u, cp, dt, \
                               a.data(), b.data());                                                                 \
            if (k == 5)                                                                                             \
                status = timed([](auto... v) { return radau_step_jacobian(v...); }, x.data(), u, cp, dt, a.data(), \
                               b.data());                                                                           \
            bool const jacobians = k >= 3 ? all_finite(a, n * n) && all_finite(b, n * nu) : true;                  \
            r.check(names[k], status, all_finite(x, n) && jacobians, all);                                          \
        }                                                                                                           \
        x = in.x;                                                                                                   \
        double* const xq = x.data();                                                                                \
        auto const project = [](auto... v) {                                                                        \
            double const left = project_state(v...);                                                               \
            return left == absent ? absent : left < 0 ? 1 : 0;                                                      \
        };                                                                                                          \
        status = timed(project, xq, xq + nq, cp);                                                                   \
        r.check("project_state", status, all_finite(x, n), all);                                                    \
        /* zoh_discretization needs no model: NaN or Inf in A. */                                                   \
        std::vector<double> A(n * n, 0.0), B(n * nu + 1, 0.0);                                                      \
        for (std::size_t i = 0; i < n * n; ++i) A[i] = all || s == slot::q ? bad : 0.01 * static_cast<double>(i);  \
        status = zoh_discretization(A.data(), B.data(), dt, a.data(), b.data());                                    \
        r.check("zoh_discretization", status, all_finite(a, n * n) && all_finite(b, n * nu),                       \
                all || s == slot::q || s == slot::dt);                                                              \
    }                                                                                                               \
    }

LAGC_MODELS(LAGC_FAST_MATH_CASE)

namespace {

struct model_case {
    char const* name;
    void (*run)(report&, slot, double);
};

#define LAGC_FAST_MATH_ENTRY(name) {#name, &probe_##name::run},
model_case const cases[] = {LAGC_MODELS(LAGC_FAST_MATH_ENTRY)};

TEST(FastMath, StatusesHoldUnderFastMathForEveryModel) {
#ifndef __FAST_MATH__
    FAIL() << "this test must be compiled with -ffast-math";
#endif
    int calls = 0, refused = 0;
    for (auto const& c : cases)
        for (slot s : {slot::q, slot::qd, slot::u, slot::p, slot::t, slot::dt, slot::all})
            for (int which = 0; which < 3; ++which) {
                report r{c.name, std::string(which == 0 ? "NaN" : which == 1 ? "Inf" : "-Inf") + " in " + slot_name(s)};
                c.run(r, s, bad_value(which));
                calls += r.calls;
                refused += r.refused;
            }
    // Every model, every function: 42 models × 7 places × 3 values × 9-10 functions.
    EXPECT_GT(calls, 0);
    std::printf("%d calls under -ffast-math, %d refused with a non-zero status\n", calls, refused);
}

} // namespace

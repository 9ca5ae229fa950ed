// Property checker for one generated model (tests/random/run.py builds it per model): the
// functions of lagc's header must agree with each other at random states.
//
// The runner defines LAGC_HEADER / LAGC_NS (header-only double code), optionally
// LAGC_FLOAT_HEADER / LAGC_NS_F (--scalar float) and LAGC_TEMPLATE_HEADER / LAGC_NS_T
// (--template), and feature flags read from the header (LAGC_HAS_<function>, LAGC_TIME,
// LAGC_PARAMS(X), LAGC_OUTPUTS(X, XU, XJ)) or from the model (LAGC_ENERGY, LAGC_M_FROM_T,
// LAGC_M_PD, LAGC_SET_PARAMS). It prints "RUN check count" per check and "FAIL check: ..."
// per failure, and exits 1 when any check failed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include LAGC_HEADER
#ifdef LAGC_FLOAT_HEADER
#include LAGC_FLOAT_HEADER
#endif
#ifdef LAGC_TEMPLATE_HEADER
#include LAGC_TEMPLATE_HEADER
#endif

namespace md = LAGC_NS;
using Vec = std::vector<double>;
constexpr int nq = md::nq, nu = md::nu, nc = md::nc, nx = 2 * md::nq;
constexpr int nuv = nu > 0 ? nu : 1;   // arrays for u are never empty
constexpr int ncv = nc > 0 ? nc : 1;

#ifndef LAGC_PARAMS
#define LAGC_PARAMS(X)
#endif
#ifndef LAGC_OUTPUTS
#define LAGC_OUTPUTS(X, XU, XJ)
#endif
#ifndef LAGC_SET_PARAMS
#define LAGC_SET_PARAMS(p)
#endif

// Functions of a model that uses t take it first; the checker's states carry a time.
static double g_t = 0.3;
#ifdef LAGC_TIME
#define TA(t) t,
#else
#define TA(t)
#endif

// ---------------------------------------------------------------- reporting
static std::map<std::string, long> g_runs;
static std::map<std::string, int> g_fails;
static int g_state = 0;

static void ran(const std::string& check) { ++g_runs[check]; }

static void fail(const std::string& check, const std::string& what) {
    if (g_fails[check]++ < 3)
        std::printf("FAIL %s: state %d: %s\n", check.c_str(), g_state, what.c_str());
}

static std::string fmt(const char* f, double a, double b = 0, double c = 0) {
    char buf[256];
    std::snprintf(buf, sizeof buf, f, a, b, c);
    return buf;
}

static double max_abs(const Vec& v) {
    double m = 0;
    for (double x : v) m = std::max(m, std::fabs(x));
    return m;
}

static bool all_finite(const double* v, int n) {
    for (int i = 0; i < n; ++i)
        if (!std::isfinite(v[i])) return false;
    return true;
}

// Largest |a_i - b_i| against tol; names the worst entry when it fails.
static bool expect_close(const std::string& check, const Vec& a, const Vec& b, double tol) {
    ran(check);
    double worst = 0;
    int at = -1;
    for (size_t i = 0; i < a.size(); ++i) {
        double d = std::fabs(a[i] - b[i]);
        if (!(d <= worst)) worst = d, at = int(i);
    }
    if (worst <= tol) return true;
    fail(check, fmt("entry %g differs by %.3g (tolerance %.3g)", at, worst, tol) +
                    fmt(": %.17g against %.17g", a[static_cast<size_t>(at)], b[static_cast<size_t>(at)]));
    return false;
}

// ---------------------------------------------------------------- the model's functions
using P = md::Parameters;
[[maybe_unused]] static void mass(const Vec& q, const P& p, Vec& M) { md::mass_matrix(TA(g_t) q.data(), p, M.data()); }
[[maybe_unused]] static double kinetic(const Vec& q, const Vec& qd, const P& p) { return md::kinetic_energy(TA(g_t) q.data(), qd.data(), p); }
[[maybe_unused]] static double potential(const Vec& q, const P& p) { return md::potential_energy(TA(g_t) q.data(), p); }
[[maybe_unused]] static int fd(const Vec& q, const Vec& qd, const Vec& u, const P& p, Vec& qdd, Vec& lam) {
    return md::forward_dynamics(TA(g_t) q.data(), qd.data(), u.data(), p, qdd.data(), lam.data());
}
[[maybe_unused]] static void gen_forces(const Vec& q, const Vec& qd, const Vec& u, const P& p, Vec& Q) {
    md::generalized_forces(TA(g_t) q.data(), qd.data(), u.data(), p, Q.data());
}
[[maybe_unused]] static void bias(const Vec& q, const Vec& qd, const P& p, Vec& h) { md::bias_forces(TA(g_t) q.data(), qd.data(), p, h.data()); }
[[maybe_unused]] static Vec constraint_matrix(const Vec& q, const P& p) {
    Vec A(static_cast<size_t>(ncv * nq), 0.0);
#ifdef LAGC_HAS_constraint_jacobian
    md::constraint_jacobian(TA(g_t) q.data(), p, A.data());
#else
    (void)q, (void)p;
#endif
    return A;
}

// ---------------------------------------------------------------- numbers
static std::mt19937_64 g_rng;
static double uniform(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(g_rng); }
static Vec random_vec(int n, double scale) {
    Vec v(static_cast<size_t>(std::max(n, 1)), 0.0);
    for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = uniform(-scale, scale);
    return v;
}

// Central differences of f: R^n -> R^m at x, with Richardson extrapolation (error O(h^4)),
// and the size of the last correction as an estimate of the error: near a kink (abs, sign,
// min, max) that estimate is large and says the difference is no reference there.
struct Derivative {
    Vec value, error;   // m x n, row-major
    double noise = 0;   // rounding in the differences: eps max|f| / h
    bool ok = true;     // f was defined at every point
};
static Derivative central(const std::function<bool(const Vec&, Vec&)>& f, const Vec& x, int m, double h0) {
    int n = int(x.size());
    Derivative d;
    d.value.assign(static_cast<size_t>(m * n), 0.0);
    d.error.assign(static_cast<size_t>(m * n), 0.0);
    Vec y0(static_cast<size_t>(m));
    if (!f(x, y0)) return d.ok = false, d;
    std::vector<Vec> yp(2, Vec(static_cast<size_t>(m))), ym = yp;
    for (int j = 0; j < n; ++j) {
        double h = h0 * std::max(1.0, std::fabs(x[static_cast<size_t>(j)]));
        for (int level = 0; level < 2; ++level) {
            double s = level == 0 ? h : h / 2;
            Vec xp = x, xm = x;
            xp[static_cast<size_t>(j)] += s, xm[static_cast<size_t>(j)] -= s;
            if (!f(xp, yp[static_cast<size_t>(level)]) || !f(xm, ym[static_cast<size_t>(level)])) return d.ok = false, d;
            d.noise = std::max(d.noise, 2.2e-16 * std::max(max_abs(yp[static_cast<size_t>(level)]), max_abs(ym[static_cast<size_t>(level)])) / s);
        }
        for (int i = 0; i < m; ++i) {
            auto const k = static_cast<size_t>(i);
            double const d1 = (yp[0][k] - ym[0][k]) / (2 * h), d2 = (yp[1][k] - ym[1][k]) / h;
            d.value[static_cast<size_t>(i * n + j)] = (4 * d2 - d1) / 3;
            d.error[static_cast<size_t>(i * n + j)] = std::fabs(d2 - d1);
            // A kink (abs, min, max) or a jump (sign) within the stencil: the second differences
            // at h and h/2 then differ by a factor (2 with the kink at x), where a smooth
            // function's agree to O(h²). Such an entry is not judged: both differences may reach
            // across the kink and agree with each other (a state 4.5e-5 below max's kink).
            double const c1 = (yp[0][k] - 2 * y0[k] + ym[0][k]) / (h * h);
            double const c2 = (yp[1][k] - 2 * y0[k] + ym[1][k]) / (h * h / 4);
            double const round_off = 1e3 * 2.2e-16 * std::max({std::fabs(yp[0][k]), std::fabs(y0[k]), std::fabs(ym[0][k])}) / (h * h / 4);
            if (!(std::fabs(c2 - c1) <= 0.1 * std::max(std::fabs(c1), std::fabs(c2)) + round_off))
                d.error[static_cast<size_t>(i * n + j)] = std::numeric_limits<double>::infinity();
        }
    }
    return d;
}

// An exact derivative against central differences: each entry within rtol of the largest
// entry of either (a relative, matrix-wide scale: entries that should be 0 are compared at
// that scale) plus 10 times the differences' own error estimate (kinks) plus 100 times
// their rounding (a derivative that is 0 up to round-off, as B of a saturated input).
static void expect_derivative(const std::string& check, const Vec& exact, const Derivative& d, double rtol) {
    if (!d.ok) return;
    ran(check);
    double scale = std::max(max_abs(exact), max_abs(d.value)) + 1e-300;
    for (size_t i = 0; i < exact.size(); ++i) {
        double diff = std::fabs(exact[i] - d.value[i]);
        if (!(diff <= rtol * scale + 10 * d.error[i] + 100 * d.noise)) {
            fail(check, fmt("entry %g: exact %.12g, central differences %.12g", double(i), exact[i], d.value[i]) +
                            fmt(" (scale %.3g, difference error %.3g)", scale, d.error[i]));
            return;
        }
    }
}

// Cholesky pivots of a symmetric matrix (empty when one is not positive).
static Vec cholesky_pivots(Vec A, int n) {
    Vec piv;
    for (int k = 0; k < n; ++k) {
        double d = A[static_cast<size_t>(k * n + k)];
        for (int j = 0; j < k; ++j) d -= A[static_cast<size_t>(k * n + j)] * A[static_cast<size_t>(k * n + j)];
        if (!(d > 0)) return {};
        piv.push_back(d);
        double r = std::sqrt(d);
        A[static_cast<size_t>(k * n + k)] = r;
        for (int i = k + 1; i < n; ++i) {
            double s = A[static_cast<size_t>(i * n + k)];
            for (int j = 0; j < k; ++j) s -= A[static_cast<size_t>(i * n + j)] * A[static_cast<size_t>(k * n + j)];
            A[static_cast<size_t>(i * n + k)] = s / r;
        }
    }
    return piv;
}

// ---------------------------------------------------------------- one random state
struct State {
    Vec q, qd, u, qdd, lam;
    P p;
    int status = -1;
};

static State random_state(const P& p0) {
    State s;
    s.p = p0;
    s.q = random_vec(nq, 1.0);
    s.qd = random_vec(nq, 1.0);
    s.u = random_vec(nu, 1.0);
    s.qdd.assign(static_cast<size_t>(nq), 0.0);
    s.lam.assign(static_cast<size_t>(ncv), 0.0);
    g_t = uniform(0.0, 1.0);
    s.status = fd(s.q, s.qd, s.u, s.p, s.qdd, s.lam);
    return s;
}

#include "checks_dynamics.inc"
#include "checks_steps.inc"
#include "checks_forms.inc"

int main(int argc, char** argv) {
    unsigned seed = argc > 1 ? unsigned(std::atoi(argv[1])) : 1u;
    int states = argc > 2 ? std::atoi(argv[2]) : 4;
    if (argc > 3 && std::strcmp(argv[3], "--reference") == 0) return print_reference();
    g_rng.seed(seed);
    P p0;
    LAGC_SET_PARAMS(p0)
    int good = 0;
    for (g_state = 0; g_state < states; ++g_state) {
        State s = random_state(p0);
        ran("forward_dynamics_status_at_random_state");
        if (s.status != 0 || !all_finite(s.qdd.data(), nq)) {
            // A random state may be singular for a constrained mechanism; say so, go on.
            std::printf("NOTE state %d: forward_dynamics returned %d\n", g_state, s.status);
            continue;
        }
        ++good;
        check_state(s);
    }
    if (good * 2 < states) fail("forward_dynamics_status_at_random_state", "forward dynamics failed at most random states");
    check_non_finite(p0);
    int failures = 0;
    for (auto& r : g_runs) std::printf("RUN %s %ld\n", r.first.c_str(), r.second);
    for (auto& f : g_fails) failures += f.second;
    return failures ? 1 : 0;
}

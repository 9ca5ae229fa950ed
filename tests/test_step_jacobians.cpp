// rk4_step_jacobian and symplectic_euler_step_jacobian on every bundled model (issue 35):
// the step they take is rk4_step's (symplectic_euler_step's) to the last bit, and their
// Jacobians agree with central differences of the step with Richardson extrapolation
// (error O(h^4)) to 1e-8, relative to the largest entry of their column.
#include "all_models.inc" // #include of every bundled model's header, and LAGC_MODELS(X)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace {

using vec = std::vector<double>;
using step_fn = std::function<int(double*, const double*, double)>;
using jacobian_fn = std::function<int(double*, const double*, double, double*, double*)>;

struct stepper {
    std::string name;
    int nq = 0, nu = 0;
    step_fn rk4, euler;
    jacobian_fn rk4_jacobian, euler_jacobian;
};

// Models whose functions take t get t = 0.3 (the steps are then steps from t = 0.3).
template <class P>
concept timed = requires(P const& p, double* x, double const* u) { rk4_step(0.0, x, u, p, 0.1); };

// The model's functions, found by argument-dependent lookup on its Parameters (so that a
// time-free model's branch for t is never instantiated, and the other way round).
template <class P>
stepper make_stepper(char const* name, int nq, int nu) {
    stepper s;
    s.name = name;
    s.nq = nq, s.nu = nu;
    static P const p;
    if constexpr (timed<P>) {
        s.rk4 = [](double* x, const double* u, double dt) { return rk4_step(0.3, x, u, p, dt); };
        s.euler = [](double* x, const double* u, double dt) { return symplectic_euler_step(0.3, x, u, p, dt); };
        s.rk4_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return rk4_step_jacobian(0.3, x, u, p, dt, A, B);
        };
        s.euler_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return symplectic_euler_step_jacobian(0.3, x, u, p, dt, A, B);
        };
    } else {
        s.rk4 = [](double* x, const double* u, double dt) { return rk4_step(x, u, p, dt); };
        s.euler = [](double* x, const double* u, double dt) { return symplectic_euler_step(x, u, p, dt); };
        s.rk4_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return rk4_step_jacobian(x, u, p, dt, A, B);
        };
        s.euler_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return symplectic_euler_step_jacobian(x, u, p, dt, A, B);
        };
    }
    return s;
}

#define LAGC_STEPPER(NS) make_stepper<NS::Parameters>(#NS, NS::nq, NS::nu),

std::vector<stepper> const steppers = {LAGC_MODELS(LAGC_STEPPER)};

// A generic state (no symmetric configuration), small enough for every model's domain.
void state(stepper const& s, vec& x, vec& u) {
    x.assign(2 * s.nq, 0.0);
    u.assign(std::max(s.nu, 1), 0.0);
    for (int i = 0; i < s.nq; ++i) {
        x[i] = 0.3 * std::sin(1.3 * i + 0.7) + 0.05;
        x[s.nq + i] = 0.4 * std::cos(0.9 * i + 0.2);
    }
    for (int j = 0; j < s.nu; ++j) u[j] = 0.5 * std::sin(2.1 * j + 0.4);
}

// Column c of d(step)/d[x; u] by central differences with Richardson extrapolation.
vec difference_column(step_fn const& step, vec const& x, vec const& u, double dt, int c, int n) {
    auto at = [&](double h) {
        vec xp = x, xm = x, up = u, um = u;
        double& vp = c < n ? xp[c] : up[c - n];
        double& vm = c < n ? xm[c] : um[c - n];
        vp += h, vm -= h;
        if (step(xp.data(), up.data(), dt) != 0 || step(xm.data(), um.data(), dt) != 0) return vec();
        vec d(n);
        for (int i = 0; i < n; ++i) d[i] = (xp[i] - xm[i]) / (2 * h);
        return d;
    };
    double const base = c < n ? x[c] : u[c - n];
    double const h = 1e-3 * std::max(1.0, std::abs(base));
    vec const d1 = at(h), d2 = at(h / 2);
    if (d1.empty() || d2.empty()) return {};
    vec r(n);
    for (int i = 0; i < n; ++i) r[i] = (4 * d2[i] - d1[i]) / 3;
    return r;
}

void check(stepper const& s, step_fn const& step, jacobian_fn const& jacobian, char const* which) {
    SCOPED_TRACE(s.name + " " + which);
    int const n = 2 * s.nq;
    double const dt = 0.01;
    vec x, u;
    state(s, x, u);
    vec stepped = x, with_jacobian = x, A(n * n, -7.0), B(n * std::max(s.nu, 1), -7.0);
    ASSERT_EQ(step(stepped.data(), u.data(), dt), 0);
    ASSERT_EQ(jacobian(with_jacobian.data(), u.data(), dt, A.data(), B.data()), 0);
    for (int i = 0; i < n; ++i) EXPECT_EQ(with_jacobian[i], stepped[i]) << "x+[" << i << "]";
    for (int c = 0; c < n + s.nu; ++c) {
        vec const fd = difference_column(step, x, u, dt, c, n);
        ASSERT_FALSE(fd.empty()) << "column " << c;
        double scale = 1e-300, worst = 0;
        for (int i = 0; i < n; ++i) {
            double const exact = c < n ? A[i * n + c] : B[i * s.nu + (c - n)];
            scale = std::max(scale, std::max(std::abs(exact), std::abs(fd[i])));
            worst = std::max(worst, std::abs(exact - fd[i]));
        }
        EXPECT_LE(worst / scale, 1e-8) << "column " << c << " (" << (c < n ? "x" : "u") << ")";
    }
}

} // namespace

class StepJacobian : public ::testing::TestWithParam<stepper> {};

TEST_P(StepJacobian, Rk4AgreesWithRichardsonDifferences) { check(GetParam(), GetParam().rk4, GetParam().rk4_jacobian, "rk4"); }

TEST_P(StepJacobian, SymplecticEulerAgreesWithRichardsonDifferences) {
    check(GetParam(), GetParam().euler, GetParam().euler_jacobian, "symplectic Euler");
}

TEST_P(StepJacobian, NothingIsWrittenWhenTheStepFails) {
    stepper const& s = GetParam();
    int const n = 2 * s.nq;
    vec x, u;
    state(s, x, u);
    vec const before = x;
    vec A(n * n, -7.0), B(n * std::max(s.nu, 1), -7.0);
    EXPECT_EQ(s.rk4_jacobian(x.data(), u.data(), std::nan(""), A.data(), B.data()), 3);
    EXPECT_EQ(x, before);
    EXPECT_TRUE(std::all_of(A.begin(), A.end(), [](double v) { return v == -7.0; }));
}

INSTANTIATE_TEST_SUITE_P(Bundled, StepJacobian, ::testing::ValuesIn(steppers),
                         [](auto const& info) { return info.param.name; });

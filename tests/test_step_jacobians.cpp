// rk4_step_jacobian, symplectic_euler_step_jacobian (issue 35) and radau_step_jacobian (issue
// 50) on every bundled model:
// the step they take is rk4_step's (symplectic_euler_step's) to the last bit, and their
// Jacobians agree with central differences of the step with Richardson extrapolation
// (error O(h^4)) to 1e-8, relative to the largest entry of their column. zoh_discretization
// of each model's linearization equals exp([[A, B], [0, 0]] dt) integrated by RK4 in 400
// small steps (to 1e-9), doubles dt as Ad Ad and Ad Bd + Bd do (to 1e-12), and is exact
// (closed form) for two oscillators over many periods.
#include "all_models.inc" // #include of every bundled model's header, and LAGC_MODELS(X)

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <functional>
#include <string>
#include <vector>

namespace {

using vec = std::vector<double>;
using step_fn = std::function<int(double*, const double*, double)>;
using jacobian_fn = std::function<int(double*, const double*, double, double*, double*)>;
using linearize_fn = std::function<int(const double*, const double*, double*, double*)>;
using zoh_fn = std::function<int(const double*, const double*, double, double*, double*)>;

struct stepper {
    std::string name;
    int nq = 0, nu = 0;
    step_fn rk4, euler, radau;
    jacobian_fn rk4_jacobian, euler_jacobian, radau_jacobian;
    linearize_fn linearize;
    zoh_fn zoh;
    std::function<int(double*)> project; // onto the constraints, where the model has them
};

// Models whose functions take t get t = 0.3 (the steps are then steps from t = 0.3).
template <class P>
concept timed = requires(P const& p, double* x, double const* u) { rk4_step(0.0, x, u, p, 0.1); };

template <class P>
concept constrained = requires(P const& p, double* q) { project_state(q, q, p); };
template <class P>
concept timed_constrained = requires(P const& p, double* q) { project_state(0.0, q, q, p); };

// The model's functions, found by argument-dependent lookup on its Parameters (so that a
// time-free model's branch for t is never instantiated, and the other way round).
template <class P>
stepper make_stepper(char const* name, int nq, int nu, zoh_fn zoh) {
    stepper s;
    s.name = name;
    s.nq = nq, s.nu = nu;
    s.zoh = std::move(zoh);
    static P const p;
    if constexpr (constrained<P>) s.project = [nq](double* x) { return project_state(x, x + nq, p); };
    if constexpr (timed_constrained<P>) s.project = [nq](double* x) { return project_state(0.3, x, x + nq, p); };
    if constexpr (timed<P>) {
        s.linearize = [nq](const double* x, const double* u, double* A, double* B) {
            return linearization(0.3, x, x + nq, u, p, A, B);
        };
        s.rk4 = [](double* x, const double* u, double dt) { return rk4_step(0.3, x, u, p, dt); };
        s.euler = [](double* x, const double* u, double dt) { return symplectic_euler_step(0.3, x, u, p, dt); };
        s.rk4_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return rk4_step_jacobian(0.3, x, u, p, dt, A, B);
        };
        s.euler_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return symplectic_euler_step_jacobian(0.3, x, u, p, dt, A, B);
        };
        s.radau = [](double* x, const double* u, double dt) { return radau_step(0.3, x, u, p, dt); };
        s.radau_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return radau_step_jacobian(0.3, x, u, p, dt, A, B);
        };
    } else {
        s.linearize = [nq](const double* x, const double* u, double* A, double* B) {
            return linearization(x, x + nq, u, p, A, B);
        };
        s.rk4 = [](double* x, const double* u, double dt) { return rk4_step(x, u, p, dt); };
        s.euler = [](double* x, const double* u, double dt) { return symplectic_euler_step(x, u, p, dt); };
        s.rk4_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return rk4_step_jacobian(x, u, p, dt, A, B);
        };
        s.euler_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return symplectic_euler_step_jacobian(x, u, p, dt, A, B);
        };
        s.radau = [](double* x, const double* u, double dt) { return radau_step(x, u, p, dt); };
        s.radau_jacobian = [](double* x, const double* u, double dt, double* A, double* B) {
            return radau_step_jacobian(x, u, p, dt, A, B);
        };
    }
    return s;
}

#define LAGC_STEPPER(NS)                                                                                     \
    make_stepper<NS::Parameters>(#NS, NS::nq, NS::nu,                                                        \
                                 [](const double* A, const double* B, double dt, double* Ad, double* Bd) {   \
                                     return NS::zoh_discretization(A, B, dt, Ad, Bd);                        \
                                 }),

std::vector<stepper> const steppers = {LAGC_MODELS(LAGC_STEPPER)};

// A generic state (no symmetric configuration), small enough for every model's domain, and
// on the model's constraints where it has them (far from them, Baumgarte's terms make the
// step so steep that the differences lose their digits: a kite's tether of 50 m at |p| = 0.3).
void state(stepper const& s, vec& x, vec& u) {
    x.assign(2 * s.nq, 0.0);
    u.assign(std::max(s.nu, 1), 0.0);
    for (int i = 0; i < s.nq; ++i) {
        x[i] = 0.3 * std::sin(1.3 * i + 0.7) + 0.05;
        x[s.nq + i] = 0.4 * std::cos(0.9 * i + 0.2);
    }
    for (int j = 0; j < s.nu; ++j) u[j] = 0.5 * std::sin(2.1 * j + 0.4);
    if (s.project) {
        vec projected = x;
        if (s.project(projected.data()) >= 0) x = projected;
    }
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

void check(stepper const& s, step_fn const& step, jacobian_fn const& jacobian, char const* which,
           double tolerance = 1e-8, double dt = 0.01) {
    SCOPED_TRACE(s.name + " " + which);
    int const n = 2 * s.nq;
    vec x, u;
    state(s, x, u);
    vec stepped = x, with_jacobian = x, A(n * n, -7.0), B(n * std::max(s.nu, 1), -7.0);
    ASSERT_EQ(step(stepped.data(), u.data(), dt), 0);
    ASSERT_EQ(jacobian(with_jacobian.data(), u.data(), dt, A.data(), B.data()), 0);
    for (int i = 0; i < n; ++i) EXPECT_EQ(with_jacobian[i], stepped[i]) << "x+[" << i << "]";
    // The differences' own rounding: x+ to eps |x+| over steps of h (Richardson: about 1.5 eps
    // |x+| / h), which counts where x holds large values (a kite 50 m out) and the column is small.
    double largest = 0;
    for (double v : stepped) largest = std::max(largest, std::abs(v));
    for (int c = 0; c < n + s.nu; ++c) {
        vec const fd = difference_column(step, x, u, dt, c, n);
        ASSERT_FALSE(fd.empty()) << "column " << c;
        double scale = 1e-300, worst = 0;
        for (int i = 0; i < n; ++i) {
            double const exact = c < n ? A[i * n + c] : B[i * s.nu + (c - n)];
            scale = std::max(scale, std::max(std::abs(exact), std::abs(fd[i])));
            worst = std::max(worst, std::abs(exact - fd[i]));
        }
        double const h = 1e-3 * std::max(1.0, std::abs(c < n ? x[c] : u[c - n]));
        double const rounding = 4 * std::numeric_limits<double>::epsilon() * largest / h;
        EXPECT_LE(worst, tolerance * scale + rounding) << "column " << c << " (" << (c < n ? "x" : "u") << ")";
    }
}

} // namespace

class StepJacobian : public ::testing::TestWithParam<stepper> {};

TEST_P(StepJacobian, Rk4AgreesWithRichardsonDifferences) { check(GetParam(), GetParam().rk4, GetParam().rk4_jacobian, "rk4"); }

// radau_step_jacobian: the step radau_step takes, to the last bit, and the implicit function
// theorem's sensitivities against differences of the step (Newton's own tolerance, 1e-10 of
// the state, over steps of 1e-3 bounds what the differences resolve: 1e-7).
TEST_P(StepJacobian, RadauAgreesWithRichardsonDifferences) {
    check(GetParam(), GetParam().radau, GetParam().radau_jacobian, "radau", 1e-7);
}

// The retry docs/generated-api.md shows for radau_step_jacobian: where Newton does not
// converge (5), two half steps with their Jacobians chained, Ad = Ad2 Ad1 and
// Bd = Ad2 Bd1 + Bd2, halving at most `depth` times.
int radau_with_retry(stepper const& s, double* x, const double* u, double dt, double* Ad, double* Bd, int depth) {
    int const n = 2 * s.nq, m = std::max(s.nu, 1);
    int status = s.radau_jacobian(x, u, dt, Ad, Bd);
    if (status != 5 || depth == 0) return status;
    vec y(x, x + n), A1(n * n), B1(n * m), A2(n * n), B2(n * m);
    if ((status = radau_with_retry(s, y.data(), u, dt / 2, A1.data(), B1.data(), depth - 1)) != 0) return status;
    if ((status = radau_with_retry(s, y.data(), u, dt / 2, A2.data(), B2.data(), depth - 1)) != 0) return status;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            double v = 0;
            for (int k = 0; k < n; ++k) v += A2[i * n + k] * A1[k * n + j];
            Ad[i * n + j] = v;
        }
        for (int j = 0; j < s.nu; ++j) {
            double v = B2[i * s.nu + j];
            for (int k = 0; k < n; ++k) v += A2[i * n + k] * B1[k * s.nu + j];
            Bd[i * s.nu + j] = v;
        }
    }
    std::copy(y.begin(), y.end(), x);
    return 0;
}

// On the stiff kite at a step Newton cannot take from its state (5), the retry converges and
// its chained Jacobians agree with differences of the retried step.
TEST(RadauRetry, HalvedStepsChainTheirJacobians) {
    auto const kite = std::find_if(steppers.begin(), steppers.end(), [](stepper const& s) { return s.name == "stiff_kite"; });
    ASSERT_NE(kite, steppers.end());
    vec x, u;
    state(*kite, x, u);
    int const n = 2 * kite->nq;
    double dt = 0;
    for (double h : {0.02, 0.05, 0.1, 0.2, 0.5}) {
        vec y = x, A(n * n), B(n);
        if (kite->radau_jacobian(y.data(), u.data(), h, A.data(), B.data()) == 5) {
            dt = h;
            break;
        }
    }
    ASSERT_GT(dt, 0) << "no step the kite's Newton iteration refuses";
    step_fn const retried = [&](double* y, const double* v, double h) {
        vec A(n * n), B(n);
        return radau_with_retry(*kite, y, v, h, A.data(), B.data(), 6);
    };
    jacobian_fn const retried_jacobian = [&](double* y, const double* v, double h, double* A, double* B) {
        return radau_with_retry(*kite, y, v, h, A, B, 6);
    };
    stepper at_dt = *kite;
    check(at_dt, retried, retried_jacobian, "radau with retry", 1e-7, dt);
}

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
    EXPECT_EQ(s.radau_jacobian(x.data(), u.data(), std::nan(""), A.data(), B.data()), 3);
    EXPECT_EQ(x, before);
    // A step Newton cannot take (the stages' system at a step far too long for the model's
    // stiffest mode, or a non-finite input): no partial result either.
    vec u_nan = u;
    u_nan[0] = std::nan("");
    if (s.nu > 0) {
        EXPECT_NE(s.radau_jacobian(x.data(), u_nan.data(), 0.01, A.data(), B.data()), 0);
        EXPECT_EQ(x, before);
    }
    EXPECT_TRUE(std::all_of(A.begin(), A.end(), [](double v) { return v == -7.0; }));
}

// zoh_discretization against exp([[A, B], [0, 0]] dt) integrated: Phi' = A Phi, Gamma' =
// A Gamma + B from (I, 0) by RK4 in 400 steps of h with h |A| <= 0.005 (error ~1e-12).
TEST_P(StepJacobian, ZohIsTheExponentialOfTheLinearization) {
    stepper const& s = GetParam();
    int const n = 2 * s.nq, m = std::max(s.nu, 1);
    vec x, u, A(n * n), B(n * m, 0.0);
    state(s, x, u);
    ASSERT_EQ(s.linearize(x.data(), u.data(), A.data(), B.data()), 0);
    double norm = 0;
    for (int j = 0; j < n; ++j) {
        double column = 0;
        for (int i = 0; i < n; ++i) column += std::abs(A[i * n + j]);
        norm = std::max(norm, column);
    }
    double const dt = std::min(0.05, 2.0 / std::max(norm, 1e-9));
    vec Ad(n * n, -7.0), Bd(n * m, -7.0);
    ASSERT_EQ(s.zoh(A.data(), B.data(), dt, Ad.data(), Bd.data()), 0);
    // [Phi, Gamma] as one n x (n + nu) block, its derivative A [Phi, Gamma] + [0, B].
    int const w = n + s.nu;
    vec Y(n * w, 0.0);
    for (int i = 0; i < n; ++i) Y[i * w + i] = 1;
    auto f = [&](vec const& y) {
        vec d(n * w, 0.0);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < w; ++j) {
                double sum = j < n ? 0.0 : B[i * s.nu + (j - n)];
                for (int l = 0; l < n; ++l) sum += A[i * n + l] * y[l * w + j];
                d[i * w + j] = sum;
            }
        return d;
    };
    int const steps = 400;
    double const h = dt / steps;
    for (int k = 0; k < steps; ++k) {
        vec const k1 = f(Y);
        vec y2 = Y, y3 = Y, y4 = Y;
        for (int i = 0; i < n * w; ++i) y2[i] += h / 2 * k1[i];
        vec const k2 = f(y2);
        for (int i = 0; i < n * w; ++i) y3[i] += h / 2 * k2[i];
        vec const k3 = f(y3);
        for (int i = 0; i < n * w; ++i) y4[i] += h * k3[i];
        vec const k4 = f(y4);
        for (int i = 0; i < n * w; ++i) Y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    double scale = 1, worst = 0;
    for (double v : Y) scale = std::max(scale, std::abs(v));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < w; ++j) {
            double const z = j < n ? Ad[i * n + j] : Bd[i * s.nu + (j - n)];
            worst = std::max(worst, std::abs(z - Y[i * w + j]));
        }
    EXPECT_LE(worst / scale, 1e-9) << s.name << " dt = " << dt;
    // exp(2 A dt) = Ad Ad, and Bd(2 dt) = Ad Bd + Bd.
    vec A2(n * n, -7.0), B2(n * m, -7.0);
    ASSERT_EQ(s.zoh(A.data(), B.data(), 2 * dt, A2.data(), B2.data()), 0);
    double worst2 = 0, scale2 = 1;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < w; ++j) {
            double sum = j < n ? 0.0 : Bd[i * s.nu + (j - n)];
            for (int l = 0; l < n; ++l) sum += Ad[i * n + l] * (j < n ? Ad[l * n + j] : Bd[l * s.nu + (j - n)]);
            double const z = j < n ? A2[i * n + j] : B2[i * s.nu + (j - n)];
            scale2 = std::max(scale2, std::abs(z));
            worst2 = std::max(worst2, std::abs(z - sum));
        }
    EXPECT_LE(worst2 / scale2, 1e-12) << s.name;
    // Not finite: status 3, nothing written.
    vec A3(n * n, -7.0), B3(n * m, -7.0);
    EXPECT_EQ(s.zoh(A.data(), B.data(), std::nan(""), A3.data(), B3.data()), 3);
    EXPECT_TRUE(std::all_of(A3.begin(), A3.end(), [](double v) { return v == -7.0; }));
}

// Two undamped oscillators (q1'' = -4 q1 + u, q2'' = -25 q2) in the cart-pendulum's sizes
// (nq = 2, nu = 1), over dt = 3.7 (|A| dt = 92: 8 squarings): Ad and Bd in closed form,
// cos, sin / w, -w sin and (1 - cos) / w^2, sin / w.
TEST(Zoh, OscillatorsInClosedForm) {
    double const w1 = 2, w2 = 5, dt = 3.7;
    double A[16] = {}, B[4] = {}, Ad[16], Bd[4];
    A[0 * 4 + 2] = 1, A[1 * 4 + 3] = 1, A[2 * 4 + 0] = -w1 * w1, A[3 * 4 + 1] = -w2 * w2;
    B[2] = 1;
    ASSERT_EQ(cart_pendulum::zoh_discretization(A, B, dt, Ad, Bd), 0);
    double const c1 = std::cos(w1 * dt), s1 = std::sin(w1 * dt), c2 = std::cos(w2 * dt), s2 = std::sin(w2 * dt);
    double const want[16] = {c1, 0, s1 / w1, 0, 0, c2, 0, s2 / w2, -w1 * s1, 0, c1, 0, 0, -w2 * s2, 0, c2};
    for (int k = 0; k < 16; ++k) EXPECT_NEAR(Ad[k], want[k], 1e-12) << k;
    double const want_b[4] = {(1 - c1) / (w1 * w1), 0, s1 / w1, 0};
    for (int k = 0; k < 4; ++k) EXPECT_NEAR(Bd[k], want_b[k], 1e-12) << k;
}

INSTANTIATE_TEST_SUITE_P(Bundled, StepJacobian, ::testing::ValuesIn(steppers),
                         [](auto const& info) { return info.param.name; });

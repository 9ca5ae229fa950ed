// A mass or an inertia set to 0 at run time (issue 31): M alone is singular, the system
// [[M, A^T], [A, 0]] is not, and forward_dynamics, state_derivative, linearization and
// project_state still solve — checked against independent solutions: the slider-crank
// against the same mechanism in one coordinate (no constraint, no singular M), the
// Chaplygin sled against its Newton-Euler closed form, both against a dense LU solve of
// the semi-implicit system. Without constraints a singular M still fails.
#include "chaplygin_sled.hpp"
#include "simple_pendulum.hpp"
#include "slider_crank.hpp"
#include "slider_crank_reduced.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace {

using vec = std::vector<double>;

// K x = b by Gaussian elimination with partial pivoting (independent of lagc's Cholesky).
vec dense_solve(vec K, vec b) {
    int const n = static_cast<int>(b.size());
    for (int c = 0; c < n; ++c) {
        int pivot = c;
        for (int r = c + 1; r < n; ++r)
            if (std::abs(K[r * n + c]) > std::abs(K[pivot * n + c])) pivot = r;
        for (int j = 0; j < n; ++j) std::swap(K[c * n + j], K[pivot * n + j]);
        std::swap(b[c], b[pivot]);
        for (int r = c + 1; r < n; ++r) {
            double const f = K[r * n + c] / K[c * n + c];
            for (int j = c; j < n; ++j) K[r * n + j] -= f * K[c * n + j];
            b[r] -= f * b[c];
        }
    }
    vec x(n);
    for (int r = n - 1; r >= 0; --r) {
        double s = b[r];
        for (int j = r + 1; j < n; ++j) s -= K[r * n + j] * x[j];
        x[r] = s / K[r * n + r];
    }
    return x;
}

// A slider-crank state on the constraints (and their velocities) from theta, theta'.
struct crank_state {
    double q[3], qd[3];
};
crank_state on_constraints(slider_crank::Parameters const& p, double th, double thd) {
    double const phi = std::asin(p.r * std::sin(th) / p.L);
    double const phid = p.r * std::cos(th) * thd / (p.L * std::cos(phi));
    double const s = p.r * std::cos(th) + p.L * std::cos(phi);
    double const sd = -p.r * std::sin(th) * thd - p.L * std::sin(phi) * phid;
    return {{th, phi, s}, {thd, phid, sd}};
}

TEST(SingularAtRunTime, MasslessSliderFollowsTheReducedModel) {
    std::mt19937 rng(31);
    std::uniform_real_distribution<double> U(-2, 2);
    for (double m3 : {0.5, 0.0}) { // the default (M regular: the unrolled path) and a massless slider
        slider_crank::Parameters p;
        slider_crank_reduced::Parameters pr;
        p.m3 = pr.m3 = m3;
        for (int trial = 0; trial < 20; ++trial) {
            double const th = U(rng), thd = 3 * U(rng), tau = U(rng);
            crank_state x = on_constraints(p, th, thd);
            double qdd[3], lambda[2], u[1] = {tau};
            ASSERT_EQ(slider_crank::forward_dynamics(x.q, x.qd, u, p, qdd, lambda), 0) << "m3 = " << m3;
            double qr[1] = {th}, qdr[1] = {thd}, qddr[1];
            ASSERT_EQ(slider_crank_reduced::forward_dynamics(qr, qdr, u, pr, qddr, nullptr), 0);
            EXPECT_NEAR(qdd[0], qddr[0], 1e-10 * (1 + std::abs(qddr[0]))) << "m3 = " << m3;
            // phi'' and s'' from the constraints differentiated twice.
            double const phi = x.q[1], phid = x.qd[1];
            double const phidd = (p.r * std::cos(th) * qdd[0] - p.r * std::sin(th) * thd * thd +
                                  p.L * std::sin(phi) * phid * phid) /
                                 (p.L * std::cos(phi));
            double const sdd = -p.r * std::cos(th) * thd * thd - p.r * std::sin(th) * qdd[0] -
                               p.L * std::cos(phi) * phid * phid - p.L * std::sin(phi) * phidd;
            EXPECT_NEAR(qdd[1], phidd, 1e-9 * (1 + std::abs(phidd)));
            EXPECT_NEAR(qdd[2], sdd, 1e-9 * (1 + std::abs(sdd)));
            // q'' and lambda against a dense LU solve of the whole system.
            constexpr int N = slider_crank::nq + slider_crank::nc;
            vec K(N * N), rhs(N);
            slider_crank::semi_implicit_system(x.q, x.qd, u, p, K.data(), rhs.data());
            vec const want = dense_solve(K, rhs);
            for (int i = 0; i < 3; ++i) EXPECT_NEAR(qdd[i], want[i], 1e-9 * (1 + std::abs(want[i])));
            for (int k = 0; k < 2; ++k) EXPECT_NEAR(lambda[k], want[3 + k], 1e-9 * (1 + std::abs(want[3 + k])));
        }
    }
}

TEST(SingularAtRunTime, ChaplyginSledWithoutInertiaFollowsNewtonEuler) {
    std::mt19937 rng(32);
    std::uniform_real_distribution<double> U(-2, 2);
    for (double J : {0.04, 0.0}) {
        chaplygin_sled::Parameters p;
        p.J = J;
        for (int trial = 0; trial < 20; ++trial) {
            double const th = U(rng), v = U(rng), w = U(rng);
            // On the constraint: the sideways speed of the centre of mass is -a w.
            double const side = -p.a * w;
            double q[3] = {U(rng), U(rng), th};
            double qd[3] = {v * std::cos(th) - side * std::sin(th), v * std::sin(th) + side * std::cos(th), w};
            double u[2] = {U(rng), U(rng)}, qdd[3], lambda[1];
            ASSERT_EQ(chaplygin_sled::forward_dynamics(q, qd, u, p, qdd, lambda), 0) << "J = " << J;
            double const vd = u[0] / p.m - p.a * w * w;
            double const wd = (u[1] + p.m * p.a * v * w) / (J + p.m * p.a * p.a);
            // x' = v cos - side sin with side = -a w: differentiate.
            double const xdd = vd * std::cos(th) - v * w * std::sin(th) + p.a * wd * std::sin(th) + p.a * w * w * std::cos(th);
            double const ydd = vd * std::sin(th) + v * w * std::cos(th) - p.a * wd * std::cos(th) + p.a * w * w * std::sin(th);
            EXPECT_NEAR(qdd[0], xdd, 1e-11) << "J = " << J;
            EXPECT_NEAR(qdd[1], ydd, 1e-11) << "J = " << J;
            EXPECT_NEAR(qdd[2], wd, 1e-11) << "J = " << J;
            EXPECT_NEAR(lambda[0], -p.m * (v * w - p.a * wd), 1e-11) << "J = " << J;
        }
    }
}

TEST(SingularAtRunTime, StateDerivativeAndLinearizationSolveToo) {
    slider_crank::Parameters p;
    p.m3 = 0;
    crank_state x = on_constraints(p, 0.7, -1.3);
    double u[1] = {0.4};
    double state[6] = {x.q[0], x.q[1], x.q[2], x.qd[0], x.qd[1], x.qd[2]}, xdot[6], qdd[3];
    ASSERT_EQ(slider_crank::state_derivative(state, u, p, xdot), 0);
    ASSERT_EQ(slider_crank::forward_dynamics(x.q, x.qd, u, p, qdd, nullptr), 0);
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(xdot[i], x.qd[i]);
        EXPECT_EQ(xdot[3 + i], qdd[i]);
    }
    // linearization against central differences of forward_dynamics, step 1e-6.
    constexpr int n = slider_crank::nq, m = 2 * n + slider_crank::nu;
    double A[2 * n * 2 * n], B[2 * n * slider_crank::nu];
    ASSERT_EQ(slider_crank::linearization(x.q, x.qd, u, p, A, B), 0);
    for (int c = 0; c < m; ++c) {
        double h = 1e-6, plus[n], minus[n];
        double q1[n], qd1[n], u1[1];
        auto eval = [&](double sign, double* out) {
            for (int i = 0; i < n; ++i) q1[i] = x.q[i], qd1[i] = x.qd[i];
            u1[0] = u[0];
            (c < n ? q1[c] : c < 2 * n ? qd1[c - n] : u1[0]) += sign * h;
            ASSERT_EQ(slider_crank::forward_dynamics(q1, qd1, u1, p, out, nullptr), 0);
        };
        eval(1, plus);
        eval(-1, minus);
        for (int i = 0; i < n; ++i) {
            double const fd = (plus[i] - minus[i]) / (2 * h);
            double const exact = c < 2 * n ? A[(n + i) * 2 * n + c] : B[(n + i) * slider_crank::nu + (c - 2 * n)];
            EXPECT_NEAR(exact, fd, 1e-5 * (1 + std::abs(fd))) << "row " << i << " column " << c;
        }
    }
}

TEST(SingularAtRunTime, ProjectStateWithAMasslessSlider) {
    slider_crank::Parameters p;
    p.m3 = 0;
    crank_state x = on_constraints(p, 0.4, 0.9);
    x.q[1] += 0.02, x.q[2] -= 0.01, x.qd[2] += 0.3; // off the constraints
    double const left = slider_crank::project_state(x.q, x.qd, p);
    ASSERT_GE(left, 0.0);
    EXPECT_LT(left, 1e-10);
    double c[2], v[2];
    slider_crank::constraint_residuals(x.q, x.qd, p, c);
    slider_crank::constraint_velocity(x.q, x.qd, p, v);
    for (int k = 0; k < 2; ++k) {
        EXPECT_NEAR(c[k], 0.0, 1e-10);
        EXPECT_NEAR(v[k], 0.0, 1e-10);
    }
}

TEST(SingularAtRunTime, NoSolutionStillFails) {
    // Everything massless: [[M, A^T], [A, 0]] is singular too.
    slider_crank::Parameters p;
    p.m3 = 0, p.m2 = 0, p.Jc = 0;
    crank_state x = on_constraints(p, 0.3, 0.2);
    double u[1] = {0.1}, qdd[3] = {7, 7, 7}, lambda[2];
    EXPECT_NE(slider_crank::forward_dynamics(x.q, x.qd, u, p, qdd, lambda), 0);
    // A sled with no mass at all.
    chaplygin_sled::Parameters s;
    s.m = 0, s.J = 0;
    double q[3] = {0, 0, 0.3}, qd[3] = {0, 0, 0}, f[2] = {1, 0}, out[3];
    EXPECT_NE(chaplygin_sled::forward_dynamics(q, qd, f, s, out, lambda), 0);
    // Without constraints a singular M returns 1.
    simple_pendulum::Parameters pp;
    pp.m = 0;
    double th[1] = {0.2}, thd[1] = {0.0}, thdd[1];
    EXPECT_EQ(simple_pendulum::forward_dynamics(th, thd, nullptr, pp, thdd, nullptr), 1);
}

} // namespace

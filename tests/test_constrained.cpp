// Constrained models: multipliers against the seeds' closed forms, forward_dynamics
// against the index-1 system, Baumgarte stabilisation in simulation, and agreement
// between Cartesian and polar formulations of the same system.
#include "cartesian_pendulum.hpp"
#include "circle_three_coordinates.hpp"
#include "constrained_pendulum.hpp"
#include "crane_pendulum.hpp"
#include "double_pendulum.hpp"
#include "double_pendulum_cartesian.hpp"
#include "chaplygin_sled.hpp"
#include "four_bar.hpp"
#include "floating_leg.hpp"
#include "kite_quaternion.hpp"
#include "kite_rotation_matrix.hpp"
#include "quaternion_body.hpp"
#include "rolling_wheel.hpp"
#include "rotation_matrix_body.hpp"
#include "simple_pendulum.hpp"
#include "slider_crank.hpp"
#include "wheeled_robot.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <vector>

namespace {

using vec = std::vector<double>;

// A constrained model's functions with parameters bound; time-free models ignore t.
struct constrained {
    std::string name;
    int nq = 0, nu = 0, nc = 0;
    std::function<int(double, const double*, const double*, const double*, double*, double*)> fd;
    std::function<void(double, const double*, const double*, double*)> residuals;
    std::function<void(double, const double*, double*)> jacobian;
    std::function<void(double, const double*, const double*, const double*, double*, double*)> system;
    std::function<double(double, const double*, const double*)> energy; // T + V
};

#define LAGC_BIND_CONSTRAINED(NS, d, p)                                                                     \
    do {                                                                                                   \
        d.name = #NS;                                                                                      \
        d.nq = NS::nq, d.nu = NS::nu, d.nc = NS::nc;                                                       \
        d.fd = [p](double, const double* q, const double* qd, const double* u, double* qdd, double* l) {   \
            return NS::forward_dynamics(q, qd, u, p, qdd, l);                                              \
        };                                                                                                 \
        d.residuals = [p](double, const double* q, const double* qd, double* c) {                          \
            NS::constraint_residuals(q, qd, p, c);                                                         \
        };                                                                                                 \
        d.jacobian = [p](double, const double* q, double* A) { NS::constraint_jacobian(q, p, A); };        \
        d.system = [p](double, const double* q, const double* qd, const double* u, double* K, double* r) { \
            NS::semi_implicit_system(q, qd, u, p, K, r);                                                   \
        };                                                                                                 \
        d.energy = [p](double, const double* q, const double* qd) {                                        \
            return NS::kinetic_energy(q, qd, p) + NS::potential_energy(q, p);                              \
        };                                                                                                 \
    } while (0)

// RK4 on (q, qd) with qdd from forward_dynamics; inputs as a function of time and state.
using input_law = std::function<vec(double, vec const&, vec const&)>;

void rk4(constrained const& d, double& t, vec& q, vec& qd, input_law const& input, double dt) {
    int n = d.nq;
    auto f = [&](double s, vec const& x, vec const& v, vec& a) {
        a.assign(n, 0);
        vec lambda(d.nc), u = input(s, x, v);
        ASSERT_EQ(d.fd(s, x.data(), v.data(), u.data(), a.data(), lambda.data()), 0) << "at t = " << s;
    };
    vec a1, a2, a3, a4, x(n), w(n);
    f(t, q, qd, a1);
    for (int i = 0; i < n; ++i) x[i] = q[i] + 0.5 * dt * qd[i], w[i] = qd[i] + 0.5 * dt * a1[i];
    vec v2 = w;
    f(t + dt / 2, x, w, a2);
    for (int i = 0; i < n; ++i) x[i] = q[i] + 0.5 * dt * v2[i], w[i] = qd[i] + 0.5 * dt * a2[i];
    vec v3 = w;
    f(t + dt / 2, x, w, a3);
    for (int i = 0; i < n; ++i) x[i] = q[i] + dt * v3[i], w[i] = qd[i] + dt * a3[i];
    vec v4 = w;
    f(t + dt, x, w, a4);
    for (int i = 0; i < n; ++i) {
        q[i] += dt / 6 * (qd[i] + 2 * v2[i] + 2 * v3[i] + v4[i]);
        qd[i] += dt / 6 * (a1[i] + 2 * a2[i] + 2 * a3[i] + a4[i]);
    }
    t += dt;
}

vec no_input(double, vec const&, vec const&) { return vec(1, 0.0); }

double max_abs(vec const& v) {
    double m = 0;
    for (double x : v) m = std::max(m, std::abs(x));
    return m;
}

// ---- multipliers against the seeds -------------------------------------------------

TEST(Multipliers, CartesianPendulumRodForce) {
    // Seed 000 writes L = T - U - lambda C, so m x'' = -lambda x and m y'' = -m g - lambda y:
    // the same sign as lagc's M qdd + h + A^T lambda = Q (A = [x, y], h = [0, m g]).
    // Hence no adaptation: lambda = m (x'^2 + y'^2 - g y) / l^2, on the constraint manifold.
    cartesian_pendulum::Parameters p;
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> U(-3, 3);
    for (int trial = 0; trial < 20; ++trial) {
        double th = U(rng), w = U(rng);
        double q[2] = {p.l * std::sin(th), -p.l * std::cos(th)};
        double qd[2] = {p.l * w * std::cos(th), p.l * w * std::sin(th)}; // tangent: C' = 0
        double qdd[2], lambda[1];
        ASSERT_EQ(cartesian_pendulum::forward_dynamics(q, qd, nullptr, p, qdd, lambda), 0);
        double expected = p.m * (qd[0] * qd[0] + qd[1] * qd[1] - p.g * q[1]) / (p.l * p.l);
        EXPECT_NEAR(lambda[0], expected, 1e-12 * (1 + std::abs(expected)));
    }
}

TEST(Multipliers, ConstrainedPendulumRodTension) {
    // Seed 000: L = T - U - lambda (l - l0) gives m l'' = m l th'^2 + m g cos(th) - lambda,
    // lagc's sign (A = [1, 0]); with l'' = 0 on the manifold lambda = m l th'^2 + m g cos(th).
    constrained_pendulum::Parameters p;
    for (double th : {-2.0, -0.5, 0.0, 0.7, 1.9}) {
        double q[2] = {p.l0, th}, qd[2] = {0.0, 1.7}, qdd[2], lambda[1];
        ASSERT_EQ(constrained_pendulum::forward_dynamics(q, qd, nullptr, p, qdd, lambda), 0);
        EXPECT_NEAR(lambda[0], p.m * p.l0 * qd[1] * qd[1] + p.m * p.g * std::cos(th), 1e-12);
        EXPECT_NEAR(qdd[0], 0.0, 1e-12);
        EXPECT_NEAR(qdd[1], -p.g / p.l0 * std::sin(th), 1e-12);
    }
}

TEST(Multipliers, WheeledRobotSideForce) {
    // Seed 002: A = [sin(th), -cos(th), 0] and m x'' + lambda sin(th) = f cos(th): lagc's sign.
    // lambda = m (x' cos(th) + y' sin(th)) th' for a state that does not slide.
    wheeled_robot::Parameters p;
    std::mt19937 rng(12);
    std::uniform_real_distribution<double> U(-2, 2);
    for (int trial = 0; trial < 20; ++trial) {
        double th = U(rng), v = U(rng);
        double q[3] = {U(rng), U(rng), th}, qd[3] = {v * std::cos(th), v * std::sin(th), U(rng)};
        double u[2] = {U(rng), U(rng)}, qdd[3], lambda[1];
        ASSERT_EQ(wheeled_robot::forward_dynamics(q, qd, u, p, qdd, lambda), 0);
        EXPECT_NEAR(lambda[0], p.m * (qd[0] * std::cos(th) + qd[1] * std::sin(th)) * qd[2], 1e-12);
        EXPECT_NEAR(p.m * qdd[0] + lambda[0] * std::sin(th), u[0] * std::cos(th), 1e-12);
        EXPECT_NEAR(p.m * qdd[1] - lambda[0] * std::cos(th), u[0] * std::sin(th), 1e-12);
        EXPECT_NEAR(p.I * qdd[2], u[1], 1e-12);
    }
}

TEST(Multipliers, RollingWheel) {
    // x' = R phi' removes one degree of freedom: (m R^2 + J) phi'' = tau, and the
    // constraint force on x is what accelerates the mass: m x'' + lambda = 0 (A = [1, -R]).
    rolling_wheel::Parameters p;
    double q[2] = {0.3, 1.5}, qd[2] = {p.R * 2.0, 2.0}, u[1] = {0.7}, qdd[2], lambda[1];
    ASSERT_EQ(rolling_wheel::forward_dynamics(q, qd, u, p, qdd, lambda), 0);
    double phidd = u[0] / (p.m * p.R * p.R + p.J);
    EXPECT_NEAR(qdd[1], phidd, 1e-12);
    EXPECT_NEAR(qdd[0], p.R * phidd, 1e-12);
    EXPECT_NEAR(lambda[0], -p.m * p.R * phidd, 1e-12);
}

TEST(Multipliers, SingularConstraintJacobianIsReported) {
    // At the pivot (x = y = 0) the pendulum's A = [x, y] vanishes: A M^-1 A^T = 0, return 2.
    cartesian_pendulum::Parameters p;
    double q[2] = {0.0, 0.0}, qd[2] = {0.0, 0.0}, qdd[2], lambda[1];
    EXPECT_EQ(cartesian_pendulum::forward_dynamics(q, qd, nullptr, p, qdd, lambda), 2);
    p.m = 0; // and a massless bob makes M itself singular: return 1
    q[0] = 1.0;
    EXPECT_EQ(cartesian_pendulum::forward_dynamics(q, qd, nullptr, p, qdd, lambda), 1);
}

// ---- forward_dynamics solves the index-1 system --------------------------------

std::vector<constrained> all_constrained() {
    std::vector<constrained> v;
    { constrained d; cartesian_pendulum::Parameters p; LAGC_BIND_CONSTRAINED(cartesian_pendulum, d, p); v.push_back(d); }
    { constrained d; constrained_pendulum::Parameters p; LAGC_BIND_CONSTRAINED(constrained_pendulum, d, p); v.push_back(d); }
    { constrained d; wheeled_robot::Parameters p; LAGC_BIND_CONSTRAINED(wheeled_robot, d, p); v.push_back(d); }
    { constrained d; rolling_wheel::Parameters p; LAGC_BIND_CONSTRAINED(rolling_wheel, d, p); v.push_back(d); }
    { constrained d; double_pendulum_cartesian::Parameters p; LAGC_BIND_CONSTRAINED(double_pendulum_cartesian, d, p); v.push_back(d); }
    { constrained d; four_bar::Parameters p; LAGC_BIND_CONSTRAINED(four_bar, d, p); v.push_back(d); }
    { constrained d; quaternion_body::Parameters p; LAGC_BIND_CONSTRAINED(quaternion_body, d, p); v.push_back(d); }
    { constrained d; circle_three_coordinates::Parameters p; LAGC_BIND_CONSTRAINED(circle_three_coordinates, d, p); v.push_back(d); }
    // Solved in quasi-velocities (W = R^T R'), here at random R that are not rotations.
    { constrained d; rotation_matrix_body::Parameters p; LAGC_BIND_CONSTRAINED(rotation_matrix_body, d, p); v.push_back(d); }
    // The tethered kites: the rotation and the tether solved as two parts (the tether's by its
    // Schur complement), at random states off both constraints.
    { constrained d; kite_quaternion::Parameters p; LAGC_BIND_CONSTRAINED(kite_quaternion, d, p); v.push_back(d); }
    { constrained d; kite_rotation_matrix::Parameters p; LAGC_BIND_CONSTRAINED(kite_rotation_matrix, d, p); v.push_back(d); }
    // A free trunk with a leg of two hinges: the articulated-body algorithm over the floating
    // root, here at random states off |e| = 1 too.
    { constrained d; floating_leg::Parameters p; LAGC_BIND_CONSTRAINED(floating_leg, d, p); v.push_back(d); }
    { constrained d; slider_crank::Parameters p; LAGC_BIND_CONSTRAINED(slider_crank, d, p); v.push_back(d); }
    { constrained d; chaplygin_sled::Parameters p; LAGC_BIND_CONSTRAINED(chaplygin_sled, d, p); v.push_back(d); }
    // A massless slider and a sled without inertia, set at run time: M alone is singular.
    {
        constrained d;
        slider_crank::Parameters p;
        p.m3 = 0;
        LAGC_BIND_CONSTRAINED(slider_crank, d, p);
        d.name = "slider_crank_massless_slider";
        v.push_back(d);
    }
    {
        constrained d;
        chaplygin_sled::Parameters p;
        p.J = 0;
        LAGC_BIND_CONSTRAINED(chaplygin_sled, d, p);
        d.name = "chaplygin_sled_without_inertia";
        v.push_back(d);
    }
    {
        constrained d;
        crane_pendulum::Parameters p;
        d.name = "crane_pendulum";
        d.nq = crane_pendulum::nq, d.nu = crane_pendulum::nu, d.nc = crane_pendulum::nc;
        d.fd = [p](double t, const double* q, const double* qd, const double* u, double* qdd, double* l) {
            return crane_pendulum::forward_dynamics(t, q, qd, u, p, qdd, l);
        };
        d.residuals = [p](double t, const double* q, const double* qd, double* c) {
            crane_pendulum::constraint_residuals(t, q, qd, p, c);
        };
        d.jacobian = [p](double t, const double* q, double* A) { crane_pendulum::constraint_jacobian(t, q, p, A); };
        d.system = [p](double t, const double* q, const double* qd, const double* u, double* K, double* r) {
            crane_pendulum::semi_implicit_system(t, q, qd, u, p, K, r);
        };
        d.energy = [p](double t, const double* q, const double* qd) {
            return crane_pendulum::kinetic_energy(t, q, qd, p) + crane_pendulum::potential_energy(t, q, p);
        };
        v.push_back(d);
    }
    return v;
}

void PrintTo(constrained const& d, std::ostream* os) { *os << d.name; }

class Constrained : public ::testing::TestWithParam<constrained> {};

TEST_P(Constrained, ForwardDynamicsSolvesTheSemiImplicitSystem) {
    constrained const& d = GetParam();
    int n = d.nq, N = d.nq + d.nc;
    std::mt19937 rng(13);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        vec q(n), qd(n), u(std::max(d.nu, 1)), qdd(n), lambda(d.nc), K(N * N), rhs(N);
        for (auto& x : q) x = U(rng);
        for (auto& x : qd) x = U(rng);
        for (auto& x : u) x = U(rng);
        double t = 2 * U(rng) + 2;
        ASSERT_EQ(d.fd(t, q.data(), qd.data(), u.data(), qdd.data(), lambda.data()), 0);
        d.system(t, q.data(), qd.data(), u.data(), K.data(), rhs.data());
        double scale = 1 + max_abs(rhs);
        for (int i = 0; i < N; ++i) {
            double r = -rhs[i];
            for (int j = 0; j < N; ++j) r += K[i * N + j] * (j < n ? qdd[j] : lambda[j - n]);
            EXPECT_NEAR(r, 0.0, 1e-12 * scale) << "row " << i;
        }
        // The A block of K is constraint_jacobian, and K is symmetric.
        vec A(d.nc * n);
        d.jacobian(t, q.data(), A.data());
        for (int k = 0; k < d.nc; ++k)
            for (int j = 0; j < n; ++j) {
                EXPECT_EQ(K[(n + k) * N + j], A[k * n + j]);
                EXPECT_EQ(K[j * N + n + k], A[k * n + j]);
            }
    }
}

INSTANTIATE_TEST_SUITE_P(Generated, Constrained, ::testing::ValuesIn(all_constrained()),
                         [](auto const& info) { return info.param.name; });

// ---- Baumgarte stabilisation ---------------------------------------------------------

// Max |c| over [0, 2 s] and over the whole run, from rest at 1.2 rad (c = c' = 0).
std::pair<double, double> cartesian_pendulum_drift(double alpha, double beta, double seconds,
                                                   std::vector<std::pair<double, double>>* trace = nullptr) {
    constrained d;
    cartesian_pendulum::Parameters p;
    p.alpha_c = alpha;
    p.beta_c = beta;
    LAGC_BIND_CONSTRAINED(cartesian_pendulum, d, p);
    double t = 0, th = 1.2;
    vec q = {p.l * std::sin(th), -p.l * std::cos(th)}, qd = {0, 0};
    double early = 0, worst = 0;
    int step = 0;
    while (t < seconds - 1e-9) {
        rk4(d, t, q, qd, no_input, 1e-3);
        double c[1];
        d.residuals(t, q.data(), qd.data(), c);
        worst = std::max(worst, std::abs(c[0]));
        if (t <= 2.0) early = worst;
        if (trace && ++step % 20 == 0) trace->push_back({t, std::abs(c[0])});
    }
    return {early, worst};
}

TEST(Baumgarte, CartesianPendulumDriftWithAndWithoutStabilisation) {
    std::vector<std::pair<double, double>> with_trace, without_trace;
    auto [with_early, with] = cartesian_pendulum_drift(10, 10, 20, &with_trace);
    auto [without_early, without] = cartesian_pendulum_drift(0, 0, 20, &without_trace);
    std::printf("[ drift    ] cartesian pendulum, 20 s RK4 dt 1e-3: max |c| = %.3e with alpha = beta = 10, "
                "%.3e without (%.3e after 2 s)\n",
                with, without, without_early);
    EXPECT_LT(with, 1e-8);
    EXPECT_GT(without, 10 * without_early) << "without stabilisation the drift should keep growing";
    EXPECT_GT(without, 100 * with);
    // The data behind docs/constraint-drift.png (written when LAGC_DRIFT_CSV names a file).
    if (char const* path = std::getenv("LAGC_DRIFT_CSV")) {
        FILE* f = std::fopen(path, "w");
        ASSERT_NE(f, nullptr);
        std::fprintf(f, "t,with,without\n");
        for (std::size_t i = 0; i < with_trace.size(); ++i)
            std::fprintf(f, "%.3f,%.6e,%.6e\n", with_trace[i].first, with_trace[i].second, without_trace[i].second);
        std::fclose(f);
    }
}

TEST(Baumgarte, WheeledRobotNeverSlidesSideways) {
    constrained d;
    wheeled_robot::Parameters p;
    LAGC_BIND_CONSTRAINED(wheeled_robot, d, p);
    double t = 0;
    vec q = {0, 0, 0.3}, qd = {0, 0, 0};
    // A manoeuvre: accelerate, weave, brake.
    auto input = [](double s, vec const&, vec const&) { return vec{2.0 * std::cos(0.4 * s), 0.3 * std::sin(1.3 * s)}; };
    double worst = 0;
    while (t < 10 - 1e-9) {
        rk4(d, t, q, qd, input, 1e-3);
        double g[1];
        d.residuals(t, q.data(), qd.data(), g);
        worst = std::max(worst, std::abs(g[0]));
    }
    std::printf("[ drift    ] wheeled robot, 10 s: max sideways velocity %.3e m/s (final speed %.3f m/s)\n", worst,
                std::hypot(qd[0], qd[1]));
    EXPECT_LT(worst, 1e-9);
    EXPECT_GT(std::hypot(q[0], q[1]), 1.0) << "the robot should have moved";
}

TEST(Baumgarte, EnergyConservedWithStabilisationOn) {
    for (auto const& d : all_constrained()) {
        if (d.name != "cartesian_pendulum" && d.name != "constrained_pendulum" &&
            d.name != "double_pendulum_cartesian")
            continue;
        vec q(d.nq), qd(d.nq, 0.0);
        if (d.name == "cartesian_pendulum") q = {std::sin(1.0), -std::cos(1.0)}, qd = {0.5 * std::cos(1.0), 0.5 * std::sin(1.0)};
        if (d.name == "constrained_pendulum") q = {0.8, 1.0}, qd = {0.0, 0.8};
        if (d.name == "double_pendulum_cartesian") q = {std::sin(0.6), -std::cos(0.6), std::sin(0.6) + std::sin(-0.4), -std::cos(0.6) - std::cos(-0.4)};
        double t = 0, E0 = d.energy(t, q.data(), qd.data()), worst = 0;
        while (t < 10 - 1e-9) {
            rk4(d, t, q, qd, no_input, 5e-4);
            worst = std::max(worst, std::abs(d.energy(t, q.data(), qd.data()) - E0) / std::abs(E0));
        }
        std::printf("[ energy   ] %s: relative drift %.2e over 10 s with stabilisation\n", d.name.c_str(), worst);
        EXPECT_LT(worst, 1e-6) << d.name;
    }
}

// ---- the same system in two coordinate sets -----------------------------------------

TEST(Equivalence, CartesianAndPolarPendulum) {
    constrained cart;
    cartesian_pendulum::Parameters pc;
    LAGC_BIND_CONSTRAINED(cartesian_pendulum, cart, pc);
    simple_pendulum::Parameters pp;
    pp.m = pc.m, pp.l = pc.l, pp.g = pc.g;
    double th0 = 1.1, w0 = 0.4, t = 0;
    vec q = {pc.l * std::sin(th0), -pc.l * std::cos(th0)}, qd = {pc.l * w0 * std::cos(th0), pc.l * w0 * std::sin(th0)};
    vec th = {th0}, w = {w0};
    constrained polar;
    polar.nq = 1;
    polar.fd = [pp](double, const double* x, const double* v, const double* u, double* a, double*) {
        return simple_pendulum::forward_dynamics(x, v, u, pp, a, nullptr);
    };
    double worst = 0, tp = 0;
    while (t < 5 - 1e-9) {
        rk4(cart, t, q, qd, no_input, 1e-3);
        rk4(polar, tp, th, w, no_input, 1e-3);
        double angle[1];
        cartesian_pendulum::output_angle(q.data(), qd.data(), pc, angle);
        worst = std::max(worst, std::abs(angle[0] - th[0]));
    }
    std::printf("[ polar    ] cartesian vs polar pendulum over 5 s: max |theta - atan2(x, -y)| = %.2e\n", worst);
    EXPECT_LT(worst, 1e-8);
}

TEST(Equivalence, CartesianAndPolarDoublePendulum) {
    constrained cart;
    double_pendulum_cartesian::Parameters pc;
    LAGC_BIND_CONSTRAINED(double_pendulum_cartesian, cart, pc);
    double_pendulum::Parameters pp;
    constrained polar;
    polar.nq = 2;
    polar.fd = [pp](double, const double* x, const double* v, const double* u, double* a, double*) {
        return double_pendulum::forward_dynamics(x, v, u, pp, a, nullptr);
    };
    vec th = {0.6, -0.4}, w = {0.3, -0.2};
    double s1 = std::sin(th[0]), c1 = std::cos(th[0]), s2 = std::sin(th[1]), c2 = std::cos(th[1]);
    vec q = {s1, -c1, s1 + s2, -c1 - c2};
    vec qd = {c1 * w[0], s1 * w[0], c1 * w[0] + c2 * w[1], s1 * w[0] + s2 * w[1]};
    double t = 0, tp = 0, worst = 0;
    while (t < 5 - 1e-9) {
        rk4(cart, t, q, qd, no_input, 5e-4);
        rk4(polar, tp, th, w, no_input, 5e-4);
        double a1 = std::atan2(q[0], -q[1]), a2 = std::atan2(q[2] - q[0], -(q[3] - q[1]));
        worst = std::max({worst, std::abs(a1 - th[0]), std::abs(a2 - th[1])});
    }
    std::printf("[ polar    ] cartesian vs polar double pendulum over 5 s: max angle difference %.2e\n", worst);
    EXPECT_LT(worst, 1e-8);
}

TEST(Equivalence, CranePendulumFollowsThePolarEquation) {
    // Rheonomic: L(t) = L0 + dL sin(w t); polar form theta'' = -(g sin(theta) + 2 L' theta') / L.
    constrained cart = all_constrained().back();
    ASSERT_EQ(cart.name, "crane_pendulum");
    crane_pendulum::Parameters p;
    auto L = [&](double s) { return p.L0 + p.dL * std::sin(p.w * s); };
    auto Ld = [&](double s) { return p.dL * p.w * std::cos(p.w * s); };
    constrained polar;
    polar.nq = 1;
    polar.fd = [&](double s, const double* x, const double* v, const double*, double* a, double*) {
        a[0] = -(p.g * std::sin(x[0]) + 2 * Ld(s) * v[0]) / L(s);
        return 0;
    };
    double th0 = 0.5, t = 0, tp = 0, worst = 0, worst_c = 0;
    vec th = {th0}, w = {0.0};
    vec q = {L(0) * std::sin(th0), -L(0) * std::cos(th0)};
    vec qd = {Ld(0) * std::sin(th0), -Ld(0) * std::cos(th0)}; // rope reeling, no swing
    while (t < 5 - 1e-9) {
        rk4(cart, t, q, qd, no_input, 1e-3);
        rk4(polar, tp, th, w, no_input, 1e-3);
        worst = std::max(worst, std::abs(std::atan2(q[0], -q[1]) - th[0]));
        double c[1];
        cart.residuals(t, q.data(), qd.data(), c);
        worst_c = std::max(worst_c, std::abs(c[0]));
        double len[1];
        crane_pendulum::output_rope_length(t, q.data(), qd.data(), p, len);
        ASSERT_NEAR(len[0], L(t), 1e-14);
    }
    std::printf("[ crane    ] 5 s: max angle difference %.2e, max |c| %.2e\n", worst, worst_c);
    EXPECT_LT(worst, 1e-8);
    EXPECT_LT(worst_c, 1e-8);
}

TEST(FourBar, MotorDrivenLoopStaysClosed) {
    constrained d;
    four_bar::Parameters p;
    LAGC_BIND_CONSTRAINED(four_bar, d, p);
    // A consistent initial configuration: crank angle given, coupler and rocker by Newton.
    vec q = {0.3, 0.4, 1.6}, qd(3, 0.0);
    for (int it = 0; it < 50; ++it) {
        double c[2], A[6];
        d.residuals(0, q.data(), qd.data(), c);
        d.jacobian(0, q.data(), A);
        // Solve the 2x2 system in (theta2, theta3) with theta1 fixed.
        double a = A[1], b = A[2], cc = A[4], dd = A[5], det = a * dd - b * cc;
        q[1] -= (dd * c[0] - b * c[1]) / det;
        q[2] -= (-cc * c[0] + a * c[1]) / det;
    }
    double c0[2];
    d.residuals(0, q.data(), qd.data(), c0);
    ASSERT_LT(max_abs({c0[0], c0[1]}), 1e-14);
    double t = 0, worst = 0;
    // A DC motor's speed-torque line: 4 N m at stall, none at 12 rad/s.
    auto motor = [](double, vec const&, vec const& v) { return vec{4.0 * (1 - v[0] / 12.0)}; };
    while (t < 5 - 1e-9) {
        rk4(d, t, q, qd, motor, 5e-4);
        double c[2];
        d.residuals(t, q.data(), qd.data(), c);
        worst = std::max({worst, std::abs(c[0]), std::abs(c[1])});
    }
    std::printf("[ drift    ] four-bar, 5 s motor-driven: max |c| = %.2e, crank turned %.2f rad\n", worst, q[0] - 0.3);
    EXPECT_LT(worst, 1e-8);
    EXPECT_GT(q[0] - 0.3, 1.0) << "the motor should turn the crank";
}

} // namespace

TEST(Multipliers, NonFiniteStateIsReportedNotReturned) {
    // A NaN velocity reaches the constraint's right-hand side and so lambda and qdd: 3.
    wheeled_robot::Parameters p;
    double q[3] = {0.1, 0.2, 0.3}, qd[3] = {0.5, 0.1, 0.2}, u[2] = {0.3, 0.1}, qdd[3], lambda[1];
    ASSERT_EQ(wheeled_robot::forward_dynamics(q, qd, u, p, qdd, lambda), 0);
    qd[2] = std::nan("");
    EXPECT_EQ(wheeled_robot::forward_dynamics(q, qd, u, p, qdd, lambda), 3);
    qd[2] = 0.2;
    u[1] = std::numeric_limits<double>::infinity();
    EXPECT_EQ(wheeled_robot::forward_dynamics(q, qd, u, p, qdd, lambda), 3);
}

TEST(Multipliers, LambdaMayBeNull) {
    // The tutorial passes nullptr for lambda everywhere; with constraints it is not written.
    four_bar::Parameters p;
    double q[3] = {0.5, 0.9, 1.1}, qd[3] = {0.3, -0.2, 0.1}, u[1] = {0.5}, with[3], without[3], lambda[2];
    ASSERT_EQ(four_bar::forward_dynamics(q, qd, u, p, with, lambda), 0);
    ASSERT_EQ(four_bar::forward_dynamics(q, qd, u, p, without, nullptr), 0);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(with[i], without[i]);
}

// ---- singular M, regular [[M, A^T], [A, 0]] -------------------------------------------

// The quaternion body: M = 4 G^T J G has rank 3. Oracles: Euler's equations
// J w' = (J w) x w + tau with w = 2 G(q) q' (so w' = 2 G(q) q'', as G(q') q' = 0), and a
// torque-free simulation that keeps T and |q|.
TEST(SingularMass, QuaternionBodyFollowsEulersEquations) {
    quaternion_body::Parameters p;
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        double q[4], qd[4], u[3], qdd[4], lambda[1];
        double norm = 0;
        for (double& x : q) x = U(rng), norm += x * x;
        for (double& x : q) x /= std::sqrt(norm);
        for (double& x : qd) x = U(rng);
        for (double& x : u) x = U(rng);
        // A velocity on the manifold (q . q' = 0), so Baumgarte adds nothing.
        double along = 0;
        for (int i = 0; i < 4; ++i) along += q[i] * qd[i];
        for (int i = 0; i < 4; ++i) qd[i] -= along * q[i];
        ASSERT_EQ(quaternion_body::forward_dynamics(q, qd, u, p, qdd, lambda), 0);
        double const G[3][4] = {{-q[1], q[0], q[3], -q[2]}, {-q[2], -q[3], q[0], q[1]}, {-q[3], q[2], -q[1], q[0]}};
        double w[3], wd[3];
        quaternion_body::output_angular_velocity(q, qd, p, w);
        for (int r = 0; r < 3; ++r) {
            wd[r] = 0;
            for (int c = 0; c < 4; ++c) wd[r] += 2 * G[r][c] * qdd[c];
        }
        double const J[3] = {p.J1, p.J2, p.J3};
        double const Jw[3] = {J[0] * w[0], J[1] * w[1], J[2] * w[2]};
        double const euler[3] = {(Jw[1] * w[2] - Jw[2] * w[1] + u[0]) / J[0], (Jw[2] * w[0] - Jw[0] * w[2] + u[1]) / J[1],
                                 (Jw[0] * w[1] - Jw[1] * w[0] + u[2]) / J[2]};
        for (int r = 0; r < 3; ++r) EXPECT_NEAR(wd[r], euler[r], 1e-12 * (1 + std::abs(euler[r]))) << "row " << r;
    }
}

// The rotation-matrix body, whose forward_dynamics works in the quasi-velocities W = R^T R'
// (no M, A or 15 x 15 system formed): on the manifold (R a rotation, R' = R [w]x, so the
// Baumgarte terms vanish), w = (W21, W02, W10) must follow Euler's equations, with
// w' = (R'^T R' + R^T R'')'s same entries.
TEST(SingularMass, RotationMatrixBodyFollowsEulersEquations) {
    rotation_matrix_body::Parameters p;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int trial = 0; trial < 20; ++trial) {
        double a[4], norm = 0;
        for (double& x : a) x = U(rng), norm += x * x;
        for (double& x : a) x /= std::sqrt(norm);
        double const w0 = a[0], x = a[1], y = a[2], z = a[3];
        double const R[9] = {w0 * w0 + x * x - y * y - z * z, 2 * (x * y - w0 * z), 2 * (x * z + w0 * y),
                             2 * (x * y + w0 * z), w0 * w0 - x * x + y * y - z * z, 2 * (y * z - w0 * x),
                             2 * (x * z - w0 * y), 2 * (y * z + w0 * x), w0 * w0 - x * x - y * y + z * z};
        double w[3], u[3];
        for (double& v : w) v = 2 * U(rng);
        for (double& v : u) v = U(rng);
        double const S[9] = {0, -w[2], w[1], w[2], 0, -w[0], -w[1], w[0], 0};
        double Rd[9], Rdd[9], lambda[6];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                Rd[i * 3 + j] = 0;
                for (int k = 0; k < 3; ++k) Rd[i * 3 + j] += R[i * 3 + k] * S[k * 3 + j];
            }
        ASSERT_EQ(rotation_matrix_body::forward_dynamics(R, Rd, u, p, Rdd, lambda), 0);
        // (R'^T R' + R^T R'')_ij, the derivative of W_ij.
        auto wdot = [&](int i, int j) {
            double s = 0;
            for (int k = 0; k < 3; ++k) s += Rd[k * 3 + i] * Rd[k * 3 + j] + R[k * 3 + i] * Rdd[k * 3 + j];
            return s;
        };
        double const wd[3] = {wdot(2, 1), wdot(0, 2), wdot(1, 0)};
        double const J[3] = {p.J1, p.J2, p.J3};
        double const Jw[3] = {J[0] * w[0], J[1] * w[1], J[2] * w[2]};
        double const euler[3] = {(Jw[1] * w[2] - Jw[2] * w[1] + u[0]) / J[0], (Jw[2] * w[0] - Jw[0] * w[2] + u[1]) / J[1],
                                 (Jw[0] * w[1] - Jw[1] * w[0] + u[2]) / J[2]};
        for (int r = 0; r < 3; ++r) EXPECT_NEAR(wd[r], euler[r], 1e-12 * (1 + std::abs(euler[r]))) << "row " << r;
        // The symmetric part of R^T R'' is what keeps R^T R = I: -(R'^T R')'s.
        for (int i = 0; i < 3; ++i)
            for (int j = i; j < 3; ++j) {
                double const sym = wdot(i, j) + wdot(j, i);
                EXPECT_NEAR(sym, 0.0, 1e-12) << i << j;
            }
    }
}

// `solve` (forward_dynamics into qdd and lambda) returns `status`, and on failure leaves both
// as they were.
template <std::size_t N, std::size_t C>
void expect_status_untouched(std::function<int()> const& solve, int status, double (&qdd)[N], double (&lambda)[C]) {
    for (double& v : qdd) v = 7;
    for (double& v : lambda) v = 7;
    EXPECT_EQ(solve(), status);
    if (status == 0) return;
    for (double v : qdd) EXPECT_EQ(v, 7);
    for (double v : lambda) EXPECT_EQ(v, 7);
}

TEST(SingularMass, RotationMatrixBodyStatuses) {
    // Statuses as the dense path gives them, and nothing written on failure: a body without
    // inertia about one axis (1), a matrix R that is singular (1: its quasi-velocities W = R^T R'
    // cannot be inverted), NaN in the state (3).
    rotation_matrix_body::Parameters p;
    double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, Rd[9] = {0, -0.3, 0.2, 0.3, 0, -0.1, -0.2, 0.1, 0};
    double const u[3] = {0.1, 0.2, 0.3};
    double qdd[9], lambda[6];
    ASSERT_EQ(rotation_matrix_body::forward_dynamics(R, Rd, u, p, qdd, lambda), 0);
    auto untouched = [&](int expected) {
        expect_status_untouched([&] { return rotation_matrix_body::forward_dynamics(R, Rd, u, p, qdd, lambda); }, expected,
                                qdd, lambda);
    };
    p.J2 = 0;
    untouched(1);
    p.J2 = 0.12;
    R[8] = 0; // third row and column zero: det R = 0
    R[4] = 0;
    R[0] = 0;
    untouched(1);
    R[0] = R[4] = R[8] = 1;
    Rd[1] = std::nan("");
    untouched(3);
}

TEST(SingularMass, KiteStatuses) {
    // Each part's own status: the tether at the anchor (p = 0: its row A = p^T vanishes, 2),
    // a massless kite (1), a quaternion of zero (1: its block of quasi-velocities 2 G(q), 2 q^T
    // is singular), and nothing written on failure.
    kite_quaternion::Parameters p;
    double q[7] = {43.3, 0.0, 25.0, 1.0, 0.0, 0.0, 0.0}, qd[7] = {-2.5, 8.0, 4.33, 0.0, 0.1, -0.2, 0.05};
    double const u[3] = {0.1, 0.2, 0.3};
    double qdd[7], lambda[2];
    ASSERT_EQ(kite_quaternion::forward_dynamics(q, qd, u, p, qdd, lambda), 0);
    auto expect = [&](int status) {
        expect_status_untouched([&] { return kite_quaternion::forward_dynamics(q, qd, u, p, qdd, lambda); }, status,
                                qdd, lambda);
    };
    q[0] = q[1] = q[2] = 0;
    expect(2);
    q[0] = 43.3, q[2] = 25.0;
    p.m = 0;
    expect(1);
    p.m = 20;
    q[3] = 0;
    expect(1);
    q[3] = 1;
    qd[4] = std::numeric_limits<double>::infinity();
    expect(3);
    // The rotation-matrix kite: the tether at the anchor (2), no inertia about one axis (1).
    kite_rotation_matrix::Parameters pr;
    double r[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, rd[12] = {-2.5, 8.0, 4.33, 0, -0.3, 0.2, 0.3, 0, -0.1, -0.2, 0.1, 0};
    double rdd[12], rl[7];
    EXPECT_EQ(kite_rotation_matrix::forward_dynamics(r, rd, u, pr, rdd, rl), 2);
    r[0] = 43.3, r[2] = 25.0;
    ASSERT_EQ(kite_rotation_matrix::forward_dynamics(r, rd, u, pr, rdd, rl), 0);
    pr.J3 = 0;
    EXPECT_EQ(kite_rotation_matrix::forward_dynamics(r, rd, u, pr, rdd, rl), 1);
}

TEST(SingularMass, FloatingLegStatuses) {
    // The articulated-body algorithm's statuses, nothing written on failure: the leg without
    // inertia or armature (its joints' pivots, 1), the trunk without mass or inertia (the
    // root's 6 x 6 pivots, 1), NaN in the state (3), a quaternion of zero (not finite, 3).
    floating_leg::Parameters p;
    double q[9] = {0.1, -0.2, 1.0, 0.9, 0.1, -0.3, 0.2, 0.4, -0.6}, qd[9] = {0.3, 0.1, -0.2, 0.1, -0.2, 0.3, 0.1, 1.5, -0.7};
    double const u[3] = {2.0, 0.3, -0.1};
    double qdd[9], lambda[1];
    ASSERT_EQ(floating_leg::forward_dynamics(q, qd, u, p, qdd, lambda), 0);
    auto expect = [&](int status) {
        expect_status_untouched([&] { return floating_leg::forward_dynamics(q, qd, u, p, qdd, lambda); }, status, qdd,
                                lambda);
    };
    floating_leg::Parameters const defaults = p;
    p.m1 = p.J1x = p.J1y = p.J1z = p.ia = p.ib = 0;
    expect(1);
    p = defaults;
    p.m0 = p.m1 = p.J0x = p.J0y = p.J0z = p.J1x = p.J1y = p.J1z = 0;
    expect(1);
    p = defaults;
    qd[7] = std::nan("");
    expect(3);
    qd[7] = 1.5;
    q[3] = q[4] = q[5] = q[6] = 0;
    expect(3);
}

TEST(SingularMass, FloatingLegKeepsEnergyAndUnitNorm) {
    // The trunk thrown with a spin, the leg swinging, gravity and no inputs: 5 s of RK4 keep
    // the energy and |e| = 1.
    constrained d;
    floating_leg::Parameters p;
    LAGC_BIND_CONSTRAINED(floating_leg, d, p);
    vec q = {0, 0, 1, 1, 0, 0, 0, 0.3, -0.4}, qd = {0.5, 0, 2.0, 0, 0.4, -0.2, 0.6, 1.0, -2.0};
    double t = 0, E0 = d.energy(t, q.data(), qd.data()), energy = 0, unit = 0;
    auto no_input = [](double, vec const&, vec const&) { return vec(3, 0.0); };
    while (t < 5 - 1e-9) {
        rk4(d, t, q, qd, no_input, 1e-3);
        energy = std::max(energy, std::abs(d.energy(t, q.data(), qd.data()) - E0) / std::abs(E0));
        unit = std::max(unit, std::abs(std::sqrt(q[3] * q[3] + q[4] * q[4] + q[5] * q[5] + q[6] * q[6]) - 1));
    }
    std::printf("[ floating ] 5 s without inputs: relative energy drift %.2e, | |e| - 1 | %.2e\n", energy, unit);
    EXPECT_LT(energy, 1e-9);
    EXPECT_LT(unit, 1e-9);
}

TEST(SingularMass, QuaternionBodyKeepsEnergyAndUnitNorm) {
    constrained d;
    quaternion_body::Parameters p;
    LAGC_BIND_CONSTRAINED(quaternion_body, d, p);
    // w = (1, 2, 0.5) at the identity: q' = G^T w / 2 = (0, w) / 2. Near the unstable
    // middle axis, so the body tumbles.
    vec q = {1, 0, 0, 0}, qd = {0, 0.5, 1.0, 0.25};
    double t = 0, E0 = d.energy(t, q.data(), qd.data()), energy = 0, unit = 0;
    auto zero_torque = [](double, vec const&, vec const&) { return vec(3, 0.0); };
    while (t < 20 - 1e-9) {
        rk4(d, t, q, qd, zero_torque, 1e-3);
        energy = std::max(energy, std::abs(d.energy(t, q.data(), qd.data()) - E0) / E0);
        unit = std::max(unit, std::abs(std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1));
    }
    std::printf("[ quatern. ] 20 s torque-free: relative energy drift %.2e, | |q| - 1 | %.2e\n", energy, unit);
    EXPECT_LT(energy, 1e-9);
    EXPECT_LT(unit, 1e-9);
}

// Three coordinates for a pendulum: x and y carry the mass, theta none; theta'' must be the
// pendulum's -g/r sin(theta), the rod force m (g cos(theta) + r theta'^2), energy kept.
TEST(SingularMass, CircleByThreeCoordinatesIsAPendulum) {
    circle_three_coordinates::Parameters p;
    for (double th : {-2.5, -0.7, 0.0, 0.4, 1.9}) {
        double const w = 0.8 - 0.3 * th;
        double q[3] = {p.r * std::sin(th), -p.r * std::cos(th), th};
        double qd[3] = {p.r * std::cos(th) * w, p.r * std::sin(th) * w, w}, qdd[3], lambda[2];
        ASSERT_EQ(circle_three_coordinates::forward_dynamics(q, qd, nullptr, p, qdd, lambda), 0);
        EXPECT_NEAR(qdd[2], -p.g / p.r * std::sin(th), 1e-12) << th;
        // x'' and y'' are the bob's acceleration on the circle.
        double const a = qdd[2];
        EXPECT_NEAR(qdd[0], p.r * (std::cos(th) * a - std::sin(th) * w * w), 1e-12);
        EXPECT_NEAR(qdd[1], p.r * (std::sin(th) * a + std::cos(th) * w * w), 1e-12);
    }
    constrained d;
    LAGC_BIND_CONSTRAINED(circle_three_coordinates, d, p);
    double th = 1.2, t = 0;
    vec q = {p.r * std::sin(th), -p.r * std::cos(th), th}, qd = {0, 0, 0};
    double E0 = d.energy(t, q.data(), qd.data()), worst = 0;
    while (t < 20 - 1e-9) {
        rk4(d, t, q, qd, no_input, 1e-3);
        worst = std::max(worst, std::abs(d.energy(t, q.data(), qd.data()) - E0));
    }
    std::printf("[ circle3  ] 20 s: energy drift %.2e J\n", worst);
    EXPECT_LT(worst, 1e-8);
}

// The control API on every bundled model: linearization's A and B against central
// finite differences of forward_dynamics (constrained models included: the derivatives of
// the Baumgarte-stabilised solution), inverse_dynamics against forward_dynamics both ways,
// input_matrix against differences of Q, state_derivative, and the integrators' order and
// energy behaviour.
#include "bead_on_hoop.hpp"
#include "cart_pendulum.hpp"
#include "cartesian_pendulum.hpp"
#include "chain10_rel.hpp"
#include "circle_three_coordinates.hpp"
#include "arm_on_table.hpp"
#include "constrained_pendulum.hpp"
#include "crane_pendulum.hpp"
#include "double_pendulum.hpp"
#include "double_pendulum_cartesian.hpp"
#include "elastic_pendulum.hpp"
#include "four_bar.hpp"
#include "friction_block.hpp"
#include "inclined_plane.hpp"
#include "kite_rotation_matrix.hpp"
#include "ladle.hpp"
#include "pendulum_horizontal_force.hpp"
#include "charged_pendulum.hpp"
#include "planar_arm.hpp"
#include "quadrotor.hpp"
#include "quadrotor_omega_from_R.hpp"
#include "quadrotor_world_axes.hpp"
#include "panda_like.hpp"
#include "quaternion_body.hpp"
#include "rolling_wheel.hpp"
#include "simple_pendulum.hpp"
#include "spinning_top.hpp"
#include "spring_damper_pendulum.hpp"
#include "tilted_rod.hpp"
#include "two_bar_linkage.hpp"
#include "ur5_like.hpp"
#include "wheeled_robot.hpp"
#include "slider_crank.hpp"
#include "slider_crank_reduced.hpp"
#include "chaplygin_sled.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using vec = std::vector<double>;

// One model's control API with its default parameters (and t = 1.3 where it takes t).
struct plant {
    std::string name;
    int nq = 0, nu = 0, nc = 0;
    std::function<int(const double*, const double*, const double*, double*, double*)> fd; // q qd u -> qdd lambda
    std::function<int(const double*, const double*, const double*, double*, double*)> lin; // q qd u -> A B
    std::function<void(const double*, const double*, const double*, const double*, double*)> inv; // q qd qdd u -> tau
    std::function<void(const double*, const double*, const double*, double*)> input_matrix; // q qd u -> B
    std::function<void(const double*, const double*, const double*, double*)> Q;            // q qd u -> Q
    std::function<void(const double*, double*)> A;                                          // constraint Jacobian
    std::function<int(const double*, const double*, double*)> xdot;                          // x u -> xdot
    double q_offset = 0, q_scale = 1; // states drawn from offset + scale * [-1, 1]
    int offset_index = -1;            // the coordinate the offset applies to (-1: all)
};

#define LAGC_PLANT(NS, d, ...)                                                                                    \
    do {                                                                                                          \
        NS::Parameters p{};                                                                                       \
        d.name = #NS, d.nq = NS::nq, d.nu = NS::nu, d.nc = NS::nc;                                                \
        d.fd = [p](const double* q, const double* qd, const double* u, double* a, double* l) {                    \
            return NS::forward_dynamics(__VA_ARGS__ q, qd, u, p, a, l);                                           \
        };                                                                                                        \
        d.lin = [p](const double* q, const double* qd, const double* u, double* A, double* B) {                   \
            return NS::linearization(__VA_ARGS__ q, qd, u, p, A, B);                                              \
        };                                                                                                        \
        d.inv = [p](const double* q, const double* qd, const double* a, const double* u, double* tau) {           \
            NS::inverse_dynamics(__VA_ARGS__ q, qd, a, u, p, tau);                                                \
        };                                                                                                        \
        d.input_matrix = [p](const double* q, const double* qd, const double* u, double* B) {                     \
            NS::input_matrix(__VA_ARGS__ q, qd, u, p, B);                                                         \
        };                                                                                                        \
        d.Q = [p](const double* q, const double* qd, const double* u, double* Q) {                                \
            NS::generalized_forces(__VA_ARGS__ q, qd, u, p, Q);                                                   \
        };                                                                                                        \
        d.xdot = [p](const double* x, const double* u, double* xd) { return NS::state_derivative(__VA_ARGS__ x, u, p, xd); }; \
    } while (0)
#define LAGC_CONSTRAINTS(NS, d, ...) \
    d.A = [](const double* q, double* A) { NS::constraint_jacobian(__VA_ARGS__ q, NS::Parameters{}, A); }

std::vector<plant> all_plants() {
    std::vector<plant> v;
    auto add = [&](plant d) { v.push_back(std::move(d)); };
    { plant d; LAGC_PLANT(simple_pendulum, d); add(d); }
    { plant d; LAGC_PLANT(elastic_pendulum, d); d.q_offset = 0.6, d.offset_index = 0; add(d); }
    { plant d; LAGC_PLANT(pendulum_horizontal_force, d); add(d); }
    { plant d; LAGC_PLANT(charged_pendulum, d); add(d); }
    { plant d; LAGC_PLANT(inclined_plane, d); add(d); }
    { plant d; LAGC_PLANT(cart_pendulum, d); add(d); }
    { plant d; LAGC_PLANT(spring_damper_pendulum, d); add(d); }
    { plant d; LAGC_PLANT(bead_on_hoop, d); d.q_offset = 0.9, d.offset_index = 0, d.q_scale = 0.4; add(d); }
    { plant d; LAGC_PLANT(ladle, d); add(d); }
    { plant d; LAGC_PLANT(two_bar_linkage, d); add(d); }
    { plant d; LAGC_PLANT(double_pendulum, d); add(d); }
    { plant d; LAGC_PLANT(spinning_top, d); d.q_offset = 0.9, d.offset_index = 1, d.q_scale = 0.4; add(d); }
    { plant d; LAGC_PLANT(chain10_rel, d); add(d); }
    { plant d; LAGC_PLANT(planar_arm, d); add(d); }
    { plant d; LAGC_PLANT(tilted_rod, d); add(d); }
    // 3-D bodies: Euler angles away from their singular pitch, ω from R, world axes.
    { plant d; LAGC_PLANT(quadrotor, d); d.q_scale = 0.5; add(d); }
    { plant d; LAGC_PLANT(quadrotor_omega_from_R, d); d.q_scale = 0.5; add(d); }
    { plant d; LAGC_PLANT(quadrotor_world_axes, d); d.q_scale = 0.5; add(d); }
    { plant d; LAGC_PLANT(cartesian_pendulum, d); LAGC_CONSTRAINTS(cartesian_pendulum, d); d.q_offset = 0.8; add(d); }
    { plant d; LAGC_PLANT(constrained_pendulum, d); LAGC_CONSTRAINTS(constrained_pendulum, d); d.q_offset = 0.9, d.offset_index = 0, d.q_scale = 0.3; add(d); }
    { plant d; LAGC_PLANT(wheeled_robot, d); LAGC_CONSTRAINTS(wheeled_robot, d); add(d); }
    { plant d; LAGC_PLANT(rolling_wheel, d); LAGC_CONSTRAINTS(rolling_wheel, d); add(d); }
    { plant d; LAGC_PLANT(double_pendulum_cartesian, d); LAGC_CONSTRAINTS(double_pendulum_cartesian, d); d.q_offset = 0.5; add(d); }
    { plant d; LAGC_PLANT(four_bar, d); LAGC_CONSTRAINTS(four_bar, d); add(d); }
    { plant d; LAGC_PLANT(slider_crank, d); LAGC_CONSTRAINTS(slider_crank, d); add(d); }
    { plant d; LAGC_PLANT(slider_crank_reduced, d); d.q_scale = 0.5; add(d); }
    { plant d; LAGC_PLANT(chaplygin_sled, d); LAGC_CONSTRAINTS(chaplygin_sled, d); add(d); }
    { plant d; LAGC_PLANT(crane_pendulum, d, 1.3,); LAGC_CONSTRAINTS(crane_pendulum, d, 1.3,); add(d); }
    // abs, sign, min, max: away from the kinks the derivatives are the ordinary ones.
    { plant d; LAGC_PLANT(friction_block, d); add(d); }
    { plant d; LAGC_PLANT(ur5_like, d); add(d); }
    { plant d; LAGC_PLANT(panda_like, d); add(d); }
    // A 3-D arm's composites with a constraint row (the tool tip on a table).
    { plant d; LAGC_PLANT(arm_on_table, d); LAGC_CONSTRAINTS(arm_on_table, d); d.q_scale = 0.6; add(d); }
    // M alone singular, the whole system regular (M + rho A^T A inside).
    { plant d; LAGC_PLANT(quaternion_body, d); LAGC_CONSTRAINTS(quaternion_body, d); d.q_offset = 0.5; add(d); }
    { plant d; LAGC_PLANT(circle_three_coordinates, d); LAGC_CONSTRAINTS(circle_three_coordinates, d); add(d); }
    return v;
}

void PrintTo(plant const& d, std::ostream* os) { *os << d.name; }

struct state {
    vec q, qd, u;
};

// States where forward_dynamics succeeds, drawn reproducibly.
std::vector<state> states(plant const& d, int count) {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(-1, 1);
    std::vector<state> out;
    for (int tries = 0; tries < 10 * count && static_cast<int>(out.size()) < count; ++tries) {
        state s{vec(d.nq), vec(d.nq), vec(std::max(d.nu, 1))};
        for (int i = 0; i < d.nq; ++i) {
            bool const shifted = d.offset_index < 0 || d.offset_index == i;
            s.q[i] = (shifted ? d.q_offset : 0) + (shifted ? d.q_scale : 1) * U(rng);
        }
        for (auto& x : s.qd) x = U(rng);
        for (auto& x : s.u) x = U(rng);
        vec qdd(d.nq), l(std::max(d.nc, 1));
        if (d.fd(s.q.data(), s.qd.data(), s.u.data(), qdd.data(), l.data()) == 0) out.push_back(s);
    }
    return out;
}

class Control : public ::testing::TestWithParam<plant> {};

TEST_P(Control, LinearizationIsTheDerivativeOfForwardDynamics) {
    plant const& d = GetParam();
    int const n = d.nq, nx = 2 * n, nu = d.nu;
    double worst = 0;
    auto const samples = states(d, 6);
    ASSERT_EQ(samples.size(), 6u);
    for (auto const& s : samples) {
        vec A(nx * nx, -7), B(std::max(nx * nu, 1), -7);
        ASSERT_EQ(d.lin(s.q.data(), s.qd.data(), s.u.data(), A.data(), B.data()), 0);
        // Column c of [A, B] by central differences of forward_dynamics.
        for (int c = 0; c < nx + nu; ++c) {
            state plus = s, minus = s;
            double& xp = c < n ? plus.q[c] : c < nx ? plus.qd[c - n] : plus.u[c - nx];
            double& xm = c < n ? minus.q[c] : c < nx ? minus.qd[c - n] : minus.u[c - nx];
            // Central differences at h and h/2, Richardson-extrapolated (error O(h⁴)): plain
            // differences lose digits to round-off on the ill-conditioned 10-link chain.
            double const x0 = xp, h = 1e-3 * std::max(1.0, std::abs(x0));
            auto central = [&](double step) {
                xp = x0 + step, xm = x0 - step;
                vec ap(n), am(n), l(std::max(d.nc, 1)), out(n);
                EXPECT_EQ(d.fd(plus.q.data(), plus.qd.data(), plus.u.data(), ap.data(), l.data()), 0);
                EXPECT_EQ(d.fd(minus.q.data(), minus.qd.data(), minus.u.data(), am.data(), l.data()), 0);
                for (int i = 0; i < n; ++i) out[i] = (ap[i] - am[i]) / (2 * step);
                return out;
            };
            vec const coarse = central(h), fine = central(h / 2);
            for (int i = 0; i < nx; ++i) {
                // d(qd_i)/dx is the identity block; d(qdd_i)/dx by differences.
                double want = i < n ? (c == n + i ? 1.0 : 0.0) : (4 * fine[i - n] - coarse[i - n]) / 3;
                double got = c < nx ? A[i * nx + c] : B[i * nu + (c - nx)];
                double err = std::abs(got - want) / (1 + std::abs(want));
                worst = std::max(worst, err);
                EXPECT_LT(err, 1e-6) << d.name << ": row " << i << ", column " << c << ": " << got << " vs " << want;
            }
        }
    }
    std::printf("[ control  ] %s: A and B agree with extrapolated central differences to %.1e\n", d.name.c_str(), worst);
}

TEST_P(Control, InverseDynamicsAndForwardDynamicsAgree) {
    plant const& d = GetParam();
    int const n = d.nq;
    for (auto const& s : states(d, 5)) {
        vec qdd(n), l(std::max(d.nc, 1)), tau(n), Ac(std::max(d.nc * n, 1));
        ASSERT_EQ(d.fd(s.q.data(), s.qd.data(), s.u.data(), qdd.data(), l.data()), 0);
        d.inv(s.q.data(), s.qd.data(), qdd.data(), s.u.data(), tau.data());
        // tau = M qdd + h - Q: zero at forward_dynamics' solution, -A^T lambda with constraints.
        if (d.nc > 0) d.A(s.q.data(), Ac.data());
        double scale = 1;
        for (double x : tau) scale = std::max(scale, std::abs(x));
        for (int i = 0; i < n; ++i) {
            double want = 0;
            for (int k = 0; k < d.nc; ++k) want -= Ac[k * n + i] * l[k];
            EXPECT_NEAR(tau[i], want, 1e-11 * scale) << d.name << " row " << i;
        }
    }
}

TEST_P(Control, InputMatrixIsTheDerivativeOfQ) {
    plant const& d = GetParam();
    int const n = d.nq, nu = d.nu;
    for (auto const& s : states(d, 3)) {
        vec B(std::max(n * nu, 1)), Qp(n), Qm(n);
        d.input_matrix(s.q.data(), s.qd.data(), s.u.data(), B.data());
        for (int c = 0; c < nu; ++c) {
            vec up = s.u, um = s.u;
            up[c] += 1e-6, um[c] -= 1e-6;
            d.Q(s.q.data(), s.qd.data(), up.data(), Qp.data());
            d.Q(s.q.data(), s.qd.data(), um.data(), Qm.data());
            for (int i = 0; i < n; ++i) EXPECT_NEAR(B[i * nu + c], (Qp[i] - Qm[i]) / 2e-6, 1e-7) << d.name;
        }
    }
}

TEST_P(Control, StateDerivativeIsVelocityAndAcceleration) {
    plant const& d = GetParam();
    int const n = d.nq;
    for (auto const& s : states(d, 3)) {
        vec x(2 * n), xd(2 * n), qdd(n), l(std::max(d.nc, 1));
        std::copy(s.q.begin(), s.q.end(), x.begin());
        std::copy(s.qd.begin(), s.qd.end(), x.begin() + n);
        ASSERT_EQ(d.xdot(x.data(), s.u.data(), xd.data()), 0);
        ASSERT_EQ(d.fd(s.q.data(), s.qd.data(), s.u.data(), qdd.data(), l.data()), 0);
        for (int i = 0; i < n; ++i) {
            EXPECT_EQ(xd[i], s.qd[i]);
            EXPECT_EQ(xd[n + i], qdd[i]);
        }
    }
}

// Where forward_dynamics fails (NaN or Inf in the state or the inputs), linearization fails
// with the same status: it takes q̈ (and, without constraints on large models, M's factor)
// from forward_dynamics' own code. A value no equation reads (a cart's position) fails
// neither; every model fails somewhere but the inclined plane, whose q̈ reads no state.
TEST_P(Control, LinearizationFailsWhereForwardDynamicsFails) {
    plant const& d = GetParam();
    int const n = d.nq;
    double const bad[] = {std::nan(""), HUGE_VAL};
    char const* const names[] = {"q", "qd", "u"};
    int failures = 0;
    for (auto const& s : states(d, 1))
        for (int where = 0; where < 3; ++where)
            for (double b : bad) {
                state t = s;
                vec& v = where == 0 ? t.q : where == 1 ? t.qd : t.u;
                std::fill(v.begin(), v.end(), b);
                vec qdd(n), l(std::max(d.nc, 1)), A(4 * n * n), B(std::max(2 * n * d.nu, 1));
                int const fd = d.fd(t.q.data(), t.qd.data(), t.u.data(), qdd.data(), l.data());
                int const lin = d.lin(t.q.data(), t.qd.data(), t.u.data(), A.data(), B.data());
                EXPECT_EQ(lin, fd) << d.name << " with " << b << " in " << names[where];
                failures += fd != 0;
            }
    if (d.name != "inclined_plane") EXPECT_GT(failures, 0) << d.name;
}

INSTANTIATE_TEST_SUITE_P(Generated, Control, ::testing::ValuesIn(all_plants()),
                         [](auto const& info) { return info.param.name; });

// Computed-torque: for the fully actuated chain (Q = u), u = inverse_dynamics(q, qd, qdd, 0)
// makes forward_dynamics return that qdd.
TEST(Control, ComputedTorqueReproducesTheWantedAcceleration) {
    chain10_rel::Parameters p;
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> U(-1, 1);
    vec q(10), qd(10), want(10), zero(10, 0.0), u(10), got(10), B(100);
    for (int trial = 0; trial < 5; ++trial) {
        for (int i = 0; i < 10; ++i) q[i] = U(rng), qd[i] = U(rng), want[i] = 3 * U(rng);
        chain10_rel::input_matrix(q.data(), qd.data(), zero.data(), p, B.data());
        for (int i = 0; i < 10; ++i)
            for (int j = 0; j < 10; ++j) ASSERT_EQ(B[i * 10 + j], i == j ? 1.0 : 0.0);
        chain10_rel::inverse_dynamics(q.data(), qd.data(), want.data(), zero.data(), p, u.data());
        ASSERT_EQ(chain10_rel::forward_dynamics(q.data(), qd.data(), u.data(), p, got.data(), nullptr), 0);
        for (int i = 0; i < 10; ++i) EXPECT_NEAR(got[i], want[i], 1e-10 * (1 + std::abs(want[i])));
    }
}

// The largest energy error of a model over `seconds` of steps of dt from x0.
template <class P, class Step, class Energy>
double energy_error(Step step, Energy energy, std::vector<double> x, double dt, double seconds) {
    P p;
    double const e0 = energy(x.data(), p);
    double worst = 0;
    for (long k = 0; k < std::lround(seconds / dt); ++k) {
        if (step(x.data(), nullptr, p, dt) != 0) return 1e300;
        worst = std::max(worst, std::abs(energy(x.data(), p) - e0));
    }
    return worst;
}

TEST(Integrators, RungeKuttaIsFourthOrderAndSymplecticEulerKeepsEnergyBounded) {
    auto double_energy = [](const double* x, double_pendulum::Parameters const& p) {
        return double_pendulum::kinetic_energy(x, x + 2, p) + double_pendulum::potential_energy(x, p);
    };
    vec const x0 = {1.0, -0.5, 0.0, 0.3};
    double const rk_coarse = energy_error<double_pendulum::Parameters>(double_pendulum::rk4_step, double_energy, x0, 0.01, 5);
    double const rk_fine = energy_error<double_pendulum::Parameters>(double_pendulum::rk4_step, double_energy, x0, 0.005, 5);
    // The simple pendulum: M is constant, so the semi-implicit Euler step is symplectic and the
    // energy error stays bounded, O(dt), over a long run (explicit Euler's would grow).
    auto simple_energy = [](const double* x, simple_pendulum::Parameters const& p) {
        return simple_pendulum::kinetic_energy(x, x + 1, p) + simple_pendulum::potential_energy(x, p);
    };
    vec const y0 = {2.0, 0.0};
    double const se_coarse = energy_error<simple_pendulum::Parameters>(simple_pendulum::symplectic_euler_step, simple_energy, y0, 0.002, 200);
    double const se_fine = energy_error<simple_pendulum::Parameters>(simple_pendulum::symplectic_euler_step, simple_energy, y0, 0.001, 200);
    std::printf("[ integrate] largest energy error: RK4 %.2e (dt 0.01), %.2e (0.005) over 5 s of a double pendulum; "
                "symplectic Euler %.2e (0.002), %.2e (0.001) over 200 s of a pendulum\n",
                rk_coarse, rk_fine, se_coarse, se_fine);
    EXPECT_LT(rk_coarse, 1e-4);
    EXPECT_GT(rk_coarse / rk_fine, 10.0); // 16 or more for fourth order
    EXPECT_LT(se_coarse, 0.05);           // of an energy of 9.8 J: bounded over 10^5 steps
    EXPECT_GT(se_coarse / se_fine, 1.6);  // 2 for first order
    EXPECT_LT(se_coarse / se_fine, 2.5);
}

TEST(Integrators, StepsMatchAnIndependentRungeKutta) {
    cart_pendulum::Parameters p;
    double x[4] = {0.1, 0.4, -0.2, 0.3}, u[1] = {0.7};
    double y[4] = {0.1, 0.4, -0.2, 0.3};
    double const dt = 0.01;
    auto f = [&](const double* s, double* ds) {
        ds[0] = s[2], ds[1] = s[3];
        return cart_pendulum::forward_dynamics(s, s + 2, u, p, ds + 2, nullptr);
    };
    for (int k = 0; k < 100; ++k) {
        ASSERT_EQ(cart_pendulum::rk4_step(x, u, p, dt), 0);
        double k1[4], k2[4], k3[4], k4[4], s[4];
        f(y, k1);
        for (int i = 0; i < 4; ++i) s[i] = y[i] + dt / 2 * k1[i];
        f(s, k2);
        for (int i = 0; i < 4; ++i) s[i] = y[i] + dt / 2 * k2[i];
        f(s, k3);
        for (int i = 0; i < 4; ++i) s[i] = y[i] + dt * k3[i];
        f(s, k4);
        for (int i = 0; i < 4; ++i) y[i] += dt / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(x[i], y[i], 1e-13);
}

// rk4_step takes each stage's k as [qd of its state; qdd] without state_derivative and
// without lambda: on a constrained model in quasi-velocities (the notes' kite, 12
// coordinates, 7 rows) it is the classic step through state_derivative to the last bit.
TEST(Integrators, ConstrainedStepIsTheClassicStepToTheLastBit) {
    namespace k = kite_rotation_matrix;
    k::Parameters p;
    constexpr int n = 2 * k::nq;
    double x[n] = {}, u[k::nu] = {0.02, -0.01, 0.03};
    x[0] = 30, x[1] = 5, x[2] = std::sqrt(p.L * p.L - 30 * 30 - 5 * 5); // on the tether
    for (int i = 0; i < 3; ++i) x[3 + 4 * i] = 1;                           // R = I
    x[k::nq + 1] = 2, x[k::nq + 6] = 0.1, x[k::nq + 10] = -0.1;            // some velocity
    double y[n];
    for (int i = 0; i < n; ++i) y[i] = x[i];
    double const dt = 1e-3;
    for (int step = 0; step < 20; ++step) {
        ASSERT_EQ(k::rk4_step(x, u, p, dt), 0);
        double k1[n], k2[n], k3[n], k4[n], s[n];
        ASSERT_EQ(k::state_derivative(y, u, p, k1), 0);
        for (int i = 0; i < n; ++i) s[i] = y[i] + dt / 2 * k1[i];
        ASSERT_EQ(k::state_derivative(s, u, p, k2), 0);
        for (int i = 0; i < n; ++i) s[i] = y[i] + dt / 2 * k2[i];
        ASSERT_EQ(k::state_derivative(s, u, p, k3), 0);
        for (int i = 0; i < n; ++i) s[i] = y[i] + dt * k3[i];
        ASSERT_EQ(k::state_derivative(s, u, p, k4), 0);
        for (int i = 0; i < n; ++i) y[i] += dt / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
        for (int i = 0; i < n; ++i) ASSERT_EQ(x[i], y[i]) << "step " << step << ", entry " << i;
    }
    EXPECT_GT(std::abs(x[k::nq + 1] - 2), 1e-4); // it moved: the forces act
}

TEST(Integrators, TimeDependentModelsStepTheClock) {
    // The crane's constraint depends on t: an RK4 step from t matches state_derivative's own RK4.
    crane_pendulum::Parameters p;
    double x[4] = {0.2, -1.0, 0.0, 0.0}, y[4] = {0.2, -1.0, 0.0, 0.0};
    double const t = 0.4, dt = 0.01;
    ASSERT_EQ(crane_pendulum::rk4_step(t, x, nullptr, p, dt), 0);
    double k1[4], k2[4], k3[4], k4[4], s[4];
    crane_pendulum::state_derivative(t, y, nullptr, p, k1);
    for (int i = 0; i < 4; ++i) s[i] = y[i] + dt / 2 * k1[i];
    crane_pendulum::state_derivative(t + dt / 2, s, nullptr, p, k2);
    for (int i = 0; i < 4; ++i) s[i] = y[i] + dt / 2 * k2[i];
    crane_pendulum::state_derivative(t + dt / 2, s, nullptr, p, k3);
    for (int i = 0; i < 4; ++i) s[i] = y[i] + dt * k3[i];
    crane_pendulum::state_derivative(t + dt, s, nullptr, p, k4);
    for (int i = 0; i < 4; ++i) EXPECT_NEAR(x[i], y[i] + dt / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]), 1e-15);
}

} // namespace

// Task space and state handling on every bundled model with a position output: the
// output Jacobian against differences of the output, the drift against the second
// derivative of the output along a path with a given q̈ (ÿ = J q̈ + drift, time-dependent
// terms included), the projection onto the constraints, and the index names.
#include "bead_on_hoop.hpp"
#include "cart_pendulum.hpp"
#include "cartesian_pendulum.hpp"
#include "chain10_rel.hpp"
#include "circle_three_coordinates.hpp"
#include "crane_pendulum.hpp"
#include "double_pendulum.hpp"
#include "double_pendulum_cartesian.hpp"
#include "elastic_pendulum.hpp"
#include "constrained_pendulum.hpp"
#include "four_bar.hpp"
#include "planar_arm.hpp"
#include "quaternion_body.hpp"
#include "rolling_wheel.hpp"
#include "spinning_top.hpp"
#include "wheeled_robot.hpp"
#include "slider_crank.hpp"
#include "chaplygin_sled.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using vec = std::vector<double>;

// One position output: y(t, q), J(t, q), drift(t, q, qd).
struct task_output {
    std::string name;
    int nq = 0, size = 0;
    bool timed = false;
    std::function<void(double, const double*, double*)> y;
    std::function<void(double, const double*, double*)> J;
    std::function<void(double, const double*, const double*, double*)> drift;
};

#define LAGC_OUTPUT(NS, OUT)                                                                                      \
    [] {                                                                                                          \
        task_output o;                                                                                            \
        NS::Parameters p{};                                                                                       \
        o.name = #NS "." #OUT, o.nq = NS::nq, o.size = NS::output::OUT;                                           \
        o.y = [p](double, const double* q, double* y) { NS::output_##OUT(q, q, p, y); };                          \
        o.J = [p](double, const double* q, double* J) { NS::output_##OUT##_jacobian(q, p, J); };                  \
        o.drift = [p](double, const double* q, const double* qd, double* a) { NS::output_##OUT##_drift(q, qd, p, a); }; \
        return o;                                                                                                 \
    }()

std::vector<task_output> all_outputs() {
    std::vector<task_output> v = {
        LAGC_OUTPUT(double_pendulum, tip),       LAGC_OUTPUT(chain10_rel, tip),
        LAGC_OUTPUT(planar_arm, tip),            LAGC_OUTPUT(cart_pendulum, bob_position),
        LAGC_OUTPUT(elastic_pendulum, bob),      LAGC_OUTPUT(bead_on_hoop, bead_position),
        LAGC_OUTPUT(spinning_top, axis),         LAGC_OUTPUT(four_bar, coupler_joint),
        LAGC_OUTPUT(cartesian_pendulum, angle),
    };
    // The crane's output depends on t: every function takes t first.
    task_output o;
    crane_pendulum::Parameters p{};
    o.name = "crane_pendulum.bob_over_rope", o.nq = crane_pendulum::nq, o.size = crane_pendulum::output::bob_over_rope;
    o.timed = true;
    o.y = [p](double t, const double* q, double* y) { crane_pendulum::output_bob_over_rope(t, q, q, p, y); };
    o.J = [p](double t, const double* q, double* J) { crane_pendulum::output_bob_over_rope_jacobian(t, q, p, J); };
    o.drift = [p](double t, const double* q, const double* qd, double* a) {
        crane_pendulum::output_bob_over_rope_drift(t, q, qd, p, a);
    };
    v.push_back(o);
    return v;
}

void PrintTo(task_output const& o, std::ostream* os) { *os << o.name; }

class TaskSpace : public ::testing::TestWithParam<task_output> {};

TEST_P(TaskSpace, JacobianIsTheDerivativeOfTheOutput) {
    task_output const& o = GetParam();
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int trial = 0; trial < 5; ++trial) {
        vec q(o.nq), J(o.size * o.nq), yp(o.size), ym(o.size);
        for (auto& x : q) x = 0.7 + 0.5 * U(rng);
        double const t = 0.3 + U(rng);
        o.J(t, q.data(), J.data());
        for (int c = 0; c < o.nq; ++c) {
            vec qp = q, qm = q;
            double const h = 1e-5;
            qp[c] += h, qm[c] -= h;
            o.y(t, qp.data(), yp.data());
            o.y(t, qm.data(), ym.data());
            for (int i = 0; i < o.size; ++i)
                EXPECT_NEAR(J[i * o.nq + c], (yp[i] - ym[i]) / (2 * h), 1e-8) << o.name << " J[" << i << "][" << c << "]";
        }
    }
}

// Along q(s) = q + qd s + qdd s²/2, t(s) = t + s: ÿ(0) = J qdd + drift, by second differences.
TEST_P(TaskSpace, DriftIsTheRestOfTheSecondDerivative) {
    task_output const& o = GetParam();
    std::mt19937 rng(12);
    std::uniform_real_distribution<double> U(-1, 1);
    double worst = 0;
    for (int trial = 0; trial < 5; ++trial) {
        vec q(o.nq), qd(o.nq), qdd(o.nq), J(o.size * o.nq), drift(o.size);
        for (auto& x : q) x = 0.7 + 0.5 * U(rng);
        for (auto& x : qd) x = U(rng);
        for (auto& x : qdd) x = U(rng);
        double const t = 0.3 + U(rng);
        o.J(t, q.data(), J.data());
        o.drift(t, q.data(), qd.data(), drift.data());
        auto y_at = [&](double s) {
            vec qs(o.nq), y(o.size);
            for (int i = 0; i < o.nq; ++i) qs[i] = q[i] + qd[i] * s + qdd[i] * s * s / 2;
            o.y(t + s, qs.data(), y.data());
            return y;
        };
        double const h = 1e-4;
        vec const y0 = y_at(0), y1 = y_at(h), y_1 = y_at(-h), y2 = y_at(2 * h), y_2 = y_at(-2 * h);
        for (int i = 0; i < o.size; ++i) {
            // Fourth-order second difference.
            double fd = (-y2[i] + 16 * y1[i] - 30 * y0[i] + 16 * y_1[i] - y_2[i]) / (12 * h * h);
            double model = drift[i];
            for (int j = 0; j < o.nq; ++j) model += J[i * o.nq + j] * qdd[j];
            worst = std::max(worst, std::abs(model - fd) / (1 + std::abs(fd)));
            EXPECT_NEAR(model, fd, 1e-6 * (1 + std::abs(fd))) << o.name << " component " << i;
        }
    }
    std::printf("[ task     ] %s: J qdd + drift agrees with the second derivative to %.1e\n", o.name.c_str(), worst);
}

INSTANTIATE_TEST_SUITE_P(Generated, TaskSpace, ::testing::ValuesIn(all_outputs()), [](auto const& info) {
    std::string n = info.param.name;
    for (char& c : n)
        if (c == '.') c = '_';
    return n;
});

// project_state from perturbed states: every constrained model back on c = 0, cdot = 0
// (and g = 0) to 1e-12.
template <class NS, class Residuals, class Velocity, class Project>
void check_projection(char const* name, int nq, int nc, Residuals residuals, Velocity velocity, Project project) {
    std::mt19937 rng(21);
    std::uniform_real_distribution<double> U(-1, 1);
    for (int trial = 0; trial < 10; ++trial) {
        vec q(nq), qd(nq), c(nc), v(nc);
        for (auto& x : q) x = 0.6 + 0.3 * U(rng);
        for (auto& x : qd) x = U(rng);
        double left = project(q.data(), qd.data());
        ASSERT_GE(left, 0.0) << name;
        EXPECT_LT(left, 1e-12) << name;
        residuals(q.data(), qd.data(), c.data());
        velocity(q.data(), qd.data(), v.data());
        for (int k = 0; k < nc; ++k) EXPECT_LT(std::abs(v[k]), 1e-12) << name << " velocity row " << k;
        (void)c;
    }
}

#define LAGC_PROJECTION(NS, ...)                                                                               \
    do {                                                                                                       \
        NS::Parameters p{};                                                                                    \
        check_projection<int>(#NS, NS::nq, NS::nc,                                                             \
            [p](const double* q, const double* qd, double* c) { NS::constraint_residuals(__VA_ARGS__ q, qd, p, c); }, \
            [p](const double* q, const double* qd, double* v) { NS::constraint_velocity(__VA_ARGS__ q, qd, p, v); }, \
            [p](double* q, double* qd) { return NS::project_state(__VA_ARGS__ q, qd, p); });                   \
    } while (0)

TEST(ProjectState, EveryConstrainedModelReachesTheManifold) {
    LAGC_PROJECTION(cartesian_pendulum);
    LAGC_PROJECTION(constrained_pendulum);
    LAGC_PROJECTION(wheeled_robot);
    LAGC_PROJECTION(rolling_wheel);
    LAGC_PROJECTION(double_pendulum_cartesian);
    LAGC_PROJECTION(four_bar);
    LAGC_PROJECTION(crane_pendulum, 0.7,);
    LAGC_PROJECTION(quaternion_body);
    LAGC_PROJECTION(circle_three_coordinates);
    LAGC_PROJECTION(slider_crank);
    LAGC_PROJECTION(chaplygin_sled);
}

TEST(ProjectState, HolonomicRowsAreSatisfiedAndOnlyMovedWhereNeeded) {
    // The four-bar, perturbed: the loop closes again (c = 0), and a state already on the
    // manifold is left where it is.
    four_bar::Parameters p;
    double q[3] = {0.5, 0.9, 1.1}, qd[3] = {0.3, -0.2, 0.1}, c[2];
    ASSERT_LT(four_bar::project_state(q, qd, p), 1e-12);
    four_bar::constraint_residuals(q, qd, p, c);
    EXPECT_LT(std::abs(c[0]) + std::abs(c[1]), 1e-13);
    double const q0[3] = {q[0], q[1], q[2]}, qd0[3] = {qd[0], qd[1], qd[2]};
    ASSERT_LT(four_bar::project_state(q, qd, p), 1e-12);
    for (int i = 0; i < 3; ++i) {
        EXPECT_NEAR(q[i], q0[i], 1e-14);
        EXPECT_NEAR(qd[i], qd0[i], 1e-14);
    }
}

TEST(Names, IndicesAndNamesDescribeTheModel) {
    static_assert(cart_pendulum::coordinate::x == 0 && cart_pendulum::coordinate::theta == 1);
    static_assert(cart_pendulum::input::F == 0);
    static_assert(cart_pendulum::parameter::m1 == 0 && cart_pendulum::parameter::g == 3);
    static_assert(cart_pendulum::output::bob_position == 2 && cart_pendulum::output::power == 1);
    static_assert(spinning_top::output::axis == 3 && four_bar::output::coupler_joint == 2);
    EXPECT_STREQ(cart_pendulum::coordinate_names[1], "theta");
    EXPECT_STREQ(cart_pendulum::input_names[0], "F");
    EXPECT_STREQ(cart_pendulum::parameter_names[2], "l");
    EXPECT_STREQ(cart_pendulum::output_names[1], "power");
}

TEST(Outputs, AnOutputMayReadInputsAndVelocities) {
    // power = F * xdot: its function takes u.
    cart_pendulum::Parameters p;
    double q[2] = {0.1, 0.2}, qd[2] = {1.5, 0.3}, u[1] = {2.0}, out[1];
    cart_pendulum::output_power(q, qd, u, p, out);
    EXPECT_DOUBLE_EQ(out[0], 3.0);
}

} // namespace

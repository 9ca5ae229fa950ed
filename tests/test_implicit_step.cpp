// radau_step (issue 35): the 2-stage Radau IIA step, implicit and L-stable. Its order of
// accuracy measured on a smooth model; the stiff kite (models/stiff_kite.lag, a 0.5 ms
// aerodynamic time constant) integrated at dt = 10 ms, where rk4_step diverges, its tether
// kept and its trajectory against a reference RK4 run at dt = 0.1 ms; and the statuses.
#include "double_pendulum.hpp"
#include "four_bar.hpp"
#include "stiff_kite.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

namespace {

double const pi = 3.14159265358979323846;

// The double pendulum from a generic state after 1 s, with radau_step at dt.
void pendulum_after_one_second(double dt, double* x) {
    double_pendulum::Parameters p;
    x[0] = 0.7, x[1] = -0.4, x[2] = 0.3, x[3] = 1.1;
    int const steps = static_cast<int>(std::lround(1.0 / dt));
    for (int k = 0; k < steps; ++k) ASSERT_EQ(double_pendulum::radau_step(x, nullptr, p, dt), 0) << "step " << k;
}

double distance(double const* a, double const* b, int n) {
    double d = 0;
    for (int i = 0; i < n; ++i) d = std::max(d, std::abs(a[i] - b[i]));
    return d;
}

void kite_start(double* x) {
    stiff_kite::Parameters p;
    x[0] = p.L * std::cos(pi / 6), x[1] = p.L * std::sin(pi / 6), x[2] = 0, x[3] = 0;
}

} // namespace

TEST(RadauStep, IsThirdOrderOnASmoothModel) {
    // The reference: rk4_step at dt = 1e-4 (its error, about 1e-16, far below the steps').
    double_pendulum::Parameters p;
    double ref[4] = {0.7, -0.4, 0.3, 1.1};
    for (int k = 0; k < 10000; ++k) ASSERT_EQ(double_pendulum::rk4_step(ref, nullptr, p, 1e-4), 0);
    double e[3];
    double const dts[3] = {0.05, 0.025, 0.0125};
    for (int i = 0; i < 3; ++i) {
        double x[4];
        pendulum_after_one_second(dts[i], x);
        e[i] = distance(x, ref, 4);
    }
    double const order1 = std::log2(e[0] / e[1]), order2 = std::log2(e[1] / e[2]);
    std::printf("errors after 1 s at dt = 0.05, 0.025, 0.0125: %.3e %.3e %.3e; observed orders %.2f %.2f\n", e[0], e[1], e[2],
                order1, order2);
    EXPECT_NEAR(order1, 3.0, 0.3);
    EXPECT_NEAR(order2, 3.0, 0.3);
}

TEST(RadauStep, TheStiffKiteIsStableWhereRk4Diverges) {
    stiff_kite::Parameters p;
    double const dt = 0.01;
    // RK4 at 10 ms: the 0.5 ms mode is far outside its stability region.
    double r[4];
    kite_start(r);
    bool diverged = false;
    for (int k = 0; k < 500 && !diverged; ++k)
        diverged = stiff_kite::rk4_step(r, nullptr, p, dt) != 0 || !(std::abs(r[0]) < 1e6 && std::abs(r[2]) < 1e6);
    EXPECT_TRUE(diverged) << "rk4_step at dt = 10 ms stayed bounded";
    // Radau IIA at 10 ms: bounded, the tether kept, at rest at the equilibrium after 30 s
    // (the kite creeps toward it with a time constant of c L^2 / (|F| L), about 1.25 s).
    double x[4];
    kite_start(x);
    double worst_tether = 0;
    for (int k = 0; k < 3000; ++k) {
        ASSERT_EQ(stiff_kite::radau_step(x, nullptr, p, dt), 0) << "step " << k;
        worst_tether = std::max(worst_tether, std::abs(std::hypot(x[0], x[1]) - p.L) / p.L);
    }
    double const angle = std::atan2((p.lift - 1) * p.m * p.g, p.c * p.w); // the resultant force's
    std::printf("stiff kite, 30 s at dt = 10 ms: tether length error at most %.2e of L; at rest at %.6f rad "
                "(equilibrium %.6f rad), speed %.2e m/s\n",
                worst_tether, std::atan2(x[1], x[0]), angle, std::hypot(x[2], x[3]));
    EXPECT_LT(worst_tether, 1e-3);
    EXPECT_NEAR(std::atan2(x[1], x[0]), angle, 1e-6);
    EXPECT_LT(std::hypot(x[2], x[3]), 1e-6);
}

TEST(RadauStep, TheStiffKiteFollowsAReferenceRun) {
    // The reference: rk4_step at dt = 0.1 ms (stable there: 0.1 ms / 0.5 ms = 0.2).
    stiff_kite::Parameters p;
    double ref[4], x[4];
    kite_start(ref);
    kite_start(x);
    double worst = 0;
    for (int k = 1; k <= 100; ++k) { // 1 s
        for (int j = 0; j < 100; ++j) ASSERT_EQ(stiff_kite::rk4_step(ref, nullptr, p, 1e-4), 0);
        ASSERT_EQ(stiff_kite::radau_step(x, nullptr, p, 0.01), 0);
        worst = std::max(worst, std::hypot(x[0] - ref[0], x[1] - ref[1]));
    }
    std::printf("stiff kite over 1 s: radau_step at 10 ms against rk4_step at 0.1 ms: largest position "
                "difference %.2e m\n", worst);
    EXPECT_LT(worst, 1e-3);
}

TEST(RadauStep, KeepsAClosedLoopClosed) {
    // The four-bar (two loop-closure constraints): 2 s at dt = 5 ms, the constraint kept as
    // well as rk4_step keeps it at the same step.
    four_bar::Parameters p;
    double q[3] = {0.6, 0.0, 0.0}, qd[3] = {1.0, 0.0, 0.0};
    ASSERT_GE(four_bar::project_state(q, qd, p), 0);
    double x[6] = {q[0], q[1], q[2], qd[0], qd[1], qd[2]}, u[1] = {0.0}, c[2];
    double r[6] = {x[0], x[1], x[2], x[3], x[4], x[5]};
    double worst = 0, worst_rk4 = 0;
    for (int k = 0; k < 400; ++k) {
        ASSERT_EQ(four_bar::radau_step(x, u, p, 0.005), 0) << "step " << k;
        four_bar::constraint_residuals(x, x + 3, p, c);
        worst = std::max({worst, std::abs(c[0]), std::abs(c[1])});
        ASSERT_EQ(four_bar::rk4_step(r, u, p, 0.005), 0);
        four_bar::constraint_residuals(r, r + 3, p, c);
        worst_rk4 = std::max({worst_rk4, std::abs(c[0]), std::abs(c[1])});
    }
    std::printf("four-bar, 2 s at dt = 5 ms: largest loop residual %.2e (rk4_step: %.2e)\n", worst, worst_rk4);
    EXPECT_LT(worst, 1e-4);
}

TEST(RadauStep, StatusesAndNothingWrittenOnFailure) {
    double_pendulum::Parameters p;
    double x[4] = {0.7, -0.4, 0.3, 1.1};
    double const before[4] = {x[0], x[1], x[2], x[3]};
    EXPECT_EQ(double_pendulum::radau_step(x, nullptr, p, std::nan("")), 3);
    EXPECT_EQ(distance(x, before, 4), 0.0);
    // A step of 1000 s on a chaotic pendulum: Newton does not converge in 12 iterations.
    int const status = double_pendulum::radau_step(x, nullptr, p, 1000.0);
    EXPECT_TRUE(status == 5 || status == 3) << status;
    EXPECT_EQ(distance(x, before, 4), 0.0);
}

// Status codes that mean what they say, and the aliasing contract (issue 31,
// docs/generated-api.md "Status codes" and "Aliasing"): a function that returns a status
// returns non-zero whenever an output it would write is not finite, and then leaves its
// in-place state alone; outputs are LAGC_RESTRICT but where a function says it may take
// its input (state_derivative's xdot).
#include "abs_power.hpp"
#include "cart_pendulum.hpp"
#include "chain10_rel.hpp"
#include "double_pendulum.hpp"
#include "four_bar.hpp"
#include "origin_power.hpp"
#include "simple_pendulum.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>
#include <string>

namespace {

double const nan = std::numeric_limits<double>::quiet_NaN();
double const inf = std::numeric_limits<double>::infinity();

bool all_finite(double const* v, int n) {
    for (int i = 0; i < n; ++i)
        if (!std::isfinite(v[i])) return false;
    return true;
}

// Where the derivative is 0/0 (r^3 at r = 0) or infinite (|x|^1.5 at 0), linearization
// reports it; a step away it returns finite numbers and 0.
TEST(Statuses, LinearizationReportsNonFiniteDerivatives) {
    origin_power::Parameters p;
    double q[2] = {0, 0}, qd[2] = {0, 0}, A[16], B[1];
    EXPECT_EQ(origin_power::linearization(q, qd, nullptr, p, A, B), 3);
    double qdd[2];
    EXPECT_EQ(origin_power::forward_dynamics(q, qd, nullptr, p, qdd, nullptr), 0); // q'' itself is fine
    q[0] = 1e-3;
    ASSERT_EQ(origin_power::linearization(q, qd, nullptr, p, A, B), 0);
    EXPECT_TRUE(all_finite(A, 16));
    // d(qdd_x)/dx = -(k/m) (3 r + 3 x^2 / r) = -12e-3 at (1e-3, 0).
    EXPECT_NEAR(A[2 * 4 + 0], -2.0 * 6e-3, 1e-12);

    abs_power::Parameters pa;
    double x[1] = {0}, xd[1] = {0}, Aa[4], Ba[1];
    EXPECT_EQ(abs_power::linearization(x, xd, nullptr, pa, Aa, Ba), 3);
    x[0] = 0.04;
    ASSERT_EQ(abs_power::linearization(x, xd, nullptr, pa, Aa, Ba), 0);
    EXPECT_NEAR(Aa[2], -2.0 * 1.5 * 0.5 / std::sqrt(0.04), 1e-12); // -(k/m) 0.75 |x|^-0.5
}

TEST(Statuses, IntegratorsRefuseANonFiniteStepAndLeaveTheState) {
    cart_pendulum::Parameters p;
    double const start[4] = {0.1, 0.3, 0.0, -0.2};
    double u[1] = {0.5};
    for (double dt : {nan, inf, -inf}) {
        double x[4];
        std::memcpy(x, start, sizeof x);
        EXPECT_EQ(cart_pendulum::rk4_step(x, u, p, dt), 3) << dt;
        EXPECT_EQ(std::memcmp(x, start, sizeof x), 0) << dt;
        EXPECT_EQ(cart_pendulum::symplectic_euler_step(x, u, p, dt), 3) << dt;
        EXPECT_EQ(std::memcmp(x, start, sizeof x), 0) << dt;
    }
    // A step so long that the new state overflows: reported, x untouched.
    double x[4];
    std::memcpy(x, start, sizeof x);
    u[0] = 1e300;
    EXPECT_NE(cart_pendulum::rk4_step(x, u, p, 1e300), 0);
    EXPECT_EQ(std::memcmp(x, start, sizeof x), 0);
    EXPECT_NE(cart_pendulum::symplectic_euler_step(x, u, p, 1e300), 0);
    EXPECT_EQ(std::memcmp(x, start, sizeof x), 0);
    // And an ordinary step still works.
    u[0] = 0.5;
    EXPECT_EQ(cart_pendulum::rk4_step(x, u, p, 1e-2), 0);
    EXPECT_NE(std::memcmp(x, start, sizeof x), 0);
}

TEST(Statuses, StateDerivativeWritesNothingWhenItFails) {
    double_pendulum::Parameters p;
    p.m1 = 0, p.m2 = 0; // M singular: forward_dynamics returns 1
    double x[4] = {0.1, 0.2, 0.3, 0.4}, xdot[4] = {7, 7, 7, 7};
    EXPECT_EQ(double_pendulum::state_derivative(x, nullptr, p, xdot), 1);
    for (double v : xdot) EXPECT_EQ(v, 7.0);
}

// The pendulum's qdd does not read qd, so forward_dynamics succeeds with a NaN or an
// infinite qd; xdot's first half is qd itself, so state_derivative returns 3 (issue 46).
TEST(Statuses, StateDerivativeReportsANonFiniteVelocity) {
    simple_pendulum::Parameters p;
    for (double bad : {nan, inf, -inf}) {
        double x[2] = {0.3, bad}, xdot[2] = {7, 7};
        EXPECT_EQ(simple_pendulum::state_derivative(x, nullptr, p, xdot), 3) << bad;
        for (double v : xdot) EXPECT_EQ(v, 7.0);
        EXPECT_EQ(simple_pendulum::rk4_step(x, nullptr, p, 0.01), 3) << bad;
    }
}

TEST(Statuses, ProjectStateIsMinusOneForNonFiniteResultsAndLeavesTheState) {
    four_bar::Parameters p;
    double const q0[3] = {0.5, 0.9, 1.1};
    for (double bad : {nan, 1e200, inf}) {
        double q[3] = {q0[0], q0[1], q0[2]}, qd[3] = {0.3, bad, 0.1};
        EXPECT_EQ(four_bar::project_state(q, qd, p), -1) << bad;
        for (int i = 0; i < 3; ++i) EXPECT_EQ(q[i], q0[i]) << bad;
        EXPECT_TRUE(std::isnan(bad) ? std::isnan(qd[1]) : qd[1] == bad) << bad; // not written
        EXPECT_EQ(qd[0], 0.3);
    }
    double q[3] = {q0[0], q0[1], q0[2]}, qd[3] = {0.3, -0.2, 0.1};
    double const left = four_bar::project_state(q, qd, p);
    EXPECT_GE(left, 0.0);
    EXPECT_LT(left, 1e-12);
}

// state_derivative's xdot may be x itself: the same numbers as into another array.
TEST(Aliasing, StateDerivativeIntoItsOwnState) {
    four_bar::Parameters p;
    double x[6] = {0.5, 0.9, 1.1, 0.3, -0.2, 0.1}, u[1] = {0.7}, xdot[6];
    ASSERT_EQ(four_bar::state_derivative(x, u, p, xdot), 0);
    ASSERT_EQ(four_bar::state_derivative(x, u, p, x), 0);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(x[i], xdot[i]) << i;
}

// The signatures say which outputs must not overlap anything: every writable array of
// every declaration in the generated headers is LAGC_RESTRICT, but the in-place state
// (x of the steps, q and qd of project_state) and state_derivative's xdot.
TEST(Aliasing, EveryOutputOfTheApiIsRestrict) {
    int checked = 0;
    for (char const* model : {"four_bar", "cart_pendulum", "double_pendulum", "chain10_rel"}) {
        std::ifstream in(std::string(GENERATED_DIR) + "/" + model + ".hpp");
        ASSERT_TRUE(in) << model;
        std::stringstream text;
        text << in.rdbuf();
        std::string const s = text.str();
        std::regex const parameter(R"((const )?double\*( LAGC_RESTRICT)? (\w+)\s*[,)])");
        std::regex const declaration(R"(\n(?:int|void|double) (\w+)\(([^)]*)\);)");
        for (auto d = std::sregex_iterator(s.begin(), s.end(), declaration); d != std::sregex_iterator(); ++d) {
            std::string const fn = (*d)[1], params = std::string((*d)[2]) + ")";
            for (auto a = std::sregex_iterator(params.begin(), params.end(), parameter); a != std::sregex_iterator(); ++a) {
                if ((*a)[1].matched) continue; // an input
                std::string const name = (*a)[3];
                bool const in_place = name == "x" || ((fn == "project_state") && (name == "q" || name == "qd"));
                bool const may_alias = fn == "state_derivative" && name == "xdot";
                EXPECT_EQ((*a)[2].matched, !(in_place || may_alias)) << model << "::" << fn << " " << name;
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 60);
}

} // namespace

// The header-only form of the double pendulum computes what the closed form says.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace header_only_check {
int step(const double* q, const double* qd, double* qdd);
bool all_finite(const double* v, int n);
}

TEST(HeaderOnly, DoublePendulumMatchesClosedForm) {
    const double q[2] = {0.7, -0.4}, qd[2] = {1.3, -0.8};
    double qdd[2];
    ASSERT_EQ(header_only_check::step(q, qd, qdd), 0);
    // Absolute angles, m1 = m2 = l1 = l2 = 1, g = 9.81 (the model's defaults):
    //   2 a1 + a2 cos(d) + w2^2 sin(d) + 2 g sin(t1) = 0
    //   a2 + a1 cos(d) - w1^2 sin(d) + g sin(t2) = 0,  d = t1 - t2
    const double g = 9.81, d = q[0] - q[1];
    EXPECT_NEAR(2 * qdd[0] + qdd[1] * std::cos(d) + qd[1] * qd[1] * std::sin(d) + 2 * g * std::sin(q[0]), 0.0, 1e-12);
    EXPECT_NEAR(qdd[1] + qdd[0] * std::cos(d) - qd[0] * qd[0] * std::sin(d) + g * std::sin(q[1]), 0.0, 1e-12);
}

// detail::all_finite, behind every status check: the sum first, entry by entry only where the
// sum is not finite. Finite entries whose sum overflows are finite; one NaN or infinity
// anywhere (or infinities that cancel into NaN) is not.
TEST(HeaderOnly, AllFiniteTellsOverflowFromNonFinite) {
    constexpr double big = 1.5e308, inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double overflowing[3] = {big, big, big}, cancelling[3] = {1.0, inf, -inf};
    const double one_nan[4] = {1.0, 2.0, nan, 3.0}, last_inf[3] = {big, -big, -inf}, fine[3] = {-1.0, 0.0, 2.0};
    EXPECT_TRUE(header_only_check::all_finite(overflowing, 3));
    EXPECT_TRUE(header_only_check::all_finite(fine, 3));
    EXPECT_TRUE(header_only_check::all_finite(fine, 0));
    EXPECT_FALSE(header_only_check::all_finite(cancelling, 3));
    EXPECT_FALSE(header_only_check::all_finite(one_nan, 4));
    EXPECT_FALSE(header_only_check::all_finite(last_inf, 3));
}

// --target mcu's angle reduction (detail::reduce_angle, templates/mcu.tpl; issue 52): the
// angle each sin, cos and tan is given. Generated header-only for cart_pendulum in float and
// ur5_like in double (tests/embedded/CMakeLists.txt), compiled at -O2 -fno-math-errno and,
// as test_reduce_angle_fast_math, at -O2 -ffast-math. Checked against the unreduced angle in
// double (long double for the double helper):
// - within the math library's short range (|x| <= 201 rad in float, 823,549 in double) the
//   angle comes back as it is, bit for bit;
// - near +-1000 rad in float, sin and cos of the reduced angle within 1e-6 of those of the
//   float angle computed in long double; under -ffast-math, which merges Cody-Waite's parts
//   into one float 2pi, within 1000 2^-23 = 1.2e-4 (the float angle's own step there is
//   6.1e-5): measured 1e-7 and 5e-5;
// - up to 4e5 rad in float, 1e7 in double: within |x| 2^-24 (fast-math: 2^-23) + 1e-6 of
//   x mod 2pi in float, |x| 2^-52 + 1e-12 in double;
// - huge finite angles come back within the short range; NaN and Inf come back not finite
//   (IEEE build only: under -ffast-math the compiler may assume neither).
#include "reduce_cart_pendulum_float.hpp"
#include "reduce_ur5_like_double.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace {

#ifdef __FAST_MATH__
constexpr double near_1000_tolerance = 1.2e-4, float_scale = 0x1p-23;
#else
constexpr double near_1000_tolerance = 1e-6, float_scale = 0x1p-24;
#endif

float reduce(float x) { return cart_pendulum::detail::reduce_angle(x); }
double reduce(double x) { return ur5_like::detail::reduce_angle(x); }

bool finite_bits(double x) {
    std::uint64_t b;
    std::memcpy(&b, &x, sizeof b);
    return (b & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
}
bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The largest of |sin r - sin x|, |cos r - cos x| (x unreduced, in long double).
long double deviation(long double r, long double x) {
    return std::fmax(std::fabs(std::sin(r) - std::sin(x)), std::fabs(std::cos(r) - std::cos(x)));
}

TEST(ReduceAngle, ShortRangeUnchanged) {
    for (float x = -201.0f; x <= 201.0f; x += 0.37f) EXPECT_TRUE(same_bits(reduce(x), x)) << x;
    for (float x : {0.0f, -0.0f, 1e-30f, 201.0f, -201.0f}) EXPECT_TRUE(same_bits(reduce(x), x)) << x;
    for (double x = -823549.0; x <= 823549.0; x += 977.3) EXPECT_TRUE(same_bits(reduce(x), x)) << x;
    EXPECT_TRUE(same_bits(reduce(1000.0), 1000.0)); // double: 1000 rad is newlib's short path
}

TEST(ReduceAngle, Near1000Radians) {
    double worst = 0;
    for (float centre : {1000.0f, -1000.0f})
        for (int i = -2000; i <= 2000; ++i) {
            float const x = centre + 0.01f * static_cast<float>(i);
            float const r = reduce(x);
            ASSERT_LE(std::fabs(r), 3.2f) << x;
            worst = std::fmax(worst, static_cast<double>(deviation(r, x)));
        }
    EXPECT_LE(worst, near_1000_tolerance);
    std::printf("near +-1000 rad (float): sin and cos within %.3g of the unreduced angle's\n", worst);
}

TEST(ReduceAngle, WideRange) {
    for (float x = 202.0f; x < 4e5f; x *= 1.01f)
        for (float s : {x, -x}) {
            float const r = reduce(s);
            EXPECT_LE(static_cast<double>(deviation(r, s)), std::fabs(s) * float_scale + 1e-6) << s;
        }
    for (double x = 823550.0; x < 1e7; x *= 1.01)
        for (double s : {x, -x}) {
            double const r = reduce(s);
            EXPECT_LE(static_cast<double>(deviation(r, s)), std::fabs(s) * 0x1p-52 + 1e-12) << s;
        }
}

TEST(ReduceAngle, HugeNaNInf) {
    for (float x : {1e6f, 3e7f, 6e7f, 1e10f, 1e30f, FLT_MAX, -FLT_MAX, -1e20f}) {
        float const r = reduce(x);
        EXPECT_TRUE(std::fabs(r) <= 201.0f) << x << " -> " << r;
    }
    for (double x : {1e8, 3e16, 1e20, 1e300, DBL_MAX, -DBL_MAX}) {
        double const r = reduce(x);
        EXPECT_TRUE(std::fabs(r) <= 823549.0) << x << " -> " << r;
    }
#ifndef __FAST_MATH__
    for (float x : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity()})
        EXPECT_FALSE(finite_bits(reduce(x))) << x;
    for (double x : {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
        EXPECT_FALSE(finite_bits(reduce(x))) << x;
#endif
}

} // namespace

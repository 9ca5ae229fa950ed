// --scalar float: the single-precision code agrees with the double code to 1e-5 relative.
#include "cart_pendulum.hpp"
#include "cart_pendulum_double.hpp"
#include "chain10_rel.hpp"
#include "chain10_rel_double.hpp"
#include "four_bar.hpp"
#include "four_bar_double.hpp"
#include "arm10_decimals.hpp"
#include "arm10_decimals_double.hpp"
#include "arm10_decimals_template.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <type_traits>
#include <vector>

namespace {

static_assert(std::is_same_v<decltype(cart_pendulum::Parameters{}.m1), float>);
static_assert(std::is_same_v<decltype(cart_pendulum_double::Parameters{}.m1), double>);

// ||f - d|| / ||d||, with a floor so that zero vectors compare absolutely.
double relative_error(std::vector<float> const& f, std::vector<double> const& d) {
    double num = 0, den = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
        num += (f[i] - d[i]) * (f[i] - d[i]);
        den += d[i] * d[i];
    }
    return std::sqrt(num) / std::max(std::sqrt(den), 1e-3);
}

template <class F, class D>
void compare(int nq, int nu, F fcall, D dcall, double tolerance, char const* what) {
    std::mt19937 rng(21);
    std::uniform_real_distribution<double> U(-0.5, 0.5);
    double worst = 0;
    for (int trial = 0; trial < 50; ++trial) {
        std::vector<double> q(nq), qd(nq), u(std::max(nu, 1));
        for (auto& x : q) x = U(rng);
        for (auto& x : qd) x = U(rng);
        for (auto& x : u) x = U(rng);
        std::vector<float> qf(q.begin(), q.end()), qdf(qd.begin(), qd.end()), uf(u.begin(), u.end());
        std::vector<double> outd;
        std::vector<float> outf;
        dcall(q, qd, u, outd);
        fcall(qf, qdf, uf, outf);
        worst = std::max(worst, relative_error(outf, outd));
    }
    std::printf("[ float    ] %s: worst relative difference %.2e\n", what, worst);
    EXPECT_LT(worst, tolerance) << what;
}

TEST(ScalarFloat, CartPendulumAgreesWithDouble) {
    cart_pendulum::Parameters pf;
    cart_pendulum_double::Parameters pd;
    auto both = [&](auto fn_f, auto fn_d, char const* what) {
        compare(2, 1, fn_f, fn_d, 1e-5, what);
    };
    both([&](auto& q, auto&, auto&, auto& out) { out.assign(4, 0); cart_pendulum::mass_matrix(q.data(), pf, out.data()); },
         [&](auto& q, auto&, auto&, auto& out) { out.assign(4, 0); cart_pendulum_double::mass_matrix(q.data(), pd, out.data()); },
         "cart_pendulum mass_matrix");
    both([&](auto& q, auto& qd, auto&, auto& out) { out.assign(2, 0); cart_pendulum::bias_forces(q.data(), qd.data(), pf, out.data()); },
         [&](auto& q, auto& qd, auto&, auto& out) { out.assign(2, 0); cart_pendulum_double::bias_forces(q.data(), qd.data(), pd, out.data()); },
         "cart_pendulum bias_forces");
    both([&](auto& q, auto& qd, auto& u, auto& out) { out.assign(2, 0); ASSERT_EQ(cart_pendulum::forward_dynamics(q.data(), qd.data(), u.data(), pf, out.data(), nullptr), 0); },
         [&](auto& q, auto& qd, auto& u, auto& out) { out.assign(2, 0); ASSERT_EQ(cart_pendulum_double::forward_dynamics(q.data(), qd.data(), u.data(), pd, out.data(), nullptr), 0); },
         "cart_pendulum forward_dynamics");
}

TEST(ScalarFloat, TenLinkChainAgreesWithDouble) {
    chain10_rel::Parameters pf;
    chain10_rel_double::Parameters pd;
    compare(10, 10,
            [&](auto& q, auto&, auto&, auto& out) { out.assign(100, 0); chain10_rel::mass_matrix(q.data(), pf, out.data()); },
            [&](auto& q, auto&, auto&, auto& out) { out.assign(100, 0); chain10_rel_double::mass_matrix(q.data(), pd, out.data()); },
            1e-5, "chain10_rel mass_matrix");
    compare(10, 10,
            [&](auto& q, auto& qd, auto&, auto& out) { out.assign(10, 0); chain10_rel::bias_forces(q.data(), qd.data(), pf, out.data()); },
            [&](auto& q, auto& qd, auto&, auto& out) { out.assign(10, 0); chain10_rel_double::bias_forces(q.data(), qd.data(), pd, out.data()); },
            1e-5, "chain10_rel bias_forces");
}

TEST(ScalarFloat, FourBarConstraintTermsAgreeWithDouble) {
    four_bar::Parameters pf;
    four_bar_double::Parameters pd;
    compare(3, 1,
            [&](auto& q, auto& qd, auto& u, auto& out) {
                out.assign(25, 0);
                std::vector<float> rhs(5);
                four_bar::semi_implicit_system(q.data(), qd.data(), u.data(), pf, out.data(), rhs.data());
                out.insert(out.end(), rhs.begin(), rhs.end());
            },
            [&](auto& q, auto& qd, auto& u, auto& out) {
                out.assign(25, 0);
                std::vector<double> rhs(5);
                four_bar_double::semi_implicit_system(q.data(), qd.data(), u.data(), pd, out.data(), rhs.data());
                out.insert(out.end(), rhs.begin(), rhs.end());
            },
            1e-5, "four_bar semi_implicit_system");
}

// forward_dynamics by the articulated-body algorithm (tests/data/arm10_decimals.lag: 10
// joints, 17-digit decimals). Its float code once failed with status 1 everywhere: the
// decimals' exact rationals left factors like 1e+34 in its sums, and their products overflowed.
// The algorithm's rounding grows with M's conditioning (about 1e3 here), hence 1e-4.
TEST(ScalarFloat, ArticulatedBodyAlgorithmWithLongDecimalsAgreesWithDouble) {
    arm10_decimals::Parameters pf;
    arm10_decimals_double::Parameters pd;
    arm10_decimals_template::Parameters pt;
    // compare's call of a forward_dynamics (fd(q, qd, u, qdd), status 0 required).
    auto forward = [](auto fd) {
        return [fd](auto& q, auto& qd, auto& u, auto& out) {
            out.assign(10, 0);
            ASSERT_EQ(fd(q.data(), qd.data(), u.data(), out.data()), 0);
        };
    };
    auto const in_double = forward([&](double const* q, double const* qd, double const* u, double* out) {
        return arm10_decimals_double::forward_dynamics(q, qd, u, pd, out, nullptr);
    });
    compare(10, 10, forward([&](float const* q, float const* qd, float const* u, float* out) {
                return arm10_decimals::forward_dynamics(q, qd, u, pf, out, nullptr);
            }),
            in_double, 1e-4, "arm10_decimals forward_dynamics");
    // The same from --template code instantiated on float.
    compare(10, 10, forward([&](float const* q, float const* qd, float const* u, float* out) {
                return arm10_decimals_template::forward_dynamics(q, qd, u, pt, out, nullptr);
            }),
            in_double, 1e-4, "arm10_decimals forward_dynamics, --template on float");
    compare(10, 10,
            [&](auto& q, auto&, auto&, auto& out) { out.assign(100, 0); arm10_decimals::mass_matrix(q.data(), pf, out.data()); },
            [&](auto& q, auto&, auto&, auto& out) { out.assign(100, 0); arm10_decimals_double::mass_matrix(q.data(), pd, out.data()); },
            1e-5, "arm10_decimals mass_matrix");
}

} // namespace

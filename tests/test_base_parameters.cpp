// --regressor base (issue 50): the base parameters of the UR5 and the Panda in linear
// parameters, of the three-link arm with friction and rotor inertia, and of the planar
// two-link arm. For each: nb equals the rank of the full regressor stacked over random states
// (computed here by Gaussian elimination with full pivoting, independently of lagc's
// Gram-Schmidt); Yb pib = Y pi = tau at random states and random parameter values; the
// UR5's groupings are those of Khalil and Gautier's rules for its DH parameters; and least
// squares on Yb with simulated noisy torques recovers pib to within the noise. The C99 output
// (-o NAME.c) writes the same map and names.
#include "panda_base.hpp"
#include "three_link_base.hpp"
#include "two_link_base.hpp"
#include "ur5_base.hpp"
extern "C" {
#include "three_link_c.h"
}

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using vec = std::vector<double>;
using fn4 = std::function<void(const double*, const double*, const double*, const double*, double*)>;

struct base_case {
    std::string name;
    int nq = 0, nr = 0, nb = 0, np = 0;
    std::vector<int> columns;     // pi's indices among the parameters
    std::vector<std::string> names; // base_parameter_names
    fn4 Y, Yb, tau;               // q, qd, qdd, p-array
    std::function<void(const double*, double*)> pib; // p-array -> pib
};

template <class P>
P from_array(const double* a) {
    static_assert(sizeof(P) % sizeof(double) == 0);
    P p;
    std::memcpy(static_cast<void*>(&p), a, sizeof(P));
    return p;
}

#define LAGC_BASE_CASE(NS)                                                                                  \
    [] {                                                                                                    \
        base_case c;                                                                                        \
        c.name = #NS, c.nq = NS::nq, c.nr = NS::nr, c.nb = NS::nb;                                          \
        c.np = static_cast<int>(sizeof(NS::Parameters) / sizeof(double));                                   \
        c.columns.assign(NS::regressor_parameters, NS::regressor_parameters + NS::nr);                      \
        c.names.assign(NS::base_parameter_names, NS::base_parameter_names + NS::nb);                        \
        c.Y = [](const double* q, const double* qd, const double* qdd, const double* a, double* Y) {        \
            NS::inverse_dynamics_regressor(q, qd, qdd, from_array<NS::Parameters>(a), Y);                   \
        };                                                                                                  \
        c.Yb = [](const double* q, const double* qd, const double* qdd, const double* a, double* Y) {       \
            NS::inverse_dynamics_regressor_base(q, qd, qdd, from_array<NS::Parameters>(a), Y);              \
        };                                                                                                  \
        c.tau = [](const double* q, const double* qd, const double* qdd, const double* a, double* t) {      \
            double u[NS::nu] = {};                                                                          \
            NS::inverse_dynamics(q, qd, qdd, u, from_array<NS::Parameters>(a), t);                          \
        };                                                                                                  \
        c.pib = [](const double* a, double* b) { NS::base_parameters(from_array<NS::Parameters>(a), b); }; \
        return c;                                                                                           \
    }()

std::vector<base_case> const& cases() {
    static std::vector<base_case> const all = {LAGC_BASE_CASE(ur5_base), LAGC_BASE_CASE(panda_base),
                                               LAGC_BASE_CASE(three_link_base), LAGC_BASE_CASE(two_link_base)};
    return all;
}

base_case const& find(std::string const& name) {
    return *std::find_if(cases().begin(), cases().end(), [&](auto const& c) { return c.name == name; });
}

// Random parameters (every one, pi and the rest) in [0.6, 1.6].
vec random_parameters(int np, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> S(0.6, 1.6);
    vec p(np);
    for (auto& x : p) x = S(rng);
    return p;
}

// The rank of `cols`-column rows (relative tolerance 1e-9), by full pivoting.
int rank_of(std::vector<vec> rows, int cols) {
    double largest = 0;
    for (auto const& r : rows)
        for (double v : r) largest = std::max(largest, std::abs(v));
    int rank = 0;
    std::vector<bool> used(cols, false);
    for (std::size_t k = 0; k < rows.size() && rank < cols; ++k) {
        std::size_t br = k;
        int bc = -1;
        double best = 0;
        for (std::size_t r = k; r < rows.size(); ++r)
            for (int j = 0; j < cols; ++j)
                if (!used[j] && std::abs(rows[r][j]) > best) best = std::abs(rows[r][j]), br = r, bc = j;
        if (bc < 0 || best <= 1e-9 * largest) break;
        std::swap(rows[k], rows[br]);
        used[bc] = true;
        ++rank;
        for (std::size_t r = k + 1; r < rows.size(); ++r) {
            double const f = rows[r][bc] / rows[k][bc];
            for (int j = 0; j < cols; ++j) rows[r][j] -= f * rows[k][j];
        }
    }
    return rank;
}

// Y (or Yb) stacked over `states` random states: rows of `cols` values.
std::vector<vec> stacked(fn4 const& Y, int nq, int cols, vec const& p, int states, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> U(-2.0, 2.0);
    std::vector<vec> rows;
    for (int s = 0; s < states; ++s) {
        vec q(nq), qd(nq), qdd(nq), y(nq * cols);
        for (int i = 0; i < nq; ++i) q[i] = U(rng), qd[i] = U(rng), qdd[i] = U(rng);
        Y(q.data(), qd.data(), qdd.data(), p.data(), y.data());
        for (int i = 0; i < nq; ++i) rows.push_back(vec(y.begin() + i * cols, y.begin() + (i + 1) * cols));
    }
    return rows;
}

} // namespace

class BaseParameters : public ::testing::TestWithParam<base_case> {};

TEST_P(BaseParameters, CountIsTheRankOfTheStackedRegressor) {
    base_case const& c = GetParam();
    std::mt19937_64 rng(41);
    vec const p = random_parameters(c.np, rng);
    int const states = 4 * c.nr / c.nq + 10;
    EXPECT_EQ(rank_of(stacked(c.Y, c.nq, c.nr, p, states, rng), c.nr), c.nb) << c.name;
    // and Yb has full column rank: no combination is left to group.
    EXPECT_EQ(rank_of(stacked(c.Yb, c.nq, c.nb, p, states, rng), c.nb), c.nb) << c.name;
}

TEST_P(BaseParameters, BaseRegressorTimesBaseParametersIsTheTorque) {
    base_case const& c = GetParam();
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> U(-2.0, 2.0);
    for (int trial = 0; trial < 10; ++trial) {
        vec const p = random_parameters(c.np, rng);
        vec q(c.nq), qd(c.nq), qdd(c.nq), Y(c.nq * c.nr), Yb(c.nq * c.nb), pib(c.nb), tau(c.nq);
        for (int i = 0; i < c.nq; ++i) q[i] = U(rng), qd[i] = U(rng), qdd[i] = U(rng);
        c.Y(q.data(), qd.data(), qdd.data(), p.data(), Y.data());
        c.Yb(q.data(), qd.data(), qdd.data(), p.data(), Yb.data());
        c.tau(q.data(), qd.data(), qdd.data(), p.data(), tau.data());
        c.pib(p.data(), pib.data());
        double scale = 1e-300;
        for (double v : tau) scale = std::max(scale, std::abs(v));
        for (int i = 0; i < c.nq; ++i) {
            double full = 0, base = 0;
            for (int j = 0; j < c.nr; ++j) full += Y[i * c.nr + j] * p[c.columns[j]];
            for (int k = 0; k < c.nb; ++k) base += Yb[i * c.nb + k] * pib[k];
            EXPECT_NEAR(full, tau[i], 1e-11 * scale) << c.name << " row " << i;
            EXPECT_NEAR(base, tau[i], 1e-11 * scale) << c.name << " row " << i;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Arms, BaseParameters, ::testing::ValuesIn(cases()), [](auto const& info) { return info.param.name; });

TEST(BaseParameters, CountsOfThePublishedArms) {
    // 7n - 6 for a 6- and a 7-joint arm in the standard parameters (Gautier; Gaz et al. for
    // the Panda); the three-link arm: 9 link parameters (m2, m3 grouped), Ia2, Ia3 (Ia1 into
    // zz1R), 3 viscous and 3 Coulomb coefficients; the planar two-link arm: 6.
    EXPECT_EQ(ur5_base::nb, 36);
    EXPECT_EQ(ur5_base::nr, 49);
    EXPECT_EQ(panda_base::nb, 43);
    EXPECT_EQ(three_link_base::nr, 20);
    EXPECT_EQ(three_link_base::nb, 17);
    EXPECT_EQ(two_link_base::nb, 6);
}

namespace {

// The coefficient of parameter `of` in base parameter `in`: pib with that parameter at 1 and
// every other at 0 (base_parameters is linear in pi, its coefficients here constants).
template <class NS_Parameters, class Map>
double coefficient(Map map, char const* const* parameter_names, int np, char const* const* base_names, int nb,
                   std::string const& in, std::string const& of) {
    vec a(np, 0.0), pib(nb);
    int const j = static_cast<int>(std::find(parameter_names, parameter_names + np, of) - parameter_names);
    int const k = static_cast<int>(std::find(base_names, base_names + nb, in) - base_names);
    EXPECT_LT(j, np) << of;
    EXPECT_LT(k, nb) << in;
    if (j >= np || k >= nb) return NAN;
    a[j] = 1;
    map(from_array<NS_Parameters>(a.data()), pib.data());
    return pib[k];
}

double ur5(std::string const& in, std::string const& of) {
    int constexpr np = static_cast<int>(sizeof(ur5_base::Parameters) / sizeof(double));
    return coefficient<ur5_base::Parameters>(ur5_base::base_parameters, ur5_base::parameter_names, np,
                                             ur5_base::base_parameter_names, ur5_base::nb, in, of);
}

} // namespace

// The UR5 of tests/robots/ur5.urdf (Universal Robots' DH parameters: a2 = -0.425, a3 = -0.39225,
// d4 = 0.10915, alpha = pi/2, 0, 0, pi/2, -pi/2, 0), every link frame with z along its joint.
// Khalil and Gautier's rules for a revolute joint j group YY_j, MZ_j and M_j into link j-1:
// XX_jR = XX_j - YY_j; MX_(j-1)R = MX_(j-1) + a_j M_jR with M_jR = M_j + M_(j+1) + ...;
// MY_(j-1)R = MY_(j-1) - sin(alpha_j) MZ_j - ...; ZZ_(j-1)R = ZZ_(j-1) + sin^2(alpha_j) YY_j +
// a_j^2 M_jR + ...; YY_(j-1)R = YY_(j-1) + cos^2(alpha_j) YY_j + a_j^2 M_jR + ...; and the
// first link, turning about the vertical, keeps ZZ1R alone.
TEST(BaseParameters, UR5GroupingsFollowTheGroupingRules) {
    for (int j = 2; j <= 6; ++j) {
        std::string const xx = "Kxx_link" + std::to_string(j), yy = "Kyy_link" + std::to_string(j);
        EXPECT_EQ(ur5(xx + "R", xx), 1.0) << j;
        EXPECT_EQ(ur5(xx + "R", yy), -1.0) << j;
    }
    // ZZ1R = ZZ1 + YY2 (alpha2 = pi/2) + YY3 + YY4 (alpha = 0: through YY2R, YY3R) +
    // a2^2 M3R + a3^2 M4R + d4^2 M5R (through YY2R, YY3R, YY4R)
    EXPECT_EQ(ur5("Kzz_link1R", "Kzz_link1"), 1.0);
    for (char const* yy : {"Kyy_link2", "Kyy_link3", "Kyy_link4"}) EXPECT_EQ(ur5("Kzz_link1R", yy), 1.0) << yy;
    EXPECT_EQ(ur5("Kzz_link1R", "Kyy_link5"), 0.0);
    EXPECT_NEAR(ur5("Kzz_link1R", "m_link3"), 0.425 * 0.425, 1e-15);
    EXPECT_NEAR(ur5("Kzz_link1R", "m_link4"), 0.425 * 0.425 + 0.39225 * 0.39225, 1e-15);
    EXPECT_NEAR(ur5("Kzz_link1R", "m_link6"), 0.425 * 0.425 + 0.39225 * 0.39225 + 0.10915 * 0.10915, 1e-15);
    int link1 = 0;
    for (int k = 0; k < ur5_base::nb; ++k) link1 += std::string(ur5_base::base_parameter_names[k]).find("_link1") != std::string::npos;
    EXPECT_EQ(link1, 1); // ZZ1R only
    // MX_(j-1)R = MX_(j-1) + a_j (M_j + M_(j+1) + ...), for joints 3 and 4.
    for (char const* m : {"m_link3", "m_link4", "m_link5", "m_link6"}) EXPECT_NEAR(ur5("mx_link2R", m), -0.425, 1e-15) << m;
    for (char const* m : {"m_link4", "m_link5", "m_link6"}) EXPECT_NEAR(ur5("mx_link3R", m), -0.39225, 1e-15) << m;
    // ZZ_(j-1)R = ZZ_(j-1) + a_j^2 M_jR (alpha_j = 0, no YY_j)
    EXPECT_NEAR(ur5("Kzz_link2R", "m_link5"), 0.425 * 0.425, 1e-15);
    EXPECT_EQ(ur5("Kzz_link2R", "Kyy_link3"), 0.0);
    // MY_(j-1)R = MY_(j-1) - sin(alpha_j) MZ_j: alpha5 = pi/2, alpha6 = -pi/2.
    EXPECT_EQ(ur5("my_link4R", "mz_link5"), -1.0);
    EXPECT_EQ(ur5("my_link5R", "mz_link6"), 1.0);
}

TEST(BaseParameters, TwoLinkArmGroupsWithTheLinkLength) {
    // zz1R = zz1 + l1^2 m2, mx1R = mx1 + l1 m2, at any l1 (a polynomial in it, not a number).
    std::vector<std::string> const names(two_link_base::base_parameter_names, two_link_base::base_parameter_names + 6);
    EXPECT_EQ(names, (std::vector<std::string>{"mx1R", "my1", "zz1R", "mx2", "my2", "zz2"}));
    for (double l1 : {0.5, 0.9, 1.7}) {
        two_link_base::Parameters p{};
        p.l1 = l1, p.m2 = 2.0, p.zz1 = 0.3, p.mx1 = 0.1;
        double pib[two_link_base::nb];
        two_link_base::base_parameters(p, pib);
        EXPECT_NEAR(pib[2], 0.3 + l1 * l1 * 2.0, 1e-15);
        EXPECT_NEAR(pib[0], 0.1 + l1 * 2.0, 1e-15);
    }
}

TEST(BaseParameters, COutputWritesTheSameMapAndNames) {
    static_assert(three_link_c_nb == three_link_base::nb);
    three_link_c_parameters pc;
    three_link_c_default_parameters(&pc);
    three_link_base::Parameters const p{};
    double a[three_link_base::nb], b[three_link_base::nb];
    three_link_base::base_parameters(p, a);
    three_link_c_base_parameters(&pc, b);
    for (int k = 0; k < three_link_base::nb; ++k) {
        EXPECT_EQ(a[k], b[k]) << k;
        EXPECT_STREQ(three_link_c_base_parameter_names[k], three_link_base::base_parameter_names[k]);
    }
}

namespace {

// Least squares by modified Gram-Schmidt (twice): x minimising |A x - b|, and the diagonal
// of (A^T A)^-1 (each estimate's variance over the noise's).
void least_squares(std::vector<vec> const& rows, vec const& b, int n, vec& x, vec& variance) {
    std::size_t const m = rows.size();
    std::vector<vec> Q(n, vec(m)), R(n, vec(n, 0.0));
    for (int j = 0; j < n; ++j) {
        for (std::size_t i = 0; i < m; ++i) Q[j][i] = rows[i][j];
        for (int pass = 0; pass < 2; ++pass)
            for (int k = 0; k < j; ++k) {
                double d = 0;
                for (std::size_t i = 0; i < m; ++i) d += Q[k][i] * Q[j][i];
                R[k][j] += d;
                for (std::size_t i = 0; i < m; ++i) Q[j][i] -= d * Q[k][i];
            }
        double norm = 0;
        for (double v : Q[j]) norm += v * v;
        R[j][j] = std::sqrt(norm);
        for (double& v : Q[j]) v /= R[j][j];
    }
    // R^-1 by columns, then x = R^-1 Q^T b and diag(R^-1 R^-T).
    std::vector<vec> inverse(n, vec(n, 0.0));
    for (int c = 0; c < n; ++c)
        for (int r = c; r >= 0; --r) {
            double s = r == c ? 1.0 : 0.0;
            for (int k = r + 1; k <= c; ++k) s -= R[r][k] * inverse[k][c];
            inverse[r][c] = s / R[r][r];
        }
    vec qtb(n, 0.0);
    for (int k = 0; k < n; ++k)
        for (std::size_t i = 0; i < m; ++i) qtb[k] += Q[k][i] * b[i];
    x.assign(n, 0.0);
    variance.assign(n, 0.0);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) x[r] += inverse[r][c] * qtb[c], variance[r] += inverse[r][c] * inverse[r][c];
}

} // namespace

// Identification of the UR5's 36 base parameters from simulated torques at 400 random states
// with 0.02 N m of Gaussian noise: every estimate within 4.5 standard deviations of
// base_parameters(true pi) (its deviation from the noise and Yb), and exact without noise.
TEST(BaseParameters, IdentificationRecoversTheBaseParametersToTheNoise) {
    int constexpr n = ur5_base::nq, nb = ur5_base::nb;
    ur5_base::Parameters const truth{};
    double truth_b[nb];
    ur5_base::base_parameters(truth, truth_b);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> U(-2.5, 2.5);
    std::normal_distribution<double> noise(0.0, 0.02);
    std::vector<vec> rows;
    vec exact, noisy;
    for (int s = 0; s < 400; ++s) {
        double q[n], qd[n], qdd[n], u[n] = {}, tau[n], Yb[n * nb];
        for (int i = 0; i < n; ++i) q[i] = U(rng), qd[i] = U(rng), qdd[i] = U(rng);
        ur5_base::inverse_dynamics(q, qd, qdd, u, truth, tau);
        ur5_base::inverse_dynamics_regressor_base(q, qd, qdd, truth, Yb);
        for (int i = 0; i < n; ++i) {
            rows.push_back(vec(Yb + i * nb, Yb + (i + 1) * nb));
            exact.push_back(tau[i]);
            noisy.push_back(tau[i] + noise(rng));
        }
    }
    vec x, variance;
    least_squares(rows, exact, nb, x, variance);
    for (int k = 0; k < nb; ++k) EXPECT_NEAR(x[k], truth_b[k], 1e-9 * (1 + std::abs(truth_b[k]))) << ur5_base::base_parameter_names[k];
    least_squares(rows, noisy, nb, x, variance);
    double worst = 0;
    for (int k = 0; k < nb; ++k) {
        double const sd = 0.02 * std::sqrt(variance[k]);
        worst = std::max(worst, std::abs(x[k] - truth_b[k]) / sd);
        EXPECT_LT(std::abs(x[k] - truth_b[k]), 4.5 * sd) << ur5_base::base_parameter_names[k];
    }
    std::printf("UR5 identification: the largest error is %.2f standard deviations\n", worst);
}

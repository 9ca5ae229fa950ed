// inverse_dynamics_regressor on 18 bundled models (issue 35): Y pi equals
// inverse_dynamics with the inputs at zero, to 1e-12 of its size, at random states; Y does
// not depend on pi's values (pi scaled, the same Y, and Y pi' the new torques); and the
// numbers of identifiable combinations (the base parameters: the rank of Y stacked over
// random states) of the planar chains and arms; robot files written in the parameters the
// torques are linear in (lagc --inertial-parameters linear: the UR5, the Panda, arm7) have the
// dynamics of the files as written (a floating body's too), and as many base parameters as
// the literature gives.
#include "all_models.inc"

#include "arm7_com.hpp"
#include "arm7_linear.hpp"
#include "floating_com.hpp"
#include "floating_linear.hpp"
#include "panda_linear.hpp"
#include "ur5_com.hpp"
#include "ur5_linear.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace {

using vec = std::vector<double>;

struct regressor_case {
    std::string name;
    int nq = 0, nu = 0, nr = 0, np = 0;
    std::vector<int> columns; // pi's indices among the parameters
    std::function<void(const double*, const double*, const double*, const double*, double*)> Y;  // q, qd, qdd, p-array
    std::function<void(const double*, const double*, const double*, const double*, double*)> tau; // u = 0
};

// The parameters as an array of doubles (Parameters holds doubles only, in declaration order).
template <class P>
P from_array(const double* a) {
    static_assert(sizeof(P) % sizeof(double) == 0);
    P p;
    std::copy(a, a + sizeof(P) / sizeof(double), reinterpret_cast<double*>(&p));
    return p;
}

template <class P, int NR, int NU>
regressor_case make_case(char const* name, int nq, int const (&columns)[NR]) {
    regressor_case c;
    c.name = name;
    c.nq = nq, c.nu = NU, c.nr = NR, c.np = static_cast<int>(sizeof(P) / sizeof(double));
    c.columns.assign(columns, columns + NR);
    c.Y = [](const double* q, const double* qd, const double* qdd, const double* a, double* Y) {
        inverse_dynamics_regressor(q, qd, qdd, from_array<P>(a), Y);
    };
    c.tau = [](const double* q, const double* qd, const double* qdd, const double* a, double* tau) {
        double u[NU > 0 ? NU : 1] = {};
        inverse_dynamics(q, qd, qdd, u, from_array<P>(a), tau);
    };
    return c;
}

// The arms, chains and single bodies of models/ (every time-free model with a regressor
// could be listed; these cover each kind of kinetic energy lagc derives).
#define LAGC_REGRESSOR(NS) make_case<NS::Parameters, NS::nr, NS::nu>(#NS, NS::nq, NS::regressor_parameters),

std::vector<regressor_case> const cases = {
    LAGC_REGRESSOR(cart_pendulum) LAGC_REGRESSOR(double_pendulum) LAGC_REGRESSOR(chain10_rel)
    LAGC_REGRESSOR(elastic_pendulum) LAGC_REGRESSOR(planar_arm) LAGC_REGRESSOR(two_bar_linkage)
    LAGC_REGRESSOR(spring_damper_pendulum) LAGC_REGRESSOR(four_bar) LAGC_REGRESSOR(ladle)
    LAGC_REGRESSOR(tilted_rod) LAGC_REGRESSOR(spinning_top) LAGC_REGRESSOR(quadrotor)
    LAGC_REGRESSOR(ur5_like) LAGC_REGRESSOR(panda_like) LAGC_REGRESSOR(iiwa_like) LAGC_REGRESSOR(iiwa_ceiling)
    LAGC_REGRESSOR(two_link_identification) LAGC_REGRESSOR(charged_pendulum) LAGC_REGRESSOR(ur5_linear) LAGC_REGRESSOR(panda_linear)
    LAGC_REGRESSOR(arm7_linear)};

} // namespace

class Regressor : public ::testing::TestWithParam<regressor_case> {};

TEST_P(Regressor, YPiIsInverseDynamicsAndYIsFreeOfPi) {
    regressor_case const& c = GetParam();
    int const n = c.nq;
    std::mt19937_64 rng(97);
    std::uniform_real_distribution<double> U(-1.2, 1.2), S(0.6, 1.6);
    for (int trial = 0; trial < 5; ++trial) {
        vec q(n), qd(n), qdd(n), p(c.np), tau(n), Y(n * c.nr), Y2(n * c.nr), tau2(n);
        for (int i = 0; i < n; ++i) q[i] = U(rng), qd[i] = U(rng), qdd[i] = U(rng);
        for (auto& x : p) x = S(rng); // every parameter random and non-zero
        c.Y(q.data(), qd.data(), qdd.data(), p.data(), Y.data());
        c.tau(q.data(), qd.data(), qdd.data(), p.data(), tau.data());
        auto check = [&](vec const& Ym, vec const& pm, vec const& t) {
            double scale = 1e-300;
            for (double v : t) scale = std::max(scale, std::abs(v));
            for (int i = 0; i < n; ++i) {
                double s = 0;
                for (int j = 0; j < c.nr; ++j) s += Ym[i * c.nr + j] * pm[c.columns[j]];
                EXPECT_NEAR(s, t[i], 1e-12 * scale) << c.name << " row " << i;
            }
        };
        check(Y, p, tau);
        // pi scaled: the same Y, and Y pi' the torques at the new values.
        vec p2 = p;
        for (int j : c.columns) p2[j] *= 1.7;
        c.Y(q.data(), qd.data(), qdd.data(), p2.data(), Y2.data());
        c.tau(q.data(), qd.data(), qdd.data(), p2.data(), tau2.data());
        for (int k = 0; k < n * c.nr; ++k) EXPECT_NEAR(Y2[k], Y[k], 1e-12 * (1 + std::abs(Y[k]))) << c.name;
        check(Y2, p2, tau2);
    }
}

INSTANTIATE_TEST_SUITE_P(Bundled, Regressor, ::testing::ValuesIn(cases), [](auto const& info) { return info.param.name; });

namespace {

// The rank of Y stacked over random states (relative tolerance 1e-9): how many combinations
// of pi the torques determine — the base parameters' count.
int base_parameter_count(regressor_case const& c, int fixed = -1, double value = 0) {
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> U(-1.5, 1.5), S(0.6, 1.6);
    vec p(c.np);
    for (auto& x : p) x = S(rng);
    if (fixed >= 0) p[fixed] = value;
    std::vector<vec> rows;
    for (int s = 0; s < 8 * c.nr / c.nq + 20; ++s) {
        vec q(c.nq), qd(c.nq), qdd(c.nq), Y(c.nq * c.nr);
        for (int i = 0; i < c.nq; ++i) q[i] = U(rng), qd[i] = U(rng), qdd[i] = U(rng);
        c.Y(q.data(), qd.data(), qdd.data(), p.data(), Y.data());
        for (int i = 0; i < c.nq; ++i) rows.push_back(vec(Y.begin() + i * c.nr, Y.begin() + (i + 1) * c.nr));
    }
    // Gaussian elimination with full pivoting on the stacked rows.
    double largest = 0;
    for (auto const& r : rows)
        for (double v : r) largest = std::max(largest, std::abs(v));
    int rank = 0;
    std::vector<bool> used(c.nr, false);
    for (std::size_t k = 0; k < rows.size() && rank < c.nr; ++k) {
        std::size_t br = k;
        int bc = -1;
        double best = 0;
        for (std::size_t r = k; r < rows.size(); ++r)
            for (int j = 0; j < c.nr; ++j)
                if (!used[j] && std::abs(rows[r][j]) > best) best = std::abs(rows[r][j]), br = r, bc = j;
        if (bc < 0 || best <= 1e-9 * largest) break;
        std::swap(rows[k], rows[br]);
        used[bc] = true;
        ++rank;
        for (std::size_t r = k + 1; r < rows.size(); ++r) {
            double const f = rows[r][bc] / rows[k][bc];
            for (int j = 0; j < c.nr; ++j) rows[r][j] -= f * rows[k][j];
        }
    }
    return rank;
}

regressor_case const& find(std::string const& name) {
    return *std::find_if(cases.begin(), cases.end(), [&](auto const& c) { return c.name == name; });
}

} // namespace

TEST(Regressor, BaseParameterCounts) {
    // Point masses on a chain: the gravity torque at joint i sums the masses beyond it, so
    // every mass is determined (a triangular system): as many base parameters as masses.
    EXPECT_EQ(base_parameter_count(find("double_pendulum")), 2);
    EXPECT_EQ(base_parameter_count(find("chain10_rel")), 10);
    // A planar 2R arm in barycentric parameters (models/two_link_identification.lag): pi is
    // mx1, my1, zz1, m2, mx2, my2, zz2. By the grouping rules (Khalil and Gautier) m2 joins
    // zz1 (as m2 l1^2) and mx1 (as m2 l1), leaving zz1R, mx1R, my1, zz2, mx2, my2: 6 base
    // parameters in a vertical plane; without gravity mx1R and my1 no longer act: 4.
    regressor_case const& planar = find("two_link_identification");
    EXPECT_EQ(planar.nr, 7);
    EXPECT_EQ(base_parameter_count(planar), 6);
    EXPECT_EQ(base_parameter_count(planar, two_link_identification::parameter::g, 0.0), 4);
    for (char const* arm : {"ur5_like", "panda_like", "iiwa_like"}) {
        regressor_case const& c = find(arm);
        int const base = base_parameter_count(c);
        std::printf("%s: %d regressor parameters, %d base parameters\n", arm, c.nr, base);
        EXPECT_GT(base, 0);
        EXPECT_LT(base, c.nr); // rigid-body parameters are never all identifiable
    }
}

// The same robot file written both ways: by centre of mass and inertia about it, and by
// mass, first moments and inertia about the body's frame. M and tau (inputs at zero) agree
// at random states, with the parameters' defaults (the file's numbers, converted).
template <class Com, class Linear>
void same_dynamics(char const* name) {
    int constexpr n = Com::nq;
    static_assert(Linear::nq == n);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> U(-2.0, 2.0);
    for (int trial = 0; trial < 20; ++trial) {
        double q[n], qd[n], qdd[n], u[Com::nu > 0 ? Com::nu : 1] = {}, t1[n], t2[n], M1[n * n], M2[n * n];
        for (int i = 0; i < n; ++i) q[i] = U(rng), qd[i] = U(rng), qdd[i] = U(rng);
        Com::inverse_dynamics(q, qd, qdd, u, {}, t1);
        Linear::inverse_dynamics(q, qd, qdd, u, {}, t2);
        Com::mass_matrix(q, {}, M1);
        Linear::mass_matrix(q, {}, M2);
        double ts = 0, ms = 0;
        for (int i = 0; i < n; ++i) ts = std::max(ts, std::abs(t1[i]));
        for (int k = 0; k < n * n; ++k) ms = std::max(ms, std::abs(M1[k]));
        for (int i = 0; i < n; ++i) EXPECT_NEAR(t2[i], t1[i], 1e-12 * ts) << name << " tau " << i;
        for (int k = 0; k < n * n; ++k) EXPECT_NEAR(M2[k], M1[k], 1e-12 * ms) << name << " M " << k;
    }
}

// The generated namespaces as types, for same_dynamics.
#define LAGC_AS_TYPE(NS)                                                                           \
    struct NS##_t {                                                                                \
        static constexpr int nq = NS::nq, nu = NS::nu;                                             \
        static void inverse_dynamics(const double* q, const double* qd, const double* qdd,         \
                                     const double* u, NS::Parameters const& p, double* tau) {      \
            NS::inverse_dynamics(q, qd, qdd, u, p, tau);                                           \
        }                                                                                          \
        static void mass_matrix(const double* q, NS::Parameters const& p, double* M) { NS::mass_matrix(q, p, M); } \
    };
LAGC_AS_TYPE(ur5_com)
LAGC_AS_TYPE(ur5_linear)
LAGC_AS_TYPE(arm7_com)
LAGC_AS_TYPE(arm7_linear)

TEST(Regressor, RobotFilesInLinearParametersKeepTheirDynamics) {
    same_dynamics<ur5_com_t, ur5_linear_t>("ur5.urdf");
    same_dynamics<arm7_com_t, arm7_linear_t>("arm7.xml");
}

// A free joint's body (x, y, z, then the unit quaternion qw, qx, qy, qz): its two forms
// agree where the motion is, |q| = 1 with q-dot tangent to it (there Q' = Q [w]x, which the
// linear form's T = 1/2 m |o'|^2 + o'.Q (w x h) + 1/2 w.K w uses), so the accelerations
// agree; off that manifold M differs along q, which the constraint's multiplier absorbs.
TEST(Regressor, AFreeBodyInLinearParametersMovesTheSame) {
    std::mt19937_64 rng(12);
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    static_assert(floating_com::nq == 7 && floating_linear::nq == 7 && floating_com::nu == 6);
    for (int trial = 0; trial < 20; ++trial) {
        double q[7], qd[7], u[6], a1[7], a2[7];
        for (int i = 0; i < 7; ++i) q[i] = U(rng), qd[i] = 2 * U(rng);
        for (double& x : u) x = 3 * U(rng);
        double norm = 0, along = 0;
        for (int i = 3; i < 7; ++i) norm += q[i] * q[i];
        for (int i = 3; i < 7; ++i) q[i] /= std::sqrt(norm);
        for (int i = 3; i < 7; ++i) along += q[i] * qd[i];
        for (int i = 3; i < 7; ++i) qd[i] -= along * q[i];
        ASSERT_EQ(floating_com::forward_dynamics(q, qd, u, {}, a1, nullptr), 0);
        ASSERT_EQ(floating_linear::forward_dynamics(q, qd, u, {}, a2, nullptr), 0);
        double scale = 0;
        for (double v : a1) scale = std::max(scale, std::abs(v));
        for (int i = 0; i < 7; ++i) EXPECT_NEAR(a2[i], a1[i], 1e-12 * scale) << "qdd " << i;
    }
}

TEST(Regressor, BaseParametersOfPublishedArms) {
    // The UR5 (tests/robots/ur5.urdf, Universal Robots' DH parameters): pi is every link's
    // m, mx, my, mz and six inertias that act (49). By Gautier and Khalil's grouping rules
    // each link of a revolute chain keeps 7 of its 10 (YY, MZ and M group into the link
    // before), and link 1, turning about the vertical, keeps only ZZ1R: 7 n - 6 = 36 for
    // n = 6. The joints 2, 3, 4 being parallel groups nothing more.
    regressor_case const& ur5 = find("ur5_linear");
    EXPECT_EQ(ur5.nr, 49);
    EXPECT_EQ(base_parameter_count(ur5), 36);
    // The Panda (tests/robots/panda.urdf, Franka's DH parameters): 43, the number of base
    // dynamic parameters Gaz et al. (IEEE RA-L 4(4), 2019) identify for its rigid bodies; 7 n - 6
    // for n = 7 too.
    EXPECT_EQ(base_parameter_count(find("panda_linear")), 43);
    // arm7.xml (iiwa layout) with its joints' armature, damping and spring: the 43 of a
    // 7-joint arm, 7 damping and 1 stiffness coefficients, and the armatures of joints 3-7;
    // joint 1's and joint 2's group with ZZ1R and ZZ2 (their rates are the whole of their
    // links' spin about the joint, axis 2 being perpendicular to axis 1): 56.
    EXPECT_EQ(base_parameter_count(find("arm7_linear")), 56);
}

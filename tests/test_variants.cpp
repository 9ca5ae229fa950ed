// Variants of the generated code against the default code (the *_double references):
// --split (every function cut into parts that pass values on through a scratch array, the
// values several functions need in parts they share), the same with --no-shared-parts,
// --fold-parameters (the parameters' defaults baked in as constants) and --reuse-above 0
// (linearization's q̇ columns from coriolis_matrix).
#include "arm_on_table_double.hpp"
#include "arm_on_table_folded.hpp"
#include "arm_on_table_own.hpp"
#include "chain10_rel_double.hpp"
#include "chain10_rel_folded.hpp"
#include "chain10_rel_own.hpp"
#include "chain10_rel_reused.hpp"
#include "chain10_rel_split.hpp"
#include "four_bar_double.hpp"
#include "four_bar_folded.hpp"
#include "four_bar_own.hpp"
#include "four_bar_reused.hpp"
#include "four_bar_split.hpp"

#include <gtest/gtest.h>

#include <regex>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string read(std::string const& name) {
    std::ifstream in(std::string(VARIANT_HEADER_DIR) + "/" + name);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Split code runs the same statements in the same order; folded code may combine
// constants differently (m2 + m3 + m4 is one literal), hence a relative tolerance, wider
// for solutions of M qdd = b, whose condition number amplifies rounding.
void expect_close(std::vector<double> const& a, std::vector<double> const& b, char const* what,
                  double tolerance = 1e-12) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a[i], b[i], tolerance * (1 + std::abs(b[i]))) << what << "[" << i << "]";
}

// The parts a function's definition calls (its own, name_partK, and those it shares with
// other functions, shared_partK), in order.
std::vector<std::string> parts_called(std::string const& text, std::string const& name) {
    std::smatch m;
    EXPECT_TRUE(std::regex_search(text, m, std::regex("\\b(?:void|double) " + name + "\\([^)]*\\) \\{([^}]*)\\}"))) << name;
    std::vector<std::string> parts;
    std::string const body = m.size() > 1 ? m[1].str() : "";
    std::regex const call("detail::(\\w+)\\(");
    for (auto it = std::sregex_iterator(body.begin(), body.end(), call); it != std::sregex_iterator(); ++it)
        parts.push_back((*it)[1].str());
    return parts;
}

// Every function cut, into parts of its own and parts shared with others: the chain's M
// shares its kinematics with the other functions, which the file then holds once, in parts
// they all call (forward dynamics' terms have their own); the energies are in parts too and
// return result[0].
TEST(Variants, TheSplitCodeIsReallySplit) {
    std::string chain = read("chain10_rel_split.hpp"), four_bar = read("four_bar_split.hpp");
    for (char const* f : {"dynamics_terms", "mass_matrix", "coriolis_matrix", "linearization_terms", "kinetic_energy"})
        EXPECT_GE(parts_called(chain, f).size(), 2u) << f;
    for (char const* f : {"dynamics_terms", "constraint_terms", "semi_implicit_system"})
        EXPECT_GE(parts_called(four_bar, f).size(), 2u) << f;
    // M shares its kinematics with the other functions (C, the linearization, ...): each shared
    // part it calls, another function calls too. Forward dynamics' terms, the hot path, are
    // written on their own (their own parts only).
    std::vector<std::string> const M = parts_called(chain, "mass_matrix");
    std::size_t both = 0;
    for (auto const& p : M)
        if (p.rfind("shared_part", 0) == 0) {
            ++both;
            std::regex const call("detail::" + p + "\\(");
            EXPECT_GE(std::distance(std::sregex_iterator(chain.begin(), chain.end(), call), std::sregex_iterator()), 2) << p;
        }
    EXPECT_GE(both, M.size() / 2);
    for (auto const& p : parts_called(chain, "dynamics_terms")) EXPECT_EQ(p.rfind("dynamics_terms_part", 0), 0u) << p;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(chain, m, std::regex("double kinetic_energy\\([^)]*\\) \\{[^}]*return result\\[0\\];\\n\\}")));
}

// Arithmetic operators in the bodies of the functions whose names match `name` (a regex):
// binary + * / and " - " (the generated code's spacing), unary minus not counted.
std::size_t operators_in(std::string const& text, std::string const& name) {
    std::regex const function("\\b(?:void|double) " + name + "\\([^)]*\\) \\{([^}]*)\\}");
    std::regex const op("[*+/]| - ");
    std::size_t count = 0;
    for (auto f = std::sregex_iterator(text.begin(), text.end(), function); f != std::sregex_iterator(); ++f) {
        std::string const body = (*f)[1].str();
        count += static_cast<std::size_t>(std::distance(std::sregex_iterator(body.begin(), body.end(), op), std::sregex_iterator()));
    }
    return count;
}

// The 3-D arm's kinetic_energy is ½ q̇ᵀ M q̇ where its functions share parts (T as written
// would repeat every body's velocity): its own part is the quadratic form, n² + 3n − 1
// operations on M's entries, which come from M's parts; with --no-shared-parts it is T as
// written, a function of the velocities alone. Both give T, and the rest agrees.
TEST(Variants, ArmKineticEnergyFromTheMassMatrix) {
    constexpr std::size_t nq = arm_on_table_double::nq;
    std::string const shared = read("arm_on_table_double.hpp"), own = read("arm_on_table_own.hpp");
    std::vector<std::string> const M = parts_called(shared, "mass_matrix"), T = parts_called(shared, "kinetic_energy");
    std::size_t of_M = 0, in_T = 0;
    for (auto const& p : M)
        if (p.rfind("shared_part", 0) == 0) ++of_M, in_T += std::find(T.begin(), T.end(), p) != T.end();
    EXPECT_GE(of_M, 4u);
    EXPECT_GE(2 * in_T, of_M);
    std::size_t const quadratic_form = operators_in(shared, "kinetic_energy_part\\d+");
    EXPECT_GE(quadratic_form, nq * nq / 2);
    EXPECT_LE(quadratic_form, nq * nq + 3 * nq);
    EXPECT_TRUE(parts_called(own, "kinetic_energy").empty()); // whole
    EXPECT_GT(operators_in(own, "kinetic_energy"), 4 * (nq * nq + 3 * nq));
    constexpr int n = arm_on_table_double::nq;
    arm_on_table_double::Parameters pw;
    arm_on_table_own::Parameters ps;
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> U(-1.5, 1.5);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<double> q(n), qd(n), a(n * n), b(n * n), x(n), y(n);
        for (int i = 0; i < n; ++i) q[i] = U(rng), qd[i] = U(rng);
        double const tw = arm_on_table_double::kinetic_energy(q.data(), qd.data(), pw);
        EXPECT_GT(tw, 0.0);
        EXPECT_NEAR(arm_on_table_own::kinetic_energy(q.data(), qd.data(), ps), tw, 1e-13 * tw);
        expect_close({arm_on_table_own::potential_energy(q.data(), ps)}, {arm_on_table_double::potential_energy(q.data(), pw)}, "V");
        arm_on_table_double::mass_matrix(q.data(), pw, a.data());
        arm_on_table_own::mass_matrix(q.data(), ps, b.data());
        expect_close(b, a, "M");
        arm_on_table_double::bias_forces(q.data(), qd.data(), pw, x.data());
        arm_on_table_own::bias_forces(q.data(), qd.data(), ps, y.data());
        expect_close(y, x, "h");
    }
}

// The default calls coriolis_matrix from linearization only where C is large (neither
// model's is); --reuse-above 0 always does.
TEST(Variants, ReusedLinearizationCallsCoriolisMatrix) {
    for (char const* name : {"chain10_rel_reused.hpp", "four_bar_reused.hpp"})
        EXPECT_NE(read(name).find("coriolis_matrix(q, qd, p, C);"), std::string::npos) << name;
    for (char const* name : {"chain10_rel_double.hpp", "four_bar_double.hpp"})
        EXPECT_EQ(read(name).find("coriolis_matrix(q, qd, p, C);"), std::string::npos) << name;
}

TEST(Variants, FoldedCodeReadsNoParameter) {
    for (char const* name : {"chain10_rel_folded.hpp", "four_bar_folded.hpp"}) {
        std::string text = read(name);
        EXPECT_FALSE(std::regex_search(text, std::regex("[^A-Za-z0-9_]p\\.[A-Za-z_]"))) << name << " reads a parameter";
        EXPECT_NE(text.find("const Parameters& /*p*/"), std::string::npos) << name;
        EXPECT_NE(text.find("--fold-parameters"), std::string::npos) << name;
    }
}

// The chain's M, C, h, energies and forward dynamics, variant S against default W (the
// energies in parts or whole; the chain's T stays as written in every variant, a 3-D arm's
// ½ q̇ᵀ M q̇ is checked in ArmKineticEnergyFromTheMassMatrix).
#define CHAIN_AGREES(W, S)                                                                  \
    do {                                                                                    \
        constexpr int n = W::nq;                                                            \
        W::Parameters pw;                                                                   \
        S::Parameters ps;                                                                   \
        std::mt19937 rng(5);                                                                \
        std::uniform_real_distribution<double> U(-1.0, 1.0);                                \
        for (int trial = 0; trial < 20; ++trial) {                                          \
            std::vector<double> q(n), qd(n), u(n);                                          \
            for (int i = 0; i < n; ++i) q[i] = U(rng), qd[i] = U(rng), u[i] = U(rng);      \
            std::vector<double> a(n * n), b(n * n);                                         \
            W::mass_matrix(q.data(), pw, a.data());                                         \
            S::mass_matrix(q.data(), ps, b.data());                                         \
            expect_close(b, a, "M");                                                        \
            W::coriolis_matrix(q.data(), qd.data(), pw, a.data());                          \
            S::coriolis_matrix(q.data(), qd.data(), ps, b.data());                          \
            expect_close(b, a, "C");                                                        \
            std::vector<double> x(n), y(n);                                                 \
            W::bias_forces(q.data(), qd.data(), pw, x.data());                              \
            S::bias_forces(q.data(), qd.data(), ps, y.data());                              \
            expect_close(y, x, "h");                                                        \
            expect_close({S::kinetic_energy(q.data(), qd.data(), ps), S::potential_energy(q.data(), ps)}, \
                         {W::kinetic_energy(q.data(), qd.data(), pw), W::potential_energy(q.data(), pw)}, \
                         "T, V");                                                           \
            ASSERT_EQ(W::forward_dynamics(q.data(), qd.data(), u.data(), pw, x.data(), nullptr), 0); \
            ASSERT_EQ(S::forward_dynamics(q.data(), qd.data(), u.data(), ps, y.data(), nullptr), 0); \
            expect_close(y, x, "qdd", 1e-9);                                                      \
            std::vector<double> Aw(4 * n * n), As(4 * n * n), Bw(2 * n * n), Bs(2 * n * n);     \
            ASSERT_EQ(W::linearization(q.data(), qd.data(), u.data(), pw, Aw.data(), Bw.data()), 0); \
            ASSERT_EQ(S::linearization(q.data(), qd.data(), u.data(), ps, As.data(), Bs.data()), 0); \
            expect_close(As, Aw, "linearization A", 1e-9);                                  \
            expect_close(Bs, Bw, "linearization B", 1e-9);                                  \
        }                                                                                   \
    } while (0)

// The constrained four-bar's forward dynamics and semi-implicit system.
#define FOUR_BAR_AGREES(W, S)                                                               \
    do {                                                                                    \
        constexpr int n = W::nq, nc = W::nc, nu = W::nu;                                    \
        static_assert(nc > 0);                                                              \
        W::Parameters pw;                                                                   \
        S::Parameters ps;                                                                   \
        std::mt19937 rng(6);                                                                \
        std::uniform_real_distribution<double> U(-0.3, 0.3);                                \
        int solved = 0;                                                                     \
        for (int trial = 0; trial < 20; ++trial) {                                          \
            std::vector<double> q(n), qd(n), u(nu > 0 ? nu : 1);                            \
            for (int i = 0; i < n; ++i) q[i] = U(rng), qd[i] = U(rng);                      \
            for (auto& v : u) v = U(rng);                                                   \
            std::vector<double> x(n), y(n), lx(nc), ly(nc);                                 \
            int const rw = W::forward_dynamics(q.data(), qd.data(), u.data(), pw, x.data(), lx.data()); \
            int const rs = S::forward_dynamics(q.data(), qd.data(), u.data(), ps, y.data(), ly.data()); \
            ASSERT_EQ(rs, rw);                                                              \
            if (rw != 0) continue;                                                          \
            ++solved;                                                                       \
            expect_close(y, x, "qdd", 1e-9);                                                      \
            expect_close(ly, lx, "lambda", 1e-9);                                                 \
            std::vector<double> Aw(4 * n * n), As(4 * n * n), Bw(2 * n * nu), Bs(2 * n * nu);   \
            ASSERT_EQ(W::linearization(q.data(), qd.data(), u.data(), pw, Aw.data(), Bw.data()), 0); \
            ASSERT_EQ(S::linearization(q.data(), qd.data(), u.data(), ps, As.data(), Bs.data()), 0); \
            expect_close(As, Aw, "linearization A", 1e-8);                                  \
            expect_close(Bs, Bw, "linearization B", 1e-8);                                  \
            std::vector<double> K((n + nc) * (n + nc)), K2(K.size()), r(n + nc), r2(n + nc); \
            W::semi_implicit_system(q.data(), qd.data(), u.data(), pw, K.data(), r.data()); \
            S::semi_implicit_system(q.data(), qd.data(), u.data(), ps, K2.data(), r2.data()); \
            expect_close(K2, K, "K");                                                       \
            expect_close(r2, r, "rhs");                                                     \
        }                                                                                   \
        EXPECT_GT(solved, 10);                                                              \
    } while (0)

// The split chain's forward dynamics is the loop form (forward_dynamics.tpl): a NaN state
// is reported (3) there too.
TEST(Variants, SplitChainReportsANonFiniteState) {
    chain10_rel_split::Parameters p;
    std::vector<double> q(10, 0.2), qd(10, 0.1), u(10, 0.0), qdd(10);
    ASSERT_EQ(chain10_rel_split::forward_dynamics(q.data(), qd.data(), u.data(), p, qdd.data(), nullptr), 0);
    qd[4] = std::nan("");
    EXPECT_EQ(chain10_rel_split::forward_dynamics(q.data(), qd.data(), u.data(), p, qdd.data(), nullptr), 3);
}

TEST(Variants, SplitChainAgrees) { CHAIN_AGREES(chain10_rel_double, chain10_rel_split); }
TEST(Variants, SplitConstrainedFourBarAgrees) { FOUR_BAR_AGREES(four_bar_double, four_bar_split); }
TEST(Variants, OwnPartsChainAgrees) { CHAIN_AGREES(chain10_rel_double, chain10_rel_own); }
TEST(Variants, OwnPartsConstrainedFourBarAgrees) { FOUR_BAR_AGREES(four_bar_double, four_bar_own); }

// --no-shared-parts: no part is shared, each function calls its own.
TEST(Variants, OwnPartsAreEachFunctions) {
    std::string const chain = read("chain10_rel_own.hpp");
    EXPECT_EQ(chain.find("shared_part"), std::string::npos);
    for (char const* f : {"dynamics_terms", "mass_matrix", "coriolis_matrix", "linearization_terms"}) {
        std::vector<std::string> const parts = parts_called(chain, f);
        EXPECT_GE(parts.size(), 2u) << f;
        for (auto const& p : parts) EXPECT_EQ(p.rfind(std::string(f) + "_part", 0), 0u) << f << ": " << p;
    }
}
TEST(Variants, FoldedChainAgrees) { CHAIN_AGREES(chain10_rel_double, chain10_rel_folded); }
TEST(Variants, FoldedConstrainedFourBarAgrees) { FOUR_BAR_AGREES(four_bar_double, four_bar_folded); }
// A 3-D arm folded: derived with its parameters as symbols (its points' composites found as
// without the option), then folded into each function.
TEST(Variants, FoldedArmOnTableAgrees) { FOUR_BAR_AGREES(arm_on_table_double, arm_on_table_folded); }
TEST(Variants, ReusedChainAgrees) { CHAIN_AGREES(chain10_rel_double, chain10_rel_reused); }
TEST(Variants, ReusedConstrainedFourBarAgrees) { FOUR_BAR_AGREES(four_bar_double, four_bar_reused); }

} // namespace

// The GiNaC helpers (symbolic/): substitution and evaluation over shared parts, the chain rule,
// reading sums as GiNaC stores them.
#include "derive/derive_support.hpp"
#include "symbolic/chain_rule.hpp"
#include "symbolic/dag.hpp"
#include "symbolic/simplify.hpp"

#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using GiNaC::ex;
using namespace test_support;

namespace {

// ---- substitution and evaluation over distinct parts (symbolic/dag.hpp) -------

TEST(Dag, SubstituteAndEvaluateAgreeWithGiNaC) {
    GiNaC::symbol a("a"), b("b"), c("c"), l("l");
    std::vector<ex> cases = {l * sin(a) + 2 * l * sin(a + b) + l * cos(a + b + c), pow(a * b + c, 3) / (1 + pow(c, 2)),
                             exp(a * b) * log(2 + cos(c)) + sqrt(1 + a * a) + atan2(b, 2 + a), GiNaC::ex(7), l};
    GiNaC::exmap const swap{{a, b + 1}, {c, 2 * l}};
    GiNaC::exmap const at{{a, GiNaC::numeric(3, 10)}, {b, GiNaC::numeric(7, 10)}, {c, GiNaC::numeric(-11, 10)},
                          {l, GiNaC::numeric(13, 10)}};
    for (auto const& e : cases) {
        ex const mine = lagc::substitute(e, swap), theirs = e.subs(swap, GiNaC::subs_options::no_pattern);
        EXPECT_TRUE((mine - theirs).expand().is_zero()) << e << ": " << mine << " against " << theirs;
        auto const v = lagc::evaluate(e, at);
        ASSERT_TRUE(v.has_value()) << e;
        double const want = GiNaC::ex_to<GiNaC::numeric>(e.subs(at).evalf()).to_double();
        EXPECT_NEAR(v->to_double(), want, 1e-13 * (1 + std::abs(want))) << e;
    }
    // A symbol left without a value, or a pole: no number.
    EXPECT_FALSE(lagc::evaluate(a + b, {{a, 1}}).has_value());
    EXPECT_FALSE(lagc::evaluate(1 / (a - 1), {{a, 1}}).has_value());
    // Parts without a replaced symbol are kept, not rebuilt.
    ex const part = sin(b) * l;
    EXPECT_TRUE(GiNaC::are_ex_trivially_equal(lagc::substitute(part, swap), part));
}

// a_i = a_(i-1) + sin(a_(i-1)), 200 levels: a tree of 2^200 nodes, 400 parts. Each part is
// substituted and evaluated once (GiNaC's subs and evalf would walk every path), and the
// value is the recurrence's.
TEST(Dag, SharedPartsAreVisitedOnce) {
    GiNaC::symbol x("x"), y("y");
    ex a = x;
    double value = 0.3;
    for (int i = 0; i < 200; ++i) a = a + sin(a), value = value + std::sin(value);
    auto const direct = lagc::evaluate(a, {{x, GiNaC::numeric(3, 10)}});
    ASSERT_TRUE(direct.has_value());
    EXPECT_NEAR(direct->to_double(), value, 1e-12 * value);
    ex const b = lagc::substitute(a, {{x, 2 * y}});
    auto const through = lagc::evaluate(b, {{y, GiNaC::numeric(3, 20)}});
    ASSERT_TRUE(through.has_value());
    EXPECT_NEAR(through->to_double(), value, 1e-12 * value);
}

// ---- the chain rule and the code generator's rewrites ------------------------

TEST(ChainRule, DirectionalDerivativeIsTheSumOfPartials) {
    GiNaC::symbol a("a"), b("b"), c("c"), l("l"), r1("r1"), r2("r2"), r3("r3");
    std::vector<GiNaC::symbol> x = {a, b, c};
    std::vector<ex> r = {r1, r2, r3};
    std::vector<ex> cases = {l * sin(a) + 2 * l * sin(a + b) + l * cos(a + b + c),
                             pow(a * b + c, 3) / (1 + pow(c, 2)),
                             exp(a * b) * log(2 + cos(c)) + sqrt(1 + a * a) + atan2(b, 2 + a),
                             pow(2 + sin(a), b) + tan(l * c) * sinh(b) + pow(a, -2),
                             l * r1 * sin(a),  // rates are constants of the walk
                             GiNaC::ex(7)};
    for (auto const& e : cases) {
        ex expected = 0;
        for (std::size_t i = 0; i < 3; ++i) expected += e.diff(x[i]) * r[i];
        ex got = lagc::directional_derivative(e, x, r);
        // Compare at an arbitrary point (the forms differ, the values must not).
        GiNaC::exmap at{{a, GiNaC::numeric(3, 10)}, {b, GiNaC::numeric(7, 10)}, {c, GiNaC::numeric(-11, 10)},
                        {l, GiNaC::numeric(13, 10)}, {r1, GiNaC::numeric(1, 3)}, {r2, GiNaC::numeric(-2, 5)},
                        {r3, GiNaC::numeric(5, 7)}};
        double const want = GiNaC::ex_to<GiNaC::numeric>(expected.subs(at).evalf()).to_double();
        double const have = GiNaC::ex_to<GiNaC::numeric>(got.subs(at).evalf()).to_double();
        EXPECT_NEAR(have, want, 1e-12 * (1 + std::abs(want))) << e;
    }
    // The point of it: a chain's velocity keeps one term per link (n, not n²).
    ex chain = 0, angle = 0;
    for (auto const& q : x) angle += q, chain += l * sin(angle);
    ex v = lagc::directional_derivative(chain, x, r);
    ASSERT_TRUE(GiNaC::is_a<GiNaC::add>(v)) << v;
    EXPECT_EQ(v.nops(), 3u) << v;
}

// One deriver for many expressions (total_time_derivative's memo) gives each what a walk
// of its own gives: the same expression, whatever was derived before it.
TEST(ChainRule, SharedDeriverMatchesOneWalkEach) {
    GiNaC::symbol a("a"), b("b"), c("c"), l("l"), r1("r1"), r2("r2"), r3("r3");
    std::vector<GiNaC::symbol> x = {a, b, c};
    std::vector<ex> r = {r1, r2, r3};
    ex const s = sin(a + b), k = cos(b + c) * l;
    std::vector<ex> cases = {s * k, s + k, pow(s, 2) * k - 3 * s, k, s * k * sin(c), GiNaC::ex(7), l * r2};
    lagc::directional_deriver shared(x, r);
    EXPECT_EQ(shared.variables(), 3u);
    for (int pass = 0; pass < 2; ++pass)
        for (auto const& e : cases) {
            ex const alone = lagc::directional_derivative(e, x, r);
            ex const got = shared(e);
            EXPECT_TRUE(got.is_equal(alone)) << e << ": " << got << " against " << alone;
            EXPECT_TRUE((got - alone).expand().is_zero()) << e;
        }
    EXPECT_TRUE(shared(l * a).is_equal(l * r1));
}

// sum_terms reads a sum's terms as GiNaC stores them: rest · coeff for each pair, then the
// constant, must be the sum's op(i) in order, and add up to the sum.
TEST(Expressions, SumTermsAreTheSumsTerms) {
    GiNaC::symbol x("x"), y("y"), z("z");
    std::vector<ex> sums = {3 * x + y - GiNaC::numeric(2, 7) * x * y * z + 5, x + y, 2 * x * (y + 2 * z) - z / 3,
                            pow(x + y, 2) * 4 + sin(z) - 1, 6 * (x + 2 * y)};
    for (auto const& e : sums) {
        ASSERT_TRUE(GiNaC::is_exactly_a<GiNaC::add>(e)) << e;
        GiNaC::add const& a = GiNaC::ex_to<GiNaC::add>(e);
        auto const& pairs = lagc::sum_terms::pairs(a);
        ex const& constant = lagc::sum_terms::constant(a);
        ASSERT_EQ(pairs.size() + (constant.is_zero() ? 0u : 1u), e.nops()) << e;
        ex total = constant;
        for (std::size_t i = 0; i < pairs.size(); ++i) {
            EXPECT_TRUE(GiNaC::is_exactly_a<GiNaC::numeric>(pairs[i].coeff)) << e;
            EXPECT_TRUE((pairs[i].rest * pairs[i].coeff - e.op(i)).expand().is_zero()) << e << " term " << i;
            total += pairs[i].rest * pairs[i].coeff;
        }
        if (!constant.is_zero()) EXPECT_TRUE(constant.is_equal(e.op(e.nops() - 1))) << e;
        EXPECT_TRUE((total - e).expand().is_zero()) << e;
    }
    // unit_scale reads the coefficients from the pairs: the magnitude most terms have.
    EXPECT_EQ(lagc::unit_scale(3 * x + 3 * y + 6 * z), GiNaC::numeric(3));
    EXPECT_EQ(lagc::unit_scale(x + 3 * y + 6 * z), GiNaC::numeric(1));
    EXPECT_EQ(lagc::unit_scale(GiNaC::numeric(2, 5) * x - GiNaC::numeric(2, 5) * y + 4), GiNaC::numeric(2, 5));
}

// has_any walks each distinct part once; GiNaC rebuilds a sum's term c·x as a new object
// on every op(i), so the walk must keep what it visited alive, or a freed term's address,
// reused by a later one, would make that one look visited (t was missed in the crane
// model's constraint until it did).
TEST(Expressions, HasAnyFindsSymbolsBehindRebuiltTerms) {
    GiNaC::symbol t("t");
    std::vector<GiNaC::symbol> x;
    for (int i = 0; i < 12; ++i) x.emplace_back("x" + std::to_string(i));
    for (int where = 0; where < 40; ++where) {
        GiNaC::ex e = 0;
        for (int k = 0; k < 40; ++k) {
            GiNaC::ex inner = 0;
            for (int j = 0; j < 6; ++j) inner += (j + 2) * x[static_cast<std::size_t>((k + j) % 12)];
            if (k == where) inner += 3 * t;
            e += (k + 2) * x[static_cast<std::size_t>(k % 12)] * GiNaC::pow(inner, 2);
        }
        ASSERT_TRUE(e.has(t));
        EXPECT_TRUE(lagc::has_any(e, {t})) << "t in term " << where;
        EXPECT_TRUE(lagc::has_any(e, {x[3], t}));
        EXPECT_FALSE(lagc::has_any(e.subs(t == 0), {t}));
        EXPECT_FALSE(lagc::has_any(e, {}));
    }
}

} // namespace

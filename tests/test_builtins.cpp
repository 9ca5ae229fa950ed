// The table of built-in functions (src/builtins.cpp): every row's facts against an
// independent source — its value against GiNaC's numeric evaluation of its expression, its
// derivative on the expression graph and its f'(u) for d/dt against GiNaC's own diff.
#include "builtins.hpp"
#include "graph/expression_graph.hpp"
#include "symbolic/chain_rule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

namespace {

using GiNaC::ex;

double number_of(ex const& e) { return GiNaC::ex_to<GiNaC::numeric>(e.evalf()).to_double(); }

// Points inside every function's domain (asin, acos: |a| < 1; log, sqrt: a > 0), away
// from the kinks of abs, min and max.
struct point {
    double a, b;
};
constexpr point points[] = {{0.3, 0.7}, {0.55, -0.2}, {0.81, 1.9}};

// The expression a row makes, as the code generator meets it: pow, which only the code
// generator writes, is a^b.
ex expression_of(lagc::builtin const& f, GiNaC::symbol const& a, GiNaC::symbol const& b) {
    if (f.cxx == "pow") return GiNaC::pow(a, b);
    return f.make(a, b);
}

TEST(Builtins, ValueIsWhatGinacComputes) {
    GiNaC::symbol a("a"), b("b");
    int checked = 0;
    for (auto const& f : lagc::builtins()) {
        if (!f.scalar() || f.name.empty()) continue;
        for (auto const& at : points) {
            ex const e = expression_of(f, a, b).subs(GiNaC::exmap{{a, at.a}, {b, at.b}});
            EXPECT_NEAR(f.value(at.a, at.b), number_of(e), 1e-14) << f.name << " at " << at.a << ", " << at.b;
        }
        ++checked;
    }
    EXPECT_EQ(checked, 17); // every scalar function of the language
}

TEST(Builtins, GraphDerivativeIsGinacsDerivative) {
    GiNaC::symbol a("a"), b("b");
    std::map<std::string, lagc::symbol_spelling> const symbols = {{"a", {"q[0]", "q"}}, {"b", {"q[1]", "q"}}};
    int checked = 0;
    for (auto const& f : lagc::builtins()) {
        if (!f.scalar() || (f.name.empty() && f.cxx != "pow")) continue;
        ex const e = expression_of(f, a, b);
        lagc::expression_graph g(symbols, {});
        int const root = g.add(e);
        std::vector<int> const d = g.jacobian({root}, {g.variable_node("q[0]"), g.variable_node("q[1]")});
        for (auto const& at : points) {
            GiNaC::exmap const values{{a, at.a}, {b, at.b}};
            std::map<std::string, double> const spelled{{"q[0]", at.a}, {"q[1]", at.b}};
            double const da = number_of(e.diff(a).subs(values)), db = number_of(e.diff(b).subs(values));
            EXPECT_NEAR(g.evaluate(d[0], spelled), da, 1e-12 * (1 + std::abs(da))) << f.cxx << " ∂/∂a at " << at.a;
            EXPECT_NEAR(g.evaluate(d[1], spelled), db, 1e-12 * (1 + std::abs(db))) << f.cxx << " ∂/∂b at " << at.a;
        }
        ++checked;
    }
    EXPECT_EQ(checked, 18); // the language's scalar functions and pow
}

TEST(Builtins, TimeDerivativeUsesTheRowsOuterDerivative) {
    GiNaC::symbol x("x"), r("r");
    int outer = 0;
    for (auto const& f : lagc::builtins()) {
        if (!f.scalar() || f.name.empty() || f.arity != 1) continue;
        ex const e = f.make(3 * x + 1 / GiNaC::numeric(10), 0);
        ex const d = lagc::directional_derivative(e, {x}, {r});
        ex const want = e.diff(x) * r;
        GiNaC::exmap const at{{x, 0.2}, {r, -1.3}};
        EXPECT_NEAR(number_of(d.subs(at)), number_of(want.subs(at)), 1e-13) << f.name;
        if (f.outer) ++outer;
    }
    EXPECT_EQ(outer, 6); // sin, cos, exp, log, sinh, cosh
}

} // namespace

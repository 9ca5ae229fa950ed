// The table of built-in functions and the statement keywords (see builtins.hpp).
#include "builtins.hpp"

#include <cmath>
#include <iterator>

namespace lagc {

namespace {
using GiNaC::ex;
ex no_expression(ex const&, ex const&) { return 0; }
double no_value(double, double) { return 0; }

// sign and |x| of a real number, exactly; other numbers and expressions stay held.
ex sign_eval(ex const& x) {
    if (GiNaC::is_exactly_a<GiNaC::numeric>(x) && GiNaC::ex_to<GiNaC::numeric>(x).is_real())
        return GiNaC::ex_to<GiNaC::numeric>(x).csgn();
    return lagc_sign(x).hold();
}
ex sign_derivative(ex const&, unsigned) { return 0; }
ex abs_eval(ex const& x) {
    if (GiNaC::is_exactly_a<GiNaC::numeric>(x) && GiNaC::ex_to<GiNaC::numeric>(x).is_real())
        return GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(x));
    return lagc_abs(x).hold();
}
ex abs_derivative(ex const& x, unsigned) { return lagc_sign(x); }
double sign_value(double x, double) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }
} // namespace

REGISTER_FUNCTION(lagc_sign, eval_func(sign_eval).evalf_func(sign_eval).derivative_func(sign_derivative))
REGISTER_FUNCTION(lagc_abs, eval_func(abs_eval).evalf_func(abs_eval).derivative_func(abs_derivative))

namespace {
using nodes = derivative_nodes::operands;

// A <cmath> function whose name is the same in the language, in GiNaC and in C++.
constexpr builtin cmath(std::string_view name, int arity, ex (*make)(ex const&, ex const&), double (*value)(double, double),
                        int (*derivative)(derivative_nodes&, call_nodes const&), ex (*outer)(ex const&, ex const&) = nullptr) {
    return {name, arity, name, name, make, value, builtin::code::cmath, derivative, outer};
}
// A function on vectors or matrices: built by the checker (check_calls.cpp), never printed.
constexpr builtin shaped(std::string_view name, int arity) { return {name, arity, "", "", no_expression, no_value}; }

int one_minus_square(derivative_nodes& g, int a) { return g.add({{g.number(1), false}, {g.power(a, 2), true}}); }
int abs_graph_derivative(derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{g.call("sign", c.a), false}}); }

// One row per function: name, arity, GiNaC expression, value, derivative on the expression
// graph, and (for the ones met most) f'(u) for d/dt.
builtin const table[] = {
    cmath("sin", 1, [](ex const& a, ex const&) -> ex { return GiNaC::sin(a); }, [](double a, double) { return std::sin(a); },
          [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{g.call("cos", c.a), false}}); },
          [](ex const&, ex const& u) -> ex { return GiNaC::cos(u); }),
    cmath("cos", 1, [](ex const& a, ex const&) -> ex { return GiNaC::cos(a); }, [](double a, double) { return std::cos(a); },
          [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{g.call("sin", c.a), false}}, true); },
          [](ex const&, ex const& u) -> ex { return -GiNaC::sin(u); }),
    cmath("tan", 1, [](ex const& a, ex const&) -> ex { return GiNaC::tan(a); }, [](double a, double) { return std::tan(a); },
          [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{g.power(g.call("cos", c.a), 2), true}}); }),
    cmath("asin", 1, [](ex const& a, ex const&) -> ex { return GiNaC::asin(a); }, [](double a, double) { return std::asin(a); },
          [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{g.call("sqrt", one_minus_square(g, c.a)), true}}); }),
    cmath("acos", 1, [](ex const& a, ex const&) -> ex { return GiNaC::acos(a); }, [](double a, double) { return std::acos(a); },
          [](derivative_nodes& g, call_nodes const& c) {
              return g.times(c.da, {{g.call("sqrt", one_minus_square(g, c.a)), true}}, true);
          }),
    cmath("atan", 1, [](ex const& a, ex const&) -> ex { return GiNaC::atan(a); }, [](double a, double) { return std::atan(a); },
          [](derivative_nodes& g, call_nodes const& c) {
              return g.times(c.da, {{g.add({{g.number(1), false}, {g.power(c.a, 2), false}}), true}});
          }),
    // atan2(y, x)' = (x y' − y x') / (x² + y²)
    cmath("atan2", 2, [](ex const& a, ex const& b) -> ex { return GiNaC::atan2(a, b); },
          [](double a, double b) { return std::atan2(a, b); },
          [](derivative_nodes& g, call_nodes const& c) {
              int const top = g.sum({{g.product({{c.b, false}, {c.da, false}}, false), false},
                                     {g.product({{c.a, false}, {c.db, false}}, false), true}});
              if (top == derivative_nodes::zero) return top;
              return g.mul({{top, false}, {g.add({{g.power(c.b, 2), false}, {g.power(c.a, 2), false}}), true}}, false);
          }),
    cmath("sinh", 1, [](ex const& a, ex const&) -> ex { return GiNaC::sinh(a); }, [](double a, double) { return std::sinh(a); },
          [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{g.call("cosh", c.a), false}}); },
          [](ex const&, ex const& u) -> ex { return GiNaC::cosh(u); }),
    cmath("cosh", 1, [](ex const& a, ex const&) -> ex { return GiNaC::cosh(a); }, [](double a, double) { return std::cosh(a); },
          [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{g.call("sinh", c.a), false}}); },
          [](ex const&, ex const& u) -> ex { return GiNaC::sinh(u); }),
    cmath("tanh", 1, [](ex const& a, ex const&) -> ex { return GiNaC::tanh(a); }, [](double a, double) { return std::tanh(a); },
          [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{g.power(g.call("cosh", c.a), 2), true}}); }),
    cmath("exp", 1, [](ex const& a, ex const&) -> ex { return GiNaC::exp(a); }, [](double a, double) { return std::exp(a); },
          [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{c.self, false}}); },
          [](ex const& f, ex const&) -> ex { return f; }),
    cmath("log", 1, [](ex const& a, ex const&) -> ex { return GiNaC::log(a); }, [](double a, double) { return std::log(a); },
          [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{c.a, true}}); },
          [](ex const&, ex const& u) -> ex { return 1 / u; }),
    // GiNaC keeps sqrt(x) as x^(1/2); the code generator writes powers of 1/2 as sqrt.
    {"sqrt", 1, "", "sqrt", [](ex const& a, ex const&) -> ex { return GiNaC::sqrt(a); }, [](double a, double) { return std::sqrt(a); },
     builtin::code::cmath,
     [](derivative_nodes& g, call_nodes const& c) { return g.times(c.da, {{g.number(1, 2), false}, {c.self, true}}); }},
    // Written by the code generator only: x^y for an exponent that is not a half-integer;
    // (a^b)' = a^b (b' log a + b a'/a).
    {"", 2, "", "pow", no_expression, [](double a, double b) { return std::pow(a, b); }, builtin::code::cmath,
     [](derivative_nodes& g, call_nodes const& c) {
         int const inner = g.sum({{g.product({{c.db, false}, {g.call("log", c.a), false}}, false), false},
                                  {g.product({{c.b, false}, {c.da, false}, {c.a, true}}, false), false}});
         return g.product({{c.self, false}, {inner, false}}, false);
     }},
    // GiNaC's abs (derivatives of some expressions contain it); d|x| = sign(x) dx, 0 at 0 as
    // GiNaC's side says.
    {"", 1, "abs", "fabs", no_expression, [](double a, double) { return std::fabs(a); }, builtin::code::cmath, abs_graph_derivative},
    // |x|, sign(x) (0 at 0; the generated code's detail::sign; the jump at 0 is not a
    // derivative), and min, max as (a + b -+ |a - b|)/2: at a kink the derivative is the
    // mean of the two sides'.
    {"abs", 1, "lagc_abs", "fabs", [](ex const& a, ex const&) -> ex { return lagc_abs(a); },
     [](double a, double) { return std::fabs(a); }, builtin::code::cmath, abs_graph_derivative},
    {"sign", 1, "lagc_sign", "sign", [](ex const& a, ex const&) -> ex { return lagc_sign(a); }, sign_value, builtin::code::helper,
     [](derivative_nodes&, call_nodes const&) { return derivative_nodes::zero; }},
    {"min", 2, "", "fmin", [](ex const& a, ex const& b) -> ex { return (a + b - lagc_abs(a - b)) / 2; },
     [](double a, double b) { return std::fmin(a, b); }, builtin::code::rewritten},
    {"max", 2, "", "fmax", [](ex const& a, ex const& b) -> ex { return (a + b + lagc_abs(a - b)) / 2; },
     [](double a, double b) { return std::fmax(a, b); }, builtin::code::rewritten},
    shaped("der", 1),
    shaped("dot", 2),
    shaped("cross", 2),
    shaped("norm", 1),
    shaped("rot", 1),
    shaped("transpose", 1),
    shaped("rotx", 1),
    shaped("roty", 1),
    shaped("rotz", 1),
};
} // namespace

std::vector<builtin> const& builtins() {
    static std::vector<builtin> const rows(std::begin(table), std::end(table));
    return rows;
}

builtin const* builtin_named(std::string_view name) {
    if (name.empty()) return nullptr;
    for (auto const& b : builtins())
        if (b.name == name) return &b;
    return nullptr;
}

builtin const* builtin_for_ginac(std::string_view ginac_name) {
    for (auto const& b : builtins())
        if (!b.ginac.empty() && b.ginac == ginac_name) return &b;
    return nullptr;
}

builtin const* builtin_for_cxx(std::string_view cxx) {
    for (auto const& b : builtins())
        if (b.scalar() && b.how != builtin::code::rewritten && b.cxx == cxx) return &b;
    return nullptr;
}

std::vector<std::string_view> const& statement_keywords() {
    static std::vector<std::string_view> const words = {"model",      "parameter", "coordinate", "input",
                                                        "let",        "kinetic",   "potential",  "lagrangian",
                                                        "dissipation", "force",    "torque",     "constraint",
                                                        "baumgarte",  "output",    "on",         "at"};
    return words;
}

} // namespace lagc

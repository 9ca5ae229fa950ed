// The table of built-in functions and the statement keywords (see builtins.hpp).
#include "builtins.hpp"

#include <cmath>

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

std::vector<builtin> const& builtins() {
    static std::vector<builtin> const table = {
        {"sin", 1, "sin", "sin", [](ex const& a, ex const&) -> ex { return GiNaC::sin(a); }, [](double a, double) { return std::sin(a); }},
        {"cos", 1, "cos", "cos", [](ex const& a, ex const&) -> ex { return GiNaC::cos(a); }, [](double a, double) { return std::cos(a); }},
        {"tan", 1, "tan", "tan", [](ex const& a, ex const&) -> ex { return GiNaC::tan(a); }, [](double a, double) { return std::tan(a); }},
        {"asin", 1, "asin", "asin", [](ex const& a, ex const&) -> ex { return GiNaC::asin(a); }, [](double a, double) { return std::asin(a); }},
        {"acos", 1, "acos", "acos", [](ex const& a, ex const&) -> ex { return GiNaC::acos(a); }, [](double a, double) { return std::acos(a); }},
        {"atan", 1, "atan", "atan", [](ex const& a, ex const&) -> ex { return GiNaC::atan(a); }, [](double a, double) { return std::atan(a); }},
        {"atan2", 2, "atan2", "atan2", [](ex const& a, ex const& b) -> ex { return GiNaC::atan2(a, b); }, [](double a, double b) { return std::atan2(a, b); }},
        {"sinh", 1, "sinh", "sinh", [](ex const& a, ex const&) -> ex { return GiNaC::sinh(a); }, [](double a, double) { return std::sinh(a); }},
        {"cosh", 1, "cosh", "cosh", [](ex const& a, ex const&) -> ex { return GiNaC::cosh(a); }, [](double a, double) { return std::cosh(a); }},
        {"tanh", 1, "tanh", "tanh", [](ex const& a, ex const&) -> ex { return GiNaC::tanh(a); }, [](double a, double) { return std::tanh(a); }},
        {"exp", 1, "exp", "exp", [](ex const& a, ex const&) -> ex { return GiNaC::exp(a); }, [](double a, double) { return std::exp(a); }},
        {"log", 1, "log", "log", [](ex const& a, ex const&) -> ex { return GiNaC::log(a); }, [](double a, double) { return std::log(a); }},
        // GiNaC keeps sqrt(x) as x^(1/2); the code generator writes powers of 1/2 as sqrt.
        {"sqrt", 1, "", "sqrt", [](ex const& a, ex const&) -> ex { return GiNaC::sqrt(a); }, [](double a, double) { return std::sqrt(a); }},
        // Written by the code generator only: x^y for an exponent that is not a half-integer.
        {"", 2, "", "pow", no_expression, [](double a, double b) { return std::pow(a, b); }},
        // GiNaC's abs (derivatives of some expressions contain it).
        {"", 1, "abs", "fabs", no_expression, [](double a, double) { return std::fabs(a); }},
        // |x|, sign(x) (0 at 0; the generated code's detail::sign), and min, max as
        // (a + b -+ |a - b|)/2: at a kink the derivative is the mean of the two sides'.
        {"abs", 1, "lagc_abs", "fabs", [](ex const& a, ex const&) -> ex { return lagc_abs(a); }, [](double a, double) { return std::fabs(a); }},
        {"sign", 1, "lagc_sign", "sign", [](ex const& a, ex const&) -> ex { return lagc_sign(a); }, sign_value, builtin::code::helper},
        {"min", 2, "", "fmin", [](ex const& a, ex const& b) -> ex { return (a + b - lagc_abs(a - b)) / 2; }, [](double a, double b) { return std::fmin(a, b); }, builtin::code::rewritten},
        {"max", 2, "", "fmax", [](ex const& a, ex const& b) -> ex { return (a + b + lagc_abs(a - b)) / 2; }, [](double a, double b) { return std::fmax(a, b); }, builtin::code::rewritten},
        // On vectors and matrices; built by the checker (check_expressions.cpp).
        {"der", 1, "", "", no_expression, no_value},
        {"dot", 2, "", "", no_expression, no_value},
        {"cross", 2, "", "", no_expression, no_value},
        {"norm", 1, "", "", no_expression, no_value},
        {"rot", 1, "", "", no_expression, no_value},
        {"transpose", 1, "", "", no_expression, no_value},
        {"rotx", 1, "", "", no_expression, no_value},
        {"roty", 1, "", "", no_expression, no_value},
        {"rotz", 1, "", "", no_expression, no_value},
    };
    return table;
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

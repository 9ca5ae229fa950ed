// The built-in functions, once: their names in the language, in GiNaC and in C++, their
// arity, how the checker builds them and how the code generator evaluates them. The
// checker, the code generator and the emitter all read this table; a new function is a
// new row (see docs/architecture.md).
#pragma once

#include <ginac/ginac.h>

#include <string_view>
#include <vector>

namespace lagc {

struct builtin {
    std::string_view name;  // in a .lag file; "" for functions only the code generator writes
    int arity;
    // Scalar functions (the rest act on vectors and matrices and are built by the checker):
    std::string_view ginac; // the name GiNaC gives its function object; "" if none (sqrt is a power)
    std::string_view cxx;   // the <cmath> function the generated code calls
    GiNaC::ex (*make)(GiNaC::ex const& a, GiNaC::ex const& b); // the GiNaC expression
    double (*value)(double a, double b);                         // what `cxx` computes
    // How the generated code computes it: a <cmath> call, a helper lagc writes into the
    // detail namespace (sign), or not at all (min and max become expressions in abs).
    enum class code { cmath, helper, rewritten };
    code how = code::cmath;
    bool scalar() const { return !cxx.empty(); }
};

// GiNaC functions of lagc's own: |x| with d|x|/dx = sign(x), and sign(x) (0 at 0) with
// derivative 0. GiNaC's abs differentiates through conjugate(), which C++ has no use for.
DECLARE_FUNCTION_1P(lagc_abs)
DECLARE_FUNCTION_1P(lagc_sign)

// Every built-in, in a fixed order (the order of the `using std::…` block of --template code).
std::vector<builtin> const& builtins();

// The built-in called `name` in the language, or nullptr.
builtin const* builtin_named(std::string_view name);
// The scalar built-in whose GiNaC function is called `ginac_name`, or nullptr.
builtin const* builtin_for_ginac(std::string_view ginac_name);
// The scalar built-in whose C++ function is `cxx`, or nullptr.
builtin const* builtin_for_cxx(std::string_view cxx);

// The statement keywords, in the order error messages list them.
std::vector<std::string_view> const& statement_keywords();

} // namespace lagc

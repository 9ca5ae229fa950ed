// The built-in functions, once: their names in the language, in GiNaC and in C++, their
// arity, how the checker builds them, how the code generator evaluates them and how both
// differentiators take their derivatives. The checker, the derivation, the expression graph
// and the emitter all read this table; a new function is a new row (docs/architecture.md).
#pragma once

#include <ginac/ginac.h>

#include <string_view>
#include <utility>
#include <vector>

namespace lagc {

// What a derivative rule builds with: nodes of the expression graph of generated code
// (graph/differentiate.cpp implements it), as node ids, `zero` for a derivative that is 0.
// A list of (node, flag) is a sum's terms (flag: subtracted) or a product's factors (flag: in
// the denominator).
class derivative_nodes {
public:
    using operands = std::vector<std::pair<int, bool>>;
    static constexpr int zero = -1;
    virtual int number(long p, long q = 1) = 0;
    virtual int call(std::string_view cxx, int arg) = 0; // f(arg), f a <cmath> or helper name
    virtual int power(int base, long k) = 0;
    virtual int add(operands terms) = 0;                 // a sum of terms none of which is zero
    virtual int mul(operands factors, bool negative) = 0; // a product of factors none of which is zero
    virtual int sum(operands terms) = 0;                  // zero terms dropped; zero if none is left
    virtual int product(operands factors, bool negative) = 0; // zero if a factor is
    // f'(a) a', the usual last step: the factors of f'(a), then a'.
    int times(int da, operands factors, bool negative = false) {
        factors.push_back({da, false});
        return product(std::move(factors), negative);
    }

protected:
    ~derivative_nodes() = default;
};

// A call f(a) or f(a, b) as a derivative rule sees it: its node, its arguments and their
// derivatives (b and db are `zero` for a function of one argument).
struct call_nodes {
    int self, a, da, b, db;
};

// Everything lagc knows about one built-in function: one row of builtins().
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
    // d/dx f(a, b) on the expression graph (the linearization's Jacobians); nullptr where
    // the code generator never differentiates it.
    int (*derivative)(derivative_nodes& g, call_nodes const& c) = nullptr;
    // f'(u) for the derivation's d/dt of f(u) (symbolic/chain_rule.cpp), for the functions
    // met most; nullptr leaves it to GiNaC's own derivative, which finds it by throwing.
    GiNaC::ex (*outer)(GiNaC::ex const& f, GiNaC::ex const& u) = nullptr;
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

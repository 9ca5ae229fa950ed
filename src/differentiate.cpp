// Derivatives on the expression DAG, for the control API's Jacobians. Differentiating the
// GiNaC trees would redo every shared subexpression once per use (a 15-link chain: 18 s);
// here each node is differentiated once per variable, and a product of k factors of the
// variable becomes k terms that share prefix and suffix products (O(k) new nodes, not
// O(k²)), so the derivative DAG is a constant times the size of the original.
#include "codegen.hpp"

#include <stdexcept>

namespace lagc {

namespace {
constexpr int zero_derivative = -1;
constexpr int not_yet = -2;
} // namespace

int expression_graph::sum_of(std::vector<std::pair<int, bool>> terms) {
    std::vector<std::pair<int, bool>> kept;
    for (auto const& t : terms)
        if (t.first != zero_derivative) kept.push_back(t);
    if (kept.empty()) return zero_derivative;
    return make_add(std::move(kept));
}

int expression_graph::product_of(std::vector<std::pair<int, bool>> factors, bool negative) {
    for (auto const& f : factors)
        if (f.first == zero_derivative) return zero_derivative;
    return make_mul(std::move(factors), negative);
}

int expression_graph::derivative(int id, int variable, std::vector<int>& memo) {
    if (memo[static_cast<std::size_t>(id)] != not_yet) return memo[static_cast<std::size_t>(id)];
    node const n = node_at(id);
    int result = zero_derivative;
    switch (n.kind) {
    case op::number: break;
    case op::variable:
        if (id == variable) result = number(GiNaC::numeric(1));
        else if (auto it = tangents_.find({id, variable}); it != tangents_.end()) result = it->second;
        break;
    case op::neg: {
        int d = derivative(n.args[0], variable, memo);
        result = d == zero_derivative ? d : negate(d);
        break;
    }
    case op::add: {
        std::vector<std::pair<int, bool>> terms;
        for (std::size_t i = 0; i < n.args.size(); ++i) terms.push_back({derivative(n.args[i], variable, memo), n.flags[i] != 0});
        result = sum_of(std::move(terms));
        break;
    }
    case op::mul: result = product_derivative(n, variable, memo); break;
    case op::pow: {
        // (a^k)' = k a^(k-1) a'
        int d = derivative(n.args[0], variable, memo);
        result = product_of({{number(GiNaC::numeric(n.exponent)), false}, {make_pow(n.args[0], n.exponent - 1), false}, {d, false}}, false);
        break;
    }
    case op::call: result = call_derivative(id, n, variable, memo); break;
    }
    memo[static_cast<std::size_t>(id)] = result;
    return result;
}

// (Π g_i)' = Σ_i g_0 … g_{i-1} g_i' g_{i+1} …, with g_i = f_i or 1/f_i ((1/f)' = −f'/f²).
// Up to three varying factors each term is written out; beyond, the prefix and suffix
// products are shared between the terms.
int expression_graph::product_derivative(node const& n, int variable, std::vector<int>& memo) {
    std::size_t const k = n.args.size();
    std::vector<int> d(k);
    std::vector<std::size_t> varying;
    for (std::size_t i = 0; i < k; ++i) {
        d[i] = derivative(n.args[i], variable, memo);
        if (d[i] != zero_derivative) varying.push_back(i);
    }
    if (varying.empty()) return zero_derivative;
    // g_i' as (factors, negative).
    auto factor_derivative = [&](std::size_t i, std::vector<std::pair<int, bool>>& factors) {
        factors.push_back({d[i], false});
        if (n.flags[i]) {
            factors.push_back({n.args[i], true});
            factors.push_back({n.args[i], true});
        }
        return n.flags[i] != 0;
    };
    std::vector<std::pair<int, bool>> terms;
    if (varying.size() <= 3) {
        for (std::size_t i : varying) {
            std::vector<std::pair<int, bool>> factors;
            for (std::size_t j = 0; j < k; ++j)
                if (j != i) factors.push_back({n.args[j], n.flags[j] != 0});
            bool const negative = factor_derivative(i, factors);
            terms.push_back({make_mul(std::move(factors), false), negative});
        }
        return sum_of(std::move(terms));
    }
    int const one = number(GiNaC::numeric(1));
    std::vector<int> prefix(k + 1, one), suffix(k + 1, one);
    for (std::size_t i = 0; i < k; ++i)
        prefix[i + 1] = make_mul({{prefix[i], false}, {n.args[i], n.flags[i] != 0}}, false);
    for (std::size_t i = k; i-- > 0;)
        suffix[i] = make_mul({{suffix[i + 1], false}, {n.args[i], n.flags[i] != 0}}, false);
    for (std::size_t i : varying) {
        std::vector<std::pair<int, bool>> factors = {{prefix[i], false}, {suffix[i + 1], false}};
        bool const negative = factor_derivative(i, factors);
        terms.push_back({make_mul(std::move(factors), false), negative});
    }
    return sum_of(std::move(terms));
}

// f(a)' = f'(a) a' (and atan2, pow: both arguments).
int expression_graph::call_derivative(int id, node const& n, int variable, std::vector<int>& memo) {
    std::string const f = call_name(n.text);
    int const a = n.args[0];
    int const da = derivative(a, variable, memo);
    auto num = [&](long p, long q = 1) { return number(GiNaC::numeric(p, q)); };
    auto call = [&](char const* name, int arg) { return make_call(name, {arg}); };
    auto times_da = [&](std::vector<std::pair<int, bool>> factors, bool negative = false) {
        factors.push_back({da, false});
        return product_of(std::move(factors), negative);
    };
    if (f == "atan2") { // atan2(y, x)' = (x y' − y x') / (x² + y²)
        int const x = n.args[1], dx = derivative(x, variable, memo);
        int const top = sum_of({{product_of({{x, false}, {da, false}}, false), false},
                                {product_of({{a, false}, {dx, false}}, false), true}});
        if (top == zero_derivative) return zero_derivative;
        return make_mul({{top, false}, {make_add({{make_pow(x, 2), false}, {make_pow(a, 2), false}}), true}}, false);
    }
    if (f == "pow") { // (a^b)' = a^b (b' log a + b a'/a)
        int const b = n.args[1], db = derivative(b, variable, memo);
        int const inner = sum_of({{product_of({{db, false}, {call("log", a), false}}, false), false},
                                  {product_of({{b, false}, {da, false}, {a, true}}, false), false}});
        return product_of({{id, false}, {inner, false}}, false);
    }
    if (f == "sign") return zero_derivative; // the jump at 0 is not a derivative
    if (da == zero_derivative) return zero_derivative;
    int const one_minus_square = make_add({{num(1), false}, {make_pow(a, 2), true}});
    if (f == "sin") return times_da({{call("cos", a), false}});
    if (f == "cos") return times_da({{call("sin", a), false}}, true);
    if (f == "tan") return times_da({{make_pow(call("cos", a), 2), true}});
    if (f == "exp") return times_da({{id, false}});
    if (f == "log") return times_da({{a, true}});
    if (f == "sqrt") return times_da({{num(1, 2), false}, {id, true}});
    if (f == "asin") return times_da({{call("sqrt", one_minus_square), true}});
    if (f == "acos") return times_da({{call("sqrt", one_minus_square), true}}, true);
    if (f == "atan") return times_da({{make_add({{num(1), false}, {make_pow(a, 2), false}}), true}});
    if (f == "sinh") return times_da({{call("cosh", a), false}});
    if (f == "cosh") return times_da({{call("sinh", a), false}});
    if (f == "tanh") return times_da({{make_pow(call("cosh", a), 2), true}});
    if (f == "fabs") return times_da({{call("sign", a), false}}); // 0 at 0, as GiNaC's side says
    throw std::runtime_error("no derivative for the function " + f);
}

std::vector<int> expression_graph::jacobian(std::vector<int> const& roots, std::vector<int> const& variables) {
    std::vector<int> out(roots.size() * variables.size());
    int const zero = number(GiNaC::numeric(0));
    for (std::size_t c = 0; c < variables.size(); ++c) {
        std::vector<int> memo(nodes_.size(), not_yet);
        for (std::size_t r = 0; r < roots.size(); ++r) {
            memo.resize(nodes_.size(), not_yet); // new nodes appear as derivatives are built
            int d = derivative(roots[r], variables[c], memo);
            out[r * variables.size() + c] = d == zero_derivative ? zero : d;
        }
    }
    return out;
}

int expression_graph::variable_node(std::string const& spelling) { return variable(spelling); }

int expression_graph::plus(int a, int b) {
    int const zero = number(GiNaC::numeric(0));
    if (a == zero) return b;
    if (b == zero) return a;
    return make_add({{a, false}, {b, false}});
}

} // namespace lagc

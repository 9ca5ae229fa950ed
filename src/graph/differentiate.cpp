// Derivatives on the expression DAG, for the control API's Jacobians. Differentiating the
// GiNaC trees would redo every shared subexpression once per use (a 15-link chain: 18 s);
// here each node is differentiated once per variable, and a product of k factors of the
// variable becomes k terms that share prefix and suffix products (O(k) new nodes, not
// O(k²)), so the derivative DAG is a constant times the size of the original.
#include "graph/expression_graph.hpp"

#include "builtins.hpp"

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

// The expression graph as a derivative rule of builtins.cpp sees it.
class expression_graph::derivative_builder final : public derivative_nodes {
public:
    explicit derivative_builder(expression_graph& g) : g_(g) {}
    int number(long p, long q) override { return g_.number(GiNaC::numeric(p, q)); }
    int call(std::string_view cxx, int arg) override { return g_.make_call(std::string(cxx), {arg}); }
    int power(int base, long k) override { return g_.make_pow(base, k); }
    int add(operands terms) override { return g_.make_add(std::move(terms)); }
    int mul(operands factors, bool negative) override { return g_.make_mul(std::move(factors), negative); }
    int sum(operands terms) override { return g_.sum_of(std::move(terms)); }
    int product(operands factors, bool negative) override { return g_.product_of(std::move(factors), negative); }

private:
    expression_graph& g_;
};
static_assert(derivative_nodes::zero == zero_derivative);

// f(a)' = f'(a) a', f(a, b)' through both arguments: the rule is the function's row in
// builtins.cpp. A function of one argument whose argument does not vary has derivative 0.
int expression_graph::call_derivative(int id, node const& n, int variable, std::vector<int>& memo) {
    std::string const f = call_name(n.text);
    builtin const* fn = builtin_for_cxx(f);
    if (!fn || !fn->derivative) throw std::runtime_error("no derivative for the function " + f);
    call_nodes c{id, n.args[0], derivative(n.args[0], variable, memo), zero_derivative, zero_derivative};
    if (n.args.size() > 1) {
        c.b = n.args[1];
        c.db = derivative(c.b, variable, memo);
    } else if (c.da == zero_derivative) {
        return zero_derivative;
    }
    derivative_builder g(*this);
    return fn->derivative(g, c);
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

// Directional derivatives that keep the structure of the expression.
#include "symbolic/chain_rule.hpp"

#include "builtins.hpp"
#include "symbolic/simplify.hpp"

#include <map>
#include <optional>

namespace lagc {

using namespace GiNaC;

namespace {

// f'(u) of the one-argument functions met most, from their rows in builtins.cpp (nullopt
// for others): GiNaC's own function derivative first tries an explicit derivative and
// catches the exception it throws when there is none, which made exception unwinding a
// tenth of a 3-D arm's derivation.
std::optional<ex> outer_derivative(ex const& e) {
    if (e.nops() != 1) return std::nullopt;
    builtin const* b = builtin_for_ginac(ex_to<function>(e).get_name());
    if (!b || !b->outer) return std::nullopt;
    return b->outer(e, e.op(0));
}

struct walker {
    std::map<ex, ex, ex_is_less> rate; // x_i → r_i
    std::map<ex, ex, ex_is_less> memo;

    ex d(ex const& e) {
        if (is_exactly_a<numeric>(e) || is_exactly_a<constant>(e)) return 0;
        if (is_exactly_a<symbol>(e)) {
            auto it = rate.find(e);
            return it == rate.end() ? ex(0) : it->second;
        }
        if (auto it = memo.find(e); it != memo.end()) return it->second;
        ex result = 0;
        // Sums and products built once from all their operands: adding or multiplying one
        // at a time rebuilds the growing sum at each step (a product of 1,000 sines: cubic).
        if (is_exactly_a<add>(e)) {
            exvector terms;
            for (auto const& p : sum_terms::pairs(ex_to<expairseq>(e))) {
                ex const dr = d(p.rest);
                if (!dr.is_zero()) terms.push_back(dr * p.coeff);
            }
            result = add(terms);
        } else if (is_exactly_a<mul>(e)) {
            exvector factors;
            for (std::size_t i = 0; i < e.nops(); ++i) factors.push_back(e.op(i));
            exvector terms;
            for (std::size_t i = 0; i < factors.size(); ++i) {
                ex di = d(factors[i]);
                if (di.is_zero()) continue;
                exvector product = factors;
                product[i] = di;
                terms.push_back(mul(product));
            }
            result = add(terms);
        } else if (is_exactly_a<power>(e)) {
            ex b = e.op(0), k = e.op(1);
            ex dk = d(k);
            if (dk.is_zero()) result = k * pow(b, k - 1) * d(b);
            else result = e * (dk * log(b) + k * d(b) / b);
        } else if (auto outer = is_a<function>(e) ? outer_derivative(e) : std::nullopt) {
            ex const di = d(e.op(0));
            if (!di.is_zero()) result = *outer * di;
        } else if (is_a<function>(e)) {
            // Σ_i f_i'(args)·d(arg_i), f_i' from GiNaC through a stand-in symbol.
            for (std::size_t i = 0; i < e.nops(); ++i) {
                ex di = d(e.op(i));
                if (di.is_zero()) continue;
                symbol s;
                ex f = e;
                f.let_op(i) = s;
                result += f.diff(s).subs(s == e.op(i), subs_options::no_pattern) * di;
            }
        } else {
            // Anything else: the plain sum of partial derivatives.
            for (auto const& [x, r] : rate) result += e.diff(ex_to<symbol>(x)) * r;
        }
        memo.emplace(e, result);
        return result;
    }
};

} // namespace

ex directional_derivative(ex const& e, std::vector<symbol> const& x, std::vector<ex> const& r) {
    return directional_deriver(x, r)(e);
}

ex partial(ex const& e, symbol const& x) {
    if (!has_any(e, {x})) return 0;
    return directional_derivative(e, {x}, {ex(1)});
}

struct directional_deriver::state {
    walker w;
    std::size_t variables = 0;
};

directional_deriver::directional_deriver(std::vector<symbol> const& x, std::vector<ex> const& r)
    : state_(std::make_unique<state>()) {
    state_->variables = x.size();
    for (std::size_t i = 0; i < x.size(); ++i)
        if (!r[i].is_zero()) state_->w.rate.emplace(x[i], r[i]);
}

directional_deriver::~directional_deriver() = default;

std::size_t directional_deriver::variables() const { return state_->variables; }

ex directional_deriver::operator()(ex const& e) {
    if (state_->w.rate.empty()) return 0;
    return state_->w.d(e);
}

} // namespace lagc

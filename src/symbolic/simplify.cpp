// Size-guarded simplification.
#include "symbolic/simplify.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace lagc {

using namespace GiNaC;

namespace {

// The tree's size, each shared part measured once (by address, every visited part kept
// alive so that no address is reused) and the count saturating far above any real use:
// the same sizes as counting every path, without walking them (2^n paths through a chain
// of n shared levels).
class tree_counter {
public:
    std::size_t operator()(ex const& e) {
        if (is_exactly_a<numeric>(e)) return 0;
        auto const* key = &ex_to<basic>(e);
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        alive_.push_back(e);
        std::size_t n = 1;
        if (is_exactly_a<add>(e)) {
            // Each term as op(i) would build it: rest, or the product rest · coeff (one node
            // more, with rest's factors or rest itself under it; the number counts 0).
            for (auto const& p : sum_terms::pairs(ex_to<add>(e))) {
                if (ex_to<numeric>(p.coeff) == 1) {
                    n = plus(n, (*this)(p.rest));
                } else if (is_exactly_a<mul>(p.rest)) {
                    n = plus(n, 1);
                    for (std::size_t i = 0; i < p.rest.nops(); ++i) n = plus(n, (*this)(p.rest.op(i)));
                } else {
                    n = plus(n, plus(1, (*this)(p.rest)));
                }
            }
        } else {
            for (std::size_t i = 0; i < e.nops(); ++i) n = plus(n, (*this)(e.op(i)));
        }
        memo_.emplace(key, n);
        return n;
    }

private:
    static constexpr std::size_t most = std::size_t(1) << 60;
    static std::size_t plus(std::size_t a, std::size_t b) { return std::min(most, a + b); }
    std::unordered_map<basic const*, std::size_t> memo_;
    std::vector<ex> alive_;
};

} // namespace

// Numbers count nothing: where GiNaC puts a factor -1 depends on its term order, which
// changes from process to process, and must not change which form is chosen.
std::size_t tree_size(ex const& e) { return tree_counter()(e); }

bool has_any(ex const& e, std::vector<symbol> const& symbols) {
    if (symbols.empty()) return false;
    // Visited parts by address, each held in `visited` so that its address is not reused:
    // a product's op(i) can be a new object (x² rebuilt from its pair), freed when dropped.
    // A sum's terms are read as stored (sum_terms): the rest of each, never a new object.
    std::unordered_set<basic const*> seen;
    std::vector<ex> visited, pending{e};
    while (!pending.empty()) {
        ex const x = pending.back();
        pending.pop_back();
        if (!seen.insert(&ex_to<basic>(x)).second) continue;
        visited.push_back(x);
        if (is_exactly_a<symbol>(x)) {
            for (auto const& s : symbols)
                if (x.is_equal(s)) return true;
            continue;
        }
        if (is_exactly_a<add>(x)) {
            // The rest of each term (its coefficient and the constant are numbers).
            for (auto const& p : sum_terms::pairs(ex_to<add>(x))) pending.push_back(p.rest);
            continue;
        }
        for (std::size_t i = 0; i < x.nops(); ++i) pending.push_back(x.op(i));
    }
    return false;
}

namespace {

// An upper bound on the number of terms expand() would produce, or some number above
// limit once it is known to exceed it: every bound is at least 1, so a sum or a product
// stops growing past the limit, and the walk stops there (it would otherwise visit every
// path through a large expression's shared parts).
double expansion_bound(ex const& e, double limit) {
    if (is_exactly_a<add>(e)) {
        double s = 0;
        for (std::size_t i = 0; i < e.nops() && s <= limit; ++i) s += expansion_bound(e.op(i), limit);
        return s;
    }
    if (is_exactly_a<mul>(e)) {
        double p = 1;
        for (std::size_t i = 0; i < e.nops() && p <= limit; ++i) p *= expansion_bound(e.op(i), limit);
        return p;
    }
    if (is_exactly_a<power>(e) && is_exactly_a<numeric>(e.op(1)) && ex_to<numeric>(e.op(1)).is_pos_integer()) {
        double n = ex_to<numeric>(e.op(1)).to_double();
        return n > 64 ? 1e300 : std::pow(expansion_bound(e.op(0), limit), n);
    }
    return 1;
}

} // namespace

ex trig_reduce(ex const& e, double max_terms) {
    if (expansion_bound(e, max_terms) > max_terms || tree_size(e) > max_expanded_tree) return e;
    ex const x = e.expand();
    if (!x.has(pow(sin(wild(0)), 2)) || !x.has(pow(cos(wild(0)), 2))) return e;
    ex best = e;
    std::size_t best_size = tree_size(e);
    for (ex const& c : {x.subs(pow(sin(wild(0)), 2) == 1 - pow(cos(wild(0)), 2), subs_options::algebraic).expand(),
                        x.subs(pow(cos(wild(0)), 2) == 1 - pow(sin(wild(0)), 2), subs_options::algebraic).expand()}) {
        std::size_t const s = tree_size(c);
        if (s < best_size) best = c, best_size = s;
    }
    return best;
}

ex simplify(ex const& e, double max_terms) {
    if (expansion_bound(e, max_terms) > max_terms || tree_size(e) > max_expanded_tree) return e;
    ex best = e;
    std::size_t best_size = tree_size(e);
    auto consider = [&](ex const& c) {
        std::size_t s = tree_size(c);
        if (s < best_size) best = c, best_size = s;
    };
    ex x = e.expand();
    consider(x);
    // The identity can only help where both squares occur (wildcard matching is slow).
    if (!x.has(pow(sin(wild(0)), 2)) || !x.has(pow(cos(wild(0)), 2))) return best;
    ex sin_to_cos = x.subs(pow(sin(wild(0)), 2) == 1 - pow(cos(wild(0)), 2), subs_options::algebraic).expand();
    consider(sin_to_cos);
    ex cos_to_sin = x.subs(pow(cos(wild(0)), 2) == 1 - pow(sin(wild(0)), 2), subs_options::algebraic).expand();
    consider(cos_to_sin);
    return best;
}

namespace {

// Each term's number of a sum: the coefficient of its pair (1 for a term without one) times
// the scales its factors will bring (nested), and the constant term itself, as magnitudes;
// nothing where one is not a non-zero rational (or b is not a sum).
std::optional<std::vector<numeric>> term_magnitudes(ex const& b, std::function<numeric(ex const&)> const& nested) {
    if (!is_exactly_a<add>(b)) return std::nullopt;
    std::vector<numeric> out;
    auto take = [&](numeric const& k) {
        if (!k.is_rational() || k.is_zero()) return false;
        out.push_back(abs(k));
        return true;
    };
    add const& sum = ex_to<add>(b);
    for (auto const& pair : sum_terms::pairs(sum))
        if (!take(nested ? times(ex_to<numeric>(pair.coeff), nested(pair.rest)) : ex_to<numeric>(pair.coeff))) return std::nullopt;
    if (ex const& c = sum_terms::constant(sum); !c.is_zero() && !take(ex_to<numeric>(c))) return std::nullopt;
    return out;
}

} // namespace

numeric unit_scale(ex const& b, std::function<numeric(ex const&)> const& nested) {
    auto const magnitudes = term_magnitudes(b, nested);
    if (!magnitudes) return 1;
    std::map<numeric, std::size_t> count;
    for (numeric const& k : *magnitudes) ++count[k];
    numeric best = 1;
    std::size_t most = count.count(1) ? count[1] : 0; // 1 unless another magnitude is more common
    for (auto const& [k, c] : count) // ascending: a tie between others goes to the largest
        if (k != 1 && (c > most || (c == most && best != 1))) best = k, most = c;
    return best;
}

numeric decimal_scale(ex const& b, std::function<numeric(ex const&)> const& nested) {
    auto const magnitudes = term_magnitudes(b, nested);
    if (!magnitudes || magnitudes->empty()) return 1;
    numeric const largest = *std::max_element(magnitudes->begin(), magnitudes->end());
    numeric const bound(1000000);
    if (largest <= bound && largest * bound >= 1) return 1;
    // 10^e ≤ largest < 10^(e+1), counted exactly (a double's log10 can be off by one at a
    // power of ten).
    double const magnitude = largest.to_double();
    if (!std::isfinite(magnitude) || magnitude == 0) return 1;
    numeric const ten(10);
    numeric k = ex_to<numeric>(pow(ten, static_cast<long>(std::floor(std::log10(magnitude)))));
    if (k > largest) k /= ten;
    else if (k * ten <= largest) k *= ten;
    return k;
}

} // namespace lagc

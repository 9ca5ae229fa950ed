// Substitution and numeric evaluation part by part (dag.hpp).
#include "symbolic/dag.hpp"

#include "symbolic/simplify.hpp"

#include <algorithm>

#include <unordered_map>

namespace lagc {

using namespace GiNaC;

namespace {

// Parts are remembered by address: every part visited is held by e (a sum's and a
// product's stored pairs, a power's or a function's operands), so no address is reused
// while the walk lasts.
class substituter {
public:
    explicit substituter(exmap const& values) : values_(values) {}

    ex operator()(ex const& e) {
        if (is_exactly_a<numeric>(e) || is_exactly_a<constant>(e)) return e;
        if (is_exactly_a<symbol>(e)) {
            auto it = values_.find(e);
            return it == values_.end() ? e : it->second;
        }
        basic const* const key = &ex_to<basic>(e);
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        ex out = part(e);
        memo_.emplace(key, out);
        return out;
    }

private:
    exmap const& values_;
    std::unordered_map<basic const*, ex> memo_;

    ex part(ex const& e) {
        bool changed = false;
        auto sub = [&](ex const& x) {
            ex y = (*this)(x);
            changed = changed || !are_ex_trivially_equal(x, y);
            return y;
        };
        exvector ops;
        if (is_exactly_a<add>(e) || is_exactly_a<mul>(e)) {
            auto const& s = ex_to<expairseq>(e);
            bool const sum = is_exactly_a<add>(e);
            for (auto const& p : sum_terms::pairs(s)) {
                ex const r = sub(p.rest);
                ops.push_back(sum ? r * p.coeff : pow(r, p.coeff));
            }
            if (!changed) return e;
            ops.push_back(sum_terms::constant(s));
            return sum ? ex(add(ops)) : ex(mul(ops));
        }
        if (is_exactly_a<power>(e)) {
            ex const b = sub(e.op(0)), k = sub(e.op(1));
            return changed ? pow(b, k) : e;
        }
        if (is_exactly_a<function>(e)) {
            for (std::size_t i = 0; i < e.nops(); ++i) ops.push_back(sub(e.op(i)));
            return changed ? ex(function(ex_to<function>(e).get_serial(), ops)) : e;
        }
        return e.subs(values_, subs_options::no_pattern);
    }
};

class evaluator {
public:
    explicit evaluator(exmap const& values) : values_(values) {}

    // Throws where a part is not a number.
    numeric operator()(ex const& e) {
        if (is_exactly_a<numeric>(e)) return number(e.evalf());
        if (is_exactly_a<symbol>(e)) {
            auto it = values_.find(e);
            if (it == values_.end()) throw std::invalid_argument("a symbol without a value");
            return number(it->second.evalf());
        }
        basic const* const key = &ex_to<basic>(e);
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        numeric const out = part(e);
        memo_.emplace(key, out);
        return out;
    }

private:
    exmap const& values_;
    std::unordered_map<basic const*, numeric> memo_;

    static numeric number(ex const& e) {
        if (!is_exactly_a<numeric>(e)) throw std::invalid_argument("not a number");
        return ex_to<numeric>(e);
    }

    numeric part(ex const& e) {
        if (is_exactly_a<add>(e) || is_exactly_a<mul>(e)) {
            auto const& s = ex_to<expairseq>(e);
            bool const sum = is_exactly_a<add>(e);
            numeric v = number(sum_terms::constant(s).evalf());
            for (auto const& p : sum_terms::pairs(s)) {
                numeric const r = (*this)(p.rest), c = ex_to<numeric>(p.coeff);
                v = sum ? v + r * c : v * (c.is_equal(1) ? r : r.power(c));
            }
            return v;
        }
        if (is_exactly_a<power>(e)) return (*this)(e.op(0)).power((*this)(e.op(1)));
        if (is_exactly_a<function>(e)) {
            exvector args;
            for (std::size_t i = 0; i < e.nops(); ++i) args.push_back((*this)(e.op(i)));
            return number(ex(function(ex_to<function>(e).get_serial(), args)).evalf());
        }
        return number(e.evalf());
    }
};

} // namespace

ex substitute(ex const& e, exmap const& values) {
    if (values.empty()) return e;
    return substituter(values)(e);
}

exvector substitute(exvector const& e, exmap const& values) {
    substituter s(values);
    exvector out;
    for (ex const& x : e) out.push_back(values.empty() ? x : s(x));
    return out;
}

numeric test_value(std::size_t k, int point) {
    auto const p = static_cast<std::size_t>(point);
    return numeric(static_cast<long>(37 + 11 * ((k + 5 * p) % 13)), static_cast<long>(61 + 7 * ((k + p) % 5)));
}

bool numerically_zero(ex const& e) {
    if (e.is_zero()) return true;
    std::vector<ex> symbols, pending{e}, alive;
    std::unordered_map<basic const*, bool> seen;
    while (!pending.empty()) {
        ex const x = pending.back();
        pending.pop_back();
        if (!seen.emplace(&ex_to<basic>(x), true).second) continue;
        alive.push_back(x);
        if (is_exactly_a<symbol>(x)) symbols.push_back(x);
        for (std::size_t i = 0; i < x.nops(); ++i) pending.push_back(x.op(i));
    }
    std::sort(symbols.begin(), symbols.end(), ex_is_less());
    digits_scope const digits(40);
    for (int point = 0; point < 2; ++point) {
        exmap values;
        for (std::size_t k = 0; k < symbols.size(); ++k)
            values[symbols[k]] = test_value(k, point);
        auto const v = evaluate(e, values);
        if (!v || abs(*v) > numeric(1, 100000000) / numeric(1000000000000LL)) return false;
    }
    return true;
}

std::optional<numeric> evaluate(ex const& e, exmap const& values) {
    try {
        return evaluator(values)(e);
    } catch (std::exception const&) {
        return std::nullopt;
    }
}

} // namespace lagc

// GiNaC expressions as LaTeX for reading (equations_latex.hpp).
#include "emit/equations_latex.hpp"

#include "derive/derive.hpp"
#include "symbolic/simplify.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <tuple>

namespace lagc {

using namespace GiNaC;

namespace {

bool is_greek(std::string const& s) {
    static constexpr std::array<char const*, 35> letters = {
        "alpha", "beta",  "gamma",   "delta", "epsilon", "zeta",  "eta",   "theta", "iota",  "kappa",   "lambda", "mu",
        "nu",    "xi",    "pi",      "rho",   "sigma",   "tau",   "upsilon", "phi", "chi",   "psi",     "omega",  "Gamma",
        "Delta", "Theta", "Lambda",  "Xi",    "Pi",      "Sigma", "Upsilon", "Phi", "Psi",   "Omega",   "varphi"};
    return std::find_if(letters.begin(), letters.end(), [&](char const* l) { return s == l; }) != letters.end();
}

// One part of a name (no underscore, no trailing digits): a letter, a Greek letter, or a word.
std::string tex_word(std::string const& s, bool upright) {
    if (s.size() == 1) return s;
    if (is_greek(s)) return "\\" + s;
    return (upright ? "\\mathrm{" : "\\mathit{") + s + "}";
}

std::uint64_t fnv(std::string const& s, std::uint64_t h = 1469598103934665603ull) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) { return fnv(std::string(reinterpret_cast<char const*>(&v), 8), h); }

std::string placeholder(std::uint64_t h) {
    char buffer[20];
    std::snprintf(buffer, sizeof buffer, "\x01%016llx\x02", static_cast<unsigned long long>(h));
    return buffer;
}

std::string integer_text(numeric const& n) {
    std::ostringstream o;
    o << n;
    return o.str();
}

std::string integer_text_of(ex const& e) {
    std::ostringstream o;
    o << e;
    return "\\mathrm{" + o.str() + "}";
}

bool only_parameters(ex const& e, exset const& p) {
    if (is_exactly_a<symbol>(e)) return p.count(e) != 0;
    if (is_exactly_a<numeric>(e) || is_exactly_a<constant>(e)) return true;
    for (std::size_t i = 0; i < e.nops(); ++i)
        if (!only_parameters(e.op(i), p)) return false;
    return true;
}

bool is_call(ex const& e, char const* name) {
    return is_a<GiNaC::function>(e) && ex_to<GiNaC::function>(e).get_name() == name;
}

exvector factors_of(ex const& e) {
    exvector out;
    if (is_exactly_a<mul>(e))
        for (std::size_t i = 0; i < e.nops(); ++i) out.push_back(e.op(i));
    else
        out.push_back(e);
    return out;
}

struct group {
    ex coefficient, state;
};

// One step of cos a cos b ± sin a sin b → cos(a ∓ b) or sin a cos b ± cos a sin b → sin(a ± b)
// among the groups; false when none applies.
bool combine_once(std::vector<group>& groups) {
    for (std::size_t i = 0; i < groups.size(); ++i) {
        exvector const f = factors_of(groups[i].state);
        for (std::size_t k = 0; k < f.size(); ++k)
            for (std::size_t l = 0; l < f.size(); ++l) {
                if (k == l) continue;
                bool const cc = is_call(f[k], "cos") && is_call(f[l], "cos") && k < l;
                bool const sc = is_call(f[k], "sin") && is_call(f[l], "cos");
                if (!cc && !sc) continue;
                ex const a = f[k].op(0), b = f[l].op(0);
                ex const rest = groups[i].state / (f[k] * f[l]);
                ex const other = cc ? rest * sin(a) * sin(b) : rest * cos(a) * sin(b);
                for (std::size_t j = 0; j < groups.size(); ++j) {
                    if (j == i || !groups[j].state.is_equal(other)) continue;
                    // cos a cos b ∓ sin a sin b = cos(a ± b), sin a cos b ± cos a sin b = sin(a ± b)
                    ex const minus = (groups[i].coefficient - groups[j].coefficient).expand();
                    ex const plus = (groups[i].coefficient + groups[j].coefficient).expand();
                    bool const difference = cc ? minus.is_zero() : plus.is_zero();
                    if (!difference && !(cc ? plus.is_zero() : minus.is_zero())) continue;
                    ex const angle = difference ? a - b : a + b;
                    groups[i].state = rest * (cc ? cos(angle) : sin(angle));
                    groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(j));
                    return true;
                }
            }
    }
    return false;
}

// c factored where it has factors ((m1 + m2) l^2), each factor expanded: GiNaC's factor()
// leaves an irreducible sum partly collected in an order that changes from process to process.
ex factored(ex const& c) {
    ex const f = factor(c);
    if (!is_exactly_a<mul>(f)) return c.expand();
    ex out = 1;
    for (ex const& x : f) out *= is_exactly_a<power>(x) ? pow(x.op(0).expand(), x.op(1)) : x.expand();
    return out;
}

} // namespace

std::string tex_name(std::string const& name) {
    std::size_t const underscore = name.find('_');
    if (underscore != std::string::npos && underscore > 0 && underscore + 1 < name.size()) {
        std::string sub = name.substr(underscore + 1);
        bool digits = std::all_of(sub.begin(), sub.end(), [](char c) { return c >= '0' && c <= '9'; });
        std::string s = digits ? sub : sub.find('_') == std::string::npos ? tex_word(sub, true) : "";
        if (s.empty()) {
            for (char c : sub) s += c == '_' ? std::string("\\_") : std::string(1, c);
            s = "\\mathrm{" + s + "}";
        }
        return tex_word(name.substr(0, underscore), false) + "_{" + s + "}";
    }
    std::size_t digits = name.size();
    while (digits > 1 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
    if (digits < name.size()) return tex_word(name.substr(0, digits), false) + "_{" + name.substr(digits) + "}";
    return tex_word(name, false);
}

ex readable(ex const& e, std::vector<symbol> const& p) {
    if (tree_size(e) > 3000) return e;
    ex x;
    try {
        x = e.expand();
        if (is_exactly_a<add>(x) && x.nops() > 400) return e;
        x = trig_reduce(x).expand();
    } catch (std::exception const&) {
        return e;
    }
    exset const params(p.begin(), p.end());
    std::map<ex, ex, ex_is_less> by_state;
    exvector const terms = is_exactly_a<add>(x) ? exvector(x.begin(), x.end()) : exvector{x};
    for (ex const& t : terms) {
        ex c = 1, s = 1;
        for (ex const& f : factors_of(t)) (only_parameters(f, params) ? c : s) *= f;
        by_state[s] += c;
    }
    std::vector<group> groups;
    for (auto const& [state, c] : by_state) groups.push_back({c, state});
    while (combine_once(groups)) {}
    ex out = 0;
    for (auto& g : groups) {
        ex c = g.coefficient;
        if (is_exactly_a<add>(c)) try {
                c = factored(c);
            } catch (std::exception const&) {}
        out += c * g.state;
    }
    return out;
}

latex_printer::latex_printer(model const& m, derived const* d) {
    name_symbols(m.p, [&] {
        std::vector<std::string> n;
        for (auto const& p : m.parameters) n.push_back(p.name);
        return n;
    }(), 1, "");
    names_[m.t.get_name()] = {"t", {2, 0}};
    name_symbols(m.q, m.coordinates, 3, "");
    name_symbols(m.u, m.inputs, 4, "");
    name_symbols(m.qd, m.coordinates, 5, "\\dot");
    if (!d) return;
    name_symbols(d->qdd, m.coordinates, 6, "\\ddot");
    std::vector<std::string> lambda;
    for (std::size_t k = 0; k < d->lambda.size(); ++k) lambda.push_back("lambda" + std::to_string(k + 1));
    name_symbols(d->lambda, lambda, 7, "");
}

void latex_printer::name_symbols(std::vector<symbol> const& s, std::vector<std::string> const& names, int kind,
                                 std::string const& accent) {
    for (std::size_t i = 0; i < s.size() && i < names.size(); ++i) {
        std::string t = tex_name(names[i]);
        if (!accent.empty()) {
            std::size_t const sub = t.find("_{");
            t = sub == std::string::npos ? accent + "{" + t + "}" : accent + "{" + t.substr(0, sub) + "}" + t.substr(sub);
        }
        names_[s[i].get_name()] = {t, {kind, i}};
    }
}

std::uint64_t latex_printer::hash(ex const& e) { return value_hash(e).first; }

// (h, sign): e = sign · (the part h names), h the same for e and −e however GiNaC orients a
// sum: a sum's hash is the smaller of its own and its negation's, signs of sums inside
// products and of sin's arguments moved out.
std::pair<std::uint64_t, int> latex_printer::value_hash(ex const& e) {
    if (is_exactly_a<symbol>(e)) {
        auto it = names_.find(ex_to<symbol>(e).get_name());
        return {fnv("s" + (it == names_.end() ? ex_to<symbol>(e).get_name() : it->second.first)), 1};
    }
    if (is_exactly_a<numeric>(e)) {
        numeric const& n = ex_to<numeric>(e);
        return {fnv("n" + number(abs(n))), n.is_negative() ? -1 : 1};
    }
    basic const* const key = &ex_to<basic>(e);
    if (auto it = hashes_.find(key); it != hashes_.end()) return it->second;
    kept_.push_back(e);
    std::pair<std::uint64_t, int> out{0, 1};
    if (is_exactly_a<add>(e)) {
        auto const& s = ex_to<expairseq>(e);
        std::vector<std::uint64_t> plus, minus;
        auto term = [&](std::uint64_t h, numeric const& c) {
            plus.push_back(mix(h, fnv(number(c))));
            minus.push_back(mix(h, fnv(number(-c))));
        };
        for (auto const& p : sum_terms::pairs(s)) {
            auto const [h, sign] = value_hash(p.rest);
            term(h, ex_to<numeric>(p.coeff) * sign);
        }
        term(fnv("1"), ex_to<numeric>(sum_terms::constant(s)));
        std::sort(plus.begin(), plus.end());
        std::sort(minus.begin(), minus.end());
        std::uint64_t a = fnv("+"), b = fnv("+");
        for (auto v : plus) a = mix(a, v);
        for (auto v : minus) b = mix(b, v);
        out = a <= b ? std::make_pair(a, 1) : std::make_pair(b, -1);
    } else if (is_exactly_a<mul>(e)) {
        auto const& s = ex_to<expairseq>(e);
        numeric c = ex_to<numeric>(sum_terms::constant(s));
        std::vector<std::uint64_t> parts;
        for (auto const& p : sum_terms::pairs(s)) {
            auto const [h, sign] = value_hash(p.rest);
            numeric const& n = ex_to<numeric>(p.coeff);
            if (sign < 0 && n.is_integer() && n.is_odd()) c = -c;
            parts.push_back(mix(mix(h, fnv(number(n))), sign < 0 && !n.is_integer() ? 1 : 0));
        }
        std::sort(parts.begin(), parts.end());
        std::uint64_t h = mix(fnv("*"), fnv(number(abs(c))));
        for (auto v : parts) h = mix(h, v);
        out = {h, c.is_negative() ? -1 : 1};
    } else if (is_exactly_a<power>(e) && is_exactly_a<numeric>(e.op(1)) && ex_to<numeric>(e.op(1)).is_integer()) {
        auto const [h, sign] = value_hash(e.op(0));
        out = {mix(mix(fnv("^"), h), fnv(number(ex_to<numeric>(e.op(1))))), ex_to<numeric>(e.op(1)).is_odd() ? sign : 1};
    } else {
        bool const odd = is_call(e, "sin") || is_call(e, "tan"), even = is_call(e, "cos");
        std::uint64_t h = fnv(is_a<GiNaC::function>(e) ? "f" + ex_to<GiNaC::function>(e).get_name() : "^");
        for (std::size_t i = 0; i < e.nops(); ++i) {
            auto const [a, sign] = value_hash(e.op(i));
            h = mix(mix(h, a), (odd || even) ? 0 : static_cast<std::uint64_t>(sign + 1));
            if (odd && sign < 0) out.second = -1;
        }
        out.first = h;
    }
    hashes_.emplace(key, out);
    return out;
}

int latex_printer::kind_of(ex const& e) {
    if (is_exactly_a<symbol>(e)) {
        auto it = names_.find(ex_to<symbol>(e).get_name());
        return it == names_.end() ? 1 : it->second.second.kind;
    }
    if (is_exactly_a<numeric>(e) || is_exactly_a<constant>(e)) return 0;
    basic const* const key = &ex_to<basic>(e);
    if (auto it = kinds_.find(key); it != kinds_.end()) return it->second;
    kept_.push_back(e);
    int k = 0;
    if (is_exactly_a<add>(e) || is_exactly_a<mul>(e))
        for (auto const& p : sum_terms::pairs(ex_to<expairseq>(e))) k = std::max(k, kind_of(p.rest));
    else
        for (std::size_t i = 0; i < e.nops(); ++i) k = std::max(k, kind_of(e.op(i)));
    kinds_.emplace(key, k);
    return k;
}

void latex_printer::share_parts(exvector const& roots, std::size_t min_size) {
    std::unordered_map<std::uint64_t, std::pair<std::size_t, double>> seen; // by hash(): uses, size
    auto children = [](ex const& e) {
        exvector c;
        if (is_exactly_a<add>(e) || is_exactly_a<mul>(e))
            for (auto const& p : sum_terms::pairs(ex_to<expairseq>(e))) c.push_back(p.rest);
        else
            for (std::size_t i = 0; i < e.nops(); ++i) c.push_back(e.op(i));
        return c;
    };
    // Sizes after the children's (an explicit stack: a deep chain would overflow recursion).
    std::vector<std::pair<ex, bool>> stack;
    for (ex const& r : roots) stack.push_back({r, false});
    while (!stack.empty()) {
        auto [e, done] = stack.back();
        stack.pop_back();
        if (is_exactly_a<symbol>(e) || is_exactly_a<numeric>(e) || is_exactly_a<constant>(e)) continue;
        std::uint64_t const key = hash(e);
        if (done) {
            double size = 1;
            for (ex const& c : children(e))
                if (auto it = seen.find(hash(c)); it != seen.end()) size += it->second.second;
            seen[key].second = size;
            continue;
        }
        if (auto it = seen.find(key); it != seen.end()) {
            ++it->second.first;
            continue;
        }
        seen[key] = {1, 1};
        kept_.push_back(e);
        stack.push_back({e, true});
        for (ex const& c : children(e)) stack.push_back({c, false});
    }
    for (auto const& [key, v] : seen)
        if (v.first >= 2 && v.second >= static_cast<double>(min_size)) shared_.insert(key);
}

std::string latex_printer::number(numeric const& n) {
    if (n.is_integer()) return integer_text(n);
    if (n.is_rational()) return "\\frac{" + integer_text(n.numer()) + "}{" + integer_text(n.denom()) + "}";
    char buffer[40];
    double const v = n.to_double();
    auto r = std::to_chars(buffer, buffer + sizeof buffer, v);
    return std::string(buffer, r.ptr);
}

std::string latex_printer::print(ex const& e) { return reference(e).text; }

latex_printer::piece latex_printer::reference(ex const& e) {
    if (!is_exactly_a<symbol>(e) && !is_exactly_a<numeric>(e) && !is_exactly_a<constant>(e) && shared_.count(hash(e))) {
        auto const [h, sign] = value_hash(e);
        if (!definitions_.count(h)) { // the orientation whose text starts with a +
            ex const d = leads_negative(e) ? ex(-e) : e;
            kept_.push_back(d);
            definitions_.emplace(h, d);
            definition_signs_.emplace(h, value_hash(d).second);
        }
        return sign != definition_signs_.at(h) ? piece{"-" + placeholder(h), 0} : piece{placeholder(h), 3};
    }
    return body(e);
}

latex_printer::piece latex_printer::body(ex const& e) {
    if (is_exactly_a<symbol>(e)) {
        auto it = names_.find(ex_to<symbol>(e).get_name());
        return {it == names_.end() ? tex_name(ex_to<symbol>(e).get_name()) : it->second.first, 3};
    }
    if (is_exactly_a<numeric>(e)) {
        numeric const& n = ex_to<numeric>(e);
        if (n.is_negative()) return {"-" + number(-n), 0};
        return {number(n), n.is_integer() ? 3 : 1};
    }
    if (is_exactly_a<constant>(e)) return {e.is_equal(Pi) ? "\\pi" : integer_text_of(e), 3};
    basic const* const key = &ex_to<basic>(e);
    if (auto it = printed_.find(key); it != printed_.end()) return it->second;
    kept_.push_back(e);
    piece out;
    if (is_exactly_a<add>(e)) {
        out = sum(e);
    } else if (is_exactly_a<mul>(e) || is_exactly_a<power>(e)) {
        numeric c = 1;
        std::vector<factor> f;
        if (is_exactly_a<mul>(e)) {
            c = ex_to<numeric>(sum_terms::constant(ex_to<mul>(e)));
            for (auto const& p : sum_terms::pairs(ex_to<mul>(e))) f.push_back({p.rest, ex_to<numeric>(p.coeff)});
            canonical_signs(c, f);
        } else if (is_exactly_a<numeric>(e.op(1))) {
            f.push_back({e.op(0), ex_to<numeric>(e.op(1))});
            canonical_signs(c, f);
        }
        if (f.empty()) {
            piece b = reference(e.op(0)), x = reference(e.op(1));
            out = {(b.precedence < 3 ? "\\left(" + b.text + "\\right)" : b.text) + "^{" + x.text + "}", 2};
        } else {
            out = {(c.is_negative() ? "-" : "") + product(abs(c), f), c.is_negative() ? 0 : 1};
            if (!c.is_negative() && f.size() == 1 && c.is_equal(1) && f[0].exponent.is_positive()) out.precedence = 2;
        }
    } else if (is_a<GiNaC::function>(e)) {
        out = function(e);
    } else {
        out = {"\\mathrm{?}", 3};
    }
    printed_.emplace(key, out);
    return out;
}

// A sum's terms in reading order: accelerations first, multipliers, velocities, inputs, coordinates
// and constants last; among terms of one kind a lone symbol by its index, then by text.
latex_printer::piece latex_printer::sum(ex const& e) {
    struct term {
        int kind;
        std::size_t index;
        std::string text;
        bool negative;
    };
    std::vector<term> terms;
    for (auto const& p : sum_terms::pairs(ex_to<add>(e))) {
        numeric c = ex_to<numeric>(p.coeff);
        std::vector<factor> f;
        if (is_exactly_a<mul>(p.rest)) {
            c *= ex_to<numeric>(sum_terms::constant(ex_to<mul>(p.rest)));
            for (auto const& q : sum_terms::pairs(ex_to<mul>(p.rest))) f.push_back({q.rest, ex_to<numeric>(q.coeff)});
        } else if (is_exactly_a<power>(p.rest) && is_exactly_a<numeric>(p.rest.op(1))) {
            f.push_back({p.rest.op(0), ex_to<numeric>(p.rest.op(1))});
        } else {
            f.push_back({p.rest, 1});
        }
        canonical_signs(c, f);
        std::size_t index = 1000000;
        if (is_exactly_a<symbol>(p.rest))
            if (auto it = names_.find(ex_to<symbol>(p.rest).get_name()); it != names_.end()) index = it->second.second.index;
        terms.push_back({kind_of(p.rest), index, product(abs(c), f), c.is_negative()});
    }
    numeric const constant = ex_to<numeric>(sum_terms::constant(ex_to<add>(e)));
    if (!constant.is_zero()) terms.push_back({0, 0, number(abs(constant)), constant.is_negative()});
    std::sort(terms.begin(), terms.end(), [](term const& a, term const& b) {
        // multipliers (7) after the accelerations, before the velocities: M q̈ + Aᵀλ + h
        auto rank = [](int kind) { return kind == 7 ? -55 : -10 * kind; };
        return std::make_tuple(rank(a.kind), a.index, a.text, a.negative) <
               std::make_tuple(rank(b.kind), b.index, b.text, b.negative);
    });
    std::string out;
    for (auto const& t : terms)
        out += (out.empty() ? (t.negative ? "-" : "") : (t.negative ? " - " : " + ")) + t.text;
    return {out, 0};
}

bool latex_printer::leads_negative(ex const& e) {
    if (is_exactly_a<mul>(e)) return ex_to<numeric>(sum_terms::constant(ex_to<mul>(e))).is_negative();
    if (is_exactly_a<numeric>(e)) return ex_to<numeric>(e).is_negative();
    if (!is_exactly_a<add>(e)) return false;
    std::string const t = sum(e).text;
    return !t.empty() && t[0] == '-';
}

void latex_printer::canonical_signs(numeric& coefficient, std::vector<factor>& factors) {
    for (auto& f : factors) {
        bool const odd = f.exponent.is_integer() && f.exponent.is_odd();
        if (!f.exponent.is_integer()) continue;
        bool const defined = is_exactly_a<add>(f.base) && definition_signs_.count(hash(f.base));
        if (is_exactly_a<add>(f.base) &&
            (defined ? value_hash(f.base).second != definition_signs_.at(hash(f.base)) : leads_negative(f.base))) {
            f.base = -f.base;
            if (odd) coefficient = -coefficient;
        } else if ((is_call(f.base, "sin") || is_call(f.base, "cos")) && leads_negative(f.base.op(0))) {
            bool const sine = is_call(f.base, "sin");
            f.base = sine ? sin(-f.base.op(0)) : cos(-f.base.op(0));
            if (sine && odd) coefficient = -coefficient;
        }
        kept_.push_back(f.base);
    }
}

// |c| times the factors: numbers, then by kind (parameters, t, coordinates, inputs,
// velocities, accelerations, multipliers), sums before symbols before calls; factors with
// negative exponents in a \frac's denominator.
std::string latex_printer::product(numeric coefficient, std::vector<factor> factors) {
    struct placed {
        int kind, category;
        std::size_t index;
        std::string text;
    };
    std::vector<placed> up, down;
    for (auto const& f : factors) {
        bool const below = f.exponent.is_negative();
        factor const g{f.base, below ? -f.exponent : f.exponent};
        int category = is_exactly_a<add>(f.base) ? 0 : is_exactly_a<symbol>(f.base) ? 1 : is_a<GiNaC::function>(f.base) ? 2 : 3;
        std::size_t index = 0;
        if (category == 1)
            if (auto it = names_.find(ex_to<symbol>(f.base).get_name()); it != names_.end()) index = it->second.second.index;
        (below ? down : up).push_back({kind_of(f.base), category, index, factor_text(g)});
    }
    auto join = [](std::vector<placed>& v, std::string first) {
        std::sort(v.begin(), v.end(), [](placed const& a, placed const& b) {
            return std::tie(a.kind, a.category, a.index, a.text) < std::tie(b.kind, b.category, b.index, b.text);
        });
        for (auto const& p : v) first += (first.empty() ? "" : " ") + p.text;
        return first;
    };
    std::string top, bottom;
    if (!coefficient.is_rational()) {
        top = number(coefficient);
    } else {
        if (!coefficient.numer().is_equal(1) || up.empty()) top = integer_text(coefficient.numer());
        if (!coefficient.denom().is_equal(1)) bottom = integer_text(coefficient.denom());
    }
    top = join(up, top);
    bottom = join(down, bottom);
    if (top.empty()) top = "1";
    return bottom.empty() ? top : "\\frac{" + top + "}{" + bottom + "}";
}

std::string latex_printer::factor_text(factor const& f) {
    numeric const& n = f.exponent;
    bool const named = !is_exactly_a<symbol>(f.base) && !is_exactly_a<numeric>(f.base) && shared_.count(hash(f.base));
    if (n.is_integer() && n > 1 && !named &&
        (is_call(f.base, "sin") || is_call(f.base, "cos") || is_call(f.base, "tan")))
        return function(f.base, "^{" + integer_text(n) + "}").text;
    piece const b = reference(f.base);
    if (n.is_equal(numeric(1, 2))) return "\\sqrt{" + b.text + "}";
    if (n.is_equal(1)) return b.precedence == 0 ? "\\left(" + b.text + "\\right)" : b.text;
    std::string const base = b.precedence < 3 ? "\\left(" + b.text + "\\right)" : b.text;
    return base + "^{" + number(n) + "}";
}

latex_printer::piece latex_printer::function(ex const& e, std::string const& power) {
    std::string name = ex_to<GiNaC::function>(e).get_name();
    static std::map<std::string, std::string> const known = {
        {"sin", "\\sin"},       {"cos", "\\cos"},       {"tan", "\\tan"},   {"asin", "\\arcsin"}, {"acos", "\\arccos"},
        {"atan", "\\arctan"},   {"sinh", "\\sinh"},     {"cosh", "\\cosh"}, {"tanh", "\\tanh"},   {"exp", "\\exp"},
        {"log", "\\ln"}};
    std::vector<piece> args;
    for (std::size_t i = 0; i < e.nops(); ++i) args.push_back(reference(e.op(i)));
    if (name == "lagc_abs" && args.size() == 1) return {"\\left|" + args[0].text + "\\right|" + power, 3};
    auto it = known.find(name);
    std::string head = it != known.end() ? it->second
                                         : "\\operatorname{" + (name.rfind("lagc_", 0) == 0 ? name.substr(5) : name) + "}";
    head += power;
    bool const bare = it != known.end() && args.size() == 1 && args[0].precedence == 3 && args[0].text[0] != '\x01' &&
                      is_exactly_a<symbol>(e.op(0));
    if (bare) return {head + (args[0].text[0] == '\\' ? "" : " ") + args[0].text, 2};
    std::string list;
    for (auto const& a : args) list += (list.empty() ? "" : ", ") + a.text;
    return {head + "\\left(" + list + "\\right)", 3};
}

std::string latex_printer::replace_placeholders(std::string const& text, std::map<std::uint64_t, std::string> const& names) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        std::size_t const open = text.find('\x01', at);
        if (open == std::string::npos || open + 18 > text.size()) {
            out += text.substr(at);
            break;
        }
        out += text.substr(at, open - at);
        std::uint64_t const h = std::stoull(text.substr(open + 1, 16), nullptr, 16);
        auto it = names.find(h);
        out += it == names.end() ? "?" : it->second;
        at = open + 18;
    }
    return out;
}

void latex_printer::resolve_one(std::uint64_t h, std::map<std::uint64_t, std::string>& names,
                                std::vector<std::pair<std::string, std::string>>& definitions) {
    if (names.count(h)) return;
    names[h] = ""; // being resolved
    std::string const text = body(definitions_.at(h)).text;
    for (std::size_t at = text.find('\x01'); at != std::string::npos; at = text.find('\x01', at + 1))
        resolve_one(std::stoull(text.substr(at + 1, 16), nullptr, 16), names, definitions);
    names[h] = "s_{" + std::to_string(definitions.size() + 1) + "}";
    definitions.push_back({names[h], replace_placeholders(text, names)});
}

std::string latex_printer::resolve(std::string const& text, std::vector<std::pair<std::string, std::string>>& definitions) {
    std::map<std::uint64_t, std::string> names;
    definitions.clear();
    for (std::size_t at = text.find('\x01'); at != std::string::npos; at = text.find('\x01', at + 1))
        resolve_one(std::stoull(text.substr(at + 1, 16), nullptr, 16), names, definitions);
    return replace_placeholders(text, names);
}

} // namespace lagc

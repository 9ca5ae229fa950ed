// GiNaC expressions → C++: canonical DAG, CSE and printing.
#include "codegen.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <tuple>

namespace lagc {

namespace {

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
    // splitmix64-style combination: deterministic, independent of addresses.
    h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 29;
    return h;
}

std::uint64_t hash_text(std::string const& s) {
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
    return h;
}

char const* math_function(std::string const& ginac_name) {
    static char const* const names[][2] = {{"sin", "sin"},   {"cos", "cos"},   {"tan", "tan"},   {"asin", "asin"},
                                           {"acos", "acos"}, {"atan", "atan"}, {"atan2", "atan2"}, {"sinh", "sinh"},
                                           {"cosh", "cosh"}, {"tanh", "tanh"}, {"exp", "exp"},   {"log", "log"},
                                           {"abs", "fabs"}};
    for (auto const& n : names)
        if (ginac_name == n[0]) return n[1];
    return nullptr;
}

} // namespace

expression_graph::expression_graph(std::map<std::string, symbol_spelling> const& symbols, codegen_options options)
    : symbols_(symbols), options_(std::move(options)) {
    for (auto const& [name, spelling] : symbols_) argument_of_[spelling.text] = spelling.argument;
}

std::string expression_graph::literal(double v) const {
    char buf[64];
    std::to_chars_result r;
    if (options_.literal_suffix == "f") r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v));
    else r = std::to_chars(buf, buf + sizeof buf, v);
    // Checked here, where every constant is printed: inf and nan are not C++ literals.
    bool const single = options_.literal_suffix == "f";
    if (!std::isfinite(v) || (single && !std::isfinite(static_cast<float>(v))))
        throw std::runtime_error("the constant " + std::string(buf, r.ptr) + " does not fit in a " +
                                 (single ? "float" : "double"));
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s + options_.literal_suffix;
}

int expression_graph::intern(node n) {
    std::uint64_t h = mix(static_cast<std::uint64_t>(n.kind) + 1, hash_text(n.text));
    h = mix(h, static_cast<std::uint64_t>(n.exponent));
    for (std::size_t i = 0; i < n.args.size(); ++i) {
        h = mix(h, nodes_[static_cast<std::size_t>(n.args[i])].hash);
        h = mix(h, n.flags.empty() ? 0 : n.flags[i]);
    }
    n.hash = h;
    auto& bucket = interned_[h];
    for (int id : bucket) {
        node const& o = nodes_[static_cast<std::size_t>(id)];
        if (o.kind == n.kind && o.text == n.text && o.exponent == n.exponent && o.args == n.args && o.flags == n.flags)
            return id;
    }
    nodes_.push_back(std::move(n));
    int id = static_cast<int>(nodes_.size() - 1);
    bucket.push_back(id);
    return id;
}

// Canonical order: numbers, variables (by spelling), then compound nodes by structure.
bool expression_graph::less(int a, int b) const {
    if (a == b) return false;
    node const& x = nodes_[static_cast<std::size_t>(a)];
    node const& y = nodes_[static_cast<std::size_t>(b)];
    if (x.rank != y.rank) return x.rank < y.rank;
    if (x.kind == op::variable || x.kind == op::number || x.text != y.text) {
        if (x.text != y.text) return x.text < y.text;
    }
    if (x.hash != y.hash) return x.hash < y.hash;
    // Equal hashes of different nodes: compare structurally (practically never reached).
    if (x.exponent != y.exponent) return x.exponent < y.exponent;
    if (x.args.size() != y.args.size()) return x.args.size() < y.args.size();
    for (std::size_t i = 0; i < x.args.size(); ++i) {
        if (x.args[i] != y.args[i]) return less(x.args[i], y.args[i]);
        if (x.flags[i] != y.flags[i]) return x.flags[i] < y.flags[i];
    }
    return false;
}

int expression_graph::number(GiNaC::numeric const& v) {
    if (!v.is_rational()) throw std::runtime_error("a complex or inexact number appeared in an expression");
    double d = v.to_double();
    if (!std::isfinite(d)) throw std::runtime_error("a constant does not fit in a double");
    node n{op::number, literal(d), {}, {}, 0, 0, 0};
    return intern(std::move(n));
}

int expression_graph::variable(std::string const& text) {
    node n{op::variable, text, {}, {}, 0, 0, 1};
    return intern(std::move(n));
}

int expression_graph::negate(int id) {
    node const& c = nodes_[static_cast<std::size_t>(id)];
    if (c.kind == op::neg) return c.args[0];
    node n{op::neg, "", {id}, {0}, 0, 0, 4};
    return intern(std::move(n));
}

// Signs are canonical whatever GiNaC's term order: negations inside terms are hoisted
// into the term's sign, and the first term in canonical order is always added (else
// the whole sum is negated), so -m*(a - b) and m*(b - a) become one node.
int expression_graph::make_add(std::vector<std::pair<int, bool>> terms) {
    for (auto& [id, neg] : terms) {
        node const& c = nodes_[static_cast<std::size_t>(id)];
        if (c.kind == op::neg) id = c.args[0], neg = !neg;
    }
    if (terms.size() == 1) return terms[0].second ? negate(terms[0].first) : terms[0].first;
    std::sort(terms.begin(), terms.end(), [&](auto const& a, auto const& b) {
        if (a.first != b.first) return less(a.first, b.first);
        return a.second < b.second;
    });
    bool const flip = terms[0].second;
    node n{op::add, "", {}, {}, 0, 0, 6};
    for (auto const& [id, neg] : terms) {
        n.args.push_back(id);
        n.flags.push_back((neg != flip) ? 1 : 0);
    }
    int id = intern(std::move(n));
    return flip ? negate(id) : id;
}

int expression_graph::make_mul(std::vector<std::pair<int, bool>> factors, bool negative) {
    for (auto& [f, den] : factors) {
        node const& c = nodes_[static_cast<std::size_t>(f)];
        if (c.kind == op::neg) f = c.args[0], negative = !negative;
    }
    int const one = number(GiNaC::numeric(1));
    factors.erase(std::remove_if(factors.begin(), factors.end(), [&](auto const& f) { return f.first == one; }),
                  factors.end());
    if (factors.empty()) factors.push_back({one, false});
    int id;
    if (factors.size() == 1 && !factors[0].second) {
        id = factors[0].first;
    } else {
        std::sort(factors.begin(), factors.end(), [&](auto const& a, auto const& b) {
            if (a.second != b.second) return a.second < b.second;
            return less(a.first, b.first);
        });
        node n{op::mul, "", {}, {}, 0, 0, 5};
        for (auto const& [f, den] : factors) {
            n.args.push_back(f);
            n.flags.push_back(den ? 1 : 0);
        }
        id = intern(std::move(n));
    }
    return negative ? negate(id) : id;
}

// x^n as products: x², x³ directly, higher powers by squaring (shared through CSE).
int expression_graph::make_pow(int base, long n) {
    if (nodes_[static_cast<std::size_t>(base)].kind == op::neg) {
        int p = make_pow(nodes_[static_cast<std::size_t>(base)].args[0], n);
        return n % 2 ? negate(p) : p;
    }
    if (n == 1) return base;
    if (n == 2 || n == 3) {
        node p{op::pow, "", {base}, {0}, static_cast<int>(n), 0, 3};
        return intern(std::move(p));
    }
    int half = make_pow(make_pow(base, 2), n / 2);
    if (n % 2 == 0) return half;
    return make_mul({{half, false}, {base, false}}, false);
}

int expression_graph::make_call(std::string const& name, std::vector<int> args) {
    node n{op::call, options_.math_prefix + name, std::move(args), {}, 0, 0, 2};
    n.flags.assign(n.args.size(), 0);
    bool constant = true;
    for (int a : n.args) constant = constant && nodes_[static_cast<std::size_t>(a)].kind == op::number;
    int const id = intern(std::move(n));
    // A call on constants (what folded parameters leave) must give a finite value.
    if (constant) {
        double const v = evaluate(id, {});
        if (!std::isfinite(v) || (options_.literal_suffix == "f" && !std::isfinite(static_cast<float>(v))))
            throw std::runtime_error(print(id, std::vector<std::string>(nodes_.size())) +
                                     " is not a finite number; the model is undefined there");
    }
    return id;
}

std::pair<int, bool> expression_graph::convert_signed(GiNaC::ex const& e) {
    using namespace GiNaC;
    if (is_a<numeric>(e)) {
        numeric const& v = ex_to<numeric>(e);
        if (v.is_real() && v.is_negative()) return {number(-v), true};
        return {number(v), false};
    }
    if (is_a<mul>(e)) {
        ex c = ex_to<mul>(e).op(e.nops() - 1);
        if (is_a<numeric>(c) && ex_to<numeric>(c).is_real() && ex_to<numeric>(c).is_negative())
            return {convert(-e), true};
    }
    return {convert(e), false};
}

int expression_graph::convert(GiNaC::ex const& e) {
    using namespace GiNaC;
    basic const* key = &ex_to<basic>(e);
    if (auto it = converted_.find(key); it != converted_.end()) return it->second;
    int id;
    if (is_a<numeric>(e)) {
        auto [m, neg] = convert_signed(e);
        id = neg ? negate(m) : m;
    } else if (is_a<symbol>(e)) {
        auto it = symbols_.find(ex_to<symbol>(e).get_name());
        if (it == symbols_.end()) throw std::runtime_error("internal: unknown symbol " + ex_to<symbol>(e).get_name());
        id = variable(it->second.text);
    } else if (is_a<constant>(e)) {
        if (!e.is_equal(Pi)) throw std::runtime_error("unsupported constant in an expression");
        node n{op::number, literal(M_PI), {}, {}, 0, 0, 0};
        id = intern(std::move(n));
    } else if (is_a<GiNaC::add>(e)) {
        std::vector<std::pair<int, bool>> terms;
        for (std::size_t i = 0; i < e.nops(); ++i) terms.push_back(convert_signed(e.op(i)));
        id = make_add(std::move(terms));
    } else if (is_a<mul>(e)) {
        std::vector<std::pair<int, bool>> factors;
        bool negative = false;
        for (std::size_t i = 0; i < e.nops(); ++i) {
            ex f = e.op(i);
            if (is_a<numeric>(f)) {
                numeric v = ex_to<numeric>(f);
                if (!v.is_real()) throw std::runtime_error("a complex number appeared in an expression");
                if (v.is_negative()) negative = !negative, v = -v;
                if (v != 1) factors.push_back({number(v), false});
            } else if (is_a<power>(f) && is_a<numeric>(f.op(1)) && ex_to<numeric>(f.op(1)).is_real() &&
                       ex_to<numeric>(f.op(1)).is_negative()) {
                factors.push_back({convert(pow(f.op(0), -f.op(1))), true});
            } else {
                factors.push_back({convert(f), false});
            }
        }
        id = make_mul(std::move(factors), negative);
    } else if (is_a<power>(e)) {
        ex b = e.op(0), x = e.op(1);
        if (is_a<numeric>(x) && ex_to<numeric>(x).is_integer()) {
            // The checker bounds exponents; never let one wrap in the conversion to long.
            if (abs(ex_to<numeric>(x)) > 1000000) throw std::runtime_error("an exponent is out of range");
            long n = ex_to<numeric>(x).to_long();
            if (n > 0) id = make_pow(convert(b), n);
            else id = make_mul({{make_pow(convert(b), -n), true}}, false);
        } else if (x.is_equal(numeric(1, 2))) {
            id = make_call("sqrt", {convert(b)});
        } else if (x.is_equal(numeric(-1, 2))) {
            id = make_mul({{make_call("sqrt", {convert(b)}), true}}, false);
        } else if (is_a<numeric>(x) && ex_to<numeric>(x).is_rational() && ex_to<numeric>(x).denom() == 2) {
            // b^(k/2) = sqrt(b) · b^((k−1)/2)
            numeric k = ex_to<numeric>(x).numer();
            if (abs(k) > 1000000) throw std::runtime_error("an exponent is out of range");
            int s = make_call("sqrt", {convert(b)});
            long whole = (k - 1).to_long() / 2;
            if (k.is_positive()) id = make_mul({{s, false}, {make_pow(convert(b), whole), false}}, false);
            else id = make_mul({{s, true}, {make_pow(convert(b), -(k + 1).to_long() / 2), true}}, false);
            if (whole == 0 && k.is_positive()) id = s;
        } else {
            id = make_call("pow", {convert(b), convert(x)});
        }
    } else if (is_a<function>(e)) {
        std::string name = ex_to<function>(e).get_name();
        char const* fn = math_function(name);
        if (!fn) throw std::runtime_error("the function '" + name + "' cannot be written as C++");
        std::vector<int> args;
        for (std::size_t i = 0; i < e.nops(); ++i) args.push_back(convert(e.op(i)));
        id = make_call(fn, std::move(args));
    } else {
        throw std::runtime_error("an expression of an unsupported kind appeared");
    }
    keep_alive_.push_back(e);
    converted_.emplace(key, id);
    return id;
}

int expression_graph::add(GiNaC::ex const& e) { return convert(e); }

int expression_graph::add_parts(std::vector<GiNaC::ex> const& parts) {
    std::vector<std::pair<int, bool>> terms;
    for (auto const& e : parts)
        if (!e.is_zero()) terms.push_back(convert_signed(e));
    if (terms.empty()) return convert(GiNaC::ex(0));
    return make_add(std::move(terms));
}

// ---- factoring sums --------------------------------------------------------------

int expression_graph::build_term(product_term const& t) {
    // Repeated factors become powers again (x*x → x², shared by CSE).
    std::vector<std::pair<int, bool>> factors;
    for (std::size_t i = 0; i < t.factors.size();) {
        std::size_t j = i;
        while (j < t.factors.size() && t.factors[j] == t.factors[i]) ++j;
        int f = t.factors[i].first;
        if (j - i > 1) f = make_pow(f, static_cast<long>(j - i));
        factors.push_back({f, t.factors[i].second});
        i = j;
    }
    return make_mul(std::move(factors), t.negative);
}

// Sums with more terms than this are left as they are (each step of the greedy search
// scans every term, and a step removes at least one: quadratic).
constexpr std::size_t horner_limit = 2000;
// The same for the work of the whole search, terms × factors in all terms: a sum of n
// products of n factors (the derivative of a product of n sines) costs n³.
constexpr double horner_work_limit = 1e7;

int expression_graph::horner(std::vector<product_term> terms) {
    if (terms.size() == 1) return build_term(terms[0]);
    double factors = 0;
    for (auto const& t : terms) factors += static_cast<double>(t.factors.size());
    if (terms.size() > horner_limit || static_cast<double>(terms.size()) * factors > horner_work_limit) {
        std::vector<std::pair<int, bool>> built;
        for (auto const& t : terms) built.push_back({build_term(t), false});
        return make_add(std::move(built));
    }
    using key = std::pair<int, bool>;
    auto key_less = [&](key const& a, key const& b) {
        if (a.second != b.second) return a.second < b.second;
        return less(a.first, b.first);
    };
    // In how many terms each factor occurs; the most frequent one (canonically first on a tie).
    std::map<key, int> count;
    for (auto const& t : terms)
        for (std::size_t i = 0; i < t.factors.size(); ++i)
            if (i == 0 || t.factors[i] != t.factors[i - 1]) ++count[t.factors[i]];
    key best{-1, false};
    int best_count = 1;
    for (auto const& [k, c] : count)
        if (c > best_count || (c == best_count && best.first >= 0 && key_less(k, best))) best = k, best_count = c;
    if (best_count < 2) {
        // sin(u)² + cos(u)² = 1 (Horner has already taken any common factor out).
        auto square_of = [&](product_term const& t, char const* fn) {
            if (t.factors.size() != 2 || t.factors[0] != t.factors[1] || t.factors[0].second) return -1;
            node const& f = nodes_[static_cast<std::size_t>(t.factors[0].first)];
            return f.kind == op::call && f.text == options_.math_prefix + fn ? f.args[0] : -1;
        };
        for (std::size_t i = 0; i < terms.size(); ++i) {
            int u = square_of(terms[i], "sin");
            if (u < 0) continue;
            for (std::size_t j = 0; j < terms.size(); ++j)
                if (square_of(terms[j], "cos") == u && terms[j].negative == terms[i].negative) {
                    terms[i].factors.clear();
                    terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(j));
                    if (j < i) --i;
                    break;
                }
        }
        if (terms.size() == 1) return build_term(terms[0]);
        std::vector<std::pair<int, bool>> built;
        for (auto const& t : terms) built.push_back({build_term(t), false});
        return make_add(std::move(built));
    }
    std::vector<product_term> with, rest;
    for (auto& t : terms)
        (std::find(t.factors.begin(), t.factors.end(), best) != t.factors.end() ? with : rest).push_back(std::move(t));
    // The factors common to all of them (with multiplicity), taken out together.
    std::vector<key> common = with[0].factors;
    for (std::size_t k = 1; k < with.size(); ++k) {
        std::vector<key> both;
        std::vector<key> const& f = with[k].factors;
        std::vector<char> taken(f.size(), 0);
        for (auto const& c : common)
            for (std::size_t i = 0; i < f.size(); ++i)
                if (!taken[i] && f[i] == c) {
                    taken[i] = 1;
                    both.push_back(c);
                    break;
                }
        common = std::move(both);
    }
    for (auto& t : with)
        for (auto const& c : common) t.factors.erase(std::find(t.factors.begin(), t.factors.end(), c));
    int inner = horner(std::move(with));
    product_term combined;
    combined.factors = common;
    combined.factors.push_back({inner, false});
    std::sort(combined.factors.begin(), combined.factors.end(), key_less);
    rest.push_back(std::move(combined));
    return horner(std::move(rest));
}

int expression_graph::rebuilt(int id, std::function<int(int)> const& map) {
    node const n = nodes_[static_cast<std::size_t>(id)];
    switch (n.kind) {
    case op::number:
    case op::variable: return id;
    case op::neg: return negate(map(n.args[0]));
    case op::pow: return make_pow(map(n.args[0]), n.exponent);
    case op::call: {
        node c = n;
        for (int& a : c.args) a = map(a);
        return intern(std::move(c));
    }
    case op::add:
    case op::mul: {
        std::vector<std::pair<int, bool>> operands;
        for (std::size_t i = 0; i < n.args.size(); ++i) operands.push_back({map(n.args[i]), n.flags[i] != 0});
        return n.kind == op::add ? make_add(std::move(operands)) : make_mul(std::move(operands), false);
    }
    }
    return id;
}

int expression_graph::factored(int id, std::unordered_map<int, int>& memo) {
    if (auto it = memo.find(id); it != memo.end()) return it->second;
    node const n = nodes_[static_cast<std::size_t>(id)];
    int result = id;
    switch (n.kind) {
    case op::number:
    case op::variable:
    case op::neg:
    case op::pow:
    case op::call:
    case op::mul: result = rebuilt(id, [&](int c) { return factored(c, memo); }); break;
    case op::add: {
        std::vector<product_term> terms;
        for (std::size_t i = 0; i < n.args.size(); ++i) {
            product_term t;
            t.negative = n.flags[i] != 0;
            int c = factored(n.args[i], memo);
            if (nodes_[static_cast<std::size_t>(c)].kind == op::neg) t.negative = !t.negative, c = nodes_[static_cast<std::size_t>(c)].args[0];
            auto push = [&](int f, bool den) {
                node const& fn = nodes_[static_cast<std::size_t>(f)];
                if (fn.kind == op::pow)
                    for (int k = 0; k < fn.exponent; ++k) t.factors.push_back({fn.args[0], den});
                else
                    t.factors.push_back({f, den});
            };
            node const cn = nodes_[static_cast<std::size_t>(c)];
            if (cn.kind == op::mul)
                for (std::size_t k = 0; k < cn.args.size(); ++k) push(cn.args[k], cn.flags[k] != 0);
            else
                push(c, false);
            std::sort(t.factors.begin(), t.factors.end(), [&](auto const& a, auto const& b) {
                if (a.second != b.second) return a.second < b.second;
                return less(a.first, b.first);
            });
            terms.push_back(std::move(t));
        }
        result = horner(std::move(terms));
        break;
    }
    }
    memo.emplace(id, result);
    return result;
}

std::vector<int> expression_graph::factor_sums(std::vector<int> const& roots) {
    std::unordered_map<int, int> memo;
    std::vector<int> out;
    for (int r : roots) out.push_back(factored(r, memo));
    return out;
}

std::vector<int> expression_graph::share_subsets(std::vector<int> const& roots) {
    std::vector<std::pair<std::string, int>> outputs;
    for (int r : roots) outputs.push_back({"", r});
    reach_result const reached = reach(outputs);
    // Sums and products with at least two operands (products without repeated factors).
    std::vector<int> candidates;
    for (int id : reached.order) {
        node const& n = nodes_[static_cast<std::size_t>(id)];
        if ((n.kind != op::add && n.kind != op::mul) || n.args.size() < 2) continue;
        bool repeated = false;
        for (std::size_t i = 1; i < n.args.size(); ++i) repeated = repeated || n.args[i] == n.args[i - 1];
        if (!repeated) candidates.push_back(id);
    }
    std::sort(candidates.begin(), candidates.end(), [&](int a, int b) {
        node const& x = nodes_[static_cast<std::size_t>(a)];
        node const& y = nodes_[static_cast<std::size_t>(b)];
        if (x.kind != y.kind) return x.kind < y.kind;
        if (x.args.size() != y.args.size()) return x.args.size() < y.args.size();
        return less(a, b);
    });
    // For each operand (node, flag) of each kind: the candidates containing it, in order.
    using key = std::tuple<int, int, std::uint8_t>; // kind, node, flag
    std::map<key, std::vector<int>> containing;
    struct part {
        int id;
        bool flipped; // a sum whose terms all appear with opposite signs: subtract it
    };
    struct choice {
        std::vector<part> parts;
        std::vector<char> covered; // operands of the node the parts stand for
    };
    std::unordered_map<int, choice> chosen;
    std::vector<int> rank(nodes_.size(), -1);
    for (std::size_t c = 0; c < candidates.size(); ++c) rank[static_cast<std::size_t>(candidates[c])] = static_cast<int>(c);
    // The search counts, for every operand, the earlier candidates that contain it: cubic
    // for n sums of n shared terms each. Past this much counting (deterministic, not timed)
    // no more parts are looked for; what was found is kept.
    double work = 0;
    constexpr double work_limit = 2e7;
    for (int b : candidates) {
        node const& n = nodes_[static_cast<std::size_t>(b)];
        int const kind = static_cast<int>(n.kind);
        std::unordered_map<int, std::pair<std::size_t, std::size_t>> hits; // candidate → (same, flipped)
        for (std::size_t i = 0; i < n.args.size() && work < work_limit; ++i) {
            if (auto it = containing.find({kind, n.args[i], n.flags[i]}); it != containing.end()) {
                work += static_cast<double>(it->second.size());
                for (int a : it->second) ++hits[a].first;
            }
            if (n.kind == op::add)
                if (auto it = containing.find({kind, n.args[i], static_cast<std::uint8_t>(1 - n.flags[i])}); it != containing.end()) {
                    work += static_cast<double>(it->second.size());
                    for (int a : it->second) ++hits[a].second;
                }
        }
        if (work >= work_limit) break;
        std::vector<part> subsets;
        for (auto const& [a, h] : hits) {
            std::size_t size = nodes_[static_cast<std::size_t>(a)].args.size();
            if (size >= n.args.size()) continue;
            if (h.first == size) subsets.push_back({a, false});
            else if (h.second == size) subsets.push_back({a, true});
        }
        // Largest first (then canonical order); each operand of b is covered at most once.
        std::sort(subsets.begin(), subsets.end(), [&](part const& x, part const& y) {
            std::size_t sx = nodes_[static_cast<std::size_t>(x.id)].args.size();
            std::size_t sy = nodes_[static_cast<std::size_t>(y.id)].args.size();
            if (sx != sy) return sx > sy;
            return rank[static_cast<std::size_t>(x.id)] < rank[static_cast<std::size_t>(y.id)];
        });
        std::vector<char> covered(n.args.size(), 0);
        std::vector<part> picked;
        for (auto const& sub : subsets) {
            node const& a = nodes_[static_cast<std::size_t>(sub.id)];
            std::vector<std::size_t> where;
            for (std::size_t k = 0; k < a.args.size(); ++k) {
                std::uint8_t want = sub.flipped ? static_cast<std::uint8_t>(1 - a.flags[k]) : a.flags[k];
                for (std::size_t i = 0; i < n.args.size(); ++i)
                    if (!covered[i] && n.args[i] == a.args[k] && n.flags[i] == want) {
                        where.push_back(i);
                        break;
                    }
            }
            if (where.size() != a.args.size()) continue;
            for (std::size_t i : where) covered[i] = 1;
            picked.push_back(sub);
        }
        if (!picked.empty()) chosen[b] = {std::move(picked), std::move(covered)};
        for (std::size_t i = 0; i < n.args.size(); ++i) containing[{kind, n.args[i], n.flags[i]}].push_back(b);
    }

    // Rebuild bottom-up with the chosen parts.
    std::unordered_map<int, int> memo;
    std::function<int(int)> rebuild = [&](int id) -> int {
        if (auto it = memo.find(id); it != memo.end()) return it->second;
        int result;
        if (auto it = chosen.find(id); it != chosen.end()) {
            node const n = nodes_[static_cast<std::size_t>(id)];
            std::vector<std::pair<int, bool>> operands;
            for (auto const& sub : it->second.parts) operands.push_back({rebuild(sub.id), sub.flipped});
            for (std::size_t i = 0; i < n.args.size(); ++i)
                if (!it->second.covered[i]) operands.push_back({rebuild(n.args[i]), n.flags[i] != 0});
            result = n.kind == op::add ? make_add(std::move(operands)) : make_mul(std::move(operands), false);
        } else {
            result = rebuilt(id, rebuild);
        }
        memo.emplace(id, result);
        return result;
    };
    std::vector<int> out;
    for (int r : roots) out.push_back(rebuild(r));
    return out;
}

double expression_graph::evaluate(int id, std::map<std::string, double> const& values) const {
    node const& n = nodes_[static_cast<std::size_t>(id)];
    auto arg = [&](std::size_t i) { return evaluate(n.args[i], values); };
    switch (n.kind) {
    case op::number: return std::stod(n.text);
    case op::variable: return values.at(n.text);
    case op::neg: return -arg(0);
    case op::add: {
        double s = 0;
        for (std::size_t i = 0; i < n.args.size(); ++i) s += n.flags[i] ? -arg(i) : arg(i);
        return s;
    }
    case op::mul: {
        double s = 1;
        for (std::size_t i = 0; i < n.args.size(); ++i) s = n.flags[i] ? s / arg(i) : s * arg(i);
        return s;
    }
    case op::pow: return std::pow(arg(0), n.exponent);
    case op::call: {
        std::string f = n.text.substr(options_.math_prefix.size());
        if (f == "atan2") return std::atan2(arg(0), arg(1));
        if (f == "pow") return std::pow(arg(0), arg(1));
        double x = arg(0);
        if (f == "sin") return std::sin(x);
        if (f == "cos") return std::cos(x);
        if (f == "tan") return std::tan(x);
        if (f == "asin") return std::asin(x);
        if (f == "acos") return std::acos(x);
        if (f == "atan") return std::atan(x);
        if (f == "sinh") return std::sinh(x);
        if (f == "cosh") return std::cosh(x);
        if (f == "tanh") return std::tanh(x);
        if (f == "exp") return std::exp(x);
        if (f == "log") return std::log(x);
        if (f == "sqrt") return std::sqrt(x);
        if (f == "fabs") return std::fabs(x);
        throw std::runtime_error("evaluate: unknown function " + f);
    }
    }
    return 0;
}

std::string expression_graph::print_operand(int id, std::vector<std::string> const& names, bool in_product) const {
    node const& n = nodes_[static_cast<std::size_t>(id)];
    std::string s = print(id, names);
    if (!names[static_cast<std::size_t>(id)].empty()) return s;
    bool wrap = n.kind == op::add || (in_product && n.kind == op::neg);
    return wrap ? "(" + s + ")" : s;
}

std::string expression_graph::print(int id, std::vector<std::string> const& names) const {
    if (!names[static_cast<std::size_t>(id)].empty()) return names[static_cast<std::size_t>(id)];
    node const& n = nodes_[static_cast<std::size_t>(id)];
    switch (n.kind) {
    case op::number:
    case op::variable: return n.text;
    case op::neg: {
        std::string s = "-";
        s += print_operand(n.args[0], names, true);
        return s;
    }
    case op::add: {
        // Added terms first, then subtracted ones, each group in canonical order.
        std::string s;
        bool first = true;
        for (int pass = 0; pass < 2; ++pass)
            for (std::size_t i = 0; i < n.args.size(); ++i) {
                if (n.flags[i] != pass) continue;
                std::string t = print_operand(n.args[i], names, false);
                if (first) s = (pass ? "-" : "") + t;
                else s += (pass ? " - " : " + ") + t;
                first = false;
            }
        return s;
    }
    case op::mul: {
        std::string num, den;
        std::size_t den_count = 0;
        for (std::size_t i = 0; i < n.args.size(); ++i) {
            node const& c = nodes_[static_cast<std::size_t>(n.args[i])];
            std::string t = print_operand(n.args[i], names, true);
            if (n.flags[i]) {
                bool product = names[static_cast<std::size_t>(n.args[i])].empty() && (c.kind == op::pow || c.kind == op::mul);
                den += (den_count++ ? "*" : "") + t;
                if (product) den_count = 2;
            } else {
                num += (num.empty() ? "" : "*") + t;
            }
        }
        if (num.empty()) num = literal(1.0);
        if (den.empty()) return num;
        return num + "/" + (den_count > 1 ? "(" + den + ")" : den);
    }
    case op::pow: {
        std::string b = print_operand(n.args[0], names, true);
        if (nodes_[static_cast<std::size_t>(n.args[0])].kind == op::mul && names[static_cast<std::size_t>(n.args[0])].empty())
            b = "(" + b + ")";
        std::string s = b;
        for (int k = 1; k < n.exponent; ++k) s += "*" + b;
        return s;
    }
    case op::call: {
        std::string s = n.text + "(";
        for (std::size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + print(n.args[i], names);
        return s + ")";
    }
    }
    return "";
}

namespace {
std::size_t node_ops(std::size_t kind_index, std::size_t args, int exponent) {
    switch (kind_index) {
    case 2: return 1;                 // neg
    case 3: return args - 1;          // add
    case 4: return args - 1;          // mul (a division counts as one)
    case 5: return static_cast<std::size_t>(exponent - 1);
    case 6: return 1;                 // call
    default: return 0;
    }
}
} // namespace

std::size_t expression_graph::operation_count(std::vector<int> const& roots) const {
    std::vector<char> seen(nodes_.size(), 0);
    std::size_t ops = 0;
    std::function<void(int)> visit = [&](int id) {
        if (seen[static_cast<std::size_t>(id)]) return;
        seen[static_cast<std::size_t>(id)] = 1;
        node const& n = nodes_[static_cast<std::size_t>(id)];
        ops += node_ops(static_cast<std::size_t>(n.kind), n.args.size(), n.exponent);
        for (int c : n.args) visit(c);
    };
    for (int r : roots) visit(r);
    return ops;
}

double expression_graph::tree_operation_count(std::vector<int> const& roots) const {
    std::vector<double> memo(nodes_.size(), -1.0);
    std::function<double(int)> visit = [&](int id) -> double {
        double& m = memo[static_cast<std::size_t>(id)];
        if (m >= 0) return m;
        node const& n = nodes_[static_cast<std::size_t>(id)];
        double ops = static_cast<double>(node_ops(static_cast<std::size_t>(n.kind), n.args.size(), n.exponent));
        for (int c : n.args) ops += visit(c) * (n.kind == op::pow ? n.exponent : 1);
        return m = ops;
    };
    double total = 0;
    for (int r : roots) total += visit(r);
    return total;
}

expression_graph::reach_result expression_graph::reach(std::vector<std::pair<std::string, int>> const& outputs) const {
    reach_result r{std::vector<int>(nodes_.size(), 0), std::vector<char>(nodes_.size(), 0), {}};
    std::vector<char> seen(nodes_.size(), 0);
    std::function<void(int)> count = [&](int id) {
        ++r.refs[static_cast<std::size_t>(id)];
        if (seen[static_cast<std::size_t>(id)]) return;
        seen[static_cast<std::size_t>(id)] = 1;
        node const& n = nodes_[static_cast<std::size_t>(id)];
        for (int c : n.args) {
            count(c);
            if (n.kind == op::pow) r.pow_base[static_cast<std::size_t>(c)] = 1;
        }
        r.order.push_back(id);
    };
    for (auto const& o : outputs) count(o.second);
    return r;
}

// A node gets a temporary when it is used more than once, or is the base of a power
// (printed as b*b); leaves never do.
bool expression_graph::needs_temporary(reach_result const& r, int id) const {
    node const& n = nodes_[static_cast<std::size_t>(id)];
    return n.kind != op::variable && n.kind != op::number &&
           (r.refs[static_cast<std::size_t>(id)] > 1 || r.pow_base[static_cast<std::size_t>(id)] || n.kind == op::call);
}

void expression_graph::use(emitted_body& b, std::string const& argument) {
    if (std::find(b.used_arguments.begin(), b.used_arguments.end(), argument) == b.used_arguments.end())
        b.used_arguments.push_back(argument);
}

void expression_graph::use_target(emitted_body& b, std::string const& target) {
    std::size_t bracket = target.find('[');
    if (bracket != std::string::npos) use(b, target.substr(0, bracket));
}

emitted_body expression_graph::emit(std::vector<std::pair<std::string, int>> const& outputs,
                                    std::string const& indent) const {
    reach_result r = reach(outputs);
    // Calls first (sin, cos, ... and what their arguments need): every value live across a
    // call is spilled, so values are best computed after the last call.
    {
        std::vector<char> early(nodes_.size(), 0);
        std::function<void(int)> mark = [&](int id) {
            if (early[static_cast<std::size_t>(id)]) return;
            early[static_cast<std::size_t>(id)] = 1;
            for (int c : nodes_[static_cast<std::size_t>(id)].args) mark(c);
        };
        for (int id : r.order)
            if (nodes_[static_cast<std::size_t>(id)].kind == op::call) mark(id);
        std::vector<int> order;
        for (int id : r.order)
            if (early[static_cast<std::size_t>(id)]) order.push_back(id);
        for (int id : r.order)
            if (!early[static_cast<std::size_t>(id)]) order.push_back(id);
        r.order = std::move(order);
    }
    emitted_body body;
    // Each output is written right after the last temporary it reads (short live ranges).
    std::vector<int> position(nodes_.size(), -1);
    int temporaries = 0;
    for (int id : r.order)
        if (needs_temporary(r, id)) position[static_cast<std::size_t>(id)] = temporaries++;
    std::vector<std::vector<std::size_t>> after(static_cast<std::size_t>(temporaries) + 1);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        int last = -1;
        std::vector<int> stack{outputs[i].second};
        while (!stack.empty()) {
            int id = stack.back();
            stack.pop_back();
            if (position[static_cast<std::size_t>(id)] >= 0) {
                last = std::max(last, position[static_cast<std::size_t>(id)]);
                continue;
            }
            for (int c : nodes_[static_cast<std::size_t>(id)].args) stack.push_back(c);
        }
        after[static_cast<std::size_t>(last + 1)].push_back(i);
    }
    std::vector<std::string> names(nodes_.size());
    auto write_outputs = [&](std::size_t slot) {
        for (std::size_t i : after[slot]) {
            body.text += indent + outputs[i].first + " = " + print(outputs[i].second, names) + ";\n";
            use_target(body, outputs[i].first);
        }
    };
    write_outputs(0);
    for (int id : r.order) {
        node const& n = nodes_[static_cast<std::size_t>(id)];
        if (n.kind == op::variable) {
            use(body, argument_of_.at(n.text));
            continue;
        }
        if (n.kind == op::number) continue;
        body.operations += node_ops(static_cast<std::size_t>(n.kind), n.args.size(), n.exponent);
        if (!needs_temporary(r, id)) continue;
        std::string name = "s";
        name += std::to_string(body.temporaries++);
        body.text += indent + "const " + options_.scalar + " " + name + " = " + print(id, names) + ";\n";
        names[static_cast<std::size_t>(id)] = name;
        write_outputs(static_cast<std::size_t>(position[static_cast<std::size_t>(id)]) + 1);
    }
    return body;
}

std::vector<emitted_body> expression_graph::emit_parts(std::vector<std::pair<std::string, int>> const& outputs,
                                                       std::string const& indent, std::size_t budget,
                                                       std::size_t& scratch) const {
    std::size_t const N = nodes_.size();
    reach_result const reached = reach(outputs);
    auto is_temp = [&](int id) { return needs_temporary(reached, id); };

    // One statement per temporary (post-order) and per output; what each reads inline.
    struct statement {
        int id = 0;
        int output = -1;                // index into outputs, or -1 for a temporary
        std::vector<int> temps;         // temporaries it reads
        std::vector<std::string> args;  // arguments it reads
        std::size_t ops = 0;
    };
    auto describe = [&](statement& st, int root, bool defines) {
        std::vector<int> stack;
        node const& r = nodes_[static_cast<std::size_t>(root)];
        if (defines) {
            st.ops += node_ops(static_cast<std::size_t>(r.kind), r.args.size(), r.exponent);
            stack.assign(r.args.begin(), r.args.end());
        } else {
            stack.push_back(root);
        }
        while (!stack.empty()) {
            int id = stack.back();
            stack.pop_back();
            node const& n = nodes_[static_cast<std::size_t>(id)];
            if (is_temp(id)) {
                if (std::find(st.temps.begin(), st.temps.end(), id) == st.temps.end()) st.temps.push_back(id);
                continue;
            }
            if (n.kind == op::variable) {
                std::string const& argument = argument_of_.at(n.text);
                if (std::find(st.args.begin(), st.args.end(), argument) == st.args.end()) st.args.push_back(argument);
                continue;
            }
            st.ops += node_ops(static_cast<std::size_t>(n.kind), n.args.size(), n.exponent);
            for (int c : n.args) stack.push_back(c);
        }
    };
    std::vector<statement> temps_in_order;
    std::vector<int> position(N, -1); // statement index of each temporary
    for (int id : reached.order)
        if (is_temp(id)) {
            statement st;
            st.id = id;
            describe(st, id, true);
            position[static_cast<std::size_t>(id)] = static_cast<int>(temps_in_order.size());
            temps_in_order.push_back(std::move(st));
        }
    // Each output goes right after the last temporary it needs.
    std::vector<std::vector<statement>> after(temps_in_order.size() + 1);
    for (std::size_t i = 0; i < outputs.size(); ++i) {
        statement st;
        st.id = outputs[i].second;
        st.output = static_cast<int>(i);
        describe(st, outputs[i].second, false);
        int last = -1;
        for (int t : st.temps) last = std::max(last, position[static_cast<std::size_t>(t)]);
        after[static_cast<std::size_t>(last + 1)].push_back(std::move(st));
    }
    std::vector<statement> sequence;
    for (auto& st : after[0]) sequence.push_back(std::move(st));
    for (std::size_t k = 0; k < temps_in_order.size(); ++k) {
        sequence.push_back(std::move(temps_in_order[k]));
        for (auto& st : after[k + 1]) sequence.push_back(std::move(st));
    }

    // Cut into parts; a temporary read by a later part than its own goes into w.
    std::vector<std::size_t> part_of(sequence.size());
    std::size_t parts = 1, acc = 0;
    for (std::size_t k = 0; k < sequence.size(); ++k) {
        if (acc > 0 && acc + sequence[k].ops > budget) ++parts, acc = 0;
        acc += sequence[k].ops;
        part_of[k] = parts - 1;
    }
    std::vector<std::size_t> defined_in(N, 0);
    for (std::size_t k = 0; k < sequence.size(); ++k)
        if (sequence[k].output < 0) defined_in[static_cast<std::size_t>(sequence[k].id)] = part_of[k];
    std::vector<char> shared(N, 0);
    for (std::size_t k = 0; k < sequence.size(); ++k)
        for (int t : sequence[k].temps)
            if (defined_in[static_cast<std::size_t>(t)] != part_of[k]) shared[static_cast<std::size_t>(t)] = 1;

    std::vector<emitted_body> bodies(parts);
    std::vector<std::string> names(N);
    std::size_t local = 0;
    scratch = 0;
    for (std::size_t k = 0; k < sequence.size(); ++k) {
        statement const& st = sequence[k];
        emitted_body& b = bodies[part_of[k]];
        for (auto const& a : st.args) use(b, a);
        for (int t : st.temps)
            if (shared[static_cast<std::size_t>(t)]) use(b, "w");
        b.operations += st.ops;
        if (st.output >= 0) {
            std::string const& target = outputs[static_cast<std::size_t>(st.output)].first;
            b.text += indent + target + " = " + print(st.id, names) + ";\n";
            use_target(b, target);
            continue;
        }
        ++b.temporaries;
        if (shared[static_cast<std::size_t>(st.id)]) {
            use(b, "w");
            std::string name = "w[";
            name.append(std::to_string(scratch++)).append("]");
            b.text += indent + name + " = " + print(st.id, names) + ";\n";
            names[static_cast<std::size_t>(st.id)] = name;
        } else {
            std::string name = "s";
            name += std::to_string(local++);
            b.text += indent + "const " + options_.scalar + " " + name + " = " + print(st.id, names) + ";\n";
            names[static_cast<std::size_t>(st.id)] = name;
        }
    }
    return bodies;
}

} // namespace lagc

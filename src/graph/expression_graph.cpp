// The expression DAG: hash-consed nodes in a canonical order, signs hoisted, integer
// powers as products; evaluation and printing of nodes, and operation counts.
// (From GiNaC: from_ginac.cpp; rewrites: rewrites.cpp; statement order: schedule.cpp.)
#include "builtins.hpp"
#include "graph/expression_graph.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <stdexcept>

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
        throw constant_out_of_range("the constant " + std::string(buf, r.ptr) + " does not fit in a " +
                                 (single ? "float" : "double"));
    std::string s(buf, r.ptr);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return s + options_.literal_suffix;
}

int expression_graph::intern(node n) {
    return intern(n.kind, n.text, n.args.data(), n.flags.empty() ? nullptr : n.flags.data(), n.args.size(), n.exponent,
                  &n);
}

// The node with these fields, found or added. Most lookups find a node that exists, so the
// fields are passed as they are and copied into a node only when one is added (from
// `spare` when given: its vectors are moved, not copied).
int expression_graph::intern(op kind, std::string const& text, int const* args, std::uint8_t const* flags,
                             std::size_t count, int exponent, node* spare) {
    std::uint64_t h = mix(static_cast<std::uint64_t>(kind) + 1, hash_text(text));
    h = mix(h, static_cast<std::uint64_t>(exponent));
    for (std::size_t i = 0; i < count; ++i) {
        h = mix(h, node_at(args[i]).hash);
        h = mix(h, flags ? flags[i] : 0);
    }
    auto [it, inserted] = interned_.try_emplace(h, -1);
    for (int id = it->second; id >= 0; id = same_hash_[static_cast<std::size_t>(id)]) {
        node const& o = node_at(id);
        if (o.kind != kind || o.text != text || o.exponent != exponent || o.args.size() != count) continue;
        if (!std::equal(args, args + count, o.args.begin())) continue;
        bool const same_flags = flags ? o.flags.size() == count && std::equal(flags, flags + count, o.flags.begin())
                                      : o.flags.empty();
        if (same_flags) return id;
    }
    node n;
    if (spare) {
        n = std::move(*spare);
    } else {
        n.kind = kind;
        n.text = text;
        n.args.assign(args, args + count);
        if (flags) n.flags.assign(flags, flags + count);
        n.exponent = exponent;
    }
    n.hash = h;
    if (n.kind == op::number) n.value = std::stod(n.text);
    if (n.kind == op::call) n.function = builtin_for_cxx(call_name(n.text));
    nodes_.push_back(std::move(n));
    int const id = static_cast<int>(nodes_.size() - 1);
    same_hash_.push_back(it->second);
    it->second = id;
    return id;
}

// Canonical order: numbers, variables (by spelling), then compound nodes by structure.
bool expression_graph::less(int a, int b) const {
    if (a == b) return false;
    node const& x = node_at(a);
    node const& y = node_at(b);
    if (rank_of(x.kind) != rank_of(y.kind)) return rank_of(x.kind) < rank_of(y.kind);
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
    if (!std::isfinite(d)) throw constant_out_of_range("a constant does not fit in a double");
    // One so small that the double loses it (0) or its digits (subnormal): a product's
    // coefficient of 10⁻³⁴⁰, say, which a graph without sum scales can build (a product of
    // many sums of 17-digit decimals, each with its integer content taken out). A graph only
    // evaluated says so (underflowed()), for its checks to judge; in code it is a number the
    // model wrote (the checker warned at its token: 1e-400 computes as 0).
    if (options_.scales == codegen_options::sum_scales::none && (d == 0 ? !v.is_zero() : std::fpclassify(d) == FP_SUBNORMAL))
        underflowed_ = true;
    return number_of(d);
}

int expression_graph::number_of(double d) {
    // The node depends on the double alone (its literal): cached by its bits, since
    // make_mul asks for 1 at every product.
    std::uint64_t const bits = std::bit_cast<std::uint64_t>(d);
    if (auto it = numbers_.find(bits); it != numbers_.end()) return it->second;
    node n{op::number, literal(d), {}, {}, 0, 0};
    int const id = intern(std::move(n));
    numbers_.emplace(bits, id);
    return id;
}

int expression_graph::variable(std::string const& text) {
    node n{op::variable, text, {}, {}, 0, 0};
    return intern(std::move(n));
}

int expression_graph::negate(int id) {
    node const& c = node_at(id);
    if (c.kind == op::neg) return c.args[0];
    if (c.kind == op::number && c.value == 0) return id; // 0, not -0.0
    std::uint8_t const flag = 0;
    return intern(op::neg, std::string(), &id, &flag, 1, 0);
}

// Terms that are one node times numbers (k₁ x and −k₂ x) as one, (k₁ − k₂) x, their
// numbers added in ascending order; none where they cancel. GiNaC gathers such terms only
// where it signed their sums alike (−k (a − b) or k (b − a)), which follows its order of
// terms, which follows its hashes, which follow addresses. Left apart, they cost operations
// (tilted_rod's linearization computed 1.0 - 1.0 and multiplied two rows by it; 16 bundled
// models are 0.2–8.6% shorter gathered), and which ones GiNaC left apart could change from
// run to run. Terms with no like term stay as they are.
void expression_graph::gather_like_terms(std::vector<std::pair<int, bool>>& terms) {
    if (terms.size() < 2) return;
    // Each term as (its factors but numbers in the numerator, the product of those numbers):
    // the factors as the key of its group of like terms, which holds them once.
    using factors = std::vector<std::pair<int, std::uint8_t>>;
    std::map<factors, std::vector<std::size_t>> alike;
    std::vector<std::pair<decltype(alike)::iterator, double>> split;
    bool any = false;
    for (std::size_t t = 0; t < terms.size(); ++t) {
        auto const [id, neg] = terms[t];
        node const& n = node_at(id);
        factors rest;
        double k = 1;
        if (n.kind == op::mul) {
            for (std::size_t i = 0; i < n.args.size(); ++i) {
                node const& f = node_at(n.args[i]);
                if (f.kind == op::number && n.flags[i] == 0) k *= f.value;
                else rest.push_back({n.args[i], n.flags[i]});
            }
        } else if (n.kind == op::number) {
            k = n.value;
        } else {
            rest.push_back({id, 0});
        }
        auto const group = alike.try_emplace(std::move(rest)).first;
        group->second.push_back(t);
        split.push_back({group, neg ? -k : k});
        any = any || group->second.size() > 1;
    }
    if (!any) return;
    std::vector<std::pair<int, bool>> out;
    std::vector<char> done(terms.size(), 0);
    for (std::size_t t = 0; t < terms.size(); ++t) {
        if (done[t]) continue;
        std::vector<std::size_t> const& group = split[t].first->second;
        if (group.size() == 1) {
            out.push_back(terms[t]);
            continue;
        }
        std::vector<double> ks;
        for (std::size_t g : group) ks.push_back(split[g].second), done[g] = 1;
        std::sort(ks.begin(), ks.end());
        double total = 0;
        for (double k : ks) total += k;
        if (total == 0) continue;
        std::vector<std::pair<int, bool>> product;
        for (auto const& [f, den] : split[t].first->first) product.push_back({f, den != 0});
        if (std::fabs(total) != 1 || product.empty()) product.push_back({number_of(std::fabs(total)), false});
        out.push_back({make_mul(std::move(product), false), total < 0});
    }
    if (out.empty()) out.push_back({number_of(0), false}); // every term cancelled
    terms = std::move(out);
}

// Signs are canonical whatever GiNaC's term order: negations inside terms are hoisted
// into the term's sign, and the first term in canonical order is always added (else
// the whole sum is negated), so -m*(a - b) and m*(b - a) become one node.
int expression_graph::make_add(std::vector<std::pair<int, bool>> terms) {
    for (auto& [id, neg] : terms) {
        node const& c = node_at(id);
        if (c.kind == op::neg) id = c.args[0], neg = !neg;
    }
    gather_like_terms(terms);
    // A zero term (what gathering leaves where every term cancelled) adds nothing.
    int const zero = number_of(0);
    if (terms.size() > 1)
        terms.erase(std::remove_if(terms.begin(), terms.end(), [&](auto const& t) { return t.first == zero; }), terms.end());
    if (terms.empty()) return zero;
    if (terms.size() == 1) return terms[0].second ? negate(terms[0].first) : terms[0].first;
    std::sort(terms.begin(), terms.end(), [&](auto const& a, auto const& b) {
        if (a.first != b.first) return less(a.first, b.first);
        return a.second < b.second;
    });
    bool const flip = terms[0].second;
    args_.clear();
    flags_.clear();
    for (auto const& [id, neg] : terms) {
        args_.push_back(id);
        flags_.push_back((neg != flip) ? 1 : 0);
    }
    int id = intern(op::add, std::string(), args_.data(), flags_.data(), args_.size(), 0);
    return flip ? negate(id) : id;
}

int expression_graph::make_mul(std::vector<std::pair<int, bool>> factors, bool negative) {
    for (auto& [f, den] : factors) {
        node const& c = node_at(f);
        if (c.kind == op::neg) f = c.args[0], negative = !negative;
    }
    int const one = number(GiNaC::numeric(1));
    factors.erase(std::remove_if(factors.begin(), factors.end(), [&](auto const& f) { return f.first == one; }),
                  factors.end());
    // A factor 0 (a sum whose terms cancelled, gather_like_terms) makes the product 0.
    int const zero = number_of(0);
    if (std::any_of(factors.begin(), factors.end(), [&](auto const& f) { return f.first == zero && !f.second; })) return zero;
    if (factors.empty()) factors.push_back({one, false});
    int id;
    if (factors.size() == 1 && !factors[0].second) {
        id = factors[0].first;
    } else {
        std::sort(factors.begin(), factors.end(), [&](auto const& a, auto const& b) { return factor_less(a, b); });
        args_.clear();
        flags_.clear();
        for (auto const& [f, den] : factors) {
            args_.push_back(f);
            flags_.push_back(den ? 1 : 0);
        }
        id = intern(op::mul, std::string(), args_.data(), flags_.data(), args_.size(), 0);
    }
    return negative ? negate(id) : id;
}

// x^n as products: x², x³ directly, higher powers by squaring (shared through CSE).
int expression_graph::make_pow(int base, long n) {
    if (node_at(base).kind == op::neg) {
        int p = make_pow(node_at(base).args[0], n);
        return n % 2 ? negate(p) : p;
    }
    if (n == 1) return base;
    if (n == 2 || n == 3) {
        std::uint8_t const flag = 0;
        return intern(op::pow, std::string(), &base, &flag, 1, static_cast<int>(n));
    }
    int half = make_pow(make_pow(base, 2), n / 2);
    if (n % 2 == 0) return half;
    return make_mul({{half, false}, {base, false}}, false);
}

int expression_graph::make_call(std::string const& name, std::vector<int> args) {
    builtin const* b = builtin_for_cxx(name);
    bool const helper = b && b->how == builtin::code::helper;
    node n{op::call, (helper ? "detail::" : options_.math_prefix) + name, std::move(args), {}, 0, 0};
    n.flags.assign(n.args.size(), 0);
    bool constant = true;
    for (int a : n.args) constant = constant && node_at(a).kind == op::number;
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

// ---- factoring sums --------------------------------------------------------------

// What a node computes from its operands' values (`arg(i)`) and, for a variable, `variable()`.
template <class Operand, class Variable>
double expression_graph::value_of(node const& n, Operand arg, Variable variable) const {
    switch (n.kind) {
    case op::number: return n.value;
    case op::variable: return variable();
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
        builtin const* fn = n.function;
        if (!fn) throw std::runtime_error("evaluate: unknown function " + n.text);
        return fn->value(arg(0), n.args.size() > 1 ? arg(1) : 0.0);
    }
    }
    return 0;
}

double expression_graph::evaluate(int id, std::map<std::string, double> const& values) const {
    node const& n = node_at(id);
    return value_of(
        n, [&](std::size_t i) { return evaluate(n.args[i], values); }, [&] { return values.at(n.text); });
}

// The nodes `roots` need, in index order (children are interned before their parents, so
// one pass in that order suffices), with their children's places and variables' indices.
void expression_graph::compile_program(std::vector<int> const& roots, std::vector<std::string> const& variables) const {
    std::unordered_map<std::string, int> index;
    for (std::size_t i = 0; i < variables.size(); ++i) index[variables[i]] = static_cast<int>(i); // the last, as before
    int top = -1;
    for (int r : roots) top = std::max(top, r);
    std::vector<int> place(static_cast<std::size_t>(top + 1), -1);
    for (int r : roots) place[static_cast<std::size_t>(r)] = 0;
    for (int id = top; id >= 0; --id)
        if (place[static_cast<std::size_t>(id)] == 0)
            for (int a : node_at(id).args) place[static_cast<std::size_t>(a)] = 0;
    program_.clear();
    for (int id = 0; id <= top; ++id) {
        if (place[static_cast<std::size_t>(id)] != 0) continue;
        node const& n = node_at(id);
        program_step step{id, -1, {}};
        if (n.kind == op::variable) {
            auto it = index.find(n.text);
            step.variable = it == index.end() ? -1 : it->second;
        }
        for (int a : n.args) step.args.push_back(place[static_cast<std::size_t>(a)]);
        place[static_cast<std::size_t>(id)] = static_cast<int>(program_.size());
        program_.push_back(std::move(step));
    }
    root_places_.clear();
    for (int r : roots) root_places_.push_back(place[static_cast<std::size_t>(r)]);
    evaluated_roots_ = roots;
    evaluated_variables_ = variables;
}

std::vector<double> expression_graph::evaluate_all(std::vector<int> const& roots,
                                                  std::vector<std::string> const& variables,
                                                  std::vector<double> const& values) const {
    std::vector<double> const v = evaluate_program(roots, variables, values);
    std::vector<double> out;
    out.reserve(roots.size());
    for (int p : root_places_) out.push_back(v[static_cast<std::size_t>(p)]);
    return out;
}

std::vector<double> expression_graph::evaluate_program(std::vector<int> const& roots,
                                                      std::vector<std::string> const& variables,
                                                      std::vector<double> const& values) const {
    if (roots != evaluated_roots_ || variables != evaluated_variables_ || program_.empty())
        compile_program(roots, variables);
    std::vector<double> v(program_.size(), 0.0);
    for (std::size_t k = 0; k < program_.size(); ++k) {
        program_step const& step = program_[k];
        v[k] = value_of(
            node_at(step.id), [&](std::size_t i) { return v[static_cast<std::size_t>(step.args[i])]; },
            [&] { return step.variable < 0 ? 0.0 : values[static_cast<std::size_t>(step.variable)]; });
    }
    return v;
}

std::vector<double> expression_graph::evaluate_changed(std::vector<int> const& roots,
                                                      std::vector<std::string> const& variables,
                                                      std::vector<double> const& values,
                                                      std::vector<double> const& base,
                                                      std::vector<std::size_t> const& changed) const {
    if (roots != evaluated_roots_ || variables != evaluated_variables_ || program_.empty())
        compile_program(roots, variables);
    if (base.size() != program_.size()) return evaluate_all(roots, variables, values);
    std::vector<char> moved(variables.size(), 0);
    for (std::size_t c : changed) moved[c] = 1;
    std::vector<double> v = base;
    std::vector<char> dirty(program_.size(), 0);
    for (std::size_t k = 0; k < program_.size(); ++k) {
        program_step const& step = program_[k];
        bool d = step.variable >= 0 && moved[static_cast<std::size_t>(step.variable)];
        for (std::size_t i = 0; i < step.args.size() && !d; ++i) d = dirty[static_cast<std::size_t>(step.args[i])];
        if (!d) continue;
        dirty[k] = 1;
        v[k] = value_of(
            node_at(step.id), [&](std::size_t i) { return v[static_cast<std::size_t>(step.args[i])]; },
            [&] { return step.variable < 0 ? 0.0 : values[static_cast<std::size_t>(step.variable)]; });
    }
    std::vector<double> out;
    out.reserve(roots.size());
    for (int p : root_places_) out.push_back(v[static_cast<std::size_t>(p)]);
    return out;
}

std::string expression_graph::print_operand(int id, std::vector<std::string> const& names, bool in_product) const {
    node const& n = node_at(id);
    std::string s = print(id, names);
    if (!names[static_cast<std::size_t>(id)].empty()) return s;
    bool wrap = n.kind == op::add || (in_product && n.kind == op::neg);
    return wrap ? "(" + s + ")" : s;
}

std::string expression_graph::print(int id, std::vector<std::string> const& names) const {
    if (!names[static_cast<std::size_t>(id)].empty()) return names[static_cast<std::size_t>(id)];
    node const& n = node_at(id);
    switch (n.kind) {
    case op::number:
    case op::variable:
        return options_.c_spelling && n.text.rfind("p.", 0) == 0 ? "p->" + n.text.substr(2) : n.text;
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
            node const& c = node_at(n.args[i]);
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
        if (node_at(n.args[0]).kind == op::mul && names[static_cast<std::size_t>(n.args[0])].empty())
            b = "(" + b + ")";
        std::string s = b;
        for (int k = 1; k < n.exponent; ++k) s += "*" + b;
        return s;
    }
    case op::call: {
        bool const cmath = n.function && n.function->how == builtin::code::cmath;
        std::string s = (options_.c_spelling ? call_name(n.text) + (cmath ? options_.math_suffix : "") : n.text) + "(";
        std::string const name = call_name(n.text);
        bool const angle = !options_.reduce_angle.empty() && n.args.size() == 1 && (name == "sin" || name == "cos" || name == "tan");
        if (angle) return s + options_.reduce_angle + "(" + print(n.args[0], names) + "))";
        for (std::size_t i = 0; i < n.args.size(); ++i) s += (i ? ", " : "") + print(n.args[i], names);
        return s + ")";
    }
    }
    return "";
}

std::size_t expression_graph::operation_count(std::vector<int> const& roots) const {
    std::vector<char> seen(nodes_.size(), 0);
    std::size_t ops = 0;
    std::function<void(int)> visit = [&](int id) {
        if (seen[static_cast<std::size_t>(id)]) return;
        seen[static_cast<std::size_t>(id)] = 1;
        node const& n = node_at(id);
        ops += cost(n);
        for (int c : n.args) visit(c);
    };
    for (int r : roots) visit(r);
    return ops;
}

double expression_graph::derivative_work(std::vector<int> const& roots, std::vector<std::string> const& variables) const {
    if (variables.empty()) return 0;
    std::size_t const words = (variables.size() + 63) / 64;
    std::map<std::string, std::size_t> index;
    for (std::size_t k = 0; k < variables.size(); ++k) index.emplace(variables[k], k);
    std::vector<std::vector<std::uint64_t>> deps(nodes_.size());
    double work = 0;
    std::function<void(int)> visit = [&](int id) {
        auto& d = deps[static_cast<std::size_t>(id)];
        if (!d.empty()) return;
        d.assign(words, 0);
        node const& n = node_at(id);
        if (n.kind == op::variable)
            if (auto it = index.find(n.text); it != index.end()) d[it->second / 64] |= std::uint64_t{1} << (it->second % 64);
        for (int c : n.args) {
            visit(c);
            for (std::size_t w = 0; w < words; ++w) d[w] |= deps[static_cast<std::size_t>(c)][w];
        }
        std::size_t count = 0;
        for (auto w : d) count += static_cast<std::size_t>(std::popcount(w));
        work += static_cast<double>(cost(n) * count);
    };
    for (int r : roots) visit(r);
    return work;
}

double expression_graph::tree_operation_count(std::vector<int> const& roots) const {
    std::vector<double> memo(nodes_.size(), -1.0);
    std::function<double(int)> visit = [&](int id) -> double {
        double& m = memo[static_cast<std::size_t>(id)];
        if (m >= 0) return m;
        node const& n = node_at(id);
        double ops = static_cast<double>(cost(n));
        for (int c : n.args) ops += visit(c) * (n.kind == op::pow ? n.exponent : 1);
        return m = ops;
    };
    double total = 0;
    for (int r : roots) total += visit(r);
    return total;
}

} // namespace lagc

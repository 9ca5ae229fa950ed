// Stage 2: expressions → values (GiNaC expressions with a shape): numbers kept exact,
// names resolved, operators with shape rules, and the budgets that keep the symbolic work
// bounded (docs/cli.md, "Limits").
#include "frontend/checker.hpp"
#include "frontend/spelling.hpp"
#include "symbolic/simplify.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <unordered_map>

namespace lagc::checking {

namespace {

// Expressions share subtrees, so a few lets can describe a tree far larger than the file;
// derivation walks trees. Counting stops at the cap, so this costs at most cap steps.
// Depth matters too: chains of lets nest deeper than any line, and GiNaC recurses.
std::size_t const max_tree_depth = 1000;
// GiNaC's steps to build a product with an expression, per term of --max-terms (see
// part_measurer): 400,000 terms allow 4·10⁷ steps, about a third of a second.
double const building_per_term = 100;
long const max_index = 1000000;
// Numeric exponents of expressions: x^1000 is ten multiplications, but GiNaC multiplies
// out powers of products and of constants exactly ((2x)^n = 2^n x^n), so an exponent of
// 10^12 would build a number of 10^12 bits before anything else could stop it.
long const max_exponent = 1000;

} // namespace

std::string clipped_text(GiNaC::numeric const& n) {
    std::ostringstream s;
    s << n;
    std::string t = s.str();
    if (t.size() > 24) t = t.substr(0, 10) + "..." + t.substr(t.size() - 10) + " (" + std::to_string(t.size()) + " characters)";
    return t;
}

bool has_symbol(ex const& e) {
    if (GiNaC::is_exactly_a<GiNaC::symbol>(e)) return true;
    for (std::size_t i = 0; i < e.nops(); ++i)
        if (has_symbol(e.op(i))) return true;
    return false;
}

namespace {
std::size_t const max_number_bits = 4096;
std::size_t numeric_bits(GiNaC::numeric const& n) {
    if (!n.is_rational()) return 0;
    return static_cast<std::size_t>(n.numer().int_length() + n.denom().int_length());
}
// An expression's distinct parts (its names substituted, each part a `let` shares counted
// once), its height, whether it holds a number of more than max_number_bits bits, and the
// steps GiNaC takes to build a product with it (`building`), each part measured once.
// lagc's own walks visit each distinct part once (symbolic/dag.hpp, chain_rule.hpp), so
// the parts are what its work grows with: a chain of n frames is a tree of ~3^n nodes but
// ~n² parts. GiNaC, though, asks a factor for its return type before it multiplies, and
// that question descends every factor of a product (a sum's first term, a function's or
// a power's first operand): a_i = a_(i-1)·sin(a_(i-1)) has 2i + 2 parts and 2^i steps.
struct part_measure {
    std::size_t height = 0;
    double building = 1;
    bool huge_number = false;
};
class part_measurer {
public:
    part_measure of(ex const& e, std::size_t depth) {
        if (depth > max_tree_depth) return {max_tree_depth + 1, 1, false};
        auto const* key = &GiNaC::ex_to<GiNaC::basic>(e);
        if (auto it = memo_.find(key); it != memo_.end()) return it->second;
        ++parts_;
        part_measure m;
        if (GiNaC::is_exactly_a<GiNaC::numeric>(e)) m.huge_number = numeric_bits(GiNaC::ex_to<GiNaC::numeric>(e)) > max_number_bits;
        // The operands as stored: a sum's terms and a product's factors without their
        // numeric coefficients and exponents, which op(i) would build anew.
        std::vector<ex> operands;
        bool const pairs = GiNaC::is_exactly_a<GiNaC::add>(e) || GiNaC::is_exactly_a<GiNaC::mul>(e);
        if (pairs) {
            auto const& s = GiNaC::ex_to<GiNaC::expairseq>(e);
            for (auto const& p : sum_terms::pairs(s)) operands.push_back(p.rest), operands.push_back(p.coeff);
            operands.push_back(sum_terms::constant(s));
        } else {
            for (std::size_t i = 0; i < e.nops(); ++i) operands.push_back(e.op(i));
        }
        bool const every = GiNaC::is_exactly_a<GiNaC::mul>(e), sum = GiNaC::is_exactly_a<GiNaC::add>(e);
        for (std::size_t i = 0; i < operands.size() && m.height <= max_tree_depth && !m.huge_number; ++i) {
            part_measure const c = of(operands[i], depth + 1);
            m.height = std::max(m.height, c.height + 1);
            m.huge_number = m.huge_number || c.huge_number;
            // A product asks every factor (the rests: even positions), a function or a power
            // its first operand, a sum its first term, which is the first in GiNaC's order of
            // terms, which changes from process to process: the largest of them is counted.
            if (every ? (i % 2 == 0 && i + 1 < operands.size()) : i == 0) m.building += c.building;
            else if (sum && i % 2 == 0 && i + 1 < operands.size()) m.building = std::max(m.building, 1 + c.building);
        }
        memo_.emplace(key, m);
        return m;
    }
    std::size_t parts() const { return parts_; }

private:
    std::size_t parts_ = 0;
    std::unordered_map<GiNaC::basic const*, part_measure> memo_;
};
// Why v is too large for lagc to work on, or "" when it is not.
std::string too_large(value const& v, std::size_t max_terms) {
    part_measurer measure;
    double const max_building = building_per_term * static_cast<double>(max_terms);
    for (auto const& e : v.elems) {
        part_measure const m = measure.of(e, 0);
        if (measure.parts() > max_terms || m.height > max_tree_depth || m.huge_number)
            return "this expression grows past " + std::to_string(max_terms) + " distinct parts, " +
                   std::to_string(max_tree_depth) + " levels or " + std::to_string(max_number_bits) +
                   "-bit constants once its names are substituted; simplify it (or raise the limit with --max-terms)";
        if (m.building > max_building)
            return "this expression nests its shared parts so deeply (a part times a function of itself, again "
                   "and again) that multiplying by it would take more than " +
                   std::to_string(static_cast<long long>(max_building)) +
                   " steps; simplify it (or raise the limit with --max-terms)";
    }
    return "";
}

ast::identifier const* bare_operand(ast::operand const& o);
} // namespace

ast::identifier const* bare_identifier(ast::expression const& e) {
    return e.rest.empty() ? bare_operand(e.first) : nullptr;
}

namespace {
ast::identifier const* bare_operand(ast::operand const& o) {
    if (auto const* id = boost::get<ast::identifier>(&o)) return id;
    if (auto const* e = boost::get<x3::forward_ast<ast::expression>>(&o)) return bare_identifier(e->get());
    if (auto const* sub = boost::get<x3::forward_ast<ast::subscript>>(&o))
        return sub->get().indices.empty() ? bare_operand(sub->get().base) : nullptr;
    return nullptr;
}
} // namespace

opt_value checker::eval(ast::expression const& e) {
    if (nesting_ == 0) underflow_reported_ = false;
    ++nesting_;
    opt_value r = eval_levels(e);
    --nesting_;
    if (nesting_ == 0 && r) {
        if (std::string const why = too_large(*r, limits_.max_terms); !why.empty()) {
            diags_.error(span_of(e), why);
            return std::nullopt;
        }
    }
    return r;
}

opt_value checker::eval_levels(ast::expression const& e) {
    opt_value acc = eval(e.first);
    if (e.rest.empty()) return acc;
    if (!e.rest.empty() && e.rest.front().op == '^') {
        // Right-associative: a ^ b ^ c = a ^ (b ^ c).
        std::vector<opt_value> vals{acc};
        for (auto const& op : e.rest) vals.push_back(eval(op.operand_));
        opt_value r = vals.back();
        for (std::size_t i = e.rest.size(); i-- > 0;) {
            if (!r || !vals[i]) return std::nullopt;
            r = binary('^', *vals[i], *r, span_of(e.rest[i]));
        }
        return r;
    }
    for (auto const& op : e.rest) {
        opt_value rhs = eval(op.operand_);
        if (!acc || !rhs) {
            acc.reset();
            continue;
        }
        acc = binary(op.op, *acc, *rhs, span_of(op));
    }
    return acc;
}

// digits [. digits] [e [+-] digits], kept exact: mantissa × 10^(exponent − fraction digits)
std::optional<GiNaC::numeric> checker::exact_number(ast::number const& n) {
    std::string const& s = n.text;
    std::string digits;
    long exponent = 0;
    std::size_t i = 0;
    bool negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) digits += s[i];
    if (i < s.size() && s[i] == '.')
        for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, --exponent) digits += s[i];
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        long e10 = std::strtol(s.c_str() + i, nullptr, 10);
        if (std::labs(e10) > 400 || s.size() - i > 6) {
            diags_.error(span_of(n), "number '" + s + "' is out of range (exponents go to ±400)");
            return std::nullopt;
        }
        exponent += e10;
    }
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
    if (digits.size() > 400) {
        diags_.error(span_of(n), "number has more than 400 digits");
        return std::nullopt;
    }
    GiNaC::numeric v = digits.empty() ? GiNaC::numeric(0) : GiNaC::numeric(digits.c_str());
    if (exponent != 0) v = v * GiNaC::numeric(10).power(GiNaC::numeric(exponent));
    return negative ? -v : v;
}

opt_value checker::eval(ast::operand const& o) {
    struct visitor {
        checker& c;
        opt_value operator()(ast::nil const&) const { return std::nullopt; }
        opt_value operator()(ast::number const& n) const {
            auto v = c.exact_number(n);
            if (!v || !c.literal_fits(*v, span_of(n))) return std::nullopt;
            return value::scalar(*v);
        }
        opt_value operator()(ast::identifier const& id) const { return c.eval_identifier(id); }
        opt_value operator()(x3::forward_ast<ast::unary> const& u) const {
            opt_value v = c.eval(u.get().operand_);
            if (!v || u.get().sign == '+') return v;
            for (auto& e : v->elems) e = -e;
            return v;
        }
        opt_value operator()(x3::forward_ast<ast::expression> const& e) const { return c.eval(e.get()); }
        opt_value operator()(x3::forward_ast<ast::call> const& e) const { return c.eval_call(e.get()); }
        opt_value operator()(x3::forward_ast<ast::bracket_list> const& e) const { return c.eval_list(e.get()); }
        opt_value operator()(x3::forward_ast<ast::subscript> const& e) const { return c.eval_subscript(e.get()); }
    };
    return boost::apply_visitor(visitor{*this}, o);
}

opt_value checker::eval_identifier(ast::identifier const& id) {
    std::string const& n = id.name;
    if (n == "t") {
        m_.uses_time = true;
        return value::scalar(m_.t);
    }
    if (n == "pi") return value::scalar(GiNaC::Pi);
    auto it = names_.find(n);
    if (it == names_.end()) {
        if (builtin_named(n))
            diags_.error(span_of(id), "'" + n + "' is a function: call it as " + n + "(...)");
        else if (is_reserved_word(n))
            diags_.error(span_of(id), "'" + n + "' is a reserved word, not a value");
        else if (!quiet_names_.count(n))
            diags_.error(span_of(id), "unknown name '" + n + "'" + did_you_mean(n, names_in_scope()));
        return std::nullopt;
    }
    switch (it->second.kind) {
    case name_kind::parameter: return value::scalar(m_.p[it->second.index]);
    case name_kind::coordinate: return value::scalar(m_.q[it->second.index]);
    case name_kind::input: return value::scalar(m_.u[it->second.index]);
    case name_kind::let: return lets_[it->second.index]; // nullopt (an earlier error) cascades silently
    case name_kind::output:
        diags_.error(span_of(id), "'" + n + "' is an output; outputs cannot be used in expressions (use a let)");
        return std::nullopt;
    }
    return std::nullopt;
}


bool checker::real_constant(ex const& e, span where, std::string const& what) {
    if (has_symbol(e)) return true;
    ex v;
    try {
        v = e.evalf();
    } catch (std::exception const&) {
        v = e;
    }
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real()) {
        diags_.error(where, what + " is not a real number here (its arguments are constants outside its domain)");
        return false;
    }
    if (GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(v)) > GiNaC::numeric(std::numeric_limits<double>::max())) {
        diags_.error(where, what + " is a constant too large for a double");
        return false;
    }
    return true;
}



// Every expression evaluated (each reports its own errors); nullopt if any failed.
std::optional<std::vector<value>> checker::eval_all(std::vector<ast::expression> const& list) {
    std::vector<value> values;
    bool ok = true;
    for (auto const& e : list) {
        opt_value v = eval(e);
        if (!v) ok = false;
        else values.push_back(std::move(*v));
    }
    if (!ok) return std::nullopt;
    return values;
}

opt_value checker::eval_list(ast::bracket_list const& l) {
    if (l.elements.empty()) {
        diags_.error(span_of(l), "an empty vector has no meaning here");
        return std::nullopt;
    }
    auto evaluated = eval_all(l.elements);
    if (!evaluated) return std::nullopt;
    std::vector<value>& items = *evaluated;
    value const& first = items.front();
    if (first.shape == value::kind::matrix) {
        diags_.error(span_of(l.elements[0]), "a matrix cannot be an element of a vector or matrix");
        return std::nullopt;
    }
    for (std::size_t i = 1; i < items.size(); ++i)
        if (items[i].shape != first.shape || items[i].rows != first.rows) {
            diags_.error(span_of(l.elements[i]), "this element is " + items[i].describe() + " but the first is " +
                                                     first.describe() + "; all elements must have one shape");
            return std::nullopt;
        }
    value r;
    if (first.shape == value::kind::scalar) {
        r = {value::kind::vector, items.size(), 1, {}};
        for (auto& v : items) r.elems.push_back(v.elems[0]);
    } else {
        r = {value::kind::matrix, items.size(), first.rows, {}};
        for (auto& v : items)
            for (auto& e : v.elems) r.elems.push_back(e);
    }
    return r;
}

std::optional<long> checker::constant_index(ast::expression const& e) {
    opt_value v = eval(e);
    if (!v) return std::nullopt;
    if (v->shape != value::kind::scalar || !GiNaC::is_exactly_a<GiNaC::numeric>(v->elems[0]) ||
        !GiNaC::ex_to<GiNaC::numeric>(v->elems[0]).is_integer()) {
        diags_.error(span_of(e), "an index must be a constant whole number");
        return std::nullopt;
    }
    auto const& n = GiNaC::ex_to<GiNaC::numeric>(v->elems[0]);
    if (n > max_index || n < -max_index) {
        diags_.error(span_of(e), "index " + clipped_text(n) + " is out of range (no vector or matrix has more than " +
                                     std::to_string(max_index) + " elements)");
        return std::nullopt;
    }
    return n.to_long();
}

opt_value checker::eval_subscript(ast::subscript const& s) {
    opt_value v = eval(s.base);
    for (auto const& idx : s.indices) {
        std::optional<long> i = constant_index(idx);
        if (!v || !i) return std::nullopt;
        if (v->shape == value::kind::scalar) {
            diags_.error(span_of(idx), "a scalar cannot be indexed");
            return std::nullopt;
        }
        std::size_t n = v->rows;
        if (*i < 0 || static_cast<std::size_t>(*i) >= n) {
            diags_.error(span_of(idx), "index " + std::to_string(*i) + " is out of range for " + v->describe() +
                                           " (indices run from 0 to " + std::to_string(n - 1) + ")");
            return std::nullopt;
        }
        std::size_t k = static_cast<std::size_t>(*i);
        if (v->shape == value::kind::vector) {
            v = value::scalar(v->elems[k]);
        } else {
            value row{value::kind::vector, v->cols, 1, {}};
            for (std::size_t j = 0; j < v->cols; ++j) row.elems.push_back(v->elems[k * v->cols + j]);
            v = row;
        }
    }
    return v;
}

// ---- operators ----------------------------------------------------------------

opt_value checker::binary(char op, value const& a, value const& b, span where) {
    switch (op) {
    case '+':
    case '-': return add(op, a, b, where);
    case '*':
    case '/':
    case '^': {
        opt_value r = op == '*' ? multiply(a, b, where) : op == '/' ? divide(a, b, where) : power(a, b, where);
        if (r && !constant_factors_fit(*r, where)) return std::nullopt;
        return r;
    }
    }
    return std::nullopt;
}

namespace {
opt_value mismatch(diagnostics& diags, std::string const& what, value const& a, value const& b, span where) {
    diags.error(where, "cannot " + what + " " + a.describe() + " and " + b.describe());
    return std::nullopt;
}
} // namespace

opt_value checker::add(char op, value const& a, value const& b, span where) {
    if (a.shape != b.shape || a.rows != b.rows || a.cols != b.cols)
        return mismatch(diags_, op == '+' ? "add" : "subtract", a, b, where);
    value r = a;
    for (std::size_t i = 0; i < r.size(); ++i) r.elems[i] = op == '+' ? a.elems[i] + b.elems[i] : a.elems[i] - b.elems[i];
    record_transport(r, a);
    if (op == '+') record_transport(r, b);
    if (r.shape == value::kind::vector && r.rows == 3 && m_.origins.size() < 4096 && depends_on(r, m_.q) &&
        !depends_on(r, m_.qd) && !depends_on(r, m_.u))
        m_.origins.push_back(r.elems);
    return r;
}

// r = X u + (something) where `part` was X u: r is recorded as a transport of u too.
void checker::record_transport(value const& r, value const& part) {
    if (part.shape != value::kind::vector || part.rows != 3) return;
    for (auto it = m_.transports.rbegin(); it != m_.transports.rend() && it - m_.transports.rbegin() < 64; ++it)
        if (it->result[0].is_equal(part.elems[0]) && it->result[1].is_equal(part.elems[1]) &&
            it->result[2].is_equal(part.elems[2])) {
            model::transport t = *it;
            t.result = r.elems;
            m_.transports.push_back(std::move(t));
            return;
        }
}

// A 3×3 matrix of q (and parameters), once: a candidate rotation matrix (model::frames).
void checker::record_frame(value const& f) {
    if (m_.frames.size() >= 4096 || depends_on(f, m_.qd) || depends_on(f, m_.u) || !depends_on(f, m_.q)) return;
    for (auto it = m_.frames.rbegin(); it != m_.frames.rend() && it - m_.frames.rbegin() < 64; ++it)
        if (std::equal(it->begin(), it->end(), f.elems.begin(), [](ex const& x, ex const& y) { return x.is_equal(y); }))
            return;
    m_.frames.push_back(f.elems);
}

// Scalar × anything scales; matrix × vector and matrix × matrix are matrix products.
opt_value checker::multiply(value const& a, value const& b, span where) {
    using k = value::kind;
    if (a.shape == k::scalar || b.shape == k::scalar) {
        value r = a.shape == k::scalar ? b : a;
        ex s = a.shape == k::scalar ? a.elems[0] : b.elems[0];
        for (auto& e : r.elems) e = a.shape == k::scalar ? s * e : e * s;
        return r;
    }
    if (a.shape == k::vector && b.shape == k::vector) {
        diags_.error(where, "cannot multiply two vectors: use dot(a, b) or cross(a, b)");
        return std::nullopt;
    }
    if (a.shape != k::matrix || a.cols != b.rows) return mismatch(diags_, "multiply", a, b, where);
    std::size_t n = b.shape == k::vector ? 1 : b.cols;
    // Checked before multiplying: the product's size is rows × n sums of cols terms.
    if (double(a.rows) * double(n) * double(a.cols) > double(limits_.max_terms)) {
        diags_.error(where, "this product of " + a.describe() + " and " + b.describe() + " takes " +
                                std::to_string(a.rows * n * a.cols) + " multiplications, more than the " +
                                std::to_string(limits_.max_terms) + " an expression may have (--max-terms)");
        return std::nullopt;
    }
    value r{b.shape == k::vector ? k::vector : k::matrix, a.rows, n, {}};
    for (std::size_t i = 0; i < a.rows; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            ex s = 0;
            for (std::size_t l = 0; l < a.cols; ++l) s += a.elems[i * a.cols + l] * b.elems[l * n + j];
            r.elems.push_back(s);
        }
    if (b.shape == k::vector && a.rows == 3 && a.cols == 3 && depends_on(b, m_.qd) && !depends_on(a, m_.qd))
        m_.transports.push_back({r.elems, a.elems, b.elems});
    for (value const* f : {&a, &b, static_cast<value const*>(&r)})
        if (f->shape == k::matrix && f->rows == 3 && f->cols == 3) record_frame(*f);
    return r;
}

opt_value checker::divide(value const& a, value const& b, span where) {
    if (b.shape != value::kind::scalar) return mismatch(diags_, "divide", a, b, where);
    if (b.elems[0].is_zero()) {
        diags_.error(where, "division by zero");
        return std::nullopt;
    }
    if (!divisor_is_not_zero(b.elems[0], where)) return std::nullopt;
    value r = a;
    for (auto& e : r.elems) e = e / b.elems[0];
    return r;
}

opt_value checker::power(value const& a, value const& b, span where) {
    if (a.shape != value::kind::scalar || b.shape != value::kind::scalar)
        return mismatch(diags_, "raise to a power", a, b, where);
    ex const& base = a.elems[0];
    ex const& exponent = b.elems[0];
    if (base.is_zero() && GiNaC::is_exactly_a<GiNaC::numeric>(exponent) && !GiNaC::ex_to<GiNaC::numeric>(exponent).is_positive()) {
        diags_.error(where, "zero raised to a power that is not positive");
        return std::nullopt;
    }
    if (GiNaC::is_exactly_a<GiNaC::numeric>(exponent)) {
        auto const& e = GiNaC::ex_to<GiNaC::numeric>(exponent);
        if (GiNaC::is_exactly_a<GiNaC::numeric>(base)) {
            double bits = static_cast<double>(numeric_bits(GiNaC::ex_to<GiNaC::numeric>(base)));
            if (GiNaC::abs(e) > max_exponent || bits * GiNaC::abs(e).to_double() > 100000) {
                diags_.error(where, "this power of a constant is too large for exact arithmetic");
                return std::nullopt;
            }
        } else if (!e.is_rational() || GiNaC::abs(e.numer()) > max_exponent || e.denom() > max_exponent) {
            diags_.error(where, "the exponent " + clipped_text(e) + " is out of range: a numeric exponent p/q "
                                "needs |p| and q of at most " + std::to_string(max_exponent));
            return std::nullopt;
        }
    }
    ex r = GiNaC::pow(base, exponent);
    if (!real_constant(r, where, "this power")) return std::nullopt;
    return value::scalar(r);
}

} // namespace lagc::checking

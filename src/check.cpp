// Stage 2: name resolution, shapes, der() by the chain rule, built-ins and the rules of
// each statement, with errors at the offending token.
#include "check.hpp"

#include "chain_rule.hpp"
#include "cxx_names.hpp"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace lagc {

using GiNaC::ex;
namespace x3 = boost::spirit::x3;

std::string value::describe() const {
    switch (shape) {
    case kind::scalar: return "a scalar";
    case kind::vector: return "a " + std::to_string(rows) + "-vector";
    case kind::matrix: return "a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix";
    }
    return "a value";
}

namespace {

char const* const statement_keywords[] = {"model",      "parameter",   "coordinate", "input",  "let",
                                          "kinetic",    "potential",   "lagrangian", "dissipation",
                                          "force",      "torque",      "constraint", "baumgarte",
                                          "output",     "on",          "at"};
char const* const builtin_functions[] = {"sin",  "cos",  "tan",   "asin", "acos",      "atan", "atan2",
                                         "sinh", "cosh", "tanh",  "exp",  "log",       "sqrt", "der",
                                         "dot",  "cross", "norm", "rot",  "transpose", "rotx", "roty",
                                         "rotz"};
template <std::size_t N>
bool in(char const* const (&words)[N], std::string const& s) {
    for (auto w : words)
        if (s == w) return true;
    return false;
}


template <class Node>
span span_of(Node const& n) {
    return {static_cast<std::size_t>(std::max(0, n.id_first)), static_cast<std::size_t>(std::max(0, n.id_last))};
}

struct builtin_info {
    char const* name;
    int arity;
};
builtin_info const builtins[] = {{"sin", 1},  {"cos", 1},  {"tan", 1},   {"asin", 1}, {"acos", 1},
                                 {"atan", 1}, {"atan2", 2}, {"sinh", 1}, {"cosh", 1}, {"tanh", 1},
                                 {"exp", 1},  {"log", 1},  {"sqrt", 1},  {"der", 1},  {"dot", 2},
                                 {"cross", 2}, {"norm", 1}, {"rot", 1},  {"rotx", 1}, {"roty", 1},
                                 {"rotz", 1}, {"transpose", 1}};

using opt_value = std::optional<value>;

// Expressions share subtrees, so a few lets can describe a tree far larger than the file;
// derivation walks trees. Counting stops at the cap, so this costs at most cap steps.
// Depth matters too: chains of lets nest deeper than any line, and GiNaC recurses.
std::size_t const max_tree_depth = 1000;
long const max_index = 1000000;
// Numeric exponents of expressions: x^1000 is ten multiplications, but GiNaC multiplies
// out powers of products and of constants exactly ((2x)^n = 2^n x^n), so an exponent of
// 10^12 would build a number of 10^12 bits before anything else could stop it.
long const max_exponent = 1000;

// The decimal text of a number, shortened in the middle when long (messages stay short).
std::string clipped_text(GiNaC::numeric const& n) {
    std::ostringstream s;
    s << n;
    std::string t = s.str();
    if (t.size() > 24) t = t.substr(0, 10) + "..." + t.substr(t.size() - 10) + " (" + std::to_string(t.size()) + " characters)";
    return t;
}

bool has_symbol(ex const& e) {
    if (GiNaC::is_a<GiNaC::symbol>(e)) return true;
    for (std::size_t i = 0; i < e.nops(); ++i)
        if (has_symbol(e.op(i))) return true;
    return false;
}
std::size_t const max_number_bits = 4096;
std::size_t numeric_bits(GiNaC::numeric const& n) {
    if (!n.is_rational()) return 0;
    return static_cast<std::size_t>(n.numer().int_length() + n.denom().int_length());
}
bool larger_than(ex const& e, std::size_t& budget, std::size_t depth) {
    if (budget == 0 || depth > max_tree_depth) return true;
    if (GiNaC::is_a<GiNaC::numeric>(e) && numeric_bits(GiNaC::ex_to<GiNaC::numeric>(e)) > max_number_bits) return true;
    --budget;
    for (std::size_t i = 0; i < e.nops(); ++i)
        if (larger_than(e.op(i), budget, depth + 1)) return true;
    return false;
}
bool too_large(value const& v, std::size_t max_terms) {
    std::size_t budget = max_terms;
    for (auto const& e : v.elems)
        if (larger_than(e, budget, 0)) return true;
    return false;
}

// The identifier an expression consists of, through the single-operand layers the
// precedence levels of the grammar wrap around it; nullptr for anything else.
ast::identifier const* bare_identifier(ast::operand const& o);
ast::identifier const* bare_identifier(ast::expression const& e) {
    return e.rest.empty() ? bare_identifier(e.first) : nullptr;
}
ast::identifier const* bare_identifier(ast::operand const& o) {
    if (auto const* id = boost::get<ast::identifier>(&o)) return id;
    if (auto const* e = boost::get<x3::forward_ast<ast::expression>>(&o)) return bare_identifier(e->get());
    if (auto const* sub = boost::get<x3::forward_ast<ast::subscript>>(&o))
        return sub->get().indices.empty() ? bare_identifier(sub->get().base) : nullptr;
    return nullptr;
}

class checker {
public:
    checker(source_file const& file, diagnostics& diags, check_limits const& limits)
        : file_(file), diags_(diags), limits_(limits) {}

    std::optional<model> run(std::vector<parsed_statement> const& statements);

private:
    enum class name_kind { parameter, coordinate, input, let, output };
    struct name_entry {
        name_kind kind;
        std::size_t index;
        span where;
    };

    source_file const& file_;
    diagnostics& diags_;
    check_limits limits_;
    model m_;
    bool have_model_ = false;
    bool have_baumgarte_ = false;
    int nesting_ = 0; // depth of eval(expression) calls; the size limit is checked at 0
    std::map<std::string, name_entry> names_;
    std::vector<opt_value> lets_; // nullopt: the let had an error; uses stay silent

    // -- names ---------------------------------------------------------------
    bool declare(ast::identifier const& id, name_kind kind, std::size_t index);
    bool check_spelling(ast::identifier const& id, char const* what);

    // -- expressions ---------------------------------------------------------
    opt_value eval(ast::expression const& e);
    opt_value eval_levels(ast::expression const& e);
    opt_value eval(ast::operand const& o);
    std::optional<GiNaC::numeric> exact_number(ast::number const& n);
    opt_value eval_identifier(ast::identifier const& id);
    opt_value eval_call(ast::call const& c);
    ex scalar_function(std::string const& fn, ex const& a, ex const& b);
    opt_value eval_list(ast::bracket_list const& l);
    std::optional<std::vector<value>> eval_all(std::vector<ast::expression> const& list);
    opt_value eval_subscript(ast::subscript const& s);
    opt_value binary(char op, value const& a, value const& b, span where);
    std::optional<long> constant_index(ast::expression const& e);

    opt_value scalar_arg(value const& v, std::string const& fn, span where);
    // A value free of symbols must be a real number a double can hold (asin(2), sqrt(-2)
    // and exp(1000) are not); reports at `where` and returns false otherwise.
    bool real_constant(ex const& e, span where, std::string const& what);
    bool depends_on(ex const& e, std::vector<GiNaC::symbol> const& syms) const;
    bool depends_on(value const& v, std::vector<GiNaC::symbol> const& syms) const;

    // -- statements ----------------------------------------------------------
    void statement(ast::model_stmt const& s, span where);
    void statement(ast::declaration_stmt const& s, span where);
    void statement(ast::parameter_stmt const& s, span where);
    void statement(ast::definition_stmt const& s, span where);
    void statement(ast::energy_stmt const& s, span where);
    void statement(ast::force_stmt const& s, span where);
    void statement(ast::constraint_stmt const& s, span where);
    void statement(ast::baumgarte_stmt const& s, span where);
};

bool checker::depends_on(ex const& e, std::vector<GiNaC::symbol> const& syms) const {
    for (auto const& s : syms)
        if (e.has(s)) return true;
    return false;
}
bool checker::depends_on(value const& v, std::vector<GiNaC::symbol> const& syms) const {
    for (auto const& e : v.elems)
        if (depends_on(e, syms)) return true;
    return false;
}

bool checker::check_spelling(ast::identifier const& id, char const* what) {
    std::string const& n = id.name;
    if (is_reserved_word(n)) {
        std::string why = is_cxx_keyword(n)        ? "a C++ keyword"
                          : in(builtin_functions, n) ? "a built-in function"
                          : n == "t"                  ? "the time variable"
                          : n == "pi"                 ? "the constant pi"
                                                      : "a statement keyword";
        diags_.error(span_of(id), "'" + n + "' is " + why + " and cannot be used as " + what + " name");
        return false;
    }
    if (n.find("__") != std::string::npos ||
        (n.size() > 1 && n[0] == '_' && std::isupper(static_cast<unsigned char>(n[1])))) {
        diags_.error(span_of(id), "'" + n + "' is reserved in C++ (double underscore, or underscore and capital)");
        return false;
    }
    // Parameters are fields of Parameters in the generated code: a macro of <cmath> would
    // replace the name there. (Coordinates, inputs and lets never appear in it.)
    if (std::string(what) == "a parameter") {
        if (std::string why = cxx_name_problem(n, cxx_name_use::field); !why.empty()) {
            diags_.error(span_of(id), "'" + n + "' is " + why + " and cannot be a parameter name in the generated C++; "
                                      "choose another name");
            return false;
        }
    }
    if (n.size() > 200) {
        diags_.error(span_of(id), "name is longer than 200 characters");
        return false;
    }
    return true;
}

bool checker::declare(ast::identifier const& id, name_kind kind, std::size_t index) {
    static char const* const kind_words[] = {"a parameter", "a coordinate", "an input", "a let", "an output"};
    if (!check_spelling(id, kind_words[static_cast<int>(kind)])) return false;
    auto [it, inserted] = names_.emplace(id.name, name_entry{kind, index, span_of(id)});
    if (!inserted) {
        auto prev = file_.locate(it->second.where.begin);
        diags_.error(span_of(id), "'" + id.name + "' is already declared as " +
                                      kind_words[static_cast<int>(it->second.kind)] + " at line " +
                                      std::to_string(prev.line) + ", column " + std::to_string(prev.column));
        return false;
    }
    return true;
}

// ---- expressions -------------------------------------------------------------

opt_value checker::eval(ast::expression const& e) {
    ++nesting_;
    opt_value r = eval_levels(e);
    --nesting_;
    if (nesting_ == 0 && r && too_large(*r, limits_.max_terms)) {
        diags_.error(span_of(e), "this expression grows past " + std::to_string(limits_.max_terms) + " terms, " +
                                     std::to_string(max_tree_depth) + " levels or " +
                                     std::to_string(max_number_bits) +
                                     "-bit constants once its names are substituted; simplify it (or raise the "
                                     "limit with --max-terms)");
        return std::nullopt;
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
            if (!v) return std::nullopt;
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
        if (in(builtin_functions, n))
            diags_.error(span_of(id), "'" + n + "' is a function: call it as " + n + "(...)");
        else if (is_cxx_keyword(n) || in(statement_keywords, n))
            diags_.error(span_of(id), "'" + n + "' is a reserved word, not a value");
        else
            diags_.error(span_of(id), "unknown name '" + n + "'");
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

opt_value checker::scalar_arg(value const& v, std::string const& fn, span where) {
    if (v.shape != value::kind::scalar) {
        diags_.error(where, fn + "() takes a scalar, not " + v.describe());
        return std::nullopt;
    }
    return v;
}

bool checker::real_constant(ex const& e, span where, std::string const& what) {
    if (has_symbol(e)) return true;
    ex v;
    try {
        v = e.evalf();
    } catch (std::exception const&) {
        v = e;
    }
    if (!GiNaC::is_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real()) {
        diags_.error(where, what + " is not a real number here (its arguments are constants outside its domain)");
        return false;
    }
    if (GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(v)) > GiNaC::numeric(std::numeric_limits<double>::max())) {
        diags_.error(where, what + " is a constant too large for a double");
        return false;
    }
    return true;
}

opt_value checker::eval_call(ast::call const& c) {
    std::string const& fn = c.function.name;
    builtin_info const* info = nullptr;
    for (auto const& b : builtins)
        if (fn == b.name) info = &b;
    if (!info) {
        auto it = names_.find(fn);
        if (it != names_.end() || fn == "t" || fn == "pi")
            diags_.error(span_of(c.function), "'" + fn + "' is not a function");
        else
            diags_.error(span_of(c.function), "unknown function '" + fn + "'");
        return std::nullopt;
    }
    if (static_cast<int>(c.arguments.size()) != info->arity) {
        diags_.error(span_of(c.function), fn + "() takes " + std::to_string(info->arity) + " argument" +
                                               (info->arity == 1 ? "" : "s") + ", not " +
                                               std::to_string(c.arguments.size()));
        return std::nullopt;
    }
    auto evaluated = eval_all(c.arguments);
    if (!evaluated) return std::nullopt;
    std::vector<value>& args = *evaluated;
    span where = span_of(c);
    span arg0 = span_of(c.arguments[0]);

    if (fn == "der") {
        value v = args[0];
        if (depends_on(v, m_.qd)) {
            diags_.error(arg0, "der() of an expression that already contains velocities would be an "
                               "acceleration; accelerations have no place in a model");
            return std::nullopt;
        }
        if (depends_on(v, m_.u)) {
            diags_.error(arg0, "der() of an input is not defined (inputs have no time derivative)");
            return std::nullopt;
        }
        // By the chain rule on the expression's structure: compact velocities (see chain_rule.hpp).
        std::vector<ex> rates(m_.qd.begin(), m_.qd.end());
        for (auto& e : v.elems) e = e.diff(m_.t) + directional_derivative(e, m_.q, rates);
        return v;
    }
    if (fn == "dot" || fn == "cross") {
        value const &a = args[0], &b = args[1];
        if (a.shape != value::kind::vector || b.shape != value::kind::vector || a.rows != b.rows ||
            (fn == "cross" && a.rows != 3)) {
            diags_.error(where, fn + "() takes two " + (fn == "cross" ? std::string("3-vectors") : "vectors of one length") +
                                    ", not " + a.describe() + " and " + b.describe());
            return std::nullopt;
        }
        if (fn == "dot") {
            ex s = 0;
            for (std::size_t i = 0; i < a.rows; ++i) s += a.elems[i] * b.elems[i];
            return value::scalar(s);
        }
        auto const &x = a.elems, &y = b.elems;
        return value{value::kind::vector, 3, 1,
                     {x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]}};
    }
    if (fn == "norm") {
        if (args[0].shape != value::kind::vector) {
            diags_.error(arg0, "norm() takes a vector, not " + args[0].describe());
            return std::nullopt;
        }
        ex s = 0;
        for (auto const& e : args[0].elems) s += e * e;
        return value::scalar(GiNaC::sqrt(s));
    }
    if (fn == "transpose") {
        value const& a = args[0];
        if (a.shape != value::kind::matrix) {
            diags_.error(arg0, "transpose() takes a matrix, not " + a.describe());
            return std::nullopt;
        }
        value r{value::kind::matrix, a.cols, a.rows, std::vector<ex>(a.size())};
        for (std::size_t i = 0; i < a.rows; ++i)
            for (std::size_t j = 0; j < a.cols; ++j) r.elems[j * a.rows + i] = a.elems[i * a.cols + j];
        return r;
    }
    for (std::size_t k = 0; k < args.size(); ++k)
        if (!scalar_arg(args[k], fn, span_of(c.arguments[k]))) return std::nullopt;
    ex a = args[0].elems[0];
    if (fn == "rot") {
        ex cs = GiNaC::cos(a), sn = GiNaC::sin(a);
        return value{value::kind::matrix, 2, 2, {cs, -sn, sn, cs}};
    }
    if (fn == "rotx" || fn == "roty" || fn == "rotz") {
        ex cs = GiNaC::cos(a), sn = GiNaC::sin(a);
        std::vector<ex> r;
        if (fn == "rotx") r = {1, 0, 0, 0, cs, -sn, 0, sn, cs};
        else if (fn == "roty") r = {cs, 0, sn, 0, 1, 0, -sn, 0, cs};
        else r = {cs, -sn, 0, sn, cs, 0, 0, 0, 1};
        return value{value::kind::matrix, 3, 3, r};
    }
    try {
        ex r = scalar_function(fn, a, args.size() > 1 ? args[1].elems[0] : ex(0));
        if (!real_constant(r, where, fn + "()")) return std::nullopt;
        return value::scalar(r);
    } catch (GiNaC::pole_error const&) {
        diags_.error(where, fn + "() is undefined here (a pole, such as log(0) or a division by zero)");
        return std::nullopt;
    }
}

ex checker::scalar_function(std::string const& fn, ex const& a, ex const& b) {
    ex r;
    if (fn == "sin") r = GiNaC::sin(a);
    else if (fn == "cos") r = GiNaC::cos(a);
    else if (fn == "tan") r = GiNaC::tan(a);
    else if (fn == "asin") r = GiNaC::asin(a);
    else if (fn == "acos") r = GiNaC::acos(a);
    else if (fn == "atan") r = GiNaC::atan(a);
    else if (fn == "atan2") r = GiNaC::atan2(a, b);
    else if (fn == "sinh") r = GiNaC::sinh(a);
    else if (fn == "cosh") r = GiNaC::cosh(a);
    else if (fn == "tanh") r = GiNaC::tanh(a);
    else if (fn == "exp") r = GiNaC::exp(a);
    else if (fn == "log") r = GiNaC::log(a);
    else if (fn == "sqrt") r = GiNaC::sqrt(a);
    return r;
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
    if (v->shape != value::kind::scalar || !GiNaC::is_a<GiNaC::numeric>(v->elems[0]) ||
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

opt_value checker::binary(char op, value const& a, value const& b, span where) {
    using k = value::kind;
    auto mismatch = [&](std::string const& what) -> opt_value {
        diags_.error(where, std::string("cannot ") + what + " " + a.describe() + " and " + b.describe());
        return std::nullopt;
    };
    switch (op) {
    case '+':
    case '-': {
        if (a.shape != b.shape || a.rows != b.rows || a.cols != b.cols)
            return mismatch(op == '+' ? "add" : "subtract");
        value r = a;
        for (std::size_t i = 0; i < r.size(); ++i) r.elems[i] = op == '+' ? a.elems[i] + b.elems[i] : a.elems[i] - b.elems[i];
        return r;
    }
    case '*': {
        if (a.shape == k::scalar || b.shape == k::scalar) {
            value r = a.shape == k::scalar ? b : a;
            ex s = a.shape == k::scalar ? a.elems[0] : b.elems[0];
            for (auto& e : r.elems) e = a.shape == k::scalar ? s * e : e * s;
            return r;
        }
        if (a.shape == k::matrix && a.cols == b.rows) {
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
            return r;
        }
        if (a.shape == k::vector && b.shape == k::vector) {
            diags_.error(where, "cannot multiply two vectors: use dot(a, b) or cross(a, b)");
            return std::nullopt;
        }
        return mismatch("multiply");
    }
    case '/': {
        if (b.shape != k::scalar) return mismatch("divide");
        if (b.elems[0].is_zero()) {
            diags_.error(where, "division by zero");
            return std::nullopt;
        }
        value r = a;
        for (auto& e : r.elems) e = e / b.elems[0];
        return r;
    }
    case '^': {
        if (a.shape != k::scalar || b.shape != k::scalar) return mismatch("raise to a power");
        if (a.elems[0].is_zero() && GiNaC::is_a<GiNaC::numeric>(b.elems[0]) &&
            !GiNaC::ex_to<GiNaC::numeric>(b.elems[0]).is_positive()) {
            diags_.error(where, "zero raised to a power that is not positive");
            return std::nullopt;
        }
        if (GiNaC::is_a<GiNaC::numeric>(b.elems[0])) {
            auto const& e = GiNaC::ex_to<GiNaC::numeric>(b.elems[0]);
            if (GiNaC::is_a<GiNaC::numeric>(a.elems[0])) {
                double bits = static_cast<double>(numeric_bits(GiNaC::ex_to<GiNaC::numeric>(a.elems[0])));
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
        ex r = GiNaC::pow(a.elems[0], b.elems[0]);
        if (!real_constant(r, where, "this power")) return std::nullopt;
        return value::scalar(r);
    }
    }
    return std::nullopt;
}

// ---- statements --------------------------------------------------------------

void checker::statement(ast::model_stmt const& s, span where) {
    if (have_model_) {
        diags_.error(where, "a model has one 'model' statement; this is a second one");
        return;
    }
    have_model_ = true;
    m_.model_span = where;
    if (!check_spelling(s.name, "a model")) return;
    if (std::string why = cxx_name_problem(s.name.name, cxx_name_use::namespace_); !why.empty()) {
        diags_.error(span_of(s.name), "'" + s.name.name + "' cannot be a model name: it is " + why +
                                          ", and the model's name is the generated namespace; choose another name");
        return;
    }
    m_.name = s.name.name;
}

void checker::statement(ast::declaration_stmt const& s, span) {
    bool coordinate = s.keyword == "coordinate";
    for (auto const& id : s.names) {
        auto& list = coordinate ? m_.coordinates : m_.inputs;
        if (list.size() >= limits_.max_coordinates) {
            diags_.error(span_of(id), std::string("a model may have at most ") + std::to_string(limits_.max_coordinates) +
                                          (coordinate ? " coordinates" : " inputs") +
                                          " (derivation grows with the cube of their number; --max-coordinates raises it)");
            return;
        }
        if (!declare(id, coordinate ? name_kind::coordinate : name_kind::input, list.size())) continue;
        list.push_back(id.name);
        if (coordinate) {
            m_.coordinate_spans.push_back(span_of(id));
            std::string const index = std::to_string(m_.q.size());
            m_.q.emplace_back(std::string("q").append(index));
            m_.qd.emplace_back(std::string("qd").append(index));
        } else {
            m_.u.emplace_back(std::string("u").append(std::to_string(m_.u.size())));
        }
    }
}

void checker::statement(ast::parameter_stmt const& s, span) {
    for (auto const& d : s.decls) {
        if (!declare(d.name, name_kind::parameter, m_.parameters.size())) continue;
        // Registered whatever its default: the name is declared, so uses of it must find a
        // symbol (an error below already stops the compilation).
        parameter_def p{d.name.name, 0.0, 0, span_of(d.name)};
        m_.p.emplace_back("p_" + d.name.name);
        if (d.value) {
            if (auto exact = exact_number(*d.value)) {
                p.exact_value = *exact;
                p.default_value = std::strtod(d.value->text.c_str(), nullptr);
                if (!std::isfinite(p.default_value))
                    diags_.error(span_of(*d.value), "default value '" + d.value->text + "' does not fit in a double");
            }
        }
        m_.parameters.push_back(p);
    }
}

void checker::statement(ast::definition_stmt const& s, span where) {
    opt_value v = eval(s.value);
    if (s.keyword == "let") {
        // Declare even when the value failed, so later uses do not cascade into "unknown name".
        if (!declare(s.name, name_kind::let, lets_.size())) return;
        lets_.push_back(v);
        return;
    }
    if (!declare(s.name, name_kind::output, m_.outputs.size())) return;
    if (!v) return;
    if (depends_on(*v, m_.u)) {
        diags_.error(span_of(s.value), "an output may depend on coordinates, velocities, parameters and t, not on inputs");
        return;
    }
    m_.outputs.push_back({s.name.name, *v, where});
}

void checker::statement(ast::energy_stmt const& s, span) {
    opt_value v = eval(s.value);
    if (!v) return;
    span at = span_of(s.value);
    if (v->shape != value::kind::scalar) {
        diags_.error(at, s.keyword + " takes a scalar, not " + v->describe());
        return;
    }
    if (depends_on(*v, m_.u)) {
        diags_.error(at, "the " + s.keyword + " term depends on an input; inputs enter through 'force ... on'");
        return;
    }
    ex e = v->elems[0];
    if (s.keyword == "kinetic") m_.kinetic += e;
    else if (s.keyword == "potential") {
        if (depends_on(e, m_.qd)) {
            diags_.error(at, "a potential may not depend on velocities; write velocity-dependent potentials "
                             "with 'lagrangian'");
            return;
        }
        m_.potential += e;
    } else if (s.keyword == "lagrangian") {
        m_.lagrangian += e;
        m_.has_lagrangian_terms = true;
    } else {
        m_.dissipation += e;
    }
}

void checker::statement(ast::force_stmt const& s, span where) {
    opt_value v = eval(s.value);
    force_def f;
    f.where = where;
    if (s.mode == "on") {
        if (s.keyword == "torque") {
            diags_.error(span_of(s.target), "a torque acts 'at' an angular velocity: torque VEC at OMEGA");
            return;
        }
        // The target must be a bare coordinate name.
        ast::identifier const* id = bare_identifier(s.target);
        auto it = id ? names_.find(id->name) : names_.end();
        if (!id || it == names_.end() || it->second.kind != name_kind::coordinate) {
            diags_.error(span_of(s.target), "'force ... on' needs a coordinate name after 'on'" +
                                                (id ? std::string(", and '") + id->name + "' is not a coordinate" : ""));
            return;
        }
        if (!v) return;
        if (v->shape != value::kind::scalar) {
            diags_.error(span_of(s.value), "a force on a coordinate is a scalar, not " + v->describe() +
                                               " (use 'force VEC at POINT' for a force vector)");
            return;
        }
        f.type = force_def::kind::on_coordinate;
        f.coordinate = it->second.index;
        f.vec = *v;
        m_.forces.push_back(std::move(f));
        return;
    }
    opt_value target = eval(s.target);
    if (!v || !target) return;
    bool torque = s.keyword == "torque";
    if (v->shape == value::kind::matrix || v->shape != target->shape || v->rows != target->rows) {
        diags_.error(span_of(s.value), "the " + s.keyword + " is " + v->describe() + " but the " +
                                           (torque ? "angular velocity" : "point") + " is " + target->describe() +
                                           "; they must have the same size");
        return;
    }
    if (!torque && depends_on(*target, m_.qd)) {
        diags_.error(span_of(s.target), "the point a force acts at is a position; it may not depend on velocities");
        return;
    }
    if (depends_on(*target, m_.u)) {
        diags_.error(span_of(s.target), std::string("the ") + (torque ? "angular velocity" : "point") +
                                            " may not depend on inputs");
        return;
    }
    f.type = torque ? force_def::kind::torque : force_def::kind::at_point;
    f.vec = *v;
    f.target = *target;
    m_.forces.push_back(std::move(f));
}

void checker::statement(ast::constraint_stmt const& s, span where) {
    opt_value lhs = eval(s.lhs);
    opt_value rhs = s.rhs ? eval(*s.rhs) : opt_value(value::scalar(0));
    if (!lhs || !rhs) return;
    value r = *lhs;
    if (s.rhs) {
        if (lhs->shape != rhs->shape || lhs->rows != rhs->rows || lhs->cols != rhs->cols) {
            diags_.error(where, "the two sides of the constraint differ in shape: " + lhs->describe() + " and " +
                                    rhs->describe());
            return;
        }
        for (std::size_t i = 0; i < r.size(); ++i) r.elems[i] = lhs->elems[i] - rhs->elems[i];
    }
    if (r.shape == value::kind::matrix) {
        diags_.error(where, "a constraint is a scalar or a vector of rows, not " + r.describe());
        return;
    }
    if (depends_on(r, m_.u)) {
        diags_.error(where, "a constraint may not depend on inputs");
        return;
    }
    for (ex const& e : r.elems) {
        constraint_def c{e, true, where};
        if (depends_on(e, m_.qd)) {
            c.holonomic = false;
            // Affine in q̇: every second derivative with respect to velocities vanishes.
            bool affine = true;
            for (auto const& a : m_.qd)
                for (auto const& b : m_.qd)
                    if (!e.diff(a).diff(b).expand().is_zero()) affine = false;
            if (!affine) {
                diags_.error(where, "this velocity constraint is not affine in the velocities (A(q,t) q' + a0(q,t) = 0); "
                                    "lagc handles holonomic and Pfaffian constraints only");
                return;
            }
        }
        m_.constraints.push_back(std::move(c));
    }
}

void checker::statement(ast::baumgarte_stmt const& s, span where) {
    if (have_baumgarte_) {
        diags_.error(where, "a second 'baumgarte' statement; give both gains in one");
        return;
    }
    have_baumgarte_ = true;
    std::set<std::string> seen;
    for (auto const& a : s.arguments) {
        std::string const& n = a.name.name;
        if (n != "alpha" && n != "beta") {
            diags_.error(span_of(a.name), "unknown gain '" + n + "'; baumgarte takes alpha and beta");
            continue;
        }
        if (!seen.insert(n).second) {
            diags_.error(span_of(a.name), "'" + n + "' is given twice");
            continue;
        }
        opt_value v = eval(a.value);
        if (!v) continue;
        if (v->shape != value::kind::scalar) {
            diags_.error(span_of(a.value), "a gain is a scalar, not " + v->describe());
            continue;
        }
        ex e = v->elems[0];
        if (depends_on(e, m_.q) || depends_on(e, m_.qd) || depends_on(e, m_.u) || e.has(m_.t)) {
            diags_.error(span_of(a.value), "Baumgarte gains are expressions of parameters only; this one depends on "
                                           "the state, the inputs or t");
            continue;
        }
        (n == "alpha" ? m_.alpha : m_.beta) = e;
    }
}

std::optional<model> checker::run(std::vector<parsed_statement> const& statements) {
    bool first = true;
    for (auto const& st : statements) {
        if (first && !boost::get<ast::model_stmt>(&st.node)) {
            diags_.error(st.where, "a model starts with 'model NAME'");
            have_model_ = true; // report once
        }
        first = false;
        try {
            boost::apply_visitor([&](auto const& s) { statement(s, st.where); }, st.node);
        } catch (GiNaC::pole_error const&) {
            diags_.error(st.where, "division by zero or log(0) in this statement");
        } catch (std::exception const& e) {
            diags_.error(st.where, std::string("this statement cannot be evaluated: ") + e.what());
        }
    }
    if (statements.empty()) diags_.error({0, 0}, "the model is empty; it starts with 'model NAME'");
    else if (m_.q.empty() && !diags_.has_errors())
        diags_.error(statements.front().where, "the model declares no coordinate");
    if (diags_.has_errors()) return std::nullopt;
    return std::move(m_);
}

} // namespace

bool is_reserved_word(std::string const& name) {
    return in(statement_keywords, name) || in(builtin_functions, name) || is_cxx_keyword(name) || name == "t" ||
           name == "pi";
}

std::optional<model> check(std::vector<parsed_statement> const& statements, source_file const& file,
                           diagnostics& diags, check_limits const& limits) {
    return checker(file, diags, limits).run(statements);
}

} // namespace lagc

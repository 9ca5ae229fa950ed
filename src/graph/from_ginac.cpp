// GiNaC expressions into the expression DAG (expression_graph.hpp): sums, products and powers as
// nodes, with numbers gathered into each product's coefficient, signs hoisted, and every
// sum that is a factor of a product at its natural scale (unit_scaled). The DAG itself,
// its canonical order and printing: expression_graph.cpp.
#include "builtins.hpp"
#include "graph/expression_graph.hpp"
#include "symbolic/simplify.hpp"

#include <cmath>
#include <stdexcept>

namespace lagc {

std::pair<int, bool> expression_graph::convert_signed(GiNaC::ex const& e) {
    using namespace GiNaC;
    if (is_exactly_a<numeric>(e)) {
        numeric const& v = ex_to<numeric>(e);
        if (v.is_real() && v.is_negative()) return {number(-v), true};
        return {number(v), false};
    }
    // A product with a negative number becomes a negation (make_mul), which make_add takes
    // into the term's sign: no −e built in GiNaC.
    return {convert(e), false};
}

// The term t · scale of a sum, as convert_signed gives it, built without t · scale in GiNaC.
std::pair<int, bool> expression_graph::convert_scaled_term(GiNaC::ex const& t, GiNaC::numeric const& scale) {
    using namespace GiNaC;
    if (scale == 1) return convert_signed(t);
    if (is_exactly_a<numeric>(t)) return convert_signed(ex_to<numeric>(t) * scale);
    if (is_exactly_a<mul>(t)) return {convert_product(t, scale), false};
    std::vector<std::pair<int, bool>> factors;
    numeric coefficient = scale;
    product_factor(t, coefficient, factors);
    return {product_with(std::move(factors), coefficient), false};
}

// The term rest · coeff of a sum (a pair of sum_terms), times scale: rest is never a
// number, so this is convert_scaled_term(sum.op(i), scale) without building and
// evaluating the product rest · coeff (op(i) does that at every call).
std::pair<int, bool> expression_graph::convert_term(GiNaC::expair const& p, GiNaC::numeric const& scale) {
    return convert_scaled_term(p.rest, times(scale, GiNaC::ex_to<GiNaC::numeric>(p.coeff)));
}

// GiNaC keeps every sum that is a factor of a product, or raised to a power, with its
// integer content taken out: ½ m (0.52 x + y)(0.52 z + w) is kept as m/1250 (13 x + 25 y)
// (13 z + 25 w). Converted that way, such a sum would be a second node beside the same sum
// elsewhere, with a multiplication in most of its terms. So a factor b is converted as
// k · (b/k) with most of b/k's coefficients ±1 (unit_scaled), and k joins the product's
// number; (k, node of b/k), cached per GiNaC object.
namespace {

// n of bⁿ with b a sum and n a non-zero integer in [−16, 16], small enough that the scale
// kⁿ stays a double; 0 for anything else. A negative n is a denominator that GiNaC keeps,
// like a factor, with its integer content taken out (1/D of the articulated-body algorithm).
long small_power_of_sum(GiNaC::ex const& e) {
    using namespace GiNaC;
    if (!is_exactly_a<power>(e) || !is_exactly_a<add>(e.op(0)) || !is_exactly_a<numeric>(e.op(1))) return 0;
    numeric const& n = ex_to<numeric>(e.op(1));
    return n.is_integer() && abs(n) <= 16 ? n.to_long() : 0;
}

// Whether kⁿ, the scale of the power e = bⁿ, is a finite, non-zero double.
bool scale_fits(GiNaC::numeric const& k, GiNaC::ex const& e) {
    double const v = GiNaC::pow(k, GiNaC::ex_to<GiNaC::numeric>(e.op(1))).to_double();
    return std::isfinite(v) && v != 0;
}

} // namespace

std::pair<GiNaC::numeric, int> expression_graph::convert_unit_scaled(GiNaC::ex const& sum) {
    GiNaC::basic const* key = &GiNaC::ex_to<GiNaC::basic>(sum);
    if (auto it = unit_scaled_.find(key); it != unit_scaled_.end()) return it->second;
    // The scales the terms' own sums bring count with their coefficients (unit_scale's
    // `nested`): otherwise a sum of squares of sums at scale 10⁻¹⁷ is converted at scale 1,
    // each square then carries 10³⁴, and the product outside 5·10⁻³⁵ (a multiplication more
    // per term, and ½ no longer exact: 5e-35 * 1e+34 is not 0.5 in doubles).
    auto const nested = [this](GiNaC::ex const& rest) {
        GiNaC::numeric k = 1;
        if (GiNaC::is_exactly_a<GiNaC::mul>(rest)) {
            // Read off the product's pairs: rest.op(i) builds a power for every pair whose
            // exponent is not 1 (sin(q)², each time), and only a sum's power has a scale.
            for (auto const& p : sum_terms::pairs(GiNaC::ex_to<GiNaC::mul>(rest)))
                if (auto const s = pair_scale(p)) k = times(k, *s);
        } else if (auto const s = scaled_sum_factor(rest)) {
            k = s->scale;
        }
        return k;
    };
    GiNaC::numeric k = 1;
    if (options_.scales == codegen_options::sum_scales::unit) k = unit_scale(sum, nested);
    else if (options_.scales == codegen_options::sum_scales::decimal) k = decimal_scale(sum, nested);
    // k itself may be past the doubles (a sum whose integer coefficients have 120 digits,
    // the content of products of 16-digit rotations taken out beside it): it is never
    // printed, only joined exactly to the numbers of the products around the sum, which is
    // what keeps those numbers within the scalar type. (A bound of 10^±100 here, for the
    // articulated-body algorithm's nested sums before they took no scales, left such sums
    // with coefficients of 10^338: random robot files, and ANYmal C in float, were refused;
    // issue 46.)
    int id;
    if (k == 1) {
        id = convert(sum);
    } else {
        std::vector<std::pair<int, bool>> terms;
        GiNaC::numeric const scale = GiNaC::numeric(1) / k;
        GiNaC::add const& a = GiNaC::ex_to<GiNaC::add>(sum);
        for (auto const& p : sum_terms::pairs(a)) terms.push_back(convert_term(p, scale));
        if (GiNaC::ex const& c = sum_terms::constant(a); !c.is_zero()) terms.push_back(convert_scaled_term(c, scale));
        id = make_add(std::move(terms));
    }
    std::pair<GiNaC::numeric, int> out{k, id};
    keep_alive_.push_back(sum);
    unit_scaled_.emplace(key, out);
    return out;
}

// The scale scaled_sum_factor gives the factor rest^coeff of a product (a pair of its
// sum_terms), without building the power.
std::optional<GiNaC::numeric> expression_graph::pair_scale(GiNaC::expair const& p) {
    using namespace GiNaC;
    if (!is_exactly_a<GiNaC::add>(p.rest)) return std::nullopt;
    numeric const& n = ex_to<numeric>(p.coeff);
    if (n.is_equal(1)) return convert_unit_scaled(p.rest).first;
    if (!n.is_integer() || abs(n) > 16) return std::nullopt;
    numeric const scale = pow(convert_unit_scaled(p.rest).first, n);
    double const v = scale.to_double();
    if (!std::isfinite(v) || v == 0) return std::nullopt;
    return scale;
}

std::optional<expression_graph::scaled_sum> expression_graph::scaled_sum_factor(GiNaC::ex const& f) {
    using namespace GiNaC;
    if (is_exactly_a<GiNaC::add>(f)) {
        auto const [k, id] = convert_unit_scaled(f);
        return scaled_sum{k, id, 1};
    }
    long const n = small_power_of_sum(f);
    if (n == 0) return std::nullopt;
    auto const [k, id] = convert_unit_scaled(f.op(0));
    if (!scale_fits(k, f)) return std::nullopt;
    return scaled_sum{pow(k, ex_to<numeric>(f.op(1))), id, n < 0 ? -n : n, n < 0};
}

// One factor f of a product: a number joins the coefficient, a sum (or a small power of
// one) joins it with its scale (convert_unit_scaled), a negative power is a denominator.
void expression_graph::product_factor(GiNaC::ex const& f, GiNaC::numeric& coefficient,
                                      std::vector<std::pair<int, bool>>& factors) {
    using namespace GiNaC;
    if (is_exactly_a<numeric>(f)) {
        numeric v = ex_to<numeric>(f);
        if (!v.is_real()) throw std::runtime_error("a complex number appeared in an expression");
        coefficient = times(coefficient, v);
    } else if (auto const s = scaled_sum_factor(f)) {
        coefficient = times(coefficient, s->scale);
        factors.push_back({s->exponent == 1 ? s->node : make_pow(s->node, s->exponent), s->denominator});
    } else if (is_exactly_a<power>(f) && is_exactly_a<numeric>(f.op(1)) && ex_to<numeric>(f.op(1)).is_real() &&
               ex_to<numeric>(f.op(1)).is_negative()) {
        factors.push_back({convert(pow(f.op(0), -f.op(1))), true});
    } else {
        factors.push_back({convert(f), false});
    }
}

int expression_graph::product_with(std::vector<std::pair<int, bool>> factors, GiNaC::numeric coefficient) {
    bool const negative = coefficient.is_negative();
    if (negative) coefficient = -coefficient;
    if (coefficient != 1) factors.push_back({number(coefficient), false});
    return make_mul(std::move(factors), negative);
}

// A product (times scale): its number and the scales of its sums as one factor.
int expression_graph::convert_product(GiNaC::ex const& e, GiNaC::numeric const& scale) {
    std::vector<std::pair<int, bool>> factors;
    GiNaC::numeric coefficient = scale;
    for (std::size_t i = 0; i < e.nops(); ++i) product_factor(e.op(i), coefficient, factors);
    return product_with(std::move(factors), coefficient);
}

int expression_graph::convert(GiNaC::ex const& e) {
    using namespace GiNaC;
    basic const* key = &ex_to<basic>(e);
    if (auto it = converted_.find(key); it != converted_.end()) return it->second;
    int id;
    if (is_exactly_a<numeric>(e)) {
        auto [m, neg] = convert_signed(e);
        id = neg ? negate(m) : m;
    } else if (is_exactly_a<symbol>(e)) {
        auto it = symbols_.find(ex_to<symbol>(e).get_name());
        if (it == symbols_.end()) throw std::runtime_error("internal: unknown symbol " + ex_to<symbol>(e).get_name());
        id = variable(it->second.text);
    } else if (is_exactly_a<constant>(e)) {
        if (!e.is_equal(Pi)) throw std::runtime_error("unsupported constant in an expression");
        node n{op::number, literal(M_PI), {}, {}, 0, 0};
        id = intern(std::move(n));
    } else if (is_exactly_a<GiNaC::add>(e)) {
        std::vector<std::pair<int, bool>> terms;
        for (auto const& p : sum_terms::pairs(ex_to<GiNaC::add>(e))) terms.push_back(convert_term(p, 1));
        if (ex const& c = sum_terms::constant(ex_to<GiNaC::add>(e)); !c.is_zero()) terms.push_back(convert_signed(c));
        id = make_add(std::move(terms));
    } else if (is_exactly_a<mul>(e)) {
        id = convert_product(e);
    } else if (small_power_of_sum(e) > 0 && scale_fits(convert_unit_scaled(e.op(0)).first, e)) {
        auto [k, base] = convert_unit_scaled(e.op(0));
        int const p = make_pow(base, ex_to<numeric>(e.op(1)).to_long());
        id = k == 1 ? p : make_mul({{number(pow(k, ex_to<numeric>(e.op(1)))), false}, {p, false}}, false);
    } else if (is_exactly_a<power>(e)) {
        ex b = e.op(0), x = e.op(1);
        if (is_exactly_a<numeric>(x) && ex_to<numeric>(x).is_integer()) {
            // The checker bounds exponents; never let one wrap in the conversion to long.
            if (abs(ex_to<numeric>(x)) > 1000000) throw std::runtime_error("an exponent is out of range");
            long n = ex_to<numeric>(x).to_long();
            if (n > 0) id = make_pow(convert(b), n);
            else id = make_mul({{make_pow(convert(b), -n), true}}, false);
        } else if (x.is_equal(numeric(1, 2))) {
            id = make_call("sqrt", {convert(b)});
        } else if (x.is_equal(numeric(-1, 2))) {
            id = make_mul({{make_call("sqrt", {convert(b)}), true}}, false);
        } else if (is_exactly_a<numeric>(x) && ex_to<numeric>(x).is_rational() && ex_to<numeric>(x).denom() == 2) {
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
        builtin const* fn = builtin_for_ginac(name);
        if (!fn) throw std::runtime_error("the function '" + name + "' cannot be written as C++");
        std::vector<int> args;
        for (std::size_t i = 0; i < e.nops(); ++i) args.push_back(convert(e.op(i)));
        id = make_call(std::string(fn->cxx), std::move(args));
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

} // namespace lagc

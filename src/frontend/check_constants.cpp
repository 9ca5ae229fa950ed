// Stage 2: constants in the chosen scalar type. lagc keeps numbers exact, but the generated
// code computes in double (or float, --scalar float): a constant that overflows there, a
// divisor that is 0 there, is an error at its token with its value; one that underflows to
// 0 is a warning there. Each factor may fit while their product does not (x exp(700)
// exp(10)), so products are checked as they are formed.
#include "frontend/checker.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <string>
#include <vector>

namespace lagc::checking {

namespace {

// Exact bounds (CLN refuses subnormal doubles: the smallest are powers of 2).
struct scalar_range {
    GiNaC::numeric largest, smallest, half_smallest, epsilon; // the largest finite, the smallest subnormal, 1 ulp at 1
    double largest_value, smallest_value;
    char const* name;
};
scalar_range range_of(bool single) {
    GiNaC::numeric const two(2);
    if (single)
        return {GiNaC::numeric(FLT_MAX), two.power(-149), two.power(-150), GiNaC::numeric(FLT_EPSILON), FLT_MAX,
                1.4012984643248171e-45, "float"};
    return {GiNaC::numeric(DBL_MAX), two.power(-1074), two.power(-1075), GiNaC::numeric(DBL_EPSILON), DBL_MAX,
            4.9406564584124654e-324, "double"};
}

// |e| to 40 digits, or nullopt where e is not a real number (reported elsewhere).
std::optional<GiNaC::numeric> magnitude(ex const& e) {
    struct digits_40 {
        long saved = GiNaC::Digits;
        digits_40() { GiNaC::Digits = 40; }
        ~digits_40() { GiNaC::Digits = saved; }
    } precision;
    try {
        ex v = e.evalf();
        if (!GiNaC::is_exactly_a<GiNaC::numeric>(v) || !GiNaC::ex_to<GiNaC::numeric>(v).is_real()) return std::nullopt;
        return GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(v));
    } catch (std::exception const&) {
        return std::nullopt;
    }
}

std::string value_text(GiNaC::numeric const& v);
// e as GiNaC prints it, but the operands of a sum or a product in sorted order: GiNaC's own
// order changes from process to process, and messages must not.
std::string text_of(ex const& e) {
    if (GiNaC::is_exactly_a<GiNaC::numeric>(e)) return value_text(GiNaC::ex_to<GiNaC::numeric>(e));
    std::string t;
    if (GiNaC::is_exactly_a<GiNaC::add>(e) || GiNaC::is_exactly_a<GiNaC::mul>(e)) {
        bool const sum = GiNaC::is_exactly_a<GiNaC::add>(e);
        std::vector<std::string> parts;
        for (std::size_t i = 0; i < e.nops(); ++i) {
            std::ostringstream s;
            s << e.op(i);
            parts.push_back(s.str());
        }
        std::sort(parts.begin(), parts.end());
        for (std::string const& p : parts) t += t.empty() ? p : sum && p[0] == '-' ? " - " + p.substr(1) : (sum ? " + " : "*") + p;
    } else {
        std::ostringstream s;
        s << e;
        t = s.str();
    }
    return t.size() > 60 ? t.substr(0, 57) + "..." : t;
}

std::string value_text(GiNaC::numeric const& v) {
    // CLN prints 40 digits with its own exponent markers; three significant digits suffice.
    double const d = v.to_double();
    if (std::isfinite(d) && d != 0) return fmt::format("{:.3g}", d);
    std::ostringstream s;
    s << v.evalf();
    std::string t = s.str();
    std::size_t const e = t.find_first_of("EeLl");
    std::string mantissa = t.substr(0, std::min<std::size_t>(e, 5)), exponent = e == std::string::npos ? "" : t.substr(e + 1);
    return exponent.empty() ? mantissa : mantissa + "e" + exponent;
}

// "exp(10)*exp(700) = 2.233e308", or the number alone.
std::string described(ex const& c, GiNaC::numeric const& magnitude) {
    if (GiNaC::is_exactly_a<GiNaC::numeric>(c)) return text_of(c);
    return text_of(c) + " = " + value_text(magnitude);
}

// The product of a term's factors that hold no symbol (the whole term when it holds none).
ex constant_factor(ex const& term) {
    if (!has_symbol(term)) return term;
    if (!GiNaC::is_exactly_a<GiNaC::mul>(term)) return 1;
    ex c = 1;
    for (std::size_t i = 0; i < term.nops(); ++i)
        if (!has_symbol(term.op(i))) c *= term.op(i);
    return c;
}

} // namespace

bool checker::literal_fits(GiNaC::numeric const& v, span where) {
    scalar_range const r = range_of(limits_.single_precision);
    GiNaC::numeric const a = GiNaC::abs(v);
    if (a > r.largest) {
        diags_.error(where, fmt::format("this number does not fit in a {} (its largest is {:.3g})", r.name, r.largest_value));
        return false;
    }
    if (!v.is_zero() && a < r.half_smallest) {
        diags_.warning(where,
                       fmt::format("this number is 0 in a {} (its smallest is {:.3g}): the generated code computes "
                                   "with 0 here",
                                   r.name, r.smallest_value),
                       warning_kind::underflow);
        underflow_reported_ = true;
    }
    return true;
}

bool checker::constant_factors_fit(value const& v, span where) {
    scalar_range const r = range_of(limits_.single_precision);
    for (ex const& e : v.elems) {
        if (!GiNaC::is_exactly_a<GiNaC::mul>(e)) continue;
        ex const c = constant_factor(e);
        if (GiNaC::is_exactly_a<GiNaC::numeric>(c) && GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(c)) == 1) continue;
        std::optional<GiNaC::numeric> const a = magnitude(c);
        if (!a) continue;
        if (*a > r.largest) {
            diags_.error(where, fmt::format("the constant {} in this product does not fit in a {} (its largest is {:.3g})",
                                            described(c, *a), r.name, r.largest_value));
            return false;
        }
        if (!a->is_zero() && *a < r.half_smallest && !underflow_reported_) {
            diags_.warning(where,
                           fmt::format("the constant {} in this product is 0 in a {} (its smallest is {:.3g}): "
                                       "the generated code computes with 0 here",
                                       described(c, *a), r.name, r.smallest_value),
                           warning_kind::underflow);
            underflow_reported_ = true;
        }
    }
    return true;
}

bool checker::divisor_is_not_zero(ex const& divisor, span where) {
    if (has_symbol(divisor)) return true;
    scalar_range const r = range_of(limits_.single_precision);
    std::optional<GiNaC::numeric> const a = magnitude(divisor);
    if (!a) return true;
    // The size of what cancels: the largest term of a sum (the value itself otherwise).
    GiNaC::numeric scale = *a;
    if (GiNaC::is_exactly_a<GiNaC::add>(divisor))
        for (std::size_t i = 0; i < divisor.nops(); ++i)
            if (auto t = magnitude(divisor.op(i)); t && *t > scale) scale = *t;
    if (!a->is_zero() && *a > 2 * r.epsilon * scale && *a >= r.smallest) return true;
    std::string const why =
        a->is_zero()      ? "it is exactly 0"
        : *a < r.smallest ? fmt::format("it is {}, below the smallest {}", value_text(*a), r.name)
                          : fmt::format("it is {}, which its terms of size {} cancel to 0 in a {}", value_text(*a),
                                        value_text(scale), r.name);
    diags_.error(where, "division by a constant that is 0: " + text_of(divisor) + " (" + why + ")");
    return false;
}

} // namespace lagc::checking

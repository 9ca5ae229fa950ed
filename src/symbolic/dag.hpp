// Substitution and numeric evaluation over an expression's distinct parts.
//
// GiNaC's subs(), evalf() and has() walk every path through the parts an expression shares.
// A 3-D chain's expressions share their rotation products level by level, so the number
// of paths doubles every few links while the distinct parts grow like n²: a 20-joint arm's
// kinetic energy is about 10¹⁰ nodes as a tree and a few thousand as parts. These visit each
// part once (by address), so their cost follows the model's size.
#pragma once

#include <ginac/ginac.h>

#include <optional>

namespace lagc {

// e with the symbols of `values` replaced (GiNaC's subs with no_pattern, for symbol keys):
// each distinct part substituted once, parts without a replaced symbol kept as they are.
GiNaC::ex substitute(GiNaC::ex const& e, GiNaC::exmap const& values);
// The same for many expressions that share parts, each shared part substituted once.
GiNaC::exvector substitute(GiNaC::exvector const& e, GiNaC::exmap const& values);

// The value of e with the symbols of `values` (numbers) put in, at GiNaC's current
// precision; nullopt where a part is not a number (a symbol left over, a pole, a function
// GiNaC cannot evaluate). Each distinct part evaluated once.
std::optional<GiNaC::numeric> evaluate(GiNaC::ex const& e, GiNaC::exmap const& values);

// The value the k-th symbol takes at test point `point` of the zero tests (numerically_zero,
// is_identically_zero): rationals far from the special values of the built-ins.
GiNaC::numeric test_value(std::size_t k, int point);

// Whether e is zero at two points (every symbol in it given a pseudo-random rational, 40
// digits): |value| below 1e-20 at both. For expressions too large to expand (simplify.hpp's
// max_expanded_tree); a pole at either point counts as not zero.
bool numerically_zero(GiNaC::ex const& e);

} // namespace lagc

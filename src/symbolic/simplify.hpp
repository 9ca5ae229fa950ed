// Cheap, size-guarded simplification: expand and use sin² + cos² = 1 where that makes an
// expression smaller, never where expansion would swell it.
#pragma once

#include <ginac/ginac.h>

#include <functional>

#include <vector>

namespace lagc {

// GiNaC's working precision (the global GiNaC::Digits) set for one scope, restored after.
class digits_scope {
public:
    explicit digits_scope(long digits) : saved_(GiNaC::Digits) { GiNaC::Digits = digits; }
    ~digits_scope() { GiNaC::Digits = saved_; }
    digits_scope(digits_scope const&) = delete;
    digits_scope& operator=(digits_scope const&) = delete;

private:
    long saved_;
};

// Nodes in the expression tree (a proxy for operations), each shared part measured once.
std::size_t tree_size(GiNaC::ex const& e);

// The largest tree (tree_size) GiNaC's expand(), pattern matching and diff are let walk:
// they visit every path through shared parts, and a chain of shared levels (a_i = a_(i-1) +
// sin(a_(i-1))) has 2^n of them. Larger expressions are left as they are (simplify), or
// tested for zero by their values (numerically_zero).
constexpr std::size_t max_expanded_tree = 200000;

// Whether e contains any of the symbols: one walk over e's distinct parts. GiNaC's has()
// walks every path through the parts an expression shares, once per symbol (a 12-joint
// arm's checks spent 0.2 s there).
bool has_any(GiNaC::ex const& e, std::vector<GiNaC::symbol> const& symbols);

// The smallest of e, its expansion and its expansion with sin²→1−cos² or cos²→1−sin²;
// expansion is attempted only when it can produce at most `max_terms` terms.
GiNaC::ex simplify(GiNaC::ex const& e, double max_terms = 400);

// e with sin² + cos² = 1 applied where that makes it smaller than e as written (after
// expanding, when expanding stays under max_terms terms); e itself otherwise. Unlike
// simplify(), never returns the plain expansion, which undoes a product's factoring.
GiNaC::ex trig_reduce(GiNaC::ex const& e, double max_terms = 400);

// The terms of a GiNaC sum (or the factors of a product) as GiNaC stores them: pairs
// (rest, coeff) standing for rest · coeff (coeff a number, rest never a number or a sum) —
// for a product rest^coeff — and the constant term (a product's numeric coefficient).
// op(i) builds and evaluates rest · coeff (rest^coeff) again at every call, which for a rest
// with sums among its factors means their integer content again: reading a sum's terms
// through op() was a sixth of a 3-D arm's run. (A class derived from expairseq may name its
// protected members; it is never instantiated.)
struct sum_terms : GiNaC::expairseq {
    static GiNaC::epvector const& pairs(GiNaC::expairseq const& a) { return a.*(&sum_terms::seq); }
    static GiNaC::ex const& constant(GiNaC::expairseq const& a) { return a.*(&sum_terms::overall_coeff); }
};

// a · b, without cln's multiplication (a gcd of rationals) where either is exactly 1: the
// DAG's conversion multiplies every term's coefficient by its sum's scale, 1 for most.
inline GiNaC::numeric times(GiNaC::numeric const& a, GiNaC::numeric const& b) {
    if (a.is_integer() && a.is_equal(1)) return b;
    if (b.is_integer() && b.is_equal(1)) return a;
    return a * b;
}

// The scale k of a sum b taken as k · (b/k): k > 0 the magnitude most of b's numeric
// coefficients have (1 on a tie with 1, else the largest), so that most coefficients of
// b/k are ±1; 1 when they already are or b is not a sum of terms with rational coefficients.
// `nested`, when given, is the number a term's rest (its product without the coefficient)
// brings along once converted (the scales of the sums among its factors), counted with the
// coefficient: (a + 10⁻¹⁷ b)² + (c + 10⁻¹⁷ d)² is at scale 10⁻³⁴ when its squares are.
GiNaC::numeric unit_scale(GiNaC::ex const& b, std::function<GiNaC::numeric(GiNaC::ex const&)> const& nested = {});
// A power of ten k (counted as unit_scale counts) that brings b's largest coefficient into
// [1, 10) when it lies outside [10⁻⁶, 10⁶], else 1: the integer content GiNaC takes out of a
// sum with a 17-digit decimal (0.33999999999999997 a + b is kept as 10⁻¹⁷ (33999999999999997 a
// + 10¹⁷ b)) is put back, and nothing else is moved.
GiNaC::numeric decimal_scale(GiNaC::ex const& b, std::function<GiNaC::numeric(GiNaC::ex const&)> const& nested = {});

} // namespace lagc

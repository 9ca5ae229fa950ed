// Small dense algebra for the derivation (derive/quasi_velocity.cpp): symbolic LDLᵀ,
// adjugates and rational matrix products that build expressions, and a numeric solve with
// the rational reading of its result.
#pragma once

#include <ginac/ginac.h>

#include <optional>
#include <utility>
#include <vector>

namespace lagc {

// Σ terms, the zeros left out (0 for none).
GiNaC::ex sum_of(GiNaC::exvector const& terms);

// adj(K) and det(K) of an s × s matrix (row-major, s ≤ 4), by cofactors: polynomials in K's
// entries.
std::pair<GiNaC::exvector, GiNaC::ex> adjugate(GiNaC::exvector const& K, std::size_t s);

// x = Mᵀ y (transposed) or M y for a rational matrix, over its non-zeros.
GiNaC::exvector times(GiNaC::matrix const& M, GiNaC::exvector const& y, bool transposed);

// A symmetric matrix's LDLᵀ, symbolic and without pivoting (a kinetic energy's D, a Schur
// complement A M⁻¹ Aᵀ: positive definite where the system is regular); `pivots` its D_ii.
struct ldlt {
    std::size_t k;
    GiNaC::exvector L, pivots;
    explicit ldlt(GiNaC::exvector const& D); // k × k, row-major
    GiNaC::exvector solve(GiNaC::exvector y) const; // x with D x = y
};

// x with Kᵀ x = y for an s × s K (row-major), by elimination with partial pivoting; empty
// where K is singular.
std::vector<double> solve_transposed(std::vector<double> K, std::vector<double> y, std::size_t s);

// x as p/q with q ≤ 12, where it is one to 1e-9.
std::optional<GiNaC::numeric> small_rational(double x);

} // namespace lagc

// Small dense algebra for the derivation (small_matrices.hpp).
#include "symbolic/small_matrices.hpp"

#include <algorithm>
#include <cmath>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

std::pair<exvector, ex> adjugate(exvector const& K, std::size_t s) {
    GiNaC::matrix A(s, s);
    for (std::size_t i = 0; i < s; ++i)
        for (std::size_t j = 0; j < s; ++j) A(i, j) = K[i * s + j];
    ex const det = A.determinant(GiNaC::determinant_algo::laplace);
    exvector adj(s * s, 1);
    if (s == 1) return {adj, det};
    for (std::size_t i = 0; i < s; ++i)
        for (std::size_t j = 0; j < s; ++j) {
            GiNaC::matrix minor(s - 1, s - 1);
            for (std::size_t r = 0, mr = 0; r < s; ++r) {
                if (r == j) continue;
                for (std::size_t c = 0, mc = 0; c < s; ++c)
                    if (c != i) minor(mr, mc++) = A(r, c);
                ++mr;
            }
            ex const cofactor = minor.determinant(GiNaC::determinant_algo::laplace);
            adj[i * s + j] = (i + j) % 2 ? -cofactor : cofactor; // adj(K)_ij = (−1)^(i+j) det(K without row j, column i)
        }
    return {adj, det};
}

ex sum_of(exvector const& terms) {
    exvector nonzero;
    for (ex const& t : terms)
        if (!t.is_zero()) nonzero.push_back(t);
    return nonzero.empty() ? ex(0) : ex(GiNaC::add(nonzero));
}

ldlt::ldlt(exvector const& D) : k(0) {
    while (k * k < D.size()) ++k;
    L.assign(k * k, 0);
    pivots.assign(k, 0);
    for (std::size_t i = 0; i < k; ++i) {
        for (std::size_t j = 0; j < i; ++j) {
            exvector terms = {D[i * k + j]};
            for (std::size_t l = 0; l < j; ++l) terms.push_back(-L[i * k + l] * L[j * k + l] * pivots[l]);
            ex const s = sum_of(terms);
            L[i * k + j] = s.is_zero() ? ex(0) : s / pivots[j];
        }
        exvector terms = {D[i * k + i]};
        for (std::size_t l = 0; l < i; ++l) terms.push_back(-L[i * k + l] * L[i * k + l] * pivots[l]);
        pivots[i] = sum_of(terms);
    }
}

exvector ldlt::solve(exvector y) const {
    for (std::size_t i = 0; i < k; ++i) {
        exvector yi = {y[i]};
        for (std::size_t j = 0; j < i; ++j)
            if (!L[i * k + j].is_zero()) yi.push_back(-L[i * k + j] * y[j]);
        y[i] = sum_of(yi);
    }
    exvector x(k);
    for (std::size_t i = k; i-- > 0;) {
        exvector terms = {y[i] / pivots[i]};
        for (std::size_t j = i + 1; j < k; ++j)
            if (!L[j * k + i].is_zero()) terms.push_back(-L[j * k + i] * x[j]);
        x[i] = sum_of(terms);
    }
    return x;
}

exvector times(GiNaC::matrix const& M, exvector const& y, bool transposed) {
    std::size_t const rows = transposed ? M.cols() : M.rows();
    exvector x(rows);
    for (std::size_t i = 0; i < rows; ++i) {
        exvector terms;
        for (std::size_t j = 0; j < y.size(); ++j) {
            ex const& c = transposed ? M(j, i) : M(i, j);
            if (!c.is_zero() && !y[j].is_zero()) terms.push_back(c * y[j]);
        }
        x[i] = sum_of(terms);
    }
    return x;
}

std::vector<double> solve_transposed(std::vector<double> K, std::vector<double> y, std::size_t s) {
    auto at = [&](std::size_t i, std::size_t j) -> double& { return K[j * s + i]; }; // Kᵀ(i, j)
    for (std::size_t c = 0; c < s; ++c) {
        std::size_t p = c;
        for (std::size_t i = c + 1; i < s; ++i)
            if (std::abs(at(i, c)) > std::abs(at(p, c))) p = i;
        if (!(std::abs(at(p, c)) > 1e-12)) return {};
        for (std::size_t j = 0; j < s; ++j) std::swap(at(c, j), at(p, j));
        std::swap(y[c], y[p]);
        for (std::size_t i = c + 1; i < s; ++i) {
            double const f = at(i, c) / at(c, c);
            for (std::size_t j = c; j < s; ++j) at(i, j) -= f * at(c, j);
            y[i] -= f * y[c];
        }
    }
    std::vector<double> x(s);
    for (std::size_t c = s; c-- > 0;) {
        double v = y[c];
        for (std::size_t j = c + 1; j < s; ++j) v -= at(c, j) * x[j];
        x[c] = v / at(c, c);
    }
    return x;
}

// x as p/q with q ≤ 12, where it is one to 1e-9.
std::optional<GiNaC::numeric> small_rational(double x) {
    for (long q = 1; q <= 12; ++q) {
        double const p = std::round(x * static_cast<double>(q));
        if (std::abs(p) < 1e6 && std::abs(x - p / static_cast<double>(q)) <= 1e-9 * std::max(1.0, std::abs(x)))
            return GiNaC::numeric(static_cast<long>(p), q);
    }
    return std::nullopt;
}

} // namespace lagc

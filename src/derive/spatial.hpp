// Spatial vectors of 6 expressions (world axes at the origin: motion (ω; v), force (n; f))
// for the composites' analytic derivatives (rnea_derivatives.cpp) and the articulated-body
// algorithms (articulated_body.cpp, floating_articulated_body.cpp).
//
// Products and sums are built by GiNaC's constructors, not its operators, from their
// non-zero terms at once: operator* first asks the right factor for its return type, which
// descends every factor of a product (quantities that nest the level below twice, as the
// ABA's U Uᵀ / D does at every level of a tree, would take 2^depth steps), and arithmetic
// one term at a time on zeros was most of the cost of these formulas.
#pragma once

#include <ginac/ginac.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace lagc::spatial {

using vec6 = std::array<GiNaC::ex, 6>;
using mat6 = std::array<GiNaC::ex, 36>; // row-major

inline GiNaC::ex product(GiNaC::exvector factors) {
    for (GiNaC::ex const& f : factors)
        if (f.is_zero()) return 0;
    return GiNaC::dynallocate<GiNaC::mul>(factors);
}

inline GiNaC::ex product(GiNaC::ex const& a, GiNaC::ex const& b) { return product(GiNaC::exvector{a, b}); }

inline GiNaC::ex sum(GiNaC::exvector terms) {
    terms.erase(std::remove_if(terms.begin(), terms.end(), [](GiNaC::ex const& e) { return e.is_zero(); }), terms.end());
    if (terms.empty()) return 0;
    if (terms.size() == 1) return terms.front();
    return GiNaC::dynallocate<GiNaC::add>(terms);
}

inline GiNaC::ex negated(GiNaC::ex const& a) { return product(GiNaC::exvector{GiNaC::ex(-1), a}); }

// a·b over the entries both have.
inline GiNaC::ex dot(vec6 const& a, vec6 const& b) {
    GiNaC::exvector terms;
    for (std::size_t r = 0; r < 6; ++r) terms.push_back(product(a[r], b[r]));
    return sum(terms);
}

inline vec6 times(mat6 const& M, vec6 const& x, bool transposed = false) {
    vec6 y;
    for (std::size_t r = 0; r < 6; ++r) {
        GiNaC::exvector terms;
        for (std::size_t c = 0; c < 6; ++c) terms.push_back(product(transposed ? M[c * 6 + r] : M[r * 6 + c], x[c]));
        y[r] = sum(terms);
    }
    return y;
}

inline vec6 scaled(vec6 const& x, GiNaC::ex const& k) {
    vec6 y;
    for (std::size_t r = 0; r < 6; ++r) y[r] = product(x[r], k);
    return y;
}

// a × b for 3-vectors given by their first elements.
inline std::array<GiNaC::ex, 3> cross3(GiNaC::ex const* a, GiNaC::ex const* b) {
    std::array<GiNaC::ex, 3> y;
    for (std::size_t r = 0; r < 3; ++r) {
        std::size_t const i = (r + 1) % 3, k = (r + 2) % 3;
        y[r] = sum({product(a[i], b[k]), negated(product(a[k], b[i]))});
    }
    return y;
}

// The same for 3-vectors and 3 × 3 matrices (row-major exvectors): the Newton–Euler algorithm
// in the bodies' own axes (local_newton_euler.cpp).
using vec3 = std::array<GiNaC::ex, 3>;

inline vec3 cross(vec3 const& a, vec3 const& b) { return cross3(a.data(), b.data()); }

inline vec3 added(std::vector<vec3> const& xs) {
    vec3 y;
    for (std::size_t r = 0; r < 3; ++r) {
        GiNaC::exvector terms;
        for (auto const& x : xs) terms.push_back(x[r]);
        y[r] = sum(terms);
    }
    return y;
}

inline vec3 scaled(vec3 const& v, GiNaC::ex const& k) { return {product(v[0], k), product(v[1], k), product(v[2], k)}; }

inline GiNaC::ex dot(vec3 const& a, vec3 const& b) {
    return sum({product(a[0], b[0]), product(a[1], b[1]), product(a[2], b[2])});
}

// M v, or Mᵀ v.
inline vec3 times(GiNaC::exvector const& M, vec3 const& v, bool transposed = false) {
    vec3 y;
    for (std::size_t r = 0; r < 3; ++r) {
        GiNaC::exvector terms;
        for (std::size_t c = 0; c < 3; ++c) terms.push_back(product(transposed ? M[c * 3 + r] : M[r * 3 + c], v[c]));
        y[r] = sum(terms);
    }
    return y;
}

inline vec6 motion_cross(vec6 const& m, vec6 const& x) { // m × x: (ω × ω'; ω × v' + v × ω')
    auto const ww = cross3(&m[0], &x[0]), wv = cross3(&m[0], &x[3]), vw = cross3(&m[3], &x[0]);
    return {ww[0], ww[1], ww[2], sum({wv[0], vw[0]}), sum({wv[1], vw[1]}), sum({wv[2], vw[2]})};
}

inline vec6 force_cross(vec6 const& m, vec6 const& f) { // m ×* f: (ω × n + v × f; ω × f)
    auto const wn = cross3(&m[0], &f[0]), vf = cross3(&m[3], &f[3]), wf = cross3(&m[0], &f[3]);
    return {sum({wn[0], vf[0]}), sum({wn[1], vf[1]}), sum({wn[2], vf[2]}), wf[0], wf[1], wf[2]};
}

inline vec6 joined(std::array<GiNaC::ex, 3> const& a, std::array<GiNaC::ex, 3> const& b) {
    return {a[0], a[1], a[2], b[0], b[1], b[2]};
}

// Y of point masses (m, p) and a rotational inertia K_r (world axes): m ↦ (K ω + c × v;
// m v − c × ω), c = Σ m p, K = K_r + Σ m (|p|² I − p pᵀ).
inline mat6 body_inertia(std::vector<std::pair<GiNaC::ex, std::array<GiNaC::ex, 3>>> const& points, GiNaC::exvector const& rotational) {
    GiNaC::exvector mass, c[3], K[9];
    for (std::size_t k = 0; k < 9; ++k) K[k].push_back(rotational[k]);
    for (auto const& [m, p] : points) {
        mass.push_back(m);
        for (std::size_t r = 0; r < 3; ++r) c[r].push_back(product(m, p[r]));
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t s = 0; s < 3; ++s) {
                std::size_t const i = (r + 1) % 3, k = (r + 2) % 3;
                K[r * 3 + s].push_back(r == s ? product(m, sum({GiNaC::pow(p[i], 2), GiNaC::pow(p[k], 2)}))
                                              : negated(product(GiNaC::exvector{m, p[r], p[s]})));
            }
    }
    GiNaC::ex const cx[3] = {sum(c[0]), sum(c[1]), sum(c[2])};
    GiNaC::ex const skew[9] = {0, negated(cx[2]), cx[1], cx[2], 0, negated(cx[0]), negated(cx[1]), cx[0], 0}; // [c]×
    mat6 Y;
    Y.fill(0);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t s = 0; s < 3; ++s) {
            Y[r * 6 + s] = sum(K[r * 3 + s]);
            Y[r * 6 + s + 3] = skew[r * 3 + s];
            Y[(r + 3) * 6 + s] = negated(skew[r * 3 + s]);
            Y[(r + 3) * 6 + s + 3] = r == s ? sum(mass) : GiNaC::ex(0);
        }
    return Y;
}

} // namespace lagc::spatial

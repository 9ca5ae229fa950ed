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

// Zero, or a sum of no terms: where a held product's number is taken out of a sum's term and
// the sum's terms then cancel, GiNaC leaves an add of no terms, which is not is_zero() (and
// divides by zero where a product holding it is evaluated).
inline bool vanishes(GiNaC::ex const& e) {
    return e.is_zero() || (GiNaC::is_exactly_a<GiNaC::add>(e) && e.nops() == 0);
}

inline GiNaC::ex product(GiNaC::exvector factors) {
    for (GiNaC::ex const& f : factors)
        if (vanishes(f)) return 0;
    return GiNaC::dynallocate<GiNaC::mul>(factors);
}

inline GiNaC::ex product(GiNaC::ex const& a, GiNaC::ex const& b) { return product(GiNaC::exvector{a, b}); }

inline GiNaC::ex sum(GiNaC::exvector terms) {
    terms.erase(std::remove_if(terms.begin(), terms.end(), vanishes), terms.end());
    if (terms.empty()) return 0;
    if (terms.size() == 1) return terms.front();
    GiNaC::ex const total = GiNaC::dynallocate<GiNaC::add>(terms);
    return vanishes(total) ? GiNaC::ex(0) : total;
}

inline GiNaC::ex negated(GiNaC::ex const& a) { return product(GiNaC::exvector{GiNaC::ex(-1), a}); }

// How a formula multiplies two entries: `plain_product`, or `held_product` where GiNaC would
// distribute a number k over a sum e (k e_1 + k e_2 + …): held as one product, so that the
// code multiplies the sum once, and numbers multiplied level by level into sums over a tree's
// links do not grow past the doubles. The composite-rigid-body algorithm's masses, first
// moments and forces are such sums (local_articulated_body.cpp): M of the generic 20- and
// 30-joint arms 5,459 and 11,726 operations, held 4,092 and 8,678. (Held everywhere, in the
// articulated-body algorithm's inertias too, both grew: 4,819 and 9,091 at 20 joints; like
// terms GiNaC would have gathered stay apart.)
using multiplication = GiNaC::ex (*)(GiNaC::ex const&, GiNaC::ex const&);

inline GiNaC::ex plain_product(GiNaC::ex const& a, GiNaC::ex const& b) { return product(a, b); }

inline GiNaC::ex held_product(GiNaC::ex const& k, GiNaC::ex const& e) {
    if (!GiNaC::is_exactly_a<GiNaC::numeric>(k) || !GiNaC::is_exactly_a<GiNaC::add>(e)) return product(k, e);
    if (k.is_zero() || vanishes(e)) return 0;
    if (k.is_equal(1)) return e;
    return GiNaC::dynallocate<GiNaC::mul>(e, k).hold();
}

// The same with the number on either side.
inline GiNaC::ex held_either(GiNaC::ex const& a, GiNaC::ex const& b) {
    return GiNaC::is_exactly_a<GiNaC::numeric>(b) ? held_product(b, a) : held_product(a, b);
}

// a·b over the entries both have.
inline GiNaC::ex dot(vec6 const& a, vec6 const& b, multiplication mul = plain_product) {
    GiNaC::exvector terms;
    for (std::size_t r = 0; r < 6; ++r) terms.push_back(mul(a[r], b[r]));
    return sum(terms);
}

inline vec6 times(mat6 const& M, vec6 const& x, bool transposed = false, multiplication mul = plain_product) {
    vec6 y;
    for (std::size_t r = 0; r < 6; ++r) {
        GiNaC::exvector terms;
        for (std::size_t c = 0; c < 6; ++c) terms.push_back(mul(transposed ? M[c * 6 + r] : M[r * 6 + c], x[c]));
        y[r] = sum(terms);
    }
    return y;
}

// Σ k v over the terms, entry by entry (k = 1 taken as is), products as `mul` says.
inline vec6 combined(std::initializer_list<std::pair<GiNaC::ex, vec6>> terms, multiplication mul = plain_product) {
    vec6 y;
    for (std::size_t r = 0; r < 6; ++r) {
        GiNaC::exvector t;
        for (auto const& [k, v] : terms) t.push_back(k.is_equal(1) ? v[r] : mul(k, v[r]));
        y[r] = sum(t);
    }
    return y;
}

inline vec6 scaled(vec6 const& x, GiNaC::ex const& k) {
    vec6 y;
    for (std::size_t r = 0; r < 6; ++r) y[r] = product(x[r], k);
    return y;
}

// a × b for 3-vectors given by their first elements.
inline std::array<GiNaC::ex, 3> cross3(GiNaC::ex const* a, GiNaC::ex const* b, multiplication mul = plain_product) {
    std::array<GiNaC::ex, 3> y;
    for (std::size_t r = 0; r < 3; ++r) {
        std::size_t const i = (r + 1) % 3, k = (r + 2) % 3;
        y[r] = sum({mul(a[i], b[k]), negated(mul(a[k], b[i]))});
    }
    return y;
}

// The same for 3-vectors and 3 × 3 matrices (row-major exvectors): the Newton–Euler algorithm
// in the bodies' own axes (local_newton_euler.cpp).
using vec3 = std::array<GiNaC::ex, 3>;

inline vec3 cross(vec3 const& a, vec3 const& b, multiplication mul = plain_product) {
    return cross3(a.data(), b.data(), mul);
}

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

// x y of 3 × 3 matrices (row-major exvectors), either transposed, multiplied as `mul` says.
inline GiNaC::exvector multiplied(GiNaC::exvector const& x, GiNaC::exvector const& y, bool x_transposed = false,
                                  bool y_transposed = false, multiplication mul = plain_product) {
    GiNaC::exvector z(9);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 3; ++c) {
            GiNaC::exvector terms;
            for (std::size_t k = 0; k < 3; ++k)
                terms.push_back(mul(x_transposed ? x[k * 3 + r] : x[r * 3 + k], y_transposed ? y[c * 3 + k] : y[k * 3 + c]));
            z[r * 3 + c] = sum(terms);
        }
    return z;
}

inline GiNaC::ex dot(vec3 const& a, vec3 const& b, multiplication mul = plain_product) {
    return sum({mul(a[0], b[0]), mul(a[1], b[1]), mul(a[2], b[2])});
}

// M v, or Mᵀ v.
inline vec3 times(GiNaC::exvector const& M, vec3 const& v, bool transposed = false, multiplication mul = plain_product) {
    vec3 y;
    for (std::size_t r = 0; r < 3; ++r) {
        GiNaC::exvector terms;
        for (std::size_t c = 0; c < 3; ++c) terms.push_back(mul(transposed ? M[c * 3 + r] : M[r * 3 + c], v[c]));
        y[r] = sum(terms);
    }
    return y;
}

inline vec6 motion_cross(vec6 const& m, vec6 const& x, multiplication mul = plain_product) { // m × x: (ω × ω'; ω × v' + v × ω')
    auto const ww = cross3(&m[0], &x[0], mul), wv = cross3(&m[0], &x[3], mul), vw = cross3(&m[3], &x[0], mul);
    return {ww[0], ww[1], ww[2], sum({wv[0], vw[0]}), sum({wv[1], vw[1]}), sum({wv[2], vw[2]})};
}

inline vec6 force_cross(vec6 const& m, vec6 const& f, multiplication mul = plain_product) { // m ×* f: (ω × n + v × f; ω × f)
    auto const wn = cross3(&m[0], &f[0], mul), vf = cross3(&m[3], &f[3], mul), wf = cross3(&m[0], &f[3], mul);
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

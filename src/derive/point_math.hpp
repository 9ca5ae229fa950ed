// Small helpers of the points' structure searches (point_structure.cpp, point_axes.cpp).
#pragma once

#include "derive/rate_structure.hpp"

#include <array>
#include <cmath>

namespace lagc::point_math {

// a = b at every sample, to 1e-10 of `scale` (the size of the terms compared).
inline bool same(samples const& s, std::size_t a, std::size_t b, double scale_a, double scale_b) {
    for (std::size_t k = 0; k < s.count(); ++k) {
        double const size = std::abs(s(k, a)) + std::abs(s(k, b)) + scale_a + scale_b;
        if (std::abs(s(k, a) - s(k, b)) > 1e-10 * size) return false;
    }
    return true;
}

inline std::array<GiNaC::ex, 3> cross(std::array<GiNaC::ex, 3> const& a, std::array<GiNaC::ex, 3> const& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

inline GiNaC::ex dot(std::array<GiNaC::ex, 3> const& a, std::array<GiNaC::ex, 3> const& b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

} // namespace lagc::point_math

// Small helpers of the points' structure searches (point_structure.cpp, point_axes.cpp).
#pragma once

#include <ginac/ginac.h>

#include <array>

namespace lagc::point_math {

inline std::array<GiNaC::ex, 3> cross(std::array<GiNaC::ex, 3> const& a, std::array<GiNaC::ex, 3> const& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// R v, or Rᵀ v with `transpose` (R 3 × 3, row-major).
inline std::array<GiNaC::ex, 3> rotate(GiNaC::exvector const& R, std::array<GiNaC::ex, 3> const& v, bool transpose) {
    std::array<GiNaC::ex, 3> out;
    for (std::size_t r = 0; r < 3; ++r) {
        out[r] = 0;
        for (std::size_t c = 0; c < 3; ++c) out[r] += (transpose ? R[c * 3 + r] : R[r * 3 + c]) * v[c];
    }
    return out;
}

inline GiNaC::ex dot(std::array<GiNaC::ex, 3> const& a, std::array<GiNaC::ex, 3> const& b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

} // namespace lagc::point_math

// Small helpers of the points' structure searches (point_structure.cpp, point_axes.cpp).
#pragma once

#include <ginac/ginac.h>

#include <array>

namespace lagc::point_math {

inline std::array<GiNaC::ex, 3> cross(std::array<GiNaC::ex, 3> const& a, std::array<GiNaC::ex, 3> const& b) {
    return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

inline GiNaC::ex dot(std::array<GiNaC::ex, 3> const& a, std::array<GiNaC::ex, 3> const& b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

} // namespace lagc::point_math

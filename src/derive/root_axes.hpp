// Stage 3: the root body's axes of a kinematic tree (kinematic_tree.hpp), where the points'
// composites found them (point_composite::root_frame, point_frame.cpp): positions r of
// p = o_F + R_F r and the joints' twists beyond the root are then free of the root's
// coordinates, so M, h and ∂V/∂q hold fewer terms.
#pragma once

#include <ginac/ginac.h>

#include <array>
#include <map>
#include <vector>

namespace lagc {

struct root_axes {
    GiNaC::exvector R;                                   // R_F, 3 × 3 (empty: world axes)
    GiNaC::exmap identity;                               // the root coordinates' values where R_F = I
    std::vector<std::array<GiNaC::ex, 3>> written;       // the points' positions as written (world axes)
    std::vector<std::size_t> coordinates;                // the root's coordinates
    // The root's translations (σ = 0) and ∂o_F/∂q_i in world axes: M's entries between two
    // of them are m^c (R_Fᵀ d_i)·(R_Fᵀ d_j) = m^c d_i·d_j, R_F a rotation.
    std::map<std::size_t, std::array<GiNaC::ex, 3>> translations;
    // F's body ω and ω̇ and its origin's acceleration in its axes (R_Fᵀ ö_F), at q̈ = 0.
    std::array<GiNaC::ex, 3> omega = {0, 0, 0}, omega_dot = {0, 0, 0}, base = {0, 0, 0};
    // The root is one coordinate of a constant twist in F (the RNEA's accelerations then
    // hold in F as in the world's axes).
    bool single_fixed = false;
};

} // namespace lagc

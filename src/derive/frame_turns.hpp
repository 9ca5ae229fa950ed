// Stage 3: which of the model's frames each angular velocity turns (frame_turns.cpp), for the
// searches of joint axes, bodies' frames and the root body's frame.
#pragma once

#include "derive/random_states.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace lagc {

// The model's frames R with their Ṙ, and angular velocities ω, at two random states: which
// frame each ω turns, Ṙ = R [ω]× (ω in body axes) or Ṙ = [ω]× R (world axes). ω may be
// taken as a signed permutation of the triple given (ω_c = sign_c · omega[pi[c]]).
class frame_turns {
public:
    frame_turns(model const& m, std::vector<std::array<GiNaC::ex, 3>> const& omegas, std::uint64_t seed);
    bool evaluated() const { return evaluated_; }
    bool operator()(std::size_t frame, std::size_t omega, bool body, std::array<int, 3> const& pi = {0, 1, 2},
                    std::array<int, 3> const& sign = {1, 1, 1}) const;

private:
    samples s_;
    std::vector<std::size_t> frame_at_, rate_at_, omega_at_;
    bool evaluated_ = false;
};

} // namespace lagc

// Stage 3: which frame each angular velocity turns, at random states (frame_turns.hpp).
#include "derive/derive_support.hpp"
#include "derive/frame_turns.hpp"

#include <cmath>

namespace lagc {

using GiNaC::ex;

frame_turns::frame_turns(model const& m, std::vector<std::array<ex, 3>> const& omegas, std::uint64_t seed) : s_(m) {
    for (auto const& R : m.frames) {
        frame_at_.push_back(s_.add(R[0]));
        for (std::size_t k = 1; k < 9; ++k) s_.add(R[k]);
        rate_at_.push_back(s_.add(total_time_derivative(R[0], m)));
        for (std::size_t k = 1; k < 9; ++k) s_.add(total_time_derivative(R[k], m));
    }
    for (auto const& w : omegas) {
        omega_at_.push_back(s_.add(w[0]));
        s_.add(w[1]), s_.add(w[2]);
    }
    evaluated_ = s_.evaluate(m, seed, 2);
}

bool frame_turns::operator()(std::size_t F, std::size_t omega, bool body, std::array<int, 3> const& pi,
                             std::array<int, 3> const& sign) const {
    for (std::size_t k = 0; k < s_.count(); ++k) {
        double v[3];
        for (std::size_t c = 0; c < 3; ++c) v[c] = sign[c] * s_(k, omega_at_[omega] + static_cast<std::size_t>(pi[c]));
        double const w[9] = {0, -v[2], v[1], v[2], 0, -v[0], -v[1], v[0], 0}; // [ω]×
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = 0; c < 3; ++c) {
                double product = 0, size = 0;
                for (std::size_t d = 0; d < 3; ++d) {
                    double const t = body ? s_(k, frame_at_[F] + r * 3 + d) * w[d * 3 + c]
                                          : w[r * 3 + d] * s_(k, frame_at_[F] + d * 3 + c);
                    product += t, size += std::abs(t);
                }
                double const lhs = s_(k, rate_at_[F] + r * 3 + c);
                if (std::abs(lhs - product) > 1e-10 * (size + std::abs(lhs))) return false;
            }
    }
    return true;
}

} // namespace lagc

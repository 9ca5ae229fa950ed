// Stage 3, the points' joint axes (point_composite.hpp): each coordinate's
// axis in world axes from the frames and angular velocities the model wrote, and the point
// on it, for the twists point_structure.cpp checks.
#include "derive/derive_support.hpp"
#include "derive/point_math.hpp"
#include "derive/frame_turns.hpp"
#include "derive/point_composite.hpp"
#include "derive/random_states.hpp"

#include <algorithm>
#include <cmath>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

using point_math::cross;

// Each coordinate's axis s_i in world axes (zero where no angular velocity has it): from a
// rotation matrix R and an angular velocity ω the model wrote (named, or transported) with
// Ṙ = R [ω]× (ω in body axes: s_i = R ∂ω/∂q̇_i) or Ṙ = [ω]× R (world axes: s_i = ∂ω/∂q̇_i).
bool point_composite::axes() {
    std::vector<std::array<ex, 3>> omegas;
    auto add_omega = [&](exvector const& w) {
        std::array<ex, 3> const x = {w[0], w[1], w[2]};
        for (auto const& y : omegas)
            if (y[0].is_equal(x[0]) && y[1].is_equal(x[1]) && y[2].is_equal(x[2])) return;
        if (omegas.size() < 1024) omegas.push_back(x);
    };
    for (auto const& t : m_.transports) add_omega(t.operand), add_omega(t.result);
    for (auto const& w : m_.velocity_vectors) add_omega(w);
    for (auto& j : t_.joints) j.s = {ex(0), ex(0), ex(0)};
    if (omegas.empty() || m_.frames.empty() || m_.frames.size() * omegas.size() > 1'000'000) return true;
    frame_turns const holds(m_, omegas, 0x706f696e74ull);
    if (!holds.evaluated()) return true;
    // The simplest axis for each coordinate: ∂ω/∂q̇_i free of q if there is one.
    // Body axes: Ṙ = R [ω]× holds for C R too (C constant), so every frame it holds for gives
    // a candidate axis R ∂ω/∂q̇_i (rotz(q1) and rotx(pi)*rotz(q1) both turn with [0, 0, q̇1]);
    // twists() keeps the one the points move about.
    std::vector<int> quality(n_, 0);
    axis_candidates_.assign(n_, {});
    for (std::size_t w = 0; w < omegas.size(); ++w) {
        std::vector<std::size_t> body_frames;
        bool world = false;
        for (std::size_t F = 0; F < m_.frames.size(); ++F) {
            if (body_frames.size() < 8 && holds(F, w, true)) body_frames.push_back(F);
            if (!world && body_frames.empty()) world = holds(F, w, false);
        }
        if (body_frames.empty() && !world) continue;
        for (std::size_t i = 0; i < n_; ++i) {
            if (quality[i] == 2) continue; // a constant ∂ω/∂q̇_i found already
            std::array<ex, 3> a;
            bool moves = false;
            for (std::size_t c = 0; c < 3; ++c) {
                a[c] = partial(omegas[w][c], m_.qd[i]);
                moves = moves || !a[c].is_zero();
            }
            if (!moves) continue;
            int const q = free_of(a[0] + a[1] + a[2], m_.q) ? 2 : 1;
            if (q <= quality[i]) continue;
            quality[i] = q;
            axis_candidates_[i].clear();
            if (body_frames.empty()) axis_candidates_[i].push_back(a);
            for (std::size_t F : body_frames) {
                exvector const& R = m_.frames[F];
                std::array<ex, 3> x;
                for (std::size_t r = 0; r < 3; ++r) x[r] = R[r * 3] * a[0] + R[r * 3 + 1] * a[1] + R[r * 3 + 2] * a[2];
                bool const known = std::any_of(axis_candidates_[i].begin(), axis_candidates_[i].end(), [&](auto const& y) {
                    return (y[0] - x[0]).is_zero() && (y[1] - x[1]).is_zero() && (y[2] - x[2]).is_zero();
                });
                if (!known) axis_candidates_[i].push_back(x);
            }
            t_.joints[i].s = axis_candidates_[i].front();
        }
    }
    return true;
}

// Where a coordinate has several candidate axes (axes()), the first about which every point
// it moves turns: ∂p/∂q_i − s × p the same for all of them (at random states).
void point_composite::choose_axes(std::vector<std::vector<std::array<ex, 3>>> const& J) {
    std::size_t const P = t_.points.size();
    for (std::size_t i = 0; i < n_; ++i) {
        if (axis_candidates_.size() != n_ || axis_candidates_[i].size() < 2) continue;
        std::vector<std::size_t> moved;
        for (std::size_t b = 0; b < P; ++b)
            if (moves_[i][b]) moved.push_back(b);
        if (moved.size() < 2) continue;
        for (auto const& axis : axis_candidates_[i]) {
            samples s(m_);
            std::vector<std::array<std::size_t, 2>> pairs;
            std::array<ex, 3> const first = cross(axis, t_.points[moved[0]].position);
            for (std::size_t k = 1; k < moved.size(); ++k) {
                std::array<ex, 3> const sp = cross(axis, t_.points[moved[k]].position);
                for (std::size_t c = 0; c < 3; ++c)
                    pairs.push_back({s.add(J[i][moved[k]][c] - sp[c]), s.add(J[i][moved[0]][c] - first[c])});
            }
            if (!s.evaluate(m_, 0x6178697321ull, 2)) break;
            bool const fits = std::all_of(pairs.begin(), pairs.end(), [&](auto const& p) { return s.same(p[0], p[1], 1, 0); });
            if (fits) {
                t_.joints[i].s = axis;
                for (std::size_t c = 0; c < 3; ++c) t_.joints[i].u[c] = J[i][moved[0]][c] - first[c];
                break;
            }
        }
    }
}

// u_i = o × s_i with o the first candidate on the axis (u_i − o × s_i = 0 at random states).
void point_composite::on_axes() {
    // Positions are about t_.origin (common_origin): the model's origins too, and its own origin.
    std::vector<std::array<ex, 3>> candidates = {{ex(0), ex(0), ex(0)}, {-t_.origin[0], -t_.origin[1], -t_.origin[2]}};
    for (auto const& o : m_.origins) candidates.push_back({o[0] - t_.origin[0], o[1] - t_.origin[1], o[2] - t_.origin[2]});
    for (auto const& p : t_.points) candidates.push_back(p.position);
    if (candidates.size() * n_ > 1'000'000) return;
    samples s(m_);
    std::vector<std::array<std::size_t, 3>> u(n_), o(candidates.size());
    std::vector<std::array<std::size_t, 3>> axis(n_);
    for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t c = 0; c < 3; ++c) u[i][c] = s.add(t_.joints[i].u[c]), axis[i][c] = s.add(t_.joints[i].s[c]);
    for (std::size_t k = 0; k < candidates.size(); ++k)
        for (std::size_t c = 0; c < 3; ++c) o[k][c] = s.add(candidates[k][c]);
    if (!s.evaluate(m_, 0x6f726967696eull, 2)) return;
    for (std::size_t i = 0; i < n_; ++i) {
        bool turns = false;
        for (std::size_t x = 0; x < s.count(); ++x)
            for (std::size_t c = 0; c < 3; ++c) turns = turns || s(x, axis[i][c]) != 0;
        if (!turns) continue;
        for (std::size_t k = 0; k < candidates.size(); ++k) {
            bool on = true;
            for (std::size_t x = 0; x < s.count() && on; ++x) {
                std::array<double, 3> diff{};
                double size = 0;
                for (std::size_t c = 0; c < 3; ++c) {
                    std::size_t const c1 = (c + 1) % 3, c2 = (c + 2) % 3;
                    double const a = s(x, o[k][c1]) * s(x, axis[i][c2]), b = s(x, o[k][c2]) * s(x, axis[i][c1]);
                    double const v = s(x, u[i][c]);
                    diff[c] = v - (a - b);
                    size += std::abs(v) + std::abs(a) + std::abs(b);
                }
                for (double d : diff) on = on && std::abs(d) <= 1e-10 * size;
            }
            if (!on) continue;
            t_.joints[i].u = cross(candidates[k], t_.joints[i].s);
            break;
        }
    }
}

} // namespace lagc

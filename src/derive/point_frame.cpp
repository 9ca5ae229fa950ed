// Stage 3, the points' composites in the root body's frame (point_composite::root_frame).
//
// M, h and ∂V/∂q are sums of products of the points' Jacobians, the same in any axes turned
// with the points. The world's axes make every position carry the root body's rotation: a
// base that turns about a vertical axis puts sin q1 and cos q1 into every link's position,
// and a floating base its whole rotation matrix. In the axes of the root body's frame F
// (p = o_F + R_F r) the positions r, and the joints' axes beyond the root, are free of the
// root's coordinates; the root's own coordinates turn about their angular velocity's
// coefficients in F (Rᵀ ∂R/∂q_i = [σ_i]×, ω = Σ σ_i q̇_i the model's body angular
// velocity) and move F's origin by R_Fᵀ ∂o_F/∂q_i. A point's acceleration at q̈ = 0 in F is
// R_Fᵀ ö_F + ω̇ × r + ω × (ω × r) + 2 ω × ṙ + r̈ (ω̇, ö_F, r̈ at q̈ = 0).
//
// r is read from each position at the root coordinates' values that make R_F a constant C
// (found among 0 and the unit vectors: an angle's 0, a quaternion's (1, 0, 0, 0)), F's axes
// taken as R_F Cᵀ (a fixed turn before the root's joint, as an arm on a ceiling has, then
// costs nothing); every identity used is checked at random states, and M and h are checked
// again as a whole.
#include "derive/derive_support.hpp"
#include "derive/point_math.hpp"
#include "derive/frame_turns.hpp"
#include "derive/point_composite.hpp"
#include "derive/random_states.hpp"
#include "symbolic/dag.hpp"

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

using point_math::cross;
using point_math::rotate;

namespace {

using vec3 = std::array<ex, 3>;

// The vectors at `values` (shared parts substituted once); nothing at a pole (0/0).
std::optional<std::vector<vec3>> at(std::vector<vec3> const& v, GiNaC::exmap const& values) {
    exvector flat;
    for (auto const& x : v) flat.insert(flat.end(), x.begin(), x.end());
    try {
        flat = substitute(flat, values);
    } catch (std::exception const&) {
        return std::nullopt;
    }
    std::vector<vec3> out(v.size());
    for (std::size_t k = 0; k < v.size(); ++k) out[k] = {flat[3 * k], flat[3 * k + 1], flat[3 * k + 2]};
    return out;
}

std::optional<vec3> at(vec3 const& v, GiNaC::exmap const& values) {
    auto const out = at(std::vector<vec3>{v}, values);
    if (!out) return std::nullopt;
    return out->front();
}

// Values of `coords` at which R is a constant C (free of q: the identity, or a fixed turn
// the model wrote before them): all 0, else one of them 1 and the rest 0. C row-major.
std::optional<std::pair<GiNaC::exmap, exvector>> constant_at(exvector const& R, std::vector<GiNaC::symbol> const& coords,
                                                               std::vector<GiNaC::symbol> const& q) {
    for (std::size_t one = 0; one <= coords.size(); ++one) {
        GiNaC::exmap values;
        for (std::size_t k = 0; k < coords.size(); ++k) values[coords[k]] = k + 1 == one ? 1 : 0;
        exvector C;
        try {
            C = substitute(R, values);
        } catch (std::exception const&) {
            continue;
        }
        if (std::all_of(C.begin(), C.end(), [&](ex const& e) { return free_of(e, q); })) return std::make_pair(values, C);
    }
    return std::nullopt;
}

} // namespace

// The root body's frame: a frame of the model that depends on the root node's coordinates
// only, turns with a body angular velocity ω of their rates (Ṙ = R [ω]×), and is constant
// somewhere.
std::vector<point_composite::root_frame_candidate> point_composite::root_frames_of(std::vector<std::size_t> const& C) const {
    std::vector<GiNaC::symbol> inner, coords, rates;
    for (std::size_t i = 0; i < n_; ++i) {
        bool const root = std::find(C.begin(), C.end(), i) != C.end();
        (root ? coords : inner).push_back(m_.q[i]);
        if (!root) rates.push_back(m_.qd[i]);
    }
    std::vector<std::array<ex, 3>> omegas;
    auto add_omega = [&](exvector const& w) {
        ex const all = w[0] + w[1] + w[2];
        if (!has_any(all, m_.qd) || has_any(all, rates) || has_any(all, inner) || has_any(all, m_.u)) return;
        if (omegas.size() < 256) omegas.push_back({w[0], w[1], w[2]});
    };
    for (auto const& t : m_.transports) add_omega(t.operand), add_omega(t.result);
    for (auto const& w : m_.velocity_vectors) add_omega(w);
    std::vector<std::size_t> frames;
    for (std::size_t F = 0; F < m_.frames.size(); ++F) {
        ex all = 0;
        for (ex const& e : m_.frames[F]) all += e;
        if (has_any(all, coords) && !has_any(all, inner) && frames.size() < 64) frames.push_back(F);
    }
    std::vector<root_frame_candidate> out;
    if (omegas.empty() || frames.empty() || m_.frames.size() * omegas.size() > 1'000'000) return out;
    frame_turns const holds(m_, omegas, 0x726f6f74ull);
    if (!holds.evaluated()) return out;
    // F's axes turned by Cᵀ (R_F Cᵀ, the identity there): ω and σ_i turn by C.
    for (std::size_t F : frames) {
        auto const constant = constant_at(m_.frames[F], coords, m_.q);
        if (!constant) continue;
        exvector const& K = constant->second;
        for (std::size_t w = 0; w < omegas.size(); ++w) {
            if (!holds(F, w, true)) continue;
            exvector R(9);
            for (std::size_t r = 0; r < 3; ++r)
                for (std::size_t c = 0; c < 3; ++c)
                    R[r * 3 + c] = m_.frames[F][r * 3] * K[c * 3] + m_.frames[F][r * 3 + 1] * K[c * 3 + 1] +
                                   m_.frames[F][r * 3 + 2] * K[c * 3 + 2];
            root_frame_candidate x{R, constant->first, {}, rotate(K, omegas[w], false)};
            bool linear = true;
            for (std::size_t i : C) {
                vec3 sigma;
                for (std::size_t c = 0; c < 3; ++c) sigma[c] = partial(x.omega[c], m_.qd[i]);
                linear = linear && !has_any(sigma[0] + sigma[1] + sigma[2], m_.qd);
                x.sigma.push_back(sigma);
            }
            if (linear) out.push_back(std::move(x));
            break;
        }
    }
    return out;
}

// F's origin: 0, the root's translations (the coordinates whose twists turn nothing, with
// constant u), or an origin the model added up, whichever every position is o_F + R_F r
// about (at random states).
std::optional<point_composite::root_positions> point_composite::root_origin(root_frame_candidate const& F,
                                                                              std::vector<std::size_t> const& C) const {
    std::vector<vec3> candidates = {{ex(0), ex(0), ex(0)}};
    vec3 moved = {ex(0), ex(0), ex(0)};
    for (std::size_t i : C)
        if (t_.joints[i].s[0].is_zero() && t_.joints[i].s[1].is_zero() && t_.joints[i].s[2].is_zero() && free_of(t_.joints[i].u[0] + t_.joints[i].u[1] + t_.joints[i].u[2], m_.q))
            for (std::size_t c = 0; c < 3; ++c) moved[c] += t_.joints[i].u[c] * m_.q[i];
    candidates.push_back(moved);
    for (auto const& o : m_.origins)
        if (candidates.size() < 64) candidates.push_back({o[0] - t_.origin[0], o[1] - t_.origin[1], o[2] - t_.origin[2]});
    std::vector<vec3> positions;
    for (auto const& x : t_.points) positions.push_back(x.position);
    auto const at_identity = at(positions, F.identity);
    if (!at_identity) return std::nullopt;
    for (auto const& o : candidates) {
        auto const o_star = at(o, F.identity);
        if (!o_star) continue;
        root_positions out{o, *o_star, {}};
        samples s(m_);
        std::vector<std::array<std::size_t, 2>> pairs;
        for (std::size_t b = 0; b < t_.points.size(); ++b) {
            vec3 const& p = (*at_identity)[b];
            out.r.push_back({p[0] - (*o_star)[0], p[1] - (*o_star)[1], p[2] - (*o_star)[2]});
            vec3 const turned = rotate(F.R, out.r.back(), false);
            for (std::size_t c = 0; c < 3; ++c) pairs.push_back({s.add(t_.points[b].position[c] - o[c]), s.add(turned[c])});
        }
        if (!s.evaluate(m_, 0x6f726967ull, 2)) continue;
        if (s.all_same(pairs)) return out;
    }
    return std::nullopt;
}

// Positions, twists and accelerations in F's axes about o_F (the file's comment), each
// checked against the world's turned into F at random states; false (nothing changed) where
// one does not hold. The composites are then summed again.
bool point_composite::root_frame() {
    if (!t_.usable) return false;
    int root = -1;
    for (std::size_t N = 0; N < t_.nodes.size(); ++N)
        if (t_.nodes[N].parent < 0) {
            if (root >= 0) return false;
            root = static_cast<int>(N);
        }
    if (root < 0 || t_.nodes[static_cast<std::size_t>(root)].size != t_.points.size()) return false;
    std::vector<std::size_t> C;
    for (std::size_t i = 0; i < n_; ++i)
        if (t_.joints[i].node == root) C.push_back(i);
    // The first frame every position turns with (rotz(q1) turns with the same ω as
    // rotx(pi)*rotz(q1), but only one of them carries the points).
    std::optional<root_frame_candidate> F;
    std::optional<root_positions> o;
    for (auto& candidate : root_frames_of(C))
        if ((o = root_origin(candidate, C))) {
            F = std::move(candidate);
            break;
        }
    if (!F) return false;
    std::vector<vec3> twists, s, u;
    for (auto const& j : t_.joints) twists.push_back(j.s), s.push_back(j.s), u.push_back(j.u);
    twists.insert(twists.end(), u.begin(), u.end());
    auto const at_identity = at(twists, F->identity);
    if (!at_identity) return false;
    std::vector<tree_point> moved = t_.points;
    for (std::size_t b = 0; b < moved.size(); ++b) moved[b].position = o->r[b];
    std::map<std::size_t, vec3> translations;
    for (std::size_t i = 0; i < n_; ++i) {
        auto const k = std::find(C.begin(), C.end(), i);
        if (k != C.end()) {
            s[i] = F->sigma[static_cast<std::size_t>(k - C.begin())];
            vec3 const d = {partial(o->origin[0], m_.q[i]), partial(o->origin[1], m_.q[i]), partial(o->origin[2], m_.q[i])};
            u[i] = rotate(F->R, d, true);
            if (s[i][0].is_zero() && s[i][1].is_zero() && s[i][2].is_zero()) translations[i] = d;
            continue;
        }
        vec3 const& si = (*at_identity)[i];
        vec3 const& ui = (*at_identity)[n_ + i];
        vec3 const os = cross(o->at_identity, si);
        s[i] = si;
        for (std::size_t c = 0; c < 3; ++c) u[i][c] = ui[c] - os[c];
    }
    if (!root_accelerations(*F, o->origin, moved) || !root_twists_hold(F->R, moved, s, u)) return false;
    t_.root.written.clear();
    for (auto const& x : t_.points) t_.root.written.push_back(x.position);
    t_.points = std::move(moved);
    for (std::size_t i = 0; i < n_; ++i) t_.joints[i].s = std::move(s[i]), t_.joints[i].u = std::move(u[i]);
    t_.root.R = F->R;
    t_.root.identity = F->identity;
    t_.root.coordinates = C;
    t_.root.translations = std::move(translations);
    tree_joint const& first = t_.joints[C[0]];
    t_.root.single_fixed = C.size() == 1 && free_of(first.s[0] + first.s[1] + first.s[2] + first.u[0] + first.u[1] + first.u[2], m_.q);
    t_.name_joints();
    t_.composite();
    return true;
}

// Each point's acceleration at q̈ = 0 in F (the file's comment), checked against R_Fᵀ a.
bool point_composite::root_accelerations(root_frame_candidate const& F, vec3 const& o, std::vector<tree_point>& moved) {
    auto const d2 = [&](ex const& e) { return total_time_derivative(total_time_derivative(e, m_), m_); };
    vec3 const& w = F.omega;
    vec3 const wdot = {total_time_derivative(w[0], m_), total_time_derivative(w[1], m_), total_time_derivative(w[2], m_)};
    vec3 const base = rotate(F.R, {d2(o[0]), d2(o[1]), d2(o[2])}, true);
    t_.root.omega = w, t_.root.omega_dot = wdot, t_.root.base = base;
    samples s(m_);
    std::vector<std::array<std::size_t, 2>> pairs;
    for (std::size_t b = 0; b < moved.size(); ++b) {
        auto& x = moved[b];
        vec3 const& r = x.position;
        vec3 const rd = {total_time_derivative(r[0], m_), total_time_derivative(r[1], m_), total_time_derivative(r[2], m_)};
        vec3 const wr = cross(w, r), wwr = cross(w, wr), wrd = cross(w, rd), ar = cross(wdot, r);
        vec3 const world = rotate(F.R, t_.points[b].acceleration, true);
        for (std::size_t c = 0; c < 3; ++c) {
            x.acceleration[c] = base[c] + ar[c] + wwr[c] + 2 * wrd[c] + total_time_derivative(rd[c], m_);
            pairs.push_back({s.add(world[c]), s.add(x.acceleration[c])});
        }
    }
    if (!s.evaluate(m_, 0x6163636cull, 2)) return false;
    return s.all_same(pairs);
}

// R_Fᵀ (s_i × p + u_i) = s^F_i × r + u^F_i for every point q_i moves, at random states.
bool point_composite::root_twists_hold(exvector const& R, std::vector<tree_point> const& moved, std::vector<vec3> const& s,
                                       std::vector<vec3> const& u) const {
    samples x(m_);
    std::vector<std::array<std::size_t, 2>> pairs;
    for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t b = 0; b < t_.points.size(); ++b) {
            if (!moves_[i][b]) continue;
            vec3 const sp = cross(t_.joints[i].s, t_.points[b].position);
            vec3 const world = rotate(R, {sp[0] + t_.joints[i].u[0], sp[1] + t_.joints[i].u[1], sp[2] + t_.joints[i].u[2]}, true);
            vec3 const framed = cross(s[i], moved[b].position);
            for (std::size_t c = 0; c < 3; ++c) pairs.push_back({x.add(world[c]), x.add(framed[c] + u[i][c])});
        }
    if (!x.evaluate(m_, 0x74776973ull, 2)) return false;
    return x.all_same(pairs);
}

} // namespace lagc

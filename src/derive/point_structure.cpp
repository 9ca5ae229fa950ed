// Stage 3: points of rotating frames among the rate form's rates, and their translational
// inertia and forces as composites along the joints (point_composite.hpp) over
// the kinematic tree they move on (kinematic_tree.hpp).
#include "symbolic/chain_rule.hpp"
#include "symbolic/simplify.hpp"
#include "graph/expression_graph.hpp"
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
using point_math::dot;

point_composite::point_composite(model const& m, bilinear_form const& f, composite_inertia const& rotational)
    : m_(m), f_(f), n_(m.q.size()), t_(m, m.q.size()) {
    t_.joints.assign(n_, {});
    // Each joint's Jacobian of each point is one derivative: bounded, like the other searches
    // for structure (a model this large is no chain of bodies).
    if (m.points.empty()) {
        t_.why = "the model writes no points (der(p) of a position with ½ m |der(p)|²)";
        return;
    }
    if (double(m.points.size()) * double(n_) > 20000) {
        t_.why = "points times coordinates exceed 20,000 (the search's bound)";
        return;
    }
    t_.why = "no point's velocity is among the kinetic energy's rates, or one has unequal masses by element";
    if (!points(rotational)) return;
    t_.why = "a coordinate moves its points other than a joint does (∂p/∂q ≠ s × p + u at random states)";
    if (!axes() || !twists()) return;
    t_.why = "the sets of points the coordinates move overlap without nesting (not a tree)";
    if (!nest()) return;
    t_.why.clear();
    t_.name_joints();
    t_.composite();
    t_.usable = true;
}

bool point_composite::covers(std::size_t rate) const { return t_.usable && rate_point_.count(rate) > 0; }

// Each point's rates (its velocity's elements, found as the rate form has them) and mass:
// the point's rates occur only in terms c r² with 2 c κ² the same for the three (½ m |v|²).
bool point_composite::points(composite_inertia const& rotational) {
    std::map<ex, std::size_t, GiNaC::ex_is_less> by_key;
    for (std::size_t k = 0; k < f_.rates.size(); ++k) by_key.emplace(without_numeric_factor(f_.rates[k].original), k);
    std::map<std::size_t, std::size_t> owner; // rate → point
    for (auto const& p : m_.points) {
        tree_point x;
        x.rate = {-1, -1, -1};
        bool ok = true;
        for (std::size_t c = 0; c < 3 && ok; ++c) {
            x.position[c] = p.position[c];
            if (p.velocity[c].is_zero()) continue;
            ok = false;
            ex const key = without_numeric_factor(p.velocity[c]);
            for (int sign : {1, -1}) {
                auto it = by_key.find(sign * key);
                if (it == by_key.end()) continue;
                ex const& o = f_.rates[it->second].original;
                x.rate[c] = static_cast<int>(it->second);
                x.kappa[c] = sign * ex(o.integer_content()) / p.velocity[c].integer_content();
                ok = !rotational.covers(it->second);
                break;
            }
        }
        if (!ok || x.rate == std::array<int, 3>{-1, -1, -1}) continue;
        // The same point again (der(p) written twice): once.
        bool again = false;
        for (auto const& y : t_.points) again = again || y.rate == x.rate;
        if (again) continue;
        x.source = static_cast<std::size_t>(&p - m_.points.data());
        for (int r : x.rate)
            if (r >= 0 && !owner.emplace(static_cast<std::size_t>(r), t_.points.size()).second) return false;
        t_.points.push_back(std::move(x));
    }
    if (t_.points.empty()) return false;
    std::vector<ex> coefficient(f_.rates.size(), 0);
    for (auto const& t : f_.terms) {
        bool const a = owner.count(t.a) > 0, b = owner.count(t.b) > 0;
        if (!a && !b) continue;
        if (t.a != t.b || !t.dc.empty()) return false;
        coefficient[t.a] += t.c;
    }
    for (auto& x : t_.points) {
        bool first = true;
        for (std::size_t c = 0; c < 3; ++c) {
            if (x.rate[c] < 0) continue;
            ex const mass = 2 * coefficient[static_cast<std::size_t>(x.rate[c])] * x.kappa[c] * x.kappa[c];
            if (first) x.mass = mass, first = false;
            else if (!is_identically_zero(mass - x.mass, m_)) return false;
        }
        for (std::size_t c = 0; c < 3; ++c)
            x.acceleration[c] = x.rate[c] < 0 ? ex(0) : total_time_derivative(m_.points[x.source].velocity[c], m_);
    }
    for (auto const& [rate, point] : owner) rate_point_[rate] = point;
    common_origin();
    return true;
}

void point_composite::common_origin() {
    auto constant = [&](ex const& e) -> ex {
        auto const fixed = [&](ex const& x) { return free_of(x, m_.q) && free_of(x, m_.u) && !has_any(x, {m_.t}); };
        if (fixed(e)) return e;
        if (!GiNaC::is_exactly_a<GiNaC::add>(e)) return 0;
        ex k = 0;
        for (std::size_t i = 0; i < e.nops(); ++i)
            if (fixed(e.op(i))) k += e.op(i);
        return k;
    };
    // In each axis the part free of q, u and t (numbers, parameters) most positions hold (the
    // first such on a tie; none if that is 0): the base's height under a chain (0.333 for
    // every link beyond the Panda's first joint, 0.36 beyond the iiwa's second, or a
    // parameter h0 written for it).
    for (std::size_t c = 0; c < 3; ++c) {
        std::vector<std::pair<ex, std::size_t>> counts;
        for (auto const& x : t_.points) {
            ex const k = constant(x.position[c]);
            auto it = std::find_if(counts.begin(), counts.end(), [&](auto const& e) { return e.first.is_equal(k); });
            if (it == counts.end()) counts.push_back({k, 1});
            else ++it->second;
        }
        auto const most = std::max_element(counts.begin(), counts.end(),
                                           [](auto const& a, auto const& b) { return a.second < b.second; });
        if (most->first.is_zero()) continue;
        t_.origin[c] = most->first;
        for (auto& x : t_.points) x.position[c] -= t_.origin[c];
    }
}

// J_i(p) = ∂p/∂q_i = s_i × p + u_i for every point p that q_i moves; which points each
// coordinate moves. u_i is o × s_i for a point o on the axis where the model has one (a
// frame's origin it added up, or the world's origin), else ∂p/∂q_i − s_i × p of the first
// point q_i moves.
bool point_composite::twists() {
    std::size_t const P = t_.points.size();
    moves_.assign(n_, std::vector<char>(P, 0));
    for (auto& j : t_.joints) j.u = {ex(0), ex(0), ex(0)};
    // ∂p/∂q_i by the chain rule on p's structure (the rates are p's velocity times κ), once
    // for each point q_i moves.
    std::vector<std::vector<std::array<ex, 3>>> J(n_, std::vector<std::array<ex, 3>>(P));
    for (std::size_t i = 0; i < n_; ++i) {
        bool first = true;
        for (std::size_t b = 0; b < P; ++b) {
            bool any = false;
            for (std::size_t c = 0; c < 3; ++c) any = any || has_any(t_.points[b].position[c], {m_.q[i]});
            if (!any) continue;
            moves_[i][b] = 1;
            for (std::size_t c = 0; c < 3; ++c) {
                ex const& p = t_.points[b].position[c];
                J[i][b][c] = partial(p, m_.q[i]);
            }
            if (!first) continue;
            first = false;
            std::array<ex, 3> const sp = cross(t_.joints[i].s, t_.points[b].position);
            for (std::size_t c = 0; c < 3; ++c) t_.joints[i].u[c] = J[i][b][c] - sp[c];
        }
    }
    choose_axes(J);
    on_axes();
    samples s(m_);
    std::vector<std::array<std::size_t, 4>> checks;
    for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t b = 0; b < P; ++b) {
            if (!moves_[i][b]) continue;
            std::array<ex, 3> const sp = cross(t_.joints[i].s, t_.points[b].position);
            for (std::size_t c = 0; c < 3; ++c)
                checks.push_back({s.add(J[i][b][c]), s.add(sp[c] + t_.joints[i].u[c]), s.add(sp[c]), s.add(t_.joints[i].u[c])});
        }
    if (!s.evaluate(m_, 0x7477697374ull, 2)) return false;
    for (auto const& k : checks) {
        double scale = 0;
        for (std::size_t x = 0; x < s.count(); ++x) scale = std::max(scale, std::abs(s(x, k[2])) + std::abs(s(x, k[3])));
        if (!s.same(k[0], k[1], scale, 0)) return false;
    }
    return true;
}

// The sets of points the coordinates move, as a tree: any two nested or disjoint.
bool point_composite::nest() {
    std::size_t const P = t_.points.size();
    for (auto& j : t_.joints) j.node = -1;
    for (std::size_t i = 0; i < n_; ++i) {
        if (std::find(moves_[i].begin(), moves_[i].end(), 1) == moves_[i].end()) continue;
        for (std::size_t N = 0; N < t_.nodes.size() && t_.joints[i].node < 0; ++N)
            if (t_.nodes[N].members == moves_[i]) t_.joints[i].node = static_cast<int>(N);
        if (t_.joints[i].node >= 0) continue;
        t_.joints[i].node = static_cast<int>(t_.nodes.size());
        t_.nodes.push_back({moves_[i], -1, {}, 0});
    }
    for (auto& N : t_.nodes) N.size = static_cast<std::size_t>(std::count(N.members.begin(), N.members.end(), 1));
    for (std::size_t A = 0; A < t_.nodes.size(); ++A)
        for (std::size_t B = 0; B < t_.nodes.size(); ++B) {
            if (A == B) continue;
            bool meet = false, a_in_b = true;
            for (std::size_t p = 0; p < P; ++p) {
                if (t_.nodes[A].members[p] && t_.nodes[B].members[p]) meet = true;
                if (t_.nodes[A].members[p] && !t_.nodes[B].members[p]) a_in_b = false;
            }
            if (meet && !a_in_b && t_.nodes[A].size <= t_.nodes[B].size) return false; // overlapping, not nested
            if (a_in_b && t_.nodes[A].size < t_.nodes[B].size &&
                (t_.nodes[A].parent < 0 || t_.nodes[B].size < t_.nodes[static_cast<std::size_t>(t_.nodes[A].parent)].size))
                t_.nodes[A].parent = static_cast<int>(B);
        }
    for (std::size_t N = 0; N < t_.nodes.size(); ++N) {
        std::vector<char> own = t_.nodes[N].members;
        for (auto const& C : t_.nodes)
            if (C.parent == static_cast<int>(N))
                for (std::size_t p = 0; p < P; ++p)
                    if (C.members[p]) own[p] = 0;
        for (std::size_t p = 0; p < P; ++p)
            if (own[p]) t_.nodes[N].own.push_back(p);
    }
    return true;
}

// For i moving every point j moves (node N of j):
//   M_ij = Σ_N m (s_i × p + u_i)·(s_j × p + u_j) = s_i·(K^c s_j + c^c × u_j) + u_i·(s_j × c^c + m^c u_j).
exvector point_composite::mass_matrix() const {
    exvector C(n_ * n_, 0);
    std::vector<std::array<ex, 3>> Y(n_), Z(n_);
    for (std::size_t j = 0; j < n_; ++j) {
        if (t_.joints[j].node < 0) continue;
        auto const N = static_cast<std::size_t>(t_.joints[j].node);
        std::array<ex, 3> const cu = cross(t_.moment[N], t_.joints[j].u), sc = cross(t_.joints[j].s, t_.moment[N]);
        for (std::size_t r = 0; r < 3; ++r) {
            Y[j][r] = t_.K[N][r * 3] * t_.joints[j].s[0] + t_.K[N][r * 3 + 1] * t_.joints[j].s[1] + t_.K[N][r * 3 + 2] * t_.joints[j].s[2] + cu[r];
            Z[j][r] = sc[r] + t_.mass[N] * t_.joints[j].u[r];
        }
    }
    for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            if (t_.joints[i].node < 0 || t_.joints[j].node < 0) continue;
            auto const &A = t_.nodes[static_cast<std::size_t>(t_.joints[i].node)], &B = t_.nodes[static_cast<std::size_t>(t_.joints[j].node)];
            std::size_t near = j, far = i;
            if (A.size < B.size) near = i, far = j;
            bool nested = true;
            auto const& inner = t_.nodes[static_cast<std::size_t>(t_.joints[near].node)].members;
            auto const& outer = t_.nodes[static_cast<std::size_t>(t_.joints[far].node)].members;
            for (std::size_t p = 0; p < inner.size(); ++p) nested = nested && (!inner[p] || outer[p]);
            if (!nested) continue; // disjoint: no point moves with both
            auto const ti = t_.root.translations.find(i), tj = t_.root.translations.find(j);
            if (ti != t_.root.translations.end() && tj != t_.root.translations.end())
                C[i * n_ + j] = t_.mass[static_cast<std::size_t>(t_.joints[near].node)] * dot(ti->second, tj->second);
            else
                C[i * n_ + j] = dot(t_.joints[far].s, Y[near]) + dot(t_.joints[far].u, Z[near]);
        }
    return C;
}

// Used where it agrees and makes M and h (with the rest of them, which shares their
// rotations) smaller: on short chains the points' Jacobians cost less than the composites.
bool point_composite::add(exvector& M, exvector& h, exvector const& M_term_by_term, exvector const& h_term_by_term,
                          exvector& compact_delta, exvector& share, share_report* report) const {
    share_report ignored;
    share_report& r = report ? *report : ignored;
    if (!t_.usable) {
        r.why = no_tree(t_);
        return false;
    }
    exvector const CM = mass_matrix();
    // Each point's force in h: κ F of its rates (F = 2 c ρ), m times its acceleration at q̈ = 0.
    std::vector<std::array<ex, 3>> f(t_.points.size());
    for (std::size_t b = 0; b < t_.points.size(); ++b)
        for (std::size_t c = 0; c < 3; ++c) f[b][c] = t_.points[b].mass * t_.points[b].acceleration[c];
    exvector const Ch = t_.generalized(f);
    exvector with, without;
    for (std::size_t i = 0; i < n_; ++i) {
        for (std::size_t j = 0; j <= i; ++j) {
            with.push_back(M[i * n_ + j] + CM[i * n_ + j]);
            without.push_back(M[i * n_ + j] + M_term_by_term[i * n_ + j]);
        }
        with.push_back(h[i] + Ch[i]);
        without.push_back(h[i] + h_term_by_term[i]);
    }
    r.with = operations_of(m_, with), r.without = operations_of(m_, without);
    if (r.with >= r.without) {
        r.why = "not smaller than the rate form term by term";
        return false;
    }
    if (!agree_at_random_states(m_, with, without, 0x706d6173ull)) {
        r.why = "disagrees with the terms summed one by one at random states";
        return false;
    }
    for (std::size_t k = 0; k < n_ * n_; ++k) M[k] += CM[k];
    // h to evaluate (bias_forces, forward and inverse dynamics) may take the accelerations
    // the RNEA's way where that agrees (and, mass_and_bias_from_bilinear_form decides, makes
    // h smaller); the linearization and C keep the form above, whose derivatives are smaller
    // (the 10-joint arm: 24,536 operations of linearization against 26,682).
    if (std::vector<std::array<ex, 3>> const r = t_.recursive_forces(); !r.empty()) {
        exvector const Cr = t_.generalized(r);
        exvector acceleration, recursive;
        for (std::size_t i = 0; i < n_; ++i) acceleration.push_back(h[i] + Ch[i]), recursive.push_back(h[i] + Cr[i]);
        if (agree_at_random_states(m_, recursive, acceleration, 0x726e6561ull))
            for (std::size_t i = 0; i < n_; ++i) compact_delta[i] += Cr[i] - Ch[i];
    }
    for (std::size_t i = 0; i < n_; ++i) h[i] += Ch[i];
    share = Ch;
    return true;
}

// ∂V/∂q from the same sums where V is Σ w·p over the points (w free of q: gravity, m g p_z)
// plus terms free of q: ∂V/∂q_i = s_i·Σ p × w + u_i·Σ w over the points q_i moves. Replaces
// `gradient` (V's own derivatives) where it agrees with it and is smaller.
std::optional<std::vector<std::array<ex, 3>>> point_composite::weights(ex* other) const {
    if (!t_.usable || m_.potential.is_zero()) return std::nullopt;
    exvector terms;
    if (GiNaC::is_exactly_a<GiNaC::add>(m_.potential))
        for (std::size_t k = 0; k < m_.potential.nops(); ++k) terms.push_back(m_.potential.op(k));
    else
        terms.push_back(m_.potential);
    if (double(terms.size()) * double(t_.points.size()) > 1e5) return std::nullopt;
    std::vector<std::array<ex, 3>> w(t_.points.size(), {ex(0), ex(0), ex(0)});
    for (ex const& t : terms) {
        if (free_of(t, m_.q)) continue;
        bool matched = false;
        for (std::size_t b = 0; b < t_.points.size() && !matched; ++b)
            for (std::size_t c = 0; c < 3 && !matched; ++c) {
                // As written: V's terms hold it.
                ex const e = (framed() ? t_.root.written[b][c] : t_.points[b].position[c]) + t_.origin[c];
                if (free_of(e, m_.q)) continue;
                ex const ratio = t / e;
                if (!free_of(ratio, m_.q)) continue;
                w[b][c] += ratio;
                matched = true;
            }
        if (!matched && !other) return std::nullopt;
        if (!matched) *other += t;
    }
    if (framed()) // V = Σ w·p = Σ (R_Fᵀ w)·r + terms free of the inner coordinates
        for (auto& x : w) x = t_.in_root_axes(x);
    return w;
}

bool point_composite::potential_gradient(exvector& gradient) const {
    auto const w = weights();
    if (!w) return false;
    exvector const C = t_.generalized(*w);
    if (operations_of(m_, C) >= operations_of(m_, gradient)) return false;
    if (!agree_at_random_states(m_, C, gradient, 0x706f74ull)) return false;
    gradient = C;
    return true;
}

// γ from the first point with a weight, then every point's weight m γ, checked on the
// expressions, exactly, except along coordinates that q does not move (the first link's
// height under a vertical first axis: a constant in V, which weights() skips).
std::optional<point_composite::uniform_gravity> point_composite::gravity() const {
    if (framed()) return std::nullopt;
    ex other = 0;
    auto const w = weights(&other);
    if (!w) return std::nullopt;
    std::optional<std::array<ex, 3>> g;
    for (std::size_t b = 0; b < t_.points.size() && !g; ++b) {
        auto const& [wx, wy, wz] = (*w)[b];
        ex const& m = t_.points[b].mass;
        if (!m.is_zero() && (!wx.is_zero() || !wy.is_zero() || !wz.is_zero()))
            g = std::array<ex, 3>{GiNaC::normal(wx / m), GiNaC::normal(wy / m), GiNaC::normal(wz / m)};
    }
    if (!g) return std::nullopt;
    for (std::size_t b = 0; b < t_.points.size(); ++b)
        for (std::size_t c = 0; c < 3; ++c) {
            if (!free_of((*g)[c], m_.q) || !free_of((*g)[c], m_.qd)) return std::nullopt;
            bool const same = ((*w)[b][c] - t_.points[b].mass * (*g)[c]).expand().is_zero();
            if (!same && !free_of(t_.points[b].position[c], m_.q)) return std::nullopt;
        }
    return uniform_gravity{*g, other};
}

// M q̈'s share: each point's force is m J q̈ = m (Ω × p + U), with Ω = Σ s_j q̈_j and
// U = Σ u_j q̈_j over the joints that move it, summed from the root of the tree down.
exvector point_composite::momentum(exvector const& qdd) const {
    if (!t_.usable) return exvector(n_, 0);
    auto const [Omega, U] = t_.sums_down(qdd);
    std::vector<std::array<ex, 3>> f(t_.points.size());
    for (std::size_t N = 0; N < t_.nodes.size(); ++N)
        for (std::size_t b : t_.nodes[N].own) {
            std::array<ex, 3> const w = cross(Omega[N], t_.points[b].position);
            for (std::size_t c = 0; c < 3; ++c) f[b][c] = t_.points[b].mass * (w[c] + U[N][c]);
        }
    return t_.generalized(f);
}

exvector point_composite::forces_with_weights(std::array<ex, 3> const& gamma) const {
    std::vector<std::array<ex, 3>> f = t_.recursive_forces();
    if (f.empty()) return {};
    std::array<ex, 3> const g = t_.framed() ? t_.in_root_axes(gamma) : gamma;
    for (std::size_t b = 0; b < f.size(); ++b)
        for (std::size_t c = 0; c < 3; ++c) f[b][c] += t_.points[b].mass * g[c];
    return t_.generalized(f);
}

} // namespace lagc

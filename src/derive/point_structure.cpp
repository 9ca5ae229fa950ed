// Stage 3: points of rotating frames among the rate form's rates, and their translational
// inertia and forces as composites along the joints (rate_structure.hpp, point_composite).
#include "symbolic/chain_rule.hpp"
#include "symbolic/simplify.hpp"
#include "graph/expression_graph.hpp"
#include "derive/derive_support.hpp"
#include "derive/point_math.hpp"
#include "derive/rate_structure.hpp"
#include "derive/random_states.hpp"

#include <algorithm>
#include <cmath>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

using point_math::cross;
using point_math::dot;

point_composite::point_composite(model const& m, bilinear_form const& f, composite_inertia const& rotational)
    : m_(m), f_(f), n_(m.q.size()) {
    // Each joint's Jacobian of each point is one derivative: bounded, like the other searches
    // for structure (a model this large is no chain of bodies).
    if (m.points.empty() || double(m.points.size()) * double(n_) > 20000) return;
    if (!points(rotational) || !axes() || !twists() || !tree()) return;
    composite();
    usable_ = true;
}

bool point_composite::covers(std::size_t rate) const { return usable_ && rate_point_.count(rate) > 0; }

// Each point's rates (its velocity's elements, found as the rate form has them) and mass:
// the point's rates occur only in terms c r² with 2 c κ² the same for the three (½ m |v|²).
bool point_composite::points(composite_inertia const& rotational) {
    std::map<ex, std::size_t, GiNaC::ex_is_less> by_key;
    for (std::size_t k = 0; k < f_.rates.size(); ++k) by_key.emplace(without_numeric_factor(f_.rates[k].original), k);
    std::map<std::size_t, std::size_t> owner; // rate → point
    for (auto const& p : m_.points) {
        point x;
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
        for (auto const& y : points_) again = again || y.rate == x.rate;
        if (again) continue;
        x.source = static_cast<std::size_t>(&p - m_.points.data());
        for (int r : x.rate)
            if (r >= 0 && !owner.emplace(static_cast<std::size_t>(r), points_.size()).second) return false;
        points_.push_back(std::move(x));
    }
    if (points_.empty()) return false;
    std::vector<ex> coefficient(f_.rates.size(), 0);
    for (auto const& t : f_.terms) {
        bool const a = owner.count(t.a) > 0, b = owner.count(t.b) > 0;
        if (!a && !b) continue;
        if (t.a != t.b || !t.dc.empty()) return false;
        coefficient[t.a] += t.c;
    }
    for (auto& x : points_) {
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
        for (auto const& x : points_) {
            ex const k = constant(x.position[c]);
            auto it = std::find_if(counts.begin(), counts.end(), [&](auto const& e) { return e.first.is_equal(k); });
            if (it == counts.end()) counts.push_back({k, 1});
            else ++it->second;
        }
        auto const most = std::max_element(counts.begin(), counts.end(),
                                           [](auto const& a, auto const& b) { return a.second < b.second; });
        if (most->first.is_zero()) continue;
        origin_[c] = most->first;
        for (auto& x : points_) x.position[c] -= origin_[c];
    }
}

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

// J_i(p) = ∂p/∂q_i = s_i × p + u_i for every point p that q_i moves; which points each
// coordinate moves. u_i is o × s_i for a point o on the axis where the model has one (a
// frame's origin it added up, or the world's origin), else ∂p/∂q_i − s_i × p of the first
// point q_i moves.
bool point_composite::twists() {
    std::size_t const P = points_.size();
    moves_.assign(n_, std::vector<char>(P, 0));
    u_.assign(n_, {ex(0), ex(0), ex(0)});
    // ∂p/∂q_i by the chain rule on p's structure (the rates are p's velocity times κ), once
    // for each point q_i moves.
    std::vector<std::vector<std::array<ex, 3>>> J(n_, std::vector<std::array<ex, 3>>(P));
    for (std::size_t i = 0; i < n_; ++i) {
        bool first = true;
        for (std::size_t b = 0; b < P; ++b) {
            bool any = false;
            for (std::size_t c = 0; c < 3; ++c) any = any || has_any(points_[b].position[c], {m_.q[i]});
            if (!any) continue;
            moves_[i][b] = 1;
            for (std::size_t c = 0; c < 3; ++c) {
                ex const& p = points_[b].position[c];
                J[i][b][c] = partial(p, m_.q[i]);
            }
            if (!first) continue;
            first = false;
            std::array<ex, 3> const sp = cross(s_[i], points_[b].position);
            for (std::size_t c = 0; c < 3; ++c) u_[i][c] = J[i][b][c] - sp[c];
        }
    }
    choose_axes(J);
    on_axes();
    samples s(m_);
    std::vector<std::array<std::size_t, 4>> checks;
    for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t b = 0; b < P; ++b) {
            if (!moves_[i][b]) continue;
            std::array<ex, 3> const sp = cross(s_[i], points_[b].position);
            for (std::size_t c = 0; c < 3; ++c)
                checks.push_back({s.add(J[i][b][c]), s.add(sp[c] + u_[i][c]), s.add(sp[c]), s.add(u_[i][c])});
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
bool point_composite::tree() {
    std::size_t const P = points_.size();
    node_of_.assign(n_, -1);
    for (std::size_t i = 0; i < n_; ++i) {
        if (std::find(moves_[i].begin(), moves_[i].end(), 1) == moves_[i].end()) continue;
        for (std::size_t N = 0; N < nodes_.size() && node_of_[i] < 0; ++N)
            if (nodes_[N].members == moves_[i]) node_of_[i] = static_cast<int>(N);
        if (node_of_[i] >= 0) continue;
        node_of_[i] = static_cast<int>(nodes_.size());
        nodes_.push_back({moves_[i], -1, {}, 0});
    }
    for (auto& N : nodes_) N.size = static_cast<std::size_t>(std::count(N.members.begin(), N.members.end(), 1));
    for (std::size_t A = 0; A < nodes_.size(); ++A)
        for (std::size_t B = 0; B < nodes_.size(); ++B) {
            if (A == B) continue;
            bool meet = false, a_in_b = true;
            for (std::size_t p = 0; p < P; ++p) {
                if (nodes_[A].members[p] && nodes_[B].members[p]) meet = true;
                if (nodes_[A].members[p] && !nodes_[B].members[p]) a_in_b = false;
            }
            if (meet && !a_in_b && nodes_[A].size <= nodes_[B].size) return false; // overlapping, not nested
            if (a_in_b && nodes_[A].size < nodes_[B].size &&
                (nodes_[A].parent < 0 || nodes_[B].size < nodes_[static_cast<std::size_t>(nodes_[A].parent)].size))
                nodes_[A].parent = static_cast<int>(B);
        }
    for (std::size_t N = 0; N < nodes_.size(); ++N) {
        std::vector<char> own = nodes_[N].members;
        for (auto const& C : nodes_)
            if (C.parent == static_cast<int>(N))
                for (std::size_t p = 0; p < P; ++p)
                    if (C.members[p]) own[p] = 0;
        for (std::size_t p = 0; p < P; ++p)
            if (own[p]) nodes_[N].own.push_back(p);
    }
    return true;
}

std::vector<std::size_t> point_composite::children_first() const {
    std::vector<std::size_t> order(nodes_.size());
    for (std::size_t N = 0; N < order.size(); ++N) order[N] = N;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return nodes_[a].size < nodes_[b].size; });
    return order;
}

// m^c, c^c = Σ m p and K^c = Σ m (|p|² I − p pᵀ) of each node's points, children first.
void point_composite::composite() {
    mass_.assign(nodes_.size(), 0);
    moment_.assign(nodes_.size(), {ex(0), ex(0), ex(0)});
    K_.assign(nodes_.size(), exvector(9, 0));
    for (std::size_t N : children_first()) {
        for (std::size_t b : nodes_[N].own) {
            auto const& x = points_[b];
            auto const& p = x.position;
            mass_[N] += x.mass;
            for (std::size_t c = 0; c < 3; ++c) moment_[N][c] += x.mass * p[c];
            for (std::size_t r = 0; r < 3; ++r)
                for (std::size_t c = r; c < 3; ++c) {
                    ex const k = r == c ? x.mass * (GiNaC::pow(p[(r + 1) % 3], 2) + GiNaC::pow(p[(r + 2) % 3], 2))
                                        : -x.mass * p[r] * p[c];
                    K_[N][r * 3 + c] += k;
                }
        }
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = 0; c < r; ++c) K_[N][r * 3 + c] = K_[N][c * 3 + r];
        int const parent = nodes_[N].parent;
        if (parent < 0) continue;
        auto const P = static_cast<std::size_t>(parent);
        mass_[P] += mass_[N];
        for (std::size_t c = 0; c < 3; ++c) moment_[P][c] += moment_[N][c];
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = r; c < 3; ++c) K_[P][r * 3 + c] += K_[N][r * 3 + c];
    }
}

// For i moving every point j moves (node N of j):
//   M_ij = Σ_N m (s_i × p + u_i)·(s_j × p + u_j) = s_i·(K^c s_j + c^c × u_j) + u_i·(s_j × c^c + m^c u_j).
exvector point_composite::mass_matrix() const {
    exvector C(n_ * n_, 0);
    std::vector<std::array<ex, 3>> Y(n_), Z(n_);
    for (std::size_t j = 0; j < n_; ++j) {
        if (node_of_[j] < 0) continue;
        auto const N = static_cast<std::size_t>(node_of_[j]);
        std::array<ex, 3> const cu = cross(moment_[N], u_[j]), sc = cross(s_[j], moment_[N]);
        for (std::size_t r = 0; r < 3; ++r) {
            Y[j][r] = K_[N][r * 3] * s_[j][0] + K_[N][r * 3 + 1] * s_[j][1] + K_[N][r * 3 + 2] * s_[j][2] + cu[r];
            Z[j][r] = sc[r] + mass_[N] * u_[j][r];
        }
    }
    for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            if (node_of_[i] < 0 || node_of_[j] < 0) continue;
            auto const &A = nodes_[static_cast<std::size_t>(node_of_[i])], &B = nodes_[static_cast<std::size_t>(node_of_[j])];
            std::size_t near = j, far = i;
            if (A.size < B.size) near = i, far = j;
            bool nested = true;
            auto const& inner = nodes_[static_cast<std::size_t>(node_of_[near])].members;
            auto const& outer = nodes_[static_cast<std::size_t>(node_of_[far])].members;
            for (std::size_t p = 0; p < inner.size(); ++p) nested = nested && (!inner[p] || outer[p]);
            if (!nested) continue; // disjoint: no point moves with both
            auto const ti = root_translations_.find(i), tj = root_translations_.find(j);
            if (ti != root_translations_.end() && tj != root_translations_.end())
                C[i * n_ + j] = mass_[static_cast<std::size_t>(node_of_[near])] * dot(ti->second, tj->second);
            else
                C[i * n_ + j] = dot(s_[far], Y[near]) + dot(u_[far], Z[near]);
        }
    return C;
}

// Used where it agrees and makes M and h (with the rest of them, which shares their
// rotations) smaller: on short chains the points' Jacobians cost less than the composites.
bool point_composite::add(exvector& M, exvector& h, exvector const& M_term_by_term, exvector const& h_term_by_term,
                          exvector& compact_delta, exvector& share) const {
    if (!usable_) return false;
    exvector const CM = mass_matrix();
    // Each point's force in h: κ F of its rates (F = 2 c ρ), m times its acceleration at q̈ = 0.
    std::vector<std::array<ex, 3>> f(points_.size());
    for (std::size_t b = 0; b < points_.size(); ++b)
        for (std::size_t c = 0; c < 3; ++c) f[b][c] = points_[b].mass * points_[b].acceleration[c];
    exvector const Ch = generalized(f);
    exvector with, without;
    for (std::size_t i = 0; i < n_; ++i) {
        for (std::size_t j = 0; j <= i; ++j) {
            with.push_back(M[i * n_ + j] + CM[i * n_ + j]);
            without.push_back(M[i * n_ + j] + M_term_by_term[i * n_ + j]);
        }
        with.push_back(h[i] + Ch[i]);
        without.push_back(h[i] + h_term_by_term[i]);
    }
    if (operations_of(m_, with) >= operations_of(m_, without)) return false;
    if (!agree_at_random_states(m_, with, without, 0x706d6173ull)) return false;
    for (std::size_t k = 0; k < n_ * n_; ++k) M[k] += CM[k];
    // h to evaluate (bias_forces, forward and inverse dynamics) may take the accelerations
    // the RNEA's way where that agrees (and, mass_and_bias_from_bilinear_form decides, makes
    // h smaller); the linearization and C keep the form above, whose derivatives are smaller
    // (the 10-joint arm: 24,536 operations of linearization against 26,682).
    if (std::vector<std::array<ex, 3>> const r = recursive_forces(); !r.empty()) {
        exvector const Cr = generalized(r);
        exvector acceleration, recursive;
        for (std::size_t i = 0; i < n_; ++i) acceleration.push_back(h[i] + Ch[i]), recursive.push_back(h[i] + Cr[i]);
        if (agree_at_random_states(m_, recursive, acceleration, 0x726e6561ull))
            for (std::size_t i = 0; i < n_; ++i) compact_delta[i] += Cr[i] - Ch[i];
    }
    for (std::size_t i = 0; i < n_; ++i) h[i] += Ch[i];
    share = Ch;
    return true;
}

// Σ s_j w_j and Σ u_j w_j over the joints that move each node's points (its own and those
// above it), summed from the root down: the angular and linear velocity of the node's
// frame at rates w (q̇, or q̈ for M q̈), as the RNEA's forward pass forms them.
std::array<std::vector<std::array<ex, 3>>, 2> point_composite::sums_down(exvector const& w) const {
    std::vector<std::array<ex, 3>> Omega(nodes_.size(), {ex(0), ex(0), ex(0)}), U = Omega;
    std::vector<std::size_t> order = children_first();
    std::reverse(order.begin(), order.end());
    for (std::size_t N : order) {
        if (nodes_[N].parent >= 0) Omega[N] = Omega[static_cast<std::size_t>(nodes_[N].parent)], U[N] = U[static_cast<std::size_t>(nodes_[N].parent)];
        for (std::size_t j = 0; j < n_; ++j)
            if (node_of_[j] == static_cast<int>(N))
                for (std::size_t c = 0; c < 3; ++c) Omega[N][c] += s_[j][c] * w[j], U[N][c] += u_[j][c] * w[j];
    }
    return {Omega, U};
}

// Each node's joint; empty where a node has more than one (their order is not known).
std::vector<int> point_composite::joints() const {
    std::vector<int> joint(nodes_.size(), -1);
    for (std::size_t j = 0; j < n_; ++j) {
        if (node_of_[j] < 0) continue;
        auto const N = static_cast<std::size_t>(node_of_[j]);
        if (joint[N] >= 0) return {};
        joint[N] = static_cast<int>(j);
    }
    return joint;
}

// A = Σ q̇_j Ω_<j × s_j and B = Σ q̇_j (Ω_<j × u_j + V_<j × s_j) down the tree: each node's
// acceleration at q̈ = 0 (ṡ_j, u̇_j of the twists the frames above carry), Ω_<j and V_<j the
// velocity of the frame before joint j (the parent's, and the node's joints before j).
std::array<std::vector<std::array<ex, 3>>, 2> point_composite::velocity_accelerations(
    std::vector<std::vector<std::size_t>> const& chains, std::vector<std::array<ex, 3>> const& Omega,
    std::vector<std::array<ex, 3>> const& V) const {
    std::array<ex, 3> const zero = {ex(0), ex(0), ex(0)};
    std::vector<std::array<ex, 3>> A(nodes_.size(), zero), B = A;
    std::vector<std::size_t> order = children_first();
    std::reverse(order.begin(), order.end());
    for (std::size_t N : order) {
        std::array<ex, 3> Om = zero, Vp = zero; // the frame's before each joint
        if (nodes_[N].parent >= 0) {
            auto const P = static_cast<std::size_t>(nodes_[N].parent);
            Om = Omega[P], Vp = V[P], A[N] = A[P], B[N] = B[P];
        }
        for (std::size_t j : chains[N]) {
            ex const& qd = m_.qd[j];
            std::array<ex, 3> const os = cross(Om, s_[j]), ou = cross(Om, u_[j]), vs = cross(Vp, s_[j]);
            for (std::size_t c = 0; c < 3; ++c) {
                A[N][c] += os[c] * qd, B[N][c] += (ou[c] + vs[c]) * qd;
                Om[c] += s_[j][c] * qd, Vp[c] += u_[j][c] * qd;
            }
        }
    }
    return {A, B};
}

// Each point's force m a at q̈ = 0, a = A × p + Ω × ṗ + B with ṗ = Ω × p + V (world axes, or
// F's where its root is one joint of a constant twist). A floating root (root_frame()):
// the same of the tree relative to F, plus F's own terms, a_F = R_Fᵀ ö_F + ω̇ × r + ω × (ω × r)
// + 2 ω × ṙ + r̈.
std::vector<std::array<ex, 3>> point_composite::recursive_forces() const {
    bool const floating = framed() && !single_fixed_root_;
    std::vector<std::vector<std::size_t>> const chains = joint_chains(floating);
    if (chains.empty()) return {};
    exvector rates(m_.qd.begin(), m_.qd.end());
    if (floating)
        for (std::size_t i : root_coordinates_) rates[i] = 0;
    auto const [Omega, V] = sums_down(rates);
    auto const [A, B] = velocity_accelerations(chains, Omega, V);
    std::array<ex, 3> const zero = {ex(0), ex(0), ex(0)};
    std::array<ex, 3> const& w = floating ? root_omega_ : zero;
    std::vector<std::array<ex, 3>> f(points_.size(), zero);
    for (std::size_t N = 0; N < nodes_.size(); ++N)
        for (std::size_t b : nodes_[N].own) {
            std::array<ex, 3> const& p = points_[b].position;
            std::array<ex, 3> const wp = cross(Omega[N], p);
            std::array<ex, 3> const pd = {wp[0] + V[N][0], wp[1] + V[N][1], wp[2] + V[N][2]};
            std::array<ex, 3> const ap = cross(A[N], p), wpd = cross(Omega[N], pd);
            std::array<ex, 3> a = {ap[0] + wpd[0] + B[N][0], ap[1] + wpd[1] + B[N][1], ap[2] + wpd[2] + B[N][2]};
            if (floating) {
                std::array<ex, 3> const wr = cross(w, p), inner = {wr[0] + 2 * pd[0], wr[1] + 2 * pd[1], wr[2] + 2 * pd[2]};
                std::array<ex, 3> const spin = cross(w, inner), turn = cross(root_omega_dot_, p);
                for (std::size_t c = 0; c < 3; ++c) a[c] += root_base_[c] + turn[c] + spin[c];
            }
            for (std::size_t c = 0; c < 3; ++c) f[b][c] = points_[b].mass * a[c];
        }
    return f;
}

// Σ_points J_i(p)·f = s_i·N^c + u_i·F^c, with each point's force f, F^c = Σ f and N^c = Σ p × f
// over the points of the node i enters at.
exvector point_composite::generalized(std::vector<std::array<ex, 3>> const& f) const {
    std::vector<std::array<ex, 3>> force(nodes_.size(), {ex(0), ex(0), ex(0)}), torque = force;
    for (std::size_t N : children_first()) {
        for (std::size_t b : nodes_[N].own) {
            std::array<ex, 3> const t = cross(points_[b].position, f[b]);
            for (std::size_t c = 0; c < 3; ++c) force[N][c] += f[b][c], torque[N][c] += t[c];
        }
        int const parent = nodes_[N].parent;
        if (parent < 0) continue;
        auto const P = static_cast<std::size_t>(parent);
        for (std::size_t c = 0; c < 3; ++c) force[P][c] += force[N][c], torque[P][c] += torque[N][c];
    }
    exvector C(n_, 0);
    for (std::size_t i = 0; i < n_; ++i) {
        if (node_of_[i] < 0) continue;
        auto const N = static_cast<std::size_t>(node_of_[i]);
        C[i] = dot(s_[i], torque[N]) + dot(u_[i], force[N]);
    }
    return C;
}

// ∂V/∂q from the same sums where V is Σ w·p over the points (w free of q: gravity, m g p_z)
// plus terms free of q: ∂V/∂q_i = s_i·Σ p × w + u_i·Σ w over the points q_i moves. Replaces
// `gradient` (V's own derivatives) where it agrees with it and is smaller.
std::optional<std::vector<std::array<ex, 3>>> point_composite::weights(ex* other) const {
    if (!usable_ || m_.potential.is_zero()) return std::nullopt;
    exvector terms;
    if (GiNaC::is_exactly_a<GiNaC::add>(m_.potential))
        for (std::size_t k = 0; k < m_.potential.nops(); ++k) terms.push_back(m_.potential.op(k));
    else
        terms.push_back(m_.potential);
    if (double(terms.size()) * double(points_.size()) > 1e5) return std::nullopt;
    std::vector<std::array<ex, 3>> w(points_.size(), {ex(0), ex(0), ex(0)});
    for (ex const& t : terms) {
        if (free_of(t, m_.q)) continue;
        bool matched = false;
        for (std::size_t b = 0; b < points_.size() && !matched; ++b)
            for (std::size_t c = 0; c < 3 && !matched; ++c) {
                // As written: V's terms hold it.
                ex const e = (framed() ? written_[b][c] : points_[b].position[c]) + origin_[c];
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
        for (auto& x : w) x = in_root_axes(x);
    return w;
}

bool point_composite::potential_gradient(exvector& gradient) const {
    auto const w = weights();
    if (!w) return false;
    exvector const C = generalized(*w);
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
    for (std::size_t b = 0; b < points_.size() && !g; ++b) {
        auto const& [wx, wy, wz] = (*w)[b];
        ex const& m = points_[b].mass;
        if (!m.is_zero() && (!wx.is_zero() || !wy.is_zero() || !wz.is_zero()))
            g = std::array<ex, 3>{GiNaC::normal(wx / m), GiNaC::normal(wy / m), GiNaC::normal(wz / m)};
    }
    if (!g) return std::nullopt;
    for (std::size_t b = 0; b < points_.size(); ++b)
        for (std::size_t c = 0; c < 3; ++c) {
            if (!free_of((*g)[c], m_.q) || !free_of((*g)[c], m_.qd)) return std::nullopt;
            bool const same = ((*w)[b][c] - points_[b].mass * (*g)[c]).expand().is_zero();
            if (!same && !free_of(points_[b].position[c], m_.q)) return std::nullopt;
        }
    return uniform_gravity{*g, other};
}

// M q̈'s share: each point's force is m J q̈ = m (Ω × p + U), with Ω = Σ s_j q̈_j and
// U = Σ u_j q̈_j over the joints that move it, summed from the root of the tree down.
exvector point_composite::momentum(exvector const& qdd) const {
    if (!usable_) return exvector(n_, 0);
    auto const [Omega, U] = sums_down(qdd);
    std::vector<std::array<ex, 3>> f(points_.size());
    for (std::size_t N = 0; N < nodes_.size(); ++N)
        for (std::size_t b : nodes_[N].own) {
            std::array<ex, 3> const w = cross(Omega[N], points_[b].position);
            for (std::size_t c = 0; c < 3; ++c) f[b][c] = points_[b].mass * (w[c] + U[N][c]);
        }
    return generalized(f);
}

} // namespace lagc

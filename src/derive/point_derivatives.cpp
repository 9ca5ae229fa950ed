// Stage 3: the composites' shares of ∂τ/∂q and of C — the points' and the rotational
// bodies' — as the analytic derivatives of the RNEA form them (point_composite::derivatives,
// rate_structure.hpp). A body's ½ ωᵀ J ω enters its node's Y as R J Rᵀ in world axes (a
// pure rotational inertia: the wrench below then gives Euler's I ω̇ + ω × I ω).
//
// In world axes with spatial vectors at the origin (motion m = (ω; v), force f = (n; f)):
// joint j's twist S_j = (s_j; u_j), a node's velocity v_N = Σ S_j q̇_j and acceleration
// a_N = Σ S_j q̈_j + v_j × S_j q̇_j over the joints above it (plus (0; γ) for uniform
// gravity: the RNEA's base acceleration −g, which makes the points' weights inertia; a_K
// below then holds it, and e_k its derivatives), its points' inertia
// Y_N (m ↦ (K ω + c × v; m v − c × ω)) and wrench w_N = Y_N a_N + v_N ×* Y_N v_N, F_N the
// composite wrench below N, and τ_i = S_i·F_I (I: the node of joint i). Moving q_k (node K)
// rotates everything below K about S_k and nothing else, which gives, with
// c_k = S_k × v_K, e_k = S_k × a_K − c_k × v_K, Ṡ_k = v_K × S_k, and the composite of
// B_N = ½ ((v_N ×*) Y_N + (m ↦ m ×* Y_N v_N) − Y_N (v_N ×)):
//   ∂τ_i/∂q_k = −(Y^c_I S_i)·e_k − 2 (B^cᵀ_I S_i)·c_k     (I at or below K),
//               S_i·(S_k ×* F_K − Y^c_K e_k − 2 B^c_K c_k)  (I above K),
//   C_ik = ½ ∂τ_i/∂q̇_k = (B^cᵀ_I S_i)·S_k + (Y^c_I S_i)·Ṡ_k  (I at or below K),
//                         S_i·(B^c_K S_k + Y^c_K Ṡ_k)        (I above K),
// and zero for joints on different branches: a few products of 6-vectors per pair of
// joints, where forward-mode derivatives redo every body's kinematics below K.
// The caller compares them with derivatives of the shares themselves at random states.
#include "derive/rate_structure.hpp"
#include "derive/spatial.hpp"

#include <algorithm>
#include <cmath>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;
using namespace spatial;

namespace {

vec6 combine(std::initializer_list<std::pair<ex, vec6>> terms) {
    vec6 y;
    for (std::size_t r = 0; r < 6; ++r) {
        exvector t;
        for (auto const& [k, v] : terms)
            if (!v[r].is_zero()) t.push_back(k * v[r]);
        y[r] = GiNaC::add(t);
    }
    return y;
}

// B = ½ ((v ×*) Y + (m ↦ m ×* Y v) − Y (v ×)), column by column.
mat6 coriolis_operator(mat6 const& Y, vec6 const& v) {
    vec6 const h = times(Y, v);
    mat6 B;
    for (std::size_t col = 0; col < 6; ++col) {
        vec6 e;
        e.fill(0);
        e[col] = 1;
        vec6 const x = combine({{ex(1) / 2, force_cross(v, times(Y, e))}, {ex(1) / 2, force_cross(e, h)},
                                {ex(-1) / 2, times(Y, motion_cross(v, e))}});
        for (std::size_t r = 0; r < 6; ++r) B[r * 6 + col] = x[r];
    }
    return B;
}

} // namespace

point_composite::share_derivatives point_composite::derivatives(exvector const& qdd,
                                                                std::vector<composite_inertia::body> const& bodies,
                                                                std::array<ex, 3> const* gravity) const {
    share_derivatives out;
    std::vector<int> const joint = usable_ && !framed() ? joints() : std::vector<int>{};
    if (joint.empty()) return out;
    std::size_t const nodes = nodes_.size();
    std::vector<exvector> rotational(nodes, exvector(9, 0));
    if (!place(bodies, rotational)) return out;
    auto const [Omega, V] = sums_down(exvector(m_.qd.begin(), m_.qd.end()));
    auto const [Alpha, Beta] = sums_down(qdd);
    std::vector<std::vector<std::size_t>> chains(nodes);
    for (std::size_t N = 0; N < nodes; ++N)
        if (joint[N] >= 0) chains[N].push_back(static_cast<std::size_t>(joint[N]));
    auto const [A, B] = velocity_accelerations(chains, Omega, V);
    std::vector<vec6> v(nodes), a(nodes), F(nodes);
    std::vector<mat6> Y(nodes), Bc(nodes);
    for (std::size_t N = 0; N < nodes; ++N) {
        v[N] = joined(Omega[N], V[N]);
        for (std::size_t c = 0; c < 3; ++c) {
            a[N][c] = A[N][c] + Alpha[N][c], a[N][c + 3] = B[N][c] + Beta[N][c];
            if (gravity) a[N][c + 3] += (*gravity)[c];
        }
    }
    // Each node's own points: Y, its wrench and B; then the composites, children first.
    for (std::size_t N : children_first()) {
        std::vector<std::pair<ex, std::array<ex, 3>>> own;
        for (std::size_t b : nodes_[N].own) own.push_back({points_[b].mass, points_[b].position});
        mat6 const y = body_inertia(own, rotational[N]);
        vec6 const h = times(y, v[N]);
        vec6 const w = combine({{1, times(y, a[N])}, {1, force_cross(v[N], h)}});
        mat6 const b = coriolis_operator(y, v[N]);
        for (std::size_t k = 0; k < 36; ++k) Y[N][k] += y[k], Bc[N][k] += b[k];
        for (std::size_t r = 0; r < 6; ++r) F[N][r] += w[r];
        if (nodes_[N].parent < 0) continue;
        auto const P = static_cast<std::size_t>(nodes_[N].parent);
        for (std::size_t k = 0; k < 36; ++k) Y[P][k] += Y[N][k], Bc[P][k] += Bc[N][k];
        for (std::size_t r = 0; r < 6; ++r) F[P][r] += F[N][r];
    }
    auto at_or_below = [&](std::size_t lower, std::size_t upper) { // lower is upper or below it
        for (int x = static_cast<int>(lower); x >= 0; x = nodes_[static_cast<std::size_t>(x)].parent)
            if (static_cast<std::size_t>(x) == upper) return true;
        return false;
    };
    std::vector<vec6> S(n_), YS(n_), BS(n_), c(n_), e(n_), Sdot(n_), G(n_), X(n_);
    for (std::size_t k = 0; k < n_; ++k) {
        if (node_of_[k] < 0) continue;
        auto const K = static_cast<std::size_t>(node_of_[k]);
        S[k] = joined(s_[k], u_[k]);
        YS[k] = times(Y[K], S[k]);
        BS[k] = times(Bc[K], S[k], true);
        c[k] = motion_cross(S[k], v[K]);
        e[k] = combine({{1, motion_cross(S[k], a[K])}, {-1, motion_cross(c[k], v[K])}});
        Sdot[k] = motion_cross(v[K], S[k]);
        G[k] = combine({{1, force_cross(S[k], F[K])}, {-1, times(Y[K], e[k])}, {-2, times(Bc[K], c[k])}});
        X[k] = combine({{1, times(Bc[K], S[k])}, {1, times(Y[K], Sdot[k])}});
    }
    out.dtau_dq.assign(n_ * n_, 0);
    out.coriolis.assign(n_ * n_, 0);
    for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t k = 0; k < n_; ++k) {
            if (node_of_[i] < 0 || node_of_[k] < 0) continue;
            auto const I = static_cast<std::size_t>(node_of_[i]), K = static_cast<std::size_t>(node_of_[k]);
            if (at_or_below(I, K)) {
                out.dtau_dq[i * n_ + k] = -dot(YS[i], e[k]) - 2 * dot(BS[i], c[k]);
                out.coriolis[i * n_ + k] = dot(BS[i], S[k]) + dot(YS[i], Sdot[k]);
            } else if (at_or_below(K, I)) {
                out.dtau_dq[i * n_ + k] = dot(S[i], G[k]);
                out.coriolis[i * n_ + k] = dot(S[i], X[k]);
            }
        }
    return out;
}

// Rp ∂r/∂q̇_j = s_j for the joints j of node N (r a body's rates, Rp its frame in their
// order), at two random states.
bool point_composite::turns_joint_axes(exvector const& Rp, std::array<ex, 3> const& rate, std::size_t N) const {
    samples s(m_);
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t j = 0; j < n_; ++j) {
        if (node_of_[j] != static_cast<int>(N)) continue;
        std::array<ex, 3> alpha;
        for (std::size_t c = 0; c < 3; ++c) alpha[c] = partial(rate[c], m_.qd[j]);
        for (std::size_t r = 0; r < 3; ++r)
            pairs.push_back({s.add(Rp[r * 3] * alpha[0] + Rp[r * 3 + 1] * alpha[1] + Rp[r * 3 + 2] * alpha[2]), s.add(s_[j][r])});
    }
    if (!s.evaluate(m_, 0x6a6f696e74ull, 2)) return false;
    for (std::size_t x = 0; x < s.count(); ++x)
        for (auto const& [a, b] : pairs)
            if (!(std::abs(s(x, a) - s(x, b)) <= 1e-9 * (1 + std::abs(s(x, b))))) return false;
    return true;
}

// Each body's frame: R among the model's frames with Ṙ = R [ω]× (ω its rates, body axes) at
// random states; its node: the one whose joints (its own and those above) are the ones
// whose rates ω has. Its inertia in world axes, R J Rᵀ, is added to K[node].
bool point_composite::place(std::vector<composite_inertia::body> const& bodies, std::vector<exvector>& K) const {
    if (bodies.empty()) return true;
    std::vector<std::array<ex, 3>> omegas;
    for (auto const& b : bodies) omegas.push_back(b.rate);
    // ω = P r for a signed permutation P: the triple's rates are ω's elements in some order,
    // with signs.
    frame_turns const turns(m_, omegas, 0x626f6479ull);
    if (!turns.evaluated()) return false;
    std::array<std::array<int, 3>, 6> const permutations = {{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}};
    // The joints at or above each node.
    std::vector<std::vector<char>> above(nodes_.size(), std::vector<char>(n_, 0));
    for (std::size_t N = 0; N < nodes_.size(); ++N)
        for (int x = static_cast<int>(N); x >= 0; x = nodes_[static_cast<std::size_t>(x)].parent)
            for (std::size_t j = 0; j < n_; ++j)
                if (node_of_[j] == x) above[N][j] = 1;
    for (std::size_t b = 0; b < bodies.size(); ++b) {
        std::vector<char> moved(n_, 0);
        for (std::size_t j = 0; j < n_; ++j)
            for (std::size_t c = 0; c < 3; ++c) moved[j] = moved[j] || has_any(bodies[b].rate[c], {m_.qd[j]});
        auto N = static_cast<std::size_t>(std::find(above.begin(), above.end(), moved) - above.begin());
        // Else the one node whose turning joints (hinges: a slide's rate is in no ω) are those:
        // a floating base's ω has its quaternion's rates, not its translations'.
        auto const hinges_above = [&](std::size_t x) {
            std::vector<char> h = above[x];
            for (std::size_t j = 0; j < n_; ++j) h[j] = h[j] && !(s_[j][0].is_zero() && s_[j][1].is_zero() && s_[j][2].is_zero());
            return h;
        };
        // Nodes that differ by slides alone turn it alike (a slide under a floating base): a
        // rotational inertia without mass is the same spatial inertia about every point, so
        // the one of them above all the others takes it; with none such, which is not clear.
        if (N == nodes_.size()) {
            auto const is_above = [&](std::size_t x, std::size_t y) { // x is y or above it
                for (int z = static_cast<int>(y); z >= 0; z = nodes_[static_cast<std::size_t>(z)].parent)
                    if (z == static_cast<int>(x)) return true;
                return false;
            };
            std::vector<std::size_t> fits;
            for (std::size_t x = 0; x < nodes_.size(); ++x)
                if (hinges_above(x) == moved) fits.push_back(x);
            for (std::size_t x : fits)
                if (std::all_of(fits.begin(), fits.end(), [&](std::size_t y) { return is_above(x, y); })) N = x;
            if (N == nodes_.size()) return false;
        }
        exvector Rp; // R P: body axes in the triple's order
        for (std::size_t F = 0; F < m_.frames.size() && Rp.empty(); ++F)
            for (std::size_t k = 0; k < 48 && Rp.empty(); ++k) {
                std::array<int, 3> const& pi = permutations[k / 8];
                std::array<int, 3> const sign = {k & 1 ? -1 : 1, k & 2 ? -1 : 1, k & 4 ? -1 : 1};
                if (!turns(F, b, true, pi, sign)) continue;
                Rp.assign(9, 0);
                for (std::size_t r = 0; r < 3; ++r)
                    for (std::size_t c = 0; c < 3; ++c)
                        Rp[r * 3 + static_cast<std::size_t>(pi[c])] = sign[c] * m_.frames[F][r * 3 + c];
                // In the root body's axes (root_frame): the body's turn relative to the root's,
                // the same at the root's coordinates where the root's frame is the identity.
                if (framed()) Rp = in_root_axes(Rp);
                // C R turns with ω too for a constant C (rotz(q1) and rotx(pi)*rotz(q1) both turn
                // with [0, 0, q̇1]): the body's frame is the one that turns the node's joint's
                // axis in its axes into the joint's axis in the world's.
                if (Rp.empty() || !turns_joint_axes(Rp, bodies[b].rate, N)) Rp.clear();
            }
        if (Rp.empty()) return false;
        exvector const& J = bodies[b].J;
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = 0; c < 3; ++c) {
                exvector terms;
                for (std::size_t a = 0; a < 3; ++a)
                    for (std::size_t e = 0; e < 3; ++e)
                        if (!J[a * 3 + e].is_zero()) terms.push_back(Rp[r * 3 + a] * J[a * 3 + e] * Rp[c * 3 + e]);
                K[N][r * 3 + c] += GiNaC::add(terms);
            }
    }
    return true;
}

} // namespace lagc

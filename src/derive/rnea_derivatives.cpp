// Stage 3: the composites' shares of ∂τ/∂q and of C — the points' and the rotational
// bodies' — as the analytic derivatives of the RNEA form them (tree_algorithms.hpp). A
// body's ½ ωᵀ J ω enters its node's Y as R J Rᵀ in world axes (a pure rotational inertia:
// the wrench below then gives Euler's I ω̇ + ω × I ω).
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
#include "derive/frame_turns.hpp"
#include "derive/tree_algorithms.hpp"
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

share_derivatives rnea_derivatives(kinematic_tree const& t, exvector const& qdd,
                                   std::vector<rotational_body> const& bodies, std::array<ex, 3> const* gravity) {
    share_derivatives out;
    std::vector<int> const joint = t.usable && !t.framed() ? t.single_joints() : std::vector<int>{};
    if (joint.empty()) return out;
    std::size_t const nodes = t.nodes.size();
    std::vector<exvector> rotational(nodes, exvector(9, 0));
    if (!t.place(bodies, rotational)) return out;
    auto const [Omega, V] = t.sums_down(exvector(t.m.qd.begin(), t.m.qd.end()));
    auto const [Alpha, Beta] = t.sums_down(qdd);
    std::vector<std::vector<std::size_t>> chains(nodes);
    for (std::size_t N = 0; N < nodes; ++N)
        if (joint[N] >= 0) chains[N].push_back(static_cast<std::size_t>(joint[N]));
    auto const [A, B] = t.velocity_accelerations(chains, Omega, V);
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
    for (std::size_t N : t.children_first()) {
        mat6 const y = body_inertia(t.own_masses(N), rotational[N]);
        vec6 const h = times(y, v[N]);
        vec6 const w = combine({{1, times(y, a[N])}, {1, force_cross(v[N], h)}});
        mat6 const b = coriolis_operator(y, v[N]);
        for (std::size_t k = 0; k < 36; ++k) Y[N][k] += y[k], Bc[N][k] += b[k];
        for (std::size_t r = 0; r < 6; ++r) F[N][r] += w[r];
        if (t.nodes[N].parent < 0) continue;
        auto const P = static_cast<std::size_t>(t.nodes[N].parent);
        for (std::size_t k = 0; k < 36; ++k) Y[P][k] += Y[N][k], Bc[P][k] += Bc[N][k];
        for (std::size_t r = 0; r < 6; ++r) F[P][r] += F[N][r];
    }
    auto at_or_below = [&](std::size_t lower, std::size_t upper) { // lower is upper or below it
        for (int x = static_cast<int>(lower); x >= 0; x = t.nodes[static_cast<std::size_t>(x)].parent)
            if (static_cast<std::size_t>(x) == upper) return true;
        return false;
    };
    std::vector<vec6> S(t.n), YS(t.n), BS(t.n), c(t.n), e(t.n), Sdot(t.n), G(t.n), X(t.n);
    for (std::size_t k = 0; k < t.n; ++k) {
        if (t.joints[k].node < 0) continue;
        auto const K = static_cast<std::size_t>(t.joints[k].node);
        S[k] = joined(t.joints[k].s, t.joints[k].u);
        YS[k] = times(Y[K], S[k]);
        BS[k] = times(Bc[K], S[k], true);
        c[k] = motion_cross(S[k], v[K]);
        e[k] = combine({{1, motion_cross(S[k], a[K])}, {-1, motion_cross(c[k], v[K])}});
        Sdot[k] = motion_cross(v[K], S[k]);
        G[k] = combine({{1, force_cross(S[k], F[K])}, {-1, times(Y[K], e[k])}, {-2, times(Bc[K], c[k])}});
        X[k] = combine({{1, times(Bc[K], S[k])}, {1, times(Y[K], Sdot[k])}});
    }
    out.dtau_dq.assign(t.n * t.n, 0);
    out.coriolis.assign(t.n * t.n, 0);
    for (std::size_t i = 0; i < t.n; ++i)
        for (std::size_t k = 0; k < t.n; ++k) {
            if (t.joints[i].node < 0 || t.joints[k].node < 0) continue;
            auto const I = static_cast<std::size_t>(t.joints[i].node), K = static_cast<std::size_t>(t.joints[k].node);
            if (at_or_below(I, K)) {
                out.dtau_dq[i * t.n + k] = -dot(YS[i], e[k]) - 2 * dot(BS[i], c[k]);
                out.coriolis[i * t.n + k] = dot(BS[i], S[k]) + dot(YS[i], Sdot[k]);
            } else if (at_or_below(K, I)) {
                out.dtau_dq[i * t.n + k] = dot(S[i], G[k]);
                out.coriolis[i * t.n + k] = dot(S[i], X[k]);
            }
        }
    return out;
}

} // namespace lagc

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

// B = ½ ((v ×*) Y + (m ↦ m ×* Y v) − Y (v ×)), column by column.
mat6 coriolis_operator(mat6 const& Y, vec6 const& v) {
    vec6 const h = times(Y, v);
    mat6 B;
    for (std::size_t col = 0; col < 6; ++col) {
        vec6 e;
        e.fill(0);
        e[col] = 1;
        vec6 const x = combined({{ex(1) / 2, force_cross(v, times(Y, e))}, {ex(1) / 2, force_cross(e, h)},
                                {ex(-1) / 2, times(Y, motion_cross(v, e))}});
        for (std::size_t r = 0; r < 6; ++r) B[r * 6 + col] = x[r];
    }
    return B;
}

// Per joint: S, Y S, Bᵀ S, c = S × v, e = S × a − c × v, Ṡ = v × S, G = S ×* F − Y e − 2 B c,
// X = B S + Y Ṡ (with 2 B given: ½ (2 B)ᵀ S, − (2 B) c, ½ (2 B) S).
struct joint_vectors {
    vec6 S, YS, BS, c, e, Sdot, G, X;
};

joint_vectors vectors_of(rnea_unit const& u, bool twice, multiplication mul) {
    auto half = [&](vec6 const& x) {
        if (!twice) return x;
        vec6 y;
        for (std::size_t r = 0; r < 6; ++r) y[r] = mul(GiNaC::numeric(1, 2), x[r]);
        return y;
    };
    joint_vectors j;
    j.S = u.S;
    j.YS = times(u.Y, u.S, false, mul);
    j.BS = half(times(u.B, u.S, true, mul));
    j.c = motion_cross(u.S, u.v, mul);
    j.e = combined({{1, motion_cross(u.S, u.a, mul)}, {-1, motion_cross(j.c, u.v, mul)}}, mul);
    j.Sdot = motion_cross(u.v, u.S, mul);
    j.G = combined({{1, force_cross(u.S, u.F, mul)}, {-1, times(u.Y, j.e, false, mul)}, {twice ? -1 : -2, times(u.B, j.c, false, mul)}},
                  mul);
    j.X = combined({{1, half(times(u.B, u.S, false, mul))}, {1, times(u.Y, j.Sdot, false, mul)}}, mul);
    return j;
}

} // namespace

share_derivatives rnea_pairs(std::vector<rnea_unit> const& units, std::function<bool(std::size_t, std::size_t)> const& below,
                             bool twice, multiplication mul) {
    std::size_t const n = units.size();
    std::vector<joint_vectors> J(n);
    for (std::size_t k = 0; k < n; ++k)
        if (units[k].used) J[k] = vectors_of(units[k], twice, mul);
    share_derivatives out;
    out.dtau_dq.assign(n * n, 0);
    out.coriolis.assign(n * n, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t k = 0; k < n; ++k) {
            if (!units[i].used || !units[k].used) continue;
            joint_vectors const &a = J[i], &b = J[k];
            if (below(i, k)) {
                out.dtau_dq[i * n + k] = sum({negated(dot(a.YS, b.e, mul)), mul(-2, dot(a.BS, b.c, mul))});
                out.coriolis[i * n + k] = sum({dot(a.BS, b.S, mul), dot(a.YS, b.Sdot, mul)});
            } else if (below(k, i)) {
                out.dtau_dq[i * n + k] = dot(a.S, b.G, mul);
                out.coriolis[i * n + k] = dot(a.S, b.X, mul);
            }
        }
    return out;
}

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
        vec6 const w = combined({{1, times(y, a[N])}, {1, force_cross(v[N], h)}});
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
    std::vector<rnea_unit> units(t.n);
    for (std::size_t k = 0; k < t.n; ++k) {
        if (t.joints[k].node < 0) continue;
        auto const K = static_cast<std::size_t>(t.joints[k].node);
        units[k] = {true, joined(t.joints[k].s, t.joints[k].u), v[K], a[K], F[K], Y[K], Bc[K]};
    }
    auto const below = [&](std::size_t i, std::size_t k) {
        return at_or_below(static_cast<std::size_t>(t.joints[i].node), static_cast<std::size_t>(t.joints[k].node));
    };
    out = rnea_pairs(units, below, false, plain_product);
    return out;
}

} // namespace lagc

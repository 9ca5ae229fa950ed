// Stage 3: forward dynamics by the articulated-body algorithm over the composites' tree
// (tree_algorithms.hpp): O(n) small products, where q̈ from M
// and h costs the n² entries of M and its n³/6 factorisation.
//
// Everything is in world axes with spatial vectors at the origin, as in rnea_derivatives.cpp
// (motion m = (ω; v), force f = (n; f)), so no transform is needed between bodies
// (Featherstone, Rigid Body Dynamics Algorithms, Table 7.1 with every quantity in one frame):
//   down:  v_N = v_P + S_j q̇_j,  c_N = (v_P × S_j) q̇_j,  I^A_N = Y_N,  p^A_N = v_N ×* Y_N v_N;
//   up:    U = I^A S, D = Sᵀ U, u = τ_j − Sᵀ p^A,
//          I^A_P += I^A − U Uᵀ / D,  p^A_P += p^A + (I^A − U Uᵀ / D) c + U u / D;
//   down:  a'_N = a_P + c_N,  q̈_j = (u − Uᵀ a'_N) / D,  a_N = a'_N + S_j q̈_j,
// with a at the root's parent (0; γ) for uniform gravity (the RNEA's base acceleration −g,
// which makes the weights inertia) and zero otherwise.
//
// Products and sums are built by GiNaC's constructors (spatial.hpp): its operator* would ask
// the nested U Uᵀ / D of every level for its type, 2^depth steps.
#include "derive/derive_support.hpp"
#include "derive/rate_structure.hpp"
#include "derive/random_states.hpp"
#include "derive/tree_algorithms.hpp"
#include "derive/spatial.hpp"
#include "symbolic/dag.hpp"

#include <algorithm>
#include <set>
#include <cmath>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;
using namespace spatial;

// The bodies' rotational inertias as the model wrote them: each dot(ω, J*ω) it computed
// (model::quadratic_forms), taken as ½ ωᵀ J ω. The rate form cannot give them: GiNaC
// flattens a body's ω_x = −sin(q2) q̇1 into the product it multiplies, so its rates are
// not ω's elements. The caller's check at random states finds a form that is not in T.
std::vector<rotational_body> rotational_bodies(model const& m) {
    std::vector<rotational_body> out;
    for (auto const& f : m.quadratic_forms) out.push_back({{f.w[0], f.w[1], f.w[2]}, f.J});
    return out;
}

namespace {

// Why the algorithm does not take `t`, whose nodes' joints are `joint` (single_joints), or
// nothing where it does.
char const* unfit(kinematic_tree const& t, std::vector<int> const& joint) {
    // In the root body's axes where the root is one joint with a constant twist there (the
    // velocity-product accelerations are then those of the world's axes, turned).
    if (t.framed() && !t.root.single_fixed)
        return "the root body's axes move with several coordinates, or with a twist that is not constant there";
    if (joint.empty()) return "a node has several joints (a floating root, or a body of several hinges)";
    if (std::any_of(joint.begin(), joint.end(), [](int j) { return j < 0; })) return "a node has no joint";
    if (std::any_of(t.joints.begin(), t.joints.end(), [](tree_joint const& j) { return j.node < 0; }))
        return "a coordinate moves no point of the tree";
    return nullptr;
}

} // namespace

articulated_solution articulated_body(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                      std::array<ex, 3> const* gravity, exvector const& tau) {
    auto const fails = [](char const* why) { return articulated_solution{{}, {}, why}; };
    if (!t.usable || tau.size() != t.n) return fails("the kinetic energy is not that of points and bodies on one tree");
    std::vector<int> const joint = t.single_joints();
    if (char const* why = unfit(t, joint)) return fails(why);
    std::size_t const nodes = t.nodes.size();
    std::vector<exvector> rotational(nodes, exvector(9, 0));
    if (!t.place(bodies, rotational)) return fails("a body's rotational inertia has no node whose frame turns it");
    auto const [Omega, V] = t.sums_down(exvector(t.m.qd.begin(), t.m.qd.end()));
    std::vector<std::size_t> const up = t.children_first();
    std::vector<std::size_t> down(up.rbegin(), up.rend());
    vec6 const zero = {ex(0), ex(0), ex(0), ex(0), ex(0), ex(0)};
    std::vector<vec6> S(nodes), v(nodes), avp(nodes, zero), U(nodes);
    std::vector<ex> D(nodes), Dinv(nodes), u(nodes);
    for (std::size_t N : down) {
        auto const j = static_cast<std::size_t>(joint[N]);
        tree_joint const& J = t.joints[j];
        for (std::size_t r = 0; r < 3; ++r) S[N][r] = J.s[r], S[N][r + 3] = J.u[r], v[N][r] = Omega[N][r], v[N][r + 3] = V[N][r];
        if (t.nodes[N].parent < 0) continue;
        // The velocity-product acceleration a_vp = a_vp(parent) + (v_parent × S) q̇: the body's
        // acceleration at q̈ = 0, whose force I a_vp goes into its bias once (instead of I^a c
        // at every level: a 6 × 6 product a joint).
        auto const P = static_cast<std::size_t>(t.nodes[N].parent);
        vec6 const c = scaled(motion_cross(v[P], S[N]), t.m.qd[j]);
        for (std::size_t r = 0; r < 6; ++r) avp[N][r] = sum({avp[P][r], c[r]});
    }
    // Up the tree: each node's articulated inertia and bias force, its children's added as
    // one sum with its own.
    std::vector<std::array<exvector, 36>> IA_terms(nodes);
    std::vector<std::array<exvector, 6>> pA_terms(nodes);
    for (std::size_t N : up) {
        auto const j = static_cast<std::size_t>(joint[N]);
        mat6 const Y = body_inertia(t.own_masses(N), rotational[N]);
        vec6 const spin = force_cross(v[N], times(Y, v[N])), push = times(Y, avp[N]);
        vec6 bias;
        for (std::size_t r = 0; r < 6; ++r) bias[r] = sum({spin[r], push[r]});
        mat6 IA;
        vec6 pA;
        for (std::size_t k = 0; k < 36; ++k) IA_terms[N][k].push_back(Y[k]), IA[k] = sum(IA_terms[N][k]);
        for (std::size_t r = 0; r < 6; ++r) pA_terms[N][r].push_back(bias[r]), pA[r] = sum(pA_terms[N][r]);
        U[N] = times(IA, S[N]);
        D[N] = dot(S[N], U[N]);
        Dinv[N] = GiNaC::pow(D[N], -1);
        u[N] = sum({tau[j], negated(dot(S[N], pA))});
        if (t.nodes[N].parent < 0) continue;
        auto const P = static_cast<std::size_t>(t.nodes[N].parent);
        // W = U / D once: I^A − W Uᵀ (symmetric: the upper triangle, mirrored).
        vec6 const W = scaled(U[N], Dinv[N]);
        mat6 Ia;
        for (std::size_t r = 0; r < 6; ++r)
            for (std::size_t s = r; s < 6; ++s) {
                Ia[r * 6 + s] = sum({IA[r * 6 + s], negated(product(W[r], U[N][s]))});
                Ia[s * 6 + r] = Ia[r * 6 + s];
            }
        for (std::size_t k = 0; k < 36; ++k) IA_terms[P][k].push_back(Ia[k]);
        for (std::size_t r = 0; r < 6; ++r) pA_terms[P][r].push_back(sum({pA[r], product(W[r], u[N])}));
    }
    // Down the tree: the accelerations beyond a_vp (the joints' and the base's).
    articulated_solution out{exvector(t.n, 0), exvector(t.n, 0)};
    std::vector<vec6> a(nodes, zero);
    vec6 base = zero;
    if (gravity)
        for (std::size_t r = 0; r < 3; ++r) base[r + 3] = (*gravity)[r];
    for (std::size_t N : down) {
        auto const j = static_cast<std::size_t>(joint[N]);
        vec6 const& ap = t.nodes[N].parent < 0 ? base : a[static_cast<std::size_t>(t.nodes[N].parent)];
        out.qdd[j] = product(sum({u[N], negated(dot(U[N], ap))}), Dinv[N]);
        out.pivots[j] = D[N];
        for (std::size_t r = 0; r < 6; ++r) a[N][r] = sum({ap[r], product(S[N][r], out.qdd[j])});
    }
    return out;
}

exvector joint_forces(model const& m, derived const& d, std::optional<point_composite::uniform_gravity> const& gravity) {
    exvector tau(d.nq);
    for (std::size_t i = 0; i < d.nq; ++i)
        tau[i] = d.generalized_forces[i] - (gravity ? partial(gravity->other, m.q[i]) : d.potential_gradient[i]);
    return tau;
}

namespace {

// The algorithm over `tree` (world axes, or the root body's with gravity turned into them),
// checked: q̈ in the inverse dynamics M q̈ + h − Q (derive_control.cpp's rows, cheaper to
// evaluate than M's n² entries): each row's parts at the algorithm's q̈ sum to zero, to 1e-9
// of their sizes, at three random states (a backward error: M's conditioning does not enter).
fd_attempt articulated_over(model const& m, rate_structures const& rs, bool root_axes, derived const& d) {
    point_composite const& tree = root_axes ? rs.framed_points : rs.points;
    fd_method const method = root_axes ? fd_method::articulated_body_root_axes : fd_method::articulated_body;
    std::size_t const n = d.nq;
    if (n == 0) return not_applicable(method, "the model has no coordinates");
    if (d.nc > 0) return not_applicable(method, "the model has constraints (this form solves a tree without them)");
    if (!tree.usable()) return not_applicable(method, no_tree(tree.tree()));
    if (root_axes && !tree.framed()) return not_applicable(method, "no frame of the model fits its root body");
    auto const gravity = rs.points.gravity(); // world axes (the framed tree offers none)
    std::array<ex, 3> g = {};
    if (gravity) g = root_axes ? tree.tree().in_root_axes(gravity->g) : gravity->g;
    auto x = articulated_body(tree.tree(), rotational_bodies(m), gravity ? &g : nullptr, joint_forces(m, d, gravity));
    if (x.qdd.empty()) return not_applicable(method, x.why);
    GiNaC::exmap at;
    for (std::size_t i = 0; i < n; ++i) at[d.qdd[i]] = x.qdd[i];
    if (d.inverse_dynamics.size() != n || !rows_vanish_at_random_states(m, d.inverse_dynamics, at, 0x61626121ull))
        return not_applicable(method, "its q̈ leaves M q̈ + h − Q non-zero at random states (terms of T or V "
                                      "outside the tree)");
    return {method, fd_candidate{std::move(x.qdd), {}, x.pivots, {}, {{0, n, 1}}}, {}};
}

} // namespace

// In world axes, and in the root body's where they apply; the emitter writes the one with
// fewer operations (the root's axes drop its turn from every position, but a long chain's
// algorithm can take more terms there: 14 joints 7,248 operations against 7,111).
fd_attempt try_articulated_body(model const& m, rate_structures const& rs, derived const& d) {
    return articulated_over(m, rs, false, d);
}

fd_attempt try_articulated_body_root_axes(model const& m, rate_structures const& rs, derived const& d) {
    return articulated_over(m, rs, true, d);
}

} // namespace lagc

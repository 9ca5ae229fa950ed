// Stage 3: the kinematic tree's own sums and walks (kinematic_tree.hpp): the composites,
// velocities and accelerations down the tree, generalized forces up it, the joints' order
// within a node, and where each body's rotational inertia belongs.
#include "derive/derive_support.hpp"
#include "derive/frame_turns.hpp"
#include "derive/kinematic_tree.hpp"
#include "derive/point_math.hpp"
#include "symbolic/dag.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

using point_math::cross;
using point_math::dot;

// A coordinate of the parentless node is a root joint where the tree is in the root body's
// axes (its coordinates) or where that node holds several; else a hinge where it turns
// the points, a slide where it does not.
void kinematic_tree::name_joints() {
    std::vector<std::size_t> per_node(nodes.size(), 0);
    int top = -1, tops = 0;
    for (std::size_t N = 0; N < nodes.size(); ++N)
        if (nodes[N].parent < 0) top = static_cast<int>(N), ++tops;
    for (auto const& j : joints)
        if (j.node >= 0) ++per_node[static_cast<std::size_t>(j.node)];
    for (std::size_t i = 0; i < joints.size(); ++i) {
        tree_joint& j = joints[i];
        j.coordinate = i;
        bool const listed = std::find(root.coordinates.begin(), root.coordinates.end(), i) != root.coordinates.end();
        bool const shared = tops == 1 && j.node == top && per_node[static_cast<std::size_t>(top)] > 1;
        j.kind = listed || shared ? joint_kind::root : j.turns() ? joint_kind::hinge : joint_kind::slide;
    }
}

std::vector<std::size_t> kinematic_tree::children_first() const {
    std::vector<std::size_t> order(nodes.size());
    for (std::size_t N = 0; N < order.size(); ++N) order[N] = N;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return nodes[a].size < nodes[b].size; });
    return order;
}

std::vector<std::pair<ex, std::array<ex, 3>>> kinematic_tree::own_masses(std::size_t N) const {
    std::vector<std::pair<ex, std::array<ex, 3>>> own;
    for (std::size_t b : nodes[N].own) own.push_back({points[b].mass, points[b].position});
    return own;
}

// m^c, c^c = Σ m p and K^c = Σ m (|p|² I − p pᵀ) of each node's points, children first.
void kinematic_tree::composite() {
    mass.assign(nodes.size(), 0);
    moment.assign(nodes.size(), {ex(0), ex(0), ex(0)});
    K.assign(nodes.size(), exvector(9, 0));
    for (std::size_t N : children_first()) {
        for (std::size_t b : nodes[N].own) {
            auto const& x = points[b];
            auto const& p = x.position;
            mass[N] += x.mass;
            for (std::size_t c = 0; c < 3; ++c) moment[N][c] += x.mass * p[c];
            for (std::size_t r = 0; r < 3; ++r)
                for (std::size_t c = r; c < 3; ++c) {
                    ex const k = r == c ? x.mass * (GiNaC::pow(p[(r + 1) % 3], 2) + GiNaC::pow(p[(r + 2) % 3], 2))
                                        : -x.mass * p[r] * p[c];
                    K[N][r * 3 + c] += k;
                }
        }
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = 0; c < r; ++c) K[N][r * 3 + c] = K[N][c * 3 + r];
        int const parent = nodes[N].parent;
        if (parent < 0) continue;
        auto const P = static_cast<std::size_t>(parent);
        mass[P] += mass[N];
        for (std::size_t c = 0; c < 3; ++c) moment[P][c] += moment[N][c];
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = r; c < 3; ++c) K[P][r * 3 + c] += K[N][r * 3 + c];
    }
}

// Σ s_j w_j and Σ u_j w_j over the joints that move each node's points (its own and those
// above it), summed from the root down: the angular and linear velocity of the node's
// frame at rates w (q̇, or q̈ for M q̈), as the RNEA's forward pass forms them.
std::array<std::vector<std::array<ex, 3>>, 2> kinematic_tree::sums_down(exvector const& w) const {
    std::vector<std::array<ex, 3>> Omega(nodes.size(), {ex(0), ex(0), ex(0)}), U = Omega;
    std::vector<std::size_t> order = children_first();
    std::reverse(order.begin(), order.end());
    for (std::size_t N : order) {
        if (nodes[N].parent >= 0) Omega[N] = Omega[static_cast<std::size_t>(nodes[N].parent)], U[N] = U[static_cast<std::size_t>(nodes[N].parent)];
        for (std::size_t j = 0; j < n; ++j)
            if (joints[j].node == static_cast<int>(N))
                for (std::size_t c = 0; c < 3; ++c) Omega[N][c] += joints[j].s[c] * w[j], U[N][c] += joints[j].u[c] * w[j];
    }
    return {Omega, U};
}

// Each node's joint; empty where a node has more than one (their order is not known).
std::vector<int> kinematic_tree::single_joints() const {
    std::vector<int> joint(nodes.size(), -1);
    for (std::size_t j = 0; j < n; ++j) {
        if (joints[j].node < 0) continue;
        auto const N = static_cast<std::size_t>(joints[j].node);
        if (joint[N] >= 0) return {};
        joint[N] = static_cast<int>(j);
    }
    return joint;
}

// A = Σ q̇_j Ω_<j × s_j and B = Σ q̇_j (Ω_<j × u_j + V_<j × s_j) down the tree: each node's
// acceleration at q̈ = 0 (ṡ_j, u̇_j of the twists the frames above carry), Ω_<j and V_<j the
// velocity of the frame before joint j (the parent's, and the node's joints before j).
std::array<std::vector<std::array<ex, 3>>, 2> kinematic_tree::velocity_accelerations(
    std::vector<std::vector<std::size_t>> const& chains, std::vector<std::array<ex, 3>> const& Omega,
    std::vector<std::array<ex, 3>> const& V) const {
    std::array<ex, 3> const zero = {ex(0), ex(0), ex(0)};
    std::vector<std::array<ex, 3>> A(nodes.size(), zero), B = A;
    std::vector<std::size_t> order = children_first();
    std::reverse(order.begin(), order.end());
    for (std::size_t N : order) {
        std::array<ex, 3> Om = zero, Vp = zero; // the frame's before each joint
        if (nodes[N].parent >= 0) {
            auto const P = static_cast<std::size_t>(nodes[N].parent);
            Om = Omega[P], Vp = V[P], A[N] = A[P], B[N] = B[P];
        }
        for (std::size_t j : chains[N]) {
            ex const& qd = m.qd[j];
            std::array<ex, 3> const os = cross(Om, joints[j].s), ou = cross(Om, joints[j].u), vs = cross(Vp, joints[j].s);
            for (std::size_t c = 0; c < 3; ++c) {
                A[N][c] += os[c] * qd, B[N][c] += (ou[c] + vs[c]) * qd;
                Om[c] += joints[j].s[c] * qd, Vp[c] += joints[j].u[c] * qd;
            }
        }
    }
    return {A, B};
}

// Each point's force m a at q̈ = 0, a = A × p + Ω × ṗ + B with ṗ = Ω × p + V (world axes, or
// F's where its root is one joint of a constant twist). A floating root (root_frame()):
// the same of the tree relative to F, plus F's own terms, a_F = R_Fᵀ ö_F + ω̇ × r + ω × (ω × r)
// + 2 ω × ṙ + r̈.
std::vector<std::array<ex, 3>> kinematic_tree::recursive_forces() const {
    bool const floating = framed() && !root.single_fixed;
    std::vector<std::vector<std::size_t>> const chains = joint_chains(floating);
    if (chains.empty()) return {};
    exvector rates(m.qd.begin(), m.qd.end());
    if (floating)
        for (std::size_t i : root.coordinates) rates[i] = 0;
    auto const [Omega, V] = sums_down(rates);
    auto const [A, B] = velocity_accelerations(chains, Omega, V);
    std::array<ex, 3> const zero = {ex(0), ex(0), ex(0)};
    std::array<ex, 3> const& w = floating ? root.omega : zero;
    std::vector<std::array<ex, 3>> f(points.size(), zero);
    for (std::size_t N = 0; N < nodes.size(); ++N)
        for (std::size_t b : nodes[N].own) {
            std::array<ex, 3> const& p = points[b].position;
            std::array<ex, 3> const wp = cross(Omega[N], p);
            std::array<ex, 3> const pd = {wp[0] + V[N][0], wp[1] + V[N][1], wp[2] + V[N][2]};
            std::array<ex, 3> const ap = cross(A[N], p), wpd = cross(Omega[N], pd);
            std::array<ex, 3> a = {ap[0] + wpd[0] + B[N][0], ap[1] + wpd[1] + B[N][1], ap[2] + wpd[2] + B[N][2]};
            if (floating) {
                std::array<ex, 3> const wr = cross(w, p), inner = {wr[0] + 2 * pd[0], wr[1] + 2 * pd[1], wr[2] + 2 * pd[2]};
                std::array<ex, 3> const spin = cross(w, inner), turn = cross(root.omega_dot, p);
                for (std::size_t c = 0; c < 3; ++c) a[c] += root.base[c] + turn[c] + spin[c];
            }
            for (std::size_t c = 0; c < 3; ++c) f[b][c] = points[b].mass * a[c];
        }
    return f;
}

// Σ_points J_i(p)·f = s_i·N^c + u_i·F^c, with each point's force f, F^c = Σ f and N^c = Σ p × f
// over the points of the node i enters at.
exvector kinematic_tree::generalized(std::vector<std::array<ex, 3>> const& f) const {
    std::vector<std::array<ex, 3>> force(nodes.size(), {ex(0), ex(0), ex(0)}), torque = force;
    for (std::size_t N : children_first()) {
        for (std::size_t b : nodes[N].own) {
            std::array<ex, 3> const t = cross(points[b].position, f[b]);
            for (std::size_t c = 0; c < 3; ++c) force[N][c] += f[b][c], torque[N][c] += t[c];
        }
        int const parent = nodes[N].parent;
        if (parent < 0) continue;
        auto const P = static_cast<std::size_t>(parent);
        for (std::size_t c = 0; c < 3; ++c) force[P][c] += force[N][c], torque[P][c] += torque[N][c];
    }
    exvector C(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (joints[i].node < 0) continue;
        auto const N = static_cast<std::size_t>(joints[i].node);
        C[i] = dot(joints[i].s, torque[N]) + dot(joints[i].u, force[N]);
    }
    return C;
}

std::vector<std::vector<std::size_t>> kinematic_tree::joint_chains(bool floating, int skipped) const {
    std::vector<std::vector<std::size_t>> chains(nodes.size());
    for (std::size_t j = 0; j < n; ++j) {
        bool const at_root = floating && joints[j].kind == joint_kind::root;
        if (joints[j].node >= 0 && !at_root && joints[j].node != skipped) chains[static_cast<std::size_t>(joints[j].node)].push_back(j);
    }
    // A joint's axis (a hinge's s, a slide's u) turns with the node's joints before it: it
    // depends on as many of their coordinates as come before it, at random states (a hinge's
    // u, o × s with o any point on the axis, may be written with a point that moves along
    // it, and s itself through a later joint's turn and its transpose).
    samples x(m);
    std::vector<std::array<std::size_t, 4>> derivatives; // node, k, i, sample index of ∂axis_k/∂q_i
    for (std::size_t N = 0; N < chains.size(); ++N)
        for (std::size_t k : chains[N]) {
            auto const& axis = joints[k].axis();
            for (std::size_t i : chains[N])
                if (i != k)
                    for (std::size_t c = 0; c < 3; ++c)
                        if (has_any(axis[c], {m.q[i]})) derivatives.push_back({N, k, i, x.add(partial(axis[c], m.q[i]))});
        }
    if (!derivatives.empty() && !x.evaluate(m, 0x636861696eull, 2)) return {};
    std::vector<std::set<std::pair<std::size_t, std::size_t>>> moved(chains.size());
    for (auto const& [N, k, i, at] : derivatives)
        for (std::size_t state = 0; state < x.count(); ++state)
            if (std::abs(x(state, at)) > 1e-9) moved[N].insert({k, i});
    for (std::size_t N = 0; N < chains.size(); ++N) {
        std::vector<std::pair<std::size_t, std::size_t>> before;
        for (std::size_t k : chains[N]) {
            std::size_t count = 0;
            for (std::size_t i : chains[N]) count += moved[N].count({k, i});
            before.push_back({count, k});
        }
        std::sort(before.begin(), before.end());
        for (std::size_t y = 0; y < before.size(); ++y) {
            if (before.size() > 1 && before[y].first != y) return {};
            chains[N][y] = before[y].second;
        }
    }
    return chains;
}

// Each body's frame: R among the model's frames with Ṙ = R [ω]× (ω its rates, body axes) at
// random states; its node: the one whose joints (its own and those above) are the ones
// whose rates ω has. Its inertia in world axes, R J Rᵀ, is added to rotational[node].
bool kinematic_tree::place(std::vector<rotational_body> const& bodies, std::vector<exvector>& rotational,
                           std::vector<exvector>* frames, std::vector<int>* first) const {
    if (bodies.empty()) return true;
    std::vector<std::array<ex, 3>> omegas;
    for (auto const& b : bodies) omegas.push_back(b.rate);
    // ω = P r for a signed permutation P: the triple's rates are ω's elements in some order,
    // with signs.
    frame_turns const turns(m, omegas, 0x626f6479ull);
    if (!turns.evaluated()) return false;
    std::array<std::array<int, 3>, 6> const permutations = {{{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}}};
    // The joints at or above each node.
    std::vector<std::vector<char>> above(nodes.size(), std::vector<char>(n, 0));
    for (std::size_t N = 0; N < nodes.size(); ++N)
        for (int x = static_cast<int>(N); x >= 0; x = nodes[static_cast<std::size_t>(x)].parent)
            for (std::size_t j = 0; j < n; ++j)
                if (joints[j].node == x) above[N][j] = 1;
    for (std::size_t b = 0; b < bodies.size(); ++b) {
        std::vector<char> moved(n, 0);
        for (std::size_t j = 0; j < n; ++j)
            for (std::size_t c = 0; c < 3; ++c) moved[j] = moved[j] || has_any(bodies[b].rate[c], {m.qd[j]});
        auto N = static_cast<std::size_t>(std::find(above.begin(), above.end(), moved) - above.begin());
        // Else the one node whose turning joints (hinges: a slide's rate is in no ω) are those:
        // a floating base's ω has its quaternion's rates, not its translations'.
        auto const hinges_above = [&](std::size_t x) {
            std::vector<char> h = above[x];
            for (std::size_t j = 0; j < n; ++j) h[j] = h[j] && joints[j].turns();
            return h;
        };
        // Nodes that differ by slides alone turn it alike (a slide under a floating base): a
        // rotational inertia without mass is the same spatial inertia about every point, so
        // the one of them above all the others takes it; with none such, which is not clear.
        if (N == nodes.size()) {
            auto const is_above = [&](std::size_t x, std::size_t y) { // x is y or above it
                for (int z = static_cast<int>(y); z >= 0; z = nodes[static_cast<std::size_t>(z)].parent)
                    if (z == static_cast<int>(x)) return true;
                return false;
            };
            std::vector<std::size_t> fits;
            for (std::size_t x = 0; x < nodes.size(); ++x)
                if (hinges_above(x) == moved) fits.push_back(x);
            for (std::size_t x : fits)
                if (std::all_of(fits.begin(), fits.end(), [&](std::size_t y) { return is_above(x, y); })) N = x;
            if (N == nodes.size()) return false;
        }
        exvector Rp; // R P: body axes in the triple's order
        for (std::size_t F = 0; F < m.frames.size() && Rp.empty(); ++F)
            for (std::size_t k = 0; k < 48 && Rp.empty(); ++k) {
                std::array<int, 3> const& pi = permutations[k / 8];
                std::array<int, 3> const sign = {k & 1 ? -1 : 1, k & 2 ? -1 : 1, k & 4 ? -1 : 1};
                if (!turns(F, b, true, pi, sign)) continue;
                Rp.assign(9, 0);
                for (std::size_t r = 0; r < 3; ++r)
                    for (std::size_t c = 0; c < 3; ++c)
                        Rp[r * 3 + static_cast<std::size_t>(pi[c])] = sign[c] * m.frames[F][r * 3 + c];
                // In the root body's axes (root_frame): the body's turn relative to the root's,
                // the same at the root's coordinates where the root's frame is the identity.
                if (framed()) Rp = in_root_axes(Rp);
                // C R turns with ω too for a constant C (rotz(q1) and rotx(pi)*rotz(q1) both turn
                // with [0, 0, q̇1]): the body's frame is the one that turns the node's joint's
                // axis in its axes into the joint's axis in the world's.
                if (Rp.empty() || !turns_joint_axes(Rp, bodies[b].rate, N)) Rp.clear();
            }
        if (Rp.empty()) return false;
        if (frames && (*frames)[N].empty()) {
            (*frames)[N] = Rp;
            if (first) (*first)[N] = static_cast<int>(b);
        }
        exvector const& J = bodies[b].J;
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = 0; c < 3; ++c) {
                exvector terms;
                for (std::size_t a = 0; a < 3; ++a)
                    for (std::size_t e = 0; e < 3; ++e)
                        if (!J[a * 3 + e].is_zero()) terms.push_back(Rp[r * 3 + a] * J[a * 3 + e] * Rp[c * 3 + e]);
                rotational[N][r * 3 + c] += GiNaC::add(terms);
            }
    }
    return true;
}

// Rp ∂r/∂q̇_j = s_j for the joints j of node N (r a body's rates, Rp its frame in their
// order), at two random states.
bool kinematic_tree::turns_joint_axes(exvector const& Rp, std::array<ex, 3> const& rate, std::size_t N) const {
    samples s(m);
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (std::size_t j = 0; j < n; ++j) {
        if (joints[j].node != static_cast<int>(N)) continue;
        std::array<ex, 3> alpha;
        for (std::size_t c = 0; c < 3; ++c) alpha[c] = partial(rate[c], m.qd[j]);
        for (std::size_t r = 0; r < 3; ++r)
            pairs.push_back({s.add(Rp[r * 3] * alpha[0] + Rp[r * 3 + 1] * alpha[1] + Rp[r * 3 + 2] * alpha[2]), s.add(joints[j].s[r])});
    }
    if (!s.evaluate(m, 0x6a6f696e74ull, 2)) return false;
    for (std::size_t x = 0; x < s.count(); ++x)
        for (auto const& [a, b] : pairs)
            if (!(std::abs(s(x, a) - s(x, b)) <= 1e-9 * (1 + std::abs(s(x, b))))) return false;
    return true;
}

// The root node (the one node without a parent) and its coordinates, where every coordinate
// moves points and the constraints hold on the root's coordinates alone; −1 otherwise.
int kinematic_tree::floating_root(exvector const& A, std::size_t nc, std::vector<std::size_t>& R) const {
    int top = -1;
    for (std::size_t N = 0; N < nodes.size(); ++N)
        if (nodes[N].parent < 0) {
            if (top >= 0) return -1;
            top = static_cast<int>(N);
        }
    for (std::size_t j = 0; j < n; ++j) {
        if (joints[j].node < 0) return -1;
        if (joints[j].node == top) R.push_back(j);
    }
    for (std::size_t k = 0; k < nc; ++k)
        for (std::size_t j = 0; j < n; ++j)
            if (joints[j].node != top && !A[k * n + j].is_zero()) return -1;
    return R.empty() ? -1 : top;
}

std::array<ex, 3> kinematic_tree::in_root_axes(std::array<ex, 3> const& v) const { return point_math::rotate(root.R, v, true); }

exvector kinematic_tree::in_root_axes(exvector const& R) const {
    try {
        return substitute(R, root.identity);
    } catch (std::exception const&) {
        return {};
    }
}

// "the kinetic energy is not that of points and bodies on one tree of joints: …why…".
std::string no_tree(kinematic_tree const& t) {
    std::string out = "the kinetic energy is not that of points and bodies on one tree of joints: ";
    out += t.why;
    return out;
}

} // namespace lagc

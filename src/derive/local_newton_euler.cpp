// Stage 3: inverse dynamics by the recursive Newton–Euler algorithm in each body's own axes
// (tree_algorithms.hpp), where the world-axes forms (the composites' M q̈ + h) carry every
// joint's twist and every body's R J Rᵀ in the world's axes: each joint here costs a few
// products with its own turn, whatever the directions of the offsets and axes.
//
// The tree is walked as links, one per joint, parents first: a node of several joints (a body
// of several hinges) is a chain of them, the last carrying the node's points and bodies. Each
// link's frame is fixed by the reference configuration q* (q = 0; a floating base's quaternion
// where its frame is the identity): its axes those of its node's first body at q* (the world's
// where it has none), its origin o a point on its joint's axis at q* (o = s × u / |s|² of the
// twist ∂p/∂q_j = s × p + u; a slide's link takes its parent's). A hinge turns the link by
// E = exp([a]× q_j) after the constant turn C from its parent's axes, a = the axis in its own
// axes, a unit vector; a slide moves it by d q_j. Everything the algorithm reads is then a
// constant of the tree at q*: each joint's a or d, each C and offset r (o less its parent's, in
// the parent's axes), each node's mass m, first moment h = Σ m c and inertia I about o (Σ m
// (|c|² 1 − c cᵀ) plus its bodies' inertias turned into the link's axes), held as `tidied`
// says. Then (Luh, Walker and Paul; Featherstone, Rigid Body Dynamics Algorithms, §5.3), in
// each link's axes, X = C E its turn from the parent's:
//   down:  ω' = Xᵀ ω_P,  ω = ω' + a q̇_j,  ω̇ = Xᵀ ω̇_P + a q̈_j + ω' × a q̇_j,
//          α = Xᵀ (α_P + ω̇_P × r + ω_P × (ω_P × r))    (o's acceleration)
//          a slide: ω and ω̇ the parent's turned by Cᵀ, ρ = Cᵀ r + d q_j,
//          α = Cᵀ α_P + ω̇ × ρ + ω × (ω × ρ) + 2 ω × d q̇_j + d q̈_j;
//   each:  F = m α + ω̇ × h + ω × (ω × h),  T = I ω̇ + ω × I ω + h × α;
//   up:    f = F + Σ_children X f_C,  n = T + Σ_children (X n_C + r_C × X f_C),
//          τ_j = a · n (a slide: d · f),
// with α = γ at the top for uniform gravity (the base accelerates by −g: the weights become
// inertia). A floating root (several coordinates at the root node, no order chaining them) is
// the top instead: its body's ω in its own axes as the model wrote it (the rates of its
// rotational inertia), ω̇ its time derivative, and the acceleration of one of its points o(q),
// turned into its axes by R(q)ᵀ; its coordinates' forces are the power n·ω + f·ȯ per unit of
// each rate. Unchecked here: the caller compares τ with M q̈ + h at random states.
#include "derive/derive_support.hpp"
#include "derive/spatial.hpp"
#include "derive/tree_algorithms.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;
using spatial::added;
using spatial::cross;
using spatial::dot;
using spatial::product;
using spatial::scaled;
using spatial::sum;
using spatial::times;
using spatial::vec3;

namespace {

// How a constant of the tree is held (tidied): its numbers that are not rationals (a sin or
// cos of a written angle) as floating-point numbers of a double's value, and the round-off of
// arithmetic on them (a rotation's elements, turned through several frames) taken off:
//   direction: direction cosines (elements of rotations and axes, and their products), a
//              number within 1e-13 of 0 or ±1 is that;
//   length:    a length (an offset, a point's position) less than 1e-13 of the tree's
//              size is 0, and a parameter's coefficient is a direction cosine;
//   plain:     the numbers alone.
// Not exact decimals: the algorithm multiplies a turn's numbers into sums at every level, and
// GiNaC keeps a sum of rationals as its integer content times integers, so their digits and
// the spread of their sizes grew with the depth (a 35-joint humanoid's went past the doubles,
// and its form could not be checked); floating-point numbers stay a double's digits.
enum class held { direction, length, plain };

ex number(ex const& c, bool unit, double below) {
    double const x = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(c)).to_double();
    if (unit)
        for (int k : {0, 1, -1})
            if (std::abs(x - k) < 1e-13) return k;
    if (std::abs(x) < below) return 0;
    if (GiNaC::is_exactly_a<GiNaC::numeric>(c) && !GiNaC::ex_to<GiNaC::numeric>(c).is_zero()) return c;
    if (x == 0) return 0;
    return GiNaC::numeric(x);
}

// Free of every symbol (a number, or sin(2/5)).
bool constant(ex const& e) {
    for (auto it = e.preorder_begin(); it != e.preorder_end(); ++it)
        if (GiNaC::is_exactly_a<GiNaC::symbol>(*it)) return false;
    return true;
}

// e (a constant of the tree at q = 0, polynomial in the parameters) expanded, each term's
// constant factor held as `how` says; twice where it snaps, the second time after GiNaC has
// gathered like terms (0.36 + 0.64 · 0.9999… − 1 is 0 only as a whole). `size`: the tree's.
ex tidied(ex const& e, held how = held::plain, double size = 0) {
    ex x = GiNaC::expand(e);
    for (int pass = 0; pass < (how == held::plain ? 1 : 2); ++pass) {
        exvector terms;
        for (ex const& t : GiNaC::is_exactly_a<GiNaC::add>(x) ? exvector(x.begin(), x.end()) : exvector{x}) {
            if (constant(t)) {
                terms.push_back(number(t, how == held::direction, how == held::length ? 1e-13 * size : 0));
                continue;
            }
            exvector factors, constants;
            for (ex const& f : GiNaC::is_exactly_a<GiNaC::mul>(t) ? exvector(t.begin(), t.end()) : exvector{t})
                (constant(f) ? constants : factors).push_back(f);
            factors.push_back(constants.empty() ? ex(1) : number(GiNaC::mul(constants), how != held::plain, 0));
            terms.push_back(product(factors));
        }
        x = sum(terms);
    }
    return x;
}

// Expressions at q = 0, each shared part once: the tree's twists, frames and positions nest
// the frames above them (R_N = R_P T_N, as the model wrote them), and GiNaC's subs walks a
// shared part at every use (3^depth walks: 20 joints took minutes).
class at_zero : public GiNaC::map_function {
public:
    // q = 0, but for the values `reference` gives (a floating base's quaternion at 1, 0, 0, 0).
    at_zero(std::vector<GiNaC::symbol> const& q, GiNaC::exmap const& reference) {
        for (auto const& x : q) zero_[x] = 0;
        for (auto const& [x, v] : reference) zero_[x] = v;
    }
    ex operator()(ex const& e) override {
        if (GiNaC::is_exactly_a<GiNaC::symbol>(e)) return e.subs(zero_);
        if (e.nops() == 0) return e;
        auto const key = &GiNaC::ex_to<GiNaC::basic>(e);
        if (auto it = done_.find(key); it != done_.end()) return it->second;
        ex r = e.map(*this);
        // A constant that is not a number (sin(2/5) of a written turn) as a float at once:
        // products of the turns' sines and cosines would otherwise multiply out in tidied().
        if (!GiNaC::is_exactly_a<GiNaC::numeric>(r) && constant(r)) r = number(r, false, 0);
        kept_.push_back(e); // its address stays its key
        done_.emplace(key, r);
        return r;
    }
    vec3 operator()(vec3 const& v) { return {(*this)(v[0]), (*this)(v[1]), (*this)(v[2])}; }

private:
    GiNaC::exmap zero_;
    std::unordered_map<GiNaC::basic const*, ex> done_;
    exvector kept_;
};

bool is_zero(vec3 const& v) { return v[0].is_zero() && v[1].is_zero() && v[2].is_zero(); }

// |a|² = 1 to 1e-12, a's elements numbers (the rotation's formula below takes a unit axis).
bool unit(vec3 const& a) {
    ex const n2 = GiNaC::evalf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    return GiNaC::is_exactly_a<GiNaC::numeric>(n2) &&
           std::abs(GiNaC::ex_to<GiNaC::numeric>(n2).to_double() - 1) < 1e-12;
}

// exp([a]× q) = cos q 1 + sin q [a]× + (1 − cos q) a aᵀ, row-major (exact zeros and ones where
// a is a coordinate axis).
exvector turn(vec3 const& a, GiNaC::symbol const& q) {
    ex const c = GiNaC::cos(q), s = GiNaC::sin(q);
    ex const K[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
    exvector E(9);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t k = 0; k < 3; ++k)
            E[r * 3 + k] = (r == k ? c : ex(0)) + s * K[r * 3 + k] + (1 - c) * a[r] * a[k];
    return E;
}

// One joint of the tree as the algorithm walks it: a node of several joints (a body of
// several hinges) is a chain of links, the last carrying the node's points and bodies, the
// others massless frames.
struct link {
    int parent = -1;  // the link before it; −1: the world, or the free root (free_root)
    std::size_t joint = 0;
    int node = -1;    // the node whose inertia it carries (the last link of its chain), else −1
    bool hinge = true;
    exvector B;       // its axes at q = 0 (world axes; its node's first body's where it carries one)
    vec3 axis;        // a (a hinge's unit axis) or d (a slide's direction), in its axes
    vec3 offset;      // r: its origin from its parent's, in the parent's axes
    vec3 origin;      // its origin at q = 0, world axes
    exvector C;       // its axes at q = 0 in its parent's (empty: the same)
    exvector E;       // exp([a]× q_j): a hinge's turn
    ex mass = 0;      // m, h and I (row-major) about its origin, in its axes
    vec3 moment = {0, 0, 0};
    exvector inertia = exvector(9, 0);
};

// A root node of several coordinates no order chains (a floating base): its body's frame R(q)
// and a point o(q) of it (its first point) as the model wrote them, its body's ω in its own
// axes (the rates of its rotational inertia), and its inertia about o as a link holds it.
struct free_root {
    int node = -1;
    std::vector<std::size_t> coordinates;
    exvector R;
    vec3 o, omega;
    link frame; // its frame at q*, its inertia about o
};

// Bᵀ v, each element held as `how` says.
vec3 into(exvector const& B, vec3 const& v, held how, double size) {
    vec3 y = times(B, v, true);
    for (auto& e : y) e = tidied(e, how, size);
    return y;
}

// A vector of the parent's axes in the link's (Eᵀ Cᵀ v), and back (C E v).
vec3 to_child(link const& f, vec3 const& v) {
    vec3 const w = f.C.empty() ? v : times(f.C, v, true);
    return f.hinge ? times(f.E, w, true) : w;
}

vec3 to_parent(link const& f, vec3 const& v) {
    vec3 const w = f.hinge ? times(f.E, v) : v;
    return f.C.empty() ? w : times(f.C, w);
}

// The node's mass, first moment and inertia about the link's origin in its axes, from its
// points and bodies at q = 0.
void node_inertia(kinematic_tree const& t, std::size_t N, exvector const& rotational, at_zero& zero, double size,
                  link& f) {
    // The bodies' R J Rᵀ at q*, tidied first (J's coefficients are products of direction
    // cosines), then turned into the link's axes: Bᵀ (R J Rᵀ) B.
    exvector W(9), I(9);
    for (std::size_t k = 0; k < 9; ++k) W[k] = tidied(zero(rotational[k]), held::direction);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 3; ++c) {
            exvector terms;
            for (std::size_t a = 0; a < 3; ++a)
                for (std::size_t e = 0; e < 3; ++e) terms.push_back(product({f.B[a * 3 + r], W[a * 3 + e], f.B[e * 3 + c]}));
            I[r * 3 + c] = tidied(sum(terms), held::direction);
        }
    exvector mass;
    std::array<exvector, 3> h;
    std::array<exvector, 9> K;
    for (std::size_t k = 0; k < 9; ++k) K[k].push_back(I[k]);
    for (auto const& [m, p] : t.own_masses(N)) {
        vec3 const c = into(f.B, {zero(p[0]) - f.origin[0], zero(p[1]) - f.origin[1], zero(p[2]) - f.origin[2]},
                            held::length, size);
        mass.push_back(m);
        for (std::size_t r = 0; r < 3; ++r) h[r].push_back(m * c[r]);
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t s = 0; s < 3; ++s)
                K[r * 3 + s].push_back(r == s ? m * (GiNaC::pow(c[(r + 1) % 3], 2) + GiNaC::pow(c[(r + 2) % 3], 2))
                                              : -m * c[r] * c[s]);
    }
    f.mass = tidied(sum(mass));
    for (std::size_t r = 0; r < 3; ++r) f.moment[r] = tidied(sum(h[r]));
    for (std::size_t k = 0; k < 9; ++k) f.inertia[k] = tidied(sum(K[k]));
}

exvector const identity = {1, 0, 0, 0, 1, 0, 0, 0, 1};

bool same(exvector const& a, exvector const& b) {
    return std::equal(a.begin(), a.end(), b.begin(), [](ex const& x, ex const& y) { return x.is_equal(y); });
}

// The tree as links, parents first, and its free root where it has one; why it does not fit,
// or null.
struct walk {
    std::vector<link> links;
    std::optional<free_root> root;
};

char const* free_root_of(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                         std::vector<exvector> const& axes, std::vector<int> const& body, walk& w) {
    for (std::size_t j = 0; j < t.n; ++j) {
        if (t.joints[j].kind != joint_kind::root) continue;
        if (!w.root) w.root = free_root{t.joints[j].node, {}, {}, {}, {}, {}};
        w.root->coordinates.push_back(j);
    }
    if (!w.root) return nullptr;
    auto const N = static_cast<std::size_t>(w.root->node);
    if (t.nodes[N].own.empty()) return "the floating root has no point of its own";
    if (axes[N].empty()) return "the floating root has no body whose frame turns with it";
    w.root->R = axes[N];
    w.root->o = t.points[t.nodes[N].own.front()].position;
    // The body's ω in its axes: its rates, in the order of R's columns (place's R P).
    w.root->omega = bodies[static_cast<std::size_t>(body[N])].rate;
    return nullptr;
}

// Each link's frame at q = 0, down the tree; why one does not fit, or null.
char const* links_at_zero(kinematic_tree const& t, std::vector<std::vector<std::size_t>> const& chains,
                          std::vector<exvector> const& axes, std::vector<exvector> const& rotational,
                          GiNaC::exmap const& reference, walk& w) {
    at_zero zero(t.m.q, reference);
    std::vector<std::size_t> const up = t.children_first();
    std::vector<int> last(t.nodes.size(), -1); // each node's last link
    // Origins first: the tree's size, which says what length is round-off.
    double size = 0;
    auto const grow = [&](vec3 const& o) {
        for (auto const& e : o)
            if (ex const x = GiNaC::evalf(e); GiNaC::is_exactly_a<GiNaC::numeric>(x))
                size = std::max(size, std::abs(GiNaC::ex_to<GiNaC::numeric>(x).to_double()));
    };
    if (w.root) {
        link& r = w.root->frame;
        r.origin = zero(w.root->o);
        grow(r.origin);
        r.B = identity;
        for (std::size_t k = 0; k < 9; ++k) r.B[k] = tidied(zero(w.root->R[k]), held::direction);
    }
    for (auto it = up.rbegin(); it != up.rend(); ++it) {
        std::size_t const N = *it;
        int parent = t.nodes[N].parent < 0 ? -1 : last[static_cast<std::size_t>(t.nodes[N].parent)];
        for (std::size_t j : chains[N]) {
            tree_joint const& J = t.joints[j];
            link f;
            f.parent = parent, f.joint = j, f.hinge = J.turns();
            vec3 const o_P = parent >= 0 ? w.links[static_cast<std::size_t>(parent)].origin
                             : w.root ? w.root->frame.origin : vec3{0, 0, 0};
            f.origin = f.hinge ? cross(zero(J.s), zero(J.u)) : o_P; // s × u / |s|², |s| = 1
            grow(f.origin);
            w.links.push_back(f);
            parent = static_cast<int>(w.links.size() - 1);
        }
        if (chains[N].empty() && !(w.root && static_cast<int>(N) == w.root->node)) return "a node has no joint";
        last[N] = chains[N].empty() ? -1 : parent;
        if (!chains[N].empty()) w.links.back().node = static_cast<int>(N);
    }
    for (link& f : w.links) {
        tree_joint const& J = t.joints[f.joint];
        link const* P = f.parent >= 0 ? &w.links[static_cast<std::size_t>(f.parent)]
                        : w.root      ? &w.root->frame
                                      : nullptr;
        exvector const& BP = P ? P->B : identity;
        f.B = BP;
        auto const N = static_cast<std::size_t>(f.node);
        if (f.node >= 0 && !axes[N].empty())
            for (std::size_t k = 0; k < 9; ++k) f.B[k] = tidied(zero(axes[N][k]), held::direction);
        exvector C(9);
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t c = 0; c < 3; ++c)
                C[r * 3 + c] = tidied(
                    sum({product(BP[r], f.B[c]), product(BP[3 + r], f.B[3 + c]), product(BP[6 + r], f.B[6 + c])}),
                    held::direction);
        if (!same(C, identity)) f.C = C;
        if (f.hinge) {
            f.axis = into(f.B, zero(J.s), held::direction, size);
            if (!unit(f.axis)) return "a hinge's axis is not a unit vector of numbers at q = 0";
            f.E = turn(f.axis, t.m.q[J.coordinate]);
        } else {
            f.axis = into(f.B, zero(J.u), held::length, size); // a length per unit of the coordinate
            if (is_zero(f.axis)) return "a slide moves nothing at q = 0";
        }
        vec3 const o_P = P ? P->origin : vec3{0, 0, 0};
        f.offset = into(BP, {f.origin[0] - o_P[0], f.origin[1] - o_P[1], f.origin[2] - o_P[2]}, held::length, size);
        for (auto const& e : f.axis)
            if (has_any(e, t.m.q)) return "a joint's axis at q = 0 still holds a coordinate";
        if (f.node >= 0) node_inertia(t, N, rotational[N], zero, size, f);
    }
    if (w.root) {
        auto const N = static_cast<std::size_t>(w.root->node);
        node_inertia(t, N, rotational[N], zero, size, w.root->frame);
    }
    return nullptr;
}

char const* unfit(kinematic_tree const& t) {
    if (!t.usable) return "the kinetic energy is not that of points and bodies on one tree";
    if (t.framed()) return "the tree is in the root body's axes";
    for (auto const& J : t.joints)
        if (J.node < 0) return "a coordinate moves no point of the tree";
    return nullptr;
}

// d/dt of e, q̈ as `qdd`: Σ ∂e/∂q̇_i q̈_i + Σ ∂e/∂q_i q̇_i over the root's coordinates.
ex rate_of(model const& m, ex const& e, std::vector<std::size_t> const& coordinates, exvector const& qdd) {
    exvector terms;
    for (std::size_t i : coordinates) {
        terms.push_back(product(partial(e, m.qd[i]), qdd[i]));
        terms.push_back(product(partial(e, m.q[i]), m.qd[i]));
    }
    return sum(terms);
}

// The body's force (f, n about its origin, its axes) from its motion (ω, ω̇, its origin's α).
std::pair<vec3, vec3> body_force(link const& f, vec3 const& w, vec3 const& wd, vec3 const& a) {
    vec3 const force = added({scaled(a, f.mass), cross(wd, f.moment), cross(w, cross(w, f.moment))});
    vec3 const torque = added({times(f.inertia, wd), cross(w, times(f.inertia, w)), cross(f.moment, a)});
    return {force, torque};
}

// A frame's motion: ω, ω̇ and its origin's α in its axes, and (the free root's) its point's
// velocity in the world's axes.
struct motion {
    vec3 w = {0, 0, 0}, wd = {0, 0, 0}, a = {0, 0, 0}, v = {0, 0, 0};
};

// The top's: the world's (its α gravity's), or the free root's in its body's axes (ω as the
// model wrote it, ω̇ its rate, its point's acceleration with gravity's turned by Rᵀ).
motion top_motion(model const& m, std::optional<free_root> const& root, vec3 const& gamma, exvector const& qdd) {
    motion x;
    x.a = gamma;
    if (!root) return x;
    vec3 a;
    for (std::size_t c = 0; c < 3; ++c) {
        x.w[c] = root->omega[c];
        x.wd[c] = rate_of(m, root->omega[c], root->coordinates, qdd);
        x.v[c] = rate_of(m, root->o[c], root->coordinates, exvector(m.q.size(), 0));
        a[c] = sum({rate_of(m, x.v[c], root->coordinates, qdd), gamma[c]});
    }
    x.a = times(root->R, a, true);
    return x;
}

// A link's motion from its parent's.
motion link_motion(model const& m, link const& f, motion const& P, exvector const& qdd) {
    std::size_t const j = f.joint;
    ex const& qd = m.qd[j];
    motion x;
    if (f.hinge) {
        vec3 const turned = to_child(f, P.w);
        x.w = added({turned, scaled(f.axis, qd)});
        x.wd = added({to_child(f, P.wd), scaled(f.axis, qdd[j]), scaled(cross(turned, f.axis), qd)});
        x.a = to_child(f, added({P.a, cross(P.wd, f.offset), cross(P.w, cross(P.w, f.offset))}));
        return x;
    }
    // The parent's vectors in the link's axes (C constant), the slide along d there.
    x.w = to_child(f, P.w), x.wd = to_child(f, P.wd);
    vec3 const rho = added({to_child(f, f.offset), scaled(f.axis, m.q[j])});
    x.a = added({to_child(f, P.a), cross(x.wd, rho), cross(x.w, cross(x.w, rho)),
                 scaled(cross(x.w, f.axis), product(2, qd)), scaled(f.axis, qdd[j])});
    return x;
}

// Up the links: each one's force and moment with its children's, turned into its axes, its
// joint's τ; the free root's coordinates' from the power n·ω + f·ȯ of its body's force (f
// turned into the world's axes, as ȯ is), per unit of each rate.
exvector forces_up(model const& m, walk const& w, motion const& top, std::vector<std::pair<vec3, vec3>> const& own) {
    std::size_t const L = w.links.size();
    std::vector<std::vector<vec3>> forces(L), torques(L);
    std::vector<vec3> root_forces, root_torques;
    if (w.root) {
        auto const [f, n] = body_force(w.root->frame, top.w, top.wd, top.a);
        root_forces.push_back(f), root_torques.push_back(n);
    }
    exvector tau(m.q.size(), 0);
    for (std::size_t k = L; k-- > 0;) {
        link const& fr = w.links[k];
        forces[k].push_back(own[k].first);
        torques[k].push_back(own[k].second);
        vec3 const f = added(forces[k]), n = added(torques[k]);
        std::size_t const j = fr.joint;
        tau[j] = fr.hinge ? dot(fr.axis, n) : dot(fr.axis, f);
        if (fr.parent < 0 && !w.root) continue;
        // The moment about the parent's origin: a hinge's origin is r from it; a slide's
        // moves by d q_j along the link's axes.
        vec3 const fP = to_parent(fr, f);
        vec3 const nP = fr.hinge ? to_parent(fr, n) : to_parent(fr, added({n, cross(scaled(fr.axis, m.q[j]), f)}));
        auto& F = fr.parent < 0 ? root_forces : forces[static_cast<std::size_t>(fr.parent)];
        auto& T = fr.parent < 0 ? root_torques : torques[static_cast<std::size_t>(fr.parent)];
        F.push_back(fP);
        T.push_back(nP);
        T.push_back(cross(fr.offset, fP));
    }
    if (w.root) {
        vec3 const f = times(w.root->R, added(root_forces)), n = added(root_torques);
        for (std::size_t j : w.root->coordinates) {
            vec3 dw, dv;
            for (std::size_t c = 0; c < 3; ++c) dw[c] = partial(top.w[c], m.qd[j]), dv[c] = partial(top.v[c], m.qd[j]);
            tau[j] = sum({dot(dw, n), dot(dv, f)});
        }
    }
    return tau;
}

} // namespace

newton_euler_solution local_newton_euler(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                         std::array<ex, 3> const* gravity, GiNaC::exvector const& qdd,
                                         GiNaC::exmap const& reference) {
    auto const fails = [](char const* why) { return newton_euler_solution{{}, why}; };
    if (char const* why = unfit(t)) return fails(why);
    std::size_t const nodes = t.nodes.size();
    std::vector<exvector> rotational(nodes, exvector(9, 0)), axes(nodes);
    std::vector<int> body(nodes, -1);
    if (!t.place(bodies, rotational, &axes, &body))
        return fails("a body's rotational inertia has no node whose frame turns it");
    walk w;
    if (char const* why = free_root_of(t, bodies, axes, body, w)) return fails(why);
    std::vector<std::vector<std::size_t>> const chains = t.joint_chains(w.root.has_value());
    if (chains.empty()) return fails("the joints of a node of several have no clear order");
    if (char const* why = links_at_zero(t, chains, axes, rotational, reference, w)) return fails(why);
    vec3 const gamma = gravity ? *gravity : vec3{0, 0, 0};
    motion const top = top_motion(t.m, w.root, gamma, qdd);
    // Down the links: each one's motion and its body's force.
    std::vector<motion> x(w.links.size());
    std::vector<std::pair<vec3, vec3>> own(w.links.size(), {vec3{0, 0, 0}, vec3{0, 0, 0}});
    for (std::size_t k = 0; k < w.links.size(); ++k) {
        link const& f = w.links[k];
        x[k] = link_motion(t.m, f, f.parent < 0 ? top : x[static_cast<std::size_t>(f.parent)], qdd);
        if (f.node >= 0) own[k] = body_force(f, x[k].w, x[k].wd, x[k].a);
    }
    return {forces_up(t.m, w, top, own), {}};
}

} // namespace lagc

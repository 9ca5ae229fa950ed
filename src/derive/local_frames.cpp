// The tree's links in their own axes at q* (local_frames.hpp): their frames, constants and
// inertias, tidied.
#include "derive/local_frames.hpp"

#include "derive/derive_support.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace lagc::local_frames {

using spatial::cross;
using spatial::product;
using spatial::sum;
using spatial::times;

namespace {

// How a constant of the tree is held (tidied): its numbers as 17-digit decimals where they
// are not short rationals (a sin or cos of a written angle, a product of several decimals),
// and the round-off of exact arithmetic on 17-digit decimals (a rotation's elements, turned
// through several frames) taken off:
//   direction: direction cosines (elements of rotations and axes, and their products), a
//              number within 1e-13 of 0 or ±1 is that;
//   length:    a length (an offset, a point's position) less than 1e-13 of the tree's
//              size is 0, and a parameter's coefficient is a direction cosine;
//   plain:     the numbers alone.
// A rational of more than 128 bits over 128 bits is rounded too (2026-11-29): products of
// the turns' decimals kept exact (a humanoid's arm axis of 160 bits, an offset of 0.2 as
// 0.19999999999999996275) were multiplied through its 35 joints past the doubles, and its
// Newton–Euler form could not be judged (7,120 operations against the composite sums'
// 10,609 once it could). Products of two 17-digit decimals (114 bits) stay exact: rounded,
// terms the algorithms would merge stay apart (a generic 10-joint arm's articulated-body
// algorithm 3,848 -> 3,875 operations at 62 bits). Floats would stay short, but are not
// deterministic (walk_of in local_frames.hpp).
enum class held { direction, length, plain };

ex number(ex const& c, bool unit, double below) {
    double const x = GiNaC::ex_to<GiNaC::numeric>(GiNaC::evalf(c)).to_double();
    if (unit)
        for (int k : {0, 1, -1})
            if (std::abs(x - k) < 1e-13) return k;
    if (std::abs(x) < below) return 0;
    if (GiNaC::is_exactly_a<GiNaC::numeric>(c) && GiNaC::ex_to<GiNaC::numeric>(c).is_rational()) {
        GiNaC::numeric const& r = GiNaC::ex_to<GiNaC::numeric>(c);
        if (r.numer().int_length() <= 128 && r.denom().int_length() <= 128) return c;
    }
    if (x == 0) return 0;
    int const e = static_cast<int>(std::floor(std::log10(std::abs(x)))) - 16;
    return GiNaC::numeric(static_cast<long>(std::llround(x / std::pow(10.0, e)))) * GiNaC::pow(GiNaC::numeric(10), e);
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
        // A constant that is not a number (sin(2/5) of a written turn) as its decimal at once:
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

// Bᵀ v, each element held as `how` says.
vec3 into(exvector const& B, vec3 const& v, held how, double size) {
    vec3 y = times(B, v, true);
    for (auto& e : y) e = tidied(e, how, size);
    return y;
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


} // namespace

char const* walk_of(kinematic_tree const& t, std::vector<rotational_body> const& bodies, GiNaC::exmap const& reference,
                    walk& w) {
    if (char const* why = unfit(t)) return why;
    std::size_t const nodes = t.nodes.size();
    std::vector<exvector> rotational(nodes, exvector(9, 0)), axes(nodes);
    std::vector<int> body(nodes, -1);
    if (!t.place(bodies, rotational, &axes, &body)) return "a body's rotational inertia has no node whose frame turns it";
    if (char const* why = free_root_of(t, bodies, axes, body, w)) return why;
    std::vector<std::vector<std::size_t>> const chains = t.joint_chains(w.root.has_value());
    if (chains.empty()) return "the joints of a node of several have no clear order";
    return links_at_zero(t, chains, axes, rotational, reference, w);
}

vec3 root_point_velocity(model const& m, free_root const& r) {
    exvector const still(m.q.size(), 0);
    vec3 od;
    for (std::size_t c = 0; c < 3; ++c) od[c] = rate_of(m, r.o[c], r.coordinates, still);
    return od;
}

vec3 to_child(link const& f, vec3 const& v, spatial::multiplication mul) {
    vec3 const w = f.C.empty() ? v : times(f.C, v, true, mul);
    return f.hinge ? times(f.E, w, true, mul) : w;
}

vec3 to_parent(link const& f, vec3 const& v, spatial::multiplication mul) {
    vec3 const w = f.hinge ? times(f.E, v, false, mul) : v;
    return f.C.empty() ? w : times(f.C, w, false, mul);
}

} // namespace lagc::local_frames

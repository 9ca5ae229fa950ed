// Stage 3: ∂τ/∂q and C of the whole tree (its inertia and, with `gravity`, its weights) by the
// analytic RNEA derivatives (rnea_derivatives.cpp's formulas), their world-axes quantities
// built link by link from the tree in each body's own axes (local_frames.hpp), where
// rnea_derivatives reads them from the tree's world-axes expressions, whose sums multiply out
// every offset and turn above each body:
//   R_k = R_P C E,  o_k = o_P + R_P r  (a slide: R_k = R_P C, o_k = o_P + R_P r + R_k d q_j),
//   S_k = (R_k a; o_k × R_k a)  (a slide: (0; R_k d)),
//   v_k = v_P + S_k q̇_j,  a_k = a_P + S_k q̈_j + v_k × S_k q̇_j  (a = (0; γ) at the base),
// and each body's inertia turned into the world's axes at the origin once (m, h and I about o
// in the link's axes): c = m o + R h and K = R I Rᵀ − m [o]×² − [o]×[R h]× − [R h]×[o]×. Each is
// a few products of its parent's, whatever the directions of the offsets and axes. Numbers
// multiply sums held (spatial::held_either): the turns' and offsets' decimals, distributed
// level by level into R and o, grew past the doubles at 8 links of an arm with turned bodies.
// A fixed base only (a free root's motion is not a joint's). Unchecked here: the caller
// compares them with the derivatives of the tree's τ at random states.
#include "derive/local_frames.hpp"
#include "derive/tree_algorithms.hpp"

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;
using namespace spatial;
using local_frames::link;

namespace {

multiplication const held = held_either;

// [x]× [y]×, row-major: y xᵀ − (x·y) 1.
exvector skew_product(vec3 const& x, vec3 const& y) {
    exvector z(9);
    ex const d = dot(x, y, held);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = 0; c < 3; ++c) z[r * 3 + c] = r == c ? sum({held(y[r], x[c]), negated(d)}) : held(y[r], x[c]);
    return z;
}

// The link's inertia in the world's axes at the origin: Y (m ↦ (K ω + c × v; m v − c × ω)).
mat6 world_inertia(link const& f, exvector const& R, vec3 const& o) {
    vec3 const h = times(R, f.moment, false, held);
    exvector const RI = multiplied(R, f.inertia, false, false, held);
    exvector const oo = skew_product(o, o), oh = skew_product(o, h), ho = skew_product(h, o);
    vec3 c;
    for (std::size_t r = 0; r < 3; ++r) c[r] = sum({held(f.mass, o[r]), h[r]});
    mat6 Y;
    Y.fill(0);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t s = 0; s < 3; ++s) {
            if (s < r) {
                Y[r * 6 + s] = Y[s * 6 + r];
            } else {
                exvector terms = {negated(held(f.mass, oo[r * 3 + s])), negated(oh[r * 3 + s]), negated(ho[r * 3 + s])};
                for (std::size_t k = 0; k < 3; ++k) terms.push_back(held(RI[r * 3 + k], R[s * 3 + k]));
                Y[r * 6 + s] = sum(terms);
            }
            std::size_t const i = (r + 1) % 3, k = (r + 2) % 3;
            ex const skew = s == r ? ex(0) : s == i ? negated(c[k]) : c[i]; // [c]×
            Y[r * 6 + s + 3] = skew;
            Y[(r + 3) * 6 + s] = negated(skew);
            Y[(r + 3) * 6 + s + 3] = r == s ? f.mass : ex(0);
        }
    return Y;
}

// 2 B = (v ×*) Y + (m ↦ m ×* Y v) − Y (v ×), column by column.
mat6 twice_coriolis_operator(mat6 const& Y, vec6 const& v) {
    vec6 const h = times(Y, v, false, held);
    mat6 B;
    for (std::size_t col = 0; col < 6; ++col) {
        vec6 e, Ye;
        e.fill(0);
        e[col] = 1;
        for (std::size_t r = 0; r < 6; ++r) Ye[r] = Y[r * 6 + col];
        vec6 const x = combined({{1, force_cross(v, Ye, held)}, {1, force_cross(e, h, held)}, {-1, times(Y, motion_cross(v, e, held), false, held)}}, held);
        for (std::size_t r = 0; r < 6; ++r) B[r * 6 + col] = x[r];
    }
    return B;
}

void add_to(mat6& into, mat6 const& x) {
    for (std::size_t k = 0; k < 36; ++k) into[k] = sum({into[k], x[k]});
}

void add_to(vec6& into, vec6 const& x) {
    for (std::size_t k = 0; k < 6; ++k) into[k] = sum({into[k], x[k]});
}

// A link's world-axes quantities: its turn R and origin o, its joint's twist S, its velocity
// and acceleration, and (its body's own, then its composite's) Y, the wrench F and 2 B.
struct link_state {
    exvector R;
    vec3 o;
    vec6 S, v, a, F = {0, 0, 0, 0, 0, 0};
    mat6 Y, B;
};

// Down the links: frames, twists, motion, and each body's Y, its wrench and 2 B.
std::vector<link_state> down(model const& m, local_frames::walk const& w, std::array<ex, 3> const* gravity,
                             exvector const& qdd) {
    exvector const identity = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    vec6 a_base = {0, 0, 0, 0, 0, 0};
    if (gravity)
        for (std::size_t c = 0; c < 3; ++c) a_base[c + 3] = (*gravity)[c];
    std::vector<link_state> x(w.links.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
        link const& f = w.links[k];
        link_state& s = x[k];
        link_state const* P = f.parent < 0 ? nullptr : &x[static_cast<std::size_t>(f.parent)];
        exvector const& RP = P ? P->R : identity;
        exvector const RC = f.C.empty() ? RP : multiplied(RP, f.C, false, false, held);
        s.R = f.hinge ? multiplied(RC, f.E, false, false, held) : RC;
        vec3 const turned = times(RC, f.axis, false, held); // R_k a = R_P C a: E turns about a
        ex const& q = m.q[f.joint];
        ex const& qd = m.qd[f.joint];
        s.o = added({P ? P->o : vec3{0, 0, 0}, times(RP, f.offset, false, held)});
        if (!f.hinge) s.o = added({s.o, {held(turned[0], q), held(turned[1], q), held(turned[2], q)}});
        s.S = f.hinge ? joined(turned, cross(s.o, turned, held)) : joined({0, 0, 0}, turned);
        s.v = combined({{1, P ? P->v : vec6{0, 0, 0, 0, 0, 0}}, {qd, s.S}}, held);
        s.a = combined({{1, P ? P->a : a_base}, {qdd[f.joint], s.S}, {qd, motion_cross(s.v, s.S, held)}}, held);
        s.Y.fill(0), s.B.fill(0);
        if (f.node < 0) continue;
        s.Y = world_inertia(f, s.R, s.o);
        vec6 const h = times(s.Y, s.v, false, held);
        s.F = combined({{1, times(s.Y, s.a, false, held)}, {1, force_cross(s.v, h, held)}}, held);
        s.B = twice_coriolis_operator(s.Y, s.v);
    }
    return x;
}

} // namespace

share_derivatives local_rnea_derivatives(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                         std::array<ex, 3> const* gravity, exvector const& qdd,
                                         GiNaC::exmap const& reference) {
    local_frames::walk w;
    if (char const* why = local_frames::walk_of(t, bodies, reference, w)) return {{}, {}, why};
    if (w.root) return {{}, {}, "a floating base (its motion is not a joint's)"};
    std::size_t const n = t.m.q.size();
    std::vector<link_state> x = down(t.m, w, gravity, qdd);
    // Up: the composites, children first (a link's parent comes before it).
    for (std::size_t k = x.size(); k-- > 0;) {
        if (w.links[k].parent < 0) continue;
        link_state& P = x[static_cast<std::size_t>(w.links[k].parent)];
        add_to(P.Y, x[k].Y), add_to(P.B, x[k].B), add_to(P.F, x[k].F);
    }
    std::vector<int> link_of(n, -1);
    for (std::size_t k = 0; k < x.size(); ++k) link_of[w.links[k].joint] = static_cast<int>(k);
    std::vector<rnea_unit> units;
    for (int k : link_of) {
        if (k < 0) return {{}, {}, "a coordinate is no joint of the tree"};
        link_state const& s = x[static_cast<std::size_t>(k)];
        units.push_back({true, s.S, s.v, s.a, s.F, s.Y, s.B});
    }
    auto const below = [&](std::size_t i, std::size_t k) { // link of joint i: k's or below it
        for (int l = link_of[i]; l >= 0; l = w.links[static_cast<std::size_t>(l)].parent)
            if (l == link_of[k]) return true;
        return false;
    };
    share_derivatives out = rnea_pairs(units, below, true, held);
    return out;
}

} // namespace lagc

// Stage 3: inverse dynamics by the recursive Newton–Euler algorithm in each body's own axes
// (tree_algorithms.hpp), where the world-axes forms (the composites' M q̈ + h) carry every
// joint's twist and every body's R J Rᵀ in the world's axes: each joint here costs a few
// products with its own turn, whatever the directions of the offsets and axes.
//
// The tree as links with their constants at q* (local_frames.hpp). Then (Luh, Walker and
// Paul; Featherstone, Rigid Body Dynamics Algorithms, §5.3), in each link's axes, X = C E its
// turn from the parent's:
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
// each rate. Products as `mul` makes them: inverse dynamics holds numbers times sums
// (spatial::held_either), not distributed into them: the turns' and offsets' decimals,
// multiplied level by level into the sums, left the doubles on a 20-link arm with offsets in
// every direction and turned bodies; held, the generic arms' τ is 1–2% shorter (20 joints
// 3,679 -> 3,596 operations), that arm's 10-link version 21% (3,315 -> 2,608), the humanoid's
// 6% (7,120 -> 6,696). h at q̈ = 0 for the closed form is shorter plain (panda_like's M and h
// 1,497 against 1,524). Unchecked here: the caller compares τ with M q̈ + h at random states.
#include "derive/derive_support.hpp"
#include "derive/local_frames.hpp"
#include "derive/tree_algorithms.hpp"

#include <optional>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;
using spatial::added;
using spatial::product;
using spatial::sum;
using spatial::vec3;
using local_frames::free_root;
using local_frames::link;
using local_frames::walk;

namespace {

// The vector algebra with products as `mul` makes them (spatial.hpp).
struct arithmetic {
    spatial::multiplication mul;
    vec3 into_child(link const& f, vec3 const& v) const { return local_frames::to_child(f, v, mul); }
    vec3 into_parent(link const& f, vec3 const& v) const { return local_frames::to_parent(f, v, mul); }
    vec3 cross(vec3 const& a, vec3 const& b) const { return spatial::cross(a, b, mul); }
    vec3 times(exvector const& M, vec3 const& v, bool transposed = false) const {
        return spatial::times(M, v, transposed, mul);
    }
    ex dot(vec3 const& a, vec3 const& b) const { return spatial::dot(a, b, mul); }
    vec3 scaled(vec3 const& v, ex const& k) const { return {mul(v[0], k), mul(v[1], k), mul(v[2], k)}; }
};

// The body's force (f, n about its origin, its axes) from its motion (ω, ω̇, its origin's α).
std::pair<vec3, vec3> body_force(arithmetic const& o, link const& f, vec3 const& w, vec3 const& wd, vec3 const& a) {
    vec3 const force = added({o.scaled(a, f.mass), o.cross(wd, f.moment), o.cross(w, o.cross(w, f.moment))});
    vec3 const torque = added({o.times(f.inertia, wd), o.cross(w, o.times(f.inertia, w)), o.cross(f.moment, a)});
    return {force, torque};
}

// A frame's motion: ω, ω̇ and its origin's α in its axes, and (the free root's) its point's
// velocity in the world's axes.
struct motion {
    vec3 w = {0, 0, 0}, wd = {0, 0, 0}, a = {0, 0, 0}, v = {0, 0, 0};
};

// The top's: the world's (its α gravity's), or the free root's in its body's axes (ω as the
// model wrote it, ω̇ its rate, its point's acceleration with gravity's turned by Rᵀ).
motion top_motion(arithmetic const& o, model const& m, std::optional<free_root> const& root, vec3 const& gamma, exvector const& qdd) {
    motion x;
    x.a = gamma;
    if (!root) return x;
    vec3 a;
    x.v = local_frames::root_point_velocity(m, *root);
    for (std::size_t c = 0; c < 3; ++c) {
        x.w[c] = root->omega[c];
        x.wd[c] = rate_of(m, root->omega[c], root->coordinates, qdd);
        a[c] = sum({rate_of(m, x.v[c], root->coordinates, qdd), gamma[c]});
    }
    x.a = o.times(root->R, a, true);
    return x;
}

// A link's motion from its parent's.
motion link_motion(arithmetic const& o, model const& m, link const& f, motion const& P, exvector const& qdd) {
    std::size_t const j = f.joint;
    ex const& qd = m.qd[j];
    motion x;
    if (f.hinge) {
        vec3 const turned = o.into_child(f, P.w);
        x.w = added({turned, o.scaled(f.axis, qd)});
        x.wd = added({o.into_child(f, P.wd), o.scaled(f.axis, qdd[j]), o.scaled(o.cross(turned, f.axis), qd)});
        x.a = o.into_child(f, added({P.a, o.cross(P.wd, f.offset), o.cross(P.w, o.cross(P.w, f.offset))}));
        return x;
    }
    // The parent's vectors in the link's axes (C constant), the slide along d there.
    x.w = o.into_child(f, P.w), x.wd = o.into_child(f, P.wd);
    vec3 const rho = added({o.into_child(f, f.offset), o.scaled(f.axis, m.q[j])});
    x.a = added({o.into_child(f, P.a), o.cross(x.wd, rho), o.cross(x.w, o.cross(x.w, rho)),
                 o.scaled(o.cross(x.w, f.axis), product(2, qd)), o.scaled(f.axis, qdd[j])});
    return x;
}

// Up the links: each one's force and moment with its children's, turned into its axes, its
// joint's τ; the free root's coordinates' from the power n·ω + f·ȯ of its body's force (f
// turned into the world's axes, as ȯ is), per unit of each rate.
exvector forces_up(arithmetic const& o, model const& m, walk const& w, motion const& top, std::vector<std::pair<vec3, vec3>> const& own) {
    std::size_t const L = w.links.size();
    std::vector<std::vector<vec3>> forces(L), torques(L);
    std::vector<vec3> root_forces, root_torques;
    if (w.root) {
        auto const [f, n] = body_force(o, w.root->frame, top.w, top.wd, top.a);
        root_forces.push_back(f), root_torques.push_back(n);
    }
    exvector tau(m.q.size(), 0);
    for (std::size_t k = L; k-- > 0;) {
        link const& fr = w.links[k];
        forces[k].push_back(own[k].first);
        torques[k].push_back(own[k].second);
        vec3 const f = added(forces[k]), n = added(torques[k]);
        std::size_t const j = fr.joint;
        tau[j] = fr.hinge ? o.dot(fr.axis, n) : o.dot(fr.axis, f);
        if (fr.parent < 0 && !w.root) continue;
        // The moment about the parent's origin: a hinge's origin is r from it; a slide's
        // moves by d q_j along the link's axes.
        vec3 const fP = o.into_parent(fr, f);
        vec3 const nP = fr.hinge ? o.into_parent(fr, n) : o.into_parent(fr, added({n, o.cross(o.scaled(fr.axis, m.q[j]), f)}));
        auto& F = fr.parent < 0 ? root_forces : forces[static_cast<std::size_t>(fr.parent)];
        auto& T = fr.parent < 0 ? root_torques : torques[static_cast<std::size_t>(fr.parent)];
        F.push_back(fP);
        T.push_back(nP);
        T.push_back(o.cross(fr.offset, fP));
    }
    if (w.root) {
        vec3 const f = o.times(w.root->R, added(root_forces)), n = added(root_torques);
        for (std::size_t j : w.root->coordinates) {
            vec3 dw, dv;
            for (std::size_t c = 0; c < 3; ++c) dw[c] = partial(top.w[c], m.qd[j]), dv[c] = partial(top.v[c], m.qd[j]);
            tau[j] = sum({o.dot(dw, n), o.dot(dv, f)});
        }
    }
    return tau;
}

} // namespace

newton_euler_solution local_newton_euler(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                         std::array<ex, 3> const* gravity, GiNaC::exvector const& qdd,
                                         GiNaC::exmap const& reference, spatial::multiplication mul) {
    local_frames::walk w;
    if (char const* why = local_frames::walk_of(t, bodies, reference, w)) return {{}, why};
    arithmetic const o{mul};
    vec3 const gamma = gravity ? *gravity : vec3{0, 0, 0};
    motion const top = top_motion(o, t.m, w.root, gamma, qdd);
    // Down the links: each one's motion and its body's force.
    std::vector<motion> x(w.links.size());
    std::vector<std::pair<vec3, vec3>> own(w.links.size(), {vec3{0, 0, 0}, vec3{0, 0, 0}});
    for (std::size_t k = 0; k < w.links.size(); ++k) {
        link const& f = w.links[k];
        x[k] = link_motion(o, t.m, f, f.parent < 0 ? top : x[static_cast<std::size_t>(f.parent)], qdd);
        if (f.node >= 0) own[k] = body_force(o, f, x[k].w, x[k].wd, x[k].a);
    }
    return {forces_up(o, t.m, w, top, own), {}};
}

} // namespace lagc

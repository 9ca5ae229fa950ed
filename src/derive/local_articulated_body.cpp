// Stage 3: forward dynamics by the articulated-body algorithm, and M by the composite-rigid-body
// algorithm, in each body's own axes (tree_algorithms.hpp), where articulated_body.cpp's
// world-axes form carries every joint's twist and every body's R J Rᵀ in the world's axes:
// here each joint's axis is a constant of its link (often a coordinate axis), and each level
// costs the transform of one articulated inertia by its own turn and offset.
//
// The tree as links with their constants at q* (local_frames.hpp); a fixed base (a floating
// root is floating_articulated_body's; M over one is below). Spatial vectors in each link's
// axes at its origin: motion (ω; v), force (n; f). From the parent's axes to the link's,
// R = C E (a slide: C) and r the link's origin from its parent's in the parent's axes (a
// slide's: r + C d q_j):
//   X m = (Rᵀ ω; Rᵀ (v + ω × r)),  X* f = (R n + r × R f; R f)   (its force back up),
// and an articulated inertia [[A, B], [Bᵀ, K]] (n = A ω + B v, f = Bᵀ ω + K v) goes up as
//   K_P = R K Rᵀ,  B_P = R B Rᵀ + [r] K_P,  A_P = R A Rᵀ + Z + Zᵀ − [r] K_P [r],  Z = [r] (R B Rᵀ)ᵀ.
// A body of mass m, first moment h and inertia I about the origin is [[I, [h]], [[h]ᵀ, m 1]].
// Then (Featherstone, Rigid Body Dynamics Algorithms, Table 7.1), S = (a; 0) a hinge's, (0; d)
// a slide's:
//   down:  v = X v_P + S q̇_j,  c = v × S q̇_j,  I^A = I,  p^A = v ×* I v;
//   up:    U = I^A S, D = Sᵀ U, u = τ_j − Sᵀ p^A,
//          I^A_P += X* (I^A − U Uᵀ / D) X,  p^A_P += X* (p^A + (I^A − U Uᵀ / D) c + U u / D);
//   down:  a' = X a_P + c,  q̈_j = (u − Uᵀ a') / D,  a = a' + S q̈_j,
// with a = (0; γ) at the top for uniform gravity (the base accelerates by −g). And M by the
// composite-rigid-body algorithm (Table 6.2) over the same links: I^c_P += X* I^c X up the
// links, then for each joint F = I^c S, M_jj = Sᵀ F, and up its ancestors F = X* F,
// M_ij = S_iᵀ F. Unchecked here: the callers compare q̈ with M q̈ + h − Q, and M with the
// derivation's, at random states.
#include "derive/derive_support.hpp"
#include "derive/forward_dynamics.hpp"
#include "derive/local_frames.hpp"
#include "derive/random_states.hpp"
#include "derive/rate_structure.hpp"
#include "derive/tree_algorithms.hpp"

#include <algorithm>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;
using local_frames::link;
using spatial::added;
using spatial::cross;
using spatial::dot;
using spatial::held_product;
using spatial::multiplication;
using spatial::multiplied;
using spatial::plain_product;
using spatial::negated;
using spatial::product;
using spatial::scaled;
using spatial::sum;
using spatial::times;
using spatial::vec3;

namespace {

using mat3 = exvector; // 3 × 3, row-major

// A spatial vector as its two halves: motion (ω; v), force (n; f).
struct pair3 {
    vec3 top = {0, 0, 0}, bottom = {0, 0, 0};
};

// An articulated inertia [[A, B], [Bᵀ, K]], A and K symmetric.
struct inertia6 {
    mat3 A = mat3(9, 0), B = mat3(9, 0), K = mat3(9, 0);
};

// [r]× as a matrix.
mat3 skew(vec3 const& r) { return {0, negated(r[2]), r[1], r[2], 0, negated(r[0]), negated(r[1]), r[0], 0}; }

// R Y Rᵀ of a symmetric Y (its upper triangle, mirrored), or of any Y where `symmetric` is false.
mat3 turned(mat3 const& R, mat3 const& Y, bool symmetric) {
    mat3 const RY = multiplied(R, Y);
    mat3 z(9);
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = symmetric ? r : 0; c < 3; ++c) {
            exvector terms;
            for (std::size_t k = 0; k < 3; ++k) terms.push_back(product(RY[r * 3 + k], R[c * 3 + k]));
            z[r * 3 + c] = sum(terms);
            if (symmetric) z[c * 3 + r] = z[r * 3 + c];
        }
    return z;
}

// The link's turn from its parent's axes (C E; C a slide's), and its origin's offset there.
struct transform {
    mat3 R;
    vec3 r;
};

transform transform_of(model const& m, link const& f) {
    mat3 const C = f.C.empty() ? mat3{1, 0, 0, 0, 1, 0, 0, 0, 1} : f.C;
    if (f.hinge) return {multiplied(C, f.E), f.offset};
    vec3 const moved = times(C, scaled(f.axis, m.q[f.joint]));
    return {C, added({f.offset, moved})};
}

// X m: a motion of the parent's axes in the link's.
pair3 motion_down(transform const& X, pair3 const& m) {
    vec3 const w = times(X.R, m.top, true);
    vec3 const v = times(X.R, added({m.bottom, cross(m.top, X.r)}), true);
    return {w, v};
}

// X* f: a force of the link's axes in its parent's, (R n + r × R f; R f), multiplied as
// `times_` says (spatial.hpp: held for the composite-rigid-body algorithm's forces, sums over
// the links below).
pair3 force_up(transform const& X, pair3 const& f, multiplication times_ = plain_product) {
    auto const turned_by = [&](vec3 const& x) {
        vec3 y;
        for (std::size_t r = 0; r < 3; ++r)
            y[r] = sum({times_(X.R[r * 3], x[0]), times_(X.R[r * 3 + 1], x[1]), times_(X.R[r * 3 + 2], x[2])});
        return y;
    };
    vec3 const F = turned_by(f.bottom);
    vec3 rF;
    for (std::size_t a = 0; a < 3; ++a) {
        std::size_t const i = (a + 1) % 3, k = (a + 2) % 3;
        rF[a] = sum({times_(X.r[i], F[k]), times_(negated(X.r[k]), F[i])}); // the sign on r: a held product stays one
    }
    return {added({turned_by(f.top), rF}), F};
}

// X* I X: an articulated inertia of the link's axes in its parent's.
inertia6 inertia_up(transform const& X, inertia6 const& I) {
    mat3 const K = turned(X.R, I.K, true), B = turned(X.R, I.B, false), A = turned(X.R, I.A, true);
    mat3 const rx = skew(X.r);
    mat3 const rK = multiplied(rx, K), Z = multiplied(rx, B, false, true), rKr = multiplied(rK, rx);
    inertia6 out;
    out.K = K;
    for (std::size_t k = 0; k < 9; ++k) out.B[k] = sum({B[k], rK[k]});
    for (std::size_t r = 0; r < 3; ++r)
        for (std::size_t c = r; c < 3; ++c) {
            out.A[r * 3 + c] = sum({A[r * 3 + c], Z[r * 3 + c], Z[c * 3 + r], negated(rKr[r * 3 + c])});
            out.A[c * 3 + r] = out.A[r * 3 + c];
        }
    return out;
}

// I x.
pair3 applied(inertia6 const& I, pair3 const& x) {
    return {added({times(I.A, x.top), times(I.B, x.bottom)}), added({times(I.B, x.top, true), times(I.K, x.bottom)})};
}

// A rigid body's inertia (a composite of rigid bodies is one): its mass m, first moment h and
// inertia I about the link's origin, in its axes; the articulated inertia [[I, [h]], [[h]ᵀ, m 1]].
struct rigid_inertia {
    ex m = 0;
    vec3 h = {0, 0, 0};
    mat3 I = mat3(9, 0);
};

inertia6 as_inertia6(rigid_inertia const& x) {
    inertia6 I;
    I.A = x.I;
    I.B = skew(x.h);
    for (std::size_t k = 0; k < 3; ++k) I.K[k * 4] = x.m;
    return I;
}

inertia6 body_of(link const& f) { return as_inertia6({f.mass, f.moment, f.inertia}); }

// X* I X of a rigid inertia, as its three parts: with g = R h, in the parent's axes about its
// origin, m the same, h_P = g + m r, I_P = R I Rᵀ + m (|r|² 1 − r rᵀ) + 2 (r·g) 1 − r gᵀ − g rᵀ
// (the bodies' points moved by r), where inertia_up's general form turns m 1 (R m 1 Rᵀ, m (cos² +
// sin²) in the code) and multiplies out [r] K [r]: M of the generic 20-joint arm 6,580 ->
// 5,459 operations.
rigid_inertia rigid_up(transform const& X, rigid_inertia const& x) {
    vec3 const& r = X.r;
    vec3 const g = times(X.R, x.h);
    rigid_inertia out;
    out.m = x.m;
    out.h = {sum({g[0], held_product(r[0], x.m)}), sum({g[1], held_product(r[1], x.m)}), sum({g[2], held_product(r[2], x.m)})};
    mat3 const turned_I = turned(X.R, x.I, true);
    ex const rr = dot(r, r);
    exvector rg_terms;
    for (std::size_t a = 0; a < 3; ++a) rg_terms.push_back(held_product(product(2, r[a]), g[a]));
    ex const rg = sum(rg_terms);
    for (std::size_t a = 0; a < 3; ++a)
        for (std::size_t b = a; b < 3; ++b) {
            exvector terms = {turned_I[a * 3 + b], held_product(-product(r[a], r[b]), x.m), held_product(-r[a], g[b]),
                              held_product(-r[b], g[a])};
            if (a == b) terms.push_back(held_product(rr, x.m)), terms.push_back(rg);
            out.I[a * 3 + b] = out.I[b * 3 + a] = sum(terms);
        }
    return out;
}

rigid_inertia rigid_sum(std::vector<rigid_inertia> const& parts) {
    rigid_inertia out;
    exvector m;
    std::array<exvector, 3> h;
    std::array<exvector, 9> I;
    for (auto const& p : parts) {
        m.push_back(p.m);
        for (std::size_t k = 0; k < 3; ++k) h[k].push_back(p.h[k]);
        for (std::size_t k = 0; k < 9; ++k) I[k].push_back(p.I[k]);
    }
    out.m = sum(m);
    for (std::size_t k = 0; k < 3; ++k) out.h[k] = sum(h[k]);
    for (std::size_t k = 0; k < 9; ++k) out.I[k] = sum(I[k]);
    return out;
}

// (ω; v) × (ω_s; v_s) = (ω × ω_s; ω × v_s + v × ω_s), and ×*: (ω × n + v × f; ω × f).
pair3 motion_cross(pair3 const& a, pair3 const& b) {
    return {cross(a.top, b.top), added({cross(a.top, b.bottom), cross(a.bottom, b.top)})};
}

pair3 force_cross(pair3 const& a, pair3 const& b) {
    return {added({cross(a.top, b.top), cross(a.bottom, b.bottom)}), cross(a.top, b.bottom)};
}

pair3 sum_of(std::vector<pair3> const& xs) {
    std::vector<vec3> tops, bottoms;
    for (auto const& x : xs) tops.push_back(x.top), bottoms.push_back(x.bottom);
    return {added(tops), added(bottoms)};
}

// Σ of articulated inertias, entry by entry.
inertia6 summed(std::vector<inertia6> const& parts) {
    inertia6 I;
    for (std::size_t e = 0; e < 9; ++e) {
        exvector a, b, k;
        for (auto const& part : parts) a.push_back(part.A[e]), b.push_back(part.B[e]), k.push_back(part.K[e]);
        I.A[e] = sum(a), I.B[e] = sum(b), I.K[e] = sum(k);
    }
    return I;
}

ex dot6(pair3 const& a, pair3 const& b) { return sum({dot(a.top, b.top), dot(a.bottom, b.bottom)}); }

// The joint's S: (a; 0) a hinge's, (0; d) a slide's.
pair3 axis_of(link const& f) { return f.hinge ? pair3{f.axis, {0, 0, 0}} : pair3{{0, 0, 0}, f.axis}; }

} // namespace

articulated_solution local_articulated_body(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                            std::array<ex, 3> const* gravity, exvector const& tau,
                                            exvector const& armature, GiNaC::exmap const& reference) {
    local_frames::walk w;
    if (char const* why = local_frames::walk_of(t, bodies, reference, w)) return {{}, {}, why};
    if (w.root) return {{}, {}, "the tree has a floating root (floating_articulated_body's)"};
    model const& m = t.m;
    std::size_t const L = w.links.size();
    std::vector<transform> X(L);
    std::vector<pair3> S(L), v(L), c(L);
    std::vector<std::vector<inertia6>> IA_parts(L);
    std::vector<std::vector<pair3>> pA_parts(L);
    for (std::size_t k = 0; k < L; ++k) {
        link const& f = w.links[k];
        X[k] = transform_of(m, f);
        S[k] = axis_of(f);
        pair3 const joint = {scaled(S[k].top, m.qd[f.joint]), scaled(S[k].bottom, m.qd[f.joint])};
        pair3 const from = f.parent < 0 ? pair3{} : motion_down(X[k], v[static_cast<std::size_t>(f.parent)]);
        v[k] = sum_of({from, joint});
        c[k] = motion_cross(v[k], joint);
        inertia6 const I = body_of(f);
        IA_parts[k].push_back(I);
        pA_parts[k].push_back(force_cross(v[k], applied(I, v[k])));
    }
    std::vector<pair3> U(L);
    exvector D(L), Dinv(L), u(L);
    for (std::size_t k = L; k-- > 0;) {
        link const& f = w.links[k];
        inertia6 const IA = summed(IA_parts[k]);
        pair3 const pA = sum_of(pA_parts[k]);
        U[k] = applied(IA, S[k]);
        D[k] = sum({dot6(S[k], U[k]), armature.empty() ? ex(0) : armature[f.joint]});
        Dinv[k] = GiNaC::pow(D[k], -1);
        u[k] = sum({tau[f.joint], negated(dot6(S[k], pA))});
        if (f.parent < 0) continue;
        // W = U / D once: I^A − W Uᵀ (A and K symmetric: their upper triangles, mirrored).
        pair3 const W = {scaled(U[k].top, Dinv[k]), scaled(U[k].bottom, Dinv[k])};
        inertia6 Ia;
        for (std::size_t r = 0; r < 3; ++r)
            for (std::size_t s = 0; s < 3; ++s) {
                std::size_t const e = r * 3 + s;
                Ia.B[e] = sum({IA.B[e], negated(product(W.top[r], U[k].bottom[s]))});
                if (s < r) continue;
                Ia.A[e] = Ia.A[s * 3 + r] = sum({IA.A[e], negated(product(W.top[r], U[k].top[s]))});
                Ia.K[e] = Ia.K[s * 3 + r] = sum({IA.K[e], negated(product(W.bottom[r], U[k].bottom[s]))});
            }
        pair3 const pa = sum_of({pA, applied(Ia, c[k]), {scaled(W.top, u[k]), scaled(W.bottom, u[k])}});
        auto const P = static_cast<std::size_t>(f.parent);
        IA_parts[P].push_back(inertia_up(X[k], Ia));
        pA_parts[P].push_back(force_up(X[k], pa));
    }
    articulated_solution out{exvector(t.n, 0), exvector(t.n, 0)};
    pair3 top;
    if (gravity) top.bottom = *gravity;
    std::vector<pair3> a(L);
    for (std::size_t k = 0; k < L; ++k) {
        link const& f = w.links[k];
        pair3 const from = motion_down(X[k], f.parent < 0 ? top : a[static_cast<std::size_t>(f.parent)]);
        pair3 const ap = sum_of({from, c[k]});
        ex const qdd = product(sum({u[k], negated(dot6(U[k], ap))}), Dinv[k]);
        out.qdd[f.joint] = qdd;
        out.pivots[f.joint] = D[k];
        a[k] = sum_of({ap, {scaled(S[k].top, qdd), scaled(S[k].bottom, qdd)}});
    }
    return out;
}

// M by the composite-rigid-body algorithm in each body's own axes (Featherstone, Table 6.2):
// up the links, each one's composite inertia I^c_P += X* I^c X; then for each link
// F = I^c S, M_jj = Sᵀ F (+ its armature), and up its ancestors F = X* F, M_ij = S_iᵀ F. A
// floating root is the top link, in its body's axes, with the whole tree's I^c: its
// coordinates' velocity columns ξ_r = ∂v₀/∂q̇_r = (w_r; Rᵀ u_r) (v₀ = (ω; Rᵀ ȯ), u_r = ∂ȯ/∂q̇_r
// in the world's axes) stand for S, so M_rj = ξ_rᵀ F = w_r·n + u_r·(R f) with F = (n; f)
// brought up to it, and M_rs = ξ_rᵀ I^c ξ_s = w_r·(I w_s + h × Rᵀ u_s) + u_r·(R (w_s × h) +
// m u_s): the translations' block m 1 exactly, where Rᵀ u_s would hold R Rᵀ, 1 only up to
// round-off (R = Q/|e|² of a quaternion e), and M_xy ≈ 1e-17 fail the comparison with M.
mass_solution local_composite_rigid_body(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                         exvector const& armature, GiNaC::exmap const& reference) {
    local_frames::walk w;
    if (char const* why = local_frames::walk_of(t, bodies, reference, w)) return {{}, why};
    model const& m = t.m;
    std::size_t const L = w.links.size(), n = t.n;
    std::vector<transform> X(L);
    std::vector<std::vector<rigid_inertia>> parts(L);
    std::vector<rigid_inertia> root_parts;
    for (std::size_t k = 0; k < L; ++k) {
        link const& f = w.links[k];
        X[k] = transform_of(m, f);
        parts[k].push_back({f.mass, f.moment, f.inertia});
    }
    std::vector<inertia6> Ic(L);
    for (std::size_t k = L; k-- > 0;) {
        rigid_inertia const c = rigid_sum(parts[k]);
        Ic[k] = as_inertia6(c);
        if (w.links[k].parent >= 0) parts[static_cast<std::size_t>(w.links[k].parent)].push_back(rigid_up(X[k], c));
        else if (w.root) root_parts.push_back(rigid_up(X[k], c));
    }
    // The root's coordinates and their velocity columns (w_r; u_r), where the tree has one.
    std::vector<std::pair<std::size_t, pair3>> root;
    if (w.root) {
        root_parts.push_back({w.root->frame.mass, w.root->frame.moment, w.root->frame.inertia});
        vec3 const od = local_frames::root_point_velocity(m, *w.root);
        for (std::size_t r : w.root->coordinates) {
            pair3 xi;
            for (std::size_t c = 0; c < 3; ++c) xi.top[c] = partial(w.root->omega[c], m.qd[r]), xi.bottom[c] = partial(od[c], m.qd[r]);
            root.push_back({r, xi});
        }
    }
    auto const to_world = [&](vec3 const& v) { return times(w.root->R, v); };
    auto const armature_of = [&](std::size_t j) { return armature.empty() ? ex(0) : armature[j]; };
    mass_solution out{exvector(n * n, 0), {}};
    for (std::size_t k = 0; k < L; ++k) {
        link const& f = w.links[k];
        std::size_t const j = f.joint;
        pair3 F = applied(Ic[k], axis_of(f));
        out.M[j * n + j] = sum({dot6(axis_of(f), F), armature_of(j)});
        int below = static_cast<int>(k);
        for (int a = f.parent; a >= 0; below = a, a = w.links[static_cast<std::size_t>(a)].parent) {
            F = force_up(X[static_cast<std::size_t>(below)], F, held_product);
            link const& A = w.links[static_cast<std::size_t>(a)];
            out.M[A.joint * n + j] = out.M[j * n + A.joint] = dot6(axis_of(A), F);
        }
        if (root.empty()) continue;
        F = force_up(X[static_cast<std::size_t>(below)], F, held_product);
        F.bottom = to_world(F.bottom);
        for (auto const& [r, xi] : root) out.M[r * n + j] = out.M[j * n + r] = dot6(xi, F);
    }
    if (root.empty()) return out;
    rigid_inertia const whole = rigid_sum(root_parts);
    for (auto const& [s, xi_s] : root) {
        vec3 const wh = cross(xi_s.top, whole.h);
        pair3 const F = {added({times(whole.I, xi_s.top), cross(whole.h, times(w.root->R, xi_s.bottom, true))}),
                         added({to_world(wh), scaled(xi_s.bottom, whole.m)})};
        for (auto const& [r, xi_r] : root)
            if (r <= s) out.M[r * n + s] = out.M[s * n + r] = sum({dot6(xi_r, F), r == s ? armature_of(r) : ex(0)});
    }
    return out;
}

// The algorithm over the tree's links in their own axes, checked as articulated_body.cpp's is: q̈ in the
// inverse dynamics M q̈ + h − Q at three random states; with the rotors' armature where the
// tree does not hold it (as local Newton–Euler's, derive_control.cpp).
fd_attempt try_articulated_body_local_axes(model const& m, rate_structures const& rs, derived const& d) {
    fd_method const method = fd_method::articulated_body_local_axes;
    std::size_t const n = d.nq;
    if (n == 0) return not_applicable(method, "the model has no coordinates");
    if (d.nc > 0) return not_applicable(method, "the model has constraints (this form solves a tree without them)");
    point_composite const& tree = rs.points;
    if (!tree.usable()) return not_applicable(method, no_tree(tree.tree()));
    auto const gravity = tree.gravity();
    exvector const forces = joint_forces(m, d, gravity), armature = armatures(m);
    bool const armed = std::any_of(armature.begin(), armature.end(), [](ex const& a) { return !a.is_zero(); });
    std::string why;
    for (bool with_armature : {false, true}) {
        if (with_armature && !armed) break;
        articulated_solution x;
        try {
            x = local_articulated_body(tree.tree(), rotational_bodies(m), gravity ? &gravity->g : nullptr, forces,
                                       with_armature ? armature : exvector{}, rs.reference());
        } catch (std::exception const& e) { // q = 0 where a frame is not defined there, say
            return not_applicable(method, std::string("its constants at q = 0 could not be formed: ") + e.what());
        }
        if (x.qdd.empty()) return not_applicable(method, x.why);
        GiNaC::exmap at;
        for (std::size_t i = 0; i < n; ++i) at[d.qdd[i]] = x.qdd[i];
        rows_verdict const v =
            d.inverse_dynamics.size() == n ? rows_verdict_at_random_states(m, d.inverse_dynamics, at, 0x6c616261ull)
                                           : rows_verdict::differ;
        if (v == rows_verdict::vanish)
            return {method, fd_candidate{std::move(x.qdd), {}, x.pivots, {}, {{0, n, 1}}}, {}};
        why = v == rows_verdict::differ // the last try's verdict says why
                  ? "its q̈ leaves M q̈ + h − Q non-zero at random states (terms of T or V outside the tree)"
                  : "its q̈ could not be judged at random states (a value past the doubles)";
    }
    return not_applicable(method, why);
}

} // namespace lagc

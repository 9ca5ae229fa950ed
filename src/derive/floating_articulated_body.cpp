// Stage 3: forward dynamics of a tree whose root node has several coordinates no order
// chains — a floating base's three translations and four quaternion elements, held by
// |e|² = 1 — by the articulated-body algorithm (tree_algorithms.hpp). The joints beyond the
// root are eliminated one by one as in articulated_body.cpp, a body of several hinges as a chain of massless frames (one joint
// each, in the order joint_chains finds), each joint's pivot D = Sᵀ I^A S plus its armature
// (½ a q̇² of T). That leaves the root's own coordinates with their constraints:
//   [[Sᵀ I^A S + diag(a), Aᵀ], [A, 0]] [q̈_r; λ] = [τ_r − Sᵀ (I^A a_g + p^A); r],
// S the root coordinates' twists, a_g the base acceleration of uniform gravity (0; γ). Where
// the root has no armature and S's rows with A's are orthogonal (a free base: translations,
// quaternion, |e|² row), that system is solved in closed form with one 6 × 6 LDLᵀ
// (orthogonal_root); otherwise as M + ρ AᵀA, ρ = tr K / tr AᵀA, which leaves the solution as
// it is and is positive definite wherever the whole system is regular (root_system). Then
// q̈ of every joint down the tree from the root's acceleration. Everything is in the root
// body's axes where the composites have them (point_frame.cpp: the tree's twists and
// inertias are then free of the root's coordinates), else in the world's, spatial vectors
// at the origin. O(n) small products in all, where M's n² entries and its factorisation (a
// floating base's rows in every limb's) cost O(n · depth²): the humanoid of tests/robots,
// 15,960 operations against M's and h's 15,923 with 2,264 products of factorisation after.
#include "derive/derive_support.hpp"
#include "derive/rate_structure.hpp"
#include "derive/random_states.hpp"
#include "derive/tree_algorithms.hpp"
#include "derive/spatial.hpp"
#include "derive/derive.hpp"
#include "symbolic/simplify.hpp"
#include "symbolic/small_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;
using namespace spatial;

namespace {

vec6 added(vec6 const& a, vec6 const& b) {
    vec6 y;
    for (std::size_t r = 0; r < 6; ++r) y[r] = sum({a[r], b[r]});
    return y;
}

} // namespace

// The root system's solution q̈_r (by root coordinate) and λ: H = K + ρ AᵀA, y = H⁻¹(f + ρ Aᵀ r),
// Z = H⁻¹ Aᵀ, λ = (A Z)⁻¹ (A y − r), q̈_r = y − Z λ; the pivots of H and of A Z appended.
static std::pair<exvector, exvector> root_system(exvector const& K, exvector const& f, exvector const& A, exvector const& r,
                                                 exvector& pivots) {
    std::size_t const n = f.size(), nc = r.size();
    exvector H = K, rhs = f;
    if (nc > 0) {
        exvector trace_k, trace_a;
        for (std::size_t i = 0; i < n; ++i) trace_k.push_back(K[i * n + i]);
        for (ex const& a : A) trace_a.push_back(GiNaC::pow(a, 2));
        ex const rho = product(sum(trace_k), GiNaC::pow(sum(trace_a), -1));
        for (std::size_t i = 0; i < n; ++i) {
            for (std::size_t j = 0; j <= i; ++j) {
                exvector terms = {K[i * n + j]};
                for (std::size_t k = 0; k < nc; ++k) terms.push_back(product({rho, A[k * n + i], A[k * n + j]}));
                H[i * n + j] = H[j * n + i] = sum(terms);
            }
            exvector terms = {f[i]};
            for (std::size_t k = 0; k < nc; ++k) terms.push_back(product({rho, A[k * n + i], r[k]}));
            rhs[i] = sum(terms);
        }
    }
    ldlt const h(H);
    pivots.insert(pivots.end(), h.pivots.begin(), h.pivots.end());
    exvector x = h.solve(rhs);
    if (nc == 0) return {x, {}};
    std::vector<exvector> Z;
    for (std::size_t k = 0; k < nc; ++k) Z.push_back(h.solve(exvector(A.begin() + k * n, A.begin() + (k + 1) * n)));
    exvector S(nc * nc), Ay(nc);
    for (std::size_t k = 0; k < nc; ++k) {
        exvector terms = {negated(r[k])};
        for (std::size_t i = 0; i < n; ++i) terms.push_back(product(A[k * n + i], x[i]));
        Ay[k] = sum(terms);
        for (std::size_t l = 0; l < nc; ++l) {
            exvector t;
            for (std::size_t i = 0; i < n; ++i) t.push_back(product(A[k * n + i], Z[l][i]));
            S[k * nc + l] = sum(t);
        }
    }
    ldlt const s(S);
    pivots.insert(pivots.end(), s.pivots.begin(), s.pivots.end());
    exvector const lambda = s.solve(Ay);
    for (std::size_t i = 0; i < n; ++i) {
        exvector terms = {x[i]};
        for (std::size_t k = 0; k < nc; ++k) terms.push_back(negated(product(Z[k][i], lambda[k])));
        x[i] = sum(terms);
    }
    return {x, lambda};
}

// Where the root's twists and its constraint rows are 6 + nc mutually orthogonal rows T (a
// floating base: three translations, a quaternion and its |e|² row) and the root's coordinates
// have no armature, T Tᵀ = D is diagonal and the root's system needs no factorisation of its
// own: with y = S q̈_r, Tᵀ [I^A y + I^A a_g + p^A; λ] = τ_r, so
//   a₀ = a_g + y = (I^A)⁻¹ (D₆⁻¹ S τ_r − p^A),  λ = D_c⁻¹ A τ_r,  q̈_r = Tᵀ D⁻¹ [a₀ − a_g; r],
// one 6 × 6 LDLᵀ (its pivots appended). D's entries are simplified (the translations' rows
// of a rotation have norm 1). False where T is not so (checked at random states).
static bool orthogonal_root(model const& m, std::vector<vec6> const& SR, exvector const& Ar, exvector const& tau,
                            exvector const& r, mat6 const& IA0, vec6 const& pA0, vec6 const& base, exvector& x,
                            exvector& lambda, vec6& a0, exvector& pivots) {
    std::size_t const nr = SR.size(), nc = r.size();
    if (nr != 6 + nc) return false;
    std::vector<exvector> T(nr, exvector(nr));
    for (std::size_t a = 0; a < nr; ++a) {
        for (std::size_t row = 0; row < 6; ++row) T[row][a] = SR[a][row];
        for (std::size_t k = 0; k < nc; ++k) T[6 + k][a] = Ar[k * nr + a];
    }
    auto const row_dot = [&](std::size_t i, std::size_t j) {
        exvector terms;
        for (std::size_t a = 0; a < nr; ++a) terms.push_back(product(T[i][a], T[j][a]));
        return sum(terms);
    };
    samples s(m);
    std::vector<std::size_t> norm(nr);
    std::vector<std::array<std::size_t, 3>> off;
    for (std::size_t i = 0; i < nr; ++i) {
        norm[i] = s.add(row_dot(i, i));
        for (std::size_t j = 0; j < i; ++j) off.push_back({i, j, s.add(row_dot(i, j))});
    }
    if (!s.evaluate(m, 0x6f7274686full, 2)) return false;
    for (std::size_t state = 0; state < s.count(); ++state)
        for (auto const& [i, j, at] : off)
            if (!(std::abs(s(state, at)) <= 1e-10 * std::sqrt(std::abs(s(state, norm[i]) * s(state, norm[j]))))) return false;
    exvector inverse(nr);
    for (std::size_t i = 0; i < nr; ++i) {
        ex const d = GiNaC::normal(row_dot(i, i));
        if (d.is_zero()) return false;
        inverse[i] = GiNaC::pow(d, -1);
    }
    exvector g(6);
    for (std::size_t row = 0; row < 6; ++row) {
        exvector terms;
        for (std::size_t a = 0; a < nr; ++a) terms.push_back(product(T[row][a], tau[a]));
        g[row] = sum({product(sum(terms), inverse[row]), negated(pA0[row])});
    }
    ldlt const h(exvector(IA0.begin(), IA0.end()));
    pivots.insert(pivots.end(), h.pivots.begin(), h.pivots.end());
    exvector const a = h.solve(g);
    for (std::size_t row = 0; row < 6; ++row) a0[row] = a[row];
    lambda.assign(nc, 0);
    for (std::size_t k = 0; k < nc; ++k) {
        exvector terms;
        for (std::size_t b = 0; b < nr; ++b) terms.push_back(product(T[6 + k][b], tau[b]));
        lambda[k] = product(sum(terms), inverse[6 + k]);
    }
    x.assign(nr, 0);
    for (std::size_t b = 0; b < nr; ++b) {
        exvector terms;
        for (std::size_t row = 0; row < 6; ++row)
            terms.push_back(product({T[row][b], sum({a0[row], negated(base[row])}), inverse[row]}));
        for (std::size_t k = 0; k < nc; ++k) terms.push_back(product({T[6 + k][b], r[k], inverse[6 + k]}));
        x[b] = sum(terms);
    }
    return true;
}

namespace {

// One level per joint beyond the root, parents first: its parent level (−1: the root) and the
// node whose inertia it carries (the last joint of a body's chain; −1: none).
struct level {
    std::size_t joint;
    int parent, node;
};

// The algorithm's quantities by level; the root's sums at index L (the number of levels).
struct sweep {
    std::vector<level> levels;
    std::vector<vec6> S, v, avp, U;
    std::vector<ex> D, Dinv, u;
    mat6 IA0;
    vec6 pA0;
};

// Down: each level's velocity and its acceleration at q̈ = 0 (a_vp, the root's c0 and every
// (v_parent × S) q̇ on the way), whose force I a_vp enters the body's bias once.
void velocities(sweep& w, std::vector<vec6> const& twists, vec6 const& v0, vec6 const& c0, exvector const& qd) {
    std::size_t const L = w.levels.size();
    w.S.resize(L), w.v.resize(L), w.avp.resize(L);
    for (std::size_t l = 0; l < L; ++l) {
        std::size_t const j = w.levels[l].joint;
        int const P = w.levels[l].parent;
        vec6 const& vp = P < 0 ? v0 : w.v[static_cast<std::size_t>(P)];
        vec6 const& ap = P < 0 ? c0 : w.avp[static_cast<std::size_t>(P)];
        w.S[l] = twists[j];
        w.v[l] = added(vp, scaled(w.S[l], qd[j]));
        w.avp[l] = added(ap, scaled(motion_cross(vp, w.S[l]), qd[j]));
    }
}

// Up: articulated inertias and bias forces, each level's children's added as one sum with its
// own (Y of the node it carries); the root's own body last.
void inertias(sweep& w, std::vector<mat6> const& Y, std::size_t root, vec6 const& v0, vec6 const& c0, exvector const& tau,
              exvector const& armature) {
    std::size_t const L = w.levels.size();
    std::vector<std::array<exvector, 36>> IA_terms(L + 1);
    std::vector<std::array<exvector, 6>> pA_terms(L + 1);
    auto const own = [&](std::size_t at, std::size_t N, vec6 const& vel, vec6 const& acc) {
        vec6 const bias = added(force_cross(vel, times(Y[N], vel)), times(Y[N], acc));
        for (std::size_t k = 0; k < 36; ++k) IA_terms[at][k].push_back(Y[N][k]);
        for (std::size_t c = 0; c < 6; ++c) pA_terms[at][c].push_back(bias[c]);
    };
    w.U.resize(L), w.D.resize(L), w.Dinv.resize(L), w.u.resize(L);
    for (std::size_t l = L; l-- > 0;) {
        std::size_t const j = w.levels[l].joint;
        if (w.levels[l].node >= 0) own(l, static_cast<std::size_t>(w.levels[l].node), w.v[l], w.avp[l]);
        mat6 IA;
        vec6 pA;
        for (std::size_t k = 0; k < 36; ++k) IA[k] = sum(IA_terms[l][k]);
        for (std::size_t c = 0; c < 6; ++c) pA[c] = sum(pA_terms[l][c]);
        w.U[l] = times(IA, w.S[l]);
        w.D[l] = sum({dot(w.S[l], w.U[l]), armature[j]});
        w.Dinv[l] = GiNaC::pow(w.D[l], -1);
        w.u[l] = sum({tau[j], negated(dot(w.S[l], pA))});
        std::size_t const P = w.levels[l].parent < 0 ? L : static_cast<std::size_t>(w.levels[l].parent);
        vec6 const W = scaled(w.U[l], w.Dinv[l]); // I^A − W Uᵀ, its upper triangle mirrored
        for (std::size_t a = 0; a < 6; ++a)
            for (std::size_t b = a; b < 6; ++b) {
                ex const e = sum({IA[a * 6 + b], negated(product(W[a], w.U[l][b]))});
                IA_terms[P][a * 6 + b].push_back(e);
                if (b != a) IA_terms[P][b * 6 + a].push_back(e);
            }
        for (std::size_t c = 0; c < 6; ++c) pA_terms[P][c].push_back(sum({pA[c], product(W[c], w.u[l])}));
    }
    own(L, root, v0, c0);
    for (std::size_t k = 0; k < 36; ++k) w.IA0[k] = sum(IA_terms[L][k]);
    for (std::size_t c = 0; c < 6; ++c) w.pA0[c] = sum(pA_terms[L][c]);
}

// The root's system for its coordinates' q̈ (by root coordinate) and λ, with the root's
// acceleration a0 (gravity's base included); pivots appended. Without armature at the root
// and with orthogonal twists and rows, orthogonal_root's closed form; else root_system's.
struct root_solution {
    exvector qdd, lambda;
    vec6 a0;
    std::size_t pivots; // the root system's own (a Schur complement's come after them)
};
root_solution solve_root(model const& m, sweep const& w, std::vector<vec6> const& SR, exvector const& tau,
                         exvector const& armature, exvector const& Ar, exvector const& r, vec6 const& base,
                         exvector& pivots) {
    std::size_t const nr = SR.size();
    root_solution out{{}, {}, base, 6};
    if (std::all_of(armature.begin(), armature.end(), [](ex const& a) { return a.is_zero(); }) &&
        orthogonal_root(m, SR, Ar, tau, r, w.IA0, w.pA0, base, out.qdd, out.lambda, out.a0, pivots))
        return out;
    vec6 const push = added(times(w.IA0, base), w.pA0);
    exvector K(nr * nr), f(nr);
    std::vector<vec6> IS;
    for (vec6 const& S : SR) IS.push_back(times(w.IA0, S));
    for (std::size_t a = 0; a < nr; ++a) {
        for (std::size_t b = 0; b <= a; ++b)
            K[a * nr + b] = K[b * nr + a] = a == b ? sum({dot(SR[a], IS[b]), armature[a]}) : dot(SR[a], IS[b]);
        f[a] = sum({tau[a], negated(dot(SR[a], push))});
    }
    std::tie(out.qdd, out.lambda) = root_system(K, f, Ar, r, pivots);
    out.pivots = nr;
    for (std::size_t a = 0; a < nr; ++a) out.a0 = added(out.a0, scaled(SR[a], out.qdd[a]));
    return out;
}

} // namespace

constrained_solution floating_articulated_body(kinematic_tree const& t, std::vector<rotational_body> const& bodies,
                                               std::array<ex, 3> const* gravity, exvector const& tau,
                                               exvector const& armature, exvector const& A, exvector const& r) {
    std::size_t const nc = r.size();
    auto const fails = [](char const* why) { return constrained_solution{{}, {}, {}, 0, 0, why}; };
    char const* const unchained = "a node's joints do not chain (twists that are not a hinge's or a slide's)";
    if (!t.usable || tau.size() != t.n || armature.size() != t.n || A.size() != nc * t.n)
        return fails("the kinetic energy is not that of points and bodies on one tree of joints");
    std::vector<std::size_t> R; // the root's coordinates
    int const root = t.floating_root(A, nc, R);
    if (root < 0) return fails("no root node whose coordinates alone the constraints hold");
    std::vector<std::vector<std::size_t>> const chains = t.joint_chains(false, root);
    std::vector<exvector> rotational(t.nodes.size(), exvector(9, 0));
    if (chains.empty()) return fails(unchained);
    if (!t.place(bodies, rotational)) return fails("a body's rotational inertia has no node whose frame turns it");
    std::vector<mat6> Y;
    for (std::size_t N = 0; N < t.nodes.size(); ++N) Y.push_back(body_inertia(t.own_masses(N), rotational[N]));
    // The twists as short as they get (a hip's axis under the root: cos² + sin² = 1).
    std::vector<vec6> twists(t.n);
    for (std::size_t j = 0; j < t.n; ++j)
        for (std::size_t c = 0; c < 6; ++c) twists[j][c] = simplify(joined(t.joints[j].s, t.joints[j].u)[c]);
    sweep w;
    std::vector<int> last(t.nodes.size(), -1);
    std::vector<std::size_t> const up = t.children_first();
    for (auto N = up.rbegin(); N != up.rend(); ++N) {
        if (static_cast<int>(*N) == root) continue;
        if (chains[*N].empty()) return fails(unchained);
        int parent = last[static_cast<std::size_t>(t.nodes[*N].parent)];
        for (std::size_t k = 0; k < chains[*N].size(); ++k) {
            w.levels.push_back({chains[*N][k], parent, k + 1 == chains[*N].size() ? static_cast<int>(*N) : -1});
            parent = static_cast<int>(w.levels.size()) - 1;
        }
        last[*N] = parent;
    }
    // The root's velocity and its Ṡ q̇ (its own twists turn with its coordinates).
    vec6 const zero = {ex(0), ex(0), ex(0), ex(0), ex(0), ex(0)};
    vec6 v0 = zero, c0 = zero;
    for (std::size_t k : R) {
        v0 = added(v0, scaled(twists[k], t.m.qd[k]));
        for (std::size_t c = 0; c < 6; ++c) {
            exvector terms = {c0[c]};
            for (std::size_t l = 0; l < t.n; ++l)
                if (has_any(twists[k][c], {t.m.q[l]}))
                    terms.push_back(product({partial(twists[k][c], t.m.q[l]), t.m.qd[l], t.m.qd[k]}));
            c0[c] = sum(terms);
        }
    }
    velocities(w, twists, v0, c0, exvector(t.m.qd.begin(), t.m.qd.end()));
    inertias(w, Y, static_cast<std::size_t>(root), v0, c0, tau, armature);

    // The root's system, then every joint's q̈ from its parent's acceleration.
    vec6 base = zero;
    if (gravity)
        for (std::size_t c = 0; c < 3; ++c) base[c + 3] = (*gravity)[c];
    std::size_t const nr = R.size(), L = w.levels.size();
    std::vector<vec6> SR;
    exvector Ar(nc * nr), tauR, armatureR;
    for (std::size_t a = 0; a < nr; ++a) {
        SR.push_back(twists[R[a]]), tauR.push_back(tau[R[a]]), armatureR.push_back(armature[R[a]]);
        for (std::size_t k = 0; k < nc; ++k) Ar[k * nr + a] = A[k * t.n + R[a]];
    }
    constrained_solution out{exvector(t.n, 0), {}, {}, L, 0};
    out.pivots.assign(w.D.begin(), w.D.end());
    root_solution const x = solve_root(t.m, w, SR, tauR, armatureR, Ar, r, base, out.pivots);
    out.root_pivots = x.pivots;
    out.lambda = x.lambda;
    for (std::size_t a = 0; a < nr; ++a) out.qdd[R[a]] = x.qdd[a];
    std::vector<vec6> acc(L);
    for (std::size_t l = 0; l < L; ++l) {
        std::size_t const j = w.levels[l].joint;
        vec6 const& ap = w.levels[l].parent < 0 ? x.a0 : acc[static_cast<std::size_t>(w.levels[l].parent)];
        out.qdd[j] = product(sum({w.u[l], negated(dot(w.U[l], ap))}), w.Dinv[l]);
        acc[l] = added(ap, scaled(w.S[l], out.qdd[j]));
    }
    return out;
}

exvector armatures(model const& m) {
    exvector a(m.q.size(), 0);
    for (auto const& t : m.energy_terms) {
        if (t.keyword != "kinetic" || !free_of(t.value, m.q)) continue;
        ex const e = t.value.expand();
        exvector terms;
        if (GiNaC::is_exactly_a<GiNaC::add>(e))
            for (std::size_t k = 0; k < e.nops(); ++k) terms.push_back(e.op(k));
        else
            terms.push_back(e);
        for (ex const& term : terms) {
            std::vector<std::size_t> rates;
            for (std::size_t j = 0; j < m.qd.size(); ++j)
                if (has_any(term, {m.qd[j]})) rates.push_back(j);
            if (rates.size() != 1) continue;
            ex const& x = m.qd[rates[0]];
            if (!term.is_polynomial(x) || term.degree(x) != 2 || term.ldegree(x) != 2) continue;
            ex const k = term.coeff(x, 2);
            if (free_of(k, m.qd)) a[rates[0]] += 2 * k;
        }
    }
    return a;
}

// In the root body's axes first (the tree's twists and inertias are free of the root's
// coordinates there), else in the world's; checked: the residuals M q̈ + h − Q + Aᵀλ and
// A q̈ − r vanish at random states (a backward error).
fd_attempt try_floating_articulated_body(model const& m, rate_structures const& rs, derived const& d) {
    fd_method const method = fd_method::floating_articulated_body;
    std::size_t const n = d.nq, nc = d.nc;
    if (n == 0) return not_applicable(method, "the model has no coordinates");
    if (!rs.points.usable()) return not_applicable(method, no_tree(rs.points.tree()));
    auto const gravity = rs.points.gravity();
    exvector const tau = joint_forces(m, d, gravity);
    auto const holds = [&](constrained_solution const& x) {
        if (x.qdd.size() != n || x.lambda.size() != nc) return false;
        GiNaC::exmap at;
        for (std::size_t i = 0; i < n; ++i) at[d.qdd[i]] = x.qdd[i];
        for (std::size_t k = 0; k < nc; ++k) at[d.lambda[k]] = x.lambda[k];
        return rows_vanish_at_random_states(m, nc > 0 ? d.residual_rows : d.inverse_dynamics, at, 0x666c6f61ull);
    };
    constrained_solution x;
    exvector const a = armatures(m);
    if (rs.framed_points.framed()) {
        std::array<ex, 3> const g = gravity ? rs.framed_points.tree().in_root_axes(gravity->g) : std::array<ex, 3>{};
        x = floating_articulated_body(rs.framed_points.tree(), rotational_bodies(m), gravity ? &g : nullptr, tau, a,
                                                  d.constraint_jacobian, d.constraint_rhs);
    }
    if (!holds(x))
        x = floating_articulated_body(rs.points.tree(), rotational_bodies(m), gravity ? &gravity->g : nullptr, tau, a,
                                           d.constraint_jacobian, d.constraint_rhs);
    if (!x.why.empty()) return not_applicable(method, x.why);
    if (!holds(x))
        return not_applicable(method, "its q̈ and λ leave the residuals M q̈ + h − Q + Aᵀλ, A q̈ − r non-zero at "
                                      "random states (terms of T or V outside the tree)");
    // With constraints, each group of pivots against its own largest: the joints', the root's,
    // the constraints'; without, all against the largest, as the fixed-base algorithm's.
    std::size_t const joints = x.joint_pivots, root = joints + x.root_pivots, all = x.pivots.size();
    fd_candidate c{std::move(x.qdd), std::move(x.lambda), std::move(x.pivots), {}, {}};
    if (nc == 0) {
        c.groups.push_back({0, all, 1});
        return {method, std::move(c), {}};
    }
    if (joints > 0) c.groups.push_back({0, joints, 1});
    if (root > joints) c.groups.push_back({joints, root, 1});
    if (all > root) c.groups.push_back({root, all, 2});
    return {method, std::move(c), {}};
}

} // namespace lagc

// Stage 3, the rate form: kinetic energies written with velocities that are not
// gradients — the angular velocities of rigid bodies, ½ dot(w, J*w) with full inertia
// tensors — as T = Σ_k c_k r_a(k) r_b(k), a sum of products of "rates" r (expressions
// linear and homogeneous in q̇, r = α(q)·q̇) with coefficients c free of q̇. Then, with
// α̇ = dα/dt, ρ = dr/dt (both with q̈ = 0) and ∂_i r = ∂r/∂q_i:
//   M_ij = Σ c (α_i β_j + β_i α_j)      (c may depend on q: then ċ and ∂c/∂q terms join h and C)
//   h_i  = Σ c (α_i ρ_b + β_i ρ_a + (α̇_i − ∂_i r_a) r_b + (β̇_i − ∂_i r_b) r_a) + ∂V/∂q_i
//   C    = ½ (Ṁ + P − Pᵀ),  P_ij = ∂(∂T/∂q̇_i)/∂q_j   (the Christoffel matrix)
// gathered rate by rate (gathered_terms), so that each rate's share — J w, m ρ — is
// computed once for every i and j. A rate that der() made is a gradient: its curl terms
// (α̇_i − ∂_i r, ∂_j α_i − ∂_i α_j) vanish and are not formed. A rate that is a constant
// combination of others (J w) is written through them. Every derivative is of one rate or
// one coefficient — small expressions, shared between the terms that use them — instead
// of the n² derivatives of all of L and the n³ of M's entries that the general path takes.
#include "symbolic/chain_rule.hpp"
#include "derive/derive_support.hpp"
#include "symbolic/dag.hpp"
#include "symbolic/simplify.hpp"
#include "derive/rate_structure.hpp"
#include "graph/expression_graph.hpp"
#include "derive/random_states.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

namespace {

class collector {
public:
    collector(model const& m, bilinear_form& out) : m_(m), out_(out) {}

    // e, times `factor` (free of q̇), into terms; false when T is not of the form.
    bool collect(ex const& e, ex const& factor) {
        if (free_of(e, m_.qd)) return e.is_zero();
        if (GiNaC::is_exactly_a<GiNaC::add>(e)) {
            for (std::size_t i = 0; i < e.nops(); ++i)
                if (!collect(e.op(i), factor)) return false;
            return true;
        }
        if (is_square(e)) return term(factor, e.op(0), e.op(0));
        if (!GiNaC::is_exactly_a<GiNaC::mul>(e)) return false;
        ex rest = factor;
        std::vector<ex> moving; // the factors with velocities
        for (std::size_t i = 0; i < e.nops(); ++i) {
            if (free_of(e.op(i), m_.qd)) rest *= e.op(i);
            else moving.push_back(e.op(i));
        }
        if (moving.size() == 2) return term(rest, moving[0], moving[1]);
        if (moving.size() != 1) return false;
        if (is_square(moving[0])) return term(rest, moving[0].op(0), moving[0].op(0));
        if (GiNaC::is_exactly_a<GiNaC::add>(moving[0])) return collect(moving[0], rest);
        return false;
    }

    // A rate that is a sum of constants times other rates (J*w: Jxx w_x + Jxy w_y + Jxz w_z)
    // is written through them: its terms become terms of those rates, and rates no term
    // uses are dropped. Fewer rates: fewer derivatives, and M and h see J w_j in one place.
    void combine() {
        auto& R = out_.rates;
        std::map<ex, std::size_t, GiNaC::ex_is_less> by_key;
        for (std::size_t k = 0; k < originals_.size(); ++k) by_key.emplace(without_numeric_factor(originals_[k]), k);
        // An element of a vector the model turned, X(q) u (a body's ω = Tᵀ w_parent + a q̇), stays
        // a rate of its own even where it is a constant combination of others (a fixed turn
        // before a joint): the angular velocities are found among the rates.
        std::set<ex, GiNaC::ex_is_less> turned;
        for (auto const& t : m_.transports) {
            bool const moving_frame = std::any_of(t.matrix.begin(), t.matrix.end(), [&](ex const& x) { return !free_of(x, m_.q); });
            if (moving_frame)
                for (ex const& e : t.result) turned.insert(without_numeric_factor(e)), turned.insert(without_numeric_factor(-e));
        }
        std::vector<std::vector<std::pair<ex, std::size_t>>> parts(R.size());
        for (std::size_t k = 0; k < R.size(); ++k)
            if (!turned.count(without_numeric_factor(originals_[k]))) parts[k] = combination(originals_[k], k, by_key);
        // Onto rates that stay only: a rate written through one that is itself a combination
        // stays as it is (decided on the combinations as found, not as they are cleared one
        // by one, so that the rates' order, which is GiNaC's and varies between runs, does
        // not change the outcome).
        std::vector<char> combined(R.size());
        for (std::size_t k = 0; k < R.size(); ++k) combined[k] = !parts[k].empty();
        for (auto& p : parts)
            for (auto const& [coefficient, j] : p)
                if (combined[j]) {
                    p.clear();
                    break;
                }
        std::vector<bilinear_form::term> terms;
        for (auto const& t : out_.terms) {
            using combination_t = std::vector<std::pair<ex, std::size_t>>;
            combination_t const pa = parts[t.a].empty() ? combination_t{{ex(1), t.a}} : parts[t.a];
            combination_t const pb = parts[t.b].empty() ? combination_t{{ex(1), t.b}} : parts[t.b];
            for (auto const& [ka, a] : pa)
                for (auto const& [kb, b] : pb) {
                    bilinear_form::term x;
                    x.c = t.c * ka * kb;
                    x.a = a;
                    x.b = b;
                    terms.push_back(std::move(x));
                }
        }
        std::vector<std::size_t> renumbered(R.size(), R.size());
        std::vector<bilinear_form::rate> kept;
        for (auto& t : terms)
            for (std::size_t* k : {&t.a, &t.b}) {
                if (renumbered[*k] == R.size()) {
                    renumbered[*k] = kept.size();
                    kept.push_back(R[*k]);
                }
                *k = renumbered[*k];
            }
        R = std::move(kept);
        out_.terms = std::move(terms);
    }

private:
    model const& m_;
    bilinear_form& out_;
    std::map<ex, std::size_t, GiNaC::ex_is_less> index_;
    std::vector<ex> originals_; // each rate as T has it (before reduced())

    bool fixed(ex const& e) const {
        return free_of(e, m_.q) && free_of(e, m_.qd) && free_of(e, m_.u) && !has_any(e, {m_.t});
    }

    // r as Σ k_j r_j over other rates r_j with constant k_j, or empty.
    std::vector<std::pair<ex, std::size_t>> combination(ex const& r, std::size_t self,
                                                        std::map<ex, std::size_t, GiNaC::ex_is_less> const& by_key) const {
        if (!GiNaC::is_exactly_a<GiNaC::add>(r)) return {};
        std::vector<std::pair<ex, std::size_t>> out;
        for (std::size_t i = 0; i < r.nops(); ++i) {
            ex const& t = r.op(i);
            ex inner = 1;
            if (GiNaC::is_exactly_a<GiNaC::mul>(t)) {
                for (std::size_t k = 0; k < t.nops(); ++k)
                    if (!fixed(t.op(k))) inner *= t.op(k);
            } else {
                inner = t;
            }
            auto it = by_key.find(without_numeric_factor(inner));
            if (it == by_key.end() || it->second == self) return {};
            ex const coefficient = t / originals_[it->second];
            if (!fixed(coefficient) || coefficient.is_zero()) return {};
            out.push_back({coefficient, it->second});
        }
        return out;
    }

    std::map<ex, ex, GiNaC::ex_is_less> reduced_;

    static bool is_square(ex const& e) { return GiNaC::is_exactly_a<GiNaC::power>(e) && e.op(1).is_equal(2); }

    // A rate with sin² + cos² = 1 applied (trig_reduce). A sum of constants times rates —
    // J*w, with w from a rotation matrix — is reduced rate by rate, each rate once, so the
    // sum keeps sharing them instead of being expanded as a whole.
    ex reduced(ex const& r) {
        if (auto it = reduced_.find(r); it != reduced_.end()) return it->second;
        ex out = r;
        bool split = false;
        if (GiNaC::is_exactly_a<GiNaC::add>(r)) {
            ex sum = 0;
            for (std::size_t i = 0; i < r.nops(); ++i) {
                ex const& t = r.op(i);
                ex constant = 1, inner = 1;
                if (GiNaC::is_exactly_a<GiNaC::mul>(t))
                    for (std::size_t k = 0; k < t.nops(); ++k) {
                        bool const fixed = free_of(t.op(k), m_.q) && free_of(t.op(k), m_.qd) && !has_any(t.op(k), {m_.t});
                        (fixed ? constant : inner) *= t.op(k);
                    }
                if (GiNaC::is_exactly_a<GiNaC::add>(inner) && !free_of(inner, m_.qd)) {
                    sum += constant * reduced(inner);
                    split = true;
                } else {
                    sum += t;
                }
            }
            if (split) out = sum;
        }
        if (!split) out = trig_reduce(r, 400);
        reduced_.emplace(r, out);
        return out;
    }

    // c r_a r_b, c free of q̇ (it may depend on q: c(q) r_a r_b is symmetric in a and b,
    // where folding c into one rate would pick one by GiNaC's order, which changes from
    // process to process).
    bool term(ex const& c, ex const& a, ex const& b) {
        if (!free_of(c, m_.u) || has_any(c, {m_.t})) return false;
        auto ia = rate(a), ib = rate(b);
        if (!ia || !ib) return false;
        out_.terms.push_back({c, *ia, *ib, {}, {}});
        return true;
    }

    // The index of a rate, added on first sight; nullopt when r is not linear and
    // homogeneous in q̇ (∂r/∂q̇ free of q̇, r = 0 at q̇ = 0) or depends on t.
    std::optional<std::size_t> rate(ex const& r) {
        if (auto it = index_.find(r); it != index_.end()) return it->second;
        std::size_t const n = m_.q.size();
        if (has_any(r, {m_.t})) return std::nullopt;
        bilinear_form::rate x;
        // sin² + cos² = 1 inside products, which ω taken from a rotation matrix
        // (transpose(R)*der(R)) is full of, where the rate is small enough to expand.
        x.r = reduced(r);
        x.a.resize(n);
        GiNaC::exmap at_rest;
        for (std::size_t i = 0; i < n; ++i) {
            x.a[i] = partial(x.r, m_.qd[i]);
            if (!free_of(x.a[i], m_.qd)) return std::nullopt;
            at_rest[m_.qd[i]] = 0;
        }
        if (!is_identically_zero(substitute(x.r, at_rest), m_)) return std::nullopt;
        x.gradient = m_.time_derivatives.count(without_numeric_factor(r)) > 0;
        x.original = r;
        out_.rates.push_back(std::move(x));
        originals_.push_back(r);
        index_.emplace(r, out_.rates.size() - 1);
        return out_.rates.size() - 1;
    }
};

} // namespace

std::optional<bilinear_form> bilinear_form_of(model const& m) {
    bilinear_form f;
    collector c(m, f);
    if (!c.collect(m.kinetic, 1) || f.terms.empty()) return std::nullopt;
    c.combine();
    std::size_t const n = m.q.size();
    for (auto& r : f.rates) {
        r.adot.resize(n);
        r.dr.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            r.adot[i] = r.a[i].is_zero() ? ex(0) : total_time_derivative(r.a[i], m);
            r.dr[i] = r.gradient ? r.adot[i] : partial(r.r, m.q[i]);
        }
        r.rho = total_time_derivative(r.r, m);
    }
    // Terms often share a coefficient (a mass times the rates' products, expanded): its
    // derivatives are taken once.
    std::map<ex, std::size_t, GiNaC::ex_is_less> first_with;
    for (std::size_t k = 0; k < f.terms.size(); ++k) {
        auto& t = f.terms[k];
        if (free_of(t.c, m.q)) continue;
        auto [it, added] = first_with.try_emplace(t.c, k);
        if (!added) {
            t.cdot = f.terms[it->second].cdot;
            t.dc = f.terms[it->second].dc;
            continue;
        }
        t.cdot = total_time_derivative(t.c, m);
        t.dc.resize(n);
        for (std::size_t i = 0; i < n; ++i) t.dc[i] = partial(t.c, m.q[i]);
    }
    f.angular = angular_velocities(m, f);
    return f;
}

namespace {

// ∂α_i/∂q_j of one rate, computed once per (i, j) that is asked for (a map: a dense table
// would hold rates × n² entries, most never asked for).
class coefficient_derivatives {
public:
    coefficient_derivatives(model const& m, bilinear_form const& f) : m_(m), f_(f) {}
    ex const& operator()(std::size_t k, std::size_t i, std::size_t j) {
        std::size_t const n = m_.q.size();
        auto [it, added] = cache_.try_emplace((k * n + i) * n + j);
        if (added) {
            ex const& a = f_.rates[k].a[i];
            it->second = a.is_zero() ? ex(0) : partial(a, m_.q[j]);
        }
        return it->second;
    }

private:
    model const& m_;
    bilinear_form const& f_;
    std::unordered_map<std::size_t, ex> cache_;
};

} // namespace

namespace {

// The sums M, h, Ṁ and P − Pᵀ are built in; `da` caches ∂α_i/∂q_j.
struct rate_form_sums {
    rate_form_sums(model const& m, bilinear_form const& f)
        : n(m.q.size()), M(n * n, 0), h(n, 0), Mdot(n * n, 0), P_minus_Pt(n * n, 0), compact_delta(n, 0), da(m, f) {}
    std::size_t n;
    exvector M, h, Mdot, P_minus_Pt;
    exvector compact_delta; // a smaller h to evaluate is h + compact_delta (point_composite::add)
    exvector point_share;   // what h holds of the points' translational terms (derived::bias_point_share)
    exvector body_share;    // what h holds of the covered rotational terms (derived::bias_body_share)
    coefficient_derivatives da;
    point_composite const* framed = nullptr;      // the points in the root body's axes, if found
    point_composite const* points_used = nullptr; // the composites M and h took, if any
    // Why each form of the points' share was or was not taken (derived::mass_bias).
    point_composite::share_report framed_report, world_report;
    bool rotational_used = false;

    void add_antisymmetric(std::size_t i, std::size_t j, ex const& w) {
        if (w.is_zero()) return;
        P_minus_Pt[i * n + j] += w;
        P_minus_Pt[j * n + i] -= w;
    }
};

// The covered rates' parts of M and h, term by term (rotational, translational).
struct covered_parts {
    explicit covered_parts(std::size_t n) : M(n * n, 0), h(n, 0), Mp(n * n, 0), hp(n, 0) {}
    exvector M, h, Mp, hp;
};

// The composites where they apply and agree (the points' where they also make M and h
// smaller), else the covered rates' parts term by term.
void add_covered(composite_inertia const& composite, point_composite const& points, exvector const& F,
                 covered_parts const& covered, rate_form_sums& x) {
    exvector &M = x.M, &h = x.h, &compact_delta = x.compact_delta, &point_share = x.point_share, &body_share = x.body_share;
    // The composite inertias, and the forces F^c = F + Σ Xᵀ F^c of the children, as the RNEA sums them.
    x.rotational_used = composite.add_to(M, covered.M);
    if (!x.rotational_used)
        for (std::size_t k = 0; k < M.size(); ++k) M[k] += covered.M[k];
    if (!composite.add_force(h, F, covered.h, body_share)) {
        body_share = covered.h;
        for (std::size_t i = 0; i < h.size(); ++i) h[i] += covered.h[i];
    }
    // The points' translational inertia and forces, composites over the points each joint
    // moves: in the root body's axes if they apply there, else in the world's.
    if (!x.framed) x.framed_report.why = "no frame of the model fits its root body";
    if (x.framed && x.framed->add(M, h, covered.Mp, covered.hp, compact_delta, point_share, &x.framed_report))
        x.points_used = x.framed;
    else if (points.add(M, h, covered.Mp, covered.hp, compact_delta, point_share, &x.world_report))
        x.points_used = &points;
    else {
        point_share = covered.hp;
        for (std::size_t k = 0; k < M.size(); ++k) M[k] += covered.Mp[k];
        for (std::size_t i = 0; i < h.size(); ++i) h[i] += covered.hp[i];
    }
}

// An angular velocity's curl terms as cross products: Σ_a (α̇_ai − ∂_i w_a) G_a =
// s (w × α_i)·G = α_i·(s G × w), so F + s G × w takes them (Euler's ω × Jω), and in
// P − Pᵀ, Σ_a G_a (∂_j α_ai − ∂_i α_aj) = s G·(α_j × α_i) (gathered_terms' G, Gc, F). Which
// rates are such triples' (their curl terms are taken).
std::vector<char> angular_curl_terms(bilinear_form const& f, exvector const& G, exvector const& Gc, exvector& F,
                                     rate_form_sums& x) {
    auto const& R = f.rates;
    std::size_t const n = x.n;
    std::vector<char> angular(R.size(), 0);
    for (auto const& w : f.angular) {
        auto const& k = w.rate;
        // With G_a scaled by λ_a / s where the triple is an angular velocity up to numbers.
        bool const scaled = !w.scale[0].is_equal(1) || !w.scale[1].is_equal(1) || !w.scale[2].is_equal(1);
        auto g = [&](exvector const& v, std::size_t c) { return scaled ? w.scale[c] * v[k[c]] : v[k[c]]; };
        for (std::size_t c = 0; c < 3; ++c) {
            std::size_t const a = k[c], b = k[(c + 1) % 3], d = k[(c + 2) % 3];
            F[a] += w.sign * (g(G, (c + 1) % 3) * R[d].r - g(G, (c + 2) % 3) * R[b].r);
            angular[a] = 1;
        }
        // G·(α_j × α_i) = α_i·(G × α_j), with G × α_j once per j.
        for (std::size_t j = 0; j < n; ++j) {
            std::array<ex, 3> Y;
            for (std::size_t c = 0; c < 3; ++c)
                Y[c] = g(Gc, (c + 1) % 3) * R[k[(c + 2) % 3]].a[j] - g(Gc, (c + 2) % 3) * R[k[(c + 1) % 3]].a[j];
            for (std::size_t i = 0; i < j; ++i) {
                ex s = 0;
                for (std::size_t c = 0; c < 3; ++c) s += R[k[c]].a[i] * Y[c];
                x.add_antisymmetric(i, j, w.sign * s);
            }
        }
    }
    return angular;
}

// Every term's c (…) part, gathered rate by rate (h for all terms; M, Ṁ, P − Pᵀ for the
// terms with a constant c): with K_aj = Σ c β_j, K̇_aj = Σ c β̇_j, D_aj = Σ c ∂_j r_b,
// F_a = Σ c ρ_b and G_a = Σ c r_b over the terms c r_a r_b rate a is in,
//   M_ij = Σ_a α_ai K_aj,  Ṁ_ij = Σ_a α̇_ai K_aj + α_ai K̇_aj,
//   h_i = Σ_a α_ai F_a + (α̇_ai − ∂_i r_a) G_a,
//   (P − Pᵀ)_ij = Σ_a G_a (∂_j α_ai − ∂_i α_aj) + α_ai D_aj − α_aj D_ai,
// each rate's sums computed once for every i and j (J w_j once per body, as the CRBA and
// RNEA compute a body's inertia and force once for every joint); curl terms vanish for a
// gradient rate.
void gathered_terms(bilinear_form const& f, composite_inertia const& composite, point_composite const& points,
                    rate_form_sums& x) {
    std::size_t const n = x.n;
    auto const& R = f.rates;
    exvector &M = x.M, &h = x.h, &Mdot = x.Mdot;
    std::size_t const nr = R.size();
    exvector F(nr, 0), G(nr, 0), Gc(nr, 0);
    std::vector<exvector> K(nr, exvector(n, 0)), Kdot(nr, exvector(n, 0)), D(nr, exvector(n, 0));
    // Rate a's share of term c r_a r_b: F_a, G_a (every term, for h), and for a constant c
    // K_aj = Σ c β_j, K̇_aj = Σ c β̇_j, D_aj = Σ c ∂_j r_b (for M, Ṁ and P − Pᵀ).
    auto gather = [&](std::size_t a, std::size_t b, ex const& c, bool constant) {
        F[a] += c * R[b].rho;
        G[a] += c * R[b].r;
        if (!constant) return;
        Gc[a] += c * R[b].r;
        for (std::size_t j = 0; j < n; ++j) {
            if (!R[b].a[j].is_zero()) K[a][j] += c * R[b].a[j], Kdot[a][j] += c * R[b].adot[j];
            if (!R[b].dr[j].is_zero()) D[a][j] += c * R[b].dr[j];
        }
    };
    for (auto const& t : f.terms) {
        gather(t.a, t.b, t.c, t.dc.empty());
        gather(t.b, t.a, t.c, t.dc.empty());
    }
    std::vector<char> const angular = angular_curl_terms(f, G, Gc, F, x);
    covered_parts covered(n);
    for (std::size_t k = 0; k < nr; ++k) {
        auto const& a = R[k];
        bool const curl = !a.gradient && !angular[k];
        bool const rotational = composite.covers(k), translational = points.covers(k);
        exvector &M_part = rotational ? covered.M : translational ? covered.Mp : M;
        exvector &h_part = rotational ? covered.h : translational ? covered.hp : h;
        for (std::size_t i = 0; i < n; ++i) {
            bool const ai = !a.a[i].is_zero();
            if (ai) h_part[i] += a.a[i] * F[k];
            if (curl && (ai || !a.dr[i].is_zero())) h[i] += (a.adot[i] - a.dr[i]) * G[k];
            for (std::size_t j = 0; j < n; ++j) {
                if (ai && !K[k][j].is_zero()) {
                    if (j <= i) M_part[i * n + j] += a.a[i] * K[k][j];
                    Mdot[i * n + j] += a.adot[i] * K[k][j] + a.a[i] * Kdot[k][j];
                }
                if (j <= i) continue;
                // (P − Pᵀ)_ij = Σ_a G_a (∂_j α_ai − ∂_i α_aj) + α_ai D_aj − α_aj D_ai
                ex w = 0;
                bool const aj = !a.a[j].is_zero();
                if (curl && (ai || aj) && !Gc[k].is_zero()) w += Gc[k] * (x.da(k, i, j) - x.da(k, j, i));
                if (ai) w += a.a[i] * D[k][j];
                if (aj) w -= a.a[j] * D[k][i];
                x.add_antisymmetric(i, j, w);
            }
        }
    }
    add_covered(composite, points, F, covered, x);
}

// Terms whose c depends on q, one by one: c (…) for M, Ṁ and P − Pᵀ as above, plus
// ċ ∂(r_a r_b)/∂q̇_i − ∂_i c r_a r_b in h, ċ in Ṁ and ∂c/∂q in P − Pᵀ.
void varying_coefficient_terms(bilinear_form const& f, rate_form_sums& x) {
    std::size_t const n = x.n;
    auto const& R = f.rates;
    exvector &M = x.M, &h = x.h, &Mdot = x.Mdot;
    for (auto const& t : f.terms) {
        if (t.dc.empty()) continue;
        auto const &a = R[t.a], &b = R[t.b];
        ex const& c = t.c;
        for (std::size_t i = 0; i < n; ++i) {
            bool const ai = !a.a[i].is_zero(), bi = !b.a[i].is_zero();
            h[i] += t.cdot * (a.a[i] * b.r + b.a[i] * a.r) - t.dc[i] * a.r * b.r;
            for (std::size_t j = 0; j < n; ++j) {
                bool const aj = !a.a[j].is_zero(), bj = !b.a[j].is_zero();
                if ((ai && bj) || (bi && aj)) {
                    ex mij = 0, mdot = 0;
                    if (ai && bj) mij += a.a[i] * b.a[j], mdot += a.adot[i] * b.a[j] + a.a[i] * b.adot[j];
                    if (bi && aj) mij += b.a[i] * a.a[j], mdot += b.adot[i] * a.a[j] + b.a[i] * a.adot[j];
                    if (j <= i) M[i * n + j] += c * mij;
                    Mdot[i * n + j] += c * mdot + t.cdot * mij;
                }
                if (j <= i) continue;
                // (P − Pᵀ)_ij = c (r_b (∂_j α_i − ∂_i α_j) + r_a (∂_j β_i − ∂_i β_j)
                //                 + α_i ∂_j r_b − α_j ∂_i r_b + β_i ∂_j r_a − β_j ∂_i r_a)
                ex s = 0;
                if (ai || aj) {
                    if (!a.gradient) s += b.r * (x.da(t.a, i, j) - x.da(t.a, j, i));
                    s += a.a[i] * b.dr[j] - a.a[j] * b.dr[i];
                }
                if (bi || bj) {
                    if (!b.gradient) s += a.r * (x.da(t.b, i, j) - x.da(t.b, j, i));
                    s += b.a[i] * a.dr[j] - b.a[j] * a.dr[i];
                }
                // + ∂_j c ∂(r_a r_b)/∂q̇_i − ∂_i c ∂(r_a r_b)/∂q̇_j.
                ex w = (s.is_zero() ? ex(0) : c * s) + t.dc[j] * (a.a[i] * b.r + b.a[i] * a.r) -
                       t.dc[i] * (a.a[j] * b.r + b.a[j] * a.r);
                x.add_antisymmetric(i, j, w);
            }
        }
    }
}

// The points' weights in the sums of their accelerations, as the RNEA takes gravity (its base
// accelerates by −g): h and ∂V/∂q in one sum over the points instead of two, where the
// accelerations are taken the RNEA's way. Kept as the h to evaluate where it agrees with h
// + ∂V/∂q at random states and is smaller.
void weights_with_accelerations(model const& m, rate_structures const& s, rate_form_sums const& x, derived& d) {
    if (!x.points_used) return;
    auto const gravity = s.points.gravity();
    if (!gravity) return;
    exvector const W = x.points_used->forces_with_weights(gravity->g);
    if (W.empty()) return;
    std::size_t const n = m.q.size();
    exvector candidate(n);
    for (std::size_t i = 0; i < n; ++i)
        candidate[i] = x.h[i] - x.point_share[i] + W[i] + partial(gravity->other, m.q[i]);
    exvector const& current = d.bias_compact.empty() ? d.bias : d.bias_compact;
    if (operations_of(m, candidate) < operations_of(m, current) && agree_at_random_states(m, candidate, d.bias, 0x77656967ull))
        d.bias_compact = std::move(candidate);
}

} // namespace

namespace {

// The rate form's choice for M and h into d.mass_bias (derive.hpp): the points' share in the
// root body's axes, the world's, or term by term, with each form's operations.
void record_points_share(rate_form_sums const& x, derived& d) {
    using method = mass_bias_method;
    mass_bias_choice& c = d.mass_bias;
    c.at(method::point_composites_root_axes).operations = x.framed_report.with;
    c.at(method::point_composites_root_axes).note = x.framed_report.why;
    c.at(method::point_composites).operations = x.world_report.with;
    c.at(method::point_composites).note = x.world_report.why;
    if (x.points_used == x.framed && x.framed) c.at(method::point_composites).note = "not tried: the root body's axes were taken";
    std::size_t const term_by_term = std::max(x.framed_report.without, x.world_report.without);
    c.at(method::rate_form).operations = term_by_term;
    point_composite::share_report const& taken = x.points_used == x.framed ? x.framed_report : x.world_report;
    c.method = !x.points_used ? method::rate_form
               : x.points_used == x.framed ? method::point_composites_root_axes : method::point_composites;
    c.rule = x.points_used ? fmt::format("fewer operations: {} against {} term by term, agreeing at random states",
                                         taken.with, taken.without)
                           : "no form of the points' composites is taken (below)";
    if (x.points_used) c.at(method::rate_form).note = "more operations";
    c.rule += x.rotational_used ? "; the rotating bodies' inertias as composites" : "";
}

} // namespace

void mass_and_bias_from_bilinear_form(model const& m, rate_structures const& s, derived& d) {
    std::size_t const n = m.q.size();
    bilinear_form const& f = s.form;
    point_composite const& points = s.points;
    rate_form_sums x(m, f);
    if (s.framed_points.framed()) x.framed = &s.framed_points;
    gathered_terms(f, s.rotational, points, x);
    s.summed = x.points_used;
    record_points_share(x, d);
    varying_coefficient_terms(f, x);
    // The lower triangle was built; the upper is the same expressions.
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j) x.M[i * n + j] = x.M[j * n + i];
    for (std::size_t k = 0; k < n * n; ++k) d.mass_matrix[k] = x.M[k];
    d.velocity_bias.clear();
    if (!s.framed_points.framed() || !s.framed_points.potential_gradient(d.potential_gradient))
        points.potential_gradient(d.potential_gradient);
    for (std::size_t i = 0; i < n; ++i) d.bias[i] = x.h[i] + d.potential_gradient[i];
    d.bias_point_share = x.point_share;
    d.bias_body_share = x.body_share;
    // The compact h, where the points' composites offered one; kept only if still smaller
    // as a whole (its sums should cancel the replaced forces term by term).
    d.bias_compact.clear();
    if (std::any_of(x.compact_delta.begin(), x.compact_delta.end(), [](ex const& e) { return !e.is_zero(); })) {
        for (std::size_t i = 0; i < n; ++i) d.bias_compact.push_back(d.bias[i] + x.compact_delta[i]);
        if (operations_of(m, d.bias_compact) >= operations_of(m, d.bias)) d.bias_compact.clear();
    }
    weights_with_accelerations(m, s, x, d);
    exvector C(n * n, 0);
    for (std::size_t k = 0; k < n * n; ++k) C[k] = (x.Mdot[k] + x.P_minus_Pt[k]) / 2;
    d.coriolis = std::move(C);
}

} // namespace lagc

namespace lagc {

double bilinear_form_work(bilinear_form const& f, std::size_t n) {
    auto support = [](bilinear_form::rate const& r) {
        return static_cast<double>(std::count_if(r.a.begin(), r.a.end(), [](ex const& e) { return !e.is_zero(); }));
    };
    std::vector<double> s(f.rates.size());
    for (std::size_t k = 0; k < f.rates.size(); ++k) s[k] = support(f.rates[k]);
    double work = 0;
    for (auto const& t : f.terms) {
        double const c = static_cast<double>(tree_size(t.c) + 1), sa = s[t.a], sb = s[t.b];
        if (t.dc.empty()) {
            work += 2 * sa * sb;
            continue;
        }
        // M's and Ṁ's pairs carry c and ċ; P − Pᵀ's rows and columns carry c and ∂c/∂q.
        double const cdot = static_cast<double>(tree_size(t.cdot) + 1);
        work += 2 * sa * sb * (c + cdot) + static_cast<double>(n) * (sa + sb) * 2 * c;
    }
    return work;
}

} // namespace lagc

// Stage 3, the Jacobian form: kinetic energies that are weighted sums of squared
// position velocities (point masses, translating bodies) give M, h and C from small
// derivatives of the Jacobian rows, with the composite-body reuse of the CRBA and RNEA.
#include "derive/derive_support.hpp"
#include "symbolic/dag.hpp"
#include "symbolic/simplify.hpp"

#include <map>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

namespace {

// T written as Σ w_k s_k², as users write kinetic energies: ½ m dot(v, v) with v = der(p).
struct square_term {
    ex weight; // free of q, q̇ and t
    ex s;      // linear and homogeneous in q̇
};

bool collect_squares(ex const& e, ex const& factor, model const& m, std::vector<square_term>& out) {
    if (free_of(e, m.qd)) return e.is_zero();
    if (GiNaC::is_exactly_a<GiNaC::add>(e)) {
        for (std::size_t i = 0; i < e.nops(); ++i)
            if (!collect_squares(e.op(i), factor, m, out)) return false;
        return true;
    }
    if (GiNaC::is_exactly_a<GiNaC::power>(e) && e.op(1).is_equal(2)) {
        out.push_back({factor, e.op(0)});
        return true;
    }
    if (GiNaC::is_exactly_a<GiNaC::mul>(e)) {
        ex rest = 1, inner;
        int with_velocity = 0;
        for (std::size_t i = 0; i < e.nops(); ++i) {
            if (free_of(e.op(i), m.qd)) rest *= e.op(i);
            else inner = e.op(i), ++with_velocity;
        }
        if (with_velocity != 1) return false;
        if (GiNaC::is_exactly_a<GiNaC::power>(inner) && inner.op(1).is_equal(2)) {
            // GiNaC distributes (l sin(q) qd)² into l² sin(q)² qd²: fold even powers back
            // into the square, so that the weight is what remains.
            ex root = inner.op(0), weight = factor;
            for (std::size_t i = 0; i < e.nops(); ++i) {
                ex f = e.op(i);
                if (f.is_equal(inner)) continue;
                if (GiNaC::is_exactly_a<GiNaC::power>(f) && GiNaC::is_exactly_a<GiNaC::numeric>(f.op(1)) &&
                    GiNaC::ex_to<GiNaC::numeric>(f.op(1)).is_even() && GiNaC::ex_to<GiNaC::numeric>(f.op(1)).is_positive())
                    root *= GiNaC::pow(f.op(0), f.op(1) / 2);
                else
                    weight *= f;
            }
            out.push_back({weight, root});
            return true;
        }
        return collect_squares(inner, factor * rest, m, out);
    }
    return false;
}

// The Jacobian form (derive_support.hpp). With W_k = 2 w_k,
//   M = Σ W_k a_k a_kᵀ,  C = Σ W_k a_k ȧ_kᵀ,  h = Σ W_k a_k (ȧ_k·q̇) + ∂V/∂q,
// and this C is the Christoffel one (Γ_{k,ij} = Σ W a_k·∂a_j/∂q_i). Rows of a_k and ȧ_k
// are small, so this costs O(K n²) small derivatives instead of O(n³) large ones.

} // namespace

std::optional<jacobian_form> jacobian_form_of(model const& m) {
    std::vector<square_term> squares;
    if (!collect_squares(m.kinetic, 1, m, squares) || squares.empty()) return std::nullopt;
    std::size_t const n = m.q.size();
    jacobian_form j;
    for (auto const& sq : squares) {
        if (!free_of(sq.weight, m.q) || has_any(sq.weight, {m.t}) || !free_of(sq.weight, m.u)) return std::nullopt;
        // s affine in q̇ (∂s/∂q̇ free of q̇) with s(q̇ = 0) = 0 is linear: s = a·q̇.
        GiNaC::exvector a(n);
        GiNaC::exmap at_rest;
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = sq.s.diff(m.qd[i]);
            if (!free_of(a[i], m.qd) || has_any(a[i], {m.t})) return std::nullopt;
            at_rest[m.qd[i]] = 0;
        }
        if (!is_identically_zero(substitute(sq.s, at_rest), m)) return std::nullopt;
        GiNaC::exvector adot(n);
        for (std::size_t jx = 0; jx < n; ++jx) {
            for (std::size_t i = 0; i < jx; ++i)
                if (!is_identically_zero(a[jx].diff(m.q[i]) - a[i].diff(m.q[jx]), m)) return std::nullopt; // not a gradient
            adot[jx] = total_time_derivative(a[jx], m);
        }
        j.weight.push_back(2 * sq.weight);
        j.a.push_back(std::move(a));
        j.adot.push_back(std::move(adot));
        // ȧ·q̇ = ṡ with q̈ = 0, along s's own structure: for a chain, Σ_j l_j sin(φ_j) φ̇_j²
        // rather than a double sum.
        j.rate.push_back(total_time_derivative(sq.s, m));
    }
    return j;
}

namespace {

// The sums M, h and C are made of, over the K squares of the Jacobian form.
class assembly {
public:
    assembly(jacobian_form const& jf, std::size_t n) : jf_(jf), n_(n), K_(jf.weight.size()) {}

    // Σ_k W_k x_k with equal x_k combined, so that (m1 + m2 + ...) l_i l_j ... is one term
    // (chains in absolute angles repeat the same products for every body below). The
    // map's order does not matter: GiNaC's sum is a set, and lagc prints it canonically.
    template <class Term>
    ex weighted_sum(Term term) const {
        std::map<ex, ex, GiNaC::ex_is_less> grouped;
        for (std::size_t k = 0; k < K_; ++k) {
            ex x = term(k);
            if (x.is_zero()) continue;
            auto [it, inserted] = grouped.emplace(x, jf_.weight[k]);
            if (!inserted) it->second += jf_.weight[k];
        }
        ex sum = 0;
        for (auto const& [x, w] : grouped) sum += w * x;
        return sum;
    }
    ex a(std::size_t k, std::size_t i) const { return jf_.a[k][i]; }

    // Worth trying only where a_i − a_j is smaller than a_i (rows where a_j ≠ 0).
    bool differences_smaller(std::size_t i, std::size_t j) const {
        std::size_t before = 0, after = 0;
        for (std::size_t k = 0; k < K_; ++k) {
            if (jf_.a[k][j].is_zero()) continue;
            before += tree_size(jf_.a[k][i]);
            after += tree_size(jf_.a[k][i] - jf_.a[k][j]);
        }
        return after < before;
    }

    // best = reused + rest where that is smaller than best (a reused entry counts one).
    static bool smallest(ex& best, std::size_t& best_size, ex const& reused, ex const& rest) {
        std::size_t size = tree_size(rest) + 1;
        if (size >= best_size) return false;
        best = reused + rest, best_size = size;
        return true;
    }

    std::size_t n() const { return n_; }

private:
    jacobian_form const& jf_;
    std::size_t n_, K_;
};

// M_ij (i < j), from the entry below it where smaller: M_ij = M_jj + Σ W (a_i − a_j) a_j.
ex off_diagonal(assembly const& s, derived const& d, std::size_t i, std::size_t j) {
    std::size_t const n = s.n();
    ex best = simplify(s.weighted_sum([&](std::size_t k) { return s.a(k, i) * s.a(k, j); }), 64);
    std::size_t best_size = tree_size(best);
    if (s.differences_smaller(i, j))
        assembly::smallest(best, best_size, d.mass_matrix[j * n + j],
                           simplify(s.weighted_sum([&](std::size_t k) { return (s.a(k, i) - s.a(k, j)) * s.a(k, j); }), 64));
    return best;
}

} // namespace

// M = Σ W a aᵀ, C = Σ W a ȧᵀ, h = Σ W a (ȧ·q̇) + ∂V/∂q. Entries are derived from the last
// row up and may reuse later ones where that is smaller (tree size, a reused entry counting
// one), which the code generator then computes once:
//   M_ij = M_jj + Σ W (a_i − a_j) a_j   (i < j),
//   M_ii = M_ij + Σ W (a_i − a_j) a_i   (j = i + 1),
//   hv_i = hv_j + Σ W (a_i − a_j) (ȧ·q̇) (j = i + 1), h = hv + ∂V/∂q.
// In a serial chain a_i − a_j is the same short sum for every body beyond j, so Σ W a_j
// and Σ W ȧ·q̇ are shared across i: the composite-body sums of the CRBA and the force
// recursion of the RNEA, found from the equations themselves.
void mass_and_bias_from_jacobian_form(model const& m, jacobian_form const& jf, derived& d) {
    std::size_t const n = m.q.size();
    assembly const s(jf, n);
    exvector const& rate = jf.rate;
    bool velocity_reused = false;
    d.velocity_bias.assign(n, 0);
    for (std::size_t i = n; i-- > 0;) {
        for (std::size_t j = i + 1; j < n; ++j) d.mass_matrix[i * n + j] = d.mass_matrix[j * n + i] = off_diagonal(s, d, i, j);
        ex diagonal = simplify(s.weighted_sum([&](std::size_t k) { return s.a(k, i) * s.a(k, i); }), 64);
        ex velocity = simplify(s.weighted_sum([&](std::size_t k) { return s.a(k, i) * rate[k]; }), 64);
        std::size_t diagonal_size = tree_size(diagonal), velocity_size = tree_size(velocity);
        // The next coordinate only: in a chain it is the one that shares most, and trying
        // every j would cost O(n²) more sums on every model.
        if (std::size_t const j = i + 1; j < n && s.differences_smaller(i, j)) {
            assembly::smallest(diagonal, diagonal_size, d.mass_matrix[i * n + j],
                               simplify(s.weighted_sum([&](std::size_t k) { return (s.a(k, i) - s.a(k, j)) * s.a(k, i); }), 64));
            velocity_reused |= assembly::smallest(velocity, velocity_size, d.velocity_bias[j],
                               simplify(s.weighted_sum([&](std::size_t k) { return (s.a(k, i) - s.a(k, j)) * rate[k]; }), 64));
        }
        d.mass_matrix[i * n + i] = diagonal;
        d.velocity_bias[i] = velocity;
        d.bias[i] = velocity + d.potential_gradient[i];
    }
    // Kept apart only where reused; else one sum, simplified and factored as a whole.
    if (!velocity_reused) {
        for (std::size_t i = 0; i < n; ++i) d.bias[i] = simplify(d.bias[i], 64);
        d.velocity_bias.clear();
    }
    exvector C(n * n, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
            C[i * n + j] = simplify(s.weighted_sum([&](std::size_t k) { return s.a(k, i) * jf.adot[k][j]; }), 64);
    d.coriolis = std::move(C);
}

} // namespace lagc

// Stage 3: Lagrange's equations by symbolic differentiation. Expressions are left
// unexpanded: differentiating the user's structure keeps them compact, and the emitter's
// common-subexpression elimination shares what repeats.
#include "derive.hpp"

#include "chain_rule.hpp"
#include "simplify.hpp"

#include <map>
#include <stdexcept>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;
using GiNaC::is_a;

namespace {

bool depends_on_any(ex const& e, std::vector<GiNaC::symbol> const& syms) {
    for (auto const& s : syms)
        if (e.has(s)) return true;
    return false;
}

// True when e is zero; expansion is tried only when the cheap structural test fails.
bool is_zero_expr(ex const& e) { return e.is_zero() || e.expand().is_zero(); }

// Zero for every state and parameter: a structural test, then one evaluation at an
// arbitrary point (cheap on large expressions), and expansion only if that gives zero.
bool is_identically_zero(ex const& e, model const& m) {
    if (e.is_zero()) return true;
    GiNaC::exmap point;
    int k = 0;
    auto pick = [&](GiNaC::symbol const& s) {
        int const i = k++;
        point[s] = GiNaC::numeric(37 + 11 * (i % 13), 61 + 7 * (i % 5));
    };
    for (auto const& s : m.q) pick(s);
    for (auto const& s : m.qd) pick(s);
    for (auto const& s : m.p) pick(s);
    for (auto const& s : m.u) pick(s);
    pick(m.t);
    // 40 digits: rounding noise stays far below the threshold, a true value far above it.
    struct digits_guard {
        long saved = GiNaC::Digits;
        ~digits_guard() { GiNaC::Digits = saved; }
    } guard;
    GiNaC::Digits = 40;
    try {
        ex v = e.subs(point).evalf();
        if (GiNaC::is_a<GiNaC::numeric>(v) && GiNaC::abs(GiNaC::ex_to<GiNaC::numeric>(v)) > GiNaC::numeric(1, 100000000) / GiNaC::numeric(1000000000000LL))
            return false;
    } catch (std::exception const&) {
        // a pole at the chosen point: fall through to the exact test
    }
    return e.expand().is_zero();
}

// d/dt with q̈ = 0: ∂e/∂t + Σ ∂e/∂q_i q̇_i, by the chain rule on e's structure.
ex total_time_derivative(ex const& e, model const& m) {
    return e.diff(m.t) + directional_derivative(e, m.q, exvector(m.qd.begin(), m.qd.end()));
}

// Why C(q, q̇) with Ṁ − 2C skew-symmetric does not apply, or "" when it does.
std::string coriolis_obstacle(model const& m) {
    if (m.has_lagrangian_terms) return "the model has 'lagrangian' terms";
    if (m.potential.has(m.t)) return "the potential depends on t";
    if (m.kinetic.has(m.t)) return "the mass matrix depends on t";
    GiNaC::exmap zero, scaled;
    GiNaC::symbol s("s");
    for (auto const& v : m.qd) {
        zero[v] = 0;
        scaled[v] = s * v;
    }
    if (!is_zero_expr(m.kinetic.subs(zero))) return "the kinetic energy has terms free of velocities";
    ex linear = m.kinetic.subs(scaled).diff(s).subs(GiNaC::exmap{{s, 0}});
    if (!is_zero_expr(linear)) return "the kinetic energy has terms linear in velocities";
    if (m.kinetic.has(m.t)) return "the kinetic energy depends on t";
    return "";
}

bool free_of(ex const& e, std::vector<GiNaC::symbol> const& syms) { return !depends_on_any(e, syms); }

// T written as Σ w_k s_k², as users write kinetic energies: ½ m dot(v, v) with v = der(p).
struct square_term {
    ex weight; // free of q, q̇ and t
    ex s;      // linear and homogeneous in q̇
};

bool collect_squares(ex const& e, ex const& factor, model const& m, std::vector<square_term>& out) {
    if (free_of(e, m.qd)) return e.is_zero();
    if (GiNaC::is_a<GiNaC::add>(e)) {
        for (std::size_t i = 0; i < e.nops(); ++i)
            if (!collect_squares(e.op(i), factor, m, out)) return false;
        return true;
    }
    if (GiNaC::is_a<GiNaC::power>(e) && e.op(1).is_equal(2)) {
        out.push_back({factor, e.op(0)});
        return true;
    }
    if (GiNaC::is_a<GiNaC::mul>(e)) {
        ex rest = 1, inner;
        int with_velocity = 0;
        for (std::size_t i = 0; i < e.nops(); ++i) {
            if (free_of(e.op(i), m.qd)) rest *= e.op(i);
            else inner = e.op(i), ++with_velocity;
        }
        if (with_velocity != 1) return false;
        if (GiNaC::is_a<GiNaC::power>(inner) && inner.op(1).is_equal(2)) {
            // GiNaC distributes (l sin(q) qd)² into l² sin(q)² qd²: fold even powers back
            // into the square, so that the weight is what remains.
            ex root = inner.op(0), weight = factor;
            for (std::size_t i = 0; i < e.nops(); ++i) {
                ex f = e.op(i);
                if (f.is_equal(inner)) continue;
                if (GiNaC::is_a<GiNaC::power>(f) && GiNaC::is_a<GiNaC::numeric>(f.op(1)) &&
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

// The Jacobian form of a kinetic energy of positions: T = Σ_k w_k (a_k(q)·q̇)² with
// constant weights and every a_k a gradient (∂a_ki/∂q_j symmetric), as for point masses
// and the translation of bodies. Then, with W_k = 2 w_k,
//   M = Σ W_k a_k a_kᵀ,  C = Σ W_k a_k ȧ_kᵀ,  h = Σ W_k a_k (ȧ_k·q̇) + ∂V/∂q,
// and this C is the Christoffel one (Γ_{k,ij} = Σ W a_k·∂a_j/∂q_i). Rows of a_k and ȧ_k
// are small, so this costs O(K n²) small derivatives instead of O(n³) large ones.
struct jacobian_form {
    std::vector<ex> weight;         // W_k
    std::vector<GiNaC::exvector> a; // a_k
    std::vector<GiNaC::exvector> adot;
    std::vector<ex> rate;           // ȧ_k·q̇
};

std::optional<jacobian_form> jacobian_form_of(model const& m) {
    std::vector<square_term> squares;
    if (!collect_squares(m.kinetic, 1, m, squares) || squares.empty()) return std::nullopt;
    std::size_t const n = m.q.size();
    jacobian_form j;
    for (auto const& sq : squares) {
        if (!free_of(sq.weight, m.q) || sq.weight.has(m.t) || !free_of(sq.weight, m.u)) return std::nullopt;
        // s affine in q̇ (∂s/∂q̇ free of q̇) with s(q̇ = 0) = 0 is linear: s = a·q̇.
        GiNaC::exvector a(n);
        GiNaC::exmap at_rest;
        for (std::size_t i = 0; i < n; ++i) {
            a[i] = sq.s.diff(m.qd[i]);
            if (!free_of(a[i], m.qd) || a[i].has(m.t)) return std::nullopt;
            at_rest[m.qd[i]] = 0;
        }
        if (!is_identically_zero(sq.s.subs(at_rest), m)) return std::nullopt;
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

// C_kj = Σ_i Γ_ijk q̇_i, Γ_ijk = ½(∂M_kj/∂q_i + ∂M_ki/∂q_j − ∂M_ij/∂q_k), from M itself:
// the general path, for kinetic energies that are not in Jacobian form.
exvector christoffel_coriolis(model const& m, exvector const& M) {
    std::size_t const n = m.q.size();
    // dM[(a*n + b)*n + k] = ∂M_ab/∂q_k, computed once per symmetric pair.
    std::vector<ex> dM(n * n * n);
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = a; b < n; ++b)
            for (std::size_t k = 0; k < n; ++k) {
                // Small budgets: simplify() measures trees, and on large models expanding
                // destroys the sharing CSE relies on (10-link chain: 7k → 29k operations).
                ex e = simplify(M[a * n + b].diff(m.q[k]), 64);
                dM[(a * n + b) * n + k] = e;
                dM[(b * n + a) * n + k] = e;
            }
    auto dm = [&](std::size_t a, std::size_t b, std::size_t k) -> ex const& { return dM[(a * n + b) * n + k]; };
    exvector C(n * n, 0);
    for (std::size_t k = 0; k < n; ++k)
        for (std::size_t j = 0; j < n; ++j) {
            ex c = 0;
            for (std::size_t i = 0; i < n; ++i) {
                ex gamma = dm(k, j, i) + dm(k, i, j) - dm(i, j, k);
                if (!gamma.is_zero()) c += gamma * m.qd[i];
            }
            C[k * n + j] = simplify(c / 2, 64);
        }
    return C;
}

} // namespace

std::optional<derived> derive(model const& m, diagnostics& diags) {
    derived d;
    std::size_t const n = m.q.size();
    d.nq = n;
    d.nu = m.u.size();
    try {
        // Simplify L term by term first: everything below is derived from it.
        auto simplify_sum = [](ex const& e) {
            if (!is_a<GiNaC::add>(e)) return simplify(e);
            ex s = 0;
            for (std::size_t i = 0; i < e.nops(); ++i) s += simplify(e.op(i));
            return s;
        };
        // Coriolis applicability depends only on the model's form, so decide it first.
        d.coriolis_reason = coriolis_obstacle(m);
        std::optional<jacobian_form> jf;
        if (d.coriolis_reason.empty()) jf = jacobian_form_of(m);

        ex const T = simplify_sum(m.kinetic);
        ex const V = simplify_sum(m.potential);
        ex const L = T - V + simplify_sum(m.lagrangian);
        d.potential_gradient.assign(n, 0);
        for (std::size_t i = 0; i < n; ++i) d.potential_gradient[i] = simplify(V.diff(m.q[i]));

        d.mass_matrix.assign(n * n, 0);
        d.bias.assign(n, 0);
        if (jf) {
            // M = Σ W a aᵀ, C = Σ W a ȧᵀ, h = Σ W a (ȧ·q̇) + ∂V/∂q (see jacobian_form).
            std::size_t const K = jf->weight.size();
            exvector const& rate = jf->rate;
            // Σ_k W_k x_k with equal x_k combined, so that (m1 + m2 + ...) l_i l_j ... is one
            // term (chains in absolute angles repeat the same products for every body below).
            // The map's order does not matter: GiNaC's sum is a set, and lagc prints it canonically.
            auto weighted_sum = [&](auto term) {
                std::map<ex, ex, GiNaC::ex_is_less> grouped;
                for (std::size_t k = 0; k < K; ++k) {
                    ex x = term(k);
                    if (x.is_zero()) continue;
                    auto [it, inserted] = grouped.emplace(x, jf->weight[k]);
                    if (!inserted) it->second += jf->weight[k];
                }
                ex sum = 0;
                for (auto const& [x, w] : grouped) sum += w * x;
                return sum;
            };
            // Entries are derived from the last row up and may reuse later ones where that
            // is smaller (tree size, a reused entry counting one), which the code generator
            // then computes once:
            //   M_ij = M_jj + Σ W (a_i − a_j) a_j   (i < j),
            //   M_ii = M_ij + Σ W (a_i − a_j) a_i   (j = i + 1),
            //   hv_i = hv_j + Σ W (a_i − a_j) (ȧ·q̇) (j = i + 1), h = hv + ∂V/∂q.
            // In a serial chain a_i − a_j is the same short sum for every body beyond j, so
            // Σ W a_j and Σ W ȧ·q̇ are shared across i: the composite-body sums of the CRBA
            // and the force recursion of the RNEA, found from the equations themselves.
            auto smallest = [](ex& best, std::size_t& best_size, ex const& reused, ex const& rest) {
                std::size_t size = tree_size(rest) + 1;
                if (size >= best_size) return false;
                best = reused + rest, best_size = size;
                return true;
            };
            bool velocity_reused = false;
            // Worth trying only where a_i − a_j is smaller than a_i (rows where a_j ≠ 0).
            auto differences_smaller = [&](std::size_t i, std::size_t j) {
                std::size_t before = 0, after = 0;
                for (std::size_t k = 0; k < K; ++k) {
                    if (jf->a[k][j].is_zero()) continue;
                    before += tree_size(jf->a[k][i]);
                    after += tree_size(jf->a[k][i] - jf->a[k][j]);
                }
                return after < before;
            };
            d.velocity_bias.assign(n, 0);
            for (std::size_t i = n; i-- > 0;) {
                for (std::size_t j = i + 1; j < n; ++j) {
                    ex best = simplify(weighted_sum([&](std::size_t k) { return jf->a[k][i] * jf->a[k][j]; }), 64);
                    std::size_t best_size = tree_size(best);
                    if (differences_smaller(i, j))
                        smallest(best, best_size, d.mass_matrix[j * n + j],
                             simplify(weighted_sum([&](std::size_t k) { return (jf->a[k][i] - jf->a[k][j]) * jf->a[k][j]; }), 64));
                    d.mass_matrix[i * n + j] = d.mass_matrix[j * n + i] = best;
                }
                ex diagonal = simplify(weighted_sum([&](std::size_t k) { return jf->a[k][i] * jf->a[k][i]; }), 64);
                ex velocity = simplify(weighted_sum([&](std::size_t k) { return jf->a[k][i] * rate[k]; }), 64);
                std::size_t diagonal_size = tree_size(diagonal), velocity_size = tree_size(velocity);
                // The next coordinate only: in a chain it is the one that shares most, and
                // trying every j would cost O(n²) more sums on every model.
                if (std::size_t const j = i + 1; j < n && differences_smaller(i, j)) {
                    smallest(diagonal, diagonal_size, d.mass_matrix[i * n + j],
                             simplify(weighted_sum([&](std::size_t k) { return (jf->a[k][i] - jf->a[k][j]) * jf->a[k][i]; }), 64));
                    velocity_reused |= smallest(velocity, velocity_size, d.velocity_bias[j],
                             simplify(weighted_sum([&](std::size_t k) { return (jf->a[k][i] - jf->a[k][j]) * rate[k]; }), 64));
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
                    C[i * n + j] = simplify(weighted_sum([&](std::size_t k) { return jf->a[k][i] * jf->adot[k][j]; }), 64);
            d.coriolis = std::move(C);
        } else {
            exvector dL_dqd(n);
            for (std::size_t i = 0; i < n; ++i) dL_dqd[i] = L.diff(m.qd[i]);
            // Mass matrix: each symmetric entry computed once and shared.
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t j = i; j < n; ++j) {
                    ex e = simplify(dL_dqd[i].diff(m.qd[j]));
                    d.mass_matrix[i * n + j] = e;
                    d.mass_matrix[j * n + i] = e;
                }
            for (auto const& e : d.mass_matrix)
                if (depends_on_any(e, m.qd)) {
                    diags.error(m.model_span, "the mass matrix depends on velocities: the Lagrangian must be at most "
                                              "quadratic in the velocities");
                    return std::nullopt;
                }
            // h = ∂²L/∂q̇∂q · q̇ + ∂²L/∂q̇∂t − ∂L/∂q
            for (std::size_t i = 0; i < n; ++i) {
                ex h = dL_dqd[i].diff(m.t) - L.diff(m.q[i]);
                for (std::size_t j = 0; j < n; ++j) h += dL_dqd[i].diff(m.q[j]) * m.qd[j];
                d.bias[i] = simplify(h);
            }
            if (d.coriolis_reason.empty()) d.coriolis = christoffel_coriolis(m, d.mass_matrix);
        }
        // A coordinate without inertia: its diagonal entry is identically zero (for the
        // positive semi-definite M of a kinetic energy, the whole row is then zero).
        for (std::size_t i = 0; i < n; ++i)
            if (is_identically_zero(d.mass_matrix[i * n + i], m)) {
                diags.error(m.coordinate_spans[i], "the mass matrix is singular: coordinate '" + m.coordinates[i] +
                                                       "' has no inertia (no kinetic energy term contains its velocity)");
                return std::nullopt;
            }

        // Q: forces by virtual work, torques by the angular-velocity Jacobian, −∂D/∂q̇.
        d.generalized_forces.assign(n, 0);
        for (auto const& f : m.forces) {
            switch (f.type) {
            case force_def::kind::on_coordinate: d.generalized_forces[f.coordinate] += f.vec.elems[0]; break;
            case force_def::kind::at_point:
                // ∂ṗ/∂q̇ = ∂p/∂q
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t k = 0; k < f.vec.size(); ++k)
                        d.generalized_forces[i] += f.target.elems[k].diff(m.q[i]) * f.vec.elems[k];
                break;
            case force_def::kind::torque:
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t k = 0; k < f.vec.size(); ++k)
                        d.generalized_forces[i] += f.target.elems[k].diff(m.qd[i]) * f.vec.elems[k];
                break;
            }
        }
        for (std::size_t i = 0; i < n; ++i)
            d.generalized_forces[i] = simplify(d.generalized_forces[i] - m.dissipation.diff(m.qd[i]));

        d.kinetic_energy = T;
        d.potential_energy = V;

        // Constraint rows: holonomic first, then velocity rows, file order within each.
        for (int pass = 0; pass < 2; ++pass)
            for (auto const& c : m.constraints) {
                if (c.holonomic != (pass == 0)) continue;
                exvector row(n);
                ex gamma, rate;
                if (c.holonomic) {
                    for (std::size_t j = 0; j < n; ++j) row[j] = c.residual.diff(m.q[j]);
                    ex cdot = total_time_derivative(c.residual, m); // A q̇ + ∂c/∂t
                    gamma = total_time_derivative(cdot, m);         // c̈ without A q̈
                    d.constraint_rhs.push_back(-gamma - 2 * m.alpha * cdot - m.beta * m.beta * c.residual);
                } else {
                    for (std::size_t j = 0; j < n; ++j) row[j] = c.residual.diff(m.qd[j]);
                    ex g = c.residual;
                    gamma = g.diff(m.t);
                    for (std::size_t j = 0; j < n; ++j) gamma += g.diff(m.q[j]) * m.qd[j];
                    d.constraint_rhs.push_back(-gamma - 2 * m.alpha * g);
                }
                bool zero = true;
                for (auto const& e : row) zero = zero && is_zero_expr(e);
                if (zero)
                    diags.warning(c.where, "this constraint's row of the Jacobian A is identically zero; it "
                                           "constrains nothing and makes A M^-1 A^T singular");
                d.constraint_residuals.push_back(c.residual);
                d.constraint_jacobian.insert(d.constraint_jacobian.end(), row.begin(), row.end());
                d.constraint_spans.push_back(c.where);
            }
        d.nc = d.constraint_residuals.size();
        if (d.nc > 0 && d.nc >= n)
            diags.warning(m.constraints.front().where,
                          "the model has " + std::to_string(d.nc) + " constraints for " + std::to_string(n) +
                              " coordinates; with no degree of freedom left the system is over-determined");
    } catch (GiNaC::pole_error const& e) {
        diags.error(m.model_span, std::string("a division by zero or log(0) was met while deriving: ") + e.what());
        return std::nullopt;
    } catch (std::exception const& e) {
        diags.error(m.model_span, std::string("the derivation failed: ") + e.what());
        return std::nullopt;
    }
    return d;
}

} // namespace lagc

// Stage 3: Lagrange's equations by symbolic differentiation, as a driver of named steps.
// Expressions are left unexpanded: differentiating the user's structure keeps them
// compact, and the emitter's common-subexpression elimination shares what repeats.
//
//   M q̈ + h + Aᵀλ = Q,  M = ∂²L/∂q̇²,  h = ∂²L/∂q̇∂q · q̇ + ∂²L/∂q̇∂t − ∂L/∂q,
//   Q = forces by virtual work − ∂D/∂q̇,  A = ∂c/∂q (holonomic) or ∂g/∂q̇ (velocity rows).
//
// M and h come from the Jacobian form where T is a weighted sum of squared position
// velocities (jacobian_form.cpp: O(K n²) small derivatives), else from L itself (O(n²)
// derivatives of L, and C from Christoffel symbols, O(n³) derivatives of M).
#include "derive/derive_support.hpp"
#include "derive/random_states.hpp"
#include "derive/rate_structure.hpp"
#include "symbolic/chain_rule.hpp"
#include "symbolic/dag.hpp"
#include "symbolic/simplify.hpp"
#include "derive/well_posed.hpp"

#include <cstdio>
#include <new>
#include <algorithm>
#include <memory>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;
using GiNaC::is_a;

namespace {

// Why C(q, q̇) with Ṁ − 2C skew-symmetric does not apply, or "" when it does.
std::string coriolis_obstacle(model const& m) {
    if (m.has_lagrangian_terms) return "the model has 'lagrangian' terms";
    if (has_any(m.potential, {m.t})) return "the potential depends on t";
    if (has_any(m.kinetic, {m.t})) return "the mass matrix depends on t";
    GiNaC::exmap zero;
    for (auto const& v : m.qd) zero[v] = 0;
    if (!is_zero_expr(substitute(m.kinetic, zero))) return "the kinetic energy has terms free of velocities";
    // The linear part, Σ_i q̇_i ∂T/∂q̇_i at q̇ = 0, is zero exactly when Σ_i r_i ∂T/∂q̇_i is
    // at q̇ = 0 for independent r_i: one derivative by the chain rule, which visits each
    // shared part of T once (GiNaC's diff visits every path to it: 0.07 s on a 10-joint
    // arm, where this takes 0.005 s).
    std::vector<ex> r;
    // "r" + to_string(i) draws a false -Wrestrict from GCC 12 at -O2 (its bug 105329).
    for (std::size_t i = 0; i < m.qd.size(); ++i) r.push_back(GiNaC::symbol(std::to_string(i).insert(0, 1, 'r')));
    ex const linear = substitute(directional_derivative(m.kinetic, m.qd, r), zero);
    if (!is_zero_expr(linear)) return "the kinetic energy has terms linear in velocities";
    return "";
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

// False, with an error at the kinetic energy, where a step's estimated terms pass the budget.
bool within_budget(model const& m, double work, double max_work, diagnostics& diags) {
    if (work <= max_work) return true;
    span const where = m.energy_terms.empty() ? m.model_span : m.energy_terms.front().where;
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2g", work);
    diags.error(where, std::string("deriving the equations of motion would build about ") + buffer +
                           " terms (the limit is " + std::to_string(static_cast<long long>(max_work)) +
                           ", --max-derivation; about 5 million take a second)");
    return false;
}

// L term by term: everything below is derived from it.
ex simplified_sum(ex const& e) {
    if (!is_exactly_a<GiNaC::add>(e)) return simplify(e);
    ex s = 0;
    for (std::size_t i = 0; i < e.nops(); ++i) s += simplify(e.op(i));
    return s;
}

// The kinetic or lagrangian statement whose term is more than quadratic in the velocities.
span more_than_quadratic(model const& m) {
    GiNaC::symbol s("s");
    GiNaC::exmap scaled;
    for (auto const& v : m.qd) scaled[v] = s * v;
    for (auto const& term : m.energy_terms) {
        try {
            ex third = term.value.subs(scaled, GiNaC::subs_options::no_pattern).diff(s, 3).subs(GiNaC::exmap{{s, 1}}, GiNaC::subs_options::no_pattern);
            if (!is_identically_zero(third, m)) return term.where;
        } catch (std::exception const&) {
            return term.where;
        }
    }
    return m.model_span;
}

// M = ∂²L/∂q̇² (each symmetric entry once), h = ∂²L/∂q̇∂q · q̇ + ∂²L/∂q̇∂t − ∂L/∂q, and C
// from M's Christoffel symbols where it applies. False (with an error) when M depends on q̇.
bool mass_and_bias_from_lagrangian(model const& m, ex const& L, derived& d, diagnostics& diags, double max_work) {
    std::size_t const n = m.q.size();
    // M's n(n+1)/2 second derivatives and h's n² mixed ones, each about as large as L.
    double const size = static_cast<double>(tree_size(L) + 1), nn = static_cast<double>(n) * n;
    if (!within_budget(m, 2 * nn * size, max_work, diags)) return false;
    exvector dL_dqd(n);
    for (std::size_t i = 0; i < n; ++i) dL_dqd[i] = L.diff(m.qd[i]);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i; j < n; ++j) {
            ex e = simplify(dL_dqd[i].diff(m.qd[j]));
            d.mass_matrix[i * n + j] = e;
            d.mass_matrix[j * n + i] = e;
        }
    for (auto const& e : d.mass_matrix)
        if (has_any(e, m.qd)) {
            diags.error(more_than_quadratic(m), "this term is more than quadratic in the velocities, so the mass "
                                                "matrix would depend on them: kinetic and lagrangian terms must be "
                                                "at most quadratic in the velocities");
            return false;
        }
    for (std::size_t i = 0; i < n; ++i) {
        ex h = dL_dqd[i].diff(m.t) - L.diff(m.q[i]);
        for (std::size_t j = 0; j < n; ++j) h += dL_dqd[i].diff(m.q[j]) * m.qd[j];
        d.bias[i] = simplify(h);
    }
    if (d.coriolis_reason.empty()) {
        // n derivatives of each of M's entries.
        double work = 0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i; j < n; ++j) work += static_cast<double>(n * (tree_size(d.mass_matrix[i * n + j]) + 1));
        if (!within_budget(m, 3 * work, max_work, diags)) return false;
        d.coriolis = christoffel_coriolis(m, d.mass_matrix);
    }
    return true;
}

// A coordinate without inertia that no constraint mentions: its diagonal entry is zero
// (for the positive semi-definite M of a kinetic energy, the whole row is then zero). Said
// at the coordinate; the numeric check (well_posed.cpp) finds the rest. False with an error.
bool every_coordinate_has_inertia(model const& m, derived const& d, diagnostics& diags) {
    std::size_t const n = m.q.size();
    bool ok = true;
    for (std::size_t i = 0; i < n; ++i) {
        bool const constrained = std::any_of(m.constraints.begin(), m.constraints.end(), [&](constraint_def const& c) {
            return has_any(c.residual, {m.q[i]}) || has_any(c.residual, {m.qd[i]});
        });
        // Structurally zero only: evaluating every large M_ii costs more than the rest of
        // derivation on a 3-D arm, and the numeric check (well_posed.cpp) finds the others.
        if (constrained || !d.mass_matrix[i * n + i].is_zero()) continue;
        diags.error(m.coordinate_spans[i], no_inertia_message(m, i));
        ok = false;
    }
    return ok;
}

// Q: forces by virtual work (∂ṗ/∂q̇ = ∂p/∂q), torques by the angular-velocity Jacobian
// ∂ω/∂q̇, and −∂D/∂q̇ of the Rayleigh function.
exvector generalized_forces(model const& m) {
    std::size_t const n = m.q.size();
    exvector Q(n, 0);
    for (auto const& f : m.forces) {
        switch (f.type) {
        case force_def::kind::on_coordinate: Q[f.coordinate] += f.vec.elems[0]; break;
        case force_def::kind::at_point:
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t k = 0; k < f.vec.size(); ++k) Q[i] += partial(f.target.elems[k], m.q[i]) * f.vec.elems[k];
            break;
        case force_def::kind::torque:
            for (std::size_t i = 0; i < n; ++i)
                for (std::size_t k = 0; k < f.vec.size(); ++k) Q[i] += partial(f.target.elems[k], m.qd[i]) * f.vec.elems[k];
            break;
        }
    }
    for (std::size_t i = 0; i < n; ++i) Q[i] = simplify(Q[i] - partial(m.dissipation, m.qd[i]));
    return Q;
}

// One constraint's row of A and its right-hand side r of A q̈ = r (the Baumgarte law):
// holonomic c(q,t): A = ∂c/∂q, r = −γ − 2α ċ − β² c with ċ = A q̇ + ∂c/∂t and γ = c̈ − A q̈;
// velocity g = A(q,t) q̇ + a₀: A = ∂g/∂q̇, r = −γ − 2α g with γ = (∂g/∂q) q̇ + ∂g/∂t.
void constraint_row(model const& m, constraint_def const& c, derived& d, diagnostics& diags) {
    std::size_t const n = m.q.size();
    exvector row(n);
    if (c.holonomic) {
        for (std::size_t j = 0; j < n; ++j) row[j] = partial(c.residual, m.q[j]);
        ex cdot = total_time_derivative(c.residual, m);
        ex gamma = total_time_derivative(cdot, m);
        d.constraint_rhs.push_back(-gamma - 2 * m.alpha * cdot - m.beta * m.beta * c.residual);
    } else {
        for (std::size_t j = 0; j < n; ++j) row[j] = partial(c.residual, m.qd[j]);
        ex const& g = c.residual;
        ex gamma = partial(g, m.t);
        for (std::size_t j = 0; j < n; ++j) gamma += partial(g, m.q[j]) * m.qd[j];
        d.constraint_rhs.push_back(-gamma - 2 * m.alpha * g);
    }
    bool zero = true;
    for (auto const& e : row) zero = zero && is_zero_expr(e);
    if (zero)
        diags.warning(c.where, "this constraint's row of the Jacobian A is identically zero; it "
                               "constrains nothing and makes A M^-1 A^T singular",
                      warning_kind::zero_constraint);
    d.constraint_residuals.push_back(c.residual);
    d.constraint_jacobian.insert(d.constraint_jacobian.end(), row.begin(), row.end());
    d.constraint_spans.push_back(c.where);
    d.constraint_lines.push_back(c.line);
}

// Holonomic rows first, then velocity rows, file order within each.
void constraint_rows(model const& m, derived& d, diagnostics& diags) {
    for (int pass = 0; pass < 2; ++pass)
        for (auto const& c : m.constraints)
            if (c.holonomic == (pass == 0)) constraint_row(m, c, d, diags);
    d.nc = d.constraint_residuals.size();
    d.holonomic_rows = static_cast<std::size_t>(
        std::count_if(m.constraints.begin(), m.constraints.end(), [](constraint_def const& c) { return c.holonomic; }));
    if (d.nc > 0 && d.nc >= m.q.size())
        diags.warning(m.constraints.front().where,
                      "the model has " + std::to_string(d.nc) + " constraints for " + std::to_string(m.q.size()) +
                          " coordinates; with no degree of freedom left the system is over-determined",
                      warning_kind::over_determined);
}

// ½ q̇ᵀ M q̇ as derived::kinetic_from_mass describes it, where it equals T (to 1e-10 of their
// size at two random states, agree_at_random_states).
void kinetic_from_mass(model const& m, derived& d) {
    std::size_t const n = d.nq;
    if (!d.coriolis_reason.empty() || n == 0) return;
    ex T = 0;
    for (std::size_t i = 0; i < n; ++i) {
        ex row = d.mass_matrix[i * n + i] * m.qd[i] / 2;
        for (std::size_t j = i + 1; j < n; ++j) row += d.mass_matrix[i * n + j] * m.qd[j];
        T += m.qd[i] * row;
    }
    if (agree_at_random_states(m, {T}, {d.kinetic_energy}, 0x6b696e65ull)) d.kinetic_from_mass = T;
}

// The forms of T tried for M and h, in order, each taken or with why not (derive.hpp).
void record_mass_bias(derived& d, bool jacobian, bool rate) {
    mass_bias_choice& c = d.mass_bias;
    c.trace.clear();
    for (mass_bias_method m : mass_bias_methods) c.trace.push_back({m, 0, {}});
    std::string const no_form = d.coriolis_reason.empty() ? "" : "T is not a quadratic form in q̇: " + d.coriolis_reason;
    if (jacobian) {
        c.method = mass_bias_method::jacobian_form;
        c.rule = "T is a sum of squared gradients (points only): M and h as Jacobians' products";
        for (auto m : {mass_bias_method::point_composites_root_axes, mass_bias_method::point_composites,
                       mass_bias_method::rate_form, mass_bias_method::lagrangian})
            c.at(m).note = "not tried: the Jacobian form applies";
        return;
    }
    c.at(mass_bias_method::jacobian_form).note =
        no_form.empty() ? "T is not a sum of squared gradients (rates that are not gradients: angular velocities)" : no_form;
    if (rate) {
        c.at(mass_bias_method::lagrangian).note = "not tried: the rate form applies";
        return; // bilinear_form.cpp records the rate form's choice
    }
    c.method = mass_bias_method::lagrangian;
    c.rule = "no other form of T applies: M and h from L's second derivatives";
    std::string const no_rate =
        no_form.empty() ? "T is not a sum of constant coefficients times products of rates linear in q̇" : no_form;
    for (auto m : {mass_bias_method::point_composites_root_axes, mass_bias_method::point_composites,
                   mass_bias_method::rate_form})
        c.at(m).note = no_rate;
}

// Why the forward-dynamics strategies have no rate form to work on (forward_dynamics.hpp).
std::string no_rate_form(derived const& d, bool jacobian_form) {
    if (!d.coriolis_reason.empty()) return "no rate form: " + d.coriolis_reason;
    if (jacobian_form) return "no rate form: T is a sum of squared gradients (points only), M and h came from that";
    return "no rate form: T is not a sum of constant coefficients times products of rates linear in q̇";
}

} // namespace

std::string_view name_of(mass_bias_method m) {
    switch (m) {
    case mass_bias_method::jacobian_form: return "jacobian_form";
    case mass_bias_method::point_composites_root_axes: return "point_composites_root_axes";
    case mass_bias_method::point_composites: return "point_composites";
    case mass_bias_method::rate_form: return "rate_form";
    case mass_bias_method::lagrangian: return "lagrangian";
    }
    return "lagrangian";
}

std::optional<derived> derive(model const& m, diagnostics& diags, double max_work,
                              std::vector<std::string> const* regressor) {
    struct forget_counts {
        ~forget_counts() { forget_operation_counts(); }
    } const forget; // operations_of's graph, on every way out
    derived d;
    std::size_t const n = m.q.size();
    d.nq = n;
    d.nu = m.u.size();
    try {
        // Coriolis applicability depends only on the model's form, so decide it first.
        d.coriolis_reason = coriolis_obstacle(m);
        std::optional<jacobian_form> jf;
        std::optional<bilinear_form> bf;
        if (d.coriolis_reason.empty()) jf = jacobian_form_of(m);
        if (d.coriolis_reason.empty() && !jf) bf = bilinear_form_of(m);
        std::unique_ptr<rate_structures> rs;
        if (bf && !within_budget(m, bilinear_form_work(*bf, n), max_work, diags)) return std::nullopt;
        if (bf) rs = std::make_unique<rate_structures>(m, *bf);
        ex const T = simplified_sum(m.kinetic);
        ex const V = simplified_sum(m.potential);
        ex const L = T - V + simplified_sum(m.lagrangian);
        d.potential_gradient.assign(n, 0);
        for (std::size_t i = 0; i < n; ++i) d.potential_gradient[i] = simplify(partial(V, m.q[i]));
        d.mass_matrix.assign(n * n, 0);
        d.bias.assign(n, 0);
        record_mass_bias(d, jf.has_value(), bf.has_value());
        if (jf) mass_and_bias_from_jacobian_form(m, *jf, d);
        else if (bf) mass_and_bias_from_bilinear_form(m, *rs, d);
        else if (!mass_and_bias_from_lagrangian(m, L, d, diags, max_work)) return std::nullopt;
        if (!every_coordinate_has_inertia(m, d, diags)) return std::nullopt;
        d.generalized_forces = generalized_forces(m);
        d.kinetic_energy = T;
        d.potential_energy = V;
        kinetic_from_mass(m, d);
        constraint_rows(m, d, diags);
        if (!check_well_posed(m, d, diags)) return std::nullopt;
        derive_control(m, d, rs.get());
        d.forward_dynamics = forward_dynamics_attempts(m, rs.get(), d, no_rate_form(d, jf.has_value()));
        if (!regressor) {
            // An extra the model did not ask for: where finding it fails, there is none.
            try {
                d.regressor = regressor_parameters(m, d);
            } catch (std::exception const&) {
                d.regressor.clear();
            }
        } else {
            std::string error;
            d.regressor = regressor_parameters(m, d, *regressor, error);
            if (!error.empty()) {
                diags.error(m.model_span, error);
                return std::nullopt;
            }
        }
    } catch (GiNaC::pole_error const& e) {
        diags.error(m.model_span, std::string("a division by zero or log(0) was met while deriving: ") + e.what());
        return std::nullopt;
    } catch (std::bad_alloc const&) {
        diags.error(m.model_span, "out of memory while deriving the equations of motion (the model is too large for "
                                  "this machine's memory; fewer coordinates, or a simpler kinetic energy)");
        return std::nullopt;
    } catch (constant_out_of_range const& e) {
        // Exact arithmetic on long decimals, turned through several frames, can build
        // rationals whose parts leave the doubles although their values do not.
        diags.error(m.model_span, std::string("the derivation built a number past the doubles (") + e.what() +
                                      "): exact arithmetic on long decimals, such as 16-digit axes of rot() turned "
                                      "through several frames, grows without bound; write those numbers with fewer "
                                      "digits, or a robot file's frames as it gives them (quat, rpy)");
        return std::nullopt;
    } catch (std::exception const& e) {
        diags.error(m.model_span, std::string("the derivation failed: ") + e.what());
        return std::nullopt;
    }
    return d;
}

} // namespace lagc

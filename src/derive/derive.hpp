// Stage 3: checked model → the equations of motion, symbolically (GiNaC).
#pragma once

#include "derive/forward_dynamics.hpp"
#include "model.hpp"

#include <array>
#include <optional>
#include <string_view>
#include <vector>
#include <string>

namespace lagc {

// How M and h are formed: a closed list, in the order derive() tries them. The first form
// of T that applies is taken: the Jacobian form (points), else the rate form (bodies), else
// L's second derivatives. Within the rate form the points' share is the composites' in the
// root body's axes, else in the world's, where they agree at random states and are smaller,
// else term by term (bilinear_form.cpp). The choice and each other method's reason go to
// --explain (mass_bias_choice).
enum class mass_bias_method { jacobian_form, point_composites_root_axes, point_composites, rate_form, lagrangian };
inline constexpr std::array<mass_bias_method, 5> mass_bias_methods = {
    mass_bias_method::jacobian_form, mass_bias_method::point_composites_root_axes, mass_bias_method::point_composites,
    mass_bias_method::rate_form, mass_bias_method::lagrangian};
std::string_view name_of(mass_bias_method m);

struct mass_bias_choice {
    mass_bias_method method = mass_bias_method::lagrangian;
    std::string rule; // why it was taken
    struct entry {
        mass_bias_method method;
        std::size_t operations = 0; // M's and h's, where measured
        std::string note;           // why not taken, where it was not
    };
    std::vector<entry> trace; // every method, in mass_bias_methods' order
    entry& at(mass_bias_method m) { return trace[static_cast<std::size_t>(m)]; }
};

// Everything the emitted functions compute, as expressions in q, qd, u, p and t.
// Matrices are row-major exvectors.
struct derived {
    // How M and h were formed (above).
    mass_bias_choice mass_bias;
    std::size_t nq = 0, nu = 0, nc = 0;
    GiNaC::exvector mass_matrix;           // nq × nq, ∂²L/∂q̇²
    GiNaC::exvector bias;                  // h = ∂²L/∂q̇∂q q̇ + ∂²L/∂q̇∂t − ∂L/∂q
    // When not empty, h = velocity_bias + potential_gradient, and velocity_bias[i] may
    // contain velocity_bias[j] (j > i) as a part: code generators should keep them apart.
    GiNaC::exvector velocity_bias;
    // When not empty, h with fewer operations to evaluate (bias_forces, forward and inverse
    // dynamics); `bias` keeps the form whose derivatives (C, the linearization) are smaller.
    GiNaC::exvector bias_compact;
    // What bias holds of the points' translational terms (point_composite's composites or
    // the terms themselves), as added: bias minus these cancels them term by term.
    GiNaC::exvector bias_point_share;
    GiNaC::exvector bias_body_share; // the same for the rotational terms the composites cover
    std::optional<GiNaC::exvector> coriolis; // C from Christoffel symbols, where it applies
    std::string coriolis_reason;           // why not, when it does not
    GiNaC::exvector potential_gradient;    // ∂V/∂q
    GiNaC::exvector generalized_forces;    // Q
    GiNaC::ex kinetic_energy, potential_energy;
    // T as ½ q̇ᵀ M q̇ (Σ_i q̇_i (½ M_ii q̇_i + Σ_{j>i} M_ij q̇_j)), where T is that quadratic
    // form (no 'lagrangian' terms, T homogeneous of degree two in q̇: coriolis_reason empty),
    // checked at two random states; where functions share parts, M's values are there and
    // kinetic_energy then costs ~n² operations (emitter::energies). Else empty.
    std::optional<GiNaC::ex> kinetic_from_mass;

    // Constraint rows: holonomic first, then velocity rows, each in file order.
    GiNaC::exvector constraint_residuals;  // c (holonomic) and g (velocity)
    GiNaC::exvector constraint_jacobian;   // A, nc × nq
    GiNaC::exvector constraint_rhs;        // r of the index-1 system (Baumgarte law)
    std::vector<span> constraint_spans;
    std::vector<std::size_t> constraint_lines;
    // M alone is singular at generic states but [[M, A^T], [A, 0]] is regular (a
    // quaternion, a coordinate only a constraint determines): the generated code factors
    // M + rho A^T A instead of M (well_posed.cpp decides).
    bool mass_singular = false;
    // Where M alone is singular: the note saying so, its last words (how forward_dynamics
    // solves) added once the emitter has decided (driver/compiler.cpp).
    std::optional<std::pair<span, std::string>> singular_mass_note;

    // The control API (derive_control.cpp). Symbols for q̈ and λ, spelled qdd[i] and
    // lambda[k] in the generated code.
    std::vector<GiNaC::symbol> qdd, lambda;
    std::vector<GiNaC::exvector> inverse_dynamics; // τ = M q̈ + h − Q, nq rows, each as the parts of its sum
    // The same τ by the recursive Newton–Euler algorithm in the tree's own axes
    // (local_newton_euler, tree_algorithms.hpp), checked against inverse_dynamics at random
    // states; empty, with why, where it does not apply. The emitter writes the form with fewer
    // operations (emit/choose.cpp); everything else reads inverse_dynamics.
    std::vector<GiNaC::exvector> inverse_dynamics_recursive;
    std::string inverse_dynamics_recursive_why;
    // h − Q by the same algorithm at q̈ = 0, checked likewise; empty where the above is. The
    // closed form's M and h use it with mass_matrix_recursive where the two are fewer
    // operations than M and h as derived (emit/choose.cpp).
    std::vector<GiNaC::exvector> bias_recursive;
    // M by the composite-rigid-body algorithm in the tree's own axes (local_composite_rigid_body),
    // checked against mass_matrix at random states; empty, with why, where it does not apply.
    // The emitter's mass_matrix writes the form with fewer operations; everything else reads
    // mass_matrix.
    GiNaC::exvector mass_matrix_recursive;
    std::string mass_matrix_recursive_why;
    // The parameters τ (inputs at zero) is linear in, as indices into model::parameters:
    // τ = Y π with Y = ∂τ/∂π (regressor.cpp); empty where there are none.
    std::vector<std::size_t> regressor;
    // The base parameters (--regressor base; base_parameters.cpp): the combinations of π the
    // torques determine, each named after the column of Y it keeps.
    struct base_parameter_set {
        std::vector<std::size_t> kept;          // indices into `regressor`: Y_b's columns
        std::vector<std::string> names;         // "Kzz_link1R": a kept parameter with others grouped in
        std::vector<GiNaC::ex> expressions;     // π_b in the parameters' symbols
        std::vector<std::string> texts;         // the same as "Kzz_link1 + Kyy_link2 + 0.089159*m_link2"
        std::vector<std::size_t> unidentifiable; // indices into `regressor`: columns that are zero
        std::string method;                     // how they were found, for --explain and the header
        std::size_t rank_checked_states = 0;    // states Y was stacked over
    };
    std::optional<base_parameter_set> base;
    // The residuals R = M q̈ + h − Q + Aᵀλ (nq rows) and S = A q̈ − r (nc rows), zero at a
    // solution. Solving the KKT system with −∂R/∂x and −∂S/∂x (x = [q; q̇; u], q̈ and λ held)
    // gives ∂q̈/∂x exactly (the implicit function theorem); the emitter differentiates them.
    std::vector<GiNaC::exvector> residual_rows; // each as the parts of its sum
    // The points' shares of ∂R/∂q and of C from their composites (rnea_derivatives,
    // checked against the shares' own derivatives), with what is left of the residual rows
    // and of h without those shares, whose derivatives are taken as before: the linearization
    // and C add the two. Empty where that does not apply.
    struct composite_derivatives {
        std::vector<GiNaC::exvector> residual_rest; // nq + nc rows, as residual_rows
        GiNaC::exvector bias_rest;                  // h without the points' share
        GiNaC::exvector dtau_dq, coriolis, dtau_dqd; // nq × nq, row-major; dtau_dqd = 2 coriolis
        bool bodies = false;  // the rotational composites' bodies are in the shares too
        bool gravity = false; // and ∂V/∂q (uniform gravity on the points, point_composite::gravity)
    };
    std::optional<composite_derivatives> point_derivatives;
    // The same for the whole tree (its inertia, with uniform gravity its weights) by the RNEA
    // derivatives built link by link in the bodies' own axes, from inverse_dynamics_recursive
    // (derive_control.cpp); empty where that was not kept or they do not apply.
    std::optional<composite_derivatives> recursive_derivatives;
    std::string recursive_derivatives_why;
    // Each forward-dynamics strategy besides the closed form, in fd_methods' order: its
    // candidate (q̈, λ, pivots, checked at random states) or why it does not apply
    // (forward_dynamics.hpp). The emitter chooses among them and the closed form.
    std::vector<fd_attempt> forward_dynamics;

    // Task space: for each output of q (and t) only, in the order of model::outputs, its
    // Jacobian J = ∂y/∂q (size × nq, row-major) and drift ÿ − J q̈ = J̇ q̇ + 2 (∂J/∂t) q̇ +
    // ∂²y/∂t²: the second time derivative with q̈ = 0. Empty for other outputs.
    struct output_derivatives {
        GiNaC::exvector jacobian, drift;
    };
    std::vector<output_derivatives> outputs;
    // ċ for holonomic rows (A q̇ + ∂c/∂t), g itself for velocity rows: nc.
    GiNaC::exvector constraint_velocity;
    std::size_t holonomic_rows = 0;
};

// h_i as the parts of its sum, the way code generators keep them apart (velocity_bias and
// ∂V/∂q: a chain's h_i reuses h_{i+1}, and one flattened sum would hide that); `evaluated`:
// bias_compact where there is one (h to evaluate, not to differentiate).
GiNaC::exvector bias_parts(derived const& d, std::size_t i, bool evaluated);

// The candidate of `method` in d.forward_dynamics, or null where it does not apply.
fd_candidate const* candidate_of(derived const& d, fd_method method);

struct rate_structures;

// The parameters inverse dynamics is linear in (regressor.cpp): derived::regressor.
std::vector<std::size_t> regressor_parameters(model const& m, derived const& d);
// The parameters `names` as π, checked: empty with `error` set where τ is not linear in them
// jointly, or has terms free of them.
std::vector<std::size_t> regressor_parameters(model const& m, derived const& d, std::vector<std::string> const& names,
                                              std::string& error);

// The base parameters of d.regressor (base_parameters.cpp): nullopt with `why_not` set where
// they are not found (no regressor, past the budget, a grouping that did not verify).
std::optional<derived::base_parameter_set> base_parameters(model const& m, derived const& d, std::string& why_not);

// Adds the control API's expressions to a derivation (derive_control.cpp); `s`, the rate
// form M and h came from with its composites (or null), gives M q̈ its composite form.
void derive_control(model const& m, derived& d, rate_structures const* s = nullptr);

// Derivation errors a user can cause (a coordinate without inertia, a pole met while
// differentiating) are reported at the offending statement; returns nullopt then. Before
// each costly step the terms it would build are estimated from its inputs; past
// `max_work` (--max-derivation) the derivation stops with an error instead of running
// for minutes.
// `regressor`, when given, is π's names (--regressor-parameters; empty: no regressor).
std::optional<derived> derive(model const& m, diagnostics& diags, double max_work = 1e8,
                              std::vector<std::string> const* regressor = nullptr);

} // namespace lagc

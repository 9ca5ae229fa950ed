// Stage 3's shared tools: zero tests and time derivatives (derive.cpp, jacobian_form.cpp).
#pragma once

#include <array>

#include "derive/derive.hpp"
#include "symbolic/chain_rule.hpp"
#include "symbolic/simplify.hpp"

#include <optional>

namespace lagc {

inline bool free_of(GiNaC::ex const& e, std::vector<GiNaC::symbol> const& syms) { return !has_any(e, syms); }

// True when e is zero; expansion is tried only when the cheap structural test fails.
bool is_zero_expr(GiNaC::ex const& e);

// Zero for every state and parameter: a structural test, then one evaluation at an
// arbitrary point (cheap on large expressions), and expansion only if that gives zero.
bool is_identically_zero(GiNaC::ex const& e, model const& m);

// "the mass matrix is singular: coordinate 'y' has no inertia (…)", saying whether the
// energy terms never mention der(y) or are only linear in it.
std::string no_inertia_message(model const& m, std::size_t i);

// d/dt with q̈ = 0: ∂e/∂t + Σ ∂e/∂q_i q̇_i, by the chain rule on e's structure.
GiNaC::ex total_time_derivative(GiNaC::ex const& e, model const& m);

// d/dt of e over some coordinates only (a floating root's), q̈ as `qdd`:
// Σ ∂e/∂q̇_i q̈_i + Σ ∂e/∂q_i q̇_i for i in `coordinates`.
GiNaC::ex rate_of(model const& m, GiNaC::ex const& e, std::vector<std::size_t> const& coordinates,
                  GiNaC::exvector const& qdd);

// The Jacobian form of a kinetic energy of positions: T = Σ_k w_k (a_k(q)·q̇)² with
// constant weights and every a_k a gradient (∂a_ki/∂q_j symmetric), as for point masses
// and the translation of bodies (jacobian_form.cpp).
struct jacobian_form {
    std::vector<GiNaC::ex> weight;         // W_k = 2 w_k
    std::vector<GiNaC::exvector> a;        // a_k
    std::vector<GiNaC::exvector> adot;     // ȧ_k
    std::vector<GiNaC::ex> rate;           // ȧ_k·q̇
};
std::optional<jacobian_form> jacobian_form_of(model const& m);

// M, h (with its velocity part kept apart where reused) and C from the Jacobian form.
void mass_and_bias_from_jacobian_form(model const& m, jacobian_form const& jf, derived& d);

// The rate form of a kinetic energy: T = Σ_k c_k r_a r_b with constant c_k and rates r
// linear and homogeneous in q̇ that need not be gradients (angular velocities), as rigid
// bodies give (bilinear_form.cpp).
struct bilinear_form {
    struct rate {
        GiNaC::ex original;   // as T has it (before sin² + cos² = 1 is applied)
        GiNaC::ex r;          // α·q̇
        GiNaC::exvector a;    // α = ∂r/∂q̇
        GiNaC::exvector adot; // dα/dt (q̈ = 0)
        GiNaC::ex rho;        // dr/dt with q̈ = 0
        GiNaC::exvector dr;   // ∂r/∂q_i
        // r = der(f) for an f(q) (known from der() itself): α is a gradient, so
        // ∂α_i/∂q_j = ∂α_j/∂q_i, ∂r/∂q_i = dα_i/dt, and every curl term vanishes.
        bool gradient = false;
    };
    struct term {
        GiNaC::ex c;          // free of q̇ and t; may depend on q
        std::size_t a, b;     // rates
        GiNaC::ex cdot;       // dc/dt, when c depends on q
        GiNaC::exvector dc;   // ∂c/∂q_i, when c depends on q (else empty)
    };
    std::vector<rate> rates;
    std::vector<term> terms;
    // Three rates w = (w_x, w_y, w_z) that are an angular velocity: α̇_i − ∂_i w = s w × α_i
    // for every i (s = +1 in body axes, −1 in world axes), the structure equation of a
    // rotation's angular velocity. Their curl terms are then cross products (angular_rates).
    // A triple may also be an angular velocity up to a number in each element (w_c = r_c/κ_c:
    // the rates are kept without their numeric factors, so a quaternion's ω = 2 G q̇ has
    // rates G q̇); its structure equation is then curl r_a = λ_a (r_b α_d − r_d α_b) with
    // λ_a = s κ_a / (κ_b κ_d), `scale` holding λ / s (1 for an angular velocity itself).
    struct angular_velocity {
        std::array<std::size_t, 3> rate;
        int sign;
        std::array<GiNaC::ex, 3> scale = {1, 1, 1};
    };
    std::vector<angular_velocity> angular;
};
std::optional<bilinear_form> bilinear_form_of(model const& m);
// About how many terms M, Ṁ and P − Pᵀ would hold, built from f (an estimate, checked
// before building them).
double bilinear_form_work(bilinear_form const& f, std::size_t n);

// The rate form with the structures found in it (rate_structure.hpp), found once per model.
struct rate_structures;

// M, h and C (the Christoffel matrix) from the rate form.
void mass_and_bias_from_bilinear_form(model const& m, rate_structures const& s, derived& d);

// M q̈ (q̈ given as symbols) from the rate form's composites; empty when none applies.
// `shares`, when given, receives the composites' part of it (rotational and points').
GiNaC::exvector momentum_from_bilinear_form(model const& m, rate_structures const& s, GiNaC::exvector const& qdd,
                                           GiNaC::exvector* shares = nullptr);

} // namespace lagc

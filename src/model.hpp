// Stage 2's value: a checked model, every expression already a GiNaC expression in the
// symbols q, qd, u, p and t. Derivation and emission assume it is valid.
#pragma once

#include "common/diagnostics.hpp"

#include <ginac/ginac.h>

#include <memory>
#include <string>
#include <vector>

namespace lagc {

class directional_deriver; // chain_rule.hpp

// A scalar, a vector (rows × 1) or a matrix (rows × cols), elements row-major.
struct value {
    enum class kind { scalar, vector, matrix };
    kind shape = kind::scalar;
    std::size_t rows = 1;
    std::size_t cols = 1;
    std::vector<GiNaC::ex> elems;

    static value scalar(GiNaC::ex e) { return {kind::scalar, 1, 1, {std::move(e)}}; }
    std::size_t size() const { return elems.size(); }
    std::string describe() const; // "a scalar", "a 3-vector", "a 2×2 matrix"
};

struct parameter_def {
    std::string name;
    double default_value = 0.0;
    GiNaC::ex exact_value = 0; // the default as written, an exact rational
    span where;
    bool written = false; // a default was written (0 included); else 0, as the language says
};

// One `force` or `torque` statement, kept unevaluated until derivation.
struct force_def {
    enum class kind { on_coordinate, at_point, torque };
    kind type = kind::on_coordinate;
    std::size_t coordinate = 0; // on_coordinate
    value vec;                  // the force or torque (a scalar for on_coordinate)
    value target;               // the point, or the angular velocity
    span where;
};

struct constraint_def {
    GiNaC::ex residual;
    bool holonomic = true;
    span where;
    std::size_t line = 0; // of the statement, for messages that name other constraints
};

// One `kinetic` or `lagrangian` statement's term, for derivation errors and the
// well-posedness check to point at the statement responsible.
struct energy_term {
    std::string keyword;
    GiNaC::ex value;
    span where;
};

struct output_def {
    std::string name;
    value val;
    span where;
    bool reads_inputs = false;     // its function takes u
    bool reads_velocities = false; // no Jacobian and drift then (a position output has them)
};

// e divided by the content of its numbers (GiNaC's integer_content: for (6x + 4y)/5, 2/5):
// the same for e and every rational multiple of e, up to sign.
inline GiNaC::ex without_numeric_factor(GiNaC::ex const& e) {
    GiNaC::numeric const c = e.integer_content();
    return c.is_zero() ? e : e / c;
}

struct model {
    std::string name;
    std::vector<std::string> coordinates;
    std::vector<span> coordinate_spans;
    std::vector<std::string> inputs;
    std::vector<parameter_def> parameters;

    // Symbols in declaration order (GiNaC orders by creation, so create them in order).
    std::vector<GiNaC::symbol> q, qd, u, p;
    GiNaC::symbol t{"t"};

    GiNaC::ex kinetic = 0;     // Σ kinetic
    GiNaC::ex potential = 0;   // Σ potential
    GiNaC::ex lagrangian = 0;  // Σ lagrangian (added to T − V)
    GiNaC::ex dissipation = 0; // Σ dissipation (Rayleigh)
    bool has_lagrangian_terms = false;
    std::vector<energy_term> energy_terms; // kinetic and lagrangian statements, file order
    span model_span;

    std::vector<force_def> forces;
    std::vector<constraint_def> constraints; // file order; derivation puts holonomic rows first
    GiNaC::ex alpha = 0;
    GiNaC::ex beta = 0;
    std::vector<output_def> outputs;
    bool uses_time = false;
    bool uses_sign = false; // abs, sign, min or max appear: the generated code gets detail::sign
    // Every element der() produced: total time derivatives of expressions of q (and t), so
    // each free of t is a gradient rate ∇f·q̇ (the rate form drops its curl terms).
    GiNaC::exset time_derivatives;
    // 3-vectors of velocities the model computes as X u (+ v), with X a 3×3 matrix free of
    // velocities and u an earlier vector of velocities (w2 = transpose(T2)*w1 + [0, der(q2), 0]):
    // the rate form carries composite inertias along them (bilinear_form.cpp).
    struct transport {
        GiNaC::exvector result, matrix, operand; // 3, 3×3 row-major, 3
    };
    std::vector<transport> transports;
    // 3-vectors the model took der() of (positions, element by element with their
    // velocities) and the 3×3 matrices of q it multiplied with (candidate rotation
    // matrices): the rate form looks among them for points of rotating frames, whose
    // translational inertia it then carries as composites (point_structure.cpp).
    struct point {
        GiNaC::exvector position, velocity; // 3 each
    };
    std::vector<point> points;
    std::vector<GiNaC::exvector> frames; // 3×3 row-major
    // 3-vectors of q the model added (o2 = o1 + R1*l): candidate points on joint axes.
    std::vector<GiNaC::exvector> origins;
    // 3-vectors of velocities the model named (let w = …): candidate angular velocities.
    std::vector<GiNaC::exvector> velocity_vectors;
    // The elements of every value the model named (let) that depends on velocities and not on
    // inputs, each value's elements together (a matrix row by row): candidate quasi-velocities,
    // as W = transpose(R)*der(R) is for a rotation matrix's nine rates (quasi_velocity.cpp).
    std::vector<GiNaC::exvector> named_rates;
    // dot(w, J*w) the model computed with J a 3×3 matrix free of q and of velocities: candidate
    // rotational inertias of rigid bodies (½ ωᵀ J ω), for the articulated-body algorithm
    // (articulated_body.cpp), which checks what it builds from them.
    struct quadratic_form {
        GiNaC::exvector w, J; // 3, 3×3 row-major
    };
    std::vector<quadratic_form> quadratic_forms;
    // d/dt along q̇ of the parts derived so far (total_time_derivative, derive_support.cpp):
    // made on first use, shared by copies (the same symbols, so the same derivatives).
    mutable std::shared_ptr<directional_deriver> time_derivative_memo;
};

} // namespace lagc

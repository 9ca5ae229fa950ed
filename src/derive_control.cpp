// Stage 3, the control API: inverse dynamics, the input matrix and the residual Jacobians
// that make A = ∂ẋ/∂x and B = ∂ẋ/∂u exact derivatives of forward_dynamics' q̈.
//
// At a solution of M q̈ + h + Aᵀλ = Q, A q̈ = r (r: the Baumgarte right-hand side), the
// residuals R = M q̈ + h − Q + Aᵀλ and S = A q̈ − r vanish. Differentiating along x with q̈
// and λ as functions of x (implicit function theorem):
//   [[M, Aᵀ], [A, 0]] [∂q̈/∂x; ∂λ/∂x] = −[∂R/∂x; ∂S/∂x]   (q̈ and λ held fixed in ∂R, ∂S),
// so the generated linearization evaluates −∂R/∂x and −∂S/∂x at forward_dynamics'
// solution and solves with the same factorisations: one factorisation and 2nq + nu
// solves instead of 4nq + 2nu calls of forward_dynamics for central differences.
// The derivatives themselves are taken on the code generator's DAG (differentiate.cpp),
// where shared subexpressions are differentiated once.
#include "derive_support.hpp"

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

namespace {


// The parts of h_i as the emitter keeps them apart (derived::velocity_bias): a chain's h_i
// reuses h_{i+1}, and one flattened sum would hide that.
exvector bias_parts(derived const& d, std::size_t i) {
    if (d.velocity_bias.empty()) return {d.bias[i]};
    return {d.velocity_bias[i], d.potential_gradient[i]};
}

} // namespace

namespace {

void derive_task_space(model const& m, derived& d) {
    for (auto const& out : m.outputs) {
        derived::output_derivatives o;
        if (!out.reads_velocities && !out.reads_inputs)
            for (auto const& y : out.val.elems) {
                for (auto const& q : m.q) o.jacobian.push_back(y.diff(q));
                // ÿ with q̈ = 0: d/dt twice, q̇ held constant the second time.
                o.drift.push_back(total_time_derivative(total_time_derivative(y, m), m));
            }
        d.outputs.push_back(std::move(o));
    }
    for (std::size_t k = 0; k < d.nc; ++k) {
        bool const holonomic = k < d.holonomic_rows;
        ex const& c = d.constraint_residuals[k];
        d.constraint_velocity.push_back(holonomic ? total_time_derivative(c, m) : c);
    }
}

} // namespace

void derive_control(model const& m, derived& d) {
    derive_task_space(m, d);
    std::size_t const n = d.nq, nc = d.nc;
    for (std::size_t i = 0; i < n; ++i) d.qdd.emplace_back("qdd" + std::to_string(i));
    for (std::size_t k = 0; k < nc; ++k) d.lambda.emplace_back("lambda" + std::to_string(k));
    // τ_i = Σ_j M_ij q̈_j + h_i − Q_i, and R_i = τ_i + Σ_k A_ki λ_k.
    d.inverse_dynamics.assign(n, {});
    d.residual_rows.assign(n + nc, {});
    for (std::size_t i = 0; i < n; ++i) {
        exvector tau = bias_parts(d, i);
        tau.push_back(-d.generalized_forces[i]);
        for (std::size_t j = 0; j < n; ++j) tau.push_back(d.mass_matrix[i * n + j] * d.qdd[j]);
        d.inverse_dynamics[i] = tau;
        for (std::size_t k = 0; k < nc; ++k) tau.push_back(d.constraint_jacobian[k * n + i] * d.lambda[k]);
        d.residual_rows[i] = tau;
    }
    // S_k = Σ_j A_kj q̈_j − r_k.
    for (std::size_t k = 0; k < nc; ++k) {
        exvector s = {-d.constraint_rhs[k]};
        for (std::size_t j = 0; j < n; ++j) s.push_back(d.constraint_jacobian[k * n + j] * d.qdd[j]);
        d.residual_rows[n + k] = s;
    }
}

} // namespace lagc

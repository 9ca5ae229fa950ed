// Derivatives along a direction, by the chain rule on the expression's own structure.
#pragma once

#include <ginac/ginac.h>

#include <vector>

namespace lagc {

// Σ_i ∂e/∂x_i · r_i, computed by walking e once: d sin(u) = cos(u)·du, d(uv) = du·v + u·dv.
// Unlike summing e.diff(x_i)·r_i, this keeps the structure of e: for
// e = Σ_j l_j sin(q_1 + … + q_j) it gives Σ_j l_j cos(q_1 + … + q_j)·(r_1 + … + r_j),
// n terms instead of n².
GiNaC::ex directional_derivative(GiNaC::ex const& e, std::vector<GiNaC::symbol> const& x,
                                 std::vector<GiNaC::ex> const& r);

} // namespace lagc

// Derivatives along a direction, by the chain rule on the expression's own structure.
#pragma once

#include <ginac/ginac.h>

#include <memory>
#include <vector>

namespace lagc {

// Σ_i ∂e/∂x_i · r_i, computed by walking e once: d sin(u) = cos(u)·du, d(uv) = du·v + u·dv.
// Unlike summing e.diff(x_i)·r_i, this keeps the structure of e: for
// e = Σ_j l_j sin(q_1 + … + q_j) it gives Σ_j l_j cos(q_1 + … + q_j)·(r_1 + … + r_j),
// n terms instead of n².
GiNaC::ex directional_derivative(GiNaC::ex const& e, std::vector<GiNaC::symbol> const& x,
                                 std::vector<GiNaC::ex> const& r);

// ∂e/∂x the same way, each shared part once: 0 without a walk where e does not contain x.
// GiNaC's diff walks every path through shared parts and throws and catches an exception
// at every sin and cos.
GiNaC::ex partial(GiNaC::ex const& e, GiNaC::symbol const& x);

// The same for many expressions along one direction, remembering every part it has
// derived: the derivation takes d/dt of hundreds of small expressions that share parts
// (rotation products), which one walk each would derive again.
class directional_deriver {
public:
    directional_deriver(std::vector<GiNaC::symbol> const& x, std::vector<GiNaC::ex> const& r);
    ~directional_deriver();
    directional_deriver(directional_deriver const&) = delete;
    directional_deriver& operator=(directional_deriver const&) = delete;
    GiNaC::ex operator()(GiNaC::ex const& e);
    // How many variables x it was made for (a memo for fewer coordinates than a model has
    // now is not the model's d/dt).
    std::size_t variables() const;

private:
    struct state;
    std::unique_ptr<state> state_;
};

} // namespace lagc

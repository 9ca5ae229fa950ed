// Stage 3's shared tools (derive_support.hpp).
#include "derive/derive_support.hpp"
#include "derive/spatial.hpp"

#include "symbolic/chain_rule.hpp"
#include "symbolic/dag.hpp"
#include "symbolic/simplify.hpp"

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

bool is_zero_expr(ex const& e) {
    if (e.is_zero()) return true;
    return tree_size(e) <= max_expanded_tree ? e.expand().is_zero() : numerically_zero(e);
}

bool is_identically_zero(ex const& e, model const& m) {
    if (e.is_zero()) return true;
    GiNaC::exmap point;
    std::size_t k = 0;
    auto pick = [&](GiNaC::symbol const& s) { point[s] = test_value(k++, 0); };
    for (auto const& s : m.q) pick(s);
    for (auto const& s : m.qd) pick(s);
    for (auto const& s : m.p) pick(s);
    for (auto const& s : m.u) pick(s);
    pick(m.t);
    // 40 digits: rounding noise stays far below the threshold, a true value far above it.
    digits_scope const digits(40);
    // A pole at the chosen point (nullopt) falls through to the exact test.
    if (auto const v = evaluate(e, point); v && GiNaC::abs(*v) > GiNaC::numeric(1, 100000000) / GiNaC::numeric(1000000000000LL))
        return false;
    // Zero at that point (or a pole there): expanded where that is affordable, else taken
    // as zero where the value was.
    if (tree_size(e) > max_expanded_tree) return evaluate(e, point).has_value();
    return e.expand().is_zero();
}

std::string no_inertia_message(model const& m, std::size_t i) {
    std::string const v = "der(" + m.coordinates[i] + ")";
    bool const linear = has_any(m.kinetic, {m.qd[i]}) || has_any(m.lagrangian, {m.qd[i]});
    return "the mass matrix is singular: coordinate '" + m.coordinates[i] + "' has no inertia (" +
           (linear ? "the energy terms are at most linear in " + v + ", never quadratic"
                   : "no kinetic energy term contains " + v) +
           ")";
}

ex total_time_derivative(ex const& e, model const& m) {
    // GiNaC's diff walks every path through shared parts even where t never occurs (a
    // tenth of a 3-D arm's derivation): ask first, in one walk.
    ex const explicit_t = partial(e, m.t);
    if (!m.time_derivative_memo || m.time_derivative_memo->variables() != m.q.size())
        m.time_derivative_memo = std::make_shared<directional_deriver>(m.q, exvector(m.qd.begin(), m.qd.end()));
    return explicit_t + (*m.time_derivative_memo)(e);
}

ex rate_of(model const& m, ex const& e, std::vector<std::size_t> const& coordinates, exvector const& qdd) {
    exvector terms;
    for (std::size_t i : coordinates) {
        terms.push_back(spatial::product(partial(e, m.qd[i]), qdd[i]));
        terms.push_back(spatial::product(partial(e, m.q[i]), m.qd[i]));
    }
    return spatial::sum(terms);
}

} // namespace lagc

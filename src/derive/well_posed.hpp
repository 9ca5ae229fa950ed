// Stage 3's check that the derived equations can be solved (well_posed.cpp).
#pragma once

#include "graph/expression_graph.hpp"
#include "derive/derive.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lagc {

// Reports, at the statements responsible, a kinetic energy that is negative for some
// motion, constraints whose rows of A depend on one another, and a mass matrix that is
// singular where the constraints do not make [[M, A^T], [A, 0]] regular (naming the
// velocity combination without inertia). Sets d.mass_singular when M alone is singular
// but the whole system is regular. False when there was an error.
bool check_well_posed(model const& m, derived& d, diagnostics& diags);

// Every symbol of the model (q, q̇, u, p, t) spelled for an expression_graph ("q[0]",
// "p[2]"), the spellings also in `order`: the order of the values evaluate_all takes.
std::map<std::string, symbol_spelling> graph_spellings(model const& m, std::vector<std::string>& order);

// A pseudo-random state in the order graph_spellings gives: q in [-1.4, 1.4], q̇ and u in
// [-1, 1], t in [0.2, 1.2], and each parameter at the default written for it, 0 included
// (where none is written, at a value invented in [0.6, 1.4]) or, to test an identity of the
// expressions rather than of the defaults, at random. From a fixed generator: the same on
// every machine.
enum class parameter_values { defaults, random };
std::vector<double> random_point(model const& m, std::uint64_t& state, parameter_values parameters);

} // namespace lagc

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

} // namespace lagc

// --functions: the API functions a file holds, those asked for and what they call.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace lagc {

// The API's functions by name, in the order a file writes them (outputs aside: each
// `output NAME` of a model gives output_NAME, and output_NAME_jacobian and _drift where
// its Jacobian exists).
std::vector<std::string_view> const& api_function_names();

// Whether `name` can name a function of some model (a fixed name, or output_...).
bool may_name_function(std::string const& name);

// The closed set of functions a file must hold for `asked`: each with the API functions its
// body calls (`constrained`: forward dynamics with constraints calls mass_matrix,
// bias_forces and generalized_forces). Empty `asked`: every function (an empty set).
std::set<std::string> functions_needed(std::vector<std::string> const& asked, bool constrained);

} // namespace lagc

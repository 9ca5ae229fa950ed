// Which names generated C++ can use: C++ keywords, the names <cmath> brings in (macros and
// global functions), and the identifiers the standard reserves. One place, used for model
// names, --namespace and parameter names (the names that appear in the generated code).
#pragma once

#include <string>

namespace lagc {

enum class cxx_name_use {
    field,     // a member of Parameters: keywords and macros break it
    namespace_ // the generated namespace: global names of <cmath> break it too
};

// Why `name` cannot be used that way in generated C++ ("a C++ keyword", "a macro of
// <cmath>", ...), or "" when it can. The name is assumed to be an identifier.
std::string cxx_name_problem(std::string const& name, cxx_name_use use);

// `name` is [A-Za-z_][A-Za-z0-9_]* with no problem for `use`.
bool is_usable_cxx_name(std::string const& name, cxx_name_use use);

bool is_cxx_keyword(std::string const& name);

} // namespace lagc

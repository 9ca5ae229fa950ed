// Stage 2: syntax trees → checked model (names, shapes, der(), built-ins, statement rules).
#pragma once

#include "model.hpp"
#include "parse.hpp"

#include <optional>

namespace lagc {

// Returns the model when there were no errors; reports every error it can find.
std::optional<model> check(std::vector<parsed_statement> const& statements, source_file const& file,
                           diagnostics& diags);

// Words a model may not use as names (statement keywords, built-ins, t, pi, C++ keywords).
bool is_reserved_word(std::string const& name);

} // namespace lagc

// Stage 2: syntax trees → checked model (names, shapes, der(), built-ins, statement rules).
#pragma once

#include "model.hpp"
#include "frontend/parse.hpp"

#include <optional>

namespace lagc {

// Budgets on the symbolic work a model may ask for (docs/cli.md, "Limits").
struct check_limits {
    std::size_t max_terms = 400000;     // nodes of one expression with its names substituted (--max-terms)
    std::size_t max_coordinates = 200; // derivation is O(n³) in them (--max-coordinates)
    bool single_precision = false;     // --scalar float: constants must fit a float, not a double
};

// Returns the model when there were no errors; reports every error it can find.
std::optional<model> check(std::vector<parsed_statement> const& statements, source_file const& file,
                           diagnostics& diags, check_limits const& limits = {},
                           std::vector<failed_statement> const& failed = {});

// Words a model may not use as names (statement keywords, built-ins, t, pi, C++ keywords).
bool is_reserved_word(std::string const& name);

} // namespace lagc

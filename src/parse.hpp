// Stage 1: source text → syntax trees, one per logical statement.
#pragma once

#include "../grammar/ast.hpp"
#include "diagnostics.hpp"

#include <vector>

namespace lagc {

struct parsed_statement {
    ast::statement node;
    span where;
};

// Splits the text into logical statements (comments removed, continuation lines
// joined) and parses each on its own, so one syntax error does not hide the next.
std::vector<parsed_statement> parse(source_file const& file, diagnostics& diags);

} // namespace lagc

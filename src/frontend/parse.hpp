// Stage 1: source text → syntax trees, one per logical statement.
#pragma once

#include "grammar/ast.hpp"
#include "common/diagnostics.hpp"

#include <string>
#include <vector>

namespace lagc {

struct parsed_statement {
    ast::statement node;
    span where;
};

// Splits the text into logical statements (comments removed, continuation lines
// joined) and parses each on its own, so one syntax error does not hide the next.
// A statement that did not parse: its first word and every name in it, so the checker
// stays silent about what the error already explains (uses of a name it declared, a
// missing `model` line, no coordinates).
struct failed_statement {
    std::string keyword;
    std::vector<std::string> names;
};

std::vector<parsed_statement> parse(source_file const& file, diagnostics& diags,
                                    std::vector<failed_statement>* failed = nullptr);

} // namespace lagc

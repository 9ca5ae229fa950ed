// --equations: parse → check → derive → the equations as a document (emit/equations.hpp),
// instead of code. No I/O here (main.cpp writes the file).
#pragma once

#include "driver/compiler.hpp"
#include "emit/equations.hpp"

#include <optional>
#include <string>

namespace lagc {

struct equations_result {
    std::optional<std::string> text; // set when there were no errors
    diagnostics diags;
};

// `text` as compile() takes it; the options used are the front end's and derivation's
// (limits, warnings, --max-derivation, --fold-parameters, emit.source_name).
// `preface`: a section put before the equations (write_equations).
equations_result compile_equations(std::string const& text, compile_options const& options, equations_format format,
                                   std::string const& preface = "");

} // namespace lagc

namespace lagc {
// The form -o asks for: .tex LaTeX, .md (or '-', standard output) Markdown; nullopt otherwise.
std::optional<equations_format> equations_format_for(std::string const& output);
} // namespace lagc

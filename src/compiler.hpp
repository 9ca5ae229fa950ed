// The whole pipeline as one call: read → parse → check → derive → emit. No I/O here,
// so tests regenerate goldens in-process and the command line only adds files.
#pragma once

#include "check.hpp"
#include "diagnostics.hpp"
#include "emit.hpp"

#include <optional>
#include <string>

namespace lagc {

struct compile_options {
    std::string source_name;      // path shown in diagnostics and the banner
    std::string header_name;      // file name of the generated header
    bool header_only = false;
    std::string scalar = "double"; // --scalar
    bool templated = false;         // --template
    std::string namespace_name;     // --namespace (default: the model's name)
    std::size_t split_operations = 2000; // --split
    bool fold_parameters = false;   // --fold-parameters
    check_limits limits;            // --max-terms
};

struct phase_times {
    double parse = 0, check = 0, derive = 0, cse = 0, emit = 0; // seconds
};

struct compile_result {
    std::optional<emitted_files> files; // set when there were no errors
    diagnostics diags;
    phase_times times;
};

inline constexpr std::size_t max_source_bytes = std::size_t(16) << 20;

compile_result compile(std::string const& text, compile_options const& options);

} // namespace lagc

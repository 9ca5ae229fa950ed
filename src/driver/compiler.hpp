// The whole pipeline as one call: read → parse → check → derive → emit. No I/O here,
// so tests regenerate goldens in-process and the command line only adds files.
#pragma once

#include "frontend/check.hpp"
#include "common/diagnostics.hpp"
#include "emit/emit.hpp"

#include <functional>
#include <optional>
#include <string>

namespace lagc {

// Every option, once, with its default: what the generated files look like (emit_options,
// which derivation and checking do not need), and what the front end takes.
struct compile_options {
    emit_options emit;          // --scalar, --template, --split, --fold-parameters, file names
    std::string namespace_name; // --namespace (default: the model's name)
    check_limits limits;        // --max-terms, --max-coordinates
    std::size_t max_derivation = 100000000; // --max-derivation: terms the derivation may build (estimated first)
    std::optional<std::vector<std::string>> regressor; // --regressor-parameters: pi's names (none: no regressor)
    warning_controls warnings;  // -w, -Wno-NAME, -Werror
    std::size_t max_stack = 0;  // --max-stack: every API function's stated stack at most this (0: no budget)
    std::size_t translation_units = 1; // --translation-units: the .cpp cut in this many files (driver)
    bool smallest_stack = false; // --target mcu: the form with the smallest stack (stack_budget.hpp)
    // Called as each step begins: "checking", "deriving the equations of motion", then
    // "generating NAME" for each generated function (may be empty).
    std::function<void(std::string const&)> progress;
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

// `text` is a model's file as read; compile() reads it as normalized_source() gives it,
// and its diagnostics are positions in that.
compile_result compile(std::string const& text, compile_options const& options);

// Without a UTF-8 byte-order mark, each lone CR an LF (the same length otherwise).
std::string normalized_source(std::string text);

} // namespace lagc

// --max-stack BYTES and --target mcu: emit in the form whose functions fit a stack budget,
// or the smallest form, choosing among the forms lagc can write (shared parts, splits).
#pragma once

#include "common/diagnostics.hpp"
#include "emit/emit.hpp"

#include <optional>

namespace lagc {

// The forms tried, in order: the options as given; without shared parts; without shared
// parts and no function cut into parts (--split 100000000). With a budget (max_stack > 0)
// the first whose every API function's stated stack (emitted_files::stack) fits it, else an
// error at `where` naming each function that fits in none, with its smallest figure; with
// `smallest` (and no budget) the form whose largest figure is the smallest. Otherwise the
// options as given.
std::optional<emitted_files> emit_within_stack(model const& m, derived const& d, emit_options const& options,
                                               std::size_t max_stack, bool smallest, span where, diagnostics& diags);

} // namespace lagc

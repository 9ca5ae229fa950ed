// Choosing the form that fits a stack budget, or the smallest (stack_budget.hpp).
#include "driver/stack_budget.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace lagc {

namespace {

// Each function's figure by the count the forms are chosen with (stack_figure::ranking).
std::map<std::string, std::size_t> rankings(std::vector<stack_figure> const& figures) {
    std::map<std::string, std::size_t> out;
    for (auto const& f : figures) out[f.name] = f.ranking;
    return out;
}

// "1,112": the figures as docs and messages write them.
std::string grouped(std::size_t n) {
    // Built forwards (insert() into the string trips GCC 12's -Wrestrict, bug 105329).
    std::string const digits = std::to_string(n);
    std::string s;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
        s += digits[i];
    }
    return s;
}

// Without shared parts, each function lagc builds written whole where that takes less stack
// than its parts (mass_matrix: the parts' scratch array w is the larger), in parts where
// not (linearization_terms: its temporaries, spilled, are). A function's figure depends on
// its own form and its callees', so each chosen alone gives every API function its least.
// Forward dynamics' terms stay as --split has them: written whole they become one function
// on local values, which linearization and the integrators then cannot share (ur5_like
// float: forward_dynamics 1,720 -> 1,188 B, linearization 2,784 -> 3,800 B).
emit_options smallest_form(model const& m, derived const& d, emit_options options) {
    options.shared_parts = false;
    emit_options whole = options;
    whole.split_operations = 100000000;
    emitted_files const in_parts = emit(m, d, options), one = emit(m, d, whole);
    auto const parts = rankings(in_parts.built_stack), whole_figures = rankings(one.built_stack);
    for (auto const& [name, bytes] : parts)
        if (name != "dynamics_terms" && whole_figures.count(name) && whole_figures.at(name) < bytes)
            options.whole.push_back(name);
    return options;
}

} // namespace

std::optional<emitted_files> emit_within_stack(model const& m, derived const& d, emit_options const& options,
                                               std::size_t max_stack, bool smallest, span where, diagnostics& diags) {
    if (max_stack == 0 && !smallest) return emit(m, d, options);
    if (max_stack == 0) return emit(m, d, smallest_form(m, d, options));
    auto fits = [&](emitted_files const& files) {
        return std::all_of(files.stack.begin(), files.stack.end(), [&](stack_figure const& f) { return f.total() <= max_stack; });
    };
    if (!smallest) {
        emitted_files as_given = emit(m, d, options);
        if (fits(as_given)) return as_given;
    }
    emitted_files least = emit(m, d, smallest_form(m, d, options));
    if (fits(least)) return least;
    for (auto const& f : least.stack)
        if (f.total() > max_stack)
            diags.error(where, "--max-stack " + grouped(max_stack) + ": '" + f.name + "' needs " + grouped(f.total()) +
                                   " bytes of stack in its smallest form (each function whole or in parts, no "
                                   "shared parts), more than the budget; raise it, or call only the functions that fit");
    return std::nullopt;
}

} // namespace lagc

// Stage 4: derived equations → C++ text (a pure function, which is what makes goldens work).
#pragma once

#include "derive/derive.hpp"
#include "emit/stack_bound.hpp"
#include "model.hpp"

#include <functional>
#include <cstdint>
#include <string>
#include <vector>

namespace lagc {

// A named constant state of the model (a robot file's keyframe): q of nq numbers, q̇ empty or
// of nq; the header holds them as keyframes::NAME_q and NAME_qd (emit/keyframes.cpp).
struct named_state {
    std::string name;
    std::vector<double> q, qd;
};

// The states as constants: C++'s `namespace keyframes { inline constexpr SCALAR NAME_q[nq] =
// {…}; }`, or with a `c_prefix` (the model's name and _) C's `extern const SCALAR
// PREFIXkeyframe_NAME_q[nq];` (its `definition` with the numbers). "" for none.
std::string keyframe_constants(std::vector<named_state> const& states, std::string const& scalar,
                               std::string const& c_prefix = "", bool definition = false);

// What the generated files look like; every default here (compile_options holds one).
struct emit_options {
    std::string source_name;             // the model's path as shown in the banner
    std::string header_name;             // the header's file name, #included by the source
    bool header_only = false;            // -o NAME.hpp
    std::string scalar = "double";       // --scalar: "double" or "float"
    bool templated = false;              // --template: functions templated on the scalar type T (header-only)
    std::size_t split_operations = 500; // --split: larger functions are cut into parts that pass shared values on
    // --reuse-above: linearization calls coriolis_matrix for its q̇ columns where C has more
    // operations than this, instead of repeating them (smaller file, a little more work).
    std::size_t reuse_operations = 8000;
    // --no-shared-parts: the functions cut into parts keep each its own, instead of calling
    // parts that compute the values several of them need once (a smaller file, a few per cent
    // more instructions per call).
    bool shared_parts = true;
    // Functions written whole whatever --split says (--max-stack, --target mcu: where that
    // takes less stack than parts do), by the names --stats gives them.
    std::vector<std::string> whole;
    bool writes_whole(std::string const& name) const {
        for (auto const& w : whole)
            if (w == name) return true;
        return false;
    }
    // --functions: the API functions the file holds, with those they call (emit/function_set.cpp);
    // empty: all of them.
    std::vector<std::string> functions;
    bool fold_parameters = false;        // --fold-parameters: parameters replaced by their defaults
    std::size_t max_operations = 1000000; // --max-operations: the largest generated function, before CSE rewrites
    // --target mcu: the source refuses to compile where sqrt would set errno (GCC and Clang
    // without -fno-math-errno: __errno, _impure_ptr and newlib's .data; mcu.tpl).
    bool no_errno = false;
    // --target mcu: each sin and cos argument through detail::reduce_angle, which keeps it
    // within the math library's short reduction (mcu.tpl#reduce_angle).
    bool reduce_angles = false;
    // linearization solves its columns two at a time where M's factor is unrolled (GCC and
    // Clang at -O2 keep each pair in one vector register); --target mcu: one at a time, the
    // smaller code.
    bool paired_solves = true;
    // --regressor base: inverse_dynamics_regressor_base and base_parameters beside the
    // regressor (derived::base, derive/base_parameters.cpp; emit/base_regressor.cpp).
    bool base_regressor = false;
    bool c_api = false;                  // --c-api: a C header and extern "C" wrappers in the .cpp
    // -o NAME.c: C99, the C interface's header (header_name, NAME.h) and a .c that defines it
    bool c_output = false;
    std::string c_header_name;           // the C header's file name (NAME.h), with c_api
    // A robot file's keyframes (set by the driver from the file's <keyframe>).
    std::vector<named_state> keyframes;
    // Called with each generated function's name as its building begins (may be empty).
    std::function<void(std::string const&)> progress;
};

struct function_stats {
    std::string name;
    double operations_before_cse = 0;
    std::size_t operations_after_cse = 0;
    std::size_t temporaries = 0;
    std::size_t parts = 1;
    double seconds = 0; // building it: conversion, differentiation, sharing and factoring
};

// How a function lagc can write several ways was written (emit/choose.cpp): the method
// chosen, why, and each method of its closed list in order: its operations where it was
// built and scored (forward dynamics' closed form with its factorisation and solves), else
// why it was not.
struct method_choice {
    std::string function; // "forward_dynamics", "coriolis_matrix"
    std::string method;   // the chosen one's name
    std::string rule;     // why it won
    struct entry {
        std::string method;
        std::size_t operations = 0; // 0: not built
        std::string note;           // why not applicable or not built
    };
    std::vector<entry> trace;
};
// How derive formed M and h (derived::mass_bias), as a choice of the same shape.
method_choice mass_bias_choice_of(derived const& d);
// The choice as `--explain` prints it, a line per method after a headline.
std::string explain(method_choice const& choice);

struct emitted_files {
    std::string header;
    std::string source; // empty when header_only
    std::string c_header; // with c_api: the C interface
    std::vector<function_stats> stats;
    // Each API function's arrays on the stack, with those of the functions it calls (bytes).
    std::vector<std::pair<std::string, std::size_t>> stack_bounds;
    // Each API function's stack need as the header states it (stack_bound.hpp): arrays,
    // temporaries and the margins, its calls included.
    std::vector<stack_figure> stack;
    // The same for every function --stats names that is defined (helpers as well).
    std::vector<stack_figure> built_stack;
    // Operations in the file: each function's once, except that the functions cut into parts
    // hold the values several of them need once, in parts they share (shared_operations).
    std::size_t operations = 0, shared_operations = 0;
    double cse_seconds = 0; // building the shared expression graphs (conversion and CSE)
    fd_method forward_dynamics = fd_method::closed_form; // the method forward_dynamics was written by
    std::vector<method_choice> choices; // every function written by a method chosen among several
};

emitted_files emit(model const& m, derived const& d, emit_options const& options);

// A 64-bit hash of the text that is the same on every machine and in every run (the
// header's pair_stamp).
std::uint64_t stable_hash(std::string const& text);

// Renders a template with named values; throws fmt::format_error on a missing name.
std::string render(std::string_view template_name, std::vector<std::pair<std::string, std::string>> const& values);

} // namespace lagc

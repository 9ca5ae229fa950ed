// --translation-units N: a generated .cpp cut into N translation units that compile in
// parallel (docs/cli.md). A pure function of the source's text, as lagc writes it.
#pragma once

#include <string>
#include <vector>

namespace lagc {

// The source's functions in N units of about equal size, in the source's order: unit 1
// holds the first ones (and, after the model's namespace, the C interface's wrappers, if
// any), unit N the last. Every unit holds the source's head (includes, the header's stamp
// check), its templates, inline and small helpers and macros, and a declaration of every function
// that had internal linkage (its parts, its helpers): these get external linkage (hidden
// visibility where the compiler has it) so that a unit calls those another one defines.
// n = 1 gives the source unchanged. The split is deterministic (the goldens' rule).
std::vector<std::string> translation_units(std::string const& source, int n);

// The file name of unit k (1-based) of `-o path`: path itself for k = 1, else
// "dir/NAME.k.cpp" for "dir/NAME.cpp".
std::string translation_unit_path(std::string const& path, int k);

} // namespace lagc

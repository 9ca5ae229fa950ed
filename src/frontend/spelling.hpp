// "Did you mean": the closest of some names to a misspelt one, by edit distance.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace lagc {

// Levenshtein distance with adjacent transpositions counted as one edit.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `name` when it is near enough to be a slip (at most one edit
// for names up to four characters, two up to eight, three beyond), ties going to the first
// candidate in order; "" when none is. `name` itself never matches.
std::string closest_name(std::string_view name, std::vector<std::string_view> const& candidates);

// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view name, std::vector<std::string_view> const& candidates);

} // namespace lagc

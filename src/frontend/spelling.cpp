// "Did you mean" (spelling.hpp).
#include "frontend/spelling.hpp"

#include <algorithm>

namespace lagc {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::size_t const n = a.size(), m = b.size();
    std::vector<std::size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
    for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
    for (std::size_t i = 1; i <= n; ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= m; ++j) {
            std::size_t const cost = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) cur[j] = std::min(cur[j], prev2[j - 2] + 1);
        }
        prev2.swap(prev);
        prev.swap(cur);
    }
    return prev[m];
}

std::string closest_name(std::string_view name, std::vector<std::string_view> const& candidates) {
    // One or two letters say too little to guess from; nobody misspells 64 characters.
    if (name.size() < 3 || name.size() > 64) return "";
    std::size_t const allowed = name.size() <= 4 ? 1 : name.size() <= 8 ? 2 : 3;
    std::size_t best = allowed + 1;
    std::string_view found;
    for (auto c : candidates) {
        if (c == name || c.empty() || c.size() > name.size() + allowed || c.size() + allowed < name.size()) continue;
        std::size_t const d = edit_distance(name, c);
        if (d < best) best = d, found = c;
    }
    return std::string(found);
}

std::string did_you_mean(std::string_view name, std::vector<std::string_view> const& candidates) {
    std::string const c = closest_name(name, candidates);
    return c.empty() ? "" : " (did you mean '" + c + "'?)";
}

} // namespace lagc

// Notes counted by kind: a file that gives 24 joints a frictionloss gets one note, "24
// joints' frictionloss is left out", at the first one's line, not 24 notes.
#include "import/robot.hpp"

#include <map>

namespace lagc::import {

void robot_def::counted_note(int line, std::string const& one, std::string const& many) {
    note(line, one);
    messages.back().many = many;
}

void merge_notes(robot_def& r) {
    std::map<std::string, std::size_t> first, count; // by kind: the first note's index, how many
    for (std::size_t i = 0; i < r.messages.size(); ++i) {
        auto const& m = r.messages[i];
        if (m.many.empty()) continue;
        first.emplace(m.many, i);
        ++count[m.many];
    }
    std::vector<message> kept;
    for (std::size_t i = 0; i < r.messages.size(); ++i) {
        message m = r.messages[i];
        if (!m.many.empty()) {
            if (first.at(m.many) != i) continue;
            std::size_t const n = count.at(m.many);
            if (n > 1) {
                std::string text = m.many;
                std::size_t const at = text.find("%N");
                if (at != std::string::npos) text.replace(at, 2, std::to_string(n));
                m.text = shown(text, 1000) + " (the first here)";
            }
            m.many.clear();
        }
        kept.push_back(std::move(m));
    }
    r.messages = std::move(kept);
}

} // namespace lagc::import

// Printing diagnostics with file, line, column, the source line and a caret.
#include "common/diagnostics.hpp"

#include <algorithm>

namespace lagc {

namespace {
bool is_continuation_byte(unsigned char c) { return (c & 0xC0) == 0x80; }
} // namespace

source_file::source_file(std::string path, std::string text) : path_(std::move(path)), text_(std::move(text)) {
    line_starts_.push_back(0);
    for (std::size_t i = 0; i < text_.size(); ++i)
        if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

source_file::location source_file::locate(std::size_t offset) const {
    offset = std::min(offset, text_.size());
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    std::size_t line = static_cast<std::size_t>(it - line_starts_.begin());
    std::size_t start = line_starts_[line - 1];
    std::size_t column = 1;
    for (std::size_t i = start; i < offset; ++i)
        if (!is_continuation_byte(static_cast<unsigned char>(text_[i]))) ++column;
    return {line, column};
}

std::string_view source_file::line_text(std::size_t line) const {
    if (line == 0 || line > line_starts_.size()) return {};
    std::size_t start = line_starts_[line - 1];
    std::size_t end = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
    if (end > start && text_[end - 1] == '\r') --end;
    return std::string_view(text_).substr(start, end - start);
}

std::string_view flag_name(warning_kind kind) {
    switch (kind) {
    case warning_kind::kinetic_without_velocity: return "kinetic-without-velocity";
    case warning_kind::indefinite_mass_matrix: return "indefinite-mass-matrix";
    case warning_kind::zero_constraint: return "zero-constraint";
    case warning_kind::over_determined: return "over-determined";
    case warning_kind::singular_mass_matrix: return "singular-mass-matrix";
    case warning_kind::coriolis: return "coriolis";
    case warning_kind::invented_values: return "invented-values";
    case warning_kind::underflow: return "underflow";
    }
    return "";
}

std::vector<std::string_view> const& warning_flags() {
    static std::vector<std::string_view> const names = [] {
        std::vector<std::string_view> v;
        for (int k = 0; k <= static_cast<int>(warning_kind::underflow); ++k) v.push_back(flag_name(static_cast<warning_kind>(k)));
        return v;
    }();
    return names;
}

void diagnostics::add(severity level, span where, std::string message, std::string flag) {
    if (level != severity::error) {
        if (controls_.none && !controls_.as_errors) return;
        if (std::find(controls_.disabled.begin(), controls_.disabled.end(), flag) != controls_.disabled.end())
            return;
        if (level == severity::warning && controls_.as_errors) {
            level = severity::error;
            flag = "error=" + flag;
        } else if (controls_.none) {
            return;
        }
    }
    if (level == severity::error) ++errors_;
    if (controls_.max_shown != 0 && items_.size() >= controls_.max_shown) {
        ++(level == severity::error ? dropped_errors_ : dropped_others_);
        return;
    }
    items_.push_back({level, where, std::move(message), std::move(flag)});
}

namespace {
char const* severity_word(severity s) {
    switch (s) {
    case severity::error: return "error";
    case severity::warning: return "warning";
    case severity::note: return "note";
    }
    return "error";
}

// Bytes that would garble a terminal (control characters, invalid UTF-8) print as '?';
// a well-formed UTF-8 character prints as itself.
std::size_t utf8_length(std::string_view s, std::size_t i) {
    unsigned char const c = static_cast<unsigned char>(s[i]);
    std::size_t const n = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (c >= 0xF5 || n == 0 || i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k)
        if (!is_continuation_byte(static_cast<unsigned char>(s[i + k]))) return 0;
    return n;
}

std::string printable(std::string_view line) {
    std::string out;
    out.reserve(line.size());
    for (std::size_t i = 0; i < line.size(); ++i) {
        unsigned char const c = static_cast<unsigned char>(line[i]);
        if (c >= 0x80) {
            std::size_t const n = utf8_length(line, i);
            if (n > 0) {
                out.append(line.substr(i, n));
                i += n - 1;
            } else {
                out += '?';
            }
            continue;
        }
        out += (c == '\t' || c >= 0x20) && c != 0x7F ? char(c) : '?';
    }
    return out;
}
} // namespace

std::string format_diagnostic(source_file const& file, diagnostic const& d) {
    auto loc = file.locate(d.where.begin);
    std::string out = file.path() + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + ": " +
                      severity_word(d.level) + ": " + d.message +
                      (d.flag.empty() ? "" : " [-W" + d.flag + "]") + "\n";
    std::string line = printable(file.line_text(loc.line));
    if (line.size() > 200) return out; // a caret under an enormous line helps nobody
    out += "  " + line + "\n  ";
    // One blank per character before the column (a tab stays a tab, so the caret lines up).
    std::size_t column = 1;
    for (std::size_t i = 0; i < line.size() && column < loc.column; ++i) {
        if (is_continuation_byte(static_cast<unsigned char>(line[i]))) continue;
        out += line[i] == '\t' ? '\t' : ' ';
        ++column;
    }
    // Underline the span on its first line, at least one caret.
    auto end_loc = file.locate(std::max(d.where.end, d.where.begin + 1));
    std::size_t width = end_loc.line == loc.line && end_loc.column > loc.column ? end_loc.column - loc.column : 1;
    out += '^';
    if (width > 1) out += std::string(width - 1, '~');
    out += '\n';
    return out;
}

std::string diagnostics::format(source_file const& file) const {
    std::string out;
    for (auto const& d : items_) out += format_diagnostic(file, d);
    if (dropped_errors_ + dropped_others_ > 0)
        out += "lagc: " + std::to_string(dropped_errors_) + " more error" + (dropped_errors_ == 1 ? "" : "s") + " and " +
               std::to_string(dropped_others_) + " more warning" + (dropped_others_ == 1 ? "" : "s") +
               " or notes not shown (the first " + std::to_string(controls_.max_shown) +
               " are; --max-diagnostics N shows more, 0 all)\n";
    return out;
}

} // namespace lagc

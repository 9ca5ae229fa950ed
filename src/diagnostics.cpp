// Printing diagnostics with file, line, column, the source line and a caret.
#include "diagnostics.hpp"

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

void diagnostics::add(severity level, span where, std::string message) {
    if (level == severity::error) ++errors_;
    items_.push_back({level, where, std::move(message)});
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

// Bytes that would garble a terminal (control characters, invalid UTF-8) print as '?'.
std::string printable(std::string_view line) {
    std::string out;
    out.reserve(line.size());
    for (unsigned char c : line) out += (c == '\t' || c >= 0x20) && c != 0x7F && c < 0x80 ? char(c) : '?';
    return out;
}
} // namespace

std::string format_diagnostic(source_file const& file, diagnostic const& d) {
    auto loc = file.locate(d.where.begin);
    std::string out = file.path() + ":" + std::to_string(loc.line) + ":" + std::to_string(loc.column) + ": " +
                      severity_word(d.level) + ": " + d.message + "\n";
    std::string line = printable(file.line_text(loc.line));
    if (line.size() > 200) return out; // a caret under an enormous line helps nobody
    out += "  " + line + "\n  ";
    for (std::size_t c = 1; c < loc.column && c <= line.size(); ++c) out += line[c - 1] == '\t' ? '\t' : ' ';
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
    return out;
}

} // namespace lagc

// Diagnostics are data: {severity, byte span, message}; line and column are computed
// only when printing `file:line:col: error: message`, the source line and a caret.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace lagc {

struct span {
    std::size_t begin = 0;
    std::size_t end = 0;
};

enum class severity { error, warning, note };

struct diagnostic {
    severity level = severity::error;
    span where;
    std::string message;
    std::string flag; // warnings and notes: the name -Wno-NAME silences ("kinetic-without-velocity")
};

// Which warnings and notes are shown: -w (none), -Wno-NAME (not this one), -Werror
// (warnings become errors). Errors are always shown.
struct warning_controls {
    bool none = false;
    bool as_errors = false;
    std::vector<std::string> disabled;
    std::size_t max_shown = 100; // --max-diagnostics: the most kept and printed (0: all)
};

// Every kind of warning and note lagc gives. A warning or note is reported with its kind,
// so none can be given that -Wno-NAME does not know.
enum class warning_kind {
    kinetic_without_velocity,
    indefinite_mass_matrix,
    zero_constraint,
    over_determined,
    singular_mass_matrix,
    coriolis,
    invented_values,
    underflow,
};
// The kind's name after -W ("kinetic-without-velocity").
std::string_view flag_name(warning_kind kind);
// Every kind's name, in the order of the enumeration.
std::vector<std::string_view> const& warning_flags();

// The text of one input with its line table.
class source_file {
public:
    source_file(std::string path, std::string text);

    std::string const& path() const { return path_; }
    std::string const& text() const { return text_; }

    // 1-based line and column (columns count characters, not bytes).
    struct location {
        std::size_t line = 1;
        std::size_t column = 1;
    };
    location locate(std::size_t offset) const;
    std::string_view line_text(std::size_t line) const;

private:
    std::string path_;
    std::string text_;
    std::vector<std::size_t> line_starts_;
};

class diagnostics {
public:
    void error(span where, std::string message) { add(severity::error, where, std::move(message)); }
    void warning(span where, std::string message, warning_kind kind) {
        add(severity::warning, where, std::move(message), std::string(flag_name(kind)));
    }
    void note(span where, std::string message, warning_kind kind) {
        add(severity::note, where, std::move(message), std::string(flag_name(kind)));
    }
    void add(severity level, span where, std::string message, std::string flag = {});
    void set_controls(warning_controls c) { controls_ = std::move(c); }

    bool has_errors() const { return errors_ > 0; }
    std::vector<diagnostic> const& items() const { return items_; }

    // Every diagnostic in the order reported, each with its source line and a caret.
    std::string format(source_file const& file) const;

private:
    std::vector<diagnostic> items_;
    std::size_t errors_ = 0;
    std::size_t dropped_errors_ = 0, dropped_others_ = 0; // past max_shown: counted, not kept
    warning_controls controls_;
};

std::string format_diagnostic(source_file const& file, diagnostic const& d);

} // namespace lagc

// Stage 1: splitting into logical statements and running the X3 statement grammar.
#include "frontend/parse.hpp"

#include "grammar/config.hpp"
#include "grammar/grammar.hpp"
#include "builtins.hpp"
#include "frontend/spelling.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace lagc {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// A copy of the text of the same length in which comments and carriage returns are
// blanks and continuation newlines are spaces, so byte offsets stay those of the file.
struct logical_lines {
    std::string masked;
    std::vector<span> statements;
    std::vector<std::size_t> unclosed; // per statement: the innermost bracket left open, or npos
};

// The keywords that start a statement: all but 'on' and 'at'.
std::vector<std::string_view> const& statement_starters() {
    static std::vector<std::string_view> const starters = [] {
        std::vector<std::string_view> v;
        for (auto w : statement_keywords())
            if (w != "on" && w != "at") v.push_back(w);
        return v;
    }();
    return starters;
}

bool is_statement_keyword(std::string_view word) {
    auto const& k = statement_starters();
    return std::find(k.begin(), k.end(), word) != k.end();
}

// The end of the name that starts at `at` (letters, digits, '_'); `at` if none does.
std::size_t name_end(std::string const& m, std::size_t at, std::size_t end) {
    while (at < end && (std::isalnum(static_cast<unsigned char>(m[at])) || m[at] == '_')) ++at;
    return at;
}

// The word that starts the next non-blank line after offset i (a newline), or "".
std::string_view next_line_word(std::string const& m, std::size_t i) {
    while (i < m.size() && std::isspace(static_cast<unsigned char>(m[i]))) ++i;
    return std::string_view(m).substr(i, name_end(m, i, m.size()) - i);
}

logical_lines split_statements(std::string const& text) {
    logical_lines out;
    out.masked = text;
    std::string& m = out.masked;
    bool in_comment = false;
    for (char& c : m) {
        if (c == '\n') in_comment = false;
        else if (c == '#') in_comment = true;
        if ((in_comment && c != '\n') || c == '\r') c = ' ';
    }
    std::vector<std::size_t> open; // offsets of the open brackets
    std::size_t start = 0;
    // The next line's first word, found once for a run of blank lines (linear time).
    std::size_t word_at = 0;
    std::string_view word;
    auto next_word = [&](std::size_t i) {
        if (i >= word_at) {
            word_at = i;
            while (word_at < m.size() && std::isspace(static_cast<unsigned char>(m[word_at]))) ++word_at;
            word = next_line_word(m, word_at);
        }
        return word;
    };
    char last = '\0'; // the last character of the statement so far that is not blank (linear time)
    auto flush = [&](std::size_t end) {
        std::size_t b = start, e = end;
        while (b < e && std::isspace(static_cast<unsigned char>(m[b]))) ++b;
        while (e > b && std::isspace(static_cast<unsigned char>(m[e - 1]))) --e;
        if (b < e) {
            out.statements.push_back({b, e});
            out.unclosed.push_back(open.empty() ? std::string::npos : open.back());
        }
        open.clear();
    };
    for (std::size_t i = 0; i < m.size(); ++i) {
        char c = m[i];
        if (c != '\n' && !is_blank(c)) last = c;
        if (c == '(' || c == '[') open.push_back(i);
        else if ((c == ')' || c == ']') && !open.empty()) open.pop_back();
        else if (c == '\n') {
            // A line that starts with a statement keyword starts a statement, whatever the
            // line before left open: an unclosed bracket or a trailing operator is then
            // reported where it is, not as a surprise in the next statement.
            bool continues = (!open.empty() || last == '+' || last == '-' || last == '*' || last == '/' ||
                              last == '^' || last == ',' || last == '=') &&
                             !is_statement_keyword(next_word(i + 1));
            if (continues) {
                m[i] = ' ';
            } else {
                flush(i);
                start = i + 1;
                last = '\0';
            }
        }
    }
    flush(m.size());
    return out;
}

// A UTF-8 character at text[at]: its code point and length, or length 0 if malformed.
std::pair<unsigned, std::size_t> utf8_at(std::string const& text, std::size_t at, std::size_t end) {
    unsigned char const c = static_cast<unsigned char>(text[at]);
    std::size_t const n = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || at + n > end) return {0, 0};
    unsigned cp = c & (0x7F >> n);
    for (std::size_t k = 1; k < n; ++k) {
        unsigned char const b = static_cast<unsigned char>(text[at + k]);
        if ((b & 0xC0) != 0x80) return {0, 0};
        cp = (cp << 6) | (b & 0x3F);
    }
    return {cp, n};
}

// How a Greek letter is spelled in ASCII, or "" (θ → theta, Ω → Omega).
std::string greek_name(unsigned cp) {
    static char const* const names[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
                                        "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho",
                                        "sigma", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega"};
    if (cp >= 0x3B1 && cp <= 0x3C9) return names[cp - 0x3B1];
    if (cp >= 0x391 && cp <= 0x3A9 && cp != 0x3A2) {
        std::string n = names[cp - 0x391];
        n[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(n[0])));
        return n;
    }
    if (cp == 0x3D5) return "phi";
    if (cp == 0x3D1) return "theta";
    return "";
}

std::string describe_token(std::string const& text, std::size_t at, std::size_t end) {
    if (at >= end) return "end of statement";
    unsigned char c = static_cast<unsigned char>(text[at]);
    if (std::isalnum(c) || c == '_' || c == '.') {
        std::size_t e = at;
        while (e < end && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_' || text[e] == '.'))
            ++e;
        std::string quoted = "'";
        quoted.append(text, at, std::min<std::size_t>(e - at, 40));
        quoted += '\'';
        return quoted;
    }
    if (c >= 0x80) {
        auto [cp, n] = utf8_at(text, at, end);
        if (n > 0) {
            std::string const ascii = greek_name(cp);
            std::string const spell = ascii.empty() || ascii == "pi" ? "" : "; write '" + ascii + "'";
            return fmt::format("'{}' (U+{:04X}; names are ASCII letters, digits and '_'{})", text.substr(at, n), cp,
                               spell);
        }
    }
    if (c < 0x20 || c >= 0x7F) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "byte 0x%02X (not part of the language)", c);
        return buf;
    }
    std::string quoted = "'";
    quoted += char(c);
    quoted += '\'';
    return quoted;
}

std::size_t token_end(std::string const& text, std::size_t at, std::size_t end) {
    std::size_t e = at;
    while (e < end && (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '_' || text[e] == '.')) ++e;
    if (e == at && at < end && static_cast<unsigned char>(text[at]) >= 0x80) {
        auto [cp, n] = utf8_at(text, at, end);
        if (n > 0) return at + n;
    }
    return e > at ? e : std::min(at + 1, end);
}

// What a slip from another language means here, for the token at `at`: "" if nothing.
std::string hint_at(std::string const& m, std::size_t at, std::size_t begin, std::size_t end) {
    if (at >= end) return "";
    char const c = m[at];
    char const before = at > begin ? m[at - 1] : '\0', after = at + 1 < end ? m[at + 1] : '\0';
    if (c == '*' && (before == '*' || after == '*')) return " ('**' is not an operator: a power is written x^2)";
    if (c == '=' && (before == '=' || after == '='))
        return " ('==' is not an operator: an equation is written 'constraint LHS = RHS', with one '=')";
    if (c == ';') return " (a statement ends at the end of its line; no ';' is needed)";
    std::size_t p = at;
    while (p > begin && std::isspace(static_cast<unsigned char>(m[p - 1]))) --p;
    bool const word_before = p > begin && (std::isalnum(static_cast<unsigned char>(m[p - 1])) || m[p - 1] == '_');
    if (word_before && p < at && (std::isalpha(static_cast<unsigned char>(c)) || c == '_')) {
        std::string_view const first = std::string_view(m).substr(begin, name_end(m, begin, end) - begin);
        bool const list = first == "coordinate" || first == "input" || first == "parameter";
        return list ? " (names in a list are separated by commas)" : " (a missing operator?)";
    }
    return "";
}

std::size_t skip_spaces(std::string const& text, std::size_t at, std::size_t end) {
    while (at < end && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
    return at;
}

// An upper bound on the parser's recursion depth for one statement: each open bracket
// nests one level, and inside a bracket a chain of '^' and prefix signs (-x^-y^-z) nests
// one level per link; a binary + - * / or a comma ends the chain (the parser returns
// before the next operand), so x^2 + x^2 + ... stays shallow however long it is.
std::size_t nesting_bound(std::string const& m, span s) {
    std::vector<std::size_t> chain{0}; // per open bracket, the current chain's length
    std::size_t total = 0, deepest = 0;  // total: open brackets plus every open chain
    char previous = '(';
    for (std::size_t i = s.begin; i < s.end; ++i) {
        char c = m[i];
        if (std::isspace(static_cast<unsigned char>(c))) continue;
        bool const prefix_sign = (c == '-' || c == '+') && std::strchr("([+-*/^,=", previous);
        if (c == '(' || c == '[') {
            chain.push_back(0);
            ++total;
        } else if ((c == ')' || c == ']') && chain.size() > 1) {
            total -= chain.back() + 1;
            chain.pop_back();
        } else if (c == '^' || prefix_sign) {
            ++chain.back();
            ++total;
        } else if (std::strchr("+-*/,=", c)) {
            total -= chain.back();
            chain.back() = 0;
        }
        deepest = std::max(deepest, total);
        previous = c;
    }
    return deepest;
}

// "model, parameter, ..., baumgarte or output": the keywords that start a statement.
std::string statement_list() {
    auto const& starters = statement_starters();
    std::string s;
    for (std::size_t i = 0; i < starters.size(); ++i)
        s.append(i == 0 ? "" : i + 1 == starters.size() ? " or " : ", ").append(starters[i]);
    return s;
}

} // namespace

std::size_t const max_nesting = 200;

namespace {

// The first word of a statement and every name in it.
failed_statement names_of(std::string const& m, span s) {
    failed_statement f;
    for (std::size_t i = s.begin; i < s.end;) {
        unsigned char const c = static_cast<unsigned char>(m[i]);
        if (std::isalpha(c) || c == '_') {
            std::size_t const e = name_end(m, i, s.end);
            std::string word = m.substr(i, e - i);
            if (f.keyword.empty() && f.names.empty()) f.keyword = word;
            f.names.push_back(std::move(word));
            i = e;
        } else if (std::isdigit(c) || c == '.') {
            while (i < s.end && (std::isalnum(static_cast<unsigned char>(m[i])) || m[i] == '.')) ++i;
        } else {
            ++i;
        }
    }
    return f;
}

// " (did you mean 'kinetic'?)" for a statement that starts with a misspelt keyword.
std::string keyword_suggestion(std::string const& m, span s) {
    return did_you_mean(std::string_view(m).substr(s.begin, name_end(m, s.begin, s.end) - s.begin), statement_starters());
}

} // namespace

std::vector<parsed_statement> parse(source_file const& file, diagnostics& diags, std::vector<failed_statement>* failed) {
    namespace x3 = boost::spirit::x3;
    logical_lines lines = split_statements(file.text());
    std::string const& m = lines.masked;
    std::vector<parsed_statement> out;
    parser::position_tagger const tagger{m.begin()};
    auto const grammar = x3::with<x3::error_handler_tag>(std::cref(tagger))[statement_rule()];

    for (std::size_t k = 0; k < lines.statements.size(); ++k) {
        span const s = lines.statements[k];
        auto fail = [&](span where, std::string message) {
            diags.error(where, std::move(message));
            if (failed) failed->push_back(names_of(m, s));
        };
        if (std::size_t const b = lines.unclosed[k]; b != std::string::npos) {
            fail({b, b + 1}, std::string("this '") + m[b] + "' is never closed (its statement ends on line " +
                                 std::to_string(file.locate(s.end).line) + ")");
            continue;
        }
        if (nesting_bound(m, s) > max_nesting) {
            fail({s.begin, s.begin + 1},
                 "this statement nests brackets, powers and signs more than " + std::to_string(max_nesting) +
                     " levels deep");
            continue;
        }
        auto first = m.begin() + static_cast<std::ptrdiff_t>(s.begin);
        auto const last = m.begin() + static_cast<std::ptrdiff_t>(s.end);
        ast::statement node;
        try {
            bool ok = x3::phrase_parse(first, last, grammar, x3::ascii::space, node);
            std::size_t at = skip_spaces(m, static_cast<std::size_t>(first - m.begin()), s.end);
            if (!ok) {
                fail({s.begin, token_end(m, s.begin, s.end)}, "expected a statement (" + statement_list() +
                                                                   "), found " + describe_token(m, s.begin, s.end) +
                                                                   keyword_suggestion(m, s));
                continue;
            }
            if (at != s.end) {
                fail({at, token_end(m, at, s.end)}, "unexpected " + describe_token(m, at, s.end) +
                                                        " after a complete statement" + hint_at(m, at, s.begin, s.end));
                continue;
            }
            out.push_back({std::move(node), s});
        } catch (x3::expectation_failure<parser::iterator_type> const& e) {
            std::size_t at = skip_spaces(m, static_cast<std::size_t>(e.where() - m.begin()), s.end);
            if (e.which() == "number-end") {
                // Point back at the start of the malformed number.
                std::size_t b = at;
                while (b > s.begin && (std::isalnum(static_cast<unsigned char>(m[b - 1])) || m[b - 1] == '.' ||
                                       m[b - 1] == '_'))
                    --b;
                fail({b, token_end(m, b, s.end)}, "malformed number " + describe_token(m, b, s.end));
            } else {
                // Every rule has a plain-words name; anything else (a mangled C++ type
                // name from an unnamed parser) must never reach a user.
                std::string what = e.which();
                bool plain = !what.empty() && what.size() < 60 && what.find("boost") == std::string::npos &&
                             what.find("spirit") == std::string::npos;
                fail({at, token_end(m, at, s.end)}, "expected " + (plain ? what : std::string("a well-formed statement")) +
                                                        ", found " + describe_token(m, at, s.end) +
                                                        hint_at(m, at, s.begin, s.end));
            }
        }
    }
    return out;
}

} // namespace lagc

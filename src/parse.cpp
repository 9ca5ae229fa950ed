// Stage 1: splitting into logical statements and running the X3 statement grammar.
#include "parse.hpp"

#include "../grammar/config.hpp"
#include "../grammar/grammar.hpp"
#include "builtins.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

namespace lagc {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// A copy of the text of the same length in which comments and carriage returns are
// blanks and continuation newlines are spaces, so byte offsets stay those of the file.
struct logical_lines {
    std::string masked;
    std::vector<span> statements;
};

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
    int depth = 0;
    std::size_t start = 0;
    char last = '\0'; // the last character of the statement so far that is not blank (linear time)
    auto flush = [&](std::size_t end) {
        std::size_t b = start, e = end;
        while (b < e && std::isspace(static_cast<unsigned char>(m[b]))) ++b;
        while (e > b && std::isspace(static_cast<unsigned char>(m[e - 1]))) --e;
        if (b < e) out.statements.push_back({b, e});
    };
    for (std::size_t i = 0; i < m.size(); ++i) {
        char c = m[i];
        if (c != '\n' && !is_blank(c)) last = c;
        if (c == '(' || c == '[') ++depth;
        else if ((c == ')' || c == ']') && depth > 0) --depth;
        else if (c == '\n') {
            bool continues = depth > 0 || last == '+' || last == '-' || last == '*' || last == '/' ||
                             last == '^' || last == ',' || last == '=';
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
    return e > at ? e : std::min(at + 1, end);
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
    std::vector<std::string_view> starters;
    for (auto w : statement_keywords())
        if (w != "on" && w != "at") starters.push_back(w);
    std::string s;
    for (std::size_t i = 0; i < starters.size(); ++i)
        s.append(i == 0 ? "" : i + 1 == starters.size() ? " or " : ", ").append(starters[i]);
    return s;
}

} // namespace

std::size_t const max_nesting = 200;

std::vector<parsed_statement> parse(source_file const& file, diagnostics& diags) {
    namespace x3 = boost::spirit::x3;
    logical_lines lines = split_statements(file.text());
    std::string const& m = lines.masked;
    std::vector<parsed_statement> out;
    parser::position_tagger const tagger{m.begin()};
    auto const grammar = x3::with<x3::error_handler_tag>(std::cref(tagger))[statement_rule()];

    for (span s : lines.statements) {
        if (nesting_bound(m, s) > max_nesting) {
            diags.error({s.begin, s.begin + 1}, "this statement nests brackets, powers and signs more than " +
                                                    std::to_string(max_nesting) + " levels deep");
            continue;
        }
        auto first = m.begin() + static_cast<std::ptrdiff_t>(s.begin);
        auto const last = m.begin() + static_cast<std::ptrdiff_t>(s.end);
        ast::statement node;
        try {
            bool ok = x3::phrase_parse(first, last, grammar, x3::ascii::space, node);
            std::size_t at = skip_spaces(m, static_cast<std::size_t>(first - m.begin()), s.end);
            if (!ok) {
                diags.error({s.begin, token_end(m, s.begin, s.end)},
                            "expected a statement (" + statement_list() + "), found " + describe_token(m, s.begin, s.end));
                continue;
            }
            if (at != s.end) {
                diags.error({at, token_end(m, at, s.end)},
                            "unexpected " + describe_token(m, at, s.end) + " after a complete statement");
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
                diags.error({b, token_end(m, b, s.end)}, "malformed number " + describe_token(m, b, s.end));
            } else {
                // Every rule has a plain-words name; anything else (a mangled C++ type
                // name from an unnamed parser) must never reach a user.
                std::string what = e.which();
                bool plain = !what.empty() && what.size() < 60 && what.find("boost") == std::string::npos &&
                             what.find("spirit") == std::string::npos;
                diags.error({at, token_end(m, at, s.end)},
                            "expected " + (plain ? what : std::string("a well-formed statement")) + ", found " +
                                describe_token(m, at, s.end));
            }
        }
    }
    return out;
}

} // namespace lagc

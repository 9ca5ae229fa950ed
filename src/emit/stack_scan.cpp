// Hand scanners for the stack figures (stack_scan.hpp): each finds what its regex found,
// backtracking included where it could change a match.
#include "emit/stack_scan.hpp"

#include <cctype>

namespace lagc::stack_scan {

namespace {

using view = std::string_view;

bool word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }
bool digit(char c) { return c >= '0' && c <= '9'; }

std::size_t word_end(view s, std::size_t at) {
    while (at < s.size() && word(s[at])) ++at;
    return at;
}
std::size_t space_end(view s, std::size_t at) {
    while (at < s.size() && space(s[at])) ++at;
    return at;
}
bool starts_word(view s, std::size_t at) { return at < s.size() && word(s[at]) && (at == 0 || !word(s[at - 1])); }
bool has(view s, std::size_t at, view what) { return s.substr(std::min(at, s.size()), what.size()) == what; }
// " = ", " += " or " -= " at `at`: a store, not a read.
bool assignment_at(view s, std::size_t at) { return has(s, at, " = ") || has(s, at, " += ") || has(s, at, " -= "); }

// `\w+\[\d+\]` at a word's start: its end, or npos.
std::size_t indexed_end(view s, std::size_t at) {
    std::size_t const r = word_end(s, at);
    if (r >= s.size() || s[r] != '[') return view::npos;
    std::size_t d = r + 1;
    while (d < s.size() && digit(s[d])) ++d;
    return d > r + 1 && d < s.size() && s[d] == ']' ? d + 1 : view::npos;
}

// `p\.\w+` at a word's start: its end (greedy), or npos.
std::size_t parameter_end(view s, std::size_t at) {
    if (!has(s, at, "p.") || at + 2 >= s.size() || !word(s[at + 2])) return view::npos;
    return word_end(s, at + 2);
}

// `\s*(\w+)\s*=\s*([^,]+)` matched at `at` (a regex search tries every start).
bool constant_at(view list, std::size_t at, std::pair<std::string, std::string>& out, std::size_t& end) {
    std::size_t const w = space_end(list, at), r = word_end(list, w);
    if (r == w) return false;
    std::size_t const eq = space_end(list, r);
    if (eq >= list.size() || list[eq] != '=') return false;
    std::size_t v = space_end(list, eq + 1);
    if (v >= list.size() || list[v] == ',') {
        if (v == eq + 1) return false;
        --v; // \s* gives its last blank to [^,]+
    }
    std::size_t const comma = list.find(',', v + 1);
    end = comma == view::npos ? list.size() : comma;
    out = {std::string(list.substr(w, r - w)), std::string(list.substr(v, end - v))};
    return true;
}

// The declaration of arrays whose (^|\n) is at `at` (0 or a newline): group 1's span.
bool declaration_at(view body, std::size_t at, std::size_t& begin, std::size_t& semi) {
    std::size_t q = space_end(body, at == 0 && (body.empty() || body[0] != '\n') ? 0 : at + 1);
    if (has(body, q, "const") && q + 5 < body.size() && space(body[q + 5])) q = space_end(body, q + 5);
    std::size_t t = 0;
    if (has(body, q, "double")) t = 6;
    else if (has(body, q, "float")) t = 5;
    else if (has(body, q, "T")) t = 1;
    if (t == 0 || q + t >= body.size() || !space(body[q + t])) return false;
    begin = space_end(body, q + t);
    std::size_t const stop = body.find_first_of(";=(", begin), bracket = body.find('[', begin);
    if (bracket == view::npos || bracket > stop) return false;
    semi = body.find(';', bracket);
    return semi != view::npos;
}

} // namespace

std::vector<std::pair<std::string, std::string>> constants(view body) {
    std::vector<std::pair<std::string, std::string>> out;
    static constexpr view head = "constexpr int ";
    for (std::size_t at = body.find(head); at != view::npos; at = body.find(head, at)) {
        std::size_t const semi = body.find(';', at + head.size());
        if (semi == view::npos) break;
        view const list = body.substr(at + head.size(), semi - at - head.size());
        std::pair<std::string, std::string> one;
        for (std::size_t p = 0, end = 0; p < list.size();)
            if (constant_at(list, p, one, end)) out.push_back(std::move(one)), p = end;
            else ++p;
        at = semi + 1;
    }
    return out;
}

std::vector<view> array_declarations(view body) {
    std::vector<view> out;
    std::size_t begin = 0, semi = 0;
    // ^ matches at the body's start only (for the first search); then each newline.
    std::size_t at = 0;
    if (!body.empty() && body[0] != '\n' && declaration_at(body, 0, begin, semi)) {
        out.push_back(body.substr(begin, semi - begin));
        at = semi + 1;
    }
    for (at = body.find('\n', at); at != view::npos; at = body.find('\n', at + 1)) {
        if (!declaration_at(body, at, begin, semi)) continue;
        out.push_back(body.substr(begin, semi - begin));
        at = semi; // the next search starts after the ';'
    }
    return out;
}

std::vector<std::pair<view, view>> declarators(view list) {
    std::vector<std::pair<view, view>> out;
    for (std::size_t p = 0; p < list.size();) {
        if (!word(list[p])) {
            ++p;
            continue;
        }
        std::size_t const r = word_end(list, p);
        std::size_t end = r;
        while (end < list.size() && list[end] == '[') {
            std::size_t const close = list.find(']', end + 1);
            if (close == view::npos || close == end + 1) break;
            end = close + 1;
        }
        if (end > r) out.push_back({list.substr(p, r - p), list.substr(r, end - r)});
        p = end;
    }
    return out;
}

std::vector<view> dimensions(view dims) {
    std::vector<view> out;
    for (std::size_t p = 0; p < dims.size();) {
        std::size_t const close = dims[p] == '[' ? dims.find(']', p + 1) : view::npos;
        if (close == view::npos || close == p + 1) {
            ++p;
            continue;
        }
        out.push_back(dims.substr(p + 1, close - p - 1));
        p = close + 1;
    }
    return out;
}

std::vector<view> line_reads(view line) {
    std::vector<view> out;
    for (std::size_t i = 0; i < line.size();) {
        if (!starts_word(line, i)) {
            ++i;
            continue;
        }
        std::size_t end = parameter_end(line, i);
        if (end != view::npos && assignment_at(line, end)) end = end - i > 3 ? end - 1 : view::npos; // \w+ backtracks
        if (end == view::npos) {
            end = indexed_end(line, i);
            if (end != view::npos && assignment_at(line, end)) end = view::npos;
        }
        if (end == view::npos) {
            ++i;
            continue;
        }
        out.push_back(line.substr(i, end - i));
        i = end;
    }
    return out;
}

view stored_array(view line) {
    std::size_t const w = space_end(line, 0), r = word_end(line, w);
    if (r == w || r >= line.size() || line[r] != '[') return {};
    std::size_t const close = line.find(']', r + 1);
    if (close == view::npos || !assignment_at(line, close + 1)) return {};
    return line.substr(w, r - w);
}

std::vector<view> state_reads(view body) {
    std::vector<view> out;
    for (std::size_t i = 0; i < body.size();) {
        if (!starts_word(body, i)) {
            ++i;
            continue;
        }
        std::size_t end = parameter_end(body, i);
        if (end == view::npos) {
            view const name = body.substr(i, word_end(body, i) - i);
            if (name == "q" || name == "qd" || name == "u" || name == "x") end = indexed_end(body, i);
        }
        if (end == view::npos) {
            ++i;
            continue;
        }
        out.push_back(body.substr(i, end - i));
        i = end;
    }
    return out;
}

std::vector<view> calls(view body) {
    std::vector<view> out;
    for (std::size_t i = 0; i < body.size();) {
        if (!word(body[i])) {
            ++i;
            continue;
        }
        std::size_t const r = word_end(body, i);
        if (r < body.size() && body[r] == '(') out.push_back(body.substr(i, r - i));
        i = r;
    }
    return out;
}

} // namespace lagc::stack_scan

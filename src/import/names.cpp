// Names from robot files as names of the language, unique; and as messages show them.
#include "import/names.hpp"

#include "common/cxx_names.hpp"
#include "frontend/check.hpp"

#include <cctype>
#include <cstdio>

namespace lagc::import {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (its code point in `cp`), or 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t& cp) {
    unsigned char const c = static_cast<unsigned char>(s[i]);
    std::size_t const n = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 && c < 0xF0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || i + n > s.size()) return 0;
    cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n; ++k) {
        unsigned char const b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

// Characters a terminal acts on rather than shows: C0 controls and DEL, C1 controls (U+0080–U+009F, U+009B opens
// an escape sequence on some terminals), line and paragraph separators, and the bidirectional
// overrides and isolates, which reorder the text around them.
bool acts_on_terminal(char32_t cp) {
    return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

} // namespace

std::string language_name(std::string const& raw) {
    std::string s;
    auto separate = [&s] {
        if (!s.empty() && s.back() != '_') s.push_back('_');
    };
    for (std::size_t i = 0; i < raw.size() && s.size() <= longest_language_name;) {
        unsigned char const c = static_cast<unsigned char>(raw[i]);
        char32_t cp = 0;
        std::size_t const n = c < 0x80 ? 0 : utf8_sequence(raw, i, cp);
        if (c < 0x80 && std::isalnum(c)) {
            s.push_back(static_cast<char>(c));
        } else if (n > 0) {
            char hex[16];
            std::snprintf(hex, sizeof hex, "u%x", static_cast<unsigned>(cp));
            separate();
            s += hex;
            separate();
        } else {
            separate();
        }
        i += n > 0 ? n : 1;
    }
    if (s.size() > longest_language_name) s.resize(longest_language_name);
    while (!s.empty() && s.back() == '_') s.pop_back();
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s.insert(s.begin(), 'n');
    return s;
}

std::string short_raw(std::string const& raw) {
    // A file's name that is already short is passed on as it is (no work, and the names made
    // from it with a prefix are the ones lagc always made).
    if (raw.size() <= longest_made_name / 8) return raw;
    std::string s = language_name(raw);
    if (s.size() <= longest_made_name) return raw;
    s.resize(longest_made_name);
    while (s.back() == '_') s.pop_back();
    return s;
}

bool name_maker::free(std::string const& name) const {
    return !used_.count(name) && !is_reserved_word(name) && is_usable_cxx_name(name, cxx_name_use::field);
}

std::string name_maker::fresh(std::string const& raw) {
    std::string const s = language_name(raw);
    std::string name = s;
    int& k = next_[s];
    if (k < 2) k = 2;
    for (int tries = 1; !free(name); ++tries) {
        // A base no number makes usable (LAGC_x: the generated code's macros own LAGC_) gets
        // another start, or the search would never end; M_PI only skips M_PI_2, a macro too.
        if (tries > 100 && (is_reserved_word(s + "_2") || !is_usable_cxx_name(s + "_2", cxx_name_use::field)))
            return fresh("n" + s);
        name = s + "_" + std::to_string(k++);
    }
    used_.insert(name);
    return name;
}

// Every prefix is a lower-case word and an underscore: prefix + s is usable for a number.
std::string name_maker::fresh_suffix(std::string const& base, std::vector<std::string> const& prefixes) {
    auto all_free = [&](std::string const& s) {
        for (auto const& p : prefixes)
            if (!free(p + s)) return false;
        return true;
    };
    std::string s = base;
    int& k = next_suffix_[base];
    if (k < 2) k = 2;
    while (!all_free(s)) s = base + "_" + std::to_string(k++);
    for (auto const& p : prefixes) used_.insert(p + s);
    return s;
}

std::string shown(std::string_view text, std::size_t most) {
    std::string out;
    std::size_t characters = 0, i = 0;
    for (; i < text.size() && characters < most; ++characters) {
        unsigned char const c = static_cast<unsigned char>(text[i]);
        char32_t cp = c;
        std::size_t const n = c < 0x80 ? 1 : utf8_sequence(text, i, cp);
        if (n == 0 || acts_on_terminal(cp)) {
            out += '?';
            i += n > 0 ? n : 1;
        } else {
            out.append(text.substr(i, n));
            i += n;
        }
    }
    if (i < text.size()) out += "… (" + std::to_string(text.size()) + " bytes)";
    return out;
}

// Appended piece by piece: "'" + std::string draws a false -Wrestrict from GCC 12 (its bug 105329).
std::string quoted(std::string_view name) {
    std::string s(1, '\'');
    return s.append(shown(name)).append(1, '\'');
}

} // namespace lagc::import

// Names from robot files, which may be any text (`2nd link`, `q-`, `肩`, an escape sequence,
// two megabytes): as names of the language, each unique and none reserved in the language or
// in C++ (write_lag.cpp); and as messages and comments show them (every reader).
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace lagc::import {

// The longest part a file's name gives a made name (short_raw), and the longest language
// name: a prefix (stiffness_, Jxx_), a suffix (_qw) and a number that makes it unique (_12)
// together stay within the language's 200 characters.
inline constexpr std::size_t longest_made_name = 100, longest_language_name = 150;

// `raw` as a name of the language: ASCII letters and digits kept, every other run of
// characters one underscore between words (none at either end, so that appending "_2" never
// makes a double underscore, which C++ reserves), a character beyond ASCII as its code point
// (`肩` → u80a9: two such names stay apart), "n" in front of a leading digit or of nothing.
// Past longest_language_name characters it is cut there.
std::string language_name(std::string const& raw);

// `raw` itself where its language name is within longest_made_name characters (so that a
// name made from `raw` plus a prefix or suffix is what it always was), else that name cut
// there: a prefix and a suffix then survive language_name's cut.
std::string short_raw(std::string const& raw);

// Hands out names: each is taken once, and none is a reserved word of the language or a name
// generated C++ cannot use (a keyword, a macro of <cmath>).
class name_maker {
public:
    // The language name of `raw`, or that name with _2, _3, … : the first that is free.
    std::string fresh(std::string const& raw);
    // A base `s` such that `prefix + s` is free for every prefix: `base`, base_2, …; all taken.
    std::string fresh_suffix(std::string const& base, std::vector<std::string> const& prefixes);
    void take(std::string const& name) { used_.insert(name); }
    bool free(std::string const& name) const;

private:
    std::set<std::string> used_;
    // Where the search for a free number resumes for each base: names are only ever taken,
    // so the numbers below it are still taken, and many equal bases cost no quadratic search.
    std::map<std::string, int> next_, next_suffix_;
};

// Text from the file as a message or a comment shows it: control characters and bytes that
// are not UTF-8 as '?' (an escape sequence in a joint's name must not reach the terminal),
// and past `most` characters cut, with its length said.
std::string shown(std::string_view text, std::size_t most = 60);

// A name from the file in quotes for a message: 'name', shown.
std::string quoted(std::string_view name);

} // namespace lagc::import

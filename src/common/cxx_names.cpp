// Names generated C++ cannot use (see cxx_names.hpp).
#include "common/cxx_names.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace lagc {

namespace {

char const* const cxx_keywords[] = {
    "alignas",   "alignof",      "and",       "and_eq",      "asm",          "auto",      "bitand",
    "bitor",     "bool",         "break",     "case",        "catch",        "char",      "char8_t",
    "char16_t",  "char32_t",     "class",     "compl",       "concept",      "const",     "consteval",
    "constexpr", "constinit",    "const_cast", "continue",   "co_await",     "co_return", "co_yield",
    "decltype",  "default",      "delete",    "do",          "double",       "dynamic_cast", "else",
    "enum",      "explicit",     "export",    "extern",      "false",        "float",     "for",
    "friend",    "goto",         "if",        "inline",      "int",          "long",      "mutable",
    "namespace", "new",          "noexcept",  "not",         "not_eq",       "nullptr",   "operator",
    "or",        "or_eq",        "private",   "protected",   "public",       "register",  "reinterpret_cast",
    "requires",  "return",       "short",     "signed",      "sizeof",       "static",    "static_assert",
    "static_cast", "struct",     "switch",    "template",    "this",         "thread_local", "throw",
    "true",      "try",          "typedef",   "typeid",      "typename",     "union",     "unsigned",
    "using",     "virtual",      "void",      "volatile",    "wchar_t",      "while",     "xor",
    "xor_eq",    "final",        "override",  "import",      "module",
    "typeof"}; // a keyword of GNU C++ (gnu++17, g++'s default)

#include "common/reserved_names.inc"

template <std::size_t N>
bool listed(char const* const (&words)[N], std::string const& s) {
    return std::any_of(std::begin(words), std::end(words), [&](char const* w) { return s == w; });
}

} // namespace

bool is_cxx_keyword(std::string const& name) { return listed(cxx_keywords, name); }

std::string cxx_name_problem(std::string const& name, cxx_name_use use) {
    if (is_cxx_keyword(name)) return "a C++ keyword";
    if (name == "restrict") return "a C99 keyword (the C interface, --c-api, would not compile)";
    if (name.find("__") != std::string::npos ||
        (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1]))))
        return "reserved in C++ (a double underscore, or an underscore and a capital)";
    if (listed(cmath_macros, name)) return "a macro that <cmath> defines";
    if (name.rfind("LAGC_", 0) == 0) return "reserved for the macros of lagc's generated code (LAGC_RESTRICT, LAGC_PART_NOINLINE)";
    if (use == cxx_name_use::namespace_) {
        if (name[0] == '_') return "reserved in C++ as a global name (it starts with an underscore)";
        if (listed(cmath_globals, name)) return "a global name that <cmath> declares (or reserved in C++)";
        if (listed(gcc_builtins, name)) return "a function g++ knows as a built-in (a namespace of its name does not compile)";
    }
    return "";
}

bool is_usable_cxx_name(std::string const& name, cxx_name_use use) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    for (char c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    return cxx_name_problem(name, use).empty();
}

} // namespace lagc

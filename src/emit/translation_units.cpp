// --translation-units N (translation_units.hpp). The source is read as lagc writes it: a
// head up to `namespace NS {`, then at column 0 comments, preprocessor lines, `namespace
// detail {` blocks, one-line declarations and functions (a header ending in `{`, a body up
// to a line `}`), then `}  // namespace NS` and what follows it (the C wrappers).
#include "emit/translation_units.hpp"

#include <cstddef>

namespace lagc {

namespace {

struct item {
    std::string text;
    std::string declaration; // a function that moves to one unit: its declaration
    bool detail = false;     // in namespace detail
    bool moves = false;      // in one unit only (else in every unit)
    int unit = 1;
};

std::vector<std::string> lines_of(std::string const& s) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < s.size()) {
        std::size_t const end = s.find('\n', at);
        out.push_back(s.substr(at, end == std::string::npos ? std::string::npos : end - at));
        at = end == std::string::npos ? s.size() : end + 1;
    }
    return out;
}

bool starts(std::string const& s, std::string const& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

void erase_first(std::string& s, std::string const& what) {
    if (std::size_t const at = s.find(what); at != std::string::npos) s.erase(at, what.size());
}

// A function of internal linkage (not a template, not inline) moves to one unit: it loses
// `static`, and every unit declares it (hidden: the units are one library's parts). An
// inline helper stays in every unit, [[maybe_unused]].
void classify(item& f, std::string header, std::size_t comments) {
    if (header.find("template <") != std::string::npos) return;
    // A small helper that may be inlined stays in every unit too, so that its callers
    // inline it as in one file (store_linearization_column, linearization_status).
    bool const small = f.text.size() - comments < 2000 && header.find("static ") != std::string::npos &&
                       header.find("LAGC_PART_NOINLINE") == std::string::npos && header.find("[[") == std::string::npos;
    if (small) {
        f.text.insert(f.text.find("static ", comments), "[[maybe_unused]] ");
        return;
    }
    if (header.find("inline ") != std::string::npos) {
        // in every unit, and not every unit calls it (clang's -Wunused-function)
        if (std::size_t const at = f.text.find("static inline ", comments); at != std::string::npos)
            f.text.insert(at, "[[maybe_unused]] ");
        return;
    }
    f.moves = true;
    if (header.find("static ") != std::string::npos) {
        f.text.erase(f.text.find("static ", comments), 7);
        erase_first(header, "static ");
        erase_first(header, "LAGC_PART_NOINLINE ");
        while (!header.empty() && (header.back() == '{' || header.back() == ' ')) header.pop_back();
        f.declaration = "[[gnu::__visibility__(\"hidden\")]] " + header + ";\n";
    }
}

// The items between the namespace's lines `open` and `close`.
std::vector<item> items_of(std::vector<std::string> const& lines, std::size_t open, std::size_t close) {
    std::vector<item> items;
    std::string pending; // comments and blank lines: they go with the next item
    bool detail = false;
    for (std::size_t i = open + 1; i < close; ++i) {
        std::string const& l = lines[i];
        if (l.empty() || starts(l, "//")) {
            pending += l + "\n";
            continue;
        }
        if (l == "namespace detail {" || l == "}  // namespace detail") {
            detail = l == "namespace detail {";
            continue; // each unit opens and closes namespace detail where its items need it
        }
        item it;
        it.detail = detail;
        it.text = pending + l + "\n";
        pending.clear();
        if (l[0] != ' ' && l[0] != '#' && l.back() != ';' && l.back() != '}') {
            std::size_t const comments = it.text.size() - l.size() - 1;
            std::string header = l;
            while (header.back() != '{' && i + 1 < close) {
                header += "\n" + lines[++i];
                it.text += lines[i] + "\n";
            }
            while (i + 1 < close && lines[i] != "}") it.text += lines[++i] + "\n";
            classify(it, header, comments);
        }
        items.push_back(std::move(it));
    }
    if (!pending.empty()) items.push_back({pending, "", detail, false, 1});
    return items;
}

// Units by the moving functions' sizes, in order: each function goes to the unit its
// middle byte falls in.
void assign_units(std::vector<item>& items, int n) {
    std::size_t total = 0, before = 0;
    for (auto const& it : items)
        if (it.moves) total += it.text.size();
    for (auto& it : items) {
        if (!it.moves) continue;
        std::size_t const middle = before + it.text.size() / 2;
        it.unit = 1 + static_cast<int>(middle * static_cast<std::size_t>(n) / (total == 0 ? 1 : total));
        if (it.unit > n) it.unit = n;
        before += it.text.size();
    }
}

std::string unit_text(std::vector<std::string> const& lines, std::size_t open, std::size_t close,
                      std::vector<item> const& items, int k, int n) {
    std::string s = lines[0] + "\n// Unit " + std::to_string(k) + " of " + std::to_string(n) +
                    " (lagc --translation-units): compile and link all " + std::to_string(n) + " together.\n";
    for (std::size_t i = 1; i <= open; ++i) s += lines[i] + "\n";
    std::string detail_declarations, declarations;
    for (auto const& it : items) (it.detail ? detail_declarations : declarations) += it.declaration;
    if (!detail_declarations.empty()) s += "namespace detail {\n" + detail_declarations + "}  // namespace detail\n";
    s += declarations;
    bool detail = false;
    for (auto const& it : items) {
        if (it.moves && it.unit != k) continue;
        if (it.detail != detail) s += it.detail ? "namespace detail {\n" : "}  // namespace detail\n";
        detail = it.detail;
        s += it.text;
    }
    if (detail) s += "}  // namespace detail\n";
    std::size_t const last = k == 1 ? lines.size() : close + 1;
    for (std::size_t i = close; i < last; ++i) s += lines[i] + "\n";
    return s;
}

} // namespace

std::vector<std::string> translation_units(std::string const& source, int n) {
    if (n <= 1) return {source};
    std::vector<std::string> const lines = lines_of(source);
    std::size_t open = 0;
    while (open < lines.size() && !(starts(lines[open], "namespace ") && lines[open].back() == '{')) ++open;
    if (open == lines.size()) return {source};
    std::string const name = lines[open].substr(10, lines[open].size() - 12);
    std::size_t close = open + 1;
    while (close < lines.size() && lines[close] != "}  // namespace " + name) ++close;
    if (close == lines.size()) return {source};
    std::vector<item> items = items_of(lines, open, close);
    assign_units(items, n);
    std::vector<std::string> units;
    for (int k = 1; k <= n; ++k) units.push_back(unit_text(lines, open, close, items, k, n));
    return units;
}

std::string translation_unit_path(std::string const& path, int k) {
    if (k == 1) return path;
    std::size_t const slash = path.rfind('/');
    std::size_t const dot = path.rfind('.');
    std::size_t const at = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? path.size() : dot;
    return path.substr(0, at) + "." + std::to_string(k) + path.substr(at);
}

} // namespace lagc

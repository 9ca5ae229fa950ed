// Array sizes read off generated bodies (see stack_bound.hpp).
#include "emit/stack_bound.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

namespace lagc {

namespace {

// A dimension as lagc writes them: integers, nq, nu, nc, nh, m = 2 nq + nu, + - *,
// parentheses and `a > 0 ? a : 1`. Recursive descent over the text.
struct dimension_parser {
    std::string const& s;
    std::map<std::string, long> const& names;
    std::size_t at = 0;

    void blanks() {
        while (at < s.size() && s[at] == ' ') ++at;
    }
    bool take(char c) {
        blanks();
        if (at < s.size() && s[at] == c) return ++at, true;
        return false;
    }
    long atom() {
        blanks();
        if (take('(')) {
            long v = conditional();
            take(')');
            return v;
        }
        std::size_t const start = at;
        while (at < s.size() && (std::isalnum(static_cast<unsigned char>(s[at])) || s[at] == '_')) ++at;
        std::string const word = s.substr(start, at - start);
        if (word.empty()) return 0;
        if (std::isdigit(static_cast<unsigned char>(word[0]))) return std::stol(word);
        auto it = names.find(word);
        return it == names.end() ? 0 : it->second;
    }
    long product() {
        long v = atom();
        while (take('*')) v *= atom();
        return v;
    }
    long sum() {
        long v = product();
        for (;;) {
            if (take('+')) v += product();
            else if (take('-')) v -= product();
            else return v;
        }
    }
    long conditional() {
        long v = sum();
        if (take('>')) v = v > sum() ? 1 : 0;
        if (take('?')) {
            long const yes = conditional();
            take(':');
            long const no = conditional();
            return v ? yes : no;
        }
        return v;
    }
};

} // namespace

std::size_t stack_bounds::size_of(std::string const& dimension) const {
    long const nq = static_cast<long>(nq_), nu = static_cast<long>(nu_), nc = static_cast<long>(nc_);
    std::map<std::string, long> const names = {
        {"nq", nq}, {"nu", nu}, {"nc", nc}, {"nh", static_cast<long>(nh_)}, {"m", 2 * nq + nu}};
    dimension_parser p{dimension, names};
    return static_cast<std::size_t>(std::max(0L, p.conditional()));
}

void stack_bounds::add(std::string const& name, std::string const& body) {
    frame f;
    // "double M[nq * nq], A[nc * nq];": every declarator of an array in a declaration.
    static std::regex const declaration(R"((?:^|\n)\s*(?:double|float|T)\s+([^;=(]*\[[^;]*);)");
    static std::regex const declarator(R"((\w+)\[([^\]]+)\])");
    for (auto d = std::sregex_iterator(body.begin(), body.end(), declaration); d != std::sregex_iterator(); ++d) {
        std::string const list = (*d)[1];
        for (auto a = std::sregex_iterator(list.begin(), list.end(), declarator); a != std::sregex_iterator(); ++a)
            f.arrays += size_of((*a)[2]) * bytes_;
    }
    static std::regex const call(R"((?:detail::)?(\w+)\()");
    for (auto c = std::sregex_iterator(body.begin(), body.end(), call); c != std::sregex_iterator(); ++c)
        if (std::find(f.callees.begin(), f.callees.end(), (*c)[1].str()) == f.callees.end())
            f.callees.push_back((*c)[1]);
    frames_[name] = std::move(f);
}

std::size_t stack_bounds::bound(std::string const& name) const {
    auto it = frames_.find(name);
    if (it == frames_.end()) return 0;
    std::size_t deepest = 0;
    for (auto const& callee : it->second.callees)
        if (callee != name) deepest = std::max(deepest, bound(callee));
    return it->second.arrays + deepest;
}

} // namespace lagc

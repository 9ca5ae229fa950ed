// Reads back what `lagc --equations` prints: the displayed equations of its Markdown
// ($$ … $$), and each one's right-hand side as a GiNaC expression. The reader knows LaTeX,
// not lagc: sums, products of factors side by side, \frac, powers, \sqrt, \left( \right),
// \left| \right|, \sin … \ln, \operatorname{f}, numbers, and names (\theta_{1}, \dot{x},
// m_{\mathrm{cart}}, \mathit{Ex}, s_{3}); a name is a symbol named by its LaTeX text
// (symbol_named), so a test writes its closed forms with the same symbols.
#pragma once

#include <ginac/ginac.h>

#include <cctype>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace equations_test {

// The one symbol of each LaTeX name ("\\theta_{1}", "\\dot{x}", "m_{2}").
inline std::map<std::string, GiNaC::symbol>& symbol_table() {
    static std::map<std::string, GiNaC::symbol> table;
    return table;
}
inline GiNaC::symbol const& symbol_named(std::string const& latex) {
    auto& table = symbol_table();
    auto it = table.find(latex);
    if (it == table.end()) it = table.emplace(latex, GiNaC::symbol(latex)).first;
    return it->second;
}

class latex_reader {
public:
    explicit latex_reader(std::string text) : s_(std::move(text)) {}

    GiNaC::ex read() {
        GiNaC::ex e = sum();
        space();
        if (at_ < s_.size()) fail("unexpected text");
        return e;
    }

private:
    std::string s_;
    std::size_t at_ = 0;

    [[noreturn]] void fail(std::string const& what) const {
        throw std::runtime_error(what + " at " + std::to_string(at_) + " in: " + s_);
    }
    void space() {
        while (at_ < s_.size() && s_[at_] == ' ') ++at_;
    }
    bool looking_at(std::string const& t) {
        space();
        return s_.compare(at_, t.size(), t) == 0;
    }
    bool take(std::string const& t) {
        if (!looking_at(t)) return false;
        at_ += t.size();
        return true;
    }
    void expect(std::string const& t) {
        if (!take(t)) fail("expected '" + t + "'");
    }
    // The text inside {…} (nested braces kept), the braces consumed.
    std::string group() {
        expect("{");
        std::size_t const start = at_;
        for (int depth = 1; at_ < s_.size(); ++at_) {
            if (s_[at_] == '{') ++depth;
            if (s_[at_] == '}' && --depth == 0) return s_.substr(start, at_++ - start);
        }
        fail("unbalanced braces");
    }
    GiNaC::ex braced() { return latex_reader(group()).read(); }

    GiNaC::ex sum() {
        GiNaC::ex e = 0;
        bool negative = take("-");
        for (;;) {
            GiNaC::ex t = product();
            e += negative ? -t : t;
            if (take("+")) negative = false;
            else if (take("-")) negative = true;
            else return e;
        }
    }
    bool ends_product() {
        space();
        return at_ >= s_.size() || s_[at_] == '+' || s_[at_] == '-' || looking_at("\\right") || s_[at_] == ',';
    }
    GiNaC::ex product() {
        GiNaC::ex e = power();
        while (!ends_product()) e *= power();
        return e;
    }
    GiNaC::ex power() {
        GiNaC::ex b = atom();
        if (take("^")) b = GiNaC::pow(b, braced());
        return b;
    }
    GiNaC::ex atom() {
        space();
        if (at_ >= s_.size()) fail("expected a factor");
        char const c = s_[at_];
        if ((c >= '0' && c <= '9') || c == '.') return number();
        if (take("\\frac")) {
            GiNaC::ex num = braced();
            return num / braced();
        }
        if (take("\\sqrt")) return GiNaC::sqrt(braced());
        if (take("\\left(")) {
            GiNaC::ex e = sum();
            expect("\\right)");
            return e;
        }
        if (take("\\left|")) {
            GiNaC::ex e = sum();
            expect("\\right|");
            return GiNaC::abs(e);
        }
        if (take("\\pi")) return GiNaC::Pi;
        if (auto f = function()) return *f;
        return name();
    }
    GiNaC::ex number() {
        std::size_t const start = at_;
        while (at_ < s_.size() && ((s_[at_] >= '0' && s_[at_] <= '9') || s_[at_] == '.')) ++at_;
        if (at_ < s_.size() && s_[at_] == 'e') {
            ++at_;
            if (at_ < s_.size() && (s_[at_] == '+' || s_[at_] == '-')) ++at_;
            while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') ++at_;
        }
        std::string const t = s_.substr(start, at_ - start);
        if (t.find_first_of(".e") == std::string::npos) return GiNaC::numeric(t.c_str());
        return GiNaC::numeric(std::stod(t));
    }
    // \sin\theta, \sin x, \sin^{2}\theta, \sin\left(a - b\right), \operatorname{f}\left(a, b\right)
    std::optional<GiNaC::ex> function() {
        static std::vector<std::string> const names = {"\\arcsin", "\\arccos", "\\arctan", "\\sinh", "\\cosh", "\\tanh",
                                                       "\\sin",    "\\cos",    "\\tan",    "\\exp",  "\\ln"};
        std::string head;
        for (auto const& n : names)
            if (looking_at(n) && !std::isalpha(static_cast<unsigned char>(s_[at_ + n.size()]))) head = n;
        if (head.empty() && !looking_at("\\operatorname")) return std::nullopt;
        std::vector<GiNaC::ex> args;
        if (head.empty()) {
            at_ += std::string("\\operatorname").size();
            head = group();
        } else {
            at_ += head.size();
        }
        GiNaC::ex exponent = 1;
        if (take("^")) exponent = braced();
        if (take("\\left(")) {
            do args.push_back(sum());
            while (take(","));
            expect("\\right)");
        } else {
            args.push_back(name());
        }
        return GiNaC::pow(call(head, args), exponent);
    }
    GiNaC::ex call(std::string const& head, std::vector<GiNaC::ex> const& a) {
        if (a.size() != 1) fail("a function of " + std::to_string(a.size()) + " arguments: " + head);
        if (head == "\\sin") return GiNaC::sin(a[0]);
        if (head == "\\cos") return GiNaC::cos(a[0]);
        if (head == "\\tan") return GiNaC::tan(a[0]);
        if (head == "\\arcsin") return GiNaC::asin(a[0]);
        if (head == "\\arccos") return GiNaC::acos(a[0]);
        if (head == "\\arctan") return GiNaC::atan(a[0]);
        if (head == "\\sinh") return GiNaC::sinh(a[0]);
        if (head == "\\cosh") return GiNaC::cosh(a[0]);
        if (head == "\\tanh") return GiNaC::tanh(a[0]);
        if (head == "\\exp") return GiNaC::exp(a[0]);
        if (head == "\\ln") return GiNaC::log(a[0]);
        fail("an unknown function " + head);
    }
    // A name: a letter, \greek, \mathit{…}, \mathrm{…}, \dot{…}, \ddot{…}, then _{…}.
    GiNaC::ex name() {
        space();
        std::size_t const start = at_;
        if (take("\\dot") || take("\\ddot") || take("\\mathit") || take("\\mathrm")) {
            group();
        } else if (at_ < s_.size() && s_[at_] == '\\') {
            ++at_;
            while (at_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[at_]))) ++at_;
        } else if (at_ < s_.size() && std::isalpha(static_cast<unsigned char>(s_[at_]))) {
            ++at_;
        } else {
            fail("expected a name");
        }
        if (s_.compare(at_, 1, "_") == 0) {
            ++at_;
            group();
        }
        return symbol_named(s_.substr(start, at_ - start));
    }
};

// The displayed equations of a Markdown document, one string each, with the line breaks of
// aligned environments taken out: "\begin{aligned} M_{11} = {} & a \\ & {}+ b \end{aligned}"
// reads "M_{11} = a + b".
inline std::vector<std::string> displayed_equations(std::string const& md) {
    std::vector<std::string> out;
    for (std::size_t at = md.find("$$"); at != std::string::npos;) {
        std::size_t const end = md.find("$$", at + 2);
        if (end == std::string::npos) break;
        std::string e = md.substr(at + 2, end - at - 2), clean;
        for (std::string const cut : {"\\begin{aligned}", "\\end{aligned}", "\\\\\n", "{}", "&", "\n"})
            for (std::size_t p; (p = e.find(cut)) != std::string::npos;) e.replace(p, cut.size(), " ");
        for (char c : e)
            if (c != ' ' || (!clean.empty() && clean.back() != ' ')) clean += c;
        while (!clean.empty() && clean.back() == ' ') clean.pop_back();
        out.push_back(clean);
        at = md.find("$$", end + 2);
    }
    return out;
}

} // namespace equations_test

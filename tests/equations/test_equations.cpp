// `lagc --equations` on every seed system of models/: the M, h (and Q, A where the seed gives
// them) that the Markdown shows, read back from its LaTeX (latex_reader.hpp) with the shared
// parts s_k substituted, equal the seeds' closed forms at random points to 1e-12. The closed
// forms are the notes' (/work/shared/seeds, quoted in each model's header), or derived by
// hand from the geometry the model's header states where the notes give only part of them.
#include "latex_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

using namespace GiNaC;
using equations_test::symbol_named;

namespace {

ex S(std::string const& latex) { return symbol_named(latex); }

// lagc's output on a model (run from the source folder, standard output).
std::string equations_of(std::string const& model, std::string const& extra = "") {
    std::string const command = std::string("cd '") + LAGC_SOURCE_DIR + "' && '" + LAGC_BINARY + "' models/" + model +
                                ".lag --equations -o -" + extra + " 2>/dev/null";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return "";
    std::string out;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    int const status = ::pclose(pipe);
    return status == 0 ? out : "lagc failed (status " + std::to_string(status) + ")\n" + out;
}

bool simple_name(std::string const& s) { // M_{12}, h_{1}, s_{14}, A_{1,3}
    return s.size() >= 5 && std::isalpha(static_cast<unsigned char>(s[0])) && s.compare(1, 2, "_{") == 0 &&
           s.back() == '}' && s.find_first_not_of("0123456789,", 3) == s.size() - 1;
}

// Each named quantity of the document (M_{ij}, h_i, Q_i, A_{kj}, c_k …) as an expression with
// the shared parts s_k substituted (their definitions come in the order they use each other).
std::map<std::string, ex> quantities(std::string const& md) {
    std::map<std::string, ex> named;
    exmap shared;
    for (std::string const& eq : equations_test::displayed_equations(md)) {
        std::vector<std::string> sides;
        for (std::size_t at = 0;;) {
            std::size_t const next = eq.find(" = ", at);
            sides.push_back(eq.substr(at, next == std::string::npos ? std::string::npos : next - at));
            if (next == std::string::npos) break;
            at = next + 3;
        }
        if (sides.size() >= 3 && sides.back() == "0") sides.pop_back(); // c_{1} = … = 0
        if (sides.size() < 2 || !simple_name(sides[0])) continue;
        ex const value = equations_test::latex_reader(sides.back()).read();
        for (std::size_t i = 0; i + 1 < sides.size(); ++i) named[sides[i]] = value;
        if (sides[0].compare(0, 2, "s_") == 0) shared[symbol_named(sides[0])] = value.subs(shared);
    }
    for (auto& [name, value] : named) value = value.subs(shared);
    return named;
}

struct seed {
    std::string model;
    std::map<std::string, ex> expected; // M_{ij} (i ≤ j), h_{i}, and Q, A where given; all else 0
    std::size_t n;                      // coordinates
};

// Where the document and the seed disagree, one line each; empty when they agree.
std::vector<std::string> mismatches(std::string const& md, seed const& s) {
    std::vector<std::string> out;
    std::map<std::string, ex> got;
    try {
        got = quantities(md);
    } catch (std::exception const& e) {
        return {std::string("cannot read the document: ") + e.what()};
    }
    std::vector<std::string> names;
    for (std::size_t i = 1; i <= s.n; ++i) {
        names.push_back("h_{" + std::to_string(i) + "}");
        for (std::size_t j = i; j <= s.n; ++j) names.push_back("M_{" + std::to_string(i) + std::to_string(j) + "}");
    }
    auto add = [&](std::string const& name) {
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    };
    for (auto const& [name, value] : s.expected) add(name);
    for (auto const& [name, value] : got) // every entry printed: an entry the seed does not name is 0
        if (name[0] == 'M' || name[0] == 'h' || name[0] == 'Q' || name[0] == 'A') add(name);
    auto expected = [&](std::string name) { // M is symmetric: M_{21} is M_{12}
        if (name[0] == 'M' && name.size() == 6 && name[3] > name[4]) std::swap(name[3], name[4]);
        auto const e = s.expected.find(name);
        return e == s.expected.end() ? ex(0) : e->second;
    };
    std::mt19937 rng(2026);
    std::uniform_real_distribution<double> pick(0.2, 1.5);
    for (int point = 0; point < 5; ++point) {
        exmap at;
        for (auto const& [latex, sym] : equations_test::symbol_table()) at[sym] = pick(rng);
        for (auto const& name : names) {
            auto const g = got.find(name);
            ex const a = (g == got.end() ? ex(0) : g->second).subs(at).evalf();
            ex const b = expected(name).subs(at).evalf();
            if (!is_a<numeric>(a) || !is_a<numeric>(b)) {
                out.push_back(name + ": not a number at a point (" + (g == got.end() ? "absent" : "printed") + ")");
                continue;
            }
            double const x = ex_to<numeric>(a).to_double(), y = ex_to<numeric>(b).to_double();
            if (!(std::abs(x - y) <= 1e-12 * std::max(1.0, std::abs(y))))
                out.push_back(name + ": lagc prints " + std::to_string(x) + ", the seed gives " + std::to_string(y));
        }
        if (!out.empty()) break;
    }
    return out;
}

} // namespace

#include "seed_forms.inc"

class Seeds : public ::testing::TestWithParam<seed> {};

TEST_P(Seeds, PrintedMassMatrixAndBiasEqualTheClosedForms) {
    seed const& s = GetParam();
    std::string const md = equations_of(s.model);
    ASSERT_NE(md.find("# Equations of motion"), std::string::npos) << md;
    for (auto const& m : mismatches(md, s)) ADD_FAILURE() << s.model << ": " << m;
}

INSTANTIATE_TEST_SUITE_P(EveryModel, Seeds, ::testing::ValuesIn(seed_forms()),
                         [](auto const& info) { return info.param.model; });

// The check can fail: one exponent changed in the printed M, a sign in h, or a shared part's
// definition, and the comparison says so.
TEST(SeedCheck, FindsAPerturbedDocument) {
    auto const all = seed_forms();
    auto find = [&](std::string const& m) { return *std::find_if(all.begin(), all.end(), [&](seed const& s) { return s.model == m; }); };
    std::string md = equations_of("cart_pendulum");
    ASSERT_TRUE(mismatches(md, find("cart_pendulum")).empty());
    auto perturbed = [&](std::string from, std::string to) {
        std::string t = md;
        std::size_t const at = t.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) t.replace(at, from.size(), to);
        return t;
    };
    EXPECT_FALSE(mismatches(perturbed("M_{22} = m_{2} l^{2}", "M_{22} = m_{2} l^{3}"), find("cart_pendulum")).empty());
    EXPECT_FALSE(mismatches(perturbed("h_{1} = -m_{2}", "h_{1} = m_{2}"), find("cart_pendulum")).empty());
    EXPECT_FALSE(mismatches(perturbed("$$M_{11} = m_{1} + m_{2}$$", ""), find("cart_pendulum")).empty());
    EXPECT_FALSE(mismatches(perturbed("M_{21} = m_{2} l \\cos\\theta", "M_{21} = m_{2} l \\sin\\theta"), find("cart_pendulum")).empty());
}

// Shared parts: a document that names parts s_k is read with their definitions substituted,
// and a wrong definition is found.
TEST(SeedCheck, SharedPartsAreSubstituted) {
    std::string const md = "$$M_{11} = s_{1} + 1$$\n\n$$s_{2} = \\frac{a}{2}$$\n\n$$s_{1} = s_{2} \\cos\\theta$$\n";
    seed const s{"x", {{"M_{11}", S("a") * cos(S("\\theta")) / 2 + 1}}, 1};
    EXPECT_TRUE(mismatches(md, s).empty());
    std::string wrong = md;
    wrong.replace(wrong.find("\\frac{a}{2}"), 11, "\\frac{a}{3}");
    EXPECT_FALSE(mismatches(wrong, s).empty());
}

void PrintTo(seed const& s, std::ostream* os) { *os << s.model; }

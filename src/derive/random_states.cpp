// The random-state checks (random_states.hpp).
#include "derive/random_states.hpp"

#include "symbolic/dag.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace lagc {

using GiNaC::ex;
using GiNaC::exvector;

std::map<std::string, symbol_spelling> graph_spellings(model const& m, std::vector<std::string>& order) {
    std::map<std::string, symbol_spelling> out;
    auto add = [&](GiNaC::symbol const& s, std::string spelled) {
        out[s.get_name()] = {spelled, "x"};
        order.push_back(spelled);
    };
    for (std::size_t i = 0; i < m.q.size(); ++i) add(m.q[i], fmt::format("q[{}]", i));
    for (std::size_t i = 0; i < m.qd.size(); ++i) add(m.qd[i], fmt::format("qd[{}]", i));
    for (std::size_t i = 0; i < m.u.size(); ++i) add(m.u[i], fmt::format("u[{}]", i));
    for (std::size_t i = 0; i < m.p.size(); ++i) add(m.p[i], fmt::format("p[{}]", i));
    add(m.t, "t");
    return out;
}

namespace {
double uniform(std::uint64_t& state, double low, double high) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return low + (high - low) * static_cast<double>(state >> 11) / 9007199254740992.0;
}
} // namespace

std::vector<double> random_point(model const& m, std::uint64_t& state, parameter_values parameters) {
    std::vector<double> point;
    for (std::size_t i = 0; i < m.q.size(); ++i) point.push_back(uniform(state, -1.4, 1.4));
    for (std::size_t i = 0; i < m.qd.size(); ++i) point.push_back(uniform(state, -1.0, 1.0));
    for (std::size_t i = 0; i < m.u.size(); ++i) point.push_back(uniform(state, -1.0, 1.0));
    for (auto const& p : m.parameters)
        point.push_back(parameters == parameter_values::defaults && p.written ? p.default_value : uniform(state, 0.6, 1.4));
    point.push_back(uniform(state, 0.2, 1.2));
    return point;
}

// One graph for every count of a derivation (the counts compare candidates that share most
// of their terms, each converted once): a count reads only the nodes its roots reach, which
// do not depend on what else the graph holds. Dropped when the derivation ends (derive()).
namespace {
struct counting {
    std::map<std::string, symbol_spelling> symbols;
    std::unique_ptr<expression_graph> g;
};
counting& operation_counts() {
    static counting c;
    return c;
}
} // namespace

void forget_operation_counts() { operation_counts().g.reset(); }

std::size_t operations_of(model const& m, exvector const& e) {
    counting& c = operation_counts();
    std::vector<std::string> order;
    auto symbols = graph_spellings(m, order);
    auto const same = [](auto const& a, auto const& b) {
        return a.first == b.first && a.second.text == b.second.text && a.second.argument == b.second.argument;
    };
    if (!c.g || !std::equal(symbols.begin(), symbols.end(), c.symbols.begin(), c.symbols.end(), same)) {
        c.g.reset();
        c.symbols = std::move(symbols);
        c.g = std::make_unique<expression_graph>(c.symbols, codegen_options{});
    }
    std::vector<int> roots;
    for (auto const& x : e) roots.push_back(c.g->add(x));
    return c.g->operation_count(roots);
}

samples::samples(model const& m) : symbols_(graph_spellings(m, order_)), g_(symbols_, codegen_options::for_values()) {}

std::size_t samples::add(ex const& e) {
    // An expression whose exact numbers leave the doubles (a constant past 1.8e308, which a
    // candidate's nested sums of 16-digit decimals can build) cannot be judged here: the
    // check that asked fails, and its candidate is not taken.
    try {
        roots_.push_back(g_.add(e));
    } catch (constant_out_of_range const&) {
        unjudged_ = true;
        roots_.push_back(-1);
    }
    return roots_.size() - 1;
}

bool samples::evaluate(model const& m, std::uint64_t seed, int count) {
    if (unjudged_) return false;
    for (int s = 0; s < count; ++s) {
        values_.push_back(g_.evaluate_all(roots_, order_, random_point(m, seed, parameter_values::random)));
        for (double v : values_.back())
            if (!std::isfinite(v)) return false;
    }
    return true;
}

namespace {

// The rows on a graph with `at`'s symbols spelled z[0], z[1], … in `at`'s order: the same
// rows are checked against each forward-dynamics candidate's q̈, so the last graph is kept
// (its rows held, so that their addresses identify them) until forget_residual_graph().
struct residual_graph {
    model const* m = nullptr;
    std::vector<exvector> rows;
    std::vector<std::string> keys, order;
    std::unique_ptr<expression_graph> g;
    std::vector<int> roots;
    std::vector<std::vector<std::size_t>> index;

    bool scaled = false; // converted with the code's sum scales (codegen_options{}), not for_values()

    bool holds(model const& model_, std::vector<exvector> const& r, std::vector<std::string> const& k, bool scaled_) const {
        if (m != &model_ || keys != k || rows.size() != r.size() || scaled != scaled_) return false;
        for (std::size_t i = 0; i < r.size(); ++i) {
            if (rows[i].size() != r[i].size()) return false;
            for (std::size_t j = 0; j < r[i].size(); ++j)
                if (&GiNaC::ex_to<GiNaC::basic>(rows[i][j]) != &GiNaC::ex_to<GiNaC::basic>(r[i][j])) return false;
        }
        return true;
    }
};

residual_graph& last_residual_graph() {
    static residual_graph last;
    return last;
}

residual_graph const& residuals_of(model const& m, std::vector<exvector> const& rows, std::vector<std::string> const& keys,
                                   bool scaled) {
    residual_graph& r = last_residual_graph();
    if (r.g && r.holds(m, rows, keys, scaled)) return r;
    r = residual_graph{};
    r.scaled = scaled;
    auto symbols = graph_spellings(m, r.order);
    for (std::size_t k = 0; k < keys.size(); ++k) {
        std::string const spelled = "z[" + std::to_string(k) + "]";
        symbols[keys[k]] = {spelled, "x"};
        r.order.push_back(spelled);
    }
    r.g = std::make_unique<expression_graph>(symbols, scaled ? codegen_options{} : codegen_options::for_values());
    r.index.resize(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        for (auto const& part : rows[i]) {
            r.index[i].push_back(r.roots.size());
            r.roots.push_back(r.g->add(part));
        }
    r.m = &m, r.rows = rows, r.keys = keys;
    return r;
}

} // namespace

void forget_residual_graph() { last_residual_graph() = residual_graph{}; }

// The values of `at` are evaluated first, on a graph of their own, and the rows then with
// `at`'s symbols as variables at those values: substituted symbolically instead, a number
// times a sum distributes in GiNaC, and the rows' many products of q̈ lose their sharing
// (on a 10-link arm with offsets in every direction that took an eighth of the whole run).
// The rows are converted for values first (sums as GiNaC keeps them); where a number or a
// value leaves the doubles there (products of many sums of 17-digit decimals, each with its
// integer content taken out: 10⁻¹⁷ per level, expression_graph::underflowed), with the
// code's own sum scales, once.
namespace {

using verdict = rows_verdict;

verdict rows_vanish_on(model const& m, std::vector<exvector> const& rows, GiNaC::exmap const& at, std::uint64_t seed,
                       bool scaled) {
    std::vector<std::string> order, keys;
    auto const symbols = graph_spellings(m, order);
    expression_graph values(symbols, codegen_options::for_values());
    std::vector<int> value_roots;
    try {
        for (auto const& [key, value] : at) {
            keys.push_back(GiNaC::ex_to<GiNaC::symbol>(key).get_name());
            value_roots.push_back(values.add(value));
        }
        residual_graph const& r = residuals_of(m, rows, keys, scaled);
        if (r.g->underflowed() || values.underflowed()) return verdict::unjudged;
        for (int s = 0; s < 3; ++s) {
            std::vector<double> point = random_point(m, seed, parameter_values::random);
            for (double v : values.evaluate_all(value_roots, order, point)) {
                if (!std::isfinite(v)) return verdict::unjudged;
                point.push_back(v);
            }
            std::vector<double> const parts = r.g->evaluate_all(r.roots, r.order, point);
            for (double v : parts)
                if (!std::isfinite(v)) return verdict::unjudged;
            for (auto const& row : r.index) {
                double total = 0, size = 0;
                for (std::size_t k : row) total += parts[k], size += std::abs(parts[k]);
                if (!(std::abs(total) <= 1e-9 * size + 1e-300)) return verdict::differ;
            }
        }
    } catch (constant_out_of_range const&) {
        forget_residual_graph();
        return verdict::unjudged; // a number past the doubles
    }
    return verdict::vanish;
}

} // namespace

rows_verdict rows_verdict_at_random_states(model const& m, std::vector<exvector> const& rows, GiNaC::exmap const& at,
                                           std::uint64_t seed) {
    verdict const v = rows_vanish_on(m, rows, at, seed, false);
    return v == verdict::unjudged ? rows_vanish_on(m, rows, at, seed, true) : v;
}

bool rows_vanish_at_random_states(model const& m, std::vector<exvector> const& rows, GiNaC::exmap const& at,
                                  std::uint64_t seed) {
    return rows_verdict_at_random_states(m, rows, at, seed) == verdict::vanish;
}

bool values_agree(std::vector<double> const& a, std::vector<double> const& b, double tolerance) {
    if (a.size() != b.size()) return false;
    double scale = 0;
    for (double x : a) scale = std::max(scale, std::abs(x));
    for (std::size_t j = 0; j < a.size(); ++j)
        if (!std::isfinite(a[j]) || !std::isfinite(b[j]) || std::abs(a[j] - b[j]) > tolerance * scale) return false;
    return true;
}

bool agree_at_random_states(model const& m, exvector const& C, exvector const& G, std::uint64_t seed) {
    samples s(m);
    for (std::size_t k = 0; k < C.size(); ++k) s.add(C[k]), s.add(G[k]);
    if (!s.evaluate(m, seed, 2)) return false;
    for (std::size_t x = 0; x < s.count(); ++x) {
        double scale = 0;
        for (std::size_t k = 0; k < 2 * C.size(); ++k) scale = std::max(scale, std::abs(s(x, k)));
        for (std::size_t k = 0; k < C.size(); ++k)
            if (std::abs(s(x, 2 * k) - s(x, 2 * k + 1)) > 1e-10 * scale) return false;
    }
    return true;
}


bool samples::same(std::size_t a, std::size_t b, double scale_a, double scale_b) const {
    for (std::size_t k = 0; k < count(); ++k) {
        double const size = std::abs((*this)(k, a)) + std::abs((*this)(k, b)) + scale_a + scale_b;
        if (std::abs((*this)(k, a) - (*this)(k, b)) > 1e-10 * size) return false;
    }
    return true;
}

bool samples::all_same(std::vector<std::array<std::size_t, 2>> const& pairs) const {
    double scale = 0;
    for (std::size_t x = 0; x < count(); ++x)
        for (auto const& p : pairs) scale = std::max({scale, std::abs((*this)(x, p[0])), std::abs((*this)(x, p[1]))});
    return std::all_of(pairs.begin(), pairs.end(), [&](auto const& p) { return same(p[0], p[1], scale, 0); });
}

} // namespace lagc

// Stage 3, the parameters inverse dynamics is linear in (issue 35): τ = Y(q, q̇, q̈) π for the
// π this finds, so that inverse_dynamics_regressor can write Y = ∂τ/∂π (emit/control.cpp).
// Found numerically on the expression graph, at random states and random parameter values
// (τ's rows as the derivation left them, inputs at zero): a parameter is a candidate where τ
// is affine in it alone; two candidates conflict where τ is not affine in the pair (m·g,
// m·c); the candidates are taken fewest conflicts first (so g, which multiplies every mass,
// gives way to the masses); and τ must vanish where π does (no remainder), and be affine in
// all of π at once, or no π is found.
#include "derive/derive.hpp"
#include "derive/random_states.hpp"
#include "graph/expression_graph.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>

namespace lagc {

namespace {

class tau_sampler {
    // A value in [0.5, 1.5) from a 64-bit linear congruential state (the parameters' samples).
    static double uniform(std::uint64_t& state) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return 0.5 + static_cast<double>(state >> 11) / 9007199254740992.0;
    }

public:
    tau_sampler(model const& m, derived const& d) {
        auto symbols = graph_spellings(m, order_);
        for (std::size_t i = 0; i < d.nq; ++i) {
            std::string const spelled = "qdd[" + std::to_string(i) + "]";
            symbols[d.qdd[i].get_name()] = {spelled, "x"};
            order_.push_back(spelled);
        }
        graph_ = std::make_unique<expression_graph>(symbols, codegen_options{});
        for (auto const& row : d.inverse_dynamics) {
            GiNaC::ex sum = 0;
            for (auto const& part : row) sum += part;
            rows_.push_back(graph_->add(sum));
        }
        first_parameter_ = m.q.size() + m.qd.size() + m.u.size();
        std::uint64_t state = 0x7265677265737331ull;
        for (int k = 0; k < 2; ++k) {
            std::vector<double> x = random_point(m, state, parameter_values::random);
            for (std::size_t i = 0; i < m.u.size(); ++i) x[m.q.size() + m.qd.size() + i] = 0;
            for (std::size_t i = 0; i < d.nq; ++i) x.push_back(std::sin(1.7 * static_cast<double>(i) + k));
            bases_.push_back(x);
            // The same state with q, qd and qdd negated (t, the parameters kept): a term on
            // one side of a kink (k min(b, 0)^2, a one-sided wall) is met on one of the two.
            for (std::size_t i = 0; i < m.q.size() + m.qd.size(); ++i) x[i] = -x[i];
            for (std::size_t i = 0; i < d.nq; ++i) x[x.size() - 1 - i] = -x[x.size() - 1 - i];
            bases_.push_back(std::move(x));
        }
        // Every node's value at each base: at() evaluates again only what the parameters it
        // sets reach (the same values as a whole evaluation, a fraction of its work).
        for (auto const& x : bases_) base_values_.push_back(graph_->evaluate_program(rows_, order_, x));
    }

    // τ at base k with the parameters `which` set to `values`.
    std::vector<double> at(std::size_t k, std::vector<std::size_t> const& which, std::vector<double> const& values) const {
        std::vector<double> x = bases_[k];
        std::vector<std::size_t> changed;
        for (std::size_t j = 0; j < which.size(); ++j) {
            x[first_parameter_ + which[j]] = values[j];
            changed.push_back(first_parameter_ + which[j]);
        }
        return graph_->evaluate_changed(rows_, order_, x, base_values_[k], changed);
    }

    // Whether τ is affine in the parameters `which` (jointly): f(a) + f(b) = f(c) + f(a + b − c)
    // at random a, b, c, at each base.
    bool affine(std::vector<std::size_t> const& which, std::uint64_t seed) const {
        std::uint64_t state = seed;
        auto next = [&] { return uniform(state); };
        for (std::size_t k = 0; k < bases_.size(); ++k) {
            std::vector<double> a(which.size()), b(which.size()), c(which.size()), e(which.size());
            for (std::size_t j = 0; j < which.size(); ++j) a[j] = next(), b[j] = next(), c[j] = next(), e[j] = a[j] + b[j] - c[j];
            auto const fa = at(k, which, a), fb = at(k, which, b), fc = at(k, which, c), fe = at(k, which, e);
            for (std::size_t i = 0; i < fa.size(); ++i) {
                double const scale = std::abs(fa[i]) + std::abs(fb[i]) + std::abs(fc[i]) + std::abs(fe[i]) + 1e-300;
                double const gap = std::abs(fa[i] + fb[i] - fc[i] - fe[i]);
                if (!std::isfinite(gap) || gap > 1e-9 * scale) return false;
            }
        }
        return true;
    }

    // Whether τ has a term that multiplies a parameter of `a` by one of `b` (each affine alone):
    // the mixed second difference f(a1, b1) − f(a1, b0) − f(a0, b1) + f(a0, b0), with each
    // group moved along a random direction, vanishes at every base exactly where it has none.
    bool couples(std::vector<std::size_t> const& a, std::vector<std::size_t> const& b, std::uint64_t seed) const {
        std::uint64_t state = seed;
        auto next = [&] { return uniform(state); };
        std::vector<std::size_t> which = a;
        which.insert(which.end(), b.begin(), b.end());
        for (std::size_t k = 0; k < bases_.size(); ++k) {
            std::vector<double> v0(which.size()), v1(which.size());
            for (std::size_t j = 0; j < which.size(); ++j) v0[j] = next(), v1[j] = next();
            auto mixed = [&](bool first, bool second) {
                std::vector<double> v(which.size());
                for (std::size_t j = 0; j < which.size(); ++j) v[j] = (j < a.size() ? first : second) ? v1[j] : v0[j];
                return at(k, which, v);
            };
            auto const f11 = mixed(true, true), f10 = mixed(true, false), f01 = mixed(false, true), f00 = mixed(false, false);
            for (std::size_t i = 0; i < f11.size(); ++i) {
                double const scale = std::abs(f11[i]) + std::abs(f10[i]) + std::abs(f01[i]) + std::abs(f00[i]) + 1e-300;
                double const gap = std::abs(f11[i] - f10[i] - f01[i] + f00[i]);
                if (!std::isfinite(gap) || gap > 1e-9 * scale) return true;
            }
        }
        return false;
    }

    // The graph's size: what one evaluation of τ costs, about.
    double nodes() const {
        int largest = 0;
        for (int r : rows_) largest = std::max(largest, r);
        return static_cast<double>(largest + 1);
    }

    // Whether τ changes with the parameter j at all (a parameter it does not read has a zero column).
    bool reads(std::size_t j) const {
        for (std::size_t k = 0; k < bases_.size(); ++k) {
            auto const a = at(k, {j}, {0.7}), b = at(k, {j}, {1.3});
            for (std::size_t i = 0; i < a.size(); ++i)
                if (std::abs(a[i] - b[i]) > 1e-12 * (std::abs(a[i]) + std::abs(b[i]))) return true;
        }
        return false;
    }

    // Whether τ vanishes where the parameters `which` are all zero.
    bool vanishes_without(std::vector<std::size_t> const& which) const {
        for (std::size_t k = 0; k < bases_.size(); ++k) {
            auto const zero = at(k, which, std::vector<double>(which.size(), 0.0));
            auto const one = at(k, which, std::vector<double>(which.size(), 1.0));
            double scale = 1e-300;
            for (double v : one) scale = std::max(scale, std::abs(v));
            for (double v : zero)
                if (!(std::abs(v) <= 1e-12 * scale)) return false;
        }
        return true;
    }

private:
    std::vector<std::string> order_;
    std::unique_ptr<expression_graph> graph_;
    std::vector<int> rows_;
    std::size_t first_parameter_ = 0;
    std::vector<std::vector<double>> bases_;
    std::vector<std::vector<double>> base_values_; // every node's value at each base
};

// Every pair of candidates (indices into `candidates`) a term of τ multiplies together, into
// `conflict`: within a group, the pairs of its halves' own and those across them; across two
// groups, none where no term couples them (tau_sampler::couples), else by halving the larger.
void find_conflicts(tau_sampler const& tau, std::vector<std::size_t> const& candidates,
                    std::vector<std::vector<bool>>& conflict) {
    auto parameters = [&](std::size_t begin, std::size_t end) {
        return std::vector<std::size_t>(candidates.begin() + static_cast<std::ptrdiff_t>(begin),
                                        candidates.begin() + static_cast<std::ptrdiff_t>(end));
    };
    std::function<void(std::size_t, std::size_t, std::size_t, std::size_t)> across =
        [&](std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1) {
            if (!tau.couples(parameters(a0, a1), parameters(b0, b1), 0x70616972ull + a0 * 7919 + b0 * 104729 + a1 + b1))
                return;
            if (a1 - a0 == 1 && b1 - b0 == 1) {
                conflict[a0][b0] = conflict[b0][a0] = true;
                return;
            }
            if (a1 - a0 >= b1 - b0) {
                std::size_t const half = a0 + (a1 - a0) / 2;
                across(a0, half, b0, b1), across(half, a1, b0, b1);
            } else {
                std::size_t const half = b0 + (b1 - b0) / 2;
                across(a0, a1, b0, half), across(a0, a1, half, b1);
            }
        };
    std::function<void(std::size_t, std::size_t)> within = [&](std::size_t begin, std::size_t end) {
        if (end - begin < 2) return;
        std::size_t const half = begin + (end - begin) / 2;
        within(begin, half), within(half, end);
        across(begin, half, half, end);
    };
    within(0, candidates.size());
}

} // namespace

std::vector<std::size_t> regressor_parameters(model const& m, derived const& d, std::vector<std::string> const& names,
                                              std::string& error) {
    std::vector<std::size_t> chosen;
    for (auto const& name : names) {
        auto it = std::find_if(m.parameters.begin(), m.parameters.end(), [&](auto const& p) { return p.name == name; });
        if (it == m.parameters.end()) {
            error = "--regressor-parameters names '" + name + "', which is not a parameter of the model";
            return {};
        }
        std::size_t const j = static_cast<std::size_t>(it - m.parameters.begin());
        if (std::find(chosen.begin(), chosen.end(), j) != chosen.end()) {
            // Two columns for one parameter would be Y's column twice, and Y pi twice its term.
            error = "--regressor-parameters names '" + name + "' twice";
            return {};
        }
        chosen.push_back(j);
    }
    if (chosen.empty()) return {};
    tau_sampler const tau(m, d);
    for (std::size_t j : chosen)
        if (!tau.affine({j}, 0x616666696e65ull + j)) {
            error = "inverse dynamics is not linear in '" + m.parameters[j].name + "' (--regressor-parameters)";
            return {};
        }
    for (std::size_t a = 0; a < chosen.size(); ++a)
        for (std::size_t b = a + 1; b < chosen.size(); ++b)
            if (!tau.affine({chosen[a], chosen[b]}, 0x70616972ull + a * 977 + b)) {
                error = "inverse dynamics is not linear in '" + m.parameters[chosen[a]].name + "' and '" +
                        m.parameters[chosen[b]].name + "' together: a term multiplies them (--regressor-parameters)";
                return {};
            }
    if (!tau.vanishes_without(chosen)) {
        error = "inverse dynamics has terms free of the parameters given to --regressor-parameters, so it is not Y pi "
                "for them: add the parameters those terms hold";
        return {};
    }
    return chosen;
}

std::vector<std::size_t> regressor_parameters(model const& m, derived const& d) {
    std::size_t const np = m.parameters.size();
    if (np == 0 || d.inverse_dynamics.size() != d.nq || np > 400) return {};
    tau_sampler const tau(m, d);
    // A fixed budget of node evaluations (about a second): at four bases (two states and
    // their mirrors) the single tests cost 24 evaluations a parameter, the pairs 16 a pair.
    // Past it — trees of many bodies — no regressor is made; the decision depends on sizes
    // only, so runs stay alike (the same as at two bases with half the budget).
    double const budget = 6e8, per_evaluation = tau.nodes();
    if (24.0 * static_cast<double>(np) * per_evaluation > budget) return {};
    std::vector<std::size_t> candidates;
    for (std::size_t j = 0; j < np; ++j)
        if (tau.reads(j) && tau.affine({j}, 0x616666696e65ull + j)) candidates.push_back(j);
    double const pairs = static_cast<double>(candidates.size()) * static_cast<double>(candidates.size()) / 2;
    if ((24.0 * static_cast<double>(np) + 16.0 * pairs) * per_evaluation > budget) return {};
    // Conflicts: pairs τ is not affine in together, found by halving groups of candidates
    // that a term couples (a few tests per conflict instead of one per pair).
    std::size_t const c = candidates.size();
    std::vector<std::vector<bool>> conflict(c, std::vector<bool>(c, false));
    std::vector<std::size_t> degree(c, 0);
    find_conflicts(tau, candidates, conflict);
    for (std::size_t a = 0; a < c; ++a)
        for (std::size_t b = 0; b < c; ++b) degree[a] += conflict[a][b] ? 1 : 0;
    std::vector<std::size_t> by_degree(c);
    std::iota(by_degree.begin(), by_degree.end(), 0);
    std::stable_sort(by_degree.begin(), by_degree.end(), [&](std::size_t x, std::size_t y) { return degree[x] < degree[y]; });
    std::vector<std::size_t> chosen;
    std::vector<bool> taken(c, false);
    for (std::size_t x : by_degree) {
        bool free = true;
        for (std::size_t y = 0; y < c && free; ++y) free = !(taken[y] && conflict[x][y]);
        if (free) taken[x] = true;
    }
    for (std::size_t x = 0; x < c; ++x)
        if (taken[x]) chosen.push_back(candidates[x]);
    if (chosen.empty() || !tau.affine(chosen, 0x616c6cull) || !tau.vanishes_without(chosen)) return {};
    return chosen;
}

} // namespace lagc

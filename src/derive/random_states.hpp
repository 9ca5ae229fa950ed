// Stage 3's one way of checking a structure read from the model before it is used: values of
// expressions at pseudo-random states on the code generator's DAG (shared parts evaluated
// once), and the comparisons every strategy and structure search makes with them. A check
// that cannot judge (a value that is not finite, a number past the doubles) fails: the
// candidate is not taken, nothing is trusted unchecked.
#pragma once

#include "graph/expression_graph.hpp"
#include "model.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace lagc {

// Every symbol of the model (q, q̇, u, p, t) spelled for an expression_graph ("q[0]",
// "p[2]"), the spellings also in `order`: the order of the values evaluate_all takes.
std::map<std::string, symbol_spelling> graph_spellings(model const& m, std::vector<std::string>& order);

// A pseudo-random state in the order graph_spellings gives: q in [-1.4, 1.4], q̇ and u in
// [-1, 1], t in [0.2, 1.2], and each parameter at the default written for it, 0 included
// (where none is written, at a value invented in [0.6, 1.4]) or, to test an identity of the
// expressions rather than of the defaults, at random. From a fixed generator: the same on
// every machine.
enum class parameter_values { defaults, random };
std::vector<double> random_point(model const& m, std::uint64_t& state, parameter_values parameters);


// Values of expressions at pseudo-random states (q, q̇ and the parameters all at random),
// on the code generator's DAG (shared parts evaluated once): identities of the
// expressions are tested there.
class samples {
public:
    explicit samples(model const& m);
    std::size_t add(GiNaC::ex const& e); // its index among the values
    // `count` states from `seed`; false when a value is not finite (a model this test
    // cannot judge).
    bool evaluate(model const& m, std::uint64_t seed, int count);
    std::size_t count() const { return values_.size(); }
    double operator()(std::size_t sample, std::size_t k) const { return values_[sample][k]; }
    // Values a and b equal at every sample, to 1e-10 of their sizes plus `scale_a` + `scale_b`
    // (the size of the terms compared).
    bool same(std::size_t a, std::size_t b, double scale_a, double scale_b) const;
    // Each pair equal at every sample, to 1e-10 of the largest value compared.
    bool all_same(std::vector<std::array<std::size_t, 2>> const& pairs) const;

private:
    std::vector<std::string> order_;
    std::map<std::string, symbol_spelling> symbols_;
    expression_graph g_;
    std::vector<int> roots_;
    std::vector<std::vector<double>> values_;
    bool unjudged_ = false; // an expression could not be put into doubles
};

// C and G equal at two pseudo-random states, to 1e-10 of the largest value: how a
// structure read from the model is checked before it is used (a misread falls back to the
// term-by-term sums, it is not trusted).
bool agree_at_random_states(model const& m, GiNaC::exvector const& C, GiNaC::exvector const& G, std::uint64_t seed);

// Each row's parts (sums, as derived::residual_rows and inverse_dynamics hold them) sum to
// zero with `at` substituted, to 1e-9 of the parts' sizes, at three random states: a backward
// error, so the system's conditioning does not enter.
bool rows_vanish_at_random_states(model const& m, std::vector<GiNaC::exvector> const& rows, GiNaC::exmap const& at,
                                  std::uint64_t seed);
// The same, saying whether they differ or could not be judged (a value past the doubles on
// both graphs it tries), for a caller that gives the reason.
enum class rows_verdict { vanish, differ, unjudged };
rows_verdict rows_verdict_at_random_states(model const& m, std::vector<GiNaC::exvector> const& rows,
                                           GiNaC::exmap const& at, std::uint64_t seed);
// The rows' graph rows_vanish_at_random_states keeps for the next call on the same rows,
// dropped (forward_dynamics_attempts calls this when its candidates are checked).
void forget_residual_graph();

// a and b equal entry by entry, every entry finite, to `tolerance` of a's largest entry: the
// comparison of values that checks run on graphs of their own (derive_control.cpp's, whose
// variables include q̈ and directions).
bool values_agree(std::vector<double> const& a, std::vector<double> const& b, double tolerance = 1e-10);

// Operations of the expressions as the code generator would share them, on one graph kept
// for the derivation's counts until forget_operation_counts() (derive() calls it at its end).
std::size_t operations_of(model const& m, GiNaC::exvector const& e);
void forget_operation_counts();

} // namespace lagc

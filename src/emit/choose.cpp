// Stage 4: the one place that chooses how forward_dynamics is written. The closed form
// (M and h formed, M factorised and solved) always applies; derive's strategies
// (derived::forward_dynamics, derive/forward_dynamics.hpp) each offer a candidate or say why
// not. Each candidate is built as the helper it would be and scored in operations once shared
// values are counted once, against the closed form's terms with its factorisation and solves
// (closed_form_score); the fewest wins, with two rules before the scores:
// - without constraints, a closed form whose terms fit one function (--split) is written
//   inline with the unrolled factorisation, no helper called: nothing else is built;
// - quasi-velocities, where they apply (M alone singular, constraints), are taken unscored:
//   the closed form would factor M + rho A^T A, a system of nq unknowns, where they solve
//   blocks of at most four.
// The choice (fd_) travels with the files to the driver (the singular-M note, --explain).
#include "emit/emitter.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace lagc {
namespace emitting {

std::vector<std::pair<std::string, exvector>> emitter::dynamics_terms_outputs() {
    std::size_t const n = d_.nq;
    std::vector<std::pair<std::string, exvector>> terms;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j)
            terms.push_back({"M[" + std::to_string(i * n + j) + "]", {d_.mass_matrix[i * n + j]}});
    for (auto& b : bias_parts(true)) terms.push_back(std::move(b));
    return terms;
}

// The candidate's helper: D's pivots, H's block checks, q̈ and λ. The articulated-body
// algorithm's sums nest level after level, where unit scales can compound (docs/
// architecture.md): without constraints it is built with GiNaC's integer contents instead;
// over a floating root with constraints, both ways and the shorter kept (the humanoid: 14,420
// operations against 15,960; the quadruped keeps its unit scales, 6,408 against 7,365).
built_function emitter::candidate_function(fd_method method, fd_candidate const& c) {
    std::string const name = helper_name(method);
    std::vector<std::pair<std::string, exvector>> terms;
    auto add = [&](char const* array, exvector const& values) {
        for (std::size_t i = 0; i < values.size(); ++i)
            terms.push_back({std::string(array) + "[" + std::to_string(i) + "]", {values[i]}});
    };
    add("D", c.pivots);
    if (d_.nc == 0) {
        add("x", c.qdd);
        return build(name, terms, {}, false);
    }
    add("H", c.blocks);
    add("x", c.qdd);
    add("l", c.lambda);
    built_function f = build(name, terms);
    if (method != fd_method::floating_articulated_body) return f;
    built_function g = build(name, terms, {}, false);
    return g.stats.operations_after_cse < f.stats.operations_after_cse ? std::move(g) : std::move(f);
}

namespace {

// Ties go to the earlier here: the root body's axes (they drop its turn from every position),
// then world axes, then the floating-root form (which handles more, at more cost).
int preference(fd_method m) {
    switch (m) {
    case fd_method::articulated_body_root_axes: return 0;
    case fd_method::articulated_body: return 1;
    case fd_method::floating_articulated_body: return 2;
    default: return 3;
    }
}

} // namespace

void emitter::choose_forward_dynamics() {
    std::size_t const nc = d_.nc;
    fd_.trace.assign(1, {fd_method::closed_form, 0, {}});
    for (auto const& a : d_.forward_dynamics) fd_.trace.push_back({a.method, 0, a.candidate ? "" : a.reason});
    auto entry = [&](fd_method m) -> forward_dynamics_choice::entry& {
        return *std::find_if(fd_.trace.begin(), fd_.trace.end(), [m](auto const& e) { return e.method == m; });
    };
    auto take = [&](fd_method m, std::string rule) {
        fd_.method = m;
        fd_.rule = std::move(rule);
        chosen_ = m == fd_method::closed_form ? nullptr : candidate_of(d_, m);
    };
    if (fd_candidate const* q = candidate_of(d_, fd_method::quasi_velocities)) {
        chosen_built_ = candidate_function(fd_method::quasi_velocities, *q);
        entry(fd_method::quasi_velocities).operations = chosen_built_->stats.operations_after_cse;
        for (auto& e : fd_.trace)
            if (e.note.empty() && e.operations == 0) e.note = "not built: quasi-velocities apply";
        return take(fd_method::quasi_velocities, "M alone is singular: quasi-velocities solve blocks of at most 4 "
                                                 "where the closed form factors M + rho A^T A (taken unscored)");
    }
    closed_built_ = build("dynamics_terms", dynamics_terms_outputs());
    std::size_t const terms = closed_built_->stats.operations_after_cse;
    closed_inline_ = nc == 0 && unrolls_mass_matrix() && terms <= o_.split_operations;
    std::size_t const closed = closed_form_score(terms);
    entry(fd_method::closed_form).operations = closed;
    entry(fd_method::closed_form).note = fmt::format("M and h {} operations, the factorisation and solves {}", terms,
                                                     closed - terms);
    if (closed_inline_) {
        for (auto& e : fd_.trace)
            if (e.method != fd_method::closed_form && e.note.empty()) e.note = "not built: the closed form fits one function";
        return take(fd_method::closed_form, fmt::format("M and h fit one function ({} operations, --split {}): written "
                                                        "inline with the unrolled factorisation",
                                                        terms, o_.split_operations));
    }
    std::optional<fd_method> best;
    std::size_t best_operations = 0;
    for (auto const& a : d_.forward_dynamics) {
        if (!a.candidate) continue;
        built_function f = candidate_function(a.method, *a.candidate);
        std::size_t const ops = f.stats.operations_after_cse;
        entry(a.method).operations = ops;
        if (!best || ops < best_operations || (ops == best_operations && preference(a.method) < preference(*best))) {
            best = a.method, best_operations = ops;
            chosen_built_ = std::move(f);
        }
    }
    if (best && best_operations < closed)
        return take(*best, fmt::format("fewest operations: {} against the closed form's {}", best_operations, closed));
    chosen_built_.reset();
    take(fd_method::closed_form, best ? fmt::format("fewest operations: {} against the best candidate's {}", closed,
                                                    best_operations)
                                      : "no other method applies");
}

} // namespace emitting

std::string explain(forward_dynamics_choice const& c) {
    std::string out = fmt::format("forward_dynamics: {} ({})\n", name_of(c.method), c.rule);
    for (auto const& e : c.trace) {
        std::string what = e.operations > 0 ? fmt::format("{} operations", e.operations) : std::string();
        if (!e.note.empty()) what += (what.empty() ? "" : "; ") + e.note;
        if (e.operations == 0 && e.note.empty()) what = "not built";
        out += fmt::format("  {:<28}{}{}\n", name_of(e.method), what, e.method == c.method ? "  <- chosen" : "");
    }
    return out;
}

} // namespace lagc

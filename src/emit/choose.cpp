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
// coriolis_matrix's four forms (coriolis_method) are chosen here too, by operations.
#include "derive/random_states.hpp"
#include "emit/emitter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace lagc {
namespace emitting {

std::vector<std::pair<std::string, exvector>> emitter::dynamics_terms_outputs(bool recursive) {
    std::size_t const n = d_.nq;
    std::vector<std::pair<std::string, exvector>> terms;
    exvector const& M = recursive ? d_.mass_matrix_recursive : d_.mass_matrix;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) terms.push_back({"M[" + std::to_string(i * n + j) + "]", {M[i * n + j]}});
    if (!recursive) {
        for (auto& b : bias_parts(true)) terms.push_back(std::move(b));
        return terms;
    }
    for (std::size_t i = 0; i < n; ++i) {
        exvector b;
        for (ex const& e : d_.bias_recursive[i]) b.push_back(-e);
        terms.push_back({"b[" + std::to_string(i) + "]", b});
    }
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

// The code as it will be written, at two random states (parameters at their defaults): a
// candidate's exact constants (GiNaC's integer contents, level after level of the
// articulated-body algorithm) can leave the doubles at run time where the derivation's own
// check, on the expressions at other scales, held (a random robot file's oblique frames:
// values of 1e170 multiplied together, every call Inf).
std::array<bool, 2> emitter::finite_at_random_states(built_function const& f) const {
    std::vector<std::string> graph_order;
    std::map<std::string, std::string> spelled; // the derivation's spelling -> this code's
    for (auto const& [name, s] : graph_spellings(m_, graph_order))
        if (auto it = symbols_.find(name); it != symbols_.end()) spelled[s.text] = it->second.text;
    std::vector<int> roots;
    for (auto const& root : f.roots) roots.push_back(root.second);
    std::array<bool, 2> finite = {true, true};
    std::uint64_t state = 0x66696e697465ull;
    for (bool& at : finite) {
        std::vector<double> const point = random_point(m_, state, parameter_values::defaults);
        std::vector<std::string> variables;
        std::vector<double> values;
        for (std::size_t i = 0; i < graph_order.size(); ++i)
            if (auto it = spelled.find(graph_order[i]); it != spelled.end())
                variables.push_back(it->second), values.push_back(point[i]);
        for (double v : f.graph->evaluate_all(roots, variables, values)) at = at && std::isfinite(v);
    }
    return finite;
}

namespace {

// Ties go to the earlier here: the root body's axes (they drop its turn from every position),
// then world axes, then each body's own, then the floating-root form (which handles more, at
// more cost).
int preference(fd_method m) {
    switch (m) {
    case fd_method::articulated_body_root_axes: return 0;
    case fd_method::articulated_body: return 1;
    case fd_method::articulated_body_local_axes: return 2;
    case fd_method::floating_articulated_body: return 3;
    default: return 4;
    }
}

} // namespace

method_choice::entry& emitter::trace_entry(method_choice& c, std::string_view method) {
    return *std::find_if(c.trace.begin(), c.trace.end(), [&](auto const& e) { return e.method == method; });
}

void emitter::choose_forward_dynamics() {
    std::size_t const nc = d_.nc;
    fd_choice_ = {"forward_dynamics", {}, {}, {{std::string(name_of(fd_method::closed_form)), 0, {}}}};
    for (auto const& a : d_.forward_dynamics)
        fd_choice_.trace.push_back({std::string(name_of(a.method)), 0, a.candidate ? "" : a.reason});
    auto entry = [&](fd_method m) -> method_choice::entry& { return trace_entry(fd_choice_, name_of(m)); };
    auto take = [&](fd_method m, std::string rule) {
        fd_ = m;
        fd_choice_.method = name_of(m);
        fd_choice_.rule = std::move(rule);
        chosen_ = m == fd_method::closed_form ? nullptr : candidate_of(d_, m);
    };
    if (fd_candidate const* q = candidate_of(d_, fd_method::quasi_velocities)) {
        chosen_built_ = candidate_function(fd_method::quasi_velocities, *q);
        entry(fd_method::quasi_velocities).operations = chosen_built_->stats.operations_after_cse;
        for (auto& e : fd_choice_.trace)
            if (e.note.empty() && e.operations == 0) e.note = "not built: quasi-velocities apply";
        return take(fd_method::quasi_velocities, "M alone is singular: quasi-velocities solve blocks of at most 4 "
                                                 "where the closed form factors M + rho A^T A (taken unscored)");
    }
    closed_built_ = build("dynamics_terms", dynamics_terms_outputs(false));
    // M by composite rigid bodies and h by Newton–Euler in the bodies' own axes where both
    // apply and are fewer operations together (the generic 6-joint arm's 1,738 -> 1,216, its
    // forward dynamics 4,052 -> 3,217 instructions a call; at 10 joints 3,357 operations
    // against the articulated-body algorithm's 3,848).
    bool recursive_terms = false;
    if (nc == 0 && !d_.mass_matrix_recursive.empty() && !d_.bias_recursive.empty()) {
        built_function recursive = build("dynamics_terms", dynamics_terms_outputs(true), "in the bodies' own axes");
        if (recursive.stats.operations_after_cse < closed_built_->stats.operations_after_cse)
            closed_built_ = std::move(recursive), recursive_terms = true;
    }
    std::size_t const terms = closed_built_->stats.operations_after_cse;
    closed_inline_ = nc == 0 && unrolls_mass_matrix() && (terms <= o_.split_operations || o_.writes_whole("dynamics_terms"));
    std::size_t const closed = closed_form_score(terms);
    entry(fd_method::closed_form).operations = closed;
    entry(fd_method::closed_form).note =
        fmt::format("M and h {} operations{}, the factorisation and solves {}", terms,
                    recursive_terms ? " (composite rigid bodies and Newton-Euler in the bodies' axes)" : "", closed - terms);
    if (closed_inline_) {
        for (auto& e : fd_choice_.trace)
            if (e.operations == 0 && e.note.empty()) e.note = "not built: the closed form fits one function";
        return take(fd_method::closed_form, fmt::format("M and h fit one function ({} operations, --split {}): written "
                                                        "inline with the unrolled factorisation",
                                                        terms, o_.split_operations));
    }
    std::optional<fd_method> best;
    std::size_t best_operations = 0;
    std::array<bool, 2> const closed_finite = finite_at_random_states(*closed_built_);
    for (auto const& a : d_.forward_dynamics) {
        if (!a.candidate) continue;
        built_function f = candidate_function(a.method, *a.candidate);
        std::size_t const ops = f.stats.operations_after_cse;
        std::array<bool, 2> const finite = finite_at_random_states(f);
        if ((!finite[0] && closed_finite[0]) || (!finite[1] && closed_finite[1])) {
            entry(a.method).note = "its code's numbers leave the doubles at random states, the closed form's do not";
            continue;
        }
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

std::string_view name_of(coriolis_method method) {
    switch (method) {
    case coriolis_method::christoffel: return "christoffel";
    case coriolis_method::half_bias_derivative: return "half_bias_derivative";
    case coriolis_method::composite_shares: return "composite_shares";
    case coriolis_method::rnea_derivatives_local_axes: return "rnea_derivatives_local_axes";
    }
    return "christoffel";
}

// C four ways, the one with fewer operations kept: from the Christoffel symbols (derive),
// as ½ ∂h/∂q̇ on the code graph, or the same with the points' share from their composites
// (derived::composite_derivatives), or with the tree's share from the RNEA derivatives built
// link by link in the bodies' axes (derived::recursive_derivatives: an arm with offsets in
// every direction, 10 links: 9,991 operations instead of the composites' 17,792; 20 links:
// 30,393 instead of 114,365). They are one matrix: h = C q̇ + ∂V/∂q with
// h_k = q̇ᵀ Γ_k q̇, Γ_k symmetric, so ∂h_k/∂q̇_j = 2 (Γ_k q̇)_j = 2 C_kj. The derivative of h is
// smaller where h is compact and M is not (a 20-link relative-angle chain: 4,186 operations
// instead of 14,985); the Christoffel form where M is simple (absolute-angle chains, small
// models); the composites on 3-D arms (the 10-joint arm: 8,770 instead of 11,277). Where the
// fewer of the analytic forms has composite_alone operations or more it is kept unscored: the
// others were never smaller there, and building them cost lagc a tenth more time on the
// 10-joint arm.
void emitter::coriolis_matrix() {
    if (!d_.coriolis) return;
    coriolis_choice_ = {"coriolis_matrix", {}, {}, {}};
    for (coriolis_method m : coriolis_methods) coriolis_choice_.trace.push_back({std::string(name_of(m)), 0, {}});
    auto entry = [&](coriolis_method m) -> method_choice::entry& { return trace_entry(coriolis_choice_, name_of(m)); };
    auto write = [&](built_function f, coriolis_method m, std::string rule) {
        coriolis_choice_.method = name_of(m);
        coriolis_choice_.rule = std::move(rule);
        write_function(std::move(f), with_output(inputs({"q", "qd", "p"}), "C"), text("comments.tpl#coriolis_matrix"),
                       cxx_printer::place::api);
    };
    // The analytic forms first: the composites' and the RNEA derivatives' in the bodies' axes.
    std::vector<std::pair<coriolis_method, built_function>> analytic;
    auto from = [&](std::optional<derived::composite_derivatives> const& pd, coriolis_method m, char const* note,
                    std::string why_not) {
        if (!pd) {
            entry(m).note = std::move(why_not);
            return;
        }
        std::vector<exvector> half_rest;
        for (ex const& e : pd->bias_rest) half_rest.push_back({e / 2});
        try {
            analytic.emplace_back(m, build_jacobian("coriolis_matrix", {{half_rest, spellings({"qd"}), &pd->coriolis}},
                                                    "C", false, note));
        } catch (std::exception const& e) {
            // The composites' form fails as it did (the only form once); the others are alternatives.
            if (m == coriolis_method::composite_shares) throw;
            entry(m).note = std::string("not built: ") + e.what();
            return;
        }
        entry(m).operations = analytic.back().second.stats.operations_after_cse;
    };
    from(d_.point_derivatives, coriolis_method::composite_shares, "from the composites",
         "no analytic derivatives of the points' composites");
    from(d_.recursive_derivatives, coriolis_method::rnea_derivatives_local_axes,
         "from the RNEA derivatives in the bodies' axes", d_.recursive_derivatives_why);
    // Kept unscored where the composites' form is large (measured on it: the others were never
    // smaller), the fewer analytic form.
    std::size_t smallest = 0;
    bool large = false;
    for (std::size_t k = 0; k < analytic.size(); ++k) {
        if (analytic[k].second.stats.operations_after_cse < analytic[smallest].second.stats.operations_after_cse)
            smallest = k;
        if (analytic[k].first == coriolis_method::composite_shares)
            large = analytic[k].second.stats.operations_after_cse >= composite_alone;
    }
    if (large) {
        std::size_t const ops = analytic[smallest].second.stats.operations_after_cse;
        std::string const why = analytic.size() > 1 ? "the analytic forms are large" : "the composites' form is large";
        for (auto& e : coriolis_choice_.trace)
            if (e.operations == 0 && e.note.empty()) e.note = "not built: " + why;
        return write(std::move(analytic[smallest].second), analytic[smallest].first,
                     fmt::format("{} operations, at least {}: {}kept unscored", ops, composite_alone,
                                 analytic.size() > 1 ? "the fewer of the analytic forms, " : ""));
    }
    std::vector<std::pair<coriolis_method, built_function>> built;
    built.emplace_back(coriolis_method::christoffel, build("coriolis_matrix", entries("C", *d_.coriolis)));
    std::vector<exvector> half_h;
    for (auto const& [target, parts] : bias_parts(false, true)) {
        exvector half;
        for (auto const& e : parts) half.push_back(e / 2);
        half_h.push_back(std::move(half));
    }
    try {
        built.emplace_back(coriolis_method::half_bias_derivative,
                           build_jacobian("coriolis_matrix", half_h, spellings({"qd"}), "C", false, "from dh/dqd"));
    } catch (std::exception const& e) {
        // Only an alternative (past --max-operations before its rewrites, say): keep the first.
        entry(coriolis_method::half_bias_derivative).note = std::string("not built: ") + e.what();
    }
    for (auto& f : analytic) built.push_back(std::move(f));
    std::size_t best = 0;
    for (std::size_t k = 0; k < built.size(); ++k) {
        entry(built[k].first).operations = built[k].second.stats.operations_after_cse;
        if (built[k].second.stats.operations_after_cse < built[best].second.stats.operations_after_cse) best = k;
    }
    coriolis_method const m = built[best].first;
    write(std::move(built[best].second), m, built.size() > 1 ? "fewest operations" : "the only form built");
}

std::string_view name_of(inverse_dynamics_method method) {
    switch (method) {
    case inverse_dynamics_method::composite_sums: return "composite_sums";
    case inverse_dynamics_method::newton_euler_local_axes: return "newton_euler_local_axes";
    }
    return "composite_sums";
}

// One function two ways, the one with fewer operations kept and traced in `c`: as derive formed
// it (`sums`, named `first`), and by a recursive algorithm in the tree's own axes where derive
// found it (`recursive`, named `second`; empty, with `why`, where it does not apply).
built_function emitter::smaller_form(method_choice& c, std::string_view first, std::string_view second,
                                     built_function sums, std::optional<built_function> recursive,
                                     std::string const& why) {
    c.trace = {{std::string(first), sums.stats.operations_after_cse, {}}, {std::string(second), 0, why}};
    auto take = [&](std::string_view m, std::string rule) {
        c.method = std::string(m);
        c.rule = std::move(rule);
    };
    if (!recursive) {
        take(first, "the only form that applies");
        return sums;
    }
    c.trace[1].operations = recursive->stats.operations_after_cse;
    take(c.trace[1].operations < c.trace[0].operations ? second : first, "fewest operations");
    return c.method == second ? std::move(*recursive) : std::move(sums);
}

// τ: M q̈ + h − Q as derive formed it (the composites' sums in world axes), or by the recursive
// Newton–Euler algorithm in the tree's own axes (derived::inverse_dynamics_recursive), which
// costs a few products per joint where the world's axes carry every twist and R J Rᵀ (a 3-D
// arm whose offsets and axes point every way).
built_function emitter::chosen_inverse_dynamics() {
    inverse_dynamics_choice_ = {"inverse_dynamics", {}, {}, {}};
    auto built = [&](std::vector<exvector> const& rows) {
        std::vector<std::pair<std::string, exvector>> tau;
        for (std::size_t i = 0; i < d_.nq; ++i) tau.push_back({"tau[" + std::to_string(i) + "]", rows[i]});
        return build("inverse_dynamics", tau);
    };
    auto const& recursive = d_.inverse_dynamics_recursive;
    return smaller_form(inverse_dynamics_choice_, name_of(inverse_dynamics_methods[0]), name_of(inverse_dynamics_methods[1]),
                        built(d_.inverse_dynamics),
                        recursive.empty() ? std::nullopt : std::optional<built_function>(built(recursive)),
                        d_.inverse_dynamics_recursive_why);
}

std::string_view name_of(mass_matrix_method method) {
    switch (method) {
    case mass_matrix_method::composite_sums: return "composite_sums";
    case mass_matrix_method::composite_rigid_body_local_axes: return "composite_rigid_body_local_axes";
    }
    return "composite_sums";
}

// M as derive formed it (the composites' sums in world axes), or by the composite-rigid-body
// algorithm in the tree's own axes (derived::mass_matrix_recursive): a transform of one
// composite inertia per joint and one of a force per pair, with each joint's axis a constant
// there.
built_function emitter::chosen_mass_matrix() {
    mass_matrix_choice_ = {"mass_matrix", {}, {}, {}};
    auto const& recursive = d_.mass_matrix_recursive;
    return smaller_form(mass_matrix_choice_, name_of(mass_matrix_methods[0]), name_of(mass_matrix_methods[1]),
                        build("mass_matrix", entries("M", d_.mass_matrix)),
                        recursive.empty() ? std::nullopt
                                          : std::optional<built_function>(build("mass_matrix", entries("M", recursive))),
                        d_.mass_matrix_recursive_why);
}

} // namespace emitting

method_choice mass_bias_choice_of(derived const& d) {
    method_choice c{"mass_matrix and bias_forces", std::string(name_of(d.mass_bias.method)), d.mass_bias.rule, {}};
    for (auto const& e : d.mass_bias.trace) c.trace.push_back({std::string(name_of(e.method)), e.operations, e.note});
    return c;
}

std::string explain(method_choice const& c) {
    std::string out = fmt::format("{}: {} ({})\n", c.function, c.method, c.rule);
    std::size_t width = 28; // a column, wider where a name needs it
    for (auto const& e : c.trace) width = std::max(width, e.method.size() + 2);
    for (auto const& e : c.trace) {
        std::string what = e.operations > 0 ? fmt::format("{} operations", e.operations) : std::string();
        if (!e.note.empty()) what += (what.empty() ? "" : "; ") + e.note;
        if (e.operations == 0 && e.note.empty() && e.method != c.method) what = "not built";
        out += fmt::format("  {:<{}}{}{}\n", e.method, width, what, e.method == c.method ? "  <- chosen" : "");
    }
    return out;
}

} // namespace lagc

// Stage 4: the control API — state_derivative, linearization (exact A and B through the
// residual Jacobians of derive_control.cpp and forward_dynamics' factorisations),
// inverse_dynamics, input_matrix — and fixed-step integrators on x = [q; qd].
#include "emit/emitter.hpp"
#include "symbolic/dag.hpp"
#include "symbolic/simplify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace lagc::emitting {

namespace {
// "t, " when the model uses t (and the same with an offset), else "".
std::string time_argument(bool uses_time, std::string const& offset = "") {
    return uses_time ? "t" + offset + ", " : "";
}
} // namespace

std::vector<cxx_argument> emitter::state_arguments(bool in_place) const {
    std::vector<cxx_argument> a;
    if (m_.uses_time) a.push_back({"t", scalar()});
    a.push_back({"x", in_place ? scalar() + "*" : "const " + scalar() + "*"});
    a.push_back({"u", "const " + scalar() + "*"});
    a.push_back({"p", dialect_.parameters_type});
    return a;
}

std::vector<std::string> emitter::spellings(std::initializer_list<char const*> arrays) const {
    std::vector<std::string> out;
    for (std::string a : arrays) {
        std::size_t const size = a == "u" ? d_.nu : d_.nq;
        for (std::size_t i = 0; i < size; ++i) out.push_back(a + "[" + std::to_string(i) + "]");
    }
    return out;
}

void emitter::state_derivative() {
    auto args = with_output(state_arguments(false), "xdot");
    args.back().may_alias = true; // xdot = x works: x is read before xdot is written
    std::string body = text("control.tpl#state_derivative",
                            {{"scalar", scalar()}, {"t", time_argument(m_.uses_time)}, {"math", math()}});
    out_.declare("int", "state_derivative", args, text("comments.tpl#state_derivative"));
    out_.define("int", "state_derivative", args, {"t", "x", "u", "p", "xdot"}, body, "", cxx_printer::place::api);
}

void emitter::linearization() {
    std::size_t const nc = d_.nc;
    auto terms_args = inputs({"q", "qd", "u", "p", "qdd"});
    if (nc > 0) terms_args.push_back({"lambda", "const " + scalar() + "*"});
    // Where C applies, ∂R_i/∂q̇ = ∂h_i/∂q̇ − ∂Q_i/∂q̇ = 2 C_i − ∂Q_i/∂q̇ (h_i = q̇ᵀ Γ_i q̇ + ∂V/∂q_i,
    // Γ_i symmetric). Where C has more than --reuse-above operations (default 8000), those
    // columns call coriolis_matrix instead of repeating it: the 10-joint 3-D arm's file
    // 62,120 -> 52,244 operations (g++ -O2 about 12% faster), its linearization 4.7% more
    // instructions per call (the q and q̇ columns shared some parts).
    auto const coriolis_stats = std::find_if(stats_.begin(), stats_.end(),
                                             [](function_stats const& s) { return s.name == "coriolis_matrix"; });
    bool const with_coriolis = coriolis_stats != stats_.end() && coriolis_stats->operations_after_cse > o_.reuse_operations;
    std::vector<exvector> forces_only;
    if (with_coriolis) {
        forces_only = d_.residual_rows; // the constraint rows S keep their q̇ columns
        for (std::size_t i = 0; i < d_.nq; ++i) forces_only[i] = {-d_.generalized_forces[i]};
    }
    // With analytic derivatives (derived::composite_derivatives: the composites', or the RNEA
    // derivatives built in the bodies' axes): along q the rest's and ∂τ/∂q's share; along q̇
    // (where C is not called) the rest's and 2 C's share.
    auto terms = [&](derived::composite_derivatives const* pd, char const* note) {
        bool const shared_qd = pd && !with_coriolis;
        return build_jacobian("linearization_terms",
                              {{pd ? pd->residual_rest : d_.residual_rows, spellings({"q"}), pd ? &pd->dtau_dq : nullptr},
                               {with_coriolis ? forces_only : shared_qd ? pd->residual_rest : d_.residual_rows,
                                spellings({"qd"}), shared_qd ? &pd->dtau_dqd : nullptr},
                               {d_.residual_rows, spellings({"u"})}},
                              "J", true, note);
    };
    built_function kept = chosen_linearization_terms(terms);
    write_function(std::move(kept), with_output(terms_args, "J"), text("comments.tpl#linearization_terms"),
                   cxx_printer::place::helper);
    out_.add_helpers(text("control.tpl#linearization_status",
                          {{"linkage", helper_linkage()}, {"scalar", scalar()}, {"zero", single() ? "0.0f" : "0.0"}, {"math", math()}}));
    factorisation const mf = mass_factorisation();
    std::string const coriolis =
        with_coriolis ? text("control.tpl#linearization_coriolis",
                             {{"args_q_qd_p", cxx_printer::input_arguments(inputs({"q", "qd", "p"}))}, {"scalar", scalar()}})
                      : "";
    std::string const columns = linearization_columns(mf, coriolis);
    auto args = with_output(with_output(inputs({"q", "qd", "u", "p"}), "A"), "B");
    char const* const section = nc > 0                       ? "control.tpl#linearization_constrained"
                                : forward_dynamics_factored_ ? "control.tpl#linearization_factored"
                                                             : "control.tpl#linearization";
    std::string const call_args = cxx_printer::input_arguments(inputs({"q", "qd", "u", "p"}));
    std::vector<std::pair<std::string, std::string>> const values = {
        {"scalar", scalar()},
        {"factor", mf.factor},
        {"solve", nc > 0 ? mass_solve(mf) : mf.solve},
        {"args", call_args},
        {"args_q_p", cxx_printer::input_arguments(inputs({"q", "p"}))},
        {"coriolis", coriolis},
        {"augment", nc > 0 ? augmented("linearization") : ""},
        {"augment_column", nc > 0 ? augmented("linearization_column") : ""},
        // The twin takes J and Ac as linearization computed them (its factorisation changes
        // only M): linearization_terms stays called once, and inlined.
        {"singular", on_singular_mass("linearization", cxx_printer::input_arguments(inputs({"q", "p"})) + "J, Ac, A, B",
                                      "1")}};
    std::vector<std::string> const used = {"t", "q", "qd", "u", "p", "A", "B"};
    std::string body = text(section, values);
    if (nc > 0) body += constrained_linearization_tail(values, args);
    body += columns;
    out_.declare("int", "linearization", args, text("comments.tpl#linearization"));
    out_.define("int", "linearization", args, used, body, "", cxx_printer::place::api);
}

// linearization_terms as `terms` builds it: with the fewer of the analytic forms, or with
// none where that is smaller (built unless the composites' form is large: composite_alone).
// An arm with offsets in every direction, 10 and 20 links: the RNEA derivatives' 12,599 and
// 36,118 operations, the composites' 27,754 and 198,217. Where coriolis_matrix built both,
// only those within a tenth of the fewer's operations there are built here: the two
// functions' sizes go together, and each form built costs lagc time (the generic 30-joint
// arm: 1.3 s for both functions).
built_function emitter::chosen_linearization_terms(
    std::function<built_function(derived::composite_derivatives const*, char const*)> const& terms) {
    auto const& trace = coriolis_choice_.trace;
    auto operations_of = [&](coriolis_method m) {
        auto const e = std::find_if(trace.begin(), trace.end(), [&](auto const& x) { return x.method == name_of(m); });
        return e == trace.end() ? std::size_t(0) : e->operations;
    };
    std::size_t const composite_c = operations_of(coriolis_method::composite_shares),
                      recursive_c = operations_of(coriolis_method::rnea_derivatives_local_axes);
    auto worth = [&](std::size_t own, std::size_t other) { return own == 0 || other == 0 || 10 * own <= 11 * other; };
    // Of two, the one coriolis_matrix took unless the other is a tenth smaller: it shares its
    // parts with coriolis_matrix's (arm7.urdf: the other form's 5,473 operations against
    // 5,685 made the file 13,239 -> 15,623 operations).
    // The composites' form is large where its C was (or, C not built, its form here is).
    std::optional<built_function> analytic;
    bool analytic_shared = false, large = composite_c >= composite_alone;
    for (auto const& [pd, note, built, method] :
         {std::tuple{&d_.point_derivatives, "with the composites' derivatives", worth(composite_c, recursive_c),
                     coriolis_method::composite_shares},
          std::tuple{&d_.recursive_derivatives, "with the RNEA derivatives in the bodies' axes",
                     worth(recursive_c, composite_c), coriolis_method::rnea_derivatives_local_axes}}) {
        if (!*pd || !built) continue;
        std::optional<built_function> form;
        try {
            form = terms(&**pd, note);
        } catch (std::exception const&) { // past --max-operations, say: the composites' form fails as it did
            if (method == coriolis_method::composite_shares) throw;
            continue;
        }
        built_function& f = *form;
        bool const shared = coriolis_choice_.method == name_of(method);
        std::size_t const ops = f.stats.operations_after_cse;
        if (method == coriolis_method::composite_shares) large = large || ops >= composite_alone;
        bool const better = !analytic || (shared ? 10 * ops < 11 * analytic->stats.operations_after_cse
                                                 : analytic_shared ? 10 * ops < 9 * analytic->stats.operations_after_cse
                                                                   : ops < analytic->stats.operations_after_cse);
        if (better) analytic = std::move(f), analytic_shared = shared;
    }
    bool const alone = analytic && large; // measured on the composites' form, as coriolis_matrix's
    built_function kept = alone ? std::move(*analytic) : terms(nullptr, "");
    if (!alone && analytic && analytic->stats.operations_after_cse < kept.stats.operations_after_cse)
        kept = std::move(*analytic);
    return kept;
}

// Without constraints, the rest of linearization after J: its columns solved with M's factor
// (eight, four or two at a time where the factor is unrolled: detail::solve_mass_matrix_x8,
// _x4, _x2) and stored into A and B; with constraints "" (constrained_linearization_tail). Adds
// the helpers either calls.
std::string emitter::linearization_columns(factorisation const& mf, std::string const& coriolis) {
    bool const pairs = d_.nc == 0 && mf.unrolled && o_.paired_solves;
    std::string const one = single() ? "1.0f" : "1.0", zero = single() ? "0.0f" : "0.0";
    if (!pairs)
        out_.add_helpers(text("control.tpl#store_column",
                              {{"linkage", helper_linkage()}, {"scalar", scalar()}, {"one", one}, {"zero", zero}}));
    if (d_.nc > 0) return "";
    if (!pairs)
        return text("control.tpl#linearization_columns", {{"scalar", scalar()}, {"solve", mass_solve(mf)}, {"coriolis", coriolis}});
    std::size_t const nq = d_.nq, nu = d_.nu;
    std::vector<std::size_t> const unit = unit_input_columns();
    std::string solve_b;
    if (!unit.empty()) {
        out_.add_helpers(unrolled_inverse_columns(unit));
        solve_b = fmt::format("    {}mass_matrix_inverse_columns(M, B + nq * nu);\n", dialect_.detail);
    } else {
        solve_b = block_solve_calls(2 * nq, nu - nu % 2, "B + nq * nu", "nu");
        if (nu % 2 != 0) solve_b += text("control.tpl#linearization_last_input", {{"scalar", scalar()}, {"solve", mass_solve(mf)}});
    }
    return text("control.tpl#linearization_blocks",
                {{"scalar", scalar()},
                 {"solve_a", block_solve_calls(0, 2 * nq, "A + 2 * nq * nq", "2 * nq")},
                 {"solve_b", solve_b},
                 {"coriolis", coriolis},
                 {"one", one},
                 {"zero", zero}});
}

// π with Q_π(c) = u_c + terms free of the inputs for every input c, and every other Q_i
// free of them; empty otherwise. There ∂Q/∂u's columns are unit vectors and B = M⁻¹ ∂Q/∂u
// is π's columns of M⁻¹.
// Read off Q's expressions, not differentiated: GiNaC's diff and has walk a shared chain as a
// tree (a force F a₆₀ with a_i = a_(i−1) + sin a_(i−1): 2⁶⁰ steps; tests/test_adversarial.cpp).
std::vector<std::size_t> emitter::unit_input_columns() const {
    std::size_t const nq = d_.nq, nu = d_.nu;
    if (nu == 0 || d_.generalized_forces.size() != nq) return {};
    std::vector<GiNaC::symbol> inputs;
    for (auto const& u : m_.u) inputs.push_back(GiNaC::ex_to<GiNaC::symbol>(u));
    std::vector<std::size_t> pi(nu, nq);
    // Q_i's terms (Q_i itself where it is no sum): one may be an input, the others free of them.
    for (std::size_t i = 0; i < nq; ++i) {
        GiNaC::ex const& Q = d_.generalized_forces[i];
        bool const sum = GiNaC::is_exactly_a<GiNaC::add>(Q);
        std::size_t const terms = sum ? Q.nops() : 1;
        bool found = false;
        for (std::size_t k = 0; k < terms; ++k) {
            GiNaC::ex const term = sum ? Q.op(k) : Q;
            auto const c = std::find_if(m_.u.begin(), m_.u.end(), [&](GiNaC::ex const& u) { return term.is_equal(u); });
            if (c == m_.u.end()) {
                if (has_any(term, inputs)) return {};
                continue;
            }
            std::size_t& taken = pi[static_cast<std::size_t>(c - m_.u.begin())];
            if (found || taken != nq) return {};
            taken = i, found = true;
        }
    }
    if (std::find(pi.begin(), pi.end(), nq) != pi.end()) return {};
    return pi;
}

// detail::mass_matrix_inverse_columns (unrolled_cholesky.tpl#inverse): π's columns of M⁻¹
// into B's lower rows, by W = L⁻¹ (forward, column by column over L's structure in the
// elimination order) and M⁻¹ = Wᵀ W, each entry of the symmetric M⁻¹ once: n³/3
// multiplications against the n³ of solving the identity's columns. (Not two columns to a
// vector register, as the block solves are: written so, with W's upper entry of a pair a
// zero, GCC -O2 kept it scalar and the zeros cost more: 10 joints 32,850 -> 32,942
// instructions.)
std::string emitter::unrolled_inverse_columns(std::vector<std::size_t> const& pi) const {
    std::size_t const nq = d_.nq, nu = d_.nu;
    std::vector<std::size_t> const& P = elimination_order();
    std::vector<char> const& nz = factor_structure();
    factor_names const n{in_array("L"), in_array("L"), diagonal_of("L"), ""};
    auto l = [&](std::size_t a, std::size_t b) { return n.l(std::max(P[a], P[b]), std::min(P[a], P[b])); };
    // W's structure (positions, a ≥ b): W_ab = −(Σ_k L_ak W_kb) / L_aa over b ≤ k < a; its
    // diagonal is L's stored 1/L_aa.
    std::vector<char> w(nq * nq, 0);
    for (std::size_t b = 0; b < nq; ++b) {
        w[b * nq + b] = 1;
        for (std::size_t a = b + 1; a < nq; ++a)
            for (std::size_t k = b; k < a && !w[a * nq + b]; ++k) w[a * nq + b] = nz[a * nq + k] && w[k * nq + b];
    }
    std::vector<std::size_t> position(nq), column(nq, nu);
    for (std::size_t a = 0; a < nq; ++a) position[P[a]] = a;
    for (std::size_t c = 0; c < nu; ++c) column[pi[c]] = c;
    // The entries of M⁻¹ B takes, (i, j) with i ≥ j (coordinates), and the W entries they read:
    // (M⁻¹)_ij = Σ_k W_ka W_kb over k ≥ a, b (a, b the positions of i, j), each W entry with
    // those its own sum reads (in its column; from the bottom up). Only those are written: where
    // M is block diagonal and the inputs act on one block, the others' W would be unused.
    struct entry {
        std::size_t i, j;
        std::vector<std::size_t> k; // the rows of W its sum reads
    };
    std::vector<entry> entries;
    std::vector<char> used(nq * nq, 0);
    for (std::size_t i = 0; i < nq; ++i)
        for (std::size_t j = 0; j <= i; ++j) {
            if (column[j] >= nu && column[i] >= nu) continue;
            entry e{i, j, {}};
            std::size_t const a = position[i], b = position[j];
            for (std::size_t k = std::max(a, b); k < nq; ++k)
                if (w[k * nq + a] && w[k * nq + b]) e.k.push_back(k), used[k * nq + a] = used[k * nq + b] = 1;
            entries.push_back(std::move(e));
        }
    for (std::size_t b = 0; b < nq; ++b)
        for (std::size_t a = nq; a-- > b + 1;)
            if (used[a * nq + b])
                for (std::size_t k = b; k < a; ++k)
                    if (nz[a * nq + k] && w[k * nq + b]) used[k * nq + b] = 1;
    auto name = [&](std::size_t a, std::size_t b) { return a == b ? n.r(P[a]) : fmt::format("w{}_{}", a, b); };
    std::string f;
    for (std::size_t b = 0; b < nq; ++b)
        for (std::size_t a = b + 1; a < nq; ++a) {
            if (!w[a * nq + b] || !used[a * nq + b]) continue;
            std::string s;
            for (std::size_t k = b; k < a; ++k)
                if (nz[a * nq + k] && w[k * nq + b]) s += (s.empty() ? "" : " + ") + l(a, k) + "*" + name(k, b);
            f += fmt::format("    const {} {} = -({})*{};\n", scalar(), name(a, b), s, n.r(P[a]));
        }
    for (auto const& [i, j, rows] : entries) {
        bool const ij = column[j] < nu, ji = i != j && column[i] < nu;
        std::size_t const a = position[i], b = position[j];
        std::string s;
        for (std::size_t k : rows) s += (s.empty() ? "" : " + ") + name(k, a) + "*" + name(k, b);
        if (s.empty()) s = single() ? "0.0f" : "0.0";
        std::string const first = fmt::format("out[{}]", ij ? i * nu + column[j] : j * nu + column[i]);
        f += fmt::format("    {} = {};\n", first, s);
        if (ij && ji) f += fmt::format("    out[{}] = {};\n", j * nu + column[i], first);
    }
    return text("unrolled_cholesky.tpl#inverse", {{"linkage", helper_linkage()}, {"scalar", scalar()}, {"statements", f}});
}

// Eight columns at a time, then four, then two: each entry of the factor is read once for
// the block (the generic arms' linearization, instructions per call: two at a time 37,430
// at 10 joints and 164,620 at 20; four 36,504 and 155,108; eight, four, two 36,032 and
// 150,790). The price is g++'s time: at 30 joints the helpers take 1.9 s (two), 2.5 s
// (four) and 4.6 s (eight) of g++ -O2 CPU.
std::string emitter::block_solve_calls(std::size_t first, std::size_t count, std::string const& target,
                                       std::string const& stride) {
    std::string calls;
    // " + at", and " + c" inside a loop over the columns.
    auto offset = [](std::size_t at, bool loop) {
        return (at > 0 ? " + " + std::to_string(at) : std::string()) + (loop ? " + c" : "");
    };
    // Columns [at, end) of this range, `width` at a time.
    auto call = [&](std::size_t width, std::size_t at, std::size_t end) {
        if (!(block_solves_added_ & width)) out_.add_helpers(unrolled_block_solve(width));
        block_solves_added_ |= width;
        bool const loop = end - at > width;
        std::string const head = loop ? fmt::format("for (int c = 0; c < {}; c += {}) ", end - at, width) : "";
        calls += fmt::format("    {}{}{}(M, J{}, m, {}{}, {});\n", head, dialect_.detail, block_solve_name(width),
                             offset(first + at, loop), target, offset(at, loop), stride);
    };
    std::size_t const eights = count / 8 * 8, fours = count / 4 * 4;
    if (eights > 0) call(8, 0, eights);
    if (fours > eights) call(4, eights, fours);
    if (count % 4 >= 2) call(2, fours, fours + 2);
    return calls;
}

// With constraints, the rest of linearization after M and Ac: the factorisation, and the
// Schur complement's solves column by column; where M may be singular at run time, its twin.
std::string emitter::constrained_linearization_tail(std::vector<std::pair<std::string, std::string>> const& values,
                                                    std::vector<cxx_argument> const& args) {
    std::string const s = "control.tpl#linearization_constrained_";
    if (regularizes_at_run_time()) {
        auto twin_args = inputs({"q", "p"});
        twin_args.push_back({"J", "const " + scalar() + "*"});
        twin_args.push_back({"Ac", "const " + scalar() + "*"});
        twin_args.push_back(args[args.size() - 2]); // A
        twin_args.push_back(args.back());           // B
        auto const twin =
            twin_values(values, {{"augment", "linearization"}, {"augment_column", "linearization_column"}}, "1");
        define_augmented_twin("linearization", "int", twin_args, {"t", "q", "p", "J", "Ac", "A", "B"},
                              text(s + "twin_head", twin) + text(s + "factor", twin) + text(s + "tail", twin));
    }
    return text(s + "factor", values) + text(s + "tail", values);
}

void emitter::inverse_dynamics() {
    auto args = with_output(inputs({"q", "qd", "qdd", "u", "p"}), "tau");
    write_function(chosen_inverse_dynamics(), args, text("comments.tpl#inverse_dynamics"), cxx_printer::place::api);
}

// Y = dtau/dpi (nq x nr) for the parameters tau is linear in (derived::regressor): with the
// inputs at zero, tau = Y pi exactly, Y free of pi. The inputs are put to zero before
// differentiating, as the regressor's parameters were found (derive/regressor.cpp): a force
// scaled by a parameter (q_e*[Ex, Ey] at p) is no column of Y, and Y takes no u.
void emitter::regressor() {
    if (d_.regressor.empty()) return;
    std::vector<std::string> variables;
    for (std::size_t j : d_.regressor) variables.push_back("p." + m_.parameters[j].name);
    GiNaC::exmap no_inputs;
    for (auto const& u : m_.u) no_inputs[u] = 0;
    std::vector<exvector> tau;
    for (auto const& row : d_.inverse_dynamics) tau.push_back(no_inputs.empty() ? row : substitute(row, no_inputs));
    write_function(build_jacobian("inverse_dynamics_regressor", tau, variables, "Y", false),
                   with_output(inputs({"q", "qd", "qdd", "p"}), "Y"), text("comments.tpl#inverse_dynamics_regressor"),
                   cxx_printer::place::api);
}

void emitter::input_matrix() {
    std::vector<exvector> Q;
    for (auto const& e : d_.generalized_forces) Q.push_back({e});
    write_function(build_jacobian("input_matrix", Q, spellings({"u"}), "B", false), with_output(inputs({"q", "qd", "u", "p"}), "B"),
                   text("comments.tpl#input_matrix"), cxx_printer::place::api);
}

void emitter::integrators() {
    auto args = state_arguments(true);
    args.push_back({"dt", scalar()});
    std::vector<std::string> const used = {"t", "x", "u", "p", "dt"};
    std::vector<std::pair<std::string, std::string>> values = {{"scalar", scalar()},
                                                               {"math", math()},
                                                               {"t", time_argument(m_.uses_time)},
                                                               {"t_half", time_argument(m_.uses_time, " + dt / 2")},
                                                               {"t_full", time_argument(m_.uses_time, " + dt")}};
    for (char const* name : {"rk4_step", "symplectic_euler_step"}) {
        if (!wanted(name)) continue;
        out_.declare("int", name, args, text(std::string("comments.tpl#") + name));
        out_.define("int", name, args, used, text(std::string("control.tpl#") + name, values), "",
                    cxx_printer::place::api);
    }
    // The implicit step for stiff models.
    std::vector<std::pair<std::string, std::string>> radau = values;
    bool const f = single();
    radau.push_back({"zero", f ? "0.0f" : "0.0"});
    radau.push_back({"one", f ? "1.0f" : "1.0"});
    radau.push_back({"t_stage", m_.uses_time ? "t + c[s], " : ""});
    radau.push_back({"five_twelfths", f ? "(5.0f / 12.0f)" : "(5.0 / 12.0)"});
    radau.push_back({"minus_one_twelfth", f ? "(-1.0f / 12.0f)" : "(-1.0 / 12.0)"});
    radau.push_back({"three_quarters", f ? "0.75f" : "0.75"});
    radau.push_back({"one_quarter", f ? "0.25f" : "0.25"});
    radau.push_back({"tolerance", f ? "1e-5f" : "1e-10"});
    radau.push_back({"one_tenth", f ? "0.1f" : "0.1"});
    auto radau_step = radau, radau_jacobian = radau;
    radau_step.push_back({"on_convergence", text("control.tpl#radau_step_done", radau)});
    radau_jacobian.push_back({"on_convergence", text("control.tpl#radau_step_jacobian_done", radau)});
    if (wanted("radau_step")) {
        out_.declare("int", "radau_step", args, text("comments.tpl#radau_step"));
        out_.define("int", "radau_step", args, used, text("control.tpl#radau_step", radau_step), "",
                    cxx_printer::place::api);
    }
    // The steps with their exact Jacobians (for multiple shooting and discrete-time LQR).
    auto jacobian_args = with_output(with_output(args, "Ad"), "Bd");
    std::vector<std::string> const jacobian_used = {"t", "x", "u", "p", "dt", "Ad", "Bd"};
    values.push_back({"zero", single() ? "0.0f" : "0.0"});
    values.push_back({"one", single() ? "1.0f" : "1.0"});
    values.push_back({"t_stage", m_.uses_time ? "t + c[s], " : ""});
    for (std::string const name : {"rk4_step", "symplectic_euler_step"}) {
        std::string const full = name + "_jacobian";
        if (!wanted(full)) continue;
        out_.declare("int", full, jacobian_args, text("comments.tpl#" + full));
        out_.define("int", full, jacobian_args, jacobian_used, text("control.tpl#" + full, values), "",
                    cxx_printer::place::api);
    }
    // The implicit step's: its Newton iteration as radau_step's, then the sensitivities.
    if (wanted("radau_step_jacobian")) {
        out_.declare("int", "radau_step_jacobian", jacobian_args, text("comments.tpl#radau_step_jacobian"));
        out_.define("int", "radau_step_jacobian", jacobian_args, jacobian_used,
                    text("control.tpl#radau_step", radau_jacobian), "", cxx_printer::place::api);
    }
    if (!wanted("zoh_discretization")) return;
    // The exact discretisation of the continuous-time linearization.
    std::vector<cxx_argument> zoh_args = {{"A", "const " + scalar() + "*"}, {"B", "const " + scalar() + "*"}, {"dt", scalar()}};
    zoh_args = with_output(with_output(zoh_args, "Ad"), "Bd");
    values.push_back({"half", single() ? "0.5f" : "0.5"});
    out_.declare("int", "zoh_discretization", zoh_args, text("comments.tpl#zoh_discretization"));
    out_.define("int", "zoh_discretization", zoh_args, {"A", "B", "dt", "Ad", "Bd"},
                text("control.tpl#zoh_discretization", values), "", cxx_printer::place::api);
}

} // namespace lagc::emitting

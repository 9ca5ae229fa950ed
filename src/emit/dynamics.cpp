// Stage 4: forward_dynamics. M's lower triangle and Q − h are computed together with one
// CSE (sines, cosines and shared products once). Without constraints and when small
// enough, everything is one function on local values: the terms, then M = L Lᵀ unrolled
// over M's structure (structural zeros and their fill-in skipped, 1/L_jj computed once),
// then the two triangular solves. Otherwise detail::dynamics_terms writes arrays for the
// factorisation (unrolled up to nq = 32, a loop beyond) and, with constraints, the Schur
// complement A M⁻¹ Aᵀ (forward_dynamics_constrained.tpl); without constraints that work is
// detail::forward_dynamics_factored, which leaves M's factor to its caller (linearization
// solves with it), and forward_dynamics a wrapper. Every line from templates/.
#include "emit/emitter.hpp"

#include <fmt/format.h>

namespace lagc::emitting {

std::vector<char> emitter::factor_structure() const {
    std::size_t const n = d_.nq;
    std::vector<char> nz(n * n, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j) nz[i * n + j] = !d_.mass_matrix[i * n + j].is_zero();
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = j + 1; i < n; ++i)
            for (std::size_t k = 0; k < j; ++k)
                if (nz[i * n + k] && nz[j * n + k]) nz[i * n + j] = 1;
    return nz;
}

// d_j = M_jj − Σ_k L_jk², checked against 1e-12 of M's largest diagonal entry, r_j = 1/√d_j,
// L_ij = (M_ij − Σ_k L_ik L_jk) r_j; terms whose factors are structural zeros are left out.
std::string emitter::factor_statements(factor_names const& n) const {
    std::size_t const nq = d_.nq;
    std::vector<std::pair<std::string, std::string>> values = {{"scalar", scalar()},
                                                               {"math", math()},
                                                               {"one", single() ? "1.0f" : "1.0"},
                                                               {"zero", single() ? "0.0f" : "0.0"},
                                                               {"tolerance", single() ? "1e-12f" : "1e-12"},
                                                               {"set", n.set}};
    auto with = [&](std::vector<std::pair<std::string, std::string>> more) {
        more.insert(more.end(), values.begin(), values.end());
        return more;
    };
    std::vector<char> const nz = factor_structure();
    std::string f = text("cholesky_steps.tpl#largest", values);
    for (std::size_t i = 0; i < nq; ++i) f += text("cholesky_steps.tpl#largest_update", with({{"m", n.m(i, i)}}));
    f += text("cholesky_steps.tpl#threshold", values);
    for (std::size_t j = 0; j < nq; ++j) {
        std::string pivot = n.m(j, j);
        for (std::size_t k = 0; k < j; ++k)
            if (nz[j * nq + k]) pivot += " - " + n.l(j, k) + "*" + n.l(j, k);
        f += text("cholesky_steps.tpl#pivot", with({{"d", "d" + std::to_string(j)}, {"value", pivot}, {"r", n.r(j)}}));
        for (std::size_t i = j + 1; i < nq; ++i) {
            if (!nz[i * nq + j]) continue;
            std::string s = d_.mass_matrix[i * nq + j].is_zero() ? "" : n.m(i, j); // a structural zero under fill-in
            for (std::size_t k = 0; k < j; ++k)
                if (nz[i * nq + k] && nz[j * nq + k]) {
                    s += s.empty() ? "-" : " - ";
                    s += n.l(i, k) + "*" + n.l(j, k);
                }
            bool const compound = s.find(' ') != std::string::npos || s[0] == '-';
            f += text("cholesky_steps.tpl#factor_entry",
                      with({{"l", n.l(i, j)}, {"value", compound ? "(" + s + ")" : s}, {"r", n.r(j)}}));
        }
    }
    return f;
}

// L y = b (forward), Lᵀ x = y (backward), over L's structure; then out_i = x_i.
std::string emitter::solve_statements(factor_names const& n, std::function<std::string(std::size_t)> const& b,
                                      std::function<std::string(std::size_t)> const& out) const {
    std::size_t const nq = d_.nq;
    std::vector<char> const nz = factor_structure();
    auto y = [](std::size_t i) { return fmt::format("y{}", i); };
    auto x = [](std::size_t i) { return fmt::format("x{}", i); };
    std::string f;
    auto step = [&](std::string const& name, std::string const& s, std::size_t i) {
        bool const compound = s.find(' ') != std::string::npos;
        f += text("cholesky_steps.tpl#solve_step",
                  {{"scalar", scalar()}, {"name", name}, {"value", compound ? "(" + s + ")" : s}, {"r", n.r(i)}});
    };
    for (std::size_t i = 0; i < nq; ++i) {
        std::string s = b(i);
        for (std::size_t k = 0; k < i; ++k)
            if (nz[i * nq + k]) s += " - " + n.l(i, k) + "*" + y(k);
        step(y(i), s, i);
    }
    for (std::size_t i = nq; i-- > 0;) {
        std::string s = y(i);
        for (std::size_t k = i + 1; k < nq; ++k)
            if (nz[k * nq + i]) s += " - " + n.l(k, i) + "*" + x(k);
        step(x(i), s, i);
    }
    for (std::size_t i = 0; i < nq; ++i) f += text("cholesky_steps.tpl#store", {{"target", out(i)}, {"value", x(i)}});
    return f;
}

std::string emitter::finite_check(std::size_t count, std::function<std::string(std::size_t)> const& value) const {
    std::string conditions;
    for (std::size_t i = 0; i < count; ++i) conditions += (i ? " || !" : "!") + math() + "isfinite(" + value(i) + ")";
    return text("cholesky_steps.tpl#finite_check", {{"conditions", conditions}});
}

std::function<std::string(std::size_t, std::size_t)> emitter::in_array(char const* array) const {
    return [nq = d_.nq, array](std::size_t i, std::size_t j) { return fmt::format("{}[{}]", array, i * nq + j); };
}

std::function<std::string(std::size_t)> emitter::diagonal_of(char const* array) const {
    return [nq = d_.nq, array](std::size_t j) { return fmt::format("{}[{}]", array, j * nq + j); };
}

std::function<std::string(std::size_t)> emitter::element_of(char const* array) {
    return [array](std::size_t i) { return fmt::format("{}[{}]", array, i); };
}

emitter::factorisation emitter::mass_factorisation() {
    if (!unrolls_mass_matrix()) return {false, "detail::cholesky_factor<nq>", "detail::cholesky_solve<nq>"};
    if (!unrolled_helpers_added_) out_.add_helpers(unrolled_cholesky());
    unrolled_helpers_added_ = true;
    return {true, "detail::factor_mass_matrix", "detail::solve_mass_matrix"};
}

// detail::factor_mass_matrix and detail::solve_mass_matrix on arrays, for the two-step form.
std::string emitter::unrolled_cholesky() const {
    return text("unrolled_cholesky.tpl",
                {{"linkage", helper_linkage()},
                 {"scalar", scalar()},
                 {"factor", factor_statements({in_array("M"), in_array("M"), diagonal_of("M"), ""})},
                 {"solve", solve_statements({in_array("L"), in_array("L"), diagonal_of("L"), ""}, element_of("b"),
                                            element_of("b"))}});
}

std::string emitter::augmented(char const* section) {
    if (!d_.mass_singular) return "";
    return augmentation(section, "augment.tpl#why_everywhere");
}

std::string emitter::augmentation(char const* section, char const* why) {
    if (!augment_helpers_added_) {
        out_.add_helpers(text("augment.tpl#helpers", {{"linkage", helper_linkage()},
                                              {"scalar", scalar()},
                                              {"one", single() ? "1.0f" : "1.0"},
                                              {"zero", single() ? "0.0f" : "0.0"}}));
        augment_helpers_added_ = true;
    }
    return text(std::string("augment.tpl#") + section, {{"scalar", scalar()}, {"why", one_line(text(why))}});
}

std::string emitter::on_singular_mass(std::string const& name, std::string const& call, char const* fail) const {
    if (!regularizes_at_run_time()) return one_line(text("augment.tpl#fail", {{"status", fail}}));
    return one_line(text("augment.tpl#twin_call", {{"name", name}, {"call", call}}));
}

std::vector<std::pair<std::string, std::string>>
emitter::twin_values(std::vector<std::pair<std::string, std::string>> values,
                     std::vector<std::pair<std::string, std::string>> const& augment_sections, char const* fail) {
    auto set = [&](std::string const& key, std::string const& value) {
        for (auto& v : values)
            if (v.first == key) v.second = value;
    };
    set("factor", "detail::cholesky_factor<nq>");
    set("solve", "detail::cholesky_solve<nq>");
    set("singular", one_line(text("augment.tpl#fail", {{"status", fail}})));
    for (auto const& [key, augment_section] : augment_sections)
        set(key, augmentation(augment_section.c_str(), "augment.tpl#why_here"));
    return values;
}

void emitter::define_augmented_twin(std::string const& name, std::string const& result,
                                    std::vector<cxx_argument> const& args, std::vector<std::string> const& used,
                                    std::string const& body) {
    out_.define(result, name + "_augmented", args, used, body, text("augment.tpl#twin_comment", {{"name", name}}),
                cxx_printer::place::cold_helper);
}

std::string emitter::inline_forward_dynamics(built_function& f, std::vector<std::string>& read) {
    std::size_t const n = d_.nq;
    factor_names names{[](std::size_t i, std::size_t j) { return fmt::format("M{}_{}", i, j); },
                       [](std::size_t i, std::size_t j) { return fmt::format("L{}_{}", i, j); },
                       [](std::size_t j) { return fmt::format("r{}", j); }, "const " + scalar() + " "};
    auto rhs = [](std::size_t i) { return fmt::format("b{}", i); };
    // f's roots are M's lower triangle row by row, then b; M's structural zeros are not stored.
    std::vector<std::pair<std::string, int>> locals;
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j, ++k)
            if (!d_.mass_matrix[i * n + j].is_zero()) locals.push_back({names.set + names.m(i, j), f.roots[k].second});
    for (std::size_t i = 0; i < n; ++i, ++k) locals.push_back({names.set + rhs(i), f.roots[k].second});
    emitted_body terms = f.graph->emit(locals, "    ");
    f.stats.temporaries = terms.temporaries;
    stats_.push_back(f.stats);
    read = terms.used_arguments;
    read.push_back("qdd");
    return text("forward_dynamics_unrolled.tpl",
                {{"terms", terms.text},
                 {"factor", factor_statements(names)},
                 {"solve", solve_statements(names, rhs, element_of("qdd"))},
                 {"finite_check", finite_check(n, [](std::size_t i) { return fmt::format("x{}", i); })}});
}

void emitter::forward_dynamics() {
    std::size_t const n = d_.nq, nc = d_.nc;
    std::vector<std::pair<std::string, exvector>> terms;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j <= i; ++j)
            terms.push_back({"M[" + std::to_string(i * n + j) + "]", {d_.mass_matrix[i * n + j]}});
    for (auto& b : bias_parts(true)) terms.push_back(std::move(b));
    built_function f = build("dynamics_terms", terms);
    auto args = with_output(with_output(inputs({"q", "qd", "u", "p"}), "qdd"), "lambda");
    if (o_.templated) {
        // Not deduced from lambda, so that a bare nullptr is accepted there.
        args.back().type = "typename detail::non_deduced<T>::type*";
        out_.add_helpers(text("control.tpl#non_deduced"));
    }
    out_.declare("int", "forward_dynamics", args, text("comments.tpl#forward_dynamics"));
    if (nc == 0 && unrolls_mass_matrix() && f.stats.operations_after_cse <= o_.split_operations) {
        std::vector<std::string> read;
        std::string body = inline_forward_dynamics(f, read);
        out_.define("int", "forward_dynamics", args, read, body, "", cxx_printer::place::api);
        return;
    }
    write_function(std::move(f), with_output(with_output(inputs({"q", "qd", "u", "p"}), "M"), "b"),
                   text("comments.tpl#dynamics_terms"), cxx_printer::place::helper);
    factorisation const mf = mass_factorisation();
    std::vector<std::pair<std::string, std::string>> values = {
        {"scalar", scalar()},
        {"args_q_qd_u_p", cxx_printer::input_arguments(inputs({"q", "qd", "u", "p"}))},
        {"factor", mf.factor},
        {"math", math()}};
    if (nc > 0) {
        values.push_back({"solve", mf.solve});
        values.push_back({"args_q_qd_p", cxx_printer::input_arguments(inputs({"q", "qd", "p"}))});
        values.push_back({"augment", augmented("forward_dynamics")});
        values.push_back({"args_q_p", cxx_printer::input_arguments(inputs({"q", "p"}))});
        // The twin takes A and r as forward_dynamics computed them (its factorisation changes
        // only M), and forms M and b again from the API functions: the helpers that compute
        // them stay called once, so the compiler still inlines them into forward_dynamics.
        std::string const call = cxx_printer::input_arguments(inputs({"q", "qd", "u", "p"})) + "A, r, qdd, lambda";
        values.push_back({"singular", on_singular_mass("forward_dynamics", call, "1")});
        std::vector<std::string> const used = {"t", "q", "qd", "u", "p", "qdd", "lambda"};
        std::string const section = "forward_dynamics_constrained.tpl#";
        if (regularizes_at_run_time()) {
            auto twin_args = inputs({"q", "qd", "u", "p"});
            twin_args.push_back({"A", "const " + scalar() + "*"});
            twin_args.push_back({"r", "const " + scalar() + "*"});
            twin_args.push_back(args[args.size() - 2]); // qdd
            twin_args.push_back(args.back());           // lambda
            auto const twin = twin_values(values, {{"augment", "forward_dynamics"}}, "1");
            define_augmented_twin("forward_dynamics", "int", twin_args, {"t", "q", "qd", "u", "p", "A", "r", "qdd", "lambda"},
                                  text(section + "twin_head", twin) + text(section + "factor", twin) +
                                      text(section + "tail", twin));
        }
        out_.define("int", "forward_dynamics", args, used,
                    text(section + "head", values) + text(section + "factor", values) + text(section + "tail", values), "",
                    cxx_printer::place::api);
        return;
    }
    // The work in a helper that leaves M's factor to its caller: linearization takes q̈ from
    // the same code and solves with the same factor, instead of forming and factoring M again.
    // The solve for q̈ is written out in it (unrolled): a call of solve_mass_matrix, which
    // linearization calls too, would not be inlined (1% more instructions at 12 joints).
    values.push_back({"solve", mf.unrolled ? solve_statements({in_array("M"), in_array("M"), diagonal_of("M"), ""},
                                                              element_of("b"), element_of("qdd"))
                                           : text("forward_dynamics.tpl#loop_solve", {{"solve", mf.solve}})});
    out_.define("int", "forward_dynamics_factored", with_output(with_output(inputs({"q", "qd", "u", "p"}), "qdd"), "M"),
                {"t", "q", "qd", "u", "p", "qdd", "M"}, text("forward_dynamics.tpl#factored", values),
                text("comments.tpl#forward_dynamics_factored"), cxx_printer::place::helper);
    forward_dynamics_factored_ = true;
    out_.define("int", "forward_dynamics", args, {"t", "q", "qd", "u", "p", "qdd"},
                text("forward_dynamics.tpl#call", values), "", cxx_printer::place::api);
}

} // namespace lagc::emitting

// Stage 4: task space and state handling — outputs with their Jacobians and drifts, the
// names of every index, the constraints' velocities and the projection of a state onto
// the constraints.
#include "emit/emitter.hpp"

namespace lagc::emitting {

// "a = 0, b = 1" and "\"a\", \"b\"" for a list of names.
std::pair<std::string, std::string> enumerators(std::vector<std::string> const& names,
                                                std::vector<std::size_t> const& values) {
    std::string e, n;
    for (std::size_t i = 0; i < names.size(); ++i) {
        e += (i ? ", " : "") + names[i] + " = " + std::to_string(values[i]);
        n += (i ? ", \"" : "\"") + names[i] + "\"";
    }
    return {e, n};
}

std::vector<std::size_t> indices(std::size_t n) {
    std::vector<std::size_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = i;
    return v;
}

constexpr int projection_iterations = 30;

std::string emitter::index_names() const {
    auto [coordinates, coordinate_names] = enumerators(m_.coordinates, indices(m_.coordinates.size()));
    std::string inputs_text, parameters_text, outputs_text;
    if (!m_.inputs.empty()) {
        auto [e, n] = enumerators(m_.inputs, indices(m_.inputs.size()));
        inputs_text = text("task.tpl#input_names", {{"inputs", e}, {"input_names", n}});
    }
    if (!m_.parameters.empty()) {
        std::vector<std::string> names;
        for (auto const& p : m_.parameters) names.push_back(p.name);
        auto [e, n] = enumerators(names, indices(names.size()));
        parameters_text = text("task.tpl#parameter_names",
                               {{"parameters", e}, {"parameter_names", n}, {"count", std::to_string(names.size())}});
    }
    if (!m_.outputs.empty()) {
        std::vector<std::string> names;
        std::vector<std::size_t> sizes;
        for (auto const& o : m_.outputs) names.push_back(o.name), sizes.push_back(o.val.size());
        auto [e, n] = enumerators(names, sizes);
        outputs_text = text("task.tpl#output_names", {{"outputs", e}, {"output_names", n}, {"count", std::to_string(names.size())}});
    }
    std::string regressor_text;
    if (!d_.regressor.empty()) {
        std::string indices_list, names_list;
        for (std::size_t j : d_.regressor) {
            indices_list += (indices_list.empty() ? "" : ", ") + std::to_string(j);
            names_list += (names_list.empty() ? "\"" : ", \"") + m_.parameters[j].name + "\"";
        }
        regressor_text = text("task.tpl#regressor_names", {{"count", std::to_string(d_.regressor.size())},
                                                            {"indices", indices_list},
                                                            {"names", names_list}}) +
                         base_names();
    }
    std::string names = text("task.tpl#names", {{"coordinates", coordinates},
                                                {"coordinate_names", coordinate_names},
                                                {"inputs", inputs_text},
                                                {"parameters", parameters_text},
                                                {"outputs", outputs_text},
                                                {"regressor", regressor_text}});
    names += keyframe_constants(o_.keyframes, parameter_scalar());
    names.pop_back(); // the section's own line end; the header template has the next
    return names;
}

void emitter::outputs() {
    for (std::size_t k = 0; k < m_.outputs.size(); ++k) {
        auto const& out = m_.outputs[k];
        std::string const name = "output_" + out.name;
        std::string const shape = out.val.describe() + (out.val.shape == value::kind::matrix ? ", row-major" : "");
        auto args = with_output(out.reads_inputs ? inputs({"q", "qd", "u", "p"}) : inputs({"q", "qd", "p"}), "out");
        if (wanted(name))
            write_function(build(name, entries("out", exvector(out.val.elems.begin(), out.val.elems.end()))), args,
                           text("comments.tpl#output", {{"name", out.name}, {"shape", shape}}), cxx_printer::place::api);
        derived::output_derivatives const& o = d_.outputs[k];
        if (o.jacobian.empty()) continue;
        std::string const size = std::to_string(out.val.size());
        if (wanted(name + "_jacobian"))
            write_function(build(name + "_jacobian", entries("J", o.jacobian)), with_output(inputs({"q", "p"}), "J"),
                           text("comments.tpl#output_jacobian", {{"name", out.name}, {"size", size}}),
                           cxx_printer::place::api);
        if (wanted(name + "_drift"))
            write_function(build(name + "_drift", entries("a", o.drift)), with_output(inputs({"q", "qd", "p"}), "a"),
                           text("comments.tpl#output_drift", {{"name", out.name}, {"size", size}}),
                           cxx_printer::place::api);
    }
}

void emitter::constraint_state_functions() {
    if (d_.nc == 0) return;
    if (wanted("constraint_velocity"))
        array_function("constraint_velocity", with_output(inputs({"q", "qd", "p"}), "v"), entries("v", d_.constraint_velocity));
    if (!wanted("project_state")) return;
    factorisation const mf = mass_factorisation();
    // project_onto_rows with forward_dynamics' solve, and its twin with the loop one.
    auto project_onto_rows = [&](std::string const& name, std::string const& solve, char const* factorised) {
        out_.add_helpers(text("task.tpl#project_onto_rows",
                              {{"template_head", o_.templated ? "template <int rows, class T>" : "template <int rows>"},
                               {"scalar", scalar()},
                               {"solve", solve},
                               {"project", name},
                               {"factorised", one_line(text(factorised))}}));
    };
    project_onto_rows("project_onto_rows", mass_solve(mf), "augment.tpl#factorised");
    if (regularizes_at_run_time())
        project_onto_rows("project_onto_rows_augmented", dialect_.c ? dialect_.solve_nq : "cholesky_solve<nq>",
                          "augment.tpl#factorised_augmented");
    std::vector<cxx_argument> args;
    if (m_.uses_time) args.push_back({"t", scalar()});
    args.push_back({"q", scalar() + "*"});
    args.push_back({"qd", scalar() + "*"});
    args.push_back({"p", dialect_.parameters_type});
    std::string const iterations = std::to_string(projection_iterations);
    std::string const t = m_.uses_time ? "t, " : "";
    std::vector<std::pair<std::string, std::string>> values = {
        {"scalar", scalar()},
        {"holonomic", std::to_string(d_.holonomic_rows)},
        {"iterations", iterations},
        {"t", t},
        {"math", math()},
        {"factor", mf.factor},
        {"augment", augmented("project_state")},
        {"augment_velocity", augmented("project_state_velocity")},
        {"project", "project_onto_rows"},
        {"singular", on_singular_mass("project_state_in_place", t + "q, qd, p", "-1")}};
    std::vector<std::string> const used = {"t", "q", "qd", "p"};
    auto twin = values;
    for (auto& v : twin)
        if (v.first == "project") v.second = "project_onto_rows_augmented";
    if (regularizes_at_run_time())
        define_augmented_twin("project_state_in_place", scalar(), args, used,
                              text("task.tpl#project_state",
                                   twin_values(twin, {{"augment", "project_state"}, {"augment_velocity", "project_state_velocity"}},
                                               "-1")));
    out_.define(scalar(), "project_state_in_place", args, used, text("task.tpl#project_state", values),
                text("task.tpl#project_state_in_place_comment"), cxx_printer::place::late_helper);
    std::string body = text("task.tpl#project_state_copy", {{"scalar", scalar()}, {"t", t}, {"math", math()}});
    out_.declare(scalar(), "project_state", args, text("comments.tpl#project_state", {{"iterations", iterations}}));
    out_.define(scalar(), "project_state", args, used, body, "", cxx_printer::place::api);
}

} // namespace lagc::emitting

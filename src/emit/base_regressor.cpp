// Stage 4, the base-parameter regressor (--regressor base, issue 50): Y_b, the columns of Y
// the base parameters keep (derived::base, derive/base_parameters.cpp), differentiated on the
// graph as Y is; base_parameters(p, pib), the map from the parameters to π_b; and their names
// and groupings for the header (C++ and C).
#include "emit/emitter.hpp"
#include "symbolic/dag.hpp"

namespace lagc::emitting {

// "// pib[0] Kzz_link1R = Kzz_link1 + Kyy_link2 + ...": each base parameter's grouping, as
// comment lines (prefix "// " or " * ").
std::string emitter::base_groupings(std::string const& prefix) const {
    std::string out;
    auto const& b = *d_.base;
    for (std::size_t k = 0; k < b.names.size(); ++k)
        out += (k ? "\n" : "") + prefix + "pib[" + std::to_string(k) + "] " + b.names[k] + " = " + b.texts[k];
    return out;
}

namespace {

// Words as comment lines of at most 92 characters.
std::string wrapped(std::string const& words, std::string const& prefix) {
    std::string out, line = prefix;
    std::size_t at = 0;
    while (at < words.size()) {
        std::size_t end = words.find(' ', at);
        if (end == std::string::npos) end = words.size();
        std::string const word = words.substr(at, end - at);
        if (line.size() > prefix.size() && line.size() + 1 + word.size() > 92) out += line + "\n", line = prefix;
        line += (line.size() > prefix.size() ? " " : "") + word;
        at = end + 1;
    }
    return out + line;
}

} // namespace

void emitter::base_regressor() {
    if (!d_.base || d_.regressor.empty()) return;
    auto const& b = *d_.base;
    std::vector<std::string> variables;
    for (std::size_t k : b.kept) variables.push_back("p." + m_.parameters[d_.regressor[k]].name);
    GiNaC::exmap no_inputs;
    for (auto const& u : m_.u) no_inputs[u] = 0;
    std::vector<exvector> tau;
    for (auto const& row : d_.inverse_dynamics) tau.push_back(no_inputs.empty() ? row : substitute(row, no_inputs));
    if (wanted("inverse_dynamics_regressor_base"))
        write_function(build_jacobian("inverse_dynamics_regressor_base", tau, variables, "Yb", false),
                       with_output(inputs({"q", "qd", "qdd", "p"}), "Yb"),
                       text("comments.tpl#inverse_dynamics_regressor_base", {{"method", wrapped("Found " + b.method + ".", "// ")}}),
                       cxx_printer::place::api);
    if (!wanted("base_parameters")) return;
    std::vector<std::pair<std::string, ex>> outputs;
    for (std::size_t k = 0; k < b.expressions.size(); ++k) outputs.push_back({"pib[" + std::to_string(k) + "]", b.expressions[k]});
    write_function(build("base_parameters", outputs), with_output(inputs({"p"}), "pib"),
                   text("comments.tpl#base_parameters", {{"groupings", base_groupings("// ")}}), cxx_printer::place::api);
}

// --explain: how the base parameters were found, and each one's grouping.
method_choice emitter::base_choice() const {
    method_choice c{"base parameters", std::to_string(d_.base->names.size()) + " of " + std::to_string(d_.regressor.size()),
                    d_.base->method, {}};
    for (std::size_t k = 0; k < d_.base->names.size(); ++k) c.trace.push_back({d_.base->names[k], 0, "= " + d_.base->texts[k]});
    return c;
}

// The header's nb and base_parameter_names (C++), after the regressor's names.
std::string emitter::base_names() const {
    if (!d_.base || d_.regressor.empty()) return {};
    std::string names;
    for (auto const& n : d_.base->names) names += (names.empty() ? "\"" : ", \"") + n + "\"";
    return text("task.tpl#base_names", {{"count", std::to_string(d_.base->names.size())}, {"names", names}});
}

} // namespace lagc::emitting

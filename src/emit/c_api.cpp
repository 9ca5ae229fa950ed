// Stage 4: the C interface (--c-api): a C99 header declaring every generated function as
// NAME_function with a plain parameters struct, and extern "C" wrappers appended to the
// .cpp that convert the parameters and call the C++ functions. For C firmware and for
// Python's ctypes.
#include "emit/emitter.hpp"

#include <algorithm>


namespace lagc::emitting {

namespace {

// The C spelling of an argument's type: the parameters struct by pointer, the rest as is.
std::string c_type(cxx_argument const& a, std::string const& ns) {
    return a.type == "const Parameters&" ? "const " + ns + "_parameters*" : a.type;
}

} // namespace

// "q[2], qd[2], M[4]": how many values each array argument of a function holds.
std::string emitter::c_array_sizes(std::string const& function, std::vector<cxx_argument> const& args) const {
    std::size_t const nq = d_.nq, nu = d_.nu, nc = d_.nc;
    std::size_t output_size = 0;
    for (auto const& o : m_.outputs)
        if (function == "output_" + o.name || function == "output_" + o.name + "_jacobian" ||
            function == "output_" + o.name + "_drift")
            output_size = o.val.size();
    auto size_of = [&](std::string const& a) -> std::size_t {
        if (a == "q" || a == "qd" || a == "qdd" || a == "dVdq" || a == "h" || a == "Q" || a == "tau") return nq;
        if (a == "u") return nu;
        if (a == "lambda" || a == "c" || a == "v") return nc;
        if (a == "x" || a == "xdot") return 2 * nq;
        if (a == "M" || a == "C") return nq * nq;
        if (a == "K") return (nq + nc) * (nq + nc);
        if (a == "rhs") return nq + nc;
        bool const state_space = function == "linearization" || function == "zoh_discretization";
        if (a == "A") return state_space ? 4 * nq * nq : nc * nq;
        if (a == "B") return state_space ? 2 * nq * nu : nq * nu;
        if (a == "Y") return nq * d_.regressor.size();
        if (a == "Yb") return nq * (d_.base ? d_.base->names.size() : 0);
        if (a == "pib") return d_.base ? d_.base->names.size() : 0;
        if (a == "Ad") return 4 * nq * nq;
        if (a == "Bd") return 2 * nq * nu;
        if (a == "out" || a == "a") return output_size;
        if (a == "J") return output_size * nq;
        return 0;
    };
    std::string s;
    for (auto const& a : args) {
        if (a.type.find('*') == std::string::npos || a.name == "p") continue;
        s += (s.empty() ? "" : ", ") + a.name + "[" + std::to_string(size_of(a.name)) + "]";
    }
    return s.empty() ? "no arrays" : s;
}

// The C header's indices, output sizes, stack figures and name arrays (declared there, defined
// with the wrappers): what the C++ header's coordinate::, input::, parameter::, output::,
// stack_bytes:: and *_names give.
void emitter::c_names(std::string& indices, std::string& definitions) const {
    std::string const& ns = m_.name;
    std::vector<std::string> outputs, parameters;
    std::vector<std::size_t> output_sizes;
    for (auto const& o : m_.outputs) outputs.push_back(o.name), output_sizes.push_back(o.val.size());
    for (auto const& p : m_.parameters) parameters.push_back(p.name);
    // NAME_prefixNAME[suffix] = value: C has no scopes, so every enumerator carries the model's name.
    auto enumeration = [&](std::string const& prefix, std::vector<std::string> names, std::vector<std::size_t> const& values,
                           std::string const& suffix) {
        for (auto& n : names) n = ns + "_" + prefix + n + suffix;
        if (!names.empty()) indices += text("c_api.tpl#index_enum", {{"entries", enumerators(names, values).first}});
    };
    enumeration("coordinate_", m_.coordinates, emitting::indices(m_.coordinates.size()), "");
    enumeration("input_", m_.inputs, emitting::indices(m_.inputs.size()), "");
    enumeration("parameter_", parameters, emitting::indices(parameters.size()), "");
    enumeration("output_", outputs, output_sizes, "_size");
    for (auto const& f : out_.api()) // one a line: the C++ header's stack_bytes::NAME
        enumeration("stack_bytes_", {f.name}, {stack_.figure(f.name).total()}, "");
    for (auto const& [what, names] : std::vector<std::pair<std::string, std::vector<std::string>>>{
             {"coordinate", m_.coordinates}, {"input", m_.inputs}, {"parameter", parameters}, {"output", outputs}}) {
        if (names.empty()) continue; // C has no arrays of size 0
        std::vector<std::pair<std::string, std::string>> const values = {
            {"ns", ns}, {"what", what}, {"count", std::to_string(names.size())},
            {"names", enumerators(names, emitting::indices(names.size())).second}};
        indices += text("c_api.tpl#names_declaration", values);
        definitions += text("c_api.tpl#names_definition", values);
    }
    if (d_.regressor.empty()) return;
    std::vector<std::string> names;
    std::string list;
    for (std::size_t j : d_.regressor) {
        names.push_back(m_.parameters[j].name);
        list += (list.empty() ? "" : ", ") + std::to_string(j);
    }
    std::vector<std::pair<std::string, std::string>> const values = {
        {"ns", ns}, {"what", "regressor_parameter"}, {"count", std::to_string(names.size())},
        {"names", enumerators(names, emitting::indices(names.size())).second}, {"indices", list}};
    indices += text("c_api.tpl#regressor_declaration", values) + text("c_api.tpl#names_declaration", values);
    definitions += text("c_api.tpl#regressor_definition", values) + text("c_api.tpl#names_definition", values);
    if (!d_.base) return;
    std::vector<std::pair<std::string, std::string>> const base = {
        {"ns", ns}, {"what", "base_parameter"}, {"count", std::to_string(d_.base->names.size())},
        {"names", enumerators(d_.base->names, emitting::indices(d_.base->names.size())).second},
        {"groupings", base_groupings("   ")}};
    indices += text("c_api.tpl#base_declaration", base) + text("c_api.tpl#names_declaration", base);
    definitions += text("c_api.tpl#names_definition", base);
}

// The C interface's header: the parameters struct, the indices and names, every function
// declared as NAME_function (the same text for --c-api and for -o NAME.c, but its opening
// comment); the definitions of the name arrays it declares go to `name_definitions`.
std::string emitter::c_header(std::string& name_definitions) const {
    std::string const& ns = m_.name;
    std::string fields, declarations;
    for (auto const& p : m_.parameters) fields += text("c_api.tpl#field", {{"scalar", parameter_scalar()}, {"name", p.name}});
    if (m_.parameters.empty()) fields = "    char unused;\n"; // C has no empty structs
    for (auto const& f : out_.api()) {
        std::string parameters;
        for (auto const& a : f.args) parameters += (parameters.empty() ? "" : ", ") + c_type(a, ns) + " " + a.name;
        declarations += text("c_api.tpl#declaration", {{"result", f.result},
                                                        {"ns", ns},
                                                        {"name", f.name},
                                                        {"parameters", parameters},
                                                        {"sizes", c_array_sizes(f.name, f.args)}});
    }
    std::string indices;
    c_names(indices, name_definitions);
    // The name as it is, not in capitals: models arm and Arm have two guards.
    std::string const guard = "LAGC_" + ns + "_H";
    return text("c_api.tpl#header", {{"source", o_.source_name},
                                     {"ns", ns},
                                     {"about", text("c_api.tpl#about", {{"ns", ns}, {"cxx_header", o_.header_name}})},
                                     {"guard", guard},
                                     {"nq", std::to_string(d_.nq)},
                                     {"nu", std::to_string(d_.nu)},
                                     {"nc", std::to_string(d_.nc)},
                                     {"fields", fields},
                                     {"indices", indices},
                                     {"declarations", declarations}});
}

void emitter::c_interface(emitted_files& files) const {
    std::string const& ns = m_.name;
    std::string to_cpp, to_c, wrappers;
    for (auto const& p : m_.parameters) {
        to_cpp += text("c_api.tpl#copy_to_cpp", {{"name", p.name}});
        to_c += text("c_api.tpl#copy_to_c", {{"name", p.name}});
    }
    if (m_.parameters.empty()) {
        to_cpp = "    (void)c;\n";
        to_c = "    (void)c;\n    (void)p;\n";
    }
    for (auto const& f : out_.api()) {
        std::string parameters, arguments;
        for (auto const& a : f.args) {
            parameters += (parameters.empty() ? "" : ", ") + c_type(a, ns) + " " + a.name;
            arguments += (arguments.empty() ? "" : ", ") + (a.name == "p" ? ns + "::detail::from_c(" + a.name + ")" : a.name);
        }
        bool const reads_parameters = std::any_of(f.args.begin(), f.args.end(), [](cxx_argument const& a) { return a.name == "p"; });
        std::string const null_check = reads_parameters ? dialect_.null_parameters_check(f.result, f.name) : "";
        wrappers += text("c_api.tpl#wrapper", {{"result", f.result},
                                                {"ns", ns},
                                                {"name", f.name},
                                                {"parameters", parameters},
                                                {"arguments", arguments},
                                                {"null_check", null_check}});
    }
    std::string name_definitions;
    files.c_header = c_header(name_definitions);
    files.source += text("c_api.tpl#wrappers", {{"c_header", o_.c_header_name},
                                                 {"ns", ns},
                                                 {"to_cpp", to_cpp},
                                                 {"to_c", to_c},
                                                 {"names", name_definitions},
                                                 {"wrappers", wrappers}});
}

} // namespace lagc::emitting

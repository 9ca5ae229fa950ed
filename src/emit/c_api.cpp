// Stage 4: the C interface (--c-api): a C99 header declaring every generated function as
// NAME_function with a plain parameters struct, and extern "C" wrappers appended to the
// .cpp that convert the parameters and call the C++ functions. For C firmware and for
// Python's ctypes.
#include "emit/emitter.hpp"

#include <cctype>

namespace lagc::emitting {

namespace {

// The C spelling of an argument's type: the parameters struct by pointer, the rest as is.
std::string c_type(cxx_argument const& a, std::string const& ns) {
    return a.type == "const Parameters&" ? "const " + ns + "_parameters*" : a.type;
}

} // namespace

void emitter::c_interface(emitted_files& files) const {
    std::string const& ns = m_.name;
    std::string fields, to_cpp, to_c, declarations, wrappers;
    for (auto const& p : m_.parameters) {
        fields += text("c_api.tpl#field", {{"scalar", parameter_scalar()}, {"name", p.name}});
        to_cpp += text("c_api.tpl#copy_to_cpp", {{"name", p.name}});
        to_c += text("c_api.tpl#copy_to_c", {{"name", p.name}});
    }
    if (m_.parameters.empty()) { // C has no empty structs
        fields = "    char unused;\n";
        to_cpp = "    (void)c;\n";
        to_c = "    (void)c;\n    (void)p;\n";
    }
    for (auto const& f : out_.api()) {
        std::string parameters, arguments;
        for (auto const& a : f.args) {
            parameters += (parameters.empty() ? "" : ", ") + c_type(a, ns) + " " + a.name;
            arguments += (arguments.empty() ? "" : ", ") + (a.type == "const Parameters&" ? "from_c(" + a.name + ")" : a.name);
        }
        declarations += text("c_api.tpl#declaration", {{"result", f.result}, {"ns", ns}, {"name", f.name}, {"parameters", parameters}});
        wrappers += text("c_api.tpl#wrapper",
                         {{"result", f.result}, {"ns", ns}, {"name", f.name}, {"parameters", parameters}, {"arguments", arguments}});
    }
    std::string guard = "LAGC_" + ns + "_H";
    for (char& c : guard) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    files.c_header = text("c_api.tpl#header", {{"source", o_.source_name},
                                                {"ns", ns},
                                                {"cxx_header", o_.header_name},
                                                {"guard", guard},
                                                {"nq", std::to_string(d_.nq)},
                                                {"nu", std::to_string(d_.nu)},
                                                {"nc", std::to_string(d_.nc)},
                                                {"fields", fields},
                                                {"declarations", declarations}});
    files.source += text("c_api.tpl#wrappers", {{"c_header", o_.c_header_name},
                                                 {"ns", ns},
                                                 {"to_cpp", to_cpp},
                                                 {"to_c", to_c},
                                                 {"wrappers", wrappers}});
}

} // namespace lagc::emitting

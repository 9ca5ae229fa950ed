// The C++ and C99 dialects of the generated code (dialect.hpp).
#include "emit/dialect.hpp"

#include "emit/emit.hpp"
#include "emit/templates.hpp"

#include <fmt/format.h>

namespace lagc {

namespace {
thread_local dialect const* active = nullptr;
} // namespace

dialect dialect::cxx(std::string const& ns, std::string const& scalar) {
    dialect d;
    d.ns = ns;
    d.to_scalar = fmt::format("static_cast<{}>", scalar);
    return d;
}

// GCC 12 warns -Wrestrict on short literals assigned to std::string once inlined here, a false
// positive (GCC bug 105329, fixed in 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
dialect dialect::c99(std::string const& ns, std::string const& scalar) {
    dialect d;
    d.c = true;
    d.ns = ns;
    d.detail = "";
    d.null = "0";
    d.math_suffix = scalar == "float" ? "f" : "";
    d.constants = "enum { ";
    d.end_constants = " };";
    d.to_scalar = fmt::format("({})", scalar);
    d.factor_nc = "cholesky_factor_nc";
    d.solve_nc = "cholesky_solve_nc";
    d.factor_nq = "cholesky_factor_nq";
    d.solve_nq = "cholesky_solve_nq";
    d.parameters_type = fmt::format("const {}_parameters*", ns);
    return d;
}
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic pop
#endif

std::vector<std::pair<std::string, std::string>> dialect::values() const {
    return {{"detail", detail},         {"null", null},
            {"mf", math_suffix},        {"constants", constants}, {"end_constants", end_constants},
            {"to_scalar", to_scalar},   {"factor_nc", factor_nc}, {"solve_nc", solve_nc}};
}

std::string dialect::template_name(std::string_view name) const {
    if (!c) return std::string(name);
    std::string const own = "c/" + std::string(name);
    for (auto const& t : named_templates())
        if (t.name == own) return own;
    return std::string(name);
}

std::string dialect::null_parameters_check(std::string const& result, std::string const& name) const {
    std::string value;
    if (result == "int") value = " " + ns + "_null_parameters";
    else if (name == "project_state") value = " -1";
    else if (result != "void") value = c ? (result == "float" ? " nanf(\"\")" : " nan(\"\")")
                                         : (result == "float" ? " std::nanf(\"\")" : " std::nan(\"\")");
    return render("c_api.tpl#null_check", {{"value", value}});
}

dialect const& current_dialect() {
    static dialect const cxx_default = dialect::cxx("", "double");
    return active ? *active : cxx_default;
}

dialect_scope::dialect_scope(dialect const& d) : previous_(active) { active = &d; }
dialect_scope::~dialect_scope() { active = previous_; }

std::string render_in_dialect(std::string_view template_name, std::vector<std::pair<std::string, std::string>> values) {
    dialect const& d = current_dialect();
    for (auto& v : d.values()) values.push_back(std::move(v));
    return render(d.template_name(template_name), values);
}

} // namespace lagc

// The language a generated file is written in: C++ (-o NAME.cpp, NAME.hpp) or C99 (-o
// NAME.c). One emitter writes both from the same expressions and templates; a dialect holds
// the spellings that differ (a helper's qualification, the null pointer, block-scope
// constants, a cast, the float math functions, how the parameters are passed), which every
// template may use by name, and picks a template of templates/c/
// over the C++ one where the text differs in shape (templates without int parameters, no
// namespace, no bool). In C the API functions keep their C++ names as static functions,
// which call each other; NAME_function checks the parameters pointer and calls its own
// (cxx_printer::c_wrapper). Private to stage 4.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lagc {

struct dialect {
    bool c = false;
    std::string detail = "detail::";                 // before a helper's name: "" in C (static functions)
    std::string null = "nullptr";                    // "0" in C
    std::string math_suffix;                         // "f" in C with float: sinf, sqrtf
    std::string constants = "constexpr int ", end_constants = ";"; // "enum { ", " };" in C
    std::string to_scalar;                           // "static_cast<double>", "(double)" in C
    std::string factor_nc = "detail::cholesky_factor<nc>", solve_nc = "detail::cholesky_solve<nc>";
    std::string factor_nq = "detail::cholesky_factor<nq>", solve_nq = "detail::cholesky_solve<nq>";
    std::string parameters_type = "const Parameters&"; // "const NAME_parameters*" in C

    static dialect cxx(std::string const& ns, std::string const& scalar);
    static dialect c99(std::string const& ns, std::string const& scalar);
    // The names every template may use: detail, null, mf, constants, end_constants,
    // to_scalar, factor_nc, solve_nc.
    std::vector<std::pair<std::string, std::string>> values() const;
    // "c/NAME" where templates/c/ has its own text for the template NAME, else NAME.
    std::string template_name(std::string_view name) const;
    // The first line of a C API function that reads the parameters: what it returns for a
    // NULL pointer (the status NAME_null_parameters, -1 from project_state, NaN from another
    // scalar function, nothing from a void one), as --c-api's wrappers do.
    std::string null_parameters_check(std::string const& result, std::string const& name) const;
    std::string ns; // the model's name (C names and the C interface)
};

// The dialect templates are rendered in while an emitter writes a file (C++ otherwise).
dialect const& current_dialect();
class dialect_scope {
public:
    explicit dialect_scope(dialect const& d);
    ~dialect_scope();
    dialect_scope(dialect_scope const&) = delete;
    dialect_scope& operator=(dialect_scope const&) = delete;

private:
    dialect const* previous_;
};

// render() in the current dialect: the template it picks, with its values added.
std::string render_in_dialect(std::string_view template_name, std::vector<std::pair<std::string, std::string>> values);

} // namespace lagc

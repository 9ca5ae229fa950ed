// Stage 2's working state: the checker class, shared by check.cpp (names and the driver),
// check_expressions.cpp (values, built-ins, operators) and check_statements.cpp (the rules
// of each statement). Private to stage 2; the stage's interface is check.hpp.
#pragma once

#include "builtins.hpp"
#include "frontend/check.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace lagc::checking {

namespace x3 = boost::spirit::x3;
using GiNaC::ex;
using opt_value = std::optional<value>;

template <class Node>
span span_of(Node const& n) {
    return {static_cast<std::size_t>(std::max(0, n.id_first)), static_cast<std::size_t>(std::max(0, n.id_last))};
}

// The identifier an expression consists of, through the single-operand layers the
// precedence levels of the grammar wrap around it; nullptr for anything else.
ast::identifier const* bare_identifier(ast::expression const& e);

// The decimal text of a number, shortened in the middle when long (messages stay short).
std::string clipped_text(GiNaC::numeric const& n);

// Whether e holds a symbol (a coordinate, velocity, input, parameter or t): a constant if not.
bool has_symbol(ex const& e);

class checker {
public:
    checker(source_file const& file, diagnostics& diags, check_limits const& limits,
            std::vector<failed_statement> const& failed)
        : file_(file), diags_(diags), limits_(limits) {
        for (auto const& f : failed) {
            quiet_names_.insert(f.names.begin(), f.names.end());
            model_failed_ = model_failed_ || f.keyword == "model";
        }
        any_failed_ = !failed.empty();
    }

    std::optional<model> run(std::vector<parsed_statement> const& statements);

private:
    enum class name_kind { parameter, coordinate, input, let, output };
    struct name_entry {
        name_kind kind;
        std::size_t index;
        span where;
    };

    source_file const& file_;
    diagnostics& diags_;
    check_limits limits_;
    model m_;
    bool have_model_ = false;
    bool have_baumgarte_ = false;
    int nesting_ = 0; // depth of eval(expression) calls; the size limit is checked at 0
    std::map<std::string, name_entry> names_;
    std::vector<opt_value> lets_; // nullopt: the let had an error; uses stay silent
    // Names in statements that did not parse: an unknown one is the parse error's doing.
    std::set<std::string> quiet_names_;
    bool model_failed_ = false; // the `model` statement did not parse: no "starts with 'model NAME'"
    bool any_failed_ = false;
    // Names a misspelt one may have meant: declared so far, t and pi.
    std::vector<std::string_view> names_in_scope() const;

    // -- names (check.cpp) ---------------------------------------------------
    bool declare(ast::identifier const& id, name_kind kind, std::size_t index);
    bool check_spelling(ast::identifier const& id, char const* what);
    bool depends_on(ex const& e, std::vector<GiNaC::symbol> const& syms) const;
    bool depends_on(value const& v, std::vector<GiNaC::symbol> const& syms) const;

    // -- expressions (check_expressions.cpp) ---------------------------------
    opt_value eval(ast::expression const& e);
    opt_value eval_levels(ast::expression const& e);
    opt_value eval(ast::operand const& o);
    std::optional<GiNaC::numeric> exact_number(ast::number const& n);
    opt_value eval_identifier(ast::identifier const& id);
    opt_value eval_list(ast::bracket_list const& l);
    std::optional<std::vector<value>> eval_all(std::vector<ast::expression> const& list);
    opt_value eval_subscript(ast::subscript const& s);
    std::optional<long> constant_index(ast::expression const& e);
    // A value free of symbols must be a real number a double can hold (asin(2), sqrt(-2)
    // and exp(1000) are not); reports at `where` and returns false otherwise.
    bool real_constant(ex const& e, span where, std::string const& what);

    // -- constants in the chosen scalar type (check_constants.cpp) ------------
    // A number as written: an error if it overflows the scalar type, a warning if it is 0 there.
    bool literal_fits(GiNaC::numeric const& v, span where);
    // The constant factors of a product's elements (exp(700) exp(10) in x exp(700) exp(10)):
    // an error where one overflows, a warning (once per expression) where one underflows to 0.
    bool constant_factors_fit(value const& v, span where);
    // A divisor free of symbols that is 0 in the scalar type (log(2) + log(3) - log(6),
    // exp(1e-17) - 1 in double): an error with its value.
    bool divisor_is_not_zero(ex const& divisor, span where);
    bool underflow_reported_ = false; // in the current top-level expression

    // Operators: + - * / ^ on scalars, vectors and matrices.
    opt_value binary(char op, value const& a, value const& b, span where);
    opt_value add(char op, value const& a, value const& b, span where);
    opt_value multiply(value const& a, value const& b, span where);
    opt_value divide(value const& a, value const& b, span where);
    opt_value power(value const& a, value const& b, span where);

    // -- built-in functions (check_calls.cpp) --------------------------------
    opt_value eval_call(ast::call const& c);
    opt_value scalar_call(builtin const& b, std::vector<value> const& args, ast::call const& c);
    opt_value time_derivative(value v, span where);
    void record_transport(value const& r, value const& part);
    void record_frame(value const& f);
    opt_value dot_or_cross(std::string const& fn, value const& a, value const& b, span where);
    void record_quadratic_form(value const& a, value const& b);
    opt_value norm_of(value const& v, span where);
    opt_value transpose_of(value const& v, span where);
    opt_value rotation(std::string const& fn, value const& angle, span where);
    opt_value axis_rotation(value const& axis, value const& angle, span axis_at, span angle_at);
    // Zero as written or once expanded (|axis|^2 of a zero axis).
    static bool is_zero_constant(ex const& e) { return e.is_zero() || e.expand().is_zero(); }

    // -- statements (check_statements.cpp) -----------------------------------
    std::optional<ex> parameter_default(ast::expression const& e, std::string const& name);
    bool output_names_are_free(output_def const& o, span where);
    void statement(ast::model_stmt const& s, span where);
    void statement(ast::declaration_stmt const& s, span where);
    void statement(ast::parameter_stmt const& s, span where);
    void statement(ast::definition_stmt const& s, span where);
    void statement(ast::energy_stmt const& s, span where);
    void statement(ast::force_stmt const& s, span where);
    void statement(ast::constraint_stmt const& s, span where);
    value constraint_rows_of_matrix(value const& r) const;
    void statement(ast::baumgarte_stmt const& s, span where);
};

} // namespace lagc::checking

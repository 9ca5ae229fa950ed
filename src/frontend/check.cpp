// Stage 2: syntax trees → checked model. This file: names (declaration, spelling) and the
// driver over the statements; expressions are check_expressions.cpp and check_calls.cpp,
// the rules of each statement check_statements.cpp.
#include "frontend/checker.hpp"

#include "common/cxx_names.hpp"
#include "symbolic/simplify.hpp"

#include <new>
#include <algorithm>

namespace lagc {

std::string value::describe() const {
    switch (shape) {
    case kind::scalar: return "a scalar";
    case kind::vector: return "a " + std::to_string(rows) + "-vector";
    case kind::matrix: return "a " + std::to_string(rows) + "x" + std::to_string(cols) + " matrix";
    }
    return "a value";
}

} // namespace lagc

namespace lagc::checking {

bool checker::depends_on(ex const& e, std::vector<GiNaC::symbol> const& syms) const { return has_any(e, syms); }
bool checker::depends_on(value const& v, std::vector<GiNaC::symbol> const& syms) const {
    for (auto const& e : v.elems)
        if (depends_on(e, syms)) return true;
    return false;
}

bool checker::check_spelling(ast::identifier const& id, char const* what) {
    std::string const& n = id.name;
    if (is_reserved_word(n)) {
        std::string why = is_cxx_keyword(n)        ? "a C++ keyword"
                          : builtin_named(n)         ? "a built-in function"
                          : n == "t"                  ? "the time variable"
                          : n == "pi"                 ? "the constant pi"
                                                      : "a statement keyword";
        diags_.error(span_of(id), "'" + n + "' is " + why + " and cannot be used as " + what + " name");
        return false;
    }
    if (n.find("__") != std::string::npos ||
        (n.size() > 1 && n[0] == '_' && std::isupper(static_cast<unsigned char>(n[1])))) {
        diags_.error(span_of(id), "'" + n + "' is reserved in C++ (double underscore, or underscore and capital)");
        return false;
    }
    // Parameters, coordinates, inputs and outputs are named in the generated code (fields,
    // enumerators of the index names, output_NAME): a macro of <cmath> would replace the
    // name there. Lets never appear in it.
    if (std::string(what) != "a let" && std::string(what) != "a model") {
        if (std::string why = cxx_name_problem(n, cxx_name_use::field); !why.empty()) {
            diags_.error(span_of(id), "'" + n + "' is " + why + " and cannot be " + what +
                                      " name in the generated C++; choose another name");
            return false;
        }
    }
    if (n.size() > 200) {
        diags_.error(span_of(id), "name is longer than 200 characters");
        return false;
    }
    return true;
}

bool checker::declare(ast::identifier const& id, name_kind kind, std::size_t index) {
    static char const* const kind_words[] = {"a parameter", "a coordinate", "an input", "a let", "an output"};
    if (!check_spelling(id, kind_words[static_cast<int>(kind)])) return false;
    auto [it, inserted] = names_.emplace(id.name, name_entry{kind, index, span_of(id)});
    if (!inserted) {
        auto prev = file_.locate(it->second.where.begin);
        diags_.error(span_of(id), "'" + id.name + "' is already declared as " +
                                      kind_words[static_cast<int>(it->second.kind)] + " at line " +
                                      std::to_string(prev.line) + ", column " + std::to_string(prev.column));
        return false;
    }
    return true;
}

std::vector<std::string_view> checker::names_in_scope() const {
    std::vector<std::string_view> out;
    for (auto const& [name, entry] : names_) out.push_back(name);
    out.push_back("t");
    out.push_back("pi");
    return out;
}

std::optional<model> checker::run(std::vector<parsed_statement> const& statements) {
    bool first = true;
    for (auto const& st : statements) {
        if (first && !model_failed_ && !boost::get<ast::model_stmt>(&st.node)) {
            diags_.error(st.where, "a model starts with 'model NAME'");
            have_model_ = true; // report once
        }
        first = false;
        try {
            boost::apply_visitor([&](auto const& s) { statement(s, st.where); }, st.node);
        } catch (GiNaC::pole_error const&) {
            diags_.error(st.where, "division by zero or log(0) in this statement");
        } catch (std::bad_alloc const&) {
            diags_.error(st.where, "out of memory while checking this statement (its expressions grow too large; "
                                   "simplify it, or lower --max-terms to stop such a model sooner)");
            return std::nullopt;
        } catch (std::exception const& e) {
            diags_.error(st.where, std::string("this statement cannot be evaluated: ") + e.what());
        }
    }
    if (statements.empty() && !any_failed_) diags_.error({0, 0}, "the model is empty; it starts with 'model NAME'");
    else if (m_.q.empty() && !diags_.has_errors())
        diags_.error(statements.front().where, "the model declares no coordinate");
    if (diags_.has_errors()) return std::nullopt;
    return std::move(m_);
}

} // namespace lagc::checking

namespace lagc {

bool is_reserved_word(std::string const& name) {
    auto const& keywords = statement_keywords();
    return std::find(keywords.begin(), keywords.end(), name) != keywords.end() || builtin_named(name) ||
           is_cxx_keyword(name) || name == "t" || name == "pi";
}

std::optional<model> check(std::vector<parsed_statement> const& statements, source_file const& file,
                           diagnostics& diags, check_limits const& limits, std::vector<failed_statement> const& failed) {
    return checking::checker(file, diags, limits, failed).run(statements);
}

} // namespace lagc

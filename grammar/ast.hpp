// The syntax tree of a .lag model as the parser produces it: one node per construct,
// each tagged with the byte span it came from so later stages can point at it.
#pragma once

#include <boost/optional.hpp>
#include <boost/spirit/home/x3/support/ast/position_tagged.hpp>
#include <boost/spirit/home/x3/support/ast/variant.hpp>

#include <string>
#include <vector>

namespace lagc::ast {

namespace x3 = boost::spirit::x3;

// Spans are byte offsets into the source, written by the parser's position tagger
// into position_tagged::id_first / id_last (half-open).
struct nil {};

struct identifier : x3::position_tagged {
    std::string name;
};

// Kept as text: the checker turns it into an exact rational, never a double.
struct number : x3::position_tagged {
    std::string text;
};

struct unary;
struct expression;
struct call;
struct bracket_list;
struct subscript;

struct operand
    : x3::variant<nil, number, identifier, x3::forward_ast<unary>, x3::forward_ast<expression>,
                  x3::forward_ast<call>, x3::forward_ast<bracket_list>, x3::forward_ast<subscript>> {
    using base_type::base_type;
    using base_type::operator=;
};

struct unary : x3::position_tagged {
    char sign = '-';
    operand operand_;
};

// One binary operator and its right operand; all operators of one node share a
// precedence level ('+-', '*/' or '^'), which fixes associativity.
struct operation : x3::position_tagged {
    char op = '+';
    operand operand_;
};

struct expression : x3::position_tagged {
    operand first;
    std::vector<operation> rest;
};

struct call : x3::position_tagged {
    identifier function;
    std::vector<expression> arguments;
};

// `[a, b]` (a vector) or `[[a, b], [c, d]]` (a matrix: a list of row vectors).
struct bracket_list : x3::position_tagged {
    char open = '[';
    std::vector<expression> elements;
};

// `base[i][j]`; most operands are parsed as a subscript with no indices.
struct subscript : x3::position_tagged {
    operand base;
    std::vector<expression> indices;
};

// ---- statements ------------------------------------------------------------

struct model_stmt : x3::position_tagged {
    std::string keyword;
    identifier name;
};

// `coordinate a, b` and `input u, v`
struct declaration_stmt : x3::position_tagged {
    std::string keyword;
    std::vector<identifier> names;
};

struct parameter_decl : x3::position_tagged {
    identifier name;
    boost::optional<expression> value; // numbers and earlier parameters (v1.1)
};

struct parameter_stmt : x3::position_tagged {
    std::string keyword;
    std::vector<parameter_decl> decls;
};

// `let NAME = EXPR` and `output NAME = EXPR`
struct definition_stmt : x3::position_tagged {
    std::string keyword;
    identifier name;
    expression value;
};

// `kinetic`, `potential`, `lagrangian`, `dissipation`
struct energy_stmt : x3::position_tagged {
    std::string keyword;
    expression value;
};

// `force EXPR on COORD`, `force VEC at POINT`, `torque VEC at OMEGA`
struct force_stmt : x3::position_tagged {
    std::string keyword;
    expression value;
    std::string mode;
    expression target;
};

struct constraint_stmt : x3::position_tagged {
    std::string keyword;
    expression lhs;
    boost::optional<expression> rhs;
};

struct named_argument : x3::position_tagged {
    identifier name;
    expression value;
};

struct baumgarte_stmt : x3::position_tagged {
    std::string keyword;
    std::vector<named_argument> arguments;
};

struct statement
    : x3::variant<model_stmt, declaration_stmt, parameter_stmt, definition_stmt, energy_stmt,
                  force_stmt, constraint_stmt, baumgarte_stmt> {
    using base_type::base_type;
    using base_type::operator=;
};

} // namespace lagc::ast

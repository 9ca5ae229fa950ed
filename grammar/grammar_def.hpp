// The rules of the .lag statement grammar (one logical line at a time).
#pragma once

#include "ast.hpp"
#include "ast_adapted.hpp"
#include "grammar.hpp"

#include <boost/spirit/home/x3.hpp>
#include <boost/spirit/home/x3/support/utility/annotate_on_success.hpp>

namespace lagc::parser {

namespace x3 = boost::spirit::x3;
using x3::alnum;
using x3::alpha;
using x3::char_;
using x3::digit;
using x3::lexeme;
using x3::lit;
using x3::raw;

// Rule IDs derive from annotate_on_success so every node learns its source span.
struct identifier_class : x3::annotate_on_success {};
struct number_class : x3::annotate_on_success {};
struct signed_number_class : x3::annotate_on_success {};
struct call_class : x3::annotate_on_success {};
struct bracket_list_class : x3::annotate_on_success {};
struct subscript_class : x3::annotate_on_success {};
struct unary_class : x3::annotate_on_success {};
struct factor_class : x3::annotate_on_success {};
struct power_class : x3::annotate_on_success {};
struct pow_op_class : x3::annotate_on_success {};
struct mul_op_class : x3::annotate_on_success {};
struct add_op_class : x3::annotate_on_success {};
struct term_class : x3::annotate_on_success {};
struct expression_class : x3::annotate_on_success {};
struct primary_class : x3::annotate_on_success {};
struct model_stmt_class : x3::annotate_on_success {};
struct declaration_stmt_class : x3::annotate_on_success {};
struct parameter_decl_class : x3::annotate_on_success {};
struct parameter_stmt_class : x3::annotate_on_success {};
struct definition_stmt_class : x3::annotate_on_success {};
struct energy_stmt_class : x3::annotate_on_success {};
struct force_stmt_class : x3::annotate_on_success {};
struct constraint_stmt_class : x3::annotate_on_success {};
struct named_argument_class : x3::annotate_on_success {};
struct baumgarte_stmt_class : x3::annotate_on_success {};
struct statement_class : x3::annotate_on_success {};
struct number_end_class;
struct force_mode_class;
struct closing_paren_class;
struct closing_bracket_class;
struct equals_class;
struct name_list_class;
struct parameter_list_class;
struct gain_list_class;

// Rule names are what a user reads after "expected": plain words only.
x3::rule<identifier_class, ast::identifier> const identifier = "a name";
x3::rule<number_class, ast::number> const number = "a number";
x3::rule<signed_number_class, ast::number> const signed_number = "a number";
x3::rule<number_end_class> const number_end = "number-end";
x3::rule<call_class, ast::call> const call = "a function call";
x3::rule<bracket_list_class, ast::bracket_list> const bracket_list = "a vector or matrix";
x3::rule<primary_class, ast::operand> const primary = "an operand";
x3::rule<subscript_class, ast::subscript> const subscript = "an operand";
x3::rule<unary_class, ast::unary> const unary = "an operand";
x3::rule<factor_class, ast::operand> const factor = "an operand";
x3::rule<power_class, ast::expression> const power = "an operand";
x3::rule<pow_op_class, ast::operation> const pow_op = "an exponent";
x3::rule<mul_op_class, ast::operation> const mul_op = "an operand";
x3::rule<add_op_class, ast::operation> const add_op = "an operand";
x3::rule<term_class, ast::expression> const term = "an expression";
x3::rule<expression_class, ast::expression> const expression = "an expression";
x3::rule<force_mode_class, std::string> const force_mode = "'on' or 'at'";
x3::rule<closing_paren_class> const closing_paren = "')'";
x3::rule<closing_bracket_class> const closing_bracket = "']'";
x3::rule<equals_class> const equals = "'='";
x3::rule<name_list_class, std::vector<ast::identifier>> const name_list = "a name";
x3::rule<parameter_list_class, std::vector<ast::parameter_decl>> const parameter_list = "a parameter name";
x3::rule<gain_list_class, std::vector<ast::named_argument>> const gain_list = "a gain (alpha = ... or beta = ...)";
x3::rule<model_stmt_class, ast::model_stmt> const model_stmt = "a model statement";
x3::rule<declaration_stmt_class, ast::declaration_stmt> const declaration_stmt = "a declaration";
x3::rule<parameter_decl_class, ast::parameter_decl> const parameter_decl = "a parameter";
x3::rule<parameter_stmt_class, ast::parameter_stmt> const parameter_stmt = "a parameter statement";
x3::rule<definition_stmt_class, ast::definition_stmt> const definition_stmt = "a definition";
x3::rule<energy_stmt_class, ast::energy_stmt> const energy_stmt = "an energy statement";
x3::rule<force_stmt_class, ast::force_stmt> const force_stmt = "a force statement";
x3::rule<constraint_stmt_class, ast::constraint_stmt> const constraint_stmt = "a constraint";
x3::rule<named_argument_class, ast::named_argument> const named_argument = "a gain (alpha = ... or beta = ...)";
x3::rule<baumgarte_stmt_class, ast::baumgarte_stmt> const baumgarte_stmt = "a baumgarte statement";
statement_type const statement = "a statement";

// A keyword is a whole word: `model` matches in `model x`, not in `modelx`.
inline auto kw(char const* word) {
    return x3::rule<struct keyword_class, std::string>{word} =
               lexeme[x3::string(word) >> !(alnum | char_('_'))];
}

// X3 hands on_success an unused attribute for rules whose right-hand side has an action,
// so these actions tag their node themselves.
template <class Context, class Range>
void tag_here(Context const& ctx, Range const& r) {
    x3::get<x3::error_handler_tag>(ctx).get().tag(x3::_val(ctx), r.begin(), r.end());
}
auto const set_identifier = [](auto& ctx) {
    auto const& r = x3::_attr(ctx);
    x3::_val(ctx).name.assign(r.begin(), r.end());
    tag_here(ctx, r);
};
auto const set_number = [](auto& ctx) {
    auto const& r = x3::_attr(ctx);
    x3::_val(ctx).text.assign(r.begin(), r.end());
    tag_here(ctx, r);
};


auto const number_body = (+digit >> -('.' >> *digit) | '.' >> +digit) >> -(char_("eE") >> -char_("+-") >> +digit);

// identifier ::= [A-Za-z_][A-Za-z0-9_]*
auto const identifier_def = raw[lexeme[(alpha | char_('_')) >> *(alnum | char_('_'))]][set_identifier];
// number ::= digits ['.' digits] [('e'|'E') ['+'|'-'] digits] | '.' digits   (not followed by a letter or '.')
auto const number_def = raw[lexeme[number_body > number_end]][set_number];
auto const number_end_def = !(alnum | char_("_."));
// signed_number ::= ['+'|'-'] number
auto const signed_number_def = raw[lexeme[-char_("+-") >> number_body > number_end]][set_number];

auto const closing_paren_def = lit(')');
auto const closing_bracket_def = lit(']');
auto const equals_def = lit('=');

// call ::= identifier '(' [expression {',' expression}] ')'
auto const call_def = identifier >> '(' > -(expression % ',') > closing_paren;
// bracket_list ::= '[' [expression {',' expression}] ']'
auto const bracket_list_def = char_('[') > -(expression % ',') > closing_bracket;
// primary ::= number | call | identifier | '(' expression ')' | bracket_list
auto const primary_def = number | call | identifier | ('(' > expression > closing_paren) | bracket_list;
// subscript ::= primary {'[' expression ']'}
auto const subscript_def = primary >> *('[' > expression > closing_bracket);
// factor ::= ('-'|'+') factor | power        (unary minus binds looser than '^')
auto const unary_def = char_("-+") > factor;
auto const factor_def = unary | power;
// power ::= subscript ['^' factor]           (right-associative: 2^3^2 = 2^9)
auto const pow_op_def = char_('^') > factor;
auto const power_def = subscript >> *pow_op;
// term ::= factor {('*'|'/') factor}
auto const mul_op_def = char_("*/") > factor;
auto const term_def = factor >> *mul_op;
// expression ::= term {('+'|'-') term}
auto const add_op_def = char_("+-") > term;
auto const expression_def = term >> *add_op;

auto const force_mode_def = kw("on") | kw("at");

// model_stmt ::= 'model' identifier
auto const model_stmt_def = kw("model") > identifier;
// declaration_stmt ::= ('coordinate' | 'input') identifier {',' identifier}
auto const name_list_def = identifier % ',';
auto const declaration_stmt_def = (kw("coordinate") | kw("input")) > name_list;
// parameter_decl ::= identifier ['=' expression]   (numbers and earlier parameters)
auto const parameter_decl_def = identifier > -('=' > expression);
// parameter_stmt ::= 'parameter' parameter_decl {',' parameter_decl}
auto const parameter_list_def = parameter_decl % ',';
auto const parameter_stmt_def = kw("parameter") > parameter_list;
// definition_stmt ::= ('let' | 'output') identifier '=' expression
auto const definition_stmt_def = (kw("let") | kw("output")) > identifier > equals > expression;
// energy_stmt ::= ('kinetic' | 'potential' | 'lagrangian' | 'dissipation') expression
auto const energy_stmt_def =
    (kw("kinetic") | kw("potential") | kw("lagrangian") | kw("dissipation")) > expression;
// force_stmt ::= ('force' | 'torque') expression ('on' | 'at') expression
auto const force_stmt_def = (kw("force") | kw("torque")) > expression > force_mode > expression;
// constraint_stmt ::= 'constraint' expression ['=' expression]
auto const constraint_stmt_def = kw("constraint") > expression > -('=' > expression);
// named_argument ::= identifier '=' expression
auto const named_argument_def = identifier > equals > expression;
// baumgarte_stmt ::= 'baumgarte' named_argument {',' named_argument}
auto const gain_list_def = named_argument % ',';
auto const baumgarte_stmt_def = kw("baumgarte") > gain_list;
// statement ::= one of the above
auto const statement_def = model_stmt | declaration_stmt | parameter_stmt | definition_stmt | energy_stmt |
                           force_stmt | constraint_stmt | baumgarte_stmt;

BOOST_SPIRIT_DEFINE(identifier, number, number_end, signed_number, closing_paren, closing_bracket, equals, name_list,
                    parameter_list, gain_list, call,
                    bracket_list, primary, subscript, unary, factor, pow_op, power, mul_op, term, add_op,
                    expression, force_mode, model_stmt, declaration_stmt, parameter_decl, parameter_stmt,
                    definition_stmt, energy_stmt, force_stmt, constraint_stmt, named_argument, baumgarte_stmt,
                    statement)

} // namespace lagc::parser
